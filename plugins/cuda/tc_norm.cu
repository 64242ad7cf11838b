/* plugins/cuda/tc_norm.cu: native_group_norm, native_layer_norm_backward and
 * native_group_norm_backward.
 *
 * The argument checks are the reference's own (reference/ref_norm_check.c,
 * linked in); the kernels are grid-stride loops calling the functions of
 * tc_norm.cuh, which tests/cuda/test_cuda_norm_host runs on the host against
 * the reference plugin: one thread per normalized set (statistics / backward sums, into a
 * double scratch), then one thread per element, and one per parameter for
 * grad_weight/grad_bias (a gather in the reference's order, no atomics): the
 * reference's bits, deterministic. Per-set and per-parameter loops are serial,
 * simple rather than fast: a block-per-set reduction would change the order
 * of the sums. Inputs are made contiguous first (any float dtype; grad_out,
 * mean, rstd of other dtypes are converted to float64, the values the
 * reference reads); outputs are contiguous, as the reference's. */
#include <string.h>

#include "tc.h"
#include "tc_norm.cuh"
#include "ref_norm_check.h"

#define NT 256
#define GRID_LOOP(i, n) \
  for (int64_t i = blockIdx.x * (int64_t)NT + threadIdx.x; i < (n); i += (int64_t)gridDim.x * NT)

__global__ void __launch_bounds__(NT) fw_set_kernel(tcn_geom g, const char *x, char *mean, char *rstd,
                                                    double *ms) {
  GRID_LOOP(r, g.rows) tcn_fw_set(&g, x, mean, rstd, ms, r);
}
__global__ void __launch_bounds__(NT) fw_elem_kernel(tcn_geom g, const char *x, const char *w, const char *b,
                                                     const double *ms, char *out, int64_t n) {
  GRID_LOOP(i, n) tcn_fw_elem(&g, x, w, b, ms, out, i);
}
__global__ void __launch_bounds__(NT) bw_set_kernel(tcn_geom g, const char *go, const char *x, const char *mean,
                                                    const char *rstd, const char *w, double *s) {
  GRID_LOOP(r, g.rows) tcn_bw_set(&g, go, x, mean, rstd, w, s, r);
}
__global__ void __launch_bounds__(NT) dx_kernel(tcn_geom g, const char *go, const char *x, const char *mean,
                                                const char *rstd, const char *w, const double *s, char *gi,
                                                int64_t n) {
  GRID_LOOP(i, n) tcn_dx_elem(&g, go, x, mean, rstd, w, s, gi, i);
}
__global__ void __launch_bounds__(NT) param_kernel(tcn_geom g, const char *go, const char *x, const char *mean,
                                                   const char *rstd, char *dg, int dgdt, char *db, int dbdt,
                                                   int64_t pn) {
  GRID_LOOP(p, pn) tcn_param_elem(&g, go, x, mean, rstd, dg, dgdt, db, dbdt, p);
}

static unsigned blocks_for(int64_t n) {
  int64_t b = (n + NT - 1) / NT;
  return (unsigned)(b < (1 << 20) ? b : (1 << 20));
}

static tabi_status devices(tc_ctx *c, const char *op, int n, tabi_tensor *const *t, const char *const *names) {
  tabi_status st;
  for (int i = 0; i < n; i++) {
    if (!t[i]) continue;
    if ((st = tc_check_cuda(c, t[i], op, names[i])) != TABI_OK) return st;
    if (t[i]->dl.device.device_id != t[0]->dl.device.device_id)
      return TC_ERR(c, TABI_ERR_DEVICE, "%s: arguments on different " TC_PLATFORM " devices", op);
  }
  return tc_use_device(c, t[0], op);
}

/* A contiguous copy of t (NULL: none) in a dtype tc_norm.cuh reads: its own
 * when floating, else float64 (the reference reads any dtype as double). */
static tabi_status operand(tc_ctx *c, const char *op, tabi_tensor *t, tabi_tensor **out) {
  *out = NULL;
  if (!t) return TABI_OK;
  if (tabi_dtype_is_floating(tabi_tensor_dtype(t))) return tc_contiguous(c, op, t, out);
  tabi_status st = tc_empty(c, t->dl.device, TABI_DTYPE_FLOAT64, t->dl.ndim, t->dl.shape, out);
  if (st == TABI_OK) st = tc_copy_convert(c, op, *out, t);
  if (st != TABI_OK && *out) {
    c->h->tensor_release(c->h->ctx, *out);
    *out = NULL;
  }
  return st;
}

