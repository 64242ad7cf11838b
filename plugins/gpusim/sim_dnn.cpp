/* plugins/gpusim/sim_dnn.cpp: the cuDNN stand-in of sim_vendor.h (the legacy
 * convolution API: forward, backward data, backward filter).
 *
 * cuDNN's meaning: 4-D NCHW tensor descriptors with any strides (NHWC is
 * NCHW dims with channels-last strides), filters [K, C/groups, R, S] packed
 * KCRS (CUDNN_TENSOR_NCHW) or KRSC (NHWC), cross-correlation or convolution
 * (flipped filter), groups, y = alpha * op + beta * y with beta == 0 never
 * reading y. float, double, half and bfloat16 data; half types compute in
 * float. The descriptors are checked as cuDNN checks them: mismatched
 * types, channel counts that do not divide into the groups, an output
 * descriptor whose dims are not the convolution's are CUDNN_STATUS_BAD_PARAM.
 *
 * The stand-in's algorithms, so that the glue's choice is tested: the
 * heuristics and Find list them fastest first,
 *   1 "tensor ops": CUDNN_TENSOR_OP_MATH, 1 MiB of workspace; float inputs
 *     are rounded to TF32 first, as tensor cores read them (so a float32
 *     result that used it misses the float32 tolerance); not for double;
 *   2 "atomics": CUDNN_NON_DETERMINISTIC, 4 KiB; each call sums its terms
 *     from a rotating start, so repeated calls differ in the last bits;
 *   0 "direct": FMA math, deterministic, no workspace;
 *   3: CUDNN_STATUS_NOT_SUPPORTED.
 * A call with less workspace than its algorithm's is CUDNN_STATUS_BAD_PARAM.
 * Find...Ex writes NaN over its output buffer, as the real one leaves its
 * trial results there. One handle used by two threads at once is a
 * violation (cuDNN's rule; sim_vendor.h: counted, printed, output NaN). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <vector>

#include "tc_sim.h"
#include <tabi/half.h>

struct sim_dnn {
  std::atomic<int> users{0};
  std::atomic<unsigned> calls{0};
};
struct sim_dnn_tensor {
  int set;
  cudnnDataType_t dt;
  int dims[4], st[4];
};
struct sim_dnn_filter {
  int set;
  cudnnDataType_t dt;
  cudnnTensorFormat_t fmt;
  int dims[4];
};
struct sim_dnn_conv {
  int set, groups;
  int pad[2], str[2], dil[2];
  cudnnConvolutionMode_t mode;
  cudnnDataType_t comp;
  cudnnMathType_t math;
};

namespace {

enum { ALGO_DIRECT = 0, ALGO_TENSOR = 1, ALGO_ATOMIC = 2, ALGO_NONE = 3, N_ALGOS = 4 };
const size_t algo_mem[N_ALGOS] = {0, (size_t)1 << 20, 4096, 0};

/* The handle's use by one call; a second thread inside it is a violation. */
struct use {
  cudnnHandle_t h;
  bool clash;
  explicit use(cudnnHandle_t hd) : h(hd), clash(hd && hd->users.fetch_add(1) != 0) {
    if (clash) tc_sim_vendor_violation(SIM_DNN_NAME " handle %p used by two threads at once", (void *)hd);
  }
  ~use() {
    if (h) h->users.fetch_sub(1);
  }
};

double ld(const void *p, cudnnDataType_t t, long long i) {
  switch (t) {
    case CUDNN_DATA_HALF: return tabi_f16_to_f32(((const uint16_t *)p)[i]);
    case CUDNN_DATA_BFLOAT16: return tabi_bf16_to_f32(((const uint16_t *)p)[i]);
    case CUDNN_DATA_FLOAT: return ((const float *)p)[i];
    default: return ((const double *)p)[i];
  }
}
void st(void *p, cudnnDataType_t t, long long i, double v) {
  switch (t) {
    case CUDNN_DATA_HALF: ((uint16_t *)p)[i] = tabi_f32_to_f16((float)v); break;
    case CUDNN_DATA_BFLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_bf16((float)v); break;
    case CUDNN_DATA_FLOAT: ((float *)p)[i] = (float)v; break;
    default: ((double *)p)[i] = v; break;
  }
}

/* One convolution's geometry, checked: x [N, C, H, W], w [K, C/g, R, S],
 * y [N, K, P, Q]. */
