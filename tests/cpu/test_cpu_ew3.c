/* tests/cpu/test_cpu_ew3.c: the CPU plugin's integer div "trunc"/"floor", fmod
 * and remainder (cpu_elementwise_int.c), where with operands of other dtypes
 * than the result (cpu_ew_engine.c) and complex add/sub/mul/div/neg/eq/ne
 * (cpu_elementwise_cplx.c) against the reference kernels: the same inputs go
 * into a runtime with libtabi_cpu.so and one with the reference plugin.
 *
 * Integer and bool results compare byte for byte; complex results too (the
 * kernels compute as the reference does: in double, rounded once at the
 * store). Errors compare by status and by the error text. Inputs: 77100
 * elements (past every threading grain), transposed views, row / column / 0-d
 * broadcasting, Scalars on either side, every integer dtype with its INT_MIN
 * and -1 together, int64 values past 2^52 (the scalar division), one zero
 * divisor far into the tensor (the second thread's part); complex inf / NaN /
 * -0.0, huge (1e300, 3e38) and tiny (1e-300, 1e-40) parts.
 *
 * TABI_TEST_TIMINGS=1 also prints the time of the ops on 1e7 elements, fast
 * kernel (2 threads) vs reference kernel (best of 15 / 1 calls, wall clock).
 *
 * usage: test_cpu_ew3 CPU_PLUGIN REFERENCE_PLUGIN
 */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "cpu_harness.h"

#define NV 77100 /* 300 x 257 */
#define R0 300
#define C0 257

/* one argument: a Scalar, or a tensor from `iv` (integers) / `dv` (floats;
 * complex: consecutive values as (re, im)), optionally a transposed view */
typedef struct targ {
  int is_t;
  tabi_value v;
  tabi_dtype dt;
  int32_t nd;
  int64_t shape[2];
  const int64_t *iv;
  const double *dv;
  int tr;
  int64_t zero_at; /* >= 0: this element is 0 */
} targ;

/* NV values and a tail (PAD) so that `cv + 1000` is an array of NV values too */
#define PAD 2048
static int64_t num[NV + PAD], den[NV + PAD], big[NV + PAD], bits[NV + PAD], cnd[NV + PAD],
    tnum[NV + PAD], tden[NV + PAD];
static double cv[NV + PAD], fv[NV + PAD], cz[NV + PAD], cs[NV + PAD];

static void put(char *p, tabi_dtype dt, int64_t i, const targ *a) {
  int64_t k = a->iv ? a->iv[i % NV] : 0;
  double v = a->dv ? a->dv[i % NV] : (double)k;
  if (i == a->zero_at) { k = 0; v = 0; }
  switch (dt) {
    case TABI_DTYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
    case TABI_DTYPE_FLOAT64: ((double *)p)[i] = v; break;
    case TABI_DTYPE_FLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_f16((float)v); break;
    case TABI_DTYPE_BFLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_bf16((float)v); break;
    case TABI_DTYPE_COMPLEX64:
      ((float *)p)[2 * i] = (float)v;
      ((float *)p)[2 * i + 1] = (float)a->dv[(i + 1) % NV];
      break;
    case TABI_DTYPE_COMPLEX128:
      ((double *)p)[2 * i] = v;
      ((double *)p)[2 * i + 1] = a->dv[(i + 1) % NV];
      break;
    case TABI_DTYPE_BOOL: ((uint8_t *)p)[i] = k != 0; break;
    case TABI_DTYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)(uint64_t)k; break;
    case TABI_DTYPE_INT8: ((int8_t *)p)[i] = (int8_t)k; break;
    case TABI_DTYPE_INT16: ((int16_t *)p)[i] = (int16_t)k; break;
    case TABI_DTYPE_INT32: ((int32_t *)p)[i] = (int32_t)k; break;
    default: ((int64_t *)p)[i] = k; break;
  }
}

static tabi_tensor *mkt(tabi_runtime *rt, const targ *a) {
  int64_t sh[2] = {1, 1}, n = 1;
  for (int32_t i = 0; i < a->nd; i++) { sh[i] = a->shape[i]; n *= sh[i]; }
  int tr = a->tr && a->nd == 2;
  if (tr) { int64_t x = sh[0]; sh[0] = sh[1]; sh[1] = x; }
  tabi_tensor *t = NULL;
  if (tabi_tensor_empty(rt, cpu, a->dt, a->nd, sh, &t) != TABI_OK) return NULL;
  for (int64_t i = 0; i < n; i++) put(tabi_tensor_data(t), a->dt, i, a);
  if (!tr) return t;
  int64_t vs[2] = {sh[1], sh[0]}, vst[2] = {t->dl.strides[1], t->dl.strides[0]};
  tabi_tensor *v = NULL;
  tabi_tensor_view(rt, t, 2, vs, vst, (int64_t)t->dl.byte_offset, &v);
  tabi_tensor_release(t);
  return v;
}

