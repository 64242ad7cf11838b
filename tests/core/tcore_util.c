/* tcore_util.c: see tcore_util.h. */
#include "tcore_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char trace_buf[1024];
tabi_value probe_args[32];
int32_t probe_n;
char destroyed_log[256];

__attribute__((visibility("default"))) void tcore_trace(const char *what) {
  size_t n = strlen(trace_buf);
  snprintf(trace_buf + n, sizeof trace_buf - n, "%s%s", n ? "," : "", what);
}

/* Int lists the dispatcher expands (int[2] given one int) live in its per-call
 * buffer, valid only during the call: keep a copy for the test to read after. */
static int64_t probe_ints[32][8];

__attribute__((visibility("default"))) void tcore_probe(const tabi_value *args, int32_t n) {
  probe_n = n > 32 ? 32 : n;
  memcpy(probe_args, args, sizeof(tabi_value) * (size_t)probe_n);
  for (int32_t i = 0; i < probe_n; i++) {
    tabi_value *v = &probe_args[i];
    if ((v->tag == TABI_TAG_INT_LIST || v->tag == TABI_TAG_BOOL_LIST) && v->u.list.len <= 8) {
      memcpy(probe_ints[i], v->u.list.data, sizeof(int64_t) * (size_t)v->u.list.len);
      v->u.list.data = probe_ints[i];
    }
  }
}

__attribute__((visibility("default"))) void tcore_destroyed(const char *name) {
  size_t n = strlen(destroyed_log);
  snprintf(destroyed_log + n, sizeof destroyed_log - n, "%s%s", n ? "," : "", name ? name : "(null)");
}

const char *trace_get(void) { return trace_buf; }
void trace_clear(void) { trace_buf[0] = 0; }

const char *plugin_path(const char *variant) {
  static _Thread_local char buf[1024];
  snprintf(buf, sizeof buf, "%s/libtcore_%s.so", TCORE_PLUGIN_DIR, variant);
  return buf;
}

tabi_runtime *rt_new(uint32_t flags) {
  tabi_runtime_options o = {sizeof o, flags};
  tabi_runtime *rt = NULL;
  if (tabi_runtime_create(&o, &rt) != TABI_OK) {
    fprintf(stderr, "runtime_create: %s\n", tabi_last_error());
    exit(2);
  }
  return rt;
}

int load(tabi_runtime *rt, const char *variant) {
  tabi_status st = tabi_runtime_load_plugin(rt, plugin_path(variant), NULL);
  if (st != TABI_OK) fprintf(stderr, "load %s: %s\n", variant, tabi_last_error());
  return st == TABI_OK;
}

tabi_tensor *tensor_f32(tabi_runtime *rt, DLDevice dev, int32_t ndim, const int64_t *shape,
                        const float *values) {
  int64_t n = 1;
  for (int32_t i = 0; i < ndim; i++) n *= shape[i];
  tabi_tensor *t = NULL;
  if (tabi_tensor_from_host(rt, dev, TABI_DTYPE_FLOAT32, ndim, shape, values,
                            (uint64_t)n * sizeof(float), &t) != TABI_OK)
    fprintf(stderr, "tensor_f32: %s\n", tabi_last_error());
  return t;
}

float read_f32(tabi_runtime *rt, const tabi_tensor *t, int64_t i) {
  int64_t n = tabi_tensor_numel(t);
  float *buf = malloc(sizeof(float) * (size_t)(n ? n : 1));
  float v = -12345.f;
  if (buf && tabi_tensor_to_host(rt, t, buf, (uint64_t)n * sizeof(float)) == TABI_OK && i < n) v = buf[i];
  free(buf);
  return v;
}
