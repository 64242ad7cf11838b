/* tests/cpu/test_cpu_norm.c: the CPU plugin's _softmax/_log_softmax over
 * every dim (rows and columns), in float32/float16/bfloat16/float64 and with
 * half_to_float, and native_layer_norm in float16/bfloat16 (parameters of the
 * input's dtype or float32) and float64, against the reference kernels
 * (cpu_harness.h); inputs with NaN/inf; then 1 vs 3 threads in deterministic
 * mode give the same bytes.
 *
 * usage: test_cpu_norm CPU_PLUGIN REFERENCE_PLUGIN
 */
#define _POSIX_C_SOURCE 200809L
#include "cpu_harness.h"

static const tabi_dtype dts[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16,
                                  TABI_DTYPE_FLOAT64};

typedef struct shape_case {
  int32_t nd;
  int64_t s[4];
  int64_t dim;
} shape_case;

static const shape_case shapes[] = {
    {3, {8, 300, 50}, 1},   /* columns, one tile per outer index */
    {3, {4, 37, 1000}, 1},  /* columns, 16 tiles, a partial one */
    {2, {513, 130}, 0},     /* the first dim */
    {4, {2, 3, 17, 19}, 1}, /* channels of NCHW */
    {3, {5, 6, 7}, -3},
    {2, {64, 2000}, -1},    /* rows (float64 and half_to_float are new there) */
    {3, {3, 1, 9}, 1},      /* length 1 */
};

static void softmax_cases(tabi_runtime *f, tabi_runtime *r) {
  static const char *ops[2] = {"aten::_softmax", "aten::_log_softmax"};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
    for (int d = 0; d < 4; d++)
      for (int o = 0; o < 2; o++)
        for (int fill = 0; fill < 2; fill++) {
          const shape_case *sc = &shapes[i];
          tspec x = {sc->nd, {sc->s[0], sc->s[1], sc->s[2], sc->s[3]}, dts[d],
                     fill ? FILL_SPECIAL : FILL_RAND, 0, 0};
          callspec cs = {ops[o], 3, {x}, {0}, 1, {{0}, tabi_int(sc->dim), tabi_bool(0)}, 1, 4};
          char label[96];
          snprintf(label, sizeof label, "case %zu %s%s", i, tabi_dtype_name(dts[d]), fill ? " specials" : "");
          diff(f, r, &cs, label);
          if (dts[d] == TABI_DTYPE_FLOAT16) { /* half_to_float: float32 out */
            cs.extra[2] = tabi_bool(1);
            snprintf(label, sizeof label, "case %zu half_to_float%s", i, fill ? " specials" : "");
            diff(f, r, &cs, label);
          }
        }
  /* half_to_float on a float32 input is the reference's error, same status */
  callspec bad = {"aten::_softmax", 3, {T2(10, 10, TABI_DTYPE_FLOAT32, FILL_RAND, 0)}, {0}, 1,
                  {{0}, tabi_int(0), tabi_bool(1)}, 1, 0};
  diff(f, r, &bad, "half_to_float of float32");
  tabi_value out[1];
  CHECK_MSG(run(f, &bad, 1, out) == TABI_ERR_TYPE, "half_to_float of float32: a type error");
  tabi_value_release(&out[0]);
}

