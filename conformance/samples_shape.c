/* conformance/samples_shape.c: views, reshapes, copies and concatenation.
 *
 * These ops take arguments of their own (sizes, dims, offsets), so each has a
 * small generator; the layouts come from the shared builders. Rows ignore a/b.
 * Samples that make ATen refuse (a size that does not fit, a dim out of range,
 * repeated dims, a view of an incompatible layout) are flagged expected errors.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gen.h"

typedef struct sshape { int32_t n; int64_t d[6]; } sshape;
#define SS(...) ((sshape){(int32_t)(sizeof GEN_S(__VA_ARGS__) / sizeof(int64_t)), {__VA_ARGS__}})
#define L(...) (int32_t)(sizeof GEN_S(__VA_ARGS__) / sizeof(int64_t)), GEN_S(__VA_ARGS__)
#define L0 0, GEN_S(0)
static const sshape S0 = {0, {0}};

static tabi_tensor *T(gen_ctx *g, sshape s, uint32_t layout) {
  return gen_tensor(g, g->dt, s.n, s.d, layout, GEN_DOM_ANY);
}

/* Starts a sample whose argument 0 is a tensor of the dtype under test. */
static void self_begin(gen_ctx *g, const char *name, sshape s, uint32_t layout) {
  gen_begin(g, "%s", name);
  gen_arg_t(g, 0, T(g, s, layout));
}

static void err(gen_ctx *g) { gen_flags(g, CONFORM_EXPECT_ERROR); gen_commit(g); }

/* --- ops whose only argument is the tensor --------------------------------- */

static void gen_layouts(gen_ctx *g) {
  self_begin(g, "[2, 3]", SS(2, 3), 0); gen_commit(g);
  self_begin(g, "transposed [3, 4]", SS(3, 4), GEN_L_T); gen_commit(g);
  self_begin(g, "0-d", S0, 0); gen_commit(g);
  self_begin(g, "empty [0, 2]", SS(0, 2), 0); gen_commit(g);
  self_begin(g, "stepped + offset [2, 5]", SS(2, 5), GEN_L_STEP | GEN_L_OFFSET); gen_commit(g);
  self_begin(g, "expanded [3, 4]", SS(3, 4), GEN_L_EXPAND); gen_commit(g);
  if (!(g->e->flags & GEN_F_NO_SPECIAL)) {
    gen_begin(g, "special values [16]");
    tabi_tensor *t = T(g, SS(16), 0);
    gen_specials(g, t, 0);
    gen_arg_t(g, 0, t);
    gen_commit(g);
  }
}

static void gen_device_put(gen_ctx *g) {
  self_begin(g, "[2, 3] to cpu", SS(2, 3), 0); gen_arg_cpu(g, 1); gen_commit(g);
  self_begin(g, "transposed to cpu", SS(3, 4), GEN_L_T); gen_arg_cpu(g, 1); gen_commit(g);
  self_begin(g, "0-d to cpu", S0, 0); gen_arg_cpu(g, 1); gen_commit(g);
}

/* --- as_strided ------------------------------------------------------------ */

static void gen_as_strided(gen_ctx *g) {
  int prim = (g->e->flags & GEN_F_PRIM) != 0;
  self_begin(g, "[12] as [3, 2] strides [1, 3]", SS(12), 0);
  gen_arg_ints(g, 1, L(3, 2)); gen_arg_ints(g, 2, L(1, 3));
  if (prim) gen_arg_int(g, 3, 0); else gen_arg_none(g, 3);
  gen_commit(g);
  self_begin(g, "[12] as [2, 2] strides [3, 1] offset 2", SS(12), 0);
  gen_arg_ints(g, 1, L(2, 2)); gen_arg_ints(g, 2, L(3, 1)); gen_arg_int(g, 3, 2);
  gen_commit(g);
  self_begin(g, "[12] as [4] stride 0 offset 1", SS(12), 0);
  gen_arg_ints(g, 1, L(4)); gen_arg_ints(g, 2, L(0)); gen_arg_int(g, 3, 1);
  gen_commit(g);
  self_begin(g, "offset view as [3, 3]", SS(12), GEN_L_OFFSET);
  gen_arg_ints(g, 1, L(3, 3)); gen_arg_ints(g, 2, L(3, 1));
  if (prim) gen_arg_int(g, 3, 3); else gen_arg_none(g, 3);
  gen_commit(g);
  self_begin(g, "as [0, 2]", SS(6), 0);
  gen_arg_ints(g, 1, L(0, 2)); gen_arg_ints(g, 2, L(2, 1)); gen_arg_int(g, 3, 0);
  gen_commit(g);
  self_begin(g, "as 0-d offset 5", SS(6), 0);
  gen_arg_ints(g, 1, L0); gen_arg_ints(g, 2, L0); gen_arg_int(g, 3, 5);
  gen_commit(g);
  self_begin(g, "outside the storage", SS(12), 0);
  gen_arg_ints(g, 1, L(5, 5)); gen_arg_ints(g, 2, L(5, 1)); gen_arg_int(g, 3, 0);
  err(g);
}

