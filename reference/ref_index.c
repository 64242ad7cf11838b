/* reference/ref_index.c: gather, the scatter family and index_select.
 *
 * These are the functional forms: the result is a new tensor and self is never
 * written. ATen's rules, checked against torch 1.13:
 *  - gather/scatter take int64 indices only; index_select takes int32 or int64.
 *    An empty index skips the index dtype and shape checks (the dim still wraps).
 *  - 0-d tensors count as 1-d of size 1 (ATen's ensure_nonempty_dim/size).
 *  - Shapes: index has self's number of dims (and src's, for the scatters);
 *    index.size(d) <= self.size(d) for d != dim, index.size(d) <= src.size(d)
 *    for every d. Gather's result has index's shape.
 *  - Indices are not wrapped: anything outside 0..size-1 is TABI_ERR_INDEX
 *    "index 3 is out of bounds for dimension 1 with size 3". Every index is
 *    checked before anything is computed.
 *  - Duplicate targets: scatter keeps the last write in row-major order of
 *    index; the reductions combine them all. scatter_reduce "mean" on integers
 *    divides with floor, include_self counts self as one element, targets no
 *    index reaches keep self's value. Integer accumulation wraps at the
 *    tensor's own width, as ATen accumulates in the tensor's type.
 *  - scatter.value converts the Scalar with ATen's overflow check
 *    ("value cannot be converted to type int8 without overflow").
 */
#include "ref_index_check.h"
#include "ref_reduce_util.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ATen's ensure_nonempty_*: a 0-d tensor behaves as a 1-d tensor of size 1. */
static int32_t ne_dim(const tabi_tensor *t) { return t->dl.ndim > 0 ? t->dl.ndim : 1; }
static int64_t ne_size(const tabi_tensor *t, int32_t d) { return t->dl.ndim > 0 ? t->dl.shape[d] : 1; }
static int64_t ne_stride(const tabi_tensor *t, int32_t d) { return t->dl.ndim > 0 ? t->dl.strides[d] : 0; }

/* Index iteration over index's (nonempty) shape, tracking offsets into index and
 * up to two other tensors at the same coordinates. */
static void sg_iter(ref_iter *it, const tabi_tensor *index, const tabi_tensor *a,
                    const tabi_tensor *b) {
  int32_t nd = ne_dim(index);
  int64_t shape[REF_MAX_DIMS], st[REF_MAX_DIMS];
  for (int32_t d = 0; d < nd; d++) shape[d] = ne_size(index, d);
  ref_iter_init(it, nd, shape);
  const tabi_tensor *ts[3] = {index, a, b};
  for (int k = 0; k < 3; k++) {
    if (!ts[k]) continue;
    for (int32_t d = 0; d < nd; d++) st[d] = ne_stride(ts[k], d);
    ref_iter_add_strided(it, nd, shape, st);
  }
}

/* Offset of `t` at the iterator's coordinates, with coordinate `dim` replaced by v. */
static int64_t sg_target(const ref_iter *it, const tabi_tensor *t, int32_t dim, int64_t v) {
  int64_t off = 0;
  for (int32_t d = 0; d < it->ndim; d++)
    off += (d == dim ? v : it->index[d]) * ne_stride(t, d);
  return off;
}

/* Checks every index value against 0..size-1 of self along dim
 * (ref_idx_check_bounds over the values read in index order). */
