/* reference/decomp_shape.c: views, padding and concatenation as prims, plus
 * the ATen ops ATen itself defines through others (addmm through mm,
 * embedding through index_select). Copies and factories: decomp_create.c.
 *
 * Views are built with prims::as_strided over the input's storage, so they alias
 * it as ATen's views do; offsets are in elements from the storage base.
 */
#include <string.h>

#include "decomp.h"

#define KERNEL(name) \
  static tabi_status name(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs)

static int wrap(dc_scope *s, const char *arg, int64_t dim, int32_t ndim, int32_t *out) {
  tabi_status st = ref_wrap_dim(s->h, s->call, arg, dim, ndim, out);
  if (st != TABI_OK) s->st = st;
  return st == TABI_OK;
}

/* --- views ----------------------------------------------------------------- */

KERNEL(d_alias) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return dc_finish_view(&s, outs, 0, dc_unary(&s, DC_P_VIEW_OF, args[0].u.t));
}

KERNEL(d_as_strided) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  int64_t off = args[3].tag == TABI_TAG_INT ? args[3].u.i : dc_elem_offset(x);
  if (args[1].u.list.len != args[2].u.list.len)
    return dc_error(&s, TABI_ERR_INVALID_ARGUMENT,
                    "arguments 'size' (%lld dims) and 'stride' (%lld dims) differ in length",
                    (long long)args[1].u.list.len, (long long)args[2].u.list.len);
  return dc_finish_view(&s, outs, 0,
                        dc_as_strided(&s, x, (int32_t)args[1].u.list.len, tabi_value_ints(&args[1]),
                                      tabi_value_ints(&args[2]), off));
}

KERNEL(d_expand) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  int32_t n = (int32_t)args[1].u.list.len;
  const int64_t *want = tabi_value_ints(&args[1]);
  if (n < x->dl.ndim || n > REF_MAX_DIMS)
    return dc_error(&s, TABI_ERR_SHAPE,
                    "the number of sizes (%d) must be at least the tensor's dims (%d)", (int)n,
                    (int)x->dl.ndim);
  int64_t shape[REF_MAX_DIMS];
  for (int32_t i = 0; i < n; i++) {
    int32_t j = i - (n - x->dl.ndim);
    int64_t have = j >= 0 ? x->dl.shape[j] : 1;
    if (want[i] == -1) {
      if (j < 0)
        return dc_error(&s, TABI_ERR_SHAPE, "-1 is not allowed in a leading, new dimension (%d)",
                        (int)i);
      shape[i] = have;
    } else if (want[i] < 0) {
      return dc_error(&s, TABI_ERR_INVALID_ARGUMENT, "argument 'size' has a negative size %lld",
                      (long long)want[i]);
    } else if (have != 1 && have != want[i]) {
      return dc_error(&s, TABI_ERR_SHAPE,
                      "the expanded size (%lld) must match the existing size (%lld) at dim %d",
                      (long long)want[i], (long long)have, (int)i);
    } else {
      shape[i] = want[i];
    }
  }
  tabi_tensor *r = dc_broadcast_to(&s, x, n, shape);
  if (r == x) r = dc_unary(&s, DC_P_VIEW_OF, x);
  return dc_finish_view(&s, outs, 0, r);
}

KERNEL(d_permute) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  if (args[1].u.list.len != x->dl.ndim)
    return dc_error(&s, TABI_ERR_SHAPE, "argument 'dims' has %lld entries for a tensor of %d dims",
                    (long long)args[1].u.list.len, (int)x->dl.ndim);
  int64_t perm[REF_MAX_DIMS];
  uint32_t seen = 0;
  for (int32_t i = 0; i < x->dl.ndim; i++) {
    int32_t d;
    if (!wrap(&s, "dims", tabi_value_ints(&args[1])[i], x->dl.ndim, &d))
      return dc_abandon(&s, s.st);
    if (seen & (1u << d))
      return dc_error(&s, TABI_ERR_INVALID_ARGUMENT, "argument 'dims' repeats dim %d", (int)d);
    seen |= 1u << d;
    perm[i] = d;
  }
  return dc_finish_view(&s, outs, 0, dc_transpose(&s, x, perm));
}

