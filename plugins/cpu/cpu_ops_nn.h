/* plugins/cpu/cpu_ops_nn.h: matmul, convolution, normalization, indexing and sorting ops with a fast kernel.
 * X(ID, "op name", kernel function); cpu.h joins every list into CPU_FAST_OPS. */
#ifndef TABI_CPU_OPS_NN_H
#define TABI_CPU_OPS_NN_H
#define CPU_OPS_NN(X) \
  X(LAYER_NORM, "aten::native_layer_norm", cpu_k_layer_norm) \
  X(MM, "aten::mm", cpu_k_mm) \
  X(BMM, "aten::bmm", cpu_k_bmm) \
  X(ADDMM, "aten::addmm", cpu_k_addmm) \
  X(CONV, "aten::convolution", cpu_k_conv) \
  X(CONV_BWD, "aten::convolution_backward", cpu_k_conv_bwd) \
  X(INDEX_SELECT, "aten::index_select", cpu_k_index_select) \
  X(GATHER, "aten::gather", cpu_k_gather) \
  X(SCATTER_ADD, "aten::scatter_add", cpu_k_scatter_add) \
  X(EMBEDDING, "aten::embedding", cpu_k_embedding) \
  X(SORT, "aten::sort", cpu_k_sort) \
  X(TOPK, "aten::topk", cpu_k_topk) \
  X(TO_COPY, "aten::_to_copy", cpu_k_to_copy) \
  X(CLONE, "aten::clone", cpu_k_clone) \
  X(COPY, "aten::copy", cpu_k_copy) \
  X(COPY_TO, "prims::copy_to", cpu_k_copy_to) \
  X(LAYER_NORM_BWD, "aten::native_layer_norm_backward", cpu_k_layer_norm_bwd) \
  X(MAX_POOL2D, "aten::max_pool2d_with_indices", cpu_k_max_pool2d) \
  X(MAX_POOL2D_BWD, "aten::max_pool2d_with_indices_backward", cpu_k_max_pool2d_bwd) \
  X(CAT, "aten::cat", cpu_k_cat) \
  X(P_CAT, "prims::cat", cpu_k_p_cat) \
  X(CONSTANT_PAD_ND, "aten::constant_pad_nd", cpu_k_constant_pad_nd) \
  X(BN_LEGIT, "aten::_native_batch_norm_legit", cpu_k_bn_legit) \
  X(BN_NO_STATS, "aten::_native_batch_norm_legit.no_stats", cpu_k_bn_no_stats) \
  X(BN_NO_TRAINING, "aten::_native_batch_norm_legit_no_training", cpu_k_bn_no_training) \
  X(AVG_POOL2D, "aten::avg_pool2d", cpu_k_avg_pool2d) \
  X(AVG_POOL2D_BWD, "aten::avg_pool2d_backward", cpu_k_avg_pool2d_bwd)
#endif
