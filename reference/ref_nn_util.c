/* reference/ref_nn_util.c: helpers shared by the nn family (see ref_nn_util.h). */
#include "ref_nn_util.h"

#include <math.h>
#include <stdlib.h>

double *ref_nn_zeros(int64_t n) { return calloc((size_t)(n > 0 ? n : 1), sizeof(double)); }
int64_t *ref_nn_izeros(int64_t n) { return calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t)); }
void ref_nn_free(void *p) { free(p); }

tabi_status ref_nn_stats_dtype(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                               const tabi_tensor *const *params, const char *const *names, int n,
                               tabi_dtype *out) {
  tabi_dtype dt = tabi_tensor_dtype(x);
  int low = dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16, mixed = 0;
  for (int i = 0; i < n; i++) {
    if (!params[i]) continue;
    tabi_dtype pd = tabi_tensor_dtype(params[i]);
    if (pd == dt) continue;
    if (low && pd == TABI_DTYPE_FLOAT32) {
      mixed = 1;
      continue;
    }
    return REF_ERR(h, TABI_ERR_TYPE, "%s: argument '%s' has dtype %s; expected %s (the input's)%s",
                   ref_op_name(h, call), names[i], tabi_dtype_name(pd), tabi_dtype_name(dt),
                   low ? " or float32" : "");
  }
  *out = mixed ? TABI_DTYPE_FLOAT32 : dt;
  return TABI_OK;
}

/* v as a float, rounded to nearest: from halfway past FLT_MAX on, an infinity
 * (a C conversion of such a double is undefined). */
static float to_f32(double v) {
  if (fabs(v) >= 0x1.ffffffp127) return (float)copysign(INFINITY, v);
  return (float)v;
}

double ref_nn_opmath_invstd(double var, double eps, tabi_dtype x) {
  if (x == TABI_DTYPE_FLOAT64) return 1 / sqrt(var + eps);
  return 1.0f / sqrtf(to_f32(var) + to_f32(eps));
}
