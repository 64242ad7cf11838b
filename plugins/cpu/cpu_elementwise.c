/* plugins/cpu/cpu_elementwise.c: the unary elementwise ops (aten and prims) on the
 * fast engine (cpu_ew_engine.h), as data.
 *
 * Each op is a descriptor: its vector op for float32/float16/bfloat16 (SIMD
 * math, cpu_ew_math.h), its double loop (libm in double, the reference's own
 * formula, so float64 and the ops without vector math give the reference's bits,
 * threaded), its int64 loop for bool/integer inputs, and the input dtypes the
 * reference accepts. The fast kernel takes a tensor of one of those dtypes the
 * engine has a loop for, with the result in the input dtype, bool, or float32
 * for aten's float functions of bool/integer tensors (cast on load); every
 * other call (complex, dtypes the reference refuses) goes to the reference.
 */
#include <math.h>

#include "../../reference/ref_elementwise.h"
#include "../../reference/ref_elementwise_special.h"
#include "cpu_elementwise_cplx.h"
#include "cpu_ew_engine.h"

#define ALL (REF_DTS_BOOL | REF_DTS_INT | REF_DTS_FLOAT)
#define BI (REF_DTS_BOOL | REF_DTS_INT)
#define INT REF_DTS_INT
#define F REF_DTS_FLOAT
#define F2 (REF_DT(TABI_DTYPE_FLOAT32) | REF_DT(TABI_DTYPE_FLOAT64))
/* aten's float functions: bool/integer inputs compute (and return) float32 */
#define TF_FLAG 0x80000000u
#define TF (ALL | TF_FLAG)

/* --- double and int64 loops ------------------------------------------------------ */

#define D1(name, expr)                                                                  \
  static void name(double *x, const double *y, int64_t n, const cpu_ew_call *e) {       \
    for (int64_t i = 0; i < n; i++) {                                                   \
      double a = x[i];                                                                  \
      x[i] = (expr);                                                                    \
      (void)a;                                                                          \
    }                                                                                   \
  }
#define I1(name, expr)                                                                  \
  static void name(int64_t *x, const int64_t *y, int64_t n, const cpu_ew_call *e) {     \
    for (int64_t i = 0; i < n; i++) {                                                   \
      int64_t a = x[i];                                                                 \
      x[i] = (expr);                                                                    \
      (void)a;                                                                          \
    }                                                                                   \
  }

D1(d_sin, sin(a)) D1(d_cos, cos(a)) D1(d_tan, tan(a)) D1(d_asin, asin(a)) D1(d_acos, acos(a))
D1(d_atan, atan(a)) D1(d_sinh, sinh(a)) D1(d_cosh, cosh(a)) D1(d_tanh, tanh(a))
D1(d_asinh, asinh(a)) D1(d_acosh, acosh(a)) D1(d_atanh, atanh(a)) D1(d_exp, exp(a))
D1(d_expm1, expm1(a)) D1(d_exp2, exp2(a)) D1(d_log, log(a)) D1(d_log10, log10(a))
D1(d_log1p, log1p(a)) D1(d_log2, log2(a)) D1(d_sqrt, sqrt(a)) D1(d_rsqrt, 1.0 / sqrt(a))
D1(d_cbrt, cbrt(a)) D1(d_erf, erf(a)) D1(d_erfc, erfc(a)) D1(d_recip, 1.0 / a)
D1(d_sigmoid, 1.0 / (1.0 + exp(-a))) D1(d_lgamma, ref_sf_lgamma(a))
D1(d_digamma, ref_sf_digamma(a)) D1(d_erfinv, ref_sf_erfinv(a)) D1(d_i0, ref_sf_i0(a))
D1(d_i0e, ref_sf_i0e(a)) D1(d_i1, ref_sf_i1(a)) D1(d_i1e, ref_sf_i1e(a)) D1(d_j0, ref_sf_j0(a))
D1(d_j1, ref_sf_j1(a)) D1(d_sph_j0, ref_sf_spherical_j0(a))
D1(d_abs, fabs(a)) D1(d_neg, -a) D1(d_sign, (double)((0 < a) - (a < 0)))
D1(d_ceil, ceil(a)) D1(d_floor, floor(a)) D1(d_trunc, trunc(a)) D1(d_round, nearbyint(a))
D1(d_relu, a < 0 ? 0.0 : a) D1(d_lnot, a == 0) D1(d_isnan, isnan(a) != 0)
D1(d_isinf, isinf(a) != 0) D1(d_isfinite, isfinite(a) != 0) D1(d_signbit, signbit(a) != 0)