static tabi_status squeeze_impl(dc_scope *s, tabi_value *outs, tabi_tensor *x, const int64_t *dims,
                                int64_t n) {
  int64_t keep[REF_MAX_DIMS];
  int32_t k = 0;
  uint32_t mask = 0, seen = 0;
  for (int64_t i = 0; i < n; i++) {
    int32_t d;
    if (!wrap(s, "dim", dims[i], x->dl.ndim, &d)) return dc_abandon(s, s->st);
    if (x->dl.ndim == 0) continue;
    if (seen & (1u << d)) /* as the reference's squeeze.dims */
      return dc_error(s, TABI_ERR_INVALID_ARGUMENT, "argument 'dim': dim %d appears multiple times in the list of dims",
                      (int)d);
    seen |= 1u << d;
    if (x->dl.shape[d] == 1) mask |= 1u << d;
  }
  for (int32_t d = 0; d < x->dl.ndim; d++)
    if (mask & (1u << d)) keep[k++] = d;
  if (k == 0) return dc_finish_view(s, outs, 0, dc_unary(s, DC_P_VIEW_OF, x));
  tabi_value a[2] = {tabi_tensor_value(x), tabi_int_list(keep, k)};
  return dc_finish_view(s, outs, 0, dc_call(s, DC_P_SQUEEZE, a, 2));
}
KERNEL(d_squeeze_dim) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return squeeze_impl(&s, outs, args[0].u.t, &args[1].u.i, 1);
}
KERNEL(d_squeeze_dims) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return squeeze_impl(&s, outs, args[0].u.t, tabi_value_ints(&args[1]), args[1].u.list.len);
}

KERNEL(d_unsqueeze) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  int32_t d;
  if (!wrap(&s, "dim", args[1].u.i, x->dl.ndim + 1, &d)) return dc_abandon(&s, s.st);
  int64_t shape[REF_MAX_DIMS], bd[REF_MAX_DIMS];
  for (int32_t i = 0, j = 0; i <= x->dl.ndim; i++) {
    if (i == d) {
      shape[i] = 1;
      continue;
    }
    shape[i] = x->dl.shape[j];
    bd[j++] = i;
  }
  tabi_value a[3] = {tabi_tensor_value(x), tabi_int_list(shape, x->dl.ndim + 1),
                     tabi_int_list(bd, x->dl.ndim)};
  return dc_finish_view(&s, outs, 0, dc_call(&s, DC_P_BROADCAST_IN_DIM, a, 3));
}

KERNEL(d_select) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  if (x->dl.ndim == 0)
    return dc_error(&s, TABI_ERR_INDEX, "select() cannot be applied to a 0-dim tensor");
  int32_t d;
  if (!wrap(&s, "dim", args[1].u.i, x->dl.ndim, &d)) return dc_abandon(&s, s.st);
  int64_t size = x->dl.shape[d], idx = args[2].u.i;
  if (idx < -size || idx >= size)
    return dc_error(&s, TABI_ERR_INDEX,
                    "index %lld is out of range for dimension %d with size %lld", (long long)idx,
                    (int)d, (long long)size);
  if (idx < 0) idx += size;
  int64_t shape[REF_MAX_DIMS], strides[REF_MAX_DIMS];
  for (int32_t i = 0, j = 0; i < x->dl.ndim; i++)
    if (i != d) {
      shape[j] = x->dl.shape[i];
      strides[j++] = x->dl.strides[i];
    }
  return dc_finish_view(&s, outs, 0,
                        dc_as_strided(&s, x, x->dl.ndim - 1, shape, strides,
                                      dc_elem_offset(x) + idx * x->dl.strides[d]));
}

