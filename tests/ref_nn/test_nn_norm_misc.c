/* tests/ref_nn/test_nn_norm_misc.c: softmax, norms, dropout, upsampling,
 * grid_sampler_2d and embeddings of the reference plugin. Expected values are
 * torch 1.13's (A = torch.ops.aten; x = tensor([[1.,2,4],[0,-1,3]])). */
#include "nn_helpers.h"

static void test_softmax(void) {
  tabi_tensor *x = t_make(TABI_DTYPE_FLOAT32, 2, SHP(2, 3), (const double[]){1, 2, 4, 0, -1, 3});
  /* A._softmax(x, 1, False); A._log_softmax(x, 0, False); the first on a strided copy */
  tabi_tensor *xn = t_noncontig(x);
  tabi_tensor *r = h_call1("aten::_softmax", (tabi_value[]){TV(xn), tabi_int(1), tabi_bool(0)}, 3, NULL);
  t_free(xn);
  CHECK_CLOSE(r, 1e-6, 0.04201006516814232, 0.11419519037008286, 0.8437947034835815, 0.04661262035369873,
              0.01714782603085041, 0.9362395405769348);
  t_free(r);
  r = h_call1("aten::_log_softmax", (tabi_value[]){TV(x), tabi_int(0), tabi_bool(0)}, 3, NULL);
  CHECK_CLOSE(r, 1e-6, -0.31326165795326233, -0.04858732968568802, -0.31326165795326233, -1.31326162815094,
              -3.0485873222351074, -1.31326162815094);
  t_free(r);
  /* all -inf row -> nan; [-inf, 1] -> [0, 1] and log [-inf, 0]; 0-d -> 1 */
  tabi_tensor *ni = t_make(TABI_DTYPE_FLOAT64, 2, SHP(2, 2), (const double[]){-INFINITY, -INFINITY, -INFINITY, 1});
  r = h_call1("aten::_softmax", (tabi_value[]){TV(ni), tabi_int(-1), tabi_bool(0)}, 3, NULL);
  CHECK_CLOSE(r, 0, NAN, NAN, 0, 1);
  t_free(r);
  r = h_call1("aten::_log_softmax", (tabi_value[]){TV(ni), tabi_int(-1), tabi_bool(0)}, 3, NULL);
  CHECK(r && isnan(t_get(r, 0)) && t_get(r, 2) == -INFINITY && t_get(r, 3) == 0);
  t_free(r);
  tabi_tensor *z = t_make(TABI_DTYPE_FLOAT32, 0, NULL, (const double[]){5});
  r = h_call1("aten::_softmax", (tabi_value[]){TV(z), tabi_int(0), tabi_bool(0)}, 3, NULL);
  CHECK_CLOSE(r, 0, 1);
  t_free(r);
  /* half_to_float: float16 in, float32 out (ATen's rule; 1.13 CPU refuses it) */
  tabi_tensor *h = t_make(TABI_DTYPE_FLOAT16, 1, SHP(2), (const double[]){0, 0});
  r = h_call1("aten::_softmax", (tabi_value[]){TV(h), tabi_int(0), tabi_bool(1)}, 3, NULL);
  CHECK(r && tabi_tensor_dtype(r) == TABI_DTYPE_FLOAT32);
  CHECK_CLOSE(r, 0, 0.5, 0.5);
  t_free(r);
  tabi_value o[1];
  CHECK_ERR(h_call("aten::_softmax", (tabi_value[]){TV(x), tabi_int(0), tabi_bool(1)}, 3, o, 1), TABI_ERR_TYPE, "half_to_float");
  CHECK_ERR(h_call("aten::_softmax", (tabi_value[]){TV(x), tabi_int(2), tabi_bool(0)}, 3, o, 1), TABI_ERR_INDEX, "dim");
  tabi_tensor *l = t_make(TABI_DTYPE_INT64, 1, SHP(2), NULL);
  CHECK_ERR(h_call("aten::_softmax", (tabi_value[]){TV(l), tabi_int(0), tabi_bool(0)}, 3, o, 1), TABI_ERR_TYPE, "self");
  tabi_tensor *all[] = {x, ni, z, h, l};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) t_free(all[i]);
}

