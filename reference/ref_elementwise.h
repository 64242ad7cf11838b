/* reference/ref_elementwise.h: the generic drivers behind every elementwise
 * reference kernel (aten and prims), shared by the ref_elementwise*.c files.
 *
 * An op is data: which dtypes it takes, how its result dtype follows from its
 * inputs (a promotion rule), and three small element functions, one per compute
 * category (int64 for bool and integers, double for floating types, complex
 * double for complex types). A driver does the rest once: argument checks,
 * ATen's result_type (or, for prims, the no-promotion / no-broadcast check),
 * broadcasting, the cast of every input to the compute dtype, the strided loop,
 * and the single rounding at the store.
 *
 * Errors: drivers return a status set through host->set_error, the message naming
 * the op (ref_op_name) and the argument. Threading: no state outside the call.
 */
#ifndef TABI_REF_ELEMENTWISE_H
#define TABI_REF_ELEMENTWISE_H

#include "ref.h"
#include "ref_op_lists.h"

/* A value in its compute category; which member is live follows the dtype. */
typedef struct ref_ew_val {
  int64_t i;
  double f;
  ref_cplx c;
} ref_ew_val;

/* What an element function may read and report. Parameters (alpha, slopes,
 * limits) are prepared once per call, already cast to the compute dtype. */
typedef struct ref_ew_ctx {
  tabi_dtype cd;      /* compute dtype: every input was cast to it */
  int64_t pi[4];      /* integer parameters */
  double pf[4];       /* floating parameters */
  ref_cplx pc[2];     /* complex parameters */
  int32_t err;        /* set by an element function: REF_EW_ERR_* */
} ref_ew_ctx;

#define REF_EW_ERR_ZERO_DIV 1 /* integer division or remainder by zero */

typedef int64_t (*ref_ew_i1)(int64_t a, ref_ew_ctx *x);
typedef double (*ref_ew_f1)(double a, ref_ew_ctx *x);
typedef ref_cplx (*ref_ew_c1)(ref_cplx a, ref_ew_ctx *x);
typedef int64_t (*ref_ew_i2)(int64_t a, int64_t b, ref_ew_ctx *x);
typedef double (*ref_ew_f2)(double a, double b, ref_ew_ctx *x);
typedef ref_cplx (*ref_ew_c2)(ref_cplx a, ref_cplx b, ref_ew_ctx *x);

/* Runs after the compute dtype is known and before the loop: checks scalar
 * arguments and fills ctx parameters. `common` is the promoted input dtype
 * (before INT_TO_FLOAT). */
typedef tabi_status (*ref_ew_prepare_fn)(const tabi_host_api *h, const tabi_call *call,
                                         const tabi_value *args, tabi_dtype common,
                                         ref_ew_ctx *x);

/* Promotion rules: how the compute and result dtypes follow the inputs'. */
#define REF_EW_SAME 0         /* compute and result in the (promoted) input dtype */
#define REF_EW_INT_TO_FLOAT 1 /* bool/integer inputs compute in float32 (sin, div) */
#define REF_EW_BOOL 2         /* compute in the promoted dtype; result bool (eq, isnan) */
#define REF_EW_TO_REAL 3      /* as SAME, but a complex dtype gives its real dtype (abs) */

/* Flags. */
#define REF_EW_PRIM 0x1u      /* prims: no promotion, no broadcasting */

typedef struct ref_ew_unary_op {
  uint32_t dtypes;            /* accepted input dtypes (REF_DTS_* mask) */
  int32_t rule;               /* REF_EW_SAME ... */
  uint32_t flags;
  ref_ew_i1 fi;               /* NULL where the category cannot occur */
  ref_ew_f1 ff;
  ref_ew_c1 fc;
  ref_ew_prepare_fn prepare;  /* may be NULL */
} ref_ew_unary_op;

typedef struct ref_ew_binary_op {
  uint32_t dtypes;            /* accepted promoted (common) dtypes */
  int32_t rule;
  uint32_t flags;
  ref_ew_i2 fi;
  ref_ew_f2 ff;
  ref_ew_c2 fc;
  ref_ew_prepare_fn prepare;
} ref_ew_binary_op;

/* --- drivers ---------------------------------------------------------------- */

/* What a unary op's call comes to before any element is touched: the dtype
 * check, the promotion rule, the prepared parameters. */
typedef struct ref_ew_unary_plan {
  tabi_dtype cd;    /* compute dtype */
  tabi_dtype outdt; /* result dtype */
  ref_ew_ctx x;     /* parameters for the element function (x.cd = cd) */
} ref_ew_unary_plan;

