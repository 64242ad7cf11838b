/* examples/mlp/mlp.c: what a framework author writes to train a model on tabi.
 *
 * It loads plugins at run time by name (found on TABI_PLUGIN_PATH or the install
 * folder): the CPU backend (the reference backend when the CPU plugin is absent),
 * the decompositions, and the three feature plugins, reached only through their
 * extensions (tabi.autograd, tabi.autocast, tabi.profiler); it links to nothing
 * but libtabi.
 *
 * The task: two interleaved spirals (a fixed-seed synthetic dataset), classified
 * by a 2-64-64-2 MLP trained with full-batch SGD, first in float32, then under
 * autocast bfloat16 with the profiler recording the last steps. It checks the
 * loss falls below a threshold in both runs, prints the profiler's table and
 * writes a Chrome trace (open it in https://ui.perfetto.dev).
 *
 *   TABI_PLUGIN_PATH=build/plugins ./build/examples/mlp/tabi_mlp [--trace FILE]
 *       [--steps N] [--points N per class] [--quiet]
 * Exit status 0 when both runs trained, 1 otherwise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/runtime.h>
#include <tabi/ext_autocast.h>
#include <tabi/ext_autograd.h>
#include <tabi/ext_profiler.h>

#include "mlp_model.h"

/* ---- the dataset ------------------------------------------------------------ */

/* Two spirals of n points each, one per class, turning 1.25 times, with a little
 * noise; a xorshift generator makes it the same on every run. */
static void make_spirals(int64_t n, uint64_t seed, float *xy, int64_t *label) {
  uint64_t s = seed;
  for (int64_t c = 0; c < 2; c++)
    for (int64_t i = 0; i < n; i++) {
      double t = (double)i / (double)n;
      double r = 0.15 + 0.85 * t, a = 2.5 * M_PI * t + M_PI * (double)c;
      s ^= s << 13; s ^= s >> 7; s ^= s << 17;
      double nx = ((double)(s & 0xffff) / 65535.0 - 0.5) * 0.06;
      double ny = ((double)((s >> 16) & 0xffff) / 65535.0 - 0.5) * 0.06;
      int64_t k = c * n + i;
      xy[2 * k] = (float)(r * cos(a) + nx);
      xy[2 * k + 1] = (float)(r * sin(a) + ny);
      label[k] = c;
    }
}

/* ---- plugins ----------------------------------------------------------------- */

static int load(tabi_runtime *rt, const char *name, int required) {
  if (tabi_runtime_load_plugin(rt, name, NULL) == TABI_OK) return 1;
  fprintf(stderr, "%s plugin '%s': %s\n", required ? "error: cannot load" : "note: no",
          name, tabi_last_error());
  tabi_clear_error();
  return 0;
}

typedef struct run_result {
  double first_loss, last_loss, accuracy;
  int ok;
} run_result;

/* Trains a fresh model for `steps` steps; with `autocast` inside a bfloat16
 * region per step; the profiler records the last `profile_steps` steps. */
static run_result train(mlp_ctx *m, const float *xy, const int64_t *label, int64_t n,
                        int32_t steps, int32_t autocast, int32_t profile_steps, double lr) {
  run_result r = {NAN, NAN, 0, 0};
  if (mlp_init(m, 2, 64, 2, 1234) != TABI_OK || mlp_set_data(m, xy, label, n) != TABI_OK) {
    fprintf(stderr, "setup failed: %s\n", tabi_last_error());
    return r;
  }
  for (int32_t step = 0; step < steps; step++) {
    int profiling = m->pf && step == steps - profile_steps;
    if (profiling) {
      tabi_profiler_options o = {sizeof o, TABI_PROFILER_RECORD_SHAPES | TABI_PROFILER_MEMORY};
      if (m->pf->start(m->pf->ctx, &o) != TABI_OK) fprintf(stderr, "%s\n", tabi_last_error());
    }
    if (m->pf) m->pf->push_range(m->pf->ctx, "train_step");
    int32_t prev = 0;
    if (autocast) prev = m->ac->set_enabled(m->ac->ctx, kDLCPU, 1);
    double loss = NAN;
    tabi_status s = mlp_forward_backward(m, &loss);
    if (autocast) m->ac->set_enabled(m->ac->ctx, kDLCPU, prev);
    if (s == TABI_OK) s = mlp_sgd_step(m, lr);
    if (m->pf) m->pf->pop_range(m->pf->ctx);
    if (s != TABI_OK) {
      fprintf(stderr, "step %d failed: %s\n", (int)step, tabi_last_error());
      return r;
    }
    if (step == 0) r.first_loss = loss;
    r.last_loss = loss;
    if (!m->quiet && (step % 100 == 0 || step == steps - 1))
      printf("  step %4d  loss %.4f\n", (int)step, loss);
  }
  if (m->pf && m->pf->is_active(m->pf->ctx)) m->pf->stop(m->pf->ctx);
  r.accuracy = mlp_accuracy(m);
  r.ok = 1;
  return r;
}