static tabi_status sg_check_bounds(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_tensor *self, int32_t dim, const tabi_tensor *index) {
  int64_t n = tabi_tensor_numel(index), k = 0;
  int64_t *iv = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
  if (!iv) return REF_ERR(h, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", ref_op_name(h, call));
  ref_iter it;
  sg_iter(&it, index, NULL, NULL);
  for (; !ref_iter_done(&it); ref_iter_next(&it)) iv[k++] = ref_load_i(index, it.off[0]);
  tabi_status st = ref_idx_check_bounds(h, call, iv, k, dim, ne_size(self, dim));
  free(iv);
  return st;
}

/* Copies one element between tensors of the same dtype. */
static void copy_elem(tabi_tensor *dst, int64_t doff, const tabi_tensor *src, int64_t soff) {
  int64_t sz = tabi_dtype_size(tabi_tensor_dtype(dst));
  memcpy((char *)tabi_tensor_data(dst) + doff * sz, (const char *)tabi_tensor_data(src) + soff * sz,
         (size_t)sz);
}

/* --- gather -------------------------------------------------------------------- */

static tabi_status k_gather(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *self = args[0].u.t, *index = args[2].u.t;
  int32_t dim;
  tabi_status st = ref_idx_gather_check(h, call, args, &dim);
  if (st == TABI_OK && tabi_tensor_numel(index) != 0) st = sg_check_bounds(h, call, self, dim, index);
  if (st != TABI_OK) return st;
  tabi_tensor *out;
  st = ref_empty(h, self, tabi_tensor_dtype(self), index->dl.ndim, index->dl.shape, &out);
  if (st != TABI_OK) return st;
  if (tabi_tensor_numel(index) != 0) {
    ref_iter it;
    sg_iter(&it, index, out, NULL);
    for (; !ref_iter_done(&it); ref_iter_next(&it)) {
      int64_t v = ref_load_i(index, it.off[0]);
      copy_elem(out, it.off[1], self, sg_target(&it, self, dim, v));
    }
  }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

/* --- scatter family ---------------------------------------------------------------- */

/* the kinds of ref_index_check.h */
enum {
  SC_ASSIGN = REF_SC_ASSIGN,
  SC_VALUE = REF_SC_VALUE,
  SC_SUM = REF_SR_SUM,
  SC_PROD = REF_SR_PROD,
  SC_MEAN = REF_SR_MEAN,
  SC_AMAX = REF_SR_AMAX,
  SC_AMIN = REF_SR_AMIN
};

/* Stores a Scalar into out[off] with out's dtype. */
static void store_scalar(tabi_tensor *out, int64_t off, const tabi_value *v) {
  tabi_dtype dt = tabi_tensor_dtype(out);
  if (tabi_dtype_is_complex(dt)) ref_store_c(out, off, ref_scalar_c(v));
  else if (v->tag == TABI_TAG_INT || v->tag == TABI_TAG_BOOL) ref_store_i(out, off, v->u.i);
  else ref_store_f(out, off, ref_scalar_f(v));
}

typedef struct sc_acc {
  ref_cplx c;
  double f;
  int64_t i;
  int64_t count;
  int32_t touched;
} sc_acc;

/* Combines v into a for the reductions (a already holds a value). */
static void sc_combine(int kind, int domain, sc_acc *a, ref_cplx vc, double vf, int64_t vi,
                       tabi_dtype dt) {
  switch (domain) {
    case 2: /* complex: sum, prod, mean */
      a->c = kind == SC_PROD ? a->c * vc : a->c + vc;
      break;
    case 1:
      if (kind == SC_PROD) a->f *= vf;
      else if (kind == SC_AMAX || kind == SC_AMIN) {
        if (isnan(a->f)) break;
        if (isnan(vf) || (kind == SC_AMAX ? vf > a->f : vf < a->f)) a->f = vf;
      } else a->f += vf;
      break;
    default:
      if (kind == SC_PROD) a->i = ref_wrap_mul(a->i, vi);
      else if (kind == SC_AMAX) a->i = vi > a->i ? vi : a->i;
      else if (kind == SC_AMIN) a->i = vi < a->i ? vi : a->i;
      else a->i = ref_wrap_add(a->i, vi);
      a->i = ref_red_wrap_i(a->i, dt); /* ATen accumulates in the tensor's type */
      break;
  }
}

/* Floor division for the integer mean. */
static int64_t floor_div(int64_t a, int64_t b) {
  if (b == -1) return ref_wrap_neg(a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

/* The shared body, after the checks (ref_idx_scatter_check) gave dim: the
 * index values' bounds, then out = copy of self with index/src (or value)
 * applied. */
static tabi_status scatter_apply(const tabi_host_api *h, const tabi_call *call, tabi_value *args,
                                 int kind, const tabi_tensor *src, const tabi_value *value,
                                 int include_self, int32_t dim, tabi_value *outs) {
  const tabi_tensor *self = args[0].u.t, *index = args[2].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self);
  int64_t nidx = tabi_tensor_numel(index);
  tabi_status st;
  if (nidx != 0 && (st = sg_check_bounds(h, call, self, dim, index)) != TABI_OK) return st;
  tabi_tensor *out;
  st = ref_clone(h, self, &out);
  if (st != TABI_OK || nidx == 0) {
    if (st == TABI_OK) ref_set_out(outs, 0, out);
    return st;
  }
  ref_iter it;
  sg_iter(&it, index, src, NULL);
  if (kind == SC_ASSIGN || kind == SC_VALUE) {
    for (; !ref_iter_done(&it); ref_iter_next(&it)) {
      int64_t t = sg_target(&it, out, dim, ref_load_i(index, it.off[0]));
      if (kind == SC_VALUE) store_scalar(out, t, value);
      else copy_elem(out, t, src, it.off[1]);
    }
    ref_set_out(outs, 0, out);
    return TABI_OK;
  }
  /* Reductions: one accumulator per element of out (contiguous, so the element
   * offset is the linear index). */
  int64_t n = tabi_tensor_numel(out);
  sc_acc *acc = calloc((size_t)(n ? n : 1), sizeof *acc);
  if (!acc) {
    h->tensor_release(h->ctx, out);
    return REF_ERR(h, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", ref_op_name(h, call));
  }
  int domain = tabi_dtype_is_complex(dt) ? 2 : tabi_dtype_is_floating(dt) ? 1 : 0;
  for (int64_t e = 0; e < n; e++) {
    acc[e].c = ref_load_c(out, e);
    acc[e].f = ref_load_f(out, e);
    acc[e].i = ref_load_i(out, e);
    acc[e].count = include_self;
    acc[e].touched = include_self;
  }
  for (; !ref_iter_done(&it); ref_iter_next(&it)) {
    int64_t t = sg_target(&it, out, dim, ref_load_i(index, it.off[0]));
    ref_cplx vc = ref_load_c(src, it.off[1]);
    double vf = ref_load_f(src, it.off[1]);
    int64_t vi = ref_load_i(src, it.off[1]);
    sc_acc *a = &acc[t];
    if (!a->touched) { /* without self, the first value starts the reduction */
      a->c = vc;
      a->f = vf;
      a->i = vi;
      a->touched = 1;
    } else {
      sc_combine(kind, domain, a, vc, vf, vi, dt);
    }
    a->count++;
  }
  for (int64_t e = 0; e < n; e++) {
    sc_acc *a = &acc[e];
    int64_t cnt = a->count > 0 ? a->count : 1;
    if (domain == 2) ref_store_c(out, e, kind == SC_MEAN ? a->c / (double)cnt : a->c);
    else if (domain == 1) ref_store_f(out, e, kind == SC_MEAN ? a->f / (double)cnt : a->f);
    else ref_store_i(out, e, kind == SC_MEAN ? floor_div(a->i, cnt) : a->i);
  }
  free(acc);
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

static tabi_status scatter_run(const tabi_host_api *h, const tabi_call *call, tabi_value *args,
                               int kind, const tabi_tensor *src, const tabi_value *value,
                               int include_self, tabi_value *outs) {
  int32_t dim;
  tabi_status st = ref_idx_scatter_check(h, call, args, kind, src, value, &dim);
  if (st != TABI_OK) return st;
  return scatter_apply(h, call, args, kind, src, value, include_self, dim, outs);
}

static tabi_status k_scatter_src(void *ctx, const tabi_call *call, tabi_value *args,
                                 tabi_value *outs) {
  return scatter_run(ctx, call, args, SC_ASSIGN, args[3].u.t, NULL, 1, outs);
}

static tabi_status k_scatter_value(void *ctx, const tabi_call *call, tabi_value *args,
                                   tabi_value *outs) {
  return scatter_run(ctx, call, args, SC_VALUE, NULL, &args[3], 1, outs);
}

static tabi_status k_scatter_add(void *ctx, const tabi_call *call, tabi_value *args,
                                 tabi_value *outs) {
  return scatter_run(ctx, call, args, SC_SUM, args[3].u.t, NULL, 1, outs);
}

static tabi_status k_scatter_reduce(void *ctx, const tabi_call *call, tabi_value *args,
                                    tabi_value *outs) {
  const tabi_host_api *h = ctx;
  int32_t dim;
  int kind;
  tabi_status st = ref_idx_sr_check(h, call, args, &dim, &kind);
  if (st != TABI_OK) return st;
  return scatter_apply(h, call, args, kind, args[3].u.t, NULL, (int)args[5].u.i, dim, outs);
}

/* --- index_select ------------------------------------------------------------------ */

static tabi_status k_index_select(void *ctx, const tabi_call *call, tabi_value *args,
                                  tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *self = args[0].u.t, *index = args[2].u.t;
  int32_t dim, nd = self->dl.ndim;
  tabi_status st = ref_idx_select_check(h, call, args, &dim);
  if (st != TABI_OK) return st;
  int64_t n = tabi_tensor_numel(index);
  if ((st = sg_check_bounds(h, call, self, dim, index)) != TABI_OK) return st; /* a vector: j order */
  int64_t istride = index->dl.ndim ? index->dl.strides[0] : 0;
  int64_t shape[REF_MAX_DIMS];
  for (int32_t d = 0; d < nd; d++) shape[d] = d == dim ? n : self->dl.shape[d];
  tabi_tensor *out;
  st = ref_empty(h, self, tabi_tensor_dtype(self), nd, shape, &out);
  if (st != TABI_OK) return st;
  ref_iter it;
  ref_iter_init(&it, nd, shape);
  int32_t o = ref_iter_add(&it, out);
  for (; !ref_iter_done(&it); ref_iter_next(&it)) {
    int64_t off = 0;
    for (int32_t d = 0; d < nd; d++) {
      int64_t c = it.index[d];
      if (d == dim) c = ref_load_i(index, c * istride);
      off += c * self->dl.strides[d];
    }
    copy_elem(out, it.off[o], self, off);
  }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

const ref_kernel ref_index_kernels[] = {
    {"aten::gather", k_gather},
    {"aten::scatter.src", k_scatter_src},
    {"aten::scatter.value", k_scatter_value},
    {"aten::scatter_add", k_scatter_add},
    {"aten::scatter_reduce.two", k_scatter_reduce},
    {"aten::index_select", k_index_select},
    {NULL, NULL},
};
