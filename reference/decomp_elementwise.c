/* reference/decomp_elementwise.c: core ATen elementwise ops as prims.
 *
 * Each ATen op promotes (result_type), broadcasts, converts to its computation
 * dtype (float32 for half types), applies prims, and converts to the result
 * dtype: the recipe of torch._refs. Most ops are one prim; the rest (division
 * modes, activations, logical ops) are a few lines of prims each.
 */
#include <math.h>
#include <string.h>

#include "decomp.h"

/* --- the table-driven ops ---------------------------------------------------- */

static tabi_status ew_unary(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs,
                            dc_op_id op, int32_t kind) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return dc_finish(&s, outs, 0, dc_ew_unary(&s, op, kind, args[0].u.t));
}

static dc_operand operand(const tabi_value *v) {
  return v->tag == TABI_TAG_TENSOR ? dc_t(v->u.t) : dc_s(v);
}

static tabi_status ew_binary(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs,
                             dc_op_id op, int32_t kind) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return dc_finish(&s, outs, 0, dc_ew_binary(&s, op, kind, operand(&args[0]), operand(&args[1])));
}

#define UNARY(fn, op, kind)                                                                     \
  static tabi_status fn(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) { \
    return ew_unary(ctx, call, args, outs, op, kind);                                           \
  }
#define BINARY(fn, op, kind)                                                                    \
  static tabi_status fn(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) { \
    return ew_binary(ctx, call, args, outs, op, kind);                                          \
  }

UNARY(d_acos, DC_P_ACOS, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_acosh, DC_P_ACOSH, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_asin, DC_P_ASIN, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_asinh, DC_P_ASINH, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_atan, DC_P_ATAN, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_atanh, DC_P_ATANH, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_cos, DC_P_COS, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_cosh, DC_P_COSH, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_erf, DC_P_ERF, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_exp, DC_P_EXP, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_expm1, DC_P_EXPM1, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_log, DC_P_LOG, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_log10, DC_P_LOG10, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_log1p, DC_P_LOG1P, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_log2, DC_P_LOG2, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_reciprocal, DC_P_RECIPROCAL, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_rsqrt, DC_P_RSQRT, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_sin, DC_P_SIN, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_sinh, DC_P_SINH, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_sqrt, DC_P_SQRT, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_tan, DC_P_TAN, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_tanh, DC_P_TANH, DC_PROMOTE_INT_TO_FLOAT)
UNARY(d_neg, DC_P_NEG, DC_PROMOTE_DEFAULT)
UNARY(d_sign, DC_P_SIGN, DC_PROMOTE_DEFAULT)
UNARY(d_bitwise_not, DC_P_BITWISE_NOT, DC_PROMOTE_DEFAULT)
UNARY(d_abs, DC_P_ABS, DC_PROMOTE_COMPLEX_TO_FLOAT)

BINARY(d_mul, DC_P_MUL, DC_PROMOTE_DEFAULT)
BINARY(d_div, DC_P_DIV, DC_PROMOTE_INT_TO_FLOAT)
BINARY(d_fmod, DC_P_FMOD, DC_PROMOTE_DEFAULT)
BINARY(d_remainder, DC_P_REMAINDER, DC_PROMOTE_DEFAULT)
BINARY(d_maximum, DC_P_MAXIMUM, DC_PROMOTE_DEFAULT)
BINARY(d_minimum, DC_P_MINIMUM, DC_PROMOTE_DEFAULT)
BINARY(d_atan2, DC_P_ATAN2, DC_PROMOTE_INT_TO_FLOAT)
BINARY(d_bitwise_and, DC_P_BITWISE_AND, DC_PROMOTE_DEFAULT)
BINARY(d_bitwise_or, DC_P_BITWISE_OR, DC_PROMOTE_DEFAULT)
BINARY(d_bitwise_xor, DC_P_BITWISE_XOR, DC_PROMOTE_DEFAULT)
BINARY(d_eq, DC_P_EQ, DC_PROMOTE_ALWAYS_BOOL)
BINARY(d_ne, DC_P_NE, DC_PROMOTE_ALWAYS_BOOL)
BINARY(d_lt, DC_P_LT, DC_PROMOTE_ALWAYS_BOOL)
BINARY(d_le, DC_P_LE, DC_PROMOTE_ALWAYS_BOOL)
BINARY(d_gt, DC_P_GT, DC_PROMOTE_ALWAYS_BOOL)
BINARY(d_ge, DC_P_GE, DC_PROMOTE_ALWAYS_BOOL)
BINARY(d_pow, DC_P_POW, DC_PROMOTE_DEFAULT)

