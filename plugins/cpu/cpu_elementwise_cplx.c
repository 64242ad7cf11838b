/* plugins/cpu/cpu_elementwise_cplx.c: complex add/sub/mul/div/eq/ne/neg,
 * threaded and vectorized (see cpu_elementwise_cplx.h).
 *
 * The results are the reference's bits: it computes every complex op in
 * double (complex64 widened exactly, rounded once at the store), with C's
 * complex multiply (the naive product; where both parts come out NaN, gcc's
 * __muldc3 recovers infinities: C99 Annex G) and c10's Smith division
 * (ref_c10_div). So the loops here compute in double too, on blocks split into
 * real and imaginary arrays (so that they vectorize), in the same operation
 * order (this file is compiled with -ffp-contract=off: no fused multiply-add),
 * and redo the rare elements that take another path one by one with the
 * reference's own expressions: products whose parts are both NaN, divisions by
 * 0 + 0i. add/sub multiply the other operand by alpha (1 by default) first, as
 * the reference does (so 1 * (x + inf i) has a NaN real part there and here).
 *
 * Taken: dimensioned operands of any strides and broadcasting, of the result
 * dtype or one that widens into it exactly (complex64 or float32/float64 into
 * complex128, float32 into complex64); Scalars and 0-d tensors on either side,
 * cast to the result dtype as the reference casts them. Integer and half
 * operands promoted to complex, and 0-d results, run the reference.
 * Iteration as the elementwise engine's: a contiguous result, operands with an
 * element stride per dim (0 where they broadcast), dims merged where linear,
 * rows in blocks of CBLK.
 */
#include "cpu_elementwise_cplx.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "../../reference/ref_cplx_util.h"
#include "../../reference/ref_elementwise.h"
#include "cpu_clones.h"

#define CLONES CPU_CLONES_V4V3
#define CBLK 512

enum { CX_ADD, CX_SUB, CX_MUL, CX_DIV, CX_EQ, CX_NE, CX_NEG };

/* --- block loops ------------------------------------------------------------------- */

CLONES static void cx_load(double *re, double *im, const void *p, int32_t c64, int64_t n) {
  if (c64) {
    const float *f = p;
    for (int64_t i = 0; i < n; i++) {
      re[i] = (double)f[2 * i];
      im[i] = (double)f[2 * i + 1];
    }
  } else {
    const double *d = p;
    for (int64_t i = 0; i < n; i++) {
      re[i] = d[2 * i];
      im[i] = d[2 * i + 1];
    }
  }
}

CLONES static void cx_store(void *p, const double *re, const double *im, int32_t c64, int64_t n) {
  if (c64) {
    float *f = p;
    for (int64_t i = 0; i < n; i++) {
      f[2 * i] = (float)re[i];
      f[2 * i + 1] = (float)im[i];
    }
  } else {
    double *d = p;
    for (int64_t i = 0; i < n; i++) {
      d[2 * i] = re[i];
      d[2 * i + 1] = im[i];
    }
  }
}

/* (xr + xi i) * (yr + yi i), naive, as gcc's inline expansion */
CLONES static void cx_mul_naive(double *restrict orr, double *restrict oi, const double *xr,
                                const double *xi, const double *yr, const double *yi, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    double ac = xr[i] * yr[i], bd = xi[i] * yi[i], ad = xr[i] * yi[i], bc = xi[i] * yr[i];
    orr[i] = ac - bd;
    oi[i] = ad + bc;
  }
}

/* 1 when some element has both parts NaN / is 0 + 0i (vectorized scans, so the
 * one-by-one fix-ups below only run on blocks that need them) */
CLONES static int cx_any_nan2(const double *re, const double *im, int64_t n) {
  int z = 0;
  for (int64_t i = 0; i < n; i++) z |= isnan(re[i]) & isnan(im[i]);
  return z;
}
CLONES static int cx_any_zero(const double *re, const double *im, int64_t n) {
  int z = 0;
  for (int64_t i = 0; i < n; i++) z |= (re[i] == 0) & (im[i] == 0);
  return z;
}

