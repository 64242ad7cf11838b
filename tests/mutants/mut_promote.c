/* tests/mutants/mut_promote.c: aten::add.Scalar with wrong type promotion.
 * BUG: the result takes self's dtype, so int_tensor + 2.5 is an int tensor
 * (ATen: a float scalar makes an integer tensor's result float32). Expected:
 * wrong-dtype on aten::add.Scalar for integer dtypes. */
#include "mutant.h"

static tabi_status k_add_scalar(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  tabi_tensor *a = args[0].u.t;
  tabi_dtype d = tabi_tensor_dtype(a); /* the bug: should be result_type(self, other) */
  tabi_status st = mut_check_real(h, "aten::add.Scalar", "self", d);
  if (st != TABI_OK) return st;
  if (args[1].tag == TABI_TAG_COMPLEX || args[2].tag == TABI_TAG_COMPLEX)
    return TABI_ERR(h, TABI_ERR_TYPE, "aten::add.Scalar: complex scalars are not supported");
  /* alpha is checked against the right result dtype: the bug is the output's */
  st = mut_check_alpha(h, "aten::add.Scalar", &args[2], mut_result_type(a, NULL, &args[1]));
  if (st != TABI_OK) return st;
  tabi_tensor *out;
  st = mut_empty(h, d, a->dl.ndim, a->dl.shape, &out);
  if (st != TABI_OK) return st;
  double other = tabi_value_as_double(&args[1]), alpha = tabi_value_as_double(&args[2]);
  for (int64_t i = 0; i < tabi_tensor_numel(out); i++)
    mut_set(out, i, mut_get(a, mut_offset(a, a->dl.ndim, a->dl.shape, i)) + alpha * other);
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_promote", "mutant: add.Scalar keeps self's dtype");
  return mut_register(host, "aten::add.Scalar", k_add_scalar);
}
