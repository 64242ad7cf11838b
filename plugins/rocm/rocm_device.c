/* plugins/rocm/rocm_device.c: the device table over the HIP runtime.
 *
 * Mirrors plugins/cuda/tc_device.cu: the first device count in a process that
 * has not used HIP is taken in a forked child (so `tabi conform`'s parent never
 * initialises the runtime before forking its workers); a failing
 * hipGetDeviceCount (no driver, no GPU) is a count of 0, never an error. */
#define _POSIX_C_SOURCE 200809L
#define __HIP_PLATFORM_AMD__ 1
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

#include "rocm.h"
#include "../cuda/tc_probe.h"

/* The process that initialised HIP: atomic loads and stores, since every
 * kernel call marks it, from any thread. */
static pid_t rocm_pid = 0;

static int hip_used_here(void) { return __atomic_load_n(&rocm_pid, __ATOMIC_RELAXED) == getpid(); }
/* stored only when it changes (every kernel call comes here) */
void rocm_note_hip_used(void) {
  if (!hip_used_here()) __atomic_store_n(&rocm_pid, getpid(), __ATOMIC_RELAXED);
}

static int32_t probe_direct(void) {
  int n = 0;
  if (hipGetDeviceCount(&n) != hipSuccess) return 0;
  rocm_note_hip_used();
  return n < 0 ? 0 : n;
}

static tabi_status dev_count(void *ctx, int32_t *out) {
  rocm_ctx *c = ctx;
  if (!out) return TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT, "rocm: count: out_count is NULL");
  pthread_mutex_lock(&c->mu);
  if (c->count < 0)
    c->count = hip_used_here() ? probe_direct() : tc_probe_count_in_child(probe_direct);
  *out = c->count;
  pthread_mutex_unlock(&c->mu);
  return TABI_OK;
}

static tabi_status herr(rocm_ctx *c, hipError_t e, const char *what) {
  if (e == hipSuccess) return TABI_OK;
  return TABI_ERR(c->h, e == hipErrorOutOfMemory ? TABI_ERR_OUT_OF_MEMORY : TABI_ERR_DEVICE,
                  "rocm: %s: %s", what, hipGetErrorString(e));
}

static tabi_status use(rocm_ctx *c, int32_t index, const char *what) {
  int32_t n = 0;
  dev_count(c, &n);
  if (index < 0 || index >= n)
    return TABI_ERR(c->h, TABI_ERR_DEVICE, "rocm: %s: no ROCm device %d (%d present)", what,
                    (int)index, (int)n);
  rocm_note_hip_used();
  return herr(c, hipSetDevice(index), "hipSetDevice");
}

static tabi_status dev_properties(void *ctx, int32_t index, tabi_device_props *p) {
  rocm_ctx *c = ctx;
  if (!p) return TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT, "rocm: properties: out_props is NULL");
  tabi_status st = use(c, index, "properties");
  if (st != TABI_OK) return st;
  hipDeviceProp_t prop;
  if ((st = herr(c, hipGetDeviceProperties(&prop, index), "hipGetDeviceProperties"))) return st;
  tabi_device_props o;
  memset(&o, 0, sizeof o);
  o.struct_size = (uint32_t)sizeof o;
  o.index = index;
  snprintf(o.name, sizeof o.name, "%.127s", prop.name);
  o.total_memory = prop.totalGlobalMem;
  o.compute_major = prop.major;
  o.compute_minor = prop.minor;
  o.multiprocessors = prop.multiProcessorCount;
  tabi_device_props_copy_out(p, &o);
  return TABI_OK;
}

