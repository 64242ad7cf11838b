/* tests/cpu/test_cpu_conv64.c: the CPU plugin's convolution and
 * convolution_backward for what oneDNN does not take (cpu_nn_conv64.c):
 * float64, every integer dtype (full-range values, so products and sums wrap
 * as the reference's int64 does), float views with gaps and overlaps,
 * transposed convolutions with output_padding > padding; 1-3 d, groups,
 * stride/padding/dilation, sizes past the threading grain and past one im2col
 * chunk, every output_mask of the backward; against the reference plugin.
 * Then errors read as the reference's, and 1 vs 3 threads give the same bytes
 * in deterministic mode.
 *
 * usage: test_cpu_conv64 CPU_PLUGIN REFERENCE_PLUGIN
 */
#define _POSIX_C_SOURCE 200809L
#include "cpu_harness.h"

typedef struct cv {
  const char *name;
  int32_t ns;
  int64_t n, ic, oc, groups;
  int64_t in[3], k[3];
  int64_t s[3], p[3], d[3], op[3];
  int transposed, bias;
} cv;

static const cv cases[] = {
    /* threaded: 2 x 16 x 20 x 20 outputs, 72-term sums (im2col and stores
     * past their grain) */
    {"2-d threaded", 2, 2, 8, 16, 1, {20, 20}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0}, 0, 1},
    {"2-d groups 4 stride 2 dilation 2", 2, 3, 8, 12, 4, {17, 14}, {3, 2}, {2, 1}, {2, 1}, {2, 1}, {0}, 0, 1},
    {"2-d depthwise", 2, 2, 8, 8, 8, {13, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0}, 0, 0},
    {"1-d stride 3 padding 2 dilation 2", 1, 3, 5, 7, 1, {40}, {4}, {3}, {2}, {2}, {0}, 0, 1},
    {"3-d grouped strided", 3, 2, 6, 4, 2, {7, 6, 8}, {3, 2, 3}, {2, 1, 2}, {1, 0, 1}, {1, 1, 1}, {0}, 0, 1},
    /* small planes are batched (CN buffers): 145 items per im2col matrix of
     * at most 4.2M elements, so two chunks */
    {"2-d chunked", 2, 150, 32, 2, 1, {10, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0}, 0, 1},
    {"2-d transposed", 2, 2, 8, 6, 1, {7, 6}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, 1, 1},
    {"2-d transposed output_padding > padding", 2, 2, 4, 6, 2, {5, 6}, {3, 2}, {2, 3}, {0, 1}, {1, 1}, {1, 2}, 1, 1},
    {"1-d transposed grouped dilated", 1, 3, 6, 9, 3, {11}, {3}, {2}, {1}, {2}, {1}, 1, 0},
    {"3-d transposed", 3, 1, 4, 6, 2, {4, 5, 3}, {3, 3, 2}, {2, 1, 2}, {1, 1, 0}, {1, 2, 1}, {1, 0, 1}, 1, 1},
    /* planes of 128 positions or more: NC buffers, contiguous float64/int64
     * operands and results used in place, one GEMM per batch item */
    {"1-d long grouped", 1, 3, 6, 9, 3, {300}, {5}, {1}, {2}, {1}, {0}, 0, 1},
    {"2-d transposed large grouped", 2, 2, 6, 4, 2, {12, 13}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 0}, 1, 1},
    {"3-d large strided", 3, 2, 4, 6, 1, {9, 10, 12}, {3, 3, 3}, {1, 1, 2}, {1, 1, 1}, {1, 2, 1}, {0}, 0, 0},
    /* NC buffers: on one thread in two chunks (2 items of a 144 x 1600 im2col
     * matrix, then 1), on more in one (determinism() compares the two) */
    {"2-d chunked NC", 2, 3, 16, 1, 1, {40, 40}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0}, 0, 1},
};
#define NCASES (sizeof cases / sizeof *cases)

