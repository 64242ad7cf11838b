/* tests/mutants/mutant.c: the correct helpers every mutant is built from. */
#include <math.h>
#include <string.h>

#include "mutant.h"

double mut_get(const tabi_tensor *t, int64_t off) {
  const char *p = (const char *)tabi_tensor_data(t);
  switch (tabi_tensor_dtype(t)) {
    case TABI_DTYPE_BOOL: return ((const uint8_t *)p)[off] != 0;
    case TABI_DTYPE_UINT8: return ((const uint8_t *)p)[off];
    case TABI_DTYPE_INT8: return ((const int8_t *)p)[off];
    case TABI_DTYPE_INT16: return ((const int16_t *)p)[off];
    case TABI_DTYPE_INT32: return ((const int32_t *)p)[off];
    case TABI_DTYPE_INT64: return (double)((const int64_t *)p)[off];
    case TABI_DTYPE_FLOAT16: return tabi_f16_to_f32(((const uint16_t *)p)[off]);
    case TABI_DTYPE_BFLOAT16: return tabi_bf16_to_f32(((const uint16_t *)p)[off]);
    case TABI_DTYPE_FLOAT32: return ((const float *)p)[off];
    case TABI_DTYPE_FLOAT64: return ((const double *)p)[off];
    default: return 0.0;
  }
}

int64_t mut_get_i(const tabi_tensor *t, int64_t off) {
  if (tabi_tensor_dtype(t) == TABI_DTYPE_INT64)
    return ((const int64_t *)tabi_tensor_data(t))[off];
  return (int64_t)mut_get(t, off);
}

void mut_set(tabi_tensor *t, int64_t off, double v) {
  char *p = (char *)tabi_tensor_data(t);
  switch (tabi_tensor_dtype(t)) {
    case TABI_DTYPE_BOOL: ((uint8_t *)p)[off] = v != 0; break;
    case TABI_DTYPE_UINT8: ((uint8_t *)p)[off] = (uint8_t)(int64_t)v; break;
    case TABI_DTYPE_INT8: ((int8_t *)p)[off] = (int8_t)(int64_t)v; break;
    case TABI_DTYPE_INT16: ((int16_t *)p)[off] = (int16_t)(int64_t)v; break;
    case TABI_DTYPE_INT32: ((int32_t *)p)[off] = (int32_t)(int64_t)v; break;
    case TABI_DTYPE_INT64: ((int64_t *)p)[off] = (int64_t)v; break;
    case TABI_DTYPE_FLOAT16: ((uint16_t *)p)[off] = tabi_f32_to_f16((float)v); break;
    case TABI_DTYPE_BFLOAT16: ((uint16_t *)p)[off] = tabi_f32_to_bf16((float)v); break;
    case TABI_DTYPE_FLOAT32: ((float *)p)[off] = (float)v; break;
    case TABI_DTYPE_FLOAT64: ((double *)p)[off] = v; break;
    default: break;
  }
}

void mut_set_i(tabi_tensor *t, int64_t off, int64_t v) {
  char *p = (char *)tabi_tensor_data(t);
  switch (tabi_tensor_dtype(t)) {
    case TABI_DTYPE_BOOL: ((uint8_t *)p)[off] = v != 0; break;
    case TABI_DTYPE_UINT8: ((uint8_t *)p)[off] = (uint8_t)v; break;
    case TABI_DTYPE_INT8: ((int8_t *)p)[off] = (int8_t)v; break;
    case TABI_DTYPE_INT16: ((int16_t *)p)[off] = (int16_t)v; break;
    case TABI_DTYPE_INT32: ((int32_t *)p)[off] = (int32_t)v; break;
    case TABI_DTYPE_INT64: ((int64_t *)p)[off] = v; break;
    default: mut_set(t, off, (double)v); break;
  }
}

int64_t mut_offset(const tabi_tensor *t, int32_t ndim, const int64_t *shape, int64_t linear) {
  int64_t off = 0;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    int64_t size = shape[d] > 0 ? shape[d] : 1;
    int64_t i = linear % size;
    linear /= size;
    int32_t td = d - (ndim - t->dl.ndim);
    if (td < 0) continue;
    if (t->dl.shape[td] != 1) off += i * t->dl.strides[td];
  }
  return off;
}

