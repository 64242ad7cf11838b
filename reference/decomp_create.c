/* reference/decomp_create.c: copies (clone, _to_copy, copy), factories (fill,
 * full, full_like, empty, empty_strided, scalar_tensor) and the random
 * factories (rand, randn) as prims. Layout and memory format follow the
 * reference's rules (ref_shape_util.c): the same refusals, the same strides.
 */
#include "decomp.h"
#include "ref_shape_util.h"

#define KERNEL(name) \
  static tabi_status name(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs)

/* A Layout argument: None or strided, else the reference's refusal. */
static int layout_ok(dc_scope *s, const tabi_value *v) {
  tabi_status st = rs_check_layout(s->h, s->call, v);
  if (st != TABI_OK) s->st = st;
  return st == TABI_OK;
}

/* New storage holding x (already of the result's dtype and device), with the
 * strides memory format fmt gives a tensor like `like` (ATen's empty_like:
 * preserve keeps a dense layout, channels_last needs rank 4). */
static tabi_tensor *laid_out(dc_scope *s, tabi_tensor *x, const tabi_tensor *like, int64_t fmt) {
  if (!x) return NULL;
  if (like->dl.ndim > REF_MAX_DIMS) return dc_fail(s, TABI_ERR_SHAPE, "rank %d is too large", (int)like->dl.ndim);
  int64_t strides[REF_MAX_DIMS];
  tabi_status st = rs_like_strides(s->h, s->call, like, fmt, strides);
  if (st != TABI_OK) {
    s->st = st;
    return NULL;
  }
  tabi_value a[5] = {tabi_int_list(x->dl.shape, x->dl.ndim), tabi_int_list(strides, x->dl.ndim),
                     tabi_dtype_value(tabi_tensor_dtype(x)), tabi_device_value(x->dl.device), tabi_bool(0)};
  tabi_tensor *out = dc_call(s, DC_P_EMPTY_STRIDED, a, 5);
  tabi_value b[2] = {tabi_tensor_value(out), tabi_tensor_value(x)};
  if (out && !dc_call(s, DC_P_COPY_TO, b, 2)) return NULL;
  return out;
}

KERNEL(d_clone) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  return dc_finish(&s, outs, 0, laid_out(&s, x, x, rs_memfmt_arg(&args[1], RS_MF_PRESERVE)));
}

static tabi_tensor *put(dc_scope *s, tabi_tensor *x, DLDevice dev) {
  if (!x ||
      (x->dl.device.device_type == dev.device_type && x->dl.device.device_id == dev.device_id))
    return x;
  tabi_value a[2] = {tabi_tensor_value(x), tabi_device_value(dev)};
  return dc_call(s, DC_P_DEVICE_PUT, a, 2);
}

KERNEL(d_to_copy) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  tabi_dtype dt = args[1].tag == TABI_TAG_DTYPE ? args[1].u.dtype : tabi_tensor_dtype(x);
  DLDevice dev = args[3].tag == TABI_TAG_DEVICE ? args[3].u.device : x->dl.device;
  if (!layout_ok(&s, &args[2])) return dc_abandon(&s, s.st);
  tabi_tensor *y = put(&s, dc_convert(&s, x, dt), dev);
  return dc_finish(&s, outs, 0, laid_out(&s, y, x, rs_memfmt_arg(&args[6], RS_MF_PRESERVE)));
}

KERNEL(d_copy) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *self = args[0].u.t, *src = args[1].u.t;
  tabi_tensor *r = put(&s, dc_convert(&s, src, tabi_tensor_dtype(self)), self->dl.device);
  return dc_finish(&s, outs, 0, dc_broadcast_like(&s, r, self));
}

KERNEL(d_fill) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  return dc_finish(
      &s, outs, 0,
      dc_full(&s, x->dl.ndim, x->dl.shape, &args[1], tabi_tensor_dtype(x), x->dl.device));
}

/* The dtype a fill value gives when none is named: bool, int64, the default
 * float32, or complex64. */
static tabi_dtype infer_dtype(const tabi_value *v) {
  switch (v->tag) {
    case TABI_TAG_BOOL:
      return TABI_DTYPE_BOOL;
    case TABI_TAG_INT:
      return TABI_DTYPE_INT64;
    case TABI_TAG_COMPLEX:
      return TABI_DTYPE_COMPLEX64;
    default:
      return TABI_DTYPE_FLOAT32;
  }
}

static DLDevice device_arg(const tabi_value *v, DLDevice dflt) {
  return v->tag == TABI_TAG_DEVICE ? v->u.device : dflt;
}

static const DLDevice cpu0 = {kDLCPU, 0};

KERNEL(d_full) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_dtype dt = args[2].tag == TABI_TAG_DTYPE ? args[2].u.dtype : infer_dtype(&args[1]);
  if (!layout_ok(&s, &args[3])) return dc_abandon(&s, s.st);
  return dc_finish(&s, outs, 0,
                   dc_full(&s, (int32_t)args[0].u.list.len, tabi_value_ints(&args[0]), &args[1], dt,
                           device_arg(&args[4], cpu0)));
}

