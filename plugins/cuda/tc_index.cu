/* plugins/cuda/tc_index.cu: argmax, argmin, max.dim, min.dim, cumsum, resize_,
 * gather, index_select.
 *
 * argmax/argmin/max.dim/min.dim run on the reduction engine (tc_reduce.cu):
 * NaN is the largest value and the first NaN wins, otherwise the first of
 * equal extremes, as the reference's in-order walk. cumsum: see scan_args. The
 * argument checks are the reference's own (reference/ref_reduce2_check.c,
 * ref_index_check.c, ref_resize_check.c; index values read back and checked on the host in
 * order); the reduction plan is the reference's planner (tc_ref_glue.c). */
#include <type_traits>

#include "tc_ew_dev.cuh"
#include "tc_words.cuh" /* index_select's row units */
#include "tc_pad_up.cuh" /* tcp_copy */
#include "tc_ref_glue.h"
#include "ref_index_check.h"
#include "ref_reduce2_check.h"
#include "ref_resize_check.h"

#include <stdlib.h>

static tabi_status arg_common(TC_ARGS, int want_max, int with_vals) {
  TC_CTX;
  tabi_tensor *self = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self);
  tc_red_plan r;
  tabi_status st = ref_argred_check(c->h, call, args, with_vals);
  if (st == TABI_OK) st = tc_red_plan_init(c->h, call, "dim", self, &args[1], 1, (int)args[2].u.i, 0, &r);
  if (st != TABI_OK) return st;
  if ((st = tc_check_cuda(c, self, OPN, "self")) || (st = tc_use_device(c, self, OPN))) return st;
  tabi_tensor *vals = NULL, *idx = NULL;
  if (with_vals) st = tc_empty(c, self->dl.device, dt, r.out_ndim, r.out_shape, &vals);
  if (st == TABI_OK) st = tc_empty(c, self->dl.device, TABI_DTYPE_INT64, r.out_ndim, r.out_shape, &idx);
  if (st == TABI_OK)
    st = tc_reduce_run(c, OPN, self, &r, want_max ? TC_RK_ARGMAX : TC_RK_ARGMIN, dt, vals, idx, 0);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, vals);
    c->h->tensor_release(c->h->ctx, idx);
    return st;
  }
  if (with_vals) {
    outs[0] = tabi_tensor_value(vals);
    outs[1] = tabi_tensor_value(idx);
  } else {
    outs[0] = tabi_tensor_value(idx);
  }
  return TABI_OK;
}
static tabi_status k_argmax(TC_ARGS) { return arg_common(ctx, call, args, outs, 1, 0); }
static tabi_status k_argmin(TC_ARGS) { return arg_common(ctx, call, args, outs, 0, 0); }
static tabi_status k_max_dim(TC_ARGS) { return arg_common(ctx, call, args, outs, 1, 1); }
static tabi_status k_min_dim(TC_ARGS) { return arg_common(ctx, call, args, outs, 0, 1); }

/* cumsum. Many short slices: a thread walks each in order. Long ones: chunks
   of SC elements, a block each, staged in shared memory (loaded and stored
   in element order), thread t taking the SP elements from t * SP in order;
   a first launch sums each chunk (a fixed tree), a second turns a
   slice's chunk sums into the offsets before each chunk (in order), a third
   scans each chunk from its offset (the threads' totals by a Hillis-Steele
   scan in shared memory, the same steps every run: deterministic). Sums run
   in the accumulation type (int64 wrapping, double, complex double) and are
   rounded once at the store, as the reference's; only the order of the
   double additions differs from its single walk. */
#define ST 256
#define SP 8
#define SC (ST * SP)

typedef struct scan_args {
  const char *in;
  char *out;
  void *part; /* [slices][chunks] chunk sums, then offsets */
  int32_t dt, as, odt, nd, dim;
  int64_t shape[TC_MAX_DIMS], ist[TC_MAX_DIMS], ost[TC_MAX_DIMS];
  int64_t m, len, chunks;
} scan_args;

