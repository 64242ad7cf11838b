/* reference/ref_index_check.c: see ref_index_check.h. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "ref_shape_util.h"
#include "ref_shape_util.h"
#include "ref_index_check.h"

#define OPN ref_op_name(h, call)

static int32_t ne_dim(const tabi_tensor *t) { return t->dl.ndim > 0 ? t->dl.ndim : 1; }
static int64_t ne_size(const tabi_tensor *t, int32_t d) { return t->dl.ndim > 0 ? t->dl.shape[d] : 1; }

/* c10's overflows<To>(scalar): does the Scalar fit dtype dt? */
static int scalar_overflows(const tabi_value *v, tabi_dtype dt) {
  if (dt == TABI_DTYPE_BOOL || v->tag == TABI_TAG_BOOL) return 0;
  double lo, hi;
  switch (dt) {
    case TABI_DTYPE_UINT8: lo = 0; hi = 255; break;
    case TABI_DTYPE_INT8: lo = -128; hi = 127; break;
    case TABI_DTYPE_INT16: lo = -32768; hi = 32767; break;
    case TABI_DTYPE_INT32: lo = -2147483648.0; hi = 2147483647.0; break;
    case TABI_DTYPE_INT64: lo = -9223372036854775808.0; hi = 9223372036854775807.0; break;
    case TABI_DTYPE_FLOAT16: lo = -65504; hi = 65504; break;
    case TABI_DTYPE_BFLOAT16: lo = -3.3895313892515355e38; hi = 3.3895313892515355e38; break;
    case TABI_DTYPE_FLOAT32: case TABI_DTYPE_COMPLEX64: lo = -FLT_MAX; hi = FLT_MAX; break;
    default: return 0; /* float64, complex128 hold every Scalar */
  }
  int integral = tabi_dtype_is_integral(dt, 0);
  if (v->tag == TABI_TAG_INT) {
    int64_t i = v->u.i;
    /* unsigned targets let negatives wrap (uint8 takes -255..255), as c10 does */
    if (dt == TABI_DTYPE_UINT8) return i > 255 || i < -255;
    if (dt == TABI_DTYPE_INT64) return 0;
    return (double)i < lo || (double)i > hi;
  }
  double parts[2] = {v->tag == TABI_TAG_COMPLEX ? v->u.c[0] : v->u.f,
                     v->tag == TABI_TAG_COMPLEX ? v->u.c[1] : 0.0};
  if (!tabi_dtype_is_complex(dt) && parts[1] != 0) return 1;
  for (int k = 0; k < (tabi_dtype_is_complex(dt) ? 2 : 1); k++) {
    double f = parts[k];
    if (!integral && isinf(f)) continue;
    if (isnan(f)) {
      if (integral) return 1;
      continue;
    }
    if (f < lo || f > hi) return 1;
  }
  return 0;
}

tabi_status ref_idx_sg_shapes(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *self, int32_t dim,
                              const tabi_tensor *index, const tabi_tensor *src, int is_gather) {
  char a[128], b[128], c[128];
  int32_t nd = ne_dim(self);
  if (nd > REF_MAX_DIMS)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: too many dims", OPN);
  if (ne_dim(index) != nd)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: Index tensor must have the same number of dimensions as %s tensor "
                   "(index has %d, self has %d)",
                   OPN, is_gather ? "input" : "self", (int)index->dl.ndim,
                   (int)self->dl.ndim);
  if (src && ne_dim(src) != nd)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: Index tensor must have the same number of dimensions as src tensor "
                   "(index has %d, src has %d)",
                   OPN, (int)index->dl.ndim, (int)src->dl.ndim);
  int32_t bad = -1;
  for (int32_t d = 0; d < nd && bad < 0; d++) {
    if (d != dim && ne_size(index, d) > ne_size(self, d)) bad = d;
    if (src && ne_size(index, d) > ne_size(src, d)) bad = d;
  }
  if (bad < 0) return TABI_OK;
  ref_shape_str(a, sizeof a, index->dl.ndim, index->dl.shape);
  ref_shape_str(b, sizeof b, self->dl.ndim, self->dl.shape);
  if (src)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: Expected index %s to be smaller than self %s apart from dimension %d "
                   "and to be smaller size than src %s",
                   OPN, a, b, (int)dim,
                   ref_shape_str(c, sizeof c, src->dl.ndim, src->dl.shape));
  return REF_ERR(h, TABI_ERR_SHAPE,
                 "%s: Size does not match at dimension %d: expected index %s to be smaller than "
                 "self %s apart from dimension %d",
                 OPN, (int)bad, a, b, (int)dim);
}

