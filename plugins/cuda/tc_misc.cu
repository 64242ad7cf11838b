/* plugins/cuda/tc_misc.cu: grid_sampler_2d, _cdist_forward, _pdist_forward,
 * embedding_dense_backward and _embedding_bag.
 *
 * The argument checks are the reference's own (reference/ref_misc_check.c,
 * linked in); the kernels are grid-stride loops with one thread per output element calling the element
 * functions of tc_misc.cuh, which tests/cuda/test_cuda_misc_host runs on the
 * host against the reference plugin. Outputs are contiguous (as the
 * reference's); inputs are read through their strides.
 * embedding_dense_backward copies the indices to the host (their values are
 * checked there, in order, so the error names the first bad one, as the
 * reference's), buckets the positions per weight row (a stable counting sort)
 * and uploads the buckets; each thread then sums one (row, column) over its
 * row's positions in order: no atomics, deterministic, the reference's sum. */
#include <stdlib.h>
#include <string.h>

#include "tc.h"
#include "tc_misc.cuh"
#include "ref_misc_check.h"

#define NT 256

__global__ void __launch_bounds__(NT) grid_kernel(tcm_grid_geom g, const char *in, const char *grid, char *out,
                                                  int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)NT + threadIdx.x; i < n; i += (int64_t)gridDim.x * NT)
    tcm_grid_elem(&g, in, grid, out, i);
}
__global__ void __launch_bounds__(NT) cdist_kernel(tcm_cdist_geom g, const char *x1, const char *x2, char *out,
                                                   int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)NT + threadIdx.x; i < n; i += (int64_t)gridDim.x * NT)
    tcm_cdist_elem(&g, x1, x2, out, i);
}
__global__ void __launch_bounds__(NT) pdist_kernel(tcm_pdist_geom g, const char *x, char *out, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)NT + threadIdx.x; i < n; i += (int64_t)gridDim.x * NT)
    tcm_pdist_elem(&g, x, out, i);
}
__global__ void __launch_bounds__(NT) embbw_kernel(tcm_embbw_geom g, const char *go, const int64_t *starts,
                                                   const int64_t *pos, char *out, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)NT + threadIdx.x; i < n; i += (int64_t)gridDim.x * NT)
    tcm_embbw_elem(&g, go, starts, pos, out, i);
}

__global__ void __launch_bounds__(NT) ebag_kernel(tcm_ebag_geom g, const char *w, const int64_t *iv,
                                                  const char *psw, const int64_t *starts, char *out, char *mxi,
                                                  int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)NT + threadIdx.x; i < n; i += (int64_t)gridDim.x * NT)
    tcm_ebag_elem(&g, w, iv, psw, starts, out, mxi, i);
}

static tabi_status finish(tc_ctx *c, const char *op, int launched, tabi_tensor *out, tabi_value *outs) {
  tabi_status st = launched ? tc_launch_status(c, op) : TABI_OK;
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, out);
    return st;
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

static tabi_status k_grid_sampler_2d(TC_ARGS) {
  TC_CTX;
  tabi_tensor *x = args[0].u.t, *grid = args[1].u.t;
  tabi_status st = ref_grid_check(c->h, call, args);
  if (st != TABI_OK) return st;
  if ((st = tc_check_cuda(c, x, OPN, "input")) || (st = tc_check_cuda(c, grid, OPN, "grid")) ||
      (st = tc_use_device(c, x, OPN)))
    return st;
  tcm_grid_geom g;
  memset(&g, 0, sizeof g);
  tcm_grid_init(&g, x->dl.shape, x->dl.strides, grid->dl.shape, grid->dl.strides, tabi_tensor_dtype(x),
                (int)args[2].u.i, (int)args[3].u.i, args[4].u.i != 0);
  int64_t shape[4] = {g.n, g.c, g.ho, g.wo};
  tabi_tensor *out = NULL;
  if ((st = tc_empty(c, x->dl.device, tabi_tensor_dtype(x), 4, shape, &out))) return st;
  int64_t n = tabi_tensor_numel(out);
  if (n > 0)
    TC_LAUNCH(tc_blocks(n, NT), NT, grid_kernel)(g, (const char *)tabi_tensor_data(x), (const char *)tabi_tensor_data(grid),
                                       (char *)tabi_tensor_data(out), n);
  return finish(c, OPN, n > 0, out, outs);
}

