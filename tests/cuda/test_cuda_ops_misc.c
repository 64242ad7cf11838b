/* tests/cuda/test_cuda_ops_misc.c: test_cuda_ops's cases for grid sampling,
 * distances and embeddings (tc_misc.cu), the index ops (tc_idx.cu) and
 * prims::svd (tc_svd.cu), the aten elementwise ops (tc_ew_ops.cu) and
 * native_dropout (tc_random.cu). GPU only (run from test_cuda_ops.c). */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_harness.h"

/* grid_sampler_2d, cdist/pdist, embedding_dense_backward, _embedding_bag (tc_misc.cu). */
void misc_cases(void) {
  const tabi_dtype fdt[2] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64};
  const double frt[2] = {1.3e-6, 1e-7};
  for (int d = 0; d < 2; d++) {
    /* grid_sampler_2d: every interpolation x padding x align_corners */
    int64_t ish[4] = {2, 3, 7, 9}, gsh[4] = {2, 5, 6, 2};
    double ih[2 * 3 * 7 * 9], gh[2 * 5 * 6 * 2];
    for (size_t i = 0; i < sizeof ih / 8; i++) ih[i] = urand() * 4 - 2;
    for (size_t i = 0; i < sizeof gh / 8; i++) gh[i] = i % 7 == 3 ? (double)((int)(urand() * 21) - 10) / 8 : urand() * 2.6 - 1.3;
    tabi_tensor *xg, *xr, *gg, *gr;
    both_tensor(fdt[d], 4, ish, ih, &xg, &xr);
    both_tensor(fdt[d], 4, gsh, gh, &gg, &gr);
    for (int interp = 0; interp < 3; interp++)
      for (int pad = 0; pad < 3; pad++)
        for (int al = 0; al < 2; al++) {
          tabi_value ga[5] = {tabi_tensor_value(xg), tabi_tensor_value(gg), tabi_int(interp), tabi_int(pad), tabi_bool(al)};
          tabi_value ra[5] = {tabi_tensor_value(xr), tabi_tensor_value(gr), tabi_int(interp), tabi_int(pad), tabi_bool(al)};
          compare_built("aten::grid_sampler_2d", ga, ra, 5, frt[d], 1e-5);
        }
    tabi_tensor_release(xg);
    tabi_tensor_release(xr);
    tabi_tensor_release(gg);
    tabi_tensor_release(gr);
    /* cdist (batch broadcast) and pdist, every kind of p */
    int64_t s1[3] = {2, 5, 4}, s2[3] = {1, 6, 4}, sp[2] = {9, 5};
    double h1[40], h2[24], hp[45];
    for (int i = 0; i < 40; i++) h1[i] = urand() * 4 - 2;
    for (int i = 0; i < 24; i++) h2[i] = i < 4 ? h1[i] : urand() * 4 - 2; /* one equal row pair */
    for (int i = 0; i < 45; i++) hp[i] = urand() * 4 - 2;
    tabi_tensor *ag, *ar, *bg, *br, *pg, *pr;
    both_tensor(fdt[d], 3, s1, h1, &ag, &ar);
    both_tensor(fdt[d], 3, s2, h2, &bg, &br);
    both_tensor(fdt[d], 2, sp, hp, &pg, &pr);
    const double ps[6] = {0.0, 1.0, 2.0, INFINITY, 0.5, 3.0};
    for (int p = 0; p < 6; p++) {
      tabi_value ga[4] = {tabi_tensor_value(ag), tabi_tensor_value(bg), tabi_float(ps[p]), tabi_none()};
      tabi_value ra[4] = {tabi_tensor_value(ar), tabi_tensor_value(br), tabi_float(ps[p]), tabi_none()};
      compare_built("aten::_cdist_forward", ga, ra, 4, frt[d], 1e-5);
      tabi_value pa[2] = {tabi_tensor_value(pg), tabi_float(ps[p])};
      tabi_value qa[2] = {tabi_tensor_value(pr), tabi_float(ps[p])};
      compare_built("aten::_pdist_forward", pa, qa, 2, frt[d], 1e-5);
    }
    tabi_tensor_release(ag);
    tabi_tensor_release(ar);
    tabi_tensor_release(bg);
    tabi_tensor_release(br);
    tabi_tensor_release(pg);
    tabi_tensor_release(pr);
  }
  /* embedding_dense_backward: float and integer grads, padding_idx, scale */
  const tabi_dtype edt[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16, TABI_DTYPE_INT32};
  const double ert[4] = {1.3e-6, 1e-7, 1e-3, 0};
  int64_t ishape[2] = {6, 7}, gshape[3] = {6, 7, 5};
  double iv[42], gv[210];
  for (int i = 0; i < 42; i++) iv[i] = (double)(int)(urand() * 10);
  for (int i = 0; i < 210; i++) gv[i] = (double)(int)(urand() * 9) - 4 + 0.25 * (i % 4);
  tabi_tensor *ig, *ir;
  both_tensor(TABI_DTYPE_INT64, 2, ishape, iv, &ig, &ir);
  for (int d = 0; d < 4; d++) {
    tabi_tensor *gg, *gr;
    both_tensor(edt[d], 3, gshape, gv, &gg, &gr);
    for (int k = 0; k < 4; k++) {
      int64_t pad = k < 2 ? -1 : 3;
      int scale = k & 1;
      tabi_value ga[5] = {tabi_tensor_value(gg), tabi_tensor_value(ig), tabi_int(10), tabi_int(pad), tabi_bool(scale)};
      tabi_value ra[5] = {tabi_tensor_value(gr), tabi_tensor_value(ir), tabi_int(10), tabi_int(pad), tabi_bool(scale)};
      compare_built("aten::embedding_dense_backward", ga, ra, 5, ert[d], edt[d] == TABI_DTYPE_INT32 ? 0 : 1e-5);
    }
    /* an index out of range: the reference's status and message */
    tabi_value ga[5] = {tabi_tensor_value(gg), tabi_tensor_value(ig), tabi_int(8), tabi_int(-1), tabi_bool(0)};
    tabi_value ra[5] = {tabi_tensor_value(gr), tabi_tensor_value(ir), tabi_int(8), tabi_int(-1), tabi_bool(0)};
    tabi_op og, orf;
    tabi_value go = tabi_none(), ro = tabi_none();
    CHECK_OK(tabi_op_find(gpu, "aten::embedding_dense_backward", &og));
    CHECK_OK(tabi_op_find(ref, "aten::embedding_dense_backward", &orf));
    tabi_status sr = tabi_call(ref, orf, ra, 5, &ro, 1);
    char rmsg[512];
    snprintf(rmsg, sizeof rmsg, "%s", tabi_last_error());
    tabi_status sg = tabi_call(gpu, og, ga, 5, &go, 1);
    CHECK_MSG(sr != TABI_OK && sg == sr && strcmp(tabi_last_error(), rmsg) == 0, "embedding_dense_backward: "
              "status %d \"%s\", reference %d \"%s\"", (int)sg, tabi_last_error(), (int)sr, rmsg);
    tabi_value_release(&go);
    tabi_value_release(&ro);
    tabi_tensor_release(gg);
    tabi_tensor_release(gr);
  }
  tabi_tensor_release(ig);
  tabi_tensor_release(ir);
  /* _embedding_bag: sum (with and without per_sample_weights), mean, max;
   * every output compared (the index outputs exactly) */
  {
    int64_t wsh[2] = {9, 6}, nsh[1] = {11}, osh[1] = {4};
    double wv[54], idx[11], offs[4] = {0, 3, 3, 7}, pw[11];
    for (int i = 0; i < 54; i++) wv[i] = urand() * 4 - 2;
    for (int i = 0; i < 11; i++) idx[i] = (double)(int)(urand() * 9);
    for (int i = 0; i < 11; i++) pw[i] = urand() * 2 - 1;
    for (int d = 0; d < 2; d++) {
      tabi_tensor *t[8];
      both_tensor(d ? TABI_DTYPE_FLOAT64 : TABI_DTYPE_FLOAT32, 2, wsh, wv, &t[0], &t[1]);
      both_tensor(TABI_DTYPE_INT64, 1, nsh, idx, &t[2], &t[3]);
      both_tensor(TABI_DTYPE_INT64, 1, osh, offs, &t[4], &t[5]);
      both_tensor(d ? TABI_DTYPE_FLOAT64 : TABI_DTYPE_FLOAT32, 1, nsh, pw, &t[6], &t[7]);
      for (int k = 0; k < 5; k++) {
        int mode = k < 2 ? 0 : k - 2, use_psw = k == 1, ilo = k == 4;
        int64_t pad = k == 3 ? (int64_t)idx[0] : -1;
        tabi_value a[2][9];
        for (int r = 0; r < 2; r++) {
          tabi_value v[9] = {tabi_tensor_value(t[r]), tabi_tensor_value(t[2 + r]), tabi_tensor_value(t[4 + r]),
                             tabi_bool(0), tabi_int(mode), tabi_bool(0),
                             use_psw ? tabi_tensor_value(t[6 + r]) : tabi_none(), tabi_bool(ilo), tabi_int(pad)};
          memcpy(a[r], v, sizeof v);
        }
        tabi_op og, orf;
        CHECK_OK(tabi_op_find(gpu, "aten::_embedding_bag", &og));
        CHECK_OK(tabi_op_find(ref, "aten::_embedding_bag", &orf));
        tabi_value go[4] = {tabi_none(), tabi_none(), tabi_none(), tabi_none()};
        tabi_value ro[4] = {tabi_none(), tabi_none(), tabi_none(), tabi_none()};
        tabi_status sg = tabi_call(gpu, og, a[0], 9, go, 4);
        CHECK_MSG(sg == TABI_OK, "_embedding_bag: %s", tabi_last_error());
        tabi_status sr = tabi_call(ref, orf, a[1], 9, ro, 4);
        CHECK_MSG(sr == TABI_OK, "_embedding_bag (reference): %s", tabi_last_error());
        for (int o = 0; sg == TABI_OK && sr == TABI_OK && o < 4; o++) {
          int64_t m = 1;
          for (int32_t i = 0; i < ro[o].u.t->dl.ndim; i++) m *= ro[o].u.t->dl.shape[i];
          int64_t mg = 1;
          for (int32_t i = 0; i < go[o].u.t->dl.ndim; i++) mg *= go[o].u.t->dl.shape[i];
          CHECK_MSG(mg == m, "_embedding_bag mode %d: output %d has %lld elements, reference %lld", mode, o,
                    (long long)mg, (long long)m);
          if (mg != m || m == 0) continue;
          int esz = o == 0 ? (d ? 8 : 4) : 8;
          char *x = calloc((size_t)m + 1, (size_t)esz), *y = calloc((size_t)m + 1, (size_t)esz);
          CHECK_OK(tabi_tensor_to_host(gpu, go[o].u.t, x, (uint64_t)(m * esz)));
          CHECK_OK(tabi_tensor_to_host(ref, ro[o].u.t, y, (uint64_t)(m * esz)));
          int64_t bad = 0;
          for (int64_t i = 0; i < m; i++) {
            if (o > 0) bad += ((int64_t *)x)[i] != ((int64_t *)y)[i];
            else if (d) bad += fabs(((double *)x)[i] - ((double *)y)[i]) > 1e-7 + 1e-7 * fabs(((double *)y)[i]);
            else bad += fabsf(((float *)x)[i] - ((float *)y)[i]) > 1e-5f + 1.3e-6f * fabsf(((float *)y)[i]);
          }
          CHECK_MSG(bad == 0, "_embedding_bag mode %d psw %d: output %d: %lld of %lld differ", mode, use_psw, o,
                    (long long)bad, (long long)m);
          free(x);
          free(y);
        }
        for (int o = 0; o < 4; o++) {
          tabi_value_release(&go[o]);
          tabi_value_release(&ro[o]);
        }
      }
      for (int i = 0; i < 8; i++) tabi_tensor_release(t[i]);
    }
  }
  /* argument errors are the reference's */
  int64_t s3[3] = {2, 3, 4};
  same_error("aten::_pdist_forward", 3, s3, (tabi_value[]){tabi_float(2.0)}, 1);
  same_error("aten::_pdist_forward", 2, s3, (tabi_value[]){tabi_float(-1.0)}, 1);
}

