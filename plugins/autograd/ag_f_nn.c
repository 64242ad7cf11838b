/* ag_f_nn.c: derivative formulas of the nn and linear-algebra ops: matmuls,
 * convolution and pooling (through their *_backward ops where the op set has
 * them), norms, embedding, dropout, padding and upsampling.
 *
 * Two generic tricks cover ops without a backward op:
 *  - gather-like ops (reflection/replication pads, nearest upsampling) are run
 *    once on a tensor of element numbers, giving the source of every output
 *    element; the gradient goes back by scatter_add.
 *  - other ops linear in their input (avg_pool3d, adaptive 3-d pooling,
 *    bilinear upsampling) are probed with one-hot inputs, giving the matrix of
 *    the map; the gradient is a matmul with its transpose. Exact, but its memory
 *    grows with (input spatial size) x (output spatial size).
 */
#include <stdlib.h>

#include "ag.h"

#define F(name) static tabi_status name(ag_fctx *c)
#define TV(t) tabi_tensor_value(t)
#define U(op, a) ag_u(c, AG_OP_##op, (a))
#define B(op, a, b) ag_b(c, AG_OP_##op, (a), (b))
#define MUL(a, b) B(MUL, a, b)
#define SUB(a, b) B(SUB, a, b)
#define IN_META(i) (&c->node->in_meta[SLOT(i)])
#define IN_NDIM(i) (IN_META(i)->ndim)
#define IN_SHAPE(i) ag_tmeta_shape(IN_META(i))

/* Complex matrices take the conjugate transpose (mH), as ATen's mm_mat1_backward. */
static T mh(ag_fctx *c, T a) { return ag_conj(c, ag_transpose2(c, a)); }

F(f_mm) {
  if (NEEDA(0)) GINA(0, B(MM, G(0), mh(c, A(1))));
  if (NEEDA(1)) GINA(1, B(MM, mh(c, A(0)), G(0)));
  return c->status;
}

F(f_bmm) {
  if (NEEDA(0)) GINA(0, B(BMM, G(0), mh(c, A(1))));
  if (NEEDA(1)) GINA(1, B(BMM, mh(c, A(0)), G(0)));
  return c->status;
}

F(f_addmm) {
  const tabi_value *beta = &c->args[3], *alpha = &c->args[4];
  if (NEEDA(0)) GINA(0, ag_muls_conj(c, G(0), beta));
  if (NEEDA(1)) GINA(1, ag_muls_conj(c, B(MM, G(0), mh(c, A(2))), alpha));
  if (NEEDA(2)) GINA(2, ag_muls_conj(c, B(MM, mh(c, A(1)), G(0)), alpha));
  return c->status;
}

F(f_convolution) {
  int64_t mask[3] = {NEEDA(0), NEEDA(1), NEEDA(2)};
  T w = A(1);
  int64_t bias_sizes[1] = {w ? w->dl.shape[(int)ag_arg_i(c, 6) ? 1 : 0] : 0};
  if (w && ag_arg_i(c, 6)) bias_sizes[0] *= ag_arg_i(c, 8);
  tabi_value a[11] = {TV(G(0)), TV(A(0)), TV(w),
                      ag_arg_none(c, 2) ? tabi_none() : tabi_int_list(bias_sizes, 1),
                      c->args[3], c->args[4], c->args[5], c->args[6], c->args[7], c->args[8],
                      tabi_bool_list(mask, 3)};
  T r[3];
  if (ag_call_n(c, AG_OP_CONV_BWD, a, 11, r, 3) != TABI_OK) return c->status;
  for (int32_t i = 0; i < 3; i++)
    if (mask[i] && r[i]) GINA(i, r[i]);
  return c->status;
}

static tabi_value stride_or_kernel(ag_fctx *c, int32_t s, int32_t k) {
  const tabi_value *v = &c->args[s];
  if (v->tag == TABI_TAG_INT_LIST && v->u.list.len == 0) return c->args[k];
  return *v;
}

