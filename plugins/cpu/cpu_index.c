/* plugins/cpu/cpu_index.c: index_select, gather, scatter_add and embedding for
 * contiguous tensors with int64 (index_select, embedding: also int32) indices.
 *
 * Indices are bounds-checked first; any bad index (or any layout or dtype the
 * fast path does not take) goes to the reference kernel, which reports it.
 * scatter_add takes float32 (rounded at every add: within tolerance of the
 * reference's double sum), float64 and int32/int64 (the reference's bits).
 * It is parallel over "lanes" (every coordinate except `dim`): two
 * lanes never write one output element, and each lane adds in index order, so
 * the result is the same at every thread count.
 */
#include <string.h>

#include "cpu.h"

#define IDX_MAX_DIMS 16

static int idx_in_bounds(const tabi_tensor *index, int64_t size) {
  const int64_t *p = tabi_tensor_data(index);
  int64_t n = tabi_tensor_numel(index), bad = 0;
  for (int64_t i = 0; i < n; i++) bad |= (p[i] < 0) | (p[i] >= size);
  return !bad;
}

/* --- index_select ---------------------------------------------------------------- */

typedef struct isel_job {
  const char *src;
  char *dst;
  const void *idx;
  int idx64;
  int64_t n, size, inner; /* inner in bytes */
} isel_job;

/* Rows are fetched from random places: the row a few indices ahead is
 * prefetched so that several cache misses are in flight at once, and the
 * common row sizes are copied with constant-size copies (inlined vector moves,
 * not a memcpy call per row). */
#define ISEL_AHEAD 16

static inline int64_t isel_idx(const isel_job *j, int64_t k) {
  return j->idx64 ? ((const int64_t *)j->idx)[k] : ((const int32_t *)j->idx)[k];
}

/* The loop for one row size; `rb` is a constant at every call below, so the
 * copy is inlined. */
static inline __attribute__((always_inline)) void isel_rows(const isel_job *j, int64_t b,
                                                            int64_t e, int64_t rb) {
  int64_t o = b / j->n, k = b % j->n; /* advanced, not divided, per row */
  for (int64_t r = b; r < e; r++) {
    const char *base = j->src + o * j->size * rb;
    if (k + ISEL_AHEAD < j->n) __builtin_prefetch(base + isel_idx(j, k + ISEL_AHEAD) * rb, 0, 0);
    memcpy(j->dst + r * rb, base + isel_idx(j, k) * rb, (size_t)rb);
    if (++k == j->n) { k = 0; o++; }
  }
}

static void isel_range(void *arg, int64_t b, int64_t e) {
  const isel_job *j = arg;
  switch (j->inner) {
    case 4: isel_rows(j, b, e, 4); break;
    case 8: isel_rows(j, b, e, 8); break;
    case 16: isel_rows(j, b, e, 16); break;
    case 32: isel_rows(j, b, e, 32); break;
    case 64: isel_rows(j, b, e, 64); break;
    default: isel_rows(j, b, e, j->inner); break;
  }
}

/* Index bounds, checked in parallel chunks (branch-free, vectorizable); any
 * chunk with a bad index sets `bad` (then the reference reports it). */
typedef struct ichk_job {
  const void *idx;
  int idx64;
  int64_t size;
  int bad;
} ichk_job;

static void ichk_range(void *arg, int64_t b, int64_t e) {
  ichk_job *j = arg;
  uint64_t bad = 0, size = (uint64_t)j->size;
  if (j->idx64) {
    const int64_t *p = j->idx;
    for (int64_t i = b; i < e; i++) bad |= (uint64_t)p[i] >= size; /* negatives wrap high */
  } else {
    const int32_t *p = j->idx;
    for (int64_t i = b; i < e; i++) bad |= (uint64_t)(int64_t)p[i] >= size;
  }
  if (bad) __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
}

static int idx_check(const cpu_ctx *c, const void *idx, int idx64, int64_t n, int64_t size) {
  ichk_job j = {idx, idx64, size, 0};
  cpu_parallel_for(c->pool, n, 65536, ichk_range, &j);
  return !__atomic_load_n(&j.bad, __ATOMIC_RELAXED);
}

