/* tests/cpu/test_cpu_nn.c: the CPU plugin's nn kernels (matmul family in
 * every float dtype, and the nn ops of cpu_ops_nn.h added with them) against
 * the reference kernels, plus the thread pool's safety rules: a forked child
 * computes (no hang: the pool and oneDNN run inline there), and two framework
 * threads calling at once get right results.
 *
 * The harness (make/same/run/diff: tests/cpu/cpu_harness.h) is shared: the same
 * inputs go into a runtime with libtabi_cpu.so and one with the reference
 * plugin; outputs compare with shared/spec/tolerances.md, widened by `scale`
 * for long sums. Sizes are large enough for the threaded paths; views are
 * transposed (non-contiguous) where the spec says so.
 *
 * usage: test_cpu_nn CPU_PLUGIN REFERENCE_PLUGIN
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/half.h>
#include <tabi/runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpu_harness.h"

#define T3(n0, n1, n2, dt_, tr) {3, {n0, n1, n2}, dt_, FILL_RAND, 0, tr}

static const tabi_dtype mm_dts[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16,
                                     TABI_DTYPE_FLOAT64};

/* mm/bmm/addmm: every float dtype, both operands plain or transposed, sizes
 * from the MLP's 256x64 to threaded ones, alpha/beta and broadcast self. */
static void matmul_cases(tabi_runtime *f, tabi_runtime *r) {
  static const int64_t shapes[][3] = {{256, 64, 64}, {129, 300, 65}, {7, 3, 5}, {1, 1, 1}, {300, 17, 513}};
  for (int d = 0; d < 4; d++) {
    tabi_dtype dt = mm_dts[d];
    char label[96];
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
      for (int tr = 0; tr < 4; tr++) {
        int64_t m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
        /* transposed: an [m, k] view with strides (1, m) of a [k, m] tensor */
        tspec a = T2(m, k, dt, FILL_RAND, tr & 1), b = T2(k, n, dt, FILL_RAND, (tr >> 1) & 1);
        snprintf(label, sizeof label, "%s %lldx%lldx%lld a%s b%s", tabi_dtype_name(dt), (long long)m,
                 (long long)k, (long long)n, tr & 1 ? "^T" : "", tr & 2 ? "^T" : "");
        callspec mm = {"aten::mm", 2, {a, b}, {0, 1}, 2, {{0}}, 1, 50};
        diff(f, r, &mm, label);
        /* addmm: bias row, alpha 2, beta 0.5 */
        callspec ad = {"aten::addmm", 5, {T1(n, dt, FILL_RAND), a, b}, {0, 1, 2}, 3,
                       {{0}, {0}, {0}, tabi_float(0.5), tabi_int(2)}, 1, 50};
        diff(f, r, &ad, label);
      }
    /* addmm with a full [m, n] self (transposed view), default alpha/beta */
    callspec full = {"aten::addmm", 5, {T2(90, 40, dt, FILL_RAND, 1), T2(90, 33, dt, FILL_RAND, 0),
                                        T2(33, 40, dt, FILL_RAND, 0)},
                     {0, 1, 2}, 3, {{0}, {0}, {0}, tabi_int(1), tabi_int(1)}, 1, 50};
    diff(f, r, &full, tabi_dtype_name(dt));
    /* beta 0: self is not read, its NaN and inf must not show */
    callspec b0 = {"aten::addmm", 5, {T2(90, 40, dt, FILL_SPECIAL, 0), T2(90, 33, dt, FILL_RAND, 0),
                                      T2(33, 40, dt, FILL_RAND, 0)},
                   {0, 1, 2}, 3, {{0}, {0}, {0}, tabi_int(0), tabi_float(-1.5)}, 1, 50};
    diff(f, r, &b0, "beta 0, NaN in self");
    /* a [m, 1] column self, and specials in the operands (NaN/inf propagate) */
    callspec col = {"aten::addmm", 5, {T2(90, 1, dt, FILL_RAND, 0), T2(90, 33, dt, FILL_SPECIAL, 0),
                                       T2(33, 40, dt, FILL_RAND, 0)},
                    {0, 1, 2}, 3, {{0}, {0}, {0}, tabi_int(1), tabi_int(1)}, 1, 50};
    diff(f, r, &col, "column self, specials");
    /* bmm, plain and transposed batches */
    for (int tr = 0; tr < 2; tr++) {
      callspec bmm = {"aten::bmm", 2, {T3(5, 33, 70, dt, tr), T3(5, 70, 19, dt, 0)}, {0, 1}, 2, {{0}}, 1, 50};
      diff(f, r, &bmm, tr ? "bmm a^T" : "bmm");
    }
  }
  /* argument errors and empty dims are the reference's: same status */
  callspec bad = {"aten::mm", 2, {T2(4, 5, TABI_DTYPE_FLOAT32, FILL_RAND, 0),
                                  T2(6, 3, TABI_DTYPE_FLOAT32, FILL_RAND, 0)}, {0, 1}, 2, {{0}}, 1, 0};
  diff(f, r, &bad, "shape mismatch");
  callspec mixed = {"aten::mm", 2, {T2(4, 5, TABI_DTYPE_FLOAT32, FILL_RAND, 0),
                                    T2(5, 3, TABI_DTYPE_BFLOAT16, FILL_RAND, 0)}, {0, 1}, 2, {{0}}, 1, 0};
  diff(f, r, &mixed, "mixed dtypes");
  callspec empty = {"aten::mm", 2, {T2(4, 0, TABI_DTYPE_FLOAT16, FILL_RAND, 0),
                                    T2(0, 3, TABI_DTYPE_FLOAT16, FILL_RAND, 0)}, {0, 1}, 2, {{0}}, 1, 0};
  diff(f, r, &empty, "k = 0");
}

