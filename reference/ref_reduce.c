/* reference/ref_reduce.c: full reductions: sum, prod, mean, amax, amin, any, var,
 * in their ATen overloads and as prims.
 *
 * Every kernel parses its arguments into a dims plan (ref_reduce_util.h), picks
 * the dtype the input is cast to first (`as`) and the output dtype, then runs
 * reduce_run: integers and bool accumulate in int64 (wrapping like two's
 * complement), floats in double, complex in complex double, rounded once at the
 * store. ATen's rules, checked against torch 1.13:
 *  - sum/prod of integers or bool give int64; `dtype=` casts the input first.
 *  - mean needs a floating or complex dtype (of the input, or of `dtype=`).
 *  - amax/amin refuse complex, propagate NaN, keep the first of equal values
 *    (so amax([-0., 0.]) is -0.); an empty reduction is an error.
 *  - any gives bool (uint8 for uint8 input, as ATen keeps for compatibility).
 *  - var: two passes in double, divisor max(N - correction, 0) (0/0 = NaN,
 *    x/0 = inf; an empty group is NaN even for a negative correction),
 *    complex input gives the real dtype.
 *  - prims never promote: the output has the input's dtype, or output_dtype.
 */
#include "ref_cplx_util.h"
#include "ref_reduce_util.h"

#include <math.h>


/* NaN-propagating max/min that keep the first of equal values. */
static double pick_f(int kind, double acc, double v) {
  if (isnan(acc)) return acc;
  if (isnan(v)) return v;
  if (kind == REF_RED_AMAX) return v > acc ? v : acc;
  return v < acc ? v : acc;
}

/* Reduces self over r into a new tensor of dtype out_dt, reading self as if cast
 * to `as` first. `correction` is used by REF_RED_VAR only. */
