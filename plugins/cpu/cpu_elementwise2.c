/* plugins/cpu/cpu_elementwise2.c: more elementwise ops on the fast engine
 * (cpu_ew_engine.h): elu, clamp.Tensor, pow.Scalar, atan2.out, and the prims
 * gcd, shift_left, shift_right_arithmetic, nextafter, igamma, igammac, zeta,
 * conj_physical, real, imag.
 *
 * As in cpu_elementwise*.c, ATen's semantics are decided here (result dtype with
 * the reference's ref_ew_result_type, Scalars cast with its helpers) and every
 * case not known, including every argument error, goes to the reference kernel,
 * which words the message. The element functions are the reference's formulas
 * (reference/ref_elementwise*.c) in double or int64, so results carry the
 * reference's bits; igamma/igammac/zeta call the reference's own special
 * functions (the accuracy oracle) per element, threaded. elu has a vector path
 * (expm1, see cpu_ew_loops.h) for float32/float16/bfloat16.
 * Complex conj_physical/real/imag are a strided copy of float pairs.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include <tabi/half.h>

#include "../../reference/ref_elementwise.h"
#include "../../reference/ref_elementwise_special.h"
#include "../../reference/ref_nextafter16.h"
#include "../../reference/ref_pow.h"
#include "../../reference/ref_shape_util.h"
#include "cpu_ew_engine.h"

#define BI (REF_DTS_BOOL | REF_DTS_INT)
#define F REF_DTS_FLOAT
#define F2 (REF_DT(TABI_DTYPE_FLOAT32) | REF_DT(TABI_DTYPE_FLOAT64))

#define D2(name, expr)                                                                  \
  static void name(double *x, const double *y, int64_t n, const cpu_ew_call *e) {       \
    for (int64_t i = 0; i < n; i++) {                                                   \
      double a = x[i], b = y[i];                                                        \
      x[i] = (expr);                                                                    \
      (void)b;                                                                          \
    }                                                                                   \
  }
#define I2(name, fn)                                                                    \
  static void name(int64_t *x, const int64_t *y, int64_t n, const cpu_ew_call *e) {     \
    for (int64_t i = 0; i < n; i++) x[i] = fn(x[i], y[i], e->cd);                       \
  }

static int is_complex_operand(const tabi_value *v) {
  return v->tag == TABI_TAG_COMPLEX ||
         (v->tag == TABI_TAG_TENSOR && tabi_dtype_is_complex(tabi_tensor_dtype(v->u.t)));
}

/* --- integer element functions (the reference's, ref_elementwise2.c) ------------- */

/* v wrapped to the width of integer dtype dt (two's complement, as a store) */
static int64_t wrap_to(int64_t v, tabi_dtype dt) {
  switch (dt) {
    case TABI_DTYPE_UINT8: return (uint8_t)v;
    case TABI_DTYPE_INT8: return (int8_t)v;
    case TABI_DTYPE_INT16: return (int16_t)v;
    case TABI_DTYPE_INT32: return (int32_t)v;
    default: return v;
  }
}

/* gcd of |a| and |b|, |INT_MIN| wrapping within the dtype as in ATen. Both
 * non-negative (every case but the dtype's minimum): binary gcd (shifts and
 * subtractions, no division; the gcd is unique, so it equals the reference's
 * Euclid); otherwise the reference's own loop, negative remainders and all. */
static inline int64_t gcd1(int64_t a, int64_t b, tabi_dtype cd) {
  a = wrap_to(a < 0 ? (int64_t)(0 - (uint64_t)a) : a, cd);
  b = wrap_to(b < 0 ? (int64_t)(0 - (uint64_t)b) : b, cd);
  if (a >= 0 && b >= 0) {
    uint64_t u = (uint64_t)a, v = (uint64_t)b;
    if (u == 0) return (int64_t)v;
    if (v == 0) return (int64_t)u;
    int sh = __builtin_ctzll(u | v);
    u >>= __builtin_ctzll(u);
    do {
      v >>= __builtin_ctzll(v);
      if (u > v) {
        uint64_t t = u;
        u = v;
        v = t;
      }
      v -= u;
    } while (v != 0);
    return (int64_t)(u << sh);
  }
  while (a != 0) {
    int64_t c = a;
    a = (a == -1) ? 0 : b % a;
    b = c;
  }
  return b;
}
/* shifts by a negative amount or by the width or more: left 0, right the sign
 * fill (the width looked up once per block) */