static void test_norms(void) {
  tabi_tensor *x = t_make(TABI_DTYPE_FLOAT32, 2, SHP(2, 3), (const double[]){1, 2, 4, 0, -1, 3});
  tabi_tensor *w = t_make(TABI_DTYPE_FLOAT32, 1, SHP(3), (const double[]){1, 2, 0.5});
  tabi_tensor *b = t_make(TABI_DTYPE_FLOAT32, 1, SHP(3), (const double[]){0, 1, 0});
  tabi_value o[3];
  /* A.native_layer_norm(x, [3], w, b, 1e-5): mean/rstd are [2, 1] */
  CHECK_OK(h_call("aten::native_layer_norm", (tabi_value[]){TV(x), IL(3), TV(w), TV(b), tabi_float(1e-5)}, 5, o, 3));
  CHECK_CLOSE(o[0].u.t, 1e-5, -1.06904137134552, 0.46547937393188477, 0.6681509017944336, -0.3922315537929535,
              -0.9611577987670898, 0.6864053010940552);
  CHECK(t_shape_is(o[1].u.t, 2, SHP(2, 1)));
  CHECK_CLOSE(o[1].u.t, 1e-6, 2.3333332538604736, 0.6666666269302368);
  CHECK_CLOSE(o[2].u.t, 1e-6, 0.8017810583114624, 0.5883473753929138);
  /* A.native_layer_norm_backward(g, x, [3], mean, rstd, w, b, [True]*3) */
  tabi_tensor *g = t_make(TABI_DTYPE_FLOAT32, 2, SHP(2, 3), (const double[]){0.5, -1, 2, 1, 1, 1});
  tabi_value ob[3];
  CHECK_OK(h_call("aten::native_layer_norm_backward", (tabi_value[]){TV(g), TV(x), IL(3), o[1], o[2], TV(w), TV(b),
                  BL(1, 1, 1)}, 8, ob, 3));
  CHECK_CLOSE(ob[0].u.t, 1e-5, 0.9163186550140381, -1.3744823932647705, 0.4581637978553772, -0.22628700733184814,
              0.1697167158126831, 0.056570231914520264);
  CHECK_CLOSE(ob[1].u.t, 1e-5, -0.9267522096633911, -0.7133185863494873, 4.045413970947266);
  CHECK_CLOSE(ob[2].u.t, 1e-6, 1.5, 0.0, 3.0);
  outs_free(ob, 3);
  outs_free(o, 3);
  tabi_value o1[3];
  /* "Given normalized_shape=[2], expected input with shape [*, 2]" */
  CHECK_ERR(h_call("aten::native_layer_norm", (tabi_value[]){TV(x), IL(2), tabi_none(), tabi_none(), tabi_float(1e-5)}, 5, o1, 3),
            TABI_ERR_SHAPE, "normalized_shape");
  /* batch norm, training: running stats updated in place with the unbiased variance:
   * rm=zeros(2); rv=ones(2); A.native_batch_norm(tensor([[1.,2],[3,5],[0,-1]]), tensor([2.,1]), None, rm, rv, True, 0.1, 1e-5) */
  tabi_tensor *xb = t_make(TABI_DTYPE_FLOAT32, 2, SHP(3, 2), (const double[]){1, 2, 3, 5, 0, -1});
  tabi_tensor *wb = t_make(TABI_DTYPE_FLOAT32, 1, SHP(2), (const double[]){2, 1});
  tabi_tensor *rm = t_make(TABI_DTYPE_FLOAT32, 1, SHP(2), (const double[]){0, 0});
  tabi_tensor *rv = t_make(TABI_DTYPE_FLOAT32, 1, SHP(2), (const double[]){1, 1});
  CHECK_OK(h_call("aten::_native_batch_norm_legit", (tabi_value[]){TV(xb), TV(wb), tabi_none(), TV(rm), TV(rv),
                  tabi_bool(1), tabi_float(0.1), tabi_float(1e-5)}, 8, o, 3));
  CHECK_CLOSE(o[0].u.t, 1e-5, -0.5345208644866943, 0.0, 2.6726038455963135, 1.2247438430786133, -2.1380832195281982,
              -1.2247438430786133);
  CHECK_CLOSE(o[1].u.t, 1e-6, 1.3333333730697632, 2.0);
  CHECK_CLOSE(o[2].u.t, 1e-6, 0.801781177520752, 0.4082479476928711);
  CHECK_CLOSE(rm, 1e-6, 0.13333334028720856, 0.20000000298023224);
  CHECK_CLOSE(rv, 1e-6, 1.1333333253860474, 1.7999999523162842);
  outs_free(o, 3);
  /* evaluation uses the running stats and returns empty save_mean/invstd */
  CHECK_OK(h_call("aten::_native_batch_norm_legit_no_training", (tabi_value[]){TV(xb), tabi_none(), tabi_none(), TV(rm),
                  TV(rv), tabi_float(0.1), tabi_float(0)}, 7, o, 3));
  CHECK(o[0].u.t && fabs(t_get(o[0].u.t, 0) - (1 - 0.13333334028720856) / sqrt(1.1333333253860474)) < 1e-5);
  CHECK(t_shape_is(o[1].u.t, 1, SHP(0)) && t_shape_is(o[2].u.t, 1, SHP(0)));
  outs_free(o, 3);
  /* evaluation without running stats is refused (torch 1.13 segfaults on it) */
  CHECK_ERR(h_call("aten::_native_batch_norm_legit.no_stats", (tabi_value[]){TV(xb), tabi_none(), tabi_none(),
                   tabi_bool(0), tabi_float(0.1), tabi_float(1e-5)}, 6, o, 3), TABI_ERR_INVALID_ARGUMENT, "running_mean");
  /* group norm: A.native_group_norm(arange(8.).reshape(1,4,2), None, None, 1, 4, 2, 2, 1e-5) */
  tabi_tensor *xg = t_make(TABI_DTYPE_FLOAT32, 3, SHP(1, 4, 2), NULL);
  CHECK_OK(h_call("aten::native_group_norm", (tabi_value[]){TV(xg), tabi_none(), tabi_none(), tabi_int(1), tabi_int(4),
                  tabi_int(2), tabi_int(2), tabi_float(1e-5)}, 8, o, 3));
  CHECK_CLOSE(o[0].u.t, 1e-5, -1.3416354656219482, -0.4472118318080902, 0.4472118318080902, 1.3416354656219482,
              -1.3416354656219482, -0.4472118318080902, 0.4472118318080902, 1.3416354656219482);
  CHECK(t_shape_is(o[1].u.t, 2, SHP(1, 2)));
  CHECK_CLOSE(o[1].u.t, 1e-6, 1.5, 5.5);
  outs_free(o, 3);
  /* "Expected number of channels in input to be divisible by num_groups" */
  CHECK_ERR(h_call("aten::native_group_norm", (tabi_value[]){TV(xg), tabi_none(), tabi_none(), tabi_int(1), tabi_int(4),
                   tabi_int(2), tabi_int(3), tabi_float(1e-5)}, 8, o, 3), TABI_ERR_INVALID_ARGUMENT, "divisible");
  tabi_tensor *all[] = {x, w, b, g, xb, wb, rm, rv, xg};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) t_free(all[i]);
}

