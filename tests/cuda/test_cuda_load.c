/* tests/cuda/test_cuda_load.c: runs everywhere, GPU or not. The CUDA plugin
 * loads (no driver needed), its device count is a status OK (0 without a GPU),
 * every prim and the listed ATen ops have a native CUDA kernel, and (with the
 * decomp plugin loaded too) every op of both schema files runs on CUDA, natively
 * or through a decomposition: none is missing.
 * argv[1]: the plugin; argv[2]: abi/ops/prims.schema; optional argv[3]:
 * abi/ops/core_aten.schema and argv[4]: libtabi_decomp.so. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/runtime.h>

#include "check.h"

/* Calls fn(rt, name) for every op named in a schema file whose name starts
 * with one of the prefixes ("prims::", "aten::"); returns how many. */
static int each_op(const char *path, const char *const *prefixes, tabi_runtime *rt,
                   void (*fn)(tabi_runtime *, const char *, int *), int *acc) {
  FILE *f = fopen(path, "r");
  CHECK_MSG(f != NULL, "cannot open %s", path);
  char line[1024];
  int count = 0;
  while (f && fgets(line, sizeof line, f)) {
    int match = 0;
    for (int p = 0; prefixes[p]; p++) match |= strncmp(line, prefixes[p], strlen(prefixes[p])) == 0;
    if (!match) continue;
    char name[128];
    size_t k = 0;
    while (line[k] && line[k] != '(' && k < sizeof name - 1) {
      name[k] = line[k];
      k++;
    }
    name[k] = 0;
    fn(rt, name, acc);
    count++;
  }
  if (f) fclose(f);
  return count;
}

static void expect_native(tabi_runtime *rt, const char *name, int *acc) {
  (void)acc;
  tabi_op op;
  CHECK_OK(tabi_op_find(rt, name, &op));
  CHECK_MSG(tabi_op_backend_status(rt, op, kDLCUDA) == TABI_IMPL_NATIVE, "%s has no CUDA kernel", name);
}

static void expect_present(tabi_runtime *rt, const char *name, int *missing) {
  tabi_op op;
  CHECK_OK(tabi_op_find(rt, name, &op));
  int impl = tabi_op_backend_status(rt, op, kDLCUDA);
  CHECK_MSG(impl == TABI_IMPL_NATIVE || impl == TABI_IMPL_DECOMPOSED, "%s is missing on CUDA", name);
  *missing += impl == TABI_IMPL_MISSING;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_cuda_load PLUGIN PRIMS_SCHEMA [CORE_ATEN_SCHEMA DECOMP_PLUGIN]\n");
    return 2;
  }
  tabi_runtime *rt = NULL;
  CHECK_OK(tabi_runtime_create(NULL, &rt));
  if (!rt) return check_report();
  CHECK_OK(tabi_runtime_load_plugin(rt, argv[1], NULL));
  int32_t n = -1;
  CHECK_OK(tabi_runtime_device_count(rt, kDLCUDA, &n));
  CHECK(n >= 0);
  printf("cuda devices: %d\n", (int)n);
  static const char *const prims_only[] = {"prims::", NULL}, *const all[] = {"prims::", "aten::", NULL};
  int prims = each_op(argv[2], prims_only, rt, expect_native, NULL);
  CHECK(prims >= 100);
  static const char *const aten[] = {"aten::mm", "aten::bmm", "aten::addmm", "aten::_softmax",
                                     "aten::_log_softmax", "aten::native_layer_norm",
                                     "aten::add.Tensor", "aten::view", "aten::permute",
                                     "aten::convolution", "aten::_fft_r2c", "aten::_fft_c2r",
                                     "aten::argmax", "aten::cumsum", "aten::gather",
                                     "aten::index_select", "aten::max.dim", "aten::sort",
                                     "aten::topk", "aten::slice_scatter", "aten::select_scatter",
                                     "aten::scatter.src", "aten::scatter.value",
                                     "aten::scatter_add",
                                     "aten::max_pool2d_with_indices", "aten::avg_pool3d",
                                     "aten::_adaptive_avg_pool2d_backward", NULL};
  for (int i = 0; aten[i]; i++) {
    tabi_op op;
    CHECK_OK(tabi_op_find(rt, aten[i], &op));
    CHECK_MSG(tabi_op_backend_status(rt, op, kDLCUDA) == TABI_IMPL_NATIVE, "%s has no CUDA kernel", aten[i]);
  }
  /* Every op of both schema files runs on CUDA once the decompositions are loaded. */
  if (argc >= 5) {
    CHECK_OK(tabi_runtime_load_plugin(rt, argv[4], NULL));
    int missing = 0;
    int ops = each_op(argv[2], all, rt, expect_present, &missing) + each_op(argv[3], all, rt, expect_present, &missing);
    CHECK(ops >= 300);
    printf("ops of both schema files: %d, missing on cuda: %d\n", ops, missing);
  }
  /* With no device, allocation fails with a status, never a crash. */
  if (n == 0) {
    tabi_tensor *t = NULL;
    int64_t shape[1] = {4};
    CHECK(tabi_tensor_empty(rt, (DLDevice){kDLCUDA, 0}, TABI_DTYPE_FLOAT32, 1, shape, &t) != TABI_OK);
    CHECK(t == NULL);
  }
  tabi_runtime_destroy(rt);
  return check_report();
}
