/* tests/cuda/test_cuda_ops_red.c: reductions, argmax/argmin, sort/topk,
 * cumsum, nonzero, masked_scatter and scatter at sizes that take every path
 * of their kernels (tc_reduce.cu, tc_index.cu, tc_sort.cu, tc_idx.cu,
 * tc_scatter.cu): a whole tensor
 * cut into parts folded by a second
 * launch, groups down memory (the column layout) and along it, permuted
 * inputs, merge passes of the sort, and the values whose order the reference
 * fixes: the first of equal extremes (-0.0 against 0.0), the first NaN, equal
 * keys in input order. Positions and sorted values must match bit for bit;
 * sums within the tolerance of another summation order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_harness.h"

#define MAXO 3

static const int64_t PERM2[2] = {1, 0}; /* transposes a matrix */

/* The op on prebuilt args in both runtimes; outputs flagged in `exact` must
   match bit for bit, the others within rtol/atol. */
static void run_both(const char *what, const char *name, tabi_value *ga, tabi_value *ra, int na, int nouts,
                     unsigned exact, double rtol, double atol) {
  tabi_op og, orf;
  CHECK_OK(tabi_op_find(gpu, name, &og));
  CHECK_OK(tabi_op_find(ref, name, &orf));
  tabi_value go[MAXO] = {tabi_none(), tabi_none(), tabi_none()}, ro[MAXO] = {tabi_none(), tabi_none(), tabi_none()};
  tabi_status sg = tabi_call(gpu, og, ga, na, go, nouts);
  CHECK_MSG(sg == TABI_OK, "%s: %s", what, tabi_last_error());
  tabi_status sr = tabi_call(ref, orf, ra, na, ro, nouts);
  CHECK_MSG(sr == TABI_OK, "%s (reference): %s", what, tabi_last_error());
  for (int k = 0; sg == TABI_OK && sr == TABI_OK && k < nouts; k++) {
    tabi_tensor *g = go[k].u.t, *r = ro[k].u.t;
    char w[240];
    snprintf(w, sizeof w, "%.200s output %d", what, k);
    if (!(exact >> k & 1)) {
      same_tensor(w, g, r, rtol, atol);
      continue;
    }
    int same = g->dl.ndim == r->dl.ndim && tabi_tensor_dtype(g) == tabi_tensor_dtype(r);
    int64_t n = 1;
    for (int32_t d = 0; same && d < r->dl.ndim; d++) same = g->dl.shape[d] == r->dl.shape[d];
    for (int32_t d = 0; same && d < r->dl.ndim; d++) n *= r->dl.shape[d];
    CHECK_MSG(same, "%s: dtype or shape differs from the reference's", w);
    if (!same) continue;
    size_t bytes = (size_t)n * tabi_dtype_size(tabi_tensor_dtype(r));
    unsigned char *x = calloc(bytes + 1, 1), *y = calloc(bytes + 1, 1);
    if (bytes) {
      CHECK_OK(tabi_tensor_to_host(gpu, g, x, bytes));
      CHECK_OK(tabi_tensor_to_host(ref, r, y, bytes));
    }
    size_t first = 0;
    while (first < bytes && x[first] == y[first]) first++;
    CHECK_MSG(first == bytes, "%s: not bit-identical to the reference (first differing byte %zu of %zu)", w,
              first, bytes);
    free(x);
    free(y);
  }
  for (int k = 0; k < MAXO; k++) {
    tabi_value_release(&go[k]);
    tabi_value_release(&ro[k]);
  }
}

/* Host data of n doubles in one of a few patterns. */
enum { P_UNIFORM, P_TIES, P_ZEROS, P_NANS, P_MEAN1000 };
static double *make(int64_t n, int pattern) {
  double *h = malloc(sizeof(double) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; i++) {
    double u = urand();
    switch (pattern) {
      case P_TIES: h[i] = floor(u * 7) - 3; break; /* 7 values, each many times */
      case P_ZEROS: h[i] = u < 0.5 ? -0.0 : 0.0; break;
      case P_NANS: h[i] = u < 0.001 ? NAN : u < 0.002 ? INFINITY : u * 4 - 2; break;
      case P_MEAN1000: h[i] = 1000 + u; break;
      default: h[i] = u * 4 - 2; break;
    }
  }
  return h;
}

