/* plugins/cuda/tc_ew_ops.cu: the elementwise kernels as data: each prim is a
 * descriptor (accepted dtypes, result rule, element selector) run by one unary
 * and one binary driver, with the reference's checks and messages (prims
 * neither promote nor broadcast). aten add/sub/mul/div.Tensor are native too, so
 * the common case (and the dispatch-cost benchmark) skips the decomposition. */
#include <stdio.h>

#include "tc.h"

#define DT(d) (1u << (unsigned)(d))
#define BOOLS DT(TABI_DTYPE_BOOL)
#define INTS (DT(TABI_DTYPE_UINT8) | DT(TABI_DTYPE_INT8) | DT(TABI_DTYPE_INT16) | DT(TABI_DTYPE_INT32) | DT(TABI_DTYPE_INT64))
#define FLTS (DT(TABI_DTYPE_FLOAT16) | DT(TABI_DTYPE_BFLOAT16) | DT(TABI_DTYPE_FLOAT32) | DT(TABI_DTYPE_FLOAT64))
#define CPLX (DT(TABI_DTYPE_COMPLEX64) | DT(TABI_DTYPE_COMPLEX128))
#define F2 (DT(TABI_DTYPE_FLOAT32) | DT(TABI_DTYPE_FLOAT64))
#define ALL (BOOLS | INTS | FLTS | CPLX)
#define BI (BOOLS | INTS)

#define R_SAME 0
#define R_REAL 1
#define R_BOOL 2
#define R_TF 3 /* integers compute in float32 */

typedef struct ew_desc {
  int32_t op;
  uint32_t dtypes;
  int32_t rule;
} ew_desc;

static tabi_status check_dtype(tc_ctx *c, const char *op, const char *arg, tabi_dtype d,
                               uint32_t allowed) {
  if (d >= 0 && d < 32 && (allowed & DT(d))) return TABI_OK;
  char list[256] = "";
  size_t n = 0;
  for (int i = 0; i < TABI_DTYPE_COUNT; i++)
    if (allowed & DT(tabi_all_dtypes[i]))
      n += (size_t)snprintf(list + n, sizeof list - (n < sizeof list ? n : sizeof list), "%s%s",
                            n ? ", " : "", tabi_dtype_name(tabi_all_dtypes[i]));
  return TC_ERR(c, TABI_ERR_TYPE, "%s: argument '%s' has dtype %s; expected one of %s", op, arg,
                tabi_dtype_name(d), list);
}

static const char *arg_name(tc_ctx *c, const tabi_call *call, int i) {
  const tabi_op_info *info = c->h->op_info(c->h->ctx, call->op);
  if (!info || i >= info->nargs) return "?";
  return ((const tabi_arg_info *)((const char *)info->args + (size_t)i * info->arg_info_size))->name;
}

static void apply_rule(int rule, tabi_dtype common, tabi_dtype *cd, tabi_dtype *outdt) {
  *cd = *outdt = common;
  if (rule == R_BOOL) *outdt = TABI_DTYPE_BOOL;
  else if (rule == R_REAL) *outdt = tc_real_dtype(common);
  else if (rule == R_TF && tabi_dtype_is_integral(common, 1)) *cd = *outdt = TABI_DTYPE_FLOAT32;
}

static tabi_status run_unary(tc_ctx *c, const tabi_call *call, tabi_value *args,
                             tabi_value *outs, const ew_desc *d) {
  const char *op = tc_op_name(c, call);
  tabi_tensor *a = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(a), cd, outdt;
  tabi_status st = check_dtype(c, op, arg_name(c, call, 0), dt, d->dtypes);
  if (st == TABI_OK) st = tc_check_cuda(c, a, op, arg_name(c, call, 0));
  if (st == TABI_OK) st = tc_use_device(c, a, op);
  if (st != TABI_OK) return st;
  apply_rule(d->rule, dt, &cd, &outdt);
  tabi_tensor *o = NULL;
  if ((st = tc_empty(c, a->dl.device, outdt, a->dl.ndim, a->dl.shape, &o)) != TABI_OK) return st;
  tc_operand oo, ia;
  tc_operand_of(o, o->dl.ndim, o->dl.shape, &oo);
  tc_operand_of(a, o->dl.ndim, o->dl.shape, &ia);
  tc_ew_params p;
  memset(&p, 0, sizeof p);
  p.op = d->op;
  p.cd = cd;
  st = tc_ew_launch(c, op, o->dl.ndim, o->dl.shape, &oo, 1, &ia, &p, NULL);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, o);
    return st;
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

