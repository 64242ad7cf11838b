/* plugins/cpu/cpu_fft_ops.c: aten::_fft_r2c over the last dim of a contiguous
 * float32/float64 tensor, with the plugin's FFT (cpu_fft.c) in double.
 *
 * An even length n is done as a complex FFT of length n/2 on the interleaved
 * pairs, split into the even and odd halves' spectra afterwards (half the
 * work); an odd length runs the full complex FFT. Many rows: one row per task;
 * one row: the FFT's own passes are split over the pool. Multi-dim transforms
 * and other layouts run the reference kernel.
 */
#include <math.h>
#include <stdlib.h>

#include "cpu.h"
#include "cpu_fft.h"

typedef struct r2c_job {
  const cpu_fft_plan *plan; /* length h (even n) or n */
  const cpu_cplx *post;     /* e^{-2 pi i k/n}, k <= n/2 (even n) */
  const char *x;
  char *out;
  int64_t n, olen;
  int f64, onesided;
  double scale;
  cpu_pool *inner; /* pool for the passes of a single row, else NULL */
  int failed;
} r2c_job;

static void r2c_row(const r2c_job *j, const char *xrow, char *orow, cpu_cplx *buf, cpu_cplx *scr) {
  int64_t n = j->n, half = n / 2;
  const float *xf = (const float *)(const void *)xrow;
  const double *xd = (const double *)(const void *)xrow;
  cpu_cplx *X = buf + n; /* n + 1 outputs */
  if (n % 2 == 0) {
    for (int64_t k = 0; k < half; k++)
      buf[k] = j->f64 ? xd[2 * k] + I * xd[2 * k + 1] : (double)xf[2 * k] + I * (double)xf[2 * k + 1];
    cpu_fft_forward(j->plan, j->inner, buf, buf, scr);
    for (int64_t k = 0; k <= half; k++) {
      cpu_cplx zk = buf[k % half], zc = conj(buf[(half - k) % half]);
      cpu_cplx e = 0.5 * (zk + zc), o = -0.5 * I * (zk - zc);
      X[k] = e + j->post[k] * o;
    }
  } else {
    for (int64_t k = 0; k < n; k++) buf[k] = j->f64 ? xd[k] : (double)xf[k];
    cpu_fft_forward(j->plan, j->inner, buf, buf, scr);
    for (int64_t k = 0; k <= half; k++) X[k] = buf[k];
  }
  for (int64_t k = 0; k < j->olen; k++) {
    cpu_cplx v = k <= half ? X[k] : conj(X[n - k]);
    v *= j->scale;
    if (j->f64) {
      ((double *)(void *)orow)[2 * k] = creal(v);
      ((double *)(void *)orow)[2 * k + 1] = cimag(v);
    } else {
      ((float *)(void *)orow)[2 * k] = (float)creal(v);
      ((float *)(void *)orow)[2 * k + 1] = (float)cimag(v);
    }
  }
}

static void r2c_range(void *arg, int64_t b, int64_t e) {
  r2c_job *j = arg;
  int64_t nbuf = 2 * j->n + 2, nscr = cpu_fft_scratch(j->plan);
  cpu_cplx *buf = malloc(sizeof(cpu_cplx) * (size_t)(nbuf + nscr));
  if (!buf) { j->failed = 1; return; }
  int64_t es = j->f64 ? 8 : 4;
  for (int64_t r = b; r < e; r++)
    r2c_row(j, j->x + r * j->n * es, j->out + r * j->olen * 2 * es, buf, buf + nbuf);
  free(buf);
}

tabi_status cpu_k_fft_r2c(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_INT_LIST ||
      args[1].u.list.len != 1 || args[2].tag != TABI_TAG_INT || args[3].tag != TABI_TAG_BOOL)
    return CPU_FALLBACK(c, FFT_R2C);
  const tabi_tensor *t = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(t);
  int32_t nd = t->dl.ndim;
  int64_t norm = args[2].u.i;
  if ((dt != TABI_DTYPE_FLOAT32 && dt != TABI_DTYPE_FLOAT64) || nd < 1 || nd > 16 ||
      !cpu_contig(t) || cpu_wrap_dim(tabi_value_ints(&args[1])[0], nd) != nd - 1 ||
      tabi_tensor_numel(t) == 0 || norm < 0 || norm > 2)
    return CPU_FALLBACK(c, FFT_R2C);
  int64_t n = t->dl.shape[nd - 1], rows = tabi_tensor_numel(t) / n;
  int onesided = (int)args[3].u.i;
  int64_t olen = onesided ? n / 2 + 1 : n, shape[16];
  for (int32_t d = 0; d < nd; d++) shape[d] = t->dl.shape[d];
  shape[nd - 1] = olen;
  int f64 = dt == TABI_DTYPE_FLOAT64;
  tabi_tensor *o = NULL;
  tabi_status st = cpu_empty(c, t, f64 ? TABI_DTYPE_COMPLEX128 : TABI_DTYPE_COMPLEX64, nd, shape, &o);
  if (st != TABI_OK) return st;
  int64_t flen = n % 2 == 0 ? n / 2 : n;
  cpu_fft_plan *plan = flen >= 1 ? cpu_fft_plan_create(flen) : NULL;
  cpu_cplx *post = malloc(sizeof(cpu_cplx) * (size_t)(n / 2 + 1));
  if (!plan || !post) {
    cpu_fft_plan_destroy(plan);
    free(post);
    c->host->tensor_release(c->host->ctx, o);
    return TABI_ERR(c->host, TABI_ERR_OUT_OF_MEMORY, "aten::_fft_r2c: out of memory for length %lld",
                    (long long)n);
  }
  cpu_fft_twiddles(post, n, n / 2 + 1);
  double scale = norm == 0 ? 1.0 : norm == 1 ? 1.0 / sqrt((double)n) : 1.0 / (double)n;
  r2c_job j = {plan, post, tabi_tensor_data(t), tabi_tensor_data(o), n, olen, f64, onesided, scale,
               NULL, 0};
  if (rows >= c->nthreads || n < 65536) {
    cpu_parallel_for(c->pool, rows, 1 + 65536 / n, r2c_range, &j);
  } else {
    j.inner = c->pool;
    r2c_range(&j, 0, rows);
  }
  cpu_fft_plan_destroy(plan);
  free(post);
  if (j.failed) {
    c->host->tensor_release(c->host->ctx, o);
    return TABI_ERR(c->host, TABI_ERR_OUT_OF_MEMORY, "aten::_fft_r2c: out of memory");
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}
