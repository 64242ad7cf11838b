/* reference/ref_shape2.c: ops that copy: _to_copy, clone, copy, prims::copy_to,
 * prims::device_put, cat (aten and prims), select_scatter, slice_scatter, and
 * the metadata mutation resize_ / prims::resize. The table at the end also
 * lists the padding, repeat and flip kernels of ref_shape_pad.c.
 *
 * Outputs follow ATen's memory-format rules where ATen has them (clone and
 * _to_copy preserve a dense input's strides, so a transposed input gives a
 * transposed output); everything else is contiguous.
 */
#include <stdio.h>
#include <string.h>

#include "ref_resize_check.h"
#include "ref_shape_util.h"
#include "ref_slice.h"

#define OPN ref_op_name(h, call)

/* c10::Layout::Strided; anything else is refused. */
/* The input itself (retained) when it lives in host memory, else a host copy. */
static tabi_status host_input(const tabi_host_api *h, tabi_tensor *t, tabi_tensor **out) {
  if (t->dl.device.device_type == kDLCPU) {
    h->tensor_retain(h->ctx, t);
    *out = t;
    return TABI_OK;
  }
  DLDevice cpu = {kDLCPU, 0};
  tabi_status st = h->tensor_empty(h->ctx, cpu, tabi_tensor_dtype(t), t->dl.ndim, t->dl.shape, out);
  if (st != TABI_OK) return st;
  st = h->tensor_copy(h->ctx, *out, t);
  if (st != TABI_OK) {
    h->tensor_release(h->ctx, *out);
    *out = NULL;
  }
  return st;
}

/* A copy of self converted to dtype, laid out per memory format `fmt` (ATen's
 * empty_like rules), on `device`. The shared body of _to_copy, clone and
 * device_put. */
static tabi_status copy_like(const tabi_host_api *h, const tabi_call *call, tabi_tensor *self,
                             tabi_dtype dtype, DLDevice device, int64_t fmt, tabi_value *out) {
  int64_t strides[REF_MAX_DIMS];
  tabi_status st = ref_check_dtype(h, call, "dtype", dtype, REF_DTS_ALL);
  if (st == TABI_OK) st = rs_like_strides(h, call, self, fmt, strides);
  if (st != TABI_OK) return st;
  tabi_tensor *src = NULL, *res = NULL;
  st = host_input(h, self, &src);
  if (st != TABI_OK) return st;
  st = rs_empty_host(h, dtype, self->dl.ndim, self->dl.shape, strides, &res);
  if (st == TABI_OK) {
    ref_copy_convert(res, src);
    st = rs_to_device(h, device, &res);
  }
  h->tensor_release(h->ctx, src);
  if (st != TABI_OK) return st;
  *out = tabi_tensor_value(res);
  return TABI_OK;
}

static tabi_status k_to_copy(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *s = args[0].u.t;
  tabi_status st = rs_check_layout(h, call, &args[2]);
  if (st != TABI_OK) return st;
  return copy_like(h, call, s, rs_dtype_arg(&args[1], tabi_tensor_dtype(s)),
                   rs_device_arg(&args[3], s->dl.device), rs_memfmt_arg(&args[6], RS_MF_PRESERVE),
                   &outs[0]);
}

static tabi_status k_clone(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  tabi_tensor *s = args[0].u.t;
  return copy_like(ctx, call, s, tabi_tensor_dtype(s), s->dl.device,
                   rs_memfmt_arg(&args[1], RS_MF_PRESERVE), &outs[0]);
}

static tabi_status k_device_put(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  tabi_tensor *s = args[0].u.t;
  return copy_like(ctx, call, s, tabi_tensor_dtype(s), args[1].u.device, RS_MF_PRESERVE, &outs[0]);
}

/* src must broadcast to dst's shape (one way: src is expanded, never dst). */
static tabi_status check_expand_to(const tabi_host_api *h, const tabi_call *call, const char *arg,
                                   const tabi_tensor *src, const tabi_tensor *dst) {
  char b1[256], b2[256];
  int32_t sn = src->dl.ndim, dn = dst->dl.ndim;
  if (sn > dn)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: argument '%s' of shape %s cannot be broadcast to shape %s (more dims)", OPN,
                   arg, ref_shape_str(b1, sizeof b1, sn, src->dl.shape),
                   ref_shape_str(b2, sizeof b2, dn, dst->dl.shape));
  for (int32_t i = 0; i < sn; i++) {
    int64_t s = src->dl.shape[i], d = dst->dl.shape[dn - sn + i];
    if (s != d && s != 1)
      return REF_ERR(h, TABI_ERR_SHAPE,
                     "%s: argument '%s': The expanded size of the tensor (%lld) must match the "
                     "existing size (%lld) at non-singleton dimension %d.  Target sizes: %s.  "
                     "Tensor sizes: %s",
                     OPN, arg, (long long)d, (long long)s, (int)(dn - sn + i),
                     ref_shape_str(b1, sizeof b1, dn, dst->dl.shape),
                     ref_shape_str(b2, sizeof b2, sn, src->dl.shape));
  }
  return TABI_OK;
}

