/* plugins/cuda/tc_special.cuh: the special functions of the elementwise prims
 * (bessel_*, digamma, lgamma, erf_inv, igamma, igammac, zeta, spherical_bessel_j0)
 * as device functions, in double.
 *
 * Both the coefficient tables (ref_elementwise_special_tables.h, placed in device
 * memory) and the function bodies (ref_special_impl.h: Cephes, 3-clause BSD;
 * SciPy's incomplete gamma, BSD) are the reference's own files, so the GPU runs
 * the reference's code, edges included. Only lgamma differs in spelling: the
 * reference calls lgamma_r (to leave the global signgam alone), the device has
 * no signgam and its lgamma is reentrant.
 */
#ifndef TABI_TC_SPECIAL_CUH
#define TABI_TC_SPECIAL_CUH
#include <math.h>

static __device__ double ref_sf_lgamma(double x) {
  return lgamma(x);
}

#define REF_SPECIAL_TABLE static __device__ const
#define REF_SF_FN static __device__
#define REF_SF_HELPER static __device__
/* device functions have no static locals worth having: the arrays are constants */
#define REF_SF_LOCAL_TABLE const
#include "../../reference/ref_special_impl.h"
#endif
