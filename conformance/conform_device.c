/* conformance/conform_device.c: the device table, on every device it reports.
 *
 * Raw allocation and free (alignment included), host->device->host round trips
 * of awkward sizes, device->device copies, copies on a stream finished by a
 * synchronize, event ordering (record, wait, query, synchronize, elapsed time),
 * memset, versioned props (no byte written past the caller's struct_size),
 * NULL out pointers and absent indices refused with a status, and the same
 * through the runtime's tensors (caching allocator). Each check is a case
 * "device N: what".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform_int.h"

#define DEV "device"

typedef struct dctx {
  conform_ctx *c;
  const tabi_device_api *d;
  int32_t index;
  DLDevice dev, host;
  char what[128];
} dctx;

static void begin(dctx *x, const char *what) {
  snprintf(x->what, sizeof x->what, "device %d: %s", (int)x->index, what);
  conform_progress(x->c, DEV, NULL, x->what);
}

static int ok(dctx *x, tabi_status st, const char *call) {
  if (st == TABI_OK) return 1;
  conform_emit(x->c, CONFORM_ST_FAIL, DEV, NULL, x->what, CONFORM_K_DEVICE, "%s returned %s: %s",
               call, tabi_status_name(st), tabi_last_error());
  return 0;
}

static void pass(dctx *x) {
  conform_emit(x->c, CONFORM_ST_PASS, DEV, NULL, x->what, NULL, NULL);
}

static void pattern(uint8_t *p, uint64_t n, uint32_t salt) {
  for (uint64_t i = 0; i < n; i++) p[i] = (uint8_t)((i * 131u + salt * 7u + (i >> 8)) & 0xff);
}

static void round_trip(dctx *x, uint64_t n) {
  char what[64];
  snprintf(what, sizeof what, "round trip of %llu bytes", (unsigned long long)n);
  begin(x, what);
  const tabi_device_api *d = x->d;
  uint8_t *src = malloc(n), *back = calloc(1, n);
  void *p1 = NULL, *p2 = NULL;
  int good = src && back;
  if (good) pattern(src, n, (uint32_t)n);
  good = good && ok(x, d->alloc(d->ctx, x->index, n, &p1), "alloc") && p1;
  good = good && ok(x, d->alloc(d->ctx, x->index, n, &p2), "alloc") && p2;
  if (good && (((uintptr_t)p1 % 256) || ((uintptr_t)p2 % 256))) {
    conform_emit(x->c, CONFORM_ST_FAIL, DEV, NULL, x->what, CONFORM_K_DEVICE,
                 "alloc returned %p, not aligned to 256 bytes", p1);
    good = 0;
  }
  good = good && ok(x, d->copy(d->ctx, p1, x->dev, src, x->host, n, NULL), "copy host->device");
  good = good && ok(x, d->copy(d->ctx, p2, x->dev, p1, x->dev, n, NULL), "copy device->device");
  good = good && ok(x, d->synchronize(d->ctx, x->index), "synchronize");
  good = good && ok(x, d->copy(d->ctx, back, x->host, p2, x->dev, n, NULL), "copy device->host");
  if (good && memcmp(src, back, n) != 0) {
    uint64_t at = 0;
    while (at < n && src[at] == back[at]) at++;
    conform_emit(x->c, CONFORM_ST_FAIL, DEV, NULL, x->what, CONFORM_K_DEVICE,
                 "bytes differ after host->device->device->host, first at offset %llu",
                 (unsigned long long)at);
    good = 0;
  }
  if (p1) good = ok(x, d->free(d->ctx, x->index, p1), "free") && good;
  if (p2) good = ok(x, d->free(d->ctx, x->index, p2), "free") && good;
  if (good) pass(x);
  free(src);
  free(back);
}

static void streams_and_events(dctx *x) {
  const tabi_device_api *d = x->d;
  if (!d->stream_create || !d->stream_destroy) {
    begin(x, "streams");
    conform_emit(x->c, CONFORM_ST_SKIP, DEV, NULL, x->what, NULL,
                 "skipped: the table has no streams");
    return;
  }
  begin(x, "asynchronous copies on a stream");
  uint64_t n = (1u << 20) + 13;
  uint8_t *src = malloc(n), *back = calloc(1, n);
  void *p = NULL;
  tabi_stream s1 = NULL, s2 = NULL;
  tabi_event e1 = NULL, e2 = NULL;
  int good = src && back;
  if (good) pattern(src, n, 99);
  good = good && ok(x, d->stream_create(d->ctx, x->index, &s1), "stream_create");
  good = good && ok(x, d->stream_create(d->ctx, x->index, &s2), "stream_create");
  good = good && ok(x, d->alloc(d->ctx, x->index, n, &p), "alloc");
  int have_events = d->event_create && d->event_destroy && d->event_record;
  if (good && have_events) {
    good = ok(x, d->event_create(d->ctx, x->index, &e1), "event_create") &&
           ok(x, d->event_create(d->ctx, x->index, &e2), "event_create") &&
           ok(x, d->event_record(d->ctx, x->index, e1, s1), "event_record");
  }
  good = good &&
         ok(x, d->copy(d->ctx, p, x->dev, src, x->host, n, s1), "copy host->device on a stream");
  if (good && have_events) good = ok(x, d->event_record(d->ctx, x->index, e2, s1), "event_record");
  /* s2 must see s1's copy once it waits for e2. */
  if (good && have_events && d->event_wait)
    good = ok(x, d->event_wait(d->ctx, x->index, s2, e2), "event_wait");
  else if (good && d->stream_synchronize)
    good = ok(x, d->stream_synchronize(d->ctx, x->index, s1), "stream_synchronize");
  good = good &&
         ok(x, d->copy(d->ctx, back, x->host, p, x->dev, n, s2), "copy device->host on a stream");
  if (good && d->stream_synchronize)
    good = ok(x, d->stream_synchronize(d->ctx, x->index, s2), "stream_synchronize");
  good = good && ok(x, d->synchronize(d->ctx, x->index), "synchronize");
  if (good && memcmp(src, back, n) != 0) {
    conform_emit(x->c, CONFORM_ST_FAIL, DEV, NULL, x->what, CONFORM_K_DEVICE,
                 "a copy ordered after an event (or stream synchronize) saw stale bytes");
    good = 0;
  }
  if (good) pass(x);
  if (have_events && e1 && e2) {
    begin(x, "events: query, synchronize, elapsed time");
    int eg = 1;
    if (d->event_synchronize)
      eg = ok(x, d->event_synchronize(d->ctx, x->index, e2), "event_synchronize");
    if (eg && d->event_query) {
      int32_t done = 0;
      eg = ok(x, d->event_query(d->ctx, x->index, e2, &done), "event_query");
      if (eg && !done) {
        conform_emit(x->c, CONFORM_ST_FAIL, DEV, NULL, x->what, CONFORM_K_DEVICE,
                     "event_query says not done after event_synchronize and synchronize");
        eg = 0;
      }
    }
    if (eg && d->event_elapsed_ms) {
      double ms = -1;
      eg = ok(x, d->event_elapsed_ms(d->ctx, x->index, e1, e2, &ms), "event_elapsed_ms");
      if (eg && !(ms >= 0.0)) {
        conform_emit(x->c, CONFORM_ST_FAIL, DEV, NULL, x->what, CONFORM_K_DEVICE,
                     "elapsed time between two ordered events is %g ms (negative)", ms);
        eg = 0;
      }
    }
    if (eg) pass(x);
  }
  if (e1) d->event_destroy(d->ctx, x->index, e1);
  if (e2) d->event_destroy(d->ctx, x->index, e2);
  if (p) d->free(d->ctx, x->index, p);
  if (s1) d->stream_destroy(d->ctx, x->index, s1);
  if (s2) d->stream_destroy(d->ctx, x->index, s2);
  free(src);
  free(back);
}

