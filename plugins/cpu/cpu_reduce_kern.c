/* plugins/cpu/cpu_reduce_kern.c: row kernels (see cpu_reduce_kern.h).
 *
 * Three builds of every kernel: AVX-512F, AVX2 (+FMA, F16C), plain C, one
 * picked once per process (red_isa: AVX2 by default). Each is a pure function
 * of its input; the ISA is fixed for a machine, so results are too. Tails
 * are finished in scalar code, never by reading past the end. */
#include <immintrin.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/half.h>

#include "cpu_reduce_kern.h"

#define T512 __attribute__((target("avx512f")))
#define T256 __attribute__((target("avx2,fma,f16c")))

/* The instruction set, chosen once per process (a property of the machine).
 * The AVX2 kernels are the default even where AVX-512 exists: on the Zen 4
 * this was tuned on (512-bit ops run as two 256-bit halves) they were 10-40%
 * faster on every reduction, the AVX-512 ones never faster. TABI_CPU_ISA=
 * avx512 selects the AVX-512 kernels, =avx2 / =scalar cap the choice (the
 * tests run all three). */
static int red_isa_v;
static pthread_once_t red_isa_once = PTHREAD_ONCE_INIT;

static void red_isa_pick(void) {
  __builtin_cpu_init();
  const char *cap = getenv("TABI_CPU_ISA");
  int allow512 = cap && strcmp(cap, "avx512") == 0;
  int allow2 = !cap || allow512 || strcmp(cap, "avx2") == 0;
  int has2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("f16c");
  if (allow512 && has2 && __builtin_cpu_supports("avx512f")) red_isa_v = 2;
  else if (allow2 && has2) red_isa_v = 1;
  else red_isa_v = 0;
}

static int red_isa(void) {
  pthread_once(&red_isa_once, red_isa_pick);
  return red_isa_v;
}

/* --- loads: n elements widened to float32 (double for float64) ----------------- */

static inline float s1_f32(const void *p, int64_t i) { return ((const float *)p)[i]; }
static inline float s1_f16(const void *p, int64_t i) { return tabi_f16_to_f32(((const uint16_t *)p)[i]); }
static inline float s1_bf16(const void *p, int64_t i) { return tabi_bf16_to_f32(((const uint16_t *)p)[i]); }
static inline double s1_f64(const void *p, int64_t i) { return ((const double *)p)[i]; }

T512 static inline __m512 l16_f32(const void *p, int64_t i) { return _mm512_loadu_ps((const float *)p + i); }
T512 static inline __m512 l16_f16(const void *p, int64_t i) {
  return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)((const uint16_t *)p + i)));
}
T512 static inline __m512 l16_bf16(const void *p, int64_t i) {
  __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)((const uint16_t *)p + i)));
  return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
}
T256 static inline __m256 l8_f32(const void *p, int64_t i) { return _mm256_loadu_ps((const float *)p + i); }
T256 static inline __m256 l8_f16(const void *p, int64_t i) {
  return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const uint16_t *)p + i)));
}
T256 static inline __m256 l8_bf16(const void *p, int64_t i) {
  __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)((const uint16_t *)p + i)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

T512 static inline __m512d lo512(__m512 a) { return _mm512_cvtps_pd(_mm512_castps512_ps256(a)); }
T512 static inline __m512d hi512(__m512 a) {
  return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1)));
}
T256 static inline __m256d lo256(__m256 a) { return _mm256_cvtps_pd(_mm256_castps256_ps128(a)); }
T256 static inline __m256d hi256(__m256 a) { return _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)); }

/* Horizontal sums in one fixed order. */
T512 static inline double hsum512(__m512d v) {
  double l[8];
  _mm512_storeu_pd(l, v);
  return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}
T256 static inline double hsum256(__m256d v) {
  double l[4];
  _mm256_storeu_pd(l, v);
  return (l[0] + l[1]) + (l[2] + l[3]);
}

/* NaN-sticky max/min of two doubles: once NaN, NaN. */
static inline double pick(double acc, double v, int take_min) {
  if (acc != acc) return acc;
  if (v != v) return v;
  return take_min ? (v < acc ? v : acc) : (v > acc ? v : acc);
}

/* --- sums ------------------------------------------------------------------------ */

