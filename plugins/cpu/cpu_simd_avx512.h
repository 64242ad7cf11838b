/* plugins/cpu/cpu_simd_avx512.h: the vector layer for AVX-512 (16 float lanes).
 *
 * The elementwise math (cpu_ew_math.h) and loops (cpu_ew_kern.h) are written once
 * against this small set of inline functions; cpu_simd_avx2.h and
 * cpu_simd_scalar.h define the same names for 8 lanes and for 1 lane. Include
 * only from a file compiled for AVX-512F/BW/VL/DQ (cpu_ew_avx512.c sets the
 * target by pragma), and call only after a run-time check of those features.
 */
#ifndef TABI_CPU_SIMD_AVX512_H
#define TABI_CPU_SIMD_AVX512_H

#include <immintrin.h>
#include <stdint.h>

#define W 16
typedef __m512 VF;
typedef __m512i VI;
typedef __mmask16 VM;

#define SI static inline __attribute__((always_inline))

SI VF vf_set(float x) { return _mm512_set1_ps(x); }
SI VF vf_add(VF a, VF b) { return _mm512_add_ps(a, b); }
SI VF vf_sub(VF a, VF b) { return _mm512_sub_ps(a, b); }
SI VF vf_mul(VF a, VF b) { return _mm512_mul_ps(a, b); }
SI VF vf_div(VF a, VF b) { return _mm512_div_ps(a, b); }
SI VF vf_fma(VF a, VF b, VF c) { return _mm512_fmadd_ps(a, b, c); }   /* a*b + c */
SI VF vf_fnma(VF a, VF b, VF c) { return _mm512_fnmadd_ps(a, b, c); } /* c - a*b */
/* x86 min/max: the second operand when either is NaN. */
SI VF vf_min(VF a, VF b) { return _mm512_min_ps(a, b); }
SI VF vf_max(VF a, VF b) { return _mm512_max_ps(a, b); }
SI VF vf_sqrt(VF a) { return _mm512_sqrt_ps(a); }
/* 1/a to about 14 bits (refine with ew_rcp) */
SI VF vf_rcp_approx(VF a) { return _mm512_rcp14_ps(a); }
SI VI vf_as_vi(VF a) { return _mm512_castps_si512(a); }
SI VF vi_as_vf(VI a) { return _mm512_castsi512_ps(a); }
SI VF vf_and(VF a, VF b) { return _mm512_and_ps(a, b); }
SI VF vf_or(VF a, VF b) { return _mm512_or_ps(a, b); }
SI VF vf_xor(VF a, VF b) { return _mm512_xor_ps(a, b); }
SI VF vf_andnot(VF a, VF b) { return _mm512_andnot_ps(a, b); } /* ~a & b */
SI VF vf_floor(VF a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
SI VF vf_ceil(VF a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
SI VF vf_trunc(VF a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
SI VF vf_rint(VF a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
SI VM vf_lt(VF a, VF b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
SI VM vf_le(VF a, VF b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
SI VM vf_gt(VF a, VF b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
SI VM vf_ge(VF a, VF b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
SI VM vf_eq(VF a, VF b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
SI VM vf_ne(VF a, VF b) { return _mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ); }
SI VM vf_isnan(VF a) { return _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q); }
SI VF vf_sel(VM m, VF a, VF b) { return _mm512_mask_blend_ps(m, b, a); } /* m ? a : b */
SI VM vm_and(VM a, VM b) { return (VM)(a & b); }
SI VM vm_or(VM a, VM b) { return (VM)(a | b); }
SI VM vm_xor(VM a, VM b) { return (VM)(a ^ b); }
SI VM vm_not(VM a) { return (VM)~a; }
SI int vm_any(VM a) { return a != 0; }
/* Round to nearest int32; NaN and out of range give INT32_MIN (x86's value). */
SI VI vf_cvt_i(VF a) { return _mm512_cvtps_epi32(a); }
SI VF vi_to_f(VI a) { return _mm512_cvtepi32_ps(a); }
SI VI vi_set(int32_t x) { return _mm512_set1_epi32(x); }
SI VI vi_add(VI a, VI b) { return _mm512_add_epi32(a, b); }
SI VI vi_sub(VI a, VI b) { return _mm512_sub_epi32(a, b); }
SI VI vi_and(VI a, VI b) { return _mm512_and_si512(a, b); }
SI VI vi_or(VI a, VI b) { return _mm512_or_si512(a, b); }
#define vi_slli(a, n) _mm512_slli_epi32((a), (n))
#define vi_srli(a, n) _mm512_srli_epi32((a), (n))
#define vi_srai(a, n) _mm512_srai_epi32((a), (n))
SI VM vi_gt(VI a, VI b) { return _mm512_cmpgt_epi32_mask(a, b); }
SI VM vi_eq(VI a, VI b) { return _mm512_cmpeq_epi32_mask(a, b); }
SI VI vi_sel(VM m, VI a, VI b) { return _mm512_mask_blend_epi32(m, b, a); }

/* --- loads and stores (unaligned) ------------------------------------------ */
SI VF vf_load_f32(const void *p) { return _mm512_loadu_ps(p); }
SI void vf_store_f32(void *p, VF v) { _mm512_storeu_ps(p, v); }
SI VF vf_load_f16(const void *p) { return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p)); }
SI void vf_store_f16(void *p, VF v) {
  _mm256_storeu_si256((__m256i *)p, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
/* Streaming (non-temporal) stores: p aligned to the store's width (64 bytes for
 * float32, 32 for float16/bfloat16); the caller fences (_mm_sfence) when done. */
SI void vf_stream_f32(void *p, VF v) { _mm512_stream_ps((float *)p, v); }
SI void vf_stream_f16(void *p, VF v) {
  _mm256_stream_si256((__m256i *)p, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
/* word i to the upper half of lane i, lower halves zeroed: one permute */
SI VF vf_load_bf16(const void *p) {
  const VI idx = _mm512_set_epi16(15, 0, 14, 0, 13, 0, 12, 0, 11, 0, 10, 0, 9, 0, 8, 0,
                                  7, 0, 6, 0, 5, 0, 4, 0, 3, 0, 2, 0, 1, 0, 0, 0);
  VI w = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)p));
  return vi_as_vf(_mm512_maskz_permutexvar_epi16((__mmask32)0xAAAAAAAAu, idx, w));
}
/* Round to nearest even; NaN keeps sign and payload, quieted (tabi/half.h).
 * With CPU_SIMD_AVX512BF16 (a file compiled for AVX512_BF16): vcvtneps2bf16,
 * which gives the same bits for every input but float32 subnormals (it flushes
 * them to zero); a vector holding one takes the integer rounding below. */
/* each lane rounded to bfloat16 in its upper 16 bits (the lower bits are junk) */
SI VI vf_bf16_round(VF v) {
  VI u = vf_as_vi(v);
  VI lsb = vi_and(vi_srli(u, 16), vi_set(1));
  VI r = vi_add(u, vi_add(vi_set(0x7fff), lsb));
  return _mm512_mask_or_epi32(r, vf_isnan(v), u, vi_set(0x400000));
}
SI __m256i vf_to_bf16(VF v) {
#ifdef CPU_SIMD_AVX512BF16
  if (__builtin_expect(_mm512_fpclass_ps_mask(v, 0x20) == 0, 1))
    return (__m256i)_mm512_cvtneps_pbh(v);
#endif
  VI h = vf_bf16_round(v);
  /* the upper halves of the 16 lanes (one word permute: cheaper than vpmovdw) */
  const VI odd = _mm512_set_epi16(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1,
                                  31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  return _mm512_castsi512_si256(_mm512_permutexvar_epi16(odd, h));
}
SI void vf_store_bf16(void *p, VF v) { _mm256_storeu_si256((__m256i *)p, vf_to_bf16(v)); }
SI void vf_stream_bf16(void *p, VF v) { _mm256_stream_si256((__m256i *)p, vf_to_bf16(v)); }

/* 32 bfloat16 as two vectors, in an order of their own: unpacking the words of
 * each 128-bit lane against zero gives lo = words 0-3 and hi = words 4-7 of every
 * lane, already float32 bit patterns, with no cross-lane shuffle; the store is
 * the exact inverse. Unary loops, where the order of lanes does not matter, read
 * and write bfloat16 this way: it halves the conversion work (the word permute
 * of vf_load_bf16 and the two stores' conversions, ~2 of 4.5 cycles per 16
 * elements of a bfloat16 exp on Zen 5). */
#define CPU_SIMD_HAS_BF16X2 1
SI void vf_load_bf16x2(const void *p, VF *lo, VF *hi) {
  VI v = _mm512_loadu_si512(p);
  *lo = vi_as_vf(_mm512_unpacklo_epi16(_mm512_setzero_si512(), v));
  *hi = vi_as_vf(_mm512_unpackhi_epi16(_mm512_setzero_si512(), v));
}
SI VI vf_to_bf16x2(VF lo, VF hi) {
#ifdef CPU_SIMD_AVX512BF16
  if (__builtin_expect((_mm512_fpclass_ps_mask(lo, 0x20) | _mm512_fpclass_ps_mask(hi, 0x20)) == 0, 1)) {
    /* vcvtne2ps2bf16 puts lo's 16 words before hi's; put each lane's back */
    const VI idx = _mm512_set_epi16(31, 30, 29, 28, 15, 14, 13, 12, 27, 26, 25, 24, 11, 10, 9, 8,
                                    23, 22, 21, 20, 7, 6, 5, 4, 19, 18, 17, 16, 3, 2, 1, 0);
    return _mm512_permutexvar_epi16(idx, (VI)_mm512_cvtne2ps_pbh(hi, lo));
  }
#endif
  /* in-lane pack: lane k gets lo's 4 words, then hi's (values <= 0xffff: no saturation) */
  return _mm512_packus_epi32(vi_srli(vf_bf16_round(lo), 16), vi_srli(vf_bf16_round(hi), 16));
}
SI void vf_store_bf16x2(void *p, VF lo, VF hi) { _mm512_storeu_si512(p, vf_to_bf16x2(lo, hi)); }
/* p 64-byte aligned */
SI void vf_stream_bf16x2(void *p, VF lo, VF hi) { _mm512_stream_si512(p, vf_to_bf16x2(lo, hi)); }
/* p * 2^k for integral k (one rounding, subnormals and overflow included) */
#define CPU_SIMD_HAS_SCALEF 1
SI VF vf_scalef(VF p, VF k) { return _mm512_scalef_ps(p, k); }
/* a - floor(a), exact, in [0, 1) for finite a (vreduceps: round down, 0 bits kept);
 * +-inf give 0, NaN stays NaN, so vf_scalef(poly(that), a) is inf/0/NaN there */
SI VF vf_frac_floor(VF a) { return _mm512_reduce_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
/* Lane i gets t[idx_i mod 32] (t: 32 floats, 64-byte aligned): one vpermt2ps
 * over two registers, i.e. a 32-entry table lookup without a gather. */
#define CPU_SIMD_HAS_TAB32 1
SI VF vf_tab32(const float *t, VI idx) {
  return _mm512_permutex2var_ps(_mm512_load_ps(t), idx, _mm512_load_ps(t + 16));
}
/* min(|a|, b) for b > 0 in one vrangeps (smaller magnitude, sign cleared); NaN a stays NaN */
SI VF vf_absmin(VF a, VF b) { return _mm512_range_ps(a, b, 0x0a); }
/* a * b - c, one rounding */
SI VF vf_fms(VF a, VF b, VF c) { return _mm512_fmsub_ps(a, b, c); }
/* v, except lanes where x is -inf, which get the default NaN (vfixupimmps: the
 * response for x's class "-inf" is 3, QNaN indefinite; every other class keeps v) */
SI VF vf_neginf_nan(VF v, VF x) { return _mm512_fixupimm_ps(v, x, _mm512_set1_epi32(3 << 16), 0); }
/* Lanes as bytes 0/1 (a bool tensor). */
SI void vm_store_bool(void *p, VM m) { _mm_storeu_si128((__m128i *)p, _mm_maskz_set1_epi8(m, 1)); }
/* Bytes (bool tensor) as a mask: lane set where the byte is nonzero. */
SI VM vm_load_bool(const void *p) {
  return _mm_test_epi8_mask(_mm_loadu_si128((const __m128i *)p), _mm_set1_epi8(-1));
}

#endif /* TABI_CPU_SIMD_AVX512_H */