tabi_status cpu_k_index_select(void *ctx, const tabi_call *call, tabi_value *args,
                               tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[2].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, INDEX_SELECT);
  const tabi_tensor *self = args[0].u.t, *index = args[2].u.t;
  tabi_dtype it = tabi_tensor_dtype(index), dt = tabi_tensor_dtype(self);
  int32_t nd = self->dl.ndim, dim = cpu_wrap_dim(args[1].u.i, nd);
  if (nd < 1 || nd > IDX_MAX_DIMS || dim < 0 || index->dl.ndim != 1 || !cpu_contig(self) ||
      !cpu_contig(index) || tabi_dtype_size(dt) == 0 ||
      (it != TABI_DTYPE_INT64 && it != TABI_DTYPE_INT32))
    return CPU_FALLBACK(c, INDEX_SELECT);
  int64_t n = index->dl.shape[0], size = self->dl.shape[dim], outer = 1, inner = tabi_dtype_size(dt);
  for (int32_t d = 0; d < dim; d++) outer *= self->dl.shape[d];
  for (int32_t d = dim + 1; d < nd; d++) inner *= self->dl.shape[d];
  const void *ip = tabi_tensor_data(index);
  if (!idx_check(c, ip, it == TABI_DTYPE_INT64, n, size)) return CPU_FALLBACK(c, INDEX_SELECT);
  int64_t shape[IDX_MAX_DIMS];
  for (int32_t d = 0; d < nd; d++) shape[d] = d == dim ? n : self->dl.shape[d];
  tabi_tensor *o = NULL;
  tabi_status st = cpu_empty(c, self, dt, nd, shape, &o);
  if (st != TABI_OK) return st;
  isel_job j = {tabi_tensor_data(self), tabi_tensor_data(o), ip, it == TABI_DTYPE_INT64, n, size,
                inner};
  if (inner > 0) cpu_parallel_for(c->pool, outer * n, 1 + 65536 / inner, isel_range, &j);
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

/* --- gather and scatter_add: lanes over every dim but `dim` ------------------------ */

typedef struct lane_job {
  int32_t nd, dim;
  const int64_t *ishape;      /* index shape */
  int64_t istr[IDX_MAX_DIMS]; /* contiguous strides of index (and gather's output) */
  const int64_t *sstr;        /* self strides (gather source / scatter destination) */
  const int64_t *xstr;        /* scatter: src strides */
  const int64_t *idx;
  const char *src;
  char *dst;
  int64_t esize;
  int scatter;
  tabi_dtype dt; /* scatter_add: float32/float64 add in the dtype, int32/int64 wrap */
} lane_job;

/* dst[i] += src[k] in dtype dt: floats round at every add (float32's sum of two
 * floats is the double sum rounded, float64's is the reference's own add),
 * integers wrap as the reference's int64 arithmetic does when stored. */
static inline void add_at(tabi_dtype dt, char *dst, int64_t i, const char *src, int64_t k) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: ((float *)(void *)dst)[i] += ((const float *)(const void *)src)[k]; break;
    case TABI_DTYPE_FLOAT64: ((double *)(void *)dst)[i] += ((const double *)(const void *)src)[k]; break;
    case TABI_DTYPE_INT64: {
      uint64_t *d = (uint64_t *)(void *)dst;
      d[i] += ((const uint64_t *)(const void *)src)[k];
      break;
    }
    default: { /* int32 */
      uint32_t *d = (uint32_t *)(void *)dst;
      d[i] += ((const uint32_t *)(const void *)src)[k];
      break;
    }
  }
}

/* The lane r (row-major over index's shape with dim taken out) as offsets. */
static void lane_offsets(const lane_job *j, int64_t r, int64_t *ioff, int64_t *soff, int64_t *xoff) {
  *ioff = *soff = *xoff = 0;
  for (int32_t d = j->nd - 1; d >= 0; d--) {
    if (d == j->dim) continue;
    int64_t c = r % j->ishape[d];
    r /= j->ishape[d];
    *ioff += c * j->istr[d];
    *soff += c * j->sstr[d];
    if (j->xstr) *xoff += c * j->xstr[d];
  }
}

