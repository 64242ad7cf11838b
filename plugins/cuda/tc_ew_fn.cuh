/* plugins/cuda/tc_ew_fn.cuh: the element functions of the elementwise engine
 * (tc_ew.cu), one per value category: un_i/un_f/un_c and bin_i/bin_f/bin_c,
 * each a switch over the TC_U_* / TC_B_* selector, computing as the reference
 * does (double for floating types, wrapping int64, c10/glibc complex rules).
 * The cheap functions (copies and conversions, arithmetic, comparisons,
 * min/max, the activations) are the *_lean switches, which the full ones fall
 * back to, so the engine can compile kernels without the special functions
 * (tc_ew_lean says which ops those serve). Included by tc_ew.cu only. */
#ifndef TABI_TC_EW_FN_CUH
#define TABI_TC_EW_FN_CUH

#include "tc_ew_dev.cuh"
#include "tc_ref_glue.h" /* TC_CLAMP_* */

/* floor division: the reference's own functions (one copy with it and the CPU plugin) */
#define REF_FLOORDIV_FN TC_D
#include "../../reference/ref_floordiv.h"
#define REF_POW_FN TC_D
#include "../../reference/ref_pow.h"
#define REF_NEXTAFTER16_FN TC_D
#include "../../reference/ref_nextafter16.h"

#define LN10 2.302585092994045684017991454684364208
#define LN2 0.693147180559945309417232121458176568

TC_D double round_opmath(double v, int cd) {
  return cd == TABI_DTYPE_FLOAT64 || cd == TABI_DTYPE_COMPLEX128 ? v : (double)(float)v;
}
TC_D int64_t wneg(int64_t a) { return (int64_t)(0 - (uint64_t)a); }
TC_D int64_t wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
TC_D int64_t wsub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
TC_D int64_t wmul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
TC_D int64_t cast_i(int64_t v, int cd) {
  alignas(8) char b[16];
  tc_st_i(b, cd, v);
  return tc_ld_i(b, cd);
}


/* hypot without the overflow of CUDA's for huge arguments (glibc's is exact
 * there): inf wins over NaN, as C requires. */
TC_D double tc_hypot(double a, double b) {
  if (isinf(a) || isinf(b)) return INFINITY;
  if (isnan(a) || isnan(b)) return NAN;
  a = fabs(a);
  b = fabs(b);
  double m = a > b ? a : b, n = a > b ? b : a;
  if (m == 0) return 0.0;
  double r = n / m;
  return m * sqrt(1.0 + r * r);
}
/* log|z| without overflow or underflow of |z| (glibc's clog scales too). */
TC_D double tc_log_abs(double x, double y) {
  if (isinf(x) || isinf(y)) return INFINITY;
  if (isnan(x) || isnan(y)) return NAN;
  double m = fabs(x) > fabs(y) ? fabs(x) : fabs(y);
  if (m == 0) return -INFINITY;
  int e;
  frexp(m, &e);
  /* scaled by 2^-e through ldexp, not by multiplying with 2^-e: for a
     subnormal m, 2^-e is past DBL_MAX (2^1074 for the smallest) */
  return log(tc_hypot(ldexp(x, -e), ldexp(y, -e))) + e * LN2;
}
TC_D tc_c tc_clog(tc_c a) { return tc_c(tc_log_abs(a.real(), a.imag()), atan2(a.imag(), a.real())); }
/* ctanh with C11's special values (glibc): tanh(+-inf + iy) = +-1 + i0*sign,
 * tanh(0 + i{inf,nan}) = 0 + inan, tanh(nan + i0) = nan + i0. */
