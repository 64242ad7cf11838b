/* plugins/rocm/rocm_gemm.cuh: the ROCm plugin's matrix products (mm, bmm,
 * addmm) for float32, float64, float16 and bfloat16. Included by the shared
 * plugins/cuda/tc_blas.cu under hipcc in place of its cuBLAS call, so the
 * argument checks, shapes and the integer/complex kernel stay one source.
 *
 * rocBLAS (runtime-loaded, rocm_dl.h) takes the operands it can read (unit
 * stride in one dim); otherwise, and always where rocBLAS is absent (Debian
 * 12), a shared-memory tiled kernel: 64x64 output tiles, k in steps of 16,
 * 256 threads each owning a 4x4 block strided by 16 so the shared-memory reads
 * of a wavefront hit distinct banks. It reads any strides (no copies), needs
 * no warp primitives (the same code for wave64 gfx90a/gfx908 and wave32
 * gfx1030), and accumulates in float (double for float64); half types round
 * once at the store, as cuBLAS's CUBLAS_COMPUTE_32F does. No atomics and a
 * fixed summation order: deterministic. NOT YET RUN ON AMD HARDWARE. */
#ifndef TABI_ROCM_GEMM_CUH
#define TABI_ROCM_GEMM_CUH

#include "rocm_dl.h"
#include "rocm_tile.cuh"

/* rocBLAS handle of a device, created on first use (kept in c->blas[]). */
static void *rg_rocblas_handle(tc_ctx *c, const rocm_rocblas *rb, int32_t dev) {
  if (dev < 0 || dev >= TC_MAX_DEVICES) return NULL;
  pthread_mutex_lock(&c->mu);
  void *hd = c->blas[dev];
  if (!hd && rb->create_handle(&hd) != ROCM_RB_SUCCESS) hd = NULL;
  /* no atomics: the same bits run to run, as every kernel of the plugin */
  if (hd && !c->blas[dev] && rb->set_atomics_mode) rb->set_atomics_mode(hd, ROCM_RB_ATOMICS_NOT_ALLOWED);
  c->blas[dev] = hd;
  pthread_mutex_unlock(&c->mu);
  return hd;
}

/* j: shapes, strides and (filled) pointers of mm_common; *done = 0 when the
 * dtype is not one of the four (the caller's generic kernel runs). With
 * zero_alpha, rocBLAS (which, as any BLAS, skips the product when alpha is 0)
 * is asked for the bare product and *prod = 1 tells the caller to run the
 * epilogue; the tiled kernel forms alpha * product itself. */
static tabi_status rocm_gemm(tc_ctx *c, const char *op, const mm_args *j, const tabi_tensor *self,
                             tabi_tensor *out, int batched, int zero_alpha, int *done, int *prod) {
  *done = 0;
  *prod = 0;
  int dt = j->dt;
  if (dt != TABI_DTYPE_FLOAT32 && dt != TABI_DTYPE_FLOAT64 && dt != TABI_DTYPE_FLOAT16 &&
      dt != TABI_DTYPE_BFLOAT16)
    return TABI_OK;
  *done = 1;
  const rocm_rocblas *rb = rocm_dl_rocblas();
  int ta = 0, tm = 0;
  int64_t lda = 0, ldm = 0;
  if (rb && blas_layout(j->n, j->k, j->ast[1], j->ast[2], &ta, &lda) &&
      blas_layout(j->k, j->p, j->mst[1], j->mst[2], &tm, &ldm) && j->n < INT32_MAX &&
      j->p < INT32_MAX && j->k < INT32_MAX && lda < INT32_MAX && ldm < INT32_MAX &&
      j->nb < INT32_MAX) {
    void *hd = rg_rocblas_handle(c, rb, out->dl.device.device_id);
    if (hd) {
      tabi_status st = TABI_OK;
      if (j->use_beta && !zero_alpha) st = tc_copy_convert(c, op, out, self);
      if (st != TABI_OK) return st;
      int bt = dt == TABI_DTYPE_FLOAT32 ? ROCM_RB_F32 : dt == TABI_DTYPE_FLOAT64 ? ROCM_RB_F64
               : dt == TABI_DTYPE_FLOAT16 ? ROCM_RB_F16 : ROCM_RB_BF16;
      int ct = dt == TABI_DTYPE_FLOAT64 ? ROCM_RB_F64 : ROCM_RB_F32;
      double al = j->use_self && !zero_alpha ? j->alpha[0] : 1.0;
      double be = j->use_beta && !zero_alpha ? j->beta[0] : 0.0;
      float fal = (float)al, fbe = (float)be;
      const void *pa = ct == ROCM_RB_F64 ? (const void *)&al : (const void *)&fal;
      const void *pb = ct == ROCM_RB_F64 ? (const void *)&be : (const void *)&fbe;
      rb->set_stream(hd, NULL);
      /* row-major C = A @ M is column-major C^T = M^T @ A^T */
      int rs = rb->gemm_strided_batched_ex(
          hd, tm ? ROCM_RB_OP_T : ROCM_RB_OP_N, ta ? ROCM_RB_OP_T : ROCM_RB_OP_N, (int32_t)j->p,
          (int32_t)j->n, (int32_t)j->k, pa, j->m, bt, (int32_t)ldm, batched ? j->mst[0] : 0, j->a, bt,
          (int32_t)lda, batched ? j->ast[0] : 0, pb, j->o, bt, (int32_t)j->p, j->n * j->p, j->o, bt,
          (int32_t)j->p, j->n * j->p, (int32_t)j->nb, ct, ROCM_RB_ALGO_STANDARD, 0, 0);
      if (rs == ROCM_RB_SUCCESS) {
        *prod = zero_alpha;
        return TABI_OK;
      }
      /* a failing rocBLAS call falls through to the own kernel */
    }
  }
  int64_t gx = (j->p + RG_BN - 1) / RG_BN, gy = (j->n + RG_BM - 1) / RG_BM, gz = j->nb;
  if (gx > INT32_MAX)
    return TC_ERR(c, TABI_ERR_SHAPE, "%s: %lld output columns is beyond the tiled kernel's grid", op,
                  (long long)j->p);
  dim3 grid((unsigned)gx, (unsigned)(gy > 65535 ? 65535 : gy), (unsigned)(gz > 65535 ? 65535 : gz));
  switch (dt) {
    case TABI_DTYPE_FLOAT32: TC_LAUNCH(grid, RG_NT, rg_tiled<TABI_DTYPE_FLOAT32, mm_args>)(*j); break;
    case TABI_DTYPE_FLOAT64: TC_LAUNCH(grid, RG_NT, rg_tiled<TABI_DTYPE_FLOAT64, mm_args>)(*j); break;
    case TABI_DTYPE_FLOAT16: TC_LAUNCH(grid, RG_NT, rg_tiled<TABI_DTYPE_FLOAT16, mm_args>)(*j); break;
    default: TC_LAUNCH(grid, RG_NT, rg_tiled<TABI_DTYPE_BFLOAT16, mm_args>)(*j); break;
  }
  return tc_launch_status(c, op);
}

#endif /* TABI_ROCM_GEMM_CUH */
