/* tests/cuda/test_cuda_ops_copy.c: test_cuda_ops's cases for the copies
 * that move whole rows: prims::cat (tc_shape.cu) and index_select
 * (tc_index.cu). GPU only (run from test_cuda_ops.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu_harness.h"

/* prims::cat (tc_shape.cu): 80 inputs, 71 of them non-empty (two batched
 * launches: 64, then 7),
 * along each dim, 1-, 4- and 16-byte dtypes; and with
 * one transposed input (the per-input strided copies instead). Then rows
 * long enough to be copied a block per row beside short ones, in 16-byte
 * units (float16 rows of 1000, 24 and 3000) and 8-byte ones (float64 rows
 * of 513 and 1), and an input 4 bytes past a 16-byte boundary (4-byte
 * units). Exact. */
void cat_cases(void) {
  enum { N = 80 };
  const tabi_dtype dts[3] = {TABI_DTYPE_BOOL, TABI_DTYPE_FLOAT32, TABI_DTYPE_COMPLEX128};
  for (int d = 0; d < 3; d++)
    for (int dim = 0; dim < 3; dim++)
      for (int tr = 0; tr < 2; tr++) {
        tabi_tensor *g[N], *r[N];
        for (int k = 0; k < N; k++) {
          int64_t s[3] = {3, 5, 4};
          s[dim] = k % 9 == 4 ? 0 : 1 + k % 3;
          if (tr && k == 7) { /* built as [.., b, a] and transposed back to [.., a, b] */
            int64_t t = s[1];
            s[1] = s[2];
            s[2] = t;
          }
          double h[64];
          for (int i = 0; i < 64; i++) h[i] = urand() < 0.3 ? 0 : urand() * 4 - 2;
          both_tensor(dts[d], 3, s, h, &g[k], &r[k]);
          if (tr && k == 7) {
            int64_t perm[3] = {0, 2, 1};
            both_permute(&g[k], &r[k], 3, perm);
          }
        }
        tabi_value ga[2] = {tabi_tensor_list(g, N), tabi_int(dim)};
        tabi_value ra[2] = {tabi_tensor_list(r, N), tabi_int(dim)};
        compare_built("prims::cat", ga, ra, 2, 0, 0);
        for (int k = 0; k < N; k++) {
          tabi_tensor_release(g[k]);
          tabi_tensor_release(r[k]);
        }
      }
  {
    const int64_t sz[2][3] = {{1000, 24, 3000}, {513, 1, 0}};
    const tabi_dtype dt2[2] = {TABI_DTYPE_FLOAT16, TABI_DTYPE_FLOAT64};
    for (int v = 0; v < 2; v++) {
      tabi_tensor *g[3], *r[3];
      int nin = sz[v][2] ? 3 : 2;
      for (int k = 0; k < nin; k++) {
        int64_t s2[2] = {v ? 300 : 64, sz[v][k]};
        both_random(dt2[v], 2, s2, &g[k], &r[k]);
      }
      tabi_value ga[2] = {tabi_tensor_list(g, nin), tabi_int(1)};
      tabi_value ra[2] = {tabi_tensor_list(r, nin), tabi_int(1)};
      compare_built("prims::cat", ga, ra, 2, 0, 0);
      for (int k = 0; k < nin; k++) {
        tabi_tensor_release(g[k]);
        tabi_tensor_release(r[k]);
      }
    }
    /* [4, 1000] at a 4-byte offset, beside an aligned [4, 1000], along both dims */
    int64_t n1[1] = {4001}, s2[2] = {4, 1000};
    tabi_tensor *g[2], *r[2];
    both_random(TABI_DTYPE_FLOAT32, 1, n1, &g[0], &r[0]);
    tabi_value from1[4] = {tabi_int(0), tabi_int(1), tabi_none(), tabi_int(1)}, as2[1] = {tabi_int_list(s2, 2)};
    both_view("aten::slice.Tensor", from1, 4, &g[0], &r[0]);
    both_view("aten::view", as2, 1, &g[0], &r[0]);
    CHECK_MSG(g[0] && ((uintptr_t)tabi_tensor_data(g[0]) & 15) != 0, "cat: the unaligned input is aligned");
    both_random(TABI_DTYPE_FLOAT32, 2, s2, &g[1], &r[1]);
    for (int dim = 0; dim < 2; dim++) {
      tabi_value ga[2] = {tabi_tensor_list(g, 2), tabi_int(dim)};
      tabi_value ra[2] = {tabi_tensor_list(r, 2), tabi_int(dim)};
      compare_built("prims::cat", ga, ra, 2, 0, 0);
    }
    for (int k = 0; k < 2; k++) {
      tabi_tensor_release(g[k]);
      tabi_tensor_release(r[k]);
    }
  }
}