static tabi_status broadcast2(tc_ctx *c, const char *op, const tabi_tensor *a, const tabi_tensor *b,
                              int32_t *nd, int64_t *shape) {
  int32_t n = a->dl.ndim > b->dl.ndim ? a->dl.ndim : b->dl.ndim;
  if (n > TC_MAX_DIMS) return TC_ERR(c, TABI_ERR_SHAPE, "%s: %d dims is more than %d", op, (int)n, TC_MAX_DIMS);
  for (int32_t i = 0; i < n; i++) {
    int32_t ia = i - (n - a->dl.ndim), ib = i - (n - b->dl.ndim);
    int64_t sa = ia >= 0 ? a->dl.shape[ia] : 1, sb = ib >= 0 ? b->dl.shape[ib] : 1;
    if (sa != sb && sa != 1 && sb != 1)
      return TC_ERR(c, TABI_ERR_SHAPE, "%s: shapes do not broadcast (dim %d: %lld vs %lld)", op,
                    (int)(i - n), (long long)sa, (long long)sb);
    shape[i] = sa == 1 ? sb : sa;
  }
  *nd = n;
  return TABI_OK;
}

/* Casts a Scalar to the compute dtype as the reference's prepare steps do. */
static void scalar_params(const tabi_value *v, tabi_dtype cd, tc_ew_params *p) {
  double re = tabi_value_as_double(v), im = v->tag == TABI_TAG_COMPLEX ? v->u.c[1] : 0.0;
  int is_int = v->tag == TABI_TAG_INT || v->tag == TABI_TAG_BOOL;
  p->pi = is_int ? v->u.i : (int64_t)re;
  switch (cd) {
    case TABI_DTYPE_FLOAT32: case TABI_DTYPE_COMPLEX64:
      p->pf = is_int ? (double)(float)v->u.i : (double)(float)re;
      im = (double)(float)im;
      break;
    case TABI_DTYPE_FLOAT16: p->pf = tabi_f16_to_f32(tabi_f32_to_f16(is_int ? (float)v->u.i : (float)re)); break;
    case TABI_DTYPE_BFLOAT16: p->pf = tabi_bf16_to_f32(tabi_f32_to_bf16(is_int ? (float)v->u.i : (float)re)); break;
    default: p->pf = is_int ? (double)v->u.i : re; break;
  }
  p->pc[0] = p->pf;
  p->pc[1] = im;
}

