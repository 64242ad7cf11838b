# Compiler defects the build works around, found by running a probe, not by
# matching version numbers: a fixed compiler gets no workaround, and a new
# broken one gets it without a change here.
#
# Float rounding. The reference and the plugins round double intermediates to
# float with (double)(float)x where ATen's float arithmetic rounds. gcc 12.2's
# SLP vectorizer (-O2 and up) drops a pair of such round trips, so an op
# computes with unrounded values and can differ from ATen in the last bit or
# by a flush to zero (tests/core/test_float_rounding.c has the cases). Where the
# probe fails, every file gcc compiles (C, C++, and the host code nvcc hands
# to gcc) is built with -fno-tree-slp-vectorize. Measured on the CPU plugin
# (bench/RESULTS.md, 2026-11-29): no case slower beyond the run-to-run spread;
# the FFTs 1.4-1.5x faster. Loop vectorization and the intrinsics, which the
# kernels' hot loops use, are not affected.

set(_tabi_round_probe ${PROJECT_SOURCE_DIR}/tests/core/test_float_rounding.c)

# _tabi_probe_rounding(<out-var> <flags...>): 1 when the probe, compiled with
# the flags at -O2 and at -O3, keeps every rounding.
function(_tabi_probe_rounding out)
  set(ok 1)
  foreach(level -O2 -O3)
    try_run(run_rc compile_ok ${CMAKE_BINARY_DIR}/tabi_probe_rounding ${_tabi_round_probe}
            COMPILE_DEFINITIONS ${level} ${ARGN}
            C_STANDARD 11
            COMPILE_OUTPUT_VARIABLE compile_log RUN_OUTPUT_VARIABLE run_log)
    if(NOT compile_ok)
      message(FATAL_ERROR "tabi: the float rounding probe (${_tabi_round_probe}) does not "
                          "compile with ${level} ${ARGN}:\n${compile_log}")
    endif()
    if(NOT run_rc EQUAL 0)
      set(ok 0)
      set(TABI_ROUND_PROBE_LOG "${level} ${ARGN}:\n${run_log}" PARENT_SCOPE)
    endif()
  endforeach()
  set(${out} ${ok} PARENT_SCOPE)
endfunction()

if(NOT DEFINED TABI_NO_SLP_VECTORIZE)
  if(CMAKE_CROSSCOMPILING)
    # The probe cannot run: go by the version known to be affected.
    if(CMAKE_C_COMPILER_ID STREQUAL "GNU" AND CMAKE_C_COMPILER_VERSION VERSION_GREATER_EQUAL 12
       AND CMAKE_C_COMPILER_VERSION VERSION_LESS 13)
      set(no_slp ON)
    else()
      set(no_slp OFF)
    endif()
  else()
    _tabi_probe_rounding(kept)
    if(kept)
      set(no_slp OFF)
    elseif(CMAKE_C_COMPILER_ID STREQUAL "GNU")
      message(STATUS "tabi: ${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION} drops float "
                     "roundings when it SLP-vectorizes; building with -fno-tree-slp-vectorize")
      _tabi_probe_rounding(kept_without -fno-tree-slp-vectorize)
      if(NOT kept_without)
        message(FATAL_ERROR "tabi: ${CMAKE_C_COMPILER} drops float roundings even with "
                            "-fno-tree-slp-vectorize; use another compiler (clang, or a "
                            "gcc other than ${CMAKE_C_COMPILER_VERSION}).\n${TABI_ROUND_PROBE_LOG}")
      endif()
      set(no_slp ON)
    else()
      message(FATAL_ERROR "tabi: ${CMAKE_C_COMPILER} drops float roundings the source asks "
                          "for; use another compiler.\n${TABI_ROUND_PROBE_LOG}")
    endif()
  endif()
  set(TABI_NO_SLP_VECTORIZE ${no_slp} CACHE BOOL
      "Build with -fno-tree-slp-vectorize (set by a probe: the compiler drops float roundings)")
endif()

if(TABI_NO_SLP_VECTORIZE)
  # The flag is gcc's: given only where gcc compiles. nvcc hands host code to
  # the gcc on PATH unless told another host compiler.
  add_compile_options($<$<COMPILE_LANGUAGE:C>:-fno-tree-slp-vectorize>)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fno-tree-slp-vectorize>)
  endif()
  if(NOT CMAKE_CUDA_HOST_COMPILER MATCHES "clang")
    add_compile_options($<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fno-tree-slp-vectorize>)
  endif()
endif()
