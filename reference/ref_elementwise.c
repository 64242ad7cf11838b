/* reference/ref_elementwise.c: unary elementwise ops (aten and prims), as data.
 *
 * Each op is a descriptor (accepted dtypes, promotion rule, element functions
 * for the int64 / double / complex categories) run by ref_ew_unary_kernel. The
 * aten forms promote bool and integer inputs to float32 where ATen does ("int
 * to float": sin, exp, sqrt, ...); the prims never promote, so a float function
 * on an integer tensor is refused and the decompositions convert first.
 */
#include "ref_cplx_util.h"
#include "ref_elementwise.h"
#include "ref_elementwise_special.h"

#include <float.h>
#include <math.h>

#define LN10 2.302585092994045684017991454684364208
#define LN2 0.693147180559945309417232121458176568
#define SQRT1_2 0.707106781186547524400844362104849039
#define SQRT_2_OVER_PI 0.797884560802865355879892119868763737

#define ALL REF_DTS_ALL
#define BI (REF_DTS_BOOL | REF_DTS_INT)
#define INT REF_DTS_INT
#define F REF_DTS_FLOAT
#define C REF_DTS_COMPLEX
#define F2 (REF_DT(TABI_DTYPE_FLOAT32) | REF_DT(TABI_DTYPE_FLOAT64))

/* --- element functions -------------------------------------------------------- */

#define FN_F(name, expr) static double name(double a, ref_ew_ctx *x) { return (expr); }
#define FN_C(name, expr) static ref_cplx name(ref_cplx a, ref_ew_ctx *x) { return (expr); }
#define FN_I(name, expr) static int64_t name(int64_t a, ref_ew_ctx *x) { return (expr); }

FN_F(f_sin, sin(a)) FN_F(f_cos, cos(a)) FN_F(f_tan, tan(a))
FN_F(f_asin, asin(a)) FN_F(f_acos, acos(a)) FN_F(f_atan, atan(a))
FN_F(f_sinh, sinh(a)) FN_F(f_cosh, cosh(a)) FN_F(f_tanh, tanh(a))
FN_F(f_asinh, asinh(a)) FN_F(f_acosh, acosh(a)) FN_F(f_atanh, atanh(a))
FN_F(f_exp, exp(a)) FN_F(f_expm1, expm1(a)) FN_F(f_exp2, exp2(a))
FN_F(f_log, log(a)) FN_F(f_log10, log10(a)) FN_F(f_log1p, log1p(a)) FN_F(f_log2, log2(a))
FN_F(f_sqrt, sqrt(a)) FN_F(f_rsqrt, 1.0 / sqrt(a)) FN_F(f_cbrt, cbrt(a))
FN_F(f_erf, erf(a)) FN_F(f_erfc, erfc(a)) FN_F(f_reciprocal, 1.0 / a)
FN_F(f_sigmoid, 1.0 / (1.0 + exp(-a)))
FN_F(f_lgamma, ref_sf_lgamma(a)) FN_F(f_digamma, ref_sf_digamma(a))
FN_F(f_erfinv, ref_sf_erfinv(a))
FN_F(f_i0, ref_sf_i0(a)) FN_F(f_i0e, ref_sf_i0e(a)) FN_F(f_i1, ref_sf_i1(a))
FN_F(f_i1e, ref_sf_i1e(a)) FN_F(f_j0, ref_sf_j0(a)) FN_F(f_j1, ref_sf_j1(a))
FN_F(f_sph_j0, ref_sf_spherical_j0(a))

FN_C(c_sin, csin(a)) FN_C(c_cos, ccos(a)) FN_C(c_tan, ctan(a))
FN_C(c_asin, casin(a)) FN_C(c_acos, cacos(a)) FN_C(c_atan, catan(a))
FN_C(c_sinh, csinh(a)) FN_C(c_cosh, ccosh(a)) FN_C(c_tanh, ctanh(a))
FN_C(c_asinh, casinh(a)) FN_C(c_acosh, cacosh(a)) FN_C(c_atanh, catanh(a))
FN_C(c_exp, cexp(a)) FN_C(c_exp2, cexp(a * LN2))
FN_C(c_log, clog(a)) FN_C(c_log10, clog(a) / LN10) FN_C(c_log2, clog(a) / LN2)
/* The divisions are c10::complex's (Smith's algorithm, no C99 infinity recovery),
 * as ATen's scalar kernels: 1 / a, 1 / std::sqrt(a), 1 / (1 + std::exp(-a)), the
 * 1 being complex (1, 0) (so 1 + (x - 0i) has imaginary +0). */
