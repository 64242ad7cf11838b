/* plugins/cpu/cpu_norm.h: what the softmax and norm kernels share: the
 * vector exp of a non-positive argument (cpu_norm.c's rows, cpu_norm2.c's
 * columns) and the entry points cpu_norm2.c adds to cpu_norm.c's kernels. */
#ifndef TABI_CPU_NORM_H
#define TABI_CPU_NORM_H

#include <immintrin.h>

#include "cpu.h"

#define T256 __attribute__((target("avx2,fma")))

/* exp(x) for x <= 0 (x - max of a softmax row or column), 8 lanes: the Cephes
 * reduction and polynomial of cpu_expf / the elementwise exp (about 1 ulp).
 * The argument is clamped at -87 so 2^k stays normal and one multiply scales
 * (e^-87 = 1.6e-38 then stands for a smaller value: an absolute error far
 * under atol, and 0 after scaling by 1/sum in any half type). NaN is kept: x86
 * max returns its second operand, x, when either is NaN. (gcc leaves cpu_expf
 * scalar: its float-to-int conversion may trap; hence the explicit code.) */
T256 static inline __m256 cpu_exp8_neg(__m256 x) {
  __m256 xc = _mm256_max_ps(_mm256_set1_ps(-87.0f), x);
  __m256 k = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.693359375f), xc);
  r = _mm256_fnmadd_ps(k, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
  /* k in [-126, 0]: 2^k normal (a NaN k gives some scale; p is NaN already) */
  __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

/* A row's mean and biased variance, in double (two passes: the mean, then the
 * squared deviations from it); a pure function of the row. */
void cpu_norm_stats(const cpu_ctx *c, const float *x, int64_t n, double *mean, double *var);

/* o = (x - mean) * rstd (* w) (+ b) over a row of n, w and b optional
 * (cpu_norm.c; layer norm's rows in float32 and in the half types); the mean
 * is subtracted at more than float precision. */
void cpu_norm_row(const float *x, float *o, int64_t n, double mean, float rstd, const float *w,
                  const float *b);

/* _softmax/_log_softmax cases the row kernel does not take: a reduced dim
 * with inner elements after it (columns), float64 rows, and float16 input
 * with half_to_float. 1 when handled (*st set), 0 to hand the call on. */
int cpu_softmax_more(const cpu_ctx *c, tabi_value *args, tabi_value *outs, int log, tabi_status *st);

/* native_layer_norm for float16/bfloat16 (parameters of the input's dtype or
 * float32) and float64, contiguous; same contract. */
int cpu_layer_norm_more(const cpu_ctx *c, tabi_value *args, tabi_value *outs, tabi_status *st);
/* weight and bias (args[2], args[3]) are None or have exactly normalized_shape
 * (args[1]), as ATen checks: the same count of elements is not enough. */
int cpu_ln_params_ok(const tabi_value *args);

#endif /* TABI_CPU_NORM_H */
