/* plugins/cuda/tc_nn.cu: _softmax, _log_softmax and native_layer_norm.
 *
 * One block per row (softmax: every position of the other dims; layer norm:
 * every leading index), reading the row through its stride, accumulating in
 * double like the reference and rounding once at the store. Block reductions
 * combine partials in a fixed order: deterministic. The argument checks are
 * the reference's own (reference/ref_softmax_check.c, ref_norm_check.c's
 * ref_norm_ln_check), so statuses, messages and the accepted dtypes (layer
 * norm's float32 weight/bias beside a float16/bfloat16 input) are its. */
#include "tc_ew_dev.cuh"
#include "ref_norm_check.h"
#include "ref_softmax_check.h"

#define NT 512

template <typename T>
__device__ T block_sum(T v, T *sh) {
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = NT / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  T r = sh[0];
  __syncthreads();
  return r;
}

__device__ double block_max_nan(double v, double *sh) {
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = NT / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      double a = sh[threadIdx.x], b = sh[threadIdx.x + s];
      sh[threadIdx.x] = isnan(a) ? a : isnan(b) ? b : (b > a ? b : a);
    }
    __syncthreads();
  }
  double r = sh[0];
  __syncthreads();
  return r;
}

/* rows = outer * inner; row r starts at (r / inner) * len * inner + r % inner, step inner.
 * With `cache`, the row is read once into shared memory (as float: exact for
 * float32/float16/bfloat16), so global memory is read once and written once. */
template <int DT>
__global__ void __launch_bounds__(NT) softmax_kernel(const char *x, char *y, int odt, int64_t rows,
                                                      int64_t len, int64_t inner, int log_form,
                                                      int cache) {
  __shared__ double sh[NT];
  TC_SHARED_DYN(float, srow);
  const int esz = DT == TABI_DTYPE_FLOAT64 ? 8 : DT == TABI_DTYPE_FLOAT32 ? 4 : 2;
  int osz = tc_dt_size(odt);
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    int64_t base = (r / inner) * len * inner + r % inner;
    double mx = -INFINITY;
    for (int64_t i = threadIdx.x; i < len; i += NT) {
      double v = tc_ld_f(x + (base + i * inner) * esz, DT);
      if (cache) srow[i] = (float)v;
      if (v > mx || isnan(v)) mx = isnan(mx) ? mx : v;
    }
    mx = block_max_nan(mx, sh);
    double s = 0;
    for (int64_t i = threadIdx.x; i < len; i += NT)
      s += exp((cache ? (double)srow[i] : tc_ld_f(x + (base + i * inner) * esz, DT)) - mx);
    s = block_sum<double>(s, sh);
    double ls = log(s), inv = 1.0 / s;
    for (int64_t i = threadIdx.x; i < len; i += NT) {
      double v = (cache ? (double)srow[i] : tc_ld_f(x + (base + i * inner) * esz, DT)) - mx;
      double o = log_form ? v - ls : exp(v) * inv;
      if (odt == TABI_DTYPE_FLOAT32) ((float *)y)[base + i * inner] = (float)o;
      else tc_st_f(y + (base + i * inner) * osz, odt, o);
    }
    __syncthreads();
  }
}