TC_D tc_c tc_ctanh(tc_c z) {
  double x = z.real(), y = z.imag();
  if (!isfinite(x) || !isfinite(y)) {
    if (isinf(x)) {
      double im = isfinite(y) && fabs(y) > 1 ? copysign(0.0, sin(y) * cos(y)) : copysign(0.0, y);
      return tc_c(copysign(1.0, x), im);
    }
    if (x == 0) return tc_c(x, NAN);
    if (y == 0) return tc_c(NAN, y);
    return tc_c(NAN, NAN);
  }
  return tcx::tanh(z);
}
/* cexp with C99's rule cexp(x + i0) = exp(x) + i0 (thrust gives NaN for inf). */
TC_D tc_c tc_cexp(tc_c a) {
  if (a.imag() == 0) return tc_c(exp(a.real()), a.imag());
  return tcx::exp(a);
}
/* x * y with the recovery of infinities of C's Annex G (G.5.1, as glibc's
 * __muldc3): where the plain product is NaN + iNaN and a factor is infinite,
 * the product is an infinity. cpow needs it: 3.7^(-inf + i inf) is
 * cexp(-inf + i inf) = 0 in glibc, and NaN through the plain product. */
template <typename T>
TC_D tcx::complex<T> tc_cmul_g(tcx::complex<T> x, tcx::complex<T> y) {
  T a = x.real(), b = x.imag(), c = y.real(), d = y.imag();
  T ac = a * c, bd = b * d, ad = a * d, bc = b * c;
  T re = ac - bd, im = ad + bc;
  if (!isnan(re) || !isnan(im)) return tcx::complex<T>(re, im);
  int again = 0;
  if (isinf(a) || isinf(b)) { /* x infinite: its direction, NaNs of y as 0 */
    a = copysign(isinf(a) ? (T)1 : (T)0, a);
    b = copysign(isinf(b) ? (T)1 : (T)0, b);
    if (isnan(c)) c = copysign((T)0, c);
    if (isnan(d)) d = copysign((T)0, d);
    again = 1;
  }
  if (isinf(c) || isinf(d)) {
    c = copysign(isinf(c) ? (T)1 : (T)0, c);
    d = copysign(isinf(d) ? (T)1 : (T)0, d);
    if (isnan(a)) a = copysign((T)0, a);
    if (isnan(b)) b = copysign((T)0, b);
    again = 1;
  }
  if (!again && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) { /* overflow */
    if (isnan(a)) a = copysign((T)0, a);
    if (isnan(b)) b = copysign((T)0, b);
    if (isnan(c)) c = copysign((T)0, c);
    if (isnan(d)) d = copysign((T)0, d);
    again = 1;
  }
  if (again) {
    re = (T)INFINITY * (a * c - b * d);
    im = (T)INFINITY * (a * d + b * c);
  }
  return tcx::complex<T>(re, im);
}

/* cpow as glibc: cexp(b * clog(a)), the product as C's; complex64 in float,
 * as cpowf. */
TC_D tc_c tc_cpow(tc_c a, tc_c b, int cd) {
  if (cd == TABI_DTYPE_COMPLEX64) {
    tcx::complex<float> af((float)a.real(), (float)a.imag()), bf((float)b.real(), (float)b.imag());
    tcx::complex<double> l = tc_clog(tc_c(af.real(), af.imag()));
    tcx::complex<float> lf((float)l.real(), (float)l.imag());
    tcx::complex<float> e = tc_cmul_g(bf, lf);
    if (e.imag() == 0) return tc_c((float)exp((double)e.real()), e.imag());
    tcx::complex<float> r = tcx::exp(e);
    return tc_c(r.real(), r.imag());
  }
  return tc_cexp(tc_cmul_g(b, tc_clog(a)));
}

/* --- unary ---------------------------------------------------------------------- */

/* clamp/hardtanh (tc_ref_glue.h's tc_ew_clamp_plan): flags in p.pi, integer
 * bounds in p.si, floating ones in p.pa; the max bound applies last. */