F(f_max_pool2d) {
  if (!NEEDA(0)) return c->status;
  tabi_value a[8] = {TV(G(0)), TV(A(0)), c->args[1], stride_or_kernel(c, 2, 1), c->args[3],
                     c->args[4], c->args[5], TV(OUT(1))};
  GINA(0, ag_call_t(c, AG_OP_MAXPOOL2D_BWD, a, 8));
  return c->status;
}

/* max_pool3d: indices are flat within each (D, H, W) plane. */
F(f_max_pool3d) {
  if (!NEEDA(0)) return c->status;
  int32_t nd = IN_NDIM(0);
  const int64_t *s = IN_SHAPE(0);
  T g = G(0);
  if (!g || nd < 3) return c->status;
  int64_t b = 1, in = 1, o = 1;
  for (int32_t i = 0; i < nd - 3; i++) b *= s[i];
  for (int32_t i = nd - 3; i < nd; i++) in *= s[i];
  for (int32_t i = nd - 3; i < nd; i++) o *= g->dl.shape[i];
  int64_t gs[2] = {b, o}, zs[2] = {b, in};
  T gf = ag_reshape(c, g, 2, gs);
  T idx = ag_reshape(c, OUT(1), 2, gs);
  T z = ag_zeros_shape(c, g, 2, zs);
  tabi_value a[4] = {TV(z), tabi_int(1), TV(idx), TV(gf)};
  T r = (z && idx && gf) ? ag_call_t(c, AG_OP_SCATTER_ADD, a, 4) : NULL;
  GINA(0, ag_reshape(c, r, nd, s));
  return c->status;
}

F(f_avg_pool2d) {
  if (!NEEDA(0)) return c->status;
  tabi_value a[8] = {TV(G(0)), TV(A(0)), c->args[1], stride_or_kernel(c, 2, 1), c->args[3],
                     c->args[4], c->args[5], c->args[6]};
  GINA(0, ag_call_t(c, AG_OP_AVGPOOL2D_BWD, a, 8));
  return c->status;
}

F(f_avg_pool1d) {
  if (!NEEDA(0)) return c->status;
  int32_t nk;
  const tabi_value *kv = &c->args[1], *sv = &c->args[2], *pv = &c->args[3];
  nk = (int32_t)kv->u.list.len;
  int64_t k2[2] = {1, nk ? tabi_value_ints(kv)[0] : 1};
  int64_t s2[2] = {1, sv->u.list.len ? tabi_value_ints(sv)[0] : k2[1]};
  int64_t p2[2] = {0, pv->u.list.len ? tabi_value_ints(pv)[0] : 0};
  T g = ag_unsqueeze(c, G(0), -2), x = ag_unsqueeze(c, A(0), -2);
  tabi_value a[8] = {TV(g), TV(x), tabi_int_list(k2, 2), tabi_int_list(s2, 2), tabi_int_list(p2, 2),
                     c->args[4], c->args[5], tabi_none()};
  T r = (g && x) ? ag_call_t(c, AG_OP_AVGPOOL2D_BWD, a, 8) : NULL;
  GINA(0, ag_reshape(c, r, IN_NDIM(0), IN_SHAPE(0)));
  return c->status;
}

F(f_adaptive_avg_pool2d) {
  if (NEEDA(0)) GINA(0, B(ADAPOOL2D_BWD, G(0), A(0)));
  return c->status;
}

F(f_adaptive_avg_pool1d) {
  if (!NEEDA(0)) return c->status;
  T r = B(ADAPOOL2D_BWD, ag_unsqueeze(c, G(0), -2), ag_unsqueeze(c, A(0), -2));
  GINA(0, ag_reshape(c, r, IN_NDIM(0), IN_SHAPE(0)));
  return c->status;
}