FN_C(c_sqrt, csqrt(a)) FN_C(c_rsqrt, ref_c10_div(1.0, csqrt(a)))
FN_C(c_reciprocal, ref_c10_div(1.0, a))
FN_C(c_sigmoid, ref_c10_div(1.0, CMPLX(1.0, 0.0) + cexp(-a)))

/* exp(z) - 1 without cancellation for small z (ATen's formula). */
static ref_cplx c_expm1(ref_cplx z, ref_ew_ctx *x) {
  double re = creal(z), im = cimag(z), s = sin(im / 2);
  return CMPLX(expm1(re) * cos(im) - 2 * s * s, exp(re) * sin(im));
}

/* log(1 + z) without cancellation for small |z| (ATen's formula). */
static ref_cplx c_log1p(ref_cplx z, ref_ew_ctx *x) {
  double re = creal(z), im = cimag(z);
  double theta = atan2(im, re + 1);
  if (cabs(z) < 0.5) {
    double r = re * (2 + re) + im * im;
    if (r == 0) return CMPLX(re, theta);
    return CMPLX(log1p(r) / 2, theta);
  }
  return CMPLX(log(hypot(re + 1, im)), theta);
}

/* abs of INT_MIN wraps to itself, as two's complement (and ATen) does. */
FN_I(i_abs, a < 0 ? ref_wrap_neg(a) : a) FN_F(f_abs, fabs(a)) FN_C(c_abs, CMPLX(cabs(a), 0.0))
FN_I(i_neg, ref_wrap_neg(a)) FN_F(f_neg, -a) FN_C(c_neg, -a)
/* sign(NaN) is 0 and sign(-0.0) is 0, as ATen's (0 < a) - (a < 0). */
FN_I(i_sign, (a > 0) - (a < 0)) FN_F(f_sign, (double)((0 < a) - (a < 0)))
FN_I(i_ident, a) FN_F(f_ident, a)
FN_F(f_ceil, ceil(a)) FN_F(f_floor, floor(a)) FN_F(f_trunc, trunc(a))
FN_F(f_round, nearbyint(a)) /* half to even in the default rounding mode */
/* relu keeps -0.0 and NaN: ATen's clamp_min(a, 0) is std::max(a, 0) = a unless a < 0. */
FN_I(i_relu, a < 0 ? 0 : a) FN_F(f_relu, a < 0 ? 0.0 : a)
FN_I(i_bitwise_not, x->cd == TABI_DTYPE_BOOL ? !a : ~a)
FN_I(i_lnot, !a) FN_F(f_lnot, a == 0) FN_C(c_lnot, a == 0)
FN_I(i_false, 0) FN_I(i_true, 1)
FN_F(f_isnan, isnan(a) != 0) FN_C(c_isnan, isnan(creal(a)) || isnan(cimag(a)))
FN_F(f_isinf, isinf(a) != 0) FN_C(c_isinf, isinf(creal(a)) || isinf(cimag(a)))
FN_F(f_isfinite, isfinite(a) != 0) FN_C(c_isfinite, isfinite(creal(a)) && isfinite(cimag(a)))
FN_I(i_signbit, a < 0) FN_F(f_signbit, signbit(a) != 0)
FN_C(c_conj, conj(a)) FN_C(c_real, CMPLX(creal(a), 0.0)) FN_C(c_imag, CMPLX(cimag(a), 0.0))