TC_D int64_t un_i(int op, int64_t a, const tc_ew_params &p) {
  int cd = p.cd;
  switch (op) {
    case TC_U_CLAMP:
      if ((p.pi & TC_CLAMP_MIN) && a < p.si[0]) a = p.si[0];
      if ((p.pi & TC_CLAMP_MAX) && a > p.si[1]) a = p.si[1];
      return a;
    case TC_U_ABS: return a < 0 ? wneg(a) : a;
    case TC_U_NEG: return wneg(a);
    case TC_U_SIGN: return (a > 0) - (a < 0);
    case TC_U_BNOT: return cd == TABI_DTYPE_BOOL ? !a : ~a;
    case TC_U_ISFINITE: return 1;
    case TC_U_SIGNBIT: return a < 0;
    case TC_U_RELU: return a < 0 ? 0 : a;
    case TC_U_ISNAN: case TC_U_ISINF: return 0;
    case TC_U_LNOT: return !a;
    default: return a; /* ident, ceil, floor, round, trunc, conj */
  }
}

/* The activations as the reference computes them (ref_elementwise.c):
 * elu with exp(x) - 1 rather than expm1, so elu(-0.0) is +0.0. */
#define TC_SQRT1_2 0.707106781186547524400844362104849039
#define TC_SQRT_2_OVER_PI 0.797884560802865355879892119868763737
TC_D double tc_gelu(double a, int tanh_form) {
  if (!tanh_form) return a * 0.5 * (1.0 + erf(a * TC_SQRT1_2));
  double inner = TC_SQRT_2_OVER_PI * (a + 0.044715 * a * a * a);
  return 0.5 * a * (1.0 + tanh(inner));
}

TC_D double un_f_lean(int op, double a, const tc_ew_params &p) {
  switch (op) {
    case TC_U_TANH: return tanh(a);
    case TC_U_EXP: return exp(a);
    case TC_U_SQRT: return sqrt(a);
    case TC_U_RSQRT: return 1.0 / sqrt(a);
    case TC_U_RECIP: return 1.0 / a;
    case TC_U_ABS: return fabs(a);
    case TC_U_NEG: return -a;
    case TC_U_SIGN: return (double)((0 < a) - (a < 0));
    case TC_U_CEIL: return ceil(a);
    case TC_U_FLOOR: return floor(a);
    case TC_U_ROUND: return rint(a);
    case TC_U_TRUNC: return trunc(a);
    case TC_U_ISFINITE: return isfinite(a) ? 1.0 : 0.0;
    case TC_U_SIGNBIT: return signbit(a) ? 1.0 : 0.0;
    case TC_U_SIGMOID: return 1.0 / (1.0 + exp(-a));
    case TC_U_RELU: return a < 0 ? 0.0 : a;
    case TC_U_ISNAN: return isnan(a) ? 1.0 : 0.0;
    case TC_U_ISINF: return isinf(a) ? 1.0 : 0.0;
    case TC_U_LNOT: return a == 0 ? 1.0 : 0.0;
    case TC_U_ELU: { /* the exponential overflows where float's does (the reference's f_elu) */
      if (a > 0) return a * p.pa[1];
      double e = exp(round_opmath(a * p.pa[2], p.cd)); /* the product in opmath, as f_elu */
      if (p.cd != TABI_DTYPE_FLOAT64 && e > 3.4028234663852886e38) e = INFINITY;
      return (e - 1.0) * p.pa[0];
    }
    case TC_U_LEAKY_RELU: return a > 0 ? a : a * p.pa[0];
    case TC_U_GELU: return tc_gelu(a, p.pi != 0);
    case TC_U_CLAMP:
      if (p.pi & TC_CLAMP_ALL_NAN) return NAN;
      if (!isnan(a)) {
        if ((p.pi & TC_CLAMP_MIN) && a < p.pa[0]) a = p.pa[0];
        if ((p.pi & TC_CLAMP_MAX) && a > p.pa[1]) a = p.pa[1];
      }
      return a;
    default: return a;
  }
}

