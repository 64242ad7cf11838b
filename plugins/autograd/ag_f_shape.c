/* ag_f_shape.c: derivative formulas of views, shape ops, cat/split and
 * indexing (gathers go back as scatters with accumulation). */
#include <stdlib.h>

#include "ag.h"

#define F(name) static tabi_status name(ag_fctx *c)
#define TV(t) tabi_tensor_value(t)
#define IN_META(i) (&c->node->in_meta[SLOT(i)])
#define IN_NDIM(i) (IN_META(i)->ndim)
#define IN_SHAPE(i) ag_tmeta_shape(IN_META(i))
#define WHERE(p, a, b) ag_where(c, (p), (a), (b))
#define Z(like) ag_zero_s(c, (like))

static const int64_t *ints(ag_fctx *c, int32_t i, int32_t *n) {
  const tabi_value *v = &c->args[i];
  if (v->tag == TABI_TAG_INT) { *n = 1; return &v->u.i; }
  if (v->tag != TABI_TAG_INT_LIST) { *n = 0; return NULL; }
  *n = (int32_t)v->u.list.len;
  return tabi_value_ints(v);
}

/* Views that only change the shape: the gradient takes the input's shape. */
F(f_reshape_back) {
  if (NEEDA(0)) GINA(0, ag_reshape(c, G(0), IN_NDIM(0), IN_SHAPE(0)));
  return c->status;
}

F(f_expand) {
  if (NEEDA(0)) GINA(0, ag_sum_to(c, G(0), IN_NDIM(0), IN_SHAPE(0)));
  return c->status;
}

F(f_broadcast_in_dim) {
  if (!NEEDA(0)) return c->status;
  int32_t nb, ns;
  const int64_t *bd = ints(c, 2, &nb);
  ints(c, 1, &ns);
  int64_t drop[64];
  int32_t nd = 0;
  for (int32_t i = 0; i < ns && i < 64; i++) {
    int keep = 0;
    for (int32_t k = 0; k < nb; k++) keep |= bd[k] == i;
    if (!keep) drop[nd++] = i;
  }
  T g = nd ? ag_sum(c, G(0), drop, nd, 0) : G(0);
  GINA(0, ag_sum_to(c, g, IN_NDIM(0), IN_SHAPE(0)));
  return c->status;
}

F(f_permute) {
  if (!NEEDA(0)) return c->status;
  int32_t n;
  const int64_t *p = ints(c, 1, &n);
  int64_t inv[64];
  if (n > 64) return ag_fail(c, TABI_ERR_INTERNAL, "autograd: permute of rank %d", (int)n);
  for (int32_t i = 0; i < n; i++) inv[ag_wrap_dim(p[i], n)] = i;
  GINA(0, ag_permute(c, G(0), n, inv));
  return c->status;
}

F(f_select) {
  if (!NEEDA(0)) return c->status;
  T z = ag_zeros(c, IN_META(0));
  tabi_value a[4] = {TV(z), TV(G(0)), c->args[1], c->args[2]};
  if (z) GINA(0, ag_call_t(c, AG_OP_SELECT_SCATTER, a, 4));
  return c->status;
}

F(f_slice) {
  if (!NEEDA(0)) return c->status;
  T z = ag_zeros(c, IN_META(0));
  tabi_value a[6] = {TV(z), TV(G(0)), c->args[1], c->args[2], c->args[3], c->args[4]};
  if (z) GINA(0, ag_call_t(c, AG_OP_SLICE_SCATTER, a, 6));
  return c->status;
}

F(f_select_scatter) {
  T g = G(0);
  if (NEEDA(0)) {
    T z = ag_zeros(c, IN_META(1));
    tabi_value a[4] = {TV(g), TV(z), c->args[2], c->args[3]};
    if (z) GINA(0, ag_call_t(c, AG_OP_SELECT_SCATTER, a, 4));
  }
  if (NEEDA(1)) {
    tabi_value a[3] = {TV(g), c->args[2], c->args[3]};
    GINA(1, ag_call_t(c, AG_OP_SELECT, a, 3));
  }
  return c->status;
}