/* Python slice clamping, as ATen's slice does. */
static void clamp_slice(int64_t size, const tabi_value *start, const tabi_value *end,
                        int64_t *out_start, int64_t *out_end) {
  int64_t st = start->tag == TABI_TAG_INT ? start->u.i : 0;
  int64_t en = end->tag == TABI_TAG_INT ? end->u.i : INT64_MAX;
  if (st < 0) st += size;
  if (en < 0) en += size;
  if (st < 0)
    st = 0;
  else if (st > size)
    st = size;
  if (en < st)
    en = st;
  else if (en > size)
    en = size;
  *out_start = st;
  *out_end = en;
}

KERNEL(d_slice) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  if (x->dl.ndim == 0)
    return dc_error(&s, TABI_ERR_INDEX, "slice() cannot be applied to a 0-dim tensor");
  int32_t d;
  if (!wrap(&s, "dim", args[1].u.i, x->dl.ndim, &d)) return dc_abandon(&s, s.st);
  int64_t step = args[4].u.i;
  if (step <= 0)
    return dc_error(&s, TABI_ERR_INVALID_ARGUMENT, "argument 'step' must be positive, got %lld",
                    (long long)step);
  int64_t st, en;
  clamp_slice(x->dl.shape[d], &args[2], &args[3], &st, &en);
  int64_t shape[REF_MAX_DIMS], strides[REF_MAX_DIMS];
  for (int32_t i = 0; i < x->dl.ndim; i++) {
    shape[i] = x->dl.shape[i];
    strides[i] = x->dl.strides[i];
  }
  shape[d] = en - st == 0 ? 0 : (en - st - 1) / step + 1; /* (n + step - 1) / step could overflow */
  if (__builtin_mul_overflow(x->dl.strides[d], step, &strides[d])) /* as the reference's slice */
    return dc_error(&s, TABI_ERR_INVALID_ARGUMENT, "argument 'step': %lld overflows the stride",
                    (long long)step);
  return dc_finish_view(
      &s, outs, 0,
      dc_as_strided(&s, x, x->dl.ndim, shape, strides, dc_elem_offset(x) + st * x->dl.strides[d]));
}

KERNEL(d_diagonal) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  int32_t d1, d2;
  if (!wrap(&s, "dim1", args[2].u.i, x->dl.ndim, &d1) ||
      !wrap(&s, "dim2", args[3].u.i, x->dl.ndim, &d2))
    return dc_abandon(&s, s.st);
  if (d1 == d2)
    return dc_error(&s, TABI_ERR_INVALID_ARGUMENT,
                    "diagonal dimensions cannot be identical (%d, %d)", (int)d1, (int)d2);
  int64_t off = args[1].u.i, start = dc_elem_offset(x), len;
  if (off >= 0) {
    len = x->dl.shape[d2] - off < x->dl.shape[d1] ? x->dl.shape[d2] - off : x->dl.shape[d1];
    if (len > 0) start += off * x->dl.strides[d2];
  } else {
    len = x->dl.shape[d1] + off < x->dl.shape[d2] ? x->dl.shape[d1] + off : x->dl.shape[d2];
    if (len > 0) start -= off * x->dl.strides[d1];
  }
  if (len < 0) len = 0;
  int64_t shape[REF_MAX_DIMS], strides[REF_MAX_DIMS];
  int32_t k = 0;
  for (int32_t i = 0; i < x->dl.ndim; i++)
    if (i != d1 && i != d2) {
      shape[k] = x->dl.shape[i];
      strides[k++] = x->dl.strides[i];
    }
  shape[k] = len;
  strides[k++] = x->dl.strides[d1] + x->dl.strides[d2];
  return dc_finish_view(&s, outs, 0, dc_as_strided(&s, x, k, shape, strides, start));
}

/* ATen's computeStride: the strides of a view of `x` with `shape`, or 0 when
 * the memory layout does not allow one. */
