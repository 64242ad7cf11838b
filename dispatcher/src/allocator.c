/* allocator.c: the caching allocator over each device's raw alloc/free. */
#include <stdlib.h>
#include <string.h>

#include "allocator.h"

#define ROUND 512u
#define DEFAULT_SEED UINT64_C(67280421310721) /* PyTorch's default seed */

static int is_host(const dev_state *ds) { return ds->dev.device_type == kDLCPU; }

static int bucket_of(uint64_t cap) { return 63 - __builtin_clzll(cap); }

tabi_status tabi_devstate_get(tabi_runtime *rt, DLDevice d, const char *who, dev_state **out) {
  char dbuf[48];
  *out = NULL;
  if (d.device_type == kDLCPU && d.device_id == 0 && rt->cpu) {
    *out = rt->cpu;
    return TABI_OK;
  }
  if (d.device_type < 1 || d.device_type > TABI_MAX_DEVICE_TYPE || d.device_id < 0 ||
      d.device_id >= TABI_MAX_DEVICE_INDEX)
    return tabi_set_error(TABI_ERR_DEVICE, "%s: no device %s (device type %d, index %d)", who,
                          tabi_device_str(rt, d, dbuf, sizeof dbuf), (int)d.device_type,
                          (int)d.device_id);
  dev_state *ds = atomic_load_explicit(&rt->devstates[d.device_type][d.device_id],
                                       memory_order_acquire);
  if (ds) {
    *out = ds;
    return TABI_OK;
  }
  const tabi_device_api *api =
      atomic_load_explicit(&rt->devices[d.device_type], memory_order_acquire);
  if (!api)
    return tabi_set_error(TABI_ERR_DEVICE, "%s: device %s: no loaded plugin provides device type %s",
                          who, tabi_device_str(rt, d, dbuf, sizeof dbuf),
                          tabi_device_type_name(rt, d.device_type));
  int32_t count = 0;
  if (api->count(api->ctx, &count) != TABI_OK) count = 0;
  if (d.device_id >= count)
    return tabi_set_error(TABI_ERR_DEVICE, "%s: device %s: index %d out of range (%d present)",
                          who, tabi_device_str(rt, d, dbuf, sizeof dbuf), (int)d.device_id,
                          (int)count);
  pthread_mutex_lock(&rt->lock);
  ds = atomic_load_explicit(&rt->devstates[d.device_type][d.device_id], memory_order_relaxed);
  if (!ds) {
    ds = calloc(1, sizeof *ds);
    if (!ds) {
      pthread_mutex_unlock(&rt->lock);
      return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
    }
    ds->rt = rt;
    ds->dev = d;
    ds->api = api;
    ds->count = count;
    pthread_mutex_init(&ds->mu, NULL);
    ds->stats.struct_size = sizeof ds->stats;
    atomic_init(&ds->rng_seed, DEFAULT_SEED);
    atomic_init(&ds->rng_offset, 0);
    atomic_store_explicit(&rt->devstates[d.device_type][d.device_id], ds, memory_order_release);
  }
  pthread_mutex_unlock(&rt->lock);
  *out = ds;
  return TABI_OK;
}

static void raw_free(dev_state *ds, alloc_block *b) {
  /* After the runtime is destroyed, a device plugin is gone: leak its memory
   * rather than call unloaded code. Host memory is ours and always freed. */
  if (is_host(ds) || !atomic_load_explicit(&ds->rt->dead, memory_order_acquire))
    ds->api->free(ds->api->ctx, ds->dev.device_id, b->raw);
  ds->stats.reserved -= b->cap;
  free(b);
}

void tabi_empty_cache(dev_state *ds) {
  pthread_mutex_lock(&ds->mu);
  for (int i = 0; i < 64; i++) {
    alloc_block *b = ds->free_lists[i];
    while (b) {
      alloc_block *n = b->next;
      raw_free(ds, b);
      b = n;
    }
    ds->free_lists[i] = NULL;
  }
  pthread_mutex_unlock(&ds->mu);
}

void tabi_devstate_destroy(dev_state *ds) {
  if (!ds) return;
  tabi_empty_cache(ds);
  pthread_mutex_destroy(&ds->mu);
  free(ds);
}

