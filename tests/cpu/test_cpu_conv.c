/* tests/cpu/test_cpu_conv.c: the CPU plugin's convolution and
 * convolution_backward (oneDNN: 1-d/2-d/3-d, grouped, depthwise, transposed,
 * float32/float16/bfloat16; contiguous, transposed views and channels-last)
 * against the reference kernels, through the shared harness (cpu_harness.h);
 * then the cases the fast path hands to the
 * reference (float64, output_padding > padding, bad groups) give the
 * reference's status, and a 1- vs 3-thread run in deterministic mode gives the
 * same bytes.
 *
 * usage: test_cpu_conv CPU_PLUGIN REFERENCE_PLUGIN
 */
#define _POSIX_C_SOURCE 200809L
#include "cpu_harness.h"

typedef struct conv_case {
  const char *name;
  int32_t ns;
  int64_t n, ic, oc, groups;
  int64_t in[3], k[3];
  int64_t s, p, d, op;
  int transposed, bias;
} conv_case;

static const conv_case cases[] = {
    {"1-d", 1, 3, 6, 10, 1, {50}, {5}, 2, 2, 1, 0, 0, 1},
    {"1-d dilated grouped", 1, 2, 8, 12, 4, {33}, {3}, 1, 3, 3, 0, 0, 0},
    {"2-d", 2, 2, 8, 16, 1, {12, 11}, {3, 3}, 1, 1, 1, 0, 0, 1},
    {"2-d groups 2 stride 2", 2, 2, 8, 12, 2, {13, 10}, {3, 2}, 2, 1, 1, 0, 0, 1},
    {"2-d depthwise", 2, 4, 16, 16, 16, {14, 14}, {3, 3}, 1, 1, 1, 0, 0, 1},
    {"2-d depthwise x2", 2, 2, 8, 16, 8, {9, 9}, {5, 5}, 2, 2, 1, 0, 0, 0},
    {"2-d dilated", 2, 2, 4, 6, 1, {15, 15}, {3, 3}, 1, 2, 2, 0, 0, 1},
    {"3-d", 3, 2, 4, 8, 1, {6, 7, 8}, {3, 3, 3}, 1, 1, 1, 0, 0, 1},
    {"3-d grouped strided", 3, 1, 6, 6, 3, {9, 8, 7}, {3, 2, 3}, 2, 1, 1, 0, 0, 0},
    {"1-d transposed", 1, 2, 6, 4, 1, {20}, {4}, 2, 1, 1, 1, 1, 1},
    {"2-d transposed", 2, 2, 8, 6, 1, {7, 6}, {3, 3}, 2, 1, 1, 1, 1, 1},
    {"2-d transposed grouped", 2, 2, 8, 12, 4, {6, 5}, {3, 3}, 2, 1, 1, 0, 1, 1},
    {"2-d transposed dilated", 2, 1, 4, 4, 2, {8, 8}, {3, 3}, 1, 2, 2, 0, 1, 0},
    {"3-d transposed", 3, 1, 4, 6, 2, {4, 5, 3}, {3, 3, 3}, 2, 1, 1, 1, 1, 1},
};

static const tabi_dtype dts[3] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16};

/* Output size of spatial dim i (ATen's formulas). */
static int64_t out_size(const conv_case *c, int32_t i) {
  int64_t span = c->d * (c->k[i] - 1) + 1;
  if (c->transposed) return (c->in[i] - 1) * c->s - 2 * c->p + span + c->op;
  return (c->in[i] + 2 * c->p - span) / c->s + 1;
}

static tspec nd_spec(int32_t nd, int64_t a, int64_t b, const int64_t *sp, tabi_dtype dt) {
  tspec t = {nd, {a, b}, dt, FILL_RAND, 0, 0};
  for (int32_t i = 0; i < nd - 2; i++) t.shape[2 + i] = sp[i];
  return t;
}

/* The forward and backward callspecs of case c in dtype dt (tensors: input,
 * weight, bias / grad_output, input, weight); the int lists they point to
 * live in the struct. */
typedef struct specs {
  int64_t s[3], p[3], d[3], op[3], bsz[1], mask[3];
  callspec fwd, bwd;
} specs;

