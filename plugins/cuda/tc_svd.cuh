/* plugins/cuda/tc_svd.cuh: prims::svd as one-sided (Hestenes) Jacobi, one
 * thread block per matrix, written so that the host can run it too.
 *
 * The algorithm is the reference's (reference/ref_linalg_svd.c): every matrix
 * in complex double (a real one stays real: every phase is +-1), the work
 * matrix W = A (m >= n) or A^H (m < n), pairs (p, q) in the reference's cyclic
 * order, the same rotation and convergence test, at most 80 sweeps, column
 * norms, stable descending sort, and the reference's orthonormal completion
 * (ref_linalg_svd_complete: the unit vector with the largest residual, twice
 * Gram-Schmidt) for full_matrices and zero singular values.
 *
 * What is parallel: inside one pair, the three inner products over the R rows
 * (|a_p|^2, |a_q|^2, a_p^H a_q) are partial sums of T threads (thread t takes
 * rows t, t+T, ... in order) added by a fixed-order tree (tcs_tree): no
 * atomics, deterministic for a given T; the rotation of the two columns of W
 * and of V is split by rows. The completion's inner products take the same
 * path. With T = 1 every sum is the reference's sequential sum: the host test
 * asks for the reference's bits there.
 *
 * Why a driver template: tcs_matrix is written once, as the sequence of
 * phases a block runs, over an executor X whose run(f) calls f(t, T) for the
 * block's threads and then synchronises. tc_svd.cu's executor is one thread
 * of a CUDA/HIP block (f for its own t, then __syncthreads); the host test's
 * runs f for t = 0..T-1 in turn. Phases only write what their own thread
 * owns (its rows, its slot of `part`), and whatever the driver decides between
 * phases (the rotation, the sweep's end, the completion's pivot) is computed
 * by every thread from the same memory after a synchronisation, so the device
 * result equals the emulation's for the same T, by construction, wherever the
 * device's sqrt and hypot round as glibc's (sqrt is IEEE on both; hypot, the
 * reference's cabs, can differ by an ulp for complex input, real input gives
 * hypot(x, 0) = |x| exactly). Products that feed a sum go through
 * TCP_MUL/TCP_ADD (no FMA contraction on the device). */
#ifndef TABI_TC_SVD_CUH
#define TABI_TC_SVD_CUH

#include <float.h>
#include <math.h>
#include <stdint.h>

#include "tc_pad_up.cuh" /* TCP_HD, TCP_MUL/TCP_ADD, TCP_NOCONTRACT */

#define TCS_HD TCP_HD
#define TCS_SWEEPS 80 /* the reference's sweep limit */

/* One matrix's geometry and the layout of its scratch (offsets in doubles; a
 * complex number is two doubles, re then im). */
typedef struct tcs_geom {
  int64_t m, n, k, R, C;   /* R x C work matrix: R = max(m, n), C = min(m, n) = k */
  int64_t ucols, vrows;    /* U is m x ucols, Vh vrows x n */
  int64_t qcols;           /* columns of Q after completion */
  int32_t dt, sdt;         /* A/U/Vh dtype, S dtype */
  int64_t oW, oV, oQ, oT, oRes, oSv, oOrd, per; /* W R x C, V C x C, Q R x qcols, tmp R, res R, sv C, order C */
} tcs_geom;

TCS_HD int tcs_complex(int dt) { return dt == TABI_DTYPE_COMPLEX64 || dt == TABI_DTYPE_COMPLEX128; }
TCS_HD int tcs_esz(int dt) {
  return dt == TABI_DTYPE_FLOAT32 ? 4 : dt == TABI_DTYPE_COMPLEX128 ? 16 : 8;
}

