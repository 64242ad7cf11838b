/* plugins/cpu/cpu_elementwise_bin.c: the binary and three-operand elementwise ops
 * (aten and prims) on the fast engine (cpu_ew_engine.h).
 *
 * Semantics are ATen's, decided here before the engine runs: the result dtype is
 * ref_ew_result_type (dimensioned tensors > 0-d tensors > Scalars, by category),
 * alpha and other Scalar parameters are checked and cast to the compute dtype
 * with the reference's own helpers (so an out-of-range Scalar fails with the
 * reference's message), and a Scalar or 0-d operand is cast to the compute dtype
 * once, as a wrapped number. A dimensioned operand of another dtype than the
 * result (mixed-dtype tensors) go to the reference kernel; complex operands to
 * cpu_elementwise_cplx.c (add/sub/mul/div/eq/ne; the rest the reference) and
 * integer division / remainder to cpu_elementwise_int.c (iop).
 */
#include <math.h>
#include <string.h>

#include "../../reference/ref_elementwise.h"
#include "../../reference/ref_floordiv.h"
#include "../../reference/ref_pow.h"
#include "cpu_elementwise_cplx.h"
#include "cpu_elementwise_int.h"
#include "cpu_ew_engine.h"

#define ALL (REF_DTS_BOOL | REF_DTS_INT | REF_DTS_FLOAT)
#define BI (REF_DTS_BOOL | REF_DTS_INT)
#define INT REF_DTS_INT
#define F REF_DTS_FLOAT

#define D2(name, expr)                                                                  \
  static void name(double *x, const double *y, int64_t n, const cpu_ew_call *e) {       \
    for (int64_t i = 0; i < n; i++) {                                                   \
      double a = x[i], b = y[i];                                                        \
      x[i] = (expr);                                                                    \
    }                                                                                   \
  }
#define I2(name, expr)                                                                  \
  static void name(int64_t *x, const int64_t *y, int64_t n, const cpu_ew_call *e) {     \
    for (int64_t i = 0; i < n; i++) {                                                   \
      int64_t a = x[i], b = y[i];                                                       \
      x[i] = (expr);                                                                    \
    }                                                                                   \
  }
#define WRAP(expr) ((int64_t)(expr))

D2(d_add, a + e->pd[0] * b) D2(d_sub, a - e->pd[0] * b) D2(d_mul, a * b) D2(d_div, a / b)
D2(d_maximum, isnan(a) ? a : isnan(b) ? b : (a < b ? b : a))
D2(d_minimum, isnan(a) ? a : isnan(b) ? b : (b < a ? b : a))
D2(d_fmax, fmax(a, b)) D2(d_fmin, fmin(a, b))
D2(d_eq, a == b) D2(d_ne, a != b) D2(d_lt, a < b) D2(d_le, a <= b) D2(d_gt, a > b)
D2(d_ge, a >= b) D2(d_land, a != 0 && b != 0) D2(d_lor, a != 0 || b != 0)
D2(d_lxor, (a != 0) != (b != 0)) D2(d_atan2, atan2(a, b)) D2(d_hypot, hypot(a, b))
D2(d_fmod, fmod(a, b)) D2(d_pow, pow(a, b))
/* remainder: the sign follows the divisor; the correction rounds to the op's precision */
static void d_remainder(double *x, const double *y, int64_t n, const cpu_ew_call *e) {
  for (int64_t i = 0; i < n; i++) {
    double a = x[i], b = y[i], mod = fmod(a, b);
    if (mod != 0 && ((b < 0) != (mod < 0)))
      mod = e->cd == TABI_DTYPE_FLOAT64 ? mod + b : (double)(float)(mod + b);
    x[i] = mod;
  }
}
/* ATen's div_floor_floating (Python's //), in the op's precision (half types in float):
   the reference's own functions (ref_floordiv.h) */
D2(d_div_floor,
   e->cd == TABI_DTYPE_FLOAT64 ? ref_floordiv_f64(a, b) : ref_floordiv_f32((float)a, (float)b))
/* the quotient rounds to the op's precision first, as ATen */
D2(d_div_trunc, trunc(e->cd == TABI_DTYPE_FLOAT64 ? a / b : (double)(float)(a / b)))

