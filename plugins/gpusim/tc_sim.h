/* plugins/gpusim/tc_sim.h: what the GPU plugins' kernel sources need from a
 * GPU, on the CPU (included by plugins/cuda/tc_port.h under TC_SIM).
 *
 * The gpusim plugin compiles the very files nvcc and hipcc compile
 * (plugins/cuda/tc_*.cu) with the host C++ compiler, so `tabi conform` can
 * prove their indexing, their host glue and their block algorithms on a
 * machine without a GPU. What stands in for the GPU:
 *   - qualifiers (__global__, __device__, ...) become plain C++; shared
 *     memory, declared TC_SHARED (tc_port.h: __shared__ itself does not
 *     compile here), is a function-local static thread_local, one copy per
 *     OS thread, shared by the fibers of the block that thread runs, and
 *     counted: a block whose static and dynamic shared memory pass 48 KiB
 *     fails its launch, as it does on a GPU; each block finds it undefined
 *     (0xA5 bytes);
 *   - threadIdx/blockIdx/blockDim/gridDim are thread_local and set by the
 *     executor before it resumes each simulated thread;
 *   - TC_LAUNCH(grid, block, kernel)(args) runs the whole grid before it
 *     returns (tc_sim.cpp): block after block (forward, and backward on every other launch), each block's threads as fibers
 *     that run to the next __syncthreads in turn (forward, then backward, so
 *     code that leans on an order between barriers shows); when the first
 *     block reaches no barrier, the other blocks' threads are plain calls;
 *   - the runtime calls the shared files make (cudaMalloc, cudaMemcpyAsync,
 *     ...) work on host memory, synchronously; launch errors (a block of more
 *     than 1024 threads, an empty grid) are kept for cudaGetLastError as the
 *     CUDA runtime does.
 * What it cannot show: races between blocks or between threads of one warp,
 * the device's own math library (sin, exp, ...: the host's here), memory
 * ordering, speed. */
#ifndef TABI_TC_SIM_H
#define TABI_TC_SIM_H

#include <cmath>
#include <math.h> /* isnan, isinf, ... in the global namespace, as device code has them */
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <tuple>
#include <utility>

#include <dlpack/dlpack.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)

#define TC_KTABLE const
#define TC_DL_DEVICE kDLExtDev
#define TC_PLATFORM "gpusim"
/* The ROCm flavour (libtabi_gpusim.so) runs 64-lane warps, as gfx90a and
 * gfx908 do, so a kernel that takes the width for 32 shows there; the CUDA
 * flavour 32. */
#ifdef TC_HIP
#define TC_WARP 64
#else
#define TC_WARP 32
#endif

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};

/* __thread, not thread_local: a C++ thread_local declared extern is reached
 * through a wrapper call, and gcc 12 -O2 -fsanitize=null tests the wrong
 * flags after it (a false "member access within null pointer"). */
extern __thread uint3 threadIdx, blockIdx, blockDim, gridDim;

/* The runtime subset the shared files use (plugins/cuda/tc_port.h maps the
 * same names for HIP). */
typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorLaunchFailure = 719,
  /* gpusim's own: a block over the shared memory limit (CUDA says
   * cudaErrorInvalidValue; this one's message gives the bytes) */
  cudaErrorSimSharedMemory = 10001,
} cudaError_t;
typedef enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
} cudaMemcpyKind;
typedef struct tc_sim_stream *cudaStream_t;

extern "C" {
const char *cudaGetErrorString(cudaError_t e);
cudaError_t cudaGetLastError(void);
cudaError_t cudaGetDevice(int *dev);
cudaError_t cudaSetDevice(int dev);
cudaError_t cudaMalloc(void **p, size_t n);
cudaError_t cudaFree(void *p);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind k);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind k,
                            cudaStream_t s = 0);
cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s = 0);

/* The executor (tc_sim.cpp): runs body(arg) once per thread of the grid;
 * a bad configuration is kept for cudaGetLastError and nothing runs. */
void tc_sim_run(dim3 grid, dim3 block, size_t smem, void (*body)(void *), void *arg);
/* Keeps e for cudaGetLastError, as the runtime does with a failing call's
 * error, and returns it (sim_runtime.cpp's calls). */
