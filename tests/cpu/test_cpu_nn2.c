/* tests/cpu/test_cpu_nn2.c: the CPU plugin's cat / prims::cat,
 * constant_pad_nd, forward batch norm and avg_pool2d (+ backward) (plugins/cpu/cpu_nn2_*.c) against the
 * reference kernels: the same inputs go into a runtime with libtabi_cpu.so and
 * one with the reference plugin; outputs compare with shared/spec/tolerances.md
 * (exactly for copies). Sizes are large enough for the threaded paths; the
 * cases the fast paths hand back (mixed dtypes, strided views, errors) must
 * give the reference's status and values too. Batch norm's in-place running
 * statistics are compared after the call.
 *
 * TABI_TEST_TIMINGS=1 prints the time of the fast and reference kernels.
 *
 * usage: test_cpu_nn2 CPU_PLUGIN REFERENCE_PLUGIN
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tabi/half.h>
#include <tabi/runtime.h>

#include "check.h"
#include "cpu_rt.h"

static const DLDevice cpu = {kDLCPU, 0};
static uint64_t rng_state;

static double rnd(void) { /* uniform in [-1, 1) */
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng_state >> 11) / (double)(1ull << 52) - 1.0;
}

static void store(tabi_tensor *t, int64_t i, double v) {
  char *p = tabi_tensor_data(t);
  switch (tabi_dtype_from_dl(t->dl.dtype)) {
    case TABI_DTYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
    case TABI_DTYPE_FLOAT64: ((double *)p)[i] = v; break;
    case TABI_DTYPE_FLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_f16((float)v); break;
    case TABI_DTYPE_BFLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_bf16((float)v); break;
    case TABI_DTYPE_INT64: ((int64_t *)p)[i] = (int64_t)(v * 1000); break;
    default: break;
  }
}

static double load(const tabi_tensor *t, int64_t i) {
  const char *p = tabi_tensor_data(t);
  switch (tabi_dtype_from_dl(t->dl.dtype)) {
    case TABI_DTYPE_FLOAT32: return ((const float *)p)[i];
    case TABI_DTYPE_FLOAT64: return ((const double *)p)[i];
    case TABI_DTYPE_FLOAT16: return tabi_f16_to_f32(((const uint16_t *)p)[i]);
    case TABI_DTYPE_BFLOAT16: return tabi_bf16_to_f32(((const uint16_t *)p)[i]);
    case TABI_DTYPE_INT64: return (double)((const int64_t *)p)[i];
    default: return NAN;
  }
}

/* A contiguous tensor filled from `seed` (values scale * [-1, 1) + shift; every
 * 97th a NaN when `nan`); transposed: a view with the last two dims swapped. */
static tabi_tensor *mk(tabi_runtime *rt, tabi_dtype dt, int32_t nd, const int64_t *shape, uint64_t seed,
                       double scale, double shift, int nan, int transposed) {
  int64_t sh[8], n = 1;
  for (int32_t i = 0; i < nd; i++) { sh[i] = shape[i]; n *= sh[i]; }
  if (transposed) { int64_t x = sh[nd - 1]; sh[nd - 1] = sh[nd - 2]; sh[nd - 2] = x; }
  tabi_tensor *t = NULL;
  if (tabi_tensor_empty(rt, cpu, dt, nd, sh, &t) != TABI_OK) return NULL;
  rng_state = seed;
  for (int64_t i = 0; i < n; i++) store(t, i, (nan && i % 97 == 5) ? NAN : rnd() * scale + shift);
  if (!transposed) return t;
  int64_t vs[8], vst[8];
  for (int32_t i = 0; i < nd; i++) { vs[i] = sh[i]; vst[i] = t->dl.strides[i]; }
  int64_t x = vs[nd - 1]; vs[nd - 1] = vs[nd - 2]; vs[nd - 2] = x;
  x = vst[nd - 1]; vst[nd - 1] = vst[nd - 2]; vst[nd - 2] = x;
  tabi_tensor *v = NULL;
  tabi_tensor_view(rt, t, nd, vs, vst, (int64_t)t->dl.byte_offset, &v);
  tabi_tensor_release(t);
  return v;
}

