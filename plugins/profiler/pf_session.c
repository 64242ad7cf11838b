/* pf_session.c: sessions (start/stop), thread participation, user ranges, the
 * merged event arrays and the "tabi.profiler" extension table. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pf.h"

/* ---- text buffers (shared with the table and the trace) ------------------------ */

void pf_buf_printf(pf_buf *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    size_t room = b->cap - b->n;
    int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? room : 0, fmt, ap);
    va_end(ap);
    if (k < 0) {
      b->oom = 1;
      return;
    }
    if (b->p && (size_t)k < room) {
      b->n += (size_t)k;
      return;
    }
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->n + (size_t)k + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
}

void pf_buf_json_str(pf_buf *b, const char *s) {
  pf_buf_printf(b, "\"");
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') pf_buf_printf(b, "\\%c", c);
    else if (c < 0x20) pf_buf_printf(b, "\\u%04x", c);
    else pf_buf_printf(b, "%c", c);
  }
  pf_buf_printf(b, "\"");
}

/* ---- sessions ------------------------------------------------------------------------ */

void pf_session_clear(pf_state *st) {
  for (pf_thread *t = st->threads, *n; t; t = n) {
    n = t->next;
    pf_thread_free(t);
  }
  st->threads = NULL;
  st->nthreads = 0;
  free(st->out);
  free(st->outmem);
  st->out = NULL;
  st->outmem = NULL;
  st->nout = st->noutmem = 0;
  st->have_device_time = 0;
}

static void set_key(pf_state *st, int32_t on) {
  const tabi_host_api *h = st->h;
  uint64_t en = h->tls_get(h->ctx, TABI_TLS_ENABLED);
  uint64_t want = on ? (en | st->key) : (en & ~st->key);
  if (want != en) h->tls_set(h->ctx, TABI_TLS_ENABLED, want);
}

static tabi_status pf_start(void *ctx, const tabi_profiler_options *o) {
  pf_state *st = ctx;
  const tabi_host_api *h = st->h;
  uint32_t flags = TABI_PROFILER_RECORD_SHAPES | TABI_PROFILER_MEMORY;
  if (o) {
    if (o->struct_size < sizeof(uint32_t) * 2)
      return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                      "tabi.profiler start: options.struct_size %u is too small",
                      (unsigned)o->struct_size);
    flags = o->flags;
  }
  pthread_mutex_lock(&st->mu);
  if (atomic_load(&st->active)) {
    pthread_mutex_unlock(&st->mu);
    return TABI_ERR(h, TABI_ERR_ALREADY_EXISTS, "tabi.profiler start: a session is running");
  }
  pf_session_clear(st);
  st->flags = flags;
  for (int32_t d = 0; d <= PF_MAX_DEVICE_TYPE; d++) atomic_store(&st->mem_total[d], 0);
  if (flags & TABI_PROFILER_MEMORY) {
    tabi_status s = h->memory_hook_add(h->ctx, pf_memory_hook, st, &st->hook_id);
    if (s != TABI_OK) {
      pthread_mutex_unlock(&st->mu);
      return s;
    }
    st->hook_on = 1;
  }
  st->t0_ns = pf_now_ns();
  atomic_fetch_add(&st->session, 1);
  atomic_store(&st->active, 1);
  pthread_mutex_unlock(&st->mu);
  pf_thread *th = pf_thread_get(st, 1);
  if (!th) return TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "tabi.profiler start: out of memory");
  th->enabled = 1;
  set_key(st, 1);
  return TABI_OK;
}

static int32_t pf_set_thread_enabled(void *ctx, int32_t on) {
  pf_state *st = ctx;
  pf_thread *th = pf_thread_get(st, on != 0);
  int32_t prev = th ? th->enabled : 0;
  if (on && !th) {
    TABI_ERR(st->h, TABI_ERR_UNAVAILABLE, "tabi.profiler set_thread_enabled: no session");
    return -1;
  }
  if (th) th->enabled = on != 0;
  set_key(st, on != 0);
  return prev;
}