tabi_status ref_idx_scatter_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int kind,
                                  const tabi_tensor *src, const tabi_value *value, int32_t *dim) {
  const tabi_tensor *self = args[0].u.t, *index = args[2].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self);
  tabi_status st = ref_check_dtype(h, call, "self", dt, REF_DTS_ALL);
  if (st != TABI_OK) return st;
  if (self->dl.ndim > REF_MAX_DIMS)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'self' has %d dims; the reference supports %d",
                   OPN, (int)self->dl.ndim, REF_MAX_DIMS);
  st = ref_wrap_dim(h, call, "dim", args[1].u.i, self->dl.ndim, dim);
  if (st != TABI_OK) return st;
  int64_t nidx = tabi_tensor_numel(index);
  if (nidx != 0 && tabi_tensor_dtype(index) != TABI_DTYPE_INT64)
    return REF_ERR(h, TABI_ERR_TYPE, "%s: Expected dtype int64 for index, got %s",
                   OPN, tabi_dtype_name(tabi_tensor_dtype(index)));
  if (src && tabi_tensor_dtype(src) != dt)
    return REF_ERR(h, TABI_ERR_TYPE,
                   "%s: Expected self.dtype to be equal to src.dtype (self is %s, src is %s)",
                   OPN, tabi_dtype_name(dt),
                   tabi_dtype_name(tabi_tensor_dtype(src)));
  if (kind == REF_SR_MEAN && dt == TABI_DTYPE_BOOL)
    return REF_ERR(h, TABI_ERR_TYPE, "%s: reduce 'mean' does not support dtype bool (argument 'self')",
                   OPN);
  if ((kind == REF_SR_AMAX || kind == REF_SR_AMIN) && tabi_dtype_is_complex(dt))
    return REF_ERR(h, TABI_ERR_TYPE, "%s: reduce '%s' does not support complex dtype %s",
                   OPN, kind == REF_SR_AMAX ? "amax" : "amin", tabi_dtype_name(dt));
  if (value && scalar_overflows(value, dt))
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'value' cannot be converted to type %s without overflow",
                   OPN, tabi_dtype_name(dt));
  if (nidx != 0) return ref_idx_sg_shapes(h, call, self, *dim, index, src, 0);
  return TABI_OK;
}

tabi_status ref_idx_gather_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                 int32_t *dim) {
  const tabi_tensor *self = args[0].u.t, *index = args[2].u.t;
  tabi_status st = ref_check_dtype(h, call, "self", tabi_tensor_dtype(self), REF_DTS_ALL);
  if (st != TABI_OK) return st;
  st = ref_wrap_dim(h, call, "dim", args[1].u.i, self->dl.ndim, dim);
  if (st != TABI_OK || tabi_tensor_numel(index) == 0) return st;
  if (tabi_tensor_dtype(index) != TABI_DTYPE_INT64)
    return REF_ERR(h, TABI_ERR_TYPE, "%s: Expected dtype int64 for index, got %s", OPN,
                   tabi_dtype_name(tabi_tensor_dtype(index)));
  return ref_idx_sg_shapes(h, call, self, *dim, index, NULL, 1);
}

tabi_status ref_idx_select_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                 int32_t *dim) {
  const tabi_tensor *self = args[0].u.t, *index = args[2].u.t;
  tabi_status st = ref_check_dtype(h, call, "self", tabi_tensor_dtype(self), REF_DTS_ALL);
  if (st != TABI_OK) return st;
  int32_t nd = self->dl.ndim;
  st = ref_wrap_dim(h, call, "dim", args[1].u.i, nd, dim);
  if (st != TABI_OK) return st;
  int64_t n = tabi_tensor_numel(index);
  if (index->dl.ndim > 1)
    return REF_ERR(h, TABI_ERR_INDEX, "%s: argument 'index': Index is supposed to be a vector (got %d dims)", OPN,
                   (int)index->dl.ndim);
  if (nd == 0 && n != 1)
    return REF_ERR(h, TABI_ERR_INDEX, "%s: argument 'index': Index to scalar can have only 1 value, got %lld value(s)",
                   OPN, (long long)n);
  st = ref_check_dtype(h, call, "index", tabi_tensor_dtype(index), REF_DT(TABI_DTYPE_INT32) | REF_DT(TABI_DTYPE_INT64));
  if (st != TABI_OK) return st;
  if (nd > REF_MAX_DIMS) return REF_ERR(h, TABI_ERR_SHAPE, "%s: too many dims", OPN);
  return TABI_OK;
}

