/* ag_f_pointwise.c: derivative formulas of the elementwise ops (aten and prims),
 * after ATen's tools/autograd/derivatives.yaml. Broadcasting and dtype are
 * undone by the engine (sum to the input's shape, cast to its dtype). */
#include <math.h>

#include "ag.h"

#define F(name) static tabi_status name(ag_fctx *c)
#define U(op, a) ag_u(c, AG_OP_##op, (a))
#define B(op, a, b) ag_b(c, AG_OP_##op, (a), (b))
#define MUL(a, b) B(MUL, a, b)
#define DIV(a, b) B(DIV, a, b)
#define ADD(a, b) B(ADD, a, b)
#define SUB(a, b) B(SUB, a, b)
#define MULS(a, s) ag_muls(c, (a), (s))
#define ADDS(a, s) ag_adds(c, (a), (s))
#define WHERE(p, a, b) ag_where(c, (p), (a), (b))
#define Z(like) ag_zero_s(c, (like))
#define SQ(a) MUL((a), (a))
#define CONJ(a) ag_conj(c, (a))
#define TV(t) tabi_tensor_value(t)

static const double k_pi = 3.14159265358979323846;
static const double k_ln2 = 0.69314718055994530942;
static const double k_ln10 = 2.30258509299404568402;

/* grad * conj(d) for the one tensor input (arg 0): d = f'(x), conjugated for
 * a complex x (PyTorch's convention for holomorphic f; a no-op for real x). */
static tabi_status unary(ag_fctx *c, T d) {
  if (NEEDA(0)) GINA(0, MUL(G(0), CONJ(d)));
  return c->status;
}

F(f_identity) { if (NEEDA(0)) GINA(0, G(0)); return c->status; }
F(f_zero) { if (NEEDA(0)) GINA(0, ag_zeros_like(c, G(0))); return c->status; }
F(f_conj) { if (NEEDA(0)) GINA(0, CONJ(G(0))); return c->status; }
F(f_neg) { if (NEEDA(0)) GINA(0, U(NEG, G(0))); return c->status; }
/* abs: sign(x), and for complex z the gradient is g * sgn(z) = g z / |z| (0 at
 * 0; not conjugated: abs is not holomorphic), as ATen's abs_backward. */
