/* plugins/rocm/rocm_tile.cuh: what the tiled GEMM (rocm_gemm.cuh) and the
 * implicit-GEMM convolution (rocm_conv.cuh) share: the tile sizes and the
 * typed element loads/stores of the four floating dtypes (half types convert
 * through float with the ABI's round-to-nearest-even, abi/tabi/half.h). */
#ifndef TABI_ROCM_TILE_CUH
#define TABI_ROCM_TILE_CUH

#define RG_BM 64
#define RG_BN 64
#define RG_BK 16
#define RG_NT 256

template <int DT> struct rg_io;
template <> struct rg_io<TABI_DTYPE_FLOAT32> {
  typedef float acc;
  static __device__ __forceinline__ float ld(const char *p, int64_t i) { return ((const float *)p)[i]; }
  static __device__ __forceinline__ void st(char *p, int64_t i, float v) { ((float *)p)[i] = v; }
};
template <> struct rg_io<TABI_DTYPE_FLOAT64> {
  typedef double acc;
  static __device__ __forceinline__ double ld(const char *p, int64_t i) { return ((const double *)p)[i]; }
  static __device__ __forceinline__ void st(char *p, int64_t i, double v) { ((double *)p)[i] = v; }
};
template <> struct rg_io<TABI_DTYPE_FLOAT16> {
  typedef float acc;
  static __device__ __forceinline__ float ld(const char *p, int64_t i) {
    return tabi_f16_to_f32(((const uint16_t *)p)[i]);
  }
  static __device__ __forceinline__ void st(char *p, int64_t i, float v) {
    ((uint16_t *)p)[i] = tabi_f32_to_f16(v);
  }
};
template <> struct rg_io<TABI_DTYPE_BFLOAT16> {
  typedef float acc;
  static __device__ __forceinline__ float ld(const char *p, int64_t i) {
    return tabi_bf16_to_f32(((const uint16_t *)p)[i]);
  }
  static __device__ __forceinline__ void st(char *p, int64_t i, float v) {
    ((uint16_t *)p)[i] = tabi_f32_to_bf16(v);
  }
};

#endif /* TABI_ROCM_TILE_CUH */
