/* reference/ref_create.c: creation ops and scalars: empty (aten, strided, prims),
 * full / full_like / fill (aten and prims), scalar_tensor, arange, and the
 * tensor -> Scalar ops (_local_scalar_dense, prims::item, prims::maximum_value).
 *
 * Factory ops are planned (ref_factory.h: the checks, shared with the GPU
 * plugins) and build their result in host memory, handed to the requested
 * device (rs_to_device); `Device?` None is the CPU, `Layout?` must be None or
 * strided, pin_memory is ignored. Fill values go through c10's checked Scalar
 * conversion, so a value that does not fit the dtype is an error, as in ATen.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ref_factory.h"
#include "ref_shape_util.h"

_Static_assert(REF_MAX_DIMS == 16, "ref_factory.h sizes its arrays for REF_MAX_DIMS");

#define OPN ref_op_name(h, call)

/* Checks a factory's geometry, dtype and fill value, and plans the result in
 * *f. strides NULL means contiguous. */
static tabi_status plan(const tabi_host_api *h, const tabi_call *call, const char *size_arg, int64_t n,
                        const int64_t *shape, const int64_t *strides, tabi_dtype dtype, DLDevice device,
                        const tabi_value *value, const char *value_arg, ref_factory *f) {
  tabi_status st = rs_check_sizes(h, call, size_arg, n, shape);
  if (st == TABI_OK) st = ref_check_dtype(h, call, "dtype", dtype, REF_DTS_ALL);
  if (st == TABI_OK && value) st = rs_check_scalar(h, call, value_arg, value, dtype);
  if (st != TABI_OK) return st;
  f->ndim = (int32_t)n;
  for (int64_t i = 0; i < n; i++) f->shape[i] = shape[i];
  if (strides)
    for (int64_t i = 0; i < n; i++) f->strides[i] = strides[i];
  else
    rs_contig_strides((int32_t)n, shape, f->strides);
  f->dtype = dtype;
  f->device = device;
  f->value = value;
  return TABI_OK;
}

static const DLDevice cpu = {kDLCPU, 0};

/* --- empty --------------------------------------------------------------------- */

static tabi_status plan_empty(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                              ref_factory *f) {
  int64_t n = args[0].u.list.len, strides[REF_MAX_DIMS];
  const int64_t *shape = tabi_value_ints(&args[0]);
  tabi_status st = rs_check_layout(h, call, &args[2]);
  if (st == TABI_OK) st = rs_check_sizes(h, call, "size", n, shape);
  if (st == TABI_OK)
    st = rs_memfmt_strides(h, call, rs_memfmt_arg(&args[5], RS_MF_CONTIGUOUS), (int32_t)n, shape, strides);
  if (st != TABI_OK) return st;
  return plan(h, call, "size", n, shape, strides, rs_dtype_arg(&args[1], TABI_DTYPE_FLOAT32),
              rs_device_arg(&args[3], cpu), NULL, NULL, f);
}

static tabi_status strided_common(const tabi_host_api *h, const tabi_call *call, const tabi_value *size,
                                  const tabi_value *stride, tabi_dtype dtype, DLDevice device,
                                  ref_factory *f) {
  int64_t n = size->u.list.len;
  const int64_t *sd = tabi_value_ints(stride);
  char b[256];
  if (stride->u.list.len != n)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'stride': mismatch in length of strides and shape (%lld vs %lld)",
                   OPN, (long long)stride->u.list.len, (long long)n);
  for (int64_t i = 0; i < n; i++)
    if (sd[i] < 0)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'stride': negative strides are not supported, got %s",
                     OPN, ref_shape_str(b, sizeof b, (int32_t)(n < REF_MAX_DIMS ? n : REF_MAX_DIMS), sd));
  return plan(h, call, "size", n, tabi_value_ints(size), sd, dtype, device, NULL, NULL, f);
}

static tabi_status plan_empty_strided(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                      ref_factory *f) {
  tabi_status st = rs_check_layout(h, call, &args[3]);
  if (st != TABI_OK) return st;
  return strided_common(h, call, &args[0], &args[1], rs_dtype_arg(&args[2], TABI_DTYPE_FLOAT32),
                        rs_device_arg(&args[4], cpu), f);
}

static tabi_status plan_prims_empty(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                    ref_factory *f) {
  return plan(h, call, "shape", args[0].u.list.len, tabi_value_ints(&args[0]), NULL, args[1].u.dtype,
              args[2].u.device, NULL, NULL, f);
}

static tabi_status plan_prims_empty_strided(const tabi_host_api *h, const tabi_call *call,
                                            const tabi_value *args, ref_factory *f) {
  return strided_common(h, call, &args[0], &args[1], args[2].u.dtype, args[3].u.device, f);
}

/* --- full / full_like / fill ------------------------------------------------------ */

