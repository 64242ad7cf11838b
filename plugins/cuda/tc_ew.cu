/* plugins/cuda/tc_ew.cu: the strided elementwise engine: one kernel per value
 * category (int64, double, complex double) and arity, the element function
 * chosen by a selector that is uniform across the launch (no divergence).
 * Floating types compute in double and round once at the store, as the
 * reference does, so results match it to the last bit wherever CUDA's double
 * math agrees with glibc's. Three shapes of launch: a float32 contiguous fast
 * path for add/sub/mul/div (vector loads); the flat kernel for other one-dim
 * launches of the cheap element functions (the *_lean switches); the strided
 * kernel for the rest, in a lean instance for those functions and a full one
 * with the special functions. */
#include <stdio.h>

#include "tc_ew_dev.cuh"
#include "tc_ref_glue.h" /* TC_CLAMP_* */

/* floor division: the reference's own functions (one copy with it and the CPU plugin) */
#define REF_FLOORDIV_FN TC_D
#include "../../reference/ref_floordiv.h"
#define REF_POW_TS_FN TC_D
#include "../../reference/ref_pow_ts.h"

#define LN10 2.302585092994045684017991454684364208
#define LN2 0.693147180559945309417232121458176568

typedef struct tc_ew_launch_args {
  int32_t nd, nin, cd;
  int64_t n;
  int64_t shape[TC_MAX_DIMS];
  tc_operand o[TC_MAX_OPS]; /* 0: out, 1..: inputs */
  tc_ew_params p;
  int *err;
} tc_ew_launch_args;

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
  double s = ldexp(1.0, -e);
  return log(tc_hypot(x * s, y * s)) + e * LN2;
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
/* cpow as glibc: cexp(b * clog(a)); complex64 in float, as cpowf. */
TC_D tc_c tc_cpow(tc_c a, tc_c b, int cd) {
  if (cd == TABI_DTYPE_COMPLEX64) {
    tcx::complex<float> af((float)a.real(), (float)a.imag()), bf((float)b.real(), (float)b.imag());
    tcx::complex<double> l = tc_clog(tc_c(af.real(), af.imag()));
    tcx::complex<float> lf((float)l.real(), (float)l.imag());
    tcx::complex<float> e = bf * lf;
    if (e.imag() == 0) return tc_c((float)exp((double)e.real()), e.imag());
    tcx::complex<float> r = tcx::exp(e);
    return tc_c(r.real(), r.imag());
  }
  return tc_cexp(b * tc_clog(a));
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
    case TC_U_ELU: return a <= 0 ? (exp(a * p.pa[2]) - 1.0) * p.pa[0] : a * p.pa[1];
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
    case TC_B_POW: case TC_B_POW_TS: {
      if (b < 0) {
        if (a == 1) return 1;
        if (a == -1) return (b % 2) ? -1 : 1;
        return 0;
      }
      int64_t r = 1;
      while (b) {
        if (b & 1) r = wmul(r, a);
        b >>= 1;
        a = wmul(a, a);
      }
      return r;
    }
    default: return bin_i_lean(op, a, b, p);
  }
}

TC_D uint16_t to_bits16(double v, int dt) {
  return dt == TABI_DTYPE_FLOAT16 ? tabi_f32_to_f16((float)v) : tabi_f32_to_bf16((float)v);
}
TC_D double from_bits16(uint16_t u, int dt) {
  return dt == TABI_DTYPE_FLOAT16 ? tabi_f16_to_f32(u) : tabi_bf16_to_f32(u);
}
TC_D double nextafter_cd(double a, double b, int cd) {
  if (cd == TABI_DTYPE_FLOAT64) return nextafter(a, b);
  if (cd == TABI_DTYPE_FLOAT32) return nextafterf((float)a, (float)b);
  if (isnan(a) || isnan(b)) return a + b;
  uint16_t fa = to_bits16(a, cd), fb = to_bits16(b, cd), sign = 0x8000u;
  if (fa == fb) return a;
  uint16_t abs_a = fa & (uint16_t)~sign, abs_b = fb & (uint16_t)~sign;
  if (abs_a == 0) {
    if (abs_b == 0) return b;
    return from_bits16((uint16_t)((fb & sign) | 1u), cd);
  }
  if (abs_a > abs_b || ((fa ^ fb) & sign)) fa--;
  else fa++;
  return from_bits16(fa, cd);
}

