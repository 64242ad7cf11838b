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
 * after init except for the pool and the oneDNN and FFT caches, which lock.
 */
#ifndef TABI_CPU_H
#define TABI_CPU_H

#include <stdint.h>

#include <tabi/tabi.h>

#include "cpu_pool.h"

/* The ops with a fast kernel, one list per family (one header each, so the
 * families can grow independently): X(ID, "op name", kernel function). */
#include "cpu_ops_ew.h"
#include "cpu_ops_fft.h"
#include "cpu_ops_idx.h"
#include "cpu_ops_misc.h"
#include "cpu_ops_nn.h"
#include "cpu_ops_nn3.h"
#include "cpu_ops_pool.h"
#include "cpu_ops_reduce.h"
#define CPU_FAST_OPS(X) CPU_OPS_EW(X) CPU_OPS_REDUCE(X) CPU_OPS_NN(X) CPU_OPS_NN3(X) CPU_OPS_FFT(X) \
  CPU_OPS_MISC(X) CPU_OPS_IDX(X) CPU_OPS_POOL(X)

#define CPU_ENUM(id, name, fn) CPU_OP_##id,
enum { CPU_FAST_OPS(CPU_ENUM) CPU_OP_COUNT };
#undef CPU_ENUM

typedef struct cpu_dnnl_cache cpu_dnnl_cache;
typedef struct cpu_fft_cache cpu_fft_cache;

typedef struct cpu_ctx {
  const tabi_host_api *host;
  cpu_pool *pool;
  int32_t nthreads;
  int32_t has_avx2;  /* avx2 + fma + f16c */
  cpu_dnnl_cache *dnnl; /* NULL without oneDNN */
  cpu_fft_cache *fft;   /* FFT plans (cpu_fft.h); NULL: plans built per call */
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

/* Copies n elements of es bytes from src at element stride st (in elements)
 * to contiguous dst. */
void cpu_gather_strided(char *dst, const char *src, int64_t n, int64_t st, int64_t es);

/* Wraps dim into [0, ndim) (0-d takes -1 and 0); -1 when out of range. */
static inline int32_t cpu_wrap_dim(int64_t dim, int32_t ndim) {
  int32_t n = ndim > 0 ? ndim : 1;
  if (dim < -n || dim >= n) return -1;
  return (int32_t)(dim < 0 ? dim + n : dim);
}

#endif /* TABI_CPU_H */
