/* reference/ref_nn.c: convolution (1d/2d/3d, strided, padded, dilated, grouped,
 * transposed), its backward, and col2im.
 *
 * One picture covers all of them. A convolution relates a "low-res" tensor L
 * (positions l) and a "high-res" tensor H (positions h) through
 *     h = l*stride - padding + k*dilation          (per spatial dim)
 * and a weight indexed [L channel, H channel within the group, k...]. For an
 * ordinary convolution L is the output and H the input; for a transposed one
 * L is the input and H the output (its weight is [in, out/groups, k...]).
 * So there are exactly three sums: L from H (gather), H from L (scatter, written
 * as a gather over the (l, k) pairs that reach h), and the weight gradient.
 * Spatial dims are padded to three with size 1 so one loop nest serves 1d-3d.
 *
 * dtypes: every integer type (accumulated in wrapping int64) and every float
 * (in double); float16 is taken (torch 1.13 CPU refuses it, ATen today has it);
 * not bool, not complex (aten::convolution itself has no complex kernel: torch
 * decomposes complex convs above it). */
#include <stdio.h>
#include <string.h>

#include "ref.h"
#include "ref_conv_check.h"
#include "ref_padup_check.h"

typedef ref_conv_geom conv_geom; /* the checks and the geometry: ref_conv_check.c */

typedef struct acc {
  int isint;
  int64_t i;
  double f;
} acc;

static inline void acc_fma(acc *a, const tabi_tensor *x, int64_t xo, const tabi_tensor *y, int64_t yo) {
  if (a->isint) a->i = ref_wrap_add(a->i, ref_wrap_mul(ref_load_i(x, xo), ref_load_i(y, yo)));
  else a->f += ref_load_f(x, xo) * ref_load_f(y, yo);
}
static inline void acc_add(acc *a, const tabi_tensor *x, int64_t xo) {
  if (a->isint) a->i = ref_wrap_add(a->i, ref_load_i(x, xo));
  else a->f += ref_load_f(x, xo);
}
static inline void acc_store(const acc *a, tabi_tensor *t, int64_t o) {
  if (a->isint) ref_store_i(t, o, a->i);
  else ref_store_f(t, o, a->f);
}

/* Offset of [b, c, pos...] in a batched N-C-spatial tensor (ns spatial dims). */
static int64_t off_nc(const tabi_tensor *t, int64_t b, int64_t c, const int64_t *pos, int32_t ns) {
  int64_t o = b * t->dl.strides[0] + c * t->dl.strides[1];
  for (int32_t i = 0; i < ns; i++) o += pos[i] * t->dl.strides[2 + i];
  return o;
}
static int64_t off_w(const tabi_tensor *t, int64_t c0, int64_t c1, const int64_t *pos, int32_t ns) {
  int64_t o = c0 * t->dl.strides[0] + c1 * t->dl.strides[1];
  for (int32_t i = 0; i < ns; i++) o += pos[i] * t->dl.strides[2 + i];
  return o;
}

/* L[b, cl, l] (+ bias[cl]) = sum over the group's H channels and k of
 * H[b, ch, l*s-p+k*d] * W[cl, ch - group start, k]. Output `out` contiguous. */
static void conv_gather_l(const conv_geom *g, int32_t ns, const tabi_tensor *H, const tabi_tensor *W,
                          const tabi_tensor *bias, tabi_tensor *out, int isint) {
  int64_t clg = g->cl / g->groups, chg = g->ch / g->groups, o = 0;
  int64_t l[3], kk[3], hp[3];
  for (int64_t b = 0; b < g->n; b++)
    for (int64_t cl = 0; cl < g->cl; cl++)
      for (l[0] = 0; l[0] < g->lsp[0]; l[0]++)
        for (l[1] = 0; l[1] < g->lsp[1]; l[1]++)
          for (l[2] = 0; l[2] < g->lsp[2]; l[2]++, o++) {
            acc a = {isint, 0, 0};
            if (bias) acc_add(&a, bias, cl * bias->dl.strides[0]);
            int64_t grp = cl / clg;
            for (int64_t c = 0; c < chg; c++)
              for (kk[0] = 0; kk[0] < g->k[0]; kk[0]++)
                for (kk[1] = 0; kk[1] < g->k[1]; kk[1]++)
                  for (kk[2] = 0; kk[2] < g->k[2]; kk[2]++) {
                    int in = 1;
                    for (int i = 0; i < 3; i++) {
                      hp[i] = l[i] * g->s[i] - g->p[i] + kk[i] * g->d[i];
                      in = in && hp[i] >= 0 && hp[i] < g->hsp[i];
                    }
                    if (!in) continue;
                    acc_fma(&a, H, off_nc(H, b, grp * chg + c, hp, ns), W, off_w(W, cl, c, kk, ns));
                  }
            acc_store(&a, out, o);
          }
}

