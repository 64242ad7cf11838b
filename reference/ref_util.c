/* reference/ref_util.c: element access, promotion and shape rules shared by every
 * reference kernel. See ref.h for the contract of each function. */
#include "ref.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ref_cast.h"

const char *ref_op_name(const tabi_host_api *h, const tabi_call *call) {
  const tabi_op_info *info = h->op_info(h->ctx, call->op);
  return info ? info->name : "<unknown op>";
}

tabi_status ref_check_dtype(const tabi_host_api *h, const tabi_call *call, const char *arg,
                            tabi_dtype dtype, uint32_t allowed) {
  if (dtype >= 0 && dtype < 32 && (allowed & REF_DT(dtype))) return TABI_OK;
  char list[256];
  size_t n = 0;
  list[0] = 0;
  for (int i = 0; i < TABI_DTYPE_COUNT; i++) {
    tabi_dtype d = tabi_all_dtypes[i];
    if (!(allowed & REF_DT(d))) continue;
    int w = snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", tabi_dtype_name(d));
    if (w < 0 || (size_t)w >= sizeof list - n) break;
    n += (size_t)w;
  }
  return REF_ERR(h, TABI_ERR_TYPE, "%s: argument '%s' has dtype %s; expected one of: %s",
                 ref_op_name(h, call), arg, tabi_dtype_name(dtype), list);
}

/* --- promotion ------------------------------------------------------------- */

static int category(tabi_dtype d) {
  if (d == TABI_DTYPE_BOOL) return 0;
  if (tabi_dtype_is_integral(d, 0)) return 1;
  if (tabi_dtype_is_floating(d)) return 2;
  if (tabi_dtype_is_complex(d)) return 3;
  return -1;
}

static tabi_dtype to_complex(tabi_dtype d) {
  return d == TABI_DTYPE_FLOAT64 ? TABI_DTYPE_COMPLEX128 : TABI_DTYPE_COMPLEX64;
}

static int int_rank(tabi_dtype d) {
  switch (d) {
    case TABI_DTYPE_INT8: return 1;
    case TABI_DTYPE_INT16: return 2;
    case TABI_DTYPE_INT32: return 3;
    case TABI_DTYPE_INT64: return 4;
    default: return 0; /* uint8 */
  }
}

static int float_rank(tabi_dtype d) {
  switch (d) {
    case TABI_DTYPE_FLOAT16: case TABI_DTYPE_BFLOAT16: return 1;
    case TABI_DTYPE_FLOAT32: return 2;
    default: return 3; /* float64 */
  }
}

tabi_dtype ref_promote(tabi_dtype a, tabi_dtype b) {
  if (a == TABI_DTYPE_INVALID) return b;
  if (b == TABI_DTYPE_INVALID) return a;
  if (a == b) return a;
  int ca = category(a), cb = category(b);
  if (ca < 0 || cb < 0) return TABI_DTYPE_INVALID;
  if (ca != cb) {
    tabi_dtype hi = ca > cb ? a : b, lo = ca > cb ? b : a;
    /* complex with float64 widens to complex128; otherwise the higher category wins */
    if (category(hi) == 3 && lo == TABI_DTYPE_FLOAT64) return TABI_DTYPE_COMPLEX128;
    return hi;
  }
  switch (ca) {
    case 1: /* integers: uint8 with a signed type needs the next signed width */
      if (a == TABI_DTYPE_UINT8 || b == TABI_DTYPE_UINT8) {
        tabi_dtype s = a == TABI_DTYPE_UINT8 ? b : a;
        return s == TABI_DTYPE_INT8 ? TABI_DTYPE_INT16 : s;
      }
      return int_rank(a) > int_rank(b) ? a : b;
    case 2: /* floats: float16 with bfloat16 has no common 16-bit type */
      if (float_rank(a) == 1 && float_rank(b) == 1) return TABI_DTYPE_FLOAT32;
      return float_rank(a) > float_rank(b) ? a : b;
    default: /* complex */
      return TABI_DTYPE_COMPLEX128;
  }
}

void ref_rt_init(ref_result_type *rt) {
  rt->dim_result = rt->zero_result = rt->wrapped_result = TABI_DTYPE_INVALID;
}

