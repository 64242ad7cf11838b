/* reference/ref_shape_pad.c: padding (constant_pad_nd, reflection_pad{1,2,3}d,
 * replication_pad{2,3}d), repeat and flip / prims::rev. Registered through
 * ref_shape2.c's table. Outputs are contiguous, except flip, which keeps a dense
 * input's layout as ATen's empty_like does.
 */
#include <stdio.h>
#include <string.h>

#include "ref_padup_check.h"
#include "ref_shape_util.h"

#define OPN ref_op_name(h, call)

/* Decomposes row-major linear index `lin` over shape into idx. */
static void unravel(int32_t nd, const int64_t *shape, int64_t lin, int64_t *idx) {
  for (int32_t d = nd - 1; d >= 0; d--) {
    idx[d] = shape[d] ? lin % shape[d] : 0;
    lin = shape[d] ? lin / shape[d] : 0;
  }
}

static int64_t offset_at(const tabi_tensor *t, const int64_t *idx) {
  int64_t off = 0;
  for (int32_t d = 0; d < t->dl.ndim; d++) off += idx[d] * t->dl.strides[d];
  return off;
}

/* --- constant_pad_nd ---------------------------------------------------------- */

tabi_status rs_k_constant_pad_nd(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *s = args[0].u.t;
  int32_t nd = s->dl.ndim;
  int64_t shape[REF_MAX_DIMS], before[REF_MAX_DIMS];
  unsigned char value[16];
  tabi_status st = ref_constant_pad_check(h, call, args, shape, before, value);
  if (st != TABI_OK) return st;
  tabi_tensor *out = NULL;
  st = ref_empty(h, s, tabi_tensor_dtype(s), nd, shape, &out);
  if (st != TABI_OK) return st;
  int64_t numel = tabi_tensor_numel(out), idx[REF_MAX_DIMS];
  for (int64_t i = 0; i < numel; i++) {
    unravel(nd, shape, i, idx);
    int inside = 1;
    for (int32_t d = 0; d < nd && inside; d++) {
      idx[d] -= before[d];
      inside = idx[d] >= 0 && idx[d] < s->dl.shape[d];
    }
    if (inside) rs_copy_elem(out, i, s, offset_at(s, idx));
    else rs_store_scalar(out, i, &args[2]);
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

/* --- reflection / replication ------------------------------------------------- */

/* The input index of output index j along one dim (ATen's cpu_padding: the
 * reflected/clamped index, shifted for negative pads that crop). */
static int64_t pad_index(int reflect, int64_t j, int64_t size, int64_t pad_l) {
  int64_t i_start = pad_l < 0 ? -pad_l : 0, o_start = pad_l > 0 ? pad_l : 0, ip;
  if (reflect) {
    if (j < pad_l) ip = pad_l * 2 - j;
    else if (j < size + pad_l) ip = j;
    else ip = (size + pad_l - 1) * 2 - j;
  } else {
    if (j < pad_l) ip = pad_l;
    else if (j < size + pad_l) ip = j;
    else ip = size + pad_l - 1;
  }
  return ip - o_start + i_start;
}

/* k spatial dims (the last k of the input), padding list (l, r) per dim from
 * the last dim backwards, as ATen orders it. */
static tabi_status pad_common(const tabi_host_api *h, const tabi_call *call, tabi_value *args,
                              int32_t k, int reflect, tabi_value *outs) {
  tabi_tensor *s = args[0].u.t;
  int32_t nd = s->dl.ndim;
  int64_t shape[REF_MAX_DIMS], padl[REF_MAX_DIMS];
  int32_t is_pad[REF_MAX_DIMS];
  tabi_status st = ref_pad_check(h, call, s, &args[1], k, reflect, shape, padl, is_pad);
  if (st != TABI_OK) return st;
  tabi_tensor *out = NULL;
  st = ref_empty(h, s, tabi_tensor_dtype(s), nd, shape, &out);
  if (st != TABI_OK) return st;
  int64_t numel = tabi_tensor_numel(out), idx[REF_MAX_DIMS];
  for (int64_t i = 0; i < numel; i++) {
    unravel(nd, shape, i, idx);
    for (int32_t d = 0; d < nd; d++)
      if (is_pad[d]) idx[d] = pad_index(reflect, idx[d], s->dl.shape[d], padl[d]);
    rs_copy_elem(out, i, s, offset_at(s, idx));
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

tabi_status rs_k_reflection_pad1d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return pad_common(ctx, call, args, 1, 1, outs);
}
tabi_status rs_k_reflection_pad2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return pad_common(ctx, call, args, 2, 1, outs);
}
tabi_status rs_k_reflection_pad3d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return pad_common(ctx, call, args, 3, 1, outs);
}
tabi_status rs_k_replication_pad2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return pad_common(ctx, call, args, 2, 0, outs);
}
tabi_status rs_k_replication_pad3d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return pad_common(ctx, call, args, 3, 0, outs);
}

