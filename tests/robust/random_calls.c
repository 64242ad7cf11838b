/* tests/robust/random_calls.c: every op, called many times with random
 * arguments of its schema's types, on the plugins named on the command line.
 *
 *   random_calls PLUGIN[,PLUGIN...] [--calls N] [--seed S] [--ops SUBSTR] [--timeout SEC]
 *   random_calls PLUGIN[,PLUGIN...] --seed S --ops SUBSTR --show K
 *
 * The random calls of `tabi conform` (conformance/conform_robust.h says what
 * they are and what each must hold to; the reference, when found, is the
 * oracle of what must be refused), without the samples or the child processes:
 * a fast run of many calls that ctest can afford in both builds. When a plugin
 * in the list is an autograd layer (it has the "tabi.autograd" extension:
 * `random_calls cpu,decomp,autograd`), the calls go through it with
 * requires_grad inputs and backward passes (conform_robust_grad_op), on the
 * CPU, as `tabi conform --plugin autograd` makes them. A call that does not return within --timeout seconds (default 30)
 * stops the run with its arguments; under the sanitizers (the test command's
 * second build) so does a memory error or undefined behaviour. A failure
 * prints the op and its arguments; the seed reproduces the run, and --ops one
 * op's calls (each op's calls depend only on the seed and its name), and
 * --show K prints call K's arguments with their elements, without calling. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tabi/ext_autograd.h>
#include <tabi/runtime.h>
#include <tabi/tabi.h>

#include "check.h"
#include "conform_robust.h"

static char hang_msg[CONFORM_ROBUST_DESC_MAX + 512]; /* formatted before each call: a handler may not */

static void on_alarm(int sig) {
  (void)sig;
  (void)!write(2, hang_msg, strlen(hang_msg));
  _exit(1);
}

typedef struct opts {
  const char *plugins, *only;
  int calls, timeout, show;
  uint64_t seed;
} opts;

static int parse(int argc, char **argv, opts *o) {
  *o = (opts){NULL, NULL, 20, 30, -1, 1};
  for (int i = 1; i < argc; i++) {
    if (i + 1 < argc && strcmp(argv[i], "--calls") == 0) o->calls = atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--seed") == 0) o->seed = strtoull(argv[++i], NULL, 0);
    else if (i + 1 < argc && strcmp(argv[i], "--ops") == 0) o->only = argv[++i];
    else if (i + 1 < argc && strcmp(argv[i], "--timeout") == 0) o->timeout = atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--show") == 0) o->show = atoi(argv[++i]);
    else if (argv[i][0] != '-' && !o->plugins) o->plugins = argv[i];
    else return 0;
  }
  return o->plugins && o->calls > 0 && o->timeout > 0 && (o->show < 0 || o->only);
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

typedef struct hang_ctx {
  const char *op;
  int timeout;
  uint64_t seed;
} hang_ctx;

/* Before each call: the message a hang prints, and the alarm. */
static void on_call(void *user, int32_t k, const char *desc) {
  const hang_ctx *h = user;
  snprintf(hang_msg, sizeof hang_msg, "random_calls: HANG: call %d: %s(%s) did not return in %d s (seed %" PRIu64 ")\n",
           (int)k, h->op, desc, h->timeout, h->seed);
  alarm((unsigned)h->timeout);
}

int main(int argc, char **argv) {
  opts o;
  if (!parse(argc, argv, &o)) {
    fprintf(stderr, "usage: random_calls PLUGIN[,PLUGIN...] [--calls N] [--seed S] [--ops SUBSTR] "
                    "[--timeout SEC]\n       random_calls PLUGIN[,PLUGIN...] --seed S --ops SUBSTR --show K\n");
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
  const tabi_autograd_api *ag = NULL;
  if (tabi_runtime_extension(rt, TABI_AUTOGRAD_EXTENSION, 1, (const void **)&ag) != TABI_OK) {
    ag = NULL;
    tabi_clear_error();
  }
  /* the oracle: what the reference refuses, the plugin must refuse */
  tabi_runtime *oracle = NULL;
  if (ag) printf("random_calls: through the autograd layer, with backward passes\n");
  if (tabi_runtime_create(NULL, &oracle) != TABI_OK || tabi_runtime_load_plugin(oracle, "reference", NULL) != TABI_OK) {
    printf("random_calls: no reference plugin (%s): calls are not checked against it\n", tabi_last_error());
    tabi_runtime_destroy(oracle);
    oracle = NULL;
  }
  signal(SIGALRM, on_alarm);
  long calls = 0, backwards = 0, compared = 0, confirmed = 0, by_status[TABI_STATUS_COUNT] = {0};
  int nops = tabi_op_count(rt), tested = 0;
  for (tabi_op op = 0; op < nops; op++) {
    const tabi_op_info *info = tabi_op_get_info(rt, op);
    if (o.only && !strstr(info->name, o.only)) continue;
    if (tabi_op_backend_status(rt, op, dev.device_type) == TABI_IMPL_MISSING) continue;
    tested++;
    if (o.show >= 0) {
      static char shown[1 << 16];
      CHECK_MSG(conform_robust_show(rt, dev, op, o.seed, o.show, shown, sizeof shown), "%s", shown);
      printf("%s", shown);
      continue;
    }
    hang_ctx h = {info->name, o.timeout, o.seed};
    conform_robust_stats st;
    conform_robust_failure f;
    conform_robust_oracle orc = {oracle, NULL, 0}; /* every dtype claimed */
    int r = ag ? conform_robust_grad_op(rt, ag, oracle ? &orc : NULL, op, o.calls, o.seed, on_call, &h, &st, &f)
               : conform_robust_op(rt, dev, oracle ? &orc : NULL, op, o.calls, o.seed, on_call, &h, &st, &f);
    alarm(0);
    calls += st.calls;
    backwards += st.backwards;
    compared += st.compared;
    confirmed += st.confirmed;
    for (int s = 0; s < TABI_STATUS_COUNT; s++) by_status[s] += st.by_status[s];
    if (r < 0) printf("random_calls: %s: not driven: %s\n", info->name, f.detail);
    CHECK_MSG(r != 0, "%s: call %d: %s: %s (seed %" PRIu64 ")", info->name, (int)f.call, f.kind, f.detail,
              o.seed);
  }
  CHECK_MSG(tested > 0, "no op has a kernel for the device (--ops '%s')", o.only ? o.only : "");
  if (o.show >= 0) {
    tabi_runtime_destroy(oracle);
    tabi_runtime_destroy(rt);
    return check_report();
  }
  printf("random_calls: %s: %d ops, %ld calls (seed %" PRIu64 "), %ld accepted; refused:", o.plugins, tested,
         calls, o.seed, by_status[TABI_OK]);
  for (int s = 1; s < TABI_STATUS_COUNT; s++)
    if (by_status[s]) printf(" %s %ld", tabi_status_name(s), by_status[s]);
  if (ag) printf("; %ld backward passes", backwards);
  if (oracle)
    printf("; %ld results compared with the reference's values, %ld refusals confirmed by it", compared, confirmed);
  printf("\n");
  if (oracle && !o.only) /* one op's calls may all be refused */
    CHECK_MSG(compared > 0 && confirmed > 0, "no accepted call's values were compared with the reference's, or "
              "no refusal was checked against it (%ld, %ld)", compared, confirmed);
  if (ag) CHECK_MSG(backwards > 0, "no backward pass ran");
  tabi_runtime_destroy(oracle);
  tabi_runtime_destroy(rt);
  return check_report();
}
