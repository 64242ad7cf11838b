/* tests/cpu/test_cpu_ew2.c: the CPU plugin's elu, clamp.Tensor, pow.Scalar,
 * atan2.out, prims gcd / shift_left / shift_right_arithmetic / nextafter /
 * igamma / igammac / zeta / conj_physical / real / imag (cpu_elementwise2.c),
 * prod / prod.dim_int / prims::prod (cpu_reduce_prod.c) and native_dropout
 * (cpu_misc_dropout.c) against the reference kernels: the same inputs go into a
 * runtime with libtabi_cpu.so and one with the reference plugin.
 *
 * Float outputs compare with shared/spec/tolerances.md (cpu_harness.h's
 * same()), integer and bool outputs and dropout (the reference's Philox
 * stream) byte for byte. Inputs: sizes past every threading grain (77100
 * elements), transposed views, row / column / 0-d broadcasting, NaN, +-inf,
 * -0.0, huge and tiny values, INT_MIN and -1 for gcd, shift counts below 0 and
 * at or past the width; products long enough to overflow to inf or underflow
 * to 0 part-way (which only the reference's multiplication order reproduces);
 * argument errors (the reference's status). Then 1 vs 3 threads bitwise in
 * deterministic mode. CTest runs it once per instruction set.
 * TABI_TEST_TIMINGS=1 also prints the time of each op on 1e7 elements, fast
 * kernel vs reference kernel (wall clock, default thread count).
 *
 * usage: test_cpu_ew2 CPU_PLUGIN REFERENCE_PLUGIN
 */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "cpu_harness.h"

#define NV 77100 /* 300 x 257 */
#define MAXA 6

/* One argument: a Scalar / other value, or a tensor made from `vals` (cycled;
 * complex: consecutive values as (re, im)), optionally a transposed view; `out`
 * names a tensor that is the same object as argument `alias` (atan2.out). */
typedef struct targ {
  int is_t;
  tabi_value v;
  tabi_dtype dt;
  int32_t nd;
  int64_t shape[4];
  const double *vals;
  int64_t nv;
  int tr;
  int alias; /* >= 0: this argument is the tensor of argument `alias` */
} targ;

static double rv[NV], pv[NV], sv[NV], iv[NV], shv[NV], near1[NV], ordv[NV];

static void put(char *p, tabi_dtype dt, int64_t i, const double *vals, int64_t nv) {
  double v = vals[i % nv];
  int64_t k = isfinite(v) ? (int64_t)v : 0;
  switch (dt) {
    case TABI_DTYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
    case TABI_DTYPE_FLOAT64: ((double *)p)[i] = v; break;
    case TABI_DTYPE_FLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_f16((float)v); break;
    case TABI_DTYPE_BFLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_bf16((float)v); break;
    case TABI_DTYPE_COMPLEX64:
      ((float *)p)[2 * i] = (float)v;
      ((float *)p)[2 * i + 1] = (float)vals[(i + 1) % nv];
      break;
    case TABI_DTYPE_COMPLEX128:
      ((double *)p)[2 * i] = v;
      ((double *)p)[2 * i + 1] = vals[(i + 1) % nv];
      break;
    case TABI_DTYPE_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    case TABI_DTYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)(uint64_t)k; break;
    case TABI_DTYPE_INT8: ((int8_t *)p)[i] = (int8_t)k; break;
    case TABI_DTYPE_INT16: ((int16_t *)p)[i] = (int16_t)k; break;
    case TABI_DTYPE_INT32: ((int32_t *)p)[i] = (int32_t)k; break;
    default: ((int64_t *)p)[i] = k; break;
  }
}

static tabi_tensor *mkt(tabi_runtime *rt, const targ *a) {
  int64_t sh[4] = {1, 1, 1, 1}, n = 1;
  for (int32_t i = 0; i < a->nd; i++) { sh[i] = a->shape[i]; n *= sh[i]; }
  int tr = a->tr && a->nd >= 2;
  if (tr) { int64_t x = sh[a->nd - 1]; sh[a->nd - 1] = sh[a->nd - 2]; sh[a->nd - 2] = x; }
  tabi_tensor *t = NULL;
  if (tabi_tensor_empty(rt, cpu, a->dt, a->nd, sh, &t) != TABI_OK) return NULL;
  for (int64_t i = 0; i < n; i++) put(tabi_tensor_data(t), a->dt, i, a->vals, a->nv);
  if (!tr) return t;
  int64_t vs[4], vst[4];
  for (int32_t i = 0; i < a->nd; i++) { vs[i] = sh[i]; vst[i] = t->dl.strides[i]; }
  int32_t p = a->nd - 2, q = a->nd - 1;
  int64_t x = vs[p]; vs[p] = vs[q]; vs[q] = x;
  x = vst[p]; vst[p] = vst[q]; vst[q] = x;
  tabi_tensor *v = NULL;
  tabi_tensor_view(rt, t, a->nd, vs, vst, (int64_t)t->dl.byte_offset, &v);
  tabi_tensor_release(t);
  return v;
}

static tabi_status call(tabi_runtime *rt, const char *opn, const targ *a, int32_t nargs,
                        tabi_value *outs, int32_t nouts) {
  tabi_value args[MAXA];
  tabi_tensor *own[MAXA] = {0};
  for (int32_t i = 0; i < MAXA; i++) args[i] = tabi_none();
  for (int32_t i = 0; i < nargs; i++) {
    if (a[i].alias >= 0) {
      args[i] = args[a[i].alias];
    } else if (a[i].is_t) {
      own[i] = mkt(rt, &a[i]);
      args[i] = tabi_tensor_value(own[i]);
    } else {
      args[i] = a[i].v;
    }
  }
  for (int32_t i = 0; i < nouts; i++) outs[i] = tabi_none();
  tabi_op op;
  tabi_status st = tabi_op_find(rt, opn, &op);
  if (st == TABI_OK) st = tabi_call(rt, op, args, nargs, outs, nouts);
  for (int32_t i = 0; i < nargs; i++)
    if (own[i]) tabi_tensor_release(own[i]);
  return st;
}

