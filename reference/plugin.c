/* reference/plugin.c: the reference plugin's entry point.
 *
 * Registers every kernel of every family table as the kDLCPU backend. It is a
 * REFERENCE plugin: discovery skips it, so it never competes with a real CPU
 * backend; conformance loads it by name as the oracle.
 *
 * Built a second time with REF_PRIMS_ONLY as "reference_prims", which registers
 * only the prims: the test backend that proves every core ATen op runs through
 * its decomposition.
 */
#include <string.h>

#include "ref.h"

/* A family file that does not exist yet leaves its table undefined; weak
 * references let the plugin build and register what there is. */
#define REF_TABLES(X) \
  X(ref_elementwise_kernels) X(ref_elementwise2_kernels) X(ref_shape_kernels) \
  X(ref_index_kernels) X(ref_reduce_kernels) X(ref_create_kernels) X(ref_nn_kernels) \
  X(ref_nn2_kernels) X(ref_linalg_kernels) X(ref_fft_kernels) X(ref_elementwise3_kernels) \
  X(ref_shape2_kernels) X(ref_index2_kernels) X(ref_reduce2_kernels) X(ref_nn3_kernels) \
  X(ref_create2_kernels)
#define REF_WEAK(t) extern const ref_kernel t[] __attribute__((weak));
REF_TABLES(REF_WEAK)
#define REF_LIST(t) t,
static const ref_kernel *const ref_tables[] = {REF_TABLES(REF_LIST)};

#ifdef REF_PRIMS_ONLY
#define REF_PLUGIN_NAME "reference_prims"
#else
#define REF_PLUGIN_NAME "reference"
#endif

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  out->kind = TABI_PLUGIN_KIND_REFERENCE;
  out->name = REF_PLUGIN_NAME;
  out->version = TABI_VERSION_STRING;
  out->description = "reference kernels: the conformance oracle (slow, obviously right)";
  out->device_type = kDLCPU;
  for (size_t t = 0; t < sizeof ref_tables / sizeof ref_tables[0]; t++) {
    if (!ref_tables[t]) continue;
    for (const ref_kernel *k = ref_tables[t]; k->op; k++) {
#ifdef REF_PRIMS_ONLY
      if (strncmp(k->op, "prims::", 7) != 0) continue;
#endif
      tabi_op op;
      tabi_status st = host->op_find(host->ctx, k->op, &op);
      if (st != TABI_OK)
        return TABI_ERR(host, st, "reference: no op named '%s' is registered", k->op);
      st = host->kernel_register(host->ctx, op, TABI_LAYER_BACKEND, k->fn, (void *)host);
      if (st != TABI_OK) return st;
    }
  }
  return TABI_OK;
}
