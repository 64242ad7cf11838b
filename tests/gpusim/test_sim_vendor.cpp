/* tests/gpusim/test_sim_vendor.cpp: the host stand-ins of cuBLAS, cuFFT and
 * cuDNN (plugins/gpusim/sim_vendor.h) against the libraries' documented
 * meaning, computed here independently, and the contract checks they add.
 * gpusim_cuda's conformance run trusts them as the oracle of the CUDA glue's
 * library calls, so they are checked on their own first:
 *   - GEMM: every op pair (N, T, C) in float32/float64/complex128/float16,
 *     column-major with leading dimensions larger than the rows, batches
 *     with a broadcast operand, beta = 0 not reading C, bad arguments;
 *   - cuBLASLt: the bias epilogue down D's rows for every op pair, C != D
 *     with beta, attribute sizes, shapes, workspace and in-place layout
 *     checks, the reduction-scheme mask and the INPLACE algorithm's order
 *     changing from call to call, a matrix less aligned than the algorithm
 *     assumed counted as a violation;
 *   - FFT: C2C both ways on a radix-2 and a direct length, R2C's n/2+1
 *     outputs, C2R inverting R2C (times n) and overwriting its input, plans
 *     refused after destroy or for the wrong type, one plan run by two
 *     threads at once counted as a violation;
 *   - convolution: forward against a direct sum (groups, stride, padding,
 *     dilation, an NHWC filter and channels-last input strides); backward
 *     data and filter as the forward's adjoints (<conv(x, w), dy> = <x,
 *     bwd_data(dy, w)> = <w, bwd_filter(x, dy)>); the algorithm list, the
 *     TF32 algorithm's rounding, workspace and descriptor checks, Find's NaN,
 *     one handle used by two threads at once counted as a violation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <complex>
#include <functional>
#include <thread>
#include <vector>

#include "tc_sim.h"
#include <tabi/half.h>
#include "check.h"

typedef std::complex<double> cd;

static double rnd(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffff) / 32768.0 - 1.0;
}

/* Two threads, the second's call made while the first's is inside its
 * library call (tc_sim_vendor_inside_hook holds the first there until the
 * second returns): the overlap happens every run, under any load. */
static std::atomic<int> hook_inside{0}, hook_released{0};
static void hold_first(void) {
  if (hook_inside.exchange(1) == 0)
    while (!hook_released.load()) std::this_thread::yield();
}
template <class F>
static void overlap(F first, F second) {
  hook_inside = 0;
  hook_released = 0;
  tc_sim_vendor_inside_hook = hold_first;
  std::thread a(first);
  while (!hook_inside.load()) std::this_thread::yield();
  second();
  hook_released = 1;
  a.join();
  tc_sim_vendor_inside_hook = NULL;
}

/* --- GEMM ------------------------------------------------------------------ */

static cd op_el(const std::vector<cd> &m, int ld, cublasOperation_t o, int r, int c) {
  cd v = o == CUBLAS_OP_N ? m[(size_t)(r + c * ld)] : m[(size_t)(c + r * ld)];
  return o == CUBLAS_OP_C ? std::conj(v) : v;
}