/* Both parts NaN: C's multiply (the __muldc3 recovery) for that element. */
static void cx_mul_fix(double *orr, double *oi, const double *xr, const double *xi,
                       const double *yr, const double *yi, int64_t n) {
  if (!cx_any_nan2(orr, oi, n)) return;
  for (int64_t i = 0; i < n; i++)
    if (isnan(orr[i]) && isnan(oi[i])) {
      double _Complex z = CMPLX(xr[i], xi[i]) * CMPLX(yr[i], yi[i]);
      orr[i] = creal(z);
      oi[i] = cimag(z);
    }
}

/* a + t or a - t (t = alpha * b) */
CLONES static void cx_addsub(double *orr, double *oi, const double *ar, const double *ai,
                             const double *tr, const double *ti, int32_t sub, int64_t n) {
  if (sub)
    for (int64_t i = 0; i < n; i++) {
      orr[i] = ar[i] - tr[i];
      oi[i] = ai[i] - ti[i];
    }
  else
    for (int64_t i = 0; i < n; i++) {
      orr[i] = ar[i] + tr[i];
      oi[i] = ai[i] + ti[i];
    }
}

/* c10's Smith division without branches: p is the divisor part of larger
 * magnitude (|c| >= |d|: c; otherwise, NaN included, d), q the other;
 * |c| >= |d|: ((a + b*rat)*scl, (b - a*rat)*scl), else ((b + a*rat)*scl,
 * (b*rat - a)*scl) (a*rat + b rounds as b + a*rat). 0 + 0i divisors: cx_div_fix. */
CLONES static void cx_div(double *restrict orr, double *restrict oi, const double *ar,
                          const double *ai, const double *br, const double *bi, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    double a = ar[i], b = ai[i], c = br[i], d = bi[i];
    int ge = fabs(c) >= fabs(d);
    double p = ge ? c : d, q = ge ? d : c;
    double rat = q / p, scl = 1.0 / (p + q * rat);
    double u = ge ? a : b, v = ge ? b : a;
    orr[i] = (u + v * rat) * scl;
    double i1 = b - a * rat, i2 = b * rat - a;
    oi[i] = (ge ? i1 : i2) * scl;
  }
}

static void cx_div_fix(double *orr, double *oi, const double *ar, const double *ai,
                       const double *br, const double *bi, int64_t n) {
  if (!cx_any_zero(br, bi, n)) return;
  for (int64_t i = 0; i < n; i++)
    if (br[i] == 0 && bi[i] == 0) {
      ref_cplx z = ref_c10_div(CMPLX(ar[i], ai[i]), CMPLX(br[i], bi[i]));
      orr[i] = creal(z);
      oi[i] = cimag(z);
    }
}

CLONES static void cx_cmp(uint8_t *o, const double *ar, const double *ai, const double *br,
                          const double *bi, int32_t ne, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    int eq = ar[i] == br[i] && ai[i] == bi[i];
    o[i] = (uint8_t)(ne ? !eq : eq);
  }
}

CLONES static void cx_negate(double *orr, double *oi, const double *ar, const double *ai,
                             int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    orr[i] = -ar[i];
    oi[i] = -ai[i];
  }
}

/* --- fused loops: interleaved storage in and out (contiguous operands) ------------------ */

/* The ops straight from and to the interleaved elements of T (float:
 * complex64, double: complex128); mul/add/sub/div return 1 when an element may
 * need the one-by-one path (cx_fix_*). The real and imaginary parts of a
 * product are two loops: in one loop gcc 12 matches the complex product and
 * emits vfmaddsub despite -ffp-contract=off (other bits than the reference).
 * Both parts NaN in the result is a superset of both parts NaN in the product
 * (x + NaN is NaN; float keeps NaN), so the flag is taken from the stores. */
