/* tests/cpu/test_cpu_pool.c: the CPU plugin's pooling kernels of cpu_nn_pool3.c
 * (avg_pool1d, avg_pool3d, max_pool3d_with_indices, adaptive_avg_pool1d,
 * _adaptive_avg_pool2d, _adaptive_avg_pool3d, _adaptive_avg_pool2d_backward)
 * against the reference kernels: the same inputs go into a runtime with
 * libtabi_cpu.so (2 threads) and one with the reference plugin; outputs compare
 * with shared/spec/tolerances.md, indices exactly (tests/cpu/cpu_harness.h).
 *
 * Covered: every float dtype; [C, *] and [N, C, *] inputs; transposed views and
 * channels-last 5-d views (strided); padding, stride, dilation, ceil_mode
 * (including the dropped last window), count_include_pad, divisor_override;
 * NaN/inf inputs and a window of -inf only (max's first-tap index); adaptive
 * output sizes below, equal to and above the input, global 1x1 pooling; sizes
 * well past the threading grain; the arguments the reference refuses (same
 * status); and bitwise equal results with 1 and 3 threads.
 *
 * TABI_TEST_TIMINGS=1 prints the time of the fast and reference kernels.
 *
 * usage: test_cpu_pool CPU_PLUGIN REFERENCE_PLUGIN
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tabi/half.h>
#include <tabi/runtime.h>

#include "cpu_harness.h"

static const tabi_dtype fdts[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16,
                                   TABI_DTYPE_BFLOAT16};

/* --- 5-d inputs (the harness's tspec stops at 4 dims) ------------------------------------ */

/* A 5-d tensor [N, C, D, H, W] filled in logical order from rng_state (specials
 * as the harness's FILL_SPECIAL when `specials`); channels_last: stored as
 * [N, D, H, W, C] and viewed as [N, C, D, H, W] (strided). */
static tabi_tensor *make5(tabi_runtime *rt, tabi_dtype dt, const int64_t *shape, int specials,
                          int channels_last) {
  int64_t st[5] = {shape[0], shape[2], shape[3], shape[4], shape[1]};
  tabi_tensor *t = NULL;
  if (tabi_tensor_empty(rt, cpu, dt, 5, channels_last ? st : shape, &t) != TABI_OK) return NULL;
  int64_t vs[5], n = 1;
  for (int i = 0; i < 5; i++) n *= shape[i];
  if (channels_last) { /* logical (n, c, d, h, w) at storage (n, d, h, w, c) */
    vs[0] = t->dl.strides[0];
    vs[1] = t->dl.strides[4];
    vs[2] = t->dl.strides[1];
    vs[3] = t->dl.strides[2];
    vs[4] = t->dl.strides[3];
  } else {
    for (int i = 0; i < 5; i++) vs[i] = t->dl.strides[i];
  }
  char *p = tabi_tensor_data(t);
  for (int64_t i = 0; i < n; i++) {
    int64_t r = i, off = 0;
    for (int d = 4; d >= 0; d--) {
      off += (r % shape[d]) * vs[d];
      r /= shape[d];
    }
    double v = rnd() * 4.0;
    if (specials && i % 7 == 3) v = special(i / 7);
    switch (dt) {
      case TABI_DTYPE_FLOAT32: ((float *)p)[off] = (float)v; break;
      case TABI_DTYPE_FLOAT64: ((double *)p)[off] = v; break;
      case TABI_DTYPE_FLOAT16: ((uint16_t *)p)[off] = tabi_f32_to_f16((float)v); break;
      default: ((uint16_t *)p)[off] = tabi_f32_to_bf16((float)v); break;
    }
  }
  if (!channels_last) return t;
  tabi_tensor *v = NULL;
  tabi_tensor_view(rt, t, 5, shape, vs, (int64_t)t->dl.byte_offset, &v);
  tabi_tensor_release(t);
  return v;
}

