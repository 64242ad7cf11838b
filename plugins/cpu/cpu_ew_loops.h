/* plugins/cpu/cpu_ew_loops.h: the inner loops of the fast elementwise ops, as a
 * template: an ISA file includes its vector layer (cpu_simd_*.h), cpu_ew_math.h,
 * defines CPU_EW_TABLE / CPU_EW_NAME and includes this file, which defines that
 * table (see cpu_ew.h for the contract).
 *
 * Every loop is written once as an always-inline function of (op, dtype,
 * which operands repeat) and instantiated by switches on constants, so each
 * instance is a straight vector loop with no per-element branching. Tails (the
 * last n % W elements) go through small zeroed stack buffers: no load or store
 * ever touches memory past an operand's end.
 */
#include <string.h>

#include "cpu_ew.h"

SI VF ew_ld(int dt, const char *p, int64_t i) {
  if (dt == CPU_EW_F32) return vf_load_f32(p + 4 * i);
  if (dt == CPU_EW_F16) return vf_load_f16(p + 2 * i);
  return vf_load_bf16(p + 2 * i);
}
SI void ew_st(int dt, char *p, int64_t i, VF v) {
  if (dt == CPU_EW_F32) vf_store_f32(p + 4 * i, v);
  else if (dt == CPU_EW_F16) vf_store_f16(p + 2 * i, v);
  else vf_store_bf16(p + 2 * i, v);
}
/* nt: a streaming store (o + i aligned to the vector store's width; see cpu_ew.h) */
SI void ew_stn(int dt, char *p, int64_t i, VF v, int nt) {
  if (!nt) ew_st(dt, p, i, v);
  else if (dt == CPU_EW_F32) vf_stream_f32(p + 4 * i, v);
  else if (dt == CPU_EW_F16) vf_stream_f16(p + 2 * i, v);
  else vf_stream_bf16(p + 2 * i, v);
}
/* One element repeated over all lanes. */
SI VF ew_bcast(int dt, const char *p) {
  int esz = dt == CPU_EW_F32 ? 4 : 2;
  char buf[W * 4];
  for (int k = 0; k < W; k++) memcpy(buf + k * esz, p, (size_t)esz);
  return ew_ld(dt, buf, 0);
}

/* --- unary --------------------------------------------------------------------- */