static tabi_status softmax(TC_ARGS, int log_form) {
  TC_CTX;
  tabi_tensor *x = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x), odt;
  int32_t d;
  tabi_status st = ref_softmax_check(c->h, call, args, &d, &odt);
  if (st != TABI_OK) return st;
  if ((st = tc_check_cuda(c, x, OPN, "self")) || (st = tc_use_device(c, x, OPN))) return st;
  tabi_tensor *xc = NULL, *out = NULL;
  if ((st = tc_contiguous(c, OPN, x, &xc)) != TABI_OK) return st;
  st = tc_empty(c, x->dl.device, odt, x->dl.ndim, x->dl.shape, &out);
  int64_t len = x->dl.ndim ? x->dl.shape[d] : 1, inner = 1, outer = 1;
  for (int32_t i = 0; i < x->dl.ndim; i++) {
    if (i < d) outer *= x->dl.shape[i];
    if (i > d) inner *= x->dl.shape[i];
  }
  int64_t rows = outer * inner;
  if (st == TABI_OK && rows > 0 && len > 0) {
    int g = rows > 65535 * 4 ? 65535 * 4 : (int)rows;
    const char *xp = (const char *)tabi_tensor_data(xc);
    char *yp = (char *)tabi_tensor_data(out);
    int cache = dt != TABI_DTYPE_FLOAT64 && len <= 12288;
    size_t smem = cache ? (size_t)len * sizeof(float) : 0;
    switch (dt) {
      case TABI_DTYPE_FLOAT32: TC_LAUNCH_SMEM(g, NT, smem, softmax_kernel<TABI_DTYPE_FLOAT32>)(xp, yp, odt, rows, len, inner, log_form, cache); break;
      case TABI_DTYPE_FLOAT64: TC_LAUNCH_SMEM(g, NT, smem, softmax_kernel<TABI_DTYPE_FLOAT64>)(xp, yp, odt, rows, len, inner, log_form, cache); break;
      case TABI_DTYPE_FLOAT16: TC_LAUNCH_SMEM(g, NT, smem, softmax_kernel<TABI_DTYPE_FLOAT16>)(xp, yp, odt, rows, len, inner, log_form, cache); break;
      default: TC_LAUNCH_SMEM(g, NT, smem, softmax_kernel<TABI_DTYPE_BFLOAT16>)(xp, yp, odt, rows, len, inner, log_form, cache); break;
    }
    st = tc_launch_status(c, OPN);
  }
  c->h->tensor_release(c->h->ctx, xc);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, out);
    return st;
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}
static tabi_status k_softmax(TC_ARGS) { return softmax(ctx, call, args, outs, 0); }
static tabi_status k_log_softmax(TC_ARGS) { return softmax(ctx, call, args, outs, 1); }

template <int DT>
__global__ void __launch_bounds__(NT) ln_kernel(const char *x, const char *w, int wdt, const char *b,
                                                 int bdt, char *y, char *mean, char *rstd, int sdt,
                                                 int64_t m, int64_t n, double eps, int cache) {
  __shared__ double sh[NT];
  TC_SHARED_DYN(float, srow);
  const int esz = DT == TABI_DTYPE_FLOAT64 ? 8 : DT == TABI_DTYPE_FLOAT32 ? 4 : 2;
  int wsz = tc_dt_size(wdt), bsz = tc_dt_size(bdt), ssz = tc_dt_size(sdt);
  for (int64_t r = blockIdx.x; r < m; r += gridDim.x) {
    const char *row = x + r * n * esz;
    double s = 0;
    for (int64_t j = threadIdx.x; j < n; j += NT) {
      double v = tc_ld_f(row + j * esz, DT);
      if (cache) srow[j] = (float)v;
      s += v;
    }
    double mu = block_sum<double>(s, sh) / (double)n;
    double v = 0;
    for (int64_t j = threadIdx.x; j < n; j += NT) {
      double dv = (cache ? (double)srow[j] : tc_ld_f(row + j * esz, DT)) - mu;
      v += dv * dv;
    }
    double rs = 1 / sqrt(block_sum<double>(v, sh) / (double)n + eps);
    for (int64_t j = threadIdx.x; j < n; j += NT) {
      double o = ((cache ? (double)srow[j] : tc_ld_f(row + j * esz, DT)) - mu) * rs;
      if (w) o *= tc_ld_f(w + j * wsz, wdt);
      if (b) o += tc_ld_f(b + j * bsz, bdt);
      if (DT == TABI_DTYPE_FLOAT32) ((float *)y)[r * n + j] = (float)o;
      else tc_st_f(y + (r * n + j) * esz, DT, o);
    }
    if (threadIdx.x == 0) {
      tc_st_f(mean + r * ssz, sdt, mu);
      tc_st_f(rstd + r * ssz, sdt, rs);
    }
    __syncthreads();
  }
}

