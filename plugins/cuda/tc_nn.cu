/* plugins/cuda/tc_nn.cu: _softmax, _log_softmax and native_layer_norm, and
 * the float path of native_layer_norm_backward (tc_ln_bw_rows, for tc_norm.cu).
 *
 * One block per row (softmax: every position of the other dims; layer norm:
 * every leading index). Rows of float32/float16/bfloat16 along the last dim
 * of up to NT*32 elements take the register kernels (tc_rows.cuh: the row
 * in registers, worked on in float); longer softmax rows of those dtypes
 * take two reads in float (softmax_long_kernel). Softmax along another
 * dim, over enough columns, runs a thread per column (coalesced walks down
 * the dim). Longer layer norm rows of those dtypes take three reads in
 * float (ln_long_kernel). Other rows (float64, few columns, bases off 16
 * bytes) read through their stride in double.
 * Block reductions combine partials in a fixed order: deterministic. The
 * argument checks are the reference's own (reference/ref_softmax_check.c,
 * ref_norm_check.c's ref_norm_ln_check), so statuses, messages and the
 * accepted dtypes (layer norm's float32 weight/bias beside a float16/bfloat16
 * input) are its. */
#include "tc_rows.cuh" /* the register kernels, NT, block_reduce */
#include "ref_norm_check.h"
#include "ref_softmax_check.h"

/* softmax_kernel caches a row of up to this many floats in dynamic shared
 * memory: with the block reduction's RV_RED_SH doubles of static, within the
 * 48 KiB a block may have without opting in to more (12096 at NT 512) */
#define CACHE_MAX ((48 * 1024 - RV_RED_SH * (int)sizeof(double)) / (int)sizeof(float))

/* Softmax along a dim with inner elements after it: one thread per column
 * (outer index, inner index) walks down the dim, so the 32 threads of a warp
 * read 32 neighbouring elements at every step (a block per row would read
 * them inner elements apart). The reference's three passes in double: the
 * max, the sum of exp, the output; passes two and three re-read from cache. */
template <int DT>
__global__ void softmax_cols_kernel(const char *x, char *y, int odt, int64_t cols, int64_t len,
                                    int64_t inner, int log_form) {
  const int esz = DT == TABI_DTYPE_FLOAT64 ? 8 : DT == TABI_DTYPE_FLOAT32 ? 4 : 2;
  int osz = tc_dt_size(odt);
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t col = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; col < cols; col += stride) {
    int64_t base = (col / inner) * len * inner + col % inner;
    double mx = -INFINITY, s = 0;
    for (int64_t i = 0; i < len; i++) mx = op_max_nan()(mx, tc_ld_f(x + (base + i * inner) * esz, DT));
    for (int64_t i = 0; i < len; i++) s += exp(tc_ld_f(x + (base + i * inner) * esz, DT) - mx);
    double ls = log(s), inv = 1.0 / s;
    for (int64_t i = 0; i < len; i++) {
      double v = tc_ld_f(x + (base + i * inner) * esz, DT) - mx;
      double o = log_form ? v - ls : exp(v) * inv;
      st_out(y, base + i * inner, odt, osz, o);
    }
  }
}

/* rows = outer * inner; row r starts at (r / inner) * len * inner + r % inner, step inner.
 * With `cache`, the row is read once into shared memory (as float: exact for
 * float32/float16/bfloat16), so global memory is read once and written once. */
template <int DT>
__global__ void __launch_bounds__(NT) softmax_kernel(const char *x, char *y, int odt, int64_t rows,
                                                      int64_t len, int64_t inner, int log_form,
                                                      int cache) {
  TC_SHARED(double, sh, [RV_RED_SH]);
  rv_red rd = {sh, 0};
  TC_SHARED_DYN(float, srow);
  const int esz = DT == TABI_DTYPE_FLOAT64 ? 8 : DT == TABI_DTYPE_FLOAT32 ? 4 : 2;
  int osz = tc_dt_size(odt);
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    int64_t base = (r / inner) * len * inner + r % inner;
    double mx = -INFINITY;
    for (int64_t i = threadIdx.x; i < len; i += NT) {
      double v = tc_ld_f(x + (base + i * inner) * esz, DT);
      if (cache) srow[i] = (float)v;
      mx = op_max_nan()(mx, v);
    }
    mx = block_reduce(mx, rd, op_max_nan());
    double s = 0;
    for (int64_t i = threadIdx.x; i < len; i += NT)
      s += exp((cache ? (double)srow[i] : tc_ld_f(x + (base + i * inner) * esz, DT)) - mx);
    s = block_reduce(s, rd, op_add());
    double ls = log(s), inv = 1.0 / s;
    for (int64_t i = threadIdx.x; i < len; i += NT) {
      double v = (cache ? (double)srow[i] : tc_ld_f(x + (base + i * inner) * esz, DT)) - mx;
      double o = log_form ? v - ls : exp(v) * inv;
      st_out(y, base + i * inner, odt, osz, o);
    }
    __syncthreads(); /* srow is rewritten by the next row */
  }
}

