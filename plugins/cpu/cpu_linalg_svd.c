/* plugins/cpu/cpu_linalg_svd.c: prims::svd through LAPACK's divide-and-conquer
 * SVD (dgesdd/zgesdd from OpenBLAS), when the plugin is built with it
 * (TABI_CPU_LAPACK).
 *
 * Every matrix is factored in double precision (complex double for complex
 * input) and the factors rounded once at the store, as the reference (one-sided
 * Jacobi in complex double) does: float32 results then agree with it to
 * float32 rounding, not to float32 LAPACK's accuracy.
 *
 * The factors are unique only up to a sign (phase) per singular vector pair,
 * and the columns full_matrices adds are any orthonormal basis of the
 * complement. For those the plugin uses the reference's own completion
 * (ref_linalg_svd_complete: Gram-Schmidt on the standard basis, independent of
 * the signs of the earlier columns), so U, S and Vh agree with the reference
 * up to those signs, which is what conformance compares. A numerically rank
 * deficient matrix goes to the reference: the vectors of its zero singular
 * values are arbitrary, and only the reference's choice is the reference's.
 *
 * Batches run one matrix per task on the pool; a single matrix runs on the
 * calling thread and LAPACK's BLAS threads itself. Empty matrices, other
 * dtypes, non-finite input (the reference's error), rank deficiency and LAPACK
 * failures run the reference kernel.
 */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "ref_linalg_util.h"

#ifdef TABI_CPU_LAPACK

/* LAPACK's Fortran entry points; the trailing size_t is the hidden length of
 * the character argument (gfortran's convention). */
extern void dgesdd_(const char *jobz, const int *m, const int *n, double *a, const int *lda, double *s,
                    double *u, const int *ldu, double *vt, const int *ldvt, double *work, const int *lwork,
                    int *iwork, int *info, size_t jobz_len);
extern void zgesdd_(const char *jobz, const int *m, const int *n, ref_cplx *a, const int *lda, double *s,
                    ref_cplx *u, const int *ldu, ref_cplx *vt, const int *ldvt, ref_cplx *work,
                    const int *lwork, double *rwork, int *iwork, int *info, size_t jobz_len);

typedef struct svd_job {
  const tabi_tensor *A;
  tabi_tensor *U, *S, *Vh;
  int32_t nd;
  int64_t m, n, k, ucols, vrows;
  int cplx, full;
  atomic_int failed; /* 1: non-finite input or a LAPACK failure: the reference decides */
} svd_job;

static int64_t batch_base(const tabi_tensor *t, int32_t nd, int64_t b) {
  int64_t base = 0;
  for (int32_t i = nd - 3; i >= 0; i--) {
    base += (b % t->dl.shape[i]) * t->dl.strides[i];
    b /= t->dl.shape[i];
  }
  return base;
}

/* Every buffer handed to LAPACK sits inside a zeroed guard of GUARD bytes on
 * each side. Debian 12's OpenBLAS 0.3.21 has out-of-bounds reads in its
 * Haswell complex gemv kernels (OpenBLAS issue #5000, cgemv_n; zgemv_n here,
 * under zgesdd -> zungbr -> zlarf): valgrind shows reads 16 bytes and more
 * before our buffers, and the test segfaulted in 8 of 12 runs when a buffer
 * started a fresh mapping. The stray lanes do not reach the results (they
 * match the reference), so the guard only keeps the reads inside memory we
 * own. */
#define GUARD 4096
static void *lapack_alloc(size_t bytes) {
  char *p = calloc(1, bytes + 2 * GUARD);
  return p ? p + GUARD : NULL;
}
static void lapack_free(void *p) {
  if (p) free((char *)p - GUARD);
}

/* Thin SVD of the m x n column-major matrix a (destroyed): s (k), u (m x k,
 * ld m), vt (k x n, ld k). Real matrices use a, u, vt as double arrays. */
