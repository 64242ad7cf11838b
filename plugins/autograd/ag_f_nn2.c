/* ag_f_nn2.c: derivative formulas of col2im, _pdist_forward, _embedding_bag and
 * the double backward of the *_backward ops (convolution, layer/group norm,
 * embedding), after ATen's derivatives.yaml / FunctionsManual.cpp.
 *
 * The op set has no im2col, _pdist_backward or _embedding_bag_backward, so
 * these are written with gathers/scatters (index_select, index_put, scatter_add)
 * built from arange index tensors: every call is differentiable, so the
 * formulas themselves go backward again (create_graph).
 */
#include <stdlib.h>

#include "ag.h"

#define F(name) static tabi_status name(ag_fctx *c)
#define TV(t) tabi_tensor_value(t)
#define U(op, a) ag_u(c, AG_OP_##op, (a))
#define B(op, a, b) ag_b(c, AG_OP_##op, (a), (b))
#define MUL(a, b) B(MUL, a, b)
#define DIV(a, b) B(DIV, a, b)
#define ADD(a, b) B(ADD, a, b)
#define SUB(a, b) B(SUB, a, b)
#define MULS(a, s) ag_muls(c, (a), (s))
#define WHERE(p, a, b) ag_where(c, (p), (a), (b))
#define Z(like) ag_zero_s(c, (like))
#define IN_META(i) (&c->node->in_meta[SLOT(i)])
#define IN_NDIM(i) (IN_META(i)->ndim)
#define IN_SHAPE(i) ag_tmeta_shape(IN_META(i))

static const int64_t *ints(ag_fctx *c, int32_t i, int32_t *n) {
  const tabi_value *v = &c->args[i];
  if (v->tag != TABI_TAG_INT_LIST) { *n = 0; return NULL; }
  *n = (int32_t)v->u.list.len;
  return tabi_value_ints(v);
}

static T index_put(ag_fctx *c, T self, T idx, T vals, int accumulate) {
  tabi_tensor *l[1] = {idx};
  tabi_value a[4] = {TV(self), tabi_tensor_list(l, 1), TV(vals), tabi_bool(accumulate)};
  if (!self || !idx || !vals) return ag_u(c, AG_OP_NEG, NULL);
  return ag_call_t(c, AG_OP_INDEX_PUT, a, 4);
}

static T as_i64(ag_fctx *c, T t) { return ag_to_dtype(c, t, TABI_DTYPE_INT64); }

