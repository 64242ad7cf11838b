/* tests/cuda/gpu_harness.c: see gpu_harness.h. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABI_CHECK_DEFINE
#include "gpu_harness.h"

tabi_runtime *gpu, *ref;
int cmp_out; /* the output compare() checks (max pooling's indices: 1) */
DLDevice CUDA0 = {kDLCUDA, 0}; /* the device under test (CUDA or ROCm) */
int LIB_ACCUM;
const DLDevice CPU = {kDLCPU, 0};

static uint64_t rng = 88172645463325252ull;
double urand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

void convert_pair(tabi_tensor *g, tabi_tensor *r, tabi_dtype dt, tabi_tensor **og, tabi_tensor **orf) {
  tabi_op cg, cr;
  tabi_op_find(gpu, "prims::convert_element_type", &cg);
  tabi_op_find(ref, "prims::convert_element_type", &cr);
  tabi_value a1[2] = {tabi_tensor_value(g), tabi_dtype_value(dt)}, o1 = tabi_none();
  tabi_value a2[2] = {tabi_tensor_value(r), tabi_dtype_value(dt)}, o2 = tabi_none();
  CHECK_OK(tabi_call(gpu, cg, a1, 2, &o1, 1));
  CHECK_OK(tabi_call(ref, cr, a2, 2, &o2, 1));
  *og = o1.tag == TABI_TAG_TENSOR ? o1.u.t : NULL;
  *orf = o2.tag == TABI_TAG_TENSOR ? o2.u.t : NULL;
}

/* Calls `name` with tensor args built from the same float64 host data
 * (converted to dtype), plus extra trailing values, in both runtimes; compares
 * output 0 as float64 with rtol/atol. */
void compare(const char *name, tabi_dtype dt, int nt, int32_t nd, const int64_t *shape,
                    const tabi_value *extra, int nextra, double rtol, double atol) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  tabi_value ga[8], ra[8];
  tabi_tensor *gt[4] = {0}, *rt[4] = {0};
  for (int k = 0; k < nt; k++) {
    double *h = malloc(sizeof(double) * (size_t)n);
    for (int64_t i = 0; i < n; i++) h[i] = urand() * 4 - 2;
    tabi_tensor *tmp_g = NULL, *tmp_r = NULL;
    CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_FLOAT64, nd, shape, h, (uint64_t)n * 8, &tmp_g));
    CHECK_OK(tabi_tensor_from_host(ref, CPU, TABI_DTYPE_FLOAT64, nd, shape, h, (uint64_t)n * 8, &tmp_r));
    free(h);
    convert_pair(tmp_g, tmp_r, dt, &gt[k], &rt[k]);
    tabi_tensor_release(tmp_g);
    tabi_tensor_release(tmp_r);
    ga[k] = tabi_tensor_value(gt[k]);
    ra[k] = tabi_tensor_value(rt[k]);
  }
  for (int k = 0; k < nextra; k++) ga[nt + k] = ra[nt + k] = extra[k];
  tabi_op og, orf;
  CHECK_OK(tabi_op_find(gpu, name, &og));
  CHECK_OK(tabi_op_find(ref, name, &orf));
  tabi_value go[3] = {tabi_none(), tabi_none(), tabi_none()}, ro[3] = {tabi_none(), tabi_none(), tabi_none()};
  tabi_status sg = tabi_call(gpu, og, ga, nt + nextra, go, 3);
  CHECK_MSG(sg == TABI_OK, "%s: %s", name, tabi_last_error());
  tabi_status sr = tabi_call(ref, orf, ra, nt + nextra, ro, 3);
  CHECK_MSG(sr == TABI_OK, "%s (reference): %s", name, tabi_last_error());
  if (sg == TABI_OK && sr == TABI_OK) {
    char what[160];
    snprintf(what, sizeof what, "%s %s output %d", name, tabi_dtype_name(dt), cmp_out);
    same_tensor(what, go[cmp_out].tag == TABI_TAG_TENSOR ? go[cmp_out].u.t : NULL,
                ro[cmp_out].tag == TABI_TAG_TENSOR ? ro[cmp_out].u.t : NULL, rtol, atol);
  }
  for (int k = 0; k < 3; k++) {
    tabi_value_release(&go[k]);
    tabi_value_release(&ro[k]);
  }
  for (int k = 0; k < nt; k++) {
    tabi_tensor_release(gt[k]);
    tabi_tensor_release(rt[k]);
  }
}

