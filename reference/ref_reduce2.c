/* reference/ref_reduce2.c: reductions that give positions (argmax, argmin,
 * max.dim, min.dim), the scan (cumsum) and ordering (sort, topk).
 *
 * ATen's rules, checked against torch 1.13:
 *  - NaN is the largest value and propagates: argmax/argmin/max.dim/min.dim
 *    return the first NaN and its index; otherwise the first of equal extremes.
 *  - An empty reduction is an error (TABI_ERR_INDEX); complex is refused;
 *    argmax/argmin refuse bool (ATen has no bool kernel), max.dim/min.dim take it.
 *  - cumsum accumulates in int64/double/complex double; integers and bool give
 *    int64; `dtype=` casts first; a bool result is refused as ATen does.
 *  - sort is stable in both directions: NaN sorts as the largest (last when
 *    ascending, first when descending), -0.0 and 0.0 are equal and keep their
 *    order. topk is a stable sort cut to k, so among equal values the lower
 *    index comes first and `sorted=False` also returns sorted order (ATen leaves
 *    both unspecified). k outside 0..size is TABI_ERR_INDEX.
 */
#include "ref_reduce_util.h"
#include "ref_reduce2_check.h"

#include <math.h>
#include <stdlib.h>

/* --- argmax / argmin / max.dim / min.dim -------------------------------------- */

/* 1 when v should replace the current best (first NaN wins, then strict order). */
static int better_f(int want_max, double v, double best) {
  if (isnan(best)) return 0;
  if (isnan(v)) return 1;
  return want_max ? v > best : v < best;
}

/* Finds the extreme of each reduced group: writes its index (int64) into `idx`
 * and, when `vals` is non-NULL, its value. */
static void arg_run(const tabi_tensor *self, const ref_red *r, int want_max, tabi_tensor *vals,
                    tabi_tensor *idx) {
  int flt = tabi_dtype_is_floating(tabi_tensor_dtype(self));
  ref_iter o;
  ref_red_outer(r, self, &o);
  for (; !ref_iter_done(&o); ref_iter_next(&o)) {
    ref_iter in;
    double bf = 0;
    int64_t bi = 0, at = 0, best_off = o.off[0];
    int first = 1;
    for (ref_red_inner(r, self, &in); !ref_iter_done(&in); ref_iter_next(&in)) {
      int64_t off = o.off[0] + in.off[0];
      int take;
      if (flt) {
        double v = ref_load_f(self, off);
        take = first || better_f(want_max, v, bf);
        if (take) bf = v;
      } else {
        int64_t v = ref_load_i(self, off);
        take = first || (want_max ? v > bi : v < bi);
        if (take) bi = v;
      }
      if (take) {
        at = in.pos;
        best_off = off;
      }
      first = 0;
    }
    ref_store_i(idx, o.pos, at);
    if (vals) {
      if (flt) ref_store_f(vals, o.pos, ref_load_f(self, best_off));
      else ref_store_i(vals, o.pos, ref_load_i(self, best_off));
    }
  }
}

static tabi_status argminmax(const tabi_host_api *h, const tabi_call *call, tabi_value *args,
                             int want_max, tabi_value *outs) {
  const tabi_tensor *self = args[0].u.t;
  ref_red r;
  tabi_status st = ref_argred_check(h, call, args, 0);
  if (st == TABI_OK) st = ref_red_init(h, call, "dim", self, &args[1], REF_RED_EMPTY_IS_ALL, (int)args[2].u.i, &r);
  if (st != TABI_OK) return st;
  tabi_tensor *idx;
  st = ref_empty(h, self, TABI_DTYPE_INT64, r.out_ndim, r.out_shape, &idx);
  if (st != TABI_OK) return st;
  arg_run(self, &r, want_max, NULL, idx);
  ref_set_out(outs, 0, idx);
  return TABI_OK;
}

static tabi_status k_argmax(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return argminmax(ctx, call, args, 1, outs);
}
static tabi_status k_argmin(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return argminmax(ctx, call, args, 0, outs);
}

