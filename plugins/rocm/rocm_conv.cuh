/* plugins/rocm/rocm_conv.cuh: the ROCm plugin's fast 2-D convolution, an
 * implicit GEMM on the tiled kernel's scheme (rocm_gemm.cuh). Included by the
 * shared plugins/cuda/tc_conv.cu under hipcc where the CUDA plugin calls
 * cuDNN; every other case (transposed, 1-D/3-D, integers, small problems)
 * takes the shared direct kernel, which passed conformance on the H100.
 *
 * Per group, a GEMM of [N*OH*OW, C/g*KH*KW] (the input gathered on the fly,
 * zero outside the padding) by [C/g*KH*KW, K/g] (the weight) into the output;
 * any strides, no im2col buffer, the group in blockIdx.z. Accumulates in
 * float (double for float64) and rounds once at the store. Small problems of
 * half types stay on the direct kernel (once-rounded double sum), as the CUDA
 * plugin does with cuDNN, so results match the reference bit for bit there.
 * MIOpen, when installed, is only detected (rocm_dl.h): not wired yet.
 * NOT YET RUN ON AMD HARDWARE. */
#ifndef TABI_ROCM_CONV_CUH
#define TABI_ROCM_CONV_CUH

#include "rocm_tile.cuh"

template <int DT>
__global__ void __launch_bounds__(RG_NT) rc_igemm(const conv_args a) {
  typedef rg_io<DT> io;
  typedef typename io::acc A;
  __shared__ A xs[RG_BK][RG_BM + 1];
  __shared__ A ws[RG_BK][RG_BN + 1];
  const conv_geom &g = a.g;
  const int t = threadIdx.x, tx = t % 16, ty = t / 16;
  const int64_t lpg = g.cl / g.groups, hpg = g.ch / g.groups, gi = blockIdx.z;
  const int64_t oh_n = a.oshape[2], ow_n = a.oshape[3], kh_n = g.k[0], kw_n = g.k[1];
  const int64_t rows = g.n * oh_n * ow_n, kdim = hpg * kh_n * kw_n, khw = kh_n * kw_n;
  const int64_t c0 = (int64_t)blockIdx.x * RG_BN;
  for (int64_t r0 = (int64_t)blockIdx.y * RG_BM; r0 < rows; r0 += (int64_t)gridDim.y * RG_BM) {
    A acc[4][4];
#pragma unroll
    for (int u = 0; u < 4; u++)
#pragma unroll
      for (int v = 0; v < 4; v++) acc[u][v] = 0;
    for (int64_t k0 = 0; k0 < kdim; k0 += RG_BK) {
      for (int e = t; e < RG_BM * RG_BK; e += RG_NT) {
        int rr = e / RG_BK, kk = e % RG_BK;
        int64_t r = r0 + rr, k = k0 + kk;
        A x = 0;
        if (r < rows && k < kdim) {
          int64_t ow = r % ow_n, oh = (r / ow_n) % oh_n, nb = r / (ow_n * oh_n);
          int64_t ic = k / khw, kh = (k / kw_n) % kh_n, kw = k % kw_n;
          int64_t ih = oh * g.s[0] - g.p[0] + kh * g.d[0], iw = ow * g.s[1] - g.p[1] + kw * g.d[1];
          if (ih >= 0 && ih < g.hsp[0] && iw >= 0 && iw < g.hsp[1])
            x = (A)io::ld(a.in, nb * a.ist[0] + (gi * hpg + ic) * a.ist[1] + ih * a.ist[2] + iw * a.ist[3]);
        }
        xs[kk][rr] = x;
      }
      for (int e = t; e < RG_BK * RG_BN; e += RG_NT) {
        int kk = e / RG_BN, cc = e % RG_BN;
        int64_t k = k0 + kk, col = c0 + cc;
        A w = 0;
        if (k < kdim && col < lpg) {
          int64_t ic = k / khw, kh = (k / kw_n) % kh_n, kw = k % kw_n;
          w = (A)io::ld(a.w, (gi * lpg + col) * a.wst[0] + ic * a.wst[1] + kh * a.wst[2] + kw * a.wst[3]);
        }
        ws[kk][cc] = w;
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < RG_BK; kk++) {
        A xv[4], wv[4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
          xv[u] = xs[kk][ty + 16 * u];
          wv[u] = ws[kk][tx + 16 * u];
        }
#pragma unroll
        for (int u = 0; u < 4; u++)
#pragma unroll
          for (int v = 0; v < 4; v++) acc[u][v] += xv[u] * wv[v];
      }
      __syncthreads();
    }
#pragma unroll
    for (int u = 0; u < 4; u++) {
      int64_t r = r0 + ty + 16 * u;
      if (r >= rows) continue;
      int64_t ow = r % ow_n, oh = (r / ow_n) % oh_n, nb = r / (ow_n * oh_n);
#pragma unroll
      for (int v = 0; v < 4; v++) {
        int64_t col = c0 + tx + 16 * v;
        if (col >= lpg) continue;
        int64_t oc = gi * lpg + col;
        A x = acc[u][v];
        if (a.b) x += (A)io::ld(a.b, oc * a.bst);
        io::st(a.out, nb * a.ost[0] + oc * a.ost[1] + oh * a.ost[2] + ow * a.ost[3], x);
      }
    }
  }
}

