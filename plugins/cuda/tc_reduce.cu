/* plugins/cuda/tc_reduce.cu: prims::sum/prod/amax/amin/var.
 *
 * Deterministic tree reductions, no atomics: one block per output element, each
 * thread folds a contiguous chunk of the group in order, then the block combines
 * the partials pairwise in a fixed order, so the same input gives the same bits
 * on every run, and amax/amin keep the first of equal values (-0.0 vs 0.0) as
 * the reference does. Accumulation is in int64 (wrapping), double or complex
 * double, rounded once at the store. Argument handling is the reference's own
 * planner (tc_ref_glue.c). */
#include "tc_ew_dev.cuh"
#include "tc_ref_glue.h"

enum { RK_SUM, RK_PROD, RK_AMAX, RK_AMIN, RK_VAR };
#define RT 256

typedef struct red_args {
  const char *in;
  char *out;
  int32_t in_dt, as, out_dt, kind;
  int32_t ond, ind;
  int64_t oshape[TC_MAX_DIMS], ost[TC_MAX_DIMS];
  int64_t ishape[TC_MAX_DIMS], ist[TC_MAX_DIMS];
  int64_t m, g;
  int64_t correction;
} red_args;

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

TC_D double pick(int kind, double acc, double v) {
  if (isnan(acc)) return acc;
  if (isnan(v)) return v;
  if (kind == RK_AMAX) return v > acc ? v : acc;
  return v < acc ? v : acc;
}

template <typename T>
struct Acc;
template <>
struct Acc<int64_t> {
  static __device__ int64_t load(const red_args &a, const char *p) { return tc_load_i(p, a.in_dt, a.as); }
  static __device__ int64_t init(int kind) { return kind == RK_PROD ? 1 : 0; }
  static __device__ int64_t comb(int kind, int64_t x, int64_t y) {
    switch (kind) {
      case RK_PROD: return (int64_t)((uint64_t)x * (uint64_t)y);
      case RK_AMAX: return y > x ? y : x;
      case RK_AMIN: return y < x ? y : x;
      default: return (int64_t)((uint64_t)x + (uint64_t)y);
    }
  }
  static __device__ void store(const red_args &a, char *p, int64_t v) { tc_st_i(p, a.out_dt, v); }
};
template <>
struct Acc<double> {
  static __device__ double load(const red_args &a, const char *p) { return tc_load_f(p, a.in_dt, a.as); }
  static __device__ double init(int kind) { return kind == RK_PROD ? 1.0 : 0.0; }
  static __device__ double comb(int kind, double x, double y) {
    switch (kind) {
      case RK_PROD: return x * y;
      case RK_AMAX: case RK_AMIN: return pick(kind, x, y);
      default: return x + y;
    }
  }
  static __device__ void store(const red_args &a, char *p, double v) { tc_st_f(p, a.out_dt, v); }
};
template <>
struct Acc<tc_c> {
  static __device__ tc_c load(const red_args &a, const char *p) { return tc_load_c(p, a.in_dt, a.as); }
  static __device__ tc_c init(int kind) { return kind == RK_PROD ? tc_c(1, 0) : tc_c(0, 0); }
  static __device__ tc_c comb(int kind, tc_c x, tc_c y) { return kind == RK_PROD ? x * y : x + y; }
  static __device__ void store(const red_args &a, char *p, tc_c v) { tc_st_c(p, a.out_dt, v); }
};

template <typename T>
__device__ T block_fold(T v, int kind, int has, T *sh, int *shas) {
  sh[threadIdx.x] = v;
  shas[threadIdx.x] = has;
  __syncthreads();
  for (int s = RT / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      int l = threadIdx.x, r = threadIdx.x + s;
      if (shas[r]) {
        sh[l] = shas[l] ? Acc<T>::comb(kind, sh[l], sh[r]) : sh[r];
        shas[l] = 1;
      }
    }
    __syncthreads();
  }
  T r = sh[0];
  __syncthreads();
  return r;
}

template <typename T>
__global__ void __launch_bounds__(RT) red_kernel(const red_args a) {
  __shared__ T sh[RT];
  __shared__ int shas[RT];
  int64_t chunk = (a.g + RT - 1) / RT;
  int64_t lo = threadIdx.x * chunk, hi = lo + chunk < a.g ? lo + chunk : a.g;
  int esz = tc_dt_size(a.in_dt), osz = tc_dt_size(a.out_dt);
  for (int64_t m = blockIdx.x; m < a.m; m += gridDim.x) {
    int64_t base = 0, rem = m;
    for (int d = a.ond - 1; d >= 0; d--) {
      base += (rem % a.oshape[d]) * a.ost[d];
      rem /= a.oshape[d];
    }
    T acc = Acc<T>::init(a.kind);
    int has = 0;
    for (int64_t j = lo; j < hi; j++) {
      T v = Acc<T>::load(a, a.in + (base + inner_off(a, j)) * esz);
      acc = has ? Acc<T>::comb(a.kind, acc, v) : (a.kind == RK_AMAX || a.kind == RK_AMIN ? v : Acc<T>::comb(a.kind, acc, v));
      has = 1;
    }
    T r = block_fold<T>(acc, a.kind, has, sh, shas);
    if (threadIdx.x == 0) Acc<T>::store(a, a.out + m * osz, a.g == 0 ? Acc<T>::init(a.kind) : r);
  }
}

