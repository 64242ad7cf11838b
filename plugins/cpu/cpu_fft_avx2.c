/* plugins/cpu/cpu_fft_avx2.c: AVX2+FMA Stockham passes for float plans (see
 * cpu_fft_impl.h for the pass). A __m256 holds 4 interleaved complex floats.
 *
 * Two shapes are vectorized:
 * - radix 4, 2, 3 and 5 passes with stride s >= 4 (ranges of q a multiple of
 *   4): 4 consecutive q share one twiddle (broadcast), so loads and stores are
 *   plain unaligned vector moves;
 * - the first radix-4 pass (s == 1): 4 consecutive j, with their twiddles
 *   loaded as vectors (the table is k-major for this), and a 4x4 complex
 *   transpose so the outputs y[4j + k] go out as whole vectors.
 * Compiled with target attributes, called only when the plan says the CPU has
 * AVX2 and FMA (cpu_fft_cache_create's flag); anything else returns 0 and
 * runs the scalar pass. */
#include "cpu_fft_impl.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define TGT __attribute__((target("avx2,fma")))

/* a * w for 4 complex pairs */
TGT static inline __m256 cmul(__m256 a, __m256 w) {
  __m256 wr = _mm256_moveldup_ps(w), wi = _mm256_movehdup_ps(w);
  __m256 as = _mm256_permute_ps(a, 0xB1); /* (im, re) */
  return _mm256_fmaddsub_ps(a, wr, _mm256_mul_ps(as, wi));
}

/* -i * a = (im, -re) */
TGT static inline __m256 mul_negi(__m256 a) {
  const __m256 sg = _mm256_setr_ps(0.f, -0.f, 0.f, -0.f, 0.f, -0.f, 0.f, -0.f);
  return _mm256_xor_ps(_mm256_permute_ps(a, 0xB1), sg);
}

/* one complex value in all 4 slots */
TGT static inline __m256 bcast(const float *t) {
  return _mm256_setr_ps(t[0], t[1], t[0], t[1], t[0], t[1], t[0], t[1]);
}

/* One radix-4 butterfly at (j, q), scalar: the tails of the s == 1 pass. */
static void r4_one(const fft_pass *P, const float *tw, const float *x, float *y, int64_t j, int64_t q) {
  int64_t m = P->m, s = P->s, d = 2 * s * m, o = 2 * s;
  const float *xi = x + 2 * (q + s * j);
  float *yo = y + 2 * (q + s * 4 * j);
  float t0r = xi[0] + xi[2 * d], t0i = xi[1] + xi[2 * d + 1];
  float t1r = xi[0] - xi[2 * d], t1i = xi[1] - xi[2 * d + 1];
  float t2r = xi[d] + xi[3 * d], t2i = xi[d + 1] + xi[3 * d + 1];
  float t3r = xi[d + 1] - xi[3 * d + 1], t3i = xi[3 * d] - xi[d];
  float vr[4] = {t0r + t2r, t1r + t3r, t0r - t2r, t1r - t3r};
  float vi[4] = {t0i + t2i, t1i + t3i, t0i - t2i, t1i - t3i};
  yo[0] = vr[0];
  yo[1] = vi[0];
  for (int k = 1; k < 4; k++) {
    float wr = tw[2 * ((k - 1) * m + j)], wi = tw[2 * ((k - 1) * m + j) + 1];
    yo[k * o] = vr[k] * wr - vi[k] * wi;
    yo[k * o + 1] = vr[k] * wi + vi[k] * wr;
  }
}

TGT static void r4_first(const fft_pass *P, const float *tw, const float *x, float *y, int64_t j0,
                         int64_t j1) {
  const int64_t m = P->m;
  int64_t j = j0;
  for (; j + 4 <= j1; j += 4) {
    __m256 a0 = _mm256_loadu_ps(x + 2 * j), a1 = _mm256_loadu_ps(x + 2 * (j + m));
    __m256 a2 = _mm256_loadu_ps(x + 2 * (j + 2 * m)), a3 = _mm256_loadu_ps(x + 2 * (j + 3 * m));
    __m256 w1 = _mm256_loadu_ps(tw + 2 * j), w2 = _mm256_loadu_ps(tw + 2 * (m + j));
    __m256 w3 = _mm256_loadu_ps(tw + 2 * (2 * m + j));
    __m256 t0 = _mm256_add_ps(a0, a2), t1 = _mm256_sub_ps(a0, a2);
    __m256 t2 = _mm256_add_ps(a1, a3), t3 = mul_negi(_mm256_sub_ps(a1, a3));
    __m256d y0 = _mm256_castps_pd(_mm256_add_ps(t0, t2));
    __m256d y1 = _mm256_castps_pd(cmul(_mm256_add_ps(t1, t3), w1));
    __m256d y2 = _mm256_castps_pd(cmul(_mm256_sub_ps(t0, t2), w2));
    __m256d y3 = _mm256_castps_pd(cmul(_mm256_sub_ps(t1, t3), w3));
    /* 4x4 transpose of complex (64-bit) elements: o_l = (y0[l], y1[l], y2[l], y3[l]) */
    __m256d u0 = _mm256_unpacklo_pd(y0, y1), u1 = _mm256_unpackhi_pd(y0, y1);
    __m256d u2 = _mm256_unpacklo_pd(y2, y3), u3 = _mm256_unpackhi_pd(y2, y3);
    float *yo = y + 8 * j;
    _mm256_storeu_ps(yo, _mm256_castpd_ps(_mm256_permute2f128_pd(u0, u2, 0x20)));
    _mm256_storeu_ps(yo + 8, _mm256_castpd_ps(_mm256_permute2f128_pd(u1, u3, 0x20)));
    _mm256_storeu_ps(yo + 16, _mm256_castpd_ps(_mm256_permute2f128_pd(u0, u2, 0x31)));
    _mm256_storeu_ps(yo + 24, _mm256_castpd_ps(_mm256_permute2f128_pd(u1, u3, 0x31)));
  }
  for (; j < j1; j++) r4_one(P, tw, x, y, j, 0);
}