static void i_shl(int64_t *x, const int64_t *y, int64_t n, const cpu_ew_call *e) {
  const int64_t bits = ref_ew_bits(e->cd);
  for (int64_t i = 0; i < n; i++) {
    int64_t b = y[i];
    x[i] = (b < 0 || b >= bits) ? 0 : (int64_t)((uint64_t)x[i] << (b & 63));
  }
}
static void i_shr(int64_t *x, const int64_t *y, int64_t n, const cpu_ew_call *e) {
  const int64_t max_shift = ref_ew_bits(e->cd) - (e->cd != TABI_DTYPE_UINT8);
  for (int64_t i = 0; i < n; i++) {
    int64_t a = x[i], b = y[i];
    if (b < 0 || b >= max_shift) x[i] = a < 0 ? -1 : 0;
    else x[i] = a < 0 ? ~(~a >> b) : a >> b;
  }
}
/* ATen's powi: the reference's (ref_pow.h) */
static inline int64_t pow1(int64_t a, int64_t b, tabi_dtype cd) {
  (void)cd;
  return ref_powi(a, b);
}
I2(i_gcd, gcd1) I2(i_pow, pow1)

/* --- floating element functions ---------------------------------------------------- */

/* nextafter in float16/bfloat16: the reference's ref_nextafter16 (ref_nextafter16.h) */
/* C's nextafter / nextafterf by their definition (exact, so libm's bits):
 * NaN in, NaN out; equal: b (so -0 toward +0 is +0); from zero the smallest
 * subnormal with b's sign; else one step of the bit pattern toward b */
static double nextafter64(double a, double b) {
  if (isnan(a) || isnan(b)) return a + b;
  if (a == b) return b;
  if (a == 0) return copysign(4.9406564584124654e-324, b);
  uint64_t u;
  memcpy(&u, &a, 8);
  if ((a < b) == (a > 0)) u++;
  else u--;
  memcpy(&a, &u, 8);
  return a;
}
static float nextafter32(float a, float b) {
  if (isnan(a) || isnan(b)) return a + b;
  if (a == b) return b;
  if (a == 0) return copysignf(1.40129846e-45f, b);
  uint32_t u;
  memcpy(&u, &a, 4);
  if ((a < b) == (a > 0)) u++;
  else u--;
  memcpy(&a, &u, 4);
  return a;
}
static void d_nextafter(double *x, const double *y, int64_t n, const cpu_ew_call *e) {
  if (e->cd == TABI_DTYPE_FLOAT64)
    for (int64_t i = 0; i < n; i++) x[i] = nextafter64(x[i], y[i]);
  else if (e->cd == TABI_DTYPE_FLOAT32)
    for (int64_t i = 0; i < n; i++) x[i] = nextafter32((float)x[i], (float)y[i]);
  else
    for (int64_t i = 0; i < n; i++) x[i] = ref_nextafter16(x[i], y[i], e->cd);
}
D2(d_igamma, ref_sf_igamma(a, b)) D2(d_igammac, ref_sf_igammac(a, b)) D2(d_zeta, ref_sf_zeta(a, b))
D2(d_pow, pow(a, b)) D2(d_atan2, atan2(a, b))
D2(d_maximum, isnan(a) ? a : isnan(b) ? b : (a < b ? b : a))
D2(d_minimum, isnan(a) ? a : isnan(b) ? b : (b < a ? b : a))
static inline int64_t max1(int64_t a, int64_t b, tabi_dtype cd) { (void)cd; return a < b ? b : a; }
static inline int64_t min1(int64_t a, int64_t b, tabi_dtype cd) { (void)cd; return b < a ? b : a; }
I2(i_max, max1) I2(i_min, min1)

