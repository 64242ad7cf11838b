/* plugins/cuda/tc_reduce.cu: prims::sum/prod/amax/amin/var, and the engine
 * argmax/argmin/max.dim/min.dim (tc_index.cu) run on.
 *
 * Deterministic, no atomics: the split of a group into parts and of a part
 * among threads depends only on the shapes, and partials are combined in a
 * fixed order, so the same input gives the same bits on every run and device.
 * Two layouts, chosen by which elements lie closer together in memory:
 *   row  the group's elements (the reduced dims): a block of 256 threads per
 *        output, thread t taking elements t, t+256, ... so a warp's loads are
 *        adjacent (a contiguous chunk per thread, as before, had every lane
 *        of a warp read a different cache line);
 *   col  the outputs (e.g. a sum over dim 0 of a row-major matrix): 32
 *        adjacent outputs per block, one per lane, and 8 threads down the group
 *        for each.
 * When there are too few outputs to fill the device (a full reduction is one
 * output: one block, one SM out of 132 on an H100; fewer than 1024 blocks),
 * each group is cut into up to 1024 parts reduced by separate blocks into a scratch array that a second
 * launch folds in part order. Accumulation is in int64 (wrapping), double or
 * complex double, rounded once at the store. amax/amin/argmax/argmin carry
 * each candidate's index in the group, so the first of equal values (-0.0 vs
 * 0.0, the first NaN) wins whatever order the threads meet them in, exactly
 * as the reference's in-order walk. Argument handling is the reference's own
 * planner (tc_ref_glue.c). */
#include "tc_ew_dev.cuh"
#include "tc_ref_glue.h"

#include <stdlib.h>

#include <type_traits>

#define RT 256       /* threads per block */
#define CW 32        /* col layout: outputs per block (one per lane) */
#define CH (RT / CW) /* col layout: threads down the group per output */

typedef struct red_args {
  const char *in;
  char *out, *idx;   /* idx: int64 indices of argmax/argmin (out may then be NULL) */
  void *part;        /* P > 1: the partials, [m][P] of the accumulator type */
  tc_c *mean;        /* var: per-output mean, written by the first pass, read by the second */
  int32_t in_dt, as, out_dt, kind, ond, ind;
  int64_t oshape[TC_MAX_DIMS], ost[TC_MAX_DIMS];
  int64_t ishape[TC_MAX_DIMS], ist[TC_MAX_DIMS];
  int64_t m, g, P, plen; /* outputs, group size, parts per group, elements per part */
  int64_t correction;
} red_args;

/* A candidate of amax/amin/argmax/argmin: its value (double or int64) and its
   index in the group. */
template <typename V>
struct tc_cand {
  V v;
  int64_t j;
};
typedef tc_cand<double> tc_mf;
typedef tc_cand<int64_t> tc_mi;

TC_D int is_minmax(int kind) {
  return kind == TC_RK_AMAX || kind == TC_RK_AMIN || kind == TC_RK_ARGMAX || kind == TC_RK_ARGMIN;
}
TC_D int wants_max(int kind) { return kind == TC_RK_AMAX || kind == TC_RK_ARGMAX; }

TC_D int64_t out_off(const red_args &a, int64_t m) {
  int64_t off = 0;
  for (int d = a.ond - 1; d >= 0; d--) {
    off += (m % a.oshape[d]) * a.ost[d];
    m /= a.oshape[d];
  }
  return off;
}

TC_D int64_t inner_off(const red_args &a, int64_t j) {
  if (a.ind == 1) return j * a.ist[0];
  int64_t off = 0;
  for (int d = a.ind - 1; d >= 0; d--) {
    int64_t s = a.ishape[d];
    off += (j % s) * a.ist[d];
    j /= s;
  }
  return off;
}

TC_D int is_nan_v(double v) { return isnan(v); }
TC_D int is_nan_v(int64_t) { return 0; }
TC_D void ld_v(const char *p, int dt, double *v) { *v = tc_ld_f(p, dt); }
TC_D void ld_v(const char *p, int dt, int64_t *v) { *v = tc_ld_i(p, dt); }
TC_D void st_v(char *p, int dt, double v) { tc_st_f(p, dt, v); }
TC_D void st_v(char *p, int dt, int64_t v) { tc_st_i(p, dt, v); }

/* The earlier of two candidates wins a tie; NaN beats every number. */
template <typename V>
TC_D tc_cand<V> cand_pick(int want_max, tc_cand<V> x, tc_cand<V> y) {
  int xn = is_nan_v(x.v), yn = is_nan_v(y.v);
  if (xn || yn) return xn && yn ? (x.j <= y.j ? x : y) : xn ? x : y;
  if (x.v == y.v) return x.j <= y.j ? x : y;
  return (want_max ? y.v > x.v : y.v < x.v) ? y : x;
}