I1(i_abs, a < 0 ? (int64_t)(0 - (uint64_t)a) : a) I1(i_neg, (int64_t)(0 - (uint64_t)a))
I1(i_sign, (a > 0) - (a < 0)) I1(i_ident, a) I1(i_relu, a < 0 ? 0 : a)
I1(i_bnot, e->cd == TABI_DTYPE_BOOL ? !a : ~a) I1(i_lnot, !a) I1(i_false, 0) I1(i_true, 1)
I1(i_signbit, a < 0)

/* --- descriptors and kernels ------------------------------------------------------ */

typedef struct ew_un {
  int32_t fop;      /* CPU_EWU_* or -1 */
  cpu_ew_dfn dfn;
  cpu_ew_ifn ifn;
  uint32_t dts;     /* input dtypes the reference accepts */
  int32_t out_bool;
  int32_t heavy;
} ew_un;

static tabi_status ew_unary(const cpu_ctx *c, tabi_value *args, tabi_value *outs, const ew_un *d) {
  if (args[0].tag != TABI_TAG_TENSOR) return CPU_EW_DECLINE;
  tabi_dtype dt = tabi_tensor_dtype(args[0].u.t);
  if (d->fop == CPU_EWU_NEG && tabi_dtype_is_complex(dt)) return cpu_ew_cplx_neg(c, args, outs);
  if (!(d->dts & REF_DT(dt))) return CPU_EW_DECLINE;
  cpu_ew_call e = {0};
  e.kind = CPU_EWK_UNARY;
  e.in[0] = &args[0];
  e.cd = dt;
  if ((d->dts & TF_FLAG) && !tabi_dtype_is_floating(dt)) e.cd = TABI_DTYPE_FLOAT32;
  e.od = d->out_bool ? TABI_DTYPE_BOOL : e.cd;
  e.fop = d->fop;
  e.dfn = d->dfn;
  e.ifn = d->ifn;
  e.heavy = d->heavy;
  return cpu_ew_run(c, &e, outs);
}

#define UN(kname, id, fop, dfn, ifn, dts, ob, heavy)                                      \
  tabi_status kname(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) { \
    static const ew_un d = {fop, dfn, ifn, dts, ob, heavy};                               \
    const cpu_ctx *c = ctx;                                                               \
    tabi_status st = ew_unary(c, args, outs, &d);                                         \
    return st != CPU_EW_DECLINE ? st : CPU_FALLBACK(c, id);                               \
  }
#define N NULL
#define U(x) CPU_EWU_##x

/* aten: bool/integer inputs of the float functions compute in float32 (cast on load) */
UN(cpu_k_sin, SIN, U(SIN), d_sin, N, TF, 0, 1)
UN(cpu_k_cos, COS, U(COS), d_cos, N, TF, 0, 1)
UN(cpu_k_tan, TAN, U(TAN), d_tan, N, TF, 0, 1)
UN(cpu_k_asin, ASIN, -1, d_asin, N, TF, 0, 2)
UN(cpu_k_acos, ACOS, -1, d_acos, N, TF, 0, 2)
UN(cpu_k_atan, ATAN, -1, d_atan, N, TF, 0, 2)
UN(cpu_k_sinh, SINH, -1, d_sinh, N, TF, 0, 2)
UN(cpu_k_cosh, COSH, -1, d_cosh, N, TF, 0, 2)
UN(cpu_k_tanh, TANH, U(TANH), d_tanh, N, TF, 0, 1)
UN(cpu_k_asinh, ASINH, -1, d_asinh, N, TF, 0, 2)
UN(cpu_k_acosh, ACOSH, -1, d_acosh, N, TF, 0, 2)
UN(cpu_k_atanh, ATANH, -1, d_atanh, N, TF, 0, 2)
UN(cpu_k_exp, EXP, U(EXP), d_exp, N, TF, 0, 1)
UN(cpu_k_expm1, EXPM1, U(EXPM1), d_expm1, N, TF, 0, 1)
UN(cpu_k_log, LOG, U(LOG), d_log, N, TF, 0, 1)
UN(cpu_k_log10, LOG10, U(LOG10), d_log10, N, TF, 0, 1)
UN(cpu_k_log1p, LOG1P, U(LOG1P), d_log1p, N, TF, 0, 1)
UN(cpu_k_log2, LOG2, U(LOG2), d_log2, N, TF, 0, 1)
UN(cpu_k_sqrt, SQRT, U(SQRT), d_sqrt, N, TF, 0, 0)
UN(cpu_k_rsqrt, RSQRT, U(RSQRT), d_rsqrt, N, TF, 0, 0)
UN(cpu_k_sigmoid, SIGMOID, U(SIGMOID), d_sigmoid, N, TF, 0, 1)
UN(cpu_k_reciprocal, RECIPROCAL, U(RECIP), d_recip, N, TF, 0, 0)
UN(cpu_k_erf, ERF, U(ERF), d_erf, N, TF, 0, 1)
UN(cpu_k_abs, ABS, U(ABS), d_abs, i_abs, INT | F, 0, 0)
UN(cpu_k_neg, NEG, U(NEG), d_neg, i_neg, INT | F, 0, 0)
UN(cpu_k_sign, SIGN, U(SIGN), d_sign, i_sign, BI | F, 0, 0)
UN(cpu_k_ceil, CEIL, U(CEIL), d_ceil, i_ident, INT | F, 0, 0)
UN(cpu_k_floor, FLOOR, U(FLOOR), d_floor, i_ident, INT | F, 0, 0)
UN(cpu_k_round, ROUND, U(ROUND), d_round, i_ident, INT | F, 0, 0)
UN(cpu_k_trunc, TRUNC, U(TRUNC), d_trunc, i_ident, INT | F, 0, 0)
UN(cpu_k_relu, RELU, U(RELU), d_relu, i_relu, INT | F, 0, 0)
UN(cpu_k_bitwise_not, BITWISE_NOT, -1, N, i_bnot, BI, 0, 0)
UN(cpu_k_logical_not, LOGICAL_NOT, U(LNOT), d_lnot, i_lnot, ALL, 1, 0)
UN(cpu_k_isnan, ISNAN, U(ISNAN), d_isnan, i_false, ALL, 1, 0)
UN(cpu_k_isinf, ISINF, U(ISINF), d_isinf, i_false, ALL, 1, 0)