static tabi_status reduce_run(const tabi_host_api *h, const tabi_call *call,
                              const tabi_tensor *self, const ref_red *r, int kind, tabi_dtype as,
                              tabi_dtype out_dt, int64_t correction, tabi_value *outs) {
  tabi_tensor *out;
  tabi_status st = ref_empty(h, self, out_dt, r->out_ndim, r->out_shape, &out);
  if (st != TABI_OK) return st;
  int cplx = tabi_dtype_is_complex(as), flt = tabi_dtype_is_floating(as);
  ref_iter o;
  ref_red_outer(r, self, &o);
  for (; !ref_iter_done(&o); ref_iter_next(&o)) {
    ref_iter in;
    int64_t pos = o.pos;
    if (kind == REF_RED_ANY) {
      int any = 0;
      for (ref_red_inner(r, self, &in); !ref_iter_done(&in) && !any; ref_iter_next(&in)) {
        ref_cplx v = ref_load_c(self, o.off[0] + in.off[0]);
        any = creal(v) != 0 || cimag(v) != 0; /* NaN counts as true */
      }
      ref_store_i(out, pos, any);
      continue;
    }
    if (kind == REF_RED_VAR) {
      /* Two passes: the mean, then the sum of squared distances from it. */
      ref_cplx mean = 0;
      for (ref_red_inner(r, self, &in); !ref_iter_done(&in); ref_iter_next(&in))
        mean += ref_load_c(self, o.off[0] + in.off[0]);
      mean /= (double)r->group;
      double m2 = 0;
      for (ref_red_inner(r, self, &in); !ref_iter_done(&in); ref_iter_next(&in)) {
        ref_cplx d = ref_load_c(self, o.off[0] + in.off[0]) - mean;
        m2 += creal(d) * creal(d) + cimag(d) * cimag(d);
      }
      double div = (double)r->group - (double)correction;
      if (div < 0) div = 0;
      /* ATen fills the variance of an empty input with NaN, whatever the correction */
      ref_store_f(out, pos, r->group == 0 ? NAN : m2 / div);
      continue;
    }
    if (cplx) {
      ref_cplx acc = kind == REF_RED_PROD ? 1 : 0;
      for (ref_red_inner(r, self, &in); !ref_iter_done(&in); ref_iter_next(&in)) {
        ref_cplx v = ref_red_load_c(self, o.off[0] + in.off[0], as);
        acc = kind == REF_RED_PROD ? acc * v : acc + v;
      }
      /* ATen's mean is sum(...).div_(n): a c10::complex division by (n + 0i), so a
       * NaN in either part of the sum makes both parts NaN */
      if (kind == REF_RED_MEAN) acc = ref_c10_div(acc, (double)r->group);
      ref_store_c(out, pos, acc);
    } else if (flt || kind == REF_RED_MEAN) {
      double acc = kind == REF_RED_PROD ? 1.0 : 0.0;
      int first = 1;
      for (ref_red_inner(r, self, &in); !ref_iter_done(&in); ref_iter_next(&in)) {
        double v = ref_red_load_f(self, o.off[0] + in.off[0], as);
        if (kind == REF_RED_AMAX || kind == REF_RED_AMIN) acc = first ? v : pick_f(kind, acc, v);
        else if (kind == REF_RED_PROD) acc *= v;
        else acc += v;
        first = 0;
      }
      if (kind == REF_RED_MEAN) acc /= (double)r->group;
      ref_store_f(out, pos, acc);
    } else {
      int64_t acc = kind == REF_RED_PROD ? 1 : 0;
      int first = 1;
      for (ref_red_inner(r, self, &in); !ref_iter_done(&in); ref_iter_next(&in)) {
        int64_t v = ref_red_load_i(self, o.off[0] + in.off[0], as);
        if (kind == REF_RED_AMAX) acc = first || v > acc ? v : acc;
        else if (kind == REF_RED_AMIN) acc = first || v < acc ? v : acc;
        else if (kind == REF_RED_PROD) acc = ref_wrap_mul(acc, v);
        else acc = ref_wrap_add(acc, v);
        first = 0;
      }
      ref_store_i(out, pos, acc);
    }
  }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

/* --- the aten reductions' plans ---------------------------------------------- */

/* A plan that reduces self over r as `kind`, reading it as `as`, into out_dt. */
static tabi_status planned(const ref_red *r, int kind, tabi_dtype as, tabi_dtype out_dt,
                           int64_t correction, ref_red_aten_plan *out) {
  out->r = *r;
  out->kind = kind;
  out->as = as;
  out->out_dt = out_dt;
  out->correction = correction;
  return TABI_OK;
}

/* sum/prod: `dtype=` casts first; without it integers and bool give int64. */
static tabi_status sum_prod(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *self,
                            const ref_red *r, int kind, const tabi_value *dtype_arg,
                            ref_red_aten_plan *out) {
  tabi_dtype dt = tabi_tensor_dtype(self), want = ref_red_opt_dtype(dtype_arg);
  tabi_status st = ref_check_dtype(h, call, "self", dt, REF_DTS_ALL);
  if (st != TABI_OK) return st;
  if (want != TABI_DTYPE_INVALID) {
    st = ref_check_dtype(h, call, "dtype", want, REF_DTS_ALL);
    if (st != TABI_OK) return st;
    return planned(r, kind, want, want, 0, out);
  }
  tabi_dtype out_dt = tabi_dtype_is_integral(dt, 1) ? TABI_DTYPE_INT64 : dt;
  return planned(r, kind, dt, out_dt, 0, out);
}

tabi_status ref_red_plan_sum_dim(const tabi_host_api *h, const tabi_call *call,
                                 const tabi_value *args, ref_red_aten_plan *out) {
  ref_red r;
  tabi_status st = ref_red_init(h, call, "dim", args[0].u.t, &args[1], REF_RED_EMPTY_IS_ALL,
                                (int)args[2].u.i, &r);
  if (st != TABI_OK) return st;
  return sum_prod(h, call, args[0].u.t, &r, REF_RED_SUM, &args[3], out);
}

tabi_status ref_red_plan_prod(const tabi_host_api *h, const tabi_call *call,
                              const tabi_value *args, ref_red_aten_plan *out) {
  ref_red r;
  tabi_value none = tabi_none();
  tabi_status st = ref_red_init(h, call, "dim", args[0].u.t, &none, REF_RED_EMPTY_IS_ALL, 0, &r);
  if (st != TABI_OK) return st;
  return sum_prod(h, call, args[0].u.t, &r, REF_RED_PROD, &args[1], out);
}

tabi_status ref_red_plan_prod_dim(const tabi_host_api *h, const tabi_call *call,
                                  const tabi_value *args, ref_red_aten_plan *out) {
  ref_red r;
  tabi_status st = ref_red_init(h, call, "dim", args[0].u.t, &args[1], REF_RED_EMPTY_IS_ALL,
                                (int)args[2].u.i, &r);
  if (st != TABI_OK) return st;
  return sum_prod(h, call, args[0].u.t, &r, REF_RED_PROD, &args[3], out);
}

static tabi_status mean_plan(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *self,
                             const ref_red *r, const tabi_value *dtype_arg, ref_red_aten_plan *out) {
  tabi_dtype dt = tabi_tensor_dtype(self), want = ref_red_opt_dtype(dtype_arg);
  const uint32_t fc = REF_DTS_FLOAT | REF_DTS_COMPLEX;
  if (want != TABI_DTYPE_INVALID) {
    if (!(fc & REF_DT(want)))
      return REF_ERR(h, TABI_ERR_TYPE,
                     "%s: could not infer output dtype. Optional dtype must be either a floating "
                     "point or complex dtype. Got: %s (argument 'dtype')",
                     ref_op_name(h, call), tabi_dtype_name(want));
    tabi_status st = ref_check_dtype(h, call, "self", dt, REF_DTS_ALL);
    if (st != TABI_OK) return st;
    return planned(r, REF_RED_MEAN, want, want, 0, out);
  }
  if (dt < 0 || dt >= 32 || !(fc & REF_DT(dt)))
    return REF_ERR(h, TABI_ERR_TYPE,
                   "%s: could not infer output dtype. Input dtype must be either a floating "
                   "point or complex dtype. Got: %s (argument 'self')",
                   ref_op_name(h, call), tabi_dtype_name(dt));
  return planned(r, REF_RED_MEAN, dt, dt, 0, out);
}

tabi_status ref_red_plan_mean(const tabi_host_api *h, const tabi_call *call,
                              const tabi_value *args, ref_red_aten_plan *out) {
  ref_red r;
  tabi_value none = tabi_none();
  tabi_status st = ref_red_init(h, call, "dim", args[0].u.t, &none, REF_RED_EMPTY_IS_ALL, 0, &r);
  if (st != TABI_OK) return st;
  return mean_plan(h, call, args[0].u.t, &r, &args[1], out);
}

tabi_status ref_red_plan_mean_dim(const tabi_host_api *h, const tabi_call *call,
                                  const tabi_value *args, ref_red_aten_plan *out) {
  ref_red r;
  tabi_status st = ref_red_init(h, call, "dim", args[0].u.t, &args[1], REF_RED_EMPTY_IS_ALL,
                                (int)args[2].u.i, &r);
  if (st != TABI_OK) return st;
  return mean_plan(h, call, args[0].u.t, &r, &args[3], out);
}

static tabi_status minmax_plan(const tabi_host_api *h, const tabi_call *call,
                               const tabi_tensor *self, const ref_red *r, int kind,
                               tabi_dtype out_dt, ref_red_aten_plan *out) {
  tabi_dtype dt = tabi_tensor_dtype(self);
  tabi_status st = ref_check_dtype(h, call, "self", dt, REF_DTS_BOOL | REF_DTS_INT | REF_DTS_FLOAT);
  if (st != TABI_OK) return st;
  st = ref_red_check_nonempty(h, call, self, r);
  if (st != TABI_OK) return st;
  return planned(r, kind, dt, out_dt, 0, out);
}

static tabi_status amax_amin(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                             int kind, ref_red_aten_plan *out) {
  ref_red r;
  tabi_status st = ref_red_init(h, call, "dim", args[0].u.t, &args[1], REF_RED_EMPTY_IS_ALL,
                                (int)args[2].u.i, &r);
  if (st != TABI_OK) return st;
  return minmax_plan(h, call, args[0].u.t, &r, kind, tabi_tensor_dtype(args[0].u.t), out);
}
tabi_status ref_red_plan_amax(const tabi_host_api *h, const tabi_call *call,
                              const tabi_value *args, ref_red_aten_plan *out) {
  return amax_amin(h, call, args, REF_RED_AMAX, out);
}
tabi_status ref_red_plan_amin(const tabi_host_api *h, const tabi_call *call,
                              const tabi_value *args, ref_red_aten_plan *out) {
  return amax_amin(h, call, args, REF_RED_AMIN, out);
}

static tabi_status any_plan(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *self,
                            const tabi_value *dims, int keepdim, ref_red_aten_plan *out) {
  ref_red r;
  tabi_dtype dt = tabi_tensor_dtype(self);
  tabi_status st = ref_check_dtype(h, call, "self", dt, REF_DTS_ALL);
  if (st != TABI_OK) return st;
  st = ref_red_init(h, call, "dim", self, dims, REF_RED_EMPTY_IS_ALL, keepdim, &r);
  if (st != TABI_OK) return st;
  tabi_dtype out_dt = dt == TABI_DTYPE_UINT8 ? TABI_DTYPE_UINT8 : TABI_DTYPE_BOOL;
  return planned(&r, REF_RED_ANY, dt, out_dt, 0, out);
}
tabi_status ref_red_plan_any(const tabi_host_api *h, const tabi_call *call,
                             const tabi_value *args, ref_red_aten_plan *out) {
  tabi_value none = tabi_none();
  return any_plan(h, call, args[0].u.t, &none, 0, out);
}
tabi_status ref_red_plan_any_dim(const tabi_host_api *h, const tabi_call *call,
                                 const tabi_value *args, ref_red_aten_plan *out) {
  return any_plan(h, call, args[0].u.t, &args[1], (int)args[2].u.i, out);
}
tabi_status ref_red_plan_any_dims(const tabi_host_api *h, const tabi_call *call,
                                  const tabi_value *args, ref_red_aten_plan *out) {
  return any_plan(h, call, args[0].u.t, &args[1], (int)args[2].u.i, out);
}

static tabi_status var_plan(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *self,
                            const tabi_value *dims, int empty_is_all, int keepdim,
                            int64_t correction, tabi_dtype out_dt, ref_red_aten_plan *out) {
  tabi_dtype dt = tabi_tensor_dtype(self);
  if (dt < 0 || dt >= 32 || !((REF_DTS_FLOAT | REF_DTS_COMPLEX) & REF_DT(dt)))
    return REF_ERR(h, TABI_ERR_TYPE,
                   "%s: std and var only support floating point and complex dtypes; "
                   "argument 'self' has dtype %s",
                   ref_op_name(h, call), tabi_dtype_name(dt));
  ref_red r;
  tabi_status st = ref_red_init(h, call, "dim", self, dims, empty_is_all, keepdim, &r);
  if (st != TABI_OK) return st;
  if (out_dt == TABI_DTYPE_INVALID) out_dt = ref_red_real_dtype(dt);
  return planned(&r, REF_RED_VAR, dt, out_dt, correction, out);
}
tabi_status ref_red_plan_var_correction(const tabi_host_api *h, const tabi_call *call,
                                        const tabi_value *args, ref_red_aten_plan *out) {
  int64_t correction = args[2].tag == TABI_TAG_NONE ? 1 : args[2].u.i;
  return var_plan(h, call, args[0].u.t, &args[1], REF_RED_EMPTY_IS_ALL, (int)args[3].u.i,
                  correction, TABI_DTYPE_INVALID, out);
}
tabi_status ref_red_plan_var_dim(const tabi_host_api *h, const tabi_call *call,
                                 const tabi_value *args, ref_red_aten_plan *out) {
  return var_plan(h, call, args[0].u.t, &args[1], REF_RED_EMPTY_IS_ALL, (int)args[3].u.i,
                  args[2].u.i ? 1 : 0, TABI_DTYPE_INVALID, out);
}

/* The aten kernels: plan, then run. */
#define RED_ATEN_KERNEL(name, opname)                                                      \
  static tabi_status k_##name(void *ctx, const tabi_call *call, tabi_value *args,          \
                              tabi_value *outs) {                                          \
    ref_red_aten_plan pl;                                                                  \
    tabi_status st = ref_red_plan_##name(ctx, call, args, &pl);                            \
    if (st != TABI_OK) return st;                                                          \
    return reduce_run(ctx, call, args[0].u.t, &pl.r, pl.kind, pl.as, pl.out_dt,            \
                      pl.correction, outs);                                                \
  }
