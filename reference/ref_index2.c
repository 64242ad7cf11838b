/* reference/ref_index2.c: advanced indexing (index.Tensor, index_put),
 * masked_scatter and nonzero.
 *
 * Advanced indexing, as ATen does it (checked against torch 1.13):
 *  - `indices` is a Tensor?[]: NULL entries are full slices `:`; int64 and int32
 *    tensors index one dim each; bool and uint8 tensors are masks that cover as
 *    many dims as they have and become their nonzero() coordinates (a 0-d mask
 *    covers none). More entries than dims is TABI_ERR_INDEX.
 *  - The index tensors broadcast together (TABI_ERR_SHAPE otherwise). When the
 *    indexed dims are adjacent, the broadcast dims replace them in place;
 *    when a slice separates them, the broadcast dims come first.
 *  - Negative indices wrap once; anything outside -size..size-1 is
 *    TABI_ERR_INDEX "index 5 is out of bounds for dimension 0 with size 3".
 *  - At least one index tensor must remain (ATen asserts internally otherwise;
 *    we refuse with TABI_ERR_INVALID_ARGUMENT).
 * index_put is functional: a new tensor; values (self's dtype) broadcast to the
 * indexing result; accumulate=True adds duplicates (in self's type, as ATen),
 * otherwise the last write in row-major order wins.
 * masked_scatter: result shape = broadcast(self, mask); source is read in
 * row-major order; too few source elements is TABI_ERR_SHAPE.
 * nonzero: int64 [n, ndim] of the coordinates of nonzero elements, in row-major
 * order (NaN is nonzero; complex counts either part).
 */
#include "ref_reduce_util.h"

#include <string.h>

static int elem_nonzero(const tabi_tensor *t, int64_t off) {
  ref_cplx v = ref_load_c(t, off);
  return creal(v) != 0 || cimag(v) != 0;
}

/* --- nonzero --------------------------------------------------------------------- */

/* The coordinates of t's nonzero elements: int64 [n, ndim]. */
static tabi_status nonzero_of(const tabi_host_api *h, const tabi_tensor *t, tabi_tensor **out) {
  int32_t nd = t->dl.ndim;
  int64_t n = 0;
  ref_iter it;
  ref_iter_init(&it, nd, t->dl.shape);
  ref_iter_add(&it, t);
  for (; !ref_iter_done(&it); ref_iter_next(&it)) n += elem_nonzero(t, it.off[0]);
  int64_t shape[2] = {n, nd};
  tabi_status st = ref_empty(h, t, TABI_DTYPE_INT64, 2, shape, out);
  if (st != TABI_OK) return st;
  int64_t *p = tabi_tensor_data(*out), row = 0;
  ref_iter_init(&it, nd, t->dl.shape);
  ref_iter_add(&it, t);
  for (; !ref_iter_done(&it); ref_iter_next(&it))
    if (elem_nonzero(t, it.off[0])) {
      for (int32_t d = 0; d < nd; d++) p[row * nd + d] = it.index[d];
      row++;
    }
  return TABI_OK;
}