static void tol(tabi_dtype dt, double *rtol, double *atol) {
  switch (dt) {
    case TABI_DTYPE_FLOAT16: *rtol = 1e-3; *atol = 1e-5; break;
    case TABI_DTYPE_BFLOAT16: *rtol = 1.6e-2; *atol = 1e-5; break;
    case TABI_DTYPE_FLOAT32: *rtol = 1.3e-6; *atol = 1e-5; break;
    case TABI_DTYPE_FLOAT64: *rtol = 1e-7; *atol = 1e-7; break;
    default: *rtol = 0; *atol = 0; break;
  }
}

/* a (fast) vs b (reference): dtype, shape, values (contiguous outputs). */
static int same(const char *what, const tabi_tensor *a, const tabi_tensor *b, double scale) {
  if (!a || !b) {
    fprintf(stderr, "%s: missing output\n", what);
    return 0;
  }
  if (a->dl.ndim != b->dl.ndim || memcmp(&a->dl.dtype, &b->dl.dtype, sizeof a->dl.dtype) != 0) {
    fprintf(stderr, "%s: dtype or rank differs\n", what);
    return 0;
  }
  int64_t n = 1;
  for (int32_t i = 0; i < a->dl.ndim; i++) {
    if (a->dl.shape[i] != b->dl.shape[i]) { fprintf(stderr, "%s: shape differs\n", what); return 0; }
    n *= a->dl.shape[i];
  }
  double rtol, atol;
  tol(tabi_dtype_from_dl(a->dl.dtype), &rtol, &atol);
  for (int64_t i = 0; i < n; i++) {
    double x = load(a, i), y = load(b, i);
    if ((isnan(x) && isnan(y)) || x == y) continue;
    if (!isinf(y) && fabs(x - y) <= scale * (atol + rtol * fabs(y))) continue;
    fprintf(stderr, "%s: element %lld: fast %.9g, reference %.9g\n", what, (long long)i, x, y);
    return 0;
  }
  return 1;
}

static int timings;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static tabi_status call_op(tabi_runtime *rt, const char *name, tabi_value *args, int32_t nargs, tabi_value *outs,
                           int32_t nouts) {
  tabi_op op;
  for (int32_t i = 0; i < nouts; i++) outs[i] = tabi_none();
  tabi_status st = tabi_op_find(rt, name, &op);
  if (st == TABI_OK) st = tabi_call(rt, op, args, nargs, outs, nouts);
  return st;
}

/* Runs op on both runtimes with args built by `build` (same seeds) and
 * compares every output. */
typedef int32_t (*build_fn)(tabi_runtime *rt, const void *spec, tabi_value *args, tabi_tensor **owned);

static void diff(tabi_runtime *f, tabi_runtime *r, const char *op, build_fn build, const void *spec, int32_t nouts,
                 double scale, const char *label) {
  tabi_value af[12], ar[12], of[3], orf[3];
  tabi_tensor *ownf[12] = {0}, *ownr[12] = {0};
  int32_t na = build(f, spec, af, ownf);
  build(r, spec, ar, ownr);
  tabi_status sf = call_op(f, op, af, na, of, nouts);
  tabi_status sr = call_op(r, op, ar, na, orf, nouts);
  if (timings && sf == TABI_OK) { /* best of 3 more calls each (in-place stats drift: timing only) */
    double best[2] = {1e30, 1e30};
    for (int k = 0; k < 6; k++) {
      tabi_value o[3];
      double t0 = now();
      tabi_status st = call_op(k & 1 ? r : f, op, k & 1 ? ar : af, na, o, nouts);
      double t1 = now();
      if (t1 - t0 < best[k & 1]) best[k & 1] = t1 - t0;
      for (int32_t i = 0; st == TABI_OK && i < nouts; i++) tabi_value_release(&o[i]);
    }
    printf("%-42s %-40s fast %8.3f ms  ref %8.3f ms  x%.1f\n", op, label, 1e3 * best[0], 1e3 * best[1],
           best[1] / best[0]);
  }
  CHECK_MSG(sf == sr, "%s %s: status fast %d, reference %d (%s)", op, label, (int)sf, (int)sr, tabi_last_error());
  for (int32_t i = 0; sf == TABI_OK && sr == TABI_OK && i < nouts; i++) {
    char what[200];
    snprintf(what, sizeof what, "%s %s out %d", op, label, (int)i);
    CHECK_MSG(same(what, of[i].u.t, orf[i].u.t, scale), "%s", what);
  }
  /* in-place arguments (batch norm's running stats) must match afterwards */
  for (int32_t i = 0; sf == TABI_OK && !timings && i < 12 && ownf[i]; i++) {
    char what[200];
    snprintf(what, sizeof what, "%s %s input %d after the call", op, label, (int)i);
    CHECK_MSG(same(what, ownf[i], ownr[i], scale), "%s", what);
  }
  for (int32_t i = 0; i < nouts; i++) { tabi_value_release(&of[i]); tabi_value_release(&orf[i]); }
  for (int32_t i = 0; i < 12; i++) { tabi_tensor_release(ownf[i]); tabi_tensor_release(ownr[i]); }
}