/* Outputs equal: floats within tolerance (same()), other dtypes byte for byte. */
static int equal_out(const char *what, const tabi_tensor *x, const tabi_tensor *y, int bits) {
  if (!x || !y) return x == y;
  tabi_dtype dt = tabi_dtype_from_dl(y->dl.dtype);
  if (!bits && (tabi_dtype_is_floating(dt) || tabi_dtype_is_complex(dt))) return same(what, x, y, 1);
  if (x->dl.ndim != y->dl.ndim || memcmp(&x->dl.dtype, &y->dl.dtype, sizeof x->dl.dtype) != 0)
    return 0;
  int64_t n = 1;
  for (int32_t d = 0; d < x->dl.ndim; d++) {
    if (x->dl.shape[d] != y->dl.shape[d]) return 0;
    if (x->dl.shape[d] > 1 && x->dl.strides[d] != y->dl.strides[d]) return 0;
    n *= x->dl.shape[d];
  }
  if (memcmp(tabi_tensor_data(x), tabi_tensor_data(y), (size_t)n * tabi_dtype_size(dt)) != 0) {
    fprintf(stderr, "%s: bytes differ\n", what);
    return 0;
  }
  return 1;
}

/* fast vs reference (bits: byte equality for every output) */
static void cmp(tabi_runtime *f, tabi_runtime *r, const char *op, const targ *a, int32_t nargs,
                int32_t nouts, int bits, const char *label) {
  tabi_value x[3], y[3];
  tabi_runtime_manual_seed(f, cpu, 77);
  tabi_runtime_manual_seed(r, cpu, 77);
  tabi_status sx = call(f, op, a, nargs, x, nouts), sy = call(r, op, a, nargs, y, nouts);
  CHECK_MSG(sx == sy, "%s %s: status fast %d, reference %d (%s)", op, label, (int)sx, (int)sy,
            tabi_last_error());
  for (int32_t i = 0; sx == TABI_OK && sy == TABI_OK && i < nouts; i++) {
    char what[200];
    snprintf(what, sizeof what, "%s %s out %d", op, label, (int)i);
    CHECK_MSG(equal_out(what, x[i].tag == TABI_TAG_TENSOR ? x[i].u.t : NULL,
                        y[i].tag == TABI_TAG_TENSOR ? y[i].u.t : NULL, bits), "%s", what);
  }
  for (int32_t i = 0; i < nouts; i++) { tabi_value_release(&x[i]); tabi_value_release(&y[i]); }
}

static targ T(tabi_dtype dt, int32_t nd, int64_t s0, int64_t s1, const double *vals, int tr) {
  targ a = {1, {0}, dt, nd, {s0, s1, 1, 1}, vals, NV, tr, -1};
  return a;
}
static targ V(tabi_value v) {
  targ a = {0, v, TABI_DTYPE_FLOAT32, 0, {0}, NULL, 0, 0, -1};
  return a;
}
static targ ALIAS(int k) {
  targ a = {0, {0}, TABI_DTYPE_FLOAT32, 0, {0}, NULL, 0, 0, k};
  return a;
}
#define NONE_ARG V(tabi_none())

static const tabi_dtype FD[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16,
                                 TABI_DTYPE_BFLOAT16};
static const tabi_dtype ID[5] = {TABI_DTYPE_INT8, TABI_DTYPE_INT16, TABI_DTYPE_INT32,
                                 TABI_DTYPE_INT64, TABI_DTYPE_UINT8};

/* --- inputs ------------------------------------------------------------------------- */

static void fill_inputs(void) {
  static const double spec[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, 1e30, -1e-30, 88.9,
                                -104.5, 1e-40, -3e38, 65504.0};
  static const double ints[] = {0, 1, -1, 2, -2, 127, -128, 255, 32767, -32768, 2147483647.0,
                                -2147483648.0, 12, 18, -36, 1e15, -9.2e18, 7,
                                -9223372036854775808.0};
  static const double shifts[] = {-1, 0, 1, 3, 7, 8, 15, 16, 31, 32, 63, 64, 100, -64};
  rng_state = 12345;
  for (int64_t i = 0; i < NV; i++) {
    double u = rnd();
    rv[i] = u * 6.0;                                  /* [-6, 6) */
    sv[i] = (i % 5 == 2) ? spec[(i / 5) % 12] : u * 6.0; /* with specials */
    pv[i] = fabs(u) * 8.0 + ((i % 11 == 0) ? 0.0 : 0.01); /* >= 0, zeros */
    iv[i] = (i % 3 == 0) ? ints[(i / 3) % 19] : floor(u * 1000.0);
    shv[i] = shifts[i % 14];
    near1[i] = 1.0 + u * 1e-3;                        /* products that stay finite */
    /* [300, 257] rows and columns: 1e-30 then 1e30 factors (or the reverse): the
     * product in order underflows to 0 (or overflows to inf) and stays there */
    ordv[i] = ((i % 257 < 128) != (i / 257 < 150)) ? 1e30 : 1e-30;
  }
}

/* --- elementwise ---------------------------------------------------------------------- */

static void elu_cases(tabi_runtime *f, tabi_runtime *r) {
  const double ps[3][3] = {{1.0, 1.0, 1.0}, {1.6732632, 1.0507010, 1.0}, {-0.5, 2.0, 0.25}};
  for (int d = 0; d < 4; d++)
    for (int k = 0; k < 3; k++)
      for (int tr = 0; tr < 2; tr++) {
        char l[64];
        snprintf(l, sizeof l, "%s params %d tr %d", tabi_dtype_name(FD[d]), k, tr);
        targ a[4] = {T(FD[d], 2, 300, 257, sv, tr), V(tabi_float(ps[k][0])),
                     V(tabi_float(ps[k][1])), V(tabi_float(ps[k][2]))};
        cmp(f, r, "aten::elu", a, 4, 1, 0, l);
      }
  /* lengths around the vector width and a 0-d input */
  for (int64_t n = 1; n < 40; n += 3) {
    targ a[4] = {T(TABI_DTYPE_FLOAT32, 1, n, 1, sv, 0), V(tabi_int(1)), V(tabi_int(1)), V(tabi_int(1))};
    cmp(f, r, "aten::elu", a, 4, 1, 0, "short");
  }
  targ z[4] = {T(TABI_DTYPE_FLOAT32, 0, 1, 1, rv, 0), V(tabi_int(1)), V(tabi_int(1)), V(tabi_int(1))};
  cmp(f, r, "aten::elu", z, 4, 1, 0, "0-d");
  /* errors: an integer input, a Scalar float16 cannot hold */
  targ e1[4] = {T(TABI_DTYPE_INT32, 1, 100, 1, iv, 0), V(tabi_int(1)), V(tabi_int(1)), V(tabi_int(1))};
  cmp(f, r, "aten::elu", e1, 4, 1, 0, "int32 input");
  targ e2[4] = {T(TABI_DTYPE_FLOAT16, 1, 100, 1, rv, 0), V(tabi_float(1e6)), V(tabi_int(1)), V(tabi_int(1))};
  cmp(f, r, "aten::elu", e2, 4, 1, 0, "alpha overflows float16");
}