tabi_status mut_broadcast(const tabi_host_api *h, const char *op, const tabi_tensor *a,
                          const tabi_tensor *b, int32_t *out_ndim, int64_t *out_shape) {
  int32_t n = a->dl.ndim > b->dl.ndim ? a->dl.ndim : b->dl.ndim;
  if (n > MUT_MAX_DIMS) return TABI_ERR(h, TABI_ERR_SHAPE, "%s: too many dims", op);
  for (int32_t i = 0; i < n; i++) {
    int32_t ia = i - (n - a->dl.ndim), ib = i - (n - b->dl.ndim);
    int64_t x = ia >= 0 ? a->dl.shape[ia] : 1, y = ib >= 0 ? b->dl.shape[ib] : 1;
    if (x != y && x != 1 && y != 1)
      return TABI_ERR(h, TABI_ERR_SHAPE, "%s: shapes do not broadcast at dim %d (%lld vs %lld)",
                      op, (int)i, (long long)x, (long long)y);
    out_shape[i] = x == 1 ? y : x;
  }
  *out_ndim = n;
  return TABI_OK;
}

static int category(tabi_dtype d) {
  if (d == TABI_DTYPE_BOOL) return 0;
  if (tabi_dtype_is_integral(d, 0)) return 1;
  if (tabi_dtype_is_floating(d)) return 2;
  return 3;
}

static tabi_dtype promote(tabi_dtype a, tabi_dtype b) {
  if (a == TABI_DTYPE_INVALID) return b;
  if (b == TABI_DTYPE_INVALID || a == b) return a;
  int ca = category(a), cb = category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 1) {
    if (a == TABI_DTYPE_UINT8 || b == TABI_DTYPE_UINT8) {
      tabi_dtype s = a == TABI_DTYPE_UINT8 ? b : a;
      return s == TABI_DTYPE_INT8 ? TABI_DTYPE_INT16 : s;
    }
    return tabi_dtype_size(a) >= tabi_dtype_size(b) ? a : b;
  }
  if (ca == 2) {
    if (tabi_dtype_size(a) == 2 && tabi_dtype_size(b) == 2) return TABI_DTYPE_FLOAT32;
    return tabi_dtype_size(a) >= tabi_dtype_size(b) ? a : b;
  }
  return TABI_DTYPE_INVALID;
}

/* ATen's combine_categories for the real dtypes. */
static tabi_dtype combine(tabi_dtype higher, tabi_dtype lower) {
  if (higher != TABI_DTYPE_INVALID && tabi_dtype_is_floating(higher)) return higher;
  if (higher == TABI_DTYPE_BOOL || (lower != TABI_DTYPE_INVALID && tabi_dtype_is_floating(lower)))
    return promote(higher, lower);
  return higher != TABI_DTYPE_INVALID ? higher : lower;
}

tabi_dtype mut_result_type(const tabi_tensor *a, const tabi_tensor *b, const tabi_value *scalar) {
  tabi_dtype dim = TABI_DTYPE_INVALID, zero = TABI_DTYPE_INVALID, wrapped = TABI_DTYPE_INVALID;
  const tabi_tensor *ts[2] = {a, b};
  for (int i = 0; i < 2; i++) {
    if (!ts[i]) continue;
    tabi_dtype d = tabi_tensor_dtype(ts[i]);
    if (category(d) == 3) return TABI_DTYPE_INVALID;
    if (ts[i]->dl.ndim == 0) zero = promote(zero, d);
    else dim = promote(dim, d);
  }
  if (scalar) {
    switch (scalar->tag) {
      case TABI_TAG_BOOL: wrapped = TABI_DTYPE_BOOL; break;
      case TABI_TAG_INT: wrapped = TABI_DTYPE_INT64; break;
      case TABI_TAG_FLOAT: wrapped = TABI_DTYPE_FLOAT32; break;
      default: return TABI_DTYPE_INVALID;
    }
  }
  return combine(dim, combine(zero, wrapped));
}

