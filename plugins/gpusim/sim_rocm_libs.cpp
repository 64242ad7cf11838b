/* plugins/gpusim/sim_rocm_libs.cpp: stand-ins for the rocBLAS and MIOpen entry
 * points the ROCm plugin loads at run time (plugins/rocm/rocm_dl.h), for
 * libtabi_gpusim.so with TABI_GPUSIM_ROCM_LIBS=1 (gpusim_plugin.c hands them
 * out as if the libraries were installed). Neither library is in Debian 12,
 * so without them the ROCm plugin's calls into rocBLAS (rocm_gemm.cuh) and
 * MIOpen (rocm_conv.cuh) would run only on a machine with ROCm installed.
 *
 * They are thin translations onto the cuBLAS and cuDNN stand-ins of
 * sim_vendor.h, which hold the meaning (column-major GEMM, D = alpha op(A)
 * op(B) + beta C; NCHW cross-correlation with groups) and check the
 * arguments. What is the ROCm libraries' own: the op and type codes of
 * rocm_dl.h, MIOpen's filter given as a tensor descriptor (packed NCHW or
 * NHWC here, else miopenStatusNotImplemented), and the algorithm list:
 * Winograd first (fastest; computed with float32 inputs rounded to TF32, so a
 * float32 result that took it misses the tolerance, as MIOpen's Winograd can),
 * then direct. A handle used by two threads at once is the cuDNN stand-in's
 * violation. */
#include <stdlib.h>
#include <string.h>

#include "rocm_dl.h"
#include "tc_sim.h"