/* Per accumulator type: load element j of output m's group, the empty value,
   combine, and store the result of output m. */
template <typename T>
struct Acc;
template <>
struct Acc<int64_t> {
  static __device__ int64_t load(const red_args &a, const char *p, int64_t, int64_t) {
    if (a.kind == TC_RK_ANY) {
      tc_c v = tc_ld_c(p, a.in_dt);
      return v.real() != 0 || v.imag() != 0; /* NaN != 0: true */
    }
    return tc_load_i(p, a.in_dt, a.as);
  }
  static __device__ int64_t init(int kind) { return kind == TC_RK_PROD ? 1 : 0; }
  static __device__ int64_t comb(int kind, int64_t x, int64_t y) {
    switch (kind) {
      case TC_RK_ANY: return x | y;
      case TC_RK_PROD: return (int64_t)((uint64_t)x * (uint64_t)y);
      case TC_RK_AMAX: return y > x ? y : x;
      case TC_RK_AMIN: return y < x ? y : x;
      default: return (int64_t)((uint64_t)x + (uint64_t)y);
    }
  }
  static __device__ void store(const red_args &a, int64_t m, int64_t v) {
    tc_st_i(a.out + m * tc_dt_size(a.out_dt), a.out_dt, v);
  }
};
template <>
struct Acc<double> { /* sum, prod, and var's squared distances from the mean */
  static __device__ double load(const red_args &a, const char *p, int64_t m, int64_t) {
    if (a.kind != TC_RK_M2) return tc_load_f(p, a.in_dt, a.as);
    tc_c d = tc_ld_c(p, a.in_dt) - a.mean[m];
    return d.real() * d.real() + d.imag() * d.imag();
  }
  static __device__ double init(int kind) { return kind == TC_RK_PROD ? 1.0 : 0.0; }
  static __device__ double comb(int kind, double x, double y) { return kind == TC_RK_PROD ? x * y : x + y; }
  static __device__ void store(const red_args &a, int64_t m, double v) {
    char *q = a.out + m * tc_dt_size(a.out_dt);
    if (a.kind == TC_RK_AVG) v /= (double)a.g; /* the reference's acc /= group */
    if (a.kind != TC_RK_M2) {
      tc_st_f(q, a.out_dt, v);
      return;
    }
    double div = (double)a.g - (double)a.correction;
    tc_st_f(q, a.out_dt, a.g == 0 ? NAN : v / (div < 0 ? 0 : div));
  }
};
template <>
struct Acc<tc_c> { /* sum, prod, and var's mean (TC_RK_MEAN) */
  static __device__ tc_c load(const red_args &a, const char *p, int64_t, int64_t) {
    return a.kind == TC_RK_MEAN ? tc_ld_c(p, a.in_dt) : tc_load_c(p, a.in_dt, a.as);
  }
  static __device__ tc_c init(int kind) { return kind == TC_RK_PROD ? tc_c(1, 0) : tc_c(0, 0); }
  static __device__ tc_c comb(int kind, tc_c x, tc_c y) { return kind == TC_RK_PROD ? x * y : x + y; }
  static __device__ void store(const red_args &a, int64_t m, tc_c v) {
    if (a.kind == TC_RK_MEAN) a.mean[m] = v / (double)a.g;
    else if (a.kind == TC_RK_AVG) /* c10 division by (g + 0i): a NaN part makes both NaN */
      tc_st_c(a.out + m * tc_dt_size(a.out_dt), a.out_dt, tc_cdiv(v, tc_c((double)a.g, 0.0)));
    else tc_st_c(a.out + m * tc_dt_size(a.out_dt), a.out_dt, v);
  }
};
template <typename V>
struct Acc<tc_cand<V> > {
  static __device__ tc_cand<V> load(const red_args &a, const char *p, int64_t, int64_t j) {
    tc_cand<V> r;
    ld_v(p, a.in_dt, &r.v);
    r.j = j;
    return r;
  }
  static __device__ tc_cand<V> init(int) {
    tc_cand<V> r = {0, 0};
    return r;
  }
  static __device__ tc_cand<V> comb(int kind, tc_cand<V> x, tc_cand<V> y) { return cand_pick(wants_max(kind), x, y); }
  static __device__ void store(const red_args &a, int64_t m, tc_cand<V> v) {
    if (a.idx) ((int64_t *)a.idx)[m] = v.j;
    if (a.out) st_v(a.out + m * tc_dt_size(a.out_dt), a.out_dt, v.v);
  }
};

