/* conformance/samples_nn2.c: softmax, normalizations (batch, group, layer,
 * with their backward ops), grid sampling, distances, embedding_bag, svd and
 * the FFTs (sizes even, odd and prime; every normalization).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gen.h"

typedef struct nshape { int32_t n; int64_t d[5]; } nshape;
#define NS(...) ((nshape){(int32_t)(sizeof GEN_S(__VA_ARGS__) / sizeof(int64_t)), {__VA_ARGS__}})
#define L(...) (int32_t)(sizeof GEN_S(__VA_ARGS__) / sizeof(int64_t)), GEN_S(__VA_ARGS__)

static tabi_tensor *Td(gen_ctx *g, tabi_dtype dt, nshape s, uint32_t layout, int32_t dom) {
  return gen_tensor(g, dt, s.n, s.d, layout, dom);
}
static tabi_tensor *T(gen_ctx *g, nshape s, uint32_t layout) { return Td(g, g->dt, s, layout, GEN_DOM_ANY); }
static tabi_tensor *TP(gen_ctx *g, nshape s) { return Td(g, g->dt, s, 0, GEN_DOM_POS); }
static void err(gen_ctx *g) { gen_flags(g, CONFORM_EXPECT_ERROR); gen_commit(g); }

/* --- softmax ------------------------------------------------------------------ */

static void softmax_one(gen_ctx *g, const char *name, nshape s, uint32_t l, int64_t dim, int special) {
  gen_begin(g, "%s", name);
  tabi_tensor *t = T(g, s, l);
  if (special) gen_specials_no_max(g, t, 2);
  gen_arg_t(g, 0, t);
  gen_arg_int(g, 1, dim);
  gen_arg_bool(g, 2, 0);
}

static void gen_softmax(gen_ctx *g) {
  softmax_one(g, "[2, 5] dim 1", NS(2, 5), 0, 1, 0); gen_commit(g);
  softmax_one(g, "dim 0, transposed", NS(4, 3), GEN_L_T, 0, 0); gen_commit(g);
  softmax_one(g, "[2, 3, 4] dim -1, offset", NS(2, 3, 4), GEN_L_OFFSET, -1, 0); gen_commit(g);
  softmax_one(g, "expanded, dim 0", NS(3, 4), GEN_L_EXPAND, 0, 0); gen_commit(g);
  softmax_one(g, "0-d", (nshape){0, {0}}, 0, 0, 0); gen_commit(g);
  softmax_one(g, "empty [0, 4]", NS(0, 4), 0, 1, 0); gen_commit(g);
  softmax_one(g, "special values [2, 8]", NS(2, 8), 0, 1, 1); gen_commit(g);
  softmax_one(g, "long [2, 200]", NS(2, 200), 0, 1, 0); gen_commit(g);
  softmax_one(g, "dim out of range", NS(2, 3), 0, 2, 0); err(g);
}

/* --- batch norm ------------------------------------------------------------------ */

/* mode 0: _native_batch_norm_legit (input, w, b, rm!, rv!, training, momentum, eps)
 * mode 1: .no_stats (input, w, b, training, momentum, eps)
 * mode 2: _no_training (input, w, b, rm, rv, momentum, eps) */
static void bn_one(gen_ctx *g, const char *name, nshape in, uint32_t l, int affine, int training) {
  int mode = g->e->a;
  int64_t c = in.d[1];
  nshape cs = {1, {c}};
  gen_begin(g, "%s", name);
  gen_arg_t(g, 0, T(g, in, l));
  gen_arg_t(g, 1, affine ? T(g, cs, 0) : NULL);
  gen_arg_t(g, 2, affine ? T(g, cs, 0) : NULL);
  int32_t i = 3;
  if (mode != 1) { gen_arg_t(g, 3, T(g, cs, 0)); gen_arg_t(g, 4, TP(g, cs)); i = 5; }
  if (mode != 2) gen_arg_bool(g, i++, training);
  gen_arg_float(g, i++, 0.1);
  gen_arg_float(g, i, 1e-5);
}

