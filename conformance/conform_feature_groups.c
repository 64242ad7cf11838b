/* conformance/conform_feature_groups.c: `tabi conform` on a feature plugin.
 *
 * A feature plugin (autograd, autocast, profiler) has no kernels of its own to
 * compare with the reference; what proves it right are the checks of issue 6,
 * written as library functions (conform_grad.h, conform_features.h). Here they
 * become groups of the run like the op groups: each in a forked child with the
 * time limit, each case a record (so the text, JSON and JUnit reports show them).
 *  - autograd: one group per op, gradcheck in float64 through the "cpu" backend
 *    (the "reference" when cpu is absent), so a crash or hang names its op and
 *    the ops spread over --jobs;
 *  - autocast: one group, the policy table and the CPU behaviour;
 *  - profiler: one group, the accounting of a known session.
 * The functions create their own runtimes (with the plugin under test loaded by
 * the name or path given on the command line); their own log goes to /dev/null,
 * because every case reaches the report as a record.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "conform_features.h"
#include "conform_grad.h"
#include "conform_int.h"
#include "conform_robust.h"

void conform_plan_features(conform_ctx *c, conform_group *groups, int32_t *n) {
  const char *name = c->plugin.name ? c->plugin.name : "";
  if (strcmp(name, "autograd") == 0) {
    int32_t nops = tabi_op_count(c->test);
    for (tabi_op op = 0; op < nops; op++) {
      const tabi_op_info *info = tabi_op_get_info(c->test, op);
      if (!info || !conform_op_selected(c->opt->ops, info->name) ||
          (c->opt->exclude_ops && conform_op_selected(c->opt->exclude_ops, info->name)))
        continue;
      conform_group *g = &groups[(*n)++];
      g->type = CONFORM_G_GRAD;
      snprintf(g->name, sizeof g->name, "%s", info->name);
    }
    return;
  }
  conform_group *g = &groups[(*n)++];
  snprintf(g->name, sizeof g->name, "%s", name);
  if (strcmp(name, "autocast") == 0) {
    g->type = CONFORM_G_AUTOCAST;
  } else if (strcmp(name, "profiler") == 0) {
    g->type = CONFORM_G_PROFILER;
  } else {
    g->type = CONFORM_G_AUTOCAST; /* never forked: skipped below */
    snprintf(g->skip_reason, sizeof g->skip_reason,
             "no feature checks for a plugin named '%s' (known: autograd, autocast, profiler)",
             name);
  }
}

typedef struct feature_sink {
  conform_ctx *c;
  const char *kind;
  const char *dtype;
  int32_t cases;
} feature_sink;

static int32_t to_status(int32_t s) {
  return s == CONFORM_FEATURE_PASS ? CONFORM_ST_PASS
         : s == CONFORM_FEATURE_FAIL ? CONFORM_ST_FAIL
                                     : CONFORM_ST_SKIP;
}

/* Gradcheck's statuses have the same values (CONFORM_GRAD_*); CONFORM_GRAD_MISSING
 * (no derivative for the op) is a skip of kind "missing", as a decomposition that
 * lacks a prim is: a coverage gap, refused with a clear error, not a wrong answer. */
static void on_grad_case(void *user, const char *op, const char *sample, int32_t status,
                         const char *message) {
  feature_sink *k = user;
  k->cases++;
  int32_t st = to_status(status);
  const char *kind = st == CONFORM_ST_FAIL ? k->kind : "";
  if (status == CONFORM_GRAD_MISSING) kind = CONFORM_K_MISSING;
  conform_emit(k->c, st, op, k->dtype, sample, kind, "%s",
               st == CONFORM_ST_PASS || !message ? "" : message);
  /* The checks report after a case, so a crash is named by the case before it. */
  char after[128];
  snprintf(after, sizeof after, "after %s", sample ? sample : "");
  conform_progress(k->c, op, k->dtype, after);
}

static void on_feature_case(void *user, const char *op, const char *where, int32_t status,
                            const char *message) {
  on_grad_case(user, op, where, status, message);
}

static const char *reference_of(const conform_ctx *c) {
  return c->opt->reference ? c->opt->reference : "reference";
}

/* The op's random calls through the autograd plugin (conform_robust.h), in a
 * runtime of their own that guards allocations: cpu (or the reference),
 * decomp, then the plugin under test. */
