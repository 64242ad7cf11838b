/* conformance/samples_index.c: gather/scatter, advanced indexing, embedding,
 * masked_scatter, select/slice_scatter and nonzero.
 *
 * Index tensors hold valid indices (negative ones where ATen wraps them); where
 * duplicates would make the result depend on write order (scatter, index_put
 * without accumulate) indices are distinct along the written dim. One index out
 * of range per op is an expected error. The dtype under test is the data's.
 */
#include <stdio.h>
#include <string.h>

#include "gen.h"

typedef struct ishape { int32_t n; int64_t d[4]; } ishape;
#define IS(...) ((ishape){(int32_t)(sizeof GEN_S(__VA_ARGS__) / sizeof(int64_t)), {__VA_ARGS__}})
static const ishape IS0 = {0, {0}};
#define I64 TABI_DTYPE_INT64

static tabi_tensor *T(gen_ctx *g, ishape s, uint32_t layout) {
  return gen_tensor(g, g->dt, s.n, s.d, layout, GEN_DOM_ANY);
}
static tabi_tensor *IDX(gen_ctx *g, ishape s, int64_t lo, int64_t hi) {
  return gen_index(g, I64, s.n, s.d, lo, hi);
}
static void err(gen_ctx *g) { gen_flags(g, CONFORM_EXPECT_ERROR); gen_commit(g); }

/* A 2-d index [r, c] whose values along `dim` are distinct, in [0, n). */
static tabi_tensor *distinct_index(gen_ctx *g, int64_t r, int64_t c, int32_t dim, int64_t n) {
  int64_t shape[2] = {r, c};
  tabi_tensor *t = gen_index(g, I64, 2, shape, 0, 0);
  if (!t) return NULL;
  int64_t lines = dim == 1 ? r : c, len = dim == 1 ? c : r;
  for (int64_t l = 0; l < lines; l++) {
    int64_t perm[64];
    for (int64_t i = 0; i < n && i < 64; i++) perm[i] = i;
    for (int64_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
      int64_t j = gen_int(g, 0, i), tmp = perm[i];
      perm[i] = perm[j]; perm[j] = tmp;
    }
    for (int64_t k = 0; k < len; k++) {
      int64_t lin = dim == 1 ? l * c + k : k * c + l;
      gen_set(t, lin, (double)perm[k]);
    }
  }
  return t;
}

/* --- gather ------------------------------------------------------------------ */

static void gather_one(gen_ctx *g, const char *name, ishape s, uint32_t l, int64_t dim,
                       tabi_tensor *index) {
  gen_begin(g, "%s", name);
  gen_arg_t(g, 0, T(g, s, l));
  gen_arg_int(g, 1, dim);
  gen_arg_t(g, 2, index);
}

static void gen_gather(gen_ctx *g) {
  gather_one(g, "[3, 4] dim 1", IS(3, 4), 0, 1, IDX(g, IS(3, 2), 0, 3)); gen_commit(g);
  gather_one(g, "dim 0, transposed", IS(3, 4), GEN_L_T, 0, IDX(g, IS(2, 4), 0, 2)); gen_commit(g);
  gather_one(g, "dim -1, smaller index", IS(3, 5), GEN_L_OFFSET, -1, IDX(g, IS(2, 3), 0, 4)); gen_commit(g);
  gather_one(g, "expanded self", IS(3, 4), GEN_L_EXPAND, 1, IDX(g, IS(3, 6), 0, 3)); gen_commit(g);
  gather_one(g, "0-d", IS0, 0, 0, IDX(g, IS0, 0, 0)); gen_commit(g);
  gather_one(g, "0-d index of a [4] (one element)", IS(4), GEN_L_STEP, 0, IDX(g, IS0, 1, 3)); gen_commit(g);
  gather_one(g, "empty index", IS(3, 4), 0, 1, IDX(g, IS(3, 0), 0, 3)); gen_commit(g);
  gather_one(g, "index out of range", IS(3, 4), 0, 1, IDX(g, IS(3, 2), 4, 4)); err(g);
  gather_one(g, "negative index", IS(3, 4), 0, 1, IDX(g, IS(3, 2), -1, -1)); err(g);
}

