/* plugins/cuda/tc_misc.cuh: the per-element math of grid_sampler_2d,
 * _cdist_forward, _pdist_forward and embedding_dense_backward.
 *
 * The pattern of tc_pad_up.cuh: every function is `__host__ __device__`
 * (plain `static inline` as ordinary C++); tc_misc.cu's kernels are thin
 * grid-stride loops, one thread per output element, calling the *_elem
 * functions, and tests/cuda/test_cuda_misc_host.cpp runs the same functions on
 * the host over every output index against the reference plugin.
 *
 * Numerics are the reference's (reference/ref_nn4.c + ref_grid.h,
 * ref_linalg.c): double arithmetic in the reference's order, rounded once at
 * the store; products that feed a sum are TCP_MUL (never fused into an FMA,
 * which would round differently and, for grid sampling, could move a floor()
 * to another tap; every function with arithmetic also opens with
 * TCP_NOCONTRACT, so clang's HIP IR carries no contract flag from here).
 * Distances keep the reference's per-pair accumulation order
 * (columns in order); embedding_dense_backward gathers: one thread per
 * (weight row, column) walks the positions holding that row in increasing
 * order (a host-built bucket list), so the sum is the reference's, with no
 * atomics and the same bits on every run. */
#ifndef TABI_TC_MISC_CUH
#define TABI_TC_MISC_CUH

#include "tc_pad_up.cuh" /* TCP_HD, TCP_MUL/TCP_ADD, tcp_ld/tcp_st/tcp_esz */
#include "tc_int.cuh"     /* tcn_esz, tcn_is_int, tcn_ld/tcn_st: integer elements */

#define TCM_MAX_DIMS 16

/* --- grid_sampler_2d ------------------------------------------------------------
 * reference/ref_grid.h, with every product that feeds a sum written TCP_MUL.
 * interpolation 0 bilinear, 1 nearest (round half to even), 2 bicubic;
 * padding 0 zeros, 1 border, 2 reflection. Output [N, C, Ho, Wo] contiguous. */
typedef struct tcm_grid_geom {
  int64_t n, c, h, w, ho, wo;
  int64_t ist[4], gst[4]; /* input and grid strides, elements */
  int32_t dt, mode, pad, align;
} tcm_grid_geom;

TCP_HD double tcm_gs_unnormalize(double c, int64_t size, int align) {
  TCP_NOCONTRACT
  if (align) return TCP_MUL((c + 1) / 2, (double)(size - 1));
  return TCP_ADD(TCP_MUL(c + 1, (double)size), -1.0) / 2;
}
TCP_HD double tcm_gs_clip(double c, int64_t size) {
  TCP_NOCONTRACT
  return fmin((double)(size - 1), fmax(c, 0.0));
}
TCP_HD double tcm_gs_reflect(double c, int64_t twice_low, int64_t twice_high) {
  TCP_NOCONTRACT
  if (twice_low == twice_high) return 0;
  double mn = (double)twice_low / 2, span = (double)(twice_high - twice_low) / 2;
  c = fabs(c - mn);
  double extra = fmod(c, span);
  int64_t flips = (int64_t)floor(c / span);
  return flips % 2 == 0 ? extra + mn : span - extra + mn;
}
TCP_HD double tcm_gs_pad(double c, int64_t size, int pad, int align) {
  TCP_NOCONTRACT
  if (pad == 1) return tcm_gs_clip(c, size);
  if (pad == 2) {
    c = align ? tcm_gs_reflect(c, 0, 2 * (size - 1)) : tcm_gs_reflect(c, -1, 2 * size - 1);
    return tcm_gs_clip(c, size);
  }
  return c;
}
TCP_HD double tcm_gs_safe(double c) {
  TCP_NOCONTRACT
  return (!isfinite(c) || c > 2147483647.0 || c < -2147483648.0) ? -100.0 : c;
}
/* ((A + 2) * t - (A + 3)) * t * t + 1 */
TCP_HD double tcm_cubic1(double t, double A) {
  TCP_NOCONTRACT
  return TCP_ADD(TCP_MUL(TCP_MUL(TCP_ADD(TCP_MUL(A + 2, t), -(A + 3)), t), t), 1.0);
}
/* ((A * t - 5 * A) * t + 8 * A) * t - 4 * A */
TCP_HD double tcm_cubic2(double t, double A) {
  TCP_NOCONTRACT
  double a = TCP_ADD(TCP_MUL(A, t), -TCP_MUL(5.0, A));
  double b = TCP_ADD(TCP_MUL(a, t), TCP_MUL(8.0, A));
  return TCP_ADD(TCP_MUL(b, t), -TCP_MUL(4.0, A));
}

