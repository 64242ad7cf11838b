/* plugins/cpu/cpu_nn_conv64.h: convolution and its backward for the cases
 * oneDNN does not take (float64, integers, views with gaps or negative
 * strides, output_padding > padding; cpu_nn_conv64.c). Same arguments as the
 * op's kernel; what they decline in turn runs the reference kernel. */
#ifndef TABI_CPU_NN_CONV64_H
#define TABI_CPU_NN_CONV64_H

#include "cpu.h"

tabi_status cpu_conv64_fwd(const cpu_ctx *c, const tabi_call *call, tabi_value *args, tabi_value *outs);
tabi_status cpu_conv64_bwd(const cpu_ctx *c, const tabi_call *call, tabi_value *args, tabi_value *outs);

#endif /* TABI_CPU_NN_CONV64_H */