/* --- prims binary: same dtype, same shape (the reference reports the rest) ---------- */

static tabi_status prim_bin(const cpu_ctx *c, tabi_value *args, tabi_value *outs, cpu_ew_dfn dfn,
                            cpu_ew_ifn ifn, uint32_t dts, int heavy) {
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR) return CPU_EW_DECLINE;
  tabi_dtype dt = tabi_tensor_dtype(args[0].u.t);
  if (tabi_tensor_dtype(args[1].u.t) != dt || !cpu_same_shape(args[0].u.t, args[1].u.t) ||
      !(dts & REF_DT(dt)))
    return CPU_EW_DECLINE;
  cpu_ew_call e = {0};
  e.kind = CPU_EWK_BINARY;
  e.in[0] = &args[0];
  e.in[1] = &args[1];
  e.cd = e.od = dt;
  e.fop = -1;
  e.dfn = dfn;
  e.ifn = ifn;
  e.heavy = heavy;
  return cpu_ew_run(c, &e, outs);
}

#define PRIM(kname, id, dfn, ifn, dts, heavy)                                              \
  tabi_status kname(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) { \
    const cpu_ctx *c = ctx;                                                               \
    tabi_status st = prim_bin(c, args, outs, dfn, ifn, dts, heavy);                       \
    return st != CPU_EW_DECLINE ? st : CPU_FALLBACK(c, id);                               \
  }
PRIM(cpu_k_p_gcd, P_GCD, NULL, i_gcd, REF_DTS_INT, 0)
PRIM(cpu_k_p_shl, P_SHL, NULL, i_shl, REF_DTS_INT, 0)
PRIM(cpu_k_p_shr, P_SHR, NULL, i_shr, REF_DTS_INT, 0)
PRIM(cpu_k_p_nextafter, P_NEXTAFTER, d_nextafter, NULL, F, 1)
PRIM(cpu_k_p_igamma, P_IGAMMA, d_igamma, NULL, F, 2)
PRIM(cpu_k_p_igammac, P_IGAMMAC, d_igammac, NULL, F, 2)
PRIM(cpu_k_p_zeta, P_ZETA, d_zeta, NULL, F2, 2)

/* --- pow.Scalar (Scalar base, tensor exponent) ----------------------------------------- */

tabi_status cpu_k_pow_scalar(void *ctx, const tabi_call *call, tabi_value *args,
                             tabi_value *outs) {
  const cpu_ctx *c = ctx;
  const tabi_value *a = &args[0], *b = &args[1];
  if (b->tag != TABI_TAG_TENSOR || is_complex_operand(a) || is_complex_operand(b) ||
      (a->tag != TABI_TAG_INT && a->tag != TABI_TAG_FLOAT && a->tag != TABI_TAG_BOOL))
    return CPU_FALLBACK(c, POW_SCALAR);
  tabi_dtype rt = ref_ew_result_type(a, b, NULL);
  if (!((REF_DTS_INT | F) & REF_DT(rt))) return CPU_FALLBACK(c, POW_SCALAR);
  cpu_ew_call e = {0};
  e.kind = CPU_EWK_BINARY;
  e.in[0] = a;
  e.in[1] = b;
  e.cd = e.od = rt;
  e.fop = -1;
  e.dfn = d_pow;
  e.ifn = i_pow;
  e.heavy = 2;
  if (cpu_is_fast_float(rt)) {
    /* a positive finite base other than 1 (as the reference casts it):
     * base^x = 2^(x * log2(base)) in the vector loops, the product kept to
     * about 48 bits (cpu_ew_math.h: ew_exp2_mul), ~2 ulp of float32; other
     * bases (0, negative, 1, inf, NaN: pow's special cases) take libm's pow */
    tabi_dtype sdt;
    ref_ew_val sv = ref_ew_scalar(a, &sdt);
    double base = ref_ew_cast(sv, sdt, rt).f;
    if (base > 0 && base != 1 && isfinite(base)) {
      double l2 = log2(base);
      e.kind = CPU_EWK_UNARY;
      e.in[0] = b;
      e.fop = CPU_EWU_EXP2M;
      e.f[0] = (float)l2;
      e.f[1] = (float)(l2 - (double)e.f[0]);
      e.heavy = 1;
    }
  }
  tabi_status st = cpu_ew_run(c, &e, outs);
  return st != CPU_EW_DECLINE ? st : CPU_FALLBACK(c, POW_SCALAR);
}

