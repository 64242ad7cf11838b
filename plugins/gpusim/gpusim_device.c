/* plugins/gpusim/gpusim_device.c: the device table of the simulated GPU.
 *
 * Host memory stands for device memory, so the kernels (run on the host by
 * tc_sim.cpp) read and write it directly. The table still behaves like a
 * device's: new memory is filled with 0xA5 bytes (a GPU's is not zeroed,
 * and a kernel that reads before it writes should not find zeros), device
 * indices past the count are refused, streams and events are handles that
 * must be created before use. Work is synchronous, so every stream and event
 * is always complete. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpusim.h"

typedef struct sim_event {
  double ms; /* when it was last recorded; < 0 before */
} sim_event;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static tabi_status dev_count(void *ctx, int32_t *out) {
  gpusim_ctx *c = ctx;
  if (!out) return TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT, "gpusim: count: out_count is NULL");
  *out = tc_sim_device_count();
  return TABI_OK;
}

static tabi_status use(gpusim_ctx *c, int32_t index, const char *what) {
  int32_t n = tc_sim_device_count();
  if (index < 0 || index >= n)
    return TABI_ERR(c->h, TABI_ERR_DEVICE, "gpusim: %s: no gpusim device %d (%d present)", what,
                    (int)index, (int)n);
  return TABI_OK;
}

static tabi_status dev_properties(void *ctx, int32_t index, tabi_device_props *p) {
  gpusim_ctx *c = ctx;
  if (!p) return TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT, "gpusim: properties: out_props is NULL");
  tabi_status st = use(c, index, "properties");
  if (st != TABI_OK) return st;
  tabi_device_props o;
  memset(&o, 0, sizeof o);
  o.struct_size = (uint32_t)sizeof o;
  o.index = index;
  snprintf(o.name, sizeof o.name, "gpusim %d (the GPU kernels on the host CPU)", (int)index);
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  o.total_memory = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  o.multiprocessors = cpus > 0 ? (int32_t)cpus : 1;
  tabi_device_props_copy_out(p, &o);
  return TABI_OK;
}

static tabi_status dev_alloc(void *ctx, int32_t index, uint64_t nbytes, void **out) {
  gpusim_ctx *c = ctx;
  if (!out) return TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT, "gpusim: alloc: out_ptr is NULL");
  *out = NULL;
  tabi_status st = use(c, index, "alloc");
  if (st != TABI_OK) return st;
  if (nbytes == 0) return TABI_OK;
  if (nbytes > SIZE_MAX - 256 || posix_memalign(out, 256, (size_t)nbytes) != 0) {
    *out = NULL;
    return TABI_ERR(c->h, TABI_ERR_OUT_OF_MEMORY, "gpusim: alloc: out of memory (%llu bytes)",
                    (unsigned long long)nbytes);
  }
  memset(*out, 0xA5, (size_t)nbytes);
  return TABI_OK;
}
static tabi_status dev_free(void *ctx, int32_t index, void *ptr) {
  tabi_status st = use(ctx, index, "free");
  if (st == TABI_OK) free(ptr);
  return st;
}
static tabi_status dev_copy(void *ctx, void *dst, DLDevice dd, const void *src, DLDevice sd,
                            uint64_t n, tabi_stream stream) {
  gpusim_ctx *c = ctx;
  if (n == 0) return TABI_OK;
  if (!dst || !src) return TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT, "gpusim: copy: NULL pointer");
  tabi_status st = use(c, dd.device_type == kDLExtDev ? dd.device_id : sd.device_id, "copy");
  if (st == TABI_OK) memmove(dst, src, (size_t)n);
  return st;
}
static tabi_status dev_sync(void *ctx, int32_t index) { return use(ctx, index, "synchronize"); }
static tabi_status dev_memset(void *ctx, int32_t index, void *p, int32_t byte, uint64_t n,
                              tabi_stream s) {
  gpusim_ctx *c = ctx;
  tabi_status st = use(c, index, "memset");
  if (st == TABI_OK && n && !p)
    st = TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT, "gpusim: memset: NULL pointer");
  if (st == TABI_OK && n) memset(p, byte, (size_t)n);
  return st;
}

