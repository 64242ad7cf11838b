/* plugins/cpu/cpu_dnnl.h: oneDNN for matmul and convolution, with a primitive
 * cache keyed by shapes, strides and dtypes so a repeated shape does not
 * re-create its primitive.
 *
 * Built only with TABI_HAVE_ONEDNN; without it cpu_dnnl_cache_create returns
 * NULL and the kernels use the plugin's own blocked GEMM.
 *
 * Threading: the cache is locked; a cached primitive is executed by one caller
 * at a time per entry (oneDNN primitives are thread-safe to execute, but a
 * cached entry's scratch buffers are not shared). */
#ifndef TABI_CPU_DNNL_H
#define TABI_CPU_DNNL_H

#include <stdint.h>

typedef struct cpu_dnnl_cache cpu_dnnl_cache;

cpu_dnnl_cache *cpu_dnnl_cache_create(int32_t nthreads);
void cpu_dnnl_cache_destroy(cpu_dnnl_cache *cache); /* NULL ok */

#endif /* TABI_CPU_DNNL_H */