/* --- cat ----------------------------------------------------------------------------- */

typedef struct cat_spec {
  int32_t n, nd;
  int64_t shape[8][4]; /* per input */
  tabi_dtype dt[8];
  int transposed[8];
  int64_t dim;
} cat_spec;

static tabi_tensor *cat_list[8]; /* per runtime call; diff builds one side at a time */
static tabi_tensor *cat_list_r[8];
static int cat_side;

static int32_t build_cat(tabi_runtime *rt, const void *p, tabi_value *args, tabi_tensor **owned) {
  const cat_spec *s = p;
  tabi_tensor **l = cat_side ? cat_list_r : cat_list;
  cat_side ^= 1;
  for (int32_t i = 0; i < s->n; i++) {
    int32_t nd = s->shape[i][0] == 0 && s->nd == 1 ? 1 : s->nd;
    l[i] = mk(rt, s->dt[i], nd, s->shape[i], 100 + (uint64_t)i, 3, 0, 1, s->transposed[i]);
    owned[i] = l[i];
  }
  args[0] = tabi_tensor_list(l, s->n);
  args[1] = tabi_int(s->dim);
  return 2;
}

static void cat_cases(tabi_runtime *f, tabi_runtime *r) {
  static const tabi_dtype dts[5] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT64,
                                    TABI_DTYPE_INT64};
  char label[128];
  for (int d = 0; d < 5; d++)
    for (int64_t dim = -1; dim < 3; dim++) {
      /* three inputs of [32, 64, 96] with the cat dim resized (one empty) */
      cat_spec s = {3, 3, {{32, 64, 96}, {32, 64, 96}, {32, 64, 96}}, {dts[d], dts[d], dts[d]}, {0}, dim};
      int32_t w = dim < 0 ? 2 : (int32_t)dim;
      s.shape[1][w] = 0;
      s.shape[2][w] = 17;
      snprintf(label, sizeof label, "%s dim %lld", tabi_dtype_name(dts[d]), (long long)dim);
      diff(f, r, "aten::cat", build_cat, &s, 1, 1, label);
      diff(f, r, "prims::cat", build_cat, &s, 1, 1, label);
    }
  /* big dim-0 slabs (one output row split over the threads) */
  cat_spec big = {2, 2, {{1000, 1000}, {700, 1000}}, {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT32}, {0}, 0};
  diff(f, r, "aten::cat", build_cat, &big, 1, 1, "f32 [1000,1000]+[700,1000] dim 0");
  cat_spec last = {4, 2, {{4000, 3}, {4000, 1}, {4000, 200}, {4000, 5}},
                   {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT32}, {0}, 1};
  diff(f, r, "aten::cat", build_cat, &last, 1, 1, "short slabs dim 1");
  /* handed back: mixed dtypes (promotion), strided views, aten's 1-D [0] skip,
   * errors (rank, sizes, dim out of range) */
  cat_spec mixed = {2, 2, {{300, 70}, {300, 70}}, {TABI_DTYPE_FLOAT16, TABI_DTYPE_FLOAT32}, {0}, 1};
  diff(f, r, "aten::cat", build_cat, &mixed, 1, 1, "f16 + f32 promotes");
  diff(f, r, "prims::cat", build_cat, &mixed, 1, 1, "f16 + f32 refused");
  cat_spec tr = {2, 2, {{300, 70}, {300, 70}}, {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT32}, {0, 1}, 0};
  diff(f, r, "aten::cat", build_cat, &tr, 1, 1, "transposed input");
  cat_spec skip = {2, 1, {{0}, {500}}, {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT32}, {0}, 0};
  diff(f, r, "aten::cat", build_cat, &skip, 1, 1, "1-D [0] input");
  cat_spec badsz = {2, 2, {{30, 70}, {31, 70}}, {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT32}, {0}, 1};
  diff(f, r, "aten::cat", build_cat, &badsz, 1, 1, "size mismatch");
  cat_spec baddim = {2, 2, {{30, 70}, {30, 70}}, {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT32}, {0}, 2};
  diff(f, r, "aten::cat", build_cat, &baddim, 1, 1, "dim out of range");
}

