/* conformance/conform_run.c: one `tabi conform` run, start to finish.
 *
 * The parent builds both runtimes (oracle and under test), plans the groups,
 * hands them to the isolation layer, gathers the records and writes the reports.
 * The children inherit the runtimes through fork, so no group pays for loading
 * plugins again; the parent starts no threads, which is what makes that fork safe.
 */
#define _POSIX_C_SOURCE 200809L
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conform_int.h"
#include "conform_report.h"

void tabi_conform_options_init(conform_options *o) {
  memset(o, 0, sizeof *o);
  o->timeout_s = 60;
}

/* --- records from the child ---------------------------------------------------- */

static void put(conform_ctx *c, conform_record *r) {
  r->group = c->group;
  const char *p = (const char *)r;
  size_t left = sizeof *r;
  while (left > 0) {
    ssize_t w = write(c->out_fd, p, left);
    if (w <= 0) return; /* the parent is gone: nothing left to tell */
    p += w;
    left -= (size_t)w;
  }
}

static void fill(char *dst, size_t n, const char *s) { snprintf(dst, n, "%s", s ? s : ""); }

void conform_emit(conform_ctx *c, int32_t status, const char *op, const char *dtype,
                  const char *sample, const char *kind, const char *fmt, ...) {
  conform_record r;
  memset(&r, 0, sizeof r);
  r.status = status;
  fill(r.op, sizeof r.op, op);
  fill(r.dtype, sizeof r.dtype, dtype);
  fill(r.sample, sizeof r.sample, sample);
  fill(r.kind, sizeof r.kind, kind);
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r.detail, sizeof r.detail, fmt, ap);
    va_end(ap);
  }
  put(c, &r);
}

static void progress(conform_ctx *c, const char *op, const char *dtype, const char *sample,
                     const char *detail) {
  conform_record r;
  memset(&r, 0, sizeof r);
  r.status = CONFORM_ST_PROGRESS;
  fill(r.op, sizeof r.op, op);
  fill(r.dtype, sizeof r.dtype, dtype);
  fill(r.sample, sizeof r.sample, sample);
  fill(r.detail, sizeof r.detail, detail);
  put(c, &r);
}

void conform_progress(conform_ctx *c, const char *op, const char *dtype, const char *sample) {
  progress(c, op, dtype, sample, NULL);
}

void conform_progress_detail(conform_ctx *c, const char *op, const char *sample, const char *detail) {
  progress(c, op, NULL, sample, detail);
}

/* --- planning ---------------------------------------------------------------------- */

