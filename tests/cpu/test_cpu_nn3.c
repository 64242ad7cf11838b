/* tests/cpu/test_cpu_nn3.c: the kernels of plugins/cpu/cpu_nn3_*.c (group norm
 * and its backward, nearest and bilinear upsampling, grid_sampler_2d, col2im,
 * cdist, pdist) against the reference kernels (tests/cpu/cpu_harness.h: same
 * inputs into a runtime with libtabi_cpu.so at 2 threads and one with the
 * reference plugin, shared/spec/tolerances.md).
 *
 * Sizes go past the kernels' threading grains; inputs are also transposed
 * views (non-contiguous: upsampling, grid sampling, col2im and the distances
 * read strides natively, group norm copies them contiguous first), carry NaN/inf
 * (FILL_SPECIAL), and every dtype the reference takes. Bad arguments must give
 * the reference's status. Deterministic mode: the same bytes at 1 and 3 threads.
 *
 * usage: test_cpu_nn3 CPU_PLUGIN REFERENCE_PLUGIN
 * TABI_TEST_TIMINGS=1 also prints the fast and reference times of a few
 * ResNet-sized calls.
 */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "cpu_harness.h"

#define T4(a, b, c_, d, dt_, fill_, tr) {4, {a, b, c_, d}, dt_, fill_, 0, tr}
#define T3(a, b, c_, dt_, fill_, tr) {3, {a, b, c_}, dt_, fill_, 0, tr}

static const tabi_dtype fdts[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16,
                                   TABI_DTYPE_BFLOAT16};

/* --- group norm ------------------------------------------------------------- */

static void group_norm_cases(tabi_runtime *f, tabi_runtime *r) {
  char label[96];
  for (int d = 0; d < 4; d++)
    for (int aff = 0; aff < 3; aff++) { /* 0 none, 1 weight+bias of x's dtype, 2 float32 params */
      tabi_dtype dt = fdts[d], pdt = aff == 2 ? TABI_DTYPE_FLOAT32 : dt;
      if (aff == 2 && (dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_FLOAT64)) continue;
      callspec c = {"aten::native_group_norm", 8,
                    {T4(6, 48, 21, 19, dt, d == 0 ? FILL_SPECIAL : FILL_RAND, 0), T1(48, pdt, FILL_RAND),
                     T1(48, pdt, FILL_RAND)},
                    {0, 1, 2}, aff ? 3 : 1,
                    {{0}, tabi_none(), tabi_none(), tabi_int(6), tabi_int(48), tabi_int(21 * 19), tabi_int(8),
                     tabi_float(1e-5)}, 3, 4};
      snprintf(label, sizeof label, "%s affine %d", tabi_dtype_name(dt), aff);
      diff(f, r, &c, label);
    }
  /* 3-d input, one group per channel; one group for everything */
  int64_t G[2] = {32, 1};
  for (int g = 0; g < 2; g++) {
    callspec c = {"aten::native_group_norm", 8,
                  {T3(4, 32, 1000, TABI_DTYPE_FLOAT32, FILL_RAND, 0), T1(32, TABI_DTYPE_FLOAT32, FILL_RAND)},
                  {0, 1}, 2,
                  {{0}, tabi_none(), tabi_none(), tabi_int(4), tabi_int(32), tabi_int(1000), tabi_int(G[g]),
                   tabi_float(1e-3)}, 3, 4};
    snprintf(label, sizeof label, "3-d, %lld groups", (long long)G[g]);
    diff(f, r, &c, label);
    c.t[0].transpose = 1; /* [4, 32, 1000] as a transposed view */
    diff(f, r, &c, "transposed input");
  }
  /* errors: C not divisible by group, weight of the wrong size */
  callspec bad = {"aten::native_group_norm", 8,
                  {T4(2, 6, 5, 5, TABI_DTYPE_FLOAT32, FILL_RAND, 0), T1(6, TABI_DTYPE_FLOAT32, FILL_RAND)},
                  {0, 1}, 2,
                  {{0}, tabi_none(), tabi_none(), tabi_int(2), tabi_int(6), tabi_int(25), tabi_int(4),
                   tabi_float(1e-5)}, 3, 0};
  diff(f, r, &bad, "C % group != 0");
  bad.extra[6] = tabi_int(3);
  bad.t[1] = (tspec)T1(5, TABI_DTYPE_FLOAT32, FILL_RAND);
  diff(f, r, &bad, "weight of 5 for C=6");
}

