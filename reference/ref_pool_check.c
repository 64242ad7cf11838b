/* reference/ref_pool_check.c: see ref_pool_check.h. Also defines
 * ref_nn_pool_input (declared in ref_nn_util.h), the pooling input rule. */
#include <stdio.h>
#include <string.h>

#include <stdint.h>

#include "ref.h"
#include "ref_nn_util.h"
#include "ref_pool_check.h"

#define OPN ref_op_name(h, call)

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* An int[N] pooling parameter of 1 or ns values (0 values: `dflt`). */
static tabi_status pool_list(const tabi_host_api *h, const tabi_call *call, const tabi_value *v,
                             const char *name, int32_t ns, const int64_t *dflt, int64_t lo,
                             int64_t *out) {
  int64_t len = ref_list_len(v);
  const int64_t *x = tabi_value_ints(v);
  if (len == 0 && dflt) {
    for (int32_t i = 0; i < 3; i++) out[i] = dflt[i];
    return TABI_OK;
  }
  if (len != 1 && len != ns)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument '%s' must have 1 or %d values, got %lld",
                   OPN, name, (int)ns, (long long)len);
  for (int32_t i = 0; i < 3; i++) {
    out[i] = i < ns ? x[len == 1 ? 0 : i] : (lo > 0 ? 1 : 0);
    if (out[i] < lo)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument '%s' has value %lld; it should be %s",
                     OPN, name, (long long)out[i], lo > 0 ? "greater than zero" : "non-negative");
    /* ATen narrows the pooling parameters to int (safe_downcast): 2^63 - 1 is
       its kernel -1, refused; no such value is a sensible one */
    if (out[i] > INT32_MAX)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument '%s' has value %lld, which does not fit int32",
                     OPN, name, (long long)out[i]);
  }
  return TABI_OK;
}

tabi_status ref_nn_pool_input(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                              int32_t ns, const char *arg) {
  int32_t nd = x->dl.ndim;
  int bad = nd != ns + 1 && nd != ns + 2;
  for (int32_t i = nd == ns + 2 ? 1 : 0; !bad && i < nd; i++) bad = x->dl.shape[i] == 0;
  if (bad) {
    char b[96];
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: argument '%s' must be a %dD or %dD (batch mode) tensor with non-zero sizes "
                   "but the batch, got %s", OPN, arg, (int)(ns + 1), (int)(ns + 2),
                   ref_shape_str(b, sizeof b, nd, x->dl.shape));
  }
  return TABI_OK;
}

static void lead_dims(const tabi_tensor *x, int32_t ns, ref_pool_dims *g) {
  memset(g, 0, sizeof *g);
  g->ns = ns;
  g->nlead = x->dl.ndim - ns;
  g->planes = 1;
  for (int32_t i = 0; i < g->nlead; i++) g->planes *= x->dl.shape[i];
}

/* kv, sv, pv, dv (NULL: dilation 1): kernel_size, stride, padding, dilation. */
static tabi_status pool_setup(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                              int32_t ns, const tabi_value *kv, const tabi_value *sv,
                              const tabi_value *pv, const tabi_value *dv, int ceil_mode,
                              ref_pool_dims *g) {
  tabi_status st = ref_nn_pool_input(h, call, x, ns, "self");
  if (st) return st;
  lead_dims(x, ns, g);
  if ((st = pool_list(h, call, kv, "kernel_size", ns, NULL, 1, g->k)) ||
      (st = pool_list(h, call, sv, "stride", ns, g->k, 1, g->s)) ||
      (st = pool_list(h, call, pv, "padding", ns, NULL, 0, g->p)))
    return st;
  if (dv) {
    if ((st = pool_list(h, call, dv, "dilation", ns, NULL, 1, g->d))) return st;
  } else {
    g->d[0] = g->d[1] = g->d[2] = 1;
  }
  for (int32_t i = 0; i < 3; i++) {
    if (i >= ns) {
      g->in[i] = g->out[i] = 1;
      continue;
    }
    if (g->p[i] > g->k[i] / 2)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                     "%s: pad should be at most half of kernel size, but got padding %lld for kernel "
                     "size %lld", OPN, (long long)g->p[i], (long long)g->k[i]);
    int64_t in = x->dl.shape[g->nlead + i], span, pad2, num;
    /* in + 2p - d(k - 1) - 1 (+ s - 1), every step checked: the sizes are a caller's */
    if (__builtin_mul_overflow(g->d[i], g->k[i] - 1, &span) || __builtin_mul_overflow(g->p[i], 2, &pad2) ||
        __builtin_add_overflow(in, pad2, &num) || __builtin_sub_overflow(num, span, &num) ||
        __builtin_sub_overflow(num, 1, &num) || (ceil_mode && __builtin_add_overflow(num, g->s[i] - 1, &num)))
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                     "%s: kernel_size %lld, stride %lld, padding %lld and dilation %lld of spatial dim %d "
                     "overflow int64", OPN, (long long)g->k[i], (long long)g->s[i], (long long)g->p[i],
                     (long long)g->d[i], (int)i);
    int64_t o = floor_div(num, g->s[i]) + 1;
    if (ceil_mode && (o - 1) * g->s[i] >= in + g->p[i]) o--;
    if (o < 1)
      return REF_ERR(h, TABI_ERR_SHAPE,
                     "%s: input size %lld of spatial dim %d gives output size %lld: output size is too small",
                     OPN, (long long)in, (int)i, (long long)o);
    g->in[i] = in;
    g->out[i] = o;
  }
  return TABI_OK;
}