/* --- diagonal, expand, permute, select, slice --------------------------------- */

static void diag(gen_ctx *g, const char *name, sshape s, uint32_t l, int64_t off, int64_t d1, int64_t d2) {
  self_begin(g, name, s, l);
  gen_arg_int(g, 1, off); gen_arg_int(g, 2, d1); gen_arg_int(g, 3, d2);
}

static void gen_diagonal(gen_ctx *g) {
  diag(g, "[3, 4]", SS(3, 4), 0, 0, 0, 1); gen_commit(g);
  diag(g, "offset 1", SS(3, 4), 0, 1, 0, 1); gen_commit(g);
  diag(g, "offset -1, transposed", SS(4, 3), GEN_L_T, -1, 0, 1); gen_commit(g);
  diag(g, "dims (1, 0)", SS(3, 4), GEN_L_OFFSET, 0, 1, 0); gen_commit(g);
  diag(g, "[2, 3, 4] dims (0, 2) offset 1", SS(2, 3, 4), 0, 1, 0, 2); gen_commit(g);
  diag(g, "dims (-1, -2)", SS(2, 3, 4), GEN_L_STEP, 0, -1, -2); gen_commit(g);
  diag(g, "offset 5 (empty)", SS(3, 4), 0, 5, 0, 1); gen_commit(g);
  diag(g, "same dims", SS(3, 4), 0, 0, 1, 1); err(g);
  diag(g, "dim out of range", SS(3, 4), 0, 0, 0, 2); err(g);
}

static void gen_expand(gen_ctx *g) {
  self_begin(g, "[3, 1] to [3, 4]", SS(3, 1), 0); gen_arg_ints(g, 1, L(3, 4)); gen_commit(g);
  self_begin(g, "[3] to [2, 3]", SS(3), GEN_L_OFFSET); gen_arg_ints(g, 1, L(2, 3)); gen_commit(g);
  self_begin(g, "[2, 1] to [-1, 5]", SS(2, 1), 0); gen_arg_ints(g, 1, L(-1, 5)); gen_commit(g);
  self_begin(g, "0-d to [2, 2]", S0, 0); gen_arg_ints(g, 1, L(2, 2)); gen_commit(g);
  self_begin(g, "[1, 0] to [3, 0]", SS(1, 0), 0); gen_arg_ints(g, 1, L(3, 0)); gen_commit(g);
  self_begin(g, "transposed [1, 3] to [2, 4, 3]", SS(1, 3), GEN_L_T); gen_arg_ints(g, 1, L(2, 4, 3)); gen_commit(g);
  self_begin(g, "[3] to [4]", SS(3), 0); gen_arg_ints(g, 1, L(4)); err(g);
  self_begin(g, "[2, 3] to [3]", SS(2, 3), 0); gen_arg_ints(g, 1, L(3)); err(g);
}

static void gen_permute(gen_ctx *g) {
  self_begin(g, "[2, 3, 4] dims [2, 0, 1]", SS(2, 3, 4), 0); gen_arg_ints(g, 1, L(2, 0, 1)); gen_commit(g);
  self_begin(g, "negative dims [-1, 0, 1]", SS(2, 3, 4), GEN_L_OFFSET); gen_arg_ints(g, 1, L(-1, 0, 1)); gen_commit(g);
  self_begin(g, "transposed [3, 4] dims [1, 0]", SS(3, 4), GEN_L_T); gen_arg_ints(g, 1, L(1, 0)); gen_commit(g);
  self_begin(g, "0-d dims []", S0, 0); gen_arg_ints(g, 1, L0); gen_commit(g);
  self_begin(g, "empty [0, 2] dims [1, 0]", SS(0, 2), 0); gen_arg_ints(g, 1, L(1, 0)); gen_commit(g);
  self_begin(g, "repeated dims", SS(2, 3, 4), 0); gen_arg_ints(g, 1, L(0, 0, 1)); err(g);
  self_begin(g, "too few dims", SS(2, 3, 4), 0); gen_arg_ints(g, 1, L(1, 0)); err(g);
}