/* Activations; parameters come from the prepare step, cast to the compute dtype. */
/* exp() - 1 rather than expm1, as ATen: elu(-0.0) is +0.0. The exponential
 * overflows where the opmath dtype's would: float's past FLT_MAX, and then
 * (inf - 1) * 0 is NaN (elu(-0.59, scale=0, input_scale=-1000) in float32). */
static double f_elu(double a, ref_ew_ctx *x) {
  if (a > 0) return a * x->pf[1];
  /* x * input_scale rounds to opmath before the exponential, as ATen's: at
     exp(60) a float's rounding of the product is 1.9e-6 of the result */
  double e = exp(ref_ew_round_opmath(a * x->pf[2], x->cd));
  if (x->cd != TABI_DTYPE_FLOAT64 && e > FLT_MAX) e = INFINITY;
  return (e - 1.0) * x->pf[0];
}
static double f_leaky_relu(double a, ref_ew_ctx *x) { return a > 0 ? a : a * x->pf[0]; }
static double f_gelu(double a, ref_ew_ctx *x) {
  if (x->pi[0] == 0) return a * 0.5 * (1.0 + erf(a * SQRT1_2));
  double inner = SQRT_2_OVER_PI * (a + 0.044715 * a * a * a);
  return 0.5 * a * (1.0 + tanh(inner));
}

static tabi_status prep_elu(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                            tabi_dtype common, ref_ew_ctx *x) {
  ref_ew_val alpha, scale, iscale;
  tabi_status st;
  /* ATen takes the coefficients in opmath, float for the half types, not
     rounded to them: elu(bfloat16 -2.5, -1, -2.66, -2.18) is 616, not 628 */
  tabi_dtype od = x->cd == TABI_DTYPE_FLOAT16 || x->cd == TABI_DTYPE_BFLOAT16 ? TABI_DTYPE_FLOAT32 : x->cd;
  if ((st = ref_ew_scalar_to(h, call, "alpha", &args[1], od, &alpha)) != TABI_OK) return st;
  if ((st = ref_ew_scalar_to(h, call, "scale", &args[2], od, &scale)) != TABI_OK) return st;
  if ((st = ref_ew_scalar_to(h, call, "input_scale", &args[3], od, &iscale)) != TABI_OK)
    return st;
  x->pf[0] = ref_ew_round_opmath(alpha.f * scale.f, x->cd); /* negcoef = alpha * scale */
  x->pf[1] = scale.f;
  x->pf[2] = iscale.f;
  return TABI_OK;
}

static tabi_status prep_leaky_relu(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_value *args, tabi_dtype common, ref_ew_ctx *x) {
  ref_ew_val slope;
  tabi_status st = ref_ew_scalar_to(h, call, "negative_slope", &args[1], x->cd, &slope);
  x->pf[0] = slope.f;
  return st;
}

static tabi_status prep_gelu(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                             tabi_dtype common, ref_ew_ctx *x) {
  if (ref_ew_str_is(&args[1], "none")) x->pi[0] = 0;
  else if (ref_ew_str_is(&args[1], "tanh")) x->pi[0] = 1;
  else
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'approximate' must be 'none' or 'tanh', got '%.*s'",
                   ref_op_name(h, call), (int)(args[1].tag == TABI_TAG_STRING ? args[1].u.list.len : 0),
                   args[1].tag == TABI_TAG_STRING ? tabi_value_str(&args[1]) : "");
  return TABI_OK;
}

/* --- descriptors and kernels -------------------------------------------------- */

