/* plugins/cpu/cpu_ew_math.h: float32 math on whole vectors, written once against
 * the vector layer (cpu_simd_{avx512,avx2,scalar}.h, included first) and
 * instantiated by each ISA file.
 *
 * Accuracy (float32; the reference computes in double and rounds once):
 *  - exp, exp2: Cephes' polynomial after a Cody-Waite reduction done with FMA,
 *    about 1 ulp; overflow to inf, underflow through the subnormals to 0 (the
 *    scale 2^k: vscalefps on AVX-512, else applied in two halves; either way
 *    subnormal results round once), NaN kept.
 *  - expm1: exp's polynomial without its leading 1 for |x| < ln2/2 (no
 *    cancellation), exp(x) - 1 above; about 1-2 ulp.
 *  - log, log2, log10: Cephes' mantissa polynomial, subnormals scaled by 2^23
 *    first; 1-2 ulp; log1p by Goldberg's log(u) * x / (u - 1), u = 1 + x.
 *  - tanh: Cephes' odd polynomial below 0.625, 1 - 2 / (exp(2|x|) + 1) above.
 *  - sin, cos, tan: reduction by pi/2 in three parts (exact for |x| <= 8192),
 *    Cephes' polynomials; lanes beyond 8192 (and inf) take libm's sin/cos/tan
 *    in double, as the reference does.
 *  - erf: Taylor series (7 terms) below 0.5, else 1 - erfc; erfc uses the
 *    Chebyshev fit of Numerical Recipes' erfcc (relative error < 1.2e-7).
 *  - gelu: an odd rational fit of erf (no exp) with gelu's constants folded in,
 *    absolute error <= 1.7e-7 |x|; a third of the work of the above. On AVX-512
 *    (CPU_SIMD_HAS_TAB32) a piecewise polynomial from two-register table
 *    lookups instead (ew_gelu_tab): no division, absolute error <= 1.7e-8.
 *  - exp for float16/bfloat16 results: 2^(x log2 e) by a degree 4 polynomial
 *    (ew_exp_half), within 1 ulp of the correctly rounded half result.
 * Signed zeros are kept where the reference keeps them (sin, tan, tanh, expm1,
 * erf of -0.0 are -0.0).
 */
#ifndef TABI_CPU_EW_MATH_H
#define TABI_CPU_EW_MATH_H

#include <math.h>

SI VF ew_abs(VF x) { return vf_andnot(vf_set(-0.0f), x); }
SI VF ew_neg(VF x) { return vf_xor(vf_set(-0.0f), x); }
/* |mag| with the sign of s */
SI VF ew_copysign(VF mag, VF s) {
  return vf_or(ew_abs(mag), vf_and(vf_set(-0.0f), s));
}
SI VF ew_pow2i(VI k) { return vi_as_vf(vi_slli(vi_add(k, vi_set(127)), 23)); }

/* e^r - 1 - r over r^2 form: returns r + r^2 P(r) (= e^r - 1) for |r| <= ln2/2 */
SI VF ew_expm1_poly(VF r) {
  VF p = vf_set(1.9875691500e-4f);
  p = vf_fma(p, r, vf_set(1.3981999507e-3f));
  p = vf_fma(p, r, vf_set(8.3334519073e-3f));
  p = vf_fma(p, r, vf_set(4.1665795894e-2f));
  p = vf_fma(p, r, vf_set(1.6666665459e-1f));
  p = vf_fma(p, r, vf_set(5.0000001201e-1f));
  return vf_fma(p, vf_mul(r, r), r);
}

/* p * 2^k for integral k in [-152, 129] (two halves: subnormal results round once) */
SI VF ew_scale(VF p, VF k) {
#ifdef CPU_SIMD_HAS_SCALEF
  return vf_scalef(p, k); /* one instruction, one rounding */
#else
  VI ki = vf_cvt_i(k);
  VI k1 = vi_srai(ki, 1);
  VI k2 = vi_sub(ki, k1);
  return vf_mul(vf_mul(p, ew_pow2i(k1)), ew_pow2i(k2));
#endif
}

