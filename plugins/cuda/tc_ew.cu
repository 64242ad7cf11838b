/* plugins/cuda/tc_ew.cu: the strided elementwise engine: one kernel per value
 * category (int64, double, complex double) and arity, the element function
 * chosen by a selector that is uniform across the launch (no divergence).
 * Floating types compute in double and round once at the store, as the
 * reference does, so results match it to the last bit wherever CUDA's double
 * math agrees with glibc's. Four shapes of launch: a float32 contiguous fast
 * path for add/sub/mul/div (vector loads); the vector kernels for other
 * contiguous float32/float16/bfloat16 launches of the cheap element functions
 * (the *_lean switches), one loop per op, in float where that gives the same
 * bits; the flat kernel for the other one-dim launches of those functions;
 * the strided kernel for the rest, in a lean instance for those functions and
 * a full one with the special functions. */
#include <stdio.h>

#include "tc_ew_fn.cuh" /* the element functions */

typedef struct tc_ew_launch_args {
  int32_t nd, nin, cd;
  int64_t n;
  int64_t shape[TC_MAX_DIMS];
  tc_operand o[TC_MAX_OPS]; /* 0: out, 1..: inputs */
  tc_ew_params p;
  int *err;
} tc_ew_launch_args;

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

/* The flat kernel over contiguous float32, float16 and bfloat16 operands
 * (tensor inputs ISZ bytes an element, the output OSZ): a vector of four
 * elements, eight for 2-byte to 2-byte, per load (TC_EW_VEC_EL),
 * TC_EW_VEC_UNROLL loads a thread before any is used. The elements travel as
 * 32-bit words (no byte arrays, which would live in local memory) and go
 * through the reference's conversions (tabi/half.h, as ref_cast.h's loads and
 * stores of these dtypes). The last n % 4 (or 8) elements are the first
 * threads' of block 0.
 *
 * The element function is a template argument: the kernel switches on the
 * op once, and each case is a loop with that op inlined. (Until 2026-11-30
 * the switch sat inside the loop, so the loop held 16 inlined copies of
 * every element function, 20,000 PTX lines for one instance: the H200 ran
 * relu in float16 at 790 GB/s and gelu at 850, fetching instructions, where
 * the same loop around one op reaches the memory's speed.)
 *
 * Two element steps: tc_vec_dbl computes in double and rounds once at the
 * store, as the strided kernel and the reference do; tc_vec_flt computes in
 * float, for the ops whose float result is the same number (tc_ew_vec_float
 * says when): a correctly rounded +, -, *, / or sqrt of float, float16 or
 * bfloat16 operands rounds to the same value through float as through
 * double (24 >= 2p + 2 for their p of 24, 11 and 8 bits), and the rest of
 * the set (compare, select, negate, round to an integer) is exact. Double
 * costs the conversions to and from it on every element, at a quarter of
 * float's rate on an H100/H200. */
#if defined(__HIPCC__) /* clang will not unroll 16 copies of every element function */
#define TC_EW_UNROLL_BODY
#else
#define TC_EW_UNROLL_BODY _Pragma("unroll")
#endif
/* Elements a vector: four, or eight where input and output are 2-byte
   dtypes, so that every load and store is 16 bytes but a float32 side's
   store of 8. (On the H200 relu in float16 went from 2.28 TB/s with 8-byte
   loads to 2.37 with 16-byte ones: what holds it below 4 is elsewhere, not
   yet found.) */
#define TC_EW_VEC_EL(ISZ, OSZ) ((ISZ) == 2 && (OSZ) == 2 ? 8 : 4)
TC_D double tc_vec_dec(uint32_t bits, int dt) {
  return dt == TABI_DTYPE_FLOAT32 ? (double)tabi_bits_f32(bits)
         : dt == TABI_DTYPE_FLOAT16 ? (double)tc_h2f((uint16_t)bits)
                                    : (double)tabi_bf16_to_f32((uint16_t)bits);
}
TC_D uint32_t tc_vec_st(double v, int dt) {
  return dt == TABI_DTYPE_FLOAT32 ? tabi_f32_bits((float)v)
         : dt == TABI_DTYPE_FLOAT16 ? (uint32_t)tc_f2h((float)v)
                                    : (uint32_t)tabi_f32_to_bf16((float)v);
}
/* tc_load_f's: an element of dtype dt as compute dtype cd (rounded to it) */
TC_D double tc_vec_ld(uint32_t bits, int dt, int cd) {
  double v = tc_vec_dec(bits, dt);
  return dt == cd ? v : tc_vec_dec(tc_vec_st(v, cd), cd);
}
/* element e of SZ-byte elements packed in words */
template <int SZ, int W>
TC_D uint32_t tc_vec_get(const tc_ew_words<W> &x, int e) {
  if constexpr (SZ == 4) return x.w[e];
  else return (x.w[e >> 1] >> (16 * (e & 1))) & 0xffffu;
}

