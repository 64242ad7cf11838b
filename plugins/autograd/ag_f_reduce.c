/* ag_f_reduce.c: derivative formulas of reductions, scans, sorting and
 * softmax (aten and prims), after ATen's derivatives.yaml. */
#include "ag.h"

#define F(name) static tabi_status name(ag_fctx *c)
#define U(op, a) ag_u(c, AG_OP_##op, (a))
#define B(op, a, b) ag_b(c, AG_OP_##op, (a), (b))
#define MUL(a, b) B(MUL, a, b)
#define DIV(a, b) B(DIV, a, b)
#define SUB(a, b) B(SUB, a, b)
#define MULS(a, s) ag_muls(c, (a), (s))
#define WHERE(p, a, b) ag_where(c, (p), (a), (b))
#define Z(like) ag_zero_s(c, (like))
#define IN_META(i) (&c->node->in_meta[SLOT(i)])
#define IN_NDIM(i) (IN_META(i)->ndim)
#define IN_SHAPE(i) ag_tmeta_shape(IN_META(i))

static int32_t dims_list(const tabi_value *v, const int64_t **out);

/* Dims of a reduction argument: -1 (all) for None or an empty list. */
static int32_t dims_of(ag_fctx *c, int32_t i, const int64_t **out) {
  const tabi_value *v = &c->args[i];
  *out = NULL;
  if (v->tag == TABI_TAG_INT) { *out = &v->u.i; return 1; }
  if (v->tag != TABI_TAG_INT_LIST || v->u.list.len == 0) return -1;
  return dims_list(v, out);
}

/* prims reductions: None is every dim, [] is none (the identity). */
static int32_t prims_dims(ag_fctx *c, int32_t i, const int64_t **out) {
  const tabi_value *v = &c->args[i];
  *out = NULL;
  if (v->tag != TABI_TAG_INT_LIST) return -1;
  if (v->u.list.len == 0) return 0;
  return dims_list(v, out);
}

static int32_t dims_list(const tabi_value *v, const int64_t **out) {
  *out = tabi_value_ints(v);
  return (int32_t)v->u.list.len;
}


static double reduced_count(ag_fctx *c, int32_t arg, const int64_t *dims, int32_t nd) {
  int32_t ndim = IN_NDIM(arg);
  const int64_t *shape = IN_SHAPE(arg);
  double n = 1.0;
  if (nd < 0) {
    for (int32_t i = 0; i < ndim; i++) n *= (double)shape[i];
    return n;
  }
  int seen[64] = {0};
  for (int32_t k = 0; k < nd; k++) {
    int64_t d = ag_wrap_dim(dims[k], ndim);
    if (d >= 0 && d < ndim && d < 64 && !seen[d]) { seen[d] = 1; n *= (double)shape[d]; }
  }
  return n;
}

/* sum-like: args (self, dims at `darg`, keepdim at `karg` or -1). */
static tabi_status sum_like(ag_fctx *c, int32_t darg, int32_t karg, int32_t mean) {
  if (!NEEDA(0)) return c->status;
  const int64_t *dims;
  int32_t nd = darg >= 0 ? dims_of(c, darg, &dims) : -1;
  if (darg < 0) dims = NULL;
  int32_t keep = karg >= 0 ? (int32_t)ag_arg_i(c, karg) : 0;
  T g = ag_expand_reduced(c, G(0), IN_NDIM(0), IN_SHAPE(0), dims, nd, keep);
  if (mean) g = MULS(g, 1.0 / reduced_count(c, 0, dims, nd));
  GINA(0, g);
  return c->status;
}
F(f_sum_dim) { return sum_like(c, 1, 2, 0); }
static int prims_identity(ag_fctx *c) {
  const int64_t *d;
  if (prims_dims(c, 1, &d) != 0) return 0;
  if (NEEDA(0)) GINA(0, G(0));
  return 1;
}
F(f_prims_sum) { if (prims_identity(c)) return c->status; return sum_like(c, 1, -1, 0); }
F(f_mean) { return sum_like(c, -1, -1, 1); }
F(f_mean_dim) { return sum_like(c, 1, 2, 1); }

