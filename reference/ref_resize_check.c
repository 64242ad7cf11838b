/* reference/ref_resize_check.c: see ref_resize_check.h. */
#include "ref.h"
#include "ref_resize_check.h"
#include "ref_shape_util.h"

tabi_status ref_resize_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int prims) {
  const tabi_value *size = &args[1];
  int64_t fmt = prims ? RS_MF_CONTIGUOUS : rs_memfmt_arg(&args[2], RS_MF_CONTIGUOUS);
  tabi_status st = rs_check_sizes(h, call, prims ? "shape" : "size", size->u.list.len, tabi_value_ints(size));
  if (st != TABI_OK) return st;
  if (fmt != RS_MF_CONTIGUOUS && fmt != RS_MF_PRESERVE)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'memory_format': only contiguous resizing is supported (got %lld)",
                   ref_op_name(h, call), (long long)fmt);
  return TABI_OK;
}
