/* plugins/cuda/tc.h: what every file of the CUDA plugin shares.
 *
 * One tc_ctx per load of the plugin (a process may load it into several
 * runtimes): the host table, the device count, and lazily created library
 * handles (cuBLAS, cuDNN) per device. Kernels are registered with the tc_ctx as
 * their ctx; there is no global mutable state beyond the process-wide fact
 * "this process has initialised CUDA" (see tc_device.cu, for fork safety).
 *
 * Streams: every kernel runs on the legacy default stream (0) of the tensor's
 * device, so work is ordered with the device table's NULL-stream copies.
 *
 * Errors: every function returning tabi_status has set the message through the
 * host, naming the op. Threading: kernels may run from many threads at once;
 * the handle caches are guarded by a mutex.
 */
#ifndef TABI_TC_H
#define TABI_TC_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "tc_port.h" /* cuda_runtime.h, or HIP under hipcc */

#include <tabi/tabi.h>

#define TC_MAX_DIMS 16
#define TC_MAX_DEVICES 16
#define TC_MAX_OPS 4 /* operands of one elementwise launch: out + 3 inputs */

typedef struct tc_ctx {
  const tabi_host_api *h;
  int32_t count; /* -1 until probed */
  pthread_mutex_t mu;
  void *blas[TC_MAX_DEVICES];   /* cublasHandle_t */
  void *blaslt[TC_MAX_DEVICES]; /* cublasLtHandle_t */
  void *blas_ws[TC_MAX_DEVICES];
  uint64_t blas_ws_bytes[TC_MAX_DEVICES];
  void *dnn[TC_MAX_DEVICES];    /* cudnnHandle_t */
  /* A cuDNN handle serves one thread at a time (cuDNN's rule; cuBLAS handles
   * and the per-thread cuFFT plans need no lock): held from cudnnSetStream
   * to the last call of a convolution (tc_conv.cu). */
  pthread_mutex_t dnn_mu[TC_MAX_DEVICES];
  void *fft;                    /* tc_fft.cu: the cuFFT plan cache; ROCm's Bluestein filters */
  void *conv_algos;             /* tc_algo_cache: cuDNN/MIOpen algorithm choices (tc_conv.cu) */
  void *lt_algos;               /* tc_algo_cache: cuBLASLt's heuristic answers (tc_blas.cu) */
} tc_ctx;

typedef struct tc_kernel {
  const char *op;
  tabi_kernel_fn fn;
} tc_kernel;

#define TC_H(c) ((c)->h)
#define TC_ERR(c, st, ...) TABI_ERR((c)->h, st, __VA_ARGS__)

/* The op's full name for messages ("aten::mm"). */
const char *tc_op_name(tc_ctx *c, const tabi_call *call);
/* TABI_ERR_DEVICE naming the op and the CUDA error; TABI_OK for cudaSuccess. */
tabi_status tc_cuda_status(tc_ctx *c, cudaError_t e, const char *op, const char *what);
/* Makes the tensor's device current. */
tabi_status tc_use_device(tc_ctx *c, const tabi_tensor *t, const char *op);
/* The last launch's error, as a status (after TC_LAUNCH). */
tabi_status tc_launch_status(tc_ctx *c, const char *op);

/* A new contiguous tensor on `dev`. */
tabi_status tc_empty(tc_ctx *c, DLDevice dev, tabi_dtype dt, int32_t nd, const int64_t *shape,
                     tabi_tensor **out);
/* TABI_ERR_DEVICE unless t is a CUDA tensor. */
tabi_status tc_check_cuda(tc_ctx *c, const tabi_tensor *t, const char *op, const char *arg);
/* Each non-NULL t[i] on a device of this plugin and all on t[0]'s (t[0] not
 * NULL), which is made current; names[i] names the argument in errors. */
tabi_status tc_same_device(tc_ctx *c, const char *op, int n, const tabi_tensor *const *t,
                           const char *const *names);
/* Releases the non-NULL tensors of t[0..n). */
void tc_release_all(tc_ctx *c, tabi_tensor **t, int n);
/* The end of a kernel with one result: on failure releases out (NULL or not)
 * and returns st; else *dst holds out. Scratch is the caller's to release first. */
