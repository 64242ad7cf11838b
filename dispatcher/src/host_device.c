/* host_device.c: the kDLCPU device table. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host_device.h"

typedef struct host_event {
  double ms;
  int32_t recorded;
} host_event;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static tabi_status hd_count(void *ctx, int32_t *out) {
  if (!out) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "cpu: count: out_count is NULL");
  *out = 1;
  return TABI_OK;
}

static tabi_status no_device(int32_t index, const char *what) {
  return tabi_set_error(TABI_ERR_DEVICE, "cpu: %s: no device index %d (the host is device 0)", what,
                        (int)index);
}

static tabi_status hd_props(void *ctx, int32_t index, tabi_device_props *out) {
  if (!out) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "cpu: properties: out_props is NULL");
  if (index != 0) return no_device(index, "properties");
  tabi_device_props p;
  memset(&p, 0, sizeof p);
  p.struct_size = sizeof p;
  strcpy(p.name, "host cpu");
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  p.total_memory = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  p.multiprocessors = n > 0 ? (int32_t)n : 1;
  tabi_device_props_copy_out(out, &p);
  return TABI_OK;
}

static tabi_status hd_alloc(void *ctx, int32_t index, uint64_t nbytes, void **out) {
  if (!out) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "cpu: alloc: out_ptr is NULL");
  if (index != 0) return no_device(index, "alloc");
  void *p = NULL;
  if (nbytes == 0 || nbytes > (uint64_t)SIZE_MAX / 2 ||
      posix_memalign(&p, 256, (size_t)nbytes) != 0)
    return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "cpu: cannot allocate %llu bytes",
                          (unsigned long long)nbytes);
  *out = p;
  return TABI_OK;
}

static tabi_status hd_free(void *ctx, int32_t index, void *ptr) {
  free(ptr);
  return TABI_OK;
}

static tabi_status hd_copy(void *ctx, void *dst, DLDevice dd, const void *src, DLDevice sd,
                           uint64_t nbytes, tabi_stream stream) {
  if (dd.device_type != kDLCPU || sd.device_type != kDLCPU)
    return tabi_set_error(TABI_ERR_DEVICE, "cpu: copy between cpu and device type %d/%d",
                          (int)dd.device_type, (int)sd.device_type);
  if (nbytes) memmove(dst, src, (size_t)nbytes);
  return TABI_OK;
}

static tabi_status hd_sync(void *ctx, int32_t index) {
  return TABI_OK;
}

static tabi_status hd_stream_create(void *ctx, int32_t index, tabi_stream *out) {
  if (!out)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "cpu: stream_create: out_stream is NULL");
  void *s = malloc(16);
  if (!s) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "cpu: stream_create: out of memory");
  *out = (tabi_stream)s;
  return TABI_OK;
}

static tabi_status hd_stream_destroy(void *ctx, int32_t index, tabi_stream s) {
  free(s);
  return TABI_OK;
}

static tabi_status hd_stream_sync(void *ctx, int32_t index, tabi_stream s) {
  return TABI_OK;
}

static tabi_status hd_event_create(void *ctx, int32_t index, tabi_event *out) {
  if (!out)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "cpu: event_create: out_event is NULL");
  host_event *e = calloc(1, sizeof *e);
  if (!e) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "cpu: event_create: out of memory");
  *out = (tabi_event)(void *)e;
  return TABI_OK;
}

static tabi_status hd_event_destroy(void *ctx, int32_t index, tabi_event e) {
  free(e);
  return TABI_OK;
}

static tabi_status hd_event_record(void *ctx, int32_t index, tabi_event ev, tabi_stream s) {
  if (!ev) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "cpu: event_record: NULL event");
  host_event *e = (host_event *)(void *)ev;
  e->ms = now_ms();
  e->recorded = 1;
  return TABI_OK;
}

static tabi_status hd_event_wait(void *ctx, int32_t index, tabi_stream s, tabi_event e) {
  return TABI_OK;
}

static tabi_status hd_event_query(void *ctx, int32_t index, tabi_event e, int32_t *out_done) {
  if (!out_done)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "cpu: event_query: out_done is NULL");
  *out_done = 1;
  return TABI_OK;
}

static tabi_status hd_event_sync(void *ctx, int32_t index, tabi_event e) {
  return TABI_OK;
}

static tabi_status hd_event_elapsed(void *ctx, int32_t index, tabi_event a, tabi_event b,
                                    double *out_ms) {
  if (!out_ms)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "cpu: event_elapsed_ms: out_ms is NULL");
  host_event *s = (host_event *)(void *)a, *e = (host_event *)(void *)b;
  if (!s || !e || !s->recorded || !e->recorded)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "cpu: event_elapsed_ms: event not recorded");
  *out_ms = e->ms - s->ms;
  return TABI_OK;
}

static tabi_status hd_memset(void *ctx, int32_t index, void *ptr, int32_t byte, uint64_t n,
                             tabi_stream s) {
  if (n) memset(ptr, byte, (size_t)n);
  return TABI_OK;
}

void tabi_host_device_fill(tabi_device_api *d) {
  memset(d, 0, sizeof *d);
  d->struct_size = sizeof *d;
  d->device_type = kDLCPU;
  d->name = "cpu";
  d->count = hd_count;
  d->properties = hd_props;
  d->alloc = hd_alloc;
  d->free = hd_free;
  d->copy = hd_copy;
  d->synchronize = hd_sync;
  d->stream_create = hd_stream_create;
  d->stream_destroy = hd_stream_destroy;
  d->stream_synchronize = hd_stream_sync;
  d->event_create = hd_event_create;
  d->event_destroy = hd_event_destroy;
  d->event_record = hd_event_record;
  d->event_wait = hd_event_wait;
  d->event_query = hd_event_query;
  d->event_synchronize = hd_event_sync;
  d->event_elapsed_ms = hd_event_elapsed;
  d->memset = hd_memset;
}
