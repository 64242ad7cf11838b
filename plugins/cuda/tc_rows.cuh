/* plugins/cuda/tc_rows.cuh: the register kernels of _softmax, _log_softmax
 * and native_layer_norm (tc_nn.cu), over contiguous rows of float32, float16
 * or bfloat16 of up to NT * MAX_PER elements, one block a row; and the float
 * kernels of native_layer_norm_backward (tc_ln_bw_rows, at the end).
 *
 * Every thread loads its PER elements of the row at once, VEC neighbours a
 * load (16 bytes where the row's length and the pointers allow), keeps them
 * in registers, and works on them in float: a thread's partial sum is a
 * float pair (rv_acc, twice float's precision), turned into double once for
 * the block's reduction. The first version of these kernels worked in
 * double, which costs a conversion each way per element (a quarter of
 * float's rate on an H100/H200) and the registers of a double per value:
 * 74 (softmax) and 110 (layer norm) registers a thread at NT 512, one block
 * an SM, so the SM idled at every block's reductions (0.60x and 0.65x
 * PyTorch on 8192 x 8192 on an H200, 2026-11-30).
 *
 * Float is exact where it matters: the max, the padding, the conversions of
 * the three dtypes. What rounds: expf (2 ulp), the float pair's sums
 * (relative 2^-44), and two or three float roundings of each output, all
 * far inside float32's 1.3e-6 (the reference rounds once from double).
 * Layer norm centres each value on the mean split into two floats, so data
 * with a large mean keep their precision. Its float path is taken where no
 * value can overflow a float sum or square (every |x| <= 1e18), the
 * variance is not so small that its float squares lose bits (>= 1e-30),
 * and rstd <= 1e18; other rows start again in double (ln_row_dbl).
 * Those tests are uniform across a block, so every thread takes the same
 * path and its reductions. */
#ifndef TABI_TC_ROWS_CUH
#define TABI_TC_ROWS_CUH

#include "tc_ew_dev.cuh"
#include "tc_pad_up.cuh" /* tcp_opmath_invstd */

#define NT 512
#define MAX_PER 32 /* register kernels: rows of up to NT * MAX_PER elements */
#define RV_LN_MAX_ABS 1e18f /* float path: |d|^2 * 32 terms stays finite */
#define RV_LN_MIN_VAR 1e-30
#define RV_LN_MAX_RSTD 1e18

struct op_add {
  __device__ double operator()(double a, double b) const { return a + b; }
};
struct op_max_nan { /* NaN wins, as in the reference */
  __device__ double operator()(double a, double b) const {
    return isnan(a) ? a : isnan(b) ? b : (b > a ? b : a);
  }
};

/* Block reductions: N values a thread (N <= RV_RED_MAX) become the same N
 * results in every thread of the block. Each warp folds its lanes by an xor
 * butterfly of shuffles (no shared memory, no barrier), lane 0 of each warp
 * writes the warp's results, and after one barrier every thread folds the
 * warps' results in warp order. The order is fixed, so the result is too.
 * (The first version folded NT partials through shared memory: three
 * barriers and 48 dependent shared loads a reduction.)
 *
 * The shared memory is two buffers used in turn: a reduction writes the
 * buffer the one before last read, and every thread has passed the barrier
 * of the reduction in between, so none waits at a second barrier before
 * the next reduction may write. Every thread of a block must therefore make
 * the same reductions in the same order (the kernels' branches between them
 * are uniform across the block). */
#define RV_RED_MAX 2           /* values a reduction at most */
#define RV_RED_WARPS (NT / 32) /* warps a block at most (32 lanes; 64-lane warps are fewer) */
#define RV_RED_SH (2 * RV_RED_MAX * RV_RED_WARPS) /* doubles of shared memory */
struct rv_red {
  double *sh; /* RV_RED_SH doubles of shared memory */
  int turn;   /* the buffer the next reduction writes */
};

