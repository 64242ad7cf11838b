/* reference/decomp.h: the toolkit decompositions are written in.
 *
 * A decomposition is a composite kernel: it runs on whatever device its inputs
 * are on, by calling prims (and a few ATen ops, where ATen itself defines an op
 * that way) through the dispatcher. It never touches tensor data.
 *
 * Intermediates live in a scope that releases them all at the end, and every
 * helper short-circuits once an error has happened (its inputs are NULL or the
 * scope already failed), so a decomposition reads as straight-line math:
 *
 *   dc_scope s; dc_begin(&s, ctx, call, args);
 *   tabi_tensor *m = dc_amax(&s, x, dims, 1, 1);
 *   tabi_tensor *e = dc_unary(&s, DC_P_EXP, dc_binary(&s, DC_P_SUB, x, m));
 *   return dc_finish(&s, outs, 0, e);
 *
 * Op handles are looked up once, at init, into dc_ctx (one per runtime).
 */
#ifndef TABI_DECOMP_H
#define TABI_DECOMP_H

#include <stdint.h>

#include "ref.h"

/* The ops decompositions call. X(id, "schema name"). */
#define DC_OPS(X)                                                                                  \
  X(DC_P_ABS, "prims::abs")                                                                        \
  X(DC_P_ACOS, "prims::acos")                                                                      \
  X(DC_P_ACOSH, "prims::acosh") X(DC_P_ADD, "prims::add") X(DC_P_AMAX, "prims::amax") X(           \
      DC_P_AMIN, "prims::amin") X(DC_P_AS_STRIDED, "prims::as_strided") X(DC_P_ASIN,               \
                                                                          "prims::asin")           \
      X(DC_P_ASINH, "prims::asinh") X(DC_P_ATAN, "prims::atan") X(DC_P_ATAN2, "prims::atan2") X(   \
          DC_P_ATANH, "prims::atanh") X(DC_P_BITWISE_AND,                                          \
                                        "prims::bitwise_and") X(DC_P_BITWISE_NOT,                  \
                                                                "prims::bitwise_not")              \
          X(DC_P_BITWISE_OR, "prims::bitwise_or") X(DC_P_BITWISE_XOR, "prims::bitwise_xor") X(     \
              DC_P_BROADCAST_IN_DIM,                                                               \
              "prims::broadcast_in_dim") X(DC_P_CAT, "prims::cat") X(DC_P_CEIL, "prims::ceil")     \
              X(DC_P_CONVERT, "prims::convert_element_type") X(DC_P_COPY_TO, "prims::copy_to") X(  \
                  DC_P_COS, "prims::cos") X(DC_P_COSH,                                             \
                                            "prims::cosh") X(DC_P_DEVICE_PUT,                      \
                                                             "prims::device_put") X(DC_P_DIV,      \
                                                                                    "prims::div")  \
                  X(DC_P_EMPTY, "prims::empty") X(DC_P_EMPTY_STRIDED, "prims::empty_strided") X(   \
                      DC_P_EQ, "prims::eq") X(DC_P_ERF, "prims::erf") X(DC_P_EXP, "prims::exp")    \
                      X(DC_P_EXPM1, "prims::expm1") X(DC_P_FLOOR, "prims::floor") X(               \
                          DC_P_FMOD, "prims::fmod") X(DC_P_FULL, "prims::full") X(DC_P_GE,         \
                                                                                  "prims::ge")     \
                          X(DC_P_GT, "prims::gt") X(DC_P_ITEM, "prims::item") X(                   \
                              DC_P_LE, "prims::le") X(DC_P_LOG, "prims::log") X(DC_P_LOG10,        \
                                                                                "prims::log10")    \
                              X(DC_P_LOG1P, "prims::log1p") X(DC_P_LOG2, "prims::log2") X(         \
                                  DC_P_LT, "prims::lt") X(DC_P_MAXIMUM, "prims::maximum")          \
                                  X(DC_P_MINIMUM, "prims::minimum") X(DC_P_MUL, "prims::mul") X(   \
                                      DC_P_NE, "prims::ne") X(DC_P_NEG,                            \
                                                              "prims::neg") X(DC_P_NORMAL,         \
                                                                              "prims::normal")     \
                                      X(DC_P_POW, "prims::pow") X(DC_P_PROD, "prims::prod") X(     \
                                          DC_P_RECIPROCAL,                                         \
                                          "prims::reciprocal") X(DC_P_REMAINDER,                   \
                                                                 "prims::remainder")               \
                                          X(DC_P_RESHAPE, "prims::reshape") X(                     \
                                              DC_P_REV,                                            \
                                              "prims::"                                            \
                                              "rev") X(DC_P_ROUND,                                 \
                                                       "prims::round") X(DC_P_RSQRT,               \
                                                                         "prims::rsqrt")           \
                                              X(DC_P_SCALAR_TENSOR, "prims::scalar_tensor") X(     \
                                                  DC_P_SIGN,                                       \
                                                  "prims::sign") X(DC_P_SIN,                       \
                                                                   "prims::sin") X(DC_P_SINH,      \
                                                                                   "prims::sinh")  \
                                                  X(DC_P_SQRT,                                     \
                                                    "prims::sqrt") X(DC_P_SQUEEZE,                 \
                                                                     "prims::squeeze")             \
                                                      X(DC_P_SUB, "prims::sub") X(                 \
                                                          DC_P_SUM,                                \
                                                          "prims::sum") X(DC_P_TAN, "prims::tan")  \
                                                          X(DC_P_TANH, "prims::tanh") X(           \
                                                              DC_P_TRANSPOSE,                      \
                                                              "prims::transpose") X(DC_P_TRUNC,    \
                                                                                    "prims::"      \
                                                                                    "trunc")       \
                                                              X(DC_P_UNIFORM, "prims::uniform") X( \
                                                                  DC_P_VAR,                        \
                                                                  "prims::var")                    \
                                                                  X(DC_P_VIEW_OF, "prims::view_"   \
                                                                                  "of") X(         \
                                                                      DC_P_WHERE,                  \
                                                                      "prims::"                    \
                                                                      "where") X(DC_P_RESIZE,      \
                                                                                 "prims::resize")  \
                                                                      X(DC_P_SIGNBIT,              \
                                                                        "prims::signbit")          \
                                                                          X(DC_A_MM,               \
                                                                            "aten::"               \
                                                                            "mm")                  \
                                                                              X(DC_A_INDEX_SELECT, \
                                                                                "aten::index_"     \
                                                                                "select")