TC_D double bin_f_lean(int op, double a, double b, const tc_ew_params &p) {
  switch (op) {
    case TC_B_ADD: return a + p.pf * b;
    case TC_B_SUB: return a - p.pf * b;
    case TC_B_MUL: return a * b;
    case TC_B_DIV: return a / b;
    case TC_B_EQ: return a == b;
    case TC_B_NE: return a != b;
    case TC_B_LT: return a < b;
    case TC_B_LE: return a <= b;
    case TC_B_GT: return a > b;
    case TC_B_GE: return a >= b;
    case TC_B_FMAX: return fmax(a, b);
    case TC_B_FMIN: return fmin(a, b);
    case TC_B_MAXIMUM: return isnan(a) ? a : isnan(b) ? b : (a < b ? b : a);
    case TC_B_MINIMUM: return isnan(a) ? a : isnan(b) ? b : (b < a ? b : a);
    case TC_B_LAND: return a != 0 && b != 0;
    case TC_B_LOR: return a != 0 || b != 0;
    case TC_B_LXOR: return (a != 0) != (b != 0);
    default: return 0;
  }
}

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
    case TC_B_POW_TS: return ref_pow_ts(a, b); /* ATen's special exponents, the reference's code */
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

/* --- the kernels ---------------------------------------------------------------- */

/* LEAN: the element function is one of the *_lean switches' (ew_lean), so
   the kernel is compiled without the special functions and their registers
   (a transposed copy, a broadcast add); the flat kernel below takes the
   one-dim launches of those. */
template <int CAT, int NIN, bool LEAN>
__global__ void __launch_bounds__(256) tc_ew_kernel(const tc_ew_launch_args a) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += stride) {
    int64_t off[TC_MAX_OPS] = {0, 0, 0, 0};
    if (a.nd == 1) { /* most launches after coalescing: no 64-bit division */
#pragma unroll
      for (int k = 0; k <= NIN; k++) off[k] = i * a.o[k].st[0];
    } else {
      int64_t rem = i;
      for (int d = a.nd - 1; d >= 0; d--) {
        int64_t s = a.shape[d], idx = rem % s;
        rem /= s;
#pragma unroll
        for (int k = 0; k <= NIN; k++) off[k] += idx * a.o[k].st[d];
      }
    }
    const char *in[3] = {NULL, NULL, NULL}; /* NULL: a Scalar operand (a.p.si / a.p.sf) */
#pragma unroll
    for (int k = 0; k < NIN; k++)
      in[k] = a.o[k + 1].ptr ? (const char *)a.o[k + 1].ptr + off[k + 1] * tc_dt_size(a.o[k + 1].dt)
                             : NULL;
    char *out = (char *)a.o[0].ptr + off[0] * tc_dt_size(a.o[0].dt);
    int od = a.o[0].dt;
    if (NIN == 3 && a.p.op == TC_T_CLAMP) { /* as the reference's k_clamp_tensor */
      int mn = (a.p.pi & TC_CLAMP_MIN) != 0, mx = (a.p.pi & TC_CLAMP_MAX) != 0;
      if (CAT == 0) {
        int64_t v = tc_load_i(in[0], a.o[1].dt, a.cd);
        if (mn && v < tc_load_i(in[1], a.o[2].dt, a.cd)) v = tc_load_i(in[1], a.o[2].dt, a.cd);
        if (mx && v > tc_load_i(in[2], a.o[3].dt, a.cd)) v = tc_load_i(in[2], a.o[3].dt, a.cd);
        tc_st_i(out, od, v);
      } else {
        double v = tc_load_f(in[0], a.o[1].dt, a.cd);
        double lo = mn ? tc_load_f(in[1], a.o[2].dt, a.cd) : 0.0;
        double hi = mx ? tc_load_f(in[2], a.o[3].dt, a.cd) : 0.0;
        if (mn && mx && (isnan(lo) || isnan(hi))) {
          v = NAN;
        } else if (!isnan(v)) {
          if (mn && (isnan(lo) || v < lo)) v = lo;
          if (mx && (isnan(hi) || v > hi)) v = hi;
        }
        tc_st_f(out, od, v);
      }
    } else if (NIN == 3) { /* where(pred, x, y) */
      int pick = tc_ld_i(in[0], a.o[1].dt) != 0 ? 1 : 2;
      const char *src = in[pick];
      int sdt = a.o[pick + 1].dt;
      if (CAT == 0) tc_st_i(out, od, tc_load_i(src, sdt, a.cd));
      else if (CAT == 1) tc_st_f(out, od, tc_load_f(src, sdt, a.cd));
      else tc_st_c(out, od, tc_load_c(src, sdt, a.cd));
    } else if (CAT == 0) {
      int64_t x = in[0] ? tc_load_i(in[0], a.o[1].dt, a.cd) : a.p.si[0];
      int64_t y = NIN == 1 ? 0 : in[1] ? tc_load_i(in[1], a.o[2].dt, a.cd) : a.p.si[1];
      if (NIN == 1) x = un_i(a.p.op, x, a.p);
      else if constexpr (LEAN) x = bin_i_lean(a.p.op, x, y, a.p);
      else x = bin_i(a.p.op, x, y, a.p, a.err);
      tc_st_i(out, od, x);
    } else if (CAT == 1) {
      double x = in[0] ? tc_load_f(in[0], a.o[1].dt, a.cd) : a.p.sf[0][0];
      double y = NIN == 1 ? 0.0 : in[1] ? tc_load_f(in[1], a.o[2].dt, a.cd) : a.p.sf[1][0];
      if constexpr (LEAN) x = NIN == 1 ? un_f_lean(a.p.op, x, a.p) : bin_f_lean(a.p.op, x, y, a.p);
      else x = NIN == 1 ? un_f(a.p.op, x, a.p) : bin_f(a.p.op, x, y, a.p);
      tc_st_f(out, od, x);
    } else {
      tc_c x = in[0] ? tc_load_c(in[0], a.o[1].dt, a.cd) : tc_c(a.p.sf[0][0], a.p.sf[0][1]);
      tc_c y = NIN == 1 ? tc_c(0, 0) : in[1] ? tc_load_c(in[1], a.o[2].dt, a.cd) : tc_c(a.p.sf[1][0], a.p.sf[1][1]);
      if constexpr (LEAN) x = NIN == 1 ? un_c_lean(a.p.op, x) : bin_c_lean(a.p.op, x, y, a.p);
      else x = NIN == 1 ? un_c(a.p.op, x) : bin_c(a.p.op, x, y, a.p);
      tc_st_c(out, od, x);
    }
  }
}