/* A step past the dim's size selects one element, as a step of the size does;
 * slice refuses a step whose stride overflows (INT64_MAX), so it gets that. */
static tabi_value step_for(ag_fctx *c, T g, int32_t dim_arg, int32_t step_arg) {
  tabi_value v = c->args[step_arg];
  if (!g || v.tag != TABI_TAG_INT || c->args[dim_arg].tag != TABI_TAG_INT || g->dl.ndim == 0) return v;
  int64_t d = ag_wrap_dim(c->args[dim_arg].u.i, g->dl.ndim);
  if (d < 0 || d >= g->dl.ndim) return v;
  int64_t size = g->dl.shape[d] > 0 ? g->dl.shape[d] : 1;
  return v.u.i > size ? tabi_int(size) : v;
}

F(f_slice_scatter) {
  T g = G(0);
  if (NEEDA(0)) {
    T z = ag_zeros(c, IN_META(1));
    tabi_value a[6] = {TV(g), TV(z), c->args[2], c->args[3], c->args[4], c->args[5]};
    if (z) GINA(0, ag_call_t(c, AG_OP_SLICE_SCATTER, a, 6));
  }
  if (NEEDA(1)) {
    tabi_value a[5] = {TV(g), c->args[2], c->args[3], c->args[4], step_for(c, g, 2, 5)};
    GINA(1, ag_call_t(c, AG_OP_SLICE, a, 5));
  }
  return c->status;
}

/* diagonal: zeros with the gradient written into their diagonal. */
F(f_diagonal) {
  if (!NEEDA(0)) return c->status;
  T z = ag_zeros(c, IN_META(0));
  tabi_value a[4] = {TV(z), c->args[1], c->args[2], c->args[3]};
  T d = z ? ag_call_t(c, AG_OP_DIAGONAL, a, 4) : NULL;
  tabi_value b[2] = {TV(d), TV(G(0))};
  if (d && ag_call_t(c, AG_OP_COPY_TO, b, 2)) GINA(0, z);
  return c->status;
}

F(f_flip) {
  if (!NEEDA(0)) return c->status;
  tabi_value a[2] = {TV(G(0)), c->args[1]};
  GINA(0, ag_call_t(c, AG_OP_FLIP, a, 2));
  return c->status;
}

static tabi_status cat_back(ag_fctx *c, int64_t dim) {
  const tabi_value *lv = &c->args[0];
  if (lv->tag != TABI_TAG_TENSOR_LIST) return c->status;
  T g = G(0);
  int32_t gnd = g->dl.ndim;
  dim = ag_wrap_dim(dim, gnd);
  int64_t off = 0;
  for (int64_t k = 0; k < lv->u.list.len; k++) {
    const ag_tmeta *m = &c->node->in_meta[SLOT(0) + k];
    /* Legacy: 1-d empty tensors are skipped by cat (and when every input is
     * one, `dim` is never checked: the output is [0] too). */
    if (m->ndim == 1 && ag_tmeta_shape(m)[0] == 0) {
      if (ag_need(c, SLOT(0) + (int32_t)k)) ag_gin(c, SLOT(0) + (int32_t)k, ag_zeros(c, m));
      continue;
    }
    int64_t sz = ag_tmeta_shape(m)[dim];
    if (ag_need(c, SLOT(0) + (int32_t)k)) {
      tabi_value a[5] = {TV(g), tabi_int(dim), tabi_int(off), tabi_int(off + sz), tabi_int(1)};
      ag_gin(c, SLOT(0) + (int32_t)k, ag_call_t(c, AG_OP_SLICE, a, 5));
    }
    off += sz;
  }
  return c->status;
}
F(f_cat) { return cat_back(c, ag_arg_i(c, 1)); }