template <typename T>
struct Sc;
template <>
struct Sc<int64_t> {
  static __device__ int64_t zero() { return 0; }
  static __device__ int64_t ld(const scan_args &a, const char *p) { return tc_load_i(p, a.dt, a.as); }
  static __device__ int64_t add(int64_t x, int64_t y) { return (int64_t)((uint64_t)x + (uint64_t)y); }
  static __device__ void st(const scan_args &a, char *q, int64_t v) { tc_st_i(q, a.odt, v); }
};
template <>
struct Sc<double> {
  static __device__ double zero() { return 0; }
  static __device__ double ld(const scan_args &a, const char *p) { return tc_load_f(p, a.dt, a.as); }
  static __device__ double add(double x, double y) { return x + y; }
  static __device__ void st(const scan_args &a, char *q, double v) { tc_st_f(q, a.odt, v); }
};
template <>
struct Sc<tc_c> {
  static __device__ tc_c zero() { return tc_c(0, 0); }
  static __device__ tc_c ld(const scan_args &a, const char *p) { return tc_load_c(p, a.dt, a.as); }
  static __device__ tc_c add(tc_c x, tc_c y) { return x + y; }
  static __device__ void st(const scan_args &a, char *q, tc_c v) { tc_st_c(q, a.odt, v); }
};

TC_D void scan_base(const scan_args &a, int64_t s, int64_t *ib, int64_t *ob) {
  *ib = *ob = 0;
  for (int d = a.nd - 1; d >= 0; d--) {
    if (d == a.dim) continue;
    int64_t i = s % a.shape[d];
    s /= a.shape[d];
    *ib += i * a.ist[d];
    *ob += i * a.ost[d];
  }
}

template <typename T>
__global__ void scan_seq_kernel(const scan_args a) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x, si = a.nd ? a.ist[a.dim] : 0, so = a.nd ? a.ost[a.dim] : 0;
  int esz = tc_dt_size(a.dt), osz = tc_dt_size(a.odt);
  for (int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; s < a.m; s += stride) {
    int64_t ib, ob;
    scan_base(a, s, &ib, &ob);
    T acc = Sc<T>::zero();
    for (int64_t j = 0; j < a.len; j++) {
      acc = Sc<T>::add(acc, Sc<T>::ld(a, a.in + (ib + j * si) * esz));
      Sc<T>::st(a, a.out + (ob + j * so) * osz, acc);
    }
  }
}

/* Chunk c of a slice (elements jc .. jc + SC) into buf, loaded by the block in
   element order (thread t takes t, t + ST, ...: a warp's loads adjacent, where
   each thread reading its own SP in a row had the lanes 8 elements apart),
   with SC / ST loads of a thread in flight at once. Past the slice's end: zero,
   never added (a -0.0 sum plus 0.0 would turn +0.0). */
template <typename T>
TC_D void scan_stage(const scan_args &a, T *buf, int64_t ib, int64_t jc) {
  int64_t si = a.nd ? a.ist[a.dim] : 0;
  int esz = tc_dt_size(a.dt), t = threadIdx.x;
  if constexpr (std::is_same<T, double>::value) {
    /* float32 needing no rounding: plain loads, all issued before any is
       converted (the generic load converts inside a switch on the dtype,
       which waits for each) */
    if (a.dt == TABI_DTYPE_FLOAT32 && a.as == TABI_DTYPE_FLOAT32) {
      float r[SC / ST];
#pragma unroll
      for (int u = 0; u < SC / ST; u++) {
        int64_t j = jc + t + (int64_t)u * ST;
        r[u] = j < a.len ? ((const float *)a.in)[ib + j * si] : 0.0f;
      }
#pragma unroll
      for (int u = 0; u < SC / ST; u++) buf[t + u * ST] = (double)r[u];
      __syncthreads();
      return;
    }
  }
#pragma unroll
  for (int u = 0; u < SC / ST; u++) {
    int64_t j = jc + t + (int64_t)u * ST;
    buf[t + u * ST] = j < a.len ? Sc<T>::ld(a, a.in + (ib + j * si) * esz) : Sc<T>::zero();
  }
  __syncthreads();
}

