/* ag_ops.c: calls the formulas make, through the full dispatcher (so they run on
 * any device, and are recorded when backward runs with create_graph). Sticky
 * errors: a helper given NULL after an error returns NULL, so a formula reads
 * top to bottom and returns c->status. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ag.h"

tabi_status ag_fail(ag_fctx *c, tabi_status s, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (c->status == TABI_OK) c->status = c->st->h->set_error(c->st->h->ctx, s, "%s", buf);
  return c->status;
}

T ag_keep(ag_fctx *c, T t) {
  if (!t) return NULL;
  if (c->ntmp == c->captmp) {
    int32_t cap = c->captmp ? c->captmp * 2 : 16;
    T *p = realloc(c->tmp, sizeof(T) * (size_t)cap);
    if (!p) {
      c->st->h->tensor_release(c->st->h->ctx, t);
      ag_fail(c, TABI_ERR_OUT_OF_MEMORY, "autograd: out of memory in backward");
      return NULL;
    }
    c->tmp = p;
    c->captmp = cap;
  }
  c->tmp[c->ntmp++] = t;
  return t;
}

static int bad_in(ag_fctx *c, int32_t n, tabi_value *args) {
  if (c->status != TABI_OK) return 1;
  for (int32_t i = 0; i < n; i++)
    if (args[i].tag == TABI_TAG_NONE && args[i].flags == 1) {
      ag_fail(c, TABI_ERR_INTERNAL, "autograd: a derivative formula got an undefined tensor");
      return 1;
    }
  return 0;
}

tabi_status ag_call_n(ag_fctx *c, int32_t opid, tabi_value *args, int32_t nargs, T *outs,
                      int32_t nouts) {
  for (int32_t i = 0; i < nouts; i++) outs[i] = NULL;
  if (bad_in(c, nargs, args)) return c->status;
  const tabi_host_api *h = c->st->h;
  tabi_value ov[8];
  if (nouts > 8) return ag_fail(c, TABI_ERR_INTERNAL, "autograd: too many outputs");
  for (int32_t i = 0; i < 8; i++) ov[i] = tabi_none();
  tabi_status s = h->call(h->ctx, c->st->op[opid], args, nargs, ov, nouts);
  if (s != TABI_OK) {
    c->status = s;
    return s;
  }
  for (int32_t i = 0; i < nouts; i++) {
    if (ov[i].tag == TABI_TAG_TENSOR) outs[i] = ag_keep(c, ov[i].u.t);
    else h->value_release(h->ctx, &ov[i]);
  }
  return c->status;
}

T ag_call_t(ag_fctx *c, int32_t opid, tabi_value *args, int32_t nargs) {
  T out = NULL;
  ag_call_n(c, opid, args, nargs, &out, 1);
  return out;
}

/* A tensor argument; NULL becomes a marked NONE that bad_in() reports. */
static tabi_value tv(T t) {
  tabi_value v = tabi_tensor_value(t);
  if (!t) v.flags = 1;
  return v;
}

T ag_u(ag_fctx *c, int32_t opid, T a) {
  tabi_value args[1] = {tv(a)};
  return ag_call_t(c, opid, args, 1);
}

T ag_b(ag_fctx *c, int32_t opid, T a, T b) {
  tabi_value args[2] = {tv(a), tv(b)};
  return ag_call_t(c, opid, args, 2);
}

T ag_bs(ag_fctx *c, int32_t opid, T a, double s) {
  tabi_value args[2] = {tv(a), tabi_float(s)};
  return ag_call_t(c, opid, args, 2);
}

T ag_muls(ag_fctx *c, T a, double s) { return ag_bs(c, AG_OP_MULS, a, s); }
T ag_adds(ag_fctx *c, T a, double s) { return ag_bs(c, AG_OP_ADDS, a, s); }

T ag_where(ag_fctx *c, T cond, T a, T b) {
  tabi_value args[3] = {tv(cond), tv(a), tv(b)};
  return ag_call_t(c, AG_OP_WHERE, args, 3);
}

T ag_full_like(ag_fctx *c, T like, double v) {
  tabi_value args[2] = {tv(like), tabi_float(v)};
  return ag_call_t(c, AG_OP_FULL_LIKE, args, 2);
}

T ag_zeros_like(ag_fctx *c, T like) { return ag_full_like(c, like, 0.0); }

T ag_zero_s(ag_fctx *c, T like) {
  if (!like) { bad_in(c, 0, NULL); return NULL; }
  tabi_value args[5] = {tabi_float(0.0), tabi_dtype_value(tabi_tensor_dtype(like)), tabi_default(),
                        tabi_device_value(like->dl.device), tabi_default()};
  return ag_call_t(c, AG_OP_SCALAR_TENSOR, args, 4);
}

T ag_zeros_shape(ag_fctx *c, T like, int32_t ndim, const int64_t *shape) {
  if (!like || c->status != TABI_OK) { if (!like) ag_fail(c, TABI_ERR_INTERNAL, "autograd: zeros of NULL"); return NULL; }
  tabi_value args[5] = {tabi_int_list(shape, ndim), tabi_float(0.0),
                        tabi_dtype_value(tabi_tensor_dtype(like)), tabi_default(),
                        tabi_device_value(like->dl.device)};
  return ag_call_t(c, AG_OP_FULL, args, 5);
}