static void gemm_case(cudaDataType t, cublasOperation_t ta, cublasOperation_t tb) {
  const int m = 5, n = 3, k = 4, batch = 2;
  int lda = (ta == CUBLAS_OP_N ? m : k) + 2, ldb = (tb == CUBLAS_OP_N ? k : n) + 1, ldc = m + 3;
  size_t na = (size_t)lda * (ta == CUBLAS_OP_N ? k : m), nb = (size_t)ldb * (tb == CUBLAS_OP_N ? n : k);
  size_t nc = (size_t)ldc * n;
  int cplx = t == CUDA_C_64F, es = t == CUDA_R_16F ? 2 : t == CUDA_R_32F ? 4 : cplx ? 16 : 8;
  unsigned s = 7u + (unsigned)ta * 3u + (unsigned)tb * 11u + (unsigned)t;
  std::vector<cd> A(na * batch), B(nb), C(nc * batch);
  for (auto *v : {&A, &B, &C})
    for (auto &x : *v) {
      x = cd(rnd(&s), cplx ? rnd(&s) : 0);
      if (t == CUDA_R_16F) x = cd(tabi_f16_to_f32(tabi_f32_to_f16((float)x.real())), 0);
      if (t == CUDA_R_32F) x = cd((float)x.real(), 0);
    }
  auto pack = [&](const std::vector<cd> &v) {
    std::vector<char> b(v.size() * (size_t)es);
    for (size_t i = 0; i < v.size(); i++) {
      if (t == CUDA_R_16F) ((uint16_t *)b.data())[i] = tabi_f32_to_f16((float)v[i].real());
      else if (t == CUDA_R_32F) ((float *)b.data())[i] = (float)v[i].real();
      else if (t == CUDA_R_64F) ((double *)b.data())[i] = v[i].real();
      else ((double *)b.data())[2 * i] = v[i].real(), ((double *)b.data())[2 * i + 1] = v[i].imag();
    }
    return b;
  };
  auto unpack = [&](const std::vector<char> &b, size_t i) {
    if (t == CUDA_R_16F) return cd(tabi_f16_to_f32(((const uint16_t *)b.data())[i]), 0);
    if (t == CUDA_R_32F) return cd(((const float *)b.data())[i], 0);
    if (t == CUDA_R_64F) return cd(((const double *)b.data())[i], 0);
    return cd(((const double *)b.data())[2 * i], ((const double *)b.data())[2 * i + 1]);
  };
  std::vector<char> pa = pack(A), pb = pack(B), pc = pack(C);
  int single = t != CUDA_R_64F && t != CUDA_C_64F;
  cublasComputeType_t comp = single ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_64F;
  float fal[2] = {1.5f, cplx ? -0.5f : 0.f}, fbe[2] = {-0.75f, cplx ? 0.25f : 0.f};
  double dal[2] = {1.5, cplx ? -0.5 : 0}, dbe[2] = {-0.75, cplx ? 0.25 : 0};
  const void *al = single ? (const void *)fal : (const void *)dal, *be = single ? (const void *)fbe : (const void *)dbe;
  cublasHandle_t h = NULL;
  CHECK(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS);
  /* a batch of A against one broadcast B (stride 0) */
  CHECK(cublasGemmStridedBatchedEx(h, ta, tb, m, n, k, al, pa.data(), t, lda, (long long)na, pb.data(), t, ldb, 0,
                                   be, pc.data(), t, ldc, (long long)nc, batch, comp,
                                   CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS);
  double tol = t == CUDA_R_16F ? 2e-2 : single ? 1e-5 : 1e-12;
  int bad = 0;
  for (int p = 0; p < batch; p++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < m; i++) {
        cd acc = 0;
        std::vector<cd> Ap(A.begin() + (long)(p * na), A.begin() + (long)((p + 1) * na));
        for (int l = 0; l < k; l++) acc += op_el(Ap, lda, ta, i, l) * op_el(B, ldb, tb, l, j);
        size_t ci = (size_t)p * nc + (size_t)i + (size_t)j * ldc;
        cd want = cd(dal[0], dal[1]) * acc + cd(dbe[0], dbe[1]) * C[ci];
        bad += std::abs(unpack(pc, ci) - want) > tol * (1 + std::abs(want));
      }
  CHECK_MSG(bad == 0, "gemm type %d ops %d,%d: %d elements off", (int)t, (int)ta, (int)tb, bad);
  /* beta = 0: C is written, never read (NaN in it must not leak) */
  if (t == CUDA_R_64F) {
    std::vector<double> c2(nc, NAN);
    double zero = 0;
    CHECK(cublasGemmEx(h, ta, tb, m, n, k, al, pa.data(), t, lda, pb.data(), t, ldb, &zero, c2.data(), t, ldc,
                       comp, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS);
    CHECK(std::isfinite(c2[0]) && std::isfinite(c2[(size_t)(m - 1) + (size_t)(n - 1) * ldc]));
  }
  cublasDestroy(h);
}

static void gemm_tests(void) {
  const cublasOperation_t ops[3] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};
  for (cudaDataType t : {CUDA_R_32F, CUDA_R_64F, CUDA_C_64F, CUDA_R_16F})
    for (auto a : ops)
      for (auto b : ops) gemm_case(t, a, b);
  cublasHandle_t h = NULL;
  CHECK(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS);
  float one = 1, buf[64] = {0};
  /* lda below m for op N, a type pair the compute type does not take */
  CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 2, 3, &one, buf, CUDA_R_32F, 3, buf, CUDA_R_32F, 3, &one, buf,
                     CUDA_R_32F, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 2, 3, &one, buf, CUDA_R_32F, 4, buf, CUDA_R_32F, 3, &one, buf,
                     CUDA_R_32F, 4, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK(cublasGemmEx(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, buf, CUDA_R_32F, 1, buf, CUDA_R_32F, 1, &one,
                     buf, CUDA_R_32F, 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_NOT_INITIALIZED);
  /* alpha = 0: A and B are not read, so an inf there makes no NaN (C = beta
   * C), as cuBLAS on an H200 did; tc_blas.cu must form the product itself */
  float ainf[4] = {1, INFINITY, 2, 3}, bm[4] = {1, 1, 1, 1}, cm[4] = {1, 2, 3, 4}, zero = 0, two = 2;
  CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &zero, ainf, CUDA_R_32F, 2, bm, CUDA_R_32F, 2, &two,
                     cm, CUDA_R_32F, 2, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS);
  CHECK_MSG(cm[0] == 2 && cm[1] == 4 && cm[2] == 6 && cm[3] == 8, "alpha 0: C = %g %g %g %g, want 2 4 6 8", cm[0],
            cm[1], cm[2], cm[3]);
  cublasDestroy(h);
}

/* --- cuBLASLt --------------------------------------------------------------- */

struct lt_setup {
  cublasLtMatmulDesc_t d = NULL;
  cublasLtMatrixLayout_t a = NULL, b = NULL, c = NULL, o = NULL;
  cublasLtMatmulPreference_t pref = NULL;
  ~lt_setup() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    for (auto l : {a, b, c, o})
      if (l) cublasLtMatrixLayoutDestroy(l);
    if (d) cublasLtMatmulDescDestroy(d);
  }
};

