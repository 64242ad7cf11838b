/* conformance/samples_nn.c: matmuls, convolutions, pooling, padding and
 * resampling. Shapes are small; kernel/stride/padding/dilation/groups,
 * ceil_mode and the like each get a sample, with one layout variant
 * (transposed or offset input) and one mismatched shape (expected error).
 * Backward ops get grad shapes computed from the forward formula.
 * Norms, softmax, distances, embedding_bag and svd are in samples_nn2.c.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gen.h"

typedef struct nshape { int32_t n; int64_t d[5]; } nshape;
#define NS(...) ((nshape){(int32_t)(sizeof GEN_S(__VA_ARGS__) / sizeof(int64_t)), {__VA_ARGS__}})
#define L(...) (int32_t)(sizeof GEN_S(__VA_ARGS__) / sizeof(int64_t)), GEN_S(__VA_ARGS__)
#define L0 0, GEN_S(0)

static tabi_tensor *T(gen_ctx *g, nshape s, uint32_t layout) {
  return gen_tensor(g, g->dt, s.n, s.d, layout, GEN_DOM_ANY);
}
static void err(gen_ctx *g) { gen_flags(g, CONFORM_EXPECT_ERROR); gen_commit(g); }

/* --- matmuls ------------------------------------------------------------------- */

static void gen_mm(gen_ctx *g) {
  gen_begin(g, "[2, 4] @ [4, 3]"); gen_arg_t(g, 0, T(g, NS(2, 4), 0)); gen_arg_t(g, 1, T(g, NS(4, 3), 0)); gen_commit(g);
  gen_begin(g, "transposed @ offset"); gen_arg_t(g, 0, T(g, NS(3, 5), GEN_L_T)); gen_arg_t(g, 1, T(g, NS(5, 2), GEN_L_OFFSET)); gen_commit(g);
  gen_begin(g, "stepped @ expanded"); gen_arg_t(g, 0, T(g, NS(2, 3), GEN_L_STEP)); gen_arg_t(g, 1, T(g, NS(3, 4), GEN_L_EXPAND)); gen_commit(g);
  gen_begin(g, "[0, 3] @ [3, 2]"); gen_arg_t(g, 0, T(g, NS(0, 3), 0)); gen_arg_t(g, 1, T(g, NS(3, 2), 0)); gen_commit(g);
  gen_begin(g, "[3, 0] @ [0, 2] (zeros)"); gen_arg_t(g, 0, T(g, NS(3, 0), 0)); gen_arg_t(g, 1, T(g, NS(0, 2), 0)); gen_commit(g);
  gen_begin(g, "long inner [2, 64] @ [64, 2]"); gen_arg_t(g, 0, T(g, NS(2, 64), 0)); gen_arg_t(g, 1, T(g, NS(64, 2), 0));
  if (g->dt == TABI_DTYPE_FLOAT16 || g->dt == TABI_DTYPE_BFLOAT16)
    gen_tol(g, g->dt == TABI_DTYPE_FLOAT16 ? 5e-3 : 3e-2, 1e-2,
            "64-term dot products in a half type: accumulation width differs between correct kernels");
  gen_commit(g);
  gen_begin(g, "inner sizes differ"); gen_arg_t(g, 0, T(g, NS(2, 3), 0)); gen_arg_t(g, 1, T(g, NS(4, 2), 0)); err(g);
  gen_begin(g, "1-d operand"); gen_arg_t(g, 0, T(g, NS(3), 0)); gen_arg_t(g, 1, T(g, NS(3, 2), 0)); err(g);
}

static void gen_bmm(gen_ctx *g) {
  gen_begin(g, "[2, 3, 4] @ [2, 4, 5]"); gen_arg_t(g, 0, T(g, NS(2, 3, 4), 0)); gen_arg_t(g, 1, T(g, NS(2, 4, 5), 0)); gen_commit(g);
  gen_begin(g, "transposed @ expanded"); gen_arg_t(g, 0, T(g, NS(3, 2, 4), GEN_L_T)); gen_arg_t(g, 1, T(g, NS(3, 4, 3), GEN_L_EXPAND)); gen_commit(g);
  gen_begin(g, "empty batch"); gen_arg_t(g, 0, T(g, NS(0, 2, 3), 0)); gen_arg_t(g, 1, T(g, NS(0, 3, 2), 0)); gen_commit(g);
  gen_begin(g, "k=0"); gen_arg_t(g, 0, T(g, NS(2, 2, 0), 0)); gen_arg_t(g, 1, T(g, NS(2, 0, 3), 0)); gen_commit(g);
  gen_begin(g, "batch sizes differ"); gen_arg_t(g, 0, T(g, NS(2, 3, 4), 0)); gen_arg_t(g, 1, T(g, NS(3, 4, 5), 0)); err(g);
}

