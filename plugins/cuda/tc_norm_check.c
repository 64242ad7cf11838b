/* plugins/cuda/tc_norm_check.c: see tc_norm_check.h. The checks and their
 * messages are the reference's, in the reference's order (float_input,
 * ln_setup, gn_check, gn_param and the kernels of reference/ref_nn3.c,
 * ref_nn_stats_dtype of ref_nn_util.c, which the CUDA plugin does not link):
 * keep them in step with those. */
#include <stdio.h>
#include <string.h>

#include "ref.h"
#include "tc_norm_check.h"

#define OPN ref_op_name(h, call)

static const tabi_tensor *opt_t(const tabi_value *v) { return v->tag == TABI_TAG_TENSOR ? v->u.t : NULL; }

static tabi_status float_input(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x) {
  return ref_check_dtype(h, call, "input", tabi_tensor_dtype(x), REF_DTS_FLOAT);
}

/* ref_nn_stats_dtype */
static tabi_status stats_dtype(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                               const tabi_tensor *const *params, const char *const *names, int n,
                               int32_t *out) {
  tabi_dtype dt = tabi_tensor_dtype(x);
  int low = dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16, mixed = 0;
  for (int i = 0; i < n; i++) {
    if (!params[i]) continue;
    tabi_dtype pd = tabi_tensor_dtype(params[i]);
    if (pd == dt) continue;
    if (low && pd == TABI_DTYPE_FLOAT32) {
      mixed = 1;
      continue;
    }
    return REF_ERR(h, TABI_ERR_TYPE, "%s: argument '%s' has dtype %s; expected %s (the input's)%s", OPN,
                   names[i], tabi_dtype_name(pd), tabi_dtype_name(dt), low ? " or float32" : "");
  }
  *out = mixed ? TABI_DTYPE_FLOAT32 : dt;
  return TABI_OK;
}

tabi_status tc_ln_bwd_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                            tc_norm_dims *d) {
  const tabi_tensor *go = args[0].u.t, *x = args[1].u.t, *mean = args[3].u.t, *rstd = args[4].u.t;
  const tabi_tensor *w = opt_t(&args[5]), *b = opt_t(&args[6]);
  const tabi_tensor *ps[2] = {w, b};
  const char *pn[2] = {"weight", "bias"};
  tabi_status st;
  memset(d, 0, sizeof *d);
  if ((st = float_input(h, call, x)) || (st = stats_dtype(h, call, x, ps, pn, 2, &d->sdt))) return st;
  /* ln_setup */
  int64_t k = ref_list_len(&args[2]);
  const int64_t *ns = tabi_value_ints(&args[2]);
  char b1[96], b2[96];
  if (k < 1)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'normalized_shape' must have at least 1 dim", OPN);
  int bad = k > x->dl.ndim;
  for (int64_t i = 0; !bad && i < k; i++) bad = x->dl.shape[x->dl.ndim - k + i] != ns[i];
  if (bad)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: given normalized_shape=%s, expected input with shape "
                   "[*] + %s, but got input of size %s", OPN, ref_shape_str(b1, sizeof b1, (int32_t)k, ns), b1,
                   ref_shape_str(b2, sizeof b2, x->dl.ndim, x->dl.shape));
  for (int p = 0; p < 2; p++) {
    if (!ps[p]) continue;
    int pb = ps[p]->dl.ndim != k;
    for (int64_t i = 0; !pb && i < k; i++) pb = ps[p]->dl.shape[i] != ns[i];
    if (pb)
      return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument '%s' has shape %s; expected normalized_shape %s", OPN,
                     pn[p], ref_shape_str(b1, sizeof b1, ps[p]->dl.ndim, ps[p]->dl.shape),
                     ref_shape_str(b2, sizeof b2, (int32_t)k, ns));
  }
  int32_t axis = x->dl.ndim - (int32_t)k;
  int64_t M = 1, N = 1;
  for (int32_t i = 0; i < x->dl.ndim; i++) *(i < axis ? &M : &N) *= x->dl.shape[i];
  if (tabi_tensor_numel(go) != M * N || go->dl.ndim != x->dl.ndim || tabi_tensor_numel(mean) != M ||
      tabi_tensor_numel(rstd) != M)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: grad_out must have the input's shape and mean/rstd %lld elements",
                   OPN, (long long)M);
  d->rows = M;
  d->cnt = N;
  d->G = 1;
  d->D = 0;
  d->pdiv = 1;
  d->pmod = N > 0 ? N : 1;
  d->pn = N;
  d->pnd = x->dl.ndim - axis;
  d->pshape = x->dl.shape + axis;
  return TABI_OK;
}

