/* plugins/cpu/cpu_nn_pool.c: max_pool2d_with_indices and its backward for
 * contiguous float32 [C, H, W] / [N, C, H, W].
 *
 * The geometry follows the reference (reference/ref_nn2.c, ATen's rules):
 * floor/ceil output size (with ceil_mode the last window must start inside
 * the input or the left padding), pad <= kernel/2; max: NaN wins (`v > max ||
 * isnan(v)`), the index is h*W + w in the input's plane, a window of -inf
 * reports its first in-range element. Any argument the fast path does not
 * validate exactly (odd list lengths, bad values, empty planes) runs the
 * reference kernel, which also owns the error messages.
 *
 * Forward: one output row per task. Backward: one plane per task, gradients
 * accumulated in double in output order and rounded once (the reference's
 * order): results do not depend on the thread count.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

typedef struct mp_geom {
  int64_t planes, ih, iw, oh, ow;
  int64_t k[2], s[2], p[2], d[2];
} mp_geom;

/* 1 or 2 values (0 values: dflt when given), each >= lo. */
static int mp_list(const tabi_value *v, const int64_t *dflt, int64_t lo, int64_t *out) {
  if (v->tag != TABI_TAG_INT_LIST) return 0;
  int64_t len = v->u.list.len;
  const int64_t *x = tabi_value_ints(v);
  if (len == 0 && dflt) {
    out[0] = dflt[0];
    out[1] = dflt[1];
    return 1;
  }
  if (len != 1 && len != 2) return 0;
  out[0] = x[0];
  out[1] = x[len == 1 ? 0 : 1];
  return out[0] >= lo && out[1] >= lo;
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* x, kernel_size, stride, padding, dilation, ceil_mode (args from `a`). */
static int mp_setup(const tabi_tensor *x, const tabi_value *a, mp_geom *g) {
  int32_t nd = x->dl.ndim;
  if ((nd != 3 && nd != 4) || tabi_tensor_dtype(x) != TABI_DTYPE_FLOAT32 || !cpu_contig(x)) return 0;
  if (a[4].tag != TABI_TAG_BOOL) return 0;
  if (!mp_list(&a[0], NULL, 1, g->k) || !mp_list(&a[1], g->k, 1, g->s) ||
      !mp_list(&a[2], NULL, 0, g->p) || !mp_list(&a[3], NULL, 1, g->d))
    return 0;
  g->planes = x->dl.shape[0] * (nd == 4 ? x->dl.shape[1] : 1);
  g->ih = x->dl.shape[nd - 2];
  g->iw = x->dl.shape[nd - 1];
  if (g->planes < 1 || g->ih < 1 || g->iw < 1) return 0;
  int64_t in[2] = {g->ih, g->iw}, out[2];
  int ceil_mode = a[4].u.i != 0;
  for (int i = 0; i < 2; i++) {
    if (g->p[i] > g->k[i] / 2) return 0;
    int64_t o = floor_div(in[i] + 2 * g->p[i] - g->d[i] * (g->k[i] - 1) - 1 +
                              (ceil_mode ? g->s[i] - 1 : 0), g->s[i]) + 1;
    if (ceil_mode && (o - 1) * g->s[i] >= in[i] + g->p[i]) o--;
    if (o < 1) return 0;
    out[i] = o;
  }
  g->oh = out[0];
  g->ow = out[1];
  return 1;
}

typedef struct mp_job {
  const mp_geom *g;
  const float *x;
  float *y;
  int64_t *idx;
} mp_job;

static void mp_range(void *arg, int64_t b, int64_t e) {
  const mp_job *j = arg;
  const mp_geom *g = j->g;
  for (int64_t r = b; r < e; r++) { /* r = plane * oh + output row */
    int64_t pl = r / g->oh, oy = r % g->oh;
    const float *x = j->x + pl * g->ih * g->iw;
    int64_t y0 = oy * g->s[0] - g->p[0], fy = y0;
    while (fy < 0) fy += g->d[0];
    for (int64_t ox = 0; ox < g->ow; ox++) {
      int64_t x0 = ox * g->s[1] - g->p[1], fx = x0;
      while (fx < 0) fx += g->d[1];
      float best = -INFINITY;
      int64_t bi = fy * g->iw + fx;
      for (int64_t ky = 0; ky < g->k[0]; ky++) {
        int64_t iy = y0 + ky * g->d[0];
        if (iy < 0 || iy >= g->ih) continue;
        const float *row = x + iy * g->iw;
        for (int64_t kx = 0; kx < g->k[1]; kx++) {
          int64_t ix = x0 + kx * g->d[1];
          if (ix < 0 || ix >= g->iw) continue;
          float v = row[ix];
          if (v > best || isnan(v)) {
            best = v;
            bi = iy * g->iw + ix;
          }
        }
      }
      j->y[r * g->ow + ox] = best;
      j->idx[r * g->ow + ox] = bi;
    }
  }
}

static tabi_status out_like(const cpu_ctx *c, const tabi_tensor *x, const mp_geom *g, tabi_dtype dt,
                            tabi_tensor **o) {
  int64_t shape[4];
  int32_t nd = x->dl.ndim;
  for (int32_t i = 0; i < nd - 2; i++) shape[i] = x->dl.shape[i];
  shape[nd - 2] = g->oh;
  shape[nd - 1] = g->ow;
  return cpu_empty(c, x, dt, nd, shape, o);
}

tabi_status cpu_k_max_pool2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  mp_geom g;
  if (args[0].tag != TABI_TAG_TENSOR || !mp_setup(args[0].u.t, &args[1], &g))
    return CPU_FALLBACK(c, MAX_POOL2D);
  const tabi_tensor *x = args[0].u.t;
  tabi_tensor *y = NULL, *idx = NULL;
  tabi_status st = out_like(c, x, &g, TABI_DTYPE_FLOAT32, &y);
  if (st == TABI_OK) st = out_like(c, x, &g, TABI_DTYPE_INT64, &idx);
  if (st != TABI_OK) {
    c->host->tensor_release(c->host->ctx, y);
    return st;
  }
  mp_job j = {&g, tabi_tensor_data(x), tabi_tensor_data(y), tabi_tensor_data(idx)};
  int64_t work = g.ow * g.k[0] * g.k[1];
  cpu_parallel_for(c->pool, g.planes * g.oh, 1 + 16384 / (work > 0 ? work : 1), mp_range, &j);
  outs[0] = tabi_tensor_value(y);
  outs[1] = tabi_tensor_value(idx);
  return TABI_OK;
}