/* pow(Tensor, Scalar): ATen computes the exponents 0.5, -0.5, 2, 3, -1 and -2
 * as sqrt, rsqrt, x*x, x*x*x, reciprocal and 1/(x*x), which differ from pow at
 * special values (pow(-inf, 0.5) is inf, sqrt(-inf) is nan). */
static tabi_tensor *konst(dc_scope *s, double v, tabi_tensor *like);

static tabi_status d_pow_tensor_scalar(void *ctx, const tabi_call *call, tabi_value *args,
                                       tabi_value *outs) {
  tabi_tensor *x = args[0].u.t;
  const tabi_value *e = &args[1];
  double ev = ref_scalar_f(e);
  /* ATen special-cases these real exponents (and the reference with it). For
   * complex results 0 and 1 too: cpow's exp(b * log(a)) would turn (inf-0j)^1
   * into inf+nanj through 0 * inf, where ATen returns the base (or 1). */
  tabi_dtype xd = tabi_tensor_dtype(x);
  int cplx = tabi_dtype_is_complex(xd);
  dc_operand po[2] = {dc_t(x), dc_s(e)};
  tabi_dtype pres, pcomp;
  dc_promote(2, po, DC_PROMOTE_DEFAULT, &pres, &pcomp);
  /* ATen's pow(Tensor, Scalar) fills 1 for the exponent 0 and copies for 1,
     whatever the dtypes (a complex exponent 0-0j included) */
  int real_e = e->tag != TABI_TAG_COMPLEX || e->u.c[1] == 0;
  int special = real_e && (tabi_dtype_is_floating(pres) || tabi_dtype_is_complex(pres)) &&
                (ev == 0.5 || ev == -0.5 || ev == 2 || ev == 3 || ev == -1 || ev == -2 ||
                 ((cplx || e->tag == TABI_TAG_COMPLEX) && (ev == 0 || ev == 1)));
  if (!special) return ew_binary(ctx, call, args, outs, DC_P_POW, DC_PROMOTE_DEFAULT);
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_dtype result = pres, compute = pcomp;
  tabi_tensor *c = dc_convert(&s, dc_convert(&s, x, result), compute), *r;
  if (ev == 0)
    r = dc_copy(&s, konst(&s, 1.0, c));
  else if (ev == 1)
    r = dc_copy(&s, c);
  else if (ev == 0.5)
    r = dc_unary(&s, DC_P_SQRT, c);
  else if (ev == -0.5)
    r = dc_unary(&s, DC_P_RSQRT, c);
  else if (ev == 2)
    r = dc_binary(&s, DC_P_MUL, c, c);
  else if (ev == 3)
    r = dc_binary(&s, DC_P_MUL, dc_binary(&s, DC_P_MUL, c, c), c);
  else if (ev == -1)
    r = dc_unary(&s, DC_P_RECIPROCAL, c);
  else
    r = dc_unary(&s, DC_P_RECIPROCAL, dc_binary(&s, DC_P_MUL, c, c));
  return dc_finish(&s, outs, 0, dc_convert(&s, r, result));
}

/* A constant of the computation dtype, broadcast to x's shape. */
static tabi_tensor *konst(dc_scope *s, double v, tabi_tensor *like) {
  if (!like) return NULL;
  return dc_broadcast_like(s, dc_scalar_f(s, v, tabi_tensor_dtype(like), like->dl.device), like);
}

/* Rounding ops are the identity on integers (a copy, as ATen returns a new tensor). */
static tabi_status rounding(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs,
                            dc_op_id op) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  if (tabi_tensor_dtype(x) == TABI_DTYPE_BOOL)
    return dc_error(&s, TABI_ERR_TYPE,
                    "argument 'self' has dtype bool, which rounding ops do not take");
  if (tabi_dtype_is_integral(tabi_tensor_dtype(x), 0))
    return dc_finish(&s, outs, 0, dc_copy(&s, x));
  return dc_finish(&s, outs, 0, dc_ew_unary(&s, op, DC_PROMOTE_DEFAULT, x));
}
#define ROUNDING(fn, op)                                                                        \
  static tabi_status fn(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) { \
    return rounding(ctx, call, args, outs, op);                                                 \
  }