TC_D double un_f(int op, double a, const tc_ew_params &p) {
  switch (op) {
    case TC_U_SIN: return sin(a);
    case TC_U_COS: return cos(a);
    case TC_U_TAN: return tan(a);
    case TC_U_ASIN: return asin(a);
    case TC_U_ACOS: return acos(a);
    case TC_U_ATAN: return atan(a);
    case TC_U_SINH: return sinh(a);
    case TC_U_COSH: return cosh(a);
    case TC_U_ASINH: return asinh(a);
    case TC_U_ACOSH: return acosh(a);
    case TC_U_ATANH: return atanh(a);
    case TC_U_EXP2: return exp2(a);
    case TC_U_EXPM1: return expm1(a);
    case TC_U_LOG: return log(a);
    case TC_U_LOG10: return log10(a);
    case TC_U_LOG1P: return log1p(a);
    case TC_U_LOG2: return log2(a);
    case TC_U_CBRT: return cbrt(a);
    case TC_U_ERF: return erf(a);
    case TC_U_ERFC: return erfc(a);
    case TC_U_ERFINV: return ref_sf_erfinv(a);
    case TC_U_LGAMMA: return ref_sf_lgamma(a);
    case TC_U_DIGAMMA: return ref_sf_digamma(a);
    case TC_U_I0: return ref_sf_i0(a);
    case TC_U_I0E: return ref_sf_i0e(a);
    case TC_U_I1: return ref_sf_i1(a);
    case TC_U_I1E: return ref_sf_i1e(a);
    case TC_U_J0: return ref_sf_j0(a);
    case TC_U_J1: return ref_sf_j1(a);
    case TC_U_SPHJ0: return ref_sf_spherical_j0(a);
    default: return un_f_lean(op, a, p);
  }
}

TC_D tc_c un_c_lean(int op, tc_c a) {
  switch (op) {
    case TC_U_NEG: return -a;
    case TC_U_CONJ: return tcx::conj(a);
    case TC_U_REAL: return tc_c(a.real(), 0.0);
    case TC_U_IMAG: return tc_c(a.imag(), 0.0);
    case TC_U_ISFINITE: return tc_c(isfinite(a.real()) && isfinite(a.imag()) ? 1.0 : 0.0, 0.0);
    case TC_U_ISNAN: return tc_c(isnan(a.real()) || isnan(a.imag()) ? 1.0 : 0.0, 0.0);
    case TC_U_ISINF: return tc_c(isinf(a.real()) || isinf(a.imag()) ? 1.0 : 0.0, 0.0);
    case TC_U_LNOT: return tc_c(a.real() == 0 && a.imag() == 0 ? 1.0 : 0.0, 0.0);
    default: return a;
  }
}

TC_D tc_c un_c(int op, tc_c a) {
  switch (op) {
    case TC_U_SIN: return tcx::sin(a);
    case TC_U_COS: return tcx::cos(a);
    case TC_U_TAN: {
      tc_c t = tc_ctanh(tc_c(-a.imag(), a.real()));
      return tc_c(t.imag(), -t.real());
    }
    case TC_U_ASIN: return tcx::asin(a);
    case TC_U_ACOS: return tcx::acos(a);
    case TC_U_ATAN: return tcx::atan(a);
    case TC_U_SINH: return tcx::sinh(a);
    case TC_U_COSH: return tcx::cosh(a);
    case TC_U_TANH: return tc_ctanh(a);
    case TC_U_ASINH: return tcx::asinh(a);
    case TC_U_ACOSH:
      if (a.real() == 0 && isnan(a.imag())) return tc_c(NAN, 1.5707963267948966);
      return tcx::acosh(a);
    case TC_U_ATANH: return tcx::atanh(a);
    case TC_U_EXP: return tc_cexp(a);
    case TC_U_EXP2: return tc_cexp(a * LN2);
    case TC_U_EXPM1: {
      double re = a.real(), im = a.imag(), s = sin(im / 2);
      return tc_c(expm1(re) * cos(im) - 2 * s * s, exp(re) * sin(im));
    }
    case TC_U_LOG: return tc_clog(a);
    case TC_U_LOG10: return tc_clog(a) / LN10;
    case TC_U_LOG2: return tc_clog(a) / LN2;
    case TC_U_LOG1P: {
      double re = a.real(), im = a.imag(), theta = atan2(im, re + 1);
      if (tc_hypot(re, im) < 0.5) {
        double r = re * (2 + re) + im * im;
        if (r == 0) return tc_c(re, theta);
        return tc_c(log1p(r) / 2, theta);
      }
      return tc_c(tc_log_abs(re + 1, im), theta);
    }
    case TC_U_SQRT: return tcx::sqrt(a);
    case TC_U_RSQRT: return tc_cdiv(tc_c(1.0, 0.0), tcx::sqrt(a));
    case TC_U_RECIP: return tc_cdiv(tc_c(1.0, 0.0), a);
    case TC_U_SIGMOID: return tc_cdiv(tc_c(1.0, 0.0), tc_c(1.0, 0.0) + tc_cexp(-a));
    case TC_U_ABS: return tc_c(tc_hypot(a.real(), a.imag()), 0.0);
    default: return un_c_lean(op, a);
  }
}