/* --- atan2.out ----------------------------------------------------------------------- */

/* The result goes straight into `out` when it is contiguous, of the result's
 * dtype and shape and overlaps no input; otherwise it is computed into a new
 * tensor and `out` is resized and written as the reference does. */
tabi_status cpu_k_atan2_out(void *ctx, const tabi_call *call, tabi_value *args,
                            tabi_value *outs) {
  const cpu_ctx *c = ctx;
  const tabi_host_api *h = c->host;
  const tabi_value *a = &args[0], *b = &args[1];
  if (args[2].tag != TABI_TAG_TENSOR || a->tag != TABI_TAG_TENSOR || b->tag != TABI_TAG_TENSOR ||
      is_complex_operand(a) || is_complex_operand(b))
    return CPU_FALLBACK(c, ATAN2_OUT);
  tabi_tensor *out = args[2].u.t;
  if (out->flags & TABI_TENSOR_READ_ONLY) return CPU_FALLBACK(c, ATAN2_OUT);
  static const char *const names[2] = {"self", "other"};
  tabi_status st = rs_check_out_overlap(h, call, out, args, names, 2);
  if (st != TABI_OK) return st;
  tabi_dtype common = ref_ew_result_type(a, b, NULL);
  if (!((BI | F) & REF_DT(common))) return CPU_FALLBACK(c, ATAN2_OUT);
  cpu_ew_call e = {0};
  e.kind = CPU_EWK_BINARY;
  e.in[0] = a;
  e.in[1] = b;
  e.cd = e.od = tabi_dtype_is_floating(common) ? common : TABI_DTYPE_FLOAT32;
  e.fop = CPU_EWB_ATAN2; /* float32/16/bf16: the vector atan2 (cpu_ew_math.h) */
  e.dfn = d_atan2;
  e.heavy = 1;
  e.dst = out;
  st = cpu_ew_run(c, &e, outs);
  if (st != CPU_EW_DECLINE) return st;
  tabi_dtype od = tabi_tensor_dtype(out);
  if (!ref_ew_can_cast(e.cd, od) || tabi_dtype_is_complex(od)) return CPU_FALLBACK(c, ATAN2_OUT);
  e.dst = NULL;
  tabi_value rv;
  st = cpu_ew_run(c, &e, &rv);
  if (st == CPU_EW_DECLINE) return CPU_FALLBACK(c, ATAN2_OUT);
  if (st != TABI_OK) return st;
  tabi_tensor *r = rv.u.t;
  if (!cpu_same_shape(out, r) &&
      (st = h->tensor_resize(h->ctx, out, r->dl.ndim, r->dl.shape)) != TABI_OK) {
    h->tensor_release(h->ctx, r);
    return st;
  }
  ref_copy_convert(out, r);
  h->tensor_release(h->ctx, r);
  h->tensor_retain(h->ctx, out);
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

/* --- elu ------------------------------------------------------------------------------ */

/* ATen: x <= 0 ? (exp(x * input_scale) - 1) * negcoef : x * scale, exp() - 1 rather
 * than expm1 (elu(-0.0) is +0.0), negcoef = alpha * scale rounded to opmath; the
 * exponential overflows where the opmath dtype's would (float's: then
 * (inf - 1) * 0 is NaN), as the reference's f_elu */
static void d_elu(double *x, const double *y, int64_t n, const cpu_ew_call *e) {
  const double nc = e->pd[0], sc = e->pd[1], is = e->pd[2];
  const int narrow = e->cd != TABI_DTYPE_FLOAT64;
  for (int64_t i = 0; i < n; i++) {
    double a = x[i];
    if (a > 0) {
      x[i] = a * sc;
      continue;
    }
    double ex = exp(ref_ew_round_opmath(a * is, e->cd)); /* as f_elu */
    if (narrow && ex > FLT_MAX) ex = INFINITY;
    x[i] = (ex - 1.0) * nc;
  }
}

tabi_status cpu_k_elu(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, ELU);
  tabi_dtype dt = tabi_tensor_dtype(args[0].u.t);
  if (!tabi_dtype_is_floating(dt)) return CPU_FALLBACK(c, ELU);
  ref_ew_val al, sc, is;
  /* the coefficients in opmath, float for the half types, unrounded to them
     (ATen's, and the reference's prep_elu); a Scalar the dtype cannot hold:
     the reference reports it */
  tabi_dtype od = dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16 ? TABI_DTYPE_FLOAT32 : dt;
  if (ref_ew_scalar_to(c->host, call, "alpha", &args[1], od, &al) != TABI_OK ||
      ref_ew_scalar_to(c->host, call, "scale", &args[2], od, &sc) != TABI_OK ||
      ref_ew_scalar_to(c->host, call, "input_scale", &args[3], od, &is) != TABI_OK)
    return CPU_FALLBACK(c, ELU);
  cpu_ew_call e = {0};
  e.kind = CPU_EWK_UNARY;
  e.in[0] = &args[0];
  e.cd = e.od = dt;
  e.fop = CPU_EWU_ELU;
  e.dfn = d_elu;
  e.heavy = 1;
  e.pd[0] = ref_ew_round_opmath(al.f * sc.f, dt);
  e.pd[1] = sc.f;
  e.pd[2] = is.f;
  e.f[0] = (float)e.pd[0];
  e.f[1] = (float)sc.f;
  e.f[2] = (float)is.f;
  tabi_status st = cpu_ew_run(c, &e, outs);
  return st != CPU_EW_DECLINE ? st : CPU_FALLBACK(c, ELU);
}

