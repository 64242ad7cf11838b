/* reference/ref_elementwise_drive.c: the unary and binary elementwise drivers and
 * the cast/load/store helpers they share (see ref_elementwise.h).
 *
 * Every input is first cast to the compute dtype exactly as ATen's TensorIterator
 * does when it promotes inputs to the common dtype (so int64 2^24+1 compared with
 * a float scalar is first rounded to float32), then the element function computes
 * in int64 / double / complex double, and the result is rounded once at the store.
 */
#include "ref_elementwise.h"

#include <math.h>
#include <string.h>

int ref_ew_category(tabi_dtype dt) {
  if (tabi_dtype_is_complex(dt)) return 2;
  if (tabi_dtype_is_floating(dt)) return 1;
  return 0;
}

const char *ref_ew_arg_name(const tabi_host_api *h, const tabi_call *call, int32_t i) {
  const tabi_op_info *info = h->op_info(h->ctx, call->op);
  if (!info || i < 0 || i >= info->nargs) return "?";
  const tabi_arg_info *a =
      (const tabi_arg_info *)((const char *)info->args + (size_t)i * info->arg_info_size);
  return a->name ? a->name : "?";
}

tabi_dtype ref_ew_real_dtype(tabi_dtype dt) {
  if (dt == TABI_DTYPE_COMPLEX64) return TABI_DTYPE_FLOAT32;
  if (dt == TABI_DTYPE_COMPLEX128) return TABI_DTYPE_FLOAT64;
  return dt;
}

int ref_ew_bits(tabi_dtype dt) {
  return dt == TABI_DTYPE_BOOL ? 1 : (int)tabi_dtype_size(dt) * 8;
}

int ref_ew_str_is(const tabi_value *v, const char *s) {
  if (v->tag != TABI_TAG_STRING) return 0;
  size_t n = strlen(s);
  return v->u.list.len == (int64_t)n && memcmp(tabi_value_str(v), s, n) == 0;
}

typedef union ew_buf {
  int64_t i;
  double d[2];
} ew_buf;

ref_ew_val ref_ew_cast(ref_ew_val v, tabi_dtype src, tabi_dtype dt) {
  ew_buf buf;
  int cs = ref_ew_category(src), cd = ref_ew_category(dt);
  if (src == dt) return v;
  if (cs == 0 && cd != 0 && dt != TABI_DTYPE_FLOAT64 && dt != TABI_DTYPE_COMPLEX128)
    /* static_cast<float>(int64) rounds once; going through double could round twice */
    ref_store_f_ptr(&buf, dt, (double)(float)v.i);
  else if (cs == 0)
    ref_store_i_ptr(&buf, dt, v.i);
  else if (cs == 1)
    ref_store_f_ptr(&buf, dt, v.f);
  else
    ref_store_c_ptr(&buf, dt, v.c);
  ref_ew_val r = {0, 0.0, 0.0};
  if (cd == 0) r.i = ref_load_i_ptr(&buf, dt);
  else if (cd == 1) r.f = ref_load_f_ptr(&buf, dt);
  else r.c = ref_load_c_ptr(&buf, dt);
  return r;
}

double ref_ew_round(double v, tabi_dtype dt) {
  ew_buf buf;
  ref_store_f_ptr(&buf, dt, v);
  return ref_load_f_ptr(&buf, dt);
}

double ref_ew_round_opmath(double v, tabi_dtype dt) {
  return dt == TABI_DTYPE_FLOAT64 || dt == TABI_DTYPE_COMPLEX128 ? v : (double)(float)v;
}

ref_ew_val ref_ew_scalar(const tabi_value *s, tabi_dtype *out_dtype) {
  ref_ew_val v = {0, 0.0, 0.0};
  *out_dtype = ref_scalar_dtype(s);
  switch (s->tag) {
    case TABI_TAG_BOOL: case TABI_TAG_INT: v.i = s->u.i; break;
    case TABI_TAG_FLOAT: v.f = s->u.f; break;
    case TABI_TAG_COMPLEX: v.c = ref_scalar_c(s); break;
    default: break;
  }
  return v;
}

ref_ew_val ref_ew_load(const tabi_tensor *t, int64_t off, tabi_dtype cd) {
  tabi_dtype src = tabi_tensor_dtype(t);
  ref_ew_val v = {0, 0.0, 0.0};
  switch (ref_ew_category(src)) {
    case 0: v.i = ref_load_i(t, off); break;
    case 1: v.f = ref_load_f(t, off); break;
    default: v.c = ref_load_c(t, off); break;
  }
  return ref_ew_cast(v, src, cd);
}

void ref_ew_store(tabi_tensor *out, int64_t off, ref_ew_val v, tabi_dtype cd) {
  switch (ref_ew_category(cd)) {
    case 0: ref_store_i(out, off, v.i); break;
    case 1: ref_store_f(out, off, v.f); break;
    default: ref_store_c(out, off, v.c); break;
  }
}

