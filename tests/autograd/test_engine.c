/* tests/autograd/test_engine.c: backward engine semantics — accumulation,
 * retain_graph, no-grad mode, detach, retain_grad, in-place version checks,
 * double backward, non-differentiable ops. Expected values are computed by
 * hand from the math (d/dx of the functions used), not from the code. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "ag_test_util.h"

static const tabi_autograd_api *ag;
static tabi_runtime *rt;

static double grad_at(tabi_tensor *t, int64_t i) {
  tabi_tensor *g = NULL;
  double buf[64] = {0};
  if (ag->grad(ag->ctx, t, &g) != TABI_OK || !g) return NAN;
  int64_t n = agt_read(rt, g, buf, 64);
  tabi_tensor_release(g);
  return n > i ? buf[i] : NAN;
}

static void test_basic_and_accumulation(void) {
  int64_t s[1] = {3};
  double xv[3] = {1.0, 2.0, -3.0};
  tabi_tensor *x = agt_tensor(rt, 1, s, xv);
  CHECK_OK(ag->set_requires_grad(ag->ctx, x, 1));
  CHECK(ag->requires_grad(ag->ctx, x) && ag->is_leaf(ag->ctx, x));
  /* loss = sum(x * x * x) -> d/dx = 3 x^2 */
  tabi_tensor *x2 = agt_b(rt, "aten::mul.Tensor", x, x);
  tabi_tensor *x3 = agt_b(rt, "aten::mul.Tensor", x2, x);
  tabi_tensor *loss = agt_sum(rt, x3);
  CHECK(loss && ag->requires_grad(ag->ctx, loss) && !ag->is_leaf(ag->ctx, loss));
  CHECK(ag->grad_fn_name(ag->ctx, loss) && strcmp(ag->grad_fn_name(ag->ctx, loss), "aten::sum.dim_IntList") == 0);
  CHECK_OK(ag->backward(ag->ctx, 1, &loss, NULL, 1, 0));
  for (int i = 0; i < 3; i++) CHECK(fabs(grad_at(x, i) - 3 * xv[i] * xv[i]) < 1e-12);
  /* retained graph: a second backward accumulates */
  CHECK_OK(ag->backward(ag->ctx, 1, &loss, NULL, 0, 0));
  for (int i = 0; i < 3; i++) CHECK(fabs(grad_at(x, i) - 6 * xv[i] * xv[i]) < 1e-12);
  /* the graph is freed now: a third backward is an error */
  CHECK_ERR(ag->backward(ag->ctx, 1, &loss, NULL, 0, 0), TABI_ERR_INVALID_ARGUMENT,
            "backward through the graph a second time");
  /* non-leaf grads are not kept */
  tabi_tensor *g = NULL;
  CHECK_OK(ag->grad(ag->ctx, x3, &g));
  CHECK(g == NULL);
  CHECK_OK(ag->zero_grad(ag->ctx, x));
  CHECK_OK(ag->grad(ag->ctx, x, &g));
  CHECK(g == NULL);
  /* non-scalar root needs a grad_output */
  CHECK_ERR(ag->backward(ag->ctx, 1, &x3, NULL, 0, 0), TABI_ERR_INVALID_ARGUMENT, "scalar");
  tabi_tensor_release(x2);
  tabi_tensor_release(x3);
  tabi_tensor_release(loss);
  tabi_tensor_release(x);
}

static void test_broadcast_and_shared(void) {
  /* y = a * b with a [2,1], b [3] -> grad a = sum_j b_j, grad b = sum_i a_i;
   * a used twice: z = y + a -> grad a += 3 (broadcast over j). */
  int64_t sa[2] = {2, 1}, sb[1] = {3};
  double av[2] = {2.0, 5.0}, bv[3] = {1.0, -1.0, 4.0};
  tabi_tensor *a = agt_tensor(rt, 2, sa, av), *b = agt_tensor(rt, 1, sb, bv);
  ag->set_requires_grad(ag->ctx, a, 1);
  ag->set_requires_grad(ag->ctx, b, 1);
  tabi_tensor *y = agt_b(rt, "aten::mul.Tensor", a, b);
  tabi_tensor *z = agt_b(rt, "aten::add.Tensor", y, a);
  tabi_tensor *l = agt_sum(rt, z);
  CHECK_OK(ag->backward(ag->ctx, 1, &l, NULL, 0, 0));
  CHECK(fabs(grad_at(a, 0) - (4.0 + 3.0)) < 1e-12);
  CHECK(fabs(grad_at(a, 1) - (4.0 + 3.0)) < 1e-12);
  for (int j = 0; j < 3; j++) CHECK(fabs(grad_at(b, j) - 7.0) < 1e-12);
  tabi_tensor *ga = NULL;
  ag->grad(ag->ctx, a, &ga);
  CHECK(ga && ga->dl.ndim == 2 && ga->dl.shape[0] == 2 && ga->dl.shape[1] == 1);
  tabi_tensor_release(ga);
  tabi_tensor_release(y);
  tabi_tensor_release(z);
  tabi_tensor_release(l);
  tabi_tensor_release(a);
  tabi_tensor_release(b);
}