static tabi_status grad_shape(const tabi_host_api *h, const tabi_call *call, const char *arg,
                              const tabi_tensor *t, const tabi_tensor *x, const ref_pool_dims *g) {
  int bad = t->dl.ndim != x->dl.ndim;
  for (int32_t i = 0; !bad && i < t->dl.ndim; i++)
    bad = t->dl.shape[i] != (i < g->nlead ? x->dl.shape[i] : g->out[i - g->nlead]);
  if (!bad) return TABI_OK;
  char b1[96];
  return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument '%s' has shape %s, which is not the pooled output's",
                 OPN, arg, ref_shape_str(b1, sizeof b1, t->dl.ndim, t->dl.shape));
}

static tabi_status same_dtype(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *go,
                              tabi_dtype dt) {
  if (tabi_tensor_dtype(go) == dt) return TABI_OK;
  return REF_ERR(h, TABI_ERR_TYPE, "%s: argument 'grad_output' has dtype %s; expected %s", OPN,
                 tabi_dtype_name(tabi_tensor_dtype(go)), tabi_dtype_name(dt));
}

static tabi_status divisor_arg(const tabi_host_api *h, const tabi_call *call, const tabi_value *v,
                               int64_t *out) {
  *out = v && v->tag == TABI_TAG_INT ? v->u.i : 0;
  if (v && v->tag == TABI_TAG_INT && v->u.i == 0)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'divisor_override' must not be zero", OPN);
  return TABI_OK;
}

tabi_status ref_pool_max_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                               int32_t ns, ref_pool_dims *g) {
  const tabi_tensor *x = args[0].u.t;
  tabi_status st = ref_check_dtype(h, call, "self", tabi_tensor_dtype(x), REF_DTS_FLOAT);
  if (st) return st;
  return pool_setup(h, call, x, ns, &args[1], &args[2], &args[3], &args[4], args[5].u.i != 0, g);
}

tabi_status ref_pool_max_bwd_check(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_value *args, ref_pool_dims *g) {
  const tabi_tensor *go = args[0].u.t, *x = args[1].u.t, *ind = args[7].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  tabi_status st;
  if ((st = ref_check_dtype(h, call, "self", dt, REF_DTS_FLOAT))) return st;
  if ((st = same_dtype(h, call, go, dt))) return st;
  if ((st = ref_check_dtype(h, call, "indices", tabi_tensor_dtype(ind), REF_DT(TABI_DTYPE_INT64))))
    return st;
  if ((st = pool_setup(h, call, x, 2, &args[2], &args[3], &args[4], &args[5], args[6].u.i != 0, g)))
    return st;
  if ((st = grad_shape(h, call, "grad_output", go, x, g))) return st;
  return grad_shape(h, call, "indices", ind, x, g);
}