#define UN(kname, dts, rule, flags, fi, ff, fc, prep)                                \
  static const ref_ew_unary_op kname##_op = {dts, rule, flags, fi, ff, fc, prep}; \
  REF_EW_UNARY(kname, kname##_op)
/* aten ops: the descriptor is exported as ref_ew_aten_<name> (ref_elementwise.h) */
#define UA(name, dts, rule, fi, ff, fc, prep)                                    \
  const ref_ew_unary_op ref_ew_aten_##name = {dts, rule, 0, fi, ff, fc, prep}; \
  REF_EW_UNARY(k_##name, ref_ew_aten_##name)
#define TF REF_EW_INT_TO_FLOAT
#define SAME REF_EW_SAME
#define P REF_EW_PRIM

/* aten: int to float, complex where ATen has it */
UA(sin, ALL, TF, NULL, f_sin, c_sin, NULL)
UA(cos, ALL, TF, NULL, f_cos, c_cos, NULL)
UA(tan, ALL, TF, NULL, f_tan, c_tan, NULL)
UA(asin, ALL, TF, NULL, f_asin, c_asin, NULL)
UA(acos, ALL, TF, NULL, f_acos, c_acos, NULL)
UA(atan, ALL, TF, NULL, f_atan, c_atan, NULL)
UA(sinh, ALL, TF, NULL, f_sinh, c_sinh, NULL)
UA(cosh, ALL, TF, NULL, f_cosh, c_cosh, NULL)
UA(tanh, ALL, TF, NULL, f_tanh, c_tanh, NULL)
UA(asinh, ALL, TF, NULL, f_asinh, c_asinh, NULL)
UA(acosh, ALL, TF, NULL, f_acosh, c_acosh, NULL)
UA(atanh, ALL, TF, NULL, f_atanh, c_atanh, NULL)
UA(exp, ALL, TF, NULL, f_exp, c_exp, NULL)
UA(expm1, ALL, TF, NULL, f_expm1, c_expm1, NULL)
UA(log, ALL, TF, NULL, f_log, c_log, NULL)
UA(log10, ALL, TF, NULL, f_log10, c_log10, NULL)
UA(log1p, ALL, TF, NULL, f_log1p, c_log1p, NULL)
UA(log2, ALL, TF, NULL, f_log2, c_log2, NULL)
UA(sqrt, ALL, TF, NULL, f_sqrt, c_sqrt, NULL)
UA(rsqrt, ALL, TF, NULL, f_rsqrt, c_rsqrt, NULL)
UA(sigmoid, ALL, TF, NULL, f_sigmoid, c_sigmoid, NULL)
UA(reciprocal, ALL, TF, NULL, f_reciprocal, c_reciprocal, NULL)
UA(erf, BI | F, TF, NULL, f_erf, NULL, NULL)
/* aten: same dtype */
UA(abs, INT | F | C, REF_EW_TO_REAL, i_abs, f_abs, c_abs, NULL)
UA(neg, INT | F | C, SAME, i_neg, f_neg, c_neg, NULL)
UA(sign, BI | F, SAME, i_sign, f_sign, NULL, NULL)
UA(ceil, INT | F, SAME, i_ident, f_ceil, NULL, NULL)
UA(floor, INT | F, SAME, i_ident, f_floor, NULL, NULL)
UA(round, INT | F, SAME, i_ident, f_round, NULL, NULL)
UA(trunc, INT | F, SAME, i_ident, f_trunc, NULL, NULL)
UA(relu, INT | F, SAME, i_relu, f_relu, NULL, NULL)
UA(bitwise_not, BI, SAME, i_bitwise_not, NULL, NULL, NULL)
UA(logical_not, ALL, REF_EW_BOOL, i_lnot, f_lnot, c_lnot, NULL)
UA(isnan, ALL, REF_EW_BOOL, i_false, f_isnan, c_isnan, NULL)
UA(isinf, ALL, REF_EW_BOOL, i_false, f_isinf, c_isinf, NULL)
UA(elu, F, SAME, NULL, f_elu, NULL, prep_elu)
UA(leaky_relu, F, SAME, NULL, f_leaky_relu, NULL, prep_leaky_relu)
UA(gelu, F, SAME, NULL, f_gelu, NULL, prep_gelu)

/* prims: no promotion; floating functions take floating (and complex) tensors */
UN(p_sin, F | C, SAME, P, NULL, f_sin, c_sin, NULL)
UN(p_cos, F | C, SAME, P, NULL, f_cos, c_cos, NULL)
UN(p_tan, F | C, SAME, P, NULL, f_tan, c_tan, NULL)
UN(p_asin, F | C, SAME, P, NULL, f_asin, c_asin, NULL)
UN(p_acos, F | C, SAME, P, NULL, f_acos, c_acos, NULL)
UN(p_atan, F | C, SAME, P, NULL, f_atan, c_atan, NULL)
UN(p_sinh, F | C, SAME, P, NULL, f_sinh, c_sinh, NULL)
UN(p_cosh, F | C, SAME, P, NULL, f_cosh, c_cosh, NULL)
UN(p_tanh, F | C, SAME, P, NULL, f_tanh, c_tanh, NULL)
UN(p_asinh, F | C, SAME, P, NULL, f_asinh, c_asinh, NULL)
UN(p_acosh, F | C, SAME, P, NULL, f_acosh, c_acosh, NULL)
UN(p_atanh, F | C, SAME, P, NULL, f_atanh, c_atanh, NULL)
UN(p_exp, F | C, SAME, P, NULL, f_exp, c_exp, NULL)
UN(p_exp2, F | C, SAME, P, NULL, f_exp2, c_exp2, NULL)
UN(p_expm1, F | C, SAME, P, NULL, f_expm1, c_expm1, NULL)
UN(p_log, F | C, SAME, P, NULL, f_log, c_log, NULL)
UN(p_log10, F | C, SAME, P, NULL, f_log10, c_log10, NULL)
UN(p_log1p, F | C, SAME, P, NULL, f_log1p, c_log1p, NULL)
UN(p_log2, F | C, SAME, P, NULL, f_log2, c_log2, NULL)
UN(p_sqrt, F | C, SAME, P, NULL, f_sqrt, c_sqrt, NULL)
UN(p_rsqrt, F | C, SAME, P, NULL, f_rsqrt, c_rsqrt, NULL)
UN(p_reciprocal, F | C, SAME, P, NULL, f_reciprocal, c_reciprocal, NULL)
UN(p_cbrt, F, SAME, P, NULL, f_cbrt, NULL, NULL)
UN(p_erf, F, SAME, P, NULL, f_erf, NULL, NULL)
UN(p_erfc, F, SAME, P, NULL, f_erfc, NULL, NULL)
UN(p_erf_inv, F, SAME, P, NULL, f_erfinv, NULL, NULL)
UN(p_lgamma, F, SAME, P, NULL, f_lgamma, NULL, NULL)
UN(p_digamma, F, SAME, P, NULL, f_digamma, NULL, NULL)
UN(p_bessel_i0, F, SAME, P, NULL, f_i0, NULL, NULL)
UN(p_bessel_i0e, F, SAME, P, NULL, f_i0e, NULL, NULL)
UN(p_bessel_i1, F, SAME, P, NULL, f_i1, NULL, NULL)
UN(p_bessel_i1e, F, SAME, P, NULL, f_i1e, NULL, NULL)
UN(p_bessel_j0, F2, SAME, P, NULL, f_j0, NULL, NULL)
UN(p_bessel_j1, F2, SAME, P, NULL, f_j1, NULL, NULL)
UN(p_sph_j0, F2, SAME, P, NULL, f_sph_j0, NULL, NULL)
UN(p_abs, INT | F | C, REF_EW_TO_REAL, P, i_abs, f_abs, c_abs, NULL)
UN(p_neg, INT | F | C, SAME, P, i_neg, f_neg, c_neg, NULL)
UN(p_sign, BI | F, SAME, P, i_sign, f_sign, NULL, NULL)
UN(p_ceil, INT | F, SAME, P, i_ident, f_ceil, NULL, NULL)
UN(p_floor, INT | F, SAME, P, i_ident, f_floor, NULL, NULL)
UN(p_round, INT | F, SAME, P, i_ident, f_round, NULL, NULL)
UN(p_trunc, INT | F, SAME, P, i_ident, f_trunc, NULL, NULL)
UN(p_bitwise_not, BI, SAME, P, i_bitwise_not, NULL, NULL, NULL)
UN(p_isfinite, ALL, REF_EW_BOOL, P, i_true, f_isfinite, c_isfinite, NULL)
UN(p_signbit, BI | F, REF_EW_BOOL, P, i_signbit, f_signbit, NULL, NULL)
UN(p_conj_physical, ALL, SAME, P, i_ident, f_ident, c_conj, NULL)
UN(p_real, C, REF_EW_TO_REAL, P, NULL, NULL, c_real, NULL)
UN(p_imag, C, REF_EW_TO_REAL, P, NULL, NULL, c_imag, NULL)

const ref_kernel ref_elementwise_kernels[] = {
    {"aten::sin", k_sin}, {"aten::cos", k_cos}, {"aten::tan", k_tan},
    {"aten::asin", k_asin}, {"aten::acos", k_acos}, {"aten::atan", k_atan},
    {"aten::sinh", k_sinh}, {"aten::cosh", k_cosh}, {"aten::tanh", k_tanh},
    {"aten::asinh", k_asinh}, {"aten::acosh", k_acosh}, {"aten::atanh", k_atanh},
    {"aten::exp", k_exp}, {"aten::expm1", k_expm1}, {"aten::log", k_log},
    {"aten::log10", k_log10}, {"aten::log1p", k_log1p}, {"aten::log2", k_log2},
    {"aten::sqrt", k_sqrt}, {"aten::rsqrt", k_rsqrt}, {"aten::sigmoid", k_sigmoid},
    {"aten::reciprocal", k_reciprocal}, {"aten::erf", k_erf}, {"aten::abs", k_abs},
    {"aten::neg", k_neg}, {"aten::sign", k_sign}, {"aten::ceil", k_ceil},
    {"aten::floor", k_floor}, {"aten::round", k_round}, {"aten::trunc", k_trunc},
    {"aten::relu", k_relu}, {"aten::bitwise_not", k_bitwise_not},
    {"aten::logical_not", k_logical_not}, {"aten::isnan", k_isnan}, {"aten::isinf", k_isinf},
    {"aten::elu", k_elu}, {"aten::leaky_relu", k_leaky_relu}, {"aten::gelu", k_gelu},
    {"prims::sin", p_sin}, {"prims::cos", p_cos}, {"prims::tan", p_tan},
    {"prims::asin", p_asin}, {"prims::acos", p_acos}, {"prims::atan", p_atan},
    {"prims::sinh", p_sinh}, {"prims::cosh", p_cosh}, {"prims::tanh", p_tanh},
    {"prims::asinh", p_asinh}, {"prims::acosh", p_acosh}, {"prims::atanh", p_atanh},
    {"prims::exp", p_exp}, {"prims::exp2", p_exp2}, {"prims::expm1", p_expm1},
    {"prims::log", p_log}, {"prims::log10", p_log10}, {"prims::log1p", p_log1p},
    {"prims::log2", p_log2}, {"prims::sqrt", p_sqrt}, {"prims::rsqrt", p_rsqrt},
    {"prims::reciprocal", p_reciprocal}, {"prims::cbrt", p_cbrt}, {"prims::erf", p_erf},
    {"prims::erfc", p_erfc}, {"prims::erf_inv", p_erf_inv}, {"prims::lgamma", p_lgamma},
    {"prims::digamma", p_digamma}, {"prims::bessel_i0", p_bessel_i0},
    {"prims::bessel_i0e", p_bessel_i0e}, {"prims::bessel_i1", p_bessel_i1},
    {"prims::bessel_i1e", p_bessel_i1e}, {"prims::bessel_j0", p_bessel_j0},
    {"prims::bessel_j1", p_bessel_j1}, {"prims::spherical_bessel_j0", p_sph_j0},
    {"prims::abs", p_abs}, {"prims::neg", p_neg}, {"prims::sign", p_sign},
    {"prims::ceil", p_ceil}, {"prims::floor", p_floor}, {"prims::round", p_round},
    {"prims::trunc", p_trunc}, {"prims::bitwise_not", p_bitwise_not},
    {"prims::isfinite", p_isfinite}, {"prims::signbit", p_signbit},
    {"prims::conj_physical", p_conj_physical}, {"prims::real", p_real}, {"prims::imag", p_imag},
    {NULL, NULL}};
