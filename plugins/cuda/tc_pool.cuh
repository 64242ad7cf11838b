/* plugins/cuda/tc_pool.cuh: the index arithmetic and per-element work of the
 * pooling ops: max_pool{2,3}d_with_indices and the 2d backward, avg_pool{1,2,3}d
 * and the 2d backward, adaptive average pooling 1d-3d and the 2d backward.
 *
 * As tc_pad_up.cuh: every function is `__host__ __device__` (plain `static
 * inline` as ordinary C++); tc_pool.cu's kernels are grid-stride loops with one
 * thread per element calling the *_elem functions, and
 * tests/cuda/test_cuda_pool_host.cpp runs the same functions on the host over
 * every index against the reference plugin.
 *
 * Semantics are the reference's (reference/ref_nn2.c, ATen's): tensors are
 * [lead..., spatial...] with 1 or 2 leading "plane" dims and 1-3 spatial dims,
 * normalised here to 2 + 3 (size 1, stride 0 where absent). Forward: one thread
 * per output element walks its window in the reference's order (max: NaN wins,
 * a later NaN replaces an earlier one; the index is the flat position in the
 * input plane; avg/adaptive: the sum in double, rounded once; int64 avg wraps
 * and truncates). Backward is a gather, no atomics: one thread per grad_input
 * element adds, in increasing output position (the reference's order of
 * accumulation into that element), the contributions of the output positions
 * whose window covers it (max: whose stored index is this element), in double,
 * rounded once: deterministic and the reference's bits. Max backward takes any
 * index inside the plane (as the reference): when some index lies outside its
 * output's window (indices not from the forward), each element scans the
 * whole plane of outputs instead (tcq_mpb_elem's `full`).
 *
 * No multiplies of values are done (sums, one division), so FMA contraction
 * cannot change bits here; index arithmetic is int64. */
#ifndef TABI_TC_POOL_CUH
#define TABI_TC_POOL_CUH

#include <math.h>
#include <stdint.h>

#include "tc_pad_up.cuh" /* TCP_HD, tcp_ld/tcp_st/tcp_esz: element access as the reference */
#include "ref_pool_check.h"

#define TCQ_HD TCP_HD

typedef struct tcq_geom {
  int32_t dt, esz;
  int32_t include_pad, isint;
  int64_t dov;
  int64_t lead[2];
  int64_t in[3], out[3], k[3], s[3], p[3], d[3];
  int64_t xs[5]; /* self's strides, normalised (lead 2 + spatial 3), elements */
  int64_t gs[5]; /* grad_output's (backward) */
  int64_t is[5]; /* indices' (max backward) */
} tcq_geom;

/* Strides of a tensor of nlead + ns dims in the 2 + 3 layout. */
TCQ_HD void tcq_norm_strides(int64_t out[5], int32_t nlead, int32_t ns, const int64_t *strides) {
  out[0] = nlead == 2 ? strides[0] : 0;
  out[1] = strides[nlead - 1];
  for (int32_t i = 0; i < 3; i++) out[2 + i] = i < ns ? strides[nlead + i] : 0;
}

/* Geometry from the validated dims (ref_pool_check.c) and self (shape,
 * strides); grad_output's and indices' strides (NULL: none). Host side. */
TCQ_HD void tcq_init(tcq_geom *g, const ref_pool_dims *m, const int64_t *xshape,
                     const int64_t *xstrides, const int64_t *gstrides, const int64_t *istrides,
                     int dt) {
  g->dt = dt;
  g->esz = dt == TABI_DTYPE_INT64 ? 8 : tcp_esz(dt);
  g->isint = dt == TABI_DTYPE_INT64;
  g->include_pad = m->include_pad;
  g->dov = m->dov;
  g->lead[0] = m->nlead == 2 ? xshape[0] : 1;
  g->lead[1] = xshape[m->nlead - 1];
  for (int i = 0; i < 3; i++) {
    g->in[i] = m->in[i];
    g->out[i] = m->out[i];
    g->k[i] = m->k[i];
    g->s[i] = m->s[i];
    g->p[i] = m->p[i];
    g->d[i] = m->d[i];
  }
  tcq_norm_strides(g->xs, m->nlead, m->ns, xstrides);
  for (int i = 0; i < 5; i++) g->gs[i] = g->is[i] = 0;
  if (gstrides) tcq_norm_strides(g->gs, m->nlead, m->ns, gstrides);
  if (istrides) tcq_norm_strides(g->is, m->nlead, m->ns, istrides);
}

TCQ_HD int64_t tcq_floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Splits a row-major index over [lead0, lead1, n0, n1, n2] into the plane
 * offset along strides st (elements) and the three spatial positions. */
