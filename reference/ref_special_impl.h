/* reference/ref_special_impl.h: the bodies of the special functions (digamma,
 * erfinv, Bessel i0/i0e/i1/i1e/j0/j1, spherical_j0, Hurwitz zeta, the regularized
 * incomplete gamma igamma/igammac and their helpers), written once in the common
 * subset of C11 and CUDA/HIP C++ so that the reference and the GPU plugins run the
 * same code and cannot drift.
 *
 * Derived from the Cephes Math Library (Copyright (c) 2018, Steven Moshier,
 * 3-clause BSD) and SciPy's incomplete gamma (BSD), through the forms ATen uses,
 * so that edge values (poles, domain limits) are ATen's. Written for double.
 *
 * The includer defines, before including this file (no include guard: one
 * inclusion per translation unit):
 *   REF_SF_FN           qualifier of the ref_sf_* functions: empty in the
 *                       reference (the exported C symbols of
 *                       ref_elementwise_special.h), `static __device__` on the GPU;
 *   REF_SF_HELPER       qualifier of the helpers: `static` / `static __device__`;
 *   REF_SF_LOCAL_TABLE  function-local coefficient arrays: `static const` in C,
 *                       `const` on the GPU (no static storage in device code);
 *   REF_SPECIAL_TABLE   (optional) the file-scope tables' qualifier, see
 *                       ref_elementwise_special_tables.h;
 * and a function `double ref_sf_lgamma(double)` (lgamma_r in the reference, which
 * leaves the global signgam alone; the device's lgamma on the GPU).
 * <math.h> must be included first.
 */
#if !defined(REF_SF_FN) || !defined(REF_SF_HELPER) || !defined(REF_SF_LOCAL_TABLE)
#error "define REF_SF_FN, REF_SF_HELPER and REF_SF_LOCAL_TABLE before including ref_special_impl.h"
#endif

#include "ref_elementwise_special_tables.h"

#define REF_SF_PI 3.141592653589793238462643383279502884
#define REF_SF_MACHEP 1.11022302462515654042E-16
#define REF_SF_MAXLOG 7.09782712893383996843E2

/* --- digamma ---------------------------------------------------------------- */

REF_SF_HELPER double polevl(double x, const double *a, int len) {
  double r = 0;
  for (int i = 0; i <= len; i++) r = r * x + a[i];
  return r;
}

REF_SF_FN double ref_sf_digamma(double x) {
  REF_SF_LOCAL_TABLE double A[] = {8.33333333333333333333E-2, -2.10927960927960927961E-2,
                             7.57575757575757575758E-3, -4.16666666666666666667E-3,
                             3.96825396825396825397E-3, -8.33333333333333333333E-3,
                             8.33333333333333333333E-2};
  const double PSI_10 = 2.25175258906672110764;
  if (x == 0) return copysign(INFINITY, -x); /* +-0 give -+inf, as C++ and SciPy */
  if (x < 0) {
    if (x == trunc(x)) return NAN; /* poles at negative integers */
    /* reflection; tan(pi * frac(x)) is more accurate than tan(pi * x) */
    double q, r = modf(x, &q);
    return ref_sf_digamma(1 - x) - REF_SF_PI / tan(REF_SF_PI * r);
  }
  double result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  if (x == 10) return result + PSI_10;
  double y = 0;
  if (x < 1.0e17) {
    double z = 1.0 / (x * x);
    y = z * polevl(z, A, 6);
  }
  return result + log(x) - (0.5 / x) - y;
}

/* --- erfinv: rational first guess, then two Newton steps ----------------------- */

