/* plugins/cuda/tc_device.cu: the device table over the CUDA runtime.
 *
 * Fork safety: CUDA cannot be used in a child forked after the parent touched
 * the driver, and `tabi conform` asks the device count in the parent before it
 * forks one child per group. So the first count in a process that has not used
 * CUDA yet is taken in a short-lived child (tc_probe.c: fork, count, _exit)
 * and cached in the plugin's ctx; the parent never initialises the driver.
 * Once this process has used CUDA itself (tc_mark_cuda_used), counts are direct.
 * A failing cudaGetDeviceCount (no driver, no GPU) is a count of 0, never an error.
 */
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

#include "tc.h"
#include "tc_probe.h"

/* The pid that initialised CUDA in this process: a process fact, not plugin state.
 * probe_direct marks it; run in the probe child it marks only the child. */
static pid_t tc_cuda_pid = 0; /* atomic loads and stores: every kernel call marks it, from any thread */

static int tc_cuda_used_here(void) { return __atomic_load_n(&tc_cuda_pid, __ATOMIC_RELAXED) == getpid(); }
/* Stored only when it changes: every kernel call comes here, and a store
 * from each would move the cache line between the calling cores. */
static void tc_mark_cuda_used(void) {
  if (!tc_cuda_used_here()) __atomic_store_n(&tc_cuda_pid, getpid(), __ATOMIC_RELAXED);
}

static int32_t probe_direct(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  tc_mark_cuda_used();
  return n < 0 ? 0 : n;
}

static tabi_status dev_count(void *ctx, int32_t *out_count) {
  tc_ctx *c = (tc_ctx *)ctx;
  if (!out_count) return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "cuda: count: out_count is NULL");
  pthread_mutex_lock(&c->mu);
  if (c->count < 0)
    c->count = tc_cuda_used_here() ? probe_direct() : tc_probe_count_in_child(probe_direct);
  *out_count = c->count;
  pthread_mutex_unlock(&c->mu);
  return TABI_OK;
}

static tabi_status check_index(tc_ctx *c, int32_t index, const char *what) {
  int32_t n = 0;
  dev_count(c, &n);
  if (index < 0 || index >= n)
    return TC_ERR(c, TABI_ERR_DEVICE, "cuda: %s: no CUDA device %d (%d present)", what, (int)index,
                  (int)n);
  tc_mark_cuda_used();
  cudaError_t e = cudaSetDevice(index);
  if (e != cudaSuccess)
    return TC_ERR(c, TABI_ERR_DEVICE, "cuda: %s: cudaSetDevice(%d): %s", what, (int)index,
                  cudaGetErrorString(e));
  return TABI_OK;
}

static tabi_status cuerr(tc_ctx *c, cudaError_t e, const char *what) {
  if (e == cudaSuccess) return TABI_OK;
  cudaGetLastError();
  return TC_ERR(c, e == cudaErrorMemoryAllocation ? TABI_ERR_OUT_OF_MEMORY : TABI_ERR_DEVICE,
                "cuda: %s: %s", what, cudaGetErrorString(e));
}

static tabi_status dev_properties(void *ctx, int32_t index, tabi_device_props *p) {
  tc_ctx *c = (tc_ctx *)ctx;
  if (!p) return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "cuda: properties: out_props is NULL");
  tabi_status st = check_index(c, index, "properties");
  if (st != TABI_OK) return st;
  cudaDeviceProp prop;
  st = cuerr(c, cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties");
  if (st != TABI_OK) return st;
  tabi_device_props out;
  memset(&out, 0, sizeof out);
  out.struct_size = (uint32_t)sizeof out;
  out.index = index;
  snprintf(out.name, sizeof out.name, "%.*s", (int)sizeof out.name - 1, prop.name); /* cut to fit */
  out.total_memory = prop.totalGlobalMem;
  out.compute_major = prop.major;
  out.compute_minor = prop.minor;
  out.multiprocessors = prop.multiProcessorCount;
  tabi_device_props_copy_out(p, &out);
  return TABI_OK;
}