#define CX_FUSED(T, S)                                                                        \
  CLONES static int cx_nan2_##S(const T *o, int64_t n) {                                      \
    int bad = 0;                                                                              \
    for (int64_t i = 0; i < n; i++) bad |= isnan(o[2 * i]) & isnan(o[2 * i + 1]);            \
    return bad;                                                                               \
  }                                                                                           \
  CLONES static int cx_fmul_##S(T *restrict o, const T *x, const T *y, int64_t n) {           \
    for (int64_t i = 0; i < n; i++) {                                                         \
      double a = x[2 * i], b = x[2 * i + 1], c = y[2 * i], d = y[2 * i + 1];                  \
      o[2 * i] = (T)(a * c - b * d);                                                          \
    }                                                                                         \
    for (int64_t i = 0; i < n; i++) {                                                         \
      double a = x[2 * i], b = x[2 * i + 1], c = y[2 * i], d = y[2 * i + 1];                  \
      o[2 * i + 1] = (T)(a * d + b * c);                                                      \
    }                                                                                         \
    return cx_nan2_##S(o, n);                                                                 \
  }                                                                                           \
  /* x + l*y, or x + (-(l*y)) = x - l*y (IEEE subtraction adds the negation) */               \
  CLONES static int cx_faddsub_##S(T *restrict o, const T *x, const T *y, double lr,          \
                                   double li, double sg, int64_t n) {                         \
    for (int64_t i = 0; i < n; i++) {                                                         \
      double c = y[2 * i], d = y[2 * i + 1];                                                  \
      o[2 * i] = (T)(x[2 * i] + sg * (lr * c - li * d));                                      \
    }                                                                                         \
    for (int64_t i = 0; i < n; i++) {                                                         \
      double c = y[2 * i], d = y[2 * i + 1];                                                  \
      o[2 * i + 1] = (T)(x[2 * i + 1] + sg * (lr * d + li * c));                              \
    }                                                                                         \
    return cx_nan2_##S(o, n);                                                                 \
  }                                                                                           \
  CLONES static int cx_fdiv_##S(T *restrict o, const T *x, const T *y, int64_t n) {           \
    int bad = 0;                                                                              \
    for (int64_t i = 0; i < n; i++) {                                                         \
      double a = x[2 * i], b = x[2 * i + 1], c = y[2 * i], d = y[2 * i + 1];                  \
      int ge = fabs(c) >= fabs(d);                                                            \
      double p = ge ? c : d, q = ge ? d : c;                                                  \
      double rat = q / p, scl = 1.0 / (p + q * rat);                                          \
      double u = ge ? a : b, v = ge ? b : a, i1 = b - a * rat, i2 = b * rat - a;              \
      bad |= (c == 0) & (d == 0);                                                             \
      o[2 * i] = (T)((u + v * rat) * scl);                                                    \
      o[2 * i + 1] = (T)((ge ? i1 : i2) * scl);                                               \
    }                                                                                         \
    return bad;                                                                               \
  }                                                                                           \
  CLONES static void cx_fcmp_##S(uint8_t *restrict o, const T *x, const T *y, int32_t ne,     \
                                 int64_t n) {                                                 \
    for (int64_t i = 0; i < n; i++) {                                                         \
      int eq = (x[2 * i] == y[2 * i]) & (x[2 * i + 1] == y[2 * i + 1]);                       \
      o[i] = (uint8_t)(ne ? !eq : eq);                                                        \
    }                                                                                         \
  }                                                                                           \
  CLONES static void cx_fneg_##S(T *restrict o, const T *x, int64_t n) {                      \
    for (int64_t i = 0; i < 2 * n; i++) o[i] = -x[i];                                         \
  }                                                                                           \
  /* the elements the loops above flagged, as the reference computes them */                 \
  static void cx_fix_##S(int32_t op, T *o, const T *x, const T *y, const double *l,           \
                         int64_t n) {                                                         \
    for (int64_t i = 0; i < n; i++) {                                                         \
      double _Complex a = CMPLX(x[2 * i], x[2 * i + 1]), b = CMPLX(y[2 * i], y[2 * i + 1]), z; \
      if (op == CX_DIV) {                                                                     \
        if (!(creal(b) == 0 && cimag(b) == 0)) continue;                                      \
        z = ref_c10_div(a, b);                                                                \
      } else {                                                                                \
        if (!(isnan(o[2 * i]) && isnan(o[2 * i + 1]))) continue; /* cheap filter first */     \
        double _Complex m = op == CX_MUL ? a : CMPLX(l[0], l[1]);                             \
        double re = creal(m) * creal(b) - cimag(m) * cimag(b);                                \
        double im = creal(m) * cimag(b) + cimag(m) * creal(b);                                \
        if (!(isnan(re) && isnan(im))) continue;                                              \
        z = op == CX_MUL ? m * b : op == CX_ADD ? a + m * b : a - m * b;                      \
      }                                                                                       \
      o[2 * i] = (T)creal(z);                                                                 \
      o[2 * i + 1] = (T)cimag(z);                                                             \
    }                                                                                         \
  }