/* The checks and planning of ref_ew_unary_kernel, with its statuses and
 * messages, for a driver that runs the loop elsewhere (a device plugin runs
 * the reference's own aten descriptors this way; see below). args[0] must be
 * a tensor. */
tabi_status ref_ew_unary_plan_init(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_value *args, const ref_ew_unary_op *op,
                                   ref_ew_unary_plan *out);

/* The same for a binary op: result type (or the prims' same-dtype, same-shape
 * check), dtype check, rule, prepare step, broadcast shape, and each Scalar
 * operand cast to the compute dtype as ATen casts a wrapped number. */
typedef struct ref_ew_binary_plan {
  tabi_dtype cd, outdt;
  int32_t nd;
  int64_t shape[REF_MAX_DIMS];
  const tabi_tensor *t[2]; /* the tensor operands; NULL for a Scalar */
  ref_ew_val sv[2];        /* a Scalar operand's value in cd's category */
  ref_ew_ctx x;
} ref_ew_binary_plan;
tabi_status ref_ew_binary_plan_init(const tabi_host_api *h, const tabi_call *call,
                                    const tabi_value *args, const ref_ew_binary_op *op,
                                    ref_ew_binary_plan *out);

/* args[0] is the tensor; outs[0] gets the result. */
tabi_status ref_ew_unary_kernel(const tabi_host_api *h, const tabi_call *call,
                                tabi_value *args, tabi_value *outs, const ref_ew_unary_op *op);
/* args[0] and args[1] are the operands, each a tensor or a Scalar (aten::pow.Scalar
 * has the scalar first); names for messages come from the schema. */
tabi_status ref_ew_binary_kernel(const tabi_host_api *h, const tabi_call *call,
                                 tabi_value *args, tabi_value *outs, const ref_ew_binary_op *op);
/* The same, returning the new tensor instead of filling outs. */
tabi_status ref_ew_binary_run(const tabi_host_api *h, const tabi_call *call, tabi_value *args,
                              const ref_ew_binary_op *op, tabi_tensor **out);

/* The aten unary ops, whose descriptors are exported as ref_ew_aten_<name>
 * (aten::<name>) so that device plugins take the same dtypes, promotion and
 * parameter checks instead of restating them. */
#define REF_EW_ATEN_DECL(name) extern const ref_ew_unary_op ref_ew_aten_##name;
REF_EW_ATEN_UNARY_LIST(REF_EW_ATEN_DECL)
#undef REF_EW_ATEN_DECL

/* The aten binary ops' descriptors, exported as ref_ew_aten2_<name> for the
 * same reason (div_trunc/div_floor: div.*_mode's rounding modes; pow_ts:
 * pow.Tensor_Scalar, with ATen's special exponents). */
#define REF_EW_ATEN2_DECL(name) extern const ref_ew_binary_op ref_ew_aten2_##name;
REF_EW_ATEN_BINARY_LIST(REF_EW_ATEN2_DECL)
#undef REF_EW_ATEN2_DECL

/* aten::sub's refusal of bool operands (scalar_form: sub.Scalar), with ATen's
 * message; TABI_OK when the operands may be subtracted. */
tabi_status ref_ew_sub_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                             int scalar_form);
/* The descriptor div.Tensor_mode/div.Scalar_mode runs for args[2] (None,
 * "trunc", "floor"), or TABI_ERR_INVALID_ARGUMENT for another mode. */
tabi_status ref_ew_div_mode_op(const tabi_host_api *h, const tabi_call *call,
                               const tabi_value *args, const ref_ew_binary_op **out);

/* aten::clamp (hardtanh 0) or aten::hardtanh (1) with Scalar bounds: the
 * checks, the result dtype (clamp promotes a non-floating self with its
 * bounds), and the bounds cast to it. ATen's rules: with both bounds a NaN
 * bound makes every element NaN (all_nan); a NaN element stays NaN; the max
 * bound is applied last. */
typedef struct ref_ew_clamp_plan {
  tabi_dtype rt;
  int32_t has_min, has_max, all_nan;
  ref_ew_val lo, hi;
} ref_ew_clamp_plan;
tabi_status ref_ew_clamp_plan_init(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_value *args, int hardtanh, ref_ew_clamp_plan *out);

/* aten::where.self (prim 0: result_type of the two values, broadcasting; a
 * uint8 condition is accepted) or prims::where (1: one dtype, one shape). */
typedef struct ref_ew_where_plan {
  tabi_dtype rt;
  int32_t nd;
  int64_t shape[REF_MAX_DIMS];
} ref_ew_where_plan;
tabi_status ref_ew_where_plan_init(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_value *args, int prim, ref_ew_where_plan *out);