/* --- constant_pad_nd ---------------------------------------------------------------- */

typedef struct pad_spec {
  tabi_dtype dt;
  int32_t nd;
  int64_t shape[4];
  int64_t pad[8];
  int32_t np;
  tabi_value value;
  int transposed;
} pad_spec;

static int32_t build_pad(tabi_runtime *rt, const void *p, tabi_value *args, tabi_tensor **owned) {
  const pad_spec *s = p;
  owned[0] = mk(rt, s->dt, s->nd, s->shape, 7, 2, 0, 1, s->transposed);
  args[0] = tabi_tensor_value(owned[0]);
  args[1] = tabi_int_list(s->pad, s->np);
  args[2] = s->value;
  return 3;
}

static void pad_cases(tabi_runtime *f, tabi_runtime *r) {
  static const tabi_dtype dts[5] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT64,
                                    TABI_DTYPE_INT64};
  char label[128];
  for (int d = 0; d < 5; d++) {
    pad_spec a = {dts[d], 4, {8, 32, 66, 70}, {1, 2, 3, 4}, 4, tabi_float(0.1), 0};
    snprintf(label, sizeof label, "%s [8,32,66,70] (1,2,3,4) 0.1", tabi_dtype_name(dts[d]));
    diff(f, r, "aten::constant_pad_nd", build_pad, &a, 1, 1, label);
    pad_spec crop = {dts[d], 4, {8, 32, 66, 70}, {-3, 2, 0, -5, 1, -2}, 6, tabi_int(-7), 0};
    snprintf(label, sizeof label, "%s negative pads crop", tabi_dtype_name(dts[d]));
    diff(f, r, "aten::constant_pad_nd", build_pad, &crop, 1, 1, label);
  }
  pad_spec inf = {TABI_DTYPE_FLOAT32, 3, {64, 100, 100}, {5, 5}, 2, tabi_float(-INFINITY), 0};
  diff(f, r, "aten::constant_pad_nd", build_pad, &inf, 1, 1, "-inf, last dim only");
  pad_spec all = {TABI_DTYPE_FLOAT32, 2, {300, 40}, {-30, -20, 2, 2}, 4, tabi_float(3), 0};
  diff(f, r, "aten::constant_pad_nd", build_pad, &all, 1, 1, "row cropped away");
  pad_spec zero = {TABI_DTYPE_FLOAT32, 2, {30, 40}, {-40, 0}, 2, tabi_float(3), 0};
  diff(f, r, "aten::constant_pad_nd", build_pad, &zero, 1, 1, "cropped to empty");
  pad_spec tr = {TABI_DTYPE_FLOAT32, 2, {300, 40}, {1, 1, 1, 1}, 4, tabi_float(3), 1};
  diff(f, r, "aten::constant_pad_nd", build_pad, &tr, 1, 1, "transposed input");
  pad_spec odd = {TABI_DTYPE_FLOAT32, 2, {30, 40}, {1, 1, 1}, 3, tabi_float(3), 0};
  diff(f, r, "aten::constant_pad_nd", build_pad, &odd, 1, 1, "odd pad length");
  pad_spec neg = {TABI_DTYPE_FLOAT32, 2, {30, 40}, {-30, -20}, 2, tabi_float(3), 0};
  diff(f, r, "aten::constant_pad_nd", build_pad, &neg, 1, 1, "negative size");
  pad_spec intf = {TABI_DTYPE_INT64, 2, {30, 40}, {1, 1}, 2, tabi_float(2.5), 0};
  diff(f, r, "aten::constant_pad_nd", build_pad, &intf, 1, 1, "float value into int64");
  /* pads whose sum is small though each is huge: 3 + INT64_MIN + INT64_MAX = 2,
     4 + INT64_MIN + INT64_MAX = 3
     (a random call found od - pad overflowing here); every element is padding */
  pad_spec huge = {TABI_DTYPE_FLOAT32, 2, {4, 3}, {INT64_MIN, INT64_MAX, INT64_MIN, INT64_MAX}, 4, tabi_float(3), 0};
  diff(f, r, "aten::constant_pad_nd", build_pad, &huge, 1, 1, "INT64_MIN and INT64_MAX pads");
}

