/* plugins/gpusim/sim_vendor.cpp: the cuBLAS stand-in of sim_vendor.h, and the
 * helpers the three stand-ins share (faults, violations).
 *
 * GEMM is cuBLAS's: column-major C = alpha op(A) op(B) + beta C, op one of
 * N, T, C (conjugate transpose); alpha and beta are host values of the
 * compute type (float for COMPUTE_32F, double for COMPUTE_64F; a pair for
 * complex data); beta == 0 means C is written without being read, so NaN in
 * an uninitialised C does not leak. Sums run in the compute type, in k order.
 * The arguments are checked as cuBLAS checks them (negative sizes, leading
 * dimensions below the rows they must hold: CUBLAS_STATUS_INVALID_VALUE;
 * a data type the compute type does not take: NOT_SUPPORTED), which a GPU
 * reports too, but only for the shapes the GPU run happens to try. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>

#include "tc_sim.h"
#include <tabi/half.h>

static std::atomic<int> violations{0};

int tc_sim_vendor_violations(void) { return violations.load(); }

void (*tc_sim_vendor_inside_hook)(void) = NULL;

/* The first few are printed (one write each, so threads' lines stay whole). */
void tc_sim_vendor_violation(const char *fmt, ...) {
  int n = ++violations;
  if (n > 5) return;
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "%s: vendor contract violated: %s%s\n", SIM_FLAVOUR, msg,
          n == 5 ? " (further violations are counted, not printed)" : "");
}

int tc_sim_vendor_fault(const char *what) {
  const char *f = getenv("TABI_GPUSIM_FAULT");
  size_t n = strlen(what);
  for (const char *p = f; p && *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && strncmp(p, what, n) == 0) return 1;
    p = e ? e + 1 : NULL;
  }
  return 0;
}

/* --- cuBLAS ------------------------------------------------------------------ */

struct sim_cublas {
  cublasMath_t math;
  void *ws;
  size_t ws_bytes;
};

cublasStatus_t cublasCreate(cublasHandle_t *out) {
  if (!out) return CUBLAS_STATUS_INVALID_VALUE;
  *out = (cublasHandle_t)calloc(1, sizeof(sim_cublas));
  return *out ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}
cublasStatus_t cublasDestroy(cublasHandle_t h) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  free(h);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t) {
  return h ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t m) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->math = m;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetWorkspace(cublasHandle_t h, void *ws, size_t bytes) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->ws = ws;
  h->ws_bytes = bytes;
  return CUBLAS_STATUS_SUCCESS;
}

/* One element of a matrix of type t, as (re, im). */
static void blas_ld(const void *p, cudaDataType t, long long i, double *re, double *im) {
  *im = 0;
  switch (t) {
    case CUDA_R_16F: *re = tabi_f16_to_f32(((const uint16_t *)p)[i]); break;
    case CUDA_R_16BF: *re = tabi_bf16_to_f32(((const uint16_t *)p)[i]); break;
    case CUDA_R_32F: *re = ((const float *)p)[i]; break;
    case CUDA_R_64F: *re = ((const double *)p)[i]; break;
    case CUDA_C_32F: *re = ((const float *)p)[2 * i]; *im = ((const float *)p)[2 * i + 1]; break;
    default: *re = ((const double *)p)[2 * i]; *im = ((const double *)p)[2 * i + 1]; break;
  }
}
static void blas_st(void *p, cudaDataType t, long long i, double re, double im) {
  switch (t) {
    case CUDA_R_16F: ((uint16_t *)p)[i] = tabi_f32_to_f16((float)re); break;
    case CUDA_R_16BF: ((uint16_t *)p)[i] = tabi_f32_to_bf16((float)re); break;
    case CUDA_R_32F: ((float *)p)[i] = (float)re; break;
    case CUDA_R_64F: ((double *)p)[i] = re; break;
    case CUDA_C_32F: ((float *)p)[2 * i] = (float)re; ((float *)p)[2 * i + 1] = (float)im; break;
    default: ((double *)p)[2 * i] = re; ((double *)p)[2 * i + 1] = im; break;
  }
}

double tc_sim_tf32(double v) {
  uint32_t u = tabi_f32_bits((float)v);
  if ((u & 0x7f800000u) == 0x7f800000u) return v;
  return tabi_bits_f32((u + 0x1000u) & 0xffffe000u);
}

struct gemm_call {
  cublasOperation_t ta, tb;
  int m, n, k, lda, ldb, ldc, tf;
  const void *a, *b;
  void *c;
  cudaDataType t;
  double al[2], be[2];
};

/* A's (i, l) element of op(A) (i < m, l < k); the same for B with (l, j). */
template <typename T>
static void op_ld(const void *p, cudaDataType t, cublasOperation_t o, int ld, int r, int c, int tf, T *re,
                  T *im) {
  double x, y;
  blas_ld(p, t, o == CUBLAS_OP_N ? (long long)r + (long long)c * ld : (long long)c + (long long)r * ld, &x, &y);
  if (tf) x = tc_sim_tf32(x);
  *re = (T)x;
  *im = (T)(o == CUBLAS_OP_C ? -y : y);
}