/* A forked child computes threaded kernels without hanging (libgomp's team and
 * the pool's workers stay in the parent). The parent has run threaded work
 * first, so the child inherits a started team. */
static void fork_case(tabi_runtime *f, tabi_runtime *r) {
  callspec mm = {"aten::mm", 2, {T2(400, 300, TABI_DTYPE_FLOAT32, FILL_RAND, 0),
                                 T2(300, 200, TABI_DTYPE_FLOAT32, FILL_RAND, 1)}, {0, 1}, 2, {{0}}, 1, 50};
  diff(f, r, &mm, "parent, before fork");
  fflush(NULL);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    alarm(60); /* a hang becomes a failure, not a stuck test */
    int before = check_failed_;
    diff(f, r, &mm, "forked child");
    callspec bf = mm;
    bf.t[0].dt = bf.t[1].dt = TABI_DTYPE_BFLOAT16;
    diff(f, r, &bf, "forked child bf16");
    _exit(check_failed_ == before ? 0 : 1);
  }
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  CHECK_MSG(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
            "forked child: exited %d, signal %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
            WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  diff(f, r, &mm, "parent, after fork");
}

/* Two framework threads call threaded kernels at once (one owns the team, the
 * other runs its own or inline): both results right. */
typedef struct thr_arg {
  tabi_runtime *f, *r;
  int failed;
} thr_arg;

static void *thr_main(void *p) {
  thr_arg *a = p;
  int before = check_failed_;
  for (int i = 0; i < 3; i++) {
    callspec mm = {"aten::mm", 2, {T2(200, 150, TABI_DTYPE_FLOAT32, FILL_RAND, 0),
                                   T2(150, 300, TABI_DTYPE_FLOAT32, FILL_RAND, 0)}, {0, 1}, 2, {{0}}, 1, 50};
    tabi_value o[1];
    if (run(a->f, &mm, 99, o) != TABI_OK) { a->failed = 1; continue; }
    tabi_value e[1];
    if (run(a->r, &mm, 99, e) != TABI_OK || !same("threaded mm", o[0].u.t, e[0].u.t, 50)) a->failed = 1;
    tabi_value_release(&o[0]);
    tabi_value_release(&e[0]);
  }
  (void)before;
  return NULL;
}

/* Four threads calling small products (specials in the inputs) at once get the
 * bits of the same call made alone: oneDNN's shared scratchpad once mixed them
 * up (the plans now give every call its own). */
#define STRESS_SHAPES 6
static tabi_value stress_want[STRESS_SHAPES];
static int stress_bad;

