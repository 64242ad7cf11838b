/* plugins/gpusim/gpusim_plugin.c: the entry point of libtabi_gpusim.so.
 *
 * The same registration as the ROCm plugin (plugins/rocm/rocm_plugin.c): the
 * device table, the shared compute kernels (plugins/rocm/rocm_kernels.cpp,
 * compiled here with TC_SIM over plugins/cuda/tc_*.cu), then the reference's
 * device-agnostic view and factory kernels for the ops still open. So
 * `tabi conform --plugin gpusim` runs the GPU plugins' kernel sources through
 * the whole conformance suite on a machine without a GPU. */
#include <stdlib.h>

#include "gpusim.h"
#include "rocm.h"
#include "tc_ref_views.h"
#include "rocm_dl.h"

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);

/* rocm_kernels.cpp marks the process as a HIP user for the ROCm plugin's fork
 * safety; the simulator has no runtime to protect. */
void rocm_note_hip_used(void) {}

static void gpusim_destroy(void *ctx) {
  gpusim_ctx *c = ctx;
  if (!c) return;
  rocm_kernels_destroy(c->kernels);
  free(c);
}

tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  out->kind = TABI_PLUGIN_KIND_DEVICE;
  out->name = "gpusim";
  out->version = TABI_VERSION_STRING;
  out->description = "the CUDA/ROCm plugins' kernel sources run on the host CPU (device type "
                     "kDLExtDev; a test instrument: every GPU thread is a fiber)";
  out->device_type = kDLExtDev;
  gpusim_ctx *c = calloc(1, sizeof *c);
  if (!c) return TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, "gpusim: out of memory");
  c->h = host;
  out->ctx = c;
  out->destroy = gpusim_destroy;
  tabi_status st = gpusim_device_register(c);
  if (st != TABI_OK) return st;
  if ((st = rocm_kernels_register(host, &c->kernels)) != TABI_OK) return st;
  return tc_register_ref_views(host, "gpusim", rocm_kernels_own);
}

/* The vendor libraries rocm_kernels.cpp and the shared files would load
 * (rocm_dl.h) are never used here: they would be handed host pointers. */
const rocm_rocblas *rocm_dl_rocblas(void) { return NULL; }
const rocm_miopen *rocm_dl_miopen(void) { return NULL; }
const char *rocm_dl_summary(void) { return "gpusim: own GEMM, convolution and FFT kernels"; }