ROUNDING(d_ceil, DC_P_CEIL)
ROUNDING(d_floor, DC_P_FLOOR)
ROUNDING(d_round, DC_P_ROUND)
ROUNDING(d_trunc, DC_P_TRUNC)

/* add and sub: self + alpha * other, alpha (rounded to the result dtype, as
 * ATen's Scalar::to) applied in the computation dtype. */
static tabi_status add_sub(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs,
                           dc_op_id op) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  dc_operand o[2] = {operand(&args[0]), operand(&args[1])};
  tabi_dtype result, compute;
  dc_promote(2, o, DC_PROMOTE_DEFAULT, &result, &compute);
  int any_bool =
      (o[0].t && tabi_tensor_dtype(o[0].t) == TABI_DTYPE_BOOL) ||
      (o[1].t ? tabi_tensor_dtype(o[1].t) == TABI_DTYPE_BOOL : o[1].scalar.tag == TABI_TAG_BOOL);
  if (op == DC_P_SUB && any_bool)
    return dc_error(&s, TABI_ERR_TYPE,
                    "subtraction with a bool operand is not supported; "
                    "use logical_xor");
  const tabi_value *alpha = &args[2];
  if (tabi_dtype_is_integral(result, 1) && alpha->tag == TABI_TAG_FLOAT)
    return dc_error(&s, TABI_ERR_TYPE,
                    "argument 'alpha' must be an integer for integral "
                    "inputs, got a float");
  tabi_tensor *x[2];
  if (!dc_prepare_as(&s, 2, o, result, compute, x)) return dc_finish(&s, outs, 0, NULL);
  int alpha_is_one = (alpha->tag == TABI_TAG_INT || alpha->tag == TABI_TAG_BOOL) && alpha->u.i == 1;
  if (!alpha_is_one) {
    tabi_tensor *a = dc_convert(&s, dc_convert(&s, dc_scalar(&s, alpha, compute, x[1]->dl.device), result), compute);
    a = dc_broadcast_like(&s, a, x[1]);
    x[1] = dc_binary(&s, DC_P_MUL, x[1], a);
  }
  return dc_finish(&s, outs, 0, dc_convert(&s, dc_binary(&s, op, x[0], x[1]), result));
}
static tabi_status d_add(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return add_sub(ctx, call, args, outs, DC_P_ADD);
}
static tabi_status d_sub(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return add_sub(ctx, call, args, outs, DC_P_SUB);
}

/* Python's floor division on floats, as ATen's div_floor_floating computes it:
 * through fmod, so that 1 // 0.1 is 9, not floor(10.000000000000002). */
static tabi_tensor *floor_div_float(dc_scope *s, tabi_tensor *a, tabi_tensor *b) {
  tabi_tensor *zero = konst(s, 0.0, a), *one = konst(s, 1.0, a), *half = konst(s, 0.5, a);
  tabi_tensor *mod = dc_binary(s, DC_P_FMOD, a, b);
  tabi_tensor *div = dc_binary(s, DC_P_DIV, dc_binary(s, DC_P_SUB, a, mod), b);
  tabi_tensor *adj = dc_binary(
      s, DC_P_BITWISE_AND, dc_binary(s, DC_P_NE, mod, zero),
      dc_binary(s, DC_P_NE, dc_binary(s, DC_P_LT, b, zero), dc_binary(s, DC_P_LT, mod, zero)));
  div = dc_where(s, adj, dc_binary(s, DC_P_SUB, div, one), div);
  tabi_tensor *fl = dc_unary(s, DC_P_FLOOR, div);
  fl = dc_where(s, dc_binary(s, DC_P_GT, dc_binary(s, DC_P_SUB, div, fl), half),
                dc_binary(s, DC_P_ADD, fl, one), fl);
  /* a zero quotient takes the sign of the true quotient */
  tabi_tensor *q = dc_binary(s, DC_P_DIV, a, b);
  tabi_tensor *signed_zero = dc_where(s, dc_unary(s, DC_P_SIGNBIT, q), konst(s, -0.0, a), zero);
  fl = dc_where(s, dc_binary(s, DC_P_EQ, div, zero), signed_zero, fl);
  /* division by zero: the plain quotient (inf or nan) */
  return dc_where(s, dc_binary(s, DC_P_EQ, b, zero), q, fl);
}

