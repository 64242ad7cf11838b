/* reference/ref_shape_util.c: see ref_shape_util.h. */
#include "ref_shape_util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DLDevice rs_device_arg(const tabi_value *v, DLDevice dflt) {
  return v->tag == TABI_TAG_DEVICE ? v->u.device : dflt;
}

tabi_dtype rs_dtype_arg(const tabi_value *v, tabi_dtype dflt) {
  return v->tag == TABI_TAG_DTYPE ? v->u.dtype : dflt;
}

int64_t rs_memfmt_arg(const tabi_value *v, int64_t dflt) {
  return v->tag == TABI_TAG_INT ? v->u.i : dflt;
}

tabi_status rs_check_sizes(const tabi_host_api *h, const tabi_call *call, const char *arg,
                           int64_t n, const int64_t *sizes) {
  if (n > REF_MAX_DIMS)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument '%s': %lld dims is more than the reference supports (%d)",
                   ref_op_name(h, call), arg, (long long)n, REF_MAX_DIMS);
  for (int64_t i = 0; i < n; i++) {
    if (sizes[i] >= 0) continue;
    char buf[256];
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument '%s': Trying to create tensor with negative dimension %lld: %s",
                   ref_op_name(h, call), arg, (long long)sizes[i],
                   ref_shape_str(buf, sizeof buf, (int32_t)n, sizes));
  }
  return TABI_OK;
}

/* The products wrap (unsigned) where the sizes' product overflows, as ATen's
 * do: the core refuses to allocate such a shape unless it is empty, and an
 * empty tensor's strides address nothing. */
void rs_contig_strides(int32_t ndim, const int64_t *shape, int64_t *out_strides) {
  uint64_t s = 1;
  for (int32_t i = ndim - 1; i >= 0; i--) {
    out_strides[i] = (int64_t)s;
    s *= (uint64_t)(shape[i] > 1 ? shape[i] : 1);
  }
}

int rs_non_overlapping_and_dense(int32_t ndim, const int64_t *shape, const int64_t *strides) {
  if (ndim == 1) return shape[0] < 2 || strides[0] == 1;
  int32_t perm[REF_MAX_DIMS];
  for (int32_t i = 0; i < ndim; i++) perm[i] = i;
  /* insertion sort: dims of size < 2 last, the rest by increasing stride */
  for (int32_t i = 1; i < ndim; i++) {
    for (int32_t j = i; j > 0; j--) {
      int32_t a = perm[j - 1], b = perm[j];
      int a_after_b;
      if (shape[a] < 2) a_after_b = shape[b] >= 2;
      else if (shape[b] < 2) a_after_b = 0;
      else a_after_b = strides[a] > strides[b];
      if (!a_after_b) break;
      perm[j - 1] = b;
      perm[j] = a;
    }
  }
  uint64_t require = 1; /* wraps, as rs_contig_strides, for sizes not yet checked */
  for (int32_t i = 0; i < ndim; i++) {
    int64_t size = shape[perm[i]];
    if (size < 2) return 1;
    if ((uint64_t)strides[perm[i]] != require) return 0;
    require *= (uint64_t)size;
  }
  return 1;
}

static void channels_last_strides(int32_t ndim, const int64_t *shape, int64_t *st) {
  /* order of increasing stride: C, then W, H (, D), then N */
  int32_t order[5];
  int32_t n = 0;
  order[n++] = 1;
  for (int32_t d = ndim - 1; d >= 2; d--) order[n++] = d;
  order[n++] = 0;
  uint64_t s = 1; /* wraps as rs_contig_strides */
  for (int32_t i = 0; i < ndim; i++) {
    st[order[i]] = (int64_t)s;
    s *= (uint64_t)(shape[order[i]] > 1 ? shape[order[i]] : 1);
  }
}