namespace {

/* statuses: miopenStatusBadParm / NotImplemented, rocblas_status_invalid_pointer /
 * not_implemented */
const int MI_NOT_IMPLEMENTED = 6, MI_BAD_PARM = 3, RB_INVALID = 3, RB_NOT_IMPLEMENTED = 2;

/* --- rocBLAS ---------------------------------------------------------------- */

int rb_create(void **h) { return cublasCreate((cublasHandle_t *)h) == CUBLAS_STATUS_SUCCESS ? 0 : RB_INVALID; }
int rb_destroy(void *h) { return cublasDestroy((cublasHandle_t)h) == CUBLAS_STATUS_SUCCESS ? 0 : RB_INVALID; }
int rb_set_stream(void *h, void *) { return h ? 0 : RB_INVALID; }
int rb_set_atomics(void *h, int) { return h ? 0 : RB_INVALID; }

bool rb_type(int t, cudaDataType *out) {
  switch (t) {
    case ROCM_RB_F16: *out = CUDA_R_16F; return true;
    case ROCM_RB_BF16: *out = CUDA_R_16BF; return true;
    case ROCM_RB_F32: *out = CUDA_R_32F; return true;
    case ROCM_RB_F64: *out = CUDA_R_64F; return true;
  }
  return false;
}

int rb_gemm(void *h, int ta, int tb, int32_t m, int32_t n, int32_t k, const void *alpha, const void *a, int at,
            int32_t lda, int64_t sa, const void *b, int bt, int32_t ldb, int64_t sb, const void *beta, const void *c,
            int ct, int32_t ldc, int64_t sc, void *d, int dt, int32_t ldd, int64_t sd, int32_t batch, int comp,
            int, int32_t, uint32_t) {
  cudaDataType xa, xb, xc, xd;
  if (!rb_type(at, &xa) || !rb_type(bt, &xb) || !rb_type(ct, &xc) || !rb_type(dt, &xd) ||
      (ta != ROCM_RB_OP_N && ta != ROCM_RB_OP_T) || (tb != ROCM_RB_OP_N && tb != ROCM_RB_OP_T) ||
      (comp != ROCM_RB_F32 && comp != ROCM_RB_F64))
    return RB_INVALID;
  /* D = alpha op(A) op(B) + beta C: the stand-in writes C in place, so a
   * separate D is the stand-in's limit (the plugin passes one buffer) */
  if (c != d || ldc != ldd || sc != sd || xc != xd) return RB_NOT_IMPLEMENTED;
  cublasStatus_t r = cublasGemmStridedBatchedEx(
      (cublasHandle_t)h, ta == ROCM_RB_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T, tb == ROCM_RB_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T,
      m, n, k, alpha, a, xa, lda, sa, b, xb, ldb, sb, beta, d, xd, ldd, sd, batch,
      comp == ROCM_RB_F64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  return r == CUBLAS_STATUS_SUCCESS ? 0 : RB_INVALID;
}

const rocm_rocblas rocblas_table = {rb_create, rb_destroy, rb_set_stream, rb_gemm, rb_set_atomics};

/* --- MIOpen ------------------------------------------------------------------ */

struct mi_tensor {
  int dt, set;
  int dims[4], st[4];
};
struct mi_conv {
  int pad[2], str[2], dil[2], groups, set;
};

int mi_create(void **h) { return cudnnCreate((cudnnHandle_t *)h) == CUDNN_STATUS_SUCCESS ? 0 : MI_BAD_PARM; }
int mi_destroy(void *h) { return cudnnDestroy((cudnnHandle_t)h) == CUDNN_STATUS_SUCCESS ? 0 : MI_BAD_PARM; }
int mi_set_stream(void *h, void *) { return cudnnSetStream((cudnnHandle_t)h, 0) == CUDNN_STATUS_SUCCESS ? 0 : MI_BAD_PARM; }
int mi_create_tensor(void **d) {
  *d = calloc(1, sizeof(mi_tensor));
  return *d ? 0 : 4;
}
int mi_set_tensor(void *d, int dt, int nb, const int *dims, const int *strides) {
  mi_tensor *t = (mi_tensor *)d;
  if (!t || nb != 4 || !dims || !strides || (dt != ROCM_MI_HALF && dt != ROCM_MI_FLOAT && dt != ROCM_MI_BF16))
    return MI_BAD_PARM;
  t->dt = dt;
  memcpy(t->dims, dims, sizeof t->dims);
  memcpy(t->st, strides, sizeof t->st);
  t->set = 1;
  return 0;
}
int mi_destroy_tensor(void *d) {
  free(d);
  return 0;
}
int mi_create_conv(void **d) {
  *d = calloc(1, sizeof(mi_conv));
  return *d ? 0 : 4;
}
int mi_init_conv(void *d, int mode, int ph, int pw, int sh, int sw, int dh, int dw) {
  mi_conv *c = (mi_conv *)d;
  if (!c || mode != ROCM_MI_CONVOLUTION) return MI_BAD_PARM; /* miopenConvolution: cross-correlation */
  *c = mi_conv{{ph, pw}, {sh, sw}, {dh, dw}, 1, 1};
  return 0;
}
int mi_set_groups(void *d, int g) {
  if (!d || g < 1) return MI_BAD_PARM;
  ((mi_conv *)d)->groups = g;
  return 0;
}
int mi_destroy_conv(void *d) {
  free(d);
  return 0;
}
int mi_workspace(void *, void *, void *, void *, void *, size_t *bytes) {
  if (bytes) *bytes = 0;
  return 0;
}

cudnnDataType_t mi_dnn_type(int dt) {
  return dt == ROCM_MI_FLOAT ? CUDNN_DATA_FLOAT : dt == ROCM_MI_HALF ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16;
}

/* The cuDNN stand-in's descriptors for one MIOpen call, and its forward. */
int mi_run(void *h, const void *alpha, const mi_tensor *x, const void *xp, const mi_tensor *w, const void *wp,
           const mi_conv *cv, int algo, const void *beta, const mi_tensor *y, void *yp) {
  if (!h || !x || !w || !y || !cv || !x->set || !w->set || !y->set || !cv->set) return MI_BAD_PARM;
  const int *d = w->dims, *s = w->st;
  cudnnTensorFormat_t fmt;
  if (s[3] == 1 && s[2] == d[3] && s[1] == d[2] * d[3] && s[0] == d[1] * d[2] * d[3])
    fmt = CUDNN_TENSOR_NCHW;
  else if (s[1] == 1 && s[3] == d[1] && s[2] == d[1] * d[3] && s[0] == d[1] * d[2] * d[3])
    fmt = CUDNN_TENSOR_NHWC;
  else
    return MI_NOT_IMPLEMENTED;
  cudnnTensorDescriptor_t xd = NULL, yd = NULL;
  cudnnFilterDescriptor_t wd = NULL;
  cudnnConvolutionDescriptor_t cd = NULL;
  int r = MI_BAD_PARM;
  if (cudnnCreateTensorDescriptor(&xd) == 0 && cudnnCreateTensorDescriptor(&yd) == 0 &&
      cudnnCreateFilterDescriptor(&wd) == 0 && cudnnCreateConvolutionDescriptor(&cd) == 0 &&
      cudnnSetTensorNdDescriptor(xd, mi_dnn_type(x->dt), 4, x->dims, x->st) == 0 &&
      cudnnSetTensorNdDescriptor(yd, mi_dnn_type(y->dt), 4, y->dims, y->st) == 0 &&
      cudnnSetFilterNdDescriptor(wd, mi_dnn_type(w->dt), fmt, 4, w->dims) == 0 &&
      cudnnSetConvolutionNdDescriptor(cd, 2, cv->pad, cv->str, cv->dil, CUDNN_CROSS_CORRELATION,
                                      CUDNN_DATA_FLOAT) == 0 &&
      cudnnSetConvolutionGroupCount(cd, cv->groups) == 0) {
    /* Winograd: the TF32-rounding algorithm of the cuDNN stand-in (1 MiB of its workspace) */
    static thread_local char ws[1 << 20];
    int dnn_algo = algo == ROCM_MI_FWD_WINOGRAD ? 1 : 0;
    r = cudnnConvolutionForward((cudnnHandle_t)h, alpha, xd, xp, wd, wp, cd, dnn_algo, ws, sizeof ws, beta, yd,
                                yp) == CUDNN_STATUS_SUCCESS
            ? 0
            : MI_BAD_PARM;
  }
  if (xd) cudnnDestroyTensorDescriptor(xd);
  if (yd) cudnnDestroyTensorDescriptor(yd);
  if (wd) cudnnDestroyFilterDescriptor(wd);
  if (cd) cudnnDestroyConvolutionDescriptor(cd);
  return r;
}

int mi_find(void *h, void *xd, const void *x, void *wd, const void *w, void *cd, void *yd, void *y, int request,
            int *returned, rocm_mi_perf *perf, void *, size_t, bool) {
  if (!returned || !perf || request < 1) return MI_BAD_PARM;
  /* a trial run, as Find makes (its result is left in y) */
  float one = 1, zero = 0;
  int r = mi_run(h, &one, (mi_tensor *)xd, x, (mi_tensor *)wd, w, (mi_conv *)cd, ROCM_MI_FWD_DIRECT, &zero,
                 (mi_tensor *)yd, y);
  if (r != 0) return r;
  const rocm_mi_perf list[2] = {{ROCM_MI_FWD_WINOGRAD, 0.5f, 0}, {ROCM_MI_FWD_DIRECT, 1.0f, 0}};
  *returned = request < 2 ? request : 2;
  memcpy(perf, list, sizeof(rocm_mi_perf) * (size_t)*returned);
  return 0;
}

int mi_fwd(void *h, const void *alpha, void *xd, const void *x, void *wd, const void *w, void *cd, int algo,
           const void *beta, void *yd, void *y, void *, size_t) {
  if (algo != ROCM_MI_FWD_WINOGRAD && algo != ROCM_MI_FWD_DIRECT) return MI_BAD_PARM;
  return mi_run(h, alpha, (mi_tensor *)xd, x, (mi_tensor *)wd, w, (mi_conv *)cd, algo, beta, (mi_tensor *)yd, y);
}

const rocm_miopen miopen_table = {mi_create,      mi_destroy,      mi_set_stream, mi_create_tensor,
                                  mi_set_tensor,  mi_destroy_tensor, mi_create_conv, mi_init_conv,
                                  mi_set_groups,  mi_destroy_conv, mi_workspace,  mi_find,
                                  mi_fwd};

} // namespace

extern "C" const rocm_rocblas *tc_sim_rocblas(void) { return &rocblas_table; }
extern "C" const rocm_miopen *tc_sim_miopen(void) { return &miopen_table; }