static void device_time(pf_state *st, pf_ev *e) {
  if (!e->dev) return;
  const tabi_device_api *d = e->dev;
  double ms = 0;
  if (d->event_synchronize) d->event_synchronize(d->ctx, e->dev_index, e->ev1);
  if (d->event_elapsed_ms(d->ctx, e->dev_index, e->ev0, e->ev1, &ms) == TABI_OK) {
    e->device_ns = (int64_t)(ms * 1e6);
    st->have_device_time = 1;
  }
  d->event_destroy(d->ctx, e->dev_index, e->ev0);
  d->event_destroy(d->ctx, e->dev_index, e->ev1);
  e->dev = NULL;
}

static tabi_status pf_stop(void *ctx) {
  pf_state *st = ctx;
  const tabi_host_api *h = st->h;
  pthread_mutex_lock(&st->mu);
  if (!atomic_load(&st->active)) {
    pthread_mutex_unlock(&st->mu);
    return TABI_ERR(h, TABI_ERR_UNAVAILABLE, "tabi.profiler stop: no session is running");
  }
  atomic_store(&st->active, 0);
  if (st->hook_on) h->memory_hook_remove(h->ctx, st->hook_id);
  st->hook_on = 0;
  pthread_mutex_unlock(&st->mu);
  set_key(st, 0);
  int64_t nev = 0, nmem = 0;
  for (pf_thread *t = st->threads; t; t = t->next) {
    t->enabled = 0;
    /* Ranges left open are closed at the session's end. */
    while (t->depth > 0) pf_close(t, t->stack[t->depth - 1]);
    nev += t->nev;
    nmem += t->nmem;
  }
  st->out = calloc((size_t)(nev ? nev : 1), sizeof *st->out);
  st->outmem = calloc((size_t)(nmem ? nmem : 1), sizeof *st->outmem);
  if (!st->out || !st->outmem) {
    pf_session_clear(st);
    return TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "tabi.profiler stop: out of memory");
  }
  int64_t base = 0, mbase = 0;
  for (pf_thread *t = st->threads; t; t = t->next) {
    for (int64_t i = 0; i < t->nev; i++) {
      pf_ev *e = &t->ev[i];
      device_time(st, e);
      tabi_profiler_event *o = &st->out[base + i];
      o->struct_size = sizeof *o;
      o->kind = e->kind;
      o->name = e->name;
      o->overload = "";
      o->shapes = e->shapes;
      o->dtypes = e->dtypes;
      o->start_ns = e->start_ns;
      o->end_ns = e->end_ns;
      o->self_ns = e->end_ns - e->start_ns - e->child_ns;
      o->device_ns = e->device_ns;
      o->alloc_bytes = e->alloc;
      o->free_bytes = e->freed;
      o->mem_bytes = e->mem;
      o->parent = e->parent >= 0 ? base + e->parent : -1;
      o->depth = e->depth;
      o->thread = t->index;
      o->device_type = e->kind == TABI_PROFILER_EVENT_OP ? e->device_type : 0;
      o->op = e->kind == TABI_PROFILER_EVENT_OP ? e->op : -1;
    }
    for (int64_t i = 0; i < t->nmem; i++) {
      pf_mem *m = &t->mem[i];
      tabi_profiler_memory_event *o = &st->outmem[mbase + i];
      o->struct_size = sizeof *o;
      o->device_type = m->device_type;
      o->device_id = m->device_id;
      o->thread = t->index;
      o->ts_ns = m->ts_ns;
      o->nbytes = m->nbytes;
      o->total_bytes = m->total;
      o->event = m->ev >= 0 ? base + m->ev : -1;
    }
    base += t->nev;
    mbase += t->nmem;
  }
  st->nout = nev;
  st->noutmem = nmem;
  /* Split "ns::name.overload" into name and overload, in the merged array only:
   * names are the runtime's strings, copied into the starter thread's arena. */
  pf_thread *t0 = st->threads;
  for (int64_t i = 0; t0 && i < nev; i++) {
    tabi_profiler_event *o = &st->out[i];
    if (o->kind != TABI_PROFILER_EVENT_OP) continue;
    const char *sep = strstr(o->name, "::");
    const char *dot = strchr(sep ? sep + 2 : o->name, '.');
    if (!dot) continue;
    char *name = pf_strdup(t0, o->name, (size_t)(dot - o->name));
    if (name) {
      o->overload = dot + 1;
      o->name = name;
    }
  }
  return TABI_OK;
}

