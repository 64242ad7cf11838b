/* tests/ref_reduce/helpers.h: a runtime with the reference kernels of the
 * reductions/indexing family loaded, tensor builders and element readers.
 *
 * Tensors are built from doubles (converted per dtype here, independently of
 * the reference's ref_util.c) and read back by row-major position, through the
 * tensor's strides. Expected values in the tests come from torch 1.13; the
 * one-liner used is written beside each.
 */
#ifndef TABI_TESTS_REF_REDUCE_HELPERS_H
#define TABI_TESTS_REF_REDUCE_HELPERS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <tabi/half.h>
#include <tabi/runtime.h>

#include "check.h"

static tabi_runtime *rt_;

/* Shapes and values as compound literals: mk(TABI_DTYPE_FLOAT32, SH(2, 3), V(1, 2, 3, 4, 5, 6)). */
#define SH(...) (const int64_t[]){__VA_ARGS__}, (int32_t)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define V(...) (const double[]){__VA_ARGS__}
#define SCALAR_SHAPE NULL, 0

static inline int setup(const char *plugin) {
  if (tabi_runtime_create(NULL, &rt_) != TABI_OK) {
    fprintf(stderr, "runtime: %s\n", tabi_last_error());
    return 0;
  }
  if (tabi_runtime_load_plugin(rt_, plugin, NULL) != TABI_OK) {
    fprintf(stderr, "plugin %s: %s\n", plugin, tabi_last_error());
    return 0;
  }
  return 1;
}

static inline void teardown(void) { tabi_runtime_destroy(rt_); }

static inline void put(void *p, tabi_dtype dt, double re, double im) {
  switch (dt) {
    case TABI_DTYPE_BOOL: *(uint8_t *)p = re != 0; break;
    case TABI_DTYPE_UINT8: *(uint8_t *)p = (uint8_t)(int64_t)re; break;
    case TABI_DTYPE_INT8: *(int8_t *)p = (int8_t)(int64_t)re; break;
    case TABI_DTYPE_INT16: *(int16_t *)p = (int16_t)(int64_t)re; break;
    case TABI_DTYPE_INT32: *(int32_t *)p = (int32_t)(int64_t)re; break;
    case TABI_DTYPE_INT64: *(int64_t *)p = (int64_t)re; break;
    case TABI_DTYPE_FLOAT16: *(uint16_t *)p = tabi_f32_to_f16((float)re); break;
    case TABI_DTYPE_BFLOAT16: *(uint16_t *)p = tabi_f32_to_bf16((float)re); break;
    case TABI_DTYPE_FLOAT32: *(float *)p = (float)re; break;
    case TABI_DTYPE_FLOAT64: *(double *)p = re; break;
    case TABI_DTYPE_COMPLEX64: ((float *)p)[0] = (float)re; ((float *)p)[1] = (float)im; break;
    case TABI_DTYPE_COMPLEX128: ((double *)p)[0] = re; ((double *)p)[1] = im; break;
    default: break;
  }
}

/* A contiguous tensor; `im` (may be NULL) gives imaginary parts. */
static inline tabi_tensor *mkc(tabi_dtype dt, const int64_t *shape, int32_t nd, const double *re,
                        const double *im) {
  tabi_tensor *t = NULL;
  DLDevice cpu = {kDLCPU, 0};
  if (tabi_tensor_empty(rt_, cpu, dt, nd, shape, &t) != TABI_OK) {
    fprintf(stderr, "tensor_empty: %s\n", tabi_last_error());
    return NULL;
  }
  int64_t n = tabi_tensor_numel(t), sz = tabi_dtype_size(dt);
  for (int64_t i = 0; i < n; i++)
    put((char *)tabi_tensor_data(t) + i * sz, dt, re ? re[i] : 0, im ? im[i] : 0);
  return t;
}
static inline tabi_tensor *mk(tabi_dtype dt, const int64_t *shape, int32_t nd, const double *v) {
  return mkc(dt, shape, nd, v, NULL);
}
static inline tabi_tensor *mk0(tabi_dtype dt, double v) { return mk(dt, NULL, 0, &v); }

/* A view of t with the given shape/strides/element offset (non-contiguous inputs). */
static inline tabi_tensor *view(tabi_tensor *t, const int64_t *shape, int32_t nd, const int64_t *strides,
                         int64_t elem_offset) {
  tabi_tensor *v = NULL;
  int64_t sz = tabi_dtype_size(tabi_tensor_dtype(t));
  if (tabi_tensor_view(rt_, t, nd, shape, strides, (int64_t)t->dl.byte_offset + elem_offset * sz,
                       &v) != TABI_OK)
    fprintf(stderr, "view: %s\n", tabi_last_error());
  return v;
}
/* The transpose of a 2-d tensor (a strided view). */
static inline tabi_tensor *tr2(tabi_tensor *t) {
  int64_t shape[2] = {t->dl.shape[1], t->dl.shape[0]};
  int64_t strides[2] = {t->dl.strides[1], t->dl.strides[0]};
  return view(t, shape, 2, strides, 0);
}

static inline const char *elem_ptr(const tabi_tensor *t, int64_t linear) {
  int64_t off = 0;
  for (int32_t d = t->dl.ndim - 1; d >= 0; d--) {
    off += (linear % t->dl.shape[d]) * t->dl.strides[d];
    linear /= t->dl.shape[d];
  }
  return (const char *)tabi_tensor_data(t) + off * tabi_dtype_size(tabi_tensor_dtype(t));
}