/* Integers: truncating division, then one less where the signs differ and the
 * division was inexact. */
static tabi_tensor *floor_div_int(dc_scope *s, tabi_tensor *a, tabi_tensor *b) {
  tabi_tensor *zero = konst(s, 0, a), *one = konst(s, 1, a);
  tabi_tensor *q = dc_binary(s, DC_P_DIV, a, b);
  tabi_tensor *r = dc_binary(s, DC_P_FMOD, a, b);
  tabi_tensor *adj = dc_binary(
      s, DC_P_BITWISE_AND, dc_binary(s, DC_P_NE, r, zero),
      dc_binary(s, DC_P_NE, dc_binary(s, DC_P_LT, r, zero), dc_binary(s, DC_P_LT, b, zero)));
  return dc_where(s, adj, dc_binary(s, DC_P_SUB, q, one), q);
}

static tabi_status div_mode(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  const tabi_value *mode = &args[2];
  if (mode->tag == TABI_TAG_NONE)
    return dc_finish(
        &s, outs, 0,
        dc_ew_binary(&s, DC_P_DIV, DC_PROMOTE_INT_TO_FLOAT, operand(&args[0]), operand(&args[1])));
  int trunc = mode->u.list.len == 5 && !memcmp(tabi_value_str(mode), "trunc", 5);
  int floor_ = mode->u.list.len == 5 && !memcmp(tabi_value_str(mode), "floor", 5);
  if (!trunc && !floor_)
    return dc_error(&s, TABI_ERR_INVALID_ARGUMENT,
                    "argument 'rounding_mode' must be None, "
                    "'trunc' or 'floor', got '%.*s'",
                    (int)mode->u.list.len, tabi_value_str(mode));
  dc_operand o[2] = {operand(&args[0]), operand(&args[1])};
  tabi_dtype result, compute;
  dc_promote(2, o, DC_PROMOTE_DEFAULT, &result, &compute);
  tabi_tensor *x[2];
  if (!dc_prepare(&s, 2, o, compute, x)) return dc_finish(&s, outs, 0, NULL);
  tabi_tensor *r;
  if (tabi_dtype_is_integral(compute, 1))
    r = trunc ? dc_binary(&s, DC_P_DIV, x[0], x[1]) : floor_div_int(&s, x[0], x[1]);
  else
    r = trunc ? dc_unary(&s, DC_P_TRUNC, dc_binary(&s, DC_P_DIV, x[0], x[1]))
              : floor_div_float(&s, x[0], x[1]);
  return dc_finish(&s, outs, 0, dc_convert(&s, r, result));
}

/* --- activations ------------------------------------------------------------- */

static tabi_status d_sigmoid(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  dc_operand o = dc_t(args[0].u.t);
  tabi_dtype result, compute;
  dc_promote(1, &o, DC_PROMOTE_INT_TO_FLOAT, &result, &compute);
  tabi_tensor *x;
  if (!dc_prepare(&s, 1, &o, compute, &x)) return dc_finish(&s, outs, 0, NULL);
  tabi_tensor *e = dc_unary(&s, DC_P_EXP, dc_unary(&s, DC_P_NEG, x));
  tabi_tensor *r = dc_unary(&s, DC_P_RECIPROCAL, dc_binary(&s, DC_P_ADD, konst(&s, 1.0, x), e));
  return dc_finish(&s, outs, 0, dc_convert(&s, r, result));
}

/* Prepares x alone in its own dtype (computation dtype for halves). */
static tabi_tensor *prep1(dc_scope *s, tabi_tensor *in, uint32_t allowed, tabi_dtype *out_result) {
  *out_result = tabi_tensor_dtype(in);
  if (!dc_check_dtype(s, "self", tabi_tensor_dtype(in), allowed)) return NULL;
  dc_operand o = dc_t(in);
  tabi_dtype compute;
  dc_promote(1, &o, DC_PROMOTE_DEFAULT, out_result, &compute);
  tabi_tensor *x = NULL;
  dc_prepare(s, 1, &o, compute, &x);
  return x;
}