/* addmm(self, mat1, mat2, *, beta, alpha) */
static void gen_addmm(gen_ctx *g) {
  int fl = gen_is_float_like(g->dt);
  gen_begin(g, "[2, 3] + [2, 4] @ [4, 3]"); gen_arg_t(g, 0, T(g, NS(2, 3), 0));
  gen_arg_t(g, 1, T(g, NS(2, 4), 0)); gen_arg_t(g, 2, T(g, NS(4, 3), 0)); gen_commit(g);
  gen_begin(g, "self [3] broadcast, transposed mats"); gen_arg_t(g, 0, T(g, NS(3), 0));
  gen_arg_t(g, 1, T(g, NS(2, 4), GEN_L_T)); gen_arg_t(g, 2, T(g, NS(4, 3), GEN_L_T)); gen_commit(g);
  gen_begin(g, "beta, alpha"); gen_arg_t(g, 0, T(g, NS(2, 3), GEN_L_OFFSET));
  gen_arg_t(g, 1, T(g, NS(2, 4), 0)); gen_arg_t(g, 2, T(g, NS(4, 3), 0));
  if (fl) { gen_arg_float(g, 3, 0.5); gen_arg_float(g, 4, -2.0); } else { gen_arg_int(g, 3, 2); gen_arg_int(g, 4, 3); }
  gen_commit(g);
  gen_begin(g, "beta=0 ignores NaN in self");
  {
    tabi_tensor *s = T(g, NS(2, 3), 0);
    gen_specials(g, s, 0);
    gen_arg_t(g, 0, s);
  }
  gen_arg_t(g, 1, T(g, NS(2, 4), 0)); gen_arg_t(g, 2, T(g, NS(4, 3), 0)); gen_arg_int(g, 3, 0);
  gen_commit(g);
  gen_begin(g, "k=0"); gen_arg_t(g, 0, T(g, NS(2, 3), 0));
  gen_arg_t(g, 1, T(g, NS(2, 0), 0)); gen_arg_t(g, 2, T(g, NS(0, 3), 0)); gen_commit(g);
  /* ATen's CPU addmm: k=0 is self * beta through mul_, whose promotion refuses
     a beta of a higher kind than the result; an empty result checks nothing */
  gen_begin(g, "k=0, complex beta"); gen_arg_t(g, 0, T(g, NS(2, 3), 0));
  gen_arg_t(g, 1, T(g, NS(2, 0), 0)); gen_arg_t(g, 2, T(g, NS(0, 3), 0)); gen_arg_complex(g, 3, 0.5, 0);
  if (tabi_dtype_is_complex(g->dt)) gen_commit(g); else err(g);
  /* ... and never reads alpha: a complex one for a real result is taken */
  gen_begin(g, "k=0, complex alpha (never read)"); gen_arg_t(g, 0, T(g, NS(2, 3), 0));
  gen_arg_t(g, 1, T(g, NS(2, 0), 0)); gen_arg_t(g, 2, T(g, NS(0, 3), 0)); gen_arg_int(g, 3, 1);
  gen_arg_complex(g, 4, 0, 2.61);
  gen_commit(g);
  gen_begin(g, "empty result, complex beta"); gen_arg_t(g, 0, T(g, NS(1), 0));
  gen_arg_t(g, 1, T(g, NS(2, 4), 0)); gen_arg_t(g, 2, T(g, NS(4, 0), 0)); gen_arg_complex(g, 3, 0.5, -2.0);
  gen_commit(g);
  gen_begin(g, "0-d self"); gen_arg_t(g, 0, T(g, NS(1), 0));
  gen_arg_t(g, 1, T(g, NS(2, 2), GEN_L_EXPAND)); gen_arg_t(g, 2, T(g, NS(2, 3), 0)); gen_commit(g);
  gen_begin(g, "inner sizes differ"); gen_arg_t(g, 0, T(g, NS(2, 3), 0));
  gen_arg_t(g, 1, T(g, NS(2, 4), 0)); gen_arg_t(g, 2, T(g, NS(5, 3), 0)); err(g);
}

/* --- convolution ------------------------------------------------------------------ */

typedef struct conv_case {
  const char *name;
  nshape in, w;
  int bias;
  int32_t nd;           /* spatial dims */
  int64_t stride[3], pad[3], dil[3], opad[3];
  int transposed;
  int64_t groups;
  uint32_t in_layout;
  int bad;
} conv_case;

