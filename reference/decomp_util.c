/* reference/decomp_util.c: the scope, prim wrappers and ATen elementwise rules
 * that decompositions are written with. See decomp.h. */
#include "decomp.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void dc_begin(dc_scope *s, void *ctx, const tabi_call *call, const tabi_value *args) {
  s->c = ctx;
  s->h = s->c->h;
  s->call = call;
  s->args = args;
  s->st = TABI_OK;
  s->n = 0;
}

void dc_end(dc_scope *s) {
  for (int32_t i = 0; i < s->n; i++) s->h->tensor_release(s->h->ctx, s->owned[i]);
  s->n = 0;
}

const char *dc_name(const dc_scope *s) {
  return ref_op_name(s->h, s->call);
}

tabi_tensor *dc_fail(dc_scope *s, tabi_status st, const char *fmt, ...) {
  if (s->st != TABI_OK) return NULL; /* keep the first error */
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  s->st = TABI_ERR(s->h, st, "%s: %s", dc_name(s), msg);
  return NULL;
}

tabi_status dc_error(dc_scope *s, tabi_status st, const char *fmt, ...) {
  if (s->st == TABI_OK) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    s->st = TABI_ERR(s->h, st, "%s: %s", dc_name(s), msg);
  }
  dc_end(s);
  return s->st;
}

tabi_status dc_abandon(dc_scope *s, tabi_status st) {
  if (s->st == TABI_OK) s->st = st;
  dc_end(s);
  return s->st;
}

tabi_tensor *dc_own(dc_scope *s, tabi_tensor *t) {
  if (!t) return NULL;
  if (s->n == DC_SCOPE_MAX) {
    s->h->tensor_release(s->h->ctx, t);
    return dc_fail(s, TABI_ERR_INTERNAL, "decomposition needs more than %d intermediates",
                   DC_SCOPE_MAX);
  }
  s->owned[s->n++] = t;
  return t;
}

static int aliases_arg(const dc_scope *s, const tabi_tensor *t) {
  uint64_t id = s->h->tensor_storage_id(s->h->ctx, t);
  for (int32_t i = 0; i < s->call->nargs; i++) {
    const tabi_value *a = &s->args[i];
    if (a->tag == TABI_TAG_TENSOR && a->u.t && s->h->tensor_storage_id(s->h->ctx, a->u.t) == id)
      return 1;
    if (a->tag == TABI_TAG_TENSOR_LIST)
      for (int64_t k = 0; k < a->u.list.len; k++) {
        const tabi_tensor *e = tabi_value_tensors(a)[k];
        if (e && s->h->tensor_storage_id(s->h->ctx, e) == id) return 1;
      }
  }
  return 0;
}

static tabi_status finish(dc_scope *s, tabi_value *outs, int32_t n, tabi_tensor *const *results,
                          int copy_aliases) {
  if (s->st == TABI_OK) {
    for (int32_t i = 0; i < n; i++)
      if (!results[i]) {
        dc_fail(s, TABI_ERR_INTERNAL, "decomposition produced no result %d", (int)i);
        break;
      }
  }
  tabi_tensor *fresh[8] = {0};
  if (s->st == TABI_OK) {
    for (int32_t i = 0; i < n && i < 8; i++)
      fresh[i] = copy_aliases && aliases_arg(s, results[i]) ? dc_copy(s, results[i]) : results[i];
  }
  if (s->st == TABI_OK) {
    for (int32_t i = 0; i < n && i < 8; i++) {
      s->h->tensor_retain(s->h->ctx, fresh[i]);
      outs[i] = tabi_tensor_value(fresh[i]);
    }
  }
  dc_end(s);
  return s->st;
}

tabi_status dc_finish(dc_scope *s, tabi_value *outs, int32_t i, tabi_tensor *result) {
  return finish(s, outs + i, 1, &result, 1);
}

tabi_status dc_finish_view(dc_scope *s, tabi_value *outs, int32_t i, tabi_tensor *result) {
  return finish(s, outs + i, 1, &result, 0);
}

