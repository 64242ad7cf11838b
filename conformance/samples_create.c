/* conformance/samples_create.c: factories (the dtype under test is their dtype
 * argument), random ops (CONFORM_RANDOM), uninitialized factories
 * (CONFORM_UNINIT), and the scalar extractors (_local_scalar_dense, item,
 * maximum_value). Negative sizes and bad steps are expected errors.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gen.h"

#define L(...) (int32_t)(sizeof GEN_S(__VA_ARGS__) / sizeof(int64_t)), GEN_S(__VA_ARGS__)
#define L0 0, GEN_S(0)
static void err(gen_ctx *g) { gen_flags(g, CONFORM_EXPECT_ERROR); gen_commit(g); }

/* A fill value of the natural kind for the dtype under test. */
static void fill_value(gen_ctx *g, int32_t i, double v) { gen_arg_scalar_for(g, i, g->dt, v); }

static void arange(gen_ctx *g, const char *name, double s, double e, double st, int floats) {
  gen_begin(g, "%s", name);
  if (floats) { gen_arg_float(g, 0, s); gen_arg_float(g, 1, e); gen_arg_float(g, 2, st); }
  else { gen_arg_int(g, 0, (int64_t)s); gen_arg_int(g, 1, (int64_t)e); gen_arg_int(g, 2, (int64_t)st); }
  gen_arg_dtype(g, 3, g->dt);
}

static void gen_arange(gen_ctx *g) {
  arange(g, "0..5", 0, 5, 1, 0); gen_commit(g);
  arange(g, "1..10 step 3", 1, 10, 3, 0); gen_commit(g);
  arange(g, "5..0 step -1", 5, 0, -1, 0); gen_commit(g);
  arange(g, "-3..4 step 2", -3, 4, 2, 0); gen_commit(g);
  arange(g, "empty 2..2", 2, 2, 1, 0); gen_commit(g);
  if (gen_is_float_like(g->dt)) {
    arange(g, "0.5..3 step 0.25", 0.5, 3, 0.25, 1); gen_commit(g);
    arange(g, "1..-2 step -0.7", 1, -2, -0.7, 1); gen_commit(g);
  }
  arange(g, "step 0", 0, 5, 0, 0); err(g);
  arange(g, "step of the wrong sign", 0, 5, -1, 0); err(g);
}

static void gen_empty(gen_ctx *g) {
  int prim = (g->e->flags & GEN_F_PRIM) != 0;
  static const struct { const char *name; int32_t n; int64_t d[3]; } s[] = {
      {"[2, 3]", 2, {2, 3}}, {"[0]", 1, {0}}, {"0-d", 0, {0}}, {"[2, 0, 4]", 3, {2, 0, 4}}};
  for (int i = 0; i < 4; i++) {
    gen_begin(g, "%s", s[i].name);
    gen_arg_ints(g, 0, s[i].n, s[i].d);
    gen_arg_dtype(g, 1, g->dt);
    if (prim) { gen_arg_cpu(g, 2); gen_arg_bool(g, 3, 0); }
    gen_flags(g, CONFORM_UNINIT);
    gen_commit(g);
  }
  gen_begin(g, "negative size");
  gen_arg_ints(g, 0, L(2, -1));
  gen_arg_dtype(g, 1, g->dt);
  if (prim) { gen_arg_cpu(g, 2); gen_arg_bool(g, 3, 0); }
  err(g);
}

static void gen_empty_strided(gen_ctx *g) {
  int prim = (g->e->flags & GEN_F_PRIM) != 0;
  static const struct { const char *name; int32_t n; int64_t d[3], s[3]; } c[] = {
      {"[2, 3] strides [3, 1]", 2, {2, 3}, {3, 1}}, {"[2, 3] strides [1, 2]", 2, {2, 3}, {1, 2}},
      {"[3, 4] strides [0, 1]", 2, {3, 4}, {0, 1}}, {"[0, 3]", 2, {0, 3}, {3, 1}}, {"0-d", 0, {0}, {0}}};
  for (int i = 0; i < 5; i++) {
    gen_begin(g, "%s", c[i].name);
    gen_arg_ints(g, 0, c[i].n, c[i].d);
    gen_arg_ints(g, 1, c[i].n, c[i].s);
    gen_arg_dtype(g, 2, g->dt);
    if (prim) { gen_arg_cpu(g, 3); gen_arg_bool(g, 4, 0); }
    gen_flags(g, CONFORM_UNINIT);
    gen_commit(g);
  }
}

