/* plugins/cpu/cpu_norm2.c: the softmax and layer norm cases cpu_norm.c's row
 * kernels do not take (see cpu_norm.h):
 *
 * - _softmax/_log_softmax over a dim with inner elements after it ("columns",
 *   e.g. the channel dim of NCHW), float32/float16/bfloat16: tiles of up to 64
 *   adjacent columns by the whole reduced length, widened to float32; per
 *   column the max (NaN sticks, as in the reference), then exp(x - max) with
 *   cpu_exp8_neg eight columns at a time and the sum in double, added in the
 *   order of the reduced dim (so the result does not depend on the tiling or
 *   the thread count), then one scale (or the log form's shift).
 * - float64 softmax (rows and columns): the reference's formula in double,
 *   threaded.
 * - native_layer_norm for float16/bfloat16 (rows widened to float32, statistics
 *   in double, one rounding) and float64 (double throughout), contiguous, with
 *   weight/bias of the input's dtype or float32 as the reference allows; mean
 *   and rstd in the reference's statistics dtype.
 *
 * Anything else (non-contiguous, 0-d, empty, argument errors) goes back to the
 * caller, which hands it to the reference kernel.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/half.h>

#include "cpu_ew.h"
#include "cpu_math.h"
#include "cpu_norm.h"
#include "cpu_reduce_kern.h"
#include "ref_nn_util.h"

#define TILE 64

static int has_avx2(void) { return cpu_ew_isa()->lanes >= 8; }

/* --- softmax over columns -------------------------------------------------------- */

typedef struct col_job {
  const cpu_ctx *c;
  tabi_dtype dt, odt;
  const char *x;
  char *o;
  int64_t len, inner, tiles; /* tiles per outer index */
  int log, failed;
} col_job;

/* One column (stride TILE in buf) in scalar code: max, sum, result in place. */
static void col_scalar(float *b, int64_t len, int want_log) {
  float m = -INFINITY;
  for (int64_t l = 0; l < len; l++) {
    float v = b[l * TILE];
    if (v > m || isnan(v)) m = isnan(m) ? m : v;
  }
  double s = 0;
  for (int64_t l = 0; l < len; l++) s += (double)cpu_expf(b[l * TILE] - m);
  if (want_log) { /* (x - m) - log(s), as the reference: exact for x == m even when m is huge */
    float ls = (float)log(s);
    for (int64_t l = 0; l < len; l++) b[l * TILE] = (b[l * TILE] - m) - ls;
  } else {
    float sc = (float)(1.0 / s);
    for (int64_t l = 0; l < len; l++) b[l * TILE] = cpu_expf(b[l * TILE] - m) * sc;
  }
}

/* Eight columns at once: the same arithmetic as col_scalar (the sum in double,
 * in the order of l), with the vector exp. */
T256 static void col_avx2(float *b, int64_t len, int want_log) {
  __m256 m = _mm256_set1_ps(-INFINITY), nan = _mm256_setzero_ps();
  for (int64_t l = 0; l < len; l++) {
    __m256 v = _mm256_loadu_ps(b + l * TILE);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    m = _mm256_max_ps(m, v);
  }
  m = _mm256_blendv_ps(m, _mm256_set1_ps(NAN), nan);
  __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
  for (int64_t l = 0; l < len; l++) {
    __m256 e = cpu_exp8_neg(_mm256_sub_ps(_mm256_loadu_ps(b + l * TILE), m));
    if (!want_log) _mm256_storeu_ps(b + l * TILE, e);
    s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(_mm256_castps256_ps128(e)));
    s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(_mm256_extractf128_ps(e, 1)));
  }
  double sd[8];
  float k[8];
  _mm256_storeu_pd(sd, s0);
  _mm256_storeu_pd(sd + 4, s1);
  for (int i = 0; i < 8; i++) k[i] = want_log ? (float)log(sd[i]) : (float)(1.0 / sd[i]);
  __m256 kv = _mm256_loadu_ps(k);
  for (int64_t l = 0; l < len; l++) {
    __m256 v = _mm256_loadu_ps(b + l * TILE);
    _mm256_storeu_ps(b + l * TILE, want_log ? _mm256_sub_ps(_mm256_sub_ps(v, m), kv) : _mm256_mul_ps(v, kv));
  }
}

