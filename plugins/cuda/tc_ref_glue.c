/* plugins/cuda/tc_ref_glue.c: see tc_ref_glue.h. */
#include <string.h>

#include "ref_reduce_util.h"
#include "tc_ref_glue.h"

tabi_status tc_red_plan_init(const tabi_host_api *h, const tabi_call *call, const char *arg,
                             const tabi_tensor *self, const tabi_value *dims, int empty_is_all,
                             int keepdim, int check_nonempty, tc_red_plan *out) {
  ref_red r;
  tabi_status st = ref_red_init(h, call, arg, self, dims, empty_is_all, keepdim, &r);
  if (st == TABI_OK && check_nonempty) st = ref_red_check_nonempty(h, call, self, &r);
  if (st != TABI_OK) return st;
  memset(out, 0, sizeof *out);
  out->ndim = r.ndim;
  out->dims_empty = r.dims_empty;
  for (int32_t i = 0; i < r.ndim && i < 16; i++) out->reduced[i] = r.reduced[i];
  out->out_ndim = r.out_ndim;
  for (int32_t i = 0; i < r.out_ndim && i < 16; i++) out->out_shape[i] = r.out_shape[i];
  out->group = r.group;
  return TABI_OK;
}
