/* plugins/cuda/tc_bn.cuh: the per-phase work of the three batch-norm forms
 * (_native_batch_norm_legit, .no_stats, _no_training), for tc_bn.cu.
 *
 * Every function is `__host__ __device__` (plain `static inline` as ordinary
 * C++), as tc_norm.cuh: tests/cuda/test_cuda_bn_host.cpp runs them on the host
 * against the reference plugin (reference/ref_nn5.c).
 *
 * Training statistics: one thread block per channel c, T threads. Its n = N*S
 * elements are the k in [0, n) at linear index (k/S*C + c)*S + k%S of the
 * contiguous input; thread t sums k = t, t+T, t+2T, ... in that order in
 * double (tcb_sum_part, walking with tcb_walk: neighbouring threads read
 * neighbouring elements, so the loads coalesce), then a fixed tree in shared memory folds the T
 * partials (tcb_tree_top / tcb_tree_step, one __syncthreads() per level):
 * the order depends only on T (tc_bn.cu fixes it), never on scheduling, so
 * the result is deterministic without atomics. mean = sum/n; the same two
 * phases then sum (x - mean)^2 (two passes, as the reference); thread 0
 * finishes the channel (tcb_chan_train): save_mean, save_invstd =
 * 1/sqrt(var/n + eps), the running statistics updated in place (their own
 * dtype and stride), and mean/invstd for the elements as saved (rounded to
 * save_mean's dtype). Evaluation: one thread per channel takes them from the
 * running statistics (tcb_chan_eval; invstd in the input's opmath). Output: one thread per element, (x - mean)*invstd*w + b
 * in double with the reference's operation order, rounded once at the store.
 *
 * The tree's order differs from the reference's serial sum, so the training
 * statistics may differ from the reference's in the last bits (float64);
 * evaluation is the reference's arithmetic exactly. Products and sums go
 * through TCP_MUL/TCP_ADD: no FMA contraction. */
#ifndef TABI_TC_BN_CUH
#define TABI_TC_BN_CUH

#include <math.h>
#include <stdint.h>

#include "tc_pad_up.cuh" /* TCP_HD, TCP_MUL/TCP_ADD, tcp_ld/tcp_st/tcp_esz */

#define TCB_HD TCP_HD

typedef struct tcb_geom {
  int64_t N, C, S;
  int32_t xdt, xsz;           /* input (and output) dtype, element size */
  int32_t sdt, ssz;           /* save_mean/save_invstd */
  int32_t wdt, bdt, mdt, vdt; /* weight, bias, running_mean, running_var; -1 absent */
  int32_t wsz, bsz, msz, vsz;
  int64_t wst, bst, mst, vst; /* their element strides (any: 1-D tensors read in place) */
  int32_t training, pad;
  double momentum, eps;
} tcb_geom;

/* A 1-D parameter's dtype/size/stride slots (dt -1: absent). */
TCB_HD void tcb_param(int32_t *dt, int32_t *sz, int64_t *st, int pdt, int64_t pst) {
  *dt = pdt;
  *sz = pdt >= 0 ? tcp_esz(pdt) : 0;
  *st = pdt >= 0 ? pst : 0;
}

/* Host side: the geometry from the checked dims (all dtypes float16/bfloat16/
 * float32/float64). */
TCB_HD void tcb_init(tcb_geom *g, int64_t N, int64_t C, int64_t S, int xdt, int sdt, int wdt, int64_t wst,
                     int bdt, int64_t bst, int mdt, int64_t mst, int vdt, int64_t vst, int training,
                     double momentum, double eps) {
  g->N = N;
  g->C = C;
  g->S = S;
  g->xdt = xdt;
  g->xsz = tcp_esz(xdt);
  g->sdt = sdt;
  g->ssz = tcp_esz(sdt);
  tcb_param(&g->wdt, &g->wsz, &g->wst, wdt, wst);
  tcb_param(&g->bdt, &g->bsz, &g->bst, bdt, bst);
  tcb_param(&g->mdt, &g->msz, &g->mst, mdt, mst);
  tcb_param(&g->vdt, &g->vsz, &g->vst, vdt, vst);
  g->training = training;
  g->pad = 0;
  g->momentum = momentum;
  g->eps = eps;
}

/* A thread's walk over its elements k = t, t+T, ... of channel c: k = i*S + s
 * is at linear index lin = (i*C + c)*S + s of the contiguous input. Two
 * divisions at the start, then adds only (the step T is q = T/S whole
 * batches plus r = T%S positions): no 64-bit division per element. Ends when
 * i reaches N (S = 0: at once). */
typedef struct tcb_walk {
  int64_t i, s, lin, q, r;
} tcb_walk;
TCB_HD tcb_walk tcb_walk_start(const tcb_geom *g, int64_t c, int t, int T) {
  tcb_walk w;
  if (g->S == 0) {
    w.i = g->N;
    w.s = w.lin = w.q = w.r = 0;
    return w;
  }
  w.i = t / g->S;
  w.s = t % g->S;
  w.q = T / g->S;
  w.r = T % g->S;
  w.lin = (w.i * g->C + c) * g->S + w.s;
  return w;
}
TCB_HD void tcb_walk_next(const tcb_geom *g, tcb_walk *w) {
  int64_t di = w->q, ds = w->r;
  if (w->s + ds >= g->S) {
    di++;
    ds -= g->S;
  }
  w->i += di;
  w->s += ds;
  w->lin += di * g->C * g->S + ds; /* (i*C + c)*S + s moves by di*C*S + ds */
}

