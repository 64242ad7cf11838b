/* tests/mutants/mut_ok.c: a correct mini-plugin (no bug). `tabi conform` must
 * pass it, so the mutant tests cannot pass by failing everything. */
#include <math.h>

#include "mutant.h"

static double add_f(double a, double b, double alpha) { return a + alpha * b; }
static int64_t add_i(int64_t a, int64_t b, int64_t alpha, int *err) {
  (void)err;
  return (int64_t)((uint64_t)a + (uint64_t)alpha * (uint64_t)b); /* wraps, as ATen */
}
static double mul_f(double a, double b, double alpha) { (void)alpha; return a * b; }
static int64_t mul_i(int64_t a, int64_t b, int64_t alpha, int *err) {
  (void)alpha; (void)err;
  return (int64_t)((uint64_t)a * (uint64_t)b);
}
static double max_f(double a, double b, double alpha) {
  (void)alpha;
  if (isnan(a) || isnan(b)) return NAN; /* maximum propagates NaN */
  return a > b ? a : b;
}
static int64_t max_i(int64_t a, int64_t b, int64_t alpha, int *err) {
  (void)alpha; (void)err;
  return a > b ? a : b;
}

static tabi_status k_add(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  (void)call;
  return mut_binary(ctx, "aten::add.Tensor", args, 1, add_f, add_i, outs);
}
static tabi_status k_mul(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  (void)call;
  return mut_binary(ctx, "aten::mul.Tensor", args, 0, mul_f, mul_i, outs);
}
static tabi_status k_maximum(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  (void)call;
  return mut_binary(ctx, "aten::maximum", args, 0, max_f, max_i, outs);
}

static tabi_status k_neg(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  tabi_tensor *a = args[0].u.t;
  tabi_dtype d = tabi_tensor_dtype(a);
  tabi_status st = mut_check_real(h, "aten::neg", "self", d);
  if (st == TABI_OK && d == TABI_DTYPE_BOOL)
    st = TABI_ERR(h, TABI_ERR_TYPE, "aten::neg: argument 'self' is bool");
  if (st != TABI_OK) return st;
  tabi_tensor *out;
  st = mut_empty(h, d, a->dl.ndim, a->dl.shape, &out);
  if (st != TABI_OK) return st;
  for (int64_t i = 0; i < tabi_tensor_numel(out); i++) {
    int64_t o = mut_offset(a, a->dl.ndim, a->dl.shape, i);
    if (tabi_dtype_is_floating(d)) mut_set(out, i, -mut_get(a, o));
    else mut_set_i(out, i, (int64_t)(0u - (uint64_t)mut_get_i(a, o)));
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

static tabi_status k_permute(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  tabi_tensor *a = args[0].u.t;
  const int64_t *dims = tabi_value_ints(&args[1]);
  int32_t nd = a->dl.ndim;
  if (args[1].u.list.len != nd)
    return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "aten::permute: argument 'dims' has %lld dims, "
                    "expected %d", (long long)args[1].u.list.len, (int)nd);
  int64_t shape[MUT_MAX_DIMS], strides[MUT_MAX_DIMS];
  int seen[MUT_MAX_DIMS] = {0};
  for (int32_t i = 0; i < nd; i++) {
    int64_t d = dims[i] < 0 ? dims[i] + nd : dims[i];
    if (d < 0 || d >= nd || seen[d])
      return TABI_ERR(h, TABI_ERR_INDEX, "aten::permute: argument 'dims' is not a permutation");
    seen[d] = 1;
    shape[i] = a->dl.shape[d];
    strides[i] = a->dl.strides[d];
  }
  tabi_tensor *v;
  tabi_status st = h->tensor_view(h->ctx, a, nd, shape, strides, (int64_t)a->dl.byte_offset, &v);
  if (st != TABI_OK) return st;
  outs[0] = tabi_tensor_value(v);
  return TABI_OK;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_ok", "a correct mini CPU plugin (control for the mutants)");
  tabi_status st = mut_register(host, "aten::add.Tensor", k_add);
  if (st == TABI_OK) st = mut_register(host, "aten::mul.Tensor", k_mul);
  if (st == TABI_OK) st = mut_register(host, "aten::maximum", k_maximum);
  if (st == TABI_OK) st = mut_register(host, "aten::neg", k_neg);
  if (st == TABI_OK) st = mut_register(host, "aten::permute", k_permute);
  return st;
}
