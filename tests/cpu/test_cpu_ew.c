/* tests/cpu/test_cpu_ew.c: the CPU plugin's elementwise engine against the
 * reference, in one process (a runtime with libtabi_cpu.so, one with the
 * reference plugin, the same inputs into both).
 *
 *  - accuracy sweeps of the vector math: float32 inputs over the whole range
 *    (powers of two from 2^-149 to 2^127 and their neighbours, both signs, dense
 *    [-20, 20], NaN, +-inf, +-0, subnormals, the overflow edges of exp), checked
 *    with the float32 tolerances and, for exp/log/tanh/sigmoid and friends,
 *    against a bound in ulps;
 *  - float16/bfloat16/float64 versions of the same ops;
 *  - broadcasting (row and column bias, 0-d tensors, Scalars), strided views,
 *    every length 1..70 (vector tails), large threaded sizes;
 *  - comparisons, where, clamp, integer and bool ops.
 * The instruction set is the best the CPU has unless TABI_CPU_ISA caps it;
 * CTest runs this file three times (avx512, avx2, scalar).
 *
 * usage: test_cpu_ew CPU_PLUGIN REFERENCE_PLUGIN
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/half.h>
#include <tabi/runtime.h>

#include "check.h"
#include "cpu_rt.h"

static const DLDevice cpu = {kDLCPU, 0};
static tabi_runtime *fast_rt, *ref_rt;

/* --- tensors from doubles and back ----------------------------------------------- */

static void put(char *p, tabi_dtype dt, int64_t i, double v) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
    case TABI_DTYPE_FLOAT64: ((double *)p)[i] = v; break;
    case TABI_DTYPE_FLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_f16((float)v); break;
    case TABI_DTYPE_BFLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_bf16((float)v); break;
    case TABI_DTYPE_INT32: ((int32_t *)p)[i] = isfinite(v) ? (int32_t)fmod(v, 1e9) : 7; break;
    case TABI_DTYPE_INT64: ((int64_t *)p)[i] = isfinite(v) ? (int64_t)fmod(v, 1e15) : -7; break;
    case TABI_DTYPE_BOOL: ((uint8_t *)p)[i] = v > 0.5; break;
    default: break;
  }
}

static double get(const tabi_tensor *t, int64_t i) {
  const char *p = tabi_tensor_data(t);
  switch (tabi_dtype_from_dl(t->dl.dtype)) {
    case TABI_DTYPE_FLOAT32: return ((const float *)p)[i];
    case TABI_DTYPE_FLOAT64: return ((const double *)p)[i];
    case TABI_DTYPE_FLOAT16: return tabi_f16_to_f32(((const uint16_t *)p)[i]);
    case TABI_DTYPE_BFLOAT16: return tabi_bf16_to_f32(((const uint16_t *)p)[i]);
    case TABI_DTYPE_INT32: return ((const int32_t *)p)[i];
    case TABI_DTYPE_INT64: return (double)((const int64_t *)p)[i];
    case TABI_DTYPE_BOOL: return ((const uint8_t *)p)[i];
    default: return NAN;
  }
}

/* A contiguous tensor of `shape` from vals (cycled), in rt. transpose: a view of
 * the last two dims swapped (the data laid out for the swapped shape). */