F(f_split_with_sizes) {
  if (!NEEDA(0)) return c->status;
  int32_t n = c->node->nout;
  T *parts = calloc((size_t)(n ? n : 1), sizeof *parts);
  if (!parts) return ag_fail(c, TABI_ERR_OUT_OF_MEMORY, "autograd: out of memory");
  for (int32_t k = 0; k < n; k++) parts[k] = ag_gout_or_zeros(c, k);
  int64_t dim = ag_wrap_dim(ag_arg_i(c, 2), IN_NDIM(0));
  tabi_value a[2] = {tabi_tensor_list(parts, n), tabi_int(dim)};
  if (c->status == TABI_OK) GINA(0, ag_call_t(c, AG_OP_CAT, a, 2));
  free(parts);
  return c->status;
}

/* repeat: view the gradient as (r0, s0, r1, s1, ...) and sum the r's. */
F(f_repeat) {
  if (!NEEDA(0)) return c->status;
  int32_t nr;
  const int64_t *r = ints(c, 1, &nr);
  int32_t nin = IN_NDIM(0), lead = nr - nin;
  const int64_t *s = IN_SHAPE(0);
  if (nr > 32) return ag_fail(c, TABI_ERR_INTERNAL, "autograd: repeat of rank %d", (int)nr);
  if (!G(0) || tabi_tensor_numel(G(0)) == 0) { /* a repeat count of 0 (another may be huge) */
    GINA(0, ag_zeros(c, IN_META(0)));
    return c->status;
  }
  int64_t split[64], sdims[32];
  for (int32_t i = 0; i < nr; i++) {
    split[2 * i] = r[i];
    split[2 * i + 1] = i < lead ? 1 : s[i - lead];
    sdims[i] = 2 * i;
  }
  T g = ag_reshape(c, G(0), 2 * nr, split);
  g = ag_sum(c, g, sdims, nr, 0);
  GINA(0, ag_reshape(c, g, nin, s));
  return c->status;
}

F(f_constant_pad) {
  if (!NEEDA(0)) return c->status;
  int32_t n;
  const int64_t *p = ints(c, 1, &n);
  /* The gradient is the output cropped back: padding by -p. When a dim kept
   * none of the input (a pad of INT64_MIN, say, whose negation overflows),
   * the input gets zeros; otherwise every pad is within the sizes. */
  int32_t nd = IN_NDIM(0);
  if (n > 64 || n / 2 > nd) return ag_fail(c, TABI_ERR_INTERNAL, "autograd: constant_pad_nd of %d pads", (int)n);
  int64_t neg[64];
  for (int32_t i = 0; i + 1 < n; i += 2) {
    __int128 in = IN_SHAPE(0)[nd - 1 - i / 2], lo = p[i], hi = p[i + 1];
    __int128 out = in + lo + hi, first = lo > 0 ? 0 : -lo, last = out - lo < in ? out - lo : in;
    if (first >= last) {
      GINA(0, ag_zeros(c, IN_META(0)));
      return c->status;
    }
    neg[i] = -p[i];
    neg[i + 1] = -p[i + 1];
  }
  tabi_value a[2] = {TV(G(0)), tabi_int_list(neg, n)};
  GINA(0, ag_call_t(c, AG_OP_CONST_PAD, a, 2));
  return c->status;
}

/* as_strided: scatter the gradient into a buffer laid out like the storage, then
 * read the input's own geometry back from it. */
static T geometry_index(ag_fctx *c, DLDevice dev, int32_t ndim, const int64_t *shape,
                        const int64_t *strides, int64_t offset) {
  tabi_value sa[4] = {tabi_int(offset), tabi_dtype_value(TABI_DTYPE_INT64), tabi_default(),
                      tabi_device_value(dev)};
  T idx = ag_call_t(c, AG_OP_SCALAR_TENSOR, sa, 4);
  for (int32_t d = 0; d < ndim && idx; d++) {
    tabi_value aa[6] = {tabi_int(0), tabi_int(shape[d]), tabi_int(1),
                        tabi_dtype_value(TABI_DTYPE_INT64), tabi_default(), tabi_device_value(dev)};
    T ar = ag_call_t(c, AG_OP_ARANGE, aa, 6);
    tabi_value ma[2] = {TV(ar), tabi_int(strides[d])};
    T ars = ar ? ag_call_t(c, AG_OP_MULS, ma, 2) : NULL;
    idx = ag_b(c, AG_OP_ADD, d == 0 ? idx : ag_unsqueeze(c, idx, -1), ars);
  }
  return idx;
}

