/* tests/mutants/mut_input_mutated.c: aten::abs that changes its input.
 * BUG: "to save a buffer" it takes |x| in place in `self` and then copies self
 * into the output; the result is right, the caller's tensor is not. Expected:
 * input-mutated on aten::abs. */
#include <math.h>

#include "mutant.h"

static tabi_status k_abs(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  tabi_tensor *a = args[0].u.t;
  tabi_dtype d = tabi_tensor_dtype(a);
  tabi_status st = mut_check_real(h, "aten::abs", "self", d);
  if (st != TABI_OK) return st;
  tabi_tensor *out;
  st = mut_empty(h, d, a->dl.ndim, a->dl.shape, &out);
  if (st != TABI_OK) return st;
  int64_t n = tabi_tensor_numel(out);
  for (int64_t i = 0; i < n; i++) {
    int64_t o = mut_offset(a, a->dl.ndim, a->dl.shape, i);
    if (tabi_dtype_is_floating(d)) mut_set(a, o, fabs(mut_get(a, o))); /* the bug */
    else {
      int64_t x = mut_get_i(a, o);
      mut_set_i(a, o, x < 0 ? (int64_t)(0u - (uint64_t)x) : x);
    }
    if (tabi_dtype_is_floating(d)) mut_set(out, i, mut_get(a, o));
    else mut_set_i(out, i, mut_get_i(a, o));
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_input_mutated", "mutant: abs works in place on its input");
  return mut_register(host, "aten::abs", k_abs);
}