static void layer_norm_cases(tabi_runtime *f, tabi_runtime *r) {
  static const struct { int32_t nd; int64_t s[3]; int32_t k; } ls[] = {
      {2, {300, 777}, 1}, {3, {6, 20, 33}, 2}, {2, {1, 5}, 1}, {3, {4, 3, 4096}, 1}};
  for (size_t i = 0; i < sizeof ls / sizeof *ls; i++)
    for (int d = 1; d < 4; d++)
      for (int p = 0; p < 4; p++) { /* params: none, weight+bias, weight only, float32 (halves) */
        tabi_dtype dt = dts[d];
        if (p == 3 && dt == TABI_DTYPE_FLOAT64) continue;
        int64_t ns[2], n = 1;
        for (int32_t q = 0; q < ls[i].k; q++) {
          ns[q] = ls[i].s[ls[i].nd - ls[i].k + q];
          n *= ns[q];
        }
        tabi_dtype pd = p == 3 ? TABI_DTYPE_FLOAT32 : dt;
        tspec x = {ls[i].nd, {ls[i].s[0], ls[i].s[1], ls[i].s[2]}, dt, FILL_RAND, 0, 0};
        tspec w = {ls[i].k, {ns[0], ns[1]}, pd, FILL_RAND, 0, 0}, b = w;
        callspec cs = {"aten::native_layer_norm", 5, {x, w, b}, {0, 2, 3}, p == 0 ? 1 : p == 2 ? 2 : 3,
                       {{0}, tabi_int_list(ns, ls[i].k), tabi_none(), tabi_none(), tabi_float(1e-5)}, 3, 4};
        char label[96];
        snprintf(label, sizeof label, "layer_norm %zu %s params %d", i, tabi_dtype_name(dt), p);
        diff(f, r, &cs, label);
      }
  /* weight/bias of normalized_shape's element count but another shape: ATen
   * refuses ("Expected weight to be of same shape as normalized_shape") */
  for (int d = 0; d < 4; d++) {
    int64_t ns[1] = {6};
    tspec x = T2(4, 6, dts[d], FILL_RAND, 0), w = T2(2, 3, dts[d], FILL_RAND, 0);
    for (int bias = 0; bias < 2; bias++) {
      callspec cs = {"aten::native_layer_norm", 5, {x, w}, {0, bias ? 3 : 2}, 2,
                     {{0}, tabi_int_list(ns, 1), tabi_none(), tabi_none(), tabi_float(1e-5)}, 3, 0};
      char label[96];
      snprintf(label, sizeof label, "layer_norm %s, %s [2, 3] for normalized_shape [6]", tabi_dtype_name(dts[d]),
               bias ? "bias" : "weight");
      diff(f, r, &cs, label);
      tabi_value out[3];
      CHECK_MSG(run(f, &cs, 3, out) == TABI_ERR_SHAPE, "%s: a shape error", label);
      for (int k = 0; k < 3; k++) tabi_value_release(&out[k]);
    }
  }
}

/* float32 layer norm with streaming stores (main lowers the threshold to 1
 * byte for the whole process; rows a multiple of 16) against the reference. */
static void layer_norm_nt(tabi_runtime *f, tabi_runtime *r) {
  int64_t ns[1] = {4096};
  for (int p = 0; p < 2; p++) {
    tspec x = {2, {37, 4096}, TABI_DTYPE_FLOAT32, FILL_SPECIAL, 0, 0}, w = T1(4096, TABI_DTYPE_FLOAT32, FILL_RAND);
    callspec cs = {"aten::native_layer_norm", 5, {x, w, w}, {0, 2, 3}, p ? 3 : 1,
                   {{0}, tabi_int_list(ns, 1), tabi_none(), tabi_none(), tabi_float(1e-5)}, 3, 4};
    diff(f, r, &cs, p ? "layer_norm float32 streamed, weight and bias" : "layer_norm float32 streamed");
  }
}

static void determinism(const char *plugin) {
  tabi_runtime *r1 = load_rt(plugin, "1"), *r3 = load_rt(plugin, "3");
  CHECK(r1 != NULL && r3 != NULL);
  if (r1 && r3) {
    tabi_runtime_set_deterministic(r1, 1);
    tabi_runtime_set_deterministic(r3, 1);
    for (int d = 0; d < 4; d++) {
      tspec x = {3, {4, 37, 1000}, dts[d], FILL_RAND, 0, 0};
      callspec cs = {"aten::_softmax", 3, {x}, {0}, 1, {{0}, tabi_int(1), tabi_bool(0)}, 1, 0};
      bitwise(r1, r3, &cs, "softmax columns, 1 vs 3 threads");
    }
    int64_t ns[1] = {777};
    tspec x = {2, {300, 777}, TABI_DTYPE_BFLOAT16, FILL_RAND, 0, 0};
    callspec ln = {"aten::native_layer_norm", 5, {x}, {0}, 1,
                   {{0}, tabi_int_list(ns, 1), tabi_none(), tabi_none(), tabi_float(1e-5)}, 3, 0};
    bitwise(r1, r3, &ln, "layer_norm bfloat16, 1 vs 3 threads");
  }
  if (r1) tabi_runtime_destroy(r1);
  if (r3) tabi_runtime_destroy(r3);
}

int main(int argc, char **argv) {
  /* the plugin reads the streaming-store threshold once: set it before any call */
  setenv("TABI_CPU_NT_BYTES", "1", 1);
  static const harness_cases_fn all[] = {softmax_cases, layer_norm_cases, layer_norm_nt, NULL};
  return harness_main(argc, argv, all, determinism);
}