tabi_status ref_idx_sr_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int32_t *dim,
                             int *kind) {
  static const struct { const char *name; int kind; } reds[] = {{"sum", REF_SR_SUM},
                                                                {"prod", REF_SR_PROD},
                                                                {"mean", REF_SR_MEAN},
                                                                {"amax", REF_SR_AMAX},
                                                                {"amin", REF_SR_AMIN}};
  const char *s = tabi_value_str(&args[4]);
  int64_t len = args[4].u.list.len;
  for (size_t k = 0; k < sizeof reds / sizeof reds[0]; k++)
    if ((int64_t)strlen(reds[k].name) == len && memcmp(reds[k].name, s, (size_t)len) == 0) {
      *kind = reds[k].kind;
      return ref_idx_scatter_check(h, call, args, *kind, args[3].u.t, NULL, dim);
    }
  *kind = -1;
  return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                 "%s: argument 'reduce' must be either sum, prod, mean, amax or amin (got '%.*s')", OPN,
                 (int)(len > 64 ? 64 : len), s);
}

tabi_status ref_idx_check_bounds(const tabi_host_api *h, const tabi_call *call, const int64_t *iv, int64_t n,
                                 int32_t dim, int64_t size) {
  for (int64_t i = 0; i < n; i++)
    if (iv[i] < 0 || iv[i] >= size)
      return REF_ERR(h, TABI_ERR_INDEX,
                     "%s: argument 'index': index %lld is out of bounds for dimension %d with size %lld", OPN,
                     (long long)iv[i], (int)dim, (long long)size);
  return TABI_OK;
}

tabi_status ref_idx_nonzero_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args) {
  const tabi_tensor *self = args[0].u.t;
  tabi_status st = ref_check_dtype(h, call, "self", tabi_tensor_dtype(self), REF_DTS_ALL);
  if (st != TABI_OK) return st;
  if (self->dl.ndim > REF_MAX_DIMS) return REF_ERR(h, TABI_ERR_SHAPE, "%s: too many dims", OPN);
  return TABI_OK;
}

tabi_status ref_idx_ms_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int32_t *nd,
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

tabi_status ref_idx_ms_short(const tabi_host_api *h, const tabi_call *call, int64_t avail) {
  return REF_ERR(h, TABI_ERR_SHAPE,
                 "%s: Number of elements of source < number of ones in mask (argument 'source' has %lld elements)",
                 OPN, (long long)avail);
}

/* randperm: layout, dtype, n, n - 1 representable, the precision limit (ATen's
 * check_supported_max_int_with_precision: n - 1 must fit the dtype, and floats
 * must represent every integer up to n exactly). */