/* Thread t's in-order sum of its SP elements of the staged chunk. */
template <typename T>
TC_D T thread_sum(const scan_args &a, const T *buf, int64_t jc) {
  int t = threadIdx.x;
  T acc = Sc<T>::zero();
  for (int i = 0; i < SP && jc + t * SP + i < a.len; i++) acc = Sc<T>::add(acc, buf[t * SP + i]);
  return acc;
}

template <typename T>
__global__ void __launch_bounds__(ST) scan_part_kernel(const scan_args a) {
  TC_SHARED(T, buf, [SC]);
  TC_SHARED(T, sh, [ST]);
  int t = threadIdx.x;
  for (int64_t b = blockIdx.x; b < a.m * a.chunks; b += gridDim.x) {
    int64_t s = b / a.chunks, c = b % a.chunks, ib, ob;
    scan_base(a, s, &ib, &ob);
    scan_stage<T>(a, buf, ib, c * SC);
    sh[t] = thread_sum<T>(a, buf, c * SC);
    __syncthreads();
    for (int w = ST / 2; w > 0; w >>= 1) {
      if (t < w) sh[t] = Sc<T>::add(sh[t], sh[t + w]);
      __syncthreads();
    }
    if (t == 0) ((T *)a.part)[b] = sh[0];
    __syncthreads();
  }
}

/* A slice's chunk sums into the offsets before each chunk: a block per slice,
   thread t summing its run of chunks in order, the runs' totals scanned as
   in scan_chunk_kernel, then each run rewritten from its offset. (One thread
   walked a slice's chunks: 8192 dependent loads for a 2^24-element cumsum,
   most of its time on the H200.) */
template <typename T>
__global__ void __launch_bounds__(ST) scan_offs_kernel(const scan_args a) {
  TC_SHARED(T, sh, [2][ST]);
  int t = threadIdx.x;
  int64_t run = (a.chunks + ST - 1) / ST, lo = t * run, hi = lo + run < a.chunks ? lo + run : a.chunks;
  for (int64_t s = blockIdx.x; s < a.m; s += gridDim.x) {
    T *p = (T *)a.part + s * a.chunks;
    T tot = Sc<T>::zero();
    for (int64_t c = lo; c < hi; c++) tot = Sc<T>::add(tot, p[c]);
    int cur = 0;
    sh[0][t] = tot;
    __syncthreads();
    for (int w = 1; w < ST; w <<= 1) {
      sh[cur ^ 1][t] = t >= w ? Sc<T>::add(sh[cur][t - w], sh[cur][t]) : sh[cur][t];
      cur ^= 1;
      __syncthreads();
    }
    T acc = t > 0 ? sh[cur][t - 1] : Sc<T>::zero();
    for (int64_t c = lo; c < hi; c++) {
      T v = p[c];
      p[c] = acc;
      acc = Sc<T>::add(acc, v);
    }
    __syncthreads();
  }
}

template <typename T>
__global__ void __launch_bounds__(ST) scan_chunk_kernel(const scan_args a) {
  TC_SHARED(T, buf, [SC]);
  TC_SHARED(T, sh, [2][ST]);
  int t = threadIdx.x, osz = tc_dt_size(a.odt);
  int64_t so = a.nd ? a.ost[a.dim] : 0;
  for (int64_t b = blockIdx.x; b < a.m * a.chunks; b += gridDim.x) {
    int64_t s = b / a.chunks, c = b % a.chunks, jc = c * SC, ib, ob;
    scan_base(a, s, &ib, &ob);
    scan_stage<T>(a, buf, ib, jc);
    int cur = 0;
    sh[0][t] = thread_sum<T>(a, buf, jc);
    __syncthreads();
    for (int w = 1; w < ST; w <<= 1) { /* inclusive scan of the threads' totals */
      sh[cur ^ 1][t] = t >= w ? Sc<T>::add(sh[cur][t - w], sh[cur][t]) : sh[cur][t];
      cur ^= 1;
      __syncthreads();
    }
    T acc = a.chunks > 1 ? ((const T *)a.part)[b] : Sc<T>::zero();
    if (t > 0) acc = Sc<T>::add(acc, sh[cur][t - 1]);
    for (int i = 0; i < SP && jc + t * SP + i < a.len; i++) { /* the running sums, in place */
      acc = Sc<T>::add(acc, buf[t * SP + i]);
      buf[t * SP + i] = acc;
    }
    __syncthreads();
    for (int k = t; k < SC && jc + k < a.len; k += ST) /* stored in element order: adjacent */
      Sc<T>::st(a, a.out + (ob + (jc + k) * so) * osz, buf[k]);
    __syncthreads();
  }
}