/* H[b, ch, h] (+ bias[ch]) = sum over the group's L channels and the (l, k)
 * with l*s-p+k*d == h of L[b, cl, l] * W[cl, ch - group start, k]. */
static void conv_gather_h(const conv_geom *g, int32_t ns, const tabi_tensor *L, const tabi_tensor *W,
                          const tabi_tensor *bias, tabi_tensor *out, int isint) {
  int64_t clg = g->cl / g->groups, chg = g->ch / g->groups, o = 0;
  int64_t hh[3], kk[3], lp[3];
  for (int64_t b = 0; b < g->n; b++)
    for (int64_t ch = 0; ch < g->ch; ch++)
      for (hh[0] = 0; hh[0] < g->hsp[0]; hh[0]++)
        for (hh[1] = 0; hh[1] < g->hsp[1]; hh[1]++)
          for (hh[2] = 0; hh[2] < g->hsp[2]; hh[2]++, o++) {
            acc a = {isint, 0, 0};
            if (bias) acc_add(&a, bias, ch * bias->dl.strides[0]);
            int64_t grp = ch / chg;
            for (int64_t c = 0; c < clg; c++)
              for (kk[0] = 0; kk[0] < g->k[0]; kk[0]++)
                for (kk[1] = 0; kk[1] < g->k[1]; kk[1]++)
                  for (kk[2] = 0; kk[2] < g->k[2]; kk[2]++) {
                    int in = 1;
                    for (int i = 0; i < 3; i++) {
                      int64_t num = hh[i] + g->p[i] - kk[i] * g->d[i];
                      lp[i] = num >= 0 ? num / g->s[i] : -1;
                      in = in && num >= 0 && num % g->s[i] == 0 && lp[i] < g->lsp[i];
                    }
                    if (!in) continue;
                    int64_t cl = grp * clg + c;
                    acc_fma(&a, L, off_nc(L, b, cl, lp, ns), W, off_w(W, cl, ch - grp * chg, kk, ns));
                  }
            acc_store(&a, out, o);
          }
}

/* gW[cl, c, k] = sum over b, l of L[b, cl, l] * H[b, group start + c, l*s-p+k*d]. */
static void conv_weight_grad(const conv_geom *g, int32_t ns, const tabi_tensor *L, const tabi_tensor *H,
                             tabi_tensor *out, int isint) {
  int64_t clg = g->cl / g->groups, chg = g->ch / g->groups, o = 0;
  int64_t l[3], kk[3], hp[3];
  for (int64_t cl = 0; cl < g->cl; cl++)
    for (int64_t c = 0; c < chg; c++)
      for (kk[0] = 0; kk[0] < g->k[0]; kk[0]++)
        for (kk[1] = 0; kk[1] < g->k[1]; kk[1]++)
          for (kk[2] = 0; kk[2] < g->k[2]; kk[2]++, o++) {
            acc a = {isint, 0, 0};
            int64_t ch = (cl / clg) * chg + c;
            for (int64_t b = 0; b < g->n; b++)
              for (l[0] = 0; l[0] < g->lsp[0]; l[0]++)
                for (l[1] = 0; l[1] < g->lsp[1]; l[1]++)
                  for (l[2] = 0; l[2] < g->lsp[2]; l[2]++) {
                    int in = 1;
                    for (int i = 0; i < 3; i++) {
                      hp[i] = l[i] * g->s[i] - g->p[i] + kk[i] * g->d[i];
                      in = in && hp[i] >= 0 && hp[i] < g->hsp[i];
                    }
                    if (!in) continue;
                    acc_fma(&a, L, off_nc(L, b, cl, l, ns), H, off_nc(H, b, ch, hp, ns));
                  }
            acc_store(&a, out, o);
          }
}

