/* plugins/cuda/tc_conv.cu: aten::convolution.
 *
 * Float 2-D convolutions (not transposed) run on cuDNN 9's legacy API, in the
 * input's layout (NCHW, or NHWC for channels-last input, which then gives a
 * channels-last output as ATen does); float32 uses FMA math (no TF32) so results
 * meet the float32 tolerance; half types accumulate in float32. Deterministic
 * mode picks only algorithms cuDNN reports deterministic. Every other case
 * (integers, 1-D/3-D, transposed, anything cuDNN refuses) runs a direct strided
 * kernel that accumulates in int64 or double, like the reference. The argument
 * checks are the reference's (reference/ref_nn.c conv_setup). */
#include <stdio.h>
#include <stdlib.h>

#include "tc_ew_dev.cuh"
#include "tc_convbwd.cuh"
#ifdef TC_HAVE_CUDNN
#include <cudnn.h>
#endif

extern "C" const char *ref_shape_str(char *buf, int64_t cap, int32_t ndim, const int64_t *shape);

typedef struct conv_geom {
  int64_t n, cl, ch, groups;
  int64_t lsp[3], hsp[3], k[3];
  int64_t s[3], p[3], d[3];
} conv_geom;

static tabi_status conv_list(tc_ctx *c, const char *op, const tabi_value *v, const char *name,
                             int32_t ns, int64_t lo, int64_t *out) {
  int64_t len = v->tag == TABI_TAG_NONE ? 0 : v->u.list.len;
  const int64_t *x = tabi_value_ints(v);
  if (len != 1 && len != ns)
    return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: argument '%s' has %lld values; expected 1 or %d "
                  "(one per spatial dim)", op, name, (long long)len, (int)ns);
  for (int32_t i = 0; i < 3; i++) {
    out[i] = i < ns ? x[len == 1 ? 0 : i] : (lo > 0 ? 1 : 0);
    if (i < ns && out[i] < lo)
      return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: argument '%s' has value %lld; expected >= %lld",
                    op, name, (long long)out[i], (long long)lo);
  }
  return TABI_OK;
}

