/* reference/ref_nn_util.h: helpers shared by the nn family files (ref_nn*.c).
 * Private to the reference plugin. Buffers are plain heap memory owned by the
 * caller (free with ref_nn_free); NULL means out of memory. */
#ifndef TABI_REF_NN_UTIL_H
#define TABI_REF_NN_UTIL_H

#include "ref.h"

/* n zeroed doubles / int64s (n may be 0: a valid, non-NULL buffer). */
double *ref_nn_zeros(int64_t n);

/* A norm's 1 / sqrt(var + eps) as ATen computes it, in the opmath of the
 * input dtype x: float below float64, var and eps cast to it (so eps 1e-310
 * is 0 there, and a zero variance gives inf, not 1e155). Layer and group
 * norm, and batch norm's evaluation (training takes it in double and stores
 * it). plugins/cuda/tc_pad_up.cuh's tcp_opmath_invstd is the device's copy. */
double ref_nn_opmath_invstd(double var, double eps, tabi_dtype x);
int64_t *ref_nn_izeros(int64_t n);
void ref_nn_free(void *p);

/* TABI_ERR_SHAPE unless x is (ns+1)-D or (ns+2)-D (batch mode) with non-zero
 * sizes in every dim but the batch: the input rule of ATen's pooling ops. */
tabi_status ref_nn_pool_input(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                              int32_t ns, const char *arg);

/* The dtype of a norm's statistics: the input's, or float32 when a float16/
 * bfloat16 input has float32 parameters (ATen's "mixed" case). Checks each
 * non-NULL params[i] (named names[i]) is one of those; TABI_ERR_TYPE otherwise. */
tabi_status ref_nn_stats_dtype(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                               const tabi_tensor *const *params, const char *const *names, int n,
                               tabi_dtype *out);

/* Kernels defined in ref_nn4.c (upsampling, grid sampling, embeddings), ref_nn6.c
 * (_embedding_bag) and
 * ref_nn5.c (batch norm, dropout), listed in ref_nn3.c's table. */
tabi_status ref_nn_batch_norm(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
tabi_status ref_nn_batch_norm_no_stats(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
tabi_status ref_nn_batch_norm_no_training(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
tabi_status ref_nn_native_dropout(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
tabi_status ref_nn_upsample_nearest2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
tabi_status ref_nn_upsample_bilinear2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
tabi_status ref_nn_grid_sampler_2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
tabi_status ref_nn_embedding(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
tabi_status ref_nn_embedding_dense_backward(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
tabi_status ref_nn_embedding_bag(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);

#endif /* TABI_REF_NN_UTIL_H */