static tabi_status k_convolution(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *in = args[0].u.t, *w = args[1].u.t;
  const tabi_tensor *bias = args[2].tag == TABI_TAG_TENSOR ? args[2].u.t : NULL;
  conv_geom g;
  int32_t ns;
  int transposed;
  int64_t oshape[5];
  tabi_status st = ref_conv_check(h, call, args, &g, &ns, oshape, &transposed);
  if (st) return st;
  tabi_dtype dt = tabi_tensor_dtype(in);
  tabi_tensor *out;
  if ((st = ref_empty(h, in, dt, ns + 2, oshape, &out))) return st;
  int isint = tabi_dtype_is_integral(dt, 1);
  if (transposed) conv_gather_h(&g, ns, in, w, bias, out, isint);
  else conv_gather_l(&g, ns, in, w, bias, out, isint);
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

/* grad_input, grad_weight, grad_bias (each NONE when its output_mask is off). */
static tabi_status k_convolution_backward(void *ctx, const tabi_call *call, tabi_value *args,
                                          tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *go = args[0].u.t, *in = args[1].u.t, *w = args[2].u.t;
  const int64_t *mask = tabi_value_ints(&args[10]);
  conv_geom g;
  int32_t ns;
  int transposed;
  int64_t oshape[5];
  tabi_status st = ref_conv_bwd_check(h, call, args, &g, &ns, oshape, &transposed);
  if (st) return st;
  tabi_dtype dt = tabi_tensor_dtype(in);
  int isint = tabi_dtype_is_integral(dt, 1);
  tabi_tensor *gi = NULL, *gw = NULL, *gb = NULL;
  if (mask[0]) {
    if ((st = ref_empty(h, in, dt, in->dl.ndim, in->dl.shape, &gi))) goto fail;
    if (transposed) conv_gather_l(&g, ns, go, w, NULL, gi, isint); /* input is L */
    else conv_gather_h(&g, ns, go, w, NULL, gi, isint);            /* input is H */
  }
  if (mask[1]) {
    if ((st = ref_empty(h, w, dt, w->dl.ndim, w->dl.shape, &gw))) goto fail;
    if (transposed) conv_weight_grad(&g, ns, in, go, gw, isint);
    else conv_weight_grad(&g, ns, go, in, gw, isint);
  }
  if (mask[2]) {
    int64_t c = oshape[1];
    if ((st = ref_empty(h, go, dt, 1, &c, &gb))) goto fail;
    int64_t sp = 1;
    for (int32_t i = 0; i < ns; i++) sp *= oshape[2 + i];
    for (int64_t ch = 0; ch < c; ch++) {
      acc a = {isint, 0, 0};
      for (int64_t b = 0; b < oshape[0]; b++)
        for (int64_t p = 0; p < sp; p++) {
          int64_t pos[3], r = p;
          for (int32_t i = ns - 1; i >= 0; i--) {
            pos[i] = r % oshape[2 + i];
            r /= oshape[2 + i];
          }
          acc_add(&a, go, off_nc(go, b, ch, pos, ns));
        }
      acc_store(&a, gb, ch);
    }
  }
  ref_set_out(outs, 0, gi);
  ref_set_out(outs, 1, gw);
  ref_set_out(outs, 2, gb);
  return TABI_OK;
fail:
  h->tensor_release(h->ctx, gi);
  h->tensor_release(h->ctx, gw);
  h->tensor_release(h->ctx, gb);
  return st;
}

/* col2im: sums the columns of sliding blocks back into an image.
 * self [N?, C*kh*kw, L] -> [N?, C, oh, ow]; block (bh, bw), kernel (i, j) lands at
 * (bh*sh - ph + i*dh, bw*sw - pw + j*dw). Floats (half included) and complex. */
static tabi_status k_col2im(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *x = args[0].u.t;
  const int64_t *osz = tabi_value_ints(&args[1]), *ks = tabi_value_ints(&args[2]);
  const int64_t *dil = tabi_value_ints(&args[3]), *pad = tabi_value_ints(&args[4]);
  const int64_t *str = tabi_value_ints(&args[5]);
  tabi_dtype dt = tabi_tensor_dtype(x);
  int64_t oshape[4], nb[2];
  int batched;
  tabi_status st = ref_col2im_check(h, call, x, args, oshape, &batched, nb);
  if (st) return st;
  int32_t nd = x->dl.ndim;
  int64_t n = oshape[0], c = oshape[1];
  tabi_tensor *out;
  if ((st = ref_empty(h, x, dt, batched ? 4 : 3, batched ? oshape : oshape + 1, &out))) return st;
  int64_t s0 = batched ? x->dl.strides[0] : 0, s1 = x->dl.strides[nd - 2], s2 = x->dl.strides[nd - 1];
  int64_t o = 0;
  for (int64_t b = 0; b < n; b++)
    for (int64_t ch = 0; ch < c; ch++)
      for (int64_t y = 0; y < osz[0]; y++)
        for (int64_t xx = 0; xx < osz[1]; xx++, o++) {
          ref_cplx sum = 0;
          for (int64_t i = 0; i < ks[0]; i++)
            for (int64_t j = 0; j < ks[1]; j++) {
              int64_t ny = y + pad[0] - i * dil[0], nx = xx + pad[1] - j * dil[1];
              if (ny < 0 || nx < 0 || ny % str[0] || nx % str[1]) continue;
              int64_t by = ny / str[0], bx = nx / str[1];
              if (by >= nb[0] || bx >= nb[1]) continue;
              sum += ref_load_c(x, b * s0 + (ch * ks[0] * ks[1] + i * ks[1] + j) * s1 + (by * nb[1] + bx) * s2);
            }
          ref_store_c(out, o, sum);
        }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

const ref_kernel ref_nn_kernels[] = {
    {"aten::convolution", k_convolution},
    {"aten::convolution_backward", k_convolution_backward},
    {"aten::col2im", k_col2im},
    {NULL, NULL},
};