/* Element steps: the inputs' bits (a Scalar's value comes from p) to the
 * output's. tc_vec_dbl serves the unary transcendental ops (TC_EW_UN_MATH);
 * every binary op the vector kernels take is exact in float. */
template <int OP>
struct tc_vec_dbl {
  static __device__ __forceinline__ uint32_t run(const tc_ew_launch_args &a, const uint32_t *bits) {
    double x = tc_vec_ld(bits[0], a.o[1].dt, a.cd); /* a tensor (tc_ew_vec_ok) */
    return tc_vec_st(un_f_lean(OP, x, a.p), a.o[0].dt);
  }
};
/* the float twin of un_f_lean's exact cases (bin_lean_v serves both types) */
template <int OP>
TC_D float tc_un_exact(float a, const tc_ew_params &p) {
  switch (OP) {
    case TC_U_SQRT: return sqrtf(a);
    case TC_U_RECIP: return 1.0f / a;
    case TC_U_ABS: return fabsf(a);
    case TC_U_NEG: return -a;
    case TC_U_SIGN: return (float)((0 < a) - (a < 0));
    case TC_U_CEIL: return ceilf(a);
    case TC_U_FLOOR: return floorf(a);
    case TC_U_ROUND: return rintf(a);
    case TC_U_TRUNC: return truncf(a);
    case TC_U_ISFINITE: return isfinite(a) ? 1.0f : 0.0f;
    case TC_U_SIGNBIT: return signbit(a) ? 1.0f : 0.0f;
    case TC_U_RELU: return a < 0 ? 0.0f : a;
    case TC_U_ISNAN: return isnan(a) ? 1.0f : 0.0f;
    case TC_U_ISINF: return isinf(a) ? 1.0f : 0.0f;
    case TC_U_LNOT: return a == 0 ? 1.0f : 0.0f;
    case TC_U_LEAKY_RELU: return a > 0 ? a : a * (float)p.pa[0];
    case TC_U_GELU: /* the erf form (tc_ew_vec_float), not exact: see TC_EW_UN_FLOAT */
      return 0.5f * a * (1.0f + erff(a * 0.707106781f));
    case TC_U_CLAMP:
      if (p.pi & TC_CLAMP_ALL_NAN) return NAN;
      if (!isnan(a)) {
        if ((p.pi & TC_CLAMP_MIN) && a < (float)p.pa[0]) a = (float)p.pa[0];
        if ((p.pi & TC_CLAMP_MAX) && a > (float)p.pa[1]) a = (float)p.pa[1];
      }
      return a;
    default: return a; /* TC_U_IDENT */
  }
}
/* an element of dtype dt (SZ bytes) as a float, exact for the three dtypes */
template <int SZ>
TC_D float tc_vf_dec(uint32_t bits, int dt) {
  if (SZ == 4) return tabi_bits_f32(bits);
  return dt == TABI_DTYPE_FLOAT16 ? tc_h2f((uint16_t)bits) : tabi_bf16_to_f32((uint16_t)bits);
}
template <int SZ>
TC_D uint32_t tc_vf_enc(float v, int dt) {
  if (SZ == 4) return tabi_f32_bits(v);
  return dt == TABI_DTYPE_FLOAT16 ? (uint32_t)tc_f2h(v) : (uint32_t)tabi_f32_to_bf16(v);
}
TC_D float tc_vf_round(float v, int dt) {
  return dt == TABI_DTYPE_FLOAT32 ? v : tc_vf_dec<2>(tc_vf_enc<2>(v, dt), dt);
}
/* H: the dtype of every 2-byte operand (float16 or bfloat16), fixed for the
 * launch (tc_ew_vec_half says when), so each conversion is one instruction
 * sequence with no test of the dtype; 0: any, read from the launch (the
 * float32 case, where there is no 2-byte operand). Until 2026-11-30 every
 * 2-byte launch took the dtypes at run time: each element carried both
 * conversions and a rounding to the compute dtype, selected per element
 * (the H200 ran relu over float16 at 2.4 TB/s where torch moves 4). */
