/* tabi/half.h: float16 and bfloat16 storage types and exact conversions.
 *
 * Kernels store half types as uint16_t bit patterns and compute in float or
 * double. Conversions round to nearest even and keep NaN, infinities, -0.0 and
 * subnormals, as IEEE 754 and ATen do.
 */
#ifndef TABI_HALF_H
#define TABI_HALF_H

#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define TABI_HALF_FN static inline __host__ __device__
#else
#define TABI_HALF_FN static inline
#endif

TABI_HALF_FN uint32_t tabi_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
TABI_HALF_FN float tabi_bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

TABI_HALF_FN float tabi_bf16_to_f32(uint16_t h) { return tabi_bits_f32((uint32_t)h << 16); }

TABI_HALF_FN uint16_t tabi_f32_to_bf16(float f) {
  uint32_t u = tabi_f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

TABI_HALF_FN float tabi_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t man = h & 0x3ffu;
  uint32_t u;
  if (exp == 0) {
    if (man == 0) {
      u = sign;
    } else { /* subnormal: normalize */
      exp = 127 - 15 + 1;
      while ((man & 0x400u) == 0) { man <<= 1; exp--; }
      man &= 0x3ffu;
      u = sign | (exp << 23) | (man << 13);
    }
  } else if (exp == 0x1f) {
    u = sign | 0x7f800000u | (man << 13) | (man ? 0x400000u : 0u);
  } else {
    u = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  return tabi_bits_f32(u);
}

TABI_HALF_FN uint16_t tabi_f32_to_f16(float f) {
  uint32_t u = tabi_f32_bits(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu)); /* NaN */
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* overflow (>= 65520) to inf */
  if (a < 0x38800000u) { /* below the smallest normal half: subnormal or zero */
    if (a < 0x33000000u) return sign; /* < 2^-25 rounds to zero */
    uint32_t exp = a >> 23;
    uint32_t man = (a & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - exp; /* 14 + (113 - exp) - 1 ... bits to drop, 14..24 */
    uint32_t half_man = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_man & 1u))) half_man++;
    return (uint16_t)(sign | half_man);
  }
  uint32_t r = a + 0xfffu + ((a >> 13) & 1u); /* round to nearest even at bit 13 */
  return (uint16_t)(sign | (uint16_t)((r - 0x38000000u) >> 13));
}

#endif /* TABI_HALF_H */
