/* reference/ref_conv_check.c: see ref_conv_check.h. The checks of
 * reference/ref_nn.c's convolution kernels, moved here unchanged (messages and
 * order) so the GPU plugins run the same code. */
#include <stdio.h>
#include <string.h>

#include "ref.h"
#include "ref_conv_check.h"

#define CONV_DTS (REF_DTS_INT | REF_DTS_FLOAT)

typedef ref_conv_geom conv_geom;

/* A list argument of length 1 (expanded) or ns; values checked >= lo. */
static tabi_status conv_list(const tabi_host_api *h, const tabi_call *call, const tabi_value *v,
                             const char *name, int32_t ns, int64_t lo, int64_t *out) {
  int64_t len = ref_list_len(v);
  const int64_t *x = tabi_value_ints(v);
  if (len != 1 && len != ns)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument '%s' has %lld values; expected 1 or %d (one per spatial dim)",
                   ref_op_name(h, call), name, (long long)len, (int)ns);
  for (int32_t i = 0; i < 3; i++) {
    out[i] = i < ns ? x[len == 1 ? 0 : i] : (lo > 0 ? 1 : 0);
    if (i < ns && out[i] < lo)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument '%s' has value %lld; expected >= %lld",
                     ref_op_name(h, call), name, (long long)out[i], (long long)lo);
  }
  return TABI_OK;
}

/* Checks a convolution's arguments and derives its geometry and output shape.
 * args from `a0`: input, weight, (bias or bias_sizes), stride, padding,
 * dilation, transposed, output_padding, groups (convolution's order). */
static tabi_status conv_setup(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *in,
                              const tabi_tensor *w, const tabi_value *a, conv_geom *g,
                              int32_t *out_ns, int64_t *out_shape, int *out_transposed) {
  char b1[96], b2[96];
  tabi_status st;
  int32_t nd = w->dl.ndim, ns = nd - 2;
  tabi_dtype dt = tabi_tensor_dtype(in);
  if ((st = ref_check_dtype(h, call, "input", dt, CONV_DTS))) return st;
  if (tabi_tensor_dtype(w) != dt)
    return REF_ERR(h, TABI_ERR_TYPE, "%s: argument 'weight' has dtype %s; expected %s (the input's)",
                   ref_op_name(h, call), tabi_dtype_name(tabi_tensor_dtype(w)), tabi_dtype_name(dt));
  if (nd < 3 || nd > 5)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'weight' must be 3-D, 4-D or 5-D, got %dD",
                   ref_op_name(h, call), (int)nd);
  if (in->dl.ndim != nd)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: expected %d-dimensional input for %d-dimensional weight %s, but got "
                   "%d-dimensional input of size %s",
                   ref_op_name(h, call), (int)nd, (int)nd, ref_shape_str(b1, sizeof b1, nd, w->dl.shape),
                   (int)in->dl.ndim, ref_shape_str(b2, sizeof b2, in->dl.ndim, in->dl.shape));
  int transposed = a[3].u.i != 0;
  int64_t groups = a[5].u.i, opad[3];
  memset(g, 0, sizeof *g);
  if ((st = conv_list(h, call, &a[0], "stride", ns, 1, g->s)) ||
      (st = conv_list(h, call, &a[1], "padding", ns, 0, g->p)) ||
      (st = conv_list(h, call, &a[2], "dilation", ns, 1, g->d)) ||
      (st = conv_list(h, call, &a[4], "output_padding", ns, 0, opad)))
    return st;
  if (groups < 1)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'groups' is %lld; expected >= 1",
                   ref_op_name(h, call), (long long)groups);
  int64_t cin = in->dl.shape[1];
  int64_t cin_w = transposed ? w->dl.shape[0] : w->dl.shape[1] * groups;
  int64_t cout = transposed ? w->dl.shape[1] * groups : w->dl.shape[0];
  if (cin != cin_w || w->dl.shape[0] % groups != 0)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: given groups=%lld and transposed=%d, weight of size %s expects input %s "
                   "to have %lld channels (and weight's dim 0 divisible by groups)",
                   ref_op_name(h, call), (long long)groups, transposed,
                   ref_shape_str(b1, sizeof b1, nd, w->dl.shape),
                   ref_shape_str(b2, sizeof b2, in->dl.ndim, in->dl.shape), (long long)cin_w);
  g->n = in->dl.shape[0];
  g->groups = groups;
  g->cl = transposed ? cin : cout;
  g->ch = transposed ? cout : cin;
  out_shape[0] = g->n;
  out_shape[1] = cout;
  for (int32_t i = 0; i < 3; i++) {
    g->k[i] = i < ns ? w->dl.shape[2 + i] : 1;
    if (i >= ns) {
      g->lsp[i] = g->hsp[i] = 1;
      continue;
    }
    int64_t isz = in->dl.shape[2 + i], span = g->d[i] * (g->k[i] - 1) + 1;
    if (transposed) {
      if (opad[i] >= g->s[i] && opad[i] >= g->d[i])
        return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                       "%s: output_padding (%lld) must be smaller than either stride (%lld) or "
                       "dilation (%lld)",
                       ref_op_name(h, call), (long long)opad[i], (long long)g->s[i], (long long)g->d[i]);
      int64_t osz = (isz - 1) * g->s[i] - 2 * g->p[i] + span + opad[i];
      if (osz < 0 || (osz == 0 && isz > 0))
        return REF_ERR(h, TABI_ERR_SHAPE, "%s: the computed output size %lld of spatial dim %d is too small",
                       ref_op_name(h, call), (long long)osz, (int)i);
      g->lsp[i] = isz;
      g->hsp[i] = osz;
      out_shape[2 + i] = osz;
    } else {
      if (isz + 2 * g->p[i] < span)
        return REF_ERR(h, TABI_ERR_SHAPE,
                       "%s: padded input size %lld of spatial dim %d is smaller than the "
                       "(dilated) kernel size %lld",
                       ref_op_name(h, call), (long long)(isz + 2 * g->p[i]), (int)i, (long long)span);
      int64_t osz = (isz + 2 * g->p[i] - span) / g->s[i] + 1;
      g->hsp[i] = isz;
      g->lsp[i] = osz;
      out_shape[2 + i] = osz;
    }
  }
  *out_ns = ns;
  *out_transposed = transposed;
  return TABI_OK;
}

