/* plugins/cuda/tc_util.cu: helpers every family uses (errors, outputs, dtype
 * promotion, devices) and the per-device library handle caches. */
#include <stdio.h>
#include <stdlib.h>

#include "tc.h"
#include "tc_algo_cache.h"

#if !defined(TC_HIP) && !defined(TC_SIM) /* ROCm shares the helpers, not the cuBLAS handles */
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

tc_ctx *tc_ctx_new(const tabi_host_api *h) {
  tc_ctx *c = (tc_ctx *)calloc(1, sizeof *c);
  if (!c) return NULL;
  c->h = h;
  c->count = -1;
  pthread_mutex_init(&c->mu, NULL);
  for (int d = 0; d < TC_MAX_DEVICES; d++) pthread_mutex_init(&c->dnn_mu[d], NULL);
  return c;
}

void tc_ctx_free(tc_ctx *c) {
  if (!c) return;
#ifndef TC_HIP
  for (int d = 0; d < TC_MAX_DEVICES; d++) {
    if (c->blas[d] || c->blaslt[d] || c->blas_ws[d]) cudaSetDevice(d);
    if (c->blas[d]) cublasDestroy((cublasHandle_t)c->blas[d]);
    if (c->blaslt[d]) cublasLtDestroy((cublasLtHandle_t)c->blaslt[d]);
    if (c->blas_ws[d]) cudaFree(c->blas_ws[d]);
  }
  tc_cudnn_destroy(c);
#endif
  tc_fft_destroy(c); /* cuFFT's plans; ROCm's Bluestein filters */
  tc_algo_cache_free((tc_algo_cache *)c->conv_algos); /* the conv algorithm choices */
  tc_algo_cache_free((tc_algo_cache *)c->lt_algos);   /* cuBLASLt's */
  for (int d = 0; d < TC_MAX_DEVICES; d++) pthread_mutex_destroy(&c->dnn_mu[d]);
  pthread_mutex_destroy(&c->mu);
  free(c);
}

static const tc_kernel *const tc_tables[] = {TC_KERNEL_TABLES};

int tc_kernels_own(const char *op) {
  for (size_t t = 0; t < sizeof tc_tables / sizeof tc_tables[0]; t++)
    for (const tc_kernel *k = tc_tables[t]; k->op; k++)
      if (strcmp(k->op, op) == 0) return 1;
  return 0;
}

tabi_status tc_kernels_register(tc_ctx *c, const char *plugin) {
  const tabi_host_api *h = c->h;
  for (size_t t = 0; t < sizeof tc_tables / sizeof tc_tables[0]; t++)
    for (const tc_kernel *k = tc_tables[t]; k->op; k++) {
      tabi_op op;
      tabi_status st = h->op_find(h->ctx, k->op, &op);
      if (st != TABI_OK) return TABI_ERR(h, st, "%s: no op named '%s'", plugin, k->op);
      if ((st = h->kernel_register(h->ctx, op, TABI_LAYER_BACKEND, k->fn, c)) != TABI_OK) return st;
    }
  return TABI_OK;
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

void *tc_cublaslt(tc_ctx *c, int32_t dev) {
  if (dev < 0 || dev >= TC_MAX_DEVICES) return NULL;
  pthread_mutex_lock(&c->mu);
  void *hd = c->blaslt[dev];
  if (!hd) {
    cublasLtHandle_t hl = NULL;
    if (cublasLtCreate(&hl) == CUBLAS_STATUS_SUCCESS) c->blaslt[dev] = hd = hl;
  }
  pthread_mutex_unlock(&c->mu);
  return hd;
}
#endif /* TC_HIP */
