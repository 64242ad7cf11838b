/* tests/cuda/test_cuda_ops.c: the GPU kernels against the reference plugin on
 * random inputs (GPU only; exits 77 "skipped" when no device is present).
 * Each case builds the same host data in two runtimes, calls the op in both,
 * and compares within the float tolerance; random ops must match bit for bit
 * for a shared seed. The ROCm plugin compiles the same kernel sources, so the
 * same cases run against it (argv[3] = 10, kDLROCM). argv[1]: the device plugin; argv[2]: libtabi_reference.so;
 * argv[3]: its DLDeviceType (default 2, kDLCUDA). */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/runtime.h>

#include "check.h"

static tabi_runtime *gpu, *ref;
static int cmp_out; /* the output compare() checks (max pooling's indices: 1) */
static DLDevice CUDA0 = {kDLCUDA, 0}; /* the device under test (CUDA or ROCm) */
static const DLDevice CPU = {kDLCPU, 0};

static uint64_t rng = 88172645463325252ull;
static double urand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

/* Calls `name` with tensor args built from the same float64 host data
 * (converted to dtype), plus extra trailing values, in both runtimes; compares
 * output 0 as float64 with rtol/atol. */
static void compare(const char *name, tabi_dtype dt, int nt, int32_t nd, const int64_t *shape,
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
    tabi_op cg, cr;
    tabi_op_find(gpu, "prims::convert_element_type", &cg);
    tabi_op_find(ref, "prims::convert_element_type", &cr);
    tabi_value a1[2] = {tabi_tensor_value(tmp_g), tabi_dtype_value(dt)}, o1 = tabi_none();
    tabi_value a2[2] = {tabi_tensor_value(tmp_r), tabi_dtype_value(dt)}, o2 = tabi_none();
    CHECK_OK(tabi_call(gpu, cg, a1, 2, &o1, 1));
    CHECK_OK(tabi_call(ref, cr, a2, 2, &o2, 1));
    gt[k] = o1.u.t;
    rt[k] = o2.u.t;
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
    tabi_op cg, cr;
    tabi_op_find(gpu, "prims::convert_element_type", &cg);
    tabi_op_find(ref, "prims::convert_element_type", &cr);
    tabi_value a1[2] = {go[cmp_out], tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o1 = tabi_none();
    tabi_value a2[2] = {ro[cmp_out], tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o2 = tabi_none();
    CHECK_OK(tabi_call(gpu, cg, a1, 2, &o1, 1));
    CHECK_OK(tabi_call(ref, cr, a2, 2, &o2, 1));
    int64_t m = o2.u.t ? 1 : 0;
    for (int32_t i = 0; o2.u.t && i < o2.u.t->dl.ndim; i++) m *= o2.u.t->dl.shape[i];
    double *x = calloc((size_t)m + 1, 8), *y = calloc((size_t)m + 1, 8);
    CHECK_OK(tabi_tensor_to_host(gpu, o1.u.t, x, (uint64_t)m * 8));
    CHECK_OK(tabi_tensor_to_host(ref, o2.u.t, y, (uint64_t)m * 8));
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < m; i++) {
      int ok = x[i] == y[i] || (isnan(x[i]) && isnan(y[i])) || fabs(x[i] - y[i]) <= atol + rtol * fabs(y[i]);
      if (!ok && first < 0) first = i;
      bad += !ok;
    }
    CHECK_MSG(bad == 0, "%s %s: %lld of %lld elements differ; first at %lld: %.17g vs %.17g", name,
              tabi_dtype_name(dt), (long long)bad, (long long)m, (long long)first,
              first >= 0 ? x[first] : 0.0, first >= 0 ? y[first] : 0.0);
    free(x);
    free(y);
    tabi_value_release(&o1);
    tabi_value_release(&o2);
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
static void same_error(const char *name, int32_t nd, const int64_t *shape, const tabi_value *extra,
                       int nextra) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  float *h = calloc((size_t)n + 1, sizeof(float));
  tabi_tensor *gt = NULL, *rt = NULL;
  CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_FLOAT32, nd, shape, h, (uint64_t)n * 4, &gt));
  CHECK_OK(tabi_tensor_from_host(ref, CPU, TABI_DTYPE_FLOAT32, nd, shape, h, (uint64_t)n * 4, &rt));
  free(h);
  tabi_value ga[8], ra[8], go = tabi_none(), ro = tabi_none();
  ga[0] = tabi_tensor_value(gt);
  ra[0] = tabi_tensor_value(rt);
  for (int k = 0; k < nextra; k++) ga[1 + k] = ra[1 + k] = extra[k];
  tabi_op og, orf;
  CHECK_OK(tabi_op_find(gpu, name, &og));
  CHECK_OK(tabi_op_find(ref, name, &orf));
  tabi_status sr = tabi_call(ref, orf, ra, 1 + nextra, &ro, 1);
  char rmsg[512];
  snprintf(rmsg, sizeof rmsg, "%s", tabi_last_error());
  tabi_status sg = tabi_call(gpu, og, ga, 1 + nextra, &go, 1);
  CHECK_MSG(sr != TABI_OK && sg == sr && strcmp(tabi_last_error(), rmsg) == 0,
            "%s: status %d \"%s\", reference %d \"%s\"", name, (int)sg, tabi_last_error(), (int)sr, rmsg);
  tabi_value_release(&go);
  tabi_value_release(&ro);
  tabi_tensor_release(gt);
  tabi_tensor_release(rt);
}

/* A tensor of dt on (rt, dev) from float64 host values. */
static tabi_tensor *upload(tabi_runtime *rt, DLDevice dev, tabi_dtype dt, int32_t nd, const int64_t *shape,
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

/* Pooling backward on both runtimes: self random, grad_output random of the
 * forward's output shape, then bwd(grad_output, self, params[0..nbp), [indices]):
 * max (with_idx) takes the forward's indices, or (random_idx) the same random
 * in-plane indices on both. grad_input must match the reference exactly (the
 * kernels sum in the reference's order, in double). */
static void pool_backward(const char *fwd, const char *bwd, tabi_dtype dt, int32_t nd, const int64_t *shape,
                          const tabi_value *params, int np, int nbp, int with_idx, int random_idx) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  double *hx = malloc(sizeof(double) * (size_t)n), *hg = NULL, *res[2] = {NULL, NULL};
  int64_t *hi = NULL, m = 0, no = 0;
  for (int64_t i = 0; i < n; i++) hx[i] = urand() * 4 - 2;
  for (int k = 0; k < 2; k++) {
    tabi_runtime *rt = k ? ref : gpu;
    DLDevice dev = k ? CPU : CUDA0;
    tabi_tensor *x = upload(rt, dev, dt, nd, shape, hx);
    tabi_value fa[8] = {tabi_tensor_value(x)}, fo[2] = {tabi_none(), tabi_none()}, go_ = tabi_none();
    for (int i = 0; i < np; i++) fa[1 + i] = params[i];
    tabi_op op;
    CHECK_OK(tabi_op_find(rt, fwd, &op));
    CHECK_OK(tabi_call(rt, op, fa, 1 + np, fo, with_idx ? 2 : 1));
    if (!fo[0].u.t) {
      tabi_tensor_release(x);
      break;
    }
    const tabi_tensor *ot = fo[0].u.t;
    if (!hg) { /* the same gradient and random indices on both */
      no = 1;
      for (int32_t i = 0; i < ot->dl.ndim; i++) no *= ot->dl.shape[i];
      hg = malloc(sizeof(double) * (size_t)no + 8);
      hi = malloc(sizeof(int64_t) * (size_t)no + 8);
      int64_t plane = shape[nd - 1] * shape[nd - 2];
      for (int64_t i = 0; i < no; i++) {
        hg[i] = urand() * 4 - 2;
        hi[i] = (int64_t)(urand() * (double)plane);
      }
    }
    tabi_tensor *g = upload(rt, dev, dt, ot->dl.ndim, ot->dl.shape, hg), *ri = NULL;
    if (random_idx)
      CHECK_OK(tabi_tensor_from_host(rt, dev, TABI_DTYPE_INT64, ot->dl.ndim, ot->dl.shape, hi, (uint64_t)no * 8, &ri));
    tabi_value ba[10] = {tabi_tensor_value(g), tabi_tensor_value(x)};
    for (int i = 0; i < nbp; i++) ba[2 + i] = params[i];
    if (with_idx) ba[2 + nbp] = random_idx ? tabi_tensor_value(ri) : fo[1];
    CHECK_OK(tabi_op_find(rt, bwd, &op));
    tabi_status st = tabi_call(rt, op, ba, 2 + nbp + (with_idx ? 1 : 0), &go_, 1);
    CHECK_MSG(st == TABI_OK, "%s%s: %s", bwd, k ? " (reference)" : "", tabi_last_error());
    if (st == TABI_OK) {
      tabi_op cv;
      tabi_op_find(rt, "prims::convert_element_type", &cv);
      tabi_value a[2] = {go_, tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o = tabi_none();
      CHECK_OK(tabi_call(rt, cv, a, 2, &o, 1));
      m = n;
      res[k] = calloc((size_t)n + 1, 8);
      if (o.u.t) CHECK_OK(tabi_tensor_to_host(rt, o.u.t, res[k], (uint64_t)n * 8));
      tabi_value_release(&o);
    }
    tabi_value_release(&go_);
    tabi_value_release(&fo[0]);
    tabi_value_release(&fo[1]);
    tabi_tensor_release(g);
    if (ri) tabi_tensor_release(ri);
    tabi_tensor_release(x);
  }
  if (res[0] && res[1]) {
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < m; i++) {
      int ok = res[0][i] == res[1][i] || (isnan(res[0][i]) && isnan(res[1][i]));
      if (!ok && first < 0) first = i;
      bad += !ok;
    }
    CHECK_MSG(bad == 0, "%s %s%s: %lld of %lld elements differ; first at %lld: %.17g vs %.17g", bwd,
              tabi_dtype_name(dt), random_idx ? " (random indices)" : "", (long long)bad, (long long)m,
              (long long)first, first >= 0 ? res[0][first] : 0.0, first >= 0 ? res[1][first] : 0.0);
  }
  free(hx);
  free(hg);
  free(hi);
  free(res[0]);
  free(res[1]);
}

/* A tensor of dtype dt holding the float64 host values h (converted as
 * convert_element_type does), in both runtimes: *g on the device, *r on the CPU. */