static void test_no_grad_and_detach(void) {
  double v = 3.0;
  tabi_tensor *x = agt_scalar(rt, v);
  ag->set_requires_grad(ag->ctx, x, 1);
  CHECK(ag->grad_enabled(ag->ctx) == 1);
  int32_t prev = ag->set_grad_enabled(ag->ctx, 0);
  CHECK(prev == 1 && ag->grad_enabled(ag->ctx) == 0);
  tabi_tensor *y = agt_b(rt, "aten::mul.Tensor", x, x);
  CHECK(y && !ag->requires_grad(ag->ctx, y));
  CHECK(ag->set_grad_enabled(ag->ctx, prev) == 0);
  CHECK(ag->grad_enabled(ag->ctx) == 1);
  tabi_tensor *d = NULL;
  CHECK_OK(ag->detach(ag->ctx, x, &d));
  CHECK(d && !ag->requires_grad(ag->ctx, d) && tabi_tensor_storage_id(d) == tabi_tensor_storage_id(x));
  tabi_tensor *z = agt_b(rt, "aten::mul.Tensor", x, d); /* dz/dx = d = 3 (d is a constant) */
  CHECK(ag->requires_grad(ag->ctx, z));
  CHECK_OK(ag->backward(ag->ctx, 1, &z, NULL, 0, 0));
  CHECK(fabs(grad_at(x, 0) - 3.0) < 1e-12);
  CHECK_ERR(ag->backward(ag->ctx, 1, &y, NULL, 0, 0), TABI_ERR_INVALID_ARGUMENT, "does not require grad");
  tabi_tensor_release(y);
  tabi_tensor_release(z);
  tabi_tensor_release(d);
  tabi_tensor_release(x);
}

static void test_retain_grad(void) {
  double v = 2.0;
  tabi_tensor *x = agt_scalar(rt, v);
  ag->set_requires_grad(ag->ctx, x, 1);
  tabi_tensor *y = agt_b(rt, "aten::mul.Tensor", x, x); /* y = x^2 = 4 */
  CHECK_OK(ag->retain_grad(ag->ctx, y));
  tabi_tensor *z = agt_b(rt, "aten::mul.Tensor", y, y); /* z = y^2: dz/dy = 2y = 8 */
  CHECK_OK(ag->backward(ag->ctx, 1, &z, NULL, 0, 0));
  CHECK(fabs(grad_at(y, 0) - 8.0) < 1e-12);
  CHECK(fabs(grad_at(x, 0) - 32.0) < 1e-12); /* 4 x^3 */
  tabi_tensor_release(y);
  tabi_tensor_release(z);
  tabi_tensor_release(x);
}

static void test_inplace_version(void) {
  int64_t s[1] = {2};
  double wv[2] = {1.0, 2.0}, xv[2] = {3.0, 4.0}, nv[2] = {7.0, 8.0};
  tabi_tensor *w = agt_tensor(rt, 1, s, wv), *x = agt_tensor(rt, 1, s, xv);
  tabi_tensor *nx = agt_tensor(rt, 1, s, nv);
  ag->set_requires_grad(ag->ctx, w, 1);
  tabi_tensor *y = agt_b(rt, "aten::mul.Tensor", w, x); /* saves x */
  tabi_tensor *l = agt_sum(rt, y);
  uint32_t v0 = ag->version_counter(ag->ctx, x);
  tabi_tensor *r = agt_b(rt, "prims::copy_to", x, nx); /* x modified in place */
  CHECK(r != NULL);
  CHECK(ag->version_counter(ag->ctx, x) == v0 + 1);
  CHECK_ERR(ag->backward(ag->ctx, 1, &l, NULL, 0, 0), TABI_ERR_INVALID_ARGUMENT,
            "modified by an inplace operation (prims::copy_to)");
  /* in-place on a leaf that requires grad is refused */
  tabi_tensor *r2 = agt_b(rt, "prims::copy_to", w, nx);
  CHECK(r2 == NULL && strstr(tabi_last_error(), "leaf") != NULL);
  /* ... but allowed with grad mode off (an optimizer step) */
  int32_t prev = ag->set_grad_enabled(ag->ctx, 0);
  r2 = agt_b(rt, "prims::copy_to", w, nx);
  ag->set_grad_enabled(ag->ctx, prev);
  double wn[2] = {0, 0};
  CHECK(r2 != NULL && agt_read(rt, w, wn, 2) == 2 && wn[0] == 7.0 && wn[1] == 8.0);
  tabi_tensor_release(r2);
  tabi_tensor_release(r);
  tabi_tensor_release(y);
  tabi_tensor_release(l);
  tabi_tensor_release(w);
  tabi_tensor_release(x);
  tabi_tensor_release(nx);
}