/* float-like: 256-element blocks summed in float32 (4 accumulators x 4 steps,
 * then pairwise), block partials added in double. */
#define DEF_SUM512(NAME, LD, S1)                                                         \
  T512 static double NAME(const void *x, int64_t n) {                                  \
    __m512d d0 = _mm512_setzero_pd(), d1 = d0;                                         \
    int64_t i = 0;                                                                     \
    for (; i + 256 <= n; i += 256) {                                                   \
      __m512 a0 = LD(x, i), a1 = LD(x, i + 16), a2 = LD(x, i + 32), a3 = LD(x, i + 48);\
      for (int64_t k = i + 64; k < i + 256; k += 64) {                                 \
        a0 = _mm512_add_ps(a0, LD(x, k));                                              \
        a1 = _mm512_add_ps(a1, LD(x, k + 16));                                         \
        a2 = _mm512_add_ps(a2, LD(x, k + 32));                                         \
        a3 = _mm512_add_ps(a3, LD(x, k + 48));                                         \
      }                                                                                \
      __m512 a = _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3));          \
      d0 = _mm512_add_pd(d0, lo512(a));                                                \
      d1 = _mm512_add_pd(d1, hi512(a));                                                \
    }                                                                                  \
    for (; i + 16 <= n; i += 16) {                                                     \
      __m512 a = LD(x, i);                                                             \
      d0 = _mm512_add_pd(d0, lo512(a));                                                \
      d1 = _mm512_add_pd(d1, hi512(a));                                                \
    }                                                                                  \
    double r = hsum512(_mm512_add_pd(d0, d1));                                         \
    for (; i < n; i++) r += S1(x, i);                                                  \
    return r;                                                                          \
  }
DEF_SUM512(sum512_f32, l16_f32, s1_f32)
DEF_SUM512(sum512_f16, l16_f16, s1_f16)
DEF_SUM512(sum512_bf16, l16_bf16, s1_bf16)

#define DEF_SUM256(NAME, LD, S1)                                                       \
  T256 static double NAME(const void *x, int64_t n) {                                  \
    __m256d d0 = _mm256_setzero_pd(), d1 = d0;                                         \
    int64_t i = 0;                                                                     \
    for (; i + 128 <= n; i += 128) {                                                   \
      __m256 a0 = LD(x, i), a1 = LD(x, i + 8), a2 = LD(x, i + 16), a3 = LD(x, i + 24); \
      for (int64_t k = i + 32; k < i + 128; k += 32) {                                 \
        a0 = _mm256_add_ps(a0, LD(x, k));                                              \
        a1 = _mm256_add_ps(a1, LD(x, k + 8));                                          \
        a2 = _mm256_add_ps(a2, LD(x, k + 16));                                         \
        a3 = _mm256_add_ps(a3, LD(x, k + 24));                                         \
      }                                                                                \
      __m256 a = _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3));          \
      d0 = _mm256_add_pd(d0, lo256(a));                                                \
      d1 = _mm256_add_pd(d1, hi256(a));                                                \
    }                                                                                  \
    for (; i + 8 <= n; i += 8) {                                                       \
      __m256 a = LD(x, i);                                                             \
      d0 = _mm256_add_pd(d0, lo256(a));                                                \
      d1 = _mm256_add_pd(d1, hi256(a));                                                \
    }                                                                                  \
    double r = hsum256(_mm256_add_pd(d0, d1));                                         \
    for (; i < n; i++) r += S1(x, i);                                                  \
    return r;                                                                          \
  }
DEF_SUM256(sum256_f32, l8_f32, s1_f32)
DEF_SUM256(sum256_f16, l8_f16, s1_f16)
DEF_SUM256(sum256_bf16, l8_bf16, s1_bf16)

#define DEF_SUMC(NAME, S1)                                  \
  static double NAME(const void *x, int64_t n) {            \
    double l[4] = {0, 0, 0, 0};                             \
    int64_t i = 0;                                          \
    for (; i + 4 <= n; i += 4)                              \
      for (int k = 0; k < 4; k++) l[k] += S1(x, i + k);     \
    double r = (l[0] + l[1]) + (l[2] + l[3]);               \
    for (; i < n; i++) r += S1(x, i);                       \
    return r;                                               \
  }