static const conv_case conv_cases[] = {
    {"1-d", {3, {2, 2, 7}}, {3, {3, 2, 3}}, 1, 1, {1}, {0}, {1}, {0}, 0, 1, 0, 0},
    {"1-d stride 2 padding 1 dilation 2", {3, {1, 2, 9}}, {3, {2, 2, 3}}, 0, 1, {2}, {1}, {2}, {0}, 0, 1, GEN_L_OFFSET, 0},
    {"2-d stride 2 padding 1", {4, {1, 2, 5, 5}}, {4, {4, 2, 3, 3}}, 1, 2, {2, 2}, {1, 1}, {1, 1}, {0, 0}, 0, 1, 0, 0},
    {"2-d groups 2, transposed input", {4, {1, 4, 4, 4}}, {4, {4, 2, 3, 3}}, 1, 2, {1, 1}, {1, 0}, {1, 1}, {0, 0}, 0, 2, GEN_L_T, 0},
    {"2-d transposed conv", {4, {1, 2, 3, 3}}, {4, {2, 3, 3, 3}}, 1, 2, {2, 2}, {1, 1}, {1, 1}, {1, 1}, 1, 1, 0, 0},
    {"3-d", {5, {1, 1, 3, 4, 4}}, {5, {2, 1, 2, 2, 2}}, 0, 3, {1, 1, 1}, {0, 1, 0}, {1, 1, 1}, {0, 0, 0}, 0, 1, 0, 0},
    {"channels differ", {4, {1, 3, 5, 5}}, {4, {4, 2, 3, 3}}, 0, 2, {1, 1}, {0, 0}, {1, 1}, {0, 0}, 0, 1, 0, 1},
};

static int64_t conv_out(const conv_case *c, int32_t i) {
  int64_t L = c->in.d[2 + i], k = c->w.d[2 + i];
  if (c->transposed)
    return (L - 1) * c->stride[i] - 2 * c->pad[i] + c->dil[i] * (k - 1) + c->opad[i] + 1;
  return (L + 2 * c->pad[i] - c->dil[i] * (k - 1) - 1) / c->stride[i] + 1;
}

static void conv_common_args(gen_ctx *g, const conv_case *c, int32_t first) {
  gen_arg_ints(g, first, c->nd, c->stride);
  gen_arg_ints(g, first + 1, c->nd, c->pad);
  gen_arg_ints(g, first + 2, c->nd, c->dil);
  gen_arg_bool(g, first + 3, c->transposed);
  gen_arg_ints(g, first + 4, c->nd, c->opad);
  gen_arg_int(g, first + 5, c->groups);
}

static int64_t conv_out_channels(const conv_case *c) {
  return c->transposed ? c->w.d[1] * c->groups : c->w.d[0];
}

static void gen_convolution(gen_ctx *g) {
  for (size_t i = 0; i < sizeof conv_cases / sizeof conv_cases[0]; i++) {
    const conv_case *c = &conv_cases[i];
    gen_begin(g, "%s", c->name);
    gen_arg_t(g, 0, T(g, c->in, c->in_layout));
    gen_arg_t(g, 1, T(g, c->w, 0));
    if (c->bias) {
      int64_t oc = conv_out_channels(c);
      gen_arg_t(g, 2, gen_tensor(g, g->dt, 1, &oc, 0, GEN_DOM_ANY));
    } else {
      gen_arg_none(g, 2);
    }
    conv_common_args(g, c, 3);
    if (c->bad) err(g); else gen_commit(g);
  }
}

static void gen_convolution_backward(gen_ctx *g) {
  static const int64_t masks[][3] = {{1, 1, 1}, {1, 1, 0}, {0, 1, 1}, {1, 0, 0}};
  for (size_t i = 0; i < sizeof conv_cases / sizeof conv_cases[0]; i++) {
    const conv_case *c = &conv_cases[i];
    if (c->bad) continue;
    nshape go = c->in;
    go.d[1] = conv_out_channels(c);
    for (int32_t k = 0; k < c->nd; k++) go.d[2 + k] = conv_out(c, k);
    gen_begin(g, "%s", c->name);
    gen_arg_t(g, 0, T(g, go, 0));
    gen_arg_t(g, 1, T(g, c->in, c->in_layout));
    gen_arg_t(g, 2, T(g, c->w, 0));
    int64_t oc = conv_out_channels(c);
    if (c->bias) gen_arg_ints(g, 3, 1, &oc); else gen_arg_none(g, 3);
    conv_common_args(g, c, 4);
    gen_arg_bools(g, 10, 3, masks[i % 4]);
    gen_commit(g);
  }
}

