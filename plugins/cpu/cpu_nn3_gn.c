/* plugins/cpu/cpu_nn3_gn.c: native_group_norm and native_group_norm_backward
 * for contiguous [N, C, *] float32/float64/float16/bfloat16 inputs.
 *
 * Semantics are the reference's (reference/ref_nn3.c): statistics in double,
 * two passes (mean, then the biased variance about it), rstd = 1/sqrt(var +
 * eps); parameters of the input's dtype, or float32 with a float16/bfloat16
 * input (then float32 statistics). Per-channel and per-group scalars go through
 * ref_load_f / ref_store_f so they round exactly as the reference's do.
 *
 * Every group (n, g) is D*HxW contiguous elements and one task on the pool.
 * Elements are converted in chunks to double (one code path for all four
 * dtypes; the chunk stays in L1), computed in double as the reference does and
 * rounded once on the way out. Backward: per channel, db = sum dy and
 * dxm = sum dy*(x - mean) (exact reformulation of the reference's sums of
 * dy*xhat: xhat = (x - mean)*rstd); dx = rstd*(dy*w - s1/cnt - xhat*s2/cnt).
 * grad_weight/grad_bias are per-(n, c) partials added over n in order after
 * the parallel part, so results never depend on the thread count.
 *
 * A strided input (channels-last, a transposed view) or grad_out is first
 * copied contiguous. Anything else (shapes the reference refuses, other
 * parameter dtypes, empty tensors) runs the reference kernel.
 */
#include <math.h>
#include <stdlib.h>

#include "cpu_nn3.h"
#include "ref_nn_util.h"
#include "ref.h"
#include "cpu_clones.h"

#define GN_CHUNK CPU_NN3_CHUNK

static const tabi_tensor *opt_t(const tabi_value *v) { return v->tag == TABI_TAG_TENSOR ? v->u.t : NULL; }

/* sum (mu ignored, sq = 0) or sum of squared deviations from mu (sq = 1);
 * 4 accumulators in a fixed order. */
static double gn_sum(const double *p, int64_t n, double mu, int sq) {
  double a[4] = {0, 0, 0, 0}, s = 0;
  int64_t i = 0;
  if (sq) {
    for (; i + 4 <= n; i += 4)
      for (int k = 0; k < 4; k++) a[k] += (p[i + k] - mu) * (p[i + k] - mu);
    for (; i < n; i++) s += (p[i] - mu) * (p[i] - mu);
  } else {
    for (; i + 4 <= n; i += 4)
      for (int k = 0; k < 4; k++) a[k] += p[i + k];
    for (; i < n; i++) s += p[i];
  }
  return s + (a[0] + a[1]) + (a[2] + a[3]);
}

/* Direct loops for float32 and float64 (no chunk copy): the hot path. Built
 * for AVX-512 and AVX2 as well as baseline x86-64 (runtime dispatch). */
#define CLONES CPU_CLONES_V4V3

#define GN_TYPED(T)                                                                                 \
  CLONES static double gn_sum_##T(const T *p, int64_t n, double mu, int sq) {                      \
    double a[8] = {0, 0, 0, 0, 0, 0, 0, 0}, s = 0;                                                  \
    int64_t i = 0;                                                                                  \
    if (sq) {                                                                                       \
      for (; i + 8 <= n; i += 8)                                                                    \
        for (int k = 0; k < 8; k++) a[k] += ((double)p[i + k] - mu) * ((double)p[i + k] - mu);     \
      for (; i < n; i++) s += ((double)p[i] - mu) * ((double)p[i] - mu);                            \
    } else {                                                                                        \
      for (; i + 8 <= n; i += 8)                                                                    \
        for (int k = 0; k < 8; k++) a[k] += (double)p[i + k];                                       \
      for (; i < n; i++) s += (double)p[i];                                                         \
    }                                                                                               \
    return s + ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));                  \
  }                                                                                                 \
  CLONES static void gn_norm_##T(const T *x, T *y, int64_t n, double mu, double rs, double wc,     \
                                 double bc) {                                                       \
    for (int64_t i = 0; i < n; i++) y[i] = (T)((((double)x[i] - mu) * rs) * wc + bc);              \
  }                                                                                                 \
  /* sums of dy and dy*(x - mu) */                                                                  \
  CLONES static void gn_bsum_##T(const T *x, const T *dy, int64_t n, double mu, double *sdb,       \
                                 double *sdx) {                                                     \
    double a[8] = {0, 0, 0, 0, 0, 0, 0, 0}, e[8] = {0, 0, 0, 0, 0, 0, 0, 0}, s = 0, t = 0;         \
    int64_t i = 0;                                                                                  \
    for (; i + 8 <= n; i += 8)                                                                      \
      for (int k = 0; k < 8; k++) {                                                                 \
        a[k] += (double)dy[i + k];                                                                  \
        e[k] += (double)dy[i + k] * ((double)x[i + k] - mu);                                        \
      }                                                                                             \
    for (; i < n; i++) {                                                                            \
      s += (double)dy[i];                                                                           \
      t += (double)dy[i] * ((double)x[i] - mu);                                                     \
    }                                                                                               \
    *sdb = s + ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));                  \
    *sdx = t + ((e[0] + e[1]) + (e[2] + e[3])) + ((e[4] + e[5]) + (e[6] + e[7]));                  \
  }                                                                                                 \
  CLONES static void gn_bdx_##T(const T *x, const T *dy, T *dx, int64_t n, double mu, double rs,   \
                                double wc, double A, double B) {                                    \
    /* rs*(dy*wc - A - (x - mu)*rs*B) with the per-channel factors folded */                       \
    double k1 = rs * wc, k2 = -rs * rs * B, k3 = -rs * A;                                           \
    for (int64_t i = 0; i < n; i++) dx[i] = (T)((double)dy[i] * k1 + ((double)x[i] - mu) * k2 + k3); \
  }
