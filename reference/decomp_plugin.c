/* reference/decomp_plugin.c: the "decomp" plugin: composite kernels.
 *
 * Registers every decomposition at TABI_LAYER_COMPOSITE, where the dispatcher
 * uses it to fill any backend's slot that lacks a native kernel. It is a LIBRARY
 * plugin (no device of its own), found by discovery, so any runtime that loads
 * device plugins from TABI_PLUGIN_PATH gets decompositions with them.
 *
 * One dc_ctx per load: the op handles of this runtime, never global.
 */
#include <stdlib.h>

#include "decomp.h"

#define DC_NAME(id, name) name,
static const char *const dc_op_names[DC_NOPS] = {DC_OPS(DC_NAME)};
#undef DC_NAME

/* Tables of families not written yet are weak, as in plugin.c. */
extern const dc_kernel dc_reduce_kernels[] __attribute__((weak));
extern const dc_kernel dc_shape_kernels[] __attribute__((weak));
extern const dc_kernel dc_create_kernels[] __attribute__((weak));
extern const dc_kernel dc_nn_kernels[] __attribute__((weak));

static void dc_destroy(void *ctx) {
  if (ctx) free(((dc_ctx *)ctx)->checked);
  free(ctx);
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  out->kind = TABI_PLUGIN_KIND_LIBRARY;
  out->name = "decomp";
  out->version = TABI_VERSION_STRING;
  out->description = "decompositions of core ATen ops into prims (composite kernels)";
  dc_ctx *c = calloc(1, sizeof *c);
  if (!c) return TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, "decomp: out of memory");
  c->h = host;
  out->ctx = c;
  out->destroy = dc_destroy;
  tabi_status st = TABI_OK;
  for (int i = 0; i < DC_NOPS && st == TABI_OK; i++) {
    st = host->op_find(host->ctx, dc_op_names[i], &c->ops[i]);
    if (st != TABI_OK)
      st = TABI_ERR(host, st, "decomp: the op '%s' it builds on is not registered", dc_op_names[i]);
  }
  const dc_kernel *tables[] = {dc_elementwise_kernels, dc_reduce_kernels, dc_shape_kernels,
                               dc_create_kernels, dc_nn_kernels};
  for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
    if (!tables[t]) continue;
    for (const dc_kernel *k = tables[t]; k->op; k++) {
      if (st != TABI_OK) break;
      tabi_op op;
      st = host->op_find(host->ctx, k->op, &op);
      if (st != TABI_OK)
        st = TABI_ERR(host, st, "decomp: no op named '%s'", k->op);
      else {
        tabi_kernel_fn fn = dc_checked(c, k->op, op, k->fn);
        st = fn ? host->kernel_register(host->ctx, op, TABI_LAYER_COMPOSITE, fn, c)
                : TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, "decomp: out of memory");
      }
    }
  }
  if (st != TABI_OK) { /* a failed init is not destroyed: clean up here */
    dc_destroy(c);
    out->ctx = NULL;
  }
  return st;
}
