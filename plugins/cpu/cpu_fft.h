/* plugins/cpu/cpu_fft.h: the plugin's own FFT: complex double, any length, in
 * O(n log n): self-sorting Stockham passes of radix 4, 2, 3 and 5, and
 * Bluestein's chirp-z (through a power-of-two FFT) for lengths with another
 * prime factor.
 *
 * A plan holds the factorization and the twiddle table; it is built per call
 * (twiddles from two small sincos tables, so building costs O(n) multiplies).
 * Threading: a plan is read-only once built; cpu_fft_forward splits each pass
 * over the pool when `pool` is not NULL. */
#ifndef TABI_CPU_FFT_H
#define TABI_CPU_FFT_H

#include <complex.h>
#include <stdint.h>

#include "cpu_pool.h"

typedef double _Complex cpu_cplx;
typedef struct cpu_fft_plan cpu_fft_plan;

cpu_fft_plan *cpu_fft_plan_create(int64_t n); /* NULL when out of memory */
void cpu_fft_plan_destroy(cpu_fft_plan *plan);
/* Scratch cpu_fft_forward needs, in elements. */
int64_t cpu_fft_scratch(const cpu_fft_plan *plan);
/* out = DFT(in) (e^{-2 pi i jk/n}); in is not modified unless in == out. */
void cpu_fft_forward(const cpu_fft_plan *plan, cpu_pool *pool, const cpu_cplx *in, cpu_cplx *out,
                     cpu_cplx *scratch);

/* t[i] = e^{-2 pi i i/n} for i < count (count <= n). */
void cpu_fft_twiddles(cpu_cplx *t, int64_t n, int64_t count);

#endif /* TABI_CPU_FFT_H */
