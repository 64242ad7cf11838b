/* plugins/rocm/rocm_tile.cuh: what the tiled GEMM (rocm_gemm.cuh) and the
 * implicit-GEMM convolution (rocm_conv.cuh) share: the tile sizes and the
 * typed element loads/stores of the four floating dtypes (half types convert
 * through float with the ABI's round-to-nearest-even, abi/tabi/half.h), and
 * the two kernels. Device code only, nothing of the runtime: the kernels also
 * compile as plain C++ on the host, where tests/cuda/test_rocm_tiles.cpp runs
 * them block by block against naive loops (no AMD GPU needed). */
#ifndef TABI_ROCM_TILE_CUH
#define TABI_ROCM_TILE_CUH

#define RG_BM 64
#define RG_BN 64
#define RG_BK 16
#define RG_NT 256

/* c + a * b as one fused multiply-add on an AMD GPU: the ROCm plugin is built
 * with -ffp-contract=off (plugins/rocm/CMakeLists.txt), and these inner loops
 * are where an FMA halves the instructions. Elsewhere (gpusim, the host test)
 * a multiply and an add, within the tiles' tolerance of the device's. */
template <class A>
__device__ __forceinline__ A rg_fma(A a, A b, A c) {
#if defined(__HIP_DEVICE_COMPILE__)
  return fma(a, b, c);
#else
  return a * b + c;
#endif
}

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

/* out[b] = alpha * (a[b] @ m[b]) + beta * self (the epilogue as mm_naive's).
 * J is tc_blas.cu's mm_args (a template parameter so that the kernel can be
 * exercised on the host by tests/cuda/test_rocm_tiles.cpp). */
template <int DT, class J>
__global__ void __launch_bounds__(RG_NT) rg_tiled(const J j) {
  typedef rg_io<DT> io;
  typedef typename io::acc A;
  TC_SHARED(A, as, [RG_BK][RG_BM + 1]);
  TC_SHARED(A, ms, [RG_BK][RG_BN + 1]);
  const int t = threadIdx.x, tx = t % 16, ty = t / 16;
  const int64_t c0 = (int64_t)blockIdx.x * RG_BN;
  /* batch and row tiles loop (block-uniform) past the grid's y/z limits */
  for (int64_t b = blockIdx.z; b < j.nb; b += gridDim.z) {
    for (int64_t r0 = (int64_t)blockIdx.y * RG_BM; r0 < j.n; r0 += (int64_t)gridDim.y * RG_BM) {
      A acc[4][4];
#pragma unroll
      for (int u = 0; u < 4; u++)
#pragma unroll
        for (int v = 0; v < 4; v++) acc[u][v] = 0;
      for (int64_t k0 = 0; k0 < j.k; k0 += RG_BK) {
        /* consecutive threads walk k in a (row-major a: coalesced), cols in m */
        for (int e = t; e < RG_BM * RG_BK; e += RG_NT) {
          int rr = e / RG_BK, kk = e % RG_BK;
          int64_t r = r0 + rr, k = k0 + kk;
          as[kk][rr] = (r < j.n && k < j.k) ? (A)io::ld(j.a, b * j.ast[0] + r * j.ast[1] + k * j.ast[2]) : (A)0;
        }
        for (int e = t; e < RG_BK * RG_BN; e += RG_NT) {
          int kk = e / RG_BN, cc = e % RG_BN;
          int64_t k = k0 + kk, col = c0 + cc;
          ms[kk][cc] = (k < j.k && col < j.p) ? (A)io::ld(j.m, b * j.mst[0] + k * j.mst[1] + col * j.mst[2]) : (A)0;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < RG_BK; kk++) {
          A av[4], mv[4];
#pragma unroll
          for (int u = 0; u < 4; u++) {
            av[u] = as[kk][ty + 16 * u];
            mv[u] = ms[kk][tx + 16 * u];
          }
#pragma unroll
          for (int u = 0; u < 4; u++)
#pragma unroll
            for (int v = 0; v < 4; v++) acc[u][v] = rg_fma(av[u], mv[v], acc[u][v]);
        }
        __syncthreads();
      }
#pragma unroll
      for (int u = 0; u < 4; u++) {
        int64_t r = r0 + ty + 16 * u;
        if (r >= j.n) continue;
#pragma unroll
        for (int v = 0; v < 4; v++) {
          int64_t col = c0 + tx + 16 * v;
          if (col >= j.p) continue;
          double x = (double)acc[u][v];
          if (j.use_self) {
            x *= j.alpha[0];
            if (j.use_beta) x += j.beta[0] * (double)io::ld(j.s, b * j.sst[0] + r * j.sst[1] + col * j.sst[2]);
          }
          io::st(j.o, (b * j.n + r) * j.p + col, (A)x);
        }
      }
    }
  }
}