/* Bad arguments: the device kernel must refuse with the reference's status and
 * message (both runtimes get a float32 tensor of `shape`, then `extra`). */
void same_error_built(const char *what, const char *name, tabi_value *ga, tabi_value *ra, int na) {
  tabi_op og, orf;
  CHECK_OK(tabi_op_find(gpu, name, &og));
  CHECK_OK(tabi_op_find(ref, name, &orf));
  tabi_value go = tabi_none(), ro = tabi_none();
  tabi_status sr = tabi_call(ref, orf, ra, na, &ro, 1);
  char rmsg[512];
  snprintf(rmsg, sizeof rmsg, "%s", tabi_last_error());
  tabi_status sg = tabi_call(gpu, og, ga, na, &go, 1);
  CHECK_MSG(sr != TABI_OK && sg == sr && strcmp(tabi_last_error(), rmsg) == 0,
            "%s: status %d \"%s\", reference %d \"%s\"", what, (int)sg, tabi_last_error(), (int)sr, rmsg);
  tabi_value_release(&go);
  tabi_value_release(&ro);
}

void same_error(const char *name, int32_t nd, const int64_t *shape, const tabi_value *extra,
                       int nextra) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  float *h = calloc((size_t)n + 1, sizeof(float));
  tabi_tensor *gt = NULL, *rt = NULL;
  CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_FLOAT32, nd, shape, h, (uint64_t)n * 4, &gt));
  CHECK_OK(tabi_tensor_from_host(ref, CPU, TABI_DTYPE_FLOAT32, nd, shape, h, (uint64_t)n * 4, &rt));
  free(h);
  tabi_value ga[8], ra[8];
  ga[0] = tabi_tensor_value(gt);
  ra[0] = tabi_tensor_value(rt);
  for (int k = 0; k < nextra; k++) ga[1 + k] = ra[1 + k] = extra[k];
  same_error_built(name, name, ga, ra, 1 + nextra);
  tabi_tensor_release(gt);
  tabi_tensor_release(rt);
}

/* A tensor of dt on (rt, dev) from float64 host values. */
tabi_tensor *upload(tabi_runtime *rt, DLDevice dev, tabi_dtype dt, int32_t nd, const int64_t *shape,
                           const double *h) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  tabi_tensor *t = NULL;
  tabi_op cv;
  CHECK_OK(tabi_tensor_from_host(rt, dev, TABI_DTYPE_FLOAT64, nd, shape, h, (uint64_t)n * 8, &t));
  tabi_op_find(rt, "prims::convert_element_type", &cv);
  tabi_value a[2] = {tabi_tensor_value(t), tabi_dtype_value(dt)}, o = tabi_none();
  CHECK_OK(tabi_call(rt, cv, a, 2, &o, 1));
  tabi_tensor_release(t);
  return o.u.t;
}

/* A tensor of dtype dt holding the float64 host values h (converted as
 * convert_element_type does), in both runtimes: *g on the device, *r on the CPU. */
void both_tensor(tabi_dtype dt, int32_t nd, const int64_t *shape, const double *h, tabi_tensor **g,
                        tabi_tensor **r) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  tabi_tensor *tg = NULL, *tr = NULL;
  *g = *r = NULL;
  CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_FLOAT64, nd, shape, h, (uint64_t)n * 8, &tg));
  CHECK_OK(tabi_tensor_from_host(ref, CPU, TABI_DTYPE_FLOAT64, nd, shape, h, (uint64_t)n * 8, &tr));
  tabi_op cg, cr;
  tabi_op_find(gpu, "prims::convert_element_type", &cg);
  tabi_op_find(ref, "prims::convert_element_type", &cr);
  tabi_value a1[2] = {tabi_tensor_value(tg), tabi_dtype_value(dt)}, o1 = tabi_none();
  tabi_value a2[2] = {tabi_tensor_value(tr), tabi_dtype_value(dt)}, o2 = tabi_none();
  CHECK_OK(tabi_call(gpu, cg, a1, 2, &o1, 1));
  CHECK_OK(tabi_call(ref, cr, a2, 2, &o2, 1));
  *g = o1.u.t;
  *r = o2.u.t;
  tabi_tensor_release(tg);
  tabi_tensor_release(tr);
}