REF_RED_ATEN_LIST(RED_ATEN_KERNEL)

/* --- prims: reduce exactly the listed dims, no promotion ------------------------ */

static tabi_status prim_out_dtype(const tabi_host_api *h, const tabi_call *call,
                                  const tabi_value *arg, tabi_dtype dflt, tabi_dtype *out) {
  tabi_dtype want = ref_red_opt_dtype(arg);
  if (want == TABI_DTYPE_INVALID) {
    *out = dflt;
    return TABI_OK;
  }
  *out = want;
  return ref_check_dtype(h, call, "output_dtype", want, REF_DTS_ALL);
}

static tabi_status prim_reduce(const tabi_host_api *h, const tabi_call *call, tabi_value *args,
                               int kind, tabi_value *outs) {
  const tabi_tensor *inp = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(inp), out_dt;
  ref_red r;
  tabi_status st = ref_red_init(h, call, "dims", inp, &args[1], REF_RED_EMPTY_IS_NONE, 0, &r);
  if (st != TABI_OK) return st;
  st = prim_out_dtype(h, call, &args[2], dt, &out_dt);
  if (st != TABI_OK) return st;
  if (kind == REF_RED_AMAX || kind == REF_RED_AMIN) {
    ref_red_aten_plan pl;
    if ((st = minmax_plan(h, call, inp, &r, kind, out_dt, &pl)) != TABI_OK) return st;
    return reduce_run(h, call, inp, &r, kind, pl.as, pl.out_dt, 0, outs);
  }
  st = ref_check_dtype(h, call, "inp", dt, REF_DTS_ALL);
  if (st != TABI_OK) return st;
  /* output_dtype casts the input first, as torch.sum(dtype=) does */
  return reduce_run(h, call, inp, &r, kind, out_dt, out_dt, 0, outs);
}

