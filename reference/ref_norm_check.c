/* reference/ref_norm_check.c: see ref_norm_check.h. The reference's layer/group
 * norm checks, in the reference's order: the input's dtype, the statistics'
 * dtype (ref_nn_stats_dtype), the shapes (normalized_shape or N/C/HxW/group,
 * then the parameters), then for the backwards grad_out/mean/rstd. */
#include <stdio.h>
#include <string.h>

#include "ref.h"
#include "ref_nn_util.h"
#include "ref_norm_check.h"

#define OPN ref_op_name(h, call)

static const tabi_tensor *opt_t(const tabi_value *v) { return v->tag == TABI_TAG_TENSOR ? v->u.t : NULL; }

/* float_input + ref_nn_stats_dtype over the n parameters ps (named pn) */
static tabi_status dtypes(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                          const tabi_tensor *const *ps, const char *const *pn, int n, ref_norm_dims *d) {
  tabi_status st;
  tabi_dtype sdt;
  memset(d, 0, sizeof *d);
  if ((st = ref_check_dtype(h, call, "input", tabi_tensor_dtype(x), REF_DTS_FLOAT)) ||
      (st = ref_nn_stats_dtype(h, call, x, ps, pn, n, &sdt)))
    return st;
  d->sdt = (int32_t)sdt;
  return TABI_OK;
}

/* Splits x at the normalized dims: M rows of N elements (row-major linear index
 * r*N + j). Checks normalized_shape against x and the parameters' shapes. */
static tabi_status ln_setup(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                            const tabi_value *nsv, const tabi_tensor *const *ps, ref_norm_dims *d) {
  int64_t k = ref_list_len(nsv);
  const int64_t *ns = tabi_value_ints(nsv);
  const char *pn[2] = {"weight", "bias"};
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

tabi_status ref_norm_ln_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                              ref_norm_dims *d) {
  const tabi_tensor *x = args[0].u.t;
  const tabi_tensor *ps[2] = {opt_t(&args[2]), opt_t(&args[3])};
  const char *pn[2] = {"weight", "bias"};
  tabi_status st;
  if ((st = dtypes(h, call, x, ps, pn, 2, d))) return st;
  return ln_setup(h, call, x, &args[1], ps, d);
}

tabi_status ref_norm_ln_bwd_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                  ref_norm_dims *d) {
  const tabi_tensor *go = args[0].u.t, *x = args[1].u.t, *mean = args[3].u.t, *rstd = args[4].u.t;
  const tabi_tensor *ps[2] = {opt_t(&args[5]), opt_t(&args[6])};
  const char *pn[2] = {"weight", "bias"};
  tabi_status st;
  if ((st = dtypes(h, call, x, ps, pn, 2, d)) || (st = ln_setup(h, call, x, &args[2], ps, d))) return st;
  int64_t M = d->rows;
  if (tabi_tensor_numel(go) != M * d->cnt || go->dl.ndim != x->dl.ndim || tabi_tensor_numel(mean) != M ||
      tabi_tensor_numel(rstd) != M)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: grad_out must have the input's shape and mean/rstd %lld elements",
                   OPN, (long long)M);
  return TABI_OK;
}

/* The group checks and the parameters' shapes; x's dims N, C, HxW, group at
 * args[i0..i0+3]. */
static tabi_status gn_common(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                             const tabi_value *args, int i0, const tabi_tensor *const *ps,
                             const char *const *pn, int np, ref_norm_dims *d) {
  int64_t N = args[i0].u.i, C = args[i0 + 1].u.i, HxW = args[i0 + 2].u.i, G = args[i0 + 3].u.i;
  if (N < 0 || C < 0 || HxW < 0 || G < 1 || C % G != 0)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: expected the number of channels C=%lld to be divisible by group=%lld (>= 1)", OPN,
                   (long long)C, (long long)G);
  /* the caller's N, C, HxW and group: every product checked (C's overflow is undefined) */
  int64_t nc, nel, rows, cnt;
  int ovf = __builtin_mul_overflow(N, C, &nc) || __builtin_mul_overflow(nc, HxW, &nel) ||
            __builtin_mul_overflow(N, G, &rows) || __builtin_mul_overflow(C / G, HxW, &cnt);
  if (ovf || tabi_tensor_numel(x) != nel || (x->dl.ndim >= 2 && (x->dl.shape[0] != N || x->dl.shape[1] != C)))
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'input' must be [N=%lld, C=%lld, *] with N*C*HxW "
                   "elements (HxW=%lld)", OPN, (long long)N, (long long)C, (long long)HxW);
  for (int i = 0; i < np; i++)
    if (ps[i] && !(ps[i]->dl.ndim == 1 && ps[i]->dl.shape[0] == C))
      return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument '%s' must be 1-D with C=%lld elements", OPN, pn[i],
                     (long long)C);
  d->rows = rows;
  d->D = C / G;
  d->cnt = cnt;
  d->G = G;
  d->pdiv = HxW ? HxW : 1;
  d->pmod = d->D ? d->D : 1;
  d->pn = C;
  d->pnd = 1;
  d->pshape = &args[i0 + 1].u.i; /* [C] */
  return TABI_OK;
}

tabi_status ref_norm_gn_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                              ref_norm_dims *d) {
  const tabi_tensor *x = args[0].u.t;
  const tabi_tensor *ps[2] = {opt_t(&args[1]), opt_t(&args[2])};
  const char *pn[2] = {"weight", "bias"};
  tabi_status st;
  if ((st = dtypes(h, call, x, ps, pn, 2, d))) return st;
  return gn_common(h, call, x, args, 3, ps, pn, 2, d);
}

tabi_status ref_norm_gn_bwd_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                  ref_norm_dims *d) {
  const tabi_tensor *go = args[0].u.t, *x = args[1].u.t, *mean = args[2].u.t, *rstd = args[3].u.t;
  const tabi_tensor *ps[1] = {opt_t(&args[4])};
  const char *pn[1] = {"weight"};
  tabi_status st;
  if ((st = dtypes(h, call, x, ps, pn, 1, d)) || (st = gn_common(h, call, x, args, 5, ps, pn, 1, d))) return st;
  int64_t NC = args[5].u.i * args[6].u.i;
  if (tabi_tensor_numel(go) != NC * args[7].u.i || tabi_tensor_numel(mean) != d->rows ||
      tabi_tensor_numel(rstd) != d->rows)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: grad_out must have the input's shape and mean/rstd N*group=%lld elements",
                   OPN, (long long)d->rows);
  return TABI_OK;
}