static callspec stress_spec(int s) {
  static const int64_t shp[STRESS_SHAPES][3] = {{3, 4, 5}, {2, 3, 4}, {5, 1, 2}, {2, 5, 7}, {7, 3, 2}, {4, 6, 1}};
  callspec c = {"aten::bmm", 2, {{3, {2, shp[s][0], shp[s][1]}, TABI_DTYPE_FLOAT32, FILL_SPECIAL, 0, 0},
                                 {3, {2, shp[s][1], shp[s][2]}, TABI_DTYPE_FLOAT32, FILL_SPECIAL, 0, 0}},
                {0, 1}, 2, {{0}}, 1, 0};
  return c;
}

static void *stress_main(void *p) {
  tabi_runtime *f = p;
  for (int i = 0; i < 400; i++) {
    int s = i % STRESS_SHAPES;
    callspec c = stress_spec(s);
    tabi_value o[1];
    if (run(f, &c, 5 + (uint64_t)s, o) != TABI_OK) { __atomic_add_fetch(&stress_bad, 1, __ATOMIC_RELAXED); continue; }
    const tabi_tensor *x = o[0].u.t, *y = stress_want[s].u.t;
    if (memcmp(tabi_tensor_data(x), tabi_tensor_data(y), (size_t)tabi_tensor_numel(y) * 4) != 0)
      __atomic_add_fetch(&stress_bad, 1, __ATOMIC_RELAXED);
    tabi_value_release(&o[0]);
  }
  return NULL;
}

static void stress_case(tabi_runtime *f) {
  for (int s = 0; s < STRESS_SHAPES; s++) {
    callspec c = stress_spec(s);
    CHECK_OK(run(f, &c, 5 + (uint64_t)s, &stress_want[s]));
  }
  pthread_t t[4];
  int made[4];
  for (int i = 0; i < 4; i++) made[i] = pthread_create(&t[i], NULL, stress_main, f) == 0;
  for (int i = 0; i < 4; i++)
    if (made[i]) pthread_join(t[i], NULL);
  CHECK_MSG(stress_bad == 0, "%d of 1600 concurrent small bmm calls differ from the call made alone",
            stress_bad);
  for (int s = 0; s < STRESS_SHAPES; s++) tabi_value_release(&stress_want[s]);
}

static void threads_case(tabi_runtime *f, tabi_runtime *r) {
  stress_case(f);
  thr_arg a[2] = {{f, r, 0}, {f, r, 0}};
  pthread_t t[2];
  int made[2];
  for (int i = 0; i < 2; i++) made[i] = pthread_create(&t[i], NULL, thr_main, &a[i]) == 0;
  for (int i = 0; i < 2; i++) {
    CHECK(made[i]);
    if (made[i]) pthread_join(t[i], NULL);
    CHECK_MSG(!a[i].failed, "framework thread %d got a wrong mm", i);
  }
}

/* _to_copy and clone: conversions between the float types, same-dtype copies
 * of other dtypes, preserve (keeps a transposed input transposed) and
 * contiguous (gathers) memory formats, 0-d and empty. */
