/* conformance/conform_compare.c: is a result close enough to the reference's?
 *
 * |got - want| <= atol + rtol * |want| elementwise (complex: the modulus of the
 * difference), with the tolerances of spec/tolerances.md per dtype. Integers and
 * bool compare exactly, as int64, so integer extremes are not blurred through a
 * double. Infinities match only themselves; NaN matches NaN unless asked not to.
 * Asked to (CONFORM_NAN_NONFINITE), a complex element with an infinite or NaN
 * part matches any other such element.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <tabi/half.h>

#include "conform_int.h"

conform_tol conform_default_tol(tabi_dtype d) {
  conform_tol t = {0.0, 0.0, 0};
  switch (d) {
    case TABI_DTYPE_FLOAT16: t.rtol = 1e-3; t.atol = 1e-5; break;
    case TABI_DTYPE_BFLOAT16: t.rtol = 1.6e-2; t.atol = 1e-5; break;
    case TABI_DTYPE_FLOAT32: case TABI_DTYPE_COMPLEX64: t.rtol = 1.3e-6; t.atol = 1e-5; break;
    case TABI_DTYPE_FLOAT64: case TABI_DTYPE_COMPLEX128: t.rtol = 1e-7; t.atol = 1e-7; break;
    default: break; /* ints, bool: exact */
  }
  return t;
}

conform_elem conform_elem_at(const uint8_t *p, tabi_dtype d, int64_t i) {
  conform_elem e = {0.0, 0.0, 0, 0};
  switch (d) {
    case TABI_DTYPE_BOOL: e.i = ((const uint8_t *)p)[i] != 0; e.is_int = 1; break;
    case TABI_DTYPE_UINT8: e.i = ((const uint8_t *)p)[i]; e.is_int = 1; break;
    case TABI_DTYPE_INT8: e.i = ((const int8_t *)p)[i]; e.is_int = 1; break;
    case TABI_DTYPE_INT16: { int16_t v; memcpy(&v, p + i * 2, 2); e.i = v; e.is_int = 1; break; }
    case TABI_DTYPE_INT32: { int32_t v; memcpy(&v, p + i * 4, 4); e.i = v; e.is_int = 1; break; }
    case TABI_DTYPE_INT64: { int64_t v; memcpy(&v, p + i * 8, 8); e.i = v; e.is_int = 1; break; }
    case TABI_DTYPE_FLOAT16: { uint16_t v; memcpy(&v, p + i * 2, 2); e.re = tabi_f16_to_f32(v); break; }
    case TABI_DTYPE_BFLOAT16: { uint16_t v; memcpy(&v, p + i * 2, 2); e.re = tabi_bf16_to_f32(v); break; }
    case TABI_DTYPE_FLOAT32: { float v; memcpy(&v, p + i * 4, 4); e.re = v; break; }
    case TABI_DTYPE_FLOAT64: memcpy(&e.re, p + i * 8, 8); break;
    case TABI_DTYPE_COMPLEX64: {
      float v[2];
      memcpy(v, p + i * 8, 8);
      e.re = v[0];
      e.im = v[1];
      break;
    }
    case TABI_DTYPE_COMPLEX128: memcpy(&e.re, p + i * 16, 8); memcpy(&e.im, p + i * 16 + 8, 8); break;
    default: break;
  }
  if (e.is_int) e.re = (double)e.i;
  return e;
}

/* Distance between two reals under the rules above: 0 when they match exactly
 * (same infinity, both NaN when allowed), INFINITY when they cannot match. */
static double real_dist(double g, double w, int32_t nan_equal, int32_t exact) {
  if (isnan(g) || isnan(w)) return (isnan(g) && isnan(w) && nan_equal) ? 0.0 : INFINITY;
  if (isinf(g) || isinf(w)) return g == w ? 0.0 : INFINITY;
  if (exact && g == 0.0 && w == 0.0 && signbit(g) != signbit(w)) return INFINITY;
  return fabs(g - w);
}