static tabi_status conv_setup(tc_ctx *c, const char *op, const tabi_tensor *in, const tabi_tensor *w,
                              const tabi_value *a, conv_geom *g, int32_t *out_ns, int64_t *out_shape,
                              int *out_transposed) {
  int32_t nd = w->dl.ndim, ns = nd - 2;
  tabi_dtype dt = tabi_tensor_dtype(in);
  if (!tabi_dtype_is_floating(dt) && !tabi_dtype_is_integral(dt, 0))
    return TC_ERR(c, TABI_ERR_TYPE, "%s: argument 'input' has dtype %s; expected one of: uint8, int8, "
                  "int16, int32, int64, float16, bfloat16, float32, float64", op, tabi_dtype_name(dt));
  if (tabi_tensor_dtype(w) != dt)
    return TC_ERR(c, TABI_ERR_TYPE, "%s: argument 'weight' has dtype %s; expected %s (the input's)", op,
                  tabi_dtype_name(tabi_tensor_dtype(w)), tabi_dtype_name(dt));
  if (nd < 3 || nd > 5)
    return TC_ERR(c, TABI_ERR_SHAPE, "%s: argument 'weight' must be 3-D, 4-D or 5-D, got %dD", op, (int)nd);
  char b1[96], b2[96]; /* the messages are the reference's (reference/ref_nn.c conv_setup) */
  if (in->dl.ndim != nd)
    return TC_ERR(c, TABI_ERR_SHAPE, "%s: expected %d-dimensional input for %d-dimensional weight %s, but "
                  "got %d-dimensional input of size %s", op, (int)nd, (int)nd,
                  ref_shape_str(b1, sizeof b1, nd, w->dl.shape), (int)in->dl.ndim,
                  ref_shape_str(b2, sizeof b2, in->dl.ndim, in->dl.shape));
  int transposed = a[3].u.i != 0;
  int64_t groups = a[5].u.i, opad[3];
  memset(g, 0, sizeof *g);
  tabi_status st;
  if ((st = conv_list(c, op, &a[0], "stride", ns, 1, g->s)) ||
      (st = conv_list(c, op, &a[1], "padding", ns, 0, g->p)) ||
      (st = conv_list(c, op, &a[2], "dilation", ns, 1, g->d)) ||
      (st = conv_list(c, op, &a[4], "output_padding", ns, 0, opad)))
    return st;
  if (groups < 1)
    return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'groups' is %lld; expected >= 1", op,
                  (long long)groups);
  int64_t cin = in->dl.shape[1];
  int64_t cin_w = transposed ? w->dl.shape[0] : w->dl.shape[1] * groups;
  int64_t cout = transposed ? w->dl.shape[1] * groups : w->dl.shape[0];
  if (cin != cin_w || w->dl.shape[0] % groups != 0)
    return TC_ERR(c, TABI_ERR_SHAPE, "%s: given groups=%lld and transposed=%d, weight of size %s expects "
                  "input %s to have %lld channels (and weight's dim 0 divisible by groups)", op,
                  (long long)groups, transposed, ref_shape_str(b1, sizeof b1, nd, w->dl.shape),
                  ref_shape_str(b2, sizeof b2, in->dl.ndim, in->dl.shape), (long long)cin_w);
  g->n = in->dl.shape[0];
  g->groups = groups;
  g->cl = transposed ? cin : cout;
  g->ch = transposed ? cout : cin;
  out_shape[0] = g->n;
  out_shape[1] = cout;
  for (int32_t i = 0; i < 3; i++) {
    g->k[i] = i < ns ? w->dl.shape[2 + i] : 1;
    if (i >= ns) {
      g->lsp[i] = g->hsp[i] = 1;
      continue;
    }
    int64_t isz = in->dl.shape[2 + i], span = g->d[i] * (g->k[i] - 1) + 1;
    if (transposed) {
      if (opad[i] >= g->s[i] && opad[i] >= g->d[i])
        return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: output_padding (%lld) must be smaller than "
                      "either stride (%lld) or dilation (%lld)", op, (long long)opad[i],
                      (long long)g->s[i], (long long)g->d[i]);
      int64_t osz = (isz - 1) * g->s[i] - 2 * g->p[i] + span + opad[i];
      if (osz < 0 || (osz == 0 && isz > 0))
        return TC_ERR(c, TABI_ERR_SHAPE, "%s: the computed output size %lld of spatial dim %d is too "
                      "small", op, (long long)osz, (int)i);
      g->lsp[i] = isz;
      g->hsp[i] = osz;
      out_shape[2 + i] = osz;
    } else {
      if (isz + 2 * g->p[i] < span)
        return TC_ERR(c, TABI_ERR_SHAPE, "%s: padded input size %lld of spatial dim %d is smaller than "
                      "the (dilated) kernel size %lld", op, (long long)(isz + 2 * g->p[i]), (int)i,
                      (long long)span);
      int64_t osz = (isz + 2 * g->p[i] - span) / g->s[i] + 1;
      g->hsp[i] = isz;
      g->lsp[i] = osz;
      out_shape[2 + i] = osz;
    }
  }
  *out_ns = ns;
  *out_transposed = transposed;
  return TABI_OK;
}

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

/* The chosen algorithm per configuration key; a small table in the ctx. */
#define ALGO_CACHE 64
typedef struct bwd_algo { /* a backward-data or backward-filter choice */
  int algo, math;
  size_t mem;
} bwd_algo;
typedef struct algo_cache {
  char key[ALGO_CACHE][256]; /* backward keys start with "D|" / "F|", forward ones with a digit */
  cudnnConvolutionFwdAlgoPerf_t perf[ALGO_CACHE];
  bwd_algo bperf[ALGO_CACHE];
  int n, next;
} algo_cache;

static int algo_lookup(tc_ctx *c, const char *key, cudnnConvolutionFwdAlgoPerf_t *out, bwd_algo *bout = NULL) {
  int hit = 0;
  pthread_mutex_lock(&c->mu);
  algo_cache *ac = (algo_cache *)c->conv_algos;
  for (int i = 0; ac && i < ac->n && !hit; i++)
    if (strcmp(ac->key[i], key) == 0) {
      if (out) *out = ac->perf[i];
      if (bout) *bout = ac->bperf[i];
      hit = 1;
    }
  pthread_mutex_unlock(&c->mu);
  return hit;
}

