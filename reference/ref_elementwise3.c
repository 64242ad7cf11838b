/* reference/ref_elementwise3.c: the elementwise ops that do not fit the unary and
 * binary drivers: three operands (where, clamp.Tensor), Scalar bounds with their
 * own promotion and NaN rules (clamp, hardtanh), out= (atan2.out), dtype
 * conversion and conj.
 */
#include "ref_elementwise.h"
#include "ref_shape_util.h"

#include <math.h>
#include <string.h>

static tabi_status too_many_dims(const tabi_host_api *h, const tabi_call *call, int32_t nd) {
  return REF_ERR(h, TABI_ERR_SHAPE, "%s: %d dims is more than the reference supports (%d)",
                 ref_op_name(h, call), (int)nd, REF_MAX_DIMS);
}

/* --- clamp with Scalar bounds (and hardtanh, which is clamp) --------------------- */

/* ATen: compute in `rt`; with both bounds, a NaN bound makes every element NaN;
 * with one bound a NaN bound is ignored; a NaN element stays NaN; min > max
 * gives max (the max bound is applied last). */
static tabi_status clamp_bounds(const tabi_host_api *h, const tabi_call *call,
                                const tabi_tensor *self, const tabi_value *mn,
                                const tabi_value *mx, const char *mn_name, const char *mx_name,
                                tabi_dtype rt, ref_ew_clamp_plan *out) {
  tabi_status st;
  out->rt = rt;
  out->has_min = mn->tag != TABI_TAG_NONE;
  out->has_max = mx->tag != TABI_TAG_NONE;
  if (out->has_min && (st = ref_ew_scalar_to(h, call, mn_name, mn, rt, &out->lo)) != TABI_OK) return st;
  if (out->has_max && (st = ref_ew_scalar_to(h, call, mx_name, mx, rt, &out->hi)) != TABI_OK) return st;
  if (self->dl.ndim > REF_MAX_DIMS) return too_many_dims(h, call, self->dl.ndim);
  out->all_nan = out->has_min && out->has_max &&
                 (isnan(tabi_value_as_double(mn)) || isnan(tabi_value_as_double(mx)));
  return TABI_OK;
}

tabi_status ref_ew_clamp_plan_init(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_value *args, int hardtanh, ref_ew_clamp_plan *out) {
  const tabi_tensor *self = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self);
  memset(out, 0, sizeof *out);
  if (hardtanh) { /* hardtanh keeps the input dtype; integer tensors take the limits truncated */
    tabi_status st = ref_check_dtype(h, call, "self", dt, REF_DTS_INT | REF_DTS_FLOAT);
    if (st != TABI_OK) return st;
    if (tabi_dtype_is_integral(dt, 0)) {
      /* as Scalar::to<int64_t>: NaN, infinities and values past int64 refused */
      ref_ew_val chk;
      if ((st = ref_ew_scalar_to(h, call, "min_val", &args[1], TABI_DTYPE_INT64, &chk)) != TABI_OK ||
          (st = ref_ew_scalar_to(h, call, "max_val", &args[2], TABI_DTYPE_INT64, &chk)) != TABI_OK)
        return st;
      tabi_value lo = tabi_int(ref_scalar_i(&args[1])), hi = tabi_int(ref_scalar_i(&args[2]));
      if (dt == TABI_DTYPE_UINT8 && (lo.u.i < 0 || hi.u.i < 0))
        return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                       "%s: cannot do hardtanh on an unsigned type with negative limits "
                       "(min_val %lld, max_val %lld)", ref_op_name(h, call), (long long)lo.u.i,
                       (long long)hi.u.i);
      return clamp_bounds(h, call, self, &lo, &hi, "min_val", "max_val", dt, out);
    }
    return clamp_bounds(h, call, self, &args[1], &args[2], "min_val", "max_val", dt, out);
  }
  if (args[1].tag == TABI_TAG_NONE && args[2].tag == TABI_TAG_NONE)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: at least one of 'min' or 'max' must not be None", ref_op_name(h, call));
  /* a floating self keeps its dtype; otherwise the bounds take part in promotion */
  tabi_dtype rt = tabi_dtype_is_floating(dt) ? dt : ref_ew_result_type(&args[0], &args[1], &args[2]);
  if (tabi_dtype_is_complex(dt) || tabi_dtype_is_complex(rt) ||
      args[1].tag == TABI_TAG_COMPLEX || args[2].tag == TABI_TAG_COMPLEX)
    return REF_ERR(h, TABI_ERR_TYPE, "%s: clamp is not supported for complex types (argument "
                   "'self' has dtype %s)", ref_op_name(h, call), tabi_dtype_name(dt));
  if (rt == TABI_DTYPE_BOOL)
    return REF_ERR(h, TABI_ERR_TYPE, "%s: argument 'self' has dtype bool and the bounds are "
                   "bool: clamp is not implemented for bool", ref_op_name(h, call));
  return clamp_bounds(h, call, self, &args[1], &args[2], "min", "max", rt, out);
}

