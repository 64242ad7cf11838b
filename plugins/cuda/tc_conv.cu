/* plugins/cuda/tc_conv.cu: aten::convolution.
 *
 * Float 2-D convolutions (not transposed) run on cuDNN 9's legacy API, in the
 * input's layout (NCHW, or NHWC for channels-last input, which then gives a
 * channels-last output as ATen does); float32 uses FMA math (no TF32) so results
 * meet the float32 tolerance; half types accumulate in float32. Only
 * algorithms cuDNN reports deterministic are taken, in either mode, so the
 * results are the same bits run to run, as every other kernel's here; one
 * thread at a time uses a device's cuDNN handle. Every other case
 * (integers, 1-D/3-D, transposed, anything cuDNN refuses) runs a direct strided
 * kernel that accumulates in int64 or double, like the reference. The argument
 * checks are the reference's own (reference/ref_conv_check.c, linked in). */
#include <stdio.h>
#include <stdlib.h>

#include "tc_ew_dev.cuh"
#include "tc_convbwd.cuh"
#include "ref_conv_check.h"
#include "tc_algo_cache.h"
#if defined(TC_HAVE_CUDNN) && !defined(TC_SIM) /* gpusim_cuda: sim_vendor.h's stand-in */
#include <cudnn.h>
#endif

/* The geometry and the checks are the reference's (reference/ref_conv_check.c). */
typedef ref_conv_geom conv_geom;

typedef struct conv_args {
  conv_geom g;
  int32_t ns, transposed, dt;
  const char *in, *w, *b;
  char *out;
  int64_t ist[5], wst[5], ost[5], bst;
  int64_t oshape[5];
  int64_t total;
} conv_args;

/* One thread per output element. Normal: out = L (gather over input H);
 * transposed: out = H (gather over the (l, k) pairs that reach h). */
__global__ void conv_direct(const conv_args a) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  int esz = tc_dt_size(a.dt), cat = tc_cat(a.dt);
  const conv_geom &g = a.g;
  for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < a.total; o += stride) {
    int64_t pos[3] = {0, 0, 0}, rem = o;
    for (int i = a.ns - 1; i >= 0; i--) {
      pos[i] = rem % a.oshape[2 + i];
      rem /= a.oshape[2 + i];
    }
    int64_t oc = rem % a.oshape[1], b = rem / a.oshape[1];
    int64_t ooff = b * a.ost[0] + oc * a.ost[1];
    for (int i = 0; i < a.ns; i++) ooff += pos[i] * a.ost[2 + i];
    int64_t iacc = 0;
    double facc = 0;
    if (a.b) {
      if (cat == 0) iacc = tc_ld_i(a.b + oc * a.bst * esz, a.dt);
      else facc = tc_ld_f(a.b + oc * a.bst * esz, a.dt);
    }
    if (!a.transposed) { /* out channel oc in group gi reads input channels of gi */
      int64_t lpg = g.cl / g.groups, hpg = g.ch / g.groups, gi = oc / lpg;
      for (int64_t ic = 0; ic < hpg; ic++)
        for (int64_t k0 = 0; k0 < g.k[0]; k0++)
          for (int64_t k1 = 0; k1 < g.k[1]; k1++)
            for (int64_t k2 = 0; k2 < g.k[2]; k2++) {
              int64_t kk[3] = {k0, k1, k2}, ioff = b * a.ist[0] + (gi * hpg + ic) * a.ist[1];
              int64_t woff = oc * a.wst[0] + ic * a.wst[1];
              int ok = 1;
              for (int i = 0; i < a.ns && ok; i++) {
                int64_t hpos = pos[i] * g.s[i] - g.p[i] + kk[i] * g.d[i];
                ok = hpos >= 0 && hpos < g.hsp[i];
                ioff += hpos * a.ist[2 + i];
                woff += kk[i] * a.wst[2 + i];
              }
              if (!ok) continue;
              if (cat == 0)
                iacc = (int64_t)((uint64_t)iacc + (uint64_t)tc_ld_i(a.in + ioff * esz, a.dt) *
                                                      (uint64_t)tc_ld_i(a.w + woff * esz, a.dt));
              else
                facc += tc_ld_f(a.in + ioff * esz, a.dt) * tc_ld_f(a.w + woff * esz, a.dt);
            }
    } else { /* out = H channel oc; weight [L, H/groups, k] */
      int64_t hpg = g.ch / g.groups, lpg = g.cl / g.groups, gi = oc / hpg, ocg = oc % hpg;
      for (int64_t lc = 0; lc < lpg; lc++)
        for (int64_t k0 = 0; k0 < g.k[0]; k0++)
          for (int64_t k1 = 0; k1 < g.k[1]; k1++)
            for (int64_t k2 = 0; k2 < g.k[2]; k2++) {
              int64_t kk[3] = {k0, k1, k2}, ioff = b * a.ist[0] + (gi * lpg + lc) * a.ist[1];
              int64_t woff = (gi * lpg + lc) * a.wst[0] + ocg * a.wst[1];
              int ok = 1;
              for (int i = 0; i < a.ns && ok; i++) {
                int64_t t = pos[i] + g.p[i] - kk[i] * g.d[i];
                ok = t >= 0 && t % g.s[i] == 0 && t / g.s[i] < g.lsp[i];
                ioff += (t / g.s[i]) * a.ist[2 + i];
                woff += kk[i] * a.wst[2 + i];
              }
              if (!ok) continue;
              if (cat == 0)
                iacc = (int64_t)((uint64_t)iacc + (uint64_t)tc_ld_i(a.in + ioff * esz, a.dt) *
                                                      (uint64_t)tc_ld_i(a.w + woff * esz, a.dt));
              else
                facc += tc_ld_f(a.in + ioff * esz, a.dt) * tc_ld_f(a.w + woff * esz, a.dt);
            }
    }
    if (cat == 0) tc_st_i(a.out + ooff * esz, a.dt, iacc);
    else tc_st_f(a.out + ooff * esz, a.dt, facc);
  }
}

