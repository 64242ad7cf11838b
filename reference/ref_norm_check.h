/* reference/ref_norm_check.h: the argument plan of layer norm, group norm and
 * their backwards: the checks (with their messages) and the normalized sets'
 * geometry, shared by the reference kernels (ref_nn3.c) and the CUDA/ROCm
 * plugins (plugins/cuda/tc_norm.cu links this file), so the two cannot drift
 * apart. Host side, metadata only. */
#ifndef TABI_REF_NORM_CHECK_H
#define TABI_REF_NORM_CHECK_H

#include <tabi/tabi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The normalized sets: `rows` sets of `cnt` elements, set r at linear indices
 * [r*cnt, r*cnt + cnt) of x (row-major); element e of set r has parameter
 * (r % G) * D + (e / pdiv) % pmod (layer norm: G 1, D 0, pdiv 1, pmod N;
 * group norm: D = C/G, pdiv HxW, pmod D, both at least 1). pn parameters
 * (layer norm: N = prod(normalized_shape); group norm: C); pnd/pshape: the
 * grad_weight/grad_bias shape (layer norm: x's trailing pnd dims, so the
 * normalized axis is x's ndim - pnd). sdt: the statistics' dtype. */
typedef struct ref_norm_dims {
  int64_t rows, cnt, G, D, pdiv, pmod, pn;
  int32_t pnd;
  int32_t sdt;
  const int64_t *pshape;
} ref_norm_dims;

/* native_layer_norm(input, normalized_shape, weight, bias, eps) */
tabi_status ref_norm_ln_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                              ref_norm_dims *d);
/* native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask) */
tabi_status ref_norm_ln_bwd_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                  ref_norm_dims *d);
/* native_group_norm(input, weight, bias, N, C, HxW, group, eps) */
tabi_status ref_norm_gn_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                              ref_norm_dims *d);
/* native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask) */
tabi_status ref_norm_gn_bwd_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                  ref_norm_dims *d);

#ifdef __cplusplus
}
#endif

#endif
