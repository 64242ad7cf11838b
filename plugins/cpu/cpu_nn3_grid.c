/* plugins/cpu/cpu_nn3_grid.c: grid_sampler_2d (bilinear, nearest, bicubic x
 * zeros, border, reflection, align_corners either way) for float32/float64
 * CPU tensors of any strides.
 *
 * The coordinate arithmetic is the reference's (reference/ref_nn4.c, ATen's
 * GridSampler.h in double), operation for operation, built with
 * -ffp-contract=off: nearest rounds and every mode floors, so a contracted
 * multiply-add could move a sample to another pixel. Out-of-range taps read an
 * exact 0 that is then multiplied by its weight, as the reference does (a NaN
 * weight still gives NaN; an in-range inf times a zero weight still gives NaN).
 *
 * Output rows (n, i) run on the pool. A row's taps (offsets into the input
 * plane, in-range flags, weights) are computed once, then every channel walks
 * the row: writes are contiguous and the coordinates are not redone per
 * channel. Bad arguments and empty tensors run the reference kernel.
 */
#include <math.h>
#include <stdlib.h>

#include "cpu_nn3.h"
#include "ref_grid.h"

#define GS_TAPS 16

typedef struct gs_job {
  int64_t C, H, W, Ho, Wo, mode, pad;
  int align, f64;
  int64_t xs[4], gs[4];
  const char *x, *grid;
  char *y;
  int64_t *off; /* [nblk][Wo][GS_TAPS]: plane offset, -1 when out of range */
  double *wt;   /* [nblk][Wo][8]: bilinear 4 weights (tx, ty use), bicubic cx[4], cy[4] */
  int64_t rows, nblk;
} gs_job;

static double gs_load(const gs_job *j, const char *p, int64_t off) {
  return j->f64 ? ((const double *)p)[off] : (double)((const float *)p)[off];
}

/* Input offset of in-plane pixel (yy, xx), -1 when outside. */
static int64_t gs_tap(const gs_job *j, int64_t yy, int64_t xx) {
  if (yy < 0 || yy >= j->H || xx < 0 || xx >= j->W) return -1;
  return yy * j->xs[2] + xx * j->xs[3];
}

/* Taps and weights of output pixel (n, i, q). */
static void gs_point(const gs_job *j, int64_t n, int64_t i, int64_t q, int64_t *off, double *wt) {
  int64_t go = n * j->gs[0] + i * j->gs[1] + q * j->gs[2];
  double gx = gs_load(j, j->grid, go), gy = gs_load(j, j->grid, go + j->gs[3]);
  int pad = (int)j->pad, align = j->align;
  double ix, iy;
  if (j->mode == 2) {
    ix = gs_unnormalize(gx, j->W, align);
    iy = gs_unnormalize(gy, j->H, align);
  } else {
    ix = gs_safe(gs_pad(gs_unnormalize(gx, j->W, align), j->W, pad, align));
    iy = gs_safe(gs_pad(gs_unnormalize(gy, j->H, align), j->H, pad, align));
  }
  if (j->mode == 0) {
    double fx = floor(ix), fy = floor(iy);
    int64_t x0 = (int64_t)fx, y0 = (int64_t)fy;
    wt[0] = ix - fx;
    wt[1] = iy - fy;
    off[0] = gs_tap(j, y0, x0);
    off[1] = gs_tap(j, y0, x0 + 1);
    off[2] = gs_tap(j, y0 + 1, x0);
    off[3] = gs_tap(j, y0 + 1, x0 + 1);
  } else if (j->mode == 1) {
    off[0] = gs_tap(j, (int64_t)nearbyint(iy), (int64_t)nearbyint(ix));
  } else {
    double fx = floor(ix), fy = floor(iy), tx = ix - fx, ty = iy - fy, A = -0.75;
    wt[0] = cubic2(tx + 1, A);
    wt[1] = cubic1(tx, A);
    wt[2] = cubic1(1 - tx, A);
    wt[3] = cubic2(2 - tx, A);
    wt[4] = cubic2(ty + 1, A);
    wt[5] = cubic1(ty, A);
    wt[6] = cubic1(1 - ty, A);
    wt[7] = cubic2(2 - ty, A);
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) {
        double px = gs_safe(gs_pad(fx - 1 + b, j->W, pad, align));
        double py = gs_safe(gs_pad(fy - 1 + a, j->H, pad, align));
        off[a * 4 + b] = gs_tap(j, (int64_t)py, (int64_t)px);
      }
  }
}

/* The value at tap offset o of plane p: an exact 0 outside. */
#define GS_V(o) ((o) < 0 ? 0.0 : (double)p[o])

