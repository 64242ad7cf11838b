/* examples/framework-hello/hello.c: a framework's first tabi program.
 *
 *   framework-hello [PLUGIN...]     (paths or names: "cpu", "reference")
 *
 * Creates a runtime, loads plugins, adds two tensors through the boxed tabi_call
 * and multiplies them through the typed wrapper of tabi/ops.h, moves tensors in
 * and out by DLPack without copying, and shows what an error looks like.
 * docs/framework-guide.md walks through it. Exit status 0 when every step worked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/ops.h>
#include <tabi/runtime.h>

#define TRY(call)                                                            \
  do {                                                                       \
    tabi_status st_ = (call);                                                \
    if (st_ != TABI_OK) {                                                    \
      fprintf(stderr, "%s failed: %s: %s\n", #call, tabi_status_name(st_),   \
              tabi_last_error());                                            \
      goto fail;                                                             \
    }                                                                        \
  } while (0)

static void print_floats(const char *label, const float *v, int64_t n) {
  printf("%s = [", label);
  for (int64_t i = 0; i < n; i++) printf(i ? ", %g" : "%g", (double)v[i]);
  printf("]\n");
}

/* DLPack in: a buffer this program owns, lent to tabi. The deleter runs when
 * the last tabi tensor on it dies: it frees the DLManagedTensor and records
 * that it ran; the buffer itself stays the program's. */
static float g_host_data[4] = {10, 20, 30, 40};
static int64_t g_host_shape[1] = {4};
static int g_deleter_ran;
static void host_deleter(DLManagedTensor *self) {
  g_deleter_ran = 1;
  free(self); /* the DLManagedTensor struct; the data stays ours */
}

