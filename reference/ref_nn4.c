/* reference/ref_nn4.c: upsampling (nearest, bilinear), grid_sampler_2d and the
 * embeddings (embedding, embedding_dense_backward, _embedding_bag). Listed in
 * ref_nn3.c's table. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ref.h"
#include "ref_grid.h"
#include "ref_misc_check.h"
#include "ref_nn_util.h"
#include "ref_padup_check.h"
#include "ref_shape_util.h"

/* --- upsampling ---------------------------------------------------------------
 * Exactly one of output_size and scale_factors. With scale factors the output
 * size is floor(in * scale) and the kernel's scale is 1/scale; with output_size
 * it is in/out (ATen's compute_scales_value). Input: 4-D [N, C, H, W]. */
typedef struct up_geom {
  int64_t in[2], out[2];
  int has_scale;
  double scale[2]; /* the given scale factors */
} up_geom;

/* The checked geometry (ref_up_check) and the input's H, W. */
static tabi_status up_setup(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                            const tabi_value *osv, const tabi_value *sfv, int bilinear, up_geom *g) {
  tabi_status st = ref_up_check(h, call, x, osv, sfv, bilinear, g->out, &g->has_scale, g->scale);
  if (st) return st;
  g->in[0] = x->dl.shape[2];
  g->in[1] = x->dl.shape[3];
  return TABI_OK;
}

/* ATen computes the nearest index in float32: floor(dst * (float)scale),
 * clamped; out == in and out == 2*in are exact shortcuts. Reproduced exactly
 * because floor is discontinuous. */
static int64_t nearest_idx(const up_geom *g, int i, int64_t dst) {
  if (g->out[i] == g->in[i]) return dst;
  if (g->out[i] == 2 * g->in[i]) return dst >> 1;
  float scale = g->has_scale && g->scale[i] > 0 ? (float)(1.0 / g->scale[i])
                                                 : (float)g->in[i] / (float)g->out[i];
  int64_t s = (int64_t)floorf((float)dst * scale);
  return s < g->in[i] - 1 ? s : g->in[i] - 1;
}

tabi_status ref_nn_upsample_nearest2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *x = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  up_geom g;
  tabi_status st;
  if ((st = up_setup(h, call, x, &args[1], &args[2], 0, &g))) return st;
  int64_t shape[4] = {x->dl.shape[0], x->dl.shape[1], g.out[0], g.out[1]};
  tabi_tensor *out;
  if ((st = ref_empty(h, x, dt, 4, shape, &out))) return st;
  int64_t o = 0;
  for (int64_t n = 0; n < shape[0]; n++)
    for (int64_t c = 0; c < shape[1]; c++)
      for (int64_t y = 0; y < g.out[0]; y++)
        for (int64_t xx = 0; xx < g.out[1]; xx++, o++) {
          int64_t off = n * x->dl.strides[0] + c * x->dl.strides[1] + nearest_idx(&g, 0, y) * x->dl.strides[2] +
                        nearest_idx(&g, 1, xx) * x->dl.strides[3];
          ref_store_f(out, o, ref_load_f(x, off));
        }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

/* Source coordinate of dst: align_corners maps corners to corners (scale
 * (in-1)/(out-1)); otherwise pixel centers, (dst + 0.5) * scale - 0.5, clamped
 * at 0. Computed in double (ATen uses the op's compute type; the interpolated
 * value is continuous in it, so only rounding differs). */
static double linear_src(const up_geom *g, int i, int64_t dst, int align) {
  if (align) return g->out[i] > 1 ? (double)(g->in[i] - 1) / (double)(g->out[i] - 1) * (double)dst : 0.0;
  double scale = g->has_scale && g->scale[i] > 0 ? 1.0 / g->scale[i] : (double)g->in[i] / (double)g->out[i];
  double s = scale * ((double)dst + 0.5) - 0.5;
  return s < 0 ? 0 : s;
}

tabi_status ref_nn_upsample_bilinear2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *x = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  int align = args[2].u.i != 0;
  up_geom g;
  tabi_status st;
  if ((st = up_setup(h, call, x, &args[1], &args[3], 1, &g))) return st;
  int64_t shape[4] = {x->dl.shape[0], x->dl.shape[1], g.out[0], g.out[1]};
  tabi_tensor *out;
  if ((st = ref_empty(h, x, dt, 4, shape, &out))) return st;
  int64_t o = 0;
  for (int64_t n = 0; n < shape[0]; n++)
    for (int64_t c = 0; c < shape[1]; c++)
      for (int64_t y = 0; y < g.out[0]; y++)
        for (int64_t xx = 0; xx < g.out[1]; xx++, o++) {
          double sy = linear_src(&g, 0, y, align), sx = linear_src(&g, 1, xx, align);
          int64_t y0 = (int64_t)sy, x0 = (int64_t)sx;
          if (y0 > g.in[0] - 1) y0 = g.in[0] - 1;
          if (x0 > g.in[1] - 1) x0 = g.in[1] - 1;
          int64_t y1 = y0 + (y0 < g.in[0] - 1), x1 = x0 + (x0 < g.in[1] - 1);
          double ly = sy - (double)y0, lx = sx - (double)x0;
          int64_t base = n * x->dl.strides[0] + c * x->dl.strides[1];
          int64_t s2 = x->dl.strides[2], s3 = x->dl.strides[3];
          double v = (1 - ly) * ((1 - lx) * ref_load_f(x, base + y0 * s2 + x0 * s3) + lx * ref_load_f(x, base + y0 * s2 + x1 * s3)) +
                     ly * ((1 - lx) * ref_load_f(x, base + y1 * s2 + x0 * s3) + lx * ref_load_f(x, base + y1 * s2 + x1 * s3));
          ref_store_f(out, o, v);
        }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

