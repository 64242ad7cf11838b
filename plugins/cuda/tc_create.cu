/* plugins/cuda/tc_create.cu: the factory ops built on the device: empty,
 * empty_strided, full, full_like, fill and scalar_tensor (aten and prims).
 *
 * The reference builds a factory's result in host memory and copies it over
 * (reference/ref_create.c), which the GPU plugins used to share: torch.zeros
 * of 1 GiB on the GPU cost a host allocation, a host fill and a 1 GiB copy,
 * and prims::full of 9.9 TB was not refused by the device's allocator but
 * left to the host's, which grants it where the host overcommits memory and
 * then fills until memory is gone (the cause of the H200 session's one
 * conformance failure, a case that ran past its timeout). Here the checks are
 * the reference's own (ref_factory_plan, with its messages); the result is
 * allocated on its device, and a fill is a cudaMemsetAsync when the value's
 * bytes repeat (zeros, bools, -1) or one kernel writing 16-byte vectors of
 * the pattern, the value passed as a kernel argument: no staging copy,
 * nothing synchronous.
 *
 * A planned result is dense (contiguous, channels-last, or like a dense self),
 * so its elements fill its storage's first numel slots whatever the order,
 * and the fill never looks at strides. empty_strided's layouts may have gaps,
 * but carry no value. A factory whose result is asked for on another device
 * (full_like(cuda tensor, device=cpu)) is built as the reference builds it. */
#include <string.h>

#include "tc.h"
#include "ref_factory.h"

#define FNT 256

/* 16-byte stores of w0 then w1 (they differ only for a 16-byte element);
 * then ntail (< 16) bytes of the same pattern past the last. (8-byte stores
 * filled at 2.8 TB/s on the H200, where cudaMemsetAsync reached 4.6.) */
struct alignas(16) tc_fill16 {
  unsigned long long lo, hi;
};
__global__ void __launch_bounds__(FNT) fill_words_kernel(tc_fill16 *p, int64_t n16, unsigned long long w0,
                                                        unsigned long long w1, int32_t ntail) {
  int64_t stride = (int64_t)gridDim.x * FNT;
  tc_fill16 v;
  v.lo = w0;
  v.hi = w1;
  for (int64_t i = blockIdx.x * (int64_t)FNT + threadIdx.x; i < n16; i += stride) p[i] = v;
  int t = (int)threadIdx.x;
  if (blockIdx.x == 0 && t < ntail)
    ((unsigned char *)(p + n16))[t] = (unsigned char)((t < 8 ? w0 : w1) >> (8 * (t & 7)));
}

/* One element of es bytes (pat) at each of [p, p + n * es): es is 1, 2, 4, 8
 * or 16, and p a fresh storage's start (the allocator's blocks are 64-byte
 * aligned at least), so 16-byte vectors line up with the elements. */
tabi_status tc_fill_dense(tc_ctx *c, const char *op, void *p, int64_t n, int64_t es, const unsigned char *pat) {
  if (n <= 0) return TABI_OK;
  if ((uintptr_t)p % 16 != 0)
    return TC_ERR(c, TABI_ERR_INTERNAL, "%s: fill of a storage at %p, not 16-byte aligned", op, p);
  uint64_t nbytes = (uint64_t)n * (uint64_t)es;
  int same = 1;
  for (int64_t b = 1; b < es; b++) same &= pat[b] == pat[0];
  if (same)
    return tc_cuda_status(c, cudaMemsetAsync(p, pat[0], (size_t)nbytes, 0), op, "cudaMemsetAsync");
  unsigned char word[16];
  for (int b = 0; b < 16; b++) word[b] = pat[b % es];
  unsigned long long w0, w1;
  memcpy(&w0, word, 8);
  memcpy(&w1, word + 8, 8);
  int64_t n16 = (int64_t)(nbytes / 16);
  TC_LAUNCH(tc_blocks(n16 > 0 ? n16 : 1, FNT), FNT, fill_words_kernel)((tc_fill16 *)p, n16, w0, w1,
                                                                       (int32_t)(nbytes % 16));
  return tc_launch_status(c, op);
}

static tabi_status dev_factory(tc_ctx *c, const tabi_call *call, int which, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = c->h;
  ref_factory f;
  tabi_status st = ref_factory_plan(h, call, which, args, &f);
  if (st != TABI_OK) return st;
  /* the device type as an int: a caller's may be no DLDeviceType at all (99),
     and loading that as the enum is undefined in C++ */
  int32_t dtype_code;
  static_assert(sizeof f.device.device_type == sizeof dtype_code, "DLDeviceType is an int");
  memcpy(&dtype_code, &f.device.device_type, sizeof dtype_code);
  if (dtype_code != (int32_t)TC_DL_DEVICE) return ref_factory_build_host(h, &f, &outs[0]);
  tabi_tensor *t = NULL;
  st = h->tensor_empty_strided(h->ctx, f.device, f.dtype, f.ndim, f.shape, f.strides, &t);
  if (st != TABI_OK) return st;
  if (f.value) {
    const char *op = tc_op_name(c, call);
    unsigned char pat[16];
    ref_factory_value_bytes(f.dtype, f.value, pat);
    st = tc_use_device(c, t, op);
    if (st == TABI_OK)
      st = tc_fill_dense(c, op, tabi_tensor_data(t), tabi_tensor_numel(t), tabi_dtype_size(f.dtype), pat);
    if (st != TABI_OK) {
      h->tensor_release(h->ctx, t);
      return st;
    }
  }
  outs[0] = tabi_tensor_value(t);
  return TABI_OK;
}

#define TC_FACTORY_KERNEL(name, id) \
  static tabi_status k_##id(TC_ARGS) { return dev_factory((tc_ctx *)ctx, call, REF_FACTORY_##id, args, outs); }
REF_FACTORY_OPS(TC_FACTORY_KERNEL)
#undef TC_FACTORY_KERNEL

#define TC_FACTORY_ENTRY(name, id) {name, k_##id},
TC_KTABLE tc_kernel tc_create_kernels[] = {REF_FACTORY_OPS(TC_FACTORY_ENTRY){NULL, NULL}};
#undef TC_FACTORY_ENTRY
