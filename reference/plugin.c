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
#include <stdlib.h>
#include <string.h>

#include "ref.h"

/* A family file that does not exist yet leaves its table undefined; weak
 * references let the plugin build and register what there is. */
#define REF_TABLES(X)                                                                         \
  X(ref_elementwise_kernels)                                                                  \
  X(ref_elementwise2_kernels) X(ref_shape_kernels) X(ref_index_kernels) X(ref_reduce_kernels) \
      X(ref_create_kernels) X(ref_nn_kernels) X(ref_nn2_kernels) X(ref_linalg_kernels)        \
          X(ref_fft_kernels) X(ref_elementwise3_kernels) X(ref_shape2_kernels)                \
              X(ref_index2_kernels) X(ref_reduce2_kernels) X(ref_nn3_kernels)                 \
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

/* Every kernel is reached through a guard: the reference iterates with fixed
 * arrays of REF_MAX_DIMS, while the host allows more dims, so a call with a
 * larger tensor is refused here, once, for every family. */
typedef struct ref_entry {
  const tabi_host_api *h;
  tabi_kernel_fn fn;
} ref_entry;

static int32_t too_many_dims(const tabi_value *v) {
  if (v->tag == TABI_TAG_TENSOR && v->u.t && v->u.t->dl.ndim > REF_MAX_DIMS) return v->u.t->dl.ndim;
  if (v->tag == TABI_TAG_TENSOR_LIST)
    for (int64_t k = 0; k < v->u.list.len; k++) {
      const tabi_tensor *t = tabi_value_tensors(v)[k];
      if (t && t->dl.ndim > REF_MAX_DIMS) return t->dl.ndim;
    }
  return 0;
}

static tabi_status ref_guard(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const ref_entry *e = ctx;
  for (int32_t i = 0; i < call->nargs; i++) {
    int32_t nd = too_many_dims(&args[i]);
    if (nd)
      return TABI_ERR(e->h, TABI_ERR_INVALID_ARGUMENT,
                      "%s: argument %d has %d dims; the reference supports at most %d",
                      ref_op_name(e->h, call), (int)i, (int)nd, REF_MAX_DIMS);
  }
  return e->fn((void *)e->h, call, args, outs);
}

static void ref_destroy(void *ctx) {
  free(ctx);
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  out->kind = TABI_PLUGIN_KIND_REFERENCE;
  out->name = REF_PLUGIN_NAME;
  out->version = TABI_VERSION_STRING;
  out->description = "reference kernels: the conformance oracle (slow, obviously right)";
  out->device_type = kDLCPU;
  size_t n = 0;
  for (size_t t = 0; t < sizeof ref_tables / sizeof ref_tables[0]; t++)
    for (const ref_kernel *k = ref_tables[t]; k && k->op; k++) n++;
  ref_entry *entries = calloc(n ? n : 1, sizeof *entries);
  if (!entries) return TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, "reference: out of memory");
  out->ctx = entries;
  out->destroy = ref_destroy;
  size_t i = 0;
  for (size_t t = 0; t < sizeof ref_tables / sizeof ref_tables[0]; t++) {
    if (!ref_tables[t]) continue;
    for (const ref_kernel *k = ref_tables[t]; k->op; k++) {
#ifdef REF_PRIMS_ONLY
      if (strncmp(k->op, "prims::", 7) != 0) continue;
#endif
      tabi_op op;
      tabi_status st = host->op_find(host->ctx, k->op, &op);
      if (st != TABI_OK)
        st = TABI_ERR(host, st, "reference: no op named '%s' is registered", k->op);
      entries[i].h = host;
      entries[i].fn = k->fn;
      if (st == TABI_OK)
        st = host->kernel_register(host->ctx, op, TABI_LAYER_BACKEND, ref_guard, &entries[i]);
      if (st != TABI_OK) { /* a failed init is not destroyed: clean up here */
        free(entries);
        out->ctx = NULL;
        return st;
      }
      i++;
    }
  }
  return TABI_OK;
}