SI VF ew_exp(VF x) {
  /* min/max keep a NaN x (x86: the second operand when either is NaN) */
  VF xc = vf_max(vf_set(-104.0f), vf_min(vf_set(88.8f), x));
  VF k = vf_rint(vf_mul(xc, vf_set(1.44269504088896341f)));
  VF r = vf_fnma(k, vf_set(0.693359375f), xc);
  r = vf_fnma(k, vf_set(-2.12194440e-4f), r);
  return ew_scale(vf_add(ew_expm1_poly(r), vf_set(1.0f)), k);
}

SI VF ew_exp2(VF x) {
  VF xc = vf_max(vf_set(-152.0f), vf_min(vf_set(129.0f), x));
  VF k = vf_rint(xc);
  VF r = vf_mul(vf_sub(xc, k), vf_set(0.693147180559945309f));
  return ew_scale(vf_add(ew_expm1_poly(r), vf_set(1.0f)), k);
}

/* 2^(x * L), L = hi + lo (log2 of pow.Scalar's base): the product's rounding
 * error is kept (fma) and added to the reduced argument, so a large |x * L|
 * loses nothing; |x * L| past the range saturates to 0 or inf (lo dropped
 * there, so inf * L gives no NaN); NaN x stays NaN. */
SI VF ew_exp2_mul(VF x, VF hi, VF lo) {
#if W == 1
  /* plain C has no fused multiply-add: the product and its error in double */
  double pd = (double)x * (double)hi;
  VF p = (float)pd;
  VF e = (float)((pd - (double)p) + (double)x * (double)lo);
#else
  VF p = vf_mul(x, hi);
  VF e = vf_fma(x, lo, vf_fma(x, hi, ew_neg(p)));
#endif
  VF pc = vf_max(vf_set(-152.0f), vf_min(vf_set(129.0f), p));
  VF k = vf_rint(pc);
  e = vf_sel(vf_lt(ew_abs(p), vf_set(140.0f)), e, vf_set(0.0f));
  VF r = vf_mul(vf_add(vf_sub(pc, k), e), vf_set(0.693147180559945309f));
  return ew_scale(vf_add(ew_expm1_poly(r), vf_set(1.0f)), k);
}

SI VF ew_expm1(VF x) {
  VM small = vf_lt(ew_abs(x), vf_set(0.34657359f));
  VF e = vf_sub(ew_exp(x), vf_set(1.0f));
  VF s = ew_expm1_poly(x);
  VF r = vf_sel(small, s, e);
  return vf_sel(vf_eq(x, vf_set(0.0f)), x, r);
}

/* log parts of x > 0 finite: x = 2^e * (1 + m'), returns e and log(1 + m') */
SI VF ew_log_parts(VF x, VF *e_out) {
  VM sub = vf_lt(x, vf_set(1.17549435e-38f));
  VF xs = vf_sel(sub, vf_mul(x, vf_set(8388608.0f)), x);
  VI u = vf_as_vi(xs);
  VI ei = vi_sub(vi_srli(u, 23), vi_set(126));
  VF m = vi_as_vf(vi_or(vi_and(u, vi_set(0x007fffff)), vi_set(0x3f000000))); /* [0.5, 1) */
  VF e = vf_sub(vi_to_f(ei), vf_sel(sub, vf_set(23.0f), vf_set(0.0f)));
  VM lo = vf_lt(m, vf_set(0.707106781186547524f));
  e = vf_sel(lo, vf_sub(e, vf_set(1.0f)), e);
  m = vf_sel(lo, vf_sub(vf_add(m, m), vf_set(1.0f)), vf_sub(m, vf_set(1.0f)));
  VF z = vf_mul(m, m);
  VF y = vf_set(7.0376836292e-2f);
  y = vf_fma(y, m, vf_set(-1.1514610310e-1f));
  y = vf_fma(y, m, vf_set(1.1676998740e-1f));
  y = vf_fma(y, m, vf_set(-1.2420140846e-1f));
  y = vf_fma(y, m, vf_set(1.4249322787e-1f));
  y = vf_fma(y, m, vf_set(-1.6668057665e-1f));
  y = vf_fma(y, m, vf_set(2.0000714765e-1f));
  y = vf_fma(y, m, vf_set(-2.4999993993e-1f));
  y = vf_fma(y, m, vf_set(3.3333331174e-1f));
  y = vf_mul(y, vf_mul(m, z));
  y = vf_fnma(vf_set(0.5f), z, y);
  *e_out = e;
  return vf_add(m, y);
}

