/* tests/mutants/mut_view_copy.c: aten::permute that returns a copy.
 * BUG: the permuted tensor is materialized into new storage; the values and
 * shape are right, but the schema returns a view (Tensor(a)), and code that
 * writes through the result expects the input to change. Expected: not-a-view
 * on aten::permute. */
#include "mutant.h"

static tabi_status k_permute(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  tabi_tensor *a = args[0].u.t;
  const int64_t *dims = tabi_value_ints(&args[1]);
  int32_t nd = a->dl.ndim;
  if (args[1].u.list.len != nd)
    return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "aten::permute: argument 'dims' has the wrong length");
  int64_t shape[MUT_MAX_DIMS], strides[MUT_MAX_DIMS];
  int seen[MUT_MAX_DIMS] = {0};
  for (int32_t i = 0; i < nd; i++) {
    int64_t d = dims[i] < 0 ? dims[i] + nd : dims[i];
    if (d < 0 || d >= nd || seen[d])
      return TABI_ERR(h, TABI_ERR_INDEX, "aten::permute: argument 'dims' is not a permutation");
    seen[d] = 1;
    shape[i] = a->dl.shape[d];
    strides[i] = a->dl.strides[d];
  }
  tabi_tensor *v, *out;
  tabi_status st = h->tensor_view(h->ctx, a, nd, shape, strides, (int64_t)a->dl.byte_offset, &v);
  if (st != TABI_OK) return st;
  st = mut_empty(h, tabi_tensor_dtype(a), nd, shape, &out); /* the bug: a copy */
  if (st == TABI_OK) {
    st = h->tensor_copy(h->ctx, out, v);
    if (st != TABI_OK) h->tensor_release(h->ctx, out);
  }
  h->tensor_release(h->ctx, v);
  if (st != TABI_OK) return st;
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_view_copy", "mutant: permute returns a copy");
  return mut_register(host, "aten::permute", k_permute);
}
