/* plugins/cpu/cpu_simd_avx2.h: the vector layer for AVX2 + FMA + F16C (8 lanes).
 *
 * Same names as cpu_simd_avx512.h (see there). Masks are float vectors with all
 * bits of a lane set or clear, as the AVX compares give them. Include only from
 * a file compiled for avx2,fma,f16c (cpu_ew_avx2.c).
 */
#ifndef TABI_CPU_SIMD_AVX2_H
#define TABI_CPU_SIMD_AVX2_H

#include <immintrin.h>
#include <stdint.h>

#define W 8
typedef __m256 VF;
typedef __m256i VI;
typedef __m256 VM;

#define SI static inline __attribute__((always_inline))

SI VF vf_set(float x) { return _mm256_set1_ps(x); }
SI VF vf_add(VF a, VF b) { return _mm256_add_ps(a, b); }
SI VF vf_sub(VF a, VF b) { return _mm256_sub_ps(a, b); }
SI VF vf_mul(VF a, VF b) { return _mm256_mul_ps(a, b); }
SI VF vf_div(VF a, VF b) { return _mm256_div_ps(a, b); }
SI VF vf_fma(VF a, VF b, VF c) { return _mm256_fmadd_ps(a, b, c); }
SI VF vf_fnma(VF a, VF b, VF c) { return _mm256_fnmadd_ps(a, b, c); }
SI VF vf_min(VF a, VF b) { return _mm256_min_ps(a, b); }
SI VF vf_max(VF a, VF b) { return _mm256_max_ps(a, b); }
SI VF vf_sqrt(VF a) { return _mm256_sqrt_ps(a); }
SI VF vf_rcp_approx(VF a) { return _mm256_rcp_ps(a); } /* about 12 bits */
SI VI vf_as_vi(VF a) { return _mm256_castps_si256(a); }
SI VF vi_as_vf(VI a) { return _mm256_castsi256_ps(a); }
SI VF vf_and(VF a, VF b) { return _mm256_and_ps(a, b); }
SI VF vf_or(VF a, VF b) { return _mm256_or_ps(a, b); }
SI VF vf_xor(VF a, VF b) { return _mm256_xor_ps(a, b); }
SI VF vf_andnot(VF a, VF b) { return _mm256_andnot_ps(a, b); }
SI VF vf_floor(VF a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
SI VF vf_ceil(VF a) { return _mm256_round_ps(a, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
SI VF vf_trunc(VF a) { return _mm256_round_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
SI VF vf_rint(VF a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
SI VM vf_lt(VF a, VF b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
SI VM vf_le(VF a, VF b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
SI VM vf_gt(VF a, VF b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
SI VM vf_ge(VF a, VF b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
SI VM vf_eq(VF a, VF b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
SI VM vf_ne(VF a, VF b) { return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ); }
SI VM vf_isnan(VF a) { return _mm256_cmp_ps(a, a, _CMP_UNORD_Q); }
SI VF vf_sel(VM m, VF a, VF b) { return _mm256_blendv_ps(b, a, m); }
SI VM vm_and(VM a, VM b) { return _mm256_and_ps(a, b); }
SI VM vm_or(VM a, VM b) { return _mm256_or_ps(a, b); }
SI VM vm_xor(VM a, VM b) { return _mm256_xor_ps(a, b); }
SI VM vm_not(VM a) { return _mm256_xor_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(-1))); }
SI int vm_any(VM a) { return _mm256_movemask_ps(a) != 0; }
SI VI vf_cvt_i(VF a) { return _mm256_cvtps_epi32(a); }
SI VF vi_to_f(VI a) { return _mm256_cvtepi32_ps(a); }
SI VI vi_set(int32_t x) { return _mm256_set1_epi32(x); }
SI VI vi_add(VI a, VI b) { return _mm256_add_epi32(a, b); }
SI VI vi_sub(VI a, VI b) { return _mm256_sub_epi32(a, b); }
SI VI vi_and(VI a, VI b) { return _mm256_and_si256(a, b); }
SI VI vi_or(VI a, VI b) { return _mm256_or_si256(a, b); }
#define vi_slli(a, n) _mm256_slli_epi32((a), (n))
#define vi_srli(a, n) _mm256_srli_epi32((a), (n))
#define vi_srai(a, n) _mm256_srai_epi32((a), (n))
SI VM vi_gt(VI a, VI b) { return _mm256_castsi256_ps(_mm256_cmpgt_epi32(a, b)); }
SI VM vi_eq(VI a, VI b) { return _mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b)); }
SI VI vi_sel(VM m, VI a, VI b) {
  return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(b), _mm256_castsi256_ps(a), m));
}

SI VF vf_load_f32(const void *p) { return _mm256_loadu_ps(p); }
SI void vf_store_f32(void *p, VF v) { _mm256_storeu_ps(p, v); }
SI VF vf_load_f16(const void *p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)); }
SI void vf_store_f16(void *p, VF v) {
  _mm_storeu_si128((__m128i *)p, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
SI VF vf_load_bf16(const void *p) {
  return vi_as_vf(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)), 16));
}
SI __m128i vf_to_bf16(VF v) {
  VI u = vf_as_vi(v);
  VI r = vi_srli(vi_add(u, vi_add(vi_set(0x7fff), vi_and(vi_srli(u, 16), vi_set(1)))), 16);
  VI q = vi_or(vi_srli(u, 16), vi_set(0x40));
  VI h = vi_sel(vi_gt(vi_and(u, vi_set(0x7fffffff)), vi_set(0x7f800000)), q, r);
  /* h holds 0..0xffff per lane: pack unsigned (per 128-bit half), then fix the order */
  __m256i pk = _mm256_permute4x64_epi64(_mm256_packus_epi32(h, h), 0xD8);
  return _mm256_castsi256_si128(pk);
}
SI void vf_store_bf16(void *p, VF v) { _mm_storeu_si128((__m128i *)p, vf_to_bf16(v)); }
/* Streaming (non-temporal) stores: p aligned to the store's width (32 bytes for
 * float32, 16 for float16/bfloat16); the caller fences (_mm_sfence) when done. */
SI void vf_stream_f32(void *p, VF v) { _mm256_stream_ps((float *)p, v); }
SI void vf_stream_f16(void *p, VF v) {
  _mm_stream_si128((__m128i *)p, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
SI void vf_stream_bf16(void *p, VF v) { _mm_stream_si128((__m128i *)p, vf_to_bf16(v)); }
SI void vm_store_bool(void *p, VM m) {
  __m256i v = _mm256_and_si256(_mm256_castps_si256(m), _mm256_set1_epi32(1));
  __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  _mm_storel_epi64((__m128i *)p, _mm_packs_epi16(w, w));
}
SI VM vm_load_bool(const void *p) {
  __m128i b = _mm_loadl_epi64((const __m128i *)p);
  __m256i v = _mm256_cvtepu8_epi32(b);
  return _mm256_castsi256_ps(_mm256_xor_si256(_mm256_cmpeq_epi32(v, _mm256_setzero_si256()),
                                              _mm256_set1_epi32(-1)));
}

#endif /* TABI_CPU_SIMD_AVX2_H */