/* Folds part p of output m's group, elements lo + t, lo + t + step, ...
 * RU at a time: their loads are issued before the first is combined, so a
 * thread keeps RU requests in flight where one load per combine waited out a
 * memory latency each (the H200 session's sum reached a fifth of torch's
 * bandwidth). The combine order is unchanged: the same bits.
 *
 * DT >= 0: the input is of dtype DT and its elements need no rounding on the
 * way in (launch() says when): the loads are plain loads of DT's bits,
 * decoded in the combine loop. The generic load switches on the dtype and
 * converts in each case, so every load was waited for before the next was
 * issued: the H200 ran sum and argmax over float32 at 870 GB/s with RU loads
 * written. */
#define RU 8
template <int DT>
struct tc_raw {
  typedef uint16_t type; /* float16, bfloat16 */
};
template <>
struct tc_raw<TABI_DTYPE_FLOAT32> {
  typedef float type;
};
template <>
struct tc_raw<TABI_DTYPE_FLOAT64> {
  typedef double type;
};
/* An element as fold_strided loads it (R) and as it combines it (T): DT's
 * bits, decoded to double (sum, prod, mean) or a candidate (the min/max
 * family); DT -1, the generic load, already a T. */
template <typename T, int DT>
struct tc_elem {
  typedef typename tc_raw<DT>::type R;
  static __device__ __forceinline__ R load(const red_args &, const char *p, int64_t, int64_t) { return *(const R *)p; }
  static __device__ __forceinline__ T dec(R r, int64_t j) {
    double v;
    if constexpr (DT == TABI_DTYPE_FLOAT16) v = (double)tabi_f16_to_f32(r);
    else if constexpr (DT == TABI_DTYPE_BFLOAT16) v = (double)tabi_bf16_to_f32(r);
    else v = (double)r;
    if constexpr (std::is_same<T, double>::value) {
      return v;
    } else {
      T c;
      c.v = v;
      c.j = j;
      return c;
    }
  }
};
template <typename T>
struct tc_elem<T, -1> {
  typedef T R;
  static __device__ __forceinline__ T load(const red_args &a, const char *p, int64_t m, int64_t j) { return Acc<T>::load(a, p, m, j); }
  static __device__ __forceinline__ T dec(T v, int64_t) { return v; }
};
/* acc combined with v, the fold's next element; the min/max family's first
   element replaces the empty value (a sum's is added to it: -0.0 gives 0.0) */
template <typename T>
TC_D void fold_take(const red_args &a, int mm, T &acc, T v, int *has) {
  acc = (*has || !mm) ? Acc<T>::comb(a.kind, acc, v) : v;
  *has = 1;
}
/* element e of the R elements a 16-byte load holds */
template <typename R>
TC_D R w16_at(const tc_ew_words<4> &w, int e) {
  R r;
  memcpy(&r, (const char *)w.w + e * sizeof(R), sizeof(R));
  return r;
}

template <typename T, int DT>
TC_D T fold_strided(const red_args &a, int64_t m, int64_t base, int64_t lo, int64_t hi,
                    int64_t step, int *has) {
  typedef tc_elem<T, DT> E;
  int esz = tc_dt_size(a.in_dt), mm = is_minmax(a.kind);
  T acc = Acc<T>::init(a.kind);
  int64_t j = lo;
  for (; j + (RU - 1) * step < hi; j += RU * step) {
    typename E::R r[RU];
#pragma unroll
    for (int u = 0; u < RU; u++)
      r[u] = E::load(a, a.in + (base + inner_off(a, j + u * step)) * esz, m, j + u * step);
#pragma unroll
    for (int u = 0; u < RU; u++) fold_take(a, mm, acc, E::dec(r[u], j + u * step), has);
  }
  for (; j < hi; j += step) fold_take(a, mm, acc, E::dec(E::load(a, a.in + (base + inner_off(a, j)) * esz, m, j), j), has);
  return acc;
}

/* fold_strided's part [lo, hi) of a group that is one run in memory (g: its
 * element 0), 16 bytes a load, for DT's raw loads. The part's whole aligned
 * vectors go to the block's threads in turn (thread t: vectors t, t + RT,
 * ...; VU loads in flight), the elements before the first aligned one and
 * after the last whole vector to threads 0, 1, ... one each. A warp's load
 * reads 512 neighbouring bytes where fold_strided's read 128: the H200 ran
 * sum over float32 at 2.5 TB/s of 4.3 that way, 4 blocks an SM (60
 * registers) holding too few loads in flight. The order of the combines is
 * another fixed one, so the result is still the same on every run; amax and
 * argmax pick by index on ties, so theirs is the same as fold_strided's. */
