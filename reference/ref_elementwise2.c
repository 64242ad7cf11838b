/* reference/ref_elementwise2.c: binary elementwise ops (aten and prims), as data.
 *
 * Each op is a descriptor run by ref_ew_binary_kernel (broadcasting and ATen's
 * result_type for aten; equal shapes and dtypes for prims). Integer division and
 * remainder by zero are errors, as ATen raises ZeroDivisionError; INT_MIN / -1
 * wraps (ATen's own CPU kernel traps there, which no reference may do).
 */
#include "ref_cplx_util.h"
#include "ref_elementwise.h"
#include "ref_elementwise_special.h"

#include <math.h>

#include "ref_floordiv.h" /* floor division: one copy with the CPU and GPU plugins */
#include "ref_pow.h"      /* integer pow, pow.Tensor_Scalar of a real base: likewise */
#include "ref_nextafter16.h" /* nextafter in float16/bfloat16: likewise */

#define ALL REF_DTS_ALL
#define BI (REF_DTS_BOOL | REF_DTS_INT)
#define INT REF_DTS_INT
#define F REF_DTS_FLOAT
#define C REF_DTS_COMPLEX
#define F2 (REF_DT(TABI_DTYPE_FLOAT32) | REF_DT(TABI_DTYPE_FLOAT64))

#define FN_I(name, expr) static int64_t name(int64_t a, int64_t b, ref_ew_ctx *x) { return (expr); }
#define FN_F(name, expr) static double name(double a, double b, ref_ew_ctx *x) { return (expr); }
#define FN_C(name, expr) static ref_cplx name(ref_cplx a, ref_cplx b, ref_ew_ctx *x) { return (expr); }

/* --- arithmetic ----------------------------------------------------------------- */

/* add/sub with alpha (x->p*[0], cast to the compute dtype); prims use alpha = 1 */
FN_I(i_add, ref_wrap_add(a, ref_wrap_mul(x->pi[0], b)))
FN_F(f_add, a + x->pf[0] * b)
FN_C(c_add, a + x->pc[0] * b)
FN_I(i_sub, ref_wrap_sub(a, ref_wrap_mul(x->pi[0], b)))
FN_F(f_sub, a - x->pf[0] * b)
FN_C(c_sub, a - x->pc[0] * b)
FN_I(i_mul, ref_wrap_mul(a, b)) FN_F(f_mul, a * b) FN_C(c_mul, a * b)
/* complex: c10::complex division (Smith's algorithm), as ATen computes a / b */
FN_F(f_div, a / b) FN_C(c_div, ref_c10_div(a, b))

static int64_t i_div_trunc(int64_t a, int64_t b, ref_ew_ctx *x) {
  if (b == 0) { x->err = REF_EW_ERR_ZERO_DIV; return 0; }
  if (b == -1) return ref_wrap_neg(a); /* INT64_MIN / -1 wraps */
  return a / b;
}
static double f_div_trunc(double a, double b, ref_ew_ctx *x) {
  return trunc(ref_ew_round_opmath(a / b, x->cd)); /* the quotient rounds first, as ATen */
}

