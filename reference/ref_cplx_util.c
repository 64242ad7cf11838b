/* reference/ref_cplx_util.c: see ref_cplx_util.h. */
#include "ref_cplx_util.h"

#include <math.h>

#include "ref_c10_div.h"

ref_cplx ref_c10_div(ref_cplx x, ref_cplx y) {
  double re, im;
  ref_c10_div_parts(creal(x), cimag(x), creal(y), cimag(y), &re, &im);
  return CMPLX(re, im);
}