static void gen_full(gen_ctx *g) {
  int prim = (g->e->flags & GEN_F_PRIM) != 0;
  struct { const char *name; int32_t n; int64_t d[3]; double v; } c[] = {
      {"[2, 3] with 3", 2, {2, 3}, 3}, {"0-d with -2", 0, {0}, -2}, {"[0, 4]", 2, {0, 4}, 1},
      {"[3] with 2.5", 1, {3}, 2.5}};
  for (int i = 0; i < 4; i++) {
    gen_begin(g, "%s", c[i].name);
    gen_arg_ints(g, 0, c[i].n, c[i].d);
    fill_value(g, 1, c[i].v);
    gen_arg_dtype(g, 2, g->dt);
    if (prim) { gen_arg_cpu(g, 3); gen_arg_bool(g, 4, 0); }
    gen_commit(g);
  }
  if (gen_is_float_like(g->dt)) {
    gen_begin(g, "[4] with NaN"); gen_arg_ints(g, 0, L(4)); gen_arg_float(g, 1, NAN);
    gen_arg_dtype(g, 2, g->dt);
    if (prim) { gen_arg_cpu(g, 3); gen_arg_bool(g, 4, 0); }
    gen_commit(g);
  }
  if (!prim) {
    gen_begin(g, "dtype None, int fill (int64)"); gen_arg_ints(g, 0, L(2)); gen_arg_int(g, 1, 4);
    gen_commit(g);
  }
  gen_begin(g, "negative size"); gen_arg_ints(g, 0, L(-1, 2)); fill_value(g, 1, 1);
  gen_arg_dtype(g, 2, g->dt);
  if (prim) { gen_arg_cpu(g, 3); gen_arg_bool(g, 4, 0); }
  err(g);
}

static void gen_full_like(gen_ctx *g) {
  int prim = (g->e->flags & GEN_F_PRIM) != 0;
  gen_begin(g, "like [2, 3]");
  gen_arg_t(g, 0, gen_tensor(g, g->dt, 2, GEN_S(2, 3), 0, GEN_DOM_ANY));
  fill_value(g, 1, 3);
  if (prim) { gen_arg_dtype(g, 2, g->dt); gen_arg_cpu(g, 3); gen_arg_bool(g, 4, 0); }
  gen_commit(g);
  gen_begin(g, "like transposed, dtype given");
  gen_arg_t(g, 0, gen_tensor(g, TABI_DTYPE_FLOAT32, 2, GEN_S(3, 4), GEN_L_T, GEN_DOM_ANY));
  fill_value(g, 1, -1);
  gen_arg_dtype(g, 2, g->dt);
  if (prim) { gen_arg_cpu(g, 3); gen_arg_bool(g, 4, 0); }
  gen_commit(g);
  gen_begin(g, "like 0-d");
  gen_arg_t(g, 0, gen_tensor(g, g->dt, 0, NULL, 0, GEN_DOM_ANY));
  fill_value(g, 1, 2);
  if (prim) { gen_arg_dtype(g, 2, g->dt); gen_arg_cpu(g, 3); gen_arg_bool(g, 4, 0); }
  gen_commit(g);
  gen_begin(g, "like empty");
  gen_arg_t(g, 0, gen_tensor(g, g->dt, 2, GEN_S(0, 2), 0, GEN_DOM_ANY));
  fill_value(g, 1, 2);
  if (prim) { gen_arg_dtype(g, 2, g->dt); gen_arg_cpu(g, 3); gen_arg_bool(g, 4, 0); }
  gen_commit(g);
}

static void gen_scalar_tensor(gen_ctx *g) {
  int prim = (g->e->flags & GEN_F_PRIM) != 0;
  static const double v[] = {3, 2.5, 0};
  for (int i = 0; i < 3; i++) {
    gen_begin(g, "value %g", v[i]);
    if (i == 1) gen_arg_float(g, 0, v[i]); else gen_arg_int(g, 0, (int64_t)v[i]);
    gen_arg_dtype(g, 1, g->dt);
    if (prim) gen_arg_cpu(g, 2);
    gen_commit(g);
  }
  gen_begin(g, "bool value"); gen_arg_bool(g, 0, 1); gen_arg_dtype(g, 1, g->dt);
  if (prim) gen_arg_cpu(g, 2);
  gen_commit(g);
  if (!prim) {
    gen_begin(g, "dtype None (float32)"); gen_arg_float(g, 0, 1.5); gen_commit(g);
    /* c10's checked conversion: a complex value with imaginary part 0 fits a
       real dtype, any fits bool (its real part), another does not */
    gen_begin(g, "complex value (-1.97-0j)"); gen_arg_complex(g, 0, -1.97, -0.0); gen_arg_dtype(g, 1, g->dt);
    gen_commit(g);
    gen_begin(g, "complex value 0.5j"); gen_arg_complex(g, 0, -0.0, 0.5); gen_arg_dtype(g, 1, g->dt);
    if (tabi_dtype_is_complex(g->dt) || g->dt == TABI_DTYPE_BOOL) gen_commit(g); else err(g);
  }
}

