/* conformance/samples_elementwise.c: unary, binary (tensor-tensor) and
 * tensor-scalar families, and the elementwise ops with arguments of their own
 * (clamp, where, pow.Scalar, gelu, elu, hardtanh, leaky_relu).
 *
 * Family parameters: a = domain of operand 0, b = domain of operand 1 (GEN_DOM_*).
 * Every family covers 0-d, empty, broadcast, transposed, stepped, offset and
 * expanded layouts, special values (unless GEN_F_NO_SPECIAL), and for aten ops
 * mixed-dtype promotion and a shape that does not broadcast (an expected error).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gen.h"

typedef struct gshape { int32_t n; int64_t d[4]; } gshape;
#define SH(...) ((gshape){(int32_t)(sizeof GEN_S(__VA_ARGS__) / sizeof(int64_t)), {__VA_ARGS__}})
static const gshape SH0 = {0, {0}};

static tabi_tensor *mk(gen_ctx *g, tabi_dtype dt, gshape s, uint32_t layout, int32_t dom) {
  return gen_tensor(g, dt, s.n, s.d, layout, dom);
}

/* The dtype a result of `dt` has for float-valued ops (atan2.out's out). */
static tabi_dtype float_result(tabi_dtype dt) {
  return gen_is_float_like(dt) ? dt : TABI_DTYPE_FLOAT32;
}

/* ---------------------------------------------------------------- unary */

static void unary_one(gen_ctx *g, const char *name, gshape s, uint32_t layout, int special) {
  gen_begin(g, "%s", name);
  tabi_tensor *t = mk(g, g->dt, s, layout, g->e->a);
  if (special) gen_specials(g, t, 0);
  gen_arg_t(g, 0, t);
  gen_commit(g);
}

void gen_unary(gen_ctx *g) {
  unary_one(g, "contiguous [2, 3]", SH(2, 3), GEN_L_CONTIG, 0);
  unary_one(g, "0-d", SH0, GEN_L_CONTIG, 0);
  unary_one(g, "empty [0, 3]", SH(0, 3), GEN_L_CONTIG, 0);
  unary_one(g, "transposed [3, 4]", SH(3, 4), GEN_L_T, 0);
  unary_one(g, "stepped slice [2, 5]", SH(2, 5), GEN_L_STEP, 0);
  unary_one(g, "storage offset [7]", SH(7), GEN_L_OFFSET, 0);
  unary_one(g, "expanded (stride 0) [3, 4]", SH(3, 4), GEN_L_EXPAND, 0);
  unary_one(g, "transposed + offset [2, 3, 4]", SH(2, 3, 4), GEN_L_T | GEN_L_OFFSET, 0);
  if (!(g->e->flags & GEN_F_NO_SPECIAL)) unary_one(g, "special values [16]", SH(16), GEN_L_CONTIG, 1);
}

/* ---------------------------------------------------------------- binary */

/* div's *_mode overloads have no default for rounding_mode: the plain samples
 * take the modes in turn (the variants below name theirs). */
static void rounding_default(gen_ctx *g, int32_t i) {
  switch (g->list->count % 3) {
    case 0: gen_arg_str(g, i, "floor"); break;
    case 1: gen_arg_str(g, i, "trunc"); break;
    default: gen_arg_none(g, i); break;
  }
}

static void broadcast_shape(gshape a, gshape b, gshape *out) {
  int32_t n = a.n > b.n ? a.n : b.n;
  out->n = n;
  for (int32_t i = 0; i < n; i++) {
    int64_t x = i < n - a.n ? 1 : a.d[i - (n - a.n)];
    int64_t y = i < n - b.n ? 1 : b.d[i - (n - b.n)];
    out->d[i] = x == 1 ? y : x;
  }
}

/* One binary sample: self (sa, la) op other (sb, lb) of dtype db. extra: a
 * callback-free way to add alpha/rounding: set by the caller after this returns
 * (the sample is still open). */
/* pow in complex64: the exponent multiplies the rounding of a float logarithm
 * (cpowf), a few ulps for the small exponents of the samples and more for the
 * random calls' (x^6 is 2e-6 off in one correct implementation or another). */
static void pow_tol(gen_ctx *g) {
  if (g->e->b == GEN_DOM_EXP && g->dt == TABI_DTYPE_COMPLEX64)
    gen_tol(g, 1e-5, 1e-5, "complex64 pow: the exponent scales the float logarithm's rounding");
}

static void binary_open(gen_ctx *g, const char *name, gshape sa, uint32_t la, gshape sb,
                        uint32_t lb, tabi_dtype db, int special) {
  const gen_entry *e = g->e;
  gen_begin(g, "%s", name);
  tabi_tensor *a = mk(g, g->dt, sa, la, e->a);
  tabi_tensor *b = mk(g, db, sb, lb, e->b);
  if (special) {
    gen_specials(g, a, 0);
    int rhs_ok = !(e->flags & GEN_F_RHS_PLAIN) || (gen_is_float_like(db) && e->b != GEN_DOM_SHIFT);
    if (rhs_ok) gen_specials(g, b, 3);
  }
  gen_arg_t(g, 0, a);
  gen_arg_t(g, 1, b);
  pow_tol(g);
  if (e->flags & GEN_F_ROUNDING) rounding_default(g, 2);
  if (e->flags & GEN_F_OUT) {
    gshape so;
    broadcast_shape(sa, sb, &so);
    tabi_dtype od = e->flags & GEN_F_BOOL_OUT ? TABI_DTYPE_BOOL : float_result(g->dt);
    tabi_tensor *o = mk(g, od, so, GEN_L_CONTIG, GEN_DOM_ANY);
    gen_arg_t(g, 2, o);
  }
}

