/* reference/ref.h: what every reference kernel shares.
 *
 * The reference kernels are the oracle: obviously right, not fast. They read and
 * write one element at a time through the helpers here (any layout, any dtype),
 * compute in int64, double or complex double, and round once at the store. The
 * rules of ATen that every family needs (broadcasting, type promotion, dim
 * wrapping, the conversions between dtypes) live here, written once.
 *
 * Every kernel is registered with kernel ctx = the host table, so a kernel gets
 * its host as `const tabi_host_api *h = ctx;` and keeps no global state (the
 * plugin may be loaded into several runtimes in one process).
 */
#ifndef TABI_REF_H
#define TABI_REF_H

#include <complex.h>
#include <stdint.h>

#include <tabi/tabi.h>

#define REF_MAX_DIMS 16
#define REF_MAX_OPERANDS 8

typedef double _Complex ref_cplx;

/* A family's kernels: a table of (op name, kernel), ended by {NULL, NULL}. */
typedef struct ref_kernel {
  const char *op;   /* "aten::add.Tensor" */
  tabi_kernel_fn fn;
} ref_kernel;

/* --- errors and names ------------------------------------------------------ */

/* The op's full name ("aten::add.Tensor") for messages. */
const char *ref_op_name(const tabi_host_api *h, const tabi_call *call);
#define REF_ERR(h, st, ...) TABI_ERR(h, st, __VA_ARGS__)

/* --- dtypes ---------------------------------------------------------------- */

#define REF_DT(d) (1u << (unsigned)(d))
#define REF_DTS_BOOL REF_DT(TABI_DTYPE_BOOL)
#define REF_DTS_INT                                                            \
  (REF_DT(TABI_DTYPE_UINT8) | REF_DT(TABI_DTYPE_INT8) | REF_DT(TABI_DTYPE_INT16) | \
   REF_DT(TABI_DTYPE_INT32) | REF_DT(TABI_DTYPE_INT64))
#define REF_DTS_FLOAT                                                              \
  (REF_DT(TABI_DTYPE_FLOAT16) | REF_DT(TABI_DTYPE_BFLOAT16) | REF_DT(TABI_DTYPE_FLOAT32) | \
   REF_DT(TABI_DTYPE_FLOAT64))
#define REF_DTS_COMPLEX (REF_DT(TABI_DTYPE_COMPLEX64) | REF_DT(TABI_DTYPE_COMPLEX128))
#define REF_DTS_ALL (REF_DTS_BOOL | REF_DTS_INT | REF_DTS_FLOAT | REF_DTS_COMPLEX)

/* TABI_ERR_TYPE "<op>: argument '<arg>' has dtype X; expected one of ..." unless
 * dtype is in `allowed` (a REF_DTS_* mask). */
tabi_status ref_check_dtype(const tabi_host_api *h, const tabi_call *call, const char *arg,
                            tabi_dtype dtype, uint32_t allowed);

/* ATen's promoteTypes (the lattice bool < integers < floats < complex, with
 * uint8+int8 -> int16, float16+bfloat16 -> float32, complex64+float64 -> complex128). */
tabi_dtype ref_promote(tabi_dtype a, tabi_dtype b);

/* ATen's result_type: three priority classes, dimensioned tensors > 0-d tensors >
 * Python scalars; a higher class wins unless a lower one is of a higher category
 * (bool < integral < floating < complex). Python floats count as the default
 * dtype (float32), complex as complex64, ints as int64, bools as bool. */
typedef struct ref_result_type {
  tabi_dtype dim_result;     /* TABI_DTYPE_INVALID = none yet */
  tabi_dtype zero_result;
  tabi_dtype wrapped_result;
} ref_result_type;
void ref_rt_init(ref_result_type *rt);
void ref_rt_tensor(ref_result_type *rt, const tabi_tensor *t);
void ref_rt_scalar(ref_result_type *rt, const tabi_value *scalar); /* BOOL/INT/FLOAT/COMPLEX */
tabi_dtype ref_rt_result(const ref_result_type *rt);

/* The dtype a Python scalar value has on its own: bool, int64, float64 (a
 * wrapped float keeps double precision as a value; its *category* is what
 * promotion uses), complex128. */
tabi_dtype ref_scalar_dtype(const tabi_value *scalar);

/* --- element access ---------------------------------------------------------
 * `off` is an element offset from tabi_tensor_data(t) (i.e. sum of index*stride).
 * Loads convert to the compute type exactly (int64 from any integer/bool; double
 * from anything real; complex double from anything). A load of a complex tensor
 * as double takes the real part. Stores convert from the compute type with ATen's
 * casts: to bool is `!= 0`; float to integer truncates toward zero and, out of
 * range or NaN, gives what x86 gives (INT_MIN of the 32- or 64-bit conversion,
 * then wrapped to the width) without undefined behaviour; double to float16 and
 * bfloat16 goes through float32 as c10::Half/BFloat16 do; complex to real drops
 * the imaginary part. */
int64_t ref_load_i(const tabi_tensor *t, int64_t off);
double ref_load_f(const tabi_tensor *t, int64_t off);
ref_cplx ref_load_c(const tabi_tensor *t, int64_t off);
void ref_store_i(tabi_tensor *t, int64_t off, int64_t v);
void ref_store_f(tabi_tensor *t, int64_t off, double v);
void ref_store_c(tabi_tensor *t, int64_t off, ref_cplx v);

