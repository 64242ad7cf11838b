/* plugins/cpu/cpu_dnnl_stub.c: the build without oneDNN: no cache. */
#include <stddef.h>

#include "cpu_dnnl.h"

cpu_dnnl_cache *cpu_dnnl_cache_create(int32_t nthreads) {
  (void)nthreads;
  return NULL;
}
void cpu_dnnl_cache_destroy(cpu_dnnl_cache *cache) { (void)cache; }