/* Geometry from the validated input (4-D) and grid ([N, Ho, Wo, 2]). Host side. */
TCP_HD void tcm_grid_init(tcm_grid_geom *g, const int64_t *ishape, const int64_t *ist,
                          const int64_t *gshape, const int64_t *gst, int dt, int mode, int pad,
                          int align) {
  g->n = ishape[0];
  g->c = ishape[1];
  g->h = ishape[2];
  g->w = ishape[3];
  g->ho = gshape[1];
  g->wo = gshape[2];
  for (int i = 0; i < 4; i++) {
    g->ist[i] = ist[i];
    g->gst[i] = gst[i];
  }
  g->dt = dt;
  g->mode = mode;
  g->pad = pad;
  g->align = align;
}

TCP_HD double tcm_gs_get(const tcm_grid_geom *g, const char *in, int64_t base, int64_t yy, int64_t xx) {
  TCP_NOCONTRACT
  if (yy < 0 || yy >= g->h || xx < 0 || xx >= g->w) return 0;
  return tcp_ld(in + (base + yy * g->ist[2] + xx * g->ist[3]) * tcn_esz(g->dt), g->dt);
}

TCP_HD void tcm_grid_elem(const tcm_grid_geom *g, const char *in, const char *grid, char *out,
                          int64_t lin) {
  TCP_NOCONTRACT
  int64_t j = lin % g->wo, r = lin / g->wo;
  int64_t i = r % g->ho;
  r /= g->ho;
  int64_t c = r % g->c, n = r / g->c;
  int esz = tcn_esz(g->dt);
  const char *gp = grid + (n * g->gst[0] + i * g->gst[1] + j * g->gst[2]) * esz;
  double gx = tcp_ld(gp, g->dt), gy = tcp_ld(gp + g->gst[3] * esz, g->dt);
  double ix, iy;
  if (g->mode == 2) {
    ix = tcm_gs_unnormalize(gx, g->w, g->align);
    iy = tcm_gs_unnormalize(gy, g->h, g->align);
  } else {
    ix = tcm_gs_safe(tcm_gs_pad(tcm_gs_unnormalize(gx, g->w, g->align), g->w, g->pad, g->align));
    iy = tcm_gs_safe(tcm_gs_pad(tcm_gs_unnormalize(gy, g->h, g->align), g->h, g->pad, g->align));
  }
  int64_t base = n * g->ist[0] + c * g->ist[1];
  double v = 0;
  if (g->mode == 0) {
    double fx = floor(ix), fy = floor(iy);
    int64_t x0 = (int64_t)fx, y0 = (int64_t)fy;
    double tx = ix - fx, ty = iy - fy;
    /* g00*(1-tx)*(1-ty) + g01*tx*(1-ty) + g10*(1-tx)*ty + g11*tx*ty, left to right */
    double a = TCP_MUL(TCP_MUL(tcm_gs_get(g, in, base, y0, x0), 1 - tx), 1 - ty);
    double b = TCP_MUL(TCP_MUL(tcm_gs_get(g, in, base, y0, x0 + 1), tx), 1 - ty);
    double d = TCP_MUL(TCP_MUL(tcm_gs_get(g, in, base, y0 + 1, x0), 1 - tx), ty);
    double e = TCP_MUL(TCP_MUL(tcm_gs_get(g, in, base, y0 + 1, x0 + 1), tx), ty);
    v = TCP_ADD(TCP_ADD(TCP_ADD(a, b), d), e);
  } else if (g->mode == 1) {
    v = tcm_gs_get(g, in, base, (int64_t)nearbyint(iy), (int64_t)nearbyint(ix));
  } else {
    double fx = floor(ix), fy = floor(iy), tx = ix - fx, ty = iy - fy, A = -0.75;
    double cx[4] = {tcm_cubic2(tx + 1, A), tcm_cubic1(tx, A), tcm_cubic1(1 - tx, A), tcm_cubic2(2 - tx, A)};
    double cy[4] = {tcm_cubic2(ty + 1, A), tcm_cubic1(ty, A), tcm_cubic1(1 - ty, A), tcm_cubic2(2 - ty, A)};
    for (int a = 0; a < 4; a++) {
      double row = 0;
      for (int b = 0; b < 4; b++) {
        /* each tap's coordinate is padded on its own */
        double px = tcm_gs_safe(tcm_gs_pad(fx - 1 + b, g->w, g->pad, g->align));
        double py = tcm_gs_safe(tcm_gs_pad(fy - 1 + a, g->h, g->pad, g->align));
        row = TCP_ADD(row, TCP_MUL(cx[b], tcm_gs_get(g, in, base, (int64_t)py, (int64_t)px)));
      }
      v = TCP_ADD(v, TCP_MUL(cy[a], row));
    }
  }
  tcp_st(out + lin * esz, g->dt, v);
}

