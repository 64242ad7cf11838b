/* conformance/conform_grad.h: gradcheck of a backend through the autograd
 * plugin, for every differentiable op.
 *
 * For each op, the float64 samples of the conformance generators (sample.h)
 * are run with every floating input requiring grad. The analytic
 * vector-Jacobian product J^T v (one backward with random grad_outputs v) is
 * compared elementwise with central finite differences of <v, f(x)>,
 * d/dx_k ~ (<v, f(x + eps e_k)> - <v, f(x - eps e_k)>) / 2 eps, with PyTorch
 * gradcheck's tolerances (eps 1e-6, atol 1e-5, rtol 1e-3: spec/tolerances.md).
 * A random v checks every Jacobian entry at once with probability one.
 *
 * Complex (options->dtype TABI_DTYPE_COMPLEX128): the loss is
 * L = sum Re(conj(v) f(x)) over complex outputs (v f(x) over real ones), and
 * the gradient of a complex input is dL/dRe x + i dL/dIm x, PyTorch's
 * convention (grad * conj(f'(z)) for a holomorphic f); each part is compared
 * with central differences of its own. Inputs and outputs of float64 and
 * complex128 take part in both modes.
 *
 * Skipped: samples expected to error, random ops, uninitialized outputs, samples
 * with ties (CONFORM_TIES: the derivative is one-sided there), non-finite
 * inputs or outputs, samples without a float64 input and output; and single
 * elements where f is not differentiable (the one-sided differences disagree:
 * relu at 0, floor at an integer).
 *
 * Threading: not thread-safe; uses its own runtime. Never aborts.
 */
#ifndef TABI_CONFORM_GRAD_H
#define TABI_CONFORM_GRAD_H

#include <stdint.h>
#include <stdio.h>

#include <tabi/runtime.h>

typedef struct conform_grad_options {
  uint32_t struct_size;    /* sizeof(conform_grad_options) */
  const char *backend;     /* plugin path or name; NULL: "cpu", else "reference" */
  const char *fallback;    /* tried when backend fails to load; NULL: "reference" */
  const char *autograd;    /* path or name; NULL: "autograd" */
  const char *decomp;      /* composite kernels, optional; NULL: "decomp" */
  const char *ops;         /* substring filter over op names; NULL: all ops */
  double eps, atol, rtol;  /* 0: 1e-6, 1e-5, 1e-3 */
  int32_t max_samples;     /* per op; <= 0: 8 */
  int32_t max_elems;       /* input elements perturbed per input; <= 0: 24 */
  uint64_t seed;
  FILE *log;               /* one line per failing case; NULL: stderr */
  int32_t verbose;         /* 1: a line per op too */
  const char *op_exact;    /* only the op with exactly this name; NULL: no such filter
                              (`tabi conform` runs one op per isolated group) */
  int32_t missing_is_skip; /* 1: a derivative that is not implemented (backward returns
                              TABI_ERR_UNIMPLEMENTED) is CONFORM_GRAD_MISSING, not FAIL */
  tabi_dtype dtype;        /* the samples' dtype: TABI_DTYPE_FLOAT64 (0 means it too) or
                              TABI_DTYPE_COMPLEX128 (complex gradients, below) */
} conform_grad_options;

typedef struct conform_grad_result {
  int32_t passed, failed, skipped; /* samples */
  int32_t ops_passed, ops_failed, ops_skipped;
} conform_grad_result;

#define CONFORM_GRAD_PASS 0
#define CONFORM_GRAD_FAIL 1
#define CONFORM_GRAD_SKIP 2
/* Only with options->missing_is_skip: backward refused with TABI_ERR_UNIMPLEMENTED
 * (the autograd plugin has no derivative for the op: a coverage gap, reported
 * clearly, not a wrong gradient). Counted as skipped. */
#define CONFORM_GRAD_MISSING 3

/* Called once per sample: status CONFORM_GRAD_*, a message for FAIL and SKIP. */
typedef void (*conform_grad_case_fn)(void *user, const char *op, const char *sample,
                                     int32_t status, const char *message);

void conform_grad_options_init(conform_grad_options *options);

/* Gradchecks every op (or those matching options->ops). on_case may be NULL.
 * Returns TABI_OK when the run happened (failures are in *out_result), or an
 * error when the runtime could not be set up (plugins not found). */
tabi_status conform_gradcheck_plugin(const conform_grad_options *options,
                                     conform_grad_case_fn on_case, void *user,
                                     conform_grad_result *out_result);

#endif /* TABI_CONFORM_GRAD_H */