cudaError_t tc_sim_fail(cudaError_t e);
/* The barrier of the running block. */
void tc_sim_syncthreads(void);
/* A warp shuffle of width lanes: the lane's v posted, and the value of lane
 * (lane ^ arg) (mode 0), (lane + arg) (mode 1) or (lane - arg) (mode 2)
 * returned once every live lane of the warp has posted (its own v where
 * that lane is past either end of the warp). */
uint64_t tc_sim_shfl(uint64_t v, int mode, int arg, int width);
/* The running launch's dynamic shared memory (16-byte aligned). */
void *tc_sim_dyn_shared(void);
/* Counts the static shared array at `site` (bytes long) into the running
 * launch's shared memory, once per array and launch, and fills it with 0xA5
 * bytes for each block the first time one of its threads declares it
 * (TC_SHARED calls it). */
void tc_sim_static_shared(void *site, size_t bytes);
}

#define __syncthreads() tc_sim_syncthreads()
#define TC_SHARED(type, name, dims) \
  static thread_local type name dims; \
  tc_sim_static_shared(&name, sizeof name)
#define TC_SHARED_DYN(type, name) type *name = (type *)tc_sim_dyn_shared()

/* __shfl_xor_sync / __shfl_down_sync / __shfl_up_sync over the whole warp
 * (tc_port.h's TC_SHFL_XOR, _DOWN, _UP), for any value of up to 8 bytes. */
template <class T>
inline T tc_sim_shfl_t(T v, int mode, int arg, int width = TC_WARP) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "a shuffle moves up to 8 bytes");
  uint64_t u = 0;
  memcpy(&u, &v, sizeof v);
  u = tc_sim_shfl(u, mode, arg, width);
  memcpy(&v, &u, sizeof v);
  return v;
}
#define TC_SHFL_XOR(v, d) tc_sim_shfl_t((v), 0, (d))
#define TC_SHFL_DOWN(v, d) tc_sim_shfl_t((v), 1, (d))
#define TC_SHFL_UP(v, d) tc_sim_shfl_t((v), 2, (d))

namespace tc_sim {
/* kernel(args...) for every thread: the arguments are converted to the
 * kernel's parameter types once, as a launch copies them, and each thread
 * calls the kernel with that one copy (kernel parameters are by value). */
template <class... P>
struct launcher {
  dim3 grid, block;
  size_t smem;
  void (*kernel)(P...);
  template <class... A>
  void operator()(A &&...a) const {
    struct frame {
      void (*k)(P...);
      std::tuple<P...> args;
    } f{kernel, std::tuple<P...>(std::forward<A>(a)...)};
    tc_sim_run(grid, block, smem, [](void *p) {
      frame *x = (frame *)p;
      std::apply(x->k, x->args);
    }, &f);
  }
};
template <class... P>
launcher<P...> launch(dim3 grid, dim3 block, size_t smem, void (*kernel)(P...)) {
  /* CUDA before 12.1 (and any GPU before Volta) takes 4 KiB of parameters
   * at most; the shared kernels keep to it, so a parameter struct that grows
   * past it stops the build here rather than a launch on some toolkit */
  static_assert((sizeof(P) + ... + 0) <= 4096, "a kernel's parameters pass 4 KiB");
  return launcher<P...>{grid, block, smem, kernel};
}
} // namespace tc_sim

#define TC_LAUNCH(grid, block, ...) tc_sim::launch((grid), (block), 0, __VA_ARGS__)
#define TC_LAUNCH_SMEM(grid, block, smem, ...) tc_sim::launch((grid), (block), (smem), __VA_ARGS__)

/* CUDA's vector type the float32 fast path loads (16-byte aligned, as there). */
struct alignas(16) float4 {
  float x, y, z, w;
};
static inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }

#ifdef TC_SIM_CUDA /* libtabi_gpusim_cuda.so: the CUDA paths, on host stand-ins of the libraries */
#include "sim_vendor.h"
#endif

#endif /* TABI_TC_SIM_H */
