/* plugins/rocm/rocm_plugin.c: the entry point of libtabi_rocm.so.
 *
 * Registers the HIP device table and the reference's device-agnostic kernels
 * (views and factories, which only touch metadata or hand a host-built result
 * over through host->tensor_copy). Compute kernels are not there yet: ops that
 * need them are missing on ROCm (decompositions bottom out in absent prims).
 * Never run on AMD hardware so far. */
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "rocm.h"

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);

static void rocm_destroy(void *ctx) {
  rocm_ctx *c = ctx;
  if (!c) return;
  pthread_mutex_destroy(&c->mu);
  free(c);
}

tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  out->kind = TABI_PLUGIN_KIND_DEVICE;
  out->name = "rocm";
  out->version = TABI_VERSION_STRING;
  out->description = "AMD GPUs through the HIP runtime (device table, views, factories)";
  out->device_type = kDLROCM;
  rocm_ctx *c = calloc(1, sizeof *c);
  if (!c) return TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, "rocm: out of memory");
  c->h = host;
  c->count = -1;
  pthread_mutex_init(&c->mu, NULL);
  out->ctx = c;
  out->destroy = rocm_destroy;
  tabi_status st = rocm_device_register(c);
  if (st != TABI_OK) return st;
  const ref_kernel *tables[] = {ref_shape_kernels, ref_create_kernels};
  for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
    for (const ref_kernel *k = tables[t]; k->op; k++) {
      if (strcmp(k->op, "prims::reshape") == 0) continue; /* copies on the host */
      tabi_op op;
      if ((st = host->op_find(host->ctx, k->op, &op)) != TABI_OK)
        return TABI_ERR(host, st, "rocm: no op named '%s'", k->op);
      if ((st = host->kernel_register(host->ctx, op, TABI_LAYER_BACKEND, k->fn, (void *)host)) != TABI_OK)
        return st;
    }
  return TABI_OK;
}
