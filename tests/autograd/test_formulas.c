/* tests/autograd/test_formulas.c: targeted checks of derivative formulas that
 * the op-wide gradcheck cannot reach, or reaches only in part:
 *  - scatter_reduce prod with zeros in self and src (one and two per slot),
 *    with and without include_self: values worked out by hand;
 *  - _embedding_bag with padding_idx (sum, mean, max, per_sample_weights);
 *  - double backward of layer/group/batch norm and convolution through the
 *    forward op (create_graph), against central differences of the
 *    first-order gradient;
 *  - zeta / igamma / igammac in `other` only (ATen has no derivative in `self`:
 *    that must be refused naming the op and the argument);
 *  - the FFTs (complex: the op-wide gradcheck skips them), through real losses.
 * Numeric checks: central differences, eps 1e-6, |a - n| <= 1e-5 + 1e-3 |n|. */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "ag_test_util.h"

static const tabi_autograd_api *ag;
static tabi_runtime *rt;

typedef tabi_tensor *(*loss_fn)(tabi_tensor **in, void *user); /* 0-d loss, new ref */

/* Analytic gradients of f at `in` (the nin inputs require grad). */
static int analytic(loss_fn f, void *user, tabi_tensor **in, int nin, tabi_tensor **an) {
  for (int i = 0; i < nin; i++) ag->set_requires_grad(ag->ctx, in[i], 1);
  tabi_tensor *l = f(in, user);
  if (!l) return 0;
  tabi_status s = ag->grad_of(ag->ctx, 1, &l, NULL, nin, in, 0, 0, an);
  tabi_tensor_release(l);
  return s == TABI_OK;
}

static double value_of(loss_fn f, void *user, tabi_tensor **in) {
  tabi_tensor *l = f(in, user);
  double v = l ? agt_item(rt, l) : NAN;
  tabi_tensor_release(l);
  return v;
}

/* Gradcheck of f in its float64 inputs in[0..nin). Returns the failures. */
static int gradcheck(const char *name, loss_fn f, void *user, tabi_tensor **in, int nin) {
  tabi_tensor *an[8] = {0};
  int bad = 0;
  if (!analytic(f, user, in, nin, an)) {
    printf("%s: backward failed: %s\n", name, tabi_last_error());
    return 1;
  }
  for (int i = 0; i < nin; i++) {
    int64_t n = tabi_tensor_numel(in[i]);
    double a[64] = {0};
    if (an[i] && agt_read(rt, an[i], a, 64) != n) { printf("%s: input %d: bad gradient\n", name, i); bad++; }
    double *x = tabi_tensor_data(in[i]);
    for (int64_t e = 0; e < n && e < 64; e++) {
      double x0 = x[e];
      x[e] = x0 + 1e-6;
      double lp = value_of(f, user, in);
      x[e] = x0 - 1e-6;
      double lm = value_of(f, user, in);
      x[e] = x0;
      double num = (lp - lm) / 2e-6;
      if (!(fabs(a[e] - num) <= 1e-5 + 1e-3 * fabs(num))) {
        printf("%s: input %d element %lld: analytic %.10g numeric %.10g\n", name, i, (long long)e, a[e], num);
        bad++;
      }
    }
    tabi_tensor_release(an[i]);
  }
  return bad;
}

static tabi_tensor *t1(int64_t n, const double *v) { return agt_tensor(rt, 1, &n, v); }
static tabi_tensor *t2(int64_t r, int64_t c2, const double *v) {
  int64_t s[2] = {r, c2};
  return agt_tensor(rt, 2, s, v);
}
static tabi_tensor *i64(int64_t n, const int64_t *v) {
  tabi_tensor *t = NULL;
  tabi_tensor_from_host(rt, agt_cpu, TABI_DTYPE_INT64, 1, &n, v, (uint64_t)n * 8, &t);
  return t;
}
static tabi_tensor *dot(tabi_tensor *a, tabi_tensor *w) { /* sum(a * w), new ref */
  tabi_tensor *m = agt_b(rt, "aten::mul.Tensor", a, w);
  tabi_tensor *s = agt_sum(rt, m);
  tabi_tensor_release(m);
  return s;
}
static int read_eq(tabi_tensor *t, const double *want, int64_t n, double tol) {
  double v[64];
  if (!t || agt_read(rt, t, v, 64) != n) return 0;
  for (int64_t i = 0; i < n; i++)
    if (!(fabs(v[i] - want[i]) <= tol)) {
      printf("  element %lld: got %.12g want %.12g\n", (long long)i, v[i], want[i]);
      return 0;
    }
  return 1;
}

