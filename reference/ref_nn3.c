/* reference/ref_nn3.c: softmax, log-softmax, normalization (layer, batch, group,
 * with the backwards of layer and group norm) and dropout. The table also lists
 * the upsampling, grid sampling and embedding kernels of ref_nn4.c.
 *
 * All statistics are computed in double, two-pass (mean, then the biased
 * variance about it); rstd = 1/sqrt(var + eps).
 *
 * dtypes: real floats, float16 included (torch 1.13 CPU refuses float16 for
 * these; ATen today has it). Parameters (weight, bias, running stats) have the
 * input's dtype, or float32 with a float16/bfloat16 input: that "mixed" case,
 * which ATen today allows, gives float32 statistics (mean/rstd); otherwise the
 * statistics have the input's dtype. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ref.h"
#include "ref_nn_util.h"
#include "ref_norm_check.h"
#include "ref_softmax_check.h"

static const tabi_tensor *opt_t(const tabi_value *v) { return v->tag == TABI_TAG_TENSOR ? v->u.t : NULL; }

/* --- softmax ----------------------------------------------------------------- */

static tabi_status softmax(const tabi_host_api *h, const tabi_call *call, tabi_value *args,
                           tabi_value *outs, int log_form) {
  const tabi_tensor *x = args[0].u.t;
  tabi_dtype odt;
  int32_t d;
  tabi_status st = ref_softmax_check(h, call, args, &d, &odt);
  if (st) return st;
  tabi_tensor *out;
  if ((st = ref_empty(h, x, odt, x->dl.ndim, x->dl.shape, &out))) return st;
  int64_t len = x->dl.ndim ? x->dl.shape[d] : 1, xs = x->dl.ndim ? x->dl.strides[d] : 0;
  int64_t os = x->dl.ndim ? out->dl.strides[d] : 0;
  int64_t rshape[REF_MAX_DIMS];
  for (int32_t i = 0; i < x->dl.ndim; i++) rshape[i] = i == d ? 1 : x->dl.shape[i];
  ref_iter it;
  ref_iter_init(&it, x->dl.ndim, rshape);
  int32_t a = ref_iter_add_strided(&it, x->dl.ndim, rshape, x->dl.strides);
  int32_t b = ref_iter_add_strided(&it, x->dl.ndim, rshape, out->dl.strides);
  if (len > 0)
    for (; !ref_iter_done(&it); ref_iter_next(&it)) {
      double mx = -INFINITY, sum = 0;
      for (int64_t i = 0; i < len; i++) {
        double v = ref_load_f(x, it.off[a] + i * xs);
        if (v > mx || isnan(v)) mx = isnan(mx) ? mx : v;
      }
      for (int64_t i = 0; i < len; i++) sum += exp(ref_load_f(x, it.off[a] + i * xs) - mx);
      for (int64_t i = 0; i < len; i++) {
        double v = ref_load_f(x, it.off[a] + i * xs) - mx;
        ref_store_f(out, it.off[b] + i * os, log_form ? v - log(sum) : exp(v) / sum);
      }
    }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

static tabi_status k_softmax(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return softmax(ctx, call, args, outs, 0);
}
static tabi_status k_log_softmax(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return softmax(ctx, call, args, outs, 1);
}

/* --- layer norm ----------------------------------------------------------------- */

static double opt_load(const tabi_tensor *t, int64_t lin, double dflt) {
  return t ? ref_load_f(t, ref_offset_of(t, lin)) : dflt;
}

static tabi_status k_native_layer_norm(void *ctx, const tabi_call *call, tabi_value *args,
                                       tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *x = args[0].u.t, *w = opt_t(&args[2]), *b = opt_t(&args[3]);
  double eps = args[4].u.f;
  ref_norm_dims d;
  tabi_status st = ref_norm_ln_check(h, call, args, &d);
  if (st) return st;
  int32_t axis = x->dl.ndim - d.pnd;
  int64_t M = d.rows, N = d.cnt;
  tabi_dtype sdt = (tabi_dtype)d.sdt;
  int64_t sshape[REF_MAX_DIMS];
  for (int32_t i = 0; i < x->dl.ndim; i++) sshape[i] = i < axis ? x->dl.shape[i] : 1;
  tabi_tensor *out = NULL, *mean = NULL, *rstd = NULL;
  if ((st = ref_empty(h, x, tabi_tensor_dtype(x), x->dl.ndim, x->dl.shape, &out)) ||
      (st = ref_empty(h, x, sdt, x->dl.ndim, sshape, &mean)) ||
      (st = ref_empty(h, x, sdt, x->dl.ndim, sshape, &rstd))) {
    h->tensor_release(h->ctx, out);
    h->tensor_release(h->ctx, mean);
    return st;
  }
  for (int64_t r = 0; r < M; r++) {
    double mu = 0, var = 0;
    for (int64_t j = 0; j < N; j++) mu += ref_load_f(x, ref_offset_of(x, r * N + j));
    mu = N > 0 ? mu / (double)N : 0; /* ATen's mean of no element is 0 (rstd NaN) */
    for (int64_t j = 0; j < N; j++) {
      double dv = ref_load_f(x, ref_offset_of(x, r * N + j)) - mu;
      var += dv * dv;
    }
    double rs = ref_nn_opmath_invstd(var / (double)N, eps, tabi_tensor_dtype(x));
    for (int64_t j = 0; j < N; j++) {
      double v = (ref_load_f(x, ref_offset_of(x, r * N + j)) - mu) * rs;
      ref_store_f(out, r * N + j, v * opt_load(w, j, 1) + opt_load(b, j, 0));
    }
    ref_store_f(mean, r, mu);
    ref_store_f(rstd, r, rs);
  }
  ref_set_out(outs, 0, out);
  ref_set_out(outs, 1, mean);
  ref_set_out(outs, 2, rstd);
  return TABI_OK;
}

/* The shared backward of layer and group norm over one normalized set: element
 * e of the set at linear index lin(e) in x/grad, parameter index pidx(e).
 * dx = rstd * (dy*w - mean(dy*w) - xhat * mean(dy*w*xhat)); dgamma += dy*xhat;
 * dbeta += dy. */
typedef struct norm_bw {
  const tabi_tensor *go, *x, *w;
  tabi_tensor *gi;
  double *dgamma, *dbeta;
} norm_bw;

static void norm_bw_set(const norm_bw *nb, double mu, double rs, int64_t cnt, int64_t base,
                        int64_t pbase, int64_t pdiv, int64_t pmod) {
  /* element e: linear base + e; parameter pbase + (e / pdiv) % pmod */
  double s1 = 0, s2 = 0;
  for (int64_t e = 0; e < cnt; e++) {
    int64_t p = pbase + (e / pdiv) % pmod;
    double dy = ref_load_f(nb->go, ref_offset_of(nb->go, base + e));
    double xh = (ref_load_f(nb->x, ref_offset_of(nb->x, base + e)) - mu) * rs;
    double dyw = dy * opt_load(nb->w, p, 1);
    s1 += dyw;
    s2 += dyw * xh;
    if (nb->dgamma) nb->dgamma[p] += dy * xh;
    if (nb->dbeta) nb->dbeta[p] += dy;
  }
  if (!nb->gi) return;
  for (int64_t e = 0; e < cnt; e++) {
    int64_t p = pbase + (e / pdiv) % pmod;
    double dy = ref_load_f(nb->go, ref_offset_of(nb->go, base + e));
    double xh = (ref_load_f(nb->x, ref_offset_of(nb->x, base + e)) - mu) * rs;
    double dyw = dy * opt_load(nb->w, p, 1);
    ref_store_f(nb->gi, base + e, rs * (dyw - s1 / (double)cnt - xh * s2 / (double)cnt));
  }
}

/* Allocates the masked outputs of a norm backward: grad_input like x,
 * grad_weight and grad_bias of `pshape` (their dtype: the weight's, or x's). */
static tabi_status norm_bw_alloc(const tabi_host_api *h, const tabi_value *maskv, const tabi_tensor *x,
                                 const tabi_tensor *w, const tabi_tensor *b, int32_t pnd,
                                 const int64_t *pshape, int64_t pn, norm_bw *nb, tabi_tensor **outs3) {
  const int64_t *mask = tabi_value_ints(maskv);
  tabi_status st = TABI_OK;
  tabi_dtype dt = tabi_tensor_dtype(x);
  outs3[0] = outs3[1] = outs3[2] = NULL;
  nb->dgamma = nb->dbeta = NULL;
  if (mask[0]) st = ref_empty(h, x, dt, x->dl.ndim, x->dl.shape, &outs3[0]);
  if (!st && mask[1]) st = ref_empty(h, x, w ? tabi_tensor_dtype(w) : dt, pnd, pshape, &outs3[1]);
  if (!st && mask[2]) st = ref_empty(h, x, b ? tabi_tensor_dtype(b) : dt, pnd, pshape, &outs3[2]);
  if (!st && mask[1] && !(nb->dgamma = ref_nn_zeros(pn))) st = TABI_ERR_OUT_OF_MEMORY;
  if (!st && mask[2] && !(nb->dbeta = ref_nn_zeros(pn))) st = TABI_ERR_OUT_OF_MEMORY;
  nb->gi = outs3[0];
  if (st) {
    for (int i = 0; i < 3; i++) h->tensor_release(h->ctx, outs3[i]);
    ref_nn_free(nb->dgamma);
    ref_nn_free(nb->dbeta);
    if (st == TABI_ERR_OUT_OF_MEMORY) return TABI_ERR(h, st, "norm backward: out of memory");
  }
  return st;
}

static void norm_bw_finish(norm_bw *nb, tabi_tensor **o3, int64_t pn, tabi_value *outs) {
  for (int64_t p = 0; p < pn; p++) {
    if (o3[1]) ref_store_f(o3[1], p, nb->dgamma[p]);
    if (o3[2]) ref_store_f(o3[2], p, nb->dbeta[p]);
  }
  ref_nn_free(nb->dgamma);
  ref_nn_free(nb->dbeta);
  for (int i = 0; i < 3; i++) ref_set_out(outs, i, o3[i]);
}

/* grad_weight/grad_bias are computed whenever masked on, with the shape of
 * normalized_shape, even when weight/bias is None (torch 1.13 fails then). */
static tabi_status k_native_layer_norm_backward(void *ctx, const tabi_call *call, tabi_value *args,
                                                tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *go = args[0].u.t, *x = args[1].u.t, *mean = args[3].u.t, *rstd = args[4].u.t;
  const tabi_tensor *w = opt_t(&args[5]), *b = opt_t(&args[6]);
  ref_norm_dims d;
  tabi_status st = ref_norm_ln_bwd_check(h, call, args, &d);
  if (st) return st;
  int32_t axis = x->dl.ndim - d.pnd;
  int64_t M = d.rows, N = d.cnt;
  norm_bw nb = {go, x, w, NULL, NULL, NULL};
  tabi_tensor *o3[3];
  if ((st = norm_bw_alloc(h, &args[7], x, w, b, x->dl.ndim - axis, x->dl.shape + axis, N, &nb, o3)))
    return st;
  for (int64_t r = 0; r < M; r++)
    norm_bw_set(&nb, ref_load_f(mean, ref_offset_of(mean, r)), ref_load_f(rstd, ref_offset_of(rstd, r)), N,
                r * N, 0, 1, N > 0 ? N : 1);
  norm_bw_finish(&nb, o3, N, outs);
  return TABI_OK;
}

/* --- group norm ---------------------------------------------------------------- */

static tabi_status k_native_group_norm(void *ctx, const tabi_call *call, tabi_value *args,
                                       tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *x = args[0].u.t, *w = opt_t(&args[1]), *b = opt_t(&args[2]);
  int64_t N = args[3].u.i, C = args[4].u.i, HxW = args[5].u.i, G = args[6].u.i;
  double eps = args[7].u.f;
  ref_norm_dims d;
  tabi_status st = ref_norm_gn_check(h, call, args, &d);
  if (st) return st;
  tabi_dtype sdt = (tabi_dtype)d.sdt;
  int64_t sshape[2] = {N, G}, D = C / G, cnt = D * HxW;
  tabi_tensor *out = NULL, *mean = NULL, *rstd = NULL;
  if ((st = ref_empty(h, x, tabi_tensor_dtype(x), x->dl.ndim, x->dl.shape, &out)) ||
      (st = ref_empty(h, x, sdt, 2, sshape, &mean)) || (st = ref_empty(h, x, sdt, 2, sshape, &rstd))) {
    h->tensor_release(h->ctx, out);
    h->tensor_release(h->ctx, mean);
    return st;
  }
  for (int64_t r = 0; r < N * G; r++) {
    int64_t base = r * cnt; /* group r's elements are contiguous in row-major order */
    double mu = 0, var = 0;
    for (int64_t e = 0; e < cnt; e++) mu += ref_load_f(x, ref_offset_of(x, base + e));
    mu = cnt > 0 ? mu / (double)cnt : 0; /* an empty group: mean 0 (ATen's), rstd NaN */
    for (int64_t e = 0; e < cnt; e++) {
      double dv = ref_load_f(x, ref_offset_of(x, base + e)) - mu;
      var += dv * dv;
    }
    double rs = ref_nn_opmath_invstd(var / (double)cnt, eps, tabi_tensor_dtype(x));
    for (int64_t e = 0; e < cnt; e++) {
      int64_t c = (r % G) * D + e / HxW;
      double v = (ref_load_f(x, ref_offset_of(x, base + e)) - mu) * rs;
      ref_store_f(out, base + e, v * opt_load(w, c, 1) + opt_load(b, c, 0));
    }
    ref_store_f(mean, r, mu);
    ref_store_f(rstd, r, rs);
  }
  ref_set_out(outs, 0, out);
  ref_set_out(outs, 1, mean);
  ref_set_out(outs, 2, rstd);
  return TABI_OK;
}

/* grad_weight/grad_bias [C] are computed whenever masked on, even without a
 * weight (torch 1.13 fails then). */
static tabi_status k_native_group_norm_backward(void *ctx, const tabi_call *call, tabi_value *args,
                                                tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *go = args[0].u.t, *x = args[1].u.t, *mean = args[2].u.t, *rstd = args[3].u.t;
  const tabi_tensor *w = opt_t(&args[4]);
  int64_t N = args[5].u.i, C = args[6].u.i, HxW = args[7].u.i, G = args[8].u.i;
  ref_norm_dims d;
  tabi_status st = ref_norm_gn_bwd_check(h, call, args, &d);
  if (st) return st;
  norm_bw nb = {go, x, w, NULL, NULL, NULL};
  tabi_tensor *o3[3];
  int64_t cshape = C;
  if ((st = norm_bw_alloc(h, &args[9], x, w, NULL, 1, &cshape, C, &nb, o3))) return st;
  int64_t D = C / G, cnt = D * HxW;
  for (int64_t r = 0; r < N * G; r++) /* element e of group r is channel (r % G)*D + e/HxW */
    norm_bw_set(&nb, ref_load_f(mean, ref_offset_of(mean, r)), ref_load_f(rstd, ref_offset_of(rstd, r)),
                cnt, r * cnt, (r % G) * D, HxW ? HxW : 1, D ? D : 1);
  norm_bw_finish(&nb, o3, C, outs);
  return TABI_OK;
}


const ref_kernel ref_nn3_kernels[] = {
    {"aten::_softmax", k_softmax},
    {"aten::_log_softmax", k_log_softmax},
    {"aten::native_layer_norm", k_native_layer_norm},
    {"aten::native_layer_norm_backward", k_native_layer_norm_backward},
    {"aten::native_group_norm", k_native_group_norm},
    {"aten::native_group_norm_backward", k_native_group_norm_backward},
    {"aten::_native_batch_norm_legit", ref_nn_batch_norm},
    {"aten::_native_batch_norm_legit.no_stats", ref_nn_batch_norm_no_stats},
    {"aten::_native_batch_norm_legit_no_training", ref_nn_batch_norm_no_training},
    {"aten::native_dropout", ref_nn_native_dropout},
    {"aten::upsample_nearest2d.vec", ref_nn_upsample_nearest2d},
    {"aten::upsample_bilinear2d.vec", ref_nn_upsample_bilinear2d},
    {"aten::grid_sampler_2d", ref_nn_grid_sampler_2d},
    {"aten::embedding", ref_nn_embedding},
    {"aten::embedding_dense_backward", ref_nn_embedding_dense_backward},
    {"aten::_embedding_bag", ref_nn_embedding_bag},
    {NULL, NULL},
};
