/* plugins/cpu/cpu_nn2_bn.c: the forward batch norm (_native_batch_norm_legit,
 * .no_stats, _no_training) for contiguous [N, C, *] float32/float16/bfloat16/
 * float64 inputs.
 *
 * Semantics are the reference's (reference/ref_nn5.c): training takes the
 * batch mean and the biased variance (two passes, sums in double, as the
 * reference), returns save_mean / save_invstd and updates running_mean /
 * running_var in place with the unbiased variance and momentum, and
 * normalizes with the mean and invstd as saved; evaluation normalizes with
 * the running statistics (ref_nn_opmath_invstd) and returns empty [0] saves. The
 * per-channel scalars (statistics, running stats, weight, bias) go through the
 * reference's ref_load_f / ref_store_f so they round exactly as it does.
 *
 * Channels run on the pool (a channel is N blocks of S contiguous elements);
 * each channel's sums are taken in a fixed order, so results do not depend on
 * the thread count. The output is ((x - mean) * (invstd * w) + b) in double,
 * rounded once to the dtype (float16/bfloat16 through float, as the reference
 * stores them). Half inputs are converted in chunks (cpu_to_f32).
 *
 * Anything the reference would refuse or that is not this layout (mixed
 * parameter dtypes other than low-precision input + float32 parameters, a
 * read-only running stat, empty channels, strides) runs the reference kernel.
 */
#include <math.h>
#include <string.h>

#include "cpu.h"
#include "ref.h"
#include "ref_nn_util.h"

#define BN_CHUNK 512

typedef struct bn_job {
  const cpu_ctx *c;
  tabi_dtype dt;
  int64_t N, C, S;
  const char *x;
  char *y;
  const tabi_tensor *w, *b;
  tabi_tensor *rm, *rv, *sm, *si;
  int training;
  double momentum, eps;
} bn_job;