void ref_rt_tensor(ref_result_type *rt, const tabi_tensor *t) {
  if (!t) return;
  tabi_dtype d = tabi_tensor_dtype(t);
  if (t->dl.ndim == 0) rt->zero_result = ref_promote(rt->zero_result, d);
  else rt->dim_result = ref_promote(rt->dim_result, d);
}

tabi_dtype ref_scalar_dtype(const tabi_value *scalar) {
  switch (scalar->tag) {
    case TABI_TAG_BOOL: return TABI_DTYPE_BOOL;
    case TABI_TAG_INT: return TABI_DTYPE_INT64;
    case TABI_TAG_FLOAT: return TABI_DTYPE_FLOAT64;
    case TABI_TAG_COMPLEX: return TABI_DTYPE_COMPLEX128;
    default: return TABI_DTYPE_INVALID;
  }
}

void ref_rt_scalar(ref_result_type *rt, const tabi_value *scalar) {
  tabi_dtype d = TABI_DTYPE_INVALID;
  switch (scalar->tag) {
    case TABI_TAG_BOOL: d = TABI_DTYPE_BOOL; break;
    case TABI_TAG_INT: d = TABI_DTYPE_INT64; break;
    case TABI_TAG_FLOAT: d = TABI_DTYPE_FLOAT32; break;     /* the default dtype */
    case TABI_TAG_COMPLEX: d = TABI_DTYPE_COMPLEX64; break; /* the default complex */
    default: return;
  }
  rt->wrapped_result = ref_promote(rt->wrapped_result, d);
}

/* ATen's combine_categories: `higher` is the result of the higher-priority class. */
static tabi_dtype combine(tabi_dtype higher, tabi_dtype lower) {
  if (higher == TABI_DTYPE_INVALID) return lower;
  if (lower == TABI_DTYPE_INVALID) return higher;
  if (tabi_dtype_is_complex(higher)) return higher;
  if (tabi_dtype_is_complex(lower)) {
    if (tabi_dtype_is_floating(higher)) return to_complex(higher);
    return lower;
  }
  if (tabi_dtype_is_floating(higher)) return higher;
  if (higher == TABI_DTYPE_BOOL || tabi_dtype_is_floating(lower)) return ref_promote(higher, lower);
  return higher;
}

tabi_dtype ref_rt_result(const ref_result_type *rt) {
  return combine(rt->dim_result, combine(rt->zero_result, rt->wrapped_result));
}

/* --- element access -------------------------------------------------------- */

/* The real loads and stores are ref_cast.h's, one copy with the GPU plugins. */
int64_t ref_load_i_ptr(const void *p, tabi_dtype dt) { return ref_cast_ld_i((const char *)p, dt); }
double ref_load_f_ptr(const void *p, tabi_dtype dt) { return ref_cast_ld_f((const char *)p, dt); }

ref_cplx ref_load_c_ptr(const void *p, tabi_dtype dt) {
  switch (dt) {
    case TABI_DTYPE_COMPLEX64: {
      const float *f = p;
      return CMPLX((double)f[0], (double)f[1]);
    }
    case TABI_DTYPE_COMPLEX128: {
      const double *d = p;
      return CMPLX(d[0], d[1]);
    }
    default: return CMPLX(ref_load_f_ptr(p, dt), 0.0);
  }
}

void ref_store_i_ptr(void *p, tabi_dtype dt, int64_t v) { ref_cast_st_i((char *)p, dt, v); }
void ref_store_f_ptr(void *p, tabi_dtype dt, double v) { ref_cast_st_f((char *)p, dt, v); }

void ref_store_c_ptr(void *p, tabi_dtype dt, ref_cplx v) {
  switch (dt) {
    case TABI_DTYPE_COMPLEX64: ((float *)p)[0] = (float)creal(v); ((float *)p)[1] = (float)cimag(v); break;
    case TABI_DTYPE_COMPLEX128: ((double *)p)[0] = creal(v); ((double *)p)[1] = cimag(v); break;
    case TABI_DTYPE_BOOL: *(uint8_t *)p = creal(v) != 0 || cimag(v) != 0; break;
    default: ref_store_f_ptr(p, dt, creal(v)); break;
  }
}

static inline void *elem(const tabi_tensor *t, int64_t off) {
  return (char *)tabi_tensor_data(t) + off * (int64_t)(t->dl.dtype.bits / 8);
}