/* --- scatter family ---------------------------------------------------------------
 * mode 0: scatter.src, 1: scatter.value, 2: scatter_add, 3: scatter_reduce.two */
static void scatter_one(gen_ctx *g, int mode, const char *name, ishape s, uint32_t l, int64_t dim,
                        tabi_tensor *index, ishape ssrc, const char *reduce, int include_self) {
  gen_begin(g, "%s%s%s", name, reduce ? ", reduce=" : "", reduce ? reduce : "");
  gen_arg_t(g, 0, T(g, s, l));
  gen_arg_int(g, 1, dim);
  gen_arg_t(g, 2, index);
  if (mode == 1) gen_arg_scalar_for(g, 3, g->dt, 2);
  else gen_arg_t(g, 3, T(g, ssrc, mode == 0 ? 0 : GEN_L_T));
  if (mode == 0) gen_flags(g, CONFORM_DISTINCT_INDEX);
  if (mode == 3) { gen_arg_str(g, 4, reduce); gen_arg_bool(g, 5, include_self); }
}

static void scatter_family(gen_ctx *g, int mode, const char *reduce, int include_self) {
  int dup_ok = mode >= 2; /* sums and reductions do not depend on order */
  scatter_one(g, mode, "[3, 5] dim 1", IS(3, 5), 0, 1,
              dup_ok ? IDX(g, IS(3, 4), 0, 4) : distinct_index(g, 3, 4, 1, 5), IS(3, 4), reduce, include_self);
  gen_commit(g);
  scatter_one(g, mode, "dim 0, transposed self", IS(4, 3), GEN_L_T, 0,
              dup_ok ? IDX(g, IS(3, 3), 0, 3) : distinct_index(g, 3, 3, 0, 4), IS(3, 3), reduce, include_self);
  gen_commit(g);
  scatter_one(g, mode, "src larger than index, dim -1", IS(2, 4), GEN_L_OFFSET, -1,
              dup_ok ? IDX(g, IS(2, 2), 0, 3) : distinct_index(g, 2, 2, 1, 4), IS(3, 5), reduce, include_self);
  gen_commit(g);
  scatter_one(g, mode, "0-d", IS0, 0, 0, IDX(g, IS0, 0, 0), IS0, reduce, include_self);
  gen_commit(g);
  scatter_one(g, mode, "empty index", IS(3, 4), 0, 1, IDX(g, IS(3, 0), 0, 3), IS(3, 0), reduce, include_self);
  gen_commit(g);
  scatter_one(g, mode, "index out of range", IS(3, 4), 0, 1, IDX(g, IS(3, 1), 4, 4), IS(3, 1), reduce, include_self);
  err(g);
}

static void gen_scatter_src(gen_ctx *g) { scatter_family(g, 0, NULL, 1); }
static void gen_scatter_value(gen_ctx *g) { scatter_family(g, 1, NULL, 1); }
static void gen_scatter_add(gen_ctx *g) { scatter_family(g, 2, NULL, 1); }
static void gen_scatter_reduce(gen_ctx *g) {
  static const char *const reds[] = {"sum", "prod", "mean", "amax", "amin"};
  for (int r = 0; r < 5; r++) {
    scatter_one(g, 3, "[3, 5] dim 1", IS(3, 5), 0, 1, IDX(g, IS(3, 4), 0, 4), IS(3, 4), reds[r], 1);
    gen_commit(g);
    scatter_one(g, 3, "include_self=False, dim 0", IS(4, 3), GEN_L_T, 0, IDX(g, IS(3, 3), 0, 3), IS(3, 3),
                reds[r], 0);
    if (g->cur) strcat(g->cur->name, ", include_self=False");
    gen_commit(g);
  }
  scatter_one(g, 3, "0-d", IS0, 0, 0, IDX(g, IS0, 0, 0), IS0, "sum", 1); gen_commit(g);
  scatter_one(g, 3, "bad reduce", IS(3, 4), 0, 1, IDX(g, IS(3, 2), 0, 3), IS(3, 2), "bogus", 1); err(g);
  scatter_one(g, 3, "index out of range", IS(3, 4), 0, 1, IDX(g, IS(3, 1), 4, 4), IS(3, 1), "sum", 1); err(g);
}