static tabi_status d_relu(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_dtype result;
  tabi_tensor *x = prep1(&s, args[0].u.t, REF_DTS_INT | REF_DTS_FLOAT, &result);
  tabi_tensor *zero = konst(&s, 0.0, x);
  /* x <= 0 is false for NaN, so NaN passes through as ATen's clamp_min does */
  return dc_finish(&s, outs, 0,
                   dc_convert(&s, dc_where(&s, dc_binary(&s, DC_P_LE, x, zero), zero, x), result));
}

static tabi_status d_leaky_relu(void *ctx, const tabi_call *call, tabi_value *args,
                                tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_dtype result;
  tabi_tensor *x = prep1(&s, args[0].u.t, REF_DTS_FLOAT, &result);
  tabi_tensor *neg = dc_binary(&s, DC_P_MUL, x, konst(&s, ref_scalar_f(&args[1]), x));
  tabi_tensor *r = dc_where(&s, dc_binary(&s, DC_P_GT, x, konst(&s, 0.0, x)), x, neg);
  return dc_finish(&s, outs, 0, dc_convert(&s, r, result));
}

static tabi_status d_elu(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_dtype result;
  tabi_tensor *x = prep1(&s, args[0].u.t, REF_DTS_FLOAT, &result);
  /* ATen rounds the coefficients to the computation dtype and multiplies them
     there: alpha -inf with scale 1e-310 is -inf * 0 = NaN in float32, where a
     product taken in double would be -inf */
  tabi_tensor *scale = NULL, *negcoef = NULL;
  if (x) {
    tabi_dtype cd = tabi_tensor_dtype(x);
    scale = dc_scalar(&s, &args[2], cd, x->dl.device);
    negcoef = dc_binary(&s, DC_P_MUL, dc_scalar(&s, &args[1], cd, x->dl.device), scale);
  }
  tabi_tensor *negv = dc_binary(
      &s, DC_P_MUL,
      dc_unary(&s, DC_P_EXPM1, dc_binary(&s, DC_P_MUL, x, konst(&s, ref_scalar_f(&args[3]), x))),
      dc_broadcast_like(&s, negcoef, x));
  tabi_tensor *posv = dc_binary(&s, DC_P_MUL, x, dc_broadcast_like(&s, scale, x));
  tabi_tensor *r = dc_where(&s, dc_binary(&s, DC_P_LE, x, konst(&s, 0.0, x)), negv, posv);
  return dc_finish(&s, outs, 0, dc_convert(&s, r, result));
}

static tabi_status d_gelu(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_dtype result;
  tabi_tensor *x = prep1(&s, args[0].u.t, REF_DTS_FLOAT, &result);
  const tabi_value *ap = &args[1];
  int tanh_ =
      ap->tag == TABI_TAG_STRING && ap->u.list.len == 4 && !memcmp(tabi_value_str(ap), "tanh", 4);
  int none =
      ap->tag != TABI_TAG_STRING || (ap->u.list.len == 4 && !memcmp(tabi_value_str(ap), "none", 4));
  if (!tanh_ && !none)
    return dc_error(&s, TABI_ERR_INVALID_ARGUMENT,
                    "argument 'approximate' must be 'none' or "
                    "'tanh', got '%.*s'",
                    (int)ap->u.list.len, tabi_value_str(ap));
  tabi_tensor *inner;
  if (tanh_) { /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
    tabi_tensor *x3 = dc_binary(&s, DC_P_MUL, dc_binary(&s, DC_P_MUL, x, x), x);
    tabi_tensor *u =
        dc_binary(&s, DC_P_ADD, x, dc_binary(&s, DC_P_MUL, x3, konst(&s, 0.044715, x)));
    inner =
        dc_unary(&s, DC_P_TANH, dc_binary(&s, DC_P_MUL, u, konst(&s, 0.79788456080286535588, x)));
  } else { /* 0.5 x (1 + erf(x / sqrt 2)) */
    inner =
        dc_unary(&s, DC_P_ERF, dc_binary(&s, DC_P_MUL, x, konst(&s, 0.70710678118654752440, x)));
  }
  tabi_tensor *r = dc_binary(&s, DC_P_MUL, dc_binary(&s, DC_P_MUL, x, konst(&s, 0.5, x)),
                             dc_binary(&s, DC_P_ADD, konst(&s, 1.0, x), inner));
  return dc_finish(&s, outs, 0, dc_convert(&s, r, result));
}