static void binary_one(gen_ctx *g, const char *name, gshape sa, uint32_t la, gshape sb,
                       uint32_t lb, int special) {
  binary_open(g, name, sa, la, sb, lb, g->dt, special);
  gen_commit(g);
}

void gen_binary(gen_ctx *g) {
  const gen_entry *e = g->e;
  int prim = (e->flags & GEN_F_PRIM) != 0;
  int special = !(e->flags & GEN_F_NO_SPECIAL);
  binary_one(g, "same shape [2, 3]", SH(2, 3), 0, SH(2, 3), 0, 0);
  binary_one(g, "0-d, 0-d", SH0, 0, SH0, 0, 0);
  binary_one(g, "transposed [3, 4], stepped slice [3, 4]", SH(3, 4), GEN_L_T, SH(3, 4), GEN_L_STEP, 0);
  binary_one(g, "storage offset [4, 3], expanded [4, 3]", SH(4, 3), GEN_L_OFFSET, SH(4, 3), GEN_L_EXPAND, 0);
  binary_one(g, "long [33]", SH(33), 0, SH(33), 0, 0);
  if (special) binary_one(g, "special values [16]", SH(16), 0, SH(16), 0, 1);
  if (prim) {
    binary_one(g, "empty [0, 3]", SH(0, 3), 0, SH(0, 3), 0, 0);
    binary_open(g, "shapes differ [2, 3], [3, 2]", SH(2, 3), 0, SH(3, 2), 0, g->dt, 0);
    gen_flags(g, CONFORM_EXPECT_ERROR);
    gen_commit(g);
  } else {
    binary_one(g, "broadcast [3, 1], [1, 4]", SH(3, 1), 0, SH(1, 4), 0, 0);
    binary_one(g, "broadcast [2, 3], [3]", SH(2, 3), 0, SH(3), 0, 0);
    binary_one(g, "broadcast [2, 3], 0-d", SH(2, 3), 0, SH0, 0, 0);
    binary_one(g, "empty [0, 3], [3]", SH(0, 3), 0, SH(3), 0, 0);
    /* Promotion: the other operand of a higher category; as a 0-d tensor it
     * decides the category but, within a category, not the width. */
    tabi_dtype other = gen_is_float_like(g->dt) ? TABI_DTYPE_INT32 : TABI_DTYPE_FLOAT32;
    if (g->dt == TABI_DTYPE_FLOAT64 || g->dt == TABI_DTYPE_COMPLEX128) other = TABI_DTYPE_FLOAT32;
    binary_open(g, "mixed dtypes [2, 3]", SH(2, 3), 0, SH(2, 3), 0, other, 0);
    gen_commit(g);
    binary_open(g, "mixed dtypes, float64 0-d", SH(2, 3), 0, SH0, 0, TABI_DTYPE_FLOAT64, 0);
    gen_commit(g);
    binary_open(g, "shapes do not broadcast [2, 3], [4]", SH(2, 3), 0, SH(4), 0, g->dt, 0);
    gen_flags(g, CONFORM_EXPECT_ERROR);
    gen_commit(g);
  }
  if (e->flags & GEN_F_ALPHA) {
    binary_open(g, "alpha=2", SH(2, 3), 0, SH(2, 3), 0, g->dt, 0);
    if (g->dt == TABI_DTYPE_BOOL) gen_arg_bool(g, 2, 1);
    else gen_arg_int(g, 2, 2);
    gen_commit(g);
    if (gen_is_float_like(g->dt)) {
      binary_open(g, "alpha=-0.5, broadcast", SH(2, 3), 0, SH(3), 0, g->dt, 0);
      gen_arg_float(g, 2, -0.5);
      gen_commit(g);
    }
    if (g->dt == TABI_DTYPE_COMPLEX64) { /* alpha converts to the result's dtype, checked: both parts */
      binary_open(g, "alpha=1+1e308j (overflows complex64)", SH(3), 0, SH(3), 0, g->dt, 0);
      gen_arg_complex(g, 2, 1.0, 1e308);
      gen_flags(g, CONFORM_EXPECT_ERROR);
      gen_commit(g);
    }
  }
  if (e->flags & GEN_F_ROUNDING) {
    static const char *const modes[] = {"trunc", "floor", NULL};
    for (int m = 0; m < 3; m++) {
      const char *mn = modes[m] ? modes[m] : "None";
      binary_open(g, m < 2 ? "rounding_mode" : "rounding_mode=None", SH(3, 4), 0, SH(3, 4), 0, g->dt, 0);
      if (g->cur) snprintf(g->cur->name, sizeof g->cur->name, "rounding_mode=%s", mn);
      if (modes[m]) gen_arg_str(g, 2, modes[m]); else gen_arg_none(g, 2);
      gen_commit(g);
      if (special) {
        binary_open(g, "rounding_mode, special values", SH(16), 0, SH(16), 0, g->dt, 1);
        if (g->cur) snprintf(g->cur->name, sizeof g->cur->name, "rounding_mode=%s, special values", mn);
        if (modes[m]) gen_arg_str(g, 2, modes[m]); else gen_arg_none(g, 2);
        gen_commit(g);
      }
      binary_open(g, "rounding_mode, broadcast", SH(2, 1), GEN_L_OFFSET, SH(3), 0, g->dt, 0);
      if (g->cur) snprintf(g->cur->name, sizeof g->cur->name, "rounding_mode=%s, broadcast", mn);
      if (modes[m]) gen_arg_str(g, 2, modes[m]); else gen_arg_none(g, 2);
      gen_commit(g);
    }
  }
}