/* out += bias[c], broadcast over N and the spatial dims: the library paths
 * (cuDNN, MIOpen) convolve without the bias. */
static tabi_status conv_add_bias(tc_ctx *c, const char *op, tabi_tensor *out, const tabi_tensor *bias) {
  int32_t nd = out->dl.ndim;
  tc_operand oo, ia[2];
  tc_operand_of(out, nd, out->dl.shape, &oo);
  for (int32_t d = 0; d < nd; d++) oo.st[d] = out->dl.strides[d];
  ia[0] = oo;
  memset(&ia[1], 0, sizeof ia[1]);
  ia[1].ptr = tabi_tensor_data(bias);
  ia[1].dt = tabi_tensor_dtype(out);
  ia[1].st[1] = bias->dl.strides[0];
  tc_ew_params p;
  memset(&p, 0, sizeof p);
  p.op = TC_B_ADD;
  p.cd = tabi_tensor_dtype(out);
  p.pf = 1;
  p.pi = 1;
  p.pc[0] = 1;
  return tc_ew_launch(c, op, nd, out->dl.shape, &oo, 2, ia, &p, NULL);
}

/* The library's chosen algorithm per configuration key (cuDNN's here, MIOpen's
 * in rocm_conv.cuh), in c->conv_algos: created on first use, 64 keys (the
 * oldest key goes when full), freed with the context (tc_plugin.cu,
 * rocm_kernels.cpp). */
#define CONV_ALGO_KEYS 64
static inline tc_algo_cache *conv_algo_cache(tc_ctx *c) {
  return tc_algo_cache_of(&c->conv_algos, &c->mu, CONV_ALGO_KEYS);
}

#ifdef TC_HIP /* the ROCm plugin's MIOpen call and implicit GEMM, where CUDA calls cuDNN */
#include "rocm_conv.cuh"
#endif

#ifdef TC_HAVE_CUDNN
void *tc_cudnn(tc_ctx *c, int32_t dev, const char *op) {
  if (dev < 0 || dev >= TC_MAX_DEVICES) return NULL;
  pthread_mutex_lock(&c->mu);
  if (!c->dnn[dev]) {
    cudnnHandle_t hd = NULL;
    if (cudnnCreate(&hd) == CUDNN_STATUS_SUCCESS) c->dnn[dev] = hd;
  }
  void *r = c->dnn[dev];
  pthread_mutex_unlock(&c->mu);
  if (!r) TC_ERR(c, TABI_ERR_DEVICE, "%s: cudnnCreate failed on device %d", op, (int)dev);
  return r;
}

typedef struct bwd_algo { /* a backward-data or backward-filter choice (the cached record) */
  int algo, math;
  size_t mem;
} bwd_algo;
/* forward records are cudnnConvolutionFwdAlgoPerf_t; backward keys start with
 * "D|" / "F|", forward ones with a digit */
static_assert(sizeof(cudnnConvolutionFwdAlgoPerf_t) <= TC_ALGO_REC && sizeof(bwd_algo) <= TC_ALGO_REC,
              "a cuDNN algorithm record exceeds the cache's record size");

/* The descriptors of one 2-D cuDNN convolution call (x: the input, y: the
 * output or grad_output, w: the weight) and the int dims they were set from,
 * which make the algorithm cache's key. Forward and backward set them alike. */
typedef struct cdnn_conv {
  cudnnTensorDescriptor_t xd, yd;
  cudnnFilterDescriptor_t wd;
  cudnnConvolutionDescriptor_t cd;
  int xs[4], xst[4], ys[4], yst[4], ws[4];
  int pad[2], str[2], dil[2];
} cdnn_conv;