/* --- scatter_reduce prod ------------------------------------------------------------- */
typedef struct { tabi_tensor *index, *w; int include_self; } sr_user;
static tabi_tensor *sr_loss(tabi_tensor **in, void *u) {
  sr_user *s = u;
  tabi_value a[6] = {tabi_tensor_value(in[0]), tabi_int(0), tabi_tensor_value(s->index),
                     tabi_tensor_value(in[1]), tabi_string("prod", 4), tabi_bool(s->include_self)};
  tabi_tensor *r = agt_call(rt, "aten::scatter_reduce.two", a, 6);
  tabi_tensor *l = r ? dot(r, s->w) : NULL;
  tabi_tensor_release(r);
  return l;
}

/* h = sum_k <u_k, d f / d in_k> (create_graph): its gradient is f's double backward. */
typedef struct { loss_fn f; void *user; tabi_tensor *u[4]; int nin; } dbl_user;
static tabi_tensor *dbl_loss(tabi_tensor **in, void *user) {
  dbl_user *d = user;
  tabi_tensor *l = d->f(in, d->user), *g[4] = {0}, *h = NULL;
  if (l && ag->grad_of(ag->ctx, 1, &l, NULL, d->nin, in, 0, 1, g) == TABI_OK) {
    for (int k = 0; k < d->nin; k++) {
      tabi_tensor *t = g[k] ? dot(g[k], d->u[k]) : NULL;
      if (t && h) {
        tabi_tensor *s = agt_b(rt, "aten::add.Tensor", h, t);
        tabi_tensor_release(h);
        tabi_tensor_release(t);
        h = s;
      } else if (t) {
        h = t;
      }
      tabi_tensor_release(g[k]);
    }
  }
  tabi_tensor_release(l);
  return h;
}

static void test_scatter_reduce_prod_zeros(void) {
  /* self [2, 0, 3, 9]; src [0, 5, 0, 0, 4] into slots [0, 0, 1, 1, 2]; loss
   * weights w [1, 2, 3, 4]. Slot 0: one zero in src; slot 1: zero self and two
   * zeros in src; slot 2: no zero; slot 3: untouched. */
  const double sv[4] = {2, 0, 3, 9}, srcv[5] = {0, 5, 0, 0, 4}, wv[4] = {1, 2, 3, 4};
  const int64_t iv[5] = {0, 0, 1, 1, 2};
  for (int inc = 0; inc < 2; inc++) {
    sr_user u = {i64(5, iv), t1(4, wv), inc};
    tabi_tensor *in[2] = {t1(4, sv), t1(5, srcv)}, *an[2] = {0};
    CHECK(analytic(sr_loss, &u, in, 2, an));
    /* include_self: d/dself = w * (product of the slot's others) */
    const double gs_inc[4] = {0 * 5 * 1, 0 * 0 * 2, 4 * 3, 4}, gsrc_inc[5] = {2 * 5 * 1, 2 * 0 * 1, 0, 0, 3 * 3};
    /* without: scattered-to slots of self get nothing; src sees only src */
    const double gs_exc[4] = {0, 0, 0, 4}, gsrc_exc[5] = {5 * 1, 0, 0, 0, 3};
    CHECK(read_eq(an[0], inc ? gs_inc : gs_exc, 4, 1e-12));
    CHECK(read_eq(an[1], inc ? gsrc_inc : gsrc_exc, 5, 1e-12));
    tabi_tensor_release(an[0]);
    tabi_tensor_release(an[1]);
    CHECK(gradcheck(inc ? "scatter_reduce prod include_self" : "scatter_reduce prod", sr_loss, &u, in, 2) == 0);
    for (int i = 0; i < 2; i++) tabi_tensor_release(in[i]);
    tabi_tensor_release(u.index);
    tabi_tensor_release(u.w);
  }
  /* double backward: fine with at most one zero per slot in src; refused (as
   * ATen) when a slot has two */
  const double src1[5] = {0, 5, 1.5, -2, 4}, us[4] = {0.3, -0.7, 1.1, 0.5}, usrc[5] = {0.2, 0.9, -0.4, 0.6, -1.3};
  sr_user u = {i64(5, iv), t1(4, wv), 1};
  dbl_user d = {sr_loss, &u, {t1(4, us), t1(5, usrc)}, 2};
  tabi_tensor *in[2] = {t1(4, sv), t1(5, src1)};
  CHECK(gradcheck("scatter_reduce prod double backward", dbl_loss, &d, in, 2) == 0);
  tabi_tensor_release(in[1]);
  in[1] = t1(5, srcv);
  ag->set_requires_grad(ag->ctx, in[1], 1);
  tabi_tensor *l = sr_loss(in, &u), *g[2] = {0};
  CHECK(l != NULL);
  if (l) {
    CHECK_ERR(ag->grad_of(ag->ctx, 1, &l, NULL, 2, in, 0, 1, g), TABI_ERR_UNIMPLEMENTED, "more than one zero");
    tabi_tensor_release(l);
  }
  for (int i = 0; i < 2; i++) { tabi_tensor_release(in[i]); tabi_tensor_release(d.u[i]); }
  tabi_tensor_release(u.index);
  tabi_tensor_release(u.w);
}

