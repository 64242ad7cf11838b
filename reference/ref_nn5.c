/* reference/ref_nn5.c: batch norm (the three _native_batch_norm_legit forms)
 * and native_dropout. Listed in ref_nn3.c's table.
 *
 * Batch norm (ATen's native_batch_norm, which torch 1.13 has; the _legit names
 * are ATen 2.x's split of it): input [N, C, *]; per channel c over N and the
 * spatial dims:
 *  - training: mean and the biased variance of the batch; out = (x - mean) *
 *    invstd * w + b with mean and invstd as saved (rounded to save_mean's
 *    dtype); returns save_mean = mean, save_invstd = 1/sqrt(var + eps);
 *    running_mean/var (when given) are updated IN PLACE:
 *      running_mean = (1 - momentum) * running_mean + momentum * mean
 *      running_var  = (1 - momentum) * running_var  + momentum * var * n/(n-1)
 *    (the unbiased variance; n = 1 gives 0/0 = NaN, as ATen).
 *  - evaluation: normalizes with the running statistics (invstd in the
 *    input's opmath: ref_nn_opmath_invstd); save_mean and
 *    save_invstd are empty ([0]). Evaluation without running statistics
 *    (.no_stats with training=False) is refused: torch 1.13 crashes on it.
 */
#include <math.h>
#include <stdio.h>

#include <tabi/philox.h>

#include "ref.h"
#include "ref_misc_check.h"
#include "ref_nn_bn_check.h"
#include "ref_nn_util.h"

/* The argument checks (and their messages) are ref_nn_bn_check.c's, shared with
 * the GPU plugins' native kernels. */
static tabi_status batch_norm(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int form,
                              tabi_value *outs) {
  tabi_status st;
  ref_bn_args a;
  ref_bn_dims dm;
  ref_nn_bn_args(args, form, &a);
  if ((st = ref_nn_bn_check(h, call, &a, &dm))) return st;
  const tabi_tensor *x = a.x, *w = a.w, *b = a.b;
  tabi_tensor *rm = a.rm, *rv = a.rv;
  int training = a.training;
  double momentum = a.momentum, eps = a.eps;
  int64_t N = dm.N, C = dm.C, S = dm.S;
  int64_t cshape = training ? C : 0;
  tabi_tensor *out = NULL, *sm = NULL, *si = NULL;
  if ((st = ref_empty(h, x, tabi_tensor_dtype(x), x->dl.ndim, x->dl.shape, &out)) ||
      (st = ref_empty(h, x, (tabi_dtype)dm.sdt, 1, &cshape, &sm)) ||
      (st = ref_empty(h, x, (tabi_dtype)dm.sdt, 1, &cshape, &si))) {
    h->tensor_release(h->ctx, out);
    h->tensor_release(h->ctx, sm);
    return st;
  }
  double n = (double)(N * S);
  for (int64_t c = 0; c < C; c++) {
    double mu, invstd;
    if (training) {
      double sum = 0, var = 0;
      for (int64_t i = 0; i < N; i++)
        for (int64_t s = 0; s < S; s++) sum += ref_load_f(x, ref_offset_of(x, (i * C + c) * S + s));
      mu = sum / n;
      for (int64_t i = 0; i < N; i++)
        for (int64_t s = 0; s < S; s++) {
          double d = ref_load_f(x, ref_offset_of(x, (i * C + c) * S + s)) - mu;
          var += d * d;
        }
      invstd = 1 / sqrt(var / n + eps);
      ref_store_f(sm, c, mu);
      ref_store_f(si, c, invstd);
      if (rm) { /* the running mean takes the mean in double, as ATen's accscalar */
        int64_t o = c * rm->dl.strides[0];
        ref_store_f(rm, o, momentum * mu + (1 - momentum) * ref_load_f(rm, o));
      }
      if (rv) {
        int64_t o = c * rv->dl.strides[0];
        ref_store_f(rv, o, momentum * (var / (n - 1)) + (1 - momentum) * ref_load_f(rv, o));
      }
      /* the output uses the statistics as saved (ATen reads them back from
         save_mean/save_invstd): a float32 invstd of 1e155 is inf */
      mu = ref_load_f(sm, c);
      invstd = ref_load_f(si, c);
    } else {
      mu = ref_load_f(rm, c * rm->dl.strides[0]);
      invstd = ref_nn_opmath_invstd(ref_load_f(rv, c * rv->dl.strides[0]), eps, tabi_tensor_dtype(x));
    }
    double wc = w ? ref_load_f(w, c * w->dl.strides[0]) : 1, bc = b ? ref_load_f(b, c * b->dl.strides[0]) : 0;
    for (int64_t i = 0; i < N; i++)
      for (int64_t s = 0; s < S; s++) {
        int64_t lin = (i * C + c) * S + s;
        ref_store_f(out, lin, (ref_load_f(x, ref_offset_of(x, lin)) - mu) * invstd * wc + bc);
      }
  }
  ref_set_out(outs, 0, out);
  ref_set_out(outs, 1, sm);
  ref_set_out(outs, 2, si);
  return TABI_OK;
}