I2(i_add, WRAP((uint64_t)a + (uint64_t)e->pi[0] * (uint64_t)b))
I2(i_sub, WRAP((uint64_t)a - (uint64_t)e->pi[0] * (uint64_t)b))
I2(i_mul, WRAP((uint64_t)a * (uint64_t)b))
I2(i_max, a < b ? b : a) I2(i_min, b < a ? b : a)
I2(i_eq, a == b) I2(i_ne, a != b) I2(i_lt, a < b) I2(i_le, a <= b) I2(i_gt, a > b)
I2(i_ge, a >= b) I2(i_land, a && b) I2(i_lor, a || b) I2(i_lxor, !a != !b)
I2(i_and, a & b) I2(i_or, a | b) I2(i_xor, a ^ b)

/* --- binary ------------------------------------------------------------------------- */

enum { R_SAME, R_FLOAT, R_BOOL }; /* R_FLOAT: bool/integer operands compute in float32 */

typedef struct ew_bin {
  int32_t fop;
  cpu_ew_dfn dfn;
  cpu_ew_ifn ifn;
  uint32_t dts;   /* promoted dtypes the reference accepts */
  int32_t rule;
  int32_t alpha;  /* args[2] is alpha (aten add/sub) */
  int32_t prim;   /* no promotion, no broadcasting */
  int32_t heavy;
  int32_t iop;    /* 1 + CPU_IDIV_*: integer results go to cpu_ew_int_divmod first */
} ew_bin;

static int is_complex_operand(const tabi_value *v) {
  return v->tag == TABI_TAG_COMPLEX ||
         (v->tag == TABI_TAG_TENSOR && tabi_dtype_is_complex(tabi_tensor_dtype(v->u.t)));
}
static int is_bool_operand(const tabi_value *v) {
  return v->tag == TABI_TAG_BOOL ||
         (v->tag == TABI_TAG_TENSOR && tabi_tensor_dtype(v->u.t) == TABI_DTYPE_BOOL);
}

static tabi_status ew_binary(const cpu_ctx *c, const tabi_call *call, tabi_value *args,
                             tabi_value *outs, const ew_bin *d) {
  const tabi_value *a = &args[0], *b = &args[1];
  tabi_dtype common;
  if (d->iop) {
    tabi_status st = cpu_ew_int_divmod(c, call, args, outs, d->iop - 1, d->prim);
    if (st != CPU_EW_DECLINE) return st;
  }
  if (is_complex_operand(a) || is_complex_operand(b))
    return cpu_ew_cplx_binary(c, call, args, outs, d->fop, d->alpha, d->prim);
  if (d->prim) {
    if (a->tag != TABI_TAG_TENSOR || b->tag != TABI_TAG_TENSOR) return CPU_EW_DECLINE;
    common = tabi_tensor_dtype(a->u.t);
    if (tabi_tensor_dtype(b->u.t) != common || !cpu_same_shape(a->u.t, b->u.t))
      return CPU_EW_DECLINE;
  } else {
    if (a->tag != TABI_TAG_TENSOR && b->tag != TABI_TAG_TENSOR) return CPU_EW_DECLINE;
    common = ref_ew_result_type(a, b, NULL);
  }
  if (!(d->dts & REF_DT(common))) return CPU_EW_DECLINE;
  cpu_ew_call e = {0};
  e.kind = CPU_EWK_BINARY;
  e.in[0] = a;
  e.in[1] = b;
  e.cd = common;
  if (d->rule == R_FLOAT && !tabi_dtype_is_floating(common)) e.cd = TABI_DTYPE_FLOAT32;
  e.od = d->rule == R_BOOL ? TABI_DTYPE_BOOL : e.cd;
  e.fop = d->fop;
  e.dfn = d->dfn;
  e.ifn = d->ifn;
  e.heavy = d->heavy;
  e.f[0] = 1.0f;
  e.pd[0] = 1.0;
  e.pi[0] = 1;
  if (d->alpha) {
    /* the reference's alpha_check, by declining: it reports the error */
    const tabi_value *al = &args[2];
    int fl = tabi_dtype_is_floating(common);
    if (al->tag == TABI_TAG_BOOL && common != TABI_DTYPE_BOOL) return CPU_EW_DECLINE;
    if (al->tag != TABI_TAG_BOOL && al->tag != TABI_TAG_INT && al->tag != TABI_TAG_FLOAT)
      return CPU_EW_DECLINE;
    if (!fl && al->tag == TABI_TAG_FLOAT) return CPU_EW_DECLINE;
    ref_ew_val v;
    tabi_status st = ref_ew_scalar_to(c->host, call, "alpha", al, common, &v);
    if (st != TABI_OK) return st;
    e.f[0] = (float)v.f;
    e.pd[0] = v.f;
    e.pi[0] = v.i;
  }
  return cpu_ew_run(c, &e, outs);
}

