/* plugins/cpu/cpu_sort.c: sort and topk of contiguous float32 along the last
 * dim, by LSD radix sort.
 *
 * Each element becomes a 64-bit word: an order-preserving 32-bit key in the
 * high half (NaN canonicalised to the largest, -0.0 equal to +0.0, bits
 * inverted for descending order) and its position in the low half. Sorting the
 * high halves with a stable radix sort keeps equal keys in input order, which
 * is the reference's stable order exactly; values are then gathered from the
 * input by position, so NaN payloads and the sign of zero come through.
 * topk first finds, from a 16-bit histogram of the keys, the bucket holding
 * the k-th key, and sorts only the candidates at or below it.
 * Rows are sorted in parallel, one row per task. Other dtypes, dims and
 * layouts: cpu_sort_any.c.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "cpu_sort.h"

/* Stable LSD radix sort of w[0..n) by bits 32..63; tmp has room for n. */
static void radix_hi(uint64_t *w, uint64_t *tmp, int64_t n) {
  uint64_t *a = w, *b = tmp;
  for (int shift = 32; shift < 64; shift += 8) {
    int64_t cnt[256];
    memset(cnt, 0, sizeof cnt);
    for (int64_t i = 0; i < n; i++) cnt[(a[i] >> shift) & 0xff]++;
    int skip = 0;
    for (int d = 0; d < 256; d++) if (cnt[d] == n) skip = 1;
    if (skip) continue;
    int64_t sum = 0;
    for (int d = 0; d < 256; d++) { int64_t t = cnt[d]; cnt[d] = sum; sum += t; }
    for (int64_t i = 0; i < n; i++) b[cnt[(a[i] >> shift) & 0xff]++] = a[i];
    uint64_t *t = a; a = b; b = t;
  }
  if (a != w) memcpy(w, a, sizeof(uint64_t) * (size_t)n);
}

typedef struct sort_job {
  const uint32_t *x;
  float *vals;
  int64_t *idx;
  int64_t len, k;
  int desc;
  int topk;
  int failed;
} sort_job;

static void sort_row(const sort_job *j, const uint32_t *x, float *vals, int64_t *idx,
                     uint64_t *w, uint64_t *tmp) {
  int64_t n = j->len, m = 0;
  if (!j->topk || j->k >= n) {
    for (int64_t i = 0; i < n; i++) w[i] = ((uint64_t)cpu_f32_sort_key(x[i], j->desc) << 32) | (uint64_t)i;
    m = n;
  } else {
    /* Bucket of the k-th smallest key by its top 16 bits, then the candidates. */
    int64_t *hist = calloc(65536, sizeof(int64_t));
    if (!hist) { ((sort_job *)j)->failed = 1; return; }
    for (int64_t i = 0; i < n; i++) hist[cpu_f32_sort_key(x[i], j->desc) >> 16]++;
    int64_t sum = 0;
    uint32_t t = 0;
    for (; t < 65536; t++) { sum += hist[t]; if (sum >= j->k) break; }
    free(hist);
    for (int64_t i = 0; i < n; i++) {
      uint32_t key = cpu_f32_sort_key(x[i], j->desc);
      w[m] = ((uint64_t)key << 32) | (uint64_t)i; /* branch-free: m <= i < n */
      m += (key >> 16) <= t;
    }
  }
  radix_hi(w, tmp, m);
  int64_t keep = j->topk ? j->k : n;
  for (int64_t i = 0; i < keep; i++) {
    uint32_t p = (uint32_t)w[i];
    memcpy(&vals[i], &x[p], 4);
    idx[i] = p;
  }
}

/* --- topk of a few long rows: the selection split over threads ------------------
 * With fewer rows than threads, one row is split into P parts, all in one
 * parallel region. Any key among the row's k smallest is among its own part's
 * k smallest, so each part alone finds (from its own 16-bit histogram) the
 * bucket of its k-th key and collects its keys up to that bucket, in index
 * order, at its own offset (at most its length of them). The parts' candidates
 * are joined in part order, so they are in index order and hold the row's k
 * smallest keys: the stable radix sort of them gives exactly the serial result. */
typedef struct topk_par {
  const sort_job *j;
  const uint32_t *x;
  uint64_t *w;
  int64_t n, parts, m[64];
  int failed;
} topk_par;

static void topk_part(void *arg, int64_t b, int64_t e) {
  topk_par *q = arg;
  uint32_t *h = malloc(65536 * sizeof *h);
  if (!h) { __atomic_store_n(&q->failed, 1, __ATOMIC_RELAXED); return; }
  int desc = q->j->desc;
  for (int64_t p = b; p < e; p++) {
    int64_t lo = q->n * p / q->parts, hi = q->n * (p + 1) / q->parts, m = lo, sum = 0;
    memset(h, 0, 65536 * sizeof *h);
    for (int64_t i = lo; i < hi; i++) h[cpu_f32_sort_key(q->x[i], desc) >> 16]++;
    uint32_t t = 0;
    for (; t < 65535; t++) { sum += h[t]; if (sum >= q->j->k) break; }
    for (int64_t i = lo; i < hi; i++) {
      uint32_t key = cpu_f32_sort_key(q->x[i], desc);
      q->w[m] = ((uint64_t)key << 32) | (uint64_t)i; /* branch-free: m <= i < hi */
      m += (key >> 16) <= t;
    }
    q->m[p] = m - lo;
  }
  free(h);
}

