/* plugins/gpusim/sim_cuda_kernels.cpp: the kernels of libtabi_gpusim_cuda.so,
 * the gpusim plugin's CUDA flavour. The shared files are compiled here
 * without TC_HIP (TC_SIM_CUDA), so they take the CUDA plugin's own paths,
 * cuBLAS, cuFFT and cuDNN included, with the host stand-ins of sim_vendor.h
 * for those libraries, and with the CUDA plugin's own device table over the
 * runtime stand-ins of sim_runtime.cpp; the context and its end are the CUDA
 * plugin's (tc_ctx_new, tc_ctx_free), as in plugins/cuda/tc_plugin.cu. */
#include "gpusim.h"
#include "tc.h"

extern "C" tabi_status tc_device_register(tc_ctx *c);

/* The CUDA plugin's device table (tc_device.cu, over sim_runtime.cpp), then
 * its kernels, as tc_plugin.cu registers them. */
extern "C" tabi_status gpusim_kernels_register(const tabi_host_api *h, void **out_ctx) {
  tc_ctx *c = tc_ctx_new(h);
  *out_ctx = c; /* freed by the plugin's destroy, also after a failure here */
  if (!c) return TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "gpusim_cuda: out of memory");
  tabi_status st = tc_device_register(c);
  return st != TABI_OK ? st : tc_kernels_register(c, "gpusim_cuda");
}

extern "C" int gpusim_kernels_own(const char *op) { return tc_kernels_own(op); }

extern "C" void gpusim_kernels_destroy(void *ctx) { tc_ctx_free((tc_ctx *)ctx); }