static void both_tensor(tabi_dtype dt, int32_t nd, const int64_t *shape, const double *h, tabi_tensor **g,
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

/* `name` on prebuilt arguments ga (device) and ra (CPU); output 0 compared as
 * float64 within rtol/atol. */
static void compare_built(const char *name, tabi_value *ga, tabi_value *ra, int na, double rtol, double atol) {
  tabi_op og, orf;
  CHECK_OK(tabi_op_find(gpu, name, &og));
  CHECK_OK(tabi_op_find(ref, name, &orf));
  tabi_value go = tabi_none(), ro = tabi_none();
  tabi_status sg = tabi_call(gpu, og, ga, na, &go, 1);
  CHECK_MSG(sg == TABI_OK, "%s: %s", name, tabi_last_error());
  tabi_status sr = tabi_call(ref, orf, ra, na, &ro, 1);
  CHECK_MSG(sr == TABI_OK, "%s (reference): %s", name, tabi_last_error());
  if (sg == TABI_OK && sr == TABI_OK) {
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
    CHECK_MSG(bad == 0, "%s: %lld of %lld elements differ; first at %lld: %.17g vs %.17g", name, (long long)bad,
              (long long)m, (long long)first, first >= 0 ? x[first] : 0.0, first >= 0 ? y[first] : 0.0);
    free(x);
    free(y);
    tabi_tensor_release(xg);
    tabi_tensor_release(xr);
  }
  tabi_value_release(&go);
  tabi_value_release(&ro);
}

/* grid_sampler_2d, cdist/pdist, embedding_dense_backward, _embedding_bag (tc_misc.cu). */
static void misc_cases(void) {
  const tabi_dtype fdt[2] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64};
  const double frt[2] = {1.3e-6, 1e-7};
  for (int d = 0; d < 2; d++) {
    /* grid_sampler_2d: every interpolation x padding x align_corners */
    int64_t ish[4] = {2, 3, 7, 9}, gsh[4] = {2, 5, 6, 2};
    double ih[2 * 3 * 7 * 9], gh[2 * 5 * 6 * 2];
    for (size_t i = 0; i < sizeof ih / 8; i++) ih[i] = urand() * 4 - 2;
    for (size_t i = 0; i < sizeof gh / 8; i++) gh[i] = i % 7 == 3 ? (double)((int)(urand() * 21) - 10) / 8 : urand() * 2.6 - 1.3;
    tabi_tensor *xg, *xr, *gg, *gr;
    both_tensor(fdt[d], 4, ish, ih, &xg, &xr);
    both_tensor(fdt[d], 4, gsh, gh, &gg, &gr);
    for (int interp = 0; interp < 3; interp++)
      for (int pad = 0; pad < 3; pad++)
        for (int al = 0; al < 2; al++) {
          tabi_value ga[5] = {tabi_tensor_value(xg), tabi_tensor_value(gg), tabi_int(interp), tabi_int(pad), tabi_bool(al)};
          tabi_value ra[5] = {tabi_tensor_value(xr), tabi_tensor_value(gr), tabi_int(interp), tabi_int(pad), tabi_bool(al)};
          compare_built("aten::grid_sampler_2d", ga, ra, 5, frt[d], 1e-5);
        }
    tabi_tensor_release(xg);
    tabi_tensor_release(xr);
    tabi_tensor_release(gg);
    tabi_tensor_release(gr);
    /* cdist (batch broadcast) and pdist, every kind of p */
    int64_t s1[3] = {2, 5, 4}, s2[3] = {1, 6, 4}, sp[2] = {9, 5};
    double h1[40], h2[24], hp[45];
    for (int i = 0; i < 40; i++) h1[i] = urand() * 4 - 2;
    for (int i = 0; i < 24; i++) h2[i] = i < 4 ? h1[i] : urand() * 4 - 2; /* one equal row pair */
    for (int i = 0; i < 45; i++) hp[i] = urand() * 4 - 2;
    tabi_tensor *ag, *ar, *bg, *br, *pg, *pr;
    both_tensor(fdt[d], 3, s1, h1, &ag, &ar);
    both_tensor(fdt[d], 3, s2, h2, &bg, &br);
    both_tensor(fdt[d], 2, sp, hp, &pg, &pr);
    const double ps[6] = {0.0, 1.0, 2.0, INFINITY, 0.5, 3.0};
    for (int p = 0; p < 6; p++) {
      tabi_value ga[4] = {tabi_tensor_value(ag), tabi_tensor_value(bg), tabi_float(ps[p]), tabi_none()};
      tabi_value ra[4] = {tabi_tensor_value(ar), tabi_tensor_value(br), tabi_float(ps[p]), tabi_none()};
      compare_built("aten::_cdist_forward", ga, ra, 4, frt[d], 1e-5);
      tabi_value pa[2] = {tabi_tensor_value(pg), tabi_float(ps[p])};
      tabi_value qa[2] = {tabi_tensor_value(pr), tabi_float(ps[p])};
      compare_built("aten::_pdist_forward", pa, qa, 2, frt[d], 1e-5);
    }
    tabi_tensor_release(ag);
    tabi_tensor_release(ar);
    tabi_tensor_release(bg);
    tabi_tensor_release(br);
    tabi_tensor_release(pg);
    tabi_tensor_release(pr);
  }
  /* embedding_dense_backward: float and integer grads, padding_idx, scale */
  const tabi_dtype edt[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16, TABI_DTYPE_INT32};
  const double ert[4] = {1.3e-6, 1e-7, 1e-3, 0};
  int64_t ishape[2] = {6, 7}, gshape[3] = {6, 7, 5};
  double iv[42], gv[210];
  for (int i = 0; i < 42; i++) iv[i] = (double)(int)(urand() * 10);
  for (int i = 0; i < 210; i++) gv[i] = (double)(int)(urand() * 9) - 4 + 0.25 * (i % 4);
  tabi_tensor *ig, *ir;
  both_tensor(TABI_DTYPE_INT64, 2, ishape, iv, &ig, &ir);
  for (int d = 0; d < 4; d++) {
    tabi_tensor *gg, *gr;
    both_tensor(edt[d], 3, gshape, gv, &gg, &gr);
    for (int k = 0; k < 4; k++) {
      int64_t pad = k < 2 ? -1 : 3;
      int scale = k & 1;
      tabi_value ga[5] = {tabi_tensor_value(gg), tabi_tensor_value(ig), tabi_int(10), tabi_int(pad), tabi_bool(scale)};
      tabi_value ra[5] = {tabi_tensor_value(gr), tabi_tensor_value(ir), tabi_int(10), tabi_int(pad), tabi_bool(scale)};
      compare_built("aten::embedding_dense_backward", ga, ra, 5, ert[d], edt[d] == TABI_DTYPE_INT32 ? 0 : 1e-5);
    }
    /* an index out of range: the reference's status and message */
    tabi_value ga[5] = {tabi_tensor_value(gg), tabi_tensor_value(ig), tabi_int(8), tabi_int(-1), tabi_bool(0)};
    tabi_value ra[5] = {tabi_tensor_value(gr), tabi_tensor_value(ir), tabi_int(8), tabi_int(-1), tabi_bool(0)};
    tabi_op og, orf;
    tabi_value go = tabi_none(), ro = tabi_none();
    CHECK_OK(tabi_op_find(gpu, "aten::embedding_dense_backward", &og));
    CHECK_OK(tabi_op_find(ref, "aten::embedding_dense_backward", &orf));
    tabi_status sr = tabi_call(ref, orf, ra, 5, &ro, 1);
    char rmsg[512];
    snprintf(rmsg, sizeof rmsg, "%s", tabi_last_error());
    tabi_status sg = tabi_call(gpu, og, ga, 5, &go, 1);
    CHECK_MSG(sr != TABI_OK && sg == sr && strcmp(tabi_last_error(), rmsg) == 0, "embedding_dense_backward: "
              "status %d \"%s\", reference %d \"%s\"", (int)sg, tabi_last_error(), (int)sr, rmsg);
    tabi_value_release(&go);
    tabi_value_release(&ro);
    tabi_tensor_release(gg);
    tabi_tensor_release(gr);
  }
  tabi_tensor_release(ig);
  tabi_tensor_release(ir);
  /* _embedding_bag: sum (with and without per_sample_weights), mean, max;
   * every output compared (the index outputs exactly) */
  {
    int64_t wsh[2] = {9, 6}, nsh[1] = {11}, osh[1] = {4};
    double wv[54], idx[11], offs[4] = {0, 3, 3, 7}, pw[11];
    for (int i = 0; i < 54; i++) wv[i] = urand() * 4 - 2;
    for (int i = 0; i < 11; i++) idx[i] = (double)(int)(urand() * 9);
    for (int i = 0; i < 11; i++) pw[i] = urand() * 2 - 1;
    for (int d = 0; d < 2; d++) {
      tabi_tensor *t[8];
      both_tensor(d ? TABI_DTYPE_FLOAT64 : TABI_DTYPE_FLOAT32, 2, wsh, wv, &t[0], &t[1]);
      both_tensor(TABI_DTYPE_INT64, 1, nsh, idx, &t[2], &t[3]);
      both_tensor(TABI_DTYPE_INT64, 1, osh, offs, &t[4], &t[5]);
      both_tensor(d ? TABI_DTYPE_FLOAT64 : TABI_DTYPE_FLOAT32, 1, nsh, pw, &t[6], &t[7]);
      for (int k = 0; k < 5; k++) {
        int mode = k < 2 ? 0 : k - 2, use_psw = k == 1, ilo = k == 4;
        int64_t pad = k == 3 ? (int64_t)idx[0] : -1;
        tabi_value a[2][9];
        for (int r = 0; r < 2; r++) {
          tabi_value v[9] = {tabi_tensor_value(t[r]), tabi_tensor_value(t[2 + r]), tabi_tensor_value(t[4 + r]),
                             tabi_bool(0), tabi_int(mode), tabi_bool(0),
                             use_psw ? tabi_tensor_value(t[6 + r]) : tabi_none(), tabi_bool(ilo), tabi_int(pad)};
          memcpy(a[r], v, sizeof v);
        }
        tabi_op og, orf;
        CHECK_OK(tabi_op_find(gpu, "aten::_embedding_bag", &og));
        CHECK_OK(tabi_op_find(ref, "aten::_embedding_bag", &orf));
        tabi_value go[4] = {tabi_none(), tabi_none(), tabi_none(), tabi_none()};
        tabi_value ro[4] = {tabi_none(), tabi_none(), tabi_none(), tabi_none()};
        tabi_status sg = tabi_call(gpu, og, a[0], 9, go, 4);
        CHECK_MSG(sg == TABI_OK, "_embedding_bag: %s", tabi_last_error());
        tabi_status sr = tabi_call(ref, orf, a[1], 9, ro, 4);
        CHECK_MSG(sr == TABI_OK, "_embedding_bag (reference): %s", tabi_last_error());
        for (int o = 0; sg == TABI_OK && sr == TABI_OK && o < 4; o++) {
          int64_t m = 1;
          for (int32_t i = 0; i < ro[o].u.t->dl.ndim; i++) m *= ro[o].u.t->dl.shape[i];
          int64_t mg = 1;
          for (int32_t i = 0; i < go[o].u.t->dl.ndim; i++) mg *= go[o].u.t->dl.shape[i];
          CHECK_MSG(mg == m, "_embedding_bag mode %d: output %d has %lld elements, reference %lld", mode, o,
                    (long long)mg, (long long)m);
          if (mg != m || m == 0) continue;
          int esz = o == 0 ? (d ? 8 : 4) : 8;
          char *x = calloc((size_t)m + 1, (size_t)esz), *y = calloc((size_t)m + 1, (size_t)esz);
          CHECK_OK(tabi_tensor_to_host(gpu, go[o].u.t, x, (uint64_t)(m * esz)));
          CHECK_OK(tabi_tensor_to_host(ref, ro[o].u.t, y, (uint64_t)(m * esz)));
          int64_t bad = 0;
          for (int64_t i = 0; i < m; i++) {
            if (o > 0) bad += ((int64_t *)x)[i] != ((int64_t *)y)[i];
            else if (d) bad += fabs(((double *)x)[i] - ((double *)y)[i]) > 1e-7 + 1e-7 * fabs(((double *)y)[i]);
            else bad += fabsf(((float *)x)[i] - ((float *)y)[i]) > 1e-5f + 1.3e-6f * fabsf(((float *)y)[i]);
          }
          CHECK_MSG(bad == 0, "_embedding_bag mode %d psw %d: output %d: %lld of %lld differ", mode, use_psw, o,
                    (long long)bad, (long long)m);
          free(x);
          free(y);
        }
        for (int o = 0; o < 4; o++) {
          tabi_value_release(&go[o]);
          tabi_value_release(&ro[o]);
        }
      }
      for (int i = 0; i < 8; i++) tabi_tensor_release(t[i]);
    }
  }
  /* argument errors are the reference's */
  int64_t s3[3] = {2, 3, 4};
  same_error("aten::_pdist_forward", 3, s3, (tabi_value[]){tabi_float(2.0)}, 1);
  same_error("aten::_pdist_forward", 2, s3, (tabi_value[]){tabi_float(-1.0)}, 1);
}

