/* reference/ref_linalg_util.h: kernels of the linalg family defined in one file
 * and listed in the family table of another (ref_linalg.c). Private to the
 * reference plugin. */
#ifndef TABI_REF_LINALG_UTIL_H
#define TABI_REF_LINALG_UTIL_H

#include "ref.h"

/* prims::svd (ref_linalg_svd.c). */
tabi_status ref_linalg_svd(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);

#endif /* TABI_REF_LINALG_UTIL_H */
