/* tests/ref_elementwise/ew_helpers.h: a runtime with the reference plugin, tensors
 * from literal values (optionally as non-contiguous views), op calls by name and
 * checks of results against expected values (exact for integers and bool; the
 * tolerances of spec/tolerances.md for floating types; NaN matches NaN and the
 * sign of a zero must match). Single-threaded test helpers.
 */
#ifndef TABI_TESTS_EW_HELPERS_H
#define TABI_TESTS_EW_HELPERS_H

#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <tabi/runtime.h>
#include <tabi/tabi.h>

#include "check.h"

static tabi_runtime *ew_rt;

static inline void ew_setup(void) {
  tabi_runtime_options o = {sizeof o, TABI_RUNTIME_NO_CACHE};
  CHECK_OK(tabi_runtime_create(&o, &ew_rt));
  CHECK_OK(tabi_runtime_load_plugin(ew_rt, TABI_REF_PLUGIN, NULL));
}

static inline void ew_teardown(void) { tabi_runtime_destroy(ew_rt); }

/* Writes element k of a contiguous buffer of dtype dt. */
static inline void ew_put(void *base, tabi_dtype dt, int64_t k, int64_t iv, double fv, double im) {
  char *e = (char *)base + k * tabi_dtype_size(dt);
  switch (dt) {
    case TABI_DTYPE_BOOL: *(uint8_t *)e = iv != 0; break;
    case TABI_DTYPE_UINT8: *(uint8_t *)e = (uint8_t)iv; break;
    case TABI_DTYPE_INT8: *(int8_t *)e = (int8_t)iv; break;
    case TABI_DTYPE_INT16: *(int16_t *)e = (int16_t)iv; break;
    case TABI_DTYPE_INT32: *(int32_t *)e = (int32_t)iv; break;
    case TABI_DTYPE_INT64: *(int64_t *)e = iv; break;
    case TABI_DTYPE_FLOAT16: *(uint16_t *)e = tabi_f32_to_f16((float)fv); break;
    case TABI_DTYPE_BFLOAT16: *(uint16_t *)e = tabi_f32_to_bf16((float)fv); break;
    case TABI_DTYPE_FLOAT32: *(float *)e = (float)fv; break;
    case TABI_DTYPE_FLOAT64: *(double *)e = fv; break;
    case TABI_DTYPE_COMPLEX64: ((float *)e)[0] = (float)fv; ((float *)e)[1] = (float)im; break;
    case TABI_DTYPE_COMPLEX128: ((double *)e)[0] = fv; ((double *)e)[1] = im; break;
    default: break;
  }
}

/* Layouts for inputs: the values are the same, the strides differ. */
#define EW_CONTIG 0
#define EW_STEP 1      /* every other element of a buffer twice as long (stride 2) */
#define EW_TRANSPOSE 2 /* 2-d: the transpose of a contiguous [cols, rows] tensor */
#define EW_OFFSET 3    /* starts 3 elements into its storage */

/* A tensor of dtype dt and shape, element k (row-major) = iv[k] (integers and
 * bool), fv[k] (floating) or fv[k] + i*im[k] (complex; im may be NULL). */
static inline tabi_tensor *ew_make(tabi_dtype dt, int32_t ndim, const int64_t *shape,
                                   const int64_t *iv, const double *fv, const double *im,
                                   int layout) {
  int64_t n = 1;
  for (int32_t i = 0; i < ndim; i++) n *= shape[i];
  int64_t cap = layout == EW_STEP ? 2 * n + 1 : n + 3;
  tabi_tensor *buf = NULL, *t = NULL;
  int64_t bshape[1] = {cap};
  CHECK_OK(tabi_tensor_empty(ew_rt, (DLDevice){kDLCPU, 0}, dt, 1, bshape, &buf));
  if (!buf) return NULL;
  memset(tabi_tensor_data(buf), 0xAB, (size_t)(cap * tabi_dtype_size(dt)));
  int64_t strides[16], off = layout == EW_OFFSET ? 3 : 0, st = layout == EW_STEP ? 2 : 1;
  for (int32_t i = ndim - 1; i >= 0; i--) {
    strides[i] = st;
    st *= shape[i];
  }
  if (layout == EW_TRANSPOSE && ndim == 2) {
    strides[0] = 1;
    strides[1] = shape[0];
  }
  for (int64_t k = 0; k < n; k++) {
    int64_t lin = k, e = off;
    for (int32_t d = ndim - 1; d >= 0; d--) {
      e += (lin % shape[d]) * strides[d];
      lin /= shape[d];
    }
    ew_put(tabi_tensor_data(buf), dt, e, iv ? iv[k] : 0, fv ? fv[k] : 0.0, im ? im[k] : 0.0);
  }
  CHECK_OK(tabi_tensor_view(ew_rt, buf, ndim, shape, strides,
                            (int64_t)buf->dl.byte_offset + off * tabi_dtype_size(dt), &t));
  tabi_tensor_release(buf);
  return t;
}