tabi_status mut_check_real(const tabi_host_api *h, const char *op, const char *arg, tabi_dtype d) {
  if (d == TABI_DTYPE_INVALID || category(d) == 3)
    return TABI_ERR(h, TABI_ERR_TYPE, "%s: argument '%s' has dtype %s; this plugin supports the "
                    "real dtypes only", op, arg, tabi_dtype_name(d));
  return TABI_OK;
}

tabi_status mut_empty(const tabi_host_api *h, tabi_dtype d, int32_t ndim, const int64_t *shape,
                      tabi_tensor **out) {
  DLDevice cpu = {kDLCPU, 0};
  return h->tensor_empty(h->ctx, cpu, d, ndim, shape, out);
}

/* Whether a finite Scalar fits dtype d (ATen refuses a Scalar that overflows
 * the dtype it is cast to; infinities and NaN may go to a floating dtype). */
static int scalar_fits(const tabi_value *v, tabi_dtype d) {
  double x = tabi_value_as_double(v);
  switch (d) {
    case TABI_DTYPE_FLOAT16: return !isfinite(x) || fabs(x) <= 65504.0;
    case TABI_DTYPE_BFLOAT16: return !isfinite(x) || fabs(x) <= 3.3895313892515355e38;
    case TABI_DTYPE_FLOAT32: return !isfinite(x) || fabs(x) <= 3.4028234663852886e38;
    case TABI_DTYPE_FLOAT64: case TABI_DTYPE_BOOL: return 1;
    default: {
      if (v->tag != TABI_TAG_INT) return 1;
      int64_t i = v->u.i, bits = 8 * tabi_dtype_size(d);
      /* c10 lets a negative value into an unsigned type down to -max (it wraps) */
      if (d == TABI_DTYPE_UINT8) return i >= -255 && i <= 255;
      return bits >= 64 || (i >= -((int64_t)1 << (bits - 1)) && i < ((int64_t)1 << (bits - 1)));
    }
  }
}

tabi_status mut_check_alpha(const tabi_host_api *h, const char *op, const tabi_value *alpha, tabi_dtype rt) {
  if (!tabi_dtype_is_floating(rt) && alpha->tag == TABI_TAG_FLOAT)
    return TABI_ERR(h, TABI_ERR_TYPE, "%s: a float alpha needs a floating result", op);
  if (rt != TABI_DTYPE_BOOL && alpha->tag == TABI_TAG_BOOL)
    return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: a bool alpha needs a bool result", op);
  if (alpha->tag == TABI_TAG_COMPLEX)
    return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: a complex alpha needs a complex result", op);
  if (!scalar_fits(alpha, rt))
    return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'alpha' overflows %s", op, tabi_dtype_name(rt));
  return TABI_OK;
}

/* v as the floating dtype d holds it: operands are cast to the result dtype
 * before the op, as ATen's TensorIterator casts them (a float16 product of
 * an int64 2^40 is with inf). */
static double round_to(double v, tabi_dtype d) {
  switch (d) {
    case TABI_DTYPE_FLOAT16: return tabi_f16_to_f32(tabi_f32_to_f16((float)v));
    case TABI_DTYPE_BFLOAT16: return tabi_bf16_to_f32(tabi_f32_to_bf16((float)v));
    case TABI_DTYPE_FLOAT32: return (float)v;
    default: return v;
  }
}

/* An integer operand cast to the integral result dtype rt first (an int8 -1
 * is 255 in a uint8 result), as ATen casts it. */
static int64_t int_operand(const tabi_tensor *t, int64_t off, tabi_dtype rt) {
  int64_t v = mut_get_i(t, off);
  switch (rt) {
    case TABI_DTYPE_BOOL: return v != 0;
    case TABI_DTYPE_UINT8: return (uint8_t)v;
    case TABI_DTYPE_INT8: return (int8_t)v;
    case TABI_DTYPE_INT16: return (int16_t)v;
    case TABI_DTYPE_INT32: return (int32_t)v;
    default: return v;
  }
}

static double operand(const tabi_tensor *t, int64_t off, tabi_dtype rt) {
  if (tabi_tensor_dtype(t) == TABI_DTYPE_INT64 && rt != TABI_DTYPE_FLOAT64)
    return round_to((double)(float)mut_get_i(t, off), rt); /* one rounding, as static_cast<float> */
  return round_to(mut_get(t, off), rt);
}

