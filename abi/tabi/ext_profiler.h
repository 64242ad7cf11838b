/* tabi/ext_profiler.h: the "tabi.profiler" extension, version 1.
 *
 * The profiler plugin (libtabi_profiler.so) declares the "profiler" layer
 * (TABI_PRIORITY_PROFILER, above every other layer) with a boxed fallback that
 * records every op call, nested calls included (a decomposition's calls, the
 * casts autocast makes, autograd's backward calls). The layer's key is enabled
 * only on threads taking part in a session, so with no session it costs nothing.
 *
 *   const tabi_profiler_api *pf;
 *   tabi_runtime_extension(rt, TABI_PROFILER_EXTENSION, TABI_PROFILER_VERSION,
 *                          (const void **)&pf);
 *   tabi_profiler_options o = {sizeof o, TABI_PROFILER_RECORD_SHAPES | TABI_PROFILER_MEMORY};
 *   pf->start(pf->ctx, &o);
 *   pf->push_range(pf->ctx, "step");  ... calls ...  pf->pop_range(pf->ctx);
 *   pf->stop(pf->ctx);
 *   char *text; pf->table(pf->ctx, "self_cpu_time_total", 10, 0, &text);
 *   puts(text); pf->free_string(pf->ctx, text);
 *   pf->export_chrome_trace(pf->ctx, "trace.json");   (opens in Perfetto)
 *
 * What an event holds: the op's name and overload, input shapes and dtypes (with
 * RECORD_SHAPES), wall time (CLOCK_MONOTONIC), device time (through the device
 * table's events, for devices that have them), self time (total minus direct
 * children), the memory allocated and freed while it was the innermost running op
 * on its thread (with MEMORY; from the allocator's hooks), and its parent.
 *
 * Lifetime: the events of the last session stay readable (event_get, table,
 * export_chrome_trace) from stop until the next start or the plugin's unload;
 * strings in a tabi_profiler_event live as long.
 *
 * Threading: start/stop make one session per runtime (ALREADY_EXISTS for a second
 * start). The thread calling start takes part; other threads join with
 * set_thread_enabled(1) and must leave (or finish their calls) before stop.
 * Ranges are per thread. Reading functions must not overlap a running session.
 *
 * Errors: TABI_ERR_INVALID_ARGUMENT (NULL, bad sort key, pop without push,
 * index out of range), TABI_ERR_ALREADY_EXISTS (start during a session),
 * TABI_ERR_UNAVAILABLE (stop or a read with no session / during one),
 * TABI_ERR_DEVICE (cannot write the trace file), TABI_ERR_OUT_OF_MEMORY.
 */
#ifndef TABI_EXT_PROFILER_H
#define TABI_EXT_PROFILER_H

#include <stdint.h>

#include "status.h"

#define TABI_PROFILER_EXTENSION "tabi.profiler"
#define TABI_PROFILER_VERSION 1u

/* tabi_profiler_options.flags */
#define TABI_PROFILER_RECORD_SHAPES 0x1u /* input shapes and dtypes of every call */
#define TABI_PROFILER_MEMORY        0x2u /* memory allocated/freed, memory counters */
#define TABI_PROFILER_DEVICE_TIME   0x4u /* device events around calls on devices with events */

typedef struct tabi_profiler_options {
  uint32_t struct_size;
  uint32_t flags; /* TABI_PROFILER_* */
} tabi_profiler_options;

/* tabi_profiler_event.kind */
#define TABI_PROFILER_EVENT_OP    1 /* an op call */
#define TABI_PROFILER_EVENT_RANGE 2 /* a user range (push_range/pop_range) */