/* D (m x n, float64) = alpha op(A) op(B) + beta C + bias down the rows. */
static void lt_case(cublasOperation_t ta, cublasOperation_t tb) {
  const int m = 4, n = 3, k = 5;
  int lda = (ta == CUBLAS_OP_N ? m : k) + 1, ldb = (tb == CUBLAS_OP_N ? k : n) + 2, ldc = m + 1, ldd = m;
  unsigned s = 31u + (unsigned)ta * 5u + (unsigned)tb;
  std::vector<double> A((size_t)lda * (ta == CUBLAS_OP_N ? k : m)), B((size_t)ldb * (tb == CUBLAS_OP_N ? n : k)),
      C((size_t)ldc * n), bias(m), D((size_t)ldd * n, NAN);
  for (auto *v : {&A, &B, &C, &bias})
    for (auto &x : *v) x = rnd(&s);
  cublasLtHandle_t h = NULL;
  CHECK(cublasLtCreate(&h) == CUBLAS_STATUS_SUCCESS);
  lt_setup z;
  int32_t oa = ta, ob = tb;
  uint32_t epi = CUBLASLT_EPILOGUE_BIAS;
  const void *bp = bias.data();
  uint64_t wsb = 1 << 20;
  CHECK(cublasLtMatmulDescCreate(&z.d, CUBLAS_COMPUTE_64F, CUDA_R_64F) == CUBLAS_STATUS_SUCCESS);
  CHECK(cublasLtMatmulDescSetAttribute(z.d, CUBLASLT_MATMUL_DESC_TRANSA, &oa, sizeof oa) == CUBLAS_STATUS_SUCCESS);
  CHECK(cublasLtMatmulDescSetAttribute(z.d, CUBLASLT_MATMUL_DESC_TRANSB, &ob, sizeof ob) == CUBLAS_STATUS_SUCCESS);
  CHECK(cublasLtMatmulDescSetAttribute(z.d, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi) == CUBLAS_STATUS_SUCCESS);
  CHECK(cublasLtMatmulDescSetAttribute(z.d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp) ==
        CUBLAS_STATUS_SUCCESS);
  CHECK(cublasLtMatrixLayoutCreate(&z.a, CUDA_R_64F, ta == CUBLAS_OP_N ? m : k, ta == CUBLAS_OP_N ? k : m, lda) ==
        CUBLAS_STATUS_SUCCESS);
  CHECK(cublasLtMatrixLayoutCreate(&z.b, CUDA_R_64F, tb == CUBLAS_OP_N ? k : n, tb == CUBLAS_OP_N ? n : k, ldb) ==
        CUBLAS_STATUS_SUCCESS);
  CHECK(cublasLtMatrixLayoutCreate(&z.c, CUDA_R_64F, m, n, ldc) == CUBLAS_STATUS_SUCCESS);
  CHECK(cublasLtMatrixLayoutCreate(&z.o, CUDA_R_64F, m, n, ldd) == CUBLAS_STATUS_SUCCESS);
  CHECK(cublasLtMatmulPreferenceCreate(&z.pref) == CUBLAS_STATUS_SUCCESS);
  CHECK(cublasLtMatmulPreferenceSetAttribute(z.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb) ==
        CUBLAS_STATUS_SUCCESS);
  uint32_t eight = 8; /* doubles, odd leading dimensions: 8-byte alignment at most */
  for (auto at : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
    CHECK(cublasLtMatmulPreferenceSetAttribute(z.pref, at, &eight, sizeof eight) == CUBLAS_STATUS_SUCCESS);
  cublasLtMatmulHeuristicResult_t res[4];
  int got = 0;
  CHECK(cublasLtMatmulAlgoGetHeuristic(h, z.d, z.a, z.b, z.c, z.o, z.pref, 4, res, &got) == CUBLAS_STATUS_SUCCESS);
  CHECK(got == 2); /* INPLACE first, then the plain one */
  std::vector<char> ws(wsb);
  double al = 1.25, be = -0.5;
  CHECK(cublasLtMatmul(h, z.d, &al, A.data(), z.a, B.data(), z.b, &be, C.data(), z.c, D.data(), z.o, &res[1].algo,
                       ws.data(), wsb, 0) == CUBLAS_STATUS_SUCCESS);
  std::vector<cd> Ac(A.begin(), A.end()), Bc(B.begin(), B.end());
  int bad = 0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      cd acc = 0;
      for (int l = 0; l < k; l++) acc += op_el(Ac, lda, ta, i, l) * op_el(Bc, ldb, tb, l, j);
      double want = al * acc.real() + be * C[(size_t)(i + j * ldc)] + bias[(size_t)i];
      bad += fabs(D[(size_t)(i + j * ldd)] - want) > 1e-12 * (1 + fabs(want));
    }
  CHECK_MSG(bad == 0, "cublasLt bias epilogue ops %d,%d: %d elements off", (int)ta, (int)tb, bad);
  /* C is D with another layout: refused; a workspace below the algorithm's: refused */
  CHECK(cublasLtMatmul(h, z.d, &al, A.data(), z.a, B.data(), z.b, &be, D.data(), z.c, D.data(), z.o, &res[1].algo,
                       ws.data(), wsb, 0) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(cublasLtMatmul(h, z.d, &al, A.data(), z.a, B.data(), z.b, &be, C.data(), z.c, D.data(), z.o, &res[1].algo,
                       ws.data(), wsb / 2, 0) == CUBLAS_STATUS_INVALID_VALUE);
  cublasLtDestroy(h);
}

static void lt_tests(void) {
  for (auto a : {CUBLAS_OP_N, CUBLAS_OP_T})
    for (auto b : {CUBLAS_OP_N, CUBLAS_OP_T}) lt_case(a, b);
  /* float32, in place (C is D), the INPLACE algorithm against the plain one */
  const int m = 3, n = 2, k = 300;
  unsigned s = 5;
  std::vector<float> A((size_t)m * k), B((size_t)k * n), D((size_t)m * n), bias(m);
  for (auto *v : {&A, &B, &bias})
    for (auto &x : *v) x = (float)(rnd(&s) * 1e3);
  cublasLtHandle_t h = NULL;
  CHECK(cublasLtCreate(&h) == CUBLAS_STATUS_SUCCESS);
  lt_setup z;
  uint32_t epi = CUBLASLT_EPILOGUE_BIAS, mask = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
  const void *bp = bias.data();
  uint64_t wsb = 1 << 20;
  int32_t bad32 = 0;
  CHECK(cublasLtMatmulDescCreate(&z.d, CUBLAS_COMPUTE_32F, CUDA_R_32F) == CUBLAS_STATUS_SUCCESS);
  /* an attribute buffer of the wrong size */
  CHECK(cublasLtMatmulDescSetAttribute(z.d, CUBLASLT_MATMUL_DESC_EPILOGUE, &bad32, 2) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(cublasLtMatmulDescSetAttribute(z.d, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi) == CUBLAS_STATUS_SUCCESS);
  CHECK(cublasLtMatmulDescSetAttribute(z.d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp) ==
        CUBLAS_STATUS_SUCCESS);
  CHECK(cublasLtMatrixLayoutCreate(&z.a, CUDA_R_32F, m, k, m) == CUBLAS_STATUS_SUCCESS);
  CHECK(cublasLtMatrixLayoutCreate(&z.b, CUDA_R_32F, k, n, k) == CUBLAS_STATUS_SUCCESS);
  CHECK(cublasLtMatrixLayoutCreate(&z.o, CUDA_R_32F, m, n, m) == CUBLAS_STATUS_SUCCESS);
  CHECK(cublasLtMatrixLayoutCreate(&z.c, CUDA_R_32F, m, n + 1, m) == CUBLAS_STATUS_SUCCESS); /* wrong shape */
  CHECK(cublasLtMatmulPreferenceCreate(&z.pref) == CUBLAS_STATUS_SUCCESS);
  cublasLtMatmulHeuristicResult_t res[2];
  int got = 0;
  CHECK(cublasLtMatmulAlgoGetHeuristic(h, z.d, z.a, z.b, z.c, z.o, z.pref, 2, res, &got) ==
        CUBLAS_STATUS_INVALID_VALUE);
  /* no workspace allowed (the preference's default): nothing to offer */
  CHECK(cublasLtMatmulAlgoGetHeuristic(h, z.d, z.a, z.b, z.o, z.o, z.pref, 2, res, &got) ==
        CUBLAS_STATUS_NOT_SUPPORTED && got == 0);
  CHECK(cublasLtMatmulPreferenceSetAttribute(z.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb) ==
        CUBLAS_STATUS_SUCCESS);
  uint32_t four = 4, most = 256; /* A and D hold 3 floats a column: 4-byte alignment */
  auto set_align = [&](uint32_t *v) {
    for (auto at : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
      CHECK(cublasLtMatmulPreferenceSetAttribute(z.pref, at, v, sizeof *v) == CUBLAS_STATUS_SUCCESS);
  };
  set_align(&four);
  CHECK(cublasLtMatmulAlgoGetHeuristic(h, z.d, z.a, z.b, z.o, z.o, z.pref, 2, res, &got) == CUBLAS_STATUS_SUCCESS &&
        got == 2);
  std::vector<char> ws(wsb);
  float al = 1, be = 0;
  /* INPLACE: the same call twice gives other bits (its order changes) */
  std::vector<float> D1(D.size()), D2(D.size());
  CHECK(cublasLtMatmul(h, z.d, &al, A.data(), z.a, B.data(), z.b, &be, D1.data(), z.o, D1.data(), z.o, &res[0].algo,
                       ws.data(), wsb, 0) == CUBLAS_STATUS_SUCCESS);
  int differ = 0;
  for (int t = 0; t < 8 && !differ; t++) {
    CHECK(cublasLtMatmul(h, z.d, &al, A.data(), z.a, B.data(), z.b, &be, D2.data(), z.o, D2.data(), z.o,
                         &res[0].algo, ws.data(), wsb, 0) == CUBLAS_STATUS_SUCCESS);
    differ = memcmp(D1.data(), D2.data(), D1.size() * sizeof(float)) != 0;
  }
  CHECK_MSG(differ, "cublasLt INPLACE: eight calls gave the same bits");
  /* the mask without INPLACE: only the plain algorithm, whose bits repeat */
  CHECK(cublasLtMatmulPreferenceSetAttribute(z.pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &mask,
                                             sizeof mask) == CUBLAS_STATUS_SUCCESS);
  CHECK(cublasLtMatmulAlgoGetHeuristic(h, z.d, z.a, z.b, z.o, z.o, z.pref, 2, res, &got) == CUBLAS_STATUS_SUCCESS &&
        got == 1);
  for (int t = 0; t < 2; t++)
    CHECK(cublasLtMatmul(h, z.d, &al, A.data(), z.a, B.data(), z.b, &be, (t ? D2 : D1).data(), z.o,
                         (t ? D2 : D1).data(), z.o, &res[0].algo, ws.data(), wsb, 0) == CUBLAS_STATUS_SUCCESS);
  CHECK(memcmp(D1.data(), D2.data(), D1.size() * sizeof(float)) == 0);
  /* the algorithm assuming 256-byte alignment (cuBLASLt's default) of data
     with 4: a violation, NaN out; told 4, the same call is right */
  set_align(&most);
  CHECK(cublasLtMatmulAlgoGetHeuristic(h, z.d, z.a, z.b, z.o, z.o, z.pref, 2, res, &got) == CUBLAS_STATUS_SUCCESS);
  std::vector<float> big(64);
  float *off = big.data() + 1;
  int before = tc_sim_vendor_violations();
  CHECK(cublasLtMatmul(h, z.d, &al, A.data(), z.a, B.data(), z.b, &be, off, z.o, off, z.o, &res[0].algo, ws.data(),
                       wsb, 0) == CUBLAS_STATUS_SUCCESS);
  CHECK(tc_sim_vendor_violations() == before + 1 && std::isnan(off[0]));
  set_align(&four);
  CHECK(cublasLtMatmulAlgoGetHeuristic(h, z.d, z.a, z.b, z.o, z.o, z.pref, 2, res, &got) == CUBLAS_STATUS_SUCCESS);
  CHECK(cublasLtMatmul(h, z.d, &al, A.data(), z.a, B.data(), z.b, &be, off, z.o, off, z.o, &res[0].algo, ws.data(),
                       wsb, 0) == CUBLAS_STATUS_SUCCESS);
  CHECK(tc_sim_vendor_violations() == before + 1 && memcmp(off, D1.data(), D1.size() * sizeof(float)) == 0);
  CHECK(cublasLtMatmul(NULL, z.d, &al, A.data(), z.a, B.data(), z.b, &be, D1.data(), z.o, D1.data(), z.o,
                       &res[0].algo, ws.data(), wsb, 0) == CUBLAS_STATUS_NOT_INITIALIZED);
  cublasLtDestroy(h);
}

/* --- FFT ------------------------------------------------------------------- */

static std::vector<cd> dft_ref(const std::vector<cd> &x, int sign) {
  size_t n = x.size();
  std::vector<cd> y(n);
  for (size_t k = 0; k < n; k++)
    for (size_t j = 0; j < n; j++) y[k] += x[j] * std::polar(1.0, sign * 2 * M_PI * (double)((j * k) % n) / (double)n);
  return y;
}

static void fft_tests(void) {
  unsigned s = 99;
  for (int n : {16, 12}) { /* radix-2, direct */
    const int batch = 3;
    std::vector<cufftDoubleComplex> in((size_t)(n * batch)), out(in.size());
    for (auto &v : in) v = {rnd(&s), rnd(&s)};
    for (int dir : {CUFFT_FORWARD, CUFFT_INVERSE}) {
      cufftHandle p;
      long long nn = n;
      size_t ws = 0;
      CHECK(cufftCreate(&p) == CUFFT_SUCCESS);
      CHECK(cufftMakePlanMany64(p, 1, &nn, NULL, 1, 0, NULL, 1, 0, CUFFT_Z2Z, batch, &ws) == CUFFT_SUCCESS);
      CHECK(cufftExecZ2Z(p, in.data(), out.data(), dir) == CUFFT_SUCCESS);
      double err = 0;
      for (int b = 0; b < batch; b++) {
        std::vector<cd> x((size_t)n);
        for (int j = 0; j < n; j++) x[(size_t)j] = cd(in[(size_t)(b * n + j)].x, in[(size_t)(b * n + j)].y);
        std::vector<cd> y = dft_ref(x, dir);
        for (int k = 0; k < n; k++)
          err = fmax(err, std::abs(y[(size_t)k] - cd(out[(size_t)(b * n + k)].x, out[(size_t)(b * n + k)].y)));
      }
      CHECK_MSG(err < 1e-12, "Z2Z n=%d dir=%d: error %g", n, dir, err);
      /* the wrong exec type, then a destroyed plan */
      CHECK(cufftExecD2Z(p, (cufftDoubleReal *)in.data(), out.data()) == CUFFT_INVALID_TYPE);
      CHECK(cufftDestroy(p) == CUFFT_SUCCESS);
      CHECK(cufftExecZ2Z(p, in.data(), out.data(), dir) == CUFFT_INVALID_PLAN);
    }
    /* R2C then C2R: n/2+1 outputs that are the DFT's, and n times the input back */
    const int m = n / 2 + 1;
    std::vector<float> r((size_t)(n * batch)), back(r.size());
    std::vector<cufftComplex> spec((size_t)(m * batch));
    for (auto &v : r) v = (float)rnd(&s);
    cufftHandle f, g;
    long long nn = n;
    CHECK(cufftCreate(&f) == CUFFT_SUCCESS && cufftCreate(&g) == CUFFT_SUCCESS);
    CHECK(cufftMakePlanMany64(f, 1, &nn, NULL, 1, 0, NULL, 1, 0, CUFFT_R2C, batch, NULL) == CUFFT_SUCCESS);
    CHECK(cufftMakePlanMany64(g, 1, &nn, NULL, 1, 0, NULL, 1, 0, CUFFT_C2R, batch, NULL) == CUFFT_SUCCESS);
    CHECK(cufftExecR2C(f, r.data(), spec.data()) == CUFFT_SUCCESS);
    std::vector<cd> x((size_t)n);
    for (int j = 0; j < n; j++) x[(size_t)j] = r[(size_t)(n + j)]; /* row 1 */
    std::vector<cd> y = dft_ref(x, -1);
    double err = 0;
    for (int k = 0; k < m; k++) err = fmax(err, std::abs(y[(size_t)k] - cd(spec[(size_t)(m + k)].x, spec[(size_t)(m + k)].y)));
    CHECK_MSG(err < 1e-5, "R2C n=%d: error %g", n, err);
    CHECK(cufftExecC2R(g, spec.data(), back.data()) == CUFFT_SUCCESS);
    err = 0;
    for (size_t i = 0; i < r.size(); i++) err = fmax(err, fabs(back[i] - (double)n * r[i]));
    CHECK_MSG(err < 1e-4, "C2R(R2C(x)) = n x, n=%d: error %g", n, err);
    CHECK_MSG(isnan(spec[0].x), "C2R leaves its input overwritten (as cuFFT may)");
    cufftDestroy(f);
    cufftDestroy(g);
  }
  /* one plan, two threads at once: a violation, counted */
  const long long n = 12, batch = 2;
  std::vector<cufftDoubleComplex> a((size_t)(n * batch)), o1(a.size()), o2(a.size());
  for (auto &v : a) v = {rnd(&s), 0};
  cufftHandle p;
  long long nn = n;
  CHECK(cufftCreate(&p) == CUFFT_SUCCESS);
  CHECK(cufftMakePlanMany64(p, 1, &nn, NULL, 1, 0, NULL, 1, 0, CUFFT_Z2Z, batch, NULL) == CUFFT_SUCCESS);
  int before = tc_sim_vendor_violations();
  std::function<void()> f1 = [&] { CHECK(cufftExecZ2Z(p, a.data(), o1.data(), CUFFT_FORWARD) == CUFFT_SUCCESS); };
  std::function<void()> f2 = [&] { CHECK(cufftExecZ2Z(p, a.data(), o2.data(), CUFFT_FORWARD) == CUFFT_SUCCESS); };
  overlap(f1, f2);
  CHECK(isnan(o2[0].x) && !isnan(o1[0].x)); /* the second call's output is the NaN */
  CHECK_MSG(tc_sim_vendor_violations() > before, "two threads on one cuFFT plan were not seen");
  cufftDestroy(p);
}

/* --- convolution ------------------------------------------------------------ */

/* x [N, C, H, W] with channels-last strides, w [K, C/g, R, S] packed NHWC (KRSC). */
struct conv_case {
  int n = 2, c = 4, h = 7, w = 6, k = 6, g = 2, r = 3, s = 2;
  int pad[2] = {1, 0}, str[2] = {2, 1}, dil[2] = {2, 1};
  int p, q;
  cudnnTensorDescriptor_t xd, yd;
  cudnnFilterDescriptor_t wd;
  cudnnConvolutionDescriptor_t cd;
  conv_case(cudnnDataType_t dt) {
    p = (h + 2 * pad[0] - dil[0] * (r - 1) - 1) / str[0] + 1;
    q = (w + 2 * pad[1] - dil[1] * (s - 1) - 1) / str[1] + 1;
    int xs[4] = {n, c, h, w}, xst[4] = {c * h * w, 1, w * c, c};
    int ys[4] = {n, k, p, q}, yst[4] = {k * p * q, p * q, q, 1};
    int ws[4] = {k, c / g, r, s};
    CHECK(cudnnCreateTensorDescriptor(&xd) == 0 && cudnnSetTensorNdDescriptor(xd, dt, 4, xs, xst) == 0);
    CHECK(cudnnCreateTensorDescriptor(&yd) == 0 && cudnnSetTensorNdDescriptor(yd, dt, 4, ys, yst) == 0);
    CHECK(cudnnCreateFilterDescriptor(&wd) == 0 && cudnnSetFilterNdDescriptor(wd, dt, CUDNN_TENSOR_NHWC, 4, ws) == 0);
    CHECK(cudnnCreateConvolutionDescriptor(&cd) == 0 &&
          cudnnSetConvolutionNdDescriptor(cd, 2, pad, str, dil, CUDNN_CROSS_CORRELATION,
                                          dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT) == 0 &&
          cudnnSetConvolutionGroupCount(cd, g) == 0);
  }
  ~conv_case() {
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
  }
  size_t xn() const { return (size_t)(n * c * h * w); }
  size_t yn() const { return (size_t)(n * k * p * q); }
  size_t wn() const { return (size_t)(k * (c / g) * r * s); }
  /* the direct sum, from the definition */
  double fwd(const std::vector<double> &x, const std::vector<double> &wt, int nn, int kk, int pp, int qq) const {
    int cg = c / g, grp = kk / (k / g);
    double acc = 0;
    for (int ci = 0; ci < cg; ci++)
      for (int ri = 0; ri < r; ri++)
        for (int si = 0; si < s; si++) {
          int hh = pp * str[0] - pad[0] + ri * dil[0], ww = qq * str[1] - pad[1] + si * dil[1];
          if (hh < 0 || hh >= h || ww < 0 || ww >= w) continue;
          int cc = grp * cg + ci;
          acc += x[(size_t)(nn * c * h * w + hh * w * c + ww * c + cc)] *
                 wt[(size_t)(((kk * r + ri) * s + si) * cg + ci)];
        }
    return acc;
  }
};

void dnn_tests(void) {
  cudnnHandle_t hd = NULL;
  CHECK(cudnnCreate(&hd) == CUDNN_STATUS_SUCCESS);
  unsigned sd = 5;
  {
    conv_case cc(CUDNN_DATA_DOUBLE);
    std::vector<double> x(cc.xn()), w(cc.wn()), y(cc.yn()), dy(cc.yn()), dx(cc.xn()), dw(cc.wn());
    for (auto *v : {&x, &w, &dy})
      for (auto &e : *v) e = rnd(&sd);
    double one = 1, zero = 0;
    CHECK(cudnnConvolutionForward(hd, &one, cc.xd, x.data(), cc.wd, w.data(), cc.cd, 0, NULL, 0, &zero, cc.yd,
                                  y.data()) == CUDNN_STATUS_SUCCESS);
    double err = 0;
    for (int n = 0; n < cc.n; n++)
      for (int k = 0; k < cc.k; k++)
        for (int p = 0; p < cc.p; p++)
          for (int q = 0; q < cc.q; q++)
            err = fmax(err, fabs(y[(size_t)(((n * cc.k + k) * cc.p + p) * cc.q + q)] - cc.fwd(x, w, n, k, p, q)));
    CHECK_MSG(err < 1e-12, "forward against the direct sum: error %g", err);
    /* backward data and filter are the forward's adjoints */
    CHECK(cudnnConvolutionBackwardData(hd, &one, cc.wd, w.data(), cc.yd, dy.data(), cc.cd, 0, NULL, 0, &zero, cc.xd,
                                       dx.data()) == CUDNN_STATUS_SUCCESS);
    CHECK(cudnnConvolutionBackwardFilter(hd, &one, cc.xd, x.data(), cc.yd, dy.data(), cc.cd, 0, NULL, 0, &zero,
                                         cc.wd, dw.data()) == CUDNN_STATUS_SUCCESS);
    double yy = 0, xx = 0, ww = 0;
    for (size_t i = 0; i < y.size(); i++) yy += y[i] * dy[i];
    for (size_t i = 0; i < x.size(); i++) xx += x[i] * dx[i];
    for (size_t i = 0; i < w.size(); i++) ww += w[i] * dw[i];
    CHECK_MSG(fabs(yy - xx) < 1e-9 && fabs(yy - ww) < 1e-9, "adjoints: %.17g %.17g %.17g", yy, xx, ww);
    /* beta: y = 2 conv + 0.5 y */
    std::vector<double> y2(y);
    double two = 2, half = 0.5;
    CHECK(cudnnConvolutionForward(hd, &two, cc.xd, x.data(), cc.wd, w.data(), cc.cd, 0, NULL, 0, &half, cc.yd,
                                  y2.data()) == CUDNN_STATUS_SUCCESS);
    CHECK(fabs(y2[3] - 2.5 * y[3]) < 1e-12);
    /* the list: fastest first; tensor ops refused for double; a short workspace refused */
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int np = 0;
    CHECK(cudnnGetConvolutionForwardAlgorithm_v7(hd, cc.xd, cc.wd, cc.cd, cc.yd, 8, &np, perf) == 0);
    CHECK(np == 4 && perf[0].mathType == CUDNN_TENSOR_OP_MATH && perf[0].status != CUDNN_STATUS_SUCCESS &&
          perf[1].determinism == CUDNN_NON_DETERMINISTIC && perf[2].determinism == CUDNN_DETERMINISTIC &&
          perf[2].mathType == CUDNN_FMA_MATH && perf[3].status != CUDNN_STATUS_SUCCESS);
    CHECK(cudnnConvolutionForward(hd, &one, cc.xd, x.data(), cc.wd, w.data(), cc.cd, perf[1].algo, NULL, 0, &zero,
                                  cc.yd, y.data()) == CUDNN_STATUS_BAD_PARAM);
    /* Find leaves NaN in the output */
    CHECK(cudnnFindConvolutionForwardAlgorithmEx(hd, cc.xd, x.data(), cc.wd, w.data(), cc.cd, cc.yd, y.data(), 8,
                                                 &np, perf, NULL, 0) == 0);
    CHECK(np == 4 && isnan(y[0]) && perf[1].status == CUDNN_STATUS_ALLOC_FAILED);
    /* an output descriptor that is not the convolution's */
    int bad_dims[4] = {cc.n, cc.k, cc.p + 1, cc.q}, bad_st[4] = {cc.k * (cc.p + 1) * cc.q, (cc.p + 1) * cc.q, cc.q, 1};
    cudnnTensorDescriptor_t bd;
    CHECK(cudnnCreateTensorDescriptor(&bd) == 0 && cudnnSetTensorNdDescriptor(bd, CUDNN_DATA_DOUBLE, 4, bad_dims,
                                                                              bad_st) == 0);
    CHECK(cudnnConvolutionForward(hd, &one, cc.xd, x.data(), cc.wd, w.data(), cc.cd, 0, NULL, 0, &zero, bd,
                                  y.data()) == CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyTensorDescriptor(bd);
  }
  {
    /* float: the TF32 algorithm rounds its inputs, the direct one does not */
    conv_case cc(CUDNN_DATA_FLOAT);
    std::vector<float> x(cc.xn()), w(cc.wn()), y0(cc.yn()), y1(cc.yn());
    for (auto &e : x) e = (float)rnd(&sd);
    for (auto &e : w) e = (float)rnd(&sd);
    float one = 1, zero = 0;
    std::vector<char> ws(1 << 20);
    CHECK(cudnnConvolutionForward(hd, &one, cc.xd, x.data(), cc.wd, w.data(), cc.cd, 0, NULL, 0, &zero, cc.yd,
                                  y0.data()) == 0);
    CHECK(cudnnConvolutionForward(hd, &one, cc.xd, x.data(), cc.wd, w.data(), cc.cd, 1, ws.data(), ws.size(), &zero,
                                  cc.yd, y1.data()) == 0);
    double diff = 0;
    for (size_t i = 0; i < y0.size(); i++) diff = fmax(diff, fabs((double)y0[i] - y1[i]));
    CHECK_MSG(diff > 1e-6 && diff < 1e-2, "TF32 against FMA: largest difference %g", diff);
    /* one handle, two threads at once: a violation, counted */
    int before = tc_sim_vendor_violations();
    std::vector<float> ya(cc.yn()), yb(cc.yn());
    auto call = [&](float *y) {
      CHECK(cudnnConvolutionForward(hd, &one, cc.xd, x.data(), cc.wd, w.data(), cc.cd, 0, NULL, 0, &zero, cc.yd,
                                    y) == CUDNN_STATUS_SUCCESS);
    };
    std::function<void()> f1 = [&] { call(ya.data()); }, f2 = [&] { call(yb.data()); };
    overlap(f1, f2);
    CHECK(isnan(yb[0]) && ya[0] == y0[0]); /* the second call's output is the NaN */
    CHECK_MSG(tc_sim_vendor_violations() > before, "two threads on one cuDNN handle were not seen");
  }
  cudnnDestroy(hd);
}

int main(void) {
  gemm_tests();
  lt_tests();
  fft_tests();
  dnn_tests();
  return check_report();
}