/* --- col2im: its backward is im2col, a gather from the padded gradient ------------ */
F(f_col2im) {
  if (!NEEDA(0)) return c->status;
  T g = G(0);
  if (!g) return c->status;
  int32_t n1, n2, n3, n4, n5;
  const int64_t *os = ints(c, 1, &n1), *k = ints(c, 2, &n2), *d = ints(c, 3, &n3);
  const int64_t *p = ints(c, 4, &n4), *s = ints(c, 5, &n5);
  if (n1 != 2 || n2 != 2 || n3 != 2 || n4 != 2 || n5 != 2 || g->dl.ndim < 3 || g->dl.ndim > 4)
    return ag_fail(c, TABI_ERR_INVALID_ARGUMENT, "autograd: aten::col2im: expected 2-element size lists "
                   "and a 3-d or 4-d gradient");
  for (int32_t i = 0; i < 2; i++)
    if (k[i] < 1 || d[i] < 1 || s[i] < 1 || p[i] < 0)
      return ag_fail(c, TABI_ERR_INVALID_ARGUMENT, "autograd: aten::col2im: bad kernel_size, dilation, "
                     "padding or stride");
  int64_t hp = os[0] + 2 * p[0], wp = os[1] + 2 * p[1];
  int64_t lh = (hp - d[0] * (k[0] - 1) - 1) / s[0] + 1, lw = (wp - d[1] * (k[1] - 1) - 1) / s[1] + 1;
  if (lh < 0) lh = 0;
  if (lw < 0) lw = 0;
  DLDevice dev = g->dl.device;
  int64_t s1[4] = {k[0], 1, 1, 1}, s2[4] = {1, k[1], 1, 1}, s3[4] = {1, 1, lh, 1}, s4[4] = {1, 1, 1, lw};
  T ki = ag_reshape(c, ag_arange_i64(c, k[0], d[0] * wp, dev), 4, s1);
  T kj = ag_reshape(c, ag_arange_i64(c, k[1], d[1], dev), 4, s2);
  T oh = ag_reshape(c, ag_arange_i64(c, lh, s[0] * wp, dev), 4, s3);
  T ow = ag_reshape(c, ag_arange_i64(c, lw, s[1], dev), 4, s4);
  int64_t nidx = k[0] * k[1] * lh * lw;
  T idx = ag_reshape(c, ADD(ADD(ki, kj), ADD(oh, ow)), 1, &nidx);
  int64_t pads[4] = {p[1], p[1], p[0], p[0]};
  tabi_value pa[2] = {TV(g), tabi_int_list(pads, 4)};
  T gp = ag_call_t(c, AG_OP_CONST_PAD, pa, 2);
  int32_t nd = g->dl.ndim; /* 4: batched, 3: not */
  int64_t fs[3], cols[3];
  for (int32_t i = 0; i < nd - 2; i++) fs[i] = g->dl.shape[i];
  fs[nd - 2] = hp * wp;
  T gf = ag_reshape(c, gp, nd - 1, fs);
  T sel = ag_index_select(c, gf, nd - 2, idx);
  for (int32_t i = 0; i < nd - 3; i++) cols[i] = g->dl.shape[i];
  cols[nd - 3] = g->dl.shape[nd - 3] * k[0] * k[1];
  cols[nd - 2] = lh * lw;
  GINA(0, ag_reshape(c, sel, nd - 1, cols));
  return c->status;
}

/* --- _pdist_forward ------------------------------------------------------------------
 * ATen's _pdist_backward: each pair (i < j) pushes w(x_i - x_j) to x_i and its
 * negative to x_j. With the pair gradients and distances scattered into
 * symmetric [n, n] matrices this is one sum over j of w(x_i - x_j). */
T ag_pnorm_weight(ag_fctx *c, T diff, T gd, T dd, double p) {
  T z = Z(gd);
  T dz = ag_bs(c, AG_OP_EQS, dd, 0.0);
  T one = ag_adds(c, z, 1.0);
  T dsafe = WHERE(dz, one, dd);
  if (p == 0.0) return ag_zeros_like(c, diff);
  if (p == 1.0) return MUL(gd, U(SIGN, diff));
  if (p == 2.0) return WHERE(dz, z, MUL(gd, DIV(diff, dsafe)));
  if (p == 1.0 / 0.0) return MUL(MUL(gd, U(SIGN, diff)), ag_to_dtype(c, B(EQ, U(ABS, diff), dd), tabi_tensor_dtype(diff)));
  /* |diff|^(p-1) at diff = 0: infinite for p < 1 (ATen gives 0 there), 0 for
   * p > 1 but with an infinite derivative for p < 2: computed on a safe value
   * and selected away, so a double backward never multiplies 0 by inf. */
  T zd = ag_bs(c, AG_OP_EQS, diff, 0.0);
  T ad = WHERE(zd, ag_full_like(c, diff, 1.0), U(ABS, diff));
  /* pow refuses an exponent a float16/bfloat16 tensor cannot hold (p = 1e308;
   * float32 takes any, as in ATen); at the dtype's largest finite value every
   * power is already 0, 1 or inf */
  double e = p - 1.0, lim = tabi_tensor_dtype(diff) == TABI_DTYPE_FLOAT16 ? 65504.0
                           : tabi_tensor_dtype(diff) == TABI_DTYPE_FLOAT64 ? 1.7976931348623157e308
                                                                           : 3.38e38;
  if (e > lim) e = lim;
  if (e < -lim) e = -lim;
  T num = WHERE(zd, Z(diff), MUL(U(SIGN, diff), ag_bs(c, AG_OP_POWTS, ad, e)));
  return WHERE(dz, z, MUL(gd, DIV(num, ag_bs(c, AG_OP_POWTS, dsafe, e))));
}

