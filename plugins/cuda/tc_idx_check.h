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

/* Advanced indexing (index.Tensor, index_put): the reference's plan
 * (reference/ref_index2.c adv_build) over host index tensors. Per self dim
 * d with an index (has[d]): its values as int64 in row-major order (masks
 * become their nonzero coordinates), its shape; the index tensors' broadcast
 * shape (bnd dims, nb elements); where those dims sit in the result (first);
 * the result dim of each other self dim (rpos); the result's shape. */
#define TC_ADV_MAX 16
typedef struct tc_adv {
  int32_t ndim, bnd, first, rnd;
  int32_t has[TC_ADV_MAX], ind[TC_ADV_MAX], rpos[TC_ADV_MAX];
  int64_t *vals[TC_ADV_MAX];
  int64_t ishape[TC_ADV_MAX][TC_ADV_MAX];
  int64_t bshape[TC_ADV_MAX], rshape[TC_ADV_MAX];
  int64_t nb;
} tc_adv;

/* indices (n entries, NULL for None; host tensors): the reference's checks and
 * messages in its order; on success *p (release with tc_adv_release). */
tabi_status tc_adv_build(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *self, int64_t n,
                         const tabi_tensor *const *list, tc_adv *p);
void tc_adv_release(tc_adv *p);

/* The broadcast indices, negatives wrapped: for each indexed dim in order, nb
 * int64 values (element b of the broadcast shape), concatenated. */
void tc_adv_pack(const tc_adv *p, const int64_t *self_shape, int64_t *buf);

/* index.Tensor(self, indices): self's dtype (before the plan). */
tabi_status tc_index_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args);

/* index_put(self, indices, values, accumulate): the dtype checks (before the
 * plan), then values against the plan's result shape. */
tabi_status tc_iput_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args);
tabi_status tc_iput_values(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *values,
                           const tc_adv *p);

#ifdef __cplusplus
}
#endif

#endif
