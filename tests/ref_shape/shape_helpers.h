/* tests/ref_shape/shape_helpers.h: a runtime with the reference plugin, tensors
 * from literal values, op calls by name, and element reads, for the shape and
 * creation tests. Single-threaded test helpers; every tensor they return is a
 * new reference the test releases (t_free). */
#ifndef TABI_TESTS_SHAPE_HELPERS_H
#define TABI_TESTS_SHAPE_HELPERS_H

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/runtime.h>
#include <tabi/tabi.h>

#include "check.h"

static tabi_runtime *rt_;

static inline void h_setup(void) {
  tabi_runtime_options o = {sizeof o, TABI_RUNTIME_NO_CACHE};
  CHECK_OK(tabi_runtime_create(&o, &rt_));
  CHECK_OK(tabi_runtime_load_plugin(rt_, TABI_REF_PLUGIN, NULL));
}

static inline void h_teardown(void) { tabi_runtime_destroy(rt_); }

static inline DLDevice h_cpu(void) {
  DLDevice d = {kDLCPU, 0};
  return d;
}

/* A contiguous tensor of `dtype` holding vals (converted from double). */
static inline tabi_tensor *t_make(tabi_dtype dtype, int32_t ndim, const int64_t *shape,
                                  const double *vals) {
  tabi_tensor *t = NULL;
  CHECK_OK(tabi_tensor_empty(rt_, h_cpu(), dtype, ndim, shape, &t));
  if (!t) return NULL;
  int64_t n = tabi_tensor_numel(t), es = tabi_dtype_size(dtype);
  char *p = tabi_tensor_data(t);
  for (int64_t i = 0; i < n; i++) {
    double v = vals ? vals[i] : (double)i;
    void *e = p + i * es;
    switch (dtype) {
      case TABI_DTYPE_BOOL: *(uint8_t *)e = v != 0; break;
      case TABI_DTYPE_UINT8: *(uint8_t *)e = (uint8_t)(int64_t)v; break;
      case TABI_DTYPE_INT8: *(int8_t *)e = (int8_t)(int64_t)v; break;
      case TABI_DTYPE_INT16: *(int16_t *)e = (int16_t)(int64_t)v; break;
      case TABI_DTYPE_INT32: *(int32_t *)e = (int32_t)(int64_t)v; break;
      case TABI_DTYPE_INT64: *(int64_t *)e = (int64_t)v; break;
      case TABI_DTYPE_FLOAT16: *(uint16_t *)e = tabi_f32_to_f16((float)v); break;
      case TABI_DTYPE_BFLOAT16: *(uint16_t *)e = tabi_f32_to_bf16((float)v); break;
      case TABI_DTYPE_FLOAT32: *(float *)e = (float)v; break;
      case TABI_DTYPE_FLOAT64: *(double *)e = v; break;
      case TABI_DTYPE_COMPLEX64: ((float *)e)[0] = (float)v; ((float *)e)[1] = 0; break;
      case TABI_DTYPE_COMPLEX128: ((double *)e)[0] = v; ((double *)e)[1] = 0; break;
      default: break;
    }
  }
  return t;
}

/* arange(numel) in float32 of the given shape */
static inline tabi_tensor *t_iota(int32_t ndim, const int64_t *shape) {
  return t_make(TABI_DTYPE_FLOAT32, ndim, shape, NULL);
}

static inline void t_free(tabi_tensor *t) { tabi_tensor_release(t); }