/* scatter_reduce.two (tc_idx.cu): every reduction with and without
 * include_self, heavy duplicates, a transposed src; exact (the kernel runs the
 * reference's order); then a bad index: the reference's status and message.
 * Then masked_scatter, nonzero, index.Tensor, index_put and randperm, exact. */
void idx_cases(void) {
  const tabi_dtype dts[5] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16, TABI_DTYPE_INT32,
                             TABI_DTYPE_INT64};
  static const char *red[5] = {"sum", "prod", "mean", "amax", "amin"};
  int64_t ss[2] = {6, 40}, is[2] = {9, 40}, rs[2] = {40, 9}, iv[360], perm[2] = {1, 0};
  double sv[240], rv[360];
  for (int i = 0; i < 240; i++) sv[i] = i % 17 == 3 ? NAN : (double)(int)(urand() * 8 - 4) / 2;
  for (int i = 0; i < 360; i++) {
    rv[i] = i % 23 == 5 ? -INFINITY : (double)(int)(urand() * 8 - 4) / 2;
    iv[i] = (int64_t)(urand() * 6) % 6;
  }
  tabi_tensor *ig = NULL, *ir = NULL;
  CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_INT64, 2, is, iv, sizeof iv, &ig));
  CHECK_OK(tabi_tensor_from_host(ref, CPU, TABI_DTYPE_INT64, 2, is, iv, sizeof iv, &ir));
  for (int d = 0; d < 5; d++) {
    tabi_tensor *sg, *sr, *rg0, *rr0;
    both_tensor(dts[d], 2, ss, sv, &sg, &sr);
    both_tensor(dts[d], 2, rs, rv, &rg0, &rr0);
    tabi_op pg, pr;
    tabi_op_find(gpu, "aten::permute", &pg);
    tabi_op_find(ref, "aten::permute", &pr);
    tabi_value p1[2] = {tabi_tensor_value(rg0), tabi_int_list(perm, 2)}, q1 = tabi_none();
    tabi_value p2[2] = {tabi_tensor_value(rr0), tabi_int_list(perm, 2)}, q2 = tabi_none();
    CHECK_OK(tabi_call(gpu, pg, p1, 2, &q1, 1));
    CHECK_OK(tabi_call(ref, pr, p2, 2, &q2, 1));
    for (int k = 0; k < 5; k++)
      for (int inc = 0; inc < 2; inc++) {
        tabi_value ga[6] = {tabi_tensor_value(sg), tabi_int(0), tabi_tensor_value(ig), q1,
                            tabi_string(red[k], (int64_t)strlen(red[k])), tabi_bool(inc)};
        tabi_value ra[6] = {tabi_tensor_value(sr), tabi_int(0), tabi_tensor_value(ir), q2,
                            tabi_string(red[k], (int64_t)strlen(red[k])), tabi_bool(inc)};
        compare_built("aten::scatter_reduce.two", ga, ra, 6, 0, 0);
      }
    /* index 6 out of range for a [3, 40] self: the reference's error */
    int64_t s3[2] = {3, 40};
    tabi_tensor *tg, *tr;
    both_tensor(dts[d], 2, s3, sv, &tg, &tr);
    tabi_value ga[6] = {tabi_tensor_value(tg), tabi_int(0), tabi_tensor_value(ig), q1, tabi_string("sum", 3),
                        tabi_bool(1)};
    tabi_value ra[6] = {tabi_tensor_value(tr), tabi_int(0), tabi_tensor_value(ir), q2, tabi_string("sum", 3),
                        tabi_bool(1)};
    tabi_op og, orf;
    tabi_value go = tabi_none(), ro = tabi_none();
    CHECK_OK(tabi_op_find(gpu, "aten::scatter_reduce.two", &og));
    CHECK_OK(tabi_op_find(ref, "aten::scatter_reduce.two", &orf));
    tabi_status str = tabi_call(ref, orf, ra, 6, &ro, 1);
    char rmsg[512];
    snprintf(rmsg, sizeof rmsg, "%s", tabi_last_error());
    tabi_status stg = tabi_call(gpu, og, ga, 6, &go, 1);
    CHECK_MSG(str == TABI_ERR_INDEX && stg == str && strcmp(tabi_last_error(), rmsg) == 0,
              "scatter_reduce.two: status %d \"%s\", reference %d \"%s\"", (int)stg, tabi_last_error(), (int)str,
              rmsg);
    tabi_value_release(&go);
    tabi_value_release(&ro);
    tabi_value_release(&q1);
    tabi_value_release(&q2);
    tabi_tensor_release(tg);
    tabi_tensor_release(tr);
    tabi_tensor_release(sg);
    tabi_tensor_release(sr);
    tabi_tensor_release(rg0);
    tabi_tensor_release(rr0);
  }
  tabi_tensor_release(ig);
  tabi_tensor_release(ir);
  /* nonzero and masked_scatter (a broadcast [40] mask over [6, 40]), exact */
  int64_t ms[1] = {40}, srcs[1] = {300};
  double mv[40], srcv[300];
  for (int i = 0; i < 40; i++) mv[i] = urand() < 0.4;
  for (int i = 0; i < 300; i++) srcv[i] = i * 0.25 - 7;
  for (int d = 0; d < 5; d++) {
    tabi_tensor *sg, *sr, *mg, *mr, *rg, *rr;
    both_tensor(dts[d], 2, ss, sv, &sg, &sr);
    both_tensor(TABI_DTYPE_BOOL, 1, ms, mv, &mg, &mr);
    both_tensor(dts[d], 1, srcs, srcv, &rg, &rr);
    tabi_value ga[3] = {tabi_tensor_value(sg), tabi_tensor_value(mg), tabi_tensor_value(rg)};
    tabi_value ra[3] = {tabi_tensor_value(sr), tabi_tensor_value(mr), tabi_tensor_value(rr)};
    compare_built("aten::masked_scatter", ga, ra, 3, 0, 0);
    compare_built("aten::nonzero", ga, ra, 1, 0, 0);
    compare_built("aten::nonzero", &ga[1], &ra[1], 1, 0, 0);
    tabi_tensor_release(sg);
    tabi_tensor_release(sr);
    tabi_tensor_release(mg);
    tabi_tensor_release(mr);
    tabi_tensor_release(rg);
    tabi_tensor_release(rr);
  }
  /* index.Tensor and index_put: [None, int64 [5, 1] with negatives, int32
   * [7]] over [6, 40, 9] (broadcast [5, 7] after the sliced dim), and a bool
   * mask over the first dim; index_put with duplicates, accumulate both ways */
  {
    int64_t xs[3] = {6, 40, 9}, i1s[2] = {5, 1}, i2s[1] = {7}, mks[1] = {6}, vs[1] = {7};
    double xv[2160], mkv[6] = {1, 0, 1, 1, 0, 1}, vv[7] = {1.5, -2, 3, 0.25, -0.5, 8, 1};
    for (int i = 0; i < 2160; i++) xv[i] = (double)(int)(urand() * 64 - 32) / 4;
    int64_t i1[5] = {0, -1, 39, 5, 0};
    int32_t i2[7] = {1, -9, 8, 0, 1, 1, -1};
    tabi_tensor *xg, *xr, *mg, *mr, *vg, *vr, *a1g = NULL, *a1r = NULL, *a2g = NULL, *a2r = NULL;
    both_tensor(TABI_DTYPE_FLOAT32, 3, xs, xv, &xg, &xr);
    both_tensor(TABI_DTYPE_BOOL, 1, mks, mkv, &mg, &mr);
    both_tensor(TABI_DTYPE_FLOAT32, 1, vs, vv, &vg, &vr);
    CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_INT64, 2, i1s, i1, sizeof i1, &a1g));
    CHECK_OK(tabi_tensor_from_host(ref, CPU, TABI_DTYPE_INT64, 2, i1s, i1, sizeof i1, &a1r));
    CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_INT32, 1, i2s, i2, sizeof i2, &a2g));
    CHECK_OK(tabi_tensor_from_host(ref, CPU, TABI_DTYPE_INT32, 1, i2s, i2, sizeof i2, &a2r));
    tabi_tensor *lg[3] = {NULL, a1g, a2g}, *lr[3] = {NULL, a1r, a2r};
    tabi_tensor *mlg[1] = {mg}, *mlr[1] = {mr};
    for (int k = 0; k < 2; k++) {
      tabi_value ga[4] = {tabi_tensor_value(xg), k ? tabi_tensor_list(mlg, 1) : tabi_tensor_list(lg, 3),
                          tabi_tensor_value(vg), tabi_bool(0)};
      tabi_value ra[4] = {tabi_tensor_value(xr), k ? tabi_tensor_list(mlr, 1) : tabi_tensor_list(lr, 3),
                          tabi_tensor_value(vr), tabi_bool(0)};
      compare_built("aten::index.Tensor", ga, ra, 2, 0, 0);
      if (k == 0) {
        compare_built("aten::index_put", ga, ra, 4, 0, 0);
        ga[3] = ra[3] = tabi_bool(1);
        compare_built("aten::index_put", ga, ra, 4, 0, 0);
      }
    }
    tabi_tensor *ts[10] = {xg, xr, mg, mr, vg, vr, a1g, a1r, a2g, a2r};
    for (int k = 0; k < 10; k++) tabi_tensor_release(ts[k]);
  }
  /* randperm: the reference's numbers for the same seed (CPU generator
   * seeded alike), twice in a row (counter offsets 0 and n) */
  const tabi_dtype rdts[3] = {TABI_DTYPE_INT64, TABI_DTYPE_INT32, TABI_DTYPE_FLOAT32};
  /* 5000 and 8192 take the one-block rounds, 8193 and 300000 the grid-wide
     ones (tc_idx.cu's TCI_RP_BLOCK_N) */
  const int64_t rns[4] = {5000, 8192, 8193, 300000};
  for (int d = 0; d < 3; d++) {
    CHECK_OK(tabi_runtime_manual_seed(gpu, CUDA0, 1234 + d));
    CHECK_OK(tabi_runtime_manual_seed(ref, CPU, 1234 + d));
    for (int rep = 0; rep < 5; rep++) {
      int64_t rn = rep < 4 ? rns[rep] : rns[d]; /* then once more at a later counter offset */
      tabi_value ga[5] = {tabi_int(rn), tabi_dtype_value(rdts[d]), tabi_none(), tabi_device_value(CUDA0), tabi_none()};
      tabi_value ra[5] = {tabi_int(rn), tabi_dtype_value(rdts[d]), tabi_none(), tabi_device_value(CPU), tabi_none()};
      compare_built("aten::randperm", ga, ra, 5, 0, 0);
    }
  }
}

