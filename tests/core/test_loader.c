/* test_loader.c: broken plugins are refused with a message naming the file and
 * the reason, and leave the runtime exactly as it was; an older-minor plugin
 * loads; discovery and load-by-name. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tcore_util.h"

/* What "the runtime as it was" means, observably. */
typedef struct snapshot {
  int32_t nops, nplugins;
  unsigned char status[2][512];
} snapshot;

static void snap(tabi_runtime *rt, snapshot *s) {
  memset(s, 0, sizeof *s);
  s->nops = tabi_op_count(rt);
  s->nplugins = tabi_runtime_plugin_count(rt);
  for (int32_t i = 0; i < s->nops && i < 512; i++) {
    s->status[0][i] = (unsigned char)tabi_op_backend_status(rt, i, kDLCPU);
    s->status[1][i] = (unsigned char)tabi_op_backend_status(rt, i, kDLVulkan);
  }
}

/* After a refused load: unchanged, and still usable (load a good plugin, call). */
static void check_usable(tabi_runtime *rt, const snapshot *before, int load_cpu) {
  snapshot after;
  snap(rt, &after);
  CHECK(memcmp(before, &after, sizeof after) == 0);
  if (load_cpu) CHECK(load(rt, "cpu"));
  int64_t s2[1] = {2};
  float v[2] = {1, 2};
  tabi_tensor *a = tensor_f32(rt, CPU, 1, s2, v);
  tabi_op add;
  CHECK_OK(tabi_op_find(rt, "aten::add.Tensor", &add));
  tabi_value args[2] = {tabi_tensor_value(a), tabi_tensor_value(a)}, out;
  CHECK_OK(tabi_call(rt, add, args, 2, &out, 1));
  CHECK(out.tag == TABI_TAG_TENSOR && read_f32(rt, out.u.t, 1) == 4.f);
  tabi_value_release(&out);
  tabi_tensor_release(a);
}

/* A fresh runtime, a refused load with `status` and both needles in the message. */
static void refused(const char *variant_or_path, tabi_status status, const char *needle,
                    const char *needle2) {
  tabi_runtime *rt = rt_new(0);
  snapshot before;
  snap(rt, &before);
  const char *path = strchr(variant_or_path, '/') ? variant_or_path : plugin_path(variant_or_path);
  int32_t idx = 5;
  CHECK_ERR(tabi_runtime_load_plugin(rt, path, &idx), status, needle);
  CHECK_MSG(strstr(tabi_last_error(), path) != NULL, "message \"%s\" lacks the path", tabi_last_error());
  if (needle2) CHECK_MSG(strstr(tabi_last_error(), needle2) != NULL, "\"%s\" lacks \"%s\"", tabi_last_error(), needle2);
  CHECK(idx == -1);
  check_usable(rt, &before, 1);
  tabi_runtime_destroy(rt);
}

static int errors_seen;
static char last_error_path[1024];
static void on_error(void *user, const char *path, tabi_status st, const char *msg) {
  errors_seen++;
  snprintf(last_error_path, sizeof last_error_path, "%s", path);
  CHECK(st == TABI_ERR_PLUGIN && strstr(msg, "refusing on purpose") != NULL);
  CHECK(user == (void *)&errors_seen);
}