static void lane_range(void *arg, int64_t b, int64_t e) {
  const lane_job *j = arg;
  int64_t len = j->ishape[j->dim], is = j->istr[j->dim], ss = j->sstr[j->dim];
  for (int64_t r = b; r < e; r++) {
    int64_t io, so, xo;
    lane_offsets(j, r, &io, &so, &xo);
    if (j->scatter && j->dt == TABI_DTYPE_FLOAT32) {
      float *dst = (float *)(void *)j->dst;
      const float *src = (const float *)(const void *)j->src;
      int64_t xs = j->xstr[j->dim];
      for (int64_t k = 0; k < len; k++) dst[so + j->idx[io + k * is] * ss] += src[xo + k * xs];
    } else if (j->scatter) {
      int64_t xs = j->xstr[j->dim];
      for (int64_t k = 0; k < len; k++) add_at(j->dt, j->dst, so + j->idx[io + k * is] * ss, j->src, xo + k * xs);
    } else if (j->esize == 4) {
      const uint32_t *s = (const uint32_t *)(const void *)j->src;
      uint32_t *d = (uint32_t *)(void *)j->dst;
      for (int64_t k = 0; k < len; k++) d[io + k * is] = s[so + j->idx[io + k * is] * ss];
    } else {
      for (int64_t k = 0; k < len; k++)
        memcpy(j->dst + (io + k * is) * j->esize, j->src + (so + j->idx[io + k * is] * ss) * j->esize,
               (size_t)j->esize);
    }
  }
}

static int lane_shapes_ok(const tabi_tensor *index, const tabi_tensor *self, int32_t dim,
                          const tabi_tensor *src) {
  if (index->dl.ndim != self->dl.ndim) return 0;
  for (int32_t d = 0; d < self->dl.ndim; d++) {
    if (d != dim && index->dl.shape[d] > self->dl.shape[d]) return 0;
    if (src && index->dl.shape[d] > src->dl.shape[d]) return 0;
  }
  return 1;
}

static void lane_setup(lane_job *j, const tabi_tensor *index, int32_t dim) {
  j->nd = index->dl.ndim;
  j->dim = dim;
  j->ishape = index->dl.shape;
  int64_t e = 1;
  for (int32_t d = j->nd - 1; d >= 0; d--) { j->istr[d] = e; e *= index->dl.shape[d]; }
  j->idx = tabi_tensor_data(index);
}

/* --- gather and scatter_add along dim 0, by rows -----------------------------------
 * When dim is 0 and index has self's (and src's) trailing shape, element (i, j)
 * of the flattened [L, W] index reads or writes self row idx[i, j], column j.
 * Walking index row by row keeps index, src and output sequential (the lane
 * walk above strides by W through them) and lets the source (or destination)
 * element a few rows ahead be prefetched, so many random misses overlap.
 * gather splits rows over threads. scatter_add splits columns: each thread
 * still visits rows in increasing i, so every output element receives its
 * additions in index order, the same order as the lane walk: bitwise the same
 * result at every thread count. */
#define ROW_AHEAD 32 /* elements */

typedef struct row_job {
  const int64_t *idx;
  const char *src;
  char *dst;
  int64_t L, W, esize;
  tabi_dtype dt; /* scatter_add */
} row_job;

static inline __attribute__((always_inline)) void gather_rows_es(const row_job *j, int64_t b,
                                                                 int64_t e, int64_t es) {
  int64_t W = j->W, fe = e * W, jp = ROW_AHEAD % W, f = b * W;
  int64_t stop = fe - ROW_AHEAD; /* no prefetch past the range (the index is read) */
  for (int64_t i = b; i < e; i++) {
    const int64_t *ix = j->idx + i * W;
    char *d = j->dst + i * W * es;
    for (int64_t c = 0; c < W; c++, f++) {
      if (f < stop) {
        __builtin_prefetch(j->src + (j->idx[f + ROW_AHEAD] * W + jp) * es, 0, 0);
        if (++jp == W) jp = 0;
      }
      memcpy(d + c * es, j->src + (ix[c] * W + c) * es, (size_t)es);
    }
  }
}

static void gather_rows(void *arg, int64_t b, int64_t e) {
  const row_job *j = arg;
  switch (j->esize) {
    case 4: gather_rows_es(j, b, e, 4); break;
    case 8: gather_rows_es(j, b, e, 8); break;
    default: gather_rows_es(j, b, e, j->esize); break;
  }
}

