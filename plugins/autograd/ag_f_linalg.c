/* ag_f_linalg.c: derivative formulas of prims::svd and the FFTs (aten::_fft_r2c,
 * _fft_c2r, prims::fft_r2c/c2r/c2c), and of prims::real/imag that complex
 * code reaches a real loss through; after ATen's derivatives.yaml and
 * FunctionsManual.cpp (svd_backward, fft_r2c_backward, fft_c2r_backward).
 *
 * Complex gradients follow PyTorch's convention (the conjugate Wirtinger
 * derivative): the gradient of a linear map y = A x is A^H g, so an
 * unnormalized forward DFT goes back as an unnormalized inverse one.
 */
#include <math.h>

#include "ag.h"

#define F(name) static tabi_status name(ag_fctx *c)
#define TV(t) tabi_tensor_value(t)
#define U(op, a) ag_u(c, AG_OP_##op, (a))
#define B(op, a, b) ag_b(c, AG_OP_##op, (a), (b))
#define MUL(a, b) B(MUL, a, b)
#define DIV(a, b) B(DIV, a, b)
#define ADD(a, b) B(ADD, a, b)
#define SUB(a, b) B(SUB, a, b)
#define MM(a, b) ag_mm_batched(c, (a), (b))
#define TR(a) ag_transpose2(c, (a))
#define IN_META(i) (&c->node->in_meta[SLOT(i)])
#define IN_NDIM(i) (IN_META(i)->ndim)
#define IN_SHAPE(i) ag_tmeta_shape(IN_META(i))

static T narrow(ag_fctx *c, T a, int64_t dim, int64_t len) {
  if (!a) return NULL;
  dim = ag_wrap_dim(dim, a->dl.ndim);
  if (a->dl.shape[dim] == len) return a;
  tabi_value s[5] = {TV(a), tabi_int(dim), tabi_int(0), tabi_int(len), tabi_int(1)};
  return ag_call_t(c, AG_OP_SLICE, s, 5);
}

/* --- prims::svd(A, full_matrices) -> U, S, Vh: ATen's svd_backward (real) ------------ */
F(f_svd) {
  if (!NEEDA(0)) return c->status;
  T u = OUT(0), s = OUT(1), vh = OUT(2);
  T gu = G(0), gs = G(1), gvh = G(2);
  if (!u || !s || !vh) return c->status;
  if (tabi_dtype_is_complex(tabi_tensor_dtype(u)))
    return ag_fail(c, TABI_ERR_UNIMPLEMENTED,
                   "autograd: prims::svd: the derivative for complex 'A' is not implemented");
  int32_t nd = IN_NDIM(0);
  const int64_t *as = IN_SHAPE(0);
  int64_t m = as[nd - 2], n = as[nd - 1], k = s->dl.shape[s->dl.ndim - 1];
  if (k == 0 || (!gu && !gs && !gvh)) { GINA(0, ag_zeros(c, IN_META(0))); return c->status; }
  /* full_matrices: only the first k singular vectors enter (as ATen narrows) */
  u = narrow(c, u, -1, k);
  vh = narrow(c, vh, -2, k);
  if (gu) gu = narrow(c, gu, -1, k);
  if (gvh) gvh = narrow(c, gvh, -2, k);
  T s_row = ag_unsqueeze(c, s, -2), s_col = ag_unsqueeze(c, s, -1); /* [..., 1, k], [..., k, 1] */
  if (!gu && !gvh) {
    T r = m >= n ? MM(u, MUL(ag_unsqueeze(c, gs, -1), vh)) : MM(MUL(u, ag_unsqueeze(c, gs, -2)), vh);
    GINA(0, r);
    return c->status;
  }
  T ar = ag_arange_i64(c, k, 1, s->dl.device);
  T eye = ag_to_dtype(c, B(EQ, ag_unsqueeze(c, ar, 1), ag_unsqueeze(c, ar, 0)), tabi_tensor_dtype(s));
  T s2 = MUL(s, s);
  /* E[i, j] = S_j^2 - S_i^2, 1 on the diagonal */
  T e = ADD(SUB(ag_unsqueeze(c, s2, -2), ag_unsqueeze(c, s2, -1)), eye);
  T uhgu = NULL, vhgv = NULL;
  if (gu) { T t = MM(TR(u), gu); uhgu = SUB(t, TR(t)); }
  if (gvh) { T t = MM(vh, TR(gvh)); vhgv = SUB(t, TR(t)); }
  T ga;
  if (gu && gvh) ga = DIV(ADD(MUL(uhgu, s_row), MUL(s_col, vhgv)), e);
  else if (gu) ga = MUL(uhgu, DIV(s_row, e));
  else ga = MUL(s_col, DIV(vhgv, e));
  if (gs) ga = ADD(ga, MUL(ag_unsqueeze(c, gs, -2), eye));
  if (m > n && gu) {
    ga = MM(u, ga);
    T gusinv = DIV(gu, s_row);
    ga = SUB(ADD(ga, gusinv), MM(u, MM(TR(u), gusinv)));
    ga = MM(ga, vh);
  } else if (m < n && gvh) {
    ga = MM(ga, vh);
    T sinvgvh = DIV(gvh, s_col);
    ga = SUB(ADD(ga, sinvgvh), MM(MM(sinvgvh, TR(vh)), vh));
    ga = MM(u, ga);
  } else {
    ga = m >= n ? MM(u, MM(ga, vh)) : MM(MM(u, ga), vh);
  }
  GINA(0, ga);
  return c->status;
}