/* log(0) = -inf, log(<0) = NaN, log(inf) = inf, NaN kept; `which` 0 ln, 1 log2, 2 log10 */
SI VF ew_log_any(VF x, int which) {
  VF e, lm = ew_log_parts(x, &e), r;
  if (which == 0) {
    r = vf_fma(e, vf_set(-2.12194440e-4f), lm);
    r = vf_fma(e, vf_set(0.693359375f), r);
  } else if (which == 1) {
    r = vf_fma(lm, vf_set(1.44269504088896341f), e);
  } else {
    r = vf_fma(lm, vf_set(0.434294481903251828f), vf_mul(e, vf_set(0.301029995663981195f)));
  }
  r = vf_sel(vf_eq(x, vf_set(INFINITY)), x, r);
  r = vf_sel(vf_eq(x, vf_set(0.0f)), vf_set(-INFINITY), r);
  r = vf_sel(vf_lt(x, vf_set(0.0f)), vf_set(NAN), r);
  return vf_sel(vf_isnan(x), x, r);
}

SI VF ew_log1p(VF x) {
  VF u = vf_add(x, vf_set(1.0f));
  VF l = ew_log_any(u, 0);
  VF r = vf_mul(l, vf_div(x, vf_sub(u, vf_set(1.0f))));
  r = vf_sel(vf_eq(u, vf_set(1.0f)), x, r);
  r = vf_sel(vf_eq(u, vf_set(INFINITY)), u, r);
  return vf_sel(vf_le(u, vf_set(0.0f)), l, r); /* -inf at -1, NaN below */
}

SI VF ew_tanh(VF x) {
  VF a = ew_abs(x);
  VF z = vf_mul(x, x);
  VF p = vf_set(-5.70498872745e-3f);
  p = vf_fma(p, z, vf_set(2.06390887954e-2f));
  p = vf_fma(p, z, vf_set(-5.37397155531e-2f));
  p = vf_fma(p, z, vf_set(1.33314422036e-1f));
  p = vf_fma(p, z, vf_set(-3.33332819422e-1f));
  VF s = vf_fma(vf_mul(p, z), a, a);
  VF e = ew_exp(vf_add(a, a));
  VF l = vf_sub(vf_set(1.0f), vf_div(vf_set(2.0f), vf_add(e, vf_set(1.0f))));
  VF r = vf_sel(vf_lt(a, vf_set(0.625f)), s, l);
  return vf_sel(vf_isnan(x), x, ew_copysign(r, x));
}

SI VF ew_sigmoid(VF x) {
  return vf_div(vf_set(1.0f), vf_add(vf_set(1.0f), ew_exp(ew_neg(x))));
}

/* erfc(z) for z >= 0 (NaN kept): Numerical Recipes' erfcc */
SI VF ew_erfc_pos(VF z) {
  VF t = vf_div(vf_set(1.0f), vf_fma(vf_set(0.5f), z, vf_set(1.0f)));
  VF p = vf_set(0.17087277f);
  p = vf_fma(p, t, vf_set(-0.82215223f));
  p = vf_fma(p, t, vf_set(1.48851587f));
  p = vf_fma(p, t, vf_set(-1.13520398f));
  p = vf_fma(p, t, vf_set(0.27886807f));
  p = vf_fma(p, t, vf_set(-0.18628806f));
  p = vf_fma(p, t, vf_set(0.09678418f));
  p = vf_fma(p, t, vf_set(0.37409196f));
  p = vf_fma(p, t, vf_set(1.00002368f));
  p = vf_fma(p, t, vf_set(-1.26551223f));
  return vf_mul(t, ew_exp(vf_fnma(z, z, p)));
}

/* erf(x) for |x| < 0.5: x times a Taylor polynomial in x^2 */
SI VF ew_erf_small(VF x) {
  VF z = vf_mul(x, x);
  VF p = vf_set(1.2055332981789664e-4f);
  p = vf_fma(p, z, vf_set(-8.548327023450853e-4f));
  p = vf_fma(p, z, vf_set(5.223977625442188e-3f));
  p = vf_fma(p, z, vf_set(-2.6866170645131252e-2f));
  p = vf_fma(p, z, vf_set(1.1283791670955126e-1f));
  p = vf_fma(p, z, vf_set(-3.7612638903183754e-1f));
  p = vf_fma(p, z, vf_set(1.1283791670955126f));
  return vf_mul(x, p);
}

