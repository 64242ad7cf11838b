/* plugins/cpu/cpu_nn_norm_bwd.c: native_layer_norm_backward for contiguous
 * float32 (input, grad_out, mean, rstd, weight/bias float32 or None).
 *
 * Per row (one row per task): s1 = sum(dy*w), s2 = sum(dy*w*xhat) in double,
 * dx = rstd * (dy*w - s1/N - xhat*s2/N) in double, rounded once, as the
 * reference computes it. grad_weight/grad_bias are column sums over the rows:
 * rows are cut into chunks of a size that depends only on M (never on the
 * thread count), each chunk sums its rows in order into its own double row,
 * and the chunk rows are added in chunk order: deterministic at every thread
 * count. Everything else runs the reference kernel.
 */
#include <stdlib.h>

#include "cpu.h"
#include "cpu_clones.h"

#define CLONES CPU_CLONES_V3

typedef struct lnb_job {
  const float *dy, *x, *mean, *rstd, *w;
  float *dx;
  double *part_g, *part_b; /* [chunks][n], NULL when not wanted */
  int64_t m, n, chunk;
} lnb_job;

CLONES static void acc_cols(double *g, double *b, const float *dy, const float *x, double mu,
                            double rs, int64_t n) {
  if (g)
    for (int64_t j = 0; j < n; j++) g[j] += (double)dy[j] * (((double)x[j] - mu) * rs);
  if (b)
    for (int64_t j = 0; j < n; j++) b[j] += (double)dy[j];
}

CLONES static void row_dx(float *dx, const float *dy, const float *x, const float *w, double mu,
                          double rs, int64_t n) {
  double s1 = 0, s2 = 0;
  for (int64_t j = 0; j < n; j++) {
    double dyw = (double)dy[j] * (w ? (double)w[j] : 1.0);
    s1 += dyw;
    s2 += dyw * (((double)x[j] - mu) * rs);
  }
  double a = s1 / (double)n, c = s2 / (double)n;
  for (int64_t j = 0; j < n; j++) {
    double dyw = (double)dy[j] * (w ? (double)w[j] : 1.0);
    dx[j] = (float)(rs * (dyw - a - (((double)x[j] - mu) * rs) * c));
  }
}

static void lnb_range(void *arg, int64_t cb, int64_t ce) {
  const lnb_job *j = arg;
  for (int64_t ch = cb; ch < ce; ch++) {
    double *g = j->part_g ? j->part_g + ch * j->n : NULL;
    double *b = j->part_b ? j->part_b + ch * j->n : NULL;
    for (int64_t q = 0; q < j->n; q++) {
      if (g) g[q] = 0;
      if (b) b[q] = 0;
    }
    int64_t r1 = (ch + 1) * j->chunk < j->m ? (ch + 1) * j->chunk : j->m;
    for (int64_t r = ch * j->chunk; r < r1; r++) {
      const float *dy = j->dy + r * j->n, *x = j->x + r * j->n;
      double mu = j->mean[r], rs = j->rstd[r];
      if (j->dx) row_dx(j->dx + r * j->n, dy, x, j->w, mu, rs, j->n);
      if (g || b) acc_cols(g, b, dy, x, mu, rs, j->n);
    }
  }
}

typedef struct col_job {
  const double *part;
  float *out;
  int64_t chunks, n;
} col_job;

static void col_range(void *arg, int64_t b, int64_t e) {
  const col_job *j = arg;
  for (int64_t q = b; q < e; q++) {
    double s = 0;
    for (int64_t ch = 0; ch < j->chunks; ch++) s += j->part[ch * j->n + q];
    j->out[q] = (float)s;
  }
}

static int f32_contig(const tabi_value *v) {
  return v->tag == TABI_TAG_TENSOR && tabi_tensor_dtype(v->u.t) == TABI_DTYPE_FLOAT32 &&
         cpu_contig(v->u.t);
}