tabi_status ref_idx_randperm_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                   tabi_dtype *dt) {
  int64_t n = args[0].u.i;
  *dt = rs_dtype_arg(&args[1], TABI_DTYPE_INT64);
  tabi_status st = rs_check_layout(h, call, &args[2]);
  if (st != TABI_OK) return st;
  st = ref_check_dtype(h, call, "dtype", *dt, REF_DTS_INT | REF_DTS_FLOAT);
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

/* --- advanced indexing (index.Tensor, index_put) ------------------------------ */

void ref_adv_release(ref_adv *p) {
  for (int32_t d = 0; d < REF_ADV_MAX; d++) {
    free(p->vals[d]);
    p->vals[d] = NULL;
  }
}

static int64_t elem_i(const tabi_tensor *t, int64_t e) { /* element e in row-major order */
  int64_t off = 0;
  for (int32_t d = t->dl.ndim - 1; d >= 0; d--) {
    off += (e % t->dl.shape[d]) * t->dl.strides[d];
    e /= t->dl.shape[d];
  }
  return ref_load_i(t, off);
}

static int elem_nz(const tabi_tensor *t, int64_t e) { return elem_i(t, e) != 0; } /* bool, uint8 */

static tabi_status adv_alloc(const tabi_host_api *h, const tabi_call *call, int64_t n, int64_t **out) {
  *out = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
  if (!*out) return REF_ERR(h, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", OPN);
  return TABI_OK;
}

/* A mask covering self dims [cur, cur + mask.ndim): its nonzero coordinates,
 * one 1-D index per dim (adv_mask). */
static tabi_status adv_mask(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *self,
                            const tabi_tensor *mask, int64_t pos, int32_t cur, ref_adv *p) {
  char a[128], b[128];
  int32_t mnd = mask->dl.ndim;
  if (cur + mnd > self->dl.ndim)
    return REF_ERR(h, TABI_ERR_INDEX, "%s: argument 'indices': too many indices for tensor of "
                   "dimension %d (a mask at position %lld covers %d more)",
                   OPN, (int)self->dl.ndim, (long long)pos, (int)mnd);
  for (int32_t j = 0; j < mnd; j++)
    if (mask->dl.shape[j] != self->dl.shape[cur + j])
      return REF_ERR(h, TABI_ERR_INDEX,
                     "%s: argument 'indices': The shape of the mask %s at index %d does not match "
                     "the shape of the indexed tensor %s at index %d",
                     OPN, ref_shape_str(a, sizeof a, mnd, mask->dl.shape), (int)j,
                     ref_shape_str(b, sizeof b, self->dl.ndim, self->dl.shape), (int)(cur + j));
  if (mnd == 0) return TABI_OK;
  int64_t n = tabi_tensor_numel(mask), cnt = 0;
  for (int64_t e = 0; e < n; e++) cnt += elem_nz(mask, e);
  for (int32_t j = 0; j < mnd; j++) {
    tabi_status st = adv_alloc(h, call, cnt, &p->vals[cur + j]);
    if (st != TABI_OK) return st;
    p->has[cur + j] = 1;
    p->ind[cur + j] = 1;
    p->ishape[cur + j][0] = cnt;
  }
  for (int64_t e = 0, r = 0; e < n; e++) {
    if (!elem_nz(mask, e)) continue;
    int64_t rem = e;
    for (int32_t j = mnd - 1; j >= 0; j--) {
      p->vals[cur + j][r] = rem % mask->dl.shape[j];
      rem /= mask->dl.shape[j];
    }
    r++;
  }
  return TABI_OK;
}

tabi_status ref_adv_build(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *self, int64_t n,
                          const tabi_tensor *const *list, ref_adv *p) {
  memset(p, 0, sizeof *p);
  int32_t nd = self->dl.ndim;
  if (nd > REF_MAX_DIMS) return REF_ERR(h, TABI_ERR_SHAPE, "%s: too many dims", OPN);
  if (n > nd)
    return REF_ERR(h, TABI_ERR_INDEX, "%s: argument 'indices': too many indices for tensor of dimension %d (got %lld)",
                   OPN, (int)nd, (long long)n);
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
      if (cur >= nd) {
        st = REF_ERR(h, TABI_ERR_INDEX, "%s: argument 'indices': too many indices for tensor of dimension %d", OPN,
                     (int)nd);
      } else {
        int64_t m = tabi_tensor_numel(t);
        st = adv_alloc(h, call, m, &p->vals[cur]);
        if (st == TABI_OK) {
          for (int64_t e = 0; e < m; e++) p->vals[cur][e] = elem_i(t, e);
          p->has[cur] = 1;
          p->ind[cur] = t->dl.ndim;
          for (int32_t j = 0; j < t->dl.ndim; j++) p->ishape[cur][j] = t->dl.shape[j];
        }
        cur++;
      }
    } else {
      st = REF_ERR(h, TABI_ERR_TYPE,
                   "%s: argument 'indices': tensors used as indices must be long, int, byte or "
                   "bool tensors (got %s at position %lld)",
                   OPN, tabi_dtype_name(dt), (long long)k);
    }
  }
  int32_t ndef = 0, lo = -1, hi = -1;
  for (int32_t d = 0; d < nd && st == TABI_OK; d++)
    if (p->has[d]) {
      ndef++;
      if (lo < 0) lo = d;
      hi = d;
    }
  if (st == TABI_OK && ndef == 0)
    st = REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                 "%s: argument 'indices': at least one index must be a tensor that indexes a dim "
                 "(got none)", OPN);
  if (st == TABI_OK) { /* broadcast the index shapes: shape-only stand-ins for ref_broadcast_shape */
    tabi_tensor fakes[REF_MAX_DIMS];
    const tabi_tensor *defined[REF_MAX_DIMS];
    int32_t k = 0;
    for (int32_t d = 0; d < nd; d++)
      if (p->has[d]) {
        memset(&fakes[k], 0, sizeof fakes[k]);
        fakes[k].dl.ndim = p->ind[d];
        fakes[k].dl.shape = p->ishape[d];
        defined[k] = &fakes[k];
        k++;
      }
    st = ref_broadcast_shape(h, call, ndef, defined, &p->bnd, p->bshape);
  }
  for (int32_t d = 0; d < nd && st == TABI_OK; d++) { /* bounds, each index's own elements in order */
    if (!p->has[d]) continue;
    int64_t size = self->dl.shape[d], m = 1;
    for (int32_t j = 0; j < p->ind[d]; j++) m *= p->ishape[d][j];
    for (int64_t e = 0; e < m; e++) {
      int64_t v = p->vals[d][e];
      if (v < -size || v >= size) {
        st = REF_ERR(h, TABI_ERR_INDEX,
                     "%s: argument 'indices': index %lld is out of bounds for dimension %d with "
                     "size %lld",
                     OPN, (long long)v, (int)d, (long long)size);
        break;
      }
    }
  }
  if (st != TABI_OK) {
    ref_adv_release(p);
    return st;
  }
  int contiguous = 1;
  for (int32_t d = lo; d <= hi; d++)
    if (!p->has[d]) contiguous = 0;
  p->first = contiguous ? lo : 0;
  int32_t r = 0;
  for (int32_t d = 0; d < p->first; d++) {
    p->rpos[d] = r;
    p->rshape[r++] = self->dl.shape[d];
  }
  for (int32_t j = 0; j < p->bnd; j++) p->rshape[r++] = p->bshape[j];
  for (int32_t d = p->first; d < nd; d++) {
    if (p->has[d]) continue;
    p->rpos[d] = r;
    p->rshape[r++] = self->dl.shape[d];
  }
  p->rnd = r;
  if (r > REF_MAX_DIMS) {
    ref_adv_release(p);
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: the result has too many dims", OPN);
  }
  p->nb = 1;
  for (int32_t j = 0; j < p->bnd; j++) p->nb *= p->bshape[j];
  return TABI_OK;
}