REF_SF_FN double ref_sf_erfinv(double y) {
  REF_SF_LOCAL_TABLE double a[4] = {0.886226899, -1.645349621, 0.914624893, -0.140543331};
  REF_SF_LOCAL_TABLE double b[4] = {-2.118377725, 1.442710462, -0.329097515, 0.012229801};
  REF_SF_LOCAL_TABLE double c[4] = {-1.970840454, -1.624906493, 3.429567803, 1.641345311};
  REF_SF_LOCAL_TABLE double d[2] = {3.543889200, 1.637067800};
  double x, z, num, dem, y_abs = fabs(y);
  if (y_abs > 1.0) return NAN;
  if (y_abs == 1.0) return copysign(INFINITY, y);
  if (y_abs <= 0.7) {
    z = y * y;
    num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];
    dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + 1.0;
    x = y * num / dem;
  } else {
    z = sqrt(-log((1.0 - y_abs) / 2.0));
    num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];
    dem = (d[1] * z + d[0]) * z + 1.0;
    x = copysign(num, y) / dem;
  }
  const double two_over_sqrt_pi = 1.128379167095512573896158903121545172;
  x = x - (erf(x) - y) / (two_over_sqrt_pi * exp(-x * x));
  x = x - (erf(x) - y) / (two_over_sqrt_pi * exp(-x * x));
  return x;
}

/* --- modified Bessel functions of the first kind: Chebyshev expansions ---------- */

REF_SF_HELPER double chbevl(double x, const double *array, int len) {
  double b0 = array[0], b1 = 0, b2 = 0;
  for (int i = 1; i < len; i++) {
    b2 = b1;
    b1 = b0;
    b0 = x * b1 - b2 + array[i];
  }
  return 0.5 * (b0 - b2);
}

REF_SF_FN double ref_sf_i0e(double x) {
  x = fabs(x);
  if (x <= 8.0) return chbevl(x / 2.0 - 2.0, I0E_A, 30);
  return chbevl(32.0 / x - 2.0, I0E_B, 25) / sqrt(x);
}

REF_SF_FN double ref_sf_i0(double x) {
  x = fabs(x);
  if (x <= 8.0) return exp(x) * chbevl(x / 2.0 - 2.0, I0E_A, 30);
  return exp(x) * chbevl(32.0 / x - 2.0, I0E_B, 25) / sqrt(x);
}

REF_SF_FN double ref_sf_i1e(double x0) {
  double x = fabs(x0), out;
  if (x <= 8.0) out = chbevl(x / 2.0 - 2.0, I1E_A, 29) * x;
  else out = chbevl(32.0 / x - 2.0, I1E_B, 25) / sqrt(x);
  return x0 < 0 ? -out : out;
}

REF_SF_FN double ref_sf_i1(double x0) {
  double x = fabs(x0), out;
  if (x <= 8.0) out = exp(x) * x * chbevl(x / 2.0 - 2.0, I1E_A, 29);
  else out = exp(x) * chbevl(32.0 / x - 2.0, I1E_B, 25) / sqrt(x);
  return x0 < 0 ? -out : out;
}

/* --- Bessel functions of the first kind: rational approximations --------------- */

REF_SF_HELPER double horner(double x, const double *c, int n) {
  double r = 0;
  for (int i = 0; i < n; i++) r = r * x + c[i];
  return r;
}

REF_SF_FN double ref_sf_j0(double x) {
  if (x < 0) x = -x;
  if (x <= 5.0) {
    if (x < 0.00001) return 1.0 - x * x / 4.0;
    double rp = horner(x * x, J0_RP, 4), rq = horner(x * x, J0_RQ, 8);
    return (x * x - 5.78318596294678452118e+00) * (x * x - 3.04712623436620863991e+01) * rp / rq;
  }
  double w = 25.0 / (x * x);
  double pp = horner(w, J0_PP, 7), pq = horner(w, J0_PQ, 7);
  double qp = horner(w, J0_QP, 8), qq = horner(w, J0_QQ, 7);
  double xn = x - 0.785398163397448309615660845819875721;
  return (pp / pq * cos(xn) - 5.0 / x * (qp / qq) * sin(xn)) *
         0.797884560802865355879892119868763737 / sqrt(x);
}

REF_SF_FN double ref_sf_j1(double x) {
  if (x < 0) return -ref_sf_j1(-x);
  if (x <= 5.0) {
    double rp = horner(x * x, J1_RP, 4), rq = horner(x * x, J1_RQ, 8);
    return rp / rq * x * (x * x - 1.46819706421238932572e+01) *
           (x * x - 4.92184563216946036703e+01);
  }
  double w = 5.0 / x * (5.0 / x);
  double pp = horner(w, J1_PP, 7), pq = horner(w, J1_PQ, 7);
  double qp = horner(w, J1_QP, 8), qq = horner(w, J1_QQ, 7);
  double xn = x - 2.356194490192344928846982537459627163;
  return (pp / pq * cos(xn) - 5.0 / x * (qp / qq) * sin(xn)) *
         0.797884560802865355879892119868763737 / sqrt(x);
}

