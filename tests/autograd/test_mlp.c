/* tests/autograd/test_mlp.c: a tiny MLP classifier (2 -> 16 -> 2, relu, log
 * softmax, NLL through gather) trained with SGD on a synthetic two-class set
 * (points inside / outside a circle). The loss must fall well below its start
 * and the training accuracy must beat chance clearly. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "ag_test_util.h"

#define N 64
#define H 16

static tabi_runtime *rt;
static const tabi_autograd_api *ag;

static tabi_tensor *call3(const char *op, tabi_value a0, tabi_value a1, tabi_value a2, int32_t n) {
  tabi_value args[3] = {a0, a1, a2};
  return agt_call(rt, op, args, n);
}

static double lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) / 9007199254740992.0;
}

/* p <- p - lr * grad, with grad mode off. */
static void sgd(tabi_tensor *p, double lr) {
  tabi_tensor *g = NULL;
  ag->grad(ag->ctx, p, &g);
  if (!g) return;
  int32_t prev = ag->set_grad_enabled(ag->ctx, 0);
  tabi_tensor *step = call3("aten::mul.Scalar", tabi_tensor_value(g), tabi_float(-lr), tabi_none(), 2);
  tabi_tensor *np = agt_b(rt, "aten::add.Tensor", p, step);
  tabi_tensor *r = agt_b(rt, "prims::copy_to", p, np);
  ag->set_grad_enabled(ag->ctx, prev);
  CHECK(r != NULL);
  tabi_tensor_release(r);
  tabi_tensor_release(np);
  tabi_tensor_release(step);
  tabi_tensor_release(g);
  ag->zero_grad(ag->ctx, p);
}

int main(void) {
  rt = agt_runtime(&ag);
  CHECK(rt != NULL);
  if (!rt) return check_report();
  uint64_t seed = 42;
  double xs[N * 2], w1v[2 * H], b1v[H], w2v[H * 2], b2v[2];
  double lbl[N];
  for (int i = 0; i < N; i++) {
    double a = lcg(&seed) * 2 - 1, b = lcg(&seed) * 2 - 1;
    xs[2 * i] = a;
    xs[2 * i + 1] = b;
    lbl[i] = (a * a + b * b < 0.45) ? 1 : 0;
  }
  for (int i = 0; i < 2 * H; i++) w1v[i] = (lcg(&seed) * 2 - 1) * 0.9;
  for (int i = 0; i < H; i++) b1v[i] = (lcg(&seed) * 2 - 1) * 0.1;
  for (int i = 0; i < 2 * H; i++) w2v[i] = (lcg(&seed) * 2 - 1) * 0.5;
  b2v[0] = b2v[1] = 0;
  int64_t sx[2] = {N, 2}, sw1[2] = {2, H}, sb1[1] = {H}, sw2[2] = {H, 2}, sb2[1] = {2};
  tabi_tensor *x = agt_tensor(rt, 2, sx, xs);
  tabi_tensor *w1 = agt_tensor(rt, 2, sw1, w1v), *b1 = agt_tensor(rt, 1, sb1, b1v);
  tabi_tensor *w2 = agt_tensor(rt, 2, sw2, w2v), *b2 = agt_tensor(rt, 1, sb2, b2v);
  int64_t li[N];
  for (int i = 0; i < N; i++) li[i] = (int64_t)lbl[i];
  int64_t sl[2] = {N, 1};
  tabi_tensor *labels = NULL;
  CHECK_OK(tabi_tensor_from_host(rt, agt_cpu, TABI_DTYPE_INT64, 2, sl, li, sizeof li, &labels));
  tabi_tensor *params[4] = {w1, b1, w2, b2};
  for (int i = 0; i < 4; i++) CHECK_OK(ag->set_requires_grad(ag->ctx, params[i], 1));
  double first = NAN, last = NAN;
  int correct = 0;
  for (int it = 0; it < 300; it++) {
    tabi_value am[3] = {tabi_tensor_value(b1), tabi_tensor_value(x), tabi_tensor_value(w1)};
    tabi_tensor *h = agt_call(rt, "aten::addmm", am, 3);
    tabi_tensor *hr = agt_u(rt, "aten::relu", h);
    tabi_value am2[3] = {tabi_tensor_value(b2), tabi_tensor_value(hr), tabi_tensor_value(w2)};
    tabi_tensor *logits = agt_call(rt, "aten::addmm", am2, 3);
    tabi_tensor *lsm = call3("aten::_log_softmax", tabi_tensor_value(logits), tabi_int(1), tabi_bool(0), 3);
    tabi_tensor *picked = call3("aten::gather", tabi_tensor_value(lsm), tabi_int(1), tabi_tensor_value(labels), 3);
    tabi_value mv[1] = {tabi_tensor_value(picked)};
    tabi_tensor *mean = agt_call(rt, "aten::mean", mv, 1);
    tabi_tensor *loss = agt_u(rt, "aten::neg", mean);
    CHECK(loss != NULL);
    if (!loss) break;
    double lv = agt_item(rt, loss);
    if (it == 0) first = lv;
    last = lv;
    CHECK_OK(ag->backward(ag->ctx, 1, &loss, NULL, 0, 0));
    for (int i = 0; i < 4; i++) sgd(params[i], 0.5);
    if (it == 299) {
      double lg[N * 2];
      agt_read(rt, logits, lg, N * 2);
      correct = 0;
      for (int i = 0; i < N; i++) correct += ((lg[2 * i + 1] > lg[2 * i]) ? 1 : 0) == (int)lbl[i];
    }
    tabi_tensor *tmp[8] = {h, hr, logits, lsm, picked, mean, loss, NULL};
    for (int i = 0; tmp[i]; i++) tabi_tensor_release(tmp[i]);
  }
  printf("loss %.4f -> %.4f, train accuracy %d/%d\n", first, last, correct, N);
  CHECK(isfinite(last) && last < 0.5 * first);
  CHECK(correct >= (N * 85) / 100);
  for (int i = 0; i < 4; i++) tabi_tensor_release(params[i]);
  tabi_tensor_release(x);
  tabi_tensor_release(labels);
  tabi_runtime_destroy(rt);
  return check_report();
}
