/* reference/ref_reduce2_check.c: see ref_reduce2_check.h. The checks of
 * ref_reduce2.c's kernels, in their order, with their messages. */
#include "ref.h"
#include "ref_reduce_util.h"
#include "ref_reduce2_check.h"

#define OPN ref_op_name(h, call)

tabi_status ref_argred_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int with_vals) {
  const tabi_tensor *self = args[0].u.t;
  /* argmax/argmin refuse bool (ATen has no bool kernel); max.dim/min.dim take it */
  tabi_status st = ref_check_dtype(h, call, "self", tabi_tensor_dtype(self),
                                   (with_vals ? REF_DTS_BOOL : 0) | REF_DTS_INT | REF_DTS_FLOAT);
  if (st != TABI_OK) return st;
  ref_red r;
  st = ref_red_init(h, call, "dim", self, &args[1], REF_RED_EMPTY_IS_ALL, (int)args[2].u.i, &r);
  if (st != TABI_OK) return st;
  if (with_vals) return ref_red_check_nonempty(h, call, self, &r);
  if (tabi_tensor_numel(self) == 0) {
    if (args[1].tag == TABI_TAG_NONE)
      return REF_ERR(h, TABI_ERR_INDEX, "%s: Expected reduction dim to be specified for input.numel() == 0.", OPN);
    return ref_red_check_nonempty(h, call, self, &r);
  }
  return TABI_OK;
}

tabi_status ref_cumsum_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int32_t *dim,
                             tabi_dtype *as, tabi_dtype *odt) {
  const tabi_tensor *self = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self), want = ref_red_opt_dtype(&args[2]);
  tabi_status st = ref_check_dtype(h, call, "self", dt, REF_DTS_ALL);
  if (st != TABI_OK) return st;
  *as = want != TABI_DTYPE_INVALID ? want : dt;
  *odt = want != TABI_DTYPE_INVALID ? want : tabi_dtype_is_integral(dt, 1) ? TABI_DTYPE_INT64 : dt;
  st = ref_check_dtype(h, call, "dtype", *odt, REF_DTS_ALL & ~REF_DTS_BOOL);
  if (st != TABI_OK) return st;
  ref_red r;
  st = ref_red_init(h, call, "dim", self, &args[1], REF_RED_EMPTY_IS_ALL, 1, &r);
  if (st != TABI_OK) return st;
  int32_t d;
  st = ref_wrap_dim(h, call, "dim", args[1].u.i, self->dl.ndim, &d); /* passes: ref_red_init wrapped it */
  if (dim) *dim = d;
  return st;
}

/* self's dtype (of `dts`), its dims, the dim argument args[di]. */
static tabi_status sort_dim(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, uint32_t dts,
                            int di, int32_t *dim) {
  const tabi_tensor *self = args[0].u.t;
  tabi_status st = ref_check_dtype(h, call, "self", tabi_tensor_dtype(self), dts);
  if (st != TABI_OK) return st;
  if (self->dl.ndim > REF_MAX_DIMS) return REF_ERR(h, TABI_ERR_SHAPE, "%s: too many dims", OPN);
  return ref_wrap_dim(h, call, "dim", args[di].u.i, self->dl.ndim, dim);
}

tabi_status ref_sort_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int32_t *dim,
                           int64_t *n) {
  const tabi_tensor *self = args[0].u.t;
  tabi_status st = sort_dim(h, call, args, REF_DTS_BOOL | REF_DTS_INT | REF_DTS_FLOAT, 1, dim);
  if (st == TABI_OK) *n = self->dl.ndim ? self->dl.shape[*dim] : 1;
  return st;
}

tabi_status ref_topk_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int32_t *dim,
                           int64_t *k) {
  const tabi_tensor *self = args[0].u.t;
  tabi_status st = sort_dim(h, call, args, REF_DTS_INT | REF_DTS_FLOAT, 2, dim);
  if (st != TABI_OK) return st;
  int64_t n = self->dl.ndim ? self->dl.shape[*dim] : 1;
  *k = args[1].u.i;
  if (*k < 0 || *k > n)
    return REF_ERR(h, TABI_ERR_INDEX,
                   "%s: argument 'k': selected index k out of range (k = %lld, size of dim %d is %lld)", OPN,
                   (long long)*k, (int)*dim, (long long)n);
  return TABI_OK;
}
