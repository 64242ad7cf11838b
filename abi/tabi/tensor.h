/* tabi/tensor.h: the tensor object as kernels see it.
 *
 * A tensor is a refcounted object whose first member is a DLTensor, so a kernel
 * reads data, device, ndim, dtype, shape, strides and byte_offset directly, with
 * no call. Only the host creates tensors (host->tensor_empty, tensor_view, ...);
 * the struct a plugin sees is a prefix of a larger host object, so a plugin never
 * allocates, copies or frees a tabi_tensor itself.
 *
 * Invariants the host guarantees for every tensor it hands out:
 *  - dl.strides is never NULL; strides are in elements, as in DLPack.
 *  - dl.data is the base of the tensor's storage and dl.byte_offset the offset of
 *    element [0,...,0] in bytes; use tabi_tensor_data() for the element pointer.
 *  - dl.shape and dl.strides stay valid and unchanged for the tensor's lifetime,
 *    except through ops the schema marks as mutating the tensor's metadata
 *    (resize_), which the host performs.
 *  - Views share storage; storage lives while any tensor on it does.
 *
 * Ownership: a tabi_tensor* handed to a kernel as an argument is borrowed for the
 * call. A tensor a kernel returns in an output slot is a new reference the caller
 * owns and releases. retain/release are thread-safe (atomic counts).
 */
#ifndef TABI_TENSOR_H
#define TABI_TENSOR_H

#include <stdint.h>
#include <dlpack/dlpack.h>

#include "dtype.h"

/* Tensor flags (tabi_tensor.flags). */
#define TABI_TENSOR_READ_ONLY 0x1u  /* imported read-only through DLPack: never written */

typedef struct tabi_tensor {
  DLTensor dl;          /* first: a tabi_tensor* is a DLTensor* */
  uint64_t keys;        /* dispatch keys this tensor contributes (its backend's bit,
                           plus feature bits set through host->tensor_set_keys) */
  uint32_t struct_size; /* of the public part, for growth */
  uint32_t flags;       /* TABI_TENSOR_* */
} tabi_tensor;

/* Pointer to element [0,...,0]. */
static inline void *tabi_tensor_data(const tabi_tensor *t) {
  return (char *)t->dl.data + t->dl.byte_offset;
}

static inline tabi_dtype tabi_tensor_dtype(const tabi_tensor *t) {
  return tabi_dtype_from_dl(t->dl.dtype);
}

/* Number of elements (1 for a 0-d tensor, 0 if any dim is 0). Shapes the host
 * creates never overflow int64 in numel or bytes. */
static inline int64_t tabi_tensor_numel(const tabi_tensor *t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t->dl.ndim; i++) n *= t->dl.shape[i];
  return n;
}

/* 1 when the tensor is contiguous in row-major (C) order. Dims of size 1 may
 * have any stride, as in ATen. */
static inline int tabi_tensor_is_contiguous(const tabi_tensor *t) {
  int64_t expected = 1;
  for (int32_t i = t->dl.ndim - 1; i >= 0; i--) {
    if (t->dl.shape[i] == 1) continue;
    if (t->dl.strides[i] != expected) return 0;
    expected *= t->dl.shape[i];
  }
  return 1;
}

#endif /* TABI_TENSOR_H */
