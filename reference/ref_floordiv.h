/* reference/ref_floordiv.h: ATen's div_floor_floating (Python's //) for float64
 * and float32, in the op's own precision, with -0.0 where the true quotient is a
 * negative zero. One copy for the reference (ref_elementwise2.c), the CPU plugin
 * (cpu_elementwise_bin.c) and the GPU plugins (plugins/cuda/tc_ew.cu), written in
 * the common subset of C11 and CUDA/HIP C++.
 *
 * The includer may define REF_FLOORDIV_FN (the qualifier) first: `static inline`
 * by default, `static __device__ __forceinline__` on the GPU. <math.h> must be
 * included first. Nothing here contracts to an FMA (no product feeds a sum), so
 * the CPU plugin's -ffp-contract=fast gives the same bits as the reference.
 */
#ifndef TABI_REF_FLOORDIV_H
#define TABI_REF_FLOORDIV_H

#ifndef REF_FLOORDIV_FN
#define REF_FLOORDIV_FN static inline
#endif

REF_FLOORDIV_FN double ref_floordiv_f64(double a, double b) {
  if (b == 0) return a / b;
  double mod = fmod(a, b), div = (a - mod) / b, fd;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1.0;
  if (div != 0) {
    fd = floor(div);
    if (div - fd > 0.5) fd += 1.0;
  } else {
    fd = copysign(0.0, a / b);
  }
  return fd;
}
REF_FLOORDIV_FN float ref_floordiv_f32(float a, float b) {
  if (b == 0) return a / b;
  float mod = fmodf(a, b), div = (a - mod) / b, fd;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1.0f;
  if (div != 0) {
    fd = floorf(div);
    if (div - fd > 0.5f) fd += 1.0f;
  } else {
    fd = copysignf(0.0f, a / b);
  }
  return fd;
}

#endif /* TABI_REF_FLOORDIV_H */
