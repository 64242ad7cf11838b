/* tabi/runtime.h: libtabi, the framework author's API.
 *
 * A framework creates a runtime, loads plugins (by path, or every plugin found on
 * TABI_PLUGIN_PATH and in the installed plugin folder), looks ops up by name once
 * and calls them by handle. Tensors move in and out zero-copy through DLPack.
 *
 *   tabi_runtime *rt;
 *   tabi_runtime_create(NULL, &rt);
 *   tabi_runtime_load_plugin(rt, "libtabi_cpu.so", NULL);
 *   tabi_op add; tabi_op_find(rt, "aten::add.Tensor", &add);
 *   tabi_value args[2] = {tabi_tensor_value(a), tabi_tensor_value(b)}, out;
 *   if (tabi_call(rt, add, args, 2, &out, 1) != TABI_OK) puts(tabi_last_error());
 *
 * Errors: every fallible function returns a tabi_status; tabi_last_error() gives
 * this thread's message, naming the op, the argument, expected vs got.
 *
 * Threading: a runtime may be used from many threads at once for calls, tensor
 * functions and lookups. Loading plugins and destroying the runtime must not
 * overlap other use of the same runtime. Thread-local modes (layer enable and
 * exclude, grad mode, autocast) are per thread and per runtime.
 */
#ifndef TABI_RUNTIME_H
#define TABI_RUNTIME_H

#include <stdint.h>

#include <tabi/tabi.h>
#include <tabi/dlpack_versioned.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define TABI_API __declspec(dllimport)
#else
#define TABI_API __attribute__((visibility("default")))
#endif

typedef struct tabi_runtime tabi_runtime;

/* --- errors --------------------------------------------------------------- */

/* This thread's last error message; "" when none. Never NULL. */
TABI_API const char *tabi_last_error(void);
/* "TABI_ERR_SHAPE" etc. Never NULL. */
TABI_API const char *tabi_status_name(tabi_status status);
/* Clears this thread's error message. */
TABI_API void tabi_clear_error(void);

/* --- runtime -------------------------------------------------------------- */

/* tabi_runtime_options.flags */
#define TABI_RUNTIME_GUARD_ALLOCATIONS 0x1u /* red zones around every allocation,
                                               checked on free (conformance) */
#define TABI_RUNTIME_NO_CACHE          0x2u /* no caching: every free returns memory
                                               (sanitizers see every use after free) */

typedef struct tabi_runtime_options {
  uint32_t struct_size;
  uint32_t flags;        /* TABI_RUNTIME_* */
} tabi_runtime_options;

/* A runtime with the core's host device (kDLCPU) and every op of the core ATen
 * and prims sets registered (with no kernels until plugins provide them).
 * options may be NULL. */
TABI_API tabi_status tabi_runtime_create(const tabi_runtime_options *options,
                                         tabi_runtime **out_runtime);
/* Unloads every plugin (destroy in reverse load order) and frees the runtime.
 * Tensors still alive keep their storage valid only for kDLCPU memory. NULL ok. */
TABI_API void tabi_runtime_destroy(tabi_runtime *runtime);

/* Loads one plugin. `path_or_name` is a path (contains '/') or a plugin name
 * ("cpu") looked for as libtabi_<name>.so on TABI_PLUGIN_PATH then the install
 * folder. On error nothing of the plugin stays registered and the runtime is as
 * it was; the message names the file and the reason. out_index may be NULL. */
TABI_API tabi_status tabi_runtime_load_plugin(tabi_runtime *runtime, const char *path_or_name,
                                              int32_t *out_index);
/* Loads every libtabi_*.so on TABI_PLUGIN_PATH (':'-separated) and then in the
 * installed plugin folder, skipping REFERENCE plugins and names already loaded.
 * A plugin that fails to load is skipped; its error is reported through
 * `on_error` (may be NULL). out_loaded may be NULL. */
typedef void (*tabi_load_error_fn)(void *user, const char *path, tabi_status status,
                                   const char *message);
TABI_API tabi_status tabi_runtime_load_discovered(tabi_runtime *runtime, tabi_load_error_fn on_error,
                                                  void *user, int32_t *out_loaded);

