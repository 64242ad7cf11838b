/* plugins/cpu/cpu_sort.h: the general sort/topk of cpu_sort_any.c, which
 * cpu_sort.c's kernels call for what their float32 last-dim radix does not
 * take. */
#ifndef TABI_CPU_SORT_H
#define TABI_CPU_SORT_H

#include "cpu.h"

/* The order-preserving 32-bit key of a float32's bits u, as the reference
 * compares: every NaN alike and the largest, -0.0 equal to +0.0; every bit
 * inverted for descending order. Both sort paths key floats with it. */
static inline uint32_t cpu_f32_sort_key(uint32_t u, int desc) {
  if ((u & 0x7fffffffu) > 0x7f800000u) u = 0x7fc00000u;
  if (u == 0x80000000u) u = 0;
  uint32_t k = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  return desc ? ~k : k;
}

/* Sorts t along dim (topk: keeps the first k; otherwise k is ignored) into new
 * contiguous values and int64 indices in outs[0..1]. 1 when handled (*st set),
 * 0 to hand the call to the reference (argument errors, empty, other dtypes). */
int cpu_sort_any(const cpu_ctx *c, const tabi_tensor *t, int64_t dim, int64_t k, int desc, int topk,
                 tabi_value *outs, tabi_status *st);

#endif /* TABI_CPU_SORT_H */
