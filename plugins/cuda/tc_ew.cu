/* plugins/cuda/tc_ew.cu: the strided elementwise engine: one kernel per value
 * category (int64, double, complex double) and arity, the element function
 * chosen by a selector that is uniform across the launch (no divergence).
 * Floating types compute in double and round once at the store, as the
 * reference does, so results match it to the last bit wherever CUDA's double
 * math agrees with glibc's. Four shapes of launch: a float32 contiguous fast
 * path for add/sub/mul/div (vector loads) and the vector kernels for other
 * contiguous float32/float16/bfloat16 launches of the cheap element functions
 * (the *_lean switches), one loop per op, in float where that gives the same
 * bits, both in tc_ew_vec.cu; here the flat kernel for the other one-dim
 * launches of those functions, and the strided kernel for the rest, in a
 * lean instance for those functions and a full one with the special
 * functions. */
#include <stdio.h>

#include "tc_ew_launch.cuh" /* tc_ew_launch_args, the vector kernels' entry */


/* --- the kernels ---------------------------------------------------------------- */

/* A value category's loads, Scalar operands, stores and element functions
 * (LEAN: the *_lean switches only, see tc_ew_lean), so the kernels below are
 * written once for the three. */
#define TC_DF static __device__ __forceinline__
template <int CAT> struct tc_ew_cat;
template <> struct tc_ew_cat<0> {
  typedef int64_t v;
  TC_DF v load(const char *p, int dt, int cd) { return tc_load_i(p, dt, cd); }
  TC_DF v scalar(const tc_ew_params &p, int k) { return p.si[k]; }
  TC_DF void store(char *p, int dt, v x) { tc_st_i(p, dt, x); }
  template <bool LEAN> TC_DF v un(const tc_ew_params &p, v a) { return un_i(p.op, a, p); }
  template <bool LEAN> TC_DF v bin(const tc_ew_params &p, v a, v b, int *err) {
    if constexpr (LEAN) return bin_i_lean(p.op, a, b, p);
    else return bin_i(p.op, a, b, p, err);
  }
};
template <> struct tc_ew_cat<1> {
  typedef double v;
  TC_DF v load(const char *p, int dt, int cd) { return tc_load_f(p, dt, cd); }
  TC_DF v scalar(const tc_ew_params &p, int k) { return p.sf[k][0]; }
  TC_DF void store(char *p, int dt, v x) { tc_st_f(p, dt, x); }
  template <bool LEAN> TC_DF v un(const tc_ew_params &p, v a) {
    if constexpr (LEAN) return un_f_lean(p.op, a, p);
    else return un_f(p.op, a, p);
  }
  template <bool LEAN> TC_DF v bin(const tc_ew_params &p, v a, v b, int *err) {
    if constexpr (LEAN) return bin_f_lean(p.op, a, b, p);
    else return bin_f(p.op, a, b, p);
  }
};
template <> struct tc_ew_cat<2> {
  typedef tc_c v;
  TC_DF v load(const char *p, int dt, int cd) { return tc_load_c(p, dt, cd); }
  TC_DF v scalar(const tc_ew_params &p, int k) { return tc_c(p.sf[k][0], p.sf[k][1]); }
  TC_DF void store(char *p, int dt, v x) { tc_st_c(p, dt, x); }
  template <bool LEAN> TC_DF v un(const tc_ew_params &p, v a) {
    if constexpr (LEAN) return un_c_lean(p.op, a);
    else return un_c(p.op, a);
  }
  template <bool LEAN> TC_DF v bin(const tc_ew_params &p, v a, v b, int *err) {
    if constexpr (LEAN) return bin_c_lean(p.op, a, b, p);
    else return bin_c(p.op, a, b, p);
  }
};
#undef TC_DF

/* LEAN: the element function is one of the *_lean switches' (tc_ew_lean), so
   the kernel is compiled without the special functions and their registers
   (a transposed copy, a broadcast add); the flat kernel below takes the
   one-dim launches of those. */
