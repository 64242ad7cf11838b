/* plugins/cuda/tc_ew_ops.cu: the elementwise kernels as data: each prim is a
 * descriptor (accepted dtypes, result rule, element selector) run by one unary
 * and one binary driver, with the reference's checks and messages (prims
 * neither promote nor broadcast). The aten unary and binary ops are native
 * too, planned by the reference's own descriptors (tc_ref_glue.h), so each
 * runs in one launch where its decomposition took several. */
#include <stdio.h>

#include "tc.h"
#include "tc_ref_glue.h"

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

/* out = f(a) into a new tensor of outdt on a's device: the tail every unary
 * kernel shares once its checks have passed and p is set. */
static tabi_status unary_out(tc_ctx *c, const tabi_call *call, tabi_tensor *a, tabi_dtype outdt,
                             const tc_ew_params *p, tabi_value *outs) {
  const char *op = tc_op_name(c, call);
  tabi_status st = tc_check_cuda(c, a, op, arg_name(c, call, 0));
  if (st == TABI_OK) st = tc_use_device(c, a, op);
  if (st != TABI_OK) return st;
  tabi_tensor *o = NULL;
  if ((st = tc_empty(c, a->dl.device, outdt, a->dl.ndim, a->dl.shape, &o)) != TABI_OK) return st;
  tc_operand oo, ia;
  tc_operand_of(o, o->dl.ndim, o->dl.shape, &oo);
  tc_operand_of(a, o->dl.ndim, o->dl.shape, &ia);
  st = tc_ew_launch(c, op, o->dl.ndim, o->dl.shape, &oo, 1, &ia, p, NULL);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, o);
    return st;
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

static tabi_status run_unary(tc_ctx *c, const tabi_call *call, tabi_value *args,
                             tabi_value *outs, const ew_desc *d) {
  const char *op = tc_op_name(c, call);
  tabi_tensor *a = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(a), cd, outdt;
  tabi_status st = check_dtype(c, op, arg_name(c, call, 0), dt, d->dtypes);
  if (st != TABI_OK) return st;
  apply_rule(d->rule, dt, &cd, &outdt);
  tc_ew_params p;
  memset(&p, 0, sizeof p);
  p.op = d->op;
  p.cd = cd;
  return unary_out(c, call, a, outdt, &p, outs);
}

/* prims: same dtype, same shape (the aten forms plan through the reference's
 * descriptors: run_aten_binary). */