/* --- grid_sampler_2d -------------------------------------------------------------
 * ATen's GridSampler.h, in double: grid[..., 0] is x (width), [..., 1] is y.
 * interpolation 0 bilinear, 1 nearest (round half to even), 2 bicubic (A=-0.75);
 * padding 0 zeros, 1 border, 2 reflection. */
static double gs_get(const tabi_tensor *x, int64_t base, int64_t yy, int64_t xx, int64_t H, int64_t W) {
  if (yy < 0 || yy >= H || xx < 0 || xx >= W) return 0;
  return ref_load_f(x, base + yy * x->dl.strides[2] + xx * x->dl.strides[3]);
}

tabi_status ref_nn_grid_sampler_2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *x = args[0].u.t, *grid = args[1].u.t;
  int64_t mode = args[2].u.i, pad = args[3].u.i;
  int align = args[4].u.i != 0;
  tabi_dtype dt = tabi_tensor_dtype(x);
  tabi_status st = ref_grid_check(h, call, args);
  if (st) return st;
  int64_t N = x->dl.shape[0], C = x->dl.shape[1], H = x->dl.shape[2], W = x->dl.shape[3];
  int64_t Ho = grid->dl.shape[1], Wo = grid->dl.shape[2];
  int64_t shape[4] = {N, C, Ho, Wo};
  tabi_tensor *out;
  if ((st = ref_empty(h, x, dt, 4, shape, &out))) return st;
  const int64_t *gs = grid->dl.strides;
  for (int64_t n = 0; n < N; n++)
    for (int64_t i = 0; i < Ho; i++)
      for (int64_t j = 0; j < Wo; j++) {
        int64_t go = n * gs[0] + i * gs[1] + j * gs[2];
        double gx = ref_load_f(grid, go), gy = ref_load_f(grid, go + gs[3]);
        double ix, iy;
        if (mode == 2) {
          ix = gs_unnormalize(gx, W, align);
          iy = gs_unnormalize(gy, H, align);
        } else {
          ix = gs_safe(gs_pad(gs_unnormalize(gx, W, align), W, (int)pad, align));
          iy = gs_safe(gs_pad(gs_unnormalize(gy, H, align), H, (int)pad, align));
        }
        for (int64_t c = 0; c < C; c++) {
          int64_t base = n * x->dl.strides[0] + c * x->dl.strides[1];
          double v = 0;
          if (mode == 0) {
            double fx = floor(ix), fy = floor(iy);
            int64_t x0 = (int64_t)fx, y0 = (int64_t)fy;
            double tx = ix - fx, ty = iy - fy;
            v = gs_get(x, base, y0, x0, H, W) * (1 - tx) * (1 - ty) + gs_get(x, base, y0, x0 + 1, H, W) * tx * (1 - ty) +
                gs_get(x, base, y0 + 1, x0, H, W) * (1 - tx) * ty + gs_get(x, base, y0 + 1, x0 + 1, H, W) * tx * ty;
          } else if (mode == 1) {
            v = gs_get(x, base, (int64_t)nearbyint(iy), (int64_t)nearbyint(ix), H, W);
          } else {
            double fx = floor(ix), fy = floor(iy), tx = ix - fx, ty = iy - fy, A = -0.75;
            double cx[4] = {cubic2(tx + 1, A), cubic1(tx, A), cubic1(1 - tx, A), cubic2(2 - tx, A)};
            double cy[4] = {cubic2(ty + 1, A), cubic1(ty, A), cubic1(1 - ty, A), cubic2(2 - ty, A)};
            for (int a = 0; a < 4; a++) {
              double row = 0;
              for (int b = 0; b < 4; b++) {
                /* each tap's coordinate is padded on its own */
                double px = gs_safe(gs_pad(fx - 1 + b, W, (int)pad, align));
                double py = gs_safe(gs_pad(fy - 1 + a, H, (int)pad, align));
                row += cx[b] * gs_get(x, base, (int64_t)py, (int64_t)px, H, W);
              }
              v += cy[a] * row;
            }
          }
          ref_store_f(out, ((n * C + c) * Ho + i) * Wo + j, v);
        }
      }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

/* --- embeddings ---------------------------------------------------------------- */

static const uint32_t IDX_DTS = REF_DT(TABI_DTYPE_INT32) | REF_DT(TABI_DTYPE_INT64);