#define VU 4
template <typename T, int DT>
TC_D T fold_contig(const red_args &a, const char *g, int64_t lo, int64_t hi, int t, int *has) {
  typedef tc_elem<T, DT> E;
  typedef typename E::R R;
  constexpr int V = 16 / (int)sizeof(R);
  typedef tc_ew_words<4> W16;
  const R *p = (const R *)g;
  int mm = is_minmax(a.kind);
  T acc = Acc<T>::init(a.kind);
  int64_t mis = (int64_t)(((uintptr_t)(p + lo) / sizeof(R)) % V);
  int64_t a0 = lo + (mis ? V - mis : 0);
  if (a0 > hi) a0 = hi;
  int64_t nv = (hi - a0) / V, a1 = a0 + nv * V;
  if (lo + t < a0) fold_take(a, mm, acc, E::dec(p[lo + t], lo + t), has);
  int64_t k = t;
  for (; k + (VU - 1) * RT < nv; k += VU * RT) {
    W16 w[VU];
#pragma unroll
    for (int u = 0; u < VU; u++) w[u] = *(const W16 *)(p + a0 + (k + u * RT) * V);
#pragma unroll
    for (int u = 0; u < VU; u++)
#pragma unroll
      for (int e = 0; e < V; e++) fold_take(a, mm, acc, E::dec(w16_at<R>(w[u], e), a0 + (k + u * RT) * V + e), has);
  }
  for (; k < nv; k += RT) {
    W16 w = *(const W16 *)(p + a0 + k * V);
#pragma unroll
    for (int e = 0; e < V; e++) fold_take(a, mm, acc, E::dec(w16_at<R>(w, e), a0 + k * V + e), has);
  }
  if (a1 + t < hi) fold_take(a, mm, acc, E::dec(p[a1 + t], a1 + t), has);
  return acc;
}

/* A part's result: the output itself when the group is one part, else its slot. */
template <typename T>
TC_D void emit(const red_args &a, int64_t m, int64_t p, T v, int has) {
  if (a.P == 1) Acc<T>::store(a, m, has ? v : Acc<T>::init(a.kind));
  else ((T *)a.part)[m * a.P + p] = v;
}

/* Folds the n values sh[0], sh[stride], ... of this block in index order
   (a fixed tree), skipping those with no element. */
template <typename T>
TC_D void tree_fold(int kind, T *sh, int *shas, int n, int stride, int t) {
  for (int s = n / 2; s > 0; s >>= 1) {
    if (t < s) {
      int l = t * stride, r = (t + s) * stride;
      if (shas[r]) {
        sh[l] = shas[l] ? Acc<T>::comb(kind, sh[l], sh[r]) : sh[r];
        shas[l] = 1;
      }
    }
    __syncthreads();
  }
}

template <typename T, int DT>
__global__ void __launch_bounds__(RT) red_row_kernel(const red_args a) {
  TC_SHARED(T, sh, [RT]);
  TC_SHARED(int, shas, [RT]);
  int t = threadIdx.x;
  for (int64_t b = blockIdx.x; b < a.m * a.P; b += gridDim.x) {
    int64_t m = b / a.P, p = b % a.P, lo = p * a.plen;
    int64_t hi = lo + a.plen < a.g ? lo + a.plen : a.g;
    int has = 0;
    int64_t base = out_off(a, m);
    if constexpr (DT >= 0) {
      if (a.ind == 1 && a.ist[0] == 1)
        sh[t] = fold_contig<T, DT>(a, a.in + base * (int64_t)sizeof(typename tc_elem<T, DT>::R), lo, hi, t, &has);
      else
        sh[t] = fold_strided<T, DT>(a, m, base, lo + t, hi, RT, &has);
    } else {
      sh[t] = fold_strided<T, DT>(a, m, base, lo + t, hi, RT, &has);
    }
    shas[t] = has;
    __syncthreads();
    tree_fold<T>(a.kind, sh, shas, RT, 1, t);
    if (t == 0) emit<T>(a, m, p, sh[0], shas[0]);
    __syncthreads();
  }
}

template <typename T, int DT>
__global__ void __launch_bounds__(RT) red_col_kernel(const red_args a) {
  TC_SHARED(T, sh, [RT]);
  TC_SHARED(int, shas, [RT]);
  int x = threadIdx.x % CW, y = threadIdx.x / CW;
  int64_t tiles = (a.m + CW - 1) / CW;
  for (int64_t b = blockIdx.x; b < tiles * a.P; b += gridDim.x) {
    int64_t m = b / a.P * CW + x, p = b % a.P, lo = p * a.plen;
    int64_t hi = lo + a.plen < a.g ? lo + a.plen : a.g;
    int has = 0, live = m < a.m;
    T v = live ? fold_strided<T, DT>(a, m, out_off(a, m), lo + y, hi, CH, &has) : Acc<T>::init(a.kind);
    sh[threadIdx.x] = v;
    shas[threadIdx.x] = has;
    __syncthreads();
    tree_fold<T>(a.kind, sh + x, shas + x, CH, CW, y); /* x's column, in y order */
    if (y == 0 && live) emit<T>(a, m, p, sh[x], shas[x]);
    __syncthreads();
  }
}

