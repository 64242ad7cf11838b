/* reference/decomp_reduce.c: reductions, softmax and normalization as prims.
 *
 * Reductions accumulate in the computation dtype (float32 for half inputs, as
 * ATen's CPU and CUDA kernels do) and convert to the output dtype once. The
 * norms follow ATen's definitions: biased variance for normalization, unbiased
 * for batch norm's running statistics, mean and rstd saved in the input dtype.
 */
#include <math.h>
#include <string.h>

#include "decomp.h"

/* Wraps and de-duplicates a dim list; NONE or [] means every dim when
 * `empty_is_all`. Returns the count, or -1 after recording an error. */
static int32_t dims_of(dc_scope *s, const tabi_value *v, const tabi_tensor *x, int empty_is_all,
                       int32_t *out) {
  int64_t n = v->tag == TABI_TAG_NONE ? 0 : v->tag == TABI_TAG_INT ? 1 : v->u.list.len;
  if (n == 0) {
    if (!empty_is_all) return 0;
    for (int32_t d = 0; d < x->dl.ndim; d++) out[d] = d;
    return x->dl.ndim;
  }
  if (n > REF_MAX_DIMS) {
    dc_fail(s, TABI_ERR_INVALID_ARGUMENT, "too many dims (%lld)", (long long)n);
    return -1;
  }
  uint32_t seen = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t d = v->tag == TABI_TAG_INT ? v->u.i : tabi_value_ints(v)[i];
    int32_t w;
    tabi_status st = ref_wrap_dim(s->h, s->call, "dim", d, x->dl.ndim, &w);
    if (st != TABI_OK) {
      s->st = st;
      return -1;
    }
    if (x->dl.ndim == 0) return 0; /* a 0-d tensor reduces over nothing */
    if (seen & (1u << w)) {
      dc_fail(s, TABI_ERR_INVALID_ARGUMENT, "dim %d appears multiple times in the list of dims",
              (int)w);
      return -1;
    }
    seen |= 1u << w;
    out[i] = w;
  }
  return (int32_t)n;
}

static tabi_dtype opmath(tabi_dtype d) {
  return d == TABI_DTYPE_FLOAT16 || d == TABI_DTYPE_BFLOAT16 ? TABI_DTYPE_FLOAT32 : d;
}

static int64_t count_of(const tabi_tensor *x, const int32_t *dims, int32_t n) {
  int64_t c = 1;
  for (int32_t i = 0; i < n; i++) c *= x->dl.shape[dims[i]];
  return c;
}

static tabi_tensor *konst(dc_scope *s, double v, tabi_tensor *like) {
  if (!like) return NULL;
  tabi_dtype dt = tabi_tensor_dtype(like);
  /* made in float64 and cast, not checked: ATen casts a double eps of 1e308
     to float32's inf, it does not refuse it */
  tabi_tensor *k = tabi_dtype_is_floating(dt) && dt != TABI_DTYPE_FLOAT64
                       ? dc_convert(s, dc_scalar_f(s, v, TABI_DTYPE_FLOAT64, like->dl.device), dt)
                       : dc_scalar_f(s, v, dt, like->dl.device);
  return dc_broadcast_like(s, k, like);
}

/* sum over dims in the computation dtype of `out_dtype`, converted to it. */
static tabi_tensor *sum_as(dc_scope *s, tabi_tensor *x, const int32_t *dims, int32_t n,
                           int32_t keepdim, tabi_dtype out_dtype) {
  tabi_tensor *c = dc_convert(s, dc_convert(s, x, out_dtype), opmath(out_dtype)); /* dtype= casts first */
  return dc_convert(s, dc_reduce(s, DC_P_SUM, c, dims, n, keepdim, -1), out_dtype);
}