static int view_strides(const tabi_tensor *x, int32_t n, const int64_t *shape, int64_t *out) {
  int64_t numel = tabi_tensor_numel(x);
  if (x->dl.ndim == 0) { /* a scalar views as any all-ones shape */
    for (int32_t i = 0; i < n; i++) out[i] = 1;
    return 1;
  }
  if (numel == 0) {
    uint64_t st = 1; /* wraps as rs_contig_strides: an empty tensor's strides address nothing */
    for (int32_t i = n - 1; i >= 0; i--) {
      out[i] = (int64_t)st;
      st *= (uint64_t)(shape[i] > 1 ? shape[i] : 1);
    }
    return 1;
  }
  int32_t view_d = n - 1;
  int64_t chunk_base_stride = x->dl.ndim ? x->dl.strides[x->dl.ndim - 1] : 1;
  int64_t tensor_numel = 1, view_numel = 1;
  for (int32_t d = x->dl.ndim - 1; d >= 0; d--) {
    tensor_numel *= x->dl.shape[d];
    if (d == 0 ||
        (x->dl.shape[d - 1] != 1 && x->dl.strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        view_d--;
      }
      if (view_numel != tensor_numel) return 0;
      if (d > 0) {
        chunk_base_stride = x->dl.strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

/* Resolves one -1 in a requested shape; 0 and an error when it cannot. */
static int infer_shape(dc_scope *s, const tabi_tensor *x, const tabi_value *size, int64_t *shape) {
  int32_t n = (int32_t)size->u.list.len, infer = -1;
  int64_t prod = 1;
  if (n > REF_MAX_DIMS) {
    dc_fail(s, TABI_ERR_INVALID_ARGUMENT, "too many dims (%d)", (int)n);
    return 0;
  }
  for (int32_t i = 0; i < n; i++) {
    shape[i] = tabi_value_ints(size)[i];
    if (shape[i] == -1) {
      if (infer >= 0) {
        dc_fail(s, TABI_ERR_INVALID_ARGUMENT, "only one dimension can be inferred");
        return 0;
      }
      infer = i;
    } else if (shape[i] < 0) {
      {
        dc_fail(s, TABI_ERR_INVALID_ARGUMENT, "invalid shape dimension %lld", (long long)shape[i]);
        return 0;
      }
    } else if (__builtin_mul_overflow(prod, shape[i], &prod)) {
      dc_fail(s, TABI_ERR_SHAPE, "shape is invalid for input of size %lld (its product overflows int64)",
              (long long)tabi_tensor_numel(x));
      return 0;
    }
  }
  int64_t numel = tabi_tensor_numel(x);
  if (infer >= 0) {
    if (prod == 0 || numel % prod != 0) {
      dc_fail(s, TABI_ERR_SHAPE, "shape is invalid for input of size %lld", (long long)numel);
      return 0;
    }
    shape[infer] = numel / prod;
  } else if (prod != numel) {
    {
      dc_fail(s, TABI_ERR_SHAPE, "shape is invalid for input of size %lld", (long long)numel);
      return 0;
    }
  }
  return 1;
}

KERNEL(d_view) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  int64_t shape[REF_MAX_DIMS], strides[REF_MAX_DIMS];
  if (!infer_shape(&s, x, &args[1], shape)) return dc_abandon(&s, s.st);
  int32_t n = (int32_t)args[1].u.list.len;
  if (!view_strides(x, n, shape, strides))
    return dc_error(
        &s, TABI_ERR_SHAPE,
        "view size is not compatible with input tensor's size and stride "
        "(at least one dimension spans across two contiguous subspaces); use reshape instead");
  return dc_finish_view(&s, outs, 0, dc_as_strided(&s, x, n, shape, strides, dc_elem_offset(x)));
}

KERNEL(d_split_with_sizes) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  int32_t d;
  if (x->dl.ndim == 0)
    return dc_error(&s, TABI_ERR_INDEX, "split expects at least a 1-dimensional tensor");
  if (!wrap(&s, "dim", args[2].u.i, x->dl.ndim, &d)) return dc_abandon(&s, s.st);
  int64_t n = args[1].u.list.len, total = 0;
  const int64_t *sizes = tabi_value_ints(&args[1]);
  for (int64_t i = 0; i < n; i++) {
    if (sizes[i] < 0)
      return dc_error(&s, TABI_ERR_INVALID_ARGUMENT, "split_sizes has a negative entry %lld",
                      (long long)sizes[i]);
    if (__builtin_add_overflow(total, sizes[i], &total))
      return dc_error(&s, TABI_ERR_SHAPE, "split_sizes sum past int64 but dim %d has size %lld", (int)d,
                      (long long)x->dl.shape[d]);
  }
  if (total != x->dl.shape[d])
    return dc_error(&s, TABI_ERR_SHAPE, "split_sizes sum to %lld but dim %d has size %lld",
                    (long long)total, (int)d, (long long)x->dl.shape[d]);
  tabi_tensor **list;
  tabi_status st = s.h->list_alloc(s.h->ctx, n, &list);
  if (st != TABI_OK) return dc_abandon(&s, st);
  tabi_value out = tabi_tensor_list(list, n);
  int64_t shape[REF_MAX_DIMS], strides[REF_MAX_DIMS], start = 0;
  for (int32_t i = 0; i < x->dl.ndim; i++) {
    shape[i] = x->dl.shape[i];
    strides[i] = x->dl.strides[i];
  }
  for (int64_t i = 0; i < n && s.st == TABI_OK; i++) {
    shape[d] = sizes[i];
    tabi_tensor *v =
        dc_as_strided(&s, x, x->dl.ndim, shape, strides, dc_elem_offset(x) + start * x->dl.strides[d]);
    if (v) {
      s.h->tensor_retain(s.h->ctx, v);
      list[i] = v;
    }
    start += sizes[i];
  }
  dc_end(&s);
  if (s.st != TABI_OK) {
    s.h->value_release(s.h->ctx, &out);
    return s.st;
  }
  outs[0] = out;
  return TABI_OK;
}

KERNEL(d_flip) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  int64_t dims[REF_MAX_DIMS];
  int64_t n = args[1].u.list.len;
  uint32_t seen = 0;
  if (n > REF_MAX_DIMS)
    return dc_error(&s, TABI_ERR_INVALID_ARGUMENT, "too many dims (%lld)", (long long)n);
  for (int64_t i = 0; i < n; i++) {
    int32_t d;
    if (!wrap(&s, "dims", tabi_value_ints(&args[1])[i], x->dl.ndim, &d))
      return dc_abandon(&s, s.st);
    if (seen & (1u << d))
      return dc_error(&s, TABI_ERR_INVALID_ARGUMENT,
                      "dim %d appears multiple times in the list of dims", (int)d);
    seen |= 1u << d;
    dims[i] = d;
  }
  if (x->dl.ndim == 0) return dc_finish(&s, outs, 0, dc_copy(&s, x));
  tabi_value a[2] = {tabi_tensor_value(x), tabi_int_list(dims, n)};
  return dc_finish(&s, outs, 0, dc_call(&s, DC_P_REV, a, 2));
}

KERNEL(d_repeat) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  int32_t n = (int32_t)args[1].u.list.len;
  const int64_t *rep = tabi_value_ints(&args[1]);
  if (n < x->dl.ndim)
    return dc_error(&s, TABI_ERR_SHAPE,
                    "number of dimensions of repeat dims (%d) can not be smaller than number of "
                    "dimensions of tensor (%d)",
                    (int)n, (int)x->dl.ndim);
  if (2 * n > REF_MAX_DIMS)
    return dc_error(&s, TABI_ERR_INVALID_ARGUMENT, "too many dims (%d)", (int)n);
  /* view x as [.., 1, s_i, ..], broadcast to [.., r_i, s_i, ..], then merge pairs */
  int64_t big[2 * REF_MAX_DIMS], bd[REF_MAX_DIMS], out[REF_MAX_DIMS];
  for (int32_t i = 0; i < n; i++) {
    if (rep[i] < 0)
      return dc_error(&s, TABI_ERR_INVALID_ARGUMENT, "argument 'repeats' has a negative entry %lld",
                      (long long)rep[i]);
    int32_t j = i - (n - x->dl.ndim);
    int64_t sz = j >= 0 ? x->dl.shape[j] : 1;
    big[2 * i] = rep[i];
    big[2 * i + 1] = sz;
    if (__builtin_mul_overflow(rep[i], sz, &out[i]))
      return dc_error(&s, TABI_ERR_INVALID_ARGUMENT,
                      "argument 'repeats': %lld repeats of a dim of size %lld overflow int64",
                      (long long)rep[i], (long long)sz);
    if (j >= 0) bd[j] = 2 * i + 1;
  }
  /* an empty result needs no broadcast, whose pairs may overflow where the
     result does not (repeats [2^63 - 1, 0] of [1]) */
  int empty = 0;
  for (int32_t i = 0; i < n; i++) empty |= out[i] == 0;
  if (empty) {
    tabi_value zero = tabi_int(0);
    return dc_finish(&s, outs, 0, dc_full(&s, n, out, &zero, tabi_tensor_dtype(x), x->dl.device));
  }
  tabi_value a[3] = {tabi_tensor_value(x), tabi_int_list(big, 2 * n),
                     tabi_int_list(bd, x->dl.ndim)};
  tabi_tensor *b = dc_call(&s, DC_P_BROADCAST_IN_DIM, a, 3);
  return dc_finish(&s, outs, 0, dc_reshape(&s, dc_copy(&s, b), n, out));
}

