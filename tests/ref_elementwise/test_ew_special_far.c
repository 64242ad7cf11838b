/* tests/ref_elementwise/test_ew_special_far.c: special functions far out, where
 * ATen's own algorithm cannot be the expected value because it does not finish.
 *
 * prims::zeta with a negative non-integer q walks |q| terms in ATen (torch
 * hangs for |q| near 1e15). The reference splits the sum at zero instead
 * (reference/ref_special_impl.h), so the expected values here are analytic:
 * for q = -(m + 1/2) the terms pair up as 2 * zeta(x, 1/2) less a tail of
 * order m^(1-x), and zeta(2, 1/2) = pi^2/2, zeta(4, 1/2) = pi^4/6; so
 * zeta(2, q) -> pi^2 and zeta(4, q) -> pi^4/3 to double precision once
 * m > 1e15. A 60 s ctest limit turns a walk back into a failure. */
#include "ew_helpers.h"

static void test_zeta_far_negative_q(void) {
  const double pi = 3.14159265358979323846;
  /* 2^52 - 0.5 is the largest non-integer double */
  const double q[] = {-(1e15 + 0.5), -(4503599627370496.0 - 0.5), -(1e15 + 0.5),
                      -(4503599627370496.0 - 0.5)};
  const double x[] = {2.0, 2.0, 4.0, 4.0};
  const double want[] = {pi * pi, pi * pi, pi * pi * pi * pi / 3, pi * pi * pi * pi / 3};
  tabi_tensor *tx = ew_make(TABI_DTYPE_FLOAT64, 1, (int64_t[]){4}, NULL, x, NULL, EW_CONTIG);
  tabi_tensor *tq = ew_make(TABI_DTYPE_FLOAT64, 1, (int64_t[]){4}, NULL, q, NULL, EW_CONTIG);
  tabi_value args[] = {tabi_tensor_value(tx), tabi_tensor_value(tq)};
  ew_expect(__LINE__, "prims::zeta", args, 2, TABI_DTYPE_FLOAT64, 1, (int64_t[]){4}, NULL, want,
            NULL);
  tabi_tensor_release(tx);
  tabi_tensor_release(tq);
}

int main(void) {
  ew_setup();
  test_zeta_far_negative_q();
  ew_teardown();
  return check_report();
}