/* The dtype= argument, or the default: integers and bool widen to int64. */
static tabi_dtype sum_dtype(const tabi_tensor *x, const tabi_value *dtype) {
  if (dtype->tag == TABI_TAG_DTYPE) return dtype->u.dtype;
  tabi_dtype d = tabi_tensor_dtype(x);
  return tabi_dtype_is_integral(d, 1) ? TABI_DTYPE_INT64 : d;
}

static tabi_status d_sum(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  int32_t dims[REF_MAX_DIMS];
  int32_t n = dims_of(&s, &args[1], x, 1, dims);
  if (n < 0) return dc_finish(&s, outs, 0, NULL);
  return dc_finish(&s, outs, 0,
                   sum_as(&s, x, dims, n, (int32_t)args[2].u.i, sum_dtype(x, &args[3])));
}

static tabi_status mean_impl(dc_scope *s, tabi_value *outs, tabi_tensor *x, const tabi_value *dimv,
                             int32_t keepdim, const tabi_value *dtype) {
  tabi_dtype out = dtype->tag == TABI_TAG_DTYPE ? dtype->u.dtype : tabi_tensor_dtype(x);
  if (!tabi_dtype_is_floating(out) && !tabi_dtype_is_complex(out))
    return dc_error(s, TABI_ERR_TYPE,
                    "could not infer output dtype: input dtype must be a "
                    "floating point or complex dtype, got %s",
                    tabi_dtype_name(out));
  int32_t dims[REF_MAX_DIMS];
  int32_t n = dims_of(s, dimv, x, 1, dims);
  if (n < 0) return dc_finish(s, outs, 0, NULL);
  /* dtype= casts first: an int64 2^63-1 is inf in float16, not 9.2e18 in float32 */
  tabi_tensor *c = dc_convert(s, dc_convert(s, x, out), opmath(out));
  tabi_tensor *sum = dc_reduce(s, DC_P_SUM, c, dims, n, keepdim, -1);
  tabi_tensor *mean = dc_binary(s, DC_P_DIV, sum, konst(s, (double)count_of(x, dims, n), sum));
  return dc_finish(s, outs, 0, dc_convert(s, mean, out));
}

static tabi_status d_mean(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_value none = tabi_none();
  return mean_impl(&s, outs, args[0].u.t, &none, 0, &args[1]);
}

static tabi_status d_mean_dim(void *ctx, const tabi_call *call, tabi_value *args,
                              tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return mean_impl(&s, outs, args[0].u.t, &args[1], (int32_t)args[2].u.i, &args[3]);
}

static tabi_status minmax(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs,
                          dc_op_id op) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  int32_t dims[REF_MAX_DIMS];
  int32_t n = dims_of(&s, &args[1], x, 1, dims);
  if (n < 0) return dc_finish(&s, outs, 0, NULL);
  for (int32_t i = 0; i < n; i++)
    if (x->dl.shape[dims[i]] == 0)
      return dc_error(&s, TABI_ERR_INDEX, "expected reduction dim %d to have non-zero size",
                      (int)dims[i]);
  return dc_finish(&s, outs, 0, dc_reduce(&s, op, x, dims, n, (int32_t)args[2].u.i, -1));
}
static tabi_status d_amax(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return minmax(ctx, call, args, outs, DC_P_AMAX);
}
static tabi_status d_amin(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return minmax(ctx, call, args, outs, DC_P_AMIN);
}

