/* reference/ref_shape.c: the view ops. Every kernel here returns a tensor that
 * shares its input's storage (h->tensor_view), with ATen's shape and stride
 * rules: alias, as_strided, diagonal, expand, permute, select, slice,
 * split_with_sizes, squeeze, unsqueeze, view, and the view prims
 * (as_strided, broadcast_in_dim, collapse_view, split_dim, squeeze, transpose,
 * view_of). prims::reshape (a copy) lives here too, next to view's rules.
 */
#include <stdio.h>
#include <string.h>

#include "ref_shape_util.h"
#include "ref_slice.h"

#define OPN ref_op_name(h, call)

static int64_t elsize(const tabi_tensor *t) { return t->dl.dtype.bits / 8; }
/* The storage offset of t in elements (ATen's storage_offset()). */
static int64_t storage_off(const tabi_tensor *t) { return (int64_t)t->dl.byte_offset / elsize(t); }

/* A view of base with the given geometry; offset in elements from the storage base. */
static tabi_status make_view(const tabi_host_api *h, tabi_tensor *base, int32_t ndim,
                             const int64_t *shape, const int64_t *strides, int64_t offset,
                             tabi_value *out) {
  tabi_tensor *v = NULL;
  int64_t bytes;
  if (__builtin_mul_overflow(offset, elsize(base), &bytes))
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "storage offset %lld overflows int64 in bytes",
                   (long long)offset);
  tabi_status st = h->tensor_view(h->ctx, base, ndim, shape, strides, bytes, &v);
  if (st != TABI_OK) return st;
  *out = tabi_tensor_value(v);
  return TABI_OK;
}

static tabi_status k_alias(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *s = args[0].u.t;
  return make_view(h, s, s->dl.ndim, s->dl.shape, s->dl.strides, storage_off(s), &outs[0]);
}

/* --- as_strided ------------------------------------------------------------ */

static tabi_status as_strided_common(const tabi_host_api *h, const tabi_call *call,
                                     tabi_tensor *s, const tabi_value *size,
                                     const tabi_value *stride, int64_t offset, tabi_value *out) {
  int64_t n = size->u.list.len;
  const int64_t *sz = tabi_value_ints(size), *sd = tabi_value_ints(stride);
  if (stride->u.list.len != n)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'stride': mismatch in length of strides and shape (%lld vs %lld)",
                   OPN, (long long)stride->u.list.len, (long long)n);
  tabi_status st = rs_check_sizes(h, call, "size", n, sz);
  if (st != TABI_OK) return st;
  char b1[256], b2[256];
  for (int64_t i = 0; i < n; i++)
    if (sd[i] < 0)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                     "%s: argument 'stride': Negative strides are not supported at the moment, got strides: %s",
                     OPN, ref_shape_str(b1, sizeof b1, (int32_t)n, sd));
  if (offset < 0)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'storage_offset': invalid storage offset %lld",
                   OPN, (long long)offset);
  /* the furthest element must lie inside the storage (nothing to check when empty) */
  int64_t last = offset, numel = 1;
  int overflow = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t span;
    numel *= sz[i] ? 1 : 0;
    if (sz[i] == 0) continue;
    overflow |= __builtin_mul_overflow(sz[i] - 1, sd[i], &span);
    overflow |= __builtin_add_overflow(last, span, &last);
  }
  if (numel != 0) {
    uint64_t nbytes = h->tensor_storage_nbytes(h->ctx, s);
    int64_t need;
    overflow |= __builtin_add_overflow(last, 1, &need);
    overflow |= __builtin_mul_overflow(need, elsize(s), &need);
    if (overflow || (uint64_t)need > nbytes)
      return REF_ERR(h, TABI_ERR_INDEX,
                     "%s: sizes %s, strides %s, storage offset %lld and itemsize %lld are out of "
                     "bounds for storage of size %llu bytes",
                     OPN, ref_shape_str(b1, sizeof b1, (int32_t)n, sz),
                     ref_shape_str(b2, sizeof b2, (int32_t)n, sd), (long long)offset,
                     (long long)elsize(s), (unsigned long long)nbytes);
  }
  return make_view(h, s, (int32_t)n, sz, sd, offset, out);
}