static void build(const conv_case *c, tabi_dtype dt, int tr_mask, specs *o) {
  int32_t ns = c->ns, nd = ns + 2;
  int64_t out[3];
  for (int32_t i = 0; i < ns; i++) {
    o->s[i] = c->s;
    o->p[i] = c->p;
    o->d[i] = c->d;
    o->op[i] = c->op;
    out[i] = out_size(c, i);
  }
  o->bsz[0] = c->oc;
  o->mask[0] = tr_mask & 1;
  o->mask[1] = (tr_mask >> 1) & 1;
  o->mask[2] = (tr_mask >> 2) & 1;
  tspec x = nd_spec(nd, c->n, c->ic, c->in, dt);
  tspec w = c->transposed ? nd_spec(nd, c->ic, c->oc / c->groups, c->k, dt)
                          : nd_spec(nd, c->oc, c->ic / c->groups, c->k, dt);
  tspec b = T1(c->oc, dt, FILL_RAND), dy = nd_spec(nd, c->n, c->oc, out, dt);
  callspec f = {"aten::convolution", 9, {x, w, b}, {0, 1, 2}, c->bias ? 3 : 2,
                {{0}, {0}, tabi_none(), tabi_int_list(o->s, ns), tabi_int_list(o->p, ns),
                 tabi_int_list(o->d, ns), tabi_bool(c->transposed), tabi_int_list(o->op, ns),
                 tabi_int(c->groups)},
                1, 30};
  o->fwd = f;
  callspec g = {"aten::convolution_backward", 11, {dy, x, w}, {0, 1, 2}, 3,
                {{0}, {0}, {0}, tabi_int_list(o->bsz, 1), tabi_int_list(o->s, ns), tabi_int_list(o->p, ns),
                 tabi_int_list(o->d, ns), tabi_bool(c->transposed), tabi_int_list(o->op, ns),
                 tabi_int(c->groups), tabi_bool_list(o->mask, 3)},
                3, 60};
  o->bwd = g;
}

static void fast_cases(tabi_runtime *f, tabi_runtime *r) {
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    for (int t = 0; t < 3; t++) {
      char label[128];
      snprintf(label, sizeof label, "%s %s", cases[i].name, tabi_dtype_name(dts[t]));
      specs s;
      build(&cases[i], dts[t], 7, &s);
      diff(f, r, &s.fwd, label);
      diff(f, r, &s.bwd, label);
      /* one output at a time: the others come back as none */
      for (int m = 1; m <= 4; m <<= 1) {
        build(&cases[i], dts[t], m, &s);
        snprintf(label, sizeof label, "%s %s mask %d", cases[i].name, tabi_dtype_name(dts[t]), m);
        diff(f, r, &s.bwd, label);
      }
    }
}

/* Non-contiguous dense inputs: transposed spatial views (the harness's
 * `transpose`: the last two dims swapped) of input, weight and grad_output. */
static void view_cases(tabi_runtime *f, tabi_runtime *r) {
  static const int pick[] = {2, 3, 4, 8, 11};
  for (size_t i = 0; i < sizeof pick / sizeof *pick; i++)
    for (int t = 0; t < 3; t += 2) {
      const conv_case *c = &cases[pick[i]];
      char label[128];
      snprintf(label, sizeof label, "%s %s, transposed views", c->name, tabi_dtype_name(dts[t]));
      specs s;
      build(c, dts[t], 7, &s);
      s.fwd.t[0].transpose = s.fwd.t[1].transpose = 1;
      s.bwd.t[0].transpose = s.bwd.t[1].transpose = s.bwd.t[2].transpose = 1;
      diff(f, r, &s.fwd, label);
      diff(f, r, &s.bwd, label);
    }
}

/* [n, c, h, w] with channels-last strides (c innermost), filled from seed. */
static tabi_tensor *channels_last(tabi_runtime *rt, const int64_t *shape, tabi_dtype dt, uint64_t seed) {
  int64_t phys[4] = {shape[0], shape[2], shape[3], shape[1]};
  tspec sp = {4, {phys[0], phys[1], phys[2], phys[3]}, dt, FILL_RAND, 0, 0};
  rng_state = seed;
  tabi_tensor *t = make(rt, &sp), *v = NULL;
  if (!t) return NULL;
  int64_t st[4] = {phys[1] * phys[2] * phys[3], 1, phys[2] * phys[3], phys[3]};
  tabi_tensor_view(rt, t, 4, shape, st, 0, &v);
  tabi_tensor_release(t);
  return v;
}

/* Channels-last input and grad_output (the layout PyTorch's CPU models use):
 * forward and backward against the reference. */