static int64_t i_div_floor(int64_t a, int64_t b, ref_ew_ctx *x) {
  if (b == 0) { x->err = REF_EW_ERR_ZERO_DIV; return 0; }
  if (b == -1) return ref_wrap_neg(a);
  int64_t q = a / b, r = a % b;
  return (r != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static double f_div_floor(double a, double b, ref_ew_ctx *x) {
  if (x->cd == TABI_DTYPE_FLOAT64) return ref_floordiv_f64(a, b);
  return ref_floordiv_f32((float)a, (float)b); /* float16/bfloat16 compute in float */
}

/* fmod: the sign follows the dividend; remainder: the sign follows the divisor. */
static int64_t i_fmod(int64_t a, int64_t b, ref_ew_ctx *x) {
  if (b == 0) { x->err = REF_EW_ERR_ZERO_DIV; return 0; }
  return b == -1 ? 0 : a % b;
}
FN_F(f_fmod, fmod(a, b))
static int64_t i_remainder(int64_t a, int64_t b, ref_ew_ctx *x) {
  if (b == 0) { x->err = REF_EW_ERR_ZERO_DIV; return 0; }
  int64_t r = b == -1 ? 0 : a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
static double f_remainder(double a, double b, ref_ew_ctx *x) {
  double mod = fmod(a, b);
  if (mod != 0 && ((b < 0) != (mod < 0))) mod = ref_ew_round_opmath(mod + b, x->cd);
  return mod;
}

/* ATen's powi (ref_pow.h) */
static int64_t i_pow(int64_t a, int64_t b, ref_ew_ctx *x) { return ref_powi(a, b); }
FN_F(f_pow, pow(a, b))
/* ATen's std::pow(c10::complex) is libstdc++'s std::pow(std::complex), which
 * (with C99 complex support, as on every glibc build) is __builtin_cpow: C's
 * cpow = cexp(b * clog(a)), no zero-base shortcut (0^0 and 0^NaN are NaN, 0^-1 is
 * inf+NaNj). The shortcut `x == 0 ? 0 : exp(y*log(x))` is only libstdc++'s
 * fallback for builds without C99 complex. complex64 is std::pow(complex<float>),
 * glibc's cpowf: y * log(x) is formed in float, where it overflows or loses a
 * tiny log|x| that double keeps (NaN where double gives 0 at the range's edges), so
 * complex64 computes in float here, as ATen does. */
static ref_cplx c_pow(ref_cplx a, ref_cplx b, ref_ew_ctx *x) {
  if (x->cd == TABI_DTYPE_COMPLEX64) {
    float _Complex r = cpowf((float _Complex)a, (float _Complex)b);
    return CMPLX((double)crealf(r), (double)cimagf(r));
  }
  return cpow(a, b);
}

/* pow.Tensor_Scalar: ATen special-cases these exponents (sqrt keeps -0.0 and
 * gives NaN for -inf, unlike pow): ref_pow.h for a real base. */
/* ATen tests the special exponents on the Scalar itself (prep_pow_ts keeps it
 * in pi[1], pf[1], pc[1] for a float32 or complex64 base), then raises to it
 * rounded to the dtype: 1e-310 is not the special 0, yet becomes 0 in float,
 * so x^1e-310 is powf(x, 0) (1, as ATen's vectorized loop gives; its scalar
 * tail uses the double and gives NaN for -1) and a complex 0^(1e-310 + 0j)
 * is cpowf's NaN, not the special case's 1. */
static double f_pow_ts(double a, double b, ref_ew_ctx *x) {
  return x->pi[1] && x->pf[1] != b ? pow(a, b) : ref_pow_ts(a, b);
}
static ref_cplx c_pow_ts(ref_cplx a, ref_cplx b, ref_ew_ctx *x) {
  ref_cplx e = x->pi[1] ? x->pc[1] : b;
  if (e == 0) return 1.0;
  if (e == 1) return a;
  if (e == 0.5) return csqrt(a);
  if (e == -0.5) return ref_c10_div(1.0, csqrt(a)); /* ATen's rsqrt kernel */
  if (e == -1) return ref_c10_div(1.0, a);            /* ATen's reciprocal kernel */
  if (e == 2) return a * a;
  if (e == 3) return a * a * a;
  if (e == -2) return ref_c10_div(1.0, a * a);
  return c_pow(a, b, x);
}

FN_F(f_atan2, atan2(a, b)) FN_F(f_hypot, hypot(a, b))
FN_F(f_igamma, ref_sf_igamma(a, b)) FN_F(f_igammac, ref_sf_igammac(a, b))
FN_F(f_zeta, ref_sf_zeta(a, b))

/* maximum/minimum propagate NaN; fmax/fmin ignore it. */
FN_I(i_max, a < b ? b : a) FN_I(i_min, b < a ? b : a)
FN_F(f_maximum, isnan(a) ? a : isnan(b) ? b : (a < b ? b : a))
FN_F(f_minimum, isnan(a) ? a : isnan(b) ? b : (b < a ? b : a))
FN_F(f_fmax, fmax(a, b)) FN_F(f_fmin, fmin(a, b))

FN_I(i_and, a & b) FN_I(i_or, a | b) FN_I(i_xor, a ^ b)

/* Shifts by a negative amount or by the width or more are defined as ATen defines
 * them: left gives 0, right gives the sign fill. */
static int64_t i_shl(int64_t a, int64_t b, ref_ew_ctx *x) {
  if (b < 0 || b >= ref_ew_bits(x->cd)) return 0;
  return (int64_t)((uint64_t)a << b);
}
static int64_t i_shr(int64_t a, int64_t b, ref_ew_ctx *x) {
  int max_shift = ref_ew_bits(x->cd) - (x->cd != TABI_DTYPE_UINT8);
  if (b < 0 || b >= max_shift) return a < 0 ? -1 : 0; /* a >> max_shift */
  return a < 0 ? ~(~a >> b) : a >> b;                 /* arithmetic, without relying on >> of negatives */
}

/* gcd of |a| and |b|, where |INT_MIN| wraps within the dtype as in ATen. */
static int64_t i_gcd(int64_t a, int64_t b, ref_ew_ctx *x) {
  ref_ew_val va = {a < 0 ? ref_wrap_neg(a) : a, 0, 0}, vb = {b < 0 ? ref_wrap_neg(b) : b, 0, 0};
  a = ref_ew_cast(va, TABI_DTYPE_INT64, x->cd).i;
  b = ref_ew_cast(vb, TABI_DTYPE_INT64, x->cd).i;
  while (a != 0) {
    int64_t c = a;
    a = (a == -1) ? 0 : b % a;
    b = c;
  }
  return b;
}

/* nextafter in the dtype's own precision; 16-bit types step their bit pattern
 * (ref_nextafter16.h). */
static double f_nextafter(double a, double b, ref_ew_ctx *x) {
  if (x->cd == TABI_DTYPE_FLOAT64) return nextafter(a, b);
  if (x->cd == TABI_DTYPE_FLOAT32) return nextafterf((float)a, (float)b);
  return ref_nextafter16(a, b, x->cd);
}

/* comparisons and logical ops: 0/1 in the compute category, stored as bool */
FN_I(i_eq, a == b) FN_F(f_eq, a == b) FN_C(c_eq, a == b)
FN_I(i_ne, a != b) FN_F(f_ne, a != b) FN_C(c_ne, a != b)
FN_I(i_lt, a < b) FN_F(f_lt, a < b)
FN_I(i_le, a <= b) FN_F(f_le, a <= b)
FN_I(i_gt, a > b) FN_F(f_gt, a > b)
FN_I(i_ge, a >= b) FN_F(f_ge, a >= b)
FN_I(i_land, a && b) FN_F(f_land, a != 0 && b != 0) FN_C(c_land, a != 0 && b != 0)
FN_I(i_lor, a || b) FN_F(f_lor, a != 0 || b != 0) FN_C(c_lor, a != 0 || b != 0)
FN_I(i_lxor, !a != !b) FN_F(f_lxor, (a != 0) != (b != 0)) FN_C(c_lxor, (a != 0) != (b != 0))

/* --- prepare steps ---------------------------------------------------------------- */

/* ATen's alpha_check, then alpha as the compute dtype (checked, as Scalar::to). */
static tabi_status prep_alpha(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                              tabi_dtype common, ref_ew_ctx *x) {
  const tabi_value *alpha = &args[2];
  const char *op = ref_op_name(h, call);
  if (alpha->tag == TABI_TAG_BOOL && common != TABI_DTYPE_BOOL)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'alpha': Boolean alpha only supported for Boolean results "
                   "(result dtype is %s)", op, tabi_dtype_name(common));
  if (!tabi_dtype_is_floating(common) && !tabi_dtype_is_complex(common) &&
      (alpha->tag == TABI_TAG_FLOAT || alpha->tag == TABI_TAG_COMPLEX))
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'alpha': for integral input tensors, alpha must not be a "
                   "floating point number (result dtype is %s)", op, tabi_dtype_name(common));
  if (!tabi_dtype_is_complex(common) && alpha->tag == TABI_TAG_COMPLEX)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'alpha': for non-complex input tensors, alpha must not be a "
                   "complex number", op);
  ref_ew_val v;
  /* ATen converts alpha to the result's dtype, checked (1e308j does not fit
     complex64, 70000 not float16), then computes in the wider dtype */
  tabi_status st = ref_ew_scalar_to(h, call, "alpha", alpha, common, &v);
  if (st == TABI_OK) st = ref_ew_scalar_to(h, call, "alpha", alpha, x->cd, &v);
  x->pi[0] = v.i;
  x->pf[0] = v.f;
  x->pc[0] = v.c;
  return st;
}