/* Sums with 8 independent accumulators (vectorizable; fixed order). */
static double sum_f32(const float *p, int64_t n) {
  double a[8] = {0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; k++) a[k] += (double)p[i + k];
  double s = 0;
  for (; i < n; i++) s += (double)p[i];
  return s + ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

static double sq_f32(const float *p, int64_t n, double mu) {
  double a[8] = {0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; k++) {
      double d = (double)p[i + k] - mu;
      a[k] += d * d;
    }
  double s = 0;
  for (; i < n; i++) {
    double d = (double)p[i] - mu;
    s += d * d;
  }
  return s + ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

static double sum_f64(const double *p, int64_t n, double mu, int sq) {
  double a[4] = {0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int k = 0; k < 4; k++) {
      double d = p[i + k] - mu;
      a[k] += sq ? d * d : d;
    }
  double s = 0;
  for (; i < n; i++) {
    double d = p[i] - mu;
    s += sq ? d * d : d;
  }
  return s + (a[0] + a[1]) + (a[2] + a[3]);
}

/* sum (sq = 0) or sum of squared deviations from mu (sq = 1) of one block. */
static double block_sum(const bn_job *j, const char *blk, int64_t n, double mu, int sq) {
  if (j->dt == TABI_DTYPE_FLOAT64) return sum_f64((const double *)blk, n, sq ? mu : 0, sq);
  if (j->dt == TABI_DTYPE_FLOAT32) return sq ? sq_f32((const float *)blk, n, mu) : sum_f32((const float *)blk, n);
  float buf[BN_CHUNK];
  double s = 0;
  for (int64_t i = 0; i < n; i += BN_CHUNK) {
    int64_t m = n - i < BN_CHUNK ? n - i : BN_CHUNK;
    cpu_to_f32(j->c, j->dt, blk + 2 * i, buf, m);
    s += sq ? sq_f32(buf, m, mu) : sum_f32(buf, m);
  }
  return s;
}

static void block_norm(const bn_job *j, const char *in, char *out, int64_t n, double mu, double sc,
                       double bc) {
  if (j->dt == TABI_DTYPE_FLOAT64) {
    const double *p = (const double *)in;
    double *q = (double *)out;
    for (int64_t i = 0; i < n; i++) q[i] = (p[i] - mu) * sc + bc;
    return;
  }
  if (j->dt == TABI_DTYPE_FLOAT32) {
    const float *p = (const float *)in;
    float *q = (float *)out;
    for (int64_t i = 0; i < n; i++) q[i] = (float)(((double)p[i] - mu) * sc + bc);
    return;
  }
  float buf[BN_CHUNK];
  for (int64_t i = 0; i < n; i += BN_CHUNK) {
    int64_t m = n - i < BN_CHUNK ? n - i : BN_CHUNK;
    cpu_to_f32(j->c, j->dt, in + 2 * i, buf, m);
    for (int64_t k = 0; k < m; k++) buf[k] = (float)(((double)buf[k] - mu) * sc + bc);
    cpu_from_f32(j->c, j->dt, buf, out + 2 * i, m);
  }
}

static void bn_range(void *arg, int64_t cb, int64_t ce) {
  const bn_job *j = arg;
  int64_t es = j->dt == TABI_DTYPE_FLOAT64 ? 8 : j->dt == TABI_DTYPE_FLOAT32 ? 4 : 2;
  int64_t blk = j->S * es, stride = j->C * blk;
  double n = (double)(j->N * j->S);
  for (int64_t c = cb; c < ce; c++) {
    const char *x0 = j->x + c * blk;
    double mu, invstd;
    if (j->training) {
      double sum = 0, var = 0;
      for (int64_t i = 0; i < j->N; i++) sum += block_sum(j, x0 + i * stride, j->S, 0, 0);
      mu = sum / n;
      for (int64_t i = 0; i < j->N; i++) var += block_sum(j, x0 + i * stride, j->S, mu, 1);
      invstd = 1 / sqrt(var / n + j->eps);
      ref_store_f(j->sm, c, mu);
      ref_store_f(j->si, c, invstd);
      if (j->rm) {
        int64_t o = c * j->rm->dl.strides[0];
        ref_store_f(j->rm, o, j->momentum * mu + (1 - j->momentum) * ref_load_f(j->rm, o));
      }
      if (j->rv) {
        int64_t o = c * j->rv->dl.strides[0];
        ref_store_f(j->rv, o, j->momentum * (var / (n - 1)) + (1 - j->momentum) * ref_load_f(j->rv, o));
      }
      mu = ref_load_f(j->sm, c); /* the output uses the statistics as saved */
      invstd = ref_load_f(j->si, c);
    } else {
      mu = ref_load_f(j->rm, c * j->rm->dl.strides[0]);
      invstd = ref_nn_opmath_invstd(ref_load_f(j->rv, c * j->rv->dl.strides[0]), j->eps, j->dt);
    }
    double wc = j->w ? ref_load_f(j->w, c * j->w->dl.strides[0]) : 1;
    double bc = j->b ? ref_load_f(j->b, c * j->b->dl.strides[0]) : 0;
    for (int64_t i = 0; i < j->N; i++)
      block_norm(j, x0 + i * stride, j->y + c * blk + i * stride, j->S, mu, invstd * wc, bc);
  }
}

static const tabi_tensor *opt_t(const tabi_value *v) { return v->tag == TABI_TAG_TENSOR ? v->u.t : NULL; }

/* 1 when the fast path takes it; sets *sdt (the statistics' dtype). */
static int bn_ok(const tabi_tensor *x, const tabi_tensor *const *ps, int training, tabi_dtype *sdt) {
  tabi_dtype dt = tabi_tensor_dtype(x);
  if (dt != TABI_DTYPE_FLOAT64 && !cpu_is_fast_float(dt)) return 0;
  if (x->dl.ndim < 2 || !cpu_contig(x) || x->dl.device.device_type != kDLCPU) return 0;
  if (tabi_tensor_numel(x) == 0) return 0;
  if (!training && (!ps[2] || !ps[3])) return 0;
  int low = dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16, mixed = 0;
  int64_t C = x->dl.shape[1];
  for (int i = 0; i < 4; i++) {
    const tabi_tensor *p = ps[i];
    if (!p) continue;
    tabi_dtype pd = tabi_tensor_dtype(p);
    if (pd != dt && !(low && pd == TABI_DTYPE_FLOAT32)) return 0;
    mixed |= pd != dt;
    if (p->dl.ndim != 1 || p->dl.shape[0] != C || p->dl.device.device_type != kDLCPU) return 0;
    if (i >= 2 && training && (p->flags & TABI_TENSOR_READ_ONLY)) return 0;
  }
  *sdt = mixed ? TABI_DTYPE_FLOAT32 : dt;
  return 1;
}

static tabi_status bn_run(const cpu_ctx *c, const tabi_tensor *x, const tabi_tensor *w, const tabi_tensor *b,
                          tabi_tensor *rm, tabi_tensor *rv, int training, double momentum, double eps,
                          tabi_value *outs, int *handled) {
  const tabi_tensor *ps[4] = {w, b, rm, rv};
  tabi_dtype sdt;
  *handled = 0;
  if (!bn_ok(x, ps, training, &sdt)) return TABI_OK;
  *handled = 1;
  int64_t N = x->dl.shape[0], C = x->dl.shape[1], S = 1;
  for (int32_t i = 2; i < x->dl.ndim; i++) S *= x->dl.shape[i];
  int64_t cshape = training ? C : 0;
  tabi_tensor *out = NULL, *sm = NULL, *si = NULL;
  tabi_status st;
  if ((st = cpu_empty(c, x, tabi_tensor_dtype(x), x->dl.ndim, x->dl.shape, &out)) ||
      (st = cpu_empty(c, x, sdt, 1, &cshape, &sm)) || (st = cpu_empty(c, x, sdt, 1, &cshape, &si))) {
    c->host->tensor_release(c->host->ctx, out);
    c->host->tensor_release(c->host->ctx, sm);
    return st;
  }
  bn_job j = {c, tabi_tensor_dtype(x), N, C, S, tabi_tensor_data(x), tabi_tensor_data(out), w, b,
              training ? rm : NULL, training ? rv : NULL, sm, si, training, momentum, eps};
  if (!training) {
    j.rm = rm;
    j.rv = rv;
  }
  int64_t per = N * S * (training ? 3 : 1);
  cpu_parallel_for(c->pool, C, 1 + 32768 / per, bn_range, &j);
  outs[0] = tabi_tensor_value(out);
  outs[1] = tabi_tensor_value(sm);
  outs[2] = tabi_tensor_value(si);
  return TABI_OK;
}

tabi_status cpu_k_bn_legit(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  int handled;
  if (args[0].tag != TABI_TAG_TENSOR || args[3].tag != TABI_TAG_TENSOR || args[4].tag != TABI_TAG_TENSOR)
    return CPU_FALLBACK(c, BN_LEGIT);
  tabi_status st = bn_run(c, args[0].u.t, opt_t(&args[1]), opt_t(&args[2]), args[3].u.t, args[4].u.t,
                          args[5].u.i != 0, args[6].u.f, args[7].u.f, outs, &handled);
  return handled ? st : CPU_FALLBACK(c, BN_LEGIT);
}

tabi_status cpu_k_bn_no_stats(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  int handled;
  if (args[0].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, BN_NO_STATS);
  tabi_status st = bn_run(c, args[0].u.t, opt_t(&args[1]), opt_t(&args[2]), NULL, NULL, args[3].u.i != 0,
                          args[4].u.f, args[5].u.f, outs, &handled);
  return handled ? st : CPU_FALLBACK(c, BN_NO_STATS);
}

tabi_status cpu_k_bn_no_training(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  int handled;
  if (args[0].tag != TABI_TAG_TENSOR || args[3].tag != TABI_TAG_TENSOR || args[4].tag != TABI_TAG_TENSOR)
    return CPU_FALLBACK(c, BN_NO_TRAINING);
  tabi_status st = bn_run(c, args[0].u.t, opt_t(&args[1]), opt_t(&args[2]), args[3].u.t, args[4].u.t, 0,
                          args[5].u.f, args[6].u.f, outs, &handled);
  return handled ? st : CPU_FALLBACK(c, BN_NO_TRAINING);
}
