/* plugins/rocm/rocm_fft.cuh: the ROCm plugin's fast 1-D transform, an
 * iterative mixed-radix Stockham FFT (radices 4, 2, 3, 5) for lengths whose
 * prime factors are 2, 3 and 5, in place of cuFFT in the shared
 * plugins/cuda/tc_fft.cu (Debian 12 has no rocFFT). Other lengths, and short
 * ones, keep the direct DFT of rocm_dft.cuh; both have its conventions (kind
 * 0 c2c, 1 r2c of n reals into n/2+1 bins, 2 c2r of n/2+1 bins with the
 * imaginary parts of 0 and n/2 zeroed, always e^{+i}; unnormalised; float
 * or double storage, complex interleaved).
 *
 * Layout: the caller gives a scratch of 2 * batch * n double complex (two
 * ping-pong halves A and B). rd_fft_load widens a batch of rows into A as
 * full complex rows (r2c: imaginary parts 0; c2r: the upper half filled
 * with the conjugate mirror), one rd_fft_stage per radix moves A->B->A...,
 * and rd_fft_store narrows the last buffer into the output (r2c: bins
 * 0..n/2; c2r: the real parts). So r2c and c2r cost a full length-n complex
 * transform (about twice a half-length real FFT) and 16*n bytes of scratch
 * per row per half: simple and exact to cuFFT's conventions.
 *
 * Stockham (out of place, self-sorting): after the stages of radices
 * R_1..R_s the partial length is p = R_1*...*R_s; stage R takes m = n/R
 * butterflies i, k = i mod p, inputs x[i + r*m] (r < R) times the twiddle
 * w^{r*k} (w = e^{-+2 pi i/(p*R)}), a length-R DFT, outputs to
 * y[(i - k)*R + k + r*p]. No transposes, no bit reversal, every element
 * read and written once per stage, rows independent: no atomics, no shared
 * memory, deterministic.
 *
 * Accuracy: all arithmetic in double; each twiddle angle is 2*pi*q/N with
 * the integer q = r*k < N reduced into (-N/2, N/2] first, so the phase error
 * is one rounding of q/N, not growing with n; the butterflies' constants are
 * exact-to-double literals. The error grows ~log n * eps (measured by
 * tests/cuda/test_rocm_tiles.cpp up to n = 2^20).
 * Device code only (the test runs it on the host). NOT YET RUN ON AMD
 * HARDWARE. */
#ifndef TABI_ROCM_FFT_CUH
#define TABI_ROCM_FFT_CUH

#include <stdint.h>

#ifndef RD_TWO_PI
#define RD_TWO_PI 6.283185307179586476925286766559
#endif

/* Shorter rows take the direct DFT: at most 32 terms an output, one launch
 * and no scratch. */
#define RD_FFT_MIN 32
#define RD_FFT_MAX_STAGES 64

typedef struct rd_fft_step {
  int radix;
  int64_t p; /* the partial length before this stage */
} rd_fft_step;

/* The stages for length n (radix 4 while 4 divides, then 2, 3, 5), or -1
 * when n has another prime factor (or n < 1). n = 1: no stages. */
static inline int rd_fft_plan(int64_t n, rd_fft_step *st) {
  if (n < 1) return -1;
  int ns = 0;
  int64_t rest = n, p = 1;
  static const int radices[4] = {4, 2, 3, 5};
  for (int ri = 0; ri < 4; ri++)
    while (rest % radices[ri] == 0) {
      if (ns >= RD_FFT_MAX_STAGES) return -1;
      st[ns].radix = radices[ri];
      st[ns].p = p;
      ns++;
      p *= radices[ri];
      rest /= radices[ri];
    }
  return rest == 1 ? ns : -1;
}

/* Row b of the input into row b of a (double complex, n per row). */
template <typename R>
__global__ void rd_fft_load(const char *src, double *a, int kind, int64_t batch, int64_t n) {
  const int64_t total = batch * n, step = (int64_t)gridDim.x * blockDim.x;
  const int64_t in_len = kind == 2 ? n / 2 + 1 : n;
  const R *in = (const R *)src;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += step) {
    double re, im;
    if (kind == 0) {
      re = (double)in[2 * e];
      im = (double)in[2 * e + 1];
    } else if (kind == 1) {
      re = (double)in[e];
      im = 0;
    } else { /* c2r: bins 0..n/2 as given, the rest the conjugate mirror */
      int64_t b = e / n, t = e % n;
      int64_t s = t < in_len ? t : n - t;
      re = (double)in[2 * (b * in_len + s)];
      im = (double)in[2 * (b * in_len + s) + 1];
      if (t >= in_len) im = -im;
    }
    a[2 * e] = re;
    a[2 * e + 1] = im;
  }
}

