/* reference/ref_cast.h: loading an element of any real dtype as int64 or double
 * and storing one, with ATen's static_cast between: float to integer truncates
 * (INT_MIN for NaN and out-of-range values, as x86's cvttsd2si), narrow integers
 * go through a 32-bit truncation and wrap, half types round through float32, and
 * int64 to float32/half/complex64 rounds once (static_cast<float>(int64_t)).
 *
 * One copy for the reference (ref_util.c: ref_load_*_ptr, ref_store_*_ptr) and
 * the GPU plugins (plugins/cuda/tc_ew_dev.cuh: tc_ld_*, tc_st_*), written in the
 * common subset of C11 and CUDA/HIP C++. The complex loads and stores stay with
 * each (C's double complex there, thrust/HIP complex here) and call these.
 * No function here calls back into one that called it, so the device code needs
 * no recursion (ref_cast_st_narrow serves both stores).
 *
 * The includer may define REF_CAST_FN (the qualifier) first: `static inline` by
 * default, `static __device__ __forceinline__` on the GPU.
 */
#ifndef TABI_REF_CAST_H
#define TABI_REF_CAST_H

#include <stdint.h>
#include <tabi/dtype.h>
#include <tabi/half.h>

#ifndef REF_CAST_FN
#define REF_CAST_FN static inline
#endif

/* x86's cvttsd2si: truncation, with INT_MIN for NaN and out-of-range values. */
REF_CAST_FN int64_t ref_cast_f_to_i64(double v) {
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return INT64_MIN;
  return (int64_t)v;
}
REF_CAST_FN int32_t ref_cast_f_to_i32(double v) {
  if (!(v > -2147483649.0 && v < 2147483648.0)) return INT32_MIN;
  return (int32_t)v;
}

REF_CAST_FN double ref_cast_ld_f(const char *p, int dt) {
  switch (dt) {
    case TABI_DTYPE_FLOAT16: return tabi_f16_to_f32(*(const uint16_t *)p);
    case TABI_DTYPE_BFLOAT16: return tabi_bf16_to_f32(*(const uint16_t *)p);
    case TABI_DTYPE_FLOAT32: return *(const float *)p;
    case TABI_DTYPE_FLOAT64: return *(const double *)p;
    case TABI_DTYPE_COMPLEX64: return ((const float *)p)[0];
    case TABI_DTYPE_COMPLEX128: return ((const double *)p)[0];
    case TABI_DTYPE_BOOL: return *(const uint8_t *)p != 0;
    case TABI_DTYPE_UINT8: return *(const uint8_t *)p;
    case TABI_DTYPE_INT8: return *(const int8_t *)p;
    case TABI_DTYPE_INT16: return *(const int16_t *)p;
    case TABI_DTYPE_INT32: return *(const int32_t *)p;
    case TABI_DTYPE_INT64: return (double)*(const int64_t *)p;
    default: return 0;
  }
}

REF_CAST_FN int64_t ref_cast_ld_i(const char *p, int dt) {
  switch (dt) {
    case TABI_DTYPE_BOOL: return *(const uint8_t *)p != 0;
    case TABI_DTYPE_UINT8: return *(const uint8_t *)p;
    case TABI_DTYPE_INT8: return *(const int8_t *)p;
    case TABI_DTYPE_INT16: return *(const int16_t *)p;
    case TABI_DTYPE_INT32: return *(const int32_t *)p;
    case TABI_DTYPE_INT64: return *(const int64_t *)p;
    case TABI_DTYPE_FLOAT32: case TABI_DTYPE_FLOAT64: case TABI_DTYPE_FLOAT16:
    case TABI_DTYPE_BFLOAT16: case TABI_DTYPE_COMPLEX64: case TABI_DTYPE_COMPLEX128:
      return ref_cast_f_to_i64(ref_cast_ld_f(p, dt));
    default: return 0;
  }
}

/* uint8/int8/int16/int32: keep the low bits (two's complement wrap) */
REF_CAST_FN void ref_cast_st_narrow(char *p, int dt, int64_t v) {
  switch (dt) {
    case TABI_DTYPE_UINT8: *(uint8_t *)p = (uint8_t)v; break;
    case TABI_DTYPE_INT8: *(int8_t *)p = (int8_t)(uint8_t)v; break;
    case TABI_DTYPE_INT16: *(int16_t *)p = (int16_t)(uint16_t)v; break;
    case TABI_DTYPE_INT32: *(int32_t *)p = (int32_t)(uint32_t)v; break;
    default: break;
  }
}

REF_CAST_FN void ref_cast_st_i(char *p, int dt, int64_t v) {
  switch (dt) {
    case TABI_DTYPE_BOOL: *(uint8_t *)p = v != 0; break;
    case TABI_DTYPE_UINT8: case TABI_DTYPE_INT8: case TABI_DTYPE_INT16: case TABI_DTYPE_INT32:
      ref_cast_st_narrow(p, dt, v);
      break;
    case TABI_DTYPE_INT64: *(int64_t *)p = v; break;
    /* one rounding from int64, as static_cast<float>(int64_t) does; through
       double first would round twice for |v| > 2^53 */
    case TABI_DTYPE_FLOAT32: *(float *)p = (float)v; break;
    case TABI_DTYPE_FLOAT16: *(uint16_t *)p = tabi_f32_to_f16((float)v); break;
    case TABI_DTYPE_BFLOAT16: *(uint16_t *)p = tabi_f32_to_bf16((float)v); break;
    case TABI_DTYPE_COMPLEX64: ((float *)p)[0] = (float)v; ((float *)p)[1] = 0.0f; break;
    /* float64, complex128: one rounding */
    case TABI_DTYPE_FLOAT64: *(double *)p = (double)v; break;
    case TABI_DTYPE_COMPLEX128: ((double *)p)[0] = (double)v; ((double *)p)[1] = 0.0; break;
    default: break;
  }
}

REF_CAST_FN void ref_cast_st_f(char *p, int dt, double v) {
  switch (dt) {
    case TABI_DTYPE_BOOL: *(uint8_t *)p = v != 0; break;
    case TABI_DTYPE_UINT8: case TABI_DTYPE_INT8: case TABI_DTYPE_INT16: case TABI_DTYPE_INT32:
      /* narrow integers convert through a 32-bit truncation, as compiled ATen does */
      ref_cast_st_narrow(p, dt, ref_cast_f_to_i32(v));
      break;
    case TABI_DTYPE_INT64: *(int64_t *)p = ref_cast_f_to_i64(v); break;
    case TABI_DTYPE_FLOAT16: *(uint16_t *)p = tabi_f32_to_f16((float)v); break;
    case TABI_DTYPE_BFLOAT16: *(uint16_t *)p = tabi_f32_to_bf16((float)v); break;
    case TABI_DTYPE_FLOAT32: *(float *)p = (float)v; break;
    case TABI_DTYPE_FLOAT64: *(double *)p = v; break;
    case TABI_DTYPE_COMPLEX64: ((float *)p)[0] = (float)v; ((float *)p)[1] = 0.0f; break;
    case TABI_DTYPE_COMPLEX128: ((double *)p)[0] = v; ((double *)p)[1] = 0.0; break;
    default: break;
  }
}

#endif /* TABI_REF_CAST_H */