int main(int argc, char **argv) {
  const char *trace = "mlp_trace.json";
  int32_t steps = 600, quiet = 0, npoints = 128;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--trace") && i + 1 < argc) trace = argv[++i];
    else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--points") && i + 1 < argc) npoints = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quiet")) quiet = 1;
    else {
      fprintf(stderr, "usage: %s [--trace FILE] [--steps N] [--points N] [--quiet]\n",
              argv[0]);
      return 2;
    }
  }
  tabi_runtime *rt = NULL;
  if (tabi_runtime_create(NULL, &rt) != TABI_OK) {
    fprintf(stderr, "%s\n", tabi_last_error());
    return 1;
  }
  const char *backend = "cpu";
  if (!load(rt, "cpu", 0)) {
    backend = "reference";
    if (!load(rt, "reference", 1)) return 1;
  }
  load(rt, "decomp", 0);
  int ok = load(rt, "autograd", 1) & load(rt, "autocast", 1) & load(rt, "profiler", 1);
  mlp_ctx m;
  memset(&m, 0, sizeof m);
  m.rt = rt;
  m.quiet = quiet;
  if (!ok ||
      tabi_runtime_extension(rt, TABI_AUTOGRAD_EXTENSION, 1, (const void **)&m.ag) != TABI_OK ||
      tabi_runtime_extension(rt, TABI_AUTOCAST_EXTENSION, 1, (const void **)&m.ac) != TABI_OK ||
      tabi_runtime_extension(rt, TABI_PROFILER_EXTENSION, 1, (const void **)&m.pf) != TABI_OK) {
    fprintf(stderr, "error: a feature extension is missing: %s\n", tabi_last_error());
    tabi_runtime_destroy(rt);
    return 1;
  }
  printf("tabi MLP example: backend '%s', 2-64-64-2 MLP on two spirals\n", backend);

  if (npoints < 8 || npoints > 4096 || steps < 6) {
    fprintf(stderr, "--points must be 8..4096 and --steps at least 6\n");
    tabi_runtime_destroy(rt);
    return 2;
  }
  const int64_t N = npoints;
  float *xy = malloc(sizeof(float) * 4 * (size_t)N);
  int64_t *label = malloc(sizeof(int64_t) * 2 * (size_t)N);
  if (!xy || !label) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  make_spirals(N, 42, xy, label);

  /* float32, no profiler */
  const tabi_profiler_api *pf = m.pf;
  m.pf = NULL;
  printf("float32:\n");
  run_result f32 = train(&m, xy, label, 2 * N, steps, 0, 0, 0.5);
  printf("float32: loss %.4f -> %.4f, accuracy %.1f%%\n", f32.first_loss, f32.last_loss,
         100 * f32.accuracy);
  /* autocast bfloat16, profiling the last 5 steps */
  m.pf = pf;
  printf("autocast bfloat16:\n");
  run_result bf = train(&m, xy, label, 2 * N, steps, 1, 5, 0.5);
  printf("autocast bfloat16: loss %.4f -> %.4f, accuracy %.1f%%\n", bf.first_loss, bf.last_loss,
         100 * bf.accuracy);
  mlp_free(&m);
  free(xy);
  free(label);

  char *table = NULL;
  if (pf->table(pf->ctx, "self_cpu_time_total", 15, 0, &table) == TABI_OK) {
    printf("\nprofile of the last 5 autocast steps:\n%s", table);
    pf->free_string(pf->ctx, table);
  }
  if (pf->export_chrome_trace(pf->ctx, trace) == TABI_OK) printf("trace written to %s\n", trace);
  else fprintf(stderr, "trace: %s\n", tabi_last_error());

  /* Thresholds: the spirals are learnable to a low loss; bfloat16 rounding costs
   * a little. A model that did not train stays near ln 2 = 0.69. */
  int pass = f32.ok && bf.ok && f32.last_loss < 0.15 && bf.last_loss < 0.25 &&
             f32.accuracy > 0.95 && bf.accuracy > 0.9;
  printf("%s\n", pass ? "PASS: both runs trained" : "FAIL: a run did not train");
  tabi_runtime_destroy(rt);
  return pass ? 0 : 1;
}
