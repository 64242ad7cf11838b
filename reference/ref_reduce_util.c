/* reference/ref_reduce_util.c: the reduction driver. See ref_reduce_util.h. */
#include "ref_reduce_util.h"

#include <string.h>

tabi_status ref_red_init(const tabi_host_api *h, const tabi_call *call, const char *arg,
                         const tabi_tensor *self, const tabi_value *dims, int empty_is_all,
                         int keepdim, ref_red *out) {
  int32_t nd = self->dl.ndim;
  memset(out, 0, sizeof *out);
  if (nd > REF_MAX_DIMS)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'self' has %d dims; the reference supports %d",
                   ref_op_name(h, call), (int)nd, REF_MAX_DIMS);
  out->ndim = nd;
  int64_t one = 0;
  const int64_t *list = NULL;
  int64_t n = 0;
  if (dims->tag == TABI_TAG_INT) {
    one = dims->u.i;
    list = &one;
    n = 1;
  } else if (dims->tag == TABI_TAG_INT_LIST) {
    list = tabi_value_ints(dims);
    n = dims->u.list.len;
  }
  int all = n == 0 && (dims->tag == TABI_TAG_NONE || empty_is_all);
  out->dims_empty = n == 0;
  /* A 0-d tensor has no dims to reduce, but accepts 0 and -1 (once each). */
  int seen0 = 0;
  for (int64_t k = 0; k < n; k++) {
    int32_t d;
    tabi_status st = ref_wrap_dim(h, call, arg, list[k], nd, &d);
    if (st != TABI_OK) return st;
    int dup = nd == 0 ? seen0 : out->reduced[d];
    if (dup)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                     "%s: argument '%s': dim %d appears multiple times in the list of dims",
                     ref_op_name(h, call), arg, (int)d);
    if (nd == 0) seen0 = 1;
    else out->reduced[d] = 1;
  }
  if (all)
    for (int32_t d = 0; d < nd; d++) out->reduced[d] = 1;
  out->group = 1;
  for (int32_t d = 0; d < nd; d++) {
    int64_t s = self->dl.shape[d];
    out->outer_shape[d] = out->reduced[d] ? 1 : s;
    out->inner_shape[d] = out->reduced[d] ? s : 1;
    if (out->reduced[d]) out->group *= s;
    if (!out->reduced[d]) out->out_shape[out->out_ndim++] = s;
    else if (keepdim) out->out_shape[out->out_ndim++] = 1;
  }
  return TABI_OK;
}

void ref_red_outer(const ref_red *r, const tabi_tensor *self, ref_iter *it) {
  ref_iter_init(it, r->ndim, r->outer_shape);
  ref_iter_add_strided(it, r->ndim, r->outer_shape, self->dl.strides);
}

void ref_red_inner(const ref_red *r, const tabi_tensor *self, ref_iter *it) {
  ref_iter_init(it, r->ndim, r->inner_shape);
  ref_iter_add_strided(it, r->ndim, r->inner_shape, self->dl.strides);
}

tabi_status ref_red_check_nonempty(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_tensor *self, const ref_red *r) {
  if (tabi_tensor_numel(self) != 0) return TABI_OK;
  if (r->dims_empty)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: Expected reduction dim to be specified for input.numel() == 0. "
                   "Specify the reduction dim with the 'dim' argument.",
                   ref_op_name(h, call));
  for (int32_t d = 0; d < r->ndim; d++)
    if (r->reduced[d] && self->dl.shape[d] == 0)
      return REF_ERR(h, TABI_ERR_INDEX,
                     "%s: argument 'dim': Expected reduction dim %d to have non-zero size.",
                     ref_op_name(h, call), (int)d);
  return TABI_OK;
}

/* Converts one element of t into a buffer of dtype `as`, with the store rules. */
static const void *cast_elem(const tabi_tensor *t, int64_t off, tabi_dtype as, double buf[2]) {
  tabi_dtype src = tabi_tensor_dtype(t);
  if (tabi_dtype_is_complex(src)) ref_store_c_ptr(buf, as, ref_load_c(t, off));
  else if (tabi_dtype_is_integral(src, 1)) ref_store_i_ptr(buf, as, ref_load_i(t, off));
  else ref_store_f_ptr(buf, as, ref_load_f(t, off));
  return buf;
}

int64_t ref_red_load_i(const tabi_tensor *t, int64_t off, tabi_dtype as) {
  if (as == tabi_tensor_dtype(t)) return ref_load_i(t, off);
  double buf[2];
  return ref_load_i_ptr(cast_elem(t, off, as, buf), as);
}

double ref_red_load_f(const tabi_tensor *t, int64_t off, tabi_dtype as) {
  if (as == tabi_tensor_dtype(t)) return ref_load_f(t, off);
  double buf[2];
  return ref_load_f_ptr(cast_elem(t, off, as, buf), as);
}

ref_cplx ref_red_load_c(const tabi_tensor *t, int64_t off, tabi_dtype as) {
  if (as == tabi_tensor_dtype(t)) return ref_load_c(t, off);
  double buf[2];
  return ref_load_c_ptr(cast_elem(t, off, as, buf), as);
}

int64_t ref_red_wrap_i(int64_t v, tabi_dtype dt) {
  double buf[2];
  ref_store_i_ptr(buf, dt, v);
  return ref_load_i_ptr(buf, dt);
}