/* col2im(self, output_size, kernel_size, dilation, padding, stride) */
static void gen_col2im(gen_ctx *g) {
  gen_begin(g, "[1, 8, 9] to 4x4, kernel 2");
  gen_arg_t(g, 0, T(g, NS(1, 8, 9), 0));
  gen_arg_ints(g, 1, L(4, 4)); gen_arg_ints(g, 2, L(2, 2)); gen_arg_ints(g, 3, L(1, 1));
  gen_arg_ints(g, 4, L(0, 0)); gen_arg_ints(g, 5, L(1, 1));
  gen_commit(g);
  gen_begin(g, "unbatched, stride 2 padding 1, transposed");
  gen_arg_t(g, 0, T(g, NS(8, 9), GEN_L_T));
  gen_arg_ints(g, 1, L(4, 4)); gen_arg_ints(g, 2, L(2, 2)); gen_arg_ints(g, 3, L(1, 1));
  gen_arg_ints(g, 4, L(1, 1)); gen_arg_ints(g, 5, L(2, 2));
  gen_commit(g);
  gen_begin(g, "dilation 2, 3x5");
  gen_arg_t(g, 0, T(g, NS(1, 4, 3), GEN_L_OFFSET));
  gen_arg_ints(g, 1, L(3, 5)); gen_arg_ints(g, 2, L(2, 2)); gen_arg_ints(g, 3, L(2, 2));
  gen_arg_ints(g, 4, L(0, 0)); gen_arg_ints(g, 5, L(1, 1));
  gen_commit(g);
  gen_begin(g, "L does not match");
  gen_arg_t(g, 0, T(g, NS(1, 8, 7), 0));
  gen_arg_ints(g, 1, L(4, 4)); gen_arg_ints(g, 2, L(2, 2)); gen_arg_ints(g, 3, L(1, 1));
  gen_arg_ints(g, 4, L(0, 0)); gen_arg_ints(g, 5, L(1, 1));
  err(g);
}

/* --- pooling ------------------------------------------------------------------- */

typedef struct pool_case {
  const char *name;
  nshape in;
  int32_t nd;
  int64_t k[3], s[3], p[3], d[3];
  int ceil, cip;
  int64_t divisor; /* 0: None */
  uint32_t layout;
} pool_case;

static const pool_case pool2d[] = {
    {"kernel 2", {4, {1, 2, 5, 5}}, 2, {2, 2}, {2, 2}, {0, 0}, {1, 1}, 0, 1, 0, 0},
    {"kernel 3 stride 2 padding 1", {4, {2, 1, 6, 5}}, 2, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 0, 1, 0, GEN_L_T},
    {"ceil_mode", {4, {1, 2, 5, 5}}, 2, {2, 2}, {2, 2}, {0, 0}, {1, 1}, 1, 1, 0, 0},
    {"padding, count_include_pad=False", {3, {2, 4, 4}}, 2, {3, 2}, {1, 2}, {1, 1}, {1, 1}, 0, 0, 0, GEN_L_OFFSET},
    {"divisor_override 3 / dilation 2", {4, {1, 1, 6, 6}}, 2, {2, 2}, {1, 1}, {0, 0}, {2, 2}, 0, 1, 3, 0},
};
static const pool_case pool3d[] = {
    {"kernel 2", {5, {1, 1, 4, 4, 4}}, 3, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, 0, 1, 0, 0},
    {"kernel 3 stride 2 padding 1, ceil", {5, {1, 2, 5, 4, 4}}, 3, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 1, 0, 0, GEN_L_T},
};

static int64_t pool_out(int64_t L, int64_t k, int64_t s, int64_t p, int64_t d, int ceil) {
  int64_t num = L + 2 * p - d * (k - 1) - 1;
  int64_t o = (ceil ? (num + s - 1) / s : num / s) + 1;
  if (ceil && (o - 1) * s >= L + p) o--;
  return o;
}

static nshape pool_out_shape(const pool_case *c, int dilated) {
  nshape o = c->in;
  for (int32_t i = 0; i < c->nd; i++) {
    int32_t ax = c->in.n - c->nd + i;
    o.d[ax] = pool_out(c->in.d[ax], c->k[i], c->s[i], c->p[i], dilated ? c->d[i] : 1, c->ceil);
  }
  return o;
}

