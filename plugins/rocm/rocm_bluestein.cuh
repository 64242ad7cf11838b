/* plugins/rocm/rocm_bluestein.cuh: Bluestein's algorithm (chirp-z) for the
 * ROCm plugin's 1-D transforms of lengths the Stockham FFT of rocm_fft.cuh
 * does not take (a prime factor above 5: primes, 7-smooth, 11*13, ...), from
 * RD_FFT_MIN on, in place of the O(n^2) direct DFT of rocm_dft.cuh. Same
 * conventions as both (kind 0 c2c, 1 r2c of n reals into n/2+1 bins, 2 c2r
 * of n/2+1 bins into n reals, always e^{+i}; unnormalised; float or double
 * storage, complex interleaved).
 *
 * With the chirp c_j = e^{s i pi j^2 / n} (s = -1 forward, +1 inverse),
 * t*k = (t^2 + k^2 - (k-t)^2) / 2 turns the length-n DFT into
 *   X_k = c_k * sum_t (x_t c_t) conj(c_{k-t}),
 * a linear convolution of a_t = x_t c_t (t < n) with f_j = conj(c_j)
 * (|j| < n), done as a cyclic one of length m >= 2n-1 (the smallest
 * 2,3,5-smooth such m, so the Stockham FFT runs it; at most ~1.1 * (2n-1)
 * past small n, against up to 2x for a power of two):
 *   X = c . IFFT_m(FFT_m(a) . FFT_m(f) / m).
 * The caller (tc_fft.cu, TC_HIP) gives a scratch of (2*batch + 2) * m double
 * complex: halves A, B (batch rows of m) for the data and F0, F1 (one row)
 * for the filter. Launch order: rd_bs_filter into F0, the Stockham stages
 * (forward, batch 1) ping-ponging F0/F1; rd_bs_load into A, the stages
 * forward A<->B, rd_bs_mul by the filter's spectrum, the stages inverse,
 * rd_bs_store. The filter's spectrum depends only on the sign and n:
 * tc_fft.cu computes it once (the launches up to its last stage, batch 1)
 * and keeps it, so a later call skips them and the F halves of the scratch.
 *
 * Accuracy: all in double. The chirp's phase pi j^2 / n is taken with the
 * integer q = j^2 mod 2n (exact in 64 bits: j < n <= RD_BS_MAX_N) reduced
 * into (-n, n], so the angle is within [-pi, pi] and its error one rounding
 * of q/n whatever n (j^2 itself would lose every digit past n ~ 1e4 in
 * double). The convolution's error is that of three length-m FFTs, ~log m *
 * eps relative to the largest bin (measured by test_rocm_tiles).
 * Device code only (the test runs it on the host). NOT YET RUN ON AMD
 * HARDWARE. */
#ifndef TABI_ROCM_BLUESTEIN_CUH
#define TABI_ROCM_BLUESTEIN_CUH

#include <stdint.h>

#include "rocm_fft.cuh"

/* Beyond this the filter and scratch (>= 64 * n bytes a row) are not a
 * sensible allocation anyway, and 2n stays below 2^31 (j^2 mod 2n exact). */
#define RD_BS_MAX_N ((int64_t)1 << 30)

/* The convolution length for Bluestein at n: the smallest 2^a 3^b 5^c >=
 * 2n-1, or -1 when n < 2 or n > RD_BS_MAX_N. Host code. */
static inline int64_t rd_bs_len(int64_t n) {
  if (n < 2 || n > RD_BS_MAX_N) return -1;
  const int64_t want = 2 * n - 1;
  int64_t best = -1;
  for (int64_t p5 = 1; p5 < 2 * want; p5 *= 5)
    for (int64_t p35 = p5; p35 < 2 * want; p35 *= 3) {
      int64_t v = p35;
      while (v < want) v *= 2;
      if (best < 0 || v < best) best = v;
    }
  return best;
}

/* c_j = e^{sgn i pi j^2 / n}, 0 <= j < n. */
__device__ __forceinline__ void rd_bs_chirp(int64_t j, int64_t n, double sgn, double *c, double *s) {
  const uint64_t two_n = 2 * (uint64_t)n, u = (uint64_t)j % two_n;
  int64_t q = (int64_t)(u * u % two_n); /* u < 2^31: u*u < 2^62 */
  if (q > n) q -= (int64_t)two_n;      /* (-n, n]: the angle in [-pi, pi] */
  const double ang = sgn * RD_TWO_PI * ((double)q / (double)two_n);
  *c = cos(ang);
  *s = sin(ang);
}