tabi_status rs_memfmt_strides(const tabi_host_api *h, const tabi_call *call, int64_t fmt,
                              int32_t ndim, const int64_t *shape, int64_t *out_strides) {
  switch (fmt) {
    case RS_MF_CONTIGUOUS: rs_contig_strides(ndim, shape, out_strides); return TABI_OK;
    case RS_MF_CHANNELS_LAST:
    case RS_MF_CHANNELS_LAST_3D: {
      int32_t want = fmt == RS_MF_CHANNELS_LAST ? 4 : 5;
      if (ndim != want)
        return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                       "%s: argument 'memory_format': required rank %d tensor to use %s format, got rank %d",
                       ref_op_name(h, call), want,
                       want == 4 ? "channels_last" : "channels_last_3d", (int)ndim);
      channels_last_strides(ndim, shape, out_strides);
      return TABI_OK;
    }
    default:
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                     "%s: argument 'memory_format': unsupported memory format %s",
                     ref_op_name(h, call), fmt == RS_MF_PRESERVE ? "Preserve" : "(unknown)");
  }
}

/* ATen's is_channels_last_strides_2d/3d (the check suggest_memory_format uses). */
static int strides_like_channels_last(int32_t ndim, const int64_t *shape, const int64_t *st) {
  static const int32_t order4[4] = {1, 3, 2, 0};
  static const int32_t order5[5] = {1, 4, 3, 2, 0};
  const int32_t *order;
  if (ndim == 4) order = order4;
  else if (ndim == 5) order = order5;
  else return 0;
  int64_t min = 0;
  if (st[1] == 0) return 0;
  for (int32_t i = 0; i < ndim; i++) {
    int32_t d = order[i];
    if (shape[d] == 0) return 0;
    if (st[d] < min) return 0;
    if (d == 0 && min == st[1]) return 0;
    min = st[d];
    if (shape[d] > 1) min *= shape[d];
  }
  return 1;
}

tabi_status rs_like_strides(const tabi_host_api *h, const tabi_call *call,
                            const tabi_tensor *self, int64_t fmt, int64_t *out_strides) {
  int32_t nd = self->dl.ndim;
  if (fmt != RS_MF_PRESERVE)
    return rs_memfmt_strides(h, call, fmt, nd, self->dl.shape, out_strides);
  if (rs_non_overlapping_and_dense(nd, self->dl.shape, self->dl.strides)) {
    for (int32_t i = 0; i < nd; i++) out_strides[i] = self->dl.strides[i];
    return TABI_OK;
  }
  if (strides_like_channels_last(nd, self->dl.shape, self->dl.strides)) {
    channels_last_strides(nd, self->dl.shape, out_strides);
    return TABI_OK;
  }
  rs_contig_strides(nd, self->dl.shape, out_strides);
  return TABI_OK;
}

tabi_status rs_empty_host(const tabi_host_api *h, tabi_dtype dtype, int32_t ndim,
                          const int64_t *shape, const int64_t *strides, tabi_tensor **out) {
  DLDevice cpu = {kDLCPU, 0};
  return h->tensor_empty_strided(h->ctx, cpu, dtype, ndim, shape, strides, out);
}

tabi_status rs_to_device(const tabi_host_api *h, DLDevice device, tabi_tensor **inout) {
  tabi_tensor *src = *inout;
  if (device.device_type == kDLCPU) return TABI_OK;
  tabi_tensor *dst = NULL;
  tabi_status st = h->tensor_empty_strided(h->ctx, device, tabi_tensor_dtype(src), src->dl.ndim,
                                           src->dl.shape, src->dl.strides, &dst);
  if (st == TABI_OK) st = h->tensor_copy(h->ctx, dst, src);
  h->tensor_release(h->ctx, src);
  if (st != TABI_OK) {
    h->tensor_release(h->ctx, dst);
    dst = NULL;
  }
  *inout = dst;
  return st;
}

/* --- checked Scalar conversion (c10::checked_convert) ---------------------- */

