/* pf_record.c: the hot path: the profiler layer's boxed fallback, event
 * open/close with self/total accounting, shapes, and the memory hook.
 *
 * Only threads taking part in a session have the layer's key enabled, so this
 * code runs only while profiling. It takes no lock: each thread writes its own
 * pf_thread.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pf.h"

int64_t pf_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- per-thread records ------------------------------------------------------- */

void pf_thread_free(pf_thread *th) {
  if (!th) return;
  for (pf_chunk *c = th->arena, *n; c; c = n) {
    n = c->next;
    free(c);
  }
  free(th->ev);
  free(th->mem);
  free(th->stack);
  free(th);
}

/* This thread's record of the running session; with create, made (and listed in
 * the session) when the thread has none yet. NULL when no session runs. */
pf_thread *pf_thread_get(pf_state *st, int32_t create) {
  if (!st->tls_ok) return NULL;
  uint64_t session = atomic_load_explicit(&st->session, memory_order_acquire);
  /* Compare the session first: a record of an earlier session has been freed. */
  pf_thread *th = NULL;
  if ((uint64_t)(uintptr_t)pthread_getspecific(st->tls_session) == session)
    th = pthread_getspecific(st->tls);
  if (th) return th;
  if (!create || !atomic_load_explicit(&st->active, memory_order_acquire)) return NULL;
  th = calloc(1, sizeof *th);
  if (!th) return NULL;
  th->st = st;
  pthread_mutex_lock(&st->mu);
  if (!atomic_load(&st->active) || atomic_load(&st->session) != session) {
    pthread_mutex_unlock(&st->mu);
    free(th);
    return NULL;
  }
  th->session = session;
  th->index = st->nthreads++;
  /* Appended at the tail so thread 0 (the starter) stays first. */
  pf_thread **p = &st->threads;
  while (*p) p = &(*p)->next;
  *p = th;
  pthread_mutex_unlock(&st->mu);
  pthread_setspecific(st->tls, th);
  pthread_setspecific(st->tls_session, (void *)(uintptr_t)session);
  return th;
}

char *pf_strdup(pf_thread *th, const char *s, size_t n) {
  pf_chunk *c = th->arena;
  if (!c || c->cap - c->used < n + 1) {
    size_t cap = n + 1 > 65536 ? n + 1 : 65536;
    pf_chunk *nc = malloc(sizeof *nc + cap);
    if (!nc) return NULL;
    nc->next = th->arena;
    nc->used = 0;
    nc->cap = cap;
    th->arena = c = nc;
  }
  char *d = c->data + c->used;
  memcpy(d, s, n);
  d[n] = 0;
  c->used += n + 1;
  return d;
}

/* Opens an event and makes it the innermost; -1 when out of memory (the call
 * still runs, unrecorded). */
int64_t pf_open(pf_thread *th, int32_t kind, const char *name, int32_t op, int32_t device_type) {
  if (th->nev == th->capev) {
    int64_t cap = th->capev ? th->capev * 2 : 4096;
    pf_ev *n = realloc(th->ev, sizeof *n * (size_t)cap);
    if (!n) return -1;
    th->ev = n;
    th->capev = cap;
  }
  if (th->depth == th->capstack) {
    int32_t cap = th->capstack ? th->capstack * 2 : 64;
    int64_t *n = realloc(th->stack, sizeof *n * (size_t)cap);
    if (!n) return -1;
    th->stack = n;
    th->capstack = cap;
  }
  int64_t idx = th->nev++;
  pf_ev *e = &th->ev[idx];
  memset(e, 0, sizeof *e);
  e->name = name;
  e->shapes = "";
  e->dtypes = "";
  e->kind = kind;
  e->op = op;
  e->device_type = device_type;
  e->depth = th->depth;
  e->parent = th->depth ? th->stack[th->depth - 1] : -1;
  e->device_ns = -1;
  th->stack[th->depth++] = idx;
  e->start_ns = pf_now_ns() - th->st->t0_ns;
  return idx;
}