static tabi_status run_binary(tc_ctx *c, const tabi_call *call, tabi_value *args,
                              tabi_value *outs, const ew_desc *d) {
  const char *op = tc_op_name(c, call);
  const char *an = arg_name(c, call, 0), *bn = arg_name(c, call, 1);
  tabi_tensor *a = args[0].u.t, *b = args[1].u.t;
  tabi_status st;
  if ((st = tc_check_cuda(c, a, op, an)) != TABI_OK) return st;
  if ((st = tc_check_cuda(c, b, op, bn)) != TABI_OK) return st;
  if (a->dl.device.device_id != b->dl.device.device_id)
    return TC_ERR(c, TABI_ERR_DEVICE, "%s: arguments on different " TC_PLATFORM " devices", op);
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
  tabi_dtype common = da;
  int32_t nd = a->dl.ndim;
  const int64_t *shape = a->dl.shape;
  if ((st = check_dtype(c, op, an, common, d->dtypes)) != TABI_OK) return st;
  tabi_dtype cd, outdt;
  apply_rule(d->rule, common, &cd, &outdt);
  tc_ew_params p;
  memset(&p, 0, sizeof p);
  p.op = d->op;
  p.cd = cd;
  p.pi = 1; /* prims::add/sub: alpha 1 */
  p.pf = p.pc[0] = 1.0;
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
    return run_binary((tc_ctx *)ctx, call, args, outs, &d_bin_##name); \
  }
UNARY_LIST(DEF_UN)
BINARY_LIST(DEF_BIN)

/* aten unary ops (TC_ATEN_UNARY_LIST): the reference's descriptor plans the
 * call (dtypes, int-to-float promotion, parameters, their messages), the
 * engine runs it in one launch, where the decomposition took several (gelu
 * five kernels and three device constants, a float16 input two conversions
 * more). */
static tabi_status run_aten_unary(tc_ctx *c, const tabi_call *call, tabi_value *args,
                                  tabi_value *outs, int which, int sel) {
  tc_ew_aten_plan pl;
  tabi_status st = tc_ew_aten_unary_plan(c->h, call, args, which, &pl);
  if (st != TABI_OK) return st;
  tc_ew_params p;
  memset(&p, 0, sizeof p);
  p.op = sel;
  p.cd = pl.cd;
  p.pi = pl.pi;
  for (int k = 0; k < 3; k++) p.pa[k] = pl.pf[k];
  return unary_out(c, call, args[0].u.t, (tabi_dtype)pl.outdt, &p, outs);
}
#define DEF_AU(name, sel)                                          \
  static tabi_status k_au_##name(TC_ARGS) {                        \
    return run_aten_unary((tc_ctx *)ctx, call, args, outs, TC_AU_##name, sel); \
  }
TC_ATEN_UNARY_LIST(DEF_AU)

/* aten binary ops: the reference's descriptor plans the call (result_type
 * with ATen's wrapped-number rules, dtype checks, alpha, broadcasting, the
 * Scalar operand cast to the compute dtype); the engine runs it in one launch,
 * a Scalar operand riding in the launch parameters. X(descriptor, selector). */
#define TC_ATEN_BINARY_SEL(X)                                                                \
  X(add, TC_B_ADD) X(sub, TC_B_SUB) X(mul, TC_B_MUL) X(div, TC_B_DIV)                         \
  X(div_trunc, TC_B_DIV_TRUNC) X(div_floor, TC_B_DIV_FLOOR) X(atan2, TC_B_ATAN2)              \
  X(fmod, TC_B_FMOD) X(remainder, TC_B_REM) X(pow, TC_B_POW) X(pow_ts, TC_B_POW_TS)           \
  X(maximum, TC_B_MAXIMUM) X(minimum, TC_B_MINIMUM) X(and, TC_B_AND) X(or, TC_B_OR)           \
  X(xor, TC_B_XOR) X(eq, TC_B_EQ) X(ne, TC_B_NE) X(lt, TC_B_LT) X(le, TC_B_LE) X(gt, TC_B_GT) \
  X(ge, TC_B_GE) X(land, TC_B_LAND) X(lor, TC_B_LOR) X(lxor, TC_B_LXOR)
static int ab_sel(int which) {
#define TC_AB_SEL(name, sel) case TC_AB_##name: return sel;
  switch (which) { TC_ATEN_BINARY_SEL(TC_AB_SEL) }
#undef TC_AB_SEL
  return TC_B_COUNT; /* not reached: the plan refused `which` already */
}
#define TC_AB_ONE(name, sel) +1
static_assert((0 TC_ATEN_BINARY_SEL(TC_AB_ONE)) == TC_AB_COUNT,
              "TC_ATEN_BINARY_SEL must give every REF_EW_ATEN_BINARY_LIST descriptor a selector");

static tabi_status run_aten_binary(tc_ctx *c, const tabi_call *call, tabi_value *args,
                                   tabi_value *outs, int which) {
  const char *op = tc_op_name(c, call);
  tc_ew_aten_bplan pl;
  tabi_status st = tc_ew_aten_binary_plan(c->h, call, args, which, &pl);
  if (st != TABI_OK) return st;
  tabi_tensor *dev = NULL;
  for (int k = 0; k < 2; k++) {
    if (!pl.t[k]) continue;
    if ((st = tc_check_cuda(c, pl.t[k], op, arg_name(c, call, k))) != TABI_OK) return st;
    if (!dev) dev = pl.t[k];
    else if (dev->dl.device.device_id != pl.t[k]->dl.device.device_id)
      return TC_ERR(c, TABI_ERR_DEVICE, "%s: arguments on different " TC_PLATFORM " devices", op);
  }
  if (!dev) return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: expected a tensor operand", op);
  if ((st = tc_use_device(c, dev, op)) != TABI_OK) return st;
  tabi_tensor *o = NULL;
  if ((st = tc_empty(c, dev->dl.device, (tabi_dtype)pl.outdt, pl.nd, pl.shape, &o)) != TABI_OK) return st;
  tc_operand oo, in[2];
  tc_operand_of(o, pl.nd, pl.shape, &oo);
  tc_ew_params p;
  memset(&p, 0, sizeof p);
  for (int k = 0; k < 2; k++) {
    if (pl.t[k]) {
      tc_operand_of(pl.t[k], pl.nd, pl.shape, &in[k]);
    } else { /* the Scalar: a NULL operand, its value in p */
      memset(&in[k], 0, sizeof in[k]);
      in[k].dt = pl.cd;
      p.si[k] = pl.si[k];
      p.sf[k][0] = pl.sf[k][0];
      p.sf[k][1] = pl.sf[k][1];
    }
  }
  p.op = ab_sel(which);
  p.cd = pl.cd;
  p.pi = pl.pi;
  p.pf = pl.pf;
  p.pc[0] = pl.pc[0];
  p.pc[1] = pl.pc[1];
  p.plain_pow = pl.plain_pow;
  int zero_div = 0;
  st = tc_ew_launch(c, op, pl.nd, pl.shape, &oo, 2, in, &p, &zero_div);
  if (st == TABI_OK && zero_div) st = tc_ew_aten_zero_div_error(c->h, call);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, o);
    return st;
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}
static tabi_status run_aten_sub(TC_ARGS, int scalar_form) {
  tabi_status st = tc_ew_aten_sub_check(((tc_ctx *)ctx)->h, call, args, scalar_form);
  if (st != TABI_OK) return st;
  return run_aten_binary((tc_ctx *)ctx, call, args, outs, TC_AB_sub);
}
static tabi_status run_aten_div_mode(TC_ARGS) {
  int which = TC_AB_div;
  tabi_status st = tc_ew_aten_div_mode(((tc_ctx *)ctx)->h, call, args, &which);
  if (st != TABI_OK) return st;
  return run_aten_binary((tc_ctx *)ctx, call, args, outs, which);
}

