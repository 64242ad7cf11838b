/* acme_device.c: the device table. acme memory is host memory (malloc), which
 * keeps the example runnable anywhere; copies are memcpy and complete at once,
 * so streams and events are optional slots left NULL (tabi then copies
 * synchronously). */
#include <stdlib.h>
#include <string.h>

#include "acme.h"

#define ACME_DEVICES 1

static tabi_status acme_count(void *ctx, int32_t *out_count) {
  const tabi_host_api *h = ctx;
  if (!out_count) return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "acme: count: out_count is NULL");
  *out_count = ACME_DEVICES;
  return TABI_OK;
}

/* The caller's struct may be older and shorter than ours: fill a whole one and
 * let tabi_device_props_copy_out copy no more than the caller's struct_size. */
static tabi_status acme_properties(void *ctx, int32_t index, tabi_device_props *out) {
  const tabi_host_api *h = ctx;
  if (!out) return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "acme: properties: out_props is NULL");
  if (index < 0 || index >= ACME_DEVICES)
    return TABI_ERR(h, TABI_ERR_DEVICE, "acme: no device %d", (int)index);
  tabi_device_props p;
  memset(&p, 0, sizeof p);
  p.index = index;
  strcpy(p.name, "ACME Pretend Accelerator");
  p.total_memory = 1ull << 30;
  p.multiprocessors = 1;
  tabi_device_props_copy_out(out, &p); /* tabi/device.h */
  return TABI_OK;
}

static tabi_status acme_alloc(void *ctx, int32_t index, uint64_t nbytes, void **out) {
  const tabi_host_api *h = ctx;
  if (!out) return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "acme: alloc: out_ptr is NULL");
  if (index < 0 || index >= ACME_DEVICES)
    return TABI_ERR(h, TABI_ERR_DEVICE, "acme: no device %d", (int)index);
  if (nbytes > UINT64_MAX - 255)
    return TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "acme: cannot allocate %llu bytes",
                    (unsigned long long)nbytes);
  uint64_t n = (nbytes + 255) & ~(uint64_t)255; /* aligned_alloc wants a multiple */
  *out = aligned_alloc(256, n ? n : 256);
  if (!*out) return TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "acme: out of memory (%llu bytes)",
                             (unsigned long long)nbytes);
  return TABI_OK;
}

static tabi_status acme_free(void *ctx, int32_t index, void *ptr) {
  (void)ctx;
  (void)index;
  free(ptr);
  return TABI_OK;
}

static tabi_status acme_copy(void *ctx, void *dst, DLDevice dst_device, const void *src,
                             DLDevice src_device, uint64_t nbytes, tabi_stream stream) {
  (void)ctx; (void)dst_device; (void)src_device; (void)stream;
  memmove(dst, src, nbytes);
  return TABI_OK;
}

static tabi_status acme_synchronize(void *ctx, int32_t index) {
  (void)ctx;
  (void)index;
  return TABI_OK;
}

static tabi_status acme_memset(void *ctx, int32_t index, void *ptr, int32_t byte, uint64_t nbytes,
                               tabi_stream stream) {
  (void)ctx; (void)index; (void)stream;
  memset(ptr, byte, nbytes);
  return TABI_OK;
}

tabi_status acme_device_register(const tabi_host_api *host) {
  tabi_device_api d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.device_type = ACME_DEVICE_TYPE;
  d.name = "acme";
  d.ctx = (void *)host;
  d.count = acme_count;
  d.properties = acme_properties;
  d.alloc = acme_alloc;
  d.free = acme_free;
  d.copy = acme_copy;
  d.synchronize = acme_synchronize;
  d.memset = acme_memset;
  return host->device_register(host->ctx, &d);
}