template <int CAT, int NIN, bool LEAN>
__global__ void __launch_bounds__(256) tc_ew_kernel(const tc_ew_launch_args a) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += stride) {
    int64_t off[TC_MAX_OPS] = {0, 0, 0, 0};
    if (a.nd == 1) { /* most launches after coalescing: no 64-bit division */
#pragma unroll
      for (int k = 0; k <= NIN; k++) off[k] = i * a.o[k].st[0];
    } else {
      int64_t rem = i;
      for (int d = a.nd - 1; d >= 0; d--) {
        int64_t s = a.shape[d], idx = rem % s;
        rem /= s;
#pragma unroll
        for (int k = 0; k <= NIN; k++) off[k] += idx * a.o[k].st[d];
      }
    }
    const char *in[3] = {NULL, NULL, NULL}; /* NULL: a Scalar operand (a.p.si / a.p.sf) */
#pragma unroll
    for (int k = 0; k < NIN; k++)
      in[k] = a.o[k + 1].ptr ? (const char *)a.o[k + 1].ptr + off[k + 1] * tc_dt_size(a.o[k + 1].dt)
                             : NULL;
    char *out = (char *)a.o[0].ptr + off[0] * tc_dt_size(a.o[0].dt);
    int od = a.o[0].dt;
    if (NIN == 3 && a.p.op == TC_T_CLAMP) { /* as the reference's k_clamp_tensor */
      int mn = (a.p.pi & TC_CLAMP_MIN) != 0, mx = (a.p.pi & TC_CLAMP_MAX) != 0;
      if (CAT == 0) {
        int64_t v = tc_load_i(in[0], a.o[1].dt, a.cd);
        if (mn && v < tc_load_i(in[1], a.o[2].dt, a.cd)) v = tc_load_i(in[1], a.o[2].dt, a.cd);
        if (mx && v > tc_load_i(in[2], a.o[3].dt, a.cd)) v = tc_load_i(in[2], a.o[3].dt, a.cd);
        tc_st_i(out, od, v);
      } else {
        double v = tc_load_f(in[0], a.o[1].dt, a.cd);
        double lo = mn ? tc_load_f(in[1], a.o[2].dt, a.cd) : 0.0;
        double hi = mx ? tc_load_f(in[2], a.o[3].dt, a.cd) : 0.0;
        if (mn && mx && (isnan(lo) || isnan(hi))) {
          v = NAN;
        } else if (!isnan(v)) {
          if (mn && (isnan(lo) || v < lo)) v = lo;
          if (mx && (isnan(hi) || v > hi)) v = hi;
        }
        tc_st_f(out, od, v);
      }
    } else if (NIN == 3) { /* where(pred, x, y) */
      int pick = tc_ld_i(in[0], a.o[1].dt) != 0 ? 1 : 2;
      const char *src = in[pick];
      int sdt = a.o[pick + 1].dt;
      if (CAT == 0) tc_st_i(out, od, tc_load_i(src, sdt, a.cd));
      else if (CAT == 1) tc_st_f(out, od, tc_load_f(src, sdt, a.cd));
      else tc_st_c(out, od, tc_load_c(src, sdt, a.cd));
    } else {
      typedef tc_ew_cat<CAT> C;
      typename C::v x = in[0] ? C::load(in[0], a.o[1].dt, a.cd) : C::scalar(a.p, 0);
      if (NIN == 1) {
        x = C::template un<LEAN>(a.p, x);
      } else {
        typename C::v y = in[1] ? C::load(in[1], a.o[2].dt, a.cd) : C::scalar(a.p, 1);
        x = C::template bin<LEAN>(a.p, x, y, a.err);
      }
      C::store(out, od, x);
    }
  }
}

/* The flat kernel: one dim after coalescing (every operand contiguous, or a
 * broadcast scalar with stride 0) and a lean element function (the *_lean
 * switches above: copies and conversions, arithmetic, comparisons, the
 * activations). Each thread takes TC_EW_UNROLL elements a block apart and
 * issues all their loads before any is used, so a warp keeps several memory
 * requests in flight where the strided kernel waits out one latency per
 * element; and it is compiled without the special functions, whose code sets
 * the strided kernel's register count (and so how many threads an SM holds).
 * Same loads, element functions and stores as tc_ew_kernel: the same bits. */
#define TC_EW_UNROLL 4
template <int CAT, int NIN>
__global__ void __launch_bounds__(256) tc_ew_flat_kernel(const tc_ew_launch_args a) {
  typedef tc_ew_cat<CAT> C;
  typename C::v x[TC_EW_UNROLL][NIN];
  const int64_t nt = blockDim.x, step = (int64_t)gridDim.x * nt * TC_EW_UNROLL;
  for (int64_t base = (int64_t)blockIdx.x * nt * TC_EW_UNROLL + threadIdx.x; base < a.n; base += step) {
#pragma unroll
    for (int u = 0; u < TC_EW_UNROLL; u++) {
      int64_t i = base + u * nt;
#pragma unroll
      for (int k = 0; k < NIN; k++) {
        const tc_operand &o = a.o[k + 1];
        x[u][k] = !o.ptr ? C::scalar(a.p, k)
                  : i < a.n ? C::load((const char *)o.ptr + i * o.st[0] * tc_dt_size(o.dt), o.dt, a.cd)
                            : typename C::v();
      }
    }
#pragma unroll
    for (int u = 0; u < TC_EW_UNROLL; u++) {
      int64_t i = base + u * nt;
      if (i >= a.n) break;
      typename C::v r = NIN == 1 ? C::template un<true>(a.p, x[u][0])
                                 : C::template bin<true>(a.p, x[u][0], x[u][NIN - 1], NULL);
      C::store((char *)a.o[0].ptr + i * a.o[0].st[0] * tc_dt_size(a.o[0].dt), a.o[0].dt, r);
    }
  }
}