static tabi_status as_strided_back(ag_fctx *c, int32_t arg_size, int32_t arg_stride, int32_t arg_off) {
  if (!NEEDA(0)) return c->status;
  T x = A(0);
  if (!x) return ag_fail(c, TABI_ERR_INTERNAL, "autograd: as_strided input not saved");
  int32_t n, ns;
  const int64_t *size = ints(c, arg_size, &n);
  const int64_t *stride = ints(c, arg_stride, &ns);
  int64_t esz = tabi_dtype_size(tabi_tensor_dtype(x));
  int64_t xoff = (int64_t)x->dl.byte_offset / (esz ? esz : 1);
  int64_t off = ag_arg_none(c, arg_off) ? xoff : ag_arg_i(c, arg_off);
  int64_t extent = xoff + 1, oext = off + 1;
  for (int32_t d = 0; d < x->dl.ndim; d++) extent += (x->dl.shape[d] - 1) * x->dl.strides[d];
  for (int32_t d = 0; d < n; d++) oext += (size[d] - 1) * stride[d];
  int64_t numel_out = 1;
  for (int32_t d = 0; d < n; d++) numel_out *= size[d];
  /* An empty view read nothing, whatever its offset (2^40, say): no buffer
     the size of the storage it would have spanned. */
  if (numel_out == 0 || tabi_tensor_numel(x) == 0) {
    GINA(0, ag_zeros(c, IN_META(0)));
    return c->status;
  }
  int64_t total = extent > oext ? extent : oext;
  T buf = ag_zeros_shape(c, G(0), 1, &total);
  if (numel_out > 0 && c->status == TABI_OK) {
    T oi = geometry_index(c, x->dl.device, n, size, stride, off);
    T oif = ag_reshape(c, oi, 1, &numel_out);
    T gf = ag_reshape(c, G(0), 1, &numel_out);
    tabi_tensor *lst[1] = {oif};
    tabi_value a[4] = {TV(buf), tabi_tensor_list(lst, 1), TV(gf), tabi_bool(1)};
    if (oif && gf) buf = ag_call_t(c, AG_OP_INDEX_PUT, a, 4);
  }
  T ii = geometry_index(c, x->dl.device, x->dl.ndim, x->dl.shape, x->dl.strides, xoff);
  tabi_tensor *l2[1] = {ii};
  tabi_value b[2] = {TV(buf), tabi_tensor_list(l2, 1)};
  if (ii && buf) GINA(0, ag_call_t(c, AG_OP_INDEX, b, 2));
  (void)ns;
  return c->status;
}
F(f_as_strided) { return as_strided_back(c, 1, 2, 3); }

F(f_gather) {
  if (!NEEDA(0)) return c->status;
  T z = ag_zeros(c, IN_META(0));
  tabi_value a[4] = {TV(z), c->args[1], TV(A(2)), TV(G(0))};
  if (z) GINA(0, ag_call_t(c, AG_OP_SCATTER_ADD, a, 4));
  return c->status;
}

static T gather_g(ag_fctx *c, T g) {
  tabi_value a[3] = {TV(g), c->args[1], TV(A(2))};
  return ag_call_t(c, AG_OP_GATHER, a, 3);
}