/* prims (prim = 1): same dtype, same shape; aten: result_type and broadcasting. */
static tabi_status run_binary(tc_ctx *c, const tabi_call *call, tabi_value *args,
                              tabi_value *outs, const ew_desc *d, int prim,
                              const tabi_value *alpha) {
  const char *op = tc_op_name(c, call);
  const char *an = arg_name(c, call, 0), *bn = arg_name(c, call, 1);
  tabi_tensor *a = args[0].u.t, *b = args[1].u.t;
  tabi_status st;
  if ((st = tc_check_cuda(c, a, op, an)) != TABI_OK) return st;
  if ((st = tc_check_cuda(c, b, op, bn)) != TABI_OK) return st;
  if (a->dl.device.device_id != b->dl.device.device_id)
    return TC_ERR(c, TABI_ERR_DEVICE, "%s: arguments on different " TC_PLATFORM " devices", op);
  tabi_dtype common;
  int32_t nd = 0;
  int64_t shape[TC_MAX_DIMS];
  if (prim) {
    tabi_dtype da = tabi_tensor_dtype(a), db = tabi_tensor_dtype(b);
    if (da != db)
      return TC_ERR(c, TABI_ERR_TYPE,
                    "%s: argument '%s' has dtype %s but '%s' has dtype %s; prims do not promote "
                    "(convert with prims::convert_element_type)",
                    op, bn, tabi_dtype_name(db), an, tabi_dtype_name(da));
    int same = a->dl.ndim == b->dl.ndim;
    for (int32_t i = 0; same && i < a->dl.ndim; i++) same = a->dl.shape[i] == b->dl.shape[i];
    if (!same)
      return TC_ERR(c, TABI_ERR_SHAPE,
                    "%s: arguments '%s' and '%s' have different shapes; prims do not broadcast "
                    "(use prims::broadcast_in_dim)", op, an, bn);
    if (a->dl.ndim > TC_MAX_DIMS) return TC_ERR(c, TABI_ERR_SHAPE, "%s: too many dims", op);
    common = da;
    nd = a->dl.ndim;
    memcpy(shape, a->dl.shape, sizeof(int64_t) * (size_t)nd);
  } else {
    const tabi_value *vs[2] = {&args[0], &args[1]};
    common = tc_result_type(vs, 2);
    if ((st = broadcast2(c, op, a, b, &nd, shape)) != TABI_OK) return st;
  }
  const char *which = tabi_tensor_dtype(a) == common ? an : tabi_tensor_dtype(b) == common ? bn
                                                      : "self and other (promoted)";
  if ((st = check_dtype(c, op, which, common, d->dtypes)) != TABI_OK) return st;
  tabi_dtype cd, outdt;
  apply_rule(d->rule, common, &cd, &outdt);
  tc_ew_params p;
  memset(&p, 0, sizeof p);
  p.op = d->op;
  p.cd = cd;
  tabi_value one = tabi_int(1);
  scalar_params(alpha ? alpha : &one, cd, &p);
  if ((st = tc_use_device(c, a, op)) != TABI_OK) return st;
  tabi_tensor *o = NULL;
  if ((st = tc_empty(c, a->dl.device, outdt, nd, shape, &o)) != TABI_OK) return st;
  tc_operand oo, in[2];
  tc_operand_of(o, nd, shape, &oo);
  tc_operand_of(a, nd, shape, &in[0]);
  tc_operand_of(b, nd, shape, &in[1]);
  int zero_div = 0;
  st = tc_ew_launch(c, op, nd, shape, &oo, 2, in, &p, &zero_div);
  if (st == TABI_OK && zero_div)
    st = TC_ERR(c, TABI_ERR_INVALID_ARGUMENT,
                "%s: ZeroDivisionError: integer division or remainder by zero (argument '%s' "
                "has a zero element)", op, bn);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, o);
    return st;
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

/* --- tables ------------------------------------------------------------------ */