static void memset_check(dctx *x) {
  const tabi_device_api *d = x->d;
  if (!d->memset) return;
  begin(x, "memset");
  uint64_t n = 1000;
  uint8_t back[1000];
  void *p = NULL;
  int good = ok(x, d->alloc(d->ctx, x->index, n, &p), "alloc") &&
             ok(x, d->memset(d->ctx, x->index, p, 0xab, n, NULL), "memset") &&
             ok(x, d->synchronize(d->ctx, x->index), "synchronize") &&
             ok(x, d->copy(d->ctx, back, x->host, p, x->dev, n, NULL), "copy device->host");
  for (uint64_t i = 0; good && i < n; i++)
    if (back[i] != 0xab) {
      conform_emit(x->c, CONFORM_ST_FAIL, DEV, NULL, x->what, CONFORM_K_DEVICE,
                   "byte %llu is 0x%02x after memset 0xab", (unsigned long long)i, back[i]);
      good = 0;
    }
  if (p) d->free(d->ctx, x->index, p);
  if (good) pass(x);
}

/* An error the table must give: not OK, with a message of its own (the
 * thread's last error is cleared before the call, so an old one cannot pass). */
#define REFUSED(x, call, what) (tabi_clear_error(), refused((x), (call), (what)))
static int refused(dctx *x, tabi_status st, const char *call) {
  if (st != TABI_OK && tabi_last_error()[0]) return 1;
  conform_emit(x->c, CONFORM_ST_FAIL, DEV, NULL, x->what, CONFORM_K_DEVICE, "%s %s", call,
               st == TABI_OK ? "returned TABI_OK" : "failed without a message");
  return 0;
}