void both_view(const char *name, const tabi_value *extra, int nextra, tabi_tensor **g, tabi_tensor **r) {
  tabi_op og, orf;
  CHECK_OK(tabi_op_find(gpu, name, &og));
  CHECK_OK(tabi_op_find(ref, name, &orf));
  tabi_value a1[8] = {tabi_tensor_value(*g)}, a2[8] = {tabi_tensor_value(*r)};
  for (int i = 0; i < nextra && i < 7; i++) a1[i + 1] = a2[i + 1] = extra[i];
  tabi_value o1 = tabi_none(), o2 = tabi_none();
  CHECK_OK(tabi_call(gpu, og, a1, 1 + nextra, &o1, 1));
  CHECK_OK(tabi_call(ref, orf, a2, 1 + nextra, &o2, 1));
  tabi_tensor_release(*g);
  tabi_tensor_release(*r);
  *g = o1.u.t;
  *r = o2.u.t;
}

void both_permute(tabi_tensor **g, tabi_tensor **r, int32_t nd, const int64_t *perm) {
  tabi_value perm_arg = tabi_int_list(perm, nd);
  both_view("aten::permute", &perm_arg, 1, g, r);
}

void both_random(tabi_dtype dt, int32_t nd, const int64_t *shape, tabi_tensor **g, tabi_tensor **r) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  double *h = malloc(sizeof(double) * (size_t)(n + 1));
  CHECK(h != NULL);
  if (!h) return;
  for (int64_t i = 0; i < n; i++) h[i] = urand() * 2 - 1;
  both_tensor(dt, nd, shape, h, g, r);
  free(h);
}

/* `name` on prebuilt arguments ga (device) and ra (CPU); output 0 compared as
 * float64 within rtol/atol. */
