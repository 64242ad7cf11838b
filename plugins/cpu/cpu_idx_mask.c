/* plugins/cpu/cpu_idx_mask.c: boolean (bool / uint8) masks in advanced
 * indexing, turned into int64 index tensors (cpu_idx.h).
 *
 * x[mask] indexes with the mask's nonzero coordinates, one index tensor per
 * dim the mask covers, in row-major order (ATen and the reference do the
 * same). The mask is cut into fixed chunks: a parallel pass counts each
 * chunk's nonzeros, a prefix sum places the chunks, a second parallel pass
 * writes the coordinates; the result does not depend on the thread count.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_idx.h"

#define MASK_CHUNK 65536

typedef struct mask_job {
  const uint8_t *m;
  int64_t n, *count; /* per chunk; then the chunk's first output row */
  int32_t nd;
  const int64_t *shape;
  int64_t *col[CPU_IDX_MAX_DIMS];
} mask_job;

static void mask_count(void *arg, int64_t c0, int64_t c1) {
  mask_job *j = arg;
  for (int64_t ch = c0; ch < c1; ch++) {
    int64_t b = ch * MASK_CHUNK, e = b + MASK_CHUNK < j->n ? b + MASK_CHUNK : j->n, k = 0;
    for (int64_t i = b; i < e; i++) k += j->m[i] != 0;
    j->count[ch] = k;
  }
}

static void mask_fill(void *arg, int64_t c0, int64_t c1) {
  mask_job *j = arg;
  for (int64_t ch = c0; ch < c1; ch++) {
    int64_t b = ch * MASK_CHUNK, e = b + MASK_CHUNK < j->n ? b + MASK_CHUNK : j->n, row = j->count[ch];
    int64_t coord[CPU_IDX_MAX_DIMS], q = b;
    for (int32_t d = j->nd - 1; d >= 0; d--) {
      coord[d] = q % j->shape[d];
      q /= j->shape[d];
    }
    for (int64_t i = b; i < e; i++) {
      if (j->m[i]) {
        for (int32_t d = 0; d < j->nd; d++) j->col[d][row] = coord[d];
        row++;
      }
      for (int32_t d = j->nd - 1; d >= 0; d--) {
        if (++coord[d] < j->shape[d]) break;
        coord[d] = 0;
      }
    }
  }
}

/* The nonzero coordinates of a contiguous mask covering self dims
 * [cur, cur + mask.ndim): one new int64 tensor per dim into m. */
static int mask_split(const cpu_ctx *c, const tabi_tensor *mask, cpu_idx_masks *m) {
  mask_job j;
  memset(&j, 0, sizeof j);
  j.m = tabi_tensor_data(mask);
  j.n = tabi_tensor_numel(mask);
  j.nd = mask->dl.ndim;
  j.shape = mask->dl.shape;
  int64_t chunks = (j.n + MASK_CHUNK - 1) / MASK_CHUNK;
  j.count = malloc(sizeof(int64_t) * (size_t)(chunks > 0 ? chunks : 1));
  if (!j.count) return 0;
  cpu_parallel_for(c->pool, chunks, 1, mask_count, &j);
  int64_t total = 0;
  for (int64_t ch = 0; ch < chunks; ch++) {
    int64_t k = j.count[ch];
    j.count[ch] = total;
    total += k;
  }
  for (int32_t d = 0; d < j.nd; d++) {
    tabi_tensor *t = NULL;
    if (cpu_empty(c, mask, TABI_DTYPE_INT64, 1, &total, &t) != TABI_OK) {
      free(j.count);
      return 0;
    }
    m->owned[m->nowned++] = t;
    m->list[m->nlist++] = t;
    j.col[d] = tabi_tensor_data(t);
  }
  if (total > 0) cpu_parallel_for(c->pool, chunks, 1, mask_fill, &j);
  free(j.count);
  return 1;
}

int cpu_idx_masks_expand(const cpu_ctx *c, const tabi_tensor *self, const tabi_value *indices,
                         cpu_idx_masks *m) {
  memset(m, 0, sizeof *m);
  m->value = *indices;
  if (indices->tag != TABI_TAG_TENSOR_LIST) return 1; /* adv_build refuses it */
  int64_t n = indices->u.list.len;
  tabi_tensor *const *list = tabi_value_tensors(indices);
  int any = 0;
  for (int64_t k = 0; k < n; k++) {
    tabi_dtype dt = list[k] ? tabi_tensor_dtype(list[k]) : TABI_DTYPE_INVALID;
    any |= dt == TABI_DTYPE_BOOL || dt == TABI_DTYPE_UINT8;
  }
  if (!any) return 1;
  int32_t cur = 0, nd = self->dl.ndim;
  for (int64_t k = 0; k < n; k++) {
    const tabi_tensor *t = list[k];
    tabi_dtype dt = t ? tabi_tensor_dtype(t) : TABI_DTYPE_INVALID;
    if (dt != TABI_DTYPE_BOOL && dt != TABI_DTYPE_UINT8) {
      if (cur >= nd || m->nlist >= CPU_IDX_MAX_DIMS) goto refuse;
      m->list[m->nlist++] = (tabi_tensor *)t;
      cur++;
      continue;
    }
    int32_t mnd = t->dl.ndim;
    if (mnd == 0 || cur + mnd > nd || m->nlist + mnd > CPU_IDX_MAX_DIMS || !cpu_contig(t)) goto refuse;
    for (int32_t d = 0; d < mnd; d++)
      if (t->dl.shape[d] != self->dl.shape[cur + d]) goto refuse;
    if (!mask_split(c, t, m)) goto refuse;
    cur += mnd;
  }
  m->value = tabi_tensor_list(m->list, m->nlist);
  return 1;
refuse:
  cpu_idx_masks_release(c, m);
  return 0;
}

void cpu_idx_masks_release(const cpu_ctx *c, cpu_idx_masks *m) {
  for (int32_t k = 0; k < m->nowned; k++) c->host->tensor_release(c->host->ctx, m->owned[k]);
  m->nowned = 0;
}
