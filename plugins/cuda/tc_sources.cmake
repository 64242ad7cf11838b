# plugins/cuda/tc_sources.cmake: the source lists the CUDA and the ROCm plugin
# share, in one place, so a kernel family or a reference check added for one
# GPU plugin is compiled into the other too. Included by plugins/cuda and
# plugins/rocm; paths are absolute.
set(tc_dir ${CMAKE_CURRENT_LIST_DIR})
set(tc_ref_dir ${CMAKE_CURRENT_LIST_DIR}/../../reference)

# The kernel families (tc_<name>.cu): nvcc compiles them into the CUDA plugin,
# hipcc into the ROCm plugin (tc_port.h maps the names). Not tc_device.cu or
# tc_plugin.cu: the CUDA runtime's device table and entry point.
set(tc_kernel_families tc_util tc_ew tc_ew_vec tc_ew_ops tc_shape tc_reduce tc_random tc_blas tc_nn
    tc_index tc_conv tc_sort tc_scatter tc_fft tc_pad_up tc_pool tc_misc tc_norm tc_idx tc_bn
    tc_svd tc_create)

# Host C both device tables use, with or without kernels: the forked device
# count, the registration of the reference's views (tc_ref_views.c), and the reference's metadata-only kernels (views, factories that build
# on the host and hand over through host->tensor_copy), device-agnostic.
set(tc_common_sources
  ${tc_dir}/tc_probe.c
  ${tc_dir}/tc_ref_views.c
  ${tc_ref_dir}/ref_util.c
  ${tc_ref_dir}/ref_shape.c
  ${tc_ref_dir}/ref_shape_util.c
  ${tc_ref_dir}/ref_create.c)

# Host C the kernel families call: the glue to the reference's host helpers,
# the library algorithm cache (cuDNN / MIOpen), and the argument checks of the
# native families, which are the reference's own functions.
set(tc_kernel_host_sources
  ${tc_dir}/tc_ref_glue.c
  ${tc_dir}/tc_algo_cache.c
  ${tc_ref_dir}/ref_reduce_util.c
  ${tc_ref_dir}/ref_reduce.c # the aten reductions' plans (tc_red_aten_plan)
  ${tc_ref_dir}/ref_elementwise.c # the aten descriptors (tc_ew_aten_unary/binary_plan)
  ${tc_ref_dir}/ref_elementwise2.c
  ${tc_ref_dir}/ref_elementwise3.c
  ${tc_ref_dir}/ref_elementwise_drive.c
  ${tc_ref_dir}/ref_elementwise_special.c
  ${tc_ref_dir}/ref_cplx_util.c
  ${tc_ref_dir}/ref_padup_check.c
  ${tc_ref_dir}/ref_pool_check.c
  ${tc_ref_dir}/ref_misc_check.c
  ${tc_ref_dir}/ref_nn_util.c # ref_nn_stats_dtype, for the norm checks
  ${tc_ref_dir}/ref_norm_check.c
  ${tc_ref_dir}/ref_softmax_check.c
  ${tc_ref_dir}/ref_reduce2_check.c
  ${tc_ref_dir}/ref_resize_check.c
  ${tc_ref_dir}/ref_nn_bn_check.c
  ${tc_ref_dir}/ref_index_check.c
  ${tc_ref_dir}/ref_conv_check.c
  ${tc_ref_dir}/ref_linalg_svd.c) # ref_linalg_svd_check/_nonfinite for tc_svd.cu