REF_SF_FN double ref_sf_spherical_j0(double x) {
  if (isinf(x)) return 0.0;
  if (fabs(x) < 0.5) {
    double x2 = x * x;
    return 1.0 + x2 * (-1.0 / 6.0 + x2 * (1.0 / 120.0 + x2 * (-1.0 / 5040.0 +
           x2 * (1.0 / 362880.0 + x2 * (-1.0 / 39916800.0 + x2 * (1.0 / 6227020800.0))))));
  }
  return sin(x) / x;
}

/* --- Hurwitz zeta: Euler-Maclaurin summation ---------------------------------- */

/* Cephes' Euler-Maclaurin sum; its first loop runs about max(9, 9 - q) times. */
REF_SF_HELPER double zeta_em(double x, double q) {
  REF_SF_LOCAL_TABLE double A[] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0,
                             -1.8924375803183791606e9, 7.47242496e10,
                             -2.950130727918164224e12, 1.1646782814350067249e14,
                             -4.5979787224074726105e15, 1.8152105401943546773e17,
                             -7.1661652561756670113e18};
  double a, b, k, s, t, w;
  s = pow(q, -x);
  a = q;
  b = 0;
  int i = 0;
  while (i < 9 || a <= 9.0) {
    i++;
    a += 1.0;
    b = pow(a, -x);
    s += b;
    if (-REF_SF_MACHEP * s < b && b < REF_SF_MACHEP * s) return s;
  }
  w = a;
  s += b * w / (x - 1.0);
  s -= 0.5 * b;
  a = 1.0;
  k = 0.0;
  for (int j = 0; j < 12; j++) {
    a *= x + k;
    b /= w;
    t = a * b / A[j];
    s = s + t;
    t = fabs(t / s);
    if (t < REF_SF_MACHEP) return s;
    k += 1.0;
    a *= x + k;
    b /= w;
    k += 1.0;
  }
  return s;
}

/* Past this |q| (negative, non-integer; x an integer) the sum is not walked
 * term by term up to q = 9, which ATen does (about |q| iterations: hours for
 * |q| near 2^52, a hung kernel). The terms split at zero into two Hurwitz sums
 * of positive arguments: with q = -(m + f), 0 < f < 1,
 *   zeta(x, q) = (-1)^x (zeta(x, f) - zeta(x, f + m + 1)) + zeta(x, 1 - f),
 * three short sums, equal to ATen's walk to ~1e-15 where no cancellation
 * dominates. Up to here the result is ATen's walk, bit for bit. */
#define REF_SF_ZETA_WALK_MAX 65536.0

REF_SF_FN double ref_sf_zeta(double x, double q) {
  if (x == 1.0) return INFINITY;
  if (x < 1.0) return NAN;
  if (q <= 0) {
    if (q == floor(q)) return INFINITY;
    if (x != floor(x)) return NAN; /* q^-x would be complex */
    if (q < -REF_SF_ZETA_WALK_MAX) {
      double m = floor(-q), f = -q - m; /* exact: |q| < 2^52 here */
      double below = zeta_em(x, f) - zeta_em(x, f + m + 1.0);
      return (fmod(x, 2.0) != 0.0 ? -below : below) + zeta_em(x, 1.0 - f);
    }
  }
  return zeta_em(x, q);
}

/* --- regularized incomplete gamma (SciPy's igam/igamc) ----------------------- */

REF_SF_HELPER double ratevl(double x, const double *num, int m, const double *denom, int n) {
  double absx = fabs(x), y, num_ans, denom_ans;
  const double *p;
  int dir;
  if (absx > 1) { dir = -1; p = num + m; y = 1 / x; }
  else { dir = 1; p = num; y = x; }
  num_ans = *p;
  p += dir;
  for (int i = 1; i <= m; i++) { num_ans = num_ans * y + *p; p += dir; }
  p = absx > 1 ? denom + n : denom;
  denom_ans = *p;
  p += dir;
  for (int i = 1; i <= n; i++) { denom_ans = denom_ans * y + *p; p += dir; }
  if (absx > 1) return pow(x, (double)(n - m)) * num_ans / denom_ans;
  return num_ans / denom_ans;
}