SI VF ew_erf(VF x) {
  VF a = ew_abs(x);
  VF big = vf_sub(vf_set(1.0f), ew_erfc_pos(a));
  VF r = vf_sel(vf_lt(a, vf_set(0.5f)), ew_erf_small(x), ew_copysign(big, x));
  return vf_sel(vf_isnan(x), x, r);
}

SI VF ew_erfc(VF x) {
  VF a = ew_abs(x);
  VF e = ew_erfc_pos(a);
  VF r = vf_sel(vf_lt(x, vf_set(0.0f)), vf_sub(vf_set(2.0f), e), e);
  r = vf_sel(vf_lt(a, vf_set(0.5f)), vf_sub(vf_set(1.0f), ew_erf_small(x)), r);
  return vf_sel(vf_isnan(x), x, r);
}

/* gelu(x) = x (1 + erf(x / sqrt2)) / 2 = x h(x), h = 1/2 + p(x) / q(x): the odd
 * rational minimax fit of erf used by Eigen and XLA (absolute error <= 3.4e-7 on
 * [-4, 4]) with the 1/sqrt2 and the 1/2 folded into its coefficients (p's by
 * 2^-k / sqrt2, q's by 2^(1-k): the latter exact), one division: 17 vector ops.
 * Error <= 1.7e-7 |x| absolute, so relative on x > 0; on x < -3, where the result
 * is below 0.004 in size, it is the absolute tolerance that holds.
 * x is clamped to [-5.75, 5.625] first: at -5.75 the fit is below -1/2 by 2e-7
 * (with or without FMA), so the max with 0 makes h exactly 0 from there down
 * (-inf gives NaN and -1e30 gives -0.0, as 0.5 x (1 + erf) does in the
 * reference); at 5.625 h is exactly 1 (so x * h cannot overflow). NaN is kept
 * (min/max pass their second operand). */
SI VF ew_gelu(VF x) {
  VF xc = vf_max(vf_set(-5.75f), vf_min(vf_set(5.625f), x));
  VF x2 = vf_mul(xc, xc);
  VF p = vf_fma(x2, vf_set(-3.011990121e-12f), vf_set(6.122398825e-10f));
  p = vf_fma(x2, p, vf_set(-9.285302079e-08f));
  p = vf_fma(x2, p, vf_set(-5.031512342e-06f));
  p = vf_fma(x2, p, vf_set(-1.299292147e-04f));
  p = vf_fma(x2, p, vf_set(-1.044608780e-03f));
  p = vf_fma(x2, p, vf_set(-1.138161432e-02f));
  p = vf_mul(xc, p);
  VF q = vf_fma(x2, vf_set(-1.820758981e-06f), vf_set(-5.334351382e-05f));
  q = vf_fma(x2, q, vf_set(-8.414134872e-04f));
  q = vf_fma(x2, q, vf_set(-7.373329167e-03f));
  q = vf_fma(x2, q, vf_set(-2.852947810e-02f));
  VF h = vf_max(vf_set(0.0f), vf_add(vf_set(0.5f), vf_div(p, q)));
  return vf_mul(x, h);
}

#ifdef CPU_SIMD_HAS_TAB32
#include "cpu_ew_gelu_tab.h"
/* gelu(x) = max(x, 0) - g(|x|), g(a) = a Phi(-a) (x Phi(x) = x - |x| Phi(-|x|)
 * for x > 0): g is smooth, below 0.17 and negligible past 6.1, so a piecewise
 * polynomial in 32 intervals of width 1/5 gives it to an absolute error that is
 * gelu's, with no division or exp. t = 5 min(|x|, 6.2); s = t + 1.5 * 2^23 holds
 * j = round(t) in its low mantissa bits, which index the coefficient tables
 * (vpermt2ps reads the low 5 bits); r = t - j exactly. tools/gen_gelu_table.py
 * writes the tables: degree 4 for float32 (|error| <= 1.7e-8 + rounding, against
 * the rational fit's 1.7e-7 |x|; 15 vector ops, not 17 plus a division),
 * degree 3 for float16/bfloat16 results (|error| <= 7.7e-7: over all 65536
 * inputs of each type every result is within 1 ulp of the correctly rounded
 * one, 230 float16 and about 130 bfloat16 results differ from it, except
 * that bfloat16 results below 3.3e-9 in size, x < -6.1, come out as -0.0, as
 * float32 ones do; tests/cpu/test_cpu_ew.c checks both). Interval 0 has no constant term, so gelu(x) -> x / 2 keeps its relative
 * accuracy for tiny x. Signs and specials as 0.5 x (1 + erf) in the reference:
 * max(-0, x) keeps -0.0 for x <= -0.0 (g = +0 from 6.1 on gives -0.0), +inf
 * gives +inf, NaN stays NaN, -inf gives NaN (-inf * 0 there). */
