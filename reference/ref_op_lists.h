/* reference/ref_op_lists.h: the aten ops whose reference planning is
 * exported for device plugins, as X-macro lists: the elementwise descriptors
 * (ref_ew_aten_<name>, ref_ew_aten2_<name>; ref_elementwise.h) and the
 * reductions' plans (ref_red_plan_<name>; ref_reduce_util.h). A header of its
 * own, free of the reference's C99 complex types, so that C++ device code can
 * expand them. */
#ifndef TABI_REF_OP_LISTS_H
#define TABI_REF_OP_LISTS_H

/* aten::<name>, unary. */
#define REF_EW_ATEN_UNARY_LIST(X)                                                      \
  X(sin) X(cos) X(tan) X(asin) X(acos) X(atan) X(sinh) X(cosh) X(tanh) X(asinh)       \
  X(acosh) X(atanh) X(exp) X(expm1) X(log) X(log10) X(log1p) X(log2) X(sqrt) X(rsqrt) \
  X(sigmoid) X(reciprocal) X(erf) X(abs) X(neg) X(sign) X(ceil) X(floor) X(round)     \
  X(trunc) X(relu) X(bitwise_not) X(logical_not) X(isnan) X(isinf) X(elu)             \
  X(leaky_relu) X(gelu)

/* Binary; div_trunc/div_floor are div.*_mode's rounding modes, pow_ts is
 * pow.Tensor_Scalar (ATen's special exponents). */
#define REF_EW_ATEN_BINARY_LIST(X)                                                       \
  X(add) X(sub) X(mul) X(div) X(div_trunc) X(div_floor) X(atan2) X(fmod) X(remainder)   \
  X(pow) X(pow_ts) X(maximum) X(minimum) X(and) X(or) X(xor) X(eq) X(ne) X(lt) X(le)    \
  X(gt) X(ge) X(land) X(lor) X(lxor)

/* X(name, aten op): the aten reductions, and the kinds their plans give. */
#define REF_RED_ATEN_LIST(X)                                                            \
  X(sum_dim, "aten::sum.dim_IntList") X(prod, "aten::prod")                             \
  X(prod_dim, "aten::prod.dim_int") X(mean, "aten::mean") X(mean_dim, "aten::mean.dim") \
  X(amax, "aten::amax") X(amin, "aten::amin") X(any, "aten::any")                       \
  X(any_dim, "aten::any.dim") X(any_dims, "aten::any.dims")                             \
  X(var_correction, "aten::var.correction") X(var_dim, "aten::var.dim")
enum { REF_RED_SUM, REF_RED_PROD, REF_RED_MEAN, REF_RED_AMAX, REF_RED_AMIN, REF_RED_ANY,
       REF_RED_VAR };

#endif /* TABI_REF_OP_LISTS_H */