tabi_status dc_finish_n(dc_scope *s, tabi_value *outs, int32_t n, tabi_tensor *const *results) {
  return finish(s, outs, n, results, 1);
}

tabi_tensor *dc_call(dc_scope *s, dc_op_id op, tabi_value *args, int32_t nargs) {
  if (s->st != TABI_OK) return NULL;
  for (int32_t i = 0; i < nargs; i++)
    if (args[i].tag == TABI_TAG_TENSOR && !args[i].u.t)
      return dc_fail(s, TABI_ERR_INTERNAL, "missing input");
  tabi_value out = tabi_none();
  tabi_status st = s->h->call(s->h->ctx, s->c->ops[op], args, nargs, &out, 1);
  if (st != TABI_OK) {
    s->st = st; /* the callee's message names the prim; keep it */
    return NULL;
  }
  if (out.tag != TABI_TAG_TENSOR) {
    s->h->value_release(s->h->ctx, &out);
    return dc_fail(s, TABI_ERR_INTERNAL, "expected a tensor result");
  }
  return dc_own(s, out.u.t);
}

tabi_tensor *dc_unary(dc_scope *s, dc_op_id op, tabi_tensor *a) {
  tabi_value args[1] = {tabi_tensor_value(a)};
  return a ? dc_call(s, op, args, 1) : NULL;
}

tabi_tensor *dc_binary(dc_scope *s, dc_op_id op, tabi_tensor *a, tabi_tensor *b) {
  tabi_value args[2] = {tabi_tensor_value(a), tabi_tensor_value(b)};
  return a && b ? dc_call(s, op, args, 2) : NULL;
}

tabi_tensor *dc_convert(dc_scope *s, tabi_tensor *a, tabi_dtype dtype) {
  if (!a) return NULL;
  if (tabi_tensor_dtype(a) == dtype) return a;
  tabi_value args[2] = {tabi_tensor_value(a), tabi_dtype_value(dtype)};
  return dc_call(s, DC_P_CONVERT, args, 2);
}

tabi_tensor *dc_copy(dc_scope *s, tabi_tensor *a) {
  if (!a) return NULL;
  tabi_value args[2] = {tabi_tensor_value(a), tabi_dtype_value(tabi_tensor_dtype(a))};
  return dc_call(s, DC_P_CONVERT, args, 2);
}

static int same_shape(const tabi_tensor *a, int32_t ndim, const int64_t *shape) {
  if (a->dl.ndim != ndim) return 0;
  for (int32_t i = 0; i < ndim; i++)
    if (a->dl.shape[i] != shape[i]) return 0;
  return 1;
}

tabi_tensor *dc_broadcast_to(dc_scope *s, tabi_tensor *a, int32_t ndim, const int64_t *shape) {
  if (!a) return NULL;
  if (same_shape(a, ndim, shape)) return a;
  if (a->dl.ndim > ndim || ndim > REF_MAX_DIMS)
    return dc_fail(s, TABI_ERR_SHAPE, "cannot broadcast %d dims to %d", (int)a->dl.ndim, (int)ndim);
  int64_t bdims[REF_MAX_DIMS];
  for (int32_t i = 0; i < a->dl.ndim; i++) bdims[i] = ndim - a->dl.ndim + i;
  tabi_value args[3] = {tabi_tensor_value(a), tabi_int_list(shape, ndim),
                        tabi_int_list(bdims, a->dl.ndim)};
  return dc_call(s, DC_P_BROADCAST_IN_DIM, args, 3);
}

tabi_tensor *dc_broadcast_like(dc_scope *s, tabi_tensor *a, const tabi_tensor *like) {
  return like ? dc_broadcast_to(s, a, like->dl.ndim, like->dl.shape) : NULL;
}

tabi_value dc_scalar_real(dc_scope *s, const tabi_value *value, tabi_dtype dtype) {
  if (value->tag != TABI_TAG_COMPLEX || tabi_dtype_is_complex(dtype)) return *value;
  if (value->u.c[1] != 0 && dtype != TABI_DTYPE_BOOL) { /* bool takes the real part, unchecked */
    dc_fail(s, TABI_ERR_INVALID_ARGUMENT, "value cannot be converted to type %s without overflow",
            tabi_dtype_name(dtype));
    return tabi_float(0);
  }
  return tabi_float(value->u.c[0]);
}