/* aten::copy(self, src): the functional copy_: a new tensor with self's shape,
 * dtype and (empty_like) layout holding src's values, broadcast and converted. */
static tabi_status k_copy(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *self = args[0].u.t, *src = NULL, *res = NULL;
  int64_t strides[REF_MAX_DIMS];
  tabi_status st = check_expand_to(h, call, "src", args[1].u.t, self);
  if (st == TABI_OK) st = rs_like_strides(h, call, self, RS_MF_PRESERVE, strides);
  if (st != TABI_OK) return st;
  st = host_input(h, args[1].u.t, &src);
  if (st != TABI_OK) return st;
  st = rs_empty_host(h, tabi_tensor_dtype(self), self->dl.ndim, self->dl.shape, strides, &res);
  if (st == TABI_OK) {
    ref_copy_convert(res, src);
    st = rs_to_device(h, self->dl.device, &res);
  }
  h->tensor_release(h->ctx, src);
  if (st != TABI_OK) return st;
  outs[0] = tabi_tensor_value(res);
  return TABI_OK;
}

/* prims::copy_to(a, b): writes b into a (mutable) and returns a. */
static tabi_status k_copy_to(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *a = args[0].u.t, *b = args[1].u.t;
  if (a->flags & TABI_TENSOR_READ_ONLY)
    return REF_ERR(h, TABI_ERR_READ_ONLY, "%s: argument 'a' is read-only and cannot be written", OPN);
  int64_t an = tabi_tensor_numel(a), bn = tabi_tensor_numel(b);
  if (an != bn)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'b': Attempting to copy %lld elements to a tensor with %lld elements!",
                   OPN, (long long)bn, (long long)an);
  tabi_status st = check_expand_to(h, call, "b", b, a);
  if (st != TABI_OK) return st;
  if (rs_has_internal_overlap(a))
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'a': unsupported operation: more than one element of the "
                   "written-to tensor refers to a single memory location",
                   OPN);
  if (a->dl.device.device_type != kDLCPU)
    return REF_ERR(h, TABI_ERR_DEVICE, "%s: argument 'a' is not in host memory", OPN);
  if (rs_partial_overlap(h, a, b))
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'b': unsupported operation: some elements of the input tensor and "
                   "the written-to tensor refer to a single memory location",
                   OPN);
  tabi_tensor *src = NULL;
  st = host_input(h, b, &src);
  if (st != TABI_OK) return st;
  st = rs_copy_safe(h, a, src);
  h->tensor_release(h->ctx, src);
  if (st != TABI_OK) return st;
  h->tensor_retain(h->ctx, a);
  outs[0] = tabi_tensor_value(a);
  return TABI_OK;
}

/* --- cat --------------------------------------------------------------------- */