/* `name`(x, extra...) with x of dt, shape, pattern; optionally permuted by perm. */
static void red_case(const char *name, tabi_dtype dt, int32_t nd, const int64_t *shape, const int64_t *perm,
                     int pattern, const tabi_value *extra, int nextra, int nouts, unsigned exact, double rtol,
                     double atol) {
  int64_t n = 1;
  for (int32_t d = 0; d < nd; d++) n *= shape[d];
  double *h = make(n, pattern);
  tabi_tensor *g = NULL, *r = NULL;
  both_tensor(dt, nd, shape, h, &g, &r);
  free(h);
  if (perm) both_permute(&g, &r, nd, perm); /* the same permuted view in both */
  /* The CPU plugin (cuda_ops_cases_on_cpu checks these cases without a GPU)
     sums float32 in float32: allow its error bound, eps * sum |x| (|x| <= 2). */
  if (CUDA0.device_type == kDLCPU && !exact) atol += 2.4e-7 * (double)n;
  tabi_value ga[8], ra[8];
  ga[0] = tabi_tensor_value(g);
  ra[0] = tabi_tensor_value(r);
  for (int k = 0; k < nextra; k++) ga[1 + k] = ra[1 + k] = extra[k];
  char what[200];
  snprintf(what, sizeof what, "%s %s [%lld%s] pattern %d%s", name, tabi_dtype_name(dt), (long long)shape[0],
           nd > 1 ? ",..." : "", pattern, perm ? " permuted" : "");
  if (g && r) run_both(what, name, ga, ra, 1 + nextra, nouts, exact, rtol, atol);
  tabi_tensor_release(g);
  tabi_tensor_release(r);
}

