/* tests/mutants/mut_strict_read_only.c: aten::abs that refuses a read-only input.
 * BUG: a vendor's "never touch read-only memory" check is applied to every
 * tensor argument instead of to the ones the op writes, so abs refuses a
 * read-only `self` (TABI_ERR_READ_ONLY) that it only reads; ATen takes it.
 * Every value it computes is right, and no sample passes a read-only tensor:
 * only a random call, checked against the reference (which accepts it),
 * finds it. Expected: refused-good-input on aten::abs, in a random call. */
#include <math.h>

#include "mutant.h"

static double abs_f(double x) { return fabs(x); }

static tabi_status k_abs(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  tabi_dtype d = tabi_tensor_dtype(args[0].u.t);
  if (!tabi_dtype_is_floating(d)) /* floating only: the tests claim those (--dtypes) */
    return TABI_ERR(h, TABI_ERR_TYPE, "aten::abs: argument 'self' is %s", tabi_dtype_name(d));
  if (args[0].u.t->flags & TABI_TENSOR_READ_ONLY) /* the bug: self is never written */
    return TABI_ERR(h, TABI_ERR_READ_ONLY, "aten::abs: argument 'self' is read-only");
  return mut_unary(h, "aten::abs", args, abs_f, outs);
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_strict_read_only", "mutant: abs refuses a read-only input it only reads");
  return mut_register(host, "aten::abs", k_abs);
}