/* --- binary --------------------------------------------------------------------- */

TC_D int tc_bits(int cd) { return cd == TABI_DTYPE_BOOL ? 8 : 8 * tc_dt_size(cd); }

TC_D int64_t bin_i_lean(int op, int64_t a, int64_t b, const tc_ew_params &p) {
  switch (op) {
    case TC_B_ADD: return wadd(a, wmul(p.pi, b));
    case TC_B_SUB: return wsub(a, wmul(p.pi, b));
    case TC_B_MUL: return wmul(a, b);
    case TC_B_AND: return a & b;
    case TC_B_OR: return a | b;
    case TC_B_XOR: return a ^ b;
    case TC_B_EQ: return a == b;
    case TC_B_NE: return a != b;
    case TC_B_LT: return a < b;
    case TC_B_LE: return a <= b;
    case TC_B_GT: return a > b;
    case TC_B_GE: return a >= b;
    case TC_B_FMAX: case TC_B_MAXIMUM: return a < b ? b : a;
    case TC_B_FMIN: case TC_B_MINIMUM: return b < a ? b : a;
    case TC_B_SHL:
      if (b < 0 || b >= tc_bits(p.cd)) return 0;
      return (int64_t)((uint64_t)a << b);
    case TC_B_SHR: {
      int max_shift = tc_bits(p.cd) - (p.cd != TABI_DTYPE_UINT8);
      if (b < 0 || b >= max_shift) return a < 0 ? -1 : 0;
      return a < 0 ? ~(~a >> b) : a >> b;
    }
    case TC_B_LAND: return a && b;
    case TC_B_LOR: return a || b;
    case TC_B_LXOR: return !a != !b;
    default: return 0;
  }
}