#define UNARY_LIST(X)                                                                  \
  X(sin, TC_U_SIN, FLTS | CPLX, R_SAME) X(cos, TC_U_COS, FLTS | CPLX, R_SAME)          \
  X(tan, TC_U_TAN, FLTS | CPLX, R_SAME) X(asin, TC_U_ASIN, FLTS | CPLX, R_SAME)        \
  X(acos, TC_U_ACOS, FLTS | CPLX, R_SAME) X(atan, TC_U_ATAN, FLTS | CPLX, R_SAME)      \
  X(sinh, TC_U_SINH, FLTS | CPLX, R_SAME) X(cosh, TC_U_COSH, FLTS | CPLX, R_SAME)      \
  X(tanh, TC_U_TANH, FLTS | CPLX, R_SAME) X(asinh, TC_U_ASINH, FLTS | CPLX, R_SAME)    \
  X(acosh, TC_U_ACOSH, FLTS | CPLX, R_SAME) X(atanh, TC_U_ATANH, FLTS | CPLX, R_SAME)  \
  X(exp, TC_U_EXP, FLTS | CPLX, R_SAME) X(exp2, TC_U_EXP2, FLTS | CPLX, R_SAME)        \
  X(expm1, TC_U_EXPM1, FLTS | CPLX, R_SAME) X(log, TC_U_LOG, FLTS | CPLX, R_SAME)      \
  X(log10, TC_U_LOG10, FLTS | CPLX, R_SAME) X(log1p, TC_U_LOG1P, FLTS | CPLX, R_SAME)  \
  X(log2, TC_U_LOG2, FLTS | CPLX, R_SAME) X(sqrt, TC_U_SQRT, FLTS | CPLX, R_SAME)      \
  X(rsqrt, TC_U_RSQRT, FLTS | CPLX, R_SAME) X(reciprocal, TC_U_RECIP, FLTS | CPLX, R_SAME) \
  X(cbrt, TC_U_CBRT, FLTS, R_SAME) X(erf, TC_U_ERF, FLTS, R_SAME)                      \
  X(erfc, TC_U_ERFC, FLTS, R_SAME) X(erf_inv, TC_U_ERFINV, FLTS, R_SAME)               \
  X(lgamma, TC_U_LGAMMA, FLTS, R_SAME) X(digamma, TC_U_DIGAMMA, FLTS, R_SAME)          \
  X(bessel_i0, TC_U_I0, FLTS, R_SAME) X(bessel_i0e, TC_U_I0E, FLTS, R_SAME)            \
  X(bessel_i1, TC_U_I1, FLTS, R_SAME) X(bessel_i1e, TC_U_I1E, FLTS, R_SAME)            \
  X(bessel_j0, TC_U_J0, F2, R_SAME) X(bessel_j1, TC_U_J1, F2, R_SAME)                  \
  X(spherical_bessel_j0, TC_U_SPHJ0, F2, R_SAME)                                       \
  X(abs, TC_U_ABS, INTS | FLTS | CPLX, R_REAL) X(neg, TC_U_NEG, INTS | FLTS | CPLX, R_SAME) \
  X(sign, TC_U_SIGN, BI | FLTS, R_SAME) X(ceil, TC_U_CEIL, INTS | FLTS, R_SAME)        \
  X(floor, TC_U_FLOOR, INTS | FLTS, R_SAME) X(round, TC_U_ROUND, INTS | FLTS, R_SAME)  \
  X(trunc, TC_U_TRUNC, INTS | FLTS, R_SAME) X(bitwise_not, TC_U_BNOT, BI, R_SAME)      \
  X(isfinite, TC_U_ISFINITE, ALL, R_BOOL) X(signbit, TC_U_SIGNBIT, BI | FLTS, R_BOOL)  \
  X(conj_physical, TC_U_CONJ, ALL, R_SAME) X(real, TC_U_REAL, CPLX, R_REAL)            \
  X(imag, TC_U_IMAG, CPLX, R_REAL)

