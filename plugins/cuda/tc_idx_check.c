/* plugins/cuda/tc_idx_check.c: see tc_idx_check.h. The checks and messages
 * are reference/ref_index.c's (k_scatter_reduce, scatter_run,
 * sg_check_shapes, sg_check_bounds), in its order: keep them in step. */
#include <string.h>

#include "ref.h"
#include "ref_shape_util.h"
#include "tc_idx_check.h"

#define OPN ref_op_name(h, call)

enum { SR_SUM, SR_PROD, SR_MEAN, SR_AMAX, SR_AMIN }; /* tc_idx.cuh's TCI_* */

static int32_t ne_dim(const tabi_tensor *t) { return t->dl.ndim > 0 ? t->dl.ndim : 1; }
static int64_t ne_size(const tabi_tensor *t, int32_t d) { return t->dl.ndim > 0 ? t->dl.shape[d] : 1; }

static tabi_status sr_shapes(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *self, int32_t dim,
                             const tabi_tensor *index, const tabi_tensor *src) {
  char a[128], b[128], c[128];
  int32_t nd = ne_dim(self);
  if (nd > REF_MAX_DIMS) return REF_ERR(h, TABI_ERR_SHAPE, "%s: too many dims", OPN);
  if (ne_dim(index) != nd)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: Index tensor must have the same number of dimensions as %s tensor "
                   "(index has %d, self has %d)",
                   OPN, "self", (int)index->dl.ndim, (int)self->dl.ndim);
  if (ne_dim(src) != nd)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: Index tensor must have the same number of dimensions as src tensor "
                   "(index has %d, src has %d)",
                   OPN, (int)index->dl.ndim, (int)src->dl.ndim);
  int32_t bad = -1;
  for (int32_t d = 0; d < nd && bad < 0; d++) {
    if (d != dim && ne_size(index, d) > ne_size(self, d)) bad = d;
    if (ne_size(index, d) > ne_size(src, d)) bad = d;
  }
  if (bad < 0) return TABI_OK;
  ref_shape_str(a, sizeof a, index->dl.ndim, index->dl.shape);
  ref_shape_str(b, sizeof b, self->dl.ndim, self->dl.shape);
  return REF_ERR(h, TABI_ERR_SHAPE,
                 "%s: Expected index %s to be smaller than self %s apart from dimension %d "
                 "and to be smaller size than src %s",
                 OPN, a, b, (int)dim, ref_shape_str(c, sizeof c, src->dl.ndim, src->dl.shape));
}

tabi_status tc_sr_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int32_t *dim,
                        int *kind) {
  static const struct { const char *name; int kind; } reds[] = {
      {"sum", SR_SUM}, {"prod", SR_PROD}, {"mean", SR_MEAN}, {"amax", SR_AMAX}, {"amin", SR_AMIN}};
  const char *s = tabi_value_str(&args[4]);
  int64_t len = args[4].u.list.len;
  *kind = -1;
  for (size_t k = 0; k < sizeof reds / sizeof reds[0]; k++)
    if ((int64_t)strlen(reds[k].name) == len && memcmp(reds[k].name, s, (size_t)len) == 0) *kind = reds[k].kind;
  if (*kind < 0)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'reduce' must be either sum, prod, mean, amax or amin (got '%.*s')", OPN,
                   (int)(len > 64 ? 64 : len), s);
  const tabi_tensor *self = args[0].u.t, *index = args[2].u.t, *src = args[3].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self);
  tabi_status st = ref_check_dtype(h, call, "self", dt, REF_DTS_ALL);
  if (st != TABI_OK) return st;
  if (self->dl.ndim > REF_MAX_DIMS)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'self' has %d dims; the reference supports %d", OPN,
                   (int)self->dl.ndim, REF_MAX_DIMS);
  st = ref_wrap_dim(h, call, "dim", args[1].u.i, self->dl.ndim, dim);
  if (st != TABI_OK) return st;
  int64_t nidx = tabi_tensor_numel(index);
  if (nidx != 0 && tabi_tensor_dtype(index) != TABI_DTYPE_INT64)
    return REF_ERR(h, TABI_ERR_TYPE, "%s: Expected dtype int64 for index, got %s", OPN,
                   tabi_dtype_name(tabi_tensor_dtype(index)));
  if (tabi_tensor_dtype(src) != dt)
    return REF_ERR(h, TABI_ERR_TYPE, "%s: Expected self.dtype to be equal to src.dtype (self is %s, src is %s)",
                   OPN, tabi_dtype_name(dt), tabi_dtype_name(tabi_tensor_dtype(src)));
  if (*kind == SR_MEAN && dt == TABI_DTYPE_BOOL)
    return REF_ERR(h, TABI_ERR_TYPE, "%s: reduce 'mean' does not support dtype bool (argument 'self')", OPN);
  if ((*kind == SR_AMAX || *kind == SR_AMIN) && tabi_dtype_is_complex(dt))
    return REF_ERR(h, TABI_ERR_TYPE, "%s: reduce '%s' does not support complex dtype %s", OPN,
                   *kind == SR_AMAX ? "amax" : "amin", tabi_dtype_name(dt));
  if (nidx != 0) return sr_shapes(h, call, self, *dim, index, src);
  return TABI_OK;
}