CX_FUSED(float, c64)
CX_FUSED(double, c128)

/* --- the job --------------------------------------------------------------------------- */

/* Operand k (0: a, 1: b) of the broadcast iteration: its data (NULL: the
 * repeated value), its storage dtype and its element strides per result dim. */
typedef struct cx_job {
  int32_t op, c64, nd;
  int64_t es;                  /* bytes of one result element (complex; eq/ne: bool) */
  int64_t shape[REF_MAX_DIMS]; /* coalesced */
  int64_t str[2][REF_MAX_DIMS];
  const char *p[2];
  tabi_dtype dt[2];
  char *o;
  double rep[2][2], al[2];
} cx_job;

static void fill(double *re, double *im, const double *v, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    re[i] = v[0];
    im[i] = v[1];
  }
}

/* m elements of dtype dt (complex or real: widened exactly) at element stride s */
static void cx_load_any(double *re, double *im, const char *p, int64_t s, tabi_dtype dt,
                        int64_t m) {
  int c64 = dt == TABI_DTYPE_COMPLEX64;
  if (s == 1 && (c64 || dt == TABI_DTYPE_COMPLEX128)) {
    cx_load(re, im, p, c64, m);
    return;
  }
  switch (dt) {
    case TABI_DTYPE_COMPLEX64:
      for (int64_t i = 0; i < m; i++) {
        re[i] = ((const float *)p)[2 * i * s];
        im[i] = ((const float *)p)[2 * i * s + 1];
      }
      break;
    case TABI_DTYPE_COMPLEX128:
      for (int64_t i = 0; i < m; i++) {
        re[i] = ((const double *)p)[2 * i * s];
        im[i] = ((const double *)p)[2 * i * s + 1];
      }
      break;
    case TABI_DTYPE_FLOAT32:
      for (int64_t i = 0; i < m; i++) {
        re[i] = ((const float *)p)[i * s];
        im[i] = 0.0;
      }
      break;
    default: /* float64 */
      for (int64_t i = 0; i < m; i++) {
        re[i] = ((const double *)p)[i * s];
        im[i] = 0.0;
      }
      break;
  }
}

/* A row piece through the fused loops when every operand is contiguous in the
 * result dtype or one repeated element (copied into a block of CBLK); 0 when not. */