/* any: some element is non-zero. uint8 input gives uint8, as in ATen. */
static tabi_status any_impl(dc_scope *s, tabi_value *outs, tabi_tensor *x, const tabi_value *dimv,
                            int32_t keepdim) {
  int32_t dims[REF_MAX_DIMS];
  int32_t n = dims_of(s, dimv, x, 1, dims);
  if (n < 0) return dc_finish(s, outs, 0, NULL);
  tabi_tensor *nz = dc_binary(s, DC_P_NE, x, konst(s, 0.0, x));
  tabi_tensor *cnt =
      dc_reduce(s, DC_P_SUM, dc_convert(s, nz, TABI_DTYPE_INT64), dims, n, keepdim, -1);
  tabi_tensor *r = dc_binary(s, DC_P_GT, cnt, konst(s, 0.0, cnt));
  tabi_dtype out = tabi_tensor_dtype(x) == TABI_DTYPE_UINT8 ? TABI_DTYPE_UINT8 : TABI_DTYPE_BOOL;
  return dc_finish(s, outs, 0, dc_convert(s, r, out));
}
static tabi_status d_any(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_value none = tabi_none();
  return any_impl(&s, outs, args[0].u.t, &none, 0);
}
static tabi_status d_any_dim(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return any_impl(&s, outs, args[0].u.t, &args[1], (int32_t)args[2].u.i);
}

static tabi_status prod_impl(dc_scope *s, tabi_value *outs, tabi_tensor *x, const tabi_value *dimv,
                             int32_t keepdim, const tabi_value *dtype) {
  int32_t dims[REF_MAX_DIMS];
  int32_t n = dims_of(s, dimv, x, 1, dims);
  if (n < 0) return dc_finish(s, outs, 0, NULL);
  tabi_dtype out = sum_dtype(x, dtype);
  /* dtype= casts the input first: int64 2^63 as float16 is inf, and inf * 0 NaN */
  tabi_tensor *c = dc_convert(s, dc_convert(s, x, out), opmath(out));
  return dc_finish(s, outs, 0,
                   dc_convert(s, dc_reduce(s, DC_P_PROD, c, dims, n, keepdim, -1), out));
}
static tabi_status d_prod(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_value none = tabi_none();
  return prod_impl(&s, outs, args[0].u.t, &none, 0, &args[1]);
}
static tabi_status d_prod_dim(void *ctx, const tabi_call *call, tabi_value *args,
                              tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return prod_impl(&s, outs, args[0].u.t, &args[1], (int32_t)args[2].u.i, &args[3]);
}

static tabi_status var_impl(dc_scope *s, tabi_value *outs, tabi_tensor *x, const tabi_value *dimv,
                            int64_t correction, int32_t keepdim) {
  tabi_dtype dt = tabi_tensor_dtype(x);
  if (!tabi_dtype_is_floating(dt) && !tabi_dtype_is_complex(dt))
    return dc_error(s, TABI_ERR_TYPE,
                    "std and var only support floating point and complex "
                    "dtypes, got %s",
                    tabi_dtype_name(dt));
  int32_t dims[REF_MAX_DIMS];
  int32_t n = dims_of(s, dimv, x, 1, dims);
  if (n < 0) return dc_finish(s, outs, 0, NULL);
  tabi_dtype real = dt == TABI_DTYPE_COMPLEX64    ? TABI_DTYPE_FLOAT32
                    : dt == TABI_DTYPE_COMPLEX128 ? TABI_DTYPE_FLOAT64
                                                  : dt;
  tabi_tensor *v = dc_var(s, dc_convert(s, x, opmath(dt)), dims, n, keepdim, correction);
  return dc_finish(s, outs, 0, dc_convert(s, v, real));
}
static tabi_status d_var_correction(void *ctx, const tabi_call *call, tabi_value *args,
                                    tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  int64_t corr = args[2].tag == TABI_TAG_NONE ? 1 : args[2].u.i;
  return var_impl(&s, outs, args[0].u.t, &args[1], corr, (int32_t)args[3].u.i);
}
static tabi_status d_var_dim(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return var_impl(&s, outs, args[0].u.t, &args[1], args[2].u.i ? 1 : 0, (int32_t)args[3].u.i);
}

/* --- softmax ---------------------------------------------------------------- */