/* Element `linear` (row-major) as a double (real part for complex). */
static inline double getf(const tabi_tensor *t, int64_t linear) {
  const char *p = elem_ptr(t, linear);
  switch (tabi_tensor_dtype(t)) {
    case TABI_DTYPE_BOOL: case TABI_DTYPE_UINT8: return *(const uint8_t *)p;
    case TABI_DTYPE_INT8: return *(const int8_t *)p;
    case TABI_DTYPE_INT16: return *(const int16_t *)p;
    case TABI_DTYPE_INT32: return *(const int32_t *)p;
    case TABI_DTYPE_INT64: return (double)*(const int64_t *)p;
    case TABI_DTYPE_FLOAT16: return tabi_f16_to_f32(*(const uint16_t *)p);
    case TABI_DTYPE_BFLOAT16: return tabi_bf16_to_f32(*(const uint16_t *)p);
    case TABI_DTYPE_FLOAT32: case TABI_DTYPE_COMPLEX64: return *(const float *)p;
    case TABI_DTYPE_FLOAT64: case TABI_DTYPE_COMPLEX128: return *(const double *)p;
    default: return NAN;
  }
}
static inline double geti_im(const tabi_tensor *t, int64_t linear) {
  const char *p = elem_ptr(t, linear);
  if (tabi_tensor_dtype(t) == TABI_DTYPE_COMPLEX64) return ((const float *)p)[1];
  if (tabi_tensor_dtype(t) == TABI_DTYPE_COMPLEX128) return ((const double *)p)[1];
  return 0;
}
static inline int64_t geti(const tabi_tensor *t, int64_t linear) {
  if (tabi_tensor_dtype(t) == TABI_DTYPE_INT64) return *(const int64_t *)elem_ptr(t, linear);
  return (int64_t)getf(t, linear);
}

/* Same value: NaN equals NaN, and -0.0 differs from 0.0. */
static inline int same(double a, double b, double tol) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  if (a == 0 && b == 0) return signbit(a) == signbit(b);
  if (isinf(a) || isinf(b)) return a == b;
  return fabs(a - b) <= tol * (1 + fabs(b));
}

/* Checks dtype, shape and (real) values of t. Reports the first bad element. */
/* CHECK_T(t, dtype, shape..., values) with SH()/SCALAR_SHAPE and V(); the macro
 * only adds the line, so the commas inside SH/V never pass through a second
 * macro. CHECK_T_TOL takes a relative tolerance first. */
#define CHECK_T(...) check_t_(__LINE__, 1e-6, __VA_ARGS__)
#define CHECK_T_TOL(tol, ...) check_t_(__LINE__, (tol), __VA_ARGS__)
static inline void check_t_(int line, double tol, const tabi_tensor *t, tabi_dtype dt,
                     const int64_t *shape, int32_t nd, const double *vals) {
  if (!t) {
    CHECK_MSG(0, "line %d: no tensor (%s)", line, tabi_last_error());
    return;
  }
  CHECK_MSG(tabi_tensor_dtype(t) == dt, "line %d: dtype %s, wanted %s", line,
            tabi_dtype_name(tabi_tensor_dtype(t)), tabi_dtype_name(dt));
  int shape_ok = t->dl.ndim == nd;
  for (int32_t d = 0; shape_ok && d < nd; d++) shape_ok = t->dl.shape[d] == shape[d];
  CHECK_MSG(shape_ok, "line %d: shape differs (ndim %d, wanted %d)", line, (int)t->dl.ndim, (int)nd);
  if (!shape_ok) return;
  int64_t n = tabi_tensor_numel(t);
  for (int64_t i = 0; i < n; i++) {
    double got = dt == TABI_DTYPE_INT64 ? (double)geti(t, i) : getf(t, i);
    if (!same(got, vals[i], tol)) {
      CHECK_MSG(0, "line %d: element %lld is %.17g, wanted %.17g", line, (long long)i, got, vals[i]);
      return;
    }
  }
  CHECK(1);
}

/* Calls op `name`; outs must have room for the returns. */
static inline tabi_status run(const char *name, tabi_value *args, int32_t nargs, tabi_value *outs,
                       int32_t nouts) {
  tabi_op op;
  tabi_status st = tabi_op_find(rt_, name, &op);
  if (st != TABI_OK) return st;
  for (int32_t i = 0; i < nouts; i++) outs[i] = tabi_none();
  return tabi_call_op(rt_, op, args, nargs, outs, nouts);
}

/* Calls a single-output op and returns its tensor (NULL on error: the status is
 * in *st when st is non-NULL). The caller releases it. */
static inline tabi_tensor *run1(const char *name, tabi_value *args, int32_t nargs) {
  tabi_value out[1];
  tabi_status st = run(name, args, nargs, out, 1);
  if (st != TABI_OK) {
    fprintf(stderr, "%s failed: %s\n", name, tabi_last_error());
    return NULL;
  }
  return out[0].tag == TABI_TAG_TENSOR ? out[0].u.t : NULL;
}

#define TV(t) tabi_tensor_value(t)
#define IL(...) tabi_int_list((const int64_t[]){__VA_ARGS__}, (int64_t)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))
#define IL0 tabi_int_list(NULL, 0)
#define DT(d) tabi_dtype_value(d)
#define REL(t) tabi_tensor_release(t)

#endif /* TABI_TESTS_REF_REDUCE_HELPERS_H */