/* --- host side ------------------------------------------------------------------- */

void tc_operand_of(const tabi_tensor *t, int32_t nd, const int64_t *shape, tc_operand *o) {
  memset(o, 0, sizeof *o);
  o->ptr = tabi_tensor_data(t);
  o->dt = tabi_tensor_dtype(t);
  int32_t tn = t->dl.ndim;
  for (int32_t i = 0; i < nd; i++) {
    int32_t j = i - (nd - tn);
    o->st[i] = (j < 0 || t->dl.shape[j] == 1 || shape[i] == 1) ? 0 : t->dl.strides[j];
  }
}

/* A small device buffer from the core's caching allocator on the current device. */
static tabi_status scratch(tc_ctx *c, int64_t nbytes, tabi_tensor **out) {
  int dev = 0;
  cudaGetDevice(&dev);
  DLDevice d = {TC_DL_DEVICE, dev};
  return tc_empty(c, d, TABI_DTYPE_UINT8, 1, &nbytes, out);
}

/* Merges adjacent dims that every operand walks contiguously, and drops size-1
 * dims, so most launches index with one division. */
static void coalesce(tc_ew_launch_args *a, int32_t nops) {
  int32_t k = 0;
  for (int32_t d = 0; d < a->nd; d++) {
    if (a->shape[d] == 1) continue;
    if (k > 0) {
      int ok = 1;
      for (int32_t o = 0; o < nops && ok; o++)
        ok = a->o[o].st[k - 1] == a->o[o].st[d] * a->shape[d];
      if (ok) {
        a->shape[k - 1] *= a->shape[d];
        for (int32_t o = 0; o < nops; o++) a->o[o].st[k - 1] = a->o[o].st[d];
        continue;
      }
    }
    a->shape[k] = a->shape[d];
    for (int32_t o = 0; o < nops; o++) a->o[o].st[k] = a->o[o].st[d];
    k++;
  }
  a->nd = k;
}