/* --- FFT --------------------------------------------------------------------------- */

static const int64_t *dims_of(ag_fctx *c, int32_t i, int32_t *n) {
  const tabi_value *v = &c->args[i];
  if (v->tag != TABI_TAG_INT_LIST) { *n = 0; return NULL; }
  *n = (int32_t)v->u.list.len;
  return tabi_value_ints(v);
}

/* aten's normalization: 0 none, 1 1/sqrt(n), 2 1/n (n: the signal size). */
static T normalize(ag_fctx *c, T x, int64_t norm, double nsig) {
  if (norm == 0 || !x) return x;
  double sc = norm == 1 ? 1.0 / sqrt(nsig) : 1.0 / nsig;
  return ag_muls(c, x, sc);
}

static double signal_size(int32_t ndim, const int64_t *shape, const int64_t *dims, int32_t nd) {
  double n = 1.0;
  for (int32_t i = 0; i < nd; i++) n *= (double)shape[ag_wrap_dim(dims[i], ndim)];
  return n;
}

static T c2c(ag_fctx *c, T x, const tabi_value *dims, int forward) {
  tabi_value a[3] = {TV(x), *dims, tabi_bool(forward)};
  if (!x) return ag_u(c, AG_OP_NEG, NULL);
  return ag_call_t(c, AG_OP_FFT_C2C, a, 3);
}

/* r2c backward: zero-extend the onesided gradient to the full last-dim size,
 * inverse c2c, real part (fft_r2c_backward). */
static T r2c_back(ag_fctx *c, T g, int32_t darg, int onesided) {
  int32_t nd;
  const int64_t *dims = dims_of(c, darg, &nd);
  if (!g || nd == 0) return g;
  if (ag_tmeta_numel(IN_META(0)) == 0) return ag_zeros(c, IN_META(0));
  if (g->dl.ndim > 32) { ag_fail(c, TABI_ERR_SHAPE, "autograd: fft of rank > 32"); return NULL; }
  if (onesided) {
    int64_t last = ag_wrap_dim(dims[nd - 1], g->dl.ndim);
    int64_t full = IN_SHAPE(0)[last], have = g->dl.shape[last];
    if (full > have) {
      int64_t pad[64];
      int32_t r = g->dl.ndim;
      for (int32_t i = 0; i < 2 * r && i < 64; i++) pad[i] = 0;
      pad[2 * (r - 1 - last) + 1] = full - have;
      tabi_value p[2] = {TV(g), tabi_int_list(pad, 2 * r)};
      g = ag_call_t(c, AG_OP_CONST_PAD, p, 2);
    }
  }
  return U(REAL, c2c(c, g, &c->args[darg], 0));
}

/* c2r backward: r2c (onesided), entries 1 .. n - onesided_len doubled (their
 * conjugate-symmetric partners were filled in by the forward). */