#define BINX(kname, id, fop, dfn, ifn, dts, rule, alpha, prim, heavy, iop)                \
  tabi_status kname(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) { \
    static const ew_bin d = {fop, dfn, ifn, dts, rule, alpha, prim, heavy, iop};          \
    const cpu_ctx *c = ctx;                                                               \
    tabi_status st = ew_binary(c, call, args, outs, &d);                                  \
    return st != CPU_EW_DECLINE ? st : CPU_FALLBACK(c, id);                               \
  }
#define BIN(kname, id, fop, dfn, ifn, dts, rule, alpha, prim, heavy) \
  BINX(kname, id, fop, dfn, ifn, dts, rule, alpha, prim, heavy, 0)
#define N NULL
#define IQ(x) (1 + CPU_IDIV_##x)
#define B(x) CPU_EWB_##x

BIN(cpu_k_add_tensor, ADD_TENSOR, B(ADD), d_add, i_add, ALL, R_SAME, 1, 0, 0)
BIN(cpu_k_add_scalar, ADD_SCALAR, B(ADD), d_add, i_add, ALL, R_SAME, 1, 0, 0)
BIN(cpu_k_mul_tensor, MUL_TENSOR, B(MUL), d_mul, i_mul, ALL, R_SAME, 0, 0, 0)
BIN(cpu_k_mul_scalar, MUL_SCALAR, B(MUL), d_mul, i_mul, ALL, R_SAME, 0, 0, 0)
BIN(cpu_k_div_tensor, DIV_TENSOR, B(DIV), d_div, N, ALL, R_FLOAT, 0, 0, 0)
BIN(cpu_k_div_scalar, DIV_SCALAR, B(DIV), d_div, N, ALL, R_FLOAT, 0, 0, 0)
BIN(cpu_k_maximum, MAXIMUM, B(MAXIMUM), d_maximum, i_max, BI | F, R_SAME, 0, 0, 0)
BIN(cpu_k_minimum, MINIMUM, B(MINIMUM), d_minimum, i_min, BI | F, R_SAME, 0, 0, 0)
BIN(cpu_k_eq_tensor, EQ_TENSOR, B(EQ), d_eq, i_eq, ALL, R_BOOL, 0, 0, 0)
BIN(cpu_k_eq_scalar, EQ_SCALAR, B(EQ), d_eq, i_eq, ALL, R_BOOL, 0, 0, 0)
BIN(cpu_k_ne_tensor, NE_TENSOR, B(NE), d_ne, i_ne, ALL, R_BOOL, 0, 0, 0)
BIN(cpu_k_ne_scalar, NE_SCALAR, B(NE), d_ne, i_ne, ALL, R_BOOL, 0, 0, 0)
BIN(cpu_k_lt_tensor, LT_TENSOR, B(LT), d_lt, i_lt, BI | F, R_BOOL, 0, 0, 0)
BIN(cpu_k_lt_scalar, LT_SCALAR, B(LT), d_lt, i_lt, BI | F, R_BOOL, 0, 0, 0)
BIN(cpu_k_le_tensor, LE_TENSOR, B(LE), d_le, i_le, BI | F, R_BOOL, 0, 0, 0)
BIN(cpu_k_le_scalar, LE_SCALAR, B(LE), d_le, i_le, BI | F, R_BOOL, 0, 0, 0)
BIN(cpu_k_gt_tensor, GT_TENSOR, B(GT), d_gt, i_gt, BI | F, R_BOOL, 0, 0, 0)
BIN(cpu_k_gt_scalar, GT_SCALAR, B(GT), d_gt, i_gt, BI | F, R_BOOL, 0, 0, 0)
BIN(cpu_k_ge_tensor, GE_TENSOR, B(GE), d_ge, i_ge, BI | F, R_BOOL, 0, 0, 0)
BIN(cpu_k_ge_scalar, GE_SCALAR, B(GE), d_ge, i_ge, BI | F, R_BOOL, 0, 0, 0)
BIN(cpu_k_logical_and, LOGICAL_AND, B(LAND), d_land, i_land, ALL, R_BOOL, 0, 0, 0)
BIN(cpu_k_logical_or, LOGICAL_OR, B(LOR), d_lor, i_lor, ALL, R_BOOL, 0, 0, 0)
BIN(cpu_k_logical_xor, LOGICAL_XOR, B(LXOR), d_lxor, i_lxor, ALL, R_BOOL, 0, 0, 0)
BIN(cpu_k_and_tensor, AND_TENSOR, -1, N, i_and, BI, R_SAME, 0, 0, 0)
BIN(cpu_k_and_scalar, AND_SCALAR, -1, N, i_and, BI, R_SAME, 0, 0, 0)
BIN(cpu_k_or_tensor, OR_TENSOR, -1, N, i_or, BI, R_SAME, 0, 0, 0)
BIN(cpu_k_or_scalar, OR_SCALAR, -1, N, i_or, BI, R_SAME, 0, 0, 0)
BIN(cpu_k_xor_tensor, XOR_TENSOR, -1, N, i_xor, BI, R_SAME, 0, 0, 0)
BIN(cpu_k_xor_scalar, XOR_SCALAR, -1, N, i_xor, BI, R_SAME, 0, 0, 0)
BIN(cpu_k_atan2, ATAN2, B(ATAN2), d_atan2, N, BI | F, R_FLOAT, 0, 0, 1)
BINX(cpu_k_fmod_tensor, FMOD_TENSOR, -1, d_fmod, N, F, R_SAME, 0, 0, 2, IQ(FMOD))
BINX(cpu_k_fmod_scalar, FMOD_SCALAR, -1, d_fmod, N, F, R_SAME, 0, 0, 2, IQ(FMOD))
BIN(cpu_k_pow_tt, POW_TT, -1, d_pow, N, F, R_SAME, 0, 0, 2)
BINX(cpu_k_remainder_tensor, REMAINDER_TENSOR, -1, d_remainder, N, F, R_SAME, 0, 0, 2, IQ(REM))
BINX(cpu_k_remainder_scalar, REMAINDER_SCALAR, -1, d_remainder, N, F, R_SAME, 0, 0, 2, IQ(REM))