/* m x n matrices of dtype dt (float32/float64/complex64/complex128). */
TCS_HD void tcs_init(tcs_geom *g, int64_t m, int64_t n, int full, int dt) {
  g->m = m;
  g->n = n;
  g->k = m < n ? m : n;
  g->R = m >= n ? m : n;
  g->C = g->k;
  g->ucols = full ? m : g->k;
  g->vrows = full ? n : g->k;
  g->qcols = m >= n ? g->ucols : g->vrows;
  g->dt = dt;
  g->sdt = dt == TABI_DTYPE_COMPLEX64 ? TABI_DTYPE_FLOAT32 : dt == TABI_DTYPE_COMPLEX128 ? TABI_DTYPE_FLOAT64 : dt;
  g->oW = 0;
  g->oV = g->oW + 2 * g->R * g->C;
  g->oQ = g->oV + 2 * g->C * g->C;
  g->oT = g->oQ + 2 * g->R * g->qcols;
  g->oRes = g->oT + 2 * g->R;
  g->oSv = g->oRes + g->R;
  g->oOrd = g->oSv + g->C;
  g->per = g->oOrd + g->C + 1;
}

/* --- element access ------------------------------------------------------------ */

TCS_HD void tcs_ld(const char *p, int dt, int64_t e, double *re, double *im) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: *re = ((const float *)p)[e]; *im = 0; break;
    case TABI_DTYPE_COMPLEX64: *re = ((const float *)p)[2 * e]; *im = ((const float *)p)[2 * e + 1]; break;
    case TABI_DTYPE_COMPLEX128: *re = ((const double *)p)[2 * e]; *im = ((const double *)p)[2 * e + 1]; break;
    default: *re = ((const double *)p)[e]; *im = 0; break;
  }
}
/* Real dtypes keep the real part (the imaginary part of a real matrix's
 * factors is zero), as the reference's ref_store_c. */
TCS_HD void tcs_st(char *p, int dt, int64_t e, double re, double im) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: ((float *)p)[e] = (float)re; break;
    case TABI_DTYPE_COMPLEX64: ((float *)p)[2 * e] = (float)re; ((float *)p)[2 * e + 1] = (float)im; break;
    case TABI_DTYPE_COMPLEX128: ((double *)p)[2 * e] = re; ((double *)p)[2 * e + 1] = im; break;
    default: ((double *)p)[e] = re; break;
  }
}

/* --- phases (thread t of T) -------------------------------------------------- */

/* W = A or A^H (column-major, column j at W + 2*j*R), V = identity; a
 * non-finite element sets *bad (every writer writes 1). `a` is the matrix,
 * contiguous m x n. */
TCS_HD void tcs_load(const tcs_geom *g, const char *a, double *wk, int *bad, int t, int T) {
  double *W = wk + g->oW, *V = wk + g->oV;
  for (int64_t e = t; e < g->m * g->n; e += T) {
    int64_t i = e / g->n, j = e % g->n;
    double re, im;
    tcs_ld(a, g->dt, e, &re, &im);
    if (!isfinite(re) || !isfinite(im)) *bad = 1;
    int64_t w = g->m >= g->n ? j * g->R + i : i * g->R + j;
    W[2 * w] = re;
    W[2 * w + 1] = g->m >= g->n ? im : -im;
  }
  for (int64_t e = t; e < g->C * g->C; e += T) {
    V[2 * e] = e / g->C == e % g->C;
    V[2 * e + 1] = 0;
  }
}

/* part[4t..4t+3] = thread t's share of |x|^2, |y|^2 and x^H y (re, im) over
 * n elements, the rows t, t+T, ... in order (the reference's expressions). */
TCS_HD void tcs_partial(const double *x, const double *y, int64_t n, double *part, int t, int T) {
  TCP_NOCONTRACT
  double a = 0, b = 0, gr = 0, gi = 0;
  for (int64_t i = t; i < n; i += T) {
    double xr = x[2 * i], xi = x[2 * i + 1], yr = y[2 * i], yi = y[2 * i + 1];
    a = TCP_ADD(a, TCP_ADD(TCP_MUL(xr, xr), TCP_MUL(xi, xi)));
    b = TCP_ADD(b, TCP_ADD(TCP_MUL(yr, yr), TCP_MUL(yi, yi)));
    gr = TCP_ADD(gr, TCP_ADD(TCP_MUL(xr, yr), TCP_MUL(xi, yi)));
    gi = TCP_ADD(gi, TCP_ADD(TCP_MUL(xr, yi), -TCP_MUL(xi, yr)));
  }
  part[4 * t] = a;
  part[4 * t + 1] = b;
  part[4 * t + 2] = gr;
  part[4 * t + 3] = gi;
}

