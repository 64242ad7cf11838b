/* plugins/cuda/tc_ref_glue.h: the reference's host-side planning, exposed
 * without its C99 complex types so the C++ side can use it: reductions (dims
 * parsing, wrapping, duplicates, keepdim, empty-input checks, and the aten
 * reductions' whole plans) and the aten elementwise ops (dtype checks,
 * result_type, promotion, Scalar operands and parameters, broadcasting).
 * Metadata only: no element is read here. */
#ifndef TABI_TC_REF_GLUE_H
#define TABI_TC_REF_GLUE_H

#include <tabi/tabi.h>

#include "ref_op_lists.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tc_red_plan {
  int32_t ndim;
  int32_t dims_empty;
  uint8_t reduced[16];
  int32_t out_ndim;
  int64_t out_shape[16];
  int64_t group;
} tc_red_plan;

/* ref_red_init; with check_nonempty, also ref_red_check_nonempty. */
tabi_status tc_red_plan_init(const tabi_host_api *h, const tabi_call *call, const char *arg,
                             const tabi_tensor *self, const tabi_value *dims, int empty_is_all,
                             int keepdim, int check_nonempty, tc_red_plan *out);

/* An aten reduction planned by the reference (REF_RED_ATEN_LIST: TC_AR_<name>):
 * dims, kind (REF_RED_*), the dtype the input is read as, the output dtype,
 * var's correction; the reference's statuses and messages. */
#define TC_AR_ENUM(name, opname) TC_AR_##name,
enum { REF_RED_ATEN_LIST(TC_AR_ENUM) TC_AR_COUNT };
#undef TC_AR_ENUM
typedef struct tc_red_aten_plan_t {
  tc_red_plan r;
  int32_t kind, as, out_dt;
  int64_t correction;
} tc_red_aten_plan_t;
tabi_status tc_red_aten_plan(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                             int which, tc_red_aten_plan_t *out);

/* The aten unary ops the GPU plugins run natively, one launch each, with the
 * reference's own descriptors (REF_EW_ATEN_UNARY_LIST in ref_op_lists.h;
 * tc_ref_glue.c checks that the two lists have the same length):
 * X(name, element selector of tc.h). */
#define TC_ATEN_UNARY_LIST(X)                                                                \
  X(sin, TC_U_SIN) X(cos, TC_U_COS) X(tan, TC_U_TAN) X(asin, TC_U_ASIN) X(acos, TC_U_ACOS)  \
  X(atan, TC_U_ATAN) X(sinh, TC_U_SINH) X(cosh, TC_U_COSH) X(tanh, TC_U_TANH)               \
  X(asinh, TC_U_ASINH) X(acosh, TC_U_ACOSH) X(atanh, TC_U_ATANH) X(exp, TC_U_EXP)           \
  X(expm1, TC_U_EXPM1) X(log, TC_U_LOG) X(log10, TC_U_LOG10) X(log1p, TC_U_LOG1P)           \
  X(log2, TC_U_LOG2) X(sqrt, TC_U_SQRT) X(rsqrt, TC_U_RSQRT) X(sigmoid, TC_U_SIGMOID)       \
  X(reciprocal, TC_U_RECIP) X(erf, TC_U_ERF) X(abs, TC_U_ABS) X(neg, TC_U_NEG)              \
  X(sign, TC_U_SIGN) X(ceil, TC_U_CEIL) X(floor, TC_U_FLOOR) X(round, TC_U_ROUND)           \
  X(trunc, TC_U_TRUNC) X(relu, TC_U_RELU) X(bitwise_not, TC_U_BNOT)                         \
  X(logical_not, TC_U_LNOT) X(isnan, TC_U_ISNAN) X(isinf, TC_U_ISINF) X(elu, TC_U_ELU)      \
  X(leaky_relu, TC_U_LEAKY_RELU) X(gelu, TC_U_GELU)

#define TC_AU_ENUM(name, sel) TC_AU_##name,
enum { TC_ATEN_UNARY_LIST(TC_AU_ENUM) TC_AU_COUNT };
#undef TC_AU_ENUM

/* A planned aten unary call: compute and result dtypes, the parameters the
 * reference's prepare step made (already in the compute dtype). */
typedef struct tc_ew_aten_plan {
  int32_t cd, outdt;
  double pf[3];
  int64_t pi;
} tc_ew_aten_plan;

/* ref_ew_unary_plan_init with descriptor `which` (TC_AU_*): the reference's
 * statuses and messages for bad dtypes, scalars and strings. */
tabi_status tc_ew_aten_unary_plan(const tabi_host_api *h, const tabi_call *call,
                                  const tabi_value *args, int which, tc_ew_aten_plan *out);