TCQ_HD int64_t tcq_split(const tcq_geom *g, const int64_t *n, const int64_t *st, int64_t lin,
                         int64_t pos[3]) {
  for (int i = 2; i >= 0; i--) {
    pos[i] = lin % n[i];
    lin /= n[i];
  }
  int64_t l1 = lin % g->lead[1], l0 = lin / g->lead[1];
  return l0 * st[0] + l1 * st[1];
}

TCQ_HD int64_t tcq_sp(const int64_t *st, const int64_t *pos) {
  return pos[0] * st[2] + pos[1] * st[3] + pos[2] * st[4];
}

TCQ_HD int64_t tcq_ldi(const char *p) { return *(const int64_t *)p; }
TCQ_HD void tcq_sti(char *p, int64_t v) { *(int64_t *)p = v; }
TCQ_HD int64_t tcq_wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
TCQ_HD int64_t tcq_idiv(int64_t a, int64_t b) { return (a == INT64_MIN && b == -1) ? a : a / b; }

/* --- max pooling ------------------------------------------------------------- */

/* Output element lin (contiguous [lead, out...]): the max over the window and
 * its flat index in the input plane. */
TCQ_HD void tcq_max_elem(const tcq_geom *g, const char *x, char *out, int64_t *idx, int64_t lin) {
  int64_t op[3], lo[3], hi[3], first[3];
  int64_t base = tcq_split(g, g->out, g->xs, lin, op);
  for (int i = 0; i < 3; i++) {
    int64_t start = op[i] * g->s[i] - g->p[i];
    /* the first tap at or past 0 (the reference steps by d), and the tap range in the input */
    lo[i] = start >= 0 ? 0 : (-start + g->d[i] - 1) / g->d[i];
    first[i] = start + lo[i] * g->d[i];
    int64_t last = g->in[i] - 1 - start; /* taps kp with start + kp*d <= in-1 */
    hi[i] = last < 0 ? 0 : last / g->d[i] + 1;
    if (hi[i] > g->k[i]) hi[i] = g->k[i];
  }
  double best = -INFINITY;
  int64_t best_i = (first[0] * g->in[1] + first[1]) * g->in[2] + first[2];
  int64_t kp[3];
  for (kp[0] = lo[0]; kp[0] < hi[0]; kp[0]++)
    for (kp[1] = lo[1]; kp[1] < hi[1]; kp[1]++)
      for (kp[2] = lo[2]; kp[2] < hi[2]; kp[2]++) {
        int64_t ip[3];
        for (int i = 0; i < 3; i++) ip[i] = op[i] * g->s[i] - g->p[i] + kp[i] * g->d[i];
        double v = tcp_ld(x + (base + tcq_sp(g->xs, ip)) * g->esz, g->dt);
        if (v > best || v != v) {
          best = v;
          best_i = (ip[0] * g->in[1] + ip[1]) * g->in[2] + ip[2];
        }
      }
  tcp_st(out + lin * g->esz, g->dt, best);
  idx[lin] = best_i;
}

/* Max backward, the index of grad_output element lin (over [lead, out...]):
 * 0 inside its output's window, 1 inside the plane but not the window (not
 * from the forward), 2 outside the plane (an error; *val the index). */
TCQ_HD int tcq_mpb_status(const tcq_geom *g, const char *ind, int64_t lin, int64_t *val) {
  int64_t op[3];
  int64_t base = tcq_split(g, g->out, g->is, lin, op);
  int64_t i = tcq_ldi(ind + (base + tcq_sp(g->is, op)) * 8);
  *val = i;
  if (i < 0 || i >= g->in[0] * g->in[1] * g->in[2]) return 2;
  int64_t ip[3] = {i / (g->in[1] * g->in[2]), (i / g->in[2]) % g->in[1], i % g->in[2]};
  for (int k = 0; k < 3; k++) {
    int64_t r = ip[k] - (op[k] * g->s[k] - g->p[k]);
    if (r < 0 || r % g->d[k] != 0 || r / g->d[k] >= g->k[k]) return 1;
  }
  return 0;
}

/* The output positions [*lo, *hi] along dim k whose window (start op*s-p,
 * taps of step d, k of them) can hold input position ip. */
TCQ_HD void tcq_cover(const tcq_geom *g, int k, int64_t ip, int64_t span, int64_t *lo, int64_t *hi) {
  int64_t a = -tcq_floor_div(-(ip + g->p[k] - span), g->s[k]); /* ceil */
  int64_t b = tcq_floor_div(ip + g->p[k], g->s[k]);
  *lo = a < 0 ? 0 : a;
  *hi = b > g->out[k] - 1 ? g->out[k] - 1 : b;
}