static void clamp_cases(tabi_runtime *f, tabi_runtime *r) {
  static double lo[NV], hi[NV];
  for (int64_t i = 0; i < NV; i++) {
    lo[i] = (i % 13 == 4) ? NAN : rv[(i * 7) % NV] - 2.0;
    hi[i] = (i % 17 == 6) ? NAN : rv[(i * 3) % NV] + 2.0; /* sometimes below lo */
  }
  for (int d = 0; d < 4; d++)
    for (int tr = 0; tr < 2; tr++) {
      tabi_dtype dt = FD[d];
      char l[96];
      snprintf(l, sizeof l, "%s tr %d", tabi_dtype_name(dt), tr);
      targ both[3] = {T(dt, 2, 300, 257, sv, tr), T(dt, 2, 300, 257, lo, 0), T(dt, 2, 300, 257, hi, tr)};
      cmp(f, r, "aten::clamp.Tensor", both, 3, 1, 0, l);
      /* broadcast bounds: a row [257] and a column [300, 1] */
      targ bc[3] = {T(dt, 2, 300, 257, sv, tr), T(dt, 1, 257, 1, lo, 0), T(dt, 2, 300, 1, hi, 0)};
      cmp(f, r, "aten::clamp.Tensor", bc, 3, 1, 0, l);
      targ mn[3] = {T(dt, 2, 300, 257, sv, tr), T(dt, 2, 300, 257, lo, 0), NONE_ARG};
      cmp(f, r, "aten::clamp.Tensor", mn, 3, 1, 0, l);
      targ mx[3] = {T(dt, 2, 300, 257, sv, tr), NONE_ARG, T(dt, 1, 257, 1, hi, 0)};
      cmp(f, r, "aten::clamp.Tensor", mx, 3, 1, 0, l);
    }
  /* integers (exact), promotion (int32 self, float bounds; float16 self, float32 0-d bound) */
  for (int d = 0; d < 5; d++) {
    targ a[3] = {T(ID[d], 2, 300, 257, iv, 1), T(ID[d], 1, 257, 1, iv, 0),
                 T(ID[d], 2, 300, 1, shv, 0)};
    cmp(f, r, "aten::clamp.Tensor", a, 3, 1, 0, tabi_dtype_name(ID[d]));
  }
  targ pr[3] = {T(TABI_DTYPE_INT32, 2, 300, 257, iv, 0), T(TABI_DTYPE_FLOAT32, 1, 257, 1, lo, 0),
                T(TABI_DTYPE_FLOAT64, 2, 300, 257, hi, 0)};
  cmp(f, r, "aten::clamp.Tensor", pr, 3, 1, 0, "int32 with float bounds");
  targ p0[3] = {T(TABI_DTYPE_FLOAT16, 2, 300, 257, sv, 0), T(TABI_DTYPE_FLOAT32, 0, 1, 1, rv, 0), NONE_ARG};
  cmp(f, r, "aten::clamp.Tensor", p0, 3, 1, 0, "float16 with a 0-d float32 bound");
  targ bl[3] = {T(TABI_DTYPE_BOOL, 2, 300, 257, iv, 0), T(TABI_DTYPE_BOOL, 1, 257, 1, shv, 0), NONE_ARG};
  cmp(f, r, "aten::clamp.Tensor", bl, 3, 1, 0, "bool min");
  /* errors: both bounds bool, no bound, shapes that do not broadcast */
  targ e1[3] = {T(TABI_DTYPE_BOOL, 1, 50, 1, iv, 0), T(TABI_DTYPE_BOOL, 1, 50, 1, iv, 0),
                T(TABI_DTYPE_BOOL, 1, 50, 1, iv, 0)};
  cmp(f, r, "aten::clamp.Tensor", e1, 3, 1, 0, "bool both");
  targ e2[3] = {T(TABI_DTYPE_FLOAT32, 1, 50, 1, rv, 0), NONE_ARG, NONE_ARG};
  cmp(f, r, "aten::clamp.Tensor", e2, 3, 1, 0, "no bound");
  targ e3[3] = {T(TABI_DTYPE_FLOAT32, 1, 50, 1, rv, 0), T(TABI_DTYPE_FLOAT32, 1, 49, 1, rv, 0), NONE_ARG};
  cmp(f, r, "aten::clamp.Tensor", e3, 3, 1, 0, "no broadcast");
}