/* Limits of dt as doubles, for the checked Scalar conversion. */
static void dtype_limits(tabi_dtype dt, double *lo, double *hi) {
  switch (dt) {
    case TABI_DTYPE_UINT8: *lo = 0; *hi = 255; break;
    case TABI_DTYPE_INT8: *lo = -128; *hi = 127; break;
    case TABI_DTYPE_INT16: *lo = -32768; *hi = 32767; break;
    case TABI_DTYPE_INT32: *lo = -2147483648.0; *hi = 2147483647.0; break;
    case TABI_DTYPE_INT64: *lo = -9223372036854775808.0; *hi = 9223372036854775807.0; break;
    case TABI_DTYPE_FLOAT16: *lo = -65504.0; *hi = 65504.0; break;
    case TABI_DTYPE_BFLOAT16: *lo = -3.3895313892515355e38; *hi = 3.3895313892515355e38; break;
    case TABI_DTYPE_FLOAT32: case TABI_DTYPE_COMPLEX64: *lo = -3.4028234663852886e38; *hi = 3.4028234663852886e38; break;
    default: *lo = -INFINITY; *hi = INFINITY; break;
  }
}

static int int_overflows(int64_t v, tabi_dtype dt) {
  switch (dt) {
    case TABI_DTYPE_UINT8: return v > 255 || v < -255; /* c10 lets negatives wrap */
    case TABI_DTYPE_INT8: return v > 127 || v < -128;
    case TABI_DTYPE_INT16: return v > 32767 || v < -32768;
    case TABI_DTYPE_INT32: return v > 2147483647 || v < -2147483647 - 1;
    default: return 0;
  }
}

tabi_status ref_ew_scalar_to(const tabi_host_api *h, const tabi_call *call, const char *arg,
                             const tabi_value *s, tabi_dtype dt, ref_ew_val *out) {
  tabi_dtype sdt;
  ref_ew_val v = ref_ew_scalar(s, &sdt);
  int bad = 0;
  if (dt != TABI_DTYPE_BOOL && sdt != TABI_DTYPE_BOOL) {
    if (sdt == TABI_DTYPE_COMPLEX128 && !tabi_dtype_is_complex(dt) && cimag(v.c) != 0) bad = 1;
    double re = sdt == TABI_DTYPE_COMPLEX128 ? creal(v.c) : v.f;
    if (sdt == TABI_DTYPE_INT64) {
      if (ref_ew_category(dt) == 0) bad = int_overflows(v.i, dt);
      else { double lo, hi; dtype_limits(dt, &lo, &hi); bad = (double)v.i < lo || (double)v.i > hi; }
    } else if (!bad) {
      double lo, hi;
      dtype_limits(dt, &lo, &hi);
      if (ref_ew_category(dt) == 0) bad = !(re >= lo && re <= hi);
      else if (!isinf(re) && !isnan(re)) bad = re < lo || re > hi;
      /* c10 checks both parts for a complex dtype: 1e308j does not fit complex64 */
      double im = sdt == TABI_DTYPE_COMPLEX128 && tabi_dtype_is_complex(dt) ? cimag(v.c) : 0;
      if (!isinf(im) && !isnan(im) && (im < lo || im > hi)) bad = 1;
    }
  }
  if (bad)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument '%s': value cannot be converted to type %s without overflow",
                   ref_op_name(h, call), arg, tabi_dtype_name(dt));
  *out = ref_ew_cast(v, sdt, dt);
  return TABI_OK;
}

tabi_dtype ref_ew_result_type(const tabi_value *a, const tabi_value *b, const tabi_value *c) {
  ref_result_type rt;
  const tabi_value *vs[3] = {a, b, c};
  ref_rt_init(&rt);
  for (int k = 0; k < 3; k++) {
    if (!vs[k]) continue;
    if (vs[k]->tag == TABI_TAG_TENSOR) ref_rt_tensor(&rt, vs[k]->u.t);
    else if (vs[k]->tag != TABI_TAG_NONE) ref_rt_scalar(&rt, vs[k]);
  }
  return ref_rt_result(&rt);
}

int ref_ew_can_cast(tabi_dtype from, tabi_dtype to) {
  if (tabi_dtype_is_complex(from) && !tabi_dtype_is_complex(to)) return 0;
  if (tabi_dtype_is_floating(from) && tabi_dtype_is_integral(to, 1)) return 0;
  if (from != TABI_DTYPE_BOOL && to == TABI_DTYPE_BOOL) return 0;
  return 1;
}

tabi_status ref_ew_zero_div_error(const tabi_host_api *h, const tabi_call *call, const char *arg) {
  return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                 "%s: ZeroDivisionError: integer division or remainder by zero (argument '%s' "
                 "has a zero element)",
                 ref_op_name(h, call), arg);
}