/* aten::clamp.Tensor: at least one bound; the result_type of self and the
 * present bounds, complex refused, bool refused with both bounds; the present
 * operands broadcast. Elements follow ATen: with both bounds a NaN bound
 * gives NaN; otherwise a NaN element stays NaN and a NaN bound wins over a
 * number (maximum/minimum propagate NaN); the max bound applies last. */
typedef struct ref_ew_clamp_tensor_plan {
  tabi_dtype rt;
  int32_t has_min, has_max, nd;
  int64_t shape[REF_MAX_DIMS];
} ref_ew_clamp_tensor_plan;
tabi_status ref_ew_clamp_tensor_plan_init(const tabi_host_api *h, const tabi_call *call,
                                          const tabi_value *args, ref_ew_clamp_tensor_plan *out);

/* Thin kernels from descriptors: REF_EW_UNARY(k_sin, op_sin) defines k_sin. */
#define REF_EW_UNARY(kname, desc)                                                      \
  static tabi_status kname(void *ctx, const tabi_call *call, tabi_value *args,         \
                           tabi_value *outs) {                                         \
    return ref_ew_unary_kernel((const tabi_host_api *)ctx, call, args, outs, &(desc)); \
  }
#define REF_EW_BINARY(kname, desc)                                                      \
  static tabi_status kname(void *ctx, const tabi_call *call, tabi_value *args,          \
                           tabi_value *outs) {                                          \
    return ref_ew_binary_kernel((const tabi_host_api *)ctx, call, args, outs, &(desc)); \
  }

/* --- helpers for kernels that drive their own loop (where, clamp, ...) ------ */

/* 0 bool/integer, 1 floating, 2 complex. */
int ref_ew_category(tabi_dtype dt);
/* The name of argument i of the running op ("self"), for messages. */
const char *ref_ew_arg_name(const tabi_host_api *h, const tabi_call *call, int32_t i);
/* Casts v (in src's category) to dt as ATen's static_cast does: integers wrap,
 * floats round (float16/bfloat16 through float32), complex to real drops the
 * imaginary part. The result is in dt's category. */
ref_ew_val ref_ew_cast(ref_ew_val v, tabi_dtype src, tabi_dtype dt);
/* A Scalar value in its own category, and its dtype (int64/float64/complex128/bool). */
ref_ew_val ref_ew_scalar(const tabi_value *s, tabi_dtype *out_dtype);
/* Element at `off` of t, cast to cd. */
ref_ew_val ref_ew_load(const tabi_tensor *t, int64_t off, tabi_dtype cd);
/* Stores v (in cd's category) into out at off, converting to out's dtype. */
void ref_ew_store(tabi_tensor *out, int64_t off, ref_ew_val v, tabi_dtype cd);
/* Rounds v to what dt holds (dt floating); for opmath: float16/bfloat16/float32
 * round to float32 and float64 stays. */
double ref_ew_round(double v, tabi_dtype dt);
double ref_ew_round_opmath(double v, tabi_dtype dt);
/* c10's checked Scalar::to<dt>(): TABI_ERR_INVALID_ARGUMENT "value cannot be
 * converted to type X without overflow" when out of range (uint8 takes -255..255
 * as c10 does; infinities and NaN pass for floating dt). */
tabi_status ref_ew_scalar_to(const tabi_host_api *h, const tabi_call *call, const char *arg,
                             const tabi_value *s, tabi_dtype dt, ref_ew_val *out);
/* The ATen result_type of up to three operands (tensors or Scalars; NONE skipped). */
tabi_dtype ref_ew_result_type(const tabi_value *a, const tabi_value *b, const tabi_value *c);
/* ATen's canCast(from, to): no complex to non-complex, no float to integral,
 * no non-bool to bool. */
int ref_ew_can_cast(tabi_dtype from, tabi_dtype to);
/* TABI_ERR_INVALID_ARGUMENT naming the op and argument for integer division by zero. */
tabi_status ref_ew_zero_div_error(const tabi_host_api *h, const tabi_call *call, const char *arg);
/* The real dtype of a complex one (complex64 -> float32); others unchanged. */
tabi_dtype ref_ew_real_dtype(tabi_dtype dt);
/* Bit width of an integer dtype (8..64); 1 for bool. */
int ref_ew_bits(tabi_dtype dt);
/* A str argument equals `s`. */
int ref_ew_str_is(const tabi_value *v, const char *s);

#endif /* TABI_REF_ELEMENTWISE_H */