static tabi_status k_as_strided(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *s = args[0].u.t;
  int64_t off = args[3].tag == TABI_TAG_INT ? args[3].u.i : storage_off(s);
  return as_strided_common(h, call, s, &args[1], &args[2], off, &outs[0]);
}

static tabi_status k_prims_as_strided(void *ctx, const tabi_call *call, tabi_value *args,
                                      tabi_value *outs) {
  const tabi_host_api *h = ctx;
  return as_strided_common(h, call, args[0].u.t, &args[1], &args[2], args[3].u.i, &outs[0]);
}

/* --- diagonal -------------------------------------------------------------- */

static tabi_status k_diagonal(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *s = args[0].u.t;
  int64_t offset = args[1].u.i;
  int32_t nd = s->dl.ndim, d1, d2;
  tabi_status st = ref_wrap_dim(h, call, "dim1", args[2].u.i, nd, &d1);
  if (st == TABI_OK) st = ref_wrap_dim(h, call, "dim2", args[3].u.i, nd, &d2);
  if (st != TABI_OK) return st;
  if (d1 == d2)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'dim2': diagonal dimensions cannot be identical %lld, %lld",
                   OPN, (long long)args[2].u.i, (long long)args[3].u.i);
  int64_t s1 = s->dl.shape[d1], s2 = s->dl.shape[d2], len, off = storage_off(s);
  if (offset >= 0) {
    len = offset >= s2 ? 0 : (s1 < s2 - offset ? s1 : s2 - offset);
    if (len > 0) off += offset * s->dl.strides[d2];
  } else {
    len = offset <= -s1 ? 0 : (s1 + offset < s2 ? s1 + offset : s2);
    if (len > 0) off -= offset * s->dl.strides[d1];
  }
  int64_t shape[REF_MAX_DIMS], strides[REF_MAX_DIMS];
  int32_t k = 0;
  for (int32_t i = 0; i < nd; i++) {
    if (i == d1 || i == d2) continue;
    shape[k] = s->dl.shape[i];
    strides[k++] = s->dl.strides[i];
  }
  shape[k] = len;
  strides[k++] = s->dl.strides[d1] + s->dl.strides[d2];
  return make_view(h, s, k, shape, strides, off, &outs[0]);
}

/* --- expand / broadcast_in_dim ---------------------------------------------- */

static tabi_status k_expand(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *s = args[0].u.t;
  int64_t n = args[1].u.list.len;
  const int64_t *sz = tabi_value_ints(&args[1]);
  int32_t nd = s->dl.ndim;
  char b1[256], b2[256];
  if (n < nd)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: argument 'size': the number of sizes provided (%lld) must be greater or "
                   "equal to the number of dimensions in the tensor (%d)",
                   OPN, (long long)n, (int)nd);
  if (n > REF_MAX_DIMS)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'size': %lld dims is more than the reference supports",
                   OPN, (long long)n);
  int64_t shape[REF_MAX_DIMS], strides[REF_MAX_DIMS];
  for (int64_t i = n - 1; i >= 0; i--) {
    int64_t dim = nd - (n - i);
    int64_t size = dim >= 0 ? s->dl.shape[dim] : 1;
    int64_t stride = dim >= 0 ? s->dl.strides[dim] : (i + 1 < n ? shape[i + 1] * strides[i + 1] : 1);
    int64_t target = sz[i];
    if (target == -1) {
      if (dim < 0)
        return REF_ERR(h, TABI_ERR_SHAPE,
                       "%s: argument 'size': The expanded size of the tensor (-1) isn't allowed in "
                       "a leading, non-existing dimension %lld",
                       OPN, (long long)i);
      target = size;
    }
    if (target < 0)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'size': invalid size %lld at dimension %lld",
                     OPN, (long long)target, (long long)i);
    if (size != target) {
      if (size != 1)
        return REF_ERR(h, TABI_ERR_SHAPE,
                       "%s: argument 'size': The expanded size of the tensor (%lld) must match the "
                       "existing size (%lld) at non-singleton dimension %lld.  Target sizes: %s.  "
                       "Tensor sizes: %s",
                       OPN, (long long)target, (long long)size, (long long)i,
                       ref_shape_str(b1, sizeof b1, (int32_t)n, sz),
                       ref_shape_str(b2, sizeof b2, nd, s->dl.shape));
      size = target;
      stride = 0;
    }
    shape[i] = size;
    strides[i] = stride;
  }
  return make_view(h, s, (int32_t)n, shape, strides, storage_off(s), &outs[0]);
}

