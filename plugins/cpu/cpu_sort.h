/* plugins/cpu/cpu_sort.h: the general sort/topk of cpu_sort_any.c, which
 * cpu_sort.c's kernels call for what their float32 last-dim radix does not
 * take. */
#ifndef TABI_CPU_SORT_H
#define TABI_CPU_SORT_H

#include "cpu.h"

/* Sorts t along dim (topk: keeps the first k; otherwise k is ignored) into new
 * contiguous values and int64 indices in outs[0..1]. 1 when handled (*st set),
 * 0 to hand the call to the reference (argument errors, empty, other dtypes). */
int cpu_sort_any(const cpu_ctx *c, const tabi_tensor *t, int64_t dim, int64_t k, int desc, int topk,
                 tabi_value *outs, tabi_status *st);

#endif /* TABI_CPU_SORT_H */
