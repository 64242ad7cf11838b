/* plugins/rocm/rocm_kernels.cpp: the ROCm plugin's compute kernels, compiled
 * by hipcc (plugins/rocm/CMakeLists.txt) together with the CUDA plugin's
 * kernel sources (plugins/cuda/tc_*.cu through tc_port.h): this file owns the
 * shared files' context (one tc_ctx per load) and registers their tables,
 * in the order plugins/cuda/tc_plugin.cu does. NOT YET RUN ON AMD HARDWARE. */
#include <stdlib.h>
#include <string.h>

#include "rocm.h"
#include "rocm_dl.h"
#include "tc.h"
#include "tc_algo_cache.h"

/* The shared files mark the process as a HIP user (fork safety, rocm_device.c). */
extern "C" void tc_note_cuda_used(void) { rocm_note_hip_used(); }

static const tc_kernel *const rocm_tables[] = {
    tc_ew_kernels,  tc_shape_kernels, tc_reduce_kernels, tc_random_kernels, tc_blas_kernels,
    tc_nn_kernels,  tc_fft_kernels,   tc_index_kernels,  tc_conv_kernels,   tc_sort_kernels,
    tc_scatter_kernels, tc_pad_up_kernels,
    tc_pool_kernels, tc_misc_kernels,
    tc_norm_kernels, tc_idx_kernels,
    tc_bn_kernels, tc_svd_kernels};

int rocm_kernels_own(const char *op) {
  for (size_t t = 0; t < sizeof rocm_tables / sizeof rocm_tables[0]; t++)
    for (const tc_kernel *k = rocm_tables[t]; k->op; k++)
      if (strcmp(k->op, op) == 0) return 1;
  return 0;
}

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
  tc_algo_cache_free((tc_algo_cache *)c->conv_algos); /* the conv algorithm choices */
  pthread_mutex_destroy(&c->mu);
  free(c);
}

tabi_status rocm_kernels_register(const tabi_host_api *h, void **out_ctx) {
  *out_ctx = NULL;
  tc_ctx *c = (tc_ctx *)calloc(1, sizeof *c);
  if (!c) return TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "rocm: out of memory");
  c->h = h;
  c->count = -1;
  pthread_mutex_init(&c->mu, NULL);
  *out_ctx = c; /* freed by the plugin's destroy, also after a failure here */
  for (size_t t = 0; t < sizeof rocm_tables / sizeof rocm_tables[0]; t++)
    for (const tc_kernel *k = rocm_tables[t]; k->op; k++) {
      tabi_op op;
      tabi_status st = h->op_find(h->ctx, k->op, &op);
      if (st != TABI_OK) return TABI_ERR(h, st, "rocm: no op named '%s'", k->op);
      if ((st = h->kernel_register(h->ctx, op, TABI_LAYER_BACKEND, k->fn, c)) != TABI_OK) return st;
    }
  return TABI_OK;
}