/* prims::svd (tc_svd.cu). The factors are not unique: S against the
 * reference's within the dtype's rtol times the largest singular value, and
 * U diag(S) Vh == A, U^H U == I, Vh Vh^H == I on the device's factors; shapes
 * and dtypes the reference's; non-finite input gives the reference's error. */
static double complex svd_elem(const char *p, tabi_dtype dt, int64_t i) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: return ((const float *)p)[i];
    case TABI_DTYPE_FLOAT64: return ((const double *)p)[i];
    case TABI_DTYPE_COMPLEX64: return CMPLX(((const float *)p)[2 * i], ((const float *)p)[2 * i + 1]);
    default: return CMPLX(((const double *)p)[2 * i], ((const double *)p)[2 * i + 1]);
  }
}
static int svd_esz(tabi_dtype dt) { return dt == TABI_DTYPE_FLOAT32 ? 4 : dt == TABI_DTYPE_COMPLEX128 ? 16 : 8; }
static int64_t svd_numel(const tabi_tensor *t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t->dl.ndim; i++) n *= t->dl.shape[i];
  return n;
}
/* A of dtype dt from random complex128 values (real dtypes keep the real parts) in both runtimes. */
static void svd_input(tabi_dtype dt, int32_t nd, const int64_t *shape, int poison, tabi_tensor **g, tabi_tensor **r) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  double *h = malloc(sizeof(double) * (size_t)(2 * n + 2));
  for (int64_t i = 0; i < 2 * n; i++) h[i] = urand() * 4 - 2;
  if (poison && n > 0) h[2 * (n / 2)] = NAN;
  tabi_tensor *tg = NULL, *tr = NULL;
  CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_COMPLEX128, nd, shape, h, (uint64_t)n * 16, &tg));
  CHECK_OK(tabi_tensor_from_host(ref, CPU, TABI_DTYPE_COMPLEX128, nd, shape, h, (uint64_t)n * 16, &tr));
  free(h);
  convert_pair(tg, tr, dt, g, r);
  tabi_tensor_release(tg);
  tabi_tensor_release(tr);
}
static void svd_case(tabi_dtype dt, int32_t nd, const int64_t *shape, int full, int poison) {
  tabi_tensor *ag = NULL, *ar = NULL;
  svd_input(dt, nd, shape, poison, &ag, &ar);
  if (!ag || !ar) return;
  tabi_op og, orf;
  CHECK_OK(tabi_op_find(gpu, "prims::svd", &og));
  CHECK_OK(tabi_op_find(ref, "prims::svd", &orf));
  tabi_value ga[2] = {tabi_tensor_value(ag), tabi_bool(full)}, ra[2] = {tabi_tensor_value(ar), tabi_bool(full)};
  tabi_value go[3] = {tabi_none(), tabi_none(), tabi_none()}, ro[3] = {tabi_none(), tabi_none(), tabi_none()};
  tabi_status sg = tabi_call(gpu, og, ga, 2, go, 3);
  char gmsg[512];
  snprintf(gmsg, sizeof gmsg, "%s", tabi_last_error());
  tabi_status sr = tabi_call(ref, orf, ra, 2, ro, 3);
  CHECK_MSG(sg == sr, "svd %s: status %d (%s), reference %d (%s)", tabi_dtype_name(dt), (int)sg, gmsg, (int)sr,
            tabi_last_error());
  if (poison) CHECK_MSG(sg == TABI_ERR_INVALID_ARGUMENT && strcmp(gmsg, tabi_last_error()) == 0,
                        "svd non-finite: '%s' vs '%s'", gmsg, tabi_last_error());
  if (sg == TABI_OK && sr == TABI_OK) {
    int32_t d = nd - 2;
    int64_t m = shape[d], n = shape[d + 1], k = ro[1].u.t->dl.shape[d];
    int64_t uc = ro[0].u.t->dl.shape[d + 1], vr = ro[2].u.t->dl.shape[d], batch = 1;
    for (int32_t i = 0; i < nd - 2; i++) batch *= shape[i];
    int same = 1;
    for (int o = 0; o < 3; o++) {
      same = same && go[o].u.t->dl.ndim == ro[o].u.t->dl.ndim && go[o].u.t->dl.dtype.code == ro[o].u.t->dl.dtype.code &&
             go[o].u.t->dl.dtype.bits == ro[o].u.t->dl.dtype.bits;
      for (int32_t i = 0; same && i < ro[o].u.t->dl.ndim; i++) same = go[o].u.t->dl.shape[i] == ro[o].u.t->dl.shape[i];
    }
    CHECK_MSG(same, "svd %s: output shapes/dtypes differ", tabi_dtype_name(dt));
    tabi_dtype sdt = dt == TABI_DTYPE_COMPLEX64 ? TABI_DTYPE_FLOAT32 : dt == TABI_DTYPE_COMPLEX128 ? TABI_DTYPE_FLOAT64 : dt;
    int single = sdt == TABI_DTYPE_FLOAT32;
    char *h[3];
    for (int o = 0; o < 3; o++) {
      uint64_t bytes = (uint64_t)svd_numel(ro[o].u.t) * (uint64_t)svd_esz(o == 1 ? sdt : dt);
      h[o] = calloc(bytes + 16, 1);
      if (same && bytes) CHECK_OK(tabi_tensor_to_host(gpu, go[o].u.t, h[o], bytes));
    }
    const char *a = tabi_tensor_data(ar), *rs = tabi_tensor_data(ro[1].u.t);
    double rtol = single ? 1.3e-6 : 1e-7, bound = single ? 2e-5 : 1e-12, worst[4] = {0, 0, 0, 0};
    for (int64_t b = 0; same && b < batch; b++) {
      double smax = 0, big = 0;
      for (int64_t j = 0; j < k; j++) smax = fmax(smax, creal(svd_elem(rs, sdt, b * k + j)));
      for (int64_t j = 0; j < k; j++)
        worst[0] = fmax(worst[0], cabs(svd_elem(h[1], sdt, b * k + j) - svd_elem(rs, sdt, b * k + j)) / (smax > 0 ? smax : 1));
      double rec = 0;
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
          double complex acc = 0, x = svd_elem(a, dt, b * m * n + i * n + j);
          for (int64_t q = 0; q < k; q++)
            acc += svd_elem(h[0], dt, b * m * uc + i * uc + q) * creal(svd_elem(h[1], sdt, b * k + q)) *
                   svd_elem(h[2], dt, b * vr * n + q * n + j);
          rec = fmax(rec, cabs(acc - x));
          big = fmax(big, cabs(x));
        }
      worst[1] = fmax(worst[1], big > 0 ? rec / big : rec);
      for (int64_t p = 0; p < uc; p++)
        for (int64_t q = 0; q < uc; q++) {
          double complex s = 0;
          for (int64_t i = 0; i < m; i++)
            s += conj(svd_elem(h[0], dt, b * m * uc + i * uc + p)) * svd_elem(h[0], dt, b * m * uc + i * uc + q);
          worst[2] = fmax(worst[2], cabs(s - (p == q)));
        }
      for (int64_t p = 0; p < vr; p++)
        for (int64_t q = 0; q < vr; q++) {
          double complex s = 0;
          for (int64_t j = 0; j < n; j++)
            s += svd_elem(h[2], dt, b * vr * n + p * n + j) * conj(svd_elem(h[2], dt, b * vr * n + q * n + j));
          worst[3] = fmax(worst[3], cabs(s - (p == q)));
        }
    }
    CHECK_MSG(worst[0] <= rtol, "svd %s %lldx%lld: |S - S_ref| / max S = %g", tabi_dtype_name(dt), (long long)m,
              (long long)n, worst[0]);
    for (int r = 1; r < 4; r++)
      CHECK_MSG(worst[r] <= bound, "svd %s %lldx%lld full %d: residual %d = %g (bound %g)", tabi_dtype_name(dt),
                (long long)m, (long long)n, full, r, worst[r], bound);
    for (int o = 0; o < 3; o++) free(h[o]);
  }
  for (int o = 0; o < 3; o++) {
    tabi_value_release(&go[o]);
    tabi_value_release(&ro[o]);
  }
  tabi_tensor_release(ag);
  tabi_tensor_release(ar);
}
void svd_cases(void) {
  const tabi_dtype dts[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_COMPLEX64, TABI_DTYPE_COMPLEX128};
  const int64_t s0[3] = {3, 40, 17}, s1[3] = {2, 13, 33}, s2[2] = {64, 64}, s3[2] = {1, 1}, s4[2] = {0, 5},
                s5[3] = {0, 4, 3}, s6[2] = {300, 20};
  for (int d = 0; d < 4; d++)
    for (int full = 0; full < 2; full++) {
      svd_case(dts[d], 3, s0, full, 0);
      svd_case(dts[d], 3, s1, full, 0);
      svd_case(dts[d], 2, s2, full, 0);
      svd_case(dts[d], 2, s3, full, 0);
      svd_case(dts[d], 2, s4, full, 0);
      svd_case(dts[d], 3, s5, full, 0);
    }
  svd_case(TABI_DTYPE_FLOAT64, 2, s6, 1, 0); /* completion of 280 columns */
  for (int d = 0; d < 4; d++) svd_case(dts[d], 3, s0, 0, 1);
}