static void scatter_rows(void *arg, int64_t c0, int64_t c1) {
  const row_job *j = arg;
  int64_t W = j->W, n = c1 - c0, ahead = 1 + (ROW_AHEAD - 1) / n; /* rows */
  float *dst = (float *)(void *)j->dst;
  const float *src = (const float *)(const void *)j->src;
  for (int64_t i = 0; i < j->L; i++) {
    const int64_t *ix = j->idx + i * W;
    if (i + ahead < j->L) {
      const int64_t *px = ix + ahead * W;
      for (int64_t c = c0; c < c1; c++) __builtin_prefetch(dst + px[c] * W + c, 1, 0);
    }
    if (j->dt == TABI_DTYPE_FLOAT32) {
      const float *x = src + i * W;
      for (int64_t c = c0; c < c1; c++) dst[ix[c] * W + c] += x[c];
    } else {
      for (int64_t c = c0; c < c1; c++) add_at(j->dt, j->dst, ix[c] * W + c, j->src, i * W + c);
    }
  }
}

/* dim 0, and index's trailing shape is self's (and src's). */
static int rows_ok(const tabi_tensor *index, const tabi_tensor *self, int32_t dim,
                   const tabi_tensor *src) {
  if (dim != 0) return 0;
  for (int32_t d = 1; d < index->dl.ndim; d++)
    if (index->dl.shape[d] != self->dl.shape[d] || (src && index->dl.shape[d] != src->dl.shape[d]))
      return 0;
  return 1;
}

tabi_status cpu_k_gather(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[2].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, GATHER);
  const tabi_tensor *self = args[0].u.t, *index = args[2].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self);
  int32_t nd = self->dl.ndim, dim = cpu_wrap_dim(args[1].u.i, nd);
  if (nd < 1 || nd > IDX_MAX_DIMS || dim < 0 || tabi_tensor_dtype(index) != TABI_DTYPE_INT64 ||
      !cpu_contig(self) || !cpu_contig(index) || tabi_dtype_size(dt) == 0 ||
      tabi_tensor_numel(index) == 0 || !lane_shapes_ok(index, self, dim, NULL) ||
      !idx_in_bounds(index, self->dl.shape[dim]))
    return CPU_FALLBACK(c, GATHER);
  tabi_tensor *o = NULL;
  tabi_status st = cpu_empty(c, self, dt, nd, index->dl.shape, &o);
  if (st != TABI_OK) return st;
  int64_t L = index->dl.shape[0], W = L ? tabi_tensor_numel(index) / L : 0;
  if (rows_ok(index, self, dim, NULL) && W > 0) {
    row_job rj = {tabi_tensor_data(index), tabi_tensor_data(self), tabi_tensor_data(o), L, W,
                  tabi_dtype_size(dt), dt};
    cpu_parallel_for(c->pool, L, 1 + 16384 / W, gather_rows, &rj);
    outs[0] = tabi_tensor_value(o);
    return TABI_OK;
  }
  lane_job j;
  memset(&j, 0, sizeof j);
  lane_setup(&j, index, dim);
  j.sstr = self->dl.strides;
  j.src = tabi_tensor_data(self);
  j.dst = tabi_tensor_data(o);
  j.esize = tabi_dtype_size(dt);
  int64_t lanes = tabi_tensor_numel(index) / index->dl.shape[dim];
  cpu_parallel_for(c->pool, lanes, 1 + 16384 / index->dl.shape[dim], lane_range, &j);
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

