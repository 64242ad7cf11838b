/* plugins/cuda/tc_idx.cu: scatter_reduce.two.
 *
 * The arguments are checked on the host with the reference's checks and
 * messages (tc_idx_check.c); the index values are copied to the host and
 * checked there in order (the reference's message for the first bad one);
 * then one device thread runs tc_idx.cuh's tci_sr_run, the reference's
 * algorithm in its order: deterministic, no atomics, so deterministic mode
 * has nothing to refuse. Slow for big index tensors (one thread): a
 * sort-by-target parallel version is the fast path to add. */
#include "tc_ew_dev.cuh"
#include "tc_idx.cuh"
#include "tc_idx_check.h"

__global__ void tci_sr_kernel(const tci_sr a) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  tci_sr_run(&a);
}

static int64_t ne_size(const tabi_tensor *t, int32_t d) { return t->dl.ndim ? t->dl.shape[d] : 1; }
static int64_t ne_stride(const tabi_tensor *t, int32_t d) { return t->dl.ndim ? t->dl.strides[d] : 0; }

/* idx's values as int64 in row-major element order, on the host (*out, to
 * release). */
static tabi_status host_index(tc_ctx *c, const char *OPN, const tabi_tensor *index, tabi_tensor **out) {
  tabi_tensor *tmp = NULL;
  DLDevice cpu = {kDLCPU, 0};
  *out = NULL;
  tabi_status st = tc_empty(c, index->dl.device, TABI_DTYPE_INT64, index->dl.ndim, index->dl.shape, &tmp);
  if (st == TABI_OK) st = tc_copy_convert(c, OPN, tmp, index);
  if (st == TABI_OK) st = tc_empty(c, cpu, TABI_DTYPE_INT64, index->dl.ndim, index->dl.shape, out);
  if (st == TABI_OK) st = c->h->tensor_copy(c->h->ctx, *out, tmp);
  c->h->tensor_release(c->h->ctx, tmp);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, *out);
    *out = NULL;
  }
  return st;
}

static tabi_status k_scatter_reduce(TC_ARGS) {
  TC_CTX;
  tabi_tensor *self = args[0].u.t, *index = args[2].u.t, *src = args[3].u.t;
  int32_t dim;
  int kind;
  tabi_status st = tc_sr_check(c->h, call, args, &dim, &kind);
  if (st) return st;
  if ((st = tc_check_cuda(c, self, OPN, "self")) || (st = tc_check_cuda(c, index, OPN, "index")) ||
      (st = tc_check_cuda(c, src, OPN, "src")) || (st = tc_use_device(c, self, OPN)))
    return st;
  int64_t nidx = tabi_tensor_numel(index);
  if (nidx != 0) {
    tabi_tensor *h64 = NULL;
    st = host_index(c, OPN, index, &h64);
    if (st == TABI_OK)
      st = tc_sr_check_bounds(c->h, call, (const int64_t *)tabi_tensor_data(h64), nidx, dim, ne_size(self, dim));
    c->h->tensor_release(c->h->ctx, h64);
    if (st != TABI_OK) return st;
  }
  tabi_dtype dt = tabi_tensor_dtype(self);
  tabi_tensor *out = NULL, *scr = NULL;
  if ((st = tc_empty(c, self->dl.device, dt, self->dl.ndim, self->dl.shape, &out))) return st;
  if (tabi_tensor_numel(out) > 0) st = tc_copy_convert(c, OPN, out, self);
  tci_sr a;
  memset(&a, 0, sizeof a);
  a.n_out = tabi_tensor_numel(out);
  a.n_idx = nidx;
  if (st == TABI_OK && nidx > 0) {
    int64_t nb = a.n_out * (int64_t)sizeof(tci_acc);
    st = tc_empty(c, self->dl.device, TABI_DTYPE_UINT8, 1, &nb, &scr);
    if (st == TABI_OK) {
      a.idx = (const char *)tabi_tensor_data(index);
      a.src = (const char *)tabi_tensor_data(src);
      a.out = (char *)tabi_tensor_data(out);
      a.acc = (tci_acc *)tabi_tensor_data(scr);
      a.nd = self->dl.ndim ? self->dl.ndim : 1;
      a.dim = dim;
      a.dt = dt;
      a.kind = kind;
      a.include_self = args[5].u.i != 0;
      for (int32_t d = 0; d < a.nd; d++) {
        a.ishape[d] = ne_size(index, d);
        a.ist[d] = ne_stride(index, d);
        a.sst[d] = ne_stride(src, d);
        a.ost[d] = ne_stride(out, d);
      }
      tci_sr_kernel<<<1, 1>>>(a);
      st = tc_launch_status(c, OPN);
    }
  }
  c->h->tensor_release(c->h->ctx, scr);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, out);
    return st;
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

TC_KTABLE tc_kernel tc_idx_kernels[] = {{"aten::scatter_reduce.two", k_scatter_reduce}, {NULL, NULL}};
