/* reference/ref_misc_check.h: the argument plan of grid_sampler_2d,
 * _cdist_forward, _pdist_forward, embedding_dense_backward, _embedding_bag and
 * native_dropout (and the index error of embedding): the checks (with their messages) and the
 * output geometry, shared by the reference kernels (ref_nn4.c, ref_linalg.c,
 * ref_nn6.c) and the CUDA/ROCm plugins (plugins/cuda/tc_misc.cu links this
 * file), so the two cannot drift apart. Host side: metadata, and index values
 * already read into host int64 arrays. */
#ifndef TABI_REF_MISC_CHECK_H
#define TABI_REF_MISC_CHECK_H

#include <tabi/tabi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The error of embedding / embedding_dense_backward for index value v outside
 * [0, n) (n rows). */
tabi_status ref_embedding_index_error(const tabi_host_api *h, const tabi_call *call, int64_t v, int64_t n);

/* native_dropout(input, p, train): input floating or complex, p in [0, 1]
 * (NaN refused). On success *out_train is whether to draw (train true or
 * None: ATen's None means training) and *out_wide whether the draw is the
 * float64 one (float64 and complex128 inputs; float32 for the others). */
tabi_status ref_dropout_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                              int *out_train, int *out_wide);

/* addmm's beta and alpha as ATen's CPU addmm takes them, for a result of
 * `numel` elements (an empty one returns before any check) and an inner dim
 * of k: with k 0 the result is self * beta through mul_, whose type
 * promotion refuses (TABI_ERR_TYPE) a beta of a higher kind than the result
 * (a float beta for an int64 result) unless beta is 0; otherwise both
 * convert, checked (rs_check_scalar), to the opmath dtype (float32 for
 * float16 and bfloat16). */
tabi_status ref_addmm_scalars_check(const tabi_host_api *h, const tabi_call *call, int64_t numel, int64_t k,
                                    tabi_dtype dt, const tabi_value *beta, const tabi_value *alpha);

/* grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners). */
tabi_status ref_grid_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args);

/* _cdist_forward(x1, x2, p, compute_mode): on success the broadcast batch dims
 * (*bnd of them, bshape) and the output shape (*bnd + 2 dims). */
tabi_status ref_cdist_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                            int32_t *bnd, int64_t *bshape, int64_t *oshape);

/* _pdist_forward(self, p): on success the number of distances. */
tabi_status ref_pdist_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                            int64_t *count);

/* embedding_dense_backward(grad_output, indices, num_weights, padding_idx,
 * scale_grad_by_freq): dtypes, num_weights, shapes; on success D. */
tabi_status ref_embbw_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                            int64_t *D);

/* The index values iv[0..ni) (indices' elements in order) against num_weights
 * V: the error of the first one out of range (ref_embedding_index_error). */
tabi_status ref_embbw_check_indices(const tabi_host_api *h, const tabi_call *call,
                                    const int64_t *iv, int64_t ni, int64_t V);

/* _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
 * per_sample_weights, include_last_offset, padding_idx): dtypes, mode, dims,
 * per_sample_weights, offset count; on success the number of bags B and
 * whether offset2bag is returned empty (ATen's sum-mode fast path). */
tabi_status ref_ebag_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int64_t *B,
                           int *o2b_empty);

/* The offsets' values offv[0..noff) and the indices' iv[0..n) against V rows:
 * the reference's message for the first bad offset, then the first bad index. */
tabi_status ref_ebag_check_values(const tabi_host_api *h, const tabi_call *call, const int64_t *offv,
                                  int64_t noff, const int64_t *iv, int64_t n, int64_t V);

#ifdef __cplusplus
}
#endif

#endif
