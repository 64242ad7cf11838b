/* tests/cuda/test_tc_algo_cache.c: the convolution algorithm cache of the GPU
 * plugins (plugins/cuda/tc_algo_cache.c), on the host: hit, miss, distinct
 * keys that share a prefix, a record size that does not match, the over-long
 * key, replacing a key's record, the full cache (first in, first out),
 * creation once through tc_algo_cache_of, and two threads storing and looking
 * up at once (every hit must carry the record stored for its key). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tc_algo_cache.h"

typedef struct rec { /* stands for a library's perf struct */
  int algo, math;
  uint64_t mem;
} rec;

static rec mk(int i) {
  rec r;
  memset(&r, 0, sizeof r);
  r.algo = i;
  r.math = 1000 + 7 * i;
  r.mem = (uint64_t)i * 4096u + 3u;
  return r;
}

static int same(const rec *a, const rec *b) { return memcmp(a, b, sizeof *a) == 0; }

static void basics(void) {
  tc_algo_cache *ac = tc_algo_cache_new(4);
  CHECK(ac != NULL);
  rec r = mk(0), got = mk(99), keep = mk(99);
  CHECK(tc_algo_cache_get(ac, "1|2 3", &got, sizeof got) == 0); /* miss on an empty cache */
  CHECK(same(&got, &keep));                                     /* rec untouched on a miss */
  r = mk(5);
  CHECK(tc_algo_cache_put(ac, "1|2 3", &r, sizeof r) == 1);
  CHECK(tc_algo_cache_get(ac, "1|2 3", &got, sizeof got) == 1); /* hit */
  CHECK(same(&got, &r));
  got = keep;
  CHECK(tc_algo_cache_get(ac, "1|2 3 ", &got, sizeof got) == 0); /* a longer key: distinct */
  CHECK(tc_algo_cache_get(ac, "1|2 ", &got, sizeof got) == 0);   /* a prefix: distinct */
  CHECK(tc_algo_cache_get(ac, "1|2 3", &got, sizeof got - 1) == 0); /* another record size */
  CHECK(same(&got, &keep));
  rec r2 = mk(6);
  CHECK(tc_algo_cache_put(ac, "D|1|2 3", &r2, sizeof r2) == 1); /* distinct keys, distinct records */
  CHECK(tc_algo_cache_get(ac, "D|1|2 3", &got, sizeof got) == 1 && same(&got, &r2));
  CHECK(tc_algo_cache_get(ac, "1|2 3", &got, sizeof got) == 1 && same(&got, &r));
  rec r3 = mk(7);
  CHECK(tc_algo_cache_put(ac, "1|2 3", &r3, sizeof r3) == 1); /* replaces, no second entry */
  CHECK(tc_algo_cache_count(ac) == 2);
  CHECK(tc_algo_cache_get(ac, "1|2 3", &got, sizeof got) == 1 && same(&got, &r3));
  char big[TC_ALGO_REC + 1];
  memset(big, 1, sizeof big);
  CHECK(tc_algo_cache_put(ac, "big", big, sizeof big) == 0); /* record too large */
  char lk[TC_ALGO_KEY + 8];
  memset(lk, 'k', sizeof lk - 1);
  lk[sizeof lk - 1] = 0;
  CHECK(tc_algo_cache_put(ac, lk, &r, sizeof r) == 0); /* over-long key: not stored */
  CHECK(tc_algo_cache_get(ac, lk, &got, sizeof got) == 0);
  lk[TC_ALGO_KEY - 1] = 0; /* the longest key that fits */
  CHECK(tc_algo_cache_put(ac, lk, &r2, sizeof r2) == 1);
  CHECK(tc_algo_cache_get(ac, lk, &got, sizeof got) == 1 && same(&got, &r2));
  CHECK(tc_algo_cache_count(ac) == 3);
  CHECK(tc_algo_cache_put(NULL, "x", &r, sizeof r) == 0); /* a NULL cache: misses, stores nothing */
  CHECK(tc_algo_cache_get(NULL, "x", &got, sizeof got) == 0);
  CHECK(tc_algo_cache_count(NULL) == 0);
  CHECK(tc_algo_cache_new(0) == NULL);
  tc_algo_cache_free(ac);
  tc_algo_cache_free(NULL);
}