/* amax/amin: ties share the gradient evenly, as ATen does. */
static tabi_status amax_like(ag_fctx *c, int32_t keep) {
  if (!NEEDA(0)) return c->status;
  const int64_t *dims;
  int32_t nd = dims_of(c, 1, &dims);
  int32_t ndim = IN_NDIM(0);
  const int64_t *shape = IN_SHAPE(0);
  T x = A(0);
  T y = ag_expand_reduced(c, OUT(0), ndim, shape, dims, nd, keep);
  T mask = B(EQ, y, x);
  T cnt = ag_sum(c, ag_to_dtype(c, mask, tabi_tensor_dtype(x)), dims, nd, 1);
  T g = ag_expand_reduced(c, G(0), ndim, shape, dims, nd, keep);
  GINA(0, WHERE(mask, DIV(g, cnt), Z(g)));
  return c->status;
}
F(f_amax) { return amax_like(c, (int32_t)ag_arg_i(c, 2)); }
F(f_prims_amax) { if (prims_identity(c)) return c->status; return amax_like(c, 0); }

/* Gradients of value-selecting ops (max.dim, sort, topk): scattered back
 * through the indices output. */
static tabi_status select_back(ag_fctx *c, int64_t dim, int32_t keep) {
  if (!NEEDA(0) || !G(0)) return c->status;
  int32_t ndim = IN_NDIM(0);
  if (ndim == 0) { GINA(0, G(0)); return c->status; }
  dim = ag_wrap_dim(dim, ndim);
  T g = G(0), idx = OUT(1);
  if (!keep) { g = ag_unsqueeze(c, g, dim); idx = ag_unsqueeze(c, idx, dim); }
  T z = ag_zeros(c, IN_META(0));
  tabi_value a[4] = {tabi_tensor_value(z), tabi_int(dim), tabi_tensor_value(idx), tabi_tensor_value(g)};
  if (!z || !idx || !g) return c->status;
  GINA(0, ag_call_t(c, AG_OP_SCATTER, a, 4));
  return c->status;
}
F(f_max_dim) { return select_back(c, ag_arg_i(c, 1), (int32_t)ag_arg_i(c, 2)); }
F(f_sort) { return select_back(c, ag_arg_i(c, 1), 1); }
F(f_topk) { return select_back(c, ag_arg_i(c, 2), 1); }

/* var: 2 (x - mean) / (N - correction) times the expanded gradient. */
static tabi_status var_like(ag_fctx *c, double corr, int32_t keep) {
  if (!NEEDA(0)) return c->status;
  const int64_t *dims;
  int32_t nd = dims_of(c, 1, &dims);
  T x = A(0);
  double n = reduced_count(c, 0, dims, nd);
  tabi_value ma[3] = {tabi_tensor_value(x), nd < 0 ? tabi_none() : tabi_int_list(dims, nd), tabi_bool(1)};
  T mean = ag_call_t(c, AG_OP_MEAN, ma, 3);
  T g = ag_expand_reduced(c, G(0), IN_NDIM(0), IN_SHAPE(0), dims, nd, keep);
  GINA(0, MUL(g, MULS(SUB(x, mean), 2.0 / (n - corr))));
  return c->status;
}
F(f_var_correction) {
  double corr = ag_arg_none(c, 2) ? 1.0 : (double)ag_arg_i(c, 2);
  return var_like(c, corr, (int32_t)ag_arg_i(c, 3));
}
F(f_var_dim) { return var_like(c, ag_arg_i(c, 2) ? 1.0 : 0.0, (int32_t)ag_arg_i(c, 3)); }
F(f_prims_var) {
  const int64_t *d;
  if (prims_dims(c, 1, &d) == 0) { if (NEEDA(0)) GINA(0, ag_zeros_like(c, G(0))); return c->status; }
  return var_like(c, (double)ag_arg_i(c, 2), 0);
}

/* prod over dims (keepdim), one dim at a time. */
static T prod_keep(ag_fctx *c, T x, const int64_t *dims, int32_t nd) {
  if (!x) return NULL;
  int32_t ndim = x->dl.ndim;
  if (ndim == 0) return x;
  for (int32_t k = 0; k < (nd < 0 ? ndim : nd); k++) {
    int64_t d = nd < 0 ? k : ag_wrap_dim(dims[k], ndim);
    tabi_value a[3] = {tabi_tensor_value(x), tabi_int(d), tabi_bool(1)};
    x = ag_call_t(c, AG_OP_PROD, a, 3);
    if (!x) return NULL;
  }
  return x;
}

/* prod: exact with zeros: one zero gets the product of the others, two or more
 * zeros give zero everywhere (ATen's prod_backward). */