int64_t ref_load_i(const tabi_tensor *t, int64_t off) { return ref_load_i_ptr(elem(t, off), tabi_tensor_dtype(t)); }
double ref_load_f(const tabi_tensor *t, int64_t off) { return ref_load_f_ptr(elem(t, off), tabi_tensor_dtype(t)); }
ref_cplx ref_load_c(const tabi_tensor *t, int64_t off) { return ref_load_c_ptr(elem(t, off), tabi_tensor_dtype(t)); }
void ref_store_i(tabi_tensor *t, int64_t off, int64_t v) { ref_store_i_ptr(elem(t, off), tabi_tensor_dtype(t), v); }
void ref_store_f(tabi_tensor *t, int64_t off, double v) { ref_store_f_ptr(elem(t, off), tabi_tensor_dtype(t), v); }
void ref_store_c(tabi_tensor *t, int64_t off, ref_cplx v) { ref_store_c_ptr(elem(t, off), tabi_tensor_dtype(t), v); }

int64_t ref_scalar_i(const tabi_value *v) {
  switch (v->tag) {
    case TABI_TAG_BOOL: case TABI_TAG_INT: return v->u.i;
    case TABI_TAG_FLOAT: return ref_cast_f_to_i64(v->u.f);
    case TABI_TAG_COMPLEX: return ref_cast_f_to_i64(v->u.c[0]);
    default: return 0;
  }
}

double ref_scalar_f(const tabi_value *v) { return tabi_value_as_double(v); }

ref_cplx ref_scalar_c(const tabi_value *v) {
  if (v->tag == TABI_TAG_COMPLEX) return CMPLX(v->u.c[0], v->u.c[1]);
  return CMPLX(tabi_value_as_double(v), 0.0);
}

/* --- shapes ---------------------------------------------------------------- */

tabi_status ref_wrap_dim(const tabi_host_api *h, const tabi_call *call, const char *arg,
                         int64_t dim, int32_t ndim, int32_t *out_dim) {
  int64_t n = ndim > 0 ? ndim : 1; /* a 0-d tensor accepts -1 and 0 */
  if (dim < -n || dim >= n)
    return REF_ERR(h, TABI_ERR_INDEX,
                   "%s: argument '%s': dim %lld is out of range for a tensor of %d dims "
                   "(expected %lld..%lld)",
                   ref_op_name(h, call), arg, (long long)dim, (int)ndim, (long long)-n,
                   (long long)(n - 1));
  *out_dim = (int32_t)(dim < 0 ? dim + n : dim);
  return TABI_OK;
}

const char *ref_shape_str(char *buf, int64_t cap, int32_t ndim, const int64_t *shape) {
  int64_t n = 0;
  if (cap <= 0) return buf;
  buf[0] = 0;
  n += snprintf(buf, (size_t)cap, "[");
  for (int32_t i = 0; i < ndim && n < cap; i++)
    n += snprintf(buf + n, (size_t)(cap - n), "%s%lld", i ? ", " : "", (long long)shape[i]);
  if (n < cap) snprintf(buf + n, (size_t)(cap - n), "]");
  return buf;
}

tabi_status ref_broadcast_shape(const tabi_host_api *h, const tabi_call *call, int32_t n,
                                const tabi_tensor *const *ts, int32_t *out_ndim,
                                int64_t *out_shape) {
  int32_t nd = 0;
  for (int32_t k = 0; k < n; k++)
    if (ts[k] && ts[k]->dl.ndim > nd) nd = ts[k]->dl.ndim;
  if (nd > REF_MAX_DIMS)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: %d dims is more than the reference supports (%d)",
                   ref_op_name(h, call), (int)nd, REF_MAX_DIMS);
  for (int32_t i = 0; i < nd; i++) out_shape[i] = 1;
  for (int32_t k = 0; k < n; k++) {
    const tabi_tensor *t = ts[k];
    if (!t) continue;
    for (int32_t i = 0; i < t->dl.ndim; i++) {
      int32_t o = nd - t->dl.ndim + i;
      int64_t s = t->dl.shape[i];
      if (s == out_shape[o] || s == 1) continue;
      if (out_shape[o] == 1) {
        out_shape[o] = s;
        continue;
      }
      char a[128], b[128];
      const tabi_tensor *first = NULL;
      for (int32_t j = 0; j < k; j++)
        if (ts[j] && ts[j]->dl.ndim >= nd - o && ts[j]->dl.shape[ts[j]->dl.ndim - (nd - o)] != 1) {
          first = ts[j];
          break;
        }
      return REF_ERR(h, TABI_ERR_SHAPE,
                     "%s: shapes %s and %s do not broadcast (dim %d: %lld vs %lld)",
                     ref_op_name(h, call),
                     first ? ref_shape_str(a, sizeof a, first->dl.ndim, first->dl.shape) : "?",
                     ref_shape_str(b, sizeof b, t->dl.ndim, t->dl.shape), (int)(o - nd),
                     (long long)out_shape[o], (long long)s);
    }
  }
  *out_ndim = nd;
  return TABI_OK;
}

