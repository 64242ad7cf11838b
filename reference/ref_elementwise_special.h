/* reference/ref_elementwise_special.h: special functions in double precision for
 * the elementwise prims (bessel_*, digamma, lgamma, erf_inv, igamma, igammac,
 * zeta, spherical_bessel_j0).
 *
 * They follow the algorithms ATen uses (Cephes series, Chebyshev expansions and
 * asymptotics; SciPy's incomplete gamma), evaluated in double, including ATen's
 * values at the edges of each domain (poles, negative arguments, infinities).
 * Pure functions: no state, thread-safe.
 */
#ifndef TABI_REF_ELEMENTWISE_SPECIAL_H
#define TABI_REF_ELEMENTWISE_SPECIAL_H

double ref_sf_lgamma(double x);
double ref_sf_digamma(double x);
double ref_sf_erfinv(double y);
double ref_sf_i0(double x);
double ref_sf_i0e(double x);
double ref_sf_i1(double x);
double ref_sf_i1e(double x);
double ref_sf_j0(double x);
double ref_sf_j1(double x);
double ref_sf_spherical_j0(double x);
/* Hurwitz zeta(x, q). */
double ref_sf_zeta(double x, double q);
/* Regularized lower / upper incomplete gamma P(a, x), Q(a, x). */
double ref_sf_igamma(double a, double x);
double ref_sf_igammac(double a, double x);

#endif /* TABI_REF_ELEMENTWISE_SPECIAL_H */