/* The flat kernel: one dim after coalescing (every operand contiguous, or a
 * broadcast scalar with stride 0) and a lean element function (the *_lean
 * switches above: copies and conversions, arithmetic, comparisons, the
 * activations). Each thread takes TC_EW_UNROLL elements a block apart and
 * issues all their loads before any is used, so a warp keeps several memory
 * requests in flight where the strided kernel waits out one latency per
 * element; and it is compiled without the special functions, whose code sets
 * the strided kernel's register count (and so how many threads an SM holds).
 * Same loads, element functions and stores as tc_ew_kernel: the same bits. */
#define TC_EW_UNROLL 4
template <int CAT> struct tc_ew_cat;
template <> struct tc_ew_cat<0> {
  typedef int64_t v;
  static __device__ __forceinline__ v load(const char *p, int dt, int cd) { return tc_load_i(p, dt, cd); }
  static __device__ __forceinline__ v scalar(const tc_ew_params &p, int k) { return p.si[k]; }
  static __device__ __forceinline__ void store(char *p, int dt, v x) { tc_st_i(p, dt, x); }
  static __device__ __forceinline__ v un(const tc_ew_params &p, v a) { return un_i(p.op, a, p); }
  static __device__ __forceinline__ v bin(const tc_ew_params &p, v a, v b) { return bin_i_lean(p.op, a, b, p); }
};
template <> struct tc_ew_cat<1> {
  typedef double v;
  static __device__ __forceinline__ v load(const char *p, int dt, int cd) { return tc_load_f(p, dt, cd); }
  static __device__ __forceinline__ v scalar(const tc_ew_params &p, int k) { return p.sf[k][0]; }
  static __device__ __forceinline__ void store(char *p, int dt, v x) { tc_st_f(p, dt, x); }
  static __device__ __forceinline__ v un(const tc_ew_params &p, v a) { return un_f_lean(p.op, a, p); }
  static __device__ __forceinline__ v bin(const tc_ew_params &p, v a, v b) { return bin_f_lean(p.op, a, b, p); }
};
template <> struct tc_ew_cat<2> {
  typedef tc_c v;
  static __device__ __forceinline__ v load(const char *p, int dt, int cd) { return tc_load_c(p, dt, cd); }
  static __device__ __forceinline__ v scalar(const tc_ew_params &p, int k) { return tc_c(p.sf[k][0], p.sf[k][1]); }
  static __device__ __forceinline__ void store(char *p, int dt, v x) { tc_st_c(p, dt, x); }
  static __device__ __forceinline__ v un(const tc_ew_params &p, v a) { return un_c_lean(p.op, a); }
  static __device__ __forceinline__ v bin(const tc_ew_params &p, v a, v b) { return bin_c_lean(p.op, a, b, p); }
};