/* --- _embedding_bag with padding_idx ------------------------------------------------------ */
typedef struct { tabi_tensor *ind, *off, *w; int mode; int with_psw; int sgbf; int64_t pad; } eb_user;
static tabi_tensor *eb_loss(tabi_tensor **in, void *u) {
  eb_user *e = u;
  tabi_value a[9] = {tabi_tensor_value(in[0]), tabi_tensor_value(e->ind), tabi_tensor_value(e->off),
                     tabi_bool(e->sgbf), tabi_int(e->mode), tabi_bool(0),
                     e->with_psw ? tabi_tensor_value(in[1]) : tabi_none(), tabi_bool(0), tabi_int(e->pad)};
  tabi_tensor *r = agt_call(rt, "aten::_embedding_bag", a, 9);
  tabi_tensor *l = r ? dot(r, e->w) : NULL;
  tabi_tensor_release(r);
  return l;
}

static void test_embedding_bag_padding(void) {
  /* weight [5, 2]; indices [1, 2, 1, 4, 2], offsets [0, 2]: bag 0 = {1, 2},
   * bag 1 = {1, 4, 2}; padding_idx 2 is skipped (and not counted by mean). */
  const double wv[10] = {0.1, -0.3, 1.2, 0.7, -0.5, 2.0, 0.4, 0.9, 1.6, -1.1};
  const double lw[4] = {1, 2, 3, 4};
  const int64_t iv[5] = {1, 2, 1, 4, 2}, ov[2] = {0, 2};
  const double psw[5] = {0.5, -1.5, 2.0, 0.25, 3.0};
  eb_user u = {i64(5, iv), i64(2, ov), t2(2, 2, lw), 0, 0, 0, 2};
  tabi_tensor *in[2] = {t2(5, 2, wv), t1(5, psw)}, *an[2] = {0};
  /* sum: row 1 gets bags 0 and 1, row 4 bag 1, the padding row nothing */
  const double g_sum[10] = {0, 0, 1 + 3, 2 + 4, 0, 0, 0, 0, 3, 4};
  CHECK(analytic(eb_loss, &u, in, 1, an));
  CHECK(read_eq(an[0], g_sum, 10, 1e-12));
  tabi_tensor_release(an[0]);
  /* mean: bag 0 counts 1 index, bag 1 two */
  u.mode = 1;
  const double g_mean[10] = {0, 0, 1 + 1.5, 2 + 2, 0, 0, 0, 0, 1.5, 2};
  CHECK(analytic(eb_loss, &u, in, 1, an));
  CHECK(read_eq(an[0], g_mean, 10, 1e-12));
  tabi_tensor_release(an[0]);
  CHECK(gradcheck("embedding_bag mean padding", eb_loss, &u, in, 1) == 0);
  /* max: bag 0 = row 1 only; bag 1 = max(row 1, row 4) per column: 1.6 > 1.2, 0.7 > -1.1 */
  u.mode = 2;
  const double g_max[10] = {0, 0, 1, 2 + 4, 0, 0, 0, 0, 3, 0};
  CHECK(analytic(eb_loss, &u, in, 1, an));
  CHECK(read_eq(an[0], g_max, 10, 1e-12));
  tabi_tensor_release(an[0]);
  /* per_sample_weights: d/dpsw_i = <loss row of bag(i), weight[ind_i]>, 0 at padding */
  u.mode = 0;
  u.with_psw = 1;
  const double g_psw[5] = {1 * 1.2 + 2 * 0.7, 0, 3 * 1.2 + 4 * 0.7, 3 * 1.6 + 4 * -1.1, 0};
  const double g_wpsw[10] = {0, 0, 1 * 0.5 + 3 * 2.0, 2 * 0.5 + 4 * 2.0, 0, 0, 0, 0, 3 * 0.25, 4 * 0.25};
  CHECK(analytic(eb_loss, &u, in, 2, an));
  CHECK(read_eq(an[0], g_wpsw, 10, 1e-12));
  CHECK(read_eq(an[1], g_psw, 5, 1e-12));
  tabi_tensor_release(an[0]);
  tabi_tensor_release(an[1]);
  CHECK(gradcheck("embedding_bag psw padding", eb_loss, &u, in, 2) == 0);
  /* scale_grad_by_freq, no padding: each row divided by its index's frequency
   * (1 and 2 appear twice, 4 once). torch 1.13's CPU kernel divides by the
   * previous distinct index's count instead (row 4 by 2): not followed. */
  u.with_psw = 0;
  u.sgbf = 1;
  u.pad = -1;
  const double g_freq[10] = {0, 0, 2, 3, 2, 3, 0, 0, 3, 4};
  CHECK(analytic(eb_loss, &u, in, 1, an));
  CHECK(read_eq(an[0], g_freq, 10, 1e-12));
  tabi_tensor_release(an[0]);
  for (int i = 0; i < 2; i++) tabi_tensor_release(in[i]);
  tabi_tensor_release(u.ind);
  tabi_tensor_release(u.off);
  tabi_tensor_release(u.w);
}