/* src may be larger than index: only its index-shaped prefix was used. */
static T gather_src(ag_fctx *c, T g) {
  T r = gather_g(c, g);
  const ag_tmeta *m = IN_META(3);
  if (r && r->dl.ndim == 0 && m->ndim > 0 && m->ndim <= 32) { /* a 0-d index counts as [1] (ATen) */
    int64_t ones[32];
    for (int32_t d = 0; d < m->ndim; d++) ones[d] = 1;
    r = ag_reshape(c, r, m->ndim, ones);
  }
  if (!r || r->dl.ndim != m->ndim || m->ndim > 32) return r;
  int64_t pad[64];
  int any = 0;
  for (int32_t d = 0; d < m->ndim; d++) {
    pad[2 * d] = 0;
    pad[2 * d + 1] = ag_tmeta_shape(m)[m->ndim - 1 - d] - r->dl.shape[m->ndim - 1 - d];
    any |= pad[2 * d + 1] != 0;
  }
  if (!any) return r;
  tabi_value p[2] = {TV(r), tabi_int_list(pad, 2 * m->ndim)};
  return ag_call_t(c, AG_OP_CONST_PAD, p, 2);
}

static T mask_scattered(ag_fctx *c, T g) {
  tabi_value a[4] = {TV(g), c->args[1], TV(A(2)), tabi_float(0.0)};
  return ag_call_t(c, AG_OP_SCATTERV, a, 4);
}

/* An empty index scatters nothing (and ATen checks no shapes then): the
 * output is self, and src gets a zero gradient. 1 when it handled the case. */
static int empty_index(ag_fctx *c) {
  T idx = A(2);
  if (!idx || tabi_tensor_numel(idx) != 0) return 0;
  if (NEEDA(0)) GINA(0, G(0));
  if (NEEDA(3)) GINA(3, ag_zeros(c, IN_META(3)));
  return 1;
}

F(f_scatter_src) {
  if (empty_index(c)) return c->status;
  if (NEEDA(0)) GINA(0, mask_scattered(c, G(0)));
  if (NEEDA(3)) GINA(3, gather_src(c, G(0)));
  return c->status;
}
F(f_scatter_value) { if (NEEDA(0)) GINA(0, mask_scattered(c, G(0))); return c->status; }
F(f_scatter_add) {
  if (empty_index(c)) return c->status;
  if (NEEDA(0)) GINA(0, G(0));
  if (NEEDA(3)) GINA(3, gather_src(c, G(0)));
  return c->status;
}

static T scatter_prod(ag_fctx *c, T self, T src, int include_self) {
  tabi_value a[6] = {TV(self), c->args[1], TV(A(2)), TV(src), c->args[4], tabi_bool(include_self)};
  if (!self || !src) return ag_u(c, AG_OP_NEG, NULL);
  return ag_call_t(c, AG_OP_SCATTER_REDUCE, a, 6);
}

/* src narrowed to the index's shape (only that prefix is scattered). */
static T src_used(ag_fctx *c, T src) {
  T idx = A(2);
  if (!src || !idx || src->dl.ndim != idx->dl.ndim) return src;
  for (int32_t d = 0; d < src->dl.ndim && src; d++) {
    if (src->dl.shape[d] == idx->dl.shape[d]) continue;
    tabi_value a[5] = {TV(src), tabi_int(d), tabi_int(0), tabi_int(idx->dl.shape[d]), tabi_int(1)};
    src = ag_call_t(c, AG_OP_SLICE, a, 5);
  }
  return src;
}

/* Pads a gradient of the used part of src back to src's shape. */
static T pad_to_src(ag_fctx *c, T r) {
  const ag_tmeta *m = IN_META(3);
  if (!r || r->dl.ndim != m->ndim || m->ndim > 32) return r;
  int64_t pad[64];
  int any = 0;
  for (int32_t d = 0; d < m->ndim; d++) {
    pad[2 * d] = 0;
    pad[2 * d + 1] = ag_tmeta_shape(m)[m->ndim - 1 - d] - r->dl.shape[m->ndim - 1 - d];
    any |= pad[2 * d + 1] != 0;
  }
  if (!any) return r;
  tabi_value p[2] = {TV(r), tabi_int_list(pad, 2 * m->ndim)};
  return ag_call_t(c, AG_OP_CONST_PAD, p, 2);
}

