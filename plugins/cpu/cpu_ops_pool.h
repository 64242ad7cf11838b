/* plugins/cpu/cpu_ops_pool.h: the pooling ops with a fast kernel beyond the 2-d
 * max/avg pools of cpu_ops_nn.h (cpu_nn_pool3.c).
 * X(ID, "op name", kernel function); cpu.h joins every list into CPU_FAST_OPS. */
#ifndef TABI_CPU_OPS_POOL_H
#define TABI_CPU_OPS_POOL_H
#define CPU_OPS_POOL(X) \
  X(AVG_POOL1D, "aten::avg_pool1d", cpu_k_avg_pool1d) \
  X(AVG_POOL3D, "aten::avg_pool3d", cpu_k_avg_pool3d) \
  X(MAX_POOL3D, "aten::max_pool3d_with_indices", cpu_k_max_pool3d) \
  X(ADAPTIVE_AVG_POOL1D, "aten::adaptive_avg_pool1d", cpu_k_adaptive_avg_pool1d) \
  X(ADAPTIVE_AVG_POOL2D, "aten::_adaptive_avg_pool2d", cpu_k_adaptive_avg_pool2d) \
  X(ADAPTIVE_AVG_POOL3D, "aten::_adaptive_avg_pool3d", cpu_k_adaptive_avg_pool3d) \
  X(ADAPTIVE_AVG_POOL2D_BWD, "aten::_adaptive_avg_pool2d_backward", cpu_k_adaptive_avg_pool2d_bwd)
#endif