/* --- double backward of the norms ------------------------------------------------------ */
typedef struct { tabi_tensor *v, *u[3]; int group; } nd_user;
static tabi_tensor *norm_fwd(tabi_tensor **in, nd_user *d) {
  if (d->group == 2) { /* batch norm, training: x [2, 4, 3], 4 channels */
    tabi_value a[6] = {tabi_tensor_value(in[0]), tabi_tensor_value(in[1]), tabi_tensor_value(in[2]),
                       tabi_bool(1), tabi_float(0.1), tabi_float(1e-5)};
    return agt_call(rt, "aten::_native_batch_norm_legit.no_stats", a, 6);
  }
  if (d->group) {
    tabi_value a[8] = {tabi_tensor_value(in[0]), tabi_tensor_value(in[1]), tabi_tensor_value(in[2]),
                       tabi_int(2), tabi_int(4), tabi_int(3), tabi_int(2), tabi_float(1e-5)};
    return agt_call(rt, "aten::native_group_norm", a, 8);
  }
  int64_t ns[1] = {4};
  tabi_value a[5] = {tabi_tensor_value(in[0]), tabi_int_list(ns, 1), tabi_tensor_value(in[1]),
                     tabi_tensor_value(in[2]), tabi_float(1e-5)};
  return agt_call(rt, "aten::native_layer_norm", a, 5);
}
/* h = sum_k <u_k, d<v, norm(x, w, b)>/d in_k>: its gradient is the double backward. */
static tabi_tensor *nd_loss(tabi_tensor **in, void *user) {
  nd_user *d = user;
  tabi_tensor *y = norm_fwd(in, d);
  tabi_tensor *l = y ? dot(y, d->v) : NULL, *g[3] = {0}, *h = NULL;
  if (l && ag->grad_of(ag->ctx, 1, &l, NULL, 3, in, 0, 1, g) == TABI_OK) {
    for (int k = 0; k < 3; k++) {
      if (!g[k]) continue;
      tabi_tensor *t = dot(g[k], d->u[k]);
      if (h) {
        tabi_tensor *s = agt_b(rt, "aten::add.Tensor", h, t);
        tabi_tensor_release(h);
        tabi_tensor_release(t);
        h = s;
      } else {
        h = t;
      }
      tabi_tensor_release(g[k]);
    }
  }
  tabi_tensor_release(y);
  tabi_tensor_release(l);
  return h;
}

static void test_norm_double_backward(void) {
  const double xv[24] = {0.3, -1.2, 0.8, 2.1, -0.4, 0.9, 1.5, -2.2, 0.05, 0.7, -0.6, 1.1,
                         -1.3, 0.2, 0.6, -0.8, 1.9, -0.1, 0.4, 1.0, -0.7, 0.35, 2.4, -1.6};
  const double vv[24] = {0.5, -0.2, 1.0, 0.3, -0.9, 0.4, 0.8, -0.6, 0.1, 0.7, -1.1, 0.2,
                         0.6, -0.3, 0.9, -0.5, 0.25, 1.2, -0.4, 0.15, 0.8, -0.7, 0.3, 0.45};
  const double wv[4] = {1.2, -0.7, 0.5, 0.9}, bv[4] = {0.1, 0.2, -0.3, 0.4};
  const double u1[4] = {0.3, -0.5, 0.7, 0.2}, u2[4] = {-0.4, 0.6, 0.1, 0.9};
  static const char *const names[3] = {"layer norm double backward", "group norm double backward",
                                       "batch norm double backward"};
  for (int grp = 0; grp < 3; grp++) {
    /* layer norm: x [6, 4] over [4]; group / batch norm: x [2, 4, 3] (2 groups, 4 channels) */
    int64_t s3[3] = {2, 4, 3}, s2[2] = {6, 4}, s1 = 4;
    nd_user d = {grp ? agt_tensor(rt, 3, s3, vv) : agt_tensor(rt, 2, s2, vv),
                 {grp ? agt_tensor(rt, 3, s3, xv) : agt_tensor(rt, 2, s2, xv), agt_tensor(rt, 1, &s1, u1),
                  agt_tensor(rt, 1, &s1, u2)},
                 grp};
    /* u_x: reuse a reversed copy of v so it differs from v */
    double ux[24];
    for (int i = 0; i < 24; i++) ux[i] = vv[23 - i] - 0.1 * i;
    tabi_tensor_release(d.u[0]);
    d.u[0] = grp ? agt_tensor(rt, 3, s3, ux) : agt_tensor(rt, 2, s2, ux);
    tabi_tensor *in[3] = {grp ? agt_tensor(rt, 3, s3, xv) : agt_tensor(rt, 2, s2, xv),
                          agt_tensor(rt, 1, &s1, wv), agt_tensor(rt, 1, &s1, bv)};
    CHECK(gradcheck(names[grp], nd_loss, &d, in, 3) == 0);
    for (int i = 0; i < 3; i++) { tabi_tensor_release(in[i]); tabi_tensor_release(d.u[i]); }
    tabi_tensor_release(d.v);
  }
}

