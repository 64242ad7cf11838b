/* tests/cuda/test_cuda_ops_nn.c: test_cuda_ops's cases for the network ops:
 * padding/upsampling/col2im (tc_pad_up.cu), pooling (tc_pool.cu), group and
 * layer norm backwards (tc_norm.cu), batch norm (tc_bn.cu) and
 * convolution_backward (tc_conv.cu). GPU only (run from test_cuda_ops.c). */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_harness.h"

/* Pooling backward on both runtimes: self random, grad_output random of the
 * forward's output shape, then bwd(grad_output, self, params[0..nbp), [indices]):
 * max (with_idx) takes the forward's indices, or (random_idx) the same random
 * in-plane indices on both. grad_input must match the reference exactly (the
 * kernels sum in the reference's order, in double). */
static void pool_backward(const char *fwd, const char *bwd, tabi_dtype dt, int32_t nd, const int64_t *shape,
                          const tabi_value *params, int np, int nbp, int with_idx, int random_idx) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  double *hx = malloc(sizeof(double) * (size_t)n), *hg = NULL, *res[2] = {NULL, NULL};
  int64_t *hi = NULL, m = 0, no = 0;
  for (int64_t i = 0; i < n; i++) hx[i] = urand() * 4 - 2;
  for (int k = 0; k < 2; k++) {
    tabi_runtime *rt = k ? ref : gpu;
    DLDevice dev = k ? CPU : CUDA0;
    tabi_tensor *x = upload(rt, dev, dt, nd, shape, hx);
    tabi_value fa[8] = {tabi_tensor_value(x)}, fo[2] = {tabi_none(), tabi_none()}, go_ = tabi_none();
    for (int i = 0; i < np; i++) fa[1 + i] = params[i];
    tabi_op op;
    CHECK_OK(tabi_op_find(rt, fwd, &op));
    CHECK_OK(tabi_call(rt, op, fa, 1 + np, fo, with_idx ? 2 : 1));
    if (!fo[0].u.t) {
      tabi_tensor_release(x);
      break;
    }
    const tabi_tensor *ot = fo[0].u.t;
    if (!hg) { /* the same gradient and random indices on both */
      no = 1;
      for (int32_t i = 0; i < ot->dl.ndim; i++) no *= ot->dl.shape[i];
      hg = malloc(sizeof(double) * (size_t)no + 8);
      hi = malloc(sizeof(int64_t) * (size_t)no + 8);
      int64_t plane = shape[nd - 1] * shape[nd - 2];
      for (int64_t i = 0; i < no; i++) {
        hg[i] = urand() * 4 - 2;
        hi[i] = (int64_t)(urand() * (double)plane);
      }
    }
    tabi_tensor *g = upload(rt, dev, dt, ot->dl.ndim, ot->dl.shape, hg), *ri = NULL;
    if (random_idx)
      CHECK_OK(tabi_tensor_from_host(rt, dev, TABI_DTYPE_INT64, ot->dl.ndim, ot->dl.shape, hi, (uint64_t)no * 8, &ri));
    tabi_value ba[10] = {tabi_tensor_value(g), tabi_tensor_value(x)};
    for (int i = 0; i < nbp; i++) ba[2 + i] = params[i];
    if (with_idx) ba[2 + nbp] = random_idx ? tabi_tensor_value(ri) : fo[1];
    CHECK_OK(tabi_op_find(rt, bwd, &op));
    tabi_status st = tabi_call(rt, op, ba, 2 + nbp + (with_idx ? 1 : 0), &go_, 1);
    CHECK_MSG(st == TABI_OK, "%s%s: %s", bwd, k ? " (reference)" : "", tabi_last_error());
    if (st == TABI_OK) {
      tabi_op cv;
      tabi_op_find(rt, "prims::convert_element_type", &cv);
      tabi_value a[2] = {go_, tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o = tabi_none();
      CHECK_OK(tabi_call(rt, cv, a, 2, &o, 1));
      m = n;
      res[k] = calloc((size_t)n + 1, 8);
      if (o.u.t) CHECK_OK(tabi_tensor_to_host(rt, o.u.t, res[k], (uint64_t)n * 8));
      tabi_value_release(&o);
    }
    tabi_value_release(&go_);
    tabi_value_release(&fo[0]);
    tabi_value_release(&fo[1]);
    tabi_tensor_release(g);
    if (ri) tabi_tensor_release(ri);
    tabi_tensor_release(x);
  }
  if (res[0] && res[1]) {
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < m; i++) {
      int ok = res[0][i] == res[1][i] || (isnan(res[0][i]) && isnan(res[1][i]));
      if (!ok && first < 0) first = i;
      bad += !ok;
    }
    CHECK_MSG(bad == 0, "%s %s%s: %lld of %lld elements differ; first at %lld: %.17g vs %.17g", bwd,
              tabi_dtype_name(dt), random_idx ? " (random indices)" : "", (long long)bad, (long long)m,
              (long long)first, first >= 0 ? res[0][first] : 0.0, first >= 0 ? res[1][first] : 0.0);
  }
  free(hx);
  free(hg);
  free(hi);
  free(res[0]);
  free(res[1]);
}

