/* plugins/cpu/cpu_idx.h: what the indexing kernels (cpu_idx_*.c: index.Tensor,
 * index_put, scatter, scatter_reduce, select/slice_scatter, the embedding
 * backward and bag) share: a threaded contiguous clone, dim collapsing, and
 * an element copy / add over a small strided block.
 *
 * Every kernel here writes a fresh output. Duplicate targets keep the
 * reference's order: each output element is owned by one task (partitioned by
 * output rows, lanes or offset ranges), and that task visits its writes in the
 * reference's row-major order, so assignments keep the last write and sums add
 * in the same order at every thread count.
 */
#ifndef TABI_CPU_IDX_H
#define TABI_CPU_IDX_H

#include <stdint.h>

#include "cpu.h"

#define CPU_IDX_MAX_DIMS 16

/* A new contiguous tensor with self's shape, dtype and values (any strides in
 * self), copied in parallel. */
tabi_status cpu_idx_clone(const cpu_ctx *c, const tabi_tensor *self, tabi_tensor **out);

/* Drops size-1 dims and merges neighbours that are contiguous in each of the
 * `nops` stride sets (st[k][d]); shape and strides are rewritten in place,
 * outer dims first. Returns the new number of dims (0: one element). */
int32_t cpu_idx_collapse(int32_t nd, int64_t *shape, int32_t nops, int64_t (*st)[CPU_IDX_MAX_DIMS]);

/* The element operations over a strided block (shape[nd], element strides).
 * CPU_IDX_COPY copies es-byte elements; CPU_IDX_ADD adds src into dst in dtype
 * dt (floats in their own type, rounding every add as the reference's store
 * does; integers wrap at their width; bool is or). */
enum { CPU_IDX_COPY, CPU_IDX_ADD };

/* 1 when CPU_IDX_ADD takes dtype dt. */
int cpu_idx_add_ok(tabi_dtype dt);

void cpu_idx_block(int op, tabi_dtype dt, int64_t es, char *dst, const int64_t *dst_st,
                   const char *src, const int64_t *src_st, const int64_t *shape, int32_t nd);

/* Advanced indexing's masks (cpu_idx_mask.c): `value` is the Tensor?[] list
 * with each bool/uint8 mask replaced by one int64 index tensor per dim it
 * covers (its nonzero coordinates, row-major), or the list itself when it has
 * no mask. cpu_idx_masks_expand returns 0 (nothing held) for masks the fast
 * path leaves to the reference (0-d, strided, not fitting self). */
typedef struct cpu_idx_masks {
  tabi_value value;
  tabi_tensor *list[CPU_IDX_MAX_DIMS];
  int32_t nlist;
  tabi_tensor *owned[CPU_IDX_MAX_DIMS];
  int32_t nowned;
} cpu_idx_masks;

int cpu_idx_masks_expand(const cpu_ctx *c, const tabi_tensor *self, const tabi_value *indices,
                         cpu_idx_masks *m);
void cpu_idx_masks_release(const cpu_ctx *c, cpu_idx_masks *m);

/* Loads element i of an int32/int64 index buffer. */
static inline int64_t cpu_idx_load(const void *p, int is64, int64_t i) {
  return is64 ? ((const int64_t *)p)[i] : (int64_t)((const int32_t *)p)[i];
}

#endif /* TABI_CPU_IDX_H */
