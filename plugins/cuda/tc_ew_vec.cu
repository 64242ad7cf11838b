/* plugins/cuda/tc_ew_vec.cu: the elementwise engine's kernels over
 * contiguous float32, float16 and bfloat16 operands (tc_ew.cu has the
 * strided and flat ones and the entry, tc_ew_launch, which asks
 * tc_ew_vec_launch first): a float32 loop for add/sub/mul/div with a tensor
 * or a float32 Scalar, and the vector kernels for the other cheap element
 * functions, one loop per op, in float where that gives the same bits. */
#include <type_traits>

#include "tc_ew_launch.cuh"

/* The vector kernels over contiguous float32, float16 and bfloat16 operands
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
/* H: the dtype of every 2-byte operand (float16 or bfloat16), fixed for the
 * launch (tc_ew_vec_half says when), so each conversion is one instruction
 * sequence with no test of the dtype; 0: float32 throughout, computed in
 * float32 (no 2-byte operand to convert). Until 2026-11-30 every
 * 2-byte launch took the dtypes at run time: each element carried both
 * conversions and a rounding to the compute dtype, selected per element
 * (the H200 ran relu over float16 at 2.4 TB/s where torch moves 4). */
template <int ISZ, int H>
TC_D float tc_vh_dec(uint32_t bits) {
  static_assert(ISZ == 4 || H == TABI_DTYPE_FLOAT16 || H == TABI_DTYPE_BFLOAT16, "a 2-byte operand needs H");
  if constexpr (ISZ == 4) return tabi_bits_f32(bits);
  else if constexpr (H == TABI_DTYPE_FLOAT16) return tc_h2f((uint16_t)bits);
  else return tabi_bf16_to_f32((uint16_t)bits);
}
template <int OSZ, int H>
TC_D uint32_t tc_vh_enc(float v) {
  static_assert(OSZ == 4 || H == TABI_DTYPE_FLOAT16 || H == TABI_DTYPE_BFLOAT16, "a 2-byte operand needs H");
  if constexpr (OSZ == 4) return tabi_f32_bits(v);
  else if constexpr (H == TABI_DTYPE_FLOAT16) return (uint32_t)tc_f2h(v);
  else return (uint32_t)tabi_f32_to_bf16(v);
}
template <int ISZ, int OSZ, int NIN, int OP, int H>
struct tc_vec_flt {
  static __device__ __forceinline__ uint32_t run(const tc_ew_launch_args &a, const uint32_t *bits) {
    float in[NIN];
#pragma unroll
    for (int k = 0; k < NIN; k++) {
      /* a unary step's input is a tensor (tc_ew_vec_ok), and a tensor's
         value is of the compute dtype or exact in it (tc_ew_vec_half): no
         test an element */
      if (NIN == 2 && !a.o[k + 1].ptr) in[k] = (float)a.p.sf[k][0];
      else in[k] = tc_vh_dec<ISZ, H>(bits[k]);
    }
    float y;
    if constexpr (NIN == 1) y = tc_un_exact<OP>(in[0], a.p);
    else y = bin_lean_v<float>(OP, in[0], in[1], 1.0f); /* alpha 1 (tc_ew_vec_float) */
    /* a copy into float32 of a signalling NaN (bfloat16's decoder keeps it
       signalling) comes back quiet, as the reference's, through double */
    if constexpr (OP == TC_U_IDENT && OSZ == 4) return tc_vh_enc<OSZ, H>(y) | (isnan(y) ? 0x400000u : 0u);
    return tc_vh_enc<OSZ, H>(y);
  }
};

/* relu, neg and abs of a float32, float16 or bfloat16 element of SZ bytes
 * (H: the 2-byte dtype), on its bits: the value the reference's decode, op,
 * encode gives, without the two conversions and the encoder's NaN select.
 * relu of float16: about 11 PTX instructions an element, straight-line,
 * where the float step took about 25 and a branch (sm_90); an H200's SMs
 * issue about 34 an element at the memory's speed for a 2-byte unary op. A
 * NaN comes back quiet with its payload, as the reference makes it (through
 * float or double: float16 | 0x200, bfloat16 | 0x40, float32 | 0x400000),
 * its sign flipped by neg, cleared by abs, kept by relu; a negative value
 * or -inf is +0 under relu; -0.0 stays. The float steps differ on NaNs both
 * ways: on the H200 (2026-11-30) neg and abs gave 0x7fff for every float16
 * NaN (the device's negation returns the canonical NaN), which all_bits
 * catches; on the host (gpusim) a signalling float32 NaN stayed signalling
 * (as the CPU plugin's does: all_bits leaves that one bit to the plugin). */
