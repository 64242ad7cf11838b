/* plugins/autograd/ag.h: what the parts of the autograd plugin share.
 *
 * One ag_state per runtime the plugin is loaded into (no globals: the plugin may
 * live in several runtimes of one process). Per-tensor state (ag_meta) lives in a
 * tensor slot; graph nodes (ag_node) are refcounted and point backward only
 * (node -> inputs' nodes), so there are no cycles: a node never holds its own
 * outputs, only alias views of them without autograd state.
 */
#ifndef TABI_AG_H
#define TABI_AG_H

#include <stdatomic.h>
#include <stdint.h>

#include <tabi/tabi.h>
#include <tabi/ext_autograd.h>

typedef tabi_tensor *T;

/* Op handles the formulas call, looked up once at init. */
#define AG_OPS(X)                                                       \
  X(ADD, "aten::add.Tensor") X(SUB, "aten::sub.Tensor") X(MUL, "aten::mul.Tensor") \
  X(DIV, "aten::div.Tensor") X(NEG, "aten::neg") X(MULS, "aten::mul.Scalar")      \
  X(ADDS, "aten::add.Scalar") X(DIVS, "aten::div.Scalar") X(EXP, "aten::exp")     \
  X(LOG, "aten::log") X(SQRT, "aten::sqrt") X(RSQRT, "aten::rsqrt") X(SIGN, "aten::sign") \
  X(SIN, "aten::sin") X(COS, "aten::cos") X(SINH, "aten::sinh") X(COSH, "aten::cosh") \
  X(TANH, "aten::tanh") X(ERF, "aten::erf") X(RECIP, "aten::reciprocal")          \
  X(POWTS, "aten::pow.Tensor_Scalar") X(POWTT, "aten::pow.Tensor_Tensor")         \
  X(TRUNC, "aten::trunc") X(FLOOR, "aten::floor") X(ABS, "aten::abs")             \
  X(WHERE, "aten::where.self") X(EQ, "aten::eq.Tensor") X(EQS, "aten::eq.Scalar") \
  X(GT, "aten::gt.Tensor") X(GTS, "aten::gt.Scalar") X(LT, "aten::lt.Tensor")     \
  X(LTS, "aten::lt.Scalar") X(GE, "aten::ge.Tensor") X(GES, "aten::ge.Scalar")    \
  X(LE, "aten::le.Tensor") X(LES, "aten::le.Scalar") X(NE, "aten::ne.Tensor")     \
  X(LAND, "aten::logical_and") X(LOR, "aten::logical_or") X(LNOT, "aten::logical_not") \
  X(ISNAN, "aten::isnan")                                                         \
  X(SUM, "aten::sum.dim_IntList") X(MEAN, "aten::mean.dim") X(PROD, "aten::prod.dim_int") \
  X(CUMSUM, "aten::cumsum") X(AMAX, "aten::amax")                                 \
  X(FULL_LIKE, "aten::full_like") X(FULL, "aten::full") X(SCALAR_TENSOR, "aten::scalar_tensor") \
  X(TO_COPY, "aten::_to_copy") X(CLONE, "aten::clone") X(ARANGE, "aten::arange.start_step") \
  X(VIEW, "aten::view") X(RESHAPE, "prims::reshape") X(EXPAND, "aten::expand")    \
  X(PERMUTE, "aten::permute") X(UNSQUEEZE, "aten::unsqueeze") X(SQUEEZE, "aten::squeeze.dim") \
  X(SELECT, "aten::select.int") X(SLICE, "aten::slice.Tensor") X(FLIP, "aten::flip") \
  X(CAT, "aten::cat") X(DIAGONAL, "aten::diagonal") X(COPY_TO, "prims::copy_to")  \
  X(SELECT_SCATTER, "aten::select_scatter") X(SLICE_SCATTER, "aten::slice_scatter") \
  X(GATHER, "aten::gather") X(SCATTER, "aten::scatter.src") X(SCATTERV, "aten::scatter.value") \
  X(SCATTER_ADD, "aten::scatter_add") X(INDEX, "aten::index.Tensor")              \
  X(INDEX_PUT, "aten::index_put") X(INDEX_SELECT, "aten::index_select")           \
  X(CONST_PAD, "aten::constant_pad_nd") X(MM, "aten::mm") X(BMM, "aten::bmm")     \
  X(CONV_BWD, "aten::convolution_backward")                                       \
  X(MAXPOOL2D_BWD, "aten::max_pool2d_with_indices_backward")                      \
  X(AVGPOOL2D, "aten::avg_pool2d") X(AVGPOOL2D_BWD, "aten::avg_pool2d_backward")  \
  X(ADAPOOL2D, "aten::_adaptive_avg_pool2d")                                      \
  X(ADAPOOL2D_BWD, "aten::_adaptive_avg_pool2d_backward")                         \
  X(LN_BWD, "aten::native_layer_norm_backward") X(GN_BWD, "aten::native_group_norm_backward") \
  X(EMB_BWD, "aten::embedding_dense_backward") X(EMBEDDING, "aten::embedding")    \
  X(DIGAMMA, "prims::digamma") X(I0, "prims::bessel_i0") X(I1, "prims::bessel_i1") \
  X(I0E, "prims::bessel_i0e") X(I1E, "prims::bessel_i1e") X(J0, "prims::bessel_j0") \
  X(J1, "prims::bessel_j1") X(LOG1P, "aten::log1p")                              \
  X(CONV, "aten::convolution") X(SCATTER_REDUCE, "aten::scatter_reduce.two")      \
  X(ZETA, "prims::zeta") X(LGAMMA, "prims::lgamma") X(ROUND, "aten::round")       \
  X(FMODS, "aten::fmod.Scalar") X(CLAMP, "aten::clamp") X(SPH_J0, "prims::spherical_bessel_j0") \
  X(REAL, "prims::real") X(IMAG, "prims::imag") X(FFT_C2C, "prims::fft_c2c")       \
  X(FFT_R2C, "prims::fft_r2c") X(FFT_C2R, "prims::fft_c2r")                       \
  X(AFFT_R2C, "aten::_fft_r2c") X(AFFT_C2R, "aten::_fft_c2r") X(NES, "aten::ne.Scalar")        \
  X(ANY, "aten::any") X(LOCAL_SCALAR, "aten::_local_scalar_dense")                \
  X(CONJ, "prims::conj_physical")

