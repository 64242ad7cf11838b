/* tests/mutants/mut_write_past.c: aten::neg writing one element past its output.
 * BUG: the store loop runs `i <= n` (a classic fence-post), writing element n
 * into whatever follows the output buffer. Values are right. Expected:
 * wrote-outside-output on aten::neg. */
#include "mutant.h"

static tabi_status k_neg(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  tabi_tensor *a = args[0].u.t;
  tabi_dtype d = tabi_tensor_dtype(a);
  tabi_status st = mut_check_real(h, "aten::neg", "self", d);
  if (st == TABI_OK && d == TABI_DTYPE_BOOL)
    st = TABI_ERR(h, TABI_ERR_TYPE, "aten::neg: argument 'self' is bool");
  if (st != TABI_OK) return st;
  tabi_tensor *out;
  st = mut_empty(h, d, a->dl.ndim, a->dl.shape, &out);
  if (st != TABI_OK) return st;
  int64_t n = tabi_tensor_numel(out);
  for (int64_t i = 0; i <= n; i++) { /* the bug: one store too many */
    double v = i < n ? -mut_get(a, mut_offset(a, a->dl.ndim, a->dl.shape, i)) : 0.0;
    mut_set(out, i, v);
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_write_past", "mutant: neg writes one element past its output");
  return mut_register(host, "aten::neg", k_neg);
}