static cudnnDataType_t cdnn_dtype(tabi_dtype dt) {
  return dt == TABI_DTYPE_FLOAT16    ? CUDNN_DATA_HALF
         : dt == TABI_DTYPE_BFLOAT16 ? CUDNN_DATA_BFLOAT16
         : dt == TABI_DTYPE_FLOAT32  ? CUDNN_DATA_FLOAT
                                     : CUDNN_DATA_DOUBLE;
}

/* A 4-D tensor descriptor of t's shape and strides, also given as int in s, st. */
static int cdnn_tensor(cudnnTensorDescriptor_t *d, cudnnDataType_t ddt, const tabi_tensor *t, int *s, int *st) {
  for (int i = 0; i < 4; i++) {
    s[i] = (int)t->dl.shape[i];
    st[i] = (int)t->dl.strides[i];
  }
  return cudnnCreateTensorDescriptor(d) == 0 && cudnnSetTensorNdDescriptor(*d, ddt, 4, s, st) == 0;
}

/* The weight's filter descriptor in layout fmt; its shape as int in ws. */
static int cdnn_filter(cudnnFilterDescriptor_t *d, cudnnDataType_t ddt, cudnnTensorFormat_t fmt,
                       const tabi_tensor *w, int *ws) {
  for (int i = 0; i < 4; i++) ws[i] = (int)w->dl.shape[i];
  return cudnnCreateFilterDescriptor(d) == 0 && cudnnSetFilterNdDescriptor(*d, ddt, fmt, 4, ws) == 0;
}

/* g's 2-D cross-correlation: float64 computes in double, the rest in float32;
 * FMA math for float32/float64 (no TF32), tensor ops for the half types. */
static int cdnn_convolution(cudnnConvolutionDescriptor_t *d, tabi_dtype dt, const conv_geom *g, int *pad, int *str,
                            int *dil) {
  for (int i = 0; i < 2; i++) {
    pad[i] = (int)g->p[i];
    str[i] = (int)g->s[i];
    dil[i] = (int)g->d[i];
  }
  cudnnDataType_t cdt = dt == TABI_DTYPE_FLOAT64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  return cudnnCreateConvolutionDescriptor(d) == 0 &&
         cudnnSetConvolutionNdDescriptor(*d, 2, pad, str, dil, CUDNN_CROSS_CORRELATION, cdt) == 0 &&
         cudnnSetConvolutionGroupCount(*d, (int)g->groups) == 0 &&
         cudnnSetConvolutionMathType(*d, dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_FLOAT64
                                             ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH) == 0;
}

/* All four descriptors; 0 when cuDNN refused one (cdnn_conv_destroy still
 * frees those created). The filter is NHWC when nhwc, else NCHW. */
static int cdnn_conv_init(cdnn_conv *d, tabi_dtype dt, const tabi_tensor *x, const tabi_tensor *y,
                          const tabi_tensor *w, const conv_geom *g, int nhwc) {
  memset(d, 0, sizeof *d);
  cudnnDataType_t ddt = cdnn_dtype(dt);
  return cdnn_tensor(&d->xd, ddt, x, d->xs, d->xst) && cdnn_tensor(&d->yd, ddt, y, d->ys, d->yst) &&
         cdnn_filter(&d->wd, ddt, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, w, d->ws) &&
         cdnn_convolution(&d->cd, dt, g, d->pad, d->str, d->dil);
}

static void cdnn_conv_destroy(cdnn_conv *d) {
  if (d->xd) cudnnDestroyTensorDescriptor(d->xd);
  if (d->yd) cudnnDestroyTensorDescriptor(d->yd);
  if (d->wd) cudnnDestroyFilterDescriptor(d->wd);
  if (d->cd) cudnnDestroyConvolutionDescriptor(d->cd);
}

/* The device's cuDNN handle on the default stream, held by this thread until
 * cdnn_release (cuDNN: a handle serves one thread at a time); NULL with the
 * error set. */
static cudnnHandle_t cdnn_handle(tc_ctx *c, const tabi_tensor *t, const char *op) {
  cudnnHandle_t hd = (cudnnHandle_t)tc_cudnn(c, t->dl.device.device_id, op);
  if (hd) {
    pthread_mutex_lock(&c->dnn_mu[t->dl.device.device_id]);
    cudnnSetStream(hd, 0);
  }
  return hd;
}
static void cdnn_release(tc_ctx *c, const tabi_tensor *t) { pthread_mutex_unlock(&c->dnn_mu[t->dl.device.device_id]); }

static int is_nhwc(const tabi_tensor *t) {
  const int64_t *s = t->dl.shape, *st = t->dl.strides;
  return t->dl.ndim == 4 && st[1] == 1 && st[3] == s[1] && st[2] == s[1] * s[3] &&
         st[0] == s[1] * s[2] * s[3] && s[1] > 1;
}

