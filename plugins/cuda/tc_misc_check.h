/* plugins/cuda/tc_misc_check.h: the argument checks and output geometry of
 * grid_sampler_2d, _cdist_forward, _pdist_forward and
 * embedding_dense_backward, with the reference's messages
 * (reference/ref_nn4.c, ref_linalg.c), for tc_misc.cu; and the host-built
 * bucket list of embedding_dense_backward's gather. Host side, metadata and
 * host index arrays only; C so it can use the reference's helpers. */
#ifndef TABI_TC_MISC_CHECK_H
#define TABI_TC_MISC_CHECK_H

#include <tabi/tabi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners). */
tabi_status tc_grid_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args);

/* _cdist_forward(x1, x2, p, compute_mode): on success the broadcast batch dims
 * (*bnd of them, bshape) and the output shape (*bnd + 2 dims). */
tabi_status tc_cdist_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                           int32_t *bnd, int64_t *bshape, int64_t *oshape);

/* _pdist_forward(self, p): on success the number of distances. */
tabi_status tc_pdist_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                           int64_t *count);

/* embedding_dense_backward(grad_output, indices, num_weights, padding_idx,
 * scale_grad_by_freq): dtypes, num_weights, shapes; on success D. */
tabi_status tc_embbw_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                           int64_t *D);

/* The index values iv[0..ni) (indices' elements in order) against num_weights
 * V: the reference's message for the first one out of range. */
tabi_status tc_embbw_check_indices(const tabi_host_api *h, const tabi_call *call,
                                   const int64_t *iv, int64_t ni, int64_t V);

/* Buckets of valid indices: starts[V + 1] and pos[ni] such that the positions
 * i with iv[i] == r are pos[starts[r] .. starts[r + 1]), increasing (a
 * stable counting sort). */
void tc_embbw_buckets(const int64_t *iv, int64_t ni, int64_t V, int64_t *starts, int64_t *pos);

#ifdef __cplusplus
}
#endif

#endif
