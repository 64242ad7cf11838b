/* conformance/samples_reduce.c: reductions, scans, sort and topk.
 *
 * Family parameters: a = the argument style (RS_* below: where dim, keepdim,
 * dtype and correction sit in the schema); b = RB_* details. Every style
 * covers one and several dims, negative dims, keepdim, all dims, 0-d, empty
 * (reduced and kept dims), transposed and expanded inputs, NaN and infinities,
 * a long reduction (with a written tolerance for half types), the dtype
 * argument, and a dim out of range (an expected error).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gen.h"

/* a: argument styles */
#define RS_LIST    0 /* (self, int[] dim, bool keepdim[, *, dtype]) */
#define RS_INT     1 /* (self, int dim, bool keepdim[, *, dtype]) */
#define RS_OPTINT  2 /* (self, int? dim, bool keepdim): argmax/argmin */
#define RS_FULL    3 /* (self[, *, dtype]) */
#define RS_CUMSUM  4 /* (self, int dim, *, dtype) */
#define RS_PRIM    5 /* (inp, int[]? dims, *, output_dtype) */
#define RS_VARC    6 /* var.correction(self, int[]? dim, *, int? correction, bool keepdim) */
#define RS_VARD    7 /* var.dim(self, int[]? dim, bool unbiased, bool keepdim) */
#define RS_VARP    8 /* prims::var(inp, int[]? dims, *, int correction, output_dtype) */

/* b: details */
#define RB_DTYPE   0x1 /* has a dtype argument */
#define RB_NOEMPTY 0x2 /* reducing an empty dim is an error (amax, argmax, max.dim) */
#define RB_TIES    0x4 /* index outputs: CONFORM_TIES */
#define RB_OPTLIST 0x8 /* the dim list is optional (None reduces all) */
#define RB_SUMLIKE 0x10 /* long reductions accumulate rounding: tolerance for half types */
#define RB_PRODUCT 0x20 /* a product: CONFORM_PRODUCT_ORDER */

typedef struct rshape { int32_t n; int64_t d[4]; } rshape;
#define RSH(...) ((rshape){(int32_t)(sizeof GEN_S(__VA_ARGS__) / sizeof(int64_t)), {__VA_ARGS__}})

static const char *const half_reason =
    "long reduction in a half type: the order and width of accumulation differ between "
    "correct implementations (the reference rounds once from double)";

/* dims: NULL = None (optional list or int? dim), ndims < 0 = omitted (default) */
static void red_one(gen_ctx *g, const char *name, rshape s, uint32_t layout, int special,
                    const int64_t *dims, int32_t ndims, int keepdim, tabi_dtype dtype_arg,
                    int expect_error) {
  int32_t a = g->e->a, b = g->e->b;
  gen_begin(g, "%s", name);
  tabi_tensor *t = gen_tensor(g, g->dt, s.n, s.d, layout, (b & RB_TIES) ? GEN_DOM_TIES : GEN_DOM_ANY);
  if (special) gen_specials_no_max(g, t, 1);
  gen_arg_t(g, 0, t);
  if (a == RS_FULL) {
    if (dtype_arg != TABI_DTYPE_INVALID) gen_arg_dtype(g, 1, dtype_arg);
  } else {
    /* dim argument at 1 */
    if (a == RS_INT || a == RS_CUMSUM) gen_arg_int(g, 1, ndims > 0 ? dims[0] : 0);
    else if (a == RS_OPTINT) {
      if (!dims) gen_arg_none(g, 1); else gen_arg_int(g, 1, dims[0]);
    } else if (!dims) gen_arg_none(g, 1);
    else gen_arg_ints(g, 1, ndims, dims);
    switch (a) {
      case RS_LIST: case RS_INT: case RS_OPTINT:
        gen_arg_bool(g, 2, keepdim);
        if ((b & RB_DTYPE) && dtype_arg != TABI_DTYPE_INVALID) gen_arg_dtype(g, 3, dtype_arg);
        break;
      case RS_CUMSUM:
        if (dtype_arg != TABI_DTYPE_INVALID) gen_arg_dtype(g, 2, dtype_arg);
        break;
      case RS_PRIM:
        if (dtype_arg != TABI_DTYPE_INVALID) gen_arg_dtype(g, 2, dtype_arg);
        break;
      case RS_VARC: gen_arg_int(g, 2, 1); gen_arg_bool(g, 3, keepdim); break;
      case RS_VARD: gen_arg_bool(g, 2, 1); gen_arg_bool(g, 3, keepdim); break;
      case RS_VARP: gen_arg_int(g, 2, 1); break;
      default: break;
    }
  }
  if (b & RB_TIES) gen_flags(g, CONFORM_TIES);
  if (b & RB_PRODUCT) gen_flags(g, CONFORM_PRODUCT_ORDER);
  if (b & RB_SUMLIKE) gen_flags(g, CONFORM_SUM_ORDER);
  if (expect_error) gen_flags(g, CONFORM_EXPECT_ERROR);
}