tabi_status tc_sr_check_bounds(const tabi_host_api *h, const tabi_call *call, const int64_t *iv, int64_t n,
                               int32_t dim, int64_t size) {
  for (int64_t i = 0; i < n; i++)
    if (iv[i] < 0 || iv[i] >= size)
      return REF_ERR(h, TABI_ERR_INDEX,
                     "%s: argument 'index': index %lld is out of bounds for dimension %d with size %lld", OPN,
                     (long long)iv[i], (int)dim, (long long)size);
  return TABI_OK;
}

/* k_nonzero's checks (reference/ref_index2.c). */
tabi_status tc_nz_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args) {
  const tabi_tensor *self = args[0].u.t;
  tabi_status st = ref_check_dtype(h, call, "self", tabi_tensor_dtype(self), REF_DTS_ALL);
  if (st != TABI_OK) return st;
  if (self->dl.ndim > REF_MAX_DIMS) return REF_ERR(h, TABI_ERR_SHAPE, "%s: too many dims", OPN);
  return TABI_OK;
}

/* k_masked_scatter's checks before the walk (reference/ref_index2.c). */
tabi_status tc_ms_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int32_t *nd,
                        int64_t *shape) {
  const tabi_tensor *self = args[0].u.t, *mask = args[1].u.t, *source = args[2].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self);
  tabi_status st = ref_check_dtype(h, call, "self", dt, REF_DTS_ALL);
  if (st != TABI_OK) return st;
  st = ref_check_dtype(h, call, "mask", tabi_tensor_dtype(mask), REF_DTS_BOOL | REF_DT(TABI_DTYPE_UINT8));
  if (st != TABI_OK) return st;
  if (tabi_tensor_dtype(source) != dt)
    return REF_ERR(h, TABI_ERR_TYPE,
                   "%s: expected self and source to have same dtypes but got %s and %s (argument 'source')", OPN,
                   tabi_dtype_name(dt), tabi_dtype_name(tabi_tensor_dtype(source)));
  const tabi_tensor *both[2] = {self, mask};
  return ref_broadcast_shape(h, call, 2, both, nd, shape);
}

tabi_status tc_ms_short(const tabi_host_api *h, const tabi_call *call, int64_t avail) {
  return REF_ERR(h, TABI_ERR_SHAPE,
                 "%s: Number of elements of source < number of ones in mask (argument 'source' has %lld elements)",
                 OPN, (long long)avail);
}

/* k_randperm's checks (reference/ref_create2.c), in its order: layout, dtype,
 * n, n - 1 representable, the precision limit. */
tabi_status tc_rp_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, tabi_dtype *dt) {
  int64_t n = args[0].u.i;
  *dt = rs_dtype_arg(&args[1], TABI_DTYPE_INT64);
  const tabi_value *layout = &args[2];
  if (!(layout->tag == TABI_TAG_NONE || (layout->tag == TABI_TAG_INT && layout->u.i == 0)))
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'layout': only the strided layout is supported, got %lld", OPN,
                   (long long)layout->u.i);
  tabi_status st = ref_check_dtype(h, call, "dtype", *dt, REF_DTS_INT | REF_DTS_FLOAT);
  if (st != TABI_OK) return st;
  if (n < 0)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'n': n must be non-negative, got %lld", OPN,
                   (long long)n);
  tabi_value last = tabi_int(n > 0 ? n - 1 : 0);
  st = rs_check_scalar(h, call, "n", &last, *dt);
  if (st != TABI_OK) return st;
  int64_t limit = *dt == TABI_DTYPE_FLOAT16   ? 2049
                  : *dt == TABI_DTYPE_FLOAT32 ? (INT64_C(1) << 24) + 1
                  : *dt == TABI_DTYPE_FLOAT64 ? (INT64_C(1) << 53) + 1
                                              : INT64_MAX;
  if (n > limit)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'n': n cannot be greater than %lld for %s type",
                   OPN, (long long)limit, tabi_dtype_name(*dt));
  return TABI_OK;
}