/* --- clamp.Tensor ------------------------------------------------------------------------ */

/* both bounds (the reference's k_clamp_tensor): a NaN bound gives NaN, a NaN
 * element stays NaN, min applies first, then max */
static void d_clamp3(double *x, const double *y, const double *z, int64_t n,
                     const cpu_ew_call *e) {
  for (int64_t i = 0; i < n; i++) {
    double v = x[i], lo = y[i], hi = z[i];
    if (isnan(lo) || isnan(hi)) {
      v = NAN;
    } else if (!isnan(v)) {
      if (v < lo) v = lo;
      if (v > hi) v = hi;
    }
    x[i] = v;
  }
}
static void i_clamp3(int64_t *x, const int64_t *y, const int64_t *z, int64_t n,
                     const cpu_ew_call *e) {
  for (int64_t i = 0; i < n; i++) {
    int64_t v = x[i];
    if (v < y[i]) v = y[i];
    if (v > z[i]) v = z[i];
    x[i] = v;
  }
}

/* One bound alone is maximum / minimum (NaN propagates from either side). */
tabi_status cpu_k_clamp_tensor(void *ctx, const tabi_call *call, tabi_value *args,
                               tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, CLAMP_TENSOR);
  int has_min = args[1].tag == TABI_TAG_TENSOR, has_max = args[2].tag == TABI_TAG_TENSOR;
  if ((!has_min && args[1].tag != TABI_TAG_NONE) || (!has_max && args[2].tag != TABI_TAG_NONE) ||
      (!has_min && !has_max))
    return CPU_FALLBACK(c, CLAMP_TENSOR);
  for (int k = 0; k < 3; k++)
    if (is_complex_operand(&args[k])) return CPU_FALLBACK(c, CLAMP_TENSOR);
  tabi_dtype rt = ref_ew_result_type(&args[0], &args[1], &args[2]);
  if (tabi_dtype_is_complex(rt) || (rt == TABI_DTYPE_BOOL && has_min && has_max))
    return CPU_FALLBACK(c, CLAMP_TENSOR);
  cpu_ew_call e = {0};
  e.in[0] = &args[0];
  e.cd = e.od = rt;
  if (has_min && has_max && cpu_is_fast_float(rt)) {
    /* the vector loops: maximum(x, min), then minimum(that, max), which is the
     * reference's rule exactly (NaN from any operand; ties keep x; min > max
     * gives max) and exact in float16/bfloat16 (each pass picks an operand) */
    e.kind = CPU_EWK_BINARY;
    e.in[1] = &args[1];
    e.fop = CPU_EWB_MAXIMUM;
    e.dfn = d_maximum;
    tabi_value tmp;
    tabi_status st = cpu_ew_run(c, &e, &tmp);
    if (st == CPU_EW_DECLINE) return CPU_FALLBACK(c, CLAMP_TENSOR);
    if (st != TABI_OK) return st;
    e.in[0] = &tmp;
    e.in[1] = &args[2];
    e.fop = CPU_EWB_MINIMUM;
    e.dfn = d_minimum;
    st = cpu_ew_run(c, &e, outs);
    c->host->tensor_release(c->host->ctx, tmp.u.t);
    return st != CPU_EW_DECLINE ? st : CPU_FALLBACK(c, CLAMP_TENSOR);
  }
  if (has_min && has_max) {
    e.kind = CPU_EWK_TERNARY;
    e.in[1] = &args[1];
    e.in[2] = &args[2];
    e.fop = -1;
    e.dfn3 = d_clamp3;
    e.ifn3 = i_clamp3;
  } else {
    e.kind = CPU_EWK_BINARY;
    e.in[1] = has_min ? &args[1] : &args[2];
    e.fop = has_min ? CPU_EWB_MAXIMUM : CPU_EWB_MINIMUM;
    e.dfn = has_min ? d_maximum : d_minimum;
    e.ifn = has_min ? i_max : i_min;
  }
  tabi_status st = cpu_ew_run(c, &e, outs);
  return st != CPU_EW_DECLINE ? st : CPU_FALLBACK(c, CLAMP_TENSOR);
}

