/* plugins/cpu/cpu_simd_scalar.h: the vector layer with one lane, in plain C.
 *
 * Same names as cpu_simd_avx512.h, so the math and loops compile for any x86-64
 * (and any other C11 target). min/max keep x86's rule (the second operand when
 * either is NaN) so every level computes the same; integer lane operations go
 * through uint32_t so nothing overflows a signed type.
 */
#ifndef TABI_CPU_SIMD_SCALAR_H
#define TABI_CPU_SIMD_SCALAR_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <tabi/half.h>

#define W 1
typedef float VF;
typedef int32_t VI;
typedef int VM;

#define SI static inline __attribute__((always_inline))

SI VF vf_set(float x) { return x; }
SI VF vf_add(VF a, VF b) { return a + b; }
SI VF vf_sub(VF a, VF b) { return a - b; }
SI VF vf_mul(VF a, VF b) { return a * b; }
SI VF vf_div(VF a, VF b) { return a / b; }
SI VF vf_fma(VF a, VF b, VF c) { return a * b + c; }
SI VF vf_fnma(VF a, VF b, VF c) { return c - a * b; }
SI VF vf_min(VF a, VF b) { return a < b ? a : b; }
SI VF vf_max(VF a, VF b) { return a > b ? a : b; }
SI VF vf_sqrt(VF a) { return sqrtf(a); }
SI VF vf_rcp_approx(VF a) { return 1.0f / a; }
SI VI vf_as_vi(VF a) { VI r; memcpy(&r, &a, 4); return r; }
SI VF vi_as_vf(VI a) { VF r; memcpy(&r, &a, 4); return r; }
SI VF vf_and(VF a, VF b) { return vi_as_vf(vf_as_vi(a) & vf_as_vi(b)); }
SI VF vf_or(VF a, VF b) { return vi_as_vf(vf_as_vi(a) | vf_as_vi(b)); }
SI VF vf_xor(VF a, VF b) { return vi_as_vf(vf_as_vi(a) ^ vf_as_vi(b)); }
SI VF vf_andnot(VF a, VF b) { return vi_as_vf(~vf_as_vi(a) & vf_as_vi(b)); }
SI VF vf_floor(VF a) { return floorf(a); }
SI VF vf_ceil(VF a) { return ceilf(a); }
SI VF vf_trunc(VF a) { return truncf(a); }
SI VF vf_rint(VF a) { return nearbyintf(a); }
SI VM vf_lt(VF a, VF b) { return a < b; }
SI VM vf_le(VF a, VF b) { return a <= b; }
SI VM vf_gt(VF a, VF b) { return a > b; }
SI VM vf_ge(VF a, VF b) { return a >= b; }
SI VM vf_eq(VF a, VF b) { return a == b; }
SI VM vf_ne(VF a, VF b) { return a != b; }
SI VM vf_isnan(VF a) { return a != a; }
SI VF vf_sel(VM m, VF a, VF b) { return m ? a : b; }
SI VM vm_and(VM a, VM b) { return a & b; }
SI VM vm_or(VM a, VM b) { return a | b; }
SI VM vm_xor(VM a, VM b) { return a ^ b; }
SI VM vm_not(VM a) { return !a; }
SI int vm_any(VM a) { return a; }
/* x86's result without the undefined float-to-int conversion of C. */
SI VI vf_cvt_i(VF a) {
  float r = nearbyintf(a);
  return (r >= -2147483648.0f && r < 2147483648.0f) ? (VI)r : INT32_MIN;
}
SI VF vi_to_f(VI a) { return (VF)a; }
SI VI vi_set(int32_t x) { return x; }
SI VI vi_add(VI a, VI b) { return (VI)((uint32_t)a + (uint32_t)b); }
SI VI vi_sub(VI a, VI b) { return (VI)((uint32_t)a - (uint32_t)b); }
SI VI vi_and(VI a, VI b) { return a & b; }
SI VI vi_or(VI a, VI b) { return a | b; }
SI VI vi_slli(VI a, int n) { return (VI)((uint32_t)a << n); }
SI VI vi_srli(VI a, int n) { return (VI)((uint32_t)a >> n); }
SI VI vi_srai(VI a, int n) { return a < 0 ? (VI)~(~(uint32_t)a >> n) : (VI)((uint32_t)a >> n); }
SI VM vi_gt(VI a, VI b) { return a > b; }
SI VM vi_eq(VI a, VI b) { return a == b; }
SI VI vi_sel(VM m, VI a, VI b) { return m ? a : b; }

SI VF vf_load_f32(const void *p) { VF r; memcpy(&r, p, 4); return r; }
SI void vf_store_f32(void *p, VF v) { memcpy(p, &v, 4); }
SI VF vf_load_f16(const void *p) { uint16_t h; memcpy(&h, p, 2); return tabi_f16_to_f32(h); }
SI void vf_store_f16(void *p, VF v) { uint16_t h = tabi_f32_to_f16(v); memcpy(p, &h, 2); }
SI VF vf_load_bf16(const void *p) { uint16_t h; memcpy(&h, p, 2); return tabi_bf16_to_f32(h); }
SI void vf_store_bf16(void *p, VF v) { uint16_t h = tabi_f32_to_bf16(v); memcpy(p, &h, 2); }
/* no streaming stores on one lane: plain stores */
SI void vf_stream_f32(void *p, VF v) { vf_store_f32(p, v); }
SI void vf_stream_f16(void *p, VF v) { vf_store_f16(p, v); }
SI void vf_stream_bf16(void *p, VF v) { vf_store_bf16(p, v); }
SI void vm_store_bool(void *p, VM m) { *(uint8_t *)p = (uint8_t)(m != 0); }
SI VM vm_load_bool(const void *p) { return *(const uint8_t *)p != 0; }

#endif /* TABI_CPU_SIMD_SCALAR_H */
