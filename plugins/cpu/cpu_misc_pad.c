/* plugins/cpu/cpu_misc_pad.c: reflection_pad1d/2d/3d and replication_pad2d/3d.
 *
 * Output index j along a padded dim reads input index pad_index(j) (ATen's
 * cpu_padding, as the reference: reflected or clamped, shifted for negative
 * pads that crop). The output is contiguous; its rows (the last dim) run on
 * the pool: the row's input offset comes from the mapped outer indices, and
 * the row itself is a gather through a table of the last dim's mapped indices
 * built once per call. Any dtype of the reference's set (float and complex:
 * element bytes are copied). Argument errors and other devices go to the
 * reference kernel, which reports them.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

typedef struct pad_job {
  int32_t nd;
  int64_t ishape[5], istr[5], oshape[5], padl[5];
  int is_pad[5];
  int reflect;
  const int64_t *tab; /* last dim: input index of each output index */
  const char *src;
  char *dst;
  int64_t es;
} pad_job;

static int64_t pad_index(int reflect, int64_t j, int64_t size, int64_t pad_l) {
  int64_t i_start = pad_l < 0 ? -pad_l : 0, o_start = pad_l > 0 ? pad_l : 0, ip;
  if (reflect) {
    if (j < pad_l) ip = pad_l * 2 - j;
    else if (j < size + pad_l) ip = j;
    else ip = (size + pad_l - 1) * 2 - j;
  } else {
    if (j < pad_l) ip = pad_l;
    else if (j < size + pad_l) ip = j;
    else ip = size + pad_l - 1;
  }
  return ip - o_start + i_start;
}

static void pad_range(void *arg, int64_t b, int64_t e) {
  const pad_job *j = arg;
  int32_t last = j->nd - 1;
  int64_t w = j->oshape[last], st = j->istr[last];
  for (int64_t r = b; r < e; r++) {
    int64_t off = 0, rem = r;
    for (int32_t d = last - 1; d >= 0; d--) {
      int64_t i = rem % j->oshape[d];
      rem /= j->oshape[d];
      if (j->is_pad[d]) i = pad_index(j->reflect, i, j->ishape[d], j->padl[d]);
      off += i * j->istr[d];
    }
    const char *s = j->src + off * j->es;
    char *o = j->dst + r * w * j->es;
    switch (j->es) {
      case 2: {
        uint16_t *y = (uint16_t *)(void *)o;
        const uint16_t *x = (const uint16_t *)(const void *)s;
        for (int64_t k = 0; k < w; k++) y[k] = x[j->tab[k] * st];
        break;
      }
      case 4: {
        uint32_t *y = (uint32_t *)(void *)o;
        const uint32_t *x = (const uint32_t *)(const void *)s;
        for (int64_t k = 0; k < w; k++) y[k] = x[j->tab[k] * st];
        break;
      }
      case 8: {
        uint64_t *y = (uint64_t *)(void *)o;
        const uint64_t *x = (const uint64_t *)(const void *)s;
        for (int64_t k = 0; k < w; k++) y[k] = x[j->tab[k] * st];
        break;
      }
      default:
        for (int64_t k = 0; k < w; k++) memcpy(o + k * j->es, s + j->tab[k] * st * j->es, (size_t)j->es);
        break;
    }
  }
}