static void gen_batch_norm(gen_ctx *g) {
  int mode = g->e->a;
  bn_one(g, "[2, 3, 4] training", NS(2, 3, 4), 0, 1, 1); gen_commit(g);
  bn_one(g, "[2, 3, 2, 2] no affine, transposed", NS(2, 3, 2, 2), GEN_L_T, 0, 1); gen_commit(g);
  bn_one(g, "[4, 2] offset", NS(4, 2), GEN_L_OFFSET, 1, 1); gen_commit(g);
  if (mode == 0) { bn_one(g, "eval (running stats)", NS(3, 2, 5), 0, 1, 0); gen_commit(g); }
  if (mode == 2) { bn_one(g, "[1, 3, 5]", NS(1, 3, 5), GEN_L_STEP, 1, 0); gen_commit(g); }
  if (mode == 0 && (g->dt == TABI_DTYPE_FLOAT32 || g->dt == TABI_DTYPE_FLOAT64)) {
    /* running stats whose channels share one element: ATen takes them and
       updates that element channel after channel (its value is not compared).
       Not for the half types: non-contiguous running stats send ATen's CPU
       kernel down a path that rounds each step to bfloat16 */
    bn_one(g, "running stats expanded (stride 0)", NS(2, 3, 4), 0, 1, 1);
    if (g->cur) {
      gen_arg_t(g, 3, gen_tensor(g, g->dt, 1, GEN_S(3), GEN_L_EXPAND, GEN_DOM_ANY));
      gen_arg_t(g, 4, gen_tensor(g, g->dt, 1, GEN_S(3), GEN_L_EXPAND, GEN_DOM_POS));
    }
    gen_commit(g);
  }
  bn_one(g, "weight of the wrong size", NS(2, 3, 4), 0, 1, 1);
  if (g->cur) {
    tabi_tensor *w = gen_tensor(g, g->dt, 1, GEN_S(4), 0, GEN_DOM_ANY);
    gen_arg_t(g, 1, w);
  }
  err(g);
}

/* --- group norm --------------------------------------------------------------- */

typedef struct gn_case { const char *name; nshape in; int64_t N, C, HxW, group; int affine; uint32_t l; } gn_case;
static const gn_case gn_cases[] = {
    {"[2, 4, 3] groups 2", {3, {2, 4, 3}}, 2, 4, 3, 2, 1, 0},
    {"[2, 6, 2, 2] groups 3, no affine", {4, {2, 6, 2, 2}}, 2, 6, 4, 3, 0, GEN_L_T},
    {"[1, 4, 5] groups 4, offset", {3, {1, 4, 5}}, 1, 4, 5, 4, 1, GEN_L_OFFSET},
};