template <int ISZ, int H>
TC_D float tc_vh_dec(uint32_t bits, int dt) {
  if constexpr (ISZ == 4) return tabi_bits_f32(bits);
  else if constexpr (H == TABI_DTYPE_FLOAT16) return tc_h2f((uint16_t)bits);
  else if constexpr (H == TABI_DTYPE_BFLOAT16) return tabi_bf16_to_f32((uint16_t)bits);
  else return tc_vf_dec<ISZ>(bits, dt);
}
template <int OSZ, int H>
TC_D uint32_t tc_vh_enc(float v, int dt) {
  if constexpr (OSZ == 4) return tabi_f32_bits(v);
  else if constexpr (H == TABI_DTYPE_FLOAT16) return (uint32_t)tc_f2h(v);
  else if constexpr (H == TABI_DTYPE_BFLOAT16) return (uint32_t)tabi_f32_to_bf16(v);
  else return tc_vf_enc<OSZ>(v, dt);
}
template <int ISZ, int OSZ, int NIN, int OP, int H>
struct tc_vec_flt {
  static __device__ __forceinline__ uint32_t run(const tc_ew_launch_args &a, const uint32_t *bits) {
    float in[NIN];
#pragma unroll
    for (int k = 0; k < NIN; k++) {
      int dt = a.o[k + 1].dt;
      /* a unary step's input is a tensor (tc_ew_vec_ok); float32 throughout
         (H 0) computes in float32 (tc_ew_vec_half): no test an element */
      if (NIN == 2 && !a.o[k + 1].ptr) in[k] = (float)a.p.sf[k][0];
      else if (H) in[k] = tc_vh_dec<ISZ, H>(bits[k], dt); /* of the compute dtype, or exact in it */
      else if (ISZ == 4) in[k] = tabi_bits_f32(bits[k]);
      else in[k] = dt == a.cd ? tc_vf_dec<ISZ>(bits[k], dt) : tc_vf_round(tc_vf_dec<ISZ>(bits[k], dt), a.cd);
    }
    float y;
    if constexpr (NIN == 1) y = tc_un_exact<OP>(in[0], a.p);
    else y = bin_lean_v<float>(OP, in[0], in[1], 1.0f); /* alpha 1 (tc_ew_vec_float) */
    return tc_vh_enc<OSZ, H>(y, a.o[0].dt);
  }
};

/* relu of a float16 or bfloat16 (H) element, on its bits: the value
 * tc_vec_flt gives (decode, x < 0 ? 0 : x, encode) without the two
 * conversions and the encoder's NaN select, about 20 instructions of the
 * 25 an element took (PTX, sm_90), where an H200's SMs issue about 34 an
 * element at the memory's speed for a 2-byte unary op. A NaN comes back
 * quiet with its payload, as the encoders make it (float16: | 0x200,
 * bfloat16: | 0x40); a negative value or -inf is +0; -0.0 stays. For a
 * tensor input only (the kernel asks). */
template <int H>
struct tc_vec_relu_bits {
  static __device__ __forceinline__ uint32_t run(const tc_ew_launch_args &, const uint32_t *bits) {
    constexpr uint32_t INF = H == TABI_DTYPE_FLOAT16 ? 0x7c00u : 0x7f80u;
    constexpr uint32_t QUIET = H == TABI_DTYPE_FLOAT16 ? 0x200u : 0x40u;
    uint32_t h = bits[0], mag = h & 0x7fffu;
    uint32_t r = (h & 0x8000u) && mag ? 0u : h;
    return mag > INF ? h | QUIET : r;
  }
};

/* Two loads of 16 (or 8) bytes a thread in flight: with 2048 threads an SM
 * that is 32 (16) KiB, more than an H200's bandwidth-latency product needs;
 * four would double the code, which is 2 x 4 copies of the op. */