/* Streams: a distinct live handle each (work runs when it is issued). */
static tabi_status s_create(void *ctx, int32_t index, tabi_stream *out) {
  gpusim_ctx *c = ctx;
  if (!out)
    return TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT, "gpusim: stream_create: out_stream is NULL");
  tabi_status st = use(c, index, "stream_create");
  if (st != TABI_OK) return st;
  void *s = malloc(1);
  if (!s) return TABI_ERR(c->h, TABI_ERR_OUT_OF_MEMORY, "gpusim: stream_create: out of memory");
  *out = (tabi_stream)s;
  return TABI_OK;
}
static tabi_status s_destroy(void *ctx, int32_t index, tabi_stream s) {
  tabi_status st = use(ctx, index, "stream_destroy");
  if (st == TABI_OK) free((void *)s);
  return st;
}
static tabi_status s_sync(void *ctx, int32_t index, tabi_stream s) {
  return use(ctx, index, "stream_synchronize");
}

static tabi_status e_create(void *ctx, int32_t index, tabi_event *out) {
  gpusim_ctx *c = ctx;
  if (!out)
    return TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT, "gpusim: event_create: out_event is NULL");
  tabi_status st = use(c, index, "event_create");
  if (st != TABI_OK) return st;
  sim_event *e = malloc(sizeof *e);
  if (!e) return TABI_ERR(c->h, TABI_ERR_OUT_OF_MEMORY, "gpusim: event_create: out of memory");
  e->ms = -1;
  *out = (tabi_event)e;
  return TABI_OK;
}
static tabi_status e_destroy(void *ctx, int32_t index, tabi_event e) {
  tabi_status st = use(ctx, index, "event_destroy");
  if (st == TABI_OK) free((void *)e);
  return st;
}
static tabi_status e_check(gpusim_ctx *c, int32_t index, tabi_event e, const char *what) {
  tabi_status st = use(c, index, what);
  if (st == TABI_OK && !e)
    st = TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT, "gpusim: %s: the event is NULL", what);
  return st;
}
static tabi_status e_record(void *ctx, int32_t index, tabi_event e, tabi_stream s) {
  tabi_status st = e_check(ctx, index, e, "event_record");
  if (st == TABI_OK) ((sim_event *)e)->ms = now_ms();
  return st;
}
static tabi_status e_wait(void *ctx, int32_t index, tabi_stream s, tabi_event e) {
  return e_check(ctx, index, e, "event_wait");
}
static tabi_status e_query(void *ctx, int32_t index, tabi_event e, int32_t *done) {
  gpusim_ctx *c = ctx;
  if (!done)
    return TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT, "gpusim: event_query: out_done is NULL");
  tabi_status st = e_check(c, index, e, "event_query");
  *done = st == TABI_OK;
  return st;
}
static tabi_status e_sync(void *ctx, int32_t index, tabi_event e) {
  return e_check(ctx, index, e, "event_synchronize");
}
static tabi_status e_elapsed(void *ctx, int32_t index, tabi_event a, tabi_event b, double *ms) {
  gpusim_ctx *c = ctx;
  if (!ms)
    return TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT, "gpusim: event_elapsed_ms: out_ms is NULL");
  *ms = 0;
  tabi_status st = e_check(c, index, a, "event_elapsed_ms");
  if (st == TABI_OK) st = e_check(c, index, b, "event_elapsed_ms");
  if (st != TABI_OK) return st;
  const sim_event *x = (const sim_event *)a, *y = (const sim_event *)b;
  if (x->ms < 0 || y->ms < 0)
    return TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT,
                    "gpusim: event_elapsed_ms: an event has not been recorded");
  *ms = y->ms - x->ms;
  return TABI_OK;
}

tabi_status gpusim_device_register(gpusim_ctx *c) {
  tabi_device_api d;
  memset(&d, 0, sizeof d);
  d.struct_size = (uint32_t)sizeof d;
  d.device_type = kDLExtDev;
  d.name = "gpusim";
  d.ctx = c;
  d.count = dev_count;
  d.properties = dev_properties;
  d.alloc = dev_alloc;
  d.free = dev_free;
  d.copy = dev_copy;
  d.synchronize = dev_sync;
  d.stream_create = s_create;
  d.stream_destroy = s_destroy;
  d.stream_synchronize = s_sync;
  d.event_create = e_create;
  d.event_destroy = e_destroy;
  d.event_record = e_record;
  d.event_wait = e_wait;
  d.event_query = e_query;
  d.event_synchronize = e_sync;
  d.event_elapsed_ms = e_elapsed;
  d.memset = dev_memset;
  return c->h->device_register(c->h->ctx, &d);
}