/* --- backward ------------------------------------------------------------------ */

typedef struct mpb_job {
  const mp_geom *g;
  const float *go;
  const int64_t *idx;
  float *gi;
  int bad; /* an index out of its plane: the reference reports it */
} mpb_job;

static void mpb_range(void *arg, int64_t b, int64_t e) {
  mpb_job *j = arg;
  const mp_geom *g = j->g;
  int64_t plane = g->ih * g->iw, outn = g->oh * g->ow;
  double *acc = malloc(sizeof(double) * (size_t)plane);
  if (!acc) {
    __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
    return;
  }
  for (int64_t pl = b; pl < e; pl++) {
    memset(acc, 0, sizeof(double) * (size_t)plane);
    const int64_t *ix = j->idx + pl * outn;
    const float *go = j->go + pl * outn;
    for (int64_t o = 0; o < outn; o++) {
      int64_t i = ix[o];
      if (i < 0 || i >= plane) {
        __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
        break;
      }
      acc[i] += go[o];
    }
    float *gi = j->gi + pl * plane;
    for (int64_t i = 0; i < plane; i++) gi[i] = (float)acc[i];
  }
  free(acc);
}

tabi_status cpu_k_max_pool2d_bwd(void *ctx, const tabi_call *call, tabi_value *args,
                                 tabi_value *outs) {
  const cpu_ctx *c = ctx;
  mp_geom g;
  /* grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices */
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR ||
      args[7].tag != TABI_TAG_TENSOR || !mp_setup(args[1].u.t, &args[2], &g))
    return CPU_FALLBACK(c, MAX_POOL2D_BWD);
  const tabi_tensor *go = args[0].u.t, *x = args[1].u.t, *ind = args[7].u.t;
  int32_t nd = x->dl.ndim;
  const tabi_tensor *chk[2] = {go, ind};
  for (int t = 0; t < 2; t++) {
    const tabi_tensor *u = chk[t];
    if (u->dl.ndim != nd || !cpu_contig(u) ||
        tabi_tensor_dtype(u) != (t ? TABI_DTYPE_INT64 : TABI_DTYPE_FLOAT32))
      return CPU_FALLBACK(c, MAX_POOL2D_BWD);
    for (int32_t i = 0; i < nd; i++)
      if (u->dl.shape[i] != (i < nd - 2 ? x->dl.shape[i] : (i == nd - 2 ? g.oh : g.ow)))
        return CPU_FALLBACK(c, MAX_POOL2D_BWD);
  }
  tabi_tensor *gi = NULL;
  tabi_status st = cpu_empty(c, x, TABI_DTYPE_FLOAT32, nd, x->dl.shape, &gi);
  if (st != TABI_OK) return st;
  mpb_job j = {&g, tabi_tensor_data(go), tabi_tensor_data(ind), tabi_tensor_data(gi), 0};
  cpu_parallel_for(c->pool, g.planes, 1 + 16384 / (g.ih * g.iw), mpb_range, &j);
  if (j.bad) {
    c->host->tensor_release(c->host->ctx, gi);
    return CPU_FALLBACK(c, MAX_POOL2D_BWD);
  }
  outs[0] = tabi_tensor_value(gi);
  return TABI_OK;
}