T ag_zeros(ag_fctx *c, const ag_tmeta *m) {
  if (c->status != TABI_OK) return NULL;
  tabi_value args[5] = {tabi_int_list(ag_tmeta_shape(m), m->ndim), tabi_float(0.0),
                        tabi_dtype_value(m->dtype), tabi_default(), tabi_device_value(m->device)};
  return ag_call_t(c, AG_OP_FULL, args, 5);
}

T ag_conj(ag_fctx *c, T a) {
  if (!a || !tabi_dtype_is_complex(tabi_tensor_dtype(a))) return a;
  return ag_u(c, AG_OP_CONJ, a);
}

T ag_muls_conj(ag_fctx *c, T a, const tabi_value *s) {
  if (s->tag == TABI_TAG_NONE || s->tag == TABI_TAG_DEFAULT) return a;
  if (s->tag != TABI_TAG_COMPLEX) {
    double v = s->tag == TABI_TAG_FLOAT ? s->u.f : (double)s->u.i;
    return v == 1.0 ? a : ag_muls(c, a, v);
  }
  tabi_value args[2] = {tv(a), tabi_complex(s->u.c[0], -s->u.c[1])};
  return ag_call_t(c, AG_OP_MULS, args, 2);
}

T ag_to_dtype(ag_fctx *c, T a, tabi_dtype dtype) {
  if (a && tabi_tensor_dtype(a) == dtype) return a;
  tabi_value args[2] = {tv(a), tabi_dtype_value(dtype)};
  return ag_call_t(c, AG_OP_TO_COPY, args, 2);
}

T ag_sum(ag_fctx *c, T a, const int64_t *dims, int32_t ndims, int32_t keepdim) {
  tabi_value args[3] = {tv(a), ndims < 0 ? tabi_none() : tabi_int_list(dims, ndims),
                        tabi_bool(keepdim)};
  return ag_call_t(c, AG_OP_SUM, args, 3);
}

T ag_reshape(ag_fctx *c, T a, int32_t ndim, const int64_t *shape) {
  if (a && a->dl.ndim == ndim) {
    int same = 1;
    for (int32_t i = 0; i < ndim; i++) same &= a->dl.shape[i] == shape[i];
    if (same) return a;
  }
  tabi_value args[2] = {tv(a), tabi_int_list(shape, ndim)};
  return ag_call_t(c, AG_OP_RESHAPE, args, 2);
}

T ag_expand(ag_fctx *c, T a, int32_t ndim, const int64_t *shape) {
  tabi_value args[2] = {tv(a), tabi_int_list(shape, ndim)};
  return ag_call_t(c, AG_OP_EXPAND, args, 2);
}

T ag_permute(ag_fctx *c, T a, int32_t ndim, const int64_t *dims) {
  tabi_value args[2] = {tv(a), tabi_int_list(dims, ndim)};
  return ag_call_t(c, AG_OP_PERMUTE, args, 2);
}

T ag_transpose2(ag_fctx *c, T a) {
  if (!a) return ag_permute(c, a, 0, NULL);
  int64_t d[16];
  int32_t n = a->dl.ndim;
  if (n < 2 || n > 16) { ag_fail(c, TABI_ERR_INTERNAL, "autograd: transpose of a %d-d tensor", (int)n); return NULL; }
  for (int32_t i = 0; i < n; i++) d[i] = i;
  d[n - 2] = n - 1;
  d[n - 1] = n - 2;
  return ag_permute(c, a, n, d);
}

T ag_unsqueeze(ag_fctx *c, T a, int64_t dim) {
  tabi_value args[2] = {tv(a), tabi_int(dim)};
  return ag_call_t(c, AG_OP_UNSQUEEZE, args, 2);
}

int64_t ag_wrap_dim(int64_t d, int32_t ndim) {
  int32_t n = ndim > 0 ? ndim : 1;
  return d < 0 ? d + n : d;
}

/* Sums a broadcast gradient back to `shape` (the inverse of broadcasting). */
T ag_sum_to(ag_fctx *c, T g, int32_t ndim, const int64_t *shape) {
  if (!g) return ag_u(c, AG_OP_NEG, NULL);
  int32_t gn = g->dl.ndim;
  int same = gn == ndim;
  for (int32_t i = 0; same && i < ndim; i++) same = g->dl.shape[i] == shape[i];
  if (same) return g;
  if (gn < ndim || gn > 64) {
    ag_fail(c, TABI_ERR_SHAPE, "autograd: a gradient of rank %d cannot be summed to rank %d",
            (int)gn, (int)ndim);
    return NULL;
  }
  int64_t dims[64];
  int32_t nd = 0, lead = gn - ndim;
  for (int32_t i = 0; i < gn; i++) {
    if (i < lead) { dims[nd++] = i; continue; }
    int64_t want = shape[i - lead], got = g->dl.shape[i];
    if (want == got) continue;
    if (want != 1) {
      ag_fail(c, TABI_ERR_SHAPE, "autograd: gradient dim %d has size %lld, not broadcastable "
              "to size %lld", (int)i, (long long)got, (long long)want);
      return NULL;
    }
    dims[nd++] = i;
  }
  T s = nd ? ag_sum(c, g, dims, nd, 1) : g;
  return ag_reshape(c, s, ndim, shape);
}

