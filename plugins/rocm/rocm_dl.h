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
 * Only the few rocBLAS names and enum values used are declared here (from
 * rocblas-types.h; stable since ROCm 3). */
#ifndef TABI_ROCM_DL_H
#define TABI_ROCM_DL_H

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
  ROCM_RB_ALGO_STANDARD = 0
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
} rocm_rocblas;

/* rocBLAS's entry points, or NULL when it is not installed (or disabled). */
const rocm_rocblas *rocm_dl_rocblas(void);
/* 1 when libMIOpen.so loads and exports miopenCreate. */
int rocm_dl_miopen_present(void);
/* What was found, for the plugin's description and the docs' checks. */
const char *rocm_dl_summary(void);

#ifdef __cplusplus
}
#endif

#endif /* TABI_ROCM_DL_H */