/* dt: the dtype the result is rounded to (exp takes a cheaper path for halves) */
SI VF ew_un(int op, int dt, VF x, const cpu_ew_args *p) {
  switch (op) {
    case CPU_EWU_EXP: return dt == CPU_EW_F32 ? ew_exp(x) : ew_exp_half(x);
    case CPU_EWU_EXP2: return ew_exp2(x);
    case CPU_EWU_EXPM1: return ew_expm1(x);
    case CPU_EWU_LOG: return ew_log_any(x, 0);
    case CPU_EWU_LOG2: return ew_log_any(x, 1);
    case CPU_EWU_LOG10: return ew_log_any(x, 2);
    case CPU_EWU_LOG1P: return ew_log1p(x);
    case CPU_EWU_SIN: return ew_trig(x, 0);
    case CPU_EWU_COS: return ew_trig(x, 1);
    case CPU_EWU_TAN: return ew_trig(x, 2);
    case CPU_EWU_TANH: return ew_tanh(x);
    case CPU_EWU_SIGMOID: return ew_sigmoid(x);
    case CPU_EWU_ERF: return ew_erf(x);
    case CPU_EWU_ERFC: return ew_erfc(x);
#ifdef CPU_SIMD_HAS_TAB32
    case CPU_EWU_GELU: return ew_gelu_tab(x, dt != CPU_EW_F32);
#else
    case CPU_EWU_GELU: return ew_gelu(x);
#endif
    case CPU_EWU_GELU_TANH: return ew_gelu_tanh(x);
    case CPU_EWU_SQRT: return vf_sqrt(x);
    case CPU_EWU_RSQRT: return vf_div(vf_set(1.0f), vf_sqrt(x));
    case CPU_EWU_RECIP: return vf_div(vf_set(1.0f), x);
    case CPU_EWU_NEG: return ew_neg(x);
    case CPU_EWU_ABS: return ew_abs(x);
    /* relu keeps -0.0 and NaN (ATen's clamp_min(x, 0)) */
    case CPU_EWU_RELU: return vf_sel(vf_lt(x, vf_set(0.0f)), vf_set(0.0f), x);
    case CPU_EWU_FLOOR: return vf_floor(x);
    case CPU_EWU_CEIL: return vf_ceil(x);
    case CPU_EWU_TRUNC: return vf_trunc(x);
    case CPU_EWU_ROUND: return vf_rint(x);
    /* (0 < x) - (x < 0): NaN and -0.0 give +0 */
    case CPU_EWU_SIGN:
      return vf_sub(vf_sel(vf_gt(x, vf_set(0.0f)), vf_set(1.0f), vf_set(0.0f)),
                    vf_sel(vf_lt(x, vf_set(0.0f)), vf_set(1.0f), vf_set(0.0f)));
    case CPU_EWU_SQUARE: return vf_mul(x, x);
    case CPU_EWU_CUBE: return vf_mul(vf_mul(x, x), x);
    case CPU_EWU_RSQUARE: return vf_div(vf_set(1.0f), vf_mul(x, x));
    case CPU_EWU_CLAMP: {
      VF lo = vf_set(p->f[0]), hi = vf_set(p->f[1]);
      VF r = vf_sel(vf_lt(x, lo), lo, x);
      return vf_sel(vf_gt(r, hi), hi, r);
    }
    case CPU_EWU_LEAKY: return vf_sel(vf_gt(x, vf_set(0.0f)), x, vf_mul(x, vf_set(p->f[0])));
    /* elu: ATen's (exp(x * input_scale) - 1) * negcoef as expm1 (+0 turns expm1's
     * -0 into exp - 1's +0); NaN takes the x * scale side, as `x <= 0` is false */
    case CPU_EWU_ELU: {
      VF t = vf_add(ew_expm1(vf_mul(x, vf_set(p->f[2]))), vf_set(0.0f));
      return vf_sel(vf_le(x, vf_set(0.0f)), vf_mul(t, vf_set(p->f[0])), vf_mul(x, vf_set(p->f[1])));
    }
    case CPU_EWU_EXP2M: return ew_exp2_mul(x, vf_set(p->f[0]), vf_set(p->f[1]));
    case CPU_EWU_FILL: return vf_set(p->f[0]);
    default: return x;
  }
}

SI VM ew_unb(int op, VF x) {
  switch (op) {
    case CPU_EWU_ISNAN: return vf_isnan(x);
    case CPU_EWU_ISINF: return vf_eq(ew_abs(x), vf_set(INFINITY));
    case CPU_EWU_ISFINITE: return vf_lt(ew_abs(x), vf_set(INFINITY));
    case CPU_EWU_SIGNBIT: return vi_gt(vi_set(0), vf_as_vi(x));
    default: return vf_eq(x, vf_set(0.0f)); /* logical_not */
  }
}