void pf_close(pf_thread *th, int64_t idx) {
  int64_t end = pf_now_ns() - th->st->t0_ns;
  pf_ev *e = &th->ev[idx];
  e->end_ns = end;
  th->depth--;
  e->mem += e->alloc - e->freed;
  if (e->parent >= 0) {
    pf_ev *p = &th->ev[e->parent];
    p->child_ns += end - e->start_ns;
    p->mem += e->mem;
  }
}

/* ---- shapes and dtypes ------------------------------------------------------------- */

/* A fixed buffer written left to right; `full` once something did not fit (the
 * event then keeps no shapes rather than truncated ones). Hand-rolled because
 * this runs on every profiled call and printf costs more than the op. */
typedef struct sbuf {
  char p[1024];
  size_t n;
  int full;
} sbuf;

static void put(sbuf *b, const char *s) {
  size_t k = strlen(s);
  if (b->n + k >= sizeof b->p) {
    b->full = 1;
    return;
  }
  memcpy(b->p + b->n, s, k);
  b->n += k;
}

static void put_int(sbuf *b, int64_t v) {
  char t[24];
  int i = 23;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  t[i] = 0;
  do {
    t[--i] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) t[--i] = '-';
  put(b, t + i);
}

static void put_shape(sbuf *b, const tabi_tensor *t) {
  put(b, "[");
  for (int32_t d = 0; t && d < t->dl.ndim; d++) {
    if (d) put(b, ", ");
    put_int(b, t->dl.shape[d]);
  }
  put(b, "]");
}

static const char *tag_type(int32_t tag) {
  switch (tag) {
    case TABI_TAG_BOOL: return "bool";
    case TABI_TAG_INT: return "int";
    case TABI_TAG_FLOAT: return "float";
    case TABI_TAG_COMPLEX: return "complex";
    case TABI_TAG_INT_LIST: return "int[]";
    case TABI_TAG_FLOAT_LIST: return "float[]";
    case TABI_TAG_BOOL_LIST: return "bool[]";
    case TABI_TAG_DTYPE: return "ScalarType";
    case TABI_TAG_DEVICE: return "Device";
    case TABI_TAG_STRING: return "str";
    default: return "None";
  }
}

/* "[[2, 3], [3], []]" and "[\"float32\", \"float32\", \"Scalar\"]": JSON both, so
 * the trace writes them as they are. */
static void record_shapes(pf_thread *th, pf_ev *e, const tabi_value *args, int32_t n) {
  sbuf s, d;
  s.n = d.n = 0;
  s.full = d.full = 0;
  put(&s, "[");
  put(&d, "[");
  for (int32_t i = 0; i < n; i++) {
    const tabi_value *v = &args[i];
    if (i) {
      put(&s, ", ");
      put(&d, ", ");
    }
    if (v->tag == TABI_TAG_TENSOR) {
      put_shape(&s, v->u.t);
      put(&d, "\"");
      put(&d, tabi_dtype_name(tabi_tensor_dtype(v->u.t)));
      put(&d, "\"");
    } else if (v->tag == TABI_TAG_TENSOR_LIST) {
      tabi_tensor *const *ts = tabi_value_tensors(v);
      put(&s, "[");
      for (int64_t k = 0; k < v->u.list.len; k++) {
        if (k) put(&s, ", ");
        put_shape(&s, ts[k]);
      }
      put(&s, "]");
      put(&d, "\"TensorList\"");
    } else {
      put(&s, "[]");
      put(&d, "\"");
      put(&d, tag_type(v->tag));
      put(&d, "\"");
    }
  }
  put(&s, "]");
  put(&d, "]");
  if (!s.full) {
    char *c = pf_strdup(th, s.p, s.n);
    if (c) e->shapes = c;
  }
  if (!d.full) {
    char *c = pf_strdup(th, d.p, d.n);
    if (c) e->dtypes = c;
  }
}

/* ---- device time ------------------------------------------------------------------ */