tabi_tensor *dc_scalar(dc_scope *s, const tabi_value *value, tabi_dtype dtype, DLDevice device) {
  /* prims::scalar_tensor refuses a complex Scalar for a real dtype (PyTorch's
     prims do); ATen's checked conversion takes one whose imaginary part is 0 */
  tabi_value v = dc_scalar_real(s, value, dtype);
  if (s->st != TABI_OK) return NULL;
  tabi_value args[3] = {v, tabi_dtype_value(dtype), tabi_device_value(device)};
  return dc_call(s, DC_P_SCALAR_TENSOR, args, 3);
}

tabi_tensor *dc_scalar_f(dc_scope *s, double value, tabi_dtype dtype, DLDevice device) {
  tabi_value v = tabi_float(value);
  return dc_scalar(s, &v, dtype, device);
}

tabi_tensor *dc_full(dc_scope *s, int32_t ndim, const int64_t *shape, const tabi_value *value,
                     tabi_dtype dtype, DLDevice device) {
  tabi_value args[5] = {tabi_int_list(shape, ndim), *value, tabi_dtype_value(dtype),
                        tabi_device_value(device), tabi_bool(0)};
  return dc_call(s, DC_P_FULL, args, 5);
}

tabi_tensor *dc_where(dc_scope *s, tabi_tensor *pred, tabi_tensor *a, tabi_tensor *b) {
  tabi_value args[3] = {tabi_tensor_value(pred), tabi_tensor_value(a), tabi_tensor_value(b)};
  return pred && a && b ? dc_call(s, DC_P_WHERE, args, 3) : NULL;
}

tabi_tensor *dc_reshape(dc_scope *s, tabi_tensor *a, int32_t ndim, const int64_t *shape) {
  if (!a) return NULL;
  if (same_shape(a, ndim, shape)) return a;
  tabi_value args[2] = {tabi_tensor_value(a), tabi_int_list(shape, ndim)};
  return dc_call(s, DC_P_RESHAPE, args, 2);
}

tabi_tensor *dc_as_strided(dc_scope *s, tabi_tensor *a, int32_t ndim, const int64_t *shape,
                           const int64_t *strides, int64_t storage_offset) {
  tabi_value args[4] = {tabi_tensor_value(a), tabi_int_list(shape, ndim),
                        tabi_int_list(strides, ndim), tabi_int(storage_offset)};
  return a ? dc_call(s, DC_P_AS_STRIDED, args, 4) : NULL;
}

int64_t dc_elem_offset(const tabi_tensor *t) {
  return (int64_t)t->dl.byte_offset / (t->dl.dtype.bits / 8);
}

tabi_tensor *dc_transpose(dc_scope *s, tabi_tensor *a, const int64_t *perm) {
  if (!a) return NULL;
  tabi_value args[2] = {tabi_tensor_value(a), tabi_int_list(perm, a->dl.ndim)};
  return dc_call(s, DC_P_TRANSPOSE, args, 2);
}

/* Re-inserts the reduced dims as size 1. */
static tabi_tensor *keep_dims(dc_scope *s, tabi_tensor *r, const tabi_tensor *a,
                              const int32_t *dims, int32_t ndims) {
  if (!r) return NULL;
  int64_t shape[REF_MAX_DIMS], bdims[REF_MAX_DIMS];
  int32_t k = 0;
  for (int32_t d = 0; d < a->dl.ndim; d++) {
    int reduced = 0;
    for (int32_t j = 0; j < ndims; j++) reduced |= dims[j] == d;
    shape[d] = reduced ? 1 : a->dl.shape[d];
    if (!reduced) bdims[k++] = d;
  }
  tabi_value args[3] = {tabi_tensor_value(r), tabi_int_list(shape, a->dl.ndim),
                        tabi_int_list(bdims, k)};
  return dc_call(s, DC_P_BROADCAST_IN_DIM, args, 3);
}

