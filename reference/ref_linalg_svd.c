/* reference/ref_linalg_svd.c: prims::svd by one-sided (Hestenes) Jacobi.
 *
 * Why Jacobi: it is short, needs no library, and is accurate to working
 * precision (each rotation is exactly unitary up to rounding), which is what an
 * oracle wants. Every matrix is processed in complex double; a real matrix stays
 * real through it (every phase is then +-1).
 *
 * The factors are not unique: each singular vector pair (u_j, v_j) may be
 * multiplied by any unit scalar (a sign for real input), and for repeated or
 * zero singular values any orthonormal basis of the subspace does. Conformance
 * and tests therefore check U diag(S) Vh == A, the orthonormality of U and Vh,
 * and S (sorted descending, non-negative), never U or Vh themselves.
 *
 * Non-finite input is refused (TABI_ERR_INVALID_ARGUMENT), as LAPACK-backed
 * torch.linalg.svd does ("the input matrix contained non-finite values"). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref_linalg_util.h"

/* W is R x C column-major (column j at W + j*R), R >= C; V is C x C. */
static void jacobi(ref_cplx *W, int64_t R, int64_t C, ref_cplx *V) {
  for (int sweep = 0; sweep < 80; sweep++) {
    int rotated = 0;
    for (int64_t p = 0; p < C; p++)
      for (int64_t q = p + 1; q < C; q++) {
        ref_cplx *ap = W + p * R, *aq = W + q * R;
        double alpha = 0, beta = 0;
        ref_cplx gamma = 0;
        for (int64_t i = 0; i < R; i++) {
          alpha += creal(ap[i]) * creal(ap[i]) + cimag(ap[i]) * cimag(ap[i]);
          beta += creal(aq[i]) * creal(aq[i]) + cimag(aq[i]) * cimag(aq[i]);
          gamma += conj(ap[i]) * aq[i];
        }
        double g = cabs(gamma);
        if (alpha == 0 || beta == 0 || !(g > 4 * DBL_EPSILON * sqrt(alpha) * sqrt(beta)))
          continue;
        rotated = 1;
        /* rotate (a_p, a_q e^{-i phi}) by the real Jacobi angle that zeroes
         * their inner product; the 2x2 transform is unitary */
        ref_cplx ph = conj(gamma / g);
        double zeta = (beta - alpha) / (2 * g);
        double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1 + zeta * zeta));
        double c = 1 / sqrt(1 + t * t), s = c * t;
        for (int64_t i = 0; i < R; i++) {
          ref_cplx x = ap[i], y = aq[i] * ph;
          ap[i] = c * x - s * y;
          aq[i] = s * x + c * y;
        }
        ref_cplx *vp = V + p * C, *vq = V + q * C;
        for (int64_t i = 0; i < C; i++) {
          ref_cplx x = vp[i], y = vq[i] * ph;
          vp[i] = c * x - s * y;
          vq[i] = s * x + c * y;
        }
      }
    if (!rotated) break;
  }
}

/* Columns have..ncols-1 of Q (R rows, column-major) are filled with unit vectors
 * orthogonal to every earlier column: Gram-Schmidt (twice, for accuracy) on the
 * standard basis vector that keeps the largest residual. The choice depends on
 * the earlier columns only through |Q[i, c]| and the projector, so it is the
 * same for any sign or phase of those columns (the CPU plugin's LAPACK path
 * completes with this function and so matches the reference). */
