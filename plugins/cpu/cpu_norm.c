/* plugins/cpu/cpu_norm.c: _softmax, _log_softmax (over the last dim) and
 * native_layer_norm, for contiguous float32 (softmax also float16/bfloat16,
 * and half_to_float); the other dims and dtypes are cpu_norm2.c's. One row per task: results do not depend on the thread
 * count. Row sums and the layer norm statistics accumulate in double, as the
 * reference does; the elementwise parts run in float32 with the vectorized exp.
 * Everything else runs the reference kernel.
 */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cpu_ew.h"
#include "cpu_math.h"
#include "cpu_norm.h"
#include "cpu_reduce_kern.h"
#include "ref_nn_util.h"
#include "cpu_clones.h"

#define CLONES CPU_CLONES_V3

CLONES static void exp_shift(const float *x, float *o, int64_t n, float m) {
  for (int64_t i = 0; i < n; i++) o[i] = cpu_expf(x[i] - m);
}
CLONES static void scale(float *o, int64_t n, float s) {
  for (int64_t i = 0; i < n; i++) o[i] *= s;
}

/* o = exp(x - m), returning the sum of o in double (cpu_exp8_neg: cpu_norm.h).
 * The sum adds 8-term float32 partials per lane (blocks of 128) widened to
 * double, then the tail in order: a pure function of the row. */
T256 static double exp_sum8(const float *x, float *o, int64_t n, float m) {
  __m256 mv = _mm256_set1_ps(m);
  __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
  int64_t i = 0;
  for (; i + 128 <= n; i += 128) {
    __m256 f0 = _mm256_setzero_ps(), f1 = _mm256_setzero_ps();
    for (int64_t k = i; k < i + 128; k += 16) {
      __m256 e0 = cpu_exp8_neg(_mm256_sub_ps(_mm256_loadu_ps(x + k), mv));
      __m256 e1 = cpu_exp8_neg(_mm256_sub_ps(_mm256_loadu_ps(x + k + 8), mv));
      _mm256_storeu_ps(o + k, e0);
      _mm256_storeu_ps(o + k + 8, e1);
      f0 = _mm256_add_ps(f0, e0);
      f1 = _mm256_add_ps(f1, e1);
    }
    __m256 f = _mm256_add_ps(f0, f1);
    a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
    a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
  }
  for (; i + 8 <= n; i += 8) {
    __m256 e = cpu_exp8_neg(_mm256_sub_ps(_mm256_loadu_ps(x + i), mv));
    _mm256_storeu_ps(o + i, e);
    a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(e)));
    a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(e, 1)));
  }
  double t[4];
  _mm256_storeu_pd(t, _mm256_add_pd(a0, a1));
  double s = (t[0] + t[1]) + (t[2] + t[3]);
  for (; i < n; i++) {
    o[i] = cpu_expf(x[i] - m);
    s += (double)o[i];
  }
  return s;
}

static int sm_avx2(void) { return cpu_ew_isa()->lanes >= 8; }

static double exp_sum(const cpu_ctx *c, const float *x, float *o, int64_t n, float m) {
  if (sm_avx2()) return exp_sum8(x, o, n, m);
  exp_shift(x, o, n, m);
  return cpu_sum_f32(c, o, n);
}
/* (x - m) - ls, the reference's order: x == m gives exactly -ls even where m
 * is so large that m + ls would round to m. */
CLONES static void shift(const float *x, float *o, int64_t n, float m, float ls) {
  for (int64_t i = 0; i < n; i++) o[i] = (x[i] - m) - ls;
}
/* The mean is subtracted in two float parts, hi = (float)mean and lo the
 * rest: x - hi is exact for x near the mean (Sterbenz), so the deviation keeps
 * its own precision where the data's mean is large against its spread (mean
 * 1000, spread 1: a float mean alone is off by 3e-5, which rstd scales into
 * the output; the reference centres in double). */
CLONES void cpu_norm_row(const float *x, float *o, int64_t n, double mean, float rstd, const float *w,
                         const float *b) {
  float hi = (float)mean, lo = (float)(mean - hi);
  if (w && b)
    for (int64_t i = 0; i < n; i++) o[i] = ((x[i] - hi) - lo) * rstd * w[i] + b[i];
  else if (w)
    for (int64_t i = 0; i < n; i++) o[i] = ((x[i] - hi) - lo) * rstd * w[i];
  else if (b)
    for (int64_t i = 0; i < n; i++) o[i] = ((x[i] - hi) - lo) * rstd + b[i];
  else
    for (int64_t i = 0; i < n; i++) o[i] = ((x[i] - hi) - lo) * rstd;
}