static void pow_scalar_cases(tabi_runtime *f, tabi_runtime *r) {
  const tabi_value bases[] = {tabi_float(2.5), tabi_float(-1.5), tabi_float(0.0), tabi_int(3),
                              tabi_float(NAN), tabi_float(-INFINITY), tabi_int(-1), tabi_bool(1)};
  for (int d = 0; d < 4; d++)
    for (int b = 0; b < 8; b++) {
      char l[64];
      snprintf(l, sizeof l, "%s base %d", tabi_dtype_name(FD[d]), b);
      targ a[2] = {V(bases[b]), T(FD[d], 2, 300, 257, sv, b & 1)};
      cmp(f, r, "aten::pow.Scalar", a, 2, 1, 0, l);
    }
  /* integer exponents (negative ones: 0 except for bases 1 and -1), wrapping powers */
  const tabi_value ib[] = {tabi_int(2), tabi_int(-1), tabi_int(1), tabi_int(0), tabi_int(-3),
                           tabi_int(300)};
  for (int d = 0; d < 5; d++)
    for (int b = 0; b < 6; b++) {
      char l[64];
      snprintf(l, sizeof l, "%s base %d", tabi_dtype_name(ID[d]), b);
      targ a[2] = {V(ib[b]), T(ID[d], 2, 300, 257, shv, b & 1)};
      cmp(f, r, "aten::pow.Scalar", a, 2, 1, 0, l);
    }
  /* int tensor, float base: float32 result; bool exponent with an int base: int64 */
  targ m1[2] = {V(tabi_float(1.25)), T(TABI_DTYPE_INT32, 1, NV, 1, shv, 0)};
  cmp(f, r, "aten::pow.Scalar", m1, 2, 1, 0, "int32 exponent, float base");
  targ m2[2] = {V(tabi_int(3)), T(TABI_DTYPE_BOOL, 1, NV, 1, iv, 0)};
  cmp(f, r, "aten::pow.Scalar", m2, 2, 1, 0, "bool exponent");
  targ e1[2] = {V(tabi_bool(1)), T(TABI_DTYPE_BOOL, 1, 100, 1, iv, 0)};
  cmp(f, r, "aten::pow.Scalar", e1, 2, 1, 0, "bool result (error)");
}

static void atan2_out_cases(tabi_runtime *f, tabi_runtime *r) {
  for (int d = 0; d < 4; d++) {
    tabi_dtype dt = FD[d];
    const char *n = tabi_dtype_name(dt);
    /* out of the right shape and dtype: written in place */
    targ a[3] = {T(dt, 2, 300, 257, sv, 0), T(dt, 2, 300, 257, rv, 1), T(dt, 2, 300, 257, pv, 0)};
    cmp(f, r, "aten::atan2.out", a, 3, 1, 0, n);
    /* broadcasting, out to be resized */
    targ b[3] = {T(dt, 2, 300, 257, sv, 0), T(dt, 1, 257, 1, rv, 0), T(dt, 1, 10, 1, pv, 0)};
    cmp(f, r, "aten::atan2.out", b, 3, 1, 0, n);
    /* out is self (aliasing) */
    targ c[3] = {T(dt, 2, 300, 257, sv, 0), T(dt, 2, 300, 1, rv, 0), ALIAS(0)};
    cmp(f, r, "aten::atan2.out", c, 3, 1, 0, n);
    /* out transposed (not contiguous) */
    targ t[3] = {T(dt, 2, 300, 257, sv, 0), T(dt, 2, 300, 257, rv, 0), T(dt, 2, 300, 257, pv, 1)};
    cmp(f, r, "aten::atan2.out", t, 3, 1, 0, n);
  }
  /* float32 result into a float64 out; int inputs (float32 result) */
  targ w[3] = {T(TABI_DTYPE_FLOAT32, 2, 300, 257, sv, 0), T(TABI_DTYPE_FLOAT32, 2, 300, 257, rv, 0),
               T(TABI_DTYPE_FLOAT64, 2, 300, 257, pv, 0)};
  cmp(f, r, "aten::atan2.out", w, 3, 1, 0, "float32 into float64 out");
  targ i[3] = {T(TABI_DTYPE_INT32, 2, 300, 257, iv, 0), T(TABI_DTYPE_INT64, 2, 300, 257, shv, 0),
               T(TABI_DTYPE_FLOAT32, 2, 300, 257, pv, 0)};
  cmp(f, r, "aten::atan2.out", i, 3, 1, 0, "int inputs");
  targ e[3] = {T(TABI_DTYPE_FLOAT32, 1, 100, 1, sv, 0), T(TABI_DTYPE_FLOAT32, 1, 100, 1, rv, 0),
               T(TABI_DTYPE_INT32, 1, 100, 1, pv, 0)};
  cmp(f, r, "aten::atan2.out", e, 3, 1, 0, "int out (error)");
}

/* The vector atan2 (float32) over a grid of y x x: every power of two from 2^-149
 * to 2^127 and its neighbours, both signs, a dense [-20, 20], +-0, +-inf, NaN;
 * within the float32 tolerance and 4 ulp of the reference's rounded double. */
static int64_t ulp32(float a, float b) {
  int32_t ia, ib;
  memcpy(&ia, &a, 4);
  memcpy(&ib, &b, 4);
  int64_t x = ia < 0 ? (int64_t)INT32_MIN - ia : ia, y = ib < 0 ? (int64_t)INT32_MIN - ib : ib;
  return x > y ? x - y : y - x;
}
static void atan2_sweep(tabi_runtime *f, tabi_runtime *r) {
  static double g[1200];
  int64_t m = 0;
  for (int e = -149; e <= 127; e += 2) {
    double v = ldexp(1.0, e);
    g[m++] = v;
    g[m++] = -v * 1.0000001;
    g[m++] = v * 0.9999999;
  }
  for (int k = 0; k < 300; k++) g[m++] = -20.0 + 40.0 * k / 299.0 + 1e-3;
  const double sp[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 3.4e38, -1e-45};
  for (size_t k = 0; k < sizeof sp / sizeof *sp; k++) g[m++] = sp[k];
  targ yv = T(TABI_DTYPE_FLOAT32, 2, m, 1, g, 0), xv = T(TABI_DTYPE_FLOAT32, 1, m, 1, g, 0);
  yv.nv = xv.nv = m;
  const char *ops[2] = {"aten::atan2", "aten::atan2.out"};
  for (int o = 0; o < 2; o++) {
    targ a[3] = {yv, xv, T(TABI_DTYPE_FLOAT32, 2, m, m, g, 0)};
    a[2].nv = m;
    tabi_value x[1], y[1];
    tabi_status sx = call(f, ops[o], a, o ? 3 : 2, x, 1), sy = call(r, ops[o], a, o ? 3 : 2, y, 1);
    CHECK(sx == TABI_OK && sy == TABI_OK);
    if (sx != TABI_OK || sy != TABI_OK) continue;
    CHECK(equal_out(ops[o], x[0].u.t, y[0].u.t, 0));
    const float *p = tabi_tensor_data(x[0].u.t), *q = tabi_tensor_data(y[0].u.t);
    int64_t worst = 0, at = 0;
    for (int64_t i = 0; i < m * m; i++) {
      if (isnan(p[i]) && isnan(q[i])) continue;
      int64_t u = (isnan(p[i]) || isnan(q[i])) ? INT64_MAX : ulp32(p[i], q[i]);
      if (fabsf(q[i]) < 1e-30f && fabsf(p[i] - q[i]) < 1e-37f) u = 0; /* subnormal quotients: atol */
      if (u > worst) { worst = u; at = i; }
    }
    CHECK_MSG(worst <= 4, "%s: %lld ulp at atan2(%g, %g): fast %.9g, reference %.9g", ops[o],
              (long long)worst, g[at / m], g[at % m], p[at], q[at]);
    tabi_value_release(&x[0]);
    tabi_value_release(&y[0]);
  }
}