void ref_linalg_svd_complete(ref_cplx *Q, int64_t R, int64_t have, int64_t ncols, ref_cplx *tmp) {
  for (int64_t j = have; j < ncols; j++) {
    double best = -1;
    int64_t best_e = 0;
    for (int64_t e = 0; e < R; e++) {
      double r = 1; /* residual norm^2 of e_e after projecting out columns 0..j-1 */
      for (int64_t c = 0; c < j; c++) {
        ref_cplx d = Q[c * R + e];
        r -= creal(d) * creal(d) + cimag(d) * cimag(d);
      }
      if (r > best) {
        best = r;
        best_e = e;
      }
    }
    for (int64_t i = 0; i < R; i++) tmp[i] = i == best_e;
    for (int pass = 0; pass < 2; pass++)
      for (int64_t c = 0; c < j; c++) {
        ref_cplx d = 0;
        for (int64_t i = 0; i < R; i++) d += conj(Q[c * R + i]) * tmp[i];
        for (int64_t i = 0; i < R; i++) tmp[i] -= d * Q[c * R + i];
      }
    double nrm = 0;
    for (int64_t i = 0; i < R; i++) nrm += creal(tmp[i]) * creal(tmp[i]) + cimag(tmp[i]) * cimag(tmp[i]);
    nrm = sqrt(nrm);
    for (int64_t i = 0; i < R; i++) Q[j * R + i] = nrm > 0 ? tmp[i] / nrm : 0;
  }
}

tabi_status ref_linalg_svd_check(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *A,
                                 int64_t *m, int64_t *n, int64_t *batch) {
  tabi_status st;
  const uint32_t dts = REF_DT(TABI_DTYPE_FLOAT32) | REF_DT(TABI_DTYPE_FLOAT64) | REF_DTS_COMPLEX;
  if ((st = ref_check_dtype(h, call, "A", tabi_tensor_dtype(A), dts))) return st;
  int32_t nd = A->dl.ndim;
  if (nd < 2)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'A' must have at least 2 dims, got %d",
                   ref_op_name(h, call), (int)nd);
  *m = A->dl.shape[nd - 2];
  *n = A->dl.shape[nd - 1];
  *batch = 1;
  for (int32_t i = 0; i < nd - 2; i++) *batch *= A->dl.shape[i];
  return TABI_OK;
}

tabi_status ref_linalg_svd_nonfinite(const tabi_host_api *h, const tabi_call *call) {
  return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                 "%s: argument 'A' contains non-finite values (the algorithm cannot converge)",
                 ref_op_name(h, call));
}