static int gesdd(int cplx, int m, int n, void *a, double *s, void *u, void *vt) {
  int k = m < n ? m : n, lwork = -1, info = 0, *iwork = lapack_alloc(sizeof(int) * 8 * (size_t)k);
  char jobz = 'S';
  double *rwork = NULL;
  void *work = NULL;
  int ok = iwork != NULL;
  if (ok && cplx) {
    int big = m > n ? m : n;
    size_t lr = (size_t)k * (size_t)(5 * k + 7 > 2 * big + 2 * k + 1 ? 5 * k + 7 : 2 * big + 2 * k + 1);
    rwork = lapack_alloc(sizeof(double) * lr);
    ref_cplx q;
    zgesdd_(&jobz, &m, &n, a, &m, s, u, &m, vt, &k, &q, &lwork, rwork, iwork, &info, 1);
    lwork = (int)creal(q);
    ok = rwork && info == 0 && (work = lapack_alloc(sizeof(ref_cplx) * (size_t)(lwork > 1 ? lwork : 1)));
    if (ok) zgesdd_(&jobz, &m, &n, a, &m, s, u, &m, vt, &k, work, &lwork, rwork, iwork, &info, 1);
  } else if (ok) {
    double q;
    dgesdd_(&jobz, &m, &n, a, &m, s, u, &m, vt, &k, &q, &lwork, iwork, &info, 1);
    lwork = (int)q;
    ok = info == 0 && (work = lapack_alloc(sizeof(double) * (size_t)(lwork > 1 ? lwork : 1)));
    if (ok) dgesdd_(&jobz, &m, &n, a, &m, s, u, &m, vt, &k, work, &lwork, iwork, &info, 1);
  }
  lapack_free(iwork);
  lapack_free(rwork);
  lapack_free(work);
  return ok && info == 0;
}

/* Element (i, j) of LAPACK's u (m x k) and vt (k x n), column-major. */
static ref_cplx at(const svd_job *j, const void *buf, int64_t ld, int64_t i, int64_t c) {
  return j->cplx ? ((const ref_cplx *)buf)[i + c * ld] : ((const double *)buf)[i + c * ld];
}

static void svd_one(svd_job *j, int64_t b) {
  int64_t m = j->m, n = j->n, k = j->k, es = j->cplx ? sizeof(ref_cplx) : sizeof(double);
  int64_t R = m > n ? m : n;
  void *a = lapack_alloc((size_t)(m * n + m * k + k * n) * (size_t)es); /* a, u, vt */
  double *s = lapack_alloc(sizeof(double) * (size_t)k);
  if (!a || !s) {
    lapack_free(a);
    lapack_free(s);
    atomic_store(&j->failed, 1);
    return;
  }
  char *u = (char *)a + m * n * es, *vt = u + m * k * es;
  const tabi_tensor *A = j->A;
  int64_t base = batch_base(A, j->nd, b), rs = A->dl.strides[j->nd - 2], cs = A->dl.strides[j->nd - 1];
  int finite = 1;
  for (int64_t c = 0; c < n; c++)
    for (int64_t i = 0; i < m; i++) {
      ref_cplx x = ref_load_c(A, base + i * rs + c * cs);
      finite &= isfinite(creal(x)) && isfinite(cimag(x));
      if (j->cplx) ((ref_cplx *)a)[i + c * m] = x;
      else ((double *)a)[i + c * m] = creal(x);
    }
  if (!finite || !gesdd(j->cplx, (int)m, (int)n, a, s, u, vt)) {
    lapack_free(a);
    lapack_free(s);
    atomic_store(&j->failed, 1);
    return;
  }
  /* Numerically rank deficient: the vectors of the (near) zero singular
   * values are any basis of a subspace, and the reference's choice (Jacobi's
   * untouched columns, then its completion) is not LAPACK's: the reference
   * decides. s is sorted, descending. */
  if (!(s[k - 1] > s[0] * (double)R * 4 * DBL_EPSILON)) {
    lapack_free(a);
    lapack_free(s);
    atomic_store(&j->failed, 1);
    return;
  }
  int64_t have = k;
  for (int64_t c = 0; c < k; c++) ref_store_c(j->S, b * k + c, s[c]);
  int64_t ub = b * m * j->ucols, vb = b * j->vrows * n;
  int64_t qcols = m >= n ? j->ucols : j->vrows; /* columns of the tall side's factor */
  if (have == qcols) { /* nothing to complete: LAPACK's factors as they are */
    for (int64_t i = 0; i < m; i++)
      for (int64_t c = 0; c < j->ucols; c++) ref_store_c(j->U, ub + i * j->ucols + c, at(j, u, m, i, c));
    for (int64_t i = 0; i < j->vrows; i++)
      for (int64_t c = 0; c < n; c++) ref_store_c(j->Vh, vb + i * n + c, at(j, vt, k, i, c));
  } else {
    /* Q: the tall side's columns (U's, or Vh's rows conjugated), completed */
    ref_cplx *Q = malloc(sizeof(ref_cplx) * (size_t)(R * R + R));
    if (!Q) {
      lapack_free(a);
      lapack_free(s);
      atomic_store(&j->failed, 1);
      return;
    }
    for (int64_t c = 0; c < have; c++)
      for (int64_t i = 0; i < R; i++) Q[c * R + i] = m >= n ? at(j, u, m, i, c) : conj(at(j, vt, k, c, i));
    ref_linalg_svd_complete(Q, R, have, qcols, Q + R * R);
    if (m >= n) {
      for (int64_t i = 0; i < m; i++)
        for (int64_t c = 0; c < j->ucols; c++) ref_store_c(j->U, ub + i * j->ucols + c, Q[c * R + i]);
      for (int64_t i = 0; i < j->vrows; i++)
        for (int64_t c = 0; c < n; c++) ref_store_c(j->Vh, vb + i * n + c, at(j, vt, k, i, c));
    } else {
      for (int64_t i = 0; i < m; i++)
        for (int64_t c = 0; c < j->ucols; c++) ref_store_c(j->U, ub + i * j->ucols + c, at(j, u, m, i, c));
      for (int64_t i = 0; i < j->vrows; i++)
        for (int64_t c = 0; c < n; c++) ref_store_c(j->Vh, vb + i * n + c, conj(Q[i * R + c]));
    }
    free(Q);
  }
  lapack_free(a);
  lapack_free(s);
}

