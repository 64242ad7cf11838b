/* plugins/gpusim/sim_runtime.cpp: the CUDA runtime's stream, event and
 * device calls for libtabi_gpusim_cuda.so, so the CUDA plugin's own device
 * table (plugins/cuda/tc_device.cu) runs on the host: conformance's device
 * checks (copies, streams, events, bad arguments) then reach it.
 *
 * Host memory is device memory (tc_sim.cpp) and work is synchronous, so
 * every stream and event is complete when asked. Streams and events are
 * real handles: each lives in a registry from create to destroy, and a call
 * on one that is not there (never created, or destroyed) is refused with
 * cudaErrorInvalidResourceHandle, where a GPU's runtime may or may not
 * notice. The legacy default stream (0) is always valid. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mutex>
#include <set>

#include "gpusim.h" /* tc_sim_device_count */
#include "tc_sim.h"

struct tc_sim_stream {
  int unused;
};
struct tc_sim_event {
  int recorded;
  double ms;
};

namespace {

std::mutex mu;
std::set<const void *> live; /* streams and events from create to destroy */

bool alive(const void *h) {
  std::lock_guard<std::mutex> g(mu);
  return live.count(h) != 0;
}
template <typename T>
cudaError_t make(T **out) {
  if (!out) return tc_sim_fail(cudaErrorInvalidValue);
  T *h = new T();
  std::lock_guard<std::mutex> g(mu);
  live.insert(h);
  *out = h;
  return cudaSuccess;
}
template <typename T>
cudaError_t destroy(T *h) {
  {
    std::lock_guard<std::mutex> g(mu);
    if (!live.erase(h)) return tc_sim_fail(cudaErrorInvalidResourceHandle);
  }
  delete h;
  return cudaSuccess;
}
cudaError_t stream_ok(cudaStream_t s) {
  return !s || alive(s) ? cudaSuccess : tc_sim_fail(cudaErrorInvalidResourceHandle);
}
cudaError_t event_ok(cudaEvent_t e) {
  return e && alive(e) ? cudaSuccess : tc_sim_fail(cudaErrorInvalidResourceHandle);
}
double now_ms() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

} // namespace

extern "C" {

cudaError_t cudaGetDeviceCount(int *n) {
  if (!n) return tc_sim_fail(cudaErrorInvalidValue);
  *n = tc_sim_device_count();
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev) {
  if (!p) return tc_sim_fail(cudaErrorInvalidValue);
  if (dev < 0 || dev >= tc_sim_device_count()) return tc_sim_fail(cudaErrorInvalidDevice);
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "gpusim_cuda %d (the CUDA plugin on the host CPU)", dev);
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE), cpus = sysconf(_SC_NPROCESSORS_ONLN);
  p->totalGlobalMem = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
  p->major = 9; /* what the plugin is built for first */
  p->minor = 0;
  p->multiProcessorCount = cpus > 0 ? (int)cpus : 1;
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }

cudaError_t cudaMemcpyPeerAsync(void *dst, int ddev, const void *src, int sdev, size_t n, cudaStream_t s) {
  int count = tc_sim_device_count();
  if (ddev < 0 || ddev >= count || sdev < 0 || sdev >= count) return tc_sim_fail(cudaErrorInvalidDevice);
  cudaError_t e = stream_ok(s);
  return e != cudaSuccess ? e : cudaMemcpy(dst, src, n, cudaMemcpyDeviceToDevice);
}

cudaError_t cudaStreamCreate(cudaStream_t *s) { return make(s); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) { return make(s); }
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  return s ? destroy(s) : tc_sim_fail(cudaErrorInvalidResourceHandle);
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) { return stream_ok(s); }
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned) {
  cudaError_t r = stream_ok(s);
  return r != cudaSuccess ? r : event_ok(e);
}

cudaError_t cudaEventCreate(cudaEvent_t *e) { return make(e); }
cudaError_t cudaEventDestroy(cudaEvent_t e) { return e ? destroy(e) : tc_sim_fail(cudaErrorInvalidResourceHandle); }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  cudaError_t r = event_ok(e);
  if (r == cudaSuccess) r = stream_ok(s);
  if (r != cudaSuccess) return r;
  e->recorded = 1;
  e->ms = now_ms();
  return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t e) { return event_ok(e); }
cudaError_t cudaEventSynchronize(cudaEvent_t e) { return event_ok(e); }
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  if (!ms) return tc_sim_fail(cudaErrorInvalidValue);
  cudaError_t r = event_ok(a);
  if (r == cudaSuccess) r = event_ok(b);
  if (r != cudaSuccess) return r;
  if (!a->recorded || !b->recorded) return tc_sim_fail(cudaErrorInvalidResourceHandle);
  *ms = (float)(b->ms - a->ms);
  return cudaSuccess;
}

} // extern "C"