/* var: mean (complex double), then the sum of squared distances, both in order. */
__global__ void __launch_bounds__(RT) var_kernel(const red_args a) {
  __shared__ tc_c sh[RT];
  __shared__ double shd[RT];
  __shared__ int shas[RT];
  int64_t chunk = (a.g + RT - 1) / RT;
  int64_t lo = threadIdx.x * chunk, hi = lo + chunk < a.g ? lo + chunk : a.g;
  int esz = tc_dt_size(a.in_dt), osz = tc_dt_size(a.out_dt);
  for (int64_t m = blockIdx.x; m < a.m; m += gridDim.x) {
    int64_t base = 0, rem = m;
    for (int d = a.ond - 1; d >= 0; d--) {
      base += (rem % a.oshape[d]) * a.ost[d];
      rem /= a.oshape[d];
    }
    tc_c s(0, 0);
    for (int64_t j = lo; j < hi; j++) s += tc_ld_c(a.in + (base + inner_off(a, j)) * esz, a.in_dt);
    tc_c mean = block_fold<tc_c>(s, RK_SUM, lo < hi, sh, shas) / (double)a.g;
    double m2 = 0;
    for (int64_t j = lo; j < hi; j++) {
      tc_c d = tc_ld_c(a.in + (base + inner_off(a, j)) * esz, a.in_dt) - mean;
      m2 += d.real() * d.real() + d.imag() * d.imag();
    }
    double tot = block_fold<double>(m2, RK_SUM, lo < hi, shd, shas);
    if (threadIdx.x == 0) {
      double div = (double)a.g - (double)a.correction;
      if (div < 0) div = 0;
      tc_st_f(a.out + m * osz, a.out_dt, a.g == 0 ? NAN : tot / div);
    }
  }
}

/* Runs a reduction of `self` planned by `r` into a new tensor. */
static tabi_status red_run(tc_ctx *c, const char *op, const tabi_tensor *self, const tc_red_plan *r,
                           int kind, tabi_dtype as, tabi_dtype out_dt, int64_t correction,
                           tabi_value *outs) {
  tabi_status st = tc_check_cuda(c, self, op, "inp");
  if (st == TABI_OK) st = tc_use_device(c, self, op);
  if (st != TABI_OK) return st;
  tabi_tensor *out = NULL;
  if ((st = tc_empty(c, self->dl.device, out_dt, r->out_ndim, r->out_shape, &out)) != TABI_OK)
    return st;
  red_args a;
  memset(&a, 0, sizeof a);
  a.in = (const char *)tabi_tensor_data(self);
  a.out = (char *)tabi_tensor_data(out);
  a.in_dt = tabi_tensor_dtype(self);
  a.as = as;
  a.out_dt = out_dt;
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
  if (a.ind == 0) {
    a.ishape[0] = 1;
    a.ist[0] = 0;
    a.ind = 1;
  }
  if (a.m > 0) {
    int grid = a.m > 65535 ? 65535 : (int)a.m;
    int cat = tc_category(as);
    if (kind == RK_VAR) TC_LAUNCH(grid, RT, var_kernel)(a);
    else if (cat == 0) TC_LAUNCH(grid, RT, red_kernel<int64_t>)(a);
    else if (cat == 1) TC_LAUNCH(grid, RT, red_kernel<double>)(a);
    else TC_LAUNCH(grid, RT, red_kernel<tc_c>)(a);
    st = tc_launch_status(c, op);
  }
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
  int minmax = kind == RK_AMAX || kind == RK_AMIN;
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
    return red_run(c, OPN, inp, &r, kind, dt, odt, 0, outs);
  }
  return red_run(c, OPN, inp, &r, kind, odt, odt, 0, outs);
}
static tabi_status k_sum(TC_ARGS) { return prim_reduce(ctx, call, args, outs, RK_SUM); }
static tabi_status k_prod(TC_ARGS) { return prim_reduce(ctx, call, args, outs, RK_PROD); }
static tabi_status k_amax(TC_ARGS) { return prim_reduce(ctx, call, args, outs, RK_AMAX); }
static tabi_status k_amin(TC_ARGS) { return prim_reduce(ctx, call, args, outs, RK_AMIN); }

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
  return red_run(c, OPN, inp, &r, RK_VAR, dt, odt, args[2].u.i, outs);
}

TC_KTABLE tc_kernel tc_reduce_kernels[] = {
    {"prims::sum", k_sum},   {"prims::prod", k_prod}, {"prims::amax", k_amax},
    {"prims::amin", k_amin}, {"prims::var", k_var},   {NULL, NULL}};
