/* reference/ref_ew_lists.h: the aten elementwise ops whose reference
 * descriptors are exported (ref_ew_aten_<name>, ref_ew_aten2_<name>; see
 * ref_elementwise.h), as X-macro lists. A header of its own, free of the
 * reference's C99 complex types, so that C++ device code can expand them. */
#ifndef TABI_REF_EW_LISTS_H
#define TABI_REF_EW_LISTS_H

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

#endif /* TABI_REF_EW_LISTS_H */