F(f_abs) {
  T x = A(0);
  if (!NEEDA(0) || !x || !tabi_dtype_is_complex(tabi_tensor_dtype(x))) return unary(c, U(SIGN, x));
  T a = U(ABS, x);
  T az = ag_bs(c, AG_OP_EQS, a, 0.0);
  T sgn = WHERE(az, Z(x), DIV(x, WHERE(az, ag_full_like(c, a, 1.0), a)));
  GINA(0, MUL(G(0), sgn));
  return c->status;
}
F(f_acos) { return unary(c, U(NEG, U(RSQRT, U(NEG, ADDS(SQ(A(0)), -1.0))))); }
F(f_asin) { return unary(c, U(RSQRT, U(NEG, ADDS(SQ(A(0)), -1.0)))); }
F(f_acosh) { return unary(c, U(RSQRT, ADDS(SQ(A(0)), -1.0))); }
F(f_asinh) { return unary(c, U(RSQRT, ADDS(SQ(A(0)), 1.0))); }
F(f_atan) { return unary(c, U(RECIP, ADDS(SQ(A(0)), 1.0))); }
F(f_atanh) { return unary(c, U(RECIP, U(NEG, ADDS(SQ(A(0)), -1.0)))); }
F(f_cos) { return unary(c, U(NEG, U(SIN, A(0)))); }
F(f_sin) { return unary(c, U(COS, A(0))); }
F(f_cosh) { return unary(c, U(SINH, A(0))); }
F(f_sinh) { return unary(c, U(COSH, A(0))); }
F(f_tan) { return unary(c, ADDS(SQ(OUT(0)), 1.0)); }
F(f_tanh) { return unary(c, U(NEG, ADDS(SQ(OUT(0)), -1.0))); }
F(f_exp) { return unary(c, OUT(0)); }
F(f_exp2) { return unary(c, MULS(OUT(0), k_ln2)); }
F(f_expm1) { return unary(c, ADDS(OUT(0), 1.0)); }
F(f_log) { if (NEEDA(0)) GINA(0, DIV(G(0), CONJ(A(0)))); return c->status; }
F(f_log10) { if (NEEDA(0)) GINA(0, DIV(G(0), CONJ(MULS(A(0), k_ln10)))); return c->status; }
F(f_log2) { if (NEEDA(0)) GINA(0, DIV(G(0), CONJ(MULS(A(0), k_ln2)))); return c->status; }
F(f_log1p) { if (NEEDA(0)) GINA(0, DIV(G(0), CONJ(ADDS(A(0), 1.0)))); return c->status; }
F(f_reciprocal) { return unary(c, U(NEG, SQ(OUT(0)))); }
F(f_rsqrt) { return unary(c, MULS(MUL(OUT(0), SQ(OUT(0))), -0.5)); }
F(f_sqrt) { if (NEEDA(0)) GINA(0, DIV(G(0), CONJ(MULS(OUT(0), 2.0)))); return c->status; }
F(f_cbrt) { if (NEEDA(0)) GINA(0, DIV(G(0), CONJ(MULS(SQ(OUT(0)), 3.0)))); return c->status; }
F(f_sigmoid) { return unary(c, MUL(OUT(0), U(NEG, ADDS(OUT(0), -1.0)))); }
F(f_erf) { return unary(c, MULS(U(EXP, U(NEG, SQ(A(0)))), 2.0 / sqrt(k_pi))); }
F(f_erfc) { return unary(c, MULS(U(EXP, U(NEG, SQ(A(0)))), -2.0 / sqrt(k_pi))); }
F(f_erfinv) { return unary(c, MULS(U(EXP, SQ(OUT(0))), sqrt(k_pi) / 2.0)); }
F(f_lgamma) { return unary(c, U(DIGAMMA, A(0))); }
F(f_i0) { return unary(c, U(I1, A(0))); }
F(f_i0e) { return unary(c, SUB(U(I1E, A(0)), MUL(U(SIGN, A(0)), OUT(0)))); }
F(f_j0) { return unary(c, U(NEG, U(J1, A(0)))); }
/* i1, i1e, j1: the x = 0 limit of the 1/x term is 1/2. */
static T at_zero_half(ag_fctx *c, T x, T d) {
  return WHERE(ag_bs(c, AG_OP_EQS, x, 0.0), ag_adds(c, Z(x), 0.5), d);
}
F(f_i1) { T x = A(0); return unary(c, at_zero_half(c, x, SUB(U(I0, x), DIV(OUT(0), x)))); }
F(f_i1e) {
  T x = A(0);
  T d = SUB(U(I0E, x), MUL(OUT(0), ADD(U(SIGN, x), U(RECIP, x))));
  return unary(c, at_zero_half(c, x, d));
}
F(f_j1) { T x = A(0); return unary(c, at_zero_half(c, x, SUB(U(J0, x), DIV(OUT(0), x)))); }

F(f_relu) {
  if (NEEDA(0)) GINA(0, WHERE(ag_bs(c, AG_OP_GTS, OUT(0), 0.0), G(0), Z(G(0))));
  return c->status;
}

F(f_leaky_relu) {
  double slope = ag_arg_f(c, 1);
  if (NEEDA(0)) GINA(0, WHERE(ag_bs(c, AG_OP_GTS, A(0), 0.0), G(0), MULS(G(0), slope)));
  return c->status;
}

F(f_hardtanh) {
  double lo = ag_arg_f(c, 1), hi = ag_arg_f(c, 2);
  if (NEEDA(0)) {
    T in = B(LAND, ag_bs(c, AG_OP_GTS, A(0), lo), ag_bs(c, AG_OP_LTS, A(0), hi));
    GINA(0, WHERE(in, G(0), Z(G(0))));
  }
  return c->status;
}

F(f_elu) {
  double alpha = ag_arg_f(c, 1), scale = ag_arg_f(c, 2), iscale = ag_arg_f(c, 3);
  if (!NEEDA(0)) return c->status;
  T x = A(0);
  T neg = MULS(U(EXP, MULS(x, iscale)), alpha * scale * iscale);
  /* grad * scale as a Scalar product, not a tensor filled with scale: the
     forward takes coefficients float16 cannot hold (opmath), and so must this */
  GINA(0, WHERE(ag_bs(c, AG_OP_GTS, x, 0.0), MULS(G(0), scale), MUL(G(0), neg)));
  return c->status;
}