static void gen_group_norm(gen_ctx *g) {
  for (int i = 0; i < 3; i++) {
    const gn_case *c = &gn_cases[i];
    nshape cs = {1, {c->C}};
    gen_begin(g, "%s", c->name);
    gen_arg_t(g, 0, T(g, c->in, c->l));
    gen_arg_t(g, 1, c->affine ? T(g, cs, 0) : NULL);
    gen_arg_t(g, 2, c->affine ? T(g, cs, 0) : NULL);
    gen_arg_int(g, 3, c->N); gen_arg_int(g, 4, c->C); gen_arg_int(g, 5, c->HxW);
    gen_arg_int(g, 6, c->group); gen_arg_float(g, 7, 1e-5);
    gen_commit(g);
  }
  if (tabi_dtype_is_floating(g->dt)) {
    /* constant groups with eps 1e-310: rstd in opmath, as ATen (see layer norm) */
    static const double two[24] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
    gen_begin(g, "constant groups, eps 1e-310 (rstd in opmath)");
    gen_arg_t(g, 0, gen_tensor_of(g, g->dt, 3, GEN_S(2, 4, 3), two)); gen_arg_none(g, 1); gen_arg_none(g, 2);
    gen_arg_int(g, 3, 2); gen_arg_int(g, 4, 4); gen_arg_int(g, 5, 3); gen_arg_int(g, 6, 2);
    gen_arg_float(g, 7, 1e-310);
    gen_flags(g, CONFORM_SINGULAR);
    gen_commit(g);
  }
  /* groups of no element: ATen's mean is 0 (not 0/0), its rstd NaN; a 1-D
     empty input with C = 0 is taken, weight and all */
  gen_begin(g, "[2, 4, 0] HxW 0, groups 2");
  gen_arg_t(g, 0, T(g, NS(2, 4, 0), 0)); gen_arg_none(g, 1); gen_arg_none(g, 2);
  gen_arg_int(g, 3, 2); gen_arg_int(g, 4, 4); gen_arg_int(g, 5, 0); gen_arg_int(g, 6, 2); gen_arg_float(g, 7, 1e-5);
  gen_commit(g);
  gen_begin(g, "[0] with C 0, groups 6, weight [0]");
  gen_arg_t(g, 0, T(g, NS(0), 0)); gen_arg_t(g, 1, T(g, NS(0), 0)); gen_arg_none(g, 2);
  gen_arg_int(g, 3, 2); gen_arg_int(g, 4, 0); gen_arg_int(g, 5, 1); gen_arg_int(g, 6, 6); gen_arg_float(g, 7, 1e-5);
  gen_commit(g);
  gen_begin(g, "channels not divisible by groups");
  gen_arg_t(g, 0, T(g, NS(2, 4, 3), 0)); gen_arg_none(g, 1); gen_arg_none(g, 2);
  gen_arg_int(g, 3, 2); gen_arg_int(g, 4, 4); gen_arg_int(g, 5, 3); gen_arg_int(g, 6, 3); gen_arg_float(g, 7, 1e-5);
  err(g);
}

static void gen_group_norm_backward(gen_ctx *g) {
  static const int64_t masks[][3] = {{1, 1, 1}, {1, 0, 0}, {0, 1, 1}};
  for (int i = 0; i < 3; i++) {
    const gn_case *c = &gn_cases[i];
    nshape cs = {1, {c->C}}, st = {2, {c->N, c->group}};
    gen_begin(g, "%s", c->name);
    gen_arg_t(g, 0, T(g, c->in, 0));
    gen_arg_t(g, 1, T(g, c->in, c->l));
    gen_arg_t(g, 2, T(g, st, 0));
    gen_arg_t(g, 3, TP(g, st));
    gen_arg_t(g, 4, c->affine ? T(g, cs, 0) : NULL);
    gen_arg_int(g, 5, c->N); gen_arg_int(g, 6, c->C); gen_arg_int(g, 7, c->HxW); gen_arg_int(g, 8, c->group);
    gen_arg_bools(g, 9, 3, masks[i]);
    gen_commit(g);
  }
}

/* --- layer norm ---------------------------------------------------------------- */

typedef struct ln_case { const char *name; nshape in; int32_t nn; int64_t norm[2]; int affine; uint32_t l; } ln_case;
static const ln_case ln_cases[] = {
    {"[2, 3, 4] over [4]", {3, {2, 3, 4}}, 1, {4}, 1, 0},
    {"[3, 4] over [3, 4], no affine, transposed", {2, {3, 4}}, 2, {3, 4}, 0, GEN_L_T},
    {"[2, 5] over [5], offset", {2, {2, 5}}, 1, {5}, 1, GEN_L_OFFSET},
};

static nshape ln_stat_shape(const ln_case *c) {
  nshape s = c->in;
  for (int32_t i = s.n - c->nn; i < s.n; i++) s.d[i] = 1;
  return s;
}