static void gen_select(gen_ctx *g) {
  self_begin(g, "[3, 4] dim 0 index 1", SS(3, 4), 0); gen_arg_int(g, 1, 0); gen_arg_int(g, 2, 1); gen_commit(g);
  self_begin(g, "dim -1 index -1", SS(3, 4), GEN_L_T); gen_arg_int(g, 1, -1); gen_arg_int(g, 2, -1); gen_commit(g);
  self_begin(g, "[2, 3, 4] dim 1 index 2", SS(2, 3, 4), GEN_L_OFFSET); gen_arg_int(g, 1, 1); gen_arg_int(g, 2, 2); gen_commit(g);
  self_begin(g, "[5] dim 0 index 4", SS(5), GEN_L_STEP); gen_arg_int(g, 1, 0); gen_arg_int(g, 2, 4); gen_commit(g);
  self_begin(g, "index out of range", SS(3, 4), 0); gen_arg_int(g, 1, 0); gen_arg_int(g, 2, 3); err(g);
  self_begin(g, "index -5 out of range", SS(3, 4), 0); gen_arg_int(g, 1, 1); gen_arg_int(g, 2, -5); err(g);
  self_begin(g, "dim out of range", SS(3, 4), 0); gen_arg_int(g, 1, 2); gen_arg_int(g, 2, 0); err(g);
}

/* slice(self, dim, start?, end?, step); INT64_MIN stands for None */
static void slice_args(gen_ctx *g, int32_t first, int64_t dim, int64_t start, int64_t end, int64_t step) {
  gen_arg_int(g, first, dim);
  if (start == INT64_MIN) gen_arg_none(g, first + 1); else gen_arg_int(g, first + 1, start);
  if (end == INT64_MIN) gen_arg_none(g, first + 2); else gen_arg_int(g, first + 2, end);
  gen_arg_int(g, first + 3, step);
}

static void gen_slice(gen_ctx *g) {
  const int64_t N = INT64_MIN;
  self_begin(g, "defaults", SS(5, 4), 0); gen_commit(g);
  self_begin(g, "dim 0 [1:4]", SS(5, 4), 0); slice_args(g, 1, 0, 1, 4, 1); gen_commit(g);
  self_begin(g, "dim 1 [-3:]", SS(5, 4), GEN_L_T); slice_args(g, 1, 1, -3, N, 1); gen_commit(g);
  self_begin(g, "step 2", SS(7, 3), GEN_L_OFFSET); slice_args(g, 1, 0, 0, 7, 2); gen_commit(g);
  self_begin(g, "step 3, dim -1", SS(2, 8), GEN_L_STEP); slice_args(g, 1, -1, 1, N, 3); gen_commit(g);
  self_begin(g, "end past the size", SS(5), 0); slice_args(g, 1, 0, 2, 100, 1); gen_commit(g);
  self_begin(g, "start past the end (empty)", SS(5, 2), 0); slice_args(g, 1, 0, 4, 1, 1); gen_commit(g);
  self_begin(g, "start -100 (clamped)", SS(5), 0); slice_args(g, 1, 0, -100, 3, 1); gen_commit(g);
  self_begin(g, "step 0", SS(5), 0); slice_args(g, 1, 0, 0, 5, 0); err(g);
  self_begin(g, "dim out of range", SS(5), 0); slice_args(g, 1, 1, 0, 5, 1); err(g);
}

static void gen_split_with_sizes(gen_ctx *g) {
  self_begin(g, "[5, 3] sizes [2, 3]", SS(5, 3), 0); gen_arg_ints(g, 1, L(2, 3)); gen_commit(g);
  self_begin(g, "[4, 6] sizes [1, 0, 5] dim 1", SS(4, 6), GEN_L_T); gen_arg_ints(g, 1, L(1, 0, 5)); gen_arg_int(g, 2, 1); gen_commit(g);
  self_begin(g, "dim -1 offset", SS(2, 4), GEN_L_OFFSET); gen_arg_ints(g, 1, L(2, 2)); gen_arg_int(g, 2, -1); gen_commit(g);
  self_begin(g, "one piece", SS(3), 0); gen_arg_ints(g, 1, L(3)); gen_commit(g);
  self_begin(g, "sizes do not sum", SS(5, 3), 0); gen_arg_ints(g, 1, L(2, 2)); err(g);
}

static void gen_squeeze_dim(gen_ctx *g) {
  self_begin(g, "[3, 1, 4] dim 1", SS(3, 1, 4), 0); gen_arg_int(g, 1, 1); gen_commit(g);
  self_begin(g, "dim 0 (not size 1)", SS(3, 1, 4), GEN_L_T); gen_arg_int(g, 1, 0); gen_commit(g);
  self_begin(g, "dim -2", SS(2, 1, 3), GEN_L_OFFSET); gen_arg_int(g, 1, -2); gen_commit(g);
  self_begin(g, "0-d dim 0", S0, 0); gen_arg_int(g, 1, 0); gen_commit(g);
  self_begin(g, "dim out of range", SS(3, 1), 0); gen_arg_int(g, 1, 2); err(g);
}

