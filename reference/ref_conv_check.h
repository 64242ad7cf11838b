/* reference/ref_conv_check.h: the argument plan of aten::convolution and
 * aten::convolution_backward: the checks (with their messages, in the
 * reference's order) and the geometry, shared by the reference kernels
 * (ref_nn.c) and the CUDA/ROCm plugins (plugins/cuda/tc_conv.cu links this
 * file), so the two cannot drift apart. Host side, metadata only. */
#ifndef TABI_REF_CONV_CHECK_H
#define TABI_REF_CONV_CHECK_H

#include <tabi/tabi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A convolution relates a "low-res" tensor L and a "high-res" tensor H
 * (h = l*stride - padding + k*dilation per spatial dim): L is the output of an
 * ordinary convolution and the input of a transposed one. Spatial dims are
 * padded to three (size 1, kernel 1, stride and dilation 1, padding 0). Plain
 * int64 fields: the GPU kernels take it by value. */
typedef struct ref_conv_geom {
  int64_t n, cl, ch, groups;    /* batch, L channels, H channels, groups */
  int64_t lsp[3], hsp[3], k[3]; /* sizes: L spatial, H spatial, kernel */
  int64_t s[3], p[3], d[3];
} ref_conv_geom;

/* convolution(input, weight, bias, stride, padding, dilation, transposed,
 * output_padding, groups): input/weight dtypes and shapes, the int lists,
 * groups, channels, output sizes, then the bias (dtype, then shape). Gives the
 * geometry, ns (1-3), the output shape (ns + 2 dims) and transposed. */
tabi_status ref_conv_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                           ref_conv_geom *g, int32_t *ns, int64_t *out_shape, int *transposed);
/* convolution_backward(grad_output, input, weight, bias_sizes, stride, padding,
 * dilation, transposed, output_padding, groups, output_mask): convolution's
 * input/weight checks, then grad_output's dtype and shape (the output's). */
tabi_status ref_conv_bwd_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                               ref_conv_geom *g, int32_t *ns, int64_t *out_shape, int *transposed);

#ifdef __cplusplus
}
#endif

#endif