/* The col layout over float dtypes with double sums, where the outputs are
 * one run in memory (a sum over dim 0 of a row-major matrix): each lane
 * takes CV neighbouring outputs with one 16-byte load a row (a warp's load
 * reads 512 bytes where red_col_kernel's reads 128), four rows in flight;
 * a block's tile is CW * CV outputs, so fewer tiles, and a group may be cut
 * into more parts. Within a part each output is summed in red_col_kernel's
 * order (a thread's rows in order, then the same tree over the CH
 * threads): deterministic. The H200 ran sum over dim 0 of 8192 x 8192
 * float32 at 0.80x torch with 4-byte loads. */
template <int DT>
struct col_vec {
  typedef typename tc_raw<DT>::type R;
  static constexpr int CV = 16 / (int)sizeof(R);
};
template <int DT>
__global__ void __launch_bounds__(RT) red_colv_kernel(const red_args a) {
  typedef tc_elem<double, DT> E;
  typedef typename E::R R;
  constexpr int CV = col_vec<DT>::CV;
  typedef tc_ew_words<4> W16;
  TC_SHARED(double, sh, [CV][RT]);
  TC_SHARED(int, shas, [CV][RT]);
  int x = threadIdx.x % CW, y = threadIdx.x / CW;
  int64_t tiles = a.m / (CW * CV), st = a.ist[0];
  for (int64_t b = blockIdx.x; b < tiles * a.P; b += gridDim.x) {
    int64_t m0 = b / a.P * (CW * CV) + (int64_t)x * CV, p = b % a.P, lo = p * a.plen;
    int64_t hi = lo + a.plen < a.g ? lo + a.plen : a.g;
    const R *col = (const R *)a.in + m0;
    double acc[CV];
#pragma unroll
    for (int e = 0; e < CV; e++) acc[e] = Acc<double>::init(a.kind);
    int64_t j = lo + y;
    for (; j + 3 * CH < hi; j += 4 * CH) {
      W16 w[4];
#pragma unroll
      for (int u = 0; u < 4; u++) w[u] = *(const W16 *)(col + (j + u * CH) * st);
#pragma unroll
      for (int u = 0; u < 4; u++)
#pragma unroll
        for (int e = 0; e < CV; e++) acc[e] = Acc<double>::comb(a.kind, acc[e], E::dec(w16_at<R>(w[u], e), j + u * CH));
    }
    for (; j < hi; j += CH) {
      W16 w = *(const W16 *)(col + j * st);
#pragma unroll
      for (int e = 0; e < CV; e++) acc[e] = Acc<double>::comb(a.kind, acc[e], E::dec(w16_at<R>(w, e), j));
    }
    int has = lo + y < hi;
#pragma unroll
    for (int e = 0; e < CV; e++) {
      sh[e][threadIdx.x] = acc[e];
      shas[e][threadIdx.x] = has;
    }
    __syncthreads();
#pragma unroll
    for (int e = 0; e < CV; e++) tree_fold<double>(a.kind, sh[e] + x, shas[e] + x, CH, CW, y);
    if (y == 0)
#pragma unroll
      for (int e = 0; e < CV; e++) emit<double>(a, m0 + e, p, sh[e][x], shas[e][x]);
    __syncthreads();
  }
}

/* P > 1: one block per output folds its P partials: thread t the parts t,
 * t + RT, ... in order, then the tree of the row kernel over the threads
 * (deterministic). For few outputs with many parts (a whole-tensor sum or
 * argmax: one output, about 1024 parts) one thread folding them in a chain
 * waited on 1024 loads one after the other: 169 us of argmax's 510 on the
 * H200 (2026-11-30, ncu), 26 us of sum's 284. */
template <typename T>
__global__ void __launch_bounds__(RT) red_fold_block_kernel(const red_args a) {
  TC_SHARED(T, sh, [RT]);
  TC_SHARED(int, shas, [RT]);
  int t = threadIdx.x;
  for (int64_t m = blockIdx.x; m < a.m; m += gridDim.x) {
    const T *pp = (const T *)a.part + m * a.P;
    int has = t < a.P;
    T acc = has ? pp[t] : Acc<T>::init(a.kind);
    for (int64_t p = t + RT; p < a.P; p += RT) acc = Acc<T>::comb(a.kind, acc, pp[p]);
    sh[t] = acc;
    shas[t] = has;
    __syncthreads();
    tree_fold<T>(a.kind, sh, shas, RT, 1, t);
    if (t == 0) Acc<T>::store(a, m, sh[0]);
    __syncthreads();
  }
}
/* P > 1, few parts an output: one thread per output folds its P partials in
 * part order. */
