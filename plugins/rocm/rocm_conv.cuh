/* plugins/rocm/rocm_conv.cuh: the ROCm plugin's fast 2-D convolution, an
 * implicit GEMM on the tiled kernel's scheme (rocm_gemm.cuh). Included by the
 * shared plugins/cuda/tc_conv.cu under hipcc where the CUDA plugin calls
 * cuDNN; every other case (transposed, 1-D/3-D, integers, small problems)
 * takes the shared direct kernel, which passed conformance on the H100.
 *
 * Per group, a GEMM of [N*OH*OW, C/g*KH*KW] (the input gathered on the fly,
 * zero outside the padding) by [C/g*KH*KW, K/g] (the weight) into the output;
 * any strides, no im2col buffer, the group in blockIdx.z. Accumulates in
 * float (double for float64) and rounds once at the store. Small problems of
 * half types stay on the direct kernel (once-rounded double sum), as the CUDA
 * plugin does with cuDNN, so results match the reference bit for bit there.
 *
 * MIOpen, when installed (runtime-loaded, rocm_dl.h), goes first for what it
 * does well: 2-D, not transposed, float32/float16/bfloat16, outside
 * deterministic mode (the own kernels have a fixed summation order; MIOpen
 * promises none). The algorithm is measured once per configuration
 * (miopenFindConvolutionForwardAlgorithm) and cached in the plugin's context;
 * float32 takes only the GEMM, direct and implicit-GEMM algorithms (Winograd
 * and FFT transform the operands and can miss the float32 tolerance), as the
 * CUDA plugin keeps cuDNN to FMA math. Any MIOpen failure falls through to the
 * implicit GEMM below. NOT YET RUN ON AMD HARDWARE. */
#ifndef TABI_ROCM_CONV_CUH
#define TABI_ROCM_CONV_CUH

#include <stdio.h>

#include "rocm_dl.h"
#include "rocm_tile.cuh"

/* MIOpen's chosen algorithm per configuration: the record of the shared
 * algorithm cache (tc_algo_cache.h, conv_algo_cache in tc_conv.cu). */
static_assert(sizeof(rocm_mi_perf) <= TC_ALGO_REC, "rocm_mi_perf exceeds the cache's record size");

/* The device's MIOpen handle, created on first use (kept in c->dnn[]). */
static void *rm_handle(tc_ctx *c, const rocm_miopen *mi, int32_t dev) {
  if (dev < 0 || dev >= TC_MAX_DEVICES) return NULL;
  pthread_mutex_lock(&c->mu);
  void *hd = c->dnn[dev];
  if (!hd && mi->create(&hd) != ROCM_MI_SUCCESS) hd = NULL;
  c->dnn[dev] = hd;
  pthread_mutex_unlock(&c->mu);
  return hd;
}

static int rm_fits_int(const tabi_tensor *t) {
  for (int32_t i = 0; i < t->dl.ndim; i++)
    if (t->dl.shape[i] > INT32_MAX || t->dl.strides[i] > INT32_MAX || t->dl.strides[i] < 0) return 0;
  return 1;
}

/* MIOpen forward into out (bias not added). TABI_ERR_UNIMPLEMENTED (no
 * message) when MIOpen is absent or declines: the caller runs its own kernel. */