/* --- batch norm ------------------------------------------------------------------------ */

typedef struct bn_spec {
  int variant; /* 0 legit, 1 no_stats, 2 no_training */
  tabi_dtype dt, pdt;
  int32_t nd;
  int64_t shape[4];
  int affine, training;
  double shift; /* added to the input: a mean far from 0 */
} bn_spec;

static int32_t build_bn(tabi_runtime *rt, const void *p, tabi_value *args, tabi_tensor **owned) {
  const bn_spec *s = p;
  int64_t C = s->shape[1];
  owned[0] = mk(rt, s->dt, s->nd, s->shape, 11, 2, s->shift, 0, 0);
  args[0] = tabi_tensor_value(owned[0]);
  int32_t k = 1;
  if (s->affine) {
    owned[k++] = mk(rt, s->pdt, 1, &C, 12, 1, 1, 0, 0);
    owned[k++] = mk(rt, s->pdt, 1, &C, 13, 1, 0, 0, 0);
    args[1] = tabi_tensor_value(owned[1]);
    args[2] = tabi_tensor_value(owned[2]);
  } else {
    args[1] = tabi_none();
    args[2] = tabi_none();
  }
  int32_t a = 3;
  if (s->variant != 1) {
    owned[k] = mk(rt, s->pdt, 1, &C, 14, 0.5, 0, 0, 0);
    args[a++] = tabi_tensor_value(owned[k++]);
    owned[k] = mk(rt, s->pdt, 1, &C, 15, 0.4, 1, 0, 0); /* positive */
    args[a++] = tabi_tensor_value(owned[k++]);
  }
  if (s->variant != 2) args[a++] = tabi_bool(s->training);
  args[a++] = tabi_float(0.1);
  args[a++] = tabi_float(1e-5);
  return a;
}