/* Runs the node's own op with `x` in place of its first argument. */
static T rerun(ag_fctx *c, T x) {
  if (!x || c->status != TABI_OK) return NULL;
  int32_t n = c->node->nargs;
  tabi_value *a = malloc(sizeof *a * (size_t)(n ? n : 1));
  if (!a) { ag_fail(c, TABI_ERR_OUT_OF_MEMORY, "autograd: out of memory"); return NULL; }
  for (int32_t i = 0; i < n; i++) a[i] = c->args[i];
  a[0] = TV(x);
  tabi_value o = tabi_none();
  const tabi_host_api *h = c->st->h;
  tabi_status s = h->call(h->ctx, c->node->op, a, n, &o, 1);
  free(a);
  if (s != TABI_OK) { c->status = s; return NULL; }
  if (o.tag != TABI_TAG_TENSOR) { h->value_release(h->ctx, &o); ag_fail(c, TABI_ERR_INTERNAL, "autograd: rerun gave no tensor"); return NULL; }
  return ag_keep(c, o.u.t);
}

static T arange_f(ag_fctx *c, int64_t n, tabi_dtype dt, DLDevice dev) {
  tabi_value a[6] = {tabi_int(0), tabi_int(n), tabi_int(1), tabi_dtype_value(dt), tabi_default(),
                     tabi_device_value(dev)};
  return ag_call_t(c, AG_OP_ARANGE, a, 6);
}

/* An empty input or gradient: nothing flowed, so zeros, without the rerun
 * below (on one batch, a pad of 2^40 that an empty batch let through would
 * ask for terabytes). 1 when it handled the case. */
static int empty_back(ag_fctx *c, T g) {
  if (tabi_tensor_numel(g) != 0 && ag_tmeta_numel(IN_META(0)) != 0) return 0;
  GINA(0, ag_zeros(c, IN_META(0)));
  return 1;
}

/* Gather-like op over the last k dims: scatter the gradient to the sources. */
static tabi_status index_map_back(ag_fctx *c, int32_t k) {
  if (!NEEDA(0)) return c->status;
  int32_t nd = IN_NDIM(0);
  const int64_t *s = IN_SHAPE(0);
  T g = G(0);
  if (!g || nd < k) return c->status;
  if (empty_back(c, g)) return c->status;
  int64_t b = 1, in = 1, o = 1, ps[8];
  for (int32_t i = 0; i < nd - k; i++) b *= s[i];
  ps[0] = ps[1] = 1;
  for (int32_t i = 0; i < k; i++) { in *= s[nd - k + i]; ps[2 + i] = s[nd - k + i]; }
  for (int32_t i = nd - k; i < nd; i++) o *= g->dl.shape[i];
  T ids = ag_reshape(c, arange_f(c, in, TABI_DTYPE_FLOAT64, g->dl.device), k + 2, ps);
  T src = ag_to_dtype(c, rerun(c, ids), TABI_DTYPE_INT64);
  int64_t os[2] = {1, o}, gs[2] = {b, o}, zs[2] = {b, in};
  T idx = ag_expand(c, ag_reshape(c, src, 2, os), 2, gs);
  T gf = ag_reshape(c, g, 2, gs);
  T z = ag_zeros_shape(c, g, 2, zs);
  tabi_value a[4] = {TV(z), tabi_int(1), TV(idx), TV(gf)};
  T r = (z && idx && gf) ? ag_call_t(c, AG_OP_SCATTER_ADD, a, 4) : NULL;
  GINA(0, ag_reshape(c, r, nd, s));
  return c->status;
}
F(f_pad1d) { return index_map_back(c, 1); }
F(f_pad2d) { return index_map_back(c, 2); }
F(f_pad3d) { return index_map_back(c, 3); }