BIN(cpu_k_p_add, P_ADD, B(ADD), d_add, i_add, ALL, R_SAME, 0, 1, 0)
BIN(cpu_k_p_sub, P_SUB, B(SUB), d_sub, i_sub, INT | F, R_SAME, 0, 1, 0)
BIN(cpu_k_p_mul, P_MUL, B(MUL), d_mul, i_mul, ALL, R_SAME, 0, 1, 0)
BINX(cpu_k_p_div, P_DIV, B(DIV), d_div, N, F, R_SAME, 0, 1, 0, IQ(TRUNC))
BIN(cpu_k_p_eq, P_EQ, B(EQ), d_eq, i_eq, ALL, R_BOOL, 0, 1, 0)
BIN(cpu_k_p_ne, P_NE, B(NE), d_ne, i_ne, ALL, R_BOOL, 0, 1, 0)
BIN(cpu_k_p_lt, P_LT, B(LT), d_lt, i_lt, BI | F, R_BOOL, 0, 1, 0)
BIN(cpu_k_p_le, P_LE, B(LE), d_le, i_le, BI | F, R_BOOL, 0, 1, 0)
BIN(cpu_k_p_gt, P_GT, B(GT), d_gt, i_gt, BI | F, R_BOOL, 0, 1, 0)
BIN(cpu_k_p_ge, P_GE, B(GE), d_ge, i_ge, BI | F, R_BOOL, 0, 1, 0)
BIN(cpu_k_p_maximum, P_MAXIMUM, B(MAXIMUM), d_maximum, i_max, BI | F, R_SAME, 0, 1, 0)
BIN(cpu_k_p_minimum, P_MINIMUM, B(MINIMUM), d_minimum, i_min, BI | F, R_SAME, 0, 1, 0)
BIN(cpu_k_p_fmax, P_FMAX, -1, d_fmax, i_max, BI | F, R_SAME, 0, 1, 0)
BIN(cpu_k_p_fmin, P_FMIN, -1, d_fmin, i_min, BI | F, R_SAME, 0, 1, 0)
BIN(cpu_k_p_and, P_AND, -1, N, i_and, BI, R_SAME, 0, 1, 0)
BIN(cpu_k_p_or, P_OR, -1, N, i_or, BI, R_SAME, 0, 1, 0)
BIN(cpu_k_p_xor, P_XOR, -1, N, i_xor, BI, R_SAME, 0, 1, 0)
BIN(cpu_k_p_atan2, P_ATAN2, B(ATAN2), d_atan2, N, F, R_SAME, 0, 1, 1)
BIN(cpu_k_p_hypot, P_HYPOT, -1, d_hypot, N, F, R_SAME, 0, 1, 2)
BINX(cpu_k_p_fmod, P_FMOD, -1, d_fmod, N, F, R_SAME, 0, 1, 2, IQ(FMOD))
BIN(cpu_k_p_pow, P_POW, -1, d_pow, N, F, R_SAME, 0, 1, 2)
BINX(cpu_k_p_remainder, P_REMAINDER, -1, d_remainder, N, F, R_SAME, 0, 1, 2, IQ(REM))