static inline tabi_status tc_finish(tc_ctx *c, tabi_status st, tabi_tensor *out, tabi_value *dst) {
  if (st != TABI_OK) {
    if (out) c->h->tensor_release(c->h->ctx, out);
    return st;
  }
  *dst = tabi_tensor_value(out);
  return TABI_OK;
}
/* Blocks of nt threads for a grid-stride loop over n elements (capped at 2^20:
 * the loop strides over the rest). */
static inline unsigned tc_blocks(int64_t n, int nt) {
  int64_t b = (n + nt - 1) / nt;
  return (unsigned)(b < (1 << 20) ? b : (1 << 20));
}
/* Optional operands: dtype (-1), data pointers (NULL) of a tensor or NULL. */
static inline int tc_dt_or(const tabi_tensor *t) { return t ? (int)tabi_tensor_dtype(t) : -1; }
static inline const char *tc_cdata(const tabi_tensor *t) { return t ? (const char *)tabi_tensor_data(t) : NULL; }
static inline char *tc_mdata(tabi_tensor *t) { return t ? (char *)tabi_tensor_data(t) : NULL; }
/* Wraps dim into [0, nd) (0-d takes -1 and 0); TABI_ERR_INDEX otherwise. */
tabi_status tc_wrap_dim(tc_ctx *c, const char *op, const char *arg, int64_t dim, int32_t nd,
                        int32_t *out);
/* 0 bool/integer, 1 floating, 2 complex. */
static inline int tc_category(tabi_dtype d) {
  return tabi_dtype_is_complex(d) ? 2 : tabi_dtype_is_floating(d) ? 1 : 0;
}
static inline tabi_dtype tc_real_dtype(tabi_dtype d) {
  return d == TABI_DTYPE_COMPLEX64 ? TABI_DTYPE_FLOAT32
         : d == TABI_DTYPE_COMPLEX128 ? TABI_DTYPE_FLOAT64 : d;
}

/* --- strided elementwise launches (tc_ew.cu) ------------------------------- */

/* A strided operand: base pointer of element [0..0], dtype, strides (elements)
 * aligned to the launch's shape (0 for broadcast dims). */
typedef struct tc_operand {
  void *ptr;
  int32_t dt;
  int32_t pad;
  int64_t st[TC_MAX_DIMS];
} tc_operand;

/* Element function selectors: see tc_ew_ops.cu. */
enum {
  TC_U_IDENT = 0, TC_U_SIN, TC_U_COS, TC_U_TAN, TC_U_ASIN, TC_U_ACOS, TC_U_ATAN, TC_U_SINH,
  TC_U_COSH, TC_U_TANH, TC_U_ASINH, TC_U_ACOSH, TC_U_ATANH, TC_U_EXP, TC_U_EXP2, TC_U_EXPM1,
  TC_U_LOG, TC_U_LOG10, TC_U_LOG1P, TC_U_LOG2, TC_U_SQRT, TC_U_RSQRT, TC_U_RECIP, TC_U_CBRT,
  TC_U_ERF, TC_U_ERFC, TC_U_ERFINV, TC_U_LGAMMA, TC_U_DIGAMMA, TC_U_I0, TC_U_I0E, TC_U_I1,
  TC_U_I1E, TC_U_J0, TC_U_J1, TC_U_SPHJ0, TC_U_ABS, TC_U_NEG, TC_U_SIGN, TC_U_CEIL, TC_U_FLOOR,
  TC_U_ROUND, TC_U_TRUNC, TC_U_BNOT, TC_U_ISFINITE, TC_U_SIGNBIT, TC_U_CONJ, TC_U_REAL,
  TC_U_IMAG, TC_U_SIGMOID, TC_U_RELU, TC_U_ISNAN, TC_U_ISINF, TC_U_LNOT, TC_U_ELU,
  TC_U_LEAKY_RELU, TC_U_GELU, TC_U_CLAMP, TC_U_COUNT
};
enum {
  TC_B_ADD = 0, TC_B_SUB, TC_B_MUL, TC_B_DIV, TC_B_DIV_TRUNC, TC_B_DIV_FLOOR, TC_B_ATAN2,
  TC_B_AND, TC_B_OR, TC_B_XOR, TC_B_EQ, TC_B_NE, TC_B_LT, TC_B_LE, TC_B_GT, TC_B_GE, TC_B_FMAX,
  TC_B_FMIN, TC_B_FMOD, TC_B_REM, TC_B_GCD, TC_B_HYPOT, TC_B_IGAMMA, TC_B_IGAMMAC, TC_B_MAXIMUM,
  TC_B_MINIMUM, TC_B_NEXTAFTER, TC_B_POW, TC_B_SHL, TC_B_SHR, TC_B_ZETA, TC_B_LAND, TC_B_LOR,
  TC_B_LXOR, TC_B_POW_TS, TC_B_COUNT
};

