/* tests/autocast/test_autocast.c: the autocast plugin's policies, regions,
 * thread-locality, cast cache and gradient scaler ops, through the reference
 * backend. Expected dtypes come from PyTorch's lists (autocast.md), values from
 * the same op run on explicitly cast inputs. */
#include <pthread.h>

#include <tabi/ext_autocast.h>
#include <tabi/ext_autograd.h>

#include "check.h"
#include "ft_util.h"

static tabi_runtime *rt;
static const tabi_autocast_api *ac;
static const tabi_autograd_api *ag;
static uint64_t ac_key;

/* A [2, 3] @ [3, 2] pair whose product needs more than bfloat16's 8 bits. */
static tabi_tensor *A, *B;

static void make_inputs(void) {
  const int64_t sa[2] = {2, 3}, sb[2] = {3, 2};
  const double da[6] = {1.001, 2.003, -0.5007, 3.14159, 0.1234, 7.777};
  const double db[6] = {0.999, -1.0101, 2.5003, 0.3333, -4.0405, 1.2345};
  A = ft_tensor(rt, TABI_DTYPE_FLOAT32, 2, sa, da);
  B = ft_tensor(rt, TABI_DTYPE_FLOAT32, 2, sb, db);
}

static int same_values(tabi_tensor *x, tabi_tensor *y) {
  double u[64], v[64];
  int64_t n = ft_read(rt, x, u, 64), m = ft_read(rt, y, v, 64);
  if (n < 0 || n != m) return 0;
  for (int64_t i = 0; i < n; i++)
    if (memcmp(&u[i], &v[i], sizeof(double)) != 0) return 0;
  return 1;
}

static tabi_tensor *cast(tabi_tensor *t, tabi_dtype d) {
  tabi_value a[2] = {tabi_tensor_value(t), tabi_dtype_value(d)};
  return ft_call(rt, "aten::_to_copy", a, 2);
}

static void test_extension_and_defaults(void) {
  CHECK(ac->struct_size >= sizeof(tabi_autocast_api));
  CHECK(ac->version == TABI_AUTOCAST_VERSION);
  CHECK(ac->get_dtype(ac->ctx, kDLCPU) == TABI_DTYPE_BFLOAT16);
  CHECK(ac->get_dtype(ac->ctx, kDLCUDA) == TABI_DTYPE_FLOAT16);
  CHECK(ac->is_enabled(ac->ctx, kDLCPU) == 0);
  CHECK(ac->set_enabled(ac->ctx, 0, 1) == -1);
  CHECK(strstr(tabi_last_error(), "device_type") != NULL);
  CHECK(ac->set_dtype(ac->ctx, kDLCPU, TABI_DTYPE_FLOAT32) == TABI_DTYPE_INVALID);
  CHECK(strstr(tabi_last_error(), "float16 or bfloat16") != NULL);
  CHECK(ac->get_dtype(ac->ctx, kDLCPU) == TABI_DTYPE_BFLOAT16);
  /* Policies as PyTorch lists them. */
  tabi_op mm, log_, cat, sum;
  tabi_op_find(rt, "aten::mm", &mm);
  tabi_op_find(rt, "aten::log", &log_);
  tabi_op_find(rt, "aten::cat", &cat);
  tabi_op_find(rt, "aten::sum.dim_IntList", &sum);
  CHECK(ac->policy(ac->ctx, kDLCPU, mm) == TABI_AUTOCAST_POLICY_LOWER_PRECISION);
  CHECK(ac->policy(ac->ctx, kDLCUDA, mm) == TABI_AUTOCAST_POLICY_LOWER_PRECISION);
  CHECK(ac->policy(ac->ctx, kDLCPU, log_) == TABI_AUTOCAST_POLICY_NONE);
  CHECK(ac->policy(ac->ctx, kDLCUDA, log_) == TABI_AUTOCAST_POLICY_FP32);
  CHECK(ac->policy(ac->ctx, kDLCPU, cat) == TABI_AUTOCAST_POLICY_PROMOTE);
  CHECK(ac->policy(ac->ctx, kDLCUDA, cat) == TABI_AUTOCAST_POLICY_NONE);
  CHECK(ac->policy(ac->ctx, kDLCUDA, sum) == TABI_AUTOCAST_POLICY_FP32_SET_OPT_DTYPE);
  int32_t ncpu = ac->listed_ops(ac->ctx, kDLCPU, NULL, 0);
  int32_t ncuda = ac->listed_ops(ac->ctx, kDLCUDA, NULL, 0);
  CHECK(ncpu >= 10 && ncuda >= 30);
}

