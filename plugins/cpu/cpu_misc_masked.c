/* plugins/cpu/cpu_misc_masked.c: masked_scatter.
 *
 * out = self, with the masked elements replaced by source's elements in
 * row-major order (as the reference). Fast path: self, mask and source
 * contiguous on the CPU, mask of self's shape (no broadcasting), bool or uint8
 * mask, source of self's dtype with enough elements. Two threaded passes over
 * fixed chunks: count each chunk's set mask bytes, then (after a prefix sum
 * that gives every chunk its first source element) write each chunk. Every
 * other case, and every error, is the reference kernel's.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

#define CH 16384

typedef struct ms_job {
  const unsigned char *mask, *self, *src;
  unsigned char *out;
  int64_t es, numel;
  int64_t *first; /* per chunk: count, then first source element */
} ms_job;

static void ms_count(void *arg, int64_t b, int64_t e) {
  ms_job *j = arg;
  for (int64_t c = b; c < e; c++) {
    int64_t lo = c * CH, hi = lo + CH < j->numel ? lo + CH : j->numel, n = 0;
    for (int64_t i = lo; i < hi; i++) n += j->mask[i] != 0;
    j->first[c] = n;
  }
}

static void ms_write(void *arg, int64_t b, int64_t e) {
  ms_job *j = arg;
  int64_t es = j->es;
  for (int64_t c = b; c < e; c++) {
    int64_t lo = c * CH, hi = lo + CH < j->numel ? lo + CH : j->numel, k = j->first[c];
    memcpy(j->out + lo * es, j->self + lo * es, (size_t)((hi - lo) * es));
    for (int64_t i = lo; i < hi; i++)
      if (j->mask[i]) memcpy(j->out + i * es, j->src + (k++) * es, (size_t)es);
  }
}

tabi_status cpu_k_masked_scatter(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR || args[2].tag != TABI_TAG_TENSOR)
    return CPU_FALLBACK(c, MASKED_SCATTER);
  const tabi_tensor *self = args[0].u.t, *mask = args[1].u.t, *src = args[2].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self), mt = tabi_tensor_dtype(mask);
  int64_t es = tabi_dtype_size(dt);
  if (es == 0 || tabi_tensor_dtype(src) != dt || (mt != TABI_DTYPE_BOOL && mt != TABI_DTYPE_UINT8) ||
      !cpu_same_shape(self, mask) || !cpu_contig(self) || !cpu_contig(mask) || !cpu_contig(src) ||
      self->dl.ndim > 16 || self->dl.device.device_type != kDLCPU ||
      mask->dl.device.device_type != kDLCPU || src->dl.device.device_type != kDLCPU)
    return CPU_FALLBACK(c, MASKED_SCATTER);
  ms_job j = {tabi_tensor_data(mask), tabi_tensor_data(self), tabi_tensor_data(src), NULL, es,
              tabi_tensor_numel(self), NULL};
  int64_t nch = (j.numel + CH - 1) / CH, total = 0;
  if (nch > 0) {
    j.first = malloc(sizeof(int64_t) * (size_t)nch);
    if (!j.first) return CPU_FALLBACK(c, MASKED_SCATTER);
    cpu_parallel_for(c->pool, nch, 4, ms_count, &j);
    for (int64_t k = 0; k < nch; k++) {
      int64_t n = j.first[k];
      j.first[k] = total;
      total += n;
    }
    if (total > tabi_tensor_numel(src)) { /* too few source elements: the reference reports it */
      free(j.first);
      return CPU_FALLBACK(c, MASKED_SCATTER);
    }
  }
  tabi_tensor *o = NULL;
  tabi_status st = cpu_empty(c, self, dt, self->dl.ndim, self->dl.shape, &o);
  if (st == TABI_OK) {
    j.out = tabi_tensor_data(o);
    if (nch > 0) cpu_parallel_for(c->pool, nch, 2, ms_write, &j);
    outs[0] = tabi_tensor_value(o);
  }
  free(j.first);
  return st;
}
