/* tests/mutants/test_robust_runner.c: the random-call runner
 * (conformance/conform_robust.h) catches what it promises to, on the mutants.
 *
 * `tabi conform` reports through child processes, which hides the runner's own
 * answer; here it is called directly: the correct mini-plugin passes (with
 * calls both accepted and refused, so both paths ran), a kernel that changes
 * its input and one that writes past its output are caught with the right
 * kind and the call quoted, and a run is a function of the seed and the op's
 * name alone. With the reference as oracle, a call it refuses must be refused
 * (mut_lax_alpha passes without the oracle and fails with it), and a call it
 * accepts must be accepted unless it involves a dtype the plugin does not
 * claim (mut_strict_read_only, likewise); an out= argument that overlaps an
 * input in part must be refused, as ATen refuses it (mut_out_overlap, seen only
 * through the calls that pass one storage twice); memory a call keeps is
 * leaked-memory (mut_leak). Through the autograd plugin over the cpu
 * backend, ops pass with backward passes run. */
#include <stdio.h>
#include <string.h>

#include <tabi/runtime.h>
#include <tabi/tabi.h>

#include <tabi/ext_autograd.h>

#include "check.h"
#include "conform_int.h"
#include "conform_robust.h"

typedef struct marks {
  int32_t n, in_order;
} marks;

static void on_call(void *user, int32_t k, const char *desc) {
  marks *m = user;
  if (k != m->n || !desc || !*desc) m->in_order = 0;
  m->n++;
}

static tabi_runtime *oracle_rt;
/* The reference, with what the mutants claim (their `tabi conform --dtypes`):
 * they refuse the complex dtypes (mutant.h). */
static tabi_dtype real_dtypes[TABI_DTYPE_COUNT];
static conform_robust_oracle reals;

/* mut_leak leaks on purpose; under LeakSanitizer (the sanitizer build) its
 * allocations are not this test's leaks. */
extern void __lsan_disable(void) __attribute__((weak));
extern void __lsan_enable(void) __attribute__((weak));

/* Runs `calls` random calls of `op` on the mutant `name` (against the
 * reference when `oracle` is not NULL); returns the runner's answer. */
static int run_ex(const char *name, const char *opname, int32_t calls, uint64_t seed, const conform_robust_oracle *oracle,
                  conform_robust_stats *st, conform_robust_failure *f, marks *m) {
  char path[1024];
  snprintf(path, sizeof path, "%s/libtabi_%s.so", TABI_MUTANT_DIR, name);
  tabi_runtime_options ro = {sizeof ro, TABI_RUNTIME_GUARD_ALLOCATIONS};
  tabi_runtime *rt = NULL;
  int r = -2;
  tabi_op op;
  CHECK_OK(tabi_runtime_create(&ro, &rt));
  if (!rt) return r;
  CHECK_OK(tabi_runtime_load_plugin(rt, path, NULL));
  if (tabi_op_find(rt, opname, &op) == TABI_OK) {
    *m = (marks){0, 1};
    r = conform_robust_op(rt, (DLDevice){kDLCPU, 0}, oracle, op, calls, seed, on_call, m, st, f);
  }
  tabi_runtime_destroy(rt);
  return r;
}
static int run(const char *name, const char *opname, int32_t calls, uint64_t seed, conform_robust_stats *st,
               conform_robust_failure *f, marks *m) {
  return run_ex(name, opname, calls, seed, NULL, st, f, m);
}

/* Random calls through the autograd plugin above the cpu backend. */
static void grad_calls(void) {
  static const char *plugins[3] = {"cpu", "decomp", "autograd"};
  tabi_runtime_options ro = {sizeof ro, TABI_RUNTIME_GUARD_ALLOCATIONS};
  tabi_runtime *rt = NULL;
  CHECK_OK(tabi_runtime_create(&ro, &rt));
  if (!rt) return;
  for (int i = 0; i < 3; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/libtabi_%s.so", TABI_PLUGIN_DIR, plugins[i]);
    CHECK_OK(tabi_runtime_load_plugin(rt, path, NULL));
  }
  const tabi_autograd_api *ag = NULL;
  CHECK_OK(tabi_runtime_extension(rt, TABI_AUTOGRAD_EXTENSION, 1, (const void **)&ag));
  /* abs: complex inputs need sgn (once refused); cat: legacy empties; scatter_add:
     empty indices (once a wrong-shaped gradient); constant_pad_nd: INT64_MIN pads */
  const char *ops[] = {"aten::mul.Tensor", "aten::abs", "aten::sum.dim_IntList", "aten::cat",
                       "aten::scatter_add", "aten::constant_pad_nd"};
  for (size_t i = 0; ag && i < sizeof ops / sizeof *ops; i++) {
    tabi_op op;
    CHECK_OK(tabi_op_find(rt, ops[i], &op));
    conform_robust_stats st;
    conform_robust_failure f;
    marks m = {0, 1};
    conform_robust_oracle o = {oracle_rt, NULL, 0};
    int r = conform_robust_grad_op(rt, ag, &o, op, 400, 3, on_call, &m, &st, &f);
    CHECK_MSG(r == 1, "autograd %s: %d: call %d: %s %s", ops[i], r, (int)f.call, f.kind ? f.kind : "", f.detail);
    CHECK_MSG(st.backwards > 0 && st.by_status[TABI_OK] > st.backwards / 2, "autograd %s: %lld accepted, %lld backward",
              ops[i], (long long)st.by_status[TABI_OK], (long long)st.backwards);
  }
  CHECK(conform_robust_grad_op(rt, NULL, NULL, 0, 10, 0, NULL, NULL, &(conform_robust_stats){0},
                               &(conform_robust_failure){0}) == -1);
  tabi_runtime_destroy(rt);
}

