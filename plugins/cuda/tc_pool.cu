/* plugins/cuda/tc_pool.cu: max_pool{2,3}d_with_indices, max_pool2d_with_indices_backward,
 * avg_pool{1,2,3}d, avg_pool2d_backward, adaptive_avg_pool1d,
 * _adaptive_avg_pool{2,3}d and _adaptive_avg_pool2d_backward.
 *
 * The argument checks are the reference's own (reference/ref_pool_check.c,
 * linked in); the kernels are
 * grid-stride loops with one thread per element calling the element functions
 * of tc_pool.cuh, which tests/cuda/test_cuda_pool_host runs on the host against
 * the reference plugin. Outputs are contiguous (as the reference's); inputs
 * are read through their strides. The backwards gather (one thread per
 * grad_input element, contributions in a fixed order, no atomics), so they are
 * deterministic and deterministic mode has nothing to refuse here.
 *
 * max_pool2d_with_indices_backward checks the index values on the device
 * first (one pass, a per-block summary read back by the host): the first
 * index outside its plane is the reference's error, and whether every index
 * lies in its own output's window picks the window gather (indices from the
 * forward: a few outputs per element) or the whole-plane scan (any other
 * indices, which the reference also takes). */
#include <string.h>

#include "tc.h"
#include "tc_pool.cuh"
#include "ref_pool_check.h"

#define NT 256
#define CHECK_BLOCKS 1024

#define GRID_LOOP(i, n) \
  for (int64_t i = blockIdx.x * (int64_t)NT + threadIdx.x; i < (n); i += (int64_t)gridDim.x * NT)

__global__ void __launch_bounds__(NT) max_kernel(tcq_geom g, const char *x, char *out, int64_t *idx, int64_t n) {
  GRID_LOOP(i, n) tcq_max_elem(&g, x, out, idx, i);
}
__global__ void __launch_bounds__(NT) avg_kernel(tcq_geom g, const char *x, char *out, int64_t n) {
  GRID_LOOP(i, n) tcq_avg_elem(&g, x, out, i);
}
__global__ void __launch_bounds__(NT) adapt_kernel(tcq_geom g, const char *x, char *out, int64_t n) {
  GRID_LOOP(i, n) tcq_adapt_elem(&g, x, out, i);
}
__global__ void __launch_bounds__(NT) mpb_kernel(tcq_geom g, const char *go, const char *ind, char *gi,
                                                 int64_t n, int full) {
  GRID_LOOP(i, n) tcq_mpb_elem(&g, go, ind, gi, i, full);
}
__global__ void __launch_bounds__(NT) avgb_kernel(tcq_geom g, const char *go, char *gi, int64_t n) {
  GRID_LOOP(i, n) tcq_avgb_elem(&g, go, gi, i);
}
__global__ void __launch_bounds__(NT) adaptb_kernel(tcq_geom g, const char *go, char *gi, int64_t n) {
  GRID_LOOP(i, n) tcq_adaptb_elem(&g, go, gi, i);
}

/* Per block: the first position whose index is outside the plane (INT64_MAX:
 * none) with its value, and whether some index is outside its window. A fixed
 * tree in shared memory: no atomics. */
__global__ void __launch_bounds__(NT) mpb_check_kernel(tcq_geom g, const char *ind, int64_t n, int64_t *res) {
  TC_SHARED(int64_t, spos, [NT]); TC_SHARED(int64_t, sval, [NT]);
  TC_SHARED(int, sflag, [NT]);
  int64_t pos = INT64_MAX, val = 0;
  int flag = 0;
  GRID_LOOP(i, n) {
    int64_t v;
    int s = tcq_mpb_status(&g, ind, i, &v);
    if (s == 2 && i < pos) {
      pos = i;
      val = v;
    }
    flag |= s != 0;
  }
  spos[threadIdx.x] = pos;
  sval[threadIdx.x] = val;
  sflag[threadIdx.x] = flag;
  __syncthreads();
  for (int w = NT / 2; w > 0; w >>= 1) {
    if ((int)threadIdx.x < w) {
      int o = threadIdx.x + w;
      if (spos[o] < spos[threadIdx.x]) {
        spos[threadIdx.x] = spos[o];
        sval[threadIdx.x] = sval[o];
      }
      sflag[threadIdx.x] |= sflag[o];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    res[3 * blockIdx.x] = spos[0];
    res[3 * blockIdx.x + 1] = sval[0];
    res[3 * blockIdx.x + 2] = sflag[0];
  }
}

static tabi_status finish(tc_ctx *c, const char *op, int launched, tabi_tensor *out, tabi_tensor *out2,
                          tabi_value *outs) {
  tabi_status st = launched ? tc_launch_status(c, op) : TABI_OK;
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, out);
    if (out2) c->h->tensor_release(c->h->ctx, out2);
    return st;
  }
  outs[0] = tabi_tensor_value(out);
  if (out2) outs[1] = tabi_tensor_value(out2);
  return TABI_OK;
}

