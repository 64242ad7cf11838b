# The installed SDK: a CMake package (find_package(tabi) -> tabi::tabi, tabi::abi,
# tabi_add_plugin(), TABI_PLUGIN_INSTALL_DIR) and pkg-config files (tabi.pc for
# frameworks linking libtabi, tabi-abi.pc for plugins: headers only).
# Both are relocatable: they find the prefix from their own location.
include(CMakePackageConfigHelpers)

set(TABI_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tabi)
install(EXPORT tabiTargets NAMESPACE tabi:: DESTINATION ${TABI_CMAKE_INSTALL_DIR})
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/tabiConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/tabiConfig.cmake
  INSTALL_DESTINATION ${TABI_CMAKE_INSTALL_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR
            CMAKE_INSTALL_DATADIR TABI_PLUGIN_INSTALL_DIR)
# 0.x: a minor bump may break the framework API, so only the same minor matches.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/tabiConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/tabiConfig.cmake
              ${CMAKE_BINARY_DIR}/cmake/tabiConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/tabiFloatRounding.cmake
        DESTINATION ${TABI_CMAKE_INSTALL_DIR})
# The float rounding probe, which tabi_add_plugin() runs on the vendor's compiler.
install(FILES ${PROJECT_SOURCE_DIR}/tests/core/test_float_rounding.c
        DESTINATION ${TABI_CMAKE_INSTALL_DIR} RENAME tabi_float_rounding_probe.c)

# pkg-config: prefix relative to the .pc file, so `cmake --install --prefix X` works.
set(TABI_PKGCONFIG_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH TABI_PC_PREFIX_REL /${TABI_PKGCONFIG_INSTALL_DIR} /)
string(REGEX REPLACE "/$" "" TABI_PC_PREFIX_REL "${TABI_PC_PREFIX_REL}")
set(TABI_PC_DLPACK_CFLAGS "")
if(DLPACK_INCLUDE_DIR AND NOT DLPACK_INCLUDE_DIR MATCHES "^/usr(/local)?/include/?$")
  set(TABI_PC_DLPACK_CFLAGS "-I${DLPACK_INCLUDE_DIR}")
endif()
# tabi-abi.pc's plugin_cflags: TABI_NO_SLP_VECTORIZE's flag, for plugins built
# without tabi_add_plugin() (by hand, or with pkg-config).
set(TABI_PC_PLUGIN_CFLAGS "")
if(TABI_NO_SLP_VECTORIZE)
  set(TABI_PC_PLUGIN_CFLAGS "-fno-tree-slp-vectorize")
endif()
set(TABI_PC_PLUGIN_CC "${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION}")
foreach(pc tabi tabi-abi)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in ${CMAKE_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/pkgconfig/${pc}.pc DESTINATION ${TABI_PKGCONFIG_INSTALL_DIR})
endforeach()