/* avg: (self, k, s, p, ceil, cip[, divisor]) ; mode: 0 avg1d, 1 avg2d, 2 avg3d */
static void avg_args(gen_ctx *g, const pool_case *c, int32_t first, int with_div) {
  gen_arg_ints(g, first, c->nd, c->k);
  gen_arg_ints(g, first + 1, c->nd, c->s);
  gen_arg_ints(g, first + 2, c->nd, c->p);
  gen_arg_bool(g, first + 3, c->ceil);
  gen_arg_bool(g, first + 4, c->cip);
  if (with_div) { if (c->divisor) gen_arg_int(g, first + 5, c->divisor); else gen_arg_none(g, first + 5); }
}

static void gen_avg_pool1d(gen_ctx *g) {
  static const pool_case c1[] = {
      {"kernel 3", {3, {1, 2, 7}}, 1, {3}, {3}, {0}, {1}, 0, 1, 0, 0},
      {"stride 2 padding 1, unbatched", {2, {2, 7}}, 1, {3}, {2}, {1}, {1}, 0, 1, 0, GEN_L_T},
      {"ceil, count_include_pad=False", {3, {1, 1, 8}}, 1, {3}, {2}, {1}, {1}, 1, 0, 0, 0},
      /* ATen: one window in ceil mode though the kernel is wider than the input */
      {"ceil, kernel 6 > input 3", {3, {1, 2, 3}}, 1, {6}, {4}, {0}, {1}, 1, 1, 0, 0},
  };
  for (int i = 0; i < 4; i++) {
    gen_begin(g, "%s", c1[i].name);
    gen_arg_t(g, 0, T(g, c1[i].in, c1[i].layout));
    avg_args(g, &c1[i], 1, 0);
    gen_commit(g);
  }
  gen_begin(g, "padding > kernel / 2");
  gen_arg_t(g, 0, T(g, NS(1, 1, 5), 0));
  gen_arg_ints(g, 1, L(2)); gen_arg_ints(g, 2, L(1)); gen_arg_ints(g, 3, L(2));
  err(g);
}

static void gen_avg_pool2d(gen_ctx *g) {
  for (size_t i = 0; i < sizeof pool2d / sizeof pool2d[0]; i++) {
    if (pool2d[i].d[0] != 1 && !pool2d[i].divisor) continue;
    gen_begin(g, "%s", pool2d[i].name);
    gen_arg_t(g, 0, T(g, pool2d[i].in, pool2d[i].layout));
    avg_args(g, &pool2d[i], 1, 1);
    gen_commit(g);
  }
  gen_begin(g, "kernel larger than padded input");
  gen_arg_t(g, 0, T(g, NS(1, 1, 2, 2), 0));
  gen_arg_ints(g, 1, L(3, 3));
  err(g);
  /* ATen 1.13 narrows the parameters to int: 2^62 is its kernel 0 */
  gen_begin(g, "kernel 2^62, ceil");
  gen_arg_t(g, 0, T(g, NS(1, 1, 2, 2), 0));
  gen_arg_ints(g, 1, L((int64_t)1 << 62, 1)); gen_arg_ints(g, 2, L(1, 1)); gen_arg_ints(g, 3, L(0, 0));
  gen_arg_bool(g, 4, 1);
  err(g);
}

static void gen_avg_pool2d_backward(gen_ctx *g) {
  for (size_t i = 0; i < sizeof pool2d / sizeof pool2d[0]; i++) {
    gen_begin(g, "%s", pool2d[i].name);
    gen_arg_t(g, 0, T(g, pool_out_shape(&pool2d[i], 0), 0));
    gen_arg_t(g, 1, T(g, pool2d[i].in, pool2d[i].layout));
    avg_args(g, &pool2d[i], 2, 1);
    gen_commit(g);
  }
}

static void gen_avg_pool3d(gen_ctx *g) {
  for (size_t i = 0; i < sizeof pool3d / sizeof pool3d[0]; i++) {
    gen_begin(g, "%s", pool3d[i].name);
    gen_arg_t(g, 0, T(g, pool3d[i].in, pool3d[i].layout));
    avg_args(g, &pool3d[i], 1, 1);
    gen_commit(g);
  }
  gen_begin(g, "divisor_override 5");
  gen_arg_t(g, 0, T(g, NS(1, 1, 3, 3, 3), 0));
  gen_arg_ints(g, 1, L(2, 2, 2)); gen_arg_ints(g, 2, L(1, 1, 1)); gen_arg_ints(g, 3, L(0, 0, 0));
  gen_arg_bool(g, 4, 0); gen_arg_bool(g, 5, 1); gen_arg_int(g, 6, 5);
  gen_commit(g);
}