/* cuDNN forward; returns TABI_ERR_UNIMPLEMENTED (no message) when cuDNN cannot
 * do it, so the caller falls back to the direct kernel. */
static tabi_status conv_cudnn(tc_ctx *c, const char *op, const tabi_tensor *in, const tabi_tensor *w,
                              const conv_geom *g, tabi_tensor *out, int nhwc) {
  tabi_dtype dt = tabi_tensor_dtype(in);
  cudnnHandle_t hd = cdnn_handle(c, in, op);
  if (!hd) return TABI_ERR_DEVICE;
  cdnn_conv d;
  tabi_status st = TABI_ERR_UNIMPLEMENTED;
  int ok = cdnn_conv_init(&d, dt, in, out, w, g, nhwc);
  const int *xs = d.xs, *xst = d.xst, *ws = d.ws, *pad = d.pad, *str = d.str, *dil = d.dil;
  cudnnTensorDescriptor_t xd = d.xd, yd = d.yd;
  cudnnFilterDescriptor_t wd = d.wd;
  cudnnConvolutionDescriptor_t cd = d.cd;
  if (ok) {
    cudnnConvolutionFwdAlgoPerf_t perf[16];
    int n = 0;
    /* Measured choice (cudnnFind...) once per configuration, then cached: the
     * heuristics' first pick can be several times slower (NHWC half). */
    char key[256];
    snprintf(key, sizeof key, "%d|%d %d %d %d|%d %d %d %d|%d %d %d %d|%d %d %d %d %d %d %d|%d", (int)dt,
             xs[0], xs[1], xs[2], xs[3], xst[0], xst[1], xst[2], xst[3], ws[0], ws[1], ws[2], ws[3],
             pad[0], pad[1], str[0], str[1], dil[0], dil[1], (int)g->groups, nhwc);
    int cached = tc_algo_cache_get(conv_algo_cache(c), key, &perf[0], sizeof perf[0]);
    if (cached) {
      n = 1;
    } else {
      int64_t fb = (int64_t)256 << 20;
      tabi_tensor *fws = NULL;
      if (tc_empty(c, in->dl.device, TABI_DTYPE_UINT8, 1, &fb, &fws) == TABI_OK) {
        if (cudnnFindConvolutionForwardAlgorithmEx(hd, xd, tabi_tensor_data(in), wd, tabi_tensor_data(w), cd, yd,
                                                   tabi_tensor_data(out), 16, &n, perf,
                                                   tabi_tensor_data(fws), (size_t)fb) != 0)
          n = 0;
        c->h->tensor_release(c->h->ctx, fws);
      }
      if (n == 0 && cudnnGetConvolutionForwardAlgorithm_v7(hd, xd, wd, cd, yd, 16, &n, perf) != 0) n = 0;
    }
    {
      for (int i = 0; i < n && st == TABI_ERR_UNIMPLEMENTED; i++) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
        if (perf[i].determinism != CUDNN_DETERMINISTIC) continue; /* see conv_cudnn_bwd */
        /* no TF32 for float32 (DEFAULT_MATH permits it on sm_80+) */
        if (dt == TABI_DTYPE_FLOAT32 && perf[i].mathType != CUDNN_FMA_MATH) continue;
        size_t wsb = perf[i].memory;
        tabi_tensor *wst = NULL;
        int64_t nb = (int64_t)(wsb > 0 ? wsb : 1);
        if (tc_empty(c, in->dl.device, TABI_DTYPE_UINT8, 1, &nb, &wst) != TABI_OK) continue;
        float f1 = 1, f0 = 0;
        double d1 = 1, d0 = 0;
        const void *al = dt == TABI_DTYPE_FLOAT64 ? (const void *)&d1 : (const void *)&f1;
        const void *be = dt == TABI_DTYPE_FLOAT64 ? (const void *)&d0 : (const void *)&f0;
        cudnnSetConvolutionMathType(cd, perf[i].mathType);
        cudnnStatus_t r = cudnnConvolutionForward(hd, al, xd, tabi_tensor_data(in), wd,
                                                  tabi_tensor_data(w), cd, perf[i].algo,
                                                  tabi_tensor_data(wst), wsb, be, yd,
                                                  tabi_tensor_data(out));
        c->h->tensor_release(c->h->ctx, wst);
        if (r == CUDNN_STATUS_SUCCESS) {
          st = TABI_OK;
          if (!cached) tc_algo_cache_put(conv_algo_cache(c), key, &perf[i], sizeof perf[i]);
        }
      }
    }
  }
  cdnn_conv_destroy(&d);
  cdnn_release(c, in);
  return st;
}