static tabi_status k_broadcast_in_dim(void *ctx, const tabi_call *call, tabi_value *args,
                                      tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *a = args[0].u.t;
  int64_t n = args[1].u.list.len, nb = args[2].u.list.len;
  const int64_t *shape = tabi_value_ints(&args[1]), *bd = tabi_value_ints(&args[2]);
  tabi_status st = rs_check_sizes(h, call, "shape", n, shape);
  if (st != TABI_OK) return st;
  if (nb != a->dl.ndim || n < nb)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: argument 'broadcast_dimensions' has %lld entries for a tensor of %d dims "
                   "and a shape of %lld dims",
                   OPN, (long long)nb, (int)a->dl.ndim, (long long)n);
  int64_t prev = -1;
  for (int64_t i = 0; i < nb; i++) {
    if (bd[i] <= prev || bd[i] >= n)
      return REF_ERR(h, TABI_ERR_SHAPE,
                     "%s: argument 'broadcast_dimensions' must be strictly increasing and below %lld; "
                     "got %lld at position %lld",
                     OPN, (long long)n, (long long)bd[i], (long long)i);
    if (a->dl.shape[i] != 1 && a->dl.shape[i] != shape[bd[i]])
      return REF_ERR(h, TABI_ERR_SHAPE,
                     "%s: dim %lld of size %lld cannot broadcast to size %lld at dim %lld",
                     OPN, (long long)i, (long long)a->dl.shape[i], (long long)shape[bd[i]],
                     (long long)bd[i]);
    prev = bd[i];
  }
  int64_t strides[REF_MAX_DIMS];
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    strides[i] = 0;
    if (k < nb && bd[k] == i) {
      if (a->dl.shape[k] == shape[i]) strides[i] = a->dl.strides[k];
      k++;
    }
  }
  return make_view(h, a, (int32_t)n, shape, strides, storage_off(a), &outs[0]);
}

/* --- permute / transpose ---------------------------------------------------- */

static tabi_status permute_common(const tabi_host_api *h, const tabi_call *call, const char *arg,
                                  tabi_tensor *s, const tabi_value *dims, tabi_value *out) {
  int32_t nd = s->dl.ndim;
  int64_t n = dims->u.list.len;
  const int64_t *d = tabi_value_ints(dims);
  if (n != nd)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: argument '%s': number of dimensions in the tensor input does not match the "
                   "length of the desired ordering of dimensions i.e. input.dim() = %d is not "
                   "equal to len(dims) = %lld",
                   OPN, arg, (int)nd, (long long)n);
  int64_t shape[REF_MAX_DIMS], strides[REF_MAX_DIMS];
  int seen[REF_MAX_DIMS] = {0};
  for (int32_t i = 0; i < nd; i++) {
    int32_t w;
    tabi_status st = ref_wrap_dim(h, call, arg, d[i], nd, &w);
    if (st != TABI_OK) return st;
    if (seen[w])
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument '%s': duplicate dims are not allowed (dim %d)",
                     OPN, arg, (int)w);
    seen[w] = 1;
    shape[i] = s->dl.shape[w];
    strides[i] = s->dl.strides[w];
  }
  return make_view(h, s, nd, shape, strides, storage_off(s), out);
}

