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

#include <immintrin.h>

#include "cpu.h"
#include "cpu_ew.h"
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

/* One output element: max over the window's in-range taps, `v > max ||
 * isnan(v)` in tap order (ties keep the first, a later NaN wins). */
static inline void mp_one(const mp_geom *g, const float *x, int64_t y0, int64_t fy, int64_t ox, float *out,
                          int64_t *oidx) {
  int64_t x0 = ox * g->s[1] - g->p[1], fx = cpu_pw_first_tap(x0, g->d[1]);
  float best = -INFINITY;
  int64_t bi = fy * g->iw + fx;
  for (int64_t ky = 0; ky < g->k[0]; ky++) {
    int64_t iy = y0 + ky * g->d[0];
    if (iy < 0 || iy >= g->ih) continue;
    for (int64_t kx = 0; kx < g->k[1]; kx++) {
      int64_t ix = x0 + kx * g->d[1];
      if (ix < 0 || ix >= g->iw) continue;
      float v = x[iy * g->iw + ix];
      if (v > best || isnan(v)) {
        best = v;
        bi = iy * g->iw + ix;
      }
    }
  }
  *out = best;
  *oidx = bi;
}

static void mp_range(void *arg, int64_t b, int64_t e) {
  const mp_job *j = arg;
  const mp_geom *g = j->g;
  for (int64_t r = b; r < e; r++) { /* r = plane * oh + output row */
    int64_t pl = r / g->oh, oy = r % g->oh;
    const float *x = j->x + pl * g->ih * g->iw;
    int64_t y0 = oy * g->s[0] - g->p[0], fy = cpu_pw_first_tap(y0, g->d[0]);
    for (int64_t ox = 0; ox < g->ow; ox++)
      mp_one(g, x, y0, fy, ox, &j->y[r * g->ow + ox], &j->idx[r * g->ow + ox]);
  }
}

/* --- forward, vectorized ------------------------------------------------------
 * Output columns whose window lies inside the row (no padding taps), 16 (AVX-512)
 * or 8 (AVX2) at a time: each tap reads one input per output column (stride 1:
 * one load; stride 2 on AVX-512: two loads and a permute; else a gather),
 * compared and blended exactly as the scalar loop above decides (`v > best ||
 * isnan(v)`, taps in the same order), so values and indices are the same.
 * The columns at the borders, and planes past 2^31 elements, take the scalar
 * code. */

/* Interior columns [lo, hi) of an output row: the window's columns all in range. */
static void mp_interior(const mp_geom *g, int64_t *lo, int64_t *hi) {
  int64_t span = (g->k[1] - 1) * g->d[1];
  *lo = (g->p[1] + g->s[1] - 1) / g->s[1];
  *hi = g->iw - 1 - span + g->p[1] < 0 ? 0 : (g->iw - 1 - span + g->p[1]) / g->s[1] + 1;
  if (*hi > g->ow) *hi = g->ow;
  if (*lo > *hi) *lo = *hi;
}

__attribute__((target("avx512f"))) static int64_t mp_vec16(const mp_geom *g, const float *x, int64_t y0,
                                                            int64_t fy, int64_t lo, int64_t hi, float *y,
                                                            int64_t *yi) {
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  int64_t ox = lo;
  for (; ox + 16 <= hi; ox += 16) {
    /* input column of tap 0 per lane: (ox + lane) * s - p */
    __m512i c0 = _mm512_sub_epi32(_mm512_mullo_epi32(_mm512_add_epi32(_mm512_set1_epi32((int32_t)ox), lane),
                                                     _mm512_set1_epi32((int32_t)g->s[1])),
                                  _mm512_set1_epi32((int32_t)g->p[1]));
    __m512 best = _mm512_set1_ps(-INFINITY);
    __m512i bi = _mm512_add_epi32(c0, _mm512_set1_epi32((int32_t)(fy * g->iw)));
    for (int64_t ky = 0; ky < g->k[0]; ky++) {
      int64_t iy = y0 + ky * g->d[0];
      if (iy < 0 || iy >= g->ih) continue;
      __m512i row = _mm512_add_epi32(c0, _mm512_set1_epi32((int32_t)(iy * g->iw)));
      const float *rp = x + iy * g->iw + ox * g->s[1] - g->p[1]; /* lane 0's tap 0 */
      for (int64_t kx = 0; kx < g->k[1]; kx++) {
        __m512i at = _mm512_add_epi32(row, _mm512_set1_epi32((int32_t)(kx * g->d[1])));
        const float *tp = rp + kx * g->d[1];
        __m512 v;
        if (g->s[1] == 1) { /* 16 adjacent columns */
          v = _mm512_loadu_ps(tp);
        } else if (g->s[1] == 2) { /* every other column of 31: two loads and a permute (the
                                    * 32nd is not loaded: it may lie past the plane) */
          v = _mm512_permutex2var_ps(_mm512_loadu_ps(tp), even, _mm512_maskz_loadu_ps(0x7fff, tp + 16));
        } else {
          v = _mm512_i32gather_ps(at, x, 4);
        }
        __mmask16 m = _mm512_cmp_ps_mask(v, best, _CMP_GT_OQ) | _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        best = _mm512_mask_blend_ps(m, best, v);
        bi = _mm512_mask_blend_epi32(m, bi, at);
      }
    }
    _mm512_storeu_ps(y + ox, best);
    _mm512_storeu_si512((void *)(yi + ox), _mm512_cvtepi32_epi64(_mm512_castsi512_si256(bi)));
    _mm512_storeu_si512((void *)(yi + ox + 8), _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(bi, 1)));
  }
  return ox;
}