static T c2r_back(ag_fctx *c, T g, int32_t darg) {
  int32_t nd;
  const int64_t *dims = dims_of(c, darg, &nd);
  if (!g || nd == 0) return g;
  /* an empty input or output (last_dim_size may then be INT64_MAX) */
  if (ag_tmeta_numel(IN_META(0)) == 0 || tabi_tensor_numel(g) == 0) return ag_zeros(c, IN_META(0));
  if (g->dl.ndim > 32) { ag_fail(c, TABI_ERR_SHAPE, "autograd: fft of rank > 32"); return NULL; }
  tabi_value a[3] = {TV(g), c->args[darg], tabi_bool(1)};
  T gi = ag_call_t(c, AG_OP_FFT_R2C, a, 3);
  if (!gi) return NULL;
  int64_t last = ag_wrap_dim(dims[nd - 1], g->dl.ndim);
  int64_t len = gi->dl.shape[last], dbl = g->dl.shape[last] - len;
  if (dbl > 0) {
    T ar = ag_arange_i64(c, len, 1, g->dl.device);
    T in = B(LAND, ag_bs(c, AG_OP_GES, ar, 1.0), ag_bs(c, AG_OP_LES, ar, (double)dbl));
    T one = ag_full_like(c, ag_to_dtype(c, ar, tabi_tensor_dtype(g)), 1.0);
    T sc = ag_where(c, in, ag_muls(c, one, 2.0), one);
    int64_t bs[64];
    for (int32_t i = 0; i < gi->dl.ndim && i < 64; i++) bs[i] = i == last ? len : 1;
    gi = MUL(gi, ag_reshape(c, sc, gi->dl.ndim, bs));
  }
  /* the input may be longer than the onesided length: the rest was not read */
  int64_t have = gi ? gi->dl.shape[last] : 0, want = IN_SHAPE(0)[last];
  if (gi && want > have) {
    int64_t pad[64];
    int32_t r = gi->dl.ndim;
    for (int32_t i = 0; i < 2 * r && i < 64; i++) pad[i] = 0;
    pad[2 * (r - 1 - last) + 1] = want - have;
    tabi_value p[2] = {TV(gi), tabi_int_list(pad, 2 * r)};
    gi = ag_call_t(c, AG_OP_CONST_PAD, p, 2);
  } else if (gi && want < have) {
    /* or shorter: the forward took the missing entries as zeros (ATen's
       fft_c2r_backward returns the onesided length here, which does not fit) */
    tabi_value s[5] = {TV(gi), tabi_int(last), tabi_int(0), tabi_int(want), tabi_int(1)};
    gi = ag_call_t(c, AG_OP_SLICE, s, 5);
  }
  return gi;
}

F(f_prims_fft_c2c) {
  if (NEEDA(0)) GINA(0, c2c(c, G(0), &c->args[1], !ag_arg_i(c, 2)));
  return c->status;
}
F(f_prims_fft_r2c) {
  if (NEEDA(0)) GINA(0, r2c_back(c, G(0), 1, (int)ag_arg_i(c, 2)));
  return c->status;
}
F(f_prims_fft_c2r) {
  if (NEEDA(0)) GINA(0, c2r_back(c, G(0), 1));
  return c->status;
}

/* aten::_fft_r2c(self, dim, normalization, onesided) */
F(f_fft_r2c) {
  if (!NEEDA(0)) return c->status;
  int32_t nd;
  const int64_t *dims = dims_of(c, 1, &nd);
  double nsig = signal_size(IN_NDIM(0), IN_SHAPE(0), dims, nd);
  GINA(0, normalize(c, r2c_back(c, G(0), 1, (int)ag_arg_i(c, 3)), ag_arg_i(c, 2), nsig));
  return c->status;
}

/* aten::_fft_c2r(self, dim, normalization, last_dim_size) */
F(f_fft_c2r) {
  if (!NEEDA(0) || !G(0)) return c->status;
  int32_t nd;
  const int64_t *dims = dims_of(c, 1, &nd);
  double nsig = signal_size(G(0)->dl.ndim, G(0)->dl.shape, dims, nd);
  GINA(0, normalize(c, c2r_back(c, G(0), 1), ag_arg_i(c, 2), nsig));
  return c->status;
}

/* real(z): the gradient is real (the engine makes it complex); imag(z): i g. */
F(f_real) {
  if (NEEDA(0)) GINA(0, G(0));
  return c->status;
}
F(f_imag) {
  if (!NEEDA(0)) return c->status;
  tabi_dtype dt = IN_META(0)->dtype;
  tabi_value a[2] = {TV(ag_to_dtype(c, G(0), dt)), tabi_complex(0.0, 1.0)};
  if (c->status == TABI_OK && G(0)) GINA(0, ag_call_t(c, AG_OP_MULS, a, 2));
  return c->status;
}

const ag_formula ag_formulas_linalg[] = {
    {"prims::svd", f_svd, AG_F_SAVE_OUTPUTS, 0},
    {"prims::fft_c2c", f_prims_fft_c2c, 0, 0},
    {"prims::fft_r2c", f_prims_fft_r2c, 0, 0},
    {"prims::fft_c2r", f_prims_fft_c2r, 0, 0},
    {"aten::_fft_r2c", f_fft_r2c, 0, 0},
    {"aten::_fft_c2r", f_fft_c2r, 0, 0},
    {"prims::real", f_real, 0, 0},
    {"prims::imag", f_imag, 0, 0},
    {NULL, NULL, 0, 0}};