/* The result and compute dtypes from the promoted input dtype and the rule. */
static void apply_rule(int32_t rule, tabi_dtype common, tabi_dtype *cd, tabi_dtype *outdt) {
  *cd = common;
  *outdt = common;
  switch (rule) {
    case REF_EW_INT_TO_FLOAT:
      if (tabi_dtype_is_integral(common, 1)) *cd = *outdt = TABI_DTYPE_FLOAT32;
      break;
    case REF_EW_BOOL: *outdt = TABI_DTYPE_BOOL; break;
    case REF_EW_TO_REAL: *outdt = ref_ew_real_dtype(common); break;
    default: break;
  }
}

static tabi_status missing_category(const tabi_host_api *h, const tabi_call *call, tabi_dtype cd) {
  return REF_ERR(h, TABI_ERR_TYPE, "%s: not implemented for dtype %s", ref_op_name(h, call),
                 tabi_dtype_name(cd));
}

tabi_status ref_ew_unary_plan_init(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_value *args, const ref_ew_unary_op *op,
                                   ref_ew_unary_plan *out) {
  const tabi_tensor *self = args[0].u.t;
  const char *name = ref_ew_arg_name(h, call, 0);
  tabi_dtype dt = tabi_tensor_dtype(self);
  memset(out, 0, sizeof *out);
  tabi_status st = ref_check_dtype(h, call, name, dt, op->dtypes);
  if (st != TABI_OK) return st;
  if (self->dl.ndim > REF_MAX_DIMS)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument '%s' has %d dims; the reference takes at most %d",
                   ref_op_name(h, call), name, (int)self->dl.ndim, REF_MAX_DIMS);
  apply_rule(op->rule, dt, &out->cd, &out->outdt);
  int cat = ref_ew_category(out->cd);
  if ((cat == 0 && !op->fi) || (cat == 1 && !op->ff) || (cat == 2 && !op->fc))
    return missing_category(h, call, out->cd);
  out->x.cd = out->cd;
  if (op->prepare && (st = op->prepare(h, call, args, dt, &out->x)) != TABI_OK) return st;
  return TABI_OK;
}

tabi_status ref_ew_unary_kernel(const tabi_host_api *h, const tabi_call *call,
                                tabi_value *args, tabi_value *outs, const ref_ew_unary_op *op) {
  const tabi_tensor *self = args[0].u.t;
  ref_ew_unary_plan pl;
  tabi_status st = ref_ew_unary_plan_init(h, call, args, op, &pl);
  if (st != TABI_OK) return st;
  tabi_dtype cd = pl.cd, outdt = pl.outdt;
  int cat = ref_ew_category(cd);
  ref_ew_ctx x = pl.x;
  tabi_tensor *out = NULL;
  st = ref_empty(h, self, outdt, self->dl.ndim, self->dl.shape, &out);
  if (st != TABI_OK) return st;
  ref_iter it;
  ref_iter_init(&it, self->dl.ndim, self->dl.shape);
  int32_t ia = ref_iter_add(&it, self), io = ref_iter_add(&it, out);
  for (; !ref_iter_done(&it); ref_iter_next(&it)) {
    ref_ew_val v = ref_ew_load(self, it.off[ia], cd);
    if (cat == 0) v.i = op->fi(v.i, &x);
    else if (cat == 1) v.f = op->ff(v.f, &x);
    else v.c = op->fc(v.c, &x);
    ref_ew_store(out, it.off[io], v, cd);
  }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

/* prims take tensors of one dtype and one shape: they neither promote nor broadcast. */
static tabi_status check_prim_pair(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_tensor *a, const tabi_tensor *b, const char *an,
                                   const char *bn) {
  tabi_dtype da = tabi_tensor_dtype(a), db = tabi_tensor_dtype(b);
  if (da != db)
    return REF_ERR(h, TABI_ERR_TYPE,
                   "%s: argument '%s' has dtype %s but '%s' has dtype %s; prims do not promote "
                   "(convert with prims::convert_element_type)",
                   ref_op_name(h, call), bn, tabi_dtype_name(db), an, tabi_dtype_name(da));
  int same = a->dl.ndim == b->dl.ndim;
  for (int32_t i = 0; same && i < a->dl.ndim; i++) same = a->dl.shape[i] == b->dl.shape[i];
  if (!same) {
    char sa[128], sb[128];
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: argument '%s' has shape %s but '%s' has shape %s; prims do not broadcast "
                   "(use prims::broadcast_in_dim)",
                   ref_op_name(h, call), bn, ref_shape_str(sb, sizeof sb, b->dl.ndim, b->dl.shape),
                   an, ref_shape_str(sa, sizeof sa, a->dl.ndim, a->dl.shape));
  }
  return TABI_OK;
}