static void test_regions(void) {
  CHECK((tabi_runtime_tls_get(rt, TABI_TLS_ENABLED) & ac_key) == 0);
  CHECK(ac->set_enabled(ac->ctx, kDLCPU, 1) == 0);
  CHECK((tabi_runtime_tls_get(rt, TABI_TLS_ENABLED) & ac_key) != 0);
  CHECK(ac->set_enabled(ac->ctx, kDLCPU, 1) == 1); /* nested enable */
  CHECK(ac->set_enabled(ac->ctx, kDLCPU, 0) == 1); /* nested disable */
  tabi_tensor *y = ft_call2(rt, "aten::mm", A, B);
  CHECK(ft_dtype(y) == TABI_DTYPE_FLOAT32);
  tabi_tensor_release(y);
  CHECK(ac->set_enabled(ac->ctx, kDLCPU, 1) == 0); /* restore */
  y = ft_call2(rt, "aten::mm", A, B);
  CHECK(ft_dtype(y) == TABI_DTYPE_BFLOAT16);
  tabi_tensor_release(y);
  CHECK(ac->set_enabled(ac->ctx, kDLCPU, 1) == 1); /* restore outer */
  CHECK(ac->set_enabled(ac->ctx, kDLCPU, 0) == 1);
  CHECK((tabi_runtime_tls_get(rt, TABI_TLS_ENABLED) & ac_key) == 0);
  /* Enabled for CUDA only: a CPU call is not cast. */
  ac->set_enabled(ac->ctx, kDLCUDA, 1);
  y = ft_call2(rt, "aten::mm", A, B);
  CHECK(ft_dtype(y) == TABI_DTYPE_FLOAT32);
  tabi_tensor_release(y);
  ac->set_enabled(ac->ctx, kDLCUDA, 0);
}

static void test_lower_precision(void) {
  tabi_tensor *plain = ft_call2(rt, "aten::mm", A, B);
  CHECK(ft_dtype(plain) == TABI_DTYPE_FLOAT32);
  ac->set_enabled(ac->ctx, kDLCPU, 1);
  tabi_tensor *y = ft_call2(rt, "aten::mm", A, B);
  CHECK(tabi_runtime_tls_get(rt, TABI_TLS_EXCLUDED) == 0); /* restored after the call */
  ac->set_enabled(ac->ctx, kDLCPU, 0);
  CHECK(ft_dtype(y) == TABI_DTYPE_BFLOAT16);
  /* The same as casting by hand and running without autocast. */
  tabi_tensor *a16 = cast(A, TABI_DTYPE_BFLOAT16), *b16 = cast(B, TABI_DTYPE_BFLOAT16);
  tabi_tensor *ref = ft_call2(rt, "aten::mm", a16, b16);
  CHECK(ft_dtype(ref) == TABI_DTYPE_BFLOAT16);
  CHECK(same_values(y, ref));
  CHECK(!same_values(y, plain)); /* it really ran in lower precision */
  /* float16 when asked. */
  ac->set_enabled(ac->ctx, kDLCPU, 1);
  CHECK(ac->set_dtype(ac->ctx, kDLCPU, TABI_DTYPE_FLOAT16) == TABI_DTYPE_BFLOAT16);
  tabi_tensor *h = ft_call2(rt, "aten::mm", A, B);
  CHECK(ft_dtype(h) == TABI_DTYPE_FLOAT16);
  CHECK(ac->set_dtype(ac->ctx, kDLCPU, TABI_DTYPE_BFLOAT16) == TABI_DTYPE_FLOAT16);
  /* float64 and integer inputs are not cast. */
  tabi_tensor *a64 = cast(A, TABI_DTYPE_FLOAT64), *b64 = cast(B, TABI_DTYPE_FLOAT64);
  tabi_tensor *y64 = ft_call2(rt, "aten::mm", a64, b64);
  CHECK(ft_dtype(y64) == TABI_DTYPE_FLOAT64);
  tabi_tensor *ai = cast(A, TABI_DTYPE_INT64), *bi = cast(B, TABI_DTYPE_INT64);
  tabi_tensor *yi = ft_call2(rt, "aten::mm", ai, bi);
  CHECK(ft_dtype(yi) == TABI_DTYPE_INT64);
  /* An unlisted op runs in its input dtype. */
  tabi_tensor *s = ft_call2(rt, "aten::add.Tensor", A, A);
  CHECK(ft_dtype(s) == TABI_DTYPE_FLOAT32);
  ac->set_enabled(ac->ctx, kDLCPU, 0);
  tabi_tensor *ts[] = {plain, y, a16, b16, ref, h, a64, b64, y64, ai, bi, yi, s};
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) tabi_tensor_release(ts[i]);
}

