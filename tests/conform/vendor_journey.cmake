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