/* --- double backward of convolution (through convolution_backward) ------------------ */
typedef struct { tabi_tensor *v, *ux, *uw; } cv_user;
static tabi_tensor *conv_fwd(tabi_tensor *x, tabi_tensor *w) {
  int64_t one[2] = {1, 1}, zero[2] = {0, 0};
  tabi_value a[9] = {tabi_tensor_value(x), tabi_tensor_value(w), tabi_none(), tabi_int_list(one, 2),
                     tabi_int_list(zero, 2), tabi_int_list(one, 2), tabi_bool(0), tabi_int_list(zero, 2),
                     tabi_int(1)};
  return agt_call(rt, "aten::convolution", a, 9);
}
/* h = <ux, d<v, conv(x, w)>/dx> + <uw, d<v, conv(x, w)>/dw> */
static tabi_tensor *cv_loss(tabi_tensor **in, void *user) {
  cv_user *d = user;
  tabi_tensor *y = conv_fwd(in[0], in[1]);
  tabi_tensor *l = y ? dot(y, d->v) : NULL, *g[2] = {0}, *h = NULL;
  if (l && ag->grad_of(ag->ctx, 1, &l, NULL, 2, in, 0, 1, g) == TABI_OK && g[0] && g[1]) {
    tabi_tensor *a = dot(g[0], d->ux), *b = dot(g[1], d->uw);
    h = (a && b) ? agt_b(rt, "aten::add.Tensor", a, b) : NULL;
    tabi_tensor_release(a);
    tabi_tensor_release(b);
  }
  tabi_tensor_release(g[0]);
  tabi_tensor_release(g[1]);
  tabi_tensor_release(y);
  tabi_tensor_release(l);
  return h;
}

static void test_conv_double_backward(void) {
  double xv[32], wv[24], vv[27], ux[32], uw[24];
  for (int i = 0; i < 32; i++) { xv[i] = sin(0.7 * i + 0.3); ux[i] = cos(1.3 * i); }
  for (int i = 0; i < 24; i++) { wv[i] = cos(0.9 * i + 0.1); uw[i] = sin(0.4 * i - 0.2); }
  for (int i = 0; i < 27; i++) vv[i] = sin(1.1 * i + 0.5);
  int64_t xs[4] = {1, 2, 4, 4}, ws[4] = {3, 2, 2, 2}, ys[4] = {1, 3, 3, 3};
  cv_user d = {agt_tensor(rt, 4, ys, vv), agt_tensor(rt, 4, xs, ux), agt_tensor(rt, 4, ws, uw)};
  tabi_tensor *in[2] = {agt_tensor(rt, 4, xs, xv), agt_tensor(rt, 4, ws, wv)};
  CHECK(gradcheck("convolution double backward", cv_loss, &d, in, 2) == 0);
  tabi_tensor_release(in[0]);
  tabi_tensor_release(in[1]);
  tabi_tensor_release(d.v);
  tabi_tensor_release(d.ux);
  tabi_tensor_release(d.uw);
}

/* --- zeta / igamma / igammac in `other` ------------------------------------------------ */
typedef struct { const char *op; tabi_tensor *self, *w; } sp_user;
static tabi_tensor *sp_loss(tabi_tensor **in, void *user) {
  sp_user *s = user;
  tabi_tensor *r = agt_b(rt, s->op, s->self, in[0]);
  tabi_tensor *l = r ? dot(r, s->w) : NULL;
  tabi_tensor_release(r);
  return l;
}

static void test_special_other(void) {
  const char *ops[3] = {"prims::zeta", "prims::igamma", "prims::igammac"};
  const double selfv[3][3] = {{2.5, 3.0, 4.2}, {0.5, 2.0, 3.5}, {0.5, 2.0, 3.5}};
  const double otherv[3][3] = {{0.7, 1.5, 2.0}, {0.3, 1.7, 2.2}, {0.3, 1.7, 2.2}};
  const double wv[3] = {1.0, -0.5, 2.0};
  for (int k = 0; k < 3; k++) {
    sp_user u = {ops[k], t1(3, selfv[k]), t1(3, wv)};
    tabi_tensor *in[1] = {t1(3, otherv[k])};
    CHECK(gradcheck(ops[k], sp_loss, &u, in, 1) == 0);
    /* d/dself is not implemented in ATen: refused, naming op and argument */
    ag->set_requires_grad(ag->ctx, u.self, 1);
    tabi_tensor *l = sp_loss(in, &u);
    CHECK(l != NULL);
    if (l) {
      CHECK_ERR(ag->backward(ag->ctx, 1, &l, NULL, 0, 0), TABI_ERR_UNIMPLEMENTED, ops[k]);
      CHECK(strstr(tabi_last_error(), "'self'") != NULL);
    }
    tabi_tensor_release(l);
    tabi_tensor_release(in[0]);
    tabi_tensor_release(u.self);
    tabi_tensor_release(u.w);
  }
}

