/* plugins/cuda/tc_norm.cuh: the per-set and per-element work of
 * native_group_norm, native_layer_norm_backward and native_group_norm_backward.
 *
 * As tc_pad_up.cuh: every function is `__host__ __device__` (plain `static
 * inline` as ordinary C++); tc_norm.cu's kernels are grid-stride loops with one
 * thread per set, per element or per parameter calling these functions, and
 * tests/cuda/test_cuda_norm_host.cpp runs the same functions on the host over
 * every index against the reference plugin.
 *
 * Semantics and order are the reference's (reference/ref_nn3.c): x is split
 * into `rows` sets of `cnt` consecutive elements (row-major; tc_norm.cu makes
 * the inputs contiguous), statistics in double, two-pass, rounded once at the
 * store. Backward: one thread per set sums s1 = sum(dy*w) and s2 =
 * sum(dy*w*xhat) in element order into a double scratch (tcn_bw_set), then one
 * thread per element writes rstd * (dy*w - s1/cnt - xhat*s2/cnt)
 * (tcn_dx_elem); one thread per parameter p sums dy*xhat and dy over its
 * elements in the reference's order (sets ascending, then elements), which is
 * the order the reference accumulates into dgamma[p]/dbeta[p]: no atomics,
 * deterministic, the reference's bits. Products and sums go through
 * TCP_MUL/TCP_ADD so no FMA contraction changes the rounding. */
#ifndef TABI_TC_NORM_CUH
#define TABI_TC_NORM_CUH

#include <math.h>
#include <stdint.h>

#include "tc_pad_up.cuh" /* TCP_HD, TCP_MUL/TCP_ADD, tcp_ld/tcp_st/tcp_esz */
#include "ref_norm_check.h"

#define TCN_HD TCP_HD

typedef struct tcn_geom {
  int32_t xdt, gdt, mdt, rdt, wdt, bdt; /* dtypes: input, grad_out, mean, rstd, weight, bias */
  int32_t xsz, gsz, msz, rsz, wsz, bsz; /* their element sizes */
  int64_t rows, cnt, G, D, pdiv, pmod;
  double eps;
} tcn_geom;

/* Host side: the geometry from the checked dims and the operands' dtypes (all
 * float16/bfloat16/float32/float64; -1 where an operand is absent). */
TCN_HD void tcn_init(tcn_geom *g, const ref_norm_dims *d, int xdt, int gdt, int mdt, int rdt, int wdt, int bdt,
                     double eps) {
  g->xdt = xdt;
  g->gdt = gdt;
  g->mdt = mdt;
  g->rdt = rdt;
  g->wdt = wdt;
  g->bdt = bdt;
  g->xsz = tcp_esz(xdt);
  g->gsz = gdt >= 0 ? tcp_esz(gdt) : 0;
  g->msz = mdt >= 0 ? tcp_esz(mdt) : 0;
  g->rsz = rdt >= 0 ? tcp_esz(rdt) : 0;
  g->wsz = wdt >= 0 ? tcp_esz(wdt) : 0;
  g->bsz = bdt >= 0 ? tcp_esz(bdt) : 0;
  g->rows = d->rows;
  g->cnt = d->cnt;
  g->G = d->G;
  g->D = d->D;
  g->pdiv = d->pdiv;
  g->pmod = d->pmod;
  g->eps = eps;
}

/* The parameter of element e of set r. */
TCN_HD int64_t tcn_param(const tcn_geom *g, int64_t r, int64_t e) {
  return (r % g->G) * g->D + (e / g->pdiv) % g->pmod;
}

/* --- group norm forward --------------------------------------------------------- */

/* Set r's mean and rstd: stored (the statistics' dtype) and kept in double in
 * ms[2r], ms[2r+1] for the elements. */
TCN_HD void tcn_fw_set(const tcn_geom *g, const char *x, char *mean, char *rstd, double *ms, int64_t r) {
  TCP_NOCONTRACT
  const char *px = x + r * g->cnt * g->xsz;
  double mu = 0, var = 0;
  for (int64_t e = 0; e < g->cnt; e++) mu = TCP_ADD(mu, tcp_ld(px + e * g->xsz, g->xdt));
  mu = g->cnt > 0 ? mu / (double)g->cnt : 0; /* an empty group's mean is 0, as ATen's */
  for (int64_t e = 0; e < g->cnt; e++) {
    double dv = tcp_ld(px + e * g->xsz, g->xdt) - mu;
    var = TCP_ADD(var, TCP_MUL(dv, dv));
  }
  double rs = tcp_opmath_invstd(var / (double)g->cnt, g->eps, g->xdt);
  tcp_st(mean + r * g->msz, g->mdt, mu);
  tcp_st(rstd + r * g->rsz, g->rdt, rs);
  ms[2 * r] = mu;
  ms[2 * r + 1] = rs;
}

