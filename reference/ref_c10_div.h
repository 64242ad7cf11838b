/* reference/ref_c10_div.h: c10::complex division, (a + bi) / (c + di), as
 * ATen computes it: Smith's algorithm without C99's infinity recovery (a
 * zero divisor gives the componentwise quotients, NaN or infinite). One copy
 * for the reference (ref_cplx_util.c's ref_c10_div) and the GPU plugins
 * (plugins/cuda/tc_ew_dev.cuh's tc_cdiv), written in the common subset of
 * C11 and CUDA/HIP C++.
 *
 * The includer may define REF_C10_DIV_FN (the qualifier) first: `static
 * inline` by default, `static __device__ __forceinline__` on the GPU.
 * <math.h> must be included first. */
#ifndef TABI_REF_C10_DIV_H
#define TABI_REF_C10_DIV_H

#ifndef REF_C10_DIV_FN
#define REF_C10_DIV_FN static inline
#endif

REF_C10_DIV_FN void ref_c10_div_parts(double a, double b, double c, double d, double *re,
                                      double *im) {
  double abs_c = fabs(c), abs_d = fabs(d);
  if (abs_c >= abs_d) {
    if (abs_c == 0 && abs_d == 0) { /* a complex infinity or NaN, as c10 */
      *re = a / abs_c;
      *im = b / abs_d;
    } else {
      double rat = d / c, scl = 1.0 / (c + d * rat);
      *re = (a + b * rat) * scl;
      *im = (b - a * rat) * scl;
    }
  } else { /* also taken when c or d is NaN: every comparison is false */
    double rat = c / d, scl = 1.0 / (d + c * rat);
    *re = (a * rat + b) * scl;
    *im = (b * rat - a) * scl;
  }
}

#endif /* TABI_REF_C10_DIV_H */