static tabi_status rocm_miopen_conv(tc_ctx *c, const tabi_tensor *in, const tabi_tensor *w, const conv_geom *g,
                                    tabi_tensor *out) {
  const rocm_miopen *mi = rocm_dl_miopen();
  tabi_dtype dt = tabi_tensor_dtype(in);
  if (!mi || c->h->deterministic(c->h->ctx) || !rm_fits_int(in) || !rm_fits_int(w) || !rm_fits_int(out) ||
      g->groups > INT32_MAX)
    return TABI_ERR_UNIMPLEMENTED;
  void *hd = rm_handle(c, mi, in->dl.device.device_id);
  if (!hd) return TABI_ERR_UNIMPLEMENTED;
  /* one thread at a time on the device's handle, as the CUDA plugin holds its
   * cuDNN one (MIOpen's handle keeps per-call state: its stream, its
   * workspace) */
  pthread_mutex_t *hmu = &c->dnn_mu[in->dl.device.device_id];
  pthread_mutex_lock(hmu);
  mi->set_stream(hd, NULL); /* the default stream, like every kernel of the plugin */
  int mdt = dt == TABI_DTYPE_FLOAT32 ? ROCM_MI_FLOAT : dt == TABI_DTYPE_FLOAT16 ? ROCM_MI_HALF : ROCM_MI_BF16;
  void *xd = NULL, *wd = NULL, *yd = NULL, *cd = NULL;
  int xs[4], xst[4], ws[4], wst[4], ys[4], yst[4];
  for (int i = 0; i < 4; i++) {
    xs[i] = (int)in->dl.shape[i];
    xst[i] = (int)in->dl.strides[i];
    ws[i] = (int)w->dl.shape[i];
    wst[i] = (int)w->dl.strides[i];
    ys[i] = (int)out->dl.shape[i];
    yst[i] = (int)out->dl.strides[i];
  }
  int ok = mi->create_tensor(&xd) == 0 && mi->create_tensor(&wd) == 0 && mi->create_tensor(&yd) == 0 &&
           mi->create_conv(&cd) == 0 && mi->set_tensor(xd, mdt, 4, xs, xst) == 0 &&
           mi->set_tensor(wd, mdt, 4, ws, wst) == 0 && mi->set_tensor(yd, mdt, 4, ys, yst) == 0 &&
           mi->init_conv(cd, ROCM_MI_CONVOLUTION, (int)g->p[0], (int)g->p[1], (int)g->s[0], (int)g->s[1],
                         (int)g->d[0], (int)g->d[1]) == 0 &&
           mi->set_groups(cd, (int)g->groups) == 0;
  tabi_status st = TABI_ERR_UNIMPLEMENTED;
  char key[160];
  snprintf(key, sizeof key, "%d|%d %d %d %d|%d %d %d %d|%d %d %d %d|%d %d %d %d %d %d %lld", (int)dt, xs[0],
           xs[1], xs[2], xs[3], xst[0], xst[1], xst[2], xst[3], ws[0], ws[1], ws[2], ws[3], (int)g->p[0],
           (int)g->p[1], (int)g->s[0], (int)g->s[1], (int)g->d[0], (int)g->d[1], (long long)g->groups);
  rocm_mi_perf perf[8];
  int n = 0, cached = ok && tc_algo_cache_get(conv_algo_cache(c), key, &perf[0], sizeof perf[0]);
  if (cached) {
    n = 1;
  } else if (ok) {
    size_t fb = 0;
    if (mi->fwd_workspace(hd, wd, xd, cd, yd, &fb) != 0) fb = 0;
    int64_t nb = (int64_t)(fb > 0 ? fb : 1);
    tabi_tensor *fws = NULL;
    if (tc_empty(c, in->dl.device, TABI_DTYPE_UINT8, 1, &nb, &fws) == TABI_OK) {
      if (mi->find_fwd(hd, xd, tabi_tensor_data(in), wd, tabi_tensor_data(w), cd, yd, tabi_tensor_data(out), 8,
                       &n, perf, tabi_tensor_data(fws), fb, false) != 0)
        n = 0;
      c->h->tensor_release(c->h->ctx, fws);
    }
  }
  for (int i = 0; i < n && i < 8 && st == TABI_ERR_UNIMPLEMENTED; i++) {
    int a = perf[i].algo;
    if (dt == TABI_DTYPE_FLOAT32 && a != ROCM_MI_FWD_GEMM && a != ROCM_MI_FWD_DIRECT &&
        a != ROCM_MI_FWD_IMPLICIT_GEMM)
      continue;
    int64_t nb = (int64_t)(perf[i].memory > 0 ? perf[i].memory : 1);
    tabi_tensor *wst_t = NULL;
    if (tc_empty(c, in->dl.device, TABI_DTYPE_UINT8, 1, &nb, &wst_t) != TABI_OK) continue;
    float one = 1, zero = 0;
    int r = mi->fwd(hd, &one, xd, tabi_tensor_data(in), wd, tabi_tensor_data(w), cd, a, &zero, yd,
                    tabi_tensor_data(out), tabi_tensor_data(wst_t), perf[i].memory);
    c->h->tensor_release(c->h->ctx, wst_t);
    if (r == ROCM_MI_SUCCESS) {
      st = TABI_OK;
      if (!cached) tc_algo_cache_put(conv_algo_cache(c), key, &perf[i], sizeof perf[i]);
    }
  }
  if (xd) mi->destroy_tensor(xd);
  if (wd) mi->destroy_tensor(wd);
  if (yd) mi->destroy_tensor(yd);
  if (cd) mi->destroy_conv(cd);
  pthread_mutex_unlock(hmu);
  return st;
}

