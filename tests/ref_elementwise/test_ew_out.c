/* tests/ref_elementwise/test_ew_out.c: hand-written checks of what the generated
 * cases cannot express: atan2.out (resize, aliasing an input, dtype rules, the
 * returned reference), prims refusing integer inputs to floating functions, and
 * inputs left untouched. Expected values come from the torch one-liners beside them.
 */
#include "ew_helpers.h"

static tabi_tensor *f32(int64_t n, const double *v) {
  return ew_make(TABI_DTYPE_FLOAT32, 1, (int64_t[]){n}, NULL, v, NULL, EW_CONTIG);
}

static void test_atan2_out_resize(void) {
  tabi_tensor *a = f32(2, (double[]){1.0, -1.0}), *b = f32(2, (double[]){1.0, 1.0});
  /* an empty out is resized to the result's shape */
  tabi_tensor *out = NULL;
  CHECK_OK(tabi_tensor_empty(ew_rt, (DLDevice){kDLCPU, 0}, TABI_DTYPE_FLOAT32, 1, (int64_t[]){0}, &out));
  tabi_value args[] = {tabi_tensor_value(a), tabi_tensor_value(b), tabi_tensor_value(out)};
  tabi_tensor *r = NULL;
  CHECK_OK(ew_call("aten::atan2.out", args, 3, &r));
  CHECK(r == out);
  CHECK(out->dl.ndim == 1 && out->dl.shape[0] == 2);
  /* torch.atan2(T([1.,-1.]), T([1.,1.]), out=torch.empty(0)) -> [0.7853981852, -0.7853981852] */
  CHECK(ew_close(ew_getf(out, 0), 0.7853981852, TABI_DTYPE_FLOAT32));
  CHECK(ew_close(ew_getf(out, 1), -0.7853981852, TABI_DTYPE_FLOAT32));
  tabi_tensor_release(r); /* the returned value is a new reference */
  /* a non-empty out of the wrong shape is resized too (ATen warns and resizes) */
  tabi_tensor *out2 = f32(5, (double[]){9, 9, 9, 9, 9});
  tabi_value args2[] = {tabi_tensor_value(a), tabi_tensor_value(b), tabi_tensor_value(out2)};
  CHECK_OK(ew_call("aten::atan2.out", args2, 3, &r));
  CHECK(r == out2 && out2->dl.shape[0] == 2);
  CHECK(ew_close(ew_getf(out2, 1), -0.7853981852, TABI_DTYPE_FLOAT32));
  tabi_tensor_release(r);
  tabi_tensor_release(out2);
  tabi_tensor_release(out);
  tabi_tensor_release(a);
  tabi_tensor_release(b);
}

static void test_atan2_out_dtypes_and_alias(void) {
  tabi_tensor *ai = ew_make(TABI_DTYPE_INT64, 1, (int64_t[]){2}, (int64_t[]){1, 0}, NULL, NULL, EW_CONTIG);
  tabi_tensor *bi = ew_make(TABI_DTYPE_INT64, 1, (int64_t[]){2}, (int64_t[]){1, -1}, NULL, NULL, EW_CONTIG);
  /* torch.atan2(T([1,0]), T([1,-1]), out=torch.empty(2, dtype=torch.float64))
     -> [0.7853981852531433, 3.1415927410125732]: computed in float32, then widened */
  tabi_tensor *o64 = ew_make(TABI_DTYPE_FLOAT64, 1, (int64_t[]){2}, NULL, (double[]){0, 0}, NULL, EW_CONTIG);
  tabi_value args[] = {tabi_tensor_value(ai), tabi_tensor_value(bi), tabi_tensor_value(o64)};
  tabi_tensor *r = NULL;
  CHECK_OK(ew_call("aten::atan2.out", args, 3, &r));
  CHECK(ew_getf(o64, 0) == (double)0.7853981852531433f && ew_getf(o64, 1) == (double)3.1415927410125732f);
  tabi_tensor_release(r);
  /* torch.atan2(T([1,0]), T([1,-1]), out=torch.empty(2, dtype=torch.int64)):
     RuntimeError: result type Float can't be cast to the desired output type Long */
  tabi_tensor *oi = ew_make(TABI_DTYPE_INT64, 1, (int64_t[]){2}, (int64_t[]){7, 7}, NULL, NULL, EW_CONTIG);
  tabi_value args2[] = {tabi_tensor_value(ai), tabi_tensor_value(bi), tabi_tensor_value(oi)};
  ew_expect_err(__LINE__, "aten::atan2.out", args2, 3, TABI_ERR_TYPE, "can't be cast");
  CHECK(ew_geti(oi, 0) == 7); /* untouched on error */
  /* out aliasing self: x = T([1.,-1.]); torch.atan2(x, T([-1.,-1.]), out=x)
     -> [2.3561944962, -2.3561944962] */
  tabi_tensor *x = f32(2, (double[]){1.0, -1.0}), *y = f32(2, (double[]){-1.0, -1.0});
  tabi_value args3[] = {tabi_tensor_value(x), tabi_tensor_value(y), tabi_tensor_value(x)};
  CHECK_OK(ew_call("aten::atan2.out", args3, 3, &r));
  CHECK(r == x && ew_close(ew_getf(x, 0), 2.3561944962, TABI_DTYPE_FLOAT32) &&
        ew_close(ew_getf(x, 1), -2.3561944962, TABI_DTYPE_FLOAT32));
  CHECK(ew_getf(y, 0) == -1.0 && ew_getf(y, 1) == -1.0); /* the other input untouched */
  tabi_tensor_release(r);
  tabi_tensor *objs[] = {ai, bi, o64, oi, x, y};
  for (int i = 0; i < 6; i++) tabi_tensor_release(objs[i]);
}