static tabi_status k_cdist(TC_ARGS) {
  TC_CTX;
  tabi_tensor *x1 = args[0].u.t, *x2 = args[1].u.t;
  int32_t bnd;
  int64_t bshape[TCM_MAX_DIMS], oshape[TCM_MAX_DIMS];
  tabi_status st = ref_cdist_check(c->h, call, args, &bnd, bshape, oshape);
  if (st != TABI_OK) return st;
  if ((st = tc_check_cuda(c, x1, OPN, "x1")) || (st = tc_check_cuda(c, x2, OPN, "x2")) ||
      (st = tc_use_device(c, x1, OPN)))
    return st;
  tcm_cdist_geom g;
  memset(&g, 0, sizeof g);
  tcm_cdist_init(&g, x1->dl.ndim, x1->dl.shape, x1->dl.strides, x2->dl.ndim, x2->dl.shape, x2->dl.strides, bnd,
                 bshape, tabi_tensor_dtype(x1), args[2].u.f);
  tabi_tensor *out = NULL;
  if ((st = tc_empty(c, x1->dl.device, tabi_tensor_dtype(x1), bnd + 2, oshape, &out))) return st;
  int64_t n = tabi_tensor_numel(out);
  if (n > 0)
    TC_LAUNCH(tc_blocks(n, NT), NT, cdist_kernel)(g, (const char *)tabi_tensor_data(x1), (const char *)tabi_tensor_data(x2),
                                        (char *)tabi_tensor_data(out), n);
  return finish(c, OPN, n > 0, out, outs);
}

static tabi_status k_pdist(TC_ARGS) {
  TC_CTX;
  tabi_tensor *x = args[0].u.t;
  int64_t cnt;
  tabi_status st = ref_pdist_check(c->h, call, args, &cnt);
  if (st != TABI_OK) return st;
  if ((st = tc_check_cuda(c, x, OPN, "self")) || (st = tc_use_device(c, x, OPN))) return st;
  tcm_pdist_geom g;
  tcm_pdist_init(&g, x->dl.shape, x->dl.strides, tabi_tensor_dtype(x), args[1].u.f);
  tabi_tensor *out = NULL;
  if ((st = tc_empty(c, x->dl.device, tabi_tensor_dtype(x), 1, &cnt, &out))) return st;
  if (cnt > 0)
    TC_LAUNCH(tc_blocks(cnt, NT), NT, pdist_kernel)(g, (const char *)tabi_tensor_data(x), (char *)tabi_tensor_data(out), cnt);
  return finish(c, OPN, cnt > 0, out, outs);
}

/* The index values as host int64, in indices' element order. */
static tabi_status host_ints(tc_ctx *c, const char *op, tabi_tensor *idx, int64_t *out, int64_t n) {
  if (n == 0) return TABI_OK;
  tabi_tensor *tmp = NULL, *h64 = NULL;
  DLDevice cpu = {kDLCPU, 0};
  tabi_status st = tc_empty(c, idx->dl.device, TABI_DTYPE_INT64, idx->dl.ndim, idx->dl.shape, &tmp);
  if (st == TABI_OK) st = tc_copy_convert(c, op, tmp, idx);
  if (st == TABI_OK) st = tc_empty(c, cpu, TABI_DTYPE_INT64, idx->dl.ndim, idx->dl.shape, &h64);
  if (st == TABI_OK) st = c->h->tensor_copy(c->h->ctx, h64, tmp);
  if (st == TABI_OK) memcpy(out, tabi_tensor_data(h64), sizeof(int64_t) * (size_t)n);
  if (tmp) c->h->tensor_release(c->h->ctx, tmp);
  if (h64) c->h->tensor_release(c->h->ctx, h64);
  return st;
}

/* A device vector of integer dtype dt (int64 unless given) holding the host
 * values v[0..n) (stores wrap, as the reference's). */
static tabi_status upload(tc_ctx *c, const char *op, DLDevice dev, const int64_t *v, int64_t n, tabi_tensor **out,
                          tabi_dtype dt = TABI_DTYPE_INT64) {
  tabi_tensor *h = NULL;
  DLDevice cpu = {kDLCPU, 0};
  *out = NULL;
  tabi_status st = tc_empty(c, cpu, dt, 1, &n, &h);
  if (st == TABI_OK) {
    for (int64_t i = 0; i < n; i++) tcn_st((char *)tabi_tensor_data(h) + i * tcn_esz(dt), dt, v[i]);
    st = tc_empty(c, dev, dt, 1, &n, out);
  }
  if (st == TABI_OK && n > 0) st = c->h->tensor_copy(c->h->ctx, *out, h);
  if (h) c->h->tensor_release(c->h->ctx, h);
  if (st != TABI_OK && *out) {
    c->h->tensor_release(c->h->ctx, *out);
    *out = NULL;
  }
  (void)op;
  return st;
}

