/* tests/mutants/mut_nan_max.c: aten::maximum that drops NaN.
 * BUG: `a > b ? a : b` returns b when a is NaN (any comparison with NaN is
 * false); ATen's maximum propagates NaN from either side. Expected:
 * value-mismatch on aten::maximum (the special-values sample). */
#include "mutant.h"

static double max_f(double a, double b, double alpha) {
  (void)alpha;
  return a > b ? a : b; /* the bug: NaN in `a` is lost */
}
static int64_t max_i(int64_t a, int64_t b, int64_t alpha, int *err) {
  (void)alpha; (void)err;
  return a > b ? a : b;
}
static tabi_status k_maximum(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  (void)call;
  return mut_binary(ctx, "aten::maximum", args, 0, max_f, max_i, outs);
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_nan_max", "mutant: maximum drops NaN");
  return mut_register(host, "aten::maximum", k_maximum);
}