SI VF ew_gelu_tab(VF x, int half) {
  const float *tab = half ? &cpu_gelu_tab_half[0][0] : &cpu_gelu_tab_f32[0][0];
  const int deg = half ? 3 : 4;
  const VF magic = vf_set(12582912.0f), k = vf_set(5.0f);
  VF a = vf_absmin(x, vf_set(6.2f));
  VF s = vf_fma(a, k, magic);
  VF r = vf_fms(a, k, vf_sub(s, magic));
  VI j = vf_as_vi(s);
  VF g = vf_tab32(tab + 32 * deg, j);
  for (int q = deg - 1; q >= 0; q--) g = vf_fma(g, r, vf_tab32(tab + 32 * q, j));
  return vf_neginf_nan(vf_sub(vf_max(vf_set(-0.0f), x), g), x);
}
#endif

/* 2^f for f in [0, 1): a degree 4 minimax polynomial (relative error 2.6e-6),
 * fitted for results that are rounded to float16/bfloat16 */
SI VF ew_exp2_frac(VF f) {
  VF p = vf_set(1.3534167782e-2f);
  p = vf_fma(p, f, vf_set(5.2011463791e-2f));
  p = vf_fma(p, f, vf_set(2.4144275486e-1f));
  p = vf_fma(p, f, vf_set(6.9300383329e-1f));
  return vf_fma(p, f, vf_set(1.0000026226e+0f));
}

/* exp for results rounded to float16 or bfloat16: 2^t with t = x log2(e)
 * rounded once (relative error <= |t| 2^-24, 1.5e-6 over float16's range, 8e-6
 * over bfloat16's), split t = floor(t) + f. Over all 65536 inputs of each type
 * the rounded result is within 1 ulp of the correctly rounded one and equal to
 * it for all but 91 (float16) and 4 (bfloat16) inputs (a degree 5 polynomial,
 * one FMA more, had 5 for float16: the FMA pipes bound this loop, and the 10%
 * it costs kept float16 exp below the copy-bandwidth target). AVX-512:
 * vreduceps gives f and vscalefps applies floor(t) (inf, 0, subnormals and NaN
 * included): 8 vector ops against ew_exp's 17. */
SI VF ew_exp_half(VF x) {
#ifdef CPU_SIMD_HAS_SCALEF
  VF t = vf_mul(x, vf_set(1.44269504088896341f));
  return vf_scalef(ew_exp2_frac(vf_frac_floor(t)), t);
#else
  VF xc = vf_max(vf_set(-104.0f), vf_min(vf_set(88.8f), x));
  VF t = vf_mul(xc, vf_set(1.44269504088896341f));
  VF k = vf_floor(t);
  return ew_scale(ew_exp2_frac(vf_sub(t, k)), k);
#endif
}

/* 0.5 x (1 + tanh(y)) = x / (1 + exp(-2y)), y = sqrt(2/pi) (x + 0.044715 x^3) */
SI VF ew_gelu_tanh(VF x) {
  VF k = vf_set(-2.0f * 0.797884560802865356f);
  VF y2 = vf_mul(vf_mul(x, k), vf_fma(vf_mul(x, x), vf_set(0.044715f), vf_set(1.0f)));
  return vf_div(x, vf_add(vf_set(1.0f), ew_exp(y2)));
}