static tabi_status softmax_impl(void *ctx, const tabi_call *call, tabi_value *args,
                                tabi_value *outs, int log) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  if (!tabi_dtype_is_floating(dt))
    return dc_error(&s, TABI_ERR_TYPE, "softmax needs a floating point input, got %s",
                    tabi_dtype_name(dt));
  int32_t dim;
  tabi_status st = ref_wrap_dim(s.h, call, "dim", args[1].u.i, x->dl.ndim, &dim);
  if (st != TABI_OK) return dc_abandon(&s, st);
  int half_to_float = (int)args[2].u.i;
  tabi_dtype out = half_to_float && dt != TABI_DTYPE_FLOAT64 ? TABI_DTYPE_FLOAT32 : dt;
  int32_t n = x->dl.ndim > 0 ? 1 : 0;
  tabi_tensor *c = dc_convert(&s, x, opmath(dt));
  tabi_tensor *shifted = c;
  if (x->dl.ndim == 0 || x->dl.shape[dim] > 0) /* amax of an empty dim is an error */
    shifted = dc_binary(&s, DC_P_SUB, c,
                        dc_broadcast_like(&s, dc_reduce(&s, DC_P_AMAX, c, &dim, n, 1, -1), c));
  tabi_tensor *e = dc_unary(&s, DC_P_EXP, shifted);
  tabi_tensor *sum = dc_broadcast_like(&s, dc_reduce(&s, DC_P_SUM, e, &dim, n, 1, -1), c);
  tabi_tensor *r = log ? dc_binary(&s, DC_P_SUB, shifted, dc_unary(&s, DC_P_LOG, sum))
                       : dc_binary(&s, DC_P_DIV, e, sum);
  return dc_finish(&s, outs, 0, dc_convert(&s, r, out));
}
static tabi_status d_softmax(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return softmax_impl(ctx, call, args, outs, 0);
}
static tabi_status d_log_softmax(void *ctx, const tabi_call *call, tabi_value *args,
                                 tabi_value *outs) {
  return softmax_impl(ctx, call, args, outs, 1);
}

/* --- normalization ------------------------------------------------------------ */

/* ATen's rule for a norm's statistics: the input's dtype, or float32 when a
 * half input comes with float32 parameters. */
static tabi_dtype stats_dtype(const tabi_tensor *x, tabi_tensor *const *params, int n) {
  tabi_dtype dt = tabi_tensor_dtype(x);
  for (int i = 0; i < n; i++)
    if (params[i] && tabi_tensor_dtype(params[i]) == TABI_DTYPE_FLOAT32 && dt != TABI_DTYPE_FLOAT64)
      return TABI_DTYPE_FLOAT32;
  return dt;
}

/* Broadcasts a per-channel vector [C] against x of ndim dims (channel dim 1). */
static tabi_tensor *per_channel(dc_scope *s, tabi_tensor *v, const tabi_tensor *x) {
  if (!v || !x) return NULL;
  int64_t bd = 1;
  tabi_value args[3] = {tabi_tensor_value(v), tabi_int_list(x->dl.shape, x->dl.ndim),
                        tabi_int_list(&bd, 1)};
  return dc_call(s, DC_P_BROADCAST_IN_DIM, args, 3);
}