/* ATen's full() without a dtype: bool, int64, complex64 or float32 after the
 * fill value's kind (torch 1.13 agrees). */
static tabi_dtype full_dtype(const tabi_value *v) {
  switch (v->tag) {
    case TABI_TAG_BOOL: return TABI_DTYPE_BOOL;
    case TABI_TAG_INT: return TABI_DTYPE_INT64;
    case TABI_TAG_COMPLEX: return TABI_DTYPE_COMPLEX64;
    default: return TABI_DTYPE_FLOAT32;
  }
}

static tabi_status plan_full(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                             ref_factory *f) {
  tabi_status st = rs_check_layout(h, call, &args[3]);
  if (st != TABI_OK) return st;
  return plan(h, call, "size", args[0].u.list.len, tabi_value_ints(&args[0]), NULL,
              rs_dtype_arg(&args[2], full_dtype(&args[1])), rs_device_arg(&args[4], cpu), &args[1], "fill_value",
              f);
}

static tabi_status plan_prims_full(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                   ref_factory *f) {
  return plan(h, call, "shape", args[0].u.list.len, tabi_value_ints(&args[0]), NULL, args[2].u.dtype,
              args[3].u.device, &args[1], "fill_value", f);
}

/* full_like and fill: self's shape, laid out as empty_like(self, fmt) does. */
static tabi_status like_filled(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *self,
                               const tabi_value *value, const char *value_arg, tabi_dtype dtype,
                               DLDevice device, int64_t fmt, ref_factory *f) {
  int64_t strides[REF_MAX_DIMS];
  tabi_status st = rs_like_strides(h, call, self, fmt, strides);
  if (st != TABI_OK) return st;
  return plan(h, call, "self", self->dl.ndim, self->dl.shape, strides, dtype, device, value, value_arg, f);
}

static tabi_status plan_full_like(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                  ref_factory *f) {
  tabi_tensor *s = args[0].u.t;
  tabi_status st = rs_check_layout(h, call, &args[3]);
  if (st != TABI_OK) return st;
  return like_filled(h, call, s, &args[1], "fill_value", rs_dtype_arg(&args[2], tabi_tensor_dtype(s)),
                     rs_device_arg(&args[4], s->dl.device), rs_memfmt_arg(&args[6], RS_MF_PRESERVE), f);
}

static tabi_status plan_prims_full_like(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                        ref_factory *f) {
  return like_filled(h, call, args[0].u.t, &args[1], "fill_value", args[2].u.dtype, args[3].u.device,
                     RS_MF_PRESERVE, f);
}

/* aten::fill.Scalar and prims::fill: the functional fill_. */
static tabi_status plan_fill(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                             ref_factory *f) {
  tabi_tensor *s = args[0].u.t;
  return like_filled(h, call, s, &args[1], "value", tabi_tensor_dtype(s), s->dl.device, RS_MF_PRESERVE, f);
}
#define plan_prims_fill plan_fill

/* --- scalar_tensor --------------------------------------------------------------- */

static tabi_status plan_scalar_tensor(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                     ref_factory *f) {
  tabi_status st = rs_check_layout(h, call, &args[2]);
  if (st != TABI_OK) return st;
  /* ATen: the default dtype (float32) whatever the Scalar's kind */
  return plan(h, call, "s", 0, NULL, NULL, rs_dtype_arg(&args[1], TABI_DTYPE_FLOAT32), rs_device_arg(&args[3], cpu),
              &args[0], "s", f);
}

static tabi_status plan_prims_scalar_tensor(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                           ref_factory *f) {
  tabi_dtype dt = rs_dtype_arg(&args[1], TABI_DTYPE_FLOAT32);
  if (args[0].tag == TABI_TAG_COMPLEX && !tabi_dtype_is_complex(dt))
    return REF_ERR(h, TABI_ERR_TYPE, "%s: argument 'dtype': Complex scalar requires complex tensor dtype, got %s",
                   OPN, tabi_dtype_name(dt));
  return plan(h, call, "s", 0, NULL, NULL, dt, rs_device_arg(&args[2], cpu), &args[0], "s", f);
}

/* --- the plans' table, and the reference's kernels over them ------------------------ */

typedef tabi_status (*plan_fn)(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                               ref_factory *f);
#define PLAN_ENTRY(name, id) plan_##id,
static const plan_fn plans[REF_FACTORY_COUNT] = {REF_FACTORY_OPS(PLAN_ENTRY)};
#undef PLAN_ENTRY

tabi_status ref_factory_plan(const tabi_host_api *h, const tabi_call *call, int which, const tabi_value *args,
                             ref_factory *out) {
  if (which < 0 || which >= REF_FACTORY_COUNT)
    return REF_ERR(h, TABI_ERR_INTERNAL, "%s: no factory plan %d", OPN, which);
  return plans[which](h, call, args, out);
}