/* The aten unary ops the GPU plugins run natively (TC_ATEN_UNARY_LIST, one
 * launch each): activations with their parameters, int-to-float promotion,
 * bool results, complex, and the reference's messages for bad arguments. */
void aten_unary_cases(void) {
  const int64_t s[3] = {3, 517, 129};
  const tabi_dtype fdt[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16};
  const double frt[4] = {1.3e-6, 1e-7, 1e-3, 1.6e-2};
  for (int d = 0; d < 4; d++) {
    compare("aten::gelu", fdt[d], 1, 3, s, (tabi_value[]){tabi_string("none", 4)}, 1, frt[d], 1e-5);
    compare("aten::gelu", fdt[d], 1, 3, s, (tabi_value[]){tabi_string("tanh", 4)}, 1, frt[d], 1e-5);
    compare("aten::sigmoid", fdt[d], 1, 3, s, NULL, 0, frt[d], 1e-5);
    compare("aten::relu", fdt[d], 1, 3, s, NULL, 0, 0, 0);
    compare("aten::elu", fdt[d], 1, 3, s, (tabi_value[]){tabi_float(1.5), tabi_float(1.0507), tabi_float(0.8)}, 3,
            frt[d], 1e-5);
    compare("aten::leaky_relu", fdt[d], 1, 3, s, (tabi_value[]){tabi_float(0.02)}, 1, frt[d], 1e-5);
    compare("aten::tanh", fdt[d], 1, 3, s, NULL, 0, frt[d], 1e-5);
    compare("aten::erf", fdt[d], 1, 3, s, NULL, 0, frt[d], 1e-5);
  }
  compare("aten::sigmoid", TABI_DTYPE_INT32, 1, 3, s, NULL, 0, 1.3e-6, 1e-5); /* float32 result */
  compare("aten::exp", TABI_DTYPE_UINT8, 1, 3, s, NULL, 0, 1.3e-6, 1e-5);
  compare("aten::abs", TABI_DTYPE_INT64, 1, 3, s, NULL, 0, 0, 0);
  compare("aten::relu", TABI_DTYPE_INT16, 1, 3, s, NULL, 0, 0, 0);
  compare("aten::bitwise_not", TABI_DTYPE_INT32, 1, 3, s, NULL, 0, 0, 0);
  compare("aten::logical_not", TABI_DTYPE_FLOAT32, 1, 3, s, NULL, 0, 0, 0);
  compare("aten::isnan", TABI_DTYPE_FLOAT16, 1, 3, s, NULL, 0, 0, 0);
  compare("aten::sigmoid", TABI_DTYPE_COMPLEX64, 1, 3, s, NULL, 0, 1.3e-6, 1e-5);
  compare("aten::sqrt", TABI_DTYPE_COMPLEX128, 1, 3, s, NULL, 0, 1e-7, 1e-7);
  compare("aten::round", TABI_DTYPE_FLOAT32, 1, 3, s, NULL, 0, 0, 0);
  same_error("aten::gelu", 3, s, (tabi_value[]){tabi_string("tan", 3)}, 1);
  same_error("aten::bitwise_not", 3, s, NULL, 0);
  same_error("aten::leaky_relu", 3, s, (tabi_value[]){tabi_float(1e300)}, 1);
}