TGT static void r4_q(const fft_pass *P, const float *tw, const float *x, float *y, int64_t j0, int64_t j1,
                     int64_t q0, int64_t q1) {
  const int64_t m = P->m, s = P->s, d = 2 * s * m, o = 2 * s;
  for (int64_t j = j0; j < j1; j++) {
    __m256 w1 = bcast(tw + 2 * j), w2 = bcast(tw + 2 * (m + j)), w3 = bcast(tw + 2 * (2 * m + j));
    const float *xi = x + 2 * s * j;
    float *yo = y + 2 * s * 4 * j;
    for (int64_t q = q0; q < q1; q += 4) {
      const float *xq = xi + 2 * q;
      float *yq = yo + 2 * q;
      __m256 a0 = _mm256_loadu_ps(xq), a1 = _mm256_loadu_ps(xq + d);
      __m256 a2 = _mm256_loadu_ps(xq + 2 * d), a3 = _mm256_loadu_ps(xq + 3 * d);
      __m256 t0 = _mm256_add_ps(a0, a2), t1 = _mm256_sub_ps(a0, a2);
      __m256 t2 = _mm256_add_ps(a1, a3), t3 = mul_negi(_mm256_sub_ps(a1, a3));
      _mm256_storeu_ps(yq, _mm256_add_ps(t0, t2));
      _mm256_storeu_ps(yq + o, cmul(_mm256_add_ps(t1, t3), w1));
      _mm256_storeu_ps(yq + 2 * o, cmul(_mm256_sub_ps(t0, t2), w2));
      _mm256_storeu_ps(yq + 3 * o, cmul(_mm256_sub_ps(t1, t3), w3));
    }
  }
}

TGT static void r2_q(const fft_pass *P, const float *tw, const float *x, float *y, int64_t j0, int64_t j1,
                     int64_t q0, int64_t q1) {
  const int64_t m = P->m, s = P->s, d = 2 * s * m, o = 2 * s;
  (void)m;
  for (int64_t j = j0; j < j1; j++) {
    __m256 w1 = bcast(tw + 2 * j);
    const float *xi = x + 2 * s * j;
    float *yo = y + 2 * s * 2 * j;
    for (int64_t q = q0; q < q1; q += 4) {
      __m256 a0 = _mm256_loadu_ps(xi + 2 * q), a1 = _mm256_loadu_ps(xi + 2 * q + d);
      _mm256_storeu_ps(yo + 2 * q, _mm256_add_ps(a0, a1));
      _mm256_storeu_ps(yo + 2 * q + o, cmul(_mm256_sub_ps(a0, a1), w1));
    }
  }
}

TGT static void r3_q(const fft_pass *P, const float *tw, const float *x, float *y, int64_t j0, int64_t j1,
                     int64_t q0, int64_t q1) {
  const int64_t m = P->m, s = P->s, d = 2 * s * m, o = 2 * s;
  const __m256 half = _mm256_set1_ps(0.5f), k3 = _mm256_set1_ps(0.86602540378443864676f);
  for (int64_t j = j0; j < j1; j++) {
    __m256 w1 = bcast(tw + 2 * j), w2 = bcast(tw + 2 * (m + j));
    const float *xi = x + 2 * s * j;
    float *yo = y + 2 * s * 3 * j;
    for (int64_t q = q0; q < q1; q += 4) {
      const float *xq = xi + 2 * q;
      float *yq = yo + 2 * q;
      __m256 a0 = _mm256_loadu_ps(xq), a1 = _mm256_loadu_ps(xq + d), a2 = _mm256_loadu_ps(xq + 2 * d);
      __m256 t = _mm256_add_ps(a1, a2);
      __m256 u = _mm256_mul_ps(k3, mul_negi(_mm256_sub_ps(a1, a2))); /* -i sin(2pi/3) (a1 - a2) */
      __m256 v = _mm256_fnmadd_ps(half, t, a0);
      _mm256_storeu_ps(yq, _mm256_add_ps(a0, t));
      _mm256_storeu_ps(yq + o, cmul(_mm256_add_ps(v, u), w1));
      _mm256_storeu_ps(yq + 2 * o, cmul(_mm256_sub_ps(v, u), w2));
    }
  }
}

