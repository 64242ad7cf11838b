/* conformance/gen.h: what the sample generators (samples_*.c) share.
 *
 * conform_samples_generate (gen.c) finds the op in the generator table (the
 * gen_*_table arrays of the samples_*.c files), seeds a deterministic RNG from
 * (seed, op name, dtype) and runs the op's family generator, which appends
 * samples through the helpers below. Tensors are CPU tensors of the oracle
 * runtime; the sample owns them.
 *
 * Generator table format (one row per op; every op of the abi/ops schema files has one):
 *
 *   { "aten::log", gen_unary, GEN_DOM_POS, 0, 0 }
 *      op name    family     a            b  flags
 *
 *   family  the generator function (gen_family_fn). Families shared by many ops
 *           (unary, binary, tensor-scalar, reductions) read a/b/flags; ops with
 *           arguments of their own have a generator of their own in the family
 *           file, which may ignore them.
 *   a, b    family parameters: for elementwise families the value domain
 *           (GEN_DOM_*) of operand 0 and operand 1; for reductions the dim style
 *           (GEN_RED_*) and a family detail; see each family's comment.
 *   flags   GEN_F_* below.
 *
 * Errors: a helper that fails (out of memory, a runtime error) records the
 * first status in g->status and returns NULL; generators need not check every
 * call, the sample is dropped at gen_commit. Threading: a gen_ctx is one
 * thread's.
 */
#ifndef TABI_CONFORM_GEN_H
#define TABI_CONFORM_GEN_H

#include <stdint.h>

#include "sample.h"

/* Value domains: where a filled tensor's values lie (per dtype: integer dtypes
 * take the integers of the range, bool takes 0/1). */
#define GEN_DOM_ANY     0  /* floats in (-3, 3); ints -9..9 (uint8 0..15) */
#define GEN_DOM_POS     1  /* (0.1, 4); ints 1..9 */
#define GEN_DOM_UNIT    2  /* (-0.95, 0.95); ints -1..1 */
#define GEN_DOM_GE1     3  /* (1, 4); ints 1..5 */
#define GEN_DOM_DIVISOR 4  /* nonzero, |x| in (0.5, 3); ints +-2..9 (never 0 or -1) */
#define GEN_DOM_SMALL   5  /* (-1.5, 1.5); ints -3..3 */
#define GEN_DOM_EXP     6  /* floats (-2, 2); ints 0..4 (no negative integer powers) */
#define GEN_DOM_SHIFT   7  /* 0..6 in every dtype (shift counts within the width) */
#define GEN_DOM_PROB    8  /* (0.05, 0.95); ints 0..1 */
#define GEN_DOM_NONNEG  9  /* [0, 4); ints 0..9 */
#define GEN_DOM_TIES   10  /* few distinct values (-2..2, floats too): ties in sorts */
#define GEN_DOM_BIG    11  /* (-50, 50); ints -100..100 clamped to the dtype */

/* Layouts (bit set) for gen_tensor: how the view sits in its storage. */
#define GEN_L_CONTIG   0x0u
#define GEN_L_T        0x1u  /* last two dims transposed (storage in reverse order) */
#define GEN_L_STEP     0x2u  /* last dim taken with step 2 */
#define GEN_L_OFFSET   0x4u  /* storage offset of 3 elements */
#define GEN_L_EXPAND   0x8u  /* dim 0 expanded (stride 0); input only */

/* gen_entry.flags */
#define GEN_F_PRIM       0x01u /* prims: same shapes and dtypes, no broadcast or promotion */
#define GEN_F_NO_SPECIAL 0x02u /* no special-value sample (NaN/inf/extremes) */
#define GEN_F_ALPHA      0x04u /* add/sub: alpha variants (arg 2) */
#define GEN_F_ROUNDING   0x08u /* div *_mode: rounding_mode "trunc"/"floor"/None */
#define GEN_F_RHS_PLAIN  0x10u /* no special values in operand 1 (divisors, shifts) */
#define GEN_F_OUT        0x20u /* .out overload: the last argument is the out tensor */
#define GEN_F_INT_ONLY   0x40u /* bitwise: float scalars are not accepted */
#define GEN_F_BOOL_OUT   0x80u /* comparisons, logical ops: bool result */
#define GEN_F_SCALAR_FIRST 0x100u /* pow.Scalar: the Scalar comes before the Tensor */

typedef struct gen_ctx gen_ctx;
typedef void (*gen_family_fn)(gen_ctx *g);

typedef struct gen_entry {
  const char *op;       /* "aten::add.Tensor" */
  gen_family_fn family;
  int32_t a, b;         /* family parameters (see the table format above) */
  uint32_t flags;       /* GEN_F_* */
} gen_entry;

struct gen_ctx {
  tabi_runtime *rt;
  const tabi_op_info *op;
  const gen_entry *e;
  tabi_dtype dt;          /* the dtype under test */
  uint64_t rng;           /* splitmix64 state */
  conform_sample_list *list;
  conform_sample *cur;    /* the sample being built (heap, not yet in the list) */
  tabi_status status;     /* first failure; 0 when none */
};