TC_D int64_t bin_i(int op, int64_t a, int64_t b, const tc_ew_params &p, int *err) {
  switch (op) {
    case TC_B_DIV: case TC_B_DIV_TRUNC:
      if (b == 0) { *err = 1; return 0; }
      if (b == -1) return wneg(a);
      return a / b;
    case TC_B_DIV_FLOOR: {
      if (b == 0) { *err = 1; return 0; }
      if (b == -1) return wneg(a);
      int64_t q = a / b, r = a % b;
      return (r != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
    }
    case TC_B_FMOD:
      if (b == 0) { *err = 1; return 0; }
      return b == -1 ? 0 : a % b;
    case TC_B_REM: {
      if (b == 0) { *err = 1; return 0; }
      int64_t r = b == -1 ? 0 : a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
    case TC_B_GCD: {
      a = cast_i(a < 0 ? wneg(a) : a, p.cd);
      b = cast_i(b < 0 ? wneg(b) : b, p.cd);
      while (a != 0) {
        int64_t c = a;
        a = (a == -1) ? 0 : b % a;
        b = c;
      }
      return b;
    }
    case TC_B_POW: case TC_B_POW_TS: return ref_powi(a, b);
    default: return bin_i_lean(op, a, b, p);
  }
}

TC_D double nextafter_cd(double a, double b, int cd) {
  if (cd == TABI_DTYPE_FLOAT64) return nextafter(a, b);
  if (cd == TABI_DTYPE_FLOAT32) return nextafterf((float)a, (float)b);
  return ref_nextafter16(a, b, cd);
}

/* The cheap binary functions in value type V: double here (alpha as the
 * compute type), float in tc_ew.cu's vector kernels (alpha 1), which give
 * the same numbers for the operands they take (tc_ew_vec_float). */
template <typename V>
TC_D V bin_lean_v(int op, V a, V b, V alpha) {
  switch (op) {
    case TC_B_ADD: return a + alpha * b;
    case TC_B_SUB: return a - alpha * b;
    case TC_B_MUL: return a * b;
    case TC_B_DIV: return a / b;
    case TC_B_EQ: return a == b;
    case TC_B_NE: return a != b;
    case TC_B_LT: return a < b;
    case TC_B_LE: return a <= b;
    case TC_B_GT: return a > b;
    case TC_B_GE: return a >= b;
    case TC_B_FMAX: return (V)fmax((double)a, (double)b); /* exact through double */
    case TC_B_FMIN: return (V)fmin((double)a, (double)b);
    case TC_B_MAXIMUM: return isnan(a) ? a : isnan(b) ? b : (a < b ? b : a);
    case TC_B_MINIMUM: return isnan(a) ? a : isnan(b) ? b : (b < a ? b : a);
    case TC_B_LAND: return a != 0 && b != 0;
    case TC_B_LOR: return a != 0 || b != 0;
    case TC_B_LXOR: return (a != 0) != (b != 0);
    default: return 0;
  }
}
TC_D double bin_f_lean(int op, double a, double b, const tc_ew_params &p) { return bin_lean_v<double>(op, a, b, p.pf); }

TC_D double bin_f(int op, double a, double b, const tc_ew_params &p) {
  switch (op) {
    case TC_B_DIV_TRUNC: return trunc(round_opmath(a / b, p.cd));
    case TC_B_DIV_FLOOR:
      return p.cd == TABI_DTYPE_FLOAT64 ? ref_floordiv_f64(a, b)
                                        : (double)ref_floordiv_f32((float)a, (float)b);
    case TC_B_ATAN2: return atan2(a, b);
    case TC_B_FMOD: return fmod(a, b);
    case TC_B_REM: {
      double mod = fmod(a, b);
      if (mod != 0 && ((b < 0) != (mod < 0))) mod = round_opmath(mod + b, p.cd);
      return mod;
    }
    case TC_B_HYPOT: return tc_hypot(a, b);
    case TC_B_IGAMMA: return ref_sf_igamma(a, b);
    case TC_B_IGAMMAC: return ref_sf_igammac(a, b);
    case TC_B_NEXTAFTER: return nextafter_cd(a, b, p.cd);
    case TC_B_POW: return pow(a, b);
    case TC_B_POW_TS: /* ATen's special exponents, the reference's code */
      return p.plain_pow ? pow(a, b) : ref_pow_ts(a, b);
    case TC_B_ZETA: return ref_sf_zeta(a, b);
    case TC_B_ADD: case TC_B_SUB: case TC_B_MUL: case TC_B_DIV: case TC_B_EQ: case TC_B_NE:
    case TC_B_LT: case TC_B_LE: case TC_B_GT: case TC_B_GE: case TC_B_FMAX: case TC_B_FMIN:
    case TC_B_MAXIMUM: case TC_B_MINIMUM: case TC_B_LAND: case TC_B_LOR: case TC_B_LXOR:
      return bin_f_lean(op, a, b, p);
    default: return 0;
  }
}

TC_D tc_c bin_c_lean(int op, tc_c a, tc_c b, const tc_ew_params &p) {
  tc_c alpha(p.pc[0], p.pc[1]);
  switch (op) {
    case TC_B_ADD: return a + alpha * b;
    case TC_B_SUB: return a - alpha * b;
    case TC_B_MUL: return a * b;
    case TC_B_EQ: return tc_c(a == b ? 1.0 : 0.0, 0);
    case TC_B_NE: return tc_c(a != b ? 1.0 : 0.0, 0);
    case TC_B_LAND: return tc_c((a != tc_c(0, 0)) && (b != tc_c(0, 0)) ? 1.0 : 0.0, 0);
    case TC_B_LOR: return tc_c((a != tc_c(0, 0)) || (b != tc_c(0, 0)) ? 1.0 : 0.0, 0);
    case TC_B_LXOR: return tc_c((a != tc_c(0, 0)) != (b != tc_c(0, 0)) ? 1.0 : 0.0, 0);
    default: return tc_c(0, 0);
  }
}

TC_D tc_c bin_c(int op, tc_c a, tc_c b, const tc_ew_params &p) {
  tc_c alpha(p.pc[0], p.pc[1]);
  switch (op) {
    case TC_B_DIV: return tc_cdiv(a, b);
    case TC_B_POW: return tc_cpow(a, b, p.cd);
    case TC_B_POW_TS: {
      tc_c one(1.0, 0.0);
      if (p.plain_pow) return tc_cpow(a, b, p.cd);
      if (b == tc_c(0.0, 0.0)) return one;
      if (b == one) return a;
      if (b == tc_c(0.5, 0.0)) return tcx::sqrt(a);
      if (b == tc_c(-0.5, 0.0)) return tc_cdiv(one, tcx::sqrt(a));
      if (b == tc_c(-1.0, 0.0)) return tc_cdiv(one, a);
      if (b == tc_c(2.0, 0.0)) return a * a;
      if (b == tc_c(3.0, 0.0)) return a * a * a;
      if (b == tc_c(-2.0, 0.0)) return tc_cdiv(one, a * a);
      return tc_cpow(a, b, p.cd);
    }
    default: return bin_c_lean(op, a, b, p);
  }
}

/* Host side: whether the *_lean switches above serve op for a launch of
 * category cat and nin inputs (keep in step with them: an op listed here and
 * missing there would return its input). */
static inline int tc_ew_lean(int cat, int nin, int op) {
  if (nin == 1) {
    if (cat == 0) return 1; /* un_i is all cheap */
    if (cat == 2)
      return op == TC_U_IDENT || op == TC_U_NEG || op == TC_U_CONJ || op == TC_U_REAL ||
             op == TC_U_IMAG || op == TC_U_ISFINITE || op == TC_U_ISNAN || op == TC_U_ISINF ||
             op == TC_U_LNOT;
    switch (op) {
      case TC_U_IDENT: case TC_U_TANH: case TC_U_EXP: case TC_U_SQRT: case TC_U_RSQRT:
      case TC_U_RECIP: case TC_U_ABS: case TC_U_NEG: case TC_U_SIGN: case TC_U_CEIL:
      case TC_U_FLOOR: case TC_U_ROUND: case TC_U_TRUNC: case TC_U_ISFINITE: case TC_U_SIGNBIT:
      case TC_U_SIGMOID: case TC_U_RELU: case TC_U_ISNAN: case TC_U_ISINF: case TC_U_LNOT:
      case TC_U_ELU: case TC_U_LEAKY_RELU: case TC_U_GELU: case TC_U_CLAMP: return 1;
      default: return 0;
    }
  }
  if (nin != 2) return 0;
  switch (op) {
    case TC_B_ADD: case TC_B_SUB: case TC_B_MUL: case TC_B_EQ: case TC_B_NE: case TC_B_LAND:
    case TC_B_LOR: case TC_B_LXOR: return 1;
    case TC_B_DIV: return cat == 1;
    case TC_B_LT: case TC_B_LE: case TC_B_GT: case TC_B_GE: case TC_B_FMAX: case TC_B_FMIN:
    case TC_B_MAXIMUM: case TC_B_MINIMUM: return cat != 2;
    case TC_B_AND: case TC_B_OR: case TC_B_XOR: case TC_B_SHL: case TC_B_SHR: return cat == 0;
    default: return 0;
  }
}

#endif /* TABI_TC_EW_FN_CUH */