static tabi_dtype wide_dtype(tabi_dtype dt) {
  if (tabi_dtype_is_complex(dt)) return TABI_DTYPE_COMPLEX128;
  return TABI_DTYPE_FLOAT64;
}

static void gen_reduction(gen_ctx *g) {
  int32_t a = g->e->a, b = g->e->b;
  const tabi_dtype NO = TABI_DTYPE_INVALID;
  int has_dims = a != RS_FULL;
  int single = a == RS_INT || a == RS_OPTINT || a == RS_CUMSUM;
  int keep = a == RS_LIST || a == RS_INT || a == RS_OPTINT || a == RS_VARC || a == RS_VARD;
  int half = g->dt == TABI_DTYPE_FLOAT16 || g->dt == TABI_DTYPE_BFLOAT16;

  if (!has_dims) {
    red_one(g, "[2, 3, 4]", RSH(2, 3, 4), 0, 0, NULL, -1, 0, NO, 0); gen_commit(g);
    rshape s0 = {0, {0}};
    red_one(g, "0-d", s0, 0, 0, NULL, -1, 0, NO, 0);
    gen_commit(g);
    red_one(g, "empty [0, 3]", RSH(0, 3), 0, 0, NULL, -1, 0, NO, (b & RB_NOEMPTY) != 0); gen_commit(g);
    red_one(g, "transposed [3, 4]", RSH(3, 4), GEN_L_T, 0, NULL, -1, 0, NO, 0); gen_commit(g);
    red_one(g, "expanded + offset [4, 5]", RSH(4, 5), GEN_L_EXPAND | GEN_L_OFFSET, 0, NULL, -1, 0, NO, 0);
    gen_commit(g);
    red_one(g, "special values [16]", RSH(16), 0, 1, NULL, -1, 0, NO, 0); gen_commit(g);
    red_one(g, "long [300]", RSH(300), GEN_L_STEP, 0, NULL, -1, 0, NO, 0);
    if (half && (b & RB_SUMLIKE)) gen_tol(g, g->dt == TABI_DTYPE_FLOAT16 ? 5e-3 : 3e-2, 1e-2, half_reason);
    gen_commit(g);
    if (b & RB_DTYPE) {
      red_one(g, "dtype=wide", RSH(3, 5), 0, 0, NULL, -1, 0, wide_dtype(g->dt), 0);
      gen_commit(g);
    }
    if ((b & RB_SUMLIKE) && !(b & RB_PRODUCT) && g->dt == TABI_DTYPE_INT64) {
      /* dtype= casts the input first: 2^62 is inf in float16, so the sum is
         inf - inf = NaN, not the 12 of a sum taken in float32 (torch 1.13) */
      static const double big[4] = {0x1p62, -0x1p62, 4, 8};
      static const int64_t four[1] = {4};
      red_one(g, "int64 +-2^62, dtype=float16 (cast first)", RSH(4), 0, 0, NULL, -1, 0, TABI_DTYPE_FLOAT16, 0);
      if (g->cur) gen_arg_t(g, 0, gen_tensor_of(g, TABI_DTYPE_INT64, 1, four, big));
      gen_commit(g);
    }
    return;
  }

  static const int64_t d1[] = {1}, dm1[] = {-1}, d02[] = {0, 2}, d0[] = {0}, d3[] = {3},
                       d11[] = {1, 1}, dall[] = {0, 1, 2};
  red_one(g, "dim 1", RSH(2, 3, 4), 0, 0, d1, 1, 0, NO, 0); gen_commit(g);
  red_one(g, "dim -1, keepdim", RSH(2, 3, 4), 0, 0, dm1, 1, 1, NO, 0); gen_commit(g);
  if (!single) {
    red_one(g, "dims [0, 2], keepdim", RSH(2, 3, 4), 0, 0, d02, 2, 1, NO, 0); gen_commit(g);
    red_one(g, "dims [0, 2]", RSH(2, 3, 4), GEN_L_OFFSET, 0, d02, 2, 0, NO, 0); gen_commit(g);
    red_one(g, "all dims [0, 1, 2]", RSH(2, 3, 4), 0, 0, dall, 3, 0, NO, 0); gen_commit(g);
    if (a != RS_VARP) {
      red_one(g, "dims []", RSH(3, 4), 0, 0, dall, 0, 0, NO, 0); gen_commit(g);
    }
    if (a != RS_LIST || (b & RB_OPTLIST)) {
      red_one(g, "dims None (all)", RSH(3, 4), 0, 0, NULL, 0, 1, NO, 0); gen_commit(g);
    }
    red_one(g, "dim repeated [1, 1]", RSH(2, 3, 4), 0, 0, d11, 2, 0, NO, 1); gen_commit(g);
  }
  if (a == RS_OPTINT) {
    red_one(g, "dim None (flattened)", RSH(3, 4), 0, 0, NULL, 0, 0, NO, 0); gen_commit(g);
    red_one(g, "dim None, keepdim", RSH(3, 4), GEN_L_T, 0, NULL, 0, 1, NO, 0); gen_commit(g);
  }
  /* 0-d input: dim 0 and -1 are valid */
  {
    rshape s0 = {0, {0}};
    red_one(g, "0-d, dim 0", s0, 0, 0, d0, 1, 0, NO, 0);
    gen_commit(g);
  }
  red_one(g, "empty [0, 3], kept dim 1", RSH(0, 3), 0, 0, d1, 1, 0, NO, 0); gen_commit(g);
  red_one(g, "empty [0, 3], reduced dim 0", RSH(0, 3), 0, 0, d0, 1, 0, NO, (b & RB_NOEMPTY) != 0);
  gen_commit(g);
  red_one(g, "transposed [3, 4], dim 0", RSH(3, 4), GEN_L_T, 0, d0, 1, 0, NO, 0); gen_commit(g);
  red_one(g, "expanded [4, 5], dim 1", RSH(4, 5), GEN_L_EXPAND, 0, d1, 1, 0, NO, 0); gen_commit(g);
  red_one(g, "stepped [3, 4], dim -1", RSH(3, 4), GEN_L_STEP, 0, dm1, 1, 0, NO, 0); gen_commit(g);
  red_one(g, "special values [4, 4], dim 1", RSH(4, 4), 0, 1, d1, 1, 0, NO, 0); gen_commit(g);
  red_one(g, "long [2, 150], dim 1", RSH(2, 150), 0, 0, d1, 1, 0, NO, 0);
  if (half && (b & RB_SUMLIKE)) gen_tol(g, g->dt == TABI_DTYPE_FLOAT16 ? 5e-3 : 3e-2, 1e-2, half_reason);
  gen_commit(g);
  if (b & RB_DTYPE) {
    red_one(g, "dtype=wide, dim 1", RSH(3, 5), 0, 0, d1, 1, keep, wide_dtype(g->dt), 0);
    gen_commit(g);
  }
  if (a == RS_VARC) {
    static const int64_t corr[] = {0, 2};
    for (int i = 0; i < 2; i++) {
      red_one(g, "correction", RSH(3, 5), 0, 0, d1, 1, 0, NO, 0);
      if (g->cur) snprintf(g->cur->name, sizeof g->cur->name, "correction=%lld", (long long)corr[i]);
      gen_arg_int(g, 2, corr[i]);
      gen_commit(g);
    }
    red_one(g, "correction=None", RSH(3, 5), 0, 0, d1, 1, 1, NO, 0);
    gen_arg_none(g, 2);
    gen_commit(g);
    red_one(g, "correction=1, one element (inf/nan)", RSH(3, 1), 0, 0, d1, 1, 0, NO, 0);
    gen_commit(g);
  }
  if (a == RS_VARD) {
    red_one(g, "unbiased=False", RSH(3, 5), GEN_L_T, 0, d1, 1, 0, NO, 0);
    gen_arg_bool(g, 2, 0);
    gen_commit(g);
  }
  if (a == RS_VARP) {
    red_one(g, "correction=0", RSH(3, 5), 0, 0, d1, 1, 0, NO, 0);
    gen_arg_int(g, 2, 0);
    gen_commit(g);
  }
  red_one(g, "dim 3 out of range", RSH(2, 3, 4), 0, 0, d3, 1, 0, NO, 1); gen_commit(g);
}