static tabi_status k_nonzero(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *self = args[0].u.t;
  tabi_status st = ref_check_dtype(h, call, "self", tabi_tensor_dtype(self), REF_DTS_ALL);
  if (st != TABI_OK) return st;
  if (self->dl.ndim > REF_MAX_DIMS)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: too many dims", ref_op_name(h, call));
  tabi_tensor *out;
  st = nonzero_of(h, self, &out);
  if (st != TABI_OK) return st;
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

/* --- the advanced-indexing plan ---------------------------------------------------- */

typedef struct adv_plan {
  int32_t ndim;                            /* of self */
  const tabi_tensor *idx[REF_MAX_DIMS];    /* per self dim: int32/int64 index, or NULL */
  tabi_tensor *owned[REF_MAX_DIMS];        /* mask coordinates made here; released after */
  int32_t nowned;
  int32_t bnd;                             /* broadcast shape of the index tensors */
  int64_t bshape[REF_MAX_DIMS];
  int32_t first;                           /* where the broadcast dims sit in the result */
  int32_t rpos[REF_MAX_DIMS];              /* result dim of each non-indexed self dim */
  int32_t rnd;                             /* the indexing result's shape */
  int64_t rshape[REF_MAX_DIMS];
} adv_plan;

static void adv_release(const tabi_host_api *h, adv_plan *p) {
  for (int32_t k = 0; k < p->nowned; k++) h->tensor_release(h->ctx, p->owned[k]);
  p->nowned = 0;
}

/* Splits a mask covering self dims [cur, cur + mask.ndim) into one int64 index
 * tensor per dim. */
static tabi_status adv_mask(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *self,
                            const tabi_tensor *mask, int64_t pos, int32_t cur, adv_plan *p) {
  char a[128], b[128];
  int32_t mnd = mask->dl.ndim;
  if (cur + mnd > self->dl.ndim)
    return REF_ERR(h, TABI_ERR_INDEX, "%s: argument 'indices': too many indices for tensor of "
                   "dimension %d (a mask at position %lld covers %d more)",
                   ref_op_name(h, call), (int)self->dl.ndim, (long long)pos, (int)mnd);
  for (int32_t j = 0; j < mnd; j++)
    if (mask->dl.shape[j] != self->dl.shape[cur + j])
      return REF_ERR(h, TABI_ERR_INDEX,
                     "%s: argument 'indices': The shape of the mask %s at index %d does not match "
                     "the shape of the indexed tensor %s at index %d",
                     ref_op_name(h, call), ref_shape_str(a, sizeof a, mnd, mask->dl.shape), (int)j,
                     ref_shape_str(b, sizeof b, self->dl.ndim, self->dl.shape), (int)(cur + j));
  if (mnd == 0) return TABI_OK;
  tabi_tensor *nz;
  tabi_status st = nonzero_of(h, mask, &nz);
  if (st != TABI_OK) return st;
  int64_t n = nz->dl.shape[0];
  for (int32_t j = 0; j < mnd; j++) {
    tabi_tensor *col;
    st = ref_empty(h, mask, TABI_DTYPE_INT64, 1, &n, &col);
    if (st != TABI_OK) {
      h->tensor_release(h->ctx, nz);
      return st;
    }
    const int64_t *src = tabi_tensor_data(nz);
    int64_t *dst = tabi_tensor_data(col);
    for (int64_t r = 0; r < n; r++) dst[r] = src[r * mnd + j];
    p->owned[p->nowned++] = col;
    p->idx[cur + j] = col;
  }
  h->tensor_release(h->ctx, nz);
  return TABI_OK;
}

static tabi_status adv_build(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *self,
                             const tabi_value *indices, adv_plan *p) {
  memset(p, 0, sizeof *p);
  int32_t nd = self->dl.ndim;
  int64_t n = ref_list_len(indices);
  tabi_tensor *const *list = n ? tabi_value_tensors(indices) : NULL;
  if (nd > REF_MAX_DIMS)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: too many dims", ref_op_name(h, call));
  if (n > nd)
    return REF_ERR(h, TABI_ERR_INDEX,
                   "%s: argument 'indices': too many indices for tensor of dimension %d (got %lld)",
                   ref_op_name(h, call), (int)nd, (long long)n);
  p->ndim = nd;
  int32_t cur = 0;
  tabi_status st = TABI_OK;
  for (int64_t k = 0; k < n && st == TABI_OK; k++) {
    const tabi_tensor *t = list[k];
    if (!t) {
      cur++;
      continue;
    }
    tabi_dtype dt = tabi_tensor_dtype(t);
    if (dt == TABI_DTYPE_BOOL || dt == TABI_DTYPE_UINT8) {
      st = adv_mask(h, call, self, t, k, cur, p);
      cur += t->dl.ndim;
    } else if (dt == TABI_DTYPE_INT64 || dt == TABI_DTYPE_INT32) {
      if (cur >= nd) /* only reachable after a mask took the remaining dims */
        st = REF_ERR(h, TABI_ERR_INDEX,
                     "%s: argument 'indices': too many indices for tensor of dimension %d",
                     ref_op_name(h, call), (int)nd);
      else p->idx[cur++] = t;
    } else {
      st = REF_ERR(h, TABI_ERR_TYPE,
                   "%s: argument 'indices': tensors used as indices must be long, int, byte or "
                   "bool tensors (got %s at position %lld)",
                   ref_op_name(h, call), tabi_dtype_name(dt), (long long)k);
    }
  }
  const tabi_tensor *defined[REF_MAX_DIMS];
  int32_t ndef = 0, lo = -1, hi = -1;
  for (int32_t d = 0; d < nd && st == TABI_OK; d++)
    if (p->idx[d]) {
      defined[ndef++] = p->idx[d];
      if (lo < 0) lo = d;
      hi = d;
    }
  if (st == TABI_OK && ndef == 0)
    st = REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                 "%s: argument 'indices': at least one index must be a tensor that indexes a dim "
                 "(got none)", ref_op_name(h, call));
  if (st == TABI_OK) st = ref_broadcast_shape(h, call, ndef, defined, &p->bnd, p->bshape);
  /* bounds, on each index tensor's own elements */
  for (int32_t d = 0; d < nd && st == TABI_OK; d++) {
    const tabi_tensor *t = p->idx[d];
    if (!t) continue;
    int64_t size = self->dl.shape[d];
    ref_iter it;
    ref_iter_init(&it, t->dl.ndim, t->dl.shape);
    ref_iter_add(&it, t);
    for (; !ref_iter_done(&it); ref_iter_next(&it)) {
      int64_t v = ref_load_i(t, it.off[0]);
      if (v < -size || v >= size) {
        st = REF_ERR(h, TABI_ERR_INDEX,
                     "%s: argument 'indices': index %lld is out of bounds for dimension %d with "
                     "size %lld",
                     ref_op_name(h, call), (long long)v, (int)d, (long long)size);
        break;
      }
    }
  }
  if (st != TABI_OK) {
    adv_release(h, p);
    return st;
  }
  int contiguous = 1;
  for (int32_t d = lo; d <= hi; d++)
    if (!p->idx[d]) contiguous = 0;
  p->first = contiguous ? lo : 0;
  int32_t r = 0;
  for (int32_t d = 0; d < p->first; d++) {
    p->rpos[d] = r;
    p->rshape[r++] = self->dl.shape[d];
  }
  for (int32_t j = 0; j < p->bnd; j++) p->rshape[r++] = p->bshape[j];
  for (int32_t d = p->first; d < nd; d++) {
    if (p->idx[d]) continue;
    p->rpos[d] = r;
    p->rshape[r++] = self->dl.shape[d];
  }
  p->rnd = r;
  if (r > REF_MAX_DIMS) {
    adv_release(h, p);
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: the result has too many dims", ref_op_name(h, call));
  }
  return TABI_OK;
}

