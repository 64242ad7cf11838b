/* plugins/cpu/cpu_convert.c: float16/bfloat16 <-> float32 for buffers.
 *
 * The fast kernels compute half types in float32 (as ATen's opmath does) one
 * L1-sized block at a time: convert a block in, compute, convert it out. With
 * F16C the float16 conversions are one instruction per 8 elements and keep
 * NaN, infinities, -0.0 and subnormals exactly as tabi/half.h does; bfloat16 is
 * a shift one way and round-to-nearest-even the other, written so gcc vectorizes.
 */
#include <immintrin.h>

#include <tabi/half.h>

#include "cpu.h"

__attribute__((target("avx2,f16c"))) static void f16_to_f32_f16c(const uint16_t *s, float *d,
                                                                   int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + i))));
  for (; i < n; i++) d[i] = tabi_f16_to_f32(s[i]);
}

__attribute__((target("avx2,f16c"))) static void f32_to_f16_f16c(const float *s, uint16_t *d,
                                                                   int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128((__m128i *)(d + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; i++) d[i] = tabi_f32_to_f16(s[i]);
}

__attribute__((target_clones("arch=x86-64-v3", "default"))) static void bf16_to_f32(
    const uint16_t *s, float *d, int64_t n) {
  uint32_t *u = (uint32_t *)(void *)d;
  for (int64_t i = 0; i < n; i++) u[i] = (uint32_t)s[i] << 16;
}

__attribute__((target_clones("arch=x86-64-v3", "default"))) static void f32_to_bf16(
    const float *s, uint16_t *d, int64_t n) {
  const uint32_t *u = (const uint32_t *)(const void *)s;
  for (int64_t i = 0; i < n; i++) {
    uint32_t x = u[i];
    uint32_t r = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
    uint32_t q = (x >> 16) | 0x40u;
    d[i] = (uint16_t)((x & 0x7fffffffu) > 0x7f800000u ? q : r);
  }
}

void cpu_to_f32(const cpu_ctx *c, tabi_dtype dt, const void *src, float *dst, int64_t n) {
  switch (dt) {
    case TABI_DTYPE_FLOAT16:
      if (c->has_avx2) f16_to_f32_f16c(src, dst, n);
      else for (int64_t i = 0; i < n; i++) dst[i] = tabi_f16_to_f32(((const uint16_t *)src)[i]);
      break;
    case TABI_DTYPE_BFLOAT16: bf16_to_f32(src, dst, n); break;
    default:
      for (int64_t i = 0; i < n; i++) dst[i] = ((const float *)src)[i];
      break;
  }
}

void cpu_from_f32(const cpu_ctx *c, tabi_dtype dt, const float *src, void *dst, int64_t n) {
  switch (dt) {
    case TABI_DTYPE_FLOAT16:
      if (c->has_avx2) f32_to_f16_f16c(src, dst, n);
      else for (int64_t i = 0; i < n; i++) ((uint16_t *)dst)[i] = tabi_f32_to_f16(src[i]);
      break;
    case TABI_DTYPE_BFLOAT16: f32_to_bf16(src, dst, n); break;
    default:
      for (int64_t i = 0; i < n; i++) ((float *)dst)[i] = src[i];
      break;
  }
}