F(f_gelu) {
  if (!NEEDA(0)) return c->status;
  T x = A(0);
  const tabi_value *ap = &c->args[1];
  int tanh_mode = ap->tag == TABI_TAG_STRING && ap->u.list.len == 4 &&
                  tabi_value_str(ap)[0] == 't';
  if (!tanh_mode) {
    T cdf = MULS(ADDS(U(ERF, MULS(x, 1.0 / sqrt(2.0))), 1.0), 0.5);
    T pdf = MULS(U(EXP, MULS(SQ(x), -0.5)), 1.0 / sqrt(2.0 * k_pi));
    return unary(c, ADD(cdf, MUL(x, pdf)));
  }
  const double beta = sqrt(2.0 / k_pi), kappa = 0.044715;
  T x2 = SQ(x);
  T inner = MULS(ADD(x, MULS(MUL(x2, x), kappa)), beta);
  T t = U(TANH, inner);
  T left_d = MULS(ADDS(t, 1.0), 0.5);
  T tanh_d = U(NEG, ADDS(SQ(t), -1.0));
  T inner_d = MULS(ADDS(MULS(x2, 3.0 * kappa), 1.0), beta);
  T right_d = MUL(MUL(MULS(x, 0.5), tanh_d), inner_d);
  return unary(c, ADD(left_d, right_d));
}

/* --- binary ------------------------------------------------------------------- */

F(f_add) {
  if (NEEDA(0)) GINA(0, G(0));
  if (NEEDA(1)) GINA(1, ag_muls_conj(c, G(0), &c->args[2]));
  return c->status;
}

F(f_sub) {
  if (NEEDA(0)) GINA(0, G(0));
  if (NEEDA(1)) GINA(1, U(NEG, ag_muls_conj(c, G(0), &c->args[2])));
  return c->status;
}

F(f_prims_add) { if (NEEDA(0)) GINA(0, G(0)); if (NEEDA(1)) GINA(1, G(0)); return c->status; }
F(f_prims_sub) { if (NEEDA(0)) GINA(0, G(0)); if (NEEDA(1)) GINA(1, U(NEG, G(0))); return c->status; }

F(f_mul) {
  if (NEEDA(0)) GINA(0, MUL(G(0), CONJ(A(1))));
  if (NEEDA(1)) GINA(1, MUL(G(0), CONJ(A(0))));
  return c->status;
}

/* A complex scalar s goes back as conj(s) (and 1 / conj(s)). */
static tabi_status scalar_back(ag_fctx *c, int32_t recip) {
  if (!NEEDA(0)) return c->status;
  const tabi_value *v = &c->args[1];
  if (v->tag == TABI_TAG_COMPLEX) {
    double re = v->u.c[0], im = -v->u.c[1];
    if (recip) {
      double d = re * re + im * im;
      re = re / d;
      im = -im / d;
    }
    tabi_value a[2] = {tabi_tensor_value(G(0)), tabi_complex(re, im)};
    if (G(0)) GINA(0, ag_call_t(c, AG_OP_MULS, a, 2));
    return c->status;
  }
  GINA(0, MULS(G(0), recip ? 1.0 / ag_arg_f(c, 1) : ag_arg_f(c, 1)));
  return c->status;
}
F(f_mul_scalar) { return scalar_back(c, 0); }
F(f_div_scalar) { return scalar_back(c, 1); }

F(f_div) {
  if (NEEDA(0)) GINA(0, DIV(G(0), CONJ(A(1))));
  if (NEEDA(1)) GINA(1, U(NEG, MUL(G(0), CONJ(DIV(A(0), SQ(A(1)))))));
  return c->status;
}

/* div with a rounding mode: zero gradients (trunc/floor); None is plain div. */
F(f_div_mode) {
  if (!ag_arg_none(c, 2)) {
    if (NEEDA(0)) GINA(0, ag_zeros_like(c, G(0)));
    if (NEEDA(1)) GINA(1, ag_zeros_like(c, G(0)));
    return c->status;
  }
  return f_div(c);
}