/* Three-input selectors (p.op of a launch with nin 3). */
enum {
  TC_T_WHERE = 0, /* where(pred, x, y) */
  TC_T_CLAMP      /* clamp(x, lo, hi): bounds present per p.pi's TC_CLAMP_MIN/MAX, an absent one's ptr NULL */
};

/* Parameters of one launch. */
typedef struct tc_ew_params {
  int32_t op;      /* TC_U_*, TC_B_* or TC_T_* */
  int32_t cd;      /* compute dtype: every input is cast to it first */
  double pf;       /* alpha for add/sub, as the compute type */
  int64_t pi;
  double pc[2];
  double pa[3];    /* unary parameters, as the reference prepared them (its ctx pf[]) */
  /* A Scalar operand (binary, input k with a NULL ptr), already in the compute
   * dtype: si in the integer category, sf[k][0] real, sf[k] complex. */
  int64_t si[2];
  double sf[2][2];
  int32_t plain_pow; /* pow.Tensor_Scalar without ATen's special exponents
                        (tc_ew_aten_bplan's) */
} tc_ew_params;

/* out = f(in...) elementwise over `shape`: nin 1 (unary), 2 (binary) or 3
 * (where: in0 is the bool predicate). Inputs load, cast to p->cd as ATen's
 * static_cast does, and the result stores with ATen's cast to out's dtype.
 * *out_zero_div is set when an integer division by zero happened (binary
 * div/fmod/remainder on integers). Runs on the current device's stream 0. */
tabi_status tc_ew_launch(tc_ctx *c, const char *op, int32_t nd, const int64_t *shape,
                         const tc_operand *out, int32_t nin, const tc_operand *in,
                         const tc_ew_params *p, int *out_zero_div);
/* Operand from a tensor broadcast (right-aligned) to `shape` of nd dims. */
void tc_operand_of(const tabi_tensor *t, int32_t nd, const int64_t *shape, tc_operand *o);
/* dst[...] = src[...] with conversion; src broadcast to dst's shape. */
tabi_status tc_copy_convert(tc_ctx *c, const char *op, tabi_tensor *dst, const tabi_tensor *src);
/* tc_copy_convert's transposing copies of one dtype (dst's and src's unit
 * strides on different dims, both at least 16 long, 4096 elements or more)
 * through shared-memory tiles (tc_shape.cu); *done = 0 and nothing launched
 * for any other copy. o and i as tc_ew_launch takes them. */
tabi_status tc_copy_tiled(tc_ctx *c, const char *op, int32_t nd, const int64_t *shape,
                          const tc_operand *o, const tc_operand *i, int *done);
/* Fills n elements of es bytes from p (a storage start: 16-aligned) with pat
 * (tc_create.cu): cudaMemsetAsync when its bytes repeat, else one kernel. */
tabi_status tc_fill_dense(tc_ctx *c, const char *op, void *p, int64_t n, int64_t es, const unsigned char *pat);
/* Fills every element of t with a Scalar value (converted as c10 does). */
tabi_status tc_fill(tc_ctx *c, const char *op, tabi_tensor *t, const tabi_value *v);
/* A contiguous copy of t (same dtype) when t is not contiguous; else t retained. */
tabi_status tc_contiguous(tc_ctx *c, const char *op, tabi_tensor *t, tabi_tensor **out);
/* An integer device tensor's values as int64 in row-major order, in a malloc'd
 * host array (*out, n entries; free it): the reference's argument checks read
 * index values there (tc_index.cu). */
