/* tests/mutants/mutant.h: what the deliberately broken plugins share.
 *
 * Each mutant is a small kDLCPU device plugin built against abi/ only, with a
 * few kernels written the way a vendor would write them, and ONE realistic bug.
 * The helpers here are correct (strided element access for the real dtypes,
 * ATen's broadcasting and result_type), so that a mutant fails for its bug and
 * nothing else: `mut_ok` (the correct mini-plugin) is built from the same
 * helpers and passes `tabi conform`.
 *
 * Complex dtypes are refused with TABI_ERR_TYPE; the tests run with --dtypes.
 */
#ifndef TABI_TESTS_MUTANT_H
#define TABI_TESTS_MUTANT_H

#include <stdint.h>

#include <tabi/tabi.h>

#define MUT_MAX_DIMS 16

/* Element `off` (in elements, from tabi_tensor_data) as double / int64. */
double mut_get(const tabi_tensor *t, int64_t off);
int64_t mut_get_i(const tabi_tensor *t, int64_t off);
/* Stores v converted to t's dtype (ints truncate toward zero, as C casts). */
void mut_set(tabi_tensor *t, int64_t off, double v);
void mut_set_i(tabi_tensor *t, int64_t off, int64_t v);

/* Element offset of row-major position `linear` of `shape` (ndim dims) in t,
 * broadcasting t against shape: t's dims are right-aligned, size-1 dims repeat. */
int64_t mut_offset(const tabi_tensor *t, int32_t ndim, const int64_t *shape, int64_t linear);

/* Broadcast shape of a and b; TABI_ERR_SHAPE when they do not broadcast. */
tabi_status mut_broadcast(const tabi_host_api *h, const char *op, const tabi_tensor *a,
                          const tabi_tensor *b, int32_t *out_ndim, int64_t *out_shape);

/* ATen result_type over tensors (dimensioned beat 0-d within a category) and
 * Python scalars (a float scalar is float32 category, int is int64, bool is
 * bool). `scalar` may be NULL. Returns TABI_DTYPE_INVALID for complex. */
tabi_dtype mut_result_type(const tabi_tensor *a, const tabi_tensor *b, const tabi_value *scalar);

/* Accepts the real dtypes; TABI_ERR_TYPE naming op and arg otherwise. */
tabi_status mut_check_real(const tabi_host_api *h, const char *op, const char *arg, tabi_dtype d);

/* A new contiguous CPU tensor. */
tabi_status mut_empty(const tabi_host_api *h, tabi_dtype d, int32_t ndim, const int64_t *shape,
                      tabi_tensor **out);

/* ATen's alpha_check for a result of dtype rt (real dtypes): a float alpha
 * needs a floating result, a bool one a bool result, and it must fit rt. */
tabi_status mut_check_alpha(const tabi_host_api *h, const char *op, const tabi_value *alpha, tabi_dtype rt);

typedef double (*mut_binary_fn)(double a, double b, double alpha);
typedef int64_t (*mut_binary_ifn)(int64_t a, int64_t b, int64_t alpha, int *err);

/* out = fn(self, other) elementwise with broadcasting and promotion; integer
 * results go through ifn (exact). `other` may be a Scalar value instead of a
 * tensor (args[1] not a tensor). alpha: args[2] when `has_alpha`. */
tabi_status mut_binary(const tabi_host_api *h, const char *op, tabi_value *args, int has_alpha,
                       mut_binary_fn fn, mut_binary_ifn ifn, tabi_value *outs);

typedef double (*mut_unary_fn)(double x);
/* out = fn(self) elementwise, same dtype as self (bool refused). */
tabi_status mut_unary(const tabi_host_api *h, const char *op, tabi_value *args, mut_unary_fn fn,
                      tabi_value *outs);

/* Registers `fn` for `op` as the plugin's kDLCPU backend kernel. */
tabi_status mut_register(const tabi_host_api *h, const char *op, tabi_kernel_fn fn);

/* Fills the plugin struct: a DEVICE plugin for kDLCPU named `name`. */
void mut_plugin_info(tabi_plugin *out, const char *name, const char *description);

#endif /* TABI_TESTS_MUTANT_H */
