/* reference/ref_misc_check.c: see ref_misc_check.h. */
#include <stdio.h>
#include <string.h>

#include "ref.h"
#include "ref_misc_check.h"
#include "ref_shape_util.h"

#define OPN ref_op_name(h, call)

tabi_status ref_dropout_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                              int *out_train, int *out_wide) {
  tabi_dtype dt = tabi_tensor_dtype(args[0].u.t);
  double p = args[1].u.f;
  tabi_status st = ref_check_dtype(h, call, "input", dt, REF_DTS_FLOAT | REF_DTS_COMPLEX);
  if (st != TABI_OK) return st;
  if (!(p >= 0 && p <= 1))
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'p' is %g; dropout probability has "
                   "to be between 0 and 1", OPN, p);
  *out_train = args[2].tag == TABI_TAG_NONE || args[2].u.i != 0;
  *out_wide = dt == TABI_DTYPE_FLOAT64 || dt == TABI_DTYPE_COMPLEX128;
  return TABI_OK;
}

tabi_status ref_grid_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args) {
  const tabi_tensor *x = args[0].u.t, *grid = args[1].u.t;
  int64_t mode = args[2].u.i, pad = args[3].u.i;
  tabi_dtype dt = tabi_tensor_dtype(x);
  tabi_status st;
  char b1[96], b2[96];
  if ((st = ref_check_dtype(h, call, "input", dt, REF_DT(TABI_DTYPE_FLOAT32) | REF_DT(TABI_DTYPE_FLOAT64))))
    return st;
  if (tabi_tensor_dtype(grid) != dt)
    return REF_ERR(h, TABI_ERR_TYPE, "%s: argument 'grid' has dtype %s; expected %s (the input's)",
                   OPN, tabi_dtype_name(tabi_tensor_dtype(grid)), tabi_dtype_name(dt));
  if (mode < 0 || mode > 2 || pad < 0 || pad > 2)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: interpolation_mode (%lld) and padding_mode (%lld) must "
                   "be 0, 1 or 2", OPN, (long long)mode, (long long)pad);
  if (x->dl.ndim != 4 || grid->dl.ndim != 4 || grid->dl.shape[0] != x->dl.shape[0] || grid->dl.shape[3] != 2 ||
      x->dl.shape[2] == 0 || x->dl.shape[3] == 0)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: expected input [N, C, H, W] (H, W > 0) and grid [N, H_out, W_out, 2], "
                   "got input %s and grid %s", OPN,
                   ref_shape_str(b1, sizeof b1, x->dl.ndim, x->dl.shape),
                   ref_shape_str(b2, sizeof b2, grid->dl.ndim, grid->dl.shape));
  return TABI_OK;
}

static tabi_status check_p(const tabi_host_api *h, const tabi_call *call, double p) {
  if (p >= 0) return TABI_OK;
  return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                 "%s: argument 'p' is %g; only non-negative p values are supported", OPN, p);
}

static const uint32_t DIST_DTS = REF_DT(TABI_DTYPE_FLOAT32) | REF_DT(TABI_DTYPE_FLOAT64);

tabi_status ref_cdist_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                            int32_t *bnd_out, int64_t *bshape, int64_t *oshape) {
  const tabi_tensor *x1 = args[0].u.t, *x2 = args[1].u.t;
  double p = args[2].u.f;
  tabi_status st;
  tabi_dtype d1 = tabi_tensor_dtype(x1), d2 = tabi_tensor_dtype(x2);
  if ((st = ref_check_dtype(h, call, "x1", d1, DIST_DTS))) return st;
  if (d2 != d1)
    return REF_ERR(h, TABI_ERR_TYPE, "%s: argument '%s' has dtype %s; expected %s (the dtype of '%s')",
                   OPN, "x2", tabi_dtype_name(d2), tabi_dtype_name(d1), "x1");
  if ((st = check_p(h, call, p))) return st;
  if (args[3].tag == TABI_TAG_INT && (args[3].u.i < 0 || args[3].u.i > 2))
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'compute_mode' is %lld; possible modes: 0, 1, 2",
                   OPN, (long long)args[3].u.i);
  if (x1->dl.ndim < 2 || x2->dl.ndim < 2)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: x1 and x2 must be at least 2-D, got %dD and %dD", OPN,
                   (int)x1->dl.ndim, (int)x2->dl.ndim);
  int32_t n1 = x1->dl.ndim, n2 = x2->dl.ndim;
  int64_t m = x1->dl.shape[n1 - 1];
  if (x2->dl.shape[n2 - 1] != m)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: x1 and x2 must have the same number of columns: x1 %lld, x2 %lld",
                   OPN, (long long)m, (long long)x2->dl.shape[n2 - 1]);
  int32_t bnd = (n1 > n2 ? n1 : n2) - 2;
  if (bnd + 2 > REF_MAX_DIMS) return REF_ERR(h, TABI_ERR_SHAPE, "%s: too many dims", OPN);
  for (int32_t i = 0; i < bnd; i++) {
    int32_t i1 = i - (bnd - (n1 - 2)), i2 = i - (bnd - (n2 - 2));
    int64_t s1 = i1 >= 0 ? x1->dl.shape[i1] : 1, s2 = i2 >= 0 ? x2->dl.shape[i2] : 1;
    if (s1 != s2 && s1 != 1 && s2 != 1)
      return REF_ERR(h, TABI_ERR_SHAPE, "%s: the batch dims of x1 and x2 do not broadcast (%lld vs %lld)",
                     OPN, (long long)s1, (long long)s2);
    bshape[i] = s1 == 1 ? s2 : s1;
    oshape[i] = bshape[i];
  }
  oshape[bnd] = x1->dl.shape[n1 - 2];
  oshape[bnd + 1] = x2->dl.shape[n2 - 2];
  *bnd_out = bnd;
  return TABI_OK;
}