/* Element k (row-major) of t as int64 / double / imaginary part. */
static inline const char *ew_elem(const tabi_tensor *t, int64_t k) {
  int64_t off = 0;
  for (int32_t d = t->dl.ndim - 1; d >= 0; d--) {
    off += (k % t->dl.shape[d]) * t->dl.strides[d];
    k /= t->dl.shape[d];
  }
  return (const char *)tabi_tensor_data(t) + off * (t->dl.dtype.bits / 8);
}
static inline int64_t ew_geti(const tabi_tensor *t, int64_t k) {
  const char *e = ew_elem(t, k);
  switch (tabi_tensor_dtype(t)) {
    case TABI_DTYPE_BOOL: case TABI_DTYPE_UINT8: return *(const uint8_t *)e;
    case TABI_DTYPE_INT8: return *(const int8_t *)e;
    case TABI_DTYPE_INT16: return *(const int16_t *)e;
    case TABI_DTYPE_INT32: return *(const int32_t *)e;
    default: return *(const int64_t *)e;
  }
}
static inline double ew_getf(const tabi_tensor *t, int64_t k) {
  const char *e = ew_elem(t, k);
  switch (tabi_tensor_dtype(t)) {
    case TABI_DTYPE_FLOAT16: return tabi_f16_to_f32(*(const uint16_t *)e);
    case TABI_DTYPE_BFLOAT16: return tabi_bf16_to_f32(*(const uint16_t *)e);
    case TABI_DTYPE_FLOAT32: case TABI_DTYPE_COMPLEX64: return *(const float *)e;
    default: return *(const double *)e;
  }
}
static inline double ew_getim(const tabi_tensor *t, int64_t k) {
  const char *e = ew_elem(t, k);
  if (tabi_tensor_dtype(t) == TABI_DTYPE_COMPLEX64) return ((const float *)e)[1];
  return ((const double *)e)[1];
}

static inline void ew_tol(tabi_dtype dt, double *rtol, double *atol) {
  switch (dt) {
    case TABI_DTYPE_FLOAT16: *rtol = 1e-3; *atol = 1e-5; break;
    case TABI_DTYPE_BFLOAT16: *rtol = 1.6e-2; *atol = 1e-5; break;
    case TABI_DTYPE_FLOAT32: case TABI_DTYPE_COMPLEX64: *rtol = 1.3e-6; *atol = 1e-5; break;
    default: *rtol = 1e-7; *atol = 1e-7; break;
  }
}

static inline int ew_close(double got, double want, tabi_dtype dt) {
  double rtol, atol;
  if (isnan(want)) return isnan(got);
  if (isinf(want)) return got == want;
  if (want == 0 && got == 0) return signbit(got) == signbit(want);
  ew_tol(dt, &rtol, &atol);
  return fabs(got - want) <= atol + rtol * fabs(want);
}

static inline tabi_status ew_call(const char *op, tabi_value *args, int32_t n, tabi_tensor **out) {
  tabi_op h;
  tabi_value o = tabi_none();
  *out = NULL;
  tabi_status st = tabi_op_find(ew_rt, op, &h);
  if (st != TABI_OK) return st;
  st = tabi_call(ew_rt, h, args, n, &o, 1);
  if (st == TABI_OK) *out = o.u.t;
  return st;
}