typedef struct tabi_profiler_event {
  uint32_t struct_size;
  int32_t kind;            /* TABI_PROFILER_EVENT_* */
  const char *name;        /* "aten::add" (or the range's name) */
  const char *overload;    /* "Tensor"; "" for the default overload and ranges */
  const char *shapes;      /* "[[2, 3], [3]]" ("[]" for a non-tensor argument); "" without RECORD_SHAPES */
  const char *dtypes;      /* "[float32, float32]"; "" without RECORD_SHAPES */
  int64_t start_ns;        /* from the session's start */
  int64_t end_ns;
  int64_t self_ns;         /* end - start minus the direct children's durations */
  int64_t device_ns;       /* device time between events around the call; -1 if none */
  int64_t alloc_bytes;     /* allocated while this was the innermost op (self) */
  int64_t free_bytes;      /* freed while this was the innermost op (self, positive) */
  int64_t mem_bytes;       /* net (alloc - free) including children */
  int64_t parent;          /* index of the enclosing event, -1 at top level */
  int32_t depth;           /* 0 at top level */
  int32_t thread;          /* 0 for the thread that started the session, 1, 2, ... */
  int32_t device_type;     /* DLDeviceType of the call; 0 for ranges */
  int32_t op;              /* tabi_op handle; -1 for ranges */
} tabi_profiler_event;

typedef struct tabi_profiler_memory_event {
  uint32_t struct_size;
  int32_t device_type;
  int32_t device_id;
  int32_t thread;
  int64_t ts_ns;           /* from the session's start */
  int64_t nbytes;          /* > 0 allocated, < 0 freed */
  int64_t total_bytes;     /* net bytes allocated on the device since the session started */
  int64_t event;           /* the op event it is attributed to, -1 when none ran */
} tabi_profiler_memory_event;

typedef struct tabi_profiler_api {
  uint32_t struct_size;
  uint32_t version; /* TABI_PROFILER_VERSION */
  void *ctx;        /* pass as the first argument of every function below */

  /* Starts a session; options may be NULL (RECORD_SHAPES | MEMORY). The calling
   * thread takes part. Drops the previous session's events. */
  tabi_status (*start)(void *ctx, const tabi_profiler_options *options);
  /* Ends the session: the calling thread stops recording, device times are
   * collected (synchronizing the devices' events), events become readable. */
  tabi_status (*stop)(void *ctx);
  /* 1 while a session is running. */
  int32_t (*is_active)(void *ctx);
  /* Joins (1) or leaves (0) the running session from this thread; returns the
   * previous value, or -1 (error set) with no session when joining. */
  int32_t (*set_thread_enabled)(void *ctx, int32_t enabled);
  /* A user range on this thread: calls in between become its children. The name
   * is copied. Outside a session both are no-ops returning TABI_OK. */
  tabi_status (*push_range)(void *ctx, const char *name);
  tabi_status (*pop_range)(void *ctx);

  /* A table like PyTorch's key_averages().table(): one row per op name (and per
   * input shapes with group_by_shapes), columns Name, Self CPU %, Self CPU,
   * CPU total %, CPU total, CPU time avg, [Self Device, Device total], CPU Mem,
   * Self CPU Mem, # of Calls, [Input Shapes]. sort_by: "self_cpu_time_total"
   * (NULL), "cpu_time_total", "cpu_time" (avg), "self_device_time_total",
   * "device_time_total", "cpu_memory_usage", "self_cpu_memory_usage", "count",
   * "name"; descending except "name". row_limit <= 0: all rows. *out_text is
   * malloc'd: release it with free_string. */
  tabi_status (*table)(void *ctx, const char *sort_by, int32_t row_limit,
                       int32_t group_by_shapes, char **out_text);
  void (*free_string)(void *ctx, char *text);
  /* Writes the session as Chrome trace JSON (traceEvents: "X" events with
   * ts/dur in microseconds and args with shapes and dtypes, "C" memory counter
   * events), which chrome://tracing and Perfetto open. */
  tabi_status (*export_chrome_trace)(void *ctx, const char *path);

  /* The last session's events, ordered by (thread, start). */
  int64_t (*event_count)(void *ctx);
  tabi_status (*event_get)(void *ctx, int64_t index, tabi_profiler_event *out_event);
  int64_t (*memory_event_count)(void *ctx);
  tabi_status (*memory_event_get)(void *ctx, int64_t index,
                                  tabi_profiler_memory_event *out_event);
} tabi_profiler_api;

#endif /* TABI_EXT_PROFILER_H */