static tabi_status clamp_scalar(void *ctx, const tabi_call *call, tabi_value *args,
                                tabi_value *outs, int hardtanh) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *self = args[0].u.t;
  ref_ew_clamp_plan pl;
  tabi_status st = ref_ew_clamp_plan_init(h, call, args, hardtanh, &pl);
  if (st != TABI_OK) return st;
  tabi_tensor *out;
  if ((st = ref_empty(h, self, pl.rt, self->dl.ndim, self->dl.shape, &out)) != TABI_OK) return st;
  int is_int = ref_ew_category(pl.rt) == 0;
  ref_iter it;
  ref_iter_init(&it, self->dl.ndim, self->dl.shape);
  int32_t ia = ref_iter_add(&it, self), io = ref_iter_add(&it, out);
  for (; !ref_iter_done(&it); ref_iter_next(&it)) {
    ref_ew_val v = ref_ew_load(self, it.off[ia], pl.rt);
    if (is_int) {
      if (pl.has_min && v.i < pl.lo.i) v.i = pl.lo.i;
      if (pl.has_max && v.i > pl.hi.i) v.i = pl.hi.i;
    } else if (pl.all_nan) {
      v.f = NAN;
    } else if (!isnan(v.f)) {
      if (pl.has_min && v.f < pl.lo.f) v.f = pl.lo.f;
      if (pl.has_max && v.f > pl.hi.f) v.f = pl.hi.f;
    }
    ref_ew_store(out, it.off[io], v, pl.rt);
  }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}
static tabi_status k_clamp(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return clamp_scalar(ctx, call, args, outs, 0);
}
static tabi_status k_hardtanh(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return clamp_scalar(ctx, call, args, outs, 1);
}

/* --- three-operand loops ---------------------------------------------------------- */

typedef struct tri {
  const tabi_tensor *t[3];
  int32_t nd;
  int64_t shape[REF_MAX_DIMS];
  tabi_tensor *out;
  ref_iter it;
  int32_t idx[3], io;
} tri;

/* The output shape of three operands: broadcast, or (prims) all the same. */
static tabi_status tri_shape(const tabi_host_api *h, const tabi_call *call,
                             const tabi_tensor *const *t, int broadcast, int32_t *nd,
                             int64_t *shape) {
  tabi_status st;
  if (broadcast) {
    if ((st = ref_broadcast_shape(h, call, 3, t, nd, shape)) != TABI_OK) return st;
  } else {
    const tabi_tensor *a = t[0];
    for (int k = 1; k < 3; k++) {
      const tabi_tensor *b = t[k];
      int same = b->dl.ndim == a->dl.ndim;
      for (int32_t i = 0; same && i < a->dl.ndim; i++) same = a->dl.shape[i] == b->dl.shape[i];
      if (!same) {
        char sa[128], sb[128];
        return REF_ERR(h, TABI_ERR_SHAPE,
                       "%s: argument '%s' has shape %s but '%s' has shape %s; prims do not "
                       "broadcast", ref_op_name(h, call), ref_ew_arg_name(h, call, k),
                       ref_shape_str(sb, sizeof sb, b->dl.ndim, b->dl.shape),
                       ref_ew_arg_name(h, call, 0),
                       ref_shape_str(sa, sizeof sa, a->dl.ndim, a->dl.shape));
      }
    }
    if (a->dl.ndim > REF_MAX_DIMS) return too_many_dims(h, call, a->dl.ndim);
    *nd = a->dl.ndim;
    memcpy(shape, a->dl.shape, sizeof(int64_t) * (size_t)a->dl.ndim);
  }
  return TABI_OK;
}