/* --- index.Tensor / index_put ---------------------------------------------------- */

/* indices: n entries, NULL for None */
static void index_begin(gen_ctx *g, const char *name, ishape s, uint32_t l, int32_t n, tabi_tensor **idx) {
  gen_begin(g, "%s", name);
  gen_arg_t(g, 0, T(g, s, l));
  gen_arg_tl(g, 1, n, idx);
}

static tabi_tensor *bool_mask(gen_ctx *g, ishape s) {
  return gen_tensor(g, TABI_DTYPE_BOOL, s.n, s.d, 0, GEN_DOM_ANY);
}

static void gen_index_tensor(gen_ctx *g) {
  tabi_tensor *i[4];
  i[0] = IDX(g, IS(4), -3, 2);
  index_begin(g, "[3, 4] [idx]", IS(3, 4), 0, 1, i); gen_commit(g);
  i[0] = NULL; i[1] = IDX(g, IS(2, 2), 0, 3);
  index_begin(g, "[None, idx 2-d], transposed", IS(3, 4), GEN_L_T, 2, i); gen_commit(g);
  i[0] = IDX(g, IS(2, 1), 0, 2); i[1] = IDX(g, IS(3), 0, 3);
  index_begin(g, "two broadcast indices", IS(3, 4), GEN_L_OFFSET, 2, i); gen_commit(g);
  i[0] = IDX(g, IS(2), 0, 1); i[1] = NULL; i[2] = IDX(g, IS(2), 0, 3);
  index_begin(g, "indices split by None", IS(2, 3, 4), 0, 3, i); gen_commit(g);
  i[0] = bool_mask(g, IS(3, 4));
  index_begin(g, "bool mask", IS(3, 4), 0, 1, i); gen_commit(g);
  i[0] = IDX(g, IS(0), 0, 2);
  index_begin(g, "empty index", IS(3, 4), GEN_L_EXPAND, 1, i); gen_commit(g);
  i[0] = IDX(g, IS(2), 3, 3);
  index_begin(g, "index out of range", IS(3, 4), 0, 1, i); err(g);
  i[0] = IDX(g, IS(1), 0, 0); i[1] = IDX(g, IS(1), 0, 0); i[2] = IDX(g, IS(1), 0, 0);
  index_begin(g, "too many indices", IS(3, 4), 0, 3, i); err(g);
}

static void gen_index_put(gen_ctx *g) {
  tabi_tensor *i[3];
  i[0] = distinct_index(g, 1, 3, 1, 4);
  index_begin(g, "rows, values [1, 3, 5]", IS(4, 5), 0, 1, i);
  gen_flags(g, CONFORM_DISTINCT_INDEX);
  gen_arg_t(g, 2, T(g, IS(1, 3, 5), 0)); gen_commit(g);
  i[0] = distinct_index(g, 1, 2, 1, 3); i[1] = IDX(g, IS(1, 2), 0, 3);
  index_begin(g, "two indices, broadcast value", IS(3, 4), GEN_L_T, 2, i);
  gen_arg_t(g, 2, T(g, IS0, 0)); gen_commit(g);
  i[0] = IDX(g, IS(6), -4, 3);
  index_begin(g, "duplicates, accumulate", IS(4, 2), GEN_L_OFFSET, 1, i);
  gen_arg_t(g, 2, T(g, IS(6, 2), 0)); gen_arg_bool(g, 3, 1); gen_commit(g);
  i[0] = NULL; i[1] = IDX(g, IS(5), 0, 2);
  index_begin(g, "[None, idx], accumulate", IS(2, 3), 0, 2, i);
  gen_arg_t(g, 2, T(g, IS(2, 5), 0)); gen_arg_bool(g, 3, 1); gen_commit(g);
  i[0] = bool_mask(g, IS(3, 4));
  index_begin(g, "bool mask, scalar value", IS(3, 4), 0, 1, i);
  gen_arg_t(g, 2, T(g, IS(1), 0)); gen_commit(g);
  i[0] = IDX(g, IS(2), 5, 5);
  index_begin(g, "index out of range", IS(3, 4), 0, 1, i);
  gen_arg_t(g, 2, T(g, IS(4), 0)); err(g);
}

