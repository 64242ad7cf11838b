/* tests/mutants/mut_slice.c: aten::slice.Tensor with an off-by-one.
 * BUG: an `end` past the size is clamped to size - 1 instead of size (as if end
 * were inclusive), so `x[2:100]` and `x[1:]` lose their last element. Expected:
 * wrong-shape on aten::slice.Tensor. */
#include <stdint.h>

#include "mutant.h"

static tabi_status k_slice(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  tabi_tensor *a = args[0].u.t;
  int32_t nd = a->dl.ndim;
  int64_t dim = args[1].u.i, step = args[4].u.i;
  if (dim < 0) dim += nd;
  if (nd == 0 || dim < 0 || dim >= nd)
    return TABI_ERR(h, TABI_ERR_INDEX, "aten::slice.Tensor: argument 'dim' out of range");
  if (step <= 0)
    return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "aten::slice.Tensor: argument 'step' must be positive");
  int64_t size = a->dl.shape[dim];
  int64_t start = args[2].tag == TABI_TAG_INT ? args[2].u.i : 0;
  int64_t end = args[3].tag == TABI_TAG_INT ? args[3].u.i : INT64_MAX;
  if (start < 0) start += size;
  if (end < 0) end += size;
  if (start < 0) start = 0;
  if (start > size) start = size;
  if (end > size) end = size - 1; /* the bug: should be `size` */
  if (end < start) end = start;
  int64_t shape[MUT_MAX_DIMS], strides[MUT_MAX_DIMS];
  for (int32_t i = 0; i < nd; i++) {
    shape[i] = a->dl.shape[i];
    strides[i] = a->dl.strides[i];
  }
  shape[dim] = (end - start + step - 1) / step;
  strides[dim] *= step;
  int64_t esz = tabi_dtype_size(tabi_tensor_dtype(a));
  int64_t off = (int64_t)a->dl.byte_offset + (shape[dim] > 0 ? start * a->dl.strides[dim] * esz : 0);
  tabi_tensor *v;
  tabi_status st = h->tensor_view(h->ctx, a, nd, shape, strides, off, &v);
  if (st != TABI_OK) return st;
  outs[0] = tabi_tensor_value(v);
  return TABI_OK;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_slice", "mutant: slice clamps end to size - 1");
  return mut_register(host, "aten::slice.Tensor", k_slice);
}