static tabi_status call(tabi_runtime *rt, const char *opn, const targ *a, int32_t nargs,
                        tabi_value *out, char *err, size_t errsz) {
  tabi_value args[4];
  tabi_tensor *own[4] = {0};
  for (int32_t i = 0; i < nargs; i++) {
    if (a[i].is_t) {
      own[i] = mkt(rt, &a[i]);
      args[i] = tabi_tensor_value(own[i]);
    } else {
      args[i] = a[i].v;
    }
  }
  *out = tabi_none();
  tabi_op op;
  tabi_status st = tabi_op_find(rt, opn, &op);
  if (st == TABI_OK) st = tabi_call(rt, op, args, nargs, out, 1);
  snprintf(err, errsz, "%s", st == TABI_OK ? "" : tabi_last_error());
  for (int32_t i = 0; i < nargs; i++)
    if (own[i]) tabi_tensor_release(own[i]);
  return st;
}

/* byte equality of the two results (dtype, shape, contiguous layout, bytes) */
static int equal_out(const char *what, const tabi_tensor *x, const tabi_tensor *y) {
  if (!x || !y) return x == y;
  if (x->dl.ndim != y->dl.ndim || memcmp(&x->dl.dtype, &y->dl.dtype, sizeof x->dl.dtype) != 0) {
    fprintf(stderr, "%s: dtype or rank differs\n", what);
    return 0;
  }
  int64_t n = 1;
  for (int32_t d = 0; d < x->dl.ndim; d++) {
    if (x->dl.shape[d] != y->dl.shape[d]) return 0;
    if (x->dl.shape[d] > 1 && x->dl.strides[d] != y->dl.strides[d]) return 0;
    n *= x->dl.shape[d];
  }
  size_t es = tabi_dtype_size(tabi_dtype_from_dl(y->dl.dtype));
  const unsigned char *p = tabi_tensor_data(x), *q = tabi_tensor_data(y);
  for (int64_t i = 0; i < n; i++)
    if (memcmp(p + (size_t)i * es, q + (size_t)i * es, es) != 0) {
      /* NaN payloads may differ (sign of a NaN is not specified by ATen either) */
      tabi_dtype dt = tabi_dtype_from_dl(y->dl.dtype);
      int cx = tabi_dtype_is_complex(dt), parts = cx ? 2 : 1, ok = 1;
      if (tabi_dtype_is_floating(dt) || tabi_dtype_is_complex(dt))
        for (int part = 0; part < parts; part++) {
          double u = load(x, i, part), w = load(y, i, part);
          if (!(isnan(u) && isnan(w)) && memcmp(&u, &w, sizeof u) != 0) ok = 0;
        }
      else
        ok = 0;
      if (ok) continue;
      fprintf(stderr, "%s: element %lld differs: fast (%.17g, %.17g), reference (%.17g, %.17g)\n",
              what, (long long)i, load(x, i, 0), cx ? load(x, i, 1) : 0.0, load(y, i, 0),
              cx ? load(y, i, 1) : 0.0);
      return 0;
    }
  return 1;
}

/* fast vs reference: same status, same error text, same bytes */
static void cmp(tabi_runtime *f, tabi_runtime *r, const char *op, const targ *a, int32_t nargs,
                const char *label) {
  tabi_value x, y;
  char ex[512], ey[512];
  tabi_status sx = call(f, op, a, nargs, &x, ex, sizeof ex);
  tabi_status sy = call(r, op, a, nargs, &y, ey, sizeof ey);
  CHECK_MSG(sx == sy, "%s %s: status fast %d, reference %d (%s | %s)", op, label, (int)sx,
            (int)sy, ex, ey);
  CHECK_MSG(strcmp(ex, ey) == 0, "%s %s: error text fast '%s', reference '%s'", op, label, ex, ey);
  if (sx == TABI_OK && sy == TABI_OK) {
    char what[200];
    snprintf(what, sizeof what, "%s %s", op, label);
    CHECK_MSG(equal_out(what, x.tag == TABI_TAG_TENSOR ? x.u.t : NULL,
                        y.tag == TABI_TAG_TENSOR ? y.u.t : NULL), "%s", what);
  }
  tabi_value_release(&x);
  tabi_value_release(&y);
}

