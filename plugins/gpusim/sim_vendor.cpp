/* plugins/gpusim/sim_vendor.cpp: the cuBLAS and cuBLASLt stand-ins of
 * sim_vendor.h, and the helpers the stand-ins share (faults, violations).
 *
 * GEMM is cuBLAS's: column-major C = alpha op(A) op(B) + beta C, op one of
 * N, T, C (conjugate transpose); alpha and beta are host values of the
 * compute type (float for COMPUTE_32F, double for COMPUTE_64F; a pair for
 * complex data); beta == 0 means C is written without being read, so NaN in
 * an uninitialised C does not leak, and alpha == 0 means A and B are not
 * read (the BLAS convention, which an H200 showed cuBLAS keeps: an inf in A
 * gives no NaN then, where ATen's 0 * inf does). Sums run in the compute type, in k order.
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
#include <new>

#include "tc_sim.h"
#include <tabi/half.h>

static std::atomic<int> violations{0};

int tc_sim_vendor_violations(void) { return violations.load(); }

static std::atomic<int> lt_heuristics{0};
int tc_sim_lt_heuristics(void) { return lt_heuristics.load(); }

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
  const void *bias; /* cuBLASLt's bias epilogue: bias[i] added to row i (real types) */
  unsigned rot;     /* cuBLASLt's INPLACE algorithm: the k sum starts at l = rot % k */
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
  int kk = g.al[0] == 0 && g.al[1] == 0 ? 0 : g.k;
  for (int j = 0; j < g.n; j++)
    for (int i = 0; i < g.m; i++) {
      T sr = 0, si = 0;
      for (int ll = 0; ll < kk; ll++) {
        int l = (int)((ll + g.rot) % (unsigned)g.k);
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
      if (g.bias) {
        double br, bi;
        blas_ld(g.bias, g.t, i, &br, &bi);
        rr += (T)br;
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
                 a, b, c, at, {0, 0}, {0, 0}, NULL, 0};
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

/* --- cuBLASLt ----------------------------------------------------------------
 * cublasLtMatmul as the plugin's addmm uses it: D = alpha op(A) op(B) + beta C
 * (+ bias[i] on row i with CUBLASLT_EPILOGUE_BIAS), one matrix, real types,
 * scale type float for COMPUTE_32F, double for COMPUTE_64F. The rules
 * sim_vendor.h lists are checked; TABI_GPUSIM_FAULT "lt" makes the heuristic
 * find nothing (the glue must fall back), "lt-wrong" negates alpha. */

struct sim_lt {
  std::atomic<unsigned> calls{0};
};
struct sim_lt_desc {
  cublasComputeType_t comp;
  cudaDataType scale;
  int32_t ta, tb; /* cublasOperation_t */
  uint32_t epi;
  const void *bias;
  int32_t bias_type;
};
struct sim_lt_layout {
  cudaDataType t;
  unsigned long long rows, cols;
  long long ld;
};
struct sim_lt_pref {
  uint64_t ws;
  uint32_t mask;
  uint32_t align[4]; /* A, B, C, D: what the heuristic may assume */
};

enum { LT_INPLACE = 1, LT_PLAIN = 2 };
static const size_t LT_WS = (size_t)1 << 20;

template <typename T>
static cublasStatus_t lt_new(T **out) {
  if (!out) return CUBLAS_STATUS_INVALID_VALUE;
  *out = new (std::nothrow) T();
  return *out ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}
template <typename T>
static cublasStatus_t lt_delete(T *p) {
  if (!p) return CUBLAS_STATUS_INVALID_VALUE;
  delete p;
  return CUBLAS_STATUS_SUCCESS;
}
/* An attribute's value: the buffer must be exactly the attribute's size. */
template <typename T>
static cublasStatus_t lt_set(T *dst, const void *buf, size_t bytes) {
  if (!buf || bytes != sizeof(T)) return CUBLAS_STATUS_INVALID_VALUE;
  memcpy(dst, buf, sizeof(T));
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtCreate(cublasLtHandle_t *out) { return lt_new(out); }
cublasStatus_t cublasLtDestroy(cublasLtHandle_t h) { return h ? lt_delete(h) : CUBLAS_STATUS_NOT_INITIALIZED; }

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *out, cublasComputeType_t comp, cudaDataType scale) {
  cublasStatus_t st = lt_new(out);
  if (st != CUBLAS_STATUS_SUCCESS) return st;
  (*out)->comp = comp;
  (*out)->scale = scale;
  (*out)->ta = (*out)->tb = CUBLAS_OP_N;
  (*out)->epi = CUBLASLT_EPILOGUE_DEFAULT;
  (*out)->bias_type = -1;
  return st;
}
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d) { return lt_delete(d); }
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr,
                                              const void *buf, size_t bytes) {
  if (!d) return CUBLAS_STATUS_INVALID_VALUE;
  switch (attr) {
    case CUBLASLT_MATMUL_DESC_TRANSA: return lt_set(&d->ta, buf, bytes);
    case CUBLASLT_MATMUL_DESC_TRANSB: return lt_set(&d->tb, buf, bytes);
    case CUBLASLT_MATMUL_DESC_EPILOGUE: return lt_set(&d->epi, buf, bytes);
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER: return lt_set(&d->bias, buf, bytes);
    case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE: return lt_set(&d->bias_type, buf, bytes);
  }
  return CUBLAS_STATUS_INVALID_VALUE;
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *out, cudaDataType t, unsigned long long rows,
                                          unsigned long long cols, long long ld) {
  cublasStatus_t st = lt_new(out);
  if (st == CUBLAS_STATUS_SUCCESS) **out = sim_lt_layout{t, rows, cols, ld};
  return st;
}
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l) { return lt_delete(l); }

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *out) {
  cublasStatus_t st = lt_new(out);
  if (st == CUBLAS_STATUS_SUCCESS) **out = sim_lt_pref{0, CUBLASLT_REDUCTION_SCHEME_MASK, {256, 256, 256, 256}};
  return st;
}
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p) { return lt_delete(p); }
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t p,
                                                    cublasLtMatmulPreferenceAttributes_t attr, const void *buf,
                                                    size_t bytes) {
  if (!p) return CUBLAS_STATUS_INVALID_VALUE;
  switch (attr) {
    case CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES: return lt_set(&p->ws, buf, bytes);
    case CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK: return lt_set(&p->mask, buf, bytes);
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES:
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES:
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES:
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES:
      return lt_set(&p->align[attr - CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES], buf, bytes);
  }
  return CUBLAS_STATUS_INVALID_VALUE;
}