static void test_fp32_and_promote(void) {
  const int64_t sh[2] = {1, 4};
  const double d[4] = {0.5, 1.5, 2.5, 3.5};
  tabi_tensor *x16 = ft_tensor(rt, TABI_DTYPE_BFLOAT16, 2, sh, d);
  tabi_tensor *x32 = ft_tensor(rt, TABI_DTYPE_FLOAT32, 2, sh, d);
  ac->set_enabled(ac->ctx, kDLCPU, 1);
  /* fp32 on the CPU: reflection_pad1d. */
  const int64_t pad[2] = {1, 1};
  tabi_value a[2] = {tabi_tensor_value(x16), tabi_int_list(pad, 2)};
  tabi_tensor *p = ft_call(rt, "aten::reflection_pad1d", a, 2);
  CHECK(ft_dtype(p) == TABI_DTYPE_FLOAT32);
  /* log is fp32 only on CUDA: on the CPU it stays bfloat16. */
  tabi_value l[1] = {tabi_tensor_value(x16)};
  tabi_tensor *lg = ft_call(rt, "aten::log", l, 1);
  CHECK(ft_dtype(lg) == TABI_DTYPE_BFLOAT16);
  /* promote: cat of bfloat16 and float32 is float32; of two bfloat16 bfloat16. */
  tabi_tensor *mix[2] = {x16, x32}, *same[2] = {x16, x16};
  tabi_value c1[1] = {tabi_tensor_list(mix, 2)}, c2[1] = {tabi_tensor_list(same, 2)};
  tabi_tensor *cm = ft_call(rt, "aten::cat", c1, 1);
  tabi_tensor *cs = ft_call(rt, "aten::cat", c2, 1);
  CHECK(ft_dtype(cm) == TABI_DTYPE_FLOAT32);
  CHECK(ft_dtype(cs) == TABI_DTYPE_BFLOAT16);
  ac->set_enabled(ac->ctx, kDLCPU, 0);
  /* Without autocast cat promotes by ATen's rules anyway; reflection_pad1d does not. */
  tabi_tensor *p0 = ft_call(rt, "aten::reflection_pad1d", a, 2);
  CHECK(ft_dtype(p0) == TABI_DTYPE_BFLOAT16);
  tabi_tensor *ts[] = {x16, x32, p, lg, cm, cs, p0};
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) tabi_tensor_release(ts[i]);
}

typedef struct thr_arg {
  tabi_dtype got;
  int32_t enabled_seen;
} thr_arg;

static void *other_thread(void *p) {
  thr_arg *t = p;
  t->enabled_seen = ac->is_enabled(ac->ctx, kDLCPU);
  tabi_tensor *y = ft_call2(rt, "aten::mm", A, B);
  t->got = ft_dtype(y);
  tabi_tensor_release(y);
  return NULL;
}

static void test_thread_local(void) {
  ac->set_enabled(ac->ctx, kDLCPU, 1);
  thr_arg t = {TABI_DTYPE_INVALID, -1};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, other_thread, &t) == 0);
  pthread_join(th, NULL);
  CHECK(t.enabled_seen == 0);
  CHECK(t.got == TABI_DTYPE_FLOAT32);
  tabi_tensor *y = ft_call2(rt, "aten::mm", A, B);
  CHECK(ft_dtype(y) == TABI_DTYPE_BFLOAT16);
  tabi_tensor_release(y);
  ac->set_enabled(ac->ctx, kDLCPU, 0);
}