tabi_status ref_pdist_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                            int64_t *count) {
  const tabi_tensor *x = args[0].u.t;
  tabi_status st;
  if ((st = ref_check_dtype(h, call, "self", tabi_tensor_dtype(x), DIST_DTS))) return st;
  if ((st = check_p(h, call, args[1].u.f))) return st;
  if (x->dl.ndim != 2)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'self' must be a 2D tensor, got %dD", OPN, (int)x->dl.ndim);
  int64_t n = x->dl.shape[0];
  *count = n > 1 ? n * (n - 1) / 2 : 0;
  return TABI_OK;
}

static const uint32_t IDX_DTS = REF_DT(TABI_DTYPE_INT32) | REF_DT(TABI_DTYPE_INT64);

tabi_status ref_embedding_index_error(const tabi_host_api *h, const tabi_call *call, int64_t v, int64_t n) {
  return REF_ERR(h, TABI_ERR_INDEX, "%s: argument '%s' holds index %lld, out of range for %lld rows", OPN,
                 "indices", (long long)v, (long long)n);
}

tabi_status ref_embbw_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int64_t *D) {
  const tabi_tensor *go = args[0].u.t, *ind = args[1].u.t;
  int64_t V = args[2].u.i;
  tabi_status st;
  if ((st = ref_check_dtype(h, call, "grad_output", tabi_tensor_dtype(go), REF_DTS_FLOAT | REF_DTS_INT))) return st;
  if ((st = ref_check_dtype(h, call, "indices", tabi_tensor_dtype(ind), IDX_DTS))) return st;
  if (V < 0)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'num_weights' is %lld; expected >= 0", OPN,
                   (long long)V);
  int64_t ni = tabi_tensor_numel(ind), vd;
  *D = go->dl.ndim ? go->dl.shape[go->dl.ndim - 1] : 1;
  if (tabi_tensor_numel(go) != ni * *D || go->dl.ndim != ind->dl.ndim + 1)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'grad_output' must have shape indices.shape + [D]", OPN);
  /* the [num_weights, D] result, and the num_weights + 1 row starts the GPU kernels bucket by */
  if (__builtin_mul_overflow(V, *D, &vd) || V == INT64_MAX)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'num_weights': %lld rows of %lld elements "
                   "overflow int64", OPN, (long long)V, (long long)*D);
  return TABI_OK;
}

tabi_status ref_embbw_check_indices(const tabi_host_api *h, const tabi_call *call, const int64_t *iv,
                                    int64_t ni, int64_t V) {
  for (int64_t i = 0; i < ni; i++)
    if (iv[i] < 0 || iv[i] >= V) return ref_embedding_index_error(h, call, iv[i], V);
  return TABI_OK;
}