KERNEL(d_constant_pad_nd) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  int64_t np = args[1].u.list.len;
  const int64_t *pad = tabi_value_ints(&args[1]);
  if (np % 2 != 0 || np / 2 > x->dl.ndim)
    return dc_error(&s, TABI_ERR_INVALID_ARGUMENT,
                    "argument 'pad' must have an even length of at most 2 * %d, got %lld",
                    (int)x->dl.ndim, (long long)np);
  int64_t shape[REF_MAX_DIMS], lo[REF_MAX_DIMS];
  int64_t hi[REF_MAX_DIMS];
  for (int32_t d = 0; d < x->dl.ndim; d++) {
    shape[d] = x->dl.shape[d];
    lo[d] = hi[d] = 0;
  }
  /* pad pairs start from the last dim */
  for (int64_t i = 0; i < np / 2; i++) {
    int32_t d = x->dl.ndim - 1 - (int32_t)i;
    lo[d] = pad[2 * i];
    hi[d] = pad[2 * i + 1];
    if (__builtin_add_overflow(x->dl.shape[d], lo[d], &shape[d]) ||
        __builtin_add_overflow(shape[d], hi[d], &shape[d]))
      return dc_error(&s, TABI_ERR_INVALID_ARGUMENT,
                      "argument 'pad': the padded size of dim %d overflows int64 (pads %lld, %lld)",
                      (int)d, (long long)lo[d], (long long)hi[d]);
    if (shape[d] < 0)
      return dc_error(&s, TABI_ERR_SHAPE, "the padded size of dim %d would be negative (%lld)",
                      (int)d, (long long)shape[d]);
  }
  tabi_tensor *out = dc_full(&s, x->dl.ndim, shape, &args[2], tabi_tensor_dtype(x), x->dl.device);
  /* the region both tensors share: crop x where pads are negative */
  int64_t cshape[REF_MAX_DIMS], xstr[REF_MAX_DIMS], ostr[REF_MAX_DIMS], xoff = dc_elem_offset(x),
                                                                        ooff = 0;
  int any_empty = 0;
  for (int32_t d = 0; d < x->dl.ndim && out; d++) {
    /* a crop past the whole dim leaves nothing (and keeps -pad from overflowing) */
    int64_t size = x->dl.shape[d];
    int64_t crop_lo = lo[d] < 0 ? (lo[d] < -size ? size : -lo[d]) : 0;
    int64_t crop_hi = hi[d] < 0 ? (hi[d] < -size ? size : -hi[d]) : 0;
    cshape[d] = size - crop_lo - crop_hi;
    if (cshape[d] <= 0) {
      cshape[d] = 0;
      any_empty = 1;
    }
    xstr[d] = x->dl.strides[d];
    ostr[d] = out->dl.strides[d];
    xoff += crop_lo * x->dl.strides[d];
    ooff += (lo[d] > 0 ? lo[d] : 0) * out->dl.strides[d];
  }
  if (out && !any_empty && tabi_tensor_numel(out) > 0) {
    tabi_tensor *src = dc_as_strided(&s, x, x->dl.ndim, cshape, xstr, xoff);
    tabi_tensor *dst = dc_as_strided(&s, out, x->dl.ndim, cshape, ostr, ooff);
    tabi_value a[2] = {tabi_tensor_value(dst), tabi_tensor_value(src)};
    if (src && dst) dc_call(&s, DC_P_COPY_TO, a, 2);
  }
  return dc_finish(&s, outs, 0, out);
}

