/* reference/ref_padup_check.h: the argument plan of constant, reflection and
 * replication padding, upsampling and col2im: the checks (with their messages) and the
 * output geometry, shared by the reference kernels (ref_shape_pad.c,
 * ref_nn4.c, ref_nn.c) and the CUDA/ROCm plugins (plugins/cuda/tc_pad_up.cu
 * links this file), so the two cannot drift apart. Host side, metadata only. */
#ifndef TABI_REF_PADUP_CHECK_H
#define TABI_REF_PADUP_CHECK_H

#include <tabi/tabi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* constant_pad_nd(self, pad, value): pad of even length, at most 2 * ndim
 * (pairs from the last dim backwards; negative pads crop), value representable
 * in self's dtype, no output size negative or overflowing. On success oshape
 * (self's ndim) and the left pad of every dim (0 where unpadded), and the
 * value stored as one element of self's dtype in value_out (16 bytes: c10's
 * conversion, as the reference's fill). */
tabi_status ref_constant_pad_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                   int64_t *oshape, int64_t *before, void *value_out);

/* reflection_pad{k}d / replication_pad{k}d: self's dtype and shape, the
 * padding list; on success oshape (self's ndim), the left pad and a flag per
 * padded dim. */
tabi_status ref_pad_check(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *s,
                          const tabi_value *padding, int32_t k, int reflect, int64_t *oshape,
                          int64_t *padl, int32_t *is_pad);

/* upsample_{nearest,bilinear}2d.vec: input's dtype (nearest also takes uint8),
 * exactly one of output_size/scale_factors, 4-D input, positive sizes; on
 * success the output H, W and the scale factors when given (else 0). */
tabi_status ref_up_check(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                         const tabi_value *output_size, const tabi_value *scale_factors,
                         int bilinear, int64_t out[2], int *has_scale, double scale[2]);

/* col2im(self, output_size, kernel_size, dilation, padding, stride): on success
 * the output shape (4 values; batched tells whether all 4 are the output's or
 * only the last 3) and the number of sliding blocks per dim. */
tabi_status ref_col2im_check(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                             const tabi_value *args, int64_t oshape[4], int *batched,
                             int64_t nb[2]);

#ifdef __cplusplus
}
#endif

#endif