static void grad_random_calls(conform_ctx *c, const conform_group *g, const char *fallback) {
  conform_progress(c, g->name, "", "(random calls: loading cpu, decomp, autograd)");
  tabi_runtime_options ro = {sizeof ro, TABI_RUNTIME_GUARD_ALLOCATIONS};
  tabi_runtime *rt = NULL;
  const tabi_autograd_api *ag = NULL;
  tabi_op op = -1;
  tabi_status st = tabi_runtime_create(&ro, &rt);
  if (st == TABI_OK && tabi_runtime_load_plugin(rt, "cpu", NULL) != TABI_OK) {
    tabi_clear_error();
    st = tabi_runtime_load_plugin(rt, fallback, NULL);
  }
  if (st == TABI_OK && tabi_runtime_load_plugin(rt, "decomp", NULL) != TABI_OK) tabi_clear_error();
  if (st == TABI_OK) st = tabi_runtime_load_plugin(rt, c->opt->plugin, NULL);
  if (st == TABI_OK) st = tabi_runtime_extension(rt, TABI_AUTOGRAD_EXTENSION, 1, (const void **)&ag);
  if (st == TABI_OK) st = tabi_op_find(rt, g->name, &op);
  if (st == TABI_OK)
    conform_robust_group(c, g->name, "", rt, (DLDevice){kDLCPU, 0}, ag, op);
  else
    conform_emit(c, CONFORM_ST_FAIL, g->name, "", "(random calls)", CONFORM_K_HARNESS,
                 "cannot set up the random calls (backend cpu or %s, decomp, autograd %s): %s", fallback,
                 c->opt->plugin, tabi_last_error());
  tabi_runtime_destroy(rt);
}

void conform_feature_group(conform_ctx *c, const conform_group *g) {
  FILE *devnull = fopen("/dev/null", "w");
  feature_sink k = {c, "", "", 0};
  if (g->type == CONFORM_G_GRAD) {
    k.kind = CONFORM_K_GRADCHECK;
    /* float64, then complex128 (complex gradients: conform_grad.h) */
    static const tabi_dtype dts[2] = {TABI_DTYPE_FLOAT64, TABI_DTYPE_COMPLEX128};
    conform_grad_options o;
    for (int d = 0; d < 2; d++) {
      k.dtype = tabi_dtype_name(dts[d]);
      k.cases = 0;
      conform_progress(c, g->name, k.dtype, "(loading cpu, decomp, autograd)");
      conform_grad_options_init(&o);
      o.backend = "cpu";
      o.fallback = reference_of(c);
      o.autograd = c->opt->plugin;
      o.op_exact = g->name;
      o.seed = c->opt->seed;
      o.log = devnull;
      o.missing_is_skip = 1;
      o.dtype = dts[d];
      conform_grad_result res;
      tabi_status st = conform_gradcheck_plugin(&o, on_grad_case, &k, &res);
      if (st != TABI_OK)
        conform_emit(c, CONFORM_ST_FAIL, g->name, k.dtype, "(setup)", CONFORM_K_GRADCHECK,
                     "cannot run gradcheck (backend cpu or %s, autograd %s): %s", o.fallback,
                     c->opt->plugin, tabi_last_error());
      else if (k.cases == 0 && d == 0) /* complex samples are for complex ops only */
        conform_emit(c, CONFORM_ST_SKIP, g->name, k.dtype, "", "",
                     "skipped: no float64 sample to gradcheck");
    }
    if (c->opt->robust_calls >= 0) grad_random_calls(c, g, o.fallback);
  } else {
    int prof = g->type == CONFORM_G_PROFILER;
    k.kind = prof ? CONFORM_K_PROFILER : CONFORM_K_AUTOCAST;
    conform_progress(c, g->name, "", "(session)");
    conform_feature_result res;
    int rc = prof ? conform_features_profiler_ex(c->opt->plugin, reference_of(c), NULL, devnull,
                                                 on_feature_case, &k, &res)
                  : conform_features_autocast_ex(c->opt->plugin, reference_of(c), NULL, devnull,
                                                 on_feature_case, &k, &res);
    if (rc == 2 && k.cases == 0) /* could not run and said nothing: still a failure */
      conform_emit(c, CONFORM_ST_FAIL, g->name, "", "(setup)", k.kind, "the check could not run");
  }
  if (devnull) fclose(devnull);
}