void ref_iter_init(ref_iter *it, int32_t ndim, const int64_t *shape) {
  memset(it, 0, sizeof *it);
  it->ndim = ndim;
  it->numel = 1;
  for (int32_t i = 0; i < ndim; i++) {
    it->shape[i] = shape[i];
    it->numel *= shape[i];
  }
}

int32_t ref_iter_add_strided(ref_iter *it, int32_t ndim, const int64_t *shape,
                             const int64_t *strides) {
  int32_t k = it->n++;
  for (int32_t i = 0; i < it->ndim; i++) it->strides[k][i] = 0;
  for (int32_t i = 0; i < ndim; i++) {
    int32_t o = it->ndim - ndim + i;
    if (o >= 0) it->strides[k][o] = shape[i] == 1 ? 0 : strides[i];
  }
  it->off[k] = 0;
  return k;
}

int32_t ref_iter_add(ref_iter *it, const tabi_tensor *t) {
  return ref_iter_add_strided(it, t->dl.ndim, t->dl.shape, t->dl.strides);
}

void ref_iter_next(ref_iter *it) {
  it->pos++;
  for (int32_t d = it->ndim - 1; d >= 0; d--) {
    if (++it->index[d] < it->shape[d]) {
      for (int32_t k = 0; k < it->n; k++) it->off[k] += it->strides[k][d];
      return;
    }
    for (int32_t k = 0; k < it->n; k++) it->off[k] -= it->strides[k][d] * (it->shape[d] - 1);
    it->index[d] = 0;
  }
}

int64_t ref_offset_of(const tabi_tensor *t, int64_t linear) {
  int64_t off = 0;
  for (int32_t d = t->dl.ndim - 1; d >= 0; d--) {
    int64_t s = t->dl.shape[d];
    if (s == 0) return 0;
    off += (linear % s) * t->dl.strides[d];
    linear /= s;
  }
  return off;
}

/* --- outputs ---------------------------------------------------------------- */

tabi_status ref_empty(const tabi_host_api *h, const tabi_tensor *like, tabi_dtype dtype,
                      int32_t ndim, const int64_t *shape, tabi_tensor **out) {
  DLDevice dev = {kDLCPU, 0};
  if (like) dev = like->dl.device;
  return h->tensor_empty(h->ctx, dev, dtype, ndim, shape, out);
}

void ref_copy_convert(tabi_tensor *dst, const tabi_tensor *src) {
  ref_iter it;
  ref_iter_init(&it, dst->dl.ndim, dst->dl.shape);
  int32_t s = ref_iter_add(&it, src), d = ref_iter_add(&it, dst);
  tabi_dtype sd = tabi_tensor_dtype(src), dd = tabi_tensor_dtype(dst);
  for (; !ref_iter_done(&it); ref_iter_next(&it)) {
    if (tabi_dtype_is_integral(sd, 1)) /* exact int64 first: one rounding at the store */
      ref_store_i(dst, it.off[d], ref_load_i(src, it.off[s]));
    else if (tabi_dtype_is_complex(sd) || tabi_dtype_is_complex(dd))
      ref_store_c(dst, it.off[d], ref_load_c(src, it.off[s]));
    else
      ref_store_f(dst, it.off[d], ref_load_f(src, it.off[s]));
  }
}

tabi_status ref_clone(const tabi_host_api *h, const tabi_tensor *t, tabi_tensor **out) {
  tabi_status st = ref_empty(h, t, tabi_tensor_dtype(t), t->dl.ndim, t->dl.shape, out);
  if (st != TABI_OK) return st;
  ref_copy_convert(*out, t);
  return TABI_OK;
}