/* padding, upsampling, col2im (tc_pad_up.cu); copies and nearest are exact */
void padup_cases(void) {
  static const double frt[4] = {1.3e-6, 1e-7, 1e-3, 1.6e-2}; /* float32, float64, float16, bfloat16 */
  /* padding, upsampling, col2im (tc_pad_up.cu); copies and nearest are exact */
  {
    int64_t p3[3] = {2, 5, 7}, p4[4] = {2, 3, 6, 7}, p5[5] = {2, 2, 4, 5, 6};
    int64_t rf1[2] = {3, -1}, rf2[4] = {2, 1, -1, 3}, rf3[6] = {1, 2, 0, 3, 2, 1};
    int64_t rp2[4] = {4, 9, 2, -1}, rp3[6] = {3, 1, 5, 0, 2, 2};
    int64_t os[2] = {9, 14}, os2[2] = {10, 14};
    double sf[2] = {1.7, 0.6};
    int64_t cos_[2] = {9, 8}, cks[2] = {3, 2}, cdl[2] = {1, 2}, cpd[2] = {1, 0}, cst[2] = {2, 1};
    int64_t cshape[3] = {2, 18, 30};
    const tabi_dtype pdt[6] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16,
                               TABI_DTYPE_BFLOAT16, TABI_DTYPE_COMPLEX64, TABI_DTYPE_COMPLEX128};
    for (int d = 0; d < 6; d++) {
      double rt_ = d < 4 ? frt[d] : 1e-6;
      compare("aten::reflection_pad1d", pdt[d], 1, 3, p3, (tabi_value[]){tabi_int_list(rf1, 2)}, 1, 0, 0);
      compare("aten::reflection_pad2d", pdt[d], 1, 4, p4, (tabi_value[]){tabi_int_list(rf2, 4)}, 1, 0, 0);
      compare("aten::reflection_pad3d", pdt[d], 1, 5, p5, (tabi_value[]){tabi_int_list(rf3, 6)}, 1, 0, 0);
      compare("aten::replication_pad2d", pdt[d], 1, 4, p4, (tabi_value[]){tabi_int_list(rp2, 4)}, 1, 0, 0);
      compare("aten::replication_pad3d", pdt[d], 1, 5, p5, (tabi_value[]){tabi_int_list(rp3, 6)}, 1, 0, 0);
      compare("aten::col2im", pdt[d], 1, 3, cshape,
              (tabi_value[]){tabi_int_list(cos_, 2), tabi_int_list(cks, 2), tabi_int_list(cdl, 2),
                             tabi_int_list(cpd, 2), tabi_int_list(cst, 2)}, 5, rt_, 1e-5);
      if (d >= 4) continue;
      compare("aten::upsample_nearest2d.vec", pdt[d], 1, 4, p4, (tabi_value[]){tabi_int_list(os, 2), tabi_none()}, 2, 0, 0);
      compare("aten::upsample_nearest2d.vec", pdt[d], 1, 4, p4, (tabi_value[]){tabi_none(), tabi_float_list(sf, 2)}, 2, 0, 0);
      for (int al = 0; al < 2; al++) {
        compare("aten::upsample_bilinear2d.vec", pdt[d], 1, 4, p4,
                (tabi_value[]){tabi_int_list(os2, 2), tabi_bool(al), tabi_none()}, 3, rt_, 1e-5);
        compare("aten::upsample_bilinear2d.vec", pdt[d], 1, 4, p4,
                (tabi_value[]){tabi_none(), tabi_bool(al), tabi_float_list(sf, 2)}, 3, rt_, 1e-5);
      }
    }
    compare("aten::upsample_nearest2d.vec", TABI_DTYPE_UINT8, 1, 4, p4,
            (tabi_value[]){tabi_int_list(os, 2), tabi_none()}, 2, 0, 0);
    /* their argument errors are the reference's */
    int64_t big[2] = {7, 0}, bad4[4] = {1, 1, 1, 1};
    int64_t s2d[2] = {6, 7}, cbad[3] = {2, 18, 29};
    same_error("aten::reflection_pad1d", 3, p3, (tabi_value[]){tabi_int_list(big, 2)}, 1);
    same_error("aten::reflection_pad2d", 2, p4, (tabi_value[]){tabi_int_list(bad4, 3)}, 1);
    same_error("aten::replication_pad3d", 3, p3, (tabi_value[]){tabi_int_list(rp3, 6)}, 1);
    same_error("aten::upsample_nearest2d.vec", 2, s2d, (tabi_value[]){tabi_int_list(os, 2), tabi_none()}, 2);
    same_error("aten::upsample_bilinear2d.vec", 4, p4,
               (tabi_value[]){tabi_int_list(os, 2), tabi_bool(0), tabi_float_list(sf, 2)}, 3);
    same_error("aten::col2im", 3, cbad,
               (tabi_value[]){tabi_int_list(cos_, 2), tabi_int_list(cks, 2), tabi_int_list(cdl, 2),
                              tabi_int_list(cpd, 2), tabi_int_list(cst, 2)}, 5);
  }
}

