/* plugins/cuda/tc_norm.cu: native_group_norm, native_layer_norm_backward and
 * native_group_norm_backward.
 *
 * The argument checks are the reference's own (reference/ref_norm_check.c,
 * linked in); the kernels are grid-stride loops calling the functions of
 * tc_norm.cuh, which tests/cuda/test_cuda_norm_host runs on the host against
 * the reference plugin: one thread per normalized set (statistics / backward sums, into a
 * double scratch), then one thread per element, and one per parameter for
 * grad_weight/grad_bias (a gather in the reference's order, no atomics): the
 * reference's bits, deterministic. A set or parameter sum of more than
 * TCN_SERIAL terms is split into partial sums over a thread each, then added
 * in a fixed order by one thread per sum (tc_norm.cuh): deterministic, within
 * tolerance of the reference. Layer norm backward of float32/float16/bfloat16
 * takes tc_nn.cu's float kernels instead where it can (tc_ln_bw_rows: a
 * block a row for grad_input, float partial sums of the parameters; the
 * general kernels here divide 64-bit indices per element and work in
 * double, 0.15x PyTorch on an H200 at 8192 x 8192). Inputs are made
 * contiguous first (any float dtype; grad_out,
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
/* split statistics: partials (sq 0: of x, 1: of squares), then per set */
__global__ void __launch_bounds__(NT) fw_part_kernel(tcn_geom g, const char *x, int64_t k, int sq, const double *ms,
                                                     double *part) {
  GRID_LOOP(i, g.rows * k) part[i] = tcn_fw_part(&g, x, i / k, i % k, k, sq, sq ? ms[2 * (i / k)] : 0);
}
__global__ void __launch_bounds__(NT) fw_mean_kernel(tcn_geom g, const double *part, int64_t k, double *ms) {
  GRID_LOOP(r, g.rows) tcn_fw_mean(&g, part + r * k, k, ms, r);
}
__global__ void __launch_bounds__(NT) fw_stats_kernel(tcn_geom g, const double *part, int64_t k, char *mean,
                                                      char *rstd, double *ms) {
  GRID_LOOP(r, g.rows) tcn_fw_stats(&g, part + r * k, k, mean, rstd, ms, r);
}
__global__ void __launch_bounds__(NT) fw_elem_kernel(tcn_geom g, const char *x, const char *w, const char *b,
                                                     const double *ms, char *out, int64_t n) {
  GRID_LOOP(i, n) tcn_fw_elem(&g, x, w, b, ms, out, i);
}
__global__ void __launch_bounds__(NT) bw_set_kernel(tcn_geom g, const char *go, const char *x, const char *mean,
                                                    const char *rstd, const char *w, double *s) {
  GRID_LOOP(r, g.rows) tcn_bw_set(&g, go, x, mean, rstd, w, s, r);
}
__global__ void __launch_bounds__(NT) bw_part_kernel(tcn_geom g, const char *go, const char *x, const char *mean,
                                                     const char *rstd, const char *w, int64_t k, double *part) {
  GRID_LOOP(i, g.rows * k) tcn_bw_part(&g, go, x, mean, rstd, w, i / k, i % k, k, part + 2 * i);
}
__global__ void __launch_bounds__(NT) bw_combine_kernel(tcn_geom g, const double *part, int64_t k, double *s) {
  GRID_LOOP(r, g.rows) tcn_bw_combine(part + 2 * r * k, k, s, r);
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
/* split parameter sums: partial j of parameter p at part[2*(j*pn + p)] (p
 * fastest: neighbouring threads read neighbouring elements in layer norm) */
__global__ void __launch_bounds__(NT) param_part_kernel(tcn_geom g, const char *go, const char *x, const char *mean,
                                                        const char *rstd, int64_t k, int64_t pn, double *part) {
  GRID_LOOP(i, k * pn) tcn_param_part(&g, go, x, mean, rstd, i % pn, i / pn, k, part + 2 * i);
}
/* A thread per output element (grad_weight's pn, then grad_bias's), in
 * blocks of PS_NT: a thread per parameter doing both sums, 8192 threads in
 * 32 blocks for a layer norm of 8192, left most of an H200's SMs idle while
 * each waited on its loads (55 us, ncu 2026-11-30). Each sum is
 * tcn_param_store's half (tcn_param_store1), in the same order: the same
 * bits. */
#define PS_NT 64
__global__ void __launch_bounds__(PS_NT) param_store_kernel(const double *part, int64_t k, char *dg, int dgdt,
                                                            char *db, int dbdt, int64_t pn) {
  for (int64_t i = blockIdx.x * (int64_t)PS_NT + threadIdx.x; i < 2 * pn; i += (int64_t)gridDim.x * PS_NT) {
    int bias = i >= pn;
    int64_t p = bias ? i - pn : i;
    tcn_param_store1(part + 2 * p + bias, k, pn, bias ? db : dg, bias ? dbdt : dgdt, p);
  }
}

/* A float64 scratch of n elements into *out (tmp slot). */
static tabi_status scratch(tc_ctx *c, DLDevice dev, int64_t n, tabi_tensor **out) {
  return tc_empty(c, dev, TABI_DTYPE_FLOAT64, 1, &n, out);
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
  if (st == TABI_OK) st = tc_same_device(c, OPN, 3, ts, names);
  if (st != TABI_OK) return st;
  tabi_tensor *tmp[5] = {NULL, NULL, NULL, NULL, NULL}; /* x, w, b, scratch, partials */
  tabi_tensor *o[3] = {NULL, NULL, NULL};
  int64_t sshape[2] = {args[3].u.i, d.G}, two = 2 * d.rows;
  tabi_dtype dt = tabi_tensor_dtype(x);
  for (int i = 0; i < 3 && st == TABI_OK; i++) st = operand(c, OPN, ts[i], &tmp[i]);
  if (st == TABI_OK) st = tc_empty(c, x->dl.device, dt, x->dl.ndim, x->dl.shape, &o[0]);
  if (st == TABI_OK) st = tc_empty(c, x->dl.device, (tabi_dtype)d.sdt, 2, sshape, &o[1]);
  if (st == TABI_OK) st = tc_empty(c, x->dl.device, (tabi_dtype)d.sdt, 2, sshape, &o[2]);
  if (st == TABI_OK) st = scratch(c, x->dl.device, two, &tmp[3]);
  int64_t k = tcn_split(d.cnt);
  if (st == TABI_OK && k > 1 && d.rows > 0) st = scratch(c, x->dl.device, d.rows * k, &tmp[4]);
  if (st == TABI_OK && d.rows > 0) {
    tcn_geom g;
    memset(&g, 0, sizeof g);
    tcn_init(&g, &d, dt, -1, d.sdt, d.sdt, tc_dt_or(tmp[1]), tc_dt_or(tmp[2]), args[7].u.f);
    double *ms = (double *)tabi_tensor_data(tmp[3]);
    const char *xp = tc_cdata(tmp[0]);
    if (k == 1) {
      TC_LAUNCH(tc_blocks(d.rows, NT), NT, fw_set_kernel)(g, xp, tc_mdata(o[1]), tc_mdata(o[2]), ms);
    } else {
      double *part = (double *)tabi_tensor_data(tmp[4]);
      TC_LAUNCH(tc_blocks(d.rows * k, NT), NT, fw_part_kernel)(g, xp, k, 0, ms, part);
      TC_LAUNCH(tc_blocks(d.rows, NT), NT, fw_mean_kernel)(g, part, k, ms);
      TC_LAUNCH(tc_blocks(d.rows * k, NT), NT, fw_part_kernel)(g, xp, k, 1, ms, part);
      TC_LAUNCH(tc_blocks(d.rows, NT), NT, fw_stats_kernel)(g, part, k, tc_mdata(o[1]), tc_mdata(o[2]), ms);
    }
    int64_t n = d.rows * d.cnt;
    if (n > 0)
      TC_LAUNCH(tc_blocks(n, NT), NT, fw_elem_kernel)(g, xp, tc_cdata(tmp[1]), tc_cdata(tmp[2]), ms, tc_mdata(o[0]), n);
    st = tc_launch_status(c, OPN);
  }
  tc_release_all(c, tmp, 5);
  if (st != TABI_OK) {
    tc_release_all(c, o, 3);
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
  if (st == TABI_OK) st = tc_same_device(c, OPN, 6, ts, names);
  if (st != TABI_OK) return st;
  tabi_dtype dt = tabi_tensor_dtype(x);
  tabi_tensor *tmp[8] = {NULL}; /* x, go, mean, rstd, w, s, set partials, parameter partials */
  tabi_tensor *o[3] = {NULL, NULL, NULL};
  for (int i = 0; i < 5 && st == TABI_OK; i++) st = operand(c, OPN, ts[i], &tmp[i]);
  int dgdt = w ? (int)tabi_tensor_dtype(w) : (int)dt, dbdt = b ? (int)tabi_tensor_dtype(b) : (int)dt;
  int64_t two = 2 * d.rows, n = d.rows * d.cnt;
  if (st == TABI_OK && mask[0]) st = tc_empty(c, x->dl.device, dt, x->dl.ndim, x->dl.shape, &o[0]);
  if (st == TABI_OK && mask[1]) st = tc_empty(c, x->dl.device, (tabi_dtype)dgdt, d.pnd, d.pshape, &o[1]);
  if (st == TABI_OK && mask[2]) st = tc_empty(c, x->dl.device, (tabi_dtype)dbdt, d.pnd, d.pshape, &o[2]);
  int want_dx = mask[0] && n > 0, want_p = (mask[1] || mask[2]) && d.pn > 0;
  tcn_geom g;
  memset(&g, 0, sizeof g);
  if (st == TABI_OK)
    tcn_init(&g, &d, dt, tc_dt_or(tmp[1]), tc_dt_or(tmp[2]), tc_dt_or(tmp[3]), tc_dt_or(tmp[4]), -1, 0);
  /* split counts: of a set's sum, of a parameter's (p = 0 has the most terms) */
  int64_t ks = tcn_split(d.cnt), kp = st == TABI_OK && want_p ? tcn_split(tcn_param_terms(&g, 0).n) : 1;
  /* layer norm of float32/float16/bfloat16: tc_nn.cu's float kernels take
     grad_input and the parameter partials */
  tc_ln_bw_args lb;
  memset(&lb, 0, sizeof lb);
  lb.rows = d.rows;
  lb.n = d.cnt;
  lb.xdt = (int)dt;
  lb.gdt = tc_dt_or(tmp[1]);
  lb.mdt = tc_dt_or(tmp[2]);
  lb.rdt = tc_dt_or(tmp[3]);
  lb.wdt = tc_dt_or(tmp[4]);
  /* before asking: the long rows' kernel asks where the rows start */
  lb.go = tc_cdata(tmp[1]);
  lb.x = tc_cdata(tmp[0]);
  lb.mean = tc_cdata(tmp[2]);
  lb.rstd = tc_cdata(tmp[3]);
  lb.w = tc_cdata(tmp[4]);
  lb.gi = want_dx ? tc_mdata(o[0]) : NULL;
  int fast = !group && d.pn == d.cnt && st == TABI_OK ? tc_ln_bw_takes(&lb) : 0;
  int slow_dx = want_dx && !(fast & TC_LNBW_DX);
  if (st == TABI_OK && slow_dx) st = scratch(c, x->dl.device, two, &tmp[5]);
  if (st == TABI_OK && slow_dx && ks > 1) st = scratch(c, x->dl.device, 2 * d.rows * ks, &tmp[6]);
  if (st == TABI_OK && want_p && kp > 1) st = scratch(c, x->dl.device, 2 * d.pn * kp, &tmp[7]);
  if (st == TABI_OK && (want_dx || want_p)) {
    const char *xp = lb.x, *gp = lb.go, *mp = lb.mean, *rp = lb.rstd, *wp = lb.w;
    if (fast) {
      if (!(fast & TC_LNBW_DX)) lb.gi = NULL;
      lb.part = want_p && kp > 1 && (fast & TC_LNBW_PARAM) ? (double *)tabi_tensor_data(tmp[7]) : NULL;
      lb.kp = kp;
      tc_ln_bw_rows(&lb);
    }
    if (slow_dx) {
      double *s = (double *)tabi_tensor_data(tmp[5]);
      if (ks == 1) {
        TC_LAUNCH(tc_blocks(d.rows, NT), NT, bw_set_kernel)(g, gp, xp, mp, rp, wp, s);
      } else {
        double *part = (double *)tabi_tensor_data(tmp[6]);
        TC_LAUNCH(tc_blocks(d.rows * ks, NT), NT, bw_part_kernel)(g, gp, xp, mp, rp, wp, ks, part);
        TC_LAUNCH(tc_blocks(d.rows, NT), NT, bw_combine_kernel)(g, part, ks, s);
      }
      TC_LAUNCH(tc_blocks(n, NT), NT, dx_kernel)(g, gp, xp, mp, rp, wp, s, tc_mdata(o[0]), n);
    }
    if (want_p && kp == 1) {
      TC_LAUNCH(tc_blocks(d.pn, NT), NT, param_kernel)(g, gp, xp, mp, rp, tc_mdata(o[1]), dgdt, tc_mdata(o[2]), dbdt, d.pn);
    } else if (want_p) {
      double *part = (double *)tabi_tensor_data(tmp[7]);
      if (!(fast & TC_LNBW_PARAM))
        TC_LAUNCH(tc_blocks(kp * d.pn, NT), NT, param_part_kernel)(g, gp, xp, mp, rp, kp, d.pn, part);
      TC_LAUNCH(tc_blocks(2 * d.pn, PS_NT), PS_NT, param_store_kernel)(part, kp, tc_mdata(o[1]), dgdt, tc_mdata(o[2]), dbdt, d.pn);
    }
    st = tc_launch_status(c, OPN);
  }
  tc_release_all(c, tmp, 8);
  if (st != TABI_OK) {
    tc_release_all(c, o, 3);
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
