/* conformance/conform_abi.c: checks every plugin must pass, whatever it does.
 *
 * Metadata and versions as the loader recorded them; that the plugin loads into
 * a second runtime in the same process (no global state: the ABI allows several
 * runtimes per process) and unloads cleanly; and that every kernel it registers,
 * called with bad arguments (wrong arity, a null tensor, a value of the wrong
 * kind), comes back with a status instead of crashing. Wrong dtypes are checked
 * per sample in the op groups, where the reference says which dtypes are wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform_int.h"

#define ABI "abi"

static void meta(conform_ctx *c, int ok, const char *what, const char *fmt, const char *val) {
  if (ok) conform_emit(c, CONFORM_ST_PASS, ABI, NULL, what, NULL, NULL);
  else conform_emit(c, CONFORM_ST_FAIL, ABI, NULL, what, CONFORM_K_METADATA, fmt, val ? val : "(null)");
}

static void check_metadata(conform_ctx *c) {
  const tabi_plugin_info *p = &c->plugin;
  char buf[64];
  meta(c, p->name && p->name[0], "metadata: name", "the plugin name is empty ('%s')", p->name);
  meta(c, p->version && p->version[0], "metadata: version", "the plugin version is empty ('%s')",
       p->version);
  meta(c, p->description && p->description[0], "metadata: description",
       "the plugin description is empty ('%s')", p->description);
  snprintf(buf, sizeof buf, "%d", (int)p->kind);
  meta(c, p->kind >= TABI_PLUGIN_KIND_DEVICE && p->kind <= TABI_PLUGIN_KIND_REFERENCE,
       "metadata: kind", "kind %s is not one of TABI_PLUGIN_KIND_*", buf);
  snprintf(buf, sizeof buf, "%u.%u (host %d.%d)", p->abi_major, p->abi_minor,
           TABI_ABI_VERSION_MAJOR, TABI_ABI_VERSION_MINOR);
  meta(c, p->abi_major == TABI_ABI_VERSION_MAJOR, "metadata: ABI major",
       "ABI version %s: majors differ", buf);
  meta(c, p->abi_minor_in_effect <= TABI_ABI_VERSION_MINOR && p->abi_minor_in_effect <= p->abi_minor,
       "metadata: ABI minor in effect", "ABI minor in effect is not the lower of %s", buf);
  if (p->kind == TABI_PLUGIN_KIND_DEVICE || p->kind == TABI_PLUGIN_KIND_REFERENCE) {
    snprintf(buf, sizeof buf, "%d", (int)p->device_type);
    meta(c, p->device_type > 0, "metadata: device type",
         "a device plugin must name its DLDeviceType (got %s)", buf);
    snprintf(buf, sizeof buf, "%d", (int)p->kernels);
    meta(c, p->kernels > 0, "metadata: kernels", "a device plugin registered %s kernels", buf);
  }
}

static void check_second_runtime(conform_ctx *c) {
  const char *what = "init: loads into a second runtime";
  conform_progress(c, ABI, NULL, what);
  tabi_runtime *rt = NULL;
  tabi_runtime_options ro = {sizeof ro, TABI_RUNTIME_GUARD_ALLOCATIONS};
  if (tabi_runtime_create(&ro, &rt) != TABI_OK) {
    conform_emit(c, CONFORM_ST_SKIP, ABI, NULL, what, CONFORM_K_HARNESS, "%s", tabi_last_error());
    return;
  }
  const char *spec = c->plugin.path && c->plugin.path[0] ? c->plugin.path : c->opt->plugin;
  tabi_status st = tabi_runtime_load_plugin(rt, spec, NULL);
  if (st != TABI_OK)
    conform_emit(c, CONFORM_ST_FAIL, ABI, NULL, what, CONFORM_K_ERROR,
                 "a second load in one process failed (%s: %s): plugins must keep no global "
                 "state",
                 tabi_status_name(st), tabi_last_error());
  else
    conform_emit(c, CONFORM_ST_PASS, ABI, NULL, what, NULL, NULL);
  conform_progress(c, ABI, NULL, "destroy: unloads from the second runtime");
  tabi_runtime_destroy(rt);
  conform_emit(c, CONFORM_ST_PASS, ABI, NULL, "destroy: unloads from the second runtime", NULL, NULL);
}

/* A plausible value for each argument: the arity and kind checks then corrupt
 * exactly one thing. */
typedef struct placeholder {
  tabi_value v[CONFORM_MAX_ARGS + 1];
  int64_t ints[CONFORM_MAX_ARGS][8];
  tabi_tensor *list[1];
  int32_t nargs, nrequired;
} placeholder;