/* scatter_reduce.two (tc_idx.cu): every reduction with and without
 * include_self, heavy duplicates, a transposed src; exact (the kernel runs the
 * reference's order); then a bad index: the reference's status and message.
 * Then masked_scatter, nonzero, index.Tensor, index_put and randperm, exact. */
static void idx_cases(void) {
  const tabi_dtype dts[5] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16, TABI_DTYPE_INT32,
                             TABI_DTYPE_INT64};
  static const char *red[5] = {"sum", "prod", "mean", "amax", "amin"};
  int64_t ss[2] = {6, 40}, is[2] = {9, 40}, rs[2] = {40, 9}, iv[360], perm[2] = {1, 0};
  double sv[240], rv[360];
  for (int i = 0; i < 240; i++) sv[i] = i % 17 == 3 ? NAN : (double)(int)(urand() * 8 - 4) / 2;
  for (int i = 0; i < 360; i++) {
    rv[i] = i % 23 == 5 ? -INFINITY : (double)(int)(urand() * 8 - 4) / 2;
    iv[i] = (int64_t)(urand() * 6) % 6;
  }
  tabi_tensor *ig = NULL, *ir = NULL;
  CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_INT64, 2, is, iv, sizeof iv, &ig));
  CHECK_OK(tabi_tensor_from_host(ref, CPU, TABI_DTYPE_INT64, 2, is, iv, sizeof iv, &ir));
  for (int d = 0; d < 5; d++) {
    tabi_tensor *sg, *sr, *rg0, *rr0;
    both_tensor(dts[d], 2, ss, sv, &sg, &sr);
    both_tensor(dts[d], 2, rs, rv, &rg0, &rr0);
    tabi_op pg, pr;
    tabi_op_find(gpu, "aten::permute", &pg);
    tabi_op_find(ref, "aten::permute", &pr);
    tabi_value p1[2] = {tabi_tensor_value(rg0), tabi_int_list(perm, 2)}, q1 = tabi_none();
    tabi_value p2[2] = {tabi_tensor_value(rr0), tabi_int_list(perm, 2)}, q2 = tabi_none();
    CHECK_OK(tabi_call(gpu, pg, p1, 2, &q1, 1));
    CHECK_OK(tabi_call(ref, pr, p2, 2, &q2, 1));
    for (int k = 0; k < 5; k++)
      for (int inc = 0; inc < 2; inc++) {
        tabi_value ga[6] = {tabi_tensor_value(sg), tabi_int(0), tabi_tensor_value(ig), q1,
                            tabi_string(red[k], (int64_t)strlen(red[k])), tabi_bool(inc)};
        tabi_value ra[6] = {tabi_tensor_value(sr), tabi_int(0), tabi_tensor_value(ir), q2,
                            tabi_string(red[k], (int64_t)strlen(red[k])), tabi_bool(inc)};
        compare_built("aten::scatter_reduce.two", ga, ra, 6, 0, 0);
      }
    /* index 6 out of range for a [3, 40] self: the reference's error */
    int64_t s3[2] = {3, 40};
    tabi_tensor *tg, *tr;
    both_tensor(dts[d], 2, s3, sv, &tg, &tr);
    tabi_value ga[6] = {tabi_tensor_value(tg), tabi_int(0), tabi_tensor_value(ig), q1, tabi_string("sum", 3),
                        tabi_bool(1)};
    tabi_value ra[6] = {tabi_tensor_value(tr), tabi_int(0), tabi_tensor_value(ir), q2, tabi_string("sum", 3),
                        tabi_bool(1)};
    tabi_op og, orf;
    tabi_value go = tabi_none(), ro = tabi_none();
    CHECK_OK(tabi_op_find(gpu, "aten::scatter_reduce.two", &og));
    CHECK_OK(tabi_op_find(ref, "aten::scatter_reduce.two", &orf));
    tabi_status str = tabi_call(ref, orf, ra, 6, &ro, 1);
    char rmsg[512];
    snprintf(rmsg, sizeof rmsg, "%s", tabi_last_error());
    tabi_status stg = tabi_call(gpu, og, ga, 6, &go, 1);
    CHECK_MSG(str == TABI_ERR_INDEX && stg == str && strcmp(tabi_last_error(), rmsg) == 0,
              "scatter_reduce.two: status %d \"%s\", reference %d \"%s\"", (int)stg, tabi_last_error(), (int)str,
              rmsg);
    tabi_value_release(&go);
    tabi_value_release(&ro);
    tabi_value_release(&q1);
    tabi_value_release(&q2);
    tabi_tensor_release(tg);
    tabi_tensor_release(tr);
    tabi_tensor_release(sg);
    tabi_tensor_release(sr);
    tabi_tensor_release(rg0);
    tabi_tensor_release(rr0);
  }
  tabi_tensor_release(ig);
  tabi_tensor_release(ir);
  /* nonzero and masked_scatter (a broadcast [40] mask over [6, 40]), exact */
  int64_t ms[1] = {40}, srcs[1] = {300};
  double mv[40], srcv[300];
  for (int i = 0; i < 40; i++) mv[i] = urand() < 0.4;
  for (int i = 0; i < 300; i++) srcv[i] = i * 0.25 - 7;
  for (int d = 0; d < 5; d++) {
    tabi_tensor *sg, *sr, *mg, *mr, *rg, *rr;
    both_tensor(dts[d], 2, ss, sv, &sg, &sr);
    both_tensor(TABI_DTYPE_BOOL, 1, ms, mv, &mg, &mr);
    both_tensor(dts[d], 1, srcs, srcv, &rg, &rr);
    tabi_value ga[3] = {tabi_tensor_value(sg), tabi_tensor_value(mg), tabi_tensor_value(rg)};
    tabi_value ra[3] = {tabi_tensor_value(sr), tabi_tensor_value(mr), tabi_tensor_value(rr)};
    compare_built("aten::masked_scatter", ga, ra, 3, 0, 0);
    compare_built("aten::nonzero", ga, ra, 1, 0, 0);
    compare_built("aten::nonzero", &ga[1], &ra[1], 1, 0, 0);
    tabi_tensor_release(sg);
    tabi_tensor_release(sr);
    tabi_tensor_release(mg);
    tabi_tensor_release(mr);
    tabi_tensor_release(rg);
    tabi_tensor_release(rr);
  }
  /* index.Tensor and index_put: [None, int64 [5, 1] with negatives, int32
   * [7]] over [6, 40, 9] (broadcast [5, 7] after the sliced dim), and a bool
   * mask over the first dim; index_put with duplicates, accumulate both ways */
  {
    int64_t xs[3] = {6, 40, 9}, i1s[2] = {5, 1}, i2s[1] = {7}, mks[1] = {6}, vs[1] = {7};
    double xv[2160], mkv[6] = {1, 0, 1, 1, 0, 1}, vv[7] = {1.5, -2, 3, 0.25, -0.5, 8, 1};
    for (int i = 0; i < 2160; i++) xv[i] = (double)(int)(urand() * 64 - 32) / 4;
    int64_t i1[5] = {0, -1, 39, 5, 0};
    int32_t i2[7] = {1, -9, 8, 0, 1, 1, -1};
    tabi_tensor *xg, *xr, *mg, *mr, *vg, *vr, *a1g = NULL, *a1r = NULL, *a2g = NULL, *a2r = NULL;
    both_tensor(TABI_DTYPE_FLOAT32, 3, xs, xv, &xg, &xr);
    both_tensor(TABI_DTYPE_BOOL, 1, mks, mkv, &mg, &mr);
    both_tensor(TABI_DTYPE_FLOAT32, 1, vs, vv, &vg, &vr);
    CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_INT64, 2, i1s, i1, sizeof i1, &a1g));
    CHECK_OK(tabi_tensor_from_host(ref, CPU, TABI_DTYPE_INT64, 2, i1s, i1, sizeof i1, &a1r));
    CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_INT32, 1, i2s, i2, sizeof i2, &a2g));
    CHECK_OK(tabi_tensor_from_host(ref, CPU, TABI_DTYPE_INT32, 1, i2s, i2, sizeof i2, &a2r));
    tabi_tensor *lg[3] = {NULL, a1g, a2g}, *lr[3] = {NULL, a1r, a2r};
    tabi_tensor *mlg[1] = {mg}, *mlr[1] = {mr};
    for (int k = 0; k < 2; k++) {
      tabi_value ga[4] = {tabi_tensor_value(xg), k ? tabi_tensor_list(mlg, 1) : tabi_tensor_list(lg, 3),
                          tabi_tensor_value(vg), tabi_bool(0)};
      tabi_value ra[4] = {tabi_tensor_value(xr), k ? tabi_tensor_list(mlr, 1) : tabi_tensor_list(lr, 3),
                          tabi_tensor_value(vr), tabi_bool(0)};
      compare_built("aten::index.Tensor", ga, ra, 2, 0, 0);
      if (k == 0) {
        compare_built("aten::index_put", ga, ra, 4, 0, 0);
        ga[3] = ra[3] = tabi_bool(1);
        compare_built("aten::index_put", ga, ra, 4, 0, 0);
      }
    }
    tabi_tensor *ts[10] = {xg, xr, mg, mr, vg, vr, a1g, a1r, a2g, a2r};
    for (int k = 0; k < 10; k++) tabi_tensor_release(ts[k]);
  }
  /* randperm: the reference's numbers for the same seed (CPU generator
   * seeded alike), twice in a row (counter offsets 0 and n) */
  const tabi_dtype rdts[3] = {TABI_DTYPE_INT64, TABI_DTYPE_INT32, TABI_DTYPE_FLOAT32};
  for (int d = 0; d < 3; d++) {
    CHECK_OK(tabi_runtime_manual_seed(gpu, CUDA0, 1234 + d));
    CHECK_OK(tabi_runtime_manual_seed(ref, CPU, 1234 + d));
    for (int rep = 0; rep < 2; rep++) {
      tabi_value ga[5] = {tabi_int(5000), tabi_dtype_value(rdts[d]), tabi_none(), tabi_device_value(CUDA0), tabi_none()};
      tabi_value ra[5] = {tabi_int(5000), tabi_dtype_value(rdts[d]), tabi_none(), tabi_device_value(CPU), tabi_none()};
      compare_built("aten::randperm", ga, ra, 5, 0, 0);
    }
  }
}