/* float32 to float32 along a dim of stride 1 (the common cumsum), on the
 * same chunks of SC: thread t loads its own SP neighbouring elements (two
 * 16-byte loads where they are aligned and inside the slice), scans them in
 * registers in double, and the block scans the threads' totals by warp
 * shuffles and one barrier. The generic kernels stage each chunk in shared
 * memory as doubles and scan it in eight barrier steps, reading it with
 * bank conflicts, and store through the dtype switch: 0.33x torch on the
 * H200 (2^24). SUM: the chunk's sum only (scan_part_kernel's job). An
 * element's sum is ((offset + warps before) + lanes before) + its own
 * prefix: another fixed order than the generic kernels', the same on
 * every run, and never -0.0 (the offset starts at +0.0, as the reference's
 * sum does). */
TC_D void scan_f32_load(const float *x, int64_t j0, int64_t len, double *v) {
  if (j0 + SP <= len && ((uintptr_t)(x + j0) & 15) == 0) {
#pragma unroll
    for (int h = 0; h < SP / 4; h++) {
      tc_ew_words<4> q = *(const tc_ew_words<4> *)(x + j0 + 4 * h);
#pragma unroll
      for (int e = 0; e < 4; e++) v[4 * h + e] = (double)tabi_bits_f32(q.w[e]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < SP; i++) v[i] = j0 + i < len ? (double)x[j0 + i] : 0.0;
  }
}
template <bool SUM>
__global__ void __launch_bounds__(ST) scan_f32_kernel(const scan_args a) {
  TC_SHARED(double, wsh, [ST / 32]); /* the warps' totals (fewer with 64-lane warps) */
  const int t = threadIdx.x, w = TC_WARP, lane = t % w, wid = t / w;
  for (int64_t b = blockIdx.x; b < a.m * a.chunks; b += gridDim.x) {
    int64_t s = b / a.chunks, c = b % a.chunks, ib, ob;
    scan_base(a, s, &ib, &ob);
    int64_t j0 = c * SC + (int64_t)t * SP;
    int nv = j0 >= a.len ? 0 : a.len - j0 < SP ? (int)(a.len - j0) : SP; /* elements in the slice */
    double v[SP];
    scan_f32_load((const float *)a.in + ib, j0, a.len, v);
    double tot = 0; /* the padding is never added */
#pragma unroll
    for (int i = 0; i < SP; i++)
      if (i < nv) {
        tot = i == 0 ? v[0] : tot + v[i];
        v[i] = tot;
      }
    if constexpr (SUM) {
      for (int o = w / 2; o > 0; o >>= 1) tot += TC_SHFL_XOR(tot, o);
      if (lane == 0) wsh[wid] = tot;
      __syncthreads();
      if (t == 0) {
        double r = wsh[0];
        for (int k = 1; k < ST / w; k++) r += wsh[k];
        ((double *)a.part)[b] = r;
      }
    } else {
      double inc = tot; /* inclusive scan of the lanes' totals */
      for (int o = 1; o < w; o <<= 1) {
        double y = TC_SHFL_UP(inc, o);
        if (lane >= o) inc = y + inc;
      }
      double exc = TC_SHFL_UP(inc, 1);
      if (lane == w - 1) wsh[wid] = inc;
      __syncthreads();
      double base = a.chunks > 1 ? ((const double *)a.part)[b] : 0.0;
      for (int k = 0; k < wid; k++) base += wsh[k];
      if (lane > 0) base += exc;
      float *y = (float *)a.out + ob;
      float o[SP];
#pragma unroll
      for (int i = 0; i < SP; i++) o[i] = (float)(base + v[i]);
      if (nv == SP && ((uintptr_t)(y + j0) & 15) == 0) {
#pragma unroll
        for (int h = 0; h < SP / 4; h++) {
          tc_ew_words<4> q;
#pragma unroll
          for (int e = 0; e < 4; e++) q.w[e] = tabi_f32_bits(o[4 * h + e]);
          *(tc_ew_words<4> *)(y + j0 + 4 * h) = q;
        }
      } else {
#pragma unroll
        for (int i = 0; i < SP; i++) /* constant indices: o stays in registers */
          if (i < nv) y[j0 + i] = o[i];
      }
    }
    __syncthreads(); /* wsh is rewritten by the next chunk */
  }
}

template <typename T>
static tabi_status scan_launch(tc_ctx *c, const char *op, DLDevice dev, scan_args *a) {
  if (a->len <= 64 || a->m >= 8192) {
    TC_LAUNCH(tc_grid(a->m, 128), 128, scan_seq_kernel<T>)(*a);
    return tc_launch_status(c, op);
  }
  a->chunks = (a->len + SC - 1) / SC;
  int f32 = std::is_same<T, double>::value && a->dt == TABI_DTYPE_FLOAT32 && a->as == TABI_DTYPE_FLOAT32 &&
            a->odt == TABI_DTYPE_FLOAT32 && a->ist[a->dim] == 1 && a->ost[a->dim] == 1;
  int64_t blocks = a->m * a->chunks;
  int g = tc_grid(blocks, 1);
  tabi_tensor *part = NULL;
  tabi_status st = TABI_OK;
  if (a->chunks > 1) {
    int64_t bytes = blocks * (int64_t)sizeof(T);
    if ((st = tc_empty(c, dev, TABI_DTYPE_UINT8, 1, &bytes, &part)) != TABI_OK) return st;
    a->part = tabi_tensor_data(part);
    if (f32) TC_LAUNCH(g, ST, scan_f32_kernel<true>)(*a);
    else TC_LAUNCH(g, ST, scan_part_kernel<T>)(*a);
    st = tc_launch_status(c, op);
    if (st == TABI_OK) {
      TC_LAUNCH(tc_grid(a->m, 1), ST, scan_offs_kernel<T>)(*a);
      st = tc_launch_status(c, op);
    }
  }
  if (st == TABI_OK) {
    if (f32) TC_LAUNCH(g, ST, scan_f32_kernel<false>)(*a);
    else TC_LAUNCH(g, ST, scan_chunk_kernel<T>)(*a);
    st = tc_launch_status(c, op);
  }
  c->h->tensor_release(c->h->ctx, part);
  return st;
}

static tabi_status k_cumsum(TC_ARGS) {
  TC_CTX;
  tabi_tensor *self = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self), as, odt;
  int32_t d;
  tabi_status st = ref_cumsum_check(c->h, call, args, &d, &as, &odt);
  if (st) return st;
  if ((st = tc_check_cuda(c, self, OPN, "self")) || (st = tc_use_device(c, self, OPN))) return st;
  tabi_tensor *out = NULL;
  if ((st = tc_empty(c, self->dl.device, odt, self->dl.ndim, self->dl.shape, &out))) return st;
  scan_args a;
  memset(&a, 0, sizeof a);
  a.in = (const char *)tabi_tensor_data(self);
  a.out = (char *)tabi_tensor_data(out);
  a.dt = dt;
  a.as = as;
  a.odt = odt;
  a.nd = self->dl.ndim;
  a.dim = d;
  a.m = 1;
  a.len = a.nd ? self->dl.shape[d] : 1;
  for (int32_t i = 0; i < a.nd; i++) {
    a.shape[i] = self->dl.shape[i];
    a.ist[i] = self->dl.strides[i];
    a.ost[i] = out->dl.strides[i];
    if (i != d) a.m *= self->dl.shape[i];
  }
  if (tabi_tensor_numel(self) > 0) {
    int cat = tc_category(as);
    st = cat == 0   ? scan_launch<int64_t>(c, OPN, self->dl.device, &a)
         : cat == 1 ? scan_launch<double>(c, OPN, self->dl.device, &a)
                    : scan_launch<tc_c>(c, OPN, self->dl.device, &a);
  }
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, out);
    return st;
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

