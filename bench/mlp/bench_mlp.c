/* bench/mlp/bench_mlp.c: one training step (forward, cross-entropy, backward,
 * SGD) of the example's MLP (2-64-64-2, batch 256) and of a 1024-1024-1024-10
 * MLP (batch 256) in tabi (CPU plugin, autograd), float32, then the same models
 * in PyTorch 1.13 eager (torch_mlp.py, same thread count) in one run, printing
 * the ratio (PyTorch time / tabi time: > 1 means tabi is faster).
 *
 *   TABI_NUM_THREADS=N tabi_bench_mlp [--steps S] [--no-torch]
 *
 * Both run with the same thread count: TABI_NUM_THREADS when set, else the
 * cores online (what the CPU plugin itself takes then); torch gets it through
 * torch.set_num_threads, and both counts are printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mlp_model.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median ms per step over `steps` steps after 3 warm-up steps. */
static double bench(mlp_ctx *m, const int64_t *sizes, int32_t nsizes, int64_t batch, int steps) {
  int64_t in = sizes[0], k = sizes[nsizes - 1];
  float *x = malloc(sizeof(float) * (size_t)(batch * in));
  int64_t *y = malloc(sizeof(int64_t) * (size_t)batch);
  double *t = malloc(sizeof(double) * (size_t)steps);
  uint64_t s = 7;
  for (int64_t i = 0; i < batch * in; i++) {
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    x[i] = (float)((double)(s >> 11) / 9007199254740992.0 * 2 - 1);
  }
  for (int64_t i = 0; i < batch; i++) y[i] = i % k;
  double med = -1;
  if (mlp_init_layers(m, sizes, nsizes, 1) == TABI_OK && mlp_set_data(m, x, y, batch) == TABI_OK) {
    for (int i = 0; i < steps + 3; i++) {
      double t0 = now_s();
      if (mlp_forward_backward(m, NULL) != TABI_OK || mlp_sgd_step(m, 0.01) != TABI_OK) {
        fprintf(stderr, "step failed: %s\n", tabi_last_error());
        break;
      }
      if (i >= 3) t[i - 3] = (now_s() - t0) * 1e3;
      if (i == steps + 2) {
        qsort(t, (size_t)steps, sizeof *t, cmp);
        med = t[steps / 2];
      }
    }
  }
  free(x);
  free(y);
  free(t);
  return med;
}

int main(int argc, char **argv) {
  int steps = 20, torch = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--no-torch")) torch = 0;
  }
  if (steps < 1) steps = 1;
  tabi_runtime *rt = NULL;
  if (tabi_runtime_create(NULL, &rt) != TABI_OK) return 2;
  char path[1024];
  snprintf(path, sizeof path, "%s/libtabi_cpu.so", TABI_BENCH_PLUGIN_DIR);
  const char *backend = "cpu";
  if (tabi_runtime_load_plugin(rt, path, NULL) != TABI_OK) {
    backend = "reference";
    snprintf(path, sizeof path, "%s/libtabi_reference.so", TABI_BENCH_PLUGIN_DIR);
    if (tabi_runtime_load_plugin(rt, path, NULL) != TABI_OK) return 2;
  }
  snprintf(path, sizeof path, "%s/libtabi_decomp.so", TABI_BENCH_PLUGIN_DIR);
  tabi_runtime_load_plugin(rt, path, NULL);
  snprintf(path, sizeof path, "%s/libtabi_autograd.so", TABI_BENCH_PLUGIN_DIR);
  mlp_ctx m;
  memset(&m, 0, sizeof m);
  m.rt = rt;
  if (tabi_runtime_load_plugin(rt, path, NULL) != TABI_OK ||
      tabi_runtime_extension(rt, TABI_AUTOGRAD_EXTENSION, 1, (const void **)&m.ag) != TABI_OK) {
    fprintf(stderr, "autograd: %s\n", tabi_last_error());
    return 2;
  }
  /* The CPU plugin's rule (cpu_default_threads): TABI_NUM_THREADS if valid,
   * else the cores online. */
  const char *thr = getenv("TABI_NUM_THREADS");
  long threads = thr ? strtol(thr, NULL, 10) : 0;
  if (threads < 1 || threads > 1024) threads = sysconf(_SC_NPROCESSORS_ONLN);
  if (threads < 1) threads = 1;
  const int64_t small[4] = {2, 64, 64, 2}, big[4] = {1024, 1024, 1024, 10};
  double ts = bench(&m, small, 4, 256, steps * 5);
  double tb = bench(&m, big, 4, 256, steps);
  mlp_free(&m);
  tabi_runtime_destroy(rt);
  printf("MLP training step (float32, batch 256, median of %d/%d steps), backend '%s', "
         "tabi threads %ld (TABI_NUM_THREADS=%s)\n", steps * 5, steps, backend, threads,
         thr ? thr : "unset");
  printf("  tabi   2-64-64-2:          %9.3f ms/step\n", ts);
  printf("  tabi   1024-1024-1024-10:  %9.3f ms/step\n", tb);
  if (torch && access("/usr/bin/python3", X_OK) == 0) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s %ld %d", TABI_BENCH_TORCH_PY, threads, steps);
    FILE *p = popen(cmd, "r");
    char line[256];
    double ps = -1, pb = -1;
    int pthreads = 0;
    while (p && fgets(line, sizeof line, p)) {
      sscanf(line, "small_ms %lf", &ps);
      sscanf(line, "big_ms %lf", &pb);
      sscanf(line, "threads %d", &pthreads);
    }
    if (p) pclose(p);
    printf("  torch  2-64-64-2:          %9.3f ms/step  (torch threads %d)  ratio torch/tabi %.2fx\n",
           ps, pthreads, ps / ts);
    printf("  torch  1024-1024-1024-10:  %9.3f ms/step  ratio torch/tabi %.2fx\n", pb, pb / tb);
  }
  return 0;
}
