/* plugins/cuda/tc_norm_check.h: the argument checks of native_layer_norm_backward,
 * native_group_norm and native_group_norm_backward with the reference's
 * messages (reference/ref_nn3.c, ref_nn_util.c), for tc_norm.cu. Host side,
 * metadata only; C so it can use the reference's helpers. */
#ifndef TABI_TC_NORM_CHECK_H
#define TABI_TC_NORM_CHECK_H

#include <tabi/tabi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The normalized sets: `rows` sets of `cnt` elements, set r at linear indices
 * [r*cnt, r*cnt + cnt) of x (row-major); element e of set r has parameter
 * (r % G) * D + (e / pdiv) % pmod (layer norm: G 1, D 0, pdiv 1, pmod N;
 * group norm: D = C/G, pdiv HxW, pmod D, both at least 1). pn parameters
 * (layer norm: N = prod(normalized_shape); group norm: C); pnd/pshape: the
 * grad_weight/grad_bias shape. sdt: the statistics' dtype. */
typedef struct tc_norm_dims {
  int64_t rows, cnt, G, D, pdiv, pmod, pn;
  int32_t pnd;
  int32_t sdt;
  const int64_t *pshape;
} tc_norm_dims;

/* native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask) */
tabi_status tc_ln_bwd_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                            tc_norm_dims *d);
/* native_group_norm(input, weight, bias, N, C, HxW, group, eps) */
tabi_status tc_gn_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                        tc_norm_dims *d);
/* native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask) */
tabi_status tc_gn_bwd_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                            tc_norm_dims *d);

#ifdef __cplusplus
}
#endif

#endif