tabi_status mut_binary(const tabi_host_api *h, const char *op, tabi_value *args, int has_alpha,
                       mut_binary_fn fn, mut_binary_ifn ifn, tabi_value *outs) {
  tabi_tensor *a = args[0].u.t;
  tabi_tensor *b = args[1].tag == TABI_TAG_TENSOR ? args[1].u.t : NULL;
  const tabi_value *sc = b ? NULL : &args[1];
  tabi_dtype rt = mut_result_type(a, b, sc);
  tabi_status st = mut_check_real(h, op, "self", rt);
  if (st != TABI_OK) return st;
  if (has_alpha && (st = mut_check_alpha(h, op, &args[2], rt)) != TABI_OK) return st;
  int32_t nd = a->dl.ndim;
  int64_t shape[MUT_MAX_DIMS];
  if (b) {
    st = mut_broadcast(h, op, a, b, &nd, shape);
    if (st != TABI_OK) return st;
  } else {
    memcpy(shape, a->dl.shape, sizeof(int64_t) * (size_t)nd);
  }
  tabi_tensor *out;
  st = mut_empty(h, rt, nd, shape, &out);
  if (st != TABI_OK) return st;
  int64_t n = tabi_tensor_numel(out);
  int integral = !tabi_dtype_is_floating(rt);
  double alpha = has_alpha ? tabi_value_as_double(&args[2]) : 1.0;
  /* an integral result has an int (or bool) alpha: check_alpha refused a float one */
  int64_t ialpha = !has_alpha ? 1 : args[2].tag == TABI_TAG_INT || args[2].tag == TABI_TAG_BOOL ? args[2].u.i : 0;
  double sv = sc ? tabi_value_as_double(sc) : 0.0;
  int64_t si = sc && sc->tag != TABI_TAG_FLOAT ? sc->u.i : (int64_t)sv;
  for (int64_t i = 0; i < n; i++) {
    int64_t oa = mut_offset(a, nd, shape, i);
    int64_t ob = b ? mut_offset(b, nd, shape, i) : 0;
    if (integral && ifn) {
      int err = 0;
      int64_t r = ifn(int_operand(a, oa, rt), b ? int_operand(b, ob, rt) : si, ialpha, &err);
      if (err) {
        h->tensor_release(h->ctx, out);
        return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: integer division by zero", op);
      }
      mut_set_i(out, i, r);
    } else {
      mut_set(out, i, fn(operand(a, oa, rt), b ? operand(b, ob, rt) : round_to(sv, rt), alpha));
    }
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

tabi_status mut_unary(const tabi_host_api *h, const char *op, tabi_value *args, mut_unary_fn fn,
                      tabi_value *outs) {
  tabi_tensor *a = args[0].u.t;
  tabi_dtype d = tabi_tensor_dtype(a);
  tabi_status st = mut_check_real(h, op, "self", d);
  if (st == TABI_OK && d == TABI_DTYPE_BOOL)
    st = TABI_ERR(h, TABI_ERR_TYPE, "%s: argument 'self' is bool", op);
  if (st != TABI_OK) return st;
  tabi_tensor *out;
  st = mut_empty(h, d, a->dl.ndim, a->dl.shape, &out);
  if (st != TABI_OK) return st;
  int64_t n = tabi_tensor_numel(out);
  for (int64_t i = 0; i < n; i++) {
    int64_t o = mut_offset(a, a->dl.ndim, a->dl.shape, i);
    if (tabi_dtype_is_floating(d)) mut_set(out, i, fn(mut_get(a, o)));
    else mut_set_i(out, i, (int64_t)fn((double)mut_get_i(a, o)));
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

tabi_status mut_register(const tabi_host_api *h, const char *name, tabi_kernel_fn fn) {
  tabi_op op;
  tabi_status st = h->op_find(h->ctx, name, &op);
  if (st != TABI_OK) return st;
  return h->kernel_register(h->ctx, op, TABI_LAYER_BACKEND, fn, (void *)h);
}

void mut_plugin_info(tabi_plugin *out, const char *name, const char *description) {
  out->kind = TABI_PLUGIN_KIND_DEVICE;
  out->name = name;
  out->version = "0.0.1";
  out->description = description;
  out->device_type = kDLCPU;
}
