/* plugins/cpu/cpu_ops_misc.h: the random, creation and copy ops with a fast kernel
 * (cpu_misc_*.c), and prims::svd (cpu_linalg_svd.c). X(ID, "op name", kernel function); cpu.h joins every list into
 * CPU_FAST_OPS. */
#ifndef TABI_CPU_OPS_MISC_H
#define TABI_CPU_OPS_MISC_H
#define CPU_OPS_MISC(X) \
  X(RAND, "aten::rand", cpu_k_rand) \
  X(RANDN, "aten::randn", cpu_k_randn) \
  X(P_UNIFORM, "prims::uniform", cpu_k_p_uniform) \
  X(P_NORMAL, "prims::normal", cpu_k_p_normal) \
  X(RANDPERM, "aten::randperm", cpu_k_randperm) \
  X(FULL, "aten::full", cpu_k_full) \
  X(P_FULL, "prims::full", cpu_k_p_full) \
  X(FULL_LIKE, "aten::full_like", cpu_k_full_like) \
  X(P_FULL_LIKE, "prims::full_like", cpu_k_p_full_like) \
  X(FILL, "aten::fill.Scalar", cpu_k_fill) \
  X(P_FILL, "prims::fill", cpu_k_p_fill) \
  X(ARANGE, "aten::arange.start_step", cpu_k_arange) \
  X(P_CONVERT, "prims::convert_element_type", cpu_k_p_convert) \
  X(FLIP, "aten::flip", cpu_k_flip) \
  X(P_REV, "prims::rev", cpu_k_p_rev) \
  X(REPEAT, "aten::repeat", cpu_k_repeat) \
  X(REFLECTION_PAD1D, "aten::reflection_pad1d", cpu_k_reflection_pad1d) \
  X(REFLECTION_PAD2D, "aten::reflection_pad2d", cpu_k_reflection_pad2d) \
  X(REFLECTION_PAD3D, "aten::reflection_pad3d", cpu_k_reflection_pad3d) \
  X(REPLICATION_PAD2D, "aten::replication_pad2d", cpu_k_replication_pad2d) \
  X(REPLICATION_PAD3D, "aten::replication_pad3d", cpu_k_replication_pad3d) \
  X(CUMSUM, "aten::cumsum", cpu_k_cumsum) \
  X(NONZERO, "aten::nonzero", cpu_k_nonzero) \
  X(MASKED_SCATTER, "aten::masked_scatter", cpu_k_masked_scatter) \
  X(P_SVD, "prims::svd", cpu_k_p_svd)
#endif
