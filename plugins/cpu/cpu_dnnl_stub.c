/* plugins/cpu/cpu_dnnl_stub.c: the build without oneDNN: no cache, and every
 * entry point declines, so the kernels use the plugin's own GEMM. */
#include <stddef.h>

#include "cpu_dnnl.h"

cpu_dnnl_cache *cpu_dnnl_cache_create(int32_t nthreads) {
  (void)nthreads;
  return NULL;
}
void cpu_dnnl_cache_destroy(cpu_dnnl_cache *cache) { (void)cache; }
int32_t cpu_dnnl_cache_size(cpu_dnnl_cache *cache) { (void)cache; return 0; }
int cpu_dnnl_matmul(cpu_dnnl_cache *cache, const tabi_host_api *h, int32_t nthreads,
                    int64_t batch, int64_t m, int64_t n, int64_t k, const float *a,
                    const int64_t *as, const float *b, const int64_t *bs, float *c) {
  return 0;
}
int cpu_dnnl_matmul_bf16(cpu_dnnl_cache *cache, const tabi_host_api *h, int32_t nthreads,
                         int64_t batch, int64_t m, int64_t n, int64_t k, const uint16_t *a,
                         const int64_t *as, const uint16_t *b, const int64_t *bs, float *c) {
  return 0;
}
int cpu_dnnl_conv_fwd(cpu_dnnl_cache *cache, const tabi_host_api *h, int32_t nthreads,
                      const cpu_conv_geom *g, const void *x, const void *w, const float *bias,
                      float *y) {
  return 0;
}
int cpu_dnnl_conv_bwd_data(cpu_dnnl_cache *cache, const tabi_host_api *h, int32_t nthreads,
                           const cpu_conv_geom *g, const void *dy, const void *w, float *dx) {
  return 0;
}
int cpu_dnnl_conv_bwd_weights(cpu_dnnl_cache *cache, const tabi_host_api *h, int32_t nthreads,
                              const cpu_conv_geom *g, const void *x, const void *dy, float *dw,
                              float *db) {
  return 0;
}