/* max_pool{2,3}d_with_indices(self, k, s, p, dilation, ceil) */
static void max_args(gen_ctx *g, const pool_case *c, int32_t first) {
  gen_arg_ints(g, first, c->nd, c->k);
  gen_arg_ints(g, first + 1, c->nd, c->s);
  gen_arg_ints(g, first + 2, c->nd, c->p);
  gen_arg_ints(g, first + 3, c->nd, c->d);
  gen_arg_bool(g, first + 4, c->ceil);
}

static void gen_max_pool(gen_ctx *g) {
  int three = g->e->a == 3;
  const pool_case *cs = three ? pool3d : pool2d;
  size_t n = three ? sizeof pool3d / sizeof pool3d[0] : sizeof pool2d / sizeof pool2d[0];
  for (size_t i = 0; i < n; i++) {
    gen_begin(g, "%s", cs[i].name);
    gen_arg_t(g, 0, T(g, cs[i].in, cs[i].layout));
    max_args(g, &cs[i], 1);
    gen_flags(g, CONFORM_TIES);
    gen_commit(g);
  }
  gen_begin(g, "special values");
  {
    tabi_tensor *t = three ? T(g, NS(1, 1, 2, 2, 4), 0) : T(g, NS(1, 1, 4, 4), 0);
    gen_specials(g, t, 0);
    gen_arg_t(g, 0, t);
  }
  if (three) gen_arg_ints(g, 1, L(2, 2, 2)); else gen_arg_ints(g, 1, L(2, 2));
  gen_flags(g, CONFORM_TIES);
  gen_commit(g);
  gen_begin(g, "padding > kernel / 2");
  gen_arg_t(g, 0, three ? T(g, NS(1, 1, 4, 4, 4), 0) : T(g, NS(1, 1, 4, 4), 0));
  if (three) { gen_arg_ints(g, 1, L(2, 2, 2)); gen_arg_ints(g, 2, L(1, 1, 1)); gen_arg_ints(g, 3, L(2, 2, 2)); }
  else { gen_arg_ints(g, 1, L(2, 2)); gen_arg_ints(g, 2, L(1, 1)); gen_arg_ints(g, 3, L(2, 2)); }
  err(g);
}

/* max_pool2d_with_indices_backward(grad_output, self, k, s, p, dilation, ceil, indices):
 * any index inside the plane is a valid scatter target. */
static void gen_max_pool2d_backward(gen_ctx *g) {
  for (size_t i = 0; i < sizeof pool2d / sizeof pool2d[0]; i++) {
    const pool_case *c = &pool2d[i];
    nshape o = pool_out_shape(c, 1);
    int64_t plane = c->in.d[c->in.n - 1] * c->in.d[c->in.n - 2];
    gen_begin(g, "%s", c->name);
    gen_arg_t(g, 0, T(g, o, 0));
    gen_arg_t(g, 1, T(g, c->in, c->layout));
    max_args(g, c, 2);
    gen_arg_t(g, 7, gen_index(g, TABI_DTYPE_INT64, o.n, o.d, 0, plane - 1));
    gen_commit(g);
  }
}

/* --- adaptive pooling ----------------------------------------------------------- */

static void gen_adaptive2d(gen_ctx *g) {
  gen_begin(g, "[1, 2, 5, 7] to [2, 3]"); gen_arg_t(g, 0, T(g, NS(1, 2, 5, 7), 0)); gen_arg_ints(g, 1, L(2, 3)); gen_commit(g);
  gen_begin(g, "to [3, 3], transposed"); gen_arg_t(g, 0, T(g, NS(2, 1, 4, 6), GEN_L_T)); gen_arg_ints(g, 1, L(3, 3)); gen_commit(g);
  gen_begin(g, "to [1, 1]"); gen_arg_t(g, 0, T(g, NS(1, 2, 3, 3), 0)); gen_arg_ints(g, 1, L(1, 1)); gen_commit(g);
  gen_begin(g, "identity, unbatched"); gen_arg_t(g, 0, T(g, NS(2, 4, 4), GEN_L_OFFSET)); gen_arg_ints(g, 1, L(4, 4)); gen_commit(g);
  gen_begin(g, "upsampling [2, 2] to [3, 5]"); gen_arg_t(g, 0, T(g, NS(1, 1, 2, 2), 0)); gen_arg_ints(g, 1, L(3, 5)); gen_commit(g);
}