#define TC_EW_VEC_UNROLL 2
template <int ISZ, int OSZ, int NIN, class E>
TC_D void tc_ew_vec_loop(const tc_ew_launch_args &a) {
  constexpr int EV = TC_EW_VEC_EL(ISZ, OSZ), IW = EV * ISZ / 4, OW = EV * OSZ / 4;
  const int64_t nv = a.n / EV, nt = blockDim.x, step = (int64_t)gridDim.x * nt * TC_EW_VEC_UNROLL;
  tc_ew_words<IW> x[TC_EW_VEC_UNROLL][NIN];
  for (int64_t base = (int64_t)blockIdx.x * nt * TC_EW_VEC_UNROLL + threadIdx.x; base < nv; base += step) {
#pragma unroll
    for (int u = 0; u < TC_EW_VEC_UNROLL; u++) {
      int64_t v = base + u * nt;
#pragma unroll
      for (int k = 0; k < NIN; k++) /* a unary launch's input is a tensor (tc_ew_vec_ok) */
        if ((NIN == 1 || a.o[k + 1].ptr) && v < nv) x[u][k] = ((const tc_ew_words<IW> *)a.o[k + 1].ptr)[v];
    }
    TC_EW_UNROLL_BODY
    for (int u = 0; u < TC_EW_VEC_UNROLL; u++) {
      int64_t v = base + u * nt;
      if (v >= nv) break;
      tc_ew_words<OW> r;
#pragma unroll
      for (int e = 0; e < EV; e++) {
        uint32_t bits[NIN];
#pragma unroll
        for (int k = 0; k < NIN; k++) bits[k] = tc_vec_get<ISZ, IW>(x[u][k], e);
        uint32_t ob = E::run(a, bits);
        if constexpr (OSZ == 4) r.w[e] = ob;
        else if (e & 1) r.w[e >> 1] |= ob << 16;
        else r.w[e >> 1] = ob;
      }
      ((tc_ew_words<OW> *)a.o[0].ptr)[v] = r;
    }
  }
  int64_t i = nv * EV + threadIdx.x;
  if (blockIdx.x == 0 && i < a.n) {
    uint32_t bits[NIN];
#pragma unroll
    for (int k = 0; k < NIN; k++) {
      const char *p = (const char *)a.o[k + 1].ptr;
      bits[k] = !p ? 0u : ISZ == 4 ? ((const uint32_t *)p)[i] : (uint32_t)((const uint16_t *)p)[i];
    }
    uint32_t ob = E::run(a, bits);
    if constexpr (OSZ == 4) ((uint32_t *)a.o[0].ptr)[i] = ob;
    else ((uint16_t *)a.o[0].ptr)[i] = (uint16_t)ob;
  }
}

/* The ops of the vector kernels: those tc_vec_flt computes, and the lean
 * floating ops with a transcendental function (tc_vec_dbl). The lean ops of
 * the first set that tc_ew_vec_float turns away (an alpha other than 1, say)
 * take the flat kernel. */
#define TC_EW_UN_EXACT(X)                                                                             \
  X(TC_U_IDENT) X(TC_U_SQRT) X(TC_U_RECIP) X(TC_U_ABS) X(TC_U_NEG) X(TC_U_SIGN) X(TC_U_CEIL)         \
  X(TC_U_FLOOR) X(TC_U_ROUND) X(TC_U_TRUNC) X(TC_U_ISFINITE) X(TC_U_SIGNBIT) X(TC_U_RELU) X(TC_U_ISNAN) \
  X(TC_U_ISINF) X(TC_U_LNOT) X(TC_U_LEAKY_RELU) X(TC_U_CLAMP)
#define TC_EW_UN_MATH(X) X(TC_U_TANH) X(TC_U_EXP) X(TC_U_RSQRT) X(TC_U_SIGMOID) X(TC_U_ELU) X(TC_U_GELU)
/* Computed in float though not exact: gelu's erf form, as torch's CUDA
 * kernel computes it, 0.5 x (1 + erf(x / sqrt 2)): within 4.5e-7 of the
 * reference's double everywhere (a float32 sweep of [-14, 14]), so inside
 * shared/spec/tolerances.md's bounds for the three dtypes (their atol is
 * 1e-5); on the negative side 1 + erf cancels, so where the result is
 * small its relative error grows (0.7% at x = -4.6, 1e-5 of result).
 * Through erfc (0.5 x erfc(-x / sqrt 2), relative error a few ulp) the
 * element took about 60 instructions where erf takes 25, and the H200 ran
 * it at 88% of the memory's speed (3.7 TB/s where torch moves 4.2: an SM
 * issues about 63 instructions an element at that rate). In double it ran
 * at 0.38x torch's speed. */
