/* plugins/cpu/cpu_pool.c: a small pthread pool with static chunking (see
 * cpu_pool.h). Workers sleep on a condition variable between jobs; a job is one
 * generation number bump, so a worker never runs a job twice. */
#define _GNU_SOURCE
#include "cpu_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef TABI_CPU_OPENMP
#include <omp.h>
#endif

/* Forks seen by this process: a pthread_atfork child handler bumps it (glibc
 * drops the handler when the plugin is unloaded). Comparing it is a load, where
 * getpid() is a system call (glibc stopped caching the pid, and syscalls are
 * slow in this VM: it was a third of a small mm's time). Process-wide on
 * purpose: forking is a process event, not a runtime's. */
static _Atomic uint64_t fork_gen;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static void on_fork_child(void) { fork_gen++; }
static void fork_hook(void) { pthread_atfork(NULL, NULL, on_fork_child); }

struct cpu_pool {
  int32_t nthreads;
  int32_t omp; /* 1: parallel-for is an OpenMP region (no pthread workers) */
  uint64_t fork_seen; /* fork_gen at creation: differs in a forked child */
  pthread_t *threads;
  int32_t started;
  pthread_mutex_t owner; /* held by the caller that owns the workers for a job */
  pthread_mutex_t m;
  pthread_cond_t cv_work;
  pthread_cond_t cv_done;
  uint64_t gen;
  int32_t pending;
  int32_t stop;
  /* the job */
  cpu_range_fn fn;
  void *arg;
  int64_t n;
  int32_t parts;
};

int cpu_pool_forked(const cpu_pool *p) { return p && p->fork_seen != fork_gen; }

typedef struct worker_arg {
  cpu_pool *pool;
  int32_t index;
} worker_arg;

static void run_part(cpu_pool *p, int32_t w) {
  if (w >= p->parts) return;
  int64_t b = p->n * w / p->parts, e = p->n * (w + 1) / p->parts;
  if (e > b) p->fn(p->arg, b, e);
}

static void *worker_main(void *a) {
  worker_arg wa = *(worker_arg *)a;
  free(a);
  cpu_pool *p = wa.pool;
  uint64_t seen = 0;
  pthread_mutex_lock(&p->m);
  for (;;) {
    while (!p->stop && p->gen == seen) pthread_cond_wait(&p->cv_work, &p->m);
    if (p->stop) break;
    seen = p->gen;
    pthread_mutex_unlock(&p->m);
    run_part(p, wa.index);
    pthread_mutex_lock(&p->m);
    if (--p->pending == 0) pthread_cond_signal(&p->cv_done);
  }
  pthread_mutex_unlock(&p->m);
  return NULL;
}

