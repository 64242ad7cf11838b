/* plugins/cpu/cpu_ops_reduce.h: the reductions and softmax family with a fast kernel (cpu_reduce*.c).
 * X(ID, "op name", kernel function); cpu.h joins every list into CPU_FAST_OPS. */
#ifndef TABI_CPU_OPS_REDUCE_H
#define TABI_CPU_OPS_REDUCE_H
#define CPU_OPS_REDUCE(X) \
  X(SUM_DIM, "aten::sum.dim_IntList", cpu_k_sum_dim) \
  X(MEAN, "aten::mean", cpu_k_mean) \
  X(MEAN_DIM, "aten::mean.dim", cpu_k_mean_dim) \
  X(AMAX, "aten::amax", cpu_k_amax) \
  X(AMIN, "aten::amin", cpu_k_amin) \
  X(SOFTMAX, "aten::_softmax", cpu_k_softmax) \
  X(LOG_SOFTMAX, "aten::_log_softmax", cpu_k_log_softmax)
#endif