static tabi_status prod_like(ag_fctx *c, const int64_t *dims, int32_t nd, int32_t keep) {
  if (!NEEDA(0)) return c->status;
  T x = A(0);
  if (!x) return c->status;
  tabi_dtype dt = tabi_tensor_dtype(x);
  T iz = ag_bs(c, AG_OP_EQS, x, 0.0);
  T one = ag_adds(c, Z(x), 1.0);
  T xz = WHERE(iz, one, x);
  T pn = prod_keep(c, xz, dims, nd);
  T cnt = ag_sum(c, ag_to_dtype(c, iz, dt), dims, nd, 1);
  T at_zero = WHERE(ag_bs(c, AG_OP_EQS, cnt, 1.0), pn, Z(x));
  T other = WHERE(ag_bs(c, AG_OP_EQS, cnt, 0.0), DIV(pn, xz), Z(x));
  T g = ag_expand_reduced(c, G(0), IN_NDIM(0), IN_SHAPE(0), dims, nd, keep);
  GINA(0, MUL(g, ag_conj(c, WHERE(iz, at_zero, other))));
  return c->status;
}
F(f_prod) { return prod_like(c, NULL, -1, 0); }
F(f_prod_dim) { int64_t d = ag_arg_i(c, 1); return prod_like(c, &d, 1, (int32_t)ag_arg_i(c, 2)); }
F(f_prims_prod) {
  if (prims_identity(c)) return c->status;
  const int64_t *dims;
  int32_t nd = prims_dims(c, 1, &dims);
  return prod_like(c, dims, nd, 0);
}

F(f_cumsum) {
  if (!NEEDA(0)) return c->status;
  if (IN_NDIM(0) == 0) { GINA(0, G(0)); return c->status; }
  int64_t d = ag_wrap_dim(ag_arg_i(c, 1), IN_NDIM(0));
  tabi_value fa[2] = {tabi_tensor_value(G(0)), tabi_int_list(&d, 1)};
  T f = ag_call_t(c, AG_OP_FLIP, fa, 2);
  tabi_value ca[2] = {tabi_tensor_value(f), tabi_int(d)};
  T cs = f ? ag_call_t(c, AG_OP_CUMSUM, ca, 2) : NULL;
  tabi_value fb[2] = {tabi_tensor_value(cs), tabi_int_list(&d, 1)};
  if (cs) GINA(0, ag_call_t(c, AG_OP_FLIP, fb, 2));
  return c->status;
}

F(f_softmax) {
  if (!NEEDA(0)) return c->status;
  int64_t d = ag_arg_i(c, 1);
  T y = OUT(0), g = G(0);
  T s = ag_sum(c, MUL(g, y), &d, 1, 1);
  GINA(0, MUL(y, SUB(g, s)));
  return c->status;
}

F(f_log_softmax) {
  if (!NEEDA(0)) return c->status;
  int64_t d = ag_arg_i(c, 1);
  T g = G(0);
  T s = ag_sum(c, g, &d, 1, 1);
  GINA(0, SUB(g, MUL(U(EXP, OUT(0)), s)));
  return c->status;
}

const ag_formula ag_formulas_reduce[] = {
    {"aten::sum.dim_IntList", f_sum_dim, 0, 0}, {"prims::sum", f_prims_sum, 0, 0},
    {"aten::mean", f_mean, 0, 0}, {"aten::mean.dim", f_mean_dim, 0, 0},
    {"aten::amax", f_amax, AG_F_SAVE_OUTPUTS, 0}, {"aten::amin", f_amax, AG_F_SAVE_OUTPUTS, 0},
    {"prims::amax", f_prims_amax, AG_F_SAVE_OUTPUTS, 0}, {"prims::amin", f_prims_amax, AG_F_SAVE_OUTPUTS, 0},
    {"aten::max.dim", f_max_dim, AG_F_SAVE_OUTPUTS, 0}, {"aten::min.dim", f_max_dim, AG_F_SAVE_OUTPUTS, 0},
    {"aten::sort", f_sort, AG_F_SAVE_OUTPUTS, 0}, {"aten::topk", f_topk, AG_F_SAVE_OUTPUTS, 0},
    {"aten::var.correction", f_var_correction, 0, 0}, {"aten::var.dim", f_var_dim, 0, 0},
    {"prims::var", f_prims_var, 0, 0},
    {"aten::prod", f_prod, 0, 0}, {"aten::prod.dim_int", f_prod_dim, 0, 0},
    {"prims::prod", f_prims_prod, 0, 0},
    {"aten::cumsum", f_cumsum, 0, 0},
    {"aten::_softmax", f_softmax, AG_F_SAVE_OUTPUTS, 0},
    {"aten::_log_softmax", f_log_softmax, AG_F_SAVE_OUTPUTS, 0},
    {NULL, NULL, 0, 0}};
