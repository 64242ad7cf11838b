/* plugins/rocm/rocm_plugin.c: the entry point of libtabi_rocm.so.
 *
 * Registers the HIP device table and the reference's device-agnostic kernels
 * (views and factories, which only touch metadata or hand a host-built result
 * over through host->tensor_copy), and, when built with hipcc
 * (ROCM_HAVE_KERNELS), the compute kernels shared with the CUDA plugin
 * (rocm_kernels.cpp) ahead of them. Without hipcc the plugin keeps only the
 * device table and the reference's view/factory kernels. Never run on AMD
 * hardware so far (docs/cuda.md). */
#include <stdlib.h>

#include "rocm.h"
#include "tc_ref_views.h"

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);

static void rocm_destroy(void *ctx) {
  rocm_ctx *c = ctx;
  if (!c) return;
#ifdef ROCM_HAVE_KERNELS
  rocm_kernels_destroy(c->kernels);
#endif
  pthread_mutex_destroy(&c->mu);
  free(c);
}

tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  out->kind = TABI_PLUGIN_KIND_DEVICE;
  out->name = "rocm";
  out->version = TABI_VERSION_STRING;
#ifdef ROCM_HAVE_KERNELS
  out->description = "AMD GPUs through the HIP runtime: kernels shared with the CUDA plugin, own "
                     "tiled GEMM and convolution, rocBLAS when installed (not yet run on AMD hardware)";
#else
  out->description = "AMD GPUs through the HIP runtime (device table, views, factories; built "
                     "without hipcc: no compute kernels)";
#endif
  out->device_type = kDLROCM;
  rocm_ctx *c = calloc(1, sizeof *c);
  if (!c) return TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, "rocm: out of memory");
  c->h = host;
  c->count = -1;
  pthread_mutex_init(&c->mu, NULL);
  out->ctx = c;
  out->destroy = rocm_destroy;
  tabi_status st = rocm_device_register(c);
  if (st != TABI_OK) return st;
#ifdef ROCM_HAVE_KERNELS
  /* Own kernels first; the reference's fill only the ops still open. */
  if ((st = rocm_kernels_register(host, &c->kernels)) != TABI_OK) return st;
  return tc_register_ref_views(host, "rocm", rocm_kernels_own);
#else
  return tc_register_ref_views(host, "rocm", NULL);
#endif
}
