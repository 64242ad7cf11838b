/* reference/ref_pow.h: pow's element functions that are not libm's: ATen's
 * powi for integers, and pow.Tensor_Scalar for a real base with ATen's special
 * exponents (0, 1, +-0.5, -1, 2, 3, -2 take sqrt, reciprocal and products,
 * which differ from pow: sqrt keeps -0.0 and gives NaN for -inf). One copy
 * for the reference (ref_elementwise2.c), the CPU plugin (cpu_elementwise2.c,
 * cpu_elementwise_bin.c) and the GPU plugins (plugins/cuda/tc_ew_fn.cuh),
 * written in the common subset of C11 and CUDA/HIP C++.
 *
 * The includer may define REF_POW_FN (the qualifier) first: `static inline`
 * by default, `static __device__ __forceinline__` on the GPU. <math.h> and
 * <stdint.h> must be included first. */
#ifndef TABI_REF_POW_H
#define TABI_REF_POW_H

#ifndef REF_POW_FN
#define REF_POW_FN static inline
#endif

/* Integer pow, wrapping as int64 does in ATen: a negative exponent gives 0
 * except for bases 1 and -1. */
REF_POW_FN int64_t ref_powi(int64_t a, int64_t b) {
  if (b < 0) {
    if (a == 1) return 1;
    if (a == -1) return (b % 2) ? -1 : 1;
    return 0;
  }
  uint64_t r = 1, ua = (uint64_t)a;
  while (b) {
    if (b & 1) r *= ua;
    b >>= 1;
    ua *= ua;
  }
  return (int64_t)r;
}

REF_POW_FN double ref_pow_ts(double a, double b) {
  if (b == 0) return 1.0;
  if (b == 1) return a;
  if (b == 0.5) return sqrt(a);
  if (b == -0.5) return 1.0 / sqrt(a);
  if (b == -1) return 1.0 / a;
  if (b == 2) return a * a;
  if (b == 3) return a * a * a;
  if (b == -2) return 1.0 / (a * a);
  return pow(a, b);
}

#endif /* TABI_REF_POW_H */