#define RED_FOLD_BLOCK_P 16 /* more parts than this: red_fold_block_kernel */
template <typename T>
__global__ void red_fold_kernel(const red_args a) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t m = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; m < a.m; m += stride) {
    const T *pp = (const T *)a.part + m * a.P;
    T acc = pp[0];
    for (int64_t p = 1; p < a.P; p++) acc = Acc<T>::comb(a.kind, acc, pp[p]);
    Acc<T>::store(a, m, acc);
  }
}

/* Drops size-1 dims and merges neighbours that are one run in memory; the
   linear order of the elements (the index argmax reports) is unchanged. */
static void coalesce(int32_t *n, int64_t *shape, int64_t *st) {
  int32_t k = 0;
  for (int32_t d = 0; d < *n; d++) {
    if (shape[d] == 1) continue;
    if (k > 0 && st[k - 1] == st[d] * shape[d]) {
      shape[k - 1] *= shape[d];
      st[k - 1] = st[d];
      continue;
    }
    shape[k] = shape[d];
    st[k++] = st[d];
  }
  *n = k;
}

/* red_colv_kernel where it exists (launch_dt's colv says when) */
template <typename T, int DT>
static void launch_colv(int grid, const red_args *a) {
  if constexpr (DT >= 0 && std::is_same<T, double>::value) TC_LAUNCH(grid, RT, red_colv_kernel<DT>)(*a);
}

template <typename T, int DT>
static tabi_status launch_dt(tc_ctx *c, const char *op, DLDevice dev, red_args *a) {
  int col = a->ond > 0 && (a->g <= 32 || llabs(a->ost[a->ond - 1]) < llabs(a->ist[a->ind - 1]));
  int colv = 0;      /* red_colv_kernel: outputs one run, whole tiles, 16-byte aligned rows */
  int64_t tile = CW; /* outputs a block of the col layout */
  if constexpr (DT >= 0 && std::is_same<T, double>::value) {
    int64_t rsz = (int64_t)sizeof(typename tc_raw<DT>::type), vt = CW * col_vec<DT>::CV;
    colv = col && a->ond == 1 && a->ost[0] == 1 && a->ind == 1 && a->m % vt == 0 &&
           (uintptr_t)a->in % 16 == 0 && (a->ist[0] * rsz) % 16 == 0;
    if (colv) tile = vt;
  }
  int64_t units = col ? (a->m + tile - 1) / tile : a->m, per = col ? CH * 64 : RT * 16;
  a->P = 1;
  a->plen = a->g;
  /* fewer than ~1024 blocks leave an H100/H200 (132 SMs, 8 blocks of 256
   * threads each) partly idle: the groups are cut into parts */
  if (units < 1024 && a->g > per) {
    int64_t want = (1024 + units - 1) / units, most = (a->g + per - 1) / per;
    int64_t P = want < most ? want : most;
    a->plen = (a->g + P - 1) / P;
    a->P = (a->g + a->plen - 1) / a->plen;
  }
  tabi_tensor *part = NULL;
  tabi_status st = TABI_OK;
  if (a->P > 1) {
    int64_t bytes = a->m * a->P * (int64_t)sizeof(T);
    if ((st = tc_empty(c, dev, TABI_DTYPE_UINT8, 1, &bytes, &part)) != TABI_OK) return st;
    a->part = tabi_tensor_data(part);
  }
  if (colv) launch_colv<T, DT>(tc_grid(units * a->P, 1), a);
  else if (col) TC_LAUNCH(tc_grid((a->m + CW - 1) / CW * a->P, 1), RT, red_col_kernel<T, DT>)(*a);
  else TC_LAUNCH(tc_grid(a->m * a->P, 1), RT, red_row_kernel<T, DT>)(*a);
  st = tc_launch_status(c, op);
  if (st == TABI_OK && a->P > 1) {
    if (a->P > RED_FOLD_BLOCK_P) TC_LAUNCH(tc_grid(a->m, 1), RT, red_fold_block_kernel<T>)(*a);
    else TC_LAUNCH(tc_grid(a->m, 128), 128, red_fold_kernel<T>)(*a);
    st = tc_launch_status(c, op);
  }
  c->h->tensor_release(c->h->ctx, part);
  return st;
}

/* The typed loads of fold_strided: sum, prod and mean in double of an input
 * already of the accumulation's dtype, and amax/amin/argmax/argmin of a
 * floating input, over the floating dtypes a model reduces. */