/* resize_: only contiguous (or preserve) memory formats; the reference's checks. */
static tabi_status k_resize_(TC_ARGS) {
  TC_CTX;
  tabi_tensor *t = args[0].u.t;
  int64_t n = args[1].u.list.len;
  const int64_t *shape = tabi_value_ints(&args[1]);
  tabi_status st = ref_resize_check(c->h, call, args, 0);
  if (st == TABI_OK) st = c->h->tensor_resize(c->h->ctx, t, (int32_t)n, shape);
  if (st != TABI_OK) return st;
  c->h->tensor_retain(c->h->ctx, t);
  outs[0] = tabi_tensor_value(t);
  return TABI_OK;
}

/* --- gather / index_select ------------------------------------------------------ */

/* Index values are checked on the host, in order, as the reference reports the
 * first bad one (a device-side check could only say "some"); see tc.h. */
tabi_status tc_host_copy(tc_ctx *c, const char *op, const tabi_tensor *t, tabi_dtype dt, tabi_tensor **out) {
  tabi_tensor *tmp = NULL;
  DLDevice cpu = {kDLCPU, 0};
  int nonempty = tabi_tensor_numel(t) > 0;
  *out = NULL;
  tabi_status st = tc_empty(c, t->dl.device, dt, t->dl.ndim, t->dl.shape, &tmp);
  if (st == TABI_OK && nonempty) st = tc_copy_convert(c, op, tmp, t);
  if (st == TABI_OK) st = tc_empty(c, cpu, dt, t->dl.ndim, t->dl.shape, out);
  if (st == TABI_OK && nonempty) st = c->h->tensor_copy(c->h->ctx, *out, tmp);
  tc_release_all(c, &tmp, 1);
  if (st != TABI_OK) {
    tc_release_all(c, out, 1);
    *out = NULL;
  }
  return st;
}

