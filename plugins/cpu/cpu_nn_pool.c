/* plugins/cpu/cpu_nn_pool.c: max_pool2d_with_indices and its backward for
 * contiguous float32 [C, H, W] / [N, C, H, W].
 *
 * The geometry follows the reference (reference/ref_nn2.c, ATen's rules; the
 * window arithmetic is cpu_pool_win.h's, shared with the other pools):
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
#include "cpu_pool_win.h"

typedef struct mp_geom {
  int64_t planes, ih, iw, oh, ow;
  int64_t k[2], s[2], p[2], d[2];
} mp_geom;

/* x, kernel_size, stride, padding, dilation, ceil_mode (args from `a`). */
static int mp_setup(const tabi_tensor *x, const tabi_value *a, mp_geom *g) {
  int32_t nd = x->dl.ndim;
  if ((nd != 3 && nd != 4) || tabi_tensor_dtype(x) != TABI_DTYPE_FLOAT32 || !cpu_contig(x)) return 0;
  if (a[4].tag != TABI_TAG_BOOL) return 0;
  if (!cpu_pw_list(&a[0], 2, NULL, 1, g->k) || !cpu_pw_list(&a[1], 2, g->k, 1, g->s) ||
      !cpu_pw_list(&a[2], 2, NULL, 0, g->p) || !cpu_pw_list(&a[3], 2, NULL, 1, g->d))
    return 0;
  g->planes = x->dl.shape[0] * (nd == 4 ? x->dl.shape[1] : 1);
  g->ih = x->dl.shape[nd - 2];
  g->iw = x->dl.shape[nd - 1];
  if (g->planes < 1 || g->ih < 1 || g->iw < 1) return 0;
  int ceil_mode = a[4].u.i != 0;
  g->oh = cpu_pw_out_size(g->ih, g->k[0], g->s[0], g->p[0], g->d[0], ceil_mode);
  g->ow = cpu_pw_out_size(g->iw, g->k[1], g->s[1], g->p[1], g->d[1], ceil_mode);
  return g->oh >= 1 && g->ow >= 1;
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
    int64_t y0 = oy * g->s[0] - g->p[0], fy = cpu_pw_first_tap(y0, g->d[0]);
    for (int64_t ox = 0; ox < g->ow; ox++) {
      int64_t x0 = ox * g->s[1] - g->p[1], fx = cpu_pw_first_tap(x0, g->d[1]);
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