static void reduction_cases(void) {
  const tabi_dtype fdt[3] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_BFLOAT16};
  int64_t big[1] = {(1 << 18) + 3}, tall[2] = {5000, 3}, wide[2] = {70, 4099}, rows[2] = {300, 5000};
  int64_t cube[3] = {8, 50, 300}, d0[1] = {0}, d1[1] = {1}, d02[2] = {0, 2}, d12[2] = {1, 2};
  int64_t empty[2] = {0, 5};
  for (int k = 0; k < 3; k++) {
    tabi_dtype dt = fdt[k];
    double rt = dt == TABI_DTYPE_FLOAT64 ? 1e-12 : 1e-5; /* rounded once from double sums */
    /* a whole tensor: parts folded by a second launch */
    red_case("prims::sum", dt, 1, big, NULL, P_UNIFORM, (tabi_value[]){tabi_int_list(d0, 1), tabi_none()}, 2, 1, 0,
             rt, 1e-9);
    red_case("prims::amax", dt, 1, big, NULL, P_NANS, (tabi_value[]){tabi_int_list(d0, 1), tabi_none()}, 2, 1, 1,
             0, 0);
    red_case("prims::amin", dt, 1, big, NULL, P_ZEROS, (tabi_value[]){tabi_int_list(d0, 1), tabi_none()}, 2, 1, 1,
             0, 0);
    red_case("prims::amax", dt, 1, big, NULL, P_ZEROS, (tabi_value[]){tabi_int_list(d0, 1), tabi_none()}, 2, 1, 1,
             0, 0);
    red_case("prims::var", dt, 1, big, NULL, P_MEAN1000,
             (tabi_value[]){tabi_int_list(d0, 1), tabi_int(1), tabi_none()}, 3, 1, 0, rt * 10, 1e-9);
    /* down memory (column layout), with and without parts */
    red_case("prims::sum", dt, 2, tall, NULL, P_UNIFORM, (tabi_value[]){tabi_int_list(d0, 1), tabi_none()}, 2, 1, 0,
             rt, 1e-9);
    red_case("prims::sum", dt, 2, wide, NULL, P_UNIFORM, (tabi_value[]){tabi_int_list(d0, 1), tabi_none()}, 2, 1, 0,
             rt, 1e-9);
    red_case("prims::var", dt, 2, tall, NULL, P_MEAN1000,
             (tabi_value[]){tabi_int_list(d0, 1), tabi_int(0), tabi_none()}, 3, 1, 0, rt * 10, 1e-9);
    red_case("prims::amax", dt, 2, tall, NULL, P_ZEROS, (tabi_value[]){tabi_int_list(d0, 1), tabi_none()}, 2, 1, 1,
             0, 0);
    /* along memory, and both on a permuted (non-contiguous) input */
    red_case("prims::sum", dt, 2, rows, NULL, P_UNIFORM, (tabi_value[]){tabi_int_list(d1, 1), tabi_none()}, 2, 1, 0,
             rt, 1e-9);
    red_case("prims::sum", dt, 2, rows, PERM2, P_UNIFORM, (tabi_value[]){tabi_int_list(d1, 1), tabi_none()}, 2, 1,
             0, rt, 1e-9);
    red_case("prims::sum", dt, 2, rows, PERM2, P_UNIFORM, (tabi_value[]){tabi_int_list(d0, 1), tabi_none()}, 2, 1,
             0, rt, 1e-9);
    red_case("prims::amin", dt, 2, rows, PERM2, P_NANS, (tabi_value[]){tabi_int_list(d0, 1), tabi_none()}, 2, 1, 1,
             0, 0);
    /* two reduced dims: apart (0, 2) and one run (1, 2) */
    red_case("prims::sum", dt, 3, cube, NULL, P_UNIFORM, (tabi_value[]){tabi_int_list(d02, 2), tabi_none()}, 2, 1,
             0, rt, 1e-9);
    red_case("prims::prod", dt, 3, cube, NULL, P_MEAN1000, (tabi_value[]){tabi_int_list(d12, 2), tabi_none()}, 2, 1,
             0, rt, 0);
    /* argmax/argmin/max.dim/min.dim: first of equal values, first NaN */
    red_case("aten::argmax", dt, 1, big, NULL, P_TIES, (tabi_value[]){tabi_none(), tabi_bool(0)}, 2, 1, 1, 0, 0);
    red_case("aten::argmin", dt, 1, big, NULL, P_ZEROS, (tabi_value[]){tabi_none(), tabi_bool(0)}, 2, 1, 1, 0, 0);
    red_case("aten::argmax", dt, 1, big, NULL, P_NANS, (tabi_value[]){tabi_none(), tabi_bool(0)}, 2, 1, 1, 0, 0);
    red_case("aten::max.dim", dt, 2, tall, NULL, P_TIES, (tabi_value[]){tabi_int(0), tabi_bool(1)}, 2, 2, 3, 0, 0);
    red_case("aten::min.dim", dt, 2, rows, PERM2, P_ZEROS, (tabi_value[]){tabi_int(1), tabi_bool(0)}, 2, 2, 3, 0,
             0);
    red_case("aten::max.dim", dt, 2, wide, NULL, P_NANS, (tabi_value[]){tabi_int(1), tabi_bool(0)}, 2, 2, 3, 0, 0);
  }
  /* integers: exact (wrapping) sums, ties */
  red_case("prims::sum", TABI_DTYPE_INT64, 1, big, NULL, P_TIES, (tabi_value[]){tabi_int_list(d0, 1), tabi_none()},
           2, 1, 1, 0, 0);
  red_case("prims::sum", TABI_DTYPE_INT32, 2, tall, NULL, P_TIES, (tabi_value[]){tabi_int_list(d0, 1), tabi_none()},
           2, 1, 1, 0, 0);
  red_case("aten::argmin", TABI_DTYPE_INT32, 1, big, NULL, P_TIES, (tabi_value[]){tabi_none(), tabi_bool(0)}, 2, 1,
           1, 0, 0);
  red_case("aten::max.dim", TABI_DTYPE_INT64, 2, tall, NULL, P_TIES, (tabi_value[]){tabi_int(0), tabi_bool(0)}, 2, 2,
           3, 0, 0);
  red_case("prims::amax", TABI_DTYPE_INT16, 2, wide, NULL, P_TIES, (tabi_value[]){tabi_int_list(d1, 1), tabi_none()},
           2, 1, 1, 0, 0);
  /* complex sums; an empty group sums to zero */
  red_case("prims::sum", TABI_DTYPE_COMPLEX64, 1, big, NULL, P_UNIFORM,
           (tabi_value[]){tabi_int_list(d0, 1), tabi_none()}, 2, 1, 0, 1e-5, 1e-9);
  red_case("prims::sum", TABI_DTYPE_FLOAT32, 2, empty, NULL, P_UNIFORM,
           (tabi_value[]){tabi_int_list(d0, 1), tabi_none()}, 2, 1, 1, 0, 0);
  /* sums over dim 0 whose outputs are whole 16-byte tiles (red_colv_kernel:
     128 float32, 256 half, 64 float64 outputs a tile): small integers sum
     exactly in any order, so every element must be counted once, bit for
     bit; 4000 rows are cut into parts; mean divides at the store; 260
     columns are no whole tiles (red_col_kernel) */
  const tabi_dtype vdt[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT16, TABI_DTYPE_FLOAT64};
  int64_t c256[2] = {700, 256}, c512[2] = {300, 512}, cparts[2] = {4000, 128}, c260[2] = {50, 260};
  for (int k = 0; k < 4; k++) {
    red_case("prims::sum", vdt[k], 2, c256, NULL, P_TIES, (tabi_value[]){tabi_int_list(d0, 1), tabi_none()}, 2, 1,
             1, 0, 0);
    red_case("prims::sum", vdt[k], 2, c512, NULL, P_TIES, (tabi_value[]){tabi_int_list(d0, 1), tabi_none()}, 2, 1,
             1, 0, 0);
    red_case("prims::sum", vdt[k], 2, cparts, NULL, P_TIES, (tabi_value[]){tabi_int_list(d0, 1), tabi_none()}, 2,
             1, 1, 0, 0);
    double vt = k == 1 || k == 2 ? 1e-2 : 1e-5; /* a half type: one rounding apart */
    red_case("aten::mean.dim", vdt[k], 2, c256, NULL, P_UNIFORM,
             (tabi_value[]){tabi_int_list(d0, 1), tabi_bool(0), tabi_none()}, 3, 1, 0, vt, 1e-6);
    red_case("prims::sum", vdt[k], 2, c260, NULL, P_NANS, (tabi_value[]){tabi_int_list(d0, 1), tabi_none()}, 2, 1,
             0, vt, 1e-5);
  }
}