static void gen_rand(gen_ctx *g) {
  static const struct { const char *name; int32_t n; int64_t d[3]; } s[] = {
      {"[2, 3]", 2, {2, 3}}, {"[100]", 1, {100}}, {"0-d", 0, {0}}, {"[0, 3]", 2, {0, 3}}};
  for (int i = 0; i < 4; i++) {
    gen_begin(g, "%s", s[i].name);
    gen_arg_ints(g, 0, s[i].n, s[i].d);
    gen_arg_dtype(g, 1, g->dt);
    gen_flags(g, CONFORM_RANDOM);
    gen_commit(g);
  }
  gen_begin(g, "negative size"); gen_arg_ints(g, 0, L(-2)); gen_arg_dtype(g, 1, g->dt); err(g);
}

static void gen_randperm(gen_ctx *g) {
  static const int64_t n[] = {10, 1, 0, 100};
  for (int i = 0; i < 4; i++) {
    gen_begin(g, "n=%lld", (long long)n[i]);
    gen_arg_int(g, 0, n[i]);
    gen_arg_dtype(g, 1, g->dt);
    gen_flags(g, CONFORM_RANDOM);
    gen_commit(g);
  }
  gen_begin(g, "n=-1"); gen_arg_int(g, 0, -1); gen_arg_dtype(g, 1, g->dt); err(g);
}

/* prims::normal(shape, *, mean, std, dtype, device, requires_grad) and
 * prims::uniform(shape, *, low, high, dtype, device) */
static void gen_prim_random(gen_ctx *g) {
  int normal = g->e->a;
  static const struct { const char *name; int32_t n; int64_t d[3]; double a, b; } c[] = {
      {"[2, 3]", 2, {2, 3}, 0, 1}, {"[200] shifted", 1, {200}, 2, 0.5}, {"0-d", 0, {0}, -1, 3},
      {"[0, 2]", 2, {0, 2}, 0, 1}};
  for (int i = 0; i < 4; i++) {
    gen_begin(g, "%s", c[i].name);
    gen_arg_ints(g, 0, c[i].n, c[i].d);
    gen_arg_float(g, 1, c[i].a);
    gen_arg_float(g, 2, normal ? c[i].b : c[i].a + 1 + c[i].b);
    gen_arg_dtype(g, 3, g->dt);
    gen_arg_cpu(g, 4);
    if (normal) gen_arg_bool(g, 5, 0);
    gen_flags(g, CONFORM_RANDOM);
    gen_commit(g);
  }
}

/* native_dropout(input, p, train?) */
static void gen_dropout(gen_ctx *g) {
  gen_begin(g, "p=0.5 train");
  gen_arg_t(g, 0, gen_tensor(g, g->dt, 2, GEN_S(4, 5), 0, GEN_DOM_ANY));
  gen_arg_float(g, 1, 0.5); gen_arg_bool(g, 2, 1);
  gen_flags(g, CONFORM_RANDOM); gen_commit(g);
  gen_begin(g, "p=0.2 train, transposed");
  gen_arg_t(g, 0, gen_tensor(g, g->dt, 2, GEN_S(6, 5), GEN_L_T, GEN_DOM_ANY));
  gen_arg_float(g, 1, 0.2); gen_arg_bool(g, 2, 1);
  gen_flags(g, CONFORM_RANDOM); gen_commit(g);
  gen_begin(g, "train=False (identity)");
  gen_arg_t(g, 0, gen_tensor(g, g->dt, 2, GEN_S(3, 4), GEN_L_OFFSET, GEN_DOM_ANY));
  gen_arg_float(g, 1, 0.5); gen_arg_bool(g, 2, 0);
  gen_commit(g);
  gen_begin(g, "p=0 train (identity)");
  gen_arg_t(g, 0, gen_tensor(g, g->dt, 1, GEN_S(7), 0, GEN_DOM_ANY));
  gen_arg_float(g, 1, 0.0); gen_arg_bool(g, 2, 1);
  gen_commit(g);
  gen_begin(g, "p=1 train (all dropped)");
  gen_arg_t(g, 0, gen_tensor(g, g->dt, 1, GEN_S(7), 0, GEN_DOM_ANY));
  gen_arg_float(g, 1, 1.0); gen_arg_bool(g, 2, 1);
  gen_commit(g);
  gen_begin(g, "empty");
  gen_arg_t(g, 0, gen_tensor(g, g->dt, 2, GEN_S(0, 3), 0, GEN_DOM_ANY));
  gen_arg_float(g, 1, 0.5); gen_arg_bool(g, 2, 1);
  gen_flags(g, CONFORM_RANDOM); gen_commit(g);
  gen_begin(g, "empty, train=False (mask of the input's dtype)");
  gen_arg_t(g, 0, gen_tensor(g, g->dt, 2, GEN_S(0, 3), 0, GEN_DOM_ANY));
  gen_arg_float(g, 1, 0.5); gen_arg_bool(g, 2, 0);
  gen_commit(g);
}