static void algo_store(tc_ctx *c, const char *key, const cudnnConvolutionFwdAlgoPerf_t *p,
                       const bwd_algo *bp = NULL) {
  pthread_mutex_lock(&c->mu);
  if (!c->conv_algos) c->conv_algos = calloc(1, sizeof(algo_cache));
  algo_cache *ac = (algo_cache *)c->conv_algos;
  if (ac) {
    int i = ac->n < ALGO_CACHE ? ac->n++ : ac->next;
    if (ac->n == ALGO_CACHE) ac->next = (ac->next + 1) % ALGO_CACHE;
    snprintf(ac->key[i], sizeof ac->key[i], "%s", key);
    if (p) ac->perf[i] = *p;
    if (bp) ac->bperf[i] = *bp;
  }
  pthread_mutex_unlock(&c->mu);
}

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
  cudnnDataType_t ddt = dt == TABI_DTYPE_FLOAT16 ? CUDNN_DATA_HALF
                        : dt == TABI_DTYPE_BFLOAT16 ? CUDNN_DATA_BFLOAT16
                        : dt == TABI_DTYPE_FLOAT32 ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
  cudnnDataType_t cdt = dt == TABI_DTYPE_FLOAT64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  cudnnHandle_t hd = (cudnnHandle_t)tc_cudnn(c, in->dl.device.device_id, op);
  if (!hd) return TABI_ERR_DEVICE;
  cudnnSetStream(hd, 0);
  cudnnTensorDescriptor_t xd = NULL, yd = NULL;
  cudnnFilterDescriptor_t wd = NULL;
  cudnnConvolutionDescriptor_t cd = NULL;
  tabi_status st = TABI_ERR_UNIMPLEMENTED;
  int ok = cudnnCreateTensorDescriptor(&xd) == 0 && cudnnCreateTensorDescriptor(&yd) == 0 &&
           cudnnCreateFilterDescriptor(&wd) == 0 && cudnnCreateConvolutionDescriptor(&cd) == 0;
  int xs[4], xst[4], ys[4], yst[4];
  for (int i = 0; i < 4; i++) {
    xs[i] = (int)in->dl.shape[i];
    xst[i] = (int)in->dl.strides[i];
    ys[i] = (int)out->dl.shape[i];
    yst[i] = (int)out->dl.strides[i];
  }
  int pad[2] = {(int)g->p[0], (int)g->p[1]}, str[2] = {(int)g->s[0], (int)g->s[1]},
      dil[2] = {(int)g->d[0], (int)g->d[1]};
  int ws[4] = {(int)w->dl.shape[0], (int)w->dl.shape[1], (int)w->dl.shape[2], (int)w->dl.shape[3]};
  ok = ok && cudnnSetTensorNdDescriptor(xd, ddt, 4, xs, xst) == 0 &&
       cudnnSetTensorNdDescriptor(yd, ddt, 4, ys, yst) == 0 &&
       cudnnSetFilterNdDescriptor(wd, ddt, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, 4, ws) == 0 &&
       cudnnSetConvolutionNdDescriptor(cd, 2, pad, str, dil, CUDNN_CROSS_CORRELATION, cdt) == 0 &&
       cudnnSetConvolutionGroupCount(cd, (int)g->groups) == 0 &&
       cudnnSetConvolutionMathType(cd, dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_FLOAT64
                                           ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH) == 0;
  if (ok) {
    cudnnConvolutionFwdAlgoPerf_t perf[16];
    int n = 0;
    int det = c->h->deterministic(c->h->ctx);
    /* Measured choice (cudnnFind...) once per configuration, then cached: the
     * heuristics' first pick can be several times slower (NHWC half). */
    char key[256];
    snprintf(key, sizeof key, "%d|%d %d %d %d|%d %d %d %d|%d %d %d %d|%d %d %d %d %d %d %d|%d", (int)dt,
             xs[0], xs[1], xs[2], xs[3], xst[0], xst[1], xst[2], xst[3], ws[0], ws[1], ws[2], ws[3],
             pad[0], pad[1], str[0], str[1], dil[0], dil[1], (int)g->groups, nhwc * 2 + det);
    int cached = algo_lookup(c, key, &perf[0]);
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
        if (det && perf[i].determinism != CUDNN_DETERMINISTIC) continue;
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
          if (!cached) algo_store(c, key, &perf[i]);
        }
      }
    }
  }
  if (xd) cudnnDestroyTensorDescriptor(xd);
  if (yd) cudnnDestroyTensorDescriptor(yd);
  if (wd) cudnnDestroyFilterDescriptor(wd);
  if (cd) cudnnDestroyConvolutionDescriptor(cd);
  return st;
}

