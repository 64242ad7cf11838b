/* tabi/host.h: the host function table handed to a plugin at init.
 *
 * Everything a plugin needs from the core comes through this table: a plugin
 * never includes a dispatcher header and never links against libtabi, which is
 * what lets a plugin binary survive host upgrades.
 *
 * Every slot takes `ctx` (the table's own ctx field) first. The table and ctx stay
 * valid until the plugin's destroy returns; a plugin may keep both.
 *
 * Version rules: the host fills struct_size and abi_major/abi_minor. A plugin
 * built against a newer minor must check TABI_FIELD_PRESENT(tabi_host_api, host,
 * slot) before using a slot its header has and the host may not.
 *
 * Threading: every slot is thread-safe unless its comment says otherwise.
 * Registration slots (op_register ... extension_register) may be called only
 * during tabi_plugin_init; registrations are staged and take effect only if init
 * returns TABI_OK and the plugin is accepted, so a failed load leaves nothing.
 */
#ifndef TABI_HOST_H
#define TABI_HOST_H

#include <stdarg.h>
#include <stdint.h>
#include <dlpack/dlpack.h>

#include "device.h"
#include "dtype.h"
#include "op.h"
#include "status.h"
#include "tensor.h"
#include "value.h"

/* Caching-allocator statistics for one device, in bytes unless named a count. */
typedef struct tabi_memory_stats {
  uint32_t struct_size;
  uint32_t reserved0;
  uint64_t allocated;       /* in use by tensors now */
  uint64_t reserved;        /* obtained from the device (in use + cached) */
  uint64_t peak_allocated;
  uint64_t num_allocs;      /* allocations served (cache hits included) */
  uint64_t num_frees;
  uint64_t num_device_allocs; /* raw allocations made on the device */
} tabi_memory_stats;

/* Called by the allocator on every tensor-storage allocation (nbytes > 0) and
 * free (nbytes < 0), on the thread that did it. */
typedef void (*tabi_memory_hook_fn)(void *user, DLDevice device, int64_t nbytes);

/* Selectors for tls_get/tls_set. */
#define TABI_TLS_ENABLED  0 /* layer keys added to every call on this thread */
#define TABI_TLS_EXCLUDED 1 /* layer keys removed from every call on this thread */

/* Destructor for a tensor slot's value, run when the tensor dies. */
typedef void (*tabi_slot_dtor_fn)(void *value);

