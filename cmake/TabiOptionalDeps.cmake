# Resolves TABI_WITH_CUDA / TABI_WITH_ROCM / TABI_WITH_ONEDNN (AUTO|ON|OFF) to the
# booleans TABI_HAVE_CUDA / TABI_HAVE_ROCM / TABI_HAVE_ONEDNN, once, for every
# folder below. AUTO uses a toolchain when found, ON fails the configure when it
# is missing, OFF never looks. One status line per option says what happened.
#
# What plugin folders get, besides the TABI_HAVE_* booleans:
#   CUDA:   TABI_NVCC (path), CUDAToolkit_* and the CUDA::* targets (CUDAToolkit)
#   ROCm:   TABI_HIPCC (path, may be empty), tabi::hip (amdhip64 + include dir)
#   oneDNN: tabi::dnnl (libdnnl + include dir)

# Normalizes TABI_WITH_<opt> to AUTO, ON or OFF in `out`.
function(tabi_option_mode opt out)
  string(TOUPPER "${TABI_WITH_${opt}}" v)
  if(v STREQUAL "AUTO" OR v STREQUAL "")
    set(${out} AUTO PARENT_SCOPE)
  elseif(v MATCHES "^(ON|YES|TRUE|Y|1)$")
    set(${out} ON PARENT_SCOPE)
  elseif(v MATCHES "^(OFF|NO|FALSE|N|0)$")
    set(${out} OFF PARENT_SCOPE)
  else()
    message(FATAL_ERROR "TABI_WITH_${opt}=${TABI_WITH_${opt}}: expected AUTO, ON or OFF")
  endif()
endfunction()

# Sets TABI_HAVE_<opt> from the mode and whether the probe found it; prints the line.
macro(tabi_option_resolve opt mode found detail)
  if("${mode}" STREQUAL "OFF")
    set(TABI_HAVE_${opt} OFF)
    message(STATUS "tabi: ${opt}: off (TABI_WITH_${opt}=OFF)")
  elseif(${found})
    set(TABI_HAVE_${opt} ON)
    message(STATUS "tabi: ${opt}: yes (${detail})")
  elseif("${mode}" STREQUAL "ON")
    message(FATAL_ERROR "tabi: TABI_WITH_${opt}=ON but ${detail}")
  else()
    set(TABI_HAVE_${opt} OFF)
    message(STATUS "tabi: ${opt}: no (${detail}; AUTO skips it)")
  endif()
endmacro()

# --- CUDA: nvcc and the toolkit, from PATH, CUDA_PATH or /usr/local/cuda -------
tabi_option_mode(CUDA tabi_mode)
set(tabi_found FALSE)
set(tabi_detail "nvcc not found (PATH, CUDA_PATH, /usr/local/cuda/bin)")
if(NOT tabi_mode STREQUAL "OFF")
  find_program(TABI_NVCC nvcc HINTS ENV CUDA_PATH PATH_SUFFIXES bin
               PATHS /usr/local/cuda/bin)
  if(TABI_NVCC)
    if(NOT CUDAToolkit_ROOT)
      get_filename_component(tabi_cuda_bin "${TABI_NVCC}" DIRECTORY)
      get_filename_component(CUDAToolkit_ROOT "${tabi_cuda_bin}" DIRECTORY)
    endif()
    find_package(CUDAToolkit QUIET)
    if(CUDAToolkit_FOUND)
      set(tabi_found TRUE)
      set(tabi_detail "CUDA ${CUDAToolkit_VERSION}, ${TABI_NVCC}")
    else()
      set(tabi_detail "nvcc at ${TABI_NVCC} but the CUDA toolkit (cudart) was not found")
    endif()
  endif()
endif()
tabi_option_resolve(CUDA "${tabi_mode}" tabi_found "${tabi_detail}")

# --- ROCm: the HIP runtime (libamdhip64 + hip/hip_runtime.h), hipcc if present --
tabi_option_mode(ROCM tabi_mode)
set(tabi_found FALSE)
set(tabi_detail "libamdhip64 or hip/hip_runtime.h not found (Debian: libamdhip64-dev)")
if(NOT tabi_mode STREQUAL "OFF")
  find_program(TABI_HIPCC hipcc PATHS /opt/rocm/bin)
  find_library(TABI_AMDHIP64_LIBRARY amdhip64 PATHS /opt/rocm/lib)
  find_path(TABI_HIP_INCLUDE_DIR hip/hip_runtime.h PATHS /opt/rocm/include)
  if(TABI_AMDHIP64_LIBRARY AND TABI_HIP_INCLUDE_DIR)
    set(tabi_found TRUE)
    set(tabi_detail "${TABI_AMDHIP64_LIBRARY}")
    if(TABI_HIPCC)
      string(APPEND tabi_detail ", ${TABI_HIPCC}")
    endif()
    if(NOT TARGET tabi::hip)
      add_library(tabi::hip INTERFACE IMPORTED)
      set_target_properties(tabi::hip PROPERTIES
        INTERFACE_LINK_LIBRARIES "${TABI_AMDHIP64_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${TABI_HIP_INCLUDE_DIR}"
        INTERFACE_COMPILE_DEFINITIONS "__HIP_PLATFORM_AMD__")
    endif()
  endif()
endif()
tabi_option_resolve(ROCM "${tabi_mode}" tabi_found "${tabi_detail}")

# --- oneDNN: libdnnl + oneapi/dnnl/dnnl.h (Debian: libdnnl-dev) -----------------
tabi_option_mode(ONEDNN tabi_mode)
set(tabi_found FALSE)
set(tabi_detail "libdnnl or oneapi/dnnl/dnnl.h not found (Debian: libdnnl-dev)")
if(NOT tabi_mode STREQUAL "OFF")
  find_library(TABI_DNNL_LIBRARY dnnl)
  find_path(TABI_DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.h)
  if(TABI_DNNL_LIBRARY AND TABI_DNNL_INCLUDE_DIR)
    set(tabi_found TRUE)
    set(tabi_detail "${TABI_DNNL_LIBRARY}")
    if(NOT TARGET tabi::dnnl)
      add_library(tabi::dnnl INTERFACE IMPORTED)
      set_target_properties(tabi::dnnl PROPERTIES
        INTERFACE_LINK_LIBRARIES "${TABI_DNNL_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${TABI_DNNL_INCLUDE_DIR}")
    endif()
  endif()
endif()
tabi_option_resolve(ONEDNN "${tabi_mode}" tabi_found "${tabi_detail}")

unset(tabi_mode)
unset(tabi_found)
unset(tabi_detail)