struct geom {
  const sim_dnn_tensor *x, *y;
  const sim_dnn_filter *w;
  const sim_dnn_conv *c;
  int n, ch, h, wd, k, cg, kg, r, s, p, q;
  long long woff(int kk, int cc, int rr, int ss) const {
    return w->fmt == CUDNN_TENSOR_NCHW ? (((long long)kk * cg + cc) * r + rr) * s + ss
                                       : (((long long)kk * r + rr) * s + ss) * cg + cc;
  }
  long long xoff(int nn, int cc, int hh, int ww) const {
    return (long long)nn * x->st[0] + (long long)cc * x->st[1] + (long long)hh * x->st[2] + (long long)ww * x->st[3];
  }
  long long yoff(int nn, int kk, int pp, int qq) const {
    return (long long)nn * y->st[0] + (long long)kk * y->st[1] + (long long)pp * y->st[2] + (long long)qq * y->st[3];
  }
};

cudnnStatus_t make_geom(geom *g, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t c,
                        cudnnTensorDescriptor_t y) {
  if (!x || !w || !c || !y || !x->set || !w->set || !c->set || !y->set) return CUDNN_STATUS_BAD_PARAM;
  if (x->dt != w->dt || x->dt != y->dt) return CUDNN_STATUS_BAD_PARAM;
  if (x->dt == CUDNN_DATA_DOUBLE ? c->comp != CUDNN_DATA_DOUBLE : c->comp != CUDNN_DATA_FLOAT)
    return CUDNN_STATUS_NOT_SUPPORTED;
  *g = geom{x, y, w, c, x->dims[0], x->dims[1], x->dims[2], x->dims[3], w->dims[0], w->dims[1], 0,
            w->dims[2], w->dims[3], 0, 0};
  if (g->ch != g->cg * c->groups || g->k % c->groups) return CUDNN_STATUS_BAD_PARAM;
  g->kg = g->k / c->groups;
  long long ph = ((long long)g->h + 2 * c->pad[0] - (long long)c->dil[0] * (g->r - 1) - 1) / c->str[0] + 1;
  long long pw = ((long long)g->wd + 2 * c->pad[1] - (long long)c->dil[1] * (g->s - 1) - 1) / c->str[1] + 1;
  if (ph < 1 || pw < 1 || y->dims[0] != g->n || y->dims[1] != g->k || y->dims[2] != ph || y->dims[3] != pw)
    return CUDNN_STATUS_BAD_PARAM;
  g->p = (int)ph;
  g->q = (int)pw;
  return CUDNN_STATUS_SUCCESS;
}

/* The filter tap (rr, ss) as the mode reads it: convolution flips it. */
int tap(const geom &g, int rr, int len) { return g.c->mode == CUDNN_CONVOLUTION ? len - 1 - rr : rr; }

enum op_kind { FWD, BWD_DATA, BWD_FILTER };

/* Every output element of `op`: a list of products summed in the compute
 * type (float, or double for double data) from the algorithm's start. */
