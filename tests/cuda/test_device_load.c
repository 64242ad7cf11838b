/* tests/cuda/test_device_load.c: a GPU device plugin loads anywhere (no driver,
 * no GPU needed), reports its device count with TABI_OK (0 without a device),
 * registers its device table and the view/factory kernels, and refuses an
 * allocation on an absent device with a status. argv: PLUGIN DLDeviceType
 * [OP...]: further ops that must have a native kernel (the compute kernels a
 * build is expected to have registered). */
#include <stdio.h>
#include <stdlib.h>

#include <tabi/runtime.h>

#include "check.h"

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  int32_t type = (int32_t)atoi(argv[2]);
  tabi_runtime *rt = NULL;
  CHECK_OK(tabi_runtime_create(NULL, &rt));
  if (!rt) return check_report();
  CHECK_OK(tabi_runtime_load_plugin(rt, argv[1], NULL));
  int32_t n = -1;
  CHECK_OK(tabi_runtime_device_count(rt, type, &n));
  CHECK(n >= 0);
  printf("devices of type %d: %d\n", (int)type, (int)n);
  const char *ops[] = {"prims::transpose", "prims::broadcast_in_dim", "aten::view", "prims::empty", NULL};
  for (int i = 0; ops[i]; i++) {
    tabi_op op;
    CHECK_OK(tabi_op_find(rt, ops[i], &op));
    CHECK_MSG(tabi_op_backend_status(rt, op, type) == TABI_IMPL_NATIVE, "%s not native", ops[i]);
  }
  for (int i = 3; i < argc; i++) {
    tabi_op op;
    CHECK_OK(tabi_op_find(rt, argv[i], &op));
    CHECK_MSG(tabi_op_backend_status(rt, op, type) == TABI_IMPL_NATIVE, "%s not native", argv[i]);
  }
  if (n == 0) {
    tabi_tensor *t = NULL;
    int64_t shape[1] = {4};
    CHECK(tabi_tensor_empty(rt, (DLDevice){type, 0}, TABI_DTYPE_FLOAT32, 1, shape, &t) != TABI_OK);
    CHECK(t == NULL);
  }
  tabi_runtime_destroy(rt);
  return check_report();
}