/* A length-radix DFT in place on (ur, ui), sign sgn (-1 forward). */
__device__ __forceinline__ void rd_fft_butterfly(int radix, double sgn, double *ur, double *ui) {
  if (radix == 2) {
    double r0 = ur[0] + ur[1], i0 = ui[0] + ui[1];
    ur[1] = ur[0] - ur[1];
    ui[1] = ui[0] - ui[1];
    ur[0] = r0;
    ui[0] = i0;
  } else if (radix == 4) {
    double ar = ur[0] + ur[2], ai = ui[0] + ui[2], br = ur[0] - ur[2], bi = ui[0] - ui[2];
    double cr = ur[1] + ur[3], ci = ui[1] + ui[3], dr = ur[1] - ur[3], di = ui[1] - ui[3];
    /* w d with w = sgn*i: (-sgn*di, sgn*dr) */
    double wr = -sgn * di, wi = sgn * dr;
    ur[0] = ar + cr;
    ui[0] = ai + ci;
    ur[2] = ar - cr;
    ui[2] = ai - ci;
    ur[1] = br + wr;
    ui[1] = bi + wi;
    ur[3] = br - wr;
    ui[3] = bi - wi;
  } else { /* 3 or 5: the direct sum over the constant roots cos/sin(2 pi q/R) */
    const double c3[3] = {1.0, -0.5, -0.5};
    const double s3[3] = {0.0, 0.86602540378443864676, -0.86602540378443864676};
    const double c5[5] = {1.0, 0.30901699437494742410, -0.80901699437494742410,
                          -0.80901699437494742410, 0.30901699437494742410};
    const double s5[5] = {0.0, 0.95105651629515357212, 0.58778525229247312917,
                          -0.58778525229247312917, -0.95105651629515357212};
    const double *cc = radix == 3 ? c3 : c5, *ss = radix == 3 ? s3 : s5;
    double yr[5], yi[5];
    for (int s = 0; s < radix; s++) {
      double accr = 0, acci = 0;
      for (int r = 0; r < radix; r++) {
        int q = (r * s) % radix;
        double c = cc[q], sn = sgn * ss[q];
        accr += ur[r] * c - ui[r] * sn;
        acci += ur[r] * sn + ui[r] * c;
      }
      yr[s] = accr;
      yi[s] = acci;
    }
    for (int s = 0; s < radix; s++) {
      ur[s] = yr[s];
      ui[s] = yi[s];
    }
  }
}

/* One Stockham stage x -> y (batch rows of n double complex) of radix 2..5
 * after partial length p; fwd: e^{-i}, else e^{+i}. */
__global__ void rd_fft_stage(const double *x, double *y, int64_t batch, int64_t n, int64_t p,
                             int radix, int fwd) {
  const int64_t m = n / radix, total = batch * m, step = (int64_t)gridDim.x * blockDim.x;
  const int64_t big = p * radix; /* the twiddles' period */
  const double sgn = fwd ? -1.0 : 1.0;
  for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < total; o += step) {
    const int64_t b = o / m, i = o % m, k = i % p;
    const double *xr = x + 2 * b * n;
    double *yr = y + 2 * b * n;
    double ur[5], ui[5];
    for (int r = 0; r < radix; r++) {
      double vr = xr[2 * (i + r * m)], vi = xr[2 * (i + r * m) + 1];
      int64_t q = (int64_t)r * k; /* < big: exact; reduced to (-big/2, big/2] */
      if (q != 0) {
        if (2 * q > big) q -= big;
        double ang = sgn * RD_TWO_PI * ((double)q / (double)big);
        double c = cos(ang), s = sin(ang);
        double tr = vr * c - vi * s;
        vi = vr * s + vi * c;
        vr = tr;
      }
      ur[r] = vr;
      ui[r] = vi;
    }
    rd_fft_butterfly(radix, sgn, ur, ui);
    const int64_t j = (i - k) * radix + k;
    for (int r = 0; r < radix; r++) {
      yr[2 * (j + r * p)] = ur[r];
      yr[2 * (j + r * p) + 1] = ui[r];
    }
  }
}

/* The transformed rows a (n double complex each) into the output storage. */
template <typename R>
__global__ void rd_fft_store(const double *a, char *dst, int kind, int64_t batch, int64_t n) {
  const int64_t out_len = kind == 1 ? n / 2 + 1 : n, total = batch * out_len;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  R *out = (R *)dst;
  for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < total; o += step) {
    if (kind == 2) {
      out[o] = (R)a[2 * o];
    } else {
      int64_t e = kind == 1 ? (o / out_len) * n + o % out_len : o;
      out[2 * o] = (R)a[2 * e];
      out[2 * o + 1] = (R)a[2 * e + 1];
    }
  }
}

#endif /* TABI_ROCM_FFT_CUH */