typedef struct tabi_plugin_info {
  uint32_t struct_size;
  int32_t kind;             /* TABI_PLUGIN_KIND_* */
  const char *name;
  const char *version;
  const char *description;
  const char *path;
  uint32_t abi_major;       /* the plugin's */
  uint32_t abi_minor;
  uint32_t abi_minor_in_effect; /* negotiated: the lower minor */
  int32_t device_type;      /* 0 when not a device plugin */
  int32_t layer_priority;   /* of the layer it declared, 0 when none */
  int32_t kernels;          /* kernels registered (all layers) */
  int32_t ops_registered;   /* new ops it registered (op_register) */
  int32_t reserved;
} tabi_plugin_info;

TABI_API int32_t tabi_runtime_plugin_count(const tabi_runtime *runtime);
/* Strings in *out_info live as long as the runtime. */
TABI_API tabi_status tabi_runtime_plugin_info(const tabi_runtime *runtime, int32_t index,
                                              tabi_plugin_info *out_info);

/* Deterministic mode: one flag per runtime. Returns the previous value. */
TABI_API int32_t tabi_runtime_set_deterministic(tabi_runtime *runtime, int32_t on);
/* Seeds the Philox generator of `device` (offset reset to 0). */
TABI_API tabi_status tabi_runtime_manual_seed(tabi_runtime *runtime, DLDevice device, uint64_t seed);

/* This thread's enabled / excluded feature-layer keys (TABI_TLS_*). set returns
 * the previous value: pair every set with a restore. */
TABI_API uint64_t tabi_runtime_tls_get(tabi_runtime *runtime, int32_t which);
TABI_API uint64_t tabi_runtime_tls_set(tabi_runtime *runtime, int32_t which, uint64_t keys);

/* An extension ("tabi.autograd") registered by any loaded plugin. */
TABI_API tabi_status tabi_runtime_extension(tabi_runtime *runtime, const char *name,
                                            uint32_t min_version, const void **out_table);

/* The host table the runtime hands plugins, for code that wants to share helpers
 * between plugin and framework sides (tests, the conformance suite). */
TABI_API const tabi_host_api *tabi_runtime_host(tabi_runtime *runtime);

/* --- devices and memory ----------------------------------------------------- */

TABI_API tabi_status tabi_runtime_device_count(tabi_runtime *runtime, int32_t device_type,
                                               int32_t *out_count);
TABI_API tabi_status tabi_runtime_memory_stats(tabi_runtime *runtime, DLDevice device,
                                               tabi_memory_stats *out_stats);
/* Returns cached, unused blocks of `device` to the device. */
TABI_API tabi_status tabi_runtime_empty_cache(tabi_runtime *runtime, DLDevice device);

/* --- ops -------------------------------------------------------------------- */

TABI_API tabi_status tabi_op_find(tabi_runtime *runtime, const char *name, tabi_op *out_op);
TABI_API const tabi_op_info *tabi_op_get_info(tabi_runtime *runtime, tabi_op op);
TABI_API int32_t tabi_op_count(const tabi_runtime *runtime);

/* How a backend serves an op (tabi_op_backend_status). */
#define TABI_IMPL_MISSING    0
#define TABI_IMPL_NATIVE     1
#define TABI_IMPL_DECOMPOSED 2
/* For the backend of `device_type`: native kernel, composite fill-in, or none. */
TABI_API int32_t tabi_op_backend_status(tabi_runtime *runtime, tabi_op op, int32_t device_type);

/* Calls `op`. args: nargs values by position (fewer than the schema's: trailing
 * defaults filled; TABI_TAG_DEFAULT anywhere: that default). outs: nouts slots,
 * at least the schema's number of returns; the caller releases them with
 * tabi_value_release. Errors name the op and the argument. */
TABI_API tabi_status tabi_call_op(tabi_runtime *runtime, tabi_op op, tabi_value *args,
                                  int32_t nargs, tabi_value *outs, int32_t nouts);
/* `tabi_call` is also the call-record type of abi/tabi/op.h, and C has one name
 * space for both, so the function is exported as tabi_call_op and tabi_call(...)
 * is a function-like macro: `tabi_call(rt, op, ...)` calls it, while
 * `const tabi_call *call` (not followed by '(') still names the type. */
#define tabi_call(...) tabi_call_op(__VA_ARGS__)
/* Releases what a value owns and sets it to NONE. */
TABI_API void tabi_value_release(tabi_value *value);

/* --- tensors ---------------------------------------------------------------- */

TABI_API tabi_status tabi_tensor_empty(tabi_runtime *runtime, DLDevice device, tabi_dtype dtype,
                                       int32_t ndim, const int64_t *shape, tabi_tensor **out_tensor);