static int dt_or(const tabi_tensor *t) { return t ? (int)tabi_tensor_dtype(t) : -1; }
static const char *cdata(const tabi_tensor *t) { return t ? (const char *)tabi_tensor_data(t) : NULL; }
static char *mdata(tabi_tensor *t) { return t ? (char *)tabi_tensor_data(t) : NULL; }
static void release_all(tc_ctx *c, tabi_tensor **t, int n) {
  for (int i = 0; i < n; i++)
    if (t[i]) c->h->tensor_release(c->h->ctx, t[i]);
}

/* --- group norm forward ------------------------------------------------------------ */

static tabi_status k_group_norm(TC_ARGS) {
  TC_CTX;
  tabi_tensor *x = args[0].u.t;
  tabi_tensor *w = args[1].tag == TABI_TAG_TENSOR ? args[1].u.t : NULL;
  tabi_tensor *b = args[2].tag == TABI_TAG_TENSOR ? args[2].u.t : NULL;
  ref_norm_dims d;
  tabi_status st = ref_norm_gn_check(c->h, call, args, &d);
  tabi_tensor *ts[3] = {x, w, b};
  const char *names[3] = {"input", "weight", "bias"};
  if (st == TABI_OK) st = devices(c, OPN, 3, ts, names);
  if (st != TABI_OK) return st;
  tabi_tensor *tmp[4] = {NULL, NULL, NULL, NULL}; /* x, w, b, scratch */
  tabi_tensor *o[3] = {NULL, NULL, NULL};
  int64_t sshape[2] = {args[3].u.i, d.G}, two = 2 * d.rows;
  tabi_dtype dt = tabi_tensor_dtype(x);
  for (int i = 0; i < 3 && st == TABI_OK; i++) st = operand(c, OPN, ts[i], &tmp[i]);
  if (st == TABI_OK) st = tc_empty(c, x->dl.device, dt, x->dl.ndim, x->dl.shape, &o[0]);
  if (st == TABI_OK) st = tc_empty(c, x->dl.device, (tabi_dtype)d.sdt, 2, sshape, &o[1]);
  if (st == TABI_OK) st = tc_empty(c, x->dl.device, (tabi_dtype)d.sdt, 2, sshape, &o[2]);
  if (st == TABI_OK) st = tc_empty(c, x->dl.device, TABI_DTYPE_FLOAT64, 1, &two, &tmp[3]);
  if (st == TABI_OK && d.rows > 0) {
    tcn_geom g;
    memset(&g, 0, sizeof g);
    tcn_init(&g, &d, dt, -1, d.sdt, d.sdt, dt_or(tmp[1]), dt_or(tmp[2]), args[7].u.f);
    double *ms = (double *)tabi_tensor_data(tmp[3]);
    fw_set_kernel<<<blocks_for(d.rows), NT>>>(g, cdata(tmp[0]), mdata(o[1]), mdata(o[2]), ms);
    int64_t n = d.rows * d.cnt;
    if (n > 0)
      fw_elem_kernel<<<blocks_for(n), NT>>>(g, cdata(tmp[0]), cdata(tmp[1]), cdata(tmp[2]), ms, mdata(o[0]), n);
    st = tc_launch_status(c, OPN);
  }
  release_all(c, tmp, 4);
  if (st != TABI_OK) {
    release_all(c, o, 3);
    return st;
  }
  for (int i = 0; i < 3; i++) outs[i] = tabi_tensor_value(o[i]);
  return TABI_OK;
}

/* --- backward ------------------------------------------------------------------------ */

/* grad_input like x, grad_weight/grad_bias of the parameter shape (dtype: the
 * weight's/bias's, or x's), each when output_mask asks for it. */
