/* plugins/cpu/cpu_idx_adv.c: advanced indexing, aten::index.Tensor and
 * aten::index_put (accumulate false and true).
 *
 * The result of x[..., i0, i1, ...] has the shape [pre, B, post]: `pre` the
 * non-indexed dims before the (adjacent) indexed ones, B the broadcast shape of
 * the int32/int64 index tensors, `post` the rest (when a slice separates the
 * indexed dims, pre is empty and every non-indexed dim is post, as ATen does).
 * One pass over the broadcast indices turns each b < B into one element offset
 * (negatives wrapped, range checked: a bad index sends the call to the
 * reference, which reports it); the copy then moves one [post] block per
 * (p, b), any strides on either side.
 *
 * index_put writes into a contiguous clone of self. Two writes meet only when
 * their indexed offsets are equal, so tasks own ranges of that offset (or, with
 * many pre rows, whole pre rows) and walk (p, b) in row-major order: the last
 * write wins and accumulation adds in the reference's order at every thread
 * count. Masks (bool/uint8) become int64 index tensors first (cpu_idx_mask.c);
 * complex accumulation, 0-d or strided masks and empty results go to the
 * reference.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_idx.h"

#define MD CPU_IDX_MAX_DIMS

typedef struct adv_plan {
  int32_t nd;
  const tabi_tensor *idx[MD]; /* per self dim: an int32/int64 index tensor or NULL */
  int32_t bnd;
  int64_t bshape[MD], B;
  int32_t first;              /* result position of the broadcast dims */
  int32_t npre, npost;
  int32_t pre[MD], post[MD];  /* self dims in each group, in result order */
  int64_t P, Q;
  int32_t rnd;
  int64_t rshape[MD];
} adv_plan;

/* The plan of the fast path; 0 when the call is not one it takes. */
static int adv_build(const tabi_tensor *self, const tabi_value *indices, adv_plan *p) {
  memset(p, 0, sizeof *p);
  int32_t nd = self->dl.ndim;
  if (indices->tag != TABI_TAG_TENSOR_LIST || nd < 1 || nd > MD) return 0;
  int64_t n = indices->u.list.len;
  if (n < 1 || n > nd) return 0;
  tabi_tensor *const *list = tabi_value_tensors(indices);
  p->nd = nd;
  int32_t lo = -1, hi = -1;
  for (int32_t k = 0; k < n; k++) {
    const tabi_tensor *t = list[k];
    if (!t) continue;
    tabi_dtype dt = tabi_tensor_dtype(t);
    if ((dt != TABI_DTYPE_INT64 && dt != TABI_DTYPE_INT32) || t->dl.ndim > MD) return 0;
    p->idx[k] = t;
    if (lo < 0) lo = k;
    hi = k;
    /* broadcast into bshape (right-aligned) */
    int32_t tn = t->dl.ndim;
    if (tn > p->bnd) {
      memmove(p->bshape + (tn - p->bnd), p->bshape, sizeof(int64_t) * (size_t)p->bnd);
      for (int32_t j = 0; j < tn - p->bnd; j++) p->bshape[j] = 1;
      p->bnd = tn;
    }
    for (int32_t j = 0; j < tn; j++) {
      int64_t s = t->dl.shape[j], *b = &p->bshape[p->bnd - tn + j];
      if (s == *b || s == 1) continue;
      if (*b != 1) return 0; /* does not broadcast: the reference says so */
      *b = s;
    }
  }
  if (lo < 0) return 0;
  int adjacent = 1;
  for (int32_t d = lo; d <= hi; d++)
    if (!p->idx[d]) adjacent = 0;
  p->first = adjacent ? lo : 0;
  p->B = 1;
  for (int32_t j = 0; j < p->bnd; j++) p->B *= p->bshape[j];
  p->P = p->Q = 1;
  int32_t r = 0;
  for (int32_t d = 0; d < p->first; d++) {
    p->pre[p->npre++] = d;
    p->P *= self->dl.shape[d];
    p->rshape[r++] = self->dl.shape[d];
  }
  for (int32_t j = 0; j < p->bnd; j++) p->rshape[r++] = p->bshape[j];
  for (int32_t d = p->first; d < nd; d++) {
    if (p->idx[d]) continue;
    if (r >= MD) return 0;
    p->post[p->npost++] = d;
    p->Q *= self->dl.shape[d];
    p->rshape[r++] = self->dl.shape[d];
  }
  p->rnd = r;
  return p->P > 0 && p->B > 0 && p->Q > 0 && r <= MD;
}