/* index_select (tc_index.cu): rows of 256 bytes or more of a contiguous
 * self take a block a row (select_rows_kernel), in the widest unit that
 * divides the row's bytes and both bases: 16 (float32 rows of 300, float16
 * of 1000), 8 (float64 of 257), 4 (float32 of 129, along a middle dim), 1
 * (int8 of 301); int32 and int64 indices, repeats, a strided index. Short
 * rows (along the last dim) and a transposed self take the element
 * kernel. Exact. */
void select_cases(void) {
  struct {
    tabi_dtype dt;
    int32_t nd, dim;
    int64_t shape[3], n;
    tabi_dtype idt;
    int tr; /* self built transposed (not contiguous) */
  } cs[] = {
      {TABI_DTYPE_FLOAT32, 2, 0, {50, 300, 0}, 37, TABI_DTYPE_INT64, 0},
      {TABI_DTYPE_FLOAT32, 3, 1, {4, 30, 129}, 20, TABI_DTYPE_INT32, 0},
      {TABI_DTYPE_FLOAT16, 2, 0, {64, 1000, 0}, 70, TABI_DTYPE_INT64, 0},
      {TABI_DTYPE_FLOAT64, 2, 0, {10, 257, 0}, 9, TABI_DTYPE_INT64, 0},
      {TABI_DTYPE_INT8, 2, 0, {10, 301, 0}, 12, TABI_DTYPE_INT32, 0},
      {TABI_DTYPE_FLOAT32, 2, 1, {300, 50, 0}, 7, TABI_DTYPE_INT64, 0},
      {TABI_DTYPE_FLOAT32, 2, 0, {80, 90, 0}, 11, TABI_DTYPE_INT64, 1},
  };
  for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
    int64_t numel = 1;
    for (int32_t d = 0; d < cs[k].nd; d++) numel *= cs[k].shape[d];
    int64_t size = cs[k].shape[cs[k].dim], ni = 2 * cs[k].n; /* every other one: a strided index */
    double *h = malloc(sizeof(double) * (size_t)numel), *hi = malloc(sizeof(double) * (size_t)ni);
    for (int64_t i = 0; i < numel; i++) h[i] = (double)(int)(urand() * 200 - 100) / 4;
    for (int64_t i = 0; i < ni; i++) hi[i] = (double)(int64_t)(urand() * (double)size);
    tabi_tensor *sg, *sr, *ig, *ir;
    int64_t shp[3] = {cs[k].shape[0], cs[k].shape[1], cs[k].shape[2]};
    if (cs[k].tr) { /* built [b, a], permuted to [a, b] */
      int64_t t = shp[0];
      shp[0] = shp[1];
      shp[1] = t;
    }
    both_tensor(cs[k].dt, cs[k].nd, shp, h, &sg, &sr);
    if (cs[k].tr) {
      int64_t perm[2] = {1, 0};
      both_permute(&sg, &sr, 2, perm);
    }
    both_tensor(cs[k].idt, 1, &ni, hi, &ig, &ir);
    if (k == 0) { /* index[::2] */
      tabi_value every2[4] = {tabi_int(0), tabi_int(0), tabi_none(), tabi_int(2)};
      both_view("aten::slice.Tensor", every2, 4, &ig, &ir);
    } else {
      tabi_value first[4] = {tabi_int(0), tabi_int(0), tabi_int(cs[k].n), tabi_int(1)};
      both_view("aten::slice.Tensor", first, 4, &ig, &ir);
    }
    tabi_value ga[3] = {tabi_tensor_value(sg), tabi_int(cs[k].dim), tabi_tensor_value(ig)};
    tabi_value ra[3] = {tabi_tensor_value(sr), tabi_int(cs[k].dim), tabi_tensor_value(ir)};
    compare_built("aten::index_select", ga, ra, 3, 0, 0);
    tabi_tensor_release(sg);
    tabi_tensor_release(sr);
    tabi_tensor_release(ig);
    tabi_tensor_release(ir);
    free(h);
    free(hi);
  }
}