/* ---------------------------------------------------------------- tensor-scalar */

#define SC_FLOAT   0x1
#define SC_COMPLEX 0x2
#define SC_BOOL    0x4
#define SC_ALL     (SC_FLOAT | SC_COMPLEX | SC_BOOL)

/* The scalar argument's position: 0 for pow.Scalar(Scalar self, Tensor exponent). */
static void scalar_sample(gen_ctx *g, const char *name, gshape s, uint32_t layout, int kind,
                          double v, int special) {
  int scalar_first = (g->e->flags & GEN_F_SCALAR_FIRST) != 0;
  int ti = scalar_first ? 1 : 0, si = scalar_first ? 0 : 1;
  gen_begin(g, "%s", name);
  tabi_tensor *t = mk(g, g->dt, s, layout, scalar_first ? g->e->b : g->e->a);
  if (special) gen_specials(g, t, 0);
  gen_arg_t(g, ti, t);
  switch (kind) {
    case 0: gen_arg_int(g, si, (int64_t)v); break;
    case 1: gen_arg_float(g, si, v); break;
    case 2: gen_arg_complex(g, si, v, -0.5); break;
    default: gen_arg_bool(g, si, v != 0); break;
  }
  if (g->e->flags & GEN_F_ROUNDING) rounding_default(g, 2);
  pow_tol(g);
}

void gen_tensor_scalar(gen_ctx *g) {
  const gen_entry *e = g->e;
  int32_t sdom = e->b; /* the scalar's domain */
  int mask = (e->flags & GEN_F_INT_ONLY) ? SC_BOOL : SC_ALL;
  if (sdom == GEN_DOM_DIVISOR || sdom == GEN_DOM_EXP) mask &= ~SC_BOOL;
  if (sdom == GEN_DOM_DIVISOR) mask &= ~SC_COMPLEX; /* fmod, remainder, floor division: real only */
  double iv = sdom == GEN_DOM_DIVISOR ? 3 : sdom == GEN_DOM_EXP ? 2 : 3;
  double fv = sdom == GEN_DOM_DIVISOR ? -1.5 : sdom == GEN_DOM_EXP ? 0.5 : 2.5;
  scalar_sample(g, "[2, 3], int scalar", SH(2, 3), 0, 0, iv, 0); gen_commit(g);
  scalar_sample(g, "0-d, int scalar", SH0, 0, 0, iv, 0); gen_commit(g);
  scalar_sample(g, "empty [0, 3], int scalar", SH(0, 3), 0, 0, iv, 0); gen_commit(g);
  scalar_sample(g, "transposed [3, 4], int scalar", SH(3, 4), GEN_L_T, 0, iv, 0); gen_commit(g);
  scalar_sample(g, "expanded + offset [3, 4]", SH(3, 4), GEN_L_EXPAND | GEN_L_OFFSET, 0,
                sdom == GEN_DOM_DIVISOR ? -2 : iv, 0);
  gen_commit(g);
  if (sdom == GEN_DOM_EXP) {
    scalar_sample(g, "[5], int scalar 0", SH(5), 0, 0, 0, 0); gen_commit(g);
    if (gen_is_float_like(g->dt) && !(e->flags & GEN_F_NO_SPECIAL)) {
      /* not ATen's special exponent 0 (which fills 1), though float rounds it
         to 0; [32] so that ATen's vectorized loop takes every element */
      scalar_sample(g, "[32] special values, float scalar 1e-310", SH(32), 0, 1, 1e-310, 1); gen_commit(g);
      if (tabi_dtype_is_complex(g->dt)) {
        scalar_sample(g, "[32] special values, complex scalar 1e-310j", SH(32), 0, 2, -0.0, 1);
        if (g->cur) gen_arg_complex(g, 1, -0.0, 1e-310);
        gen_commit(g);
      }
    }
  }
  if (mask & SC_FLOAT) {
    scalar_sample(g, "[2, 3], float scalar (promotes ints)", SH(2, 3), 0, 1, fv, 0); gen_commit(g);
    scalar_sample(g, "0-d, float scalar", SH0, 0, 1, fv, 0); gen_commit(g);
    scalar_sample(g, "stepped slice [2, 4], float scalar", SH(2, 4), GEN_L_STEP, 1, -fv, 0);
    gen_commit(g);
    if (sdom == GEN_DOM_EXP) {
      scalar_sample(g, "[6], float scalar -1", SH(6), 0, 1, -1.0, 0); gen_commit(g);
    }
  }
  if (mask & SC_BOOL) {
    scalar_sample(g, "[2, 3], bool scalar", SH(2, 3), 0, 3, 1, 0); gen_commit(g);
  }
  if ((mask & SC_COMPLEX) && !(e->flags & GEN_F_BOOL_OUT)) {
    scalar_sample(g, "[2, 3], complex scalar", SH(2, 3), 0, 2, 1.5, 0); gen_commit(g);
  }
  if (!(e->flags & GEN_F_NO_SPECIAL)) {
    int kind = gen_is_float_like(g->dt) && (mask & SC_FLOAT) ? 1 : 0;
    scalar_sample(g, "special values [16]", SH(16), 0, kind, kind ? fv : iv, 1); gen_commit(g);
    if (gen_is_float_like(g->dt) && (mask & SC_FLOAT) && sdom != GEN_DOM_EXP) {
      scalar_sample(g, "special values [16], scalar inf", SH(16), 0, 1, INFINITY, 1); gen_commit(g);
    }
  }
  /* ATen casts the wrapped scalar to the common dtype before the op: 4.1 is
   * bfloat16's 4.09375, and 70000 float16's inf (an exponent must fit) */
  if ((g->dt == TABI_DTYPE_FLOAT16 || g->dt == TABI_DTYPE_BFLOAT16) && (mask & SC_FLOAT) &&
      !(e->flags & GEN_F_NO_SPECIAL)) {
    scalar_sample(g, "[32], float scalar 4.1 (rounds to the dtype)", SH(32), 0, 1, 4.1, 1); gen_commit(g);
    if (g->dt == TABI_DTYPE_FLOAT16 && sdom != GEN_DOM_EXP) {
      scalar_sample(g, "[32], float scalar 70000 (float16's inf)", SH(32), 0, 1, 70000.0, 1); gen_commit(g);
    }
  }
  if (e->flags & GEN_F_ALPHA) {
    scalar_sample(g, "alpha=2", SH(2, 3), 0, 0, iv, 0);
    gen_arg_int(g, 2, 2);
    gen_commit(g);
  }
  if (e->flags & GEN_F_ROUNDING) {
    static const char *const modes[] = {"trunc", "floor"};
    for (int m = 0; m < 2; m++) {
      scalar_sample(g, "rounding_mode", SH(3, 4), 0, 0, -3, 0);
      if (g->cur) snprintf(g->cur->name, sizeof g->cur->name, "rounding_mode=%s, int scalar", modes[m]);
      gen_arg_str(g, 2, modes[m]);
      gen_commit(g);
      scalar_sample(g, "rounding_mode", SH(16), 0, gen_is_float_like(g->dt) ? 1 : 0,
                    gen_is_float_like(g->dt) ? -1.5 : 2, 1);
      if (g->cur) snprintf(g->cur->name, sizeof g->cur->name, "rounding_mode=%s, special values", modes[m]);
      gen_arg_str(g, 2, modes[m]);
      gen_commit(g);
    }
    scalar_sample(g, "rounding_mode=None", SH(3, 4), 0, 0, 3, 0);
    gen_arg_none(g, 2);
    gen_commit(g);
  }
}