/* --- broadcast indices -> element offsets --------------------------------------- */

typedef struct off_job {
  const adv_plan *p;
  const int64_t *shape, *strides; /* of the tensor the offsets are for */
  int32_t nk;
  const char *ip[MD];
  int is64[MD];
  int64_t bst[MD][MD]; /* each index tensor's element strides over bshape (0: broadcast) */
  int64_t size[MD], stride[MD];
  int64_t *off;
  int bad;
} off_job;

static void off_range(void *arg, int64_t b0, int64_t b1) {
  off_job *j = arg;
  const adv_plan *p = j->p;
  if (j->nk == 1 && p->bnd == 1) { /* one 1-d index tensor: a plain loop */
    uint64_t bad = 0, sz = (uint64_t)j->size[0];
    int64_t st = j->bst[0][0], stride = j->stride[0];
    for (int64_t b = b0; b < b1; b++) {
      int64_t v = cpu_idx_load(j->ip[0], j->is64[0], b * st);
      v += v < 0 ? (int64_t)sz : 0;
      int out = (uint64_t)v >= sz;
      bad |= (uint64_t)out;
      j->off[b] = (out ? 0 : v) * stride; /* no overflow from a wild index */
    }
    if (bad) __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
    return;
  }
  int64_t coord[MD], io[MD] = {0}, q = b0;
  for (int32_t d = p->bnd - 1; d >= 0; d--) {
    coord[d] = q % p->bshape[d];
    q /= p->bshape[d];
    for (int32_t k = 0; k < j->nk; k++) io[k] += coord[d] * j->bst[k][d];
  }
  int bad = 0;
  for (int64_t b = b0; b < b1; b++) {
    int64_t o = 0;
    for (int32_t k = 0; k < j->nk; k++) {
      int64_t v = cpu_idx_load(j->ip[k], j->is64[k], io[k]), sz = j->size[k];
      v += v < 0 ? sz : 0;
      int out = (uint64_t)v >= (uint64_t)sz; /* negatives (after the wrap) are out */
      bad |= out;
      o += (out ? 0 : v) * j->stride[k];
    }
    j->off[b] = o;
    for (int32_t d = p->bnd - 1; d >= 0; d--) {
      for (int32_t k = 0; k < j->nk; k++) io[k] += j->bst[k][d];
      if (++coord[d] < p->bshape[d]) break;
      for (int32_t k = 0; k < j->nk; k++) io[k] -= j->bst[k][d] * p->bshape[d];
      coord[d] = 0;
    }
  }
  if (bad) __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
}

/* off[b] for every b < B, in elements of a tensor with `strides` and self's
 * shape; 0 when an index is out of range. */
static int adv_offsets(const cpu_ctx *c, const adv_plan *p, const int64_t *shape, const int64_t *strides,
                       int64_t *off) {
  off_job j;
  memset(&j, 0, sizeof j);
  j.p = p;
  for (int32_t d = 0; d < p->nd; d++) {
    const tabi_tensor *t = p->idx[d];
    if (!t) continue;
    int32_t k = j.nk++, tn = t->dl.ndim;
    j.ip[k] = tabi_tensor_data(t);
    j.is64[k] = tabi_tensor_dtype(t) == TABI_DTYPE_INT64;
    j.size[k] = shape[d];
    j.stride[k] = strides[d];
    for (int32_t i = 0; i < tn; i++)
      j.bst[k][p->bnd - tn + i] = t->dl.shape[i] == 1 ? 0 : t->dl.strides[i];
  }
  j.off = off;
  cpu_parallel_for(c->pool, p->B, 8192, off_range, &j);
  return !__atomic_load_n(&j.bad, __ATOMIC_RELAXED);
}