/* --- repeat ------------------------------------------------------------------- */

tabi_status rs_k_repeat(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *s = args[0].u.t;
  int64_t n = args[1].u.list.len;
  const int64_t *rep = tabi_value_ints(&args[1]);
  int32_t nd = s->dl.ndim;
  if (n < nd)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: argument 'repeats': Number of dimensions of repeat dims can not be smaller "
                   "than number of dimensions of tensor (%lld < %d)",
                   OPN, (long long)n, (int)nd);
  int64_t pshape[REF_MAX_DIMS], shape[REF_MAX_DIMS];
  tabi_status st = rs_check_sizes(h, call, "repeats", n, rep);
  if (st != TABI_OK) return st;
  int64_t total = 1;
  for (int64_t i = 0; i < n; i++) {
    int64_t d = nd - (n - i);
    pshape[i] = d >= 0 ? s->dl.shape[d] : 1;
    if (__builtin_mul_overflow(pshape[i], rep[i], &shape[i]) ||
        (shape[i] && __builtin_mul_overflow(total, shape[i], &total)))
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'repeats': the result size overflows", OPN);
  }
  tabi_tensor *out = NULL;
  st = ref_empty(h, s, tabi_tensor_dtype(s), (int32_t)n, shape, &out);
  if (st != TABI_OK) return st;
  int64_t numel = tabi_tensor_numel(out), idx[REF_MAX_DIMS];
  for (int64_t i = 0; i < numel; i++) {
    unravel((int32_t)n, shape, i, idx);
    int64_t off = 0;
    for (int64_t j = n - nd; j < n; j++) off += (idx[j] % pshape[j]) * s->dl.strides[j - (n - nd)];
    rs_copy_elem(out, i, s, off);
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

/* --- flip / prims::rev ---------------------------------------------------------- */

tabi_status rs_k_flip(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *s = args[0].u.t;
  int32_t nd = s->dl.ndim;
  const int64_t *dims = tabi_value_ints(&args[1]);
  int flip[REF_MAX_DIMS] = {0};
  for (int64_t i = 0; i < args[1].u.list.len; i++) {
    int32_t w;
    tabi_status st = ref_wrap_dim(h, call, "dims", dims[i], nd, &w);
    if (st != TABI_OK) return st;
    if (flip[w]) /* 0-d too: -1 and 0 are both its dim 0 (ATen refuses [-1, 0]) */
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'dims': dim %d appears multiple times in the list of dims",
                     OPN, (int)w);
    flip[w] = 1;
  }
  int64_t ostrides[REF_MAX_DIMS], istrides[REF_MAX_DIMS], base = 0;
  tabi_status st = rs_like_strides(h, call, s, RS_MF_PRESERVE, ostrides);
  if (st != TABI_OK) return st;
  tabi_tensor *out = NULL;
  st = rs_empty_host(h, tabi_tensor_dtype(s), nd, s->dl.shape, ostrides, &out);
  if (st != TABI_OK) return st;
  /* read the input through negated strides on the flipped dims */
  for (int32_t d = 0; d < nd; d++) {
    istrides[d] = flip[d] ? -s->dl.strides[d] : s->dl.strides[d];
    if (flip[d] && s->dl.shape[d] > 0) base += (s->dl.shape[d] - 1) * s->dl.strides[d];
  }
  ref_iter it;
  ref_iter_init(&it, nd, s->dl.shape);
  int32_t si = ref_iter_add_strided(&it, nd, s->dl.shape, istrides), oi = ref_iter_add(&it, out);
  for (; !ref_iter_done(&it); ref_iter_next(&it)) rs_copy_elem(out, it.off[oi], s, base + it.off[si]);
  st = rs_to_device(h, s->dl.device, &out);
  if (st != TABI_OK) return st;
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}