template <int N, typename Op>
__device__ void block_reduce_n(double *v, rv_red &rd, Op op) {
  static_assert(N >= 1 && N <= RV_RED_MAX, "block_reduce_n: 1 to RV_RED_MAX values");
  const int w = TC_WARP;
  for (int o = w / 2; o > 0; o >>= 1)
#pragma unroll
    for (int q = 0; q < N; q++) v[q] = op(v[q], TC_SHFL_XOR(v[q], o));
  double *s = rd.sh + rd.turn * (RV_RED_MAX * RV_RED_WARPS);
  rd.turn ^= 1;
  if (threadIdx.x % w == 0)
#pragma unroll
    for (int q = 0; q < N; q++) s[q * RV_RED_WARPS + threadIdx.x / w] = v[q];
  __syncthreads();
  const int nw = NT / w;
#pragma unroll
  for (int q = 0; q < N; q++) {
    double r = s[q * RV_RED_WARPS];
    /* four loads ahead, not all: fully unrolled, the loads of every warp's
       results were hoisted into registers (32 for two values), and layer
       norm's backward spilled 152 bytes at 64 registers */
#pragma unroll 4
    for (int j = 1; j < nw; j++) r = op(r, s[q * RV_RED_WARPS + j]);
    v[q] = r;
  }
}
template <typename Op>
__device__ double block_reduce(double v, rv_red &rd, Op op) {
  block_reduce_n<1>(&v, rd, op);
  return v;
}

/* Element i of an output of dtype odt (osz bytes an element), rounded once
 * from double; float32, the common case, without tc_st_f's dtype switch. */
__device__ __forceinline__ void st_out(char *y, int64_t i, int odt, int osz, double o) {
  if (odt == TABI_DTYPE_FLOAT32) ((float *)y)[i] = (float)o;
  else tc_st_f(y + i * osz, odt, o);
}

/* The elements per thread for a register kernel over rows of len, or 0 when
 * the row is too long for one. */
static int regs_per_thread(int64_t len) {
  return len <= NT ? 1 : len <= 4 * NT ? 4 : len <= 16 * NT ? 16 : len <= MAX_PER * NT ? MAX_PER : 0;
}
/* The blocks of NT an SM a register kernel asks ptxas to make room for
 * (__launch_bounds__' second argument: registers a thread <= 64K / (NT b)):
 * b for rows of up to 16 NT, where what a thread keeps fits; 1 for longer
 * ones, whose 32 values a thread would spill. Left alone, ptxas may take up
 * to 128 registers (sm_90): one block an SM, idle while that block reduces.
 * Softmax asks for 3 (40 registers at 16 a thread), layer norm and its
 * backward 2 (64). hipcc reads the second argument as waves an execution
 * unit, a weaker ask of the same kind. */
#define RV_MIN_BLOCKS(PER, b) ((PER) <= 16 ? (b) : 1)
/* Elements a vector for PER a thread of esz bytes: 16 bytes, at most PER. */
static constexpr int rv_vec_of(int esz, int per) { return 16 / esz < per ? 16 / esz : per; }
/* The vector a launch may take: rv_vec_of, where len is a multiple of it and
 * every pointer 16-byte aligned (a row then starts on a vector boundary);
 * else 1, element by element. */
static int rows_vec(int64_t len, int per, int esz, const void *const *p, int np) {
  int vec = per == 1 ? 1 : rv_vec_of(esz, per);
  if (len % vec) return 1;
  for (int i = 0; i < np; i++)
    if (p[i] && ((uintptr_t)p[i] & 15)) return 1;
  return vec;
}

/* L(dtype, per, vec) for dt one of float32/float16/bfloat16, per from
 * regs_per_thread, vec from rows_vec. */
#define RV_VEC(L, D, P, vec)                                              \
  do {                                                                    \
    if (vec > 1) L(D, P, rv_vec_of(D == TABI_DTYPE_FLOAT32 ? 4 : 2, P));  \
    else L(D, P, 1);                                                      \
  } while (0)