tabi_tensor *dc_reduce(dc_scope *s, dc_op_id op, tabi_tensor *a, const int32_t *dims, int32_t ndims,
                       int32_t keepdim, tabi_dtype output_dtype) {
  if (!a) return NULL;
  int64_t d64[REF_MAX_DIMS];
  for (int32_t i = 0; i < ndims; i++) d64[i] = dims[i];
  tabi_value args[3] = {tabi_tensor_value(a), tabi_int_list(d64, ndims),
                        output_dtype >= 0 ? tabi_dtype_value(output_dtype) : tabi_none()};
  tabi_tensor *r = dc_call(s, op, args, 3);
  return keepdim ? keep_dims(s, r, a, dims, ndims) : r;
}

tabi_tensor *dc_var(dc_scope *s, tabi_tensor *a, const int32_t *dims, int32_t ndims,
                    int32_t keepdim, int64_t correction) {
  if (!a) return NULL;
  int64_t d64[REF_MAX_DIMS];
  for (int32_t i = 0; i < ndims; i++) d64[i] = dims[i];
  tabi_value args[4] = {tabi_tensor_value(a), tabi_int_list(d64, ndims), tabi_int(correction),
                        tabi_none()};
  tabi_tensor *r = dc_call(s, DC_P_VAR, args, 4);
  return keepdim ? keep_dims(s, r, a, dims, ndims) : r;
}

/* --- ATen elementwise semantics ---------------------------------------------- */

tabi_dtype dc_result_type(int32_t n, const dc_operand *ops) {
  ref_result_type rt;
  ref_rt_init(&rt);
  for (int32_t i = 0; i < n; i++) {
    if (ops[i].t)
      ref_rt_tensor(&rt, ops[i].t);
    else
      ref_rt_scalar(&rt, &ops[i].scalar);
  }
  return ref_rt_result(&rt);
}

static tabi_dtype real_of(tabi_dtype d) {
  if (d == TABI_DTYPE_COMPLEX64) return TABI_DTYPE_FLOAT32;
  if (d == TABI_DTYPE_COMPLEX128) return TABI_DTYPE_FLOAT64;
  return d;
}

/* Half types compute in float32, as ATen's kernels do (opmath). */
static tabi_dtype opmath(tabi_dtype d) {
  return d == TABI_DTYPE_FLOAT16 || d == TABI_DTYPE_BFLOAT16 ? TABI_DTYPE_FLOAT32 : d;
}

void dc_promote(int32_t n, const dc_operand *ops, int32_t kind, tabi_dtype *out_result,
                tabi_dtype *out_compute) {
  tabi_dtype p = dc_result_type(n, ops);
  switch (kind) {
    case DC_PROMOTE_INT_TO_FLOAT:
      if (tabi_dtype_is_integral(p, 1)) p = TABI_DTYPE_FLOAT32;
      *out_result = p;
      *out_compute = opmath(p);
      break;
    case DC_PROMOTE_ALWAYS_BOOL:
      *out_result = TABI_DTYPE_BOOL;
      *out_compute = p;
      break;
    case DC_PROMOTE_COMPLEX_TO_FLOAT:
      *out_result = real_of(p);
      *out_compute = opmath(p);
      break;
    case DC_PROMOTE_NONE:
      *out_result = *out_compute = ops[0].t ? tabi_tensor_dtype(ops[0].t) : p;
      break;
    default:
      *out_result = p;
      *out_compute = opmath(p);
      break;
  }
}

DLDevice dc_device(int32_t n, const dc_operand *ops) {
  DLDevice cpu = {kDLCPU, 0};
  /* a dimensioned tensor decides; a 0-d CPU tensor goes where the others are */
  for (int32_t i = 0; i < n; i++)
    if (ops[i].t && (ops[i].t->dl.ndim > 0 || ops[i].t->dl.device.device_type != kDLCPU))
      return ops[i].t->dl.device;
  for (int32_t i = 0; i < n; i++)
    if (ops[i].t) return ops[i].t->dl.device;
  return cpu;
}