static void sort_cases(void) {
  int64_t one[1] = {20011}, pow[1] = {2048}, past[1] = {2049}, three[2] = {3, 5000}, many[2] = {4000, 37};
  int64_t single[1] = {1};
  const tabi_dtype dts[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16, TABI_DTYPE_INT64};
  const int pats[3] = {P_TIES, P_ZEROS, P_NANS};
  for (int k = 0; k < 4; k++)
    for (int p = 0; p < 3; p++) {
      if (dts[k] == TABI_DTYPE_INT64 && p > 0) continue; /* no -0.0 or NaN among integers */
      for (int desc = 0; desc < 2; desc++) {
        red_case("aten::sort", dts[k], 1, one, NULL, pats[p], (tabi_value[]){tabi_int(0), tabi_bool(desc)}, 2, 2, 3,
                 0, 0);
        red_case("aten::sort", dts[k], 2, three, NULL, pats[p], (tabi_value[]){tabi_int(0), tabi_bool(desc)}, 2, 2,
                 3, 0, 0);
        red_case("aten::sort", dts[k], 2, many, NULL, pats[p], (tabi_value[]){tabi_int(1), tabi_bool(desc)}, 2, 2,
                 3, 0, 0);
      }
    }
  red_case("aten::sort", TABI_DTYPE_FLOAT32, 1, pow, NULL, P_UNIFORM, (tabi_value[]){tabi_int(0), tabi_bool(0)}, 2,
           2, 3, 0, 0);
  red_case("aten::sort", TABI_DTYPE_FLOAT32, 1, past, NULL, P_UNIFORM, (tabi_value[]){tabi_int(0), tabi_bool(1)}, 2,
           2, 3, 0, 0);
  red_case("aten::sort", TABI_DTYPE_FLOAT32, 1, single, NULL, P_UNIFORM, (tabi_value[]){tabi_int(0), tabi_bool(1)},
           2, 2, 3, 0, 0);
  red_case("aten::sort", TABI_DTYPE_FLOAT32, 2, three, PERM2, P_TIES, (tabi_value[]){tabi_int(1), tabi_bool(0)},
           2, 2, 3, 0, 0);
  red_case("aten::topk", TABI_DTYPE_FLOAT32, 1, one, NULL, P_TIES,
           (tabi_value[]){tabi_int(1000), tabi_int(0), tabi_bool(1), tabi_bool(1)}, 4, 2, 3, 0, 0);
  red_case("aten::topk", TABI_DTYPE_FLOAT64, 2, many, NULL, P_NANS,
           (tabi_value[]){tabi_int(5), tabi_int(1), tabi_bool(0), tabi_bool(1)}, 4, 2, 3, 0, 0);
  /* slices of 65536 or more take the radix sort (tc_sort.cu): 32- and
     64-bit keys from every kind of dtype, ties, -0.0 beside 0.0, NaN and
     inf, both directions; two slices, a strided one, topk; a long slice */
  int64_t rx[1] = {70001}, rx2[2] = {2, 65536}, rxt[2] = {65537, 2};
  const tabi_dtype rdt[8] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16,
                             TABI_DTYPE_INT64,   TABI_DTYPE_INT32,   TABI_DTYPE_INT8,    TABI_DTYPE_UINT8};
  for (int k = 0; k < 8; k++)
    for (int p = 0; p < 4; p++) {
      const int rpat[4] = {P_UNIFORM, P_TIES, P_ZEROS, P_NANS};
      if (k >= 4 && p > 1) continue; /* no -0.0 or NaN among integers */
      for (int desc = 0; desc < 2; desc++)
        red_case("aten::sort", rdt[k], 1, rx, NULL, rpat[p], (tabi_value[]){tabi_int(0), tabi_bool(desc)}, 2, 2,
                 3, 0, 0);
    }
  red_case("aten::sort", TABI_DTYPE_FLOAT32, 2, rx2, NULL, P_NANS, (tabi_value[]){tabi_int(1), tabi_bool(1)}, 2, 2,
           3, 0, 0);
  red_case("aten::sort", TABI_DTYPE_INT64, 2, rxt, NULL, P_TIES, (tabi_value[]){tabi_int(0), tabi_bool(0)}, 2, 2, 3,
           0, 0);
  red_case("aten::topk", TABI_DTYPE_FLOAT64, 1, rx, NULL, P_TIES,
           (tabi_value[]){tabi_int(777), tabi_int(0), tabi_bool(0), tabi_bool(1)}, 4, 2, 3, 0, 0);
  /* 293 tiles: the digit counts (256 a tile) scan in 37 chunks */
  int64_t rxbig[1] = {600001};
  red_case("aten::sort", TABI_DTYPE_FLOAT32, 1, rxbig, NULL, P_TIES, (tabi_value[]){tabi_int(0), tabi_bool(1)}, 2, 2,
           3, 0, 0);
}

