/* plugins/cpu/cpu_reduce_kern.c: row kernels (see cpu_reduce_kern.h). AVX2
 * versions behind the runtime check, plain C otherwise; both are exact
 * functions of their input. */
#include <immintrin.h>
#include <math.h>

#include "cpu_reduce_kern.h"

__attribute__((target("avx2"))) static double sum_avx2(const float *x, int64_t n) {
  __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 v0 = _mm256_loadu_ps(x + i), v1 = _mm256_loadu_ps(x + i + 8);
    a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(v0)));
    a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(v0, 1)));
    a2 = _mm256_add_pd(a2, _mm256_cvtps_pd(_mm256_castps256_ps128(v1)));
    a3 = _mm256_add_pd(a3, _mm256_cvtps_pd(_mm256_extractf128_ps(v1, 1)));
  }
  __m256d s = _mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3));
  double l[4];
  _mm256_storeu_pd(l, s);
  double r = (l[0] + l[1]) + (l[2] + l[3]);
  for (; i < n; i++) r += x[i];
  return r;
}

__attribute__((target("avx2,fma"))) static double sumsq_avx2(const float *x, int64_t n,
                                                             double mean) {
  __m256d a0 = _mm256_setzero_pd(), a1 = a0, m = _mm256_set1_pd(mean);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), m);
    __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), m);
    a0 = _mm256_fmadd_pd(d0, d0, a0);
    a1 = _mm256_fmadd_pd(d1, d1, a1);
  }
  double l[4];
  _mm256_storeu_pd(l, _mm256_add_pd(a0, a1));
  double r = (l[0] + l[1]) + (l[2] + l[3]);
  for (; i < n; i++) r += (x[i] - mean) * (x[i] - mean);
  return r;
}

__attribute__((target("avx2"))) static float max_avx2(const float *x, int64_t n, int take_min) {
  __m256 m = _mm256_set1_ps(x[0]), nan = _mm256_setzero_ps();
  int64_t i = 0;
  if (take_min) {
    for (; i + 8 <= n; i += 8) {
      __m256 v = _mm256_loadu_ps(x + i);
      m = _mm256_min_ps(m, v);
      nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    }
  } else {
    for (; i + 8 <= n; i += 8) {
      __m256 v = _mm256_loadu_ps(x + i);
      m = _mm256_max_ps(m, v);
      nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    }
  }
  if (_mm256_movemask_ps(nan)) return NAN;
  float l[8];
  _mm256_storeu_ps(l, m);
  float r = l[0];
  for (int k = 1; k < 8; k++) r = take_min ? (l[k] < r ? l[k] : r) : (l[k] > r ? l[k] : r);
  for (; i < n; i++) {
    if (x[i] != x[i]) return NAN;
    r = take_min ? (x[i] < r ? x[i] : r) : (x[i] > r ? x[i] : r);
  }
  return r;
}

double cpu_sum_f32(const cpu_ctx *c, const float *x, int64_t n) {
  if (c->has_avx2) return sum_avx2(x, n);
  double l[4] = {0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int k = 0; k < 4; k++) l[k] += x[i + k];
  double r = (l[0] + l[1]) + (l[2] + l[3]);
  for (; i < n; i++) r += x[i];
  return r;
}

double cpu_sumsq_dev_f32(const cpu_ctx *c, const float *x, int64_t n, double mean) {
  if (c->has_avx2) return sumsq_avx2(x, n, mean);
  double r = 0;
  for (int64_t i = 0; i < n; i++) r += (x[i] - mean) * (x[i] - mean);
  return r;
}

float cpu_max_f32(const cpu_ctx *c, const float *x, int64_t n, int take_min) {
  if (c->has_avx2) return max_avx2(x, n, take_min);
  float r = x[0];
  for (int64_t i = 0; i < n; i++) {
    if (x[i] != x[i]) return NAN;
    r = take_min ? (x[i] < r ? x[i] : r) : (x[i] > r ? x[i] : r);
  }
  return r;
}