static targ TI(tabi_dtype dt, int32_t nd, int64_t s0, int64_t s1, const int64_t *iv, int tr) {
  targ a = {1, {0}, dt, nd, {s0, s1}, iv, NULL, tr, -1};
  return a;
}
static targ TD(tabi_dtype dt, int32_t nd, int64_t s0, int64_t s1, const double *dv, int tr) {
  targ a = {1, {0}, dt, nd, {s0, s1}, NULL, dv, tr, -1};
  return a;
}
static targ V(tabi_value v) {
  targ a = {0, v, TABI_DTYPE_FLOAT32, 0, {0, 0}, NULL, NULL, 0, -1};
  return a;
}

static const tabi_dtype ID[5] = {TABI_DTYPE_INT8, TABI_DTYPE_INT16, TABI_DTYPE_INT32,
                                 TABI_DTYPE_INT64, TABI_DTYPE_UINT8};

/* --- inputs ------------------------------------------------------------------------- */

static void fill_inputs(void) {
  /* every width's extremes; INT_MIN lands on elements whose divisor is -1 */
  static const int64_t ext[] = {-128, 127, -32768, 32767, -2147483647 - 1, 2147483647,
                                INT64_MIN, INT64_MAX, 255, 0, -1, 1, ((int64_t)1 << 52),
                                -((int64_t)1 << 52) - 1, 1000000000000001, -7};
  static const double spec[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, 1e300, -1e-300, 3e38,
                                -1e-40, 1.5, -2.25, 1e-310};
  rng_state = 4242;
  for (int64_t i = 0; i < NV + PAD; i++) {
    double u = rnd();
    num[i] = (i % 4 == 0) ? ext[(i / 4) % 16] : (int64_t)(u * 20000.0);
    /* divisors: -1 on every even element, else nonzero in every width (low byte) */
    int64_t d = (int64_t)(rnd() * 300.0);
    if ((d & 0xff) == 0) d |= 1;
    den[i] = (i % 2 == 0) ? -1 : (i % 10 == 3) ? 7 : (i % 10 == 5) ? -3 : d;
    /* int64 past 2^52: the scalar division (blocks of either kind) */
    big[i] = (i % 3000 < 1500) ? (int64_t)(u * 9.0e18) : (int64_t)(u * 1.0e6);
    bits[i] = (int64_t)(rnd() * 1e9);
    cnd[i] = rnd() > 0;
    tnum[i] = (int64_t)(u * 1e6); /* timings: typical values */
    tden[i] = (int64_t)(rnd() * 1000.0);
    if (tden[i] == 0) tden[i] = 1;
    cv[i] = (i % 5 == 2) ? spec[(i / 5) % 12] : u * 6.0;
    fv[i] = u * 100.0;
    /* every pair of specials as (re, im), against every other pair */
    cs[i] = (i % 3 == 2) ? u : spec[((uint64_t)i * 2654435761u >> 7) % 12];
    cz[i] = (i % 7 == 0) ? 0.0 : (i % 7 == 1) ? -0.0 : cv[i]; /* 0 + 0i, -0 + 0i ... */
  }
}

/* --- integer div / fmod / remainder ------------------------------------------------- */

typedef struct iop {
  const char *op, *name;
  const char *mode; /* div's rounding_mode */
} iop;

static const iop IOPS[] = {
    {"aten::div.Tensor_mode", "div trunc", "trunc"},
    {"aten::div.Tensor_mode", "div floor", "floor"},
    {"aten::fmod.Tensor", "fmod", NULL},
    {"aten::remainder.Tensor", "remainder", NULL},
};
static const iop SOPS[] = {
    {"aten::div.Scalar_mode", "div trunc", "trunc"},
    {"aten::div.Scalar_mode", "div floor", "floor"},
    {"aten::fmod.Scalar", "fmod", NULL},
    {"aten::remainder.Scalar", "remainder", NULL},
};

static void run_iop(tabi_runtime *f, tabi_runtime *r, const iop *o, targ a, targ b,
                    const char *label) {
  targ args[3] = {a, b, V(o->mode ? tabi_string(o->mode, (int64_t)strlen(o->mode)) : tabi_none())};
  char l[160];
  snprintf(l, sizeof l, "%s %s", o->name, label);
  cmp(f, r, o->op, args, o->mode ? 3 : 2, l);
}