/* --- inputs ------------------------------------------------------------------------ */

static uint64_t bits_state;
static uint64_t bits(void) { /* splitmix64 */
  uint64_t z = (bits_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Layouts: 0 contiguous, 1 gaps (every other channel and last-dim element),
 * 2 overlapping (batch dim of stride 0: an expanded view; last dim every
 * third element), 3 gaps in the batch and first spatial dim. (Negative
 * strides: the runtime refuses such views, tabi_tensor_view.) Returns the
 * element step of dim i in the base storage (0: stride 0). */
static int64_t layout(int lay, int32_t nd, int32_t i) {
  if (lay == 1 && (i == 1 || i == nd - 1)) return 2;
  if (lay == 2 && i == 0) return 0;
  if (lay == 2 && i == nd - 1) return 3;
  if (lay == 3 && (i == 0 || i == 2)) return 2;
  return 1;
}

/* A tensor of `shape` in layout `lay`, its elements (of the base storage)
 * from `seed`: floats uniform in [-4, 4), integers over their full range. */
static tabi_tensor *mk(tabi_runtime *rt, tabi_dtype dt, int32_t nd, const int64_t *shape, int lay, uint64_t seed) {
  int64_t base[5], bst[5], vst[5], n = 1;
  for (int32_t i = 0; i < nd; i++) {
    int64_t step = layout(lay, nd, i);
    base[i] = step ? shape[i] * step : 1;
    n *= base[i];
  }
  for (int32_t i = nd - 1, s = 1; i >= 0; i--) {
    bst[i] = s;
    s *= (int32_t)base[i];
  }
  for (int32_t i = 0; i < nd; i++) vst[i] = bst[i] * layout(lay, nd, i);
  tabi_tensor *t = NULL, *v = NULL;
  if (tabi_tensor_empty(rt, cpu, dt, nd, base, &t) != TABI_OK) return NULL;
  rng_state = seed;
  bits_state = seed;
  char *p = tabi_tensor_data(t);
  for (int64_t i = 0; i < n; i++) {
    double f = rnd() * 4.0;
    uint64_t b = bits();
    switch (dt) {
      case TABI_DTYPE_FLOAT64: ((double *)p)[i] = f; break;
      case TABI_DTYPE_FLOAT32: ((float *)p)[i] = (float)f; break;
      case TABI_DTYPE_FLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_f16((float)f); break;
      case TABI_DTYPE_BFLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_bf16((float)f); break;
      case TABI_DTYPE_INT64: memcpy(p + 8 * i, &b, 8); break;
      case TABI_DTYPE_INT32: { uint32_t u = (uint32_t)b; memcpy(p + 4 * i, &u, 4); break; }
      case TABI_DTYPE_INT16: { uint16_t u = (uint16_t)b; memcpy(p + 2 * i, &u, 2); break; }
      case TABI_DTYPE_INT8: case TABI_DTYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)b; break;
      default: break;
    }
  }
  if (tabi_tensor_view(rt, t, nd, shape, vst, 0, &v) != TABI_OK) v = NULL;
  tabi_tensor_release(t);
  return v;
}

/* --- one case -------------------------------------------------------------------- */

static int64_t out_size(const cv *c, int32_t i) {
  int64_t span = c->d[i] * (c->k[i] - 1) + 1;
  if (c->transposed) return (c->in[i] - 1) * c->s[i] - 2 * c->p[i] + span + c->op[i];
  return (c->in[i] + 2 * c->p[i] - span) / c->s[i] + 1;
}

/* Forward (mask 0) or backward with `mask` of case c on one runtime: inputs
 * x (layout lx), w (lw), bias, dy (ly), the same on both sides by seed. */
static tabi_status call(tabi_runtime *rt, const cv *c, tabi_dtype dt, int mask, int lx, int lw, int ly,
                        tabi_value *outs) {
  int32_t ns = c->ns, nd = ns + 2;
  int64_t xs[5] = {c->n, c->ic}, ws[5], ys[5] = {c->n, c->oc}, bsz[1] = {c->oc};
  int64_t m[3] = {mask & 1, (mask >> 1) & 1, (mask >> 2) & 1};
  ws[0] = c->transposed ? c->ic : c->oc;
  ws[1] = c->transposed ? c->oc / c->groups : c->ic / c->groups;
  for (int32_t i = 0; i < ns; i++) {
    xs[2 + i] = c->in[i];
    ws[2 + i] = c->k[i];
    ys[2 + i] = out_size(c, i);
  }
  tabi_tensor *x = mk(rt, dt, nd, xs, lx, 11), *w = mk(rt, dt, nd, ws, lw, 12);
  tabi_tensor *b = mk(rt, dt, 1, bsz, lx == 2 ? 2 : 0, 13), *dy = mk(rt, dt, nd, ys, ly, 14);
  tabi_value lists[4] = {tabi_int_list(c->s, ns), tabi_int_list(c->p, ns), tabi_int_list(c->d, ns),
                         tabi_int_list(c->op, ns)};
  tabi_op op;
  tabi_status st = TABI_ERR_INVALID_ARGUMENT;
  for (int i = 0; i < 3; i++) outs[i] = tabi_none();
  if (x && w && b && dy) {
    if (!mask) {
      tabi_value a[9] = {tabi_tensor_value(x), tabi_tensor_value(w), c->bias ? tabi_tensor_value(b) : tabi_none(),
                         lists[0], lists[1], lists[2], tabi_bool(c->transposed), lists[3], tabi_int(c->groups)};
      st = tabi_op_find(rt, "aten::convolution", &op);
      if (st == TABI_OK) st = tabi_call(rt, op, a, 9, outs, 1);
    } else {
      tabi_value a[11] = {tabi_tensor_value(dy), tabi_tensor_value(x), tabi_tensor_value(w),
                          tabi_int_list(bsz, 1), lists[0], lists[1], lists[2], tabi_bool(c->transposed),
                          lists[3], tabi_int(c->groups), tabi_bool_list(m, 3)};
      st = tabi_op_find(rt, "aten::convolution_backward", &op);
      if (st == TABI_OK) st = tabi_call(rt, op, a, 11, outs, 3);
    }
  }
  tabi_tensor_release(x);
  tabi_tensor_release(w);
  tabi_tensor_release(b);
  tabi_tensor_release(dy);
  return st;
}

/* fast vs reference: forward (mask 0) and the backward under each mask 1..7
 * whose bit is set in `masks` */
static void compare_masks(tabi_runtime *f, tabi_runtime *r, const cv *c, tabi_dtype dt, int lx, int lw, int ly,
                          int masks) {
  for (int mask = 0; mask < 8; mask++) {
    if (!((masks >> mask) & 1)) continue;
    tabi_value a[3], b[3];
    tabi_status sa = call(f, c, dt, mask, lx, lw, ly, a), sb = call(r, c, dt, mask, lx, lw, ly, b);
    char what[200];
    snprintf(what, sizeof what, "%s %s layouts %d/%d/%d %s mask %d", c->name, tabi_dtype_name(dt), lx, lw, ly,
             mask ? "backward" : "forward", mask);
    CHECK_MSG(sa == TABI_OK && sb == TABI_OK, "%s: status fast %d, reference %d (%s)", what, (int)sa, (int)sb,
              tabi_last_error());
    for (int i = 0; sa == TABI_OK && sb == TABI_OK && i < (mask ? 3 : 1); i++) {
      int want = mask ? (mask >> i) & 1 : 1;
      CHECK_MSG((a[i].tag == TABI_TAG_TENSOR) == want && (b[i].tag == TABI_TAG_TENSOR) == want,
                "%s: output %d present %d, expected %d", what, i, a[i].tag == TABI_TAG_TENSOR, want);
      if (want && a[i].tag == TABI_TAG_TENSOR && b[i].tag == TABI_TAG_TENSOR) {
        char w2[240];
        snprintf(w2, sizeof w2, "%s out %d", what, i);
        /* oneDNN (float32/half, copied views) sums in float32: the scale
         * test_cpu_conv gives it; the double and integer paths at scale 1 */
        int f32sum = dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16;
        CHECK_MSG(same(w2, a[i].u.t, b[i].u.t, f32sum ? 60 : 1), "%s", w2);
      }
    }
    for (int i = 0; i < 3; i++) {
      tabi_value_release(&a[i]);
      tabi_value_release(&b[i]);
    }
  }
}

/* float64: every case, contiguous and in the gapped/reversed layouts */
static void compare(tabi_runtime *f, tabi_runtime *r, const cv *c, tabi_dtype dt, int lx, int lw, int ly) {
  compare_masks(f, r, c, dt, lx, lw, ly, 0xff);
}

static void f64_cases(tabi_runtime *f, tabi_runtime *r) {
  for (size_t i = 0; i < NCASES; i++) compare_masks(f, r, &cases[i], TABI_DTYPE_FLOAT64, 0, 0, 0, i == 13 ? 0x81 : 0xff);
  for (size_t i = 0; i < NCASES; i++)
    if (i != 5 && i != 13) compare(f, r, &cases[i], TABI_DTYPE_FLOAT64, 1 + (int)i % 3, 1 + (int)(i + 1) % 3, 1 + (int)(i + 2) % 3);
}

/* float32/float16/bfloat16 views with gaps or overlaps, and transposed
 * convolutions with output_padding > padding (contiguous) */
static void view_cases(tabi_runtime *f, tabi_runtime *r) {
  static const tabi_dtype dts[3] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16};
  static const int pick[] = {0, 1, 4, 6, 8, 11};
  for (int t = 0; t < 3; t++) {
    for (size_t i = 0; i < sizeof pick / sizeof *pick; i++)
      for (int lay = 1; lay <= 3; lay++) compare(f, r, &cases[pick[i]], dts[t], lay, lay % 3 + 1, (lay + 1) % 3 + 1);
    compare(f, r, &cases[7], dts[t], 0, 0, 0);
    compare(f, r, &cases[9], dts[t], 0, 2, 0);
  }
}