static void gen_layer_norm(gen_ctx *g) {
  for (int i = 0; i < 3; i++) {
    const ln_case *c = &ln_cases[i];
    nshape ns = {c->nn, {c->norm[0], c->norm[1]}};
    gen_begin(g, "%s", c->name);
    gen_arg_t(g, 0, T(g, c->in, c->l));
    gen_arg_ints(g, 1, c->nn, c->norm);
    gen_arg_t(g, 2, c->affine ? T(g, ns, 0) : NULL);
    gen_arg_t(g, 3, c->affine ? T(g, ns, 0) : NULL);
    gen_arg_float(g, 4, 1e-5);
    gen_commit(g);
  }
  gen_begin(g, "special values");
  {
    tabi_tensor *t = T(g, NS(3, 6), 0);
    gen_specials_no_max(g, t, 6);
    gen_arg_t(g, 0, t);
  }
  gen_arg_ints(g, 1, L(6)); gen_arg_none(g, 2); gen_arg_none(g, 3); gen_arg_float(g, 4, 1e-5);
  gen_commit(g);
  if (tabi_dtype_is_floating(g->dt)) {
    /* a constant row with eps 1e-310: rstd is taken in opmath, float below
       float64 (eps 0 there, rstd inf, output 0 * inf = NaN), as ATen */
    static const double two[6] = {2, 2, 2, 2, 2, 2};
    gen_begin(g, "constant rows, eps 1e-310 (rstd in opmath)");
    gen_arg_t(g, 0, gen_tensor_of(g, g->dt, 2, GEN_S(2, 3), two)); gen_arg_ints(g, 1, L(3));
    gen_arg_none(g, 2); gen_arg_none(g, 3); gen_arg_float(g, 4, 1e-310);
    gen_flags(g, CONFORM_SINGULAR);
    gen_commit(g);
  }
  /* rows of no element: ATen's mean is 0 (not 0/0), its rstd NaN */
  gen_begin(g, "empty rows [3, 0]");
  gen_arg_t(g, 0, T(g, NS(3, 0), 0)); gen_arg_ints(g, 1, L(0)); gen_arg_none(g, 2); gen_arg_none(g, 3);
  gen_arg_float(g, 4, 1e-5);
  gen_commit(g);
  gen_begin(g, "normalized_shape does not match");
  gen_arg_t(g, 0, T(g, NS(2, 3), 0)); gen_arg_ints(g, 1, L(4)); gen_arg_none(g, 2); gen_arg_none(g, 3);
  gen_arg_float(g, 4, 1e-5);
  err(g);
}

static void gen_layer_norm_backward(gen_ctx *g) {
  static const int64_t masks[][3] = {{1, 1, 1}, {1, 0, 0}, {0, 1, 1}};
  for (int i = 0; i < 3; i++) {
    const ln_case *c = &ln_cases[i];
    nshape ns = {c->nn, {c->norm[0], c->norm[1]}};
    gen_begin(g, "%s", c->name);
    gen_arg_t(g, 0, T(g, c->in, 0));
    gen_arg_t(g, 1, T(g, c->in, c->l));
    gen_arg_ints(g, 2, c->nn, c->norm);
    gen_arg_t(g, 3, T(g, ln_stat_shape(c), 0));
    gen_arg_t(g, 4, TP(g, ln_stat_shape(c)));
    gen_arg_t(g, 5, c->affine ? T(g, ns, 0) : NULL);
    gen_arg_t(g, 6, c->affine ? T(g, ns, 0) : NULL);
    gen_arg_bools(g, 7, 3, masks[i]);
    gen_commit(g);
  }
}

/* --- grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners) --- */

static void gen_grid_sampler(gen_ctx *g) {
  static const int combos[][3] = {{0, 0, 0}, {0, 1, 1}, {0, 2, 0}, {1, 0, 1}, {1, 2, 0}, {2, 0, 0}, {2, 1, 1}};
  for (int i = 0; i < 7; i++) {
    gen_begin(g, "interpolation %d padding %d align_corners %d", combos[i][0], combos[i][1], combos[i][2]);
    gen_arg_t(g, 0, T(g, NS(1, 2, 4, 5), i == 1 ? GEN_L_T : 0));
    gen_arg_t(g, 1, Td(g, g->dt, NS(1, 3, 3, 2), i == 2 ? GEN_L_OFFSET : 0, GEN_DOM_SMALL));
    gen_arg_int(g, 2, combos[i][0]); gen_arg_int(g, 3, combos[i][1]); gen_arg_bool(g, 4, combos[i][2]);
    gen_commit(g);
  }
  gen_begin(g, "batch sizes differ");
  gen_arg_t(g, 0, T(g, NS(2, 1, 3, 3), 0)); gen_arg_t(g, 1, T(g, NS(1, 2, 2, 2), 0));
  gen_arg_int(g, 2, 0); gen_arg_int(g, 3, 0); gen_arg_bool(g, 4, 0);
  err(g);
}