/* Ops whose results are exact in any float dtype (a rounding-free operation
 * on the inputs' values: torch's and ours must agree to the bit): compared
 * exactly, so that, say, a nextafter that returns its input, one ulp off,
 * does not pass inside bfloat16's tolerance. */
static inline int ew_exact_op(const char *op) {
  static const char *const exact[] = {"::nextafter", "::copysign", "::floor", "::ceil", "::trunc",
                                      "::round",     "::abs",      "::neg",   "::maximum", "::minimum",
                                      "::fmax",      "::fmin",     "::sign",  "::signbit"};
  for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
    const char *p = strstr(op, exact[i]);
    size_t n = strlen(exact[i]);
    if (p && (p[n] == 0 || p[n] == '.')) return 1;
  }
  return 0;
}

static inline int ew_same(double got, double want) {
  if (isnan(want)) return isnan(got);
  return got == want && signbit(got) == signbit(want);
}

/* Calls op and checks the result's dtype, shape and values. want_i is used for
 * integer and bool results, want_f (and want_im for complex) otherwise: within
 * the dtype's tolerance, or exactly for ew_exact_op's ops. */
static inline void ew_expect(int line, const char *op, tabi_value *args, int32_t n, tabi_dtype dt,
                             int32_t ndim, const int64_t *shape, const int64_t *want_i,
                             const double *want_f, const double *want_im) {
  int exact = ew_exact_op(op);
  tabi_tensor *out = NULL;
  tabi_status st = ew_call(op, args, n, &out);
  CHECK_MSG(st == TABI_OK, "line %d: %s: status %d: %s", line, op, (int)st, tabi_last_error());
  if (st != TABI_OK || !out) return;
  CHECK_MSG(tabi_tensor_dtype(out) == dt, "line %d: %s: dtype %s, wanted %s", line, op,
            tabi_dtype_name(tabi_tensor_dtype(out)), tabi_dtype_name(dt));
  int same = out->dl.ndim == ndim;
  for (int32_t i = 0; same && i < ndim; i++) same = out->dl.shape[i] == shape[i];
  CHECK_MSG(same, "line %d: %s: wrong shape (ndim %d)", line, op, (int)out->dl.ndim);
  if (same && tabi_tensor_dtype(out) == dt) {
    int64_t numel = tabi_tensor_numel(out);
    for (int64_t k = 0; k < numel; k++) {
      if (tabi_dtype_is_integral(dt, 1)) {
        int64_t g = ew_geti(out, k);
        CHECK_MSG(g == want_i[k], "line %d: %s: element %lld is %lld, wanted %lld", line, op,
                  (long long)k, (long long)g, (long long)want_i[k]);
      } else {
        double g = ew_getf(out, k);
        CHECK_MSG(exact ? ew_same(g, want_f[k]) : ew_close(g, want_f[k], dt),
                  "line %d: %s: element %lld is %.17g, wanted %.17g%s", line, op, (long long)k, g, want_f[k],
                  exact ? " (exactly)" : "");
        if (tabi_dtype_is_complex(dt)) {
          double gi = ew_getim(out, k);
          CHECK_MSG(exact ? ew_same(gi, want_im[k]) : ew_close(gi, want_im[k], dt),
                    "line %d: %s: element %lld imag is %.17g, wanted %.17g", line, op,
                    (long long)k, gi, want_im[k]);
        }
      }
    }
  }
  tabi_tensor_release(out);
}

/* Calls op and expects the status and a message containing the op name and `needle`. */
static inline void ew_expect_err(int line, const char *op, tabi_value *args, int32_t n,
                                 tabi_status want, const char *needle) {
  tabi_tensor *out = NULL;
  tabi_status st = ew_call(op, args, n, &out);
  CHECK_MSG(st == want, "line %d: %s: status %d, wanted %d (%s)", line, op, (int)st, (int)want,
            tabi_last_error());
  CHECK_MSG(strstr(tabi_last_error(), needle) != NULL, "line %d: message \"%s\" lacks \"%s\"",
            line, tabi_last_error(), needle);
  CHECK_MSG(strstr(tabi_last_error(), op) != NULL, "line %d: message \"%s\" does not name %s",
            line, tabi_last_error(), op);
  tabi_tensor_release(out);
}

#endif /* TABI_TESTS_EW_HELPERS_H */