tabi_status tc_host_ints(tc_ctx *c, const char *op, const tabi_tensor *idx, int64_t **out, int64_t *n) {
  *n = tabi_tensor_numel(idx);
  *out = (int64_t *)malloc(sizeof(int64_t) * (size_t)(*n > 0 ? *n : 1));
  if (!*out) return TC_ERR(c, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
  if (*n == 0) return TABI_OK;
  tabi_tensor *h64 = NULL;
  tabi_status st = tc_host_copy(c, op, idx, TABI_DTYPE_INT64, &h64);
  if (st == TABI_OK) memcpy(*out, tabi_tensor_data(h64), sizeof(int64_t) * (size_t)*n);
  tc_release_all(c, &h64, 1);
  if (st != TABI_OK) {
    free(*out);
    *out = NULL;
  }
  return st;
}

tabi_status tc_index_bounds(tc_ctx *c, const tabi_call *call, const tabi_tensor *index, int32_t dim, int64_t size) {
  if (tabi_tensor_numel(index) == 0) return TABI_OK;
  int64_t *iv = NULL, n = 0;
  tabi_status st = tc_host_ints(c, tc_op_name(c, call), index, &iv, &n);
  if (st == TABI_OK) st = ref_idx_check_bounds(c->h, call, iv, n, dim, size);
  free(iv);
  return st;
}

typedef struct gather_args {
  const char *self, *idx;
  char *out;
  int32_t nd, dim, esz, idt, mode; /* mode 0 gather, 1 index_select */
  int64_t shape[TC_MAX_DIMS], sst[TC_MAX_DIMS], ist[TC_MAX_DIMS], ost[TC_MAX_DIMS];
  int64_t n;
} gather_args;

__global__ void gather_kernel(const gather_args a) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < a.n; e += stride) {
    int64_t rem = e, so = 0, io = 0, oo = 0, pos[TC_MAX_DIMS];
    for (int d = a.nd - 1; d >= 0; d--) {
      pos[d] = rem % a.shape[d];
      rem /= a.shape[d];
    }
    for (int d = 0; d < a.nd; d++) {
      oo += pos[d] * a.ost[d];
      if (a.mode == 0) io += pos[d] * a.ist[d];
    }
    if (a.mode == 1) io = a.nd ? pos[a.dim] * a.ist[0] : 0;
    int64_t v = tc_ld_i(a.idx + io * tc_dt_size(a.idt), a.idt);
    for (int d = 0; d < a.nd; d++) so += (d == a.dim ? v : pos[d]) * a.sst[d];
    if (a.nd == 0) so = 0;
    tcp_copy(a.out + oo * a.esz, a.self + so * a.esz, a.esz);
  }
}