void ref_factory_value_bytes(tabi_dtype d, const tabi_value *v, unsigned char out[16]) {
  memset(out, 0, 16);
  rs_store_scalar_ptr(out, d, v);
}

/* The reference's way: a host tensor, filled on the host, handed to the
 * device (rs_to_device). */
tabi_status ref_factory_build_host(const tabi_host_api *h, const ref_factory *f, tabi_value *out) {
  tabi_tensor *t = NULL;
  tabi_status st = rs_empty_host(h, f->dtype, f->ndim, f->shape, f->strides, &t);
  if (st != TABI_OK) return st;
  if (f->value) rs_fill(t, f->value);
  st = rs_to_device(h, f->device, &t);
  if (st != TABI_OK) return st;
  *out = tabi_tensor_value(t);
  return TABI_OK;
}

#define FACTORY_KERNEL(name, id)                                                                     \
  static tabi_status k_##id(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) { \
    ref_factory f;                                                                                   \
    tabi_status st = plan_##id(ctx, call, args, &f);                                                 \
    return st != TABI_OK ? st : ref_factory_build_host(ctx, &f, &outs[0]);                                 \
  }
REF_FACTORY_OPS(FACTORY_KERNEL)
#undef FACTORY_KERNEL

/* --- arange ---------------------------------------------------------------------- */

/* ATen's arange.start_step (RangeFactories.cpp):
 *  - no dtype: int64 when start, end and step are all integral (bools count),
 *    else the default float32;
 *  - start/end/step are converted (checked) to the accumulate type: int64 for
 *    integer dtypes, float for float16/bfloat16, double for float32/float64;
 *  - size = ceil((end - start) / step) in double; for int64 the difference is
 *    taken in int64 first (exact), for every other dtype in double;
 *  - errors: step 0, non-finite bounds, bounds against the step's sign, a size
 *    outside [0, INT64_MAX];
 *  - element i = start + step * i in the accumulate type, rounded once. */
static tabi_status k_arange(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_value *sv = &args[0], *ev = &args[1], *pv = &args[2];
  static const char *names[3] = {"start", "end", "step"};
  tabi_status st = rs_check_layout(h, call, &args[4]);
  if (st != TABI_OK) return st;
  int integral = 1;
  for (int k = 0; k < 3; k++) {
    const tabi_value *v = &args[k];
    if (v->tag == TABI_TAG_COMPLEX && v->u.c[1] != 0)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                     "%s: argument '%s': value cannot be converted to type double without overflow",
                     OPN, names[k]);
    if (v->tag != TABI_TAG_INT && v->tag != TABI_TAG_BOOL) integral = 0;
  }
  tabi_dtype dt = rs_dtype_arg(&args[3], integral ? TABI_DTYPE_INT64 : TABI_DTYPE_FLOAT32);
  st = ref_check_dtype(h, call, "dtype", dt, REF_DTS_INT | REF_DTS_FLOAT);
  if (st != TABI_OK) return st;
  int is_int = tabi_dtype_is_integral(dt, 0);
  tabi_dtype acc = is_int ? TABI_DTYPE_INT64
                          : (dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16) ? TABI_DTYPE_FLOAT32
                                                                                    : TABI_DTYPE_FLOAT64;
  for (int k = 0; k < 3; k++) {
    st = rs_check_scalar(h, call, names[k], &args[k], acc);
    if (st != TABI_OK) return st;
  }
  double size_d, fstart = 0, fstep = 0;
  int64_t istart = 0, istep = 0;
  int nonzero, finite, consistent;
  if (is_int) {
    istart = ref_scalar_i(sv);
    int64_t iend = ref_scalar_i(ev);
    istep = ref_scalar_i(pv);
    nonzero = istep != 0;
    finite = 1;
    consistent = (istep > 0 && iend >= istart) || (istep < 0 && iend <= istart);
    if (dt == TABI_DTYPE_INT64)
      size_d = ceil((double)ref_wrap_sub(iend, istart) / (double)istep);
    else
      size_d = ceil((ref_scalar_f(ev) - ref_scalar_f(sv)) / ref_scalar_f(pv));
  } else {
    fstart = ref_scalar_f(sv);
    double fend = ref_scalar_f(ev);
    fstep = ref_scalar_f(pv);
    if (acc == TABI_DTYPE_FLOAT32) {
      fstart = (float)fstart;
      fend = (float)fend;
      fstep = (float)fstep;
    }
    nonzero = fstep > 0 || fstep < 0;
    finite = isfinite(fstart) && isfinite(fend);
    consistent = (fstep > 0 && fend >= fstart) || (fstep < 0 && fend <= fstart);
    size_d = ceil((ref_scalar_f(ev) - ref_scalar_f(sv)) / ref_scalar_f(pv));
  }
  if (!nonzero) return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'step': step must be nonzero", OPN);
  if (!finite)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'end': unsupported range: %g -> %g", OPN,
                   ref_scalar_f(sv), ref_scalar_f(ev));
  if (!consistent)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'step': upper bound and larger bound inconsistent with step sign", OPN);
  if (!(size_d >= 0 && size_d <= 9223372036854775807.0))
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: invalid size, possible overflow?", OPN);
  int64_t n = (int64_t)size_d;
  if (size_d >= 9223372036854775807.0) n = INT64_MAX; /* the host refuses a size this large */
  tabi_tensor *t = NULL;
  st = rs_empty_host(h, dt, 1, &n, (const int64_t[]){1}, &t);
  if (st != TABI_OK) return st;
  for (int64_t i = 0; i < n; i++) {
    if (is_int) ref_store_i(t, i, ref_wrap_add(istart, ref_wrap_mul(istep, i)));
    else if (acc == TABI_DTYPE_FLOAT32) ref_store_f(t, i, (float)((float)fstart + (float)fstep * (float)i));
    else ref_store_f(t, i, fstart + fstep * (double)i);
  }
  st = rs_to_device(h, rs_device_arg(&args[5], cpu), &t);
  if (st != TABI_OK) return st;
  outs[0] = tabi_tensor_value(t);
  return TABI_OK;
}