/* One level of the fixed-order tree: slot t += slot t+s where t is a multiple
 * of 2s (s = 1, 2, 4, ... < T); afterwards slot 0 holds the sum. */
TCS_HD void tcs_tree(double *part, int s, int t, int T) {
  if (t % (2 * s) == 0 && t + s < T)
    for (int c = 0; c < 4; c++) part[4 * t + c] += part[4 * (t + s) + c];
}

/* The rotation of a pair from the summed inner products (every thread
 * computes it from part[0..3]): on 0 when the pair is orthogonal enough. */
typedef struct tcs_rot {
  int on;
  double c, s, pr, pi; /* cos, sin, and the phase e^{-i phi} */
} tcs_rot;
TCS_HD tcs_rot tcs_rotation(const double *part) {
  TCP_NOCONTRACT
  tcs_rot r;
  r.on = 0;
  r.c = 1;
  r.s = r.pr = r.pi = 0;
  double alpha = part[0], beta = part[1], gr = part[2], gi = part[3];
  double g = hypot(gr, gi); /* cabs */
  if (alpha == 0 || beta == 0 || !(g > 4 * DBL_EPSILON * sqrt(alpha) * sqrt(beta))) return r;
  r.on = 1;
  r.pr = gr / g; /* conj(gamma / g) */
  r.pi = -(gi / g);
  double zeta = (beta - alpha) / (2 * g);
  double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(TCP_ADD(1.0, TCP_MUL(zeta, zeta))));
  r.c = 1 / sqrt(TCP_ADD(1.0, TCP_MUL(t, t)));
  r.s = r.c * t;
  return r;
}

/* (x, y) <- (c x - s y ph, s x + c y ph) on rows t, t+T, ... of n. */
TCS_HD void tcs_rotate(double *x, double *y, int64_t n, const tcs_rot *r, int t, int T) {
  TCP_NOCONTRACT
  for (int64_t i = t; i < n; i += T) {
    double xr = x[2 * i], xi = x[2 * i + 1], qr = y[2 * i], qi = y[2 * i + 1];
    double yr = TCP_ADD(TCP_MUL(qr, r->pr), -TCP_MUL(qi, r->pi));
    double yi = TCP_ADD(TCP_MUL(qr, r->pi), TCP_MUL(qi, r->pr));
    x[2 * i] = TCP_ADD(TCP_MUL(r->c, xr), -TCP_MUL(r->s, yr));
    x[2 * i + 1] = TCP_ADD(TCP_MUL(r->c, xi), -TCP_MUL(r->s, yi));
    y[2 * i] = TCP_ADD(TCP_MUL(r->s, xr), TCP_MUL(r->c, yr));
    y[2 * i + 1] = TCP_ADD(TCP_MUL(r->s, xi), TCP_MUL(r->c, yi));
  }
}

/* Singular values sv[j] = |W_j| for columns j = t, t+T, ... (each a
 * sequential sum, the reference's). */
TCS_HD void tcs_norms(const tcs_geom *g, double *wk, int t, int T) {
  TCP_NOCONTRACT
  const double *W = wk + g->oW;
  for (int64_t j = t; j < g->C; j += T) {
    double s = 0;
    for (int64_t i = 0; i < g->R; i++) {
      double re = W[2 * (j * g->R + i)], im = W[2 * (j * g->R + i) + 1];
      s = TCP_ADD(s, TCP_ADD(TCP_MUL(re, re), TCP_MUL(im, im)));
    }
    wk[g->oSv + j] = sqrt(s);
  }
}

/* The reference's stable insertion sort, descending; order[] as doubles
 * (exact integers). One thread. */
TCS_HD void tcs_sort(const tcs_geom *g, double *wk) {
  const double *sv = wk + g->oSv;
  double *ord = wk + g->oOrd;
  for (int64_t j = 0; j < g->C; j++) ord[j] = (double)j;
  for (int64_t a = 1; a < g->C; a++)
    for (int64_t c = a; c > 0 && sv[(int64_t)ord[c]] > sv[(int64_t)ord[c - 1]]; c--) {
      double x = ord[c];
      ord[c] = ord[c - 1];
      ord[c - 1] = x;
    }
}

