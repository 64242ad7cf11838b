/* reference/ref_resize_check.h: the argument plan of resize_ and
 * prims::resize, shared by the reference kernels (ref_shape2.c) and the
 * CUDA/ROCm plugins (plugins/cuda/tc_index.cu links this file), so the two
 * cannot drift apart. Host side, metadata only; needs ref_shape_util.c. */
#ifndef TABI_REF_RESIZE_CHECK_H
#define TABI_REF_RESIZE_CHECK_H

#include <tabi/tabi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* resize_(self, size, memory_format) (prims 0) or prims::resize(a, shape)
 * (prims 1): the sizes (at most REF_MAX_DIMS, none negative), then the memory
 * format (contiguous or preserve). */
tabi_status ref_resize_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int prims);

#ifdef __cplusplus
}
#endif

#endif