/* --- statistics: one block per channel ------------------------------------------ */

/* Phase 1: thread t of T: part[t] = the sum of its elements k = t, t+T, ... */
TCB_HD void tcb_sum_part(const tcb_geom *g, const char *x, int64_t c, int t, int T, double *part) {
  TCP_NOCONTRACT
  double s = 0;
  for (tcb_walk w = tcb_walk_start(g, c, t, T); w.i < g->N; tcb_walk_next(g, &w))
    s = TCP_ADD(s, tcp_ld(x + w.lin * g->xsz, g->xdt));
  part[t] = s;
}

/* Phase 3: part[t] = the sum of (x - mu)^2 over the same elements. */
TCB_HD void tcb_dev_part(const tcb_geom *g, const char *x, int64_t c, double mu, int t, int T, double *part) {
  TCP_NOCONTRACT
  double s = 0;
  for (tcb_walk w = tcb_walk_start(g, c, t, T); w.i < g->N; tcb_walk_next(g, &w)) {
    double d = tcp_ld(x + w.lin * g->xsz, g->xdt) - mu;
    s = TCP_ADD(s, TCP_MUL(d, d));
  }
  part[t] = s;
}

/* The tree over T partials: for h = tcb_tree_top(T), h/2, ..., 1, every thread
 * runs tcb_tree_step(part, t, T, h), each level followed by a barrier; then
 * part[0] holds the sum (any T >= 1, not only powers of two: h starts at half
 * the smallest power of two >= T, and a slot with no partner keeps its value). */
TCB_HD int tcb_tree_top(int T) {
  int p = 1;
  while (p < T) p <<= 1;
  return p >> 1;
}
TCB_HD void tcb_tree_step(double *part, int t, int T, int h) {
  TCP_NOCONTRACT
  if (t < h && t + h < T) part[t] = TCP_ADD(part[t], part[t + h]);
}

/* After the first tree: the mean (n = 0 gives 0/0 = NaN, as the reference). */
TCB_HD double tcb_mean(const tcb_geom *g, const double *part) { return part[0] / (double)(g->N * g->S); }

/* Thread 0 after the second tree (var: the sum of squared deviations):
 * save_mean/save_invstd[c], the running statistics in place, ms[2c..2c+1]. */
TCB_HD void tcb_chan_train(const tcb_geom *g, int64_t c, double mu, double var, char *sm, char *si, char *rm,
                           char *rv, double *ms) {
  TCP_NOCONTRACT
  double n = (double)(g->N * g->S), m = g->momentum;
  double invstd = 1 / sqrt(var / n + g->eps);
  tcp_st(sm + c * g->ssz, g->sdt, mu);
  tcp_st(si + c * g->ssz, g->sdt, invstd);
  if (rm) {
    char *p = rm + c * g->mst * g->msz;
    tcp_st(p, g->mdt, TCP_ADD(TCP_MUL(m, mu), TCP_MUL(1 - m, tcp_ld(p, g->mdt))));
  }
  if (rv) {
    char *p = rv + c * g->vst * g->vsz; /* the unbiased variance: n = 1 gives 0/0 = NaN */
    tcp_st(p, g->vdt, TCP_ADD(TCP_MUL(m, var / (n - 1)), TCP_MUL(1 - m, tcp_ld(p, g->vdt))));
  }
  /* the output uses the statistics as saved (rounded to their dtype), as
     the reference and ATen: a float32 invstd of 1e155 is inf */
  ms[2 * c] = tcp_ld(sm + c * g->ssz, g->sdt);
  ms[2 * c + 1] = tcp_ld(si + c * g->ssz, g->sdt);
}

/* Evaluation, one thread per channel: mean and invstd from the running stats. */
TCB_HD void tcb_chan_eval(const tcb_geom *g, int64_t c, const char *rm, const char *rv, double *ms) {
  ms[2 * c] = tcp_ld(rm + c * g->mst * g->msz, g->mdt);
  ms[2 * c + 1] = tcp_opmath_invstd(tcp_ld(rv + c * g->vst * g->vsz, g->vdt), g->eps, g->xdt);
}

/* --- output: one thread per element ---------------------------------------------- */

/* out[i] = (x - mean) * invstd * w + b (w 1 and b 0 when absent, as the
 * reference: so a -0 result with no bias stores +0 as its does). */
TCB_HD void tcb_elem(const tcb_geom *g, const char *x, const char *w, const char *b, const double *ms, char *out,
                     int64_t i) {
  TCP_NOCONTRACT
  int64_t c = i / g->S % g->C;
  double wc = w ? tcp_ld(w + c * g->wst * g->wsz, g->wdt) : 1.0;
  double bc = b ? tcp_ld(b + c * g->bst * g->bsz, g->bdt) : 0.0;
  double v = TCP_MUL(tcp_ld(x + i * g->xsz, g->xdt) - ms[2 * c], ms[2 * c + 1]);
  tcp_st(out + i * g->xsz, g->xdt, TCP_ADD(TCP_MUL(v, wc), bc));
}

#endif /* TABI_TC_BN_CUH */