static tabi_status d_layer_norm(void *ctx, const tabi_call *call, tabi_value *args,
                                tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  int64_t nnorm = args[1].u.list.len;
  tabi_tensor *w = args[2].tag == TABI_TAG_TENSOR ? args[2].u.t : NULL;
  tabi_tensor *b = args[3].tag == TABI_TAG_TENSOR ? args[3].u.t : NULL;
  double eps = args[4].u.f;
  int32_t axis = x->dl.ndim - (int32_t)nnorm;
  if (axis < 0 || memcmp(x->dl.shape + axis, tabi_value_ints(&args[1]), (size_t)nnorm * 8) != 0)
    return dc_error(&s, TABI_ERR_SHAPE,
                    "argument 'normalized_shape' does not match the trailing "
                    "dims of the input");
  tabi_dtype dt = tabi_tensor_dtype(x);
  int32_t dims[REF_MAX_DIMS];
  for (int32_t i = 0; i < nnorm; i++) dims[i] = axis + i;
  tabi_tensor *c = dc_convert(&s, x, opmath(dt));
  int64_t count = count_of(x, dims, (int32_t)nnorm);
  tabi_tensor *sum = dc_reduce(&s, DC_P_SUM, c, dims, (int32_t)nnorm, 1, -1);
  /* ATen's mean of no element is 0 (rstd NaN) */
  tabi_tensor *mu = count > 0 ? dc_binary(&s, DC_P_DIV, sum, konst(&s, (double)count, sum)) : konst(&s, 0.0, sum);
  tabi_tensor *var = dc_var(&s, c, dims, (int32_t)nnorm, 1, 0);
  tabi_tensor *rstd = dc_unary(&s, DC_P_RSQRT, dc_binary(&s, DC_P_ADD, var, konst(&s, eps, var)));
  tabi_tensor *y = dc_binary(&s, DC_P_MUL, dc_binary(&s, DC_P_SUB, c, dc_broadcast_like(&s, mu, c)),
                             dc_broadcast_like(&s, rstd, c));
  if (w) y = dc_binary(&s, DC_P_MUL, y, dc_broadcast_like(&s, dc_convert(&s, w, opmath(dt)), y));
  if (b) y = dc_binary(&s, DC_P_ADD, y, dc_broadcast_like(&s, dc_convert(&s, b, opmath(dt)), y));
  tabi_tensor *params[2] = {w, b};
  tabi_dtype sdt = stats_dtype(x, params, 2);
  tabi_tensor *res[3] = {dc_convert(&s, y, dt), dc_convert(&s, mu, sdt), dc_convert(&s, rstd, sdt)};
  return dc_finish_n(&s, outs, 3, res);
}

/* (x - mean) * rstd * w + b with per-channel mean, rstd, w, b (any may be
 * NULL except x), in x's computation dtype. */
static tabi_tensor *bn_apply(dc_scope *s, tabi_tensor *c, tabi_tensor *mean, tabi_tensor *rstd,
                             tabi_tensor *w, tabi_tensor *b) {
  if (!c) return NULL; /* an earlier step failed; s holds its error */
  tabi_dtype ct = tabi_tensor_dtype(c);
  tabi_tensor *y =
      dc_binary(s, DC_P_MUL, dc_binary(s, DC_P_SUB, c, per_channel(s, dc_convert(s, mean, ct), c)),
                per_channel(s, dc_convert(s, rstd, ct), c));
  if (w) y = dc_binary(s, DC_P_MUL, y, per_channel(s, dc_convert(s, w, ct), c));
  if (b) y = dc_binary(s, DC_P_ADD, y, per_channel(s, dc_convert(s, b, ct), c));
  return y;
}

static tabi_tensor *opt_tensor(const tabi_value *v) {
  return v->tag == TABI_TAG_TENSOR ? v->u.t : NULL;
}

/* Evaluation with running statistics: saves are empty (of the statistics'
 * dtype), as ATen returns them. */
static tabi_status bn_eval(dc_scope *s, tabi_value *outs, tabi_tensor *x, tabi_tensor *w,
                           tabi_tensor *b, tabi_tensor *rm, tabi_tensor *rv, double eps) {
  tabi_dtype dt = tabi_tensor_dtype(x);
  if (!dc_check_dtype(s, "input", dt, REF_DTS_FLOAT)) return dc_abandon(s, s->st);
  tabi_tensor *c = dc_convert(s, x, opmath(dt));
  tabi_tensor *rv_c = dc_convert(s, rv, opmath(dt));
  tabi_tensor *rstd = dc_unary(s, DC_P_RSQRT, dc_binary(s, DC_P_ADD, rv_c, konst(s, eps, rv_c)));
  tabi_tensor *y = bn_apply(s, c, rm, rstd, w, b);
  int64_t zero = 0;
  DLDevice dev = x->dl.device;
  tabi_tensor *params[4] = {w, b, rm, rv};
  tabi_value eargs[4] = {tabi_int_list(&zero, 1), tabi_dtype_value(stats_dtype(x, params, 4)),
                         tabi_device_value(dev), tabi_bool(0)};
  tabi_tensor *e1 = dc_call(s, DC_P_EMPTY, eargs, 4);
  tabi_tensor *e2 = dc_call(s, DC_P_EMPTY, eargs, 4);
  tabi_tensor *res[3] = {dc_convert(s, y, dt), e1, e2};
  return dc_finish_n(s, outs, 3, res);
}