static int cx_row_fused(const cx_job *j, char *o, const char *const *p, const int64_t *s,
                        int64_t len) {
  const tabi_dtype rdt = j->c64 ? TABI_DTYPE_COMPLEX64 : TABI_DTYPE_COMPLEX128;
  const int64_t ces = (int64_t)tabi_dtype_size(rdt);
  const int32_t nin = j->op == CX_NEG ? 1 : 2;
  for (int32_t k = 0; k < nin; k++)
    if (p[k] && s[k] != 0 && !(s[k] == 1 && j->dt[k] == rdt)) return 0;
  _Alignas(64) unsigned char rb[2][CBLK * 16];
  int rep[2] = {0, 0};
  for (int32_t k = 0; k < nin; k++) {
    rep[k] = !p[k] || s[k] == 0;
    if (!rep[k]) continue;
    double v[2];
    if (p[k]) cx_load_any(v, v + 1, p[k], 1, j->dt[k], 1);
    else memcpy(v, j->rep[k], sizeof v);
    int64_t m = len < CBLK ? len : CBLK;
    for (int64_t i = 0; i < m; i++) {
      if (j->c64) {
        ((float *)(void *)rb[k])[2 * i] = (float)v[0];
        ((float *)(void *)rb[k])[2 * i + 1] = (float)v[1];
      } else {
        ((double *)(void *)rb[k])[2 * i] = v[0];
        ((double *)(void *)rb[k])[2 * i + 1] = v[1];
      }
    }
  }
  for (int64_t off = 0; off < len; off += CBLK) {
    int64_t m = len - off < CBLK ? len - off : CBLK;
    const void *x = rep[0] ? (const void *)rb[0] : (const void *)(p[0] + off * ces);
    const void *y = nin < 2 ? NULL : rep[1] ? (const void *)rb[1] : (const void *)(p[1] + off * ces);
    void *out = o + off * j->es;
    int bad = 0;
#define CX_CALL(S, T)                                                                         \
  switch (j->op) {                                                                            \
    case CX_ADD: bad = cx_faddsub_##S(out, x, y, j->al[0], j->al[1], 1.0, m); break;         \
    case CX_SUB: bad = cx_faddsub_##S(out, x, y, j->al[0], j->al[1], -1.0, m); break;        \
    case CX_MUL: bad = cx_fmul_##S(out, x, y, m); break;                                      \
    case CX_DIV: bad = cx_fdiv_##S(out, x, y, m); break;                                      \
    case CX_NEG: cx_fneg_##S(out, x, m); break;                                               \
    default: cx_fcmp_##S(out, x, y, j->op == CX_NE, m); break;                                \
  }                                                                                           \
  if (bad) cx_fix_##S(j->op, out, x, y, j->al, m);
    if (j->c64) {
      CX_CALL(c64, float)
    } else {
      CX_CALL(c128, double)
    }
#undef CX_CALL
  }
  return 1;
}

/* One row piece of len elements: operand k at p[k] with inner stride s[k]. */
static void cx_row(const cx_job *j, char *o, const char *const *p, const int64_t *s,
                   int64_t len) {
  _Alignas(64) double ar[CBLK], ai[CBLK], br[CBLK], bi[CBLK], tr[CBLK], ti[CBLK], lr[CBLK],
      li[CBLK];
  double *re[2] = {ar, br}, *im[2] = {ai, bi};
  int32_t nin = j->op == CX_NEG ? 1 : 2;
  if (cx_row_fused(j, o, p, s, len)) return;
  for (int32_t k = 0; k < nin; k++)
    if (!p[k] || s[k] == 0) {
      double v[2];
      if (p[k]) cx_load_any(v, v + 1, p[k], 1, j->dt[k], 1);
      else memcpy(v, j->rep[k], sizeof v);
      fill(re[k], im[k], v, len < CBLK ? len : CBLK);
    }
  if (j->op == CX_ADD || j->op == CX_SUB) fill(lr, li, j->al, len < CBLK ? len : CBLK);
  for (int64_t off = 0; off < len; off += CBLK) {
    int64_t m = len - off < CBLK ? len - off : CBLK;
    for (int32_t k = 0; k < nin; k++)
      if (p[k] && s[k] != 0)
        cx_load_any(re[k], im[k], p[k] + off * s[k] * (int64_t)tabi_dtype_size(j->dt[k]), s[k],
                    j->dt[k], m);
    switch (j->op) {
      case CX_ADD:
      case CX_SUB:
        cx_mul_naive(tr, ti, lr, li, br, bi, m);
        cx_mul_fix(tr, ti, lr, li, br, bi, m);
        cx_addsub(tr, ti, ar, ai, tr, ti, j->op == CX_SUB, m);
        break;
      case CX_MUL:
        cx_mul_naive(tr, ti, ar, ai, br, bi, m);
        cx_mul_fix(tr, ti, ar, ai, br, bi, m);
        break;
      case CX_DIV:
        cx_div(tr, ti, ar, ai, br, bi, m);
        cx_div_fix(tr, ti, ar, ai, br, bi, m);
        break;
      case CX_NEG: cx_negate(tr, ti, ar, ai, m); break;
      default:
        cx_cmp((uint8_t *)o + off, ar, ai, br, bi, j->op == CX_NE, m);
        continue;
    }
    cx_store(o + off * j->es, tr, ti, j->c64, m);
  }
}