tabi_status ref_pool_max_bwd_index_error(const tabi_host_api *h, const tabi_call *call, int64_t val,
                                         int64_t plane) {
  return REF_ERR(h, TABI_ERR_INDEX, "%s: argument 'indices' holds %lld, out of range for a plane of %lld elements",
                 OPN, (long long)val, (long long)plane);
}

tabi_status ref_pool_avg_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                               int32_t ns, ref_pool_dims *g) {
  const tabi_tensor *x = args[0].u.t;
  int64_t dov;
  tabi_status st;
  if ((st = ref_check_dtype(h, call, "self", tabi_tensor_dtype(x), REF_DTS_FLOAT | REF_DT(TABI_DTYPE_INT64))))
    return st;
  if ((st = divisor_arg(h, call, ns == 1 ? NULL : &args[6], &dov))) return st;
  if ((st = pool_setup(h, call, x, ns, &args[1], &args[2], &args[3], NULL, args[4].u.i != 0, g)))
    return st;
  g->dov = dov;
  g->include_pad = args[5].u.i != 0;
  return TABI_OK;
}

tabi_status ref_pool_avg_bwd_check(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_value *args, ref_pool_dims *g) {
  const tabi_tensor *go = args[0].u.t, *x = args[1].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  int64_t dov;
  tabi_status st;
  if ((st = ref_check_dtype(h, call, "self", dt, REF_DTS_FLOAT | REF_DT(TABI_DTYPE_INT64)))) return st;
  if ((st = same_dtype(h, call, go, dt))) return st;
  if ((st = divisor_arg(h, call, &args[7], &dov))) return st;
  if ((st = pool_setup(h, call, x, 2, &args[2], &args[3], &args[4], NULL, args[5].u.i != 0, g)))
    return st;
  if ((st = grad_shape(h, call, "grad_output", go, x, g))) return st;
  g->dov = dov;
  g->include_pad = args[6].u.i != 0;
  return TABI_OK;
}

/* osz NULL for the backward. */
static tabi_status adaptive_setup(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                                  int32_t ns, const tabi_value *osz, ref_pool_dims *g) {
  tabi_status st;
  if ((st = ref_check_dtype(h, call, "self", tabi_tensor_dtype(x), REF_DTS_FLOAT))) return st;
  if ((st = ref_nn_pool_input(h, call, x, ns, "self"))) return st;
  lead_dims(x, ns, g);
  if (osz) {
    int64_t len = ref_list_len(osz);
    if (len != ns)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'output_size' must have %d values, got %lld",
                     OPN, (int)ns, (long long)len);
  }
  for (int32_t i = 0; i < 3; i++) {
    g->in[i] = i < ns ? x->dl.shape[g->nlead + i] : 1;
    g->out[i] = i < ns && osz ? tabi_value_ints(osz)[i] : 1;
    g->k[i] = g->s[i] = g->d[i] = 1;
    if (g->out[i] < 0)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'output_size' has %lld; elements must be >= 0",
                     OPN, (long long)g->out[i]);
  }
  return TABI_OK;
}

tabi_status ref_pool_adaptive_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                    int32_t ns, ref_pool_dims *g) {
  return adaptive_setup(h, call, args[0].u.t, ns, &args[1], g);
}

tabi_status ref_pool_adaptive_bwd_check(const tabi_host_api *h, const tabi_call *call,
                                        const tabi_value *args, ref_pool_dims *g) {
  const tabi_tensor *go = args[0].u.t, *x = args[1].u.t;
  tabi_status st;
  if ((st = adaptive_setup(h, call, x, 2, NULL, g))) return st;
  if ((st = same_dtype(h, call, go, tabi_tensor_dtype(x)))) return st;
  if (go->dl.ndim != x->dl.ndim) {
    char b[96];
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'grad_output' has shape %s; expected %d dims like 'self'",
                   OPN, ref_shape_str(b, sizeof b, go->dl.ndim, go->dl.shape), (int)x->dl.ndim);
  }
  for (int32_t i = 0; i < g->nlead; i++)
    if (go->dl.shape[i] != x->dl.shape[i])
      return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'grad_output' dim %d is %lld; expected %lld", OPN,
                     (int)i, (long long)go->dl.shape[i], (long long)x->dl.shape[i]);
  g->out[0] = go->dl.shape[g->nlead];
  g->out[1] = go->dl.shape[g->nlead + 1];
  return TABI_OK;
}
