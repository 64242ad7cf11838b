/* plugins/gpusim/gpusim_plugin.c: the entry point of libtabi_gpusim.so and,
 * built with GPUSIM_CUDA, of libtabi_gpusim_cuda.so.
 *
 * The same registration as the GPU plugins (plugins/rocm/rocm_plugin.c,
 * plugins/cuda/tc_plugin.cu): the device table, the shared compute kernels
 * (plugins/cuda/tc_*.cu compiled here with TC_SIM), then the reference's
 * device-agnostic view and factory kernels for the ops still open. So
 * `tabi conform --plugin gpusim` runs the GPU plugins' kernel sources
 * through the whole conformance suite on a machine without a GPU, with the
 * ROCm plugin's own GEMM, convolution and FFT; `--plugin gpusim_cuda` runs
 * them with the CUDA plugin's cuBLAS, cuFFT and cuDNN glue over the host
 * stand-ins of sim_vendor.h. */
#include <stdlib.h>

#include "gpusim.h"
#include "tc_ref_views.h"

#ifdef GPUSIM_CUDA
#define GPUSIM_NAME "gpusim_cuda"
#define GPUSIM_WHAT "the CUDA plugin's kernel sources and library glue run on the host CPU, cuBLAS/cuFFT/cuDNN " \
                    "replaced by host stand-ins"
#else
#define GPUSIM_NAME "gpusim"
#define GPUSIM_WHAT "the CUDA/ROCm plugins' kernel sources run on the host CPU, with the ROCm plugin's own " \
                    "GEMM, convolution and FFT"
#include "rocm.h"
#include "rocm_dl.h"

/* rocm_kernels.cpp marks the process as a HIP user for the ROCm plugin's fork
 * safety; the simulator has no runtime to protect. */
void rocm_note_hip_used(void) {}

tabi_status gpusim_kernels_register(const tabi_host_api *h, void **out_ctx) {
  return rocm_kernels_register(h, out_ctx);
}
int gpusim_kernels_own(const char *op) { return rocm_kernels_own(op); }
void gpusim_kernels_destroy(void *ctx) { rocm_kernels_destroy(ctx); }

/* The vendor libraries rocm_kernels.cpp and the shared files would load
 * (rocm_dl.h) are never loaded here: they would be handed host pointers.
 * With TABI_GPUSIM_ROCM_LIBS=1 the stand-ins of sim_rocm_libs.cpp take their
 * place, so the ROCm plugin's rocBLAS and MIOpen calls run; otherwise the
 * own GEMM and convolution kernels do, as without the libraries. */
const rocm_rocblas *tc_sim_rocblas(void);
const rocm_miopen *tc_sim_miopen(void);
static int rocm_libs(void) {
  const char *v = getenv("TABI_GPUSIM_ROCM_LIBS");
  return v && v[0] == '1';
}
const rocm_rocblas *rocm_dl_rocblas(void) { return rocm_libs() ? tc_sim_rocblas() : NULL; }
const rocm_miopen *rocm_dl_miopen(void) { return rocm_libs() ? tc_sim_miopen() : NULL; }
const char *rocm_dl_summary(void) {
  return rocm_libs() ? "gpusim: rocBLAS and MIOpen stand-ins (TABI_GPUSIM_ROCM_LIBS=1)"
                     : "gpusim: own GEMM, convolution and FFT kernels";
}
#endif

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);

static void gpusim_destroy(void *ctx) {
  gpusim_ctx *c = ctx;
  if (!c) return;
  gpusim_kernels_destroy(c->kernels);
  free(c);
}

tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  out->kind = TABI_PLUGIN_KIND_DEVICE;
  out->name = GPUSIM_NAME;
  out->version = TABI_VERSION_STRING;
  out->description = GPUSIM_WHAT " (device type kDLExtDev; a test instrument: every GPU thread is a fiber)";
  out->device_type = kDLExtDev;
  gpusim_ctx *c = calloc(1, sizeof *c);
  if (!c) return TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, GPUSIM_NAME ": out of memory");
  c->h = host;
  out->ctx = c;
  out->destroy = gpusim_destroy;
  tabi_status st;
#ifndef GPUSIM_CUDA /* gpusim_cuda registers the CUDA plugin's own table (tc_device.cu) */
  if ((st = gpusim_device_register(c)) != TABI_OK) return st;
#endif
  if ((st = gpusim_kernels_register(host, &c->kernels)) != TABI_OK) return st;
  return tc_register_ref_views(host, GPUSIM_NAME, gpusim_kernels_own);
}
