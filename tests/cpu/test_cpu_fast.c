/* tests/cpu/test_cpu_fast.c: the CPU plugin's fast kernels against the
 * reference kernels, in one process: the same inputs go into a runtime with
 * libtabi_cpu.so and one with the reference plugin, and the outputs are
 * compared with the tolerances of shared/spec/tolerances.md (exact for
 * integers, indices, and NaN positions). Sizes are large enough to take the
 * threaded paths; inputs include NaN, +-inf, -0.0, non-contiguous views (which
 * the fast kernels hand to the reference) and odd lengths.
 *
 * Then: bitwise identical results in deterministic mode between a plugin with
 * TABI_NUM_THREADS=1 and one with 3; and the oneDNN cache adds no entry for a
 * repeated shape.
 *
 * usage: test_cpu_fast CPU_PLUGIN REFERENCE_PLUGIN
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/half.h>
#include <tabi/runtime.h>

#include "cpu_harness.h"

static const tabi_dtype fdts[3] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16};

static void elementwise_cases(tabi_runtime *f, tabi_runtime *r) {
  static const char *unary[] = {"aten::exp", "aten::neg", "aten::abs", "aten::relu", "aten::sigmoid",
                                "aten::tanh", "aten::sqrt", "aten::rsqrt", "aten::log", "aten::sin",
                                "aten::cos", "prims::exp"};
  static const char *binary[] = {"aten::add.Tensor", "aten::sub.Tensor", "aten::mul.Tensor",
                                 "aten::div.Tensor", "prims::add", "prims::mul"};
  for (int d = 0; d < 3; d++) {
    for (size_t u = 0; u < sizeof unary / sizeof *unary; u++)
      for (int tr = 0; tr < 2; tr++) {
        callspec c = {unary[u], 1, {T2(301, 333, fdts[d], FILL_SPECIAL, tr)}, {0}, 1, {{0}}, 1, 0};
        diff(f, r, &c, tr ? "transposed" : tabi_dtype_name(fdts[d]));
      }
    static const char *modes[2] = {"none", "tanh"};
    for (int m = 0; m < 2; m++) {
      callspec c = {"aten::gelu", 2, {T2(301, 333, fdts[d], FILL_SPECIAL, 0)}, {0}, 1,
                    {{0}, tabi_string(modes[m], 4)}, 1, 0};
      diff(f, r, &c, modes[m]);
    }
    for (size_t b = 0; b < sizeof binary / sizeof *binary; b++) {
      int prim = binary[b][0] == 'p';
      callspec c = {binary[b], prim ? 2 : (b < 2 ? 3 : 2),
                    {T2(257, 401, fdts[d], FILL_SPECIAL, 0), T2(257, 401, fdts[d], FILL_RAND, 0)},
                    {0, 1}, 2, {{0}, {0}, tabi_float(0.5)}, 1, 0};
      diff(f, r, &c, tabi_dtype_name(fdts[d]));
    }
  }
}

static void reduce_cases(tabi_runtime *f, tabi_runtime *r) {
  int64_t last[1] = {-1};
  for (int d = 0; d < 3; d++) {
    for (int sp = 0; sp < 2; sp++) {
      tspec big = T1(300007, fdts[d], sp ? FILL_SPECIAL : FILL_RAND);
      tspec mat = T2(513, 1001, fdts[d], sp ? FILL_SPECIAL : FILL_RAND, 0);
      callspec cs[] = {
          {"aten::sum.dim_IntList", 4, {big}, {0}, 1, {{0}, tabi_none(), tabi_bool(0), tabi_none()}, 1, 4},
          {"aten::sum.dim_IntList", 4, {mat}, {0}, 1, {{0}, tabi_int_list(last, 1), tabi_bool(1), tabi_none()}, 1, 4},
          {"aten::mean", 2, {big}, {0}, 1, {{0}, tabi_none()}, 1, 4},
          {"aten::mean.dim", 4, {mat}, {0}, 1, {{0}, tabi_int_list(last, 1), tabi_bool(0), tabi_none()}, 1, 4},
          {"aten::amax", 3, {big}, {0}, 1, {{0}, tabi_int_list(NULL, 0), tabi_bool(0)}, 1, 0},
          {"aten::amax", 3, {mat}, {0}, 1, {{0}, tabi_int_list(last, 1), tabi_bool(0)}, 1, 0},
          {"aten::amin", 3, {mat}, {0}, 1, {{0}, tabi_int_list(last, 1), tabi_bool(1)}, 1, 0},
          {"aten::_softmax", 3, {mat}, {0}, 1, {{0}, tabi_int(-1), tabi_bool(0)}, 1, 0},
          {"aten::_log_softmax", 3, {mat}, {0}, 1, {{0}, tabi_int(1), tabi_bool(0)}, 1, 0},
      };
      for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) diff(f, r, &cs[i], tabi_dtype_name(fdts[d]));
    }
  }
  int64_t ns[1] = {1001};
  callspec ln = {"aten::native_layer_norm", 5,
                 {T2(300, 1001, TABI_DTYPE_FLOAT32, FILL_RAND, 0), T1(1001, TABI_DTYPE_FLOAT32, FILL_RAND),
                  T1(1001, TABI_DTYPE_FLOAT32, FILL_RAND)},
                 {0, 2, 3}, 3, {{0}, tabi_int_list(ns, 1), {0}, {0}, tabi_float(1e-5)}, 3, 4};
  diff(f, r, &ln, "weight+bias");
  ln.nt = 1;
  ln.extra[2] = tabi_none();
  ln.extra[3] = tabi_none();
  diff(f, r, &ln, "no affine");
}

static void matmul_cases(tabi_runtime *f, tabi_runtime *r) {
  /* K up to 300 terms: a looser bound (the reference sums in double) */
  callspec mm = {"aten::mm", 2, {T2(129, 300, TABI_DTYPE_FLOAT32, FILL_RAND, 0),
                                 T2(65, 300, TABI_DTYPE_FLOAT32, FILL_RAND, 1)},
                 {0, 1}, 2, {{0}}, 1, 50};
  diff(f, r, &mm, "transposed b");
  callspec bmm = {"aten::bmm", 2, {{3, {4, 33, 70}, TABI_DTYPE_FLOAT32, 0, 0, 0},
                                   {3, {4, 70, 19}, TABI_DTYPE_FLOAT32, 0, 0, 0}},
                  {0, 1}, 2, {{0}}, 1, 50};
  diff(f, r, &bmm, "batched");
  callspec addmm = {"aten::addmm", 5, {T1(65, TABI_DTYPE_FLOAT32, FILL_RAND),
                                       T2(129, 300, TABI_DTYPE_FLOAT32, FILL_RAND, 0),
                                       T2(300, 65, TABI_DTYPE_FLOAT32, FILL_RAND, 0)},
                    {0, 1, 2}, 3, {{0}, {0}, {0}, tabi_float(0.5), tabi_int(2)}, 1, 50};
  diff(f, r, &addmm, "bias row, alpha 2 beta 0.5");
  int64_t s1[2] = {1, 1}, p1[2] = {1, 1}, s2[2] = {2, 2}, zero[2] = {0, 0}, bs[1] = {16};
  int64_t mask[3] = {1, 1, 1};
  for (int k = 0; k < 2; k++) {
    const int64_t *st = k ? s2 : s1;
    callspec conv = {"aten::convolution", 9,
                     {{4, {2, 8, 12, 11}, TABI_DTYPE_FLOAT32, 0, 0, 0}, {4, {16, 8, 3, 3}, TABI_DTYPE_FLOAT32, 0, 0, 0},
                      T1(16, TABI_DTYPE_FLOAT32, FILL_RAND)},
                     {0, 1, 2}, 3,
                     {{0}, {0}, {0}, tabi_int_list(st, 2), tabi_int_list(p1, 2), tabi_int_list(s1, 2),
                      tabi_bool(0), tabi_int_list(zero, 2), tabi_int(1)}, 1, 20};
    diff(f, r, &conv, k ? "stride 2" : "stride 1");
    int64_t oh = k ? 6 : 12, ow = k ? 6 : 11;
    callspec bwd = {"aten::convolution_backward", 11,
                    {{4, {2, 16, oh, ow}, TABI_DTYPE_FLOAT32, 0, 0, 0}, {4, {2, 8, 12, 11}, TABI_DTYPE_FLOAT32, 0, 0, 0},
                     {4, {16, 8, 3, 3}, TABI_DTYPE_FLOAT32, 0, 0, 0}},
                    {0, 1, 2}, 3,
                    {{0}, {0}, {0}, tabi_int_list(bs, 1), tabi_int_list(st, 2), tabi_int_list(p1, 2),
                     tabi_int_list(s1, 2), tabi_bool(0), tabi_int_list(zero, 2), tabi_int(1),
                     tabi_bool_list(mask, 3)}, 3, 20};
    diff(f, r, &bwd, k ? "stride 2" : "stride 1");
  }
}