/* [begin, end) of the flat result, row by row of the innermost dim */
static void cx_range(void *arg, int64_t begin, int64_t end) {
  const cx_job *j = arg;
  const int32_t nd = j->nd;
  int64_t idx[REF_MAX_DIMS], rem = begin;
  for (int32_t d = nd - 1; d >= 0; d--) {
    idx[d] = rem % j->shape[d];
    rem /= j->shape[d];
  }
  for (int64_t pos = begin; pos < end;) {
    const char *p[2];
    int64_t s[2];
    for (int32_t k = 0; k < 2; k++) {
      int64_t off = 0;
      for (int32_t d = 0; d < nd; d++) off += idx[d] * j->str[k][d];
      p[k] = j->p[k] ? j->p[k] + off * (int64_t)tabi_dtype_size(j->dt[k]) : NULL;
      s[k] = j->str[k][nd - 1];
    }
    int64_t len = j->shape[nd - 1] - idx[nd - 1];
    if (len > end - pos) len = end - pos;
    cx_row(j, j->o + pos * j->es, p, s, len);
    pos += len;
    idx[nd - 1] += len;
    for (int32_t d = nd - 1; d > 0 && idx[d] >= j->shape[d]; d--) {
      idx[d] = 0;
      idx[d - 1]++;
    }
  }
}

/* --- setup ------------------------------------------------------------------------------- */

static void put_c(double *v, double _Complex z) {
  v[0] = creal(z);
  v[1] = cimag(z);
}

/* A Scalar or 0-d tensor cast to dt as the reference casts it; 0 when neither. */
static int rep_value(const tabi_value *v, tabi_dtype dt, double *out) {
  if (v->tag == TABI_TAG_TENSOR) {
    if (v->u.t->dl.ndim != 0) return 0;
    put_c(out, ref_ew_load(v->u.t, 0, dt).c);
    return 1;
  }
  if (v->tag != TABI_TAG_BOOL && v->tag != TABI_TAG_INT && v->tag != TABI_TAG_FLOAT &&
      v->tag != TABI_TAG_COMPLEX)
    return 0;
  tabi_dtype sdt;
  ref_ew_val s = ref_ew_scalar(v, &sdt);
  put_c(out, ref_ew_cast(s, sdt, dt).c);
  return 1;
}

/* A dimensioned operand's dtype the loads widen exactly into result dtype dt:
 * dt itself, complex64 into complex128, float32 into either, float64 into
 * complex128 (promotion never narrows a dimensioned operand). */
static int loadable(tabi_dtype src, tabi_dtype dt) {
  if (src == dt || src == TABI_DTYPE_FLOAT32) return 1;
  return dt == TABI_DTYPE_COMPLEX128 &&
         (src == TABI_DTYPE_COMPLEX64 || src == TABI_DTYPE_FLOAT64);
}

/* Broadcasts the operands in vs[0..nin) (NULL or not dimensioned: repeated
 * values already in j->rep), fills the job's strides and the result shape
 * (oshape, ond), coalesces; 0 when it cannot (the reference reports). */