static void gen_squeeze_dims(gen_ctx *g) {
  int prim = (g->e->flags & GEN_F_PRIM) != 0;
  self_begin(g, "[1, 3, 1, 4] dims [0, 2]", SS(1, 3, 1, 4), 0); gen_arg_ints(g, 1, L(0, 2)); gen_commit(g);
  self_begin(g, "[2, 1] dims [1], offset", SS(2, 1), GEN_L_OFFSET); gen_arg_ints(g, 1, L(1)); gen_commit(g);
  self_begin(g, "dims []", SS(2, 3), GEN_L_T); gen_arg_ints(g, 1, L0); gen_commit(g);
  self_begin(g, "[1, 1] dims [-1, 0]", SS(1, 1), 0); gen_arg_ints(g, 1, L(-1, 0)); gen_commit(g);
  if (!prim) {
    self_begin(g, "dims [0] (not size 1)", SS(3, 1), 0); gen_arg_ints(g, 1, L(0)); gen_commit(g);
  } else {
    self_begin(g, "dims [0] (not size 1)", SS(3, 1), 0); gen_arg_ints(g, 1, L(0)); err(g);
  }
  self_begin(g, "dim out of range", SS(3, 1), 0); gen_arg_ints(g, 1, L(2)); err(g);
}

static void gen_unsqueeze(gen_ctx *g) {
  self_begin(g, "[2, 3] dim 0", SS(2, 3), 0); gen_arg_int(g, 1, 0); gen_commit(g);
  self_begin(g, "dim -1", SS(2, 3), GEN_L_T); gen_arg_int(g, 1, -1); gen_commit(g);
  self_begin(g, "dim 2", SS(2, 3), GEN_L_STEP); gen_arg_int(g, 1, 2); gen_commit(g);
  self_begin(g, "0-d dim 0", S0, 0); gen_arg_int(g, 1, 0); gen_commit(g);
  self_begin(g, "dim out of range", SS(2, 3), 0); gen_arg_int(g, 1, 3); err(g);
}

static void gen_view(gen_ctx *g) {
  int prim = (g->e->flags & GEN_F_PRIM) != 0; /* prims::reshape: copies when it must */
  self_begin(g, "[2, 6] as [3, 4]", SS(2, 6), 0); gen_arg_ints(g, 1, L(3, 4)); gen_commit(g);
  self_begin(g, "[4, 3] as [12], offset", SS(4, 3), GEN_L_OFFSET); gen_arg_ints(g, 1, L(12)); gen_commit(g);
  self_begin(g, "0-d as [1]", S0, 0); gen_arg_ints(g, 1, L(1)); gen_commit(g);
  self_begin(g, "[1] as 0-d", SS(1), 0); gen_arg_ints(g, 1, L0); gen_commit(g);
  self_begin(g, "[0, 3] as [3, 0]", SS(0, 3), 0); gen_arg_ints(g, 1, L(3, 0)); gen_commit(g);
  self_begin(g, "stepped [2, 6] as [2, 2, 3]", SS(2, 6), GEN_L_STEP); gen_arg_ints(g, 1, L(2, 2, 3)); gen_commit(g);
  if (!prim) {
    self_begin(g, "[2, 6] as [-1]", SS(2, 6), 0); gen_arg_ints(g, 1, L(-1)); gen_commit(g);
    self_begin(g, "[2, 6] as [4, -1]", SS(2, 6), 0); gen_arg_ints(g, 1, L(4, -1)); gen_commit(g);
    self_begin(g, "transposed [3, 4] as [12]", SS(3, 4), GEN_L_T); gen_arg_ints(g, 1, L(12)); err(g);
    self_begin(g, "two -1", SS(2, 6), 0); gen_arg_ints(g, 1, L(-1, -1)); err(g);
  } else {
    self_begin(g, "transposed [3, 4] as [12]", SS(3, 4), GEN_L_T); gen_arg_ints(g, 1, L(12)); gen_commit(g);
    self_begin(g, "expanded [3, 4] as [2, 6]", SS(3, 4), GEN_L_EXPAND); gen_arg_ints(g, 1, L(2, 6)); gen_commit(g);
  }
  self_begin(g, "[6] as [5]", SS(6), 0); gen_arg_ints(g, 1, L(5)); err(g);
}