/* A group's offset of linear coordinate q (row-major over the group's dims). */
static int64_t group_off(const int64_t *shape, const int64_t *st, int32_t n, int64_t q) {
  int64_t o = 0;
  for (int32_t d = n - 1; d >= 0; d--) {
    o += (q % shape[d]) * st[d];
    q /= shape[d];
  }
  return o;
}

/* --- the (p, b, post block) walk shared by index and index_put ---------------------- */

typedef struct adv_job {
  const adv_plan *p;
  int op;
  tabi_dtype dt;
  int64_t es;
  const int64_t *off;
  /* destination and source: pre-group strides, post block (collapsed) */
  char *dst;
  const char *src;
  int64_t pre_shape[MD], dpre[MD], spre[MD];
  int32_t nblk;
  int64_t blk_shape[MD], dblk[MD], sblk[MD];
  /* index: the destination is contiguous [P, B, Q] and the source offset is
   * off[b]; index_put: the destination offset is off[b] and the source
   * (values, broadcast) has per-b strides over bshape */
  int put;
  int32_t nsb;           /* values' b strides: 1 = linear (sb1), else over bshape */
  int64_t sb1, sbst[MD];
  int64_t span;          /* owner mode: offsets in [0, span) split over `owners` */
  int64_t owners;
  /* index with one contiguous index tensor: no offset table; the index is
   * read, wrapped and checked in the copy (a bad one sets `bad`, reads row 0) */
  const void *dix;
  int dix64, put1;
  int64_t dsize, dstride;
  int bad;
} adv_job;

/* The element offset of broadcast index b (the table or the direct index). */
static inline int64_t adv_off(const adv_job *j, int64_t b, uint64_t *bad) {
  if (j->off) return j->off[b];
  int64_t v = cpu_idx_load(j->dix, j->dix64, b);
  v += v < 0 ? j->dsize : 0;
  int out = (uint64_t)v >= (uint64_t)j->dsize;
  *bad |= (uint64_t)out;
  return out ? 0 : v * j->dstride;
}

static inline void adv_row(const adv_job *j, int64_t pd, int64_t ps, int64_t b) {
  const adv_plan *p = j->p;
  if (!j->put) {
    char *d = j->dst + ((pd * p->B + b) * p->Q) * j->es; /* pd: the pre row */
    cpu_idx_block(CPU_IDX_COPY, j->dt, j->es, d, j->dblk, j->src + (ps + j->off[b]) * j->es, j->sblk,
                  j->blk_shape, j->nblk);
    return;
  }
  int64_t sb = j->nsb == 1 ? b * j->sb1 : group_off(p->bshape, j->sbst, p->bnd, b);
  cpu_idx_block(j->op, j->dt, j->es, j->dst + (pd + j->off[b]) * j->es, j->dblk, j->src + (ps + sb) * j->es,
                j->sblk, j->blk_shape, j->nblk);
}

/* index, when each (p, b) block is one run of `rb` contiguous bytes on both
 * sides: rows come from random places, so the row a few indices ahead is
 * prefetched (several misses in flight) and the common row sizes are copied
 * with constant-size moves (rb is a constant at each call below). */
#define ADV_AHEAD 16

