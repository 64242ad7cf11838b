/* plugins/rocm/rocm_kernels.cpp: the ROCm plugin's compute kernels, compiled
 * by hipcc (plugins/rocm/CMakeLists.txt) together with the CUDA plugin's
 * kernel sources (plugins/cuda/tc_*.cu through tc_port.h): this file owns the
 * shared files' context (one tc_ctx per load) and registers their tables,
 * in the order plugins/cuda/tc_plugin.cu does. NOT YET RUN ON AMD HARDWARE. */
#include <stdlib.h>

#include "rocm.h"
#include "rocm_dl.h"
#include "tc.h"

/* The shared files mark the process as a HIP user (fork safety, rocm_device.c). */
extern "C" void tc_note_cuda_used(void) { rocm_note_hip_used(); }

int rocm_kernels_own(const char *op) { return tc_kernels_own(op); }

void rocm_kernels_destroy(void *ctx) {
  tc_ctx *c = (tc_ctx *)ctx;
  if (!c) return;
  const rocm_rocblas *rb = NULL;
  const rocm_miopen *mi = NULL;
  for (int d = 0; d < TC_MAX_DEVICES; d++) {
    if (c->blas[d]) {
      if (!rb) rb = rocm_dl_rocblas();
      if (rb && cudaSetDevice(d) == cudaSuccess) rb->destroy_handle(c->blas[d]);
    }
    if (c->dnn[d]) { /* MIOpen handles (rocm_conv.cuh) */
      if (!mi) mi = rocm_dl_miopen();
      if (mi && cudaSetDevice(d) == cudaSuccess) mi->destroy(c->dnn[d]);
    }
  }
  tc_ctx_free(c); /* the algorithm cache, the mutexes */
}

tabi_status rocm_kernels_register(const tabi_host_api *h, void **out_ctx) {
  *out_ctx = NULL;
  tc_ctx *c = tc_ctx_new(h);
  if (!c) return TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "rocm: out of memory");
  *out_ctx = c; /* freed by the plugin's destroy, also after a failure here */
  return tc_kernels_register(c, "rocm");
}