/* *done = 1 when the implicit GEMM ran (or failed with a status). */
static tabi_status rocm_conv(tc_ctx *c, const char *op, const tabi_tensor *in, const tabi_tensor *w,
                             const tabi_tensor *bias, const conv_geom *g, int32_t ns, int transposed,
                             tabi_tensor *out, int *done) {
  *done = 0;
  tabi_dtype dt = tabi_tensor_dtype(in);
  int64_t total = tabi_tensor_numel(out);
  double work = (double)total * (double)(g->ch / g->groups) * (double)(g->k[0] * g->k[1]);
  int half = dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16;
  if (ns != 2 || transposed || total == 0 || tabi_tensor_numel(in) == 0 || g->k[0] < 1 ||
      g->k[1] < 1 || (half && work < 16777216.0) || g->groups > 65535 ||
      (dt != TABI_DTYPE_FLOAT32 && dt != TABI_DTYPE_FLOAT64 && !half))
    return TABI_OK;
  conv_args a;
  memset(&a, 0, sizeof a);
  a.g = *g;
  a.ns = ns;
  a.dt = dt;
  a.in = (const char *)tabi_tensor_data(in);
  a.w = (const char *)tabi_tensor_data(w);
  a.b = bias ? (const char *)tabi_tensor_data(bias) : NULL;
  a.bst = bias ? bias->dl.strides[0] : 0;
  a.out = (char *)tabi_tensor_data(out);
  for (int32_t i = 0; i < 4; i++) {
    a.ist[i] = in->dl.strides[i];
    a.wst[i] = w->dl.strides[i];
    a.ost[i] = out->dl.strides[i];
    a.oshape[i] = out->dl.shape[i];
  }
  a.total = total;
  int64_t rows = g->n * a.oshape[2] * a.oshape[3], lpg = g->cl / g->groups;
  int64_t gx = (lpg + RG_BN - 1) / RG_BN, gy = (rows + RG_BM - 1) / RG_BM;
  if (gx > INT32_MAX) return TABI_OK;
  *done = 1;
  dim3 grid((unsigned)gx, (unsigned)(gy > 65535 ? 65535 : gy), (unsigned)g->groups);
  switch (dt) {
    case TABI_DTYPE_FLOAT32: rc_igemm<TABI_DTYPE_FLOAT32><<<grid, RG_NT>>>(a); break;
    case TABI_DTYPE_FLOAT64: rc_igemm<TABI_DTYPE_FLOAT64><<<grid, RG_NT>>>(a); break;
    case TABI_DTYPE_FLOAT16: rc_igemm<TABI_DTYPE_FLOAT16><<<grid, RG_NT>>>(a); break;
    default: rc_igemm<TABI_DTYPE_BFLOAT16><<<grid, RG_NT>>>(a); break;
  }
  return tc_launch_status(c, op);
}

#endif /* TABI_ROCM_CONV_CUH */
