/* plugins/cuda/tc_idx_check.h: the argument checks of the index ops of
 * tc_idx.cu, with the reference's messages (reference/ref_index.c), host
 * side, metadata and host index arrays only; C so it can use the reference's
 * helpers, and so tests/cuda/test_cuda_idx_host.cpp can run them. */
#ifndef TABI_TC_IDX_CHECK_H
#define TABI_TC_IDX_CHECK_H

#include <tabi/tabi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* scatter_reduce.two(self, dim, index, src, reduce, include_self): every check
 * before the index values, in the reference's order; on success the wrapped
 * dim and the reduction (TCI_SUM..TCI_AMIN of tc_idx.cuh). */
tabi_status tc_sr_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int32_t *dim,
                        int *kind);

/* The index values iv[0..n) (index's elements in row-major order) against
 * 0..size-1: the reference's message for the first bad one. */
tabi_status tc_sr_check_bounds(const tabi_host_api *h, const tabi_call *call, const int64_t *iv, int64_t n,
                               int32_t dim, int64_t size);

/* nonzero(self): dtype and dims. */
tabi_status tc_nz_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args);

/* masked_scatter(self, mask, source): dtypes, then the broadcast shape of
 * self and mask (*nd dims in shape), the result's. */
tabi_status tc_ms_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int32_t *nd,
                        int64_t *shape);

/* The reference's error when source has fewer elements (avail) than mask ones. */
tabi_status tc_ms_short(const tabi_host_api *h, const tabi_call *call, int64_t avail);

/* randperm(n, dtype, layout, device, pin_memory): layout, dtype, n; on
 * success the result's dtype. */
tabi_status tc_rp_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, tabi_dtype *dt);

#ifdef __cplusplus
}
#endif

#endif