/* The aten binary ops run natively (TC_ATEN_BINARY_OPS): Scalar operands in
 * the launch parameters, alpha, promotion, rounding modes, broadcasting. */
void aten_binary_cases(void) {
  const int64_t s[3] = {3, 517, 129};
  compare("aten::add.Scalar", TABI_DTYPE_FLOAT32, 1, 3, s, (tabi_value[]){tabi_float(2.5), tabi_int(1)}, 2, 1.3e-6, 1e-5);
  compare("aten::add.Scalar", TABI_DTYPE_BFLOAT16, 1, 3, s, (tabi_value[]){tabi_float(0.1), tabi_float(3)}, 2, 1.6e-2, 1e-5);
  compare("aten::sub.Tensor", TABI_DTYPE_FLOAT64, 2, 3, s, (tabi_value[]){tabi_float(0.5)}, 1, 1e-7, 1e-7);
  compare("aten::sub.Scalar", TABI_DTYPE_INT32, 1, 3, s, (tabi_value[]){tabi_int(7), tabi_int(3)}, 2, 0, 0);
  compare("aten::mul.Scalar", TABI_DTYPE_INT16, 1, 3, s, (tabi_value[]){tabi_int(3)}, 1, 0, 0);
  compare("aten::mul.Scalar", TABI_DTYPE_INT64, 1, 3, s, (tabi_value[]){tabi_float(0.25)}, 1, 1.3e-6, 1e-5); /* float32 */
  compare("aten::div.Scalar", TABI_DTYPE_INT64, 1, 3, s, (tabi_value[]){tabi_int(3)}, 1, 1.3e-6, 1e-5);
  compare("aten::div.Tensor_mode", TABI_DTYPE_FLOAT32, 2, 3, s, (tabi_value[]){tabi_string("floor", 5)}, 1, 1.3e-6, 1e-5);
  compare("aten::div.Scalar_mode", TABI_DTYPE_INT32, 1, 3, s, (tabi_value[]){tabi_int(-3), tabi_string("floor", 5)}, 2, 0, 0);
  compare("aten::div.Scalar_mode", TABI_DTYPE_FLOAT16, 1, 3, s, (tabi_value[]){tabi_float(0.3), tabi_string("trunc", 5)}, 2, 1e-3, 1e-5);
  compare("aten::pow.Tensor_Scalar", TABI_DTYPE_FLOAT32, 1, 3, s, (tabi_value[]){tabi_int(2)}, 1, 1.3e-6, 1e-5);
  compare("aten::pow.Tensor_Scalar", TABI_DTYPE_FLOAT64, 1, 3, s, (tabi_value[]){tabi_float(0.5)}, 1, 1e-7, 1e-7);
  compare("aten::pow.Tensor_Scalar", TABI_DTYPE_COMPLEX64, 1, 3, s, (tabi_value[]){tabi_float(-0.5)}, 1, 1.3e-6, 1e-5);
  compare("aten::pow.Tensor_Tensor", TABI_DTYPE_FLOAT32, 2, 3, s, NULL, 0, 1.3e-6, 1e-5);
  compare("aten::remainder.Scalar", TABI_DTYPE_FLOAT32, 1, 3, s, (tabi_value[]){tabi_float(-1.5)}, 1, 1.3e-6, 1e-5);
  compare("aten::fmod.Tensor", TABI_DTYPE_FLOAT64, 2, 3, s, NULL, 0, 1e-7, 1e-7);
  compare("aten::atan2", TABI_DTYPE_FLOAT16, 2, 3, s, NULL, 0, 1e-3, 1e-5);
  compare("aten::maximum", TABI_DTYPE_BFLOAT16, 2, 3, s, NULL, 0, 0, 0);
  compare("aten::minimum", TABI_DTYPE_INT8, 2, 3, s, NULL, 0, 0, 0);
  compare("aten::eq.Scalar", TABI_DTYPE_INT32, 1, 3, s, (tabi_value[]){tabi_int(1)}, 1, 0, 0);
  compare("aten::lt.Tensor", TABI_DTYPE_FLOAT64, 2, 3, s, NULL, 0, 0, 0);
  compare("aten::ge.Scalar", TABI_DTYPE_FLOAT16, 1, 3, s, (tabi_value[]){tabi_float(0.5)}, 1, 0, 0);
  compare("aten::bitwise_xor.Scalar", TABI_DTYPE_INT16, 1, 3, s, (tabi_value[]){tabi_int(5)}, 1, 0, 0);
  compare("aten::bitwise_and.Tensor", TABI_DTYPE_UINT8, 2, 3, s, NULL, 0, 0, 0);
  compare("aten::logical_and", TABI_DTYPE_FLOAT32, 2, 3, s, NULL, 0, 0, 0);
  compare("aten::logical_xor", TABI_DTYPE_COMPLEX128, 2, 3, s, NULL, 0, 0, 0);
  /* broadcasting: [3, 1, 129] against [517, 1] */
  {
    const int64_t sa[3] = {3, 1, 129}, sb[2] = {517, 1};
    double *ha = malloc(sizeof(double) * 3 * 129), *hb = malloc(sizeof(double) * 517);
    for (int i = 0; i < 3 * 129; i++) ha[i] = urand() * 4 - 2;
    for (int i = 0; i < 517; i++) hb[i] = urand() * 4 - 2;
    tabi_tensor *ga = NULL, *ra = NULL, *gb = NULL, *rb = NULL;
    both_tensor(TABI_DTYPE_FLOAT32, 3, sa, ha, &ga, &ra);
    both_tensor(TABI_DTYPE_FLOAT16, 2, sb, hb, &gb, &rb); /* promotes to float32 */
    tabi_value gv[3] = {tabi_tensor_value(ga), tabi_tensor_value(gb), tabi_float(-2)};
    tabi_value rv[3] = {tabi_tensor_value(ra), tabi_tensor_value(rb), tabi_float(-2)};
    compare_built("aten::add.Tensor", gv, rv, 3, 1.3e-6, 1e-5);
    compare_built("aten::gt.Tensor", gv, rv, 2, 0, 0);
    tabi_tensor_release(ga);
    tabi_tensor_release(ra);
    tabi_tensor_release(gb);
    tabi_tensor_release(rb);
    free(ha);
    free(hb);
  }
  /* clamp and hardtanh with Scalar bounds; where.self with promotion and broadcasting */
  compare("aten::clamp", TABI_DTYPE_FLOAT32, 1, 3, s, (tabi_value[]){tabi_float(-0.5), tabi_float(0.75)}, 2, 0, 0);
  compare("aten::clamp", TABI_DTYPE_INT32, 1, 3, s, (tabi_value[]){tabi_none(), tabi_float(0.5)}, 2, 0, 0);
  compare("aten::clamp", TABI_DTYPE_BFLOAT16, 1, 3, s, (tabi_value[]){tabi_float(NAN), tabi_float(1)}, 2, 0, 0);
  compare("aten::hardtanh", TABI_DTYPE_FLOAT16, 1, 3, s, (tabi_value[]){tabi_float(-1), tabi_float(1)}, 2, 0, 0);
  compare("aten::hardtanh", TABI_DTYPE_INT64, 1, 3, s, (tabi_value[]){tabi_float(-1.5), tabi_float(0.9)}, 2, 0, 0);
  {
    const int64_t sc[3] = {3, 517, 1}, sx[3] = {3, 517, 129}, sy[1] = {129};
    double *hc = malloc(sizeof(double) * 3 * 517), *hx = malloc(sizeof(double) * 3 * 517 * 129),
           *hy = malloc(sizeof(double) * 129);
    for (int i = 0; i < 3 * 517; i++) hc[i] = urand() < 0.5 ? 0 : 1;
    for (int i = 0; i < 3 * 517 * 129; i++) hx[i] = urand() * 4 - 2;
    for (int i = 0; i < 129; i++) hy[i] = urand() * 4 - 2;
    tabi_tensor *gc, *rc, *gx, *rx, *gy, *ry;
    both_tensor(TABI_DTYPE_BOOL, 3, sc, hc, &gc, &rc);
    both_tensor(TABI_DTYPE_FLOAT16, 3, sx, hx, &gx, &rx);
    both_tensor(TABI_DTYPE_FLOAT64, 1, sy, hy, &gy, &ry); /* promotes to float64 */
    tabi_value gv[3] = {tabi_tensor_value(gc), tabi_tensor_value(gx), tabi_tensor_value(gy)};
    tabi_value rv[3] = {tabi_tensor_value(rc), tabi_tensor_value(rx), tabi_tensor_value(ry)};
    compare_built("aten::where.self", gv, rv, 3, 0, 0);
    tabi_tensor *t[6] = {gc, rc, gx, rx, gy, ry};
    for (int k = 0; k < 6; k++) tabi_tensor_release(t[k]);
    free(hc);
    free(hx);
    free(hy);
  }
  /* clamp.Tensor: three random tensors (bounds cross, so both rules show), one
   * bound, broadcast bounds of other dtypes (promotion), NaN in every operand */
  compare("aten::clamp.Tensor", TABI_DTYPE_FLOAT32, 3, 3, s, NULL, 0, 0, 0);
  compare("aten::clamp.Tensor", TABI_DTYPE_INT16, 3, 3, s, NULL, 0, 0, 0);
  compare("aten::clamp.Tensor", TABI_DTYPE_BFLOAT16, 2, 3, s, (tabi_value[]){tabi_none()}, 1, 0, 0);
  compare("aten::clamp.Tensor", TABI_DTYPE_BOOL, 2, 3, s, (tabi_value[]){tabi_none()}, 1, 0, 0);
  {
    const int64_t sx[3] = {3, 517, 129}, slo[2] = {517, 1}, shi[1] = {129};
    double *hx = malloc(sizeof(double) * 3 * 517 * 129), *hl = malloc(sizeof(double) * 517),
           *hh = malloc(sizeof(double) * 129);
    for (int i = 0; i < 3 * 517 * 129; i++) hx[i] = i % 101 == 7 ? NAN : urand() * 4 - 2;
    for (int i = 0; i < 517; i++) hl[i] = i % 37 == 3 ? NAN : urand() * 2 - 1.5;
    for (int i = 0; i < 129; i++) hh[i] = i % 29 == 4 ? NAN : urand() * 2 - 0.5;
    tabi_tensor *gx, *rx, *gl, *rl, *gh, *rh;
    both_tensor(TABI_DTYPE_FLOAT16, 3, sx, hx, &gx, &rx);
    both_tensor(TABI_DTYPE_FLOAT32, 2, slo, hl, &gl, &rl);
    both_tensor(TABI_DTYPE_FLOAT64, 1, shi, hh, &gh, &rh); /* all promote to float64 */
    tabi_value gv[3] = {tabi_tensor_value(gx), tabi_tensor_value(gl), tabi_tensor_value(gh)};
    tabi_value rv[3] = {tabi_tensor_value(rx), tabi_tensor_value(rl), tabi_tensor_value(rh)};
    compare_built("aten::clamp.Tensor", gv, rv, 3, 0, 0);
    gv[1] = rv[1] = tabi_none(); /* max only */
    compare_built("aten::clamp.Tensor", gv, rv, 3, 0, 0);
    gv[1] = tabi_tensor_value(gl);
    rv[1] = tabi_tensor_value(rl);
    gv[2] = rv[2] = tabi_none(); /* min only */
    compare_built("aten::clamp.Tensor", gv, rv, 3, 0, 0);
    tabi_tensor *t[6] = {gx, rx, gl, rl, gh, rh};
    for (int k = 0; k < 6; k++) tabi_tensor_release(t[k]);
    free(hx);
    free(hl);
    free(hh);
  }
  same_error("aten::clamp.Tensor", 3, s, (tabi_value[]){tabi_none(), tabi_none()}, 2);
  same_error("aten::clamp", 3, s, (tabi_value[]){tabi_none(), tabi_none()}, 2);
  same_error("aten::div.Scalar_mode", 3, s, (tabi_value[]){tabi_float(2), tabi_string("round", 5)}, 2);
  same_error("aten::bitwise_and.Scalar", 3, s, (tabi_value[]){tabi_int(1)}, 1);
  same_error("aten::add.Scalar", 3, s, (tabi_value[]){tabi_float(1), tabi_complex(1, 1)}, 2);
}