/* Element at row-major linear index i (real part), reading through strides. */
static inline double t_get(const tabi_tensor *t, int64_t i) {
  int64_t off = 0, lin = i;
  for (int32_t d = t->dl.ndim - 1; d >= 0; d--) {
    int64_t s = t->dl.shape[d];
    off += (lin % s) * t->dl.strides[d];
    lin /= s;
  }
  const char *e = (const char *)tabi_tensor_data(t) + off * (t->dl.dtype.bits / 8);
  switch (tabi_tensor_dtype(t)) {
    case TABI_DTYPE_BOOL: case TABI_DTYPE_UINT8: return *(const uint8_t *)e;
    case TABI_DTYPE_INT8: return *(const int8_t *)e;
    case TABI_DTYPE_INT16: return *(const int16_t *)e;
    case TABI_DTYPE_INT32: return *(const int32_t *)e;
    case TABI_DTYPE_INT64: return (double)*(const int64_t *)e;
    case TABI_DTYPE_FLOAT16: return tabi_f16_to_f32(*(const uint16_t *)e);
    case TABI_DTYPE_BFLOAT16: return tabi_bf16_to_f32(*(const uint16_t *)e);
    case TABI_DTYPE_FLOAT32: case TABI_DTYPE_COMPLEX64: return *(const float *)e;
    default: return *(const double *)e;
  }
}

/* Imaginary part of element i of a complex tensor. */
static inline double t_get_im(const tabi_tensor *t, int64_t i) {
  int64_t off = 0, lin = i;
  for (int32_t d = t->dl.ndim - 1; d >= 0; d--) {
    off += (lin % t->dl.shape[d]) * t->dl.strides[d];
    lin /= t->dl.shape[d];
  }
  const char *e = (const char *)tabi_tensor_data(t) + off * (t->dl.dtype.bits / 8);
  if (tabi_tensor_dtype(t) == TABI_DTYPE_COMPLEX64) return ((const float *)e)[1];
  return ((const double *)e)[1];
}

/* 1 when t's values equal want[0..n) exactly and numel == n. */
static inline int t_equals(const tabi_tensor *t, int64_t n, const double *want) {
  if (!t || tabi_tensor_numel(t) != n) return 0;
  for (int64_t i = 0; i < n; i++) {
    double g = t_get(t, i);
    if (!(g == want[i] || (isnan(g) && isnan(want[i])))) return 0;
  }
  return 1;
}

static inline int t_shape_is(const tabi_tensor *t, int32_t ndim, const int64_t *shape) {
  if (!t || t->dl.ndim != ndim) return 0;
  for (int32_t i = 0; i < ndim; i++)
    if (t->dl.shape[i] != shape[i]) return 0;
  return 1;
}

static inline int t_strides_are(const tabi_tensor *t, const int64_t *strides) {
  if (!t) return 0;
  for (int32_t i = 0; i < t->dl.ndim; i++)
    if (t->dl.strides[i] != strides[i]) return 0;
  return 1;
}

static inline int64_t t_offset(const tabi_tensor *t) {
  return (int64_t)t->dl.byte_offset / (t->dl.dtype.bits / 8);
}

/* Calls op `name` with args; returns the status; outs[0..nouts) receive results. */
static inline tabi_status h_call(const char *name, tabi_value *args, int32_t nargs, tabi_value *outs,
                                 int32_t nouts) {
  tabi_op op;
  tabi_status st = tabi_op_find(rt_, name, &op);
  if (st != TABI_OK) return st;
  for (int32_t i = 0; i < nouts; i++) outs[i] = tabi_none();
  return tabi_call(rt_, op, args, nargs, outs, nouts);
}

/* Calls a single-tensor-result op; NULL on error (the status in *st if given). */
static inline tabi_tensor *h_call1(const char *name, tabi_value *args, int32_t nargs, tabi_status *st) {
  tabi_value out = tabi_none();
  tabi_status s = h_call(name, args, nargs, &out, 1);
  if (st) *st = s;
  if (s != TABI_OK) return NULL;
  return out.tag == TABI_TAG_TENSOR ? out.u.t : NULL;
}

#define IL(...) tabi_int_list((const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define SHP(...) (const int64_t[]){__VA_ARGS__}
#define VALS(...) (const double[]){__VA_ARGS__}
#define NV(...) (int64_t)(sizeof((const double[]){__VA_ARGS__}) / sizeof(double))
/* CHECK that t holds exactly the listed values */
#define CHECK_VALS(t, ...) CHECK_MSG(t_equals((t), NV(__VA_ARGS__), VALS(__VA_ARGS__)), "values of %s", #t)

#endif /* TABI_TESTS_SHAPE_HELPERS_H */