/* --- tensor -> Scalar --------------------------------------------------------------- */

static tabi_status k_item(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *s = args[0].u.t;
  int64_t n = tabi_tensor_numel(s);
  if (n != 1) {
    const tabi_op_info *info = h->op_info(h->ctx, call->op);
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument '%s': a Tensor with %lld elements cannot be converted to Scalar",
                   OPN, info && info->nargs > 0 ? info->args[0].name : "self", (long long)n);
  }
  tabi_tensor *src = s;
  if (s->dl.device.device_type != kDLCPU) {
    tabi_status st = h->tensor_empty(h->ctx, cpu, tabi_tensor_dtype(s), s->dl.ndim, s->dl.shape, &src);
    if (st == TABI_OK) st = h->tensor_copy(h->ctx, src, s);
    if (st != TABI_OK) {
      h->tensor_release(h->ctx, src);
      return st;
    }
  }
  tabi_dtype d = tabi_tensor_dtype(src);
  int64_t off = ref_offset_of(src, 0);
  if (d == TABI_DTYPE_BOOL) outs[0] = tabi_bool((int)ref_load_i(src, off));
  else if (tabi_dtype_is_integral(d, 0)) outs[0] = tabi_int(ref_load_i(src, off));
  else if (tabi_dtype_is_complex(d)) {
    ref_cplx c = ref_load_c(src, off);
    outs[0] = tabi_complex(creal(c), cimag(c));
  } else outs[0] = tabi_float(ref_load_f(src, off));
  if (src != s) h->tensor_release(h->ctx, src);
  return TABI_OK;
}

/* prims::maximum_value: the largest finite value (True for bool; for complex
 * dtypes, that of the component type), as torch._prims returns it. */
static tabi_status k_maximum_value(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  switch (args[0].u.dtype) {
    case TABI_DTYPE_BOOL: outs[0] = tabi_bool(1); break;
    case TABI_DTYPE_UINT8: outs[0] = tabi_int(255); break;
    case TABI_DTYPE_INT8: outs[0] = tabi_int(127); break;
    case TABI_DTYPE_INT16: outs[0] = tabi_int(32767); break;
    case TABI_DTYPE_INT32: outs[0] = tabi_int(INT32_MAX); break;
    case TABI_DTYPE_INT64: outs[0] = tabi_int(INT64_MAX); break;
    case TABI_DTYPE_FLOAT16: outs[0] = tabi_float(65504.0); break;
    case TABI_DTYPE_BFLOAT16: outs[0] = tabi_float(3.38953138925153547590470800371487866880e38); break;
    case TABI_DTYPE_FLOAT32: case TABI_DTYPE_COMPLEX64: outs[0] = tabi_float(FLT_MAX); break;
    case TABI_DTYPE_FLOAT64: case TABI_DTYPE_COMPLEX128: outs[0] = tabi_float(DBL_MAX); break;
    default: return ref_check_dtype(h, call, "dtype", args[0].u.dtype, REF_DTS_ALL);
  }
  return TABI_OK;
}

#define KERNEL_ENTRY(name, id) {name, k_##id},
const ref_kernel ref_create_kernels[] = {
    REF_FACTORY_OPS(KERNEL_ENTRY)
    {"aten::arange.start_step", k_arange},
    {"aten::_local_scalar_dense", k_item},
    {"prims::item", k_item},
    {"prims::maximum_value", k_maximum_value},
    {NULL, NULL},
};