template <typename T>
void run(const geom &g, op_kind op, int algo, unsigned salt, const void *a, const void *b, void *o, double alpha,
         double beta) {
  const cudnnDataType_t t = g.x->dt;
  const bool tf = algo == ALGO_TENSOR && t == CUDNN_DATA_FLOAT;
  auto rd = [&](const void *p, long long i) { return (T)(tf ? tc_sim_tf32(ld(p, t, i)) : ld(p, t, i)); };
  long long outs = op == FWD ? (long long)g.n * g.k * g.p * g.q
                   : op == BWD_DATA ? (long long)g.n * g.ch * g.h * g.wd
                                    : (long long)g.k * g.cg * g.r * g.s;
  std::vector<T> prod; /* the products of one element, in order (reused) */
  auto add = [&](T v) { prod.push_back(v); };
  for (long long e = 0; e < outs; e++) {
    prod.clear();
    long long oi;
    if (op == FWD) { /* a = x, b = w, o = y */
      int qq = (int)(e % g.q), pp = (int)(e / g.q % g.p), kk = (int)(e / ((long long)g.q * g.p) % g.k),
          nn = (int)(e / ((long long)g.q * g.p * g.k));
      int grp = kk / g.kg;
      for (int cc = 0; cc < g.cg; cc++)
        for (int rr = 0; rr < g.r; rr++)
          for (int ss = 0; ss < g.s; ss++) {
            long long hh = (long long)pp * g.c->str[0] - g.c->pad[0] + (long long)rr * g.c->dil[0];
            long long ww = (long long)qq * g.c->str[1] - g.c->pad[1] + (long long)ss * g.c->dil[1];
            if (hh < 0 || hh >= g.h || ww < 0 || ww >= g.wd) continue;
            add(rd(a, g.xoff(nn, grp * g.cg + cc, (int)hh, (int)ww)) *
                rd(b, g.woff(kk, cc, tap(g, rr, g.r), tap(g, ss, g.s))));
          }
      oi = g.yoff(nn, kk, pp, qq);
    } else if (op == BWD_DATA) { /* a = w, b = dy, o = dx */
      int ww = (int)(e % g.wd), hh = (int)(e / g.wd % g.h), ci = (int)(e / ((long long)g.wd * g.h) % g.ch),
          nn = (int)(e / ((long long)g.wd * g.h * g.ch));
      int grp = ci / g.cg, cc = ci % g.cg;
      for (int kk = grp * g.kg; kk < (grp + 1) * g.kg; kk++)
        for (int rr = 0; rr < g.r; rr++)
          for (int ss = 0; ss < g.s; ss++) {
            long long ph = (long long)hh + g.c->pad[0] - (long long)rr * g.c->dil[0];
            long long pw = (long long)ww + g.c->pad[1] - (long long)ss * g.c->dil[1];
            if (ph < 0 || pw < 0 || ph % g.c->str[0] || pw % g.c->str[1]) continue;
            ph /= g.c->str[0];
            pw /= g.c->str[1];
            if (ph >= g.p || pw >= g.q) continue;
            add(rd(a, g.woff(kk, cc, tap(g, rr, g.r), tap(g, ss, g.s))) * rd(b, g.yoff(nn, kk, (int)ph, (int)pw)));
          }
      oi = g.xoff(nn, ci, hh, ww);
    } else { /* a = x, b = dy, o = dw */
      int ss = (int)(e % g.s), rr = (int)(e / g.s % g.r), cc = (int)(e / ((long long)g.s * g.r) % g.cg),
          kk = (int)(e / ((long long)g.s * g.r * g.cg));
      int grp = kk / g.kg, fr = tap(g, rr, g.r), fs = tap(g, ss, g.s);
      for (int nn = 0; nn < g.n; nn++)
        for (int pp = 0; pp < g.p; pp++)
          for (int qq = 0; qq < g.q; qq++) {
            long long hh = (long long)pp * g.c->str[0] - g.c->pad[0] + (long long)fr * g.c->dil[0];
            long long ww = (long long)qq * g.c->str[1] - g.c->pad[1] + (long long)fs * g.c->dil[1];
            if (hh < 0 || hh >= g.h || ww < 0 || ww >= g.wd) continue;
            add(rd(a, g.xoff(nn, grp * g.cg + cc, (int)hh, (int)ww)) * rd(b, g.yoff(nn, kk, pp, qq)));
          }
      oi = g.woff(kk, cc, rr, ss);
    }
    size_t np = prod.size(), start = algo == ALGO_ATOMIC && np ? (size_t)((salt + (unsigned)e) % np) : 0;
    T sum = 0;
    for (size_t i = 0; i < np; i++) sum += prod[(start + i) % np];
    double v = alpha * (double)sum;
    if (beta != 0) v += beta * ld(o, t, oi);
    st(o, t, oi, v);
  }
}

/* Elements an output of op spans in memory (for the NaN fills). */
void fill_nan(const geom &g, op_kind op, void *o) {
  if (op == BWD_FILTER) {
    for (long long i = 0; i < (long long)g.k * g.cg * g.r * g.s; i++) st(o, g.x->dt, i, NAN);
    return;
  }
  int nn = g.n, cc = op == FWD ? g.k : g.ch, hh = op == FWD ? g.p : g.h, ww = op == FWD ? g.q : g.wd;
  for (int a = 0; a < nn; a++)
    for (int b = 0; b < cc; b++)
      for (int c = 0; c < hh; c++)
        for (int d = 0; d < ww; d++) st(o, g.x->dt, op == FWD ? g.yoff(a, b, c, d) : g.xoff(a, b, c, d), NAN);
}