/* pooling (tc_pool.cu): exact, as the reference (sums in double in its order) */
void pool_cases(void) {
  static const tabi_dtype fdt[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16,
                                    TABI_DTYPE_BFLOAT16};
  /* pooling (tc_pool.cu): exact, as the reference (sums in double in its order) */
  {
    int64_t x4[4] = {2, 3, 17, 23}, x3[3] = {3, 11, 13}, x5[5] = {2, 2, 7, 9, 8}, xl[4] = {4, 16, 56, 56};
    int64_t k2[2] = {3, 2}, s2_[2] = {2, 1}, p2[2] = {1, 1}, d2[2] = {1, 2}, k3[3] = {3, 2, 3}, s3_[3] = {2, 2, 1},
            p3[3] = {1, 0, 1}, d3[3] = {2, 1, 1}, k1[1] = {4}, s1[1] = {3}, p1[1] = {2}, o1[1] = {5},
            o2[2] = {5, 7}, o3[3] = {3, 4, 5}, kl[2] = {3, 3}, sl[2] = {2, 2}, pl[2] = {1, 1}, dl[2] = {1, 1};
    for (int d = 0; d < 4; d++) {
      for (int ceil = 0; ceil < 2; ceil++) {
        tabi_value mp2[5] = {tabi_int_list(k2, 2), tabi_int_list(s2_, 2), tabi_int_list(p2, 2),
                             tabi_int_list(d2, 2), tabi_bool(ceil)};
        tabi_value mp3[5] = {tabi_int_list(k3, 3), tabi_int_list(s3_, 3), tabi_int_list(p3, 3),
                             tabi_int_list(d3, 3), tabi_bool(ceil)};
        for (cmp_out = 0; cmp_out < 2; cmp_out++) {
          compare("aten::max_pool2d_with_indices", fdt[d], 1, 4, x4, mp2, 5, 0, 0);
          compare("aten::max_pool2d_with_indices", fdt[d], 1, 3, x3, mp2, 5, 0, 0);
          compare("aten::max_pool3d_with_indices", fdt[d], 1, 5, x5, mp3, 5, 0, 0);
        }
        cmp_out = 0;
        for (int cip = 0; cip < 2; cip++)
          for (int dv = 0; dv < 2; dv++) {
            tabi_value ap2[6] = {tabi_int_list(k2, 2), tabi_int_list(s2_, 2), tabi_int_list(p2, 2),
                                 tabi_bool(ceil), tabi_bool(cip), dv ? tabi_int(-3) : tabi_none()};
            tabi_value ap3[6] = {tabi_int_list(k3, 3), tabi_int_list(s3_, 3), tabi_int_list(p3, 3),
                                 tabi_bool(ceil), tabi_bool(cip), dv ? tabi_int(5) : tabi_none()};
            tabi_value ap1[5] = {tabi_int_list(k1, 1), tabi_int_list(s1, 1), tabi_int_list(p1, 1),
                                 tabi_bool(ceil), tabi_bool(cip)};
            compare("aten::avg_pool2d", fdt[d], 1, 4, x4, ap2, 6, 0, 0);
            compare("aten::avg_pool3d", fdt[d], 1, 5, x5, ap3, 6, 0, 0);
            compare("aten::avg_pool1d", fdt[d], 1, 3, x3, ap1, 5, 0, 0);
            pool_backward("aten::avg_pool2d", "aten::avg_pool2d_backward", fdt[d], 4, x4, ap2, 6, 6, 0, 0);
          }
        pool_backward("aten::max_pool2d_with_indices", "aten::max_pool2d_with_indices_backward", fdt[d], 4, x4,
                      mp2, 5, 5, 1, 0);
        pool_backward("aten::max_pool2d_with_indices", "aten::max_pool2d_with_indices_backward", fdt[d], 3, x3,
                      mp2, 5, 5, 1, 1);
      }
      tabi_value a1[1] = {tabi_int_list(o1, 1)}, a2[1] = {tabi_int_list(o2, 2)}, a3[1] = {tabi_int_list(o3, 3)};
      compare("aten::adaptive_avg_pool1d", fdt[d], 1, 3, x3, a1, 1, 0, 0);
      compare("aten::_adaptive_avg_pool2d", fdt[d], 1, 4, x4, a2, 1, 0, 0);
      compare("aten::_adaptive_avg_pool3d", fdt[d], 1, 5, x5, a3, 1, 0, 0);
      pool_backward("aten::_adaptive_avg_pool2d", "aten::_adaptive_avg_pool2d_backward", fdt[d], 4, x4, a2, 1, 0, 0, 0);
    }
    /* int64 average pooling; a ResNet-sized max pool and its backward (past one grid of blocks) */
    tabi_value ap2[6] = {tabi_int_list(k2, 2), tabi_int_list(s2_, 2), tabi_int_list(p2, 2), tabi_bool(1),
                         tabi_bool(0), tabi_none()};
    compare("aten::avg_pool2d", TABI_DTYPE_INT64, 1, 4, x4, ap2, 6, 0, 0);
    pool_backward("aten::avg_pool2d", "aten::avg_pool2d_backward", TABI_DTYPE_INT64, 4, x4, ap2, 6, 6, 0, 0);
    tabi_value mpl[5] = {tabi_int_list(kl, 2), tabi_int_list(sl, 2), tabi_int_list(pl, 2), tabi_int_list(dl, 2),
                         tabi_bool(0)};
    cmp_out = 1;
    compare("aten::max_pool2d_with_indices", TABI_DTYPE_FLOAT32, 1, 4, xl, mpl, 5, 0, 0);
    cmp_out = 0;
    pool_backward("aten::max_pool2d_with_indices", "aten::max_pool2d_with_indices_backward", TABI_DTYPE_FLOAT32, 4,
                  xl, mpl, 5, 5, 1, 0);
    /* their argument errors are the reference's */
    int64_t kbig[2] = {9, 9}, pbad[2] = {2, 2}, oneg[2] = {-1, 2};
    same_error("aten::max_pool2d_with_indices", 4, x4,
               (tabi_value[]){tabi_int_list(k2, 2), tabi_int_list(s2_, 2), tabi_int_list(pbad, 2),
                              tabi_int_list(d2, 2), tabi_bool(0)}, 5);
    same_error("aten::avg_pool2d", 2, o2,
               (tabi_value[]){tabi_int_list(k2, 2), tabi_int_list(s2_, 2), tabi_int_list(p2, 2), tabi_bool(0),
                              tabi_bool(1), tabi_none()}, 6);
    same_error("aten::avg_pool3d", 5, x5,
               (tabi_value[]){tabi_int_list(kbig, 2), tabi_int_list(s2_, 2), tabi_int_list(p2, 2), tabi_bool(0),
                              tabi_bool(1), tabi_int(0)}, 6);
    same_error("aten::_adaptive_avg_pool2d", 4, x4, (tabi_value[]){tabi_int_list(oneg, 2)}, 1);
    /* an index outside the plane: the reference's error */
    {
      int64_t gs[4] = {1, 1, 2, 2}, xs[4] = {1, 1, 3, 3}, iv[4] = {0, 4, 9, -1};
      double gv[4] = {1, 2, 3, 4}, xv[9] = {0};
      int64_t k22[2] = {2, 2}, s11[2] = {1, 1}, p00[2] = {0, 0};
      char msg[2][512];
      tabi_status stt[2];
      for (int k = 0; k < 2; k++) {
        tabi_runtime *rt = k ? ref : gpu;
        DLDevice dev = k ? CPU : CUDA0;
        tabi_tensor *g = NULL, *x = NULL, *ind = NULL;
        CHECK_OK(tabi_tensor_from_host(rt, dev, TABI_DTYPE_FLOAT64, 4, gs, gv, sizeof gv, &g));
        CHECK_OK(tabi_tensor_from_host(rt, dev, TABI_DTYPE_FLOAT64, 4, xs, xv, sizeof xv, &x));
        CHECK_OK(tabi_tensor_from_host(rt, dev, TABI_DTYPE_INT64, 4, gs, iv, sizeof iv, &ind));
        tabi_value a[8] = {tabi_tensor_value(g), tabi_tensor_value(x), tabi_int_list(k22, 2), tabi_int_list(s11, 2),
                           tabi_int_list(p00, 2), tabi_int_list(s11, 2), tabi_bool(0), tabi_tensor_value(ind)};
        tabi_value o = tabi_none();
        tabi_op op;
        tabi_op_find(rt, "aten::max_pool2d_with_indices_backward", &op);
        stt[k] = tabi_call(rt, op, a, 8, &o, 1);
        snprintf(msg[k], sizeof msg[k], "%s", tabi_last_error());
        tabi_value_release(&o);
        tabi_tensor_release(g);
        tabi_tensor_release(x);
        tabi_tensor_release(ind);
      }
      CHECK_MSG(stt[1] == TABI_ERR_INDEX && stt[0] == stt[1] && strcmp(msg[0], msg[1]) == 0,
                "max_pool2d backward bad index: %d \"%s\" vs reference %d \"%s\"", (int)stt[0], msg[0],
                (int)stt[1], msg[1]);
    }
  }
}