template <int CAT, int NIN>
__global__ void __launch_bounds__(256) tc_ew_flat_kernel(const tc_ew_launch_args a) {
  typedef tc_ew_cat<CAT> C;
  typename C::v x[TC_EW_UNROLL][NIN];
  const int64_t nt = blockDim.x, step = (int64_t)gridDim.x * nt * TC_EW_UNROLL;
  for (int64_t base = (int64_t)blockIdx.x * nt * TC_EW_UNROLL + threadIdx.x; base < a.n; base += step) {
#pragma unroll
    for (int u = 0; u < TC_EW_UNROLL; u++) {
      int64_t i = base + u * nt;
#pragma unroll
      for (int k = 0; k < NIN; k++) {
        const tc_operand &o = a.o[k + 1];
        x[u][k] = !o.ptr ? C::scalar(a.p, k)
                  : i < a.n ? C::load((const char *)o.ptr + i * o.st[0] * tc_dt_size(o.dt), o.dt, a.cd)
                            : typename C::v();
      }
    }
#pragma unroll
    for (int u = 0; u < TC_EW_UNROLL; u++) {
      int64_t i = base + u * nt;
      if (i >= a.n) break;
      typename C::v r = NIN == 1 ? C::un(a.p, x[u][0]) : C::bin(a.p, x[u][0], x[u][NIN - 1]);
      C::store((char *)a.o[0].ptr + i * a.o[0].st[0] * tc_dt_size(a.o[0].dt), a.o[0].dt, r);
    }
  }
}

/* Whether the flat kernel's lean switches serve op (keep in step with them:
 * an op listed here and missing there would return its input). */
static int ew_lean(int cat, int nin, int op) {
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

/* float32, contiguous, same shapes: add/sub/mul/div with alpha, four at a time. */
__global__ void __launch_bounds__(256) tc_f32_binary(float *o, const float *x, const float *y,
                                                     int64_t n, int op, float alpha) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  int64_t n4 = n / 4;
  const float4 *x4 = (const float4 *)x, *y4 = (const float4 *)y;
  float4 *o4 = (float4 *)o;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    float4 a = x4[i], b = y4[i], r;
    switch (op) {
      case TC_B_ADD: r = make_float4(a.x + alpha * b.x, a.y + alpha * b.y, a.z + alpha * b.z, a.w + alpha * b.w); break;
      case TC_B_SUB: r = make_float4(a.x - alpha * b.x, a.y - alpha * b.y, a.z - alpha * b.z, a.w - alpha * b.w); break;
      case TC_B_MUL: r = make_float4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w); break;
      default: r = make_float4(a.x / b.x, a.y / b.y, a.z / b.z, a.w / b.w); break;
    }
    o4[i] = r;
  }
  for (int64_t i = n4 * 4 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float a = x[i], b = y[i];
    o[i] = op == TC_B_ADD ? a + alpha * b : op == TC_B_SUB ? a - alpha * b : op == TC_B_MUL ? a * b : a / b;
  }
}

/* --- host side ------------------------------------------------------------------- */

void tc_operand_of(const tabi_tensor *t, int32_t nd, const int64_t *shape, tc_operand *o) {
  memset(o, 0, sizeof *o);
  o->ptr = tabi_tensor_data(t);
  o->dt = tabi_tensor_dtype(t);
  int32_t tn = t->dl.ndim;
  for (int32_t i = 0; i < nd; i++) {
    int32_t j = i - (nd - tn);
    o->st[i] = (j < 0 || t->dl.shape[j] == 1 || shape[i] == 1) ? 0 : t->dl.strides[j];
  }
}