enum {
#define AG_ENUM(id, name) AG_OP_##id,
  AG_OPS(AG_ENUM)
#undef AG_ENUM
  AG_OP_COUNT
};

struct ag_node;
struct ag_fctx;

/* A version counter, shared by a tensor and the views recorded from it. */
typedef struct ag_vc {
  atomic_int refs;
  atomic_uint version;
  const char *last_op; /* the op that last bumped it (static string of the runtime) */
} ag_vc;

/* Per-tensor autograd state, kept in the plugin's tensor slot. Refcounted: the
 * slot holds one reference, a node that must fill a retained grad holds one. */
typedef struct ag_meta {
  atomic_int refs;
  struct ag_state *st;
  int32_t requires_grad;
  int32_t retains_grad;
  int32_t view_of_grad;    /* a recorded view of a tensor that requires grad */
  int32_t output_nr;
  struct ag_node *grad_fn; /* NULL for a leaf */
  tabi_tensor *grad;       /* accumulated gradient */
  ag_vc *vc;
} ag_meta;

/* Where a gradient goes: another node's output, or a leaf's .grad. */
typedef struct ag_edge {
  struct ag_node *node; /* retained; NULL for a leaf or no edge */
  int32_t nr;
  tabi_tensor *leaf;    /* retained; the leaf to accumulate into */
} ag_edge;

/* Metadata of an input or output, to validate/materialize gradients. */
typedef struct ag_tmeta {
  tabi_dtype dtype;
  int32_t ndim;
  DLDevice device;
  int64_t shape[8];
  int64_t *big_shape; /* when ndim > 8 */
} ag_tmeta;

typedef tabi_status (*ag_formula_fn)(struct ag_fctx *c);

/* A derivative formula. flags: AG_F_* */
#define AG_F_SAVE_OUTPUTS 0x1 /* the formula reads the op's outputs */
#define AG_F_NO_GRAD      0x2 /* outputs never require grad (full_like, ...) */
#define AG_F_IGNORE_MUT   0x4 /* a `(a!)` that is really a view (prims::as_strided) */
#define AG_F_SAVE_MUTABLE 0x8 /* saves `(a!)` args too (batch norm's running stats) */
typedef struct ag_formula {
  const char *op;
  ag_formula_fn fn;
  uint32_t flags;
  uint32_t nodiff_outs; /* bit k: output k never requires grad (norms' mean/rstd) */
} ag_formula;

typedef struct ag_saved {
  ag_vc *vc;       /* retained */
  uint32_t version;
} ag_saved;

