/* tests/mutants/mut_empty_crash.c: aten::sin that crashes on empty tensors.
 * BUG: the work is split into blocks of n / nblocks elements with nblocks =
 * min(n, 64); for n == 0 that divides by zero (SIGFPE). Expected: crashed on
 * aten::sin (the "empty" sample). */
#include <math.h>

#include "mutant.h"

static tabi_status k_sin(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  tabi_tensor *a = args[0].u.t;
  tabi_dtype d = tabi_tensor_dtype(a);
  if (!tabi_dtype_is_floating(d))
    return TABI_ERR(h, TABI_ERR_TYPE, "aten::sin: this plugin supports floating dtypes only");
  tabi_tensor *out;
  tabi_status st = mut_empty(h, d, a->dl.ndim, a->dl.shape, &out);
  if (st != TABI_OK) return st;
  volatile int64_t n = tabi_tensor_numel(out);
  int64_t nblocks = n < 64 ? n : 64;
  volatile int64_t per = n / nblocks; /* the bug: nblocks is 0 when n is 0 */
  for (int64_t blk = 0; blk < nblocks; blk++) {
    int64_t lo = blk * per, hi = blk == nblocks - 1 ? n : lo + per;
    for (int64_t i = lo; i < hi; i++)
      mut_set(out, i, sin(mut_get(a, mut_offset(a, a->dl.ndim, a->dl.shape, i))));
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_empty_crash", "mutant: sin divides by zero on empty tensors");
  return mut_register(host, "aten::sin", k_sin);
}