/* sub refuses bool operands (the reference words the error) */
static tabi_status sub_k(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  static const ew_bin d = {B(SUB), d_sub, i_sub, ALL, R_SAME, 1, 0, 0, 0};
  if (is_bool_operand(&args[0]) || is_bool_operand(&args[1])) return CPU_EW_DECLINE;
  return ew_binary(ctx, call, args, outs, &d);
}
tabi_status cpu_k_sub_tensor(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  tabi_status st = sub_k(ctx, call, args, outs);
  return st != CPU_EW_DECLINE ? st : CPU_FALLBACK((const cpu_ctx *)ctx, SUB_TENSOR);
}
tabi_status cpu_k_sub_scalar(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  tabi_status st = sub_k(ctx, call, args, outs);
  return st != CPU_EW_DECLINE ? st : CPU_FALLBACK((const cpu_ctx *)ctx, SUB_SCALAR);
}

/* div with rounding_mode: None is true division; "trunc" and "floor" floats and
 * integers (cpu_elementwise_int.c) */
static tabi_status div_mode_k(void *ctx, const tabi_call *call, tabi_value *args,
                              tabi_value *outs) {
  static const ew_bin plain = {B(DIV), d_div, N, ALL, R_FLOAT, 0, 0, 0, 0};
  static const ew_bin trunc_mode = {-1, d_div_trunc, N, F, R_SAME, 0, 0, 0, IQ(TRUNC)};
  static const ew_bin floor_mode = {-1, d_div_floor, N, F, R_SAME, 0, 0, 2, IQ(FLOOR)};
  if (args[2].tag == TABI_TAG_NONE) return ew_binary(ctx, call, args, outs, &plain);
  if (ref_ew_str_is(&args[2], "trunc")) return ew_binary(ctx, call, args, outs, &trunc_mode);
  if (ref_ew_str_is(&args[2], "floor")) return ew_binary(ctx, call, args, outs, &floor_mode);
  return CPU_EW_DECLINE;
}
tabi_status cpu_k_div_tensor_mode(void *ctx, const tabi_call *call, tabi_value *args,
                                  tabi_value *outs) {
  tabi_status st = div_mode_k(ctx, call, args, outs);
  return st != CPU_EW_DECLINE ? st : CPU_FALLBACK((const cpu_ctx *)ctx, DIV_TENSOR_MODE);
}
tabi_status cpu_k_div_scalar_mode(void *ctx, const tabi_call *call, tabi_value *args,
                                  tabi_value *outs) {
  tabi_status st = div_mode_k(ctx, call, args, outs);
  return st != CPU_EW_DECLINE ? st : CPU_FALLBACK((const cpu_ctx *)ctx, DIV_SCALAR_MODE);
}