/* reduce='prod', ATen's scatter_reduce_backward: exact with zeros. self's
 * gradient is grad * (the product with self's zeros taken as 1) / self (zeros
 * as 1); a src element that is its slot's only zero gets grad times the
 * product of the others; any other src element grad * result / src (0 when
 * the slot has another zero). Without include_self, scattered-to slots of
 * self get nothing. As ATen, the double backward is refused when a slot has
 * two zero src elements (reading one flag from the device). */
static tabi_status scatter_prod_back(ag_fctx *c, int include_self) {
  T g = G(0), x = A(0), y = OUT(0);
  if (NEEDA(0)) {
    T one = ag_adds(c, Z(x), 1.0);
    T mx = WHERE(ag_bs(c, AG_OP_EQS, x, 0.0), one, x);
    /* complex: the factors conjugated (grad * conj(d)) */
    T gs = ag_b(c, AG_OP_DIV, ag_b(c, AG_OP_MUL, g, ag_conj(c, scatter_prod(c, mx, A(3), include_self))),
                ag_conj(c, mx));
    GINA(0, include_self ? gs : mask_scattered(c, gs));
  }
  if (NEEDA(3)) {
    T src = src_used(c, A(3));
    T one = ag_adds(c, Z(src), 1.0);
    T sz = ag_bs(c, AG_OP_EQS, src, 0.0);
    tabi_value a[4] = {TV(ag_zeros_like(c, x)), c->args[1], TV(A(2)), TV(ag_to_dtype(c, sz, tabi_tensor_dtype(x)))};
    T nz = c->status == TABI_OK ? gather_g(c, ag_call_t(c, AG_OP_SCATTER_ADD, a, 4)) : NULL;
    T single = ag_b(c, AG_OP_LAND, sz, ag_bs(c, AG_OP_EQS, nz, 1.0));
    /* As ATen: with grad mode on (create_graph) a slot with two zeros in src has
     * no double backward here (the formula's derivative is wrong there). */
    if (ag_grad_enabled(c->st) && c->status == TABI_OK) {
      T many = ag_u(c, AG_OP_ANY, ag_bs(c, AG_OP_GTS, nz, 1.0));
      tabi_value a1[1] = {TV(many)}, o = tabi_none();
      const tabi_host_api *h = c->st->h;
      if (many) {
        tabi_status s = h->call(h->ctx, c->st->op[AG_OP_LOCAL_SCALAR], a1, 1, &o, 1);
        if (s != TABI_OK) return c->status = s;
        int yes = (o.tag == TABI_TAG_BOOL || o.tag == TABI_TAG_INT) ? o.u.i != 0 : tabi_value_as_double(&o) != 0.0;
        h->value_release(h->ctx, &o);
        if (yes)
          return ag_fail(c, TABI_ERR_UNIMPLEMENTED,
                         "autograd: aten::scatter_reduce.two: the double backward of reduce='prod' when "
                         "'src' has more than one zero in a slot is not implemented (as in ATen)");
      }
    }
    T msr = scatter_prod(c, x, WHERE(single, one, src), include_self);
    T at_zero = gather_g(c, ag_b(c, AG_OP_MUL, g, ag_conj(c, msr)));
    T other = ag_b(c, AG_OP_DIV, gather_g(c, ag_b(c, AG_OP_MUL, g, ag_conj(c, y))), ag_conj(c, WHERE(sz, one, src)));
    GINA(3, pad_to_src(c, WHERE(single, at_zero, other)));
  }
  return c->status;
}