/* --- distances --------------------------------------------------------------------- */

static void gen_cdist(gen_ctx *g) {
  static const double ps[] = {2.0, 1.0, 0.0, INFINITY, 1.5};
  for (int i = 0; i < 5; i++) {
    gen_begin(g, "[3, 4] to [5, 4] p=%g", ps[i]);
    gen_arg_t(g, 0, T(g, NS(3, 4), i == 1 ? GEN_L_T : 0));
    gen_arg_t(g, 1, T(g, NS(5, 4), i == 2 ? GEN_L_OFFSET : 0));
    gen_arg_float(g, 2, ps[i]); gen_arg_none(g, 3);
    gen_commit(g);
  }
  gen_begin(g, "batched [2, 3, 4] to [2, 2, 4]");
  gen_arg_t(g, 0, T(g, NS(2, 3, 4), 0)); gen_arg_t(g, 1, T(g, NS(2, 2, 4), 0));
  gen_arg_float(g, 2, 2.0); gen_arg_none(g, 3);
  gen_commit(g);
  gen_begin(g, "empty rows");
  gen_arg_t(g, 0, T(g, NS(0, 4), 0)); gen_arg_t(g, 1, T(g, NS(3, 4), 0));
  gen_arg_float(g, 2, 2.0); gen_arg_none(g, 3);
  gen_commit(g);
  gen_begin(g, "feature sizes differ");
  gen_arg_t(g, 0, T(g, NS(3, 4), 0)); gen_arg_t(g, 1, T(g, NS(3, 5), 0));
  gen_arg_float(g, 2, 2.0); gen_arg_none(g, 3);
  err(g);
}

static void gen_pdist(gen_ctx *g) {
  static const double ps[] = {2.0, 1.0, INFINITY, 0.5};
  for (int i = 0; i < 4; i++) {
    gen_begin(g, "[4, 3] p=%g", ps[i]);
    gen_arg_t(g, 0, T(g, NS(4, 3), 0));
    gen_arg_float(g, 1, ps[i]);
    gen_commit(g);
  }
  gen_begin(g, "[1, 3] (no pairs)"); gen_arg_t(g, 0, T(g, NS(1, 3), 0)); gen_arg_float(g, 1, 2.0); gen_commit(g);
  gen_begin(g, "1-d input"); gen_arg_t(g, 0, T(g, NS(4), 0)); gen_arg_float(g, 1, 2.0); err(g);
}

/* --- _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
 *     per_sample_weights, include_last_offset, padding_idx) --------------------- */

