/* tests/mutants/mut_broadcast.c: aten::add.Tensor with broadcasting wrong on
 * one axis. BUG: an operand with fewer dims is aligned to the LEFT of the
 * output shape ([2, 3] + [3] reads other[i0], not other[i1]); ATen aligns to the
 * right. Same-rank broadcasting ([3, 1] + [1, 4]) is right, so only some
 * samples see it. Expected: value-mismatch on aten::add.Tensor. */
#include <string.h>

#include "mutant.h"

/* The buggy offset: dims of a lower-rank tensor matched from the left. */
static int64_t left_aligned_offset(const tabi_tensor *t, int32_t ndim, const int64_t *shape,
                                   int64_t linear) {
  int64_t idx[MUT_MAX_DIMS], off = 0;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    int64_t size = shape[d] > 0 ? shape[d] : 1;
    idx[d] = linear % size;
    linear /= size;
  }
  for (int32_t d = 0; d < t->dl.ndim; d++)
    if (t->dl.shape[d] != 1) off += (idx[d] % t->dl.shape[d]) * t->dl.strides[d];
  return off;
}

static tabi_status k_add(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  tabi_tensor *a = args[0].u.t, *b = args[1].u.t;
  tabi_dtype rt = mut_result_type(a, b, NULL);
  tabi_status st = mut_check_real(h, "aten::add.Tensor", "self", rt);
  if (st == TABI_OK) st = mut_check_alpha(h, "aten::add.Tensor", &args[2], rt);
  if (st != TABI_OK) return st;
  int32_t nd;
  int64_t shape[MUT_MAX_DIMS];
  st = mut_broadcast(h, "aten::add.Tensor", a, b, &nd, shape);
  if (st != TABI_OK) return st;
  tabi_tensor *out;
  st = mut_empty(h, rt, nd, shape, &out);
  if (st != TABI_OK) return st;
  double alpha = tabi_value_as_double(&args[2]);
  for (int64_t i = 0; i < tabi_tensor_numel(out); i++) {
    int64_t oa = left_aligned_offset(a, nd, shape, i), ob = left_aligned_offset(b, nd, shape, i);
    if (tabi_dtype_is_floating(rt)) mut_set(out, i, mut_get(a, oa) + alpha * mut_get(b, ob));
    else mut_set_i(out, i, (int64_t)((uint64_t)mut_get_i(a, oa) +
                                     (uint64_t)(int64_t)alpha * (uint64_t)mut_get_i(b, ob)));
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_broadcast", "mutant: add.Tensor broadcasts lower-rank operands from the left");
  return mut_register(host, "aten::add.Tensor", k_add);
}
