/* plugins/cuda/tc_int.cuh: integer element access shared by the families'
 * `__host__ __device__` code (tc_misc.cuh, tc_convbwd.cuh, tc_idx.cuh): the
 * reference's ref_load_i_ptr/ref_store_i_ptr for the integer dtypes (stores
 * wrap to the dtype's width) and int64 sums that wrap as the reference's
 * (unsigned arithmetic: no signed-overflow UB). One copy, so the GPU kernels
 * and their host tests cannot drift apart. */
#ifndef TABI_TC_INT_CUH
#define TABI_TC_INT_CUH

#include <stdint.h>

#include "tc_pad_up.cuh" /* TCP_HD */

/* Element size of any real dtype (bool and the 8-bit types 1). */
TCP_HD int tcn_esz(int dt) {
  switch (dt) {
    case TABI_DTYPE_BOOL: case TABI_DTYPE_UINT8: case TABI_DTYPE_INT8: return 1;
    case TABI_DTYPE_INT16: case TABI_DTYPE_FLOAT16: case TABI_DTYPE_BFLOAT16: return 2;
    case TABI_DTYPE_INT32: case TABI_DTYPE_FLOAT32: return 4;
    default: return 8; /* int64, float64 */
  }
}
TCP_HD int tcn_is_int(int dt) {
  return dt == TABI_DTYPE_UINT8 || dt == TABI_DTYPE_INT8 || dt == TABI_DTYPE_INT16 ||
         dt == TABI_DTYPE_INT32 || dt == TABI_DTYPE_INT64;
}
TCP_HD int64_t tcn_ld(const char *p, int dt) {
  switch (dt) {
    case TABI_DTYPE_UINT8: return *(const uint8_t *)p;
    case TABI_DTYPE_INT8: return *(const int8_t *)p;
    case TABI_DTYPE_INT16: return *(const int16_t *)p;
    case TABI_DTYPE_INT32: return *(const int32_t *)p;
    default: return *(const int64_t *)p;
  }
}
TCP_HD void tcn_st(char *p, int dt, int64_t v) {
  switch (dt) {
    case TABI_DTYPE_UINT8: *(uint8_t *)p = (uint8_t)v; break;
    case TABI_DTYPE_INT8: *(int8_t *)p = (int8_t)(uint8_t)v; break;
    case TABI_DTYPE_INT16: *(int16_t *)p = (int16_t)(uint16_t)v; break;
    case TABI_DTYPE_INT32: *(int32_t *)p = (int32_t)(uint32_t)v; break;
    default: *(int64_t *)p = v; break;
  }
}
TCP_HD int64_t tcn_wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
TCP_HD int64_t tcn_wmul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

#endif /* TABI_TC_INT_CUH */