static void real_limits(tabi_dtype d, double *lo, double *hi, int *is_float) {
  *is_float = 1;
  switch (d) {
    case TABI_DTYPE_UINT8: *lo = 0; *hi = 255; *is_float = 0; break;
    case TABI_DTYPE_INT8: *lo = -128; *hi = 127; *is_float = 0; break;
    case TABI_DTYPE_INT16: *lo = -32768; *hi = 32767; *is_float = 0; break;
    case TABI_DTYPE_INT32: *lo = -2147483648.0; *hi = 2147483647.0; *is_float = 0; break;
    case TABI_DTYPE_INT64: *lo = -9223372036854775808.0; *hi = 9223372036854775807.0; *is_float = 0; break;
    case TABI_DTYPE_FLOAT16: *lo = -65504.0; *hi = 65504.0; break;
    case TABI_DTYPE_BFLOAT16: *lo = -3.38953138925153547590470800371487866880e38; *hi = -*lo; break;
    case TABI_DTYPE_FLOAT32: case TABI_DTYPE_COMPLEX64: *lo = -FLT_MAX; *hi = FLT_MAX; break;
    default: *lo = -DBL_MAX; *hi = DBL_MAX; break;
  }
}

/* overflows<To, double>(f) for To's value type */
static int float_overflows(tabi_dtype d, double f) {
  double lo, hi;
  int is_float;
  real_limits(d, &lo, &hi, &is_float);
  if (is_float && isinf(f)) return 0;
  if (isnan(f)) return !is_float;
  return f < lo || f > hi;
}

static int int_overflows(tabi_dtype d, int64_t i) {
  switch (d) {
    case TABI_DTYPE_UINT8: /* negative values may wrap, as two's complement */
      return i > 255 || (i < 0 && (0 - (uint64_t)i) > 255u);
    case TABI_DTYPE_INT8: return i < -128 || i > 127;
    case TABI_DTYPE_INT16: return i < -32768 || i > 32767;
    case TABI_DTYPE_INT32: return i < INT32_MIN || i > INT32_MAX;
    case TABI_DTYPE_FLOAT16: return i < -65504 || i > 65504;
    default: return 0; /* int64, and every wider float, hold any int64 in range */
  }
}

tabi_status rs_check_scalar(const tabi_host_api *h, const tabi_call *call, const char *arg,
                            const tabi_value *v, tabi_dtype dtype) {
  int bad = 0;
  if (dtype == TABI_DTYPE_BOOL) return TABI_OK; /* converting to bool cannot overflow */
  switch (v->tag) {
    case TABI_TAG_INT: bad = int_overflows(dtype, v->u.i); break;
    case TABI_TAG_FLOAT: bad = float_overflows(dtype, v->u.f); break;
    case TABI_TAG_COMPLEX:
      if (!tabi_dtype_is_complex(dtype) && v->u.c[1] != 0) bad = 1;
      else bad = float_overflows(dtype, v->u.c[0]) || float_overflows(dtype, v->u.c[1]);
      break;
    default: break;
  }
  if (!bad) return TABI_OK;
  return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                 "%s: argument '%s': value cannot be converted to type %s without overflow",
                 ref_op_name(h, call), arg, tabi_dtype_name(dtype));
}

void rs_store_scalar_ptr(void *p, tabi_dtype d, const tabi_value *v) {
  switch (v->tag) {
    case TABI_TAG_BOOL: case TABI_TAG_INT: ref_store_i_ptr(p, d, v->u.i); break;
    case TABI_TAG_FLOAT: ref_store_f_ptr(p, d, v->u.f); break;
    case TABI_TAG_COMPLEX:
      /* c10 converts a complex Scalar to a real type through its real part
       * (bool included: fill_(1j) on a bool tensor gives False) */
      if (tabi_dtype_is_complex(d)) ref_store_c_ptr(p, d, ref_scalar_c(v));
      else ref_store_f_ptr(p, d, v->u.c[0]);
      break;
    default: break;
  }
}

void rs_store_scalar(tabi_tensor *t, int64_t off, const tabi_value *v) {
  tabi_dtype d = tabi_tensor_dtype(t);
  rs_store_scalar_ptr((char *)tabi_tensor_data(t) + off * (int64_t)tabi_dtype_size(d), d, v);
}

void rs_fill(tabi_tensor *t, const tabi_value *v) {
  ref_iter it;
  ref_iter_init(&it, t->dl.ndim, t->dl.shape);
  int32_t o = ref_iter_add(&it, t);
  for (; !ref_iter_done(&it); ref_iter_next(&it)) rs_store_scalar(t, it.off[o], v);
}