#define REGS_PER(L, D, per, vec)                  \
  switch (per) {                                  \
    case 1: L(D, 1, 1); break;                    \
    case 4: RV_VEC(L, D, 4, vec); break;          \
    case 16: RV_VEC(L, D, 16, vec); break;        \
    default: RV_VEC(L, D, MAX_PER, vec); break;   \
  }
#define REGS_SWITCH(L, dt, per, vec)                                             \
  switch (dt) {                                                                  \
    case TABI_DTYPE_FLOAT32: REGS_PER(L, TABI_DTYPE_FLOAT32, per, vec); break;   \
    case TABI_DTYPE_FLOAT16: REGS_PER(L, TABI_DTYPE_FLOAT16, per, vec); break;   \
    default: REGS_PER(L, TABI_DTYPE_BFLOAT16, per, vec); break;                  \
  }

/* BYTES (2, or a multiple of 4) from p to words w, in loads of up to 16 */
template <int BYTES>
TC_D void rv_in(const char *p, uint32_t *w) {
  if constexpr (BYTES == 2) {
    w[0] = *(const uint16_t *)p;
  } else {
    constexpr int C = BYTES < 16 ? BYTES : 16;
#pragma unroll
    for (int c = 0; c < BYTES / C; c++) {
      tc_ew_words<C / 4> q = ((const tc_ew_words<C / 4> *)p)[c];
#pragma unroll
      for (int j = 0; j < C / 4; j++) w[c * (C / 4) + j] = q.w[j];
    }
  }
}
template <int BYTES>
TC_D void rv_out(char *p, const uint32_t *w) {
  if constexpr (BYTES == 2) {
    *(uint16_t *)p = (uint16_t)w[0];
  } else {
    constexpr int C = BYTES < 16 ? BYTES : 16;
#pragma unroll
    for (int c = 0; c < BYTES / C; c++) {
      tc_ew_words<C / 4> q;
#pragma unroll
      for (int j = 0; j < C / 4; j++) q.w[j] = w[c * (C / 4) + j];
      ((tc_ew_words<C / 4> *)p)[c] = q;
    }
  }
}
/* VEC elements from element i of p, of dtype dt (SZ bytes: float32, or
 * float16/bfloat16), as floats: exact. */
template <int VEC, int SZ>
TC_D void rv_ld(const char *p, int dt, int64_t i, float *o) {
  uint32_t w[(VEC * SZ + 3) / 4];
  rv_in<VEC * SZ>(p + i * SZ, w);
#pragma unroll
  for (int e = 0; e < VEC; e++) {
    if constexpr (SZ == 4) {
      o[e] = tabi_bits_f32(w[e]);
    } else {
      uint16_t b = (uint16_t)(w[e >> 1] >> (16 * (e & 1)));
      o[e] = dt == TABI_DTYPE_FLOAT16 ? tc_h2f(b) : tabi_bf16_to_f32(b);
    }
  }
}
/* VEC floats rounded to dtype dt (SZ bytes) at element i of p */
template <int VEC, int SZ>
TC_D void rv_st(char *p, int dt, int64_t i, const float *o) {
  uint32_t w[(VEC * SZ + 3) / 4];
#pragma unroll
  for (int e = 0; e < VEC; e++) {
    if constexpr (SZ == 4) {
      w[e] = tabi_f32_bits(o[e]);
    } else {
      uint32_t b = dt == TABI_DTYPE_FLOAT16 ? tc_f2h(o[e]) : tabi_f32_to_bf16(o[e]);
      if (e & 1) w[e >> 1] |= b << 16;
      else w[e >> 1] = b;
    }
  }
  rv_out<VEC * SZ>(p + i * SZ, w);
}