/* A small device buffer from the core's caching allocator on the current device. */
static tabi_status scratch(tc_ctx *c, int64_t nbytes, tabi_tensor **out) {
  int dev = 0;
  cudaGetDevice(&dev);
  DLDevice d = {TC_DL_DEVICE, dev};
  return tc_empty(c, d, TABI_DTYPE_UINT8, 1, &nbytes, out);
}

static int grid_for(int64_t n) {
  int64_t g = (n + 255) / 256;
  if (g > 65536) g = 65536;
  return g < 1 ? 1 : (int)g;
}

/* Merges adjacent dims that every operand walks contiguously, and drops size-1
 * dims, so most launches index with one division. */
static void coalesce(tc_ew_launch_args *a, int32_t nops) {
  int32_t k = 0;
  for (int32_t d = 0; d < a->nd; d++) {
    if (a->shape[d] == 1) continue;
    if (k > 0) {
      int ok = 1;
      for (int32_t o = 0; o < nops && ok; o++)
        ok = a->o[o].st[k - 1] == a->o[o].st[d] * a->shape[d];
      if (ok) {
        a->shape[k - 1] *= a->shape[d];
        for (int32_t o = 0; o < nops; o++) a->o[o].st[k - 1] = a->o[o].st[d];
        continue;
      }
    }
    a->shape[k] = a->shape[d];
    for (int32_t o = 0; o < nops; o++) a->o[o].st[k] = a->o[o].st[d];
    k++;
  }
  a->nd = k;
}

tabi_status tc_ew_launch(tc_ctx *c, const char *op, int32_t nd, const int64_t *shape,
                         const tc_operand *out, int32_t nin, const tc_operand *in,
                         const tc_ew_params *p, int *out_zero_div) {
  if (out_zero_div) *out_zero_div = 0;
  if (nd > TC_MAX_DIMS)
    return TC_ERR(c, TABI_ERR_SHAPE, "%s: %d dims; the CUDA plugin takes at most %d", op, (int)nd,
                  TC_MAX_DIMS);
  tc_ew_launch_args a;
  memset(&a, 0, sizeof a);
  a.nd = nd;
  a.nin = nin;
  a.cd = p->cd;
  a.p = *p;
  a.n = 1;
  for (int32_t i = 0; i < nd; i++) {
    a.shape[i] = shape[i];
    a.n *= shape[i];
  }
  if (a.n == 0) return TABI_OK;
  a.o[0] = *out;
  for (int32_t k = 0; k < nin; k++) a.o[k + 1] = in[k];
  coalesce(&a, nin + 1);
  int cat = tc_category(p->cd);
  /* fast path */
  if (nin == 2 && a.nd == 1 && cat == 1 && p->cd == TABI_DTYPE_FLOAT32 && out->dt == p->cd &&
      a.o[1].ptr && a.o[2].ptr &&
      in[0].dt == p->cd && in[1].dt == p->cd && a.o[0].st[0] == 1 && a.o[1].st[0] == 1 &&
      a.o[2].st[0] == 1 &&
      (p->op == TC_B_MUL || p->op == TC_B_DIV || ((p->op == TC_B_ADD || p->op == TC_B_SUB) && p->pf == 1.0)) &&
      ((uintptr_t)a.o[0].ptr % 16 == 0) && ((uintptr_t)a.o[1].ptr % 16 == 0) &&
      ((uintptr_t)a.o[2].ptr % 16 == 0)) {
    TC_LAUNCH(grid_for((a.n + 3) / 4), 256, tc_f32_binary)(
        (float *)a.o[0].ptr, (const float *)a.o[1].ptr, (const float *)a.o[2].ptr, a.n, p->op,
        (float)p->pf);
    return tc_launch_status(c, op);
  }
  if (a.nd == 1 && nin <= 2 && ew_lean(cat, nin, p->op)) {
    int64_t g = (a.n + 256 * TC_EW_UNROLL - 1) / (256 * TC_EW_UNROLL);
    int grid = (int)(g > 65536 ? 65536 : g);
#define TC_EW_FLAT(CAT)                                                              \
  if (nin == 1) TC_LAUNCH(grid, 256, tc_ew_flat_kernel<CAT, 1>)(a);                  \
  else TC_LAUNCH(grid, 256, tc_ew_flat_kernel<CAT, 2>)(a);
    if (cat == 0) {
      TC_EW_FLAT(0)
    } else if (cat == 1) {
      TC_EW_FLAT(1)
    } else {
      TC_EW_FLAT(2)
    }
#undef TC_EW_FLAT
    return tc_launch_status(c, op);
  }
  int *err = NULL;
  int need_err = nin == 2 && cat == 0 &&
                 (p->op == TC_B_DIV || p->op == TC_B_DIV_TRUNC || p->op == TC_B_DIV_FLOOR ||
                  p->op == TC_B_FMOD || p->op == TC_B_REM);
  tabi_tensor *err_t = NULL;
  if (need_err) {
    /* from the caching allocator: no cudaMalloc/cudaFree (each would sync) */
    tabi_status est = scratch(c, 4, &err_t);
    if (est != TABI_OK) return est;
    err = (int *)tabi_tensor_data(err_t);
    cudaMemsetAsync(err, 0, sizeof(int), 0);
    a.err = err;
  }
  int g = grid_for(a.n), lean = nin <= 2 && ew_lean(cat, nin, p->op);
#define TC_EW_LAUNCH(CAT)                                                                   \
  if (lean && nin == 1) TC_LAUNCH(g, 256, tc_ew_kernel<CAT, 1, true>)(a);                   \
  else if (lean) TC_LAUNCH(g, 256, tc_ew_kernel<CAT, 2, true>)(a);                          \
  else if (nin == 1) TC_LAUNCH(g, 256, tc_ew_kernel<CAT, 1, false>)(a);                     \
  else if (nin == 2) TC_LAUNCH(g, 256, tc_ew_kernel<CAT, 2, false>)(a);                     \
  else TC_LAUNCH(g, 256, tc_ew_kernel<CAT, 3, false>)(a);
  if (cat == 0) {
    TC_EW_LAUNCH(0)
  } else if (cat == 1) {
    TC_EW_LAUNCH(1)
  } else {
    TC_EW_LAUNCH(2)
  }
#undef TC_EW_LAUNCH
  tabi_status st = tc_launch_status(c, op);
  if (need_err) {
    int flag = 0;
    if (st == TABI_OK)
      st = tc_cuda_status(c, cudaMemcpy(&flag, err, sizeof flag, cudaMemcpyDeviceToHost), op,
                          "cudaMemcpy");
    c->h->tensor_release(c->h->ctx, err_t);
    if (out_zero_div) *out_zero_div = flag;
  }
  return st;
}