static tabi_tensor *make(tabi_runtime *rt, tabi_dtype dt, int32_t nd, const int64_t *shape,
                         const double *vals, int64_t nv, int transpose) {
  int64_t sh[4], n = 1;
  for (int32_t i = 0; i < nd; i++) { sh[i] = shape[i]; n *= sh[i]; }
  if (transpose) { int64_t x = sh[nd - 1]; sh[nd - 1] = sh[nd - 2]; sh[nd - 2] = x; }
  tabi_tensor *t = NULL;
  if (tabi_tensor_empty(rt, cpu, dt, nd, sh, &t) != TABI_OK) return NULL;
  for (int64_t i = 0; i < n; i++) put(tabi_tensor_data(t), dt, i, vals[i % nv]);
  if (!transpose) return t;
  int64_t vs[4], vst[4];
  for (int32_t i = 0; i < nd; i++) { vs[i] = shape[i]; vst[i] = t->dl.strides[i]; }
  int64_t x = vst[nd - 1]; vst[nd - 1] = vst[nd - 2]; vst[nd - 2] = x;
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

static int64_t ulps(float a, float b) {
  int32_t ia, ib;
  memcpy(&ia, &a, 4);
  memcpy(&ib, &b, 4);
  int64_t x = ia < 0 ? (int64_t)INT32_MIN - ia : ia, y = ib < 0 ? (int64_t)INT32_MIN - ib : ib;
  return x > y ? x - y : y - x;
}

/* Tighter bounds than the tolerances, for ops whose fast kernel promises more
 * (set around one run2, then reset): |fast - ref| <= strict_abs + 2^-23 |ref|
 * (float32), and float16/bfloat16 results at most 1 ulp from the reference's
 * correctly rounded ones where |ref| >= strict_half_floor. Negative: off. */
static double strict_abs = -1, strict_half_floor = -1;

/* 1 when the plugin's elementwise engine runs its AVX-512 loops (the same choice
 * as cpu_ew_engine.c: TABI_CPU_ISA unset or "avx512", and the CPU has them). */
static int ew_avx512(void) {
  const char *cap = getenv("TABI_CPU_ISA");
  __builtin_cpu_init();
  return (!cap || strcmp(cap, "avx512") == 0) && __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("f16c");
}

/* Ulp distance of two float16 (h = 0) or bfloat16 (h = 1) values given as doubles. */
static int64_t half_ulps(double a, double b, int h) {
  uint16_t ua = h ? tabi_f32_to_bf16((float)a) : tabi_f32_to_f16((float)a);
  uint16_t ub = h ? tabi_f32_to_bf16((float)b) : tabi_f32_to_f16((float)b);
  int64_t x = ua & 0x8000 ? -(int64_t)(ua & 0x7fff) : ua, y = ub & 0x8000 ? -(int64_t)(ub & 0x7fff) : ub;
  return x > y ? x - y : y - x;
}

/* Compares fast vs reference outputs: shape, dtype, values in tolerance, NaN
 * where NaN, infinities exact; returns the largest ulp distance (float32). */
static int64_t compare(const char *what, const tabi_tensor *a, const tabi_tensor *b) {
  int64_t worst = 0;
  if (!a || !b) { CHECK_MSG(a == b, "%s: one side has no output", what); return 0; }
  CHECK_MSG(a->dl.ndim == b->dl.ndim && a->dl.dtype.code == b->dl.dtype.code &&
                a->dl.dtype.bits == b->dl.dtype.bits, "%s: rank or dtype differs", what);
  if (a->dl.ndim != b->dl.ndim) return 0;
  int64_t n = 1;
  for (int32_t i = 0; i < a->dl.ndim; i++) {
    CHECK_MSG(a->dl.shape[i] == b->dl.shape[i], "%s: shape differs at dim %d", what, (int)i);
    n *= b->dl.shape[i];
  }
  tabi_dtype dt = tabi_dtype_from_dl(b->dl.dtype);
  double rtol, atol;
  tol(dt, &rtol, &atol);
  int bad = 0;
  for (int64_t i = 0; i < n && bad < 3; i++) {
    double x = get(a, i), y = get(b, i);
    int ok = (isnan(x) && isnan(y)) || x == y ||
             (isfinite(x) && isfinite(y) && fabs(x - y) <= atol + rtol * fabs(y));
    if (!ok) {
      bad++;
      CHECK_MSG(ok, "%s: element %lld: fast %.9g, reference %.9g", what, (long long)i, x, y);
    }
    if (ok && strict_abs >= 0 && dt == TABI_DTYPE_FLOAT32 && isfinite(y) &&
        fabs(x - y) > strict_abs + ldexp(fabs(y), -23)) {
      bad++;
      CHECK_MSG(0, "%s: element %lld: fast %.9g, reference %.9g: beyond %.3g + 2^-23 |ref|",
                what, (long long)i, x, y, strict_abs);
    }
    if (ok && strict_half_floor >= 0 && isfinite(y) && fabs(y) >= strict_half_floor &&
        (dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16) &&
        half_ulps(x, y, dt == TABI_DTYPE_BFLOAT16) > 1) {
      bad++;
      CHECK_MSG(0, "%s: element %lld: fast %.9g, reference %.9g: more than 1 ulp apart", what,
                (long long)i, x, y);
    }
    if (dt == TABI_DTYPE_FLOAT32 && isfinite(y) && fabs(y) >= FLT_MIN && isfinite(x)) {
      int64_t u = ulps((float)x, (float)y);
      if (u > worst) worst = u;
    }
  }
  if (!bad) CHECK(1);
  return worst;
}

/* Runs op with args in both runtimes (tensor args made by the caller for each). */
typedef struct arg {
  int is_tensor;
  tabi_dtype dt;
  int32_t nd;
  int64_t shape[4];
  const double *vals;
  int64_t nv;
  int transpose;
  tabi_value v; /* when not a tensor */
} arg;

static int64_t run2(const char *op, const arg *args, int32_t nargs, const char *label) {
  tabi_value av[2][6], out[2] = {tabi_none(), tabi_none()};
  tabi_tensor *own[2][6] = {{0}};
  tabi_runtime *rts[2] = {fast_rt, ref_rt};
  tabi_status st[2];
  for (int r = 0; r < 2; r++) {
    for (int32_t i = 0; i < nargs; i++) {
      if (args[i].is_tensor) {
        own[r][i] = make(rts[r], args[i].dt, args[i].nd, args[i].shape, args[i].vals, args[i].nv,
                         args[i].transpose);
        av[r][i] = tabi_tensor_value(own[r][i]);
      } else {
        av[r][i] = args[i].v;
      }
    }
    tabi_op o;
    st[r] = tabi_op_find(rts[r], op, &o);
    if (st[r] == TABI_OK) st[r] = tabi_call(rts[r], o, av[r], nargs, &out[r], 1);
  }
  char what[200];
  snprintf(what, sizeof what, "%s %s", op, label);
  CHECK_MSG(st[0] == st[1], "%s: status fast %d, reference %d (%s)", what, (int)st[0], (int)st[1],
            tabi_last_error());
  int64_t worst = 0;
  if (st[0] == TABI_OK && st[1] == TABI_OK)
    worst = compare(what, out[0].tag == TABI_TAG_TENSOR ? out[0].u.t : NULL,
                    out[1].tag == TABI_TAG_TENSOR ? out[1].u.t : NULL);
  for (int r = 0; r < 2; r++) {
    tabi_value_release(&out[r]);
    for (int32_t i = 0; i < nargs; i++)
      if (own[r][i]) tabi_tensor_release(own[r][i]);
  }
  return worst;
}

static arg T(tabi_dtype dt, int32_t nd, int64_t d0, int64_t d1, const double *vals, int64_t nv) {
  arg a;
  memset(&a, 0, sizeof a);
  a.is_tensor = 1;
  a.dt = dt;
  a.nd = nd;
  a.shape[0] = d0;
  a.shape[1] = d1;
  a.vals = vals;
  a.nv = nv;
  return a;
}
static arg V(tabi_value v) {
  arg a;
  memset(&a, 0, sizeof a);
  a.v = v;
  return a;
}

/* --- inputs ------------------------------------------------------------------------ */

static double *sweep;
static int64_t nsweep;

/* Every float32 power of two with neighbours, both signs, a dense [-20, 20], specials. */
static void make_sweep(void) {
  sweep = malloc(sizeof(double) * 200000);
  int64_t n = 0;
  static const double sp[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 88.72283f, 88.72284f,
                              -87.33654f, -103.97208f, -104.0f, 89.0f, 1e-45, -1e-45,
                              1.17549435e-38, FLT_MAX, -FLT_MAX, 8192.0f, 8193.0f, 1e6f, -3e7f,
                              1.5707963f, 3.1415927f, 0.625f, 0.5f, -0.5f, 0.34657359f};
  for (size_t i = 0; i < sizeof sp / sizeof *sp; i++) sweep[n++] = sp[i];
  for (int e = -149; e <= 127; e++) {
    float p = ldexpf(1.0f, e);
    float v[3] = {p, nextafterf(p, 0.0f), nextafterf(p, INFINITY)};
    for (int k = 0; k < 3; k++) { sweep[n++] = v[k]; sweep[n++] = -v[k]; }
  }
  for (int i = 0; i < 150000; i++) sweep[n++] = -20.0 + 40.0 * (double)i / 150000.0;
  nsweep = n;
}

/* --- cases -------------------------------------------------------------------------- */

static const tabi_dtype fdts[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16,
                                   TABI_DTYPE_FLOAT64};

static void unary_accuracy(void) {
  /* op, largest float32 ulp distance allowed where |result| >= FLT_MIN */
  static const struct { const char *op; int64_t ulp; } ops[] = {
      {"aten::exp", 2}, {"prims::exp2", 2}, {"aten::expm1", 3}, {"aten::log", 2},
      {"aten::log2", 3}, {"aten::log10", 3}, {"aten::log1p", 3}, {"aten::tanh", 3},
      {"aten::sigmoid", 3}, {"aten::sqrt", 1}, {"aten::rsqrt", 2}, {"aten::reciprocal", 1},
      {"aten::sin", -1}, {"aten::cos", -1}, {"aten::tan", -1}, {"aten::erf", -1},
      {"prims::erfc", -1}, {"aten::neg", 0}, {"aten::abs", 0}, {"aten::relu", 0},
      {"aten::floor", 0}, {"aten::ceil", 0}, {"aten::round", 0}, {"aten::trunc", 0},
      {"aten::sign", 0}, {"aten::asin", 0}, {"aten::atanh", 0}, {"aten::isnan", -1},
      {"aten::isinf", -1}, {"prims::isfinite", -1}, {"prims::signbit", -1},
      {"aten::logical_not", -1}, {"prims::lgamma", 0}};
  for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
    for (int d = 0; d < 4; d++) {
      arg a = T(fdts[d], 1, nsweep, 0, sweep, nsweep);
      int64_t w = run2(ops[k].op, &a, 1, tabi_dtype_name(fdts[d]));
      if (fdts[d] == TABI_DTYPE_FLOAT32 && ops[k].ulp >= 0)
        CHECK_MSG(w <= ops[k].ulp, "%s float32: %lld ulp (allowed %lld)", ops[k].op,
                  (long long)w, (long long)ops[k].ulp);
    }
  static const char *modes[2] = {"none", "tanh"};
  for (int m = 0; m < 2; m++)
    for (int d = 0; d < 4; d++) {
      arg a[2] = {T(fdts[d], 1, nsweep, 0, sweep, nsweep), V(tabi_string(modes[m], 4))};
      /* float32 erf gelu on AVX-512 (the table kernel): |error| <= 2e-8 plus rounding */
      if (m == 0 && fdts[d] == TABI_DTYPE_FLOAT32 && ew_avx512()) strict_abs = 2e-8;
      run2("aten::gelu", a, 2, modes[m]);
      strict_abs = -1;
    }
  /* every float16 and bfloat16 value (exp has its own polynomial for them) */
  static double all[65536];
  for (int h = 0; h < 2; h++) {
    tabi_dtype dt = h ? TABI_DTYPE_BFLOAT16 : TABI_DTYPE_FLOAT16;
    for (int i = 0; i < 65536; i++)
      all[i] = h ? tabi_bf16_to_f32((uint16_t)i) : tabi_f16_to_f32((uint16_t)i);
    arg a[2] = {T(dt, 1, 65536, 0, all, 65536), V(tabi_string("none", 4))};
    /* exp in the half types on AVX-512: within 1 ulp of the correctly rounded result */
    if (ew_avx512()) strict_half_floor = 0;
    run2("aten::exp", a, 1, h ? "every bfloat16" : "every float16");
    run2("prims::exp", a, 1, h ? "every bfloat16" : "every float16");
    strict_half_floor = -1;
    /* gelu in the half types on AVX-512: within 1 ulp of the correctly rounded
     * result, except results below 3.3e-9 in size (x < -6.1), which may be -0.0 */
    if (ew_avx512()) strict_half_floor = 3.3e-9;
    run2("aten::gelu", a, 2, h ? "every bfloat16" : "every float16");
    strict_half_floor = -1;
  }
}

static const double mix[] = {1.5, -2.25, 0.0, -0.0, 3.0, NAN, 7.0, -1e-3, INFINITY, 2.0,
                             -INFINITY, 0.75, 1e30, -5.0, 0.5, 1.0, 100.0};
#define NMIX ((int64_t)(sizeof mix / sizeof *mix))
static const double mix2[] = {2.0, 0.5, -3.0, 1.5, 0.0, -0.0, 4.0, 1.0, NAN, -7.0, 3.0};
#define NMIX2 ((int64_t)(sizeof mix2 / sizeof *mix2))

static void binary_cases(void) {
  static const char *ops[] = {"aten::add.Tensor", "aten::sub.Tensor", "aten::mul.Tensor",
                              "aten::div.Tensor", "aten::maximum", "aten::minimum",
                              "aten::eq.Tensor", "aten::ne.Tensor", "aten::lt.Tensor",
                              "aten::le.Tensor", "aten::gt.Tensor", "aten::ge.Tensor",
                              "aten::logical_and", "aten::logical_or", "aten::logical_xor",
                              "aten::atan2", "aten::pow.Tensor_Tensor", "aten::fmod.Tensor",
                              "aten::remainder.Tensor"};
  static const tabi_dtype dts[6] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16,
                                    TABI_DTYPE_FLOAT64, TABI_DTYPE_INT32, TABI_DTYPE_INT64};
  /* shapes: same, row bias [64], column [256, 1], 0-d, transposed, threaded, tails */
  for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
    for (int d = 0; d < 6; d++) {
      int alpha = k < 2;
      tabi_value al = tabi_float(0.5);
      if (d >= 4) al = tabi_int(3);
      char lab[96];
      arg a[3] = {T(dts[d], 2, 256, 64, mix, NMIX), T(dts[d], 2, 256, 64, mix2, NMIX2), V(al)};
      snprintf(lab, sizeof lab, "%s same", tabi_dtype_name(dts[d]));
      run2(ops[k], a, alpha ? 3 : 2, lab);
      a[1] = T(dts[d], 1, 64, 0, mix2, NMIX2);
      snprintf(lab, sizeof lab, "%s row bias", tabi_dtype_name(dts[d]));
      run2(ops[k], a, alpha ? 3 : 2, lab);
      a[1] = T(dts[d], 2, 256, 1, mix2, NMIX2);
      snprintf(lab, sizeof lab, "%s column", tabi_dtype_name(dts[d]));
      run2(ops[k], a, alpha ? 3 : 2, lab);
      a[1] = T(dts[d], 0, 0, 0, mix2, NMIX2);
      snprintf(lab, sizeof lab, "%s 0-d", tabi_dtype_name(dts[d]));
      run2(ops[k], a, alpha ? 3 : 2, lab);
      a[0] = T(dts[d], 0, 0, 0, mix + 4, 1);
      a[1] = T(dts[d], 2, 33, 7, mix2, NMIX2);
      snprintf(lab, sizeof lab, "%s 0-d first", tabi_dtype_name(dts[d]));
      run2(ops[k], a, alpha ? 3 : 2, lab);
      a[0] = T(dts[d], 2, 300, 129, mix, NMIX);
      a[0].transpose = 1;
      a[1] = T(dts[d], 2, 300, 129, mix2, NMIX2);
      snprintf(lab, sizeof lab, "%s transposed", tabi_dtype_name(dts[d]));
      run2(ops[k], a, alpha ? 3 : 2, lab);
      a[0] = T(dts[d], 1, 1000003, 0, mix, NMIX);
      a[1] = T(dts[d], 1, 1000003, 0, mix2, NMIX2);
      snprintf(lab, sizeof lab, "%s threaded", tabi_dtype_name(dts[d]));
      run2(ops[k], a, alpha ? 3 : 2, lab);
      for (int64_t n = 1; n <= 70; n += 3) {
        a[0] = T(dts[d], 1, n, 0, mix, NMIX);
        a[1] = T(dts[d], 1, n, 0, mix2, NMIX2);
        snprintf(lab, sizeof lab, "%s length %lld", tabi_dtype_name(dts[d]), (long long)n);
        run2(ops[k], a, alpha ? 3 : 2, lab);
      }
    }
  /* Scalar operands: float and int Scalars into every dtype (promotion included) */
  static const char *sops[] = {"aten::add.Scalar", "aten::sub.Scalar", "aten::mul.Scalar",
                               "aten::div.Scalar", "aten::gt.Scalar", "aten::le.Scalar",
                               "aten::eq.Scalar", "aten::ne.Scalar", "aten::pow.Tensor_Scalar"};
  tabi_value svals[6] = {tabi_float(0.1), tabi_int(2), tabi_float(-2.5), tabi_int(-1),
                         tabi_float(0.5), tabi_bool(1)};
  for (size_t k = 0; k < sizeof sops / sizeof *sops; k++)
    for (int d = 0; d < 6; d++)
      for (int s = 0; s < 6; s++) {
        arg a[3] = {T(dts[d], 2, 37, 41, mix, NMIX), V(svals[s]), V(tabi_int(1))};
        int alpha = k < 2;
        char lab[96];
        snprintf(lab, sizeof lab, "%s scalar %d", tabi_dtype_name(dts[d]), s);
        run2(sops[k], a, alpha ? 3 : 2, lab);
      }
  /* exponents with ATen's special cases, and past float32's range (ATen takes a
     float32 tensor's exponent as a double: inf or 0, while a half's must fit) */
  double ex[] = {0, 1, 0.5, -0.5, -1, 2, 3, -2, 1.7, 1e308, -1e308, 1e39};
  for (size_t k = 0; k < sizeof ex / sizeof *ex; k++)
    for (int d = 0; d < 4; d++) {
      arg a[2] = {T(fdts[d], 1, 5000, 0, sweep + 26, 3000), V(tabi_float(ex[k]))};
      run2("aten::pow.Tensor_Scalar", a, 2, tabi_dtype_name(fdts[d]));
    }
}

