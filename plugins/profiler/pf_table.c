/* pf_table.c: the key_averages().table() of the last session.
 *
 * Rows aggregate events by name (and overload), and by input shapes when asked.
 * Column meanings follow PyTorch: percentages are of the sum of every event's
 * self time; "CPU Mem" is net memory including children, "Self CPU Mem" without.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pf.h"

typedef struct pf_row {
  char key[160];            /* name[.overload] */
  const char *shapes;
  int64_t calls, self_ns, total_ns, self_dev_ns, dev_ns, mem, self_mem;
} pf_row;

static void fmt_time(char *b, size_t n, int64_t ns) {
  double us = (double)ns / 1000.0;
  if (us >= 1e6) snprintf(b, n, "%.3fs", us / 1e6);
  else if (us >= 1e3) snprintf(b, n, "%.3fms", us / 1e3);
  else snprintf(b, n, "%.3fus", us);
}

static void fmt_mem(char *b, size_t n, int64_t bytes) {
  const double KB = 1024.0, MB = KB * 1024, GB = MB * 1024;
  double a = (double)(bytes < 0 ? -bytes : bytes);
  if (a >= GB) snprintf(b, n, "%.2f Gb", (double)bytes / GB);
  else if (a >= MB) snprintf(b, n, "%.2f Mb", (double)bytes / MB);
  else if (a >= KB) snprintf(b, n, "%.2f Kb", (double)bytes / KB);
  else snprintf(b, n, "%lld b", (long long)bytes);
}

static void fmt_pct(char *b, size_t n, int64_t part, int64_t whole) {
  snprintf(b, n, "%.2f%%", whole > 0 ? 100.0 * (double)part / (double)whole : 0.0);
}

static int64_t sort_val(const pf_row *r, int sc) {
  switch (sc) {
    case 1: return r->total_ns;
    case 2: return r->calls ? r->total_ns / r->calls : 0;
    case 3: return r->self_dev_ns;
    case 4: return r->dev_ns;
    case 5: return r->mem;
    case 6: return r->self_mem;
    case 7: return r->calls;
    default: return r->self_ns;
  }
}

static int row_cmp(const pf_row *x, const pf_row *y, int sc) {
  if (sc == 8) return strcmp(x->key, y->key);
  int64_t u = sort_val(x, sc), v = sort_val(y, sc);
  if (u != v) return u > v ? -1 : 1;
  return strcmp(x->key, y->key);
}

/* Insertion sort: rows are few (one per op name), and qsort has no context
 * argument for the sort key without global state. */
static void sort_rows(pf_row *rows, int64_t n, int sc) {
  for (int64_t i = 1; i < n; i++) {
    pf_row r = rows[i];
    int64_t j = i;
    while (j > 0 && row_cmp(&rows[j - 1], &r, sc) > 0) {
      rows[j] = rows[j - 1];
      j--;
    }
    rows[j] = r;
  }
}

static int sort_code(const char *s) {
  static const char *const names[] = {
      "self_cpu_time_total", "cpu_time_total", "cpu_time", "self_device_time_total",
      "device_time_total", "cpu_memory_usage", "self_cpu_memory_usage", "count", "name"};
  if (!s || !*s) return 0;
  for (int i = 0; i < 9; i++)
    if (!strcmp(s, names[i])) return i;
  /* PyTorch's CUDA spellings. */
  if (!strcmp(s, "self_cuda_time_total")) return 3;
  if (!strcmp(s, "cuda_time_total")) return 4;
  return -1;
}

static void pad(pf_buf *b, const char *s, int w, int left) {
  int n = (int)strlen(s);
  if (n > w) {
    /* Truncated as PyTorch does, with "..." */
    pf_buf_printf(b, "%.*s...  ", w - 3, s);
    return;
  }
  if (left) pf_buf_printf(b, "%s%*s  ", s, w - n, "");
  else pf_buf_printf(b, "%*s%s  ", w - n, "", s);
}

static void line(pf_buf *b, int width) {
  for (int i = 0; i < width; i++) pf_buf_printf(b, "-");
  pf_buf_printf(b, "\n");
}

