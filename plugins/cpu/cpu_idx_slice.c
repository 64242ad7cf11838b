/* plugins/cpu/cpu_idx_slice.c: aten::select_scatter and aten::slice_scatter.
 *
 * out = a contiguous copy of self with src written into the selected (or
 * sliced) region. The fast path takes a contiguous self (the reference keeps a
 * dense self's strides, which for a contiguous self are the row-major ones)
 * and src of self's dtype, any strides; the region copy is collapsed to as few
 * dims as both sides allow and split over its outermost dim. Everything else
 * (errors included) goes to the reference.
 */
#include <string.h>

#include "cpu_idx.h"
#include "ref_slice.h" /* ATen's slice bounds, the reference's own */

#define MD CPU_IDX_MAX_DIMS

typedef struct region_job {
  char *dst;
  const char *src;
  int64_t es;
  int32_t nd; /* collapsed; rows over dim 0 */
  int64_t shape[MD], st[2][MD];
} region_job;

static void region_rows(void *arg, int64_t r0, int64_t r1) {
  const region_job *j = arg;
  for (int64_t r = r0; r < r1; r++)
    cpu_idx_block(CPU_IDX_COPY, TABI_DTYPE_INVALID, j->es, j->dst + r * j->st[0][0] * j->es, j->st[0] + 1,
                  j->src + r * j->st[1][0] * j->es, j->st[1] + 1, j->shape + 1, j->nd - 1);
}

/* out = clone(self); out's region (nd dims: shape, strides rst, element offset
 * base) = src. */
static tabi_status region_scatter(const cpu_ctx *c, const tabi_tensor *self, const tabi_tensor *src,
                                  int32_t nd, const int64_t *shape, const int64_t *rst, int64_t base,
                                  tabi_value *outs) {
  tabi_tensor *o = NULL;
  tabi_status st = cpu_idx_clone(c, self, &o);
  if (st != TABI_OK) return st;
  region_job j;
  memset(&j, 0, sizeof j);
  j.es = tabi_dtype_size(tabi_tensor_dtype(self));
  j.dst = (char *)tabi_tensor_data(o) + base * j.es;
  j.src = tabi_tensor_data(src);
  int64_t n = 1;
  for (int32_t d = 0; d < nd; d++) {
    j.shape[d] = shape[d];
    j.st[0][d] = rst[d];
    j.st[1][d] = src->dl.strides[d];
    n *= shape[d];
  }
  if (n > 0) {
    j.nd = cpu_idx_collapse(nd, j.shape, 2, j.st);
    if (j.nd == 0) {
      memcpy(j.dst, j.src, (size_t)j.es);
    } else {
      int64_t row = n / j.shape[0];
      cpu_parallel_for(c->pool, j.shape[0], 1 + 65536 / row, region_rows, &j);
    }
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

/* The shared conditions: contiguous self of 1..16 dims, src a tensor of self's dtype. */
static int slice_ok(const tabi_value *args) {
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR) return 0;
  const tabi_tensor *self = args[0].u.t, *src = args[1].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self);
  return self->dl.ndim >= 1 && self->dl.ndim <= MD && cpu_contig(self) && tabi_dtype_size(dt) > 0 &&
         tabi_tensor_dtype(src) == dt;
}

static void row_major(const tabi_tensor *t, int64_t *st) {
  int64_t e = 1;
  for (int32_t d = t->dl.ndim - 1; d >= 0; d--) { st[d] = e; e *= t->dl.shape[d]; }
}

tabi_status cpu_k_select_scatter(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (!slice_ok(args) || args[2].tag != TABI_TAG_INT || args[3].tag != TABI_TAG_INT)
    return CPU_FALLBACK(c, SELECT_SCATTER);
  const tabi_tensor *self = args[0].u.t, *src = args[1].u.t;
  int32_t nd = self->dl.ndim, dim = cpu_wrap_dim(args[2].u.i, nd);
  if (dim < 0 || src->dl.ndim != nd - 1) return CPU_FALLBACK(c, SELECT_SCATTER);
  int64_t size = self->dl.shape[dim], index = args[3].u.i;
  if (index < -size || index >= size) return CPU_FALLBACK(c, SELECT_SCATTER);
  if (index < 0) index += size;
  int64_t ost[MD], shape[MD], rst[MD];
  row_major(self, ost);
  int32_t k = 0;
  for (int32_t d = 0; d < nd; d++) {
    if (d == dim) continue;
    if (src->dl.shape[k] != self->dl.shape[d]) return CPU_FALLBACK(c, SELECT_SCATTER);
    shape[k] = self->dl.shape[d];
    rst[k++] = ost[d];
  }
  return region_scatter(c, self, src, k, shape, rst, index * ost[dim], outs);
}

tabi_status cpu_k_slice_scatter(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (!slice_ok(args) || args[2].tag != TABI_TAG_INT || args[5].tag != TABI_TAG_INT)
    return CPU_FALLBACK(c, SLICE_SCATTER);
  const tabi_tensor *self = args[0].u.t, *src = args[1].u.t;
  int32_t nd = self->dl.ndim, dim = cpu_wrap_dim(args[2].u.i, nd);
  int64_t step = args[5].u.i;
  if (dim < 0 || step <= 0 || src->dl.ndim != nd) return CPU_FALLBACK(c, SLICE_SCATTER);
  /* start / end clamped as the reference (and ATen's slice) do */
  int64_t size = self->dl.shape[dim];
  int64_t start, len = ref_slice_bounds(size, &args[3], &args[4], &start), ost[MD], shape[MD], rst[MD];
  row_major(self, ost);
  for (int32_t d = 0; d < nd; d++) {
    shape[d] = d == dim ? (len == 0 ? 0 : (len - 1) / step + 1) : self->dl.shape[d];
    /* a one-element slice ignores its stride: step may be huge there (2^62), and
       with two or more elements step < size, so the product fits */
    rst[d] = d == dim && shape[d] > 1 ? ost[d] * step : ost[d];
    if (src->dl.shape[d] != shape[d]) return CPU_FALLBACK(c, SLICE_SCATTER);
  }
  return region_scatter(c, self, src, nd, shape, rst, start * ost[dim], outs);
}