#define BINARY_LIST(X)                                                                 \
  X(add, TC_B_ADD, ALL, R_SAME) X(sub, TC_B_SUB, INTS | FLTS | CPLX, R_SAME)           \
  X(mul, TC_B_MUL, ALL, R_SAME) X(div, TC_B_DIV, INTS | FLTS | CPLX, R_SAME)     \
  X(atan2, TC_B_ATAN2, FLTS, R_SAME) X(bitwise_and, TC_B_AND, BI, R_SAME)              \
  X(bitwise_or, TC_B_OR, BI, R_SAME) X(bitwise_xor, TC_B_XOR, BI, R_SAME)              \
  X(eq, TC_B_EQ, ALL, R_BOOL) X(ne, TC_B_NE, ALL, R_BOOL) X(lt, TC_B_LT, BI | FLTS, R_BOOL) \
  X(le, TC_B_LE, BI | FLTS, R_BOOL) X(gt, TC_B_GT, BI | FLTS, R_BOOL)                  \
  X(ge, TC_B_GE, BI | FLTS, R_BOOL) X(fmax, TC_B_FMAX, BI | FLTS, R_SAME)              \
  X(fmin, TC_B_FMIN, BI | FLTS, R_SAME) X(fmod, TC_B_FMOD, INTS | FLTS, R_SAME)        \
  X(remainder, TC_B_REM, INTS | FLTS, R_SAME) X(gcd, TC_B_GCD, INTS, R_SAME)           \
  X(hypot, TC_B_HYPOT, FLTS, R_SAME) X(igamma, TC_B_IGAMMA, FLTS, R_SAME)              \
  X(igammac, TC_B_IGAMMAC, FLTS, R_SAME) X(maximum, TC_B_MAXIMUM, BI | FLTS, R_SAME)   \
  X(minimum, TC_B_MINIMUM, BI | FLTS, R_SAME) X(nextafter, TC_B_NEXTAFTER, FLTS, R_SAME) \
  X(pow, TC_B_POW, INTS | FLTS | CPLX, R_SAME) X(shift_left, TC_B_SHL, INTS, R_SAME)   \
  X(shift_right_arithmetic, TC_B_SHR, INTS, R_SAME) X(zeta, TC_B_ZETA, F2, R_SAME)

#define DEF_UN(name, sel, dts, rule)                                        \
  static const ew_desc d_un_##name = {sel, dts, rule};                      \
  static tabi_status k_un_##name(TC_ARGS) {                                 \
    return run_unary((tc_ctx *)ctx, call, args, outs, &d_un_##name);       \
  }
#define DEF_BIN(name, sel, dts, rule)                                       \
  static const ew_desc d_bin_##name = {sel, dts, rule};                     \
  static tabi_status k_bin_##name(TC_ARGS) {                                \
    return run_binary((tc_ctx *)ctx, call, args, outs, &d_bin_##name, 1, NULL); \
  }
UNARY_LIST(DEF_UN)
BINARY_LIST(DEF_BIN)

/* aten binary with alpha (add/sub), result_type and broadcasting. */
static const ew_desc a_add = {TC_B_ADD, ALL, R_SAME}, a_sub = {TC_B_SUB, INTS | FLTS | CPLX, R_SAME},
                     a_mul = {TC_B_MUL, ALL, R_SAME}, a_div = {TC_B_DIV, ALL, R_TF};

static tabi_status check_alpha(tc_ctx *c, const char *op, const tabi_value *alpha, tabi_dtype common) {
  if (alpha->tag == TABI_TAG_BOOL && common != TABI_DTYPE_BOOL)
    return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT,
                  "%s: argument 'alpha': Boolean alpha only supported for Boolean results "
                  "(result dtype is %s)", op, tabi_dtype_name(common));
  if (!tabi_dtype_is_floating(common) && !tabi_dtype_is_complex(common) &&
      (alpha->tag == TABI_TAG_FLOAT || alpha->tag == TABI_TAG_COMPLEX))
    return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT,
                  "%s: argument 'alpha': for integral input tensors, alpha must not be a "
                  "floating point number (result dtype is %s)", op, tabi_dtype_name(common));
  if (!tabi_dtype_is_complex(common) && alpha->tag == TABI_TAG_COMPLEX)
    return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT,
                  "%s: argument 'alpha': for non-complex input tensors, alpha must not be a "
                  "complex number", op);
  return TABI_OK;
}