/* Raw versions on a pointer + dtype, for buffers that are not tensors. */
int64_t ref_load_i_ptr(const void *p, tabi_dtype dt);
double ref_load_f_ptr(const void *p, tabi_dtype dt);
ref_cplx ref_load_c_ptr(const void *p, tabi_dtype dt);
void ref_store_i_ptr(void *p, tabi_dtype dt, int64_t v);
void ref_store_f_ptr(void *p, tabi_dtype dt, double v);
void ref_store_c_ptr(void *p, tabi_dtype dt, ref_cplx v);

/* Scalars (tabi_value BOOL/INT/FLOAT/COMPLEX) in each compute type. */
int64_t ref_scalar_i(const tabi_value *v);   /* floats truncate */
double ref_scalar_f(const tabi_value *v);    /* complex: real part */
ref_cplx ref_scalar_c(const tabi_value *v);

/* Integer arithmetic that wraps like two's complement, never UB. */
static inline int64_t ref_wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t ref_wrap_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static inline int64_t ref_wrap_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static inline int64_t ref_wrap_neg(int64_t a) { return (int64_t)(0 - (uint64_t)a); }

/* --- shapes ---------------------------------------------------------------- */

/* Wraps a possibly negative dim into [0, ndim); a 0-d tensor takes dims -1 and 0
 * (as ATen). TABI_ERR_INDEX "<op>: argument '<arg>': dim 3 is out of range for a
 * tensor of 2 dims (expected -2..1)". */
tabi_status ref_wrap_dim(const tabi_host_api *h, const tabi_call *call, const char *arg,
                         int64_t dim, int32_t ndim, int32_t *out_dim);

/* Broadcast shape of n tensors (NULL entries skipped). TABI_ERR_SHAPE naming the
 * shapes and the dim that disagrees. */
tabi_status ref_broadcast_shape(const tabi_host_api *h, const tabi_call *call, int32_t n,
                                const tabi_tensor *const *ts, int32_t *out_ndim,
                                int64_t *out_shape);

/* Formats a shape as "[2, 3]" into buf (always NUL-terminated). */
const char *ref_shape_str(char *buf, int64_t cap, int32_t ndim, const int64_t *shape);

/* Row-major iteration over `shape`, tracking an element offset for each operand
 * added. An operand of fewer dims is right-aligned and broadcast (size-1 and
 * missing dims get stride 0). Use:
 *   ref_iter it; ref_iter_init(&it, ndim, shape);
 *   int a = ref_iter_add(&it, x), o = ref_iter_add(&it, out);
 *   for (; !ref_iter_done(&it); ref_iter_next(&it)) use it.off[a], it.off[o];
 * Also usable with explicit strides (ref_iter_add_strided), for views. */
typedef struct ref_iter {
  int32_t ndim;
  int32_t n;
  int64_t shape[REF_MAX_DIMS];
  int64_t index[REF_MAX_DIMS];
  int64_t strides[REF_MAX_OPERANDS][REF_MAX_DIMS];
  int64_t off[REF_MAX_OPERANDS];
  int64_t numel;
  int64_t pos;
} ref_iter;
void ref_iter_init(ref_iter *it, int32_t ndim, const int64_t *shape);
int32_t ref_iter_add(ref_iter *it, const tabi_tensor *t);
int32_t ref_iter_add_strided(ref_iter *it, int32_t ndim, const int64_t *shape,
                             const int64_t *strides);
static inline int ref_iter_done(const ref_iter *it) { return it->pos >= it->numel; }
void ref_iter_next(ref_iter *it);

/* Element offset of row-major linear index `linear` in a tensor (no broadcast). */
int64_t ref_offset_of(const tabi_tensor *t, int64_t linear);

/* --- outputs ---------------------------------------------------------------- */

/* A new contiguous tensor on `like`'s device (CPU when like is NULL). */
tabi_status ref_empty(const tabi_host_api *h, const tabi_tensor *like, tabi_dtype dtype,
                      int32_t ndim, const int64_t *shape, tabi_tensor **out);
/* A new contiguous tensor with t's shape, dtype and device, holding t's values. */
tabi_status ref_clone(const tabi_host_api *h, const tabi_tensor *t, tabi_tensor **out);
/* Copies src into dst elementwise (dst's shape; src broadcast to it), converting
 * dtypes with the store rules above. */
void ref_copy_convert(tabi_tensor *dst, const tabi_tensor *src);

/* Sets outs[i] to the tensor (taking the reference). */
static inline void ref_set_out(tabi_value *outs, int32_t i, tabi_tensor *t) {
  outs[i] = tabi_tensor_value(t);
}

/* The argument list of an int[] argument (len may be 0). */
static inline int64_t ref_list_len(const tabi_value *v) {
  return v->tag == TABI_TAG_NONE ? 0 : v->u.list.len;
}

/* --- the families' kernel tables (each defined in its own file) ------------- */
extern const ref_kernel ref_elementwise_kernels[];
extern const ref_kernel ref_elementwise2_kernels[];
extern const ref_kernel ref_shape_kernels[];
extern const ref_kernel ref_index_kernels[];
extern const ref_kernel ref_reduce_kernels[];
extern const ref_kernel ref_create_kernels[];
extern const ref_kernel ref_nn_kernels[];
extern const ref_kernel ref_nn2_kernels[];
extern const ref_kernel ref_linalg_kernels[];
extern const ref_kernel ref_fft_kernels[];
extern const ref_kernel ref_elementwise3_kernels[];
extern const ref_kernel ref_shape2_kernels[];
extern const ref_kernel ref_index2_kernels[];
extern const ref_kernel ref_reduce2_kernels[];
extern const ref_kernel ref_nn3_kernels[];
extern const ref_kernel ref_create2_kernels[];

#endif /* TABI_REF_H */
