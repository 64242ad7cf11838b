/* plugins/cuda/tc_convbwd.cuh: the per-element work of aten::convolution_backward
 * (grad_input, grad_weight, grad_bias) for the CUDA/ROCm direct kernel.
 *
 * As tc_pool.cuh: every function is `__host__ __device__` (plain `static
 * inline` as ordinary C++); tc_conv.cu's backward kernel is a grid-stride loop
 * with one thread per output element calling tcb_elem, and
 * tests/cuda/test_cuda_convbwd_host.cpp runs the same function on the host over
 * every element against the reference plugin.
 *
 * The picture is the reference's (reference/ref_nn.c): a convolution relates a
 * low-res tensor L and a high-res tensor H through h = l*s - p + k*d, with the
 * weight [L channel, H channel in group, k...]. Normal: L = output, H = input;
 * transposed: L = input, H = output. So grad_input is a gather of H from L
 * (normal) or of L from H (transposed), grad_weight sums L*H over batch and l,
 * grad_bias sums grad_output over batch and space. Each output element sums its
 * terms in the reference's loop order, in double (int64 wrapping for integers),
 * rounded once, with multiply and add never fused (TCP_MUL/TCP_ADD): the
 * reference's bits, deterministic, no atomics. Spatial dims are padded to three
 * (size 1, stride 0), so one body serves 1-3 d. */
#ifndef TABI_TC_CONVBWD_CUH
#define TABI_TC_CONVBWD_CUH

#include <stdint.h>

#include "tc_pad_up.cuh" /* TCP_HD, TCP_MUL/TCP_ADD, tcp_ld/tcp_st (float types) */
#include "tc_int.cuh"     /* tcn_*: integer elements, wrapping sums */

#define TCB_HD TCP_HD

enum { TCB_GATHER_L = 0, TCB_GATHER_H = 1, TCB_WEIGHT = 2, TCB_BIAS = 3 };

typedef struct tcb_geom {
  int32_t dt, esz, isint, mode;
  int64_t n, cl, ch, groups;    /* batch, L channels, H channels, groups */
  int64_t lsp[3], hsp[3], k[3]; /* sizes: L spatial, H spatial, kernel */
  int64_t s[3], p[3], d[3];
  /* operands in [b|c0, c|c1, sp0, sp1, sp2] strides (elements): gather_l: x = H,
   * y = W; gather_h: x = L, y = W; weight: x = L, y = H; bias: x = grad_output
   * (its sizes in lsp: the L side of the caller's picture, see tcb_elem) */
  int64_t xs[5], ys[5];
} tcb_geom;

/* Geometry from the checked convolution parameters (tc_conv.cu's conv_setup
 * or the test's): sizes padded to 3 spatial dims. */
TCB_HD void tcb_init(tcb_geom *g, int dt, int mode, int64_t n, int64_t cl, int64_t ch, int64_t groups,
                     const int64_t *lsp, const int64_t *hsp, const int64_t *k, const int64_t *s,
                     const int64_t *p, const int64_t *d) {
  g->dt = dt;
  g->esz = tcn_esz(dt);
  g->isint = tcn_is_int(dt);
  g->mode = mode;
  g->n = n;
  g->cl = cl;
  g->ch = ch;
  g->groups = groups;
  for (int i = 0; i < 3; i++) {
    g->lsp[i] = lsp[i];
    g->hsp[i] = hsp[i];
    g->k[i] = k[i];
    g->s[i] = s[i];
    g->p[i] = p[i];
    g->d[i] = d[i];
  }
  for (int i = 0; i < 5; i++) g->xs[i] = g->ys[i] = 0;
}

/* Strides of an ns-spatial-dim tensor in the 2 + 3 layout. */
TCB_HD void tcb_strides(int64_t out[5], int32_t ns, const int64_t *strides) {
  out[0] = strides[0];
  out[1] = strides[1];
  for (int32_t i = 0; i < 3; i++) out[2 + i] = i < ns ? strides[2 + i] : 0;
}

/* The number of elements the mode writes (its output is contiguous). */
TCB_HD int64_t tcb_count(const tcb_geom *g) {
  switch (g->mode) {
    case TCB_GATHER_L: return g->n * g->cl * g->lsp[0] * g->lsp[1] * g->lsp[2];
    case TCB_GATHER_H: return g->n * g->ch * g->hsp[0] * g->hsp[1] * g->hsp[2];
    case TCB_WEIGHT: return g->cl * (g->ch / g->groups) * g->k[0] * g->k[1] * g->k[2];
    default: return g->cl; /* bias: one per grad_output channel (cl here) */
  }
}

/* Element `o` (contiguous index) of the mode's output. For TCB_BIAS the caller
 * puts grad_output's channels in cl and its spatial sizes in lsp. */
