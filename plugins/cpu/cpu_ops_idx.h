/* plugins/cpu/cpu_ops_idx.h: the indexing ops with a fast kernel (cpu_idx_*.c:
 * advanced indexing, the scatters, select/slice_scatter, the embedding backward
 * and bag). X(ID, "op name", kernel function); cpu.h joins every list into
 * CPU_FAST_OPS. */
#ifndef TABI_CPU_OPS_IDX_H
#define TABI_CPU_OPS_IDX_H
#define CPU_OPS_IDX(X) \
  X(INDEX, "aten::index.Tensor", cpu_k_index) \
  X(INDEX_PUT, "aten::index_put", cpu_k_index_put) \
  X(SCATTER_SRC, "aten::scatter.src", cpu_k_scatter_src) \
  X(SCATTER_VALUE, "aten::scatter.value", cpu_k_scatter_value) \
  X(SCATTER_REDUCE, "aten::scatter_reduce.two", cpu_k_scatter_reduce) \
  X(SELECT_SCATTER, "aten::select_scatter", cpu_k_select_scatter) \
  X(SLICE_SCATTER, "aten::slice_scatter", cpu_k_slice_scatter) \
  X(EMBEDDING_DENSE_BWD, "aten::embedding_dense_backward", cpu_k_embedding_dense_backward) \
  X(EMBEDDING_BAG, "aten::_embedding_bag", cpu_k_embedding_bag)
#endif