static void copy_cases(tabi_runtime *f, tabi_runtime *r) {
  static const tabi_dtype dts[5] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16,
                                    TABI_DTYPE_FLOAT64, TABI_DTYPE_INT64};
  char label[96];
  for (int s = 0; s < 5; s++)
    for (int d = 0; d < 5; d++)
      for (int tr = 0; tr < 2; tr++)
        for (int fmt = 0; fmt < 3; fmt++) { /* None (preserve), contiguous (0), preserve (1) */
          tspec x = T2(301, 333, dts[s], dts[s] == TABI_DTYPE_INT64 ? FILL_INDEX : FILL_SPECIAL, tr);
          x.hi = 1000;
          callspec c = {"aten::_to_copy", 7, {x}, {0}, 1,
                        {{0}, tabi_dtype_value(dts[d]), tabi_none(), tabi_none(), tabi_none(),
                         tabi_bool(0), fmt ? tabi_int(fmt - 1) : tabi_none()}, 1, 0};
          snprintf(label, sizeof label, "%s -> %s%s fmt %d", tabi_dtype_name(dts[s]),
                   tabi_dtype_name(dts[d]), tr ? " transposed" : "", fmt);
          diff(f, r, &c, label);
          if (s == d) {
            callspec cl = {"aten::clone", 2, {x}, {0}, 1, {{0}, fmt ? tabi_int(fmt - 1) : tabi_none()}, 1, 0};
            diff(f, r, &cl, label);
          }
        }
  /* a 3-d view with the middle dims swapped, gathered to contiguous */
  tspec v = {3, {7, 50, 90}, TABI_DTYPE_BFLOAT16, FILL_RAND, 0, 1};
  callspec g = {"aten::_to_copy", 7, {v}, {0}, 1,
                {{0}, tabi_dtype_value(TABI_DTYPE_FLOAT32), tabi_none(), tabi_none(), tabi_none(),
                 tabi_bool(0), tabi_int(0)}, 1, 0};
  diff(f, r, &g, "3-d gather");
  tspec z = {0, {0}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0}, e = T2(0, 5, TABI_DTYPE_FLOAT32, FILL_RAND, 0);
  callspec c0 = {"aten::_to_copy", 7, {z}, {0}, 1,
                 {{0}, tabi_dtype_value(TABI_DTYPE_BFLOAT16), tabi_none(), tabi_none(), tabi_none(),
                  tabi_bool(0), tabi_none()}, 1, 0};
  diff(f, r, &c0, "0-d");
  c0.t[0] = e;
  diff(f, r, &c0, "empty");
  /* prims::copy_to (into a) and aten::copy (a new tensor like self), converting */
  for (int s = 0; s < 4; s++)
    for (int d = 0; d < 4; d++) {
      snprintf(label, sizeof label, "%s <- %s", tabi_dtype_name(dts[d]), tabi_dtype_name(dts[s]));
      callspec ct = {"prims::copy_to", 2, {T2(301, 333, dts[d], FILL_RAND, 0), T2(301, 333, dts[s], FILL_SPECIAL, 0)},
                     {0, 1}, 2, {{0}}, 1, 0};
      diff(f, r, &ct, label);
      callspec cp = {"aten::copy", 3, {T2(301, 333, dts[d], FILL_RAND, 0), T2(301, 333, dts[s], FILL_SPECIAL, 0)},
                     {0, 1}, 2, {{0}, {0}, tabi_bool(0)}, 1, 0};
      diff(f, r, &cp, label);
      cp.t[1] = (tspec)T1(333, dts[s], FILL_SPECIAL); /* broadcast src: the reference's case */
      diff(f, r, &cp, "broadcast src");
    }
}

/* native_layer_norm_backward: with and without weight/bias, every mask, a 3-d
 * input normalized over two dims, many rows (the column-sum chunks). */
static void layer_norm_bwd_cases(tabi_runtime *f, tabi_runtime *r) {
  static const int64_t masks[4][3] = {{1, 1, 1}, {1, 0, 0}, {0, 1, 1}, {0, 0, 1}};
  int64_t ns1[1] = {1001}, ns2[2] = {75, 64};
  for (int aff = 0; aff < 2; aff++)
    for (int mk = 0; mk < 4; mk++) {
      callspec c = {"aten::native_layer_norm_backward", 8,
                    {T2(300, 1001, TABI_DTYPE_FLOAT32, FILL_RAND, 0), T2(300, 1001, TABI_DTYPE_FLOAT32, FILL_RAND, 0),
                     T2(300, 1, TABI_DTYPE_FLOAT32, FILL_RAND, 0), T2(300, 1, TABI_DTYPE_FLOAT32, FILL_RAND, 0),
                     T1(1001, TABI_DTYPE_FLOAT32, FILL_RAND), T1(1001, TABI_DTYPE_FLOAT32, FILL_RAND)},
                    {0, 1, 3, 4, 5, 6}, aff ? 6 : 4,
                    {{0}, {0}, tabi_int_list(ns1, 1), {0}, {0}, tabi_none(), tabi_none(),
                     tabi_bool_list(masks[mk], 3)}, 3, 4};
      char label[64];
      snprintf(label, sizeof label, "%s mask %lld%lld%lld", aff ? "affine" : "no affine",
               (long long)masks[mk][0], (long long)masks[mk][1], (long long)masks[mk][2]);
      diff(f, r, &c, label);
    }
  callspec c3 = {"aten::native_layer_norm_backward", 8,
                 {{3, {40, 75, 64}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0}, {3, {40, 75, 64}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0},
                  {3, {40, 1, 1}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0}, {3, {40, 1, 1}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0},
                  T2(75, 64, TABI_DTYPE_FLOAT32, FILL_RAND, 0)},
                 {0, 1, 3, 4, 5}, 5,
                 {{0}, {0}, tabi_int_list(ns2, 2), {0}, {0}, {0}, tabi_none(), tabi_bool_list(masks[0], 3)}, 3, 4};
  diff(f, r, &c3, "3-d, two normalized dims");
  /* a transposed (non-contiguous) input: the reference's case */
  c3.t[1] = (tspec){3, {40, 75, 64}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 1};
  diff(f, r, &c3, "3-d transposed input");
}