/* Thread t's k-th vector of a row is elements (k NT + t) VEC to + VEC - 1:
 * each load instruction of a warp reads 32 neighbouring vectors. */
template <int VEC>
TC_D int64_t rv_at(int k) {
  return ((int64_t)k * NT + threadIdx.x) * VEC;
}
/* A thread's PER elements of a row of len of dtype DT (past the row: pad) */
template <int DT, int PER, int VEC>
TC_D void rv_load_row(const char *row, int64_t len, float pad, float *v) {
  constexpr int SZ = DT == TABI_DTYPE_FLOAT32 ? 4 : 2;
#pragma unroll
  for (int k = 0; k < PER / VEC; k++) {
    if (rv_at<VEC>(k) < len) {
      rv_ld<VEC, SZ>(row, DT, rv_at<VEC>(k), v + k * VEC);
    } else {
#pragma unroll
      for (int e = 0; e < VEC; e++) v[k * VEC + e] = pad;
    }
  }
}
/* ... and back, to an output row of dtype odt: DT's own, or float32 */
template <int DT, int PER, int VEC>
TC_D void rv_store_row(char *row, int odt, int64_t len, const float *v) {
  constexpr int SZ = DT == TABI_DTYPE_FLOAT32 ? 4 : 2;
#pragma unroll
  for (int k = 0; k < PER / VEC; k++) {
    if (rv_at<VEC>(k) >= len) continue;
    if (SZ == 4 || odt == TABI_DTYPE_FLOAT32) rv_st<VEC, 4>(row, TABI_DTYPE_FLOAT32, rv_at<VEC>(k), v + k * VEC);
    else rv_st<VEC, SZ>(row, DT, rv_at<VEC>(k), v + k * VEC);
  }
}

/* hi + lo += b, the rounding error of the float sum kept in lo (Knuth's
 * two-sum, exact for any order of magnitudes; no FMA contraction applies) */
TC_D void rv_acc(float &hi, float &lo, float b) {
  float s = hi + b, bb = s - hi;
  lo += (hi - (s - bb)) + (b - bb);
  hi = s;
}
TC_D float rv_max_nan(float a, float b) { return isnan(a) ? a : isnan(b) ? b : (b > a ? b : a); }

/* Softmax (log_form: log softmax) over contiguous rows of len; see the top. */
template <int DT, int PER, int VEC>
__global__ void __launch_bounds__(NT, RV_MIN_BLOCKS(PER, 3)) softmax_regs_kernel(const char *x, char *y, int odt, int64_t rows,
                                                           int64_t len, int log_form) {
  TC_SHARED(double, sh, [RV_RED_SH]);
  rv_red rd = {sh, 0};
  constexpr int SZ = DT == TABI_DTYPE_FLOAT32 ? 4 : 2;
  int osz = tc_dt_size(odt);
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    float v[PER];
    rv_load_row<DT, PER, VEC>(x + r * len * SZ, len, -INFINITY, v);
    /* the max by fmaxf, without a branch an element (rv_max_nan's NaN
       tests made one). fmaxf passes a NaN over, but the NaN's exp makes the
       sum NaN, and so every output, as the reference's NaN max does; which
       zero a max of -0.0 and 0.0 is changes no output */
    float mx = -INFINITY;
#pragma unroll
    for (int k = 0; k < PER; k++) mx = fmaxf(mx, v[k]);
    mx = (float)block_reduce((double)mx, rd, op_max_nan()); /* a max of floats: exact */
    /* the padding's exp is 0, or NaN where the row's max is -inf or NaN and
       every output is NaN anyway */
    float hi = 0, lo = 0;
#pragma unroll
    for (int k = 0; k < PER; k++) {
      float e = expf(v[k] - mx);
      rv_acc(hi, lo, e);
      v[k] = log_form ? v[k] - mx : e;
    }
    double s = block_reduce((double)hi + (double)lo, rd, op_add());
    float ls = (float)log(s), inv = (float)(1.0 / s);
#pragma unroll
    for (int k = 0; k < PER; k++) v[k] = log_form ? v[k] - ls : v[k] * inv;
    rv_store_row<DT, PER, VEC>(y + r * len * osz, odt, len, v);
  }
}