static tabi_status dev_alloc(void *ctx, int32_t index, uint64_t nbytes, void **out) {
  rocm_ctx *c = ctx;
  if (!out) return TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT, "rocm: alloc: out_ptr is NULL");
  tabi_status st = use(c, index, "alloc");
  return st ? st : herr(c, hipMalloc(out, nbytes), "hipMalloc");
}
static tabi_status dev_free(void *ctx, int32_t index, void *ptr) {
  rocm_ctx *c = ctx;
  tabi_status st = use(c, index, "free");
  return st ? st : herr(c, hipFree(ptr), "hipFree");
}
static tabi_status dev_copy(void *ctx, void *dst, DLDevice dd, const void *src, DLDevice sd,
                            uint64_t n, tabi_stream stream) {
  rocm_ctx *c = ctx;
  if (n == 0) return TABI_OK;
  tabi_status st = use(c, dd.device_type == kDLROCM ? dd.device_id : sd.device_id, "copy");
  if (st) return st;
  hipStream_t s = (hipStream_t)stream;
  st = herr(c, hipMemcpyAsync(dst, src, n, hipMemcpyDefault, s), "hipMemcpyAsync");
  if (st == TABI_OK && !stream && (dd.device_type == kDLCPU || sd.device_type == kDLCPU))
    st = herr(c, hipStreamSynchronize(s), "hipStreamSynchronize");
  return st;
}
static tabi_status dev_sync(void *ctx, int32_t index) {
  rocm_ctx *c = ctx;
  tabi_status st = use(c, index, "synchronize");
  return st ? st : herr(c, hipDeviceSynchronize(), "hipDeviceSynchronize");
}
static tabi_status s_create(void *ctx, int32_t index, tabi_stream *out) {
  rocm_ctx *c = ctx;
  if (!out)
    return TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT, "rocm: stream_create: out_stream is NULL");
  hipStream_t s;
  tabi_status st = use(c, index, "stream_create");
  if (st == TABI_OK) st = herr(c, hipStreamCreate(&s), "hipStreamCreate");
  if (st == TABI_OK) *out = (tabi_stream)s;
  return st;
}
static tabi_status s_destroy(void *ctx, int32_t index, tabi_stream s) {
  rocm_ctx *c = ctx;
  tabi_status st = use(c, index, "stream_destroy");
  return st ? st : herr(c, hipStreamDestroy((hipStream_t)s), "hipStreamDestroy");
}
static tabi_status s_sync(void *ctx, int32_t index, tabi_stream s) {
  rocm_ctx *c = ctx;
  tabi_status st = use(c, index, "stream_synchronize");
  return st ? st : herr(c, hipStreamSynchronize((hipStream_t)s), "hipStreamSynchronize");
}
static tabi_status e_create(void *ctx, int32_t index, tabi_event *out) {
  rocm_ctx *c = ctx;
  if (!out)
    return TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT, "rocm: event_create: out_event is NULL");
  hipEvent_t e;
  tabi_status st = use(c, index, "event_create");
  if (st == TABI_OK) st = herr(c, hipEventCreate(&e), "hipEventCreate");
  if (st == TABI_OK) *out = (tabi_event)e;
  return st;
}
static tabi_status e_destroy(void *ctx, int32_t index, tabi_event e) {
  rocm_ctx *c = ctx;
  tabi_status st = use(c, index, "event_destroy");
  return st ? st : herr(c, hipEventDestroy((hipEvent_t)e), "hipEventDestroy");
}
static tabi_status e_record(void *ctx, int32_t index, tabi_event e, tabi_stream s) {
  rocm_ctx *c = ctx;
  tabi_status st = use(c, index, "event_record");
  return st ? st : herr(c, hipEventRecord((hipEvent_t)e, (hipStream_t)s), "hipEventRecord");
}
static tabi_status e_wait(void *ctx, int32_t index, tabi_stream s, tabi_event e) {
  rocm_ctx *c = ctx;
  tabi_status st = use(c, index, "event_wait");
  return st ? st
            : herr(c, hipStreamWaitEvent((hipStream_t)s, (hipEvent_t)e, 0), "hipStreamWaitEvent");
}
static tabi_status e_query(void *ctx, int32_t index, tabi_event e, int32_t *done) {
  rocm_ctx *c = ctx;
  if (!done)
    return TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT, "rocm: event_query: out_done is NULL");
  tabi_status st = use(c, index, "event_query");
  if (st) return st;
  hipError_t r = hipEventQuery((hipEvent_t)e);
  *done = r == hipSuccess;
  return r == hipErrorNotReady ? TABI_OK : herr(c, r, "hipEventQuery");
}
static tabi_status e_sync(void *ctx, int32_t index, tabi_event e) {
  rocm_ctx *c = ctx;
  tabi_status st = use(c, index, "event_synchronize");
  return st ? st : herr(c, hipEventSynchronize((hipEvent_t)e), "hipEventSynchronize");
}
static tabi_status e_elapsed(void *ctx, int32_t index, tabi_event a, tabi_event b, double *ms) {
  rocm_ctx *c = ctx;
  if (!ms)
    return TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT, "rocm: event_elapsed_ms: out_ms is NULL");
  float f = 0;
  tabi_status st = use(c, index, "event_elapsed_ms");
  if (st == TABI_OK)
    st = herr(c, hipEventElapsedTime(&f, (hipEvent_t)a, (hipEvent_t)b), "hipEventElapsedTime");
  *ms = f;
  return st;
}
static tabi_status dev_memset(void *ctx, int32_t index, void *p, int32_t byte, uint64_t n,
                              tabi_stream s) {
  rocm_ctx *c = ctx;
  tabi_status st = use(c, index, "memset");
  return st ? st : herr(c, hipMemsetAsync(p, byte, n, (hipStream_t)s), "hipMemsetAsync");
}

tabi_status rocm_device_register(rocm_ctx *c) {
  tabi_device_api d;
  memset(&d, 0, sizeof d);
  d.struct_size = (uint32_t)sizeof d;
  d.device_type = kDLROCM;
  d.name = "rocm";
  d.ctx = c;
  d.count = dev_count;
  d.properties = dev_properties;
  d.alloc = dev_alloc;
  d.free = dev_free;
  d.copy = dev_copy;
  d.synchronize = dev_sync;
  d.stream_create = s_create;
  d.stream_destroy = s_destroy;
  d.stream_synchronize = s_sync;
  d.event_create = e_create;
  d.event_destroy = e_destroy;
  d.event_record = e_record;
  d.event_wait = e_wait;
  d.event_query = e_query;
  d.event_synchronize = e_sync;
  d.event_elapsed_ms = e_elapsed;
  d.memset = dev_memset;
  return c->h->device_register(c->h->ctx, &d);
}