/* The pooled output's shape: self's leading dims, then m->out. */
static int32_t out_shape(const tabi_tensor *x, const ref_pool_dims *m, int64_t *shape) {
  for (int32_t i = 0; i < m->nlead; i++) shape[i] = x->dl.shape[i];
  for (int32_t i = 0; i < m->ns; i++) shape[m->nlead + i] = m->out[i];
  return m->nlead + m->ns;
}

/* --- forward ---------------------------------------------------------------------- */

static tabi_status max_pool(TC_ARGS, int32_t ns) {
  TC_CTX;
  tabi_tensor *x = args[0].u.t;
  ref_pool_dims m;
  tabi_status st = ref_pool_max_check(c->h, call, args, ns, &m);
  const char *names[1] = {"self"};
  if (st == TABI_OK) st = tc_same_device(c, OPN, 1, &x, names);
  if (st != TABI_OK) return st;
  tcq_geom g;
  memset(&g, 0, sizeof g);
  tcq_init(&g, &m, x->dl.shape, x->dl.strides, NULL, NULL, tabi_tensor_dtype(x));
  int64_t shape[5];
  int32_t nd = out_shape(x, &m, shape);
  tabi_tensor *out = NULL, *idx = NULL;
  if ((st = tc_empty(c, x->dl.device, tabi_tensor_dtype(x), nd, shape, &out)) != TABI_OK) return st;
  if ((st = tc_empty(c, x->dl.device, TABI_DTYPE_INT64, nd, shape, &idx)) != TABI_OK) {
    c->h->tensor_release(c->h->ctx, out);
    return st;
  }
  int64_t n = tabi_tensor_numel(out);
  if (n > 0)
    TC_LAUNCH(tc_blocks(n, NT), NT, max_kernel)(g, (const char *)tabi_tensor_data(x), (char *)tabi_tensor_data(out),
                                      (int64_t *)tabi_tensor_data(idx), n);
  return finish(c, OPN, n > 0, out, idx, outs);
}
static tabi_status k_max_pool2d(TC_ARGS) { return max_pool(ctx, call, args, outs, 2); }
static tabi_status k_max_pool3d(TC_ARGS) { return max_pool(ctx, call, args, outs, 3); }

/* avg (kind 0) or adaptive (kind 1) */
static tabi_status avg_like(TC_ARGS, int32_t ns, int adaptive) {
  TC_CTX;
  tabi_tensor *x = args[0].u.t;
  ref_pool_dims m;
  tabi_status st =
      adaptive ? ref_pool_adaptive_check(c->h, call, args, ns, &m) : ref_pool_avg_check(c->h, call, args, ns, &m);
  const char *names[1] = {"self"};
  if (st == TABI_OK) st = tc_same_device(c, OPN, 1, &x, names);
  if (st != TABI_OK) return st;
  tcq_geom g;
  memset(&g, 0, sizeof g);
  tcq_init(&g, &m, x->dl.shape, x->dl.strides, NULL, NULL, tabi_tensor_dtype(x));
  int64_t shape[5];
  int32_t nd = out_shape(x, &m, shape);
  tabi_tensor *out = NULL;
  if ((st = tc_empty(c, x->dl.device, tabi_tensor_dtype(x), nd, shape, &out)) != TABI_OK) return st;
  int64_t n = tabi_tensor_numel(out);
  const char *xp = (const char *)tabi_tensor_data(x);
  char *op = (char *)tabi_tensor_data(out);
  if (n > 0) {
    if (adaptive) TC_LAUNCH(tc_blocks(n, NT), NT, adapt_kernel)(g, xp, op, n);
    else TC_LAUNCH(tc_blocks(n, NT), NT, avg_kernel)(g, xp, op, n);
  }
  return finish(c, OPN, n > 0, out, NULL, outs);
}
static tabi_status k_avg_pool1d(TC_ARGS) { return avg_like(ctx, call, args, outs, 1, 0); }
static tabi_status k_avg_pool2d(TC_ARGS) { return avg_like(ctx, call, args, outs, 2, 0); }
static tabi_status k_avg_pool3d(TC_ARGS) { return avg_like(ctx, call, args, outs, 3, 0); }
static tabi_status k_adaptive_avg_pool1d(TC_ARGS) { return avg_like(ctx, call, args, outs, 1, 1); }
static tabi_status k_adaptive_avg_pool2d(TC_ARGS) { return avg_like(ctx, call, args, outs, 2, 1); }
static tabi_status k_adaptive_avg_pool3d(TC_ARGS) { return avg_like(ctx, call, args, outs, 3, 1); }

/* --- backward ------------------------------------------------------------------------ */

/* The index check of max backward: *full set when some index is outside its
 * window; the reference's error for the first index outside the plane. */
