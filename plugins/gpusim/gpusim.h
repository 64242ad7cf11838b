/* plugins/gpusim/gpusim.h: what the gpusim plugin's C files share.
 *
 * gpusim runs the CUDA and ROCm plugins' kernel sources on the host (see
 * tc_sim.h): a pretend GPU of device type kDLExtDev whose memory is host
 * memory, for testing those sources where there is no GPU. It is a test
 * instrument, not a backend to run models on: it is slow on purpose (every
 * GPU thread is a fiber) and is not installed. */
#ifndef TABI_GPUSIM_H
#define TABI_GPUSIM_H

#include <pthread.h>

#include <tabi/tabi.h>

typedef struct gpusim_ctx {
  const tabi_host_api *h;
  void *kernels; /* the shared kernels' context (gpusim_kernels_register) */
} gpusim_ctx;

#ifdef __cplusplus
extern "C" {
#endif

/* Devices present: TABI_GPUSIM_DEVICES (0..8), default 1 (tc_sim.cpp). */
int tc_sim_device_count(void);
/* Registers the device table for kDLExtDev. */
tabi_status gpusim_device_register(gpusim_ctx *c);

/* The shared kernels of the flavour built: libtabi_gpusim.so's are the ROCm
 * plugin's (plugins/rocm/rocm_kernels.cpp, through gpusim_plugin.c),
 * libtabi_gpusim_cuda.so's the CUDA plugin's (sim_cuda_kernels.cpp).
 * *out_ctx is set even on failure, for gpusim_kernels_destroy. */
tabi_status gpusim_kernels_register(const tabi_host_api *h, void **out_ctx);
int gpusim_kernels_own(const char *op);
void gpusim_kernels_destroy(void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* TABI_GPUSIM_H */