/* --- distances -------------------------------------------------------------------
 * reference/ref_linalg.c's dist_add/dist_end: p = 0 counts non-zero
 * differences, inf takes the largest magnitude (NaN sticks), 1 and 2 sum |d|
 * and d*d, otherwise sum pow(|d|, p) and pow(sum, 1/p). Columns in order. */
typedef struct tcm_dist_acc {
  double p, acc;
} tcm_dist_acc;

TCP_HD void tcm_dist_add(tcm_dist_acc *d, double diff) {
  TCP_NOCONTRACT
  double a = fabs(diff);
  if (d->p == 0) d->acc += a != 0;
  else if (isinf(d->p)) d->acc = (a > d->acc || isnan(a)) ? a : d->acc;
  else if (d->p == 1) d->acc += a;
  else if (d->p == 2) d->acc = TCP_ADD(d->acc, TCP_MUL(a, a));
  else d->acc += pow(a, d->p);
}
TCP_HD double tcm_dist_end(const tcm_dist_acc *d) {
  TCP_NOCONTRACT
  if (d->p == 0 || d->p == 1 || isinf(d->p)) return d->acc;
  if (d->p == 2) return sqrt(d->acc);
  return pow(d->acc, 1.0 / d->p);
}

/* cdist: x1 [B1.., r1, m], x2 [B2.., r2, m]; the batch dims broadcast to bshape
 * (bnd dims); output [bshape.., r1, r2] contiguous. Strides in elements,
 * 0 on broadcast batch dims. */
typedef struct tcm_cdist_geom {
  int32_t bnd, dt;
  double p;
  int64_t r1, r2, m;
  int64_t bshape[TCM_MAX_DIMS];
  int64_t s1[TCM_MAX_DIMS], s2[TCM_MAX_DIMS]; /* batch strides */
  int64_t rs1, cs1, rs2, cs2;                 /* row and column strides */
} tcm_cdist_geom;

