/* reference/ref_linalg_util.h: kernels of the linalg family defined in one file
 * and listed in the family table of another (ref_linalg.c). Private to the
 * reference plugin. */
#ifndef TABI_REF_LINALG_UTIL_H
#define TABI_REF_LINALG_UTIL_H

#include "ref.h"

/* prims::svd (ref_linalg_svd.c). */
tabi_status ref_linalg_svd(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
/* Fills columns have..ncols-1 of Q (R x R, column-major, complex double) with
 * an orthonormal completion of columns 0..have-1 (ref_linalg_svd.c); tmp holds
 * R elements. The CPU plugin's svd completes full_matrices with it. */
void ref_linalg_svd_complete(ref_cplx *Q, int64_t R, int64_t have, int64_t ncols, ref_cplx *tmp);

#endif /* TABI_REF_LINALG_UTIL_H */
