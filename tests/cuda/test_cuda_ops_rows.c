/* tests/cuda/test_cuda_ops_rows.c: test_cuda_ops's cases for the row
 * kernels of _softmax, _log_softmax, native_layer_norm and its backward
 * (tc_nn.cu, tc_rows.cuh): every length class, the float paths' ways off
 * to double, rows off a 16-byte boundary, special values. GPU only (run
 * from test_cuda_ops.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_harness.h"

/* The register layer norm's ways off its float path (tc_rows.cuh), at a
 * length of each register class and one past them, through all three
 * outputs: rows with a value over 1e18, an inf, a NaN, a variance under
 * 1e-30, a constant row, beside an ordinary one; eps 0 (rstd from a tiny
 * variance) and -1 (a NaN rstd). Then both row kernels on a row that starts
 * 4 bytes past a 16-byte boundary, which must not take 16-byte loads. */
static void rows_edge_cases(void) {
  const tabi_dtype fdt[3] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16};
  const double frt[3] = {1.3e-6, 1e-3, 1.6e-2}, eps[3] = {1e-5, 0.0, -1.0};
  const int64_t lens[4] = {700, 8192, 8193, 20000};
  for (int d = 0; d < 3; d++)
    for (int li = 0; li < 4; li++) {
      int64_t L = lens[li], s[2] = {6, L}, ps[1] = {L};
      double *h = malloc(sizeof(double) * 6 * (size_t)L), *hw = malloc(sizeof(double) * (size_t)L);
      for (int64_t i = 0; i < L; i++) {
        h[i] = (urand() * 2 - 1) * 1e20;
        h[L + i] = i == L / 3 ? INFINITY : urand();
        h[2 * L + i] = i == L / 2 ? NAN : urand();
        h[3 * L + i] = urand() * 1e-15;
        h[4 * L + i] = 3.0;
        h[5 * L + i] = urand() * 100 + 50;
        hw[i] = urand() * 2 - 1;
      }
      for (int e = 0; e < 3; e++) {
        tabi_tensor *g[3] = {NULL, NULL, NULL}, *r[3] = {NULL, NULL, NULL};
        both_tensor(fdt[d], 2, s, h, &g[0], &r[0]);
        if (e == 0) { /* weight and bias of the input's dtype */
          both_tensor(fdt[d], 1, ps, hw, &g[1], &r[1]);
          both_random(fdt[d], 1, ps, &g[2], &r[2]);
        }
        tabi_value ga[5] = {tabi_tensor_value(g[0]), tabi_int_list(ps, 1),
                            g[1] ? tabi_tensor_value(g[1]) : tabi_none(),
                            g[2] ? tabi_tensor_value(g[2]) : tabi_none(), tabi_float(eps[e])};
        tabi_value ra[5] = {tabi_tensor_value(r[0]), tabi_int_list(ps, 1),
                            r[1] ? tabi_tensor_value(r[1]) : tabi_none(),
                            r[2] ? tabi_tensor_value(r[2]) : tabi_none(), tabi_float(eps[e])};
        for (cmp_out = 0; cmp_out < 3; cmp_out++)
          compare_built("aten::native_layer_norm", ga, ra, 5, frt[d], 1e-5);
        cmp_out = 0;
        for (int k = 0; k < 3; k++) {
          tabi_tensor_release(g[k]);
          tabi_tensor_release(r[k]);
        }
      }
      free(h);
      free(hw);
    }
  for (int d = 0; d < 3; d++) {
    int64_t L = 8192, n1[1] = {3 * L + 1}, s[2] = {3, L};
    tabi_tensor *g = NULL, *r = NULL;
    both_random(fdt[d], 1, n1, &g, &r);
    tabi_value from1[4] = {tabi_int(0), tabi_int(1), tabi_none(), tabi_int(1)}, as2[1] = {tabi_int_list(s, 2)};
    both_view("aten::slice.Tensor", from1, 4, &g, &r);
    both_view("aten::view", as2, 1, &g, &r);
    CHECK_MSG(g && ((uintptr_t)tabi_tensor_data(g) & 15) != 0, "the unaligned view is aligned");
    for (int lf = 0; lf < 2; lf++) {
      tabi_value ga[3] = {tabi_tensor_value(g), tabi_int(1), tabi_bool(0)};
      tabi_value ra[3] = {tabi_tensor_value(r), tabi_int(1), tabi_bool(0)};
      compare_built(lf ? "aten::_log_softmax" : "aten::_softmax", ga, ra, 3, frt[d], 1e-5);
    }
    int64_t ps[1] = {L};
    tabi_value ga[5] = {tabi_tensor_value(g), tabi_int_list(ps, 1), tabi_none(), tabi_none(), tabi_float(1e-5)};
    tabi_value ra[5] = {tabi_tensor_value(r), tabi_int_list(ps, 1), tabi_none(), tabi_none(), tabi_float(1e-5)};
    for (cmp_out = 0; cmp_out < 3; cmp_out++) compare_built("aten::native_layer_norm", ga, ra, 5, frt[d], 1e-5);
    cmp_out = 0;
    tabi_tensor_release(g);
    tabi_tensor_release(r);
  }
}

