/* tests/mutants/mut_lax_alpha.c: aten::add.Tensor that takes a bool alpha.
 * BUG: a bool alpha is read as 0 or 1 whatever the result dtype; ATen refuses
 * it ("Boolean alpha only supported for Boolean results"). Every value it
 * computes is right, and the samples pass no bool alpha to a float add: only
 * a random call, checked against the reference (which refuses it), finds it.
 * Expected: accepted-bad-input on aten::add.Tensor, in a random call. */
#include "mutant.h"

static double add_f(double a, double b, double alpha) { return a + alpha * b; }
static int64_t add_i(int64_t a, int64_t b, int64_t alpha, int *err) {
  (void)err;
  return (int64_t)((uint64_t)a + (uint64_t)alpha * (uint64_t)b);
}

static tabi_status k_add(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  (void)call;
  tabi_value a[3] = {args[0], args[1], args[2]};
  if (a[2].tag == TABI_TAG_BOOL) a[2] = tabi_int(a[2].u.i); /* the bug: True is 1, False 0 */
  return mut_binary(ctx, "aten::add.Tensor", a, 1, add_f, add_i, outs);
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_lax_alpha", "mutant: add.Tensor accepts a bool alpha for any result");
  return mut_register(host, "aten::add.Tensor", k_add);
}