void norm_cases(void) {
  /* native_group_norm, native_layer_norm_backward, native_group_norm_backward
   * (tc_norm.cu): the same inputs in both runtimes (mean/rstd given, not
   * recomputed), every output and output_mask against the reference; small
   * cases and ones past a grid of blocks whose set and parameter sums are long
   * enough to be split (tcn_split). The kernels sum in double, in the
   * reference's order or in fixed partials: checked within tolerance. */
  {
    const tabi_dtype ndt[3] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16};
    const double nrt[3] = {1.3e-6, 1e-7, 1e-3};
    for (int d = 0; d < 3; d++)
      for (int big = 0; big < 2; big++) {
        /* layer norm [M, 4, K] over [4, K]; group norm [Nb, C, H, W] */
        int64_t xs[4] = {big ? 1000 : 5, 4, big ? 96 : 33, 1}, ps[2] = {4, xs[2]}, ms[3] = {xs[0], 1, 1};
        int64_t gxs[4] = {big ? 64 : 3, 6, big ? 10 : 5, big ? 20 : 7}, cs[1] = {6}, gms[2] = {gxs[0], 3};
        int64_t nx = xs[0] * 4 * xs[2], ngx = gxs[0] * 6 * gxs[2] * gxs[3], np = 4 * xs[2];
        double *hx = malloc((size_t)(nx > ngx ? nx : ngx) * 8), *hg = malloc((size_t)(nx > ngx ? nx : ngx) * 8);
        double *hm = malloc((size_t)xs[0] * 8 + 8 * 256), *hr = malloc((size_t)xs[0] * 8 + 8 * 256);
        double hw[4 * 96], hb[4 * 96];
        for (int64_t i = 0; i < (nx > ngx ? nx : ngx); i++) {
          hx[i] = urand() * 4 - 2;
          hg[i] = urand() * 2 - 1;
        }
        for (int64_t i = 0; i < xs[0] + 256; i++) {
          hm[i] = urand() - 0.5;
          hr[i] = 0.5 + urand() * 2;
        }
        for (int64_t i = 0; i < np; i++) {
          hw[i] = urand() * 2 - 1;
          hb[i] = urand() * 2 - 1;
        }
        for (int op = 0; op < 3; op++) {
          const char *name = op == 0 ? "aten::native_layer_norm_backward"
                             : op == 1 ? "aten::native_group_norm" : "aten::native_group_norm_backward";
          tabi_tensor *t[2][6]; /* [gpu, ref][x, go, mean, rstd, w, b] */
          both_tensor(ndt[d], op ? 4 : 3, op ? gxs : xs, hx, &t[0][0], &t[1][0]);
          both_tensor(ndt[d], op ? 4 : 3, op ? gxs : xs, hg, &t[0][1], &t[1][1]);
          both_tensor(ndt[d], op ? 2 : 3, op ? gms : ms, hm, &t[0][2], &t[1][2]);
          both_tensor(ndt[d], op ? 2 : 3, op ? gms : ms, hr, &t[0][3], &t[1][3]);
          both_tensor(ndt[d], op ? 1 : 2, op ? cs : ps, hw, &t[0][4], &t[1][4]);
          both_tensor(ndt[d], op ? 1 : 2, op ? cs : ps, hb, &t[0][5], &t[1][5]);
          for (int m = op == 1 ? 7 : 0; m < 8; m++) {
            int64_t mask[3] = {m & 1, (m >> 1) & 1, (m >> 2) & 1};
            tabi_value o[2][3];
            tabi_status st[2];
            for (int k = 0; k < 2; k++) {
              tabi_runtime *rt = k ? ref : gpu;
              tabi_value a[10];
              int na;
              if (op == 0) {
                tabi_value la[8] = {tabi_tensor_value(t[k][1]), tabi_tensor_value(t[k][0]), tabi_int_list(ps, 2),
                                    tabi_tensor_value(t[k][2]), tabi_tensor_value(t[k][3]),
                                    m == 5 ? tabi_none() : tabi_tensor_value(t[k][4]), tabi_tensor_value(t[k][5]),
                                    tabi_bool_list(mask, 3)};
                memcpy(a, la, sizeof la);
                na = 8;
              } else if (op == 1) {
                tabi_value ga[8] = {tabi_tensor_value(t[k][0]), tabi_tensor_value(t[k][4]), tabi_tensor_value(t[k][5]),
                                    tabi_int(gxs[0]), tabi_int(6), tabi_int(gxs[2] * gxs[3]), tabi_int(3),
                                    tabi_float(1e-5)};
                memcpy(a, ga, sizeof ga);
                na = 8;
              } else {
                tabi_value gb[10] = {tabi_tensor_value(t[k][1]), tabi_tensor_value(t[k][0]), tabi_tensor_value(t[k][2]),
                                     tabi_tensor_value(t[k][3]), m == 5 ? tabi_none() : tabi_tensor_value(t[k][4]),
                                     tabi_int(gxs[0]), tabi_int(6), tabi_int(gxs[2] * gxs[3]), tabi_int(3),
                                     tabi_bool_list(mask, 3)};
                memcpy(a, gb, sizeof gb);
                na = 10;
              }
              tabi_op opr;
              CHECK_OK(tabi_op_find(rt, name, &opr));
              for (int i = 0; i < 3; i++) o[k][i] = tabi_none();
              st[k] = tabi_call(rt, opr, a, na, o[k], 3);
              CHECK_MSG(st[k] == TABI_OK, "%s (%s): %s", name, k ? "reference" : "gpu", tabi_last_error());
            }
            for (int i = 0; i < 3 && st[0] == TABI_OK && st[1] == TABI_OK; i++) {
              CHECK_MSG((o[0][i].tag == TABI_TAG_TENSOR) == (o[1][i].tag == TABI_TAG_TENSOR), "%s out %d present", name, i);
              if (o[0][i].tag != TABI_TAG_TENSOR || o[1][i].tag != TABI_TAG_TENSOR) continue;
              char what[160];
              snprintf(what, sizeof what, "%s %s out %d mask %d", name, tabi_dtype_name(ndt[d]), i, m);
              same_tensor(what, o[0][i].u.t, o[1][i].u.t, nrt[d], 1e-5);
            }
            for (int k = 0; k < 2; k++)
              for (int i = 0; i < 3; i++) tabi_value_release(&o[k][i]);
          }
          for (int k = 0; k < 2; k++)
            for (int i = 0; i < 6; i++) tabi_tensor_release(t[k][i]);
        }
        free(hx);
        free(hg);
        free(hm);
        free(hr);
      }
  }
}