/* Scatters the pair vector v [n(n-1)/2] into a symmetric [n, n] matrix. */
static T pairs_to_sym(ag_fctx *c, T v, T pos, int64_t n) {
  int64_t nn = n * n, sq[2] = {n, n};
  T full = index_put(c, ag_zeros_shape(c, v, 1, &nn), pos, v, 0);
  T m = ag_reshape(c, full, 2, sq);
  return ADD(m, ag_transpose2(c, m));
}

F(f_pdist) {
  if (!NEEDA(0)) return c->status;
  T x = A(0), g = G(0), y = OUT(0);
  if (!x || !g) return c->status;
  int64_t n = x->dl.shape[0];
  if (x->dl.ndim != 2) return ag_fail(c, TABI_ERR_SHAPE, "autograd: aten::_pdist_forward: input is not 2-D");
  if (n < 2) { GINA(0, ag_zeros_like(c, x)); return c->status; }
  double p = ag_arg_f(c, 1);
  DLDevice dev = x->dl.device;
  T ar = ag_arange_i64(c, n, 1, dev);
  T upper = B(LT, ag_unsqueeze(c, ar, 1), ag_unsqueeze(c, ar, 0));
  int64_t nn = n * n, sq[2] = {n, n};
  T all = ag_reshape(c, ag_arange_i64(c, nn, 1, dev), 2, sq);
  tabi_tensor *l[1] = {upper};
  tabi_value ia[2] = {TV(all), tabi_tensor_list(l, 1)};
  T pos = (all && upper) ? ag_call_t(c, AG_OP_INDEX, ia, 2) : NULL; /* row-major i < j: pdist's order */
  T gs = pairs_to_sym(c, g, pos, n), ds = pairs_to_sym(c, y, pos, n);
  T diff = SUB(ag_unsqueeze(c, x, 1), ag_unsqueeze(c, x, 0));
  T w = ag_pnorm_weight(c, diff, ag_unsqueeze(c, gs, -1), ag_unsqueeze(c, ds, -1), p);
  int64_t one = 1;
  GINA(0, ag_sum(c, w, &one, 1, 0));
  return c->status;
}

/* --- _embedding_bag --------------------------------------------------------------------
 * args: weight, indices, offsets, scale_grad_by_freq, mode, sparse,
 * per_sample_weights, include_last_offset, padding_idx. The bag of each index
 * is computed from offsets (offset2bag is empty on ATen's sum fast path). */
