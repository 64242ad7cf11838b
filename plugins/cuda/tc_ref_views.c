/* plugins/cuda/tc_ref_views.c: see tc_ref_views.h. */
#include <string.h>

#include "ref.h"
#include "tc_ref_views.h"

tabi_status tc_register_ref_views(const tabi_host_api *h, const char *plugin, tc_owns_fn owns) {
  const ref_kernel *tables[] = {ref_shape_kernels, ref_create_kernels};
  for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
    for (const ref_kernel *k = tables[t]; k->op; k++) {
      if (strcmp(k->op, "prims::reshape") == 0) continue; /* copies on the host */
      if (owns && owns(k->op)) continue;
      tabi_op op;
      tabi_status st = h->op_find(h->ctx, k->op, &op);
      if (st != TABI_OK) return TABI_ERR(h, st, "%s: no op named '%s'", plugin, k->op);
      if ((st = h->kernel_register(h->ctx, op, TABI_LAYER_BACKEND, k->fn, (void *)h)) != TABI_OK)
        return st;
    }
  return TABI_OK;
}