/* Geometry from the validated inputs (ref_cdist_check: bnd, bshape). Host side. */
TCP_HD void tcm_cdist_init(tcm_cdist_geom *g, int32_t n1, const int64_t *sh1, const int64_t *st1,
                           int32_t n2, const int64_t *sh2, const int64_t *st2, int32_t bnd,
                           const int64_t *bshape, int dt, double p) {
  g->bnd = bnd;
  g->dt = dt;
  g->p = p;
  g->r1 = sh1[n1 - 2];
  g->r2 = sh2[n2 - 2];
  g->m = sh1[n1 - 1];
  g->rs1 = st1[n1 - 2];
  g->cs1 = st1[n1 - 1];
  g->rs2 = st2[n2 - 2];
  g->cs2 = st2[n2 - 1];
  for (int32_t i = 0; i < TCM_MAX_DIMS; i++) {
    int32_t i1 = i - (bnd - (n1 - 2)), i2 = i - (bnd - (n2 - 2));
    int in = i < bnd;
    g->bshape[i] = in ? bshape[i] : 1;
    g->s1[i] = in && i1 >= 0 && sh1[i1] != 1 ? st1[i1] : 0;
    g->s2[i] = in && i2 >= 0 && sh2[i2] != 1 ? st2[i2] : 0;
  }
}

TCP_HD void tcm_cdist_elem(const tcm_cdist_geom *g, const char *x1, const char *x2, char *out,
                           int64_t lin) {
  TCP_NOCONTRACT
  int64_t j = lin % g->r2, r = lin / g->r2;
  int64_t i = r % g->r1;
  r /= g->r1;
  int64_t o1 = i * g->rs1, o2 = j * g->rs2;
  for (int32_t d = g->bnd - 1; d >= 0; d--) {
    int64_t k = r % g->bshape[d];
    r /= g->bshape[d];
    o1 += k * g->s1[d];
    o2 += k * g->s2[d];
  }
  int esz = tcn_esz(g->dt);
  tcm_dist_acc acc = {g->p, 0};
  for (int64_t c = 0; c < g->m; c++)
    tcm_dist_add(&acc, tcp_ld(x1 + (o1 + c * g->cs1) * esz, g->dt) - tcp_ld(x2 + (o2 + c * g->cs2) * esz, g->dt));
  tcp_st(out + lin * esz, g->dt, tcm_dist_end(&acc));
}

/* pdist: x [n, m]; output n*(n-1)/2 distances of the row pairs (i, j), i < j,
 * in row-major order. */
typedef struct tcm_pdist_geom {
  int32_t dt, pad_;
  double p;
  int64_t n, m, rs, cs;
} tcm_pdist_geom;

TCP_HD void tcm_pdist_init(tcm_pdist_geom *g, const int64_t *shape, const int64_t *st, int dt, double p) {
  g->dt = dt;
  g->pad_ = 0;
  g->p = p;
  g->n = shape[0];
  g->m = shape[1];
  g->rs = st[0];
  g->cs = st[1];
}

/* The first output index of row i's pairs: i*(2n-i-1)/2. */
TCP_HD int64_t tcm_pdist_start(int64_t n, int64_t i) { return i * (2 * n - i - 1) / 2; }

/* The pair (i, j) of output index k: a floating estimate of i, then corrected
 * with exact integer arithmetic (the estimate may be off by one either way). */
TCP_HD void tcm_pdist_pair(int64_t n, int64_t k, int64_t *pi, int64_t *pj) {
  double b = (double)(2 * n - 1);
  double disc = b * b - 8.0 * (double)k;
  int64_t i = (int64_t)((b - sqrt(disc > 0 ? disc : 0)) / 2);
  if (i < 0) i = 0;
  if (i > n - 2) i = n - 2;
  while (i > 0 && tcm_pdist_start(n, i) > k) i--;
  while (i < n - 2 && tcm_pdist_start(n, i + 1) <= k) i++;
  *pi = i;
  *pj = k - tcm_pdist_start(n, i) + i + 1;
}

TCP_HD void tcm_pdist_elem(const tcm_pdist_geom *g, const char *x, char *out, int64_t lin) {
  TCP_NOCONTRACT
  int64_t i, j;
  tcm_pdist_pair(g->n, lin, &i, &j);
  int esz = tcn_esz(g->dt);
  tcm_dist_acc acc = {g->p, 0};
  for (int64_t c = 0; c < g->m; c++)
    tcm_dist_add(&acc, tcp_ld(x + (i * g->rs + c * g->cs) * esz, g->dt) -
                           tcp_ld(x + (j * g->rs + c * g->cs) * esz, g->dt));
  tcp_st(out + lin * esz, g->dt, tcm_dist_end(&acc));
}

