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

/* _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
 * per_sample_weights, include_last_offset, padding_idx): dtypes, mode, dims,
 * per_sample_weights, offset count; on success the number of bags B and
 * whether offset2bag is returned empty (ATen's sum-mode fast path). */
tabi_status tc_ebag_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int64_t *B,
                          int *o2b_empty);

/* The offsets' values offv[0..noff) and the indices' iv[0..n) against V rows:
 * the reference's message for the first bad offset, then the first bad index. */
tabi_status tc_ebag_check_values(const tabi_host_api *h, const tabi_call *call, const int64_t *offv,
                                 int64_t noff, const int64_t *iv, int64_t n, int64_t V);

/* Bag layout from valid offsets: starts[B + 1] (bag b's positions are
 * starts[b] .. starts[b + 1)), o2b[n] (the bag of each position, 0 when B is
 * 0) and cnt[B] (positions counted per bag: those not holding pad). */
void tc_ebag_layout(const int64_t *offv, int64_t B, const int64_t *iv, int64_t n, int64_t pad, int64_t *starts,
                    int64_t *o2b, int64_t *cnt);

#ifdef __cplusplus
}
#endif

#endif