tabi_status tc_host_ints(tc_ctx *c, const char *op, const tabi_tensor *idx, int64_t **out, int64_t *n);
/* t (on a device of this plugin) converted to dtype dt and copied to a new
 * contiguous CPU tensor (*out, to release; NULL on failure, nothing leaks). */
tabi_status tc_host_copy(tc_ctx *c, const char *op, const tabi_tensor *t, tabi_dtype dt, tabi_tensor **out);
/* The reference's bounds check of index's values (read back with
 * tc_host_ints, freed on every path) against a dim of size `size`; TABI_OK
 * for an empty index. */
tabi_status tc_index_bounds(tc_ctx *c, const tabi_call *call, const tabi_tensor *index, int32_t dim, int64_t size);

/* --- kernel tables of the families ------------------------------------------ */
/* Blocks for a grid-stride launch over n items, per_block to a block: at
   least one, at most 65535 (the kernels' loops stride over the rest). */
static inline int tc_grid(int64_t n, int per_block) {
  int64_t g = (n + per_block - 1) / per_block;
  return (int)(g < 1 ? 1 : g > 65535 ? 65535 : g);
}

/* Reductions (tc_reduce.cu). TC_RK_MEAN and TC_RK_M2 are the two passes of
   var (ask for TC_RK_M2; it runs both); TC_RK_AVG is aten's mean (a sum
   divided by the group size at the store); TC_RK_ANY stores whether any
   element is nonzero (NaN counts). */
enum { TC_RK_SUM, TC_RK_PROD, TC_RK_AMAX, TC_RK_AMIN, TC_RK_ARGMAX, TC_RK_ARGMIN, TC_RK_MEAN, TC_RK_M2,
       TC_RK_AVG, TC_RK_ANY };
struct tc_red_plan;
/* Reduces `self` over r's reduced dims, accumulating as `as`, into the new
   contiguous `out` (values; may be NULL for argmax/argmin) and `idx` (int64
   indices in the group, argmax/argmin only). */
tabi_status tc_reduce_run(tc_ctx *c, const char *op, const tabi_tensor *self,
                          const struct tc_red_plan *r, int kind, tabi_dtype as, tabi_tensor *out,
                          tabi_tensor *idx, int64_t correction);

/* The stable sort of `self` along dim (tc_sort.cu; NaN largest, equal keys in
   input order), the first k of each slice: new contiguous values and their
   int64 positions along dim. */
tabi_status tc_sort_run(tc_ctx *c, const char *op, tabi_tensor *self, int32_t dim, int desc, int64_t k,
                        tabi_tensor **out_vals, tabi_tensor **out_idx);

/* native_layer_norm_backward's float kernels (tc_nn.cu, tc_rows.cuh) over
   contiguous operands. tc_ln_bw_takes says which parts they take
   (TC_LNBW_DX: grad_input, a block a row; TC_LNBW_PARAM: the kp > 1 partial
   sums of grad_weight/grad_bias, laid out as tc_norm.cuh's tcn_param_part's):
   none unless x and grad_out are of one of float32/float16/bfloat16, mean
   and rstd of those, the weight of x's dtype or float32; grad_input, for
   rows too long for a register kernel, only where every row of go, x, w and
   gi starts on a 16-byte boundary (so the pointers are set before asking).
   tc_ln_bw_rows launches the parts whose output (gi, part) is not NULL;
   tc_norm.cu runs the general kernels for the rest. */
enum { TC_LNBW_DX = 1, TC_LNBW_PARAM = 2 };
typedef struct tc_ln_bw_args {
  int64_t rows, n; /* rows of n elements; n parameters */
  int xdt, gdt, mdt, rdt, wdt; /* x, grad_out, mean, rstd, weight (-1: none) */
  const char *go, *x, *mean, *rstd, *w;
  char *gi;
  double *part;
  int64_t kp;
} tc_ln_bw_args;
int tc_ln_bw_takes(const tc_ln_bw_args *a);
void tc_ln_bw_rows(const tc_ln_bw_args *a);