/* Runs op with a 5-d self at args[0] on both runtimes and compares. */
static void diff5(tabi_runtime *f, tabi_runtime *r, const char *op, tabi_value *args, int32_t nargs,
                  int32_t nouts, tabi_dtype dt, const int64_t *shape, int specials, int channels_last,
                  const char *label) {
  tabi_value o[2][2];
  tabi_status st[2];
  tabi_runtime *rts[2] = {f, r};
  for (int k = 0; k < 2; k++) {
    rng_state = 99;
    tabi_tensor *x = make5(rts[k], dt, shape, specials, channels_last);
    args[0] = tabi_tensor_value(x);
    tabi_op h;
    o[k][0] = o[k][1] = tabi_none();
    st[k] = tabi_op_find(rts[k], op, &h);
    if (st[k] == TABI_OK) st[k] = tabi_call(rts[k], h, args, nargs, o[k], nouts);
    tabi_tensor_release(x);
  }
  CHECK_MSG(st[0] == st[1], "%s %s: status fast %d, reference %d (%s)", op, label, (int)st[0], (int)st[1],
            tabi_last_error());
  for (int32_t i = 0; st[0] == TABI_OK && st[1] == TABI_OK && i < nouts; i++) {
    char what[160];
    snprintf(what, sizeof what, "%s %s out %d", op, label, (int)i);
    CHECK_MSG(same(what, o[0][i].u.t, o[1][i].u.t, 1), "%s", what);
  }
  for (int k = 0; k < 2; k++)
    for (int32_t i = 0; i < nouts; i++) tabi_value_release(&o[k][i]);
}

/* --- avg_pool3d / max_pool3d_with_indices ---------------------------------------------- */

typedef struct win3 {
  int64_t k[3], s[3], p[3], d[3];
  int64_t nk, ns, np, nd; /* list lengths (1 or 3; stride 0: default = kernel) */
  int ceil;
} win3;