DEF_SUMC(sumc_f32, s1_f32)
DEF_SUMC(sumc_f16, s1_f16)
DEF_SUMC(sumc_bf16, s1_bf16)
DEF_SUMC(sumc_f64, s1_f64)

T512 static double sum512_f64(const void *p, int64_t n) {
  const double *x = p;
  __m512d a0 = _mm512_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 = _mm512_add_pd(a0, _mm512_loadu_pd(x + i));
    a1 = _mm512_add_pd(a1, _mm512_loadu_pd(x + i + 8));
    a2 = _mm512_add_pd(a2, _mm512_loadu_pd(x + i + 16));
    a3 = _mm512_add_pd(a3, _mm512_loadu_pd(x + i + 24));
  }
  for (; i + 8 <= n; i += 8) a0 = _mm512_add_pd(a0, _mm512_loadu_pd(x + i));
  double r = hsum512(_mm512_add_pd(_mm512_add_pd(a0, a1), _mm512_add_pd(a2, a3)));
  for (; i < n; i++) r += x[i];
  return r;
}

T256 static double sum256_f64(const void *p, int64_t n) {
  const double *x = p;
  __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    a0 = _mm256_add_pd(a0, _mm256_loadu_pd(x + i));
    a1 = _mm256_add_pd(a1, _mm256_loadu_pd(x + i + 4));
    a2 = _mm256_add_pd(a2, _mm256_loadu_pd(x + i + 8));
    a3 = _mm256_add_pd(a3, _mm256_loadu_pd(x + i + 12));
  }
  for (; i + 4 <= n; i += 4) a0 = _mm256_add_pd(a0, _mm256_loadu_pd(x + i));
  double r = hsum256(_mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)));
  for (; i < n; i++) r += x[i];
  return r;
}

/* Exact widening: every element into double, double lanes (dtype=float64). */
#define DEF_SUMD512(NAME, LD, S1)                                                     \
  T512 static double NAME(const void *x, int64_t n) {                                 \
    __m512d d0 = _mm512_setzero_pd(), d1 = d0, d2 = d0, d3 = d0;                      \
    int64_t i = 0;                                                                    \
    for (; i + 32 <= n; i += 32) {                                                    \
      __m512 a = LD(x, i), b = LD(x, i + 16);                                         \
      d0 = _mm512_add_pd(d0, lo512(a));                                               \
      d1 = _mm512_add_pd(d1, hi512(a));                                               \
      d2 = _mm512_add_pd(d2, lo512(b));                                               \
      d3 = _mm512_add_pd(d3, hi512(b));                                               \
    }                                                                                 \
    double r = hsum512(_mm512_add_pd(_mm512_add_pd(d0, d1), _mm512_add_pd(d2, d3)));  \
    for (; i < n; i++) r += S1(x, i);                                                 \
    return r;                                                                         \
  }
DEF_SUMD512(sumd512_f32, l16_f32, s1_f32)
DEF_SUMD512(sumd512_f16, l16_f16, s1_f16)
DEF_SUMD512(sumd512_bf16, l16_bf16, s1_bf16)

#define DEF_SUMD256(NAME, LD, S1)                                                     \
  T256 static double NAME(const void *x, int64_t n) {                                 \
    __m256d d0 = _mm256_setzero_pd(), d1 = d0, d2 = d0, d3 = d0;                      \
    int64_t i = 0;                                                                    \
    for (; i + 16 <= n; i += 16) {                                                    \
      __m256 a = LD(x, i), b = LD(x, i + 8);                                          \
      d0 = _mm256_add_pd(d0, lo256(a));                                               \
      d1 = _mm256_add_pd(d1, hi256(a));                                               \
      d2 = _mm256_add_pd(d2, lo256(b));                                               \
      d3 = _mm256_add_pd(d3, hi256(b));                                               \
    }                                                                                 \
    double r = hsum256(_mm256_add_pd(_mm256_add_pd(d0, d1), _mm256_add_pd(d2, d3)));  \
    for (; i < n; i++) r += S1(x, i);                                                 \
    return r;                                                                         \
  }
DEF_SUMD256(sumd256_f32, l8_f32, s1_f32)
DEF_SUMD256(sumd256_f16, l8_f16, s1_f16)
DEF_SUMD256(sumd256_bf16, l8_bf16, s1_bf16)

