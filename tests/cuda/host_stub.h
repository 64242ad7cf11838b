/* tests/cuda/host_stub.h: a stand-in host table for the host-emulation tests
 * (test_cuda_*_host.cpp). The GPU plugins' argument checks (tc_*_check.c) take
 * the host table and the call as kernels do; these tests run them without a
 * runtime: set_error keeps the message in fake_msg, op_info names the op the
 * check is for (fake_call(name) sets it), nothing else is needed. C++ (the
 * tests are C++; the checks are C with C linkage). */
#ifndef TABI_TESTS_CUDA_HOST_STUB_H
#define TABI_TESTS_CUDA_HOST_STUB_H

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <tabi/host.h>
#include <tabi/runtime.h>

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

#endif /* TABI_TESTS_CUDA_HOST_STUB_H */
