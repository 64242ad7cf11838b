/* plugins/cpu/cpu_ew.h: the fast elementwise engine's inner loops, as the
 * engine (cpu_ew_engine.c) sees them.
 *
 * The float loops exist three times, one table per instruction set (AVX-512,
 * AVX2+FMA+F16C, plain C), built from the same source (cpu_ew_loops.h over
 * cpu_simd_*.h and cpu_ew_math.h); cpu_ew_isa() picks the best the CPU runs,
 * once per process (TABI_CPU_ISA=scalar|avx2|avx512 caps it, for tests).
 *
 * A loop computes n elements. Operands are float32, float16 or bfloat16 (all of
 * one dtype `dt`: float16/bfloat16 are widened to float32 in registers and
 * rounded once at the store); results are that dtype, or bool for the
 * comparisons and predicates. Input k is contiguous, or, where bit k of `smask`
 * is set, one element repeated (a Scalar, a 0-d tensor, a broadcast dim). The
 * output is contiguous. This header includes nothing of tabi's, so the ISA files
 * compile no tabi inline function under a foreign target.
 */
#ifndef TABI_CPU_EW_H
#define TABI_CPU_EW_H

#include <stdint.h>

enum { CPU_EW_F32, CPU_EW_F16, CPU_EW_BF16 };

/* Unary float ops; from CPU_EWU_BOOL_FIRST on the result is bool. */
enum {
  CPU_EWU_COPY, CPU_EWU_EXP, CPU_EWU_EXP2, CPU_EWU_EXPM1, CPU_EWU_LOG, CPU_EWU_LOG2,
  CPU_EWU_LOG10, CPU_EWU_LOG1P, CPU_EWU_SIN, CPU_EWU_COS, CPU_EWU_TAN, CPU_EWU_TANH,
  CPU_EWU_SIGMOID, CPU_EWU_ERF, CPU_EWU_ERFC, CPU_EWU_GELU, CPU_EWU_GELU_TANH, CPU_EWU_SQRT,
  CPU_EWU_RSQRT, CPU_EWU_RECIP, CPU_EWU_NEG, CPU_EWU_ABS, CPU_EWU_RELU, CPU_EWU_FLOOR,
  CPU_EWU_CEIL, CPU_EWU_TRUNC, CPU_EWU_ROUND, CPU_EWU_SIGN, CPU_EWU_SQUARE, CPU_EWU_CUBE,
  CPU_EWU_RSQUARE,
  CPU_EWU_CLAMP,  /* f[0] <= x <= f[1] (NaN x kept) */
  CPU_EWU_LEAKY,  /* x > 0 ? x : x * f[0] */
  CPU_EWU_ELU,    /* x <= 0 ? (expm1(x * f[2]) + 0) * f[0] : x * f[1] */
  CPU_EWU_EXP2M,  /* 2^(x * (f[0] + f[1])): pow.Scalar of a positive base */
  CPU_EWU_FILL,   /* f[0] */
  CPU_EWU_BOOL_FIRST,
  CPU_EWU_ISNAN = CPU_EWU_BOOL_FIRST, CPU_EWU_ISINF, CPU_EWU_ISFINITE, CPU_EWU_SIGNBIT,
  CPU_EWU_LNOT,
  CPU_EWU_COUNT
};

/* Binary float ops; from CPU_EWB_BOOL_FIRST on the result is bool. */
enum {
  CPU_EWB_ADD,  /* a + f[0] * b */
  CPU_EWB_SUB,  /* a - f[0] * b */
  CPU_EWB_MUL, CPU_EWB_DIV, CPU_EWB_MAXIMUM, CPU_EWB_MINIMUM,
  CPU_EWB_ATAN2, /* atan2(a, b) */
  CPU_EWB_BOOL_FIRST,
  CPU_EWB_EQ = CPU_EWB_BOOL_FIRST, CPU_EWB_NE, CPU_EWB_LT, CPU_EWB_LE, CPU_EWB_GT, CPU_EWB_GE,
  CPU_EWB_LAND, CPU_EWB_LOR, CPU_EWB_LXOR,
  CPU_EWB_COUNT
};

typedef struct cpu_ew_args {
  int32_t op;
  int32_t dt;  /* CPU_EW_F32 ... */
  float f[3];  /* parameters, already rounded to the op's dtype */
  /* 1: store the float results non-temporally (large outputs: no read for
   * ownership of lines nobody will read soon); the output then starts 64-byte
   * aligned and the caller issues _mm_sfence before the result is published */
  int32_t nt;
} cpu_ew_args;

typedef struct cpu_ew_isa_table {
  const char *name;
  int32_t lanes;
  void (*unary)(void *o, const void *a, int64_t n, const cpu_ew_args *p);
  /* smask bit 0: a is one repeated element; bit 1: b is */
  void (*binary)(void *o, const void *a, const void *b, int64_t n, int32_t smask,
                 const cpu_ew_args *p);
  /* o[i] = c[i] ? a[i] : b[i] for elements of `esz` bytes (1, 2, 4, 8), any dtype;
   * c is bool; smask bit 0 c, bit 1 a, bit 2 b repeated */
  void (*where)(void *o, const void *c, const void *a, const void *b, int64_t n, int32_t smask,
                int32_t esz);
  /* float32 <-> float32/float16/bfloat16 buffers (cpu_to_f32 / cpu_from_f32) */
  void (*to_f32)(float *d, const void *s, int64_t n, int32_t dt);
  void (*from_f32)(void *d, const float *s, int64_t n, int32_t dt);
} cpu_ew_isa_table;

extern const cpu_ew_isa_table cpu_ew_isa_avx512;
extern const cpu_ew_isa_table cpu_ew_isa_avx512bf; /* AVX-512 + AVX512_BF16 */
extern const cpu_ew_isa_table cpu_ew_isa_avx2;
extern const cpu_ew_isa_table cpu_ew_isa_scalar;

/* The table for this CPU (capped by TABI_CPU_ISA), chosen once. */
const cpu_ew_isa_table *cpu_ew_isa(void);
/* Outputs of this many bytes or more are streamed (non-temporal stores):
 * 16 MB, or TABI_CPU_NT_BYTES; read once per process, with the table. */
int64_t cpu_ew_nt_bytes(void);

#endif /* TABI_CPU_EW_H */