/* Versioned structs: a caller built against an older, shorter
 * tabi_device_props passes its own struct_size; the plugin must write no byte
 * past it and report how much it wrote. */
static void short_props(dctx *x) {
  begin(x, "properties into a shorter (older) struct");
  const tabi_device_api *d = x->d;
  enum { kShort = 24 }; /* struct_size, index and the first 16 bytes of name */
  unsigned char buf[sizeof(tabi_device_props) + 64];
  memset(buf, 0xa5, sizeof buf);
  tabi_device_props *p = (tabi_device_props *)(void *)buf;
  p->struct_size = kShort;
  int good = ok(x, d->properties(d->ctx, x->index, p), "properties");
  for (size_t i = kShort; good && i < sizeof buf; i++)
    if (buf[i] != 0xa5) {
      conform_emit(x->c, CONFORM_ST_FAIL, DEV, NULL, x->what, CONFORM_K_DEVICE,
                   "properties wrote byte %zu of a struct whose struct_size is %d", i, (int)kShort);
      good = 0;
    }
  if (good && p->struct_size > kShort) {
    conform_emit(x->c, CONFORM_ST_FAIL, DEV, NULL, x->what, CONFORM_K_DEVICE,
                 "properties set struct_size to %u, more than the caller's %d",
                 (unsigned)p->struct_size, (int)kShort);
    good = 0;
  }
  if (good) pass(x);
}

/* NULL out pointers and absent device indices are refused with a status: a
 * table that writes through them crashes the caller instead. */
static void bad_arguments(dctx *x) {
  const tabi_device_api *d = x->d;
  begin(x, "NULL out pointers are refused");
  int good = REFUSED(x, d->properties(d->ctx, x->index, NULL), "properties(out_props NULL)") &&
             REFUSED(x, d->alloc(d->ctx, x->index, 64, NULL), "alloc(out_ptr NULL)");
  if (good && d->stream_create)
    good = REFUSED(x, d->stream_create(d->ctx, x->index, NULL), "stream_create(out NULL)");
  if (good && d->event_create)
    good = REFUSED(x, d->event_create(d->ctx, x->index, NULL), "event_create(out NULL)");
  tabi_event e = NULL;
  int have_events = d->event_create && d->event_destroy && d->event_record;
  if (good && have_events)
    good = ok(x, d->event_create(d->ctx, x->index, &e), "event_create") &&
           ok(x, d->event_record(d->ctx, x->index, e, NULL), "event_record") &&
           ok(x, d->synchronize(d->ctx, x->index), "synchronize");
  if (good && have_events && d->event_query)
    good = REFUSED(x, d->event_query(d->ctx, x->index, e, NULL), "event_query(out_done NULL)");
  if (good && have_events && d->event_elapsed_ms)
    good = REFUSED(x, d->event_elapsed_ms(d->ctx, x->index, e, e, NULL),
                   "event_elapsed_ms(out_ms NULL)");
  if (e) d->event_destroy(d->ctx, x->index, e);
  if (good) pass(x);
  begin(x, "absent device indices are refused");
  tabi_device_props props;
  memset(&props, 0, sizeof props);
  props.struct_size = sizeof props;
  void *ptr = NULL;
  int32_t past = x->c->device_count;
  good = REFUSED(x, d->properties(d->ctx, past, &props), "properties(index = device count)") &&
         REFUSED(x, d->properties(d->ctx, -1, &props), "properties(index -1)") &&
         REFUSED(x, d->alloc(d->ctx, past, 64, &ptr), "alloc(index = device count)");
  if (ptr) d->free(d->ctx, past, ptr);
  if (good) pass(x);
}