/* The implicit-GEMM convolution (rocm_conv.cuh); CA is tc_conv.cu's conv_args. */
template <int DT, class CA>
__global__ void __launch_bounds__(RG_NT) rc_igemm(const CA a) {
  typedef rg_io<DT> io;
  typedef typename io::acc A;
  TC_SHARED(A, xs, [RG_BK][RG_BM + 1]);
  TC_SHARED(A, ws, [RG_BK][RG_BN + 1]);
  const auto &g = a.g;
  const int t = threadIdx.x, tx = t % 16, ty = t / 16;
  const int64_t lpg = g.cl / g.groups, hpg = g.ch / g.groups, gi = blockIdx.z;
  const int64_t oh_n = a.oshape[2], ow_n = a.oshape[3], kh_n = g.k[0], kw_n = g.k[1];
  const int64_t rows = g.n * oh_n * ow_n, kdim = hpg * kh_n * kw_n, khw = kh_n * kw_n;
  const int64_t c0 = (int64_t)blockIdx.x * RG_BN;
  for (int64_t r0 = (int64_t)blockIdx.y * RG_BM; r0 < rows; r0 += (int64_t)gridDim.y * RG_BM) {
    A acc[4][4];
#pragma unroll
    for (int u = 0; u < 4; u++)
#pragma unroll
      for (int v = 0; v < 4; v++) acc[u][v] = 0;
    for (int64_t k0 = 0; k0 < kdim; k0 += RG_BK) {
      for (int e = t; e < RG_BM * RG_BK; e += RG_NT) {
        int rr = e / RG_BK, kk = e % RG_BK;
        int64_t r = r0 + rr, k = k0 + kk;
        A x = 0;
        if (r < rows && k < kdim) {
          int64_t ow = r % ow_n, oh = (r / ow_n) % oh_n, nb = r / (ow_n * oh_n);
          int64_t ic = k / khw, kh = (k / kw_n) % kh_n, kw = k % kw_n;
          int64_t ih = oh * g.s[0] - g.p[0] + kh * g.d[0], iw = ow * g.s[1] - g.p[1] + kw * g.d[1];
          if (ih >= 0 && ih < g.hsp[0] && iw >= 0 && iw < g.hsp[1])
            x = (A)io::ld(a.in, nb * a.ist[0] + (gi * hpg + ic) * a.ist[1] + ih * a.ist[2] + iw * a.ist[3]);
        }
        xs[kk][rr] = x;
      }
      for (int e = t; e < RG_BK * RG_BN; e += RG_NT) {
        int kk = e / RG_BN, cc = e % RG_BN;
        int64_t k = k0 + kk, col = c0 + cc;
        A w = 0;
        if (k < kdim && col < lpg) {
          int64_t ic = k / khw, kh = (k / kw_n) % kh_n, kw = k % kw_n;
          w = (A)io::ld(a.w, (gi * lpg + col) * a.wst[0] + ic * a.wst[1] + kh * a.wst[2] + kw * a.wst[3]);
        }
        ws[kk][cc] = w;
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < RG_BK; kk++) {
        A xv[4], wv[4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
          xv[u] = xs[kk][ty + 16 * u];
          wv[u] = ws[kk][tx + 16 * u];
        }
#pragma unroll
        for (int u = 0; u < 4; u++)
#pragma unroll
          for (int v = 0; v < 4; v++) acc[u][v] = rg_fma(xv[u], wv[v], acc[u][v]);
      }
      __syncthreads();
    }
#pragma unroll
    for (int u = 0; u < 4; u++) {
      int64_t r = r0 + ty + 16 * u;
      if (r >= rows) continue;
      int64_t ow = r % ow_n, oh = (r / ow_n) % oh_n, nb = r / (ow_n * oh_n);
#pragma unroll
      for (int v = 0; v < 4; v++) {
        int64_t col = c0 + tx + 16 * v;
        if (col >= lpg) continue;
        int64_t oc = gi * lpg + col;
        A x = acc[u][v];
        if (a.b) x += (A)io::ld(a.b, oc * a.bst);
        io::st(a.out, nb * a.ost[0] + oc * a.ost[1] + oh * a.ost[2] + ow * a.ost[3], x);
      }
    }
  }
}

#endif /* TABI_ROCM_TILE_CUH */