static void test_dropout(void) {
  tabi_tensor *x = t_make(TABI_DTYPE_FLOAT32, 1, SHP(1000), NULL);
  tabi_value o[2];
  /* p = 1: all dropped: A.native_dropout(ones(4), 1.0, None) == zeros, mask False (None means train) */
  CHECK_OK(h_call("aten::native_dropout", (tabi_value[]){TV(x), tabi_float(1), tabi_none()}, 3, o, 2));
  CHECK(o[1].u.t && tabi_tensor_dtype(o[1].u.t) == TABI_DTYPE_BOOL && t_get(o[1].u.t, 7) == 0 && t_get(o[0].u.t, 7) == 0);
  outs_free(o, 2);
  /* p = 0.5: about half kept, kept ones scaled by 2; same seed, same mask */
  tabi_runtime_manual_seed(nn_rt, nn_cpu, 42);
  CHECK_OK(h_call("aten::native_dropout", (tabi_value[]){TV(x), tabi_float(0.5), tabi_bool(1)}, 3, o, 2));
  int kept = 0, ok = 1;
  for (int i = 0; i < 1000; i++) {
    int m = t_get(o[1].u.t, i) != 0;
    kept += m;
    ok = ok && t_get(o[0].u.t, i) == (m ? 2.0 * i : 0.0);
  }
  CHECK_MSG(kept > 420 && kept < 580 && ok, "kept %d", kept);
  tabi_value o2[2];
  tabi_runtime_manual_seed(nn_rt, nn_cpu, 42);
  CHECK_OK(h_call("aten::native_dropout", (tabi_value[]){TV(x), tabi_float(0.5), tabi_bool(1)}, 3, o2, 2));
  int same = 1;
  for (int i = 0; i < 1000; i++) same = same && t_get(o[1].u.t, i) == t_get(o2[1].u.t, i);
  CHECK(same);
  outs_free(o, 2);
  outs_free(o2, 2);
  /* train False: clone and all-true mask */
  CHECK_OK(h_call("aten::native_dropout", (tabi_value[]){TV(x), tabi_float(0.5), tabi_bool(0)}, 3, o, 2));
  CHECK(t_get(o[0].u.t, 9) == 9 && t_get(o[1].u.t, 9) == 1);
  outs_free(o, 2);
  /* bernoulli_ expects p to be in [0, 1] */
  CHECK_ERR(h_call("aten::native_dropout", (tabi_value[]){TV(x), tabi_float(1.5), tabi_bool(1)}, 3, o, 2), TABI_ERR_INVALID_ARGUMENT, "'p'");
  t_free(x);
}

