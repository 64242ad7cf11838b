# tests/conform/vendor_journey.cmake: the vendor's journey, end to end.
#
#   cmake -DBUILD_DIR=<tabi build> -DSOURCE_DIR=<tabi source> -DWORK=<scratch dir>
#         -DGENERATOR=<cmake generator> -P vendor_journey.cmake
#
# Installs the tabi SDK to a fresh prefix, configures and builds
# examples/vendor-plugin against that installed SDK only (find_package(tabi)),
# and runs the installed `tabi conform` on the result: it must pass.
file(REMOVE_RECURSE ${WORK})
set(SDK ${WORK}/sdk)
set(ACME ${WORK}/acme-build)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${SDK})
if(NOT EXISTS ${SDK}/lib/cmake/tabi/tabiConfig.cmake OR NOT EXISTS ${SDK}/bin/tabi)
  message(FATAL_ERROR "the installed SDK lacks tabiConfig.cmake or bin/tabi")
endif()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/vendor-plugin -B ${ACME} -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${SDK} -DCMAKE_BUILD_TYPE=RelWithDebInfo)
run(${CMAKE_COMMAND} --build ${ACME})
if(NOT EXISTS ${ACME}/libtabi_acme.so)
  message(FATAL_ERROR "the example did not produce libtabi_acme.so")
endif()

# tabi_add_plugin probed the vendor's compiler (the same one as tabi's here)
# for dropped float roundings: it must reach tabi's answer, and where that is
# ON, the plugin's compile lines carry the workaround.
function(cached_bool dir out)
  file(STRINGS ${dir}/CMakeCache.txt line REGEX "^TABI_NO_SLP_VECTORIZE:BOOL=")
  if(NOT line)
    message(FATAL_ERROR "${dir}/CMakeCache.txt has no TABI_NO_SLP_VECTORIZE")
  endif()
  string(REGEX REPLACE "^[^=]*=" "" v "${line}")
  set(${out} ${v} PARENT_SCOPE)
endfunction()
cached_bool(${BUILD_DIR} tabi_no_slp)
cached_bool(${ACME} acme_no_slp)
if(NOT tabi_no_slp STREQUAL acme_no_slp)
  message(FATAL_ERROR "tabi_add_plugin's rounding probe said TABI_NO_SLP_VECTORIZE=${acme_no_slp}; "
                      "tabi's own build, same compiler, says ${tabi_no_slp}")
endif()
file(GLOB_RECURSE build_files ${ACME}/flags.make ${ACME}/build.ninja)
set(flagged 0)
foreach(f ${build_files})
  file(READ ${f} text)
  string(FIND "${text}" "-fno-tree-slp-vectorize" at)
  if(NOT at EQUAL -1)
    set(flagged 1)
  endif()
endforeach()
set(want 0)
if(tabi_no_slp)
  set(want 1)
endif()
if(NOT build_files OR NOT flagged EQUAL want)
  message(FATAL_ERROR "TABI_NO_SLP_VECTORIZE is ${acme_no_slp} but the plugin's compile flags "
                      "(${build_files}) have -fno-tree-slp-vectorize: ${flagged}")
endif()
message(STATUS "the vendor's compiler: TABI_NO_SLP_VECTORIZE=${acme_no_slp}, as tabi's")

# acme supports float32, float64, int32 and int64; every op is run.
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env TABI_PLUGIN_PATH=${ACME}:${SDK}/lib/tabi/plugins
          ${SDK}/bin/tabi conform --plugin acme --dtypes float32,float64,int32,int64
          --jobs 2 --quiet --json ${WORK}/acme.json
          --matrix ${WORK}/acme.md
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tabi conform failed the example plugin (exit ${rc})")
endif()
file(READ ${WORK}/acme.json js)
string(JSON passed GET "${js}" summary passed)
string(JSON failed GET "${js}" summary failed)
file(READ ${WORK}/acme.md md)
string(FIND "${md}" "decomposed" at_decomp)
string(FIND "${md}" "| prims::add | pass" at_native)
if(NOT failed EQUAL 0 OR passed LESS 500 OR at_decomp EQUAL -1 OR at_native EQUAL -1)
  message(FATAL_ERROR "expected native prims and decomposed ATen ops to pass: "
                      "${passed} passed, ${failed} failed")
endif()
message(STATUS "OK: the example plugin passes (${passed} cases)")
