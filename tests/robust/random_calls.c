/* tests/robust/random_calls.c: every op, called many times with random
 * arguments of its schema's types, on the plugins named on the command line.
 *
 *   random_calls PLUGIN[,PLUGIN...] [--calls N] [--seed S] [--ops SUBSTR] [--timeout SEC]
 *
 * The arguments have the right types (the dispatcher checks those) and random
 * values: tensors of every dtype, 0 to 4 dims (mostly one shape and dtype a
 * call, so that many calls reach the kernels), contiguous, transposed, sliced,
 * broadcast (stride 0) or offset, on the plugin's device or the CPU, now and
 * then read-only; ints from -3 to 6 and now and then huge (2^40, 2^62,
 * INT64_MAX, INT64_MIN); NaN, infinities and 1e308 among the floats; short
 * lists; unknown dtypes, devices and strings. Most calls are refused, which
 * is the point: bad input must get an error, never a crash, a hang or a
 * corrupted tensor. For every call:
 *   - it returns within --timeout seconds (default 30) with a known status;
 *   - a refusal has a message naming the op;
 *   - no input it may not write changed (arguments not marked `(a!)`, and
 *     read-only tensors even where they are), accepted or refused;
 *   - an accepted call's outputs are readable and their red zones intact.
 * Under the sanitizers (the test command's second build) a memory error or
 * undefined behaviour anywhere on the way stops the run with a report. A
 * failure prints the op and its arguments; the seed reproduces the run. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tabi/runtime.h>
#include <tabi/tabi.h>

#include "check.h"
#include "rc_gen.h"

static char desc[4096]; /* the arguments of the call in flight */

static char hang_msg[sizeof desc + 512]; /* formatted before each call: a handler may not */

static void on_alarm(int sig) {
  (void)sig;
  (void)!write(2, hang_msg, strlen(hang_msg));
  _exit(1);
}

/* A tensor's bytes, row-major, to compare before and after a call. */
typedef struct snap {
  tabi_tensor *t;
  unsigned char *bytes;
  uint64_t n;
} snap;

/* Larger tensors are views (a broadcast of a few elements to 2^40, say) and
 * are not read back: nothing generated owns that much memory. */
#define SNAP_MAX ((uint64_t)64 << 20)

static int take(tabi_runtime *rt, tabi_tensor *t, snap *s) {
  s->t = t;
  s->n = (uint64_t)tabi_tensor_numel(t) * tabi_dtype_size(tabi_tensor_dtype(t));
  s->bytes = NULL;
  if (s->n > SNAP_MAX) return 1;
  s->bytes = malloc(s->n ? s->n : 1);
  return s->bytes && tabi_tensor_to_host(rt, t, s->bytes, s->n) == TABI_OK;
}

static int same(tabi_runtime *rt, const snap *s) {
  if (!s->bytes) return 1; /* not taken (SNAP_MAX) */
  unsigned char *now = malloc(s->n ? s->n : 1);
  int ok = now && tabi_tensor_to_host(rt, s->t, now, s->n) == TABI_OK && memcmp(now, s->bytes, s->n) == 0;
  free(now);
  return ok;
}

/* "aten::add" of "aten::add.Tensor": what a message must mention. */
static void base_name(const char *name, char *out, size_t cap) {
  const char *ns = strstr(name, "::");
  size_t n = (ns ? (size_t)(ns - name) + 2 : 0);
  n += strcspn(name + n, ".");
  if (n >= cap) n = cap - 1;
  memcpy(out, name, n);
  out[n] = 0;
}

typedef struct opts {
  const char *plugins, *only;
  int calls, timeout;
  uint64_t seed;
} opts;

static int parse(int argc, char **argv, opts *o) {
  *o = (opts){NULL, NULL, 20, 30, 1};
  for (int i = 1; i < argc; i++) {
    if (i + 1 < argc && strcmp(argv[i], "--calls") == 0) o->calls = atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--seed") == 0) o->seed = strtoull(argv[++i], NULL, 0);
    else if (i + 1 < argc && strcmp(argv[i], "--ops") == 0) o->only = argv[++i];
    else if (i + 1 < argc && strcmp(argv[i], "--timeout") == 0) o->timeout = atoi(argv[++i]);
    else if (argv[i][0] != '-' && !o->plugins) o->plugins = argv[i];
    else return 0;
  }
  return o->plugins && o->calls > 0 && o->timeout > 0;
}