/* native_dropout (tc_random.cu, one pass): output and mask against the
 * reference's for the same seed, bit for bit (the draw, the comparison and the
 * product in double are exact), in every float dtype and complex64, with p at
 * 0, 1 and between, train true/None/false, a transposed (non-contiguous)
 * input, NaN inputs (NaN * 0 stays NaN), an empty input (its mask takes the
 * input's dtype), two draws in a row (the counters advance), float32's
 * four-a-thread kernel beside the general one, and the reference's errors. */
static void dropout_case(tabi_dtype dt, int32_t nd, const int64_t *shape, int transpose, double p,
                         tabi_value train) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  double *h = malloc(sizeof(double) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; i++) h[i] = i % 17 == 5 ? NAN : urand() * 4 - 2;
  tabi_tensor *g = NULL, *r = NULL;
  both_tensor(dt, nd, shape, h, &g, &r);
  free(h);
  if (transpose && g && r) {
    int64_t perm[2] = {1, 0};
    both_permute(&g, &r, 2, perm);
  }
  tabi_op og, orf;
  CHECK_OK(tabi_op_find(gpu, "aten::native_dropout", &og));
  CHECK_OK(tabi_op_find(ref, "aten::native_dropout", &orf));
  tabi_value ga[3] = {tabi_tensor_value(g), tabi_float(p), train};
  tabi_value ra[3] = {tabi_tensor_value(r), tabi_float(p), train};
  tabi_value go[2] = {tabi_none(), tabi_none()}, ro[2] = {tabi_none(), tabi_none()};
  tabi_status sg = tabi_call(gpu, og, ga, 3, go, 2);
  CHECK_MSG(sg == TABI_OK, "native_dropout: %s", tabi_last_error());
  CHECK_OK(tabi_call(ref, orf, ra, 3, ro, 2));
  if (sg == TABI_OK) {
    char what[160];
    for (int k = 0; k < 2; k++) {
      snprintf(what, sizeof what, "native_dropout %s p=%g %s output %d", tabi_dtype_name(dt), p,
               transpose ? "transposed" : "", k);
      same_tensor(what, go[k].u.t, ro[k].u.t, 0, 0);
    }
    if (tabi_dtype_is_complex(dt)) { /* same_tensor compares real parts; now the imaginary */
      tabi_op ig, ir;
      tabi_op_find(gpu, "prims::imag", &ig);
      tabi_op_find(ref, "prims::imag", &ir);
      tabi_value i1 = tabi_none(), i2 = tabi_none();
      CHECK_OK(tabi_call(gpu, ig, &go[0], 1, &i1, 1));
      CHECK_OK(tabi_call(ref, ir, &ro[0], 1, &i2, 1));
      same_tensor("native_dropout imaginary parts", i1.u.t, i2.u.t, 0, 0);
      tabi_value_release(&i1);
      tabi_value_release(&i2);
    }
  }
  for (int k = 0; k < 2; k++) {
    tabi_value_release(&go[k]);
    tabi_value_release(&ro[k]);
  }
  tabi_tensor_release(g);
  tabi_tensor_release(r);
}