static void fft_index_sort_cases(tabi_runtime *f, tabi_runtime *r) {
  static const int64_t lens[] = {1, 2, 3, 5, 7, 12, 16, 17, 60, 97, 1009, 4096, 6000};
  int64_t last[1] = {-1};
  for (size_t i = 0; i < sizeof lens / sizeof *lens; i++)
    for (int one = 0; one < 2; one++) {
      int64_t rows = lens[i] > 1000 ? 1 : 5; /* the reference DFT is O(n^2) */
      callspec c = {"aten::_fft_r2c", 4, {T2(rows, lens[i], TABI_DTYPE_FLOAT32, FILL_RAND, 0)}, {0}, 1,
                    {{0}, tabi_int_list(last, 1), tabi_int(one ? 2 : 0), tabi_bool(one)}, 1,
                    10 + (double)lens[i] / 100};
      char label[64];
      snprintf(label, sizeof label, "n=%lld onesided=%d", (long long)lens[i], one);
      diff(f, r, &c, label);
      c.t[0].dt = TABI_DTYPE_FLOAT64;
      diff(f, r, &c, label);
    }
  tspec table = T2(20011, 16, TABI_DTYPE_FLOAT32, FILL_SPECIAL, 0);
  tspec rows = {1, {30011}, TABI_DTYPE_INT64, FILL_INDEX, 20011, 0};
  tspec idx2 = {2, {30011, 16}, TABI_DTYPE_INT64, FILL_INDEX, 20011, 0};
  tspec idx2b = {2, {20011, 9}, TABI_DTYPE_INT64, FILL_INDEX, 16, 0};
  tspec src = T2(30011, 16, TABI_DTYPE_FLOAT32, FILL_RAND, 0);
  callspec cs[] = {
      {"aten::index_select", 3, {table, rows}, {0, 2}, 2, {{0}, tabi_int(0)}, 1, 0},
      {"aten::gather", 4, {table, idx2}, {0, 2}, 2, {{0}, tabi_int(0), {0}, tabi_bool(0)}, 1, 0},
      {"aten::gather", 4, {table, idx2b}, {0, 2}, 2, {{0}, tabi_int(1), {0}, tabi_bool(0)}, 1, 0},
      {"aten::scatter_add", 4, {table, idx2, src}, {0, 2, 3}, 3, {{0}, tabi_int(0)}, 1, 4},
  };
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) diff(f, r, &cs[i], "rows");
  /* scatter_add in float64 and int32/int64 (the reference's bits: scale 0 is
   * no tolerance for the integers; float64 adds in the reference's order),
   * by rows (dim 0) and by lanes (dim 1) */
  static const tabi_dtype sdt[3] = {TABI_DTYPE_FLOAT64, TABI_DTYPE_INT64, TABI_DTYPE_INT32};
  for (int d = 0; d < 3; d++) {
    tspec t2 = T2(20011, 16, sdt[d], FILL_RAND, 0), s2 = T2(30011, 16, sdt[d], FILL_RAND, 0);
    tspec s3 = T2(20011, 9, sdt[d], FILL_RAND, 0);
    callspec a = {"aten::scatter_add", 4, {t2, idx2, s2}, {0, 2, 3}, 3, {{0}, tabi_int(0)}, 1, 0};
    callspec b = {"aten::scatter_add", 4, {t2, idx2b, s3}, {0, 2, 3}, 3, {{0}, tabi_int(1)}, 1, 0};
    diff(f, r, &a, tabi_dtype_name(sdt[d]));
    diff(f, r, &b, tabi_dtype_name(sdt[d]));
  }
  for (int desc = 0; desc < 2; desc++)
    for (int fill = 0; fill < 2; fill++) {
      tspec x = T2(3, 100003, TABI_DTYPE_FLOAT32, fill ? FILL_FEW : FILL_SPECIAL, 0);
      callspec so = {"aten::sort", 3, {x}, {0}, 1, {{0}, tabi_int(-1), tabi_bool(desc)}, 2, 0};
      diff(f, r, &so, desc ? "descending" : "ascending");
      callspec tk = {"aten::topk", 5, {x}, {0}, 1,
                     {{0}, tabi_int(1000), tabi_int(-1), tabi_bool(!desc), tabi_bool(1)}, 2, 0};
      diff(f, r, &tk, desc ? "smallest" : "largest");
    }
}