static const win3 cfg3[] = {
    {{3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 1, 1, 1, 1, 0},
    {{3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 1, 1, 1, 1, 1},
    {{2, 2, 2}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, 1, 0, 1, 1, 0},
    {{3, 2, 1}, {1, 2, 3}, {1, 1, 0}, {2, 1, 2}, 3, 3, 3, 3, 1},
    {{3, 3, 3}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, 1, 1, 1, 1, 1}, /* drops the last window when in = 5 */
    {{4, 3, 5}, {2, 1, 2}, {2, 0, 2}, {1, 2, 1}, 3, 3, 3, 3, 0},
};

static void pool3d_cases(tabi_runtime *f, tabi_runtime *r) {
  char label[128];
  int64_t dovs[3] = {0, 5, -3};
  for (size_t c = 0; c < sizeof cfg3 / sizeof *cfg3; c++) {
    const win3 *w = &cfg3[c];
    tabi_value k = tabi_int_list(w->k, w->nk), s = tabi_int_list(w->s, w->ns), p = tabi_int_list(w->p, w->np);
    tabi_value d = tabi_int_list(w->d, w->nd);
    for (int di = 0; di < 4; di++) {
      tabi_dtype dt = fdts[di];
      /* [C, D, H, W]: 40 planes of 5 x 17 x 19, transposed on the second pass */
      for (int tr = 0; tr < 2; tr++) {
        tspec x = {4, {40, 5, 17, 19}, dt, FILL_SPECIAL, 0, tr};
        callspec mp = {"aten::max_pool3d_with_indices", 6, {x}, {0}, 1, {{0}, k, s, p, d, tabi_bool(w->ceil)}, 2, 0};
        snprintf(label, sizeof label, "config %d %s%s", (int)c, tabi_dtype_name(dt), tr ? " transposed" : "");
        diff(f, r, &mp, label);
        for (int cip = 0; cip < 2; cip++)
          for (int dv = 0; dv < 3; dv++) {
            if (di > 0 && (cip == 0 || dv != 0)) continue; /* every option on float32; the dtypes once */
            callspec ap = {"aten::avg_pool3d", 7, {x}, {0}, 1,
                           {{0}, k, s, p, tabi_bool(w->ceil), tabi_bool(cip), dv ? tabi_int(dovs[dv]) : tabi_none()},
                           1, 0};
            snprintf(label, sizeof label, "config %d %s%s cip %d dov %lld", (int)c, tabi_dtype_name(dt),
                     tr ? " transposed" : "", cip, (long long)dovs[dv]);
            diff(f, r, &ap, label);
          }
      }
      /* [N, C, D, H, W], plain and channels-last */
      int64_t sh[5] = {3, 12, 6, 11, 13};
      for (int cl = 0; cl < 2; cl++) {
        tabi_value ma[6] = {{0}, k, s, p, d, tabi_bool(w->ceil)};
        snprintf(label, sizeof label, "5-d config %d %s%s", (int)c, tabi_dtype_name(dt), cl ? " channels-last" : "");
        diff5(f, r, "aten::max_pool3d_with_indices", ma, 6, 2, dt, sh, 1, cl, label);
        tabi_value aa[7] = {{0}, k, s, p, tabi_bool(w->ceil), tabi_bool(0), tabi_none()};
        diff5(f, r, "aten::avg_pool3d", aa, 7, 1, dt, sh, 1, cl, label);
      }
    }
  }
  /* many ties (16 distinct values): the first maximum's index, in the four-wide path too */
  {
    int64_t kt[3] = {3, 2, 3}, st[3] = {1, 2, 1}, pt[1] = {1}, dt1[1] = {1};
    for (int di = 0; di < 4; di++) {
      callspec mp = {"aten::max_pool3d_with_indices", 6, {{4, {30, 5, 9, 21}, fdts[di], FILL_FEW, 0, 0}}, {0}, 1,
                     {{0}, tabi_int_list(kt, 3), tabi_int_list(st, 3), tabi_int_list(pt, 1), tabi_int_list(dt1, 1),
                      tabi_bool(1)}, 2, 0};
      diff(f, r, &mp, "ties");
    }
  }
  /* past the threading grain: 2 x 32 x 16 x 32 x 32, k3 s2 */
  int64_t big[5] = {2, 32, 16, 32, 32}, k3 = 3, s2 = 2, p1 = 1, d1 = 1;
  tabi_value ma[6] = {{0}, tabi_int_list(&k3, 1), tabi_int_list(&s2, 1), tabi_int_list(&p1, 1),
                      tabi_int_list(&d1, 1), tabi_bool(1)};
  diff5(f, r, "aten::max_pool3d_with_indices", ma, 6, 2, TABI_DTYPE_FLOAT32, big, 1, 0, "big");
  tabi_value aa[7] = {{0}, tabi_int_list(&k3, 1), tabi_int_list(&s2, 1), tabi_int_list(&p1, 1), tabi_bool(1),
                      tabi_bool(1), tabi_none()};
  diff5(f, r, "aten::avg_pool3d", aa, 7, 1, TABI_DTYPE_FLOAT32, big, 0, 0, "big");
  diff5(f, r, "aten::avg_pool3d", aa, 7, 1, TABI_DTYPE_BFLOAT16, big, 0, 1, "big bf16 channels-last");

  /* the arguments the reference refuses, and its other cases (int64, empty batch) */
  int64_t k2[2] = {2, 2}, k0 = 0, k9 = 9, p2 = 2;
  tabi_value kk = tabi_int_list(&k3, 1), ss = tabi_int_list(&s2, 1), pp = tabi_int_list(&p1, 1);
  struct { tabi_value k, s, p, d, dov; tspec x; const char *what; } bad[] = {
      {tabi_int_list(&k3, 1), ss, tabi_int_list(&p2, 1), tabi_int_list(&d1, 1), tabi_none(),
       {4, {2, 5, 6, 7}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0}, "pad > kernel / 2"},
      {tabi_int_list(k2, 2), ss, pp, tabi_int_list(&d1, 1), tabi_none(),
       {4, {2, 5, 6, 7}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0}, "2 kernel values"},
      {tabi_int_list(&k0, 1), ss, pp, tabi_int_list(&d1, 1), tabi_none(),
       {4, {2, 5, 6, 7}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0}, "kernel 0"},
      {tabi_int_list(&k9, 1), tabi_int_list(&d1, 1), pp, tabi_int_list(&d1, 1), tabi_none(),
       {4, {2, 5, 6, 7}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0}, "output too small"},
      {kk, ss, pp, tabi_int_list(&k0, 1), tabi_int(0),
       {4, {2, 5, 6, 7}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0}, "dilation 0, divisor 0"},
      {kk, ss, pp, tabi_int_list(&d1, 1), tabi_none(),
       {3, {5, 6, 7}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0}, "3-d input"},
      {kk, ss, pp, tabi_int_list(&d1, 1), tabi_none(),
       {4, {2, 5, 0, 7}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0}, "empty spatial dim"},
      {kk, ss, pp, tabi_int_list(&d1, 1), tabi_int(2),
       {4, {2, 5, 6, 7}, TABI_DTYPE_INT64, FILL_INDEX, 100, 0}, "int64"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    callspec mp = {"aten::max_pool3d_with_indices", 6, {bad[i].x}, {0}, 1,
                   {{0}, bad[i].k, bad[i].s, bad[i].p, bad[i].d, tabi_bool(0)}, 2, 0};
    diff(f, r, &mp, bad[i].what);
    callspec ap = {"aten::avg_pool3d", 7, {bad[i].x}, {0}, 1,
                   {{0}, bad[i].k, bad[i].s, bad[i].p, tabi_bool(0), tabi_bool(1), bad[i].dov}, 1, 0};
    diff(f, r, &ap, bad[i].what);
  }
  int64_t e5[5] = {0, 3, 5, 6, 7};
  diff5(f, r, "aten::avg_pool3d", aa, 7, 1, TABI_DTYPE_FLOAT32, e5, 0, 0, "empty batch");
  diff5(f, r, "aten::max_pool3d_with_indices", ma, 6, 2, TABI_DTYPE_FLOAT32, e5, 0, 0, "empty batch");
}

/* max pooling's rules on a hand-made plane: a window of -inf reports its first
 * in-range tap, a later NaN replaces an earlier one, ties keep the first. */
static void max_rules(tabi_runtime *f, tabi_runtime *r) {
  int64_t shape[4] = {1, 2, 3, 4}, k2 = 2, s2 = 2, p1 = 1, d1 = 1;
  static const float vals[24] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY,
                                 -INFINITY, -INFINITY, 1, 1, NAN, 2, 5, NAN, NAN, 5, 3, 3, 3, 3, 0, -0.0f, 7, 7};
  tabi_value args[6] = {{0}, tabi_int_list(&k2, 1), tabi_int_list(&s2, 1), tabi_int_list(&p1, 1),
                        tabi_int_list(&d1, 1), tabi_bool(1)};
  tabi_value o[2][2];
  tabi_runtime *rts[2] = {f, r};
  for (int k = 0; k < 2; k++) {
    tabi_tensor *x = NULL;
    o[k][0] = o[k][1] = tabi_none();
    if (tabi_tensor_empty(rts[k], cpu, TABI_DTYPE_FLOAT32, 4, shape, &x) != TABI_OK) continue;
    memcpy(tabi_tensor_data(x), vals, sizeof vals);
    args[0] = tabi_tensor_value(x);
    tabi_op h;
    if (tabi_op_find(rts[k], "aten::max_pool3d_with_indices", &h) == TABI_OK)
      CHECK_OK(tabi_call(rts[k], h, args, 6, o[k], 2));
    tabi_tensor_release(x);
  }
  if (o[0][0].tag == TABI_TAG_TENSOR && o[1][0].tag == TABI_TAG_TENSOR) {
    CHECK(same("max rules values", o[0][0].u.t, o[1][0].u.t, 1));
    CHECK(same("max rules indices", o[0][1].u.t, o[1][1].u.t, 1));
    /* window (0, 0, 0) holds only -inf: its first in-range tap is element 0 */
    CHECK(((const int64_t *)tabi_tensor_data(o[0][1].u.t))[0] == 0);
  }
  for (int k = 0; k < 2; k++) {
    tabi_value_release(&o[k][0]);
    tabi_value_release(&o[k][1]);
  }
}

/* --- avg_pool1d ---------------------------------------------------------------------------- */

static void pool1d_cases(tabi_runtime *f, tabi_runtime *r) {
  struct { int64_t k, s, p; int64_t ns; int ceil; } cfg[] = {
      {3, 2, 1, 1, 0}, {3, 2, 1, 1, 1}, {4, 0, 2, 0, 0}, {1, 1, 0, 1, 1}, {3, 3, 1, 1, 1}, {5, 2, 2, 1, 1}};
  char label[128];
  for (size_t c = 0; c < sizeof cfg / sizeof *cfg; c++)
    for (int di = 0; di < 4; di++)
      for (int v = 0; v < 3; v++) {
        /* [N, C, L] large (threaded), [C, L] transposed, and L = 5 (ceil edges) */
        tspec x = v == 0 ? (tspec){3, {8, 64, 301}, fdts[di], FILL_SPECIAL, 0, 0}
                : v == 1 ? (tspec){2, {77, 130}, fdts[di], FILL_SPECIAL, 0, 1}
                         : (tspec){3, {2, 3, 5}, fdts[di], FILL_RAND, 0, 0};
        for (int cip = 0; cip < 2; cip++) {
          callspec ap = {"aten::avg_pool1d", 6, {x}, {0}, 1,
                         {{0}, tabi_int_list(&cfg[c].k, 1), tabi_int_list(&cfg[c].s, cfg[c].ns),
                          tabi_int_list(&cfg[c].p, 1), tabi_bool(cfg[c].ceil), tabi_bool(cip)}, 1, 0};
          snprintf(label, sizeof label, "config %d %s variant %d cip %d", (int)c, tabi_dtype_name(fdts[di]), v, cip);
          diff(f, r, &ap, label);
        }
      }
  int64_t k3 = 3, k2[2] = {2, 2}, p2 = 2;
  tspec x = {3, {2, 3, 9}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0};
  callspec b1 = {"aten::avg_pool1d", 6, {x}, {0}, 1,
                 {{0}, tabi_int_list(&k3, 1), tabi_int_list(&k3, 1), tabi_int_list(&p2, 1), tabi_bool(0), tabi_bool(1)},
                 1, 0};
  diff(f, r, &b1, "pad > kernel / 2");
  b1.extra[1] = tabi_int_list(k2, 2);
  b1.extra[3] = tabi_int_list(&k3, 0);
  diff(f, r, &b1, "2 kernel values");
}

/* --- adaptive average pooling ----------------------------------------------------------------- */

static void adaptive_cases(tabi_runtime *f, tabi_runtime *r) {
  char label[128];
  /* 2d: below, equal, above the input, global; 3-d and 4-d, transposed */
  int64_t o2[][2] = {{1, 1}, {3, 5}, {13, 17}, {20, 9}, {1, 7}};
  for (size_t c = 0; c < sizeof o2 / sizeof *o2; c++)
    for (int di = 0; di < 4; di++)
      for (int v = 0; v < 3; v++) {
        tspec x = v == 0 ? (tspec){4, {4, 96, 13, 17}, fdts[di], FILL_SPECIAL, 0, 0}
                : v == 1 ? (tspec){3, {50, 17, 13}, fdts[di], FILL_RAND, 0, 1}
                         : (tspec){4, {2, 3, 7, 6}, fdts[di], FILL_RAND, 0, 0};
        callspec a = {"aten::_adaptive_avg_pool2d", 2, {x}, {0}, 1, {{0}, tabi_int_list(o2[c], 2)}, 1, 0};
        snprintf(label, sizeof label, "to %lldx%lld %s variant %d", (long long)o2[c][0], (long long)o2[c][1],
                 tabi_dtype_name(fdts[di]), v);
        diff(f, r, &a, label);
        /* backward: grad_output shaped [.., o0, o1] (transposed on variant 1) */
        tspec go = x;
        go.shape[x.ndim - 2] = o2[c][0];
        go.shape[x.ndim - 1] = o2[c][1];
        go.fill = FILL_RAND;
        tspec xs = x;
        xs.transpose = 0; /* any layout: only its shape counts */
        callspec b = {"aten::_adaptive_avg_pool2d_backward", 2, {go, xs}, {0, 1}, 2, {{0}}, 1, 0};
        diff(f, r, &b, label);
      }
  /* a global pool past the grain: 32 x 2048 x 7 x 7 -> 1 x 1 */
  int64_t one[2] = {1, 1};
  callspec g = {"aten::_adaptive_avg_pool2d", 2, {{4, {32, 2048, 7, 7}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0}}, {0}, 1,
                {{0}, tabi_int_list(one, 2)}, 1, 0};
  diff(f, r, &g, "global 32x2048x7x7");
  callspec gb = {"aten::_adaptive_avg_pool2d_backward", 2,
                 {{4, {32, 2048, 1, 1}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0},
                  {4, {32, 2048, 7, 7}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0}}, {0, 1}, 2, {{0}}, 1, 0};
  diff(f, r, &gb, "global 32x2048x7x7");
  /* 1d */
  int64_t o1[] = {1, 7, 64, 301, 500};
  for (size_t c = 0; c < sizeof o1 / sizeof *o1; c++)
    for (int di = 0; di < 4; di++) {
      callspec a = {"aten::adaptive_avg_pool1d", 2, {{3, {8, 40, 301}, fdts[di], FILL_SPECIAL, 0, 0}}, {0}, 1,
                    {{0}, tabi_int_list(&o1[c], 1)}, 1, 0};
      snprintf(label, sizeof label, "to %lld %s", (long long)o1[c], tabi_dtype_name(fdts[di]));
      diff(f, r, &a, label);
      a.t[0] = (tspec){2, {90, 301}, fdts[di], FILL_RAND, 0, 1};
      diff(f, r, &a, "transposed");
    }
  /* 3d: [C, D, H, W] and 5-d channels-last */
  int64_t o3[][3] = {{1, 1, 1}, {2, 3, 4}, {5, 9, 12}, {7, 1, 3}};
  for (size_t c = 0; c < sizeof o3 / sizeof *o3; c++)
    for (int di = 0; di < 4; di++) {
      callspec a = {"aten::_adaptive_avg_pool3d", 2, {{4, {40, 5, 9, 11}, fdts[di], FILL_SPECIAL, 0, 1}}, {0}, 1,
                    {{0}, tabi_int_list(o3[c], 3)}, 1, 0};
      snprintf(label, sizeof label, "to %lldx%lldx%lld %s", (long long)o3[c][0], (long long)o3[c][1],
               (long long)o3[c][2], tabi_dtype_name(fdts[di]));
      diff(f, r, &a, label);
      int64_t sh[5] = {2, 24, 5, 9, 11};
      tabi_value args[2] = {{0}, tabi_int_list(o3[c], 3)};
      diff5(f, r, "aten::_adaptive_avg_pool3d", args, 2, 1, fdts[di], sh, 1, 1, label);
    }
  /* refused or the reference's: output size 0 (empty), wrong lengths, negative, empty input */
  int64_t z2[2] = {0, 3}, n2[2] = {-1, 2}, l3[3] = {2, 2, 2};
  tspec x = {4, {2, 3, 7, 6}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0};
  callspec e = {"aten::_adaptive_avg_pool2d", 2, {x}, {0}, 1, {{0}, tabi_int_list(z2, 2)}, 1, 0};
  diff(f, r, &e, "output size 0");
  e.extra[1] = tabi_int_list(n2, 2);
  diff(f, r, &e, "negative output size");
  e.extra[1] = tabi_int_list(l3, 3);
  diff(f, r, &e, "3 output sizes");
  e.extra[1] = tabi_int_list(l3, 2);
  e.t[0].shape[2] = 0;
  diff(f, r, &e, "empty input");
  e.t[0] = (tspec){4, {2, 3, 7, 6}, TABI_DTYPE_INT64, FILL_INDEX, 9, 0};
  diff(f, r, &e, "int64 input");
  callspec eb = {"aten::_adaptive_avg_pool2d_backward", 2,
                 {{4, {2, 4, 3, 3}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0}, x}, {0, 1}, 2, {{0}}, 1, 0};
  diff(f, r, &eb, "grad_output's batch differs");
  eb.t[0] = (tspec){4, {2, 3, 3, 3}, TABI_DTYPE_FLOAT64, FILL_RAND, 0, 0};
  diff(f, r, &eb, "grad_output's dtype differs");
  eb.t[0] = (tspec){3, {2, 3, 3}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0};
  diff(f, r, &eb, "grad_output's rank differs");
}

/* --- determinism, timings ------------------------------------------------------------------------ */

static void thread_cases(const char *plugin) {
  tabi_runtime *r1 = load_rt(plugin, "1"), *r3 = load_rt(plugin, "3");
  CHECK(r1 != NULL && r3 != NULL);
  if (r1 && r3) {
    tabi_runtime_set_deterministic(r1, 1);
    tabi_runtime_set_deterministic(r3, 1);
    int64_t k3[1] = {3}, s2[1] = {2}, p1[1] = {1}, d1[1] = {1}, o2[2] = {5, 3}, one[2] = {1, 1};
    tspec x = {4, {64, 9, 20, 22}, TABI_DTYPE_FLOAT32, FILL_SPECIAL, 0, 0};
    callspec cs[] = {
        {"aten::max_pool3d_with_indices", 6, {x}, {0}, 1,
         {{0}, tabi_int_list(k3, 1), tabi_int_list(s2, 1), tabi_int_list(p1, 1), tabi_int_list(d1, 1), tabi_bool(1)}, 2, 0},
        {"aten::avg_pool3d", 7, {x}, {0}, 1,
         {{0}, tabi_int_list(k3, 1), tabi_int_list(s2, 1), tabi_int_list(p1, 1), tabi_bool(1), tabi_bool(0), tabi_none()}, 1, 0},
        {"aten::_adaptive_avg_pool2d", 2, {x}, {0}, 1, {{0}, tabi_int_list(o2, 2)}, 1, 0},
        {"aten::_adaptive_avg_pool2d", 2, {x}, {0}, 1, {{0}, tabi_int_list(one, 2)}, 1, 0},
        {"aten::_adaptive_avg_pool2d_backward", 2, {{4, {64, 9, 5, 3}, TABI_DTYPE_FLOAT32, FILL_RAND, 0, 0}, x},
         {0, 1}, 2, {{0}}, 1, 0},
    };
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) bitwise(r1, r3, &cs[i], "1 vs 3 threads");
  }
  if (r1) tabi_runtime_destroy(r1);
  if (r3) tabi_runtime_destroy(r3);
}

/* wall time; with TABI_TEST_CPUTIME=1 the process's CPU time (robust on a
 * loaded machine for single-threaded runs) */
static double now(void) {
  struct timespec ts;
  const char *ct = getenv("TABI_TEST_CPUTIME");
  clock_gettime(ct && ct[0] == '1' ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double time_call(tabi_runtime *rt, const char *op, tabi_value *args, int32_t nargs, int32_t nouts) {
  tabi_op h;
  if (tabi_op_find(rt, op, &h) != TABI_OK) return -1;
  double best = 1e30;
  for (int it = 0; it < 10; it++) {
    tabi_value o[2] = {tabi_none(), tabi_none()};
    double t0 = now();
    tabi_status st = tabi_call(rt, h, args, nargs, o, nouts);
    double t = now() - t0;
    for (int32_t i = 0; i < nouts; i++) tabi_value_release(&o[i]);
    if (st != TABI_OK) return -1;
    if (t < best) best = t;
  }
  return best;
}

/* fast with 2 threads (f), with 1 thread (f1), reference (r) */
static void timings(tabi_runtime *f, tabi_runtime *f1, tabi_runtime *r) {
  int64_t g[4] = {32, 2048, 7, 7}, g5[5] = {4, 32, 16, 32, 32}, one[2] = {1, 1}, k3 = 3, s2 = 2, p0 = 0, d1 = 1;
  int64_t l3[3] = {8, 64, 4096}, o100 = 100, o488[3] = {4, 8, 8};
  tabi_runtime *rts[3] = {f, f1, r};
  double t[3][7];
  for (int k = 0; k < 3; k++) {
    tabi_tensor *x = NULL, *go = NULL, *x5 = NULL, *x1 = NULL;
    int64_t gs[4] = {32, 2048, 1, 1};
    tabi_tensor_empty(rts[k], cpu, TABI_DTYPE_FLOAT32, 4, g, &x);
    tabi_tensor_empty(rts[k], cpu, TABI_DTYPE_FLOAT32, 4, gs, &go);
    tabi_tensor_empty(rts[k], cpu, TABI_DTYPE_FLOAT32, 5, g5, &x5);
    tabi_tensor_empty(rts[k], cpu, TABI_DTYPE_FLOAT32, 3, l3, &x1);
    if (!x || !go || !x5 || !x1) return;
    /* random values, as torch.randn: max pooling's branches see real data */
    rng_state = 5;
    tabi_tensor *all[4] = {x, go, x5, x1};
    for (int a = 0; a < 4; a++) {
      int64_t n = 1;
      for (int32_t d = 0; d < all[a]->dl.ndim; d++) n *= all[a]->dl.shape[d];
      float *p = tabi_tensor_data(all[a]);
      for (int64_t i = 0; i < n; i++) p[i] = (float)rnd();
    }
    tabi_value a1[2] = {tabi_tensor_value(x), tabi_int_list(one, 2)};
    tabi_value a2[2] = {tabi_tensor_value(go), tabi_tensor_value(x)};
    tabi_value a3[7] = {tabi_tensor_value(x5), tabi_int_list(&k3, 1), tabi_int_list(&s2, 1), tabi_int_list(&p0, 1),
                        tabi_bool(0), tabi_bool(1), tabi_none()};
    tabi_value a4[6] = {tabi_tensor_value(x5), tabi_int_list(&k3, 1), tabi_int_list(&s2, 1), tabi_int_list(&p0, 1),
                        tabi_int_list(&d1, 1), tabi_bool(0)};
    tabi_value a5[6] = {tabi_tensor_value(x1), tabi_int_list(&k3, 1), tabi_int_list(&s2, 1), tabi_int_list(&p0, 1),
                        tabi_bool(0), tabi_bool(1)};
    tabi_value a6[2] = {tabi_tensor_value(x1), tabi_int_list(&o100, 1)};
    tabi_value a7[2] = {tabi_tensor_value(x5), tabi_int_list(o488, 3)};
    t[k][0] = time_call(rts[k], "aten::_adaptive_avg_pool2d", a1, 2, 1);
    t[k][1] = time_call(rts[k], "aten::_adaptive_avg_pool2d_backward", a2, 2, 1);
    t[k][2] = time_call(rts[k], "aten::avg_pool3d", a3, 7, 1);
    t[k][3] = time_call(rts[k], "aten::max_pool3d_with_indices", a4, 6, 2);
    t[k][4] = time_call(rts[k], "aten::avg_pool1d", a5, 6, 1);
    t[k][5] = time_call(rts[k], "aten::adaptive_avg_pool1d", a6, 2, 1);
    t[k][6] = time_call(rts[k], "aten::_adaptive_avg_pool3d", a7, 2, 1);
    tabi_tensor_release(x);
    tabi_tensor_release(go);
    tabi_tensor_release(x5);
    tabi_tensor_release(x1);
  }
  static const char *names[7] = {"adaptive_avg_pool2d 32x2048x7x7->1x1", "adaptive_avg_pool2d_backward same",
                                 "avg_pool3d 4x32x16x32x32 k3 s2", "max_pool3d 4x32x16x32x32 k3 s2",
                                 "avg_pool1d 8x64x4096 k3 s2", "adaptive_avg_pool1d 8x64x4096->100",
                                 "adaptive_avg_pool3d 4x32x16x32x32->4x8x8"};
  for (int i = 0; i < 7; i++)
    printf("%-42s fast %8.3f ms (1 thread %8.3f ms)  reference %8.3f ms\n", names[i], 1e3 * t[0][i],
           1e3 * t[1][i], 1e3 * t[2][i]);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CPU_PLUGIN REFERENCE_PLUGIN\n", argv[0]);
    return 2;
  }
  tabi_runtime *f = load_rt(argv[1], "2"), *r = load_rt(argv[2], NULL);
  CHECK(f != NULL && r != NULL);
  if (!f || !r) return check_report();
  pool3d_cases(f, r);
  max_rules(f, r);
  pool1d_cases(f, r);
  adaptive_cases(f, r);
  const char *tm = getenv("TABI_TEST_TIMINGS");
  if (tm && tm[0] == '1') {
    tabi_runtime *f1 = load_rt(argv[1], "1");
    if (f1) {
      timings(f, f1, r);
      tabi_runtime_destroy(f1);
    }
  }
  tabi_runtime_destroy(f);
  tabi_runtime_destroy(r);
  thread_cases(argv[1]);
  return check_report();
}
