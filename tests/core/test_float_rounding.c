/* tests/core/test_float_rounding.c: does the compiler keep a float rounding
 * that the source asks for?
 *
 * The reference and the plugins compute float32 ops in double and round to
 * float where ATen's float arithmetic rounds: `(double)(float)x`. gcc 12.2 at
 * -O2 and -O3 drops that rounding when its SLP vectorizer packs two such round
 * trips into one vector (x86-64: the cvtsd2ss/cvtss2sd pair disappears and the
 * unrounded doubles are stored). Found when gpusim's addmm kept alpha = 1e-310
 * unrounded in float32 (docs/gpusim.md); a C compiler may not do this without
 * -ffast-math.
 *
 * This one file is the configure probe (cmake/tabiFloatRounding.cmake runs it
 * at -O2 and -O3; where it fails, the build adds -fno-tree-slp-vectorize),
 * the installed package's probe of a vendor's compiler
 * (tabi_float_rounding_probe.c, run by tabi_add_plugin), and a test built with
 * the project's own flags, so the build stays right if those flags or the
 * compiler change. It includes nothing of tabi's. Exit status 0: every rounding kept.
 */
#include <complex.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

/* The inputs come through volatiles, so no value is known at compile time. */
static volatile double g_in[4] = {0.1, 0.2, 0.3, 1e-310};

/* Two round trips side by side: the shape gcc 12.2 packs. */
NOINLINE static void pair(double a, double b, double *out) {
  double x = (double)(float)a, y = (double)(float)b;
  out[0] = x;
  out[1] = y;
}

/* The same through named float locals. */
NOINLINE static void pair_locals(double a, double b, double *out) {
  float fa = (float)a, fb = (float)b;
  out[0] = fa;
  out[1] = fb;
}

/* Four at once. */
NOINLINE static void quad(const double *in, double *out) {
  out[0] = (double)(float)in[0];
  out[1] = (double)(float)in[1];
  out[2] = (double)(float)in[2];
  out[3] = (double)(float)in[3];
}

/* A complex value rounded part by part (the reference's float32 complex
 * Scalars: ref_linalg.c's opmath_scalar). */
static inline double round_f32(double v) { return (double)(float)v; }
NOINLINE static double complex cround(double complex z) {
  return round_f32(creal(z)) + round_f32(cimag(z)) * I;
}

static int failed;

static void expect(const char *what, int i, double got, double in) {
  float f = (float)in; /* a store to float: rounds in every compiler */
  volatile float vf = f;
  double want = (double)vf;
  if (got != want && !(got != got && want != want)) {
    printf("FAIL %s[%d]: (double)(float)%.17g gave %.17g, not %.17g: the compiler dropped the "
           "rounding to float\n", what, i, in, got, want);
    failed++;
  }
}

int main(void) {
  double in[4], out[4];
  for (int i = 0; i < 4; i++) in[i] = g_in[i];

  pair(in[0], in[1], out);
  expect("pair", 0, out[0], in[0]);
  expect("pair", 1, out[1], in[1]);

  pair_locals(in[2], in[3], out);
  expect("pair_locals", 0, out[0], in[2]);
  expect("pair_locals", 1, out[1], in[3]);

  quad(in, out);
  for (int i = 0; i < 4; i++) expect("quad", i, out[i], in[i]);

  double complex z = cround(in[0] + in[3] * I);
  expect("complex.re", 0, creal(z), in[0]);
  expect("complex.im", 0, cimag(z), in[3]);

  printf("%d passed, %d failed\n", 10 - failed, failed);
  return failed != 0;
}
