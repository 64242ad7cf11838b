/* reference/ref_nextafter16.h: nextafter in float16 or bfloat16 (cd), by
 * stepping the 16-bit pattern: NaN in, NaN out; equal gives b; from zero the
 * smallest subnormal with b's sign; else one step toward b. One copy for the
 * reference (ref_elementwise2.c), the CPU plugin (cpu_elementwise2.c) and the
 * GPU plugins (plugins/cuda/tc_ew_fn.cuh), written in the common subset of C11
 * and CUDA/HIP C++.
 *
 * The includer may define REF_NEXTAFTER16_FN (the qualifier) first: `static
 * inline` by default, `static __device__ __forceinline__` on the GPU.
 * <math.h> and <tabi/half.h> (through tabi.h) must be included first. */
#ifndef TABI_REF_NEXTAFTER16_H
#define TABI_REF_NEXTAFTER16_H

#ifndef REF_NEXTAFTER16_FN
#define REF_NEXTAFTER16_FN static inline
#endif

REF_NEXTAFTER16_FN uint16_t ref_to_bits16(double v, int cd) {
  return cd == TABI_DTYPE_FLOAT16 ? tabi_f32_to_f16((float)v) : tabi_f32_to_bf16((float)v);
}
REF_NEXTAFTER16_FN double ref_from_bits16(uint16_t u, int cd) {
  return cd == TABI_DTYPE_FLOAT16 ? tabi_f16_to_f32(u) : tabi_bf16_to_f32(u);
}
REF_NEXTAFTER16_FN double ref_nextafter16(double a, double b, int cd) {
  if (isnan(a) || isnan(b)) return a + b;
  uint16_t fa = ref_to_bits16(a, cd), fb = ref_to_bits16(b, cd), sign = 0x8000u;
  if (fa == fb) return a;
  uint16_t abs_a = fa & (uint16_t)~sign, abs_b = fb & (uint16_t)~sign;
  if (abs_a == 0) {
    if (abs_b == 0) return b;
    return ref_from_bits16((uint16_t)((fb & sign) | 1u), cd);
  }
  if (abs_a > abs_b || ((fa ^ fb) & sign)) fa--;
  else fa++;
  return ref_from_bits16(fa, cd);
}

#endif /* TABI_REF_NEXTAFTER16_H */