/* Softmax over contiguous rows too long for the register kernels (past
 * NT * MAX_PER: a vocabulary's logits, 32000 to 150000 wide), of float32,
 * float16 or bfloat16: two reads of the row and one write (the strided
 * kernel above reads it three times, in double). The first read keeps a
 * running max m and the float-pair sum of exp(x - m) a thread, rescaled by
 * exp(m_old - m) when a larger value comes (about log(n) times a thread on
 * random data); the block then takes the row's max M, weighs each thread's
 * sum by exp(m - M) and adds them in double; the second read writes the
 * outputs as the register kernels do. Rows start anywhere (row r at r *
 * len): a head of up to VEC - 1 elements is taken one at a time, so every
 * vector after it is VEC-aligned, 16 bytes a load. NaN, inf and all -inf
 * rows come out as the reference's: a NaN or an inf - inf makes the sums
 * NaN; a thread's or a prefix's -inf max adds nothing (its values' exp
 * against any finite max is 0). */
/* The first read: a running max m and the float-pair sum (hi, lo) of
   exp(x - m), taking N values at a time. */
struct sm_sum {
  float m, hi, lo;
  template <int N>
  __device__ __forceinline__ void at(int64_t, const float *v) {
    float vm = v[0];
#pragma unroll
    for (int e = 1; e < N; e++) vm = rv_max_nan(vm, v[e]);
    if (!(vm <= m)) { /* larger, or NaN */
      float nm = rv_max_nan(m, vm);
      float sc = m == -INFINITY ? 0.f : expf(m - nm);
      hi *= sc;
      lo *= sc;
      m = nm;
    }
    if (m != -INFINITY)
#pragma unroll
      for (int e = 0; e < N; e++) rv_acc(hi, lo, expf(v[e] - m));
  }
};

/* The second: N outputs from element i of an output row of odt (DT's own,
   or float32). */
template <int DT>
struct sm_put {
  char *out;
  int odt, log_form;
  float mx, ls, inv;
  template <int N>
  __device__ __forceinline__ void at(int64_t i, float *v) {
    constexpr int SZ = DT == TABI_DTYPE_FLOAT32 ? 4 : 2;
#pragma unroll
    for (int e = 0; e < N; e++) v[e] = log_form ? (v[e] - mx) - ls : expf(v[e] - mx) * inv;
    if (SZ == 4 || odt == TABI_DTYPE_FLOAT32) rv_st<N, 4>(out, TABI_DTYPE_FLOAT32, i, v);
    else rv_st<N, SZ>(out, DT, i, v);
  }
};

/* f.at over a row of len of dtype DT that starts at element e0 of a
   16-byte aligned base: the head one element at a time, then U vectors of
   16 bytes at a time (their loads first), then the tail. */
template <int DT, typename F>
TC_D void sm_walk(const char *row, int64_t e0, int64_t len, F &f) {
  constexpr int SZ = DT == TABI_DTYPE_FLOAT32 ? 4 : 2, VEC = 16 / SZ, U = 2;
  int64_t head = e0 % VEC ? VEC - e0 % VEC : 0;
  if (head > len) head = len;
  int64_t nv = (len - head) / VEC;
  float v[U * VEC];
  for (int64_t i = threadIdx.x; i < head; i += NT) {
    rv_ld<1, SZ>(row, DT, i, v);
    f.template at<1>(i, v);
  }
  for (int64_t k = threadIdx.x; k < nv; k += (int64_t)U * NT) {
#pragma unroll
    for (int u = 0; u < U; u++)
      if (k + (int64_t)u * NT < nv) rv_ld<VEC, SZ>(row, DT, head + (k + (int64_t)u * NT) * VEC, v + u * VEC);
#pragma unroll
    for (int u = 0; u < U; u++)
      if (k + (int64_t)u * NT < nv) f.template at<VEC>(head + (k + (int64_t)u * NT) * VEC, v + u * VEC);
  }
  for (int64_t i = head + nv * VEC + threadIdx.x; i < len; i += NT) {
    rv_ld<1, SZ>(row, DT, i, v);
    f.template at<1>(i, v);
  }
}