static void gen_flip(gen_ctx *g) {
  self_begin(g, "[3, 4] dims [0]", SS(3, 4), 0); gen_arg_ints(g, 1, L(0)); gen_commit(g);
  self_begin(g, "dims [0, 1], transposed", SS(3, 4), GEN_L_T); gen_arg_ints(g, 1, L(0, 1)); gen_commit(g);
  self_begin(g, "dims [-1], expanded", SS(3, 4), GEN_L_EXPAND); gen_arg_ints(g, 1, L(-1)); gen_commit(g);
  self_begin(g, "[2, 3, 4] dims [0, 2], offset", SS(2, 3, 4), GEN_L_OFFSET); gen_arg_ints(g, 1, L(0, 2)); gen_commit(g);
  self_begin(g, "dims []", SS(5), 0); gen_arg_ints(g, 1, L0); gen_commit(g);
  self_begin(g, "0-d dims []", S0, 0); gen_arg_ints(g, 1, L0); gen_commit(g);
  self_begin(g, "empty [0, 3] dims [1]", SS(0, 3), 0); gen_arg_ints(g, 1, L(1)); gen_commit(g);
  self_begin(g, "repeated dims", SS(3, 4), 0); gen_arg_ints(g, 1, L(0, 0)); err(g);
  /* a 0-d tensor's -1 and 0 are both its dim 0: repeated */
  self_begin(g, "0-d dims [-1, 0]", S0, 0); gen_arg_ints(g, 1, L(-1, 0)); err(g);
  self_begin(g, "dim out of range", SS(3, 4), 0); gen_arg_ints(g, 1, L(2)); err(g);
}

static void gen_repeat(gen_ctx *g) {
  self_begin(g, "[2, 3] x [2, 2]", SS(2, 3), 0); gen_arg_ints(g, 1, L(2, 2)); gen_commit(g);
  self_begin(g, "[3] x [2, 1, 2]", SS(3), GEN_L_OFFSET); gen_arg_ints(g, 1, L(2, 1, 2)); gen_commit(g);
  self_begin(g, "[2, 3] x [1, 0]", SS(2, 3), 0); gen_arg_ints(g, 1, L(1, 0)); gen_commit(g);
  /* empty: the product of the repeats overflows, the result's sizes do not */
  self_begin(g, "[1, 2] x [2^63 - 1, 0, 0]", SS(1, 2), 0); gen_arg_ints(g, 1, L(INT64_MAX, 0, 0)); gen_commit(g);
  self_begin(g, "0-d x [3]", S0, 0); gen_arg_ints(g, 1, L(3)); gen_commit(g);
  self_begin(g, "transposed x [2, 1]", SS(3, 4), GEN_L_T); gen_arg_ints(g, 1, L(2, 1)); gen_commit(g);
  self_begin(g, "fewer repeats than dims", SS(2, 3), 0); gen_arg_ints(g, 1, L(2)); err(g);
  self_begin(g, "negative repeat", SS(2, 3), 0); gen_arg_ints(g, 1, L(2, -1)); err(g);
}

/* --- cat --------------------------------------------------------------------- */

static void cat_one(gen_ctx *g, const char *name, int32_t n, const sshape *s, const uint32_t *l,
                    const tabi_dtype *dts, int64_t dim) {
  tabi_tensor *ts[CONFORM_MAX_LIST];
  gen_begin(g, "%s", name);
  for (int32_t i = 0; i < n; i++)
    ts[i] = gen_tensor(g, dts ? dts[i] : g->dt, s[i].n, s[i].d, l ? l[i] : 0, GEN_DOM_ANY);
  gen_arg_tl(g, 0, n, ts);
  gen_arg_int(g, 1, dim);
}

static void gen_cat(gen_ctx *g) {
  int prim = (g->e->flags & GEN_F_PRIM) != 0;
  sshape a[] = {SS(2, 3), SS(1, 3)};
  cat_one(g, "[2, 3] + [1, 3] dim 0", 2, a, NULL, NULL, 0); gen_commit(g);
  sshape b[] = {SS(2, 1), SS(2, 3), SS(2, 0)};
  uint32_t bl[] = {0, GEN_L_T, 0};
  cat_one(g, "three, one empty, transposed, dim 1", 3, b, bl, NULL, 1); gen_commit(g);
  sshape c[] = {SS(2, 2, 2), SS(2, 2, 3)};
  uint32_t cl[] = {GEN_L_OFFSET, GEN_L_STEP};
  cat_one(g, "dim -1, offset and stepped", 2, c, cl, NULL, prim ? 2 : -1); gen_commit(g);
  sshape d[] = {SS(4)};
  cat_one(g, "single tensor", 1, d, NULL, NULL, 0); gen_commit(g);
  sshape e2[] = {SS(3, 2), SS(3, 2)};
  uint32_t el[] = {GEN_L_EXPAND, 0};
  cat_one(g, "expanded member", 2, e2, el, NULL, 0); gen_commit(g);
  if (!prim) {
    sshape f[] = {SS(0), SS(2, 3), SS(1, 3)};
    cat_one(g, "legacy empty [0] skipped", 3, f, NULL, NULL, 0); gen_commit(g);
    tabi_dtype md[] = {g->dt, TABI_DTYPE_FLOAT64};
    cat_one(g, "mixed dtypes (promotes)", 2, a, NULL, md, 0); gen_commit(g);
    sshape z[] = {S0, S0};
    cat_one(g, "0-d members", 2, z, NULL, NULL, 0); err(g);
  }
  sshape h[] = {SS(2, 3), SS(2, 4)};
  cat_one(g, "shapes differ off the dim", 2, h, NULL, NULL, 0); err(g);
  cat_one(g, "dim out of range", 2, a, NULL, NULL, 2); err(g);
}