/* Writes the guard pattern around b's user bytes [0, req). */
static tabi_status guard_fill(alloc_block *b) {
  dev_state *ds = b->ds;
  uint64_t tail = b->cap - b->req + TABI_GUARD_BYTES;
  char *after = b->user + b->req;
  if (is_host(ds)) {
    memset(b->raw, TABI_GUARD_BYTE, TABI_GUARD_BYTES);
    memset(after, TABI_GUARD_BYTE, (size_t)tail);
    return TABI_OK;
  }
  const tabi_device_api *api = ds->api;
  if (api->memset) {
    tabi_status st = api->memset(api->ctx, ds->dev.device_id, b->raw, TABI_GUARD_BYTE,
                                 TABI_GUARD_BYTES, NULL);
    if (st == TABI_OK) st = api->memset(api->ctx, ds->dev.device_id, after, TABI_GUARD_BYTE, tail, NULL);
    if (st == TABI_OK && api->synchronize) st = api->synchronize(api->ctx, ds->dev.device_id);
    return st;
  }
  char *pat = malloc((size_t)tail);
  if (!pat) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "guard: out of memory");
  memset(pat, TABI_GUARD_BYTE, (size_t)tail);
  DLDevice host = {kDLCPU, 0};
  tabi_status st = api->copy(api->ctx, b->raw, ds->dev, pat, host, TABI_GUARD_BYTES, NULL);
  if (st == TABI_OK) st = api->copy(api->ctx, after, ds->dev, pat, host, tail, NULL);
  free(pat);
  return st;
}

static uint64_t count_bad(const unsigned char *p, uint64_t n) {
  uint64_t bad = 0;
  for (uint64_t i = 0; i < n; i++) bad += p[i] != TABI_GUARD_BYTE;
  return bad;
}

tabi_status tabi_block_check_guards(const alloc_block *b) {
  const dev_state *ds = b->ds;
  uint64_t tail = b->cap - b->req + TABI_GUARD_BYTES;
  uint64_t before, after;
  if (is_host(ds)) {
    before = count_bad(b->raw, TABI_GUARD_BYTES);
    after = count_bad((const unsigned char *)b->user + b->req, tail);
  } else {
    unsigned char *buf = malloc((size_t)tail + TABI_GUARD_BYTES);
    if (!buf) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "guard check: out of memory");
    DLDevice host = {kDLCPU, 0};
    const tabi_device_api *api = ds->api;
    tabi_status st = api->copy(api->ctx, buf, host, b->raw, ds->dev, TABI_GUARD_BYTES, NULL);
    if (st == TABI_OK)
      st = api->copy(api->ctx, buf + TABI_GUARD_BYTES, host, b->user + b->req, ds->dev, tail, NULL);
    if (st != TABI_OK) {
      free(buf);
      return st;
    }
    before = count_bad(buf, TABI_GUARD_BYTES);
    after = count_bad(buf + TABI_GUARD_BYTES, tail);
    free(buf);
  }
  if (before || after)
    return tabi_set_error(TABI_ERR_PLUGIN,
                          "guard violation: %llu bytes before and %llu bytes after a storage of "
                          "%llu bytes were overwritten",
                          (unsigned long long)before, (unsigned long long)after,
                          (unsigned long long)b->req);
  return TABI_OK;
}

static void run_hooks(tabi_runtime *rt, DLDevice d, int64_t nbytes) {
  if (atomic_load_explicit(&rt->nhooks, memory_order_acquire) == 0) return;
  for (int i = 0; i < TABI_MAX_HOOKS; i++) {
    tabi_memory_hook_fn fn = atomic_load_explicit(&rt->hooks[i].fn, memory_order_acquire);
    if (fn) fn(atomic_load_explicit(&rt->hooks[i].user, memory_order_acquire), d, nbytes);
  }
}