static tabi_status prep_one(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                            tabi_dtype common, ref_ew_ctx *x) {
  x->pi[0] = 1;
  x->pf[0] = 1.0;
  x->pc[0] = 1.0;
  return TABI_OK;
}

/* Integers to negative integer powers are an error for a Scalar exponent only. */
static tabi_status prep_pow_ts(const tabi_host_api *h, const tabi_call *call,
                               const tabi_value *args, tabi_dtype common, ref_ew_ctx *x) {
  const tabi_value *e = &args[1];
  if (tabi_dtype_is_integral(tabi_tensor_dtype(args[0].u.t), 1) &&
      (e->tag == TABI_TAG_INT) && e->u.i < 0)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'exponent': Integers to negative integer powers are not "
                   "allowed (got %lld for a %s tensor)",
                   ref_op_name(h, call), (long long)e->u.i,
                   tabi_dtype_name(tabi_tensor_dtype(args[0].u.t)));
  /* ATen's pow kernel takes a float32 (complex64) tensor's exponent as a
   * double (complex<double>): pow(x, 1e308) is inf or 0, not an error. A
   * half's, a bfloat16's and an integer's exponent must fit the dtype. */
  if (x->cd == TABI_DTYPE_FLOAT32 || x->cd == TABI_DTYPE_COMPLEX64) {
    tabi_dtype sdt;
    ref_ew_val v = ref_ew_scalar(e, &sdt);
    x->pi[1] = 1;
    x->pf[1] = ref_ew_cast(v, sdt, TABI_DTYPE_FLOAT64).f;
    x->pc[1] = ref_ew_cast(v, sdt, TABI_DTYPE_COMPLEX128).c;
    return TABI_OK;
  }
  ref_ew_val v;
  return ref_ew_scalar_to(h, call, "exponent", e, x->cd, &v);
}