/* --- padding, copies, fills ---------------------------------------------------- */

static void gen_constant_pad_nd(gen_ctx *g) {
  double v = gen_is_float_like(g->dt) ? 2.5 : 2;
  self_begin(g, "[2, 3] pad [1, 2]", SS(2, 3), 0); gen_arg_ints(g, 1, L(1, 2)); gen_commit(g);
  self_begin(g, "pad [1, 1, 2, 0] value", SS(2, 3), GEN_L_T);
  gen_arg_ints(g, 1, L(1, 1, 2, 0)); gen_arg_scalar_for(g, 2, g->dt == TABI_DTYPE_BOOL ? TABI_DTYPE_BOOL : g->dt, v);
  if (tabi_dtype_is_complex(g->dt)) gen_arg_float(g, 2, v);
  gen_commit(g);
  self_begin(g, "negative pad [-1, 1]", SS(2, 3), GEN_L_OFFSET); gen_arg_ints(g, 1, L(-1, 1)); gen_commit(g);
  self_begin(g, "[2, 3, 4] pad all dims", SS(2, 3, 4), 0); gen_arg_ints(g, 1, L(0, 1, 1, 0, 2, 1)); gen_commit(g);
  self_begin(g, "empty [0, 3] pad [1, 1]", SS(0, 3), 0); gen_arg_ints(g, 1, L(1, 1)); gen_commit(g);
  self_begin(g, "expanded pad [0, 0]", SS(3, 2), GEN_L_EXPAND); gen_arg_ints(g, 1, L(0, 0)); gen_commit(g);
  self_begin(g, "pad longer than 2 x dims", SS(3), 0); gen_arg_ints(g, 1, L(1, 1, 1, 1)); err(g);
  self_begin(g, "odd pad length", SS(2, 3), 0); gen_arg_ints(g, 1, L(1)); err(g);
}

static void copy_one(gen_ctx *g, const char *name, sshape sd, uint32_t ld, sshape ss, uint32_t ls,
                     tabi_dtype src_dt, int special) {
  gen_begin(g, "%s", name);
  gen_arg_t(g, 0, T(g, sd, ld));
  tabi_tensor *src = gen_tensor(g, src_dt, ss.n, ss.d, ls, GEN_DOM_ANY);
  if (special) gen_specials(g, src, 0);
  gen_arg_t(g, 1, src);
}

static void gen_copy(gen_ctx *g) {
  int prim = (g->e->flags & GEN_F_PRIM) != 0;
  tabi_dtype other = gen_is_float_like(g->dt) ? TABI_DTYPE_INT64 : TABI_DTYPE_FLOAT64;
  copy_one(g, "[2, 3] from [2, 3]", SS(2, 3), 0, SS(2, 3), 0, g->dt, 0); gen_commit(g);
  copy_one(g, "into transposed from stepped", SS(3, 4), GEN_L_T, SS(3, 4), GEN_L_STEP, g->dt, 0); gen_commit(g);
  copy_one(g, "from another dtype", SS(2, 3), GEN_L_OFFSET, SS(2, 3), 0, other, 0); gen_commit(g);
  copy_one(g, "from expanded", SS(3, 4), 0, SS(3, 4), GEN_L_EXPAND, g->dt, 0); gen_commit(g);
  copy_one(g, "0-d", S0, 0, S0, 0, g->dt, 0); gen_commit(g);
  copy_one(g, "empty", SS(0, 3), 0, SS(0, 3), 0, g->dt, 0); gen_commit(g);
  copy_one(g, "special values", SS(16), 0, SS(16), 0, g->dt, 1); gen_commit(g);
  if (!prim) {
    copy_one(g, "broadcast from [3]", SS(2, 3), 0, SS(3), 0, g->dt, 0); gen_commit(g);
    copy_one(g, "from [4] (does not broadcast)", SS(2, 3), 0, SS(4), 0, g->dt, 0); err(g);
  } else {
    copy_one(g, "shapes differ", SS(2, 3), 0, SS(3, 2), 0, g->dt, 0); err(g);
  }
}