double cpu_red_sumd(tabi_dtype dt, const void *x, int64_t n) {
  int isa = red_isa();
  switch (dt) {
    case TABI_DTYPE_FLOAT32: return isa == 2 ? sumd512_f32(x, n) : isa ? sumd256_f32(x, n) : sumc_f32(x, n);
    case TABI_DTYPE_FLOAT16: return isa == 2 ? sumd512_f16(x, n) : isa ? sumd256_f16(x, n) : sumc_f16(x, n);
    case TABI_DTYPE_BFLOAT16: return isa == 2 ? sumd512_bf16(x, n) : isa ? sumd256_bf16(x, n) : sumc_bf16(x, n);
    default: return cpu_red_sum(dt, x, n);
  }
}

double cpu_red_sum(tabi_dtype dt, const void *x, int64_t n) {
  int isa = red_isa();
  switch (dt) {
    case TABI_DTYPE_FLOAT32: return isa == 2 ? sum512_f32(x, n) : isa ? sum256_f32(x, n) : sumc_f32(x, n);
    case TABI_DTYPE_FLOAT16: return isa == 2 ? sum512_f16(x, n) : isa ? sum256_f16(x, n) : sumc_f16(x, n);
    case TABI_DTYPE_BFLOAT16: return isa == 2 ? sum512_bf16(x, n) : isa ? sum256_bf16(x, n) : sumc_bf16(x, n);
    default: return isa == 2 ? sum512_f64(x, n) : isa ? sum256_f64(x, n) : sumc_f64(x, n);
  }
}

/* --- max / min ------------------------------------------------------------------- */

/* m = max(v, m) keeps m when m is NaN (the second operand wins on NaN); the
 * masked move makes a NaN v stick. */
#define STEP512(OP, m, v)                                                             \
  do {                                                                               \
    __m512 v_ = (v);                                                                 \
    m = _mm512_mask_mov_ps(OP(v_, m), _mm512_cmp_ps_mask(v_, v_, _CMP_UNORD_Q), v_); \
  } while (0)
#define DEF_MAX512(NAME, LD, S1, OP)                                                     \
  T512 static double NAME(const void *x, int64_t n, int take_min) {                      \
    __m512 m0 = LD(x, 0), m1 = m0, m2 = m0, m3 = m0;                                     \
    int64_t i = 0;                                                                       \
    for (; i + 64 <= n; i += 64) {                                                       \
      STEP512(OP, m0, LD(x, i));                                                         \
      STEP512(OP, m1, LD(x, i + 16));                                                    \
      STEP512(OP, m2, LD(x, i + 32));                                                    \
      STEP512(OP, m3, LD(x, i + 48));                                                    \
    }                                                                                    \
    for (; i + 16 <= n; i += 16) STEP512(OP, m0, LD(x, i));                              \
    STEP512(OP, m0, m1);                                                                 \
    STEP512(OP, m2, m3);                                                                 \
    STEP512(OP, m0, m2);                                                                 \
    float l[16];                                                                         \
    _mm512_storeu_ps(l, m0);                                                             \
    double r = l[0];                                                                     \
    for (int k = 1; k < 16; k++) r = pick(r, l[k], take_min);                            \
    for (; i < n; i++) r = pick(r, S1(x, i), take_min);                                  \
    return r;                                                                            \
  }
DEF_MAX512(max512_f32, l16_f32, s1_f32, _mm512_max_ps)
DEF_MAX512(max512_f16, l16_f16, s1_f16, _mm512_max_ps)
DEF_MAX512(max512_bf16, l16_bf16, s1_bf16, _mm512_max_ps)
DEF_MAX512(min512_f32, l16_f32, s1_f32, _mm512_min_ps)
DEF_MAX512(min512_f16, l16_f16, s1_f16, _mm512_min_ps)
DEF_MAX512(min512_bf16, l16_bf16, s1_bf16, _mm512_min_ps)

#define STEP256(OP, m, v)                                                           \
  do {                                                                             \
    __m256 v_ = (v);                                                               \
    m = _mm256_blendv_ps(OP(v_, m), v_, _mm256_cmp_ps(v_, v_, _CMP_UNORD_Q));      \
  } while (0)