static tabi_status aten_alpha(TC_ARGS, const ew_desc *d, int is_sub) {
  TC_CTX;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR)
    return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: expected tensors", OPN);
  const tabi_value *vs[2] = {&args[0], &args[1]};
  tabi_dtype common = tc_result_type(vs, 2);
  if (is_sub) {
    int ba = tabi_tensor_dtype(args[0].u.t) == TABI_DTYPE_BOOL,
        bb = tabi_tensor_dtype(args[1].u.t) == TABI_DTYPE_BOOL;
    if (ba || bb)
      return TC_ERR(c, TABI_ERR_TYPE,
                    "%s: Subtraction, the `-` operator, with a bool tensor is not supported "
                    "(argument '%s' is bool)", OPN, ba ? "self" : "other");
  }
  tabi_status st = check_alpha(c, OPN, &args[2], common);
  if (st != TABI_OK) return st;
  return run_binary(c, call, args, outs, d, 0, &args[2]);
}
static tabi_status k_add_t(TC_ARGS) { return aten_alpha(ctx, call, args, outs, &a_add, 0); }
static tabi_status k_sub_t(TC_ARGS) { return aten_alpha(ctx, call, args, outs, &a_sub, 1); }
static tabi_status k_mul_t(TC_ARGS) {
  return run_binary((tc_ctx *)ctx, call, args, outs, &a_mul, 0, NULL);
}
static tabi_status k_div_t(TC_ARGS) {
  return run_binary((tc_ctx *)ctx, call, args, outs, &a_div, 0, NULL);
}

/* prims::where(pred, a, b): bool pred, same dtypes, same shapes. */
static tabi_status k_where(TC_ARGS) {
  TC_CTX;
  tabi_tensor *t[3] = {args[0].u.t, args[1].u.t, args[2].u.t};
  tabi_status st;
  for (int k = 0; k < 3; k++)
    if ((st = tc_check_cuda(c, t[k], OPN, arg_name(c, call, k))) != TABI_OK) return st;
  if (tabi_tensor_dtype(t[0]) != TABI_DTYPE_BOOL)
    return TC_ERR(c, TABI_ERR_TYPE, "%s: argument '%s' must be a bool tensor; got dtype %s", OPN,
                  arg_name(c, call, 0), tabi_dtype_name(tabi_tensor_dtype(t[0])));
  tabi_dtype da = tabi_tensor_dtype(t[1]);
  if (tabi_tensor_dtype(t[2]) != da)
    return TC_ERR(c, TABI_ERR_TYPE, "%s: arguments '%s' and '%s' have different dtypes; prims do "
                  "not promote", OPN, arg_name(c, call, 1), arg_name(c, call, 2));
  for (int k = 1; k < 3; k++) {
    int same = t[k]->dl.ndim == t[0]->dl.ndim;
    for (int32_t i = 0; same && i < t[0]->dl.ndim; i++) same = t[k]->dl.shape[i] == t[0]->dl.shape[i];
    if (!same)
      return TC_ERR(c, TABI_ERR_SHAPE, "%s: argument '%s' has another shape than '%s'; prims do "
                    "not broadcast", OPN, arg_name(c, call, k), arg_name(c, call, 0));
  }
  if ((st = tc_use_device(c, t[0], OPN)) != TABI_OK) return st;
  tabi_tensor *o = NULL;
  int32_t nd = t[0]->dl.ndim;
  if ((st = tc_empty(c, t[0]->dl.device, da, nd, t[0]->dl.shape, &o)) != TABI_OK) return st;
  tc_operand oo, in[3];
  tc_operand_of(o, nd, o->dl.shape, &oo);
  for (int k = 0; k < 3; k++) tc_operand_of(t[k], nd, o->dl.shape, &in[k]);
  tc_ew_params p;
  memset(&p, 0, sizeof p);
  p.cd = da;
  st = tc_ew_launch(c, OPN, nd, o->dl.shape, &oo, 3, in, &p, NULL);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, o);
    return st;
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