/* The tables of the family files, each ended by a row with op == NULL. */
extern const gen_entry gen_elementwise_table[];
extern const gen_entry gen_reduce_table[];
extern const gen_entry gen_shape_table[];
extern const gen_entry gen_index_table[];
extern const gen_entry gen_create_table[];
extern const gen_entry gen_nn_table[];
extern const gen_entry gen_nn2_table[];
extern const gen_entry gen_fft_table[];

/* The row of `op_name`, or NULL. */
const gen_entry *gen_find_entry(const char *op_name);

/* --- RNG ------------------------------------------------------------------ */
uint64_t gen_next(gen_ctx *g);                 /* splitmix64 */
double gen_uniform(gen_ctx *g, double lo, double hi);
int64_t gen_int(gen_ctx *g, int64_t lo, int64_t hi); /* inclusive */

/* --- samples ---------------------------------------------------------------
 * gen_begin starts a sample (every arg TABI_TAG_DEFAULT, nargs 0); the arg
 * setters fill position i (nargs grows to cover it); gen_commit appends it to
 * the list (or drops it when a helper failed). One sample at a time. */
conform_sample *gen_begin(gen_ctx *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void gen_commit(gen_ctx *g);
void gen_flags(gen_ctx *g, uint32_t flags);
void gen_tol(gen_ctx *g, double rtol, double atol, const char *reason);

/* Tensor argument: the sample takes the reference (NULL: NONE, i.e. None). */
void gen_arg_t(gen_ctx *g, int32_t i, tabi_tensor *t);
/* Tensor list argument; entries may be NULL (Tensor?[]); takes the references. */
void gen_arg_tl(gen_ctx *g, int32_t i, int32_t n, tabi_tensor *const *ts);
void gen_arg_int(gen_ctx *g, int32_t i, int64_t v);
void gen_arg_float(gen_ctx *g, int32_t i, double v);
void gen_arg_bool(gen_ctx *g, int32_t i, int v);
void gen_arg_complex(gen_ctx *g, int32_t i, double re, double im);
void gen_arg_none(gen_ctx *g, int32_t i);
void gen_arg_dtype(gen_ctx *g, int32_t i, tabi_dtype d);
void gen_arg_cpu(gen_ctx *g, int32_t i);
void gen_arg_str(gen_ctx *g, int32_t i, const char *s);
void gen_arg_ints(gen_ctx *g, int32_t i, int32_t n, const int64_t *v);
void gen_arg_bools(gen_ctx *g, int32_t i, int32_t n, const int64_t *v);
void gen_arg_floats(gen_ctx *g, int32_t i, int32_t n, const double *v);
/* A Scalar argument of the natural kind for dtype d: bool for bool, int for
 * integers, float for floats, complex for complex. */
void gen_arg_scalar_for(gen_ctx *g, int32_t i, tabi_dtype d, double v);

/* --- tensors ---------------------------------------------------------------- */
/* A tensor of `dt` and `shape` in layout `layout` (GEN_L_*), values in `dom`. */
tabi_tensor *gen_tensor(gen_ctx *g, tabi_dtype dt, int32_t ndim, const int64_t *shape,
                        uint32_t layout, int32_t dom);
/* Shorthand for the dtype under test, contiguous. */
tabi_tensor *gen_t(gen_ctx *g, int32_t ndim, const int64_t *shape, int32_t dom);
/* A contiguous tensor holding `values` (converted to dt). */
tabi_tensor *gen_tensor_of(gen_ctx *g, tabi_dtype dt, int32_t ndim, const int64_t *shape,
                           const double *values);
/* int64 (or `dt`) index tensor with values in [lo, hi]. */
tabi_tensor *gen_index(gen_ctx *g, tabi_dtype dt, int32_t ndim, const int64_t *shape,
                       int64_t lo, int64_t hi);
/* Overwrites elements of t (cyclically, from element `start`) with the special
 * values of its dtype: NaN, +-inf, -0.0, subnormals, the largest finite value,
 * halfway cases; integer min/max, 0, -1, 1. */
void gen_specials(gen_ctx *g, tabi_tensor *t, int64_t start);
/* As gen_specials without the largest finite values: for reductions and norms,
 * where max + (-max) + x has no single right answer (it depends on the order of
 * accumulation), so such a sample would test the order, not the op. */
void gen_specials_no_max(gen_ctx *g, tabi_tensor *t, int64_t start);
/* Writes one value (as double, complex imaginary part 0) at row-major index. */
void gen_set(tabi_tensor *t, int64_t linear, double v);

/* Shape helpers: SHAPE(2, 3) expands to `2, (const int64_t[]){2, 3}`. */
#define GEN_S(...) ((const int64_t[]){__VA_ARGS__})
#define GEN_SHAPE(...) (int32_t)(sizeof GEN_S(__VA_ARGS__) / sizeof(int64_t)), GEN_S(__VA_ARGS__)
#define GEN_SHAPE0 0, (const int64_t *)0

/* Special-value helpers. */
double gen_dtype_max(tabi_dtype d); /* largest finite / integer max */
double gen_dtype_min(tabi_dtype d); /* lowest finite / integer min */
int gen_is_float_like(tabi_dtype d); /* floating or complex */

/* Shared family generators (samples_elementwise.c), for other files' rows. */
void gen_unary(gen_ctx *g);
void gen_binary(gen_ctx *g);
void gen_tensor_scalar(gen_ctx *g);

#endif /* TABI_CONFORM_GEN_H */