/* convolution_backward (tc_conv.cu's direct gathers): every output of a case
 * against the reference's, as float64 within rtol (integers: exactly). */
static void conv_bwd_case(tabi_dtype dt, int32_t ns, int transposed, int64_t groups, const int64_t *ishape,
                          const int64_t *k, const int64_t *s, const int64_t *p, const int64_t *d,
                          const int64_t *op, const int64_t *mask, double rtol) {
  /* rtol is for the direct gathers (tc_convbwd.cuh), which sum in double.
   * Libraries accumulate float32 and the half types in float32, in their own
   * order: the CPU plugin's oneDNN (cuda_ops_cases_on_cpu), cuDNN on CUDA
   * past the half types' size threshold, gpusim_cuda's stand-in. A sum's
   * rounding error is bounded by its length times eps times the sum of its
   * terms' magnitudes, which cancellation leaves far above the result: on an
   * H200 a bfloat16 input gradient of 288 terms near 1 came to 5.34e-05
   * against the reference's 6.48e-05. So there each element may also be off
   * by acc_tol times its sum of |terms| (the reference's convolution_backward
   * of the operands' absolute values: every output is bilinear in them),
   * 16 float32 ulps of that sum (gpusim_cuda's float32 sums reach 0.37 of 8);
   * the direct gathers keep the tight bound. */
  double acc_tol = LIB_ACCUM && (dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_FLOAT16 ||
                                 dt == TABI_DTYPE_BFLOAT16) ? 16 * 0x1p-24 : 0;
  int32_t nd = ns + 2;
  int64_t cin = ishape[1], cout = groups * 2, wshape[5], oshape[5] = {ishape[0], cout};
  wshape[0] = transposed ? cin : cout;
  wshape[1] = transposed ? cout / groups : cin / groups;
  for (int32_t i = 0; i < ns; i++) {
    int64_t span = d[i] * (k[i] - 1) + 1;
    wshape[2 + i] = k[i];
    oshape[2 + i] = transposed ? (ishape[2 + i] - 1) * s[i] - 2 * p[i] + span + op[i]
                               : (ishape[2 + i] + 2 * p[i] - span) / s[i] + 1;
  }
  const int64_t *shp[3] = {oshape, ishape, wshape};
  tabi_tensor *g[3], *r[3];
  for (int t = 0; t < 3; t++) {
    int64_t n = 1;
    for (int32_t i = 0; i < nd; i++) n *= shp[t][i];
    double *h = malloc(sizeof(double) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) h[i] = tabi_dtype_is_floating(dt) ? urand() * 4 - 2 : (double)(int)(urand() * 9) - 4;
    both_tensor(dt, nd, shp[t], h, &g[t], &r[t]);
    free(h);
  }
  int64_t bsz[1] = {cout};
  tabi_value ga[11], ra[11];
  for (int side = 0; side < 2; side++) {
    tabi_value *a = side ? ra : ga;
    tabi_tensor **t = side ? r : g;
    a[0] = tabi_tensor_value(t[0]);
    a[1] = tabi_tensor_value(t[1]);
    a[2] = tabi_tensor_value(t[2]);
    a[3] = tabi_int_list(bsz, 1);
    a[4] = tabi_int_list(s, ns);
    a[5] = tabi_int_list(p, ns);
    a[6] = tabi_int_list(d, ns);
    a[7] = tabi_bool(transposed);
    a[8] = tabi_int_list(op, ns);
    a[9] = tabi_int(groups);
    a[10] = tabi_bool_list(mask, 3);
  }
  tabi_op og, orf;
  CHECK_OK(tabi_op_find(gpu, "aten::convolution_backward", &og));
  CHECK_OK(tabi_op_find(ref, "aten::convolution_backward", &orf));
  tabi_value go[3] = {tabi_none(), tabi_none(), tabi_none()}, ro[3] = {tabi_none(), tabi_none(), tabi_none()};
  tabi_status sg = tabi_call(gpu, og, ga, 11, go, 3);
  CHECK_MSG(sg == TABI_OK, "convolution_backward: %s", tabi_last_error());
  tabi_status sr = tabi_call(ref, orf, ra, 11, ro, 3);
  CHECK_MSG(sr == TABI_OK, "convolution_backward (reference): %s", tabi_last_error());
  tabi_value mo[3] = {tabi_none(), tabi_none(), tabi_none()}; /* sums of |terms|, when acc_tol */
  if (acc_tol > 0) {
    tabi_op ab;
    tabi_value ma[11];
    memcpy(ma, ra, sizeof ma);
    CHECK_OK(tabi_op_find(ref, "prims::abs", &ab));
    for (int t = 0; t < 3; t++) {
      tabi_value x = tabi_tensor_value(r[t]), y = tabi_none();
      CHECK_OK(tabi_call(ref, ab, &x, 1, &y, 1));
      ma[t] = y;
    }
    CHECK_OK(tabi_call(ref, orf, ma, 11, mo, 3));
    for (int t = 0; t < 3; t++) tabi_value_release(&ma[t]);
  }
  for (int o = 0; o < 3 && sg == TABI_OK && sr == TABI_OK; o++) {
    CHECK((go[o].tag == TABI_TAG_TENSOR) == (mask[o] != 0) && (ro[o].tag == TABI_TAG_TENSOR) == (mask[o] != 0));
    if (go[o].tag != TABI_TAG_TENSOR || ro[o].tag != TABI_TAG_TENSOR) continue;
    int64_t m = 1;
    for (int32_t i = 0; i < ro[o].u.t->dl.ndim; i++) m *= ro[o].u.t->dl.shape[i];
    CHECK(go[o].u.t->dl.ndim == ro[o].u.t->dl.ndim);
    tabi_op cg, cr;
    tabi_op_find(gpu, "prims::convert_element_type", &cg);
    tabi_op_find(ref, "prims::convert_element_type", &cr);
    tabi_value a1[2] = {go[o], tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o1 = tabi_none();
    tabi_value a2[2] = {ro[o], tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o2 = tabi_none();
    CHECK_OK(tabi_call(gpu, cg, a1, 2, &o1, 1));
    CHECK_OK(tabi_call(ref, cr, a2, 2, &o2, 1));
    double *x = calloc((size_t)m + 1, 8), *y = calloc((size_t)m + 1, 8), *mag = calloc((size_t)m + 1, 8);
    CHECK_OK(tabi_tensor_to_host(gpu, o1.u.t, x, (uint64_t)m * 8));
    CHECK_OK(tabi_tensor_to_host(ref, o2.u.t, y, (uint64_t)m * 8));
    if (mo[o].tag == TABI_TAG_TENSOR) {
      tabi_value a3[2] = {mo[o], tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o3 = tabi_none();
      CHECK_OK(tabi_call(ref, cr, a3, 2, &o3, 1));
      if (o3.tag == TABI_TAG_TENSOR) CHECK_OK(tabi_tensor_to_host(ref, o3.u.t, mag, (uint64_t)m * 8));
      tabi_value_release(&o3);
    }
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < m; i++) {
      int ok = x[i] == y[i] || (isnan(x[i]) && isnan(y[i])) ||
               fabs(x[i] - y[i]) <= 1e-5 * (rtol > 0) + rtol * fabs(y[i]) + acc_tol * mag[i];
      if (!ok && first < 0) first = i;
      bad += !ok;
    }
    CHECK_MSG(bad == 0, "convolution_backward %s output %d (ns %d, transposed %d, groups %lld): %lld of %lld "
              "elements differ; first at %lld: %.17g vs %.17g", tabi_dtype_name(dt), o, (int)ns, transposed,
              (long long)groups, (long long)bad, (long long)m, (long long)first, first >= 0 ? x[first] : 0.0,
              first >= 0 ? y[first] : 0.0);
    free(x);
    free(y);
    free(mag);
    tabi_value_release(&o1);
    tabi_value_release(&o2);
  }
  for (int t = 0; t < 3; t++) {
    tabi_value_release(&go[t]);
    tabi_value_release(&ro[t]);
    tabi_value_release(&mo[t]);
    tabi_tensor_release(g[t]);
    tabi_tensor_release(r[t]);
  }
}

void conv_bwd_cases(void) {
  const tabi_dtype dts[6] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16,
                             TABI_DTYPE_INT32, TABI_DTYPE_INT64};
  const double rts[6] = {1.3e-6, 1e-7, 1e-3, 1.6e-2, 0, 0};
  const int64_t k[3] = {3, 2, 3}, s[3] = {2, 1, 2}, p[3] = {1, 0, 1}, d[3] = {1, 2, 1}, op[3] = {1, 0, 0};
  const int64_t all[3] = {1, 1, 1}, some[3] = {0, 1, 1}, one[3] = {1, 0, 0};
  const int64_t i1[3] = {2, 4, 29}, i2[4] = {2, 4, 13, 17}, i3[5] = {1, 4, 7, 6, 9};
  const int64_t *ish[3] = {i1, i2, i3};
  for (int dti = 0; dti < 6; dti++)
    for (int32_t ns = 1; ns <= 3; ns++)
      for (int tr = 0; tr < 2; tr++)
        conv_bwd_case(dts[dti], ns, tr, (ns + tr) % 2 ? 2 : 1, ish[ns - 1], k, s, p, d, op,
                      (ns + tr) % 3 == 0 ? all : (ns + tr) % 3 == 1 ? some : one, rts[dti]);
  /* past one grid of blocks (65536 x 128 threads) for grad_input; float64, so
   * CUDA runs the direct kernel too (its cuDNN path takes float32/half only) */
  const int64_t big[4] = {8, 2, 640, 960}, k1[2] = {1, 1}, s1[2] = {1, 1}, p0[2] = {0, 0}, d1[2] = {1, 1};
  conv_bwd_case(TABI_DTYPE_FLOAT64, 2, 0, 1, big, k1, s1, p0, d1, p0, one, 1e-7);
  /* CUDA's cuDNN path (2-D, not transposed): float32 grouped, every output;
   * the half types past the size below which the direct kernel runs */
  conv_bwd_case(TABI_DTYPE_FLOAT32, 2, 0, 2, i2, k, s, p, d, op, all, 1.3e-6);
  const int64_t hin[4] = {8, 32, 64, 64}, k3[2] = {3, 3}, p1[2] = {1, 1};
  conv_bwd_case(TABI_DTYPE_FLOAT16, 2, 0, 1, hin, k3, s1, p1, d1, p0, all, 1e-3);
  conv_bwd_case(TABI_DTYPE_BFLOAT16, 2, 0, 1, hin, k3, s1, p1, d1, p0, all, 1.6e-2);
}

/* The three batch-norm forms (tc_bn.cu): the same inputs in both runtimes,
 * the three outputs and the running statistics (updated in place in training)
 * against the reference; a small case, one with N*S = 1 (NaN running var) and
 * one with many elements per channel (every thread of a block busy). The
 * statistics' tree sums in another order than the reference: tolerance. */
void bn_cases(void) {
  const tabi_dtype dts[3] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16};
  const double rts[3] = {1.3e-6, 1e-7, 1e-3};
  const char *names[3] = {"aten::_native_batch_norm_legit", "aten::_native_batch_norm_legit.no_stats",
                          "aten::_native_batch_norm_legit_no_training"};
  int64_t shapes[3][4] = {{3, 5, 7, 9}, {1, 6, 1, 1}, {16, 4, 64, 64}};
  for (int d = 0; d < 3; d++)
    for (int sh = 0; sh < 3; sh++)
      for (int form = 0; form < 4; form++) { /* 0: legit training, 1: legit evaluation, 2: no_stats, 3: no_training */
        int64_t *xs = shapes[sh], C = xs[1], nx = xs[0] * xs[1] * xs[2] * xs[3];
        double *hx = malloc((size_t)nx * 8), hw[8], hb[8], hm[8], hv[8];
        for (int64_t i = 0; i < nx; i++) hx[i] = urand() * 4 - 2 + (double)(i % C);
        for (int64_t i = 0; i < C; i++) {
          hw[i] = urand() * 2 - 1;
          hb[i] = urand() * 2 - 1;
          hm[i] = urand() - 0.5;
          hv[i] = 0.5 + urand();
        }
        tabi_tensor *t[2][5]; /* [gpu, ref][x, w, b, running_mean, running_var] */
        both_tensor(dts[d], 4, xs, hx, &t[0][0], &t[1][0]);
        both_tensor(dts[d], 1, &C, hw, &t[0][1], &t[1][1]);
        both_tensor(dts[d], 1, &C, hb, &t[0][2], &t[1][2]);
        both_tensor(d == 2 ? TABI_DTYPE_FLOAT32 : dts[d], 1, &C, hm, &t[0][3], &t[1][3]); /* half: mixed */
        both_tensor(d == 2 ? TABI_DTYPE_FLOAT32 : dts[d], 1, &C, hv, &t[0][4], &t[1][4]);
        const char *name = names[form < 2 ? 0 : form - 1];
        tabi_value o[2][3];
        tabi_status st[2];
        for (int k = 0; k < 2; k++) {
          tabi_runtime *rt = k ? ref : gpu;
          tabi_value a[8] = {tabi_tensor_value(t[k][0]), tabi_tensor_value(t[k][1]), tabi_tensor_value(t[k][2])};
          int na;
          if (form == 2) {
            a[3] = tabi_bool(1), a[4] = tabi_float(0.1), a[5] = tabi_float(1e-5), na = 6;
          } else {
            a[3] = tabi_tensor_value(t[k][3]), a[4] = tabi_tensor_value(t[k][4]), na = form == 3 ? 7 : 8;
            if (form == 3) a[5] = tabi_float(0.1), a[6] = tabi_float(1e-5);
            else a[5] = tabi_bool(form == 0), a[6] = tabi_float(0.1), a[7] = tabi_float(1e-5);
          }
          tabi_op op;
          CHECK_OK(tabi_op_find(rt, name, &op));
          for (int i = 0; i < 3; i++) o[k][i] = tabi_none();
          st[k] = tabi_call(rt, op, a, na, o[k], 3);
          CHECK_MSG(st[k] == TABI_OK, "%s (%s): %s", name, k ? "reference" : "gpu", tabi_last_error());
        }
        char what[160];
        for (int i = 0; i < 5 && st[0] == TABI_OK && st[1] == TABI_OK; i++) {
          snprintf(what, sizeof what, "%s %s form %d shape %d: %s %d", name, tabi_dtype_name(dts[d]), form, sh,
                   i < 3 ? "output" : "running stat", i < 3 ? i : i - 3);
          if (i < 3) same_tensor(what, o[0][i].u.t, o[1][i].u.t, rts[d], 1e-5);
          else same_tensor(what, t[0][i], t[1][i], d == 2 ? 1.3e-6 : rts[d], 1e-5);
        }
        for (int k = 0; k < 2; k++) {
          for (int i = 0; i < 3; i++) tabi_value_release(&o[k][i]);
          for (int i = 0; i < 5; i++) tabi_tensor_release(t[k][i]);
        }
        free(hx);
      }
}