static void gen_adaptive2d_backward(gen_ctx *g) {
  gen_begin(g, "[1, 2, 5, 7] from [2, 3]"); gen_arg_t(g, 0, T(g, NS(1, 2, 2, 3), 0));
  gen_arg_t(g, 1, T(g, NS(1, 2, 5, 7), 0)); gen_commit(g);
  gen_begin(g, "unbatched [2, 4, 6] from [3, 3]"); gen_arg_t(g, 0, T(g, NS(2, 3, 3), GEN_L_T));
  gen_arg_t(g, 1, T(g, NS(2, 4, 6), 0)); gen_commit(g);
  gen_begin(g, "upsampled [1, 1, 2, 2] from [3, 5]"); gen_arg_t(g, 0, T(g, NS(1, 1, 3, 5), 0));
  gen_arg_t(g, 1, T(g, NS(1, 1, 2, 2), 0)); gen_commit(g);
}

static void gen_adaptive3d(gen_ctx *g) {
  gen_begin(g, "[1, 1, 4, 5, 6] to [2, 3, 2]"); gen_arg_t(g, 0, T(g, NS(1, 1, 4, 5, 6), 0)); gen_arg_ints(g, 1, L(2, 3, 2)); gen_commit(g);
  gen_begin(g, "unbatched to [1, 2, 3], transposed"); gen_arg_t(g, 0, T(g, NS(2, 3, 4, 4), GEN_L_T)); gen_arg_ints(g, 1, L(1, 2, 3)); gen_commit(g);
}

static void gen_adaptive1d(gen_ctx *g) {
  gen_begin(g, "[1, 2, 7] to [3]"); gen_arg_t(g, 0, T(g, NS(1, 2, 7), 0)); gen_arg_ints(g, 1, L(3)); gen_commit(g);
  gen_begin(g, "unbatched to [4], offset"); gen_arg_t(g, 0, T(g, NS(3, 5), GEN_L_OFFSET)); gen_arg_ints(g, 1, L(4)); gen_commit(g);
  gen_begin(g, "to [1]"); gen_arg_t(g, 0, T(g, NS(2, 2, 6), GEN_L_T)); gen_arg_ints(g, 1, L(1)); gen_commit(g);
}

/* --- padding --------------------------------------------------------------------- */

static void pad_one(gen_ctx *g, const char *name, nshape s, uint32_t l, int32_t n, const int64_t *p, int bad) {
  gen_begin(g, "%s", name);
  gen_arg_t(g, 0, T(g, s, l));
  gen_arg_ints(g, 1, n, p);
  if (bad) err(g); else gen_commit(g);
}

static void gen_pad(gen_ctx *g) {
  int refl = g->e->b; /* 1: reflection (pad < size), 0: replication */
  switch (g->e->a) {
    case 1:
      pad_one(g, "[1, 2, 5] pad [2, 1]", NS(1, 2, 5), 0, L(2, 1), 0);
      pad_one(g, "unbatched, transposed", NS(3, 4), GEN_L_T, L(0, 3), 0);
      pad_one(g, "pad [0, 0]", NS(1, 1, 3), 0, L(0, 0), 0);
      if (refl) pad_one(g, "pad >= size", NS(1, 1, 3), 0, L(3, 0), 1);
      break;
    case 2:
      pad_one(g, "[1, 1, 3, 4] pad [1, 2, 2, 1]", NS(1, 1, 3, 4), 0, L(1, 2, 2, 1), 0);
      pad_one(g, "unbatched, transposed", NS(2, 4, 3), GEN_L_T, L(2, 0, 1, 1), 0);
      pad_one(g, "offset, pad [3, 3, 0, 0]", NS(2, 1, 2, 4), GEN_L_OFFSET, L(3, 3, 0, 0), 0);
      if (refl) pad_one(g, "pad >= size", NS(1, 1, 3, 3), 0, L(3, 0, 0, 0), 1);
      pad_one(g, "wrong pad length", NS(1, 1, 3, 3), 0, L(1, 1), 1);
      break;
    default:
      pad_one(g, "[1, 1, 3, 3, 3] pad 1", NS(1, 1, 3, 3, 3), 0, L(1, 1, 1, 1, 1, 1), 0);
      pad_one(g, "unbatched, uneven, transposed", NS(1, 2, 3, 4), GEN_L_T, L(0, 2, 1, 0, 1, 1), 0);
      if (refl) pad_one(g, "pad >= size", NS(1, 1, 2, 2, 2), 0, L(2, 0, 0, 0, 0, 0), 1);
      break;
  }
}

/* --- resampling ---------------------------------------------------------------- */

