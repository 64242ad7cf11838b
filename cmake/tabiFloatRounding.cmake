# tabiFloatRounding.cmake: does the C compiler keep the float roundings the
# source asks for? Used by tabi's own build (cmake/TabiCompilerChecks.cmake)
# and installed with the CMake package, where tabi_add_plugin() runs it for a
# vendor's plugin, built by the vendor's compiler.
#
# The reference and the plugins round double intermediates to float with
# (double)(float)x where ATen's float arithmetic rounds. gcc 12.2's SLP
# vectorizer (-O2 and up) drops a pair of such round trips, so an op computes
# with unrounded values and can differ from ATen in the last bit or by a flush
# to zero (the probe, tabi_float_rounding_probe.c, has the cases). The check
# runs the probe rather than matching version numbers: a fixed compiler gets
# no workaround, and a new broken one gets it without a change here.

# _tabi_probe_rounding(<out-var> <probe.c> <flags...>): 1 when the probe,
# compiled with the flags at -O2 and at -O3, keeps every rounding.
function(_tabi_probe_rounding out probe)
  set(ok 1)
  foreach(level -O2 -O3)
    try_run(run_rc compile_ok ${CMAKE_BINARY_DIR}/tabi_probe_rounding ${probe}
            COMPILE_DEFINITIONS ${level} ${ARGN}
            C_STANDARD 11
            COMPILE_OUTPUT_VARIABLE compile_log RUN_OUTPUT_VARIABLE run_log)
    if(NOT compile_ok)
      message(FATAL_ERROR "tabi: the float rounding probe (${probe}) does not "
                          "compile with ${level} ${ARGN}:\n${compile_log}")
    endif()
    if(NOT run_rc EQUAL 0)
      set(ok 0)
      set(TABI_ROUND_PROBE_LOG "${level} ${ARGN}:\n${run_log}" PARENT_SCOPE)
    endif()
  endforeach()
  set(${out} ${ok} PARENT_SCOPE)
endfunction()

# tabi_check_float_rounding(<probe.c> <FATAL_ERROR|WARNING>): sets the cache
# variable TABI_NO_SLP_VECTORIZE (ON: build with -fno-tree-slp-vectorize)
# unless it is already set, which also lets a user decide it by hand. A
# compiler that drops roundings even with the flag, or one that is not gcc,
# gets a message of the given mode naming it: tabi's build stops; a vendor's
# is warned that its plugin may fail `tabi conform` for the compiler's sake.
function(tabi_check_float_rounding probe mode)
  if(DEFINED TABI_NO_SLP_VECTORIZE)
    return()
  endif()
  if(CMAKE_CROSSCOMPILING)
    # The probe cannot run: go by the version known to be affected.
    if(CMAKE_C_COMPILER_ID STREQUAL "GNU" AND CMAKE_C_COMPILER_VERSION VERSION_GREATER_EQUAL 12
       AND CMAKE_C_COMPILER_VERSION VERSION_LESS 13)
      set(no_slp ON)
    else()
      set(no_slp OFF)
    endif()
  else()
    _tabi_probe_rounding(kept ${probe})
    if(kept)
      set(no_slp OFF)
    elseif(CMAKE_C_COMPILER_ID STREQUAL "GNU")
      message(STATUS "tabi: ${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION} drops float "
                     "roundings when it SLP-vectorizes; building with -fno-tree-slp-vectorize")
      _tabi_probe_rounding(kept_without ${probe} -fno-tree-slp-vectorize)
      set(no_slp ON)
      if(NOT kept_without)
        message(${mode} "tabi: ${CMAKE_C_COMPILER} drops float roundings even with "
                        "-fno-tree-slp-vectorize; use another compiler (clang, or a "
                        "gcc other than ${CMAKE_C_COMPILER_VERSION}).\n${TABI_ROUND_PROBE_LOG}")
      endif()
    else()
      set(no_slp OFF)
      message(${mode} "tabi: ${CMAKE_C_COMPILER} drops float roundings the source asks "
                      "for; use another compiler.\n${TABI_ROUND_PROBE_LOG}")
    endif()
  endif()
  set(TABI_NO_SLP_VECTORIZE ${no_slp} CACHE BOOL
      "Build with -fno-tree-slp-vectorize (set by a probe: the compiler drops float roundings)")
endfunction()

# tabi_float_rounding_options(<out-var>): the compile options that
# TABI_NO_SLP_VECTORIZE asks for, as generator expressions per language. The
# flag is gcc's: given only where gcc compiles. nvcc hands host code to the gcc
# on PATH unless told another host compiler.
function(tabi_float_rounding_options out)
  set(opts "")
  if(TABI_NO_SLP_VECTORIZE)
    list(APPEND opts $<$<COMPILE_LANGUAGE:C>:-fno-tree-slp-vectorize>)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      list(APPEND opts $<$<COMPILE_LANGUAGE:CXX>:-fno-tree-slp-vectorize>)
    endif()
    if(NOT CMAKE_CUDA_HOST_COMPILER MATCHES "clang")
      list(APPEND opts $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fno-tree-slp-vectorize>)
    endif()
  endif()
  set(${out} "${opts}" PARENT_SCOPE)
endfunction()
