/* tests/ref_elementwise/test_ew_complex_edges.c: complex arithmetic at the edges
 * of the range, where ATen's definitions (c10::complex, std:: functions) differ
 * from C99 Annex G, and floor division whose quotient overflows.
 *
 * Expected values: torch 1.13 where it computes ATen's scalar definition (the
 * one-liner beside each). Complex division is c10::complex's Smith algorithm in
 * today's ATen ("follows numpy's complex division"); torch 1.13 still had the
 * textbook formula there (listed in tests/torch/known_differences.txt), so those
 * expected values come from NumPy's complex division, the algorithm c10 copied.
 */
#include "ew_helpers.h"

#define C128 TABI_DTYPE_COMPLEX128
#define C64 TABI_DTYPE_COMPLEX64

static tabi_tensor *cplx(tabi_dtype dt, int64_t n, const double *re, const double *im) {
  return ew_make(dt, 1, (int64_t[]){n}, NULL, re, im, EW_CONTIG);
}

static void test_div_smith(void) {
  /* np.complex128(1+1j)/np.complex128(1e200+1e200j) -> 1e-200+0j (torch 1.13: 0j)
   * np.complex128(1+0j)/np.complex128(complex(inf,0)) -> 0j (torch 1.13: nan+nanj)
   * np.complex128(complex(2.5,-0.))/np.complex128(complex(1.7976931348623157e308,-0.))
   *   -> 1.390671161567001e-308+0j (torch 1.13: nan+0j)
   * np.complex128(complex(1.7976931348623157e308,-0.))/np.complex128(-1.5+0j)
   *   -> -1.1984620899082103e+308-0j (torch 1.13: -inf+0j) */
  tabi_tensor *a = cplx(C128, 4, (double[]){1, 1, 2.5, 1.7976931348623157e308},
                        (double[]){1, 0, -0.0, -0.0});
  tabi_tensor *b = cplx(C128, 4, (double[]){1e200, INFINITY, 1.7976931348623157e308, -1.5},
                        (double[]){1e200, 0, -0.0, 0});
  tabi_value args[] = {tabi_tensor_value(a), tabi_tensor_value(b)};
  const double want_re[] = {1e-200, 0, 1.390671161567001e-308, -1.1984620899082103e+308};
  const double want_im[] = {0, 0, 0, -0.0};
  ew_expect(__LINE__, "aten::div.Tensor", args, 2, C128, 1, (int64_t[]){4}, NULL, want_re, want_im);
  ew_expect(__LINE__, "prims::div", args, 2, C128, 1, (int64_t[]){4}, NULL, want_re, want_im);
  tabi_value args_mode[] = {tabi_tensor_value(a), tabi_tensor_value(b), tabi_none()};
  ew_expect(__LINE__, "aten::div.Tensor_mode", args_mode, 3, C128, 1, (int64_t[]){4}, NULL,
            want_re, want_im);
  tabi_tensor_release(a);
  tabi_tensor_release(b);
}

static void test_div_scalar_inf(void) {
  /* np.complex128(x)/np.complex128(complex(inf,0)) for x = 0.5, -1.5+1j -> 0j, (-0+0j)
   * (torch 1.13: nan+nanj for both) */
  tabi_tensor *a = cplx(C64, 2, (double[]){0.5, -1.5}, (double[]){0, 1});
  tabi_value args[] = {tabi_tensor_value(a), tabi_float(INFINITY)};
  ew_expect(__LINE__, "aten::div.Scalar", args, 2, C64, 1, (int64_t[]){2}, NULL,
            (double[]){0, -0.0}, (double[]){0, 0});
  tabi_tensor_release(a);
}

static void test_reciprocal_rsqrt(void) {
  /* np.complex128(1)/np.complex128(complex(inf,-0.)) -> 0j;
   * np.complex128(1)/np.complex128(complex(-inf,1)) -> (-0-0j) (torch 1.13: nan+0j, nan-0j) */
  tabi_tensor *a = cplx(C128, 2, (double[]){INFINITY, -INFINITY}, (double[]){-0.0, 1});
  tabi_value args[] = {tabi_tensor_value(a)};
  ew_expect(__LINE__, "aten::reciprocal", args, 1, C128, 1, (int64_t[]){2}, NULL,
            (double[]){0, -0.0}, (double[]){0, -0.0});
  ew_expect(__LINE__, "prims::reciprocal", args, 1, C128, 1, (int64_t[]){2}, NULL,
            (double[]){0, -0.0}, (double[]){0, -0.0});
  /* rsqrt(inf-0j) = 1/sqrt(inf-0j) = 1/(inf-0j): np.complex128(1)/np.complex128(complex(inf,-0.))
   * -> 0j; rsqrt(0j) = 1/(0+0j): c10's zero-divisor branch (1/0, 0/0) = inf+nanj */
  tabi_tensor *r = cplx(C128, 2, (double[]){INFINITY, 0}, (double[]){-0.0, 0});
  tabi_value rargs[] = {tabi_tensor_value(r)};
  ew_expect(__LINE__, "aten::rsqrt", rargs, 1, C128, 1, (int64_t[]){2}, NULL,
            (double[]){0, INFINITY}, (double[]){0, NAN});
  tabi_tensor_release(a);
  tabi_tensor_release(r);
}

