/* conformance/conform_threads.c: the same kernel from several threads at once.
 *
 * The ABI says a kernel may be called from many threads concurrently. A kernel
 * with hidden shared state (a static scratch buffer, a cached pointer) passes
 * every single-threaded check and corrupts results under load. Four threads
 * start together and each runs every call in a rotated order, so
 * calls with different inputs overlap; every result must equal, bit for bit,
 * what the same call gave alone.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conform_check.h"
#include "conform_int.h"

#define NTHREADS 4

typedef struct shared {
  tabi_runtime *rt;
  tabi_op op;
  conform_args *const *args;
  int32_t ncalls, nouts, min_rounds, budget_ms;
  double t0;
  uint8_t *const *want;
  const uint64_t *want_n;
  pthread_mutex_t mu;
  pthread_cond_t go_cv;
  int32_t go;               /* set once every thread exists: they start together */
  int32_t bad;              /* first call that differed, -1 none */
  char detail[300];
} shared;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

typedef struct worker {
  shared *s;
  int32_t id;
} worker;

static void note(shared *s, int32_t call, const char *fmt, const char *msg) {
  pthread_mutex_lock(&s->mu);
  if (s->bad < 0) {
    s->bad = call;
    snprintf(s->detail, sizeof s->detail, fmt, msg);
  }
  pthread_mutex_unlock(&s->mu);
}

static void *work(void *p) {
  worker *w = p;
  shared *s = w->s;
  pthread_mutex_lock(&s->mu);
  while (!s->go) pthread_cond_wait(&s->go_cv, &s->mu);
  pthread_mutex_unlock(&s->mu);
  for (int32_t r = 0; r < 100000; r++) {
    if (r >= s->min_rounds && now_ms() - s->t0 >= s->budget_ms) break;
    if (__atomic_load_n(&s->bad, __ATOMIC_RELAXED) >= 0) break; /* found: stop early */
    for (int32_t j = 0; j < s->ncalls; j++) {
      int32_t i = (j + w->id) % s->ncalls;
      tabi_value args[CONFORM_MAX_ARGS], outs[CONFORM_MAX_OUTS];
      memcpy(args, s->args[i]->v, sizeof args);
      for (int32_t o = 0; o < CONFORM_MAX_OUTS; o++) outs[o] = tabi_none();
      tabi_status st = tabi_call(s->rt, s->op, args, s->args[i]->nargs, outs, s->nouts);
      if (st != TABI_OK) {
        note(s, i, "a call from 4 threads at once failed: %s", tabi_last_error());
        continue;
      }
      uint8_t *got;
      uint64_t n;
      if (conform_outs_bytes(s->rt, outs, s->nouts, &got, &n) == TABI_OK) {
        if (n != s->want_n[i] || memcmp(got, s->want[i], n) != 0)
          note(s, i, "%s", "results differ from the same call made alone when 4 threads call "
                           "the kernel at once (shared mutable state in the kernel?)");
        free(got);
      }
      for (int32_t o = 0; o < s->nouts; o++) tabi_value_release(&outs[o]);
    }
  }
  return NULL;
}

int32_t conform_threads_check(tabi_runtime *rt, tabi_op op, conform_args *const *args,
                              int32_t ncalls, int32_t nouts, uint8_t *const *want,
                              const uint64_t *want_n, int32_t min_rounds, int32_t budget_ms,
                              char *detail, size_t detail_n) {
  if (ncalls <= 0) return -1;
  shared s;
  memset(&s, 0, sizeof s);
  s.rt = rt;
  s.op = op;
  s.args = args;
  s.ncalls = ncalls;
  s.nouts = nouts;
  s.min_rounds = min_rounds;
  s.budget_ms = budget_ms;
  s.want = want;
  s.want_n = want_n;
  s.bad = -1;
  pthread_mutex_init(&s.mu, NULL);
  pthread_cond_init(&s.go_cv, NULL);
  pthread_t th[NTHREADS];
  worker w[NTHREADS];
  int32_t started = 0;
  for (int32_t t = 0; t < NTHREADS; t++) {
    w[t].s = &s;
    w[t].id = t;
    if (pthread_create(&th[t], NULL, work, &w[t]) != 0) break;
    started++;
  }
  pthread_mutex_lock(&s.mu);
  s.t0 = now_ms();
  s.go = 1;
  pthread_cond_broadcast(&s.go_cv);
  pthread_mutex_unlock(&s.mu);
  if (started == 0) work(&w[0]); /* no threads to be had: at least run the calls */
  for (int32_t t = 0; t < started; t++) pthread_join(th[t], NULL);
  pthread_cond_destroy(&s.go_cv);
  pthread_mutex_destroy(&s.mu);
  if (s.bad >= 0) snprintf(detail, detail_n, "%s", s.detail);
  return s.bad;
}