/* Offset into `t` (strides `strides`) of the element at result coordinates rc. */
static int64_t adv_offset(const adv_plan *p, const int64_t *shape, const int64_t *strides,
                          const int64_t *rc) {
  const int64_t *bc = rc + p->first;
  int64_t off = 0;
  for (int32_t d = 0; d < p->ndim; d++) {
    const tabi_tensor *t = p->idx[d];
    int64_t c;
    if (t) {
      int64_t ioff = 0;
      for (int32_t j = 0; j < t->dl.ndim; j++)
        if (t->dl.shape[j] != 1) ioff += bc[p->bnd - t->dl.ndim + j] * t->dl.strides[j];
      c = ref_load_i(t, ioff);
      if (c < 0) c += shape[d];
    } else {
      c = rc[p->rpos[d]];
    }
    off += c * strides[d];
  }
  return off;
}

static void copy_elem(tabi_tensor *dst, int64_t doff, const tabi_tensor *src, int64_t soff) {
  int64_t sz = tabi_dtype_size(tabi_tensor_dtype(dst));
  memcpy((char *)tabi_tensor_data(dst) + doff * sz, (const char *)tabi_tensor_data(src) + soff * sz,
         (size_t)sz);
}

static tabi_status k_index(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *self = args[0].u.t;
  tabi_status st = ref_check_dtype(h, call, "self", tabi_tensor_dtype(self), REF_DTS_ALL);
  if (st != TABI_OK) return st;
  adv_plan p;
  st = adv_build(h, call, self, &args[1], &p);
  if (st != TABI_OK) return st;
  tabi_tensor *out;
  st = ref_empty(h, self, tabi_tensor_dtype(self), p.rnd, p.rshape, &out);
  if (st == TABI_OK) {
    ref_iter it;
    ref_iter_init(&it, p.rnd, p.rshape);
    int32_t o = ref_iter_add(&it, out);
    for (; !ref_iter_done(&it); ref_iter_next(&it))
      copy_elem(out, it.off[o], self, adv_offset(&p, self->dl.shape, self->dl.strides, it.index));
    ref_set_out(outs, 0, out);
  }
  adv_release(h, &p);
  return st;
}

