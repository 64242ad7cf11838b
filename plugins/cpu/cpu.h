/* plugins/cpu/cpu.h: what the CPU plugin's kernels share.
 *
 * The plugin registers, for every op of both schema files, either its own fast
 * kernel or the reference kernel compiled into it (reference/ref_*.c). A fast
 * kernel takes the cases it was written for (contiguous, a dtype it knows) and
 * hands every other case to the reference kernel of the same op, which is the
 * oracle and therefore always right.
 *
 * Fast kernels are registered with kernel ctx = a cpu_ctx (one per loaded
 * instance: the host table, the thread pool, the oneDNN cache, the reference
 * kernels to fall back to). Reference kernels are registered with ctx = the host
 * table, as they expect. No global mutable state: a plugin may be loaded into
 * several runtimes in one process.
 *
 * Threading: kernels may run on many threads at once; cpu_ctx is read-only
 * after init except for the pool and the oneDNN cache, which lock.
 */
#ifndef TABI_CPU_H
#define TABI_CPU_H

#include <stdint.h>

#include <tabi/tabi.h>

#include "cpu_pool.h"

/* The ops with a fast kernel: X(ID, "op name", kernel function). */
#define CPU_FAST_OPS(X)                                                        \
  X(ADD_TENSOR, "aten::add.Tensor", cpu_k_add_tensor)                          \
  X(SUB_TENSOR, "aten::sub.Tensor", cpu_k_sub_tensor)                          \
  X(MUL_TENSOR, "aten::mul.Tensor", cpu_k_mul_tensor)                          \
  X(DIV_TENSOR, "aten::div.Tensor", cpu_k_div_tensor)                          \
  X(P_ADD, "prims::add", cpu_k_p_add)                                          \
  X(P_SUB, "prims::sub", cpu_k_p_sub)                                          \
  X(P_MUL, "prims::mul", cpu_k_p_mul)                                          \
  X(P_DIV, "prims::div", cpu_k_p_div)                                          \
  X(EXP, "aten::exp", cpu_k_exp)                                               \
  X(P_EXP, "prims::exp", cpu_k_p_exp)                                          \
  X(GELU, "aten::gelu", cpu_k_gelu)                                            \
  X(NEG, "aten::neg", cpu_k_neg)                                               \
  X(ABS, "aten::abs", cpu_k_abs)                                               \
  X(RELU, "aten::relu", cpu_k_relu)                                            \
  X(SIGMOID, "aten::sigmoid", cpu_k_sigmoid)                                   \
  X(TANH, "aten::tanh", cpu_k_tanh)                                            \
  X(SQRT, "aten::sqrt", cpu_k_sqrt)                                            \
  X(RSQRT, "aten::rsqrt", cpu_k_rsqrt)                                         \
  X(LOG, "aten::log", cpu_k_log)                                               \
  X(SIN, "aten::sin", cpu_k_sin)                                               \
  X(COS, "aten::cos", cpu_k_cos)                                               \
  X(SUM_DIM, "aten::sum.dim_IntList", cpu_k_sum_dim)                           \
  X(MEAN, "aten::mean", cpu_k_mean)                                            \
  X(MEAN_DIM, "aten::mean.dim", cpu_k_mean_dim)                                \
  X(AMAX, "aten::amax", cpu_k_amax)                                            \
  X(AMIN, "aten::amin", cpu_k_amin)                                            \
  X(SOFTMAX, "aten::_softmax", cpu_k_softmax)                                  \
  X(LOG_SOFTMAX, "aten::_log_softmax", cpu_k_log_softmax)                      \
  X(LAYER_NORM, "aten::native_layer_norm", cpu_k_layer_norm)                   \
  X(MM, "aten::mm", cpu_k_mm)                                                  \
  X(BMM, "aten::bmm", cpu_k_bmm)                                               \
  X(ADDMM, "aten::addmm", cpu_k_addmm)                                         \
  X(CONV, "aten::convolution", cpu_k_conv)                                     \
  X(CONV_BWD, "aten::convolution_backward", cpu_k_conv_bwd)                    \
  X(INDEX_SELECT, "aten::index_select", cpu_k_index_select)                    \
  X(GATHER, "aten::gather", cpu_k_gather)                                      \
  X(SCATTER_ADD, "aten::scatter_add", cpu_k_scatter_add)                       \
  X(SORT, "aten::sort", cpu_k_sort)                                            \
  X(TOPK, "aten::topk", cpu_k_topk)                                            \
  X(FFT_R2C, "aten::_fft_r2c", cpu_k_fft_r2c)

#define CPU_ENUM(id, name, fn) CPU_OP_##id,
enum { CPU_FAST_OPS(CPU_ENUM) CPU_OP_COUNT };
#undef CPU_ENUM

typedef struct cpu_dnnl_cache cpu_dnnl_cache;

typedef struct cpu_ctx {
  const tabi_host_api *host;
  cpu_pool *pool;
  int32_t nthreads;
  int32_t has_avx2;  /* avx2 + fma + f16c */
  cpu_dnnl_cache *dnnl; /* NULL without oneDNN */
  tabi_kernel_fn ref[CPU_OP_COUNT]; /* the reference kernel of each fast op */
} cpu_ctx;

#define CPU_DECL(id, name, fn) \
  tabi_status fn(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
CPU_FAST_OPS(CPU_DECL)
#undef CPU_DECL

/* Runs the reference kernel of fast op `id` on the same call. */
#define CPU_FALLBACK(c, id) ((c)->ref[CPU_OP_##id]((void *)(c)->host, call, args, outs))

/* --- small helpers ---------------------------------------------------------- */

/* 1 when t is contiguous row-major (tabi_tensor_is_contiguous). */
static inline int cpu_contig(const tabi_tensor *t) { return tabi_tensor_is_contiguous(t); }

static inline int cpu_same_shape(const tabi_tensor *a, const tabi_tensor *b) {
  if (a->dl.ndim != b->dl.ndim) return 0;
  for (int32_t i = 0; i < a->dl.ndim; i++)
    if (a->dl.shape[i] != b->dl.shape[i]) return 0;
  return 1;
}

/* float16 / bfloat16 / float32 / float64: the dtypes the fast float paths take. */
static inline int cpu_is_fast_float(tabi_dtype d) {
  return d == TABI_DTYPE_FLOAT32 || d == TABI_DTYPE_FLOAT16 || d == TABI_DTYPE_BFLOAT16;
}

/* A new contiguous tensor like `like` (device) with the given dtype and shape. */
tabi_status cpu_empty(const cpu_ctx *c, const tabi_tensor *like, tabi_dtype dt, int32_t ndim,
                      const int64_t *shape, tabi_tensor **out);

/* Converts n elements between float32 and float16/bfloat16/float32 buffers
 * (vectorized: F16C where present). */
void cpu_to_f32(const cpu_ctx *c, tabi_dtype dt, const void *src, float *dst, int64_t n);
void cpu_from_f32(const cpu_ctx *c, tabi_dtype dt, const float *src, void *dst, int64_t n);

/* Wraps dim into [0, ndim) (0-d takes -1 and 0); -1 when out of range. */
static inline int32_t cpu_wrap_dim(int64_t dim, int32_t ndim) {
  int32_t n = ndim > 0 ? ndim : 1;
  if (dim < -n || dim >= n) return -1;
  return (int32_t)(dim < 0 ? dim + n : dim);
}

#endif /* TABI_CPU_H */