tabi_status pf_table(void *ctx, const char *sort_by, int32_t row_limit, int32_t group_by_shapes,
                     char **out_text) {
  pf_state *st = ctx;
  const tabi_host_api *h = st->h;
  if (!out_text)
    return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "tabi.profiler table: NULL out_text");
  *out_text = NULL;
  if (atomic_load(&st->active))
    return TABI_ERR(h, TABI_ERR_UNAVAILABLE, "tabi.profiler table: a session is running");
  int sc = sort_code(sort_by);
  if (sc < 0)
    return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                    "tabi.profiler table: sort_by \"%s\" is not one of self_cpu_time_total, "
                    "cpu_time_total, cpu_time, self_device_time_total, device_time_total, "
                    "cpu_memory_usage, self_cpu_memory_usage, count, name", sort_by);
  pf_row *rows = calloc((size_t)(st->nout ? st->nout : 1), sizeof *rows);
  if (!rows) return TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "tabi.profiler table: out of memory");
  int64_t nrows = 0, sum_self = 0;
  for (int64_t i = 0; i < st->nout; i++) {
    const tabi_profiler_event *e = &st->out[i];
    char key[160];
    if (e->overload[0]) snprintf(key, sizeof key, "%s.%s", e->name, e->overload);
    else snprintf(key, sizeof key, "%s", e->name);
    /* Device time of the event's own kernels: its device time minus its direct
     * children's (the events nest on the device stream as on the host). */
    int64_t self_dev = e->device_ns;
    pf_row *r = NULL;
    for (int64_t k = 0; k < nrows && !r; k++)
      if (!strcmp(rows[k].key, key) && (!group_by_shapes || !strcmp(rows[k].shapes, e->shapes)))
        r = &rows[k];
    if (!r) {
      r = &rows[nrows++];
      snprintf(r->key, sizeof r->key, "%s", key);
      r->shapes = e->shapes;
    }
    r->calls++;
    r->self_ns += e->self_ns;
    r->total_ns += e->end_ns - e->start_ns;
    if (e->device_ns >= 0) r->dev_ns += e->device_ns;
    if (self_dev > 0) r->self_dev_ns += self_dev;
    r->mem += e->mem_bytes;
    r->self_mem += e->alloc_bytes - e->free_bytes;
    sum_self += e->self_ns;
  }
  for (int64_t i = 0; i < st->nout; i++) {
    const tabi_profiler_event *e = &st->out[i];
    if (e->parent < 0 || e->device_ns < 0) continue;
    /* Subtract each child's device time from its parent's row (self device). */
    const tabi_profiler_event *p = &st->out[e->parent];
    char key[160];
    if (p->overload[0]) snprintf(key, sizeof key, "%s.%s", p->name, p->overload);
    else snprintf(key, sizeof key, "%s", p->name);
    for (int64_t k = 0; k < nrows; k++)
      if (!strcmp(rows[k].key, key) && (!group_by_shapes || !strcmp(rows[k].shapes, p->shapes))) {
        rows[k].self_dev_ns -= e->device_ns;
        break;
      }
  }
  sort_rows(rows, nrows, sc);
  if (row_limit > 0 && nrows > row_limit) nrows = row_limit;

  int name_w = 10;
  for (int64_t k = 0; k < nrows; k++)
    if ((int)strlen(rows[k].key) > name_w) name_w = (int)strlen(rows[k].key);
  if (name_w > 55) name_w = 55;
  int shapes_w = 12;
  if (group_by_shapes)
    for (int64_t k = 0; k < nrows; k++)
      if ((int)strlen(rows[k].shapes) > shapes_w) shapes_w = (int)strlen(rows[k].shapes);
  if (shapes_w > 80) shapes_w = 80;
  int dev = st->have_device_time;
  int ncols = 9 + (dev ? 3 : 0);
  int width = name_w + 2 + ncols * 14 + (group_by_shapes ? shapes_w + 2 : 0);

  pf_buf b = {NULL, 0, 0, 0};
  line(&b, width);
  pad(&b, "Name", name_w, 1);
  const char *heads[] = {"Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"};
  for (int i = 0; i < 5; i++) pad(&b, heads[i], 12, 0);
  if (dev) {
    pad(&b, "Self Device", 12, 0);
    pad(&b, "Device total", 12, 0);
    pad(&b, "Device avg", 12, 0);
  }
  pad(&b, "CPU Mem", 12, 0);
  pad(&b, "Self CPU Mem", 12, 0);
  pad(&b, "# of Calls", 12, 0);
  if (group_by_shapes) pad(&b, "Input Shapes", shapes_w, 1);
  pf_buf_printf(&b, "\n");
  line(&b, width);
  for (int64_t k = 0; k < nrows; k++) {
    const pf_row *r = &rows[k];
    char c[64];
    pad(&b, r->key, name_w, 1);
    fmt_pct(c, sizeof c, r->self_ns, sum_self); pad(&b, c, 12, 0);
    fmt_time(c, sizeof c, r->self_ns); pad(&b, c, 12, 0);
    fmt_pct(c, sizeof c, r->total_ns, sum_self); pad(&b, c, 12, 0);
    fmt_time(c, sizeof c, r->total_ns); pad(&b, c, 12, 0);
    fmt_time(c, sizeof c, r->calls ? r->total_ns / r->calls : 0); pad(&b, c, 12, 0);
    if (dev) {
      fmt_time(c, sizeof c, r->self_dev_ns); pad(&b, c, 12, 0);
      fmt_time(c, sizeof c, r->dev_ns); pad(&b, c, 12, 0);
      fmt_time(c, sizeof c, r->calls ? r->dev_ns / r->calls : 0); pad(&b, c, 12, 0);
    }
    fmt_mem(c, sizeof c, r->mem); pad(&b, c, 12, 0);
    fmt_mem(c, sizeof c, r->self_mem); pad(&b, c, 12, 0);
    snprintf(c, sizeof c, "%lld", (long long)r->calls); pad(&b, c, 12, 0);
    if (group_by_shapes) pad(&b, r->shapes, shapes_w, 1);
    pf_buf_printf(&b, "\n");
  }
  line(&b, width);
  char t[64];
  fmt_time(t, sizeof t, sum_self);
  pf_buf_printf(&b, "Self CPU time total: %s\n", t);
  free(rows);
  if (b.oom || !b.p) {
    free(b.p);
    return TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "tabi.profiler table: out of memory");
  }
  *out_text = b.p;
  return TABI_OK;
}

void pf_free_string(void *ctx, char *text) {
  (void)ctx;
  free(text);
}