static tabi_status dev_alloc(void *ctx, int32_t index, uint64_t nbytes, void **out_ptr) {
  tc_ctx *c = (tc_ctx *)ctx;
  if (!out_ptr) return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "cuda: alloc: out_ptr is NULL");
  tabi_status st = check_index(c, index, "alloc");
  if (st != TABI_OK) return st;
  void *p = NULL;
  cudaError_t e = cudaMalloc(&p, nbytes);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return TC_ERR(c, TABI_ERR_OUT_OF_MEMORY, "cuda: alloc of %llu bytes on device %d: %s",
                  (unsigned long long)nbytes, (int)index, cudaGetErrorString(e));
  }
  *out_ptr = p;
  return TABI_OK;
}

static tabi_status dev_free(void *ctx, int32_t index, void *ptr) {
  tc_ctx *c = (tc_ctx *)ctx;
  tabi_status st = check_index(c, index, "free");
  if (st != TABI_OK) return st;
  return cuerr(c, cudaFree(ptr), "cudaFree");
}

static tabi_status dev_copy(void *ctx, void *dst, DLDevice dd, const void *src, DLDevice sd,
                            uint64_t nbytes, tabi_stream stream) {
  tc_ctx *c = (tc_ctx *)ctx;
  if (nbytes == 0) return TABI_OK;
  int32_t dev = dd.device_type == TC_DL_DEVICE ? dd.device_id : sd.device_id;
  tabi_status st = check_index(c, dev, "copy");
  if (st != TABI_OK) return st;
  cudaMemcpyKind kind = cudaMemcpyDefault;
  int host_side = dd.device_type == kDLCPU || sd.device_type == kDLCPU;
  cudaStream_t s = (cudaStream_t)stream;
  if (dd.device_type == TC_DL_DEVICE && sd.device_type == TC_DL_DEVICE && dd.device_id != sd.device_id)
    return cuerr(c, cudaMemcpyPeerAsync(dst, dd.device_id, src, sd.device_id, nbytes, s),
                 "cudaMemcpyPeerAsync");
  st = cuerr(c, cudaMemcpyAsync(dst, src, nbytes, kind, s), "cudaMemcpyAsync");
  if (st == TABI_OK && host_side && !stream)
    st = cuerr(c, cudaStreamSynchronize(s), "cudaStreamSynchronize");
  return st;
}