/* grad_input element lin (contiguous, self's shape): the sum of grad_output
 * over the output positions whose index is this element, in increasing
 * position. full: scan every output of the plane (indices not all from their
 * windows); else only the windows that cover it. */
TCQ_HD void tcq_mpb_elem(const tcq_geom *g, const char *go, const char *ind, char *gi, int64_t lin,
                         int full) {
  int64_t ip[3], o[3], lo[3], hi[3];
  int64_t r = lin;
  for (int i = 2; i >= 0; i--) {
    ip[i] = r % g->in[i];
    r /= g->in[i];
  }
  int64_t l1 = r % g->lead[1], l0 = r / g->lead[1];
  int64_t gb = l0 * g->gs[0] + l1 * g->gs[1], ib = l0 * g->is[0] + l1 * g->is[1];
  int64_t me = (ip[0] * g->in[1] + ip[1]) * g->in[2] + ip[2];
  for (int i = 0; i < 3; i++) {
    if (full) {
      lo[i] = 0;
      hi[i] = g->out[i] - 1;
    } else {
      tcq_cover(g, i, ip[i], (g->k[i] - 1) * g->d[i], &lo[i], &hi[i]);
    }
  }
  double acc = 0;
  for (o[0] = lo[0]; o[0] <= hi[0]; o[0]++) {
    if (!full && (ip[0] + g->p[0] - o[0] * g->s[0]) % g->d[0]) continue;
    for (o[1] = lo[1]; o[1] <= hi[1]; o[1]++) {
      if (!full && (ip[1] + g->p[1] - o[1] * g->s[1]) % g->d[1]) continue;
      for (o[2] = lo[2]; o[2] <= hi[2]; o[2]++) {
        if (!full && (ip[2] + g->p[2] - o[2] * g->s[2]) % g->d[2]) continue;
        if (tcq_ldi(ind + (ib + tcq_sp(g->is, o)) * 8) == me)
          acc += tcp_ld(go + (gb + tcq_sp(g->gs, o)) * g->esz, g->dt);
      }
    }
  }
  tcp_st(gi + lin * g->esz, g->dt, acc);
}

/* --- average pooling ------------------------------------------------------------ */

/* The reference's avg_window: the window of output position op clipped to the
 * input [lo, hi) per dim, and the divisor. */
TCQ_HD int64_t tcq_avg_window(const tcq_geom *g, const int64_t *op, int64_t *lo, int64_t *hi) {
  int64_t pool = 1, cnt = 1;
  for (int i = 0; i < 3; i++) {
    int64_t start = op[i] * g->s[i] - g->p[i];
    int64_t end = start + g->k[i];
    if (end > g->in[i] + g->p[i]) end = g->in[i] + g->p[i];
    pool *= end - start;
    lo[i] = start < 0 ? 0 : start;
    hi[i] = end > g->in[i] ? g->in[i] : end;
    cnt *= hi[i] - lo[i];
  }
  if (g->dov) return g->dov;
  return g->include_pad ? pool : cnt;
}

TCQ_HD void tcq_avg_elem(const tcq_geom *g, const char *x, char *out, int64_t lin) {
  int64_t op[3], lo[3], hi[3], ip[3];
  int64_t base = tcq_split(g, g->out, g->xs, lin, op);
  int64_t div = tcq_avg_window(g, op, lo, hi);
  double sf = 0;
  int64_t si = 0;
  for (ip[0] = lo[0]; ip[0] < hi[0]; ip[0]++)
    for (ip[1] = lo[1]; ip[1] < hi[1]; ip[1]++)
      for (ip[2] = lo[2]; ip[2] < hi[2]; ip[2]++) {
        const char *p = x + (base + tcq_sp(g->xs, ip)) * g->esz;
        if (g->isint) si = tcq_wrap_add(si, tcq_ldi(p));
        else sf += tcp_ld(p, g->dt);
      }
  if (g->isint) tcq_sti(out + lin * 8, tcq_idiv(si, div));
  else tcp_st(out + lin * g->esz, g->dt, sf / (double)div);
}

/* grad_input element lin: grad_output / divisor over the output positions
 * whose clipped window holds it (start <= ip < start + k), in increasing
 * position; int64 divides (truncating) before it adds, as the reference. */