/* pow.Scalar(Scalar self, Tensor exponent): the scalar comes first. */
static void gen_pow_scalar(gen_ctx *g) {
  scalar_sample(g, "base 2, exponent [2, 3]", SH(2, 3), 0, 0, 2, 0); gen_commit(g);
  scalar_sample(g, "base 2, 0-d exponent", SH0, 0, 0, 2, 0); gen_commit(g);
  scalar_sample(g, "base 2, empty exponent", SH(0, 2), 0, 0, 2, 0); gen_commit(g);
  scalar_sample(g, "base 3, transposed exponent", SH(3, 4), GEN_L_T, 0, 3, 0); gen_commit(g);
  scalar_sample(g, "base 0.5 (promotes ints)", SH(2, 3), 0, 1, 0.5, 0); gen_commit(g);
  scalar_sample(g, "base -1.5, expanded", SH(3, 4), GEN_L_EXPAND, 1, -1.5, 0); gen_commit(g);
  scalar_sample(g, "base True", SH(2, 3), 0, 3, 1, 0); gen_commit(g);
  if (gen_is_float_like(g->dt)) {
    scalar_sample(g, "base 2.5, special exponents", SH(16), 0, 1, 2.5, 1); gen_commit(g);
    scalar_sample(g, "base 0, special exponents", SH(16), 0, 1, 0.0, 1); gen_commit(g);
  }
  scalar_sample(g, "complex base", SH(2, 3), 0, 2, 1.5, 0); gen_commit(g);
}

/* ---------------------------------------------------------------- ops with extras */

static void unary_with(gen_ctx *g, const char *name, gshape s, uint32_t layout) {
  gen_begin(g, "%s", name);
  gen_arg_t(g, 0, mk(g, g->dt, s, layout, g->e->a));
}

static void gen_gelu(gen_ctx *g) {
  gen_unary(g);
  unary_with(g, "approximate=\"tanh\"", SH(2, 5), 0); gen_arg_str(g, 1, "tanh"); gen_commit(g);
  unary_with(g, "approximate=\"tanh\", transposed", SH(3, 4), GEN_L_T); gen_arg_str(g, 1, "tanh"); gen_commit(g);
  unary_with(g, "approximate=\"none\"", SH(7), 0); gen_arg_str(g, 1, "none"); gen_commit(g);
  unary_with(g, "approximate=\"bogus\"", SH(3), 0); gen_arg_str(g, 1, "bogus");
  gen_flags(g, CONFORM_EXPECT_ERROR);
  gen_commit(g);
}