static tabi_status k_prims_sum(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return prim_reduce(ctx, call, args, REF_RED_SUM, outs);
}
static tabi_status k_prims_prod(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return prim_reduce(ctx, call, args, REF_RED_PROD, outs);
}
static tabi_status k_prims_amax(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return prim_reduce(ctx, call, args, REF_RED_AMAX, outs);
}
static tabi_status k_prims_amin(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return prim_reduce(ctx, call, args, REF_RED_AMIN, outs);
}

static tabi_status k_prims_var(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_dtype out_dt = TABI_DTYPE_INVALID;
  if (args[3].tag == TABI_TAG_DTYPE) {
    tabi_status st = prim_out_dtype(h, call, &args[3], TABI_DTYPE_INVALID, &out_dt);
    if (st != TABI_OK) return st;
  }
  ref_red_aten_plan pl;
  tabi_status st = var_plan(h, call, args[0].u.t, &args[1], REF_RED_EMPTY_IS_NONE, 0, args[2].u.i,
                            out_dt, &pl);
  if (st != TABI_OK) return st;
  return reduce_run(h, call, args[0].u.t, &pl.r, pl.kind, pl.as, pl.out_dt, pl.correction, outs);
}

const ref_kernel ref_reduce_kernels[] = {
#define RED_ATEN_ENTRY(name, opname) {opname, k_##name},
    REF_RED_ATEN_LIST(RED_ATEN_ENTRY)
    {"prims::sum", k_prims_sum},
    {"prims::prod", k_prims_prod},
    {"prims::amax", k_prims_amax},
    {"prims::amin", k_prims_amin},
    {"prims::var", k_prims_var},
    {NULL, NULL},
};
