/* plugins/cpu/cpu_nn3.h: what the cpu_nn3_*.c kernels share: moving runs of
 * float64/float32/float16/bfloat16 elements to and from double buffers, the
 * compute type of the reference kernels they mirror (reference/ref_nn*.c,
 * ref_linalg.c). Runs are at most CPU_NN3_CHUNK elements, so a half buffer
 * fits on the stack; half types round through float, as ref_store_f does. */
#ifndef TABI_CPU_NN3_H
#define TABI_CPU_NN3_H

#include <string.h>

#include "cpu.h"

#define CPU_NN3_CHUNK 512

static inline int64_t cpu_nn3_esize(tabi_dtype dt) {
  return dt == TABI_DTYPE_FLOAT64 ? 8 : dt == TABI_DTYPE_FLOAT32 ? 4 : 2;
}

/* n (<= CPU_NN3_CHUNK) elements of dt at p, element stride st, into dst. */
static inline void cpu_nn3_load(const cpu_ctx *c, tabi_dtype dt, const char *p, int64_t st, double *dst,
                                int64_t n) {
  if (dt == TABI_DTYPE_FLOAT64) {
    const double *s = (const double *)p;
    if (st == 1)
      for (int64_t i = 0; i < n; i++) dst[i] = s[i];
    else
      for (int64_t i = 0; i < n; i++) dst[i] = s[i * st];
  } else if (dt == TABI_DTYPE_FLOAT32) {
    const float *s = (const float *)p;
    if (st == 1)
      for (int64_t i = 0; i < n; i++) dst[i] = (double)s[i];
    else
      for (int64_t i = 0; i < n; i++) dst[i] = (double)s[i * st];
  } else {
    float buf[CPU_NN3_CHUNK];
    if (st != 1) {
      uint16_t hb[CPU_NN3_CHUNK] = {0}; /* zeroed: GCC cannot see the loop fill what is read */
      const uint16_t *s = (const uint16_t *)p;
      for (int64_t i = 0; i < n; i++) hb[i] = s[i * st];
      cpu_to_f32(c, dt, hb, buf, n);
    } else {
      cpu_to_f32(c, dt, p, buf, n);
    }
    for (int64_t i = 0; i < n; i++) dst[i] = (double)buf[i];
  }
}

/* Any n: runs of CPU_NN3_CHUNK. */
static inline void cpu_nn3_load_n(const cpu_ctx *c, tabi_dtype dt, const char *p, int64_t st, double *dst,
                                  int64_t n) {
  int64_t es = cpu_nn3_esize(dt);
  for (int64_t i = 0; i < n; i += CPU_NN3_CHUNK)
    cpu_nn3_load(c, dt, p + i * st * es, st, dst + i, n - i < CPU_NN3_CHUNK ? n - i : CPU_NN3_CHUNK);
}

/* n (<= CPU_NN3_CHUNK) doubles into contiguous dt at p. */
static inline void cpu_nn3_store(const cpu_ctx *c, tabi_dtype dt, const double *src, char *p, int64_t n) {
  if (dt == TABI_DTYPE_FLOAT64) {
    double *d = (double *)p;
    for (int64_t i = 0; i < n; i++) d[i] = src[i];
  } else if (dt == TABI_DTYPE_FLOAT32) {
    float *d = (float *)p;
    for (int64_t i = 0; i < n; i++) d[i] = (float)src[i];
  } else {
    float buf[CPU_NN3_CHUNK];
    for (int64_t i = 0; i < n; i++) buf[i] = (float)src[i];
    cpu_from_f32(c, dt, buf, p, n);
  }
}

static inline void cpu_nn3_store_n(const cpu_ctx *c, tabi_dtype dt, const double *src, char *p, int64_t n) {
  int64_t es = cpu_nn3_esize(dt);
  for (int64_t i = 0; i < n; i += CPU_NN3_CHUNK)
    cpu_nn3_store(c, dt, src + i, p + i * es, n - i < CPU_NN3_CHUNK ? n - i : CPU_NN3_CHUNK);
}

/* A new contiguous (row-major) copy of t's elements of es bytes, gathered on
 * the pool; free() it. NULL when t is empty or memory is short. */
char *cpu_nn3_contig(const cpu_ctx *c, const tabi_tensor *t, int64_t es);

/* float16/bfloat16/float32/float64 on the CPU. */
static inline int cpu_nn3_float(const tabi_tensor *t) {
  tabi_dtype d = tabi_tensor_dtype(t);
  return (d == TABI_DTYPE_FLOAT64 || cpu_is_fast_float(d)) && t->dl.device.device_type == kDLCPU;
}

#endif /* TABI_CPU_NN3_H */