static void device_begin(pf_state *st, pf_ev *e, const tabi_value *args, int32_t n) {
  const tabi_device_api *dev = NULL;
  if (e->device_type == kDLCPU) return;
  if (st->h->device_get(st->h->ctx, e->device_type, &dev) != TABI_OK || !dev) return;
  if (!dev->event_create || !dev->event_record || !dev->event_elapsed_ms || !dev->event_destroy)
    return;
  int32_t index = 0;
  for (int32_t i = 0; i < n; i++)
    if (args[i].tag == TABI_TAG_TENSOR && args[i].u.t &&
        (int32_t)args[i].u.t->dl.device.device_type == e->device_type) {
      index = args[i].u.t->dl.device.device_id;
      break;
    }
  if (dev->event_create(dev->ctx, index, &e->ev0) != TABI_OK) return;
  if (dev->event_create(dev->ctx, index, &e->ev1) != TABI_OK) {
    dev->event_destroy(dev->ctx, index, e->ev0);
    e->ev0 = NULL;
    return;
  }
  e->dev = dev;
  e->dev_index = index;
  dev->event_record(dev->ctx, index, e->ev0, NULL);
}

/* ---- the fallback ------------------------------------------------------------------- */

tabi_status pf_kernel(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  pf_state *st = ctx;
  const tabi_host_api *h = st->h;
  pf_thread *th = pf_thread_get(st, 1);
  if (!th || !th->enabled) return h->redispatch(h->ctx, call, args, outs);
  const tabi_op_info *info = h->op_info(h->ctx, call->op);
  uint64_t backends = call->keys & ((UINT64_C(1) << TABI_KEY_BACKEND_BITS) - 1);
  int32_t dt = backends ? __builtin_ctzll(backends) + 1 : kDLCPU;
  int64_t idx = pf_open(th, TABI_PROFILER_EVENT_OP, info ? info->name : "?", call->op, dt);
  if (idx < 0) return h->redispatch(h->ctx, call, args, outs);
  if (st->flags & TABI_PROFILER_RECORD_SHAPES) {
    /* Shapes are taken before the clock starts counting the op's own time. */
    record_shapes(th, &th->ev[idx], args, call->nargs);
    th->ev[idx].start_ns = pf_now_ns() - st->t0_ns;
  }
  if (st->flags & TABI_PROFILER_DEVICE_TIME) device_begin(st, &th->ev[idx], args, call->nargs);
  tabi_status s = h->redispatch(h->ctx, call, args, outs);
  pf_ev *e = &th->ev[idx]; /* the array may have moved during the call */
  if (e->dev) e->dev->event_record(e->dev->ctx, e->dev_index, e->ev1, NULL);
  pf_close(th, idx);
  return s;
}

/* ---- memory ----------------------------------------------------------------------- */

void pf_memory_hook(void *user, DLDevice device, int64_t nbytes) {
  pf_state *st = user;
  int32_t dt = (int32_t)device.device_type;
  if (dt < 1 || dt > PF_MAX_DEVICE_TYPE) dt = 0;
  int64_t total = atomic_fetch_add(&st->mem_total[dt], nbytes) + nbytes;
  pf_thread *th = pf_thread_get(st, 0);
  if (!th || !th->enabled) return;
  int64_t ev = -1;
  /* Attributed to the innermost open event (an op, or a range when no op runs). */
  if (th->depth > 0) {
    ev = th->stack[th->depth - 1];
    if (nbytes > 0) th->ev[ev].alloc += nbytes;
    else th->ev[ev].freed += -nbytes;
  }
  if (th->nmem == th->capmem) {
    int64_t cap = th->capmem ? th->capmem * 2 : 4096;
    pf_mem *n = realloc(th->mem, sizeof *n * (size_t)cap);
    if (!n) return;
    th->mem = n;
    th->capmem = cap;
  }
  pf_mem *m = &th->mem[th->nmem++];
  m->ts_ns = pf_now_ns() - st->t0_ns;
  m->nbytes = nbytes;
  m->total = total;
  m->ev = ev;
  m->device_type = (int32_t)device.device_type;
  m->device_id = device.device_id;
}
