/* reference/ref_softmax_check.c: see ref_softmax_check.h. */
#include "ref.h"
#include "ref_softmax_check.h"

tabi_status ref_softmax_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int32_t *dim,
                              tabi_dtype *odt) {
  const tabi_tensor *x = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  tabi_status st;
  *odt = dt;
  if ((st = ref_check_dtype(h, call, "self", dt, REF_DTS_FLOAT))) return st;
  if ((st = ref_wrap_dim(h, call, "dim", args[1].u.i, x->dl.ndim, dim))) return st;
  if (args[2].u.i) { /* half_to_float: ATen's rule (torch 1.13 CPU refuses it outright) */
    if (dt != TABI_DTYPE_FLOAT16)
      return REF_ERR(h, TABI_ERR_TYPE, "%s: argument 'half_to_float' is true, which needs a float16 "
                     "input; got %s", ref_op_name(h, call), tabi_dtype_name(dt));
    *odt = TABI_DTYPE_FLOAT32;
  }
  return TABI_OK;
}