int main(void) {
  /* Not a shared object; a missing file. */
  char notso[256];
  snprintf(notso, sizeof notso, "/tmp/tcore_notso_%d.so", (int)getpid());
  FILE *f = fopen(notso, "w");
  if (f) {
    fputs("this is not an ELF file\n", f);
    fclose(f);
  }
  refused(notso, TABI_ERR_PLUGIN, "not a loadable shared object", NULL);
  remove(notso);
  refused("/nonexistent/libtabi_nothing.so", TABI_ERR_NOT_FOUND, "not a loadable shared object", NULL);
  refused("nosym", TABI_ERR_NOT_FOUND, "no tabi_plugin_init symbol", NULL);
  destroyed_log[0] = 0;
  refused("abi_new", TABI_ERR_ABI_MISMATCH, "built against tabi ABI 2.0, this host is ABI 1.0", NULL);
  refused("abi_old", TABI_ERR_ABI_MISMATCH, "built against tabi ABI 0.9, this host is ABI 1.0", NULL);
  CHECK(strstr(destroyed_log, "(null)") == NULL); /* no destroy for another major */
  refused("init_fail", TABI_ERR_PLUGIN, "tabi_plugin_init failed with TABI_ERR_UNAVAILABLE",
          "tinitfail: refusing on purpose (no widget found)");
  refused("dup_same", TABI_ERR_ALREADY_EXISTS, "aten::add.Tensor", "registered twice");
  refused("bad_schema", TABI_ERR_PARSE, "schema parse error at column", "expected");
  refused("bad_handle", TABI_ERR_NOT_FOUND, "op handle 4242 is not a registered op", NULL);
  refused("noname", TABI_ERR_PLUGIN, "sets no name", NULL);

  /* Conflicts with what is already loaded. */
  {
    tabi_runtime *rt = rt_new(0);
    CHECK(load(rt, "cpu"));
    CHECK(load(rt, "comp"));
    snapshot before;
    snap(rt, &before);
    CHECK_ERR(tabi_runtime_load_plugin(rt, plugin_path("dup_across"), NULL), TABI_ERR_ALREADY_EXISTS,
              "aten::sub.Tensor: a composite kernel is already registered by plugin 'tcomp'");
    CHECK_ERR(tabi_runtime_load_plugin(rt, plugin_path("cpu2"), NULL), TABI_ERR_ALREADY_EXISTS,
              "device type cpu already has a backend: plugin 'tcpu'");
    CHECK_ERR(tabi_runtime_load_plugin(rt, plugin_path("cpu"), NULL), TABI_ERR_ALREADY_EXISTS,
              "a plugin named 'tcpu' is already loaded");
    tabi_op o;
    CHECK(tabi_op_find(rt, "tdupacross::x", &o) == TABI_ERR_NOT_FOUND);
    check_usable(rt, &before, 0);
    /* The composite still belongs to tcomp. */
    int64_t s1[1] = {1};
    float v[1] = {5};
    tabi_tensor *a = tensor_f32(rt, CPU, 1, s1, v);
    tabi_value args[2] = {tabi_tensor_value(a), tabi_tensor_value(a)}, out;
    CHECK_OK(tabi_op_find(rt, "aten::sub.Tensor", &o));
    trace_clear();
    CHECK_OK(tabi_call(rt, o, args, 2, &out, 1));
    CHECK(strcmp(trace_get(), "comp:sub,cpu:add") == 0 && read_f32(rt, out.u.t, 0) == 0.f);
    tabi_value_release(&out);
    tabi_tensor_release(a);
    tabi_runtime_destroy(rt);
  }

  /* An older-minor plugin (smaller tabi_plugin) loads; missing fields are absent. */
  {
    tabi_runtime *rt = rt_new(0);
    destroyed_log[0] = 0;
    int32_t idx = -1;
    CHECK_OK(tabi_runtime_load_plugin(rt, plugin_path("oldminor"), &idx));
    tabi_plugin_info info;
    CHECK_OK(tabi_runtime_plugin_info(rt, idx, &info));
    CHECK(strcmp(info.name, "toldminor") == 0 && info.device_type == 0 && info.ops_registered == 1);
    CHECK(info.abi_minor_in_effect == 0);
    tabi_op o;
    CHECK_OK(tabi_op_find(rt, "toldminor::id", &o));
    tabi_runtime_destroy(rt);
    CHECK_MSG(destroyed_log[0] == 0, "destroy past struct_size was called: %s", destroyed_log);
  }

  /* Load by name, and discovery (reference plugins skipped, failures reported). */
  {
    setenv("TABI_PLUGIN_PATH", "/nonexistent:" TCORE_DISCOVER_DIR, 1);
    tabi_runtime *rt = rt_new(0);
    CHECK_ERR(tabi_runtime_load_plugin(rt, "nothing", NULL), TABI_ERR_NOT_FOUND,
              "libtabi_nothing.so is not in TABI_PLUGIN_PATH");
    int32_t idx;
    CHECK_OK(tabi_runtime_load_plugin(rt, "tcpu", &idx));
    CHECK(idx == 0);
    int32_t loaded = -1;
    CHECK_OK(tabi_runtime_load_discovered(rt, on_error, &errors_seen, &loaded));
    CHECK(loaded == 1); /* tfeat; tcpu already there, tref skipped, tinitfail failed */
    CHECK(errors_seen == 1 && strstr(last_error_path, "libtabi_tinitfail.so") != NULL);
    CHECK(tabi_runtime_plugin_count(rt) == 2);
    CHECK(tabi_runtime_plugin_find(rt, "tref", &idx) == TABI_ERR_NOT_FOUND);
    CHECK_OK(tabi_runtime_plugin_find(rt, "tfeat", &idx));
    tabi_runtime_destroy(rt);

    rt = rt_new(0);
    CHECK_OK(tabi_runtime_load_discovered(rt, NULL, NULL, &loaded));
    CHECK(loaded == 2);
    CHECK_ERR(tabi_runtime_load_plugin(rt, "tref", NULL), TABI_ERR_ALREADY_EXISTS,
              "device type cpu already has a backend");
    tabi_runtime_destroy(rt);

    /* A reference plugin loads when asked for by name. */
    rt = rt_new(0);
    CHECK_OK(tabi_runtime_load_plugin(rt, "tref", &idx));
    tabi_plugin_info info;
    CHECK_OK(tabi_runtime_plugin_info(rt, idx, &info));
    CHECK(info.kind == TABI_PLUGIN_KIND_REFERENCE);
    tabi_runtime_destroy(rt);
    unsetenv("TABI_PLUGIN_PATH");
  }

  /* One plugin file in two runtimes at once: no shared state. */
  {
    tabi_runtime *r1 = rt_new(0), *r2 = rt_new(0);
    CHECK(load(r1, "cpu"));
    CHECK(load(r2, "cpu"));
    snapshot s;
    snap(r2, &s);
    check_usable(r1, &s, 0);
    tabi_runtime_destroy(r1);
    check_usable(r2, &s, 0);
    tabi_runtime_destroy(r2);
  }
  return check_report();
}