/* The problem the descriptors describe, checked: m, n, k into g. */
static cublasStatus_t lt_problem(const sim_lt_desc *d, const sim_lt_layout *a, const sim_lt_layout *b,
                                 const sim_lt_layout *c, const sim_lt_layout *o, gemm_call *g) {
  if (!d || !a || !b || !c || !o) return CUBLAS_STATUS_INVALID_VALUE;
  auto ok_op = [](int32_t x) { return x == CUBLAS_OP_N || x == CUBLAS_OP_T; };
  if (!ok_op(d->ta) || !ok_op(d->tb)) return CUBLAS_STATUS_INVALID_VALUE;
  unsigned long long am = d->ta == CUBLAS_OP_N ? a->rows : a->cols, ak = d->ta == CUBLAS_OP_N ? a->cols : a->rows;
  unsigned long long bk = d->tb == CUBLAS_OP_N ? b->rows : b->cols, bn = d->tb == CUBLAS_OP_N ? b->cols : b->rows;
  if (am != o->rows || bn != o->cols || ak != bk || c->rows != o->rows || c->cols != o->cols)
    return CUBLAS_STATUS_INVALID_VALUE;
  const sim_lt_layout *all[4] = {a, b, c, o};
  for (const sim_lt_layout *l : all)
    if (l->ld < 1 || (unsigned long long)l->ld < l->rows || l->ld > 0x7fffffff || l->rows > 0x7fffffffu ||
        l->cols > 0x7fffffffu)
      return CUBLAS_STATUS_INVALID_VALUE;
  cudaDataType t = a->t;
  int single = t == CUDA_R_16F || t == CUDA_R_16BF || t == CUDA_R_32F;
  if (b->t != t || c->t != t || o->t != t || (!single && t != CUDA_R_64F) ||
      d->comp != (single ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_64F) || d->scale != (single ? CUDA_R_32F : CUDA_R_64F))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (d->epi != CUBLASLT_EPILOGUE_DEFAULT && d->epi != CUBLASLT_EPILOGUE_BIAS) return CUBLAS_STATUS_NOT_SUPPORTED;
  if (d->epi == CUBLASLT_EPILOGUE_BIAS && (!d->bias || (d->bias_type != -1 && d->bias_type != (int32_t)t)))
    return CUBLAS_STATUS_INVALID_VALUE;
  *g = gemm_call{(cublasOperation_t)d->ta, (cublasOperation_t)d->tb, (int)o->rows, (int)o->cols, (int)ak,
                 (int)a->ld, (int)b->ld, (int)o->ld, 0, NULL, NULL, NULL, t, {0, 0}, {0, 0},
                 d->epi == CUBLASLT_EPILOGUE_BIAS ? d->bias : NULL, 0};
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t h, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t a,
                                              cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c,
                                              cublasLtMatrixLayout_t o, cublasLtMatmulPreference_t p, int want,
                                              cublasLtMatmulHeuristicResult_t *res, int *got) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  lt_heuristics++;
  if (!p || want <= 0 || !res || !got) return CUBLAS_STATUS_INVALID_VALUE;
  gemm_call g;
  cublasStatus_t st = lt_problem(d, a, b, c, o, &g);
  if (st != CUBLAS_STATUS_SUCCESS) return st;
  *got = 0;
  if (tc_sim_vendor_fault("lt") || p->ws < LT_WS) return CUBLAS_STATUS_NOT_SUPPORTED;
  int ids[2], n = 0;
  if (p->mask & CUBLASLT_REDUCTION_SCHEME_INPLACE) ids[n++] = LT_INPLACE;
  ids[n++] = LT_PLAIN;
  for (int i = 0; i < n && *got < want; i++) {
    cublasLtMatmulHeuristicResult_t r;
    memset(&r, 0, sizeof r);
    r.algo.data[0] = (unsigned long long)ids[i];
    for (int x = 0; x < 4; x++) r.algo.data[1 + x] = p->align[x]; /* the alignment it assumes */
    r.workspaceSize = LT_WS;
    r.state = CUBLAS_STATUS_SUCCESS;
    r.wavesCount = 1;
    res[(*got)++] = r;
  }
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t d, const void *alpha, const void *a,
                              cublasLtMatrixLayout_t al, const void *b, cublasLtMatrixLayout_t bl, const void *beta,
                              const void *c, cublasLtMatrixLayout_t cl, void *dd, cublasLtMatrixLayout_t dl,
                              const cublasLtMatmulAlgo_t *algo, void *ws, size_t ws_bytes, cudaStream_t) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!alpha || !beta || !algo) return CUBLAS_STATUS_INVALID_VALUE;
  gemm_call g;
  cublasStatus_t st = lt_problem(d, al, bl, cl, dl, &g);
  if (st != CUBLAS_STATUS_SUCCESS) return st;
  unsigned long long id = algo->data[0];
  if ((id != LT_INPLACE && id != LT_PLAIN) || ws_bytes < LT_WS || !ws) return CUBLAS_STATUS_INVALID_VALUE;
  if (c == dd && (cl->rows != dl->rows || cl->cols != dl->cols || cl->ld != dl->ld || cl->t != dl->t))
    return CUBLAS_STATUS_INVALID_VALUE; /* in place only with C's layout D's */
  if (tc_sim_vendor_fault("blas-alloc")) return CUBLAS_STATUS_ALLOC_FAILED;
  size_t es = blas_size(g.t);
  const void *ptr[4] = {a, b, c, dd};
  const sim_lt_layout *lay[4] = {al, bl, cl, dl};
  for (int x = 0; x < 4; x++) {
    unsigned long long v = (unsigned long long)(uintptr_t)ptr[x] | (unsigned long long)lay[x]->ld * es | 256u;
    unsigned long long have = v & (~v + 1); /* the largest power of two dividing both, at most 256 */
    if (have < algo->data[1 + x]) {
      tc_sim_vendor_violation("cuBLASLt: matrix %c is aligned to %llu bytes, its algorithm assumes %llu "
                              "(a misaligned address on a GPU)", "ABCD"[x], have, algo->data[1 + x]);
      for (int j = 0; j < g.n; j++)
        for (int i = 0; i < g.m; i++) blas_st(dd, g.t, (long long)i + (long long)j * dl->ld, NAN, 0);
      return CUBLAS_STATUS_SUCCESS;
    }
  }
  int single = d->scale == CUDA_R_32F;
  g.al[0] = single ? *(const float *)alpha : *(const double *)alpha;
  g.be[0] = single ? *(const float *)beta : *(const double *)beta;
  if (tc_sim_vendor_fault("lt-wrong")) g.al[0] = -g.al[0]; /* a wrong result, to show the call is reached */
  g.a = a;
  g.b = b;
  g.c = dd;
  if (id == LT_INPLACE) g.rot = h->calls.fetch_add(1) * 7919u; /* its order changes call to call */
  if (g.m == 0 || g.n == 0) return CUBLAS_STATUS_SUCCESS;
  if (c != dd && (g.be[0] != 0)) /* D starts as C, then the product is added in place */
    for (int j = 0; j < g.n; j++)
      memcpy((char *)dd + (size_t)j * (size_t)dl->ld * es, (const char *)c + (size_t)j * (size_t)cl->ld * es,
             (size_t)g.m * es);
  if (single) gemm_one<float>(g, 0, (const char *)a, (const char *)b, (char *)dd);
  else gemm_one<double>(g, 0, (const char *)a, (const char *)b, (char *)dd);
  return CUBLAS_STATUS_SUCCESS;
}