/* pow.Scalar's vector path (base^x = 2^(x log2 base)): float32 exponents over
 * [-160, 160] densely, the overflow / underflow edges, specials; bases around
 * 1, large and small; within 4 ulp of the reference (atol for subnormals). */
static void pow_scalar_sweep(tabi_runtime *f, tabi_runtime *r) {
  static double g[NV];
  int64_t m = 0;
  for (int k = 0; k < 60000; k++) g[m++] = -160.0 + 320.0 * k / 59999.0;
  for (int k = -30; k <= 30; k++) g[m++] = k;
  const double sp[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-30, -1e-40, 0.5, -0.5, 3e38};
  for (size_t k = 0; k < sizeof sp / sizeof *sp; k++) g[m++] = sp[k];
  const double bases[] = {2.0, 2.5, 0.1, 1.0000001, 0.9999, 10.0, 3e38, 1e-30, 7.0, 0.5};
  for (size_t bi = 0; bi < sizeof bases / sizeof *bases; bi++) {
    targ a[2] = {V(tabi_float(bases[bi])), T(TABI_DTYPE_FLOAT32, 1, m, 1, g, 0)};
    a[1].nv = m;
    tabi_value x[1], y[1];
    tabi_status sx = call(f, "aten::pow.Scalar", a, 2, x, 1), sy = call(r, "aten::pow.Scalar", a, 2, y, 1);
    CHECK(sx == TABI_OK && sy == TABI_OK);
    if (sx != TABI_OK || sy != TABI_OK) continue;
    CHECK(equal_out("pow.Scalar sweep", x[0].u.t, y[0].u.t, 0));
    const float *p = tabi_tensor_data(x[0].u.t), *q = tabi_tensor_data(y[0].u.t);
    int64_t worst = 0, at = 0;
    for (int64_t i = 0; i < m; i++) {
      if (isnan(p[i]) && isnan(q[i])) continue;
      int64_t u = (isnan(p[i]) || isnan(q[i])) ? INT64_MAX : ulp32(p[i], q[i]);
      if (fabsf(q[i]) < 1e-30f && fabsf(p[i] - q[i]) < 1e-37f) u = 0;
      if (u > worst) { worst = u; at = i; }
    }
    CHECK_MSG(worst <= 4, "pow.Scalar: %lld ulp at %g ** %g: fast %.9g, reference %.9g",
              (long long)worst, bases[bi], g[at], p[at], q[at]);
    tabi_value_release(&x[0]);
    tabi_value_release(&y[0]);
  }
}

static void prim_cases(tabi_runtime *f, tabi_runtime *r) {
  const char *iops[3] = {"prims::gcd", "prims::shift_left", "prims::shift_right_arithmetic"};
  for (int o = 0; o < 3; o++)
    for (int d = 0; d < 5; d++)
      for (int tr = 0; tr < 2; tr++) {
        char l[64];
        snprintf(l, sizeof l, "%s tr %d", tabi_dtype_name(ID[d]), tr);
        targ a[2] = {T(ID[d], 2, 300, 257, iv, tr), T(ID[d], 2, 300, 257, o ? shv : iv, 0)};
        if (o == 0) a[1].vals = rv; /* gcd(x, small) as well as gcd(x, INT_MIN / -1 / 0) */
        cmp(f, r, iops[o], a, 2, 1, 1, l);
        targ b[2] = {T(ID[d], 2, 300, 257, iv, 0), T(ID[d], 2, 300, 257, iv, tr)};
        cmp(f, r, iops[o], b, 2, 1, 1, l);
      }
  const char *fops[4] = {"prims::nextafter", "prims::igamma", "prims::igammac", "prims::zeta"};
  for (int o = 0; o < 4; o++)
    for (int d = 0; d < 4; d++)
      for (int tr = 0; tr < 2; tr++) {
        char l[64];
        snprintf(l, sizeof l, "%s tr %d", tabi_dtype_name(FD[d]), tr);
        /* nextafter: exact (bits); the special functions: tolerance */
        targ a[2] = {T(FD[d], 2, 300, 257, o ? pv : sv, tr), T(FD[d], 2, 300, 257, o ? sv : rv, 0)};
        cmp(f, r, fops[o], a, 2, 1, o == 0, l);
        targ b[2] = {T(FD[d], 2, 300, 257, sv, 0), T(FD[d], 2, 300, 257, sv, tr)};
        cmp(f, r, fops[o], b, 2, 1, o == 0, l); /* x toward itself, NaN, +-0, inf */
      }
  /* errors: mixed dtypes, shapes (prims do not promote or broadcast), float gcd */
  targ e1[2] = {T(TABI_DTYPE_INT32, 1, 10, 1, iv, 0), T(TABI_DTYPE_INT64, 1, 10, 1, iv, 0)};
  cmp(f, r, "prims::gcd", e1, 2, 1, 1, "mixed dtypes");
  targ e2[2] = {T(TABI_DTYPE_FLOAT32, 1, 10, 1, rv, 0), T(TABI_DTYPE_FLOAT32, 2, 10, 1, rv, 0)};
  cmp(f, r, "prims::nextafter", e2, 2, 1, 1, "shapes");
  targ e3[2] = {T(TABI_DTYPE_FLOAT32, 1, 10, 1, rv, 0), T(TABI_DTYPE_FLOAT32, 1, 10, 1, rv, 0)};
  cmp(f, r, "prims::shift_left", e3, 2, 1, 1, "float");
  cmp(f, r, "prims::gcd", e3, 2, 1, 1, "float");
}

