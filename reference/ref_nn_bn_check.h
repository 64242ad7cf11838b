/* reference/ref_nn_bn_check.h: the arguments and argument checks of the three
 * batch-norm forms (_native_batch_norm_legit, .no_stats, _no_training), shared
 * by the reference kernel (ref_nn5.c) and the GPU plugins' native kernels
 * (plugins/cuda/tc_bn.cu, also compiled for ROCm), so the statuses and
 * messages cannot drift apart: one copy, not a tc_*_check.c duplicate. C, host
 * side, metadata only; needs ref_util.c and ref_nn_util.c (ref_nn_stats_dtype). */
#ifndef TABI_REF_NN_BN_CHECK_H
#define TABI_REF_NN_BN_CHECK_H

#include <tabi/tabi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which schema the boxed arguments follow. */
enum { REF_BN_LEGIT = 0, REF_BN_NO_STATS = 1, REF_BN_NO_TRAINING = 2 };

/* The arguments of any form: weight, bias, running_mean, running_var NULL when
 * absent (.no_stats has no running statistics; _no_training is training=0). */
typedef struct ref_bn_args {
  const tabi_tensor *x, *w, *b;
  tabi_tensor *rm, *rv;
  int training;
  double momentum, eps;
} ref_bn_args;

/* The checked geometry: input [N, C, *] with S = the product of the spatial
 * dims (1 for a 2-D input); sdt: the dtype of save_mean/save_invstd. */
typedef struct ref_bn_dims {
  int64_t N, C, S;
  int32_t sdt;
} ref_bn_dims;

/* The boxed args of `form` (REF_BN_*) as a ref_bn_args (no checks). */
void ref_nn_bn_args(const tabi_value *args, int form, ref_bn_args *a);

/* The reference's checks, in its order, with its messages: input dtype
 * (floating), the parameters' dtypes (ref_nn_stats_dtype), input at least
 * 2-D, running statistics given in evaluation, each parameter 1-D of C
 * elements, the running statistics writable in training. TABI_OK fills *d. */
tabi_status ref_nn_bn_check(const tabi_host_api *h, const tabi_call *call, const ref_bn_args *a,
                            ref_bn_dims *d);

#ifdef __cplusplus
}
#endif

#endif /* TABI_REF_NN_BN_CHECK_H */