/* --- FFT -------------------------------------------------------------------------------- */
typedef struct { int kind; tabi_tensor *a, *b; int64_t n; } fft_user;

/* complex from two real tensors: re + 1j * im */
static tabi_tensor *make_complex(tabi_tensor *re, tabi_tensor *im) {
  tabi_value c1[2] = {tabi_tensor_value(re), tabi_dtype_value(TABI_DTYPE_COMPLEX128)};
  tabi_value c2[2] = {tabi_tensor_value(im), tabi_dtype_value(TABI_DTYPE_COMPLEX128)};
  tabi_tensor *zr = agt_call(rt, "aten::_to_copy", c1, 2), *zi = agt_call(rt, "aten::_to_copy", c2, 2);
  tabi_value m[2] = {tabi_tensor_value(zi), tabi_complex(0.0, 1.0)};
  tabi_tensor *zim = zi ? agt_call(rt, "aten::mul.Scalar", m, 2) : NULL;
  tabi_tensor *z = (zr && zim) ? agt_b(rt, "aten::add.Tensor", zr, zim) : NULL;
  tabi_tensor_release(zr);
  tabi_tensor_release(zi);
  tabi_tensor_release(zim);
  return z;
}

/* real loss of a complex tensor: sum(real * a) + sum(imag * b) */
static tabi_tensor *complex_loss(tabi_tensor *y, tabi_tensor *a, tabi_tensor *b) {
  tabi_tensor *re = agt_u(rt, "prims::real", y), *im = agt_u(rt, "prims::imag", y);
  tabi_tensor *l1 = re ? dot(re, a) : NULL, *l2 = im ? dot(im, b) : NULL;
  tabi_tensor *l = (l1 && l2) ? agt_b(rt, "aten::add.Tensor", l1, l2) : NULL;
  tabi_tensor_release(re);
  tabi_tensor_release(im);
  tabi_tensor_release(l1);
  tabi_tensor_release(l2);
  return l;
}

static tabi_tensor *fft_loss(tabi_tensor **in, void *user) {
  fft_user *f = user;
  int64_t d0 = 0;
  tabi_tensor *y = NULL, *z = NULL, *l = NULL;
  switch (f->kind) {
    case 0: { /* aten::_fft_r2c, by 1/sqrt(n), onesided */
      tabi_value a[4] = {tabi_tensor_value(in[0]), tabi_int_list(&d0, 1), tabi_int(1), tabi_bool(1)};
      y = agt_call(rt, "aten::_fft_r2c", a, 4);
      break;
    }
    case 1: { /* prims::fft_r2c, two-sided */
      tabi_value a[3] = {tabi_tensor_value(in[0]), tabi_int_list(&d0, 1), tabi_bool(0)};
      y = agt_call(rt, "prims::fft_r2c", a, 3);
      break;
    }
    case 2: { /* prims::fft_c2c forward */
      z = make_complex(in[0], in[1]);
      tabi_value a[3] = {tabi_tensor_value(z), tabi_int_list(&d0, 1), tabi_bool(1)};
      y = z ? agt_call(rt, "prims::fft_c2c", a, 3) : NULL;
      break;
    }
    case 3: { /* aten::_fft_c2r, by 1/n, to n real outputs */
      z = make_complex(in[0], in[1]);
      tabi_value a[4] = {tabi_tensor_value(z), tabi_int_list(&d0, 1), tabi_int(2), tabi_int(f->n)};
      y = z ? agt_call(rt, "aten::_fft_c2r", a, 4) : NULL;
      l = y ? dot(y, f->a) : NULL;
      break;
    }
    case 4: { /* prims::fft_c2r */
      z = make_complex(in[0], in[1]);
      tabi_value a[3] = {tabi_tensor_value(z), tabi_int_list(&d0, 1), tabi_int(f->n)};
      y = z ? agt_call(rt, "prims::fft_c2r", a, 3) : NULL;
      l = y ? dot(y, f->a) : NULL;
      break;
    }
    case 5: { /* 2-d aten::_fft_r2c over dims [0, 1], by 1/n, onesided: [3, 4] -> [3, 3] */
      int64_t d01[2] = {0, 1};
      tabi_value a[4] = {tabi_tensor_value(in[0]), tabi_int_list(d01, 2), tabi_int(2), tabi_bool(1)};
      y = agt_call(rt, "aten::_fft_r2c", a, 4);
      break;
    }
    case 6: { /* 2-d aten::_fft_c2r over dims [0, 1], unnormalized: [3, 3] -> [3, 4] */
      int64_t d01[2] = {0, 1};
      z = make_complex(in[0], in[1]);
      tabi_value a[4] = {tabi_tensor_value(z), tabi_int_list(d01, 2), tabi_int(0), tabi_int(4)};
      y = z ? agt_call(rt, "aten::_fft_c2r", a, 4) : NULL;
      l = y ? dot(y, f->a) : NULL;
      break;
    }
  }
  if (!l && y) l = complex_loss(y, f->a, f->b);
  tabi_tensor_release(y);
  tabi_tensor_release(z);
  return l;
}