static void group_norm_bwd_cases(tabi_runtime *f, tabi_runtime *r) {
  static const int64_t masks[4][3] = {{1, 1, 1}, {1, 0, 0}, {0, 1, 1}, {0, 0, 1}};
  char label[96];
  for (int d = 0; d < 4; d++)
    for (int mk = 0; mk < 4; mk++)
      for (int aff = 0; aff < 2; aff++) {
        tabi_dtype dt = fdts[d];
        tabi_dtype pdt = aff && d >= 2 ? TABI_DTYPE_FLOAT32 : dt; /* half input: float32 weight, stats */
        tabi_dtype sdt = aff && d >= 2 ? TABI_DTYPE_FLOAT32 : dt;
        callspec c = {"aten::native_group_norm_backward", 10,
                      {T4(5, 40, 23, 17, dt, FILL_RAND, 0), T4(5, 40, 23, 17, dt, FILL_RAND, 0),
                       T2(5, 10, sdt, FILL_RAND, 0), T2(5, 10, sdt, FILL_RAND, 0), T1(40, pdt, FILL_RAND)},
                      {0, 1, 2, 3, 4}, aff ? 5 : 4,
                      {{0}, {0}, {0}, {0}, tabi_none(), tabi_int(5), tabi_int(40), tabi_int(23 * 17), tabi_int(10),
                       tabi_bool_list(masks[mk], 3)}, 3, 4};
        snprintf(label, sizeof label, "%s mask %lld%lld%lld weight %d", tabi_dtype_name(dt),
                 (long long)masks[mk][0], (long long)masks[mk][1], (long long)masks[mk][2], aff);
        diff(f, r, &c, label);
      }
  /* a transposed grad_out (copied contiguous) and a mean of the wrong size (error) */
  callspec c = {"aten::native_group_norm_backward", 10,
                {T3(4, 16, 300, TABI_DTYPE_FLOAT32, FILL_RAND, 1), T3(4, 16, 300, TABI_DTYPE_FLOAT32, FILL_RAND, 0),
                 T2(4, 4, TABI_DTYPE_FLOAT32, FILL_RAND, 0), T2(4, 4, TABI_DTYPE_FLOAT32, FILL_RAND, 0)},
                {0, 1, 2, 3}, 4,
                {{0}, {0}, {0}, {0}, tabi_none(), tabi_int(4), tabi_int(16), tabi_int(300), tabi_int(4),
                 tabi_bool_list(masks[0], 3)}, 3, 4};
  diff(f, r, &c, "transposed grad_out");
  c.t[2] = (tspec)T2(4, 3, TABI_DTYPE_FLOAT32, FILL_RAND, 0);
  c.t[0].transpose = 0;
  diff(f, r, &c, "mean of 12 for N*group=16");
}

/* --- upsampling ------------------------------------------------------------- */

static void upsample_cases(tabi_runtime *f, tabi_runtime *r) {
  static const int64_t osz[3][2] = {{74, 58}, {50, 40}, {37, 29}};
  static const double sf[3][2] = {{2.0, 2.0}, {1.7, 0.6}, {3.0, 1.0}};
  char label[96];
  for (int d = 0; d < 4; d++)
    for (int k = 0; k < 6; k++)
      for (int tr = 0; tr < 2; tr++) {
        tabi_value os = k < 3 ? tabi_int_list(osz[k], 2) : tabi_none();
        tabi_value sc = k < 3 ? tabi_none() : tabi_float_list(sf[k - 3], 2);
        tspec x = T4(3, 24, 37, 29, fdts[d], FILL_SPECIAL, tr);
        callspec n = {"aten::upsample_nearest2d.vec", 3, {x}, {0}, 1, {{0}, os, sc}, 1, 0};
        snprintf(label, sizeof label, "%s case %d%s", tabi_dtype_name(fdts[d]), k, tr ? " transposed" : "");
        diff(f, r, &n, label);
        for (int al = 0; al < 2; al++) {
          x.fill = FILL_RAND;
          callspec b = {"aten::upsample_bilinear2d.vec", 4, {x}, {0}, 1, {{0}, os, tabi_bool(al), sc}, 1, 0};
          snprintf(label, sizeof label, "%s case %d align %d%s", tabi_dtype_name(fdts[d]), k, al,
                   tr ? " transposed" : "");
          diff(f, r, &b, label);
        }
      }
  /* NaN and inf through bilinear (float32) */
  callspec b = {"aten::upsample_bilinear2d.vec", 4, {T4(2, 16, 33, 35, TABI_DTYPE_FLOAT32, FILL_SPECIAL, 0)},
                {0}, 1, {{0}, tabi_int_list(osz[1], 2), tabi_bool(0), tabi_none()}, 1, 0};
  diff(f, r, &b, "specials");
  /* errors: both sizes given; a 3-d input */
  int64_t o2[2] = {10, 10};
  double s2[2] = {2, 2};
  callspec bad = {"aten::upsample_nearest2d.vec", 3, {T4(1, 2, 5, 5, TABI_DTYPE_FLOAT32, FILL_RAND, 0)}, {0}, 1,
                  {{0}, tabi_int_list(o2, 2), tabi_float_list(s2, 2)}, 1, 0};
  diff(f, r, &bad, "output_size and scale_factors");
  bad.t[0] = (tspec)T3(2, 5, 5, TABI_DTYPE_FLOAT32, FILL_RAND, 0);
  bad.extra[2] = tabi_none();
  diff(f, r, &bad, "3-d input");
  callspec bad2 = {"aten::upsample_bilinear2d.vec", 4, {T4(1, 2, 5, 5, TABI_DTYPE_FLOAT32, FILL_RAND, 0)}, {0}, 1,
                   {{0}, tabi_none(), tabi_bool(1), tabi_none()}, 1, 0};
  diff(f, r, &bad2, "neither size");
}

