/* plugins/cpu/cpu_fft.h: the plugin's own FFT core.
 *
 * Complex transforms of any length n in O(n log n), in the precision of the
 * data (float32 for complex64, double for complex128, as pocketfft and MKL do):
 * self-sorting Stockham passes of radix 4, 2, 3, 5 (AVX2+FMA for float32 when
 * the CPU has it, scalar otherwise), a generic odd radix for primes up to 31,
 * and Bluestein's chirp-z through a 2^a 3^b 5^c FFT for lengths with a larger
 * prime factor. Real transforms of even length n run a complex FFT of length
 * n/2 on the interleaved pairs plus an O(n) split pass (and its inverse for
 * c2r); odd lengths run the full complex FFT.
 *
 * Storage is interleaved (re, im) pairs of float or double, the layout of
 * complex64/complex128 tensors. Every transform here is forward (e^{-2 pi i/n});
 * callers get the backward one as conj(F(conj x)) in their load/store loops.
 *
 * Plans (factorization + twiddles, computed in double and rounded) are cached
 * per (length, precision, real/complex) in a cpu_fft_cache owned by the plugin
 * instance: thread-safe (a mutex around lookups), bounded (LRU eviction of
 * unused plans past FFT_CACHE_ENTRIES entries or FFT_CACHE_BYTES), refcounted
 * so a plan in use is never freed. A plan is read-only once built, so any
 * number of threads may run it at once, each with its own scratch. */
#ifndef TABI_CPU_FFT_H
#define TABI_CPU_FFT_H

#include <stdint.h>

#include "cpu_pool.h"

typedef struct cpu_fft_plan cpu_fft_plan;
typedef struct cpu_fft_cache cpu_fft_cache;

cpu_fft_cache *cpu_fft_cache_create(int use_avx2);
void cpu_fft_cache_destroy(cpu_fft_cache *cache); /* NULL ok */
/* Plans in the cache now (for tests of the bound). */
int32_t cpu_fft_cache_count(cpu_fft_cache *cache);

/* A plan for length n >= 1: complex (real = 0) or real-input (real = 1),
 * float (f64 = 0) or double. NULL when out of memory. Give it back with
 * cpu_fft_plan_put. cache may be NULL (the plan is then built for this call). */
const cpu_fft_plan *cpu_fft_plan_get(cpu_fft_cache *cache, int64_t n, int f64, int real);
void cpu_fft_plan_put(cpu_fft_cache *cache, const cpu_fft_plan *plan);

/* Scratch one transform of the plan needs, in complex elements of its precision. */
int64_t cpu_fft_scratch(const cpu_fft_plan *plan);

/* Complex plans: out[k] = sum_j in[j] e^{-2 pi i jk/n}, n complex elements each.
 * in == out is allowed; otherwise in is left as it is. pool (may be NULL)
 * splits the passes of one long transform over the workers. */
void cpu_fft_c2c(const cpu_fft_plan *plan, cpu_pool *pool, const void *in, void *out, void *scratch);

/* Real plans: out[k] = scale * sum_j in[j] e^{-2 pi i jk/n} for k <= n/2
 * (n/2 + 1 complex outputs; the scale costs nothing: it is folded into the
 * split pass). in holds n reals; in and out must not overlap. */
void cpu_fft_r2c(const cpu_fft_plan *plan, cpu_pool *pool, const void *in, void *out, void *scratch,
                 double scale);

/* Real plans, the inverse direction: out[j] = scale * sum_{k<n} X[k]
 * e^{+2 pi i jk/n}, with X[k] = in[k] for k <= n/2 and conj(in[n-k]) above; the
 * imaginary parts of in[0] (and in[n/2] for even n) are ignored. in holds
 * n/2 + 1 complex values and is left as it is; out receives n reals. */
void cpu_fft_c2r(const cpu_fft_plan *plan, cpu_pool *pool, const void *in, void *out, void *scratch,
                 double scale);

#endif /* TABI_CPU_FFT_H */