/* --- embedding_dense_backward ------------------------------------------------------
 * grad_weight [V, D] contiguous. starts[V + 1] and pos[ni] (tc_embbw_buckets):
 * the positions i holding row r are pos[starts[r] .. starts[r + 1]), in
 * increasing order. Row padding_idx stays 0. Floating dtypes sum in double,
 * each term g / count when scale_grad_by_freq; integers sum wrapping in int64,
 * and with scale_grad_by_freq only rows seen once get anything (ATen's alpha
 * 1.0 / count truncated to an integer). */
typedef struct tcm_embbw_geom {
  int32_t dt, nd, scale, integral;
  int64_t v, d, pad;
  int64_t shape[TCM_MAX_DIMS], st[TCM_MAX_DIMS]; /* grad_output */
} tcm_embbw_geom;

TCP_HD void tcm_embbw_init(tcm_embbw_geom *g, int32_t nd, const int64_t *shape, const int64_t *st,
                           int dt, int64_t V, int64_t D, int64_t pad, int scale) {
  g->dt = dt;
  g->nd = nd;
  g->scale = scale;
  g->integral = tcn_is_int(dt);
  g->v = V;
  g->d = D;
  g->pad = pad;
  for (int32_t i = 0; i < TCM_MAX_DIMS; i++) {
    g->shape[i] = i < nd ? shape[i] : 1;
    g->st[i] = i < nd ? st[i] : 0;
  }
}

/* grad_output's element offset of its linear index lin (ref_offset_of). */
TCP_HD int64_t tcm_embbw_off(const tcm_embbw_geom *g, int64_t lin) {
  int64_t off = 0;
  for (int32_t d = g->nd - 1; d >= 0; d--) {
    off += (lin % g->shape[d]) * g->st[d];
    lin /= g->shape[d];
  }
  return off;
}

TCP_HD void tcm_embbw_elem(const tcm_embbw_geom *g, const char *go, const int64_t *starts,
                           const int64_t *pos, char *out, int64_t lin) {
  TCP_NOCONTRACT
  int64_t r = lin / g->d, col = lin % g->d;
  int64_t b = starts[r], e = starts[r + 1], cnt = e - b;
  int esz = tcn_esz(g->dt);
  if (r == g->pad) b = e; /* the padding row gets nothing */
  if (g->integral) {
    uint64_t acc = 0;
    if (!g->scale || cnt == 1)
      for (int64_t k = b; k < e; k++)
        acc += (uint64_t)tcn_ld(go + tcm_embbw_off(g, pos[k] * g->d + col) * esz, g->dt);
    tcn_st(out + lin * esz, g->dt, (int64_t)acc);
  } else {
    double acc = 0;
    for (int64_t k = b; k < e; k++) {
      double v = tcp_ld(go + tcm_embbw_off(g, pos[k] * g->d + col) * esz, g->dt);
      acc += g->scale ? v / (double)cnt : v;
    }
    tcp_st(out + lin * esz, g->dt, acc);
  }
}

/* --- _embedding_bag ------------------------------------------------------------------
 * output [B, D] contiguous; bag b holds the indices at positions
 * starts[b] .. starts[b + 1) (tc_ebag_layout). One thread per (bag, column)
 * walks its bag in order as the reference does: positions holding padding_idx
 * are skipped and not counted; sum/mean add weight * per_sample_weight in
 * double, mean divides by the count (0 for an empty bag), max keeps the first
 * maximum and its row (max_indices [B, D], the indices' dtype). */
typedef struct tcm_ebag_geom {
  int32_t dt, it, mode, has_psw;
  int64_t d, pad;
  int64_t wst[2], pst; /* weight and per_sample_weights strides, elements */
} tcm_ebag_geom;