/* --- grid_sampler_2d -------------------------------------------------------- */

static void grid_cases(tabi_runtime *f, tabi_runtime *r) {
  char label[96];
  for (int d = 0; d < 2; d++)
    for (int mode = 0; mode < 3; mode++)
      for (int pad = 0; pad < 3; pad++)
        for (int al = 0; al < 2; al++) {
          /* grid values in [-4, 4): most of them outside [-1, 1], which pads and reflects */
          tabi_dtype dt = fdts[d];
          callspec c = {"aten::grid_sampler_2d", 5,
                        {T4(2, 9, 23, 31, dt, FILL_RAND, al), T4(2, 37, 41, 2, dt, FILL_RAND, 0)},
                        {0, 1}, 2, {{0}, {0}, tabi_int(mode), tabi_int(pad), tabi_bool(al)}, 1, 0};
          snprintf(label, sizeof label, "%s mode %d pad %d align %d", tabi_dtype_name(dt), mode, pad, al);
          diff(f, r, &c, label);
          c.t[1].fill = FILL_FEW; /* half-integer grid values: round-half-even and exact corners */
          diff(f, r, &c, "few-valued grid");
          c.t[1].fill = FILL_SPECIAL; /* NaN/inf coordinates */
          c.t[0].fill = FILL_SPECIAL;
          diff(f, r, &c, "special grid and input");
        }
  callspec bad = {"aten::grid_sampler_2d", 5,
                  {T4(2, 3, 5, 5, TABI_DTYPE_FLOAT32, FILL_RAND, 0), T4(2, 4, 4, 2, TABI_DTYPE_FLOAT32, FILL_RAND, 0)},
                  {0, 1}, 2, {{0}, {0}, tabi_int(3), tabi_int(0), tabi_bool(0)}, 1, 0};
  diff(f, r, &bad, "interpolation_mode 3");
  bad.extra[2] = tabi_int(0);
  bad.t[1] = (tspec)T4(3, 4, 4, 2, TABI_DTYPE_FLOAT32, FILL_RAND, 0);
  diff(f, r, &bad, "grid batch 3 for input batch 2");
}

/* --- col2im ------------------------------------------------------------------- */

