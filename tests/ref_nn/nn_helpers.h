/* tests/ref_nn/nn_helpers.h: a runtime with the reference plugin, tensors from
 * double arrays, calls by op name, and value checks for the nn/linalg/fft tests. */
#ifndef TABI_TESTS_NN_HELPERS_H
#define TABI_TESTS_NN_HELPERS_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/runtime.h>
#include <tabi/half.h>

#include "check.h"

static tabi_runtime *nn_rt;
#define SHP(...) ((const int64_t[]){__VA_ARGS__})
#define IL(...) tabi_int_list((const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / 8)
#define IL0() tabi_int_list(NULL, 0)
#define BL(...) tabi_bool_list((const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / 8)
#define TV(t) tabi_tensor_value(t)
static const DLDevice nn_cpu = {kDLCPU, 0};

static void nn_setup(void) {
  CHECK_OK(tabi_runtime_create(NULL, &nn_rt));
  CHECK_OK(tabi_runtime_load_plugin(nn_rt, TABI_REF_PLUGIN, NULL));
}

static void nn_store(void *p, tabi_dtype dt, double v) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: *(float *)p = (float)v; break;
    case TABI_DTYPE_FLOAT64: *(double *)p = v; break;
    case TABI_DTYPE_FLOAT16: *(uint16_t *)p = tabi_f32_to_f16((float)v); break;
    case TABI_DTYPE_BFLOAT16: *(uint16_t *)p = tabi_f32_to_bf16((float)v); break;
    case TABI_DTYPE_INT64: *(int64_t *)p = (int64_t)v; break;
    case TABI_DTYPE_INT32: *(int32_t *)p = (int32_t)v; break;
    case TABI_DTYPE_UINT8: case TABI_DTYPE_BOOL: *(uint8_t *)p = (uint8_t)v; break;
    case TABI_DTYPE_COMPLEX64: ((float *)p)[0] = (float)v; ((float *)p)[1] = 0; break;
    case TABI_DTYPE_COMPLEX128: ((double *)p)[0] = v; ((double *)p)[1] = 0; break;
    default: break;
  }
}

static double nn_load(const void *p, tabi_dtype dt) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: return *(const float *)p;
    case TABI_DTYPE_FLOAT64: return *(const double *)p;
    case TABI_DTYPE_FLOAT16: return tabi_f16_to_f32(*(const uint16_t *)p);
    case TABI_DTYPE_BFLOAT16: return tabi_bf16_to_f32(*(const uint16_t *)p);
    case TABI_DTYPE_INT64: return (double)*(const int64_t *)p;
    case TABI_DTYPE_INT32: return *(const int32_t *)p;
    case TABI_DTYPE_UINT8: case TABI_DTYPE_BOOL: return *(const uint8_t *)p;
    case TABI_DTYPE_COMPLEX64: return ((const float *)p)[0];
    case TABI_DTYPE_COMPLEX128: return ((const double *)p)[0];
    default: return NAN;
  }
}

/* A tensor of dtype dt holding vals (row-major; NULL: 0, 1, 2, ...). For
 * complex dtypes vals holds (re, im) pairs. */
static tabi_tensor *t_make(tabi_dtype dt, int32_t nd, const int64_t *shape, const double *vals) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  int64_t es = tabi_dtype_size(dt);
  char *buf = calloc((size_t)(n * es + 16), 1);
  int cplx = tabi_dtype_is_complex(dt);
  for (int64_t i = 0; i < n; i++) {
    if (cplx) {
      double re = vals ? vals[2 * i] : (double)i, im = vals ? vals[2 * i + 1] : 0;
      if (dt == TABI_DTYPE_COMPLEX64) { ((float *)buf)[2 * i] = (float)re; ((float *)buf)[2 * i + 1] = (float)im; }
      else { ((double *)buf)[2 * i] = re; ((double *)buf)[2 * i + 1] = im; }
    } else {
      nn_store(buf + i * es, dt, vals ? vals[i] : (double)i);
    }
  }
  tabi_tensor *t = NULL;
  CHECK_OK(tabi_tensor_from_host(nn_rt, nn_cpu, dt, nd, shape, buf, (uint64_t)(n * es), &t));
  free(buf);
  return t;
}

/* A non-contiguous copy: the transpose of the transpose (same values, strides
 * reversed) when 2-D or more; otherwise t itself retained. */
static tabi_tensor *t_noncontig(tabi_tensor *t);

static void t_free(tabi_tensor *t) { tabi_tensor_release(t); }

