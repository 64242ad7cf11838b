/* plugins/cpu/cpu_ops_ew.h: the elementwise ops with a fast kernel (cpu_elementwise*.c).
 * X(ID, "op name", kernel function); cpu.h joins every list into CPU_FAST_OPS. */
#ifndef TABI_CPU_OPS_EW_H
#define TABI_CPU_OPS_EW_H
#define CPU_OPS_EW(X) \
  X(ADD_TENSOR, "aten::add.Tensor", cpu_k_add_tensor) \
  X(SUB_TENSOR, "aten::sub.Tensor", cpu_k_sub_tensor) \
  X(MUL_TENSOR, "aten::mul.Tensor", cpu_k_mul_tensor) \
  X(DIV_TENSOR, "aten::div.Tensor", cpu_k_div_tensor) \
  X(P_ADD, "prims::add", cpu_k_p_add) \
  X(P_SUB, "prims::sub", cpu_k_p_sub) \
  X(P_MUL, "prims::mul", cpu_k_p_mul) \
  X(P_DIV, "prims::div", cpu_k_p_div) \
  X(EXP, "aten::exp", cpu_k_exp) \
  X(P_EXP, "prims::exp", cpu_k_p_exp) \
  X(GELU, "aten::gelu", cpu_k_gelu) \
  X(NEG, "aten::neg", cpu_k_neg) \
  X(ABS, "aten::abs", cpu_k_abs) \
  X(RELU, "aten::relu", cpu_k_relu) \
  X(SIGMOID, "aten::sigmoid", cpu_k_sigmoid) \
  X(TANH, "aten::tanh", cpu_k_tanh) \
  X(SQRT, "aten::sqrt", cpu_k_sqrt) \
  X(RSQRT, "aten::rsqrt", cpu_k_rsqrt) \
  X(LOG, "aten::log", cpu_k_log) \
  X(SIN, "aten::sin", cpu_k_sin) \
  X(COS, "aten::cos", cpu_k_cos)
#endif