extern TC_KTABLE tc_kernel tc_ew_kernels[];
extern TC_KTABLE tc_kernel tc_shape_kernels[];
extern TC_KTABLE tc_kernel tc_reduce_kernels[];
extern TC_KTABLE tc_kernel tc_random_kernels[];
extern TC_KTABLE tc_kernel tc_blas_kernels[];
extern TC_KTABLE tc_kernel tc_nn_kernels[];
extern TC_KTABLE tc_kernel tc_fft_kernels[];
extern TC_KTABLE tc_kernel tc_index_kernels[];
extern TC_KTABLE tc_kernel tc_sort_kernels[];
extern TC_KTABLE tc_kernel tc_scatter_kernels[];
extern TC_KTABLE tc_kernel tc_pad_up_kernels[]; /* padding, upsampling, col2im */
extern TC_KTABLE tc_kernel tc_pool_kernels[]; /* max/avg/adaptive pooling and backwards */
extern TC_KTABLE tc_kernel tc_misc_kernels[]; /* grid_sampler_2d, cdist/pdist, embedding backward */
extern TC_KTABLE tc_kernel tc_norm_kernels[]; /* group norm, layer/group norm backwards */
extern TC_KTABLE tc_kernel tc_bn_kernels[]; /* the three _native_batch_norm_legit forms */
extern TC_KTABLE tc_kernel tc_create_kernels[]; /* empty, full, full_like, fill, scalar_tensor */
extern TC_KTABLE tc_kernel tc_idx_kernels[]; /* index, index_put, scatter_reduce, nonzero, masked_scatter, randperm */
extern TC_KTABLE tc_kernel tc_conv_kernels[]; /* empty when built without cuDNN */
extern TC_KTABLE tc_kernel tc_svd_kernels[]; /* prims::svd (one-sided Jacobi, a block per matrix) */

/* The kernel tables, in registration order: the same for every build of the
 * shared files (tc_plugin.cu, plugins/rocm/rocm_kernels.cpp, plugins/gpusim). */
#define TC_KERNEL_TABLES                                                                          \
  tc_ew_kernels, tc_shape_kernels, tc_reduce_kernels, tc_random_kernels, tc_blas_kernels,          \
      tc_nn_kernels, tc_fft_kernels, tc_index_kernels, tc_conv_kernels, tc_sort_kernels,           \
      tc_scatter_kernels, tc_pad_up_kernels, tc_pool_kernels, tc_misc_kernels, tc_norm_kernels,    \
      tc_idx_kernels, tc_bn_kernels, tc_svd_kernels, tc_create_kernels

/* A new context for host h (mutexes ready, no device probed; NULL when out of
 * memory), and its end: tc_ctx_free releases the CUDA library handles and
 * caches it holds (cuBLAS, cuDNN, the cuFFT plans; the ROCm plugin releases
 * its own libraries' first), the algorithm cache, then c. */
tc_ctx *tc_ctx_new(const tabi_host_api *h);
void tc_ctx_free(tc_ctx *c);
/* Whether one of the tables has a kernel for op; registering every table's
 * kernels at the backend layer (`plugin` names the plugin in errors). */
int tc_kernels_own(const char *op);
tabi_status tc_kernels_register(tc_ctx *c, const char *plugin);

/* Per-device library handles (created on first use; NULL + error on failure). */
void *tc_cublas(tc_ctx *c, int32_t dev, const char *op);
/* The device's cuBLASLt handle (created on first use; NULL when it cannot
 * be: the callers then take the cuBLAS path, so no error is set). The
 * workspace of tc_cublas's handle serves it too (one stream: no overlap). */
void *tc_cublaslt(tc_ctx *c, int32_t dev);
void *tc_cudnn(tc_ctx *c, int32_t dev, const char *op);
/* Frees the cuFFT plan cache / the cuDNN handles (tc_ctx_free). */
void tc_fft_destroy(tc_ctx *c);
void tc_cudnn_destroy(tc_ctx *c);

#define TC_ARGS void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs
#define TC_CTX tc_ctx *c = (tc_ctx *)ctx; const char *OPN = tc_op_name(c, call); (void)OPN

#endif /* TABI_TC_H */