void conform_compare(const uint8_t *got, const uint8_t *want, tabi_dtype d, int64_t n,
                     conform_tol tol, int32_t nan_equal, conform_cmp *out) {
  memset(out, 0, sizeof *out);
  out->worst_abs_at = out->worst_rel_at = -1;
  int cplx = tabi_dtype_is_complex(d);
  for (int64_t i = 0; i < n; i++) {
    conform_elem g = conform_elem_at(got, d, i), w = conform_elem_at(want, d, i);
    double abs_err, mag;
    int bad;
    if (g.is_int) {
      bad = g.i != w.i;
      abs_err = bad ? fabs((double)g.i - (double)w.i) : 0.0;
      if (bad && abs_err == 0.0) abs_err = 1.0; /* differ beyond double precision */
      mag = fabs((double)w.i);
    } else if (cplx && nan_equal == CONFORM_NAN_NONFINITE && !(isfinite(w.re) && isfinite(w.im))) {
      bad = isfinite(g.re) && isfinite(g.im); /* any element with an infinite or NaN part */
      abs_err = bad ? INFINITY : 0.0;
      mag = 0.0;
    } else {
      double dr = real_dist(g.re, w.re, nan_equal, tol.exact);
      double di = cplx ? real_dist(g.im, w.im, nan_equal, tol.exact) : 0.0;
      abs_err = (isinf(dr) || isinf(di)) ? INFINITY : hypot(dr, di);
      mag = cplx ? hypot(w.re, w.im) : fabs(w.re);
      if (isnan(mag)) mag = 0.0;
      bad = !(abs_err <= tol.atol + tol.rtol * (isinf(mag) ? 0.0 : mag));
    }
    if (!bad) continue;
    double rel = mag > 0.0 && !isinf(mag) ? abs_err / mag : INFINITY;
    if (out->nbad == 0 || abs_err > out->max_abs) {
      out->max_abs = abs_err;
      out->worst_abs_at = i;
      out->got = g;
      out->want = w;
    }
    if (out->nbad == 0 || rel > out->max_rel) {
      out->max_rel = rel;
      out->worst_rel_at = i;
    }
    out->nbad++;
  }
}

void conform_index_str(int64_t flat, int32_t ndim, const int64_t *shape, char *buf, size_t n) {
  int64_t idx[32] = {0};
  if (ndim > 32) ndim = 32;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    int64_t s = shape[d] > 0 ? shape[d] : 1;
    idx[d] = flat % s;
    flat /= s;
  }
  conform_shape_str(ndim, idx, buf, n);
}

void conform_shape_str(int32_t ndim, const int64_t *shape, char *buf, size_t n) {
  size_t k = 0;
  if (n == 0) return;
  buf[0] = 0;
  k += (size_t)snprintf(buf + k, n - k, "[");
  for (int32_t d = 0; d < ndim && k < n; d++)
    k += (size_t)snprintf(buf + k, n - k, d ? ", %lld" : "%lld", (long long)shape[d]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

static void elem_str(conform_elem e, int cplx, char *buf, size_t n) {
  if (e.is_int) snprintf(buf, n, "%lld", (long long)e.i);
  else if (cplx) snprintf(buf, n, "%.9g%+.9gj", e.re, e.im);
  else snprintf(buf, n, "%.9g", e.re);
}

void conform_cmp_describe(const conform_cmp *cmp, int32_t ndim, const int64_t *shape,
                          char *buf, size_t n) {
  char at_abs[96], at_rel[96], g[64], w[64];
  conform_index_str(cmp->worst_abs_at, ndim, shape, at_abs, sizeof at_abs);
  conform_index_str(cmp->worst_rel_at, ndim, shape, at_rel, sizeof at_rel);
  int cplx = cmp->got.im != 0.0 || cmp->want.im != 0.0;
  elem_str(cmp->got, cplx, g, sizeof g);
  elem_str(cmp->want, cplx, w, sizeof w);
  snprintf(buf, n,
           "%lld element(s) differ; largest absolute error %.6g at %s (got %s, expected %s); "
           "largest relative error %.6g at %s",
           (long long)cmp->nbad, cmp->max_abs, at_abs, g, w, cmp->max_rel, at_rel);
}
