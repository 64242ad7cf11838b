/* plugins/rocm/rocm_dl.h: rocBLAS and MIOpen through runtime loading.
 *
 * Debian 12 ships neither, so the plugin never links them: when
 * librocblas.so / libMIOpen.so can be dlopen'ed at first use, their entry
 * points are taken from there; otherwise the plugin's own kernels run
 * (rocm_gemm.cuh, and the shared direct/implicit-GEMM convolution). The
 * libraries stay loaded for the life of the process (loaded once, under
 * pthread_once; nothing else is global). TABI_ROCM_NO_VENDOR_LIBS=1 in the
 * environment skips both, so the own kernels can be tested where the
 * libraries are installed.
 *
 * Only the few rocBLAS and MIOpen names and enum values used are declared
 * here (from rocblas-types.h and miopen.h; stable since ROCm 3 / MIOpen 2:
 * opaque handles are pointers, enums are int-sized, statuses are 0 on
 * success). MIOpen counts as present only when every entry point below
 * resolves; a library missing one is closed again and the own kernels run. */
#ifndef TABI_ROCM_DL_H
#define TABI_ROCM_DL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  ROCM_RB_SUCCESS = 0,
  ROCM_RB_OP_N = 111,
  ROCM_RB_OP_T = 112,
  ROCM_RB_F16 = 150,
  ROCM_RB_F32 = 151,
  ROCM_RB_F64 = 152,
  ROCM_RB_BF16 = 168,
  ROCM_RB_ALGO_STANDARD = 0,
  ROCM_RB_ATOMICS_NOT_ALLOWED = 0 /* rocblas_atomics_mode */
};

typedef struct rocm_rocblas {
  int (*create_handle)(void **handle);
  int (*destroy_handle)(void *handle);
  int (*set_stream)(void *handle, void *stream);
  int (*gemm_strided_batched_ex)(void *handle, int trans_a, int trans_b, int32_t m, int32_t n,
                                 int32_t k, const void *alpha, const void *a, int a_type,
                                 int32_t lda, int64_t stride_a, const void *b, int b_type,
                                 int32_t ldb, int64_t stride_b, const void *beta, const void *c,
                                 int c_type, int32_t ldc, int64_t stride_c, void *d, int d_type,
                                 int32_t ldd, int64_t stride_d, int32_t batch_count,
                                 int compute_type, int algo, int32_t solution_index,
                                 uint32_t flags);
  /* Optional (NULL on a rocBLAS without it): rocBLAS allows atomics by
   * default, whose results differ run to run; handles are set not to. */
  int (*set_atomics_mode)(void *handle, int mode);
} rocm_rocblas;

enum {
  ROCM_MI_SUCCESS = 0,
  ROCM_MI_HALF = 0, /* miopenDataType_t */
  ROCM_MI_FLOAT = 1,
  ROCM_MI_BF16 = 5,
  ROCM_MI_CONVOLUTION = 0, /* miopenConvolutionMode_t: cross-correlation */
  ROCM_MI_FWD_GEMM = 0,    /* miopenConvFwdAlgorithm_t */
  ROCM_MI_FWD_DIRECT = 1,
  ROCM_MI_FWD_FFT = 2,
  ROCM_MI_FWD_WINOGRAD = 3,
  ROCM_MI_FWD_IMPLICIT_GEMM = 5
};

/* miopenConvAlgoPerf_t: the algorithm (a union of int-sized enums), its time
 * in ms, its workspace bytes. */
typedef struct rocm_mi_perf {
  int algo;
  float time;
  size_t memory;
} rocm_mi_perf;

typedef struct rocm_miopen {
  int (*create)(void **handle);
  int (*destroy)(void *handle);
  int (*set_stream)(void *handle, void *stream);
  int (*create_tensor)(void **desc);
  int (*set_tensor)(void *desc, int dtype, int nbdims, const int *dims, const int *strides);
  int (*destroy_tensor)(void *desc);
  int (*create_conv)(void **desc);
  int (*init_conv)(void *desc, int mode, int pad_h, int pad_w, int stride_h, int stride_w,
                   int dil_h, int dil_w);
  int (*set_groups)(void *desc, int groups);
  int (*destroy_conv)(void *desc);
  int (*fwd_workspace)(void *handle, void *wdesc, void *xdesc, void *cdesc, void *ydesc,
                       size_t *bytes);
  int (*find_fwd)(void *handle, void *xdesc, const void *x, void *wdesc, const void *w,
                  void *cdesc, void *ydesc, void *y, int request, int *returned,
                  rocm_mi_perf *perf, void *ws, size_t ws_bytes, bool exhaustive);
  int (*fwd)(void *handle, const void *alpha, void *xdesc, const void *x, void *wdesc,
             const void *w, void *cdesc, int algo, const void *beta, void *ydesc, void *y,
             void *ws, size_t ws_bytes);
} rocm_miopen;

/* rocBLAS's entry points, or NULL when it is not installed (or disabled). */
const rocm_rocblas *rocm_dl_rocblas(void);
/* MIOpen's entry points, or NULL when it is not installed (or disabled). */
const rocm_miopen *rocm_dl_miopen(void);
/* What was found, for the plugin's description and the docs' checks. */
const char *rocm_dl_summary(void);

#ifdef __cplusplus
}
#endif

#endif /* TABI_ROCM_DL_H */
