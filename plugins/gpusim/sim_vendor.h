/* plugins/gpusim/sim_vendor.h: host stand-ins for the part of cuBLAS, cuFFT
 * and cuDNN that the CUDA plugin calls, and for the CUDA runtime's stream,
 * event and device calls its device table makes (included by tc_sim.h under
 * TC_SIM_CUDA, the libtabi_gpusim_cuda.so build).
 *
 * Why: the gpusim plugin proves the shared kernel sources on the CPU, but
 * it takes the ROCm paths, so the CUDA plugin's library glue (tc_blas.cu's
 * column-major operand layouts, tc_fft.cu's plan cache and Hermitian
 * loads, tc_conv.cu's cuDNN descriptors and algorithm choice) ran only on a
 * GPU. With these stand-ins it runs everywhere, under `tabi conform`.
 *
 * The names, argument orders and meanings are the vendors' (column-major
 * GEMM, unnormalised FFTs, NCHW descriptors with strides). The enum values
 * are our own: only the names are part of the contract the glue relies on.
 * Each stand-in also holds the glue to the vendor's rules that a GPU would
 * not report (sim_vendor.cpp, sim_fft.cpp, sim_dnn.cpp and sim_runtime.cpp
 * say which): a bad leading dimension or descriptor is refused; one cuDNN
 * handle used by two threads at once, or one cuFFT plan run by two threads
 * at once, is a violation (below); C2R scribbles over its input as cuFFT
 * may; and an algorithm with tensor-op math rounds float32 inputs to TF32 as
 * the hardware does, so a float32 result that used it misses the tolerance.
 *
 * TABI_GPUSIM_FAULT (environment, read at each call) makes a library fail:
 * "blas-alloc", "fft-alloc" (ALLOC_FAILED from the GEMMs / the plan), "dnn"
 * (every cuDNN convolution refused) or "lt" (cuBLASLt's heuristic finds no
 * algorithm), to test the glue's error and fallback paths; "blas-wrong",
 * "lt-wrong" and "dnn-wrong" negate alpha, so a test can see that a path
 * reaches the library (its results then fail). */
#ifndef TABI_SIM_VENDOR_H
#define TABI_SIM_VENDOR_H

#include <stddef.h>

extern "C" {

/* --- the CUDA runtime's stream, event and device calls (tc_device.cu) -------------
 * (sim_runtime.cpp; tc_sim.h has the memory and launch calls every flavour
 * uses). Work is synchronous, so streams and events are always complete; a
 * stream or event used after its destroy is cudaErrorInvalidResourceHandle. */
typedef struct tc_sim_event *cudaEvent_t;
#define cudaStreamDefault 0u
typedef struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  int major, minor, multiProcessorCount;
} cudaDeviceProp;
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaMemcpyPeerAsync(void *dst, int ddev, const void *src, int sdev, size_t n, cudaStream_t s);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
cudaError_t cudaEventQuery(cudaEvent_t e);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);

/* --- cuBLAS ---------------------------------------------------------------- */
typedef enum cublasStatus_t {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_NOT_SUPPORTED = 15
} cublasStatus_t;
typedef enum cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;
typedef enum cublasMath_t { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TF32_TENSOR_OP_MATH = 3 } cublasMath_t;
typedef enum cublasGemmAlgo_t { CUBLAS_GEMM_DEFAULT = -1 } cublasGemmAlgo_t;
typedef enum cudaDataType {
  CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_C_32F = 4, CUDA_C_64F = 5, CUDA_R_16BF = 14
} cudaDataType;
typedef enum cublasComputeType_t { CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_64F = 70 } cublasComputeType_t;
typedef struct sim_cublas *cublasHandle_t;