int conform_op_selected(const char *globs, const char *name) {
  if (!globs || !*globs) return 1;
  const char *bare = strstr(name, "::");
  bare = bare ? bare + 2 : name;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", globs);
  char *save = NULL;
  for (char *g = strtok_r(buf, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
    if (fnmatch(g, name, 0) == 0) return 1;
    if (!strstr(g, "::") && fnmatch(g, bare, 0) == 0) return 1;
  }
  return 0;
}

static int parse_dtypes(conform_ctx *c, const char *list) {
  c->ndtypes = 0;
  if (!list || !*list || strcmp(list, "all") == 0) {
    for (int32_t i = 0; i < TABI_DTYPE_COUNT; i++) c->dtypes[c->ndtypes++] = tabi_all_dtypes[i];
    return 1;
  }
  char buf[512];
  snprintf(buf, sizeof buf, "%s", list);
  char *save = NULL;
  for (char *n = strtok_r(buf, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
    int found = 0;
    for (int32_t i = 0; i < TABI_DTYPE_COUNT; i++)
      if (strcmp(n, tabi_dtype_name(tabi_all_dtypes[i])) == 0 && c->ndtypes < TABI_DTYPE_COUNT) {
        c->dtypes[c->ndtypes++] = tabi_all_dtypes[i];
        found = 1;
      }
    if (!found) {
      fprintf(stderr, "tabi conform: unknown dtype '%s' in --dtypes\n", n);
      return 0;
    }
  }
  return 1;
}

typedef struct run_state {
  conform_ctx *ctx;
  conform_group *groups;
  int32_t ngroups;
  int32_t *forked;         /* isolate index -> group index */
  conform_report rep;
} run_state;

static void child_main(void *user, int32_t i, int32_t fd) {
  run_state *s = user;
  conform_ctx *c = s->ctx;
  c->out_fd = fd;
  c->group = s->forked[i];
  const conform_group *g = &s->groups[c->group];
  switch (g->type) {
    case CONFORM_G_ABI: conform_abi_group(c); break;
    case CONFORM_G_DEVICE: conform_device_group(c); break;
    case CONFORM_G_GRAD:
    case CONFORM_G_AUTOCAST:
    case CONFORM_G_PROFILER: conform_feature_group(c, g); break;
    default: conform_op_group(c, g); break;
  }
}

static void on_record(void *user, const conform_record *rec) {
  run_state *s = user;
  conform_record r = *rec;
  r.group = s->forked ? s->forked[rec->group] : rec->group;
  if (!r.op[0]) snprintf(r.op, sizeof r.op, "%s", s->groups[r.group].name); /* budget skips */
  conform_report_add(&s->rep, &r);
}

/* The isolate layer numbers children 0..n-1; map its indices back to groups. */
static void on_record_forked(void *user, const conform_record *rec) { on_record(user, rec); }

static tabi_status plan(conform_ctx *c, run_state *s) {
  int32_t nops = tabi_op_count(c->test);
  s->groups = calloc((size_t)nops + 2, sizeof *s->groups);
  if (!s->groups) return TABI_ERR_OUT_OF_MEMORY;
  conform_group *g = &s->groups[s->ngroups++];
  g->type = CONFORM_G_ABI;
  snprintf(g->name, sizeof g->name, "abi");
  int device_plugin = c->plugin.kind == TABI_PLUGIN_KIND_DEVICE ||
                      c->plugin.kind == TABI_PLUGIN_KIND_REFERENCE;
  if (c->plugin.kind == TABI_PLUGIN_KIND_FEATURE) conform_plan_features(c, s->groups, &s->ngroups);
  if (!device_plugin) return TABI_OK;
  char absent[160] = "";
  if (c->device_count <= 0)
    snprintf(absent, sizeof absent, "no %s device present", c->device_name);
  else if (c->device.device_id >= c->device_count)
    snprintf(absent, sizeof absent, "no %s device %d present (%d found)", c->device_name,
             (int)c->device.device_id, (int)c->device_count);
  g = &s->groups[s->ngroups++];
  g->type = CONFORM_G_DEVICE;
  snprintf(g->name, sizeof g->name, "device");
  snprintf(g->skip_reason, sizeof g->skip_reason, "%s", absent);
  for (tabi_op op = 0; op < nops; op++) {
    const tabi_op_info *info = tabi_op_get_info(c->test, op);
    if (!info || (!conform_op_selected(c->opt->ops, info->name) ||
                  (c->opt->exclude_ops && conform_op_selected(c->opt->exclude_ops, info->name)))) continue;
    int32_t impl = tabi_op_backend_status(c->test, op, c->plugin.device_type);
    if (impl != TABI_IMPL_NATIVE && impl != TABI_IMPL_DECOMPOSED) continue;
    g = &s->groups[s->ngroups++];
    g->type = CONFORM_G_OP;
    g->impl = impl;
    snprintf(g->name, sizeof g->name, "%s", info->name);
    snprintf(g->skip_reason, sizeof g->skip_reason, "%s", absent);
    tabi_op ref_op;
    if (!absent[0] && (tabi_op_find(c->oracle, info->name, &ref_op) != TABI_OK ||
                       tabi_op_backend_status(c->oracle, ref_op, kDLCPU) == TABI_IMPL_MISSING))
      snprintf(g->skip_reason, sizeof g->skip_reason, "no reference kernel for %s", info->name);
  }
  return TABI_OK;
}

/* Loads the oracle and the runtime under test. Returns 0 on failure (printed). */
static int setup(conform_ctx *c) {
  tabi_runtime_options ro = {sizeof ro, TABI_RUNTIME_GUARD_ALLOCATIONS};
  if (tabi_runtime_create(&ro, &c->oracle) != TABI_OK ||
      tabi_runtime_create(&ro, &c->test) != TABI_OK) {
    fprintf(stderr, "tabi conform: cannot create a runtime: %s\n", tabi_last_error());
    return 0;
  }
  const char *ref = c->opt->reference ? c->opt->reference : "reference";
  if (tabi_runtime_load_plugin(c->oracle, ref, NULL) != TABI_OK) {
    fprintf(stderr,
            "tabi conform: cannot load the reference plugin '%s' (the oracle): %s\n"
            "  set TABI_PLUGIN_PATH to the folder holding libtabi_reference.so, or pass "
            "--reference PATH\n",
            ref, tabi_last_error());
    return 0;
  }
  if (tabi_runtime_load_plugin(c->test, c->opt->plugin, &c->plugin_index) != TABI_OK) {
    fprintf(stderr, "tabi conform: cannot load the plugin '%s': %s\n", c->opt->plugin,
            tabi_last_error());
    return 0;
  }
  c->plugin.struct_size = sizeof c->plugin;
  if (tabi_runtime_plugin_info(c->test, c->plugin_index, &c->plugin) != TABI_OK) {
    fprintf(stderr, "tabi conform: no plugin info: %s\n", tabi_last_error());
    return 0;
  }
  /* Composite kernels let a prims-only device run core ATen; optional. */
  if (!c->plugin.name || strcmp(c->plugin.name, "decomp") != 0) {
    if (tabi_runtime_load_plugin(c->test, "decomp", NULL) != TABI_OK) tabi_clear_error();
  }
  c->device.device_type = c->plugin.device_type ? c->plugin.device_type : kDLCPU;
  c->device.device_id = c->opt->device;
  snprintf(c->device_name, sizeof c->device_name, "%s", c->plugin.name ? c->plugin.name : "?");
  const tabi_host_api *h = tabi_runtime_host(c->test);
  const tabi_device_api *dev = NULL;
  if (h && h->device_get(h->ctx, c->device.device_type, &dev) == TABI_OK && dev && dev->name)
    snprintf(c->device_name, sizeof c->device_name, "%s", dev->name);
  if (tabi_runtime_device_count(c->test, c->device.device_type, &c->device_count) != TABI_OK) {
    tabi_clear_error();
    c->device_count = 0;
  }
  return 1;
}

int tabi_conform_run(const conform_options *opt) {
  if (!opt || !opt->plugin) {
    fprintf(stderr, "tabi conform: --plugin PATH|NAME is required\n");
    return 2;
  }
  conform_ctx c;
  memset(&c, 0, sizeof c);
  c.opt = opt;
  c.out_fd = -1;
  if (!parse_dtypes(&c, opt->dtypes)) return 2;
  int rc = 2;
  run_state s;
  memset(&s, 0, sizeof s);
  s.ctx = &c;
  double t0 = (double)time(NULL);
  if (!setup(&c)) goto done;
  if (plan(&c, &s) != TABI_OK) goto done;
  conform_report_init(&s.rep, &c, s.groups, s.ngroups);
  s.forked = calloc((size_t)s.ngroups, sizeof *s.forked);
  if (!s.forked) goto done;
  int32_t nfork = 0;
  for (int32_t i = 0; i < s.ngroups; i++) {
    if (s.groups[i].skip_reason[0]) {
      conform_record r;
      memset(&r, 0, sizeof r);
      r.status = CONFORM_ST_SKIP;
      r.group = i;
      snprintf(r.op, sizeof r.op, "%s", s.groups[i].name);
      snprintf(r.detail, sizeof r.detail, "skipped: %s", s.groups[i].skip_reason);
      conform_report_add(&s.rep, &r);
    } else {
      s.forked[nfork++] = i;
    }
  }
  int32_t jobs = opt->jobs > 0 ? opt->jobs : (int32_t)sysconf(_SC_NPROCESSORS_ONLN);
  if (jobs < 1) jobs = 1;
  if (!opt->quiet) {
    fprintf(stderr, "tabi conform: plugin %s (%s), %d group(s), %d job(s), timeout %d s",
            c.plugin.name ? c.plugin.name : "?", c.plugin.path ? c.plugin.path : opt->plugin,
            (int)s.ngroups, (int)jobs, (int)(opt->timeout_s > 0 ? opt->timeout_s : 60));
    if (opt->budget_s > 0) fprintf(stderr, ", budget %d s", (int)opt->budget_s);
    fputc('\n', stderr);
  }
  int32_t unfinished = 0;
  if (conform_isolate_run(nfork, jobs, opt->timeout_s > 0 ? opt->timeout_s : 60, opt->budget_s,
                          child_main, on_record_forked, &s, &unfinished) != TABI_OK)
    fprintf(stderr, "tabi conform: could not start every group (fork failed)\n");
  rc = conform_report_finish(&s.rep, (double)time(NULL) - t0);
  if (unfinished > 0) {
    /* printed after the summary line, which stays the last line of a
     * complete run; a script reading the exit status sees 3 */
    printf("tabi conform: the time budget (--budget %d s) ran out: %d of %d group(s) not run or "
           "not finished (skipped, kind \"budget\")\n",
           (int)opt->budget_s, (int)unfinished, (int)s.ngroups);
    fflush(stdout);
    if (rc == 0) rc = 3;
  }
  conform_report_free(&s.rep);
done:
  free(s.groups);
  free(s.forked);
  tabi_runtime_destroy(c.test);
  tabi_runtime_destroy(c.oracle);
  return rc;
}