tabi_status cpu_k_layer_norm_bwd(void *ctx, const tabi_call *call, tabi_value *args,
                                 tabi_value *outs) {
  const cpu_ctx *c = ctx;
  /* grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask */
  if (!f32_contig(&args[0]) || !f32_contig(&args[1]) || !f32_contig(&args[3]) ||
      !f32_contig(&args[4]) || args[2].tag != TABI_TAG_INT_LIST ||
      args[7].tag != TABI_TAG_BOOL_LIST || args[7].u.list.len != 3)
    return CPU_FALLBACK(c, LAYER_NORM_BWD);
  const tabi_tensor *dy = args[0].u.t, *x = args[1].u.t;
  int32_t nd = x->dl.ndim, k = (int32_t)args[2].u.list.len, axis = nd - k;
  if (!cpu_same_shape(dy, x) || k < 1 || k > nd) return CPU_FALLBACK(c, LAYER_NORM_BWD);
  const int64_t *ns = tabi_value_ints(&args[2]);
  int64_t n = 1, m = 1;
  for (int32_t i = 0; i < k; i++) {
    if (ns[i] != x->dl.shape[axis + i]) return CPU_FALLBACK(c, LAYER_NORM_BWD);
    n *= ns[i];
  }
  for (int32_t i = 0; i < axis; i++) m *= x->dl.shape[i];
  if (n == 0 || m == 0 || tabi_tensor_numel(args[3].u.t) != m ||
      tabi_tensor_numel(args[4].u.t) != m)
    return CPU_FALLBACK(c, LAYER_NORM_BWD);
  /* weight/bias: None, or float32 of normalized_shape */
  for (int p = 5; p <= 6; p++) {
    if (args[p].tag == TABI_TAG_NONE) continue;
    if (!f32_contig(&args[p]) || args[p].u.t->dl.ndim != k) return CPU_FALLBACK(c, LAYER_NORM_BWD);
    for (int32_t i = 0; i < k; i++)
      if (args[p].u.t->dl.shape[i] != ns[i]) return CPU_FALLBACK(c, LAYER_NORM_BWD);
  }
  const int64_t *mask = tabi_value_ints(&args[7]);
  tabi_tensor *o[3] = {NULL, NULL, NULL};
  tabi_status st = TABI_OK;
  if (mask[0]) st = cpu_empty(c, x, TABI_DTYPE_FLOAT32, nd, x->dl.shape, &o[0]);
  for (int i = 1; i < 3 && st == TABI_OK; i++)
    if (mask[i]) st = cpu_empty(c, x, TABI_DTYPE_FLOAT32, k, ns, &o[i]);
  /* chunks of at least 16 rows, at most 256 chunks: a function of m only */
  int64_t chunk = m / 256 + 1 > 16 ? m / 256 + 1 : 16;
  int64_t chunks = (m + chunk - 1) / chunk;
  double *part = NULL;
  if (st == TABI_OK && (mask[1] || mask[2])) {
    part = malloc(sizeof(double) * (size_t)(2 * chunks * n));
    if (!part) st = TABI_ERR(c->host, TABI_ERR_OUT_OF_MEMORY, "aten::native_layer_norm_backward: out of memory");
  }
  if (st != TABI_OK) {
    for (int i = 0; i < 3; i++) c->host->tensor_release(c->host->ctx, o[i]);
    return st;
  }
  lnb_job j = {tabi_tensor_data(dy), tabi_tensor_data(x), tabi_tensor_data(args[3].u.t),
               tabi_tensor_data(args[4].u.t),
               args[5].tag == TABI_TAG_TENSOR ? tabi_tensor_data(args[5].u.t) : NULL,
               o[0] ? tabi_tensor_data(o[0]) : NULL, mask[1] ? part : NULL,
               mask[2] ? part + chunks * n : NULL, m, n, chunk};
  cpu_parallel_for(c->pool, chunks, 1, lnb_range, &j);
  for (int i = 1; i < 3; i++) {
    if (!o[i]) continue;
    col_job cj = {i == 1 ? j.part_g : j.part_b, tabi_tensor_data(o[i]), chunks, n};
    cpu_parallel_for(c->pool, n, 1 + 65536 / chunks, col_range, &cj);
  }
  free(part);
  for (int i = 0; i < 3; i++) outs[i] = o[i] ? tabi_tensor_value(o[i]) : tabi_none();
  return TABI_OK;
}