/* Allocates the output of s->nd, s->shape and sets up the loop. */
static tabi_status tri_alloc(const tabi_host_api *h, tri *s, tabi_dtype outdt) {
  const tabi_tensor *like = s->t[0] ? s->t[0] : s->t[1] ? s->t[1] : s->t[2];
  tabi_status st = ref_empty(h, like, outdt, s->nd, s->shape, &s->out);
  if (st != TABI_OK) return st;
  ref_iter_init(&s->it, s->nd, s->shape);
  for (int k = 0; k < 3; k++) s->idx[k] = s->t[k] ? ref_iter_add(&s->it, s->t[k]) : -1;
  s->io = ref_iter_add(&s->it, s->out);
  return TABI_OK;
}

tabi_status ref_ew_where_plan_init(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_value *args, int prim, ref_ew_where_plan *out) {
  const tabi_tensor *t[3] = {args[0].u.t, args[1].u.t, args[2].u.t};
  memset(out, 0, sizeof *out);
  tabi_dtype dc = tabi_tensor_dtype(t[0]);
  const char *cname = ref_ew_arg_name(h, call, 0);
  /* ATen takes a bool condition (uint8 still accepted, deprecated); prims only bool */
  if (dc != TABI_DTYPE_BOOL && (prim || dc != TABI_DTYPE_UINT8))
    return REF_ERR(h, TABI_ERR_TYPE, "%s: argument '%s' must be a bool tensor; got dtype %s",
                   ref_op_name(h, call), cname, tabi_dtype_name(dc));
  if (prim) {
    tabi_dtype da = tabi_tensor_dtype(t[1]), db = tabi_tensor_dtype(t[2]);
    if (da != db)
      return REF_ERR(h, TABI_ERR_TYPE, "%s: argument '%s' has dtype %s but '%s' has dtype %s; "
                     "prims do not promote", ref_op_name(h, call), ref_ew_arg_name(h, call, 2),
                     tabi_dtype_name(db), ref_ew_arg_name(h, call, 1), tabi_dtype_name(da));
    out->rt = da;
  } else {
    out->rt = ref_ew_result_type(&args[1], &args[2], NULL);
  }
  return tri_shape(h, call, t, !prim, &out->nd, out->shape);
}

static tabi_status where_run(const tabi_host_api *h, const tabi_call *call, tabi_value *args,
                             tabi_value *outs, int prim) {
  ref_ew_where_plan pl;
  tabi_status st = ref_ew_where_plan_init(h, call, args, prim, &pl);
  if (st != TABI_OK) return st;
  tri s;
  memset(&s, 0, sizeof s);
  for (int k = 0; k < 3; k++) s.t[k] = args[k].u.t;
  tabi_dtype rt = pl.rt;
  s.nd = pl.nd; /* the plan has the shape already */
  memcpy(s.shape, pl.shape, sizeof(int64_t) * (size_t)pl.nd);
  if ((st = tri_alloc(h, &s, rt)) != TABI_OK) return st;
  for (; !ref_iter_done(&s.it); ref_iter_next(&s.it)) {
    int pick = ref_load_i(s.t[0], s.it.off[s.idx[0]]) != 0 ? 1 : 2;
    ref_ew_val v = ref_ew_load(s.t[pick], s.it.off[s.idx[pick]], rt);
    ref_ew_store(s.out, s.it.off[s.io], v, rt);
  }
  ref_set_out(outs, 0, s.out);
  return TABI_OK;
}

static tabi_status k_where(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return where_run(ctx, call, args, outs, 0);
}
static tabi_status p_where(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return where_run(ctx, call, args, outs, 1);
}