GN_TYPED(float)
GN_TYPED(double)

/* --- forward ------------------------------------------------------------------ */

typedef struct gn_job {
  const cpu_ctx *c;
  tabi_dtype dt;
  int64_t C, HxW, G, D;
  const char *x;
  char *y;
  const tabi_tensor *w, *b;
  tabi_tensor *mean, *rstd;
  double eps;
} gn_job;

static void gn_range(void *arg, int64_t rb, int64_t re) {
  const gn_job *j = arg;
  int64_t es = cpu_nn3_esize(j->dt), cnt = j->D * j->HxW;
  double buf[GN_CHUNK];
  for (int64_t r = rb; r < re; r++) {
    const char *x = j->x + r * cnt * es;
    char *y = j->y + r * cnt * es;
    double sum = 0, var = 0;
    if (j->dt == TABI_DTYPE_FLOAT32 || j->dt == TABI_DTYPE_FLOAT64) {
      int f = j->dt == TABI_DTYPE_FLOAT32;
      double mu = cnt == 0 ? 0 /* an empty group's mean is 0, as the reference's */
                           : (f ? gn_sum_float((const float *)x, cnt, 0, 0) : gn_sum_double((const double *)x, cnt, 0, 0)) /
                                 (double)cnt;
      var = f ? gn_sum_float((const float *)x, cnt, mu, 1) : gn_sum_double((const double *)x, cnt, mu, 1);
      double rs = ref_nn_opmath_invstd(var / (double)cnt, j->eps, j->dt);
      ref_store_f(j->mean, r, mu);
      ref_store_f(j->rstd, r, rs);
      for (int64_t d = 0; d < j->D; d++) {
        int64_t ch = (r % j->G) * j->D + d, o = d * j->HxW;
        double wc = j->w ? ref_load_f(j->w, ch * j->w->dl.strides[0]) : 1;
        double bc = j->b ? ref_load_f(j->b, ch * j->b->dl.strides[0]) : 0;
        if (f) gn_norm_float((const float *)x + o, (float *)y + o, j->HxW, mu, rs, wc, bc);
        else gn_norm_double((const double *)x + o, (double *)y + o, j->HxW, mu, rs, wc, bc);
      }
      continue;
    }
    for (int64_t i = 0; i < cnt; i += GN_CHUNK) {
      int64_t m = cnt - i < GN_CHUNK ? cnt - i : GN_CHUNK;
      cpu_nn3_load(j->c, j->dt, x + i * es, 1, buf, m);
      sum += gn_sum(buf, m, 0, 0);
    }
    double mu = cnt > 0 ? sum / (double)cnt : 0;
    for (int64_t i = 0; i < cnt; i += GN_CHUNK) {
      int64_t m = cnt - i < GN_CHUNK ? cnt - i : GN_CHUNK;
      cpu_nn3_load(j->c, j->dt, x + i * es, 1, buf, m);
      var += gn_sum(buf, m, mu, 1);
    }
    double rs = ref_nn_opmath_invstd(var / (double)cnt, j->eps, j->dt);
    ref_store_f(j->mean, r, mu);
    ref_store_f(j->rstd, r, rs);
    for (int64_t d = 0; d < j->D; d++) {
      int64_t ch = (r % j->G) * j->D + d;
      double wc = j->w ? ref_load_f(j->w, ch * j->w->dl.strides[0]) : 1;
      double bc = j->b ? ref_load_f(j->b, ch * j->b->dl.strides[0]) : 0;
      const char *xc = x + d * j->HxW * es;
      char *yc = y + d * j->HxW * es;
      for (int64_t i = 0; i < j->HxW; i += GN_CHUNK) {
        int64_t m = j->HxW - i < GN_CHUNK ? j->HxW - i : GN_CHUNK;
        cpu_nn3_load(j->c, j->dt, xc + i * es, 1, buf, m);
        for (int64_t k = 0; k < m; k++) buf[k] = ((buf[k] - mu) * rs) * wc + bc;
        cpu_nn3_store(j->c, j->dt, buf, yc + i * es, m);
      }
    }
  }
}