/* cuDNN backward for float32/float16/bfloat16 2-D NCHW-contiguous operands:
 * which 0 = data (res = grad_input from grad_output and weight), 1 = filter
 * (res = grad_weight from input and grad_output). The forward's rules: FMA math
 * for float32 (no TF32), tensor ops for the half types (float32 accumulation),
 * deterministic algorithms only (in either mode), the measured choice
 * (cudnnFind...Ex) cached per configuration. TABI_ERR_UNIMPLEMENTED (no
 * message) when cuDNN cannot, so the caller runs the direct kernel. */
static tabi_status conv_cudnn_bwd(tc_ctx *c, const char *op, int which, const tabi_tensor *go,
                                  const tabi_tensor *in, const tabi_tensor *w, const conv_geom *g,
                                  tabi_tensor *res) {
  tabi_dtype dt = tabi_tensor_dtype(in); /* float32 or a half type: compute in float32 */
  cudnnHandle_t hd = cdnn_handle(c, in, op);
  if (!hd) return TABI_ERR_DEVICE;
  cdnn_conv d;
  tabi_status st = TABI_ERR_UNIMPLEMENTED;
  int ok = cdnn_conv_init(&d, dt, in, go, w, g, 0);
  const int *xs = d.xs, *ys = d.ys, *ws = d.ws, *pad = d.pad, *str = d.str, *dil = d.dil;
  cudnnTensorDescriptor_t xd = d.xd, yd = d.yd;
  cudnnFilterDescriptor_t wd = d.wd;
  cudnnConvolutionDescriptor_t cd = d.cd;
  int f32 = dt == TABI_DTYPE_FLOAT32;
  if (ok) {
    char key[256];
    snprintf(key, sizeof key, "%c|%d|%d %d %d %d|%d %d %d %d|%d %d %d %d|%d %d %d %d %d %d %d", which ? 'F' : 'D',
             (int)dt, xs[0], xs[1], xs[2], xs[3], ys[0], ys[1], ys[2], ys[3], ws[0], ws[1], ws[2], ws[3], pad[0],
             pad[1], str[0], str[1], dil[0], dil[1], (int)g->groups);
    bwd_algo cand[16];
    int nc = 0, cached = tc_algo_cache_get(conv_algo_cache(c), key, &cand[0], sizeof cand[0]);
    if (cached) {
      nc = 1;
    } else { /* candidates, fastest first: measured once, else the heuristics */
      cudnnConvolutionBwdDataAlgoPerf_t dp[16];
      cudnnConvolutionBwdFilterAlgoPerf_t fp[16];
      int n = 0;
      int64_t fb = (int64_t)256 << 20;
      tabi_tensor *fws = NULL;
      if (tc_empty(c, in->dl.device, TABI_DTYPE_UINT8, 1, &fb, &fws) == TABI_OK) {
        cudnnStatus_t r = which == 0
            ? cudnnFindConvolutionBackwardDataAlgorithmEx(hd, wd, tabi_tensor_data(w), yd, tabi_tensor_data(go), cd,
                                                          xd, tabi_tensor_data(res), 16, &n, dp,
                                                          tabi_tensor_data(fws), (size_t)fb)
            : cudnnFindConvolutionBackwardFilterAlgorithmEx(hd, xd, tabi_tensor_data(in), yd, tabi_tensor_data(go),
                                                            cd, wd, tabi_tensor_data(res), 16, &n, fp,
                                                            tabi_tensor_data(fws), (size_t)fb);
        if (r != CUDNN_STATUS_SUCCESS) n = 0;
        c->h->tensor_release(c->h->ctx, fws);
      }
      if (n == 0) {
        cudnnStatus_t r = which == 0 ? cudnnGetConvolutionBackwardDataAlgorithm_v7(hd, wd, yd, cd, xd, 16, &n, dp)
                                     : cudnnGetConvolutionBackwardFilterAlgorithm_v7(hd, xd, yd, cd, wd, 16, &n, fp);
        if (r != CUDNN_STATUS_SUCCESS) n = 0;
      }
      for (int i = 0; i < n && i < 16; i++) {
        cudnnStatus_t ps = which == 0 ? dp[i].status : fp[i].status;
        cudnnDeterminism_t pd = which == 0 ? dp[i].determinism : fp[i].determinism;
        cudnnMathType_t pm = which == 0 ? dp[i].mathType : fp[i].mathType;
        if (ps != CUDNN_STATUS_SUCCESS) continue;
        /* Deterministic algorithms only, in either mode: every other kernel
         * of the plugin gives the same bits run to run and at any
         * concurrency (conform's nondeterministic-threads check), and the
         * atomics of cuDNN's others (backward data algo 0, filter 0 and 3)
         * would not. */
        if (pd != CUDNN_DETERMINISTIC) continue;
        if (f32 && pm != CUDNN_FMA_MATH) continue; /* no TF32 */
        cand[nc].algo = which == 0 ? (int)dp[i].algo : (int)fp[i].algo;
        cand[nc].math = (int)pm;
        cand[nc].mem = which == 0 ? dp[i].memory : fp[i].memory;
        nc++;
      }
    }
    for (int i = 0; i < nc && st == TABI_ERR_UNIMPLEMENTED; i++) {
      size_t wsb = cand[i].mem;
      tabi_tensor *wst = NULL;
      int64_t nb = (int64_t)(wsb > 0 ? wsb : 1);
      if (tc_empty(c, in->dl.device, TABI_DTYPE_UINT8, 1, &nb, &wst) != TABI_OK) continue;
      float f1 = 1, f0 = 0;
      cudnnSetConvolutionMathType(cd, (cudnnMathType_t)cand[i].math);
      cudnnStatus_t r =
          which == 0
              ? cudnnConvolutionBackwardData(hd, &f1, wd, tabi_tensor_data(w), yd, tabi_tensor_data(go), cd,
                                             (cudnnConvolutionBwdDataAlgo_t)cand[i].algo, tabi_tensor_data(wst), wsb,
                                             &f0, xd, tabi_tensor_data(res))
              : cudnnConvolutionBackwardFilter(hd, &f1, xd, tabi_tensor_data(in), yd, tabi_tensor_data(go), cd,
                                               (cudnnConvolutionBwdFilterAlgo_t)cand[i].algo, tabi_tensor_data(wst),
                                               wsb, &f0, wd, tabi_tensor_data(res));
      c->h->tensor_release(c->h->ctx, wst);
      if (r == CUDNN_STATUS_SUCCESS) {
        st = TABI_OK;
        if (!cached) tc_algo_cache_put(conv_algo_cache(c), key, &cand[i], sizeof cand[i]);
      }
    }
  }
  cdnn_conv_destroy(&d);
  cdnn_release(c, in);
  return st;
}
void tc_cudnn_destroy(tc_ctx *c) {
  for (int d = 0; d < TC_MAX_DEVICES; d++)
    if (c->dnn[d]) {
      cudaSetDevice(d);
      cudnnDestroy((cudnnHandle_t)c->dnn[d]);
      c->dnn[d] = NULL;
    }
}
#else
void tc_cudnn_destroy(tc_ctx *c) { (void)c; }
void *tc_cudnn(tc_ctx *c, int32_t dev, const char *op) {
  TC_ERR(c, TABI_ERR_UNAVAILABLE, "%s: built without cuDNN", op);
  return NULL;
}
#endif