KERNEL(d_cat) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  int64_t n = args[0].u.list.len;
  tabi_tensor *const *ts = tabi_value_tensors(&args[0]);
  if (n == 0)
    return dc_error(&s, TABI_ERR_INVALID_ARGUMENT, "expected a non-empty list of tensors");
  if (n > 64)
    return dc_error(&s, TABI_ERR_INVALID_ARGUMENT, "at most 64 tensors are supported, got %lld",
                    (long long)n);
  dc_operand o[64];
  for (int64_t i = 0; i < n; i++) {
    if (ts[i]->dl.ndim == 0)
      return dc_error(&s, TABI_ERR_SHAPE, "argument 'tensors': zero-dimensional tensor (at position %d) cannot be "
                      "concatenated", (int)i);
    o[i] = dc_t(ts[i]);
  }
  tabi_dtype dt = dc_result_type((int32_t)n, o);
  /* ATen skips legacy 1-D empty tensors of shape [0] */
  tabi_tensor *keep[64];
  int32_t k = 0;
  const tabi_tensor *ref = NULL;
  for (int64_t i = 0; i < n; i++) {
    if (ts[i]->dl.ndim == 1 && ts[i]->dl.shape[0] == 0) continue;
    if (!ref) ref = ts[i];
    keep[k++] = ts[i];
  }
  if (k == 0) return dc_finish(&s, outs, 0, dc_convert(&s, dc_copy(&s, ts[0]), dt));
  int32_t d;
  if (!wrap(&s, "dim", args[1].u.i, ref->dl.ndim, &d)) return dc_abandon(&s, s.st);
  for (int32_t i = 0; i < k; i++) {
    if (keep[i]->dl.ndim != ref->dl.ndim)
      return dc_error(&s, TABI_ERR_SHAPE,
                      "tensors must have the same number of dimensions: got %d and %d",
                      (int)ref->dl.ndim, (int)keep[i]->dl.ndim);
    for (int32_t j = 0; j < ref->dl.ndim; j++)
      if (j != d && keep[i]->dl.shape[j] != ref->dl.shape[j])
        return dc_error(&s, TABI_ERR_SHAPE,
                        "sizes of tensors must match except in dimension %d: expected size %lld "
                        "but got size %lld for tensor number %d in the list",
                        (int)d, (long long)ref->dl.shape[j], (long long)keep[i]->dl.shape[j],
                        (int)i);
    keep[i] = dc_convert(&s, keep[i], dt);
  }
  tabi_value a[2] = {tabi_tensor_list(keep, k), tabi_int(d)};
  if (k == 1) return dc_finish(&s, outs, 0, keep[0]);
  return dc_finish(&s, outs, 0, s.st == TABI_OK ? dc_call(&s, DC_P_CAT, a, 2) : NULL);
}