/* which: 0 sin, 1 cos, 2 tan; lanes with |x| > 8192 (or inf) go through libm in double */
SI VF ew_trig(VF x, int which) {
  VF n = vf_rint(vf_mul(x, vf_set(0.636619772367581343f)));
  VF r = vf_fnma(n, vf_set(1.5703125f), x);
  r = vf_fnma(n, vf_set(4.837512969970703125e-4f), r);
  r = vf_fnma(n, vf_set(7.54978995489188216e-8f), r);
  VI q = vf_cvt_i(n);
  if (which == 1) q = vi_add(q, vi_set(1));
  VF z = vf_mul(r, r);
  VF s = vf_set(-1.9515295891e-4f);
  s = vf_fma(s, z, vf_set(8.3321608736e-3f));
  s = vf_fma(s, z, vf_set(-1.6666654611e-1f));
  s = vf_fma(vf_mul(s, z), r, r);
  VF c = vf_set(2.443315711809948e-5f);
  c = vf_fma(c, z, vf_set(-1.388731625493765e-3f));
  c = vf_fma(c, z, vf_set(4.166664568298827e-2f));
  c = vf_fma(vf_mul(c, z), z, vf_fnma(vf_set(0.5f), z, vf_set(1.0f)));
  VM odd = vi_eq(vi_and(q, vi_set(1)), vi_set(1));
  VF res;
  if (which == 2) {
    res = vf_sel(odd, ew_neg(vf_div(c, s)), vf_div(s, c));
  } else {
    res = vf_sel(odd, c, s);
    VM neg = vi_eq(vi_and(q, vi_set(2)), vi_set(2));
    res = vf_xor(res, vf_sel(neg, vf_set(-0.0f), vf_set(0.0f)));
  }
  if (which != 1) res = vf_sel(vf_eq(x, vf_set(0.0f)), x, res);
  VM far = vf_gt(ew_abs(x), vf_set(8192.0f));
  if (vm_any(far)) {
    float xv[W], rv[W];
    vf_store_f32(xv, x);
    vf_store_f32(rv, res);
    for (int i = 0; i < W; i++)
      if (fabsf(xv[i]) > 8192.0f) {
        double d = (double)xv[i];
        rv[i] = (float)(which == 0 ? sin(d) : which == 1 ? cos(d) : tan(d));
      }
    res = vf_load_f32(rv);
  }
  return res;
}

/* atan2(y, x): t = min(|y|,|x|) / max(|y|,|x|) in [0, 1], atan(t) by Cephes'
 * atanf (t > tan(pi/8) reduced by atan(t) = pi/4 + atan((t-1)/(t+1)); relative
 * error ~2e-7), then the octant: pi/2 - r when |y| > |x|, pi - r when x has
 * its sign bit set (so -0 counts as negative, as atan2 does), y's sign last.
 * 0/0 and inf/inf are given t = 0 and t = 1: atan2(+-0, +-0) is +-0 or +-pi,
 * atan2(+-inf, +-inf) is +-pi/4 or +-3pi/4; NaN in either gives NaN. */
SI VF ew_atan2(VF y, VF x) {
  VF ay = ew_abs(y), ax = ew_abs(x);
  VM swap = vf_gt(ay, ax);
  VF num = vf_sel(swap, ax, ay), den = vf_sel(swap, ay, ax);
  VF t = vf_div(num, den);
  t = vf_sel(vf_eq(den, vf_set(0.0f)), vf_set(0.0f), t);
  t = vf_sel(vm_and(vf_eq(ax, vf_set(INFINITY)), vf_eq(ay, vf_set(INFINITY))), vf_set(1.0f), t);
  VM big = vf_gt(t, vf_set(0.41421356237309503f));
  VF u = vf_sel(big, vf_div(vf_sub(t, vf_set(1.0f)), vf_add(t, vf_set(1.0f))), t);
  VF z = vf_mul(u, u);
  VF p = vf_set(8.05374449538e-2f);
  p = vf_fma(p, z, vf_set(-1.38776856032e-1f));
  p = vf_fma(p, z, vf_set(1.99777106478e-1f));
  p = vf_fma(p, z, vf_set(-3.33329491539e-1f));
  VF r = vf_fma(vf_mul(p, z), u, u);
  r = vf_add(vf_sel(big, vf_set(0.78539816339744831f), vf_set(0.0f)), r);
  r = vf_sel(swap, vf_sub(vf_set(1.57079632679489662f), r), r);
  VM xneg = vi_gt(vi_set(0), vf_as_vi(x));
  r = vf_sel(xneg, vf_sub(vf_set(3.14159265358979324f), r), r);
  r = ew_copysign(r, y);
  return vf_sel(vm_or(vf_isnan(x), vf_isnan(y)), vf_add(x, y), r);
}

#endif /* TABI_CPU_EW_MATH_H */