T ag_expand_reduced(ag_fctx *c, T g, int32_t ndim, const int64_t *shape, const int64_t *dims,
                    int32_t ndims, int32_t keepdim) {
  if (!g) return NULL;
  int64_t ks[64];
  if (ndim > 64) { ag_fail(c, TABI_ERR_INTERNAL, "autograd: rank too large"); return NULL; }
  if (!keepdim) {
    int red[64] = {0};
    if (!dims || ndims <= 0) {
      for (int32_t i = 0; i < ndim; i++) red[i] = 1;
    } else {
      for (int32_t k = 0; k < ndims; k++) {
        int64_t d = ag_wrap_dim(dims[k], ndim);
        if (d >= 0 && d < ndim) red[d] = 1;
      }
    }
    for (int32_t i = 0; i < ndim; i++) ks[i] = red[i] ? 1 : shape[i];
    g = ag_reshape(c, g, ndim, ks);
  }
  return ag_expand(c, g, ndim, shape);
}

T ag_gout_or_zeros(ag_fctx *c, int32_t i) {
  if (c->gout[i]) return c->gout[i];
  return ag_zeros(c, &c->node->out_meta[i]);
}

int32_t ag_need(ag_fctx *c, int32_t slot) {
  if (slot < 0 || slot >= c->node->nin) return 0;
  const ag_edge *e = &c->node->next[slot];
  return e->node != NULL || e->leaf != NULL;
}

void ag_gin(ag_fctx *c, int32_t slot, T g) {
  if (!g || slot < 0 || slot >= c->node->nin || c->status != TABI_OK) return;
  if (c->gin[slot]) c->st->h->tensor_release(c->st->h->ctx, c->gin[slot]);
  c->st->h->tensor_retain(c->st->h->ctx, g);
  c->gin[slot] = g;
}

T ag_arg_t(ag_fctx *c, int32_t i) {
  if (i < 0 || i >= c->node->nargs || c->args[i].tag != TABI_TAG_TENSOR) return NULL;
  return c->args[i].u.t;
}

double ag_arg_f(ag_fctx *c, int32_t i) {
  if (i < 0 || i >= c->node->nargs) return 0.0;
  return tabi_value_as_double(&c->args[i]);
}

int64_t ag_arg_i(ag_fctx *c, int32_t i) {
  if (i < 0 || i >= c->node->nargs) return 0;
  const tabi_value *v = &c->args[i];
  if (v->tag == TABI_TAG_INT || v->tag == TABI_TAG_BOOL) return v->u.i;
  if (v->tag == TABI_TAG_FLOAT) return (int64_t)v->u.f;
  return 0;
}

int32_t ag_arg_none(ag_fctx *c, int32_t i) {
  return i < 0 || i >= c->node->nargs || c->args[i].tag == TABI_TAG_NONE;
}

T ag_arange_i64(ag_fctx *c, int64_t n, int64_t step, DLDevice dev) {
  tabi_value a[6] = {tabi_int(0), tabi_int(n * step), tabi_int(step),
                     tabi_dtype_value(TABI_DTYPE_INT64), tabi_default(), tabi_device_value(dev)};
  return ag_call_t(c, AG_OP_ARANGE, a, 6);
}

T ag_index_select(ag_fctx *c, T a, int64_t dim, T idx) {
  tabi_value args[3] = {tv(a), tabi_int(dim), tv(idx)};
  return ag_call_t(c, AG_OP_INDEX_SELECT, args, 3);
}

/* Batched matmul through bmm: batch dims flattened, both operands the same batch. */
T ag_mm_batched(ag_fctx *c, T a, T b) {
  if (!a || !b) return ag_b(c, AG_OP_MM, a, b);
  int32_t na = a->dl.ndim, nb = b->dl.ndim;
  if (na == 2 && nb == 2) return ag_b(c, AG_OP_MM, a, b);
  if (na != nb || na < 2 || na > 16) {
    ag_fail(c, TABI_ERR_SHAPE, "autograd: batched matmul of a %d-d and a %d-d tensor", (int)na, (int)nb);
    return NULL;
  }
  int64_t bsz = 1, out[16];
  for (int32_t i = 0; i < na - 2; i++) { bsz *= a->dl.shape[i]; out[i] = a->dl.shape[i]; }
  int64_t sa[3] = {bsz, a->dl.shape[na - 2], a->dl.shape[na - 1]};
  int64_t sb[3] = {bsz, b->dl.shape[nb - 2], b->dl.shape[nb - 1]};
  out[na - 2] = sa[1];
  out[na - 1] = sb[2];
  T r = ag_b(c, AG_OP_BMM, ag_reshape(c, a, 3, sa), ag_reshape(c, b, 3, sb));
  return ag_reshape(c, r, na, out);
}
