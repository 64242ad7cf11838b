/* plugins/cuda/tc_blas.cu: mm, bmm, addmm.
 *
 * Floating and complex dtypes go to cuBLAS (cublasGemmEx for one matrix,
 * cublasGemmStridedBatchedEx for a batch; addmm with a bias row through
 * cuBLASLt's bias epilogue, lt_addmm): float32
 * computes in float32 with TF32 off (the handle's default math mode), float16
 * and bfloat16 accumulate in float32, float64 and complex in their own
 * precision. Operands with a unit stride in either dim are passed as they are
 * (row-major, or transposed); anything else is made contiguous first. Integer
 * dtypes, and empty inner dimensions, use a plain strided kernel (int64
 * accumulation, wrapping, as the reference). cuBLAS GEMM is bitwise
 * reproducible run to run, so deterministic mode needs nothing more. */
#if !defined(__HIPCC__) && !defined(TC_SIM) /* ROCm and gpusim compile this file too: own GEMM, rocm_gemm.cuh */
#include <cublasLt.h>
#include <cublas_v2.h>
#endif

#include "tc_algo_cache.h"
#include "tc_ew_dev.cuh"
#include "ref_misc_check.h"
#include "tc_ref_glue.h" /* ref_ew_round_opmath */

typedef struct mm_args {
  const char *a, *m, *s;
  char *o;
  int32_t dt, use_self, use_beta;
  int32_t prod_in_out; /* o already holds A @ M (a BLAS call's, with alpha 1): only the epilogue runs */
  int64_t nb, n, k, p;
  int64_t ast[3], mst[3], sst[3];
  double alpha[2], beta[2];
  int64_t ialpha, ibeta;
} mm_args;

__global__ void mm_naive(const mm_args j) {
  int64_t total = j.nb * j.n * j.p, stride = (int64_t)gridDim.x * blockDim.x;
  int esz = tc_dt_size(j.dt), cat = tc_cat(j.dt);
  for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < total; o += stride) {
    int64_t c = o % j.p, r = (o / j.p) % j.n, b = o / (j.p * j.n);
    int64_t ao = b * j.ast[0] + r * j.ast[1], mo = b * j.mst[0] + c * j.mst[2];
    int64_t so = b * j.sst[0] + r * j.sst[1] + c * j.sst[2];
    char *out = j.o + o * esz;
    if (cat == 0) {
      uint64_t acc = 0;
      for (int64_t i = 0; i < j.k; i++)
        acc += (uint64_t)tc_ld_i(j.a + (ao + i * j.ast[2]) * esz, j.dt) *
               (uint64_t)tc_ld_i(j.m + (mo + i * j.mst[1]) * esz, j.dt);
      if (j.use_self) {
        acc *= (uint64_t)j.ialpha;
        if (j.use_beta) acc += (uint64_t)j.ibeta * (uint64_t)tc_ld_i(j.s + so * esz, j.dt);
      }
      tc_st_i(out, j.dt, (int64_t)acc);
    } else if (cat == 1) {
      double acc = j.prod_in_out ? tc_ld_f(out, j.dt) : 0;
      for (int64_t i = 0; i < j.k && !j.prod_in_out; i++)
        acc += tc_ld_f(j.a + (ao + i * j.ast[2]) * esz, j.dt) * tc_ld_f(j.m + (mo + i * j.mst[1]) * esz, j.dt);
      if (j.use_self) {
        acc *= j.alpha[0];
        if (j.use_beta) acc += j.beta[0] * tc_ld_f(j.s + so * esz, j.dt);
      }
      tc_st_f(out, j.dt, acc);
    } else {
      tc_c acc = j.prod_in_out ? tc_ld_c(out, j.dt) : tc_c(0, 0);
      for (int64_t i = 0; i < j.k && !j.prod_in_out; i++)
        acc += tc_ld_c(j.a + (ao + i * j.ast[2]) * esz, j.dt) * tc_ld_c(j.m + (mo + i * j.mst[1]) * esz, j.dt);
      if (j.use_self) {
        acc *= tc_c(j.alpha[0], j.alpha[1]);
        if (j.use_beta) acc += tc_c(j.beta[0], j.beta[1]) * tc_ld_c(j.s + so * esz, j.dt);
      }
      tc_st_c(out, j.dt, acc);
    }
  }
}