/* convolution_backward (tc_conv.cu's direct gathers): every output of a case
 * against the reference's, as float64 within rtol (integers: exactly). */
static void conv_bwd_case(tabi_dtype dt, int32_t ns, int transposed, int64_t groups, const int64_t *ishape,
                          const int64_t *k, const int64_t *s, const int64_t *p, const int64_t *d,
                          const int64_t *op, const int64_t *mask, double rtol) {
  int32_t nd = ns + 2;
  int64_t cin = ishape[1], cout = groups * 2, wshape[5], oshape[5] = {ishape[0], cout};
  wshape[0] = transposed ? cin : cout;
  wshape[1] = transposed ? cout / groups : cin / groups;
  for (int32_t i = 0; i < ns; i++) {
    int64_t span = d[i] * (k[i] - 1) + 1;
    wshape[2 + i] = k[i];
    oshape[2 + i] = transposed ? (ishape[2 + i] - 1) * s[i] - 2 * p[i] + span + op[i]
                               : (ishape[2 + i] + 2 * p[i] - span) / s[i] + 1;
  }
  const int64_t *shp[3] = {oshape, ishape, wshape};
  tabi_tensor *g[3], *r[3];
  for (int t = 0; t < 3; t++) {
    int64_t n = 1;
    for (int32_t i = 0; i < nd; i++) n *= shp[t][i];
    double *h = malloc(sizeof(double) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) h[i] = tabi_dtype_is_floating(dt) ? urand() * 4 - 2 : (double)(int)(urand() * 9) - 4;
    both_tensor(dt, nd, shp[t], h, &g[t], &r[t]);
    free(h);
  }
  int64_t bsz[1] = {cout};
  tabi_value ga[11], ra[11];
  for (int side = 0; side < 2; side++) {
    tabi_value *a = side ? ra : ga;
    tabi_tensor **t = side ? r : g;
    a[0] = tabi_tensor_value(t[0]);
    a[1] = tabi_tensor_value(t[1]);
    a[2] = tabi_tensor_value(t[2]);
    a[3] = tabi_int_list(bsz, 1);
    a[4] = tabi_int_list(s, ns);
    a[5] = tabi_int_list(p, ns);
    a[6] = tabi_int_list(d, ns);
    a[7] = tabi_bool(transposed);
    a[8] = tabi_int_list(op, ns);
    a[9] = tabi_int(groups);
    a[10] = tabi_bool_list(mask, 3);
  }
  tabi_op og, orf;
  CHECK_OK(tabi_op_find(gpu, "aten::convolution_backward", &og));
  CHECK_OK(tabi_op_find(ref, "aten::convolution_backward", &orf));
  tabi_value go[3] = {tabi_none(), tabi_none(), tabi_none()}, ro[3] = {tabi_none(), tabi_none(), tabi_none()};
  tabi_status sg = tabi_call(gpu, og, ga, 11, go, 3);
  CHECK_MSG(sg == TABI_OK, "convolution_backward: %s", tabi_last_error());
  tabi_status sr = tabi_call(ref, orf, ra, 11, ro, 3);
  CHECK_MSG(sr == TABI_OK, "convolution_backward (reference): %s", tabi_last_error());
  for (int o = 0; o < 3 && sg == TABI_OK && sr == TABI_OK; o++) {
    CHECK((go[o].tag == TABI_TAG_TENSOR) == (mask[o] != 0) && (ro[o].tag == TABI_TAG_TENSOR) == (mask[o] != 0));
    if (go[o].tag != TABI_TAG_TENSOR || ro[o].tag != TABI_TAG_TENSOR) continue;
    int64_t m = 1;
    for (int32_t i = 0; i < ro[o].u.t->dl.ndim; i++) m *= ro[o].u.t->dl.shape[i];
    CHECK(go[o].u.t->dl.ndim == ro[o].u.t->dl.ndim);
    tabi_op cg, cr;
    tabi_op_find(gpu, "prims::convert_element_type", &cg);
    tabi_op_find(ref, "prims::convert_element_type", &cr);
    tabi_value a1[2] = {go[o], tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o1 = tabi_none();
    tabi_value a2[2] = {ro[o], tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o2 = tabi_none();
    CHECK_OK(tabi_call(gpu, cg, a1, 2, &o1, 1));
    CHECK_OK(tabi_call(ref, cr, a2, 2, &o2, 1));
    double *x = calloc((size_t)m + 1, 8), *y = calloc((size_t)m + 1, 8);
    CHECK_OK(tabi_tensor_to_host(gpu, o1.u.t, x, (uint64_t)m * 8));
    CHECK_OK(tabi_tensor_to_host(ref, o2.u.t, y, (uint64_t)m * 8));
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < m; i++) {
      int ok = x[i] == y[i] || (isnan(x[i]) && isnan(y[i])) || fabs(x[i] - y[i]) <= 1e-5 * (rtol > 0) + rtol * fabs(y[i]);
      if (!ok && first < 0) first = i;
      bad += !ok;
    }
    CHECK_MSG(bad == 0, "convolution_backward %s output %d (ns %d, transposed %d, groups %lld): %lld of %lld "
              "elements differ; first at %lld: %.17g vs %.17g", tabi_dtype_name(dt), o, (int)ns, transposed,
              (long long)groups, (long long)bad, (long long)m, (long long)first, first >= 0 ? x[first] : 0.0,
              first >= 0 ? y[first] : 0.0);
    free(x);
    free(y);
    tabi_value_release(&o1);
    tabi_value_release(&o2);
  }
  for (int t = 0; t < 3; t++) {
    tabi_value_release(&go[t]);
    tabi_value_release(&ro[t]);
    tabi_tensor_release(g[t]);
    tabi_tensor_release(r[t]);
  }
}

static void conv_bwd_cases(void) {
  const tabi_dtype dts[6] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16,
                             TABI_DTYPE_INT32, TABI_DTYPE_INT64};
  const double rts[6] = {1.3e-6, 1e-7, 1e-3, 1.6e-2, 0, 0};
  const int64_t k[3] = {3, 2, 3}, s[3] = {2, 1, 2}, p[3] = {1, 0, 1}, d[3] = {1, 2, 1}, op[3] = {1, 0, 0};
  const int64_t all[3] = {1, 1, 1}, some[3] = {0, 1, 1}, one[3] = {1, 0, 0};
  const int64_t i1[3] = {2, 4, 29}, i2[4] = {2, 4, 13, 17}, i3[5] = {1, 4, 7, 6, 9};
  const int64_t *ish[3] = {i1, i2, i3};
  for (int dti = 0; dti < 6; dti++)
    for (int32_t ns = 1; ns <= 3; ns++)
      for (int tr = 0; tr < 2; tr++)
        conv_bwd_case(dts[dti], ns, tr, (ns + tr) % 2 ? 2 : 1, ish[ns - 1], k, s, p, d, op,
                      (ns + tr) % 3 == 0 ? all : (ns + tr) % 3 == 1 ? some : one, rts[dti]);
  /* past one grid of blocks (65536 x 128 threads) for grad_input; float64, so
   * CUDA runs the direct kernel too (its cuDNN path takes float32/half only) */
  const int64_t big[4] = {8, 2, 640, 960}, k1[2] = {1, 1}, s1[2] = {1, 1}, p0[2] = {0, 0}, d1[2] = {1, 1};
  conv_bwd_case(TABI_DTYPE_FLOAT64, 2, 0, 1, big, k1, s1, p0, d1, p0, one, 1e-7);
  /* CUDA's cuDNN path (2-D, not transposed): float32 grouped, every output;
   * the half types past the size below which the direct kernel runs */
  conv_bwd_case(TABI_DTYPE_FLOAT32, 2, 0, 2, i2, k, s, p, d, op, all, 1.3e-6);
  const int64_t hin[4] = {8, 32, 64, 64}, k3[2] = {3, 3}, p1[2] = {1, 1};
  conv_bwd_case(TABI_DTYPE_FLOAT16, 2, 0, 1, hin, k3, s1, p1, d1, p0, all, 1e-3);
  conv_bwd_case(TABI_DTYPE_BFLOAT16, 2, 0, 1, hin, k3, s1, p1, d1, p0, all, 1.6e-2);
}

/* g (device) against r (CPU), both converted to float64: same dtype and shape,
 * within rtol/atol (NaN matching NaN). */