static int64_t ne_size(const tabi_tensor *t, int32_t d) { return t->dl.ndim ? t->dl.shape[d] : 1; }

/* index_select over a contiguous self (an embedding lookup, say): out,
 * viewed as [outer, n, row] (row: the bytes of the elements after dim),
 * takes at (o, q) self's row (o, index[q]) of [outer, size, row]. A block
 * copies a row in units of U bytes (16 where the row's length and both
 * bases allow), where gather_kernel finds each element's place by nd
 * divisions. */
#define SELECT_ROW_MIN 256 /* bytes a row at least; shorter rows: gather_kernel */
template <int U>
TC_D void copy_units(char *dst, const char *src, int64_t bytes) {
  typedef typename tc_unit_of<U>::type T;
  for (int64_t i = threadIdx.x; i < bytes / U; i += blockDim.x) ((T *)dst)[i] = ((const T *)src)[i];
}

template <int U>
__global__ void __launch_bounds__(128) select_rows_kernel(const char *self, const char *idx, int idt, int64_t ist,
                                                           char *out, int64_t outer, int64_t n, int64_t size,
                                                           int64_t row) {
  for (int64_t r = blockIdx.x; r < outer * n; r += gridDim.x) {
    int64_t o = r / n, q = r % n, v = tc_ld_i(idx + q * ist * tc_dt_size(idt), idt);
    copy_units<U>(out + r * row, self + (o * size + v) * row, row);
  }
}

/* The index values against 0..size-1 along dim: the reference's check
 * (ref_idx_check_bounds) over the values read back in row-major order. */
static tabi_status k_gather(TC_ARGS) {
  TC_CTX;
  tabi_tensor *self = args[0].u.t, *index = args[2].u.t;
  int32_t dim;
  tabi_status st = ref_idx_gather_check(c->h, call, args, &dim);
  if (st) return st;
  int nonempty = tabi_tensor_numel(index) != 0; /* an empty index may live anywhere, as before */
  if ((st = tc_check_cuda(c, self, OPN, "self")) || (nonempty && (st = tc_check_cuda(c, index, OPN, "index"))) ||
      (st = tc_use_device(c, self, OPN)) || (nonempty && (st = tc_index_bounds(c, call, index, dim, ne_size(self, dim)))))
    return st;
  tabi_tensor *out = NULL;
  if ((st = tc_empty(c, self->dl.device, tabi_tensor_dtype(self), index->dl.ndim, index->dl.shape, &out))) return st;
  gather_args a;
  memset(&a, 0, sizeof a);
  a.n = tabi_tensor_numel(index);
  if (a.n > 0) {
    a.self = (const char *)tabi_tensor_data(self);
    a.idx = (const char *)tabi_tensor_data(index);
    a.out = (char *)tabi_tensor_data(out);
    /* a 0-d index or self counts as 1-d of one element (ATen's
       ensure_nonempty_dim): gather(self [3], 0, index 2) is self[2] */
    a.nd = index->dl.ndim ? index->dl.ndim : self->dl.ndim ? 1 : 0;
    a.dim = dim;
    a.esz = (int32_t)tabi_dtype_size(tabi_tensor_dtype(self));
    a.idt = tabi_tensor_dtype(index);
    for (int32_t d = 0; d < a.nd; d++) {
      a.shape[d] = ne_size(index, d);
      a.ist[d] = index->dl.ndim ? index->dl.strides[d] : 0;
      a.ost[d] = out->dl.ndim ? out->dl.strides[d] : 0;
      a.sst[d] = self->dl.ndim ? self->dl.strides[d] : 0;
    }
    TC_LAUNCH(tc_grid(a.n, 128), 128, gather_kernel)(a);
    st = tc_launch_status(c, OPN);
  }
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, out);
    return st;
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