/* Linear op over the last k dims, the same map for every leading index. */
static tabi_status linear_probe_back(ag_fctx *c, int32_t k) {
  if (!NEEDA(0)) return c->status;
  int32_t nd = IN_NDIM(0);
  const int64_t *s = IN_SHAPE(0);
  T g = G(0);
  if (!g || nd < k) return c->status;
  if (empty_back(c, g)) return c->status;
  int64_t b = 1, in = 1, o = 1, ps[8];
  for (int32_t i = 0; i < nd - k; i++) b *= s[i];
  for (int32_t i = 0; i < k; i++) { in *= s[nd - k + i]; ps[2 + i] = s[nd - k + i]; }
  for (int32_t i = nd - k; i < nd; i++) o *= g->dl.shape[i];
  ps[0] = in;
  ps[1] = 1;
  tabi_dtype dt = IN_META(0)->dtype;
  T ar = arange_f(c, in, TABI_DTYPE_INT64, g->dl.device);
  T eye = ag_to_dtype(c, B(EQ, ag_unsqueeze(c, ar, 1), ag_unsqueeze(c, ar, 0)), dt);
  T m = rerun(c, ag_reshape(c, eye, k + 2, ps));
  int64_t ms[2] = {in, o}, gs[2] = {b, o};
  T mm = ag_reshape(c, m, 2, ms);
  T r = B(MM, ag_reshape(c, ag_to_dtype(c, g, dt), 2, gs), ag_transpose2(c, mm));
  GINA(0, ag_reshape(c, r, nd, s));
  return c->status;
}
F(f_probe2d) { return linear_probe_back(c, 2); }
F(f_probe3d) { return linear_probe_back(c, 3); }

/* The mean and rstd outputs of the norms are differentiable too: a double
 * backward (create_graph) sends gradients to them, as the backward ops read
 * them. gx += gmean / n + grstd * (-rstd^3 (x - mean) / n) per row (biased
 * variance). Layer norm: stats are [rows..., 1...]; group norm (groups > 0):
 * [N, G] over x viewed as [N, G, rest]. */
static T stats_back(ag_fctx *c, T gx, T x, T mean, T rstd, T gm, T gr, int64_t n_batch, int64_t groups) {
  if ((!gm && !gr) || !gx || !x || !mean || !rstd) return gx;
  int32_t nd = x->dl.ndim;
  T xv = x, mv = mean, rv = rstd;
  double n;
  if (groups > 0) {
    int64_t nbg = n_batch * groups;
    int64_t s3[3] = {n_batch, groups, nbg != 0 ? tabi_tensor_numel(x) / nbg : 0};
    int64_t st[3] = {n_batch, groups, 1};
    xv = ag_reshape(c, x, 3, s3);
    mv = ag_reshape(c, mean, 3, st);
    rv = ag_reshape(c, rstd, 3, st);
    if (gm) gm = ag_reshape(c, gm, 3, st);
    if (gr) gr = ag_reshape(c, gr, 3, st);
    n = (double)s3[2];
  } else {
    n = 1.0;
    for (int32_t i = 0; i < nd; i++)
      if (mean->dl.ndim == nd && mean->dl.shape[i] == 1) n *= (double)x->dl.shape[i];
  }
  T extra = NULL;
  if (gm) extra = ag_muls(c, gm, 1.0 / n);
  if (gr) {
    T r3 = MUL(rv, MUL(rv, rv));
    T t = MUL(gr, ag_muls(c, MUL(r3, SUB(xv, mv)), -1.0 / n));
    extra = extra ? B(ADD, extra, t) : t;
  }
  if (xv && extra) extra = ag_expand(c, extra, xv->dl.ndim, xv->dl.shape);
  if (groups > 0) extra = ag_reshape(c, extra, nd, x->dl.shape);
  return B(ADD, gx, extra);
}

F(f_layer_norm) {
  int64_t mask[3] = {NEEDA(0), NEEDA(2), NEEDA(3)};
  T g = ag_gout_or_zeros(c, 0);
  tabi_value a[8] = {TV(g), TV(A(0)), c->args[1], TV(OUT(1)), TV(OUT(2)), c->args[2], c->args[3],
                     tabi_bool_list(mask, 3)};
  T r[3];
  if (ag_call_n(c, AG_OP_LN_BWD, a, 8, r, 3) != TABI_OK) return c->status;
  if (mask[0]) GINA(0, stats_back(c, r[0], A(0), OUT(1), OUT(2), G(1), G(2), -1, 0));
  if (mask[1]) GINA(2, r[1]);
  if (mask[2]) GINA(3, r[2]);
  return c->status;
}