/* Writes a running statistic in place. One whose channels share an element
 * (stride 0, as an expanded tensor) is taken by ATen, which updates it channel
 * after channel; its value depends on that order (CUDA's differs from the
 * CPU's), and the suite does not compare it. Here the last channel's update
 * is written, as a parallel kernel's last writer would: copy_to refuses a
 * destination whose elements overlap. */
static void write_running(dc_scope *s, tabi_tensor *dst, tabi_tensor *src) {
  if (s->st != TABI_OK || !src) return;
  int64_t c = dst->dl.shape[0];
  if (dst->dl.strides[0] == 0 && c > 1) {
    int64_t one = 1;
    dst = dc_as_strided(s, dst, 1, &one, &one, dc_elem_offset(dst));
    src = dc_as_strided(s, src, 1, &one, &one, dc_elem_offset(src) + (c - 1) * src->dl.strides[0]);
  }
  tabi_value a[2] = {tabi_tensor_value(dst), tabi_tensor_value(src)};
  if (dst && src) dc_call(s, DC_P_COPY_TO, a, 2);
}

/* Training: batch statistics over every dim but the channel dim 1. Running
 * statistics, when given, are updated in place with the unbiased variance. */
static tabi_status bn_train(dc_scope *s, tabi_value *outs, tabi_tensor *x, tabi_tensor *w,
                            tabi_tensor *b, tabi_tensor *rm, tabi_tensor *rv, double momentum,
                            double eps) {
  if (x->dl.ndim < 2)
    return dc_error(s, TABI_ERR_SHAPE, "expected an input of at least 2 dims, got %d",
                    (int)x->dl.ndim);
  tabi_dtype dt = tabi_tensor_dtype(x);
  if (!dc_check_dtype(s, "input", dt, REF_DTS_FLOAT)) return dc_abandon(s, s->st);
  tabi_tensor *params[4] = {w, b, rm, rv};
  tabi_dtype sdt = stats_dtype(x, params, 4);
  int32_t dims[REF_MAX_DIMS], n = 0;
  for (int32_t d = 0; d < x->dl.ndim; d++)
    if (d != 1) dims[n++] = d;
  int64_t count = count_of(x, dims, n);
  /* the statistics in float64, as ATen's CPU kernel accumulates them (in
     double): a constant channel's mean is its value exactly, so with eps 0
     its output is 0 / 0, not a rounding error over 0 */
  tabi_tensor *acc = dc_convert(s, x, TABI_DTYPE_FLOAT64);
  tabi_tensor *sum = dc_reduce(s, DC_P_SUM, acc, dims, n, 0, -1);
  tabi_tensor *mean = dc_binary(s, DC_P_DIV, sum, konst(s, (double)count, sum));
  tabi_tensor *var = dc_var(s, acc, dims, n, 0, 0);
  tabi_tensor *rstd = dc_unary(s, DC_P_RSQRT, dc_binary(s, DC_P_ADD, var, konst(s, eps, var)));
  /* the output uses the statistics as saved, rounded to their dtype (ATen
     reads them back from save_mean/save_invstd): a float32 invstd of 1e155
     is inf, a bfloat16 input's mean is a bfloat16 */
  tabi_tensor *mean_s = dc_convert(s, mean, sdt), *rstd_s = dc_convert(s, rstd, sdt);
  if (rm && rv && s->st == TABI_OK) {
    tabi_dtype st = tabi_tensor_dtype(rm);
    tabi_tensor *m = konst(s, momentum, mean), *keep = konst(s, 1.0 - momentum, mean);
    /* ATen's var_sum / (n - 1): 0 / -1 = -0 for no element, 0 / 0 = NaN for one */
    tabi_tensor *unbiased =
        count == 0 ? konst(s, -0.0, var)
                   : dc_binary(s, DC_P_MUL, var,
                               konst(s, count > 1 ? (double)count / (double)(count - 1) : INFINITY, var));
    tabi_tensor *nm =
        dc_binary(s, DC_P_ADD, dc_binary(s, DC_P_MUL, keep, dc_convert(s, rm, TABI_DTYPE_FLOAT64)),
                  dc_binary(s, DC_P_MUL, m, mean));
    write_running(s, rm, dc_convert(s, nm, st));
    /* running_var is read after running_mean is written, as ATen's loop does
       (the same tensor passed as both is then updated twice) */
    tabi_tensor *nv =
        dc_binary(s, DC_P_ADD, dc_binary(s, DC_P_MUL, keep, dc_convert(s, rv, TABI_DTYPE_FLOAT64)),
                  dc_binary(s, DC_P_MUL, m, unbiased));
    write_running(s, rv, dc_convert(s, nv, tabi_tensor_dtype(rv)));
  }
  /* the output after the running statistics, as ATen: input, weight and bias
     are read after those writes (the running variance passed as the bias is
     read updated) */
  tabi_tensor *y = bn_apply(s, dc_convert(s, x, opmath(dt)), mean_s, rstd_s, w, b);
  tabi_tensor *res[3] = {dc_convert(s, y, dt), mean_s, rstd_s};
  return dc_finish_n(s, outs, 3, res);
}

