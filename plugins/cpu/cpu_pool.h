/* plugins/cpu/cpu_pool.h: the CPU plugin's thread pool.
 *
 * One pool per loaded plugin instance (kept in cpu_ctx, never global), sized from
 * TABI_NUM_THREADS or the cores present. Work is split by static chunking: a
 * parallel-for over [0, n) gives worker w the range [w*n/T, (w+1)*n/T), so which
 * element lands in which thread depends only on n and T.
 *
 * Reductions do not rely on the thread split: they cut their input into chunks
 * of a fixed size (independent of T), reduce each chunk alone and combine the
 * partials in index order, so their results are bitwise identical for every
 * thread count (deterministic mode included) and whether or not the pool ran.
 *
 * Threading: cpu_parallel_for may be called from any thread. One caller at a
 * time owns the workers; a concurrent or nested caller (a kernel called from a
 * pool worker, two framework threads) runs its range inline on its own thread,
 * which computes the same result. After fork() the child runs every range
 * inline (the workers stayed in the parent).
 *
 * With oneDNN (TABI_CPU_OPENMP) the pool has no pthread workers: a parallel-for
 * is an OpenMP parallel region, so our loops and oneDNN's primitives share one
 * libgomp team instead of two sets of threads fighting for the same cores (the
 * team's threads spin briefly after a region, which starved our sleeping
 * workers: docs/cpu.md "Threads"). Same static split, same results.
 */
#ifndef TABI_CPU_POOL_H
#define TABI_CPU_POOL_H

#include <stdint.h>

typedef struct cpu_pool cpu_pool;

/* fn runs over [begin, end) of the parallel range; arg is the caller's. */
typedef void (*cpu_range_fn)(void *arg, int64_t begin, int64_t end);

/* Creates a pool of `nthreads` (>= 1; the caller's thread counts as one).
 * Returns NULL on failure (then run serially). */
cpu_pool *cpu_pool_create(int32_t nthreads);
void cpu_pool_destroy(cpu_pool *pool); /* NULL ok */
int32_t cpu_pool_threads(const cpu_pool *pool); /* 1 for NULL */

/* Runs fn over [0, n) split statically into at most T ranges, each at least
 * `grain` long (grain >= 1). Returns when every range is done. */
void cpu_parallel_for(cpu_pool *pool, int64_t n, int64_t grain, cpu_range_fn fn, void *arg);

/* 1 in a process forked after the pool was made (nothing may start threads
 * there: libgomp's team stayed in the parent). */
int cpu_pool_forked(const cpu_pool *pool);

/* The thread count from TABI_NUM_THREADS (1..1024) or the cores online. */
int32_t cpu_default_threads(void);

#endif /* TABI_CPU_POOL_H */