/* clamp(x, min, max) = minimum(maximum(x, min), max), NaN propagating; the
 * bounds take part in type promotion. A NaN Scalar bound given alone is
 * ignored, as ATen's clamp does (with both bounds, any NaN one makes every
 * element NaN, which the NaN-propagating maximum and minimum give). Used by
 * clamp and clamp.Tensor. */
static int nan_scalar(const tabi_value *v) {
  return (v->tag == TABI_TAG_FLOAT || v->tag == TABI_TAG_COMPLEX) && isnan(tabi_value_as_double(v));
}

static tabi_status clamp_impl(dc_scope *s, tabi_value *outs, const tabi_value *self,
                              const tabi_value *lo, const tabi_value *hi) {
  if (lo->tag == TABI_TAG_NONE && hi->tag == TABI_TAG_NONE)
    return dc_error(s, TABI_ERR_INVALID_ARGUMENT,
                    "at least one of 'min' or 'max' must not be None");
  dc_operand o[3];
  int32_t n = 0;
  o[n++] = operand(self);
  int ilo = -1, ihi = -1;
  if (lo->tag != TABI_TAG_NONE) {
    ilo = n;
    o[n++] = operand(lo);
  }
  if (hi->tag != TABI_TAG_NONE) {
    ihi = n;
    o[n++] = operand(hi);
  }
  tabi_dtype result, compute;
  dc_promote(n, o, DC_PROMOTE_DEFAULT, &result, &compute);
  /* clamp with Scalar bounds refuses bool; clamp.Tensor takes it */
  /* bool: clamp.Tensor takes one bound, not both, and never Scalar bounds */
  if (result == TABI_DTYPE_BOOL &&
      ((lo->tag != TABI_TAG_TENSOR && hi->tag != TABI_TAG_TENSOR) || (ilo >= 0 && ihi >= 0)))
    return dc_error(s, TABI_ERR_TYPE, "clamp of bool takes a single Tensor bound");
  tabi_tensor *x[3];
  if (!dc_prepare(s, n, o, compute, x)) return dc_finish(s, outs, 0, NULL);
  tabi_tensor *r = x[0];
  int alone = ilo < 0 || ihi < 0;
  if (ilo >= 0 && !(alone && nan_scalar(lo))) r = dc_binary(s, DC_P_MAXIMUM, r, x[ilo]);
  if (ihi >= 0 && !(alone && nan_scalar(hi))) r = dc_binary(s, DC_P_MINIMUM, r, x[ihi]);
  return dc_finish(s, outs, 0, dc_convert(s, r, result));
}

static tabi_status d_clamp(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return clamp_impl(&s, outs, &args[0], &args[1], &args[2]);
}

static tabi_status d_hardtanh(void *ctx, const tabi_call *call, tabi_value *args,
                              tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  if (!dc_check_dtype(&s, "self", dt, REF_DTS_INT | REF_DTS_FLOAT)) return dc_abandon(&s, s.st);
  /* a complex bound converts (checked) to a real one when its imaginary part is 0 */
  tabi_value b[3] = {args[0], dc_scalar_real(&s, &args[1], dt), dc_scalar_real(&s, &args[2], dt)};
  if (s.st != TABI_OK) return dc_abandon(&s, s.st);
  args = b;
  if (tabi_dtype_is_integral(dt, 0)) { /* ATen converts the bounds to the input's dtype, checked */
    int64_t bits = tabi_dtype_size(dt) * 8;
    double lo = dt == TABI_DTYPE_UINT8 ? 0 : -ldexp(1.0, (int)bits - 1);
    double hi = dt == TABI_DTYPE_UINT8 ? 255 : ldexp(1.0, (int)bits - 1) - 1;
    for (int i = 1; i <= 2; i++) {
      double v = trunc(ref_scalar_f(&args[i]));
      if (v < lo || v > hi)
        return dc_error(&s, TABI_ERR_INVALID_ARGUMENT,
                        "argument %d (%g) cannot be converted to "
                        "type %s without overflow",
                        i, ref_scalar_f(&args[i]), tabi_dtype_name(dt));
    }
  }
  /* the bounds are compared in the promoted dtype; the result keeps the input's */
  dc_operand o[3] = {dc_t(x), dc_s(&args[1]), dc_s(&args[2])};
  tabi_dtype result, compute;
  dc_promote(3, o, DC_PROMOTE_DEFAULT, &result, &compute);
  tabi_tensor *v[3];
  if (!dc_prepare(&s, 3, o, compute, v)) return dc_abandon(&s, s.st);
  tabi_tensor *r = dc_binary(&s, DC_P_MINIMUM, dc_binary(&s, DC_P_MAXIMUM, v[0], v[1]), v[2]);
  return dc_finish(&s, outs, 0, dc_convert(&s, r, dt));
}