static tabi_status k_permute(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return permute_common(ctx, call, "dims", args[0].u.t, &args[1], &outs[0]);
}

static tabi_status k_transpose(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return permute_common(ctx, call, "permutation", args[0].u.t, &args[1], &outs[0]);
}

/* --- select / slice / split ------------------------------------------------- */

static tabi_status k_select(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *s = args[0].u.t;
  int32_t nd = s->dl.ndim, dim;
  if (nd == 0)
    return REF_ERR(h, TABI_ERR_INDEX, "%s: argument 'self': select() cannot be applied to a 0-dim tensor.", OPN);
  tabi_status st = ref_wrap_dim(h, call, "dim", args[1].u.i, nd, &dim);
  if (st != TABI_OK) return st;
  int64_t size = s->dl.shape[dim], index = args[2].u.i;
  if (index < -size || index >= size) {
    char b[256];
    return REF_ERR(h, TABI_ERR_INDEX,
                   "%s: argument 'index': select(): index %lld out of range for tensor of size %s at dimension %d",
                   OPN, (long long)index, ref_shape_str(b, sizeof b, nd, s->dl.shape), (int)dim);
  }
  if (index < 0) index += size;
  int64_t shape[REF_MAX_DIMS], strides[REF_MAX_DIMS];
  int32_t k = 0;
  for (int32_t i = 0; i < nd; i++) {
    if (i == dim) continue;
    shape[k] = s->dl.shape[i];
    strides[k++] = s->dl.strides[i];
  }
  return make_view(h, s, k, shape, strides, storage_off(s) + index * s->dl.strides[dim], &outs[0]);
}

static tabi_status k_slice(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *s = args[0].u.t;
  int32_t nd = s->dl.ndim, dim;
  if (nd == 0)
    return REF_ERR(h, TABI_ERR_INDEX, "%s: argument 'self': slice() cannot be applied to a 0-dim tensor.", OPN);
  tabi_status st = ref_wrap_dim(h, call, "dim", args[1].u.i, nd, &dim);
  if (st != TABI_OK) return st;
  int64_t step = args[4].u.i;
  if (step <= 0)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'step': slice step must be positive, got %lld",
                   OPN, (long long)step);
  int64_t size = s->dl.shape[dim];
  int64_t start, len = ref_slice_bounds(size, &args[2], &args[3], &start); /* ATen's clamping */
  int64_t shape[REF_MAX_DIMS], strides[REF_MAX_DIMS];
  for (int32_t i = 0; i < nd; i++) {
    shape[i] = s->dl.shape[i];
    strides[i] = s->dl.strides[i];
  }
  shape[dim] = len == 0 ? 0 : (len - 1) / step + 1;
  if (__builtin_mul_overflow(s->dl.strides[dim], step, &strides[dim]))
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'step': %lld overflows the stride",
                   OPN, (long long)step);
  return make_view(h, s, nd, shape, strides, storage_off(s) + start * s->dl.strides[dim], &outs[0]);
}

