/* tabi/philox.h: the counter-based generator every device draws from.
 *
 * Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
 * SC'11). A draw is a pure function of (seed, counter), so any device, thread or
 * block order produces the same numbers for the same seed.
 *
 * The convention every tabi kernel follows, so that a seed gives the same
 * numbers on every device:
 *  - A random op reserves numel counters with host->rng_reserve and element i
 *    (in row-major order of the output) uses counter offset + i.
 *  - uniform [0,1) in double: tabi_philox_uniform_double (53 bits from words 0,1).
 *  - uniform [0,1) in float32, float16, bfloat16: as many random bits of word 0
 *    as the dtype has significand bits (24, 11, 8), so the value is exact in the
 *    dtype and never rounds up to 1.0: tabi_philox_uniform_bits(o, 24/11/8).
 *  - standard normal: Box-Muller on words (0,1) and (2,3), computed in double,
 *    then rounded to the output dtype: tabi_philox_normal.
 */
#ifndef TABI_PHILOX_H
#define TABI_PHILOX_H

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define TABI_PHILOX_FN static inline __host__ __device__
#else
#define TABI_PHILOX_FN static inline
#endif

typedef struct tabi_philox_out {
  uint32_t w[4];
} tabi_philox_out;

TABI_PHILOX_FN tabi_philox_out tabi_philox4x32(uint64_t seed, uint64_t counter) {
  uint32_t c0 = (uint32_t)counter, c1 = (uint32_t)(counter >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  for (int r = 0; r < 10; r++) {
    uint64_t p0 = (uint64_t)0xD2511F53u * c0;
    uint64_t p1 = (uint64_t)0xCD9E8D57u * c2;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
    uint32_t n1 = (uint32_t)p1;
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    uint32_t n3 = (uint32_t)p0;
    c0 = n0; c1 = n1; c2 = n2; c3 = n3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  tabi_philox_out o;
  o.w[0] = c0; o.w[1] = c1; o.w[2] = c2; o.w[3] = c3;
  return o;
}

/* [0, 1) with 53 random bits. */
TABI_PHILOX_FN double tabi_philox_uniform_double(tabi_philox_out o) {
  uint64_t bits = (((uint64_t)o.w[0] << 32) | o.w[1]) >> 11;
  return (double)bits * (1.0 / 9007199254740992.0);
}

/* [0, 1) with 24 random bits, exact in float32. */
TABI_PHILOX_FN float tabi_philox_uniform_float(tabi_philox_out o) {
  return (float)(o.w[0] >> 8) * (1.0f / 16777216.0f);
}

/* [0, 1) with `bits` random bits (1..24) of word 0: exact in a dtype whose
 * significand has `bits` bits (float32 24, float16 11, bfloat16 8). */
TABI_PHILOX_FN float tabi_philox_uniform_bits(tabi_philox_out o, int bits) {
  return (float)(o.w[0] >> (32 - bits)) * (1.0f / (float)(1u << bits));
}

/* A standard normal: Box-Muller in double. u1 in (0, 1] so the log is finite. */
TABI_PHILOX_FN double tabi_philox_normal(tabi_philox_out o) {
  uint64_t b1 = (((uint64_t)o.w[0] << 32) | o.w[1]) >> 11;
  uint64_t b2 = (((uint64_t)o.w[2] << 32) | o.w[3]) >> 11;
  double u1 = ((double)b1 + 1.0) * (1.0 / 9007199254740992.0);
  double u2 = (double)b2 * (1.0 / 9007199254740992.0);
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
}

#endif /* TABI_PHILOX_H */