/* The fast path's conditions (else the reference runs, and reports any error):
 * a contiguous CPU input of a fast dtype with [N, C, ...] leading dims and
 * N*C*HxW elements, C % G == 0, 1-D [C] parameters of the input's dtype or
 * float32 with a half input. Sets *sdt, the statistics' dtype. */
static int gn_ok(const tabi_tensor *x, const tabi_tensor *const *ps, int np, int64_t N, int64_t C,
                 int64_t HxW, int64_t G, tabi_dtype *sdt) {
  tabi_dtype dt = tabi_tensor_dtype(x);
  if (dt != TABI_DTYPE_FLOAT64 && !cpu_is_fast_float(dt)) return 0;
  if (x->dl.ndim < 2 || x->dl.device.device_type != kDLCPU) return 0;
  if (N < 1 || C < 1 || HxW < 1 || G < 1 || C % G != 0) return 0;
  if (x->dl.shape[0] != N || x->dl.shape[1] != C || tabi_tensor_numel(x) / N / C != HxW ||
      tabi_tensor_numel(x) != N * C * HxW)
    return 0;
  int low = dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16, mixed = 0;
  for (int i = 0; i < np; i++) {
    const tabi_tensor *p = ps[i];
    if (!p) continue;
    tabi_dtype pd = tabi_tensor_dtype(p);
    if (pd != dt && !(low && pd == TABI_DTYPE_FLOAT32)) return 0;
    mixed |= pd != dt;
    if (p->dl.ndim != 1 || p->dl.shape[0] != C || p->dl.device.device_type != kDLCPU) return 0;
  }
  *sdt = mixed ? TABI_DTYPE_FLOAT32 : dt;
  return 1;
}

tabi_status cpu_k_group_norm(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, GROUP_NORM);
  const tabi_tensor *x = args[0].u.t, *w = opt_t(&args[1]), *b = opt_t(&args[2]);
  int64_t N = args[3].u.i, C = args[4].u.i, HxW = args[5].u.i, G = args[6].u.i;
  const tabi_tensor *ps[2] = {w, b};
  tabi_dtype sdt;
  if (!gn_ok(x, ps, 2, N, C, HxW, G, &sdt)) return CPU_FALLBACK(c, GROUP_NORM);
  int64_t sshape[2] = {N, G};
  tabi_tensor *out = NULL, *mean = NULL, *rstd = NULL;
  tabi_status st;
  if ((st = cpu_empty(c, x, tabi_tensor_dtype(x), x->dl.ndim, x->dl.shape, &out)) ||
      (st = cpu_empty(c, x, sdt, 2, sshape, &mean)) || (st = cpu_empty(c, x, sdt, 2, sshape, &rstd))) {
    c->host->tensor_release(c->host->ctx, out);
    c->host->tensor_release(c->host->ctx, mean);
    return st;
  }
  char *xc = cpu_contig(x) ? NULL : cpu_nn3_contig(c, x, cpu_nn3_esize(tabi_tensor_dtype(x)));
  if (!cpu_contig(x) && !xc) {
    c->host->tensor_release(c->host->ctx, out);
    c->host->tensor_release(c->host->ctx, mean);
    c->host->tensor_release(c->host->ctx, rstd);
    return CPU_FALLBACK(c, GROUP_NORM);
  }
  gn_job j = {c, tabi_tensor_dtype(x), C, HxW, G, C / G, xc ? xc : (const char *)tabi_tensor_data(x),
              tabi_tensor_data(out), w, b, mean, rstd, args[7].u.f};
  int64_t per = 3 * (C / G) * HxW;
  cpu_parallel_for(c->pool, N * G, 1 + 32768 / per, gn_range, &j);
  free(xc);
  outs[0] = tabi_tensor_value(out);
  outs[1] = tabi_tensor_value(mean);
  outs[2] = tabi_tensor_value(rstd);
  return TABI_OK;
}