static void test_cache(void) {
  if (!ag) {
    printf("note: autograd not loaded: cast cache test skipped\n");
    return;
  }
  const int64_t sw[2] = {3, 3};
  const double dw[9] = {1.01, 2, 3, 4, 5.03, 6, 7, 8, 9.07};
  tabi_tensor *w = ft_tensor(rt, TABI_DTYPE_FLOAT32, 2, sw, dw);
  CHECK_OK(ag->set_requires_grad(ag->ctx, w, 1));
  ac->set_enabled(ac->ctx, kDLCPU, 1);
  tabi_tensor *y1 = ft_call2(rt, "aten::mm", A, w);
  CHECK(ac->cache_size(ac->ctx) == 1); /* w cast once; A is not a leaf requiring grad */
  tabi_tensor *y2 = ft_call2(rt, "aten::mm", y1, w);
  CHECK(ac->cache_size(ac->ctx) == 1); /* reused */
  CHECK(ft_dtype(y2) == TABI_DTYPE_BFLOAT16);
  ac->set_enabled(ac->ctx, kDLCPU, 0);
  CHECK(ac->cache_size(ac->ctx) == 0); /* cleared when the outermost region exits */
  /* Gradients flow through the cast to the float32 weight. */
  tabi_value sa[2] = {tabi_tensor_value(y2), tabi_none()};
  tabi_tensor *sum = ft_call(rt, "aten::sum.dim_IntList", sa, 2);
  tabi_tensor *sf = cast(sum, TABI_DTYPE_FLOAT32);
  if (sf && ag->backward(ag->ctx, 1, &sf, NULL, 0, 0) == TABI_OK) {
    tabi_tensor *g = NULL;
    CHECK_OK(ag->grad(ag->ctx, w, &g));
    CHECK(g && ft_dtype(g) == TABI_DTYPE_FLOAT32);
    tabi_tensor_release(g);
  } else {
    CHECK_MSG(0, "backward through autocast failed: %s", tabi_last_error());
  }
  tabi_tensor *ts[] = {w, y1, y2, sum, sf};
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) tabi_tensor_release(ts[i]);
}

static double item(tabi_tensor *t) {
  double v = NAN;
  ft_read(rt, t, &v, 1);
  return v;
}

