/* bench/dispatch/bench_dispatch.c: the no-op dispatch benchmark.
 *
 * Calls bench::noop (a composite kernel returning its argument) on a 1-element
 * tensor and reports ns per call for: the dispatcher alone; with the autograd,
 * autocast and profiler plugins loaded but disabled (must stay within 10%);
 * with autocast enabled (the op is not listed: it must not reach the layer);
 * with the profiler recording (the profiled per-call overhead). Then runs the
 * PyTorch peer (torch.ops.aten.alias and a 1-element add, torch 1.13) and, when
 * built, the libtorch C++ peer, and prints the ratios.
 *
 *   tabi_bench_dispatch [--calls N] [--reps R] [--no-torch]
 * Exit status 1 when the disabled-plugins overhead exceeds 10%.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tabi/runtime.h>
#include <tabi/ext_autocast.h>
#include <tabi/ext_profiler.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static tabi_runtime *runtime(int features) {
  tabi_runtime *rt = NULL;
  char path[1024];
  if (tabi_runtime_create(NULL, &rt) != TABI_OK) return NULL;
  snprintf(path, sizeof path, "%s", TABI_BENCH_NOOP_PLUGIN);
  if (tabi_runtime_load_plugin(rt, path, NULL) != TABI_OK) goto bad;
  const char *names[] = {"autograd", "autocast", "profiler"};
  for (int i = 0; features && i < 3; i++) {
    snprintf(path, sizeof path, "%s/libtabi_%s.so", TABI_BENCH_PLUGIN_DIR, names[i]);
    if (tabi_runtime_load_plugin(rt, path, NULL) != TABI_OK) goto bad;
  }
  return rt;
bad:
  fprintf(stderr, "%s\n", tabi_last_error());
  tabi_runtime_destroy(rt);
  return NULL;
}

/* ns per call of bench::noop over n calls. */
static double time_calls(tabi_runtime *rt, tabi_tensor *x, int64_t n) {
  tabi_op op;
  if (tabi_op_find(rt, "bench::noop", &op) != TABI_OK) return -1;
  tabi_value a[1] = {tabi_tensor_value(x)}, out;
  double t0 = now_s();
  for (int64_t i = 0; i < n; i++) {
    if (tabi_call(rt, op, a, 1, &out, 1) != TABI_OK) return -1;
    tabi_tensor_release(out.u.t);
  }
  return (now_s() - t0) * 1e9 / (double)n;
}

static tabi_tensor *one(tabi_runtime *rt) {
  const int64_t s[1] = {1};
  const DLDevice cpu = {kDLCPU, 0};
  tabi_tensor *t = NULL;
  tabi_tensor_empty(rt, cpu, TABI_DTYPE_FLOAT32, 1, s, &t);
  return t;
}

static double min2(double a, double b) { return a < 0 ? b : (b < a ? b : a); }