tabi_status ref_linalg_svd(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *A = args[0].u.t;
  int full = args[1].u.i != 0;
  tabi_dtype dt = tabi_tensor_dtype(A);
  tabi_status st;
  int64_t m, n, batch;
  if ((st = ref_linalg_svd_check(h, call, A, &m, &n, &batch))) return st;
  int32_t nd = A->dl.ndim;
  int64_t k = m < n ? m : n;
  int64_t ucols = full ? m : k, vrows = full ? n : k;
  tabi_dtype real_dt = dt == TABI_DTYPE_COMPLEX64 ? TABI_DTYPE_FLOAT32
                       : dt == TABI_DTYPE_COMPLEX128 ? TABI_DTYPE_FLOAT64 : dt;
  int64_t shp[REF_MAX_DIMS];
  for (int32_t i = 0; i < nd; i++) shp[i] = A->dl.shape[i];
  tabi_tensor *U = NULL, *S = NULL, *Vh = NULL;
  shp[nd - 2] = m;
  shp[nd - 1] = ucols;
  if ((st = ref_empty(h, A, dt, nd, shp, &U))) return st;
  shp[nd - 2] = k;
  if ((st = ref_empty(h, A, real_dt, nd - 1, shp, &S))) goto fail;
  shp[nd - 2] = vrows;
  shp[nd - 1] = n;
  if ((st = ref_empty(h, A, dt, nd, shp, &Vh))) goto fail;

  int64_t R = m >= n ? m : n, C = k; /* the work matrix is A, or A^H when m < n */
  size_t cnt = (size_t)(R * R + C * C + R + C + 1);
  ref_cplx *W = malloc(cnt * sizeof *W); /* R x R: C columns used, the rest for completion */
  if (!W) {
    st = REF_ERR(h, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", ref_op_name(h, call));
    goto fail;
  }
  ref_cplx *V = W + R * R, *tmp = V + C * C;
  double *sv = malloc((size_t)(C + 1) * sizeof *sv);
  int64_t *order = malloc((size_t)(C + 1) * sizeof *order);
  ref_cplx *Q = malloc((size_t)(R * R + C * C + 1) * sizeof *Q); /* sorted U', V' */
  if (!sv || !order || !Q) {
    free(W);
    free(sv);
    free(order);
    free(Q);
    st = REF_ERR(h, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", ref_op_name(h, call));
    goto fail;
  }
  ref_cplx *QV = Q + R * R;
  st = TABI_OK;
  for (int64_t b = 0; b < batch && st == TABI_OK; b++) {
    int64_t base = 0, rem = b;
    for (int32_t i = nd - 3; i >= 0; i--) {
      base += (rem % A->dl.shape[i]) * A->dl.strides[i];
      rem /= A->dl.shape[i];
    }
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        ref_cplx x = ref_load_c(A, base + i * A->dl.strides[nd - 2] + j * A->dl.strides[nd - 1]);
        if (!isfinite(creal(x)) || !isfinite(cimag(x))) {
          st = ref_linalg_svd_nonfinite(h, call);
          break;
        }
        if (m >= n) W[j * R + i] = x; /* W = A */
        else W[i * R + j] = conj(x);  /* W = A^H: row j, column i */
      }
    if (st != TABI_OK) break;
    for (int64_t i = 0; i < C * C; i++) V[i] = (i / C == i % C);
    jacobi(W, R, C, V);
    for (int64_t j = 0; j < C; j++) {
      double s = 0;
      for (int64_t i = 0; i < R; i++) s += creal(W[j * R + i]) * creal(W[j * R + i]) + cimag(W[j * R + i]) * cimag(W[j * R + i]);
      sv[j] = sqrt(s);
      order[j] = j;
    }
    for (int64_t a = 1; a < C; a++) /* stable insertion sort, descending */
      for (int64_t c = a; c > 0 && sv[order[c]] > sv[order[c - 1]]; c--) {
        int64_t t = order[c];
        order[c] = order[c - 1];
        order[c - 1] = t;
      }
    int64_t have = 0; /* leading columns with a non-zero singular value */
    for (int64_t j = 0; j < C; j++) {
      double s = sv[order[j]];
      for (int64_t i = 0; i < R; i++) Q[j * R + i] = s > 0 ? W[order[j] * R + i] / s : 0;
      for (int64_t i = 0; i < C; i++) QV[j * C + i] = V[order[j] * C + i];
      if (s > 0 && have == j) have++;
    }
    /* U' needs C columns (thin) or R (full, when it is the tall side) */
    int64_t qcols = (m >= n ? ucols : vrows);
    ref_linalg_svd_complete(Q, R, have, qcols, tmp);
    int64_t sbase = b * k, ubase = b * m * ucols, vbase = b * vrows * n;
    for (int64_t j = 0; j < k; j++) ref_store_f(S, sbase + j, sv[order[j]]);
    if (m >= n) { /* U = Q (m x ucols), Vh = QV^H (n x n) */
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < ucols; j++) ref_store_c(U, ubase + i * ucols + j, Q[j * R + i]);
      for (int64_t i = 0; i < vrows; i++)
        for (int64_t j = 0; j < n; j++) ref_store_c(Vh, vbase + i * n + j, conj(QV[i * C + j]));
    } else { /* A = QV S Q^H: U = QV (m x m), Vh = Q^H (vrows x n) */
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < ucols; j++) ref_store_c(U, ubase + i * ucols + j, QV[j * C + i]);
      for (int64_t i = 0; i < vrows; i++)
        for (int64_t j = 0; j < n; j++) ref_store_c(Vh, vbase + i * n + j, conj(Q[i * R + j]));
    }
  }
  free(W);
  free(sv);
  free(order);
  free(Q);
  if (st != TABI_OK) goto fail;
  ref_set_out(outs, 0, U);
  ref_set_out(outs, 1, S);
  ref_set_out(outs, 2, Vh);
  return TABI_OK;
fail:
  h->tensor_release(h->ctx, U);
  h->tensor_release(h->ctx, S);
  h->tensor_release(h->ctx, Vh);
  return st;
}