static void int_cases(tabi_runtime *f, tabi_runtime *r) {
  for (int k = 0; k < 4; k++)
    for (int d = 0; d < 5; d++) {
      tabi_dtype dt = ID[d];
      char l[120];
      const char *dn = tabi_dtype_name(dt);
      for (int tr = 0; tr < 4; tr++) { /* contiguous, transposed one or both */
        snprintf(l, sizeof l, "%s tr %d", dn, tr);
        run_iop(f, r, &IOPS[k], TI(dt, 2, R0, C0, num, tr & 1), TI(dt, 2, R0, C0, den, tr >> 1), l);
      }
      snprintf(l, sizeof l, "%s row/col broadcast", dn);
      run_iop(f, r, &IOPS[k], TI(dt, 2, R0, 1, num, 0), TI(dt, 1, C0, 1, den, 0), l);
      snprintf(l, sizeof l, "%s 0-d dividend", dn);
      run_iop(f, r, &IOPS[k], TI(dt, 0, 1, 1, num + 4, 0), TI(dt, 2, R0, C0, den, 0), l);
      snprintf(l, sizeof l, "%s 0-d divisor", dn);
      run_iop(f, r, &IOPS[k], TI(dt, 2, R0, C0, num, 0), TI(dt, 0, 1, 1, den + 5, 0), l);
      /* Scalars: -1 (INT_MIN / -1), 7, -3, a bool, a value that wraps in the dtype */
      const int64_t sc[4] = {-1, 7, -3, 300};
      for (int s = 0; s < 4; s++) {
        snprintf(l, sizeof l, "%s Scalar %lld", dn, (long long)sc[s]);
        run_iop(f, r, &SOPS[k], TI(dt, 2, R0, C0, num, s & 1), V(tabi_int(sc[s])), l);
      }
      run_iop(f, r, &SOPS[k], TI(dt, 1, NV, 1, num, 0), V(tabi_bool(1)), "Scalar True");
      /* zero divisors: the reference's error, word for word */
      targ z = TI(dt, 2, R0, C0, den, 0);
      z.zero_at = 70001;
      snprintf(l, sizeof l, "%s zero divisor", dn);
      run_iop(f, r, &IOPS[k], TI(dt, 2, R0, C0, num, 0), z, l);
      z.tr = 1;
      snprintf(l, sizeof l, "%s zero divisor strided", dn);
      run_iop(f, r, &IOPS[k], TI(dt, 2, R0, C0, num, 0), z, l);
      snprintf(l, sizeof l, "%s Scalar 0", dn);
      run_iop(f, r, &SOPS[k], TI(dt, 2, R0, C0, num, 0), V(tabi_int(0)), l);
      run_iop(f, r, &SOPS[k], TI(dt, 2, R0, C0, num, 0), V(tabi_bool(0)), "Scalar False");
      if (dt == TABI_DTYPE_UINT8 || dt == TABI_DTYPE_INT8) {
        snprintf(l, sizeof l, "%s Scalar 256 (wraps to 0)", dn);
        run_iop(f, r, &SOPS[k], TI(dt, 2, R0, C0, num, 0), V(tabi_int(256)), l);
      }
      /* mixed dtypes (promoted on load) */
      snprintf(l, sizeof l, "%s by int64", dn);
      run_iop(f, r, &IOPS[k], TI(dt, 2, R0, C0, num, 0), TI(TABI_DTYPE_INT64, 2, R0, C0, den, 0), l);
      snprintf(l, sizeof l, "int8 by %s", dn);
      run_iop(f, r, &IOPS[k], TI(TABI_DTYPE_INT8, 2, R0, C0, num, 0), TI(dt, 2, R0, C0, den, 0), l);
      run_iop(f, r, &IOPS[k], TI(dt, 2, R0, C0, num, 0), TI(TABI_DTYPE_BOOL, 2, R0, C0, den, 0),
              "by bool");
    }
  /* int64 past 2^52 in both operands, mixed blocks */
  for (int k = 0; k < 4; k++) {
    run_iop(f, r, &IOPS[k], TI(TABI_DTYPE_INT64, 1, NV, 1, big, 0),
            TI(TABI_DTYPE_INT64, 1, NV, 1, den, 0), "int64 big / small");
    run_iop(f, r, &IOPS[k], TI(TABI_DTYPE_INT64, 1, NV, 1, num, 0),
            TI(TABI_DTYPE_INT64, 1, NV, 1, big, 0), "int64 small / big");
    targ nz = TI(TABI_DTYPE_INT64, 1, NV, 1, bits, 0);
    run_iop(f, r, &IOPS[k], TI(TABI_DTYPE_INT64, 1, NV, 1, big, 0), nz, "int64 big / bits");
    run_iop(f, r, &SOPS[k], TI(TABI_DTYPE_INT64, 1, NV, 1, big, 0), V(tabi_int(INT64_MIN)),
            "int64 by INT64_MIN");
    run_iop(f, r, &IOPS[k], TI(TABI_DTYPE_INT64, 1, 0, 1, num, 0),
            TI(TABI_DTYPE_INT64, 1, 0, 1, den, 0), "empty");
    /* floats still go to the float paths; a float Scalar makes the result float */
    run_iop(f, r, &SOPS[k], TI(TABI_DTYPE_INT32, 1, NV, 1, num, 0), V(tabi_float(2.5)),
            "int32 by float Scalar");
    run_iop(f, r, &IOPS[k], TD(TABI_DTYPE_FLOAT64, 1, NV, 1, fv, 0),
            TI(TABI_DTYPE_INT32, 1, NV, 1, den, 0), "float64 by int32");
  }
  /* prims: one dtype, one shape */
  const char *pops[3] = {"prims::div", "prims::fmod", "prims::remainder"};
  for (int k = 0; k < 3; k++)
    for (int d = 0; d < 5; d++) {
      char l[120];
      snprintf(l, sizeof l, "%s", tabi_dtype_name(ID[d]));
      targ a[2] = {TI(ID[d], 2, R0, C0, num, 0), TI(ID[d], 2, R0, C0, den, 0)};
      cmp(f, r, pops[k], a, 2, l);
      a[1].tr = 1;
      cmp(f, r, pops[k], a, 2, "transposed divisor");
      a[1].tr = 0;
      a[1].zero_at = 50000;
      cmp(f, r, pops[k], a, 2, "zero divisor");
    }
}