TGT static void r5_q(const fft_pass *P, const float *tw, const float *x, float *y, int64_t j0, int64_t j1,
                     int64_t q0, int64_t q1) {
  const int64_t m = P->m, s = P->s, d = 2 * s * m, o = 2 * s;
  /* cos(2pi/5), cos(4pi/5), and the negated sines (forward: -sin) */
  const __m256 c1 = _mm256_set1_ps(0.30901699437494742410f), c2 = _mm256_set1_ps(-0.80901699437494742410f);
  const __m256 s1 = _mm256_set1_ps(0.95105651629515357212f), s2 = _mm256_set1_ps(0.58778525229247312917f);
  for (int64_t j = j0; j < j1; j++) {
    __m256 w1 = bcast(tw + 2 * j), w2 = bcast(tw + 2 * (m + j));
    __m256 w3 = bcast(tw + 2 * (2 * m + j)), w4 = bcast(tw + 2 * (3 * m + j));
    const float *xi = x + 2 * s * j;
    float *yo = y + 2 * s * 5 * j;
    for (int64_t q = q0; q < q1; q += 4) {
      const float *xq = xi + 2 * q;
      float *yq = yo + 2 * q;
      __m256 a0 = _mm256_loadu_ps(xq), a1 = _mm256_loadu_ps(xq + d), a2 = _mm256_loadu_ps(xq + 2 * d);
      __m256 a3 = _mm256_loadu_ps(xq + 3 * d), a4 = _mm256_loadu_ps(xq + 4 * d);
      __m256 b1 = _mm256_add_ps(a1, a4), b2 = _mm256_add_ps(a2, a3);
      __m256 d1 = _mm256_sub_ps(a1, a4), d2 = _mm256_sub_ps(a2, a3);
      __m256 r1 = _mm256_fmadd_ps(c2, b2, _mm256_fmadd_ps(c1, b1, a0));
      __m256 r2 = _mm256_fmadd_ps(c1, b2, _mm256_fmadd_ps(c2, b1, a0));
      /* i (-s1 d1 - s2 d2) = -i (s1 d1 + s2 d2); i (-s2 d1 + s1 d2) = -i (s2 d1 - s1 d2) */
      __m256 i1 = mul_negi(_mm256_fmadd_ps(s2, d2, _mm256_mul_ps(s1, d1)));
      __m256 i2 = mul_negi(_mm256_fnmadd_ps(s1, d2, _mm256_mul_ps(s2, d1)));
      _mm256_storeu_ps(yq, _mm256_add_ps(a0, _mm256_add_ps(b1, b2)));
      _mm256_storeu_ps(yq + o, cmul(_mm256_add_ps(r1, i1), w1));
      _mm256_storeu_ps(yq + 2 * o, cmul(_mm256_add_ps(r2, i2), w2));
      _mm256_storeu_ps(yq + 3 * o, cmul(_mm256_sub_ps(r2, i2), w3));
      _mm256_storeu_ps(yq + 4 * o, cmul(_mm256_sub_ps(r1, i1), w4));
    }
  }
}

int cpu_fft_pass_avx2(const fft_pass *P, const float *twt, const float *x, float *y, int64_t j0,
                      int64_t j1, int64_t q0, int64_t q1) {
  const float *tw = twt + 2 * P->tw;
  if (P->radix == 4 && P->s == 1) {
    r4_first(P, tw, x, y, j0, j1);
    return 1;
  }
  if (P->s < 4 || (q1 - q0) % 4 != 0) return 0;
  if (P->radix == 4) {
    r4_q(P, tw, x, y, j0, j1, q0, q1);
    return 1;
  }
  if (P->radix == 2) {
    r2_q(P, tw, x, y, j0, j1, q0, q1);
    return 1;
  }
  if (P->radix == 3) {
    r3_q(P, tw, x, y, j0, j1, q0, q1);
    return 1;
  }
  if (P->radix == 5) {
    r5_q(P, tw, x, y, j0, j1, q0, q1);
    return 1;
  }
  return 0;
}

#else /* no x86: the scalar passes do everything */

int cpu_fft_pass_avx2(const fft_pass *P, const float *twt, const float *x, float *y, int64_t j0,
                      int64_t j1, int64_t q0, int64_t q1) {
  (void)P; (void)twt; (void)x; (void)y; (void)j0; (void)j1; (void)q0; (void)q1;
  return 0;
}

#endif