static void svd_range(void *arg, int64_t b, int64_t e) {
  for (int64_t i = b; i < e; i++) svd_one(arg, i);
}

tabi_status cpu_k_p_svd(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_BOOL) return CPU_FALLBACK(c, P_SVD);
  const tabi_tensor *A = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(A);
  int32_t nd = A->dl.ndim;
  if ((dt != TABI_DTYPE_FLOAT32 && dt != TABI_DTYPE_FLOAT64 && dt != TABI_DTYPE_COMPLEX64 &&
       dt != TABI_DTYPE_COMPLEX128) || nd < 2 || nd > 8)
    return CPU_FALLBACK(c, P_SVD);
  svd_job j = {.A = A, .nd = nd, .m = A->dl.shape[nd - 2], .n = A->dl.shape[nd - 1],
               .cplx = tabi_dtype_is_complex(dt), .full = args[1].u.i != 0};
  /* LAPACK's int sizes; the work arrays stay far below 2^31 elements */
  if (j.m < 1 || j.n < 1 || j.m > 46340 || j.n > 46340) return CPU_FALLBACK(c, P_SVD);
  j.k = j.m < j.n ? j.m : j.n;
  j.ucols = j.full ? j.m : j.k;
  j.vrows = j.full ? j.n : j.k;
  int64_t batch = 1, shp[8];
  for (int32_t i = 0; i < nd - 2; i++) {
    batch *= A->dl.shape[i];
    shp[i] = A->dl.shape[i];
  }
  if (batch < 1) return CPU_FALLBACK(c, P_SVD);
  tabi_dtype real = dt == TABI_DTYPE_COMPLEX64 ? TABI_DTYPE_FLOAT32 : dt == TABI_DTYPE_COMPLEX128 ? TABI_DTYPE_FLOAT64 : dt;
  shp[nd - 2] = j.m;
  shp[nd - 1] = j.ucols;
  tabi_status st = cpu_empty(c, A, dt, nd, shp, &j.U);
  shp[nd - 2] = j.k;
  if (st == TABI_OK) st = cpu_empty(c, A, real, nd - 1, shp, &j.S);
  shp[nd - 2] = j.vrows;
  shp[nd - 1] = j.n;
  if (st == TABI_OK) st = cpu_empty(c, A, dt, nd, shp, &j.Vh);
  if (st == TABI_OK) {
    if (batch == 1) svd_one(&j, 0);
    else cpu_parallel_for(c->pool, batch, 1, svd_range, &j);
  }
  if (st != TABI_OK || atomic_load(&j.failed)) {
    c->host->tensor_release(c->host->ctx, j.U);
    c->host->tensor_release(c->host->ctx, j.S);
    c->host->tensor_release(c->host->ctx, j.Vh);
    return st != TABI_OK ? st : CPU_FALLBACK(c, P_SVD);
  }
  outs[0] = tabi_tensor_value(j.U);
  outs[1] = tabi_tensor_value(j.S);
  outs[2] = tabi_tensor_value(j.Vh);
  return TABI_OK;
}

#else /* no LAPACK: the reference's Jacobi */

tabi_status cpu_k_p_svd(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  return CPU_FALLBACK(c, P_SVD);
}

#endif