F(f_scatter_reduce) {
  const tabi_value *rv = &c->args[4];
  char r[8] = {0};
  for (int64_t i = 0; i < rv->u.list.len && i < 7; i++) r[i] = tabi_value_str(rv)[i];
  int include_self = (int)ag_arg_i(c, 5);
  T g = G(0), x = A(0), src = A(3);
  if (empty_index(c)) return c->status;
  if (r[0] == 's') { /* sum */
    if (NEEDA(0)) GINA(0, include_self ? g : mask_scattered(c, g));
    if (NEEDA(3)) GINA(3, gather_src(c, g));
    return c->status;
  }
  if (r[0] == 'm' && r[1] == 'e') { /* mean */
    T ones = ag_full_like(c, src, 1.0);
    T base = include_self ? ag_full_like(c, x, 1.0) : ag_zeros_like(c, x);
    tabi_value a[4] = {TV(base), c->args[1], TV(A(2)), TV(ones)};
    T cnt = ag_call_t(c, AG_OP_SCATTER_ADD, a, 4);
    cnt = WHERE(ag_bs(c, AG_OP_EQS, cnt, 0.0), ag_adds(c, Z(x), 1.0), cnt);
    T gd = ag_b(c, AG_OP_DIV, g, cnt);
    if (NEEDA(0)) GINA(0, include_self ? gd : mask_scattered(c, gd));
    if (NEEDA(3)) GINA(3, gather_src(c, gd));
    return c->status;
  }
  if (r[0] == 'a') { /* amax, amin: ties share */
    T y = OUT(0);
    T val = gather_g(c, y);
    T self_is = ag_b(c, AG_OP_EQ, x, y);
    T src_is = ag_b(c, AG_OP_EQ, src, val);
    tabi_dtype dt = tabi_tensor_dtype(g);
    T base = include_self ? ag_to_dtype(c, self_is, dt) : ag_zeros_like(c, g);
    tabi_value a[4] = {TV(base), c->args[1], TV(A(2)), TV(ag_to_dtype(c, src_is, dt))};
    T n = ag_call_t(c, AG_OP_SCATTER_ADD, a, 4);
    T gd = ag_b(c, AG_OP_DIV, g, n);
    if (NEEDA(0)) GINA(0, include_self ? WHERE(self_is, gd, Z(g)) : mask_scattered(c, g));
    if (NEEDA(3)) GINA(3, WHERE(src_is, gather_g(c, gd), Z(g)));
    return c->status;
  }
  if (r[0] == 'p') return scatter_prod_back(c, include_self);
  return ag_fail(c, TABI_ERR_UNIMPLEMENTED,
                 "autograd: aten::scatter_reduce.two: the derivative for reduce='%s' is not "
                 "implemented", r);
}

F(f_index) {
  if (!NEEDA(0)) return c->status;
  T z = ag_zeros(c, IN_META(0));
  tabi_value a[4] = {TV(z), c->args[1], TV(G(0)), tabi_bool(1)};
  if (z) GINA(0, ag_call_t(c, AG_OP_INDEX_PUT, a, 4));
  return c->status;
}

F(f_index_put) {
  T g = G(0);
  if (NEEDA(0)) {
    if (ag_arg_i(c, 3)) {
      GINA(0, g);
    } else {
      tabi_value a[4] = {TV(g), c->args[1], TV(Z(g)), tabi_bool(0)};
      GINA(0, ag_call_t(c, AG_OP_INDEX_PUT, a, 4));
    }
  }
  if (NEEDA(2)) {
    tabi_value a[2] = {TV(g), c->args[1]};
    GINA(2, ag_call_t(c, AG_OP_INDEX, a, 2));
  }
  return c->status;
}

F(f_index_select) {
  if (!NEEDA(0)) return c->status;
  int32_t nd = IN_NDIM(0);
  T g = G(0), idx = A(2);
  if (nd == 0) { GINA(0, ag_reshape(c, g, 0, NULL)); return c->status; }
  int64_t dim = ag_wrap_dim(ag_arg_i(c, 1), nd);
  int64_t shape[64];
  for (int32_t i = 0; i < nd; i++) shape[i] = i == dim ? tabi_tensor_numel(idx) : 1;
  T iv = ag_reshape(c, ag_to_dtype(c, idx, TABI_DTYPE_INT64), nd, shape);
  T ie = g ? ag_expand(c, iv, nd, g->dl.shape) : NULL;
  T z = ag_zeros(c, IN_META(0));
  tabi_value a[4] = {TV(z), tabi_int(dim), TV(ie), TV(g)};
  if (ie && z) GINA(0, ag_call_t(c, AG_OP_SCATTER_ADD, a, 4));
  return c->status;
}