tabi_status tc_copy_convert(tc_ctx *c, const char *op, tabi_tensor *dst, const tabi_tensor *src) {
  tabi_status st = tc_use_device(c, dst, op);
  if (st != TABI_OK) return st;
  tc_operand o, i;
  tc_operand_of(dst, dst->dl.ndim, dst->dl.shape, &o);
  /* dst keeps its own strides, even where they are 0 or the dim is 1 */
  for (int32_t d = 0; d < dst->dl.ndim; d++) o.st[d] = dst->dl.shape[d] == 1 ? 0 : dst->dl.strides[d];
  tc_operand_of(src, dst->dl.ndim, dst->dl.shape, &i);
  tc_ew_params p;
  memset(&p, 0, sizeof p);
  p.op = TC_U_IDENT;
  p.cd = tabi_tensor_dtype(dst);
  return tc_ew_launch(c, op, dst->dl.ndim, dst->dl.shape, &o, 1, &i, &p, NULL);
}

tabi_status tc_contiguous(tc_ctx *c, const char *op, tabi_tensor *t, tabi_tensor **out) {
  if (tabi_tensor_is_contiguous(t)) {
    c->h->tensor_retain(c->h->ctx, t);
    *out = t;
    return TABI_OK;
  }
  tabi_tensor *r = NULL;
  tabi_status st = tc_empty(c, t->dl.device, tabi_tensor_dtype(t), t->dl.ndim, t->dl.shape, &r);
  if (st == TABI_OK) st = tc_copy_convert(c, op, r, t);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, r);
    return st;
  }
  *out = r;
  return TABI_OK;
}

/* Fill: the scalar is stored once on the host with the element conversion, then
 * broadcast by a 0-stride copy from a one-element device buffer. */
