/* plugins/cpu/cpu_ops_nn3.h: group norm, upsampling, grid sampling, col2im and
 * distances (cpu_nn3_*.c). X(ID, "op name", kernel function); cpu.h joins every
 * list into CPU_FAST_OPS. */
#ifndef TABI_CPU_OPS_NN3_H
#define TABI_CPU_OPS_NN3_H
#define CPU_OPS_NN3(X) \
  X(GROUP_NORM, "aten::native_group_norm", cpu_k_group_norm) \
  X(GROUP_NORM_BWD, "aten::native_group_norm_backward", cpu_k_group_norm_bwd) \
  X(UPSAMPLE_NEAREST2D, "aten::upsample_nearest2d.vec", cpu_k_upsample_nearest2d) \
  X(UPSAMPLE_BILINEAR2D, "aten::upsample_bilinear2d.vec", cpu_k_upsample_bilinear2d) \
  X(GRID_SAMPLER_2D, "aten::grid_sampler_2d", cpu_k_grid_sampler_2d) \
  X(COL2IM, "aten::col2im", cpu_k_col2im) \
  X(CDIST, "aten::_cdist_forward", cpu_k_cdist) \
  X(PDIST, "aten::_pdist_forward", cpu_k_pdist)
#endif
