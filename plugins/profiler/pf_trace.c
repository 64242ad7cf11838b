/* pf_trace.c: the last session as Chrome trace JSON (the "JSON Object Format"
 * of the Trace Event Format, which chrome://tracing and Perfetto open).
 *
 * Ops and ranges are complete events (ph "X", ts/dur in microseconds), one track
 * per thread (tid = thread + 1, named by "M" metadata events); memory samples are
 * counter events (ph "C") per device with the net bytes allocated since start.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pf.h"

static void write_event(pf_buf *b, const tabi_profiler_event *e, int pid, int first) {
  pf_buf_printf(b, "%s\n  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": ", first ? "" : ",",
                e->kind == TABI_PROFILER_EVENT_OP ? "cpu_op" : "user_annotation");
  if (e->overload[0]) {
    char full[256];
    snprintf(full, sizeof full, "%s.%s", e->name, e->overload);
    pf_buf_json_str(b, full);
  } else {
    pf_buf_json_str(b, e->name);
  }
  pf_buf_printf(b, ", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"dur\": %.3f, \"args\": {", pid,
                e->thread + 1, (double)e->start_ns / 1000.0,
                (double)(e->end_ns - e->start_ns) / 1000.0);
  pf_buf_printf(b, "\"Self CPU (us)\": %.3f", (double)e->self_ns / 1000.0);
  /* shapes and dtypes are stored as JSON arrays already. */
  if (e->shapes[0]) pf_buf_printf(b, ", \"Input Dims\": %s", e->shapes);
  if (e->dtypes[0]) pf_buf_printf(b, ", \"Input type\": %s", e->dtypes);
  if (e->device_ns >= 0) pf_buf_printf(b, ", \"Device (us)\": %.3f", (double)e->device_ns / 1000.0);
  if (e->alloc_bytes || e->free_bytes)
    pf_buf_printf(b, ", \"Allocated (bytes)\": %lld, \"Freed (bytes)\": %lld",
                  (long long)e->alloc_bytes, (long long)e->free_bytes);
  pf_buf_printf(b, "}}");
}

tabi_status pf_export_chrome_trace(void *ctx, const char *path) {
  pf_state *st = ctx;
  const tabi_host_api *h = st->h;
  if (!path)
    return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "tabi.profiler export_chrome_trace: NULL path");
  if (atomic_load(&st->active))
    return TABI_ERR(h, TABI_ERR_UNAVAILABLE,
                    "tabi.profiler export_chrome_trace: a session is running");
  int pid = (int)getpid();
  pf_buf b = {NULL, 0, 0, 0};
  pf_buf_printf(&b, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [");
  int first = 1;
  for (int32_t t = 0; t < st->nthreads; t++) {
    pf_buf_printf(&b, "%s\n  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %d, \"tid\": %d, "
                  "\"args\": {\"name\": \"tabi thread %d\"}}", first ? "" : ",", pid, t + 1, t);
    first = 0;
  }
  for (int64_t i = 0; i < st->nout; i++) {
    write_event(&b, &st->out[i], pid, first);
    first = 0;
  }
  for (int64_t i = 0; i < st->noutmem; i++) {
    const tabi_profiler_memory_event *m = &st->outmem[i];
    pf_buf_printf(&b, "%s\n  {\"ph\": \"C\", \"name\": \"Memory (device type %d:%d)\", \"pid\": %d, "
                  "\"tid\": %d, \"ts\": %.3f, \"args\": {\"Total Allocated\": %lld}}",
                  first ? "" : ",", (int)m->device_type, (int)m->device_id, pid, m->thread + 1,
                  (double)m->ts_ns / 1000.0, (long long)m->total_bytes);
    first = 0;
  }
  pf_buf_printf(&b, "\n]}\n");
  if (b.oom || !b.p) {
    free(b.p);
    return TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "tabi.profiler export_chrome_trace: out of memory");
  }
  FILE *f = fopen(path, "w");
  if (!f) {
    free(b.p);
    return TABI_ERR(h, TABI_ERR_DEVICE, "tabi.profiler export_chrome_trace: cannot open '%s'",
                    path);
  }
  size_t w = fwrite(b.p, 1, b.n, f);
  int closed = fclose(f);
  free(b.p);
  if (w != b.n || closed != 0)
    return TABI_ERR(h, TABI_ERR_DEVICE, "tabi.profiler export_chrome_trace: writing '%s' failed",
                    path);
  return TABI_OK;
}