cudnnStatus_t conv(cudnnHandle_t h, op_kind op, int algo, const void *alpha, const void *beta, const geom &g,
                   const void *a, const void *b, void *o, void *ws, size_t ws_bytes) {
  use u(h);
  if (!h) return CUDNN_STATUS_NOT_INITIALIZED;
  if (!alpha || !beta || !a || !b || !o || algo < 0 || algo >= N_ALGOS) return CUDNN_STATUS_BAD_PARAM;
  if (tc_sim_vendor_fault("dnn") || algo == ALGO_NONE || (algo == ALGO_TENSOR && g.x->dt == CUDNN_DATA_DOUBLE))
    return CUDNN_STATUS_NOT_SUPPORTED;
  if (ws_bytes < algo_mem[algo] || (algo_mem[algo] && !ws)) return CUDNN_STATUS_BAD_PARAM;
  if (u.clash) {
    fill_nan(g, op, o);
    return CUDNN_STATUS_SUCCESS;
  }
  if (tc_sim_vendor_inside_hook) tc_sim_vendor_inside_hook();
  bool dbl = g.x->dt == CUDNN_DATA_DOUBLE;
  double al = dbl ? *(const double *)alpha : *(const float *)alpha;
  if (tc_sim_vendor_fault("dnn-wrong")) al = -al; /* a wrong result, to show the call is reached */
  double be = dbl ? *(const double *)beta : *(const float *)beta;
  unsigned salt = h->calls.fetch_add(1) * 7919u;
  if (dbl) run<double>(g, op, algo, salt, a, b, o, al, be);
  else run<float>(g, op, algo, salt, a, b, o, al, be);
  return CUDNN_STATUS_SUCCESS;
}

/* The algorithm list, fastest first (as the heuristics and Find give it). */
template <typename P>
cudnnStatus_t list(cudnnHandle_t h, const geom &g, int want, int *n, P *perf) {
  if (!h) return CUDNN_STATUS_NOT_INITIALIZED;
  if (!n || !perf || want < 1) return CUDNN_STATUS_BAD_PARAM;
  const int order[N_ALGOS] = {ALGO_TENSOR, ALGO_ATOMIC, ALGO_DIRECT, ALGO_NONE};
  const float time[N_ALGOS] = {3.0f, 1.0f, 2.0f, -1.0f};
  *n = 0;
  for (int i = 0; i < N_ALGOS && *n < want; i++) {
    int a = order[i];
    P p;
    memset(&p, 0, sizeof p);
    p.algo = a;
    p.status = a == ALGO_NONE || (a == ALGO_TENSOR && g.x->dt == CUDNN_DATA_DOUBLE) ? CUDNN_STATUS_NOT_SUPPORTED
                                                                                    : CUDNN_STATUS_SUCCESS;
    p.time = time[a];
    p.memory = algo_mem[a];
    p.determinism = a == ALGO_ATOMIC ? CUDNN_NON_DETERMINISTIC : CUDNN_DETERMINISTIC;
    p.mathType = a == ALGO_TENSOR ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH;
    perf[(*n)++] = p;
  }
  return CUDNN_STATUS_SUCCESS;
}

/* Find...Ex: the list, after trial runs that leave NaN in the output. */
template <typename P>
cudnnStatus_t find(cudnnHandle_t h, const geom &g, op_kind op, void *o, int want, int *n, P *perf, void *ws,
                   size_t ws_bytes) {
  {
    use u(h);
    if (!h) return CUDNN_STATUS_NOT_INITIALIZED;
    if (!o || (ws_bytes && !ws)) return CUDNN_STATUS_BAD_PARAM;
    fill_nan(g, op, o);
  }
  cudnnStatus_t r = list(h, g, want, n, perf);
  for (int i = 0; r == CUDNN_STATUS_SUCCESS && i < *n; i++) /* what did not fit the workspace given */
    if (perf[i].memory > ws_bytes) perf[i].status = CUDNN_STATUS_ALLOC_FAILED;
  return r;
}

} // namespace