F(f_embedding_bag) {
  T w = A(0), ind = A(1), off = A(2), g = G(0), psw = A(6);
  if (!w || !ind || !off || !g) return c->status;
  int64_t mode = ag_arg_i(c, 4), pad = ag_arg_i(c, 8), V = w->dl.shape[0], D = w->dl.shape[1];
  int64_t nb = g->dl.shape[0], n = ind->dl.shape[0];
  int sgbf = (int)ag_arg_i(c, 3);
  if (!NEEDA(0) && !NEEDA(6)) return c->status;
  if (nb == 0 || n == 0) {
    if (NEEDA(0)) GINA(0, ag_zeros_like(c, w));
    if (NEEDA(6) && psw) GINA(6, ag_zeros_like(c, psw));
    return c->status;
  }
  DLDevice dev = g->dl.device;
  T ind64 = as_i64(c, ind);
  T keep = pad >= 0 ? ag_bs(c, AG_OP_NES, ind64, (double)pad) : NULL; /* not padding */
  if (mode == 2) {
    if (!NEEDA(0)) return c->status;
    T nonempty = ag_unsqueeze(c, ag_bs(c, AG_OP_GTS, OUT(2), 0.0), 1);
    T src = WHERE(nonempty, g, Z(g));
    tabi_value a[4] = {TV(ag_zeros_like(c, w)), tabi_int(0), TV(as_i64(c, OUT(3))), TV(src)};
    if (src) GINA(0, ag_call_t(c, AG_OP_SCATTER_ADD, a, 4));
    return c->status;
  }
  /* bag(i) = #{b in [1, B): offsets[b] <= i} */
  tabi_value sa[5] = {TV(as_i64(c, off)), tabi_int(0), tabi_int(1), tabi_int(nb), tabi_int(1)};
  T offs = c->status == TABI_OK ? ag_call_t(c, AG_OP_SLICE, sa, 5) : NULL;
  T le = B(LE, ag_unsqueeze(c, offs, 0), ag_unsqueeze(c, ag_arange_i64(c, n, 1, dev), 1));
  int64_t one = 1;
  T bag = ag_sum(c, as_i64(c, le), &one, 1, 0);
  T gb = ag_index_select(c, g, 0, bag); /* [n, D] */
  if (NEEDA(6) && psw && mode == 0) {
    T prod = ag_sum(c, MUL(gb, ag_index_select(c, w, 0, ind64)), &one, 1, 0);
    GINA(6, keep ? WHERE(keep, prod, Z(prod)) : prod);
  }
  if (!NEEDA(0)) return c->status;
  T rows = gb;
  if (mode == 0 && psw) rows = MUL(rows, ag_unsqueeze(c, psw, 1));
  if (mode == 1) {
    T cnt = ag_to_dtype(c, ag_index_select(c, OUT(2), 0, bag), tabi_tensor_dtype(g));
    cnt = WHERE(ag_bs(c, AG_OP_EQS, cnt, 0.0), ag_adds(c, Z(g), 1.0), cnt);
    rows = DIV(rows, ag_unsqueeze(c, cnt, 1));
  }
  if (sgbf) {
    T ones = ag_full_like(c, ag_to_dtype(c, ind64, tabi_tensor_dtype(g)), 1.0);
    T freq = index_put(c, ag_zeros_shape(c, g, 1, &V), ind64, ones, 1);
    rows = DIV(rows, ag_unsqueeze(c, ag_index_select(c, freq, 0, ind64), 1));
  }
  if (keep) rows = WHERE(ag_unsqueeze(c, keep, 1), rows, Z(g));
  int64_t ws[2] = {V, D};
  GINA(0, index_put(c, ag_zeros_shape(c, g, 2, ws), ind64, rows, 1));
  return c->status;
}

/* --- the *_backward ops --------------------------------------------------------------- */

/* The incoming gradient of return r of an op whose bool[3] output_mask is arg
 * `m`: masked-out returns are None and absent from the node's outputs. */
static T gout_masked(ag_fctx *c, int32_t m, int32_t r) {
  const tabi_value *v = &c->args[m];
  if (v->tag != TABI_TAG_BOOL_LIST || v->u.list.len != 3) return NULL;
  const int64_t *mask = tabi_value_ints(v);
  if (!mask[r]) return NULL;
  int32_t k = 0, set = 0;
  for (int32_t i = 0; i < 3; i++) set += mask[i] != 0;
  if (c->node->nout == 3) return c->gout[r];
  if (c->node->nout != set) return NULL;
  for (int32_t i = 0; i < r; i++) k += mask[i] != 0;
  return c->gout[k];
}

/* convolution_backward: linear in grad_output, bilinear in (grad_output, input)
 * and (grad_output, weight): ATen's _convolution_double_backward. */
static T conv(ag_fctx *c, T x, T w) {
  tabi_value a[9] = {TV(x), TV(w), tabi_none(), c->args[4], c->args[5], c->args[6],
                     c->args[7], c->args[8], c->args[9]};
  if (!x || !w) return ag_u(c, AG_OP_NEG, NULL);
  return ag_call_t(c, AG_OP_CONV, a, 9);
}

