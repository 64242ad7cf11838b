/* tests/cpu/test_fft_cache.c: the CPU plugin's FFT plan cache under threads.
 *
 * Built straight from the plugin's cpu_fft.c (not through a runtime), twice:
 * as cpu_fft_cache (the build's own flags, so ASan in a sanitizer build) and,
 * where the compiler has it, as cpu_fft_cache_tsan under ThreadSanitizer.
 * TSan is the point: a plan read outside the cache's lock while another thread
 * evicts (which moves entries) is a race TSan reports from happens-before,
 * whether or not the two threads met in time on this run; the plain build
 * only sees it when they do (about one run in three at this size).
 *
 * Eight threads ask for more distinct (length, precision, kind) plans than
 * the cache holds, so every thread's lookups run beside other threads'
 * evictions. Each plan must be the one asked for, and its transform of a unit
 * impulse at 1 must be e^{-2 pi i k/n}. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "cpu_fft_impl.h"

#define NTHREADS 8
#define NLENGTHS 80 /* distinct lengths per precision: well past the cache's 32 entries */
#define ROUNDS 12

static const double TWO_PI = 6.283185307179586476925286766559;

typedef struct worker {
  cpu_fft_cache *cache;
  int id;
  int wrong_plan, wrong_values, no_plan;
} worker;

/* Runs the plan's c2c on an impulse at j = 1 % n (at 0 when n is 1) and
 * compares with e^{-2 pi i jk/n}. */
static int impulse_ok(const cpu_fft_plan *p, int64_t n, int f64) {
  size_t es = f64 ? sizeof(double) : sizeof(float);
  void *buf = calloc((size_t)n, 2 * es), *scr = malloc(2 * es * (size_t)cpu_fft_scratch(p));
  int ok = buf && scr;
  int64_t j = 1 % n;
  if (ok) {
    if (f64) ((double *)buf)[2 * j] = 1;
    else ((float *)buf)[2 * j] = 1;
    cpu_fft_c2c(p, NULL, buf, buf, scr);
    double tol = f64 ? 1e-12 : 1e-5;
    for (int64_t k = 0; ok && k < n; k++) {
      double a = -TWO_PI * (double)(j * k % n) / (double)n;
      double re = f64 ? ((double *)buf)[2 * k] : ((float *)buf)[2 * k];
      double im = f64 ? ((double *)buf)[2 * k + 1] : ((float *)buf)[2 * k + 1];
      ok = fabs(re - cos(a)) <= tol && fabs(im - sin(a)) <= tol;
    }
  }
  free(buf);
  free(scr);
  return ok;
}

static void *work(void *arg) {
  worker *w = arg;
  for (int r = 0; r < ROUNDS; r++)
    for (int64_t i = 0; i < 2 * NLENGTHS; i++) {
      /* A different walk per thread, so threads want different plans at once. */
      int64_t j = (i * (2 * w->id + 1) + 13 * w->id + r) % (2 * NLENGTHS);
      int64_t n = j % NLENGTHS + 1;
      int f64 = (int)(j / NLENGTHS), real = (int)((i + w->id) % 5 == 0);
      const cpu_fft_plan *p = cpu_fft_plan_get(w->cache, n, f64, real);
      if (!p) {
        w->no_plan++;
        continue;
      }
      if (p->n != n || p->f64 != f64 || p->real != real) w->wrong_plan++;
      else if (!real && !impulse_ok(p, n, f64)) w->wrong_values++;
      cpu_fft_plan_put(w->cache, p);
    }
  return NULL;
}

int main(void) {
  __builtin_cpu_init();
  cpu_fft_cache *cache = cpu_fft_cache_create(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
  CHECK(cache != NULL);
  if (!cache) return check_report();
  CHECK(cpu_fft_plan_get(cache, 0, 0, 0) == NULL); /* no plan of length 0 */

  pthread_t th[NTHREADS];
  worker ws[NTHREADS];
  int started[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) {
    ws[i] = (worker){cache, i, 0, 0, 0};
    started[i] = pthread_create(&th[i], NULL, work, &ws[i]) == 0;
  }
  for (int i = 0; i < NTHREADS; i++) {
    if (started[i]) pthread_join(th[i], NULL);
    CHECK_MSG(started[i], "thread %d started", i);
    CHECK_MSG(ws[i].no_plan == 0, "thread %d: %d lookups returned no plan", i, ws[i].no_plan);
    CHECK_MSG(ws[i].wrong_plan == 0, "thread %d: %d lookups returned another key's plan", i, ws[i].wrong_plan);
    CHECK_MSG(ws[i].wrong_values == 0, "thread %d: %d transforms came out wrong", i, ws[i].wrong_values);
  }
  int32_t held = cpu_fft_cache_count(cache);
  CHECK_MSG(held > 0 && held <= 32, "the cache holds %d plans, within its bound of 32", held);

  /* A plan held across evictions stays valid: hold one, churn the cache, use it. */
  const cpu_fft_plan *kept = cpu_fft_plan_get(cache, 7, 1, 0);
  CHECK(kept != NULL);
  for (int64_t n = 100; n < 200; n++) cpu_fft_plan_put(cache, cpu_fft_plan_get(cache, n, 1, 0));
  if (kept) {
    CHECK(kept->n == 7 && impulse_ok(kept, 7, 1));
    cpu_fft_plan_put(cache, kept);
  }
  cpu_fft_cache_destroy(cache);
  return check_report();
}