/* pow.Tensor_Scalar in double: the reference's ref_pow.h (below, a special
   exponent of a float32/16/bf16 input takes a vector unary kind instead) */
D2(d_pow_ts, ref_pow_ts(a, b))

tabi_status cpu_k_pow_ts(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  const tabi_value *ex = &args[1];
  if (args[0].tag != TABI_TAG_TENSOR || (ex->tag != TABI_TAG_INT && ex->tag != TABI_TAG_FLOAT))
    return CPU_FALLBACK(c, POW_TS);
  tabi_dtype dt = tabi_tensor_dtype(args[0].u.t);
  if (!tabi_dtype_is_floating(dt)) return CPU_FALLBACK(c, POW_TS);
  /* ATen takes a float32 tensor's exponent as a double, never range-checked
     (pow(x, 1e308) is inf or 0); a half's must fit its dtype */
  ref_ew_val v;
  tabi_status st = TABI_OK;
  if (dt != TABI_DTYPE_FLOAT32) st = ref_ew_scalar_to(c->host, call, "exponent", ex, dt, &v);
  if (st != TABI_OK) return st;
  double b = dt == TABI_DTYPE_FLOAT32 ? tabi_value_as_double(ex) : v.f;
  cpu_ew_call e = {0};
  e.kind = CPU_EWK_BINARY;
  e.in[0] = &args[0];
  e.in[1] = ex;
  e.cd = e.od = dt;
  e.dfn = d_pow_ts;
  e.heavy = 2;
  e.fop = -1;
  int u = b == 0 ? CPU_EWU_FILL : b == 1 ? CPU_EWU_COPY : b == 0.5 ? CPU_EWU_SQRT
        : b == -0.5 ? CPU_EWU_RSQRT : b == -1 ? CPU_EWU_RECIP : b == 2 ? CPU_EWU_SQUARE
        : b == 3 ? CPU_EWU_CUBE : b == -2 ? CPU_EWU_RSQUARE : -1;
  if (u >= 0 && dt != TABI_DTYPE_FLOAT64) {
    e.kind = CPU_EWK_UNARY;
    e.fop = u;
    e.f[0] = 1.0f;
    e.heavy = 0;
  }
  st = cpu_ew_run(c, &e, outs);
  return st != CPU_EW_DECLINE ? st : CPU_FALLBACK(c, POW_TS);
}

/* --- where ----------------------------------------------------------------------------- */

static tabi_status where_k(const cpu_ctx *c, tabi_value *args, tabi_value *outs, int prim) {
  for (int k = 0; k < 3; k++)
    if (args[k].tag != TABI_TAG_TENSOR) return CPU_EW_DECLINE;
  if (tabi_tensor_dtype(args[0].u.t) != TABI_DTYPE_BOOL) return CPU_EW_DECLINE;
  tabi_dtype rt;
  if (prim) {
    rt = tabi_tensor_dtype(args[1].u.t);
    if (tabi_tensor_dtype(args[2].u.t) != rt || !cpu_same_shape(args[0].u.t, args[1].u.t) ||
        !cpu_same_shape(args[0].u.t, args[2].u.t))
      return CPU_EW_DECLINE;
  } else {
    rt = ref_ew_result_type(&args[1], &args[2], NULL);
  }
  cpu_ew_call e = {0};
  e.kind = CPU_EWK_WHERE;
  for (int k = 0; k < 3; k++) e.in[k] = &args[k];
  e.cd = e.od = rt;
  e.fop = -1;
  return cpu_ew_run(c, &e, outs);
}
tabi_status cpu_k_where(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  tabi_status st = where_k(ctx, args, outs, 0);
  return st != CPU_EW_DECLINE ? st : CPU_FALLBACK((const cpu_ctx *)ctx, WHERE_SELF);
}
tabi_status cpu_k_p_where(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  tabi_status st = where_k(ctx, args, outs, 1);
  return st != CPU_EW_DECLINE ? st : CPU_FALLBACK((const cpu_ctx *)ctx, P_WHERE);
}