#define TC_EW_UN_FLOAT(X) X(TC_U_GELU)
#define TC_EW_BIN_EXACT(X)                                                                            \
  X(TC_B_ADD) X(TC_B_SUB) X(TC_B_MUL) X(TC_B_DIV) X(TC_B_EQ) X(TC_B_NE) X(TC_B_LT) X(TC_B_LE) X(TC_B_GT) \
  X(TC_B_GE) X(TC_B_FMAX) X(TC_B_FMIN) X(TC_B_MAXIMUM) X(TC_B_MINIMUM) X(TC_B_LAND) X(TC_B_LOR) X(TC_B_LXOR)

template <int ISZ, int OSZ>
__global__ void __launch_bounds__(256) tc_ew_vec_kernel(const tc_ew_launch_args a) {
#define TC_EW_CASE(OP) \
  case OP: tc_ew_vec_loop<ISZ, OSZ, 1, tc_vec_dbl<OP>>(a); break;
  switch (a.p.op) { TC_EW_UN_MATH(TC_EW_CASE) }
#undef TC_EW_CASE
}
/* At most 64 registers: four blocks an SM. With no test an element the
   loop's eight elements interleave, and ptxas took up to 71 (three blocks);
   at 48 (five) the binary float16 and float32 kernels spill. */
template <int ISZ, int OSZ, int NIN, int H>
__global__ void __launch_bounds__(256, 4) tc_ew_vecf_kernel(const tc_ew_launch_args a) {
#define TC_EW_CASE(OP) \
  case OP: tc_ew_vec_loop<ISZ, OSZ, NIN, tc_vec_flt<ISZ, OSZ, NIN, OP, H>>(a); break;
  if constexpr (NIN == 1 && ISZ == 2 && OSZ == 2 && H != 0) {
    if (a.p.op == TC_U_RELU && a.o[1].ptr) {
      tc_ew_vec_loop<2, 2, 1, tc_vec_relu_bits<H>>(a);
      return;
    }
  }
  if constexpr (NIN == 1) {
    switch (a.p.op) { TC_EW_UN_EXACT(TC_EW_CASE) TC_EW_UN_FLOAT(TC_EW_CASE) }
  } else {
    switch (a.p.op) { TC_EW_BIN_EXACT(TC_EW_CASE) }
  }
#undef TC_EW_CASE
}

/* Whether tc_ew_vec_kernel takes a one-dim lean launch: the compute dtype and
 * every tensor operand float32, float16 or bfloat16, the tensor inputs of one
 * element size (*isz; the output's *osz), all contiguous and 4-element
 * aligned. */
static int tc_ew_vec_dt(int dt) {
  return dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16;
}
static int tc_ew_vec_ok(const tc_ew_launch_args *a, int *isz, int *osz) {
  *osz = (int)tabi_dtype_size((tabi_dtype)a->o[0].dt);
  *isz = 0;
  if (a->nd != 1 || !tc_ew_vec_dt(a->cd) || !tc_ew_vec_dt(a->o[0].dt) || a->o[0].st[0] != 1) return 0;
  for (int k = 1; k <= a->nin; k++) {
    if (!a->o[k].ptr) { /* a Scalar: the unary steps read a tensor without asking */
      if (a->nin == 1) return 0;
      continue;
    }
    int sz = (int)tabi_dtype_size((tabi_dtype)a->o[k].dt);
    if (!tc_ew_vec_dt(a->o[k].dt) || (*isz && sz != *isz) || a->o[k].st[0] != 1) return 0;
    *isz = sz;
  }
  if (!*isz) *isz = *osz; /* Scalars only */
  uintptr_t ev = TC_EW_VEC_EL(*isz, *osz);
  for (int k = 0; k <= a->nin; k++)
    if (a->o[k].ptr && (uintptr_t)a->o[k].ptr % (ev * (k ? *isz : *osz))) return 0;
  return 1;
}

/* Whether v is a value of dtype cd (float32, float16 or bfloat16). */
static int tc_exact_in(double v, int cd) {
  float f = (float)v;
  if ((double)f != v) return 0; /* NaN too: its payload is left to the double path */
  if (cd == TABI_DTYPE_FLOAT16) return tabi_f16_to_f32(tabi_f32_to_f16(f)) == f;
  if (cd == TABI_DTYPE_BFLOAT16) return tabi_bf16_to_f32(tabi_f32_to_bf16(f)) == f;
  return 1;
}
/* Whether a vector launch (tc_ew_vec_ok) may take tc_vec_flt: an op of the
 * exact sets, the output of the compute dtype (but a conversion's), alpha 1,
 * and every Scalar and parameter the op reads a value of the compute dtype. */