TCP_HD void tcm_ebag_init(tcm_ebag_geom *g, const int64_t *wshape, const int64_t *wst, int dt, int it, int mode,
                          int has_psw, int64_t pst, int64_t pad) {
  g->dt = dt;
  g->it = it;
  g->mode = mode;
  g->has_psw = has_psw;
  g->d = wshape[1];
  g->pad = pad;
  g->wst[0] = wst[0];
  g->wst[1] = wst[1];
  g->pst = has_psw ? pst : 0;
}

TCP_HD void tcm_ebag_elem(const tcm_ebag_geom *g, const char *w, const int64_t *iv, const char *psw,
                          const int64_t *starts, char *out, char *mxi, int64_t lin) {
  TCP_NOCONTRACT
  int64_t b = lin / g->d, col = lin % g->d, cnt = 0, arg = 0;
  int esz = tcn_esz(g->dt);
  double acc = 0;
  for (int64_t i = starts[b]; i < starts[b + 1]; i++) {
    int64_t v = iv[i];
    if (v == g->pad) continue;
    double x = tcp_ld(w + (v * g->wst[0] + col * g->wst[1]) * esz, g->dt);
    if (g->mode == 2) {
      if (cnt == 0 || x > acc) {
        acc = x;
        arg = v;
      }
    } else {
      double sc = g->has_psw ? tcp_ld(psw + i * g->pst * esz, g->dt) : 1;
      acc = TCP_ADD(acc, TCP_MUL(x, sc));
    }
    cnt++;
  }
  if (g->mode == 1) acc = cnt ? acc / (double)cnt : 0;
  tcp_st(out + lin * esz, g->dt, acc);
  if (g->mode == 2) tcn_st(mxi + lin * tcn_esz(g->it), g->it, arg);
}

/* --- host side: the index layouts the gathers read ----------------------------
 * Built on the host from the index values read back (after the shared checks
 * of reference/ref_misc_check.c passed), then copied to the device. */

/* Buckets of valid indices: starts[V + 1] and pos[ni] such that the positions
 * i with iv[i] == r are pos[starts[r] .. starts[r + 1]), increasing (a
 * stable counting sort). */
static inline void tc_embbw_buckets(const int64_t *iv, int64_t ni, int64_t V, int64_t *starts,
                                    int64_t *pos) {
  for (int64_t r = 0; r <= V; r++) starts[r] = 0;
  for (int64_t i = 0; i < ni; i++) starts[iv[i] + 1]++;
  for (int64_t r = 0; r < V; r++) starts[r + 1] += starts[r];
  /* fill with a moving cursor per row: starts[r] advances, then shifts back */
  for (int64_t i = 0; i < ni; i++) pos[starts[iv[i]]++] = i;
  for (int64_t r = V; r > 0; r--) starts[r] = starts[r - 1];
  starts[0] = 0;
}

/* Bag layout from valid offsets: starts[B + 1] (bag b's positions are
 * starts[b] .. starts[b + 1)), o2b[n] (the bag of each position, 0 when B is
 * 0) and cnt[B] (positions counted per bag: those not holding pad). */
static inline void tc_ebag_layout(const int64_t *offv, int64_t B, const int64_t *iv, int64_t n,
                                  int64_t pad, int64_t *starts, int64_t *o2b, int64_t *cnt) {
  /* the reference's walk: position i is in the last bag b < B with offsets[b] <= i */
  int64_t bag = 0;
  for (int64_t b = 0; b < B; b++) cnt[b] = 0;
  for (int64_t b = 0; b <= B; b++) starts[b] = n;
  if (B > 0) starts[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    while (bag + 1 < B && offv[bag + 1] <= i) starts[++bag] = i;
    o2b[i] = bag;
    if (B > 0 && iv[i] != pad) cnt[bag]++;
  }
  /* bags after the last position (offsets equal to n) start at n */
}

#endif /* TABI_TC_MISC_CUH */