static tabi_status k_embedding_dense_backward(TC_ARGS) {
  TC_CTX;
  tabi_tensor *go = args[0].u.t, *ind = args[1].u.t;
  int64_t V = args[2].u.i, D;
  tabi_status st = ref_embbw_check(c->h, call, args, &D);
  if (st != TABI_OK) return st;
  if ((st = tc_check_cuda(c, go, OPN, "grad_output")) || (st = tc_check_cuda(c, ind, OPN, "indices")) ||
      (st = tc_use_device(c, go, OPN)))
    return st;
  int64_t ni = tabi_tensor_numel(ind);
  int64_t *iv = (int64_t *)malloc(sizeof(int64_t) * (size_t)(ni > 0 ? ni : 1));
  /* num_weights is the caller's: (V + 1) * 8 bytes could wrap size_t (V = 2^62) */
  int64_t *starts = (uint64_t)V < SIZE_MAX / sizeof(int64_t) ? (int64_t *)malloc(sizeof(int64_t) * (size_t)(V + 1))
                                                             : NULL;
  int64_t *pos = (int64_t *)malloc(sizeof(int64_t) * (size_t)(ni > 0 ? ni : 1));
  tabi_tensor *dstarts = NULL, *dpos = NULL, *out = NULL;
  if (!iv || !starts || !pos) st = TC_ERR(c, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", OPN);
  if (st == TABI_OK) st = host_ints(c, OPN, ind, iv, ni);
  if (st == TABI_OK) st = ref_embbw_check_indices(c->h, call, iv, ni, V);
  if (st == TABI_OK) {
    tc_embbw_buckets(iv, ni, V, starts, pos);
    st = upload(c, OPN, go->dl.device, starts, V + 1, &dstarts);
  }
  if (st == TABI_OK) st = upload(c, OPN, go->dl.device, pos, ni, &dpos);
  int64_t shape[2] = {V, D};
  if (st == TABI_OK) st = tc_empty(c, go->dl.device, tabi_tensor_dtype(go), 2, shape, &out);
  int64_t n = V * D;
  if (st == TABI_OK && n > 0) {
    tcm_embbw_geom g;
    memset(&g, 0, sizeof g);
    tcm_embbw_init(&g, go->dl.ndim, go->dl.shape, go->dl.strides, tabi_tensor_dtype(go), V, D, args[3].u.i,
                   args[4].u.i != 0);
    TC_LAUNCH(tc_blocks(n, NT), NT, embbw_kernel)(g, (const char *)tabi_tensor_data(go),
                                        (const int64_t *)tabi_tensor_data(dstarts),
                                        ni > 0 ? (const int64_t *)tabi_tensor_data(dpos) : NULL,
                                        (char *)tabi_tensor_data(out), n);
  }
  free(iv);
  free(starts);
  free(pos);
  if (st == TABI_OK) st = finish(c, OPN, n > 0, out, outs);
  else if (out) c->h->tensor_release(c->h->ctx, out);
  /* the kernel is queued on stream 0 before these are released: the caching
   * allocator reuses their storage only for work ordered after it */
  if (dstarts) c->h->tensor_release(c->h->ctx, dstarts);
  if (dpos) c->h->tensor_release(c->h->ctx, dpos);
  return st;
}

/* _embedding_bag: the offsets and indices come to the host (checked there in
 * the reference's order), which lays out the bags (contiguous position
 * ranges), offset2bag, the counts, bag_size and (sum/mean) max_indices; the
 * kernel computes output and (max) max_indices, one thread per (bag, column). */
static tabi_status k_embedding_bag(TC_ARGS) {
  TC_CTX;
  tabi_tensor *w = args[0].u.t, *ind = args[1].u.t, *off = args[2].u.t;
  tabi_tensor *psw = args[6].tag == TABI_TAG_TENSOR ? args[6].u.t : NULL;
  int64_t B, mode = args[4].u.i, pad = args[8].u.i;
  int o2b_empty;
  tabi_status st = ref_ebag_check(c->h, call, args, &B, &o2b_empty);
  if (st != TABI_OK) return st;
  if ((st = tc_check_cuda(c, w, OPN, "weight")) || (st = tc_check_cuda(c, ind, OPN, "indices")) ||
      (st = tc_check_cuda(c, off, OPN, "offsets")) ||
      (psw && (st = tc_check_cuda(c, psw, OPN, "per_sample_weights"))) || (st = tc_use_device(c, w, OPN)))
    return st;
  tabi_dtype dt = tabi_tensor_dtype(w), it = tabi_tensor_dtype(ind);
  int64_t n = ind->dl.shape[0], noff = off->dl.shape[0], V = w->dl.shape[0], D = w->dl.shape[1];
  size_t nb = (size_t)(n > 0 ? n : 1), bb = (size_t)(B > 0 ? B : 1);
  int64_t *iv = (int64_t *)malloc(sizeof(int64_t) * nb), *o2b = (int64_t *)malloc(sizeof(int64_t) * nb);
  int64_t *offv = (int64_t *)malloc(sizeof(int64_t) * (size_t)(noff > 0 ? noff : 1));
  int64_t *starts = (int64_t *)malloc(sizeof(int64_t) * (bb + 1)), *cnt = (int64_t *)malloc(sizeof(int64_t) * bb);
  int64_t *zero = (int64_t *)calloc(bb, sizeof(int64_t));
  tabi_tensor *o[4] = {NULL, NULL, NULL, NULL}, *div = NULL, *dstarts = NULL;
  if (!iv || !o2b || !offv || !starts || !cnt || !zero) st = TC_ERR(c, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", OPN);
  if (st == TABI_OK) st = host_ints(c, OPN, off, offv, noff);
  if (st == TABI_OK) st = host_ints(c, OPN, ind, iv, n);
  if (st == TABI_OK) st = ref_ebag_check_values(c->h, call, offv, noff, iv, n, V);
  if (st == TABI_OK) {
    tc_ebag_layout(offv, B, iv, n, pad, starts, o2b, cnt);
    int64_t oshape[2] = {B, D};
    DLDevice dev = w->dl.device;
    st = tc_empty(c, dev, dt, 2, oshape, &o[0]);
    if (st == TABI_OK) st = upload(c, OPN, dev, o2b, o2b_empty ? 0 : n, &o[1], it);
    if (st == TABI_OK) st = upload(c, OPN, dev, mode == 0 ? zero : cnt, B, &o[2], it);
    if (st == TABI_OK) {
      if (mode == 2) st = tc_empty(c, dev, it, 2, oshape, &o[3]);
      else st = upload(c, OPN, dev, mode == 1 ? cnt : zero, B, &o[3], it);
    }
    if (st == TABI_OK) st = upload(c, OPN, dev, iv, n, &div);
    if (st == TABI_OK) st = upload(c, OPN, dev, starts, B + 1, &dstarts);
  }
  int64_t total = B * D;
  if (st == TABI_OK && total > 0) {
    tcm_ebag_geom g;
    memset(&g, 0, sizeof g);
    tcm_ebag_init(&g, w->dl.shape, w->dl.strides, dt, it, (int)mode, psw != NULL, psw ? psw->dl.strides[0] : 0, pad);
    TC_LAUNCH(tc_blocks(total, NT), NT, ebag_kernel)(g, (const char *)tabi_tensor_data(w),
                                           n > 0 ? (const int64_t *)tabi_tensor_data(div) : NULL,
                                           psw ? (const char *)tabi_tensor_data(psw) : NULL,
                                           (const int64_t *)tabi_tensor_data(dstarts), (char *)tabi_tensor_data(o[0]),
                                           (char *)tabi_tensor_data(o[3]), total);
    st = tc_launch_status(c, OPN);
  }
  free(iv);
  free(o2b);
  free(offv);
  free(starts);
  free(cnt);
  free(zero);
  if (div) c->h->tensor_release(c->h->ctx, div);
  if (dstarts) c->h->tensor_release(c->h->ctx, dstarts);
  for (int k = 0; k < 4; k++) {
    if (st == TABI_OK) outs[k] = tabi_tensor_value(o[k]);
    else if (o[k]) c->h->tensor_release(c->h->ctx, o[k]);
  }
  return st;
}

TC_KTABLE tc_kernel tc_misc_kernels[] = {
    {"aten::grid_sampler_2d", k_grid_sampler_2d},
    {"aten::_cdist_forward", k_cdist},
    {"aten::_pdist_forward", k_pdist},
    {"aten::embedding_dense_backward", k_embedding_dense_backward},
    {"aten::_embedding_bag", k_embedding_bag},
    {NULL, NULL},
};