F(f_group_norm) {
  int64_t mask[3] = {NEEDA(0), NEEDA(1), NEEDA(2)};
  T g = ag_gout_or_zeros(c, 0);
  tabi_value a[10] = {TV(g), TV(A(0)), TV(OUT(1)), TV(OUT(2)), c->args[1], c->args[3],
                      c->args[4], c->args[5], c->args[6], tabi_bool_list(mask, 3)};
  T r[3];
  if (ag_call_n(c, AG_OP_GN_BWD, a, 10, r, 3) != TABI_OK) return c->status;
  if (mask[0]) GINA(0, stats_back(c, r[0], A(0), OUT(1), OUT(2), G(1), G(2), ag_arg_i(c, 3), ag_arg_i(c, 6)));
  for (int32_t i = 1; i < 3; i++)
    if (mask[i]) GINA(i, r[i]);
  return c->status;
}

/* Batch norm, as formulas (the op set has no backward op for it). */
static tabi_status batch_norm_back(ag_fctx *c, int32_t training, int32_t rm_arg, int32_t rv_arg,
                                   double eps) {
  T x = A(0), w = A(1), g = (G(0) || !(G(1) || G(2))) ? G(0) : ag_gout_or_zeros(c, 0);
  if (!x || !g) return c->status;
  int32_t nd = x->dl.ndim;
  int64_t cdim = nd > 1 ? x->dl.shape[1] : 1;
  int64_t bs[64], red[64];
  int32_t nr = 0;
  for (int32_t i = 0; i < nd && i < 64; i++) {
    bs[i] = i == 1 ? cdim : 1;
    if (i != 1) red[nr++] = i;
  }
  T mean, invstd;
  if (training) {
    mean = OUT(1);
    invstd = OUT(2);
  } else {
    mean = A(rm_arg);
    invstd = U(RSQRT, ag_adds(c, A(rv_arg), eps));
  }
  T mb = ag_reshape(c, mean, nd, bs), ib = ag_reshape(c, invstd, nd, bs);
  T xhat = MUL(SUB(x, mb), ib);
  if (NEEDA(2)) GINA(2, ag_sum(c, g, red, nr, 0));
  if (NEEDA(1)) GINA(1, ag_sum(c, MUL(g, xhat), red, nr, 0));
  if (NEEDA(0)) {
    T scale = w ? MUL(ag_reshape(c, w, nd, bs), ib) : ib;
    if (!training) {
      GINA(0, MUL(g, scale));
    } else {
      tabi_value m1[3] = {TV(g), tabi_int_list(red, nr), tabi_bool(1)};
      T gm = ag_call_t(c, AG_OP_MEAN, m1, 3);
      T gx = MUL(g, xhat);
      tabi_value m2[3] = {TV(gx), tabi_int_list(red, nr), tabi_bool(1)};
      T gxm = gx ? ag_call_t(c, AG_OP_MEAN, m2, 3) : NULL;
      T gi = MUL(scale, SUB(SUB(g, gm), MUL(xhat, gxm)));
      /* save_mean / save_invstd take gradients in a double backward (the
       * formula reads them): d mean/dx = 1/n, d invstd/dx = -invstd^3 (x - mean)/n */
      T gsm = G(1), gsi = G(2);
      if (gsm || gsi) {
        double n = 1.0;
        for (int32_t i = 0; i < nd; i++) if (i != 1) n *= (double)x->dl.shape[i];
        T extra = gsm ? ag_muls(c, ag_reshape(c, gsm, nd, bs), 1.0 / n) : NULL;
        if (gsi) {
          T i3 = MUL(ib, MUL(ib, ib));
          T t = MUL(ag_reshape(c, gsi, nd, bs), ag_muls(c, MUL(i3, SUB(x, mb)), -1.0 / n));
          extra = extra ? B(ADD, extra, t) : t;
        }
        gi = B(ADD, gi, extra);
      }
      GINA(0, gi);
    }
  }
  return c->status;
}
F(f_bn_legit) { return batch_norm_back(c, (int32_t)ag_arg_i(c, 5), 3, 4, ag_arg_f(c, 7)); }
F(f_bn_no_stats) { return batch_norm_back(c, 1, -1, -1, ag_arg_f(c, 5)); }
F(f_bn_no_training) { return batch_norm_back(c, 0, 3, 4, ag_arg_f(c, 6)); }