tabi_status tc_ew_launch(tc_ctx *c, const char *op, int32_t nd, const int64_t *shape,
                         const tc_operand *out, int32_t nin, const tc_operand *in,
                         const tc_ew_params *p, int *out_zero_div) {
  if (out_zero_div) *out_zero_div = 0;
  if (nd > TC_MAX_DIMS)
    return TC_ERR(c, TABI_ERR_SHAPE, "%s: %d dims; the CUDA plugin takes at most %d", op, (int)nd,
                  TC_MAX_DIMS);
  tc_ew_launch_args a;
  memset(&a, 0, sizeof a);
  a.nd = nd;
  a.nin = nin;
  a.cd = p->cd;
  a.p = *p;
  a.n = 1;
  for (int32_t i = 0; i < nd; i++) {
    a.shape[i] = shape[i];
    a.n *= shape[i];
  }
  if (a.n == 0) return TABI_OK;
  a.o[0] = *out;
  for (int32_t k = 0; k < nin; k++) a.o[k + 1] = in[k];
  coalesce(&a, nin + 1);
  int cat = tc_category(p->cd), lean = nin <= 2 && tc_ew_lean(cat, nin, p->op);
  /* contiguous float32/float16/bfloat16: tc_ew_vec.cu's kernels */
  if (a.nd == 1 && cat == 1 && tc_ew_vec_launch(&a, lean)) return tc_launch_status(c, op);
  if (a.nd == 1 && lean) {
    int64_t g = (a.n + 256 * TC_EW_UNROLL - 1) / (256 * TC_EW_UNROLL);
    int grid = (int)(g > 65536 ? 65536 : g);
#define TC_EW_FLAT(CAT)                                                              \
  if (nin == 1) TC_LAUNCH(grid, 256, tc_ew_flat_kernel<CAT, 1>)(a);                  \
  else TC_LAUNCH(grid, 256, tc_ew_flat_kernel<CAT, 2>)(a);
    if (cat == 0) {
      TC_EW_FLAT(0)
    } else if (cat == 1) {
      TC_EW_FLAT(1)
    } else {
      TC_EW_FLAT(2)
    }
#undef TC_EW_FLAT
    return tc_launch_status(c, op);
  }
  int *err = NULL;
  int need_err = nin == 2 && cat == 0 &&
                 (p->op == TC_B_DIV || p->op == TC_B_DIV_TRUNC || p->op == TC_B_DIV_FLOOR ||
                  p->op == TC_B_FMOD || p->op == TC_B_REM);
  tabi_tensor *err_t = NULL;
  if (need_err) {
    /* from the caching allocator: no cudaMalloc/cudaFree (each would sync) */
    tabi_status est = scratch(c, 4, &err_t);
    if (est != TABI_OK) return est;
    err = (int *)tabi_tensor_data(err_t);
    cudaMemsetAsync(err, 0, sizeof(int), 0);
    a.err = err;
  }
  int g = tc_ew_grid(a.n);
#define TC_EW_LAUNCH(CAT)                                                                   \
  if (lean && nin == 1) TC_LAUNCH(g, 256, tc_ew_kernel<CAT, 1, true>)(a);                   \
  else if (lean) TC_LAUNCH(g, 256, tc_ew_kernel<CAT, 2, true>)(a);                          \
  else if (nin == 1) TC_LAUNCH(g, 256, tc_ew_kernel<CAT, 1, false>)(a);                     \
  else if (nin == 2) TC_LAUNCH(g, 256, tc_ew_kernel<CAT, 2, false>)(a);                     \
  else TC_LAUNCH(g, 256, tc_ew_kernel<CAT, 3, false>)(a);
  if (cat == 0) {
    TC_EW_LAUNCH(0)
  } else if (cat == 1) {
    TC_EW_LAUNCH(1)
  } else {
    TC_EW_LAUNCH(2)
  }
#undef TC_EW_LAUNCH
  tabi_status st = tc_launch_status(c, op);
  if (need_err) {
    int flag = 0;
    if (st == TABI_OK)
      st = tc_cuda_status(c, cudaMemcpy(&flag, err, sizeof flag, cudaMemcpyDeviceToHost), op,
                          "cudaMemcpy");
    c->h->tensor_release(c->h->ctx, err_t);
    if (out_zero_div) *out_zero_div = flag;
  }
  return st;
}

tabi_status tc_copy_convert(tc_ctx *c, const char *op, tabi_tensor *dst, const tabi_tensor *src) {
  tabi_status st = tc_use_device(c, dst, op);
  if (st != TABI_OK) return st;
  tc_operand o, i;
  tc_operand_of(dst, dst->dl.ndim, dst->dl.shape, &o);
  /* dst keeps its own strides, even where they are 0 or the dim is 1 */
  for (int32_t d = 0; d < dst->dl.ndim; d++) o.st[d] = dst->dl.shape[d] == 1 ? 0 : dst->dl.strides[d];
  tc_operand_of(src, dst->dl.ndim, dst->dl.shape, &i);
  int tiled = 0;
  st = tc_copy_tiled(c, op, dst->dl.ndim, dst->dl.shape, &o, &i, &tiled);
  if (st != TABI_OK || tiled) return st;
  tc_ew_params p;
  memset(&p, 0, sizeof p);
  p.op = TC_U_IDENT;
  p.cd = tabi_tensor_dtype(dst);
  return tc_ew_launch(c, op, dst->dl.ndim, dst->dl.shape, &o, 1, &i, &p, NULL);
}

tabi_status tc_contiguous(tc_ctx *c, const char *op, tabi_tensor *t, tabi_tensor **out) {
  if (tabi_tensor_is_contiguous(t)) {
    c->h->tensor_retain(c->h->ctx, t);
    *out = t;
    return TABI_OK;
  }
  tabi_tensor *r = NULL;
  tabi_status st = tc_empty(c, t->dl.device, tabi_tensor_dtype(t), t->dl.ndim, t->dl.shape, &r);
  if (st == TABI_OK) st = tc_copy_convert(c, op, r, t);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, r);
    return st;
  }
  *out = r;
  return TABI_OK;
}

/* Fill: the scalar is stored once on the host with the element conversion, then
 * broadcast by a 0-stride copy from a one-element device buffer. */
