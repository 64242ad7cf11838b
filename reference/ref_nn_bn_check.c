/* reference/ref_nn_bn_check.c: see ref_nn_bn_check.h. Compiled into the
 * reference plugin and into the CUDA and ROCm plugins (with ref_util.c and
 * ref_nn_util.c, which it uses). */
#include "ref_nn_bn_check.h"

#include <string.h>

#include "ref.h"
#include "ref_nn_util.h"

static const tabi_tensor *opt_t(const tabi_value *v) { return v->tag == TABI_TAG_TENSOR ? v->u.t : NULL; }

void ref_nn_bn_args(const tabi_value *args, int form, ref_bn_args *a) {
  memset(a, 0, sizeof *a);
  a->x = args[0].u.t;
  a->w = opt_t(&args[1]);
  a->b = opt_t(&args[2]);
  if (form == REF_BN_NO_STATS) {
    a->training = args[3].u.i != 0;
    a->momentum = args[4].u.f;
    a->eps = args[5].u.f;
    return;
  }
  a->rm = args[3].u.t;
  a->rv = args[4].u.t;
  if (form == REF_BN_LEGIT) {
    a->training = args[5].u.i != 0;
    a->momentum = args[6].u.f;
    a->eps = args[7].u.f;
  } else {
    a->training = 0;
    a->momentum = args[5].u.f;
    a->eps = args[6].u.f;
  }
}

static tabi_status bn_param(const tabi_host_api *h, const tabi_call *call, const char *arg,
                            const tabi_tensor *p, int64_t C, int writable) {
  if (!p) return TABI_OK;
  if (p->dl.ndim != 1 || p->dl.shape[0] != C)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument '%s' must be 1-D with C=%lld elements (the input's dim 1)",
                   ref_op_name(h, call), arg, (long long)C);
  if (writable && (p->flags & TABI_TENSOR_READ_ONLY))
    return REF_ERR(h, TABI_ERR_READ_ONLY, "%s: argument '%s' is read-only but is updated in training",
                   ref_op_name(h, call), arg);
  return TABI_OK;
}

tabi_status ref_nn_bn_check(const tabi_host_api *h, const tabi_call *call, const ref_bn_args *a,
                            ref_bn_dims *d) {
  tabi_status st;
  tabi_dtype sdt;
  const tabi_tensor *x = a->x;
  const tabi_tensor *ps[4] = {a->w, a->b, a->rm, a->rv};
  const char *pn[4] = {"weight", "bias", "running_mean", "running_var"};
  memset(d, 0, sizeof *d);
  if ((st = ref_check_dtype(h, call, "input", tabi_tensor_dtype(x), REF_DTS_FLOAT))) return st;
  if ((st = ref_nn_stats_dtype(h, call, x, ps, pn, 4, &sdt))) return st;
  if (x->dl.ndim < 2) {
    char b1[96];
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'input' must be [N, C, *] (at least 2-D), got %s",
                   ref_op_name(h, call), ref_shape_str(b1, sizeof b1, x->dl.ndim, x->dl.shape));
  }
  if (!a->training && (!a->rm || !a->rv))
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: running_mean and running_var must be given in evaluation mode (training=False)",
                   ref_op_name(h, call));
  int64_t S = 1;
  for (int32_t i = 2; i < x->dl.ndim; i++) S *= x->dl.shape[i];
  for (int i = 0; i < 4; i++)
    if ((st = bn_param(h, call, pn[i], ps[i], x->dl.shape[1], i >= 2 && a->training))) return st;
  d->N = x->dl.shape[0];
  d->C = x->dl.shape[1];
  d->S = S;
  d->sdt = (int32_t)sdt;
  return TABI_OK;
}