/* --- predicates and logical ops ------------------------------------------------ */

static tabi_status d_isnan(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  return dc_finish(&s, outs, 0, dc_binary(&s, DC_P_NE, x, x));
}

static tabi_status d_isinf(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  if (tabi_dtype_is_integral(tabi_tensor_dtype(x), 1)) {
    tabi_value f = tabi_bool(0);
    return dc_finish(&s, outs, 0,
                     dc_full(&s, x->dl.ndim, x->dl.shape, &f, TABI_DTYPE_BOOL, x->dl.device));
  }
  tabi_tensor *a = dc_unary(&s, DC_P_ABS, x);
  return dc_finish(&s, outs, 0, dc_binary(&s, DC_P_EQ, a, konst(&s, INFINITY, a)));
}

/* x != 0 as bool, for the logical ops. */
static tabi_tensor *truthy(dc_scope *s, tabi_tensor *x) {
  if (!x) return NULL;
  if (tabi_tensor_dtype(x) == TABI_DTYPE_BOOL) return x;
  return dc_binary(s, DC_P_NE, x, konst(s, 0.0, x));
}

static tabi_status d_logical_not(void *ctx, const tabi_call *call, tabi_value *args,
                                 tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return dc_finish(&s, outs, 0, dc_unary(&s, DC_P_BITWISE_NOT, truthy(&s, args[0].u.t)));
}

static tabi_status logical(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs,
                           dc_op_id op) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  dc_operand o[2] = {dc_t(args[0].u.t), dc_t(args[1].u.t)};
  tabi_dtype result, compute;
  dc_promote(2, o, DC_PROMOTE_DEFAULT, &result, &compute);
  tabi_tensor *x[2];
  if (!dc_prepare(&s, 2, o, compute, x)) return dc_finish(&s, outs, 0, NULL);
  return dc_finish(&s, outs, 0, dc_binary(&s, op, truthy(&s, x[0]), truthy(&s, x[1])));
}
static tabi_status d_logical_and(void *ctx, const tabi_call *call, tabi_value *args,
                                 tabi_value *outs) {
  return logical(ctx, call, args, outs, DC_P_BITWISE_AND);
}
static tabi_status d_logical_or(void *ctx, const tabi_call *call, tabi_value *args,
                                tabi_value *outs) {
  return logical(ctx, call, args, outs, DC_P_BITWISE_OR);
}
static tabi_status d_logical_xor(void *ctx, const tabi_call *call, tabi_value *args,
                                 tabi_value *outs) {
  return logical(ctx, call, args, outs, DC_P_BITWISE_XOR);
}

static tabi_status d_where(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  dc_operand o[2] = {dc_t(args[1].u.t), dc_t(args[2].u.t)};
  tabi_dtype result, compute;
  dc_promote(2, o, DC_PROMOTE_DEFAULT, &result, &compute);
  dc_operand all[3] = {dc_t(args[0].u.t), o[0], o[1]};
  tabi_tensor *x[3];
  /* prepare all three for the common shape; the condition stays bool */
  if (!dc_prepare(&s, 3, all, result, x)) return dc_finish(&s, outs, 0, NULL);
  tabi_tensor *cond = dc_broadcast_like(&s, truthy(&s, args[0].u.t), x[0]);
  return dc_finish(&s, outs, 0, dc_where(&s, cond, x[1], x[2]));
}