void dropout_cases(void) {
  const tabi_dtype dts[5] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16,
                             TABI_DTYPE_BFLOAT16, TABI_DTYPE_COMPLEX64};
  int64_t s2[2] = {67, 45}, e1[1] = {0};
  for (int d = 0; d < 5; d++) {
    CHECK_OK(tabi_runtime_manual_seed(gpu, CUDA0, 77 + d));
    CHECK_OK(tabi_runtime_manual_seed(ref, CPU, 77 + d));
    dropout_case(dts[d], 2, s2, 0, 0.3, tabi_bool(1));
    dropout_case(dts[d], 2, s2, 1, 0.3, tabi_none()); /* None trains; counters moved on */
    dropout_case(dts[d], 2, s2, 0, 0.0, tabi_bool(1));
    dropout_case(dts[d], 2, s2, 0, 1.0, tabi_bool(1));
    dropout_case(dts[d], 2, s2, 1, 0.5, tabi_bool(0));
    dropout_case(dts[d], 1, e1, 0, 0.5, tabi_bool(1));
  }
  /* probabilities no float holds (the float32 kernel tests the draw's 24
     bits against ceil(p 2^24)); a length of 4k + 1 (one left to the
     general kernel) */
  int64_t s41[1] = {4001};
  CHECK_OK(tabi_runtime_manual_seed(gpu, CUDA0, 90));
  CHECK_OK(tabi_runtime_manual_seed(ref, CPU, 90));
  dropout_case(TABI_DTYPE_FLOAT32, 1, s41, 0, 1.0 / 3.0, tabi_bool(1));
  dropout_case(TABI_DTYPE_FLOAT32, 2, s2, 0, 0.1, tabi_bool(1));
  dropout_case(TABI_DTYPE_FLOAT32, 2, s2, 0, 0.7 + 1e-12, tabi_bool(1));
  same_error("aten::native_dropout", 2, s2, (tabi_value[]){tabi_float(1.5), tabi_bool(1)}, 2);
  same_error("aten::native_dropout", 2, s2, (tabi_value[]){tabi_float(NAN), tabi_none()}, 2);
  { /* an integer input: the reference's dtype error */
    int64_t s[1] = {4};
    double h[4] = {1, 2, 3, 4};
    tabi_tensor *g = NULL, *r = NULL;
    both_tensor(TABI_DTYPE_INT32, 1, s, h, &g, &r);
    tabi_op og, orf;
    tabi_op_find(gpu, "aten::native_dropout", &og);
    tabi_op_find(ref, "aten::native_dropout", &orf);
    tabi_value ga[3] = {tabi_tensor_value(g), tabi_float(0.5), tabi_bool(1)};
    tabi_value ra[3] = {tabi_tensor_value(r), tabi_float(0.5), tabi_bool(1)};
    tabi_value go[2] = {tabi_none(), tabi_none()}, ro[2] = {tabi_none(), tabi_none()};
    tabi_status sr = tabi_call(ref, orf, ra, 3, ro, 2);
    char rmsg[512];
    snprintf(rmsg, sizeof rmsg, "%s", tabi_last_error());
    tabi_status sg = tabi_call(gpu, og, ga, 3, go, 2);
    CHECK_MSG(sr == TABI_ERR_TYPE && sg == sr && strcmp(tabi_last_error(), rmsg) == 0,
              "native_dropout int32: %d \"%s\", reference %d \"%s\"", (int)sg, tabi_last_error(),
              (int)sr, rmsg);
    tabi_tensor_release(g);
    tabi_tensor_release(r);
  }
}