/* --- descriptors ------------------------------------------------------------------- */

#define BIN(name, dts, rule, flags, fi, ff, fc, prep) \
  static const ref_ew_binary_op name = {dts, rule, flags, fi, ff, fc, prep};
/* aten descriptors are exported (REF_EW_ATEN_BINARY_LIST, ref_elementwise.h) */
#define BINA(name, dts, rule, flags, fi, ff, fc, prep) \
  const ref_ew_binary_op name = {dts, rule, flags, fi, ff, fc, prep};
#define TF REF_EW_INT_TO_FLOAT
#define SAME REF_EW_SAME
#define B REF_EW_BOOL
#define P REF_EW_PRIM

BINA(ref_ew_aten2_add, ALL, SAME, 0, i_add, f_add, c_add, prep_alpha)
BINA(ref_ew_aten2_sub, ALL, SAME, 0, i_sub, f_sub, c_sub, prep_alpha)
BINA(ref_ew_aten2_mul, ALL, SAME, 0, i_mul, f_mul, c_mul, NULL)
BINA(ref_ew_aten2_div, ALL, TF, 0, NULL, f_div, c_div, NULL)
BINA(ref_ew_aten2_div_trunc, INT | F, SAME, 0, i_div_trunc, f_div_trunc, NULL, NULL)
BINA(ref_ew_aten2_div_floor, INT | F, SAME, 0, i_div_floor, f_div_floor, NULL, NULL)
BINA(ref_ew_aten2_atan2, BI | F, TF, 0, NULL, f_atan2, NULL, NULL)
BINA(ref_ew_aten2_fmod, INT | F, SAME, 0, i_fmod, f_fmod, NULL, NULL)
BINA(ref_ew_aten2_remainder, INT | F, SAME, 0, i_remainder, f_remainder, NULL, NULL)
BINA(ref_ew_aten2_pow, INT | F | C, SAME, 0, i_pow, f_pow, c_pow, NULL)
BINA(ref_ew_aten2_pow_ts, INT | F | C, SAME, 0, i_pow, f_pow_ts, c_pow_ts, prep_pow_ts)
BINA(ref_ew_aten2_maximum, BI | F, SAME, 0, i_max, f_maximum, NULL, NULL)
BINA(ref_ew_aten2_minimum, BI | F, SAME, 0, i_min, f_minimum, NULL, NULL)
BINA(ref_ew_aten2_and, BI, SAME, 0, i_and, NULL, NULL, NULL)
BINA(ref_ew_aten2_or, BI, SAME, 0, i_or, NULL, NULL, NULL)
BINA(ref_ew_aten2_xor, BI, SAME, 0, i_xor, NULL, NULL, NULL)
BINA(ref_ew_aten2_eq, ALL, B, 0, i_eq, f_eq, c_eq, NULL)
BINA(ref_ew_aten2_ne, ALL, B, 0, i_ne, f_ne, c_ne, NULL)
BINA(ref_ew_aten2_lt, BI | F, B, 0, i_lt, f_lt, NULL, NULL)
BINA(ref_ew_aten2_le, BI | F, B, 0, i_le, f_le, NULL, NULL)
BINA(ref_ew_aten2_gt, BI | F, B, 0, i_gt, f_gt, NULL, NULL)
BINA(ref_ew_aten2_ge, BI | F, B, 0, i_ge, f_ge, NULL, NULL)
BINA(ref_ew_aten2_land, ALL, B, 0, i_land, f_land, c_land, NULL)
BINA(ref_ew_aten2_lor, ALL, B, 0, i_lor, f_lor, c_lor, NULL)
BINA(ref_ew_aten2_lxor, ALL, B, 0, i_lxor, f_lxor, c_lxor, NULL)