const dc_kernel dc_elementwise_kernels[] = {{"aten::acos", d_acos},
                                            {"aten::acosh", d_acosh},
                                            {"aten::asin", d_asin},
                                            {"aten::asinh", d_asinh},
                                            {"aten::atan", d_atan},
                                            {"aten::atanh", d_atanh},
                                            {"aten::cos", d_cos},
                                            {"aten::cosh", d_cosh},
                                            {"aten::erf", d_erf},
                                            {"aten::exp", d_exp},
                                            {"aten::expm1", d_expm1},
                                            {"aten::log", d_log},
                                            {"aten::log10", d_log10},
                                            {"aten::log1p", d_log1p},
                                            {"aten::log2", d_log2},
                                            {"aten::reciprocal", d_reciprocal},
                                            {"aten::rsqrt", d_rsqrt},
                                            {"aten::sin", d_sin},
                                            {"aten::sinh", d_sinh},
                                            {"aten::sqrt", d_sqrt},
                                            {"aten::tan", d_tan},
                                            {"aten::tanh", d_tanh},
                                            {"aten::neg", d_neg},
                                            {"aten::sign", d_sign},
                                            {"aten::bitwise_not", d_bitwise_not},
                                            {"aten::abs", d_abs},
                                            {"aten::ceil", d_ceil},
                                            {"aten::floor", d_floor},
                                            {"aten::round", d_round},
                                            {"aten::trunc", d_trunc},
                                            {"aten::add.Tensor", d_add},
                                            {"aten::add.Scalar", d_add},
                                            {"aten::sub.Tensor", d_sub},
                                            {"aten::sub.Scalar", d_sub},
                                            {"aten::mul.Tensor", d_mul},
                                            {"aten::mul.Scalar", d_mul},
                                            {"aten::div.Tensor", d_div},
                                            {"aten::div.Scalar", d_div},
                                            {"aten::div.Tensor_mode", div_mode},
                                            {"aten::div.Scalar_mode", div_mode},
                                            {"aten::fmod.Tensor", d_fmod},
                                            {"aten::fmod.Scalar", d_fmod},
                                            {"aten::remainder.Tensor", d_remainder},
                                            {"aten::remainder.Scalar", d_remainder},
                                            {"aten::maximum", d_maximum},
                                            {"aten::minimum", d_minimum},
                                            {"aten::atan2", d_atan2},
                                            {"aten::bitwise_and.Tensor", d_bitwise_and},
                                            {"aten::bitwise_and.Scalar", d_bitwise_and},
                                            {"aten::bitwise_or.Tensor", d_bitwise_or},
                                            {"aten::bitwise_or.Scalar", d_bitwise_or},
                                            {"aten::bitwise_xor.Tensor", d_bitwise_xor},
                                            {"aten::bitwise_xor.Scalar", d_bitwise_xor},
                                            {"aten::eq.Tensor", d_eq},
                                            {"aten::eq.Scalar", d_eq},
                                            {"aten::ne.Tensor", d_ne},
                                            {"aten::ne.Scalar", d_ne},
                                            {"aten::lt.Tensor", d_lt},
                                            {"aten::lt.Scalar", d_lt},
                                            {"aten::le.Tensor", d_le},
                                            {"aten::le.Scalar", d_le},
                                            {"aten::gt.Tensor", d_gt},
                                            {"aten::gt.Scalar", d_gt},
                                            {"aten::ge.Tensor", d_ge},
                                            {"aten::ge.Scalar", d_ge},
                                            {"aten::pow.Tensor_Tensor", d_pow},
                                            {"aten::pow.Tensor_Scalar", d_pow_tensor_scalar},
                                            {"aten::pow.Scalar", d_pow},
                                            {"aten::sigmoid", d_sigmoid},
                                            {"aten::relu", d_relu},
                                            {"aten::leaky_relu", d_leaky_relu},
                                            {"aten::elu", d_elu},
                                            {"aten::gelu", d_gelu},
                                            {"aten::clamp", d_clamp},
                                            {"aten::clamp.Tensor", d_clamp},
                                            {"aten::hardtanh", d_hardtanh},
                                            {"aten::isnan", d_isnan},
                                            {"aten::isinf", d_isinf},
                                            {"aten::logical_not", d_logical_not},
                                            {"aten::logical_and", d_logical_and},
                                            {"aten::logical_or", d_logical_or},
                                            {"aten::logical_xor", d_logical_xor},
                                            {"aten::where.self", d_where},
                                            {NULL, NULL}};