static void gen_item(gen_ctx *g) {
  gen_begin(g, "0-d");
  gen_arg_t(g, 0, gen_tensor(g, g->dt, 0, NULL, 0, GEN_DOM_ANY)); gen_commit(g);
  gen_begin(g, "[1] offset");
  gen_arg_t(g, 0, gen_tensor(g, g->dt, 1, GEN_S(1), GEN_L_OFFSET, GEN_DOM_ANY)); gen_commit(g);
  gen_begin(g, "[1, 1] expanded");
  gen_arg_t(g, 0, gen_tensor(g, g->dt, 2, GEN_S(1, 1), GEN_L_EXPAND, GEN_DOM_ANY)); gen_commit(g);
  for (int k = 0; k < 3; k++) {
    gen_begin(g, "special value %d", k);
    tabi_tensor *t = gen_tensor(g, g->dt, 0, NULL, 0, GEN_DOM_ANY);
    gen_specials(g, t, 0);
    if (t && k > 0) { /* a different special each time */
      tabi_tensor *t2 = gen_tensor(g, g->dt, 1, GEN_S(16), 0, GEN_DOM_ANY);
      gen_specials(g, t2, 0);
      tabi_tensor *v = NULL;
      if (t2 && tabi_tensor_view(g->rt, t2, 0, NULL, NULL,
                                 t2->dl.byte_offset + k * tabi_dtype_size(g->dt), &v) == TABI_OK) {
        tabi_tensor_release(t);
        t = v;
      }
      tabi_tensor_release(t2);
    }
    gen_arg_t(g, 0, t);
    gen_commit(g);
  }
  gen_begin(g, "[2] (not one element)");
  gen_arg_t(g, 0, gen_tensor(g, g->dt, 1, GEN_S(2), 0, GEN_DOM_ANY)); err(g);
}

static void gen_maximum_value(gen_ctx *g) {
  gen_begin(g, "%s", tabi_dtype_name(g->dt));
  gen_arg_dtype(g, 0, g->dt);
  gen_commit(g);
}

const gen_entry gen_create_table[] = {
    {"aten::arange.start_step", gen_arange, 0, 0, 0},
    {"aten::empty.memory_format", gen_empty, 0, 0, 0},
    {"prims::empty", gen_empty, 0, 0, GEN_F_PRIM},
    {"aten::empty_strided", gen_empty_strided, 0, 0, 0},
    {"prims::empty_strided", gen_empty_strided, 0, 0, GEN_F_PRIM},
    {"aten::full", gen_full, 0, 0, 0},
    {"prims::full", gen_full, 0, 0, GEN_F_PRIM},
    {"aten::full_like", gen_full_like, 0, 0, 0},
    {"prims::full_like", gen_full_like, 0, 0, GEN_F_PRIM},
    {"aten::scalar_tensor", gen_scalar_tensor, 0, 0, 0},
    {"prims::scalar_tensor", gen_scalar_tensor, 0, 0, GEN_F_PRIM},
    {"aten::rand", gen_rand, 0, 0, 0},
    {"aten::randn", gen_rand, 0, 0, 0},
    {"aten::randperm", gen_randperm, 0, 0, 0},
    {"prims::normal", gen_prim_random, 1, 0, GEN_F_PRIM},
    {"prims::uniform", gen_prim_random, 0, 0, GEN_F_PRIM},
    {"aten::native_dropout", gen_dropout, 0, 0, 0},
    {"aten::_local_scalar_dense", gen_item, 0, 0, 0},
    {"prims::item", gen_item, 0, 0, GEN_F_PRIM},
    {"prims::maximum_value", gen_maximum_value, 0, 0, GEN_F_PRIM},
    {NULL, NULL, 0, 0, 0},
};