static tabi_status cat_common(const tabi_host_api *h, const tabi_call *call, const tabi_value *list,
                              int64_t dim_arg, int prims, tabi_value *out) {
  int64_t n = list->u.list.len;
  tabi_tensor *const *ts = tabi_value_tensors(list);
  if (n == 0)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'tensors': expected a non-empty list of Tensors", OPN);
  tabi_dtype dtype = TABI_DTYPE_INVALID;
  int64_t ref = -1;
  for (int64_t i = 0; i < n; i++) {
    const tabi_tensor *t = ts[i];
    if (!t)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'tensors': tensor %lld is None", OPN, (long long)i);
    if (t->dl.ndim == 0)
      return REF_ERR(h, TABI_ERR_SHAPE,
                     "%s: argument 'tensors': zero-dimensional tensor (at position %lld) cannot be concatenated",
                     OPN, (long long)i);
    if (t->dl.device.device_type != kDLCPU || t->dl.device.device_id != ts[0]->dl.device.device_id)
      return REF_ERR(h, TABI_ERR_DEVICE, "%s: argument 'tensors': tensor %lld is not in host memory", OPN, (long long)i);
    tabi_dtype d = tabi_tensor_dtype(t);
    if (prims && i > 0 && d != dtype)
      return REF_ERR(h, TABI_ERR_TYPE, "%s: argument 'tensors': tensor %lld has dtype %s, expected %s (prims do not promote)",
                     OPN, (long long)i, tabi_dtype_name(d), tabi_dtype_name(dtype));
    dtype = prims ? d : ref_promote(dtype, d);
    /* ATen's legacy rule: 1-D tensors of shape [0] are skipped (prims skip nothing) */
    if (ref < 0 && (prims || !(t->dl.ndim == 1 && t->dl.shape[0] == 0))) ref = i;
  }
  int64_t shape[REF_MAX_DIMS];
  int32_t nd = 1, dim = 0;
  if (ref < 0) { /* every input skipped: the result is empty */
    shape[0] = 0;
    tabi_tensor *res = NULL;
    tabi_status st = ref_empty(h, ts[0], dtype, 1, shape, &res);
    if (st != TABI_OK) return st;
    *out = tabi_tensor_value(res);
    return TABI_OK;
  }
  const tabi_tensor *r = ts[ref];
  nd = r->dl.ndim;
  tabi_status st = ref_wrap_dim(h, call, "dim", dim_arg, nd, &dim);
  if (st != TABI_OK) return st;
  memcpy(shape, r->dl.shape, sizeof(int64_t) * (size_t)nd);
  shape[dim] = 0;
  for (int64_t i = 0; i < n; i++) {
    const tabi_tensor *t = ts[i];
    if (!prims && t->dl.ndim == 1 && t->dl.shape[0] == 0) continue;
    if (t->dl.ndim != nd)
      return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'tensors': Tensors must have same number of dimensions: got %d and %d",
                     OPN, (int)nd, (int)t->dl.ndim);
    for (int32_t d = 0; d < nd; d++) {
      if (d == dim || t->dl.shape[d] == r->dl.shape[d]) continue;
      return REF_ERR(h, TABI_ERR_SHAPE,
                     "%s: argument 'tensors': Sizes of tensors must match except in dimension %d. "
                     "Expected size %lld but got size %lld for tensor number %lld in the list.",
                     OPN, (int)dim, (long long)r->dl.shape[d], (long long)t->dl.shape[d], (long long)i);
    }
    shape[dim] += t->dl.shape[dim];
  }
  tabi_tensor *res = NULL;
  st = ref_empty(h, r, dtype, nd, shape, &res);
  if (st != TABI_OK) return st;
  int64_t at = 0;
  for (int64_t i = 0; i < n; i++) {
    const tabi_tensor *t = ts[i];
    if (!prims && t->dl.ndim == 1 && t->dl.shape[0] == 0) continue;
    ref_iter it;
    ref_iter_init(&it, nd, t->dl.shape);
    int32_t si = ref_iter_add(&it, t), oi = ref_iter_add_strided(&it, nd, t->dl.shape, res->dl.strides);
    int64_t base = at * res->dl.strides[dim];
    for (; !ref_iter_done(&it); ref_iter_next(&it)) rs_copy_elem(res, base + it.off[oi], t, it.off[si]);
    at += t->dl.shape[dim];
  }
  *out = tabi_tensor_value(res);
  return TABI_OK;
}

static tabi_status k_cat(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return cat_common(ctx, call, &args[0], args[1].u.i, 0, &outs[0]);
}

static tabi_status k_prims_cat(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return cat_common(ctx, call, &args[0], args[1].u.i, 1, &outs[0]);
}

/* --- select_scatter / slice_scatter -------------------------------------------- */

/* out = self laid out as clone(self) does; then src is written into the region
 * (ndim/shape/strides/offset of a view of out), which must have src's shape. */
static tabi_status scatter_into(const tabi_host_api *h, const tabi_call *call, tabi_tensor *self,
                                const tabi_tensor *src, int32_t nd, const int64_t *shape,
                                int32_t drop_dim, int64_t start, int64_t step, int32_t dim,
                                tabi_value *out) {
  char b1[256], b2[256];
  int same = src->dl.ndim == nd;
  for (int32_t i = 0; same && i < nd; i++) same = src->dl.shape[i] == shape[i];
  if (!same)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: argument 'src': expected src to have a size equal to the slice of self. "
                   "src size = %s, slice size = %s",
                   OPN, ref_shape_str(b1, sizeof b1, src->dl.ndim, src->dl.shape),
                   ref_shape_str(b2, sizeof b2, nd, shape));
  int64_t ostrides[REF_MAX_DIMS];
  tabi_status st = rs_like_strides(h, call, self, RS_MF_PRESERVE, ostrides);
  if (st != TABI_OK) return st;
  tabi_tensor *res = NULL;
  st = rs_empty_host(h, tabi_tensor_dtype(self), self->dl.ndim, self->dl.shape, ostrides, &res);
  if (st != TABI_OK) return st;
  ref_copy_convert(res, self);
  /* the region's geometry in res */
  int64_t rstrides[REF_MAX_DIMS];
  int32_t k = 0;
  for (int32_t i = 0; i < self->dl.ndim; i++) {
    if (i == drop_dim) continue;
    rstrides[k++] = i == dim ? ostrides[i] * step : ostrides[i];
  }
  int64_t base = start * ostrides[dim];
  ref_iter it;
  ref_iter_init(&it, nd, shape);
  int32_t si = ref_iter_add(&it, src), oi = ref_iter_add_strided(&it, nd, shape, rstrides);
  for (; !ref_iter_done(&it); ref_iter_next(&it)) rs_copy_elem(res, base + it.off[oi], src, it.off[si]);
  *out = tabi_tensor_value(res);
  return TABI_OK;
}

