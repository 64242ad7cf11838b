/* tabi/device.h: the device table a device plugin fills.
 *
 * A device plugin registers one tabi_device_api per DLDeviceType with
 * host->device_register. The core wraps alloc/free in a caching allocator (with
 * statistics per device) and routes cross-device copies through `copy`. The host
 * itself provides the table for kDLCPU (host memory), so a CPU plugin registers
 * kernels only.
 *
 * Conventions: `index` is the device ordinal (DLDevice.device_id). A NULL stream
 * means the device's default stream. Every slot returns a tabi_status and reports
 * detail through host->set_error. Optional slots may be NULL; the core then falls
 * back (synchronous copies, no events: device time is then not measured).
 *
 * Threading: every slot may be called from any thread concurrently, for any
 * index; the plugin synchronizes as it needs.
 */
#ifndef TABI_DEVICE_H
#define TABI_DEVICE_H

#include <stdint.h>
#include <dlpack/dlpack.h>

#include "status.h"

typedef struct tabi_stream_s *tabi_stream; /* opaque, owned by the device plugin */
typedef struct tabi_event_s *tabi_event;   /* opaque, owned by the device plugin */

typedef struct tabi_device_props {
  uint32_t struct_size;
  int32_t index;
  char name[128];             /* "NVIDIA H100 80GB HBM3" */
  uint64_t total_memory;      /* bytes */
  int32_t compute_major;      /* vendor's capability numbers; 0 where meaningless */
  int32_t compute_minor;
  int32_t multiprocessors;    /* SMs, CUs, or CPU cores */
  int32_t reserved;
} tabi_device_props;

/* For a plugin's `properties` slot: copies a filled `full` struct into the
 * caller's `out`, no more than out->struct_size bytes (0: the whole struct;
 * a caller built against an older, shorter struct passes less), and sets
 * out->struct_size to the bytes written. Header-only: not part of the ABI. */
static inline void tabi_device_props_copy_out(tabi_device_props *out,
                                              const tabi_device_props *full) {
  uint32_t size = out->struct_size;
  if (size == 0 || size > (uint32_t)sizeof *full) size = (uint32_t)sizeof *full;
  if (size < (uint32_t)sizeof out->struct_size) size = (uint32_t)sizeof out->struct_size;
  for (uint32_t i = 0; i < size; i++)
    ((unsigned char *)out)[i] = ((const unsigned char *)full)[i];
  out->struct_size = size;
}

typedef struct tabi_device_api {
  uint32_t struct_size;
  int32_t device_type;        /* DLDeviceType */
  const char *name;           /* "cuda" */
  void *ctx;                  /* passed back to every slot */

  /* Required. The number of devices present; 0 is not an error (no GPU here). */
  tabi_status (*count)(void *ctx, int32_t *out_count);
  /* Required. The caller sets out_props->struct_size to the size it knows
   * (0: the whole struct); the plugin writes at most that many bytes and sets
   * struct_size to what it wrote. NULL out_props or an absent index is an error. */
  tabi_status (*properties)(void *ctx, int32_t index, tabi_device_props *out_props);
  /* Required. Raw allocation; the core caches on top. nbytes > 0. Alignment at
   * least 256 bytes. */
  tabi_status (*alloc)(void *ctx, int32_t index, uint64_t nbytes, void **out_ptr);
  tabi_status (*free)(void *ctx, int32_t index, void *ptr);
  /* Required. Copies nbytes between host memory (kDLCPU) and this device, or
   * within this device, ordered on `stream`. Returns once the copy is enqueued;
   * a copy into or out of host memory with a NULL stream is complete on return. */
  tabi_status (*copy)(void *ctx, void *dst, DLDevice dst_device, const void *src,
                      DLDevice src_device, uint64_t nbytes, tabi_stream stream);
  /* Required. Waits for all work on the device. */
  tabi_status (*synchronize)(void *ctx, int32_t index);

  /* Optional: streams. */
  tabi_status (*stream_create)(void *ctx, int32_t index, tabi_stream *out_stream);
  tabi_status (*stream_destroy)(void *ctx, int32_t index, tabi_stream stream);
  tabi_status (*stream_synchronize)(void *ctx, int32_t index, tabi_stream stream);

  /* Optional: events (record, wait, query, elapsed time). */
  tabi_status (*event_create)(void *ctx, int32_t index, tabi_event *out_event);
  tabi_status (*event_destroy)(void *ctx, int32_t index, tabi_event event);
  tabi_status (*event_record)(void *ctx, int32_t index, tabi_event event, tabi_stream stream);
  /* Makes `stream` wait for `event` without blocking the host. */
  tabi_status (*event_wait)(void *ctx, int32_t index, tabi_stream stream, tabi_event event);
  /* *out_done = 1 when the work before the event has completed. */
  tabi_status (*event_query)(void *ctx, int32_t index, tabi_event event, int32_t *out_done);
  tabi_status (*event_synchronize)(void *ctx, int32_t index, tabi_event event);
  tabi_status (*event_elapsed_ms)(void *ctx, int32_t index, tabi_event start, tabi_event end,
                                  double *out_ms);
  /* Optional: sets nbytes of device memory to `byte` on `stream`. */
  tabi_status (*memset)(void *ctx, int32_t index, void *ptr, int32_t byte, uint64_t nbytes,
                        tabi_stream stream);
} tabi_device_api;

#endif /* TABI_DEVICE_H */