static void cumsum_cases(void) {
  int64_t one[1] = {20011}, three[2] = {3, 5000}, many[2] = {4000, 37};
  red_case("aten::cumsum", TABI_DTYPE_FLOAT32, 1, one, NULL, P_UNIFORM, (tabi_value[]){tabi_int(0), tabi_none()}, 2,
           1, 0, 1e-5, 1e-4);
  red_case("aten::cumsum", TABI_DTYPE_FLOAT64, 2, three, NULL, P_UNIFORM, (tabi_value[]){tabi_int(1), tabi_none()},
           2, 1, 0, 1e-12, 1e-12);
  red_case("aten::cumsum", TABI_DTYPE_FLOAT64, 2, three, PERM2, P_UNIFORM,
           (tabi_value[]){tabi_int(0), tabi_none()}, 2, 1, 0, 1e-12, 1e-12);
  red_case("aten::cumsum", TABI_DTYPE_INT64, 1, one, NULL, P_TIES, (tabi_value[]){tabi_int(0), tabi_none()}, 2, 1,
           1, 0, 0);
  red_case("aten::cumsum", TABI_DTYPE_INT32, 2, many, NULL, P_TIES, (tabi_value[]){tabi_int(0), tabi_none()}, 2, 1,
           1, 0, 0);
  red_case("aten::cumsum", TABI_DTYPE_COMPLEX64, 2, three, NULL, P_UNIFORM, (tabi_value[]){tabi_int(1), tabi_none()},
           2, 1, 0, 1e-5, 1e-4);
  red_case("aten::cumsum", TABI_DTYPE_BFLOAT16, 2, many, NULL, P_UNIFORM, (tabi_value[]){tabi_int(1), tabi_none()},
           2, 1, 0, 1.6e-2, 1e-2);
  /* more chunks (of 2048) than the offsets kernel has threads (256): runs of
     three chunks a thread, the last one short */
  int64_t longer[1] = {2048 * 700 + 5};
  red_case("aten::cumsum", TABI_DTYPE_INT64, 1, longer, NULL, P_TIES, (tabi_value[]){tabi_int(0), tabi_none()}, 2,
           1, 1, 0, 0);
  red_case("aten::cumsum", TABI_DTYPE_FLOAT32, 1, longer, NULL, P_UNIFORM,
           (tabi_value[]){tabi_int(0), tabi_none()}, 2, 1, 0, 1e-5, 1e-3);
  /* float32 along a contiguous dim (scan_f32_kernel): slices of 5001 start
     off 16-byte boundaries (scalar loads and stores there), three chunks
     each, the last one partly filled; signed zeros sum to +0.0 bit for bit,
     as the reference's; the transposed view takes the generic kernels */
  int64_t odd[2] = {3, 5001};
  red_case("aten::cumsum", TABI_DTYPE_FLOAT32, 2, odd, NULL, P_UNIFORM, (tabi_value[]){tabi_int(1), tabi_none()},
           2, 1, 0, 1e-5, 1e-4);
  red_case("aten::cumsum", TABI_DTYPE_FLOAT32, 2, odd, NULL, P_ZEROS, (tabi_value[]){tabi_int(1), tabi_none()},
           2, 1, 1, 0, 0);
  red_case("aten::cumsum", TABI_DTYPE_FLOAT32, 2, odd, NULL, P_NANS, (tabi_value[]){tabi_int(1), tabi_none()},
           2, 1, 0, 1e-5, 1e-4);
  red_case("aten::cumsum", TABI_DTYPE_FLOAT32, 2, odd, PERM2, P_UNIFORM, (tabi_value[]){tabi_int(0), tabi_none()},
           2, 1, 0, 1e-5, 1e-4);
}