/* --- ATen ops defined through other ATen ops --------------------------------- */

KERNEL(d_addmm) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *self = args[0].u.t;
  if (!dc_check_dtype(&s, "mat1", tabi_tensor_dtype(args[1].u.t),
                      REF_DTS_INT | REF_DTS_FLOAT | REF_DTS_COMPLEX))
    return dc_abandon(&s, s.st);
  /* the product in the compute dtype (float32 for float16 and bfloat16): ATen
     rounds alpha * (a @ m) + beta * self once, not the product first */
  dc_operand o[2] = {dc_t(self), dc_t(args[1].u.t)};
  tabi_dtype result, compute;
  dc_promote(2, o, DC_PROMOTE_DEFAULT, &result, &compute);
  tabi_dtype wide = result == TABI_DTYPE_FLOAT16 || result == TABI_DTYPE_BFLOAT16 ? compute : result;
  tabi_value mm[2] = {tabi_tensor_value(dc_convert(&s, args[1].u.t, wide)),
                      tabi_tensor_value(dc_convert(&s, args[2].u.t, wide))};
  tabi_tensor *p = s.st == TABI_OK ? dc_call(&s, DC_A_MM, mm, 2) : NULL;
  if (!p) return dc_abandon(&s, s.st);
  const tabi_value *beta = &args[3], *alpha = &args[4];
  o[1] = dc_t(p);
  /* an empty product returns before ATen converts beta and alpha: any pass */
  if (tabi_tensor_numel(p) == 0) return dc_finish(&s, outs, 0, dc_convert(&s, p, result));
  /* (an empty inner dim's beta: c_addmm, decomp_check.c) */
  tabi_tensor *x[2];
  if (!dc_prepare(&s, 2, o, compute, x)) return dc_abandon(&s, s.st);
  /* an empty inner dim: ATen returns beta * self and never reads alpha (an
     inf or a complex alpha for a real result included); the product is 0 */
  int k0 = args[1].u.t->dl.ndim == 2 && args[1].u.t->dl.shape[1] == 0;
  tabi_tensor *r = k0 ? x[1]
                      : dc_binary(&s, DC_P_MUL, x[1],
                                  dc_broadcast_like(&s, dc_scalar(&s, alpha, compute, p->dl.device), x[1]));
  /* beta == 0 ignores self entirely, NaN and inf included */
  if (ref_scalar_f(beta) != 0.0 || beta->tag == TABI_TAG_COMPLEX)
    r = dc_binary(
        &s, DC_P_ADD, r,
        dc_binary(&s, DC_P_MUL, x[0],
                  dc_broadcast_like(&s, dc_scalar(&s, beta, compute, p->dl.device), x[0])));
  return dc_finish(&s, outs, 0, dc_convert(&s, r, result));
}