/* max_pool2d_with_indices (+ backward): padding, stride, dilation, ceil
 * mode, NaN and inf in the input, 3-d and 4-d; the backward with indices
 * anywhere in the plane (overlapping windows add up). */
static void pool_cases(tabi_runtime *f, tabi_runtime *r) {
  int64_t k3[2] = {3, 3}, k2[1] = {2}, s2[2] = {2, 2}, s1[1] = {1}, p1[2] = {1, 1}, p0[1] = {0};
  int64_t d1[1] = {1}, d2[2] = {2, 1}, s3[2] = {3, 2};
  /* strides 1 and 2 (the vector path's loads), 3 (its gathers), dilation */
  struct { const int64_t *k, *s, *p, *d; int64_t nk, ns, np, nd; int ceil; } cfg[] = {
      {k3, s2, p1, d1, 2, 2, 2, 1, 0}, {k3, s2, p1, d1, 2, 2, 2, 1, 1}, {k2, s1, p0, d1, 1, 1, 1, 1, 0},
      {k3, NULL, p1, d2, 2, 0, 2, 2, 1}, {k2, s2, p0, d2, 1, 2, 1, 2, 0}, {k3, s3, p1, d1, 2, 2, 2, 1, 0}};
  char label[64];
  for (size_t i = 0; i < sizeof cfg / sizeof *cfg; i++)
    for (int v = 0; v < 3; v++) { /* 3-d, 4-d, 4-d with many ties (few distinct values) */
      int nd = v == 0 ? 3 : 4, few = v == 2;
      tspec x = nd == 4 ? (tspec){4, {2, 8, 37, 41}, TABI_DTYPE_FLOAT32, few ? FILL_FEW : FILL_SPECIAL, 0, 0}
                        : (tspec){3, {8, 37, 41}, TABI_DTYPE_FLOAT32, FILL_SPECIAL, 0, 0};
      callspec c = {"aten::max_pool2d_with_indices", 6, {x}, {0}, 1,
                    {{0}, tabi_int_list(cfg[i].k, cfg[i].nk), tabi_int_list(cfg[i].s, cfg[i].ns),
                     tabi_int_list(cfg[i].p, cfg[i].np), tabi_int_list(cfg[i].d, cfg[i].nd),
                     tabi_bool(cfg[i].ceil)}, 2, 0};
      snprintf(label, sizeof label, "config %d, %d-d%s", (int)i, nd, few ? ", ties" : "");
      diff(f, r, &c, label);
      /* the output size, from a reference call */
      tabi_value o[2];
      if (run(r, &c, 42, o) != TABI_OK) continue;
      int64_t oh = o[0].u.t->dl.shape[nd - 2], ow = o[0].u.t->dl.shape[nd - 1];
      tabi_value_release(&o[0]);
      tabi_value_release(&o[1]);
      tspec go = x, ind = x;
      go.shape[nd - 2] = ind.shape[nd - 2] = oh;
      go.shape[nd - 1] = ind.shape[nd - 1] = ow;
      go.fill = FILL_RAND;
      ind.dt = TABI_DTYPE_INT64;
      ind.fill = FILL_INDEX;
      ind.hi = 37 * 41;
      callspec b = {"aten::max_pool2d_with_indices_backward", 8, {go, x, ind}, {0, 1, 7}, 3,
                    {{0}, {0}, c.extra[1], c.extra[2], c.extra[3], c.extra[4], c.extra[5], {0}}, 1, 4};
      diff(f, r, &b, label);
    }
  /* an index outside the plane: the reference's error */
  tspec x = {3, {2, 6, 6}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0};
  tspec go = {3, {2, 3, 3}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0};
  tspec ind = {3, {2, 3, 3}, TABI_DTYPE_INT64, FILL_INDEX, 1000, 0};
  callspec bad = {"aten::max_pool2d_with_indices_backward", 8, {go, x, ind}, {0, 1, 7}, 3,
                  {{0}, {0}, tabi_int_list(k2, 1), tabi_int_list(s2, 2), tabi_int_list(p0, 1),
                   tabi_int_list(d1, 1), tabi_bool(0), {0}}, 1, 0};
  diff(f, r, &bad, "index out of range");
}

