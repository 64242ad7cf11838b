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
    case TABI_DTYPE_FLOAT32: rc_igemm<TABI_DTYPE_FLOAT32, conv_args><<<grid, RG_NT>>>(a); break;
    case TABI_DTYPE_FLOAT64: rc_igemm<TABI_DTYPE_FLOAT64, conv_args><<<grid, RG_NT>>>(a); break;
    case TABI_DTYPE_FLOAT16: rc_igemm<TABI_DTYPE_FLOAT16, conv_args><<<grid, RG_NT>>>(a); break;
    default: rc_igemm<TABI_DTYPE_BFLOAT16, conv_args><<<grid, RG_NT>>>(a); break;
  }
  return tc_launch_status(c, op);
}

#endif /* TABI_ROCM_CONV_CUH */