KERNEL(d_embedding) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *w = args[0].u.t, *idx = args[1].u.t;
  if (w->dl.ndim != 2)
    return dc_error(&s, TABI_ERR_SHAPE, "argument 'weight' must be 2-D, got %d dims",
                    (int)w->dl.ndim);
  int64_t flat = tabi_tensor_numel(idx), shape[REF_MAX_DIMS];
  tabi_value sel[3] = {tabi_tensor_value(w), tabi_int(0),
                       tabi_tensor_value(dc_reshape(&s, idx, 1, &flat))};
  tabi_tensor *rows = s.st == TABI_OK ? dc_call(&s, DC_A_INDEX_SELECT, sel, 3) : NULL;
  for (int32_t i = 0; i < idx->dl.ndim; i++) shape[i] = idx->dl.shape[i];
  shape[idx->dl.ndim] = w->dl.shape[1];
  return dc_finish(&s, outs, 0, dc_reshape(&s, rows, idx->dl.ndim + 1, shape));
}

const dc_kernel dc_shape_kernels[] = {
    {"aten::alias", d_alias},
    {"aten::as_strided", d_as_strided},
    {"aten::expand", d_expand},
    {"aten::permute", d_permute},
    {"aten::squeeze.dim", d_squeeze_dim},
    {"aten::squeeze.dims", d_squeeze_dims},
    {"aten::unsqueeze", d_unsqueeze},
    {"aten::select.int", d_select},
    {"aten::slice.Tensor", d_slice},
    {"aten::diagonal", d_diagonal},
    {"aten::view", d_view},
    {"aten::split_with_sizes", d_split_with_sizes},
    {"aten::flip", d_flip},
    {"aten::repeat", d_repeat},
    {"aten::constant_pad_nd", d_constant_pad_nd},
    {"aten::cat", d_cat},
    {"aten::addmm", d_addmm},
    {"aten::embedding", d_embedding},
    {NULL, NULL}};
