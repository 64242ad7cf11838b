/* plugins/cuda/tc_util.cu: helpers every family uses (errors, outputs, dtype
 * promotion, devices) and the per-device library handle caches. */
#include <stdio.h>

#include "tc.h"

#ifndef TC_HIP /* the ROCm plugin shares the helpers, not the cuBLAS handles */
#include <cublas_v2.h>
#include <cublasLt.h>
#endif

extern "C" void tc_note_cuda_used(void);

const char *tc_op_name(tc_ctx *c, const tabi_call *call) {
  const tabi_op_info *info = call ? c->h->op_info(c->h->ctx, call->op) : NULL;
  return info && info->name ? info->name : "cuda";
}

tabi_status tc_cuda_status(tc_ctx *c, cudaError_t e, const char *op, const char *what) {
  if (e == cudaSuccess) return TABI_OK;
  cudaGetLastError();
  return TC_ERR(c, e == cudaErrorMemoryAllocation ? TABI_ERR_OUT_OF_MEMORY : TABI_ERR_DEVICE,
                "%s: %s: %s", op, what, cudaGetErrorString(e));
}

tabi_status tc_launch_status(tc_ctx *c, const char *op) {
  return tc_cuda_status(c, cudaGetLastError(), op, "kernel launch");
}

tabi_status tc_check_cuda(tc_ctx *c, const tabi_tensor *t, const char *op, const char *arg) {
  if (t && t->dl.device.device_type == TC_DL_DEVICE) return TABI_OK;
  return TC_ERR(c, TABI_ERR_DEVICE, "%s: argument '%s' is not a " TC_PLATFORM " tensor (device type %d)", op,
                arg, t ? (int)t->dl.device.device_type : -1);
}

tabi_status tc_same_device(tc_ctx *c, const char *op, int n, const tabi_tensor *const *t,
                           const char *const *names) {
  tabi_status st;
  for (int i = 0; i < n; i++) {
    if (!t[i]) continue;
    if ((st = tc_check_cuda(c, t[i], op, names[i])) != TABI_OK) return st;
    if (t[i]->dl.device.device_id != t[0]->dl.device.device_id)
      return TC_ERR(c, TABI_ERR_DEVICE, "%s: arguments on different " TC_PLATFORM " devices", op);
  }
  return tc_use_device(c, t[0], op);
}

void tc_release_all(tc_ctx *c, tabi_tensor **t, int n) {
  for (int i = 0; i < n; i++)
    if (t[i]) c->h->tensor_release(c->h->ctx, t[i]);
}

tabi_status tc_use_device(tc_ctx *c, const tabi_tensor *t, const char *op) {
  tc_note_cuda_used();
  int cur = -1;
  int want = t ? t->dl.device.device_id : 0;
  if (cudaGetDevice(&cur) == cudaSuccess && cur == want) return TABI_OK;
  return tc_cuda_status(c, cudaSetDevice(want), op, "cudaSetDevice");
}

tabi_status tc_empty(tc_ctx *c, DLDevice dev, tabi_dtype dt, int32_t nd, const int64_t *shape,
                     tabi_tensor **out) {
  return c->h->tensor_empty(c->h->ctx, dev, dt, nd, shape, out);
}

void tc_contig_strides(int32_t nd, const int64_t *shape, int64_t *strides) {
  int64_t s = 1;
  for (int32_t i = nd - 1; i >= 0; i--) {
    strides[i] = s;
    s *= shape[i] > 1 ? shape[i] : 1;
  }
}

tabi_status tc_wrap_dim(tc_ctx *c, const char *op, const char *arg, int64_t dim, int32_t nd,
                        int32_t *out) {
  int64_t n = nd > 0 ? nd : 1;
  if (dim < -n || dim >= n)
    return TC_ERR(c, TABI_ERR_INDEX,
                  "%s: argument '%s': dim %lld is out of range for a tensor of %d dims "
                  "(expected %lld..%lld)",
                  op, arg, (long long)dim, (int)nd, (long long)-n, (long long)(n - 1));
  *out = (int32_t)(dim < 0 ? dim + n : dim);
  return TABI_OK;
}

/* ATen's promotion lattice, by index: u8 i8 i16 i32 i64 f16 f32 f64 c32 c64 c128 b bf16. */
static int lattice_index(tabi_dtype d) {
  switch (d) {
    case TABI_DTYPE_UINT8: return 0;
    case TABI_DTYPE_INT8: return 1;
    case TABI_DTYPE_INT16: return 2;
    case TABI_DTYPE_INT32: return 3;
    case TABI_DTYPE_INT64: return 4;
    case TABI_DTYPE_FLOAT16: return 5;
    case TABI_DTYPE_FLOAT32: return 6;
    case TABI_DTYPE_FLOAT64: return 7;
    case TABI_DTYPE_COMPLEX64: return 8;
    case TABI_DTYPE_COMPLEX128: return 9;
    case TABI_DTYPE_BOOL: return 10;
    case TABI_DTYPE_BFLOAT16: return 11;
    default: return -1;
  }
}

