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
#include "ref_index_check.h"
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
  tabi_status st = ref_idx_nonzero_check(h, call, args);
  if (st != TABI_OK) return st;
  tabi_tensor *out;
  st = nonzero_of(h, self, &out);
  if (st != TABI_OK) return st;
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

/* --- the advanced-indexing plan ---------------------------------------------------- */

/* The plan is ref_index_check.h's ref_adv: the index values of each indexed
 * dim in row-major order of their own shape, broadcast here. */

/* Builds the plan from the indices value (a Tensor?[]). */
static tabi_status adv_build(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *self,
                             const tabi_value *indices, ref_adv *p) {
  int64_t n = ref_list_len(indices);
  tabi_tensor *const *list = n ? tabi_value_tensors(indices) : NULL;
  return ref_adv_build(h, call, self, n, (const tabi_tensor *const *)list, p);
}

/* Offset into `t` (strides `strides`) of the element at result coordinates rc. */
static int64_t adv_offset(const ref_adv *p, const int64_t *shape, const int64_t *strides,
                          const int64_t *rc) {
  const int64_t *bc = rc + p->first;
  int64_t off = 0;
  for (int32_t d = 0; d < p->ndim; d++) {
    int64_t c;
    if (p->has[d]) { /* element at the broadcast coordinates (size-1 dims repeat) */
      int64_t ioff = 0, step = 1;
      for (int32_t j = p->ind[d] - 1; j >= 0; j--) {
        if (p->ishape[d][j] != 1) ioff += bc[p->bnd - p->ind[d] + j] * step;
        step *= p->ishape[d][j];
      }
      c = p->vals[d][ioff];
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
  tabi_status st = ref_idx_index_check(h, call, args);
  if (st != TABI_OK) return st;
  ref_adv p;
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
  ref_adv_release(&p);
  return st;
}

static tabi_status k_index_put(void *ctx, const tabi_call *call, tabi_value *args,
                               tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *self = args[0].u.t, *values = args[2].u.t;
  int accumulate = (int)args[3].u.i;
  tabi_dtype dt = tabi_tensor_dtype(self);
  tabi_status st = ref_idx_iput_check(h, call, args);
  if (st != TABI_OK) return st;
  ref_adv p;
  st = adv_build(h, call, self, &args[1], &p);
  if (st != TABI_OK) return st;
  if ((st = ref_idx_iput_values(h, call, values, &p)) != TABI_OK) {
    ref_adv_release(&p);
    return st;
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
  ref_adv_release(&p);
  return st;
}

/* --- masked_scatter ------------------------------------------------------------------ */

static tabi_status k_masked_scatter(void *ctx, const tabi_call *call, tabi_value *args,
                                    tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *self = args[0].u.t, *mask = args[1].u.t, *source = args[2].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self);
  int32_t nd;
  int64_t shape[REF_MAX_DIMS];
  tabi_status st = ref_idx_ms_check(h, call, args, &nd, shape);
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
      return ref_idx_ms_short(h, call, avail);
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