static void gen_index_select(gen_ctx *g) {
  gen_begin(g, "[4, 3] dim 0"); gen_arg_t(g, 0, T(g, IS(4, 3), 0)); gen_arg_int(g, 1, 0);
  gen_arg_t(g, 2, IDX(g, IS(5), 0, 3)); gen_commit(g);
  gen_begin(g, "dim -1, transposed"); gen_arg_t(g, 0, T(g, IS(4, 3), GEN_L_T)); gen_arg_int(g, 1, -1);
  gen_arg_t(g, 2, IDX(g, IS(2), 0, 2)); gen_commit(g);
  gen_begin(g, "int32 index, expanded"); gen_arg_t(g, 0, T(g, IS(3, 4), GEN_L_EXPAND)); gen_arg_int(g, 1, 1);
  gen_arg_t(g, 2, gen_index(g, TABI_DTYPE_INT32, 1, GEN_S(3), 0, 3)); gen_commit(g);
  gen_begin(g, "0-d self, 0-d index"); gen_arg_t(g, 0, T(g, IS0, 0)); gen_arg_int(g, 1, 0);
  gen_arg_t(g, 2, IDX(g, IS0, 0, 0)); gen_commit(g);
  gen_begin(g, "empty index"); gen_arg_t(g, 0, T(g, IS(4, 3), GEN_L_OFFSET)); gen_arg_int(g, 1, 0);
  gen_arg_t(g, 2, IDX(g, IS(0), 0, 0)); gen_commit(g);
  gen_begin(g, "index out of range"); gen_arg_t(g, 0, T(g, IS(4, 3), 0)); gen_arg_int(g, 1, 0);
  gen_arg_t(g, 2, IDX(g, IS(2), 4, 4)); err(g);
  gen_begin(g, "2-d index"); gen_arg_t(g, 0, T(g, IS(4, 3), 0)); gen_arg_int(g, 1, 0);
  gen_arg_t(g, 2, IDX(g, IS(2, 2), 0, 3)); err(g);
}

/* masked_scatter(self, mask, source): source has at least as many elements as mask has True */
static void gen_masked_scatter(gen_ctx *g) {
  gen_begin(g, "[3, 4] mask [3, 4]"); gen_arg_t(g, 0, T(g, IS(3, 4), 0));
  gen_arg_t(g, 1, bool_mask(g, IS(3, 4))); gen_arg_t(g, 2, T(g, IS(12), 0)); gen_commit(g);
  gen_begin(g, "mask broadcast [4], transposed self"); gen_arg_t(g, 0, T(g, IS(3, 4), GEN_L_T));
  gen_arg_t(g, 1, bool_mask(g, IS(4))); gen_arg_t(g, 2, T(g, IS(3, 5), 0)); gen_commit(g);
  gen_begin(g, "0-d"); gen_arg_t(g, 0, T(g, IS0, 0));
  gen_arg_t(g, 1, bool_mask(g, IS0)); gen_arg_t(g, 2, T(g, IS(2), 0)); gen_commit(g);
  gen_begin(g, "empty"); gen_arg_t(g, 0, T(g, IS(0, 3), 0));
  gen_arg_t(g, 1, bool_mask(g, IS(0, 3))); gen_arg_t(g, 2, T(g, IS(0), 0)); gen_commit(g);
  gen_begin(g, "mask not bool"); gen_arg_t(g, 0, T(g, IS(3), 0));
  gen_arg_t(g, 1, IDX(g, IS(3), 0, 1)); gen_arg_t(g, 2, T(g, IS(3), 0)); err(g);
}