tabi_status rs_copy_safe(const tabi_host_api *h, tabi_tensor *dst, const tabi_tensor *src) {
  if (h->tensor_storage_id(h->ctx, dst) != h->tensor_storage_id(h->ctx, src)) {
    ref_copy_convert(dst, src);
    return TABI_OK;
  }
  tabi_tensor *tmp = NULL;
  tabi_status st = ref_clone(h, src, &tmp);
  if (st != TABI_OK) return st;
  ref_copy_convert(dst, tmp);
  h->tensor_release(h->ctx, tmp);
  return TABI_OK;
}

tabi_status rs_check_layout(const tabi_host_api *h, const tabi_call *call, const tabi_value *v) {
  if (v->tag == TABI_TAG_NONE || v->tag == TABI_TAG_DEFAULT || (v->tag == TABI_TAG_INT && v->u.i == 0)) return TABI_OK;
  return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'layout': only the strided layout is supported, got %lld",
                 ref_op_name(h, call), (long long)(v->tag == TABI_TAG_INT ? v->u.i : -1));
}

int rs_has_internal_overlap(const tabi_tensor *t) {
  if (tabi_tensor_numel(t) == 0) return 0; /* empty: contiguous, as ATen says */
  for (int32_t i = 0; i < t->dl.ndim; i++)
    if (t->dl.strides[i] == 0 && t->dl.shape[i] > 1) return 1;
  return 0;
}

int rs_partial_overlap(const tabi_host_api *h, const tabi_tensor *a, const tabi_tensor *b) {
  if (h->tensor_storage_id(h->ctx, a) != h->tensor_storage_id(h->ctx, b)) return 0;
  if (!rs_non_overlapping_and_dense(a->dl.ndim, a->dl.shape, a->dl.strides) ||
      !rs_non_overlapping_and_dense(b->dl.ndim, b->dl.shape, b->dl.strides))
    return 0;
  int64_t an = tabi_tensor_numel(a), bn = tabi_tensor_numel(b);
  if (an == 0 || bn == 0) return 0;
  uint64_t a0 = a->dl.byte_offset, a1 = a0 + (uint64_t)an * (a->dl.dtype.bits / 8);
  uint64_t b0 = b->dl.byte_offset, b1 = b0 + (uint64_t)bn * (b->dl.dtype.bits / 8);
  if (a0 == b0 && a1 == b1) {
    int same = a->dl.ndim == b->dl.ndim;
    for (int32_t i = 0; same && i < a->dl.ndim; i++) same = a->dl.strides[i] == b->dl.strides[i];
    return !same;
  }
  return a0 < b1 && b0 < a1;
}

tabi_status rs_check_out_overlap(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *out,
                                 const tabi_value *ins, const char *const *names, int32_t nin) {
  if (rs_has_internal_overlap(out))
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'out': unsupported operation: more than one element of the "
                   "written-to tensor refers to a single memory location",
                   ref_op_name(h, call));
  for (int32_t i = 0; i < nin; i++)
    if (ins[i].tag == TABI_TAG_TENSOR && ins[i].u.t && rs_partial_overlap(h, out, ins[i].u.t))
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                     "%s: argument '%s': unsupported operation: some elements of the input tensor "
                     "and the written-to tensor refer to a single memory location",
                     ref_op_name(h, call), names[i]);
  return TABI_OK;
}

void rs_copy_elem(tabi_tensor *dst, int64_t doff, const tabi_tensor *src, int64_t soff) {
  tabi_dtype sd = tabi_tensor_dtype(src), dd = tabi_tensor_dtype(dst);
  if (tabi_dtype_is_complex(sd) || tabi_dtype_is_complex(dd))
    ref_store_c(dst, doff, ref_load_c(src, soff));
  else if (tabi_dtype_is_integral(sd, 1))
    ref_store_i(dst, doff, ref_load_i(src, soff));
  else
    ref_store_f(dst, doff, ref_load_f(src, soff));
}