/* The aten binary descriptors (REF_EW_ATEN_BINARY_LIST): TC_AB_<name>. */
#define TC_AB_ENUM(name) TC_AB_##name,
enum { REF_EW_ATEN_BINARY_LIST(TC_AB_ENUM) TC_AB_COUNT };
#undef TC_AB_ENUM

/* A planned aten binary call: dtypes, the broadcast shape, the tensor
 * operands (NULL for a Scalar, whose value, cast to cd, is in si/sf), and
 * add/sub's alpha in the compute dtype (pi, pf, pc). */
typedef struct tc_ew_aten_bplan {
  int32_t cd, outdt, nd;
  int64_t shape[16];
  tabi_tensor *t[2];
  int64_t si[2];
  double sf[2][2];
  int64_t pi;
  double pf, pc[2];
  int32_t plain_pow; /* pow.Tensor_Scalar: the Scalar is no special exponent,
                        though rounded to cd it is one (1e-310 to 0) */
} tc_ew_aten_bplan;

/* ref_ew_binary_plan_init with descriptor `which` (TC_AB_*). */
tabi_status tc_ew_aten_binary_plan(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_value *args, int which, tc_ew_aten_bplan *out);
/* ref_ew_zero_div_error, naming argument 1. */
tabi_status tc_ew_aten_zero_div_error(const tabi_host_api *h, const tabi_call *call);
/* ref_ew_sub_check. */
tabi_status tc_ew_aten_sub_check(const tabi_host_api *h, const tabi_call *call,
                                 const tabi_value *args, int scalar_form);
/* The reference's own (ref_elementwise_drive.c, declared here without its
 * header's C99 complex types): v in dt's math type, float for every dtype but
 * float64 and complex128. One rounding rule, not a copy: gcc 12.2 at -O2 had
 * dropped a copy's inline (double)(float) round trips that it vectorized
 * together (mm_common's alpha and beta, 2026-11-29), which the build now
 * prevents everywhere (cmake/TabiCompilerChecks.cmake). */
double ref_ew_round_opmath(double v, tabi_dtype dt);
/* ref_ew_div_mode_op, as TC_AB_div, TC_AB_div_trunc or TC_AB_div_floor. */
tabi_status tc_ew_aten_div_mode(const tabi_host_api *h, const tabi_call *call,
                                const tabi_value *args, int *out_which);

/* aten::clamp (hardtanh 0) / aten::hardtanh (1): ref_ew_clamp_plan_init.
 * flags: TC_CLAMP_MIN, TC_CLAMP_MAX, TC_CLAMP_ALL_NAN; the bounds in rt's
 * category (lo_i/hi_i for integers, lo_f/hi_f for floating). */
#define TC_CLAMP_MIN 1
#define TC_CLAMP_MAX 2
#define TC_CLAMP_ALL_NAN 4
typedef struct tc_ew_clamp_plan {
  int32_t rt, flags;
  int64_t lo_i, hi_i;
  double lo_f, hi_f;
} tc_ew_clamp_plan;
tabi_status tc_ew_aten_clamp_plan(const tabi_host_api *h, const tabi_call *call,
                                  const tabi_value *args, int hardtanh, tc_ew_clamp_plan *out);

/* aten::clamp.Tensor: ref_ew_clamp_tensor_plan_init. flags: TC_CLAMP_MIN
 * and/or TC_CLAMP_MAX, the bounds present. */
typedef struct tc_ew_clamp_tensor_plan {
  int32_t rt, flags, nd;
  int64_t shape[16];
} tc_ew_clamp_tensor_plan;
tabi_status tc_ew_aten_clamp_tensor_plan(const tabi_host_api *h, const tabi_call *call,
                                         const tabi_value *args, tc_ew_clamp_tensor_plan *out);

/* aten::where.self (prim 0) / prims::where (1): ref_ew_where_plan_init. */
typedef struct tc_ew_where_plan {
  int32_t rt, nd;
  int64_t shape[16];
} tc_ew_where_plan;
tabi_status tc_ew_aten_where_plan(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                             int prim, tc_ew_where_plan *out);

/* ref_shape_util.c's overlap tests (ATen's), declared here for C++ (its header
 * brings the C99 complex types; tc_ref_glue.c includes both, so the compiler
 * checks that the declarations agree). */
int rs_has_internal_overlap(const tabi_tensor *t);
int rs_partial_overlap(const tabi_host_api *h, const tabi_tensor *a, const tabi_tensor *b);
tabi_status rs_check_out_overlap(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *out,
                                 const tabi_value *ins, const char *const *names, int32_t nin);

#ifdef __cplusplus
}
#endif

#endif