static tabi_status k_split_with_sizes(void *ctx, const tabi_call *call, tabi_value *args,
                                      tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *s = args[0].u.t;
  int64_t n = args[1].u.list.len;
  const int64_t *sizes = tabi_value_ints(&args[1]);
  int32_t nd = s->dl.ndim, dim;
  char b[256];
  if (nd == 0)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'self': split expects at least a 1-dimensional tensor", OPN);
  tabi_status st = ref_wrap_dim(h, call, "dim", args[2].u.i, nd, &dim);
  if (st != TABI_OK) return st;
  int64_t sum = 0;
  int neg = 0, over = 0; /* over sticks: [INT64_MAX, 6, 4] must not wrap back to 3 */
  for (int64_t i = 0; i < n; i++) {
    if (sizes[i] < 0) neg = 1;
    else if (!over && __builtin_add_overflow(sum, sizes[i], &sum)) over = 1;
  }
  if (neg)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'split_sizes': split_with_sizes expects split_sizes have only "
                   "non-negative entries, but got split_sizes=%s",
                   OPN, ref_shape_str(b, sizeof b, (int32_t)(n < 64 ? n : 64), sizes));
  if (over || sum != s->dl.shape[dim])
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: argument 'split_sizes': split_with_sizes expects split_sizes to sum exactly "
                   "to %lld (input tensor's size at dimension %d), but got split_sizes=%s",
                   OPN, (long long)s->dl.shape[dim], (int)dim,
                   ref_shape_str(b, sizeof b, (int32_t)(n < 64 ? n : 64), sizes));
  tabi_tensor **arr = NULL;
  st = h->list_alloc(h->ctx, n, &arr);
  if (st != TABI_OK) return st;
  outs[0] = tabi_tensor_list(arr, n);
  int64_t shape[REF_MAX_DIMS], start = 0;
  memcpy(shape, s->dl.shape, sizeof(int64_t) * (size_t)nd);
  for (int64_t i = 0; i < n; i++) {
    tabi_value v = tabi_none(); /* make_view sets it on success */
    shape[dim] = sizes[i];
    st = make_view(h, s, nd, shape, s->dl.strides, storage_off(s) + start * s->dl.strides[dim], &v);
    if (st != TABI_OK) {
      h->value_release(h->ctx, &outs[0]);
      return st;
    }
    arr[i] = v.u.t;
    start += sizes[i];
  }
  return TABI_OK;
}

/* --- squeeze / unsqueeze ----------------------------------------------------- */

/* Drops the dims marked in `drop` that have size 1. */
static tabi_status squeeze_marked(const tabi_host_api *h, tabi_tensor *s, const int *drop,
                                  tabi_value *out) {
  int64_t shape[REF_MAX_DIMS], strides[REF_MAX_DIMS];
  int32_t k = 0;
  for (int32_t i = 0; i < s->dl.ndim; i++) {
    if (drop[i] && s->dl.shape[i] == 1) continue;
    shape[k] = s->dl.shape[i];
    strides[k++] = s->dl.strides[i];
  }
  return make_view(h, s, k, shape, strides, storage_off(s), out);
}

static tabi_status k_squeeze_dim(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *s = args[0].u.t;
  int32_t dim;
  tabi_status st = ref_wrap_dim(h, call, "dim", args[1].u.i, s->dl.ndim, &dim);
  if (st != TABI_OK) return st;
  int drop[REF_MAX_DIMS] = {0};
  if (s->dl.ndim > 0) drop[dim] = 1;
  return squeeze_marked(h, s, drop, &outs[0]);
}

/* squeeze.dims (ATen 2.0; torch 1.13 lacks it) and prims::squeeze: `strict`
 * (the prim) requires every listed dim to have size 1. */
static tabi_status squeeze_dims(const tabi_host_api *h, const tabi_call *call, const char *arg,
                                tabi_tensor *s, const tabi_value *dims, int strict, tabi_value *out) {
  int drop[REF_MAX_DIMS] = {0};
  const int64_t *d = tabi_value_ints(dims);
  for (int64_t i = 0; i < dims->u.list.len; i++) {
    int32_t w;
    tabi_status st = ref_wrap_dim(h, call, arg, d[i], s->dl.ndim, &w);
    if (st != TABI_OK) return st;
    if (s->dl.ndim == 0) continue;
    if (drop[w] && !strict)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument '%s': dim %d appears multiple times in the list of dims",
                     ref_op_name(h, call), arg, (int)w);
    if (strict && s->dl.shape[w] != 1)
      return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument '%s': dim %d has size %lld, expected 1",
                     ref_op_name(h, call), arg, (int)w, (long long)s->dl.shape[w]);
    drop[w] = 1;
  }
  return squeeze_marked(h, s, drop, out);
}