static void test_fft(void) {
  const double xv[8] = {0.3, -1.2, 0.8, 2.1, -0.4, 0.9, 1.5, -2.2};
  const double yv[8] = {0.5, 0.1, -0.7, 0.2, 1.3, -0.6, 0.4, 0.05};
  const double av[8] = {1.0, -0.5, 0.25, 2.0, -1.5, 0.75, 0.3, -0.2};
  const double bv[8] = {0.4, 1.1, -0.9, 0.6, 0.2, -0.3, 1.4, 0.8};
  static const char *const names[5] = {"aten::_fft_r2c", "prims::fft_r2c", "prims::fft_c2c",
                                       "aten::_fft_c2r", "prims::fft_c2r"};
  for (int kind = 0; kind < 5; kind++)
    for (int64_t n = 7; n <= 8; n++) {
      /* output lengths: r2c onesided n/2+1, two-sided n; c2c n; c2r n (input n/2+1) */
      int64_t in_len = kind >= 3 ? n / 2 + 1 : n;
      int64_t out_len = kind == 0 ? n / 2 + 1 : n;
      fft_user f = {kind, t1(out_len, av), t1(out_len, bv), n};
      tabi_tensor *in[2] = {t1(in_len, xv), t1(in_len, yv)};
      char name[64];
      snprintf(name, sizeof name, "%s n=%lld", names[kind], (long long)n);
      CHECK(gradcheck(name, fft_loss, &f, in, kind >= 2 ? 2 : 1) == 0);
      tabi_tensor_release(in[0]);
      tabi_tensor_release(in[1]);
      tabi_tensor_release(f.a);
      tabi_tensor_release(f.b);
    }
  /* 2-d: the onesided dim is the last of dims; the others are full c2c */
  const double a2[12] = {1.0, -0.5, 0.25, 2.0, -1.5, 0.75, 0.3, -0.2, 0.9, -1.1, 0.6, 0.45};
  const double x2[12] = {0.3, -1.2, 0.8, 2.1, -0.4, 0.9, 1.5, -2.2, 0.7, 0.1, -0.6, 1.3};
  const double b2[12] = {0.4, 1.1, -0.9, 0.6, 0.2, -0.3, 1.4, 0.8, -0.5, 0.35, 0.15, -1.2};
  const double y2[12] = {0.5, 0.1, -0.7, 0.2, 1.3, -0.6, 0.4, 0.05, 0.9, -0.8, 0.25, 0.6};
  for (int kind = 5; kind <= 6; kind++) {
    fft_user f = {kind, kind == 5 ? t2(3, 3, a2) : t2(3, 4, a2), t2(3, 3, b2), 4};
    tabi_tensor *in[2] = {kind == 5 ? t2(3, 4, x2) : t2(3, 3, x2), t2(3, 3, y2)};
    CHECK(gradcheck(kind == 5 ? "aten::_fft_r2c 2-d" : "aten::_fft_c2r 2-d", fft_loss, &f, in, kind == 6 ? 2 : 1) == 0);
    tabi_tensor_release(in[0]);
    tabi_tensor_release(in[1]);
    tabi_tensor_release(f.a);
    tabi_tensor_release(f.b);
  }
}

/* --- double backward of more formulas (all made of differentiable calls) ------------- */
typedef struct { int kind; tabi_tensor *w[3]; double p; } db_user;
static tabi_tensor *db_first(tabi_tensor **in, void *user) {
  db_user *d = user;
  tabi_tensor *y = NULL, *l = NULL;
  switch (d->kind) {
    case 0: y = agt_u(rt, "prims::digamma", in[0]); break;
    case 1: y = agt_u(rt, "prims::spherical_bessel_j0", in[0]); break;
    case 2: {
      tabi_value a[2] = {tabi_tensor_value(in[0]), tabi_float(d->p)};
      y = agt_call(rt, "aten::_pdist_forward", a, 2);
      break;
    }
    case 3: {
      tabi_value a[5] = {tabi_tensor_value(in[0]), tabi_tensor_value(in[1]), tabi_int(0), tabi_int(0), tabi_bool(0)};
      y = agt_call(rt, "aten::grid_sampler_2d", a, 5);
      break;
    }
    case 4: { /* svd, thin: <w0, U> + <w1, S> + <w2, Vh> */
      tabi_op op;
      tabi_value a[2] = {tabi_tensor_value(in[0]), tabi_bool(0)}, o[3] = {tabi_none(), tabi_none(), tabi_none()};
      if (tabi_op_find(rt, "prims::svd", &op) != TABI_OK || tabi_call(rt, op, a, 2, o, 3) != TABI_OK) return NULL;
      for (int k = 0; k < 3; k++) {
        tabi_tensor *t = dot(o[k].u.t, d->w[k]);
        if (l) {
          tabi_tensor *s2 = agt_b(rt, "aten::add.Tensor", l, t);
          tabi_tensor_release(l);
          tabi_tensor_release(t);
          l = s2;
        } else {
          l = t;
        }
        tabi_value_release(&o[k]);
      }
      return l;
    }
  }
  l = y ? dot(y, d->w[0]) : NULL;
  tabi_tensor_release(y);
  return l;
}

