# Compiler defects the build works around, found by running a probe, not by
# matching version numbers (cmake/tabiFloatRounding.cmake says how).
#
# Float rounding: where gcc drops the (double)(float)x roundings the reference
# and the plugins rely on, every file gcc compiles (C, C++, and the host code
# nvcc hands to gcc) is built with -fno-tree-slp-vectorize; a compiler that
# drops them even then stops the configure. Measured on the CPU plugin
# (bench/RESULTS.md, 2026-11-29): no case slower beyond the run-to-run spread;
# the FFTs 1.4-1.5x faster. Loop vectorization and the intrinsics, which the
# kernels' hot loops use, are not affected. The installed package runs the same
# check for vendors' plugins (tabi_add_plugin, cmake/tabiConfig.cmake.in).
include(${CMAKE_CURRENT_LIST_DIR}/tabiFloatRounding.cmake)

tabi_check_float_rounding(${PROJECT_SOURCE_DIR}/tests/core/test_float_rounding.c FATAL_ERROR)
tabi_float_rounding_options(_tabi_rounding_opts)
add_compile_options(${_tabi_rounding_opts})