static tabi_status k_squeeze_dims(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return squeeze_dims(ctx, call, "dim", args[0].u.t, &args[1], 0, &outs[0]);
}

static tabi_status k_prims_squeeze(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return squeeze_dims(ctx, call, "dimensions", args[0].u.t, &args[1], 1, &outs[0]);
}

static tabi_status k_unsqueeze(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *s = args[0].u.t;
  int32_t nd = s->dl.ndim, dim;
  if (nd + 1 > REF_MAX_DIMS)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: a tensor of %d dims cannot grow past the reference's %d", OPN,
                   (int)nd, REF_MAX_DIMS);
  tabi_status st = ref_wrap_dim(h, call, "dim", args[1].u.i, nd + 1, &dim);
  if (st != TABI_OK) return st;
  int64_t shape[REF_MAX_DIMS], strides[REF_MAX_DIMS];
  for (int32_t i = 0, k = 0; i <= nd; i++) {
    if (i == dim) {
      shape[i] = 1;
      /* ATen's inferUnsqueezeGeometry: the stride the dim would have if contiguous
       * with the one after it */
      strides[i] = dim >= nd ? 1 : s->dl.shape[dim] * s->dl.strides[dim];
    } else {
      shape[i] = s->dl.shape[k];
      strides[i] = s->dl.strides[k++];
    }
  }
  return make_view(h, s, nd + 1, shape, strides, storage_off(s), &outs[0]);
}

/* --- view / reshape ----------------------------------------------------------- */

/* ATen's infer_size: resolves one -1 against numel. */
static tabi_status infer_size(const tabi_host_api *h, const tabi_call *call, const char *arg,
                              const tabi_value *size, int allow_infer, int64_t numel, int64_t *out) {
  int64_t n = size->u.list.len;
  const int64_t *sz = tabi_value_ints(size);
  char b[256];
  if (n > REF_MAX_DIMS)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument '%s': %lld dims is more than the reference supports",
                   OPN, arg, (long long)n);
  int64_t prod = 1, infer = -1;
  int overflow = 0;
  for (int64_t i = 0; i < n; i++) {
    out[i] = sz[i];
    if (sz[i] == -1 && allow_infer) {
      if (infer >= 0)
        return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument '%s': only one dimension can be inferred", OPN, arg);
      infer = i;
    } else if (sz[i] >= 0) {
      overflow |= __builtin_mul_overflow(prod, sz[i], &prod);
    } else {
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument '%s': invalid shape dimension %lld",
                     OPN, arg, (long long)sz[i]);
    }
  }
  if (!overflow && (numel == prod || (infer >= 0 && prod > 0 && numel % prod == 0))) {
    if (infer >= 0) {
      if (prod == 0)
        return REF_ERR(h, TABI_ERR_SHAPE,
                       "%s: argument '%s': cannot reshape tensor of 0 elements into shape %s because "
                       "the unspecified dimension size -1 can be any value and is ambiguous",
                       OPN, arg, ref_shape_str(b, sizeof b, (int32_t)n, sz));
      out[infer] = numel / prod;
    }
    return TABI_OK;
  }
  if (infer >= 0 && prod == 0 && !overflow)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: argument '%s': cannot reshape tensor of 0 elements into shape %s because "
                   "the unspecified dimension size -1 can be any value and is ambiguous",
                   OPN, arg, ref_shape_str(b, sizeof b, (int32_t)n, sz));
  return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument '%s': shape '%s' is invalid for input of size %lld",
                 OPN, arg, ref_shape_str(b, sizeof b, (int32_t)n, sz), (long long)numel);
}

/* ATen's computeStride: strides for viewing (oldshape, oldstride) as newshape
 * without copying; 0 when impossible. */