static tabi_status minmax_dim(const tabi_host_api *h, const tabi_call *call, tabi_value *args,
                              int want_max, tabi_value *outs) {
  const tabi_tensor *self = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self);
  ref_red r;
  tabi_status st = ref_argred_check(h, call, args, 1);
  if (st == TABI_OK) st = ref_red_init(h, call, "dim", self, &args[1], REF_RED_EMPTY_IS_ALL, (int)args[2].u.i, &r);
  if (st != TABI_OK) return st;
  tabi_tensor *vals, *idx;
  st = ref_empty(h, self, dt, r.out_ndim, r.out_shape, &vals);
  if (st != TABI_OK) return st;
  st = ref_empty(h, self, TABI_DTYPE_INT64, r.out_ndim, r.out_shape, &idx);
  if (st != TABI_OK) {
    h->tensor_release(h->ctx, vals);
    return st;
  }
  arg_run(self, &r, want_max, vals, idx);
  ref_set_out(outs, 0, vals);
  ref_set_out(outs, 1, idx);
  return TABI_OK;
}

static tabi_status k_max_dim(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return minmax_dim(ctx, call, args, 1, outs);
}
static tabi_status k_min_dim(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return minmax_dim(ctx, call, args, 0, outs);
}

/* --- cumsum ------------------------------------------------------------------- */

