/* plugins/cuda/tc_ref_views.h: the reference's device-agnostic kernels in a
 * GPU plugin. Views and factories (ref_shape_kernels, ref_create_kernels)
 * touch only metadata or build on the host and hand over through
 * host->tensor_copy, so the CUDA, ROCm and gpusim plugins all register them,
 * with the host table as their context, for every op they have no kernel of
 * their own for. Shared so the three cannot drift. */
#ifndef TABI_TC_REF_VIEWS_H
#define TABI_TC_REF_VIEWS_H

#include <tabi/tabi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the plugin registered a kernel of its own for op. */
typedef int (*tc_owns_fn)(const char *op);

/* Registers them for every op `owns` does not claim (owns may be NULL: none),
 * except prims::reshape (the reference's copies on the host); errors name
 * `plugin`. */
tabi_status tc_register_ref_views(const tabi_host_api *h, const char *plugin, tc_owns_fn owns);

#ifdef __cplusplus
}
#endif

#endif /* TABI_TC_REF_VIEWS_H */