/* The main loop takes plain max/min (a NaN element may be dropped there) and
 * ORs unordered compares of element pairs into a flag: 3 vector ops per 8
 * elements instead of STEP256's 3 per 8 with a blend on the dependency chain
 * (amax over rows ran ~10% behind sum, op-bound). A flagged run returns NaN;
 * operands in STEP256 order (the earlier of equal values, e.g. -0/+0, stays). */
#define DEF_MAX256(NAME, LD, S1, OP)                                                     \
  T256 static double NAME(const void *x, int64_t n, int take_min) {                      \
    __m256 m0 = LD(x, 0), m1 = m0, m2 = m0, m3 = m0;                                     \
    __m256 u0 = _mm256_setzero_ps(), u1 = u0;                                            \
    int64_t i = 0;                                                                       \
    for (; i + 32 <= n; i += 32) {                                                       \
      __m256 a = LD(x, i), b = LD(x, i + 8), c = LD(x, i + 16), d = LD(x, i + 24);      \
      m0 = OP(a, m0);                                                                    \
      m1 = OP(b, m1);                                                                    \
      m2 = OP(c, m2);                                                                    \
      m3 = OP(d, m3);                                                                    \
      u0 = _mm256_or_ps(u0, _mm256_cmp_ps(a, b, _CMP_UNORD_Q));                          \
      u1 = _mm256_or_ps(u1, _mm256_cmp_ps(c, d, _CMP_UNORD_Q));                          \
    }                                                                                    \
    if (_mm256_movemask_ps(_mm256_or_ps(u0, u1))) return NAN;                            \
    for (; i + 8 <= n; i += 8) STEP256(OP, m0, LD(x, i));                                \
    STEP256(OP, m0, m1);                                                                 \
    STEP256(OP, m2, m3);                                                                 \
    STEP256(OP, m0, m2);                                                                 \
    float l[8];                                                                          \
    _mm256_storeu_ps(l, m0);                                                             \
    double r = l[0];                                                                     \
    for (int k = 1; k < 8; k++) r = pick(r, l[k], take_min);                             \
    for (; i < n; i++) r = pick(r, S1(x, i), take_min);                                  \
    return r;                                                                            \
  }
DEF_MAX256(max256_f32, l8_f32, s1_f32, _mm256_max_ps)
DEF_MAX256(max256_f16, l8_f16, s1_f16, _mm256_max_ps)
DEF_MAX256(max256_bf16, l8_bf16, s1_bf16, _mm256_max_ps)
DEF_MAX256(min256_f32, l8_f32, s1_f32, _mm256_min_ps)
DEF_MAX256(min256_f16, l8_f16, s1_f16, _mm256_min_ps)
DEF_MAX256(min256_bf16, l8_bf16, s1_bf16, _mm256_min_ps)

#define DEF_MAXC(NAME, S1)                                         \
  static double NAME(const void *x, int64_t n, int take_min) {     \
    double r = S1(x, 0);                                           \
    for (int64_t i = 1; i < n; i++) r = pick(r, S1(x, i), take_min); \
    return r;                                                      \
  }
DEF_MAXC(maxc_f32, s1_f32)
DEF_MAXC(maxc_f16, s1_f16)
DEF_MAXC(maxc_bf16, s1_bf16)
DEF_MAXC(maxc_f64, s1_f64)

double cpu_red_max(tabi_dtype dt, const void *x, int64_t n, int mn) {
  int isa = n >= 16 ? red_isa() : 0;
  if (isa == 2) {
    switch (dt) {
      case TABI_DTYPE_FLOAT32: return mn ? min512_f32(x, n, 1) : max512_f32(x, n, 0);
      case TABI_DTYPE_FLOAT16: return mn ? min512_f16(x, n, 1) : max512_f16(x, n, 0);
      case TABI_DTYPE_BFLOAT16: return mn ? min512_bf16(x, n, 1) : max512_bf16(x, n, 0);
      default: break;
    }
  } else if (isa == 1) {
    switch (dt) {
      case TABI_DTYPE_FLOAT32: return mn ? min256_f32(x, n, 1) : max256_f32(x, n, 0);
      case TABI_DTYPE_FLOAT16: return mn ? min256_f16(x, n, 1) : max256_f16(x, n, 0);
      case TABI_DTYPE_BFLOAT16: return mn ? min256_bf16(x, n, 1) : max256_bf16(x, n, 0);
      default: break;
    }
  }
  switch (dt) {
    case TABI_DTYPE_FLOAT32: return maxc_f32(x, n, mn);
    case TABI_DTYPE_FLOAT16: return maxc_f16(x, n, mn);
    case TABI_DTYPE_BFLOAT16: return maxc_bf16(x, n, mn);
    default: return maxc_f64(x, n, mn);
  }
}