BIN(pop_add, ALL, SAME, P, i_add, f_add, c_add, prep_one)
BIN(pop_sub, INT | F | C, SAME, P, i_sub, f_sub, c_sub, prep_one)
BIN(pop_mul, ALL, SAME, P, i_mul, f_mul, c_mul, NULL)
/* prims::div truncates integers and divides floating types exactly */
BIN(pop_div, INT | F | C, SAME, P, i_div_trunc, f_div, c_div, NULL)
BIN(pop_atan2, F, SAME, P, NULL, f_atan2, NULL, NULL)
BIN(pop_and, BI, SAME, P, i_and, NULL, NULL, NULL)
BIN(pop_or, BI, SAME, P, i_or, NULL, NULL, NULL)
BIN(pop_xor, BI, SAME, P, i_xor, NULL, NULL, NULL)
BIN(pop_eq, ALL, B, P, i_eq, f_eq, c_eq, NULL)
BIN(pop_ne, ALL, B, P, i_ne, f_ne, c_ne, NULL)
BIN(pop_lt, BI | F, B, P, i_lt, f_lt, NULL, NULL)
BIN(pop_le, BI | F, B, P, i_le, f_le, NULL, NULL)
BIN(pop_gt, BI | F, B, P, i_gt, f_gt, NULL, NULL)
BIN(pop_ge, BI | F, B, P, i_ge, f_ge, NULL, NULL)
BIN(pop_fmax, BI | F, SAME, P, i_max, f_fmax, NULL, NULL)
BIN(pop_fmin, BI | F, SAME, P, i_min, f_fmin, NULL, NULL)
BIN(pop_fmod, INT | F, SAME, P, i_fmod, f_fmod, NULL, NULL)
BIN(pop_remainder, INT | F, SAME, P, i_remainder, f_remainder, NULL, NULL)
BIN(pop_gcd, INT, SAME, P, i_gcd, NULL, NULL, NULL)
BIN(pop_hypot, F, SAME, P, NULL, f_hypot, NULL, NULL)
BIN(pop_igamma, F, SAME, P, NULL, f_igamma, NULL, NULL)
BIN(pop_igammac, F, SAME, P, NULL, f_igammac, NULL, NULL)
BIN(pop_maximum, BI | F, SAME, P, i_max, f_maximum, NULL, NULL)
BIN(pop_minimum, BI | F, SAME, P, i_min, f_minimum, NULL, NULL)
BIN(pop_nextafter, F, SAME, P, NULL, f_nextafter, NULL, NULL)
BIN(pop_pow, INT | F | C, SAME, P, i_pow, f_pow, c_pow, NULL)
BIN(pop_shl, INT, SAME, P, i_shl, NULL, NULL, NULL)
BIN(pop_shr, INT, SAME, P, i_shr, NULL, NULL, NULL)
BIN(pop_zeta, F2, SAME, P, NULL, f_zeta, NULL, NULL)

/* --- kernels with their own checks --------------------------------------------------- */