TABI_API tabi_status tabi_tensor_empty_strided(tabi_runtime *runtime, DLDevice device,
                                               tabi_dtype dtype, int32_t ndim, const int64_t *shape,
                                               const int64_t *strides, tabi_tensor **out_tensor);
/* A new contiguous tensor on `device` holding a copy of `nbytes` of host data. */
TABI_API tabi_status tabi_tensor_from_host(tabi_runtime *runtime, DLDevice device, tabi_dtype dtype,
                                           int32_t ndim, const int64_t *shape, const void *data,
                                           uint64_t nbytes, tabi_tensor **out_tensor);
/* Copies the tensor's elements, in row-major order, to host memory `dst` of
 * `nbytes` (must be numel * element size). */
TABI_API tabi_status tabi_tensor_to_host(tabi_runtime *runtime, const tabi_tensor *tensor,
                                         void *dst, uint64_t nbytes);
/* A view of base's storage (see tabi_host_api.tensor_view): INDEX when it
 * reaches outside the storage, INVALID_ARGUMENT when its first element is not
 * aligned to the element's size. */
TABI_API tabi_status tabi_tensor_view(tabi_runtime *runtime, tabi_tensor *base, int32_t ndim,
                                      const int64_t *shape, const int64_t *strides,
                                      int64_t byte_offset, tabi_tensor **out_tensor);
TABI_API void tabi_tensor_retain(tabi_tensor *tensor);
TABI_API void tabi_tensor_release(tabi_tensor *tensor); /* NULL is a no-op */
TABI_API uint64_t tabi_tensor_storage_id(const tabi_tensor *tensor);
TABI_API uint64_t tabi_tensor_storage_nbytes(const tabi_tensor *tensor);
/* With TABI_RUNTIME_GUARD_ALLOCATIONS: checks the red zones before and after the
 * tensor's storage. TABI_ERR_PLUGIN with a message saying how many bytes before
 * or after the storage were overwritten; TABI_OK when intact (or when guards are
 * off). Conformance calls it on every output a kernel returns. */
TABI_API tabi_status tabi_tensor_check_guards(tabi_runtime *runtime, const tabi_tensor *tensor);

/* DLPack import, zero-copy. The tensor takes ownership of `managed` (its deleter
 * runs when the last view dies); on error ownership stays with the caller.
 * Errors: TYPE for an unsupported dtype (lanes != 1, unknown code/bits), DEVICE
 * for a device type no plugin provides, INVALID_ARGUMENT for NULL, ndim < 0,
 * negative sizes or strides, or a first element (data + byte_offset) not
 * aligned to the element's size: DLPack lets `data` be anywhere, but every
 * producer keeps elements aligned, and a GPU kernel faults on one that is
 * not. NULL strides mean row-major contiguous. */
TABI_API tabi_status tabi_tensor_from_dlpack(tabi_runtime *runtime, DLManagedTensor *managed,
                                             tabi_tensor **out_tensor);
/* As above for the versioned form; DLPACK_FLAG_BITMASK_READ_ONLY makes the tensor
 * read-only (kernels refuse to write it: mutable args and copy_ destinations).
 * A major version other than 1 is refused. */
TABI_API tabi_status tabi_tensor_from_dlpack_versioned(tabi_runtime *runtime,
                                                       DLManagedTensorVersioned *managed,
                                                       tabi_tensor **out_tensor);
/* DLPack export, zero-copy: the managed tensor holds a reference to `tensor`
 * until its deleter runs. */
TABI_API tabi_status tabi_tensor_to_dlpack(tabi_tensor *tensor, DLManagedTensor **out_managed);
TABI_API tabi_status tabi_tensor_to_dlpack_versioned(tabi_tensor *tensor,
                                                     DLManagedTensorVersioned **out_managed);

/* --- additions (appended after ABI 1.0; existing declarations unchanged) ------ */

/* Index of the loaded plugin called `name` ("cpu"). NOT_FOUND when none. */
TABI_API tabi_status tabi_runtime_plugin_find(const tabi_runtime *runtime, const char *name,
                                              int32_t *out_index);
/* The deterministic flag (see tabi_runtime_set_deterministic). */
TABI_API int32_t tabi_runtime_deterministic(const tabi_runtime *runtime);
/* With TABI_RUNTIME_GUARD_ALLOCATIONS: how many storages were found with a
 * damaged red zone when they were freed (checked on every free). */
TABI_API uint64_t tabi_runtime_guard_violations(const tabi_runtime *runtime);

#ifdef __cplusplus
}
#endif

#endif /* TABI_RUNTIME_H */