/* --- conj_physical, real, imag ------------------------------------------------------------- */

static void d_ident(double *x, const double *y, int64_t n, const cpu_ew_call *e) {
  (void)x, (void)y, (void)n, (void)e;
}
static void i_ident(int64_t *x, const int64_t *y, int64_t n, const cpu_ew_call *e) {
  (void)x, (void)y, (void)n, (void)e;
}

enum { CX_CONJ, CX_REAL, CX_IMAG };

typedef struct cx_job {
  int mode, dbl;           /* CX_*, complex128 */
  int32_t nd;
  int64_t shape[16], str[16]; /* input strides in complex elements; output contiguous */
  const char *src;
  char *dst;
} cx_job;

#define CX_ROW(T)                                                                     \
  {                                                                                   \
    const T *s = (const T *)(const void *)sp;                                         \
    T *d = (T *)(void *)dp;                                                           \
    if (j->mode == CX_CONJ)                                                           \
      for (int64_t i = 0; i < len; i++) {                                             \
        d[2 * i] = s[2 * i * st];                                                     \
        d[2 * i + 1] = -s[2 * i * st + 1];                                            \
      }                                                                               \
    else                                                                              \
      for (int64_t i = 0; i < len; i++) d[i] = s[2 * i * st + part];                  \
  }

static void cx_range(void *arg, int64_t begin, int64_t end) {
  const cx_job *j = arg;
  const int32_t nd = j->nd;
  const int64_t ces = j->dbl ? 16 : 8, oes = j->mode == CX_CONJ ? ces : ces / 2;
  const int part = j->mode == CX_IMAG;
  int64_t idx[16], rem = begin;
  for (int32_t d = nd - 1; d >= 0; d--) {
    idx[d] = rem % j->shape[d];
    rem /= j->shape[d];
  }
  int64_t pos = begin;
  while (pos < end) {
    int64_t off = 0;
    for (int32_t d = 0; d < nd; d++) off += idx[d] * j->str[d];
    int64_t len = j->shape[nd - 1] - idx[nd - 1];
    if (len > end - pos) len = end - pos;
    const char *sp = j->src + off * ces;
    char *dp = j->dst + pos * oes;
    const int64_t st = j->str[nd - 1];
    if (j->dbl) CX_ROW(double) else CX_ROW(float)
    pos += len;
    idx[nd - 1] += len;
    for (int32_t d = nd - 1; d > 0 && idx[d] >= j->shape[d]; d--) {
      idx[d] = 0;
      idx[d - 1]++;
    }
  }
}