static inline __attribute__((always_inline)) void gather_rows_rb(const adv_job *j, int64_t r0, int64_t r1,
                                                                 int64_t rb) {
  const adv_plan *p = j->p;
  int64_t B = p->B, pp = r0 / B, b = r0 % B, es = j->es;
  int64_t ps = group_off(j->pre_shape, j->spre, p->npre, pp);
  char *d = j->dst + r0 * rb;
  uint64_t bad = 0;
  for (int64_t r = r0; r < r1; r++, d += rb) {
    if (b + ADV_AHEAD < B) __builtin_prefetch(j->src + (ps + adv_off(j, b + ADV_AHEAD, &bad)) * es, 0, 0);
    memcpy(d, j->src + (ps + adv_off(j, b, &bad)) * es, (size_t)rb);
    if (++b == B) {
      b = 0;
      pp++;
      if (r + 1 < r1) ps = group_off(j->pre_shape, j->spre, p->npre, pp);
    }
  }
  if (bad) __atomic_store_n((int *)&j->bad, 1, __ATOMIC_RELAXED);
}

static void gather_rows(void *arg, int64_t r0, int64_t r1) {
  const adv_job *j = arg;
  switch (j->p->Q * j->es) {
    case 1: gather_rows_rb(j, r0, r1, 1); break;
    case 2: gather_rows_rb(j, r0, r1, 2); break;
    case 4: gather_rows_rb(j, r0, r1, 4); break;
    case 8: gather_rows_rb(j, r0, r1, 8); break;
    case 16: gather_rows_rb(j, r0, r1, 16); break;
    case 32: gather_rows_rb(j, r0, r1, 32); break;
    case 64: gather_rows_rb(j, r0, r1, 64); break;
    case 128: gather_rows_rb(j, r0, r1, 128); break;
    default: gather_rows_rb(j, r0, r1, j->p->Q * j->es); break;
  }
}

/* index: rows r = p * B + b of the result. */
static void gather_range(void *arg, int64_t r0, int64_t r1) {
  const adv_job *j = arg;
  const adv_plan *p = j->p;
  int64_t pp = r0 / p->B, b = r0 % p->B, ps = group_off(j->pre_shape, j->spre, p->npre, pp);
  for (int64_t r = r0; r < r1; r++) {
    adv_row(j, pp, ps, b);
    if (++b == p->B) {
      b = 0;
      pp++;
      if (r + 1 < r1) ps = group_off(j->pre_shape, j->spre, p->npre, pp);
    }
  }
}

/* index_put of single elements (Q == 1, values linear over b) for pre row
 * pp and offsets in [lo, hi): the element op inlined per dtype. */
#define PUT1(T, EXPR)                                                              \
  do {                                                                             \
    T *dd = (T *)(void *)j->dst + pd;                                              \
    const T *ss = (const T *)(const void *)j->src + ps;                            \
    for (int64_t b = 0; b < B; b++) {                                              \
      if (b + ADV_AHEAD < B) __builtin_prefetch(dd + off[b + ADV_AHEAD], 1, 0);    \
      int64_t o = off[b];                                                          \
      if (o < lo || o >= hi) continue;                                             \
      T a = dd[o], v = ss[b * sb1];                                                \
      (void)a;                                                                     \
      dd[o] = (EXPR);                                                              \
    }                                                                              \
  } while (0)

static void put1(const adv_job *j, int64_t pd, int64_t ps, int64_t lo, int64_t hi) {
  const int64_t *off = j->off, B = j->p->B, sb1 = j->sb1;
  if (j->op == CPU_IDX_COPY) {
    switch (j->es) {
      case 1: PUT1(uint8_t, v); break;
      case 2: PUT1(uint16_t, v); break;
      case 4: PUT1(uint32_t, v); break;
      case 8: PUT1(uint64_t, v); break;
      default: break; /* not taken: put1_ok */
    }
    return;
  }
  switch (j->dt) {
    case TABI_DTYPE_FLOAT32: PUT1(float, a + v); break;
    case TABI_DTYPE_FLOAT64: PUT1(double, a + v); break;
    case TABI_DTYPE_INT64: PUT1(int64_t, (int64_t)((uint64_t)a + (uint64_t)v)); break;
    case TABI_DTYPE_INT32: PUT1(int32_t, (int32_t)((uint32_t)a + (uint32_t)v)); break;
    default: break; /* not taken: put1_ok */
  }
}