static void complex_cases(tabi_runtime *f, tabi_runtime *r) {
  const tabi_dtype cd[2] = {TABI_DTYPE_COMPLEX64, TABI_DTYPE_COMPLEX128};
  const char *ops[3] = {"prims::conj_physical", "prims::real", "prims::imag"};
  for (int o = 0; o < 3; o++) {
    for (int d = 0; d < 2; d++)
      for (int tr = 0; tr < 2; tr++) {
        targ a[1] = {T(cd[d], 2, 300, 257, sv, tr)};
        cmp(f, r, ops[o], a, 1, 1, 1, tabi_dtype_name(cd[d]));
      }
    targ z[1] = {T(TABI_DTYPE_COMPLEX64, 0, 1, 1, sv, 0)};
    cmp(f, r, ops[o], z, 1, 1, 1, "0-d");
  }
  /* conj_physical of real dtypes is a copy; real/imag refuse them */
  for (int d = 0; d < 4; d++) {
    targ a[1] = {T(FD[d], 2, 300, 257, sv, 1)};
    cmp(f, r, "prims::conj_physical", a, 1, 1, 1, tabi_dtype_name(FD[d]));
    cmp(f, r, "prims::real", a, 1, 1, 1, tabi_dtype_name(FD[d]));
  }
  for (int d = 0; d < 5; d++) {
    targ a[1] = {T(ID[d], 2, 300, 257, iv, 1)};
    cmp(f, r, "prims::conj_physical", a, 1, 1, 1, tabi_dtype_name(ID[d]));
  }
  targ b[1] = {T(TABI_DTYPE_BOOL, 1, NV, 1, iv, 0)};
  cmp(f, r, "prims::conj_physical", b, 1, 1, 1, "bool");
}

/* --- prod -------------------------------------------------------------------------------- */

static void prod_cases(tabi_runtime *f, tabi_runtime *r) {
  /* finite products; overflow/underflow part-way; specials; order-dependent */
  const double *srcs[4] = {near1, rv, sv, ordv};
  for (int d = 0; d < 4; d++)
    for (int s = 0; s < 4; s++)
      for (int tr = 0; tr < 2; tr++) {
        tabi_dtype dt = FD[d];
        char l[64];
        snprintf(l, sizeof l, "%s src %d tr %d", tabi_dtype_name(dt), s, tr);
        targ full[2] = {T(dt, 2, 300, 257, srcs[s], tr), NONE_ARG};
        cmp(f, r, "aten::prod", full, 2, 1, 0, l);
        for (int dim = -1; dim < 2; dim++)
          for (int keep = 0; keep < 2; keep++) {
            targ a[4] = {T(dt, 2, 300, 257, srcs[s], tr), V(tabi_int(dim)), V(tabi_bool(keep)), NONE_ARG};
            cmp(f, r, "aten::prod.dim_int", a, 4, 1, 0, l);
          }
        int64_t d0[1] = {0}, d1[1] = {1}, d01[2] = {0, 1};
        tabi_value dl[4] = {tabi_int_list(d0, 1), tabi_int_list(d1, 1), tabi_int_list(d01, 2),
                            tabi_int_list(d0, 0)};
        for (int k = 0; k < 4; k++) {
          targ p[3] = {T(dt, 2, 300, 257, srcs[s], tr), V(dl[k]), NONE_ARG};
          cmp(f, r, "prims::prod", p, 3, 1, 0, l);
        }
      }
  /* a long 1-d product (one chain), 3-d middle dim (columns), dtype= widening */
  targ one[2] = {T(TABI_DTYPE_FLOAT32, 1, NV, 1, near1, 0), NONE_ARG};
  cmp(f, r, "aten::prod", one, 2, 1, 0, "1-d near 1");
  targ w[2] = {T(TABI_DTYPE_FLOAT16, 2, 300, 257, near1, 1), V(tabi_dtype_value(TABI_DTYPE_FLOAT64))};
  cmp(f, r, "aten::prod", w, 2, 1, 0, "float16 dtype=float64");
  targ w2[4] = {T(TABI_DTYPE_FLOAT32, 2, 300, 257, rv, 0), V(tabi_int(0)), V(tabi_bool(0)),
                V(tabi_dtype_value(TABI_DTYPE_FLOAT64))};
  cmp(f, r, "aten::prod.dim_int", w2, 4, 1, 0, "float32 dtype=float64");
  targ m3 = T(TABI_DTYPE_FLOAT32, 3, 30, 10, rv, 0);
  m3.shape[2] = 257;
  targ mid[4] = {m3, V(tabi_int(1)), V(tabi_bool(1)), NONE_ARG};
  cmp(f, r, "aten::prod.dim_int", mid, 4, 1, 0, "3-d middle dim");
  /* integers: int64 result (aten), the input's dtype (prims), wrapping products */
  for (int d = 0; d < 5; d++) {
    targ a[2] = {T(ID[d], 2, 300, 257, shv, 0), NONE_ARG};
    cmp(f, r, "aten::prod", a, 2, 1, 1, tabi_dtype_name(ID[d]));
    targ b[4] = {T(ID[d], 2, 300, 257, iv, 1), V(tabi_int(1)), V(tabi_bool(0)), NONE_ARG};
    cmp(f, r, "aten::prod.dim_int", b, 4, 1, 1, tabi_dtype_name(ID[d]));
    int64_t d0[1] = {0};
    targ c[3] = {T(ID[d], 2, 300, 257, iv, 0), V(tabi_int_list(d0, 1)), NONE_ARG};
    cmp(f, r, "prims::prod", c, 3, 1, 1, tabi_dtype_name(ID[d]));
  }
  targ bo[2] = {T(TABI_DTYPE_BOOL, 2, 300, 257, pv, 0), NONE_ARG};
  cmp(f, r, "aten::prod", bo, 2, 1, 1, "bool");
  /* fallbacks and errors: complex, narrowing dtype=, dim out of range */
  targ cx[2] = {T(TABI_DTYPE_COMPLEX64, 2, 30, 25, near1, 0), NONE_ARG};
  cmp(f, r, "aten::prod", cx, 2, 1, 0, "complex64");
  targ nw[2] = {T(TABI_DTYPE_FLOAT64, 2, 30, 25, near1, 0), V(tabi_dtype_value(TABI_DTYPE_FLOAT32))};
  cmp(f, r, "aten::prod", nw, 2, 1, 0, "narrowing dtype=");
  targ bad[4] = {T(TABI_DTYPE_FLOAT32, 2, 30, 25, rv, 0), V(tabi_int(2)), V(tabi_bool(0)), NONE_ARG};
  cmp(f, r, "aten::prod.dim_int", bad, 4, 1, 0, "dim out of range");
}

