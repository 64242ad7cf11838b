/* reference/ref_linalg_util.h: kernels of the linalg family defined in one file
 * and listed in the family table of another (ref_linalg.c). Private to the
 * reference plugin. */
#ifndef TABI_REF_LINALG_UTIL_H
#define TABI_REF_LINALG_UTIL_H

#include "ref.h"

/* prims::svd (ref_linalg_svd.c). */
tabi_status ref_linalg_svd(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
/* prims::svd's argument checks (dtype float32/float64/complex64/complex128, at
 * least 2 dims) with their messages; on success A's rows m, columns n and the
 * product of its batch dims. The CUDA/ROCm plugin's svd (plugins/cuda/tc_svd.cu)
 * calls it too, so both give the same errors; no complex types in the
 * signature, so C++ can declare it. */
tabi_status ref_linalg_svd_check(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *A,
                                 int64_t *m, int64_t *n, int64_t *batch);
/* The error for non-finite input (TABI_ERR_INVALID_ARGUMENT, its message). */
tabi_status ref_linalg_svd_nonfinite(const tabi_host_api *h, const tabi_call *call);
/* Fills columns have..ncols-1 of Q (R x R, column-major, complex double) with
 * an orthonormal completion of columns 0..have-1 (ref_linalg_svd.c); tmp holds
 * R elements. The CPU plugin's svd completes full_matrices with it. */
void ref_linalg_svd_complete(ref_cplx *Q, int64_t R, int64_t have, int64_t ncols, ref_cplx *tmp);

#endif /* TABI_REF_LINALG_UTIL_H */