/* Leading sorted columns with a non-zero singular value (the reference's `have`). */
TCS_HD int64_t tcs_have(const tcs_geom *g, const double *wk) {
  int64_t have = 0;
  while (have < g->C && wk[g->oSv + (int64_t)wk[g->oOrd + have]] > 0) have++;
  return have;
}

/* Q's first C columns: W's columns in sorted order over their norms (0 for a
 * zero column), elements e = t, t+T, ... */
TCS_HD void tcs_gather(const tcs_geom *g, double *wk, int t, int T) {
  const double *W = wk + g->oW;
  double *Q = wk + g->oQ;
  for (int64_t e = t; e < g->R * g->C; e += T) {
    int64_t j = e / g->R, i = e % g->R, o = (int64_t)wk[g->oOrd + j];
    double s = wk[g->oSv + o];
    Q[2 * e] = s > 0 ? W[2 * (o * g->R + i)] / s : 0;
    Q[2 * e + 1] = s > 0 ? W[2 * (o * g->R + i) + 1] / s : 0;
  }
}

/* Completion of column j: res[e] = 1 - sum_{c<j} |Q[c, e]|^2, the residual of
 * e_e, kept from column to column (the first time the reference's full sum;
 * then the next term: the same sequence of subtractions). */
TCS_HD void tcs_residual(const tcs_geom *g, double *wk, int64_t j, int64_t have, int t, int T) {
  TCP_NOCONTRACT
  const double *Q = wk + g->oQ;
  double *res = wk + g->oRes;
  for (int64_t e = t; e < g->R; e += T) {
    double r = j == have ? 1 : res[e];
    for (int64_t c = j == have ? 0 : j - 1; c < j; c++) {
      double dr = Q[2 * (c * g->R + e)], di = Q[2 * (c * g->R + e) + 1];
      r -= TCP_ADD(TCP_MUL(dr, dr), TCP_MUL(di, di));
    }
    res[e] = r;
  }
}
/* The pivot: the first e with the largest residual (every thread). */
TCS_HD int64_t tcs_pivot(const tcs_geom *g, const double *wk) {
  double best = -1;
  int64_t be = 0;
  for (int64_t e = 0; e < g->R; e++)
    if (wk[g->oRes + e] > best) {
      best = wk[g->oRes + e];
      be = e;
    }
  return be;
}
TCS_HD void tcs_unit(const tcs_geom *g, double *wk, int64_t be, int t, int T) {
  for (int64_t i = t; i < g->R; i += T) {
    wk[g->oT + 2 * i] = i == be;
    wk[g->oT + 2 * i + 1] = 0;
  }
}
/* tmp -= d * Q_c on rows t, t+T, ... (d = Q_c^H tmp from part[2..3]). */
TCS_HD void tcs_project(const tcs_geom *g, double *wk, int64_t c, double dr, double di, int t, int T) {
  TCP_NOCONTRACT
  const double *q = wk + g->oQ + 2 * c * g->R;
  double *x = wk + g->oT;
  for (int64_t i = t; i < g->R; i += T) {
    double qr = q[2 * i], qi = q[2 * i + 1];
    x[2 * i] -= TCP_ADD(TCP_MUL(dr, qr), -TCP_MUL(di, qi));
    x[2 * i + 1] -= TCP_ADD(TCP_MUL(dr, qi), TCP_MUL(di, qr));
  }
}
/* Q_j = tmp / |tmp| (0 when tmp is 0). */
TCS_HD void tcs_normalize(const tcs_geom *g, double *wk, int64_t j, double nrm, int t, int T) {
  const double *x = wk + g->oT;
  double *q = wk + g->oQ + 2 * j * g->R;
  for (int64_t i = t; i < g->R; i += T) {
    q[2 * i] = nrm > 0 ? x[2 * i] / nrm : 0;
    q[2 * i + 1] = nrm > 0 ? x[2 * i + 1] / nrm : 0;
  }
}

