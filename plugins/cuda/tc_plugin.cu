/* plugins/cuda/tc_plugin.cu: the entry point of libtabi_cuda.so.
 *
 * Registers the device table and every kernel of the family tables at the
 * backend layer for kDLCUDA, plus the reference's device-agnostic kernels (views
 * and factories, which only touch metadata or hand a host-built result over
 * through host->tensor_copy). Nothing here touches the CUDA driver, so the
 * plugin loads, and reports zero devices, on a machine without a GPU.
 */
#include <stdlib.h>
#include <string.h>

#include "tc.h"
#include "tc_ref_views.h"
#include "tc_algo_cache.h"

extern "C" {
tabi_status tc_device_register(tc_ctx *c);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
}

#include <cublas_v2.h>
#ifdef TC_HAVE_CUDNN
#include <cudnn.h>
#endif

/* The plugin's own kernel tables, in registration order. */
static const tc_kernel *const tables[] = {
    tc_ew_kernels,      tc_shape_kernels,  tc_reduce_kernels, tc_random_kernels, tc_blas_kernels,
    tc_nn_kernels,      tc_fft_kernels,    tc_index_kernels,  tc_conv_kernels,   tc_sort_kernels,
    tc_scatter_kernels, tc_pad_up_kernels, tc_pool_kernels,   tc_misc_kernels,   tc_norm_kernels,
    tc_idx_kernels,     tc_bn_kernels,     tc_svd_kernels};

static int tc_owns(const char *op) {
  for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
    for (const tc_kernel *k = tables[t]; k && k->op; k++)
      if (strcmp(k->op, op) == 0) return 1;
  return 0;
}

static void tc_destroy(void *ctx) {
  tc_ctx *c = (tc_ctx *)ctx;
  if (!c) return;
  for (int d = 0; d < TC_MAX_DEVICES; d++) {
    if (c->blas[d] || c->dnn[d] || c->blas_ws[d]) cudaSetDevice(d);
    if (c->blas[d]) cublasDestroy((cublasHandle_t)c->blas[d]);
    if (c->blas_ws[d]) cudaFree(c->blas_ws[d]);
#ifdef TC_HAVE_CUDNN
    if (c->dnn[d]) cudnnDestroy((cudnnHandle_t)c->dnn[d]);
#endif
  }
  tc_fft_destroy(c);
  tc_algo_cache_free((tc_algo_cache *)c->conv_algos); /* the conv algorithm choices */
  pthread_mutex_destroy(&c->mu);
  free(c);
}

static tabi_status reg(const tabi_host_api *h, const char *name, tabi_kernel_fn fn, void *kctx) {
  tabi_op op;
  tabi_status st = h->op_find(h->ctx, name, &op);
  if (st != TABI_OK) return TABI_ERR(h, st, "cuda: no op named '%s'", name);
  return h->kernel_register(h->ctx, op, TABI_LAYER_BACKEND, fn, kctx);
}

tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  out->kind = TABI_PLUGIN_KIND_DEVICE;
  out->name = "cuda";
  out->version = TABI_VERSION_STRING;
  out->description = "NVIDIA GPUs through the CUDA runtime, cuBLAS, cuDNN and cuFFT";
  out->device_type = kDLCUDA;
  tc_ctx *c = (tc_ctx *)calloc(1, sizeof *c);
  if (!c) return TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, "cuda: out of memory");
  c->h = host;
  c->count = -1;
  pthread_mutex_init(&c->mu, NULL);
  out->ctx = c;
  out->destroy = tc_destroy;
  tabi_status st = tc_device_register(c);
  if (st != TABI_OK) return st;
  /* Own kernels first; reference kernels fill only the ops still open. */
  for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
    if (!tables[t]) continue;
    for (const tc_kernel *k = tables[t]; k->op; k++)
      if ((st = reg(host, k->op, k->fn, c)) != TABI_OK) return st;
  }
  return tc_register_ref_views(host, "cuda", tc_owns);
}
