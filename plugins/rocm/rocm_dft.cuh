/* plugins/rocm/rocm_dft.cuh: the ROCm plugin's fallback 1-D transform, a
 * direct DFT in place of cuFFT in the shared plugins/cuda/tc_fft.cu (Debian
 * 12 has no rocFFT) for the lengths the Stockham FFT of rocm_fft.cuh does not
 * take: prime factors other than 2, 3, 5, and rows shorter than RD_FFT_MIN.
 * The shared file still does the planning of multi-dim transforms, the
 * Hermitian fix-up before c2r and the normalisation; this is one batched
 * stage over dense rows, unnormalised, with cuFFT's conventions (which
 * rocm_fft.cuh follows too, and is tested against this).
 *
 * One thread per output element; sums in double with exact phase reduction
 * ((j*t) mod n before the angle), so it is accurate but O(n^2): fine for
 * short rows, slow for long rows of awkward lengths (Bluestein through the
 * power-of-two FFT, or rocFFT through dlopen, would be the fast path there).
 * Device code only (tests/cuda/test_rocm_tiles.cpp runs it on the host).
 * NOT YET RUN ON AMD HARDWARE. */
#ifndef TABI_ROCM_DFT_CUH
#define TABI_ROCM_DFT_CUH

#define RD_TWO_PI 6.283185307179586476925286766559

/* kind 0: c2c (fwd: e^{-i}, else e^{+i}) of rows of n complex; 1: r2c of rows
 * of n reals into n/2+1 complex; 2: c2r of rows of n/2+1 complex (imaginary
 * parts of bins 0 and n/2 already zeroed) into n reals, always e^{+i}.
 * R: float or double (the storage; complex is interleaved R pairs). */
template <typename R>
__global__ void rd_dft(const char *src, char *dst, int kind, int fwd, int64_t batch, int64_t n) {
  const int64_t in_len = kind == 2 ? n / 2 + 1 : n, out_len = kind == 1 ? n / 2 + 1 : n;
  const int64_t total = batch * out_len, step = (int64_t)gridDim.x * blockDim.x;
  const double sgn = (kind == 2 || !fwd) ? 1.0 : -1.0;
  for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < total; o += step) {
    int64_t b = o / out_len, j = o % out_len;
    const R *in = (const R *)src + b * in_len * (kind == 1 ? 1 : 2);
    double re = 0, im = 0;
    for (int64_t t = 0; t < n; t++) {
      double xr, xi;
      if (kind == 1) {
        xr = in[t];
        xi = 0;
      } else if (kind == 0 || t < in_len) {
        xr = in[2 * t];
        xi = in[2 * t + 1];
      } else { /* c2r: the upper half is the conjugate mirror */
        xr = in[2 * (n - t)];
        xi = -in[2 * (n - t) + 1];
      }
      double ang = sgn * RD_TWO_PI * (double)((t % n) * j % n) / (double)n;
      double c = cos(ang), s = sin(ang);
      re += xr * c - xi * s;
      im += xr * s + xi * c;
    }
    if (kind == 2) {
      ((R *)dst)[o] = (R)re;
    } else {
      ((R *)dst)[2 * o] = (R)re;
      ((R *)dst)[2 * o + 1] = (R)im;
    }
  }
}

#endif /* TABI_ROCM_DFT_CUH */