cublasStatus_t cublasCreate(cublasHandle_t *out);
cublasStatus_t cublasDestroy(cublasHandle_t h);
cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s);
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t m);
cublasStatus_t cublasSetWorkspace(cublasHandle_t h, void *ws, size_t bytes);
cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                            int k, const void *alpha, const void *a, cudaDataType at, int lda,
                            const void *b, cudaDataType bt, int ldb, const void *beta, void *c,
                            cudaDataType ct, int ldc, cublasComputeType_t comp, cublasGemmAlgo_t algo);
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                          int m, int n, int k, const void *alpha, const void *a,
                                          cudaDataType at, int lda, long long sa, const void *b,
                                          cudaDataType bt, int ldb, long long sb, const void *beta,
                                          void *c, cudaDataType ct, int ldc, long long sc, int batch,
                                          cublasComputeType_t comp, cublasGemmAlgo_t algo);

/* --- cuBLASLt (addmm's bias epilogue) ----------------------------------------
 * The documented rules held here: an attribute's buffer has its exact size;
 * op(A) is m x k, op(B) k x n, C and D m x n (D's rows: the bias's length),
 * leading dimensions at least the stored rows; C may be D only with the same
 * layout; a workspace at least the algorithm's (1 MiB). Unless the
 * preference's reduction-scheme mask leaves it out, the heuristic lists first
 * an algorithm that reduces split-K partials in place (INPLACE), whose order
 * of summation here changes from call to call, so a glue that lets it through
 * fails the suite's bitwise repeat checks (the plugin keeps every kernel's
 * bits fixed run to run; cf. cuDNN's atomics algorithms in sim_dnn.cpp).
 * The heuristic takes each matrix to be as aligned as the preference says
 * (256 bytes unless told less: cuBLASLt's default); a matrix whose pointer or
 * leading dimension in bytes is less aligned than its algorithm assumed is a
 * violation (on a GPU: a misaligned-address fault, which ends the context). */
typedef struct sim_lt *cublasLtHandle_t;
typedef struct sim_lt_desc *cublasLtMatmulDesc_t;
typedef struct sim_lt_layout *cublasLtMatrixLayout_t;
typedef struct sim_lt_pref *cublasLtMatmulPreference_t;
typedef struct cublasLtMatmulAlgo_t { unsigned long long data[8]; } cublasLtMatmulAlgo_t;
typedef struct cublasLtMatmulHeuristicResult_t {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
} cublasLtMatmulHeuristicResult_t;
typedef enum cublasLtMatmulDescAttributes_t {
  CUBLASLT_MATMUL_DESC_TRANSA = 3,
  CUBLASLT_MATMUL_DESC_TRANSB = 4,
  CUBLASLT_MATMUL_DESC_EPILOGUE = 7,
  CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8,
  CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 26
} cublasLtMatmulDescAttributes_t;
typedef enum cublasLtEpilogue_t { CUBLASLT_EPILOGUE_DEFAULT = 1, CUBLASLT_EPILOGUE_BIAS = 4 } cublasLtEpilogue_t;
typedef enum cublasLtMatmulPreferenceAttributes_t {
  CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,
  CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK = 3,
  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5,
  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6,
  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7,
  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8
} cublasLtMatmulPreferenceAttributes_t;
typedef enum cublasLtReductionScheme_t {
  CUBLASLT_REDUCTION_SCHEME_NONE = 0,
  CUBLASLT_REDUCTION_SCHEME_INPLACE = 1,
  CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE = 2,
  CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE = 4,
  CUBLASLT_REDUCTION_SCHEME_MASK = 7
} cublasLtReductionScheme_t;

cublasStatus_t cublasLtCreate(cublasLtHandle_t *out);
cublasStatus_t cublasLtDestroy(cublasLtHandle_t h);
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *out, cublasComputeType_t comp, cudaDataType scale);
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d);
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr,
                                              const void *buf, size_t bytes);
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *out, cudaDataType t, unsigned long long rows,
                                          unsigned long long cols, long long ld);
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l);
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *out);
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p);
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t p,
                                                    cublasLtMatmulPreferenceAttributes_t attr, const void *buf,
                                                    size_t bytes);
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t h, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t a,
                                              cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c,
                                              cublasLtMatrixLayout_t dd, cublasLtMatmulPreference_t p, int want,
                                              cublasLtMatmulHeuristicResult_t *res, int *got);
cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t d, const void *alpha, const void *a,
                              cublasLtMatrixLayout_t al, const void *b, cublasLtMatrixLayout_t bl, const void *beta,
                              const void *c, cublasLtMatrixLayout_t cl, void *dd, cublasLtMatrixLayout_t dl,
                              const cublasLtMatmulAlgo_t *algo, void *ws, size_t ws_bytes, cudaStream_t s);

/* --- cuFFT ------------------------------------------------------------------ */
typedef int cufftHandle;
typedef enum cufftResult {
  CUFFT_SUCCESS = 0,
  CUFFT_INVALID_PLAN = 1,
  CUFFT_ALLOC_FAILED = 2,
  CUFFT_INVALID_TYPE = 3,
  CUFFT_INVALID_VALUE = 4,
  CUFFT_EXEC_FAILED = 6,
  CUFFT_INVALID_SIZE = 8
} cufftResult;
typedef enum cufftType {
  CUFFT_R2C = 0x2a, CUFFT_C2R = 0x2c, CUFFT_C2C = 0x29, CUFFT_D2Z = 0x6a, CUFFT_Z2D = 0x6c, CUFFT_Z2Z = 0x69
} cufftType;
#define CUFFT_FORWARD (-1)
#define CUFFT_INVERSE 1
typedef float cufftReal;
typedef double cufftDoubleReal;
typedef struct cufftComplex { float x, y; } cufftComplex;
typedef struct cufftDoubleComplex { double x, y; } cufftDoubleComplex;

cufftResult cufftCreate(cufftHandle *out);
cufftResult cufftMakePlanMany64(cufftHandle p, int rank, long long *n, long long *inembed, long long istride,
                                long long idist, long long *onembed, long long ostride, long long odist,
                                cufftType type, long long batch, size_t *work);
cufftResult cufftSetStream(cufftHandle p, cudaStream_t s);
cufftResult cufftDestroy(cufftHandle p);
cufftResult cufftExecC2C(cufftHandle p, cufftComplex *in, cufftComplex *out, int dir);
cufftResult cufftExecZ2Z(cufftHandle p, cufftDoubleComplex *in, cufftDoubleComplex *out, int dir);
cufftResult cufftExecR2C(cufftHandle p, cufftReal *in, cufftComplex *out);
cufftResult cufftExecD2Z(cufftHandle p, cufftDoubleReal *in, cufftDoubleComplex *out);
cufftResult cufftExecC2R(cufftHandle p, cufftComplex *in, cufftReal *out);
cufftResult cufftExecZ2D(cufftHandle p, cufftDoubleComplex *in, cufftDoubleReal *out);

/* --- cuDNN (the legacy convolution API) ------------------------------------------ */
typedef enum cudnnStatus_t {
  CUDNN_STATUS_SUCCESS = 0,
  CUDNN_STATUS_NOT_INITIALIZED = 1001,
  CUDNN_STATUS_BAD_PARAM = 2000,
  CUDNN_STATUS_ALLOC_FAILED = 2001,
  CUDNN_STATUS_NOT_SUPPORTED = 3000,
  CUDNN_STATUS_INTERNAL_ERROR = 4000,
  CUDNN_STATUS_EXECUTION_FAILED = 5000
} cudnnStatus_t;
typedef enum cudnnDataType_t {
  CUDNN_DATA_FLOAT = 0, CUDNN_DATA_DOUBLE = 1, CUDNN_DATA_HALF = 2, CUDNN_DATA_BFLOAT16 = 9
} cudnnDataType_t;
typedef enum cudnnTensorFormat_t { CUDNN_TENSOR_NCHW = 0, CUDNN_TENSOR_NHWC = 1 } cudnnTensorFormat_t;
typedef enum cudnnConvolutionMode_t { CUDNN_CONVOLUTION = 0, CUDNN_CROSS_CORRELATION = 1 } cudnnConvolutionMode_t;
typedef enum cudnnMathType_t {
  CUDNN_DEFAULT_MATH = 0, CUDNN_TENSOR_OP_MATH = 1, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2, CUDNN_FMA_MATH = 3
} cudnnMathType_t;
typedef enum cudnnDeterminism_t { CUDNN_NON_DETERMINISTIC = 0, CUDNN_DETERMINISTIC = 1 } cudnnDeterminism_t;
typedef int cudnnConvolutionFwdAlgo_t;
typedef int cudnnConvolutionBwdDataAlgo_t;
typedef int cudnnConvolutionBwdFilterAlgo_t;
#define SIM_DNN_PERF(name, algo_t)  \
  typedef struct name {             \
    algo_t algo;                    \
    cudnnStatus_t status;           \
    float time;                     \
    size_t memory;                  \
    cudnnDeterminism_t determinism; \
    cudnnMathType_t mathType;       \
    int reserved[3];                \
  } name