/* prims: no promotion; the float functions take floating tensors only */
UN(cpu_k_p_sin, P_SIN, U(SIN), d_sin, N, F, 0, 1)
UN(cpu_k_p_cos, P_COS, U(COS), d_cos, N, F, 0, 1)
UN(cpu_k_p_tan, P_TAN, U(TAN), d_tan, N, F, 0, 1)
UN(cpu_k_p_asin, P_ASIN, -1, d_asin, N, F, 0, 2)
UN(cpu_k_p_acos, P_ACOS, -1, d_acos, N, F, 0, 2)
UN(cpu_k_p_atan, P_ATAN, -1, d_atan, N, F, 0, 2)
UN(cpu_k_p_sinh, P_SINH, -1, d_sinh, N, F, 0, 2)
UN(cpu_k_p_cosh, P_COSH, -1, d_cosh, N, F, 0, 2)
UN(cpu_k_p_tanh, P_TANH, U(TANH), d_tanh, N, F, 0, 1)
UN(cpu_k_p_asinh, P_ASINH, -1, d_asinh, N, F, 0, 2)
UN(cpu_k_p_acosh, P_ACOSH, -1, d_acosh, N, F, 0, 2)
UN(cpu_k_p_atanh, P_ATANH, -1, d_atanh, N, F, 0, 2)
UN(cpu_k_p_exp, P_EXP, U(EXP), d_exp, N, F, 0, 1)
UN(cpu_k_p_exp2, P_EXP2, U(EXP2), d_exp2, N, F, 0, 1)
UN(cpu_k_p_expm1, P_EXPM1, U(EXPM1), d_expm1, N, F, 0, 1)
UN(cpu_k_p_log, P_LOG, U(LOG), d_log, N, F, 0, 1)
UN(cpu_k_p_log10, P_LOG10, U(LOG10), d_log10, N, F, 0, 1)
UN(cpu_k_p_log1p, P_LOG1P, U(LOG1P), d_log1p, N, F, 0, 1)
UN(cpu_k_p_log2, P_LOG2, U(LOG2), d_log2, N, F, 0, 1)
UN(cpu_k_p_sqrt, P_SQRT, U(SQRT), d_sqrt, N, F, 0, 0)
UN(cpu_k_p_rsqrt, P_RSQRT, U(RSQRT), d_rsqrt, N, F, 0, 0)
UN(cpu_k_p_reciprocal, P_RECIPROCAL, U(RECIP), d_recip, N, F, 0, 0)
UN(cpu_k_p_cbrt, P_CBRT, -1, d_cbrt, N, F, 0, 2)
UN(cpu_k_p_erf, P_ERF, U(ERF), d_erf, N, F, 0, 1)
UN(cpu_k_p_erfc, P_ERFC, U(ERFC), d_erfc, N, F, 0, 1)
UN(cpu_k_p_erf_inv, P_ERF_INV, -1, d_erfinv, N, F, 0, 2)
UN(cpu_k_p_lgamma, P_LGAMMA, -1, d_lgamma, N, F, 0, 2)
UN(cpu_k_p_digamma, P_DIGAMMA, -1, d_digamma, N, F, 0, 2)
UN(cpu_k_p_bessel_i0, P_BESSEL_I0, -1, d_i0, N, F, 0, 2)
UN(cpu_k_p_bessel_i0e, P_BESSEL_I0E, -1, d_i0e, N, F, 0, 2)
UN(cpu_k_p_bessel_i1, P_BESSEL_I1, -1, d_i1, N, F, 0, 2)
UN(cpu_k_p_bessel_i1e, P_BESSEL_I1E, -1, d_i1e, N, F, 0, 2)
UN(cpu_k_p_bessel_j0, P_BESSEL_J0, -1, d_j0, N, F2, 0, 2)
UN(cpu_k_p_bessel_j1, P_BESSEL_J1, -1, d_j1, N, F2, 0, 2)
UN(cpu_k_p_sph_j0, P_SPH_J0, -1, d_sph_j0, N, F2, 0, 2)
UN(cpu_k_p_abs, P_ABS, U(ABS), d_abs, i_abs, INT | F, 0, 0)
UN(cpu_k_p_neg, P_NEG, U(NEG), d_neg, i_neg, INT | F, 0, 0)
UN(cpu_k_p_sign, P_SIGN, U(SIGN), d_sign, i_sign, BI | F, 0, 0)
UN(cpu_k_p_ceil, P_CEIL, U(CEIL), d_ceil, i_ident, INT | F, 0, 0)
UN(cpu_k_p_floor, P_FLOOR, U(FLOOR), d_floor, i_ident, INT | F, 0, 0)
UN(cpu_k_p_round, P_ROUND, U(ROUND), d_round, i_ident, INT | F, 0, 0)
UN(cpu_k_p_trunc, P_TRUNC, U(TRUNC), d_trunc, i_ident, INT | F, 0, 0)
UN(cpu_k_p_bitwise_not, P_BITWISE_NOT, -1, N, i_bnot, BI, 0, 0)
UN(cpu_k_p_isfinite, P_ISFINITE, U(ISFINITE), d_isfinite, i_true, ALL, 1, 0)
UN(cpu_k_p_signbit, P_SIGNBIT, U(SIGNBIT), d_signbit, i_signbit, BI | F, 1, 0)

