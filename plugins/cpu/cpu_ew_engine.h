/* plugins/cpu/cpu_ew_engine.h: the fast elementwise engine (a small TensorIterator).
 *
 * An op kernel (cpu_elementwise*.c) decides ATen's semantics of its call (result
 * dtype, Scalar checks, parameters) and fills a cpu_ew_call; cpu_ew_run then
 * broadcasts the operands, turns Scalars and 0-d tensors into one repeated
 * element of the compute dtype (cast exactly as the reference casts them),
 * coalesces dims, allocates the contiguous result and runs the loops over the
 * pool, split statically with a grain so small tensors stay on one thread.
 *
 * Three kinds of loop, picked from the compute dtype:
 *  - float32/float16/bfloat16 with a vector op (fop >= 0): the SIMD loops of
 *    cpu_ew.h; operands with a stride other than 0 or 1 are gathered first;
 *  - floating (float64, or any float without a vector op) with `dfn`: blocks of
 *    doubles (each element widened exactly, the result rounded once at the
 *    store, as the reference does: libm functions give the same bits);
 *  - bool/integers with `ifn`: blocks of int64 (two's complement wrap at the
 *    store, as the reference).
 * where: the select loop on the raw bytes of the result dtype (self / other of
 * another dtype cast per block first).
 * cpu_ew_run returns CPU_EW_DECLINE (before any allocation) when it cannot take
 * the call; the kernel then calls the reference.
 */
#ifndef TABI_CPU_EW_ENGINE_H
#define TABI_CPU_EW_ENGINE_H

#include "cpu.h"
#include "cpu_ew.h"

#define CPU_EW_DECLINE ((tabi_status)-12345)
#define CPU_EW_BLOCK 1024

struct cpu_ew_call;
typedef void (*cpu_ew_dfn)(double *x, const double *y, int64_t n, const struct cpu_ew_call *e);
typedef void (*cpu_ew_ifn)(int64_t *x, const int64_t *y, int64_t n, const struct cpu_ew_call *e);
/* three-operand loops (CPU_EWK_TERNARY): x[i] = f(x[i], y[i], z[i]) */
typedef void (*cpu_ew_dfn3)(double *x, const double *y, const double *z, int64_t n,
                            const struct cpu_ew_call *e);
typedef void (*cpu_ew_ifn3)(int64_t *x, const int64_t *y, const int64_t *z, int64_t n,
                            const struct cpu_ew_call *e);

/* TERNARY: three inputs through the double / int64 loops only (clamp.Tensor) */
enum { CPU_EWK_UNARY = 1, CPU_EWK_BINARY = 2, CPU_EWK_WHERE = 3, CPU_EWK_TERNARY = 4 };

typedef struct cpu_ew_call {
  int32_t kind;              /* CPU_EWK_* (the number of inputs, where: 3) */
  const tabi_value *in[3];   /* tensors or Scalars (where: condition, self, other) */
  tabi_dtype cd;             /* compute dtype: every input is (cast to) it */
  tabi_dtype od;             /* result dtype: cd or bool */
  int32_t fop;               /* CPU_EWU_* / CPU_EWB_* or -1 */
  cpu_ew_dfn dfn;            /* double loop or NULL */
  cpu_ew_ifn ifn;            /* int64 loop or NULL */
  int32_t heavy;             /* 1: transcendental (smaller grain), 2: libm per element */
  float f[3];                /* vector-loop parameters */
  double pd[4];              /* double-loop parameters */
  int64_t pi[2];             /* int64-loop parameters */
  cpu_ew_dfn3 dfn3;          /* TERNARY: the double / int64 loops */
  cpu_ew_ifn3 ifn3;
  /* Optional: write into this existing tensor (an out= argument) instead of a
   * new one. Taken when it is contiguous, of dtype od and of the broadcast
   * shape, and overlaps no input (an input that IS it, same dtype, shape and
   * contiguous layout, is fine: elements are read before they are written);
   * otherwise cpu_ew_run declines. On success outs[0] holds a new reference. */
  tabi_tensor *dst;
} cpu_ew_call;

/* Runs the call; TABI_OK with outs[0] set, an error, or CPU_EW_DECLINE. */
tabi_status cpu_ew_run(const cpu_ctx *c, const cpu_ew_call *e, tabi_value *outs);

#endif /* TABI_CPU_EW_ENGINE_H */