static void test_sampling(void) {
  tabi_tensor *u = t_make(TABI_DTYPE_FLOAT32, 4, SHP(1, 1, 2, 3), NULL);
  double sf[2] = {1.7, 1.5};
  /* A.upsample_nearest2d(arange(6.).reshape(1,1,2,3), None, [1.7, 1.5]) */
  tabi_tensor *r = h_call1("aten::upsample_nearest2d.vec", (tabi_value[]){TV(u), tabi_none(), tabi_float_list(sf, 2)}, 3, NULL);
  CHECK(t_shape_is(r, 4, SHP(1, 1, 3, 4)));
  CHECK_CLOSE(r, 0, 0, 0, 1, 2, 0, 0, 1, 2, 3, 3, 4, 5);
  t_free(r);
  /* A.upsample_bilinear2d(u, [3,4], False, None) and align_corners=True */
  r = h_call1("aten::upsample_bilinear2d.vec", (tabi_value[]){TV(u), IL(3, 4), tabi_bool(0), tabi_none()}, 4, NULL);
  CHECK_CLOSE(r, 1e-6, 0.0, 0.625, 1.375, 2.0, 1.5, 2.125, 2.875, 3.5, 3.0, 3.625, 4.375, 5.0);
  t_free(r);
  r = h_call1("aten::upsample_bilinear2d.vec", (tabi_value[]){TV(u), IL(3, 4), tabi_bool(1), tabi_none()}, 4, NULL);
  CHECK_CLOSE(r, 1e-6, 0.0, 0.6666666865348816, 1.3333333730697632, 2.0, 1.5, 2.1666667461395264, 2.8333334922790527,
              3.5, 3.0, 3.6666667461395264, 4.333333492279053, 5.0);
  t_free(r);
  tabi_value o[1];
  CHECK_ERR(h_call("aten::upsample_nearest2d.vec", (tabi_value[]){TV(u), IL(3, 3), tabi_float_list(sf, 2)}, 3, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "exactly one of output_size and scale_factors");
  /* grid_sampler_2d over gi = arange(12.).reshape(1,1,3,4), grid [[-1,-1],[.3,.2],[1.2,-.7]]:
   * A.grid_sampler_2d(gi, grid, mode, pad, align) for each mode/padding/align */
  tabi_tensor *gi = t_make(TABI_DTYPE_FLOAT32, 4, SHP(1, 1, 3, 4), NULL);
  tabi_tensor *grid = t_make(TABI_DTYPE_FLOAT32, 4, SHP(1, 1, 3, 2), (const double[]){-1, -1, 0.3, 0.2, 1.2, -0.7});
  static const double want[3][3][2][3] = {
      {{{0.0, 7.300000190734863, 0.2849997580051422}, {0.0, 6.749999523162842, 2.9399991035461426}},
       {{0.0, 7.300000190734863, 3.0}, {0.0, 6.749999523162842, 4.199999809265137}},
       {{0.0, 7.300000190734863, 3.0}, {0.0, 6.749999523162842, 3.8999998569488525}}},
      {{{0.0, 6.0, 0.0}, {0.0, 6.0, 3.0}}, {{0.0, 6.0, 3.0}, {0.0, 6.0, 3.0}}, {{0.0, 6.0, 3.0}, {0.0, 6.0, 3.0}}},
      {{{-0.234375, 8.240264892578125, 0.23171257972717285}, {0.0, 7.254910469055176, 3.192241907119751}},
       {{-0.46875, 7.699742794036865, 2.8713746070861816}, {0.0, 7.016626834869385, 4.0372514724731445}},
       {{-0.9375, 7.699742794036865, 2.9249963760375977}, {0.0, 7.1126251220703125, 3.364501714706421}}}};
  for (int m = 0; m < 3; m++)
    for (int p = 0; p < 3; p++)
      for (int a = 0; a < 2; a++) {
        r = h_call1("aten::grid_sampler_2d", (tabi_value[]){TV(gi), TV(grid), tabi_int(m), tabi_int(p), tabi_bool(a)}, 5, NULL);
        CHECK_MSG(t_close(r, want[m][p][a], 3, 1e-5), "grid_sampler mode %d padding %d align %d", m, p, a);
        t_free(r);
      }
  tabi_tensor *all[] = {u, gi, grid};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) t_free(all[i]);
}