static void col2im_cases(tabi_runtime *f, tabi_runtime *r) {
  /* output, kernel, dilation, padding, stride */
  static const int64_t cfg[4][5][2] = {
      {{30, 28}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {{31, 29}, {3, 2}, {2, 1}, {2, 0}, {2, 3}},
      {{16, 16}, {4, 4}, {1, 1}, {0, 0}, {4, 4}},
      {{9, 40}, {1, 5}, {1, 3}, {0, 6}, {1, 2}}};
  char label[96];
  for (int k = 0; k < 4; k++) {
    int64_t L = 1;
    for (int i = 0; i < 2; i++)
      L *= (cfg[k][0][i] + 2 * cfg[k][3][i] - cfg[k][2][i] * (cfg[k][1][i] - 1) - 1) / cfg[k][4][i] + 1;
    int64_t ckk = 12 * cfg[k][1][0] * cfg[k][1][1];
    for (int d = 0; d < 4; d++)
      for (int tr = 0; tr < 2; tr++) {
        callspec c = {"aten::col2im", 6, {T3(3, ckk, L, fdts[d], FILL_RAND, tr)}, {0}, 1,
                      {{0}, tabi_int_list(cfg[k][0], 2), tabi_int_list(cfg[k][1], 2), tabi_int_list(cfg[k][2], 2),
                       tabi_int_list(cfg[k][3], 2), tabi_int_list(cfg[k][4], 2)}, 1, 0};
        snprintf(label, sizeof label, "config %d %s%s", k, tabi_dtype_name(fdts[d]), tr ? " transposed" : "");
        diff(f, r, &c, label);
        if (d == 0 && tr == 0) {
          c.t[0] = (tspec)T2(ckk, L, TABI_DTYPE_FLOAT32, FILL_SPECIAL, 0); /* unbatched, NaN/inf */
          diff(f, r, &c, "2-d specials");
          c.t[0] = (tspec)T3(3, ckk, L + 1, TABI_DTYPE_FLOAT32, FILL_RAND, 0);
          diff(f, r, &c, "wrong block count");
        }
      }
  }
}

/* --- distances ---------------------------------------------------------------- */

static void dist_cases(tabi_runtime *f, tabi_runtime *r) {
  static const double ps[6] = {2, 1, 0, INFINITY, 3, 0.5};
  char label[96];
  for (int d = 0; d < 2; d++)
    for (int k = 0; k < 6; k++)
      for (int v = 0; v < 3; v++) {
        tabi_dtype dt = fdts[d];
        /* v 0: batched, x2 broadcast over x1's batch; 1: transposed operands; 2: specials, 2-d */
        tspec a = v == 0 ? (tspec)T3(3, 70, 33, dt, FILL_RAND, 0)
                  : v == 1 ? (tspec)T3(2, 61, 40, dt, FILL_RAND, 1) : (tspec)T2(45, 9, dt, FILL_SPECIAL, 0);
        tspec b = v == 0 ? (tspec)T3(1, 50, 33, dt, FILL_RAND, 0)
                  : v == 1 ? (tspec)T3(2, 77, 40, dt, FILL_RAND, 1) : (tspec)T2(37, 9, dt, FILL_SPECIAL, 0);
        callspec c = {"aten::_cdist_forward", 4, {a, b}, {0, 1}, 2, {{0}, {0}, tabi_float(ps[k]), tabi_none()}, 1,
                      4};
        snprintf(label, sizeof label, "%s p %g variant %d", tabi_dtype_name(dt), ps[k], v);
        diff(f, r, &c, label);
        tspec x = v == 0 ? (tspec)T2(150, 40, dt, FILL_RAND, 0)
                  : v == 1 ? (tspec)T2(131, 57, dt, FILL_RAND, 1) : (tspec)T2(60, 7, dt, FILL_SPECIAL, 0);
        callspec pd = {"aten::_pdist_forward", 2, {x}, {0}, 1, {{0}, tabi_float(ps[k])}, 1, 4};
        diff(f, r, &pd, label);
      }
  callspec bad = {"aten::_cdist_forward", 4,
                  {T2(5, 3, TABI_DTYPE_FLOAT32, FILL_RAND, 0), T2(5, 4, TABI_DTYPE_FLOAT32, FILL_RAND, 0)},
                  {0, 1}, 2, {{0}, {0}, tabi_float(2), tabi_none()}, 1, 0};
  diff(f, r, &bad, "columns differ");
  bad.t[1] = (tspec)T2(5, 3, TABI_DTYPE_FLOAT32, FILL_RAND, 0);
  bad.extra[2] = tabi_float(-1);
  diff(f, r, &bad, "negative p");
  callspec badp = {"aten::_pdist_forward", 2, {T3(2, 5, 3, TABI_DTYPE_FLOAT32, FILL_RAND, 0)}, {0}, 1,
                   {{0}, tabi_float(2)}, 1, 0};
  diff(f, r, &badp, "3-d pdist");
}

/* --- determinism -------------------------------------------------------------- */

static void determinism(const char *plugin) {
  tabi_runtime *r1 = load_rt(plugin, "1"), *r3 = load_rt(plugin, "3");
  CHECK(r1 != NULL && r3 != NULL);
  if (r1 && r3) {
    tabi_runtime_set_deterministic(r1, 1);
    tabi_runtime_set_deterministic(r3, 1);
    static const int64_t all[3] = {1, 1, 1};
    callspec gb = {"aten::native_group_norm_backward", 10,
                   {T4(7, 40, 23, 17, TABI_DTYPE_FLOAT32, FILL_RAND, 0), T4(7, 40, 23, 17, TABI_DTYPE_FLOAT32, FILL_RAND, 0),
                    T2(7, 10, TABI_DTYPE_FLOAT32, FILL_RAND, 0), T2(7, 10, TABI_DTYPE_FLOAT32, FILL_RAND, 0),
                    T1(40, TABI_DTYPE_FLOAT32, FILL_RAND)},
                   {0, 1, 2, 3, 4}, 5,
                   {{0}, {0}, {0}, {0}, {0}, tabi_int(7), tabi_int(40), tabi_int(23 * 17), tabi_int(10),
                    tabi_bool_list(all, 3)}, 3, 0};
    bitwise(r1, r3, &gb, "group norm backward");
    callspec gf = {"aten::native_group_norm", 8, {T4(7, 40, 23, 17, TABI_DTYPE_BFLOAT16, FILL_RAND, 0)}, {0}, 1,
                   {{0}, tabi_none(), tabi_none(), tabi_int(7), tabi_int(40), tabi_int(23 * 17), tabi_int(10),
                    tabi_float(1e-5)}, 3, 0};
    bitwise(r1, r3, &gf, "group norm bfloat16");
    int64_t o[2] = {61, 45};
    callspec up = {"aten::upsample_bilinear2d.vec", 4, {T4(3, 20, 33, 35, TABI_DTYPE_FLOAT32, FILL_RAND, 1)}, {0}, 1,
                   {{0}, tabi_int_list(o, 2), tabi_bool(0), tabi_none()}, 1, 0};
    bitwise(r1, r3, &up, "bilinear");
    callspec cd = {"aten::_cdist_forward", 4,
                   {T3(3, 70, 33, TABI_DTYPE_FLOAT32, FILL_RAND, 0), T3(3, 50, 33, TABI_DTYPE_FLOAT32, FILL_RAND, 0)},
                   {0, 1}, 2, {{0}, {0}, tabi_float(2), tabi_none()}, 1, 0};
    bitwise(r1, r3, &cd, "cdist");
  }
  if (r1) tabi_runtime_destroy(r1);
  if (r3) tabi_runtime_destroy(r3);
}

/* --- timings (TABI_TEST_TIMINGS=1) -------------------------------------------- */

/* Best of `reps` calls on inputs made once (the fill is not timed); the clock
 * is the process CPU time (steadier than wall time on a loaded machine; the
 * timing runtime has one thread, so it is the kernel's own time). */
static double time_call(tabi_runtime *rt, const callspec *c, int reps) {
  tabi_value args[12], o[3];
  tabi_tensor *owned[6] = {0};
  rng_state = 1;
  for (int32_t i = 0; i < c->nargs; i++) args[i] = c->extra[i];
  for (int32_t k = 0; k < c->nt; k++) {
    owned[k] = make(rt, &c->t[k]);
    args[c->tpos[k]] = tabi_tensor_value(owned[k]);
  }
  tabi_op op;
  double best = 1e30;
  if (tabi_op_find(rt, c->op, &op) != TABI_OK) best = -1;
  for (int i = 0; best > 0 && i < reps; i++) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    tabi_status st = tabi_call(rt, op, args, c->nargs, o, c->nouts);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    if (st != TABI_OK) {
      best = -1;
      break;
    }
    for (int32_t k = 0; k < c->nouts; k++) tabi_value_release(&o[k]);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    best = s < best ? s : best;
  }
  for (int32_t k = 0; k < c->nt; k++) tabi_tensor_release(owned[k]);
  return best;
}