/* X(kernel, aten op, how): the aten binary ops, each a thin kernel. */
#define TC_ATEN_BINARY_OPS(X)                                                            \
  X(add_t, "aten::add.Tensor", B(add)) X(add_s, "aten::add.Scalar", B(add))               \
  X(sub_t, "aten::sub.Tensor", run_aten_sub(ctx, call, args, outs, 0))                    \
  X(sub_s, "aten::sub.Scalar", run_aten_sub(ctx, call, args, outs, 1))                    \
  X(mul_t, "aten::mul.Tensor", B(mul)) X(mul_s, "aten::mul.Scalar", B(mul))               \
  X(div_t, "aten::div.Tensor", B(div)) X(div_s, "aten::div.Scalar", B(div))               \
  X(div_tm, "aten::div.Tensor_mode", run_aten_div_mode(ctx, call, args, outs))            \
  X(div_sm, "aten::div.Scalar_mode", run_aten_div_mode(ctx, call, args, outs))            \
  X(atan2, "aten::atan2", B(atan2))                                                       \
  X(fmod_t, "aten::fmod.Tensor", B(fmod)) X(fmod_s, "aten::fmod.Scalar", B(fmod))         \
  X(rem_t, "aten::remainder.Tensor", B(remainder))                                        \
  X(rem_s, "aten::remainder.Scalar", B(remainder))                                        \
  X(pow_tt, "aten::pow.Tensor_Tensor", B(pow)) X(pow_s, "aten::pow.Scalar", B(pow))       \
  X(pow_ts, "aten::pow.Tensor_Scalar", B(pow_ts))                                         \
  X(maximum, "aten::maximum", B(maximum)) X(minimum, "aten::minimum", B(minimum))         \
  X(and_t, "aten::bitwise_and.Tensor", B(and)) X(and_s, "aten::bitwise_and.Scalar", B(and)) \
  X(or_t, "aten::bitwise_or.Tensor", B(or)) X(or_s, "aten::bitwise_or.Scalar", B(or))     \
  X(xor_t, "aten::bitwise_xor.Tensor", B(xor)) X(xor_s, "aten::bitwise_xor.Scalar", B(xor)) \
  X(eq_t, "aten::eq.Tensor", B(eq)) X(eq_s, "aten::eq.Scalar", B(eq))                     \
  X(ne_t, "aten::ne.Tensor", B(ne)) X(ne_s, "aten::ne.Scalar", B(ne))                     \
  X(lt_t, "aten::lt.Tensor", B(lt)) X(lt_s, "aten::lt.Scalar", B(lt))                     \
  X(le_t, "aten::le.Tensor", B(le)) X(le_s, "aten::le.Scalar", B(le))                     \
  X(gt_t, "aten::gt.Tensor", B(gt)) X(gt_s, "aten::gt.Scalar", B(gt))                     \
  X(ge_t, "aten::ge.Tensor", B(ge)) X(ge_s, "aten::ge.Scalar", B(ge))                     \
  X(land, "aten::logical_and", B(land)) X(lor, "aten::logical_or", B(lor))                \
  X(lxor, "aten::logical_xor", B(lxor))