/* --- sum of squared deviations (var, layer norm): all in double ------------------ */

#define DEF_SSQ512(NAME, LD, S1)                                               \
  T512 static double NAME(const void *x, int64_t n, double mean) {             \
    __m512d a0 = _mm512_setzero_pd(), a1 = a0, m = _mm512_set1_pd(mean);       \
    int64_t i = 0;                                                             \
    for (; i + 16 <= n; i += 16) {                                             \
      __m512 v = LD(x, i);                                                     \
      __m512d e0 = _mm512_sub_pd(lo512(v), m), e1 = _mm512_sub_pd(hi512(v), m);\
      a0 = _mm512_fmadd_pd(e0, e0, a0);                                        \
      a1 = _mm512_fmadd_pd(e1, e1, a1);                                        \
    }                                                                          \
    double r = hsum512(_mm512_add_pd(a0, a1));                                 \
    for (; i < n; i++) {                                                       \
      double e = S1(x, i) - mean;                                              \
      r += e * e;                                                              \
    }                                                                          \
    return r;                                                                  \
  }
DEF_SSQ512(ssq512_f32, l16_f32, s1_f32)
DEF_SSQ512(ssq512_f16, l16_f16, s1_f16)
DEF_SSQ512(ssq512_bf16, l16_bf16, s1_bf16)

#define DEF_SSQ256(NAME, LD, S1)                                               \
  T256 static double NAME(const void *x, int64_t n, double mean) {             \
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, m = _mm256_set1_pd(mean);       \
    int64_t i = 0;                                                             \
    for (; i + 8 <= n; i += 8) {                                               \
      __m256 v = LD(x, i);                                                     \
      __m256d e0 = _mm256_sub_pd(lo256(v), m), e1 = _mm256_sub_pd(hi256(v), m);\
      a0 = _mm256_fmadd_pd(e0, e0, a0);                                        \
      a1 = _mm256_fmadd_pd(e1, e1, a1);                                        \
    }                                                                          \
    double r = hsum256(_mm256_add_pd(a0, a1));                                 \
    for (; i < n; i++) {                                                       \
      double e = S1(x, i) - mean;                                              \
      r += e * e;                                                              \
    }                                                                          \
    return r;                                                                  \
  }
DEF_SSQ256(ssq256_f32, l8_f32, s1_f32)
DEF_SSQ256(ssq256_f16, l8_f16, s1_f16)
DEF_SSQ256(ssq256_bf16, l8_bf16, s1_bf16)

#define DEF_SSQC(NAME, S1)                                        \
  static double NAME(const void *x, int64_t n, double mean) {     \
    double r = 0;                                                 \
    for (int64_t i = 0; i < n; i++) {                             \
      double e = S1(x, i) - mean;                                 \
      r += e * e;                                                 \
    }                                                             \
    return r;                                                     \
  }
DEF_SSQC(ssqc_f32, s1_f32)
DEF_SSQC(ssqc_f16, s1_f16)
DEF_SSQC(ssqc_bf16, s1_bf16)
DEF_SSQC(ssqc_f64, s1_f64)

double cpu_red_sumsq_dev(tabi_dtype dt, const void *x, int64_t n, double mean) {
  int isa = red_isa();
  switch (dt) {
    case TABI_DTYPE_FLOAT32:
      return isa == 2 ? ssq512_f32(x, n, mean) : isa ? ssq256_f32(x, n, mean) : ssqc_f32(x, n, mean);
    case TABI_DTYPE_FLOAT16:
      return isa == 2 ? ssq512_f16(x, n, mean) : isa ? ssq256_f16(x, n, mean) : ssqc_f16(x, n, mean);
    case TABI_DTYPE_BFLOAT16:
      return isa == 2 ? ssq512_bf16(x, n, mean) : isa ? ssq256_bf16(x, n, mean) : ssqc_bf16(x, n, mean);
    default: return ssqc_f64(x, n, mean);
  }
}

/* --- the float32 entry points softmax and layer norm use ------------------------- */