typedef struct sm_job {
  const cpu_ctx *c;
  tabi_dtype dt, odt; /* odt: float32 for half_to_float, else dt */
  const char *x;
  char *o;
  int64_t len;
  int log;
  int failed;
} sm_job;

static void softmax_row(const cpu_ctx *c, const float *x, float *o, int64_t n, int want_log) {
  float m = cpu_max_f32(c, x, n, 0);
  double s = exp_sum(c, x, o, n, m);
  if (want_log) shift(x, o, n, m, (float)log(s));
  else scale(o, n, (float)(1.0 / s));
}

static void softmax_range(void *arg, int64_t b, int64_t e) {
  sm_job *j = arg;
  if (j->dt == TABI_DTYPE_FLOAT32) {
    for (int64_t r = b; r < e; r++)
      softmax_row(j->c, (const float *)j->x + r * j->len, (float *)j->o + r * j->len, j->len,
                  j->log);
    return;
  }
  float *buf = malloc((size_t)j->len * 2 * sizeof(float));
  if (!buf) { j->failed = 1; return; }
  for (int64_t r = b; r < e; r++) {
    cpu_to_f32(j->c, j->dt, j->x + 2 * r * j->len, buf, j->len);
    if (j->odt == TABI_DTYPE_FLOAT32) {
      softmax_row(j->c, buf, (float *)j->o + r * j->len, j->len, j->log);
      continue;
    }
    softmax_row(j->c, buf, buf + j->len, j->len, j->log);
    cpu_from_f32(j->c, j->dt, buf + j->len, j->o + 2 * r * j->len, j->len);
  }
  free(buf);
}

static int softmax_fast(const cpu_ctx *c, tabi_value *args, tabi_value *outs, int log,
                        tabi_status *st) {
  if (args[0].tag != TABI_TAG_TENSOR || args[2].tag != TABI_TAG_BOOL) return 0;
  const tabi_tensor *t = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(t), odt = dt;
  if (args[2].u.i) { /* half_to_float: float16 in, float32 out (else the reference's error) */
    if (dt != TABI_DTYPE_FLOAT16) return 0;
    odt = TABI_DTYPE_FLOAT32;
  }
  if (!cpu_is_fast_float(dt) || !cpu_contig(t) || t->dl.ndim < 1) return 0;
  if (cpu_wrap_dim(args[1].u.i, t->dl.ndim) != t->dl.ndim - 1) return 0;
  int64_t numel = tabi_tensor_numel(t);
  if (numel == 0) return 0;
  tabi_tensor *o = NULL;
  if ((*st = cpu_empty(c, t, odt, t->dl.ndim, t->dl.shape, &o)) != TABI_OK) return 1;
  sm_job j = {c, dt, odt, tabi_tensor_data(t), tabi_tensor_data(o), t->dl.shape[t->dl.ndim - 1], log, 0};
  cpu_parallel_for(c->pool, numel / j.len, 1 + 16384 / j.len, softmax_range, &j);
  if (j.failed) {
    c->host->tensor_release(c->host->ctx, o);
    *st = TABI_ERR(c->host, TABI_ERR_OUT_OF_MEMORY, "aten::_softmax: out of memory");
    return 1;
  }
  outs[0] = tabi_tensor_value(o);
  return 1;
}

tabi_status cpu_k_softmax(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = TABI_OK;
  if (softmax_fast(c, args, outs, 0, &st) || cpu_softmax_more(c, args, outs, 0, &st)) return st;
  return CPU_FALLBACK(c, SOFTMAX);
}

tabi_status cpu_k_log_softmax(void *ctx, const tabi_call *call, tabi_value *args,
                              tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = TABI_OK;
  if (softmax_fast(c, args, outs, 1, &st) || cpu_softmax_more(c, args, outs, 1, &st)) return st;
  return CPU_FALLBACK(c, LOG_SOFTMAX);
}

/* --- native_layer_norm -------------------------------------------------------- */

typedef struct ln_job {
  const cpu_ctx *c;
  const float *x, *w, *b;
  float *o, *mean, *rstd;
  int64_t n;
  double eps;
  int nt; /* streaming stores (see ln_nt) */
} ln_job;

/* cpu_norm_row with non-temporal stores: o 64-byte aligned, n a multiple of
 * 16. The same arithmetic as cpu_norm_row's AVX-512 clone does, lane by lane. */