SI void ew_un_loop(int op, int dt, char *o, const char *a, int64_t n, const cpu_ew_args *p) {
  const int esz = dt == CPU_EW_F32 ? 4 : 2, isb = op >= CPU_EWU_BOOL_FIRST;
  const int oesz = isb ? 1 : esz, nt = !isb && p->nt;
  int64_t i = 0;
#ifdef CPU_SIMD_HAS_BF16X2
  /* bfloat16 results: 2W elements at a time in the lane order of vf_load_bf16x2
   * (with nt, o + 2i stays 64-byte aligned: the row starts aligned, steps are 64) */
  if (dt == CPU_EW_BF16 && !isb)
    for (; i + 2 * W <= n; i += 2 * W) {
      VF lo, hi;
      vf_load_bf16x2(a + 2 * i, &lo, &hi);
      lo = ew_un(op, dt, lo, p);
      hi = ew_un(op, dt, hi, p);
      if (nt) vf_stream_bf16x2(o + 2 * i, lo, hi);
      else vf_store_bf16x2(o + 2 * i, lo, hi);
    }
#endif
  /* float16 results: two vectors per step, so the conversions of one overlap the
   * arithmetic of the other (~5% on exp, which is bound by the FMA pipes the
   * conversions share) */
  if (dt == CPU_EW_F16 && !isb)
    for (; i + 2 * W <= n; i += 2 * W) {
      VF x0 = ew_ld(dt, a, i), x1 = ew_ld(dt, a, i + W);
      x0 = ew_un(op, dt, x0, p);
      x1 = ew_un(op, dt, x1, p);
      ew_stn(dt, o, i, x0, nt);
      ew_stn(dt, o, i + W, x1, nt);
    }
  for (; i + W <= n; i += W) {
    VF x = ew_ld(dt, a, i);
    if (isb) vm_store_bool(o + i, ew_unb(op, x));
    else ew_stn(dt, o, i, ew_un(op, dt, x, p), nt);
  }
  if (i < n) {
    char ta[W * 4], to[W * 4];
    memset(ta, 0, sizeof ta);
    memcpy(ta, a + i * esz, (size_t)((n - i) * esz));
    VF x = ew_ld(dt, ta, 0);
    if (isb) vm_store_bool(to, ew_unb(op, x));
    else ew_st(dt, to, 0, ew_un(op, dt, x, p));
    memcpy(o + i * oesz, to, (size_t)((n - i) * oesz));
  }
}

/* One function per op (small functions keep compile time linear; the switch
 * below picks the op once per call). */