/* _to_copy(self, *, dtype) and prims::convert_element_type(a, dtype) */
static void gen_convert(gen_ctx *g) {
  int prim = (g->e->flags & GEN_F_PRIM) != 0;
  static const tabi_dtype targets[] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_INT64, TABI_DTYPE_BOOL,
                                       TABI_DTYPE_FLOAT16, TABI_DTYPE_COMPLEX128, TABI_DTYPE_UINT8};
  static const uint32_t lays[] = {0, GEN_L_T, GEN_L_OFFSET, GEN_L_EXPAND, 0, GEN_L_STEP};
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
    gen_begin(g, "to %s", tabi_dtype_name(targets[i]));
    gen_arg_t(g, 0, T(g, SS(3, 4), lays[i]));
    gen_arg_dtype(g, 1, targets[i]);
    gen_commit(g);
  }
  gen_begin(g, "0-d to float64");
  gen_arg_t(g, 0, T(g, S0, 0));
  gen_arg_dtype(g, 1, TABI_DTYPE_FLOAT64);
  gen_commit(g);
  gen_begin(g, "empty to int32");
  gen_arg_t(g, 0, T(g, SS(0, 4), 0));
  gen_arg_dtype(g, 1, TABI_DTYPE_INT32);
  gen_commit(g);
  /* Special values only where the conversion is defined (NaN and inf have no
   * integer value: ATen leaves that to the platform). */
  static const tabi_dtype sp_targets[] = {TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16,
                                          TABI_DTYPE_BOOL, TABI_DTYPE_COMPLEX64};
  for (size_t i = 0; i < sizeof sp_targets / sizeof sp_targets[0]; i++) {
    gen_begin(g, "special values to %s", tabi_dtype_name(sp_targets[i]));
    tabi_tensor *t = T(g, SS(16), 0);
    gen_specials(g, t, 0);
    gen_arg_t(g, 0, t);
    gen_arg_dtype(g, 1, sp_targets[i]);
    gen_commit(g);
  }
  if (!prim) {
    gen_begin(g, "dtype None (a copy)");
    gen_arg_t(g, 0, T(g, SS(3, 4), GEN_L_T));
    gen_commit(g);
  }
}

static void fill_one(gen_ctx *g, const char *name, sshape s, uint32_t l, int kind, double v) {
  self_begin(g, name, s, l);
  switch (kind) {
    case 0: gen_arg_int(g, 1, (int64_t)v); break;
    case 1: gen_arg_float(g, 1, v); break;
    case 2: gen_arg_bool(g, 1, v != 0); break;
    default: gen_arg_complex(g, 1, v, -1.0); break;
  }
  gen_commit(g);
}

static void gen_fill(gen_ctx *g) {
  fill_one(g, "[2, 3] with 3", SS(2, 3), 0, 0, 3);
  fill_one(g, "transposed with True", SS(3, 4), GEN_L_T, 2, 1);
  fill_one(g, "0-d with 7", S0, 0, 0, 7);
  fill_one(g, "empty with 1", SS(0, 3), 0, 0, 1);
  fill_one(g, "offset with -2", SS(5), GEN_L_OFFSET, 0, -2);
  if (gen_is_float_like(g->dt)) {
    fill_one(g, "with 2.5", SS(2, 3), GEN_L_STEP, 1, 2.5);
    fill_one(g, "with NaN", SS(4), 0, 1, NAN);
    fill_one(g, "with -inf", SS(4), 0, 1, -INFINITY);
  }
  if (tabi_dtype_is_complex(g->dt)) fill_one(g, "with a complex", SS(3), 0, 3, 1.5);
}

static void gen_resize(gen_ctx *g) {
  self_begin(g, "[6] to [2, 3]", SS(6), 0); gen_arg_ints(g, 1, L(2, 3)); gen_commit(g);
  self_begin(g, "[3, 4] to [2, 2] (shrink)", SS(3, 4), 0); gen_arg_ints(g, 1, L(2, 2)); gen_commit(g);
  self_begin(g, "[2, 3] to [6]", SS(2, 3), 0); gen_arg_ints(g, 1, L(6)); gen_commit(g);
  self_begin(g, "[4] to [0]", SS(4), 0); gen_arg_ints(g, 1, L(0)); gen_commit(g);
  self_begin(g, "[4] to 0-d", SS(4), 0); gen_arg_ints(g, 1, L0); gen_commit(g);
  /* growing: the new elements' values are unspecified, as in ATen */
  self_begin(g, "[2] to [2, 3] (grow)", SS(2), 0); gen_arg_ints(g, 1, L(2, 3)); gen_flags(g, CONFORM_UNINIT);
  gen_commit(g);
  self_begin(g, "negative size", SS(4), 0); gen_arg_ints(g, 1, L(2, -1)); err(g);
}