#define DC_ENUM(id, name) id,
typedef enum dc_op_id { DC_OPS(DC_ENUM) DC_NOPS } dc_op_id;
#undef DC_ENUM

/* A reference argument check (decomp_check.c). */
typedef tabi_status (*dc_check_fn)(const tabi_host_api *h, const tabi_call *call, const tabi_value *args);

/* A kernel that runs after its op's reference check (decomp_check.c). */
typedef struct dc_checked_kernel {
  tabi_kernel_fn fn;
  dc_check_fn check; /* NULL: the op has none */
} dc_checked_kernel;

typedef struct dc_ctx {
  const tabi_host_api *h;
  tabi_op ops[DC_NOPS];
  dc_checked_kernel *checked; /* indexed by op handle, nchecked entries (freed with the ctx) */
  int32_t nchecked;
} dc_ctx;

#define DC_SCOPE_MAX 96

typedef struct dc_scope {
  const dc_ctx *c;
  const tabi_host_api *h;
  const tabi_call *call;
  const tabi_value *args; /* the call's arguments: results must not alias them */
  tabi_status st;
  int32_t n;
  tabi_tensor *owned[DC_SCOPE_MAX];
} dc_scope;

void dc_begin(dc_scope *s, void *ctx, const tabi_call *call, const tabi_value *args);
/* Releases every intermediate. */
void dc_end(dc_scope *s);
/* Stores `result` (retained) in outs[i] when the scope has not failed, releases
 * the scope, and returns its status. A result that is one of the call's own
 * tensor arguments is copied first, so a functional op never aliases an input. */