double cpu_sum_f32(const cpu_ctx *c, const float *x, int64_t n) {
  (void)c;
  return cpu_red_sum(TABI_DTYPE_FLOAT32, x, n);
}

double cpu_sumsq_dev_f32(const cpu_ctx *c, const float *x, int64_t n, double mean) {
  (void)c;
  return cpu_red_sumsq_dev(TABI_DTYPE_FLOAT32, x, n, mean);
}

float cpu_max_f32(const cpu_ctx *c, const float *x, int64_t n, int take_min) {
  (void)c;
  return (float)cpu_red_max(TABI_DTYPE_FLOAT32, x, n, take_min);
}

/* --- first position of a value (argmax & co: the extreme is found first) --------- */

#define DEF_FIND512(NAME, LD, S1)                                                   \
  T512 static int64_t NAME(const void *x, int64_t n, double v) {                    \
    int isn = v != v;                                                               \
    __m512 t = _mm512_set1_ps((float)v);                                            \
    int64_t i = 0;                                                                  \
    for (; i + 16 <= n; i += 16) {                                                  \
      __m512 a = LD(x, i);                                                          \
      __mmask16 m = isn ? _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q)                    \
                        : _mm512_cmp_ps_mask(a, t, _CMP_EQ_OQ);                     \
      if (m) return i + __builtin_ctz((unsigned)m);                                 \
    }                                                                               \
    for (; i < n; i++) {                                                            \
      float a = S1(x, i);                                                           \
      if (isn ? a != a : (double)a == v) return i;                                  \
    }                                                                               \
    return n;                                                                       \
  }
DEF_FIND512(find512_f32, l16_f32, s1_f32)
DEF_FIND512(find512_f16, l16_f16, s1_f16)
DEF_FIND512(find512_bf16, l16_bf16, s1_bf16)

#define DEF_FIND256(NAME, LD, S1)                                                   \
  T256 static int64_t NAME(const void *x, int64_t n, double v) {                    \
    int isn = v != v;                                                               \
    __m256 t = _mm256_set1_ps((float)v);                                            \
    int64_t i = 0;                                                                  \
    for (; i + 8 <= n; i += 8) {                                                    \
      __m256 a = LD(x, i);                                                          \
      int m = _mm256_movemask_ps(isn ? _mm256_cmp_ps(a, a, _CMP_UNORD_Q)            \
                                     : _mm256_cmp_ps(a, t, _CMP_EQ_OQ));            \
      if (m) return i + __builtin_ctz((unsigned)m);                                 \
    }                                                                               \
    for (; i < n; i++) {                                                            \
      float a = S1(x, i);                                                           \
      if (isn ? a != a : (double)a == v) return i;                                  \
    }                                                                               \
    return n;                                                                       \
  }
DEF_FIND256(find256_f32, l8_f32, s1_f32)
DEF_FIND256(find256_f16, l8_f16, s1_f16)
DEF_FIND256(find256_bf16, l8_bf16, s1_bf16)

#define DEF_FINDC(NAME, S1)                                          \
  static int64_t NAME(const void *x, int64_t n, double v) {         \
    int isn = v != v;                                               \
    for (int64_t i = 0; i < n; i++) {                               \
      double a = S1(x, i);                                          \
      if (isn ? a != a : a == v) return i;                          \
    }                                                               \
    return n;                                                       \
  }
DEF_FINDC(findc_f32, s1_f32)
DEF_FINDC(findc_f16, s1_f16)
DEF_FINDC(findc_bf16, s1_bf16)
DEF_FINDC(findc_f64, s1_f64)

int64_t cpu_red_find(tabi_dtype dt, const void *x, int64_t n, double v) {
  int isa = red_isa();
  switch (dt) {
    case TABI_DTYPE_FLOAT32: return isa == 2 ? find512_f32(x, n, v) : isa ? find256_f32(x, n, v) : findc_f32(x, n, v);
    case TABI_DTYPE_FLOAT16: return isa == 2 ? find512_f16(x, n, v) : isa ? find256_f16(x, n, v) : findc_f16(x, n, v);
    case TABI_DTYPE_BFLOAT16: return isa == 2 ? find512_bf16(x, n, v) : isa ? find256_bf16(x, n, v) : findc_bf16(x, n, v);
    default: return findc_f64(x, n, v);
  }
}