/* embedding: int64 and int32 indices of several shapes, float and int
 * weights, an out-of-range index (the reference's error). */
static void embedding_cases(tabi_runtime *f, tabi_runtime *r) {
  static const tabi_dtype wdt[3] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT64};
  for (int w = 0; w < 3; w++)
    for (int k = 0; k < 3; k++) {
      tspec weight = T2(5003, 77, wdt[w], FILL_SPECIAL, 0);
      tspec idx = k == 0 ? (tspec){1, {20011}, TABI_DTYPE_INT64, FILL_INDEX, 5003, 0}
                  : k == 1 ? (tspec){2, {64, 129}, TABI_DTYPE_INT64, FILL_INDEX, 5003, 0}
                           : (tspec){3, {4, 8, 33}, TABI_DTYPE_INT32, FILL_INDEX, 5003, 0};
      callspec c = {"aten::embedding", 5, {weight, idx}, {0, 1}, 2,
                    {{0}, {0}, tabi_int(-1), tabi_bool(0), tabi_bool(0)}, 1, 0};
      diff(f, r, &c, tabi_dtype_name(wdt[w]));
    }
  callspec bad = {"aten::embedding", 5, {T2(50, 7, TABI_DTYPE_FLOAT32, FILL_RAND, 0),
                                         {1, {99}, TABI_DTYPE_INT64, FILL_INDEX, 80, 0}},
                  {0, 1}, 2, {{0}, {0}, tabi_int(-1), tabi_bool(0), tabi_bool(0)}, 1, 0};
  diff(f, r, &bad, "index out of range");
}

/* The other nn ops with a fast kernel (cpu_nn_*.c). */
static void nn_cases(tabi_runtime *f, tabi_runtime *r) {
  embedding_cases(f, r);
  copy_cases(f, r);
  layer_norm_bwd_cases(f, r);
  pool_cases(f, r);
}

/* Deterministic mode: the half and double paths give the same bits at 1 and 3
 * threads. */
static void determinism(const char *plugin) {
  tabi_runtime *r1 = load_rt(plugin, "1"), *r3 = load_rt(plugin, "3");
  CHECK(r1 != NULL && r3 != NULL);
  if (r1 && r3) {
    tabi_runtime_set_deterministic(r1, 1);
    tabi_runtime_set_deterministic(r3, 1);
    for (int d = 0; d < 4; d++) {
      callspec ad = {"aten::addmm", 5, {T1(200, mm_dts[d], FILL_RAND), T2(300, 700, mm_dts[d], FILL_RAND, 1),
                                        T2(700, 200, mm_dts[d], FILL_RAND, 0)},
                     {0, 1, 2}, 3, {{0}, {0}, {0}, tabi_float(0.5), tabi_int(2)}, 1, 0};
      bitwise(r1, r3, &ad, tabi_dtype_name(mm_dts[d]));
    }
  }
  if (r1) tabi_runtime_destroy(r1);
  if (r3) tabi_runtime_destroy(r3);
}

int main(int argc, char **argv) {
  static const harness_cases_fn all[] = {matmul_cases, nn_cases, threads_case, fork_case, NULL};
  return harness_main(argc, argv, all, determinism);
}