#define B(name) run_aten_binary((tc_ctx *)ctx, call, args, outs, TC_AB_##name)
#define DEF_AB(kname, opname, how) \
  static tabi_status k_ab_##kname(TC_ARGS) { return how; }
TC_ATEN_BINARY_OPS(DEF_AB)
#undef B

/* The operands of a three-input launch (t[0] present, t[1]/t[2] may be NULL)
 * on one device of this plugin, which is made current. */
static tabi_status three_on_device(tc_ctx *c, const tabi_call *call, tabi_tensor *const *t) {
  const char *op = tc_op_name(c, call);
  tabi_status st;
  for (int k = 0; k < 3; k++) {
    if (!t[k]) continue;
    if ((st = tc_check_cuda(c, t[k], op, arg_name(c, call, k))) != TABI_OK) return st;
    if (t[k]->dl.device.device_id != t[0]->dl.device.device_id)
      return TC_ERR(c, TABI_ERR_DEVICE, "%s: arguments on different " TC_PLATFORM " devices", op);
  }
  return tc_use_device(c, t[0], op);
}

/* where: aten::where.self (prim 0: promotion, broadcasting, a uint8
 * condition accepted) and prims::where (1), planned by the reference. */
static tabi_status run_where(tc_ctx *c, const tabi_call *call, tabi_value *args,
                             tabi_value *outs, int prim) {
  const char *op = tc_op_name(c, call);
  tc_ew_where_plan pl;
  tabi_status st = tc_ew_aten_where_plan(c->h, call, args, prim, &pl);
  if (st != TABI_OK) return st;
  tabi_tensor *t[3] = {args[0].u.t, args[1].u.t, args[2].u.t};
  if ((st = three_on_device(c, call, t)) != TABI_OK) return st;
  tabi_tensor *o = NULL;
  if ((st = tc_empty(c, t[0]->dl.device, (tabi_dtype)pl.rt, pl.nd, pl.shape, &o)) != TABI_OK) return st;
  tc_operand oo, in[3];
  tc_operand_of(o, pl.nd, pl.shape, &oo);
  for (int k = 0; k < 3; k++) tc_operand_of(t[k], pl.nd, pl.shape, &in[k]);
  tc_ew_params p;
  memset(&p, 0, sizeof p);
  p.op = TC_T_WHERE;
  p.cd = pl.rt;
  st = tc_ew_launch(c, op, pl.nd, pl.shape, &oo, 3, in, &p, NULL);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, o);
    return st;
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}
/* clamp.Tensor: planned by the reference (promotion over the present
 * bounds, broadcasting, the complex and bool refusals); one TC_T_CLAMP launch
 * with an absent bound's operand left NULL. */