int32_t cpu_default_threads(void) {
  const char *s = getenv("TABI_NUM_THREADS");
  if (s && *s) {
    char *end;
    long v = strtol(s, &end, 10);
    if (*end == '\0' && v >= 1 && v <= 1024) return (int32_t)v;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n >= 1 ? (int32_t)(n > 1024 ? 1024 : n) : 1;
}

cpu_pool *cpu_pool_create(int32_t nthreads) {
  if (nthreads < 1) nthreads = 1;
  cpu_pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->nthreads = nthreads;
  pthread_once(&fork_once, fork_hook);
  p->fork_seen = fork_gen;
  pthread_mutex_init(&p->owner, NULL);
  pthread_mutex_init(&p->m, NULL);
  pthread_cond_init(&p->cv_work, NULL);
  pthread_cond_init(&p->cv_done, NULL);
#ifdef TABI_CPU_OPENMP
  /* One OpenMP team for our loops and oneDNN's: no pthread workers.
   * TABI_CPU_POOL=pthread keeps the own workers (to measure the two). */
  const char *mode = getenv("TABI_CPU_POOL");
  p->omp = !(mode && mode[0] == 'p');
#endif
  if (nthreads > 1 && !p->omp) {
    p->threads = calloc((size_t)nthreads, sizeof *p->threads);
    if (!p->threads) { cpu_pool_destroy(p); return NULL; }
    for (int32_t i = 1; i < nthreads; i++) {
      worker_arg *wa = malloc(sizeof *wa);
      if (!wa) break;
      wa->pool = p;
      wa->index = i;
      if (pthread_create(&p->threads[i], NULL, worker_main, wa) != 0) { free(wa); break; }
      p->started = i;
    }
    /* Fewer workers than asked: the pool still splits into nthreads parts, the
     * missing parts run on the caller (see cpu_parallel_for). */
  }
  return p;
}

void cpu_pool_destroy(cpu_pool *p) {
  if (!p) return;
  if (!cpu_pool_forked(p)) { /* a forked child has no workers to stop */
    pthread_mutex_lock(&p->m);
    p->stop = 1;
    pthread_cond_broadcast(&p->cv_work);
    pthread_mutex_unlock(&p->m);
    for (int32_t i = 1; i <= p->started; i++) pthread_join(p->threads[i], NULL);
  }
  free(p->threads);
  pthread_cond_destroy(&p->cv_work);
  pthread_cond_destroy(&p->cv_done);
  pthread_mutex_destroy(&p->m);
  pthread_mutex_destroy(&p->owner);
  free(p);
}

int32_t cpu_pool_threads(const cpu_pool *p) { return p ? p->nthreads : 1; }


static void run_serial(int64_t n, int64_t parts, cpu_range_fn fn, void *arg) {
  /* The same static split, run in order on this thread. */
  for (int64_t w = 0; w < parts; w++) {
    int64_t b = n * w / parts, e = n * (w + 1) / parts;
    if (e > b) fn(arg, b, e);
  }
}

#ifdef TABI_CPU_OPENMP
static void omp_for(int64_t n, int64_t parts, cpu_range_fn fn, void *arg) {
#pragma omp parallel num_threads((int)parts)
  {
    /* OpenMP may give fewer threads than asked: each takes every nt-th part,
     * so the split (and every result) stays that of `parts`. */
    int64_t nt = omp_get_num_threads();
    for (int64_t w = omp_get_thread_num(); w < parts; w += nt) {
      int64_t b = n * w / parts, e = n * (w + 1) / parts;
      if (e > b) fn(arg, b, e);
    }
  }
}
#endif

void cpu_parallel_for(cpu_pool *p, int64_t n, int64_t grain, cpu_range_fn fn, void *arg) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  int64_t parts = p ? p->nthreads : 1;
  if (parts > (n + grain - 1) / grain) parts = (n + grain - 1) / grain;
#ifdef TABI_CPU_OPENMP
  if (parts > 1 && p->omp) {
    /* Inline for a nested call (from inside a team) and in a forked child,
     * where libgomp's team of the parent is gone and a region could hang. */
    if (cpu_pool_forked(p) || omp_in_parallel()) run_serial(n, parts, fn, arg);
    else omp_for(n, parts, fn, arg);
    return;
  }
#endif
  /* After fork() the child has the pool's memory but not its threads. */
  if (parts <= 1 || p->started == 0 || cpu_pool_forked(p) ||
      pthread_mutex_trylock(&p->owner) != 0) {
    run_serial(n, parts, fn, arg);
    return;
  }
  pthread_mutex_lock(&p->m);
  p->fn = fn;
  p->arg = arg;
  p->n = n;
  p->parts = (int32_t)parts;
  p->pending = p->started;
  p->gen++;
  pthread_cond_broadcast(&p->cv_work);
  pthread_mutex_unlock(&p->m);
  run_part(p, 0);
  for (int32_t w = p->started + 1; w < p->parts; w++) run_part(p, w); /* workers that failed to start */
  pthread_mutex_lock(&p->m);
  while (p->pending > 0) pthread_cond_wait(&p->cv_done, &p->m);
  pthread_mutex_unlock(&p->m);
  pthread_mutex_unlock(&p->owner);
}
