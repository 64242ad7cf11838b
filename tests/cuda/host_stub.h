/* tests/cuda/host_stub.h: what the host-emulation tests (test_cuda_*_host.cpp)
 * share: the reference runtime and calls into it, a random input stream, CPU
 * tensors in three layouts, and a stand-in host table. The argument checks
 * the GPU kernels share with the reference (reference/ref_*_check.c) take the
 * host table and the call as kernels do; these tests run them without a
 * runtime, for the geometry they give: set_error keeps the message in
 * fake_msg, op_info names the op the check is for (fake_call(name) sets it),
 * nothing else is needed. C++ (the tests are C++; the checks are C with C
 * linkage). */
#ifndef TABI_TESTS_CUDA_HOST_STUB_H
#define TABI_TESTS_CUDA_HOST_STUB_H

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <tabi/host.h>
#include <tabi/runtime.h>

#include "check.h"

/* The reference runtime the tests compare with, and a xorshift stream of
 * inputs (each test seeds it in main, so its cases are its own). */
static tabi_runtime *ref;
static const DLDevice CPU = {kDLCPU, 0};
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double urand() {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}
static int64_t irand(int64_t lo, int64_t hi) { return lo + (int64_t)(urand() * (double)(hi - lo + 1)); }

/* Every 23rd-ish element a special (NaN, +-inf, -0.0), else uniform in [-2, 2). */
static inline double special_or_random(int i) {
  switch (i % 23) {
    case 3: return NAN;
    case 7: return INFINITY;
    case 11: return -INFINITY;
    case 17: return -0.0;
    default: return urand() * 4 - 2;
  }
}

static char fake_msg[1024];
static tabi_op_info fake_info;
static inline tabi_status fake_set_error(void *, tabi_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(fake_msg, sizeof fake_msg, fmt, ap);
  va_end(ap);
  return st;
}
static inline const tabi_op_info *fake_op_info(void *, tabi_op) { return &fake_info; }
static inline tabi_host_api fake_host() {
  tabi_host_api h;
  memset(&h, 0, sizeof h);
  h.struct_size = sizeof h;
  h.set_error = fake_set_error;
  h.op_info = fake_op_info;
  return h;
}
static const tabi_host_api FAKE = fake_host();
/* A call of `name`, with fake_msg cleared. */
static inline tabi_call fake_call(const char *name) {
  fake_info.name = name;
  fake_msg[0] = 0;
  tabi_call c;
  memset(&c, 0, sizeof c);
  c.struct_size = sizeof c;
  return c;
}

static inline int64_t numel_of(const tabi_tensor *t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t->dl.ndim; i++) n *= t->dl.shape[i];
  return n;
}

#define HOST_MAX_DIMS 16

/* name on args in the reference runtime, one output; a failure is a test failure */
static inline tabi_value call_ref(const char *name, tabi_value *args, int nargs) {
  tabi_op op;
  tabi_value out = tabi_none();
  CHECK_OK(tabi_op_find(ref, name, &op));
  tabi_status st = tabi_call(ref, op, args, nargs, &out, 1);
  CHECK_MSG(st == TABI_OK, "%s: %s", name, tabi_last_error());
  return out;
}

/* A CPU tensor of `shape` and dtype dt (elements of esz bytes) whose logical
 * elements, in row-major order, are those of `bytes`, laid out per mode: 0
 * contiguous, 1 the last two dims transposed (a permuted view), 2 every other
 * element of the last dim (a step-2 slice). *base: what to release besides the
 * result (NULL for mode 0). */
static inline tabi_tensor *host_laid_out(tabi_dtype dt, int esz, int32_t nd, const int64_t *shape, int mode,
                                         const std::vector<char> &bytes, tabi_tensor **base) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  if (mode == 1 && nd < 2) mode = 0;
  if (mode == 2 && nd < 1) mode = 0;
  int64_t bshape[HOST_MAX_DIMS];
  memcpy(bshape, shape, sizeof(int64_t) * (size_t)nd);
  if (mode == 1) {
    bshape[nd - 1] = shape[nd - 2];
    bshape[nd - 2] = shape[nd - 1];
  } else if (mode == 2) {
    bshape[nd - 1] = 2 * shape[nd - 1];
  }
  int64_t bn = 1;
  for (int32_t i = 0; i < nd; i++) bn *= bshape[i];
  std::vector<char> raw((size_t)(bn * esz) + 16, 0);
  int64_t bst[HOST_MAX_DIMS], vst[HOST_MAX_DIMS];
  for (int32_t i = nd - 1, s = 1; i >= 0; i--) {
    bst[i] = s;
    s = (int32_t)(s * bshape[i]);
  }
  for (int32_t i = 0; i < nd; i++) vst[i] = bst[i];
  if (mode == 1) {
    vst[nd - 1] = bst[nd - 2];
    vst[nd - 2] = bst[nd - 1];
  } else if (mode == 2) {
    vst[nd - 1] = 2;
  }
  for (int64_t e = 0; e < n; e++) {
    int64_t r = e, off = 0;
    for (int32_t d = nd - 1; d >= 0; d--) {
      off += (r % shape[d]) * vst[d];
      r /= shape[d];
    }
    memcpy(raw.data() + off * esz, bytes.data() + e * esz, (size_t)esz);
  }
  *base = NULL;
  CHECK_OK(tabi_tensor_from_host(ref, CPU, dt, nd, bshape, raw.data(), (uint64_t)(bn * esz), base));
  if (!*base) return NULL;
  if (mode == 0) {
    tabi_tensor *t = *base;
    *base = NULL;
    return t;
  }
  tabi_value r;
  if (mode == 1) {
    int64_t perm[HOST_MAX_DIMS];
    for (int32_t i = 0; i < nd; i++) perm[i] = i;
    perm[nd - 1] = nd - 2;
    perm[nd - 2] = nd - 1;
    tabi_value a[2] = {tabi_tensor_value(*base), tabi_int_list(perm, nd)};
    r = call_ref("aten::permute", a, 2);
  } else {
    tabi_value a[5] = {tabi_tensor_value(*base), tabi_int(nd - 1), tabi_int(0), tabi_none(), tabi_int(2)};
    r = call_ref("aten::slice.Tensor", a, 5);
  }
  return r.u.t;
}

#endif /* TABI_TESTS_CUDA_HOST_STUB_H */