F(f_masked_scatter) {
  T g = G(0), mask = A(1);
  if (NEEDA(0)) GINA(0, WHERE(mask, Z(g), g));
  if (NEEDA(2)) {
    const ag_tmeta *sm = IN_META(2);
    int64_t sn = 1;
    for (int32_t i = 0; i < sm->ndim; i++) sn *= ag_tmeta_shape(sm)[i];
    T me = g ? ag_expand(c, mask, g->dl.ndim, g->dl.shape) : NULL;
    T gv = g;
    if (g && g->dl.ndim == 0) { /* index needs a dim to select along */
      int64_t one = 1;
      me = ag_reshape(c, me, 1, &one);
      gv = ag_reshape(c, g, 1, &one);
    }
    tabi_tensor *l[1] = {me};
    tabi_value a[2] = {TV(gv), tabi_tensor_list(l, 1)};
    T sel = me ? ag_call_t(c, AG_OP_INDEX, a, 2) : NULL;
    if (sel) {
      int64_t pad[2] = {0, sn - tabi_tensor_numel(sel)};
      tabi_value p[2] = {TV(sel), tabi_int_list(pad, 2)};
      T padded = ag_call_t(c, AG_OP_CONST_PAD, p, 2);
      GINA(2, ag_reshape(c, padded, sm->ndim, ag_tmeta_shape(sm)));
    }
  }
  return c->status;
}

const ag_formula ag_formulas_shape[] = {
    {"aten::view", f_reshape_back, 0, 0}, {"prims::reshape", f_reshape_back, 0, 0},
    {"prims::collapse_view", f_reshape_back, 0, 0}, {"prims::split_dim", f_reshape_back, 0, 0},
    {"aten::squeeze.dim", f_reshape_back, 0, 0}, {"aten::squeeze.dims", f_reshape_back, 0, 0},
    {"prims::squeeze", f_reshape_back, 0, 0}, {"aten::unsqueeze", f_reshape_back, 0, 0},
    {"aten::expand", f_expand, 0, 0}, {"prims::broadcast_in_dim", f_broadcast_in_dim, 0, 0},
    {"aten::permute", f_permute, 0, 0}, {"prims::transpose", f_permute, 0, 0},
    {"aten::select.int", f_select, 0, 0}, {"aten::slice.Tensor", f_slice, 0, 0},
    {"aten::select_scatter", f_select_scatter, 0, 0}, {"aten::slice_scatter", f_slice_scatter, 0, 0},
    {"aten::diagonal", f_diagonal, 0, 0},
    {"aten::flip", f_flip, 0, 0}, {"prims::rev", f_flip, 0, 0},
    {"aten::cat", f_cat, 0, 0}, {"prims::cat", f_cat, 0, 0},
    {"aten::split_with_sizes", f_split_with_sizes, 0, 0},
    {"aten::repeat", f_repeat, 0, 0}, {"aten::constant_pad_nd", f_constant_pad, 0, 0},
    {"aten::as_strided", f_as_strided, 0, 0}, {"prims::as_strided", f_as_strided, AG_F_IGNORE_MUT, 0},
    {"aten::gather", f_gather, 0, 0},
    {"aten::scatter.src", f_scatter_src, 0, 0}, {"aten::scatter.value", f_scatter_value, 0, 0},
    {"aten::scatter_add", f_scatter_add, 0, 0},
    {"aten::scatter_reduce.two", f_scatter_reduce, AG_F_SAVE_OUTPUTS, 0},
    {"aten::index.Tensor", f_index, 0, 0}, {"aten::index_put", f_index_put, 0, 0},
    {"aten::index_select", f_index_select, 0, 0}, {"aten::masked_scatter", f_masked_scatter, 0, 0},
    {NULL, NULL, 0, 0}};