/* out[..., :] = weight[indices[...], :]; padding_idx only matters backward. */
tabi_status ref_nn_embedding(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *w = args[0].u.t, *ind = args[1].u.t;
  tabi_status st;
  if ((st = ref_check_dtype(h, call, "indices", tabi_tensor_dtype(ind), IDX_DTS))) return st;
  if (w->dl.ndim != 2)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'weight' must be 2-D, got %dD", ref_op_name(h, call),
                   (int)w->dl.ndim);
  if (ind->dl.ndim + 1 > REF_MAX_DIMS)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: too many dims in 'indices'", ref_op_name(h, call));
  int64_t V = w->dl.shape[0], D = w->dl.shape[1], ni = tabi_tensor_numel(ind);
  for (int64_t i = 0; i < ni; i++) {
    int64_t v = ref_load_i(ind, ref_offset_of(ind, i));
    if (v < 0 || v >= V) return ref_embedding_index_error(h, call, v, V);
  }
  int64_t shape[REF_MAX_DIMS];
  for (int32_t i = 0; i < ind->dl.ndim; i++) shape[i] = ind->dl.shape[i];
  shape[ind->dl.ndim] = D;
  tabi_tensor *out;
  if ((st = ref_empty(h, w, tabi_tensor_dtype(w), ind->dl.ndim + 1, shape, &out))) return st;
  for (int64_t i = 0; i < ni; i++) {
    int64_t v = ref_load_i(ind, ref_offset_of(ind, i));
    for (int64_t d = 0; d < D; d++) /* an exact copy: int64 past 2^53 does not survive a double */
      rs_copy_elem(out, i * D + d, w, v * w->dl.strides[0] + d * w->dl.strides[1]);
  }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

/* grad_weight[num_weights, D] = sum over positions i with indices[i] == r (and
 * r != padding_idx, compared as is: a negative padding_idx matches nothing) of
 * grad_output[i, :], each divided by the count of r when scale_grad_by_freq. */
tabi_status ref_nn_embedding_dense_backward(void *ctx, const tabi_call *call, tabi_value *args,
                                            tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *go = args[0].u.t, *ind = args[1].u.t;
  int64_t V = args[2].u.i, pad = args[3].u.i;
  int scale = args[4].u.i != 0;
  tabi_dtype dt = tabi_tensor_dtype(go);
  int64_t D;
  tabi_status st = ref_embbw_check(h, call, args, &D);
  if (st) return st;
  int64_t ni = tabi_tensor_numel(ind);
  int integral = tabi_dtype_is_integral(dt, 0);
  int64_t *cnt = ref_nn_izeros(V), *iacc = integral ? ref_nn_izeros(V * D) : NULL, *iv = ref_nn_izeros(ni);
  double *acc = integral ? NULL : ref_nn_zeros(V * D);
  if (!cnt || !iv || (integral ? !iacc : !acc)) {
    ref_nn_free(cnt);
    ref_nn_free(iacc);
    ref_nn_free(acc);
    ref_nn_free(iv);
    return REF_ERR(h, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", ref_op_name(h, call));
  }
  for (int64_t i = 0; i < ni; i++) iv[i] = ref_load_i(ind, ref_offset_of(ind, i));
  if ((st = ref_embbw_check_indices(h, call, iv, ni, V))) {
    ref_nn_free(cnt);
    ref_nn_free(iacc);
    ref_nn_free(acc);
    ref_nn_free(iv);
    return st;
  }
  for (int64_t i = 0; i < ni; i++) cnt[iv[i]]++;
  /* ATen adds grad_output[i] with alpha = 1.0 / count (add_stub with a double
   * Scalar alpha). An integer dtype takes alpha.to<int>(), which truncates: 1 for
   * a row seen once, 0 for a row seen more often. Integers accumulate in int64
   * (wrapping), so the store wraps as ATen's adds in the dtype do. */
  for (int64_t i = 0; i < ni; i++) {
    int64_t v = iv[i];
    if (v == pad) continue;
    for (int64_t d = 0; d < D; d++) {
      if (integral) {
        int64_t g = ref_load_i(go, ref_offset_of(go, i * D + d));
        if (!scale || cnt[v] == 1) iacc[v * D + d] = ref_wrap_add(iacc[v * D + d], g);
      } else {
        double g = ref_load_f(go, ref_offset_of(go, i * D + d));
        acc[v * D + d] += scale ? g / (double)cnt[v] : g;
      }
    }
  }
  int64_t shape[2] = {V, D};
  tabi_tensor *out;
  if ((st = ref_empty(h, go, dt, 2, shape, &out)) == TABI_OK) {
    for (int64_t i = 0; i < V * D; i++) {
      if (integral) ref_store_i(out, i, iacc[i]);
      else ref_store_f(out, i, acc[i]);
    }
    ref_set_out(outs, 0, out);
  }
  ref_nn_free(cnt);
  ref_nn_free(iacc);
  ref_nn_free(acc);
  ref_nn_free(iv);
  return st;
}