static tabi_status k_clamp_tensor(TC_ARGS) {
  TC_CTX;
  tc_ew_clamp_tensor_plan pl;
  tabi_status st = tc_ew_aten_clamp_tensor_plan(c->h, call, args, &pl);
  if (st != TABI_OK) return st;
  tabi_tensor *t[3];
  for (int k = 0; k < 3; k++) t[k] = args[k].tag == TABI_TAG_TENSOR ? args[k].u.t : NULL;
  if ((st = three_on_device(c, call, t)) != TABI_OK) return st;
  tabi_tensor *o = NULL;
  if ((st = tc_empty(c, t[0]->dl.device, (tabi_dtype)pl.rt, pl.nd, pl.shape, &o)) != TABI_OK) return st;
  tc_operand oo, in[3];
  tc_operand_of(o, pl.nd, pl.shape, &oo);
  for (int k = 0; k < 3; k++) {
    if (t[k]) tc_operand_of(t[k], pl.nd, pl.shape, &in[k]);
    else memset(&in[k], 0, sizeof in[k]); /* NULL ptr, stride 0: never read */
  }
  tc_ew_params p;
  memset(&p, 0, sizeof p);
  p.op = TC_T_CLAMP;
  p.cd = pl.rt;
  p.pi = pl.flags;
  st = tc_ew_launch(c, OPN, pl.nd, pl.shape, &oo, 3, in, &p, NULL);
  return tc_finish(c, st, o, &outs[0]);
}

static tabi_status k_where(TC_ARGS) { return run_where((tc_ctx *)ctx, call, args, outs, 1); }
static tabi_status k_where_self(TC_ARGS) { return run_where((tc_ctx *)ctx, call, args, outs, 0); }

/* clamp/hardtanh with Scalar bounds, planned by the reference (promotion, the
 * bounds cast and checked, NaN rules): one TC_U_CLAMP launch. */
static tabi_status run_clamp(tc_ctx *c, const tabi_call *call, tabi_value *args,
                             tabi_value *outs, int hardtanh) {
  tc_ew_clamp_plan pl;
  tabi_status st = tc_ew_aten_clamp_plan(c->h, call, args, hardtanh, &pl);
  if (st != TABI_OK) return st;
  tc_ew_params p;
  memset(&p, 0, sizeof p);
  p.op = TC_U_CLAMP;
  p.cd = pl.rt;
  p.pi = pl.flags;
  p.si[0] = pl.lo_i;
  p.si[1] = pl.hi_i;
  p.pa[0] = pl.lo_f;
  p.pa[1] = pl.hi_f;
  return unary_out(c, call, args[0].u.t, (tabi_dtype)pl.rt, &p, outs);
}
static tabi_status k_clamp(TC_ARGS) { return run_clamp((tc_ctx *)ctx, call, args, outs, 0); }
static tabi_status k_hardtanh(TC_ARGS) { return run_clamp((tc_ctx *)ctx, call, args, outs, 1); }

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
  static const char *const names[2] = {"self", "other"};
  if ((st = rs_check_out_overlap(c->h, call, out, args, names, 2)) != TABI_OK) return st;
  tabi_value r;
  if ((st = run_aten_binary(c, call, args, &r, TC_AB_atan2)) != TABI_OK) return st;
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
#define REG_AU(name, sel) {"aten::" #name, k_au_##name},
TC_KTABLE tc_kernel tc_ew_kernels[] = {
    UNARY_LIST(REG_UN) BINARY_LIST(REG_BIN) TC_ATEN_UNARY_LIST(REG_AU)
    {"prims::where", k_where},
    {"aten::where.self", k_where_self},
    {"aten::clamp", k_clamp},
    {"aten::clamp.Tensor", k_clamp_tensor},
    {"aten::hardtanh", k_hardtanh},
    {"prims::convert_element_type", k_convert},
    {"prims::conj", k_conj},
#define REG_AB(kname, opname, how) {opname, k_ab_##kname},
    TC_ATEN_BINARY_OPS(REG_AB)
    {"aten::atan2.out", k_atan2_out},
    {NULL, NULL}};
