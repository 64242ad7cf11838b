/* allocator.h: per-device state: the caching allocator (with statistics, guard
 * red zones, memory hooks) and the Philox generator state.
 *
 * Blocks are rounded up to 512 bytes and cached in free lists bucketed by the
 * power of two of their size; a request takes the best fit of its own bucket,
 * else a fresh device allocation. Thread-safe: one mutex per device.
 */
#ifndef TABI_DISPATCHER_ALLOCATOR_H
#define TABI_DISPATCHER_ALLOCATOR_H

#include "internal.h"

#define TABI_GUARD_BYTES 64
#define TABI_GUARD_BYTE 0xA5

typedef struct alloc_block {
  void *raw;      /* what the device allocated */
  char *user;     /* what tensors see (raw + guard when guarded) */
  uint64_t cap;   /* usable bytes (rounded) */
  uint64_t req;   /* bytes requested by the current user */
  struct alloc_block *next;
  dev_state *ds;
} alloc_block;

struct dev_state {
  tabi_runtime *rt;
  DLDevice dev;
  const tabi_device_api *api;
  int32_t count;          /* devices of this type when created */
  pthread_mutex_t mu;
  alloc_block *free_lists[64];
  tabi_memory_stats stats;
  _Atomic uint64_t rng_seed;
  _Atomic uint64_t rng_offset;
};

/* The state of `device`, created on first use. DEVICE error (message starting
 * with `who`) when no plugin provides the device type or the index is absent. */
TABI_INTERNAL tabi_status tabi_devstate_get(tabi_runtime *rt, DLDevice device, const char *who,
                                            dev_state **out);
TABI_INTERNAL void tabi_devstate_destroy(dev_state *ds);

/* nbytes may be 0 (a 512-byte block is still handed out, so data is never NULL). */
TABI_INTERNAL tabi_status tabi_alloc(dev_state *ds, uint64_t nbytes, alloc_block **out);
TABI_INTERNAL void tabi_free(alloc_block *b);
TABI_INTERNAL void tabi_empty_cache(dev_state *ds);
/* TABI_OK when both red zones are intact; else TABI_ERR_PLUGIN with the count. */
TABI_INTERNAL tabi_status tabi_block_check_guards(const alloc_block *b);

#endif
