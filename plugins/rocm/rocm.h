/* plugins/rocm/rocm.h: what the ROCm plugin's files share: one rocm_ctx per
 * load (the host table and the cached device count); no global mutable state
 * beyond the process fact "this process has initialised HIP" (fork safety,
 * as in the CUDA plugin). Threading: the ctx is guarded by its mutex. */
#ifndef TABI_ROCM_H
#define TABI_ROCM_H

#include <pthread.h>

#include <tabi/tabi.h>

typedef struct rocm_ctx {
  const tabi_host_api *h;
  int32_t count; /* -1 until probed */
  pthread_mutex_t mu;
  void *kernels; /* the compute kernels' context (rocm_kernels.cpp); NULL without hipcc */
} rocm_ctx;

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the device table for kDLROCM. */
tabi_status rocm_device_register(rocm_ctx *c);
/* Marks this process as one that has initialised HIP (no forked probe after). */
void rocm_note_hip_used(void);

/* The compute kernels (rocm_kernels.cpp, built when hipcc is found:
 * ROCM_HAVE_KERNELS): registers them with a new context in *out_ctx (set
 * even on failure, for rocm_kernels_destroy); rocm_kernels_own says whether
 * an op has one of them (the reference's view kernels fill the rest). */
tabi_status rocm_kernels_register(const tabi_host_api *h, void **out_ctx);
void rocm_kernels_destroy(void *ctx);
int rocm_kernels_own(const char *op);

#ifdef __cplusplus
}
#endif

#endif /* TABI_ROCM_H */
