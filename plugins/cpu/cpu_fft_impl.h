/* plugins/cpu/cpu_fft_impl.h: the FFT plan's layout, shared by cpu_fft.c (plans,
 * cache, scalar passes) and cpu_fft_avx2.c (the AVX2+FMA float passes). Not
 * for the op kernels: they see cpu_fft.h only.
 *
 * A Stockham pass of radix p on a sequence of current length L = p*m with
 * stride s (s*L = n) reads x[q + s*(j + r*m)], r < p, does a size-p DFT,
 * multiplies output k by w_L^{jk} and writes y[q + s*(p*j + k)]; the next pass
 * runs on length m with stride s*p. After the last pass the output is in
 * natural order, no bit reversal needed. Indices here count complex elements;
 * arrays are interleaved (re, im). */
#ifndef TABI_CPU_FFT_IMPL_H
#define TABI_CPU_FFT_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "cpu_fft.h"

#define FFT_MAX_PASSES 64
#define FFT_MAX_RADIX 31 /* larger prime factors go through Bluestein */

typedef struct fft_pass {
  int32_t radix;
  int64_t m, s;
  /* Offsets (complex elements) into the plan's twiddle table: tw holds
   * w_L^{jk} at tw + (k-1)*m + j (k-major, so a run of j loads as a vector);
   * roots (generic radix only) holds w_p^t, t < p. */
  int64_t tw, roots;
} fft_pass;

struct cpu_fft_plan {
  int64_t n;
  int f64, real, avx2;
  /* Stockham (complex plans whose factors are all <= FFT_MAX_RADIX): */
  int32_t npass;
  fft_pass pass[FFT_MAX_PASSES];
  void *tw; /* float or double pairs */
  /* Bluestein: */
  cpu_fft_plan *sub; /* complex plan of length M >= 2n - 1 */
  int64_t M;
  void *chirp; /* e^{-pi i k^2/n}, k < n */
  void *bhat;  /* FFT of the conjugate chirp, already divided by M */
  /* Real plans: */
  cpu_fft_plan *half; /* complex plan of n/2 (even n) or n (odd n) */
  void *post;         /* w_n^k, k <= n/2 (even n) */
  size_t bytes;       /* memory held, for the cache's bound */
};

/* One pass of a float plan with AVX2+FMA over j in [j0, j1), q in [q0, q1);
 * returns 0 (and does nothing) for a pass it has no vector code for. */
int cpu_fft_pass_avx2(const fft_pass *P, const float *tw, const float *x, float *y, int64_t j0,
                      int64_t j1, int64_t q0, int64_t q1);

#endif /* TABI_CPU_FFT_IMPL_H */