static tabi_status k_convolution(TC_ARGS) {
  TC_CTX;
  tabi_tensor *in = args[0].u.t, *w = args[1].u.t;
  tabi_tensor *bias = args[2].tag == TABI_TAG_TENSOR ? args[2].u.t : NULL;
  conv_geom g;
  int32_t ns = 0;
  int transposed = 0;
  int64_t oshape[5];
  tabi_status st = ref_conv_check(c->h, call, args, &g, &ns, oshape, &transposed);
  if (st) return st;
  tabi_dtype dt = tabi_tensor_dtype(in);
  if ((st = tc_check_cuda(c, in, OPN, "input")) || (st = tc_check_cuda(c, w, OPN, "weight")) ||
      (st = tc_use_device(c, in, OPN)))
    return st;
  int32_t nd = ns + 2;
  tabi_tensor *out = NULL;
  int nhwc = 0;
#ifdef TC_HAVE_CUDNN
  nhwc = is_nhwc(in) && is_nhwc(w);
#endif
  if (nhwc) {
    int64_t cl[4] = {oshape[1] * oshape[2] * oshape[3], 1, oshape[3] * oshape[1], oshape[1]};
    st = c->h->tensor_empty_strided(c->h->ctx, in->dl.device, dt, 4, oshape, cl, &out);
  } else {
    st = tc_empty(c, in->dl.device, dt, nd, oshape, &out);
  }
  if (st != TABI_OK) return st;
  int64_t total = tabi_tensor_numel(out);
  int done = total == 0;
#ifdef TC_HAVE_CUDNN
  /* Half types: cuDNN accumulates in float32 and some of its algorithms round
   * intermediates, which can be 2 ulps off the once-rounded result; small
   * problems (where speed does not matter) take the direct kernel, which
   * rounds once like the reference. */
  double work = (double)total * (double)(g.ch / g.groups) * (double)(g.k[0] * g.k[1]);
  int half = dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16;
  /* cuDNN's descriptors take int dims and strides: larger tensors stay on the direct kernel */
  int fits = tabi_tensor_numel(in) <= INT32_MAX && total <= INT32_MAX && tabi_tensor_numel(w) <= INT32_MAX;
  if (!done && ns == 2 && !transposed && tabi_dtype_is_floating(dt) && tabi_tensor_numel(in) > 0 &&
      g.k[0] > 0 && g.k[1] > 0 && !(half && work < 16777216.0) && fits) {
    tabi_tensor *ic = NULL, *wc = NULL;
    if (nhwc) {
      c->h->tensor_retain(c->h->ctx, in);
      c->h->tensor_retain(c->h->ctx, w);
      ic = in;
      wc = w;
      st = TABI_OK;
    } else {
      st = tc_contiguous(c, OPN, in, &ic);
      if (st == TABI_OK) st = tc_contiguous(c, OPN, w, &wc);
    }
    if (st == TABI_OK) {
      tabi_status cs = conv_cudnn(c, OPN, ic, wc, &g, out, nhwc);
      if (cs == TABI_OK) done = 1;
      else if (cs != TABI_ERR_UNIMPLEMENTED) st = cs;
    }
    c->h->tensor_release(c->h->ctx, ic);
    c->h->tensor_release(c->h->ctx, wc);
    if (done && bias && st == TABI_OK) st = conv_add_bias(c, OPN, out, bias);
  }
#endif
#ifdef TC_HIP
  if (!done && st == TABI_OK) st = rocm_conv(c, OPN, in, w, bias, &g, ns, transposed, out, &done);
#endif
  if (!done && st == TABI_OK) {
    conv_args a;
    memset(&a, 0, sizeof a);
    a.g = g;
    a.ns = ns;
    a.transposed = transposed;
    a.dt = dt;
    a.in = (const char *)tabi_tensor_data(in);
    a.w = (const char *)tabi_tensor_data(w);
    a.b = bias ? (const char *)tabi_tensor_data(bias) : NULL;
    a.bst = bias ? bias->dl.strides[0] : 0;
    a.out = (char *)tabi_tensor_data(out);
    for (int32_t i = 0; i < nd; i++) {
      a.ist[i] = in->dl.strides[i];
      a.wst[i] = w->dl.strides[i];
      a.ost[i] = out->dl.strides[i];
      a.oshape[i] = oshape[i];
    }
    a.total = total;
    int64_t gr = (total + 127) / 128;
    TC_LAUNCH((int)(gr > 65536 ? 65536 : gr), 128, conv_direct)(a);
    st = tc_launch_status(c, OPN);
  }
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, out);
    return st;
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