/* every integer dtype, values over the whole range (wrapping products and sums) */
static void int_cases(tabi_runtime *f, tabi_runtime *r) {
  compare_masks(f, r, &cases[13], TABI_DTYPE_INT64, 0, 0, 0, 0x81); /* in place, two chunks */
  static const tabi_dtype dts[5] = {TABI_DTYPE_INT64, TABI_DTYPE_INT32, TABI_DTYPE_INT16, TABI_DTYPE_INT8,
                                    TABI_DTYPE_UINT8};
  static const int pick[] = {0, 1, 2, 3, 4, 7, 8, 9, 10, 11};
  for (int t = 0; t < 5; t++)
    for (size_t i = 0; i < sizeof pick / sizeof *pick; i++) {
      compare(f, r, &cases[pick[i]], dts[t], 0, 0, 0);
      if (i % 2 == 0) compare(f, r, &cases[pick[i]], dts[t], 3, 1, 2);
    }
}

/* Errors of the taken dtypes are still the reference's: groups not dividing
 * the channels (float64), output_padding >= stride and dilation (int32). */
static void error_cases(tabi_runtime *f, tabi_runtime *r) {
  cv bad = cases[1];
  bad.oc = 10; /* weight dim 0 not divisible by groups 4 */
  tabi_value a[3], b[3];
  tabi_status sa = call(f, &bad, TABI_DTYPE_FLOAT64, 0, 0, 0, 0, a), sb = call(r, &bad, TABI_DTYPE_FLOAT64, 0, 0, 0, 0, b);
  CHECK_MSG(sa == TABI_ERR_SHAPE && sb == sa, "float64 bad groups: status %d vs %d", (int)sa, (int)sb);
  CHECK_MSG(strstr(tabi_last_error(), "groups") != NULL, "error names groups: %s", tabi_last_error());
  for (int i = 0; i < 3; i++) {
    tabi_value_release(&a[i]);
    tabi_value_release(&b[i]);
  }
  cv bado = cases[6];
  bado.op[0] = 2; /* stride 2, dilation 1 */
  sa = call(f, &bado, TABI_DTYPE_INT32, 7, 0, 0, 0, a);
  sb = call(r, &bado, TABI_DTYPE_INT32, 7, 0, 0, 0, b);
  CHECK_MSG(sa == TABI_ERR_INVALID_ARGUMENT && sb == sa, "int32 bad output_padding: status %d vs %d", (int)sa, (int)sb);
  CHECK_MSG(strstr(tabi_last_error(), "output_padding") != NULL, "error names output_padding: %s", tabi_last_error());
  for (int i = 0; i < 3; i++) {
    tabi_value_release(&a[i]);
    tabi_value_release(&b[i]);
  }
}

