/* plugins/cuda/tc_bn.cu: _native_batch_norm_legit, _native_batch_norm_legit.no_stats
 * and _native_batch_norm_legit_no_training, natively (before this they ran
 * through the decomposition plugin's d_bn_*: many passes and temporaries).
 *
 * The argument checks are the reference's own function
 * (reference/ref_nn_bn_check.c, compiled into this plugin): same statuses and
 * messages by construction. The work is tc_bn.cuh's (see there for the order
 * of the sums): training runs one block of NT threads per channel for the
 * statistics (sum, then sum of squared deviations, each a fixed-order tree in
 * shared memory; thread 0 stores save_mean/save_invstd and updates the running
 * statistics in place), evaluation one thread per channel; then one grid-stride
 * pass writes the output. The input is made contiguous first (any float dtype,
 * kept: float16/bfloat16 are read as their values and computed in double);
 * weight, bias and the running statistics are 1-D and read (written) in place
 * through their stride, in their own dtype. Outputs are contiguous, as the
 * reference's. */
#include <string.h>

#include "tc.h" /* first: tc_port.h must precede tabi/half.h (its device memcpy, hipcc) */
#include "tc_bn.cuh"
#include "ref_nn_bn_check.h"

#define NT 256 /* threads per block; also the statistics' tree width (fixes its order) */
#define GRID_LOOP(i, n) \
  for (int64_t i = blockIdx.x * (int64_t)NT + threadIdx.x; i < (n); i += (int64_t)gridDim.x * NT)

/* One block per channel (channels beyond the grid: the block takes c + gridDim.x). */
__global__ void __launch_bounds__(NT) bn_stats_kernel(tcb_geom g, const char *x, char *sm, char *si, char *rm,
                                                      char *rv, double *ms) {
  TC_SHARED(double, part, [NT]);
  const int t = (int)threadIdx.x;
  for (int64_t c = blockIdx.x; c < g.C; c += gridDim.x) {
    tcb_sum_part(&g, x, c, t, NT, part);
    __syncthreads();
    for (int h = tcb_tree_top(NT); h > 0; h >>= 1) {
      tcb_tree_step(part, t, NT, h);
      __syncthreads();
    }
    const double mu = tcb_mean(&g, part);
    __syncthreads(); /* every thread has read part[0] before phase 3 overwrites it */
    tcb_dev_part(&g, x, c, mu, t, NT, part);
    __syncthreads();
    for (int h = tcb_tree_top(NT); h > 0; h >>= 1) {
      tcb_tree_step(part, t, NT, h);
      __syncthreads();
    }
    if (t == 0) tcb_chan_train(&g, c, mu, part[0], sm, si, rm, rv, ms);
    __syncthreads(); /* part is reused by the block's next channel */
  }
}
__global__ void __launch_bounds__(NT) bn_eval_kernel(tcb_geom g, const char *rm, const char *rv, double *ms) {
  GRID_LOOP(c, g.C) tcb_chan_eval(&g, c, rm, rv, ms);
}
__global__ void __launch_bounds__(NT) bn_elem_kernel(tcb_geom g, const char *x, const char *w, const char *b,
                                                     const double *ms, char *out, int64_t n) {
  GRID_LOOP(i, n) tcb_elem(&g, x, w, b, ms, out, i);
}

static int64_t st_or(const tabi_tensor *t) { return t ? t->dl.strides[0] : 0; }
static tabi_status batch_norm(TC_ARGS, int form) {
  TC_CTX;
  ref_bn_args a;
  ref_bn_dims d;
  ref_nn_bn_args(args, form, &a);
  tabi_status st = ref_nn_bn_check(c->h, call, &a, &d);
  const tabi_tensor *ts[5] = {a.x, a.w, a.b, a.rm, a.rv};
  const char *names[5] = {"input", "weight", "bias", "running_mean", "running_var"};
  if (st == TABI_OK) st = tc_same_device(c, OPN, 5, ts, names);
  if (st != TABI_OK) return st;
  tabi_tensor *tmp[2] = {NULL, NULL}; /* contiguous x, the double mean/invstd scratch */
  tabi_tensor *o[3] = {NULL, NULL, NULL};
  tabi_tensor *x = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  int64_t cshape = a.training ? d.C : 0, two = 2 * d.C, n = d.N * d.C * d.S;
  st = tc_contiguous(c, OPN, x, &tmp[0]);
  if (st == TABI_OK) st = tc_empty(c, x->dl.device, dt, x->dl.ndim, x->dl.shape, &o[0]);
  if (st == TABI_OK) st = tc_empty(c, x->dl.device, (tabi_dtype)d.sdt, 1, &cshape, &o[1]);
  if (st == TABI_OK) st = tc_empty(c, x->dl.device, (tabi_dtype)d.sdt, 1, &cshape, &o[2]);
  if (st == TABI_OK && d.C > 0) st = tc_empty(c, x->dl.device, TABI_DTYPE_FLOAT64, 1, &two, &tmp[1]);
  if (st == TABI_OK && d.C > 0) {
    /* C > 0: the statistics even when N*S = 0 (mean 0/0 = NaN, the running
     * statistics updated with it, as the reference) */
    tcb_geom g;
    memset(&g, 0, sizeof g);
    tcb_init(&g, d.N, d.C, d.S, dt, d.sdt, tc_dt_or(a.w), st_or(a.w), tc_dt_or(a.b), st_or(a.b), tc_dt_or(a.rm),
             st_or(a.rm), tc_dt_or(a.rv), st_or(a.rv), a.training, a.momentum, a.eps);
    double *ms = (double *)tabi_tensor_data(tmp[1]);
    unsigned cb = (unsigned)(d.C < (1 << 20) ? d.C : (1 << 20));
    if (a.training)
      TC_LAUNCH(cb, NT, bn_stats_kernel)(g, tc_cdata(tmp[0]), tc_mdata(o[1]), tc_mdata(o[2]), tc_mdata(a.rm), tc_mdata(a.rv), ms);
    else
      TC_LAUNCH(tc_blocks(d.C, NT), NT, bn_eval_kernel)(g, tc_cdata(a.rm), tc_cdata(a.rv), ms);
    if (n > 0) TC_LAUNCH(tc_blocks(n, NT), NT, bn_elem_kernel)(g, tc_cdata(tmp[0]), tc_cdata(a.w), tc_cdata(a.b), ms, tc_mdata(o[0]), n);
    st = tc_launch_status(c, OPN);
  }
  tc_release_all(c, tmp, 2);
  if (st != TABI_OK) {
    tc_release_all(c, o, 3);
    return st;
  }
  for (int i = 0; i < 3; i++) outs[i] = tabi_tensor_value(o[i]);
  return TABI_OK;
}
static tabi_status k_bn_legit(TC_ARGS) { return batch_norm(ctx, call, args, outs, REF_BN_LEGIT); }
static tabi_status k_bn_no_stats(TC_ARGS) { return batch_norm(ctx, call, args, outs, REF_BN_NO_STATS); }
static tabi_status k_bn_no_training(TC_ARGS) { return batch_norm(ctx, call, args, outs, REF_BN_NO_TRAINING); }

TC_KTABLE tc_kernel tc_bn_kernels[] = {
    {"aten::_native_batch_norm_legit", k_bn_legit},
    {"aten::_native_batch_norm_legit.no_stats", k_bn_no_stats},
    {"aten::_native_batch_norm_legit_no_training", k_bn_no_training},
    {NULL, NULL},
};
