/* plugins/cpu/cpu_dnnl.h: oneDNN for matmul and convolution, with a primitive
 * cache keyed by kind, shapes, strides, dtype and thread count, so a repeated
 * shape does not re-create its primitives (and their reorders).
 *
 * Built with TABI_HAVE_ONEDNN; without it (cpu_dnnl_stub.c) the cache is NULL
 * and every entry point returns 0, so callers use their own kernels.
 *
 * Every entry point returns 1 when it computed the result, 0 when oneDNN could
 * not take the case (the caller falls back; nothing was written). float32
 * unless named otherwise.
 * Tensors of the conv entry points are (N, C, spatial...) and weights as ATen
 * shapes them, read with the strides of cpu_conv_geom; results contiguous.
 *
 * Threading: the cache is locked while looked up or filled; entries are never
 * evicted or changed once inserted (past CPU_DNNL_CACHE_MAX shapes, primitives
 * are built and dropped per call), so execution runs unlocked. oneDNN runs on
 * its OpenMP threads, `nthreads` of them for this call. */
#ifndef TABI_CPU_DNNL_H
#define TABI_CPU_DNNL_H

#include <stdint.h>

#include <tabi/tabi.h>

typedef struct cpu_dnnl_cache cpu_dnnl_cache;

cpu_dnnl_cache *cpu_dnnl_cache_create(int32_t nthreads);
void cpu_dnnl_cache_destroy(cpu_dnnl_cache *cache); /* NULL ok */
/* Entries now in the cache (tests check that a repeated shape adds none). */
int32_t cpu_dnnl_cache_size(cpu_dnnl_cache *cache);

/* C[b] = A[b] @ B[b] for b < batch; A is MxK, B is KxN with element strides
 * (batch, row, col) as given (>= 0), C contiguous batch x M x N. */
int cpu_dnnl_matmul(cpu_dnnl_cache *cache, const tabi_host_api *h, int32_t nthreads,
                    int64_t batch, int64_t m, int64_t n, int64_t k, const float *a,
                    const int64_t *as, const float *b, const int64_t *bs, float *c);
/* The same with bfloat16 operands and a float32 product (oneDNN's bf16 dot
 * products accumulate in float32: the float32 path's accuracy, without
 * widening the operands first). 0 where the machine has no bf16 kernel. */
int cpu_dnnl_matmul_bf16(cpu_dnnl_cache *cache, const tabi_host_api *h, int32_t nthreads,
                         int64_t batch, int64_t m, int64_t n, int64_t k, const uint16_t *a,
                         const int64_t *as, const uint16_t *b, const int64_t *bs, float *c);

/* A convolution of ns = 1..3 spatial dims, ATen's arguments checked and its
 * output size derived (cpu_nn_conv.c). ic/oc: channels of the op's input and
 * output; the weight is [oc, ic/groups, k...], or [ic, oc/groups, k...] when
 * transposed. Every size fits in 31 bits. */
typedef struct cpu_conv_geom {
  int32_t ns, transposed;
  int64_t n, ic, oc, groups;
  int64_t in[3], k[3], out[3];     /* spatial sizes: input, kernel, output */
  int64_t s[3], p[3], d[3], op[3]; /* stride, padding, dilation (>= 1), output_padding */
  /* element strides of the input, the weight and grad_output (any dense
   * layout: channels-last, transposed views); results are contiguous */
  int64_t xs[5], ws[5], ys[5];
  /* 1: the inputs (x, w, dy) are bfloat16 and given as such; results (y, dx,
   * dw) are float32 either way, bias float32 */
  int32_t bf16;
} cpu_conv_geom;

/* x, w, dy: float32, or bfloat16 when g->bf16 (0 where the machine has no
 * bf16 kernel: the caller widens them and calls again). */
int cpu_dnnl_conv_fwd(cpu_dnnl_cache *cache, const tabi_host_api *h, int32_t nthreads,
                      const cpu_conv_geom *g, const void *x, const void *w, const float *bias,
                      float *y);
int cpu_dnnl_conv_bwd_data(cpu_dnnl_cache *cache, const tabi_host_api *h, int32_t nthreads,
                           const cpu_conv_geom *g, const void *dy, const void *w, float *dx);
/* db may be NULL (no bias gradient). */
int cpu_dnnl_conv_bwd_weights(cpu_dnnl_cache *cache, const tabi_host_api *h, int32_t nthreads,
                              const cpu_conv_geom *g, const void *x, const void *dy, float *dw,
                              float *db);

#endif /* TABI_CPU_DNNL_H */