/* sort(Tensor self, int dim=-1, bool descending=False) */
static void sort_one(gen_ctx *g, const char *name, rshape s, uint32_t layout, int special,
                     int64_t dim, int desc) {
  gen_begin(g, "%s", name);
  tabi_tensor *t = gen_tensor(g, g->dt, s.n, s.d, layout, GEN_DOM_TIES);
  if (special) gen_specials(g, t, 0);
  gen_arg_t(g, 0, t);
  gen_arg_int(g, 1, dim);
  gen_arg_bool(g, 2, desc);
  gen_flags(g, CONFORM_TIES);
}

static void gen_sort(gen_ctx *g) {
  rshape s0 = {0, {0}};
  sort_one(g, "[3, 5], dim -1", RSH(3, 5), 0, 0, -1, 0); gen_commit(g);
  sort_one(g, "[3, 5], dim 0, descending", RSH(3, 5), 0, 0, 0, 1); gen_commit(g);
  sort_one(g, "transposed [4, 6], dim 1", RSH(4, 6), GEN_L_T, 0, 1, 0); gen_commit(g);
  sort_one(g, "expanded [3, 4], dim 0", RSH(3, 4), GEN_L_EXPAND, 0, 0, 1); gen_commit(g);
  sort_one(g, "0-d", s0, 0, 0, 0, 0); gen_commit(g);
  sort_one(g, "empty [0, 4]", RSH(0, 4), 0, 0, -1, 0); gen_commit(g);
  sort_one(g, "special values [16]", RSH(16), 0, 1, 0, 0); gen_commit(g);
  sort_one(g, "special values [16], descending", RSH(16), 0, 1, 0, 1); gen_commit(g);
  sort_one(g, "long [50], offset", RSH(50), GEN_L_OFFSET, 0, 0, 0); gen_commit(g);
  sort_one(g, "dim 2 out of range", RSH(3, 4), 0, 0, 2, 0);
  gen_flags(g, CONFORM_EXPECT_ERROR);
  gen_commit(g);
}

/* topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) */
static void topk_one(gen_ctx *g, const char *name, rshape s, uint32_t layout, int special,
                     int64_t k, int64_t dim, int largest) {
  gen_begin(g, "%s", name);
  tabi_tensor *t = gen_tensor(g, g->dt, s.n, s.d, layout, GEN_DOM_TIES);
  if (special) gen_specials(g, t, 0);
  gen_arg_t(g, 0, t);
  gen_arg_int(g, 1, k);
  gen_arg_int(g, 2, dim);
  gen_arg_bool(g, 3, largest);
  gen_arg_bool(g, 4, 1);
  gen_flags(g, CONFORM_TIES);
}

static void gen_topk(gen_ctx *g) {
  rshape s0 = {0, {0}};
  topk_one(g, "k=2, [3, 5]", RSH(3, 5), 0, 0, 2, -1, 1); gen_commit(g);
  topk_one(g, "k=1, dim 0, smallest", RSH(3, 5), 0, 0, 1, 0, 0); gen_commit(g);
  topk_one(g, "k=0", RSH(3, 5), 0, 0, 0, -1, 1); gen_commit(g);
  topk_one(g, "k=size, transposed", RSH(4, 6), GEN_L_T, 0, 6, 1, 1); gen_commit(g);
  topk_one(g, "0-d, k=1", s0, 0, 0, 1, 0, 1); gen_commit(g);
  topk_one(g, "special values, k=5", RSH(16), 0, 1, 5, 0, 1); gen_commit(g);
  topk_one(g, "special values, k=5, smallest", RSH(16), 0, 1, 5, 0, 0); gen_commit(g);
  topk_one(g, "expanded, k=3", RSH(3, 7), GEN_L_EXPAND, 0, 3, 1, 1); gen_commit(g);
  topk_one(g, "k > size", RSH(3, 4), 0, 0, 5, -1, 1);
  gen_flags(g, CONFORM_EXPECT_ERROR);
  gen_commit(g);
}