static tabi_status mpb_check(tc_ctx *c, const tabi_call *call, const char *op, const tcq_geom *g,
                             const tabi_tensor *ind, int64_t n, int *full) {
  unsigned nb = tc_blocks(n, NT);
  if (nb > CHECK_BLOCKS) nb = CHECK_BLOCKS;
  int64_t rn = 3 * (int64_t)nb;
  tabi_tensor *dres = NULL, *hres = NULL;
  DLDevice cpu = {kDLCPU, 0};
  tabi_status st = tc_empty(c, ind->dl.device, TABI_DTYPE_INT64, 1, &rn, &dres);
  if (st == TABI_OK) {
    TC_LAUNCH(nb, NT, mpb_check_kernel)(*g, (const char *)tabi_tensor_data(ind), n, (int64_t *)tabi_tensor_data(dres));
    st = tc_launch_status(c, op);
  }
  if (st == TABI_OK) st = tc_empty(c, cpu, TABI_DTYPE_INT64, 1, &rn, &hres);
  if (st == TABI_OK) st = c->h->tensor_copy(c->h->ctx, hres, dres);
  if (st == TABI_OK) {
    const int64_t *r = (const int64_t *)tabi_tensor_data(hres);
    int64_t pos = INT64_MAX, val = 0;
    *full = 0;
    for (unsigned b = 0; b < nb; b++) {
      if (r[3 * b] < pos) {
        pos = r[3 * b];
        val = r[3 * b + 1];
      }
      *full |= r[3 * b + 2] != 0;
    }
    if (pos != INT64_MAX)
      st = ref_pool_max_bwd_index_error(c->h, call, val, g->in[0] * g->in[1] * g->in[2]);
  }
  if (dres) c->h->tensor_release(c->h->ctx, dres);
  if (hres) c->h->tensor_release(c->h->ctx, hres);
  return st;
}

/* kind 0 max, 1 avg, 2 adaptive; grad_input has self's shape, contiguous. */
static tabi_status backward(TC_ARGS, int kind) {
  TC_CTX;
  tabi_tensor *go = args[0].u.t, *x = args[1].u.t, *ind = kind == 0 ? args[7].u.t : NULL;
  ref_pool_dims m;
  tabi_status st = kind == 0   ? ref_pool_max_bwd_check(c->h, call, args, &m)
                   : kind == 1 ? ref_pool_avg_bwd_check(c->h, call, args, &m)
                               : ref_pool_adaptive_bwd_check(c->h, call, args, &m);
  tabi_tensor *ts[3] = {x, go, ind};
  const char *names[3] = {"self", "grad_output", "indices"};
  if (st == TABI_OK) st = tc_same_device(c, OPN, kind == 0 ? 3 : 2, ts, names);
  if (st != TABI_OK) return st;
  tcq_geom g;
  memset(&g, 0, sizeof g);
  tcq_init(&g, &m, x->dl.shape, x->dl.strides, go->dl.strides, ind ? ind->dl.strides : NULL,
           tabi_tensor_dtype(x));
  int full = 0;
  int64_t nout = tabi_tensor_numel(go);
  if (kind == 0 && nout > 0 && (st = mpb_check(c, call, OPN, &g, ind, nout, &full)) != TABI_OK) return st;
  tabi_tensor *gi = NULL;
  if ((st = tc_empty(c, x->dl.device, tabi_tensor_dtype(x), x->dl.ndim, x->dl.shape, &gi)) != TABI_OK)
    return st;
  int64_t n = tabi_tensor_numel(gi);
  const char *gp = (const char *)tabi_tensor_data(go);
  char *op = (char *)tabi_tensor_data(gi);
  if (n > 0) {
    if (kind == 0) TC_LAUNCH(tc_blocks(n, NT), NT, mpb_kernel)(g, gp, (const char *)tabi_tensor_data(ind), op, n, full);
    else if (kind == 1) TC_LAUNCH(tc_blocks(n, NT), NT, avgb_kernel)(g, gp, op, n);
    else TC_LAUNCH(tc_blocks(n, NT), NT, adaptb_kernel)(g, gp, op, n);
  }
  return finish(c, OPN, n > 0, gi, NULL, outs);
}
static tabi_status k_max_pool2d_backward(TC_ARGS) { return backward(ctx, call, args, outs, 0); }
static tabi_status k_avg_pool2d_backward(TC_ARGS) { return backward(ctx, call, args, outs, 1); }
static tabi_status k_adaptive_avg_pool2d_backward(TC_ARGS) { return backward(ctx, call, args, outs, 2); }

TC_KTABLE tc_kernel tc_pool_kernels[] = {
    {"aten::max_pool2d_with_indices", k_max_pool2d},
    {"aten::max_pool3d_with_indices", k_max_pool3d},
    {"aten::max_pool2d_with_indices_backward", k_max_pool2d_backward},
    {"aten::avg_pool1d", k_avg_pool1d},
    {"aten::avg_pool2d", k_avg_pool2d},
    {"aten::avg_pool3d", k_avg_pool3d},
    {"aten::avg_pool2d_backward", k_avg_pool2d_backward},
    {"aten::adaptive_avg_pool1d", k_adaptive_avg_pool1d},
    {"aten::_adaptive_avg_pool2d", k_adaptive_avg_pool2d},
    {"aten::_adaptive_avg_pool3d", k_adaptive_avg_pool3d},
    {"aten::_adaptive_avg_pool2d_backward", k_adaptive_avg_pool2d_backward},
    {NULL, NULL},
};