static tabi_status k_index_select(TC_ARGS) {
  TC_CTX;
  tabi_tensor *self = args[0].u.t, *index = args[2].u.t;
  int32_t dim, nd = self->dl.ndim;
  tabi_status st = ref_idx_select_check(c->h, call, args, &dim);
  if (st) return st;
  int64_t n = tabi_tensor_numel(index);
  tabi_dtype idt = tabi_tensor_dtype(index);
  if ((st = tc_check_cuda(c, self, OPN, "self")) || (st = tc_check_cuda(c, index, OPN, "index")) ||
      (st = tc_use_device(c, self, OPN)) || (st = tc_index_bounds(c, call, index, dim, ne_size(self, dim))))
    return st;
  int64_t shape[TC_MAX_DIMS];
  for (int32_t d = 0; d < nd; d++) shape[d] = d == dim ? n : self->dl.shape[d];
  tabi_tensor *out = NULL;
  if ((st = tc_empty(c, self->dl.device, tabi_tensor_dtype(self), nd, shape, &out))) return st;
  gather_args a;
  memset(&a, 0, sizeof a);
  a.n = tabi_tensor_numel(out);
  if (a.n > 0) {
    a.self = (const char *)tabi_tensor_data(self);
    a.idx = (const char *)tabi_tensor_data(index);
    a.out = (char *)tabi_tensor_data(out);
    a.nd = nd;
    a.dim = dim;
    a.esz = (int32_t)tabi_dtype_size(tabi_tensor_dtype(self));
    a.idt = idt;
    a.mode = 1;
    a.ist[0] = index->dl.ndim ? index->dl.strides[0] : 0;
    for (int32_t d = 0; d < nd; d++) {
      a.shape[d] = shape[d];
      a.ost[d] = out->dl.strides[d];
      a.sst[d] = self->dl.strides[d];
    }
    int64_t outer = 1, row = a.esz;
    for (int32_t d = 0; d < nd; d++) {
      if (d < dim) outer *= shape[d];
      if (d > dim) row *= shape[d];
    }
    if (nd > 0 && row >= SELECT_ROW_MIN && tabi_tensor_is_contiguous(self)) {
      int u = tc_unit_for((uint64_t)row | (uint64_t)(uintptr_t)a.self | (uint64_t)(uintptr_t)a.out);
      int64_t size = self->dl.shape[dim];
      int g = tc_grid(outer * n, 1);
#define SR(U) TC_LAUNCH(g, 128, select_rows_kernel<U>)(a.self, a.idx, idt, a.ist[0], a.out, outer, n, size, row)
      switch (u) {
        case 16: SR(16); break;
        case 8: SR(8); break;
        case 4: SR(4); break;
        case 2: SR(2); break;
        default: SR(1); break;
      }
#undef SR
    } else {
      TC_LAUNCH(tc_grid(a.n, 128), 128, gather_kernel)(a);
    }
    st = tc_launch_status(c, OPN);
  }
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, out);
    return st;
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

TC_KTABLE tc_kernel tc_index_kernels[] = {
    {"aten::argmax", k_argmax},   {"aten::argmin", k_argmin}, {"aten::max.dim", k_max_dim},
    {"aten::min.dim", k_min_dim}, {"aten::cumsum", k_cumsum}, {"aten::resize_", k_resize_},
    {"aten::gather", k_gather},   {"aten::index_select", k_index_select},
    {NULL, NULL}};