/* native_layer_norm_backward's float kernels (tc_ln_bw_rows): rows of a
 * length of the register classes and one past them (16385: grad_input by
 * the general kernels, the parameter sums still by the float one), rows
 * past them that start on 16-byte boundaries (16392, 24576:
 * ln_bw_long_kernel), mostly over
 * enough rows that the parameter sums are split; float32, float16 and bfloat16, with a weight
 * of the input's dtype, of float32, or none; the first rows carry values
 * the float path must hand to double (1e20, inf, NaN), the rest ordinary
 * ones. Every output against the reference. */
static void ln_bw_cases(void) {
  const tabi_dtype fdt[3] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16};
  const double frt[3] = {1.3e-6, 1e-3, 1.6e-2};
  /* (length, rows): 257 rows split the parameter sums (tcn_split) in 5
     partials; 1100 rows in 18, which tcn_combine adds 16 loads at a time,
     then two */
  const int64_t lens[7][2] = {{700, 257}, {8192, 8}, {8193, 257}, {16385, 257}, {16392, 40}, {24576, 4}, {40, 1100}};
  for (int d = 0; d < 3; d++)
    for (int li = 0; li < 7; li++) {
      int64_t L = lens[li][0], M = lens[li][1], s[2] = {M, L}, ps[1] = {L}, ms[2] = {M, 1};
      double *hx = malloc(sizeof(double) * (size_t)(M * L)), *hg = malloc(sizeof(double) * (size_t)(M * L));
      double *hm = malloc(sizeof(double) * (size_t)M), *hr = malloc(sizeof(double) * (size_t)M);
      double *hw = malloc(sizeof(double) * (size_t)L);
      for (int64_t i = 0; i < M * L; i++) {
        hx[i] = urand() * 4 - 2;
        hg[i] = urand() * 2 - 1;
      }
      hx[L / 2] = 1e20;          /* row 0: past the float bound */
      hg[L + L / 3] = INFINITY;  /* row 1 */
      hx[2 * L + 5] = NAN;       /* row 2 */
      for (int64_t r = 0; r < M; r++) {
        hm[r] = urand() - 0.5;
        hr[r] = 0.5 + urand() * 2;
      }
      for (int64_t i = 0; i < L; i++) hw[i] = urand() * 2 - 1;
      for (int wk = 0; wk < 3; wk++) { /* weight: x's dtype, float32, none */
        tabi_tensor *g[5] = {NULL}, *r[5] = {NULL};
        tabi_dtype sdt = fdt[d] == TABI_DTYPE_FLOAT32 || wk == 1 ? TABI_DTYPE_FLOAT32 : fdt[d];
        both_tensor(fdt[d], 2, s, hg, &g[0], &r[0]);
        both_tensor(fdt[d], 2, s, hx, &g[1], &r[1]);
        both_tensor(sdt, 2, ms, hm, &g[2], &r[2]);
        both_tensor(sdt, 2, ms, hr, &g[3], &r[3]);
        if (wk < 2) both_tensor(wk ? TABI_DTYPE_FLOAT32 : fdt[d], 1, ps, hw, &g[4], &r[4]);
        int64_t mask[3] = {1, 1, 1};
        tabi_value ga[8], ra[8];
        for (int k = 0; k < 2; k++) {
          tabi_tensor **t = k ? r : g;
          tabi_value a[8] = {tabi_tensor_value(t[0]), tabi_tensor_value(t[1]), tabi_int_list(ps, 1),
                             tabi_tensor_value(t[2]), tabi_tensor_value(t[3]),
                             t[4] ? tabi_tensor_value(t[4]) : tabi_none(), tabi_none(), tabi_bool_list(mask, 3)};
          memcpy(k ? ra : ga, a, sizeof a);
        }
        /* a weight of float32 beside float16/bfloat16: grad_weight is float32 */
        for (cmp_out = 0; cmp_out < 3; cmp_out++)
          compare_built("aten::native_layer_norm_backward", ga, ra, 8, cmp_out == 0 || wk != 1 ? frt[d] : 1.3e-6,
                        1e-5);
        cmp_out = 0;
        for (int k = 0; k < 5; k++) {
          tabi_tensor_release(g[k]);
          tabi_tensor_release(r[k]);
        }
      }
      free(hx);
      free(hg);
      free(hm);
      free(hr);
      free(hw);
    }
}