static tabi_status dev_synchronize(void *ctx, int32_t index) {
  tc_ctx *c = (tc_ctx *)ctx;
  tabi_status st = check_index(c, index, "synchronize");
  if (st != TABI_OK) return st;
  return cuerr(c, cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

static tabi_status stream_create(void *ctx, int32_t index, tabi_stream *out) {
  tc_ctx *c = (tc_ctx *)ctx;
  if (!out) return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "cuda: stream_create: out_stream is NULL");
  tabi_status st = check_index(c, index, "stream_create");
  if (st != TABI_OK) return st;
  cudaStream_t s;
  st = cuerr(c, cudaStreamCreateWithFlags(&s, cudaStreamDefault), "cudaStreamCreate");
  if (st == TABI_OK) *out = (tabi_stream)s;
  return st;
}
static tabi_status stream_destroy(void *ctx, int32_t index, tabi_stream s) {
  tc_ctx *c = (tc_ctx *)ctx;
  tabi_status st = check_index(c, index, "stream_destroy");
  if (st != TABI_OK) return st;
  return cuerr(c, cudaStreamDestroy((cudaStream_t)s), "cudaStreamDestroy");
}
static tabi_status stream_sync(void *ctx, int32_t index, tabi_stream s) {
  tc_ctx *c = (tc_ctx *)ctx;
  tabi_status st = check_index(c, index, "stream_synchronize");
  if (st != TABI_OK) return st;
  return cuerr(c, cudaStreamSynchronize((cudaStream_t)s), "cudaStreamSynchronize");
}
static tabi_status event_create(void *ctx, int32_t index, tabi_event *out) {
  tc_ctx *c = (tc_ctx *)ctx;
  if (!out) return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "cuda: event_create: out_event is NULL");
  tabi_status st = check_index(c, index, "event_create");
  if (st != TABI_OK) return st;
  cudaEvent_t e;
  st = cuerr(c, cudaEventCreate(&e), "cudaEventCreate");
  if (st == TABI_OK) *out = (tabi_event)e;
  return st;
}
static tabi_status event_destroy(void *ctx, int32_t index, tabi_event e) {
  tc_ctx *c = (tc_ctx *)ctx;
  tabi_status st = check_index(c, index, "event_destroy");
  if (st != TABI_OK) return st;
  return cuerr(c, cudaEventDestroy((cudaEvent_t)e), "cudaEventDestroy");
}
static tabi_status event_record(void *ctx, int32_t index, tabi_event e, tabi_stream s) {
  tc_ctx *c = (tc_ctx *)ctx;
  tabi_status st = check_index(c, index, "event_record");
  if (st != TABI_OK) return st;
  return cuerr(c, cudaEventRecord((cudaEvent_t)e, (cudaStream_t)s), "cudaEventRecord");
}
static tabi_status event_wait(void *ctx, int32_t index, tabi_stream s, tabi_event e) {
  tc_ctx *c = (tc_ctx *)ctx;
  tabi_status st = check_index(c, index, "event_wait");
  if (st != TABI_OK) return st;
  return cuerr(c, cudaStreamWaitEvent((cudaStream_t)s, (cudaEvent_t)e, 0), "cudaStreamWaitEvent");
}
static tabi_status event_query(void *ctx, int32_t index, tabi_event e, int32_t *done) {
  tc_ctx *c = (tc_ctx *)ctx;
  if (!done) return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "cuda: event_query: out_done is NULL");
  tabi_status st = check_index(c, index, "event_query");
  if (st != TABI_OK) return st;
  cudaError_t r = cudaEventQuery((cudaEvent_t)e);
  if (r == cudaErrorNotReady) {
    cudaGetLastError();
    *done = 0;
    return TABI_OK;
  }
  *done = r == cudaSuccess;
  return cuerr(c, r, "cudaEventQuery");
}
static tabi_status event_sync(void *ctx, int32_t index, tabi_event e) {
  tc_ctx *c = (tc_ctx *)ctx;
  tabi_status st = check_index(c, index, "event_synchronize");
  if (st != TABI_OK) return st;
  return cuerr(c, cudaEventSynchronize((cudaEvent_t)e), "cudaEventSynchronize");
}
static tabi_status event_elapsed(void *ctx, int32_t index, tabi_event a, tabi_event b,
                                 double *ms) {
  tc_ctx *c = (tc_ctx *)ctx;
  if (!ms) return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "cuda: event_elapsed_ms: out_ms is NULL");
  tabi_status st = check_index(c, index, "event_elapsed_ms");
  if (st != TABI_OK) return st;
  float f = 0;
  st = cuerr(c, cudaEventElapsedTime(&f, (cudaEvent_t)a, (cudaEvent_t)b), "cudaEventElapsedTime");
  *ms = f;
  return st;
}
static tabi_status dev_memset(void *ctx, int32_t index, void *ptr, int32_t byte, uint64_t n,
                              tabi_stream s) {
  tc_ctx *c = (tc_ctx *)ctx;
  tabi_status st = check_index(c, index, "memset");
  if (st != TABI_OK) return st;
  return cuerr(c, cudaMemsetAsync(ptr, byte, n, (cudaStream_t)s), "cudaMemsetAsync");
}

extern "C" tabi_status tc_device_register(tc_ctx *c);

tabi_status tc_device_register(tc_ctx *c) {
  tabi_device_api d;
  memset(&d, 0, sizeof d);
  d.struct_size = (uint32_t)sizeof d;
  d.device_type = TC_DL_DEVICE;
#ifdef TC_SIM
  d.name = "gpusim_cuda"; /* this file on the host (plugins/gpusim, sim_runtime.cpp) */
#else
  d.name = "cuda";
#endif
  d.ctx = c;
  d.count = dev_count;
  d.properties = dev_properties;
  d.alloc = dev_alloc;
  d.free = dev_free;
  d.copy = dev_copy;
  d.synchronize = dev_synchronize;
  d.stream_create = stream_create;
  d.stream_destroy = stream_destroy;
  d.stream_synchronize = stream_sync;
  d.event_create = event_create;
  d.event_destroy = event_destroy;
  d.event_record = event_record;
  d.event_wait = event_wait;
  d.event_query = event_query;
  d.event_synchronize = event_sync;
  d.event_elapsed_ms = event_elapsed;
  d.memset = dev_memset;
  return c->h->device_register(c->h->ctx, &d);
}

/* For kernels: a device is about to be used by this process. */
extern "C" void tc_note_cuda_used(void);
void tc_note_cuda_used(void) { tc_mark_cuda_used(); }
