/* reference/ref_cplx_util.c: see ref_cplx_util.h. */
#include "ref_cplx_util.h"

#include <math.h>

ref_cplx ref_c10_div(ref_cplx x, ref_cplx y) {
  double a = creal(x), b = cimag(x), c = creal(y), d = cimag(y), re, im;
  double abs_c = fabs(c), abs_d = fabs(d);
  if (abs_c >= abs_d) {
    if (abs_c == 0 && abs_d == 0) { /* a complex infinity or NaN, as c10 */
      re = a / abs_c;
      im = b / abs_d;
    } else {
      double rat = d / c, scl = 1.0 / (c + d * rat);
      re = (a + b * rat) * scl;
      im = (b - a * rat) * scl;
    }
  } else { /* also taken when c or d is NaN: every comparison is false */
    double rat = c / d, scl = 1.0 / (d + c * rat);
    re = (a * rat + b) * scl;
    im = (b * rat - a) * scl;
  }
  return CMPLX(re, im);
}