/* --- native_dropout (byte for byte: the reference's random numbers) -------------------- */

static void dropout_cases(tabi_runtime *f, tabi_runtime *r) {
  const double ps[4] = {0.3, 0.0, 1.0, 0.9};
  for (int d = 0; d < 4; d++)
    for (int k = 0; k < 4; k++)
      for (int tr = 0; tr < 2; tr++) {
        char l[64];
        snprintf(l, sizeof l, "%s p %g tr %d", tabi_dtype_name(FD[d]), ps[k], tr);
        targ a[3] = {T(FD[d], 2, 300, 257, sv, tr), V(tabi_float(ps[k])), V(tabi_bool(1))};
        cmp(f, r, "aten::native_dropout", a, 3, 2, 1, l);
        targ b[3] = {T(FD[d], 2, 300, 257, sv, tr), V(tabi_float(ps[k])), NONE_ARG};
        cmp(f, r, "aten::native_dropout", b, 3, 2, 1, l);
        targ c[3] = {T(FD[d], 2, 300, 257, sv, tr), V(tabi_float(ps[k])), V(tabi_bool(0))};
        cmp(f, r, "aten::native_dropout", c, 3, 2, 1, l);
      }
  targ e[3] = {T(TABI_DTYPE_FLOAT32, 1, 100, 1, rv, 0), V(tabi_float(1.5)), V(tabi_bool(1))};
  cmp(f, r, "aten::native_dropout", e, 3, 2, 1, "p > 1");
  targ i[3] = {T(TABI_DTYPE_INT32, 1, 100, 1, iv, 0), V(tabi_float(0.5)), V(tabi_bool(1))};
  cmp(f, r, "aten::native_dropout", i, 3, 2, 1, "int32");
  /* two calls in a row draw consecutive counters */
  targ a[3] = {T(TABI_DTYPE_FLOAT32, 1, 1001, 1, rv, 0), V(tabi_float(0.5)), V(tabi_bool(1))};
  tabi_value x[2], y[2];
  tabi_runtime_manual_seed(f, cpu, 3);
  tabi_runtime_manual_seed(r, cpu, 3);
  for (int rep = 0; rep < 2; rep++) {
    tabi_status sx = call(f, "aten::native_dropout", a, 3, x, 2);
    tabi_status sy = call(r, "aten::native_dropout", a, 3, y, 2);
    CHECK(sx == TABI_OK && sy == TABI_OK);
    if (sx == TABI_OK && sy == TABI_OK)
      CHECK(equal_out("dropout repeated", x[1].u.t, y[1].u.t, 1));
    for (int k = 0; k < 2; k++) { tabi_value_release(&x[k]); tabi_value_release(&y[k]); }
  }
}

/* --- 1 vs 3 threads, deterministic mode ----------------------------------------------------- */

static void threads_cases(const char *plugin) {
  tabi_runtime *r1 = load_rt(plugin, "1"), *r3 = load_rt(plugin, "3");
  CHECK(r1 && r3);
  if (r1 && r3) {
    tabi_runtime_set_deterministic(r1, 1);
    tabi_runtime_set_deterministic(r3, 1);
    targ p[2] = {T(TABI_DTYPE_FLOAT32, 2, 300, 257, near1, 1), NONE_ARG};
    cmp(r1, r3, "aten::prod", p, 2, 1, 1, "1 vs 3 threads");
    targ pd[4] = {T(TABI_DTYPE_FLOAT64, 2, 300, 257, rv, 0), V(tabi_int(0)), V(tabi_bool(0)), NONE_ARG};
    cmp(r1, r3, "aten::prod.dim_int", pd, 4, 1, 1, "1 vs 3 threads");
    targ pi[2] = {T(TABI_DTYPE_INT64, 1, NV, 1, shv, 0), NONE_ARG};
    cmp(r1, r3, "aten::prod", pi, 2, 1, 1, "1 vs 3 threads");
    targ el[4] = {T(TABI_DTYPE_BFLOAT16, 2, 300, 257, sv, 1), V(tabi_int(1)), V(tabi_int(1)), V(tabi_int(1))};
    cmp(r1, r3, "aten::elu", el, 4, 1, 1, "1 vs 3 threads");
    targ ig[2] = {T(TABI_DTYPE_FLOAT32, 2, 300, 257, pv, 0), T(TABI_DTYPE_FLOAT32, 2, 300, 257, rv, 1)};
    cmp(r1, r3, "prims::igamma", ig, 2, 1, 1, "1 vs 3 threads");
    targ dr[3] = {T(TABI_DTYPE_FLOAT16, 2, 300, 257, sv, 1), V(tabi_float(0.25)), V(tabi_bool(1))};
    cmp(r1, r3, "aten::native_dropout", dr, 3, 2, 1, "1 vs 3 threads");
  }
  if (r1) tabi_runtime_destroy(r1);
  if (r3) tabi_runtime_destroy(r3);
}

/* --- timings (TABI_TEST_TIMINGS=1) ------------------------------------------------------- */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* best of `reps` calls with the inputs made once (atan2.out: the out too) */
static double time_op(tabi_runtime *rt, const char *opn, const targ *a, int32_t nargs,
                      int32_t nouts, int reps) {
  tabi_value args[MAXA], outs[3];
  tabi_tensor *own[MAXA] = {0};
  for (int32_t i = 0; i < nargs; i++) {
    if (a[i].is_t) {
      own[i] = mkt(rt, &a[i]);
      args[i] = tabi_tensor_value(own[i]);
    } else {
      args[i] = a[i].v;
    }
  }
  tabi_op op;
  double best = 1e30;
  if (tabi_op_find(rt, opn, &op) == TABI_OK)
    for (int k = 0; k < reps; k++) {
      double t0 = now_ms();
      tabi_status st = tabi_call(rt, op, args, nargs, outs, nouts);
      double t = now_ms() - t0;
      if (st != TABI_OK) { best = NAN; break; }
      if (t < best) best = t;
      for (int32_t i = 0; i < nouts; i++) tabi_value_release(&outs[i]);
    }
  for (int32_t i = 0; i < nargs; i++)
    if (own[i]) tabi_tensor_release(own[i]);
  return best;
}

