/* plugins/cuda/tc_ew_dev.cuh: element access and element functions on the
 * device, mirroring the reference's rules exactly: loads convert to the compute
 * category (int64, double, complex double), casts between dtypes are ATen's
 * static_cast (float to integer truncates, and gives INT_MIN as x86 does for NaN
 * and out-of-range values), half types round through float32 at the store. */
#ifndef TABI_TC_EW_DEV_CUH
#define TABI_TC_EW_DEV_CUH

#include "tc_port_complex.h"

#include "tc.h"
#include "tc_special.cuh"
#include "tc_words.cuh" /* tc_ew_words */

typedef tcx::complex<double> tc_c;

#define TC_D static __device__ __forceinline__

TC_D int tc_cat(int dt) {
  return (dt == TABI_DTYPE_COMPLEX64 || dt == TABI_DTYPE_COMPLEX128) ? 2
         : (dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_FLOAT64 ||
            dt == TABI_DTYPE_BFLOAT16) ? 1 : 0;
}

/* The real loads, stores and float-to-integer casts are the reference's own
   (reference/ref_cast.h), as device functions. */
#define REF_CAST_FN TC_D
#include "../../reference/ref_cast.h"
TC_D int64_t tc_f_to_i64(double v) { return ref_cast_f_to_i64(v); }
TC_D int32_t tc_f_to_i32(double v) { return ref_cast_f_to_i32(v); }
TC_D int64_t tc_ld_i(const char *p, int dt) { return ref_cast_ld_i(p, dt); }
TC_D double tc_ld_f(const char *p, int dt) { return ref_cast_ld_f(p, dt); }
TC_D tc_c tc_ld_c(const char *p, int dt) {
  if (dt == TABI_DTYPE_COMPLEX64) return tc_c(((const float *)p)[0], ((const float *)p)[1]);
  if (dt == TABI_DTYPE_COMPLEX128) return tc_c(((const double *)p)[0], ((const double *)p)[1]);
  return tc_c(tc_ld_f(p, dt), 0.0);
}

TC_D void tc_st_i(char *p, int dt, int64_t v) { ref_cast_st_i(p, dt, v); }
TC_D void tc_st_f(char *p, int dt, double v) { ref_cast_st_f(p, dt, v); }
TC_D void tc_st_c(char *p, int dt, tc_c v) {
  switch (dt) {
    case TABI_DTYPE_COMPLEX64: ((float *)p)[0] = (float)v.real(); ((float *)p)[1] = (float)v.imag(); break;
    case TABI_DTYPE_COMPLEX128: ((double *)p)[0] = v.real(); ((double *)p)[1] = v.imag(); break;
    case TABI_DTYPE_BOOL: *(uint8_t *)p = v.real() != 0 || v.imag() != 0; break;
    default: tc_st_f(p, dt, v.real()); break;
  }
}

/* float16 conversions of the vector kernels (tc_ew.cu) and the row
 * kernels (tc_nn.cu): on a CUDA device the
 * hardware's (exact one way, round to nearest even the other, as
 * tabi/half.h's) with tabi/half.h's NaNs selected in, whose payload rule the
 * reference follows; elsewhere tabi/half.h's. The inlined software ones, a
 * subnormal loop and five branches, were most of the kernels' code. */
#if defined(__CUDA_ARCH__)
TC_D float tc_h2f(uint16_t h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  uint32_t nan = ((uint32_t)(h & 0x8000u) << 16) | 0x7fc00000u | ((uint32_t)(h & 0x3ffu) << 13);
  return (h & 0x7fffu) > 0x7c00u ? tabi_bits_f32(nan) : f;
}
TC_D uint16_t tc_f2h(float f) {
  uint16_t h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  uint32_t u = tabi_f32_bits(f);
  uint16_t nan = (uint16_t)(((u >> 16) & 0x8000u) | 0x7e00u | ((u >> 13) & 0x3ffu));
  return (u & 0x7fffffffu) > 0x7f800000u ? nan : h;
}
#else
TC_D float tc_h2f(uint16_t h) { return tabi_f16_to_f32(h); }
TC_D uint16_t tc_f2h(float f) { return tabi_f32_to_f16(f); }
#endif

/* c10::complex division, as ATen: the reference's own (ref_c10_div.h). */
#define REF_C10_DIV_FN TC_D
#include "../../reference/ref_c10_div.h"
TC_D tc_c tc_cdiv(tc_c x, tc_c y) {
  double re, im;
  ref_c10_div_parts(x.real(), x.imag(), y.real(), y.imag(), &re, &im);
  return tc_c(re, im);
}
/* Load from dtype `dt` as compute dtype `cd`, with ATen's static_cast between. */
TC_D void tc_cast_to_buf(const char *p, int dt, int cd, char *buf) {
  int cs = tc_cat(dt);
  if (cs == 0) {
    int64_t v = tc_ld_i(p, dt);
    if (tc_cat(cd) != 0 && cd != TABI_DTYPE_FLOAT64 && cd != TABI_DTYPE_COMPLEX128)
      tc_st_f(buf, cd, (double)(float)v); /* static_cast<float>(int64) rounds once */
    else
      tc_st_i(buf, cd, v);
  } else if (cs == 1) {
    tc_st_f(buf, cd, tc_ld_f(p, dt));
  } else {
    tc_st_c(buf, cd, tc_ld_c(p, dt));
  }
}
TC_D int64_t tc_load_i(const char *p, int dt, int cd) {
  if (dt == cd) return tc_ld_i(p, dt);
  alignas(16) char buf[16] = {0}; /* zeroed: gcc -O3 cannot see that every cd is stored */
  tc_cast_to_buf(p, dt, cd, buf);
  return tc_ld_i(buf, cd);
}
TC_D double tc_load_f(const char *p, int dt, int cd) {
  if (dt == cd) return tc_ld_f(p, dt);
  alignas(16) char buf[16] = {0}; /* zeroed: gcc -O3 cannot see that every cd is stored */
  tc_cast_to_buf(p, dt, cd, buf);
  return tc_ld_f(buf, cd);
}
TC_D tc_c tc_load_c(const char *p, int dt, int cd) {
  if (dt == cd) return tc_ld_c(p, dt);
  alignas(16) char buf[16] = {0}; /* zeroed: gcc -O3 cannot see that every cd is stored */
  tc_cast_to_buf(p, dt, cd, buf);
  return tc_ld_c(buf, cd);
}

TC_D int tc_dt_size(int dt) {
  switch (dt) {
    case TABI_DTYPE_UINT8: case TABI_DTYPE_INT8: case TABI_DTYPE_BOOL: return 1;
    case TABI_DTYPE_INT16: case TABI_DTYPE_FLOAT16: case TABI_DTYPE_BFLOAT16: return 2;
    case TABI_DTYPE_INT32: case TABI_DTYPE_FLOAT32: return 4;
    case TABI_DTYPE_COMPLEX128: return 16;
    default: return 8;
  }
}

#endif /* TABI_TC_EW_DEV_CUH */