/* VEC elements of a weight or bias from element j, as floats */
template <int DT, int VEC>
TC_D void rv_ld_param(const char *p, int pdt, int64_t j, float *o) {
  if (DT == TABI_DTYPE_FLOAT32 || pdt == TABI_DTYPE_FLOAT32) rv_ld<VEC, 4>(p, TABI_DTYPE_FLOAT32, j, o);
  else rv_ld<VEC, 2>(p, DT, j, o);
}

#define LN_REGS_PARAMS                                                                                    \
  const char *x, const char *w, int wdt, const char *b, int bdt, char *y, char *mean, char *rstd, int sdt, \
      int64_t m, int64_t n, double eps
/* Row r of a layer norm in double throughout: three passes over the row in
 * global memory. ln_kernel's rows (float64, longer rows), and those of the
 * register kernel its float path cannot take. Returns the reducer's next turn
 * (rd is passed by value: a reference would put it in local memory). */
template <int DT>
__device__ TC_NOINLINE int ln_row_dbl(rv_red rd, const char *x, const char *w, int wdt, const char *b, int bdt, char *y,
                           char *mean, char *rstd, int sdt, int64_t n, double eps, int64_t r) {
  const int esz = DT == TABI_DTYPE_FLOAT64 ? 8 : DT == TABI_DTYPE_FLOAT32 ? 4 : 2;
  int wsz = tc_dt_size(wdt), bsz = tc_dt_size(bdt), ssz = tc_dt_size(sdt);
  const char *row = x + r * n * esz;
  double s = 0;
  for (int64_t j = threadIdx.x; j < n; j += NT) s += tc_ld_f(row + j * esz, DT);
  double mu = block_reduce(s, rd, op_add()) / (double)n;
  double v = 0;
  for (int64_t j = threadIdx.x; j < n; j += NT) {
    double dv = tc_ld_f(row + j * esz, DT) - mu;
    v += dv * dv;
  }
  double rs = tcp_opmath_invstd(block_reduce(v, rd, op_add()) / (double)n, eps, DT);
  for (int64_t j = threadIdx.x; j < n; j += NT) {
    double o = (tc_ld_f(row + j * esz, DT) - mu) * rs;
    if (w) o *= tc_ld_f(w + j * wsz, wdt);
    if (b) o += tc_ld_f(b + j * bsz, bdt);
    st_out(y, r * n + j, DT, esz, o);
  }
  if (threadIdx.x == 0) {
    tc_st_f(mean + r * ssz, sdt, mu);
    tc_st_f(rstd + r * ssz, sdt, rs);
  }
  return rd.turn;
}

/* Layer norm over rows of n (see the top): the mean from float pairs, the
 * variance from values centred on the mean as two floats, then
 * (x - mean) * rstd * weight + bias in float. */