static void determinism(const char *plugin) {
  tabi_runtime *r1 = load_rt(plugin, "1"), *r3 = load_rt(plugin, "3");
  CHECK(r1 != NULL && r3 != NULL);
  if (!r1 || !r3) return;
  tabi_runtime_set_deterministic(r1, 1);
  tabi_runtime_set_deterministic(r3, 1);
  int64_t last[1] = {-1}, ns[1] = {777};
  int64_t s1[2] = {1, 1}, zero[2] = {0, 0}, bs[1] = {16}, mask[3] = {1, 1, 1};
  callspec cs[] = {
      {"aten::sum.dim_IntList", 4, {T1(1000003, TABI_DTYPE_FLOAT32, FILL_RAND)}, {0}, 1,
       {{0}, tabi_none(), tabi_bool(0), tabi_none()}, 1, 0},
      {"aten::mean", 2, {T1(1000003, TABI_DTYPE_BFLOAT16, FILL_RAND)}, {0}, 1, {{0}, tabi_none()}, 1, 0},
      {"aten::sum.dim_IntList", 4, {T2(999, 777, TABI_DTYPE_FLOAT32, FILL_RAND, 0)}, {0}, 1,
       {{0}, tabi_int_list(last, 1), tabi_bool(0), tabi_none()}, 1, 0},
      {"aten::_softmax", 3, {T2(999, 777, TABI_DTYPE_FLOAT32, FILL_RAND, 0)}, {0}, 1,
       {{0}, tabi_int(-1), tabi_bool(0)}, 1, 0},
      {"aten::native_layer_norm", 5, {T2(999, 777, TABI_DTYPE_FLOAT32, FILL_RAND, 0)}, {0}, 1,
       {{0}, tabi_int_list(ns, 1), tabi_none(), tabi_none(), tabi_float(1e-5)}, 3, 0},
      {"aten::mm", 2, {T2(300, 700, TABI_DTYPE_FLOAT32, FILL_RAND, 0), T2(700, 200, TABI_DTYPE_FLOAT32, FILL_RAND, 0)},
       {0, 1}, 2, {{0}}, 1, 0},
      {"aten::convolution_backward", 11,
       {{4, {4, 16, 14, 14}, TABI_DTYPE_FLOAT32, 0, 0, 0}, {4, {4, 8, 14, 14}, TABI_DTYPE_FLOAT32, 0, 0, 0},
        {4, {16, 8, 3, 3}, TABI_DTYPE_FLOAT32, 0, 0, 0}},
       {0, 1, 2}, 3,
       {{0}, {0}, {0}, tabi_int_list(bs, 1), tabi_int_list(s1, 2), tabi_int_list(s1, 2), tabi_int_list(s1, 2),
        tabi_bool(0), tabi_int_list(zero, 2), tabi_int(1), tabi_bool_list(mask, 3)}, 3, 0},
      {"aten::scatter_add", 4,
       {T2(2000, 16, TABI_DTYPE_FLOAT32, FILL_RAND, 0), {2, {30011, 16}, TABI_DTYPE_INT64, FILL_INDEX, 2000, 0},
        T2(30011, 16, TABI_DTYPE_FLOAT32, FILL_RAND, 0)},
       {0, 2, 3}, 3, {{0}, tabi_int(0)}, 1, 0},
  };
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) bitwise(r1, r3, &cs[i], "1 vs 3 threads");
  tabi_runtime_destroy(r1);
  tabi_runtime_destroy(r3);
}

int main(int argc, char **argv) {
  static const harness_cases_fn all[] = {elementwise_cases, reduce_cases, matmul_cases, fft_index_sort_cases, NULL};
  return harness_main(argc, argv, all, determinism);
}