tabi_status tc_fill(tc_ctx *c, const char *op, tabi_tensor *t, const tabi_value *v) {
  tabi_status st = tc_use_device(c, t, op);
  if (st != TABI_OK) return st;
  tabi_dtype dt = tabi_tensor_dtype(t);
  alignas(16) unsigned char buf[16];
  memset(buf, 0, sizeof buf);
  /* host-side twins of the device stores, through a tiny kernel-free path */
  double re = tabi_value_as_double(v), im = v->tag == TABI_TAG_COMPLEX ? v->u.c[1] : 0.0;
  int64_t iv = v->tag == TABI_TAG_INT || v->tag == TABI_TAG_BOOL ? v->u.i : 0;
  int is_int = v->tag == TABI_TAG_INT || v->tag == TABI_TAG_BOOL;
  switch (dt) {
    case TABI_DTYPE_BOOL: buf[0] = is_int ? iv != 0 : (re != 0 || im != 0); break;
    case TABI_DTYPE_UINT8: { uint8_t x = is_int ? (uint8_t)iv : (uint8_t)(int32_t)re; memcpy(buf, &x, 1); break; }
    case TABI_DTYPE_INT8: { int8_t x = is_int ? (int8_t)iv : (int8_t)(int32_t)re; memcpy(buf, &x, 1); break; }
    case TABI_DTYPE_INT16: { int16_t x = is_int ? (int16_t)iv : (int16_t)(int32_t)re; memcpy(buf, &x, 2); break; }
    case TABI_DTYPE_INT32: { int32_t x = is_int ? (int32_t)iv : (int32_t)re; memcpy(buf, &x, 4); break; }
    case TABI_DTYPE_INT64: { int64_t x = is_int ? iv : (int64_t)re; memcpy(buf, &x, 8); break; }
    case TABI_DTYPE_FLOAT16: { uint16_t x = tabi_f32_to_f16(is_int ? (float)iv : (float)re); memcpy(buf, &x, 2); break; }
    case TABI_DTYPE_BFLOAT16: { uint16_t x = tabi_f32_to_bf16(is_int ? (float)iv : (float)re); memcpy(buf, &x, 2); break; }
    case TABI_DTYPE_FLOAT32: { float x = is_int ? (float)iv : (float)re; memcpy(buf, &x, 4); break; }
    case TABI_DTYPE_FLOAT64: { double x = is_int ? (double)iv : re; memcpy(buf, &x, 8); break; }
    case TABI_DTYPE_COMPLEX64: { float x[2] = {is_int ? (float)iv : (float)re, (float)im}; memcpy(buf, x, 8); break; }
    case TABI_DTYPE_COMPLEX128: { double x[2] = {is_int ? (double)iv : re, im}; memcpy(buf, x, 16); break; }
    default: return TC_ERR(c, TABI_ERR_TYPE, "%s: unsupported dtype %s", op, tabi_dtype_name(dt));
  }
  int64_t n = tabi_tensor_numel(t);
  if (n == 0) return TABI_OK;
  int64_t esz = tabi_dtype_size(dt);
  /* A contiguous fill of a byte pattern that repeats: memset. */
  int same = 1;
  for (int64_t b = 1; b < esz; b++) same &= buf[b] == buf[0];
  if (same && tabi_tensor_is_contiguous(t))
    return tc_cuda_status(c, cudaMemsetAsync(tabi_tensor_data(t), buf[0], (size_t)(n * esz), 0), op,
                          "cudaMemsetAsync");
  tabi_tensor *one_t = NULL;
  if ((st = scratch(c, 16, &one_t)) != TABI_OK) return st;
  void *one = tabi_tensor_data(one_t);
  /* pageable source: staged before the call returns, so buf may go */
  st = tc_cuda_status(c, cudaMemcpyAsync(one, buf, 16, cudaMemcpyHostToDevice, 0), op, "cudaMemcpyAsync");
  if (st == TABI_OK) {
    tc_operand o, i;
    tc_operand_of(t, t->dl.ndim, t->dl.shape, &o);
    for (int32_t d = 0; d < t->dl.ndim; d++) o.st[d] = t->dl.shape[d] == 1 ? 0 : t->dl.strides[d];
    memset(&i, 0, sizeof i);
    i.ptr = one;
    i.dt = dt;
    tc_ew_params p;
    memset(&p, 0, sizeof p);
    p.op = TC_U_IDENT;
    p.cd = dt;
    st = tc_ew_launch(c, op, t->dl.ndim, t->dl.shape, &o, 1, &i, &p, NULL);
  }
  /* back to the cache: the next user is ordered after this launch on stream 0 */
  c->h->tensor_release(c->h->ctx, one_t);
  return st;
}