/* --- convolution_backward: the direct gathers of tc_convbwd.cuh, one thread
 * per grad_input / grad_weight / grad_bias element, no atomics. */
__global__ void conv_bwd_direct(const tcb_geom g, const char *x, const char *y, char *out, int64_t total) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < total; o += stride)
    tcb_elem(&g, x, y, out, o);
}

/* A contiguous `shape` result of g's mode from operands x (strides into g.xs)
 * and y (g.ys; NULL for the bias). */
static tabi_status conv_bwd_run(tc_ctx *c, tcb_geom *g, int32_t ns, const tabi_tensor *x, const tabi_tensor *y,
                                const tabi_tensor *like, int32_t nd, const int64_t *shape, tabi_tensor **res) {
  tcb_strides(g->xs, ns, x->dl.strides);
  if (y) tcb_strides(g->ys, ns, y->dl.strides);
  tabi_status st = tc_empty(c, like->dl.device, tabi_tensor_dtype(like), nd, shape, res);
  if (st != TABI_OK) return st;
  int64_t total = tcb_count(g);
  if (total == 0) return TABI_OK;
  int64_t gr = (total + 127) / 128;
  TC_LAUNCH((int)(gr > 65536 ? 65536 : gr), 128, conv_bwd_direct)(*g, (const char *)tabi_tensor_data(x),
                                                            y ? (const char *)tabi_tensor_data(y) : NULL,
                                                            (char *)tabi_tensor_data(*res), total);
  st = tc_launch_status(c, "aten::convolution_backward");
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, *res);
    *res = NULL;
  }
  return st;
}

#ifdef TC_HAVE_CUDNN
/* grad_input / grad_weight through cuDNN where the forward would use it (2-D,
 * not transposed, float32 and the half types; the half types only past the
 * forward's size threshold, below which the once-rounded direct sums are kept).
 * done[i]: output i (0 grad_input, 1 grad_weight) was computed into res[i]. */