extern "C" {

cudnnStatus_t cudnnCreate(cudnnHandle_t *out) {
  if (!out) return CUDNN_STATUS_BAD_PARAM;
  *out = new sim_dnn();
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnDestroy(cudnnHandle_t h) {
  if (!h) return CUDNN_STATUS_BAD_PARAM;
  if (h->users.load()) tc_sim_vendor_violation(SIM_DNN_NAME " handle %p destroyed while in use", (void *)h);
  delete h;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetStream(cudnnHandle_t h, cudaStream_t) {
  use u(h);
  return h ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_NOT_INITIALIZED;
}

#define SIM_DNN_LIFECYCLE(Name, type)                                        \
  cudnnStatus_t cudnnCreate##Name##Descriptor(type *out) {                   \
    if (!out) return CUDNN_STATUS_BAD_PARAM;                                 \
    *out = (type)calloc(1, sizeof **out);                                    \
    return *out ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_ALLOC_FAILED;          \
  }                                                                          \
  cudnnStatus_t cudnnDestroy##Name##Descriptor(type d) {                     \
    free(d);                                                                 \
    return CUDNN_STATUS_SUCCESS;                                             \
  }
SIM_DNN_LIFECYCLE(Tensor, cudnnTensorDescriptor_t)
SIM_DNN_LIFECYCLE(Filter, cudnnFilterDescriptor_t)
SIM_DNN_LIFECYCLE(Convolution, cudnnConvolutionDescriptor_t)
#undef SIM_DNN_LIFECYCLE

static bool known_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t d, cudnnDataType_t dt, int nd, const int *dims,
                                         const int *strides) {
  if (!d || !dims || !strides || !known_type(dt)) return CUDNN_STATUS_BAD_PARAM;
  if (nd != 4) return CUDNN_STATUS_NOT_SUPPORTED; /* the stand-in's 2-D convolutions */
  for (int i = 0; i < 4; i++)
    if (dims[i] < 1 || strides[i] < 1) return CUDNN_STATUS_BAD_PARAM;
  d->dt = dt;
  memcpy(d->dims, dims, sizeof d->dims);
  memcpy(d->st, strides, sizeof d->st);
  d->set = 1;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t d, cudnnDataType_t dt, cudnnTensorFormat_t fmt,
                                         int nd, const int *dims) {
  if (!d || !dims || !known_type(dt) || (fmt != CUDNN_TENSOR_NCHW && fmt != CUDNN_TENSOR_NHWC))
    return CUDNN_STATUS_BAD_PARAM;
  if (nd != 4) return CUDNN_STATUS_NOT_SUPPORTED;
  for (int i = 0; i < 4; i++)
    if (dims[i] < 1) return CUDNN_STATUS_BAD_PARAM;
  d->dt = dt;
  d->fmt = fmt;
  memcpy(d->dims, dims, sizeof d->dims);
  d->set = 1;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t d, int n, const int *pad,
                                              const int *stride, const int *dil, cudnnConvolutionMode_t mode,
                                              cudnnDataType_t compute) {
  if (!d || !pad || !stride || !dil || !known_type(compute) ||
      (mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION))
    return CUDNN_STATUS_BAD_PARAM;
  if (n != 2) return CUDNN_STATUS_NOT_SUPPORTED;
  for (int i = 0; i < 2; i++)
    if (pad[i] < 0 || stride[i] < 1 || dil[i] < 1) return CUDNN_STATUS_BAD_PARAM;
  memcpy(d->pad, pad, sizeof d->pad);
  memcpy(d->str, stride, sizeof d->str);
  memcpy(d->dil, dil, sizeof d->dil);
  d->mode = mode;
  d->comp = compute;
  if (!d->groups) d->groups = 1;
  d->set = 1;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t d, int groups) {
  if (!d || groups < 1) return CUDNN_STATUS_BAD_PARAM;
  d->groups = groups;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t d, cudnnMathType_t m) {
  if (!d || m < CUDNN_DEFAULT_MATH || m > CUDNN_FMA_MATH) return CUDNN_STATUS_BAD_PARAM;
  d->math = m;
  return CUDNN_STATUS_SUCCESS;
}

/* Each entry point: its geometry (x, w, conv, y; for backward data the
 * input's descriptor is dx, for backward filter the weight's is dw), then
 * the list, the search, or the run. */