template <int DT>
__global__ void __launch_bounds__(NT) softmax_long_kernel(const char *x, char *y, int odt, int64_t rows,
                                                           int64_t len, int log_form) {
  constexpr int SZ = DT == TABI_DTYPE_FLOAT32 ? 4 : 2;
  TC_SHARED(double, sh, [RV_RED_SH]);
  rv_red rd = {sh, 0};
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const char *row = x + r * len * SZ;
    sm_sum a = {-INFINITY, 0, 0};
    sm_walk<DT>(row, r * len, len, a);
    float mx = (float)block_reduce((double)a.m, rd, op_max_nan()); /* a max of floats: exact */
    /* this thread's sum against the row's max (a.m == mx: 1, also for inf) */
    double f = a.m == -INFINITY ? 0.0 : a.m == mx ? 1.0 : (double)expf(a.m - mx);
    double s = block_reduce(((double)a.hi + (double)a.lo) * f, rd, op_add());
    sm_put<DT> p = {y + r * len * tc_dt_size(odt), odt, log_form, mx, (float)log(s), (float)(1.0 / s)};
    sm_walk<DT>(row, r * len, len, p);
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
    int per = inner == 1 && dt != TABI_DTYPE_FLOAT64 ? regs_per_thread(len) : 0;
    const void *ptrs[2] = {xp, yp};
    int vec = per ? rows_vec(len, per, (int)tabi_dtype_size(dt), ptrs, 2) : 1;
    /* columns: enough of them to fill a GPU's threads, wide enough to coalesce */
    int cols = inner >= 8 && rows >= 2048;
    int cache = dt != TABI_DTYPE_FLOAT64 && len <= CACHE_MAX;
    size_t smem = cache ? (size_t)len * sizeof(float) : 0;
    /* past the register kernels: two reads in float, where both rows' bases
       are 16-byte aligned (a contiguous tensor's are) */
    int longrow = inner == 1 && dt != TABI_DTYPE_FLOAT64 && !per && !(((uintptr_t)xp | (uintptr_t)yp) & 15);
    if (per) {
#define SM(D, P, V) TC_LAUNCH(g, NT, softmax_regs_kernel<D, P, V>)(xp, yp, odt, rows, len, log_form)
      REGS_SWITCH(SM, dt, per, vec);
#undef SM
    } else if (longrow) {
      if (dt == TABI_DTYPE_FLOAT32) TC_LAUNCH(g, NT, softmax_long_kernel<TABI_DTYPE_FLOAT32>)(xp, yp, odt, rows, len, log_form);
      else if (dt == TABI_DTYPE_FLOAT16) TC_LAUNCH(g, NT, softmax_long_kernel<TABI_DTYPE_FLOAT16>)(xp, yp, odt, rows, len, log_form);
      else TC_LAUNCH(g, NT, softmax_long_kernel<TABI_DTYPE_BFLOAT16>)(xp, yp, odt, rows, len, log_form);
    } else if (cols) {
      int gc = (int)((rows + 255) / 256 < 65535 * 4 ? (rows + 255) / 256 : 65535 * 4);
#define SC(D) TC_LAUNCH(gc, 256, softmax_cols_kernel<D>)(xp, yp, odt, rows, len, inner, log_form)
      switch (dt) {
        case TABI_DTYPE_FLOAT32: SC(TABI_DTYPE_FLOAT32); break;
        case TABI_DTYPE_FLOAT64: SC(TABI_DTYPE_FLOAT64); break;
        case TABI_DTYPE_FLOAT16: SC(TABI_DTYPE_FLOAT16); break;
        default: SC(TABI_DTYPE_BFLOAT16); break;
      }
#undef SC
    } else switch (dt) {
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

/* Layer norm over contiguous rows too long for the register kernels (past
 * NT * MAX_PER: rare widths, 18432 and up), of float32, float16 or
 * bfloat16: the register kernel's arithmetic over three reads of the row
 * (the float-pair sum for the mean, the centred float-pair sum of squares,
 * the outputs) in 16-byte vectors; a row of 64 KiB or more is read again
 * mostly from L2. ln_kernel read it three times too, element by element,
 * in double. Every row must start on a vector boundary (the launch asks
 * that n be a multiple of the vector and every base 16-byte aligned), so
 * weight and bias load as vectors at the row's own index. A row the float
 * path cannot take (a |value| past RV_LN_LONG_MAX_ABS, NaN or inf, a
 * variance under RV_LN_MIN_VAR, an rstd past RV_LN_MAX_RSTD) starts again in
 * double, as the register kernel's do. The bound on |x| is lower than the
 * register kernel's: a thread here sums n / NT squares, not 32 (at 1e15,
 * 8.5e7 of them stay finite). */
#define RV_LN_LONG_MAX_ABS 1e15f
struct ln_sum { /* the first read: the float-pair sum, and whether every |x| is small */
  float hi, lo;
  bool small;
  template <int N>
  __device__ __forceinline__ void at(int64_t, const float *v) {
#pragma unroll
    for (int e = 0; e < N; e++) {
      rv_acc(hi, lo, v[e]);
      small &= fabsf(v[e]) <= RV_LN_LONG_MAX_ABS; /* not &&: no branch an element */
    }
  }
};
struct ln_sq { /* the second: the float-pair sum of squares about the mean (mh + ml) */
  float mh, ml, hi, lo;
  template <int N>
  __device__ __forceinline__ void at(int64_t, const float *v) {
#pragma unroll
    for (int e = 0; e < N; e++) {
      float d = (v[e] - mh) - ml;
      rv_acc(hi, lo, d * d);
    }
  }
};
template <int DT>
struct ln_put { /* the third: N outputs from element i of the row */
  char *out;
  const char *w, *b;
  int wdt, bdt;
  float mh, ml, rs;
  template <int N>
  __device__ __forceinline__ void at(int64_t i, float *v) {
    constexpr int SZ = DT == TABI_DTYPE_FLOAT32 ? 4 : 2;
    float wv[N] = {}, bv[N] = {};
    if (w) rv_ld_param<DT, N>(w, wdt, i, wv);
    if (b) rv_ld_param<DT, N>(b, bdt, i, bv);
#pragma unroll
    for (int e = 0; e < N; e++) {
      v[e] = ((v[e] - mh) - ml) * rs;
      if (w) v[e] *= wv[e];
      if (b) v[e] += bv[e];
    }
    rv_st<N, SZ>(out, DT, i, v);
  }
};

template <int DT>
/* 64 registers: two blocks an SM (at 1, ptxas takes 77 for bfloat16: one).
   The half types spill 28-32 bytes; without ln_row_dbl's call, 0-8. */
__global__ void __launch_bounds__(NT, 2) ln_long_kernel(LN_REGS_PARAMS) {
  constexpr int SZ = DT == TABI_DTYPE_FLOAT32 ? 4 : 2;
  TC_SHARED(double, sh, [RV_RED_SH]);
  rv_red rd = {sh, 0};
  int ssz = tc_dt_size(sdt);
  for (int64_t r = blockIdx.x; r < m; r += gridDim.x) {
    const char *row = x + r * n * SZ;
    ln_sum a = {0, 0, true};
    sm_walk<DT>(row, r * n, n, a);
    /* a NaN marks the row for the double path (the register kernel's way) */
    double sum = block_reduce(a.small ? (double)a.hi + (double)a.lo : (double)NAN, rd, op_add());
    if (!isnan(sum)) { /* reduced values: the same branch in every thread */
      double mu = sum / (double)n;
      ln_sq q = {(float)mu, (float)(mu - (double)(float)mu), 0, 0};
      sm_walk<DT>(row, r * n, n, q);
      double var = block_reduce((double)q.hi + (double)q.lo, rd, op_add()) / (double)n, rs = 0;
      if (var >= RV_LN_MIN_VAR) rs = tcp_opmath_invstd(var, eps, DT);
      if (var >= RV_LN_MIN_VAR && rs <= RV_LN_MAX_RSTD) {
        ln_put<DT> p = {y + r * n * SZ, w, b, wdt, bdt, q.mh, q.ml, (float)rs};
        sm_walk<DT>(row, r * n, n, p);
        if (threadIdx.x == 0) {
          tc_st_f(mean + r * ssz, sdt, mu);
          tc_st_f(rstd + r * ssz, sdt, rs);
        }
        continue;
      }
    }
    rd.turn = ln_row_dbl<DT>(rd, x, w, wdt, b, bdt, y, mean, rstd, sdt, n, eps, r);
  }
}

/* Layer norm rows the register kernels do not take: in double throughout */
template <int DT>
__global__ void __launch_bounds__(NT) ln_kernel(LN_REGS_PARAMS) {
  TC_SHARED(double, sh, [RV_RED_SH]);
  rv_red rd = {sh, 0};
  for (int64_t r = blockIdx.x; r < m; r += gridDim.x) rd.turn = ln_row_dbl<DT>(rd, x, w, wdt, b, bdt, y, mean, rstd, sdt, n, eps, r);
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
  if (st == TABI_OK && M > 0 && N == 0) {
    /* rows of no element: ATen's mean is 0 (not 0/0), its rstd NaN */
    tabi_value zero = tabi_float(0.0), nan = tabi_float(NAN);
    st = tc_fill(c, OPN, mean, &zero);
    if (st == TABI_OK) st = tc_fill(c, OPN, rstd, &nan);
  } else if (st == TABI_OK && M > 0) {
    int g = M > 65535 * 4 ? 65535 * 4 : (int)M;
    const char *xp = (const char *)tabi_tensor_data(xc);
    const char *wp = wc ? (const char *)tabi_tensor_data(wc) : NULL;
    const char *bp = bc ? (const char *)tabi_tensor_data(bc) : NULL;
    int wdt = wc ? tabi_tensor_dtype(wc) : dt, bdt = bc ? tabi_tensor_dtype(bc) : dt;
    char *yp = (char *)tabi_tensor_data(out), *mp = (char *)tabi_tensor_data(mean),
         *rp = (char *)tabi_tensor_data(rstd);
    int per = dt != TABI_DTYPE_FLOAT64 ? regs_per_thread(N) : 0;
    const void *ptrs[4] = {xp, yp, wp, bp};
    int vec = per ? rows_vec(N, per, (int)tabi_dtype_size(dt), ptrs, 4) : 1;
#define LNR(D, P, V) \
  TC_LAUNCH(g, NT, ln_regs_kernel<D, P, V>)(xp, wp, wdt, bp, bdt, yp, mp, rp, sdt, M, N, eps)
#define LN(D) TC_LAUNCH(g, NT, ln_kernel<D>)(xp, wp, wdt, bp, bdt, yp, mp, rp, sdt, M, N, eps)
#define LNL(D) TC_LAUNCH(g, NT, ln_long_kernel<D>)(xp, wp, wdt, bp, bdt, yp, mp, rp, sdt, M, N, eps)
    /* past the register kernels: ln_long_kernel where every row starts on a
       16-byte boundary */
    int longrow = !per && dt != TABI_DTYPE_FLOAT64 && rows_vec(N, MAX_PER, (int)tabi_dtype_size(dt), ptrs, 4) > 1;
    if (per) REGS_SWITCH(LNR, dt, per, vec)
    else if (longrow) switch (dt) {
      case TABI_DTYPE_FLOAT32: LNL(TABI_DTYPE_FLOAT32); break;
      case TABI_DTYPE_FLOAT16: LNL(TABI_DTYPE_FLOAT16); break;
      default: LNL(TABI_DTYPE_BFLOAT16); break;
    }
    else switch (dt) {
      case TABI_DTYPE_FLOAT32: LN(TABI_DTYPE_FLOAT32); break;
      case TABI_DTYPE_FLOAT64: LN(TABI_DTYPE_FLOAT64); break;
      case TABI_DTYPE_FLOAT16: LN(TABI_DTYPE_FLOAT16); break;
      default: LN(TABI_DTYPE_BFLOAT16); break;
    }
#undef LN
#undef LNL
#undef LNR
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

/* grad_input of a layer norm over rows too long for ln_bw_regs_kernel, of
 * float32, float16 or bfloat16, every row on a 16-byte boundary: two reads
 * of grad_out, x and the weight in 16-byte vectors (s1 = sum(dy w) and s2 =
 * sum(dy w xhat) as float pairs, then the outputs), the register kernel's
 * arithmetic, and its way off to double. The general kernels took a thread
 * an element, in double. */
/* grad_out, x and the weight (1s where there is none) of the VEC elements
   from element j of a row */
template <int DT, int VEC>
TC_D void ln_bw_vec(const char *gr, const char *xr, const char *w, int wdt, int64_t j, float *gv, float *xv,
                    float *wv) {
  constexpr int SZ = DT == TABI_DTYPE_FLOAT32 ? 4 : 2;
  rv_ld<VEC, SZ>(gr, DT, j, gv);
  rv_ld<VEC, SZ>(xr, DT, j, xv);
#pragma unroll
  for (int e = 0; e < VEC; e++) wv[e] = 1.0f;
  if (w) rv_ld_param<DT, VEC>(w, wdt, j, wv);
}
template <int DT>
__global__ void __launch_bounds__(NT, 2) ln_bw_long_kernel(const char *go, const char *x, const char *mean, int mdt,
                                                           const char *rstd, int rdt, const char *w, int wdt,
                                                           char *gi, int64_t m, int64_t n) {
  constexpr int SZ = DT == TABI_DTYPE_FLOAT32 ? 4 : 2, VEC = 16 / SZ;
  TC_SHARED(double, sh, [RV_RED_SH]);
  rv_red rd = {sh, 0};
  for (int64_t r = blockIdx.x; r < m; r += gridDim.x) {
    const char *gr = go + r * n * SZ, *xr = x + r * n * SZ;
    float mu = rv_ld_stat(mean, mdt, r), rs = rv_ld_stat(rstd, rdt, r);
    bool small = fabsf(mu) <= RV_BW_MAX_ABS && fabsf(rs) <= RV_BW_MAX_ABS;
    float h1 = 0, l1 = 0, h2 = 0, l2 = 0;
#pragma unroll 2
    for (int64_t j = (int64_t)threadIdx.x * VEC; j < n; j += (int64_t)NT * VEC) {
      float gv[VEC], xv[VEC], wv[VEC];
      ln_bw_vec<DT, VEC>(gr, xr, w, wdt, j, gv, xv, wv);
#pragma unroll
      for (int e = 0; e < VEC; e++) {
        small &= fabsf(gv[e]) <= RV_BW_MAX_ABS; /* not &&: no branch an element */
        small &= fabsf(xv[e]) <= RV_BW_MAX_ABS;
        small &= fabsf(wv[e]) <= RV_BW_MAX_ABS;
        float d = gv[e] * wv[e];
        rv_acc(h1, l1, d);
        rv_acc(h2, l2, d * ((xv[e] - mu) * rs));
      }
    }
    double st[2] = {small ? (double)h1 + (double)l1 : (double)NAN, (double)h2 + (double)l2};
    block_reduce_n<2>(st, rd, op_add());
    if (isnan(st[0])) { /* the same in every thread */
      rd.turn = ln_bw_row_dbl<DT>(rd, go, x, mean, mdt, rstd, rdt, w, wdt, gi, n, r);
      continue;
    }
    float a = (float)(st[0] / (double)n), c = (float)(st[1] / (double)n);
#pragma unroll 2
    for (int64_t j = (int64_t)threadIdx.x * VEC; j < n; j += (int64_t)NT * VEC) {
      float gv[VEC], xv[VEC], wv[VEC];
      ln_bw_vec<DT, VEC>(gr, xr, w, wdt, j, gv, xv, wv);
#pragma unroll
      for (int e = 0; e < VEC; e++) gv[e] = rs * ((gv[e] * wv[e] - a) - ((xv[e] - mu) * rs) * c);
      rv_st<VEC, SZ>(gi + r * n * SZ, DT, j, gv);
    }
  }
}

/* native_layer_norm_backward's float path (declared in tc.h) */
static int ln_bw_float_dt(int dt) {
  return dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16;
}
int tc_ln_bw_takes(const tc_ln_bw_args *a) {
  if (!ln_bw_float_dt(a->xdt) || a->gdt != a->xdt || !ln_bw_float_dt(a->mdt) || !ln_bw_float_dt(a->rdt) ||
      (a->wdt >= 0 && a->wdt != a->xdt && a->wdt != TABI_DTYPE_FLOAT32) || a->rows <= 0 || a->n <= 0)
    return 0;
  /* past the register kernels, grad_input where every row starts on a
     16-byte boundary (ln_bw_long_kernel) */
  const void *ptrs[4] = {a->go, a->x, a->w, a->gi};
  int lng = rows_vec(a->n, MAX_PER, (int)tabi_dtype_size((tabi_dtype)a->xdt), ptrs, 4) > 1;
  return TC_LNBW_PARAM | (regs_per_thread(a->n) || lng ? TC_LNBW_DX : 0);
}
void tc_ln_bw_rows(const tc_ln_bw_args *a) {
  int takes = tc_ln_bw_takes(a);
  int dt = a->xdt, per = regs_per_thread(a->n);
  if (a->gi && (takes & TC_LNBW_DX) && !per) {
    int g = a->rows > 65535 * 4 ? 65535 * 4 : (int)a->rows;
#define LBL(D)                                                                                             \
  TC_LAUNCH(g, NT, ln_bw_long_kernel<D>)(a->go, a->x, a->mean, a->mdt, a->rstd, a->rdt, a->w, a->wdt, a->gi, \
                                         a->rows, a->n)
    switch (dt) {
      case TABI_DTYPE_FLOAT32: LBL(TABI_DTYPE_FLOAT32); break;
      case TABI_DTYPE_FLOAT16: LBL(TABI_DTYPE_FLOAT16); break;
      default: LBL(TABI_DTYPE_BFLOAT16); break;
    }
#undef LBL
  } else if (a->gi && (takes & TC_LNBW_DX)) {
    const void *ptrs[4] = {a->go, a->x, a->w, a->gi};
    int vec = rows_vec(a->n, per, (int)tabi_dtype_size((tabi_dtype)dt), ptrs, 4);
    int g = a->rows > 65535 * 4 ? 65535 * 4 : (int)a->rows;
#define LBW(D, P, V)                                                                                       \
  TC_LAUNCH(g, NT, ln_bw_regs_kernel<D, P, V>)(a->go, a->x, a->mean, a->mdt, a->rstd, a->rdt, a->w, a->wdt, \
                                               a->gi, a->rows, a->n)
    REGS_SWITCH(LBW, dt, per, vec)
#undef LBW
  }
  if (a->part && a->kp > 1 && (takes & TC_LNBW_PARAM)) {
    /* four columns a thread where n and both rows' bases allow */
    const void *vp[2] = {a->go, a->x};
    int v4 = rows_vec(a->n, 4, (int)tabi_dtype_size((tabi_dtype)dt), vp, 2) == 4;
    int64_t t = a->kp * (v4 ? a->n / 4 : a->n), nb = (t + 255) / 256;
    int g = nb > 65535 * 4 ? 65535 * 4 : (int)nb;
#define LBPV(D, V)                                                                                        \
  TC_LAUNCH(g, 256, ln_bw_param_kernel<D, V>)(a->go, a->x, a->mean, a->mdt, a->rstd, a->rdt, a->rows, a->n, \
                                              a->kp, a->part)
#define LBP(D)       \
  if (v4) LBPV(D, 4); \
  else LBPV(D, 1);
    switch (dt) {
      case TABI_DTYPE_FLOAT32: LBP(TABI_DTYPE_FLOAT32); break;
      case TABI_DTYPE_FLOAT16: LBP(TABI_DTYPE_FLOAT16); break;
      default: LBP(TABI_DTYPE_BFLOAT16); break;
    }
#undef LBPV
#undef LBP
  }
}

TC_KTABLE tc_kernel tc_nn_kernels[] = {
    {"aten::_softmax", k_softmax},
    {"aten::_log_softmax", k_log_softmax},
    {"aten::native_layer_norm", k_layer_norm},
    {NULL, NULL}};
