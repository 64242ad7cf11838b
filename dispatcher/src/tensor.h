/* tensor.h: the host's tensor object and its storage.
 *
 * The public tabi_tensor is the prefix of tensor_impl. Storage is refcounted and
 * shared by views; it is freed through the caching allocator of its device, or
 * through the DLPack deleter for imported memory. Each storage holds a reference
 * on the runtime, so a tensor outliving tabi_runtime_destroy stays safe to
 * release (see runtime.h).
 */
#ifndef TABI_DISPATCHER_TENSOR_H
#define TABI_DISPATCHER_TENSOR_H

#include "allocator.h"
#include "internal.h"

typedef void (*tabi_ext_release_fn)(void *ext);

typedef struct tabi_storage {
  _Atomic int64_t refs;
  tabi_runtime *rt;
  char *data;
  uint64_t nbytes;
  DLDevice device;
  alloc_block *block;              /* allocator-owned memory, or NULL */
  tabi_ext_release_fn ext_release; /* imported memory: called once at the end */
  void *ext;
  uint64_t id;
} tabi_storage;

typedef struct tensor_impl {
  tabi_tensor pub;
  _Atomic int32_t refs;
  int32_t cap_ndim;
  tabi_storage *storage;
  int64_t *heap;                   /* shape+strides when ndim > TABI_INLINE_NDIM */
  void *slot_val[TABI_MAX_SLOTS];
  tabi_slot_dtor_fn slot_dtor[TABI_MAX_SLOTS];
  int64_t inl[2 * TABI_INLINE_NDIM];
} tensor_impl;

static inline tensor_impl *tabi_impl(const tabi_tensor *t) { return (tensor_impl *)(void *)t; }

/* Checks shape (and strides, NULL = contiguous) and computes the bytes of storage
 * the tensor spans from element 0: 0 for an empty tensor. Errors name `who` and
 * the dim. */
TABI_INTERNAL tabi_status tabi_shape_extent(const char *who, int32_t ndim, const int64_t *shape,
                                            const int64_t *strides, int64_t elsize,
                                            uint64_t *out_bytes);
/* Checks that the first element, at data + byte_offset, sits at a multiple of
 * the element's size (1 to 16 bytes). A GPU faults on a misaligned load or
 * store, and CUDA's fault ends the context: every later call of the process
 * on that device fails. A C kernel's typed access there is undefined. Not
 * called for a view of no elements, which reads nothing. */
TABI_INTERNAL tabi_status tabi_check_aligned(const char *who, const void *data, uint64_t byte_offset,
                                             int64_t elsize);

TABI_INTERNAL tabi_status tabi_storage_alloc(tabi_runtime *rt, DLDevice device, uint64_t nbytes,
                                             const char *who, tabi_storage **out);
TABI_INTERNAL tabi_status tabi_storage_external(tabi_runtime *rt, DLDevice device, void *data,
                                                uint64_t nbytes, tabi_ext_release_fn release,
                                                void *ext, tabi_storage **out);
TABI_INTERNAL void tabi_storage_release(tabi_storage *s);

/* A tensor on `s` (takes a new storage reference). strides NULL = contiguous. */
TABI_INTERNAL tabi_status tabi_tensor_make(tabi_storage *s, DLDataType dtype, int32_t ndim,
                                           const int64_t *shape, const int64_t *strides,
                                           uint64_t byte_offset, uint32_t flags,
                                           tabi_tensor **out);

TABI_INTERNAL tabi_status tabi_tensor_empty_impl(tabi_runtime *rt, DLDevice device,
                                                 tabi_dtype dtype, int32_t ndim,
                                                 const int64_t *shape, const int64_t *strides,
                                                 const char *who, tabi_tensor **out);
TABI_INTERNAL tabi_status tabi_tensor_view_impl(tabi_tensor *base, int32_t ndim,
                                                const int64_t *shape, const int64_t *strides,
                                                int64_t byte_offset, const char *who,
                                                tabi_tensor **out);
TABI_INTERNAL tabi_status tabi_tensor_resize_impl(tabi_tensor *t, int32_t ndim,
                                                  const int64_t *shape);
TABI_INTERNAL tabi_status tabi_tensor_set_keys_impl(tabi_tensor *t, uint64_t keys);
TABI_INTERNAL void *tabi_slot_get_impl(const tabi_tensor *t, int32_t slot);
TABI_INTERNAL tabi_status tabi_slot_set_impl(tabi_tensor *t, int32_t slot, void *value,
                                             tabi_slot_dtor_fn dtor);

/* copy.c: element copies between any devices, through the device tables. */
TABI_INTERNAL tabi_status tabi_tensor_copy_impl(tabi_runtime *rt, tabi_tensor *dst,
                                                const tabi_tensor *src);
TABI_INTERNAL tabi_status tabi_gather_to_host(tabi_runtime *rt, const tabi_tensor *src, void *dst);
TABI_INTERNAL tabi_status tabi_scatter_from_host(tabi_runtime *rt, tabi_tensor *dst,
                                                 const void *src);

#endif