/* complex64/complex128 of any strides into a new contiguous tensor */
static tabi_status cx_map(const cpu_ctx *c, const tabi_tensor *t, int mode, tabi_value *outs) {
  tabi_dtype dt = tabi_tensor_dtype(t);
  if ((dt != TABI_DTYPE_COMPLEX64 && dt != TABI_DTYPE_COMPLEX128) || t->dl.ndim > 16)
    return CPU_EW_DECLINE;
  tabi_dtype od = mode == CX_CONJ ? dt : dt == TABI_DTYPE_COMPLEX64 ? TABI_DTYPE_FLOAT32
                                                                     : TABI_DTYPE_FLOAT64;
  tabi_tensor *out = NULL;
  tabi_status st = cpu_empty(c, t, od, t->dl.ndim, t->dl.shape, &out);
  if (st != TABI_OK) return st;
  int64_t numel = tabi_tensor_numel(out);
  if (numel > 0) {
    cx_job j;
    memset(&j, 0, sizeof j);
    j.mode = mode;
    j.dbl = dt == TABI_DTYPE_COMPLEX128;
    /* drop size-1 dims, merge dims the input walks linearly */
    for (int32_t d = 0; d < t->dl.ndim; d++) {
      int64_t n = t->dl.shape[d], s = t->dl.strides[d];
      if (n == 1) continue;
      if (j.nd > 0 && j.str[j.nd - 1] == s * n) {
        j.shape[j.nd - 1] *= n;
        j.str[j.nd - 1] = s;
        continue;
      }
      j.shape[j.nd] = n;
      j.str[j.nd] = s;
      j.nd++;
    }
    if (j.nd == 0) {
      j.nd = 1;
      j.shape[0] = 1;
      j.str[0] = 0;
    }
    j.src = tabi_tensor_data(t);
    j.dst = tabi_tensor_data(out);
    cpu_parallel_for(c->pool, numel, 32768, cx_range, &j);
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

/* real dtypes: a copy through the engine (the reference's identity) */
tabi_status cpu_k_p_conj_physical(void *ctx, const tabi_call *call, tabi_value *args,
                                  tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, P_CONJ_PHYSICAL);
  tabi_dtype dt = tabi_tensor_dtype(args[0].u.t);
  tabi_status st;
  if (tabi_dtype_is_complex(dt)) {
    st = cx_map(c, args[0].u.t, CX_CONJ, outs);
  } else {
    cpu_ew_call e = {0};
    e.kind = CPU_EWK_UNARY;
    e.in[0] = &args[0];
    e.cd = e.od = dt;
    e.fop = CPU_EWU_COPY;
    e.dfn = d_ident;
    e.ifn = i_ident;
    st = (REF_DTS_ALL & REF_DT(dt)) ? cpu_ew_run(c, &e, outs) : CPU_EW_DECLINE;
  }
  return st != CPU_EW_DECLINE ? st : CPU_FALLBACK(c, P_CONJ_PHYSICAL);
}
tabi_status cpu_k_p_real(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = args[0].tag == TABI_TAG_TENSOR ? cx_map(c, args[0].u.t, CX_REAL, outs)
                                                  : CPU_EW_DECLINE;
  return st != CPU_EW_DECLINE ? st : CPU_FALLBACK(c, P_REAL);
}
tabi_status cpu_k_p_imag(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = args[0].tag == TABI_TAG_TENSOR ? cx_map(c, args[0].u.t, CX_IMAG, outs)
                                                  : CPU_EW_DECLINE;
  return st != CPU_EW_DECLINE ? st : CPU_FALLBACK(c, P_IMAG);
}