int main(void) {
  conform_robust_stats st, st2;
  conform_robust_failure f, f2;
  marks m;
  char ref[1024];
  snprintf(ref, sizeof ref, "%s/libtabi_reference.so", TABI_PLUGIN_DIR);
  CHECK_OK(tabi_runtime_create(NULL, &oracle_rt));
  CHECK_OK(tabi_runtime_load_plugin(oracle_rt, ref, NULL));
  reals = (conform_robust_oracle){oracle_rt, real_dtypes, 0};
  for (int32_t i = 0; i < TABI_DTYPE_COUNT; i++)
    if (!tabi_dtype_is_complex(tabi_all_dtypes[i])) real_dtypes[reals.ndtypes++] = tabi_all_dtypes[i];
  /* The correct plugin: every call holds, some accepted, some refused. */
  const char *good[] = {"aten::add.Tensor", "aten::mul.Tensor", "aten::maximum", "aten::neg", "aten::permute"};
  for (int i = 0; i < 5; i++) {
    int r = run("mut_ok", good[i], 300, 7, &st, &f, &m);
    CHECK_MSG(r == 1, "mut_ok %s: %d: %s %s", good[i], r, f.kind ? f.kind : "", f.detail);
    CHECK(st.calls == 300 && m.n == 300 && m.in_order);
    int64_t accepted = st.by_status[TABI_OK];
    CHECK_MSG(accepted > 0 && accepted < st.calls, "%s: %lld of %lld accepted", good[i], (long long)accepted,
              (long long)st.calls);
    r = run_ex("mut_ok", good[i], 300, 7, &reals, &st2, &f, &m);
    CHECK_MSG(r == 1, "mut_ok %s against the reference: %d: %s %s", good[i], r, f.kind ? f.kind : "", f.detail);
  }
  /* add that takes a bool alpha: only the oracle knows it must be refused */
  CHECK(run("mut_lax_alpha", "aten::add.Tensor", 300, 7, &st, &f, &m) == 1);
  CHECK(run_ex("mut_lax_alpha", "aten::add.Tensor", 300, 7, &reals, &st, &f, &m) == 0);
  CHECK_MSG(f.kind && strcmp(f.kind, CONFORM_K_ACCEPTED) == 0 && strstr(f.detail, "the reference refuses") &&
                strstr(f.detail, "alpha"),
            "kind %s: %s", f.kind ? f.kind : "", f.detail);
  /* abs that refuses a read-only self it only reads: only the oracle knows it
   * must be accepted. It refuses the integers, which it does not claim: no
   * failure, as long as the claims leave them out. */
  static const tabi_dtype floats[2] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64};
  const conform_robust_oracle floating = {oracle_rt, floats, 2};
  CHECK(run("mut_strict_read_only", "aten::abs", 300, 7, &st, &f, &m) == 1);
  CHECK(run_ex("mut_strict_read_only", "aten::abs", 300, 7, &floating, &st, &f, &m) == 0);
  CHECK_MSG(f.kind && strcmp(f.kind, CONFORM_K_REFUSED) == 0 && strstr(f.detail, "the reference accepts") &&
                strstr(f.detail, "read-only"),
            "kind %s: %s", f.kind ? f.kind : "", f.detail);
  /* atan2.out without ATen's overlap checks: its values are right, but it
   * takes an out that overlaps self or other in part (or shares memory between
   * its own elements); only a random call that passes one storage twice, put
   * to the oracle, shows it */
  CHECK(run("mut_out_overlap", "aten::atan2.out", 1000, 7, &st, &f, &m) == 1);
  CHECK(run_ex("mut_out_overlap", "aten::atan2.out", 1000, 7, &floating, &st, &f, &m) == 0);
  CHECK_MSG(f.kind && strcmp(f.kind, CONFORM_K_ACCEPTED) == 0 && strstr(f.detail, "the reference refuses") &&
                strstr(f.detail, "single memory location"),
            "kind %s: %s", f.kind ? f.kind : "", f.detail);
  /* Results that are wrong, not refusals: only the reference's own results
   * (conform_twin.h) show them. maximum that drops NaN; add.Scalar whose
   * result keeps self's dtype; add.Tensor that aligns a lower-rank operand
   * to the left. */
  static const struct {
    const char *mutant, *op, *kind;
  } wrong[] = {{"mut_nan_max", "aten::maximum", CONFORM_K_VALUE},
               {"mut_promote", "aten::add.Scalar", CONFORM_K_DTYPE},
               {"mut_broadcast", "aten::add.Tensor", CONFORM_K_VALUE}};
  for (int i = 0; i < 3; i++) {
    int r = run(wrong[i].mutant, wrong[i].op, 300, 7, &st, &f, &m);
    CHECK_MSG(r == 1, "%s without the reference: %d: %s %s", wrong[i].mutant, r, f.kind ? f.kind : "", f.detail);
    r = run_ex(wrong[i].mutant, wrong[i].op, 300, 7, &reals, &st, &f, &m);
    CHECK_MSG(r == 0 && f.kind && strcmp(f.kind, wrong[i].kind) == 0 && strstr(f.detail, "the reference's"),
              "%s against the reference: %d: kind %s: %s", wrong[i].mutant, r, f.kind ? f.kind : "", f.detail);
  }
  /* ... and the correct plugin's results were compared, not skipped */
  CHECK(run_ex("mut_ok", "aten::maximum", 300, 7, &reals, &st, &f, &m) == 1);
  CHECK_MSG(st.compared > 0 && st.compared <= st.by_status[TABI_OK], "%lld of %lld accepted calls compared",
            (long long)st.compared, (long long)st.by_status[TABI_OK]);
  /* ... and its refusals were put to the reference, which refused them too */
  CHECK_MSG(st.confirmed > 0 && st.confirmed <= st.calls - st.by_status[TABI_OK], "%lld of %lld refusals confirmed",
            (long long)st.confirmed, (long long)(st.calls - st.by_status[TABI_OK]));
  /* bitwise_not that keeps its output when it refuses a dtype */
  if (__lsan_disable) __lsan_disable();
  int leak_r = run("mut_leak", "aten::bitwise_not", 300, 7, &st, &f, &m);
  if (__lsan_enable) __lsan_enable();
  CHECK(leak_r == 0);
  CHECK_MSG(f.kind && strcmp(f.kind, CONFORM_K_LEAK) == 0 && strstr(f.detail, "bytes of tensor memory"),
            "kind %s: %s", f.kind ? f.kind : "", f.detail);
  grad_calls();
  /* abs that works in place on its input */
  CHECK(run("mut_input_mutated", "aten::abs", 300, 7, &st, &f, &m) == 0);
  CHECK(f.kind && strcmp(f.kind, CONFORM_K_MUTATED) == 0);
  CHECK(strstr(f.detail, "the call: aten::abs(") != NULL);
  CHECK(f.call >= 0 && f.call < 300 && st.calls == f.call + 1 && m.n == st.calls);
  /* neg that writes one element past its output */
  CHECK(run("mut_write_past", "aten::neg", 300, 7, &st, &f, &m) == 0);
  CHECK_MSG(f.kind && strcmp(f.kind, CONFORM_K_GUARD) == 0, "kind %s: %s", f.kind ? f.kind : "", f.detail);
  CHECK(strstr(f.detail, "the call: aten::neg(") != NULL);
  /* Replay: the same seed gives the same calls; the op's name picks its own
     stream, so another seed or another op gives others. */
  CHECK(run("mut_ok", "aten::add.Tensor", 200, 11, &st, &f, &m) == 1);
  CHECK(run("mut_ok", "aten::add.Tensor", 200, 11, &st2, &f2, &m) == 1);
  CHECK(memcmp(&st, &st2, sizeof st) == 0);
  CHECK(run("mut_input_mutated", "aten::abs", 300, 7, &st, &f, &m) == 0);
  CHECK(run("mut_input_mutated", "aten::abs", 300, 7, &st2, &f2, &m) == 0);
  CHECK(f.call == f2.call && strcmp(f.detail, f2.detail) == 0);
  CHECK(run("mut_input_mutated", "aten::abs", 300, 8, &st2, &f2, &m) == 0);
  CHECK(strcmp(f.detail, f2.detail) != 0);
  CHECK(conform_robust_seed(11, "aten::add.Tensor") == conform_robust_seed(11, "aten::add.Tensor"));
  CHECK(conform_robust_seed(11, "aten::add.Tensor") != conform_robust_seed(12, "aten::add.Tensor"));
  CHECK(conform_robust_seed(11, "aten::add.Tensor") != conform_robust_seed(11, "aten::add.Scalar"));
  char buf[256];
  st = (conform_robust_stats){0};
  st.by_status[TABI_ERR_SHAPE] = 3;
  st.by_status[TABI_ERR_TYPE] = 5;
  conform_robust_stats_str(&st, buf, sizeof buf);
  CHECK_MSG(strcmp(buf, "TABI_ERR_TYPE 5, TABI_ERR_SHAPE 3") == 0, "got '%s'", buf);
  tabi_runtime_destroy(oracle_rt);
  return check_report();
}