F(f_div_scalar_mode) {
  if (!ag_arg_none(c, 2)) return f_zero(c);
  return f_div_scalar(c);
}

F(f_atan2) {
  T den = ADD(SQ(A(0)), SQ(A(1)));
  if (NEEDA(0)) GINA(0, MUL(G(0), DIV(A(1), den)));
  if (NEEDA(1)) GINA(1, U(NEG, MUL(G(0), DIV(A(0), den)))); /* self may be bool: negate after promotion */
  return c->status;
}

F(f_hypot) {
  if (NEEDA(0)) GINA(0, MUL(G(0), DIV(A(0), OUT(0))));
  if (NEEDA(1)) GINA(1, MUL(G(0), DIV(A(1), OUT(0))));
  return c->status;
}

F(f_fmod) {
  if (NEEDA(0)) GINA(0, G(0));
  if (NEEDA(1)) GINA(1, MUL(U(NEG, G(0)), U(TRUNC, DIV(A(0), A(1)))));
  return c->status;
}

F(f_remainder) {
  if (NEEDA(0)) GINA(0, G(0));
  if (NEEDA(1)) GINA(1, MUL(U(NEG, G(0)), U(FLOOR, DIV(A(0), A(1)))));
  return c->status;
}

/* maximum/minimum: the gradient goes to the larger (smaller) one; ties split. */
static tabi_status minmax(ag_fctx *c, int32_t is_max) {
  T s = A(0), o = A(1), g = G(0);
  T half = WHERE(B(EQ, s, o), MULS(g, 0.5), g);
  if (NEEDA(0)) GINA(0, WHERE(is_max ? B(LT, s, o) : B(GT, s, o), Z(g), half));
  if (NEEDA(1)) GINA(1, WHERE(is_max ? B(GT, s, o) : B(LT, s, o), Z(g), half));
  return c->status;
}
F(f_maximum) { return minmax(c, 1); }
F(f_minimum) { return minmax(c, 0); }

/* fmax/fmin: NaN loses, ties go to self. */
static tabi_status fminmax(ag_fctx *c, int32_t is_max) {
  T s = A(0), o = A(1), g = G(0);
  T pick_self = B(LOR, is_max ? B(GE, s, o) : B(LE, s, o), U(ISNAN, o));
  if (NEEDA(0)) GINA(0, WHERE(pick_self, g, Z(g)));
  if (NEEDA(1)) GINA(1, WHERE(pick_self, Z(g), g));
  return c->status;
}
F(f_fmax) { return fminmax(c, 1); }
F(f_fmin) { return fminmax(c, 0); }

/* pow(self, exponent) for self: where(exponent == 0, 0, g * e * self^(e-1)). */
F(f_pow_ts) {
  const tabi_value *ev = &c->args[1];
  if (!NEEDA(0)) return c->status;
  if (ev->tag == TABI_TAG_COMPLEX) { /* e * x^(e - 1) in complex (the forward's dtype; no range check) */
    tabi_value p[2] = {TV(A(0)), tabi_complex(ev->u.c[0] - 1.0, ev->u.c[1])};
    T xp = ag_call_t(c, AG_OP_POWTS, p, 2);
    tabi_value m[2] = {TV(xp), *ev};
    return unary(c, xp ? ag_call_t(c, AG_OP_MULS, m, 2) : NULL);
  }
  double e = ag_arg_f(c, 1);
  if (e == 0.0) return f_zero(c);
  return unary(c, MULS(ag_bs(c, AG_OP_POWTS, A(0), e - 1.0), e));
}

/* e >= 0, of the real part for a complex e (ATen's pow_backward_exponent). */
static T ge0(ag_fctx *c, T e) {
  if (e && tabi_dtype_is_complex(tabi_tensor_dtype(e))) e = U(REAL, e);
  return ag_bs(c, AG_OP_GES, e, 0.0);
}