static void same_bytes(tabi_runtime *r1, tabi_runtime *r3, const cv *c, tabi_dtype dt, int mask, int lay) {
  tabi_value a[3], b[3];
  tabi_status sa = call(r1, c, dt, mask, lay, lay, lay, a), sb = call(r3, c, dt, mask, lay, lay, lay, b);
  CHECK_MSG(sa == TABI_OK && sb == TABI_OK, "%s %s determinism: %s", c->name, tabi_dtype_name(dt), tabi_last_error());
  for (int i = 0; sa == TABI_OK && sb == TABI_OK && i < 3; i++) {
    if (a[i].tag != TABI_TAG_TENSOR || b[i].tag != TABI_TAG_TENSOR) continue;
    size_t bytes = (size_t)tabi_tensor_numel(a[i].u.t) * (size_t)tabi_dtype_size(dt);
    CHECK_MSG(memcmp(tabi_tensor_data(a[i].u.t), tabi_tensor_data(b[i].u.t), bytes) == 0,
              "%s %s mask %d output %d: 1 and 3 threads differ in deterministic mode", c->name, tabi_dtype_name(dt),
              mask, i);
  }
  for (int i = 0; i < 3; i++) {
    tabi_value_release(&a[i]);
    tabi_value_release(&b[i]);
  }
}