static int is_bool_operand(const tabi_value *v) {
  return v->tag == TABI_TAG_BOOL ||
         (v->tag == TABI_TAG_TENSOR && tabi_tensor_dtype(v->u.t) == TABI_DTYPE_BOOL);
}

/* ATen refuses subtraction with bool operands, naming the alternatives. */
tabi_status ref_ew_sub_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                             int scalar_form) {
  int ba = is_bool_operand(&args[0]), bb = is_bool_operand(&args[1]);
  if (ba && bb && !scalar_form)
    return REF_ERR(h, TABI_ERR_TYPE,
                   "%s: Subtraction, the `-` operator, with two bool tensors is not supported "
                   "(arguments 'self' and 'other' are bool). Use the `^` or `logical_xor()` "
                   "operator instead.", ref_op_name(h, call));
  if (ba || bb)
    return REF_ERR(h, TABI_ERR_TYPE,
                   "%s: Subtraction, the `-` operator, with a bool tensor is not supported "
                   "(argument '%s' is bool). If you are trying to invert a mask, use the `~` or "
                   "`logical_not()` operator instead.", ref_op_name(h, call), ba ? "self" : "other");
  return TABI_OK;
}
static tabi_status sub_kernel(void *ctx, const tabi_call *call, tabi_value *args,
                              tabi_value *outs, int scalar_form) {
  const tabi_host_api *h = ctx;
  tabi_status st = ref_ew_sub_check(h, call, args, scalar_form);
  if (st != TABI_OK) return st;
  return ref_ew_binary_kernel(h, call, args, outs, &ref_ew_aten2_sub);
}
static tabi_status k_sub_tensor(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return sub_kernel(ctx, call, args, outs, 0);
}
static tabi_status k_sub_scalar(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return sub_kernel(ctx, call, args, outs, 1);
}

/* div with rounding_mode: None is true division; "trunc" and "floor" keep the dtype. */
tabi_status ref_ew_div_mode_op(const tabi_host_api *h, const tabi_call *call,
                               const tabi_value *args, const ref_ew_binary_op **out) {
  const tabi_value *mode = &args[2];
  *out = NULL;
  if (mode->tag == TABI_TAG_NONE) *out = &ref_ew_aten2_div;
  else if (ref_ew_str_is(mode, "trunc")) *out = &ref_ew_aten2_div_trunc;
  else if (ref_ew_str_is(mode, "floor")) *out = &ref_ew_aten2_div_floor;
  else
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'rounding_mode' must be None, 'trunc' or 'floor', got '%.*s'",
                   ref_op_name(h, call), (int)(mode->tag == TABI_TAG_STRING ? mode->u.list.len : 0),
                   mode->tag == TABI_TAG_STRING ? tabi_value_str(mode) : "");
  return TABI_OK;
}
static tabi_status k_div_mode(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const ref_ew_binary_op *op = NULL;
  tabi_status st = ref_ew_div_mode_op(h, call, args, &op);
  if (st != TABI_OK) return st;
  return ref_ew_binary_kernel(h, call, args, outs, op);
}

#define K(kname, desc) REF_EW_BINARY(kname, desc)
K(k_add, ref_ew_aten2_add) K(k_mul, ref_ew_aten2_mul) K(k_div, ref_ew_aten2_div) K(k_atan2, ref_ew_aten2_atan2)
K(k_fmod, ref_ew_aten2_fmod) K(k_remainder, ref_ew_aten2_remainder) K(k_pow, ref_ew_aten2_pow) K(k_pow_ts, ref_ew_aten2_pow_ts)
K(k_maximum, ref_ew_aten2_maximum) K(k_minimum, ref_ew_aten2_minimum)
K(k_and, ref_ew_aten2_and) K(k_or, ref_ew_aten2_or) K(k_xor, ref_ew_aten2_xor)
K(k_eq, ref_ew_aten2_eq) K(k_ne, ref_ew_aten2_ne) K(k_lt, ref_ew_aten2_lt) K(k_le, ref_ew_aten2_le) K(k_gt, ref_ew_aten2_gt) K(k_ge, ref_ew_aten2_ge)
K(k_land, ref_ew_aten2_land) K(k_lor, ref_ew_aten2_lor) K(k_lxor, ref_ew_aten2_lxor)
K(p_add, pop_add) K(p_sub, pop_sub) K(p_mul, pop_mul) K(p_div, pop_div) K(p_atan2, pop_atan2)
K(p_and, pop_and) K(p_or, pop_or) K(p_xor, pop_xor)
K(p_eq, pop_eq) K(p_ne, pop_ne) K(p_lt, pop_lt) K(p_le, pop_le) K(p_gt, pop_gt) K(p_ge, pop_ge)
K(p_fmax, pop_fmax) K(p_fmin, pop_fmin) K(p_fmod, pop_fmod) K(p_remainder, pop_remainder)
K(p_gcd, pop_gcd) K(p_hypot, pop_hypot) K(p_igamma, pop_igamma) K(p_igammac, pop_igammac)
K(p_maximum, pop_maximum) K(p_minimum, pop_minimum) K(p_nextafter, pop_nextafter)
K(p_pow, pop_pow) K(p_shl, pop_shl) K(p_shr, pop_shr) K(p_zeta, pop_zeta)