static void test_more_double_backward(void) {
  const double xd[4] = {-0.3, 0.2, 1.7, 4.5}, xj[4] = {0.1, -0.35, 2.0, 7.3}, w4[4] = {0.7, -1.2, 0.4, 1.5};
  const double u4[4] = {-0.6, 0.8, 1.3, -0.2};
  for (int kind = 0; kind < 2; kind++) {
    db_user f = {kind, {t1(4, w4), NULL, NULL}, 0};
    dbl_user d = {db_first, &f, {t1(4, u4)}, 1};
    tabi_tensor *in[1] = {t1(4, kind ? xj : xd)};
    CHECK(gradcheck(kind ? "spherical_bessel_j0 double backward" : "digamma double backward", dbl_loss, &d, in, 1) == 0);
    tabi_tensor_release(in[0]);
    tabi_tensor_release(d.u[0]);
    tabi_tensor_release(f.w[0]);
  }
  const double x43[12] = {0.3, -1.2, 0.8, 2.1, -0.4, 0.9, 1.5, -2.2, 0.7, 0.1, -0.6, 1.3};
  const double u43[12] = {0.5, 0.1, -0.7, 0.2, 1.3, -0.6, 0.4, 0.05, 0.9, -0.8, 0.25, 0.6};
  const double w6[6] = {0.4, 1.1, -0.9, 0.6, 0.2, -0.3};
  for (int pi = 0; pi < 2; pi++) {
    db_user f = {2, {t1(6, w6), NULL, NULL}, pi ? 1.5 : 2.0};
    dbl_user d = {db_first, &f, {t2(4, 3, u43)}, 1};
    tabi_tensor *in[1] = {t2(4, 3, x43)};
    CHECK(gradcheck(pi ? "pdist p=1.5 double backward" : "pdist p=2 double backward", dbl_loss, &d, in, 1) == 0);
    tabi_tensor_release(in[0]);
    tabi_tensor_release(d.u[0]);
    tabi_tensor_release(f.w[0]);
  }
  { /* grid_sampler_2d bilinear: input [1, 1, 3, 3], grid [1, 2, 2, 2] */
    int64_t is[4] = {1, 1, 3, 3}, gs[4] = {1, 2, 2, 2}, os[4] = {1, 1, 2, 2};
    const double gv[8] = {-0.63, 0.21, 0.44, -0.37, 0.12, 0.71, -0.28, -0.55}, ug[8] = {0.3, -0.2, 0.5, 0.1, -0.4, 0.6, 0.2, -0.7};
    db_user f = {3, {agt_tensor(rt, 4, os, w4), NULL, NULL}, 0};
    dbl_user d = {db_first, &f, {agt_tensor(rt, 4, is, u43), agt_tensor(rt, 4, gs, ug)}, 2};
    tabi_tensor *in[2] = {agt_tensor(rt, 4, is, x43), agt_tensor(rt, 4, gs, gv)};
    CHECK(gradcheck("grid_sampler_2d double backward", dbl_loss, &d, in, 2) == 0);
    for (int i = 0; i < 2; i++) { tabi_tensor_release(in[i]); tabi_tensor_release(d.u[i]); }
    tabi_tensor_release(f.w[0]);
  }
  { /* svd thin of [3, 2]: U [3, 2], S [2], Vh [2, 2] */
    const double wu[6] = {0.3, -0.5, 0.8, 0.1, -0.2, 0.6}, ws[2] = {1.2, -0.4}, wv[4] = {0.7, 0.2, -0.9, 0.5};
    db_user f = {4, {t2(3, 2, wu), t1(2, ws), t2(2, 2, wv)}, 0};
    dbl_user d = {db_first, &f, {t2(3, 2, u43)}, 1};
    tabi_tensor *in[1] = {t2(3, 2, x43)};
    CHECK(gradcheck("svd double backward", dbl_loss, &d, in, 1) == 0);
    tabi_tensor_release(in[0]);
    tabi_tensor_release(d.u[0]);
    for (int k = 0; k < 3; k++) tabi_tensor_release(f.w[k]);
  }
}

int main(void) {
  rt = agt_runtime(&ag);
  CHECK(rt != NULL);
  if (!rt) return check_report();
  test_scatter_reduce_prod_zeros();
  test_embedding_bag_padding();
  test_norm_double_backward();
  test_conv_double_backward();
  test_special_other();
  test_fft();
  test_more_double_backward();
  tabi_runtime_destroy(rt);
  return check_report();
}