/* Real data takes only real products (a complex product's 0 * inf would
 * make NaN where cuBLAS gives inf). */
template <typename T>
static void gemm_one(const gemm_call &g, int cplx, const char *a, const char *b, char *c) {
  for (int j = 0; j < g.n; j++)
    for (int i = 0; i < g.m; i++) {
      T sr = 0, si = 0;
      for (int l = 0; l < g.k; l++) {
        T ar, ai, br, bi;
        op_ld<T>(a, g.t, g.ta, g.lda, i, l, g.tf, &ar, &ai);
        op_ld<T>(b, g.t, g.tb, g.ldb, l, j, g.tf, &br, &bi);
        if (cplx) {
          sr += ar * br - ai * bi;
          si += ar * bi + ai * br;
        } else {
          sr += ar * br;
        }
      }
      T rr = (T)g.al[0] * sr, ri = 0;
      if (cplx) {
        rr -= (T)g.al[1] * si;
        ri = (T)g.al[0] * si + (T)g.al[1] * sr;
      }
      long long ci = (long long)i + (long long)j * g.ldc;
      if (g.be[0] != 0 || g.be[1] != 0) {
        double cr, cim;
        blas_ld(c, g.t, ci, &cr, &cim);
        rr += (T)g.be[0] * (T)cr;
        if (cplx) {
          rr -= (T)g.be[1] * (T)cim;
          ri += (T)g.be[0] * (T)cim + (T)g.be[1] * (T)cr;
        }
      }
      blas_st(c, g.t, ci, rr, ri);
    }
}

static size_t blas_size(cudaDataType t) {
  return t == CUDA_R_16F || t == CUDA_R_16BF ? 2 : t == CUDA_R_32F ? 4 : t == CUDA_C_64F ? 16 : 8;
}

static cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                           const void *alpha, const void *a, cudaDataType at, int lda, long long sa, const void *b,
                           cudaDataType bt, int ldb, long long sb, const void *beta, void *c, cudaDataType ct,
                           int ldc, long long sc, int batch, cublasComputeType_t comp) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  auto ok_op = [](cublasOperation_t o) { return o == CUBLAS_OP_N || o == CUBLAS_OP_T || o == CUBLAS_OP_C; };
  auto rows = [](cublasOperation_t o, int r, int cc) { return o == CUBLAS_OP_N ? r : cc; };
  if (!ok_op(ta) || !ok_op(tb) || m < 0 || n < 0 || k < 0 || batch < 0 || lda < 1 || ldb < 1 ||
      ldc < 1 || lda < rows(ta, m, k) || ldb < rows(tb, k, n) || ldc < m || !alpha || !beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  int single = at == CUDA_R_16F || at == CUDA_R_16BF || at == CUDA_R_32F || at == CUDA_C_32F;
  if (at != bt || at != ct || (single ? comp != CUBLAS_COMPUTE_32F : comp != CUBLAS_COMPUTE_64F))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (tc_sim_vendor_fault("blas-alloc")) return CUBLAS_STATUS_ALLOC_FAILED;
  if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
  gemm_call g = {ta, tb, m, n, k, lda, ldb, ldc, h->math == CUBLAS_TF32_TENSOR_OP_MATH && at == CUDA_R_32F,
                 a, b, c, at, {0, 0}, {0, 0}};
  int cplx = at == CUDA_C_32F || at == CUDA_C_64F;
  for (int i = 0; i < (cplx ? 2 : 1); i++) {
    g.al[i] = single ? ((const float *)alpha)[i] : ((const double *)alpha)[i];
    g.be[i] = single ? ((const float *)beta)[i] : ((const double *)beta)[i];
    if (tc_sim_vendor_fault("blas-wrong")) g.al[i] = -g.al[i]; /* a wrong result, to show the call is reached */
  }
  size_t es = blas_size(at);
  for (int p = 0; p < batch; p++) {
    const char *pa = (const char *)a + (size_t)(sa * p) * es, *pb = (const char *)b + (size_t)(sb * p) * es;
    char *pc = (char *)c + (size_t)(sc * p) * es;
    if (single) gemm_one<float>(g, cplx, pa, pb, pc);
    else gemm_one<double>(g, cplx, pa, pb, pc);
  }
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            const void *alpha, const void *a, cudaDataType at, int lda, const void *b,
                            cudaDataType bt, int ldb, const void *beta, void *c, cudaDataType ct, int ldc,
                            cublasComputeType_t comp, cublasGemmAlgo_t) {
  return gemm(h, ta, tb, m, n, k, alpha, a, at, lda, 0, b, bt, ldb, 0, beta, c, ct, ldc, 0, 1, comp);
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                                          int n, int k, const void *alpha, const void *a, cudaDataType at,
                                          int lda, long long sa, const void *b, cudaDataType bt, int ldb,
                                          long long sb, const void *beta, void *c, cudaDataType ct, int ldc,
                                          long long sc, int batch, cublasComputeType_t comp, cublasGemmAlgo_t) {
  return gemm(h, ta, tb, m, n, k, alpha, a, at, lda, sa, b, bt, ldb, sb, beta, c, ct, ldc, sc, batch, comp);
}
