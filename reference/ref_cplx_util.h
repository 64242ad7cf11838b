/* reference/ref_cplx_util.h: complex arithmetic as ATen's scalar kernels do it.
 *
 * C's complex division (gcc's __divdc3, C99 Annex G) recovers infinities that
 * ATen's c10::complex does not: ATen divides with Smith's algorithm (c10's
 * operator/=, "follows numpy's complex division"), and that is what its CPU
 * scalar kernels and its CUDA kernels compute for div, reciprocal, rsqrt,
 * sigmoid and the division inside mean. The reference uses this helper there,
 * in double precision (rounded once at the store, as every reference kernel).
 *
 * Pure functions: no state, thread-safe, no errors.
 */
#ifndef TABI_REF_CPLX_UTIL_H
#define TABI_REF_CPLX_UTIL_H

#include "ref.h"

/* a / b exactly as c10::complex<double>::operator/= computes it (today's ATen):
 * |c| >= |d|: rat = d/c, scl = 1/(c + d*rat), ((a + b*rat)*scl, (b - a*rat)*scl);
 * otherwise the mirrored form; 0/0 divisor: (a/|c|, b/|d|). */
ref_cplx ref_c10_div(ref_cplx a, ref_cplx b);

#endif /* TABI_REF_CPLX_UTIL_H */