static void gen_elu(gen_ctx *g) {
  gen_unary(g);
  unary_with(g, "alpha=0.5, scale=2, input_scale=1.5", SH(2, 5), 0);
  gen_arg_float(g, 1, 0.5); gen_arg_float(g, 2, 2.0); gen_arg_float(g, 3, 1.5);
  gen_commit(g);
  unary_with(g, "alpha=2 (int)", SH(6), GEN_L_OFFSET);
  gen_arg_int(g, 1, 2);
  gen_commit(g);
  if (gen_is_float_like(g->dt) && !tabi_dtype_is_complex(g->dt)) {
    /* exp(-x * 1000) overflows float (and opmath float for the half types),
       not double: (inf - 1) * 0 is NaN below float64 */
    unary_with(g, "scale=0, input_scale=-1000: exp overflows", SH(6), 0);
    gen_arg_int(g, 1, 1); gen_arg_bool(g, 2, 0); gen_arg_float(g, 3, -1000.0);
    gen_commit(g);
    /* coefficients in opmath, not rounded to the half types */
    unary_with(g, "alpha=-1, scale=-2.66, input_scale=-2.18", SH(2, 4), 0);
    gen_arg_int(g, 1, -1); gen_arg_float(g, 2, -2.66); gen_arg_float(g, 3, -2.18);
    gen_commit(g);
    /* alpha * scale is taken in opmath: below float64, 1e-310 is 0 there and
       -inf * 0 is NaN; in float64 it is -inf */
    unary_with(g, "alpha=-inf, scale=1e-310: the product in opmath", SH(2, 3), 0);
    gen_arg_float(g, 1, -INFINITY); gen_arg_float(g, 2, 1e-310);
    gen_commit(g);
    /* x * input_scale rounds to opmath before the exponential: -0.06f * -1000
       is 60 in float (59.9999987 in double), and exp(60) amplifies the
       difference to 1.3e-6 of the result, past float32's tolerance */
    static const double near60[6] = {-0.06, -0.07, -0.0123, -0.08, 0.5, -0.0001};
    static const int64_t six[1] = {6};
    unary_with(g, "input_scale=-1000 on [-0.08, 0]: the product rounds before exp", SH(6), 0);
    if (g->cur) gen_arg_t(g, 0, gen_tensor_of(g, g->dt, 1, six, near60));
    gen_arg_int(g, 1, 1); gen_arg_int(g, 2, 1); gen_arg_float(g, 3, -1000.0);
    gen_commit(g);
  }
}

static void gen_hardtanh(gen_ctx *g) {
  if (g->dt == TABI_DTYPE_UINT8) { /* ATen refuses negative limits on unsigned types */
    unary_with(g, "uint8 with the default limits (-1, 1)", SH(2, 3), 0);
    gen_flags(g, CONFORM_EXPECT_ERROR);
    gen_commit(g);
  } else {
    gen_unary(g);
  }
  unary_with(g, "min_val=-0.5, max_val=2", SH(2, 5), 0);
  gen_arg_float(g, 1, -0.5); gen_arg_float(g, 2, 2.0);
  gen_commit(g);
  unary_with(g, "min_val=0, max_val=6 (ints)", SH(3, 4), GEN_L_T);
  gen_arg_int(g, 1, 0); gen_arg_int(g, 2, 6);
  gen_commit(g);
  /* a complex bound converts (checked) to a real one: imaginary part 0 only */
  unary_with(g, "min_val=False, max_val=(1.73-0j)", SH(2, 3), 0);
  gen_arg_bool(g, 1, 0); gen_arg_complex(g, 2, 1.73, -0.0);
  gen_commit(g);
  unary_with(g, "max_val=1+1j", SH(2), 0);
  gen_arg_int(g, 1, -1); gen_arg_complex(g, 2, 1.0, 1.0);
  gen_flags(g, CONFORM_EXPECT_ERROR);
  gen_commit(g);
  if (tabi_dtype_is_integral(g->dt, 0)) { /* the bounds convert to int64, checked */
    unary_with(g, "min_val=NaN (no int64)", SH(3), 0);
    gen_arg_float(g, 1, NAN); gen_arg_float(g, 2, 1.0);
    gen_flags(g, CONFORM_EXPECT_ERROR);
    gen_commit(g);
  }
}

static void gen_leaky_relu(gen_ctx *g) {
  gen_unary(g);
  unary_with(g, "negative_slope=0.2", SH(2, 5), 0); gen_arg_float(g, 1, 0.2); gen_commit(g);
  unary_with(g, "negative_slope=-1.5, transposed", SH(3, 4), GEN_L_T); gen_arg_float(g, 1, -1.5); gen_commit(g);
}

/* clamp(Tensor self, Scalar? min, Scalar? max) */
static void clamp_one(gen_ctx *g, const char *name, gshape s, uint32_t layout, int special,
                      int has_min, double mn, int has_max, double mx, int as_float) {
  gen_begin(g, "%s", name);
  tabi_tensor *t = mk(g, g->dt, s, layout, GEN_DOM_ANY);
  if (special) gen_specials(g, t, 0);
  gen_arg_t(g, 0, t);
  if (!has_min) gen_arg_none(g, 1);
  else if (as_float) gen_arg_float(g, 1, mn);
  else gen_arg_scalar_for(g, 1, g->dt == TABI_DTYPE_BOOL ? TABI_DTYPE_INT64 : g->dt, mn);
  if (!has_max) gen_arg_none(g, 2);
  else if (as_float) gen_arg_float(g, 2, mx);
  else gen_arg_scalar_for(g, 2, g->dt == TABI_DTYPE_BOOL ? TABI_DTYPE_INT64 : g->dt, mx);
}

static void gen_clamp(gen_ctx *g) {
  double lo = g->dt == TABI_DTYPE_UINT8 ? 2 : -1, hi = g->dt == TABI_DTYPE_UINT8 ? 6 : 1;
  clamp_one(g, "min and max", SH(2, 3), 0, 0, 1, lo, 1, hi, 0); gen_commit(g);
  clamp_one(g, "min only", SH(3, 4), GEN_L_T, 0, 1, lo, 0, 0, 0); gen_commit(g);
  clamp_one(g, "max only", SH(3, 4), GEN_L_STEP, 0, 0, 0, 1, hi, 0); gen_commit(g);
  clamp_one(g, "min > max", SH(5), 0, 0, 1, hi, 1, lo, 0); gen_commit(g);
  clamp_one(g, "0-d", SH0, 0, 0, 1, lo, 1, hi, 0); gen_commit(g);
  clamp_one(g, "empty", SH(0, 2), 0, 0, 1, lo, 1, hi, 0); gen_commit(g);
  clamp_one(g, "expanded + offset", SH(3, 4), GEN_L_EXPAND | GEN_L_OFFSET, 0, 1, lo, 1, hi, 0);
  gen_commit(g);
  clamp_one(g, "float bounds (promote ints)", SH(2, 3), 0, 0, 1, -0.5, 1, 2.5, 1); gen_commit(g);
  if (!(g->e->flags & GEN_F_NO_SPECIAL)) {
    clamp_one(g, "special values", SH(16), 0, 1, 1, lo, 1, hi, 0); gen_commit(g);
    if (gen_is_float_like(g->dt)) {
      clamp_one(g, "NaN bound", SH(6), 0, 0, 1, NAN, 1, hi, 1); gen_commit(g);
    }
    /* one NaN bound alone is ignored (with both, every element is NaN) */
    clamp_one(g, "NaN max alone (ignored)", SH(6), 0, 1, 0, 0, 1, NAN, 1); gen_commit(g);
  }
  clamp_one(g, "no bounds", SH(3), 0, 0, 0, 0, 0, 0, 0);
  gen_flags(g, CONFORM_EXPECT_ERROR);
  gen_commit(g);
}