static void bn_cases(tabi_runtime *f, tabi_runtime *r) {
  static const char *ops[3] = {"aten::_native_batch_norm_legit", "aten::_native_batch_norm_legit.no_stats",
                               "aten::_native_batch_norm_legit_no_training"};
  static const tabi_dtype dts[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT64};
  char label[160];
  for (int d = 0; d < 4; d++)
    for (int v = 0; v < 3; v++)
      for (int tr = 0; tr < 2; tr++) {
        if (v == 2 && tr) continue;
        bn_spec s = {v, dts[d], dts[d], 4, {16, 48, 20, 24}, 1, v == 2 ? 0 : tr, 0.5};
        snprintf(label, sizeof label, "%s [16,48,20,24] %s", tabi_dtype_name(dts[d]), s.training ? "train" : "eval");
        if (v == 1 && !s.training) { /* refused by both */
          diff(f, r, ops[v], build_bn, &s, 3, 1, "no_stats eval refused");
          continue;
        }
        diff(f, r, ops[v], build_bn, &s, 3, 4, label);
      }
  /* half input, float32 parameters (mixed: float32 statistics) */
  bn_spec mixed = {0, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT32, 3, {8, 33, 1000}, 1, 1, -2};
  diff(f, r, ops[0], build_bn, &mixed, 3, 4, "bf16 input, f32 params");
  mixed.dt = TABI_DTYPE_FLOAT16;
  diff(f, r, ops[0], build_bn, &mixed, 3, 4, "f16 input, f32 params");
  /* no affine, 2-D input, mean far from zero */
  bn_spec flat = {0, TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT32, 2, {4096, 64}, 0, 1, 100};
  diff(f, r, ops[0], build_bn, &flat, 3, 4, "[4096,64] no affine, mean 100");
  /* one value per channel: running_var gets 0/0 */
  bn_spec one = {0, TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT32, 2, {1, 64}, 1, 1, 0};
  diff(f, r, ops[0], build_bn, &one, 3, 4, "n = 1");
  /* handed back: parameter dtype mismatch (an error) */
  bn_spec bad = {0, TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, 3, {4, 8, 10}, 1, 1, 0};
  diff(f, r, ops[0], build_bn, &bad, 3, 4, "f64 params for f32 input");
  /* realistic timing sizes */
  bn_spec big = {0, TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT32, 4, {32, 64, 56, 56}, 1, 1, 0};
  diff(f, r, ops[0], build_bn, &big, 3, 4, "f32 [32,64,56,56] train");
  big.variant = 2;
  big.training = 0;
  diff(f, r, ops[2], build_bn, &big, 3, 4, "f32 [32,64,56,56] eval");
}

/* --- avg_pool2d ------------------------------------------------------------------------ */

typedef struct ap_spec {
  tabi_dtype dt;
  int32_t nd;
  int64_t shape[4];
  int64_t k[3], s[3], p[3];
  int32_t nk, ns, np;
  int ceil, include_pad;
  int64_t dov; /* 0: None */
  int transposed;
} ap_spec;

static int32_t build_ap(tabi_runtime *rt, const void *p, tabi_value *args, tabi_tensor **owned) {
  const ap_spec *s = p;
  owned[0] = mk(rt, s->dt, s->nd, s->shape, 21, 3, 0, 1, s->transposed);
  args[0] = tabi_tensor_value(owned[0]);
  args[1] = tabi_int_list(s->k, s->nk);
  args[2] = tabi_int_list(s->s, s->ns);
  args[3] = tabi_int_list(s->p, s->np);
  args[4] = tabi_bool(s->ceil);
  args[5] = tabi_bool(s->include_pad);
  args[6] = s->dov ? tabi_int(s->dov) : tabi_none();
  return 7;
}

static void ap_cases(tabi_runtime *f, tabi_runtime *r) {
  static const tabi_dtype dts[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT64};
  char label[160];
  for (int d = 0; d < 4; d++)
    for (int v = 0; v < 8; v++) {
      /* 3x3/2 pad 1 and 2x3/(1,2) pad (1,0), ceil_mode, count_include_pad, divisor_override */
      ap_spec s = {dts[d], 4, {4, 16, 37, 41}, {3, 3}, {2, 2}, {1, 1}, 1, 1, 1, v & 1, (v >> 1) & 1, 0, 0};
      if (v & 4) {
        s.k[1] = 3; s.k[0] = 2; s.s[0] = 1; s.s[1] = 2; s.p[0] = 1; s.p[1] = 0;
        s.nk = s.ns = s.np = 2;
        s.dov = v == 7 ? 5 : 0;
      }
      snprintf(label, sizeof label, "%s variant %d", tabi_dtype_name(dts[d]), v);
      diff(f, r, "aten::avg_pool2d", build_ap, &s, 1, 1, label);
    }
  ap_spec c3 = {TABI_DTYPE_FLOAT32, 3, {64, 56, 56}, {2, 2}, {0}, {0}, 1, 0, 1, 0, 1, 0, 0};
  diff(f, r, "aten::avg_pool2d", build_ap, &c3, 1, 1, "3-D, stride = kernel (empty list)");
  ap_spec tr = c3;
  tr.transposed = 1;
  diff(f, r, "aten::avg_pool2d", build_ap, &tr, 1, 1, "transposed input");
  ap_spec badp = c3;
  badp.p[0] = 2;
  diff(f, r, "aten::avg_pool2d", build_ap, &badp, 1, 1, "pad > kernel / 2");
  ap_spec d0 = c3;
  d0.nk = 3;
  diff(f, r, "aten::avg_pool2d", build_ap, &d0, 1, 1, "3 kernel values");
  ap_spec big = {TABI_DTYPE_FLOAT32, 4, {32, 64, 56, 56}, {3, 3}, {1, 1}, {1, 1}, 1, 1, 1, 0, 1, 0, 0};
  diff(f, r, "aten::avg_pool2d", build_ap, &big, 1, 1, "f32 [32,64,56,56] 3x3/1 pad 1");
}