#define R(op, a, b) {op, gen_reduction, a, b, 0}
const gen_entry gen_reduce_table[] = {
    R("aten::sum.dim_IntList", RS_LIST, RB_DTYPE | RB_OPTLIST | RB_SUMLIKE),
    R("aten::mean.dim", RS_LIST, RB_DTYPE | RB_OPTLIST | RB_SUMLIKE),
    R("aten::amax", RS_LIST, RB_NOEMPTY),
    R("aten::amin", RS_LIST, RB_NOEMPTY),
    R("aten::any.dims", RS_LIST, RB_OPTLIST),
    R("aten::any.dim", RS_INT, 0),
    R("aten::prod.dim_int", RS_INT, RB_DTYPE | RB_SUMLIKE | RB_PRODUCT),
    R("aten::max.dim", RS_INT, RB_NOEMPTY | RB_TIES),
    R("aten::min.dim", RS_INT, RB_NOEMPTY | RB_TIES),
    R("aten::argmax", RS_OPTINT, RB_NOEMPTY | RB_TIES),
    R("aten::argmin", RS_OPTINT, RB_NOEMPTY | RB_TIES),
    R("aten::any", RS_FULL, 0),
    R("aten::mean", RS_FULL, RB_DTYPE | RB_SUMLIKE),
    R("aten::prod", RS_FULL, RB_DTYPE | RB_SUMLIKE | RB_PRODUCT),
    R("aten::cumsum", RS_CUMSUM, RB_DTYPE | RB_SUMLIKE),
    R("aten::var.correction", RS_VARC, RB_OPTLIST | RB_SUMLIKE),
    R("aten::var.dim", RS_VARD, RB_OPTLIST | RB_SUMLIKE),
    R("prims::sum", RS_PRIM, RB_OPTLIST | RB_SUMLIKE),
    R("prims::prod", RS_PRIM, RB_OPTLIST | RB_SUMLIKE | RB_PRODUCT),
    R("prims::amax", RS_PRIM, RB_OPTLIST | RB_NOEMPTY),
    R("prims::amin", RS_PRIM, RB_OPTLIST | RB_NOEMPTY),
    R("prims::var", RS_VARP, RB_OPTLIST | RB_SUMLIKE),
    {"aten::sort", gen_sort, 0, 0, 0},
    {"aten::topk", gen_topk, 0, 0, 0},
    {NULL, NULL, 0, 0, 0},
};