static void col_range(void *arg, int64_t b, int64_t e) {
  col_job *j = arg;
  float *buf = malloc(sizeof(float) * (size_t)(j->len * TILE));
  if (!buf) {
    j->failed = 1;
    return;
  }
  size_t is = (size_t)tabi_dtype_size(j->dt), os = (size_t)tabi_dtype_size(j->odt);
  int vec = has_avx2();
  for (int64_t t = b; t < e; t++) {
    int64_t outer = t / j->tiles, c0 = (t % j->tiles) * TILE;
    int64_t w = j->inner - c0 < TILE ? j->inner - c0 : TILE;
    int64_t base = outer * j->len * j->inner + c0;
    for (int64_t l = 0; l < j->len; l++) {
      const char *src = j->x + (size_t)(base + l * j->inner) * is;
      if (j->dt == TABI_DTYPE_FLOAT32) memcpy(buf + l * TILE, src, sizeof(float) * (size_t)w);
      else cpu_to_f32(j->c, j->dt, src, buf + l * TILE, w);
    }
    int64_t col = 0;
    if (vec)
      for (; col + 8 <= w; col += 8) col_avx2(buf + col, j->len, j->log);
    for (; col < w; col++) col_scalar(buf + col, j->len, j->log);
    for (int64_t l = 0; l < j->len; l++) {
      char *dst = j->o + (size_t)(base + l * j->inner) * os;
      if (j->odt == TABI_DTYPE_FLOAT32) memcpy(dst, buf + l * TILE, sizeof(float) * (size_t)w);
      else cpu_from_f32(j->c, j->odt, buf + l * TILE, dst, w);
    }
  }
  free(buf);
}

/* --- float64 softmax: the reference's formula --------------------------------------- */

typedef struct f64_job {
  const double *x;
  double *o;
  int64_t len, inner;
  int log;
} f64_job;

static void f64_range(void *arg, int64_t b, int64_t e) {
  const f64_job *j = arg;
  for (int64_t t = b; t < e; t++) { /* t: outer * inner + column */
    int64_t outer = t / j->inner, col = t % j->inner, st = j->inner;
    const double *x = j->x + outer * j->len * st + col;
    double *o = j->o + outer * j->len * st + col;
    double mx = -INFINITY, sum = 0;
    for (int64_t i = 0; i < j->len; i++) {
      double v = x[i * st];
      if (v > mx || isnan(v)) mx = isnan(mx) ? mx : v;
    }
    for (int64_t i = 0; i < j->len; i++) sum += exp(x[i * st] - mx);
    double ls = j->log ? log(sum) : 0;
    for (int64_t i = 0; i < j->len; i++) {
      double v = x[i * st] - mx;
      o[i * st] = j->log ? v - ls : exp(v) / sum;
    }
  }
}

int cpu_softmax_more(const cpu_ctx *c, tabi_value *args, tabi_value *outs, int want_log, tabi_status *st) {
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_INT || args[2].tag != TABI_TAG_BOOL) return 0;
  const tabi_tensor *t = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(t), odt = dt;
  int32_t nd = t->dl.ndim, d = cpu_wrap_dim(args[1].u.i, nd);
  if (nd < 1 || d < 0 || !cpu_contig(t) || tabi_tensor_numel(t) == 0) return 0;
  if (!cpu_is_fast_float(dt) && dt != TABI_DTYPE_FLOAT64) return 0;
  if (args[2].u.i) {
    if (dt != TABI_DTYPE_FLOAT16) return 0; /* the reference's error */
    odt = TABI_DTYPE_FLOAT32;
  }
  int64_t len = t->dl.shape[d], inner = 1, outer = 1;
  for (int32_t i = d + 1; i < nd; i++) inner *= t->dl.shape[i];
  for (int32_t i = 0; i < d; i++) outer *= t->dl.shape[i];
  tabi_tensor *o = NULL;
  if ((*st = cpu_empty(c, t, odt, nd, t->dl.shape, &o)) != TABI_OK) return 1;
  int failed = 0;
  if (dt == TABI_DTYPE_FLOAT64) {
    f64_job j = {tabi_tensor_data(t), tabi_tensor_data(o), len, inner, want_log};
    cpu_parallel_for(c->pool, outer * inner, 1 + 16384 / len, f64_range, &j);
  } else {
    col_job j = {c, dt, odt, tabi_tensor_data(t), tabi_tensor_data(o), len, inner,
                 (inner + TILE - 1) / TILE, want_log, 0};
    cpu_parallel_for(c->pool, outer * j.tiles, 1 + 4096 / (len * TILE), col_range, &j);
    failed = j.failed;
  }
  if (failed) {
    c->host->tensor_release(c->host->ctx, o);
    *st = TABI_ERR(c->host, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory",
                   want_log ? "aten::_log_softmax" : "aten::_softmax");
    return 1;
  }
  outs[0] = tabi_tensor_value(o);
  return 1;
}

