// Every public header, included from C++.
#include <tabi/tabi.h>
#include <tabi/runtime.h>
#include <tabi/ops.h>

int main() {
  tabi_runtime *rt = nullptr;
  if (tabi_runtime_create(nullptr, &rt) != TABI_OK) return 1;
  tabi_op op = TABI_OP_INVALID;
  int ok = tabi_op_find(rt, "aten::add.Tensor", &op) == TABI_OK && op == TABI_OP_ATEN_ADD_TENSOR;
  tabi_runtime_destroy(rt);
  return ok ? 0 : 1;
}