/* Output element i: (x - mean) * rstd * w + b. */
TCN_HD void tcn_fw_elem(const tcn_geom *g, const char *x, const char *w, const char *b, const double *ms,
                        char *out, int64_t i) {
  TCP_NOCONTRACT
  int64_t r = i / g->cnt, p = tcn_param(g, r, i % g->cnt);
  double v = TCP_MUL(tcp_ld(x + i * g->xsz, g->xdt) - ms[2 * r], ms[2 * r + 1]);
  v = TCP_ADD(TCP_MUL(v, w ? tcp_ld(w + p * g->wsz, g->wdt) : 1.0), b ? tcp_ld(b + p * g->bsz, g->bdt) : 0.0);
  tcp_st(out + i * g->xsz, g->xdt, v);
}

/* --- backward ---------------------------------------------------------------------- */

/* Set r's s1 = sum(dy*w), s2 = sum(dy*w*xhat) into s[2r], s[2r+1]. */
TCN_HD void tcn_bw_set(const tcn_geom *g, const char *go, const char *x, const char *mean, const char *rstd,
                       const char *w, double *s, int64_t r) {
  TCP_NOCONTRACT
  double mu = tcp_ld(mean + r * g->msz, g->mdt), rs = tcp_ld(rstd + r * g->rsz, g->rdt);
  double s1 = 0, s2 = 0;
  int64_t base = r * g->cnt;
  for (int64_t e = 0; e < g->cnt; e++) {
    double dy = tcp_ld(go + (base + e) * g->gsz, g->gdt);
    double xh = TCP_MUL(tcp_ld(x + (base + e) * g->xsz, g->xdt) - mu, rs);
    double dyw = TCP_MUL(dy, w ? tcp_ld(w + tcn_param(g, r, e) * g->wsz, g->wdt) : 1.0);
    s1 = TCP_ADD(s1, dyw);
    s2 = TCP_ADD(s2, TCP_MUL(dyw, xh));
  }
  s[2 * r] = s1;
  s[2 * r + 1] = s2;
}

/* grad_input element i (x's dtype). */
TCN_HD void tcn_dx_elem(const tcn_geom *g, const char *go, const char *x, const char *mean, const char *rstd,
                        const char *w, const double *s, char *gi, int64_t i) {
  TCP_NOCONTRACT
  int64_t r = i / g->cnt;
  double mu = tcp_ld(mean + r * g->msz, g->mdt), rs = tcp_ld(rstd + r * g->rsz, g->rdt);
  double dy = tcp_ld(go + i * g->gsz, g->gdt);
  double xh = TCP_MUL(tcp_ld(x + i * g->xsz, g->xdt) - mu, rs);
  double dyw = TCP_MUL(dy, w ? tcp_ld(w + tcn_param(g, r, i % g->cnt) * g->wsz, g->wdt) : 1.0);
  double c = (double)g->cnt;
  double v = TCP_MUL(rs, (dyw - s[2 * r] / c) - TCP_MUL(xh, s[2 * r + 1]) / c);
  tcp_st(gi + i * g->xsz, g->xdt, v);
}

/* grad_weight (dg, dtype dgdt) and grad_bias (db, dbdt) of parameter p (either
 * NULL: not wanted): its elements are e in [within*pdiv, (within+1)*pdiv) of
 * the sets r = gsel, gsel + G, ... (layer norm: every set, e = p). */
TCN_HD void tcn_param_elem(const tcn_geom *g, const char *go, const char *x, const char *mean,
                           const char *rstd, char *dg, int dgdt, char *db, int dbdt, int64_t p) {
  TCP_NOCONTRACT
  int64_t gsel = g->D ? p / g->D : 0, within = g->D ? p % g->D : p;
  int64_t e0 = within * g->pdiv, e1 = e0 + g->pdiv;
  if (e1 > g->cnt) e1 = g->cnt;
  double a = 0, b = 0;
  for (int64_t r = gsel; r < g->rows; r += g->G) {
    double mu = tcp_ld(mean + r * g->msz, g->mdt), rs = tcp_ld(rstd + r * g->rsz, g->rdt);
    for (int64_t e = e0; e < e1; e++) {
      int64_t i = r * g->cnt + e;
      double dy = tcp_ld(go + i * g->gsz, g->gdt);
      double xh = TCP_MUL(tcp_ld(x + i * g->xsz, g->xdt) - mu, rs);
      a = TCP_ADD(a, TCP_MUL(dy, xh));
      b = TCP_ADD(b, dy);
    }
  }
  if (dg) tcp_st(dg + p * tcp_esz(dgdt), dgdt, a);
  if (db) tcp_st(db + p * tcp_esz(dbdt), dbdt, b);
}

#endif
