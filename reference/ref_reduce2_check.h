/* reference/ref_reduce2_check.h: the argument plan of the positional
 * reductions (argmax, argmin, max.dim, min.dim), cumsum, sort and topk,
 * shared by the reference kernels (ref_reduce2.c) and the CUDA/ROCm plugins
 * (plugins/cuda/tc_index.cu and tc_sort.cu link this file), so the two cannot
 * drift apart. Host side, metadata only; needs ref_reduce_util.c. */
#ifndef TABI_REF_REDUCE2_CHECK_H
#define TABI_REF_REDUCE2_CHECK_H

#include <tabi/tabi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* argmax/argmin(self, dim, keepdim) (with_vals 0) and max.dim/min.dim(self,
 * dim, keepdim) (with_vals 1): self's dtype, the dims (ref_red_init) and
 * ATen's empty-input rules. The plan itself: ref_red_init over the same
 * arguments (it cannot fail once this passed). */
tabi_status ref_argred_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int with_vals);

/* cumsum(self, dim, dtype): self's dtype, the result's; on success the
 * wrapped dim (0 for a 0-d self; dim may be NULL), the dtype the values are read as (*as) and
 * the result's (*odt). */
tabi_status ref_cumsum_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int32_t *dim,
                             tabi_dtype *as, tabi_dtype *odt);

/* sort(self, dim, descending): on success the wrapped dim
 * and the sorted length *n. */
tabi_status ref_sort_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int32_t *dim,
                           int64_t *n);

/* topk(self, k, dim, largest, sorted): on success the wrapped dim and k. */
tabi_status ref_topk_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int32_t *dim,
                           int64_t *k);

#ifdef __cplusplus
}
#endif

#endif