/* prims never promote: a floating function on an integer tensor is refused, and
 * the decompositions convert first. (torch 1.13's prims.sin returns float32 there,
 * against its own meta function, which says int64.) */
static void test_prims_refuse_integers(void) {
  tabi_tensor *t = ew_make(TABI_DTYPE_INT64, 1, (int64_t[]){2}, (int64_t[]){1, 2}, NULL, NULL, EW_CONTIG);
  tabi_value args[] = {tabi_tensor_value(t)};
  ew_expect_err(__LINE__, "prims::sin", args, 1, TABI_ERR_TYPE, "int64");
  ew_expect_err(__LINE__, "prims::reciprocal", args, 1, TABI_ERR_TYPE, "int64");
  ew_expect_err(__LINE__, "prims::bessel_i0", args, 1, TABI_ERR_TYPE, "int64");
  tabi_tensor_release(t);
}

/* Inputs are never written, whatever the layout: a strided input keeps its bytes. */
static void test_inputs_untouched(void) {
  tabi_tensor *a = ew_make(TABI_DTYPE_FLOAT64, 2, (int64_t[]){2, 3}, NULL,
                           (double[]){1, 2, 3, 4, 5, 6}, NULL, EW_TRANSPOSE);
  tabi_tensor *b = ew_make(TABI_DTYPE_INT32, 1, (int64_t[]){3}, (int64_t[]){1, 0, -1}, NULL, NULL, EW_STEP);
  tabi_value args[] = {tabi_tensor_value(a), tabi_tensor_value(b), tabi_int(1)};
  tabi_tensor *r = NULL;
  /* torch.sub(T([[1.,2.,3.],[4.,5.,6.]],dtype=torch.float64), T([1,0,-1],dtype=torch.int32))
     -> [[0,2,4],[3,5,7]] float64 */
  CHECK_OK(ew_call("aten::sub.Tensor", args, 3, &r));
  double want[] = {0, 2, 4, 3, 5, 7};
  for (int k = 0; r && k < 6; k++) CHECK(ew_getf(r, k) == want[k]);
  CHECK(r && tabi_tensor_dtype(r) == TABI_DTYPE_FLOAT64 && tabi_tensor_is_contiguous(r));
  for (int k = 0; k < 6; k++) CHECK(ew_getf(a, k) == k + 1);
  CHECK(ew_geti(b, 0) == 1 && ew_geti(b, 1) == 0 && ew_geti(b, 2) == -1);
  tabi_tensor_release(r);
  tabi_tensor_release(a);
  tabi_tensor_release(b);
}

/* INT64_MIN / -1: torch 1.13's CPU kernel dies with SIGFPE there (x86 idiv traps),
 * which a reference may not do; the reference wraps as two's complement does:
 * the quotient is INT64_MIN and the remainder 0 (a deliberate difference). */
static void test_int_min_div(void) {
  tabi_tensor *a = ew_make(TABI_DTYPE_INT64, 1, (int64_t[]){1}, (int64_t[]){INT64_MIN}, NULL, NULL, EW_CONTIG);
  tabi_tensor *b = ew_make(TABI_DTYPE_INT64, 1, (int64_t[]){1}, (int64_t[]){-1}, NULL, NULL, EW_CONTIG);
  const char *modes[] = {"trunc", "floor"};
  for (int m = 0; m < 2; m++) {
    tabi_value args[] = {tabi_tensor_value(a), tabi_tensor_value(b), tabi_string(modes[m], 5)};
    ew_expect(__LINE__, "aten::div.Tensor_mode", args, 3, TABI_DTYPE_INT64, 1, (int64_t[]){1},
              (int64_t[]){INT64_MIN}, NULL, NULL);
  }
  tabi_value args2[] = {tabi_tensor_value(a), tabi_tensor_value(b)};
  ew_expect(__LINE__, "aten::remainder.Tensor", args2, 2, TABI_DTYPE_INT64, 1, (int64_t[]){1},
            (int64_t[]){0}, NULL, NULL);
  ew_expect(__LINE__, "aten::fmod.Tensor", args2, 2, TABI_DTYPE_INT64, 1, (int64_t[]){1},
            (int64_t[]){0}, NULL, NULL);
  ew_expect(__LINE__, "prims::div", args2, 2, TABI_DTYPE_INT64, 1, (int64_t[]){1},
            (int64_t[]){INT64_MIN}, NULL, NULL);
  tabi_tensor_release(a);
  tabi_tensor_release(b);
}

int main(void) {
  ew_setup();
  test_atan2_out_resize();
  test_atan2_out_dtypes_and_alias();
  test_prims_refuse_integers();
  test_inputs_untouched();
  test_int_min_div();
  ew_teardown();
  return check_report();
}
