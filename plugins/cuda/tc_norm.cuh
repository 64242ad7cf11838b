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
 * TCP_MUL/TCP_ADD so no FMA contraction changes the rounding.
 *
 * Long sums are split (tcn_split): one thread per set, or per parameter, would
 * leave a GPU nearly idle on a large set (a [8192, 4096] layer norm backward's
 * 4096 grad_weight sums of 8192 terms each ran on 4096 threads). A sum of more
 * than TCN_SERIAL terms runs as K partial sums, each in the reference's order
 * over its terms, added in a fixed order by one thread per sum: the same bits
 * on every run and every launch geometry (K depends on the term count only),
 * but not the reference's serial order, so within the dtype's tolerance of it
 * rather than its bits. A set's partial j takes elements j, j+K, j+2K, ...
 * (neighbouring threads read neighbouring elements); a parameter's takes the
 * j-th run of its terms in the reference's order. */
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

/* --- split sums -------------------------------------------------------------------- */

#define TCN_SERIAL 256   /* up to this many terms a sum is one thread's: the reference's bits */
#define TCN_CHUNK 64     /* else about this many terms a partial, */
#define TCN_MAX_SPLIT 256 /* in at most this many partials */

/* How many partial sums a sum of w terms runs as (1: not split). */
TCN_HD int64_t tcn_split(int64_t w) {
  if (w <= TCN_SERIAL) return 1;
  int64_t k = (w + TCN_CHUNK - 1) / TCN_CHUNK;
  return k < TCN_MAX_SPLIT ? k : TCN_MAX_SPLIT;
}

/* The sum of k partials at stride st, in order (the combining thread's).
 * TCN_BATCH loads at a time are issued before the adds that wait on them:
 * param_store_kernel's 8192 threads each summing 128 partials one load at a
 * time took 66 us of an 8192 x 8192 layer norm backward on the H200
 * (2026-11-30), and 55 us with the loop merely marked for unrolling. */
#define TCN_BATCH 16
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) /* the device passes */
#define TCN_UNROLL _Pragma("unroll")
#else
#define TCN_UNROLL /* host builds (gpusim, the host tests): the compiler's choice */
#endif
TCN_HD double tcn_combine(const double *part, int64_t k, int64_t st) {
  TCP_NOCONTRACT
  double v = 0;
  int64_t j = 0;
  for (; j + TCN_BATCH <= k; j += TCN_BATCH) {
    double b[TCN_BATCH];
    TCN_UNROLL
    for (int i = 0; i < TCN_BATCH; i++) b[i] = part[(j + i) * st];
    TCN_UNROLL
    for (int i = 0; i < TCN_BATCH; i++) v = TCP_ADD(v, b[i]);
  }
  for (; j < k; j++) v = TCP_ADD(v, part[j * st]);
  return v;
}

/* --- group norm forward --------------------------------------------------------- */

/* Partial j of K of set r: the sum of x (sq 0) or of (x - mu)^2 (sq 1) over
 * its elements j, j+K, ... in order. */
TCN_HD double tcn_fw_part(const tcn_geom *g, const char *x, int64_t r, int64_t j, int64_t k, int sq, double mu) {
  TCP_NOCONTRACT
  const char *px = x + r * g->cnt * g->xsz;
  double v = 0;
  for (int64_t e = j; e < g->cnt; e += k) {
    double xe = tcp_ld(px + e * g->xsz, g->xdt);
    v = sq ? TCP_ADD(v, TCP_MUL(xe - mu, xe - mu)) : TCP_ADD(v, xe);
  }
  return v;
}

/* Set r's mean from its K partial sums of x (part: the set's own), into ms[2r]. */
TCN_HD void tcn_fw_mean(const tcn_geom *g, const double *part, int64_t k, double *ms, int64_t r) {
  double mu = tcn_combine(part, k, 1);
  ms[2 * r] = g->cnt > 0 ? mu / (double)g->cnt : 0; /* an empty group's mean is 0, as ATen's */
}

/* Set r's rstd from its K partial sums of squares: mean and rstd stored (the
 * statistics' dtype) and kept in double in ms[2r], ms[2r+1] for the elements. */
TCN_HD void tcn_fw_stats(const tcn_geom *g, const double *part, int64_t k, char *mean, char *rstd, double *ms,
                         int64_t r) {
  double var = tcn_combine(part, k, 1);
  double rs = tcp_opmath_invstd(var / (double)g->cnt, g->eps, g->xdt);
  tcp_st(mean + r * g->msz, g->mdt, ms[2 * r]);
  tcp_st(rstd + r * g->rsz, g->rdt, rs);
  ms[2 * r + 1] = rs;
}

