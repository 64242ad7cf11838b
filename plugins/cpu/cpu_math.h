/* plugins/cpu/cpu_math.h: float32 math written so gcc vectorizes it.
 *
 * Branch-free (selects, not ifs) scalar code: inside a loop compiled for AVX2
 * gcc turns every function here into 8-wide vector code. Accuracy is what the
 * float32 tolerances (rtol 1.3e-6, atol 1e-5) need, not correctly rounded:
 *  - cpu_expf: Cephes' range reduction and degree-6 polynomial, about 1 ulp;
 *    exact at 0, +inf -> inf, -inf -> 0, NaN -> NaN, overflow to inf and
 *    underflow through the subnormals to 0 (the scale is applied in two halves).
 *  - cpu_erfcf_pos: Abramowitz & Stegun 7.1.26, absolute error <= 1.5e-7; gelu
 *    uses erfc so its negative half has no cancellation.
 */
#ifndef TABI_CPU_MATH_H
#define TABI_CPU_MATH_H

#include <math.h>
#include <stdint.h>

typedef union cpu_fbits {
  float f;
  int32_t i;
  uint32_t u;
} cpu_fbits;

static inline float cpu_pow2i(int32_t k) {
  cpu_fbits b;
  b.i = (k + 127) << 23;
  return b.f;
}

static inline float cpu_expf(float x) {
  float xc = x < -104.0f ? -104.0f : x;
  xc = xc > 88.8f ? 88.8f : xc;
  float k = floorf(xc * 1.44269504088896341f + 0.5f);
  float r = xc - k * 0.693359375f;
  r = r - k * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  float kk = k == k ? k : 0.0f; /* NaN: any scale; p is NaN already */
  int32_t ki = (int32_t)kk;
  int32_t k1 = ki / 2, k2 = ki - k1;
  return p * cpu_pow2i(k1) * cpu_pow2i(k2);
}

/* erfc(z) for z >= 0 (and NaN -> NaN). */
static inline float cpu_erfcf_pos(float z) {
  float t = 1.0f / (1.0f + 0.3275911f * z);
  float p = 1.061405429f;
  p = p * t + -1.453152027f;
  p = p * t + 1.421413741f;
  p = p * t + -0.284496736f;
  p = p * t + 0.254829592f;
  return p * t * cpu_expf(-z * z);
}

/* gelu(x) = x * Phi(x) = x * (1 - erfc(x/sqrt2)/2) for x >= 0, x * erfc(-x/sqrt2)/2 below. */
static inline float cpu_geluf(float x) {
  float z = fabsf(x) * 0.70710678118654752f;
  float q = 0.5f * cpu_erfcf_pos(z);
  return x * (x >= 0.0f ? 1.0f - q : q);
}

/* The tanh form: 0.5x(1 + tanh(y)) = x * e / (e + 1) with e = exp(2y), clamped
 * where e/(e+1) is 1 in float32 so inf/inf never happens. */
static inline float cpu_gelu_tanhf(float x) {
  float y = 0.79788456080286536f * (x + 0.044715f * x * x * x);
  float y2 = 2.0f * y;
  y2 = y2 > 40.0f ? 40.0f : y2;
  float e = cpu_expf(y2);
  return x * (e / (e + 1.0f));
}

static inline float cpu_sigmoidf(float x) { return 1.0f / (1.0f + cpu_expf(-x)); }

#endif /* TABI_CPU_MATH_H */