SIM_DNN_PERF(cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgo_t);
SIM_DNN_PERF(cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgo_t);
SIM_DNN_PERF(cudnnConvolutionBwdFilterAlgoPerf_t, cudnnConvolutionBwdFilterAlgo_t);
#undef SIM_DNN_PERF
typedef struct sim_dnn *cudnnHandle_t;
typedef struct sim_dnn_tensor *cudnnTensorDescriptor_t;
typedef struct sim_dnn_filter *cudnnFilterDescriptor_t;
typedef struct sim_dnn_conv *cudnnConvolutionDescriptor_t;

cudnnStatus_t cudnnCreate(cudnnHandle_t *out);
cudnnStatus_t cudnnDestroy(cudnnHandle_t h);
cudnnStatus_t cudnnSetStream(cudnnHandle_t h, cudaStream_t s);
cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *out);
cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t d);
cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t d, cudnnDataType_t dt, int nd, const int *dims,
                                         const int *strides);
cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *out);
cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t d);
cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t d, cudnnDataType_t dt, cudnnTensorFormat_t fmt,
                                         int nd, const int *dims);
cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *out);
cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t d);
cudnnStatus_t cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t d, int n, const int *pad,
                                              const int *stride, const int *dil, cudnnConvolutionMode_t mode,
                                              cudnnDataType_t compute);
cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t d, int groups);
cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t d, cudnnMathType_t m);
cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t h, cudnnTensorDescriptor_t x,
                                                     cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t cd,
                                                     cudnnTensorDescriptor_t y, int want, int *n,
                                                     cudnnConvolutionFwdAlgoPerf_t *perf);
cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(cudnnHandle_t h, cudnnTensorDescriptor_t x, const void *xp,
                                                     cudnnFilterDescriptor_t w, const void *wp,
                                                     cudnnConvolutionDescriptor_t cd, cudnnTensorDescriptor_t y,
                                                     void *yp, int want, int *n, cudnnConvolutionFwdAlgoPerf_t *perf,
                                                     void *ws, size_t ws_bytes);
cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t h, const void *alpha, cudnnTensorDescriptor_t x, const void *xp,
                                      cudnnFilterDescriptor_t w, const void *wp, cudnnConvolutionDescriptor_t cd,
                                      cudnnConvolutionFwdAlgo_t algo, void *ws, size_t ws_bytes, const void *beta,
                                      cudnnTensorDescriptor_t y, void *yp);
cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(cudnnHandle_t h, cudnnFilterDescriptor_t w,
                                                          cudnnTensorDescriptor_t dy, cudnnConvolutionDescriptor_t cd,
                                                          cudnnTensorDescriptor_t dx, int want, int *n,
                                                          cudnnConvolutionBwdDataAlgoPerf_t *perf);
cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(cudnnHandle_t h, cudnnFilterDescriptor_t w, const void *wp,
                                                          cudnnTensorDescriptor_t dy, const void *dyp,
                                                          cudnnConvolutionDescriptor_t cd, cudnnTensorDescriptor_t dx,
                                                          void *dxp, int want, int *n,
                                                          cudnnConvolutionBwdDataAlgoPerf_t *perf, void *ws,
                                                          size_t ws_bytes);
cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t h, const void *alpha, cudnnFilterDescriptor_t w,
                                           const void *wp, cudnnTensorDescriptor_t dy, const void *dyp,
                                           cudnnConvolutionDescriptor_t cd, cudnnConvolutionBwdDataAlgo_t algo,
                                           void *ws, size_t ws_bytes, const void *beta, cudnnTensorDescriptor_t dx,
                                           void *dxp);
cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(cudnnHandle_t h, cudnnTensorDescriptor_t x,
                                                            cudnnTensorDescriptor_t dy,
                                                            cudnnConvolutionDescriptor_t cd,
                                                            cudnnFilterDescriptor_t dw, int want, int *n,
                                                            cudnnConvolutionBwdFilterAlgoPerf_t *perf);
cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(cudnnHandle_t h, cudnnTensorDescriptor_t x,
                                                            const void *xp, cudnnTensorDescriptor_t dy,
                                                            const void *dyp, cudnnConvolutionDescriptor_t cd,
                                                            cudnnFilterDescriptor_t dw, void *dwp, int want, int *n,
                                                            cudnnConvolutionBwdFilterAlgoPerf_t *perf, void *ws,
                                                            size_t ws_bytes);
cudnnStatus_t cudnnConvolutionBackwardFilter(cudnnHandle_t h, const void *alpha, cudnnTensorDescriptor_t x,
                                             const void *xp, cudnnTensorDescriptor_t dy, const void *dyp,
                                             cudnnConvolutionDescriptor_t cd, cudnnConvolutionBwdFilterAlgo_t algo,
                                             void *ws, size_t ws_bytes, const void *beta, cudnnFilterDescriptor_t dw,
                                             void *dwp);

/* --- shared by the stand-ins (sim_vendor.cpp) ------------------------------------ */
/* Contract violations the stand-ins saw (a cuDNN handle or cuFFT plan used by
 * two threads at once, a workspace smaller than the algorithm asked for).
 * What a GPU does then is undefined; a stand-in prints the violation to
 * stderr, counts it, and fills the call's output with NaN, so the result
 * comparison fails where the silent GPU would have been wrong sometimes. */
int tc_sim_vendor_violations(void);
/* Calls of cublasLtMatmulAlgoGetHeuristic so far, in this process. Exported
 * from libtabi_gpusim_cuda.so (the one symbol besides tabi_plugin_init), so
 * that tests/cuda/test_cuda_ops.c can see the plugin cache the heuristic's
 * answers (dlsym on the loaded plugin; hidden in libtabi_gpusim.so, whose
 * ROCm paths never ask it). */
#ifdef GPUSIM_CUDA
__attribute__((visibility("default")))
#endif
int tc_sim_lt_heuristics(void);
/* Which plugin prints it, and what the cuDNN stand-in is to that plugin: in
 * libtabi_gpusim.so it serves the MIOpen stand-in (sim_rocm_libs.cpp). */
#ifdef GPUSIM_CUDA
#define SIM_FLAVOUR "gpusim_cuda"
#define SIM_DNN_NAME "cuDNN"
#else
#define SIM_FLAVOUR "gpusim"
#define SIM_DNN_NAME "MIOpen (the cuDNN stand-in under it)"
#endif
void tc_sim_vendor_violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Called (when set) by a cuDNN convolution and a cuFFT exec while they hold
 * their handle or plan, before they compute: lets a test make a second
 * thread's call land inside the first one's, deterministically. */
extern void (*tc_sim_vendor_inside_hook)(void);
/* v (a float32 value) rounded to TF32's 10 mantissa bits (nearest, ties
 * away), as tensor cores read float32: the cuBLAS stand-in under
 * CUBLAS_TF32_TENSOR_OP_MATH, the cuDNN stand-in's tensor-op algorithm. */
double tc_sim_tf32(double v);
/* 1 when TABI_GPUSIM_FAULT names `what` (a comma-separated list). */
int tc_sim_vendor_fault(const char *what);
}

#endif /* TABI_SIM_VENDOR_H */