/* avg_pool2d_backward: grad_output shaped as the forward's output on the same runtime */
static int32_t build_apb(tabi_runtime *rt, const void *p, tabi_value *args, tabi_tensor **owned) {
  const ap_spec *s = p;
  tabi_value fa[7], fo[1];
  tabi_tensor *fown[12] = {0};
  build_ap(rt, s, fa, fown);
  int64_t shape[4] = {1, 1, 1, 1};
  int32_t nd = s->nd;
  if (call_op(rt, "aten::avg_pool2d", fa, 7, fo, 1) == TABI_OK) {
    for (int32_t i = 0; i < nd; i++) shape[i] = fo[0].u.t->dl.shape[i];
    tabi_value_release(&fo[0]);
  }
  owned[0] = mk(rt, s->dt, nd, shape, 23, 2, 0, 0, 0);
  owned[1] = fown[0];
  args[0] = tabi_tensor_value(owned[0]);
  args[1] = fa[0];
  for (int32_t i = 1; i < 7; i++) args[i + 1] = fa[i];
  return 8;
}

static void apb_cases(tabi_runtime *f, tabi_runtime *r) {
  static const tabi_dtype dts[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT64};
  char label[160];
  for (int d = 0; d < 4; d++)
    for (int v = 0; v < 8; v++) {
      ap_spec s = {dts[d], 4, {4, 16, 37, 41}, {3, 3}, {2, 2}, {1, 1}, 1, 1, 1, v & 1, (v >> 1) & 1, 0, 0};
      if (v & 4) {
        s.k[1] = 3; s.k[0] = 2; s.s[0] = 1; s.s[1] = 2; s.p[0] = 1; s.p[1] = 0;
        s.nk = s.ns = s.np = 2;
        s.dov = v == 7 ? 5 : 0;
      }
      snprintf(label, sizeof label, "%s variant %d", tabi_dtype_name(dts[d]), v);
      diff(f, r, "aten::avg_pool2d_backward", build_apb, &s, 1, 1, label);
    }
  ap_spec c3 = {TABI_DTYPE_FLOAT32, 3, {64, 56, 56}, {2, 2}, {0}, {0}, 1, 0, 1, 0, 1, 0, 0};
  diff(f, r, "aten::avg_pool2d_backward", build_apb, &c3, 1, 1, "3-D, stride = kernel");
  ap_spec big = {TABI_DTYPE_FLOAT32, 4, {32, 64, 56, 56}, {3, 3}, {1, 1}, {1, 1}, 1, 1, 1, 0, 1, 0, 0};
  diff(f, r, "aten::avg_pool2d_backward", build_apb, &big, 1, 1, "f32 [32,64,56,56] 3x3/1 pad 1");
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CPU_PLUGIN REFERENCE_PLUGIN\n", argv[0]);
    return 2;
  }
  const char *tm = getenv("TABI_TEST_TIMINGS");
  timings = tm && tm[0] == '1';
  tabi_runtime *f = load_rt(argv[1], NULL), *r = load_rt(argv[2], NULL);
  CHECK(f && r);
  if (f && r) {
    cat_cases(f, r);
    pad_cases(f, r);
    bn_cases(f, r);
    ap_cases(f, r);
    apb_cases(f, r);
  }
  if (f) tabi_runtime_destroy(f);
  if (r) tabi_runtime_destroy(r);
  return check_report();
}