tabi_status ref_ebag_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int64_t *Bout,
                           int *o2b_empty) {
  const tabi_tensor *w = args[0].u.t, *ind = args[1].u.t, *off = args[2].u.t;
  int64_t mode = args[4].u.i, pad = args[8].u.i;
  const tabi_tensor *psw = args[6].tag == TABI_TAG_TENSOR ? args[6].u.t : NULL;
  int ilo = args[7].u.i != 0;
  tabi_dtype dt = tabi_tensor_dtype(w), it = tabi_tensor_dtype(ind);
  tabi_status st;
  if ((st = ref_check_dtype(h, call, "weight", dt, REF_DTS_FLOAT)) ||
      (st = ref_check_dtype(h, call, "indices", it, IDX_DTS)) ||
      (st = ref_check_dtype(h, call, "offsets", tabi_tensor_dtype(off), IDX_DTS)))
    return st;
  if (mode < 0 || mode > 2)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'mode' is %lld; expected 0 (sum), 1 (mean) "
                   "or 2 (max)", OPN, (long long)mode);
  if (w->dl.ndim != 2 || ind->dl.ndim != 1 || off->dl.ndim != 1)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: expected weight 2-D, indices 1-D and offsets 1-D; got %dD, %dD, %dD",
                   OPN, (int)w->dl.ndim, (int)ind->dl.ndim, (int)off->dl.ndim);
  if (psw) {
    if (mode != 0)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: per_sample_weights is only supported with mode sum (0)",
                     OPN);
    if (tabi_tensor_dtype(psw) != dt)
      return REF_ERR(h, TABI_ERR_TYPE, "%s: argument 'per_sample_weights' has dtype %s; expected %s (weight's)",
                     OPN, tabi_dtype_name(tabi_tensor_dtype(psw)), tabi_dtype_name(dt));
    if (psw->dl.ndim != 1 || psw->dl.shape[0] != ind->dl.shape[0])
      return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'per_sample_weights' must have the shape of indices", OPN);
  }
  int64_t B = off->dl.shape[0] - (ilo ? 1 : 0);
  if (B < 0)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: include_last_offset needs at least one offset", OPN);
  *Bout = B;
  /* ATen's sum-mode fast path (is_fast_path: a float32/float16/bfloat16 weight
   * with weight.stride(1) == 1, per_sample_weights.stride(0) == 1, padding_idx
   * < 0) does not build offset2bag; every other case returns it, [n]. */
  *o2b_empty = mode == 0 && pad < 0 &&
               (dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16) &&
               w->dl.strides[1] == 1 && (!psw || psw->dl.strides[0] == 1);
  return TABI_OK;
}

tabi_status ref_ebag_check_values(const tabi_host_api *h, const tabi_call *call, const int64_t *offv,
                                  int64_t noff, const int64_t *iv, int64_t n, int64_t V) {
  int64_t prev = 0;
  for (int64_t b = 0; b < noff; b++) {
    int64_t o = offv[b];
    if ((b == 0 && o != 0) || o < prev || o > n)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'offsets' must start at 0 and be "
                     "non-decreasing and <= %lld (the number of indices); offsets[%lld] is %lld",
                     OPN, (long long)n, (long long)b, (long long)o);
    prev = o;
  }
  for (int64_t i = 0; i < n; i++)
    if (iv[i] < 0 || iv[i] >= V)
      return REF_ERR(h, TABI_ERR_INDEX, "%s: argument 'indices' holds %lld, out of range for %lld rows", OPN,
                     (long long)iv[i], (long long)V);
  return TABI_OK;
}

/* --- addmm's Scalars ------------------------------------------------------------ */

/* 0 bool, 1 integer, 2 floating, 3 complex: of a dtype, or of a Scalar's kind */
static int kind_of_dtype(tabi_dtype d) {
  return d == TABI_DTYPE_BOOL ? 0 : tabi_dtype_is_complex(d) ? 3 : tabi_dtype_is_floating(d) ? 2 : 1;
}
static int kind_of_scalar(const tabi_value *v) {
  return v->tag == TABI_TAG_BOOL ? 0 : v->tag == TABI_TAG_INT ? 1 : v->tag == TABI_TAG_FLOAT ? 2 : 3;
}

tabi_status ref_addmm_scalars_check(const tabi_host_api *h, const tabi_call *call, int64_t numel, int64_t k,
                                    tabi_dtype dt, const tabi_value *beta, const tabi_value *alpha) {
  if (numel == 0) return TABI_OK;
  if (k == 0) {
    int zero = beta->tag == TABI_TAG_COMPLEX ? beta->u.c[0] == 0 && beta->u.c[1] == 0
                                             : tabi_value_as_double(beta) == 0;
    if (zero || kind_of_scalar(beta) <= kind_of_dtype(dt)) return TABI_OK;
    return REF_ERR(h, TABI_ERR_TYPE, "%s: argument 'beta': result type %s can't be cast to the desired output type %s",
                   ref_op_name(h, call), kind_of_scalar(beta) == 3 ? "ComplexFloat" : "Float", tabi_dtype_name(dt));
  }
  tabi_dtype om = dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16 ? TABI_DTYPE_FLOAT32 : dt;
  tabi_status st = rs_check_scalar(h, call, "beta", beta, om);
  return st != TABI_OK ? st : rs_check_scalar(h, call, "alpha", alpha, om);
}