__attribute__((target("avx512f"))) static void norm_row_nt(const float *x, float *o, int64_t n, double mean,
                                                          float rstd, const float *w, const float *b) {
  float hi = (float)mean, lo = (float)(mean - hi);
  __m512 hv = _mm512_set1_ps(hi), lv = _mm512_set1_ps(lo), rv = _mm512_set1_ps(rstd);
  for (int64_t i = 0; i < n; i += 16) {
    __m512 v = _mm512_mul_ps(_mm512_sub_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), hv), lv), rv);
    if (w) v = _mm512_mul_ps(v, _mm512_loadu_ps(w + i));
    if (b) v = _mm512_add_ps(v, _mm512_loadu_ps(b + i));
    _mm512_stream_ps(o + i, v);
  }
}

/* A row's sum (dev = 0) or sum of squared deviations from mean (dev = 1), in
 * double as the reference, on AVX-512 with eight accumulators: a row of layer
 * norm sits in L1, so the latency of the add/FMA chain is the whole cost, and
 * the reductions' two-accumulator loops (cpu_red_sum, built for streaming from
 * memory) left it at ~4 cycles per 8 elements. A pure function of the row. */
__attribute__((target("avx512f"))) static double ln_sum512(const float *x, int64_t n, int dev,
                                                         double mean) {
  const __m512d m = _mm512_set1_pd(mean);
  __m512d a[8];
  for (int k = 0; k < 8; k++) a[k] = _mm512_setzero_pd();
  int64_t i = 0;
  for (; i + 64 <= n; i += 64)
    for (int k = 0; k < 8; k++) {
      __m512d v = _mm512_cvtps_pd(_mm256_loadu_ps(x + i + 8 * k));
      if (dev) {
        v = _mm512_sub_pd(v, m);
        a[k] = _mm512_fmadd_pd(v, v, a[k]);
      } else {
        a[k] = _mm512_add_pd(a[k], v);
      }
    }
  __m512d t = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(a[0], a[1]), _mm512_add_pd(a[2], a[3])),
                            _mm512_add_pd(_mm512_add_pd(a[4], a[5]), _mm512_add_pd(a[6], a[7])));
  double s = _mm512_reduce_add_pd(t);
  for (; i < n; i++) {
    double e = (double)x[i] - (dev ? mean : 0.0);
    s += dev ? e * e : e;
  }
  return s;
}

/* ln_sum512 on AVX2: every element widened to double before it is added.
 * The sum reduction's AVX2 kernel (cpu_red_sum) adds 16 elements in float
 * before widening, which is within a sum's tolerance but not a mean's: the
 * output is (x - mean) * rstd, so a mean of 1000-ish data off by 4e-6 put
 * float32 layer norm 1e-5 off the reference (tests/cuda rows_cases). */
T256 static double ln_sum256(const float *x, int64_t n, int dev, double mean) {
  const __m256d m = _mm256_set1_pd(mean);
  __m256d a[8];
  for (int k = 0; k < 8; k++) a[k] = _mm256_setzero_pd();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 8; k++) {
      __m256d v = _mm256_cvtps_pd(_mm_loadu_ps(x + i + 4 * k));
      if (dev) {
        v = _mm256_sub_pd(v, m);
        a[k] = _mm256_fmadd_pd(v, v, a[k]);
      } else {
        a[k] = _mm256_add_pd(a[k], v);
      }
    }
  __m256d t = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(a[0], a[1]), _mm256_add_pd(a[2], a[3])),
                            _mm256_add_pd(_mm256_add_pd(a[4], a[5]), _mm256_add_pd(a[6], a[7])));
  double l[4];
  _mm256_storeu_pd(l, t);
  double s = (l[0] + l[1]) + (l[2] + l[3]);
  for (; i < n; i++) {
    double e = (double)x[i] - (dev ? mean : 0.0);
    s += dev ? e * e : e;
  }
  return s;
}

void cpu_norm_stats(const cpu_ctx *c, const float *x, int64_t n, double *mean, double *var) {
  if (cpu_ew_isa()->lanes >= 16) {
    *mean = ln_sum512(x, n, 0, 0.0) / (double)n;
    *var = ln_sum512(x, n, 1, *mean) / (double)n;
  } else if (cpu_ew_isa()->lanes >= 8) {
    *mean = ln_sum256(x, n, 0, 0.0) / (double)n;
    *var = ln_sum256(x, n, 1, *mean) / (double)n;
  } else {
    *mean = cpu_sum_f32(c, x, n) / (double)n;
    *var = cpu_sumsq_dev_f32(c, x, n, *mean) / (double)n;
  }
}