static void test_embedding(void) {
  tabi_tensor *w = t_make(TABI_DTYPE_FLOAT32, 2, SHP(6, 2), NULL);
  tabi_tensor *idx = t_make(TABI_DTYPE_INT64, 1, SHP(6), (const double[]){1, 2, 4, 5, 4, 3});
  tabi_tensor *off = t_make(TABI_DTYPE_INT64, 1, SHP(4), (const double[]){0, 2, 2, 4});
  tabi_tensor *r = h_call1("aten::embedding", (tabi_value[]){TV(w), TV(idx)}, 2, NULL);
  CHECK(t_shape_is(r, 2, SHP(6, 2)) && t_get(r, 4) == 8 && t_get(r, 11) == 7);
  t_free(r);
  tabi_value o[4];
  tabi_tensor *bad = t_make(TABI_DTYPE_INT64, 1, SHP(1), (const double[]){6});
  CHECK_ERR(h_call("aten::embedding", (tabi_value[]){TV(w), TV(bad)}, 2, o, 1), TABI_ERR_INDEX, "indices");
  /* int64 rows are copied exactly (ATen's index_select): through a double,
   * INT64_MAX came back as INT64_MIN and 2^53 + 1 as 2^53 (random_calls, seed 267) */
  tabi_tensor *wi = t_make(TABI_DTYPE_INT64, 2, SHP(3, 1), NULL);
  int64_t *wd = tabi_tensor_data(wi);
  wd[0] = INT64_MAX;
  wd[1] = INT64_MIN;
  wd[2] = ((int64_t)1 << 53) + 1;
  tabi_tensor *ii = t_make(TABI_DTYPE_INT64, 1, SHP(3), (const double[]){2, 0, 1});
  r = h_call1("aten::embedding", (tabi_value[]){TV(wi), TV(ii)}, 2, NULL);
  const int64_t *rd = r ? tabi_tensor_data(r) : NULL;
  CHECK(rd && rd[0] == ((int64_t)1 << 53) + 1 && rd[1] == INT64_MAX && rd[2] == INT64_MIN);
  t_free(r);
  t_free(wi);
  t_free(ii);
  /* A.embedding_dense_backward(ones(3,2), tensor([0,2,2]), 4, 0, True) == [[0,0],[0,0],[1,1],[0,0]] */
  tabi_tensor *g = t_make(TABI_DTYPE_FLOAT32, 2, SHP(3, 2), (const double[]){1, 1, 1, 1, 1, 1});
  tabi_tensor *i3 = t_make(TABI_DTYPE_INT64, 1, SHP(3), (const double[]){0, 2, 2});
  r = h_call1("aten::embedding_dense_backward", (tabi_value[]){TV(g), TV(i3), tabi_int(4), tabi_int(0), tabi_bool(1)}, 5, NULL);
  CHECK_CLOSE(r, 0, 0, 0, 0, 0, 1, 1, 0, 0);
  t_free(r);
  /* A._embedding_bag(arange(12.).reshape(6,2), idx, off, False, mode, False, None, False, -1) */
  for (int mode = 0; mode < 3; mode++) {
    CHECK_OK(h_call("aten::_embedding_bag", (tabi_value[]){TV(w), TV(idx), TV(off), tabi_bool(0), tabi_int(mode),
                    tabi_bool(0), tabi_none(), tabi_bool(0), tabi_int(-1)}, 9, o, 4));
    if (mode == 0) {
      CHECK_CLOSE(o[0].u.t, 0, 6, 8, 0, 0, 18, 20, 14, 16);
      CHECK(t_shape_is(o[1].u.t, 1, SHP(0))); /* the sum fast path builds no offset2bag */
      CHECK_CLOSE(o[2].u.t, 0, 0, 0, 0, 0);
    } else if (mode == 1) {
      CHECK_CLOSE(o[0].u.t, 0, 3, 4, 0, 0, 9, 10, 7, 8);
      CHECK_CLOSE(o[1].u.t, 0, 0, 0, 2, 2, 3, 3);
      CHECK_CLOSE(o[2].u.t, 0, 2, 0, 2, 2);
      CHECK_CLOSE(o[3].u.t, 0, 2, 0, 2, 2);
    } else {
      CHECK_CLOSE(o[0].u.t, 0, 4, 5, 0, 0, 10, 11, 8, 9);
      CHECK(t_shape_is(o[3].u.t, 2, SHP(4, 2)));
      CHECK_CLOSE(o[3].u.t, 0, 2, 2, 0, 0, 5, 5, 4, 4);
    }
    outs_free(o, 4);
  }
  /* padding_idx=4 with max: [[4,5],[0,0],[10,11],[6,7]], bag_size [2,0,1,1], max_indices rows 2,0,5,3 */
  CHECK_OK(h_call("aten::_embedding_bag", (tabi_value[]){TV(w), TV(idx), TV(off), tabi_bool(0), tabi_int(2),
                  tabi_bool(0), tabi_none(), tabi_bool(0), tabi_int(4)}, 9, o, 4));
  CHECK_CLOSE(o[0].u.t, 0, 4, 5, 0, 0, 10, 11, 6, 7);
  CHECK_CLOSE(o[2].u.t, 0, 2, 0, 1, 1);
  CHECK_CLOSE(o[3].u.t, 0, 2, 2, 0, 0, 5, 5, 3, 3);
  outs_free(o, 4);
  /* per_sample_weights: [[10,13],[0,0],[64,71],[76,87]] */
  tabi_tensor *psw = t_make(TABI_DTYPE_FLOAT32, 1, SHP(6), (const double[]){1, 2, 3, 4, 5, 6});
  CHECK_OK(h_call("aten::_embedding_bag", (tabi_value[]){TV(w), TV(idx), TV(off), tabi_bool(0), tabi_int(0),
                  tabi_bool(0), TV(psw), tabi_bool(0), tabi_int(-1)}, 9, o, 4));
  CHECK_CLOSE(o[0].u.t, 0, 10, 13, 0, 0, 64, 71, 76, 87);
  outs_free(o, 4);
  /* "per_sample_weights only supported with mode='sum'" */
  CHECK_ERR(h_call("aten::_embedding_bag", (tabi_value[]){TV(w), TV(idx), TV(off), tabi_bool(0), tabi_int(1),
                   tabi_bool(0), TV(psw), tabi_bool(0), tabi_int(-1)}, 9, o, 4), TABI_ERR_INVALID_ARGUMENT, "mode sum");
  tabi_tensor *all[] = {w, idx, off, bad, g, i3, psw};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) t_free(all[i]);
}