static int tc_ew_vec_float(const tc_ew_launch_args *a, int32_t nin) {
  int cd = a->cd, op = a->p.op, in_set = 0;
#define TC_EW_IS(OP) in_set |= op == OP;
  if (nin == 1) {
    TC_EW_UN_EXACT(TC_EW_IS)
    TC_EW_UN_FLOAT(TC_EW_IS)
  } else {
    TC_EW_BIN_EXACT(TC_EW_IS)
  }
#undef TC_EW_IS
  if (!in_set || (a->o[0].dt != cd && !(nin == 1 && op == TC_U_IDENT))) return 0;
  for (int k = 1; k <= nin; k++)
    if (!a->o[k].ptr && !tc_exact_in(a->p.sf[k - 1][0], cd)) return 0;
  if (nin == 2) return (op != TC_B_ADD && op != TC_B_SUB) || a->p.pf == 1.0;
  if (op == TC_U_LEAKY_RELU) return tc_exact_in(a->p.pa[0], cd);
  if (op == TC_U_GELU) return a->p.pi == 0; /* the erf form */
  if (op == TC_U_CLAMP && !(a->p.pi & TC_CLAMP_ALL_NAN))
    return (!(a->p.pi & TC_CLAMP_MIN) || tc_exact_in(a->p.pa[0], cd)) &&
           (!(a->p.pi & TC_CLAMP_MAX) || tc_exact_in(a->p.pa[1], cd));
  return 1;
}
/* tc_vec_flt's H for a launch it takes: float32 throughout (computed in
 * float32), 0; else the one
 * dtype of its 2-byte operands, where every tensor input is of the compute
 * dtype or the compute dtype is float32 (either way its value needs no
 * rounding); -1 where neither holds (mixed float16 and bfloat16 operands,
 * a float16 input computed in bfloat16): the flat kernel takes those. */
static int tc_ew_vec_half(const tc_ew_launch_args *a, int32_t nin) {
  int h = 0;
  for (int k = 0; k <= nin; k++) {
    int dt = a->o[k].dt;
    if (!a->o[k].ptr) continue;
    if (k > 0 && dt != a->cd && a->cd != TABI_DTYPE_FLOAT32) return -1;
    if (dt == TABI_DTYPE_FLOAT32) continue;
    if (h && dt != h) return -1;
    h = dt;
  }
  /* float32 throughout: tc_vec_flt takes the compute dtype to be float32 */
  return h == 0 && a->cd != TABI_DTYPE_FLOAT32 ? -1 : h;
}
/* Whether tc_ew_vec_kernel has the op (nin 1). */
static int tc_ew_vec_math(int32_t nin, int op) {
  int in_set = 0;
#define TC_EW_IS(OP) in_set |= op == OP;
  TC_EW_UN_MATH(TC_EW_IS)
#undef TC_EW_IS
  return nin == 1 && in_set;
}

/* float32, contiguous, same shapes: add/sub/mul/div with alpha, four at a
 * time; SC: y is a Scalar, ys (a float32 value: the product, quotient, sum
 * rounded once from float is the reference's rounded once from double). The
 * vector kernel took mul by a Scalar at 0.97 of torch on the H200 (its
 * float step tests per element whether an input is a Scalar and whether it
 * needs rounding to the compute dtype); this loop took add at 0.99. */