/* --- where with operands of other dtypes than the result ---------------------------- */

static targ WT(tabi_dtype dt, int32_t nd, int64_t s0, int64_t s1, int tr) {
  /* floats from fv (with cv's specials), integers from num */
  return tabi_dtype_is_floating(dt) ? TD(dt, nd, s0, s1, (tr & 1) ? cv : fv, tr)
                                    : TI(dt, nd, s0, s1, num, tr);
}

static void where_cases(tabi_runtime *f, tabi_runtime *r) {
  const tabi_dtype pairs[][2] = {
      {TABI_DTYPE_INT32, TABI_DTYPE_FLOAT32},   {TABI_DTYPE_FLOAT16, TABI_DTYPE_INT64},
      {TABI_DTYPE_UINT8, TABI_DTYPE_INT8},      {TABI_DTYPE_BOOL, TABI_DTYPE_INT32},
      {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64}, {TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT16},
      {TABI_DTYPE_INT16, TABI_DTYPE_INT64},     {TABI_DTYPE_INT64, TABI_DTYPE_BFLOAT16},
      {TABI_DTYPE_BOOL, TABI_DTYPE_FLOAT16},    {TABI_DTYPE_INT8, TABI_DTYPE_FLOAT64},
  };
  for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++)
    for (int sw = 0; sw < 2; sw++) {
      tabi_dtype x = pairs[p][sw], y = pairs[p][1 - sw];
      char l[160];
      for (int tr = 0; tr < 4; tr++) {
        targ a[3] = {TI(TABI_DTYPE_BOOL, 2, R0, C0, cnd, tr == 3), WT(x, 2, R0, C0, tr & 1),
                     WT(y, 2, R0, C0, tr >> 1)};
        snprintf(l, sizeof l, "%s / %s tr %d", tabi_dtype_name(x), tabi_dtype_name(y), tr);
        cmp(f, r, "aten::where.self", a, 3, l);
      }
      targ b[3] = {TI(TABI_DTYPE_BOOL, 2, R0, 1, cnd, 0), WT(x, 1, C0, 1, 0), WT(y, 2, R0, C0, 0)};
      snprintf(l, sizeof l, "%s / %s broadcast", tabi_dtype_name(x), tabi_dtype_name(y));
      cmp(f, r, "aten::where.self", b, 3, l);
      targ c[3] = {TI(TABI_DTYPE_BOOL, 2, R0, C0, cnd, 0), WT(x, 0, 1, 1, 0), WT(y, 2, R0, C0, 1)};
      snprintf(l, sizeof l, "%s 0-d / %s", tabi_dtype_name(x), tabi_dtype_name(y));
      cmp(f, r, "aten::where.self", c, 3, l);
    }
  /* a uint8 condition (deprecated) and complex results stay with the reference */
  targ u[3] = {TI(TABI_DTYPE_UINT8, 2, R0, C0, cnd, 0), WT(TABI_DTYPE_INT32, 2, R0, C0, 0),
               WT(TABI_DTYPE_FLOAT32, 2, R0, C0, 0)};
  cmp(f, r, "aten::where.self", u, 3, "uint8 condition");
  targ cx[3] = {TI(TABI_DTYPE_BOOL, 2, R0, C0, cnd, 0), TD(TABI_DTYPE_COMPLEX64, 2, R0, C0, cv, 0),
                WT(TABI_DTYPE_FLOAT32, 2, R0, C0, 0)};
  cmp(f, r, "aten::where.self", cx, 3, "complex64 / float32");
  /* prims do not promote: the reference's error */
  targ pe[3] = {TI(TABI_DTYPE_BOOL, 2, R0, C0, cnd, 0), WT(TABI_DTYPE_INT32, 2, R0, C0, 0),
                WT(TABI_DTYPE_FLOAT32, 2, R0, C0, 0)};
  cmp(f, r, "prims::where", pe, 3, "int32 / float32");
}