tabi_status tabi_alloc(dev_state *ds, uint64_t nbytes, alloc_block **out) {
  tabi_runtime *rt = ds->rt;
  int guard = (rt->flags & TABI_RUNTIME_GUARD_ALLOCATIONS) != 0;
  *out = NULL;
  if (nbytes > UINT64_MAX / 4)
    return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "cannot allocate %llu bytes",
                          (unsigned long long)nbytes);
  uint64_t cap = nbytes ? (nbytes + ROUND - 1) / ROUND * ROUND : ROUND;
  int bucket = bucket_of(cap);
  alloc_block *b = NULL;

  pthread_mutex_lock(&ds->mu);
  if (!(rt->flags & TABI_RUNTIME_NO_CACHE)) {
    alloc_block **best = NULL;
    for (alloc_block **pp = &ds->free_lists[bucket]; *pp; pp = &(*pp)->next)
      if ((*pp)->cap >= cap && (!best || (*pp)->cap < (*best)->cap)) best = pp;
    if (best) {
      b = *best;
      *best = b->next;
    }
  }
  pthread_mutex_unlock(&ds->mu);

  if (!b) {
    b = calloc(1, sizeof *b);
    if (!b) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "allocator: out of memory");
    uint64_t raw_size = cap + (guard ? 2 * TABI_GUARD_BYTES : 0);
    const tabi_device_api *api = ds->api;
    tabi_status st = api->alloc(api->ctx, ds->dev.device_id, raw_size, &b->raw);
    if (st != TABI_OK) {
      /* Return the cache to the device and try once more. */
      tabi_empty_cache(ds);
      st = api->alloc(api->ctx, ds->dev.device_id, raw_size, &b->raw);
    }
    if (st != TABI_OK || !b->raw) {
      char dbuf[48];
      free(b);
      return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "allocator: %s: cannot allocate %llu bytes",
                            tabi_device_str(rt, ds->dev, dbuf, sizeof dbuf),
                            (unsigned long long)raw_size);
    }
    b->cap = cap;
    b->ds = ds;
    b->user = (char *)b->raw + (guard ? TABI_GUARD_BYTES : 0);
    pthread_mutex_lock(&ds->mu);
    ds->stats.reserved += cap;
    ds->stats.num_device_allocs++;
    pthread_mutex_unlock(&ds->mu);
  }
  b->req = nbytes;
  b->next = NULL;
  if (guard) {
    tabi_status st = guard_fill(b);
    if (st != TABI_OK) {
      pthread_mutex_lock(&ds->mu);
      raw_free(ds, b);
      pthread_mutex_unlock(&ds->mu);
      return st;
    }
  }
  pthread_mutex_lock(&ds->mu);
  /* the block's capacity, which a cached block may have above cap: tabi_free
     takes back b->cap */
  ds->stats.allocated += b->cap;
  ds->stats.num_allocs++;
  if (ds->stats.allocated > ds->stats.peak_allocated) ds->stats.peak_allocated = ds->stats.allocated;
  pthread_mutex_unlock(&ds->mu);
  run_hooks(rt, ds->dev, (int64_t)nbytes);
  *out = b;
  return TABI_OK;
}

void tabi_free(alloc_block *b) {
  if (!b) return;
  dev_state *ds = b->ds;
  tabi_runtime *rt = ds->rt;
  int dead = atomic_load_explicit(&rt->dead, memory_order_acquire);
  if ((rt->flags & TABI_RUNTIME_GUARD_ALLOCATIONS) && (is_host(ds) || !dead)) {
    /* A check on free must not clobber the caller's error message. */
    tabi_error_saved saved;
    tabi_error_save(&saved);
    if (tabi_block_check_guards(b) != TABI_OK)
      atomic_fetch_add_explicit(&rt->guard_violations, 1, memory_order_relaxed);
    tabi_error_restore(&saved);
  }
  if (!dead) run_hooks(rt, ds->dev, -(int64_t)b->req);
  pthread_mutex_lock(&ds->mu);
  ds->stats.allocated -= b->cap;
  ds->stats.num_frees++;
  if ((rt->flags & TABI_RUNTIME_NO_CACHE) || dead) {
    raw_free(ds, b);
  } else {
    int bucket = bucket_of(b->cap);
    b->next = ds->free_lists[bucket];
    ds->free_lists[bucket] = b;
  }
  pthread_mutex_unlock(&ds->mu);
}