/* nonzero and masked_scatter: the chunked count/scan/write (tc_idx.cu) */
static void compact_cases(void) {
  int64_t big[1] = {(1 << 18) + 3}, rows[2] = {300, 5000}, one[1] = {1};
  red_case("aten::nonzero", TABI_DTYPE_FLOAT32, 1, big, NULL, P_TIES, NULL, 0, 1, 1, 0, 0);
  red_case("aten::nonzero", TABI_DTYPE_FLOAT64, 2, rows, PERM2, P_TIES, NULL, 0, 1, 1, 0, 0);
  red_case("aten::nonzero", TABI_DTYPE_FLOAT32, 1, big, NULL, P_ZEROS, NULL, 0, 1, 1, 0, 0); /* none set */
  red_case("aten::nonzero", TABI_DTYPE_FLOAT32, 1, one, NULL, P_UNIFORM, NULL, 0, 1, 1, 0, 0);
  /* masked_scatter of [70, 4099] with a broadcast [4099] mask, about half set */
  int64_t ss[2] = {70, 4099}, ms[1] = {4099}, n = 70 * 4099;
  double *h = make(n, P_UNIFORM), *m = malloc(sizeof(double) * 4099);
  for (int64_t i = 0; i < 4099; i++) m[i] = urand() < 0.5;
  int64_t set = 0;
  for (int64_t i = 0; i < 4099; i++) set += m[i] != 0;
  tabi_tensor *sg, *sr, *mg, *mr, *src_g, *src_r, *short_g, *short_r;
  both_tensor(TABI_DTYPE_FLOAT32, 2, ss, h, &sg, &sr);
  both_tensor(TABI_DTYPE_BOOL, 1, ms, m, &mg, &mr);
  both_tensor(TABI_DTYPE_FLOAT32, 2, ss, h + 1, &src_g, &src_r);
  int64_t few[1] = {70 * set - 1}; /* one short of what the mask takes */
  both_tensor(TABI_DTYPE_FLOAT32, 1, few, h + 2, &short_g, &short_r);
  tabi_value ga[3] = {tabi_tensor_value(sg), tabi_tensor_value(mg), tabi_tensor_value(src_g)};
  tabi_value ra[3] = {tabi_tensor_value(sr), tabi_tensor_value(mr), tabi_tensor_value(src_r)};
  run_both("aten::masked_scatter [70, 4099]", "aten::masked_scatter", ga, ra, 3, 1, 1, 0, 0);
  ga[2] = tabi_tensor_value(short_g);
  ra[2] = tabi_tensor_value(short_r);
  same_error_built("masked_scatter, source one short", "aten::masked_scatter", ga, ra, 3);
  tabi_tensor *all[8] = {sg, sr, mg, mr, src_g, src_r, short_g, short_r};
  for (int k = 0; k < 8; k++) tabi_tensor_release(all[k]);
  free(h);
  free(m);
}

/* scatter, scatter_add, scatter_reduce: a thread per line along dim (tc_scatter.cu, tc_idx.cu), with
   many duplicate targets per line; exact (each target's order is the
   reference's) */
static void scatter_case(const char *name, int64_t rows, int64_t cols, int64_t orows, int64_t ocols, int dim,
                         tabi_dtype dt, const char *reduce) {
  int64_t is[2] = {rows, cols}, os[2] = {orows, ocols}, range = dim ? ocols : orows;
  double *x = make(orows * ocols, P_UNIFORM), *src = make(rows * cols, P_UNIFORM);
  double *ix = malloc(sizeof(double) * (size_t)(rows * cols));
  for (int64_t i = 0; i < rows * cols; i++) ix[i] = floor(urand() * (double)range * 0.5); /* duplicates */
  tabi_tensor *xg, *xr, *ig, *ir, *sg, *sr;
  both_tensor(dt, 2, os, x, &xg, &xr);
  both_tensor(TABI_DTYPE_INT64, 2, is, ix, &ig, &ir);
  both_tensor(dt, 2, is, src, &sg, &sr);
  tabi_value ga[6] = {tabi_tensor_value(xg), tabi_int(dim), tabi_tensor_value(ig), tabi_tensor_value(sg)};
  tabi_value ra[6] = {tabi_tensor_value(xr), tabi_int(dim), tabi_tensor_value(ir), tabi_tensor_value(sr)};
  int na = 4;
  if (reduce) { /* scatter_reduce.two(..., reduce, include_self=False) */
    ga[4] = ra[4] = tabi_string(reduce, (int64_t)strlen(reduce));
    ga[5] = ra[5] = tabi_bool(0);
    na = 6;
  }
  char what[160];
  snprintf(what, sizeof what, "%s %s %s [%lld, %lld] dim %d", name, reduce ? reduce : "", tabi_dtype_name(dt),
           (long long)rows, (long long)cols, dim);
  /* the CPU plugin (cuda_ops_cases_on_cpu) adds float32/bfloat16 in float32 */
  int approx = CUDA0.device_type == kDLCPU && (dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_BFLOAT16);
  run_both(what, name, ga, ra, na, 1, approx ? 0 : 1, dt == TABI_DTYPE_BFLOAT16 ? 1e-2 : 1e-5, 1e-5);
  tabi_tensor *all[6] = {xg, xr, ig, ir, sg, sr};
  for (int k = 0; k < 6; k++) tabi_tensor_release(all[k]);
  free(x);
  free(src);
  free(ix);
}