/* Element i (row-major) as a double; imaginary part with t_imag. */
static double t_at(const tabi_tensor *t, int64_t i, int imag) {
  tabi_dtype dt = tabi_tensor_dtype(t);
  int64_t n = tabi_tensor_numel(t), es = tabi_dtype_size(dt);
  if (i >= n) return NAN;
  char *buf = malloc((size_t)(n * es + 16));
  if (tabi_tensor_to_host(nn_rt, t, buf, (uint64_t)(n * es)) != TABI_OK) { free(buf); return NAN; }
  double v;
  if (imag) v = dt == TABI_DTYPE_COMPLEX64 ? ((float *)buf)[2 * i + 1] : dt == TABI_DTYPE_COMPLEX128 ? ((double *)buf)[2 * i + 1] : 0;
  else v = nn_load(buf + i * es, dt);
  free(buf);
  return v;
}
static double t_get(const tabi_tensor *t, int64_t i) { return t_at(t, i, 0); }

static int t_shape_is(const tabi_tensor *t, int32_t nd, const int64_t *shape) {
  if (!t || t->dl.ndim != nd) return 0;
  for (int32_t i = 0; i < nd; i++) if (t->dl.shape[i] != shape[i]) return 0;
  return 1;
}

static tabi_status h_call(const char *op, tabi_value *args, int32_t nargs, tabi_value *outs, int32_t nouts) {
  tabi_op h;
  for (int32_t i = 0; i < nouts; i++) outs[i] = tabi_none();
  tabi_status st = tabi_op_find(nn_rt, op, &h);
  if (st != TABI_OK) return st;
  return tabi_call(nn_rt, h, args, nargs, outs, nouts);
}

/* One-output call; NULL on error (status in *st when st != NULL). */
static tabi_tensor *h_call1(const char *op, tabi_value *args, int32_t nargs, tabi_status *st) {
  tabi_value o[1];
  tabi_status s = h_call(op, args, nargs, o, 1);
  if (st) *st = s;
  else CHECK_MSG(s == TABI_OK, "%s: %s", op, tabi_last_error());
  return s == TABI_OK && o[0].tag == TABI_TAG_TENSOR ? o[0].u.t : NULL;
}

static void outs_free(tabi_value *o, int n) {
  for (int i = 0; i < n; i++) tabi_value_release(&o[i]);
}

/* Every element of t (real parts) within tol (absolute + relative) of want[]. */
static int t_close(const tabi_tensor *t, const double *want, int64_t n, double tol) {
  if (!t || tabi_tensor_numel(t) != n) return 0;
  for (int64_t i = 0; i < n; i++) {
    double g = t_get(t, i), w = want[i];
    if (isnan(w) ? !isnan(g) : !(fabs(g - w) <= tol * (1 + fabs(w)))) {
      fprintf(stderr, "  element %lld: got %.9g want %.9g\n", (long long)i, g, w);
      return 0;
    }
  }
  return 1;
}
#define CHECK_CLOSE(t, tol, ...) \
  CHECK(t_close((t), (const double[]){__VA_ARGS__}, sizeof((const double[]){__VA_ARGS__}) / 8, (tol)))

static tabi_tensor *t_noncontig(tabi_tensor *t) {
  /* permute twice through aten::permute is another family's op; a strided
   * view over a 2x-wide copy is built here directly instead */
  int32_t nd = t->dl.ndim;
  int64_t shape2[16], strides[16], n = 1;
  for (int32_t i = 0; i < nd; i++) { shape2[i] = t->dl.shape[i]; n *= t->dl.shape[i]; }
  tabi_dtype dt = tabi_tensor_dtype(t);
  int64_t es = tabi_dtype_size(dt);
  /* storage holds each element twice-spaced: element i at 2*i */
  char *src = malloc((size_t)(n * es + 16)), *dst = calloc((size_t)(2 * n * es + 16), 1);
  tabi_tensor_to_host(nn_rt, t, src, (uint64_t)(n * es));
  for (int64_t i = 0; i < n; i++) memcpy(dst + 2 * i * es, src + i * es, (size_t)es);
  int64_t flat = 2 * n;
  tabi_tensor *base = NULL, *v = NULL;
  CHECK_OK(tabi_tensor_from_host(nn_rt, nn_cpu, dt, 1, &flat, dst, (uint64_t)(2 * n * es), &base));
  int64_t st = 2;
  for (int32_t i = nd - 1; i >= 0; i--) { strides[i] = st; st *= shape2[i]; }
  CHECK_OK(tabi_tensor_view(nn_rt, base, nd, shape2, strides, 0, &v));
  tabi_tensor_release(base);
  free(src);
  free(dst);
  return v;
}

#endif /* TABI_TESTS_NN_HELPERS_H */
