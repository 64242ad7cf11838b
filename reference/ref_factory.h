/* reference/ref_factory.h: the factory ops' plans (empty, full, full_like,
 * fill, scalar_tensor; aten and prims): every argument check, with the
 * reference's messages, and the result's geometry, dtype, device and fill
 * value, without building anything. The reference builds the result on the
 * host and hands it to the device (ref_create.c); the GPU plugins build it
 * where it lives (plugins/cuda/tc_create.cu): a factory staged through host
 * memory costs a host allocation, a host fill and a copy of the whole result,
 * and a size no host can hold (prims::full of 9.9 TB) is not refused by the
 * device's allocator but by the host's, or not at all where the host
 * overcommits. Metadata only; no C99 complex types, so C++ may include it. */
#ifndef TABI_REF_FACTORY_H
#define TABI_REF_FACTORY_H

#include <tabi/tabi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(op name, id) for each factory op with a plan: REF_FACTORY_<id> is its
 * index, for ref_factory_plan. */
#define REF_FACTORY_OPS(X)                                         \
  X("aten::empty.memory_format", empty)                            \
  X("aten::empty_strided", empty_strided)                          \
  X("prims::empty", prims_empty)                                   \
  X("prims::empty_strided", prims_empty_strided)                   \
  X("aten::full", full)                                            \
  X("prims::full", prims_full)                                     \
  X("aten::full_like", full_like)                                  \
  X("prims::full_like", prims_full_like)                           \
  X("aten::fill.Scalar", fill)                                     \
  X("prims::fill", prims_fill)                                     \
  X("aten::scalar_tensor", scalar_tensor)                          \
  X("prims::scalar_tensor", prims_scalar_tensor)

#define REF_FACTORY_ENUM(name, id) REF_FACTORY_##id,
enum { REF_FACTORY_OPS(REF_FACTORY_ENUM) REF_FACTORY_COUNT };
#undef REF_FACTORY_ENUM

/* The result a factory call asks for. strides are in elements (a dense
 * layout: contiguous, channels-last, or like a dense self; empty_strided's
 * may be anything). value is NULL for the empty ops, else the call's fill
 * Scalar (a pointer into its args), already checked to fit dtype. */
typedef struct ref_factory {
  int32_t ndim;
  int64_t shape[16], strides[16];
  tabi_dtype dtype;
  DLDevice device;
  const tabi_value *value;
} ref_factory;

/* Checks the arguments of factory op `which` (REF_FACTORY_*) as the reference
 * kernel does, and plans its result in *out. */
tabi_status ref_factory_plan(const tabi_host_api *h, const tabi_call *call, int which, const tabi_value *args,
                             ref_factory *out);

/* The reference's build of a planned result: a host tensor, filled on the
 * host, handed to f->device (a copy when that is not the CPU). */
tabi_status ref_factory_build_host(const tabi_host_api *h, const ref_factory *f, tabi_value *out);

/* The fill value's bytes in dtype d (at most 16), as the reference stores it. */
void ref_factory_value_bytes(tabi_dtype d, const tabi_value *v, unsigned char out[16]);

#ifdef __cplusplus
}
#endif

#endif /* TABI_REF_FACTORY_H */