static void gen_embedding_bag(gen_ctx *g) {
  for (int mode = 0; mode < 3; mode++) {
    gen_begin(g, "mode %d", mode);
    gen_arg_t(g, 0, T(g, NS(6, 3), mode == 1 ? GEN_L_T : 0));
    gen_arg_t(g, 1, gen_index(g, TABI_DTYPE_INT64, 1, GEN_S(7), 0, 5));
    gen_arg_t(g, 2, gen_tensor_of(g, TABI_DTYPE_INT64, 1, GEN_S(3), (const double[]){0, 2, 5}));
    gen_arg_bool(g, 3, 0); gen_arg_int(g, 4, mode);
    gen_commit(g);
  }
  gen_begin(g, "per_sample_weights (sum)");
  gen_arg_t(g, 0, T(g, NS(6, 3), 0));
  gen_arg_t(g, 1, gen_index(g, TABI_DTYPE_INT64, 1, GEN_S(7), 0, 5));
  gen_arg_t(g, 2, gen_tensor_of(g, TABI_DTYPE_INT64, 1, GEN_S(3), (const double[]){0, 2, 5}));
  gen_arg_bool(g, 3, 0); gen_arg_int(g, 4, 0); gen_arg_bool(g, 5, 0);
  gen_arg_t(g, 6, T(g, NS(7), 0));
  gen_commit(g);
  gen_begin(g, "include_last_offset, mean");
  gen_arg_t(g, 0, T(g, NS(6, 3), GEN_L_OFFSET));
  gen_arg_t(g, 1, gen_index(g, TABI_DTYPE_INT64, 1, GEN_S(7), 0, 5));
  gen_arg_t(g, 2, gen_tensor_of(g, TABI_DTYPE_INT64, 1, GEN_S(4), (const double[]){0, 2, 5, 7}));
  gen_arg_bool(g, 3, 0); gen_arg_int(g, 4, 1); gen_arg_bool(g, 5, 0); gen_arg_none(g, 6); gen_arg_bool(g, 7, 1);
  gen_commit(g);
  gen_begin(g, "padding_idx 1, sum, empty bag");
  gen_arg_t(g, 0, T(g, NS(6, 3), 0));
  gen_arg_t(g, 1, gen_index(g, TABI_DTYPE_INT64, 1, GEN_S(5), 0, 3));
  gen_arg_t(g, 2, gen_tensor_of(g, TABI_DTYPE_INT64, 1, GEN_S(3), (const double[]){0, 2, 2}));
  gen_arg_bool(g, 3, 0); gen_arg_int(g, 4, 0); gen_arg_bool(g, 5, 0); gen_arg_none(g, 6); gen_arg_bool(g, 7, 0);
  gen_arg_int(g, 8, 1);
  gen_commit(g);
  gen_begin(g, "index out of range");
  gen_arg_t(g, 0, T(g, NS(6, 3), 0));
  gen_arg_t(g, 1, gen_index(g, TABI_DTYPE_INT64, 1, GEN_S(3), 6, 6));
  gen_arg_t(g, 2, gen_tensor_of(g, TABI_DTYPE_INT64, 1, GEN_S(1), (const double[]){0}));
  err(g);
}

/* --- prims::svd(A, *, full_matrices) --------------------------------------------- */

static void gen_svd(gen_ctx *g) {
  static const struct { const char *name; nshape s; int full; uint32_t l; } c[] = {
      {"[4, 3]", {2, {4, 3}}, 0, 0}, {"[3, 5] full_matrices", {2, {3, 5}}, 1, 0},
      {"batched [2, 3, 3], transposed", {3, {2, 3, 3}}, 0, GEN_L_T}, {"[4, 2] full, offset", {2, {4, 2}}, 1, GEN_L_OFFSET},
      {"[0, 3]", {2, {0, 3}}, 0, 0}};
  for (int i = 0; i < 5; i++) {
    gen_begin(g, "%s", c[i].name);
    gen_arg_t(g, 0, T(g, c[i].s, c[i].l));
    gen_arg_bool(g, 1, c[i].full);
    gen_flags(g, CONFORM_SIGN_AMBIGUOUS);
    gen_commit(g);
  }
}

/* --- FFT ------------------------------------------------------------------------
 * The dtype under test is the input's: real for r2c, complex for c2c and c2r. */

