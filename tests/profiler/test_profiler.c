/* tests/profiler/test_profiler.c: the profiler plugin's sessions, event
 * accounting (every call once, nesting, self vs total, memory), ranges, threads,
 * the table and the Chrome trace. */
#include <pthread.h>
#include <unistd.h>

#include <tabi/ext_autocast.h>
#include <tabi/ext_profiler.h>

#include "check.h"
#include "ft_util.h"

static tabi_runtime *rt;
static const tabi_profiler_api *pf;
static int have_autocast;

/* Events named `name` (and `overload` unless NULL) at `depth` (any when < 0). */
static int64_t count_ev(const char *name, const char *overload, int32_t depth) {
  int64_t n = 0, total = pf->event_count(pf->ctx);
  for (int64_t i = 0; i < total; i++) {
    tabi_profiler_event e = {0};
    if (pf->event_get(pf->ctx, i, &e) != TABI_OK) continue;
    if (!strcmp(e.name, name) && (!overload || !strcmp(e.overload, overload)) &&
        (depth < 0 || e.depth == depth))
      n++;
  }
  return n;
}

static int64_t count_named(const char *name, int32_t depth) { return count_ev(name, NULL, depth); }

/* Every event's children lie within it, self = total - children, parents
 * precede children, depth = parent's + 1. */
static void check_nesting(void) {
  int64_t n = pf->event_count(pf->ctx);
  int64_t *child_sum = calloc((size_t)(n ? n : 1), sizeof *child_sum);
  tabi_profiler_event *ev = calloc((size_t)(n ? n : 1), sizeof *ev);
  for (int64_t i = 0; i < n; i++) {
    ev[i].struct_size = sizeof ev[i];
    CHECK_OK(pf->event_get(pf->ctx, i, &ev[i]));
  }
  int bad = 0;
  for (int64_t i = 0; i < n; i++) {
    const tabi_profiler_event *e = &ev[i];
    if (e->end_ns < e->start_ns) bad++;
    if (e->parent >= 0) {
      const tabi_profiler_event *p = &ev[e->parent];
      if (e->parent >= i || e->start_ns < p->start_ns || e->end_ns > p->end_ns ||
          e->depth != p->depth + 1 || e->thread != p->thread)
        bad++;
      child_sum[e->parent] += e->end_ns - e->start_ns;
    } else if (e->depth != 0) {
      bad++;
    }
  }
  for (int64_t i = 0; i < n; i++)
    if (ev[i].self_ns != ev[i].end_ns - ev[i].start_ns - child_sum[i] || ev[i].self_ns < 0) bad++;
  CHECK_MSG(bad == 0, "%d nesting inconsistencies in %lld events", bad, (long long)n);
  free(child_sum);
  free(ev);
}