static tabi_status k_index_put(void *ctx, const tabi_call *call, tabi_value *args,
                               tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *self = args[0].u.t, *values = args[2].u.t;
  int accumulate = (int)args[3].u.i;
  tabi_dtype dt = tabi_tensor_dtype(self);
  tabi_status st = ref_check_dtype(h, call, "self", dt, REF_DTS_ALL);
  if (st != TABI_OK) return st;
  if (tabi_tensor_dtype(values) != dt)
    return REF_ERR(h, TABI_ERR_TYPE,
                   "%s: Index put requires the source and destination dtypes match, got %s for "
                   "the destination and %s for the source (argument 'values')",
                   ref_op_name(h, call), tabi_dtype_name(dt),
                   tabi_dtype_name(tabi_tensor_dtype(values)));
  adv_plan p;
  st = adv_build(h, call, self, &args[1], &p);
  if (st != TABI_OK) return st;
  int fits = values->dl.ndim <= p.rnd;
  for (int32_t j = 0; fits && j < values->dl.ndim; j++) {
    int64_t vs = values->dl.shape[values->dl.ndim - 1 - j], rs = p.rshape[p.rnd - 1 - j];
    if (vs != rs && vs != 1) fits = 0;
  }
  if (!fits) {
    char a[128], b[128];
    adv_release(h, &p);
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: argument 'values': shape mismatch: value tensor of shape %s cannot be "
                   "broadcast to indexing result of shape %s",
                   ref_op_name(h, call), ref_shape_str(a, sizeof a, values->dl.ndim, values->dl.shape),
                   ref_shape_str(b, sizeof b, p.rnd, p.rshape));
  }
  tabi_tensor *out;
  st = ref_clone(h, self, &out);
  if (st == TABI_OK) {
    ref_iter it;
    ref_iter_init(&it, p.rnd, p.rshape);
    int32_t v = ref_iter_add(&it, values);
    for (; !ref_iter_done(&it); ref_iter_next(&it)) {
      int64_t t = adv_offset(&p, out->dl.shape, out->dl.strides, it.index);
      if (!accumulate) copy_elem(out, t, values, it.off[v]);
      else if (tabi_dtype_is_complex(dt))
        ref_store_c(out, t, ref_load_c(out, t) + ref_load_c(values, it.off[v]));
      else if (tabi_dtype_is_floating(dt))
        ref_store_f(out, t, ref_load_f(out, t) + ref_load_f(values, it.off[v]));
      else /* the store wraps at the dtype's width; bool adds as logical or */
        ref_store_i(out, t, ref_wrap_add(ref_load_i(out, t), ref_load_i(values, it.off[v])));
    }
    ref_set_out(outs, 0, out);
  }
  adv_release(h, &p);
  return st;
}

/* --- masked_scatter ------------------------------------------------------------------ */

static tabi_status k_masked_scatter(void *ctx, const tabi_call *call, tabi_value *args,
                                    tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *self = args[0].u.t, *mask = args[1].u.t, *source = args[2].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self);
  tabi_status st = ref_check_dtype(h, call, "self", dt, REF_DTS_ALL);
  if (st != TABI_OK) return st;
  st = ref_check_dtype(h, call, "mask", tabi_tensor_dtype(mask),
                       REF_DTS_BOOL | REF_DT(TABI_DTYPE_UINT8));
  if (st != TABI_OK) return st;
  if (tabi_tensor_dtype(source) != dt)
    return REF_ERR(h, TABI_ERR_TYPE,
                   "%s: expected self and source to have same dtypes but got %s and %s "
                   "(argument 'source')",
                   ref_op_name(h, call), tabi_dtype_name(dt),
                   tabi_dtype_name(tabi_tensor_dtype(source)));
  const tabi_tensor *both[2] = {self, mask};
  int32_t nd;
  int64_t shape[REF_MAX_DIMS];
  st = ref_broadcast_shape(h, call, 2, both, &nd, shape);
  if (st != TABI_OK) return st;
  tabi_tensor *out;
  st = ref_empty(h, self, dt, nd, shape, &out);
  if (st != TABI_OK) return st;
  ref_copy_convert(out, self);
  int64_t k = 0, avail = tabi_tensor_numel(source);
  ref_iter it;
  ref_iter_init(&it, nd, shape);
  int32_t m = ref_iter_add(&it, mask), o = ref_iter_add(&it, out);
  for (; !ref_iter_done(&it); ref_iter_next(&it)) {
    if (!ref_load_i(mask, it.off[m])) continue;
    if (k >= avail) {
      h->tensor_release(h->ctx, out);
      return REF_ERR(h, TABI_ERR_SHAPE,
                     "%s: Number of elements of source < number of ones in mask (argument "
                     "'source' has %lld elements)",
                     ref_op_name(h, call), (long long)avail);
    }
    copy_elem(out, it.off[o], source, ref_offset_of(source, k++));
  }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

const ref_kernel ref_index2_kernels[] = {
    {"aten::index.Tensor", k_index},
    {"aten::index_put", k_index_put},
    {"aten::masked_scatter", k_masked_scatter},
    {"aten::nonzero", k_nonzero},
    {NULL, NULL},
};