static tabi_status k_cumsum(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *self = args[0].u.t;
  tabi_dtype as, out_dt;
  ref_red r;
  tabi_status st = ref_cumsum_check(h, call, args, NULL, &as, &out_dt);
  if (st == TABI_OK) st = ref_red_init(h, call, "dim", self, &args[1], REF_RED_EMPTY_IS_ALL, 1, &r);
  if (st != TABI_OK) return st;
  tabi_tensor *out;
  st = ref_empty(h, self, out_dt, self->dl.ndim, self->dl.shape, &out);
  if (st != TABI_OK) return st;
  int cplx = tabi_dtype_is_complex(as), flt = tabi_dtype_is_floating(as);
  ref_iter o;
  ref_red_outer(&r, self, &o);
  int32_t oo = ref_iter_add_strided(&o, r.ndim, r.outer_shape, out->dl.strides);
  for (; !ref_iter_done(&o); ref_iter_next(&o)) {
    ref_iter in;
    ref_red_inner(&r, self, &in);
    int32_t io = ref_iter_add_strided(&in, r.ndim, r.inner_shape, out->dl.strides);
    ref_cplx ac = 0;
    double af = 0;
    int64_t ai = 0;
    for (; !ref_iter_done(&in); ref_iter_next(&in)) {
      int64_t src = o.off[0] + in.off[0], dst = o.off[oo] + in.off[io];
      if (cplx) ref_store_c(out, dst, ac += ref_red_load_c(self, src, as));
      else if (flt) ref_store_f(out, dst, af += ref_red_load_f(self, src, as));
      else ref_store_i(out, dst, ai = ref_wrap_add(ai, ref_red_load_i(self, src, as)));
    }
  }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

/* --- sort / topk ---------------------------------------------------------------- */

typedef struct sort_key {
  double f;
  int64_t i;
  int64_t idx; /* position along the sorted dim */
} sort_key;

/* a < b with NaN as the largest; integers compare as int64. */
static int key_lt(int flt, const sort_key *a, const sort_key *b) {
  if (!flt) return a->i < b->i;
  if (isnan(a->f)) return 0;
  return isnan(b->f) || a->f < b->f;
}

/* Stable merge sort of n keys (tmp has room for n). Descending order compares the
 * other way round; equal keys keep their input order either way. */
static void merge_sort(sort_key *k, sort_key *tmp, int64_t n, int flt, int desc) {
  if (n < 2) return;
  int64_t m = n / 2;
  merge_sort(k, tmp, m, flt, desc);
  merge_sort(k + m, tmp, n - m, flt, desc);
  int64_t a = 0, b = m, t = 0;
  while (a < m && b < n) {
    int right_first = desc ? key_lt(flt, &k[a], &k[b]) : key_lt(flt, &k[b], &k[a]);
    tmp[t++] = right_first ? k[b++] : k[a++];
  }
  while (a < m) tmp[t++] = k[a++];
  while (b < n) tmp[t++] = k[b++];
  for (int64_t i = 0; i < n; i++) k[i] = tmp[i];
}

/* Sorts every slice of self along `dim` and writes the first `keep` of each into
 * vals/idx (whose size along dim is keep; for a 0-d self, one element). */
static tabi_status sort_slices(const tabi_host_api *h, const tabi_tensor *self, int32_t dim,
                               int desc, int64_t keep, tabi_tensor *vals, tabi_tensor *idx) {
  int32_t nd = self->dl.ndim;
  int64_t n = nd ? self->dl.shape[dim] : 1;
  int64_t s_self = nd ? self->dl.strides[dim] : 0, s_val = nd ? vals->dl.strides[dim] : 0;
  int64_t s_idx = nd ? idx->dl.strides[dim] : 0;
  if (nd == 0) keep = 1;
  int flt = tabi_dtype_is_floating(tabi_tensor_dtype(self));
  sort_key *keys = malloc(sizeof(sort_key) * (size_t)(n ? 2 * n : 1));
  if (!keys) return REF_ERR(h, TABI_ERR_OUT_OF_MEMORY, "sort: out of memory for %lld keys", (long long)n);
  int64_t outer[REF_MAX_DIMS];
  for (int32_t d = 0; d < nd; d++) outer[d] = d == dim ? 1 : self->dl.shape[d];
  ref_iter o;
  ref_iter_init(&o, nd, outer);
  int32_t os = ref_iter_add_strided(&o, nd, outer, self->dl.strides);
  int32_t ov = ref_iter_add_strided(&o, nd, outer, vals->dl.strides);
  int32_t oi = ref_iter_add_strided(&o, nd, outer, idx->dl.strides);
  for (; !ref_iter_done(&o); ref_iter_next(&o)) {
    for (int64_t j = 0; j < n; j++) {
      int64_t off = o.off[os] + j * s_self;
      keys[j].idx = j;
      if (flt) keys[j].f = ref_load_f(self, off);
      else keys[j].i = ref_load_i(self, off);
    }
    merge_sort(keys, keys + n, n, flt, desc);
    for (int64_t j = 0; j < keep; j++) {
      if (flt) ref_store_f(vals, o.off[ov] + j * s_val, keys[j].f);
      else ref_store_i(vals, o.off[ov] + j * s_val, keys[j].i);
      ref_store_i(idx, o.off[oi] + j * s_idx, keys[j].idx);
    }
  }
  free(keys);
  return TABI_OK;
}

/* Allocates values (self's dtype) and indices (int64) of self's shape with dim
 * resized to k, and fills them from the sorted slices. */
static tabi_status sort_common(const tabi_host_api *h, const tabi_tensor *self, int32_t dim,
                               int desc, int64_t k, tabi_value *outs) {
  int64_t shape[REF_MAX_DIMS];
  int32_t nd = self->dl.ndim;
  for (int32_t d = 0; d < nd; d++) shape[d] = d == dim ? k : self->dl.shape[d];
  tabi_tensor *vals, *idx = NULL;
  tabi_status st = ref_empty(h, self, tabi_tensor_dtype(self), nd, shape, &vals);
  if (st != TABI_OK) return st;
  st = ref_empty(h, self, TABI_DTYPE_INT64, nd, shape, &idx);
  if (st == TABI_OK) st = sort_slices(h, self, dim, desc, k, vals, idx);
  if (st != TABI_OK) {
    h->tensor_release(h->ctx, vals);
    if (idx) h->tensor_release(h->ctx, idx);
    return st;
  }
  ref_set_out(outs, 0, vals);
  ref_set_out(outs, 1, idx);
  return TABI_OK;
}

static tabi_status k_sort(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *self = args[0].u.t;
  int32_t dim;
  int64_t n;
  tabi_status st = ref_sort_check(h, call, args, &dim, &n);
  if (st != TABI_OK) return st;
  return sort_common(h, self, dim, (int)args[2].u.i, n, outs);
}

static tabi_status k_topk(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *self = args[0].u.t;
  int32_t dim;
  int64_t k;
  tabi_status st = ref_topk_check(h, call, args, &dim, &k);
  if (st != TABI_OK) return st;
  /* largest: descending order; sorted=False is given the sorted order too */
  return sort_common(h, self, dim, (int)args[3].u.i, k, outs);
}

const ref_kernel ref_reduce2_kernels[] = {
    {"aten::argmax", k_argmax},
    {"aten::argmin", k_argmin},
    {"aten::max.dim", k_max_dim},
    {"aten::min.dim", k_min_dim},
    {"aten::cumsum", k_cumsum},
    {"aten::sort", k_sort},
    {"aten::topk", k_topk},
    {NULL, NULL},
};