/* *done = 1 when the implicit GEMM ran (or failed with a status). */
static tabi_status rocm_conv(tc_ctx *c, const char *op, const tabi_tensor *in, const tabi_tensor *w,
                             const tabi_tensor *bias, const conv_geom *g, int32_t ns, int transposed,
                             tabi_tensor *out, int *done) {
  *done = 0;
  tabi_dtype dt = tabi_tensor_dtype(in);
  int64_t total = tabi_tensor_numel(out);
  double work = (double)total * (double)(g->ch / g->groups) * (double)(g->k[0] * g->k[1]);
  int half = dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16;
  if (ns != 2 || transposed || total == 0 || tabi_tensor_numel(in) == 0 || g->k[0] < 1 ||
      g->k[1] < 1 || (half && work < 16777216.0) || g->groups > 65535 ||
      (dt != TABI_DTYPE_FLOAT32 && dt != TABI_DTYPE_FLOAT64 && !half))
    return TABI_OK;
  if (dt != TABI_DTYPE_FLOAT64) { /* MIOpen: contiguous NCHW operands, out is contiguous */
    tabi_tensor *ic = NULL, *wc = NULL;
    tabi_status st = tc_contiguous(c, op, (tabi_tensor *)in, &ic);
    if (st == TABI_OK) st = tc_contiguous(c, op, (tabi_tensor *)w, &wc);
    tabi_status ms = st == TABI_OK ? rocm_miopen_conv(c, ic, wc, g, out) : st;
    if (ic) c->h->tensor_release(c->h->ctx, ic);
    if (wc) c->h->tensor_release(c->h->ctx, wc);
    if (ms != TABI_ERR_UNIMPLEMENTED) {
      *done = 1;
      if (ms == TABI_OK && bias) ms = conv_add_bias(c, op, out, bias);
      return ms;
    }
  }
  conv_args a;
  memset(&a, 0, sizeof a);
  a.g = *g;
  a.ns = ns;
  a.dt = dt;
  a.in = (const char *)tabi_tensor_data(in);
  a.w = (const char *)tabi_tensor_data(w);
  a.b = bias ? (const char *)tabi_tensor_data(bias) : NULL;
  a.bst = bias ? bias->dl.strides[0] : 0;
  a.out = (char *)tabi_tensor_data(out);
  for (int32_t i = 0; i < 4; i++) {
    a.ist[i] = in->dl.strides[i];
    a.wst[i] = w->dl.strides[i];
    a.ost[i] = out->dl.strides[i];
    a.oshape[i] = out->dl.shape[i];
  }
  a.total = total;
  int64_t rows = g->n * a.oshape[2] * a.oshape[3], lpg = g->cl / g->groups;
  int64_t gx = (lpg + RG_BN - 1) / RG_BN, gy = (rows + RG_BM - 1) / RG_BM;
  if (gx > INT32_MAX) return TABI_OK;
  *done = 1;
  dim3 grid((unsigned)gx, (unsigned)(gy > 65535 ? 65535 : gy), (unsigned)g->groups);
  switch (dt) {
    case TABI_DTYPE_FLOAT32: TC_LAUNCH(grid, RG_NT, rc_igemm<TABI_DTYPE_FLOAT32, conv_args>)(a); break;
    case TABI_DTYPE_FLOAT64: TC_LAUNCH(grid, RG_NT, rc_igemm<TABI_DTYPE_FLOAT64, conv_args>)(a); break;
    case TABI_DTYPE_FLOAT16: TC_LAUNCH(grid, RG_NT, rc_igemm<TABI_DTYPE_FLOAT16, conv_args>)(a); break;
    default: TC_LAUNCH(grid, RG_NT, rc_igemm<TABI_DTYPE_BFLOAT16, conv_args>)(a); break;
  }
  return tc_launch_status(c, op);
}

#endif /* TABI_ROCM_CONV_CUH */