int main(int argc, char **argv) {
  int64_t calls = 2000000;
  int reps = 7, torch = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--calls") && i + 1 < argc) calls = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--no-torch")) torch = 0;
  }
  tabi_runtime *bare = runtime(0), *feat = runtime(1);
  if (!bare || !feat) return 2;
  tabi_tensor *xb = one(bare), *xf = one(feat);
  const tabi_autocast_api *ac = NULL;
  const tabi_profiler_api *pf = NULL;
  tabi_runtime_extension(feat, TABI_AUTOCAST_EXTENSION, 1, (const void **)&ac);
  tabi_runtime_extension(feat, TABI_PROFILER_EXTENSION, 1, (const void **)&pf);
  if (!ac || !pf) return 2;
  /* Interleaved reps, best of each: the machine's noise hits both alike. */
  double t_bare = -1, t_feat = -1, t_ac = -1;
  time_calls(bare, xb, calls / 10);
  time_calls(feat, xf, calls / 10);
  for (int r = 0; r < reps; r++) {
    t_bare = min2(t_bare, time_calls(bare, xb, calls));
    t_feat = min2(t_feat, time_calls(feat, xf, calls));
    int32_t prev = ac->set_enabled(ac->ctx, kDLCPU, 1);
    t_ac = min2(t_ac, time_calls(feat, xf, calls));
    ac->set_enabled(ac->ctx, kDLCPU, prev);
  }
  /* Profiled: fewer calls (each one is an event kept in memory). */
  int64_t pcalls = calls / 10 > 200000 ? 200000 : calls / 10;
  double t_prof = -1, t_prof_full = -1;
  for (int r = 0; r < 3; r++) {
    tabi_profiler_options o = {sizeof o, 0};
    pf->start(pf->ctx, &o);
    t_prof = min2(t_prof, time_calls(feat, xf, pcalls));
    pf->stop(pf->ctx);
    o.flags = TABI_PROFILER_RECORD_SHAPES | TABI_PROFILER_MEMORY;
    pf->start(pf->ctx, &o);
    t_prof_full = min2(t_prof_full, time_calls(feat, xf, pcalls));
    pf->stop(pf->ctx);
  }
  double over = (t_feat - t_bare) / t_bare * 100.0;
  printf("no-op dispatch (bench::noop on a 1-element tensor, best of %d x %lld calls)\n", reps,
         (long long)calls);
  printf("  tabi, no feature plugins:                      %8.1f ns/call  %6.2f M calls/s\n",
         t_bare, 1e3 / t_bare);
  printf("  tabi, autograd+autocast+profiler, disabled:    %8.1f ns/call  %6.2f M calls/s  (%+.1f%%)\n",
         t_feat, 1e3 / t_feat, over);
  printf("  tabi, autocast enabled (op not listed):        %8.1f ns/call  (%+.1f%%)\n", t_ac,
         (t_ac - t_bare) / t_bare * 100.0);
  printf("  tabi, profiler on (no shapes, no memory):      %8.1f ns/call  overhead %.1f ns/call\n",
         t_prof, t_prof - t_feat);
  printf("  tabi, profiler on (shapes + memory):           %8.1f ns/call  overhead %.1f ns/call\n",
         t_prof_full, t_prof_full - t_feat);
  if (torch && access("/usr/bin/python3", X_OK) == 0) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s", TABI_BENCH_TORCH_PY);
    FILE *p = popen(cmd, "r");
    char line[256];
    double alias = -1, add = -1;
    while (p && fgets(line, sizeof line, p)) {
      sscanf(line, "alias_ns %lf", &alias);
      sscanf(line, "add_ns %lf", &add);
    }
    if (p) pclose(p);
    if (alias > 0)
      printf("  PyTorch 1.13 torch.ops.aten.alias (Python):    %8.1f ns/call  tabi is %.1fx faster\n",
             alias, alias / t_bare);
    if (add > 0)
      printf("  PyTorch 1.13 1-element torch.add (Python):     %8.1f ns/call  tabi is %.1fx faster\n",
             add, add / t_bare);
  }
  char exe[1024];
  snprintf(exe, sizeof exe, "%s_libtorch", argv[0]);
  if (torch && access(exe, X_OK) == 0) {
    FILE *p = popen(exe, "r");
    char line[256];
    double alias = -1, add = -1;
    while (p && fgets(line, sizeof line, p)) {
      sscanf(line, "alias_ns %lf", &alias);
      sscanf(line, "add_ns %lf", &add);
    }
    if (p) pclose(p);
    if (alias > 0)
      printf("  libtorch 1.13 at::alias (C++):                 %8.1f ns/call  tabi is %.1fx faster\n",
             alias, alias / t_bare);
    if (add > 0)
      printf("  libtorch 1.13 1-element at::add (C++):         %8.1f ns/call  ratio %.2fx\n", add,
             add / t_bare);
  }
  printf("%s: disabled feature plugins cost %+.1f%% (limit 10%%)\n", over <= 10.0 ? "PASS" : "FAIL",
         over);
  tabi_tensor_release(xb);
  tabi_tensor_release(xf);
  tabi_runtime_destroy(bare);
  tabi_runtime_destroy(feat);
  return over <= 10.0 ? 0 : 1;
}