tabi_status cpu_k_scatter_add(void *ctx, const tabi_call *call, tabi_value *args,
                              tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[2].tag != TABI_TAG_TENSOR ||
      args[3].tag != TABI_TAG_TENSOR)
    return CPU_FALLBACK(c, SCATTER_ADD);
  const tabi_tensor *self = args[0].u.t, *index = args[2].u.t, *src = args[3].u.t;
  int32_t nd = self->dl.ndim, dim = cpu_wrap_dim(args[1].u.i, nd);
  tabi_dtype dt = tabi_tensor_dtype(self);
  int dt_ok = dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_FLOAT64 || dt == TABI_DTYPE_INT64 ||
              dt == TABI_DTYPE_INT32;
  if (nd < 1 || nd > IDX_MAX_DIMS || dim < 0 || !dt_ok ||
      tabi_tensor_dtype(src) != dt || tabi_tensor_dtype(index) != TABI_DTYPE_INT64 ||
      !cpu_contig(self) || !cpu_contig(index) || !cpu_contig(src) || src->dl.ndim != nd ||
      tabi_tensor_numel(index) == 0 || !lane_shapes_ok(index, self, dim, src) ||
      !idx_in_bounds(index, self->dl.shape[dim]))
    return CPU_FALLBACK(c, SCATTER_ADD);
  tabi_tensor *o = NULL;
  tabi_status st = cpu_empty(c, self, dt, nd, self->dl.shape, &o);
  if (st != TABI_OK) return st;
  int64_t es = tabi_dtype_size(dt);
  memcpy(tabi_tensor_data(o), tabi_tensor_data(self), (size_t)(tabi_tensor_numel(self) * es));
  int64_t L = index->dl.shape[0], W = L ? tabi_tensor_numel(index) / L : 0;
  if (rows_ok(index, self, dim, src) && W > 0) {
    row_job rj = {tabi_tensor_data(index), tabi_tensor_data(src), tabi_tensor_data(o), L, W, es, dt};
    cpu_parallel_for(c->pool, W, 1 + 16384 / L, scatter_rows, &rj);
    outs[0] = tabi_tensor_value(o);
    return TABI_OK;
  }
  lane_job j;
  memset(&j, 0, sizeof j);
  lane_setup(&j, index, dim);
  j.sstr = o->dl.strides;
  j.xstr = src->dl.strides;
  j.src = tabi_tensor_data(src);
  j.dst = tabi_tensor_data(o);
  j.esize = es;
  j.scatter = 1;
  j.dt = dt;
  int64_t lanes = tabi_tensor_numel(index) / index->dl.shape[dim];
  cpu_parallel_for(c->pool, lanes, 1 + 16384 / index->dl.shape[dim], lane_range, &j);
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

/* --- embedding -------------------------------------------------------------------
 * Rows of a contiguous 2-d weight (any dtype: bytes are copied) picked by
 * contiguous int64/int32 indices of any shape, every index in range (else the
 * reference reports it); one output row per task. */
typedef struct emb_job {
  const char *w;
  const void *idx;
  int is64;
  char *out;
  int64_t row_bytes;
} emb_job;

static void emb_range(void *arg, int64_t b, int64_t e) {
  const emb_job *j = arg;
  for (int64_t i = b; i < e; i++) {
    int64_t v = j->is64 ? ((const int64_t *)j->idx)[i] : ((const int32_t *)j->idx)[i];
    memcpy(j->out + i * j->row_bytes, j->w + v * j->row_bytes, (size_t)j->row_bytes);
  }
}

tabi_status cpu_k_embedding(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, EMBEDDING);
  const tabi_tensor *w = args[0].u.t, *ind = args[1].u.t;
  tabi_dtype it = tabi_tensor_dtype(ind);
  if (w->dl.ndim != 2 || !cpu_contig(w) || !cpu_contig(ind) || ind->dl.ndim + 1 > 16 ||
      (it != TABI_DTYPE_INT64 && it != TABI_DTYPE_INT32) || w->dl.shape[1] < 1)
    return CPU_FALLBACK(c, EMBEDDING);
  int64_t ni = tabi_tensor_numel(ind), vocab = w->dl.shape[0], bad = 0;
  if (it == TABI_DTYPE_INT64) {
    if (!idx_in_bounds(ind, vocab)) bad = 1;
  } else {
    const int32_t *p = tabi_tensor_data(ind);
    for (int64_t i = 0; i < ni; i++) bad |= (p[i] < 0) | ((int64_t)p[i] >= vocab);
  }
  if (bad) return CPU_FALLBACK(c, EMBEDDING);
  int64_t shape[16];
  for (int32_t i = 0; i < ind->dl.ndim; i++) shape[i] = ind->dl.shape[i];
  shape[ind->dl.ndim] = w->dl.shape[1];
  tabi_tensor *o = NULL;
  tabi_status st = cpu_empty(c, w, tabi_tensor_dtype(w), ind->dl.ndim + 1, shape, &o);
  if (st != TABI_OK) return st;
  emb_job j = {tabi_tensor_data(w), tabi_tensor_data(ind), it == TABI_DTYPE_INT64,
               tabi_tensor_data(o), w->dl.shape[1] * tabi_dtype_size(tabi_tensor_dtype(w))};
  cpu_parallel_for(c->pool, ni, 1 + 65536 / j.row_bytes, emb_range, &j);
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}