/* clamp.Tensor(Tensor self, Tensor? min, Tensor? max) */
static void gen_clamp_tensor(gen_ctx *g) {
  struct { const char *name; gshape s, smin, smax; int has_min, has_max, special; } c[] = {
      {"min [2, 3], max [2, 3]", SH(2, 3), SH(2, 3), SH(2, 3), 1, 1, 0},
      {"broadcast min [3], max [2, 1]", SH(2, 3), SH(3), SH(2, 1), 1, 1, 0},
      {"min only, 0-d", SH(2, 3), SH0, SH0, 1, 0, 0},
      {"max only", SH(4), SH0, SH(4), 0, 1, 0},
      {"empty", SH(0, 3), SH(3), SH(3), 1, 1, 0},
      {"special values", SH(16), SH(16), SH(16), 1, 1, 1},
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    if (c[i].special && (g->e->flags & GEN_F_NO_SPECIAL)) continue;
    gen_begin(g, "%s", c[i].name);
    tabi_tensor *t = mk(g, g->dt, c[i].s, i == 1 ? GEN_L_T : 0, GEN_DOM_ANY);
    tabi_tensor *mn = c[i].has_min ? mk(g, g->dt, c[i].smin, 0, GEN_DOM_SMALL) : NULL;
    tabi_tensor *mx = c[i].has_max ? mk(g, g->dt, c[i].smax, 0, GEN_DOM_POS) : NULL;
    if (c[i].special) { gen_specials(g, t, 0); gen_specials(g, mn, 5); }
    gen_arg_t(g, 0, t);
    gen_arg_t(g, 1, mn);
    gen_arg_t(g, 2, mx);
    gen_commit(g);
  }
  gen_begin(g, "no bounds");
  gen_arg_t(g, 0, mk(g, g->dt, SH(3), 0, GEN_DOM_ANY));
  gen_arg_none(g, 1);
  gen_arg_none(g, 2);
  gen_flags(g, CONFORM_EXPECT_ERROR);
  gen_commit(g);
}

/* where.self(Tensor condition, Tensor self, Tensor other); prims::where(pred, a, b) */
static void where_one(gen_ctx *g, const char *name, gshape sc, gshape sa, uint32_t la, gshape sb,
                      tabi_dtype db, int special) {
  gen_begin(g, "%s", name);
  gen_arg_t(g, 0, mk(g, TABI_DTYPE_BOOL, sc, 0, GEN_DOM_ANY));
  tabi_tensor *a = mk(g, g->dt, sa, la, GEN_DOM_ANY);
  if (special) gen_specials(g, a, 0);
  gen_arg_t(g, 1, a);
  gen_arg_t(g, 2, mk(g, db, sb, 0, GEN_DOM_ANY));
  gen_commit(g);
}

static void gen_where(gen_ctx *g) {
  int prim = (g->e->flags & GEN_F_PRIM) != 0;
  where_one(g, "[2, 3]", SH(2, 3), SH(2, 3), 0, SH(2, 3), g->dt, 0);
  where_one(g, "transposed", SH(3, 4), SH(3, 4), GEN_L_T, SH(3, 4), g->dt, 0);
  where_one(g, "0-d", SH0, SH0, 0, SH0, g->dt, 0);
  where_one(g, "empty", SH(0, 3), SH(0, 3), 0, SH(0, 3), g->dt, 0);
  where_one(g, "special values", SH(16), SH(16), 0, SH(16), g->dt, 1);
  if (!prim) {
    where_one(g, "broadcast cond [3], self [2, 1], other 0-d", SH(3), SH(2, 1), 0, SH0, g->dt, 0);
    where_one(g, "mixed dtypes (other float64 0-d)", SH(2, 3), SH(2, 3), GEN_L_OFFSET, SH0,
              TABI_DTYPE_FLOAT64, 0);
    where_one(g, "expanded", SH(3, 4), SH(3, 4), GEN_L_EXPAND, SH(4), g->dt, 0);
    gen_begin(g, "shapes do not broadcast");
    gen_arg_t(g, 0, mk(g, TABI_DTYPE_BOOL, SH(2, 3), 0, GEN_DOM_ANY));
    gen_arg_t(g, 1, mk(g, g->dt, SH(4), 0, GEN_DOM_ANY));
    gen_arg_t(g, 2, mk(g, g->dt, SH(2, 3), 0, GEN_DOM_ANY));
    gen_flags(g, CONFORM_EXPECT_ERROR);
    gen_commit(g);
  }
}

/* ---------------------------------------------------------------- the table */

