/* plugins/cpu/cpu_nn3_dist.c: _cdist_forward and _pdist_forward for float32/
 * float64 CPU inputs of any strides (batched cdist with broadcast batch dims).
 *
 * The distance is the reference's (reference/ref_linalg.c), in double: p = 0
 * counts non-zero differences, p = 1 sums |d|, p = 2 sums d*d then sqrt, p = inf
 * takes the largest |d| (NaN as soon as one is NaN), other p sum pow(|d|, p)
 * then pow(., 1/p). Sums use 4 accumulators in a fixed order instead of one;
 * the difference is a few double roundings, far below float32/float64
 * tolerances.
 *
 * No matmul form for p = 2 (|u|^2 + |v|^2 - 2 u.v, what ATen does for large
 * inputs): it cancels catastrophically for near points (float64 results then
 * miss the reference's 1e-7) and turns inf inputs into NaN. Instead rows are
 * converted once to contiguous double, and 4 rows of x1 meet one row of x2 at a
 * time (each x2 row loaded once per 4 distances).
 *
 * cdist: rows of x1 (per batch) run on the pool. pdist: row i pairs with rows
 * i+1..n-1 (4 of them per pass over row i); task t takes rows t and n-1-t, so
 * tasks have equal work.
 * Bad arguments and empty results run the reference kernel.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_nn3.h"
#include "cpu_clones.h"

/* The distance loops are built for AVX-512 and AVX2 too (runtime dispatch). */
#define CLONES CPU_CLONES_V4V3

/* Which p: 0, 1, 2, inf, or general. */
enum { DP_0, DP_1, DP_2, DP_INF, DP_GEN };

static int dist_kind(double p) {
  return p == 0 ? DP_0 : p == 1 ? DP_1 : p == 2 ? DP_2 : isinf(p) ? DP_INF : DP_GEN;
}

static double dist_end(int kind, double p, double acc) {
  if (kind == DP_2) return sqrt(acc);
  if (kind == DP_GEN) return pow(acc, 1.0 / p);
  return acc;
}

/* The accumulated value of |u - v| over m elements (not yet ended). */
CLONES static double dist_one(int kind, double p, const double *u, const double *v, int64_t m) {
  double a[4] = {0, 0, 0, 0}, s = 0;
  int64_t i = 0;
  switch (kind) {
    case DP_0:
      for (; i < m; i++) s += (u[i] - v[i]) != 0;
      return s;
    case DP_1:
      for (; i + 4 <= m; i += 4)
        for (int k = 0; k < 4; k++) a[k] += fabs(u[i + k] - v[i + k]);
      for (; i < m; i++) s += fabs(u[i] - v[i]);
      return s + (a[0] + a[1]) + (a[2] + a[3]);
    case DP_2:
      for (; i + 4 <= m; i += 4)
        for (int k = 0; k < 4; k++) a[k] += (u[i + k] - v[i + k]) * (u[i + k] - v[i + k]);
      for (; i < m; i++) s += (u[i] - v[i]) * (u[i] - v[i]);
      return s + (a[0] + a[1]) + (a[2] + a[3]);
    case DP_INF: {
      int nan = 0;
      for (; i < m; i++) {
        double d = fabs(u[i] - v[i]);
        nan |= isnan(d);
        s = d > s ? d : s;
      }
      return nan ? NAN : s;
    }
    default:
      for (; i < m; i++) s += pow(fabs(u[i] - v[i]), p);
      return s;
  }
}

/* 4 rows of x1 (u0..u3, m elements each) against one row v: the p = 2 and
 * p = 1 hot loops share each load of v. */
CLONES static void dist_four(int kind, double p, const double *u, int64_t m, const double *v, double *res) {
  if (kind == DP_2 || kind == DP_1) {
    double a[4][4] = {{0}}, s[4] = {0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 4 <= m; i += 4)
      for (int r = 0; r < 4; r++)
        for (int k = 0; k < 4; k++) {
          double d = u[r * m + i + k] - v[i + k];
          a[r][k] += kind == DP_2 ? d * d : fabs(d);
        }
    for (int r = 0; r < 4; r++) {
      for (int64_t q = i; q < m; q++) {
        double d = u[r * m + q] - v[q];
        s[r] += kind == DP_2 ? d * d : fabs(d);
      }
      res[r] = s[r] + (a[r][0] + a[r][1]) + (a[r][2] + a[r][3]);
    }
    return;
  }
  for (int r = 0; r < 4; r++) res[r] = dist_one(kind, p, u + r * m, v, m);
}

/* --- cdist -------------------------------------------------------------------- */

typedef struct cd_job {
  const cpu_ctx *c;
  tabi_dtype dt;
  int kind;
  double p;
  int64_t r1, r2, m, es;
  const double *x2d; /* every batch's x2 rows as contiguous double: [B2][r2][m] */
  int64_t b2of_n;    /* unused when x2 is not broadcast */
  int32_t bnd;
  int64_t bshape[8], s1[8], s2[8]; /* broadcast batch shape, x1 batch strides, x2 batch index strides */
  int64_t x1rs, x1cs;
  const char *x1;
  char *y;
  double *buf; /* [nblk][4*m + 4*r2] */
  int64_t tasks, nblk; /* tasks: batch * ceil(r1 / 4) */
} cd_job;

