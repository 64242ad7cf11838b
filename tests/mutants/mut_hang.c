/* tests/mutants/mut_hang.c: aten::exp that hangs on some inputs.
 * BUG: range reduction halves x until |x| <= 0.5, then squares the result back;
 * for x = +-inf halving never gets there, so the kernel loops forever (on the
 * special-values sample only). Expected: timed-out on aten::exp. */
#include <math.h>

#include "mutant.h"

static double reduced_exp(double x) {
  unsigned k = 0; /* unsigned: the planted bug is the hang, not an overflow UBSan stops */
  while (fabs(x) > 0.5) { /* the bug: no exit for infinities */
    x *= 0.5;
    k++;
  }
  double term = 1.0, sum = 1.0;
  for (int i = 1; i < 25; i++) {
    term *= x / i;
    sum += term;
  }
  while (k-- > 0) sum *= sum;
  return sum;
}

static tabi_status k_exp(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  tabi_tensor *a = args[0].u.t;
  tabi_dtype d = tabi_tensor_dtype(a);
  if (d != TABI_DTYPE_FLOAT32)
    return TABI_ERR(h, TABI_ERR_TYPE, "aten::exp: this plugin supports float32 only");
  tabi_tensor *out;
  tabi_status st = mut_empty(h, d, a->dl.ndim, a->dl.shape, &out);
  if (st != TABI_OK) return st;
  for (int64_t i = 0; i < tabi_tensor_numel(out); i++)
    mut_set(out, i, reduced_exp(mut_get(a, mut_offset(a, a->dl.ndim, a->dl.shape, i))));
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_hang", "mutant: exp loops forever on infinities");
  return mut_register(host, "aten::exp", k_exp);
}
