/* plugins/cpu/cpu_reduce_kern.h: the float32 row kernels shared by the
 * reductions, softmax and layer norm.
 *
 * Every function reduces one contiguous run of n floats and is a pure function
 * of that run, so a result never depends on how rows or chunks were spread over
 * threads. Sums accumulate in double (the reference's precision) in a fixed
 * lane order. */
#ifndef TABI_CPU_REDUCE_KERN_H
#define TABI_CPU_REDUCE_KERN_H

#include <stdint.h>

#include "cpu.h"

double cpu_sum_f32(const cpu_ctx *c, const float *x, int64_t n);
/* Sum of (x - mean)^2, in double. */
double cpu_sumsq_dev_f32(const cpu_ctx *c, const float *x, int64_t n, double mean);
/* max (or min when `take_min`), NaN when any element is NaN. n >= 1. */
float cpu_max_f32(const cpu_ctx *c, const float *x, int64_t n, int take_min);

/* Fixed chunk of the full reductions: independent of the thread count, so sums
 * are bitwise identical for every TABI_NUM_THREADS. */
#define CPU_REDUCE_CHUNK 65536

#endif /* TABI_CPU_REDUCE_KERN_H */