/* 0: declined (the reference runs); 1: done (*st holds the status). */
static int pad_fast(const cpu_ctx *c, tabi_value *args, int32_t k, int reflect, tabi_status *st,
                    tabi_value *out) {
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_INT_LIST || args[1].u.list.len != 2 * k)
    return 0;
  const tabi_tensor *s = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(s);
  int32_t nd = s->dl.ndim;
  if (s->dl.device.device_type != kDLCPU || !(cpu_is_fast_float(dt) || dt == TABI_DTYPE_FLOAT64 ||
                                              dt == TABI_DTYPE_COMPLEX64 || dt == TABI_DTYPE_COMPLEX128))
    return 0;
  if (nd != k + 1 && nd != k + 2) return 0;
  for (int32_t d = nd == k + 2 ? 1 : 0; d < nd; d++)
    if (s->dl.shape[d] == 0) return 0;
  pad_job j;
  memset(&j, 0, sizeof j);
  j.nd = nd;
  j.reflect = reflect;
  j.es = tabi_dtype_size(dt);
  const int64_t *pad = tabi_value_ints(&args[1]);
  for (int32_t d = 0; d < nd; d++) {
    j.ishape[d] = j.oshape[d] = s->dl.shape[d];
    j.istr[d] = s->dl.strides[d];
  }
  for (int32_t i = 0; i < k; i++) {
    int32_t d = nd - 1 - i;
    int64_t l = pad[2 * i], r = pad[2 * i + 1], size = s->dl.shape[d], n;
    if ((reflect && (l >= size || r >= size)) || l < -size || r < -size) return 0; /* odd crops: the reference */
    if (__builtin_add_overflow(size, l, &n) || __builtin_add_overflow(n, r, &n) || n < 1) return 0;
    j.oshape[d] = n;
    j.padl[d] = l;
    j.is_pad[d] = 1;
  }
  /* The output first: a size that overflows or cannot be allocated is refused
   * before the loops below, which are linear in the padded sizes. */
  int64_t numel = 1;
  for (int32_t d = 0; d < nd; d++)
    if (__builtin_mul_overflow(numel, j.oshape[d], &numel)) return 0;
  tabi_tensor *o = NULL;
  *st = cpu_empty(c, s, dt, nd, j.oshape, &o);
  if (*st != TABI_OK) return 1;
  if (numel == 0) { /* nothing to write; a padded dim may still be huge */
    *out = tabi_tensor_value(o);
    return 1;
  }
  /* every mapped index must land in the input (negative pads crop) */
  for (int32_t d = 0; d < nd; d++)
    for (int64_t q = 0; j.is_pad[d] && q < j.oshape[d]; q++) {
      int64_t m = pad_index(reflect, q, j.ishape[d], j.padl[d]);
      if (m < 0 || m >= j.ishape[d]) {
        c->host->tensor_release(c->host->ctx, o);
        return 0;
      }
    }
  int64_t w = j.oshape[nd - 1];
  int64_t *tab = malloc(sizeof(int64_t) * (size_t)w);
  if (!tab) {
    c->host->tensor_release(c->host->ctx, o);
    return 0;
  }
  for (int64_t q = 0; q < w; q++) tab[q] = pad_index(reflect, q, j.ishape[nd - 1], j.padl[nd - 1]);
  j.tab = tab;
  j.src = tabi_tensor_data(s);
  j.dst = tabi_tensor_data(o);
  if (numel > 0) cpu_parallel_for(c->pool, numel / w, 1 + 32768 / w, pad_range, &j);
  *out = tabi_tensor_value(o);
  free(tab);
  return 1;
}

#define PAD_KERNEL(fn, ID, k, reflect)                                                   \
  tabi_status fn(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) { \
    const cpu_ctx *c = ctx;                                                              \
    tabi_status st = TABI_OK;                                                            \
    if (!pad_fast(c, args, k, reflect, &st, &outs[0])) return CPU_FALLBACK(c, ID);       \
    return st;                                                                           \
  }

PAD_KERNEL(cpu_k_reflection_pad1d, REFLECTION_PAD1D, 1, 1)
PAD_KERNEL(cpu_k_reflection_pad2d, REFLECTION_PAD2D, 2, 1)
PAD_KERNEL(cpu_k_reflection_pad3d, REFLECTION_PAD3D, 3, 1)
PAD_KERNEL(cpu_k_replication_pad2d, REPLICATION_PAD2D, 2, 0)
PAD_KERNEL(cpu_k_replication_pad3d, REPLICATION_PAD3D, 3, 0)
