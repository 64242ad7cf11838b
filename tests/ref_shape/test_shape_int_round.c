#include <stdio.h>
#include <tabi/runtime.h>
#include "check.h"
/* tests/ref_shape/test_shape_int_round.c: int64 -> float32 rounds once, as static_cast<float>(int64_t) does. */
int main(void) {
  tabi_runtime *rt; CHECK_OK(tabi_runtime_create(NULL, &rt));
  CHECK_OK(tabi_runtime_load_plugin(rt, TABI_REF_PLUGIN, NULL));
  DLDevice cpu = {kDLCPU, 0}; int64_t n = 1;
  int64_t v = ((int64_t)1 << 60) + ((int64_t)1 << 36) + 1;
  tabi_tensor *x; CHECK_OK(tabi_tensor_from_host(rt, cpu, TABI_DTYPE_INT64, 1, &n, &v, 8, &x));
  tabi_op op; CHECK_OK(tabi_op_find(rt, "aten::_to_copy", &op));
  tabi_value a[2] = {tabi_tensor_value(x), tabi_dtype_value(TABI_DTYPE_FLOAT32)}, o = tabi_none();
  CHECK_OK(tabi_call(rt, op, a, 2, &o, 1));
  float f = 0; if (o.tag == TABI_TAG_TENSOR) CHECK_OK(tabi_tensor_to_host(rt, o.u.t, &f, 4));
  /* torch: torch.tensor([2**60+2**36+1]).to(torch.float32).item() == 2**60 + 2**37 */
  CHECK(f == 1152921642045800448.0f);
  tabi_value_release(&o); tabi_tensor_release(x); tabi_runtime_destroy(rt);
  return check_report();
}