/* native_layer_norm of rows x L of (1000 + U(0, 1)) * scale (a large mean:
 * the centring must be exact enough for float32's tolerance), with weight
 * (params & 1) and bias (& 2) of pdt; all three outputs against the
 * reference. ln_long_cases: rows past the register kernels that start on
 * 16-byte boundaries (tc_nn.cu's ln_long_kernel), of 16392 and 24576, with
 * the input's or float32 weight and bias, a bias alone, none (40 rows of
 * 16400); rows of |x| near 1e16, past the long kernel's bound and under the
 * register kernels', which start again in double (an inf in float16).
 * (rows_edge_cases' rows of 20000 take it through its ways off to double.) */
static void ln_case(tabi_dtype dt, tabi_dtype pdt, int64_t rows, int64_t L, int params, double scale,
                         double rtol) {
  int64_t s[2] = {rows, L}, ps[1] = {L};
  double *h = malloc(sizeof(double) * (size_t)(rows * L)), *hp = malloc(sizeof(double) * (size_t)L);
  for (int64_t i = 0; i < rows * L; i++) h[i] = (1000 + urand()) * scale;
  tabi_tensor *g[3] = {NULL, NULL, NULL}, *r[3] = {NULL, NULL, NULL};
  both_tensor(dt, 2, s, h, &g[0], &r[0]);
  for (int k = 1; k < 3; k++) {
    if (!(params & k)) continue; /* 1: weight, 2: bias */
    for (int64_t i = 0; i < L; i++) hp[i] = urand() * 2 - 1;
    both_tensor(pdt, 1, ps, hp, &g[k], &r[k]);
  }
  tabi_value ga[5] = {tabi_tensor_value(g[0]), tabi_int_list(ps, 1), g[1] ? tabi_tensor_value(g[1]) : tabi_none(),
                      g[2] ? tabi_tensor_value(g[2]) : tabi_none(), tabi_float(1e-5)};
  tabi_value ra[5] = {tabi_tensor_value(r[0]), tabi_int_list(ps, 1), r[1] ? tabi_tensor_value(r[1]) : tabi_none(),
                      r[2] ? tabi_tensor_value(r[2]) : tabi_none(), tabi_float(1e-5)};
  for (cmp_out = 0; cmp_out < 3; cmp_out++) compare_built("aten::native_layer_norm", ga, ra, 5, rtol, 1e-5);
  cmp_out = 0;
  for (int k = 0; k < 3; k++) {
    tabi_tensor_release(g[k]);
    tabi_tensor_release(r[k]);
  }
  free(h);
  free(hp);
}
static void ln_long_cases(void) {
  const tabi_dtype fdt[3] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16};
  const double frt[3] = {1.3e-6, 1e-3, 1.6e-2};
  for (int d = 0; d < 3; d++) {
    ln_case(fdt[d], fdt[d], 3, 24576, 3, 1, frt[d]);
    ln_case(fdt[d], TABI_DTYPE_FLOAT32, 3, 24576, 3, 1, frt[d]);
    ln_case(fdt[d], fdt[d], 2, 16392, 2, 1, frt[d]);
    ln_case(fdt[d], fdt[d], 40, 16400, 0, 1, frt[d]);
    ln_case(fdt[d], fdt[d], 2, 16392, 1, 1e13, frt[d]);
  }
}