typedef struct ag_node {
  atomic_int refs;
  struct ag_state *st;
  tabi_op op;
  const char *name;
  const ag_formula *f;  /* NULL: not differentiable (backward errors) */
  int32_t nargs;
  tabi_value *args;     /* deep copies; tensors retained (mutable args: NONE) */
  int32_t nout;
  tabi_tensor **saved_out; /* alias views of outputs (AG_F_SAVE_OUTPUTS) */
  ag_tmeta *out_meta;
  ag_meta **retain;     /* per output: meta of a tensor with retain_grad */
  int32_t nin;
  ag_edge *next;        /* per input slot */
  ag_tmeta *in_meta;
  int32_t *arg_slot;    /* first input slot of each arg, -1 for non-tensors */
  int32_t nsaved;
  ag_saved *saved;
  int32_t released;
  /* engine scratch, valid during one backward */
  uint64_t epoch;
  int32_t deps;
  tabi_tensor **buf;
} ag_node;

typedef struct ag_state {
  const tabi_host_api *h;
  uint64_t key;
  int32_t slot;
  tabi_op op[AG_OP_COUNT];
  int32_t nformulas;       /* size of by_op */
  const ag_formula **by_op;
  atomic_ullong epoch;
  tabi_autograd_api ext;
} ag_state;

/* The context a formula runs in. Helpers (ag_ops.c) return NULL on error with
 * c->status set; a NULL argument after an error propagates it, so formulas read
 * straight through and return c->status. Every helper result is a temporary
 * released when the formula ends; GIN() keeps one as an input's gradient. */
typedef struct ag_fctx {
  ag_state *st;
  ag_node *node;
  tabi_value *args;
  tabi_tensor **outs;   /* saved outputs (unpacked) or NULL */
  tabi_tensor **gout;   /* per output: incoming grad or NULL (zero) */
  tabi_tensor **gin;    /* per input slot: result, new refs */
  tabi_status status;
  int32_t ntmp, captmp;
  tabi_tensor **tmp;
} ag_fctx;

/* --- meta (ag_meta.c) --- */
ag_meta *ag_meta_get(ag_state *st, const tabi_tensor *t);
/* Creates the meta when absent (and gives the tensor the layer's key). */
ag_meta *ag_meta_ensure(ag_state *st, tabi_tensor *t);
int32_t ag_requires_grad(ag_state *st, const tabi_tensor *t);
void ag_meta_unref(ag_meta *m);
ag_vc *ag_vc_new(void);
void ag_vc_ref(ag_vc *vc);
void ag_vc_unref(ag_vc *vc);
void ag_node_ref(ag_node *n);
void ag_node_unref(ag_node *n);
void ag_node_release_saved(ag_node *n);
void ag_tmeta_set(ag_tmeta *m, const tabi_tensor *t);
const int64_t *ag_tmeta_shape(const ag_tmeta *m);
int64_t ag_tmeta_numel(const ag_tmeta *m);
void ag_tmeta_clear(ag_tmeta *m);
int32_t ag_set_grad_enabled(ag_state *st, int32_t enabled);
int32_t ag_grad_enabled(ag_state *st);