tabi_status ref_nn_batch_norm(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return batch_norm(ctx, call, args, REF_BN_LEGIT, outs);
}

tabi_status ref_nn_batch_norm_no_stats(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return batch_norm(ctx, call, args, REF_BN_NO_STATS, outs);
}

tabi_status ref_nn_batch_norm_no_training(void *ctx, const tabi_call *call, tabi_value *args,
                                          tabi_value *outs) {
  return batch_norm(ctx, call, args, REF_BN_NO_TRAINING, outs);
}

/* native_dropout(input, p, train) -> (output, mask).
 *
 * The rule every device follows (the CUDA/ROCm plugins reproduce it bit for bit
 * in one pass, plugins/cuda/tc_random.cu; the checks are ref_dropout_check):
 * when train is true or None (ATen: None means training), reserve numel Philox
 * counters with host->rng_reserve; element i (row-major) is KEPT when
 *     u_i >= p,  u_i = tabi_philox_uniform_double(philox(seed, offset + i))
 *                for float64 and complex128 inputs,
 *                tabi_philox_uniform_float(...) for every other dtype;
 * so it is kept with probability 1 - p. mask = kept (bool); output =
 * input * mask * scale with scale = 1/(1-p) (0 when p == 1), the product taken
 * in the input's compute precision: scale is rounded to float32 first for all
 * but float64/complex128, as ATen multiplies by a float scalar. NaN inputs stay
 * NaN even where dropped (NaN * 0), as ATen's input.mul(mask).
 * train false: (clone of input, all-true mask). p outside [0, 1] is refused.
 * An empty input returns (input clone, an empty mask of the INPUT's dtype):
 * ATen's quirk, kept. */
tabi_status ref_nn_native_dropout(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *x = args[0].u.t;
  double p = args[1].u.f;
  tabi_dtype dt = tabi_tensor_dtype(x);
  int train, wide;
  tabi_status st = ref_dropout_check(h, call, args, &train, &wide);
  if (st != TABI_OK) return st;
  int64_t numel = tabi_tensor_numel(x);
  tabi_tensor *out = NULL, *mask = NULL;
  if ((st = ref_clone(h, x, &out))) return st;
  if ((st = ref_empty(h, x, numel == 0 ? dt : TABI_DTYPE_BOOL, x->dl.ndim, x->dl.shape, &mask))) {
    h->tensor_release(h->ctx, out);
    return st;
  }
  if (numel > 0 && train) {
    uint64_t seed, offset;
    if ((st = h->rng_reserve(h->ctx, x->dl.device, (uint64_t)numel, &seed, &offset))) {
      h->tensor_release(h->ctx, out);
      h->tensor_release(h->ctx, mask);
      return st;
    }
    double scale = p == 1 ? 0.0 : 1.0 / (1.0 - p);
    if (!wide) scale = (double)(float)scale;
    for (int64_t i = 0; i < numel; i++) {
      tabi_philox_out r = tabi_philox4x32(seed, offset + (uint64_t)i);
      double u = wide ? tabi_philox_uniform_double(r) : (double)tabi_philox_uniform_float(r);
      int keep = u >= p;
      ref_store_i(mask, i, keep);
      ref_store_c(out, i, ref_load_c(x, ref_offset_of(x, i)) * (double)keep * scale);
    }
  } else if (numel > 0) {
    for (int64_t i = 0; i < numel; i++) ref_store_i(mask, i, 1);
  }
  ref_set_out(outs, 0, out);
  ref_set_out(outs, 1, mask);
  return TABI_OK;
}