int dc_check_dtype(dc_scope *s, const char *arg, tabi_dtype dtype, uint32_t allowed) {
  if (s->st != TABI_OK) return 0;
  tabi_status st = ref_check_dtype(s->h, s->call, arg, dtype, allowed);
  if (st != TABI_OK) s->st = st;
  return st == TABI_OK;
}

int dc_prepare(dc_scope *s, int32_t n, const dc_operand *ops, tabi_dtype compute,
               tabi_tensor **out) {
  return dc_prepare_as(s, n, ops, compute, compute, out);
}

int dc_prepare_as(dc_scope *s, int32_t n, const dc_operand *ops, tabi_dtype result,
                  tabi_dtype compute, tabi_tensor **out) {
  if (s->st != TABI_OK) return 0;
  const tabi_tensor *ts[REF_MAX_OPERANDS] = {0};
  int32_t nt = 0;
  for (int32_t i = 0; i < n; i++)
    if (ops[i].t) ts[nt++] = ops[i].t;
  int32_t ndim = 0;
  int64_t shape[REF_MAX_DIMS];
  tabi_status st = ref_broadcast_shape(s->h, s->call, nt, ts, &ndim, shape);
  if (st != TABI_OK) {
    s->st = st;
    return 0;
  }
  DLDevice dev = dc_device(n, ops);
  /* a Python scalar is made in the widest dtype of compute's kind, then
     converted like the tensors: 70000 is float16's inf, not an overflow, and
     2^63 - 1 is int8's -1 (ATen wraps a wrapped number as it casts) */
  tabi_dtype wide = tabi_dtype_is_complex(compute)    ? TABI_DTYPE_COMPLEX128
                    : tabi_dtype_is_floating(compute) ? TABI_DTYPE_FLOAT64
                    : compute != TABI_DTYPE_BOOL      ? TABI_DTYPE_INT64
                                                      : compute;
  for (int32_t i = 0; i < n; i++) {
    tabi_tensor *t = ops[i].t ? ops[i].t : dc_scalar(s, &ops[i].scalar, wide, dev);
    if (t &&
        (t->dl.device.device_type != dev.device_type || t->dl.device.device_id != dev.device_id)) {
      tabi_value args[2] = {tabi_tensor_value(t), tabi_device_value(dev)};
      t = dc_call(s, DC_P_DEVICE_PUT, args, 2);
    }
    /* an operand of another dtype is rounded to the result dtype first, a
       Python scalar too: ATen's CPU kernels cast a wrapped number to the
       common dtype (float16 * 2^63 is float16 * inf, NaN at 0) */
    if (result != compute || !ops[i].t) t = dc_convert(s, t, result);
    out[i] = dc_broadcast_to(s, dc_convert(s, t, compute), ndim, shape);
  }
  return s->st == TABI_OK;
}

tabi_tensor *dc_ew_unary(dc_scope *s, dc_op_id op, int32_t kind, tabi_tensor *a) {
  if (!a) return NULL;
  dc_operand o = dc_t(a);
  tabi_dtype result, compute;
  dc_promote(1, &o, kind, &result, &compute);
  tabi_tensor *x;
  if (!dc_prepare_as(s, 1, &o, kind == DC_PROMOTE_DEFAULT ? result : compute, compute, &x))
    return NULL;
  return dc_convert(s, dc_unary(s, op, x), result);
}

tabi_tensor *dc_ew_binary(dc_scope *s, dc_op_id op, int32_t kind, dc_operand a, dc_operand b) {
  if (s->st != TABI_OK) return NULL;
  dc_operand o[2] = {a, b};
  tabi_dtype result, compute;
  dc_promote(2, o, kind, &result, &compute);
  tabi_tensor *x[2];
  /* operands round to the result dtype (float16 / 2^40 is float16 / inf);
     a comparison's result is bool, so they round to the common dtype */
  tabi_dtype round_to = kind == DC_PROMOTE_ALWAYS_BOOL ? compute : result;
  if (!dc_prepare_as(s, 2, o, round_to, compute, x)) return NULL;
  return dc_convert(s, dc_binary(s, op, x[0], x[1]), result);
}