static void channels_last_cases(tabi_runtime *f, tabi_runtime *r) {
  int64_t xs[4] = {2, 16, 10, 9}, ws[4] = {8, 16, 3, 3}, ys[4] = {2, 8, 10, 9}, one[2] = {1, 1};
  int64_t zero[2] = {0, 0}, bsz[1] = {8}, mask[3] = {1, 1, 1};
  for (int t = 0; t < 3; t++) {
    tabi_dtype dt = dts[t];
    tabi_runtime *rts[2] = {f, r};
    tabi_value outs[2][3];
    tabi_status st[2][2];
    for (int side = 0; side < 2; side++) {
      tabi_tensor *x = channels_last(rts[side], xs, dt, 3), *dy = channels_last(rts[side], ys, dt, 4);
      tspec wsp = {4, {ws[0], ws[1], ws[2], ws[3]}, dt, FILL_RAND, 0, 0};
      rng_state = 5;
      tabi_tensor *w = make(rts[side], &wsp);
      tabi_value fa[9] = {tabi_tensor_value(x), tabi_tensor_value(w), tabi_none(), tabi_int_list(one, 2),
                          tabi_int_list(one, 2), tabi_int_list(one, 2), tabi_bool(0), tabi_int_list(zero, 2),
                          tabi_int(1)};
      tabi_value ba[11] = {tabi_tensor_value(dy), tabi_tensor_value(x), tabi_tensor_value(w),
                           tabi_int_list(bsz, 1), tabi_int_list(one, 2), tabi_int_list(one, 2),
                           tabi_int_list(one, 2), tabi_bool(0), tabi_int_list(zero, 2), tabi_int(1),
                           tabi_bool_list(mask, 3)};
      tabi_op fop, bop;
      outs[side][0] = tabi_none();
      st[side][0] = tabi_op_find(rts[side], "aten::convolution", &fop);
      if (st[side][0] == TABI_OK) st[side][0] = tabi_call(rts[side], fop, fa, 9, outs[side], 1);
      tabi_value bo[3] = {tabi_none(), tabi_none(), tabi_none()};
      st[side][1] = tabi_op_find(rts[side], "aten::convolution_backward", &bop);
      if (st[side][1] == TABI_OK) st[side][1] = tabi_call(rts[side], bop, ba, 11, bo, 3);
      outs[side][1] = bo[0];
      outs[side][2] = bo[1];
      tabi_value_release(&bo[2]);
      tabi_tensor_release(x);
      tabi_tensor_release(dy);
      tabi_tensor_release(w);
    }
    char what[96];
    snprintf(what, sizeof what, "channels-last %s", tabi_dtype_name(dt));
    CHECK_MSG(st[0][0] == TABI_OK && st[1][0] == TABI_OK && st[0][1] == TABI_OK && st[1][1] == TABI_OK,
              "%s: status (%s)", what, tabi_last_error());
    for (int o = 0; o < 3; o++) {
      if (outs[0][o].tag == TABI_TAG_TENSOR && outs[1][o].tag == TABI_TAG_TENSOR)
        CHECK_MSG(same(what, outs[0][o].u.t, outs[1][o].u.t, 60), "%s: output %d", what, o);
      tabi_value_release(&outs[0][o]);
      tabi_value_release(&outs[1][o]);
    }
  }
}

/* Cases the fast path declines: float64 (no oneDNN kernel), output_padding
 * larger than padding (negative right padding in oneDNN's terms), and errors
 * (groups not dividing the channels, output_padding >= stride and dilation):
 * same status and results as the reference. */
static void declined_cases(tabi_runtime *f, tabi_runtime *r) {
  specs s;
  build(&cases[2], TABI_DTYPE_FLOAT64, 7, &s);
  diff(f, r, &s.fwd, "2-d float64");
  diff(f, r, &s.bwd, "2-d float64");
  conv_case opad = {"op > p", 2, 1, 4, 4, 1, {5, 5}, {3, 3}, 2, 0, 1, 1, 1, 1};
  build(&opad, TABI_DTYPE_FLOAT32, 7, &s);
  diff(f, r, &s.fwd, "transposed output_padding > padding");
  diff(f, r, &s.bwd, "transposed output_padding > padding");
  conv_case badg = {"bad groups", 2, 1, 6, 6, 4, {5, 5}, {3, 3}, 1, 1, 1, 0, 0, 0};
  build(&badg, TABI_DTYPE_FLOAT32, 7, &s);
  s.fwd.t[1].shape[1] = 2; /* 6 input channels, groups 4 */
  tabi_value out[1];
  tabi_status st = run(f, &s.fwd, 1, out);
  tabi_value_release(&out[0]);
  CHECK_MSG(st == TABI_ERR_SHAPE, "groups 4 over 6 channels: status %d (%s)", (int)st, tabi_last_error());
  CHECK_MSG(strstr(tabi_last_error(), "groups") != NULL, "error names groups: %s", tabi_last_error());
  diff(f, r, &s.fwd, "groups not dividing the channels");
  conv_case bado = {"bad output_padding", 2, 1, 4, 4, 1, {5, 5}, {3, 3}, 1, 2, 1, 1, 1, 0};
  build(&bado, TABI_DTYPE_FLOAT32, 7, &s);
  st = run(f, &s.fwd, 1, out);
  tabi_value_release(&out[0]);
  CHECK_MSG(st == TABI_ERR_INVALID_ARGUMENT, "output_padding 1 with stride 1: status %d", (int)st);
  diff(f, r, &s.fwd, "output_padding >= stride and dilation");
}

static void determinism(const char *plugin) {
  tabi_runtime *r1 = load_rt(plugin, "1"), *r3 = load_rt(plugin, "3");
  CHECK(r1 != NULL && r3 != NULL);
  if (r1 && r3) {
    tabi_runtime_set_deterministic(r1, 1);
    tabi_runtime_set_deterministic(r3, 1);
    specs s;
    build(&cases[11], TABI_DTYPE_FLOAT32, 7, &s);
    bitwise(r1, r3, &s.bwd, "transposed grouped backward, 1 vs 3 threads");
    build(&cases[8], TABI_DTYPE_BFLOAT16, 7, &s);
    bitwise(r1, r3, &s.bwd, "3-d bfloat16 backward, 1 vs 3 threads");
  }
  if (r1) tabi_runtime_destroy(r1);
  if (r3) tabi_runtime_destroy(r3);
}

int main(int argc, char **argv) {
  static const harness_cases_fn all[] = {fast_cases, view_cases, channels_last_cases, declined_cases, NULL};
  return harness_main(argc, argv, all, determinism);
}