int main(int argc, char **argv) {
  tabi_runtime *rt = NULL;
  tabi_tensor *a = NULL, *b = NULL, *sum = NULL, *prod = NULL, *lent = NULL, *bad = NULL;
  tabi_value out = tabi_none();
  DLManagedTensor *exported = NULL;
  int ok = 0;

  /* 1. A runtime, and the plugins to run on. */
  TRY(tabi_runtime_create(NULL, &rt));
  if (argc > 1) {
    for (int i = 1; i < argc; i++) TRY(tabi_runtime_load_plugin(rt, argv[i], NULL));
  } else {
    int32_t loaded = 0;
    TRY(tabi_runtime_load_discovered(rt, NULL, NULL, &loaded));
    printf("discovered %d plugin(s)\n", (int)loaded);
  }
  for (int32_t i = 0; i < tabi_runtime_plugin_count(rt); i++) {
    tabi_plugin_info info;
    memset(&info, 0, sizeof(info));
    info.struct_size = sizeof(info);
    TRY(tabi_runtime_plugin_info(rt, i, &info));
    printf("plugin %s %s (%s)\n", info.name, info.version, info.path);
  }

  /* 2. Tensors on the CPU, from host data (copied). */
  DLDevice cpu = {kDLCPU, 0};
  const float av[4] = {1, 2, 3, 4}, bv[4] = {0.5f, 0.5f, 0.5f, 0.5f};
  const int64_t shape[1] = {4};
  TRY(tabi_tensor_from_host(rt, cpu, TABI_DTYPE_FLOAT32, 1, shape, av, sizeof av, &a));
  TRY(tabi_tensor_from_host(rt, cpu, TABI_DTYPE_FLOAT32, 1, shape, bv, sizeof bv, &b));

  /* 3. The boxed call: look the op up once, call it by handle. alpha is left
   *    out: trailing defaults are filled in from the schema. */
  tabi_op add;
  TRY(tabi_op_find(rt, "aten::add.Tensor", &add));
  tabi_value args[2] = {tabi_tensor_value(a), tabi_tensor_value(b)};
  TRY(tabi_call(rt, add, args, 2, &out, 1));
  sum = out.u.t; /* the caller owns outputs */
  out = tabi_none();
  float result[4];
  TRY(tabi_tensor_to_host(rt, sum, result, sizeof result));
  print_floats("a + b", result, 4);

  /* 4. The typed wrapper (tabi/ops.h): same call, checked by the C compiler. */
  TRY(tabi_aten_mul_Tensor(rt, a, sum, &prod));
  TRY(tabi_tensor_to_host(rt, prod, result, sizeof result));
  print_floats("a * (a + b)", result, 4);
  /* tabi_value arguments take tabi_default() for the schema's default. */
  tabi_tensor *scaled = NULL;
  TRY(tabi_aten_add_Tensor(rt, a, b, tabi_float(10.0), &scaled));
  TRY(tabi_tensor_to_host(rt, scaled, result, sizeof result));
  tabi_tensor_release(scaled);
  print_floats("a + 10 * b", result, 4);

  /* 5. DLPack out: the result, zero-copy, for any DLPack consumer. */
  TRY(tabi_tensor_to_dlpack(prod, &exported));
  const float *seen = (const float *)((const char *)exported->dl_tensor.data +
                                      exported->dl_tensor.byte_offset);
  printf("via DLPack: ndim %d, first element %g\n", exported->dl_tensor.ndim, (double)seen[0]);
  exported->deleter(exported); /* gives tabi's reference back */
  exported = NULL;

  /* 6. DLPack in: our buffer becomes a tabi tensor without a copy. */
  DLManagedTensor *managed = calloc(1, sizeof(*managed));
  if (!managed) goto fail;
  managed->dl_tensor.data = g_host_data;
  managed->dl_tensor.device = cpu;
  managed->dl_tensor.ndim = 1;
  managed->dl_tensor.dtype = (DLDataType){kDLFloat, 32, 1};
  managed->dl_tensor.shape = g_host_shape;
  managed->dl_tensor.strides = NULL; /* contiguous */
  managed->deleter = host_deleter;
  if (tabi_tensor_from_dlpack(rt, managed, &lent) != TABI_OK) {
    fprintf(stderr, "tabi_tensor_from_dlpack: %s\n", tabi_last_error());
    free(managed); /* on error the caller keeps ownership */
    goto fail;
  }
  g_host_data[0] = 11; /* shared memory: tabi sees the change */
  tabi_tensor *mixed = NULL;
  TRY(tabi_aten_add_Tensor(rt, lent, a, tabi_default(), &mixed));
  TRY(tabi_tensor_to_host(rt, mixed, result, sizeof result));
  tabi_tensor_release(mixed);
  print_floats("lent + a", result, 4);
  tabi_tensor_release(lent); /* the last reference: the deleter runs now */
  lent = NULL;
  printf("DLPack deleter ran: %s\n", g_deleter_ran ? "yes" : "no");
  if (!g_deleter_ran) goto fail;

  /* 7. Errors: a status, and a message naming the op and the argument. */
  const int64_t shape3[1] = {3};
  TRY(tabi_tensor_empty(rt, cpu, TABI_DTYPE_FLOAT32, 1, shape3, &bad));
  tabi_tensor *never = NULL;
  tabi_status st = tabi_aten_add_Tensor(rt, a, bad, tabi_default(), &never);
  printf("add of shapes [4] and [3]: %s: %s\n", tabi_status_name(st), tabi_last_error());
  if (st == TABI_OK || never != NULL) goto fail;

  ok = 1;
fail:
  if (exported) exported->deleter(exported);
  tabi_value_release(&out);
  tabi_tensor_release(bad);
  tabi_tensor_release(lent);
  tabi_tensor_release(prod);
  tabi_tensor_release(sum);
  tabi_tensor_release(b);
  tabi_tensor_release(a);
  tabi_runtime_destroy(rt);
  printf(ok ? "framework-hello: ok\n" : "framework-hello: FAILED\n");
  return ok ? 0 : 1;
}
