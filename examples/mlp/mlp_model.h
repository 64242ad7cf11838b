/* examples/mlp/mlp_model.h: a small MLP classifier on tabi, written as a
 * framework would write it: op handles looked up once, parameters as leaf
 * tensors requiring grad, cross-entropy from log_softmax, SGD under no-grad.
 * Shared by the example (mlp.c) and the training-step benchmark (bench/mlp).
 *
 * Layers: addmm(b, x, W) with W stored [in, out] and ReLU between layers.
 * Threading: one mlp_ctx per thread. Errors: tabi statuses, tabi_last_error().
 */
#ifndef TABI_EXAMPLE_MLP_MODEL_H
#define TABI_EXAMPLE_MLP_MODEL_H

#include <stdint.h>

#include <tabi/runtime.h>
#include <tabi/ext_autocast.h>
#include <tabi/ext_autograd.h>
#include <tabi/ext_profiler.h>

#define MLP_MAX_LAYERS 8

typedef struct mlp_ctx {
  tabi_runtime *rt;
  const tabi_autograd_api *ag;
  const tabi_autocast_api *ac; /* may be NULL when autocast is not used */
  const tabi_profiler_api *pf; /* may be NULL */
  int32_t quiet;
  int32_t nlayers;
  tabi_tensor *W[MLP_MAX_LAYERS], *b[MLP_MAX_LAYERS];
  tabi_tensor *x, *onehot;
  int64_t *labels;
  int64_t n;
  int32_t k;
  tabi_op op_addmm, op_relu, op_logsm, op_mul, op_sum, op_mean, op_neg, op_to_copy, op_sub,
      op_copy_to;
} mlp_ctx;

/* (Re)creates the parameters: sizes[0] inputs, sizes[nsizes-1] classes, ReLU
 * layers between; Kaiming-uniform weights and zero biases from `seed`. */
tabi_status mlp_init_layers(mlp_ctx *m, const int64_t *sizes, int32_t nsizes, uint64_t seed);
/* The 2-64-64-k shape of the example: in, hidden, hidden, out. */
tabi_status mlp_init(mlp_ctx *m, int64_t in, int64_t hidden, int64_t out, uint64_t seed);
/* Copies the dataset: x[n, in] (float32) and labels[n] in [0, k). */
tabi_status mlp_set_data(mlp_ctx *m, const float *x, const int64_t *labels, int64_t n);
/* Forward, cross-entropy (computed in float32), backward. *out_loss may be NULL. */
tabi_status mlp_forward_backward(mlp_ctx *m, double *out_loss);
/* p -= lr * p.grad for every parameter (grad mode off), then clears the grads. */
tabi_status mlp_sgd_step(mlp_ctx *m, double lr);
/* Fraction of the dataset classified right (forward without grad). */
double mlp_accuracy(mlp_ctx *m);
void mlp_free(mlp_ctx *m);

#endif /* TABI_EXAMPLE_MLP_MODEL_H */
