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
} rocm_ctx;

/* Registers the device table for kDLROCM. */
tabi_status rocm_device_register(rocm_ctx *c);

#endif /* TABI_ROCM_H */