TCQ_HD void tcq_avgb_elem(const tcq_geom *g, const char *go, char *gi, int64_t lin) {
  int64_t ip[3], o[3], lo[3], hi[3], wlo[3], whi[3];
  int64_t r = lin;
  for (int i = 2; i >= 0; i--) {
    ip[i] = r % g->in[i];
    r /= g->in[i];
  }
  int64_t l1 = r % g->lead[1], l0 = r / g->lead[1];
  int64_t gb = l0 * g->gs[0] + l1 * g->gs[1];
  for (int i = 0; i < 3; i++) tcq_cover(g, i, ip[i], g->k[i] - 1, &lo[i], &hi[i]);
  double acc = 0;
  int64_t iacc = 0;
  for (o[0] = lo[0]; o[0] <= hi[0]; o[0]++)
    for (o[1] = lo[1]; o[1] <= hi[1]; o[1]++)
      for (o[2] = lo[2]; o[2] <= hi[2]; o[2]++) {
        int64_t div = tcq_avg_window(g, o, wlo, whi);
        const char *p = go + (gb + tcq_sp(g->gs, o)) * g->esz;
        if (g->isint) iacc = tcq_wrap_add(iacc, tcq_idiv(tcq_ldi(p), div));
        else acc += tcp_ld(p, g->dt) / (double)div;
      }
  if (g->isint) tcq_sti(gi + lin * 8, iacc);
  else tcp_st(gi + lin * g->esz, g->dt, acc);
}

/* --- adaptive average pooling ------------------------------------------------------ */

TCQ_HD int64_t tcq_ad_start(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
TCQ_HD int64_t tcq_ad_end(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }

TCQ_HD void tcq_adapt_elem(const tcq_geom *g, const char *x, char *out, int64_t lin) {
  int64_t op[3], lo[3], hi[3], ip[3], cnt = 1;
  int64_t base = tcq_split(g, g->out, g->xs, lin, op);
  for (int i = 0; i < 3; i++) {
    lo[i] = tcq_ad_start(op[i], g->out[i], g->in[i]);
    hi[i] = tcq_ad_end(op[i], g->out[i], g->in[i]);
    cnt *= hi[i] - lo[i];
  }
  double s = 0;
  for (ip[0] = lo[0]; ip[0] < hi[0]; ip[0]++)
    for (ip[1] = lo[1]; ip[1] < hi[1]; ip[1]++)
      for (ip[2] = lo[2]; ip[2] < hi[2]; ip[2]++) s += tcp_ld(x + (base + tcq_sp(g->xs, ip)) * g->esz, g->dt);
  tcp_st(out + lin * g->esz, g->dt, s / (double)cnt);
}

/* The output positions [*lo, *hi] along dim i whose adaptive window holds
 * input position ip: end(op) > ip exactly from op = floor(ip*out/in) on
 * (ends do not decrease), and starts do not decrease, so the range ends at
 * the last op with start(op) <= ip. Empty (*hi < *lo) when out is 0. */
TCQ_HD void tcq_ad_range(const tcq_geom *g, int i, int64_t ip, int64_t *lo, int64_t *hi) {
  int64_t out = g->out[i], in = g->in[i], a = (ip * out) / in, b;
  while (a < out && tcq_ad_end(a, out, in) <= ip) a++; /* (never taken: the bound is exact) */
  for (b = a; b + 1 < out && tcq_ad_start(b + 1, out, in) <= ip; b++) {
  }
  *lo = a;
  *hi = a < out ? b : a - 1;
}

TCQ_HD void tcq_adaptb_elem(const tcq_geom *g, const char *go, char *gi, int64_t lin) {
  int64_t ip[3], o[3], lo[3], hi[3];
  int64_t r = lin;
  for (int i = 2; i >= 0; i--) {
    ip[i] = r % g->in[i];
    r /= g->in[i];
  }
  int64_t l1 = r % g->lead[1], l0 = r / g->lead[1];
  int64_t gb = l0 * g->gs[0] + l1 * g->gs[1];
  for (int i = 0; i < 3; i++) tcq_ad_range(g, i, ip[i], &lo[i], &hi[i]);
  double acc = 0;
  for (o[0] = lo[0]; o[0] <= hi[0]; o[0]++)
    for (o[1] = lo[1]; o[1] <= hi[1]; o[1]++)
      for (o[2] = lo[2]; o[2] <= hi[2]; o[2]++) {
        int64_t cnt = 1; /* the window's size, as the reference's (y1-y0)*(x1-x0) */
        for (int i = 0; i < 3; i++)
          cnt *= tcq_ad_end(o[i], g->out[i], g->in[i]) - tcq_ad_start(o[i], g->out[i], g->in[i]);
        acc += tcp_ld(go + (gb + tcq_sp(g->gs, o)) * g->esz, g->dt) / (double)cnt;
      }
  tcp_st(gi + lin * g->esz, g->dt, acc);
}

#endif /* TABI_TC_POOL_CUH */
