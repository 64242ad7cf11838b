/* tests/mutants/mut_leak.c: aten::bitwise_not that leaks on its error path.
 * BUG: it allocates the output before it checks the dtype, and the refusal of
 * a floating or complex input returns without releasing it. Every answer is
 * right (the samples pass, refusals included); only the memory in use grows.
 * Expected: leaked-memory on aten::bitwise_not, found by a random call (the
 * samples do not measure memory). */
#include "mutant.h"

static tabi_status k_bitwise_not(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  tabi_tensor *a = args[0].u.t;
  tabi_dtype d = tabi_tensor_dtype(a);
  tabi_tensor *out;
  tabi_status st = mut_empty(h, d, a->dl.ndim, a->dl.shape, &out);
  if (st != TABI_OK) return st;
  if (!tabi_dtype_is_integral(d, 1)) /* the bug: `out` is not released */
    return TABI_ERR(h, TABI_ERR_TYPE, "aten::bitwise_not: argument 'self' is %s; expected an integer or bool",
                    tabi_dtype_name(d));
  for (int64_t i = 0; i < tabi_tensor_numel(out); i++) {
    int64_t v = mut_get_i(a, mut_offset(a, a->dl.ndim, a->dl.shape, i));
    mut_set_i(out, i, d == TABI_DTYPE_BOOL ? !v : ~v);
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_leak", "mutant: bitwise_not leaks its output when it refuses a dtype");
  return mut_register(host, "aten::bitwise_not", k_bitwise_not);
}