/* Boost's Lanczos sum (g = 6.0246...), scaled by exp(-g). */
REF_SF_HELPER double lanczos_sum_expg_scaled(double x) {
  REF_SF_LOCAL_TABLE double num[13] = {
      0.006061842346248906525783753964555936883222, 0.5098416655656676188125178644804694509993,
      19.51992788247617482847860966235652136208, 449.9445569063168119446858607650988409623,
      6955.999602515376140356310115515198987526, 75999.29304014542649875303443598909137092,
      601859.6171681098786670226533699352302507, 3481712.15498064590882071018964774556468,
      14605578.08768506808414169982791359218571, 43338889.32467613834773723740590533316085,
      86363131.28813859145546927288977868422342, 103794043.1163445451906271053616070238554,
      56906521.91347156388090791033559122686859};
  REF_SF_LOCAL_TABLE double denom[13] = {1., 66., 1925., 32670., 357423., 2637558., 13339535.,
                                   45995730., 105258076., 150917976., 120543840., 39916800.,
                                   0.};
  return ratevl(x, num, 12, denom, 12);
}

/* x^a exp(-x) / gamma(a), accurately where a ~ x. */
REF_SF_HELPER double igam_fac(double a, double x) {
  const double EXP1 = 2.718281828459045, lanczos_g = 6.024680040776729583740234375;
  if (fabs(a - x) > 0.4 * fabs(a)) {
    double ax = a * log(x) - x - ref_sf_lgamma(a);
    if (ax < -REF_SF_MAXLOG) return 0.0;
    return exp(ax);
  }
  double fac = a + lanczos_g - 0.5;
  double res = sqrt(fac / EXP1) / lanczos_sum_expg_scaled(a);
  if (a < 200 && x < 200) {
    res *= exp(a - x) * pow(x / fac, a);
  } else {
    double num = x - a - lanczos_g + 0.5, numfac = num / fac;
    res *= exp(a * (log1p(numfac) - numfac) + x * (0.5 - lanczos_g) / fac);
  }
  return res;
}

/* DLMF 8.11.4 */
REF_SF_HELPER double igam_series(double a, double x) {
  double ax = igam_fac(a, x);
  if (ax == 0.0) return 0.0;
  double r = a, c = 1.0, ans = 1.0;
  for (int i = 0; i < 2000; i++) {
    r += 1.0;
    c *= x / r;
    ans += c;
    if (c <= REF_SF_MACHEP * ans) break;
  }
  return ans * ax / a;
}

/* DLMF 8.7.3, avoiding the cancellation of 1 - igam */
REF_SF_HELPER double igamc_series(double a, double x) {
  double fac = 1, sum = 0, term, logx;
  for (int n = 1; n < 2000; n++) {
    fac *= -x / n;
    term = fac / (a + n);
    sum += term;
    if (fabs(term) <= REF_SF_MACHEP * fabs(sum)) break;
  }
  logx = log(x);
  term = -expm1(a * logx - ref_sf_lgamma(1 + a));
  return term - exp(a * logx - ref_sf_lgamma(a)) * sum;
}

/* DLMF 8.12.3 / 8.12.4: uniform asymptotic expansion for large a ~ x */
REF_SF_HELPER double igam_asymptotic(double a, double x, int igam) {
  double lambda = x / a, sigma = (x - a) / a, eta, res, ck, ckterm, term, absterm;
  double absoldterm = INFINITY, etapow[25] = {1}, sum = 0, afac = 1;
  int maxpow = 0, sgn = igam ? -1 : 1;
  if (lambda > 1) eta = sqrt(-2 * (log1p(sigma) - sigma));
  else if (lambda < 1) eta = -sqrt(-2 * (log1p(sigma) - sigma));
  else eta = 0;
  res = 0.5 * erfc(sgn * eta * sqrt(a / 2));
  for (int k = 0; k < 25; k++) {
    ck = IGAM_D[k][0];
    for (int n = 1; n < 25; n++) {
      if (n > maxpow) {
        etapow[n] = eta * etapow[n - 1];
        maxpow += 1;
      }
      ckterm = IGAM_D[k][n] * etapow[n];
      ck += ckterm;
      if (fabs(ckterm) < REF_SF_MACHEP * fabs(ck)) break;
    }
    term = ck * afac;
    absterm = fabs(term);
    if (absterm > absoldterm) break;
    sum += term;
    if (absterm < REF_SF_MACHEP * fabs(sum)) break;
    absoldterm = absterm;
    afac /= a;
  }
  res += sgn * exp(-0.5 * a * eta * eta) * sum / sqrt(2 * REF_SF_PI * a);
  return res;
}

