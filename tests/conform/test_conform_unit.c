/* tests/conform/test_conform_unit.c: the suite's own building blocks.
 *
 * Tolerance comparison (tolerances.md values, NaN, infinities, integer extremes
 * compared exactly), failure descriptions, op globs, and the CLI's refusals. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <tabi/runtime.h>

#include "../check.h"
#include "conform_int.h"
#include "conform_twin.h"
#include "sample.h"

static void test_compare(void) {
  conform_cmp cmp;
  float want[4] = {1.0f, -2.0f, NAN, INFINITY};
  float got[4] = {1.0f, -2.0f, NAN, INFINITY};
  conform_compare((uint8_t *)got, (uint8_t *)want, TABI_DTYPE_FLOAT32, 4,
                  conform_default_tol(TABI_DTYPE_FLOAT32), 1, &cmp);
  CHECK(cmp.nbad == 0);
  conform_compare((uint8_t *)got, (uint8_t *)want, TABI_DTYPE_FLOAT32, 4,
                  conform_default_tol(TABI_DTYPE_FLOAT32), 0, &cmp);
  CHECK(cmp.nbad == 1 && cmp.worst_abs_at == 2); /* NaN must not match when asked */
  got[1] = -2.0f * (1.0f + 1e-6f);             /* within rtol 1.3e-6 */
  conform_compare((uint8_t *)got, (uint8_t *)want, TABI_DTYPE_FLOAT32, 4,
                  conform_default_tol(TABI_DTYPE_FLOAT32), 1, &cmp);
  CHECK(cmp.nbad == 0);
  got[1] = -2.001f;
  got[3] = -INFINITY;
  conform_compare((uint8_t *)got, (uint8_t *)want, TABI_DTYPE_FLOAT32, 4,
                  conform_default_tol(TABI_DTYPE_FLOAT32), 1, &cmp);
  CHECK(cmp.nbad == 2 && cmp.worst_abs_at == 3 && isinf(cmp.max_abs));
  char buf[512];
  int64_t shape[2] = {2, 2};
  conform_cmp_describe(&cmp, 2, shape, buf, sizeof buf);
  CHECK_MSG(strstr(buf, "2 element(s) differ") && strstr(buf, "at [1, 1]") &&
                strstr(buf, "largest relative error"),
            "%s", buf);
  /* int64 extremes differ by one: invisible through a double, caught exactly. */
  int64_t wi[2] = {INT64_MAX, INT64_MIN}, gi[2] = {INT64_MAX - 1, INT64_MIN};
  conform_compare((uint8_t *)gi, (uint8_t *)wi, TABI_DTYPE_INT64, 2,
                  conform_default_tol(TABI_DTYPE_INT64), 1, &cmp);
  CHECK(cmp.nbad == 1 && cmp.worst_abs_at == 0);
  /* float16 tolerance is looser than float32's. */
  CHECK(conform_default_tol(TABI_DTYPE_FLOAT16).rtol == 1e-3);
  CHECK(conform_default_tol(TABI_DTYPE_BFLOAT16).rtol == 1.6e-2);
  CHECK(conform_default_tol(TABI_DTYPE_FLOAT64).atol == 1e-7);
  CHECK(conform_default_tol(TABI_DTYPE_INT32).rtol == 0.0);
  /* complex: the modulus of the difference. */
  double wc[2] = {3.0, 4.0}, gc[2] = {3.0, 4.0 + 1e-3};
  conform_compare((uint8_t *)gc, (uint8_t *)wc, TABI_DTYPE_COMPLEX128, 1,
                  conform_default_tol(TABI_DTYPE_COMPLEX128), 1, &cmp);
  CHECK(cmp.nbad == 1);
  /* --exact: one float32 ulp fails, +0 against -0 fails, NaN and equal values
   * pass; without it the same signed zeros match. */
  conform_tol exact = {0.0, 0.0, 1};
  float we[4] = {1.0f, 0.0f, NAN, -3.5f}, ge[4] = {1.0f, 0.0f, NAN, -3.5f};
  conform_compare((uint8_t *)ge, (uint8_t *)we, TABI_DTYPE_FLOAT32, 4, exact, 1, &cmp);
  CHECK(cmp.nbad == 0);
  ge[0] = nextafterf(1.0f, 2.0f);
  ge[1] = -0.0f;
  conform_compare((uint8_t *)ge, (uint8_t *)we, TABI_DTYPE_FLOAT32, 4, exact, 1, &cmp);
  CHECK(cmp.nbad == 2);
  ge[0] = 1.0f;
  conform_compare((uint8_t *)ge, (uint8_t *)we, TABI_DTYPE_FLOAT32, 4,
                  conform_default_tol(TABI_DTYPE_FLOAT32), 1, &cmp);
  CHECK(cmp.nbad == 0);
  double wz[2] = {0.0, -0.0}, gz[2] = {0.0, 0.0};
  conform_compare((uint8_t *)gz, (uint8_t *)wz, TABI_DTYPE_COMPLEX128, 1, exact, 1, &cmp);
  CHECK(cmp.nbad == 1); /* the imaginary part's sign */
}

static void test_index_and_globs(void) {
  char buf[64];
  int64_t shape[3] = {2, 3, 4};
  conform_index_str(23, 3, shape, buf, sizeof buf);
  CHECK(strcmp(buf, "[1, 2, 3]") == 0);
  conform_index_str(0, 0, shape, buf, sizeof buf);
  CHECK(strcmp(buf, "[]") == 0);
  CHECK(conform_op_selected(NULL, "aten::add.Tensor"));
  CHECK(conform_op_selected("aten::add.*", "aten::add.Tensor"));
  CHECK(!conform_op_selected("aten::add.*", "aten::addmm"));
  CHECK(conform_op_selected("div*", "aten::div.Tensor_mode"));
  CHECK(conform_op_selected("mul.Tensor,div*", "aten::mul.Tensor"));
  CHECK(!conform_op_selected("prims::*", "aten::abs"));
}