static tabi_status norm_backward(TC_ARGS, int group) {
  TC_CTX;
  tabi_tensor *go = args[0].u.t, *x = args[1].u.t;
  tabi_tensor *mean = args[group ? 2 : 3].u.t, *rstd = args[group ? 3 : 4].u.t;
  const tabi_value *wv = &args[group ? 4 : 5];
  tabi_tensor *w = wv->tag == TABI_TAG_TENSOR ? wv->u.t : NULL;
  tabi_tensor *b = !group && args[6].tag == TABI_TAG_TENSOR ? args[6].u.t : NULL;
  const int64_t *mask = tabi_value_ints(&args[group ? 9 : 7]);
  ref_norm_dims d;
  tabi_status st =
      group ? ref_norm_gn_bwd_check(c->h, call, args, &d) : ref_norm_ln_bwd_check(c->h, call, args, &d);
  tabi_tensor *ts[6] = {x, go, mean, rstd, w, b};
  const char *names[6] = {"input", "grad_out", "mean", "rstd", "weight", "bias"};
  if (st == TABI_OK) st = devices(c, OPN, 6, ts, names);
  if (st != TABI_OK) return st;
  tabi_dtype dt = tabi_tensor_dtype(x);
  tabi_tensor *tmp[6] = {NULL, NULL, NULL, NULL, NULL, NULL}; /* x, go, mean, rstd, w, scratch */
  tabi_tensor *o[3] = {NULL, NULL, NULL};
  for (int i = 0; i < 5 && st == TABI_OK; i++) st = operand(c, OPN, ts[i], &tmp[i]);
  int dgdt = w ? (int)tabi_tensor_dtype(w) : (int)dt, dbdt = b ? (int)tabi_tensor_dtype(b) : (int)dt;
  int64_t two = 2 * d.rows, n = d.rows * d.cnt;
  if (st == TABI_OK && mask[0]) st = tc_empty(c, x->dl.device, dt, x->dl.ndim, x->dl.shape, &o[0]);
  if (st == TABI_OK && mask[1]) st = tc_empty(c, x->dl.device, (tabi_dtype)dgdt, d.pnd, d.pshape, &o[1]);
  if (st == TABI_OK && mask[2]) st = tc_empty(c, x->dl.device, (tabi_dtype)dbdt, d.pnd, d.pshape, &o[2]);
  if (st == TABI_OK && mask[0] && n > 0) st = tc_empty(c, x->dl.device, TABI_DTYPE_FLOAT64, 1, &two, &tmp[5]);
  if (st == TABI_OK && ((mask[0] && n > 0) || ((mask[1] || mask[2]) && d.pn > 0))) {
    tcn_geom g;
    memset(&g, 0, sizeof g);
    tcn_init(&g, &d, dt, dt_or(tmp[1]), dt_or(tmp[2]), dt_or(tmp[3]), dt_or(tmp[4]), -1, 0);
    const char *xp = cdata(tmp[0]), *gp = cdata(tmp[1]), *mp = cdata(tmp[2]), *rp = cdata(tmp[3]),
               *wp = cdata(tmp[4]);
    if (mask[0] && n > 0) {
      double *s = (double *)tabi_tensor_data(tmp[5]);
      bw_set_kernel<<<blocks_for(d.rows), NT>>>(g, gp, xp, mp, rp, wp, s);
      dx_kernel<<<blocks_for(n), NT>>>(g, gp, xp, mp, rp, wp, s, mdata(o[0]), n);
    }
    if ((mask[1] || mask[2]) && d.pn > 0)
      param_kernel<<<blocks_for(d.pn), NT>>>(g, gp, xp, mp, rp, mdata(o[1]), dgdt, mdata(o[2]), dbdt, d.pn);
    st = tc_launch_status(c, OPN);
  }
  release_all(c, tmp, 6);
  if (st != TABI_OK) {
    release_all(c, o, 3);
    return st;
  }
  for (int i = 0; i < 3; i++) outs[i] = tabi_tensor_value(o[i]);
  return TABI_OK;
}
static tabi_status k_layer_norm_backward(TC_ARGS) { return norm_backward(ctx, call, args, outs, 0); }
static tabi_status k_group_norm_backward(TC_ARGS) { return norm_backward(ctx, call, args, outs, 1); }

TC_KTABLE tc_kernel tc_norm_kernels[] = {
    {"aten::native_group_norm", k_group_norm},
    {"aten::native_layer_norm_backward", k_layer_norm_backward},
    {"aten::native_group_norm_backward", k_group_norm_backward},
    {NULL, NULL},
};