/* --- clamp with Scalar bounds, hardtanh ------------------------------------------------ */

/* a NaN element stays NaN; min applies first, then max (min > max gives max) */
static void d_clamp(double *x, const double *y, int64_t n, const cpu_ew_call *e) {
  for (int64_t i = 0; i < n; i++) {
    double v = x[i];
    if (!isnan(v)) {
      if (v < e->pd[0]) v = e->pd[0];
      if (v > e->pd[1]) v = e->pd[1];
    }
    x[i] = v;
  }
}
static void i_clamp(int64_t *x, const int64_t *y, int64_t n, const cpu_ew_call *e) {
  for (int64_t i = 0; i < n; i++) {
    int64_t v = x[i];
    if (v < e->pi[0]) v = e->pi[0];
    if (v > e->pi[1]) v = e->pi[1];
    x[i] = v;
  }
}

static tabi_status clamp_k(const cpu_ctx *c, const tabi_call *call, tabi_value *args,
                           tabi_value *outs, const char *mn_name, const char *mx_name,
                           int float_only) {
  if (args[0].tag != TABI_TAG_TENSOR) return CPU_EW_DECLINE;
  const tabi_value *mn = &args[1], *mx = &args[2];
  int has_min = mn->tag != TABI_TAG_NONE, has_max = mx->tag != TABI_TAG_NONE;
  if (!has_min && !has_max) return CPU_EW_DECLINE;
  for (int k = 1; k < 3; k++)
    if (args[k].tag != TABI_TAG_NONE && args[k].tag != TABI_TAG_INT &&
        args[k].tag != TABI_TAG_FLOAT && args[k].tag != TABI_TAG_BOOL)
      return CPU_EW_DECLINE;
  tabi_dtype dt = tabi_tensor_dtype(args[0].u.t);
  int fl = tabi_dtype_is_floating(dt);
  if (!fl && (float_only || !tabi_dtype_is_integral(dt, 0))) return CPU_EW_DECLINE;
  if (!fl && ref_ew_result_type(&args[0], mn, mx) != dt) return CPU_EW_DECLINE;
  if (fl && has_min && has_max &&
      (isnan(tabi_value_as_double(mn)) || isnan(tabi_value_as_double(mx))))
    return CPU_EW_DECLINE; /* every element NaN: the reference */
  ref_ew_val lo = {0, -INFINITY, 0}, hi = {0, INFINITY, 0};
  lo.i = INT64_MIN;
  hi.i = INT64_MAX;
  tabi_status st;
  if (has_min && (st = ref_ew_scalar_to(c->host, call, mn_name, mn, dt, &lo)) != TABI_OK) return st;
  if (has_max && (st = ref_ew_scalar_to(c->host, call, mx_name, mx, dt, &hi)) != TABI_OK) return st;
  cpu_ew_call e = {0};
  e.kind = CPU_EWK_UNARY;
  e.in[0] = &args[0];
  e.cd = e.od = dt;
  e.fop = CPU_EWU_CLAMP;
  e.dfn = d_clamp;
  e.ifn = i_clamp;
  e.f[0] = (float)lo.f;
  e.f[1] = (float)hi.f;
  e.pd[0] = lo.f;
  e.pd[1] = hi.f;
  e.pi[0] = lo.i;
  e.pi[1] = hi.i;
  return cpu_ew_run(c, &e, outs);
}
tabi_status cpu_k_clamp(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  tabi_status st = clamp_k(ctx, call, args, outs, "min", "max", 0);
  return st != CPU_EW_DECLINE ? st : CPU_FALLBACK((const cpu_ctx *)ctx, CLAMP);
}
tabi_status cpu_k_hardtanh(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  tabi_status st = clamp_k(ctx, call, args, outs, "min_val", "max_val", 1);
  return st != CPU_EW_DECLINE ? st : CPU_FALLBACK((const cpu_ctx *)ctx, HARDTANH);
}