static void gen_fft(gen_ctx *g) {
  int kind = g->e->a;      /* 0: r2c, 1: c2r, 2: c2c */
  int prim = (g->e->flags & GEN_F_PRIM) != 0;
  static const struct { const char *name; nshape s; int32_t nd; int64_t dims[2]; uint32_t l; int64_t last; } c[] = {
      {"[8]", {1, {8}}, 1, {0}, 0, 8},
      {"odd [7]", {1, {7}}, 1, {0}, GEN_L_OFFSET, 7},
      {"prime [13]", {1, {13}}, 1, {0}, 0, 13},
      {"[1]", {1, {1}}, 1, {0}, 0, 1},
      {"[3, 6] dim 1, transposed", {2, {3, 6}}, 1, {1}, GEN_L_T, 6},
      {"[4, 5] dims [0, 1]", {2, {4, 5}}, 2, {0, 1}, 0, 5},
      {"[2, 3, 4] dims [0, 2], stepped", {3, {2, 3, 4}}, 2, {0, 2}, GEN_L_STEP, 4},
      {"long [64]", {1, {64}}, 1, {0}, 0, 64},
  };
  for (int i = 0; i < 8; i++) {
    nshape s = c[i].s;
    int64_t last = c[i].last;
    if (kind == 1) { /* c2r takes the onesided half: last dim n/2 + 1 */
      int32_t ax = (int32_t)c[i].dims[c[i].nd - 1];
      s.d[ax] = last / 2 + 1;
    }
    for (int v = 0; v < (prim ? 2 : 3); v++) {
      if (prim && kind == 1 && v == 1 && last == 1) break; /* no other parity for n = 1 */
      gen_begin(g, "%s", c[i].name);
      if (g->cur) {
        size_t n = strlen(g->cur->name);
        if (prim) snprintf(g->cur->name + n, sizeof g->cur->name - n, kind == 2 ? ", forward=%d" : kind == 0 ? ", onesided=%d" : ", variant %d", v == 0);
        else snprintf(g->cur->name + n, sizeof g->cur->name - n, ", normalization %d", v);
      }
      gen_arg_t(g, 0, T(g, s, c[i].l));
      gen_arg_ints(g, 1, c[i].nd, c[i].dims);
      if (prim) {
        if (kind == 0 || kind == 2) gen_arg_bool(g, 2, v == 0);
        else gen_arg_int(g, 2, v == 0 ? last : (last % 2 ? last - 1 : last + 1));
        if (kind == 1 && v == 1 && g->cur) {
          size_t n = strlen(g->cur->name);
          snprintf(g->cur->name + n, sizeof g->cur->name - n, " (other parity)");
        }
      } else {
        gen_arg_int(g, 2, v);
        if (kind == 0) gen_arg_bool(g, 3, (i + v) % 2 == 0);
        else gen_arg_int(g, 3, last);
      }
      gen_flags(g, CONFORM_FINITE_INPUTS);
      gen_commit(g);
      if (i >= 4 && v == 0) break; /* multi-dim cases: one variant */
    }
  }
  gen_begin(g, "dim out of range");
  gen_arg_t(g, 0, T(g, NS(4), 0));
  gen_arg_ints(g, 1, L(1));
  if (prim) { if (kind == 1) gen_arg_int(g, 2, 6); else gen_arg_bool(g, 2, 1); }
  else { gen_arg_int(g, 2, 0); if (kind == 0) gen_arg_bool(g, 3, 1); else gen_arg_int(g, 3, 6); }
  err(g);
}

const gen_entry gen_fft_table[] = {
    {"aten::_fft_r2c", gen_fft, 0, 0, 0},
    {"aten::_fft_c2r", gen_fft, 1, 0, 0},
    {"prims::fft_r2c", gen_fft, 0, 0, GEN_F_PRIM},
    {"prims::fft_c2r", gen_fft, 1, 0, GEN_F_PRIM},
    {"prims::fft_c2c", gen_fft, 2, 0, GEN_F_PRIM},
    {NULL, NULL, 0, 0, 0},
};

/* The nn rows of this file join samples_nn.c's table through gen_nn2_table. */
const gen_entry gen_nn2_table[] = {
    {"aten::_softmax", gen_softmax, 0, 0, 0},
    {"aten::_log_softmax", gen_softmax, 0, 0, 0},
    {"aten::_native_batch_norm_legit", gen_batch_norm, 0, 0, 0},
    {"aten::_native_batch_norm_legit.no_stats", gen_batch_norm, 1, 0, 0},
    {"aten::_native_batch_norm_legit_no_training", gen_batch_norm, 2, 0, 0},
    {"aten::native_group_norm", gen_group_norm, 0, 0, 0},
    {"aten::native_group_norm_backward", gen_group_norm_backward, 0, 0, 0},
    {"aten::native_layer_norm", gen_layer_norm, 0, 0, 0},
    {"aten::native_layer_norm_backward", gen_layer_norm_backward, 0, 0, 0},
    {"aten::grid_sampler_2d", gen_grid_sampler, 0, 0, 0},
    {"aten::_cdist_forward", gen_cdist, 0, 0, 0},
    {"aten::_pdist_forward", gen_pdist, 0, 0, 0},
    {"aten::_embedding_bag", gen_embedding_bag, 0, 0, 0},
    {"prims::svd", gen_svd, 0, 0, 0},
    {NULL, NULL, 0, 0, 0},
};