static T emb_bwd(ag_fctx *c, T g) {
  tabi_value a[5] = {TV(g), TV(A(1)), tabi_int(IN_SHAPE(0)[0]), c->args[2], c->args[3]};
  return ag_call_t(c, AG_OP_EMB_BWD, a, 5);
}

/* embedding_dense_backward is real (in ATen too): a complex weight gets the
 * backward of the real and imaginary parts, put together. */
F(f_embedding) {
  if (!NEEDA(0)) return c->status;
  T g = G(0);
  tabi_dtype dt = g ? tabi_tensor_dtype(g) : TABI_DTYPE_FLOAT32;
  if (!tabi_dtype_is_complex(dt)) {
    GINA(0, emb_bwd(c, g));
    return c->status;
  }
  T re = ag_to_dtype(c, emb_bwd(c, ag_u(c, AG_OP_REAL, g)), dt);
  T im = ag_to_dtype(c, emb_bwd(c, ag_u(c, AG_OP_IMAG, g)), dt);
  tabi_value a[2] = {TV(im), tabi_complex(0.0, 1.0)};
  GINA(0, ag_b(c, AG_OP_ADD, re, im ? ag_call_t(c, AG_OP_MULS, a, 2) : NULL));
  return c->status;
}

F(f_dropout) {
  if (!NEEDA(0) || !G(0)) return c->status;
  double p = ag_arg_f(c, 1);
  int train = c->args[2].tag == TABI_TAG_BOOL && c->args[2].u.i;
  double scale = !train ? 1.0 : (p >= 1.0 ? 0.0 : 1.0 / (1.0 - p));
  GINA(0, ag_muls(c, MUL(G(0), OUT(1)), scale));
  return c->status;
}

/* cdist: d dist / d diff = sign(diff) |diff|^(p-1) / dist^(p-1) (ag_pnorm_weight). */
F(f_cdist) {
  double p = ag_arg_f(c, 2);
  T x1 = A(0), x2 = A(1), g = G(0), d = OUT(0);
  if (!x1 || !x2) return c->status;
  T diff = SUB(ag_unsqueeze(c, x1, -2), ag_unsqueeze(c, x2, -3));
  T w = ag_pnorm_weight(c, diff, ag_unsqueeze(c, g, -1), ag_unsqueeze(c, d, -1), p);
  int64_t r2 = -2, r3 = -3;
  if (NEEDA(0)) GINA(0, ag_sum(c, w, &r2, 1, 0));
  if (NEEDA(1)) GINA(1, U(NEG, ag_sum(c, w, &r3, 1, 0)));
  return c->status;
}

/* Double backward of the pooling backward ops: linear in grad_output. */
F(f_avg_pool2d_backward) {
  if (!NEEDA(0)) return c->status;
  tabi_value a[7] = {TV(G(0)), c->args[2], c->args[3], c->args[4], c->args[5], c->args[6], c->args[7]};
  GINA(0, ag_call_t(c, AG_OP_AVGPOOL2D, a, 7));
  return c->status;
}

F(f_adaptive_avg_pool2d_backward) {
  if (!NEEDA(0)) return c->status;
  const ag_tmeta *m = IN_META(0);
  int64_t os[2] = {ag_tmeta_shape(m)[m->ndim - 2], ag_tmeta_shape(m)[m->ndim - 1]};
  tabi_value a[2] = {TV(G(0)), tabi_int_list(os, 2)};
  GINA(0, ag_call_t(c, AG_OP_ADAPOOL2D, a, 2));
  return c->status;
}