const ref_kernel ref_elementwise2_kernels[] = {
    {"aten::add.Tensor", k_add}, {"aten::add.Scalar", k_add},
    {"aten::sub.Tensor", k_sub_tensor}, {"aten::sub.Scalar", k_sub_scalar},
    {"aten::mul.Tensor", k_mul}, {"aten::mul.Scalar", k_mul},
    {"aten::div.Tensor", k_div}, {"aten::div.Scalar", k_div},
    {"aten::div.Tensor_mode", k_div_mode}, {"aten::div.Scalar_mode", k_div_mode},
    {"aten::atan2", k_atan2},
    {"aten::fmod.Tensor", k_fmod}, {"aten::fmod.Scalar", k_fmod},
    {"aten::remainder.Tensor", k_remainder}, {"aten::remainder.Scalar", k_remainder},
    {"aten::pow.Tensor_Tensor", k_pow}, {"aten::pow.Scalar", k_pow},
    {"aten::pow.Tensor_Scalar", k_pow_ts},
    {"aten::maximum", k_maximum}, {"aten::minimum", k_minimum},
    {"aten::bitwise_and.Tensor", k_and}, {"aten::bitwise_and.Scalar", k_and},
    {"aten::bitwise_or.Tensor", k_or}, {"aten::bitwise_or.Scalar", k_or},
    {"aten::bitwise_xor.Tensor", k_xor}, {"aten::bitwise_xor.Scalar", k_xor},
    {"aten::eq.Tensor", k_eq}, {"aten::eq.Scalar", k_eq},
    {"aten::ne.Tensor", k_ne}, {"aten::ne.Scalar", k_ne},
    {"aten::lt.Tensor", k_lt}, {"aten::lt.Scalar", k_lt},
    {"aten::le.Tensor", k_le}, {"aten::le.Scalar", k_le},
    {"aten::gt.Tensor", k_gt}, {"aten::gt.Scalar", k_gt},
    {"aten::ge.Tensor", k_ge}, {"aten::ge.Scalar", k_ge},
    {"aten::logical_and", k_land}, {"aten::logical_or", k_lor}, {"aten::logical_xor", k_lxor},
    {"prims::add", p_add}, {"prims::sub", p_sub}, {"prims::mul", p_mul}, {"prims::div", p_div},
    {"prims::atan2", p_atan2}, {"prims::bitwise_and", p_and}, {"prims::bitwise_or", p_or},
    {"prims::bitwise_xor", p_xor}, {"prims::eq", p_eq}, {"prims::ne", p_ne},
    {"prims::lt", p_lt}, {"prims::le", p_le}, {"prims::gt", p_gt}, {"prims::ge", p_ge},
    {"prims::fmax", p_fmax}, {"prims::fmin", p_fmin}, {"prims::fmod", p_fmod},
    {"prims::remainder", p_remainder}, {"prims::gcd", p_gcd}, {"prims::hypot", p_hypot},
    {"prims::igamma", p_igamma}, {"prims::igammac", p_igammac},
    {"prims::maximum", p_maximum}, {"prims::minimum", p_minimum},
    {"prims::nextafter", p_nextafter}, {"prims::pow", p_pow},
    {"prims::shift_left", p_shl}, {"prims::shift_right_arithmetic", p_shr},
    {"prims::zeta", p_zeta},
    {NULL, NULL}};