static tabi_status k_layer_norm(TC_ARGS) {
  TC_CTX;
  tabi_tensor *x = args[0].u.t;
  tabi_tensor *w = args[2].tag == TABI_TAG_TENSOR ? args[2].u.t : NULL;
  tabi_tensor *b = args[3].tag == TABI_TAG_TENSOR ? args[3].u.t : NULL;
  double eps = args[4].u.f;
  tabi_dtype dt = tabi_tensor_dtype(x);
  ref_norm_dims nd;
  tabi_status st = ref_norm_ln_check(c->h, call, args, &nd);
  if (st != TABI_OK) return st;
  /* weight and bias are read through their own dtypes (the input's, or float32
   * beside a float16/bfloat16 input: then the statistics are float32) */
  tabi_dtype sdt = (tabi_dtype)nd.sdt;
  if ((st = tc_check_cuda(c, x, OPN, "input")) || (w && (st = tc_check_cuda(c, w, OPN, "weight"))) ||
      (b && (st = tc_check_cuda(c, b, OPN, "bias"))) || (st = tc_use_device(c, x, OPN)))
    return st;
  int32_t axis = x->dl.ndim - nd.pnd;
  int64_t M = nd.rows, N = nd.cnt, sshape[TC_MAX_DIMS];
  for (int32_t i = 0; i < x->dl.ndim; i++) sshape[i] = i < axis ? x->dl.shape[i] : 1;
  tabi_tensor *xc = NULL, *wc = NULL, *bc = NULL, *out = NULL, *mean = NULL, *rstd = NULL;
  st = tc_contiguous(c, OPN, x, &xc);
  if (st == TABI_OK && w) st = tc_contiguous(c, OPN, w, &wc);
  if (st == TABI_OK && b) st = tc_contiguous(c, OPN, b, &bc);
  if (st == TABI_OK) st = tc_empty(c, x->dl.device, dt, x->dl.ndim, x->dl.shape, &out);
  if (st == TABI_OK) st = tc_empty(c, x->dl.device, sdt, x->dl.ndim, sshape, &mean);
  if (st == TABI_OK) st = tc_empty(c, x->dl.device, sdt, x->dl.ndim, sshape, &rstd);
  if (st == TABI_OK && M > 0) {
    int g = M > 65535 * 4 ? 65535 * 4 : (int)M;
    const char *xp = (const char *)tabi_tensor_data(xc);
    const char *wp = wc ? (const char *)tabi_tensor_data(wc) : NULL;
    const char *bp = bc ? (const char *)tabi_tensor_data(bc) : NULL;
    int wdt = wc ? tabi_tensor_dtype(wc) : dt, bdt = bc ? tabi_tensor_dtype(bc) : dt;
    char *yp = (char *)tabi_tensor_data(out), *mp = (char *)tabi_tensor_data(mean),
         *rp = (char *)tabi_tensor_data(rstd);
    int cache = dt != TABI_DTYPE_FLOAT64 && N <= 12288;
    size_t smem = cache ? (size_t)N * sizeof(float) : 0;
#define LN(D) TC_LAUNCH_SMEM(g, NT, smem, ln_kernel<D>)(xp, wp, wdt, bp, bdt, yp, mp, rp, sdt, M, N, eps, cache)
    switch (dt) {
      case TABI_DTYPE_FLOAT32: LN(TABI_DTYPE_FLOAT32); break;
      case TABI_DTYPE_FLOAT64: LN(TABI_DTYPE_FLOAT64); break;
      case TABI_DTYPE_FLOAT16: LN(TABI_DTYPE_FLOAT16); break;
      default: LN(TABI_DTYPE_BFLOAT16); break;
    }
#undef LN
    st = tc_launch_status(c, OPN);
  }
  c->h->tensor_release(c->h->ctx, xc);
  c->h->tensor_release(c->h->ctx, wc);
  c->h->tensor_release(c->h->ctx, bc);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, out);
    c->h->tensor_release(c->h->ctx, mean);
    c->h->tensor_release(c->h->ctx, rstd);
    return st;
  }
  outs[0] = tabi_tensor_value(out);
  outs[1] = tabi_tensor_value(mean);
  outs[2] = tabi_tensor_value(rstd);
  return TABI_OK;
}

TC_KTABLE tc_kernel tc_nn_kernels[] = {
    {"aten::_softmax", k_softmax},
    {"aten::_log_softmax", k_log_softmax},
    {"aten::native_layer_norm", k_layer_norm},
    {NULL, NULL}};
