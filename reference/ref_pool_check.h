/* reference/ref_pool_check.h: the argument plan of the pooling ops
 * (max_pool{2,3}d_with_indices + 2d backward, avg_pool{1,2,3}d + 2d backward,
 * adaptive average pooling 1d-3d + 2d backward): the checks (with their
 * messages) and the window geometry, shared by the reference kernels
 * (ref_nn2.c) and the CUDA/ROCm plugins (plugins/cuda/tc_pool.cu links this
 * file), so the two cannot drift apart. Host side, metadata only. */
#ifndef TABI_REF_POOL_CHECK_H
#define TABI_REF_POOL_CHECK_H

#include <tabi/tabi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ns spatial dims padded to three (size 1, kernel, stride and dilation 1,
 * padding 0), nlead (1 or 2) leading "plane" dims; adaptive pooling: kernel,
 * stride and dilation 1 (unused). */
typedef struct ref_pool_dims {
  int32_t ns, nlead;
  int64_t planes;
  int64_t in[3], out[3], k[3], s[3], p[3], d[3];
  int64_t dov;         /* avg: divisor_override, 0 when none */
  int32_t include_pad; /* avg: count_include_pad */
  int32_t pad_;
} ref_pool_dims;

/* max_pool{ns}d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode) */
tabi_status ref_pool_max_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                               int32_t ns, ref_pool_dims *g);
/* max_pool2d_with_indices_backward(grad_output, self, k, s, p, dilation, ceil_mode, indices);
 * the index values are checked by the kernels. */
tabi_status ref_pool_max_bwd_check(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_value *args, ref_pool_dims *g);
/* The reference's error for an index value outside the plane of `plane`
 * elements (the first such, in grad_output order: the kernels find it). */
tabi_status ref_pool_max_bwd_index_error(const tabi_host_api *h, const tabi_call *call, int64_t val,
                                         int64_t plane);
/* avg_pool{ns}d(self, k, s, p, ceil_mode, count_include_pad[, divisor_override]) */
tabi_status ref_pool_avg_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                               int32_t ns, ref_pool_dims *g);
/* avg_pool2d_backward(grad_output, self, k, s, p, ceil_mode, count_include_pad, divisor_override) */
tabi_status ref_pool_avg_bwd_check(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_value *args, ref_pool_dims *g);
/* adaptive_avg_pool1d / _adaptive_avg_pool{2,3}d(self, output_size) */
tabi_status ref_pool_adaptive_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                    int32_t ns, ref_pool_dims *g);
/* _adaptive_avg_pool2d_backward(grad_output, self): out is grad_output's spatial shape */
tabi_status ref_pool_adaptive_bwd_check(const tabi_host_api *h, const tabi_call *call,
                                        const tabi_value *args, ref_pool_dims *g);

#ifdef __cplusplus
}
#endif

#endif