template <typename T>
static tabi_status launch(tc_ctx *c, const char *op, DLDevice dev, red_args *a) {
  if constexpr (std::is_same<T, double>::value || std::is_same<T, tc_mf>::value) {
    int typed = std::is_same<T, tc_mf>::value ||
                ((a->kind == TC_RK_SUM || a->kind == TC_RK_PROD || a->kind == TC_RK_AVG) && a->in_dt == a->as);
    if (typed) {
      switch (a->in_dt) {
        case TABI_DTYPE_FLOAT32: return launch_dt<T, TABI_DTYPE_FLOAT32>(c, op, dev, a);
        case TABI_DTYPE_FLOAT64: return launch_dt<T, TABI_DTYPE_FLOAT64>(c, op, dev, a);
        case TABI_DTYPE_FLOAT16: return launch_dt<T, TABI_DTYPE_FLOAT16>(c, op, dev, a);
        case TABI_DTYPE_BFLOAT16: return launch_dt<T, TABI_DTYPE_BFLOAT16>(c, op, dev, a);
        default: break;
      }
    }
  }
  return launch_dt<T, -1>(c, op, dev, a);
}

tabi_status tc_reduce_run(tc_ctx *c, const char *op, const tabi_tensor *self,
                          const struct tc_red_plan *r, int kind, tabi_dtype as, tabi_tensor *out,
                          tabi_tensor *idx, int64_t correction) {
  red_args a;
  memset(&a, 0, sizeof a);
  a.in = (const char *)tabi_tensor_data(self);
  a.out = out ? (char *)tabi_tensor_data(out) : NULL;
  a.idx = idx ? (char *)tabi_tensor_data(idx) : NULL;
  a.in_dt = tabi_tensor_dtype(self);
  a.as = as;
  a.out_dt = out ? tabi_tensor_dtype(out) : a.in_dt;
  a.kind = kind;
  a.correction = correction;
  a.m = 1;
  a.g = 1;
  for (int32_t d = 0; d < self->dl.ndim; d++) {
    int64_t s = self->dl.shape[d];
    if (r->reduced[d]) {
      a.ishape[a.ind] = s;
      a.ist[a.ind++] = self->dl.strides[d];
      a.g *= s;
    } else {
      a.oshape[a.ond] = s;
      a.ost[a.ond++] = self->dl.strides[d];
      a.m *= s;
    }
  }
  if (a.m == 0) return TABI_OK;
  coalesce(&a.ind, a.ishape, a.ist);
  coalesce(&a.ond, a.oshape, a.ost);
  if (a.ind == 0) {
    a.ishape[0] = 1;
    a.ist[0] = 0;
    a.ind = 1;
  }
  DLDevice dev = self->dl.device;
  int cat = tc_category(as);
  switch (kind) {
    case TC_RK_ARGMAX: case TC_RK_ARGMIN:
      return cat == 0 ? launch<tc_mi>(c, op, dev, &a) : launch<tc_mf>(c, op, dev, &a);
    case TC_RK_AMAX: case TC_RK_AMIN:
      return cat == 0 ? launch<int64_t>(c, op, dev, &a) : launch<tc_mf>(c, op, dev, &a);
    case TC_RK_ANY: return launch<int64_t>(c, op, dev, &a);
    case TC_RK_M2: {
      tabi_tensor *mean = NULL;
      int64_t bytes = a.m * (int64_t)sizeof(tc_c);
      tabi_status st = tc_empty(c, dev, TABI_DTYPE_UINT8, 1, &bytes, &mean);
      if (st != TABI_OK) return st;
      a.mean = (tc_c *)tabi_tensor_data(mean);
      a.kind = TC_RK_MEAN;
      st = launch<tc_c>(c, op, dev, &a);
      a.kind = TC_RK_M2;
      if (st == TABI_OK) st = launch<double>(c, op, dev, &a);
      c->h->tensor_release(c->h->ctx, mean);
      return st;
    }
    default:
      return cat == 0 ? launch<int64_t>(c, op, dev, &a)
             : cat == 1 ? launch<double>(c, op, dev, &a) : launch<tc_c>(c, op, dev, &a);
  }
}

/* Runs a reduction of `self` planned by `r` into a new tensor. */
static tabi_status red_run(tc_ctx *c, const char *op, const char *arg, const tabi_tensor *self,
                           const tc_red_plan *r, int kind, tabi_dtype as, tabi_dtype out_dt,
                           int64_t correction, tabi_value *outs) {
  tabi_status st = tc_check_cuda(c, self, op, arg);
  if (st == TABI_OK) st = tc_use_device(c, self, op);
  if (st != TABI_OK) return st;
  tabi_tensor *out = NULL;
  if ((st = tc_empty(c, self->dl.device, out_dt, r->out_ndim, r->out_shape, &out)) != TABI_OK)
    return st;
  st = tc_reduce_run(c, op, self, r, kind, as, out, NULL, correction);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, out);
    return st;
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