static void scatter_cases(void) {
  scatter_case("aten::scatter_add", 3000, 40, 3000, 64, 1, TABI_DTYPE_FLOAT32, NULL);
  scatter_case("aten::scatter_add", 500, 70, 40, 70, 0, TABI_DTYPE_FLOAT64, NULL);
  scatter_case("aten::scatter_add", 500, 70, 40, 90, 0, TABI_DTYPE_INT32, NULL);
  scatter_case("aten::scatter_add", 300, 33, 300, 50, 1, TABI_DTYPE_BFLOAT16, NULL);
  scatter_case("aten::scatter.src", 3000, 40, 3000, 64, 1, TABI_DTYPE_FLOAT32, NULL);
  scatter_case("aten::scatter.src", 500, 70, 40, 70, 0, TABI_DTYPE_INT64, NULL);
  /* one long line (as a 1-d index): sorted, a thread per run of equal targets */
  scatter_case("aten::scatter_add", 1, 30000, 1, 500, 1, TABI_DTYPE_FLOAT32, NULL);
  scatter_case("aten::scatter_add", 1, 30000, 1, 500, 1, TABI_DTYPE_INT64, NULL);
  scatter_case("aten::scatter_add", 1, 30000, 1, 500, 1, TABI_DTYPE_COMPLEX64, NULL);
  scatter_case("aten::scatter.src", 1, 30000, 1, 500, 1, TABI_DTYPE_FLOAT64, NULL);
  scatter_case("aten::scatter_reduce.two", 1, 30000, 1, 500, 1, TABI_DTYPE_FLOAT32, "mean");
  scatter_case("aten::scatter_reduce.two", 1, 30000, 1, 500, 1, TABI_DTYPE_INT64, "prod");
  scatter_case("aten::scatter_reduce.two", 3000, 40, 3000, 64, 1, TABI_DTYPE_FLOAT32, "mean");
  scatter_case("aten::scatter_reduce.two", 500, 70, 40, 70, 0, TABI_DTYPE_FLOAT64, "sum");
  scatter_case("aten::scatter_reduce.two", 500, 70, 40, 90, 0, TABI_DTYPE_INT32, "amax");
}

/* index_put of [5000, 64] values into rows of [2000, 64] picked by an index
   with many repeats, both ways: a thread per column (tc_idx.cu), exact */
static void index_put_cases(void) {
  int64_t xs[2] = {2000, 64}, is[1] = {5000}, vs[2] = {5000, 64};
  double *x = make(2000 * 64, P_UNIFORM), *v = make(5000 * 64, P_UNIFORM), *ix = malloc(sizeof(double) * 5000);
  for (int i = 0; i < 5000; i++) ix[i] = floor(urand() * 1000);
  tabi_tensor *xg, *xr, *ig, *ir, *vg, *vr;
  both_tensor(TABI_DTYPE_FLOAT32, 2, xs, x, &xg, &xr);
  both_tensor(TABI_DTYPE_INT64, 1, is, ix, &ig, &ir);
  both_tensor(TABI_DTYPE_FLOAT32, 2, vs, v, &vg, &vr);
  tabi_tensor *lg[1] = {ig}, *lr[1] = {ir};
  for (int acc = 0; acc < 2; acc++) {
    tabi_value ga[4] = {tabi_tensor_value(xg), tabi_tensor_list(lg, 1), tabi_tensor_value(vg), tabi_bool(acc)};
    tabi_value ra[4] = {tabi_tensor_value(xr), tabi_tensor_list(lr, 1), tabi_tensor_value(vr), tabi_bool(acc)};
    run_both(acc ? "aten::index_put accumulate" : "aten::index_put", "aten::index_put", ga, ra, 4, 1,
             CUDA0.device_type == kDLCPU && acc ? 0 : 1, 1e-5, 1e-5);
  }
  tabi_tensor *all[6] = {xg, xr, ig, ir, vg, vr};
  for (int k = 0; k < 6; k++) tabi_tensor_release(all[k]);
  free(x);
  free(v);
  free(ix);
  /* everything indexed (a 1-d x): the targets sorted, a thread per run */
  int64_t x1[1] = {2000}, n1[1] = {50000};
  x = make(2000, P_UNIFORM);
  v = make(50000, P_UNIFORM);
  ix = malloc(sizeof(double) * 50000);
  for (int i = 0; i < 50000; i++) ix[i] = floor(urand() * 1000);
  both_tensor(TABI_DTYPE_FLOAT64, 1, x1, x, &xg, &xr);
  both_tensor(TABI_DTYPE_INT64, 1, n1, ix, &ig, &ir);
  both_tensor(TABI_DTYPE_FLOAT64, 1, n1, v, &vg, &vr);
  lg[0] = ig;
  lr[0] = ir;
  for (int acc = 0; acc < 2; acc++) {
    tabi_value ga[4] = {tabi_tensor_value(xg), tabi_tensor_list(lg, 1), tabi_tensor_value(vg), tabi_bool(acc)};
    tabi_value ra[4] = {tabi_tensor_value(xr), tabi_tensor_list(lr, 1), tabi_tensor_value(vr), tabi_bool(acc)};
    run_both(acc ? "aten::index_put 1-d accumulate" : "aten::index_put 1-d", "aten::index_put", ga, ra, 4, 1, 1,
             0, 0);
  }
  tabi_tensor *all1[6] = {xg, xr, ig, ir, vg, vr};
  for (int k = 0; k < 6; k++) tabi_tensor_release(all1[k]);
  free(x);
  free(v);
  free(ix);
}

void red_cases(void) {
  reduction_cases();
  sort_cases();
  cumsum_cases();
  compact_cases();
  scatter_cases();
  index_put_cases();
}

/* The aten reductions run natively (REF_RED_ATEN_LIST, planned by the
 * reference): dims, keepdim, dtype=, int64 promotion, mean's division (complex
 * too), amax's and any's kinds, var's correction, and the planners' errors. */
