/* plugins/cpu/cpu_elementwise_cplx.h: complex64/complex128 add, sub, mul, div,
 * eq, ne (aten, with Scalars, and prims) and neg (cpu_elementwise_cplx.c), called
 * by the kernels of cpu_elementwise_bin.c / cpu_elementwise.c when an operand is
 * complex. */
#ifndef TABI_CPU_ELEMENTWISE_CPLX_H
#define TABI_CPU_ELEMENTWISE_CPLX_H

#include "cpu_ew_engine.h"

/* args[0] fop args[1] for fop CPU_EWB_ADD/SUB (alpha: args[2] is alpha; else 1),
 * MUL, DIV, EQ, NE with a complex result dtype; prim: prims (same dtype and
 * shape). CPU_EW_DECLINE for what it does not take (other ops, integer or half
 * operands promoted to complex, 0-d results, empty). */
tabi_status cpu_ew_cplx_binary(const cpu_ctx *c, const tabi_call *call, tabi_value *args,
                               tabi_value *outs, int32_t fop, int32_t alpha, int32_t prim);

/* -self of a complex tensor (any strides); CPU_EW_DECLINE for 0-d and empty. */
tabi_status cpu_ew_cplx_neg(const cpu_ctx *c, tabi_value *args, tabi_value *outs);

#endif /* TABI_CPU_ELEMENTWISE_CPLX_H */