static tabi_status out_dtype(tc_ctx *c, const char *op, const tabi_value *v, tabi_dtype dflt,
                             tabi_dtype *out) {
  *out = v->tag == TABI_TAG_DTYPE ? v->u.dtype : dflt;
  if (tabi_dtype_size(*out) == 0)
    return TC_ERR(c, TABI_ERR_TYPE, "%s: argument 'output_dtype' has an unsupported dtype (%d)",
                  op, (int)*out);
  return TABI_OK;
}

static tabi_status prim_reduce(TC_ARGS, int kind) {
  TC_CTX;
  const tabi_tensor *inp = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(inp), odt;
  int minmax = kind == TC_RK_AMAX || kind == TC_RK_AMIN;
  tc_red_plan r;
  tabi_status st = tc_red_plan_init(c->h, call, "dims", inp, &args[1], 0, 0, 0, &r);
  if (st == TABI_OK) st = out_dtype(c, OPN, &args[2], dt, &odt);
  if (st != TABI_OK) return st;
  if (minmax) {
    if (tabi_dtype_is_complex(dt))
      return TC_ERR(c, TABI_ERR_TYPE, "%s: argument 'self' has dtype %s; expected a real dtype",
                    OPN, tabi_dtype_name(dt));
    if ((st = tc_red_plan_init(c->h, call, "dims", inp, &args[1], 0, 0, 1, &r)) != TABI_OK)
      return st;
    return red_run(c, OPN, "inp", inp, &r, kind, dt, odt, 0, outs);
  }
  return red_run(c, OPN, "inp", inp, &r, kind, odt, odt, 0, outs);
}
static tabi_status k_sum(TC_ARGS) { return prim_reduce(ctx, call, args, outs, TC_RK_SUM); }
static tabi_status k_prod(TC_ARGS) { return prim_reduce(ctx, call, args, outs, TC_RK_PROD); }
static tabi_status k_amax(TC_ARGS) { return prim_reduce(ctx, call, args, outs, TC_RK_AMAX); }
static tabi_status k_amin(TC_ARGS) { return prim_reduce(ctx, call, args, outs, TC_RK_AMIN); }

static tabi_status k_var(TC_ARGS) {
  TC_CTX;
  const tabi_tensor *inp = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(inp), odt;
  if (!tabi_dtype_is_floating(dt) && !tabi_dtype_is_complex(dt))
    return TC_ERR(c, TABI_ERR_TYPE,
                  "%s: std and var only support floating point and complex dtypes; argument "
                  "'self' has dtype %s", OPN, tabi_dtype_name(dt));
  tc_red_plan r;
  tabi_status st = tc_red_plan_init(c->h, call, "dim", inp, &args[1], 0, 0, 0, &r);
  if (st == TABI_OK) st = out_dtype(c, OPN, &args[3], tc_real_dtype(dt), &odt);
  if (st != TABI_OK) return st;
  return red_run(c, OPN, "inp", inp, &r, TC_RK_M2, dt, odt, args[2].u.i, outs);
}

/* The aten reductions (REF_RED_ATEN_LIST): the reference plans them (dims,
 * dtype= and int64 promotion, mean's floating check, amax's empty check,
 * var's correction) and they run here in one reduction each, where their
 * decompositions added conversions and, for mean, a division pass. */
static int tc_kind_of(int ref_kind) {
  switch (ref_kind) {
    case REF_RED_PROD: return TC_RK_PROD;
    case REF_RED_MEAN: return TC_RK_AVG;
    case REF_RED_AMAX: return TC_RK_AMAX;
    case REF_RED_AMIN: return TC_RK_AMIN;
    case REF_RED_ANY: return TC_RK_ANY;
    case REF_RED_VAR: return TC_RK_M2;
    default: return TC_RK_SUM;
  }
}
static tabi_status run_aten_red(TC_ARGS, int which) {
  TC_CTX;
  tc_red_aten_plan_t pl;
  tabi_status st = tc_red_aten_plan(c->h, call, args, which, &pl);
  if (st != TABI_OK) return st;
  return red_run(c, OPN, "self", args[0].u.t, &pl.r, tc_kind_of(pl.kind), (tabi_dtype)pl.as,
                 (tabi_dtype)pl.out_dt, pl.correction, outs);
}
#define DEF_AR(name, opname) \
  static tabi_status k_ar_##name(TC_ARGS) { return run_aten_red(ctx, call, args, outs, TC_AR_##name); }
REF_RED_ATEN_LIST(DEF_AR)

#define REG_AR(name, opname) {opname, k_ar_##name},
TC_KTABLE tc_kernel tc_reduce_kernels[] = {
    {"prims::sum", k_sum},   {"prims::prod", k_prod}, {"prims::amax", k_amax},
    {"prims::amin", k_amin}, {"prims::var", k_var},   REF_RED_ATEN_LIST(REG_AR) {NULL, NULL}};