static int32_t pf_is_active(void *ctx) { return atomic_load(&((pf_state *)ctx)->active); }

static tabi_status pf_push_range(void *ctx, const char *name) {
  pf_state *st = ctx;
  if (!name)
    return TABI_ERR(st->h, TABI_ERR_INVALID_ARGUMENT, "tabi.profiler push_range: NULL name");
  pf_thread *th = pf_thread_get(st, 0);
  if (!th || !th->enabled) return TABI_OK;
  char *copy = pf_strdup(th, name, strlen(name));
  int64_t idx = copy ? pf_open(th, TABI_PROFILER_EVENT_RANGE, copy, -1, 0) : -1;
  if (idx < 0)
    return TABI_ERR(st->h, TABI_ERR_OUT_OF_MEMORY, "tabi.profiler push_range: out of memory");
  return TABI_OK;
}

static tabi_status pf_pop_range(void *ctx) {
  pf_state *st = ctx;
  pf_thread *th = pf_thread_get(st, 0);
  if (!th || !th->enabled) return TABI_OK;
  if (th->depth == 0 || th->ev[th->stack[th->depth - 1]].kind != TABI_PROFILER_EVENT_RANGE)
    return TABI_ERR(st->h, TABI_ERR_INVALID_ARGUMENT,
                    "tabi.profiler pop_range: no range is open on this thread");
  pf_close(th, th->stack[th->depth - 1]);
  return TABI_OK;
}

static int64_t pf_event_count(void *ctx) {
  pf_state *st = ctx;
  return atomic_load(&st->active) ? 0 : st->nout;
}

static tabi_status pf_event_get(void *ctx, int64_t index, tabi_profiler_event *out) {
  pf_state *st = ctx;
  if (!out)
    return TABI_ERR(st->h, TABI_ERR_INVALID_ARGUMENT, "tabi.profiler event_get: NULL out_event");
  if (atomic_load(&st->active))
    return TABI_ERR(st->h, TABI_ERR_UNAVAILABLE, "tabi.profiler event_get: a session is running");
  if (index < 0 || index >= st->nout)
    return TABI_ERR(st->h, TABI_ERR_INVALID_ARGUMENT,
                    "tabi.profiler event_get: index %lld out of range [0, %lld)",
                    (long long)index, (long long)st->nout);
  uint32_t size = out->struct_size && out->struct_size < sizeof *out ? out->struct_size
                                                                        : (uint32_t)sizeof *out;
  memcpy(out, &st->out[index], size);
  out->struct_size = size;
  return TABI_OK;
}

static int64_t pf_memory_event_count(void *ctx) {
  pf_state *st = ctx;
  return atomic_load(&st->active) ? 0 : st->noutmem;
}

static tabi_status pf_memory_event_get(void *ctx, int64_t index,
                                       tabi_profiler_memory_event *out) {
  pf_state *st = ctx;
  if (!out || atomic_load(&st->active) || index < 0 || index >= st->noutmem)
    return TABI_ERR(st->h, TABI_ERR_INVALID_ARGUMENT,
                    "tabi.profiler memory_event_get: index %lld out of range [0, %lld) or a "
                    "session is running", (long long)index, (long long)st->noutmem);
  uint32_t size = out->struct_size && out->struct_size < sizeof *out ? out->struct_size
                                                                        : (uint32_t)sizeof *out;
  memcpy(out, &st->outmem[index], size);
  out->struct_size = size;
  return TABI_OK;
}

void pf_ext_fill(pf_state *st) {
  tabi_profiler_api *e = &st->ext;
  e->struct_size = sizeof *e;
  e->version = TABI_PROFILER_VERSION;
  e->ctx = st;
  e->start = pf_start;
  e->stop = pf_stop;
  e->is_active = pf_is_active;
  e->set_thread_enabled = pf_set_thread_enabled;
  e->push_range = pf_push_range;
  e->pop_range = pf_pop_range;
  e->table = pf_table;
  e->free_string = pf_free_string;
  e->export_chrome_trace = pf_export_chrome_trace;
  e->event_count = pf_event_count;
  e->event_get = pf_event_get;
  e->memory_event_count = pf_memory_event_count;
  e->memory_event_get = pf_memory_event_get;
}