static void cd_task(const cd_job *j, double *u, double *res, int64_t t) {
  int64_t q4 = (j->r1 + 3) / 4, bi = t / q4, i0 = (t % q4) * 4, nr = j->r1 - i0 < 4 ? j->r1 - i0 : 4;
  int64_t off1 = 0, b2 = 0, rem = bi;
  for (int32_t d = j->bnd - 1; d >= 0; d--) {
    int64_t k = rem % j->bshape[d];
    rem /= j->bshape[d];
    off1 += k * j->s1[d];
    b2 += k * j->s2[d];
  }
  memset(u, 0, sizeof(double) * 4 * (size_t)j->m);
  for (int64_t r = 0; r < nr; r++)
    cpu_nn3_load_n(j->c, j->dt, j->x1 + (off1 + (i0 + r) * j->x1rs) * j->es, j->x1cs, u + r * j->m, j->m);
  const double *v = j->x2d + b2 * j->r2 * j->m;
  for (int64_t q = 0; q < j->r2; q++) dist_four(j->kind, j->p, u, j->m, v + q * j->m, res + 4 * q);
  for (int64_t r = 0; r < nr; r++) {
    char *o = j->y + ((bi * j->r1 + i0 + r) * j->r2) * j->es;
    for (int64_t q = 0; q < j->r2; q++) {
      double d = dist_end(j->kind, j->p, res[4 * q + r]);
      if (j->dt == TABI_DTYPE_FLOAT64) ((double *)o)[q] = d;
      else ((float *)o)[q] = (float)d;
    }
  }
}

static void cd_range(void *arg, int64_t bb, int64_t be) {
  const cd_job *j = arg;
  for (int64_t b = bb; b < be; b++) {
    double *u = j->buf + b * (4 * j->m + 4 * j->r2);
    for (int64_t t = b * j->tasks / j->nblk; t < (b + 1) * j->tasks / j->nblk; t++) cd_task(j, u, u + 4 * j->m, t);
  }
}

tabi_status cpu_k_cdist(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, CDIST);
  const tabi_tensor *x1 = args[0].u.t, *x2 = args[1].u.t;
  double p = args[2].u.f;
  tabi_dtype dt = tabi_tensor_dtype(x1);
  if ((dt != TABI_DTYPE_FLOAT32 && dt != TABI_DTYPE_FLOAT64) || tabi_tensor_dtype(x2) != dt ||
      x1->dl.device.device_type != kDLCPU || x2->dl.device.device_type != kDLCPU || !(p >= 0) ||
      (args[3].tag == TABI_TAG_INT && (args[3].u.i < 0 || args[3].u.i > 2)))
    return CPU_FALLBACK(c, CDIST);
  int32_t n1 = x1->dl.ndim, n2 = x2->dl.ndim;
  if (n1 < 2 || n2 < 2 || n1 > 8 || n2 > 8) return CPU_FALLBACK(c, CDIST);
  int64_t m = x1->dl.shape[n1 - 1], r1 = x1->dl.shape[n1 - 2], r2 = x2->dl.shape[n2 - 2];
  if (x2->dl.shape[n2 - 1] != m || m < 1 || r1 < 1 || r2 < 1) return CPU_FALLBACK(c, CDIST);
  cd_job j;
  memset(&j, 0, sizeof j);
  j.bnd = (n1 > n2 ? n1 : n2) - 2;
  /* x2's batches, gathered: index strides over the broadcast shape (0 where x2 broadcasts) */
  int64_t B = 1, B2 = 1;
  for (int32_t i = j.bnd - 1; i >= 0; i--) {
    int32_t i1 = i - (j.bnd - (n1 - 2)), i2 = i - (j.bnd - (n2 - 2));
    int64_t s1 = i1 >= 0 ? x1->dl.shape[i1] : 1, s2 = i2 >= 0 ? x2->dl.shape[i2] : 1;
    if (s1 != s2 && s1 != 1 && s2 != 1) return CPU_FALLBACK(c, CDIST);
    j.bshape[i] = s1 == 1 ? s2 : s1;
    j.s1[i] = i1 >= 0 && s1 != 1 ? x1->dl.strides[i1] : 0;
    j.s2[i] = s2 != 1 ? B2 : 0;
    B2 *= s2;
    B *= j.bshape[i];
  }
  if (B < 1) return CPU_FALLBACK(c, CDIST);
  double *x2d = malloc(sizeof(double) * (size_t)(B2 * r2 * m));
  int64_t tasks = B * ((r1 + 3) / 4), grain = 1 + 65536 / (4 * r2 * m + 1), nblk = (tasks + grain - 1) / grain;
  if (nblk > c->nthreads) nblk = c->nthreads > 0 ? c->nthreads : 1;
  double *buf = malloc(sizeof(double) * (size_t)(nblk * (4 * m + 4 * r2)));
  if (!x2d || !buf) {
    free(x2d);
    free(buf);
    return CPU_FALLBACK(c, CDIST);
  }
  int64_t es = dt == TABI_DTYPE_FLOAT64 ? 8 : 4;
  /* x2 batch k (row-major over x2's own batch dims) -> contiguous double rows */
  for (int64_t k = 0; k < B2; k++) {
    int64_t off = 0, rem = k;
    for (int32_t d = n2 - 3; d >= 0; d--) {
      off += (rem % x2->dl.shape[d]) * x2->dl.strides[d];
      rem /= x2->dl.shape[d];
    }
    for (int64_t r = 0; r < r2; r++)
      cpu_nn3_load_n(c, dt, (const char *)tabi_tensor_data(x2) + (off + r * x2->dl.strides[n2 - 2]) * es,
                     x2->dl.strides[n2 - 1], x2d + (k * r2 + r) * m, m);
  }
  int64_t oshape[10];
  for (int32_t i = 0; i < j.bnd; i++) oshape[i] = j.bshape[i];
  oshape[j.bnd] = r1;
  oshape[j.bnd + 1] = r2;
  tabi_tensor *out;
  tabi_status st = cpu_empty(c, x1, dt, j.bnd + 2, oshape, &out);
  if (st) {
    free(x2d);
    free(buf);
    return st;
  }
  j.c = c;
  j.dt = dt;
  j.kind = dist_kind(p);
  j.p = p;
  j.r1 = r1;
  j.r2 = r2;
  j.m = m;
  j.es = es;
  j.x2d = x2d;
  j.x1rs = x1->dl.strides[n1 - 2];
  j.x1cs = x1->dl.strides[n1 - 1];
  j.x1 = tabi_tensor_data(x1);
  j.y = tabi_tensor_data(out);
  j.buf = buf;
  j.tasks = tasks;
  j.nblk = nblk;
  cpu_parallel_for(c->pool, nblk, 1, cd_range, &j);
  free(x2d);
  free(buf);
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