F(f_max_pool2d_backward) {
  if (!NEEDA(0)) return c->status;
  const ag_tmeta *m = IN_META(0);
  T gg = G(0), idx = A(7);
  if (!gg || !idx) return c->status;
  int32_t nd = gg->dl.ndim;
  int64_t b = 1, in = 1, o = 1;
  for (int32_t i = 0; i < nd - 2; i++) b *= gg->dl.shape[i];
  for (int32_t i = nd - 2; i < nd; i++) in *= gg->dl.shape[i];
  for (int32_t i = m->ndim - 2; i < m->ndim; i++) o *= ag_tmeta_shape(m)[i];
  int64_t gs[2] = {b, in}, is[2] = {b, o};
  tabi_value a[3] = {TV(ag_reshape(c, gg, 2, gs)), tabi_int(1), TV(ag_reshape(c, idx, 2, is))};
  T r = ag_call_t(c, AG_OP_GATHER, a, 3);
  GINA(0, ag_reshape(c, r, m->ndim, ag_tmeta_shape(m)));
  return c->status;
}

const ag_formula ag_formulas_nn[] = {
    {"aten::mm", f_mm, 0, 0}, {"aten::bmm", f_bmm, 0, 0}, {"aten::addmm", f_addmm, 0, 0},
    {"aten::convolution", f_convolution, 0, 0},
    {"aten::max_pool2d_with_indices", f_max_pool2d, AG_F_SAVE_OUTPUTS, 0},
    {"aten::max_pool3d_with_indices", f_max_pool3d, AG_F_SAVE_OUTPUTS, 0},
    {"aten::avg_pool2d", f_avg_pool2d, 0, 0}, {"aten::avg_pool1d", f_avg_pool1d, 0, 0},
    {"aten::avg_pool3d", f_probe3d, 0, 0},
    {"aten::_adaptive_avg_pool2d", f_adaptive_avg_pool2d, 0, 0},
    {"aten::adaptive_avg_pool1d", f_adaptive_avg_pool1d, 0, 0},
    {"aten::_adaptive_avg_pool3d", f_probe3d, 0, 0},
    {"aten::upsample_bilinear2d.vec", f_probe2d, 0, 0},
    {"aten::upsample_nearest2d.vec", f_pad2d, 0, 0},
    {"aten::reflection_pad1d", f_pad1d, 0, 0}, {"aten::reflection_pad2d", f_pad2d, 0, 0},
    {"aten::reflection_pad3d", f_pad3d, 0, 0}, {"aten::replication_pad2d", f_pad2d, 0, 0},
    {"aten::replication_pad3d", f_pad3d, 0, 0},
    {"aten::native_layer_norm", f_layer_norm, AG_F_SAVE_OUTPUTS, 0x6},
    {"aten::native_group_norm", f_group_norm, AG_F_SAVE_OUTPUTS, 0x6},
    {"aten::_native_batch_norm_legit", f_bn_legit, AG_F_SAVE_OUTPUTS | AG_F_SAVE_MUTABLE, 0x6},
    {"aten::_native_batch_norm_legit.no_stats", f_bn_no_stats, AG_F_SAVE_OUTPUTS, 0x6},
    {"aten::_native_batch_norm_legit_no_training", f_bn_no_training, AG_F_SAVE_OUTPUTS, 0x6},
    {"aten::embedding", f_embedding, 0, 0},
    {"aten::native_dropout", f_dropout, AG_F_SAVE_OUTPUTS, 0},
    {"aten::_cdist_forward", f_cdist, AG_F_SAVE_OUTPUTS, 0},
    {"aten::avg_pool2d_backward", f_avg_pool2d_backward, 0, 0},
    {"aten::_adaptive_avg_pool2d_backward", f_adaptive_avg_pool2d_backward, 0, 0},
    {"aten::max_pool2d_with_indices_backward", f_max_pool2d_backward, 0, 0},
    {NULL, NULL, 0, 0}};