/* gn_check + gn_param; x's dims N, C, HxW, group at args[i0..i0+3] */
static tabi_status gn_common(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                             const tabi_value *args, int i0, const tabi_tensor *const *ps,
                             const char *const *pn, int np, tc_norm_dims *d) {
  int64_t N = args[i0].u.i, C = args[i0 + 1].u.i, HxW = args[i0 + 2].u.i, G = args[i0 + 3].u.i;
  if (N < 0 || C < 0 || HxW < 0 || G < 1 || C % G != 0)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: expected the number of channels C=%lld to be divisible by group=%lld (>= 1)", OPN,
                   (long long)C, (long long)G);
  if (tabi_tensor_numel(x) != N * C * HxW || (x->dl.ndim >= 2 && (x->dl.shape[0] != N || x->dl.shape[1] != C)))
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'input' must be [N=%lld, C=%lld, *] with N*C*HxW=%lld "
                   "elements", OPN, (long long)N, (long long)C, (long long)(N * C * HxW));
  for (int i = 0; i < np; i++)
    if (ps[i] && !(ps[i]->dl.ndim == 1 && ps[i]->dl.shape[0] == C))
      return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument '%s' must be 1-D with C=%lld elements", OPN, pn[i],
                     (long long)C);
  d->rows = N * G;
  d->D = C / G;
  d->cnt = d->D * HxW;
  d->G = G;
  d->pdiv = HxW ? HxW : 1;
  d->pmod = d->D ? d->D : 1;
  d->pn = C;
  d->pnd = 1;
  d->pshape = &args[i0 + 1].u.i; /* [C] */
  return TABI_OK;
}

tabi_status tc_gn_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                        tc_norm_dims *d) {
  const tabi_tensor *x = args[0].u.t;
  const tabi_tensor *ps[2] = {opt_t(&args[1]), opt_t(&args[2])};
  const char *pn[2] = {"weight", "bias"};
  tabi_status st;
  memset(d, 0, sizeof *d);
  if ((st = float_input(h, call, x)) || (st = stats_dtype(h, call, x, ps, pn, 2, &d->sdt))) return st;
  return gn_common(h, call, x, args, 3, ps, pn, 2, d);
}

tabi_status tc_gn_bwd_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                            tc_norm_dims *d) {
  const tabi_tensor *go = args[0].u.t, *x = args[1].u.t, *mean = args[2].u.t, *rstd = args[3].u.t;
  const tabi_tensor *ps[1] = {opt_t(&args[4])};
  const char *pn[1] = {"weight"};
  tabi_status st;
  memset(d, 0, sizeof *d);
  if ((st = float_input(h, call, x)) || (st = stats_dtype(h, call, x, ps, pn, 1, &d->sdt)) ||
      (st = gn_common(h, call, x, args, 5, ps, pn, 1, d)))
    return st;
  int64_t NC = args[5].u.i * args[6].u.i;
  if (tabi_tensor_numel(go) != NC * args[7].u.i || tabi_tensor_numel(mean) != d->rows ||
      tabi_tensor_numel(rstd) != d->rows)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: grad_out must have the input's shape and mean/rstd N*group=%lld elements",
                   OPN, (long long)d->rows);
  return TABI_OK;
}
