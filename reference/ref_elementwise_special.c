/* reference/ref_elementwise_special.c: special functions (see the header); the
 * bodies are in ref_special_impl.h, shared with the GPU plugins.
 *
 * Derived from the Cephes Math Library (Copyright (c) 2018, Steven Moshier,
 * 3-clause BSD) and SciPy's incomplete gamma (BSD), through the forms ATen uses,
 * so that edge values (poles, domain limits) are ATen's. Written for double.
 */
#define _DEFAULT_SOURCE /* lgamma_r: lgamma would write the global signgam */
#include "ref_elementwise_special.h"

#include <math.h>

double ref_sf_lgamma(double x) {
  int sign;
  return lgamma_r(x, &sign);
}

/* The exported ref_sf_* symbols; static helpers (plugins/cuda/tc_special.cuh
   includes the same file as device functions). */
#define REF_SF_FN
#define REF_SF_HELPER static
#define REF_SF_LOCAL_TABLE static const
#include "ref_special_impl.h"
