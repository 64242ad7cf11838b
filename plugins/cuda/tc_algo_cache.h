/* plugins/cuda/tc_algo_cache.h: a small keyed cache of what a library chose
 * for one configuration: the convolution algorithm of cuDNN in the CUDA plugin
 * and MIOpen in the ROCm plugin (tc_conv.cu / rocm_conv.cuh, keyed by the
 * convolution's geometry, dtype and layout as a string), and cuBLASLt's
 * heuristic answer for addmm's bias epilogue (tc_blas.cu).
 *
 * Each entry holds an opaque record of at most TC_ALGO_REC bytes (the caller's
 * struct, copied in and out). Bounded: `cap` entries; when full, a store of a
 * new key replaces the oldest stored key (first in, first out), so a workload
 * cycling through more configurations than `cap` measures again rather than
 * growing. Keys longer than TC_ALGO_KEY - 1 characters are never stored (a
 * lookup of one misses), so distinct keys cannot collide by truncation.
 * Thread-safe (its own mutex); a NULL cache misses and stores nothing. Plain C
 * host code: linked into both plugins and into tests/cuda/test_tc_algo_cache.c. */
#ifndef TABI_TC_ALGO_CACHE_H
#define TABI_TC_ALGO_CACHE_H

#include <pthread.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TC_ALGO_KEY 256 /* key bytes, the terminating NUL included */
#define TC_ALGO_REC 128 /* record bytes: cuBLASLt's algorithm is 64 */

typedef struct tc_algo_cache tc_algo_cache;

/* A cache of cap (>= 1) entries; NULL when out of memory or cap < 1. */
tc_algo_cache *tc_algo_cache_new(int cap);
void tc_algo_cache_free(tc_algo_cache *ac);
/* *slot's cache, created with cap entries on first use under mu (the owner's
 * mutex, so two threads create one); NULL when it cannot be created. */
tc_algo_cache *tc_algo_cache_of(void **slot, pthread_mutex_t *mu, int cap);
/* 1 and the record (n bytes) copied to rec when key was stored with a record
 * of n bytes; else 0 and rec untouched. */
int tc_algo_cache_get(tc_algo_cache *ac, const char *key, void *rec, size_t n);
/* Stores rec (n <= TC_ALGO_REC bytes) under key, replacing the key's record if
 * present, else taking a free entry or the oldest one. 1 when stored; 0 for a
 * NULL cache, an over-long key or n out of range. */
int tc_algo_cache_put(tc_algo_cache *ac, const char *key, const void *rec, size_t n);
/* The number of keys stored (<= cap). */
int tc_algo_cache_count(tc_algo_cache *ac);

#ifdef __cplusplus
}
#endif

#endif