typedef struct tabi_host_api {
  uint32_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor;
  uint32_t reserved;
  void *ctx;

  /* --- errors ----------------------------------------------------------- */
  /* Sets this thread's error message (printf format) and returns `status`, so a
   * kernel writes `return host->set_error(host->ctx, TABI_ERR_SHAPE, "...")`. */
  tabi_status (*set_error)(void *ctx, tabi_status status, const char *fmt, ...);
  /* This thread's last error message; "" when none. Valid until the thread's
   * next error. */
  const char *(*last_error)(void *ctx);

  /* --- tensors ---------------------------------------------------------- */
  /* A new contiguous tensor on `device`. Storage comes from the caching allocator
   * and is uninitialized. Errors: INVALID_ARGUMENT for a negative or overflowing
   * size, TYPE for an invalid dtype, DEVICE for an absent device, OUT_OF_MEMORY. */
  tabi_status (*tensor_empty)(void *ctx, DLDevice device, tabi_dtype dtype, int32_t ndim,
                              const int64_t *shape, tabi_tensor **out_tensor);
  /* As tensor_empty with explicit strides (in elements, each >= 0); the storage is
   * just large enough for the furthest element. */
  tabi_status (*tensor_empty_strided)(void *ctx, DLDevice device, tabi_dtype dtype,
                                      int32_t ndim, const int64_t *shape,
                                      const int64_t *strides, tabi_tensor **out_tensor);
  /* A view of `base`'s storage with new shape, strides (>= 0) and byte offset
   * (from the storage base). Errors: INDEX when the view reaches outside the
   * storage; INVALID_ARGUMENT when its first element would not be aligned to
   * the element's size (a device faults there; a view of no elements may
   * start anywhere). The view has base's dtype, device, keys and read-only
   * flag. */
  tabi_status (*tensor_view)(void *ctx, tabi_tensor *base, int32_t ndim, const int64_t *shape,
                             const int64_t *strides, int64_t byte_offset,
                             tabi_tensor **out_tensor);
  void (*tensor_retain)(void *ctx, tabi_tensor *tensor);
  void (*tensor_release)(void *ctx, tabi_tensor *tensor); /* NULL is a no-op */
  /* Storage facts, for alias checks and bounds: its size in bytes, and an id
   * equal for two tensors exactly when they share storage. */
  uint64_t (*tensor_storage_nbytes)(void *ctx, const tabi_tensor *tensor);
  uint64_t (*tensor_storage_id)(void *ctx, const tabi_tensor *tensor);
  /* Replaces the tensor's shape and strides in place (contiguous), reallocating
   * its storage when it must grow: the one metadata mutation (resize_). Not
   * thread-safe with other users of the same tensor. */
  tabi_status (*tensor_resize)(void *ctx, tabi_tensor *tensor, int32_t ndim,
                               const int64_t *shape);
  /* Adds or removes feature-layer keys on a tensor (autograd marks tensors that
   * require grad). Backend bits cannot be changed. */
  tabi_status (*tensor_set_keys)(void *ctx, tabi_tensor *tensor, uint64_t keys);
  /* Per-layer slots on every tensor: a feature plugin declares one at init and
   * keeps what it likes there. set replaces (running the old value's dtor). */
  tabi_status (*slot_declare)(void *ctx, int32_t *out_slot);
  void *(*slot_get)(void *ctx, const tabi_tensor *tensor, int32_t slot);
  tabi_status (*slot_set)(void *ctx, tabi_tensor *tensor, int32_t slot, void *value,
                          tabi_slot_dtor_fn dtor);
  /* Copies src's elements into dst (same shape, any strides, any devices, same
   * dtype), through the device tables. Synchronous. */
  tabi_status (*tensor_copy)(void *ctx, tabi_tensor *dst, const tabi_tensor *src);

  /* --- values ----------------------------------------------------------- */
  /* An array of n tensor pointers for a TENSOR_LIST output (zeroed). */
  tabi_status (*list_alloc)(void *ctx, int64_t n, tabi_tensor ***out_array);
  /* Releases what an output value owns (tensor references, list arrays) and sets
   * it to NONE. Safe on any value, including NONE. */
  void (*value_release)(void *ctx, tabi_value *value);

  /* --- ops and dispatch --------------------------------------------------- */
  /* Handle of "ns::name.overload" ("aten::add.Tensor"; "aten::abs" for the
   * default overload). NOT_FOUND when absent. */
  tabi_status (*op_find)(void *ctx, const char *name, tabi_op *out_op);
  /* The parsed schema; valid for the runtime's lifetime. NULL for a bad handle. */
  const tabi_op_info *(*op_info)(void *ctx, tabi_op op);
  /* Calls an op through the full dispatcher, as a framework would. nargs may be
   * fewer than the schema's: trailing defaults are filled. `outs` has nouts slots;
   * the caller releases them with value_release. */
  tabi_status (*call)(void *ctx, tabi_op op, tabi_value *args, int32_t nargs, tabi_value *outs,
                      int32_t nouts);
  /* From inside a kernel: runs the next layer below the running one. */
  tabi_status (*redispatch)(void *ctx, const tabi_call *call, tabi_value *args,
                            tabi_value *outs);

  /* --- registration (during init only) --------------------------------- */
  /* Registers a new op from its schema (vendor namespaces). ALREADY_EXISTS when
   * the name is taken with a different schema; the same schema returns its handle. */
  tabi_status (*op_register)(void *ctx, const char *schema, tabi_op *out_op);
  /* Declares a feature layer with priority 1..48 (see op.h); returns its key. */
  tabi_status (*layer_declare)(void *ctx, const char *name, int32_t priority,
                               uint64_t *out_key);
  /* A kernel for one op at one layer: TABI_LAYER_BACKEND (the plugin's device
   * type), TABI_LAYER_COMPOSITE, or a key from layer_declare. fn == NULL
   * registers a fallthrough (the layer is skipped for this op). ALREADY_EXISTS
   * for a second kernel at the same op and layer. */
  tabi_status (*kernel_register)(void *ctx, tabi_op op, int64_t layer, tabi_kernel_fn fn,
                                 void *kernel_ctx);
  /* A boxed kernel for every op of a feature layer without its own kernel. */
  tabi_status (*fallback_register)(void *ctx, int64_t layer, tabi_kernel_fn fn,
                                   void *kernel_ctx);
  /* The device table for the plugin's device type (copied; device->ctx kept). */
  tabi_status (*device_register)(void *ctx, const tabi_device_api *device);
  /* A named, versioned extension ("tabi.autograd", version 1): a struct of
   * function pointers that stays valid while the plugin is loaded. */
  tabi_status (*extension_register)(void *ctx, const char *name, uint32_t version,
                                    const void *table);

  /* --- runtime state ------------------------------------------------------ */
  /* An extension from any loaded plugin, with version >= min_version. */
  tabi_status (*extension_get)(void *ctx, const char *name, uint32_t min_version,
                               const void **out_table);
  /* This thread's enabled/excluded layer keys; set returns the previous value so
   * callers restore it (set/restore pairs). */
  uint64_t (*tls_get)(void *ctx, int32_t which);
  uint64_t (*tls_set)(void *ctx, int32_t which, uint64_t keys);
  /* 1 when deterministic mode is on: a kernel without a deterministic algorithm
   * returns TABI_ERR_NONDETERMINISTIC naming itself. */
  int32_t (*deterministic)(void *ctx);
  /* Reserves `n` Philox counters from the generator of `device`: the kernel draws
   * with tabi_philox4x32 (philox.h) at key `*out_seed` and counters
   * *out_offset .. *out_offset + n - 1. Same seed, same numbers, on every device. */
  tabi_status (*rng_reserve)(void *ctx, DLDevice device, uint64_t n, uint64_t *out_seed,
                             uint64_t *out_offset);
  /* The device table for a device type (host memory for kDLCPU). NOT_FOUND when
   * no plugin provides it. */
  tabi_status (*device_get)(void *ctx, int32_t device_type, const tabi_device_api **out_device);
  tabi_status (*memory_stats)(void *ctx, DLDevice device, tabi_memory_stats *out_stats);
  /* Adds a memory hook (profilers); returns an id for memory_hook_remove. */
  tabi_status (*memory_hook_add)(void *ctx, tabi_memory_hook_fn fn, void *user, int32_t *out_id);
  tabi_status (*memory_hook_remove)(void *ctx, int32_t id);
} tabi_host_api;

/* Convenience for kernels: `TABI_ERR(host, TABI_ERR_SHAPE, "aten::mm: ...")`. */
#define TABI_ERR(host, status, ...) ((host)->set_error((host)->ctx, (status), __VA_ARGS__))

#endif /* TABI_HOST_H */