static void other_cases(void) {
  static const double cond[] = {1, 0, 0, 1, 1, 0, 1};
  static const tabi_dtype dts[6] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16,
                                    TABI_DTYPE_FLOAT64, TABI_DTYPE_INT32, TABI_DTYPE_BOOL};
  for (int d = 0; d < 6; d++) {
    const char *nm = tabi_dtype_name(dts[d]);
    arg a[3] = {T(TABI_DTYPE_BOOL, 2, 256, 64, cond, 7), T(dts[d], 2, 256, 64, mix, NMIX),
                T(dts[d], 0, 0, 0, mix2, 1)};
    run2("aten::where.self", a, 3, nm); /* relu backward: where(mask, grad, 0) */
    a[0] = T(TABI_DTYPE_BOOL, 2, 256, 1, cond, 7);
    a[2] = T(dts[d], 1, 64, 0, mix2, NMIX2);
    run2("aten::where.self", a, 3, nm);
    a[0] = T(TABI_DTYPE_BOOL, 2, 300, 129, cond, 7);
    a[0].transpose = 1;
    a[1] = T(dts[d], 2, 300, 129, mix, NMIX);
    a[2] = T(dts[d], 2, 300, 129, mix2, NMIX2);
    run2("aten::where.self", a, 3, nm);
    run2("prims::where", a, 3, nm);
    a[1] = T(TABI_DTYPE_FLOAT32, 2, 300, 129, mix, NMIX); /* promotion: reference */
    run2("aten::where.self", a, 3, nm);
  }
  tabi_value bounds[4][2] = {{tabi_float(-1.0), tabi_float(2.0)}, {tabi_none(), tabi_float(0.5)},
                             {tabi_int(-3), tabi_none()}, {tabi_float(3.0), tabi_float(-3.0)}};
  for (int d = 0; d < 6; d++)
    for (int b = 0; b < 4; b++) {
      arg a[3] = {T(dts[d], 2, 129, 77, mix, NMIX), V(bounds[b][0]), V(bounds[b][1])};
      run2("aten::clamp", a, 3, tabi_dtype_name(dts[d]));
      if (b == 0) run2("aten::hardtanh", a, 3, tabi_dtype_name(dts[d]));
    }
  for (int d = 0; d < 4; d++) {
    arg a[2] = {T(fdts[d], 2, 129, 77, mix, NMIX), V(tabi_float(0.01))};
    run2("aten::leaky_relu", a, 2, tabi_dtype_name(fdts[d]));
  }
  static const char *modes[2] = {"trunc", "floor"};
  for (int d = 0; d < 6; d++)
    for (int m = 0; m < 2; m++) {
      arg a[3] = {T(dts[d], 2, 129, 77, mix, NMIX), T(dts[d], 1, 77, 0, mix2, NMIX2),
                  V(tabi_string(modes[m], 5))};
      run2("aten::div.Tensor_mode", a, 3, tabi_dtype_name(dts[d]));
      a[1] = V(tabi_float(-0.75));
      run2("aten::div.Scalar_mode", a, 3, tabi_dtype_name(dts[d]));
    }
  /* promotion of dimensioned operands (cast on the fly) */
  static const struct { tabi_dtype a, b; } pro[] = {
      {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16}, {TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT16},
      {TABI_DTYPE_INT32, TABI_DTYPE_FLOAT32}, {TABI_DTYPE_INT64, TABI_DTYPE_BFLOAT16},
      {TABI_DTYPE_BOOL, TABI_DTYPE_FLOAT64}, {TABI_DTYPE_INT32, TABI_DTYPE_INT64},
      {TABI_DTYPE_BOOL, TABI_DTYPE_INT32}, {TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT32}};
  static const char *pops[] = {"aten::add.Tensor", "aten::mul.Tensor", "aten::div.Tensor",
                               "aten::eq.Tensor", "aten::gt.Tensor", "aten::maximum",
                               "aten::atan2"};
  static const double ints[] = {16777217.0, -3, 7, 0, 1, 100000001.0, -16777219.0};
  for (size_t k = 0; k < sizeof pops / sizeof *pops; k++)
    for (size_t q = 0; q < sizeof pro / sizeof *pro; q++) {
      char lab[96];
      snprintf(lab, sizeof lab, "%s with %s", tabi_dtype_name(pro[q].a), tabi_dtype_name(pro[q].b));
      arg a[3] = {T(pro[q].a, 2, 129, 77, ints, 7), T(pro[q].b, 1, 77, 0, mix, NMIX), V(tabi_int(2))};
      run2(pops[k], a, k == 0 ? 3 : 2, lab);
      a[0].transpose = 1;
      run2(pops[k], a, k == 0 ? 3 : 2, lab);
      arg c[2] = {T(pro[q].a, 1, 1000, 0, ints, 7), V(tabi_float(0.25))};
      run2(k == 1 ? "aten::mul.Scalar" : "aten::add.Scalar", c, 2, lab);
    }
  /* float functions of bool/integer tensors compute in float32 */
  static const char *tfops[] = {"aten::exp", "aten::sin", "aten::sqrt", "aten::sigmoid",
                                "aten::erf", "aten::log1p", "aten::asinh", "aten::tanh"};
  static const tabi_dtype tfd[3] = {TABI_DTYPE_INT32, TABI_DTYPE_INT64, TABI_DTYPE_BOOL};
  for (size_t k = 0; k < sizeof tfops / sizeof *tfops; k++)
    for (int d = 0; d < 3; d++) {
      arg a = T(tfd[d], 2, 129, 77, ints, 7);
      run2(tfops[k], &a, 1, tabi_dtype_name(tfd[d]));
    }
  /* integer and bool ops */
  static const char *iops[] = {"aten::bitwise_and.Tensor", "aten::bitwise_or.Tensor",
                               "aten::bitwise_xor.Tensor", "aten::maximum", "aten::mul.Tensor",
                               "aten::add.Tensor", "aten::logical_and", "aten::eq.Tensor"};
  static const tabi_dtype its[3] = {TABI_DTYPE_INT32, TABI_DTYPE_INT64, TABI_DTYPE_BOOL};
  static const double big[] = {2147483647.0, -5, 1e9 - 1, 3, -2147483648.0, 0, 1};
  for (size_t k = 0; k < sizeof iops / sizeof *iops; k++)
    for (int d = 0; d < 3; d++) {
      arg a[2] = {T(its[d], 2, 100, 31, big, 7), T(its[d], 1, 31, 0, mix, NMIX)};
      run2(iops[k], a, 2, tabi_dtype_name(its[d]));
    }
  static const char *iun[] = {"aten::neg", "aten::abs", "aten::bitwise_not", "aten::sign",
                              "aten::logical_not", "aten::relu", "aten::isnan"};
  for (size_t k = 0; k < sizeof iun / sizeof *iun; k++)
    for (int d = 0; d < 3; d++) {
      arg a = T(its[d], 2, 100, 31, big, 7);
      run2(iun[k], &a, 1, tabi_dtype_name(its[d]));
    }
  /* errors keep the reference's status: sub of bools, int alpha float */
  arg e[3] = {T(TABI_DTYPE_BOOL, 1, 5, 0, cond, 7), T(TABI_DTYPE_BOOL, 1, 5, 0, cond, 7),
              V(tabi_int(1))};
  run2("aten::sub.Tensor", e, 3, "bool");
  e[0] = T(TABI_DTYPE_INT32, 1, 5, 0, mix, NMIX);
  e[1] = T(TABI_DTYPE_INT32, 1, 5, 0, mix, NMIX);
  e[2] = V(tabi_float(0.5));
  run2("aten::add.Tensor", e, 3, "int with float alpha");
  e[0] = T(TABI_DTYPE_FLOAT16, 1, 5, 0, mix, NMIX);
  e[1] = V(tabi_float(1e10));
  run2("aten::clamp", e, 2, "bound out of float16's range");
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CPU_PLUGIN REFERENCE_PLUGIN\n", argv[0]);
    return 2;
  }
  setenv("TABI_NUM_THREADS", "2", 1);
  fast_rt = load_rt(argv[1], NULL);
  ref_rt = load_rt(argv[2], NULL);
  CHECK(fast_rt != NULL && ref_rt != NULL);
  if (!fast_rt || !ref_rt) return check_report();
  make_sweep();
  unary_accuracy();
  binary_cases();
  other_cases();
  free(sweep);
  tabi_runtime_destroy(fast_rt);
  tabi_runtime_destroy(ref_rt);
  return check_report();
}