static int cx_setup(cx_job *j, const tabi_value *const *vs, int32_t nin, tabi_dtype dt,
                    int64_t *oshape, int32_t *ond) {
  int32_t nd = 0;
  for (int32_t k = 0; k < nin; k++) {
    const tabi_value *v = vs[k];
    if (v->tag != TABI_TAG_TENSOR || v->u.t->dl.ndim == 0) continue;
    const tabi_tensor *t = v->u.t;
    if (t->dl.ndim > REF_MAX_DIMS || !loadable(tabi_tensor_dtype(t), dt)) return 0;
    if (t->dl.ndim > nd) nd = t->dl.ndim;
  }
  for (int32_t d = 0; d < nd; d++) oshape[d] = 1;
  for (int32_t k = 0; k < nin; k++) {
    const tabi_value *v = vs[k];
    if (v->tag != TABI_TAG_TENSOR || v->u.t->dl.ndim == 0) continue;
    const tabi_tensor *t = v->u.t;
    for (int32_t td = 0; td < t->dl.ndim; td++) {
      int32_t d = td + nd - t->dl.ndim;
      int64_t sz = t->dl.shape[td];
      if (sz == 1) continue;
      if (oshape[d] != 1 && oshape[d] != sz) return 0;
      oshape[d] = sz;
    }
  }
  *ond = nd;
  int64_t numel = 1;
  for (int32_t d = 0; d < nd; d++) numel *= oshape[d];
  if (numel == 0) return 0;
  /* strides: result contiguous; operands 0 where they broadcast */
  int64_t ostr[REF_MAX_DIMS], acc = 1;
  for (int32_t d = nd - 1; d >= 0; d--) {
    ostr[d] = acc;
    acc *= oshape[d];
  }
  for (int32_t k = 0; k < 2; k++) {
    for (int32_t d = 0; d < nd; d++) j->str[k][d] = 0;
    if (k >= nin) continue;
    const tabi_value *v = vs[k];
    if (v->tag != TABI_TAG_TENSOR || v->u.t->dl.ndim == 0) continue;
    const tabi_tensor *t = v->u.t;
    j->p[k] = tabi_tensor_data(t);
    j->dt[k] = tabi_tensor_dtype(t);
    for (int32_t td = 0; td < t->dl.ndim; td++) {
      int32_t d = td + nd - t->dl.ndim;
      j->str[k][d] = t->dl.shape[td] == 1 ? 0 : t->dl.strides[td];
    }
  }
  /* drop size-1 dims, merge neighbours linear for the result and both operands */
  int32_t cd = 0;
  for (int32_t d = 0; d < nd; d++) {
    if (oshape[d] == 1) continue;
    if (cd > 0) {
      int ok = ostr[cd - 1] == ostr[d] * oshape[d];
      for (int32_t k = 0; k < 2 && ok; k++) ok = j->str[k][cd - 1] == j->str[k][d] * oshape[d];
      if (ok) {
        j->shape[cd - 1] *= oshape[d];
        ostr[cd - 1] = ostr[d];
        for (int32_t k = 0; k < 2; k++) j->str[k][cd - 1] = j->str[k][d];
        continue;
      }
    }
    j->shape[cd] = oshape[d];
    ostr[cd] = ostr[d];
    for (int32_t k = 0; k < 2; k++) j->str[k][cd] = j->str[k][d];
    cd++;
  }
  if (cd == 0) {
    cd = 1;
    j->shape[0] = 1;
    j->str[0][0] = j->str[1][0] = 0;
  }
  j->nd = cd;
  return 1;
}

