/* tests/cpu/test_cpu_sort.c: the CPU plugin's sort and topk in every dtype
 * the reference sorts, along every dim, on transposed views, with NaN/inf/-0
 * and many ties (the order of equal keys is the reference's stable order, so
 * indices must match exactly), ascending and descending, against the
 * reference kernels (cpu_harness.h); k out of range and topk of bool give the
 * reference's error.
 *
 * usage: test_cpu_sort CPU_PLUGIN REFERENCE_PLUGIN
 */
#define _POSIX_C_SOURCE 200809L
#include "cpu_harness.h"

static const tabi_dtype dts[] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16,
                                 TABI_DTYPE_BFLOAT16, TABI_DTYPE_INT64, TABI_DTYPE_INT32,
                                 TABI_DTYPE_INT16, TABI_DTYPE_INT8, TABI_DTYPE_UINT8, TABI_DTYPE_BOOL};

static void sort_cases(tabi_runtime *f, tabi_runtime *r) {
  static const struct { int32_t nd; int64_t s[3]; int64_t dim; int tr; } cs[] = {
      {2, {20, 2001}, -1, 0}, /* rows */
      {2, {2001, 20}, 0, 0},  /* the first dim */
      {3, {3, 500, 7}, 1, 0}, /* a middle dim */
      {2, {150, 120}, -1, 1}, /* a transposed view */
      {1, {30011}, 0, 0},     /* one long line */
  };
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++)
    for (size_t d = 0; d < sizeof dts / sizeof *dts; d++)
      for (int fill = 0; fill < 3; fill++)
        for (int desc = 0; desc < 2; desc++) {
          tspec x = {cs[i].nd, {cs[i].s[0], cs[i].s[1], cs[i].s[2]}, dts[d],
                     fill == 0 ? FILL_RAND : fill == 1 ? FILL_SPECIAL : FILL_FEW, 0, cs[i].tr};
          char label[96];
          snprintf(label, sizeof label, "case %zu %s fill %d%s", i, tabi_dtype_name(dts[d]), fill,
                   desc ? " descending" : "");
          callspec so = {"aten::sort", 3, {x}, {0}, 1, {{0}, tabi_int(cs[i].dim), tabi_bool(desc)}, 2, 0};
          diff(f, r, &so, label);
          if (dts[d] == TABI_DTYPE_BOOL) continue;
          int64_t len = cs[i].s[cs[i].dim < 0 ? cs[i].nd - 1 : cs[i].dim];
          int64_t ks[3] = {1, len / 3, len};
          for (int q = 0; q < 3; q++) {
            callspec tk = {"aten::topk", 5, {x}, {0}, 1,
                           {{0}, tabi_int(ks[q]), tabi_int(cs[i].dim), tabi_bool(desc), tabi_bool(q == 1)},
                           2, 0};
            diff(f, r, &tk, label);
          }
        }
}

static void error_cases(tabi_runtime *f, tabi_runtime *r) {
  tspec x = T2(30, 40, TABI_DTYPE_INT32, FILL_RAND, 0), b = T2(30, 40, TABI_DTYPE_BOOL, FILL_RAND, 0);
  callspec big = {"aten::topk", 5, {x}, {0}, 1, {{0}, tabi_int(41), tabi_int(-1), tabi_bool(1), tabi_bool(1)}, 2, 0};
  diff(f, r, &big, "k past the dim");
  tabi_value out[2];
  CHECK_MSG(run(f, &big, 1, out) == TABI_ERR_INDEX, "k = 41 of 40: an index error");
  tabi_value_release(&out[0]);
  tabi_value_release(&out[1]);
  callspec tb = {"aten::topk", 5, {b}, {0}, 1, {{0}, tabi_int(3), tabi_int(-1), tabi_bool(1), tabi_bool(1)}, 2, 0};
  diff(f, r, &tb, "topk of bool");
  CHECK_MSG(run(f, &tb, 1, out) == TABI_ERR_TYPE, "topk of bool: a type error");
  tabi_value_release(&out[0]);
  tabi_value_release(&out[1]);
}

int main(int argc, char **argv) {
  static const harness_cases_fn all[] = {sort_cases, error_cases, NULL};
  return harness_main(argc, argv, all, NULL);
}
