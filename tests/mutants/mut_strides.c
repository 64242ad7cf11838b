/* tests/mutants/mut_strides.c: aten::mul.Tensor that ignores strides.
 * BUG: when both operands have the output's shape and dtype it takes a "fast
 * path" reading element i at data[i], as if every tensor were contiguous.
 * Transposed, stepped and expanded inputs give wrong values. Expected:
 * value-mismatch on aten::mul.Tensor. */
#include <string.h>

#include "mutant.h"

static double mul_f(double a, double b, double alpha) { (void)alpha; return a * b; }
static int64_t mul_i(int64_t a, int64_t b, int64_t alpha, int *err) {
  (void)alpha; (void)err;
  return (int64_t)((uint64_t)a * (uint64_t)b);
}

static int same_shape(const tabi_tensor *a, const tabi_tensor *b) {
  if (a->dl.ndim != b->dl.ndim) return 0;
  return memcmp(a->dl.shape, b->dl.shape, sizeof(int64_t) * (size_t)a->dl.ndim) == 0;
}

static tabi_status k_mul(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  tabi_tensor *a = args[0].u.t, *b = args[1].u.t;
  tabi_dtype d = tabi_tensor_dtype(a);
  if (!same_shape(a, b) || d != tabi_tensor_dtype(b) || d != TABI_DTYPE_FLOAT32)
    return mut_binary(h, "aten::mul.Tensor", args, 0, mul_f, mul_i, outs);
  tabi_tensor *out;
  tabi_status st = mut_empty(h, d, a->dl.ndim, a->dl.shape, &out);
  if (st != TABI_OK) return st;
  const float *x = tabi_tensor_data(a), *y = tabi_tensor_data(b);
  float *o = tabi_tensor_data(out);
  for (int64_t i = 0; i < tabi_tensor_numel(out); i++) o[i] = x[i] * y[i]; /* the bug */
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_strides", "mutant: mul assumes contiguous inputs");
  return mut_register(host, "aten::mul.Tensor", k_mul);
}