KERNEL(d_full_like) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  tabi_dtype dt = args[2].tag == TABI_TAG_DTYPE ? args[2].u.dtype : tabi_tensor_dtype(x);
  if (!layout_ok(&s, &args[3])) return dc_abandon(&s, s.st);
  tabi_tensor *f = dc_full(&s, x->dl.ndim, x->dl.shape, &args[1], dt, device_arg(&args[4], x->dl.device));
  return dc_finish(&s, outs, 0, laid_out(&s, f, x, rs_memfmt_arg(&args[6], RS_MF_PRESERVE)));
}

KERNEL(d_empty) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_dtype dt = args[1].tag == TABI_TAG_DTYPE ? args[1].u.dtype : TABI_DTYPE_FLOAT32;
  if (!layout_ok(&s, &args[2])) return dc_abandon(&s, s.st);
  int64_t fmt = rs_memfmt_arg(&args[5], RS_MF_CONTIGUOUS), nd = args[0].u.list.len;
  if (fmt != RS_MF_CONTIGUOUS) { /* empty_strided with the format's strides */
    int64_t strides[REF_MAX_DIMS];
    if (nd > REF_MAX_DIMS) return dc_error(&s, TABI_ERR_SHAPE, "rank %lld is too large", (long long)nd);
    tabi_status st = rs_memfmt_strides(s.h, s.call, fmt, (int32_t)nd, tabi_value_ints(&args[0]), strides);
    if (st != TABI_OK) return dc_abandon(&s, st);
    tabi_value a[5] = {args[0], tabi_int_list(strides, nd), tabi_dtype_value(dt),
                       tabi_device_value(device_arg(&args[3], cpu0)), tabi_bool(0)};
    return dc_finish(&s, outs, 0, dc_call(&s, DC_P_EMPTY_STRIDED, a, 5));
  }
  tabi_value a[4] = {args[0], tabi_dtype_value(dt), tabi_device_value(device_arg(&args[3], cpu0)),
                     tabi_bool(0)};
  return dc_finish(&s, outs, 0, dc_call(&s, DC_P_EMPTY, a, 4));
}

KERNEL(d_empty_strided) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_dtype dt = args[2].tag == TABI_TAG_DTYPE ? args[2].u.dtype : TABI_DTYPE_FLOAT32;
  if (!layout_ok(&s, &args[3])) return dc_abandon(&s, s.st);
  tabi_value a[5] = {args[0], args[1], tabi_dtype_value(dt),
                     tabi_device_value(device_arg(&args[4], cpu0)), tabi_bool(0)};
  return dc_finish(&s, outs, 0, dc_call(&s, DC_P_EMPTY_STRIDED, a, 5));
}

KERNEL(d_scalar_tensor) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_dtype dt = args[1].tag == TABI_TAG_DTYPE ? args[1].u.dtype : TABI_DTYPE_FLOAT32;
  if (!layout_ok(&s, &args[2])) return dc_abandon(&s, s.st);
  return dc_finish(&s, outs, 0, dc_scalar(&s, &args[0], dt, device_arg(&args[3], cpu0)));
}

KERNEL(d_local_scalar_dense) {
  const dc_ctx *c = ctx;
  return c->h->call(c->h->ctx, c->ops[DC_P_ITEM], args, 1, outs, 1);
}

KERNEL(d_rand) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_dtype dt = args[1].tag == TABI_TAG_DTYPE ? args[1].u.dtype : TABI_DTYPE_FLOAT32;
  if (!layout_ok(&s, &args[2])) return dc_abandon(&s, s.st);
  tabi_value a[5] = {args[0], tabi_float(0.0), tabi_float(1.0), tabi_dtype_value(dt),
                     tabi_device_value(device_arg(&args[3], cpu0))};
  return dc_finish(&s, outs, 0, dc_call(&s, DC_P_UNIFORM, a, 5));
}

KERNEL(d_randn) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_dtype dt = args[1].tag == TABI_TAG_DTYPE ? args[1].u.dtype : TABI_DTYPE_FLOAT32;
  if (!layout_ok(&s, &args[2])) return dc_abandon(&s, s.st);
  tabi_value a[6] = {args[0],
                     tabi_float(0.0),
                     tabi_float(1.0),
                     tabi_dtype_value(dt),
                     tabi_device_value(device_arg(&args[3], cpu0)),
                     tabi_bool(0)};
  return dc_finish(&s, outs, 0, dc_call(&s, DC_P_NORMAL, a, 6));
}

const dc_kernel dc_create_kernels[] = {
    {"aten::clone", d_clone},
    {"aten::_to_copy", d_to_copy},
    {"aten::copy", d_copy},
    {"aten::fill.Scalar", d_fill},
    {"aten::full", d_full},
    {"aten::full_like", d_full_like},
    {"aten::empty.memory_format", d_empty},
    {"aten::empty_strided", d_empty_strided},
    {"aten::scalar_tensor", d_scalar_tensor},
    {"aten::_local_scalar_dense", d_local_scalar_dense},
    {"aten::rand", d_rand},
    {"aten::randn", d_randn},
    {NULL, NULL}};