static void fill_placeholder(const tabi_op_info *info, tabi_tensor *t, DLDevice dev, placeholder *p) {
  memset(p, 0, sizeof *p);
  p->list[0] = t;
  p->nargs = info->nargs < CONFORM_MAX_ARGS ? info->nargs : CONFORM_MAX_ARGS;
  for (int32_t a = 0; a < p->nargs; a++) {
    const tabi_arg_info *ai = conform_arg_at(info, a);
    if (!(ai->flags & (TABI_ARG_HAS_DEFAULT | TABI_ARG_OPTIONAL))) p->nrequired = a + 1;
    if (ai->flags & TABI_ARG_HAS_DEFAULT) {
      p->v[a] = tabi_default();
      continue;
    }
    if (ai->flags & TABI_ARG_OPTIONAL) {
      p->v[a] = tabi_none();
      continue;
    }
    int32_t n = ai->fixed_len > 0 && ai->fixed_len <= 8 ? ai->fixed_len : 1;
    for (int32_t i = 0; i < n; i++) p->ints[a][i] = 1;
    switch (ai->type) {
      case TABI_TYPE_TENSOR: p->v[a] = tabi_tensor_value(t); break;
      case TABI_TYPE_INT: case TABI_TYPE_LAYOUT: case TABI_TYPE_MEMORY_FORMAT: p->v[a] = tabi_int(0); break;
      case TABI_TYPE_FLOAT: p->v[a] = tabi_float(1.0); break;
      case TABI_TYPE_BOOL: p->v[a] = tabi_bool(0); break;
      case TABI_TYPE_SCALAR: p->v[a] = tabi_int(1); break;
      case TABI_TYPE_SCALAR_TYPE: p->v[a] = tabi_dtype_value(TABI_DTYPE_FLOAT32); break;
      case TABI_TYPE_DEVICE: p->v[a] = tabi_device_value(dev); break;
      case TABI_TYPE_STRING: p->v[a] = tabi_string("", 0); break;
      case TABI_TYPE_INT_LIST: p->v[a] = tabi_int_list(p->ints[a], n); break;
      case TABI_TYPE_BOOL_LIST: p->v[a] = tabi_bool_list(p->ints[a], n); break;
      case TABI_TYPE_FLOAT_LIST: p->v[a] = tabi_float_list((const double *)p->ints[a], 0); break;
      case TABI_TYPE_TENSOR_LIST: p->v[a] = tabi_tensor_list(p->list, 1); break;
      default: p->v[a] = tabi_none(); break;
    }
  }
}

/* One corrupted call: must not return OK. */
static int bad_call(conform_ctx *c, const char *opname, tabi_op op, const tabi_op_info *info,
                    tabi_value *args, int32_t nargs, const char *what) {
  char sample[128];
  snprintf(sample, sizeof sample, "bad arguments: %s", what);
  conform_progress(c, opname, NULL, sample);
  tabi_value outs[8];
  for (int32_t i = 0; i < 8; i++) outs[i] = tabi_none();
  int32_t nouts = info->returns_list ? 1 : info->nreturns;
  tabi_status st = tabi_call(c->test, op, args, nargs, outs, nouts > 8 ? 8 : nouts);
  for (int32_t i = 0; i < 8; i++) tabi_value_release(&outs[i]);
  if (st != TABI_OK) return 0;
  conform_emit(c, CONFORM_ST_FAIL, opname, NULL, sample, CONFORM_K_ACCEPTED,
               "returned OK for a call with %s", what);
  return 1;
}

static void check_bad_args(conform_ctx *c) {
  tabi_tensor *t = NULL;
  int64_t shape[2] = {2, 3};
  float zeros[6] = {0};
  if (tabi_tensor_from_host(c->test, c->device, TABI_DTYPE_FLOAT32, 2, shape, zeros, sizeof zeros,
                            &t) != TABI_OK) {
    conform_emit(c, CONFORM_ST_SKIP, ABI, NULL, "bad arguments", CONFORM_K_HARNESS,
                 "cannot make a tensor on %s:%d: %s", c->device_name, (int)c->device.device_id,
                 tabi_last_error());
    return;
  }
  int32_t nops = tabi_op_count(c->test);
  placeholder p;
  for (tabi_op op = 0; op < nops; op++) {
    if (tabi_op_backend_status(c->test, op, c->plugin.device_type) != TABI_IMPL_NATIVE) continue;
    const tabi_op_info *info = tabi_op_get_info(c->test, op);
    if (!info || info->nargs > CONFORM_MAX_ARGS) continue;
    if ((!conform_op_selected(c->opt->ops, info->name) ||
                  (c->opt->exclude_ops && conform_op_selected(c->opt->exclude_ops, info->name)))) continue;
    int32_t nf = 0;
    fill_placeholder(info, t, c->device, &p);
    if (p.nrequired > 0)
      nf += bad_call(c, info->name, op, info, p.v, p.nrequired - 1, "too few arguments");
    fill_placeholder(info, t, c->device, &p);
    p.v[p.nargs] = tabi_int(7);
    nf += bad_call(c, info->name, op, info, p.v, p.nargs + 1, "one argument too many");
    for (int32_t a = 0; a < p.nargs; a++) {
      const tabi_arg_info *ai = conform_arg_at(info, a);
      if (ai->type != TABI_TYPE_TENSOR || (ai->flags & TABI_ARG_OPTIONAL)) continue;
      char what[96];
      fill_placeholder(info, t, c->device, &p);
      p.v[a].tag = TABI_TAG_TENSOR;
      p.v[a].u.t = NULL;
      snprintf(what, sizeof what, "a null tensor for '%s'", ai->name);
      nf += bad_call(c, info->name, op, info, p.v, p.nargs, what);
      fill_placeholder(info, t, c->device, &p);
      p.v[a] = tabi_string("x", 1);
      snprintf(what, sizeof what, "a string where '%s' is a tensor", ai->name);
      nf += bad_call(c, info->name, op, info, p.v, p.nargs, what);
    }
    if (!nf) conform_emit(c, CONFORM_ST_PASS, info->name, NULL, "bad arguments", NULL, NULL);
  }
  tabi_tensor_release(t);
}

void conform_abi_group(conform_ctx *c) {
  check_metadata(c);
  check_second_runtime(c);
  if (c->plugin.kind == TABI_PLUGIN_KIND_DEVICE || c->plugin.kind == TABI_PLUGIN_KIND_REFERENCE) {
    if (c->device_count > c->device.device_id) check_bad_args(c);
    else
      conform_emit(c, CONFORM_ST_SKIP, ABI, NULL, "bad arguments", NULL, "skipped: no %s device present",
                   c->device_name);
  }
}