static void test_scaler(void) {
  const int64_t one[1] = {1}, sg[1] = {3};
  const double zero = 0.0, half = 0.5, g1[3] = {2, 4, -8}, g2[3] = {1, INFINITY, 3};
  tabi_tensor *found = ft_tensor(rt, TABI_DTYPE_FLOAT32, 1, one, &zero);
  tabi_tensor *inv = ft_tensor(rt, TABI_DTYPE_FLOAT32, 1, one, &half);
  tabi_tensor *ga = ft_tensor(rt, TABI_DTYPE_FLOAT32, 1, sg, g1);
  tabi_tensor *gh = ft_tensor(rt, TABI_DTYPE_FLOAT16, 1, sg, g1);
  tabi_tensor *gi = ft_tensor(rt, TABI_DTYPE_FLOAT32, 1, sg, g2);
  tabi_tensor *list1[2] = {ga, gh};
  tabi_op un, up;
  CHECK_OK(tabi_op_find(rt, TABI_AMP_UNSCALE_OP, &un));
  CHECK_OK(tabi_op_find(rt, TABI_AMP_UPDATE_SCALE_OP, &up));
  tabi_value a[3] = {tabi_tensor_list(list1, 2), tabi_tensor_value(found), tabi_tensor_value(inv)};
  CHECK_OK(tabi_call(rt, un, a, 3, NULL, 0));
  double v[3];
  CHECK(ft_read(rt, ga, v, 3) == 3 && v[0] == 1 && v[1] == 2 && v[2] == -4);
  CHECK(ft_read(rt, gh, v, 3) == 3 && v[0] == 1 && v[1] == 2 && v[2] == -4);
  CHECK(ft_dtype(gh) == TABI_DTYPE_FLOAT16);
  CHECK(item(found) == 0.0);
  tabi_tensor *list2[1] = {gi};
  a[0] = tabi_tensor_list(list2, 1);
  CHECK_OK(tabi_call(rt, un, a, 3, NULL, 0));
  CHECK(item(found) == 1.0);
  /* A bad inv_scale is refused naming the op and the argument. */
  a[2] = tabi_tensor_value(ga);
  CHECK_ERR(tabi_call(rt, un, a, 3, NULL, 0), TABI_ERR_INVALID_ARGUMENT, "inv_scale");

  /* update_scale: growth_interval 2, growth 2, backoff 0.5 (PyTorch's rules). */
  const double s0 = 1024.0;
  tabi_tensor *scale = ft_tensor(rt, TABI_DTYPE_FLOAT32, 1, one, &s0);
  tabi_tensor *tracker = ft_tensor(rt, TABI_DTYPE_INT32, 1, one, &zero);
  tabi_tensor *nofound = ft_tensor(rt, TABI_DTYPE_FLOAT32, 1, one, &zero);
  tabi_value u[6] = {tabi_tensor_value(scale), tabi_tensor_value(tracker),
                     tabi_tensor_value(nofound), tabi_float(2.0), tabi_float(0.5), tabi_int(2)};
  tabi_value out = tabi_none();
  CHECK_OK(tabi_call(rt, up, u, 6, &out, 1));
  CHECK(out.tag == TABI_TAG_TENSOR && out.u.t == scale);
  tabi_value_release(&out);
  CHECK(item(scale) == 1024.0 && item(tracker) == 1.0);
  CHECK_OK(tabi_call(rt, up, u, 6, &out, 1));
  tabi_value_release(&out);
  CHECK(item(scale) == 2048.0 && item(tracker) == 0.0); /* grew at the interval */
  CHECK_OK(tabi_call(rt, up, u, 6, &out, 1));
  tabi_value_release(&out);
  CHECK(item(tracker) == 1.0);
  u[2] = tabi_tensor_value(found); /* found_inf = 1 */
  CHECK_OK(tabi_call(rt, up, u, 6, &out, 1));
  tabi_value_release(&out);
  CHECK(item(scale) == 1024.0 && item(tracker) == 0.0); /* backed off, tracker reset */
  tabi_tensor *ts[] = {found, inv, ga, gh, gi, scale, tracker, nofound};
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) tabi_tensor_release(ts[i]);
}

int main(void) {
  rt = ft_runtime();
  if (!rt) return 1;
#ifdef TABI_AUTOGRAD_PLUGIN
  if (ft_load(rt, TABI_AUTOGRAD_PLUGIN) &&
      tabi_runtime_extension(rt, "tabi.autograd", 1, (const void **)&ag) != TABI_OK)
    ag = NULL;
#endif
  CHECK(ft_load(rt, TABI_AUTOCAST_PLUGIN));
  CHECK_OK(tabi_runtime_extension(rt, TABI_AUTOCAST_EXTENSION, TABI_AUTOCAST_VERSION,
                                  (const void **)&ac));
  if (!ac) return check_report();
  int32_t idx;
  tabi_plugin_info pi;
  memset(&pi, 0, sizeof pi);
  pi.struct_size = sizeof pi;
  CHECK_OK(tabi_runtime_plugin_find(rt, "autocast", &idx));
  CHECK_OK(tabi_runtime_plugin_info(rt, idx, &pi));
  CHECK(pi.kind == TABI_PLUGIN_KIND_FEATURE && pi.layer_priority == TABI_PRIORITY_AUTOCAST);
  ac_key = TABI_LAYER_KEY(TABI_PRIORITY_AUTOCAST);
  make_inputs();
  test_extension_and_defaults();
  test_regions();
  test_lower_precision();
  test_fp32_and_promote();
  test_thread_local();
  test_cache();
  test_scaler();
  tabi_tensor_release(A);
  tabi_tensor_release(B);
  tabi_runtime_destroy(rt);
  return check_report();
}
