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
 * Taken: operands of the result dtype, contiguous with one shape, or a Scalar /
 * 0-d tensor on either side (cast to the result dtype as the reference casts
 * it). Broadcast, strided and promoted operands run the reference.
 */
#include "cpu_elementwise_cplx.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "../../reference/ref_cplx_util.h"
#include "../../reference/ref_elementwise.h"

#define CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
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

/* --- the job --------------------------------------------------------------------------- */

typedef struct cx_job {
  int32_t op, c64;
  int64_t es;              /* bytes of one complex element */
  const char *a, *b;       /* NULL: the repeated value below */
  char *o;                 /* complex, or bool for eq/ne */
  double av[2], bv[2], al[2];
} cx_job;

static void fill(double *re, double *im, const double *v, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    re[i] = v[0];
    im[i] = v[1];
  }
}

static void cx_range(void *arg, int64_t begin, int64_t end) {
  const cx_job *j = arg;
  _Alignas(64) double ar[CBLK], ai[CBLK], br[CBLK], bi[CBLK], tr[CBLK], ti[CBLK], lr[CBLK],
      li[CBLK];
  if (!j->a) fill(ar, ai, j->av, CBLK);
  if (!j->b) fill(br, bi, j->bv, CBLK);
  if (j->op == CX_ADD || j->op == CX_SUB) fill(lr, li, j->al, CBLK);
  for (int64_t off = begin; off < end; off += CBLK) {
    int64_t m = end - off < CBLK ? end - off : CBLK;
    if (j->a) cx_load(ar, ai, j->a + off * j->es, j->c64, m);
    if (j->b && j->op != CX_NEG) cx_load(br, bi, j->b + off * j->es, j->c64, m);
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
        cx_cmp((uint8_t *)j->o + off, ar, ai, br, bi, j->op == CX_NE, m);
        continue;
    }
    cx_store(j->o + off * j->es, tr, ti, j->c64, m);
  }
}

/* --- entry ------------------------------------------------------------------------------ */

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

static int dimensioned(const tabi_value *v) {
  return v->tag == TABI_TAG_TENSOR && v->u.t->dl.ndim > 0;
}

static tabi_status cx_run(const cpu_ctx *c, cx_job *j, const tabi_tensor *like, tabi_dtype od,
                          tabi_value *outs) {
  tabi_tensor *out = NULL;
  tabi_status st = cpu_empty(c, like, od, like->dl.ndim, like->dl.shape, &out);
  if (st != TABI_OK) return st;
  j->o = tabi_tensor_data(out);
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
  int da = dimensioned(a), db = dimensioned(b);
  if (!da && !db) return CPU_EW_DECLINE;
  const tabi_tensor *like = da ? a->u.t : b->u.t;
  if (tabi_tensor_numel(like) == 0) return CPU_EW_DECLINE;
  if ((da && (tabi_tensor_dtype(a->u.t) != dt || !cpu_contig(a->u.t))) ||
      (db && (tabi_tensor_dtype(b->u.t) != dt || !cpu_contig(b->u.t))) ||
      (da && db && !cpu_same_shape(a->u.t, b->u.t)))
    return CPU_EW_DECLINE;
  cx_job j;
  memset(&j, 0, sizeof j);
  j.op = op;
  j.c64 = dt == TABI_DTYPE_COMPLEX64;
  j.es = (int64_t)tabi_dtype_size(dt);
  if (!da && !rep_value(a, dt, j.av)) return CPU_EW_DECLINE;
  if (!db && !rep_value(b, dt, j.bv)) return CPU_EW_DECLINE;
  j.a = da ? tabi_tensor_data(a->u.t) : NULL;
  j.b = db ? tabi_tensor_data(b->u.t) : NULL;
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
  return cx_run(c, &j, like, op == CX_EQ || op == CX_NE ? TABI_DTYPE_BOOL : dt, outs);
}

tabi_status cpu_ew_cplx_neg(const cpu_ctx *c, tabi_value *args, tabi_value *outs) {
  if (args[0].tag != TABI_TAG_TENSOR) return CPU_EW_DECLINE;
  const tabi_tensor *t = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(t);
  if (!tabi_dtype_is_complex(dt) || t->dl.ndim == 0 || tabi_tensor_numel(t) == 0 ||
      !cpu_contig(t))
    return CPU_EW_DECLINE;
  cx_job j;
  memset(&j, 0, sizeof j);
  j.op = CX_NEG;
  j.c64 = dt == TABI_DTYPE_COMPLEX64;
  j.es = (int64_t)tabi_dtype_size(dt);
  j.a = tabi_tensor_data(t);
  return cx_run(c, &j, t, dt, outs);
}