/* --- ops with parameters ------------------------------------------------------------ */

#define SQRT1_2 0.707106781186547524400844362104849039
#define SQRT_2_OVER_PI 0.797884560802865355879892119868763737
D1(d_gelu, a * 0.5 * (1.0 + erf(a * SQRT1_2)))
D1(d_gelu_tanh, 0.5 * a * (1.0 + tanh(SQRT_2_OVER_PI * (a + 0.044715 * a * a * a))))
D1(d_leaky, a > 0 ? a : a * e->pd[0])

tabi_status cpu_k_gelu(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  static const ew_un none = {U(GELU), d_gelu, N, F, 0, 1};
  static const ew_un tanh_form = {U(GELU_TANH), d_gelu_tanh, N, F, 0, 1};
  const cpu_ctx *c = ctx;
  tabi_status st = CPU_EW_DECLINE;
  if (ref_ew_str_is(&args[1], "none")) st = ew_unary(c, args, outs, &none);
  else if (ref_ew_str_is(&args[1], "tanh")) st = ew_unary(c, args, outs, &tanh_form);
  return st != CPU_EW_DECLINE ? st : CPU_FALLBACK(c, GELU);
}

tabi_status cpu_k_leaky_relu(void *ctx, const tabi_call *call, tabi_value *args,
                             tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, LEAKY_RELU);
  tabi_dtype dt = tabi_tensor_dtype(args[0].u.t);
  ref_ew_val s;
  if (!tabi_dtype_is_floating(dt) ||
      (args[1].tag != TABI_TAG_INT && args[1].tag != TABI_TAG_FLOAT))
    return CPU_FALLBACK(c, LEAKY_RELU);
  tabi_status st = ref_ew_scalar_to(c->host, call, "negative_slope", &args[1], dt, &s);
  if (st != TABI_OK) return st;
  cpu_ew_call e = {0};
  e.kind = CPU_EWK_UNARY;
  e.in[0] = &args[0];
  e.cd = e.od = dt;
  e.fop = CPU_EWU_LEAKY;
  e.dfn = d_leaky;
  e.f[0] = (float)s.f;
  e.pd[0] = s.f;
  st = cpu_ew_run(c, &e, outs);
  return st != CPU_EW_DECLINE ? st : CPU_FALLBACK(c, LEAKY_RELU);
}