/* s of the transform: -1 for a forward c2c/r2c, +1 otherwise (rd_dft's). */
__device__ __forceinline__ double rd_bs_sign(int kind, int fwd) {
  return (kind == 2 || !fwd) ? 1.0 : -1.0;
}

/* f (one row of m double complex): conj(c_|j|) / m at j and m - j for
 * 0 <= j < n, 0 between (the 1/m of the inverse FFT folded in here). */
__global__ void rd_bs_filter(double *f, int kind, int fwd, int64_t n, int64_t m) {
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  const double sgn = rd_bs_sign(kind, fwd), inv_m = 1.0 / (double)m;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += step) {
    int64_t j = e < n ? e : e > m - n ? m - e : -1;
    double c = 0, s = 0;
    if (j >= 0) rd_bs_chirp(j, n, sgn, &c, &s);
    f[2 * e] = c * inv_m;
    f[2 * e + 1] = -s * inv_m;
  }
}

/* Row b of the input (widened as rd_fft_load does: r2c imaginary parts 0,
 * c2r's upper half the conjugate mirror) times the chirp into row b of a
 * (m double complex; zeros from n). */
template <typename R>
__global__ void rd_bs_load(const char *src, double *a, int kind, int fwd, int64_t batch, int64_t n,
                           int64_t m) {
  const int64_t total = batch * m, step = (int64_t)gridDim.x * blockDim.x;
  const int64_t in_len = kind == 2 ? n / 2 + 1 : n;
  const double sgn = rd_bs_sign(kind, fwd);
  const R *in = (const R *)src;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t b = e / m, t = e % m;
    double re = 0, im = 0;
    if (t < n) {
      if (kind == 0) {
        re = (double)in[2 * (b * n + t)];
        im = (double)in[2 * (b * n + t) + 1];
      } else if (kind == 1) {
        re = (double)in[b * n + t];
      } else {
        int64_t s = t < in_len ? t : n - t;
        re = (double)in[2 * (b * in_len + s)];
        im = (double)in[2 * (b * in_len + s) + 1];
        if (t >= in_len) im = -im;
      }
      double c, s;
      rd_bs_chirp(t, n, sgn, &c, &s);
      double tr = re * c - im * s;
      im = re * s + im * c;
      re = tr;
    }
    a[2 * e] = re;
    a[2 * e + 1] = im;
  }
}

/* a (batch rows of m) times the filter's spectrum f (one row), pointwise. */
__global__ void rd_bs_mul(double *a, const double *f, int64_t batch, int64_t m) {
  const int64_t total = batch * m, step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t j = e % m;
    const double ar = a[2 * e], ai = a[2 * e + 1], fr = f[2 * j], fi = f[2 * j + 1];
    a[2 * e] = ar * fr - ai * fi;
    a[2 * e + 1] = ar * fi + ai * fr;
  }
}

/* Bins 0..out_len-1 of each row of the convolution a, times the chirp, into
 * the output storage (r2c: bins 0..n/2; c2r: the real parts). */
template <typename R>
__global__ void rd_bs_store(const double *a, char *dst, int kind, int fwd, int64_t batch, int64_t n,
                            int64_t m) {
  const int64_t out_len = kind == 1 ? n / 2 + 1 : n, total = batch * out_len;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  const double sgn = rd_bs_sign(kind, fwd);
  R *out = (R *)dst;
  for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < total; o += step) {
    const int64_t b = o / out_len, k = o % out_len, e = b * m + k;
    double c, s;
    rd_bs_chirp(k, n, sgn, &c, &s);
    const double re = a[2 * e] * c - a[2 * e + 1] * s;
    if (kind == 2) {
      out[o] = (R)re;
    } else {
      out[2 * o] = (R)re;
      out[2 * o + 1] = (R)(a[2 * e] * s + a[2 * e + 1] * c);
    }
  }
}

#endif /* TABI_ROCM_BLUESTEIN_CUH */