static void timings(tabi_runtime *f, tabi_runtime *r) {
  static const int64_t all[3] = {1, 1, 1};
  int64_t o2[2] = {112, 112};
  callspec cs[] = {
      {"aten::native_group_norm", 8,
       {T4(8, 256, 56, 56, TABI_DTYPE_FLOAT32, FILL_RAND, 0), T1(256, TABI_DTYPE_FLOAT32, FILL_RAND),
        T1(256, TABI_DTYPE_FLOAT32, FILL_RAND)},
       {0, 1, 2}, 3,
       {{0}, {0}, {0}, tabi_int(8), tabi_int(256), tabi_int(3136), tabi_int(32), tabi_float(1e-5)}, 3, 0},
      {"aten::native_group_norm_backward", 10,
       {T4(8, 256, 56, 56, TABI_DTYPE_FLOAT32, FILL_RAND, 0), T4(8, 256, 56, 56, TABI_DTYPE_FLOAT32, FILL_RAND, 0),
        T2(8, 32, TABI_DTYPE_FLOAT32, FILL_RAND, 0), T2(8, 32, TABI_DTYPE_FLOAT32, FILL_RAND, 0),
        T1(256, TABI_DTYPE_FLOAT32, FILL_RAND)},
       {0, 1, 2, 3, 4}, 5,
       {{0}, {0}, {0}, {0}, {0}, tabi_int(8), tabi_int(256), tabi_int(3136), tabi_int(32), tabi_bool_list(all, 3)},
       3, 0},
      {"aten::upsample_nearest2d.vec", 3, {T4(8, 64, 56, 56, TABI_DTYPE_FLOAT32, FILL_RAND, 0)}, {0}, 1,
       {{0}, tabi_int_list(o2, 2), tabi_none()}, 1, 0},
      {"aten::upsample_bilinear2d.vec", 4, {T4(8, 64, 56, 56, TABI_DTYPE_FLOAT32, FILL_RAND, 0)}, {0}, 1,
       {{0}, tabi_int_list(o2, 2), tabi_bool(0), tabi_none()}, 1, 0},
      {"aten::grid_sampler_2d", 5,
       {T4(8, 64, 56, 56, TABI_DTYPE_FLOAT32, FILL_RAND, 0), T4(8, 56, 56, 2, TABI_DTYPE_FLOAT32, FILL_FEW, 0)},
       {0, 1}, 2, {{0}, {0}, tabi_int(0), tabi_int(0), tabi_bool(0)}, 1, 0},
      {"aten::_cdist_forward", 4,
       {T2(1024, 128, TABI_DTYPE_FLOAT32, FILL_RAND, 0), T2(1024, 128, TABI_DTYPE_FLOAT32, FILL_RAND, 0)}, {0, 1}, 2,
       {{0}, {0}, tabi_float(2), tabi_none()}, 1, 0},
      {"aten::_pdist_forward", 2, {T2(1024, 128, TABI_DTYPE_FLOAT32, FILL_RAND, 0)}, {0}, 1,
       {{0}, tabi_float(2)}, 1, 0},
  };
  int64_t ks[2] = {3, 3}, one[2] = {1, 1}, os[2] = {56, 56};
  callspec c2i = {"aten::col2im", 6, {T3(8, 64 * 9, 56 * 56, TABI_DTYPE_FLOAT32, FILL_RAND, 0)}, {0}, 1,
                  {{0}, tabi_int_list(os, 2), tabi_int_list(ks, 2), tabi_int_list(one, 2), tabi_int_list(one, 2),
                   tabi_int_list(one, 2)}, 1, 0};
  for (size_t i = 0; i <= sizeof cs / sizeof *cs; i++) {
    const callspec *c = i < sizeof cs / sizeof *cs ? &cs[i] : &c2i;
    double tf = time_call(f, c, 5), tr = time_call(r, c, 1);
    printf("timing (1 thread, CPU ms) %-36s fast %9.3f  reference %9.3f  (x%.0f)\n", c->op, tf * 1e3, tr * 1e3,
           tr / tf);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CPU_PLUGIN REFERENCE_PLUGIN\n", argv[0]);
    return 2;
  }
  tabi_runtime *f = load_rt(argv[1], "2"), *r = load_rt(argv[2], NULL);
  CHECK(f != NULL && r != NULL);
  if (!f || !r) return check_report();
  group_norm_cases(f, r);
  group_norm_bwd_cases(f, r);
  upsample_cases(f, r);
  grid_cases(f, r);
  col2im_cases(f, r);
  dist_cases(f, r);
  const char *tm = getenv("TABI_TEST_TIMINGS");
  if (tm && tm[0] == '1') {
    tabi_runtime *f1 = load_rt(argv[1], "1");
    if (f1) {
      timings(f1, r);
      tabi_runtime_destroy(f1);
    }
  }
  tabi_runtime_destroy(f);
  tabi_runtime_destroy(r);
  determinism(argv[1]);
  return check_report();
}