static void timings(tabi_runtime *f, tabi_runtime *r) {
  enum { N = 10000000 };
  double *x = malloc(N * sizeof(double)), *y = malloc(N * sizeof(double));
  double *z = malloc(N * sizeof(double)), *q = malloc(N * sizeof(double));
  double *ii = malloc(N * sizeof(double)), *sh = malloc(N * sizeof(double));
  if (!x || !y || !z || !q || !ii || !sh) return;
  rng_state = 99;
  for (int64_t i = 0; i < N; i++) {
    double u = rnd();
    x[i] = u * 6.0;
    y[i] = rnd() * 6.0;
    z[i] = fabs(u) * 8.0 + 0.01;
    q[i] = 1.0 + u * 1e-7;
    ii[i] = floor(u * 1e6);
    sh[i] = (double)(i % 31);
  }
  const tabi_dtype F32 = TABI_DTYPE_FLOAT32, I32 = TABI_DTYPE_INT32;
  targ t_x = {1, {0}, F32, 1, {N}, x, N, 0, -1}, t_y = t_x, t_z = t_x, t_q = t_x;
  t_y.vals = y;
  t_z.vals = z;
  t_q.vals = q;
  targ t_i = t_x, t_j = t_x, t_s = t_x, t_c = t_x, t_m = t_x;
  t_i.dt = t_j.dt = t_s.dt = I32;
  t_i.vals = ii;
  t_j.vals = y;
  t_s.vals = sh;
  t_c.dt = TABI_DTYPE_COMPLEX64;
  t_m.nd = 2;
  t_m.shape[0] = 1000;
  t_m.shape[1] = 10000;
  t_m.vals = q;
  int64_t d0[1] = {0};
  struct { const char *op, *what; targ a[4]; int32_t nargs, nouts; } cs[] = {
      {"aten::elu", "f32", {t_x, V(tabi_int(1)), V(tabi_int(1)), V(tabi_int(1))}, 4, 1},
      {"aten::clamp.Tensor", "f32, tensor bounds", {t_x, t_y, t_z}, 3, 1},
      {"aten::pow.Scalar", "2.5 ** f32", {V(tabi_float(2.5)), t_x}, 2, 1},
      {"aten::atan2.out", "f32 into f32 out", {t_x, t_y, t_z}, 3, 1},
      {"prims::gcd", "int32", {t_i, t_j}, 2, 1},
      {"prims::shift_left", "int32", {t_i, t_s}, 2, 1},
      {"prims::shift_right_arithmetic", "int32", {t_i, t_s}, 2, 1},
      {"prims::nextafter", "f32", {t_x, t_y}, 2, 1},
      {"prims::igamma", "f32", {t_z, t_z}, 2, 1},
      {"prims::igammac", "f32", {t_z, t_z}, 2, 1},
      {"prims::zeta", "f32", {t_z, t_z}, 2, 1},
      {"prims::conj_physical", "complex64", {t_c}, 1, 1},
      {"prims::real", "complex64", {t_c}, 1, 1},
      {"prims::imag", "complex64", {t_c}, 1, 1},
      {"aten::prod", "f32 full (one chain)", {t_q, V(tabi_none())}, 2, 1},
      {"aten::prod.dim_int", "f32 [1000,10000] dim 1", {t_m, V(tabi_int(1)), V(tabi_bool(0)), V(tabi_none())}, 4, 1},
      {"aten::prod.dim_int", "f32 [1000,10000] dim 0", {t_m, V(tabi_int(0)), V(tabi_bool(0)), V(tabi_none())}, 4, 1},
      {"prims::prod", "f32 [1000,10000] dims [0]", {t_m, V(tabi_int_list(d0, 1)), V(tabi_none())}, 3, 1},
      {"aten::native_dropout", "f32 p=0.5", {t_x, V(tabi_float(0.5)), V(tabi_bool(1))}, 3, 2},
  };
  printf("%-32s %-28s %10s %12s %8s\n", "op (1e7 elements)", "case", "fast ms", "reference ms", "ratio");
  for (size_t k = 0; k < sizeof cs / sizeof *cs; k++) {
    for (int i = 0; i < cs[k].nargs; i++) cs[k].a[i].alias = -1;
    double tf = time_op(f, cs[k].op, cs[k].a, cs[k].nargs, cs[k].nouts, 5);
    double tr = time_op(r, cs[k].op, cs[k].a, cs[k].nargs, cs[k].nouts, 1);
    printf("%-32s %-28s %10.2f %12.1f %7.1fx\n", cs[k].op, cs[k].what, tf, tr, tr / tf);
    fflush(stdout);
  }
  free(x); free(y); free(z); free(q); free(ii); free(sh);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CPU_PLUGIN REFERENCE_PLUGIN\n", argv[0]);
    return 2;
  }
  fill_inputs();
  tabi_runtime *f = load_rt(argv[1], NULL), *r = load_rt(argv[2], NULL);
  CHECK(f && r);
  const char *tm = getenv("TABI_TEST_TIMINGS");
  if (f && r && tm && tm[0] == '1') timings(f, r);
  if (f && r) {
    elu_cases(f, r);
    clamp_cases(f, r);
    pow_scalar_cases(f, r);
    atan2_out_cases(f, r);
    atan2_sweep(f, r);
    pow_scalar_sweep(f, r);
    prim_cases(f, r);
    complex_cases(f, r);
    prod_cases(f, r);
    dropout_cases(f, r);
  }
  if (f) tabi_runtime_destroy(f);
  if (r) tabi_runtime_destroy(r);
  threads_cases(argv[1]);
  return check_report();
}