#define GS_ROW(T)                                                                                      \
  static void gs_row_##T(const gs_job *j, const int64_t *off, const double *wt, int64_t n, int64_t i) { \
    int64_t Wo = j->Wo;                                                                                \
    for (int64_t ch = 0; ch < j->C; ch++) {                                                            \
      const T *p = (const T *)j->x + n * j->xs[0] + ch * j->xs[1];                                     \
      T *o = (T *)j->y + ((n * j->C + ch) * j->Ho + i) * Wo;                                           \
      if (j->mode == 0)                                                                                \
        for (int64_t q = 0; q < Wo; q++) {                                                             \
          const int64_t *f = off + q * GS_TAPS;                                                        \
          double tx = wt[q * 8], ty = wt[q * 8 + 1];                                                   \
          o[q] = (T)(GS_V(f[0]) * (1 - tx) * (1 - ty) + GS_V(f[1]) * tx * (1 - ty) +                   \
                     GS_V(f[2]) * (1 - tx) * ty + GS_V(f[3]) * tx * ty);                               \
        }                                                                                              \
      else if (j->mode == 1)                                                                           \
        for (int64_t q = 0; q < Wo; q++) o[q] = (T)GS_V(off[q * GS_TAPS]);                            \
      else                                                                                             \
        for (int64_t q = 0; q < Wo; q++) {                                                             \
          const int64_t *f = off + q * GS_TAPS;                                                        \
          const double *w = wt + q * 8;                                                                \
          double v = 0;                                                                                \
          for (int a = 0; a < 4; a++) {                                                                \
            double row = 0;                                                                            \
            for (int b = 0; b < 4; b++) row += w[b] * GS_V(f[a * 4 + b]);                              \
            v += w[4 + a] * row;                                                                       \
          }                                                                                            \
          o[q] = (T)v;                                                                                 \
        }                                                                                              \
    }                                                                                                  \
  }
GS_ROW(float)
GS_ROW(double)

static void gs_range(void *arg, int64_t bb, int64_t be) {
  const gs_job *j = arg;
  for (int64_t b = bb; b < be; b++) {
    int64_t *off = j->off + b * j->Wo * GS_TAPS;
    double *wt = j->wt + b * j->Wo * 8;
    for (int64_t r = b * j->rows / j->nblk; r < (b + 1) * j->rows / j->nblk; r++) {
      int64_t n = r / j->Ho, i = r % j->Ho;
      for (int64_t q = 0; q < j->Wo; q++) gs_point(j, n, i, q, off + q * GS_TAPS, wt + q * 8);
      if (j->f64) gs_row_double(j, off, wt, n, i);
      else gs_row_float(j, off, wt, n, i);
    }
  }
}

tabi_status cpu_k_grid_sampler_2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, GRID_SAMPLER_2D);
  const tabi_tensor *x = args[0].u.t, *grid = args[1].u.t;
  int64_t mode = args[2].u.i, pad = args[3].u.i;
  tabi_dtype dt = tabi_tensor_dtype(x);
  if ((dt != TABI_DTYPE_FLOAT32 && dt != TABI_DTYPE_FLOAT64) || tabi_tensor_dtype(grid) != dt ||
      x->dl.device.device_type != kDLCPU || grid->dl.device.device_type != kDLCPU)
    return CPU_FALLBACK(c, GRID_SAMPLER_2D);
  if (mode < 0 || mode > 2 || pad < 0 || pad > 2 || x->dl.ndim != 4 || grid->dl.ndim != 4 ||
      grid->dl.shape[0] != x->dl.shape[0] || grid->dl.shape[3] != 2 || x->dl.shape[2] == 0 ||
      x->dl.shape[3] == 0 || tabi_tensor_numel(x) == 0 || tabi_tensor_numel(grid) == 0)
    return CPU_FALLBACK(c, GRID_SAMPLER_2D);
  int64_t N = x->dl.shape[0], C = x->dl.shape[1], Ho = grid->dl.shape[1], Wo = grid->dl.shape[2];
  int64_t rows = N * Ho, per = Wo * (C + (mode == 2 ? 16 : 4)), grain = 1 + 16384 / per;
  int64_t nblk = (rows + grain - 1) / grain;
  if (nblk > c->nthreads) nblk = c->nthreads > 0 ? c->nthreads : 1;
  int64_t *off = malloc(sizeof(int64_t) * GS_TAPS * (size_t)(nblk * Wo));
  double *wt = malloc(sizeof(double) * 8 * (size_t)(nblk * Wo));
  if (!off || !wt) {
    free(off);
    free(wt);
    return CPU_FALLBACK(c, GRID_SAMPLER_2D);
  }
  int64_t shape[4] = {N, C, Ho, Wo};
  tabi_tensor *out;
  tabi_status st = cpu_empty(c, x, dt, 4, shape, &out);
  if (st) {
    free(off);
    free(wt);
    return st;
  }
  gs_job j = {C, x->dl.shape[2], x->dl.shape[3], Ho, Wo, mode, pad, args[4].u.i != 0, dt == TABI_DTYPE_FLOAT64,
              {0}, {0}, tabi_tensor_data(x), tabi_tensor_data(grid), tabi_tensor_data(out), off, wt, rows,
              nblk};
  for (int k = 0; k < 4; k++) {
    j.xs[k] = x->dl.strides[k];
    j.gs[k] = grid->dl.strides[k];
  }
  cpu_parallel_for(c->pool, nblk, 1, gs_range, &j);
  free(off);
  free(wt);
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}
