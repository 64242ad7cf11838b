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

extern "C" {
tabi_status tc_device_register(tc_ctx *c);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
}

static void tc_destroy(void *ctx) { tc_ctx_free((tc_ctx *)ctx); }

tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  out->kind = TABI_PLUGIN_KIND_DEVICE;
  out->name = "cuda";
  out->version = TABI_VERSION_STRING;
  out->description = "NVIDIA GPUs through the CUDA runtime, cuBLAS, cuDNN and cuFFT";
  out->device_type = kDLCUDA;
  tc_ctx *c = tc_ctx_new(host);
  if (!c) return TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, "cuda: out of memory");
  out->ctx = c;
  out->destroy = tc_destroy;
  tabi_status st = tc_device_register(c);
  if (st != TABI_OK) return st;
  /* Own kernels first; reference kernels fill only the ops still open. */
  if ((st = tc_kernels_register(c, "cuda")) != TABI_OK) return st;
  return tc_register_ref_views(host, "cuda", tc_kernels_own);
}