/* --- complex ------------------------------------------------------------------------- */

static void cplx_bin(tabi_runtime *f, tabi_runtime *r, const char *op, targ a, targ b,
                     int alpha, tabi_value al, const char *label) {
  targ args[3] = {a, b, V(al)};
  char l[200];
  snprintf(l, sizeof l, "%s %s", tabi_dtype_name(a.is_t ? a.dt : b.dt), label);
  cmp(f, r, op, args, alpha ? 3 : 2, l);
}

static void cplx_cases(tabi_runtime *f, tabi_runtime *r) {
  const tabi_dtype cd[2] = {TABI_DTYPE_COMPLEX64, TABI_DTYPE_COMPLEX128};
  const char *tops[6] = {"aten::add.Tensor", "aten::sub.Tensor", "aten::mul.Tensor",
                         "aten::div.Tensor", "aten::eq.Tensor", "aten::ne.Tensor"};
  const char *sops[6] = {"aten::add.Scalar", "aten::sub.Scalar", "aten::mul.Scalar",
                         "aten::div.Scalar", "aten::eq.Scalar", "aten::ne.Scalar"};
  const char *pops[6] = {"prims::add", "prims::sub", "prims::mul", "prims::div", "prims::eq",
                         "prims::ne"};
  const tabi_value scal[5] = {tabi_float(2.5), tabi_int(-3), tabi_complex(0.5, -1e30),
                              tabi_float(0.0), tabi_float(1e300)};
  for (int d = 0; d < 2; d++) {
    tabi_dtype dt = cd[d];
    for (int o = 0; o < 6; o++) {
      int al = o < 2;
      tabi_value one = tabi_int(1);
      /* specials against specials, against 0 + 0i divisors, tiny and huge */
      cplx_bin(f, r, tops[o], TD(dt, 2, R0, C0, cv, 0), TD(dt, 2, R0, C0, cv + 3, 0), al, one,
               "specials");
      cplx_bin(f, r, tops[o], TD(dt, 2, R0, C0, cv, 0), TD(dt, 2, R0, C0, cz, 0), al, one,
               "zero divisors");
      cplx_bin(f, r, tops[o], TD(dt, 2, R0, C0, cs, 0), TD(dt, 2, R0, C0, cs + 1000, 0), al, one,
               "special pairs");
      cplx_bin(f, r, tops[o], TD(dt, 2, R0, C0, cs + 17, 0), TD(dt, 2, R0, C0, cz, 0), al, one,
               "special pairs by zeros");
      cplx_bin(f, r, tops[o], TD(dt, 2, R0, C0, cz, 0), TD(dt, 1, NV / 10, 1, fv, 0), al, one,
               "broadcast");
      cplx_bin(f, r, tops[o], TD(dt, 2, R0, C0, cv, 1), TD(dt, 2, R0, C0, fv, 0), al, one,
               "transposed");
      cplx_bin(f, r, tops[o], TD(dt, 0, 1, 1, cv + 7, 0), TD(dt, 2, R0, C0, cz, 0), al, one,
               "0-d self");
      cplx_bin(f, r, tops[o], TD(dt, 2, R0, 1, cs, 0), TD(dt, 1, C0, 1, cz, 0), al, one,
               "column by row");
      cplx_bin(f, r, tops[o], TD(dt, 2, R0, C0, cs, 1), TD(dt, 2, R0, C0, cz, 1), al, one,
               "both transposed");
      cplx_bin(f, r, tops[o], TD(TABI_DTYPE_FLOAT64, 2, R0, C0, fv, 1), TD(dt, 2, R0, C0, cs, 0),
               al, one, "float64 self");
      cplx_bin(f, r, tops[o], TD(TABI_DTYPE_FLOAT16, 2, R0, C0, fv, 0), TD(dt, 2, R0, C0, cs, 0),
               al, one, "float16 self (reference)");
      cplx_bin(f, r, tops[o], TD(TABI_DTYPE_INT32, 2, R0, C0, fv, 0), TD(dt, 1, C0, 1, cs, 0),
               al, one, "int32 self (reference)");
      cplx_bin(f, r, tops[o], TD(dt, 0, 1, 1, cs, 0), TD(dt, 0, 1, 1, cz, 0), al, one,
               "0-d by 0-d (reference)");
      cplx_bin(f, r, tops[o], TD(dt, 2, R0, C0, cv, 0), TD(dt, 0, 1, 1, cz, 0), al, one,
               "0-d 0 + 0i other");
      cplx_bin(f, r, tops[o], TD(dt, 2, R0, C0, fv, 0), TD(TABI_DTYPE_FLOAT32, 2, R0, C0, fv, 0),
               al, one, "float32 other");
      if (al) {
        cplx_bin(f, r, tops[o], TD(dt, 2, R0, C0, cv, 0), TD(dt, 2, R0, C0, fv, 0), 1,
                 tabi_float(-2.5), "alpha -2.5");
        cplx_bin(f, r, tops[o], TD(dt, 2, R0, C0, fv, 0), TD(dt, 2, R0, C0, cv, 0), 1,
                 tabi_complex(0.5, 2.0), "alpha 0.5+2j");
        cplx_bin(f, r, tops[o], TD(dt, 2, R0, C0, fv, 0), TD(dt, 2, R0, C0, cv, 0), 1,
                 tabi_bool(1), "alpha True (error)");
        cplx_bin(f, r, tops[o], TD(dt, 2, R0, C0, fv, 0), TD(dt, 2, R0, C0, cv, 0), 1,
                 tabi_float(1e300), "alpha 1e300");
      }
      for (int k = 0; k < 5; k++) {
        char l[64];
        snprintf(l, sizeof l, "Scalar %d", k);
        cplx_bin(f, r, sops[o], TD(dt, 2, R0, C0, cv, 0), V(scal[k]), al, one, l);
      }
      /* a real tensor with a complex Scalar: complex64 result from float32 (reference) */
      cplx_bin(f, r, sops[o], TD(TABI_DTYPE_FLOAT32, 2, R0, C0, fv, 0), V(tabi_complex(1, 2)), al,
               one, "float32 by complex Scalar");
      targ pa[2] = {TD(dt, 2, R0, C0, cv, 0), TD(dt, 2, R0, C0, cz, 0)};
      cmp(f, r, pops[o], pa, 2, tabi_dtype_name(dt));
    }
    targ n1[1] = {TD(dt, 2, R0, C0, cv, 0)};
    cmp(f, r, "aten::neg", n1, 1, "neg");
    cmp(f, r, "prims::neg", n1, 1, "neg");
    n1[0].tr = 1;
    cmp(f, r, "aten::neg", n1, 1, "neg transposed");
    /* div.Tensor_mode None is true division; trunc/floor refuse complex (reference) */
    for (int m = 0; m < 2; m++) {
      targ dm[3] = {TD(dt, 2, R0, C0, cv, 0), TD(dt, 2, R0, C0, cz, 0),
                    V(m ? tabi_string("floor", 5) : tabi_none())};
      cmp(f, r, "aten::div.Tensor_mode", dm, 3, m ? "complex floor" : "complex None");
    }
  }
  /* complex64 promoted to complex128 on load; broadcast shapes that do not fit
   * (the reference's error) */
  for (int o = 0; o < 6; o++) {
    cplx_bin(f, r, tops[o], TD(TABI_DTYPE_COMPLEX64, 2, R0, C0, cs, 1),
             TD(TABI_DTYPE_COMPLEX128, 2, R0, C0, cz, 0), o < 2, tabi_int(1), "by complex128");
    cplx_bin(f, r, tops[o], TD(TABI_DTYPE_COMPLEX64, 2, R0, C0, cs, 0),
             TD(TABI_DTYPE_COMPLEX64, 1, R0, 1, cz, 0), o < 2, tabi_int(1), "shape mismatch");
  }
}