/* j's pointers, dtype and scalars, for mm_naive and the ROCm kernels */
static void mm_fill(mm_args *j, const tabi_tensor *a, const tabi_tensor *m, const tabi_tensor *self,
                    tabi_tensor *out, tabi_dtype dt, int use_beta, const double al[2], const double be[2]) {
  j->a = (const char *)tabi_tensor_data(a);
  j->m = (const char *)tabi_tensor_data(m);
  j->s = self ? (const char *)tabi_tensor_data(self) : NULL;
  j->o = (char *)tabi_tensor_data(out);
  j->dt = dt;
  j->use_self = self != NULL;
  j->use_beta = use_beta;
  j->alpha[0] = al[0]; j->alpha[1] = al[1];
  j->beta[0] = be[0]; j->beta[1] = be[1];
}

#ifndef TC_HIP
static int blas_dtype(tabi_dtype dt, cudaDataType *t, cublasComputeType_t *ct) {
  switch (dt) {
    case TABI_DTYPE_FLOAT16: *t = CUDA_R_16F; *ct = CUBLAS_COMPUTE_32F; return 1;
    case TABI_DTYPE_BFLOAT16: *t = CUDA_R_16BF; *ct = CUBLAS_COMPUTE_32F; return 1;
    case TABI_DTYPE_FLOAT32: *t = CUDA_R_32F; *ct = CUBLAS_COMPUTE_32F; return 1;
    case TABI_DTYPE_FLOAT64: *t = CUDA_R_64F; *ct = CUBLAS_COMPUTE_64F; return 1;
    case TABI_DTYPE_COMPLEX64: *t = CUDA_C_32F; *ct = CUBLAS_COMPUTE_32F; return 1;
    case TABI_DTYPE_COMPLEX128: *t = CUDA_C_64F; *ct = CUBLAS_COMPUTE_64F; return 1;
    default: return 0;
  }
}
#endif

/* How cuBLAS can read a row-major [rows, cols] operand with strides (rs, cs):
 * 'N' with ld = rs when cs == 1, 'T' with ld = cs when rs == 1; 0 otherwise. */
static int blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int *trans, int64_t *ld) {
  if ((cs == 1 || cols == 1) && rs >= (cols > 1 ? cols : 1)) {
    *trans = 0;
    *ld = rows == 1 ? (cols > 1 ? cols : 1) : rs;
    return 1;
  }
  if ((rs == 1 || rows == 1) && cs >= (rows > 1 ? rows : 1)) {
    *trans = 1;
    *ld = cols == 1 ? (rows > 1 ? rows : 1) : cs;
    return 1;
  }
  return 0;
}

#ifdef TC_HIP
#include "rocm_gemm.cuh"
#endif

#ifndef TC_HIP
/* The alignment cuBLASLt may assume of a matrix: the largest power of two
 * dividing its address and its leading dimension in bytes, at most 256. The
 * heuristic assumes 256 unless told (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*),
 * and an algorithm that needs more than the data has faults on a misaligned
 * address, which ends the CUDA context. */
static uint32_t lt_align(const void *p, int64_t ld, tabi_dtype dt) {
  uint64_t v = (uint64_t)(uintptr_t)p | (uint64_t)ld * (uint64_t)tabi_dtype_size(dt) | 256u;
  return (uint32_t)(v & (~v + 1));
}

/* cuBLASLt's answer for one addmm configuration, as lt_addmm caches it: the
 * heuristic costs the host microseconds per call, as much as a small GEMM
 * takes on the device, and it answers the same for the same question. found
 * 0: the heuristic had no algorithm within the workspace (part of the key),
 * so the configuration goes to cublasGemmEx without asking again. */