static void test_session(void) {
  const uint64_t key = TABI_LAYER_KEY(TABI_PRIORITY_PROFILER);
  CHECK((tabi_runtime_tls_get(rt, TABI_TLS_ENABLED) & key) == 0);
  CHECK(pf->is_active(pf->ctx) == 0);
  CHECK_ERR(pf->stop(pf->ctx), TABI_ERR_UNAVAILABLE, "no session");
  const int64_t sa[2] = {2, 3}, sb[2] = {3, 2};
  const double d[6] = {1, 2, 3, 4, 5, 6};
  tabi_tensor *a = ft_tensor(rt, TABI_DTYPE_FLOAT32, 2, sa, d);
  tabi_tensor *b = ft_tensor(rt, TABI_DTYPE_FLOAT32, 2, sb, d);
  /* Calls outside the session are not recorded. */
  tabi_tensor *pre = ft_call2(rt, "aten::mm", a, b);
  tabi_tensor_release(pre);

  tabi_profiler_options o = {sizeof o, TABI_PROFILER_RECORD_SHAPES | TABI_PROFILER_MEMORY};
  CHECK_OK(pf->start(pf->ctx, &o));
  CHECK((tabi_runtime_tls_get(rt, TABI_TLS_ENABLED) & key) != 0);
  CHECK_ERR(pf->start(pf->ctx, &o), TABI_ERR_ALREADY_EXISTS, "running");
  const int calls = 7;
  for (int i = 0; i < calls; i++) {
    tabi_tensor *y = ft_call2(rt, "aten::mm", a, b);
    CHECK(y != NULL);
    tabi_tensor_release(y);
  }
  CHECK_OK(pf->push_range(pf->ctx, "my \"range\""));
  tabi_tensor *s = ft_call2(rt, "aten::add.Tensor", a, a);
  tabi_tensor_release(s);
  CHECK_OK(pf->pop_range(pf->ctx));
  CHECK_ERR(pf->pop_range(pf->ctx), TABI_ERR_INVALID_ARGUMENT, "no range");
  /* A composite op (the scaler's update) calls other ops: they nest under it. */
  int scaler = 0;
  tabi_op up;
  if (have_autocast && tabi_op_find(rt, TABI_AMP_UPDATE_SCALE_OP, &up) == TABI_OK) {
    const int64_t one[1] = {1};
    const double s0 = 4.0, z = 0.0;
    tabi_tensor *sc = ft_tensor(rt, TABI_DTYPE_FLOAT32, 1, one, &s0);
    tabi_tensor *tr = ft_tensor(rt, TABI_DTYPE_INT32, 1, one, &z);
    tabi_tensor *fi = ft_tensor(rt, TABI_DTYPE_FLOAT32, 1, one, &z);
    tabi_value u[6] = {tabi_tensor_value(sc), tabi_tensor_value(tr), tabi_tensor_value(fi),
                       tabi_float(2.0), tabi_float(0.5), tabi_int(10)};
    tabi_value out = tabi_none();
    CHECK_OK(tabi_call(rt, up, u, 6, &out, 1));
    tabi_value_release(&out);
    tabi_tensor_release(sc);
    tabi_tensor_release(tr);
    tabi_tensor_release(fi);
    scaler = 1;
  }
  CHECK_ERR(pf->table(pf->ctx, NULL, 0, 0, &(char *){NULL}), TABI_ERR_UNAVAILABLE, "running");
  CHECK_OK(pf->stop(pf->ctx));
  CHECK((tabi_runtime_tls_get(rt, TABI_TLS_ENABLED) & key) == 0);

  /* Every call recorded exactly once, at the level it was made. */
  CHECK(count_named("aten::mm", 0) == calls);
  CHECK(count_named("aten::mm", -1) == calls);
  CHECK(count_named("my \"range\"", 0) == 1);
  CHECK(count_ev("aten::add", "Tensor", 1) == 1);
  if (scaler) {
    CHECK(count_named("tabi::amp_update_scale_", 0) == 1);
    CHECK(count_named("aten::where", 1) == 4); /* the kernel calls where.self 4 times */
  }
  check_nesting();
  /* Event details. */
  int64_t n = pf->event_count(pf->ctx);
  int found_mm = 0;
  int64_t alloc = 0, freed = 0;
  for (int64_t i = 0; i < n; i++) {
    tabi_profiler_event e = {0};
    CHECK_OK(pf->event_get(pf->ctx, i, &e));
    alloc += e.alloc_bytes;
    freed += e.free_bytes;
    if (!found_mm && !strcmp(e.name, "aten::mm")) {
      found_mm = 1;
      CHECK(!strcmp(e.overload, ""));
      CHECK(!strcmp(e.shapes, "[[2, 3], [3, 2]]"));
      CHECK(!strcmp(e.dtypes, "[\"float32\", \"float32\"]"));
      CHECK(e.alloc_bytes >= 2 * 2 * 4); /* its output */
      CHECK(e.kind == TABI_PROFILER_EVENT_OP && e.device_type == kDLCPU && e.op >= 0);
      CHECK(e.thread == 0);
    }
    if (!strcmp(e.name, "aten::where")) CHECK(!strcmp(e.overload, "self"));
  }
  CHECK(found_mm);
  /* Memory balances: everything allocated in the session was freed in it. */
  int64_t net = 0, nm = pf->memory_event_count(pf->ctx);
  for (int64_t i = 0; i < nm; i++) {
    tabi_profiler_memory_event m = {0};
    CHECK_OK(pf->memory_event_get(pf->ctx, i, &m));
    net += m.nbytes;
  }
  CHECK(nm > 0);
  CHECK_MSG(net == 0, "net %lld bytes", (long long)net);
  CHECK(alloc > 0 && freed > 0);
  tabi_profiler_event bad = {0};
  CHECK_ERR(pf->event_get(pf->ctx, n, &bad), TABI_ERR_INVALID_ARGUMENT, "out of range");
  tabi_tensor_release(a);
  tabi_tensor_release(b);
}