template <int DT, int PER, int VEC>
__global__ void __launch_bounds__(NT, RV_MIN_BLOCKS(PER, 2)) ln_regs_kernel(LN_REGS_PARAMS) {
  TC_SHARED(double, sh, [RV_RED_SH]);
  rv_red rd = {sh, 0};
  constexpr int SZ = DT == TABI_DTYPE_FLOAT32 ? 4 : 2;
  int ssz = tc_dt_size(sdt);
  for (int64_t r = blockIdx.x; r < m; r += gridDim.x) {
    float v[PER];
    rv_load_row<DT, PER, VEC>(x + r * n * SZ, n, 0.0f, v);
    float hi = 0, lo = 0;
    bool small = true; /* every |v| <= RV_LN_MAX_ABS: false for inf and NaN */
#pragma unroll
    for (int k = 0; k < PER; k++) { /* the padding is 0 */
      rv_acc(hi, lo, v[k]);
      small &= fabsf(v[k]) <= RV_LN_MAX_ABS; /* not &&: no branch an element */
    }
    /* a thread's NaN marks the row for the double path: the sum of finite
       values under RV_LN_MAX_ABS cannot be NaN (one fewer value to reduce) */
    double sum = block_reduce(small ? (double)hi + (double)lo : (double)NAN, rd, op_add());
    /* the tests below read reduced values, the same in every thread */
    if (!isnan(sum)) {
      double mu = sum / (double)n;
      float mh = (float)mu, ml = (float)(mu - (double)mh), qh = 0, ql = 0;
#pragma unroll
      for (int k = 0; k < PER; k++) v[k] = (v[k] - mh) - ml;
      /* the padding's squares left out by a test a vector (one an element
         split the loop; a select instead made ptxas spill at VEC 1) */
#pragma unroll
      for (int k = 0; k < PER / VEC; k++)
        if (rv_at<VEC>(k) < n)
#pragma unroll
          for (int e = 0; e < VEC; e++) rv_acc(qh, ql, v[k * VEC + e] * v[k * VEC + e]);
      double var = block_reduce((double)qh + (double)ql, rd, op_add()) / (double)n, rs = 0;
      if (var >= RV_LN_MIN_VAR) rs = tcp_opmath_invstd(var, eps, DT);
      if (var >= RV_LN_MIN_VAR && rs <= RV_LN_MAX_RSTD) {
        float rsf = (float)rs;
#pragma unroll
        for (int k = 0; k < PER / VEC; k++) {
          int64_t j = rv_at<VEC>(k);
          if (j >= n) continue;
          float *o = v + k * VEC, wv[VEC] = {}, bv[VEC] = {};
          if (w) rv_ld_param<DT, VEC>(w, wdt, j, wv);
          if (b) rv_ld_param<DT, VEC>(b, bdt, j, bv);
#pragma unroll
          for (int e = 0; e < VEC; e++) {
            o[e] *= rsf;
            if (w) o[e] *= wv[e];
            if (b) o[e] += bv[e];
          }
        }
        rv_store_row<DT, PER, VEC>(y + r * n * SZ, DT, n, v);
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

/* --- native_layer_norm_backward ---------------------------------------------------- */

/* The float path's bound on |grad_out|, |x|, |weight|, |mean| and |rstd|:
 * dy * w and (x - mean) * rstd stay under 2e18 and 32 of their products
 * under float's 3.4e38. */
#define RV_BW_MAX_ABS 1e9f

/* A statistic (mean, rstd) of dtype dt, as a float: exact for the dtypes
 * the float paths take (float32, float16, bfloat16; tc_ln_bw_rows). */
TC_D float rv_ld_stat(const char *p, int dt, int64_t r) {
  if (dt == TABI_DTYPE_FLOAT32) return ((const float *)p)[r];
  return (float)tc_ld_f(p + r * 2, dt);
}

/* Row r of grad_input in double throughout, for the rows whose values the
 * float path cannot take: s1 = sum(dy w), s2 = sum(dy w xhat), then
 * rstd ((dy w - s1/n) - xhat s2/n), as the reference (tc_norm.cuh). Returns
 * the reducer's next turn. */
template <int DT>
__device__ TC_NOINLINE int ln_bw_row_dbl(rv_red rd, const char *go, const char *x, const char *mean, int mdt,
                                          const char *rstd, int rdt, const char *w, int wdt, char *gi, int64_t n,
                                          int64_t r) {
  const int esz = DT == TABI_DTYPE_FLOAT32 ? 4 : 2;
  int wsz = tc_dt_size(wdt);
  double mu = tc_ld_f(mean + r * tc_dt_size(mdt), mdt), rs = tc_ld_f(rstd + r * tc_dt_size(rdt), rdt);
  double st[2] = {0, 0};
  for (int64_t j = threadIdx.x; j < n; j += NT) {
    double dyw = tc_ld_f(go + (r * n + j) * esz, DT) * (w ? tc_ld_f(w + j * wsz, wdt) : 1.0);
    double xh = (tc_ld_f(x + (r * n + j) * esz, DT) - mu) * rs;
    st[0] += dyw;
    st[1] += dyw * xh;
  }
  block_reduce_n<2>(st, rd, op_add());
  for (int64_t j = threadIdx.x; j < n; j += NT) {
    double dyw = tc_ld_f(go + (r * n + j) * esz, DT) * (w ? tc_ld_f(w + j * wsz, wdt) : 1.0);
    double xh = (tc_ld_f(x + (r * n + j) * esz, DT) - mu) * rs;
    tc_st_f(gi + (r * n + j) * esz, DT, rs * ((dyw - st[0] / (double)n) - xh * st[1] / (double)n));
  }
  return rd.turn;
}

/* grad_input of a layer norm over rows of n, one block a row: grad_out and
 * x of the row in registers, s1 and s2 as float pairs folded in double
 * across the block, then every element in float. */
template <int DT, int PER, int VEC>
__global__ void __launch_bounds__(NT, RV_MIN_BLOCKS(PER, 2)) ln_bw_regs_kernel(const char *go, const char *x, const char *mean, int mdt,
                                                         const char *rstd, int rdt, const char *w, int wdt,
                                                         char *gi, int64_t m, int64_t n) {
  TC_SHARED(double, sh, [RV_RED_SH]);
  rv_red rd = {sh, 0};
  constexpr int SZ = DT == TABI_DTYPE_FLOAT32 ? 4 : 2;
  for (int64_t r = blockIdx.x; r < m; r += gridDim.x) {
    float gv[PER], xv[PER];
    rv_load_row<DT, PER, VEC>(go + r * n * SZ, n, 0.0f, gv);
    rv_load_row<DT, PER, VEC>(x + r * n * SZ, n, 0.0f, xv);
    float mu = rv_ld_stat(mean, mdt, r), rs = rv_ld_stat(rstd, rdt, r);
    bool small = fabsf(mu) <= RV_BW_MAX_ABS && fabsf(rs) <= RV_BW_MAX_ABS;
    float h1 = 0, l1 = 0, h2 = 0, l2 = 0;
#pragma unroll
    for (int k = 0; k < PER / VEC; k++) {
      float wv[VEC];
#pragma unroll
      for (int e = 0; e < VEC; e++) wv[e] = 1.0f; /* none, and the padding */
      if (w && rv_at<VEC>(k) < n) rv_ld_param<DT, VEC>(w, wdt, rv_at<VEC>(k), wv);
#pragma unroll
      for (int e = 0; e < VEC; e++) {
        int q = k * VEC + e;
        /* && (a branch an element): with &= ptxas spills at 64 registers */
        small = small && fabsf(gv[q]) <= RV_BW_MAX_ABS && fabsf(xv[q]) <= RV_BW_MAX_ABS &&
                fabsf(wv[e]) <= RV_BW_MAX_ABS;
        gv[q] *= wv[e];           /* dy w: 0 in the padding */
        xv[q] = (xv[q] - mu) * rs; /* xhat */
        rv_acc(h1, l1, gv[q]);
        rv_acc(h2, l2, gv[q] * xv[q]);
      }
    }
    /* NaN marks the row for the double path, as in ln_regs_kernel */
    double st[2] = {small ? (double)h1 + (double)l1 : (double)NAN, (double)h2 + (double)l2};
    block_reduce_n<2>(st, rd, op_add());
    if (!isnan(st[0])) { /* the same in every thread */
      float a = (float)(st[0] / (double)n), c = (float)(st[1] / (double)n);
#pragma unroll
      for (int q = 0; q < PER; q++) gv[q] = rs * ((gv[q] - a) - xv[q] * c);
      rv_store_row<DT, PER, VEC>(gi + r * n * SZ, DT, n, gv);
    } else {
      rd.turn = ln_bw_row_dbl<DT>(rd, go, x, mean, mdt, rstd, rdt, w, wdt, gi, n, r);
    }
  }
}

/* Partial sums of grad_weight (sum dy xhat) and grad_bias (sum dy) over rows
 * [c R, (c + 1) R) of column p (R = ceil(m / kp)) into part[2 i],
 * part[2 i + 1] for i = c n + p: tc_norm.cu's param_store_kernel adds the kp
 * partials in order. A thread takes VEC neighbouring columns (VEC divides n,
 * the rows' bases VEC-element aligned), a warp 32 VEC of a row; each
 * column's sum runs over its rows in order, in float pairs, or in double
 * where one of its values passes RV_BW_MAX_ABS: the same bits for any VEC.
 * With one column a thread (2026-11-30) the H200 spent 173 us of layer norm
 * backward's 400 here on an 8192 x 8192 float32 (ncu: SM 76% busy, DRAM
 * 34%): four loads an element, two of them the row's statistics. */
template <int DT, int VEC>
__global__ void ln_bw_param_kernel(const char *go, const char *x, const char *mean, int mdt, const char *rstd,
                                   int rdt, int64_t m, int64_t n, int64_t kp, double *part) {
  constexpr int SZ = DT == TABI_DTYPE_FLOAT32 ? 4 : 2;
  const int64_t nv = n / VEC;
  int64_t rr = (m + kp - 1) / kp, stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < kp * nv; i += stride) {
    int64_t p = i % nv * VEC, c = i / nv, r0 = c * rr, r1 = r0 + rr < m ? r0 + rr : m;
    float ha[VEC], la[VEC], hb[VEC], lb[VEC];
    bool small[VEC];
#pragma unroll
    for (int e = 0; e < VEC; e++) {
      ha[e] = la[e] = hb[e] = lb[e] = 0;
      small[e] = true;
    }
    for (int64_t r = r0; r < r1; r++) {
      float dy[VEC], xv[VEC], mu = rv_ld_stat(mean, mdt, r), rs = rv_ld_stat(rstd, rdt, r);
      rv_ld<VEC, SZ>(go, DT, r * n + p, dy);
      rv_ld<VEC, SZ>(x, DT, r * n + p, xv);
      bool srow = fabsf(mu) <= RV_BW_MAX_ABS;
      srow &= fabsf(rs) <= RV_BW_MAX_ABS;
#pragma unroll
      for (int e = 0; e < VEC; e++) {
        small[e] &= srow; /* not &&: no branch a term */
        small[e] &= fabsf(dy[e]) <= RV_BW_MAX_ABS;
        small[e] &= fabsf(xv[e]) <= RV_BW_MAX_ABS;
        rv_acc(ha[e], la[e], dy[e] * ((xv[e] - mu) * rs));
        rv_acc(hb[e], lb[e], dy[e]);
      }
    }
#pragma unroll
    for (int e = 0; e < VEC; e++) {
      double a = (double)ha[e] + (double)la[e], b = (double)hb[e] + (double)lb[e];
      if (!small[e]) {
        a = b = 0;
        for (int64_t r = r0; r < r1; r++) {
          double dy = tc_ld_f(go + (r * n + p + e) * SZ, DT);
          double xh = (tc_ld_f(x + (r * n + p + e) * SZ, DT) - tc_ld_f(mean + r * tc_dt_size(mdt), mdt)) *
                      tc_ld_f(rstd + r * tc_dt_size(rdt), rdt);
          a += dy * xh;
          b += dy;
        }
      }
      part[2 * (c * n + p + e)] = a;
      part[2 * (c * n + p + e) + 1] = b;
    }
  }
}

#endif