/* DLMF 8.9.2 */
REF_SF_HELPER double igamc_continued_fraction(double a, double x) {
  const double BIG = 4.503599627370496e15, BIGINV = 2.22044604925031308085e-16;
  double ax = igam_fac(a, x);
  if (ax == 0.0) return 0.0;
  double y = 1.0 - a, z = x + y + 1.0, c = 0.0;
  double pkm2 = 1.0, qkm2 = x, pkm1 = x + 1.0, qkm1 = z * x, ans = pkm1 / qkm1;
  for (int i = 0; i < 2000; i++) {
    double yc, pk, qk, t;
    c += 1.0;
    y += 1.0;
    z += 2.0;
    yc = y * c;
    pk = pkm1 * z - pkm2 * yc;
    qk = qkm1 * z - qkm2 * yc;
    if (qk != 0) {
      double r = pk / qk;
      t = fabs((ans - r) / r);
      ans = r;
    } else {
      t = 1.0;
    }
    pkm2 = pkm1;
    pkm1 = pk;
    qkm2 = qkm1;
    qkm1 = qk;
    if (fabs(pk) > BIG) {
      pkm2 *= BIGINV;
      pkm1 *= BIGINV;
      qkm2 *= BIGINV;
      qkm1 *= BIGINV;
    }
    if (t <= REF_SF_MACHEP) break;
  }
  return ans * ax;
}

REF_SF_FN double ref_sf_igammac(double a, double x) {
  if (x < 0 || a < 0) return NAN;
  if (a == 0) return x > 0 ? 0.0 : NAN;
  if (x == 0) return 1.0;
  if (isinf(a)) return isinf(x) ? NAN : 1.0;
  if (isinf(x)) return 0.0;
  if (isnan(a) || isnan(x)) return NAN;
  double absxma_a = fabs(x - a) / a;
  if (a > 20.0 && a < 200.0 && absxma_a < 0.3) return igam_asymptotic(a, x, 0);
  if (a > 200.0 && absxma_a < 4.5 / sqrt(a)) return igam_asymptotic(a, x, 0);
  if (x > 1.1) {
    if (x < a) return 1.0 - igam_series(a, x);
    return igamc_continued_fraction(a, x);
  }
  if (x <= 0.5) {
    if (-0.4 / log(x) < a) return 1.0 - igam_series(a, x);
    return igamc_series(a, x);
  }
  if (x * 1.1 < a) return 1.0 - igam_series(a, x);
  return igamc_series(a, x);
}

REF_SF_FN double ref_sf_igamma(double a, double x) {
  if (x < 0 || a < 0) return NAN;
  if (a == 0) return x > 0 ? 1.0 : NAN;
  if (x == 0) return 0.0;
  if (isinf(a)) return isinf(x) ? NAN : 0.0;
  if (isinf(x)) return 1.0;
  if (isnan(a) || isnan(x)) return NAN;
  double absxma_a = fabs(x - a) / a;
  if (a > 20.0 && a < 200.0 && absxma_a < 0.3) return igam_asymptotic(a, x, 1);
  if (a > 200.0 && absxma_a < 4.5 / sqrt(a)) return igam_asymptotic(a, x, 1);
  if (x > 1.0 && x > a) return 1.0 - ref_sf_igammac(a, x);
  return igam_series(a, x);
}

#undef REF_SF_PI
#undef REF_SF_MACHEP
#undef REF_SF_MAXLOG
#undef REF_SF_ZETA_WALK_MAX
