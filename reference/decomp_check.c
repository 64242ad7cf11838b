/* reference/decomp_check.c: the reference's own argument checks, run before a
 * decomposition.
 *
 * A decomposition builds an op from prims; which inputs it must refuse, and
 * with what status and message, is the reference's business. Restating those
 * rules here drifted (bool alpha accepted, a duplicate dim kept, a half_to_float
 * softmax of float32 computed): `tabi conform`'s random calls, checked against
 * the reference, found each. So for every op the reference exports a check
 * for (the plans and checks the GPU plugins already share: ref_op_lists.h,
 * ref_*_check.h), the decomposition runs it first, and refuses what the
 * reference refuses, word for word. The checks read metadata only, never a
 * tensor's data, so they hold for any device.
 */
#include <stdlib.h>
#include <string.h>

#include "decomp.h"
#include "ref_conv_check.h"
#include "ref_elementwise.h"
#include "ref_misc_check.h"
#include "ref_nn_bn_check.h"
#include "ref_norm_check.h"
#include "ref_pool_check.h"
#include "ref_reduce_util.h"
#include "ref_softmax_check.h"

#define CHECK_FN(name) \
  static tabi_status name(const tabi_host_api *h, const tabi_call *call, const tabi_value *args)

/* Elementwise: the aten descriptors' plans (dtypes, promotion, Scalar casts,
 * alpha, broadcasting). */
