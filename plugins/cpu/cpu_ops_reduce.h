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
  X(P_SUM, "prims::sum", cpu_k_p_sum) \
  X(P_AMAX, "prims::amax", cpu_k_p_amax) \
  X(P_AMIN, "prims::amin", cpu_k_p_amin) \
  X(PROD, "aten::prod", cpu_k_prod) \
  X(PROD_DIM, "aten::prod.dim_int", cpu_k_prod_dim) \
  X(P_PROD, "prims::prod", cpu_k_p_prod) \
  X(ARGMAX, "aten::argmax", cpu_k_argmax) \
  X(ARGMIN, "aten::argmin", cpu_k_argmin) \
  X(MAX_DIM, "aten::max.dim", cpu_k_max_dim) \
  X(MIN_DIM, "aten::min.dim", cpu_k_min_dim) \
  X(VAR_CORRECTION, "aten::var.correction", cpu_k_var_correction) \
  X(VAR_DIM, "aten::var.dim", cpu_k_var_dim) \
  X(P_VAR, "prims::var", cpu_k_p_var) \
  X(ANY, "aten::any", cpu_k_any) \
  X(ANY_DIM, "aten::any.dim", cpu_k_any_dim) \
  X(ANY_DIMS, "aten::any.dims", cpu_k_any_dims) \
  X(SOFTMAX, "aten::_softmax", cpu_k_softmax) \
  X(LOG_SOFTMAX, "aten::_log_softmax", cpu_k_log_softmax)
#endif