void aten_red_cases(void) {
  const int64_t s[3] = {3, 517, 129}, small[3] = {3, 5, 7};
  const int64_t d1[1] = {1}, d02[2] = {0, 2}, dl[1] = {-1}, d0[1] = {0};
  compare("aten::sum.dim_IntList", TABI_DTYPE_FLOAT32, 1, 3, s,
          (tabi_value[]){tabi_int_list(d1, 1), tabi_bool(0), tabi_none()}, 3, 1.3e-5, 1e-4);
  compare("aten::sum.dim_IntList", TABI_DTYPE_INT32, 1, 3, s,
          (tabi_value[]){tabi_int_list(d02, 2), tabi_bool(1), tabi_none()}, 3, 0, 0); /* int64 */
  compare("aten::sum.dim_IntList", TABI_DTYPE_FLOAT16, 1, 3, s,
          (tabi_value[]){tabi_none(), tabi_bool(0), tabi_dtype_value(TABI_DTYPE_FLOAT64)}, 3, 1e-9, 1e-9);
  compare("aten::mean", TABI_DTYPE_FLOAT32, 1, 3, s, (tabi_value[]){tabi_none()}, 1, 1.3e-5, 1e-5);
  compare("aten::mean.dim", TABI_DTYPE_BFLOAT16, 1, 3, s,
          (tabi_value[]){tabi_int_list(dl, 1), tabi_bool(1), tabi_none()}, 3, 1.6e-2, 1e-3);
  compare("aten::mean.dim", TABI_DTYPE_COMPLEX64, 1, 3, s,
          (tabi_value[]){tabi_int_list(d0, 1), tabi_bool(0), tabi_none()}, 3, 1.3e-5, 1e-5);
  compare("aten::mean.dim", TABI_DTYPE_INT32, 1, 3, s,
          (tabi_value[]){tabi_int_list(d1, 1), tabi_bool(0), tabi_dtype_value(TABI_DTYPE_FLOAT64)}, 3, 1e-9, 1e-9);
  compare("aten::prod", TABI_DTYPE_FLOAT64, 1, 3, small, (tabi_value[]){tabi_none()}, 1, 1e-9, 1e-12);
  compare("aten::prod.dim_int", TABI_DTYPE_INT16, 1, 3, small,
          (tabi_value[]){tabi_int(2), tabi_bool(0), tabi_none()}, 3, 0, 0);
  compare("aten::amax", TABI_DTYPE_FLOAT16, 1, 3, s, (tabi_value[]){tabi_int_list(d1, 1), tabi_bool(0)}, 2, 0, 0);
  compare("aten::amin", TABI_DTYPE_INT64, 1, 3, s, (tabi_value[]){tabi_int_list(d02, 0), tabi_bool(1)}, 2, 0, 0);
  compare("aten::any", TABI_DTYPE_FLOAT32, 1, 3, s, NULL, 0, 0, 0);
  compare("aten::var.correction", TABI_DTYPE_FLOAT32, 1, 3, s,
          (tabi_value[]){tabi_int_list(dl, 1), tabi_int(0), tabi_bool(1)}, 3, 1.3e-5, 1e-5);
  compare("aten::var.dim", TABI_DTYPE_FLOAT64, 1, 3, s,
          (tabi_value[]){tabi_int_list(d1, 1), tabi_bool(1), tabi_bool(0)}, 3, 1e-9, 1e-12);
  /* any over mostly-zero data: a few groups true, most false */
  {
    double *h = malloc(sizeof(double) * 3 * 517 * 129);
    for (int64_t i = 0; i < 3 * 517 * 129; i++) h[i] = urand() < 0.002 ? (urand() < 0.5 ? NAN : 1.0) : 0.0;
    tabi_tensor *g = NULL, *r = NULL;
    both_tensor(TABI_DTYPE_FLOAT32, 3, s, h, &g, &r);
    tabi_value gv[3] = {tabi_tensor_value(g), tabi_int_list(d02, 2), tabi_bool(0)};
    tabi_value rv[3] = {tabi_tensor_value(r), tabi_int_list(d02, 2), tabi_bool(0)};
    compare_built("aten::any.dims", gv, rv, 3, 0, 0);
    gv[1] = rv[1] = tabi_int(2);
    compare_built("aten::any.dim", gv, rv, 3, 0, 0);
    tabi_tensor_release(g);
    tabi_tensor_release(r);
    free(h);
  }
  same_error("aten::mean", 3, s, (tabi_value[]){tabi_dtype_value(TABI_DTYPE_INT32)}, 1);
  const int64_t dup[2] = {1, 1}, bad[1] = {5};
  same_error("aten::sum.dim_IntList", 3, s, (tabi_value[]){tabi_int_list(dup, 2), tabi_bool(0), tabi_none()}, 3);
  same_error("aten::amax", 3, s, (tabi_value[]){tabi_int_list(bad, 1), tabi_bool(0)}, 2);
}