static int put1_ok(const adv_job *j) {
  if (j->nblk != 0 || j->nsb != 1) return 0;
  if (j->op == CPU_IDX_COPY) return j->es == 1 || j->es == 2 || j->es == 4 || j->es == 8;
  return j->dt == TABI_DTYPE_FLOAT32 || j->dt == TABI_DTYPE_FLOAT64 || j->dt == TABI_DTYPE_INT64 ||
         j->dt == TABI_DTYPE_INT32;
}

/* index_put by whole pre rows. */
static void put_pre_range(void *arg, int64_t p0, int64_t p1) {
  const adv_job *j = arg;
  for (int64_t pp = p0; pp < p1; pp++) {
    int64_t pd = group_off(j->pre_shape, j->dpre, j->p->npre, pp);
    int64_t ps = group_off(j->pre_shape, j->spre, j->p->npre, pp);
    if (j->put1) {
      put1(j, pd, ps, INT64_MIN, INT64_MAX);
      continue;
    }
    for (int64_t b = 0; b < j->p->B; b++) {
      if (b + ADV_AHEAD < j->p->B) __builtin_prefetch(j->dst + (pd + j->off[b + ADV_AHEAD]) * j->es, 1, 0);
      adv_row(j, pd, ps, b);
    }
  }
}

/* index_put, owner w of `owners`: the writes whose indexed offset lies in its range. */
static void put_own_range(void *arg, int64_t w0, int64_t w1) {
  const adv_job *j = arg;
  const adv_plan *p = j->p;
  int64_t lo = j->span / j->owners * w0 + (j->span % j->owners) * w0 / j->owners;
  int64_t hi = j->span / j->owners * w1 + (j->span % j->owners) * w1 / j->owners;
  for (int64_t pp = 0; pp < p->P; pp++) {
    int64_t pd = group_off(j->pre_shape, j->dpre, p->npre, pp);
    int64_t ps = group_off(j->pre_shape, j->spre, p->npre, pp);
    if (j->put1) {
      put1(j, pd, ps, lo, hi);
      continue;
    }
    for (int64_t b = 0; b < p->B; b++) {
      if (b + ADV_AHEAD < p->B) {
        int64_t oa = j->off[b + ADV_AHEAD];
        if (oa >= lo && oa < hi) __builtin_prefetch(j->dst + (pd + oa) * j->es, 1, 0);
      }
      if (j->off[b] >= lo && j->off[b] < hi) adv_row(j, pd, ps, b);
    }
  }
}

/* --- aten::index.Tensor ---------------------------------------------------------------- */

