/* tests/cuda/test_rocm_complex.hip: the ROCm plugin's complex functions
 * (tcx::, plugins/cuda/tc_port_complex.h under hipcc) against glibc's C99
 * complex functions, which the reference plugin uses. Built by hipcc (the
 * same headers and libstdc++ wrappers as the device pass) and run on the host,
 * so no AMD GPU is needed; the device's libm (ocml) may still round the real
 * functions differently, which only AMD hardware can show.
 *
 * Asserts: every finite input of a grid of signed zeros, tiny, ordinary and
 * huge parts matches within 1e-12 relative (signs of zeros and branch cuts
 * included). Prints, without asserting, how many inf/NaN inputs differ (the
 * C99 Annex G special values are not all followed yet; see docs/cuda.md). */
#include <cmath>
#include <cstdio>

#include <tabi/tabi.h>

#include "tc_port_complex.h"

extern "C" {
double _Complex csin(double _Complex), ccos(double _Complex), casin(double _Complex),
    cacos(double _Complex), catan(double _Complex), csinh(double _Complex), ccosh(double _Complex),
    casinh(double _Complex), cacosh(double _Complex), catanh(double _Complex), csqrt(double _Complex),
    cexp(double _Complex), ctanh(double _Complex);
}

typedef tcx::complex<double> C;
typedef double _Complex (*c99_fn)(double _Complex);
typedef C (*tcx_fn)(const C &);

static bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  if (a == 0 && b == 0) return std::signbit(a) == std::signbit(b);
  return std::fabs(a - b) <= 1e-12 * std::fabs(b) || std::fabs(a - b) < 1e-300;
}

int main() {
  const double v[] = {0.0,  -0.0, 1e-300, -1e-300, 1e-9, -1e-9, 0.25, -0.25, 0.5,  -0.5, 1.0,
                      -1.0, 1.5,  -1.5,   2.0,     -3.5, 10.0,  -25.0, 300.0, 1e10, -1e10, 1e300,
                      -1e300, INFINITY, -INFINITY, NAN};
  const int nv = sizeof v / sizeof v[0];
  const char *names[] = {"sin",  "cos",   "asin",  "acos",  "atan", "sinh", "cosh",
                         "asinh", "acosh", "atanh", "sqrt", "exp",  "tanh"};
  c99_fn c99[] = {csin, ccos, casin, cacos, catan, csinh, ccosh, casinh, cacosh, catanh, csqrt, cexp, ctanh};
  tcx_fn ours[] = {tcx::sin<double>,   tcx::cos<double>,   tcx::asin<double>, tcx::acos<double>,
                   tcx::atan<double>,  tcx::sinh<double>,  tcx::cosh<double>, tcx::asinh<double>,
                   tcx::acosh<double>, tcx::atanh<double>, tcx::sqrt<double>, tcx::exp<double>,
                   tcx::tanh<double>};
  int finite_bad = 0, finite_total = 0;
  for (int f = 0; f < 13; f++) {
    int special_bad = 0, special_total = 0, bad = 0;
    for (int a = 0; a < nv; a++)
      for (int b = 0; b < nv; b++) {
        double _Complex z;
        __real__ z = v[a];
        __imag__ z = v[b];
        double _Complex r = c99[f](z);
        C q = ours[f](C(v[a], v[b]));
        bool ok = same(q.real(), __real__ r) && same(q.imag(), __imag__ r);
        if (std::isfinite(v[a]) && std::isfinite(v[b])) {
          finite_total++;
          if (!ok) {
            if (bad++ < 3)
              fprintf(stderr, "%s(%g%+gi): %.17g%+.17gi, glibc %.17g%+.17gi\n", names[f], v[a], v[b],
                      q.real(), q.imag(), __real__ r, __imag__ r);
            finite_bad++;
          }
        } else {
          special_total++;
          special_bad += !ok;
        }
      }
    printf("%-6s finite: %d differ; inf/NaN inputs: %d of %d differ\n", names[f], bad, special_bad,
           special_total);
  }
  printf("%d of %d finite cases differ from glibc\n", finite_bad, finite_total);
  return finite_bad == 0 && finite_total > 0 ? 0 : 1;
}