/* One row of topk with the selection threaded; 0 when out of memory. */
static int topk_row_par(const cpu_ctx *c, const sort_job *j, const uint32_t *x, float *vals,
                        int64_t *idx, uint64_t *w, uint64_t *tmp, int64_t parts) {
  topk_par q;
  memset(&q, 0, sizeof q);
  q.j = j; q.x = x; q.w = w; q.n = j->len; q.parts = parts;
  cpu_parallel_for(c->pool, parts, 1, topk_part, &q);
  if (q.failed) return 0;
  int64_t m = 0;
  for (int64_t p = 0; p < parts; p++) {
    int64_t lo = q.n * p / parts;
    if (m != lo) memmove(w + m, w + lo, sizeof(uint64_t) * (size_t)q.m[p]);
    m += q.m[p];
  }
  radix_hi(w, tmp, m);
  for (int64_t i = 0; i < j->k; i++) {
    uint32_t p = (uint32_t)w[i];
    memcpy(&vals[i], &x[p], 4);
    idx[i] = p;
  }
  return 1;
}

static void sort_range(void *arg, int64_t b, int64_t e) {
  sort_job *j = arg;
  uint64_t *w = malloc(sizeof(uint64_t) * 2 * (size_t)j->len);
  if (!w) { j->failed = 1; return; }
  int64_t keep = j->topk ? j->k : j->len;
  for (int64_t r = b; r < e; r++)
    sort_row(j, j->x + r * j->len, j->vals + r * keep, j->idx + r * keep, w, w + j->len);
  free(w);
}

static tabi_status sort_run(const cpu_ctx *c, const tabi_tensor *t, int64_t k, int desc, int topk,
                            tabi_value *outs) {
  int32_t nd = t->dl.ndim;
  int64_t shape[16];
  for (int32_t d = 0; d < nd; d++) shape[d] = t->dl.shape[d];
  shape[nd - 1] = k;
  tabi_tensor *v = NULL, *ix = NULL;
  tabi_status st = cpu_empty(c, t, TABI_DTYPE_FLOAT32, nd, shape, &v);
  if (st == TABI_OK) st = cpu_empty(c, t, TABI_DTYPE_INT64, nd, shape, &ix);
  if (st != TABI_OK) {
    c->host->tensor_release(c->host->ctx, v);
    return st;
  }
  int64_t len = t->dl.shape[nd - 1];
  sort_job j = {tabi_tensor_data(t), tabi_tensor_data(v), tabi_tensor_data(ix), len, k, desc, topk, 0};
  int64_t rows = tabi_tensor_numel(t) / len, parts = cpu_pool_threads(c->pool);
  if (parts > 64) parts = 64;
  if (k > 0 && topk && k < len && len >= 262144 && parts > 1 && rows < parts) {
    uint64_t *w = malloc(sizeof(uint64_t) * 2 * (size_t)len);
    for (int64_t r = 0; w && r < rows && !j.failed; r++)
      j.failed = !topk_row_par(c, &j, j.x + r * len, j.vals + r * k, j.idx + r * k, w, w + len,
                               parts);
    if (!w) j.failed = 1;
    free(w);
  } else if (k > 0) {
    cpu_parallel_for(c->pool, rows, 1 + 65536 / len, sort_range, &j);
  }
  if (j.failed) {
    c->host->tensor_release(c->host->ctx, v);
    c->host->tensor_release(c->host->ctx, ix);
    return TABI_ERR(c->host, TABI_ERR_OUT_OF_MEMORY, "aten::sort: out of memory");
  }
  outs[0] = tabi_tensor_value(v);
  outs[1] = tabi_tensor_value(ix);
  return TABI_OK;
}

static int sort_input_ok(const tabi_tensor *t, int64_t dim) {
  return tabi_tensor_dtype(t) == TABI_DTYPE_FLOAT32 && cpu_contig(t) && t->dl.ndim >= 1 &&
         t->dl.ndim <= 16 && cpu_wrap_dim(dim, t->dl.ndim) == t->dl.ndim - 1 &&
         tabi_tensor_numel(t) > 0 && t->dl.shape[t->dl.ndim - 1] < ((int64_t)1 << 32);
}

tabi_status cpu_k_sort(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_INT || args[2].tag != TABI_TAG_BOOL)
    return CPU_FALLBACK(c, SORT);
  tabi_status st = TABI_OK;
  if (!sort_input_ok(args[0].u.t, args[1].u.i))
    return cpu_sort_any(c, args[0].u.t, args[1].u.i, 0, (int)args[2].u.i, 0, outs, &st) ? st
                                                                                        : CPU_FALLBACK(c, SORT);
  const tabi_tensor *t = args[0].u.t;
  return sort_run(c, t, t->dl.shape[t->dl.ndim - 1], (int)args[2].u.i, 0, outs);
}

tabi_status cpu_k_topk(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_INT ||
      args[2].tag != TABI_TAG_INT || args[3].tag != TABI_TAG_BOOL)
    return CPU_FALLBACK(c, TOPK);
  tabi_status st = TABI_OK;
  if (!sort_input_ok(args[0].u.t, args[2].u.i))
    return cpu_sort_any(c, args[0].u.t, args[2].u.i, args[1].u.i, (int)args[3].u.i, 1, outs, &st)
               ? st
               : CPU_FALLBACK(c, TOPK);
  const tabi_tensor *t = args[0].u.t;
  int64_t k = args[1].u.i;
  if (k < 0 || k > t->dl.shape[t->dl.ndim - 1]) return CPU_FALLBACK(c, TOPK);
  /* largest=True is descending order; the reference returns sorted order either way. */
  return sort_run(c, t, k, (int)args[3].u.i, 1, outs);
}