/* Loads each comma-separated plugin; the first one's device is the target. */
static int load(tabi_runtime *rt, const char *list, DLDevice *dev) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", list);
  int first = 1;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    int32_t idx = -1;
    if (tabi_runtime_load_plugin(rt, tok, &idx) != TABI_OK) {
      fprintf(stderr, "random_calls: %s\n", tabi_last_error());
      return 0;
    }
    tabi_plugin_info pi;
    memset(&pi, 0, sizeof pi);
    pi.struct_size = sizeof pi;
    if (first && tabi_runtime_plugin_info(rt, idx, &pi) == TABI_OK)
      *dev = (DLDevice){(DLDeviceType)(pi.device_type ? pi.device_type : kDLCPU), 0};
    first = 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  opts o;
  if (!parse(argc, argv, &o)) {
    fprintf(stderr, "usage: random_calls PLUGIN[,PLUGIN...] [--calls N] [--seed S] [--ops SUBSTR] "
                    "[--timeout SEC]\n");
    return 2;
  }
  tabi_runtime_options ro;
  memset(&ro, 0, sizeof ro);
  ro.struct_size = sizeof ro;
  ro.flags = TABI_RUNTIME_GUARD_ALLOCATIONS;
  tabi_runtime *rt = NULL;
  if (tabi_runtime_create(&ro, &rt) != TABI_OK) return 1;
  DLDevice dev = {kDLCPU, 0};
  if (!load(rt, o.plugins, &dev)) return 1;
  int32_t count = 0;
  if (tabi_runtime_device_count(rt, dev.device_type, &count) != TABI_OK || count < 1) {
    printf("random_calls: SKIP: no device of type %d present\n", (int)dev.device_type);
    tabi_runtime_destroy(rt);
    return 77;
  }
  signal(SIGALRM, on_alarm);
  rc_gen g;
  rc_gen_init(&g, rt, dev, o.seed);
  long calls = 0, accepted = 0, by_status[TABI_STATUS_COUNT] = {0};
  int nops = tabi_op_count(rt), tested = 0;
  for (tabi_op op = 0; op < nops; op++) {
    const tabi_op_info *info = tabi_op_get_info(rt, op);
    if (o.only && !strstr(info->name, o.only)) continue;
    if (tabi_op_backend_status(rt, op, dev.device_type) == TABI_IMPL_MISSING) continue;
    if (info->nargs > RC_MAX_ARGS) continue;
    tested++;
    char base[160];
    base_name(info->name, base, sizeof base);
    int32_t nouts = info->nreturns > 0 ? info->nreturns : 1;
    for (int r = 0; r < o.calls; r++) {
      tabi_value args[RC_MAX_ARGS], outs[RC_MAX_OUTS];
      rc_gen_begin_call(&g);
      for (int32_t k = 0; k < info->nargs; k++) args[k] = rc_gen_arg(&g, k, &info->args[k]);
      rc_describe(args, info->nargs, desc, sizeof desc);
      snprintf(hang_msg, sizeof hang_msg, "random_calls: HANG: %s(%s) did not return in %d s (seed %" PRIu64 ")\n",
               info->name, desc, o.timeout, o.seed);
      /* what the call may not write: arguments not marked (a!), and read-only tensors */
      snap before[RC_MAX_TENSORS];
      int ns = 0, snap_ok = 1;
      for (int32_t k = 0; k < info->nargs; k++) {
        int may_write = (info->args[k].flags & TABI_ARG_MUTABLE) != 0;
        tabi_tensor *ts[RC_MAX_LIST];
        int nt = rc_tensors_of(&args[k], ts);
        for (int i = 0; i < nt && ns < RC_MAX_TENSORS; i++)
          if (!may_write || rc_gen_is_read_only(&g, ts[i])) snap_ok &= take(rt, ts[i], &before[ns++]);
      }
      CHECK_MSG(snap_ok, "%s: reading an input back failed: %s", info->name, tabi_last_error());
      for (int k = 0; k < RC_MAX_OUTS; k++) outs[k] = tabi_none();
      alarm((unsigned)o.timeout);
      tabi_status st = tabi_call(rt, op, args, info->nargs, outs, nouts > RC_MAX_OUTS ? RC_MAX_OUTS : nouts);
      alarm(0);
      calls++;
      if (st >= 0 && st < TABI_STATUS_COUNT) by_status[st]++;
      CHECK_MSG(st >= 0 && st < TABI_STATUS_COUNT, "%s(%s): unknown status %d", info->name, desc, (int)st);
      if (st == TABI_OK) {
        accepted++;
        for (int k = 0; k < RC_MAX_OUTS; k++) {
          tabi_tensor *ts[RC_MAX_LIST];
          int nt = rc_tensors_of(&outs[k], ts);
          for (int i = 0; i < nt; i++) {
            snap s;
            int readable = take(rt, ts[i], &s);
            free(s.bytes);
            CHECK_MSG(readable, "%s(%s): output %d is not readable: %s", info->name, desc, k, tabi_last_error());
            CHECK_MSG(tabi_tensor_check_guards(rt, ts[i]) == TABI_OK, "%s(%s): output %d: %s", info->name, desc,
                      k, tabi_last_error());
          }
        }
      } else {
        const char *m = tabi_last_error();
        CHECK_MSG(m && strstr(m, base), "%s(%s) refused (%s) with a message that does not name the op: \"%s\"",
                  info->name, desc, tabi_status_name(st), m ? m : "");
      }
      for (int i = 0; i < ns; i++) {
        CHECK_MSG(same(rt, &before[i]), "%s(%s) (%s) changed an input it may not write", info->name, desc,
                  tabi_status_name(st));
        free(before[i].bytes);
      }
      for (int k = 0; k < RC_MAX_OUTS; k++) tabi_value_release(&outs[k]);
      rc_gen_release(&g);
    }
  }
  CHECK_MSG(tabi_runtime_guard_violations(rt) == 0, "%" PRIu64 " storages had a damaged red zone when freed",
            tabi_runtime_guard_violations(rt));
  CHECK_MSG(tested > 0, "no op has a kernel for the device (--ops '%s')", o.only ? o.only : "");
  printf("random_calls: %s: %d ops, %ld calls (seed %" PRIu64 "), %ld accepted; refused:", o.plugins, tested,
         calls, o.seed, accepted);
  for (int s = 1; s < TABI_STATUS_COUNT; s++)
    if (by_status[s]) printf(" %s %ld", tabi_status_name(s), by_status[s]);
  printf("\n");
  tabi_runtime_destroy(rt);
  return check_report();
}