void compare_built(const char *name, tabi_value *ga, tabi_value *ra, int na, double rtol, double atol) {
  tabi_op og, orf;
  CHECK_OK(tabi_op_find(gpu, name, &og));
  CHECK_OK(tabi_op_find(ref, name, &orf));
  tabi_value gv[3] = {tabi_none(), tabi_none(), tabi_none()}, rv[3] = {tabi_none(), tabi_none(), tabi_none()};
  tabi_status sg = tabi_call(gpu, og, ga, na, gv, 3);
  CHECK_MSG(sg == TABI_OK, "%s: %s", name, tabi_last_error());
  tabi_status sr = tabi_call(ref, orf, ra, na, rv, 3);
  tabi_value go = gv[cmp_out], ro = rv[cmp_out];
  CHECK_MSG(sr == TABI_OK, "%s (reference): %s", name, tabi_last_error());
  CHECK_MSG(sg != TABI_OK || sr != TABI_OK || (go.tag == TABI_TAG_TENSOR && ro.tag == TABI_TAG_TENSOR),
            "%s: output %d is not a tensor", name, cmp_out);
  if (sg == TABI_OK && sr == TABI_OK && go.tag == TABI_TAG_TENSOR && ro.tag == TABI_TAG_TENSOR) {
    tabi_tensor *xg = NULL, *xr = NULL;
    int64_t m = 1;
    for (int32_t i = 0; i < ro.u.t->dl.ndim; i++) m *= ro.u.t->dl.shape[i];
    CHECK(go.u.t->dl.ndim == ro.u.t->dl.ndim);
    tabi_op cg, cr;
    tabi_op_find(gpu, "prims::convert_element_type", &cg);
    tabi_op_find(ref, "prims::convert_element_type", &cr);
    tabi_value a1[2] = {go, tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o1 = tabi_none();
    tabi_value a2[2] = {ro, tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o2 = tabi_none();
    CHECK_OK(tabi_call(gpu, cg, a1, 2, &o1, 1));
    CHECK_OK(tabi_call(ref, cr, a2, 2, &o2, 1));
    xg = o1.u.t;
    xr = o2.u.t;
    double *x = calloc((size_t)m + 1, 8), *y = calloc((size_t)m + 1, 8);
    CHECK_OK(tabi_tensor_to_host(gpu, xg, x, (uint64_t)m * 8));
    CHECK_OK(tabi_tensor_to_host(ref, xr, y, (uint64_t)m * 8));
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < m; i++) {
      int ok = x[i] == y[i] || (isnan(x[i]) && isnan(y[i])) || fabs(x[i] - y[i]) <= atol + rtol * fabs(y[i]);
      if (!ok && first < 0) first = i;
      bad += !ok;
    }
    CHECK_MSG(bad == 0, "%s %s: %lld of %lld elements differ; first at %lld: %.17g vs %.17g", name,
              tabi_dtype_name(tabi_tensor_dtype(ro.u.t)), (long long)bad, (long long)m, (long long)first,
              first >= 0 ? x[first] : 0.0, first >= 0 ? y[first] : 0.0);
    free(x);
    free(y);
    tabi_tensor_release(xg);
    tabi_tensor_release(xr);
  }
  for (int k = 0; k < 3; k++) {
    tabi_value_release(&gv[k]);
    tabi_value_release(&rv[k]);
  }
}

/* g (device) against r (CPU), both converted to float64: same dtype and shape,
 * within rtol/atol (NaN matching NaN). */
void same_tensor(const char *what, tabi_tensor *g, tabi_tensor *r, double rtol, double atol) {
  int same = g && r && g->dl.ndim == r->dl.ndim && tabi_tensor_dtype(g) == tabi_tensor_dtype(r);
  int64_t n = 1;
  for (int32_t j = 0; same && j < r->dl.ndim; j++) same = g->dl.shape[j] == r->dl.shape[j];
  CHECK_MSG(same, "%s: dtype or shape differs from the reference's", what);
  if (!same) return;
  for (int32_t j = 0; j < r->dl.ndim; j++) n *= r->dl.shape[j];
  tabi_tensor *x64 = NULL, *y64 = NULL;
  convert_pair(g, r, TABI_DTYPE_FLOAT64, &x64, &y64);
  double *x = calloc((size_t)n + 1, 8), *y = calloc((size_t)n + 1, 8);
  if (x64 && y64 && n > 0) {
    CHECK_OK(tabi_tensor_to_host(gpu, x64, x, (uint64_t)n * 8));
    CHECK_OK(tabi_tensor_to_host(ref, y64, y, (uint64_t)n * 8));
  }
  int64_t bad = 0, first = -1;
  for (int64_t j = 0; j < n; j++) {
    int ok = x[j] == y[j] || (isnan(x[j]) && isnan(y[j])) || fabs(x[j] - y[j]) <= atol + rtol * fabs(y[j]);
    if (!ok && first < 0) first = j;
    bad += !ok;
  }
  CHECK_MSG(bad == 0, "%s: %lld of %lld differ; first at %lld: %.17g vs %.17g", what, (long long)bad, (long long)n,
            (long long)first, first >= 0 ? x[first] : 0.0, first >= 0 ? y[first] : 0.0);
  free(x);
  free(y);
  tabi_tensor_release(x64);
  tabi_tensor_release(y64);
}

tabi_tensor *call_tensor(tabi_runtime *rt, const char *name, tabi_value *args, int na) {
  tabi_op op;
  CHECK_OK(tabi_op_find(rt, name, &op));
  tabi_value o = tabi_none();
  tabi_status st = tabi_call(rt, op, args, na, &o, 1);
  CHECK_MSG(st == TABI_OK, "%s: %s", name, tabi_last_error());
  if (st == TABI_OK && o.tag != TABI_TAG_TENSOR) tabi_value_release(&o);
  return st == TABI_OK && o.tag == TABI_TAG_TENSOR ? o.u.t : NULL;
}
