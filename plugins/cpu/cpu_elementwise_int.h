/* plugins/cpu/cpu_elementwise_int.h: integer division and remainder (div with
 * rounding_mode "trunc"/"floor", fmod, remainder, prims::div/fmod/remainder on
 * integers; cpu_elementwise_int.c), called by the binary kernels of
 * cpu_elementwise_bin.c before their float paths. */
#ifndef TABI_CPU_ELEMENTWISE_INT_H
#define TABI_CPU_ELEMENTWISE_INT_H

#include "cpu_ew_engine.h"

enum { CPU_IDIV_TRUNC, CPU_IDIV_FLOOR, CPU_IDIV_FMOD, CPU_IDIV_REM };

/* args[0] op args[1] when the result dtype is an integer one (int64 ... uint8);
 * prim: prims (same dtype and shape, no Scalars). CPU_EW_DECLINE for anything
 * else and whenever a divisor element is zero (before or after computing: the
 * partial result is released), so that the reference kernel raises its
 * ZeroDivisionError with its own words. */
tabi_status cpu_ew_int_divmod(const cpu_ctx *c, const tabi_call *call, tabi_value *args,
                              tabi_value *outs, int32_t op, int32_t prim);

#endif /* TABI_CPU_ELEMENTWISE_INT_H */
