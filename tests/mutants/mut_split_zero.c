/* tests/mutants/mut_split_zero.c: prims::split_dim that divides by zero.
 * BUG: it checks that outer_length divides the dim's size (size % outer) but
 * not that outer_length is positive, so outer_length 0 divides by zero
 * (SIGFPE). The samples (valid splits and one that does not divide) pass;
 * only the random calls, with their zeros and negative sizes, reach it.
 * Expected: crashed on prims::split_dim, in a random call whose arguments the
 * report quotes. */
#include <stdint.h>

#include "mutant.h"

static tabi_status k_split_dim(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  tabi_tensor *a = args[0].u.t;
  int32_t nd = a->dl.ndim;
  int64_t dim = args[1].u.i;
  volatile int64_t outer = args[2].u.i;
  if (dim < 0) dim += nd;
  if (nd == 0 || dim < 0 || dim >= nd || nd + 1 > MUT_MAX_DIMS)
    return TABI_ERR(h, TABI_ERR_INDEX, "prims::split_dim: argument 'dim' out of range");
  int64_t size = a->dl.shape[dim];
  if (size % outer != 0) /* the bug: outer == 0 (and outer < 0) not refused first */
    return TABI_ERR(h, TABI_ERR_SHAPE, "prims::split_dim: outer_length %lld does not divide %lld",
                    (long long)outer, (long long)size);
  int64_t shape[MUT_MAX_DIMS], strides[MUT_MAX_DIMS];
  for (int32_t i = 0, j = 0; i < nd; i++, j++) {
    if (i == dim) {
      shape[j] = outer;
      strides[j] = a->dl.strides[i] * (size / outer);
      j++;
      shape[j] = size / outer;
      strides[j] = a->dl.strides[i];
    } else {
      shape[j] = a->dl.shape[i];
      strides[j] = a->dl.strides[i];
    }
  }
  tabi_tensor *v;
  tabi_status st = h->tensor_view(h->ctx, a, nd + 1, shape, strides, (int64_t)a->dl.byte_offset, &v);
  if (st != TABI_OK) return st;
  outs[0] = tabi_tensor_value(v);
  return TABI_OK;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_split_zero", "mutant: split_dim divides by a zero outer_length");
  return mut_register(host, "prims::split_dim", k_split_dim);
}