/* --- backward ----------------------------------------------------------------- */

typedef struct gnb_job {
  const cpu_ctx *c;
  tabi_dtype dt;
  int64_t C, HxW, G, D;
  const char *dy, *x;
  char *dx; /* NULL when not wanted */
  const tabi_tensor *w, *mean, *rstd;
  double *db, *dxm; /* [N*C] per-(n, c) sums of dy and dy*(x - mean) */
} gnb_job;

static void gnb_range(void *arg, int64_t rb, int64_t re) {
  const gnb_job *j = arg;
  int64_t es = cpu_nn3_esize(j->dt), cnt = j->D * j->HxW, HW = j->HxW;
  double bx[GN_CHUNK], bd[GN_CHUNK];
  for (int64_t r = rb; r < re; r++) {
    int64_t n = r / j->G, c0 = (r % j->G) * j->D;
    double mu = ref_load_f(j->mean, r), rs = ref_load_f(j->rstd, r), s1 = 0, s2 = 0;
    const char *x = j->x + r * cnt * es, *dy = j->dy + r * cnt * es;
    for (int64_t d = 0; d < j->D; d++) {
      double wc = j->w ? ref_load_f(j->w, (c0 + d) * j->w->dl.strides[0]) : 1;
      double sdb = 0, sdx = 0;
      if (j->dt == TABI_DTYPE_FLOAT32)
        gn_bsum_float((const float *)x + d * HW, (const float *)dy + d * HW, HW, mu, &sdb, &sdx);
      else if (j->dt == TABI_DTYPE_FLOAT64)
        gn_bsum_double((const double *)x + d * HW, (const double *)dy + d * HW, HW, mu, &sdb, &sdx);
      else
      for (int64_t i = 0; i < HW; i += GN_CHUNK) {
        int64_t m = HW - i < GN_CHUNK ? HW - i : GN_CHUNK;
        cpu_nn3_load(j->c, j->dt, x + (d * HW + i) * es, 1, bx, m);
        cpu_nn3_load(j->c, j->dt, dy + (d * HW + i) * es, 1, bd, m);
        double a[4] = {0, 0, 0, 0}, e[4] = {0, 0, 0, 0};
        int64_t k = 0;
        for (; k + 4 <= m; k += 4)
          for (int q = 0; q < 4; q++) {
            a[q] += bd[k + q];
            e[q] += bd[k + q] * (bx[k + q] - mu);
          }
        for (; k < m; k++) {
          sdb += bd[k];
          sdx += bd[k] * (bx[k] - mu);
        }
        sdb += (a[0] + a[1]) + (a[2] + a[3]);
        sdx += (e[0] + e[1]) + (e[2] + e[3]);
      }
      j->db[n * j->C + c0 + d] = sdb;
      j->dxm[n * j->C + c0 + d] = sdx;
      s1 += wc * sdb;
      s2 += wc * sdx * rs;
    }
    if (!j->dx) continue;
    double A = s1 / (double)cnt, B = s2 / (double)cnt;
    for (int64_t d = 0; d < j->D; d++) {
      double wc = j->w ? ref_load_f(j->w, (c0 + d) * j->w->dl.strides[0]) : 1;
      int64_t o = r * cnt + d * HW;
      if (j->dt == TABI_DTYPE_FLOAT32) {
        gn_bdx_float((const float *)j->x + o, (const float *)j->dy + o, (float *)j->dx + o, HW, mu, rs, wc, A, B);
        continue;
      }
      if (j->dt == TABI_DTYPE_FLOAT64) {
        gn_bdx_double((const double *)j->x + o, (const double *)j->dy + o, (double *)j->dx + o, HW, mu, rs, wc,
                      A, B);
        continue;
      }
      for (int64_t i = 0; i < HW; i += GN_CHUNK) {
        int64_t m = HW - i < GN_CHUNK ? HW - i : GN_CHUNK;
        cpu_nn3_load(j->c, j->dt, x + (d * HW + i) * es, 1, bx, m);
        cpu_nn3_load(j->c, j->dt, dy + (d * HW + i) * es, 1, bd, m);
        for (int64_t k = 0; k < m; k++) bx[k] = rs * (bd[k] * wc - A - ((bx[k] - mu) * rs) * B);
        cpu_nn3_store(j->c, j->dt, bx, j->dx + (r * cnt + d * HW + i) * es, m);
      }
    }
  }
}