#define U(op, dom) {op, gen_unary, dom, 0, 0}
#define UP(op, dom) {op, gen_unary, dom, 0, GEN_F_PRIM}
#define B(op, da, db, fl) {op, gen_binary, da, db, fl}
#define BP(op, da, db, fl) {op, gen_binary, da, db, GEN_F_PRIM | (fl)}
#define S(op, da, db, fl) {op, gen_tensor_scalar, da, db, fl}
#define ANY GEN_DOM_ANY
#define CMP GEN_F_BOOL_OUT

const gen_entry gen_elementwise_table[] = {
    U("aten::abs", ANY), U("aten::acos", GEN_DOM_UNIT), U("aten::acosh", GEN_DOM_GE1),
    U("aten::asin", GEN_DOM_UNIT), U("aten::asinh", ANY), U("aten::atan", ANY),
    U("aten::atanh", GEN_DOM_UNIT), U("aten::bitwise_not", ANY), U("aten::ceil", ANY),
    U("aten::cos", ANY), U("aten::cosh", GEN_DOM_SMALL), U("aten::erf", ANY),
    U("aten::exp", ANY), U("aten::expm1", ANY), U("aten::floor", ANY), U("aten::isinf", ANY),
    U("aten::isnan", ANY), U("aten::log", GEN_DOM_POS), U("aten::log10", GEN_DOM_POS),
    U("aten::log1p", GEN_DOM_POS), U("aten::log2", GEN_DOM_POS), U("aten::logical_not", ANY),
    U("aten::neg", ANY), U("aten::reciprocal", GEN_DOM_DIVISOR), U("aten::relu", ANY),
    U("aten::round", ANY), U("aten::rsqrt", GEN_DOM_POS), U("aten::sigmoid", ANY),
    U("aten::sign", ANY), U("aten::sin", ANY), U("aten::sinh", GEN_DOM_SMALL),
    U("aten::sqrt", GEN_DOM_POS), U("aten::tan", GEN_DOM_SMALL), U("aten::tanh", ANY),
    U("aten::trunc", ANY),
    {"aten::gelu", gen_gelu, ANY, 0, 0},
    {"aten::elu", gen_elu, ANY, 0, 0},
    {"aten::hardtanh", gen_hardtanh, ANY, 0, 0},
    {"aten::leaky_relu", gen_leaky_relu, ANY, 0, 0},
    {"aten::clamp", gen_clamp, ANY, 0, 0},
    {"aten::clamp.Tensor", gen_clamp_tensor, ANY, 0, 0},
    {"aten::where.self", gen_where, ANY, 0, 0},
    {"prims::where", gen_where, ANY, 0, GEN_F_PRIM},
    {"aten::pow.Scalar", gen_pow_scalar, ANY, GEN_DOM_EXP, GEN_F_SCALAR_FIRST},

    B("aten::add.Tensor", ANY, ANY, GEN_F_ALPHA), B("aten::sub.Tensor", ANY, ANY, GEN_F_ALPHA),
    B("aten::mul.Tensor", ANY, ANY, 0), B("aten::div.Tensor", ANY, ANY, 0),
    B("aten::div.Tensor_mode", ANY, GEN_DOM_DIVISOR, GEN_F_ROUNDING | GEN_F_RHS_PLAIN),
    B("aten::atan2", ANY, ANY, 0), B("aten::atan2.out", ANY, ANY, GEN_F_OUT),
    B("aten::bitwise_and.Tensor", ANY, ANY, 0), B("aten::bitwise_or.Tensor", ANY, ANY, 0),
    B("aten::bitwise_xor.Tensor", ANY, ANY, 0),
    B("aten::eq.Tensor", GEN_DOM_TIES, GEN_DOM_TIES, CMP), B("aten::ne.Tensor", GEN_DOM_TIES, GEN_DOM_TIES, CMP),
    B("aten::ge.Tensor", GEN_DOM_TIES, GEN_DOM_TIES, CMP), B("aten::gt.Tensor", GEN_DOM_TIES, GEN_DOM_TIES, CMP),
    B("aten::le.Tensor", GEN_DOM_TIES, GEN_DOM_TIES, CMP), B("aten::lt.Tensor", GEN_DOM_TIES, GEN_DOM_TIES, CMP),
    B("aten::fmod.Tensor", ANY, GEN_DOM_DIVISOR, GEN_F_RHS_PLAIN),
    B("aten::remainder.Tensor", ANY, GEN_DOM_DIVISOR, GEN_F_RHS_PLAIN),
    B("aten::logical_and", GEN_DOM_TIES, GEN_DOM_TIES, CMP), B("aten::logical_or", GEN_DOM_TIES, GEN_DOM_TIES, CMP),
    B("aten::logical_xor", GEN_DOM_TIES, GEN_DOM_TIES, CMP),
    B("aten::maximum", GEN_DOM_TIES, ANY, 0), B("aten::minimum", GEN_DOM_TIES, ANY, 0),
    B("aten::pow.Tensor_Tensor", GEN_DOM_SMALL, GEN_DOM_EXP, GEN_F_RHS_PLAIN),

    S("aten::add.Scalar", ANY, ANY, GEN_F_ALPHA), S("aten::sub.Scalar", ANY, ANY, GEN_F_ALPHA),
    S("aten::mul.Scalar", ANY, ANY, 0), S("aten::div.Scalar", ANY, GEN_DOM_DIVISOR, 0),
    S("aten::div.Scalar_mode", ANY, GEN_DOM_DIVISOR, GEN_F_ROUNDING),
    S("aten::bitwise_and.Scalar", ANY, ANY, GEN_F_INT_ONLY),
    S("aten::bitwise_or.Scalar", ANY, ANY, GEN_F_INT_ONLY),
    S("aten::bitwise_xor.Scalar", ANY, ANY, GEN_F_INT_ONLY),
    S("aten::eq.Scalar", GEN_DOM_TIES, ANY, CMP), S("aten::ne.Scalar", GEN_DOM_TIES, ANY, CMP),
    S("aten::ge.Scalar", GEN_DOM_TIES, ANY, CMP), S("aten::gt.Scalar", GEN_DOM_TIES, ANY, CMP),
    S("aten::le.Scalar", GEN_DOM_TIES, ANY, CMP), S("aten::lt.Scalar", GEN_DOM_TIES, ANY, CMP),
    S("aten::fmod.Scalar", ANY, GEN_DOM_DIVISOR, 0),
    S("aten::remainder.Scalar", ANY, GEN_DOM_DIVISOR, 0),
    S("aten::pow.Tensor_Scalar", GEN_DOM_SMALL, GEN_DOM_EXP, 0),

    UP("prims::abs", ANY), UP("prims::acos", GEN_DOM_UNIT), UP("prims::acosh", GEN_DOM_GE1),
    UP("prims::asin", GEN_DOM_UNIT), UP("prims::asinh", ANY), UP("prims::atan", ANY),
    UP("prims::atanh", GEN_DOM_UNIT), UP("prims::bessel_i0", GEN_DOM_SMALL),
    UP("prims::bessel_i0e", ANY), UP("prims::bessel_i1", GEN_DOM_SMALL),
    UP("prims::bessel_i1e", ANY), UP("prims::bessel_j0", ANY), UP("prims::bessel_j1", ANY),
    UP("prims::bitwise_not", ANY), UP("prims::cbrt", ANY), UP("prims::ceil", ANY),
    UP("prims::conj_physical", ANY), UP("prims::cos", ANY), UP("prims::cosh", GEN_DOM_SMALL),
    UP("prims::digamma", GEN_DOM_POS), UP("prims::erf", ANY), UP("prims::erf_inv", GEN_DOM_UNIT),
    UP("prims::erfc", ANY), UP("prims::exp", ANY), UP("prims::exp2", ANY), UP("prims::expm1", ANY),
    UP("prims::floor", ANY), UP("prims::imag", ANY), UP("prims::isfinite", ANY),
    UP("prims::lgamma", ANY), UP("prims::log", GEN_DOM_POS), UP("prims::log10", GEN_DOM_POS),
    UP("prims::log1p", GEN_DOM_POS), UP("prims::log2", GEN_DOM_POS), UP("prims::neg", ANY),
    UP("prims::real", ANY), UP("prims::reciprocal", GEN_DOM_DIVISOR), UP("prims::round", ANY),
    UP("prims::rsqrt", GEN_DOM_POS), UP("prims::sign", ANY), UP("prims::signbit", ANY),
    UP("prims::sin", ANY), UP("prims::sinh", GEN_DOM_SMALL),
    UP("prims::spherical_bessel_j0", ANY), UP("prims::sqrt", GEN_DOM_POS),
    UP("prims::tan", GEN_DOM_SMALL), UP("prims::tanh", ANY), UP("prims::trunc", ANY),

    BP("prims::add", ANY, ANY, 0), BP("prims::sub", ANY, ANY, 0), BP("prims::mul", ANY, ANY, 0),
    BP("prims::div", ANY, GEN_DOM_DIVISOR, GEN_F_RHS_PLAIN), BP("prims::atan2", ANY, ANY, 0),
    BP("prims::bitwise_and", ANY, ANY, 0), BP("prims::bitwise_or", ANY, ANY, 0),
    BP("prims::bitwise_xor", ANY, ANY, 0),
    BP("prims::eq", GEN_DOM_TIES, GEN_DOM_TIES, CMP), BP("prims::ne", GEN_DOM_TIES, GEN_DOM_TIES, CMP),
    BP("prims::ge", GEN_DOM_TIES, GEN_DOM_TIES, CMP), BP("prims::gt", GEN_DOM_TIES, GEN_DOM_TIES, CMP),
    BP("prims::le", GEN_DOM_TIES, GEN_DOM_TIES, CMP), BP("prims::lt", GEN_DOM_TIES, GEN_DOM_TIES, CMP),
    BP("prims::fmax", GEN_DOM_TIES, ANY, 0), BP("prims::fmin", GEN_DOM_TIES, ANY, 0),
    BP("prims::maximum", GEN_DOM_TIES, ANY, 0), BP("prims::minimum", GEN_DOM_TIES, ANY, 0),
    BP("prims::fmod", ANY, GEN_DOM_DIVISOR, GEN_F_RHS_PLAIN),
    BP("prims::remainder", ANY, GEN_DOM_DIVISOR, GEN_F_RHS_PLAIN),
    BP("prims::gcd", ANY, ANY, 0), BP("prims::hypot", ANY, ANY, 0),
    BP("prims::igamma", GEN_DOM_POS, GEN_DOM_POS, 0), BP("prims::igammac", GEN_DOM_POS, GEN_DOM_POS, 0),
    BP("prims::nextafter", ANY, ANY, 0),
    BP("prims::pow", GEN_DOM_SMALL, GEN_DOM_EXP, GEN_F_RHS_PLAIN),
    BP("prims::shift_left", ANY, GEN_DOM_SHIFT, GEN_F_RHS_PLAIN),
    BP("prims::shift_right_arithmetic", ANY, GEN_DOM_SHIFT, GEN_F_RHS_PLAIN),
    BP("prims::zeta", GEN_DOM_GE1, GEN_DOM_POS, 0),
    {NULL, NULL, 0, 0, 0},
};