/* --- pdist -------------------------------------------------------------------- */

typedef struct pd_job {
  int kind;
  double p;
  int64_t n, m;
  int f64;
  const double *xd; /* [n][m] */
  char *y;
} pd_job;

static void pd_row(const pd_job *j, int64_t i) {
  int64_t o = i * j->n - i * (i + 1) / 2; /* pairs before row i: sum over r < i of n-1-r */
  const double *u = j->xd + i * j->m;
  /* rows k..k+3 against row i at once (|d| is symmetric: the same sums) */
  for (int64_t k = i + 1; k < j->n; k += 4) {
    double res[4];
    int64_t nr = j->n - k < 4 ? j->n - k : 4;
    if (nr == 4) dist_four(j->kind, j->p, j->xd + k * j->m, j->m, u, res);
    else
      for (int64_t q = 0; q < nr; q++) res[q] = dist_one(j->kind, j->p, u, j->xd + (k + q) * j->m, j->m);
    for (int64_t q = 0; q < nr; q++, o++) {
      double d = dist_end(j->kind, j->p, res[q]);
      if (j->f64) ((double *)j->y)[o] = d;
      else ((float *)j->y)[o] = (float)d;
    }
  }
}

static void pd_range(void *arg, int64_t tb, int64_t te) {
  const pd_job *j = arg;
  for (int64_t t = tb; t < te; t++) {
    pd_row(j, t);
    if (j->n - 1 - t != t) pd_row(j, j->n - 1 - t);
  }
}

tabi_status cpu_k_pdist(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, PDIST);
  const tabi_tensor *x = args[0].u.t;
  double p = args[1].u.f;
  tabi_dtype dt = tabi_tensor_dtype(x);
  if ((dt != TABI_DTYPE_FLOAT32 && dt != TABI_DTYPE_FLOAT64) || x->dl.device.device_type != kDLCPU ||
      !(p >= 0) || x->dl.ndim != 2)
    return CPU_FALLBACK(c, PDIST);
  int64_t n = x->dl.shape[0], m = x->dl.shape[1];
  if (n < 2 || m < 1) return CPU_FALLBACK(c, PDIST);
  double *xd = malloc(sizeof(double) * (size_t)(n * m));
  if (!xd) return CPU_FALLBACK(c, PDIST);
  int64_t es = dt == TABI_DTYPE_FLOAT64 ? 8 : 4, cnt = n * (n - 1) / 2;
  for (int64_t r = 0; r < n; r++)
    cpu_nn3_load_n(c, dt, (const char *)tabi_tensor_data(x) + r * x->dl.strides[0] * es, x->dl.strides[1],
                   xd + r * m, m);
  tabi_tensor *out;
  tabi_status st = cpu_empty(c, x, dt, 1, &cnt, &out);
  if (st) {
    free(xd);
    return st;
  }
  pd_job j = {dist_kind(p), p, n, m, dt == TABI_DTYPE_FLOAT64, xd, tabi_tensor_data(out)};
  int64_t tasks = (n + 1) / 2;
  cpu_parallel_for(c->pool, tasks, 1 + 65536 / (n * m), pd_range, &j);
  free(xd);
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}