/* select_scatter(self, src, dim, index) */
static void gen_select_scatter(gen_ctx *g) {
  gen_begin(g, "[3, 4] dim 0 index 1"); gen_arg_t(g, 0, T(g, IS(3, 4), 0)); gen_arg_t(g, 1, T(g, IS(4), 0));
  gen_arg_int(g, 2, 0); gen_arg_int(g, 3, 1); gen_commit(g);
  gen_begin(g, "dim -1 index -1, transposed"); gen_arg_t(g, 0, T(g, IS(3, 4), GEN_L_T));
  gen_arg_t(g, 1, T(g, IS(3), GEN_L_STEP)); gen_arg_int(g, 2, -1); gen_arg_int(g, 3, -1); gen_commit(g);
  gen_begin(g, "[2, 3, 4] dim 1"); gen_arg_t(g, 0, T(g, IS(2, 3, 4), GEN_L_OFFSET));
  gen_arg_t(g, 1, T(g, IS(2, 4), 0)); gen_arg_int(g, 2, 1); gen_arg_int(g, 3, 2); gen_commit(g);
  gen_begin(g, "index out of range"); gen_arg_t(g, 0, T(g, IS(3, 4), 0)); gen_arg_t(g, 1, T(g, IS(4), 0));
  gen_arg_int(g, 2, 0); gen_arg_int(g, 3, 3); err(g);
  gen_begin(g, "src shape wrong"); gen_arg_t(g, 0, T(g, IS(3, 4), 0)); gen_arg_t(g, 1, T(g, IS(3), 0));
  gen_arg_int(g, 2, 0); gen_arg_int(g, 3, 0); err(g);
}

/* slice_scatter(self, src, dim, start?, end?, step) */
static void gen_slice_scatter(gen_ctx *g) {
  gen_begin(g, "[5, 3] dim 0 [1:3]"); gen_arg_t(g, 0, T(g, IS(5, 3), 0)); gen_arg_t(g, 1, T(g, IS(2, 3), 0));
  gen_arg_int(g, 2, 0); gen_arg_int(g, 3, 1); gen_arg_int(g, 4, 3); gen_commit(g);
  gen_begin(g, "dim 1 step 2, transposed"); gen_arg_t(g, 0, T(g, IS(3, 5), GEN_L_T));
  gen_arg_t(g, 1, T(g, IS(3, 3), 0)); gen_arg_int(g, 2, 1); gen_arg_none(g, 3); gen_arg_none(g, 4);
  gen_arg_int(g, 5, 2); gen_commit(g);
  gen_begin(g, "defaults (whole dim 0)"); gen_arg_t(g, 0, T(g, IS(2, 3), GEN_L_OFFSET));
  gen_arg_t(g, 1, T(g, IS(2, 3), GEN_L_EXPAND)); gen_commit(g);
  gen_begin(g, "negative start, end past size"); gen_arg_t(g, 0, T(g, IS(6), 0)); gen_arg_t(g, 1, T(g, IS(2), 0));
  gen_arg_int(g, 2, 0); gen_arg_int(g, 3, -2); gen_arg_int(g, 4, 100); gen_commit(g);
  gen_begin(g, "empty slice"); gen_arg_t(g, 0, T(g, IS(4), 0)); gen_arg_t(g, 1, T(g, IS(0), 0));
  gen_arg_int(g, 2, 0); gen_arg_int(g, 3, 3); gen_arg_int(g, 4, 1); gen_commit(g);
  gen_begin(g, "src shape wrong"); gen_arg_t(g, 0, T(g, IS(5, 3), 0)); gen_arg_t(g, 1, T(g, IS(3, 3), 0));
  gen_arg_int(g, 2, 0); gen_arg_int(g, 3, 1); gen_arg_int(g, 4, 3); err(g);
}

/* embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse) */
static void gen_embedding(gen_ctx *g) {
  gen_begin(g, "[5, 3] indices [2, 3]"); gen_arg_t(g, 0, T(g, IS(5, 3), 0));
  gen_arg_t(g, 1, IDX(g, IS(2, 3), 0, 4)); gen_commit(g);
  gen_begin(g, "transposed weight, padding_idx 2"); gen_arg_t(g, 0, T(g, IS(5, 3), GEN_L_T));
  gen_arg_t(g, 1, IDX(g, IS(4), 0, 4)); gen_arg_int(g, 2, 2); gen_commit(g);
  gen_begin(g, "int32 indices, 0-d"); gen_arg_t(g, 0, T(g, IS(5, 3), GEN_L_OFFSET));
  gen_arg_t(g, 1, gen_index(g, TABI_DTYPE_INT32, 0, NULL, 0, 4)); gen_commit(g);
  gen_begin(g, "empty indices"); gen_arg_t(g, 0, T(g, IS(5, 3), 0));
  gen_arg_t(g, 1, IDX(g, IS(0), 0, 4)); gen_commit(g);
  gen_begin(g, "index out of range"); gen_arg_t(g, 0, T(g, IS(5, 3), 0));
  gen_arg_t(g, 1, IDX(g, IS(2), 5, 5)); err(g);
}

/* embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq) */
static void gen_embedding_backward(gen_ctx *g) {
  gen_begin(g, "grad [2, 3, 4], 5 weights"); gen_arg_t(g, 0, T(g, IS(2, 3, 4), 0));
  gen_arg_t(g, 1, IDX(g, IS(2, 3), 0, 4)); gen_arg_int(g, 2, 5); gen_arg_int(g, 3, -1); gen_arg_bool(g, 4, 0);
  gen_commit(g);
  gen_begin(g, "padding_idx 1, scale_grad_by_freq"); gen_arg_t(g, 0, T(g, IS(6, 3), GEN_L_T));
  gen_arg_t(g, 1, IDX(g, IS(6), 0, 3)); gen_arg_int(g, 2, 4); gen_arg_int(g, 3, 1); gen_arg_bool(g, 4, 1);
  gen_commit(g);
  gen_begin(g, "empty indices"); gen_arg_t(g, 0, T(g, IS(0, 3), 0));
  gen_arg_t(g, 1, IDX(g, IS(0), 0, 0)); gen_arg_int(g, 2, 3); gen_arg_int(g, 3, -1); gen_arg_bool(g, 4, 0);
  gen_commit(g);
}

static void gen_nonzero(gen_ctx *g) {
  gen_begin(g, "[3, 4] with zeros");
  tabi_tensor *t = gen_tensor(g, g->dt, 2, GEN_S(3, 4), 0, GEN_DOM_TIES);
  gen_arg_t(g, 0, t); gen_commit(g);
  gen_begin(g, "transposed"); gen_arg_t(g, 0, gen_tensor(g, g->dt, 2, GEN_S(3, 4), GEN_L_T, GEN_DOM_TIES));
  gen_commit(g);
  gen_begin(g, "0-d"); gen_arg_t(g, 0, gen_tensor(g, g->dt, 0, NULL, 0, GEN_DOM_TIES)); gen_commit(g);
  gen_begin(g, "empty"); gen_arg_t(g, 0, gen_tensor(g, g->dt, 2, GEN_S(0, 3), 0, GEN_DOM_TIES)); gen_commit(g);
  gen_begin(g, "[2, 2, 3] offset");
  gen_arg_t(g, 0, gen_tensor(g, g->dt, 3, GEN_S(2, 2, 3), GEN_L_OFFSET, GEN_DOM_TIES)); gen_commit(g);
  gen_begin(g, "special values");
  t = gen_tensor(g, g->dt, 1, GEN_S(16), 0, GEN_DOM_TIES);
  gen_specials(g, t, 0);
  gen_arg_t(g, 0, t); gen_commit(g);
}

#define F(op, fn) {op, fn, 0, 0, 0}
const gen_entry gen_index_table[] = {
    F("aten::gather", gen_gather), F("aten::scatter.src", gen_scatter_src),
    F("aten::scatter.value", gen_scatter_value), F("aten::scatter_add", gen_scatter_add),
    F("aten::scatter_reduce.two", gen_scatter_reduce), F("aten::index.Tensor", gen_index_tensor),
    F("aten::index_put", gen_index_put), F("aten::index_select", gen_index_select),
    F("aten::masked_scatter", gen_masked_scatter), F("aten::select_scatter", gen_select_scatter),
    F("aten::slice_scatter", gen_slice_scatter), F("aten::embedding", gen_embedding),
    F("aten::embedding_dense_backward", gen_embedding_backward), F("aten::nonzero", gen_nonzero),
    {NULL, NULL, 0, 0, 0},
};