tabi_status ref_idx_iput_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args) {
  const tabi_tensor *self = args[0].u.t, *values = args[2].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self);
  tabi_status st = ref_check_dtype(h, call, "self", dt, REF_DTS_ALL);
  if (st != TABI_OK) return st;
  if (tabi_tensor_dtype(values) != dt)
    return REF_ERR(h, TABI_ERR_TYPE,
                   "%s: Index put requires the source and destination dtypes match, got %s for "
                   "the destination and %s for the source (argument 'values')",
                   OPN, tabi_dtype_name(dt), tabi_dtype_name(tabi_tensor_dtype(values)));
  return TABI_OK;
}

tabi_status ref_idx_iput_values(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *values,
                                const ref_adv *p) {
  int fits = values->dl.ndim <= p->rnd;
  for (int32_t j = 0; fits && j < values->dl.ndim; j++) {
    int64_t vs = values->dl.shape[values->dl.ndim - 1 - j], rs = p->rshape[p->rnd - 1 - j];
    if (vs != rs && vs != 1) fits = 0;
  }
  if (fits) return TABI_OK;
  char a[128], b[128];
  return REF_ERR(h, TABI_ERR_SHAPE,
                 "%s: argument 'values': shape mismatch: value tensor of shape %s cannot be "
                 "broadcast to indexing result of shape %s",
                 OPN, ref_shape_str(a, sizeof a, values->dl.ndim, values->dl.shape),
                 ref_shape_str(b, sizeof b, p->rnd, p->rshape));
}

tabi_status ref_idx_index_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args) {
  return ref_check_dtype(h, call, "self", tabi_tensor_dtype(args[0].u.t), REF_DTS_ALL);
}