/* --- layer norm in float16/bfloat16 and float64 --------------------------------------- */

typedef struct ln_job {
  const cpu_ctx *c;
  tabi_dtype dt, sdt;
  const char *x;
  char *o, *mean, *rstd;
  const float *w, *b;   /* half types: parameters as float32 (or NULL) */
  const double *wd, *bd; /* float64 */
  int64_t n;
  double eps;
  int failed;
} ln_job;

static void store_stat(tabi_dtype dt, char *p, int64_t i, double v) {
  switch (dt) {
    case TABI_DTYPE_FLOAT64: ((double *)(void *)p)[i] = v; break;
    case TABI_DTYPE_FLOAT32: ((float *)(void *)p)[i] = (float)v; break;
    case TABI_DTYPE_FLOAT16: ((uint16_t *)(void *)p)[i] = tabi_f32_to_f16((float)v); break;
    default: ((uint16_t *)(void *)p)[i] = tabi_f32_to_bf16((float)v); break;
  }
}

static void ln_range(void *arg, int64_t b, int64_t e) {
  ln_job *j = arg;
  int64_t n = j->n;
  if (j->dt == TABI_DTYPE_FLOAT64) { /* the reference's formula and order */
    for (int64_t r = b; r < e; r++) {
      const double *x = (const double *)(const void *)j->x + r * n;
      double *o = (double *)(void *)j->o + r * n, mu = 0, var = 0;
      for (int64_t i = 0; i < n; i++) mu += x[i];
      mu /= (double)n;
      for (int64_t i = 0; i < n; i++) var += (x[i] - mu) * (x[i] - mu);
      double rs = ref_nn_opmath_invstd(var / (double)n, j->eps, TABI_DTYPE_FLOAT64);
      for (int64_t i = 0; i < n; i++) o[i] = (x[i] - mu) * rs * (j->wd ? j->wd[i] : 1) + (j->bd ? j->bd[i] : 0);
      store_stat(j->sdt, j->mean, r, mu);
      store_stat(j->sdt, j->rstd, r, rs);
    }
    return;
  }
  float *buf = malloc(sizeof(float) * 2 * (size_t)n);
  if (!buf) {
    j->failed = 1;
    return;
  }
  for (int64_t r = b; r < e; r++) {
    cpu_to_f32(j->c, j->dt, j->x + 2 * r * n, buf, n);
    double mu, var;
    cpu_norm_stats(j->c, buf, n, &mu, &var);
    double rs = ref_nn_opmath_invstd(var, j->eps, j->dt);
    cpu_norm_row(buf, buf + n, n, mu, (float)rs, j->w, j->b);
    cpu_from_f32(j->c, j->dt, buf + n, j->o + 2 * r * n, n);
    store_stat(j->sdt, j->mean, r, mu);
    store_stat(j->sdt, j->rstd, r, rs);
  }
  free(buf);
}

/* weight/bias: none, or contiguous with n elements of dtype dt or (half dt)
 * float32; *mixed set when float32 beside a half input. 0: not taken. */
static int param_ok(const tabi_value *v, int64_t n, tabi_dtype dt, int *mixed) {
  if (v->tag == TABI_TAG_NONE) return 1;
  if (v->tag != TABI_TAG_TENSOR || !cpu_contig(v->u.t) || tabi_tensor_numel(v->u.t) != n) return 0;
  tabi_dtype pd = tabi_tensor_dtype(v->u.t);
  if (pd == dt) return 1;
  if (pd == TABI_DTYPE_FLOAT32 && dt != TABI_DTYPE_FLOAT64) return *mixed = 1;
  return 0;
}

/* A half-type parameter as float32 in *tmp (or its own data when float32). */
static const float *param_f32(const cpu_ctx *c, const tabi_value *v, int64_t n, tabi_tensor **tmp) {
  *tmp = NULL;
  if (v->tag == TABI_TAG_NONE) return NULL;
  const tabi_tensor *t = v->u.t;
  if (tabi_tensor_dtype(t) == TABI_DTYPE_FLOAT32) return tabi_tensor_data(t);
  if (cpu_empty(c, t, TABI_DTYPE_FLOAT32, 1, &n, tmp) != TABI_OK) return NULL;
  cpu_to_f32(c, tabi_tensor_dtype(t), tabi_tensor_data(t), tabi_tensor_data(*tmp), n);
  return tabi_tensor_data(*tmp);
}

