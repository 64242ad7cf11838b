/* plugins/gpusim/sim_cuda_kernels.cpp: the kernels of libtabi_gpusim_cuda.so,
 * the gpusim plugin's CUDA flavour. The shared files are compiled here
 * without TC_HIP (TC_SIM_CUDA), so they take the CUDA plugin's own paths,
 * cuBLAS, cuFFT and cuDNN included, with the host stand-ins of sim_vendor.h
 * for those libraries; the context and its end are the CUDA plugin's
 * (tc_ctx_new, tc_ctx_free), as in plugins/cuda/tc_plugin.cu. */
#include "gpusim.h"
#include "tc.h"

/* The shared files mark the process as a CUDA user (fork safety, tc_probe.c);
 * the simulator has no runtime to protect. */
extern "C" void tc_note_cuda_used(void) {}

extern "C" tabi_status gpusim_kernels_register(const tabi_host_api *h, void **out_ctx) {
  tc_ctx *c = tc_ctx_new(h);
  *out_ctx = c; /* freed by the plugin's destroy, also after a failure here */
  if (!c) return TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "gpusim_cuda: out of memory");
  return tc_kernels_register(c, "gpusim_cuda");
}

extern "C" int gpusim_kernels_own(const char *op) { return tc_kernels_own(op); }

extern "C" void gpusim_kernels_destroy(void *ctx) { tc_ctx_free((tc_ctx *)ctx); }