template <int SC>
__global__ void __launch_bounds__(256) tc_f32_binary(float *o, const float *x, const float *y, float ys,
                                                     int64_t n, int op, float alpha) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  int64_t n4 = n / 4;
  const float4 *x4 = (const float4 *)x, *y4 = (const float4 *)y;
  float4 *o4 = (float4 *)o;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    float4 a = x4[i], b = SC ? make_float4(ys, ys, ys, ys) : y4[i], r;
    switch (op) {
      case TC_B_ADD: r = make_float4(a.x + alpha * b.x, a.y + alpha * b.y, a.z + alpha * b.z, a.w + alpha * b.w); break;
      case TC_B_SUB: r = make_float4(a.x - alpha * b.x, a.y - alpha * b.y, a.z - alpha * b.z, a.w - alpha * b.w); break;
      case TC_B_MUL: r = make_float4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w); break;
      default: r = make_float4(a.x / b.x, a.y / b.y, a.z / b.z, a.w / b.w); break;
    }
    o4[i] = r;
  }
  for (int64_t i = n4 * 4 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float a = x[i], b = SC ? ys : y[i];
    o[i] = op == TC_B_ADD ? a + alpha * b : op == TC_B_SUB ? a - alpha * b : op == TC_B_MUL ? a * b : a / b;
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

static int grid_for(int64_t n) {
  int64_t g = (n + 255) / 256;
  if (g > 65536) g = 65536;
  return g < 1 ? 1 : (int)g;
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
  /* fast path: float32 tensors, the second operand a float32 tensor or a
     Scalar that is a float32 value */
  int sc = nin == 2 && !a.o[2].ptr && tc_exact_in(p->sf[1][0], TABI_DTYPE_FLOAT32);
  if (nin == 2 && a.nd == 1 && cat == 1 && p->cd == TABI_DTYPE_FLOAT32 && out->dt == p->cd &&
      a.o[1].ptr && (a.o[2].ptr || sc) &&
      in[0].dt == p->cd && (sc || in[1].dt == p->cd) && a.o[0].st[0] == 1 && a.o[1].st[0] == 1 &&
      (sc || a.o[2].st[0] == 1) &&
      (p->op == TC_B_MUL || p->op == TC_B_DIV || ((p->op == TC_B_ADD || p->op == TC_B_SUB) && p->pf == 1.0)) &&
      ((uintptr_t)a.o[0].ptr % 16 == 0) && ((uintptr_t)a.o[1].ptr % 16 == 0) &&
      ((uintptr_t)a.o[2].ptr % 16 == 0)) {
    if (sc)
      TC_LAUNCH(grid_for((a.n + 3) / 4), 256, tc_f32_binary<1>)(
          (float *)a.o[0].ptr, (const float *)a.o[1].ptr, (const float *)nullptr, (float)p->sf[1][0], a.n,
          p->op, (float)p->pf);
    else
      TC_LAUNCH(grid_for((a.n + 3) / 4), 256, tc_f32_binary<0>)(
          (float *)a.o[0].ptr, (const float *)a.o[1].ptr, (const float *)a.o[2].ptr, 0.0f, a.n, p->op,
          (float)p->pf);
    return tc_launch_status(c, op);
  }
  int isz = 0, osz = 0, vf = 0, h = 0;
  if (a.nd == 1 && lean && cat == 1 && tc_ew_vec_ok(&a, &isz, &osz) &&
      (((vf = tc_ew_vec_float(&a, nin)) && (h = tc_ew_vec_half(&a, nin)) >= 0) ||
       (!vf && tc_ew_vec_math(nin, p->op)))) {
    int64_t g = (a.n / TC_EW_VEC_EL(isz, osz) + 256 * TC_EW_VEC_UNROLL - 1) / (256 * TC_EW_VEC_UNROLL);
    int grid = (int)(g > 65536 ? 65536 : g < 1 ? 1 : g);
#define TC_EW_VECF(I, O, H)                                                        \
  if (nin == 1) TC_LAUNCH(grid, 256, tc_ew_vecf_kernel<I, O, 1, H>)(a);          \
  else TC_LAUNCH(grid, 256, tc_ew_vecf_kernel<I, O, 2, H>)(a);
#define TC_EW_VEC(I, O)                                                             \
  if (!vf) TC_LAUNCH(grid, 256, tc_ew_vec_kernel<I, O>)(a);                      \
  else if (h == TABI_DTYPE_FLOAT16) { TC_EW_VECF(I, O, TABI_DTYPE_FLOAT16) }     \
  else { TC_EW_VECF(I, O, TABI_DTYPE_BFLOAT16) }
    if (isz == 4 && osz == 4) {
      if (!vf) TC_LAUNCH(grid, 256, tc_ew_vec_kernel<4, 4>)(a);
      else { TC_EW_VECF(4, 4, 0) }
    } else if (isz == 2 && osz == 2) {
      TC_EW_VEC(2, 2)
    } else if (isz == 4) {
      TC_EW_VEC(4, 2)
    } else {
      TC_EW_VEC(2, 4)
    }
#undef TC_EW_VEC
#undef TC_EW_VECF
    return tc_launch_status(c, op);
  }
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
  int g = grid_for(a.n);
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