static void determinism(const char *plugin) {
  tabi_runtime *r1 = load_rt(plugin, "1"), *r3 = load_rt(plugin, "3");
  CHECK(r1 != NULL && r3 != NULL);
  if (r1 && r3) {
    tabi_runtime_set_deterministic(r1, 1);
    tabi_runtime_set_deterministic(r3, 1);
    same_bytes(r1, r3, &cases[0], TABI_DTYPE_FLOAT64, 0, 0);
    same_bytes(r1, r3, &cases[0], TABI_DTYPE_FLOAT64, 7, 1);
    same_bytes(r1, r3, &cases[8], TABI_DTYPE_FLOAT64, 7, 0);
    same_bytes(r1, r3, &cases[1], TABI_DTYPE_FLOAT32, 7, 2);
    same_bytes(r1, r3, &cases[1], TABI_DTYPE_INT64, 7, 0);
    same_bytes(r1, r3, &cases[13], TABI_DTYPE_FLOAT64, 0, 0);
    same_bytes(r1, r3, &cases[13], TABI_DTYPE_FLOAT64, 7, 0);
  }
  if (r1) tabi_runtime_destroy(r1);
  if (r3) tabi_runtime_destroy(r3);
}

int main(int argc, char **argv) {
  static const harness_cases_fn all[] = {f64_cases, view_cases, int_cases, error_cases, NULL};
  return harness_main(argc, argv, all, determinism);
}
