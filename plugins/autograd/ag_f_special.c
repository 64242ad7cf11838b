/* ag_f_special.c: derivative formulas of the special functions of the prims
 * (digamma, zeta, igamma, igammac, nextafter, spherical_bessel_j0), after
 * ATen's derivatives.yaml. Where ATen has no derivative (zeta and igamma(c) in
 * their first argument, nextafter) the formula refuses with
 * TABI_ERR_UNIMPLEMENTED naming the op and the argument, as ATen's
 * not_implemented() does.
 *
 * The op set has no polygamma: trigamma is Hurwitz zeta(2, x) with the
 * reflection trigamma(x) = pi^2 / sin^2(pi x) - trigamma(1 - x) below 1/2 (as
 * ATen's trigamma does), so it differentiates again through zeta's formula.
 * Branches of a where() get arguments that are valid in both branches, so a
 * double backward never multiplies a zero by an infinity.
 */
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

static const double k_pi = 3.14159265358979323846;

static tabi_status not_implemented(ag_fctx *c, const char *op, const char *arg) {
  return ag_fail(c, TABI_ERR_UNIMPLEMENTED,
                 "autograd: %s: the derivative for '%s' is not implemented (as in ATen)", op, arg);
}

static T zeta(ag_fctx *c, T s, T q) { return B(ZETA, s, q); }

/* trigamma(x) = d digamma / dx. */
static T trigamma(ag_fctx *c, T x) {
  T lo = ag_bs(c, AG_OP_LTS, x, 0.5);
  T q = WHERE(lo, ADDS(U(NEG, x), 1.0), x);
  T t = zeta(c, ag_full_like(c, x, 2.0), q);
  T xs = WHERE(lo, x, ag_full_like(c, x, 0.25)); /* sin(pi xs) != 0 off the branch */
  T sn = U(SIN, MULS(xs, k_pi));
  T refl = SUB(DIV(ag_full_like(c, x, k_pi * k_pi), MUL(sn, sn)), t);
  return WHERE(lo, refl, t);
}

F(f_digamma) {
  if (!NEEDA(0)) return c->status;
  T x = A(0);
  tabi_dtype dt = x ? tabi_tensor_dtype(x) : TABI_DTYPE_FLOAT32;
  if (dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16) /* zeta has float32/64 only */
    GINA(0, MUL(G(0), ag_to_dtype(c, trigamma(c, ag_to_dtype(c, x, TABI_DTYPE_FLOAT32)), dt)));
  else
    GINA(0, MUL(G(0), trigamma(c, x)));
  return c->status;
}

/* zeta(x, q): d/dq = -x zeta(x + 1, q); d/dx: not implemented in ATen. */
F(f_zeta) {
  if (NEEDA(0)) return not_implemented(c, "prims::zeta", "self");
  if (NEEDA(1)) {
    T x = A(0), q = A(1);
    GINA(1, MUL(G(0), U(NEG, MUL(x, zeta(c, ADDS(x, 1.0), q)))));
  }
  return c->status;
}

/* igamma(a, x): d/dx = exp((a - 1) log x - x - lgamma(a)); igammac: minus it. */
static tabi_status igamma_like(ag_fctx *c, const char *op, double sign) {
  if (NEEDA(0)) return not_implemented(c, op, "self");
  if (NEEDA(1)) {
    T a = A(0), x = A(1);
    T e = SUB(SUB(MUL(ADDS(a, -1.0), U(LOG, x)), x), U(LGAMMA, a));
    T d = U(EXP, e);
    GINA(1, MUL(G(0), sign < 0 ? U(NEG, d) : d));
  }
  return c->status;
}
F(f_igamma) { return igamma_like(c, "prims::igamma", 1.0); }
F(f_igammac) { return igamma_like(c, "prims::igammac", -1.0); }

F(f_nextafter) {
  if (NEEDA(0)) return not_implemented(c, "prims::nextafter", "self");
  if (NEEDA(1)) return not_implemented(c, "prims::nextafter", "other");
  return c->status;
}

/* spherical_bessel_j0(x) = sin x / x: derivative (x cos x - sin x) / x^2, by its
 * Taylor series near 0 (limit 0 at 0; the closed form cancels there). */
F(f_spherical_bessel_j0) {
  if (!NEEDA(0)) return c->status;
  T x = A(0);
  T small = ag_bs(c, AG_OP_LTS, U(ABS, x), 0.5);
  T x2 = MUL(x, x);
  T poly = ADDS(MULS(x2, -1.0 / 3991680.0), 1.0 / 45360.0);
  poly = ADDS(MUL(x2, poly), -1.0 / 840.0);
  poly = ADDS(MUL(x2, poly), 1.0 / 30.0);
  poly = ADDS(MUL(x2, poly), -1.0 / 3.0);
  T series = MUL(x, poly);
  T xs = WHERE(small, ag_full_like(c, x, 1.0), x);
  T closed = DIV(SUB(MUL(xs, U(COS, xs)), U(SIN, xs)), MUL(xs, xs));
  GINA(0, MUL(G(0), WHERE(small, series, closed)));
  return c->status;
}

const ag_formula ag_formulas_special[] = {
    {"prims::digamma", f_digamma, 0, 0},
    {"prims::zeta", f_zeta, 0, 0},
    {"prims::igamma", f_igamma, 0, 0},
    {"prims::igammac", f_igammac, 0, 0},
    {"prims::nextafter", f_nextafter, 0, 0},
    {"prims::spherical_bessel_j0", f_spherical_bessel_j0, 0, 0},
    {NULL, NULL, 0, 0}};