tabi_status ref_ew_clamp_tensor_plan_init(const tabi_host_api *h, const tabi_call *call,
                                          const tabi_value *args, ref_ew_clamp_tensor_plan *out) {
  memset(out, 0, sizeof *out);
  const tabi_tensor *t[3];
  for (int k = 0; k < 3; k++) t[k] = args[k].tag == TABI_TAG_TENSOR ? args[k].u.t : NULL;
  out->has_min = t[1] != NULL;
  out->has_max = t[2] != NULL;
  if (!out->has_min && !out->has_max)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: at least one of 'min' or 'max' must not be None", ref_op_name(h, call));
  tabi_dtype rt = ref_ew_result_type(&args[0], &args[1], &args[2]);
  if (tabi_dtype_is_complex(rt))
    return REF_ERR(h, TABI_ERR_TYPE, "%s: clamp is not supported for complex types (promoted "
                   "dtype %s)", ref_op_name(h, call), tabi_dtype_name(rt));
  if (rt == TABI_DTYPE_BOOL && out->has_min && out->has_max)
    return REF_ERR(h, TABI_ERR_TYPE, "%s: clamp with both 'min' and 'max' is not implemented "
                   "for bool", ref_op_name(h, call));
  out->rt = rt;
  return tri_shape(h, call, t, 1, &out->nd, out->shape);
}

/* clamp with tensor bounds, on ref_ew_clamp_tensor_plan_init's plan. */
static tabi_status k_clamp_tensor(void *ctx, const tabi_call *call, tabi_value *args,
                                  tabi_value *outs) {
  const tabi_host_api *h = ctx;
  ref_ew_clamp_tensor_plan pl;
  tabi_status st = ref_ew_clamp_tensor_plan_init(h, call, args, &pl);
  if (st != TABI_OK) return st;
  tri s;
  memset(&s, 0, sizeof s);
  for (int k = 0; k < 3; k++) s.t[k] = args[k].tag == TABI_TAG_TENSOR ? args[k].u.t : NULL;
  int has_min = pl.has_min, has_max = pl.has_max;
  tabi_dtype rt = pl.rt;
  s.nd = pl.nd;
  memcpy(s.shape, pl.shape, sizeof(int64_t) * (size_t)pl.nd);
  if ((st = tri_alloc(h, &s, rt)) != TABI_OK) return st;
  int is_int = ref_ew_category(rt) == 0;
  for (; !ref_iter_done(&s.it); ref_iter_next(&s.it)) {
    ref_ew_val v = ref_ew_load(s.t[0], s.it.off[s.idx[0]], rt), lo = v, hi = v;
    if (has_min) lo = ref_ew_load(s.t[1], s.it.off[s.idx[1]], rt);
    if (has_max) hi = ref_ew_load(s.t[2], s.it.off[s.idx[2]], rt);
    if (is_int) {
      if (has_min && v.i < lo.i) v.i = lo.i;
      if (has_max && v.i > hi.i) v.i = hi.i;
    } else if (has_min && has_max && (isnan(lo.f) || isnan(hi.f))) {
      v.f = NAN;
    } else if (!isnan(v.f)) {
      if (has_min && (isnan(lo.f) || v.f < lo.f)) v.f = lo.f;
      if (has_max && (isnan(hi.f) || v.f > hi.f)) v.f = hi.f;
    }
    ref_ew_store(s.out, s.it.off[s.io], v, rt);
  }
  ref_set_out(outs, 0, s.out);
  return TABI_OK;
}

/* --- atan2.out ----------------------------------------------------------------------- */

static double f_atan2(double a, double b, ref_ew_ctx *x) { return atan2(a, b); }
static const ref_ew_binary_op op_atan2_out = {REF_DTS_BOOL | REF_DTS_INT | REF_DTS_FLOAT,
                                              REF_EW_INT_TO_FLOAT, 0, NULL, f_atan2, NULL, NULL};

/* Computes into a temporary (out may alias an input), then resizes `out` to the
 * result's shape when it differs, as ATen's resize_output, and copies. */