static tabi_status cx_run(const cpu_ctx *c, cx_job *j, const tabi_tensor *like, tabi_dtype od,
                          int32_t ond, const int64_t *oshape, tabi_value *outs) {
  tabi_tensor *out = NULL;
  tabi_status st = cpu_empty(c, like, od, ond, oshape, &out);
  if (st != TABI_OK) return st;
  j->o = tabi_tensor_data(out);
  j->es = (int64_t)tabi_dtype_size(od);
  int64_t grain = j->op == CX_DIV ? 4096 : 16384;
  cpu_parallel_for(c->pool, tabi_tensor_numel(out), grain, cx_range, j);
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

tabi_status cpu_ew_cplx_binary(const cpu_ctx *c, const tabi_call *call, tabi_value *args,
                               tabi_value *outs, int32_t fop, int32_t alpha, int32_t prim) {
  int32_t op = fop == CPU_EWB_ADD ? CX_ADD : fop == CPU_EWB_SUB ? CX_SUB
             : fop == CPU_EWB_MUL ? CX_MUL : fop == CPU_EWB_DIV ? CX_DIV
             : fop == CPU_EWB_EQ ? CX_EQ : fop == CPU_EWB_NE ? CX_NE : -1;
  if (op < 0) return CPU_EW_DECLINE;
  const tabi_value *a = &args[0], *b = &args[1];
  tabi_dtype dt;
  if (prim) {
    if (a->tag != TABI_TAG_TENSOR || b->tag != TABI_TAG_TENSOR) return CPU_EW_DECLINE;
    dt = tabi_tensor_dtype(a->u.t);
    if (tabi_tensor_dtype(b->u.t) != dt || !cpu_same_shape(a->u.t, b->u.t)) return CPU_EW_DECLINE;
  } else {
    if (a->tag != TABI_TAG_TENSOR && b->tag != TABI_TAG_TENSOR) return CPU_EW_DECLINE;
    dt = ref_ew_result_type(a, b, NULL);
  }
  if (!tabi_dtype_is_complex(dt)) return CPU_EW_DECLINE;
  const tabi_value *vs[2] = {a, b};
  if (!(a->tag == TABI_TAG_TENSOR && a->u.t->dl.ndim > 0) &&
      !(b->tag == TABI_TAG_TENSOR && b->u.t->dl.ndim > 0))
    return CPU_EW_DECLINE; /* one element: the reference */
  cx_job j;
  memset(&j, 0, sizeof j);
  j.op = op;
  j.c64 = dt == TABI_DTYPE_COMPLEX64;
  for (int32_t k = 0; k < 2; k++)
    if (!(vs[k]->tag == TABI_TAG_TENSOR && vs[k]->u.t->dl.ndim > 0) &&
        !rep_value(vs[k], dt, j.rep[k]))
      return CPU_EW_DECLINE;
  int64_t oshape[REF_MAX_DIMS];
  int32_t ond = 0;
  if (!cx_setup(&j, vs, 2, dt, oshape, &ond)) return CPU_EW_DECLINE;
  j.al[0] = 1.0;
  if (alpha && (op == CX_ADD || op == CX_SUB)) {
    /* the reference's alpha checks: a bool alpha is its error (by declining) */
    const tabi_value *al = &args[2];
    if (al->tag != TABI_TAG_INT && al->tag != TABI_TAG_FLOAT && al->tag != TABI_TAG_COMPLEX)
      return CPU_EW_DECLINE;
    ref_ew_val v;
    tabi_status st = ref_ew_scalar_to(c->host, call, "alpha", al, dt, &v);
    if (st != TABI_OK) return st;
    put_c(j.al, v.c);
  }
  const tabi_tensor *like = a->tag == TABI_TAG_TENSOR && a->u.t->dl.ndim > 0 ? a->u.t : b->u.t;
  return cx_run(c, &j, like, op == CX_EQ || op == CX_NE ? TABI_DTYPE_BOOL : dt, ond, oshape, outs);
}

tabi_status cpu_ew_cplx_neg(const cpu_ctx *c, tabi_value *args, tabi_value *outs) {
  if (args[0].tag != TABI_TAG_TENSOR) return CPU_EW_DECLINE;
  const tabi_tensor *t = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(t);
  if (!tabi_dtype_is_complex(dt) || t->dl.ndim == 0) return CPU_EW_DECLINE;
  cx_job j;
  memset(&j, 0, sizeof j);
  j.op = CX_NEG;
  j.c64 = dt == TABI_DTYPE_COMPLEX64;
  const tabi_value *vs[1] = {&args[0]};
  int64_t oshape[REF_MAX_DIMS];
  int32_t ond = 0;
  if (!cx_setup(&j, vs, 1, dt, oshape, &ond)) return CPU_EW_DECLINE;
  return cx_run(c, &j, t, dt, ond, oshape, outs);
}