tabi_status ref_ew_binary_plan_init(const tabi_host_api *h, const tabi_call *call,
                                    const tabi_value *args, const ref_ew_binary_op *op,
                                    ref_ew_binary_plan *out) {
  const tabi_value *a = &args[0], *b = &args[1];
  const char *an = ref_ew_arg_name(h, call, 0), *bn = ref_ew_arg_name(h, call, 1);
  const tabi_tensor *ts[2] = {a->tag == TABI_TAG_TENSOR ? a->u.t : NULL,
                              b->tag == TABI_TAG_TENSOR ? b->u.t : NULL};
  tabi_dtype common;
  tabi_status st;
  memset(out, 0, sizeof *out);
  if (op->flags & REF_EW_PRIM) {
    if (!ts[0] || !ts[1])
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: prims take tensors only", ref_op_name(h, call));
    if ((st = check_prim_pair(h, call, ts[0], ts[1], an, bn)) != TABI_OK) return st;
    common = tabi_tensor_dtype(ts[0]);
  } else {
    common = ref_ew_result_type(a, b, NULL);
  }
  const char *which = "self and other (promoted)";
  if (ts[0] && tabi_tensor_dtype(ts[0]) == common) which = an;
  else if (ts[1] && tabi_tensor_dtype(ts[1]) == common) which = bn;
  if ((st = ref_check_dtype(h, call, which, common, op->dtypes)) != TABI_OK) return st;
  apply_rule(op->rule, common, &out->cd, &out->outdt);
  int cat = ref_ew_category(out->cd);
  if ((cat == 0 && !op->fi) || (cat == 1 && !op->ff) || (cat == 2 && !op->fc))
    return missing_category(h, call, out->cd);
  out->x.cd = out->cd;
  if (op->prepare && (st = op->prepare(h, call, args, common, &out->x)) != TABI_OK) return st;
  if ((st = ref_broadcast_shape(h, call, 2, ts, &out->nd, out->shape)) != TABI_OK) return st;
  /* Scalars are cast to the compute dtype once, as ATen casts a wrapped number. */
  for (int k = 0; k < 2; k++) {
    out->t[k] = ts[k];
    if (ts[k]) continue;
    tabi_dtype sdt;
    ref_ew_val v = ref_ew_scalar(k ? b : a, &sdt);
    out->sv[k] = ref_ew_cast(v, sdt, out->cd);
  }
  return TABI_OK;
}

tabi_status ref_ew_binary_run(const tabi_host_api *h, const tabi_call *call, tabi_value *args,
                              const ref_ew_binary_op *op, tabi_tensor **out) {
  ref_ew_binary_plan pl;
  *out = NULL;
  tabi_status st = ref_ew_binary_plan_init(h, call, args, op, &pl);
  if (st != TABI_OK) return st;
  tabi_dtype cd = pl.cd;
  int cat = ref_ew_category(cd);
  ref_ew_ctx x = pl.x;
  const tabi_tensor **ts = pl.t;
  tabi_tensor *o = NULL;
  if ((st = ref_empty(h, ts[0] ? ts[0] : ts[1], pl.outdt, pl.nd, pl.shape, &o)) != TABI_OK) return st;
  ref_iter it;
  ref_iter_init(&it, pl.nd, pl.shape);
  int32_t ia = ts[0] ? ref_iter_add(&it, ts[0]) : -1;
  int32_t ib = ts[1] ? ref_iter_add(&it, ts[1]) : -1;
  int32_t io = ref_iter_add(&it, o);
  for (; !ref_iter_done(&it); ref_iter_next(&it)) {
    ref_ew_val va = ia >= 0 ? ref_ew_load(ts[0], it.off[ia], cd) : pl.sv[0];
    ref_ew_val vb = ib >= 0 ? ref_ew_load(ts[1], it.off[ib], cd) : pl.sv[1];
    if (cat == 0) va.i = op->fi(va.i, vb.i, &x);
    else if (cat == 1) va.f = op->ff(va.f, vb.f, &x);
    else va.c = op->fc(va.c, vb.c, &x);
    if (x.err) break;
    ref_ew_store(o, it.off[io], va, cd);
  }
  if (x.err) {
    h->tensor_release(h->ctx, o);
    return ref_ew_zero_div_error(h, call, ref_ew_arg_name(h, call, 1));
  }
  *out = o;
  return TABI_OK;
}

tabi_status ref_ew_binary_kernel(const tabi_host_api *h, const tabi_call *call,
                                 tabi_value *args, tabi_value *outs, const ref_ew_binary_op *op) {
  tabi_tensor *o = NULL;
  tabi_status st = ref_ew_binary_run(h, call, args, op, &o);
  if (st == TABI_OK) ref_set_out(outs, 0, o);
  return st;
}