#define UNARY(name)                                                    \
  CHECK_FN(c_##name) {                                                 \
    ref_ew_unary_plan p;                                               \
    return ref_ew_unary_plan_init(h, call, args, &ref_ew_aten_##name, &p); \
  }
REF_EW_ATEN_UNARY_LIST(UNARY)
#undef UNARY

/* (div_trunc and div_floor are reached through c_div_mode) */
#define BINARY(name)                                                     \
  __attribute__((unused)) CHECK_FN(c2_##name) {                                                  \
    ref_ew_binary_plan p;                                                \
    return ref_ew_binary_plan_init(h, call, args, &ref_ew_aten2_##name, &p); \
  }
REF_EW_ATEN_BINARY_LIST(BINARY)
#undef BINARY

static tabi_status sub_form(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int scalar) {
  tabi_status st = ref_ew_sub_check(h, call, args, scalar);
  return st != TABI_OK ? st : c2_sub(h, call, args);
}
CHECK_FN(c_sub_tensor) { return sub_form(h, call, args, 0); }
CHECK_FN(c_sub_scalar) { return sub_form(h, call, args, 1); }

CHECK_FN(c_div_mode) {
  const ref_ew_binary_op *op = NULL;
  tabi_status st = ref_ew_div_mode_op(h, call, args, &op);
  ref_ew_binary_plan p;
  return st != TABI_OK ? st : ref_ew_binary_plan_init(h, call, args, op, &p);
}

CHECK_FN(c_clamp) {
  ref_ew_clamp_plan p;
  return ref_ew_clamp_plan_init(h, call, args, 0, &p);
}
CHECK_FN(c_hardtanh) {
  ref_ew_clamp_plan p;
  return ref_ew_clamp_plan_init(h, call, args, 1, &p);
}
CHECK_FN(c_clamp_tensor) {
  ref_ew_clamp_tensor_plan p;
  return ref_ew_clamp_tensor_plan_init(h, call, args, &p);
}
CHECK_FN(c_where) {
  ref_ew_where_plan p;
  return ref_ew_where_plan_init(h, call, args, 0, &p);
}

/* Reductions: the plans give the dims (wrapped, each once, 0-d included) and dtypes. */
#define REDUCE(name, opname)                           \
  CHECK_FN(cr_##name) {                                \
    ref_red_aten_plan p;                               \
    return ref_red_plan_##name(h, call, args, &p);     \
  }
REF_RED_ATEN_LIST(REDUCE)
#undef REDUCE

/* Normalization, softmax, dropout, pooling. */
CHECK_FN(c_softmax) {
  int32_t dim;
  tabi_dtype dt;
  return ref_softmax_check(h, call, args, &dim, &dt);
}
CHECK_FN(c_layer_norm) {
  ref_norm_dims d;
  return ref_norm_ln_check(h, call, args, &d);
}
CHECK_FN(c_group_norm) {
  ref_norm_dims d;
  return ref_norm_gn_check(h, call, args, &d);
}
static tabi_status bn(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int form) {
  ref_bn_args a;
  ref_bn_dims d;
  ref_nn_bn_args(args, form, &a);
  return ref_nn_bn_check(h, call, &a, &d);
}
CHECK_FN(c_bn) { return bn(h, call, args, REF_BN_LEGIT); }
CHECK_FN(c_bn_no_stats) { return bn(h, call, args, REF_BN_NO_STATS); }
CHECK_FN(c_bn_no_training) { return bn(h, call, args, REF_BN_NO_TRAINING); }
CHECK_FN(c_dropout) {
  int train, wide;
  return ref_dropout_check(h, call, args, &train, &wide);
}
static tabi_status avg(const tabi_host_api *h, const tabi_call *call, const tabi_value *args, int32_t ns) {
  ref_pool_dims g;
  return ref_pool_avg_check(h, call, args, ns, &g);
}
CHECK_FN(c_avg1) { return avg(h, call, args, 1); }
CHECK_FN(c_avg2) { return avg(h, call, args, 2); }
CHECK_FN(c_avg3) { return avg(h, call, args, 3); }

/* addmm: mat1 and mat2 of one dtype, and self of it too, and self expands
 * (not merely broadcasts) to the product's shape (the reference's mm_common,
 * which is not exported; the ranks and the inner dims are mm's to check). */
CHECK_FN(c_addmm) {
  const tabi_tensor *self = args[0].u.t, *a = args[1].u.t, *m = args[2].u.t;
  tabi_dtype dt = tabi_tensor_dtype(a);
  if (a->dl.ndim != 2 || m->dl.ndim != 2) return TABI_OK; /* ranks: mm's message */
  const char *bad = tabi_tensor_dtype(m) != dt ? "mat2" : tabi_tensor_dtype(self) != dt ? "self" : NULL;
  if (bad)
    return REF_ERR(h, TABI_ERR_TYPE, "%s: argument '%s' has dtype %s; expected %s (the dtype of 'mat1')",
                   ref_op_name(h, call), bad, tabi_dtype_name(tabi_tensor_dtype(bad[0] == 'm' ? m : self)),
                   tabi_dtype_name(dt));
  int64_t target[2] = {a->dl.shape[0], m->dl.shape[1]};
  int fits = self->dl.ndim <= 2;
  for (int32_t i = 0; fits && i < self->dl.ndim; i++) {
    int64_t sz = self->dl.shape[i];
    fits = sz == 1 || sz == target[2 - self->dl.ndim + i];
  }
  /* beta and alpha as ATen's CPU addmm takes them (shared with the reference) */
  if (fits)
    return a->dl.shape[1] != m->dl.shape[0] ? TABI_OK /* mm's message */
                                            : ref_addmm_scalars_check(h, call, target[0] * target[1], a->dl.shape[1],
                                                                      dt, &args[3], &args[4]);
  char b[64];
  return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'self' of shape %s does not broadcast to the product's shape "
                 "[%lld, %lld]", ref_op_name(h, call), ref_shape_str(b, sizeof b, self->dl.ndim, self->dl.shape),
                 (long long)target[0], (long long)target[1]);
}

/* convolution: the int lists' lengths, groups, channels, output sizes, bias */
CHECK_FN(c_conv) {
  ref_conv_geom g;
  int32_t ns;
  int64_t shape[5];
  int transposed;
  return ref_conv_check(h, call, args, &g, &ns, shape, &transposed);
}

static const struct {
  const char *op;
  dc_check_fn fn;
} checks[] = {
#define UNARY_ROW(name) {"aten::" #name, c_##name},
    REF_EW_ATEN_UNARY_LIST(UNARY_ROW)
#undef UNARY_ROW
#define REDUCE_ROW(name, opname) {opname, cr_##name},
    REF_RED_ATEN_LIST(REDUCE_ROW)
#undef REDUCE_ROW
    {"aten::add.Tensor", c2_add}, {"aten::add.Scalar", c2_add},
    {"aten::sub.Tensor", c_sub_tensor}, {"aten::sub.Scalar", c_sub_scalar},
    {"aten::mul.Tensor", c2_mul}, {"aten::mul.Scalar", c2_mul},
    {"aten::div.Tensor", c2_div}, {"aten::div.Scalar", c2_div},
    {"aten::div.Tensor_mode", c_div_mode}, {"aten::div.Scalar_mode", c_div_mode},
    {"aten::atan2", c2_atan2},
    {"aten::fmod.Tensor", c2_fmod}, {"aten::fmod.Scalar", c2_fmod},
    {"aten::remainder.Tensor", c2_remainder}, {"aten::remainder.Scalar", c2_remainder},
    {"aten::pow.Tensor_Tensor", c2_pow}, {"aten::pow.Scalar", c2_pow}, {"aten::pow.Tensor_Scalar", c2_pow_ts},
    {"aten::maximum", c2_maximum}, {"aten::minimum", c2_minimum},
    {"aten::bitwise_and.Tensor", c2_and}, {"aten::bitwise_and.Scalar", c2_and},
    {"aten::bitwise_or.Tensor", c2_or}, {"aten::bitwise_or.Scalar", c2_or},
    {"aten::bitwise_xor.Tensor", c2_xor}, {"aten::bitwise_xor.Scalar", c2_xor},
    {"aten::eq.Tensor", c2_eq}, {"aten::eq.Scalar", c2_eq}, {"aten::ne.Tensor", c2_ne}, {"aten::ne.Scalar", c2_ne},
    {"aten::lt.Tensor", c2_lt}, {"aten::lt.Scalar", c2_lt}, {"aten::le.Tensor", c2_le}, {"aten::le.Scalar", c2_le},
    {"aten::gt.Tensor", c2_gt}, {"aten::gt.Scalar", c2_gt}, {"aten::ge.Tensor", c2_ge}, {"aten::ge.Scalar", c2_ge},
    {"aten::logical_and", c2_land}, {"aten::logical_or", c2_lor}, {"aten::logical_xor", c2_lxor},
    {"aten::clamp", c_clamp}, {"aten::hardtanh", c_hardtanh}, {"aten::clamp.Tensor", c_clamp_tensor},
    {"aten::where.self", c_where},
    {"aten::_softmax", c_softmax}, {"aten::_log_softmax", c_softmax},
    {"aten::native_layer_norm", c_layer_norm}, {"aten::native_group_norm", c_group_norm},
    {"aten::_native_batch_norm_legit", c_bn}, {"aten::_native_batch_norm_legit.no_stats", c_bn_no_stats},
    {"aten::_native_batch_norm_legit_no_training", c_bn_no_training},
    {"aten::native_dropout", c_dropout},
    {"aten::avg_pool1d", c_avg1}, {"aten::avg_pool2d", c_avg2}, {"aten::avg_pool3d", c_avg3},
    {"aten::addmm", c_addmm}, {"aten::convolution", c_conv},
};

/* The wrapper of every checked kernel: its op's entry, found by handle. */
static tabi_status checked_kernel(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const dc_ctx *c = ctx;
  const dc_checked_kernel *k = call->op >= 0 && call->op < c->nchecked ? &c->checked[call->op] : NULL;
  if (!k || !k->check)
    return c->h->set_error(c->h->ctx, TABI_ERR_INTERNAL, "decomp: no kernel for op %d", (int)call->op);
  tabi_status st = k->check(c->h, call, args);
  return st != TABI_OK ? st : k->fn(ctx, call, args, outs);
}

tabi_kernel_fn dc_checked(dc_ctx *c, const char *name, tabi_op op, tabi_kernel_fn fn) {
  for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
    if (strcmp(checks[i].op, name) != 0) continue;
    if (op < 0) return fn;
    if (op >= c->nchecked) { /* op handles are small and dense: grow to this one */
      dc_checked_kernel *m = realloc(c->checked, sizeof *m * (size_t)(op + 1));
      if (!m) return NULL;
      memset(m + c->nchecked, 0, sizeof *m * (size_t)(op + 1 - c->nchecked));
      c->checked = m;
      c->nchecked = op + 1;
    }
    c->checked[op] = (dc_checked_kernel){fn, checks[i].fn};
    return checked_kernel;
  }
  return fn;
}