/* Set r's statistics on one thread (the sum not split). */
TCN_HD void tcn_fw_set(const tcn_geom *g, const char *x, char *mean, char *rstd, double *ms, int64_t r) {
  double p = tcn_fw_part(g, x, r, 0, 1, 0, 0);
  tcn_fw_mean(g, &p, 1, ms, r);
  p = tcn_fw_part(g, x, r, 0, 1, 1, ms[2 * r]);
  tcn_fw_stats(g, &p, 1, mean, rstd, ms, r);
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

/* Partial j of K of set r's s1 = sum(dy*w), s2 = sum(dy*w*xhat) over its
 * elements j, j+K, ..., into s[0], s[1]. */
TCN_HD void tcn_bw_part(const tcn_geom *g, const char *go, const char *x, const char *mean, const char *rstd,
                        const char *w, int64_t r, int64_t j, int64_t k, double *s) {
  TCP_NOCONTRACT
  double mu = tcp_ld(mean + r * g->msz, g->mdt), rs = tcp_ld(rstd + r * g->rsz, g->rdt);
  double s1 = 0, s2 = 0;
  int64_t base = r * g->cnt;
  for (int64_t e = j; e < g->cnt; e += k) {
    double dy = tcp_ld(go + (base + e) * g->gsz, g->gdt);
    double xh = TCP_MUL(tcp_ld(x + (base + e) * g->xsz, g->xdt) - mu, rs);
    double dyw = TCP_MUL(dy, w ? tcp_ld(w + tcn_param(g, r, e) * g->wsz, g->wdt) : 1.0);
    s1 = TCP_ADD(s1, dyw);
    s2 = TCP_ADD(s2, TCP_MUL(dyw, xh));
  }
  s[0] = s1;
  s[1] = s2;
}

/* Set r's s1, s2 into s[2r], s[2r+1] on one thread (not split). */
TCN_HD void tcn_bw_set(const tcn_geom *g, const char *go, const char *x, const char *mean, const char *rstd,
                       const char *w, double *s, int64_t r) {
  tcn_bw_part(g, go, x, mean, rstd, w, r, 0, 1, s + 2 * r);
}

/* Set r's s1, s2 into s[2r], s[2r+1] from its K partial pairs (part: the set's own). */
TCN_HD void tcn_bw_combine(const double *part, int64_t k, double *s, int64_t r) {
  s[2 * r] = tcn_combine(part, k, 2);
  s[2 * r + 1] = tcn_combine(part + 1, k, 2);
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

/* Parameter p's terms: the elements e in [within*pdiv, (within+1)*pdiv) of
 * the sets r = gsel, gsel + G, ... (layer norm: every set, e = p), in the
 * reference's order (sets ascending, then elements). *n: how many; p = 0 has
 * the most. */
typedef struct tcn_pterms {
  int64_t gsel, e0, len, n;
} tcn_pterms;

TCN_HD tcn_pterms tcn_param_terms(const tcn_geom *g, int64_t p) {
  tcn_pterms t;
  t.gsel = g->D ? p / g->D : 0;
  int64_t within = g->D ? p % g->D : p;
  t.e0 = within * g->pdiv;
  int64_t e1 = t.e0 + g->pdiv;
  if (e1 > g->cnt) e1 = g->cnt;
  t.len = e1 > t.e0 ? e1 - t.e0 : 0;
  int64_t sets = t.gsel < g->rows ? (g->rows - t.gsel + g->G - 1) / g->G : 0;
  t.n = sets * t.len;
  return t;
}

/* Partial j of K of parameter p's sums of dy*xhat (ab[0]) and dy (ab[1]): its
 * terms [j*L, (j+1)*L) (L = ceil(n/K)) in the reference's order. */
TCN_HD void tcn_param_part(const tcn_geom *g, const char *go, const char *x, const char *mean, const char *rstd,
                           int64_t p, int64_t j, int64_t k, double *ab) {
  TCP_NOCONTRACT
  tcn_pterms t = tcn_param_terms(g, p);
  int64_t chunk = (t.n + k - 1) / k, f = j * chunk, f1 = f + chunk;
  if (f1 > t.n) f1 = t.n;
  double a = 0, b = 0;
  if (f < f1) {
    int64_t r = t.gsel + f / t.len * g->G, e = t.e0 + f % t.len;
    double mu = tcp_ld(mean + r * g->msz, g->mdt), rs = tcp_ld(rstd + r * g->rsz, g->rdt);
    for (; f < f1; f++) {
      int64_t i = r * g->cnt + e;
      double dy = tcp_ld(go + i * g->gsz, g->gdt);
      double xh = TCP_MUL(tcp_ld(x + i * g->xsz, g->xdt) - mu, rs);
      a = TCP_ADD(a, TCP_MUL(dy, xh));
      b = TCP_ADD(b, dy);
      if (++e == t.e0 + t.len && f + 1 < f1) { /* the next set */
        e = t.e0;
        r += g->G;
        mu = tcp_ld(mean + r * g->msz, g->mdt);
        rs = tcp_ld(rstd + r * g->rsz, g->rdt);
      }
    }
  }
  ab[0] = a;
  ab[1] = b;
}

/* Store element p of one parameter gradient (o, dtype dt; NULL: not wanted)
 * from its K partials at part[2*(j*st)] (part + 1: grad_bias's). */
TCN_HD void tcn_param_store1(const double *part, int64_t k, int64_t st, char *o, int dt, int64_t p) {
  if (o) tcp_st(o + p * tcp_esz(dt), dt, tcn_combine(part, k, 2 * st));
}
/* Store parameter p's grad_weight (dg, dtype dgdt) and grad_bias (db, dbdt;
 * either NULL: not wanted) from its K partial pairs at part[2*(j*st)]. */
TCN_HD void tcn_param_store(const double *part, int64_t k, int64_t st, char *dg, int dgdt, char *db, int dbdt,
                            int64_t p) {
  tcn_param_store1(part, k, st, dg, dgdt, p);
  tcn_param_store1(part + 1, k, st, db, dbdt, p);
}

/* Parameter p's grad_weight/grad_bias on one thread (not split). */
TCN_HD void tcn_param_elem(const tcn_geom *g, const char *go, const char *x, const char *mean,
                           const char *rstd, char *dg, int dgdt, char *db, int dbdt, int64_t p) {
  double ab[2];
  tcn_param_part(g, go, x, mean, rstd, p, 0, 1, ab);
  tcn_param_store(ab, 1, 1, dg, dgdt, db, dbdt, p);
}

#endif
