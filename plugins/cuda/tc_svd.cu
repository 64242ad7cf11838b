/* plugins/cuda/tc_svd.cu: prims::svd(A, *, full_matrices) -> (U, S, Vh).
 *
 * One thread block per matrix of the batch runs tcs_matrix (tc_svd.cuh, the
 * reference's one-sided Jacobi with the pair sums split over the block and
 * added by a fixed tree: deterministic) on a float64 scratch in global memory
 * (W, V, the sorted and completed Q, the singular values and their order);
 * tests/cuda/test_cuda_svd_host runs the same driver on the host, emulating
 * the block. The argument checks and the non-finite error are the
 * reference's own functions (ref_linalg_svd_check / _nonfinite, linked from
 * reference/ref_linalg_svd.c). Non-finite input: the blocks set a device flag,
 * read back after the launches; then the reference's error and no outputs.
 * Batches whose scratch would pass TCS_SCRATCH_BYTES run in chunks. */
#include <string.h>

#include "tc.h"
#include "tc_svd.cuh"

extern "C" {
/* reference/ref_linalg_util.h (not includable from C++: C99 complex types) */
tabi_status ref_linalg_svd_check(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *A,
                                 int64_t *m, int64_t *n, int64_t *batch);
tabi_status ref_linalg_svd_nonfinite(const tabi_host_api *h, const tabi_call *call);
}

#define TCS_MAX_THREADS 256
#define TCS_SCRATCH_BYTES ((int64_t)1 << 30)

/* The executor of tcs_matrix on the device: this thread's share of a phase,
 * then the block's barrier (host code never calls it: the guard keeps the
 * host pass of nvcc/hipcc from seeing device-only names). */
struct tcs_dev_block {
  template <class F> __host__ __device__ void run(F f) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || defined(TC_SIM)
    f((int)threadIdx.x, (int)blockDim.x);
    __syncthreads();
#else
    (void)f;
#endif
  }
  __host__ __device__ int threads() const {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || defined(TC_SIM)
    return (int)blockDim.x;
#else
    return 1;
#endif
  }
};

/* Block b: matrix b0 + b of the batch. */
__global__ void __launch_bounds__(TCS_MAX_THREADS) svd_kernel(tcs_geom g, const char *a, double *wk, int *bad,
                                                              char *u, char *s, char *vh) {
  TC_SHARED_DYN(double, tcs_part);
  int64_t b = blockIdx.x;
  tcs_dev_block x;
  tcs_matrix(x, &g, a + b * g.m * g.n * tcs_esz(g.dt), wk + b * g.per, tcs_part, bad,
             u + b * g.m * g.ucols * tcs_esz(g.dt), s + b * g.k * tcs_esz(g.sdt),
             vh + b * g.vrows * g.n * tcs_esz(g.dt));
}

/* Threads per block: enough that each has a few rows of a pair, at most 256
 * (fewer threads, fewer tree levels and barriers per pair). */
static int threads_for(int64_t R) {
  int T = 32;
  while (T < TCS_MAX_THREADS && (int64_t)T * 4 < R) T *= 2;
  return T;
}

static tabi_status k_svd(TC_ARGS) {
  TC_CTX;
  tabi_tensor *A = args[0].u.t;
  int full = args[1].u.i != 0;
  int64_t m, n, batch;
  tabi_status st = ref_linalg_svd_check(c->h, call, A, &m, &n, &batch);
  if (st == TABI_OK) st = tc_check_cuda(c, A, OPN, "A");
  if (st == TABI_OK) st = tc_use_device(c, A, OPN);
  if (st != TABI_OK) return st;
  tabi_dtype dt = tabi_tensor_dtype(A);
  tcs_geom g;
  memset(&g, 0, sizeof g);
  tcs_init(&g, m, n, full, (int)dt);
  int32_t nd = A->dl.ndim;
  int64_t shp[TC_MAX_DIMS];
  for (int32_t i = 0; i < nd; i++) shp[i] = A->dl.shape[i];
  tabi_tensor *o[3] = {NULL, NULL, NULL}, *ac = NULL, *scratch = NULL, *flag = NULL;
  shp[nd - 1] = g.ucols;
  st = tc_empty(c, A->dl.device, dt, nd, shp, &o[0]);
  shp[nd - 2] = g.k;
  if (st == TABI_OK) st = tc_empty(c, A->dl.device, (tabi_dtype)g.sdt, nd - 1, shp, &o[1]);
  shp[nd - 2] = g.vrows;
  shp[nd - 1] = n;
  if (st == TABI_OK) st = tc_empty(c, A->dl.device, dt, nd, shp, &o[2]);
  /* nothing to compute when every output is empty (batch 0, or m = n = 0) */
  int work = batch > 0 && (g.k > 0 || g.m * g.ucols > 0 || g.vrows * g.n > 0);
  int64_t chunk = batch;
  if (work && g.per * chunk > TCS_SCRATCH_BYTES / 8) chunk = TCS_SCRATCH_BYTES / 8 / g.per;
  if (chunk < 1) chunk = 1;
  int64_t wn = g.per * chunk, one = 1;
  if (st == TABI_OK && work) st = tc_contiguous(c, OPN, A, &ac);
  if (st == TABI_OK && work) st = tc_empty(c, A->dl.device, TABI_DTYPE_FLOAT64, 1, &wn, &scratch);
  if (st == TABI_OK && work) st = tc_empty(c, A->dl.device, TABI_DTYPE_INT32, 1, &one, &flag);
  if (st == TABI_OK && work) {
    int *dflag = (int *)tabi_tensor_data(flag);
    st = tc_cuda_status(c, cudaMemsetAsync(dflag, 0, sizeof(int), 0), OPN, "cudaMemsetAsync");
    int T = threads_for(g.R);
    int ez = tcs_esz(g.dt), sz = tcs_esz(g.sdt);
    const char *pa = (const char *)tabi_tensor_data(ac);
    char *pu = (char *)tabi_tensor_data(o[0]), *ps = (char *)tabi_tensor_data(o[1]),
         *pv = (char *)tabi_tensor_data(o[2]);
    for (int64_t b0 = 0; b0 < batch && st == TABI_OK; b0 += chunk) {
      int64_t nb = batch - b0 < chunk ? batch - b0 : chunk;
      TC_LAUNCH_SMEM((unsigned)nb, T, (size_t)T * 4 * sizeof(double), svd_kernel)(
          g, pa + b0 * m * n * ez, (double *)tabi_tensor_data(scratch), dflag, pu + b0 * m * g.ucols * ez,
          ps + b0 * g.k * sz, pv + b0 * g.vrows * n * ez);
      st = tc_launch_status(c, OPN);
    }
    int bad = 0;
    if (st == TABI_OK)
      st = tc_cuda_status(c, cudaMemcpy(&bad, dflag, sizeof(int), cudaMemcpyDeviceToHost), OPN, "cudaMemcpy");
    if (st == TABI_OK && bad) st = ref_linalg_svd_nonfinite(c->h, call);
  }
  tabi_tensor *tmp[3] = {ac, scratch, flag};
  for (int i = 0; i < 3; i++)
    if (tmp[i]) c->h->tensor_release(c->h->ctx, tmp[i]);
  if (st != TABI_OK) {
    for (int i = 0; i < 3; i++)
      if (o[i]) c->h->tensor_release(c->h->ctx, o[i]);
    return st;
  }
  for (int i = 0; i < 3; i++) outs[i] = tabi_tensor_value(o[i]);
  return TABI_OK;
}

TC_KTABLE tc_kernel tc_svd_kernels[] = {
    {"prims::svd", k_svd},
    {NULL, NULL},
};