/* The same through the runtime: caching allocator, tensor copies, statistics. */
static void tensors(dctx *x) {
  begin(x, "tensors through the runtime");
  int64_t shape[2] = {37, 29};
  double host[37 * 29], back[37 * 29];
  for (int i = 0; i < 37 * 29; i++) host[i] = i * 0.25 - 7;
  tabi_tensor *t = NULL;
  int good = ok(x,
                tabi_tensor_from_host(x->c->test, x->dev, TABI_DTYPE_FLOAT64, 2, shape, host,
                                      sizeof host, &t),
                "tabi_tensor_from_host") &&
             ok(x, tabi_tensor_to_host(x->c->test, t, back, sizeof back), "tabi_tensor_to_host");
  if (good && memcmp(host, back, sizeof host) != 0) {
    conform_emit(x->c, CONFORM_ST_FAIL, DEV, NULL, x->what, CONFORM_K_DEVICE,
                 "a tensor read back differs from what was written");
    good = 0;
  }
  tabi_memory_stats ms;
  memset(&ms, 0, sizeof ms);
  ms.struct_size = sizeof ms;
  if (good &&
      ok(x, tabi_runtime_memory_stats(x->c->test, x->dev, &ms), "tabi_runtime_memory_stats") &&
      ms.allocated < sizeof host) {
    conform_emit(x->c, CONFORM_ST_FAIL, DEV, NULL, x->what, CONFORM_K_DEVICE,
                 "memory stats show %llu bytes allocated with a %zu-byte tensor alive",
                 (unsigned long long)ms.allocated, sizeof host);
    good = 0;
  }
  if (good && tabi_tensor_check_guards(x->c->test, t) != TABI_OK) {
    conform_emit(x->c, CONFORM_ST_FAIL, DEV, NULL, x->what, CONFORM_K_GUARD, "%s",
                 tabi_last_error());
    good = 0;
  }
  tabi_tensor_release(t);
  if (good) pass(x);
}

void conform_device_group(conform_ctx *c) {
  const tabi_host_api *h = tabi_runtime_host(c->test);
  const tabi_device_api *d = NULL;
  if (!h || h->device_get(h->ctx, c->device.device_type, &d) != TABI_OK || !d) {
    conform_emit(c, CONFORM_ST_FAIL, DEV, NULL, "device table", CONFORM_K_DEVICE,
                 "no device table for device type %d: %s", (int)c->device.device_type,
                 tabi_last_error());
    return;
  }
  if (!d->count || !d->properties || !d->alloc || !d->free || !d->copy || !d->synchronize) {
    conform_emit(c, CONFORM_ST_FAIL, DEV, NULL, "device table", CONFORM_K_DEVICE,
                 "a required slot (count, properties, alloc, free, copy, synchronize) is NULL");
    return;
  }
  conform_emit(c, CONFORM_ST_PASS, DEV, NULL, "device table", NULL, NULL);
  for (int32_t i = 0; i < c->device_count; i++) {
    dctx x;
    memset(&x, 0, sizeof x);
    x.c = c;
    x.d = d;
    x.index = i;
    x.dev.device_type = c->device.device_type;
    x.dev.device_id = i;
    x.host.device_type = kDLCPU;
    begin(&x, "properties");
    tabi_device_props props;
    memset(&props, 0, sizeof props);
    props.struct_size = sizeof props;
    if (ok(&x, d->properties(d->ctx, i, &props), "properties")) pass(&x);
    static const uint64_t sizes[] = {1, 7, 256, 4096, (1u << 20) + 3};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) round_trip(&x, sizes[s]);
    streams_and_events(&x);
    memset_check(&x);
    short_props(&x);
    bad_arguments(&x);
    tensors(&x);
  }
}
