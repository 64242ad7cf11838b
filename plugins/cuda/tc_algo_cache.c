/* plugins/cuda/tc_algo_cache.c: see tc_algo_cache.h. A linear scan: the
 * caches are small (64 and 256 entries) and consulted once per library call,
 * next to which a strcmp over them is noise. */
#include "tc_algo_cache.h"

#include <stdlib.h>
#include <string.h>

typedef struct tc_algo_entry {
  char key[TC_ALGO_KEY];
  unsigned char rec[TC_ALGO_REC];
  size_t n;
} tc_algo_entry;

struct tc_algo_cache {
  pthread_mutex_t mu;
  int cap, count, next; /* next: the oldest entry once count == cap */
  tc_algo_entry e[];
};

tc_algo_cache *tc_algo_cache_new(int cap) {
  if (cap < 1) return NULL;
  tc_algo_cache *ac = (tc_algo_cache *)calloc(1, sizeof *ac + (size_t)cap * sizeof(tc_algo_entry));
  if (!ac) return NULL;
  if (pthread_mutex_init(&ac->mu, NULL) != 0) {
    free(ac);
    return NULL;
  }
  ac->cap = cap;
  return ac;
}

void tc_algo_cache_free(tc_algo_cache *ac) {
  if (!ac) return;
  pthread_mutex_destroy(&ac->mu);
  free(ac);
}

tc_algo_cache *tc_algo_cache_of(void **slot, pthread_mutex_t *mu, int cap) {
  /* Once made, the cache stays until the context goes: every later call
   * reads the slot without the owner's mutex, which the plugin's other
   * caches share. The release store below publishes a constructed cache. */
  tc_algo_cache *ac = (tc_algo_cache *)__atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (ac) return ac;
  pthread_mutex_lock(mu);
  ac = (tc_algo_cache *)*slot;
  if (!ac) {
    ac = tc_algo_cache_new(cap);
    __atomic_store_n(slot, (void *)ac, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(mu);
  return ac;
}

/* a key that fits whole (no read past its NUL) */
static int key_ok(const char *key) {
  if (!key) return 0;
  for (int i = 0; i < TC_ALGO_KEY; i++)
    if (!key[i]) return 1;
  return 0;
}

/* the entry holding key, or -1; under ac->mu */
static int find(const tc_algo_cache *ac, const char *key) {
  for (int i = 0; i < ac->count; i++)
    if (strcmp(ac->e[i].key, key) == 0) return i;
  return -1;
}

int tc_algo_cache_get(tc_algo_cache *ac, const char *key, void *rec, size_t n) {
  if (!ac || !key_ok(key) || n > TC_ALGO_REC) return 0;
  pthread_mutex_lock(&ac->mu);
  int i = find(ac, key), hit = i >= 0 && ac->e[i].n == n;
  if (hit && n) memcpy(rec, ac->e[i].rec, n);
  pthread_mutex_unlock(&ac->mu);
  return hit;
}

int tc_algo_cache_put(tc_algo_cache *ac, const char *key, const void *rec, size_t n) {
  if (!ac || !key_ok(key) || n > TC_ALGO_REC) return 0;
  pthread_mutex_lock(&ac->mu);
  int i = find(ac, key);
  if (i < 0) {
    if (ac->count < ac->cap) {
      i = ac->count++;
    } else { /* full: the oldest key goes */
      i = ac->next;
      ac->next = (ac->next + 1) % ac->cap;
    }
    strcpy(ac->e[i].key, key);
  }
  if (n) memcpy(ac->e[i].rec, rec, n);
  ac->e[i].n = n;
  pthread_mutex_unlock(&ac->mu);
  return 1;
}

int tc_algo_cache_count(tc_algo_cache *ac) {
  if (!ac) return 0;
  pthread_mutex_lock(&ac->mu);
  int n = ac->count;
  pthread_mutex_unlock(&ac->mu);
  return n;
}