static tabi_status conv_bwd_cudnn(tc_ctx *c, const char *op, tabi_tensor *go, tabi_tensor *in, tabi_tensor *w,
                                  const conv_geom *g, int32_t ns, int transposed, const int64_t *mask,
                                  tabi_tensor **res, int *done) {
  tabi_dtype dt = tabi_tensor_dtype(in);
  int half = dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16;
  int64_t ngo = tabi_tensor_numel(go), nin = tabi_tensor_numel(in), nw = tabi_tensor_numel(w);
  double work = (double)ngo * (double)(g->ch / g->groups) * (double)(g->k[0] * g->k[1]);
  if (ns != 2 || transposed || !(half || dt == TABI_DTYPE_FLOAT32) || ngo == 0 || nin == 0 || nw == 0 ||
      ngo > INT32_MAX || nin > INT32_MAX || nw > INT32_MAX || (half && work < 16777216.0))
    return TABI_OK;
  tabi_tensor *gc = NULL, *ic = NULL, *wc = NULL;
  tabi_status st = tc_contiguous(c, op, go, &gc);
  if (st == TABI_OK) st = tc_contiguous(c, op, in, &ic);
  if (st == TABI_OK) st = tc_contiguous(c, op, w, &wc);
  for (int which = 0; which < 2 && st == TABI_OK; which++) {
    if (!mask[which]) continue;
    const tabi_tensor *like = which ? w : in;
    st = tc_empty(c, in->dl.device, dt, 4, like->dl.shape, &res[which]);
    if (st != TABI_OK) break;
    tabi_status cs = conv_cudnn_bwd(c, op, which, gc, ic, wc, g, res[which]);
    if (cs == TABI_OK) {
      done[which] = 1;
      continue;
    }
    c->h->tensor_release(c->h->ctx, res[which]);
    res[which] = NULL;
    if (cs != TABI_ERR_UNIMPLEMENTED) st = cs;
  }
  c->h->tensor_release(c->h->ctx, gc);
  c->h->tensor_release(c->h->ctx, ic);
  c->h->tensor_release(c->h->ctx, wc);
  return st;
}
#endif

/* grad_input, grad_weight, grad_bias (each None when its output_mask is off):
 * the reference's checks (ref_conv_bwd_check: convolution's, then grad_output's
 * dtype and shape) and its sums, element by element (tc_convbwd.cuh). */
static tabi_status k_convolution_backward(TC_ARGS) {
  TC_CTX;
  tabi_tensor *go = args[0].u.t, *in = args[1].u.t, *w = args[2].u.t;
  const int64_t *mask = tabi_value_ints(&args[10]);
  conv_geom g;
  int32_t ns = 0;
  int transposed = 0;
  int64_t oshape[5];
  tabi_status st = ref_conv_bwd_check(c->h, call, args, &g, &ns, oshape, &transposed);
  if (st) return st;
  tabi_dtype dt = tabi_tensor_dtype(in);
  int32_t nd = ns + 2;
  if ((st = tc_check_cuda(c, go, OPN, "grad_output")) || (st = tc_check_cuda(c, in, OPN, "input")) ||
      (st = tc_check_cuda(c, w, OPN, "weight")) || (st = tc_use_device(c, in, OPN)))
    return st;
  tcb_geom tg;
  tabi_tensor *res[2] = {NULL, NULL}, *gb = NULL;
  int done[2] = {0, 0};
#ifdef TC_HAVE_CUDNN
  st = conv_bwd_cudnn(c, OPN, go, in, w, &g, ns, transposed, mask, res, done);
#endif
  tabi_tensor *&gi = res[0], *&gw = res[1];
  /* grad_input: normal, the input is H, a gather from L = grad_output; transposed, the input is L */
  if (mask[0] && !done[0] && st == TABI_OK) {
    tcb_init(&tg, dt, transposed ? TCB_GATHER_L : TCB_GATHER_H, g.n, g.cl, g.ch, g.groups, g.lsp, g.hsp, g.k,
             g.s, g.p, g.d);
    st = conv_bwd_run(c, &tg, ns, go, w, in, nd, in->dl.shape, &gi);
  }
  if (mask[1] && !done[1] && st == TABI_OK) {
    tcb_init(&tg, dt, TCB_WEIGHT, g.n, g.cl, g.ch, g.groups, g.lsp, g.hsp, g.k, g.s, g.p, g.d);
    st = conv_bwd_run(c, &tg, ns, transposed ? in : go, transposed ? go : in, w, nd, w->dl.shape, &gw);
  }
  if (mask[2] && st == TABI_OK) { /* the bias mode reads grad_output: its channels in cl, space in lsp */
    int64_t osp[3] = {1, 1, 1};
    for (int32_t i = 0; i < ns; i++) osp[i] = oshape[2 + i];
    tcb_init(&tg, dt, TCB_BIAS, g.n, oshape[1], oshape[1], 1, osp, osp, g.k, g.s, g.p, g.d);
    st = conv_bwd_run(c, &tg, ns, go, NULL, go, 1, &oshape[1], &gb);
  }
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, gi);
    c->h->tensor_release(c->h->ctx, gw);
    c->h->tensor_release(c->h->ctx, gb);
    return st;
  }
  outs[0] = gi ? tabi_tensor_value(gi) : tabi_none();
  outs[1] = gw ? tabi_tensor_value(gw) : tabi_none();
  outs[2] = gb ? tabi_tensor_value(gb) : tabi_none();
  return TABI_OK;
}

TC_KTABLE tc_kernel tc_conv_kernels[] = {{"aten::convolution", k_convolution},
                                         {"aten::convolution_backward", k_convolution_backward},
                                         {NULL, NULL}};