static void test_sigmoid(void) {
  /* torch.sigmoid(torch.tensor([complex(-inf,1), 0.5+0j], dtype=torch.complex128))
   *   -> [(nan+nanj), (0.6224593312018546+0j)]  (C99 division would give 0 for the first) */
  tabi_tensor *a = cplx(C128, 2, (double[]){-INFINITY, 0.5}, (double[]){1, 0});
  tabi_value args[] = {tabi_tensor_value(a)};
  ew_expect(__LINE__, "aten::sigmoid", args, 1, C128, 1, (int64_t[]){2}, NULL,
            (double[]){NAN, 0.6224593312018546}, (double[]){NAN, 0});
  tabi_tensor_release(a);
}

static void test_pow_zero_base(void) {
  /* torch.pow(torch.zeros(4, dtype=torch.complex128),
   *           torch.tensor([0j, -1+0j, 2+0j, complex(nan,0)], dtype=torch.complex128))
   *   -> [(nan+nanj), (inf+nanj), -0j, (nan+nanj)]  (glibc cpow: no zero-base shortcut) */
  tabi_tensor *z = cplx(C128, 4, (double[]){0, 0, 0, 0}, (double[]){0, 0, 0, 0});
  tabi_tensor *e = cplx(C128, 4, (double[]){0, -1, 2, NAN}, (double[]){0, 0, 0, 0});
  tabi_value args[] = {tabi_tensor_value(z), tabi_tensor_value(e)};
  const double want_re[] = {NAN, INFINITY, 0, NAN}, want_im[] = {NAN, NAN, -0.0, NAN};
  ew_expect(__LINE__, "aten::pow.Tensor_Tensor", args, 2, C128, 1, (int64_t[]){4}, NULL, want_re, want_im);
  ew_expect(__LINE__, "prims::pow", args, 2, C128, 1, (int64_t[]){4}, NULL, want_re, want_im);
  /* torch.pow(0.0, torch.tensor([0j, -1+0j, 2+0j, complex(nan,0)], dtype=torch.complex128))
   *   -> [(nan+nanj), (inf+nanj), -0j, (nan+nanj)] */
  tabi_value sargs[] = {tabi_float(0.0), tabi_tensor_value(e)};
  ew_expect(__LINE__, "aten::pow.Scalar", sargs, 2, C128, 1, (int64_t[]){4}, NULL, want_re, want_im);
  tabi_tensor_release(z);
  tabi_tensor_release(e);
}

static void test_pow_complex64_in_float(void) {
  /* torch.pow(torch.tensor([-1.5+1j, 9.180046369638309e-41+1j], dtype=torch.complex64),
   *           torch.tensor([complex(-3.4028234663852886e+38,1), complex(-inf,1)], dtype=torch.complex64))
   *   -> [(nan+nanj), (nan+nanj)]  (cpowf; in complex128 the same values give [(-0+0j), -0j]) */
  tabi_tensor *b = cplx(C64, 2, (double[]){-1.5, 9.180046369638309e-41}, (double[]){1, 1});
  tabi_tensor *e = cplx(C64, 2, (double[]){-3.4028234663852886e+38, -INFINITY}, (double[]){1, 1});
  tabi_value args[] = {tabi_tensor_value(b), tabi_tensor_value(e)};
  ew_expect(__LINE__, "aten::pow.Tensor_Tensor", args, 2, C64, 1, (int64_t[]){2}, NULL,
            (double[]){NAN, NAN}, (double[]){NAN, NAN});
  tabi_tensor_release(b);
  tabi_tensor_release(e);
}

static void test_floor_div_overflow(void) {
  /* torch.div(torch.tensor([-1.7976931348623157e308, 0.5, inf, -inf], dtype=torch.float64),
   *           torch.tensor([4.9e-322, -4.9e-322, 2.0, 3.0], dtype=torch.float64), rounding_mode='floor')
   *   -> [-inf, -inf, nan, nan]  (ATen's div_floor_floating: fmod(inf, b) is NaN; a 4-element
   *   tensor takes torch 1.13's scalar path, its AVX2 path gives NaN for the first two) */
  tabi_tensor *a = ew_make(TABI_DTYPE_FLOAT64, 1, (int64_t[]){4}, NULL,
                           (double[]){-1.7976931348623157e308, 0.5, INFINITY, -INFINITY}, NULL, EW_STEP);
  tabi_tensor *b = ew_make(TABI_DTYPE_FLOAT64, 1, (int64_t[]){4}, NULL,
                           (double[]){4.9e-322, -4.9e-322, 2.0, 3.0}, NULL, EW_CONTIG);
  tabi_value args[] = {tabi_tensor_value(a), tabi_tensor_value(b), tabi_string("floor", 5)};
  ew_expect(__LINE__, "aten::div.Tensor_mode", args, 3, TABI_DTYPE_FLOAT64, 1, (int64_t[]){4}, NULL,
            (double[]){-INFINITY, -INFINITY, NAN, NAN}, NULL);
  tabi_tensor_release(a);
  tabi_tensor_release(b);
}

int main(void) {
  ew_setup();
  test_div_smith();
  test_div_scalar_inf();
  test_reciprocal_rsqrt();
  test_sigmoid();
  test_pow_zero_base();
  test_pow_complex64_in_float();
  test_floor_div_overflow();
  ew_teardown();
  return check_report();
}
