/* reference/ref_slice.h: ATen's bounds of slice(dim, start, end, step), shared
 * by the reference's slice and slice_scatter (ref_shape.c, ref_shape2.c) and
 * the GPU plugins' slice_scatter (plugins/cuda/tc_shape.cu), so the clamping
 * cannot drift. Header-only (static inline): C here, C++ under nvcc/hipcc. */
#ifndef TABI_REF_SLICE_H
#define TABI_REF_SLICE_H

#include <stdint.h>

#include <tabi/tabi.h>

/* start/end are `int?` arguments (None: 0 and the end). Negative values count
 * from the end, then both clamp to [0, size] with end >= start. Returns the
 * length end - start; *out_start the clamped start. */
static inline int64_t ref_slice_bounds(int64_t size, const tabi_value *start, const tabi_value *end,
                                       int64_t *out_start) {
  int64_t s = start->tag == TABI_TAG_INT ? start->u.i : 0;
  int64_t e = end->tag == TABI_TAG_INT ? end->u.i : INT64_MAX;
  if (s < 0) s += size;
  if (e < 0) e += size;
  if (s < 0) s = 0;
  else if (s >= size) s = size;
  if (e < s) e = s;
  else if (e >= size) e = size;
  *out_start = s;
  return e - s;
}

#endif /* TABI_REF_SLICE_H */