static int compute_stride(int32_t ond, const int64_t *oshape, const int64_t *ostride, int32_t nnd,
                          const int64_t *nshape, int64_t *nstride) {
  if (ond == 0) {
    for (int32_t i = 0; i < nnd; i++) nstride[i] = 1;
    return 1;
  }
  int64_t numel = 1;
  for (int32_t i = 0; i < ond; i++) numel *= oshape[i];
  if (numel == 0) {
    int same = ond == nnd;
    for (int32_t i = 0; same && i < ond; i++) same = oshape[i] == nshape[i];
    if (same) {
      memcpy(nstride, ostride, sizeof(int64_t) * (size_t)ond);
      return 1;
    }
    rs_contig_strides(nnd, nshape, nstride); /* wraps past int64, as ATen's */
    return 1;
  }
  int32_t view_d = nnd - 1;
  int64_t chunk_base_stride = ostride[ond - 1], tensor_numel = 1, view_numel = 1;
  for (int32_t td = ond - 1; td >= 0; td--) {
    tensor_numel *= oshape[td];
    if (td == 0 || (oshape[td - 1] != 1 && ostride[td - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || nshape[view_d] == 1)) {
        nstride[view_d] = view_numel * chunk_base_stride;
        view_numel *= nshape[view_d];
        view_d--;
      }
      if (view_numel != tensor_numel) return 0;
      if (td > 0) {
        chunk_base_stride = ostride[td - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

static tabi_status k_view(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *s = args[0].u.t;
  int64_t shape[REF_MAX_DIMS], strides[REF_MAX_DIMS];
  tabi_status st = infer_size(h, call, "size", &args[1], 1, tabi_tensor_numel(s), shape);
  if (st != TABI_OK) return st;
  int32_t n = (int32_t)args[1].u.list.len;
  if (!compute_stride(s->dl.ndim, s->dl.shape, s->dl.strides, n, shape, strides))
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: argument 'size': view size is not compatible with input tensor's size and "
                   "stride (at least one dimension spans across two contiguous subspaces). Use "
                   ".reshape(...) instead.",
                   OPN);
  return make_view(h, s, n, shape, strides, storage_off(s), &outs[0]);
}

/* prims::reshape returns a new contiguous tensor (torch's prim is RETURN_TYPE.NEW:
 * `a.reshape(shape).contiguous().clone()`), never a view: the schema's result
 * does not alias. The shape is explicit: no -1. */
static tabi_status k_prims_reshape(void *ctx, const tabi_call *call, tabi_value *args,
                                   tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *a = args[0].u.t, *out = NULL;
  int64_t shape[REF_MAX_DIMS];
  int64_t numel = tabi_tensor_numel(a);
  tabi_status st = infer_size(h, call, "shape", &args[1], 0, numel, shape);
  if (st != TABI_OK) return st;
  int32_t n = (int32_t)args[1].u.list.len;
  st = ref_empty(h, a, tabi_tensor_dtype(a), n, shape, &out);
  if (st != TABI_OK) return st;
  /* row-major order of the input is row-major order of the output */
  for (int64_t i = 0; i < numel; i++) {
    rs_copy_elem(out, i, a, ref_offset_of(a, i));
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

/* --- collapse_view / split_dim / view_of ----------------------------------------- */

static tabi_status k_collapse_view(void *ctx, const tabi_call *call, tabi_value *args,
                                   tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *a = args[0].u.t;
  int64_t start = args[1].u.i, end = args[2].u.i;
  int64_t one = 1;
  int32_t nd = a->dl.ndim > 0 ? a->dl.ndim : 1;
  const int64_t *shape = a->dl.ndim > 0 ? a->dl.shape : &one;
  const int64_t *strides = a->dl.ndim > 0 ? a->dl.strides : &one;
  if (start < 0 || start >= nd)
    return REF_ERR(h, TABI_ERR_INDEX, "%s: argument 'start': %lld is out of range for %d dims", OPN,
                   (long long)start, (int)nd);
  if (end < 0 || end > nd)
    return REF_ERR(h, TABI_ERR_INDEX, "%s: argument 'end': %lld is out of range for %d dims", OPN,
                   (long long)end, (int)nd);
  if (end <= start)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: Attempting to collapse but end, %lld, is less than or equal to start, %lld!",
                   OPN, (long long)end, (long long)start);
  int64_t numel = tabi_tensor_numel(a);
  int64_t length = shape[end - 1], stride = strides[end - 1];
  for (int64_t i = end - 2; i >= start; i--) {
    if (shape[i] == 0 || shape[i + 1] == 0) {
      length = 0;
      stride = 0;
      break;
    }
    if (shape[i] == 1) continue;
    length *= shape[i];
    if (strides[i] < stride) stride = strides[i];
    if (numel > 0 && shape[i + 1] != 1 && strides[i] != strides[i + 1] * shape[i + 1])
      return REF_ERR(h, TABI_ERR_SHAPE,
                     "%s: Attempting to view a collapsed tensor, but no such view exists!", OPN);
  }
  int64_t nshape[REF_MAX_DIMS], nstrides[REF_MAX_DIMS];
  int32_t k = 0;
  for (int64_t i = 0; i < start; i++) {
    nshape[k] = shape[i];
    nstrides[k++] = strides[i];
  }
  nshape[k] = length;
  nstrides[k++] = stride;
  for (int64_t i = end; i < nd; i++) {
    nshape[k] = shape[i];
    nstrides[k++] = strides[i];
  }
  if (numel == 0) rs_contig_strides(k, nshape, nstrides); /* as torch's prim restrides */
  return make_view(h, a, k, nshape, nstrides, storage_off(a), &outs[0]);
}

static tabi_status k_split_dim(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *a = args[0].u.t;
  int32_t nd = a->dl.ndim, dim;
  int64_t outer = args[2].u.i;
  if (nd == 0)
    return REF_ERR(h, TABI_ERR_INDEX, "%s: argument 'a': cannot split a 0-dim tensor", OPN);
  if (nd + 1 > REF_MAX_DIMS)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: too many dims for the reference", OPN);
  tabi_status st = ref_wrap_dim(h, call, "dim", args[1].u.i, nd, &dim);
  if (st != TABI_OK) return st;
  int64_t len = a->dl.shape[dim];
  if (outer <= 0 || len % outer != 0)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: argument 'outer_length': Attempting to split dimension of length %lld, but "
                   "outer length of %lld does not divide it",
                   OPN, (long long)len, (long long)outer);
  int64_t inner = len / outer;
  int64_t shape[REF_MAX_DIMS], strides[REF_MAX_DIMS];
  int32_t k = 0;
  for (int32_t i = 0; i < nd; i++) {
    if (i == dim) {
      shape[k] = outer;
      strides[k++] = a->dl.strides[i] * inner;
      shape[k] = inner;
      strides[k++] = a->dl.strides[i];
    } else {
      shape[k] = a->dl.shape[i];
      strides[k++] = a->dl.strides[i];
    }
  }
  return make_view(h, a, k, shape, strides, storage_off(a), &outs[0]);
}

const ref_kernel ref_shape_kernels[] = {
    {"aten::alias", k_alias},
    {"aten::as_strided", k_as_strided},
    {"aten::diagonal", k_diagonal},
    {"aten::expand", k_expand},
    {"aten::permute", k_permute},
    {"aten::select.int", k_select},
    {"aten::slice.Tensor", k_slice},
    {"aten::split_with_sizes", k_split_with_sizes},
    {"aten::squeeze.dim", k_squeeze_dim},
    {"aten::squeeze.dims", k_squeeze_dims},
    {"aten::unsqueeze", k_unsqueeze},
    {"aten::view", k_view},
    {"prims::as_strided", k_prims_as_strided},
    {"prims::broadcast_in_dim", k_broadcast_in_dim},
    {"prims::collapse_view", k_collapse_view},
    {"prims::split_dim", k_split_dim},
    {"prims::squeeze", k_prims_squeeze},
    {"prims::transpose", k_transpose},
    {"prims::view_of", k_alias},
    {"prims::reshape", k_prims_reshape},
    {NULL, NULL},
};