typedef struct lt_choice {
  cublasLtMatmulAlgo_t algo;
  int32_t found;
} lt_choice;

/* Every input of the heuristic's question: the device (its handle), types,
 * transposes, sizes, leading dims, the alignments it is told, the workspace
 * it may use. The bias pointer is not one: the epilogue reads it at any
 * address. */
#define LT_ALGO_KEYS 256
static tc_algo_cache *lt_algo_cache(tc_ctx *c) { return tc_algo_cache_of(&c->lt_algos, &c->mu, LT_ALGO_KEYS); }

/* addmm whose self is a bias row (shape [p] or [1, p], unit stride), beta 1,
 * alpha real and nonzero, float32/float16/bfloat16, every dim above 1 (the
 * cases PyTorch sends to cuBLASLt too): cuBLASLt's bias epilogue adds self
 * while the product is stored, D = alpha A M + bias, where cublasGemmEx
 * needs self broadcast into out first and reads it back (beta 1): one write
 * and one read of the output fewer. In the column-major view the product is
 * C^T = M^T A^T, and the bias runs down D's rows: the output's columns. The
 * heuristic may not take in-place split-K reductions (INPLACE): the plugin
 * keeps every result's bits fixed run to run; it is told each matrix's real
 * alignment (lt_align). Its answer is cached per configuration (lt_choice;
 * PyTorch asks on every call). Returns 1 when it ran; 0 (no error set) when
 * cuBLASLt is absent or refuses, for the cublasGemmEx path. */
static int lt_addmm(tc_ctx *c, int32_t dev, cudaDataType bt, cublasComputeType_t ct, int tm, int64_t ldm,
                    int ta, int64_t lda, const mm_args *j, float alpha, const tabi_tensor *a, const tabi_tensor *m,
                    const tabi_tensor *self, tabi_tensor *out) {
  cublasLtHandle_t lt = (cublasLtHandle_t)tc_cublaslt(c, dev);
  void *ws = c->blas_ws[dev];
  uint64_t wsb = ws ? c->blas_ws_bytes[dev] : 0;
  if (!lt) return 0;
  tabi_dtype dt = tabi_tensor_dtype(out);
  uint32_t align[4] = {lt_align(tabi_tensor_data(m), ldm, dt), lt_align(tabi_tensor_data(a), lda, dt),
                       lt_align(tabi_tensor_data(out), j->p, dt), lt_align(tabi_tensor_data(out), j->p, dt)};
  char key[TC_ALGO_KEY];
  snprintf(key, sizeof key, "lt d%d t%d c%d %d%d %lld %lld %lld ld %lld %lld al %u %u %u ws %llu", (int)dev,
           (int)bt, (int)ct, tm, ta, (long long)j->n, (long long)j->p, (long long)j->k, (long long)ldm,
           (long long)lda, align[0], align[1], align[2], (unsigned long long)wsb);
  lt_choice ch;
  memset(&ch, 0, sizeof ch);
  int cached = tc_algo_cache_get(lt_algo_cache(c), key, &ch, sizeof ch);
  if (cached && !ch.found) return 0;
  cublasLtMatmulDesc_t d = NULL;
  cublasLtMatrixLayout_t lm = NULL, la = NULL, lo = NULL;
  cublasLtMatmulPreference_t pref = NULL;
  int32_t om = tm ? CUBLAS_OP_T : CUBLAS_OP_N, oa = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  uint32_t epi = CUBLASLT_EPILOGUE_BIAS,
           mask = CUBLASLT_REDUCTION_SCHEME_NONE | CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE |
                  CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE;
  const void *bias = tabi_tensor_data(self);
  float beta = 0;
  /* M^T: p x k (stored k x p when transposed); A^T: k x n (stored n x k); D: p x n */
  cublasStatus_t s = cublasLtMatmulDescCreate(&d, ct, CUDA_R_32F);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &om, sizeof om);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &oa, sizeof oa);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatrixLayoutCreate(&lm, bt, tm ? j->k : j->p, tm ? j->p : j->k, ldm);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatrixLayoutCreate(&la, bt, ta ? j->n : j->k, ta ? j->k : j->n, lda);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&lo, bt, j->p, j->n, j->p);
  if (!cached) {
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulPreferenceCreate(&pref);
    if (s == CUBLAS_STATUS_SUCCESS)
      s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb);
    if (s == CUBLAS_STATUS_SUCCESS)
      s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &mask, sizeof mask);
    const cublasLtMatmulPreferenceAttributes_t align_attr[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int x = 0; x < 4 && s == CUBLAS_STATUS_SUCCESS; x++)
      s = cublasLtMatmulPreferenceSetAttribute(pref, align_attr[x], &align[x], sizeof align[x]);
    if (s == CUBLAS_STATUS_SUCCESS) {
      cublasLtMatmulHeuristicResult_t res;
      int got = 0;
      memset(&res, 0, sizeof res);
      s = cublasLtMatmulAlgoGetHeuristic(lt, d, lm, la, lo, lo, pref, 1, &res, &got);
      /* An answer, yes or no, is kept; a failed call (out of memory) is not. */
      if (s == CUBLAS_STATUS_SUCCESS || s == CUBLAS_STATUS_NOT_SUPPORTED) {
        ch.found = s == CUBLAS_STATUS_SUCCESS && got > 0 && res.state == CUBLAS_STATUS_SUCCESS &&
                   res.workspaceSize <= wsb;
        ch.algo = res.algo;
        tc_algo_cache_put(lt_algo_cache(c), key, &ch, sizeof ch);
      }
    }
  }
  int ran = s == CUBLAS_STATUS_SUCCESS && ch.found &&
            cublasLtMatmul(lt, d, &alpha, tabi_tensor_data(m), lm, tabi_tensor_data(a), la, &beta,
                           tabi_tensor_data(out), lo, tabi_tensor_data(out), lo, &ch.algo, ws, wsb,
                           0) == CUBLAS_STATUS_SUCCESS;
  if (pref) cublasLtMatmulPreferenceDestroy(pref);
  if (lo) cublasLtMatrixLayoutDestroy(lo);
  if (la) cublasLtMatrixLayoutDestroy(la);
  if (lm) cublasLtMatrixLayoutDestroy(lm);
  if (d) cublasLtMatmulDescDestroy(d);
  return ran;
}
#endif

