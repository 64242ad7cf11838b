/* plugins/cpu/cpu_sort_any.c: sort and topk for what cpu_sort.c's float32
 * radix does not take: every other dtype the reference sorts (float64,
 * float16, bfloat16, int64/32/16/8, uint8, bool), any dim, any strides.
 *
 * Each element of a line (the elements along the sorted dim) becomes a 64-bit
 * order-preserving key (floats: NaN canonicalised to the largest and -0.0
 * equal to +0.0, as the reference compares; integers: the sign bit flipped;
 * every bit inverted for descending order) next to its position. A stable LSD
 * radix sort over the key bytes (bytes equal across the line, such as the high
 * bytes of a narrow type's keys, are skipped) keeps equal keys in input order,
 * which is the reference's stable merge sort order exactly. Values are then
 * copied from the input by position, bit for bit. topk takes the first k of
 * the sorted line (the reference's order for sorted=True and False alike).
 * Lines run in parallel, one line per task; results are contiguous.
 */
#include <stdlib.h>
#include <string.h>

#include <tabi/half.h>

#include "cpu.h"
#include "cpu_sort.h"

typedef struct item {
  uint64_t key, pos;
} item;

static uint64_t key_of(tabi_dtype dt, const char *p) {
  switch (dt) {
    case TABI_DTYPE_FLOAT64: {
      uint64_t u;
      memcpy(&u, p, 8);
      if ((u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) u = 0x7ff8000000000000ull;
      if (u == 0x8000000000000000ull) u = 0;
      return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
    }
    case TABI_DTYPE_FLOAT32: {
      uint32_t u;
      memcpy(&u, p, 4);
      return cpu_f32_sort_key(u, 0);
    }
    case TABI_DTYPE_FLOAT16:
    case TABI_DTYPE_BFLOAT16: {
      uint16_t h;
      memcpy(&h, p, 2);
      float f = dt == TABI_DTYPE_FLOAT16 ? tabi_f16_to_f32(h) : tabi_bf16_to_f32(h);
      uint32_t u;
      memcpy(&u, &f, 4);
      return cpu_f32_sort_key(u, 0);
    }
    case TABI_DTYPE_INT64: { int64_t v; memcpy(&v, p, 8); return (uint64_t)v ^ 0x8000000000000000ull; }
    case TABI_DTYPE_INT32: { int32_t v; memcpy(&v, p, 4); return (uint64_t)(int64_t)v ^ 0x8000000000000000ull; }
    case TABI_DTYPE_INT16: { int16_t v; memcpy(&v, p, 2); return (uint64_t)(int64_t)v ^ 0x8000000000000000ull; }
    case TABI_DTYPE_INT8: return (uint64_t)(int64_t)(int8_t)p[0] ^ 0x8000000000000000ull;
    default: return (uint8_t)p[0]; /* uint8, bool */
  }
}

/* Stable LSD radix sort of a[0..n) by key; tmp has room for n. */
static void radix64(item *a, item *tmp, int64_t n) {
  item *src = a, *dst = tmp;
  for (int shift = 0; shift < 64; shift += 8) {
    int64_t cnt[256];
    memset(cnt, 0, sizeof cnt);
    for (int64_t i = 0; i < n; i++) cnt[(src[i].key >> shift) & 0xff]++;
    int skip = 0;
    for (int d = 0; d < 256 && !skip; d++) skip = cnt[d] == n;
    if (skip) continue;
    int64_t sum = 0;
    for (int d = 0; d < 256; d++) { int64_t t = cnt[d]; cnt[d] = sum; sum += t; }
    for (int64_t i = 0; i < n; i++) dst[cnt[(src[i].key >> shift) & 0xff]++] = src[i];
    item *t = src; src = dst; dst = t;
  }
  if (src != a) memcpy(a, src, sizeof(item) * (size_t)n);
}

typedef struct any_job {
  const char *x;
  char *vals;
  int64_t *idx;
  tabi_dtype dt;
  int64_t es, len, keep, xstride; /* bytes per element; line length; kept; stride along dim */
  int32_t nd, dim;
  const int64_t *shape, *xstrides; /* the input's */
  int64_t ostride[16];             /* the outputs' (contiguous, dim of size keep) */
  int desc, failed;
} any_job;

/* Input and output element offsets of line l (row-major over the other dims). */
static void line_offsets(const any_job *j, int64_t l, int64_t *xo, int64_t *oo) {
  *xo = 0;
  *oo = 0;
  for (int32_t d = j->nd - 1; d >= 0; d--) {
    if (d == j->dim) continue;
    int64_t c = l % j->shape[d];
    l /= j->shape[d];
    *xo += c * j->xstrides[d];
    *oo += c * j->ostride[d];
  }
}

static void any_range(void *arg, int64_t b, int64_t e) {
  any_job *j = arg;
  item *w = malloc(sizeof(item) * 2 * (size_t)j->len);
  if (!w) {
    j->failed = 1;
    return;
  }
  uint64_t flip = j->desc ? ~0ull : 0;
  int64_t os = j->ostride[j->dim];
  for (int64_t l = b; l < e; l++) {
    int64_t xo, oo;
    line_offsets(j, l, &xo, &oo);
    const char *x = j->x + xo * j->es;
    for (int64_t i = 0; i < j->len; i++) {
      w[i].key = key_of(j->dt, x + i * j->xstride * j->es) ^ flip;
      w[i].pos = (uint64_t)i;
    }
    radix64(w, w + j->len, j->len);
    for (int64_t i = 0; i < j->keep; i++) {
      int64_t p = (int64_t)w[i].pos;
      memcpy(j->vals + (oo + i * os) * j->es, x + p * j->xstride * j->es, (size_t)j->es);
      j->idx[oo + i * os] = p;
    }
  }
  free(w);
}

static int sortable(tabi_dtype dt, int topk) {
  switch (dt) {
    case TABI_DTYPE_FLOAT64: case TABI_DTYPE_FLOAT32: case TABI_DTYPE_FLOAT16: case TABI_DTYPE_BFLOAT16:
    case TABI_DTYPE_INT64: case TABI_DTYPE_INT32: case TABI_DTYPE_INT16: case TABI_DTYPE_INT8:
    case TABI_DTYPE_UINT8:
      return 1;
    case TABI_DTYPE_BOOL: return !topk; /* the reference's topk refuses bool */
    default: return 0;
  }
}

int cpu_sort_any(const cpu_ctx *c, const tabi_tensor *t, int64_t dim, int64_t k, int desc, int topk,
                 tabi_value *outs, tabi_status *st) {
  int32_t nd = t->dl.ndim, d = cpu_wrap_dim(dim, nd);
  tabi_dtype dt = tabi_tensor_dtype(t);
  if (nd < 1 || nd > 16 || d < 0 || !sortable(dt, topk) || tabi_tensor_numel(t) == 0) return 0;
  int64_t len = t->dl.shape[d], keep = topk ? k : len;
  if (keep < 1 || keep > len) return 0; /* k out of range: the reference's error; k = 0: empty */
  for (int32_t i = 0; i < nd; i++)
    if (t->dl.strides[i] < 0) return 0;
  int64_t shape[16];
  for (int32_t i = 0; i < nd; i++) shape[i] = i == d ? keep : t->dl.shape[i];
  tabi_tensor *v = NULL, *ix = NULL;
  *st = cpu_empty(c, t, dt, nd, shape, &v);
  if (*st == TABI_OK) *st = cpu_empty(c, t, TABI_DTYPE_INT64, nd, shape, &ix);
  if (*st != TABI_OK) {
    c->host->tensor_release(c->host->ctx, v);
    return 1;
  }
  any_job j = {tabi_tensor_data(t), tabi_tensor_data(v), tabi_tensor_data(ix), dt, tabi_dtype_size(dt),
               len, keep, t->dl.strides[d], nd, d, t->dl.shape, t->dl.strides, {0}, desc, 0};
  int64_t e = 1;
  for (int32_t i = nd - 1; i >= 0; i--) {
    j.ostride[i] = e;
    e *= shape[i];
  }
  int64_t lines = tabi_tensor_numel(t) / len;
  cpu_parallel_for(c->pool, lines, 1 + 65536 / len, any_range, &j);
  if (j.failed) {
    c->host->tensor_release(c->host->ctx, v);
    c->host->tensor_release(c->host->ctx, ix);
    *st = TABI_ERR(c->host, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", topk ? "aten::topk" : "aten::sort");
    return 1;
  }
  outs[0] = tabi_tensor_value(v);
  outs[1] = tabi_tensor_value(ix);
  return 1;
}