static tabi_status index_impl(const cpu_ctx *c, const tabi_call *call, tabi_value *args, tabi_value *outs,
                              const tabi_value *indices) {
  const tabi_tensor *self = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self);
  adv_plan p;
  if (tabi_dtype_size(dt) == 0 || tabi_tensor_numel(self) == 0 || !adv_build(self, indices, &p))
    return CPU_FALLBACK(c, INDEX);
  /* one contiguous index tensor over contiguous rows: read in the copy, no table */
  int32_t nidx = 0, d1 = -1;
  for (int32_t d = 0; d < p.nd; d++)
    if (p.idx[d]) { nidx++; d1 = d; }
  int direct = nidx == 1 && cpu_contig(p.idx[d1]);
  int64_t *off = NULL;
  if (!direct) {
    off = malloc(sizeof(int64_t) * (size_t)p.B);
    if (!off) return CPU_FALLBACK(c, INDEX);
    if (!adv_offsets(c, &p, self->dl.shape, self->dl.strides, off)) {
      free(off);
      return CPU_FALLBACK(c, INDEX); /* the reference names the bad index */
    }
  }
  tabi_tensor *o = NULL;
  tabi_status st = cpu_empty(c, self, dt, p.rnd, p.rshape, &o);
  if (st != TABI_OK) {
    free(off);
    return st;
  }
  adv_job j;
  memset(&j, 0, sizeof j);
  j.p = &p;
  j.op = CPU_IDX_COPY;
  j.dt = dt;
  j.es = tabi_dtype_size(dt);
  j.off = off;
  j.dst = tabi_tensor_data(o);
  j.src = tabi_tensor_data(self);
  for (int32_t i = 0; i < p.npre; i++) {
    j.pre_shape[i] = self->dl.shape[p.pre[i]];
    j.spre[i] = self->dl.strides[p.pre[i]];
  }
  int64_t bst[2][MD], q = 1;
  for (int32_t i = p.npost - 1; i >= 0; i--) {
    j.blk_shape[i] = self->dl.shape[p.post[i]];
    bst[0][i] = q; /* the result's post block is contiguous */
    bst[1][i] = self->dl.strides[p.post[i]];
    q *= j.blk_shape[i];
  }
  j.nblk = cpu_idx_collapse(p.npost, j.blk_shape, 2, bst);
  memcpy(j.dblk, bst[0], sizeof j.dblk);
  memcpy(j.sblk, bst[1], sizeof j.sblk);
  int rows = j.nblk == 0 || (j.nblk == 1 && j.dblk[0] == 1 && j.sblk[0] == 1);
  if (direct && !rows) { /* the general copy reads the table */
    off = malloc(sizeof(int64_t) * (size_t)p.B);
    if (!off || !adv_offsets(c, &p, self->dl.shape, self->dl.strides, off)) {
      free(off);
      c->host->tensor_release(c->host->ctx, o);
      return CPU_FALLBACK(c, INDEX);
    }
    j.off = off;
  }
  if (!j.off) {
    j.dix = tabi_tensor_data(p.idx[d1]);
    j.dix64 = tabi_tensor_dtype(p.idx[d1]) == TABI_DTYPE_INT64;
    j.dsize = self->dl.shape[d1];
    j.dstride = self->dl.strides[d1];
  }
  cpu_parallel_for(c->pool, p.P * p.B, 1 + 16384 / p.Q, rows ? gather_rows : gather_range, &j);
  free(off);
  if (__atomic_load_n(&j.bad, __ATOMIC_RELAXED)) {
    c->host->tensor_release(c->host->ctx, o);
    return CPU_FALLBACK(c, INDEX); /* the reference names the bad index */
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

/* --- aten::index_put -------------------------------------------------------------------- */

static tabi_status index_put_impl(const cpu_ctx *c, const tabi_call *call, tabi_value *args,
                                  tabi_value *outs, const tabi_value *indices) {
  const tabi_tensor *self = args[0].u.t, *values = args[2].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self);
  int acc = args[3].u.i != 0;
  adv_plan p;
  if (tabi_dtype_size(dt) == 0 || tabi_tensor_numel(self) == 0 || tabi_tensor_dtype(values) != dt ||
      (acc && !cpu_idx_add_ok(dt)) || !adv_build(self, indices, &p) || values->dl.ndim > p.rnd)
    return CPU_FALLBACK(c, INDEX_PUT);
  /* values broadcast to the result [pre, bshape, post]: its strides per result dim */
  int64_t vst[MD];
  for (int32_t r = 0; r < p.rnd; r++) {
    int32_t vd = r - (p.rnd - values->dl.ndim);
    if (vd < 0) { vst[r] = 0; continue; }
    int64_t vs = values->dl.shape[vd];
    if (vs != p.rshape[r] && vs != 1) return CPU_FALLBACK(c, INDEX_PUT);
    vst[r] = vs == 1 ? 0 : values->dl.strides[vd];
  }
  int64_t *off = malloc(sizeof(int64_t) * (size_t)p.B);
  if (!off) return CPU_FALLBACK(c, INDEX_PUT);
  tabi_tensor *o = NULL;
  tabi_status st = TABI_OK;
  /* the clone is contiguous: its strides are the row-major ones */
  int64_t ost[MD], e = 1;
  for (int32_t d = p.nd - 1; d >= 0; d--) { ost[d] = e; e *= self->dl.shape[d]; }
  if (!adv_offsets(c, &p, self->dl.shape, ost, off)) {
    free(off);
    return CPU_FALLBACK(c, INDEX_PUT);
  }
  if ((st = cpu_idx_clone(c, self, &o)) != TABI_OK) {
    free(off);
    return st;
  }
  adv_job j;
  memset(&j, 0, sizeof j);
  j.p = &p;
  j.put = 1;
  j.op = acc ? CPU_IDX_ADD : CPU_IDX_COPY;
  j.dt = dt;
  j.es = tabi_dtype_size(dt);
  j.off = off;
  j.dst = tabi_tensor_data(o);
  j.src = tabi_tensor_data(values);
  for (int32_t i = 0; i < p.npre; i++) {
    j.pre_shape[i] = self->dl.shape[p.pre[i]];
    j.dpre[i] = ost[p.pre[i]];
    j.spre[i] = vst[i];
  }
  /* values over the broadcast dims: one linear stride when they allow it */
  int64_t sb[1][MD], bsh[MD];
  memcpy(bsh, p.bshape, sizeof bsh);
  memcpy(sb[0], vst + p.npre, sizeof(int64_t) * (size_t)p.bnd);
  memcpy(j.sbst, sb[0], sizeof j.sbst);
  int32_t nb = cpu_idx_collapse(p.bnd, bsh, 1, sb);
  j.nsb = nb <= 1 ? 1 : nb;
  j.sb1 = nb == 1 ? sb[0][0] : 0;
  int64_t bst[2][MD];
  for (int32_t i = 0; i < p.npost; i++) {
    j.blk_shape[i] = self->dl.shape[p.post[i]];
    bst[0][i] = ost[p.post[i]];
    bst[1][i] = vst[p.npre + p.bnd + i];
  }
  j.nblk = cpu_idx_collapse(p.npost, j.blk_shape, 2, bst);
  memcpy(j.dblk, bst[0], sizeof j.dblk);
  memcpy(j.sblk, bst[1], sizeof j.sblk);
  j.put1 = put1_ok(&j);
  int64_t work = p.P * p.B * p.Q, T = c->nthreads > 0 ? c->nthreads : 1;
  if (work < 32768 || T == 1) {
    put_pre_range(&j, 0, p.P);
  } else if (p.P >= 4 * T) {
    cpu_parallel_for(c->pool, p.P, 1 + 16384 / (p.B * p.Q), put_pre_range, &j);
  } else {
    j.span = 1;
    for (int32_t d = 0; d < p.nd; d++)
      if (p.idx[d]) j.span += (self->dl.shape[d] - 1) * ost[d];
    j.owners = T;
    cpu_parallel_for(c->pool, T, 1, put_own_range, &j);
  }
  free(off);
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

/* --- the kernels: masks expanded first -------------------------------------------------- */

tabi_status cpu_k_index(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  cpu_idx_masks m;
  if (args[0].tag != TABI_TAG_TENSOR || !cpu_idx_masks_expand(c, args[0].u.t, &args[1], &m))
    return CPU_FALLBACK(c, INDEX);
  tabi_status st = index_impl(c, call, args, outs, &m.value);
  cpu_idx_masks_release(c, &m);
  return st;
}

tabi_status cpu_k_index_put(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  cpu_idx_masks m;
  if (args[0].tag != TABI_TAG_TENSOR || args[2].tag != TABI_TAG_TENSOR ||
      !cpu_idx_masks_expand(c, args[0].u.t, &args[1], &m))
    return CPU_FALLBACK(c, INDEX_PUT);
  tabi_status st = index_put_impl(c, call, args, outs, &m.value);
  cpu_idx_masks_release(c, &m);
  return st;
}