static T conv_bwd(ag_fctx *c, T go, T x, T w, int32_t which) {
  int64_t mask[3] = {which == 0, which == 1, 0};
  tabi_value a[11] = {TV(go), TV(x), TV(w), tabi_none(), c->args[4], c->args[5], c->args[6],
                      c->args[7], c->args[8], c->args[9], tabi_bool_list(mask, 3)};
  T r[3];
  if (!go || !x || !w) return ag_u(c, AG_OP_NEG, NULL);
  if (ag_call_n(c, AG_OP_CONV_BWD, a, 11, r, 3) != TABI_OK) return NULL;
  return r[which];
}

F(f_convolution_backward) {
  T go = A(0), x = A(1), w = A(2);
  T ggi = gout_masked(c, 10, 0), ggw = gout_masked(c, 10, 1), ggb = gout_masked(c, 10, 2);
  if (NEEDA(0)) {
    T acc = NULL;
    if (ggi) acc = conv(c, ggi, w);
    if (ggw) { T t = conv(c, x, ggw); acc = acc ? ADD(acc, t) : t; }
    if (ggb && go) {
      int32_t nd = go->dl.ndim;
      int64_t bs[16];
      int32_t cd = (w && nd == w->dl.ndim) ? 1 : 0; /* channel dim: batched or not */
      for (int32_t i = 0; i < nd && i < 16; i++) bs[i] = i == cd ? ggb->dl.shape[0] : 1;
      T t = ag_expand(c, ag_reshape(c, ggb, nd, bs), nd, go->dl.shape);
      acc = acc ? ADD(acc, t) : t;
    }
    if (acc) GINA(0, acc);
  }
  if (NEEDA(1) && ggw) GINA(1, conv_bwd(c, go, x, ggw, 0));
  if (NEEDA(2) && ggi) GINA(2, conv_bwd(c, go, ggi, w, 1));
  return c->status;
}

/* embedding_dense_backward is linear in grad_output: its adjoint is a lookup. */
F(f_embedding_dense_backward) {
  if (!NEEDA(0)) return c->status;
  T gg = G(0), ind = A(1);
  if (!gg || !ind) return c->status;
  int64_t pad = ag_arg_i(c, 3), ni = tabi_tensor_numel(ind);
  T i64 = ag_reshape(c, as_i64(c, ind), 1, &ni);
  T rows = ag_index_select(c, gg, 0, i64);
  if (ag_arg_i(c, 4)) {
    int64_t V = gg->dl.shape[0];
    T ones = ag_full_like(c, ag_to_dtype(c, i64, tabi_tensor_dtype(gg)), 1.0);
    T freq = index_put(c, ag_zeros_shape(c, gg, 1, &V), i64, ones, 1);
    rows = DIV(rows, ag_unsqueeze(c, ag_index_select(c, freq, 0, i64), 1));
  }
  rows = WHERE(ag_unsqueeze(c, ag_bs(c, AG_OP_NES, i64, (double)pad), 1), rows, Z(gg));
  const ag_tmeta *m = IN_META(0);
  GINA(0, ag_reshape(c, rows, m->ndim, ag_tmeta_shape(m)));
  return c->status;
}

/* Double backward of a normalization backward, as a function of all its
 * inputs (mean and rstd independent, as the op takes them):
 *   xh = (x - mean) rstd, gh = go w, A = sum(gh), Bv = sum(gh xh) (per row)
 *   dx = rstd gh - rstd/N A - rstd/N xh Bv, dw = sum_rows go xh, db = sum_rows go.
 * Tensors come reshaped so rows broadcast and `red` lists the normalized dims.
 * Results (NULL when not needed): gradients of go, x, mean, rstd, and of w
 * (unreduced: the caller sums it to w's shape). */
typedef struct norm_dd {
  T go, x, mean, rstd, w;  /* w NULL: no affine */
  T ggx, ggw, ggb;         /* incoming, NULL: zero; same shapes as go (ggw/ggb broadcast) */
  const int64_t *red;
  int32_t nred;
  double n;
} norm_dd;