static void gen_upsample_bilinear(gen_ctx *g) {
  static const double sc[] = {2.0, 1.5}, sd[] = {0.5, 0.75};
  for (int ac = 0; ac < 2; ac++) {
    gen_begin(g, "[1, 2, 3, 4] to [5, 6] align_corners=%d", ac);
    gen_arg_t(g, 0, T(g, NS(1, 2, 3, 4), ac ? GEN_L_T : 0));
    gen_arg_ints(g, 1, L(5, 6)); gen_arg_bool(g, 2, ac); gen_arg_none(g, 3);
    gen_commit(g);
  }
  gen_begin(g, "scale_factors [2, 1.5]");
  gen_arg_t(g, 0, T(g, NS(1, 1, 3, 4), 0));
  gen_arg_none(g, 1); gen_arg_bool(g, 2, 0); gen_arg_floats(g, 3, 2, sc);
  gen_commit(g);
  gen_begin(g, "downsample scale_factors [0.5, 0.75]");
  gen_arg_t(g, 0, T(g, NS(2, 1, 4, 4), GEN_L_OFFSET));
  gen_arg_none(g, 1); gen_arg_bool(g, 2, 0); gen_arg_floats(g, 3, 2, sd);
  gen_commit(g);
  gen_begin(g, "to [1, 1] align_corners");
  gen_arg_t(g, 0, T(g, NS(1, 1, 3, 3), 0));
  gen_arg_ints(g, 1, L(1, 1)); gen_arg_bool(g, 2, 1); gen_arg_none(g, 3);
  gen_commit(g);
}

static void gen_upsample_nearest(gen_ctx *g) {
  static const double sc[] = {2.0, 1.5}, sd[] = {0.5, 0.6};
  gen_begin(g, "[1, 2, 3, 4] to [6, 8]");
  gen_arg_t(g, 0, T(g, NS(1, 2, 3, 4), 0)); gen_arg_ints(g, 1, L(6, 8)); gen_arg_none(g, 2); gen_commit(g);
  gen_begin(g, "to [5, 7], transposed");
  gen_arg_t(g, 0, T(g, NS(1, 2, 3, 4), GEN_L_T)); gen_arg_ints(g, 1, L(5, 7)); gen_arg_none(g, 2); gen_commit(g);
  gen_begin(g, "scale_factors [2, 1.5]");
  gen_arg_t(g, 0, T(g, NS(1, 1, 3, 4), 0)); gen_arg_none(g, 1); gen_arg_floats(g, 2, 2, sc); gen_commit(g);
  gen_begin(g, "downsample scale_factors [0.5, 0.6]");
  gen_arg_t(g, 0, T(g, NS(1, 1, 4, 5), GEN_L_OFFSET)); gen_arg_none(g, 1); gen_arg_floats(g, 2, 2, sd); gen_commit(g);
}

const gen_entry gen_nn_table[] = {
    {"aten::mm", gen_mm, 0, 0, 0},
    {"aten::bmm", gen_bmm, 0, 0, 0},
    {"aten::addmm", gen_addmm, 0, 0, 0},
    {"aten::convolution", gen_convolution, 0, 0, 0},
    {"aten::convolution_backward", gen_convolution_backward, 0, 0, 0},
    {"aten::col2im", gen_col2im, 0, 0, 0},
    {"aten::avg_pool1d", gen_avg_pool1d, 0, 0, 0},
    {"aten::avg_pool2d", gen_avg_pool2d, 0, 0, 0},
    {"aten::avg_pool2d_backward", gen_avg_pool2d_backward, 0, 0, 0},
    {"aten::avg_pool3d", gen_avg_pool3d, 0, 0, 0},
    {"aten::max_pool2d_with_indices", gen_max_pool, 2, 0, 0},
    {"aten::max_pool3d_with_indices", gen_max_pool, 3, 0, 0},
    {"aten::max_pool2d_with_indices_backward", gen_max_pool2d_backward, 0, 0, 0},
    {"aten::_adaptive_avg_pool2d", gen_adaptive2d, 0, 0, 0},
    {"aten::_adaptive_avg_pool2d_backward", gen_adaptive2d_backward, 0, 0, 0},
    {"aten::_adaptive_avg_pool3d", gen_adaptive3d, 0, 0, 0},
    {"aten::adaptive_avg_pool1d", gen_adaptive1d, 0, 0, 0},
    {"aten::reflection_pad1d", gen_pad, 1, 1, 0},
    {"aten::reflection_pad2d", gen_pad, 2, 1, 0},
    {"aten::reflection_pad3d", gen_pad, 3, 1, 0},
    {"aten::replication_pad2d", gen_pad, 2, 0, 0},
    {"aten::replication_pad3d", gen_pad, 3, 0, 0},
    {"aten::upsample_bilinear2d.vec", gen_upsample_bilinear, 0, 0, 0},
    {"aten::upsample_nearest2d.vec", gen_upsample_nearest, 0, 0, 0},
    {NULL, NULL, 0, 0, 0},
};