/* An operand's strides as mm_args keeps them: batch, row, column (a matrix
 * has no batch stride). */
static void mm_strides(const tabi_tensor *t, int batched, int64_t st[3]) {
  st[0] = batched ? t->dl.strides[0] : 0;
  st[1] = t->dl.strides[batched ? 1 : 0];
  st[2] = t->dl.strides[batched ? 2 : 1];
}

static tabi_status mm_common(tc_ctx *c, const tabi_call *call, tabi_tensor *self, tabi_tensor *a,
                             tabi_tensor *m, const char *an, const char *mn, int batched,
                             const tabi_value *beta, const tabi_value *alpha, tabi_value *outs) {
  const char *op = tc_op_name(c, call);
  int32_t nd = batched ? 3 : 2;
  tabi_dtype dt = tabi_tensor_dtype(a);
  const tabi_tensor *chk[2] = {a, m};
  const char *names[2] = {an, mn};
  for (int i = 0; i < 2; i++) {
    if (chk[i]->dl.ndim != nd)
      return TC_ERR(c, TABI_ERR_SHAPE, "%s: argument '%s' must be a %dD tensor (a %s), got %dD", op,
                    names[i], (int)nd, nd == 2 ? "matrix" : "batch of matrices", (int)chk[i]->dl.ndim);
  }
  if (dt == TABI_DTYPE_BOOL || tabi_dtype_size(dt) == 0)
    return TC_ERR(c, TABI_ERR_TYPE, "%s: argument '%s' has dtype %s; expected an integer, floating "
                  "or complex dtype", op, an, tabi_dtype_name(dt));
  if (tabi_tensor_dtype(m) != dt || (self && tabi_tensor_dtype(self) != dt))
    return TC_ERR(c, TABI_ERR_TYPE, "%s: argument '%s' has dtype %s; expected %s (the dtype of '%s')",
                  op, tabi_tensor_dtype(m) != dt ? mn : "self",
                  tabi_dtype_name(tabi_tensor_dtype(m) != dt ? tabi_tensor_dtype(m) : tabi_tensor_dtype(self)),
                  tabi_dtype_name(dt), an);
  tabi_status st;
  if ((st = tc_check_cuda(c, a, op, an)) || (st = tc_check_cuda(c, m, op, mn))) return st;
  if (self && (st = tc_check_cuda(c, self, op, "self"))) return st;
  mm_args j;
  memset(&j, 0, sizeof j);
  const int64_t *as = a->dl.shape, *ms = m->dl.shape;
  if (batched) {
    if (ms[0] != as[0] || ms[1] != as[2])
      return TC_ERR(c, TABI_ERR_SHAPE, "%s: '%s' and '%s' shapes cannot be multiplied (%lldx%lldx%lld "
                    "and %lldx%lldx%lld)", op, an, mn, (long long)as[0], (long long)as[1],
                    (long long)as[2], (long long)ms[0], (long long)ms[1], (long long)ms[2]);
    j.nb = as[0]; j.n = as[1]; j.k = as[2]; j.p = ms[2];
  } else {
    if (as[1] != ms[0])
      return TC_ERR(c, TABI_ERR_SHAPE, "%s: %s and %s shapes cannot be multiplied (%lldx%lld and "
                    "%lldx%lld)", op, an, mn, (long long)as[0], (long long)as[1], (long long)ms[0],
                    (long long)ms[1]);
    j.nb = 1; j.n = as[0]; j.k = as[1]; j.p = ms[1];
  }
  mm_strides(a, batched, j.ast);
  mm_strides(m, batched, j.mst);
  if (self) {
    int64_t target[2] = {j.n, j.p};
    int ok = self->dl.ndim <= 2;
    for (int32_t i = 0; ok && i < self->dl.ndim; i++) {
      int32_t o = 2 - self->dl.ndim + i;
      int64_t s = self->dl.shape[i];
      ok = s == target[o] || s == 1;
      j.sst[o + 1] = s == 1 ? 0 : self->dl.strides[i];
    }
    if (!ok)
      return TC_ERR(c, TABI_ERR_SHAPE, "%s: argument 'self' does not broadcast to the product's shape "
                    "[%lld, %lld]", op, (long long)j.n, (long long)j.p);
  }
  if (self && (st = ref_addmm_scalars_check(c->h, call, j.nb * j.n * j.p, j.k, dt, beta, alpha)) != TABI_OK)
    return st;
  if ((st = tc_use_device(c, a, op)) != TABI_OK) return st;
  int64_t shape3[3] = {j.nb, j.n, j.p};
  tabi_tensor *out = NULL;
  if ((st = tc_empty(c, a->dl.device, dt, nd, batched ? shape3 : shape3 + 1, &out)) != TABI_OK) return st;
  int64_t total = j.nb * j.n * j.p;
  double al[2] = {1, 0}, be[2] = {0, 0};
  int use_beta = 0;
  if (self) {
    al[0] = tabi_value_as_double(alpha);
    al[1] = alpha->tag == TABI_TAG_COMPLEX ? alpha->u.c[1] : 0;
    be[0] = tabi_value_as_double(beta);
    be[1] = beta->tag == TABI_TAG_COMPLEX ? beta->u.c[1] : 0;
    /* ATen applies alpha and beta in the math type (float for float32, the
     * half types and complex64: a beta of 1e-310 is 0 there and self is not
     * read); an empty inner dim tests the Scalar itself, then scales self by
     * the rounded beta (the reference's mm_run, with its rounding rule;
     * tc_ref_glue.h says why not a copy of it) */
    int beta_nz = !(be[0] == 0 && be[1] == 0);
    if (tabi_dtype_is_floating(dt) || tabi_dtype_is_complex(dt))
      for (int i = 0; i < 2; i++) {
        al[i] = ref_ew_round_opmath(al[i], dt);
        be[i] = ref_ew_round_opmath(be[i], dt);
      }
    use_beta = j.k == 0 ? beta_nz : !(be[0] == 0 && be[1] == 0);
    j.ialpha = alpha->tag == TABI_TAG_INT || alpha->tag == TABI_TAG_BOOL ? alpha->u.i : (int64_t)al[0];
    j.ibeta = beta->tag == TABI_TAG_INT || beta->tag == TABI_TAG_BOOL ? beta->u.i : (int64_t)be[0];
  }
  /* BLAS does not form A @ M when alpha is 0 (its convention: the operands
   * are not read), but ATen does, so an inf in them makes NaN rows. A zero
   * alpha therefore asks BLAS for the bare product and mm_naive's epilogue
   * (prod: o holds the product) scales it and adds beta * self. */
  int zero_alpha = self && al[0] == 0 && al[1] == 0, naive = 0, prod = 0;
  tabi_tensor *ca = NULL, *cm = NULL; /* contiguous copies of a and m, for cuBLAS */
#ifndef TC_HIP
  cudaDataType bt;
  cublasComputeType_t ct;
  int ta = 0, tm = 0;
  int64_t lda = 0, ldm = 0;
  int blas = total > 0 && j.k > 0 && blas_dtype(dt, &bt, &ct);
  /* cuBLAS reads an operand with a unit stride in either dim; any other
   * layout (a step-2 slice, say) is copied contiguous first, as ATen does,
   * rather than left to mm_naive's thread per output element. */
  if (blas && !blas_layout(j.n, j.k, j.ast[1], j.ast[2], &ta, &lda)) {
    st = tc_contiguous(c, op, a, &ca);
    if (st == TABI_OK) {
      a = ca;
      mm_strides(a, batched, j.ast);
    }
  }
  if (st == TABI_OK && blas && !blas_layout(j.k, j.p, j.mst[1], j.mst[2], &tm, &ldm)) {
    st = tc_contiguous(c, op, m, &cm);
    if (st == TABI_OK) {
      m = cm;
      mm_strides(m, batched, j.mst);
    }
  }
  int gemm = st == TABI_OK && blas && blas_layout(j.n, j.k, j.ast[1], j.ast[2], &ta, &lda) &&
             blas_layout(j.k, j.p, j.mst[1], j.mst[2], &tm, &ldm) && j.nb < INT32_MAX &&
             j.n < INT32_MAX && j.p < INT32_MAX && j.k < INT32_MAX && lda < INT32_MAX && ldm < INT32_MAX;
  int32_t dev = a->dl.device.device_id;
  cublasHandle_t hb = gemm ? (cublasHandle_t)tc_cublas(c, dev, op) : NULL; /* also makes the workspace */
  int bias_row = gemm && hb && self && !batched && be[0] == 1 && be[1] == 0 && al[0] != 0 && al[1] == 0 &&
                 j.sst[1] == 0 && j.sst[2] == 1 && j.n > 1 && j.k > 1 && j.p > 1 &&
                 (dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16);
  if (bias_row && lt_addmm(c, dev, bt, ct, tm, ldm, ta, lda, &j, (float)al[0], a, m, self, out)) {
    /* done by cuBLASLt */
  } else if (gemm) {
    if (!hb) st = TABI_ERR_DEVICE;
    if (st == TABI_OK && self && use_beta && !zero_alpha) st = tc_copy_convert(c, op, out, self);
    if (st == TABI_OK) {
      /* row-major C = A @ M is column-major C^T = M^T @ A^T; a zero alpha
       * asks for the bare product, scaled below */
      double ga[2] = {zero_alpha ? 1 : al[0], zero_alpha ? 0 : al[1]};
      double gb[2] = {use_beta && !zero_alpha ? be[0] : 0, use_beta && !zero_alpha ? be[1] : 0};
      float fa[2] = {(float)ga[0], (float)ga[1]}, fb[2] = {(float)gb[0], (float)gb[1]};
      const void *pa = ct == CUBLAS_COMPUTE_64F ? (const void *)ga : (const void *)fa;
      const void *pb = ct == CUBLAS_COMPUTE_64F ? (const void *)gb : (const void *)fb;
      cublasSetStream(hb, 0);
      cublasOperation_t om = tm ? CUBLAS_OP_T : CUBLAS_OP_N, oa = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
      /* One matrix: cublasGemmEx, cuBLAS's single-GEMM entry (a batch of one
       * is still a batched call to cuBLAS, whose heuristics may pick another
       * kernel; mm bf16/f16 were 0.97-0.98x PyTorch through it, not yet
       * re-timed). */
      cublasStatus_t bs =
          j.nb == 1 ? cublasGemmEx(hb, om, oa, (int)j.p, (int)j.n, (int)j.k, pa, tabi_tensor_data(m), bt,
                                   (int)ldm, tabi_tensor_data(a), bt, (int)lda, pb, tabi_tensor_data(out),
                                   bt, (int)j.p, ct, CUBLAS_GEMM_DEFAULT)
                    : cublasGemmStridedBatchedEx(hb, om, oa, (int)j.p, (int)j.n, (int)j.k, pa,
                                                 tabi_tensor_data(m), bt, (int)ldm, batched ? j.mst[0] : 0,
                                                 tabi_tensor_data(a), bt, (int)lda, batched ? j.ast[0] : 0, pb,
                                                 tabi_tensor_data(out), bt, (int)j.p, j.n * j.p, (int)j.nb,
                                                 ct, CUBLAS_GEMM_DEFAULT);
      if (bs == CUBLAS_STATUS_ALLOC_FAILED)
        st = TC_ERR(c, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory in cuBLAS", op);
      else if (bs != CUBLAS_STATUS_SUCCESS)
        st = TC_ERR(c, TABI_ERR_DEVICE, "%s: cuBLAS GEMM failed (status %d)", op, (int)bs);
      prod = zero_alpha && st == TABI_OK;
    }
  } else {
    naive = st == TABI_OK && total > 0;
  }
#else
  /* ROCm: rocBLAS when loaded, else the tiled kernel; other dtypes below */
  int done = 0;
  mm_fill(&j, a, m, self, out, dt, use_beta, al, be);
  if (total > 0 && j.k > 0) st = rocm_gemm(c, op, &j, self, out, batched, zero_alpha, &done, &prod);
  naive = st == TABI_OK && !done && total > 0;
#endif
  if (naive || prod) {
    mm_fill(&j, a, m, self, out, dt, use_beta, al, be);
    j.prod_in_out = prod;
    int64_t g = (total + 255) / 256;
    TC_LAUNCH((int)(g > 65536 ? 65536 : g), 256, mm_naive)(j);
    st = tc_launch_status(c, op);
  }
  /* the copies' reads are ordered before their release on the one stream */
  if (ca) c->h->tensor_release(c->h->ctx, ca);
  if (cm) c->h->tensor_release(c->h->ctx, cm);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, out);
    return st;
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

static tabi_status k_mm(TC_ARGS) {
  return mm_common((tc_ctx *)ctx, call, NULL, args[0].u.t, args[1].u.t, "self", "mat2", 0, NULL, NULL, outs);
}
static tabi_status k_bmm(TC_ARGS) {
  return mm_common((tc_ctx *)ctx, call, NULL, args[0].u.t, args[1].u.t, "self", "mat2", 1, NULL, NULL, outs);
}
static tabi_status k_addmm(TC_ARGS) {
  return mm_common((tc_ctx *)ctx, call, args[0].u.t, args[1].u.t, args[2].u.t, "mat1", "mat2", 0,
                   &args[3], &args[4], outs);
}

TC_KTABLE tc_kernel tc_blas_kernels[] = {
    {"aten::mm", k_mm}, {"aten::bmm", k_bmm}, {"aten::addmm", k_addmm}, {NULL, NULL}};
