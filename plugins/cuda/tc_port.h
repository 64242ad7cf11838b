/* plugins/cuda/tc_port.h: what lets one kernel source compile with nvcc (the
 * CUDA plugin) and with hipcc (the ROCm plugin, plugins/rocm/CMakeLists.txt).
 *
 * Under nvcc nothing changes: cuda_runtime.h, thrust::complex, kDLCUDA.
 * Under hipcc (TC_HIP): the CUDA runtime names the shared files use map to
 * their HIP twins, the plugin's device type is kDLROCM, and complex numbers
 * are tcx::complex below (rocThrust is not in Debian 12). Only the names the
 * shared files use are mapped: a new cuda* call in a shared file fails to
 * compile under hipcc until it is added here, which is the point.
 *
 * Under a host C++ compiler with TC_SIM (the gpusim plugins, plugins/gpusim):
 * the same sources run on the CPU. tc_sim.h stands for the runtime, the
 * launch and the thread indices, and runs every block's threads as fibers
 * that meet at __syncthreads. TC_HIP is set too (libtabi_gpusim.so), so the
 * files take the ROCm plugin's own GEMM, convolution and FFT where CUDA calls
 * its libraries; or, with TC_SIM_CUDA (libtabi_gpusim_cuda.so), it is not,
 * and the CUDA plugin's cuBLAS, cuFFT and cuDNN calls go to the host
 * stand-ins of plugins/gpusim/sim_vendor.h.
 *
 * Warp size: 32 on NVIDIA, 64 on gfx90a/gfx908, 32 on gfx1030 (wave32): a
 * shared kernel never hard-codes it; TC_WARP is the device-side value.
 *
 * Launches are written TC_LAUNCH(grid, block, kernel)(args...) (and
 * TC_LAUNCH_SMEM with the bytes of dynamic shared memory), never with the
 * triple chevrons, which only nvcc and hipcc parse. Shared memory is declared
 * TC_SHARED(type, name, [n]...) (static: `TC_SHARED(double, sh, [NT + 32]);`)
 * and TC_SHARED_DYN(type, name) (dynamic), never with __shared__ itself, so
 * that gpusim sees every block's shared memory: a block's static and dynamic
 * shared memory together may not pass 48 KiB, CUDA's limit for a kernel that
 * has not raised cudaFuncAttributeMaxDynamicSharedMemorySize (a launch over
 * it fails on a GPU; gpusim fails it too, tests/gpusim/test_tc_sim.cpp). */
#ifndef TABI_TC_PORT_H
#define TABI_TC_PORT_H

#if defined(__HIPCC__) && !defined(TC_HIP)
#define TC_HIP 1
#endif

#ifdef TC_SIM
#if !defined(TC_HIP) && !defined(TC_SIM_CUDA)
#define TC_HIP 1
#endif
#include "tc_sim.h"
#elif defined(TC_HIP)
#include <hip/hip_runtime.h>

#define cudaError_t hipError_t
#define cudaSuccess hipSuccess
#define cudaErrorMemoryAllocation hipErrorOutOfMemory
#define cudaGetErrorString hipGetErrorString
#define cudaGetLastError hipGetLastError
#define cudaGetDevice hipGetDevice
#define cudaSetDevice hipSetDevice
#define cudaMalloc hipMalloc
#define cudaFree hipFree
#define cudaMemcpy hipMemcpy
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemsetAsync hipMemsetAsync
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define cudaStream_t hipStream_t

/* Kernel tables are not const under hipcc: clang promotes a const global with
 * a constant initializer to __constant__ in the device pass, where the host
 * function pointers in it cannot link. */
#define TC_KTABLE
#define TC_DL_DEVICE kDLROCM
#define TC_PLATFORM "ROCm"
#define TC_WARP warpSize
/* Full-wave shuffles: HIP's take no mask (the whole wavefront takes part). */
#define TC_SHFL_DOWN(v, d) __shfl_down((v), (d))
#define TC_SHFL_UP(v, d) __shfl_up((v), (d))
#define TC_SHFL_XOR(v, d) __shfl_xor((v), (d))
#else
#include <cuda_runtime.h>

#define TC_KTABLE const
#define TC_DL_DEVICE kDLCUDA
#define TC_PLATFORM "CUDA"
#define TC_WARP 32
#define TC_SHFL_DOWN(v, d) __shfl_down_sync(0xffffffffu, (v), (d))
#define TC_SHFL_UP(v, d) __shfl_up_sync(0xffffffffu, (v), (d))
#define TC_SHFL_XOR(v, d) __shfl_xor_sync(0xffffffffu, (v), (d))
#endif

#ifndef TC_SIM
#define TC_LAUNCH(grid, block, ...) __VA_ARGS__<<<(grid), (block)>>>
#define TC_LAUNCH_SMEM(grid, block, smem, ...) __VA_ARGS__<<<(grid), (block), (smem)>>>
#define TC_SHARED(type, name, dims) __shared__ type name dims
#define TC_SHARED_DYN(type, name) extern __shared__ type name[]
#endif
/* A device function kept out of line: a rare path whose registers would
   otherwise count against its hot caller's occupancy. */
#ifdef TC_SIM
#define TC_NOINLINE __attribute__((noinline))
#else
#define TC_NOINLINE __noinline__
#endif

#endif /* TABI_TC_PORT_H */