static tabi_status k_select_scatter(void *ctx, const tabi_call *call, tabi_value *args,
                                    tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *s = args[0].u.t;
  int32_t nd = s->dl.ndim, dim;
  if (nd == 0)
    return REF_ERR(h, TABI_ERR_INDEX, "%s: argument 'self': select() cannot be applied to a 0-dim tensor.", OPN);
  tabi_status st = ref_wrap_dim(h, call, "dim", args[2].u.i, nd, &dim);
  if (st != TABI_OK) return st;
  int64_t size = s->dl.shape[dim], index = args[3].u.i;
  char b[256];
  if (index < -size || index >= size)
    return REF_ERR(h, TABI_ERR_INDEX,
                   "%s: argument 'index': select(): index %lld out of range for tensor of size %s at dimension %d",
                   OPN, (long long)index, ref_shape_str(b, sizeof b, nd, s->dl.shape), (int)dim);
  if (index < 0) index += size;
  int64_t shape[REF_MAX_DIMS];
  int32_t k = 0;
  for (int32_t i = 0; i < nd; i++)
    if (i != dim) shape[k++] = s->dl.shape[i];
  return scatter_into(h, call, s, args[1].u.t, k, shape, dim, index, 1, dim, &outs[0]);
}

static tabi_status k_slice_scatter(void *ctx, const tabi_call *call, tabi_value *args,
                                   tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *s = args[0].u.t;
  int32_t nd = s->dl.ndim, dim;
  if (nd == 0)
    return REF_ERR(h, TABI_ERR_INDEX, "%s: argument 'self': slice() cannot be applied to a 0-dim tensor.", OPN);
  tabi_status st = ref_wrap_dim(h, call, "dim", args[2].u.i, nd, &dim);
  if (st != TABI_OK) return st;
  int64_t step = args[5].u.i;
  if (step <= 0)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'step': slice step must be positive, got %lld",
                   OPN, (long long)step);
  int64_t size = s->dl.shape[dim];
  int64_t start, len = ref_slice_bounds(size, &args[3], &args[4], &start);
  int64_t shape[REF_MAX_DIMS];
  memcpy(shape, s->dl.shape, sizeof(int64_t) * (size_t)nd);
  shape[dim] = len == 0 ? 0 : (len - 1) / step + 1;
  if (shape[dim] <= 1) step = 1; /* the stride of a dim of size <= 1 is never used */
  return scatter_into(h, call, s, args[1].u.t, nd, shape, -1, start, step, dim, &outs[0]);
}

/* --- resize_ / prims::resize ------------------------------------------------------ */

static tabi_status resize_common(const tabi_host_api *h, const tabi_call *call, tabi_value *args, int prims,
                                 tabi_value *out) {
  tabi_tensor *t = args[0].u.t;
  tabi_status st = ref_resize_check(h, call, args, prims);
  if (st != TABI_OK) return st;
  st = h->tensor_resize(h->ctx, t, (int32_t)args[1].u.list.len, tabi_value_ints(&args[1]));
  if (st != TABI_OK) return st;
  h->tensor_retain(h->ctx, t);
  *out = tabi_tensor_value(t);
  return TABI_OK;
}

static tabi_status k_resize_(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return resize_common(ctx, call, args, 0, &outs[0]);
}

static tabi_status k_prims_resize(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return resize_common(ctx, call, args, 1, &outs[0]);
}

const ref_kernel ref_shape2_kernels[] = {
    {"aten::_to_copy", k_to_copy},
    {"aten::clone", k_clone},
    {"aten::copy", k_copy},
    {"prims::copy_to", k_copy_to},
    {"prims::device_put", k_device_put},
    {"aten::cat", k_cat},
    {"prims::cat", k_prims_cat},
    {"aten::select_scatter", k_select_scatter},
    {"aten::slice_scatter", k_slice_scatter},
    {"aten::resize_", k_resize_},
    {"prims::resize", k_prims_resize},
    {"aten::constant_pad_nd", rs_k_constant_pad_nd},
    {"aten::reflection_pad1d", rs_k_reflection_pad1d},
    {"aten::reflection_pad2d", rs_k_reflection_pad2d},
    {"aten::reflection_pad3d", rs_k_reflection_pad3d},
    {"aten::replication_pad2d", rs_k_replication_pad2d},
    {"aten::replication_pad3d", rs_k_replication_pad3d},
    {"aten::repeat", rs_k_repeat},
    {"aten::flip", rs_k_flip},
    {"prims::rev", rs_k_flip},
    {NULL, NULL},
};