/* --- the layer kernel (ag_record.c) --- */
tabi_status ag_kernel(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
const ag_formula *ag_formula_for(ag_state *st, tabi_op op);

/* --- engine (ag_engine.c) --- */
tabi_status ag_run_backward(ag_state *st, int32_t n, tabi_tensor *const *roots,
                            tabi_tensor *const *grad_outputs, int32_t n_inputs,
                            tabi_tensor *const *inputs, int32_t retain_graph,
                            int32_t create_graph, tabi_tensor **out_grads);

/* --- formula tables (ag_f_*.c) --- */
extern const ag_formula ag_formulas_pointwise[];
extern const ag_formula ag_formulas_shape[];
extern const ag_formula ag_formulas_reduce[];
extern const ag_formula ag_formulas_nn[];
extern const ag_formula ag_formulas_nn2[];     /* col2im, pdist, embedding_bag, *_backward ops */
extern const ag_formula ag_formulas_grid[];    /* grid_sampler_2d */
extern const ag_formula ag_formulas_special[]; /* digamma, zeta, igamma(c), nextafter, j0 */
extern const ag_formula ag_formulas_linalg[];  /* svd, fft */

/* --- helpers for formulas (ag_ops.c) --- */
T ag_keep(ag_fctx *c, T t); /* registers a new reference as a temporary */
T ag_call_t(ag_fctx *c, int32_t opid, tabi_value *args, int32_t nargs);
tabi_status ag_call_n(ag_fctx *c, int32_t opid, tabi_value *args, int32_t nargs, T *outs,
                      int32_t nouts);
T ag_u(ag_fctx *c, int32_t opid, T a);
T ag_b(ag_fctx *c, int32_t opid, T a, T b);
T ag_bs(ag_fctx *c, int32_t opid, T a, double s); /* Tensor-Scalar ops */
T ag_muls(ag_fctx *c, T a, double s);
T ag_adds(ag_fctx *c, T a, double s);
T ag_where(ag_fctx *c, T cond, T a, T b);
T ag_zero_s(ag_fctx *c, T like); /* 0-d zero of like's dtype and device */
T ag_zeros_like(ag_fctx *c, T like);
T ag_full_like(ag_fctx *c, T like, double v);
T ag_zeros(ag_fctx *c, const ag_tmeta *m);
T ag_zeros_shape(ag_fctx *c, T like, int32_t ndim, const int64_t *shape);
T ag_to_dtype(ag_fctx *c, T a, tabi_dtype dtype);
/* conj(a) for a complex a; a itself otherwise. Complex gradients follow
 * PyTorch: grad_in = grad_out * conj(f'(z)) for a holomorphic f, so every
 * derivative factor a formula multiplies by goes through this. */
T ag_conj(ag_fctx *c, T a);
/* a * conj(s) for a Scalar s (a complex one stays complex); NONE counts as 1. */
T ag_muls_conj(ag_fctx *c, T a, const tabi_value *s);
T ag_sum(ag_fctx *c, T a, const int64_t *dims, int32_t ndims, int32_t keepdim); /* ndims<0: all */
T ag_reshape(ag_fctx *c, T a, int32_t ndim, const int64_t *shape);
T ag_expand(ag_fctx *c, T a, int32_t ndim, const int64_t *shape);
T ag_permute(ag_fctx *c, T a, int32_t ndim, const int64_t *dims);
T ag_transpose2(ag_fctx *c, T a); /* swaps the last two dims */
T ag_unsqueeze(ag_fctx *c, T a, int64_t dim);
/* arange(0, n * step, step) as int64 on `dev` (step > 0). */
T ag_arange_i64(ag_fctx *c, int64_t n, int64_t step, DLDevice dev);
T ag_index_select(ag_fctx *c, T a, int64_t dim, T idx);
T ag_mm_batched(ag_fctx *c, T a, T b); /* matmul of [..., m, k] and [..., k, n], same batch */
/* d ||diff||_p / d diff times gd, for distances dd (ATen's cdist/pdist backward
 * per p: 0, 1, 2, inf, general; 0 where the distance is 0). ag_f_nn2.c */
T ag_pnorm_weight(ag_fctx *c, T diff, T gd, T dd, double p);
T ag_sum_to(ag_fctx *c, T g, int32_t ndim, const int64_t *shape);
/* grad of a reduction: g (reduced over dims, keepdim or not) expanded back to
 * `ndim`/`shape`. dims NULL / ndims < 0: all dims. */
T ag_expand_reduced(ag_fctx *c, T g, int32_t ndim, const int64_t *shape, const int64_t *dims,
                    int32_t ndims, int32_t keepdim);
T ag_gout_or_zeros(ag_fctx *c, int32_t i);
void ag_gin(ag_fctx *c, int32_t slot, T g);
int32_t ag_need(ag_fctx *c, int32_t slot);
/* Argument accessors. */
T ag_arg_t(ag_fctx *c, int32_t i);
double ag_arg_f(ag_fctx *c, int32_t i);
int64_t ag_arg_i(ag_fctx *c, int32_t i);
int32_t ag_arg_none(ag_fctx *c, int32_t i);
tabi_status ag_fail(ag_fctx *c, tabi_status s, const char *fmt, ...);
int64_t ag_wrap_dim(int64_t d, int32_t ndim);

#define A(i) ag_arg_t(c, (i))
#define G(i) ((c)->gout[(i)])
#define OUT(i) ((c)->outs[(i)])
#define NEED(i) ag_need(c, (i))
#define SLOT(i) ((c)->node->arg_slot[(i)])
#define NEEDA(i) (SLOT(i) >= 0 && ag_need(c, SLOT(i)))
#define GINA(i, g) ag_gin(c, SLOT(i), (g))

#endif /* TABI_AG_H */