/* A random call's float mean over int64 inputs: compared when the integers are
 * small; not when one is past 2^24 (the sum's order decides which small terms
 * +-2^63 absorbs: ATen gave 22/24 where the reference gives 0), while its
 * integer results still are. */
static tabi_value f64_scalar(tabi_runtime *rt, double v) {
  tabi_tensor *t = NULL;
  DLDevice cpu = {kDLCPU, 0};
  tabi_tensor_from_host(rt, cpu, TABI_DTYPE_FLOAT64, 0, NULL, &v, sizeof v, &t);
  return tabi_tensor_value(t);
}

static void test_twin_sum_order(void) {
  tabi_runtime *rt = NULL;
  tabi_op mean, sum;
  int ready = tabi_runtime_create(NULL, &rt) == TABI_OK &&
              tabi_runtime_load_plugin(rt, "reference", NULL) == TABI_OK &&
              tabi_op_find(rt, "aten::mean", &mean) == TABI_OK && tabi_op_find(rt, "aten::sum.dim_IntList", &sum) == TABI_OK;
  CHECK_MSG(ready, "a runtime with the reference: %s", tabi_last_error());
  if (!ready) {
    tabi_runtime_destroy(rt);
    return;
  }
  const tabi_op_info *info = tabi_op_get_info(rt, mean);
  CHECK(info->nargs == 2); /* conform_twin_compare reads nargs arguments */
  conform_twin_rules rules;
  conform_twin_rules_of(rt, info, &rules);
  CHECK(rules.flags & CONFORM_SUM_ORDER);
  DLDevice cpu = {kDLCPU, 0};
  int64_t shape[1] = {4};
  int64_t small[4] = {3, 1, -2, 5}, big[4] = {INT64_MAX, 3, INT64_MIN, 1};
  const int64_t *ins[2] = {small, big};
  for (int i = 0; i < 2; i++) {
    tabi_tensor *x = NULL;
    CHECK(tabi_tensor_from_host(rt, cpu, TABI_DTYPE_INT64, 1, shape, ins[i], sizeof small, &x) == TABI_OK);
    tabi_value args[2] = {tabi_tensor_value(x), tabi_dtype_value(TABI_DTYPE_FLOAT64)};
    tabi_value got = f64_scalar(rt, 1.0), want = f64_scalar(rt, 0.75);
    int32_t values = -1;
    const char *kind = NULL;
    char why[512] = "";
    int agree = conform_twin_compare(rt, rt, info, &rules, &got, &want, 1, args, args, &values, &kind,
                                     why, sizeof why);
    if (i == 0) CHECK_MSG(!agree && kind && strcmp(kind, CONFORM_K_VALUE) == 0, "small ints: %s", why);
    else CHECK_MSG(agree, "a big int: %s", why);
    tabi_tensor_release(got.u.t);
    tabi_tensor_release(want.u.t);
    tabi_tensor_release(x);
  }
  /* An integer sum of the same big input is still compared. */
  const tabi_op_info *sinfo = tabi_op_get_info(rt, sum);
  CHECK(sinfo->nargs == 4);
  conform_twin_rules_of(rt, sinfo, &rules);
  tabi_tensor *x = NULL, *g = NULL, *w = NULL;
  int64_t s1 = 8, s2 = 9;
  tabi_tensor_from_host(rt, cpu, TABI_DTYPE_INT64, 1, shape, big, sizeof big, &x);
  tabi_tensor_from_host(rt, cpu, TABI_DTYPE_INT64, 0, NULL, &s1, sizeof s1, &g);
  tabi_tensor_from_host(rt, cpu, TABI_DTYPE_INT64, 0, NULL, &s2, sizeof s2, &w);
  /* every argument of the schema, as the random calls pass them */
  tabi_value args[4] = {tabi_tensor_value(x), tabi_none(), tabi_bool(0), tabi_none()};
  tabi_value got = tabi_tensor_value(g), want = tabi_tensor_value(w);
  int32_t values = -1;
  const char *kind = NULL;
  char why[512] = "";
  CHECK_MSG(!conform_twin_compare(rt, rt, sinfo, &rules, &got, &want, 1, args, args, &values, &kind, why,
                                  sizeof why), "int64 sum of big ints: compared");
  tabi_tensor_release(x);
  tabi_tensor_release(g);
  tabi_tensor_release(w);
  tabi_runtime_destroy(rt);
}

static void test_cli(void) {
  char *no_plugin[] = {"conform", "--jobs", "2"};
  CHECK(tabi_conform_cli(3, no_plugin) == 2);
  char *bad_opt[] = {"conform", "--plugin", "reference", "--frobnicate", "1"};
  CHECK(tabi_conform_cli(5, bad_opt) == 2);
  char *bad_jobs[] = {"conform", "--plugin", "reference", "--jobs", "zero"};
  CHECK(tabi_conform_cli(5, bad_jobs) == 2);
  char *bad_dtype[] = {"conform", "--plugin", "reference", "--dtypes", "float128"};
  CHECK(tabi_conform_cli(5, bad_dtype) == 2);
  char *missing[] = {"conform", "--plugin", "/nonexistent/libtabi_nope.so", "--quiet"};
  CHECK(tabi_conform_cli(4, missing) == 2);
  char *help[] = {"conform", "--help"};
  CHECK(tabi_conform_cli(2, help) == 0);
}

int main(void) {
  test_compare();
  test_index_and_globs();
  test_twin_sum_order();
  test_cli();
  return check_report();
}