TCB_HD void tcb_elem(const tcb_geom *g, const char *x, const char *y, char *out, int64_t o) {
  TCP_NOCONTRACT
  int64_t iacc = 0;
  double facc = 0;
  const int dt = g->dt, esz = g->esz, isint = g->isint;
  const int64_t *xs = g->xs, *ys = g->ys;
  int64_t clg = g->cl / g->groups, chg = g->ch / g->groups;
#define TCB_FMA(xo, yo)                                                                      \
  do {                                                                                       \
    if (isint) iacc = tcn_wadd(iacc, tcn_wmul(tcn_ld(x + (xo) * esz, dt), tcn_ld(y + (yo) * esz, dt))); \
    else facc = TCP_ADD(facc, TCP_MUL(tcp_ld(x + (xo) * esz, dt), tcp_ld(y + (yo) * esz, dt)));          \
  } while (0)
  if (g->mode == TCB_GATHER_L) { /* L[b, cl, l] = sum_c,k H[b, grp*chg + c, h] W[cl, c, k] */
    int64_t r = o, l[3];
    for (int i = 2; i >= 0; i--) {
      l[i] = r % g->lsp[i];
      r /= g->lsp[i];
    }
    int64_t cl = r % g->cl, b = r / g->cl, grp = cl / clg;
    for (int64_t c = 0; c < chg; c++)
      for (int64_t k0 = 0; k0 < g->k[0]; k0++)
        for (int64_t k1 = 0; k1 < g->k[1]; k1++)
          for (int64_t k2 = 0; k2 < g->k[2]; k2++) {
            int64_t kk[3] = {k0, k1, k2};
            int64_t xo = b * xs[0] + (grp * chg + c) * xs[1], yo = cl * ys[0] + c * ys[1];
            int in = 1;
            for (int i = 0; i < 3 && in; i++) {
              int64_t hp = l[i] * g->s[i] - g->p[i] + kk[i] * g->d[i];
              in = hp >= 0 && hp < g->hsp[i];
              xo += hp * xs[2 + i];
              yo += kk[i] * ys[2 + i];
            }
            if (in) TCB_FMA(xo, yo);
          }
  } else if (g->mode == TCB_GATHER_H) { /* H[b, ch, h] = sum_c,(l,k) L[b, cl, l] W[cl, ch%chg, k] */
    int64_t r = o, h[3];
    for (int i = 2; i >= 0; i--) {
      h[i] = r % g->hsp[i];
      r /= g->hsp[i];
    }
    int64_t ch = r % g->ch, b = r / g->ch, grp = ch / chg;
    for (int64_t c = 0; c < clg; c++)
      for (int64_t k0 = 0; k0 < g->k[0]; k0++)
        for (int64_t k1 = 0; k1 < g->k[1]; k1++)
          for (int64_t k2 = 0; k2 < g->k[2]; k2++) {
            int64_t kk[3] = {k0, k1, k2}, cl = grp * clg + c;
            int64_t xo = b * xs[0] + cl * xs[1], yo = cl * ys[0] + (ch - grp * chg) * ys[1];
            int in = 1;
            for (int i = 0; i < 3 && in; i++) {
              int64_t num = h[i] + g->p[i] - kk[i] * g->d[i];
              in = num >= 0 && num % g->s[i] == 0 && num / g->s[i] < g->lsp[i];
              xo += (num / g->s[i]) * xs[2 + i];
              yo += kk[i] * ys[2 + i];
            }
            if (in) TCB_FMA(xo, yo);
          }
  } else if (g->mode == TCB_WEIGHT) { /* gW[cl, c, k] = sum_b,l L[b, cl, l] H[b, grp*chg + c, h] */
    int64_t r = o, kk[3];
    for (int i = 2; i >= 0; i--) {
      kk[i] = r % g->k[i];
      r /= g->k[i];
    }
    int64_t c = r % chg, cl = r / chg, ch = (cl / clg) * chg + c;
    for (int64_t b = 0; b < g->n; b++)
      for (int64_t l0 = 0; l0 < g->lsp[0]; l0++)
        for (int64_t l1 = 0; l1 < g->lsp[1]; l1++)
          for (int64_t l2 = 0; l2 < g->lsp[2]; l2++) {
            int64_t l[3] = {l0, l1, l2};
            int64_t xo = b * xs[0] + cl * xs[1], yo = b * ys[0] + ch * ys[1];
            int in = 1;
            for (int i = 0; i < 3 && in; i++) {
              int64_t hp = l[i] * g->s[i] - g->p[i] + kk[i] * g->d[i];
              in = hp >= 0 && hp < g->hsp[i];
              xo += l[i] * xs[2 + i];
              yo += hp * ys[2 + i];
            }
            if (in) TCB_FMA(xo, yo);
          }
  } else { /* bias[c] = sum_b,pos grad_output[b, c, pos] */
    for (int64_t b = 0; b < g->n; b++)
      for (int64_t l0 = 0; l0 < g->lsp[0]; l0++)
        for (int64_t l1 = 0; l1 < g->lsp[1]; l1++)
          for (int64_t l2 = 0; l2 < g->lsp[2]; l2++) {
            const char *p = x + (b * xs[0] + o * xs[1] + l0 * xs[2] + l1 * xs[3] + l2 * xs[4]) * esz;
            if (isint) iacc = tcn_wadd(iacc, tcn_ld(p, dt));
            else facc = TCP_ADD(facc, tcp_ld(p, dt));
          }
  }
#undef TCB_FMA
  if (isint) tcn_st(out + o * esz, dt, iacc);
  else tcp_st(out + o * esz, dt, facc);
}

#endif