static void same_tensor(const char *what, tabi_tensor *g, tabi_tensor *r, double rtol, double atol) {
  int same = g && r && g->dl.ndim == r->dl.ndim && tabi_tensor_dtype(g) == tabi_tensor_dtype(r);
  int64_t n = 1;
  for (int32_t j = 0; same && j < r->dl.ndim; j++) same = g->dl.shape[j] == r->dl.shape[j];
  CHECK_MSG(same, "%s: dtype or shape differs from the reference's", what);
  if (!same) return;
  for (int32_t j = 0; j < r->dl.ndim; j++) n *= r->dl.shape[j];
  tabi_op cg, cr;
  tabi_op_find(gpu, "prims::convert_element_type", &cg);
  tabi_op_find(ref, "prims::convert_element_type", &cr);
  tabi_value a1[2] = {tabi_tensor_value(g), tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o1 = tabi_none();
  tabi_value a2[2] = {tabi_tensor_value(r), tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o2 = tabi_none();
  CHECK_OK(tabi_call(gpu, cg, a1, 2, &o1, 1));
  CHECK_OK(tabi_call(ref, cr, a2, 2, &o2, 1));
  double *x = calloc((size_t)n + 1, 8), *y = calloc((size_t)n + 1, 8);
  if (o1.tag == TABI_TAG_TENSOR && o2.tag == TABI_TAG_TENSOR && n > 0) {
    CHECK_OK(tabi_tensor_to_host(gpu, o1.u.t, x, (uint64_t)n * 8));
    CHECK_OK(tabi_tensor_to_host(ref, o2.u.t, y, (uint64_t)n * 8));
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
  tabi_value_release(&o1);
  tabi_value_release(&o2);
}

/* The three batch-norm forms (tc_bn.cu): the same inputs in both runtimes,
 * the three outputs and the running statistics (updated in place in training)
 * against the reference; a small case, one with N*S = 1 (NaN running var) and
 * one with many elements per channel (every thread of a block busy). The
 * statistics' tree sums in another order than the reference: tolerance. */
static void bn_cases(void) {
  const tabi_dtype dts[3] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16};
  const double rts[3] = {1.3e-6, 1e-7, 1e-3};
  const char *names[3] = {"aten::_native_batch_norm_legit", "aten::_native_batch_norm_legit.no_stats",
                          "aten::_native_batch_norm_legit_no_training"};
  int64_t shapes[3][4] = {{3, 5, 7, 9}, {1, 6, 1, 1}, {16, 4, 64, 64}};
  for (int d = 0; d < 3; d++)
    for (int sh = 0; sh < 3; sh++)
      for (int form = 0; form < 4; form++) { /* 0: legit training, 1: legit evaluation, 2: no_stats, 3: no_training */
        int64_t *xs = shapes[sh], C = xs[1], nx = xs[0] * xs[1] * xs[2] * xs[3];
        double *hx = malloc((size_t)nx * 8), hw[8], hb[8], hm[8], hv[8];
        for (int64_t i = 0; i < nx; i++) hx[i] = urand() * 4 - 2 + (double)(i % C);
        for (int64_t i = 0; i < C; i++) {
          hw[i] = urand() * 2 - 1;
          hb[i] = urand() * 2 - 1;
          hm[i] = urand() - 0.5;
          hv[i] = 0.5 + urand();
        }
        tabi_tensor *t[2][5]; /* [gpu, ref][x, w, b, running_mean, running_var] */
        both_tensor(dts[d], 4, xs, hx, &t[0][0], &t[1][0]);
        both_tensor(dts[d], 1, &C, hw, &t[0][1], &t[1][1]);
        both_tensor(dts[d], 1, &C, hb, &t[0][2], &t[1][2]);
        both_tensor(d == 2 ? TABI_DTYPE_FLOAT32 : dts[d], 1, &C, hm, &t[0][3], &t[1][3]); /* half: mixed */
        both_tensor(d == 2 ? TABI_DTYPE_FLOAT32 : dts[d], 1, &C, hv, &t[0][4], &t[1][4]);
        const char *name = names[form < 2 ? 0 : form - 1];
        tabi_value o[2][3];
        tabi_status st[2];
        for (int k = 0; k < 2; k++) {
          tabi_runtime *rt = k ? ref : gpu;
          tabi_value a[8] = {tabi_tensor_value(t[k][0]), tabi_tensor_value(t[k][1]), tabi_tensor_value(t[k][2])};
          int na;
          if (form == 2) {
            a[3] = tabi_bool(1), a[4] = tabi_float(0.1), a[5] = tabi_float(1e-5), na = 6;
          } else {
            a[3] = tabi_tensor_value(t[k][3]), a[4] = tabi_tensor_value(t[k][4]), na = form == 3 ? 7 : 8;
            if (form == 3) a[5] = tabi_float(0.1), a[6] = tabi_float(1e-5);
            else a[5] = tabi_bool(form == 0), a[6] = tabi_float(0.1), a[7] = tabi_float(1e-5);
          }
          tabi_op op;
          CHECK_OK(tabi_op_find(rt, name, &op));
          for (int i = 0; i < 3; i++) o[k][i] = tabi_none();
          st[k] = tabi_call(rt, op, a, na, o[k], 3);
          CHECK_MSG(st[k] == TABI_OK, "%s (%s): %s", name, k ? "reference" : "gpu", tabi_last_error());
        }
        char what[160];
        for (int i = 0; i < 5 && st[0] == TABI_OK && st[1] == TABI_OK; i++) {
          snprintf(what, sizeof what, "%s %s form %d shape %d: %s %d", name, tabi_dtype_name(dts[d]), form, sh,
                   i < 3 ? "output" : "running stat", i < 3 ? i : i - 3);
          if (i < 3) same_tensor(what, o[0][i].u.t, o[1][i].u.t, rts[d], 1e-5);
          else same_tensor(what, t[0][i], t[1][i], d == 2 ? 1.3e-6 : rts[d], 1e-5);
        }
        for (int k = 0; k < 2; k++) {
          for (int i = 0; i < 3; i++) tabi_value_release(&o[k][i]);
          for (int i = 0; i < 5; i++) tabi_tensor_release(t[k][i]);
        }
        free(hx);
      }
}

/* prims::svd (tc_svd.cu). The factors are not unique: S against the
 * reference's within the dtype's rtol times the largest singular value, and
 * U diag(S) Vh == A, U^H U == I, Vh Vh^H == I on the device's factors; shapes
 * and dtypes the reference's; non-finite input gives the reference's error. */
static double complex svd_elem(const char *p, tabi_dtype dt, int64_t i) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: return ((const float *)p)[i];
    case TABI_DTYPE_FLOAT64: return ((const double *)p)[i];
    case TABI_DTYPE_COMPLEX64: return CMPLX(((const float *)p)[2 * i], ((const float *)p)[2 * i + 1]);
    default: return CMPLX(((const double *)p)[2 * i], ((const double *)p)[2 * i + 1]);
  }
}
static int svd_esz(tabi_dtype dt) { return dt == TABI_DTYPE_FLOAT32 ? 4 : dt == TABI_DTYPE_COMPLEX128 ? 16 : 8; }
static int64_t svd_numel(const tabi_tensor *t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t->dl.ndim; i++) n *= t->dl.shape[i];
  return n;
}
/* A of dtype dt from random complex128 values (real dtypes keep the real parts) in both runtimes. */
static void svd_input(tabi_dtype dt, int32_t nd, const int64_t *shape, int poison, tabi_tensor **g, tabi_tensor **r) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  double *h = malloc(sizeof(double) * (size_t)(2 * n + 2));
  for (int64_t i = 0; i < 2 * n; i++) h[i] = urand() * 4 - 2;
  if (poison && n > 0) h[2 * (n / 2)] = NAN;
  tabi_tensor *tg = NULL, *tr = NULL;
  CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_COMPLEX128, nd, shape, h, (uint64_t)n * 16, &tg));
  CHECK_OK(tabi_tensor_from_host(ref, CPU, TABI_DTYPE_COMPLEX128, nd, shape, h, (uint64_t)n * 16, &tr));
  free(h);
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
static void svd_case(tabi_dtype dt, int32_t nd, const int64_t *shape, int full, int poison) {
  tabi_tensor *ag = NULL, *ar = NULL;
  svd_input(dt, nd, shape, poison, &ag, &ar);
  if (!ag || !ar) return;
  tabi_op og, orf;
  CHECK_OK(tabi_op_find(gpu, "prims::svd", &og));
  CHECK_OK(tabi_op_find(ref, "prims::svd", &orf));
  tabi_value ga[2] = {tabi_tensor_value(ag), tabi_bool(full)}, ra[2] = {tabi_tensor_value(ar), tabi_bool(full)};
  tabi_value go[3] = {tabi_none(), tabi_none(), tabi_none()}, ro[3] = {tabi_none(), tabi_none(), tabi_none()};
  tabi_status sg = tabi_call(gpu, og, ga, 2, go, 3);
  char gmsg[512];
  snprintf(gmsg, sizeof gmsg, "%s", tabi_last_error());
  tabi_status sr = tabi_call(ref, orf, ra, 2, ro, 3);
  CHECK_MSG(sg == sr, "svd %s: status %d (%s), reference %d (%s)", tabi_dtype_name(dt), (int)sg, gmsg, (int)sr,
            tabi_last_error());
  if (poison) CHECK_MSG(sg == TABI_ERR_INVALID_ARGUMENT && strcmp(gmsg, tabi_last_error()) == 0,
                        "svd non-finite: '%s' vs '%s'", gmsg, tabi_last_error());
  if (sg == TABI_OK && sr == TABI_OK) {
    int32_t d = nd - 2;
    int64_t m = shape[d], n = shape[d + 1], k = ro[1].u.t->dl.shape[d];
    int64_t uc = ro[0].u.t->dl.shape[d + 1], vr = ro[2].u.t->dl.shape[d], batch = 1;
    for (int32_t i = 0; i < nd - 2; i++) batch *= shape[i];
    int same = 1;
    for (int o = 0; o < 3; o++) {
      same = same && go[o].u.t->dl.ndim == ro[o].u.t->dl.ndim && go[o].u.t->dl.dtype.code == ro[o].u.t->dl.dtype.code &&
             go[o].u.t->dl.dtype.bits == ro[o].u.t->dl.dtype.bits;
      for (int32_t i = 0; same && i < ro[o].u.t->dl.ndim; i++) same = go[o].u.t->dl.shape[i] == ro[o].u.t->dl.shape[i];
    }
    CHECK_MSG(same, "svd %s: output shapes/dtypes differ", tabi_dtype_name(dt));
    tabi_dtype sdt = dt == TABI_DTYPE_COMPLEX64 ? TABI_DTYPE_FLOAT32 : dt == TABI_DTYPE_COMPLEX128 ? TABI_DTYPE_FLOAT64 : dt;
    int single = sdt == TABI_DTYPE_FLOAT32;
    char *h[3];
    for (int o = 0; o < 3; o++) {
      uint64_t bytes = (uint64_t)svd_numel(ro[o].u.t) * (uint64_t)svd_esz(o == 1 ? sdt : dt);
      h[o] = calloc(bytes + 16, 1);
      if (same && bytes) CHECK_OK(tabi_tensor_to_host(gpu, go[o].u.t, h[o], bytes));
    }
    const char *a = tabi_tensor_data(ar), *rs = tabi_tensor_data(ro[1].u.t);
    double rtol = single ? 1.3e-6 : 1e-7, bound = single ? 2e-5 : 1e-12, worst[4] = {0, 0, 0, 0};
    for (int64_t b = 0; same && b < batch; b++) {
      double smax = 0, big = 0;
      for (int64_t j = 0; j < k; j++) smax = fmax(smax, creal(svd_elem(rs, sdt, b * k + j)));
      for (int64_t j = 0; j < k; j++)
        worst[0] = fmax(worst[0], cabs(svd_elem(h[1], sdt, b * k + j) - svd_elem(rs, sdt, b * k + j)) / (smax > 0 ? smax : 1));
      double rec = 0;
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
          double complex acc = 0, x = svd_elem(a, dt, b * m * n + i * n + j);
          for (int64_t q = 0; q < k; q++)
            acc += svd_elem(h[0], dt, b * m * uc + i * uc + q) * creal(svd_elem(h[1], sdt, b * k + q)) *
                   svd_elem(h[2], dt, b * vr * n + q * n + j);
          rec = fmax(rec, cabs(acc - x));
          big = fmax(big, cabs(x));
        }
      worst[1] = fmax(worst[1], big > 0 ? rec / big : rec);
      for (int64_t p = 0; p < uc; p++)
        for (int64_t q = 0; q < uc; q++) {
          double complex s = 0;
          for (int64_t i = 0; i < m; i++)
            s += conj(svd_elem(h[0], dt, b * m * uc + i * uc + p)) * svd_elem(h[0], dt, b * m * uc + i * uc + q);
          worst[2] = fmax(worst[2], cabs(s - (p == q)));
        }
      for (int64_t p = 0; p < vr; p++)
        for (int64_t q = 0; q < vr; q++) {
          double complex s = 0;
          for (int64_t j = 0; j < n; j++)
            s += svd_elem(h[2], dt, b * vr * n + p * n + j) * conj(svd_elem(h[2], dt, b * vr * n + q * n + j));
          worst[3] = fmax(worst[3], cabs(s - (p == q)));
        }
    }
    CHECK_MSG(worst[0] <= rtol, "svd %s %lldx%lld: |S - S_ref| / max S = %g", tabi_dtype_name(dt), (long long)m,
              (long long)n, worst[0]);
    for (int r = 1; r < 4; r++)
      CHECK_MSG(worst[r] <= bound, "svd %s %lldx%lld full %d: residual %d = %g (bound %g)", tabi_dtype_name(dt),
                (long long)m, (long long)n, full, r, worst[r], bound);
    for (int o = 0; o < 3; o++) free(h[o]);
  }
  for (int o = 0; o < 3; o++) {
    tabi_value_release(&go[o]);
    tabi_value_release(&ro[o]);
  }
  tabi_tensor_release(ag);
  tabi_tensor_release(ar);
}
static void svd_cases(void) {
  const tabi_dtype dts[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_COMPLEX64, TABI_DTYPE_COMPLEX128};
  const int64_t s0[3] = {3, 40, 17}, s1[3] = {2, 13, 33}, s2[2] = {64, 64}, s3[2] = {1, 1}, s4[2] = {0, 5},
                s5[3] = {0, 4, 3}, s6[2] = {300, 20};
  for (int d = 0; d < 4; d++)
    for (int full = 0; full < 2; full++) {
      svd_case(dts[d], 3, s0, full, 0);
      svd_case(dts[d], 3, s1, full, 0);
      svd_case(dts[d], 2, s2, full, 0);
      svd_case(dts[d], 2, s3, full, 0);
      svd_case(dts[d], 2, s4, full, 0);
      svd_case(dts[d], 3, s5, full, 0);
    }
  svd_case(TABI_DTYPE_FLOAT64, 2, s6, 1, 0); /* completion of 280 columns */
  for (int d = 0; d < 4; d++) svd_case(dts[d], 3, s0, 0, 1);
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  CHECK_OK(tabi_runtime_create(NULL, &gpu));
  CHECK_OK(tabi_runtime_create(NULL, &ref));
  CHECK_OK(tabi_runtime_load_plugin(gpu, argv[1], NULL));
  CHECK_OK(tabi_runtime_load_plugin(ref, argv[2], NULL));
  int32_t ndev = 0;
  if (argc > 3) CUDA0.device_type = (DLDeviceType)atoi(argv[3]);
  int rocm = CUDA0.device_type == kDLROCM;
  CHECK_OK(tabi_runtime_device_count(gpu, CUDA0.device_type, &ndev));
  if (ndev <= 0) {
    printf("SKIP: no %s device present (tabi_runtime_device_count gave %d)\n", rocm ? "ROCm" : "CUDA",
           (int)ndev);
    return 77;
  }
  int64_t s2[2] = {37, 53}, s3[3] = {4, 33, 65};
  const tabi_dtype fdt[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16};
  const double frt[4] = {1.3e-6, 1e-7, 1e-3, 1.6e-2};
  for (int d = 0; d < 4; d++) {
    compare("prims::add", fdt[d], 2, 2, s2, NULL, 0, frt[d], 1e-5);
    compare("prims::mul", fdt[d], 2, 3, s3, NULL, 0, frt[d], 1e-5);
    compare("prims::sin", fdt[d], 1, 3, s3, NULL, 0, frt[d], 1e-5);
    compare("prims::exp", fdt[d], 1, 2, s2, NULL, 0, frt[d], 1e-5);
    compare("prims::lgamma", fdt[d], 1, 2, s2, NULL, 0, frt[d], 1e-5);
    compare("aten::add.Tensor", fdt[d], 2, 2, s2, (tabi_value[]){tabi_int(1)}, 1, frt[d], 1e-5);
    compare("aten::atan2.out", fdt[d], 3, 2, s2, NULL, 0, frt[d], 1e-5); /* out: the third tensor */
    int64_t dims[1] = {1};
    compare("prims::sum", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int_list(dims, 1)}, 1, frt[d] * 10, 1e-4);
    compare("prims::amax", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int_list(dims, 1)}, 1, 0, 0);
    compare("prims::var", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int_list(dims, 1), tabi_int(1)}, 2,
            frt[d] * 10, 1e-4);
    compare("aten::_softmax", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int(1), tabi_bool(0)}, 2, frt[d] * 4, 1e-5);
    compare("aten::_log_softmax", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int(2), tabi_bool(0)}, 2, frt[d] * 4, 1e-5);
    int64_t ns[1] = {65};
    compare("aten::native_layer_norm", fdt[d], 1, 3, s3,
            (tabi_value[]){tabi_int_list(ns, 1), tabi_none(), tabi_none(), tabi_float(1e-5)}, 4,
            frt[d] * 10, 1e-4);
  }
  /* positions and scans */
  for (int d = 0; d < 2; d++) {
    compare("aten::argmax", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int(1), tabi_bool(0)}, 2, 0, 0);
    compare("aten::argmin", fdt[d], 1, 3, s3, (tabi_value[]){tabi_none(), tabi_bool(0)}, 2, 0, 0);
    compare("aten::max.dim", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int(2), tabi_bool(1)}, 2, 0, 0);
    compare("aten::cumsum", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int(2)}, 1, frt[d] * 10, 1e-5);
    compare("aten::sort", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int(-1), tabi_bool(1)}, 2, 0, 0);
    compare("aten::sort", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int(1), tabi_bool(0)}, 2, 0, 0);
    compare("aten::topk", fdt[d], 1, 3, s3,
            (tabi_value[]){tabi_int(5), tabi_int(-1), tabi_bool(1), tabi_bool(1)}, 4, 0, 0);
  }
  compare("aten::cumsum", TABI_DTYPE_INT32, 1, 2, s2, (tabi_value[]){tabi_int(0)}, 1, 0, 0);
  /* FFTs (the real parts of complex results are compared) */
  {
    int64_t fd[1] = {1};
    compare("aten::_fft_r2c", TABI_DTYPE_FLOAT32, 1, 2, s2,
            (tabi_value[]){tabi_int_list(fd, 1), tabi_int(0), tabi_bool(1)}, 3, 1e-4, 1e-4);
    compare("aten::_fft_r2c", TABI_DTYPE_FLOAT64, 1, 3, s3,
            (tabi_value[]){tabi_int_list(fd, 1), tabi_int(2), tabi_bool(0)}, 3, 1e-9, 1e-9);
    compare("aten::_fft_c2r", TABI_DTYPE_COMPLEX128, 1, 2, s2,
            (tabi_value[]){tabi_int_list(fd, 1), tabi_int(2), tabi_int(100)}, 3, 1e-9, 1e-9);
  }
  /* mm: square operands so both are [n, n] */
  int64_t sq[2] = {64, 64}, bsq[3] = {3, 40, 40};
  compare("aten::mm", TABI_DTYPE_FLOAT32, 2, 2, sq, NULL, 0, 1e-5, 1e-4);
  compare("aten::mm", TABI_DTYPE_FLOAT64, 2, 2, sq, NULL, 0, 1e-10, 1e-10);
  compare("aten::mm", TABI_DTYPE_FLOAT16, 2, 2, sq, NULL, 0, 1e-2, 1e-2);
  compare("aten::mm", TABI_DTYPE_INT32, 2, 2, sq, NULL, 0, 0, 0);
  compare("aten::bmm", TABI_DTYPE_FLOAT32, 2, 3, bsq, NULL, 0, 1e-5, 1e-4);
  compare("aten::mm", TABI_DTYPE_COMPLEX64, 2, 2, sq, NULL, 0, 1e-5, 1e-4);
  /* sizes off the 64x64 tiles of the ROCm GEMM; addmm's epilogue; bfloat16 */
  int64_t odd[2] = {130, 130};
  compare("aten::mm", TABI_DTYPE_FLOAT32, 2, 2, odd, NULL, 0, 1e-5, 1e-4);
  compare("aten::mm", TABI_DTYPE_BFLOAT16, 2, 2, sq, NULL, 0, 3e-2, 3e-2);
  compare("aten::addmm", TABI_DTYPE_FLOAT32, 3, 2, odd, (tabi_value[]){tabi_float(0.5), tabi_float(2)}, 2,
          1e-5, 1e-4);
  compare("aten::addmm", TABI_DTYPE_FLOAT64, 3, 2, sq, (tabi_value[]){tabi_float(-1), tabi_float(0.25)}, 2,
          1e-10, 1e-10);
  /* integer division by zero is an error, not garbage */
  {
    int64_t one[1] = {3};
    int32_t num[3] = {7, -7, 1}, den[3] = {2, 0, 1};
    tabi_tensor *a = NULL, *b = NULL;
    CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_INT32, 1, one, num, sizeof num, &a));
    CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_INT32, 1, one, den, sizeof den, &b));
    tabi_op op;
    tabi_op_find(gpu, "prims::div", &op);
    tabi_value args[2] = {tabi_tensor_value(a), tabi_tensor_value(b)}, o = tabi_none();
    CHECK_ERR(tabi_call(gpu, op, args, 2, &o, 1), TABI_ERR_INVALID_ARGUMENT, "ZeroDivisionError");
    tabi_tensor_release(a);
    tabi_tensor_release(b);
  }
  /* Philox: the same seed gives the same numbers as the reference, bit for bit */
  {
    int64_t shape[2] = {100, 37};
    tabi_runtime_manual_seed(gpu, CUDA0, 1234);
    tabi_runtime_manual_seed(ref, CPU, 1234);
    tabi_op og, orf;
    tabi_op_find(gpu, "prims::uniform", &og);
    tabi_op_find(ref, "prims::uniform", &orf);
    tabi_value ga[5] = {tabi_int_list(shape, 2), tabi_float(-1), tabi_float(3),
                        tabi_dtype_value(TABI_DTYPE_FLOAT32), tabi_device_value(CUDA0)};
    tabi_value ra[5] = {tabi_int_list(shape, 2), tabi_float(-1), tabi_float(3),
                        tabi_dtype_value(TABI_DTYPE_FLOAT32), tabi_device_value(CPU)};
    tabi_value go = tabi_none(), ro = tabi_none();
    CHECK_OK(tabi_call(gpu, og, ga, 5, &go, 1));
    CHECK_OK(tabi_call(ref, orf, ra, 5, &ro, 1));
    float x[3700], y[3700];
    if (go.u.t && ro.u.t) {
      CHECK_OK(tabi_tensor_to_host(gpu, go.u.t, x, sizeof x));
      CHECK_OK(tabi_tensor_to_host(ref, ro.u.t, y, sizeof y));
      CHECK(memcmp(x, y, sizeof x) == 0);
    }
    tabi_value_release(&go);
    tabi_value_release(&ro);
  }
  /* padding, upsampling, col2im (tc_pad_up.cu); copies and nearest are exact */
  {
    int64_t p3[3] = {2, 5, 7}, p4[4] = {2, 3, 6, 7}, p5[5] = {2, 2, 4, 5, 6};
    int64_t rf1[2] = {3, -1}, rf2[4] = {2, 1, -1, 3}, rf3[6] = {1, 2, 0, 3, 2, 1};
    int64_t rp2[4] = {4, 9, 2, -1}, rp3[6] = {3, 1, 5, 0, 2, 2};
    int64_t os[2] = {9, 14}, os2[2] = {10, 14};
    double sf[2] = {1.7, 0.6};
    int64_t cos_[2] = {9, 8}, cks[2] = {3, 2}, cdl[2] = {1, 2}, cpd[2] = {1, 0}, cst[2] = {2, 1};
    int64_t cshape[3] = {2, 18, 30};
    const tabi_dtype pdt[6] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16,
                               TABI_DTYPE_BFLOAT16, TABI_DTYPE_COMPLEX64, TABI_DTYPE_COMPLEX128};
    for (int d = 0; d < 6; d++) {
      double rt_ = d < 4 ? frt[d] : 1e-6;
      compare("aten::reflection_pad1d", pdt[d], 1, 3, p3, (tabi_value[]){tabi_int_list(rf1, 2)}, 1, 0, 0);
      compare("aten::reflection_pad2d", pdt[d], 1, 4, p4, (tabi_value[]){tabi_int_list(rf2, 4)}, 1, 0, 0);
      compare("aten::reflection_pad3d", pdt[d], 1, 5, p5, (tabi_value[]){tabi_int_list(rf3, 6)}, 1, 0, 0);
      compare("aten::replication_pad2d", pdt[d], 1, 4, p4, (tabi_value[]){tabi_int_list(rp2, 4)}, 1, 0, 0);
      compare("aten::replication_pad3d", pdt[d], 1, 5, p5, (tabi_value[]){tabi_int_list(rp3, 6)}, 1, 0, 0);
      compare("aten::col2im", pdt[d], 1, 3, cshape,
              (tabi_value[]){tabi_int_list(cos_, 2), tabi_int_list(cks, 2), tabi_int_list(cdl, 2),
                             tabi_int_list(cpd, 2), tabi_int_list(cst, 2)}, 5, rt_, 1e-5);
      if (d >= 4) continue;
      compare("aten::upsample_nearest2d.vec", pdt[d], 1, 4, p4, (tabi_value[]){tabi_int_list(os, 2), tabi_none()}, 2, 0, 0);
      compare("aten::upsample_nearest2d.vec", pdt[d], 1, 4, p4, (tabi_value[]){tabi_none(), tabi_float_list(sf, 2)}, 2, 0, 0);
      for (int al = 0; al < 2; al++) {
        compare("aten::upsample_bilinear2d.vec", pdt[d], 1, 4, p4,
                (tabi_value[]){tabi_int_list(os2, 2), tabi_bool(al), tabi_none()}, 3, rt_, 1e-5);
        compare("aten::upsample_bilinear2d.vec", pdt[d], 1, 4, p4,
                (tabi_value[]){tabi_none(), tabi_bool(al), tabi_float_list(sf, 2)}, 3, rt_, 1e-5);
      }
    }
    compare("aten::upsample_nearest2d.vec", TABI_DTYPE_UINT8, 1, 4, p4,
            (tabi_value[]){tabi_int_list(os, 2), tabi_none()}, 2, 0, 0);
    /* their argument errors are the reference's */
    int64_t big[2] = {7, 0}, bad4[4] = {1, 1, 1, 1};
    int64_t s2d[2] = {6, 7}, cbad[3] = {2, 18, 29};
    same_error("aten::reflection_pad1d", 3, p3, (tabi_value[]){tabi_int_list(big, 2)}, 1);
    same_error("aten::reflection_pad2d", 2, p4, (tabi_value[]){tabi_int_list(bad4, 3)}, 1);
    same_error("aten::replication_pad3d", 3, p3, (tabi_value[]){tabi_int_list(rp3, 6)}, 1);
    same_error("aten::upsample_nearest2d.vec", 2, s2d, (tabi_value[]){tabi_int_list(os, 2), tabi_none()}, 2);
    same_error("aten::upsample_bilinear2d.vec", 4, p4,
               (tabi_value[]){tabi_int_list(os, 2), tabi_bool(0), tabi_float_list(sf, 2)}, 3);
    same_error("aten::col2im", 3, cbad,
               (tabi_value[]){tabi_int_list(cos_, 2), tabi_int_list(cks, 2), tabi_int_list(cdl, 2),
                              tabi_int_list(cpd, 2), tabi_int_list(cst, 2)}, 5);
  }
  /* pooling (tc_pool.cu): exact, as the reference (sums in double in its order) */
  {
    int64_t x4[4] = {2, 3, 17, 23}, x3[3] = {3, 11, 13}, x5[5] = {2, 2, 7, 9, 8}, xl[4] = {4, 16, 56, 56};
    int64_t k2[2] = {3, 2}, s2_[2] = {2, 1}, p2[2] = {1, 1}, d2[2] = {1, 2}, k3[3] = {3, 2, 3}, s3_[3] = {2, 2, 1},
            p3[3] = {1, 0, 1}, d3[3] = {2, 1, 1}, k1[1] = {4}, s1[1] = {3}, p1[1] = {2}, o1[1] = {5},
            o2[2] = {5, 7}, o3[3] = {3, 4, 5}, kl[2] = {3, 3}, sl[2] = {2, 2}, pl[2] = {1, 1}, dl[2] = {1, 1};
    for (int d = 0; d < 4; d++) {
      for (int ceil = 0; ceil < 2; ceil++) {
        tabi_value mp2[5] = {tabi_int_list(k2, 2), tabi_int_list(s2_, 2), tabi_int_list(p2, 2),
                             tabi_int_list(d2, 2), tabi_bool(ceil)};
        tabi_value mp3[5] = {tabi_int_list(k3, 3), tabi_int_list(s3_, 3), tabi_int_list(p3, 3),
                             tabi_int_list(d3, 3), tabi_bool(ceil)};
        for (cmp_out = 0; cmp_out < 2; cmp_out++) {
          compare("aten::max_pool2d_with_indices", fdt[d], 1, 4, x4, mp2, 5, 0, 0);
          compare("aten::max_pool2d_with_indices", fdt[d], 1, 3, x3, mp2, 5, 0, 0);
          compare("aten::max_pool3d_with_indices", fdt[d], 1, 5, x5, mp3, 5, 0, 0);
        }
        cmp_out = 0;
        for (int cip = 0; cip < 2; cip++)
          for (int dv = 0; dv < 2; dv++) {
            tabi_value ap2[6] = {tabi_int_list(k2, 2), tabi_int_list(s2_, 2), tabi_int_list(p2, 2),
                                 tabi_bool(ceil), tabi_bool(cip), dv ? tabi_int(-3) : tabi_none()};
            tabi_value ap3[6] = {tabi_int_list(k3, 3), tabi_int_list(s3_, 3), tabi_int_list(p3, 3),
                                 tabi_bool(ceil), tabi_bool(cip), dv ? tabi_int(5) : tabi_none()};
            tabi_value ap1[5] = {tabi_int_list(k1, 1), tabi_int_list(s1, 1), tabi_int_list(p1, 1),
                                 tabi_bool(ceil), tabi_bool(cip)};
            compare("aten::avg_pool2d", fdt[d], 1, 4, x4, ap2, 6, 0, 0);
            compare("aten::avg_pool3d", fdt[d], 1, 5, x5, ap3, 6, 0, 0);
            compare("aten::avg_pool1d", fdt[d], 1, 3, x3, ap1, 5, 0, 0);
            pool_backward("aten::avg_pool2d", "aten::avg_pool2d_backward", fdt[d], 4, x4, ap2, 6, 6, 0, 0);
          }
        pool_backward("aten::max_pool2d_with_indices", "aten::max_pool2d_with_indices_backward", fdt[d], 4, x4,
                      mp2, 5, 5, 1, 0);
        pool_backward("aten::max_pool2d_with_indices", "aten::max_pool2d_with_indices_backward", fdt[d], 3, x3,
                      mp2, 5, 5, 1, 1);
      }
      tabi_value a1[1] = {tabi_int_list(o1, 1)}, a2[1] = {tabi_int_list(o2, 2)}, a3[1] = {tabi_int_list(o3, 3)};
      compare("aten::adaptive_avg_pool1d", fdt[d], 1, 3, x3, a1, 1, 0, 0);
      compare("aten::_adaptive_avg_pool2d", fdt[d], 1, 4, x4, a2, 1, 0, 0);
      compare("aten::_adaptive_avg_pool3d", fdt[d], 1, 5, x5, a3, 1, 0, 0);
      pool_backward("aten::_adaptive_avg_pool2d", "aten::_adaptive_avg_pool2d_backward", fdt[d], 4, x4, a2, 1, 0, 0, 0);
    }
    /* int64 average pooling; a ResNet-sized max pool and its backward (past one grid of blocks) */
    tabi_value ap2[6] = {tabi_int_list(k2, 2), tabi_int_list(s2_, 2), tabi_int_list(p2, 2), tabi_bool(1),
                         tabi_bool(0), tabi_none()};
    compare("aten::avg_pool2d", TABI_DTYPE_INT64, 1, 4, x4, ap2, 6, 0, 0);
    pool_backward("aten::avg_pool2d", "aten::avg_pool2d_backward", TABI_DTYPE_INT64, 4, x4, ap2, 6, 6, 0, 0);
    tabi_value mpl[5] = {tabi_int_list(kl, 2), tabi_int_list(sl, 2), tabi_int_list(pl, 2), tabi_int_list(dl, 2),
                         tabi_bool(0)};
    cmp_out = 1;
    compare("aten::max_pool2d_with_indices", TABI_DTYPE_FLOAT32, 1, 4, xl, mpl, 5, 0, 0);
    cmp_out = 0;
    pool_backward("aten::max_pool2d_with_indices", "aten::max_pool2d_with_indices_backward", TABI_DTYPE_FLOAT32, 4,
                  xl, mpl, 5, 5, 1, 0);
    /* their argument errors are the reference's */
    int64_t kbig[2] = {9, 9}, pbad[2] = {2, 2}, oneg[2] = {-1, 2};
    same_error("aten::max_pool2d_with_indices", 4, x4,
               (tabi_value[]){tabi_int_list(k2, 2), tabi_int_list(s2_, 2), tabi_int_list(pbad, 2),
                              tabi_int_list(d2, 2), tabi_bool(0)}, 5);
    same_error("aten::avg_pool2d", 2, o2,
               (tabi_value[]){tabi_int_list(k2, 2), tabi_int_list(s2_, 2), tabi_int_list(p2, 2), tabi_bool(0),
                              tabi_bool(1), tabi_none()}, 6);
    same_error("aten::avg_pool3d", 5, x5,
               (tabi_value[]){tabi_int_list(kbig, 2), tabi_int_list(s2_, 2), tabi_int_list(p2, 2), tabi_bool(0),
                              tabi_bool(1), tabi_int(0)}, 6);
    same_error("aten::_adaptive_avg_pool2d", 4, x4, (tabi_value[]){tabi_int_list(oneg, 2)}, 1);
    /* an index outside the plane: the reference's error */
    {
      int64_t gs[4] = {1, 1, 2, 2}, xs[4] = {1, 1, 3, 3}, iv[4] = {0, 4, 9, -1};
      double gv[4] = {1, 2, 3, 4}, xv[9] = {0};
      int64_t k22[2] = {2, 2}, s11[2] = {1, 1}, p00[2] = {0, 0};
      char msg[2][512];
      tabi_status stt[2];
      for (int k = 0; k < 2; k++) {
        tabi_runtime *rt = k ? ref : gpu;
        DLDevice dev = k ? CPU : CUDA0;
        tabi_tensor *g = NULL, *x = NULL, *ind = NULL;
        CHECK_OK(tabi_tensor_from_host(rt, dev, TABI_DTYPE_FLOAT64, 4, gs, gv, sizeof gv, &g));
        CHECK_OK(tabi_tensor_from_host(rt, dev, TABI_DTYPE_FLOAT64, 4, xs, xv, sizeof xv, &x));
        CHECK_OK(tabi_tensor_from_host(rt, dev, TABI_DTYPE_INT64, 4, gs, iv, sizeof iv, &ind));
        tabi_value a[8] = {tabi_tensor_value(g), tabi_tensor_value(x), tabi_int_list(k22, 2), tabi_int_list(s11, 2),
                           tabi_int_list(p00, 2), tabi_int_list(s11, 2), tabi_bool(0), tabi_tensor_value(ind)};
        tabi_value o = tabi_none();
        tabi_op op;
        tabi_op_find(rt, "aten::max_pool2d_with_indices_backward", &op);
        stt[k] = tabi_call(rt, op, a, 8, &o, 1);
        snprintf(msg[k], sizeof msg[k], "%s", tabi_last_error());
        tabi_value_release(&o);
        tabi_tensor_release(g);
        tabi_tensor_release(x);
        tabi_tensor_release(ind);
      }
      CHECK_MSG(stt[1] == TABI_ERR_INDEX && stt[0] == stt[1] && strcmp(msg[0], msg[1]) == 0,
                "max_pool2d backward bad index: %d \"%s\" vs reference %d \"%s\"", (int)stt[0], msg[0],
                (int)stt[1], msg[1]);
    }
  }
  misc_cases();
  /* native_group_norm, native_layer_norm_backward, native_group_norm_backward
   * (tc_norm.cu): the same inputs in both runtimes (mean/rstd given, not
   * recomputed), every output and output_mask against the reference; small
   * cases and ones past a grid of blocks. The kernels sum in the reference's
   * order in double: expected to be bit-exact, checked within tolerance. */
  {
    const tabi_dtype ndt[3] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16};
    const double nrt[3] = {1.3e-6, 1e-7, 1e-3};
    for (int d = 0; d < 3; d++)
      for (int big = 0; big < 2; big++) {
        /* layer norm [M, 4, K] over [4, K]; group norm [Nb, C, H, W] */
        int64_t xs[4] = {big ? 3000 : 5, 4, big ? 16 : 33, 1}, ps[2] = {4, xs[2]}, ms[3] = {xs[0], 1, 1};
        int64_t gxs[4] = {big ? 64 : 3, 6, big ? 10 : 5, big ? 10 : 7}, cs[1] = {6}, gms[2] = {gxs[0], 3};
        int64_t nx = xs[0] * 4 * xs[2], ngx = gxs[0] * 6 * gxs[2] * gxs[3], np = 4 * xs[2];
        double *hx = malloc((size_t)(nx > ngx ? nx : ngx) * 8), *hg = malloc((size_t)(nx > ngx ? nx : ngx) * 8);
        double *hm = malloc((size_t)xs[0] * 8 + 8 * 256), *hr = malloc((size_t)xs[0] * 8 + 8 * 256);
        double hw[4 * 33], hb[4 * 33];
        for (int64_t i = 0; i < (nx > ngx ? nx : ngx); i++) {
          hx[i] = urand() * 4 - 2;
          hg[i] = urand() * 2 - 1;
        }
        for (int64_t i = 0; i < xs[0] + 256; i++) {
          hm[i] = urand() - 0.5;
          hr[i] = 0.5 + urand() * 2;
        }
        for (int64_t i = 0; i < np; i++) {
          hw[i] = urand() * 2 - 1;
          hb[i] = urand() * 2 - 1;
        }
        for (int op = 0; op < 3; op++) {
          const char *name = op == 0 ? "aten::native_layer_norm_backward"
                             : op == 1 ? "aten::native_group_norm" : "aten::native_group_norm_backward";
          tabi_tensor *t[2][6]; /* [gpu, ref][x, go, mean, rstd, w, b] */
          both_tensor(ndt[d], op ? 4 : 3, op ? gxs : xs, hx, &t[0][0], &t[1][0]);
          both_tensor(ndt[d], op ? 4 : 3, op ? gxs : xs, hg, &t[0][1], &t[1][1]);
          both_tensor(ndt[d], op ? 2 : 3, op ? gms : ms, hm, &t[0][2], &t[1][2]);
          both_tensor(ndt[d], op ? 2 : 3, op ? gms : ms, hr, &t[0][3], &t[1][3]);
          both_tensor(ndt[d], op ? 1 : 2, op ? cs : ps, hw, &t[0][4], &t[1][4]);
          both_tensor(ndt[d], op ? 1 : 2, op ? cs : ps, hb, &t[0][5], &t[1][5]);
          for (int m = op == 1 ? 7 : 0; m < 8; m++) {
            int64_t mask[3] = {m & 1, (m >> 1) & 1, (m >> 2) & 1};
            tabi_value o[2][3];
            tabi_status st[2];
            for (int k = 0; k < 2; k++) {
              tabi_runtime *rt = k ? ref : gpu;
              tabi_value a[10];
              int na;
              if (op == 0) {
                tabi_value la[8] = {tabi_tensor_value(t[k][1]), tabi_tensor_value(t[k][0]), tabi_int_list(ps, 2),
                                    tabi_tensor_value(t[k][2]), tabi_tensor_value(t[k][3]),
                                    m == 5 ? tabi_none() : tabi_tensor_value(t[k][4]), tabi_tensor_value(t[k][5]),
                                    tabi_bool_list(mask, 3)};
                memcpy(a, la, sizeof la);
                na = 8;
              } else if (op == 1) {
                tabi_value ga[8] = {tabi_tensor_value(t[k][0]), tabi_tensor_value(t[k][4]), tabi_tensor_value(t[k][5]),
                                    tabi_int(gxs[0]), tabi_int(6), tabi_int(gxs[2] * gxs[3]), tabi_int(3),
                                    tabi_float(1e-5)};
                memcpy(a, ga, sizeof ga);
                na = 8;
              } else {
                tabi_value gb[10] = {tabi_tensor_value(t[k][1]), tabi_tensor_value(t[k][0]), tabi_tensor_value(t[k][2]),
                                     tabi_tensor_value(t[k][3]), m == 5 ? tabi_none() : tabi_tensor_value(t[k][4]),
                                     tabi_int(gxs[0]), tabi_int(6), tabi_int(gxs[2] * gxs[3]), tabi_int(3),
                                     tabi_bool_list(mask, 3)};
                memcpy(a, gb, sizeof gb);
                na = 10;
              }
              tabi_op opr;
              CHECK_OK(tabi_op_find(rt, name, &opr));
              for (int i = 0; i < 3; i++) o[k][i] = tabi_none();
              st[k] = tabi_call(rt, opr, a, na, o[k], 3);
              CHECK_MSG(st[k] == TABI_OK, "%s (%s): %s", name, k ? "reference" : "gpu", tabi_last_error());
            }
            for (int i = 0; i < 3 && st[0] == TABI_OK && st[1] == TABI_OK; i++) {
              CHECK_MSG((o[0][i].tag == TABI_TAG_TENSOR) == (o[1][i].tag == TABI_TAG_TENSOR), "%s out %d present", name, i);
              if (o[0][i].tag != TABI_TAG_TENSOR || o[1][i].tag != TABI_TAG_TENSOR) continue;
              tabi_tensor *og = o[0][i].u.t, *orf = o[1][i].u.t;
              int64_t n = 1;
              int same = og->dl.ndim == orf->dl.ndim && tabi_tensor_dtype(og) == tabi_tensor_dtype(orf);
              for (int32_t j = 0; same && j < orf->dl.ndim; j++) same = og->dl.shape[j] == orf->dl.shape[j];
              for (int32_t j = 0; j < orf->dl.ndim; j++) n *= orf->dl.shape[j];
              CHECK_MSG(same, "%s out %d: dtype or shape differs from the reference's", name, i);
              if (!same) continue;
              tabi_op cg, cr;
              tabi_op_find(gpu, "prims::convert_element_type", &cg);
              tabi_op_find(ref, "prims::convert_element_type", &cr);
              tabi_value a1[2] = {o[0][i], tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o1 = tabi_none();
              tabi_value a2[2] = {o[1][i], tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o2 = tabi_none();
              CHECK_OK(tabi_call(gpu, cg, a1, 2, &o1, 1));
              CHECK_OK(tabi_call(ref, cr, a2, 2, &o2, 1));
              double *x = calloc((size_t)n + 1, 8), *y = calloc((size_t)n + 1, 8);
              if (o1.tag == TABI_TAG_TENSOR && o2.tag == TABI_TAG_TENSOR && n > 0) {
                CHECK_OK(tabi_tensor_to_host(gpu, o1.u.t, x, (uint64_t)n * 8));
                CHECK_OK(tabi_tensor_to_host(ref, o2.u.t, y, (uint64_t)n * 8));
              }
              int64_t bad = 0, first = -1;
              for (int64_t j = 0; j < n; j++) {
                int ok = x[j] == y[j] || (isnan(x[j]) && isnan(y[j])) || fabs(x[j] - y[j]) <= 1e-5 + nrt[d] * fabs(y[j]);
                if (!ok && first < 0) first = j;
                bad += !ok;
              }
              CHECK_MSG(bad == 0, "%s %s out %d mask %d: %lld of %lld differ; first at %lld: %.17g vs %.17g", name,
                        tabi_dtype_name(ndt[d]), i, m, (long long)bad, (long long)n, (long long)first,
                        first >= 0 ? x[first] : 0.0, first >= 0 ? y[first] : 0.0);
              free(x);
              free(y);
              tabi_value_release(&o1);
              tabi_value_release(&o2);
            }
            for (int k = 0; k < 2; k++)
              for (int i = 0; i < 3; i++) tabi_value_release(&o[k][i]);
          }
          for (int k = 0; k < 2; k++)
            for (int i = 0; i < 6; i++) tabi_tensor_release(t[k][i]);
        }
        free(hx);
        free(hg);
        free(hm);
        free(hr);
      }
  }
  idx_cases(); /* index, index_put, scatter_reduce.two, masked_scatter, nonzero, randperm (tc_idx.cu) */
  conv_bwd_cases(); /* convolution_backward (tc_conv.cu) */
  bn_cases();       /* the three batch-norm forms (tc_bn.cu) */
  svd_cases(); /* prims::svd (tc_svd.cu) */
  tabi_runtime_destroy(gpu);
  tabi_runtime_destroy(ref);
  return check_report();
}