F(f_pow_tt) {
  T s = A(0), e = A(1), g = G(0);
  if (NEEDA(0)) {
    T d = MUL(e, B(POWTT, s, ag_adds(c, e, -1.0)));
    GINA(0, WHERE(ag_bs(c, AG_OP_EQS, e, 0.0), Z(g), MUL(g, CONJ(d))));
  }
  if (NEEDA(1)) {
    T cond = B(LAND, ag_bs(c, AG_OP_EQS, s, 0.0), ge0(c, e));
    GINA(1, WHERE(cond, Z(g), MUL(g, CONJ(MUL(OUT(0), U(LOG, s))))));
  }
  return c->status;
}

F(f_pow_scalar_base) {
  double base = ag_arg_f(c, 0);
  if (!NEEDA(1)) return c->status;
  const tabi_value *bv = &c->args[0];
  T out = OUT(0);
  if (out && tabi_dtype_is_complex(tabi_tensor_dtype(out))) {
    /* d/de b^e = b^e log(b), the complex log (a negative or complex base) */
    double br = bv->tag == TABI_TAG_COMPLEX ? bv->u.c[0] : base, bi = bv->tag == TABI_TAG_COMPLEX ? bv->u.c[1] : 0.0;
    if (br == 0.0 && bi == 0.0) {
      GINA(1, WHERE(ge0(c, A(1)), Z(G(0)), ag_muls(c, G(0), NAN)));
      return c->status;
    }
    tabi_value m[2] = {tabi_tensor_value(out), tabi_complex(log(hypot(br, bi)), atan2(bi, br))};
    GINA(1, MUL(G(0), CONJ(ag_call_t(c, AG_OP_MULS, m, 2))));
    return c->status;
  }
  if (base == 0.0) {
    T cond = ge0(c, A(1));
    GINA(1, WHERE(cond, Z(G(0)), MUL(G(0), MULS(OUT(0), log(base)))));
    return c->status;
  }
  GINA(1, MUL(G(0), MULS(OUT(0), log(base))));
  return c->status;
}

F(f_where) {
  T g = G(0);
  if (NEEDA(1)) GINA(1, WHERE(A(0), g, Z(g)));
  if (NEEDA(2)) GINA(2, WHERE(A(0), Z(g), g));
  return c->status;
}

F(f_clamp) {
  if (!NEEDA(0)) return c->status;
  T x = A(0), in = NULL;
  if (!ag_arg_none(c, 1)) in = ag_bs(c, AG_OP_GES, x, ag_arg_f(c, 1));
  if (!ag_arg_none(c, 2)) {
    T le = ag_bs(c, AG_OP_LES, x, ag_arg_f(c, 2));
    in = in ? B(LAND, in, le) : le;
  }
  if (!in) return f_identity(c);
  GINA(0, WHERE(in, G(0), Z(G(0))));
  return c->status;
}

F(f_clamp_tensor) {
  T x = A(0), lo = A(1), hi = A(2), g = G(0);
  if (lo && hi) {
    if (NEEDA(0)) GINA(0, WHERE(B(LAND, B(GE, x, lo), B(LE, x, hi)), g, Z(g)));
    if (NEEDA(1)) GINA(1, WHERE(B(LAND, B(LT, x, lo), B(LT, lo, hi)), g, Z(g)));
    if (NEEDA(2)) GINA(2, WHERE(B(LOR, B(GT, x, hi), B(LT, hi, lo)), g, Z(g)));
  } else if (lo) {
    if (NEEDA(0)) GINA(0, WHERE(B(GE, x, lo), g, Z(g)));
    if (NEEDA(1)) GINA(1, WHERE(B(LT, x, lo), g, Z(g)));
  } else if (hi) {
    if (NEEDA(0)) GINA(0, WHERE(B(LE, x, hi), g, Z(g)));
    if (NEEDA(2)) GINA(2, WHERE(B(GT, x, hi), g, Z(g)));
  } else {
    return f_identity(c);
  }
  return c->status;
}

/* copy-likes: the gradient flows to the source (the engine casts it back). */
F(f_copy) { if (NEEDA(1)) GINA(1, G(0)); return c->status; }