/* --- timings (TABI_TEST_TIMINGS=1) ----------------------------------------------------- */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* best of `reps` calls with the inputs made once */
static double time_op(tabi_runtime *rt, const char *opn, const targ *a, int32_t nargs, int reps) {
  tabi_value args[4], out;
  tabi_tensor *own[4] = {0};
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
      tabi_status st = tabi_call(rt, op, args, nargs, &out, 1);
      double t = now_ms() - t0;
      if (st != TABI_OK) { best = NAN; break; }
      if (t < best) best = t;
      tabi_value_release(&out);
    }
  for (int32_t i = 0; i < nargs; i++)
    if (own[i]) tabi_tensor_release(own[i]);
  return best;
}

static void timings(tabi_runtime *f, tabi_runtime *r) {
  const char *tm = getenv("TABI_TEST_TIMINGS");
  if (!tm || tm[0] != '1') return;
  enum { N = 10000000 };
  const tabi_dtype I64 = TABI_DTYPE_INT64, I32 = TABI_DTYPE_INT32, C64 = TABI_DTYPE_COMPLEX64;
  tabi_value tr = tabi_string("trunc", 5), fl = tabi_string("floor", 5);
  struct { const char *op, *what; targ a[3]; int32_t nargs; } tc[] = {
      {"aten::div.Tensor_mode", "int64 floor", {TI(I64, 1, N, 1, tnum, 0), TI(I64, 1, N, 1, tden, 0), V(fl)}, 3},
      {"aten::div.Tensor_mode", "int64 trunc", {TI(I64, 1, N, 1, tnum, 0), TI(I64, 1, N, 1, tden, 0), V(tr)}, 3},
      {"aten::fmod.Tensor", "int64", {TI(I64, 1, N, 1, tnum, 0), TI(I64, 1, N, 1, tden, 0)}, 2},
      {"aten::remainder.Tensor", "int64", {TI(I64, 1, N, 1, tnum, 0), TI(I64, 1, N, 1, tden, 0)}, 2},
      {"aten::remainder.Tensor", "int64 past 2^52 (scalar)", {TI(I64, 1, N, 1, big, 0), TI(I64, 1, N, 1, tden, 0)}, 2},
      {"aten::remainder.Scalar", "int64 % 7", {TI(I64, 1, N, 1, tnum, 0), V(tabi_int(7))}, 2},
      {"aten::div.Tensor_mode", "int32 floor", {TI(I32, 1, N, 1, tnum, 0), TI(I32, 1, N, 1, tden, 0), V(fl)}, 3},
      {"aten::remainder.Tensor", "int32", {TI(I32, 1, N, 1, tnum, 0), TI(I32, 1, N, 1, tden, 0)}, 2},
      {"aten::mul.Tensor", "complex64", {TD(C64, 1, N, 1, fv, 0), TD(C64, 1, N, 1, fv + 1, 0)}, 2},
      {"aten::div.Tensor", "complex64", {TD(C64, 1, N, 1, fv, 0), TD(C64, 1, N, 1, fv + 1, 0)}, 2},
      {"aten::add.Tensor", "complex64", {TD(C64, 1, N, 1, fv, 0), TD(C64, 1, N, 1, fv + 1, 0), V(tabi_int(1))}, 3},
      {"aten::mul.Tensor", "complex64 with inf/NaN", {TD(C64, 1, N, 1, fv, 0), TD(C64, 1, N, 1, cv, 0)}, 2},
      {"aten::where.self", "int32 / float32 -> float32", {TI(TABI_DTYPE_BOOL, 1, N, 1, cnd, 0), TI(I32, 1, N, 1, tnum, 0), TD(TABI_DTYPE_FLOAT32, 1, N, 1, fv, 0)}, 3},
  };
  printf("%-24s %-28s %10s %12s %8s\n", "op (1e7 elements)", "case", "fast ms", "reference ms", "ratio");
  for (size_t k = 0; k < sizeof tc / sizeof *tc; k++) {
    double tf = time_op(f, tc[k].op, tc[k].a, tc[k].nargs, 15);
    double tq = time_op(r, tc[k].op, tc[k].a, tc[k].nargs, 1);
    printf("%-24s %-28s %10.2f %12.1f %7.1fx\n", tc[k].op, tc[k].what, tf, tq, tq / tf);
    fflush(stdout);
  }
}

static const harness_cases_fn cases[] = {int_cases, where_cases, cplx_cases, timings, NULL};

int main(int argc, char **argv) {
  fill_inputs();
  return harness_main(argc, argv, cases, NULL);
}
