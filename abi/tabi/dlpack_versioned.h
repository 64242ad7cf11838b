/* tabi/dlpack_versioned.h: DLPack 1.0's versioned managed tensor.
 *
 * Debian 12 ships DLPack 0.6, which predates DLManagedTensorVersioned. Its layout
 * is part of DLPack's public ABI (1.0), so where the installed dlpack.h lacks it
 * we declare a layout-identical form here. With a DLPack >= 1.0 header the real
 * declarations are used and these are not compiled.
 */
#ifndef TABI_DLPACK_VERSIONED_H
#define TABI_DLPACK_VERSIONED_H

#include <stdint.h>
#include <dlpack/dlpack.h>

#if !defined(DLPACK_MAJOR_VERSION)
#define TABI_DLPACK_DECLARES_VERSIONED 1
#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0)
#define DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << 1)

typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned *self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;
#endif

/* The DLPack version tabi writes into versioned exports. */
#define TABI_DLPACK_EXPORT_MAJOR 1
#define TABI_DLPACK_EXPORT_MINOR 0

#endif /* TABI_DLPACK_VERSIONED_H */