#define EW_UN_FN(op)                                                                      \
  static void ew_un_##op(char *o, const char *a, int64_t n, const cpu_ew_args *p) {        \
    if (p->dt == CPU_EW_F32) ew_un_loop(CPU_EWU_##op, CPU_EW_F32, o, a, n, p);             \
    else if (p->dt == CPU_EW_F16) ew_un_loop(CPU_EWU_##op, CPU_EW_F16, o, a, n, p);        \
    else ew_un_loop(CPU_EWU_##op, CPU_EW_BF16, o, a, n, p);                                \
  }
#define EW_UN_OPS(X)                                                                      \
  X(COPY) X(EXP) X(EXP2) X(EXPM1) X(LOG) X(LOG2) X(LOG10) X(LOG1P) X(SIN) X(COS) X(TAN)   \
  X(TANH) X(SIGMOID) X(ERF) X(ERFC) X(GELU) X(GELU_TANH) X(SQRT) X(RSQRT) X(RECIP) X(NEG) \
  X(ABS) X(RELU) X(FLOOR) X(CEIL) X(TRUNC) X(ROUND) X(SIGN) X(SQUARE) X(CUBE) X(RSQUARE) \
  X(CLAMP) X(LEAKY) X(ELU) X(EXP2M) X(FILL) X(ISNAN) X(ISINF) X(ISFINITE) X(SIGNBIT) X(LNOT)
EW_UN_OPS(EW_UN_FN)
#define EW_UN_CASE(op) case CPU_EWU_##op: ew_un_##op(o, a, n, p); break;

static void ew_unary(void *vo, const void *va, int64_t n, const cpu_ew_args *p) {
  char *o = vo;
  const char *a = va;
  switch (p->op) {
    EW_UN_OPS(EW_UN_CASE)
    default: break;
  }
}

/* --- binary -------------------------------------------------------------------- */

SI VF ew_bin(int op, VF a, VF b, const cpu_ew_args *p) {
  switch (op) {
    case CPU_EWB_ADD: return vf_fma(b, vf_set(p->f[0]), a);
    case CPU_EWB_SUB: return vf_fnma(b, vf_set(p->f[0]), a);
    case CPU_EWB_MUL: return vf_mul(a, b);
    case CPU_EWB_DIV: return vf_div(a, b);
    /* NaN propagates from either side; ties keep a (the reference's a < b ? b : a) */
    case CPU_EWB_MAXIMUM: return vf_sel(vf_isnan(b), b, vf_sel(vf_lt(a, b), b, a));
    case CPU_EWB_ATAN2: return ew_atan2(a, b);
    default: return vf_sel(vf_isnan(b), b, vf_sel(vf_lt(b, a), b, a)); /* minimum */
  }
}

SI VM ew_binb(int op, VF a, VF b) {
  VF z = vf_set(0.0f);
  switch (op) {
    case CPU_EWB_EQ: return vf_eq(a, b);
    case CPU_EWB_NE: return vf_ne(a, b);
    case CPU_EWB_LT: return vf_lt(a, b);
    case CPU_EWB_LE: return vf_le(a, b);
    case CPU_EWB_GT: return vf_gt(a, b);
    case CPU_EWB_GE: return vf_ge(a, b);
    case CPU_EWB_LAND: return vm_and(vf_ne(a, z), vf_ne(b, z));
    case CPU_EWB_LOR: return vm_or(vf_ne(a, z), vf_ne(b, z));
    default: return vm_xor(vf_ne(a, z), vf_ne(b, z)); /* logical_xor */
  }
}

SI void ew_bin_loop(int op, int dt, int sa, int sb, char *o, const char *a, const char *b,
                    int64_t n, const cpu_ew_args *p) {
  const int esz = dt == CPU_EW_F32 ? 4 : 2, isb = op >= CPU_EWB_BOOL_FIRST;
  const int oesz = isb ? 1 : esz, nt = !isb && p->nt;
  VF ra = sa ? ew_bcast(dt, a) : vf_set(0.0f), rb = sb ? ew_bcast(dt, b) : vf_set(0.0f);
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    VF x = sa ? ra : ew_ld(dt, a, i);
    VF y = sb ? rb : ew_ld(dt, b, i);
    if (isb) vm_store_bool(o + i, ew_binb(op, x, y));
    else ew_stn(dt, o, i, ew_bin(op, x, y, p), nt);
  }
  if (i < n) {
    char ta[W * 4], tb[W * 4], to[W * 4];
    memset(ta, 0, sizeof ta);
    memset(tb, 0, sizeof tb);
    if (!sa) memcpy(ta, a + i * esz, (size_t)((n - i) * esz));
    if (!sb) memcpy(tb, b + i * esz, (size_t)((n - i) * esz));
    VF x = sa ? ra : ew_ld(dt, ta, 0);
    VF y = sb ? rb : ew_ld(dt, tb, 0);
    if (isb) vm_store_bool(to, ew_binb(op, x, y));
    else ew_st(dt, to, 0, ew_bin(op, x, y, p));
    memcpy(o + i * oesz, to, (size_t)((n - i) * oesz));
  }
}

#define EW_BIN_S(op, dt)                                                            \
  switch (smask) {                                                                  \
    case 1: ew_bin_loop(op, dt, 1, 0, o, a, b, n, p); break;                        \
    case 2: ew_bin_loop(op, dt, 0, 1, o, a, b, n, p); break;                        \
    case 3: ew_bin_loop(op, dt, 1, 1, o, a, b, n, p); break;                        \
    default: ew_bin_loop(op, dt, 0, 0, o, a, b, n, p); break;                       \
  }
#define EW_BIN_FN(op)                                                                   \
  static void ew_bin_##op(char *o, const char *a, const char *b, int64_t n, int32_t smask, \
                          const cpu_ew_args *p) {                                       \
    if (p->dt == CPU_EW_F32) { EW_BIN_S(CPU_EWB_##op, CPU_EW_F32) }                     \
    else if (p->dt == CPU_EW_F16) { EW_BIN_S(CPU_EWB_##op, CPU_EW_F16) }                \
    else { EW_BIN_S(CPU_EWB_##op, CPU_EW_BF16) }                                        \
  }
#define EW_BIN_OPS(X) \
  X(ADD) X(SUB) X(MUL) X(DIV) X(MAXIMUM) X(MINIMUM) X(ATAN2) X(EQ) X(NE) X(LT) X(LE) X(GT) X(GE) \
  X(LAND) X(LOR) X(LXOR)
EW_BIN_OPS(EW_BIN_FN)
#define EW_BIN_CASE(op) case CPU_EWB_##op: ew_bin_##op(o, a, b, n, smask, p); break;

static void ew_binary(void *vo, const void *va, const void *vb, int64_t n, int32_t smask,
                      const cpu_ew_args *p) {
  char *o = vo;
  const char *a = va, *b = vb;
  switch (p->op) {
    EW_BIN_OPS(EW_BIN_CASE)
    default: break;
  }
}

/* --- where (a byte-exact select, any dtype) ------------------------------------- */

#define EW_WHERE_T(T, sc, sa, sb)                                               \
  {                                                                             \
    const uint8_t *cc = c;                                                      \
    const T *aa = a, *bb = b;                                                   \
    T *oo = o;                                                                  \
    for (int64_t i = 0; i < n; i++)                                             \
      oo[i] = cc[(sc) ? 0 : i] ? aa[(sa) ? 0 : i] : bb[(sb) ? 0 : i];           \
  }
#define EW_WHERE_ESZ(sc, sa, sb)                                    \
  switch (esz) {                                                   \
    case 1: EW_WHERE_T(uint8_t, sc, sa, sb) break;                 \
    case 2: EW_WHERE_T(uint16_t, sc, sa, sb) break;                \
    case 4: EW_WHERE_T(uint32_t, sc, sa, sb) break;                \
    default: EW_WHERE_T(uint64_t, sc, sa, sb) break;               \
  }

static void ew_where(void *o, const void *c, const void *a, const void *b, int64_t n,
                     int32_t smask, int32_t esz) {
  switch (smask & 7) {
    case 0: EW_WHERE_ESZ(0, 0, 0) break;
    case 1: EW_WHERE_ESZ(1, 0, 0) break;
    case 2: EW_WHERE_ESZ(0, 1, 0) break;
    case 3: EW_WHERE_ESZ(1, 1, 0) break;
    case 4: EW_WHERE_ESZ(0, 0, 1) break;
    case 5: EW_WHERE_ESZ(1, 0, 1) break;
    case 6: EW_WHERE_ESZ(0, 1, 1) break;
    default: EW_WHERE_ESZ(1, 1, 1) break;
  }
}

/* --- buffer conversions ------------------------------------------------------- */

SI void ew_cvt_loop(int from, int to, char *d, const char *s, int64_t n) {
  const int fe = from == CPU_EW_F32 ? 4 : 2, te = to == CPU_EW_F32 ? 4 : 2;
  int64_t i = 0;
  for (; i + W <= n; i += W) ew_st(to, d, i, ew_ld(from, s, i));
  if (i < n) {
    char ts[W * 4], td[W * 4];
    memset(ts, 0, sizeof ts);
    memcpy(ts, s + i * fe, (size_t)((n - i) * fe));
    ew_st(to, td, 0, ew_ld(from, ts, 0));
    memcpy(d + i * te, td, (size_t)((n - i) * te));
  }
}
static void ew_to_f32(float *d, const void *s, int64_t n, int32_t dt) {
  if (dt == CPU_EW_F16) ew_cvt_loop(CPU_EW_F16, CPU_EW_F32, (char *)d, s, n);
  else if (dt == CPU_EW_BF16) ew_cvt_loop(CPU_EW_BF16, CPU_EW_F32, (char *)d, s, n);
  else memcpy(d, s, (size_t)n * 4);
}
static void ew_from_f32(void *d, const float *s, int64_t n, int32_t dt) {
  if (dt == CPU_EW_F16) ew_cvt_loop(CPU_EW_F32, CPU_EW_F16, d, (const char *)s, n);
  else if (dt == CPU_EW_BF16) ew_cvt_loop(CPU_EW_F32, CPU_EW_BF16, d, (const char *)s, n);
  else memcpy(d, s, (size_t)n * 4);
}

const cpu_ew_isa_table CPU_EW_TABLE = {CPU_EW_NAME, W,         ew_unary,   ew_binary,
                                       ew_where,    ew_to_f32, ew_from_f32};