static void norm_double_backward(ag_fctx *c, const norm_dd *a, T *d_go, T *d_x, T *d_mean,
                                 T *d_rstd, T *d_w) {
  T xm = SUB(a->x, a->mean);
  T xh = MUL(xm, a->rstd);
  T gh = a->w ? MUL(a->go, a->w) : a->go;
  T X = NULL, P = NULL, R = NULL;
  if (a->ggx) {
    T sA = ag_sum(c, gh, a->red, a->nred, 1);
    T sB = ag_sum(c, MUL(gh, xh), a->red, a->nred, 1);
    T S1 = ag_sum(c, a->ggx, a->red, a->nred, 1);
    T S2 = ag_sum(c, MUL(a->ggx, xh), a->red, a->nred, 1);
    T rn = MULS(a->rstd, 1.0 / a->n);
    P = SUB(MUL(a->rstd, a->ggx), MUL(rn, ADD(S1, MUL(S2, xh))));
    X = U(NEG, MUL(rn, ADD(MUL(S2, gh), MUL(sB, a->ggx))));
    T t1 = ag_sum(c, MUL(a->ggx, gh), a->red, a->nred, 1);
    R = SUB(t1, MULS(ADD(MUL(sA, S1), MUL(sB, S2)), 1.0 / a->n));
  }
  if (a->ggw) { T t = MUL(a->ggw, a->go); X = X ? ADD(X, t) : t; }
  if (d_go) {
    T r = P ? (a->w ? MUL(P, a->w) : P) : NULL;
    if (a->ggw) { T t = MUL(a->ggw, xh); r = r ? ADD(r, t) : t; }
    if (a->ggb) { T t = ag_expand(c, a->ggb, a->go->dl.ndim, a->go->dl.shape); r = r ? ADD(r, t) : t; }
    *d_go = r;
  }
  if (d_w) *d_w = (P && a->w) ? MUL(P, a->go) : NULL;
  if (d_x) *d_x = X ? MUL(X, a->rstd) : NULL;
  if (d_mean) *d_mean = X ? U(NEG, MUL(a->rstd, ag_sum(c, X, a->red, a->nred, 1))) : NULL;
  if (d_rstd) {
    T r = X ? ag_sum(c, MUL(X, xm), a->red, a->nred, 1) : NULL;
    if (R) r = r ? ADD(r, R) : R;
    *d_rstd = r;
  }
}

/* native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd,
 * weight, bias, output_mask). bias does not enter the result: no gradient. */
F(f_layer_norm_backward) {
  T go = A(0), x = A(1);
  if (!go || !x) return c->status;
  int32_t nn;
  ints(c, 2, &nn);
  int32_t nd = x->dl.ndim;
  int64_t red[64];
  double n = 1.0;
  for (int32_t i = 0; i < nn && i < 64; i++) { red[i] = nd - nn + i; n *= (double)x->dl.shape[nd - nn + i]; }
  /* mean and rstd as the statistics' shape (x's leading dims, then 1s): the
     op takes them in any shape of that many elements */
  int64_t st[64];
  for (int32_t i = 0; i < nd && i < 64; i++) st[i] = i < nd - nn ? x->dl.shape[i] : 1;
  T mean = A(3), rstd = A(4);
  norm_dd a = {go, x, mean ? ag_reshape(c, mean, nd, st) : NULL, rstd ? ag_reshape(c, rstd, nd, st) : NULL, A(5),
               gout_masked(c, 7, 0), gout_masked(c, 7, 1), gout_masked(c, 7, 2), red, nn, n};
  if (!a.mean || !a.rstd) return c->status;
  if (!a.w) a.ggw = NULL; /* no affine: those returns are undefined */
  if (!a.w) a.ggb = NULL;
  T dgo = NULL, dx = NULL, dm = NULL, dr = NULL, dw = NULL;
  norm_double_backward(c, &a, NEEDA(0) ? &dgo : NULL, NEEDA(1) ? &dx : NULL, NEEDA(3) ? &dm : NULL,
                       NEEDA(4) ? &dr : NULL, NEEDA(5) ? &dw : NULL);
  if (dgo) GINA(0, dgo);
  if (dx) GINA(1, dx);
  if (dm) GINA(3, ag_reshape(c, dm, IN_NDIM(3), IN_SHAPE(3)));
  if (dr) GINA(4, ag_reshape(c, dr, IN_NDIM(4), IN_SHAPE(4)));
  if (dw) GINA(5, dw); /* the engine sums it to weight's shape */
  return c->status;
}

