/* reference/ref_softmax_check.h: the argument plan of _softmax and
 * _log_softmax, shared by the reference kernel (ref_nn3.c) and the CUDA/ROCm
 * plugins (plugins/cuda/tc_nn.cu links this file), so the two cannot drift
 * apart. Host side, metadata only. */
#ifndef TABI_REF_SOFTMAX_CHECK_H
#define TABI_REF_SOFTMAX_CHECK_H

#include <tabi/tabi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* _softmax/_log_softmax(self, dim, half_to_float): self's dtype (real
 * floating), dim, then half_to_float (needs float16); on success the wrapped
 * dim and the result's dtype (float32 for half_to_float, else self's). */
tabi_status ref_softmax_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int32_t *dim,
                              tabi_dtype *odt);

#ifdef __cplusplus
}
#endif

#endif
