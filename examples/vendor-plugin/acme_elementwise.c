/* acme_elementwise.c: elementwise prims. Prims take operands of one shape and
 * one dtype (no broadcasting, no promotion: the decompositions did that), so a
 * kernel checks, allocates a contiguous result and loops over any strides. */
#include <math.h>
#include <string.h>

#include "acme.h"

/* --- unary ------------------------------------------------------------------- */

typedef double (*unary_fn)(double);
static double f_abs(double x) { return fabs(x); }
static double f_neg(double x) { return -x; }
static double f_rsqrt(double x) { return 1.0 / sqrt(x); }

static tabi_status unary(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs,
                         unary_fn fn, int float_only) {
  const tabi_host_api *h = ctx;
  tabi_tensor *a = args[0].u.t;
  tabi_status st = acme_check(h, call, "self", a);
  if (st != TABI_OK) return st;
  tabi_dtype d = tabi_tensor_dtype(a);
  if (float_only && !tabi_dtype_is_floating(d))
    return TABI_ERR(h, TABI_ERR_TYPE, "%s: argument 'self' must be floating, got %s",
                    acme_op_name(h, call), tabi_dtype_name(d));
  if (d == TABI_DTYPE_BOOL)
    return TABI_ERR(h, TABI_ERR_TYPE, "%s: argument 'self' is bool", acme_op_name(h, call));
  tabi_tensor *out;
  st = acme_empty_like(h, a, d, a->dl.ndim, a->dl.shape, &out);
  if (st != TABI_OK) return st;
  int64_t n = tabi_tensor_numel(a);
  for (int64_t i = 0; i < n; i++) {
    int64_t o = acme_offset(a, i);
    if (tabi_dtype_is_floating(d)) acme_set(out, i, fn(acme_get(a, o)));
    else {
      int64_t x = acme_get_i(a, o); /* exact for int64: neg/abs wrap as ATen does */
      uint64_t u = fn == f_neg || x < 0 ? 0u - (uint64_t)x : (uint64_t)x;
      acme_set_i(out, i, (int64_t)u);
    }
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

#define UNARY(name, fn, fo) \
  static tabi_status k_##name(void *c, const tabi_call *call, tabi_value *a, tabi_value *o) { \
    return unary(c, call, a, o, fn, fo); \
  }
UNARY(abs, f_abs, 0)
UNARY(neg, f_neg, 0)
UNARY(exp, exp, 1)
UNARY(log, log, 1)
UNARY(sin, sin, 1)
UNARY(cos, cos, 1)
UNARY(sqrt, sqrt, 1)
UNARY(tanh, tanh, 1)
UNARY(rsqrt, f_rsqrt, 1)

/* --- binary ------------------------------------------------------------------ */

enum { B_ADD, B_SUB, B_MUL, B_DIV, B_MAX, B_MIN, B_EQ, B_NE, B_LT, B_LE, B_GT, B_GE };

static int same_shape(const tabi_tensor *a, const tabi_tensor *b) {
  return a->dl.ndim == b->dl.ndim &&
         memcmp(a->dl.shape, b->dl.shape, sizeof(int64_t) * (size_t)a->dl.ndim) == 0;
}

static double bin_f(int op, double x, double y) {
  switch (op) {
    case B_ADD: return x + y;
    case B_SUB: return x - y;
    case B_MUL: return x * y;
    case B_DIV: return x / y;
    case B_MAX: return isnan(x) || isnan(y) ? NAN : (x > y ? x : y);
    case B_MIN: return isnan(x) || isnan(y) ? NAN : (x < y ? x : y);
    case B_EQ: return x == y;
    case B_NE: return x != y;
    case B_LT: return x < y;
    case B_LE: return x <= y;
    case B_GT: return x > y;
    default: return x >= y;
  }
}

static int64_t bin_i(int op, int64_t x, int64_t y) {
  switch (op) {
    case B_ADD: return (int64_t)((uint64_t)x + (uint64_t)y);
    case B_SUB: return (int64_t)((uint64_t)x - (uint64_t)y);
    case B_MUL: return (int64_t)((uint64_t)x * (uint64_t)y);
    case B_DIV: return y == -1 ? (int64_t)(0u - (uint64_t)x) : x / y; /* truncation */
    case B_MAX: return x > y ? x : y;
    case B_MIN: return x < y ? x : y;
    case B_EQ: return x == y;
    case B_NE: return x != y;
    case B_LT: return x < y;
    case B_LE: return x <= y;
    case B_GT: return x > y;
    default: return x >= y;
  }
}

static tabi_status binary(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs,
                          int op) {
  const tabi_host_api *h = ctx;
  tabi_tensor *a = args[0].u.t, *b = args[1].u.t;
  const char *name = acme_op_name(h, call);
  tabi_status st = acme_check(h, call, "self", a);
  if (st == TABI_OK) st = acme_check(h, call, "other", b);
  if (st != TABI_OK) return st;
  tabi_dtype d = tabi_tensor_dtype(a);
  if (d != tabi_tensor_dtype(b))
    return TABI_ERR(h, TABI_ERR_TYPE, "%s: dtypes differ (%s vs %s)", name, tabi_dtype_name(d),
                    tabi_dtype_name(tabi_tensor_dtype(b)));
  if (!same_shape(a, b)) return TABI_ERR(h, TABI_ERR_SHAPE, "%s: shapes differ", name);
  int cmp = op >= B_EQ;
  if (!cmp && d == TABI_DTYPE_BOOL && op != B_MAX && op != B_MIN)
    return TABI_ERR(h, TABI_ERR_TYPE, "%s: argument 'self' is bool", name);
  tabi_tensor *out;
  st = acme_empty_like(h, a, cmp ? TABI_DTYPE_BOOL : d, a->dl.ndim, a->dl.shape, &out);
  if (st != TABI_OK) return st;
  int64_t n = tabi_tensor_numel(a);
  int fl = tabi_dtype_is_floating(d);
  for (int64_t i = 0; i < n; i++) {
    int64_t oa = acme_offset(a, i), ob = acme_offset(b, i);
    if (fl) {
      acme_set(out, i, bin_f(op, acme_get(a, oa), acme_get(b, ob)));
    } else {
      int64_t y = acme_get_i(b, ob);
      if (op == B_DIV && y == 0) {
        h->tensor_release(h->ctx, out);
        return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: integer division by zero", name);
      }
      acme_set_i(out, i, bin_i(op, acme_get_i(a, oa), y));
    }
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

#define BINARY(name, op) \
  static tabi_status k_##name(void *c, const tabi_call *call, tabi_value *a, tabi_value *o) { \
    return binary(c, call, a, o, op); \
  }
BINARY(add, B_ADD)
BINARY(sub, B_SUB)
BINARY(mul, B_MUL)
BINARY(div, B_DIV)
BINARY(maximum, B_MAX)
BINARY(minimum, B_MIN)
BINARY(eq, B_EQ)
BINARY(ne, B_NE)
BINARY(lt, B_LT)
BINARY(le, B_LE)
BINARY(gt, B_GT)
BINARY(ge, B_GE)

/* where(pred, a, b): pred bool, a and b one dtype, all one shape. */
static tabi_status k_where(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *p = args[0].u.t, *a = args[1].u.t, *b = args[2].u.t;
  tabi_status st = acme_check(h, call, "a", a);
  if (st == TABI_OK) st = acme_check(h, call, "b", b);
  if (st != TABI_OK) return st;
  if (tabi_tensor_dtype(p) != TABI_DTYPE_BOOL || tabi_tensor_dtype(a) != tabi_tensor_dtype(b))
    return TABI_ERR(h, TABI_ERR_TYPE, "prims::where: pred must be bool and a, b of one dtype");
  if (!same_shape(p, a) || !same_shape(a, b))
    return TABI_ERR(h, TABI_ERR_SHAPE, "prims::where: shapes differ");
  tabi_tensor *out;
  st = acme_empty_like(h, a, tabi_tensor_dtype(a), a->dl.ndim, a->dl.shape, &out);
  if (st != TABI_OK) return st;
  for (int64_t i = 0; i < tabi_tensor_numel(a); i++) {
    const tabi_tensor *src = acme_get(p, acme_offset(p, i)) != 0 ? a : b;
    int64_t o = acme_offset(src, i);
    if (tabi_dtype_is_floating(tabi_tensor_dtype(a))) acme_set(out, i, acme_get(src, o));
    else acme_set_i(out, i, acme_get_i(src, o));
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

const acme_kernel acme_elementwise_kernels[] = {
    {"prims::abs", k_abs}, {"prims::neg", k_neg}, {"prims::exp", k_exp}, {"prims::log", k_log},
    {"prims::sin", k_sin}, {"prims::cos", k_cos}, {"prims::sqrt", k_sqrt}, {"prims::tanh", k_tanh},
    {"prims::rsqrt", k_rsqrt},
    {"prims::add", k_add}, {"prims::sub", k_sub}, {"prims::mul", k_mul}, {"prims::div", k_div},
    {"prims::maximum", k_maximum}, {"prims::minimum", k_minimum}, {"prims::eq", k_eq},
    {"prims::ne", k_ne}, {"prims::lt", k_lt}, {"prims::le", k_le}, {"prims::gt", k_gt},
    {"prims::ge", k_ge}, {"prims::where", k_where}, {NULL, NULL}};