tabi_status cpu_k_group_norm_bwd(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  const tabi_host_api *h = c->host;
  for (int i = 0; i < 4; i++)
    if (args[i].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, GROUP_NORM_BWD);
  const tabi_tensor *go = args[0].u.t, *x = args[1].u.t, *mean = args[2].u.t, *rstd = args[3].u.t;
  const tabi_tensor *w = opt_t(&args[4]);
  int64_t N = args[5].u.i, C = args[6].u.i, HxW = args[7].u.i, G = args[8].u.i;
  const tabi_tensor *ps[1] = {w};
  tabi_dtype sdt, dt = tabi_tensor_dtype(x);
  if (!gn_ok(x, ps, 1, N, C, HxW, G, &sdt) || args[9].tag == TABI_TAG_NONE || args[9].u.list.len != 3)
    return CPU_FALLBACK(c, GROUP_NORM_BWD);
  /* grad_out like x; mean/rstd contiguous N*G of the statistics' dtype */
  if (tabi_tensor_dtype(go) != dt || !cpu_same_shape(go, x) || go->dl.device.device_type != kDLCPU)
    return CPU_FALLBACK(c, GROUP_NORM_BWD);
  const tabi_tensor *sv[2] = {mean, rstd};
  for (int i = 0; i < 2; i++)
    if (tabi_tensor_numel(sv[i]) != N * G || !cpu_contig(sv[i]) || sv[i]->dl.device.device_type != kDLCPU ||
        (tabi_tensor_dtype(sv[i]) != dt && tabi_tensor_dtype(sv[i]) != TABI_DTYPE_FLOAT32 &&
         tabi_tensor_dtype(sv[i]) != TABI_DTYPE_FLOAT64))
      return CPU_FALLBACK(c, GROUP_NORM_BWD);
  const int64_t *mask = tabi_value_ints(&args[9]);
  tabi_tensor *o3[3] = {NULL, NULL, NULL};
  tabi_status st = TABI_OK;
  if (mask[0]) st = cpu_empty(c, x, dt, x->dl.ndim, x->dl.shape, &o3[0]);
  if (!st && mask[1]) st = cpu_empty(c, x, w ? tabi_tensor_dtype(w) : dt, 1, &C, &o3[1]);
  if (!st && mask[2]) st = cpu_empty(c, x, dt, 1, &C, &o3[2]);
  double *part = st ? NULL : malloc(sizeof(double) * 2 * (size_t)(N * C));
  char *xc = st || cpu_contig(x) ? NULL : cpu_nn3_contig(c, x, cpu_nn3_esize(dt));
  char *gc = st || cpu_contig(go) ? NULL : cpu_nn3_contig(c, go, cpu_nn3_esize(dt));
  if (!part || (!cpu_contig(x) && !xc) || (!cpu_contig(go) && !gc)) {
    for (int i = 0; i < 3; i++) h->tensor_release(h->ctx, o3[i]);
    free(part);
    free(xc);
    free(gc);
    return st ? st : CPU_FALLBACK(c, GROUP_NORM_BWD);
  }
  gnb_job j = {c, dt, C, HxW, G, C / G, gc ? gc : (const char *)tabi_tensor_data(go),
               xc ? xc : (const char *)tabi_tensor_data(x),
               o3[0] ? tabi_tensor_data(o3[0]) : NULL, w, mean, rstd, part, part + N * C};
  int64_t per = (o3[0] ? 4 : 2) * (C / G) * HxW;
  cpu_parallel_for(c->pool, N * G, 1 + 32768 / per, gnb_range, &j);
  /* grad_weight[c] = sum over n of rstd(n, g) * dxm(n, c); grad_bias = sum of db (n in order) */
  for (int64_t ch = 0; ch < C; ch++) {
    double gw = 0, gb = 0;
    for (int64_t n = 0; n < N; n++) {
      gw += j.dxm[n * C + ch] * ref_load_f(rstd, n * G + ch / (C / G));
      gb += j.db[n * C + ch];
    }
    if (o3[1]) ref_store_f(o3[1], ch, gw);
    if (o3[2]) ref_store_f(o3[2], ch, gb);
  }
  free(part);
  free(xc);
  free(gc);
  for (int i = 0; i < 3; i++) outs[i] = tabi_tensor_value(o3[i]);
  return TABI_OK;
}