#define SIM_GEOM(x, w, cd, y)                             \
  geom g;                                                 \
  cudnnStatus_t gs = make_geom(&g, x, w, cd, y);          \
  if (gs != CUDNN_STATUS_SUCCESS) return gs

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t h, cudnnTensorDescriptor_t x,
                                                     cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t cd,
                                                     cudnnTensorDescriptor_t y, int want, int *n,
                                                     cudnnConvolutionFwdAlgoPerf_t *perf) {
  SIM_GEOM(x, w, cd, y);
  return list(h, g, want, n, perf);
}
cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(cudnnHandle_t h, cudnnTensorDescriptor_t x, const void *,
                                                     cudnnFilterDescriptor_t w, const void *,
                                                     cudnnConvolutionDescriptor_t cd, cudnnTensorDescriptor_t y,
                                                     void *yp, int want, int *n, cudnnConvolutionFwdAlgoPerf_t *perf,
                                                     void *ws, size_t ws_bytes) {
  SIM_GEOM(x, w, cd, y);
  return find(h, g, FWD, yp, want, n, perf, ws, ws_bytes);
}
cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t h, const void *alpha, cudnnTensorDescriptor_t x, const void *xp,
                                      cudnnFilterDescriptor_t w, const void *wp, cudnnConvolutionDescriptor_t cd,
                                      cudnnConvolutionFwdAlgo_t algo, void *ws, size_t ws_bytes, const void *beta,
                                      cudnnTensorDescriptor_t y, void *yp) {
  SIM_GEOM(x, w, cd, y);
  return conv(h, FWD, algo, alpha, beta, g, xp, wp, yp, ws, ws_bytes);
}

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(cudnnHandle_t h, cudnnFilterDescriptor_t w,
                                                          cudnnTensorDescriptor_t dy, cudnnConvolutionDescriptor_t cd,
                                                          cudnnTensorDescriptor_t dx, int want, int *n,
                                                          cudnnConvolutionBwdDataAlgoPerf_t *perf) {
  SIM_GEOM(dx, w, cd, dy);
  return list(h, g, want, n, perf);
}
cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(cudnnHandle_t h, cudnnFilterDescriptor_t w, const void *,
                                                          cudnnTensorDescriptor_t dy, const void *,
                                                          cudnnConvolutionDescriptor_t cd, cudnnTensorDescriptor_t dx,
                                                          void *dxp, int want, int *n,
                                                          cudnnConvolutionBwdDataAlgoPerf_t *perf, void *ws,
                                                          size_t ws_bytes) {
  SIM_GEOM(dx, w, cd, dy);
  return find(h, g, BWD_DATA, dxp, want, n, perf, ws, ws_bytes);
}
cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t h, const void *alpha, cudnnFilterDescriptor_t w,
                                           const void *wp, cudnnTensorDescriptor_t dy, const void *dyp,
                                           cudnnConvolutionDescriptor_t cd, cudnnConvolutionBwdDataAlgo_t algo,
                                           void *ws, size_t ws_bytes, const void *beta, cudnnTensorDescriptor_t dx,
                                           void *dxp) {
  SIM_GEOM(dx, w, cd, dy);
  return conv(h, BWD_DATA, algo, alpha, beta, g, wp, dyp, dxp, ws, ws_bytes);
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(cudnnHandle_t h, cudnnTensorDescriptor_t x,
                                                            cudnnTensorDescriptor_t dy,
                                                            cudnnConvolutionDescriptor_t cd,
                                                            cudnnFilterDescriptor_t dw, int want, int *n,
                                                            cudnnConvolutionBwdFilterAlgoPerf_t *perf) {
  SIM_GEOM(x, dw, cd, dy);
  return list(h, g, want, n, perf);
}
cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(cudnnHandle_t h, cudnnTensorDescriptor_t x,
                                                            const void *, cudnnTensorDescriptor_t dy, const void *,
                                                            cudnnConvolutionDescriptor_t cd,
                                                            cudnnFilterDescriptor_t dw, void *dwp, int want, int *n,
                                                            cudnnConvolutionBwdFilterAlgoPerf_t *perf, void *ws,
                                                            size_t ws_bytes) {
  SIM_GEOM(x, dw, cd, dy);
  return find(h, g, BWD_FILTER, dwp, want, n, perf, ws, ws_bytes);
}
cudnnStatus_t cudnnConvolutionBackwardFilter(cudnnHandle_t h, const void *alpha, cudnnTensorDescriptor_t x,
                                             const void *xp, cudnnTensorDescriptor_t dy, const void *dyp,
                                             cudnnConvolutionDescriptor_t cd, cudnnConvolutionBwdFilterAlgo_t algo,
                                             void *ws, size_t ws_bytes, const void *beta, cudnnFilterDescriptor_t dw,
                                             void *dwp) {
  SIM_GEOM(x, dw, cd, dy);
  return conv(h, BWD_FILTER, algo, alpha, beta, g, xp, dyp, dwp, ws, ws_bytes);
}

} /* extern "C" */