template <int OP, int SZ, int H>
struct tc_vec_sign_bits {
  static __device__ __forceinline__ uint32_t run(const tc_ew_launch_args &, const uint32_t *bits) {
    constexpr uint32_t SIGN = SZ == 4 ? 0x80000000u : 0x8000u;
    constexpr uint32_t INF = SZ == 4 ? 0x7f800000u : H == TABI_DTYPE_FLOAT16 ? 0x7c00u : 0x7f80u;
    constexpr uint32_t QUIET = SZ == 4 ? 0x400000u : H == TABI_DTYPE_FLOAT16 ? 0x200u : 0x40u;
    uint32_t h = bits[0], mag = h & (SIGN - 1u);
    uint32_t s = OP == TC_U_NEG ? h ^ SIGN : OP == TC_U_ABS ? mag : h;
    uint32_t r = OP == TC_U_RELU && (h & SIGN) && mag ? 0u : s;
    return mag > INF ? s | QUIET : r;
  }
};
/* The float step of op OP, or its bits step where there is one: the input
 * and output of one dtype (float32 computed in float32: H 0) */
template <int ISZ, int OSZ, int NIN, int OP, int H>
using tc_vec_step = std::conditional_t<NIN == 1 && (OP == TC_U_RELU || OP == TC_U_NEG || OP == TC_U_ABS) &&
                                           ISZ == OSZ && (ISZ == 2) == (H != 0),
                                       tc_vec_sign_bits<OP, ISZ, H>, tc_vec_flt<ISZ, OSZ, NIN, OP, H>>;

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
  case OP: tc_ew_vec_loop<ISZ, OSZ, NIN, tc_vec_step<ISZ, OSZ, NIN, OP, H>>(a); break;
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
  /* a conversion into the compute dtype (tc_copy_convert's, float32 to
     float16 say) rounds once, in the encoder, as the reference does: its
     input needs no rounding first. Without this it took the flat kernel,
     at 0.18 of torch's speed on the H200 (2026-11-30). */
  int conv = nin == 1 && a->p.op == TC_U_IDENT && a->o[0].dt == a->cd;
  int h = 0;
  for (int k = 0; k <= nin; k++) {
    int dt = a->o[k].dt;
    if (!a->o[k].ptr) continue;
    if (k > 0 && dt != a->cd && a->cd != TABI_DTYPE_FLOAT32 && !conv) return -1;
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

int tc_ew_vec_launch(const tc_ew_launch_args *ap, int lean) {
  const tc_ew_launch_args &a = *ap;
  const tc_ew_params *p = &a.p;
  int32_t nin = a.nin;
  /* float32 tensors, the second operand a float32 tensor or a Scalar that
     is a float32 value */
  int sc = nin == 2 && !a.o[2].ptr && tc_exact_in(p->sf[1][0], TABI_DTYPE_FLOAT32);
  if (nin == 2 && p->cd == TABI_DTYPE_FLOAT32 && a.o[0].dt == p->cd && a.o[1].ptr && (a.o[2].ptr || sc) &&
      a.o[1].dt == p->cd && (sc || a.o[2].dt == p->cd) && a.o[0].st[0] == 1 && a.o[1].st[0] == 1 &&
      (sc || a.o[2].st[0] == 1) &&
      (p->op == TC_B_MUL || p->op == TC_B_DIV || ((p->op == TC_B_ADD || p->op == TC_B_SUB) && p->pf == 1.0)) &&
      ((uintptr_t)a.o[0].ptr % 16 == 0) && ((uintptr_t)a.o[1].ptr % 16 == 0) &&
      ((uintptr_t)a.o[2].ptr % 16 == 0)) {
    if (sc)
      TC_LAUNCH(tc_ew_grid((a.n + 3) / 4), 256, tc_f32_binary<1>)(
          (float *)a.o[0].ptr, (const float *)a.o[1].ptr, (const float *)nullptr, (float)p->sf[1][0], a.n,
          p->op, (float)p->pf);
    else
      TC_LAUNCH(tc_ew_grid((a.n + 3) / 4), 256, tc_f32_binary<0>)(
          (float *)a.o[0].ptr, (const float *)a.o[1].ptr, (const float *)a.o[2].ptr, 0.0f, a.n, p->op,
          (float)p->pf);
    return 1;
  }
  int isz = 0, osz = 0, vf = 0, h = 0;
  if (!lean || !tc_ew_vec_ok(&a, &isz, &osz) ||
      !(((vf = tc_ew_vec_float(&a, nin)) && (h = tc_ew_vec_half(&a, nin)) >= 0) ||
        (!vf && tc_ew_vec_math(nin, p->op))))
    return 0;
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
  return 1;
}