static void ln_range(void *arg, int64_t b, int64_t e) {
  const ln_job *j = arg;
  for (int64_t r = b; r < e; r++) {
    const float *x = j->x + r * j->n;
    double mean, var;
    cpu_norm_stats(j->c, x, j->n, &mean, &var);
    double rstd = ref_nn_opmath_invstd(var, j->eps, TABI_DTYPE_FLOAT32);
    if (j->nt) norm_row_nt(x, j->o + r * j->n, j->n, mean, (float)rstd, j->w, j->b);
    else cpu_norm_row(x, j->o + r * j->n, j->n, mean, (float)rstd, j->w, j->b);
    j->mean[r] = (float)mean;
    j->rstd[r] = (float)rstd;
  }
  if (j->nt) _mm_sfence(); /* the streamed rows are visible before the task ends */
}

/* Streaming stores past the elementwise engine's threshold (16 MB, or
 * TABI_CPU_NT_BYTES): nobody reads the output soon, so the stores skip the
 * read for ownership of each line, a third of the traffic. AVX-512, aligned
 * rows. */
static int ln_nt(const float *o, int64_t m, int64_t n) {
  return cpu_ew_isa()->lanes >= 16 && n % 16 == 0 && ((uintptr_t)o & 63) == 0 &&
         m * n * (int64_t)sizeof(float) >= cpu_ew_nt_bytes();
}

static const float *opt_f32(const tabi_value *v, int64_t n, int *ok) {
  if (v->tag == TABI_TAG_NONE) return NULL;
  const tabi_tensor *t = v->u.t;
  if (v->tag != TABI_TAG_TENSOR || tabi_tensor_dtype(t) != TABI_DTYPE_FLOAT32 || !cpu_contig(t) ||
      tabi_tensor_numel(t) != n)
    *ok = 0;
  return *ok ? tabi_tensor_data(t) : NULL;
}

tabi_status cpu_k_layer_norm(void *ctx, const tabi_call *call, tabi_value *args,
                             tabi_value *outs) {
  const cpu_ctx *c = ctx;
  const tabi_value *ns = &args[1];
  if (args[0].tag != TABI_TAG_TENSOR || ns->tag != TABI_TAG_INT_LIST || !cpu_ln_params_ok(args))
    return CPU_FALLBACK(c, LAYER_NORM); /* the reference refuses with ATen's message */
  const tabi_tensor *t = args[0].u.t;
  int32_t nd = t->dl.ndim, k = (int32_t)ns->u.list.len;
  tabi_status mst = TABI_OK;
  if (tabi_tensor_dtype(t) != TABI_DTYPE_FLOAT32 && cpu_layer_norm_more(c, args, outs, &mst)) return mst;
  if (tabi_tensor_dtype(t) != TABI_DTYPE_FLOAT32 || !cpu_contig(t) || k < 1 || k > nd || nd > 16)
    return CPU_FALLBACK(c, LAYER_NORM);
  int32_t axis = nd - k;
  int64_t n = 1, m = 1;
  for (int32_t i = 0; i < k; i++) {
    if (tabi_value_ints(ns)[i] != t->dl.shape[axis + i]) return CPU_FALLBACK(c, LAYER_NORM);
    n *= t->dl.shape[axis + i];
  }
  for (int32_t i = 0; i < axis; i++) m *= t->dl.shape[i];
  int ok = 1;
  const float *w = opt_f32(&args[2], n, &ok), *b = opt_f32(&args[3], n, &ok);
  if (!ok || n == 0 || m == 0 || args[4].tag != TABI_TAG_FLOAT) return CPU_FALLBACK(c, LAYER_NORM);
  int64_t sshape[16];
  for (int32_t i = 0; i < nd; i++) sshape[i] = i < axis ? t->dl.shape[i] : 1;
  tabi_tensor *o = NULL, *mean = NULL, *rstd = NULL;
  tabi_status st = cpu_empty(c, t, TABI_DTYPE_FLOAT32, nd, t->dl.shape, &o);
  if (st == TABI_OK) st = cpu_empty(c, t, TABI_DTYPE_FLOAT32, nd, sshape, &mean);
  if (st == TABI_OK) st = cpu_empty(c, t, TABI_DTYPE_FLOAT32, nd, sshape, &rstd);
  if (st != TABI_OK) {
    c->host->tensor_release(c->host->ctx, o);
    c->host->tensor_release(c->host->ctx, mean);
    return st;
  }
  ln_job j = {c, tabi_tensor_data(t), w, b, tabi_tensor_data(o), tabi_tensor_data(mean),
              tabi_tensor_data(rstd), n, args[4].u.f, ln_nt(tabi_tensor_data(o), m, n)};
  cpu_parallel_for(c->pool, m, 1 + 16384 / n, ln_range, &j);
  outs[0] = tabi_tensor_value(o);
  outs[1] = tabi_tensor_value(mean);
  outs[2] = tabi_tensor_value(rstd);
  return TABI_OK;
}