tabi_status dc_finish(dc_scope *s, tabi_value *outs, int32_t i, tabi_tensor *result);
/* For view ops: stores `result` as it is (it aliases an input on purpose). */
tabi_status dc_finish_view(dc_scope *s, tabi_value *outs, int32_t i, tabi_tensor *result);
/* Like dc_finish for several outputs at once. */
tabi_status dc_finish_n(dc_scope *s, tabi_value *outs, int32_t n, tabi_tensor *const *results);
/* Records an error, releases the scope, and returns the status: the way a
 * decomposition refuses its input. */
tabi_status dc_error(dc_scope *s, tabi_status st, const char *fmt, ...);
/* Releases the scope after an error some callee already reported. */
tabi_status dc_abandon(dc_scope *s, tabi_status st);
/* Records an error (printf format, prefixed with the op name) and returns NULL. */
tabi_tensor *dc_fail(dc_scope *s, tabi_status st, const char *fmt, ...);
/* Puts a tensor the scope now owns into it; returns it (NULL when full). */
tabi_tensor *dc_own(dc_scope *s, tabi_tensor *t);
/* The op's name, for messages. */
const char *dc_name(const dc_scope *s);

/* --- calling ops ----------------------------------------------------------- */
/* Calls an op with boxed args; a single Tensor result is owned by the scope. */
tabi_tensor *dc_call(dc_scope *s, dc_op_id op, tabi_value *args, int32_t nargs);

/* --- prims, no promotion and no broadcasting ------------------------------- */
tabi_tensor *dc_unary(dc_scope *s, dc_op_id op, tabi_tensor *a);
tabi_tensor *dc_binary(dc_scope *s, dc_op_id op, tabi_tensor *a, tabi_tensor *b);
tabi_tensor *dc_convert(dc_scope *s, tabi_tensor *a, tabi_dtype dtype); /* a itself if same */
tabi_tensor *dc_copy(dc_scope *s, tabi_tensor *a);                      /* always new storage */
tabi_tensor *dc_broadcast_to(dc_scope *s, tabi_tensor *a, int32_t ndim, const int64_t *shape);
/* Broadcasts a to like's shape; NULL when either is NULL (an earlier error). */
tabi_tensor *dc_broadcast_like(dc_scope *s, tabi_tensor *a, const tabi_tensor *like);
/* A complex Scalar as a Scalar of the real dtype `dtype` as c10's checked
 * conversion takes it: its real part when the imaginary part is 0 (or dtype is
 * bool), else 0 with the scope failed; any other Scalar unchanged. */
tabi_value dc_scalar_real(dc_scope *s, const tabi_value *value, tabi_dtype dtype);
tabi_tensor *dc_scalar(dc_scope *s, const tabi_value *value, tabi_dtype dtype, DLDevice device);
tabi_tensor *dc_scalar_f(dc_scope *s, double value, tabi_dtype dtype, DLDevice device);
tabi_tensor *dc_full(dc_scope *s, int32_t ndim, const int64_t *shape, const tabi_value *value,
                     tabi_dtype dtype, DLDevice device);
tabi_tensor *dc_where(dc_scope *s, tabi_tensor *pred, tabi_tensor *a, tabi_tensor *b);
tabi_tensor *dc_reshape(dc_scope *s, tabi_tensor *a, int32_t ndim, const int64_t *shape);
tabi_tensor *dc_as_strided(dc_scope *s, tabi_tensor *a, int32_t ndim, const int64_t *shape,
                           const int64_t *strides, int64_t storage_offset);
/* t's offset in elements (as_strided's storage_offset that keeps it in place). */
int64_t dc_elem_offset(const tabi_tensor *t);
tabi_tensor *dc_transpose(dc_scope *s, tabi_tensor *a, const int64_t *perm);
/* Reductions over `dims` (already wrapped, no duplicates); keepdim re-inserts
 * size-1 dims with broadcast_in_dim. output_dtype < 0: none. */