static void test_double_backward(void) {
  /* f = x^3: f' = 3x^2, f'' = 6x at x = 2 -> 12, 12 */
  tabi_tensor *x = agt_scalar(rt, 2.0);
  ag->set_requires_grad(ag->ctx, x, 1);
  tabi_tensor *x2 = agt_b(rt, "aten::mul.Tensor", x, x);
  tabi_tensor *y = agt_b(rt, "aten::mul.Tensor", x2, x);
  tabi_tensor *g = NULL;
  CHECK_OK(ag->grad_of(ag->ctx, 1, &y, NULL, 1, &x, 0, 1, &g));
  CHECK(g && fabs(agt_item(rt, g) - 12.0) < 1e-12);
  CHECK(g && ag->requires_grad(ag->ctx, g));
  tabi_tensor *gg = NULL;
  CHECK_OK(ag->grad_of(ag->ctx, 1, &g, NULL, 1, &x, 0, 0, &gg));
  CHECK(gg && fabs(agt_item(rt, gg) - 12.0) < 1e-12);
  /* through a formula that reads the op's output: tanh'' = -2 tanh (1 - tanh^2) */
  tabi_tensor *t = agt_u(rt, "aten::tanh", x);
  tabi_tensor *gt = NULL, *ggt = NULL;
  CHECK_OK(ag->grad_of(ag->ctx, 1, &t, NULL, 1, &x, 0, 1, &gt));
  CHECK_OK(ag->grad_of(ag->ctx, 1, &gt, NULL, 1, &x, 0, 0, &ggt));
  double th = tanh(2.0);
  CHECK(ggt && fabs(agt_item(rt, ggt) - (-2.0 * th * (1 - th * th))) < 1e-12);
  /* grad_of leaves .grad alone */
  tabi_tensor *xg = NULL;
  ag->grad(ag->ctx, x, &xg);
  CHECK(xg == NULL);
  tabi_tensor_release(t);
  tabi_tensor_release(gt);
  tabi_tensor_release(ggt);
  tabi_tensor_release(g);
  tabi_tensor_release(gg);
  tabi_tensor_release(x2);
  tabi_tensor_release(y);
  tabi_tensor_release(x);
}

static void test_nondifferentiable(void) {
  int64_t s[1] = {3};
  double xv[3] = {1.0, 5.0, 2.0};
  tabi_tensor *x = agt_tensor(rt, 1, s, xv);
  ag->set_requires_grad(ag->ctx, x, 1);
  tabi_value a[1] = {tabi_tensor_value(x)};
  tabi_tensor *am = agt_call(rt, "aten::argmax", a, 1);
  CHECK(am && !ag->requires_grad(ag->ctx, am)); /* integer output: no grad */
  tabi_tensor *fl = agt_u(rt, "aten::floor", x);
  CHECK(fl && ag->requires_grad(ag->ctx, fl));
  tabi_tensor *l = agt_sum(rt, fl);
  CHECK_OK(ag->backward(ag->ctx, 1, &l, NULL, 0, 0));
  CHECK(grad_at(x, 0) == 0.0 && grad_at(x, 1) == 0.0);
  /* an op without a derivative (ATen has none for nextafter) fails at backward,
   * naming it and the argument */
  tabi_tensor *c = agt_b(rt, "prims::nextafter", x, x);
  CHECK(c != NULL);
  if (c) {
    tabi_tensor *lc = agt_sum(rt, c);
    CHECK_ERR(ag->backward(ag->ctx, 1, &lc, NULL, 0, 0), TABI_ERR_UNIMPLEMENTED, "prims::nextafter");
    CHECK(strstr(tabi_last_error(), "'self'") != NULL);
    tabi_tensor_release(lc);
    tabi_tensor_release(c);
  }
  CHECK_ERR(ag->set_requires_grad(ag->ctx, am, 1), TABI_ERR_TYPE, "floating point");
  tabi_tensor_release(am);
  tabi_tensor_release(fl);
  tabi_tensor_release(l);
  tabi_tensor_release(x);
}

int main(void) {
  rt = agt_runtime(&ag);
  CHECK(rt != NULL);
  if (!rt) return check_report();
  CHECK(ag->struct_size >= sizeof(tabi_autograd_api) && ag->version == 1);
  test_basic_and_accumulation();
  test_broadcast_and_shared();
  test_no_grad_and_detach();
  test_retain_grad();
  test_inplace_version();
  test_double_backward();
  test_nondifferentiable();
  tabi_runtime_destroy(rt);
  return check_report();
}