/* native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW,
 * group, output_mask): viewed as [N, G, C/G, HxW] with rows (N, G). */
F(f_group_norm_backward) {
  T go = A(0), x = A(1), mean = A(2), rstd = A(3), w = A(4);
  if (!go || !x || !mean || !rstd) return c->status;
  int64_t N = ag_arg_i(c, 5), C = ag_arg_i(c, 6), HxW = ag_arg_i(c, 7), G = ag_arg_i(c, 8);
  if (G < 1 || C % G != 0) return ag_fail(c, TABI_ERR_INVALID_ARGUMENT, "autograd: aten::native_group_norm_backward: bad group");
  int64_t s4[4] = {N, G, C / G, HxW}, st[4] = {N, G, 1, 1}, ws[4] = {1, G, C / G, 1};
  int64_t red[2] = {2, 3};
  T ggb = gout_masked(c, 9, 2);
  norm_dd a = {ag_reshape(c, go, 4, s4), ag_reshape(c, x, 4, s4), ag_reshape(c, mean, 4, st),
               ag_reshape(c, rstd, 4, st), w ? ag_reshape(c, w, 4, ws) : NULL, NULL, NULL, NULL,
               red, 2, (double)(C / G * HxW)};
  T ggx = gout_masked(c, 9, 0), ggw = gout_masked(c, 9, 1);
  a.ggx = ggx ? ag_reshape(c, ggx, 4, s4) : NULL;
  a.ggw = (ggw && w) ? ag_reshape(c, ggw, 4, ws) : NULL;
  /* grad_bias is per channel: [1, G, C/G, 1] broadcasts over N and HxW */
  a.ggb = (ggb && w) ? ag_expand(c, ag_reshape(c, ggb, 4, ws), 4, s4) : NULL;
  if (c->status != TABI_OK) return c->status;
  T dgo = NULL, dx = NULL, dm = NULL, dr = NULL, dw = NULL;
  norm_double_backward(c, &a, NEEDA(0) ? &dgo : NULL, NEEDA(1) ? &dx : NULL, NEEDA(2) ? &dm : NULL,
                       NEEDA(3) ? &dr : NULL, NEEDA(4) ? &dw : NULL);
  if (dgo) GINA(0, ag_reshape(c, dgo, IN_NDIM(0), IN_SHAPE(0)));
  if (dx) GINA(1, ag_reshape(c, dx, IN_NDIM(1), IN_SHAPE(1)));
  if (dm) GINA(2, ag_reshape(c, dm, IN_NDIM(2), IN_SHAPE(2)));
  if (dr) GINA(3, ag_reshape(c, dr, IN_NDIM(3), IN_SHAPE(3)));
  if (dw) {
    int64_t r2[2] = {0, 3};
    GINA(4, ag_reshape(c, ag_sum(c, dw, r2, 2, 0), 1, &C));
  }
  return c->status;
}

const ag_formula ag_formulas_nn2[] = {
    {"aten::col2im", f_col2im, 0, 0},
    {"aten::_pdist_forward", f_pdist, AG_F_SAVE_OUTPUTS, 0},
    {"aten::_embedding_bag", f_embedding_bag, AG_F_SAVE_OUTPUTS, 0},
    {"aten::convolution_backward", f_convolution_backward, 0, 0},
    {"aten::embedding_dense_backward", f_embedding_dense_backward, 0, 0},
    {"aten::native_layer_norm_backward", f_layer_norm_backward, 0, 0},
    {"aten::native_group_norm_backward", f_group_norm_backward, 0, 0},
    {NULL, NULL, 0, 0}};