tabi_tensor *dc_reduce(dc_scope *s, dc_op_id op, tabi_tensor *a, const int32_t *dims, int32_t ndims,
                       int32_t keepdim, tabi_dtype output_dtype);
tabi_tensor *dc_var(dc_scope *s, tabi_tensor *a, const int32_t *dims, int32_t ndims,
                    int32_t keepdim, int64_t correction);

/* --- ATen semantics on prims: promotion and broadcasting --------------------- */
/* Type promotion kinds, as torch._refs names them. */
#define DC_PROMOTE_DEFAULT 0          /* result = promoted; compute in it */
#define DC_PROMOTE_INT_TO_FLOAT 1     /* integers and bool become float32 */
#define DC_PROMOTE_ALWAYS_BOOL 2      /* result bool, compute in promoted */
#define DC_PROMOTE_COMPLEX_TO_FLOAT 3 /* complex results become their real dtype */
#define DC_PROMOTE_NONE 4             /* keep the first operand's dtype */

/* An operand: a tensor, or a Python scalar (t == NULL). */
typedef struct dc_operand {
  tabi_tensor *t;
  tabi_value scalar;
} dc_operand;
static inline dc_operand dc_t(tabi_tensor *t) {
  dc_operand o;
  o.t = t;
  o.scalar = tabi_none();
  return o;
}
static inline dc_operand dc_s(const tabi_value *v) {
  dc_operand o;
  o.t = NULL;
  o.scalar = *v;
  return o;
}

/* The promoted dtype of operands (ATen result_type). */
tabi_dtype dc_result_type(int32_t n, const dc_operand *ops);
/* The result and computation dtypes for a promotion kind. */
void dc_promote(int32_t n, const dc_operand *ops, int32_t kind, tabi_dtype *out_result,
                tabi_dtype *out_compute);
/* Converts and broadcasts every operand to (compute dtype, common shape) on the
 * device of the tensor operands; fills out[]. */
int dc_prepare(dc_scope *s, int32_t n, const dc_operand *ops, tabi_dtype compute,
               tabi_tensor **out);
/* As dc_prepare, but operands are first rounded to `result` (as ATen's
 * iterator casts inputs to the common dtype before computing in opmath). */
int dc_prepare_as(dc_scope *s, int32_t n, const dc_operand *ops, tabi_dtype result,
                  tabi_dtype compute, tabi_tensor **out);
/* Refuses a dtype outside `allowed` (REF_DTS_* mask) naming the argument. */
int dc_check_dtype(dc_scope *s, const char *arg, tabi_dtype dtype, uint32_t allowed);
/* ATen elementwise: promote, broadcast, apply the prim, convert to the result. */
tabi_tensor *dc_ew_unary(dc_scope *s, dc_op_id op, int32_t kind, tabi_tensor *a);
tabi_tensor *dc_ew_binary(dc_scope *s, dc_op_id op, int32_t kind, dc_operand a, dc_operand b);

/* The device of the first tensor among the operands (CPU when none). */
DLDevice dc_device(int32_t n, const dc_operand *ops);

/* --- families (each in its own file) ---------------------------------------- */
typedef struct dc_kernel {
  const char *op;
  tabi_kernel_fn fn;
} dc_kernel;
extern const dc_kernel dc_elementwise_kernels[];
extern const dc_kernel dc_reduce_kernels[];
extern const dc_kernel dc_shape_kernels[];
extern const dc_kernel dc_create_kernels[];
extern const dc_kernel dc_nn_kernels[];

/* The kernel to register for op `name` (handle op): fn itself, or, when the
 * reference exports a check for the op, a wrapper that runs the check first
 * and refuses what it refuses (decomp_check.c). NULL when out of memory. */
tabi_kernel_fn dc_checked(dc_ctx *c, const char *name, tabi_op op, tabi_kernel_fn fn);

#endif /* TABI_DECOMP_H */