/* cuDNN backward for float32/float16/bfloat16 2-D NCHW-contiguous operands:
 * which 0 = data (res = grad_input from grad_output and weight), 1 = filter
 * (res = grad_weight from input and grad_output). The forward's rules: FMA math
 * for float32 (no TF32), tensor ops for the half types (float32 accumulation),
 * deterministic algorithms only in deterministic mode, the measured choice
 * (cudnnFind...Ex) cached per configuration. TABI_ERR_UNIMPLEMENTED (no
 * message) when cuDNN cannot, so the caller runs the direct kernel. */
static tabi_status conv_cudnn_bwd(tc_ctx *c, const char *op, int which, const tabi_tensor *go,
                                  const tabi_tensor *in, const tabi_tensor *w, const conv_geom *g,
                                  tabi_tensor *res) {
  tabi_dtype dt = tabi_tensor_dtype(in);
  cudnnDataType_t ddt = dt == TABI_DTYPE_FLOAT16 ? CUDNN_DATA_HALF
                        : dt == TABI_DTYPE_BFLOAT16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
  cudnnHandle_t hd = (cudnnHandle_t)tc_cudnn(c, in->dl.device.device_id, op);
  if (!hd) return TABI_ERR_DEVICE;
  cudnnSetStream(hd, 0);
  cudnnTensorDescriptor_t xd = NULL, yd = NULL;
  cudnnFilterDescriptor_t wd = NULL;
  cudnnConvolutionDescriptor_t cd = NULL;
  tabi_status st = TABI_ERR_UNIMPLEMENTED;
  int ok = cudnnCreateTensorDescriptor(&xd) == 0 && cudnnCreateTensorDescriptor(&yd) == 0 &&
           cudnnCreateFilterDescriptor(&wd) == 0 && cudnnCreateConvolutionDescriptor(&cd) == 0;
  int xs[4], xst[4], ys[4], yst[4], ws[4];
  for (int i = 0; i < 4; i++) {
    xs[i] = (int)in->dl.shape[i];
    xst[i] = (int)in->dl.strides[i];
    ys[i] = (int)go->dl.shape[i];
    yst[i] = (int)go->dl.strides[i];
    ws[i] = (int)w->dl.shape[i];
  }
  int pad[2] = {(int)g->p[0], (int)g->p[1]}, str[2] = {(int)g->s[0], (int)g->s[1]},
      dil[2] = {(int)g->d[0], (int)g->d[1]};
  int f32 = dt == TABI_DTYPE_FLOAT32;
  ok = ok && cudnnSetTensorNdDescriptor(xd, ddt, 4, xs, xst) == 0 &&
       cudnnSetTensorNdDescriptor(yd, ddt, 4, ys, yst) == 0 &&
       cudnnSetFilterNdDescriptor(wd, ddt, CUDNN_TENSOR_NCHW, 4, ws) == 0 &&
       cudnnSetConvolutionNdDescriptor(cd, 2, pad, str, dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT) == 0 &&
       cudnnSetConvolutionGroupCount(cd, (int)g->groups) == 0 &&
       cudnnSetConvolutionMathType(cd, f32 ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH) == 0;
  if (ok) {
    int det = c->h->deterministic(c->h->ctx);
    char key[256];
    snprintf(key, sizeof key, "%c|%d|%d %d %d %d|%d %d %d %d|%d %d %d %d|%d %d %d %d %d %d %d|%d", which ? 'F' : 'D',
             (int)dt, xs[0], xs[1], xs[2], xs[3], ys[0], ys[1], ys[2], ys[3], ws[0], ws[1], ws[2], ws[3], pad[0],
             pad[1], str[0], str[1], dil[0], dil[1], (int)g->groups, det);
    bwd_algo cand[16];
    int nc = 0, cached = algo_lookup(c, key, NULL, &cand[0]);
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
        if (det && pd != CUDNN_DETERMINISTIC) continue;
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
        if (!cached) algo_store(c, key, NULL, &cand[i]);
      }
    }
  }
  if (xd) cudnnDestroyTensorDescriptor(xd);
  if (yd) cudnnDestroyTensorDescriptor(yd);
  if (wd) cudnnDestroyFilterDescriptor(wd);
  if (cd) cudnnDestroyConvolutionDescriptor(cd);
  return st;
}
#else
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
  tabi_status st = conv_setup(c, OPN, in, w, &args[3], &g, &ns, oshape, &transposed);
  if (st) return st;
  tabi_dtype dt = tabi_tensor_dtype(in);
  if (bias) {
    if (tabi_tensor_dtype(bias) != dt)
      return TC_ERR(c, TABI_ERR_TYPE, "%s: argument 'bias' has dtype %s; expected %s (the input's)", OPN,
                    tabi_dtype_name(tabi_tensor_dtype(bias)), tabi_dtype_name(dt));
    if (bias->dl.ndim != 1 || bias->dl.shape[0] != oshape[1])
      return TC_ERR(c, TABI_ERR_SHAPE, "%s: argument 'bias' must be 1-D with %lld elements (the output "
                    "channels)", OPN, (long long)oshape[1]);
  }
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
  if (!done && ns == 2 && !transposed && tabi_dtype_is_floating(dt) && tabi_tensor_numel(in) > 0 &&
      g.k[0] > 0 && g.k[1] > 0 && !(half && work < 16777216.0)) {
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
    conv_direct<<<(int)(gr > 65536 ? 65536 : gr), 128>>>(a);
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
  conv_bwd_direct<<<(int)(gr > 65536 ? 65536 : gr), 128>>>(*g, (const char *)tabi_tensor_data(x),
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
      ngo > INT32_MAX || nin > INT32_MAX || (half && work < 16777216.0))
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
 * the reference's checks (conv_setup on input/weight, then grad_output's dtype
 * and shape) and its sums, element by element (tc_convbwd.cuh). */
