/* plugins/cpu/cpu_reduce_kern.h: the row kernels shared by the reductions,
 * softmax and layer norm.
 *
 * Every function reduces one contiguous run of n elements and is a pure
 * function of that run (the same ISA gives the same bits), so a result never
 * depends on how rows or chunks were spread over threads.
 *
 * Sums: explicit AVX-512 or AVX2 code picked at run time (scalar C otherwise).
 * float32/float16/bfloat16 are widened to float32 in registers and summed in
 * float32 over blocks of 256 elements (each lane adds 4 values, the lanes of
 * 4 accumulators are then added pairwise: at most 16 float32 terms per
 * partial), and the block partials accumulate in double. The error is that of
 * a 16-term float32 sum per block, far inside the float32 tolerance, at the
 * speed of a float32 sum. float64 sums in double with independent lanes.
 *
 * max/min: NaN wins (ATen's amax/amin); n >= 1. */
#ifndef TABI_CPU_REDUCE_KERN_H
#define TABI_CPU_REDUCE_KERN_H

#include <stdint.h>

#include "cpu.h"

double cpu_sum_f32(const cpu_ctx *c, const float *x, int64_t n);
/* Sum of (x - mean)^2, in double. */
double cpu_sumsq_dev_f32(const cpu_ctx *c, const float *x, int64_t n, double mean);
/* max (or min when `take_min`), NaN when any element is NaN. n >= 1. */
float cpu_max_f32(const cpu_ctx *c, const float *x, int64_t n, int take_min);

/* The same for any of float32/float16/bfloat16/float64 (dt), as a double. */
double cpu_red_sum(tabi_dtype dt, const void *x, int64_t n);
double cpu_red_max(tabi_dtype dt, const void *x, int64_t n, int take_min);
/* A sum with every element widened to double and added in double lanes (for
 * a float64 result from narrower input: dtype=torch.float64). */
double cpu_red_sumd(tabi_dtype dt, const void *x, int64_t n);
/* Sum of (x - mean)^2 in double, for the same dtypes. */
double cpu_red_sumsq_dev(tabi_dtype dt, const void *x, int64_t n, double mean);

/* The first i < n with x[i] == v (x[i] NaN when v is NaN); n when none.
 * With v = cpu_red_max of the run: the position argmax/max.dim return (ATen:
 * the first NaN, else the first of equal extremes). */
int64_t cpu_red_find(tabi_dtype dt, const void *x, int64_t n, double v);

/* Fixed chunk of the full reductions: independent of the thread count, so sums
 * are bitwise identical for every TABI_NUM_THREADS. */
#define CPU_REDUCE_CHUNK 65536

#endif /* TABI_CPU_REDUCE_KERN_H */