tabi_status tc_fill(tc_ctx *c, const char *op, tabi_tensor *t, const tabi_value *v) {
  tabi_status st = tc_use_device(c, t, op);
  if (st != TABI_OK) return st;
  tabi_dtype dt = tabi_tensor_dtype(t);
  alignas(16) unsigned char buf[16];
  memset(buf, 0, sizeof buf);
  /* host-side twins of the device stores, through a tiny kernel-free path */
  double re = tabi_value_as_double(v), im = v->tag == TABI_TAG_COMPLEX ? v->u.c[1] : 0.0;
  int64_t iv = v->tag == TABI_TAG_INT || v->tag == TABI_TAG_BOOL ? v->u.i : 0;
  int is_int = v->tag == TABI_TAG_INT || v->tag == TABI_TAG_BOOL;
  switch (dt) {
    case TABI_DTYPE_BOOL: buf[0] = is_int ? iv != 0 : (re != 0 || im != 0); break;
    case TABI_DTYPE_UINT8: { uint8_t x = is_int ? (uint8_t)iv : (uint8_t)(int32_t)re; memcpy(buf, &x, 1); break; }
    case TABI_DTYPE_INT8: { int8_t x = is_int ? (int8_t)iv : (int8_t)(int32_t)re; memcpy(buf, &x, 1); break; }
    case TABI_DTYPE_INT16: { int16_t x = is_int ? (int16_t)iv : (int16_t)(int32_t)re; memcpy(buf, &x, 2); break; }
    case TABI_DTYPE_INT32: { int32_t x = is_int ? (int32_t)iv : (int32_t)re; memcpy(buf, &x, 4); break; }
    case TABI_DTYPE_INT64: { int64_t x = is_int ? iv : (int64_t)re; memcpy(buf, &x, 8); break; }
    case TABI_DTYPE_FLOAT16: { uint16_t x = tabi_f32_to_f16(is_int ? (float)iv : (float)re); memcpy(buf, &x, 2); break; }
    case TABI_DTYPE_BFLOAT16: { uint16_t x = tabi_f32_to_bf16(is_int ? (float)iv : (float)re); memcpy(buf, &x, 2); break; }
    case TABI_DTYPE_FLOAT32: { float x = is_int ? (float)iv : (float)re; memcpy(buf, &x, 4); break; }
    case TABI_DTYPE_FLOAT64: { double x = is_int ? (double)iv : re; memcpy(buf, &x, 8); break; }
    case TABI_DTYPE_COMPLEX64: { float x[2] = {is_int ? (float)iv : (float)re, (float)im}; memcpy(buf, x, 8); break; }
    case TABI_DTYPE_COMPLEX128: { double x[2] = {is_int ? (double)iv : re, im}; memcpy(buf, x, 16); break; }
    default: return TC_ERR(c, TABI_ERR_TYPE, "%s: unsupported dtype %s", op, tabi_dtype_name(dt));
  }
  int64_t n = tabi_tensor_numel(t);
  if (n == 0) return TABI_OK;
  int64_t esz = tabi_dtype_size(dt);
  /* A contiguous fill of a byte pattern that repeats: memset. */
  int same = 1;
  for (int64_t b = 1; b < esz; b++) same &= buf[b] == buf[0];
  if (same && tabi_tensor_is_contiguous(t))
    return tc_cuda_status(c, cudaMemsetAsync(tabi_tensor_data(t), buf[0], (size_t)(n * esz), 0), op,
                          "cudaMemsetAsync");
  tabi_tensor *one_t = NULL;
  if ((st = scratch(c, 16, &one_t)) != TABI_OK) return st;
  void *one = tabi_tensor_data(one_t);
  /* pageable source: staged before the call returns, so buf may go */
  st = tc_cuda_status(c, cudaMemcpyAsync(one, buf, 16, cudaMemcpyHostToDevice, 0), op, "cudaMemcpyAsync");
  if (st == TABI_OK) {
    tc_operand o, i;
    tc_operand_of(t, t->dl.ndim, t->dl.shape, &o);
    for (int32_t d = 0; d < t->dl.ndim; d++) o.st[d] = t->dl.shape[d] == 1 ? 0 : t->dl.strides[d];
    memset(&i, 0, sizeof i);
    i.ptr = one;
    i.dt = dt;
    tc_ew_params p;
    memset(&p, 0, sizeof p);
    p.op = TC_U_IDENT;
    p.cd = dt;
    st = tc_ew_launch(c, op, t->dl.ndim, t->dl.shape, &o, 1, &i, &p, NULL);
  }
  /* back to the cache: the next user is ordered after this launch on stream 0 */
  c->h->tensor_release(c->h->ctx, one_t);
  return st;
}