static tabi_status k_atan2_out(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *out = args[2].u.t, *r = NULL;
  if (out->flags & TABI_TENSOR_READ_ONLY)
    return REF_ERR(h, TABI_ERR_READ_ONLY, "%s: argument 'out' is read-only", ref_op_name(h, call));
  static const char *const names[2] = {"self", "other"};
  tabi_status st = rs_check_out_overlap(h, call, out, args, names, 2);
  if (st == TABI_OK) st = ref_ew_binary_run(h, call, args, &op_atan2_out, &r);
  if (st != TABI_OK) return st;
  tabi_dtype rd = tabi_tensor_dtype(r), od = tabi_tensor_dtype(out);
  if (!ref_ew_can_cast(rd, od)) {
    h->tensor_release(h->ctx, r);
    return REF_ERR(h, TABI_ERR_TYPE, "%s: argument 'out': result type %s can't be cast to the "
                   "desired output type %s", ref_op_name(h, call), tabi_dtype_name(rd),
                   tabi_dtype_name(od));
  }
  int same = out->dl.ndim == r->dl.ndim;
  for (int32_t i = 0; same && i < r->dl.ndim; i++) same = out->dl.shape[i] == r->dl.shape[i];
  if (!same && (st = h->tensor_resize(h->ctx, out, r->dl.ndim, r->dl.shape)) != TABI_OK) {
    h->tensor_release(h->ctx, r);
    return st;
  }
  ref_copy_convert(out, r);
  h->tensor_release(h->ctx, r);
  h->tensor_retain(h->ctx, out);
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

/* --- dtype conversion and conj ------------------------------------------------------ */

static tabi_status k_convert(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *a = args[0].u.t;
  tabi_dtype to = args[1].u.dtype, from = tabi_tensor_dtype(a);
  if (tabi_dtype_size(to) == 0)
    return REF_ERR(h, TABI_ERR_TYPE, "%s: argument 'dtype' is not a supported dtype (code %d)",
                   ref_op_name(h, call), (int)to);
  if (a->dl.ndim > REF_MAX_DIMS) return too_many_dims(h, call, a->dl.ndim);
  tabi_tensor *out;
  tabi_status st = ref_empty(h, a, to, a->dl.ndim, a->dl.shape, &out);
  if (st != TABI_OK) return st;
  ref_iter it;
  ref_iter_init(&it, a->dl.ndim, a->dl.shape);
  int32_t ia = ref_iter_add(&it, a), io = ref_iter_add(&it, out);
  ref_ew_val v = {0, 0.0, 0.0};
  for (; !ref_iter_done(&it); ref_iter_next(&it)) {
    switch (ref_ew_category(from)) {
      case 0: v.i = ref_load_i(a, it.off[ia]); break;
      case 1: v.f = ref_load_f(a, it.off[ia]); break;
      default: v.c = ref_load_c(a, it.off[ia]); break;
    }
    ref_ew_store(out, it.off[io], ref_ew_cast(v, from, to), to);
  }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

/* prims::conj takes complex tensors only (as PrimTorch's prims.conj). It is a view
 * in PrimTorch (the conjugate bit); tabi tensors have no such bit, so the result
 * is a new, conjugated tensor. */
static tabi_status k_conj(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *a = args[0].u.t, *out;
  tabi_status st = ref_check_dtype(h, call, "a", tabi_tensor_dtype(a), REF_DTS_COMPLEX);
  if (st != TABI_OK) return st;
  if (a->dl.ndim > REF_MAX_DIMS) return too_many_dims(h, call, a->dl.ndim);
  if ((st = ref_empty(h, a, tabi_tensor_dtype(a), a->dl.ndim, a->dl.shape, &out)) != TABI_OK)
    return st;
  ref_iter it;
  ref_iter_init(&it, a->dl.ndim, a->dl.shape);
  int32_t ia = ref_iter_add(&it, a), io = ref_iter_add(&it, out);
  for (; !ref_iter_done(&it); ref_iter_next(&it))
    ref_store_c(out, it.off[io], conj(ref_load_c(a, it.off[ia])));
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

const ref_kernel ref_elementwise3_kernels[] = {
    {"aten::clamp", k_clamp},
    {"aten::clamp.Tensor", k_clamp_tensor},
    {"aten::hardtanh", k_hardtanh},
    {"aten::where.self", k_where},
    {"aten::atan2.out", k_atan2_out},
    {"prims::where", p_where},
    {"prims::convert_element_type", k_convert},
    {"prims::conj", k_conj},
    {NULL, NULL}};