__attribute__((target("avx2"))) static int64_t mp_vec8(const mp_geom *g, const float *x, int64_t y0,
                                                       int64_t fy, int64_t lo, int64_t hi, float *y,
                                                       int64_t *yi) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  int64_t ox = lo;
  for (; ox + 8 <= hi; ox += 8) {
    __m256i c0 = _mm256_sub_epi32(_mm256_mullo_epi32(_mm256_add_epi32(_mm256_set1_epi32((int32_t)ox), lane),
                                                     _mm256_set1_epi32((int32_t)g->s[1])),
                                  _mm256_set1_epi32((int32_t)g->p[1]));
    __m256 best = _mm256_set1_ps(-INFINITY);
    __m256i bi = _mm256_add_epi32(c0, _mm256_set1_epi32((int32_t)(fy * g->iw)));
    for (int64_t ky = 0; ky < g->k[0]; ky++) {
      int64_t iy = y0 + ky * g->d[0];
      if (iy < 0 || iy >= g->ih) continue;
      __m256i row = _mm256_add_epi32(c0, _mm256_set1_epi32((int32_t)(iy * g->iw)));
      for (int64_t kx = 0; kx < g->k[1]; kx++) {
        __m256i at = _mm256_add_epi32(row, _mm256_set1_epi32((int32_t)(kx * g->d[1])));
        __m256 v = _mm256_i32gather_ps(x, at, 4);
        __m256 m = _mm256_or_ps(_mm256_cmp_ps(v, best, _CMP_GT_OQ), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        best = _mm256_blendv_ps(best, v, m);
        bi = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(bi), _mm256_castsi256_ps(at), m));
      }
    }
    _mm256_storeu_ps(y + ox, best);
    _mm256_storeu_si256((__m256i *)(void *)(yi + ox), _mm256_cvtepi32_epi64(_mm256_castsi256_si128(bi)));
    _mm256_storeu_si256((__m256i *)(void *)(yi + ox + 4), _mm256_cvtepi32_epi64(_mm256_extracti128_si256(bi, 1)));
  }
  return ox;
}

static void mp_range_vec(void *arg, int64_t b, int64_t e) {
  const mp_job *j = arg;
  const mp_geom *g = j->g;
  int32_t lanes = cpu_ew_isa()->lanes;
  int64_t lo, hi;
  mp_interior(g, &lo, &hi);
  for (int64_t r = b; r < e; r++) { /* r = plane * oh + output row */
    int64_t pl = r / g->oh, oy = r % g->oh;
    const float *x = j->x + pl * g->ih * g->iw;
    float *y = j->y + r * g->ow;
    int64_t *yi = j->idx + r * g->ow;
    int64_t y0 = oy * g->s[0] - g->p[0], fy = cpu_pw_first_tap(y0, g->d[0]);
    int64_t ox = 0;
    for (; ox < lo; ox++) mp_one(g, x, y0, fy, ox, &y[ox], &yi[ox]);
    /* the last partial block runs again as a full one ending at hi: the
     * overlapping outputs are recomputed with the same values */
    if (lanes >= 16 && hi - lo >= 16) {
      mp_vec16(g, x, y0, fy, lo, hi, y, yi);
      ox = mp_vec16(g, x, y0, fy, hi - 16, hi, y, yi);
    } else if (lanes >= 8 && hi - lo >= 8) {
      mp_vec8(g, x, y0, fy, lo, hi, y, yi);
      ox = mp_vec8(g, x, y0, fy, hi - 8, hi, y, yi);
    }
    for (; ox < g->ow; ox++) mp_one(g, x, y0, fy, ox, &y[ox], &yi[ox]);
  }
}

/* The vector path's indices are int32 and its strides fit them. */
static int mp_vec_ok(const mp_geom *g) {
  return cpu_ew_isa()->lanes >= 8 && g->ih * g->iw < ((int64_t)1 << 31) &&
         g->ow * g->s[1] + g->k[1] * g->d[1] < ((int64_t)1 << 31);
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
  cpu_parallel_for(c->pool, g.planes * g.oh, 1 + 16384 / (work > 0 ? work : 1),
                   mp_vec_ok(&g) ? mp_range_vec : mp_range, &j);
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