tabi_dtype tc_promote(tabi_dtype a, tabi_dtype b) {
  if (a == TABI_DTYPE_INVALID) return b;
  if (b == TABI_DTYPE_INVALID) return a;
  enum { u1 = 0, i1 = 1, i2 = 2, i4 = 3, i8 = 4, f2 = 5, f4 = 6, f8 = 7, c4 = 9, c8 = 10, b1 = 11,
         bf = 15 };
  static const int t[12][12] = {
      /*        u1  i1  i2  i4  i8  f2  f4  f8  c4  c8  b1  bf */
      /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, c4, c8, u1, bf},
      /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, c4, c8, i1, bf},
      /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, c4, c8, i2, bf},
      /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, c4, c8, i4, bf},
      /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, c4, c8, i8, bf},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, c4, c8, f2, f4},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, c4, c8, f4, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, c8, c8, f8, f8},
      /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c8, c4, c8, c4, c4},
      /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
      /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, c4, c8, b1, bf},
      /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, c4, c8, bf, bf},
  };
  int ia = lattice_index(a), ib = lattice_index(b);
  if (ia < 0 || ib < 0) return TABI_DTYPE_INVALID;
  return t[ia][ib];
}

static tabi_dtype to_complex(tabi_dtype d) {
  return d == TABI_DTYPE_FLOAT64 ? TABI_DTYPE_COMPLEX128 : TABI_DTYPE_COMPLEX64;
}

static tabi_dtype combine(tabi_dtype higher, tabi_dtype lower) {
  if (higher == TABI_DTYPE_INVALID) return lower;
  if (lower == TABI_DTYPE_INVALID) return higher;
  if (tabi_dtype_is_complex(higher)) return higher;
  if (tabi_dtype_is_complex(lower)) return tabi_dtype_is_floating(higher) ? to_complex(higher) : lower;
  if (tabi_dtype_is_floating(higher)) return higher;
  if (higher == TABI_DTYPE_BOOL || tabi_dtype_is_floating(lower)) return tc_promote(higher, lower);
  return higher;
}

tabi_dtype tc_result_type(const tabi_value *const *vals, int n) {
  tabi_dtype dim = TABI_DTYPE_INVALID, zero = TABI_DTYPE_INVALID, wrapped = TABI_DTYPE_INVALID;
  for (int k = 0; k < n; k++) {
    const tabi_value *v = vals[k];
    if (!v) continue;
    switch (v->tag) {
      case TABI_TAG_TENSOR:
        if (v->u.t->dl.ndim > 0) dim = tc_promote(dim, tabi_tensor_dtype(v->u.t));
        else zero = tc_promote(zero, tabi_tensor_dtype(v->u.t));
        break;
      case TABI_TAG_BOOL: wrapped = tc_promote(wrapped, TABI_DTYPE_BOOL); break;
      case TABI_TAG_INT: wrapped = tc_promote(wrapped, TABI_DTYPE_INT64); break;
      case TABI_TAG_FLOAT: wrapped = tc_promote(wrapped, TABI_DTYPE_FLOAT32); break;
      case TABI_TAG_COMPLEX: wrapped = tc_promote(wrapped, TABI_DTYPE_COMPLEX64); break;
      default: break;
    }
  }
  return combine(dim, combine(zero, wrapped));
}

#ifndef TC_HIP
void *tc_cublas(tc_ctx *c, int32_t dev, const char *op) {
  if (dev < 0 || dev >= TC_MAX_DEVICES) {
    TC_ERR(c, TABI_ERR_DEVICE, "%s: device %d is beyond the plugin's limit", op, (int)dev);
    return NULL;
  }
  pthread_mutex_lock(&c->mu);
  void *hd = c->blas[dev];
  if (!hd) {
    cublasHandle_t hb = NULL;
    if (cublasCreate(&hb) == CUBLAS_STATUS_SUCCESS) {
      /* TF32 off: float32 results must meet the float32 tolerance. */
      cublasSetMathMode(hb, CUBLAS_DEFAULT_MATH);
      size_t ws = (size_t)32 << 20;
      void *w = NULL;
      if (cudaMalloc(&w, ws) == cudaSuccess) {
        cublasSetWorkspace(hb, w, ws);
        c->blas_ws[dev] = w;
        c->blas_ws_bytes[dev] = ws;
      } else {
        cudaGetLastError();
      }
      c->blas[dev] = hd = hb;
    }
  }
  pthread_mutex_unlock(&c->mu);
  if (!hd) TC_ERR(c, TABI_ERR_DEVICE, "%s: cublasCreate failed on device %d", op, (int)dev);
  return hd;
}
#endif /* TC_HIP */