static void test_table_and_trace(void) {
  char *text = NULL;
  CHECK_OK(pf->table(pf->ctx, NULL, 0, 0, &text));
  if (text) {
    printf("%s", text);
    CHECK(strstr(text, "Name") && strstr(text, "Self CPU %") && strstr(text, "CPU total") &&
          strstr(text, "CPU time avg") && strstr(text, "CPU Mem") &&
          strstr(text, "Self CPU Mem") && strstr(text, "# of Calls"));
    CHECK(strstr(text, "aten::mm") != NULL);
    CHECK(strstr(text, "Self CPU time total:") != NULL);
    CHECK(strstr(text, "Input Shapes") == NULL);
    pf->free_string(pf->ctx, text);
  }
  /* Row limit, sorting by count: aten::mm (7 calls) is the only row. */
  CHECK_OK(pf->table(pf->ctx, "count", 1, 0, &text));
  if (text) {
    CHECK(strstr(text, "aten::mm") != NULL && strstr(text, "aten::add") == NULL);
    pf->free_string(pf->ctx, text);
  }
  CHECK_OK(pf->table(pf->ctx, "name", 0, 1, &text));
  if (text) {
    CHECK(strstr(text, "Input Shapes") != NULL && strstr(text, "[[2, 3], [3, 2]]") != NULL);
    /* Sorted by name: aten::add.Tensor before aten::mm. */
    CHECK(strstr(text, "aten::add.Tensor") && strstr(text, "aten::add.Tensor") < strstr(text, "aten::mm"));
    pf->free_string(pf->ctx, text);
  }
  CHECK_ERR(pf->table(pf->ctx, "bogus", 0, 0, &text), TABI_ERR_INVALID_ARGUMENT, "bogus");
  char path[] = "/tmp/tabi_pf_traceXXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd >= 0) close(fd);
  CHECK_OK(pf->export_chrome_trace(pf->ctx, path));
  if (access("/usr/bin/python3", X_OK) == 0) {
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"import json,sys; d=json.load(open('%s')); e=d['traceEvents']; "
             "x=[v for v in e if v['ph']=='X']; c=[v for v in e if v['ph']=='C']; "
             "assert x and c and all('dur' in v and 'ts' in v for v in x); "
             "assert any(v['name']=='aten::mm' and v['args']['Input Dims']==[[2,3],[3,2]] for v in x)\"",
             path);
    CHECK_MSG(system(cmd) == 0, "the trace %s does not parse or lacks events", path);
  }
  unlink(path);
  CHECK_ERR(pf->export_chrome_trace(pf->ctx, "/nonexistent-dir/x.json"), TABI_ERR_DEVICE,
            "cannot open");
}

typedef struct thr {
  int join;
} thr;

static void *worker(void *p) {
  thr *t = p;
  if (t->join) pf->set_thread_enabled(pf->ctx, 1);
  const int64_t s1[1] = {4};
  const double d[4] = {1, 2, 3, 4};
  tabi_tensor *x = ft_tensor(rt, TABI_DTYPE_FLOAT32, 1, s1, d);
  tabi_value v[1] = {tabi_tensor_value(x)};
  tabi_tensor *y = ft_call(rt, "aten::neg", v, 1);
  tabi_tensor_release(y);
  tabi_tensor_release(x);
  if (t->join) pf->set_thread_enabled(pf->ctx, 0);
  return NULL;
}

static void test_threads(void) {
  CHECK_OK(pf->start(pf->ctx, NULL));
  thr t1 = {0}, t2 = {1};
  pthread_t a, b;
  pthread_create(&a, NULL, worker, &t1);
  pthread_join(a, NULL);
  pthread_create(&b, NULL, worker, &t2);
  pthread_join(b, NULL);
  CHECK_OK(pf->stop(pf->ctx));
  /* Only the thread that joined was recorded, as thread 1. */
  int64_t n = pf->event_count(pf->ctx), negs = 0;
  for (int64_t i = 0; i < n; i++) {
    tabi_profiler_event e = {0};
    pf->event_get(pf->ctx, i, &e);
    if (!strcmp(e.name, "aten::neg")) {
      negs++;
      CHECK(e.thread == 1);
    }
  }
  CHECK(negs == 1);
}

int main(void) {
  rt = ft_runtime();
  if (!rt) return 1;
#ifdef TABI_AUTOCAST_PLUGIN
  have_autocast = ft_load(rt, TABI_AUTOCAST_PLUGIN);
#endif
  CHECK(ft_load(rt, TABI_PROFILER_PLUGIN));
  CHECK_OK(tabi_runtime_extension(rt, TABI_PROFILER_EXTENSION, TABI_PROFILER_VERSION,
                                  (const void **)&pf));
  if (!pf) return check_report();
  CHECK(pf->struct_size >= sizeof(tabi_profiler_api));
  test_session();
  test_table_and_trace();
  test_threads();
  tabi_runtime_destroy(rt);
  return check_report();
}