/* _softmax, _log_softmax and native_layer_norm over rows of every length class
 * of tc_nn.cu: its register kernels' 1, 4, 16 and 32 elements per thread
 * (rows to 512, 2048, 8192 and 16384 elements) on both sides of each bound,
 * the strided kernel past them and along a leading dim, the thread-per-column
 * kernel along a middle dim, rows of special
 * values, and layer norm of data with a large mean (centring must be exact
 * enough that the float32 tolerance holds). Exp is float in the register
 * kernels (within 2 ulp), so softmax keeps the dtype's own tolerance. */
void rows_cases(void) {
  const tabi_dtype fdt[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16};
  const double frt[4] = {1.3e-6, 1e-7, 1e-3, 1.6e-2};
  const int64_t lens[] = {1, 7, 512, 513, 2048, 2049, 8192, 8193, 16384, 16385};
  for (int d = 0; d < 4; d++)
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
      int64_t s[2] = {3, lens[li]}, st[2] = {lens[li], 3}, ns[1] = {lens[li]};
      tabi_value sm[2] = {tabi_int(-1), tabi_bool(0)}, sm0[2] = {tabi_int(0), tabi_bool(0)};
      /* softmax values of a row of L are about 1/L, so the default atol of
         1e-5 would pass them off by 1e-5 L relative (16% at 16384):
         float32 and float64 are held to rtol alone */
      double at = fdt[d] == TABI_DTYPE_FLOAT32 || fdt[d] == TABI_DTYPE_FLOAT64 ? 0 : 1e-5;
      compare("aten::_softmax", fdt[d], 1, 2, s, sm, 2, frt[d], at);
      compare("aten::_log_softmax", fdt[d], 1, 2, s, sm, 2, frt[d], at);
      if (li % 3 == 0) compare("aten::_softmax", fdt[d], 1, 2, st, sm0, 2, frt[d], 1e-5);
      tabi_value ln[4] = {tabi_int_list(ns, 1), tabi_none(), tabi_none(), tabi_float(1e-5)};
      for (cmp_out = 0; cmp_out < 3; cmp_out++)
        compare("aten::native_layer_norm", fdt[d], 1, 2, s, ln, 4, frt[d], 1e-5);
      cmp_out = 0;
    }
  /* rows of special values, at three lengths (one per kernel class) */
  const int64_t slen[3] = {100, 700, 20000};
  for (int d = 0; d < 4; d++)
    for (int li = 0; li < 3; li++) {
      int64_t L = slen[li], s[2] = {6, L};
      double *h = malloc(sizeof(double) * 6 * (size_t)L);
      for (int64_t i = 0; i < L; i++) {
        h[i] = -INFINITY;                             /* all -inf: NaN */
        h[L + i] = i == L / 3 ? NAN : urand();        /* one NaN: NaN */
        h[2 * L + i] = i == L / 2 ? INFINITY : urand(); /* one +inf */
        h[3 * L + i] = i == 1 ? -INFINITY : (urand() - 0.5) * 2e30;
        h[4 * L + i] = 3.0;                           /* all equal: 1/L */
        h[5 * L + i] = urand() * 100 - 50;            /* a wide range of exponents */
      }
      for (int lf = 0; lf < 2; lf++) {
        tabi_tensor *g = NULL, *r = NULL;
        both_tensor(fdt[d], 2, s, h, &g, &r);
        tabi_value ga[3] = {tabi_tensor_value(g), tabi_int(1), tabi_bool(0)};
        tabi_value ra[3] = {tabi_tensor_value(r), tabi_int(1), tabi_bool(0)};
        compare_built(lf ? "aten::_log_softmax" : "aten::_softmax", ga, ra, 3, frt[d], 1e-5);
        tabi_tensor_release(g);
        tabi_tensor_release(r);
      }
      free(h);
    }
  /* along a middle dim with 2048+ columns of 8+ (the thread-per-column
   * kernel), and beside it a dim of 2 columns (the strided one), whose rows
   * are cached in dynamic shared memory while that and the kernel's static
   * 768 bytes fit in 48 KiB (12096 float rows, the bound exactly; 12288, an
   * old bound, made a launch a GPU refuses) */
  for (int d = 0; d < 4; d++) {
    int64_t cached[3] = {1, 12096, 2}, over[3] = {1, 12288, 2};
    compare("aten::_softmax", fdt[d], 1, 3, cached, (tabi_value[]){tabi_int(1), tabi_bool(0)}, 2, frt[d], 1e-5);
    compare("aten::_log_softmax", fdt[d], 1, 3, over, (tabi_value[]){tabi_int(1), tabi_bool(0)}, 2, frt[d], 1e-5);
  }
  for (int d = 0; d < 4; d++) {
    int64_t cs[3] = {4, 37, 512}, ns[3] = {3, 1000, 2};
    compare("aten::_softmax", fdt[d], 1, 3, cs, (tabi_value[]){tabi_int(1), tabi_bool(0)}, 2, frt[d], 1e-5);
    compare("aten::_log_softmax", fdt[d], 1, 3, cs, (tabi_value[]){tabi_int(1), tabi_bool(0)}, 2, frt[d], 1e-5);
    compare("aten::_softmax", fdt[d], 1, 3, ns, (tabi_value[]){tabi_int(1), tabi_bool(0)}, 2, frt[d], 1e-5);
  }
  /* past the register kernels (tc_nn.cu's softmax_long_kernel): rows that
     start off a 16-byte boundary (row r at r * 16389: a head before the
     vectors, a tail after), float16 in and float32 out. A long row's
     softmax values (~1/16389) are all under the default atol of 1e-5, so
     float32 outputs are held to rtol alone. */
  for (int d = 0; d < 4; d++) {
    if (d == 1) continue;
    int64_t ls[2] = {5, 16389};
    double at = fdt[d] == TABI_DTYPE_FLOAT32 ? 0 : 1e-5;
    compare("aten::_softmax", fdt[d], 1, 2, ls, (tabi_value[]){tabi_int(1), tabi_bool(0)}, 2, frt[d], at);
    compare("aten::_log_softmax", fdt[d], 1, 2, ls, (tabi_value[]){tabi_int(1), tabi_bool(0)}, 2, frt[d], at);
  }
  int64_t hl[2] = {3, 20001};
  compare("aten::_softmax", TABI_DTYPE_FLOAT16, 1, 2, hl, (tabi_value[]){tabi_int(1), tabi_bool(1)}, 2, 1.3e-6, 0);
  compare("aten::_log_softmax", TABI_DTYPE_FLOAT16, 1, 2, hl, (tabi_value[]){tabi_int(1), tabi_bool(1)}, 2, 1.3e-6,
          0);
  /* float16 in, float32 out (half_to_float) */
  int64_t hs[2] = {4, 3000};
  compare("aten::_softmax", TABI_DTYPE_FLOAT16, 1, 2, hs, (tabi_value[]){tabi_int(1), tabi_bool(1)}, 2, 1.3e-6,
          1e-5);
  /* layer norm of 1000 + U(0, 1) with float32 weight and bias, beside
   * float32, float16 and bfloat16 inputs (register rows of 3000) */
  for (int d = 0; d < 4; d++)
    if (d != 1) ln_case(fdt[d], TABI_DTYPE_FLOAT32, 4, 3000, 3, 1, frt[d]);
  rows_edge_cases();
  ln_bw_cases();
  ln_long_cases();
}