static void gen_broadcast_in_dim(gen_ctx *g) {
  self_begin(g, "[3] to [2, 3] dims [1]", SS(3), 0); gen_arg_ints(g, 1, L(2, 3)); gen_arg_ints(g, 2, L(1)); gen_commit(g);
  self_begin(g, "[3, 1] to [3, 4] dims [0, 1]", SS(3, 1), GEN_L_OFFSET); gen_arg_ints(g, 1, L(3, 4)); gen_arg_ints(g, 2, L(0, 1)); gen_commit(g);
  self_begin(g, "[2] to [2, 3, 4] dims [0]", SS(2), 0); gen_arg_ints(g, 1, L(2, 3, 4)); gen_arg_ints(g, 2, L(0)); gen_commit(g);
  self_begin(g, "0-d to [2, 2] dims []", S0, 0); gen_arg_ints(g, 1, L(2, 2)); gen_arg_ints(g, 2, L0); gen_commit(g);
  self_begin(g, "transposed [3, 4] to [2, 3, 4]", SS(3, 4), GEN_L_T); gen_arg_ints(g, 1, L(2, 3, 4)); gen_arg_ints(g, 2, L(1, 2)); gen_commit(g);
  self_begin(g, "size mismatch", SS(3), 0); gen_arg_ints(g, 1, L(2, 4)); gen_arg_ints(g, 2, L(1)); err(g);
}

static void gen_collapse_view(gen_ctx *g) {
  self_begin(g, "[2, 3, 4] (0, 2)", SS(2, 3, 4), 0); gen_arg_int(g, 1, 0); gen_arg_int(g, 2, 2); gen_commit(g);
  self_begin(g, "[2, 3, 4] (1, 3), offset", SS(2, 3, 4), GEN_L_OFFSET); gen_arg_int(g, 1, 1); gen_arg_int(g, 2, 3); gen_commit(g);
  self_begin(g, "[2, 3, 4] (0, 3)", SS(2, 3, 4), 0); gen_arg_int(g, 1, 0); gen_arg_int(g, 2, 3); gen_commit(g);
  self_begin(g, "stepped [3, 4] (0, 1)", SS(3, 4), GEN_L_STEP); gen_arg_int(g, 1, 0); gen_arg_int(g, 2, 1); gen_commit(g);
}

static void gen_split_dim(gen_ctx *g) {
  self_begin(g, "[6, 2] dim 0 outer 2", SS(6, 2), 0); gen_arg_int(g, 1, 0); gen_arg_int(g, 2, 2); gen_commit(g);
  self_begin(g, "[2, 6] dim 1 outer 3", SS(2, 6), GEN_L_OFFSET); gen_arg_int(g, 1, 1); gen_arg_int(g, 2, 3); gen_commit(g);
  self_begin(g, "transposed [4, 6] dim 0 outer 1", SS(4, 6), GEN_L_T); gen_arg_int(g, 1, 0); gen_arg_int(g, 2, 1); gen_commit(g);
  self_begin(g, "outer does not divide", SS(6), 0); gen_arg_int(g, 1, 0); gen_arg_int(g, 2, 4); err(g);
}

static void gen_rev(gen_ctx *g) { gen_flip(g); }

#define F(op, fn) {op, fn, 0, 0, 0}
#define FP(op, fn) {op, fn, 0, 0, GEN_F_PRIM}
const gen_entry gen_shape_table[] = {
    F("aten::alias", gen_layouts), F("aten::clone", gen_layouts),
    F("aten::as_strided", gen_as_strided), FP("prims::as_strided", gen_as_strided),
    F("aten::diagonal", gen_diagonal), F("aten::expand", gen_expand),
    F("aten::permute", gen_permute), FP("prims::transpose", gen_permute),
    F("aten::select.int", gen_select), F("aten::slice.Tensor", gen_slice),
    F("aten::split_with_sizes", gen_split_with_sizes), F("aten::squeeze.dim", gen_squeeze_dim),
    F("aten::squeeze.dims", gen_squeeze_dims), FP("prims::squeeze", gen_squeeze_dims),
    F("aten::unsqueeze", gen_unsqueeze), F("aten::view", gen_view), FP("prims::reshape", gen_view),
    F("aten::flip", gen_flip), FP("prims::rev", gen_rev), F("aten::repeat", gen_repeat),
    F("aten::cat", gen_cat), FP("prims::cat", gen_cat),
    F("aten::constant_pad_nd", gen_constant_pad_nd),
    F("aten::copy", gen_copy), FP("prims::copy_to", gen_copy),
    F("aten::_to_copy", gen_convert), FP("prims::convert_element_type", gen_convert),
    F("aten::fill.Scalar", gen_fill), FP("prims::fill", gen_fill),
    F("aten::resize_", gen_resize), FP("prims::resize", gen_resize),
    FP("prims::broadcast_in_dim", gen_broadcast_in_dim),
    FP("prims::collapse_view", gen_collapse_view), FP("prims::split_dim", gen_split_dim),
    FP("prims::conj", gen_layouts), FP("prims::view_of", gen_layouts),
    FP("prims::device_put", gen_device_put),
    {NULL, NULL, 0, 0, 0},
};
