/* tabi/ext_autograd.h: the "tabi.autograd" extension, version 1.
 *
 * The autograd plugin (libtabi_autograd.so) records a graph for every call whose
 * tensor arguments require grad and runs reverse mode over the dispatcher, so it
 * works on every device. A framework reaches it without linking to the plugin:
 *
 *   const tabi_autograd_api *ag;
 *   tabi_runtime_extension(rt, TABI_AUTOGRAD_EXTENSION, TABI_AUTOGRAD_VERSION,
 *                          (const void **)&ag);
 *   ag->set_requires_grad(ag->ctx, w, 1);
 *   ... calls through tabi_call ...
 *   ag->backward(ag->ctx, 1, &loss, NULL, 0, 0);
 *   tabi_tensor *gw; ag->grad(ag->ctx, w, &gw);    (new reference, or NULL)
 *
 * Every function takes the table's ctx first (one table per runtime the plugin is
 * loaded into). Fields past struct_size are absent (TABI_FIELD_PRESENT).
 *
 * Semantics are PyTorch's: leaves accumulate into .grad; non-leaf grads only on
 * retain_grad; the graph's saved tensors are freed by backward unless
 * retain_graph, and a second backward through a freed graph is an error; grad
 * mode is per thread (and per runtime); an in-place write (an op with a `(a!)`
 * argument) to a tensor saved for backward makes that backward fail naming the op.
 *
 * Threading: grad mode is thread-local. Different graphs may run backward on
 * different threads at once; one graph (or graphs sharing nodes or leaves) must
 * not run backward on two threads at once. Setting requires_grad / grad on a
 * tensor must not race with other use of that tensor.
 *
 * Errors: TABI_ERR_INVALID_ARGUMENT (NULL, wrong dtype, non-leaf, shape of a
 * grad_output), TABI_ERR_UNIMPLEMENTED (backward through an op without a
 * derivative, naming it), TABI_ERR_INVALID_ARGUMENT for a freed graph or a saved
 * tensor modified in place (the message says which), or whatever an op called by
 * a derivative formula returns. Messages through tabi_last_error().
 */
#ifndef TABI_EXT_AUTOGRAD_H
#define TABI_EXT_AUTOGRAD_H

#include <stdint.h>

#include "status.h"
#include "tensor.h"

#define TABI_AUTOGRAD_EXTENSION "tabi.autograd"
#define TABI_AUTOGRAD_VERSION 1u

typedef struct tabi_autograd_api {
  uint32_t struct_size;
  uint32_t version; /* TABI_AUTOGRAD_VERSION */
  void *ctx;        /* pass as the first argument of every function below */

  /* Marks a leaf as requiring grad (1) or not (0). Only floating and complex
   * dtypes may require grad; only leaves may be changed. The tensor gets the
   * autograd layer's key, so calls touching it reach the layer. */
  tabi_status (*set_requires_grad)(void *ctx, tabi_tensor *tensor, int32_t requires_grad);
  /* 1 when the tensor requires grad (a leaf marked so, or the output of a
   * recorded call); 0 otherwise (NULL included). */
  int32_t (*requires_grad)(void *ctx, const tabi_tensor *tensor);
  /* 1 for a tensor without a grad_fn (every tensor that does not require grad,
   * and leaves that do). */
  int32_t (*is_leaf)(void *ctx, const tabi_tensor *tensor);
  /* The accumulated gradient (.grad): a new reference the caller releases, or
   * NULL when none has been accumulated. */
  tabi_status (*grad)(void *ctx, const tabi_tensor *tensor, tabi_tensor **out_grad);
  /* Replaces .grad (grad may be NULL: cleared). grad must have the tensor's shape
   * and dtype; it is retained, not copied. */
  tabi_status (*set_grad)(void *ctx, tabi_tensor *tensor, tabi_tensor *grad);
  /* Clears .grad (PyTorch's zero_grad(set_to_none=True)). */
  tabi_status (*zero_grad)(void *ctx, tabi_tensor *tensor);
  /* Reverse mode from `n` roots. grad_outputs may be NULL, or hold NULLs: a
   * NULL one means ones, allowed only for a root with one element. Gradients
   * accumulate into the .grad of every leaf reached (and of non-leaves marked
   * with retain_grad). retain_graph: keep saved tensors so another backward may
   * run; create_graph: record the backward's own calls (double backward), which
   * implies retain_graph. */
  tabi_status (*backward)(void *ctx, int32_t n, tabi_tensor *const *roots,
                          tabi_tensor *const *grad_outputs, int32_t retain_graph,
                          int32_t create_graph);
  /* Grad mode of this thread: set returns the previous value (set/restore pair).
   * With grad mode off nothing is recorded and the layer costs nothing. */
  int32_t (*set_grad_enabled)(void *ctx, int32_t enabled);
  int32_t (*grad_enabled)(void *ctx);
  /* A new tensor sharing storage (and version counter) with `tensor`, that does
   * not require grad. New reference. */
  tabi_status (*detach)(void *ctx, tabi_tensor *tensor, tabi_tensor **out_tensor);
  /* Asks backward to keep this non-leaf's gradient in its .grad (no-op on a
   * leaf). INVALID_ARGUMENT for a tensor that does not require grad. */
  tabi_status (*retain_grad)(void *ctx, tabi_tensor *tensor);
  /* The op that produced the tensor ("aten::mul.Tensor"), or NULL for a leaf.
   * The string lives as long as the runtime. */
  const char *(*grad_fn_name)(void *ctx, const tabi_tensor *tensor);
  /* The tensor's version counter: bumped by every recorded in-place write. */
  uint32_t (*version_counter)(void *ctx, const tabi_tensor *tensor);
  /* torch.autograd.grad: the gradients of `roots` with respect to `inputs` (each
   * requiring grad), returned in out_grads[n_inputs] as new references (NULL for
   * an input the roots do not depend on), without touching any .grad.
   * retain_graph / create_graph as in backward. */
  tabi_status (*grad_of)(void *ctx, int32_t n, tabi_tensor *const *roots,
                         tabi_tensor *const *grad_outputs, int32_t n_inputs,
                         tabi_tensor *const *inputs, int32_t retain_graph, int32_t create_graph,
                         tabi_tensor **out_grads);
} tabi_autograd_api;

#endif /* TABI_EXT_AUTOGRAD_H */