tabi_status ref_conv_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                           ref_conv_geom *g, int32_t *ns, int64_t *out_shape, int *transposed) {
  const tabi_tensor *in = args[0].u.t, *w = args[1].u.t;
  const tabi_tensor *bias = args[2].tag == TABI_TAG_TENSOR ? args[2].u.t : NULL;
  tabi_status st = conv_setup(h, call, in, w, &args[3], g, ns, out_shape, transposed);
  if (st) return st;
  tabi_dtype dt = tabi_tensor_dtype(in);
  if (bias) {
    if (tabi_tensor_dtype(bias) != dt)
      return REF_ERR(h, TABI_ERR_TYPE, "%s: argument 'bias' has dtype %s; expected %s (the input's)",
                     ref_op_name(h, call), tabi_dtype_name(tabi_tensor_dtype(bias)), tabi_dtype_name(dt));
    if (bias->dl.ndim != 1 || bias->dl.shape[0] != out_shape[1])
      return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'bias' must be 1-D with %lld elements (the output channels)",
                     ref_op_name(h, call), (long long)out_shape[1]);
  }
  return TABI_OK;
}

tabi_status ref_conv_bwd_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                               ref_conv_geom *g, int32_t *ns, int64_t *out_shape, int *transposed) {
  const tabi_tensor *go = args[0].u.t, *in = args[1].u.t, *w = args[2].u.t;
  char b1[96], b2[96];
  tabi_status st = conv_setup(h, call, in, w, &args[4], g, ns, out_shape, transposed);
  if (st) return st;
  tabi_dtype dt = tabi_tensor_dtype(in);
  if (tabi_tensor_dtype(go) != dt)
    return REF_ERR(h, TABI_ERR_TYPE, "%s: argument 'grad_output' has dtype %s; expected %s (the input's)",
                   ref_op_name(h, call), tabi_dtype_name(tabi_tensor_dtype(go)), tabi_dtype_name(dt));
  int bad = go->dl.ndim != *ns + 2;
  for (int32_t i = 0; !bad && i < *ns + 2; i++) bad = go->dl.shape[i] != out_shape[i];
  if (bad)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'grad_output' has shape %s; expected %s (the output's)",
                   ref_op_name(h, call), ref_shape_str(b1, sizeof b1, go->dl.ndim, go->dl.shape),
                   ref_shape_str(b2, sizeof b2, *ns + 2, out_shape));
  return TABI_OK;
}