static tabi_status d_bn_legit(void *ctx, const tabi_call *call, tabi_value *args,
                              tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t, *w = opt_tensor(&args[1]), *b = opt_tensor(&args[2]);
  tabi_tensor *rm = args[3].u.t, *rv = args[4].u.t;
  if (args[5].u.i) return bn_train(&s, outs, x, w, b, rm, rv, args[6].u.f, args[7].u.f);
  return bn_eval(&s, outs, x, w, b, rm, rv, args[7].u.f);
}

static tabi_status d_bn_no_stats(void *ctx, const tabi_call *call, tabi_value *args,
                                 tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return bn_train(&s, outs, args[0].u.t, opt_tensor(&args[1]), opt_tensor(&args[2]), NULL, NULL,
                  args[4].u.f, args[5].u.f);
}

static tabi_status d_bn_no_training(void *ctx, const tabi_call *call, tabi_value *args,
                                    tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return bn_eval(&s, outs, args[0].u.t, opt_tensor(&args[1]), opt_tensor(&args[2]), args[3].u.t,
                 args[4].u.t, args[6].u.f);
}

static tabi_status d_group_norm(void *ctx, const tabi_call *call, tabi_value *args,
                                tabi_value *outs) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t, *w = opt_tensor(&args[1]), *b = opt_tensor(&args[2]);
  int64_t N = args[3].u.i, C = args[4].u.i, HxW = args[5].u.i, G = args[6].u.i;
  double eps = args[7].u.f;
  if (G <= 0 || C % G != 0)
    return dc_error(&s, TABI_ERR_INVALID_ARGUMENT,
                    "expected argument 'C' (%lld) to be divisible by 'group' (%lld)", (long long)C,
                    (long long)G);
  int64_t nel, per_group;
  if (__builtin_mul_overflow(N, C, &nel) || __builtin_mul_overflow(nel, HxW, &nel) ||
      __builtin_mul_overflow(C / G, HxW, &per_group) || nel != tabi_tensor_numel(x))
    return dc_error(&s, TABI_ERR_SHAPE,
                    "N * C * HxW (%lld * %lld * %lld) does not match the input's %lld elements",
                    (long long)N, (long long)C, (long long)HxW, (long long)tabi_tensor_numel(x));
  tabi_dtype dt = tabi_tensor_dtype(x);
  int64_t gshape[3] = {N, G, per_group};
  tabi_tensor *c = dc_reshape(&s, dc_convert(&s, x, opmath(dt)), 3, gshape);
  int32_t d2 = 2;
  tabi_tensor *sum = dc_reduce(&s, DC_P_SUM, c, &d2, 1, 0, -1);
  tabi_tensor *mean = gshape[2] > 0 ? dc_binary(&s, DC_P_DIV, sum, konst(&s, (double)gshape[2], sum))
                                    : konst(&s, 0.0, sum); /* an empty group: 0, as ATen */
  tabi_tensor *var = dc_var(&s, c, &d2, 1, 0, 0);
  tabi_tensor *rstd = dc_unary(&s, DC_P_RSQRT, dc_binary(&s, DC_P_ADD, var, konst(&s, eps, var)));
  int64_t bd[2] = {0, 1};
  tabi_value ma[3] = {tabi_tensor_value(mean), tabi_int_list(gshape, 3), tabi_int_list(bd, 2)};
  tabi_value ra[3] = {tabi_tensor_value(rstd), tabi_int_list(gshape, 3), tabi_int_list(bd, 2)};
  tabi_tensor *y =
      s.st == TABI_OK
          ? dc_binary(&s, DC_P_MUL,
                      dc_binary(&s, DC_P_SUB, c, dc_call(&s, DC_P_BROADCAST_IN_DIM, ma, 3)),
                      dc_call(&s, DC_P_BROADCAST_IN_DIM, ra, 3))
          : NULL;
  y = dc_reshape(&s, y, x->dl.ndim, x->dl.shape);
  /* an empty input (ATen takes a 1-D [0] with C = 0) has no channel dim to
     scale: nothing to do */
  int affine = tabi_tensor_numel(x) > 0;
  if (w && affine) y = dc_binary(&s, DC_P_MUL, y, per_channel(&s, dc_convert(&s, w, opmath(dt)), x));
  if (b && affine) y = dc_binary(&s, DC_P_ADD, y, per_channel(&s, dc_convert(&s, b, opmath(dt)), x));
  tabi_tensor *params[2] = {w, b};
  tabi_dtype sdt = stats_dtype(x, params, 2);
  tabi_tensor *res[3] = {dc_convert(&s, y, dt), dc_convert(&s, mean, sdt), dc_convert(&s, rstd, sdt)};
  return dc_finish_n(&s, outs, 3, res);
}

const dc_kernel dc_reduce_kernels[] = {
    {"aten::_native_batch_norm_legit", d_bn_legit},
    {"aten::_native_batch_norm_legit.no_stats", d_bn_no_stats},
    {"aten::_native_batch_norm_legit_no_training", d_bn_no_training},
    {"aten::native_group_norm", d_group_norm},
    {"aten::sum.dim_IntList", d_sum},
    {"aten::mean", d_mean},
    {"aten::mean.dim", d_mean_dim},
    {"aten::amax", d_amax},
    {"aten::amin", d_amin},
    {"aten::any", d_any},
    {"aten::any.dim", d_any_dim},
    {"aten::any.dims", d_any_dim},
    {"aten::prod", d_prod},
    {"aten::prod.dim_int", d_prod_dim},
    {"aten::var.correction", d_var_correction},
    {"aten::var.dim", d_var_dim},
    {"aten::_softmax", d_softmax},
    {"aten::_log_softmax", d_log_softmax},
    {"aten::native_layer_norm", d_layer_norm},
    {NULL, NULL}};