const ag_formula ag_formulas_pointwise[] = {
    {"aten::abs", f_abs, 0, 0}, {"prims::abs", f_abs, 0, 0},
    {"aten::acos", f_acos, 0, 0}, {"prims::acos", f_acos, 0, 0},
    {"aten::acosh", f_acosh, 0, 0}, {"prims::acosh", f_acosh, 0, 0},
    {"aten::asin", f_asin, 0, 0}, {"prims::asin", f_asin, 0, 0},
    {"aten::asinh", f_asinh, 0, 0}, {"prims::asinh", f_asinh, 0, 0},
    {"aten::atan", f_atan, 0, 0}, {"prims::atan", f_atan, 0, 0},
    {"aten::atanh", f_atanh, 0, 0}, {"prims::atanh", f_atanh, 0, 0},
    {"aten::cos", f_cos, 0, 0}, {"prims::cos", f_cos, 0, 0},
    {"aten::sin", f_sin, 0, 0}, {"prims::sin", f_sin, 0, 0},
    {"aten::cosh", f_cosh, 0, 0}, {"prims::cosh", f_cosh, 0, 0},
    {"aten::sinh", f_sinh, 0, 0}, {"prims::sinh", f_sinh, 0, 0},
    {"aten::tan", f_tan, AG_F_SAVE_OUTPUTS, 0}, {"prims::tan", f_tan, AG_F_SAVE_OUTPUTS, 0},
    {"aten::tanh", f_tanh, AG_F_SAVE_OUTPUTS, 0}, {"prims::tanh", f_tanh, AG_F_SAVE_OUTPUTS, 0},
    {"aten::exp", f_exp, AG_F_SAVE_OUTPUTS, 0}, {"prims::exp", f_exp, AG_F_SAVE_OUTPUTS, 0},
    {"prims::exp2", f_exp2, AG_F_SAVE_OUTPUTS, 0},
    {"aten::expm1", f_expm1, AG_F_SAVE_OUTPUTS, 0}, {"prims::expm1", f_expm1, AG_F_SAVE_OUTPUTS, 0},
    {"aten::log", f_log, 0, 0}, {"prims::log", f_log, 0, 0},
    {"aten::log10", f_log10, 0, 0}, {"prims::log10", f_log10, 0, 0},
    {"aten::log2", f_log2, 0, 0}, {"prims::log2", f_log2, 0, 0},
    {"aten::log1p", f_log1p, 0, 0}, {"prims::log1p", f_log1p, 0, 0},
    {"aten::reciprocal", f_reciprocal, AG_F_SAVE_OUTPUTS, 0},
    {"prims::reciprocal", f_reciprocal, AG_F_SAVE_OUTPUTS, 0},
    {"aten::rsqrt", f_rsqrt, AG_F_SAVE_OUTPUTS, 0}, {"prims::rsqrt", f_rsqrt, AG_F_SAVE_OUTPUTS, 0},
    {"aten::sqrt", f_sqrt, AG_F_SAVE_OUTPUTS, 0}, {"prims::sqrt", f_sqrt, AG_F_SAVE_OUTPUTS, 0},
    {"prims::cbrt", f_cbrt, AG_F_SAVE_OUTPUTS, 0},
    {"aten::sigmoid", f_sigmoid, AG_F_SAVE_OUTPUTS, 0},
    {"aten::erf", f_erf, 0, 0}, {"prims::erf", f_erf, 0, 0},
    {"prims::erfc", f_erfc, 0, 0}, {"prims::erf_inv", f_erfinv, AG_F_SAVE_OUTPUTS, 0},
    {"prims::lgamma", f_lgamma, 0, 0},
    {"prims::bessel_i0", f_i0, 0, 0}, {"prims::bessel_i0e", f_i0e, AG_F_SAVE_OUTPUTS, 0},
    {"prims::bessel_j0", f_j0, 0, 0}, {"prims::bessel_i1", f_i1, AG_F_SAVE_OUTPUTS, 0},
    {"prims::bessel_i1e", f_i1e, AG_F_SAVE_OUTPUTS, 0}, {"prims::bessel_j1", f_j1, AG_F_SAVE_OUTPUTS, 0},
    {"aten::neg", f_neg, 0, 0}, {"prims::neg", f_neg, 0, 0},
    {"aten::ceil", f_zero, 0, 0}, {"prims::ceil", f_zero, 0, 0},
    {"aten::floor", f_zero, 0, 0}, {"prims::floor", f_zero, 0, 0},
    {"aten::round", f_zero, 0, 0}, {"prims::round", f_zero, 0, 0},
    {"aten::trunc", f_zero, 0, 0}, {"prims::trunc", f_zero, 0, 0},
    {"aten::sign", f_zero, 0, 0}, {"prims::sign", f_zero, 0, 0},
    {"aten::fill.Scalar", f_zero, 0, 0}, {"prims::fill", f_zero, 0, 0},
    {"aten::relu", f_relu, AG_F_SAVE_OUTPUTS, 0},
    {"aten::leaky_relu", f_leaky_relu, 0, 0},
    {"aten::hardtanh", f_hardtanh, 0, 0},
    {"aten::elu", f_elu, 0, 0},
    {"aten::gelu", f_gelu, 0, 0},
    {"aten::clone", f_identity, 0, 0}, {"aten::alias", f_identity, 0, 0},
    {"prims::view_of", f_identity, 0, 0}, {"prims::conj", f_conj, 0, 0},
    {"prims::conj_physical", f_conj, 0, 0},
    {"aten::_to_copy", f_identity, 0, 0}, {"prims::convert_element_type", f_identity, 0, 0},
    {"prims::device_put", f_identity, 0, 0},
    {"aten::copy", f_copy, 0, 0}, {"prims::copy_to", f_copy, 0, 0},
    {"aten::add.Tensor", f_add, 0, 0}, {"aten::add.Scalar", f_identity, 0, 0},
    {"prims::add", f_prims_add, 0, 0},
    {"aten::sub.Tensor", f_sub, 0, 0}, {"aten::sub.Scalar", f_identity, 0, 0},
    {"prims::sub", f_prims_sub, 0, 0},
    {"aten::mul.Tensor", f_mul, 0, 0}, {"prims::mul", f_mul, 0, 0},
    {"aten::mul.Scalar", f_mul_scalar, 0, 0},
    {"aten::div.Tensor", f_div, 0, 0}, {"prims::div", f_div, 0, 0},
    {"aten::div.Scalar", f_div_scalar, 0, 0},
    {"aten::div.Tensor_mode", f_div_mode, 0, 0}, {"aten::div.Scalar_mode", f_div_scalar_mode, 0, 0},
    {"aten::atan2", f_atan2, 0, 0}, {"prims::atan2", f_atan2, 0, 0},
    {"prims::hypot", f_hypot, AG_F_SAVE_OUTPUTS, 0},
    {"aten::fmod.Tensor", f_fmod, 0, 0}, {"prims::fmod", f_fmod, 0, 0},
    {"aten::fmod.Scalar", f_identity, 0, 0},
    {"aten::remainder.Tensor", f_remainder, 0, 0}, {"prims::remainder", f_remainder, 0, 0},
    {"aten::remainder.Scalar", f_identity, 0, 0},
    {"aten::maximum", f_maximum, 0, 0}, {"prims::maximum", f_maximum, 0, 0},
    {"aten::minimum", f_minimum, 0, 0}, {"prims::minimum", f_minimum, 0, 0},
    {"prims::fmax", f_fmax, 0, 0}, {"prims::fmin", f_fmin, 0, 0},
    {"aten::pow.Tensor_Scalar", f_pow_ts, 0, 0},
    {"aten::pow.Tensor_Tensor", f_pow_tt, AG_F_SAVE_OUTPUTS, 0},
    {"prims::pow", f_pow_tt, AG_F_SAVE_OUTPUTS, 0},
    {"aten::pow.Scalar", f_pow_scalar_base, AG_F_SAVE_OUTPUTS, 0},
    {"aten::where.self", f_where, 0, 0}, {"prims::where", f_where, 0, 0},
    {"aten::clamp", f_clamp, 0, 0}, {"aten::clamp.Tensor", f_clamp_tensor, 0, 0},
    {"aten::full_like", NULL, AG_F_NO_GRAD, 0}, {"prims::full_like", NULL, AG_F_NO_GRAD, 0},
    {NULL, NULL, 0, 0}};