/* U, S, Vh of this matrix (contiguous), elements e = t, t+T, ... of each. */
TCS_HD void tcs_store(const tcs_geom *g, const double *wk, char *u, char *s, char *vh, int t, int T) {
  const double *Q = wk + g->oQ, *V = wk + g->oV, *ord = wk + g->oOrd;
  int64_t R = g->R, C = g->C;
  for (int64_t j = t; j < g->k; j += T) tcs_st(s, g->sdt, j, wk[g->oSv + (int64_t)ord[j]], 0);
  for (int64_t e = t; e < g->m * g->ucols; e += T) {
    int64_t i = e / g->ucols, j = e % g->ucols;
    const double *x = g->m >= g->n ? Q + 2 * (j * R + i) : V + 2 * ((int64_t)ord[j] * C + i);
    tcs_st(u, g->dt, e, x[0], x[1]);
  }
  for (int64_t e = t; e < g->vrows * g->n; e += T) {
    int64_t i = e / g->n, j = e % g->n;
    const double *x = g->m >= g->n ? V + 2 * ((int64_t)ord[i] * C + j) : Q + 2 * (i * R + j);
    tcs_st(vh, g->dt, e, x[0], -x[1]);
  }
}

/* --- the driver: one matrix on one block ----------------------------------------- */

/* The summed inner products of x and y (n elements) into part[0..3]. */
template <class X>
TCS_HD void tcs_dot(X &x, const double *a, const double *b, int64_t n, double *part) {
  x.run([&](int t, int T) { tcs_partial(a, b, n, part, t, T); });
  for (int s = 1; s < x.threads(); s *= 2) x.run([&](int t, int T) { tcs_tree(part, s, t, T); });
}

/* The whole SVD of matrix `a` (contiguous, g->dt) into u, s, vh (contiguous
 * slices of the outputs); wk: g->per doubles; part: 4 * threads doubles
 * (shared memory on the device); *bad set on non-finite input. */
template <class X>
TCS_HD void tcs_matrix(X &x, const tcs_geom *g, const char *a, double *wk, double *part, int *bad, char *u, char *s,
                       char *vh) {
  const int64_t R = g->R, C = g->C;
  double *W = wk + g->oW, *V = wk + g->oV, *Q = wk + g->oQ, *tmp = wk + g->oT;
  x.run([&](int t, int T) { tcs_load(g, a, wk, bad, t, T); });
  for (int sweep = 0; sweep < TCS_SWEEPS; sweep++) {
    int rotated = 0;
    for (int64_t p = 0; p < C; p++)
      for (int64_t q = p + 1; q < C; q++) {
        tcs_dot(x, W + 2 * p * R, W + 2 * q * R, R, part);
        tcs_rot r = tcs_rotation(part);
        if (!r.on) {
          x.run([&](int, int) {}); /* nobody may overwrite part before all have read it */
          continue;
        }
        rotated = 1;
        x.run([&](int t, int T) {
          tcs_rotate(W + 2 * p * R, W + 2 * q * R, R, &r, t, T);
          tcs_rotate(V + 2 * p * C, V + 2 * q * C, C, &r, t, T);
        });
      }
    if (!rotated) break;
  }
  x.run([&](int t, int T) { tcs_norms(g, wk, t, T); });
  x.run([&](int t, int) {
    if (t == 0) tcs_sort(g, wk);
  });
  x.run([&](int t, int T) { tcs_gather(g, wk, t, T); });
  const int64_t have = tcs_have(g, wk);
  for (int64_t j = have; j < g->qcols; j++) { /* ref_linalg_svd_complete */
    x.run([&](int t, int T) { tcs_residual(g, wk, j, have, t, T); });
    const int64_t be = tcs_pivot(g, wk);
    x.run([&](int t, int T) { tcs_unit(g, wk, be, t, T); });
    for (int pass = 0; pass < 2; pass++)
      for (int64_t c = 0; c < j; c++) {
        tcs_dot(x, Q + 2 * c * R, tmp, R, part);
        const double dr = part[2], di = part[3];
        x.run([&](int t, int T) { tcs_project(g, wk, c, dr, di, t, T); });
      }
    tcs_dot(x, tmp, tmp, R, part);
    const double nrm = sqrt(part[0]);
    x.run([&](int t, int T) { tcs_normalize(g, wk, j, nrm, t, T); });
  }
  x.run([&](int t, int T) { tcs_store(g, wk, u, s, vh, t, T); });
}

#endif