static tabi_status k_convolution_backward(TC_ARGS) {
  TC_CTX;
  tabi_tensor *go = args[0].u.t, *in = args[1].u.t, *w = args[2].u.t;
  const int64_t *mask = tabi_value_ints(&args[10]);
  conv_geom g;
  int32_t ns = 0;
  int transposed = 0;
  int64_t oshape[5];
  tabi_status st = conv_setup(c, OPN, in, w, &args[4], &g, &ns, oshape, &transposed);
  if (st) return st;
  tabi_dtype dt = tabi_tensor_dtype(in);
  if (tabi_tensor_dtype(go) != dt)
    return TC_ERR(c, TABI_ERR_TYPE, "%s: argument 'grad_output' has dtype %s; expected %s (the input's)", OPN,
                  tabi_dtype_name(tabi_tensor_dtype(go)), tabi_dtype_name(dt));
  int32_t nd = ns + 2;
  int bad = go->dl.ndim != nd;
  for (int32_t i = 0; !bad && i < nd; i++) bad = go->dl.shape[i] != oshape[i];
  char b1[96], b2[96];
  if (bad)
    return TC_ERR(c, TABI_ERR_SHAPE, "%s: argument 'grad_output' has shape %s; expected %s (the output's)", OPN,
                  ref_shape_str(b1, sizeof b1, go->dl.ndim, go->dl.shape), ref_shape_str(b2, sizeof b2, nd, oshape));
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
