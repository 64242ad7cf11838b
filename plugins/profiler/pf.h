/* plugins/profiler/pf.h: what the parts of the profiler plugin share.
 *
 * One pf_state per runtime the plugin is loaded into (no globals). A session
 * owns one pf_thread per thread taking part; a thread writes only its own
 * pf_thread (events, memory samples, the stack of open events), so the hot path
 * takes no lock. The memory hook runs on the allocating thread and so also
 * touches only that thread's pf_thread. stop() merges the threads' records into
 * the public tabi_profiler_event array the readers use.
 */
#ifndef TABI_PF_H
#define TABI_PF_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <tabi/tabi.h>
#include <tabi/ext_profiler.h>

#define PF_MAX_DEVICE_TYPE 16

/* Bump allocator for the strings of one thread's events. */
typedef struct pf_chunk {
  struct pf_chunk *next;
  size_t used, cap;
  char data[];
} pf_chunk;

typedef struct pf_ev {
  const char *name;      /* "aten::add.Tensor" (op_info's, lives with the runtime) or a range's copy */
  const char *shapes;    /* arena string or "" */
  const char *dtypes;
  int32_t kind;          /* TABI_PROFILER_EVENT_* */
  int32_t op;
  int32_t device_type;
  int32_t depth;
  int64_t parent;        /* local index, -1 at top */
  int64_t start_ns, end_ns, child_ns;
  int64_t alloc, freed, mem;
  /* device events (DEVICE_TIME), destroyed at stop */
  const tabi_device_api *dev;
  int32_t dev_index;
  tabi_event ev0, ev1;
  int64_t device_ns;
} pf_ev;

typedef struct pf_mem {
  int64_t ts_ns, nbytes, total, ev;
  int32_t device_type, device_id;
} pf_mem;

typedef struct pf_thread {
  struct pf_state *st;
  uint64_t session;
  int32_t index;         /* 0 for the thread that started the session */
  int32_t enabled;       /* taking part now */
  pf_ev *ev;
  int64_t nev, capev;
  pf_mem *mem;
  int64_t nmem, capmem;
  int64_t *stack;
  int32_t depth, capstack;
  pf_chunk *arena;
  struct pf_thread *next; /* the session's list */
} pf_thread;

typedef struct pf_state {
  const tabi_host_api *h;
  uint64_t key;
  pthread_key_t tls;       /* -> pf_thread of the current session (or stale) */
  pthread_key_t tls_session; /* the session that thread's pf_thread belongs to: a
                                stale pointer (freed at the next start) is never
                                dereferenced, only its session number compared */
  int32_t tls_ok;
  pthread_mutex_t mu;      /* session start/stop, the thread list */
  atomic_int active;
  _Atomic uint64_t session;
  uint32_t flags;
  int64_t t0_ns;
  pf_thread *threads;
  int32_t nthreads;
  int32_t hook_id, hook_on;
  _Atomic int64_t mem_total[PF_MAX_DEVICE_TYPE + 1];
  /* The last session, merged at stop. */
  tabi_profiler_event *out;
  int64_t nout;
  tabi_profiler_memory_event *outmem;
  int64_t noutmem;
  int32_t have_device_time;
  tabi_profiler_api ext;
} pf_state;

/* pf_record.c */
int64_t pf_now_ns(void);
tabi_status pf_kernel(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
void pf_memory_hook(void *user, DLDevice device, int64_t nbytes);
pf_thread *pf_thread_get(pf_state *st, int32_t create);
void pf_thread_free(pf_thread *th);
int64_t pf_open(pf_thread *th, int32_t kind, const char *name, int32_t op, int32_t device_type);
void pf_close(pf_thread *th, int64_t idx);
char *pf_strdup(pf_thread *th, const char *s, size_t n);

/* pf_session.c: start/stop, ranges, event access, the extension table. */
void pf_ext_fill(pf_state *st);
void pf_session_clear(pf_state *st);

/* pf_table.c */
tabi_status pf_table(void *ctx, const char *sort_by, int32_t row_limit, int32_t group_by_shapes,
                     char **out_text);
void pf_free_string(void *ctx, char *text);

/* pf_trace.c */
tabi_status pf_export_chrome_trace(void *ctx, const char *path);

/* A growable text buffer (table, trace). */
typedef struct pf_buf {
  char *p;
  size_t n, cap;
  int32_t oom;
} pf_buf;
void pf_buf_printf(pf_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pf_buf_json_str(pf_buf *b, const char *s);

#endif /* TABI_PF_H */