static tabi_status k_convert(TC_ARGS) {
  TC_CTX;
  tabi_tensor *a = args[0].u.t;
  tabi_dtype to = args[1].u.dtype;
  if (tabi_dtype_size(to) == 0)
    return TC_ERR(c, TABI_ERR_TYPE, "%s: argument 'dtype' is not a supported dtype (code %d)", OPN,
                  (int)to);
  tabi_status st = tc_check_cuda(c, a, OPN, "a");
  if (st != TABI_OK) return st;
  tabi_tensor *o = NULL;
  if ((st = tc_empty(c, a->dl.device, to, a->dl.ndim, a->dl.shape, &o)) != TABI_OK) return st;
  if ((st = tc_copy_convert(c, OPN, o, a)) != TABI_OK) {
    c->h->tensor_release(c->h->ctx, o);
    return st;
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

static tabi_status k_conj(TC_ARGS) {
  TC_CTX;
  tabi_dtype d = tabi_tensor_dtype(args[0].u.t);
  tabi_status st = check_dtype(c, OPN, "a", d, CPLX);
  if (st != TABI_OK) return st;
  return run_unary(c, call, args, outs, &d_un_conj_physical);
}

/* atan2.out(self, other, *, out): computes into a temporary (out may alias an
 * input), then resizes out to the result's shape when it differs (ATen's
 * resize_output, through the host, which keeps out's device) and copies with
 * conversion; out's dtype must be one the result can be cast to. */
static const ew_desc a_atan2 = {TC_B_ATAN2, BI | FLTS, R_TF};
static int can_cast(tabi_dtype from, tabi_dtype to) {
  if (tabi_dtype_is_complex(from) && !tabi_dtype_is_complex(to)) return 0;
  if (tabi_dtype_is_floating(from) && tabi_dtype_is_integral(to, 1)) return 0;
  return from == TABI_DTYPE_BOOL || to != TABI_DTYPE_BOOL;
}
static tabi_status k_atan2_out(TC_ARGS) {
  TC_CTX;
  tabi_tensor *out = args[2].u.t;
  tabi_status st = tc_check_cuda(c, out, OPN, "out");
  if (st != TABI_OK) return st;
  if (out->flags & TABI_TENSOR_READ_ONLY)
    return TC_ERR(c, TABI_ERR_READ_ONLY, "%s: argument 'out' is read-only", OPN);
  if (args[0].tag == TABI_TAG_TENSOR && out->dl.device.device_id != args[0].u.t->dl.device.device_id)
    return TC_ERR(c, TABI_ERR_DEVICE, "%s: arguments on different " TC_PLATFORM " devices", OPN);
  tabi_value r;
  if ((st = run_binary(c, call, args, &r, &a_atan2, 0, NULL)) != TABI_OK) return st;
  tabi_dtype rd = tabi_tensor_dtype(r.u.t), od = tabi_tensor_dtype(out);
  if (!can_cast(rd, od))
    st = TC_ERR(c, TABI_ERR_TYPE, "%s: argument 'out': result type %s can't be cast to the desired "
                "output type %s", OPN, tabi_dtype_name(rd), tabi_dtype_name(od));
  int same = out->dl.ndim == r.u.t->dl.ndim;
  for (int32_t i = 0; same && i < out->dl.ndim; i++) same = out->dl.shape[i] == r.u.t->dl.shape[i];
  if (st == TABI_OK && !same) st = c->h->tensor_resize(c->h->ctx, out, r.u.t->dl.ndim, r.u.t->dl.shape);
  if (st == TABI_OK) st = tc_copy_convert(c, OPN, out, r.u.t);
  c->h->tensor_release(c->h->ctx, r.u.t);
  if (st != TABI_OK) return st;
  c->h->tensor_retain(c->h->ctx, out);
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

#define REG_UN(name, sel, dts, rule) {"prims::" #name, k_un_##name},
#define REG_BIN(name, sel, dts, rule) {"prims::" #name, k_bin_##name},
TC_KTABLE tc_kernel tc_ew_kernels[] = {
    UNARY_LIST(REG_UN) BINARY_LIST(REG_BIN)
    {"prims::where", k_where},
    {"prims::convert_element_type", k_convert},
    {"prims::conj", k_conj},
    {"aten::add.Tensor", k_add_t},
    {"aten::sub.Tensor", k_sub_t},
    {"aten::mul.Tensor", k_mul_t},
    {"aten::div.Tensor", k_div_t},
    {"aten::atan2.out", k_atan2_out},
    {NULL, NULL}};