/* ATen's rules behind two results that depend on dtype and layout. */
static void test_embedding_dtype_rules(void) {
  tabi_value o[4];
  tabi_tensor *w = t_make(TABI_DTYPE_FLOAT32, 2, SHP(6, 2), NULL);
  tabi_tensor *w64 = t_make(TABI_DTYPE_FLOAT64, 2, SHP(6, 2), NULL), *wn = t_noncontig(w);
  tabi_tensor *idx = t_make(TABI_DTYPE_INT64, 1, SHP(6), (const double[]){1, 2, 4, 5, 4, 3});
  tabi_tensor *off = t_make(TABI_DTYPE_INT64, 1, SHP(4), (const double[]){0, 2, 2, 4});
  tabi_tensor *psw = t_make(TABI_DTYPE_FLOAT32, 1, SHP(6), (const double[]){1, 2, 3, 4, 5, 6});
  tabi_tensor *pswn = t_noncontig(psw);
  /* offset2bag is skipped only on the sum fast path (is_fast_path: float32/16 weight with
   * stride(1) == 1, per_sample_weights stride(0) == 1, no padding_idx):
   * A._embedding_bag(arange(12.).reshape(6,2).double(), idx, off, False, 0, False, None, False, -1)[1]
   *   == [0, 0, 2, 2, 3, 3]; the same with a (4, 2)-strided float32 weight, or a float32
   * weight and per_sample_weights of stride 2, too; contiguous float32: [] */
  tabi_value cases[3][2] = {{TV(w64), tabi_none()}, {TV(wn), tabi_none()}, {TV(w), TV(pswn)}};
  for (int c = 0; c < 3; c++) {
    CHECK_OK(h_call("aten::_embedding_bag", (tabi_value[]){cases[c][0], TV(idx), TV(off), tabi_bool(0),
                    tabi_int(0), tabi_bool(0), cases[c][1], tabi_bool(0), tabi_int(-1)}, 9, o, 4));
    CHECK(t_shape_is(o[1].u.t, 1, SHP(6)));
    CHECK_CLOSE(o[1].u.t, 0, 0, 0, 2, 2, 3, 3);
    if (c < 2) CHECK_CLOSE(o[0].u.t, 0, 6, 8, 0, 0, 18, 20, 14, 16);
    else CHECK_CLOSE(o[0].u.t, 0, 10, 13, 0, 0, 64, 71, 76, 87);
    outs_free(o, 4);
  }
  CHECK_OK(h_call("aten::_embedding_bag", (tabi_value[]){TV(w), TV(idx), TV(off), tabi_bool(0), tabi_int(0),
                  tabi_bool(0), TV(psw), tabi_bool(0), tabi_int(-1)}, 9, o, 4));
  CHECK(t_shape_is(o[1].u.t, 1, SHP(0)));
  outs_free(o, 4);
  /* Integer grads: ATen adds with alpha = Scalar(1.0 / count).to<int>(), 0 for a repeated row.
   * g = tensor([[1,2],[3,4],[5,6]], dtype=int32), i3 = tensor([0,2,2]):
   * A.embedding_dense_backward(g, i3, 4, -1, True) == [[1,2],[0,0],[0,0],[0,0]]
   * A.embedding_dense_backward(g, i3, 4, -1, False) == [[1,2],[0,0],[8,10],[0,0]]
   * A.embedding_dense_backward(g.float(), i3, 4, -1, True) == [[1,2],[0,0],[4,5],[0,0]] */
  tabi_tensor *g = t_make(TABI_DTYPE_INT32, 2, SHP(3, 2), (const double[]){1, 2, 3, 4, 5, 6});
  tabi_tensor *gf = t_make(TABI_DTYPE_FLOAT32, 2, SHP(3, 2), (const double[]){1, 2, 3, 4, 5, 6});
  tabi_tensor *i3 = t_make(TABI_DTYPE_INT64, 1, SHP(3), (const double[]){0, 2, 2});
  tabi_tensor *r = h_call1("aten::embedding_dense_backward", (tabi_value[]){TV(g), TV(i3), tabi_int(4), tabi_int(-1), tabi_bool(1)}, 5, NULL);
  CHECK(r && tabi_tensor_dtype(r) == TABI_DTYPE_INT32);
  CHECK_CLOSE(r, 0, 1, 2, 0, 0, 0, 0, 0, 0);
  t_free(r);
  r = h_call1("aten::embedding_dense_backward", (tabi_value[]){TV(g), TV(i3), tabi_int(4), tabi_int(-1), tabi_bool(0)}, 5, NULL);
  CHECK_CLOSE(r, 0, 1, 2, 0, 0, 8, 10, 0, 0);
  t_free(r);
  r = h_call1("aten::embedding_dense_backward", (tabi_value[]){TV(gf), TV(i3), tabi_int(4), tabi_int(-1), tabi_bool(1)}, 5, NULL);
  CHECK_CLOSE(r, 0, 1, 2, 0, 0, 4, 5, 0, 0);
  t_free(r);
  /* uint8 sums wrap: gu = tensor([[200,100],[100,100],[7,9]], dtype=uint8), i4 = tensor([1,1,3]):
   * A.embedding_dense_backward(gu, i4, 4, -1, False) == [[0,0],[44,200],[0,0],[7,9]] */
  tabi_tensor *gu = t_make(TABI_DTYPE_UINT8, 2, SHP(3, 2), (const double[]){200, 100, 100, 100, 7, 9});
  tabi_tensor *i4 = t_make(TABI_DTYPE_INT64, 1, SHP(3), (const double[]){1, 1, 3});
  r = h_call1("aten::embedding_dense_backward", (tabi_value[]){TV(gu), TV(i4), tabi_int(4), tabi_int(-1), tabi_bool(0)}, 5, NULL);
  CHECK_CLOSE(r, 0, 0, 0, 44, 200, 0, 0, 7, 9);
  t_free(r);
  tabi_tensor *all[] = {w, w64, wn, idx, off, psw, pswn, g, gf, i3, gu, i4};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) t_free(all[i]);
}

int main(void) {
  nn_setup();
  if (!nn_rt) return check_report();
  test_softmax();
  test_norms();
  test_dropout();
  test_sampling();
  test_embedding();
  test_embedding_dtype_rules();
  tabi_runtime_destroy(nn_rt);
  return check_report();
}