int cpu_ln_params_ok(const tabi_value *args) {
  const tabi_value *ns = &args[1];
  for (int p = 2; p <= 3; p++) {
    if (args[p].tag != TABI_TAG_TENSOR) continue;
    const tabi_tensor *w = args[p].u.t;
    if (w->dl.ndim != ns->u.list.len) return 0;
    for (int32_t i = 0; i < w->dl.ndim; i++)
      if (w->dl.shape[i] != tabi_value_ints(ns)[i]) return 0;
  }
  return 1;
}

int cpu_layer_norm_more(const cpu_ctx *c, tabi_value *args, tabi_value *outs, tabi_status *st) {
  const tabi_value *ns = &args[1];
  if (args[0].tag != TABI_TAG_TENSOR || ns->tag != TABI_TAG_INT_LIST || args[4].tag != TABI_TAG_FLOAT ||
      !cpu_ln_params_ok(args))
    return 0;
  const tabi_tensor *t = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(t);
  int32_t nd = t->dl.ndim, k = (int32_t)ns->u.list.len;
  if ((dt != TABI_DTYPE_FLOAT16 && dt != TABI_DTYPE_BFLOAT16 && dt != TABI_DTYPE_FLOAT64) ||
      !cpu_contig(t) || k < 1 || k > nd || nd > 16)
    return 0;
  int32_t axis = nd - k;
  int64_t n = 1, m = 1;
  for (int32_t i = 0; i < k; i++) {
    if (tabi_value_ints(ns)[i] != t->dl.shape[axis + i]) return 0;
    n *= t->dl.shape[axis + i];
  }
  for (int32_t i = 0; i < axis; i++) m *= t->dl.shape[i];
  int mixed = 0;
  if (n == 0 || m == 0 || !param_ok(&args[2], n, dt, &mixed) || !param_ok(&args[3], n, dt, &mixed)) return 0;
  tabi_dtype sdt = mixed ? TABI_DTYPE_FLOAT32 : dt;
  int64_t sshape[16];
  for (int32_t i = 0; i < nd; i++) sshape[i] = i < axis ? t->dl.shape[i] : 1;
  tabi_tensor *o = NULL, *mean = NULL, *rstd = NULL, *tw = NULL, *tb = NULL;
  ln_job j = {c, dt, sdt, tabi_tensor_data(t), NULL, NULL, NULL, NULL, NULL, NULL, NULL, n, args[4].u.f, 0};
  *st = cpu_empty(c, t, dt, nd, t->dl.shape, &o);
  if (*st == TABI_OK) *st = cpu_empty(c, t, sdt, nd, sshape, &mean);
  if (*st == TABI_OK) *st = cpu_empty(c, t, sdt, nd, sshape, &rstd);
  if (*st == TABI_OK && dt == TABI_DTYPE_FLOAT64) {
    j.wd = args[2].tag == TABI_TAG_TENSOR ? tabi_tensor_data(args[2].u.t) : NULL;
    j.bd = args[3].tag == TABI_TAG_TENSOR ? tabi_tensor_data(args[3].u.t) : NULL;
  } else if (*st == TABI_OK) {
    j.w = param_f32(c, &args[2], n, &tw);
    j.b = param_f32(c, &args[3], n, &tb);
    if ((args[2].tag == TABI_TAG_TENSOR && !j.w) || (args[3].tag == TABI_TAG_TENSOR && !j.b))
      *st = TABI_ERR(c->host, TABI_ERR_OUT_OF_MEMORY, "aten::native_layer_norm: out of memory");
  }
  if (*st == TABI_OK) {
    j.o = tabi_tensor_data(o);
    j.mean = tabi_tensor_data(mean);
    j.rstd = tabi_tensor_data(rstd);
    cpu_parallel_for(c->pool, m, 1 + 16384 / n, ln_range, &j);
    if (j.failed) *st = TABI_ERR(c->host, TABI_ERR_OUT_OF_MEMORY, "aten::native_layer_norm: out of memory");
  }
  c->host->tensor_release(c->host->ctx, tw);
  c->host->tensor_release(c->host->ctx, tb);
  if (*st != TABI_OK) {
    c->host->tensor_release(c->host->ctx, o);
    c->host->tensor_release(c->host->ctx, mean);
    c->host->tensor_release(c->host->ctx, rstd);
    return 1;
  }
  outs[0] = tabi_tensor_value(o);
  outs[1] = tabi_tensor_value(mean);
  outs[2] = tabi_tensor_value(rstd);
  return 1;
}