/* Full: with cap 3, keys k0..k5 stored in order leave k3, k4, k5. */
static void full(void) {
  tc_algo_cache *ac = tc_algo_cache_new(3);
  char key[32];
  for (int i = 0; i < 6; i++) {
    rec r = mk(i);
    snprintf(key, sizeof key, "k%d", i);
    CHECK(tc_algo_cache_put(ac, key, &r, sizeof r) == 1);
    CHECK(tc_algo_cache_count(ac) == (i < 3 ? i + 1 : 3));
  }
  for (int i = 0; i < 6; i++) {
    rec got = mk(99), want = mk(i);
    snprintf(key, sizeof key, "k%d", i);
    int hit = tc_algo_cache_get(ac, key, &got, sizeof got);
    CHECK_MSG(hit == (i >= 3), "key %s hit %d", key, hit);
    if (hit) CHECK(same(&got, &want));
  }
  rec r = mk(40);
  CHECK(tc_algo_cache_put(ac, "k4", &r, sizeof r) == 1); /* a present key: replaced in place, k3 stays */
  rec got;
  CHECK(tc_algo_cache_get(ac, "k3", &got, sizeof got) == 1);
  CHECK(tc_algo_cache_put(ac, "k6", &r, sizeof r) == 1); /* evicts the oldest, k3 */
  CHECK(tc_algo_cache_get(ac, "k3", &got, sizeof got) == 0);
  CHECK(tc_algo_cache_get(ac, "k4", &got, sizeof got) == 1 && same(&got, &r));
  CHECK(tc_algo_cache_get(ac, "k5", &got, sizeof got) == 1);
  tc_algo_cache_free(ac);
}

/* Two threads create through one slot, then store and look up nkeys keys
 * each, overlapping: 20 each (32 in all, the cap: both threads hit, mostly on
 * each other's stores), then 48 each (72 in all: entries are evicted while the
 * other thread reads). A hit must give that key's own record. */
typedef struct worker {
  void **slot;
  pthread_mutex_t *mu;
  tc_algo_cache *seen;
  int base, nkeys;
  long hits, bad;
} worker;

static void *work(void *p) {
  worker *w = (worker *)p;
  w->seen = tc_algo_cache_of(w->slot, w->mu, 32);
  char key[32];
  for (int round = 0; round < 200; round++)
    for (int j = 0; j < w->nkeys; j++) {
      int i = w->base + j;
      snprintf(key, sizeof key, "%d|%d", i, i * 31);
      rec r = mk(i), got;
      if (tc_algo_cache_get(w->seen, key, &got, sizeof got)) {
        w->hits++;
        if (!same(&got, &r)) w->bad++;
      } else if (!tc_algo_cache_put(w->seen, key, &r, sizeof r)) {
        w->bad++;
      }
    }
  return NULL;
}

static void threads(int nkeys, int overlap) {
  void *slot = NULL;
  pthread_mutex_t mu;
  pthread_mutex_init(&mu, NULL);
  worker w[2] = {{&slot, &mu, NULL, 0, nkeys, 0, 0}, {&slot, &mu, NULL, nkeys - overlap, nkeys, 0, 0}};
  pthread_t t[2];
  int started[2];
  for (int i = 0; i < 2; i++) started[i] = pthread_create(&t[i], NULL, work, &w[i]) == 0;
  for (int i = 0; i < 2; i++)
    if (started[i]) pthread_join(t[i], NULL);
  CHECK(started[0] && started[1]);
  CHECK(slot != NULL && w[0].seen == slot && w[1].seen == slot); /* one cache for both */
  CHECK(w[0].bad == 0 && w[1].bad == 0);
  CHECK(tc_algo_cache_count((tc_algo_cache *)slot) == 32);
  if (2 * nkeys - overlap <= 32) CHECK(w[0].hits >= 199 * nkeys && w[1].hits >= 199 * nkeys);
  printf("threads, %d keys each: %ld + %ld hits, %ld + %ld wrong\n", nkeys, w[0].hits, w[1].hits, w[0].bad,
         w[1].bad);
  tc_algo_cache_free((tc_algo_cache *)slot);
  pthread_mutex_destroy(&mu);
}

int main(void) {
  basics();
  full();
  threads(20, 8);
  threads(48, 24);
  return check_report();
}
