/* reference/ref_index_check.h: the argument plan of the index ops: gather and
 * the scatters (scatter_reduce.two among them), index_select, index.Tensor and index_put
 * (the advanced-indexing plan), masked_scatter, nonzero and randperm: the
 * checks (with their messages) and the geometry, shared by the reference
 * kernels (ref_index.c, ref_index2.c, ref_create2.c) and the CUDA/ROCm plugins
 * (plugins/cuda/tc_idx.cu, tc_index.cu and tc_scatter.cu link this file), so
 * the two cannot drift apart.
 * Host side: metadata, and index values in host int64 arrays (what the GPU
 * glue reads back; the reference reads its own into one). */
#ifndef TABI_REF_INDEX_CHECK_H
#define TABI_REF_INDEX_CHECK_H

#include <tabi/tabi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The scatter kinds: the reductions of scatter_reduce (tc_idx.cuh's TCI_SUM..
 * TCI_AMIN have these values), then plain scatter of src and of a value. */
enum { REF_SR_SUM, REF_SR_PROD, REF_SR_MEAN, REF_SR_AMAX, REF_SR_AMIN, REF_SC_ASSIGN, REF_SC_VALUE };

/* The scatters (self, dim, index, src-or-value, ...) of `kind`: every check
 * before the index values, in order (src NULL for scatter.value, value NULL
 * otherwise); on success the wrapped dim. */
tabi_status ref_idx_scatter_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int kind,
                                  const tabi_tensor *src, const tabi_value *value, int32_t *dim);

/* ATen's gather/scatter shape checks for a non-empty index (src may be NULL;
 * is_gather names the input "input" and has its own message). */
tabi_status ref_idx_sg_shapes(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *self, int32_t dim,
                              const tabi_tensor *index, const tabi_tensor *src, int is_gather);

/* gather(self, dim, index, sparse_grad): every check before the index values,
 * in order; on success the wrapped dim. */
tabi_status ref_idx_gather_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                 int32_t *dim);

/* index_select(self, dim, index): every check before the index values, in
 * order; on success the wrapped dim (the values' bounds: ref_idx_check_bounds's
 * message). */
tabi_status ref_idx_select_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                 int32_t *dim);

/* scatter_reduce.two(self, dim, index, src, reduce, include_self): the reduce
 * name, then ref_idx_scatter_check; on success the wrapped dim and the kind
 * (REF_SR_SUM..REF_SR_AMIN). */
tabi_status ref_idx_sr_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int32_t *dim,
                             int *kind);

/* The index values iv[0..n) (index's elements in row-major order) against
 * 0..size-1 (gather, the scatters): the error of the first bad one. */
tabi_status ref_idx_check_bounds(const tabi_host_api *h, const tabi_call *call, const int64_t *iv, int64_t n,
                                 int32_t dim, int64_t size);

/* nonzero(self): dtype and dims. */
tabi_status ref_idx_nonzero_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args);

/* masked_scatter(self, mask, source): dtypes, then the broadcast shape of
 * self and mask (*nd dims in shape), the result's. */
tabi_status ref_idx_ms_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int32_t *nd,
                             int64_t *shape);

/* masked_scatter's error when source has fewer elements (avail) than mask ones. */
tabi_status ref_idx_ms_short(const tabi_host_api *h, const tabi_call *call, int64_t avail);

/* randperm(n, dtype, layout, device, pin_memory): layout, dtype, n; on
 * success the result's dtype. */
tabi_status ref_idx_randperm_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                   tabi_dtype *dt);

/* Advanced indexing (index.Tensor, index_put): the plan over host (CPU) index
 * tensors. Per self dim d with an index (has[d]): its values as int64 in
 * row-major order (masks become their nonzero coordinates), its shape; the index tensors' broadcast
 * shape (bnd dims, nb elements); where those dims sit in the result (first);
 * the result dim of each other self dim (rpos); the result's shape. */
#define REF_ADV_MAX 16
typedef struct ref_adv {
  int32_t ndim, bnd, first, rnd;
  int32_t has[REF_ADV_MAX], ind[REF_ADV_MAX], rpos[REF_ADV_MAX];
  int64_t *vals[REF_ADV_MAX];
  int64_t ishape[REF_ADV_MAX][REF_ADV_MAX];
  int64_t bshape[REF_ADV_MAX], rshape[REF_ADV_MAX];
  int64_t nb;
} ref_adv;

/* indices (n entries, NULL for None; host tensors): the reference's checks and
 * messages in its order; on success *p (release with ref_adv_release). */
tabi_status ref_adv_build(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *self, int64_t n,
                          const tabi_tensor *const *list, ref_adv *p);
void ref_adv_release(ref_adv *p);

/* index.Tensor(self, indices): self's dtype (before the plan). */
tabi_status ref_idx_index_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args);

/* index_put(self, indices, values, accumulate): the dtype checks (before the
 * plan), then values against the plan's result shape. */
tabi_status ref_idx_iput_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args);
tabi_status ref_idx_iput_values(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *values,
                                const ref_adv *p);

#ifdef __cplusplus
}
#endif

#endif
