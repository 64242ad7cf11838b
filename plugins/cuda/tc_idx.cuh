/* plugins/cuda/tc_idx.cuh: the serial bodies of the order-dependent index ops
 * (scatter_reduce.two, nonzero, masked_scatter, randperm, index_put) and
 * index.Tensor's gather, `__host__ __device__` so that tc_idx.cu's
 * kernels (one device thread, as tc_scatter.cu) and
 * tests/cuda/test_cuda_idx_host.cpp (the same function on the host, against
 * the reference plugin) run the same code.
 *
 * scatter_reduce.two is reference/ref_index.c's scatter_run for the five
 * reductions: one accumulator per output element (double for the float
 * dtypes, double pairs for complex, int64 wrapped to the dtype after every
 * step for integers and bool), the index elements applied in row-major
 * order, NaN winning in amax/amin, integer mean dividing with floor,
 * include_self counting self as one element, and complex products with C99
 * Annex G's recovery of infinities (the reference's `*` on double complex is
 * libgcc's __muldc3). One thread: the same bits on every run, no atomics;
 * slow for large index tensors. */
#ifndef TABI_TC_IDX_CUH
#define TABI_TC_IDX_CUH

#include <tabi/philox.h>

#include "ref_index_check.h"
#include "tc_misc.cuh" /* TCP_HD, TCP_MUL/TCP_ADD, tcp_ld/tcp_st, tcn_esz */

#define TCI_MAX_DIMS 16

/* the kinds ref_idx_sr_check hands back */
enum { TCI_SUM = REF_SR_SUM, TCI_PROD = REF_SR_PROD, TCI_MEAN = REF_SR_MEAN, TCI_AMAX = REF_SR_AMAX,
       TCI_AMIN = REF_SR_AMIN };

/* Integer element access with bool (ref_load_i_ptr/ref_store_i_ptr). */
TCP_HD int64_t tci_ld_i(const char *p, int dt) {
  if (dt == TABI_DTYPE_BOOL) return *(const uint8_t *)p != 0;
  return tcn_ld(p, dt);
}
TCP_HD void tci_st_i(char *p, int dt, int64_t v) {
  if (dt == TABI_DTYPE_BOOL) *(uint8_t *)p = v != 0;
  else tcn_st(p, dt, v);
}
TCP_HD int64_t tci_wrap_i(int64_t v, int dt) {
  char b[8];
  tci_st_i(b, dt, v);
  return tci_ld_i(b, dt);
}
TCP_HD int tci_domain(int dt) {
  if (dt == TABI_DTYPE_COMPLEX64 || dt == TABI_DTYPE_COMPLEX128) return 2;
  if (dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16 || dt == TABI_DTYPE_FLOAT32 ||
      dt == TABI_DTYPE_FLOAT64)
    return 1;
  return 0;
}
TCP_HD int tci_esz(int dt) {
  if (dt == TABI_DTYPE_COMPLEX128) return 16;
  if (dt == TABI_DTYPE_COMPLEX64) return 8;
  return tcn_esz(dt);
}
TCP_HD void tci_ld_c(const char *p, int dt, double *re, double *im) {
  if (dt == TABI_DTYPE_COMPLEX64) {
    *re = ((const float *)p)[0];
    *im = ((const float *)p)[1];
  } else {
    *re = ((const double *)p)[0];
    *im = ((const double *)p)[1];
  }
}
TCP_HD void tci_st_c(char *p, int dt, double re, double im) {
  if (dt == TABI_DTYPE_COMPLEX64) {
    ((float *)p)[0] = (float)re;
    ((float *)p)[1] = (float)im;
  } else {
    ((double *)p)[0] = re;
    ((double *)p)[1] = im;
  }
}

/* (a + bi)(c + di) as libgcc's __muldc3 (C99 Annex G.5.1). */
TCP_HD void tci_cmul(double a, double b, double c, double d, double *re, double *im) {
  TCP_NOCONTRACT
  double ac = TCP_MUL(a, c), bd = TCP_MUL(b, d), ad = TCP_MUL(a, d), bc = TCP_MUL(b, c);
  double x = ac - bd, y = ad + bc;
  if (isnan(x) && isnan(y)) {
    int recalc = 0;
    if (isinf(a) || isinf(b)) {
      a = copysign(isinf(a) ? 1.0 : 0.0, a);
      b = copysign(isinf(b) ? 1.0 : 0.0, b);
      if (isnan(c)) c = copysign(0.0, c);
      if (isnan(d)) d = copysign(0.0, d);
      recalc = 1;
    }
    if (isinf(c) || isinf(d)) {
      c = copysign(isinf(c) ? 1.0 : 0.0, c);
      d = copysign(isinf(d) ? 1.0 : 0.0, d);
      if (isnan(a)) a = copysign(0.0, a);
      if (isnan(b)) b = copysign(0.0, b);
      recalc = 1;
    }
    if (!recalc && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {
      if (isnan(a)) a = copysign(0.0, a);
      if (isnan(b)) b = copysign(0.0, b);
      if (isnan(c)) c = copysign(0.0, c);
      if (isnan(d)) d = copysign(0.0, d);
      recalc = 1;
    }
    if (recalc) {
      x = INFINITY * (TCP_MUL(a, c) - TCP_MUL(b, d));
      y = INFINITY * (TCP_MUL(a, d) + TCP_MUL(b, c));
    }
  }
  *re = x;
  *im = y;
}

/* One accumulator per output element (out is contiguous: offset == element). */
typedef struct tci_acc {
  double re, im;
  int64_t i, count;
  int32_t touched, pad_;
} tci_acc;

/* scatter_reduce.two: out holds a contiguous copy of self (n_out elements);
 * idx (int64) and src are read at index's coordinates through their strides
 * (0-d tensors as [1], stride 0). acc: n_out accumulators of scratch. */
typedef struct tci_sr {
  const char *idx, *src;
  char *out;
  tci_acc *acc;
  int32_t nd, dim, dt, kind, include_self;
  int64_t ishape[TCI_MAX_DIMS], ist[TCI_MAX_DIMS], sst[TCI_MAX_DIMS], ost[TCI_MAX_DIMS];
  int64_t n_idx, n_out;
} tci_sr;

TCP_HD int64_t tci_floor_div(int64_t a, int64_t b) {
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

TCP_HD void tci_sr_combine(const tci_sr *a, tci_acc *t, double vr, double vi_, int64_t vi) {
  TCP_NOCONTRACT
  int k = a->kind;
  switch (tci_domain(a->dt)) {
    case 2:
      if (k == TCI_PROD) tci_cmul(t->re, t->im, vr, vi_, &t->re, &t->im);
      else {
        t->re += vr;
        t->im += vi_;
      }
      break;
    case 1:
      if (k == TCI_PROD) t->re = TCP_MUL(t->re, vr);
      else if (k == TCI_AMAX || k == TCI_AMIN) {
        if (isnan(t->re)) break;
        if (isnan(vr) || (k == TCI_AMAX ? vr > t->re : vr < t->re)) t->re = vr;
      } else t->re += vr;
      break;
    default:
      if (k == TCI_PROD) t->i = (int64_t)((uint64_t)t->i * (uint64_t)vi);
      else if (k == TCI_AMAX) t->i = vi > t->i ? vi : t->i;
      else if (k == TCI_AMIN) t->i = vi < t->i ? vi : t->i;
      else t->i = (int64_t)((uint64_t)t->i + (uint64_t)vi);
      t->i = tci_wrap_i(t->i, a->dt);
      break;
  }
}

/* scatter_reduce in three steps the device runs in parallel (tc_idx.cu): the
 * accumulators start from out; each line of the index along dim (its other
 * coordinates fixed) is walked in order; the accumulators are stored. Index
 * elements on different lines differ in a coordinate other than dim, and so
 * do their targets: lines never share one, so lines in any order, each in
 * order, give every target the reference's row-major sequence. */
TCP_HD void tci_sr_init(const tci_sr *a, int64_t e) {
  int dt = a->dt, dom = tci_domain(dt);
  tci_acc *t = &a->acc[e];
  const char *p = a->out + e * tci_esz(dt);
  t->re = t->im = 0;
  t->i = 0;
  if (dom == 2) tci_ld_c(p, dt, &t->re, &t->im);
  else if (dom == 1) t->re = tcp_ld(p, dt);
  else t->i = tci_ld_i(p, dt);
  t->count = a->include_self;
  t->touched = a->include_self;
}

/* One index element: src element at offset s (elements) into the
   accumulator of out element t. */
TCP_HD void tci_sr_apply(const tci_sr *a, int64_t s, int64_t t) {
  TCP_NOCONTRACT
  int dt = a->dt, dom = tci_domain(dt);
  const char *p = a->src + s * tci_esz(dt);
  double vr = 0, vim = 0;
  int64_t vi = 0;
  if (dom == 2) tci_ld_c(p, dt, &vr, &vim);
  else if (dom == 1) vr = tcp_ld(p, dt);
  else vi = tci_ld_i(p, dt);
  tci_acc *acc = &a->acc[t];
  if (!acc->touched) { /* without self, the first value starts the reduction */
    acc->re = vr;
    acc->im = vim;
    acc->i = vi;
    acc->touched = 1;
  } else {
    tci_sr_combine(a, acc, vr, vim, vi);
  }
  acc->count++;
}

/* The offsets in src (*so) and out (*to) of index element e's coordinates
   other than dim (e row-major over the index's shape). */
TCP_HD void tci_sr_base(const tci_sr *a, int64_t e, int64_t *so, int64_t *to, int64_t *io) {
  *so = *to = *io = 0;
  for (int d = a->nd - 1; d >= 0; d--) {
    int64_t i = e % a->ishape[d];
    e /= a->ishape[d];
    if (d == a->dim) continue;
    *io += i * a->ist[d];
    *so += i * a->sst[d];
    *to += i * a->ost[d];
  }
}

TCP_HD void tci_sr_line(const tci_sr *a, int64_t l) {
  /* line l is the index elements whose other coordinates are l's; its first
     element, row-major, is (l's coordinates, 0 on dim) */
  int64_t e = 0, rem = l, mul = 1;
  for (int d = a->nd - 1; d >= 0; d--) {
    if (d == a->dim) {
      mul *= a->ishape[d];
      continue;
    }
    e += rem % a->ishape[d] * mul;
    rem /= a->ishape[d];
    mul *= a->ishape[d];
  }
  int64_t so, to, io;
  tci_sr_base(a, e, &so, &to, &io);
  for (int64_t k = 0; k < a->ishape[a->dim]; k++) {
    int64_t v = ((const int64_t *)a->idx)[io + k * a->ist[a->dim]];
    tci_sr_apply(a, so + k * a->sst[a->dim], to + v * a->ost[a->dim]);
  }
}

/* Few long lines: the index sorted along dim (stable), sv its values and
   perm their positions (contiguous, the index's shape). Index element e of
   that order starts a run of equal targets when the one before it along dim
   differs; the run's elements are applied in order (the reference's order
   for that target). Returns without work for an element that starts no run. */
TCP_HD void tci_sr_run_of(const tci_sr *a, const int64_t *sv, const int64_t *perm, int64_t e) {
  int64_t sd = 1, len = a->ishape[a->dim];
  for (int d = a->dim + 1; d < a->nd; d++) sd *= a->ishape[d];
  int64_t i = e / sd % len, v = sv[e];
  if (i > 0 && sv[e - sd] == v) return;
  int64_t so, to, io;
  tci_sr_base(a, e, &so, &to, &io);
  for (int64_t r = 0; i + r < len && sv[e + r * sd] == v; r++)
    tci_sr_apply(a, so + perm[e + r * sd] * a->sst[a->dim], to + v * a->ost[a->dim]);
}

TCP_HD void tci_sr_fini(const tci_sr *a, int64_t e) {
  int dt = a->dt, dom = tci_domain(dt);
  tci_acc *t = &a->acc[e];
  char *p = a->out + e * tci_esz(dt);
  int64_t cnt = t->count > 0 ? t->count : 1;
  int mean = a->kind == TCI_MEAN;
  if (dom == 2) tci_st_c(p, dt, mean ? t->re / (double)cnt : t->re, mean ? t->im / (double)cnt : t->im);
  else if (dom == 1) tcp_st(p, dt, mean ? t->re / (double)cnt : t->re);
  else tci_st_i(p, dt, mean ? tci_floor_div(t->i, cnt) : t->i);
}

/* The lines of the index along dim (n_idx > 0). */
TCP_HD int64_t tci_sr_lines(const tci_sr *a) { return a->n_idx / a->ishape[a->dim]; }

/* The three steps in turn (test_cuda_idx_host checks this against the reference). */
TCP_HD void tci_sr_run(const tci_sr *a) {
  for (int64_t e = 0; e < a->n_out; e++) tci_sr_init(a, e);
  for (int64_t l = 0; a->n_idx > 0 && l < tci_sr_lines(a); l++) tci_sr_line(a, l);
  for (int64_t e = 0; e < a->n_out; e++) tci_sr_fini(a, e);
}

/* --- nonzero and masked_scatter: strided walks in row-major order ------------- */

/* Element e (row-major over shape) of a tensor with the given strides:
 * its element offset. */
TCP_HD int64_t tci_offset(int64_t e, int32_t nd, const int64_t *shape, const int64_t *st) {
  int64_t off = 0;
  for (int d = nd - 1; d >= 0; d--) {
    off += (e % shape[d]) * st[d];
    e /= shape[d];
  }
  return off;
}

/* Nonzero as the reference's elem_nonzero: NaN is nonzero, complex either part. */
TCP_HD int tci_nonzero(const char *p, int dt) {
  int dom = tci_domain(dt);
  if (dom == 0) return tci_ld_i(p, dt) != 0;
  if (dom == 1) return tcp_ld(p, dt) != 0;
  double re, im;
  tci_ld_c(p, dt, &re, &im);
  return re != 0 || im != 0;
}

typedef struct tci_nz {
  const char *in;
  int64_t *out; /* [count, nd] int64, or NULL to count only */
  int32_t nd, dt;
  int64_t shape[TCI_MAX_DIMS], st[TCI_MAX_DIMS];
  int64_t n;
} tci_nz;

/* nonzero, element e (row-major): is it set; and writing its coordinates as
 * result row `row`. */
TCP_HD int tci_nz_flag(const tci_nz *a, int64_t e) {
  return tci_nonzero(a->in + tci_offset(e, a->nd, a->shape, a->st) * tci_esz(a->dt), a->dt);
}
TCP_HD void tci_nz_write(const tci_nz *a, int64_t e, int64_t row) {
  for (int d = a->nd - 1; d >= 0; d--) {
    a->out[row * a->nd + d] = e % a->shape[d];
    e /= a->shape[d];
  }
}

/* nonzero: the coordinates of the nonzero elements in row-major order (out
 * may be NULL: count only). Returns the count. The device splits the same
 * walk into chunks (tc_idx.cu); this is the order it must reproduce. */
TCP_HD int64_t tci_nz_run(const tci_nz *a) {
  int64_t row = 0;
  for (int64_t e = 0; e < a->n; e++) {
    if (!tci_nz_flag(a, e)) continue;
    if (a->out) tci_nz_write(a, e, row);
    row++;
  }
  return row;
}

/* masked_scatter over the broadcast shape (nd dims, n elements; self's and
 * mask's strides already broadcast: 0 on expanded dims): out (contiguous)
 * = self, and where mask is set the next element of source (row-major over
 * source's shape). Returns 0, or 1 when source runs out (nothing more is
 * written: the caller reports the reference's error). */
typedef struct tci_ms {
  const char *self, *mask, *src;
  char *out;
  int32_t nd, snd, dt, mdt;
  int64_t shape[TCI_MAX_DIMS], sst[TCI_MAX_DIMS], mst[TCI_MAX_DIMS];
  int64_t srcshape[TCI_MAX_DIMS], srcst[TCI_MAX_DIMS];
  int64_t n, nsrc;
} tci_ms;

/* masked_scatter, element e: is the mask set; and writing out[e], from source
 * element k when set (k < nsrc), else from self. */
TCP_HD int tci_ms_flag(const tci_ms *a, int64_t e) {
  return tci_ld_i(a->mask + tci_offset(e, a->nd, a->shape, a->mst), a->mdt) != 0;
}
TCP_HD void tci_ms_write(const tci_ms *a, int64_t e, int set, int64_t k) {
  int esz = tci_esz(a->dt);
  const char *from = set ? a->src + tci_offset(k, a->snd, a->srcshape, a->srcst) * esz
                         : a->self + tci_offset(e, a->nd, a->shape, a->sst) * esz;
  tcp_copy(a->out + e * esz, from, esz);
}

TCP_HD int tci_ms_run(const tci_ms *a) {
  int64_t k = 0;
  for (int64_t e = 0; e < a->n; e++) {
    int set = tci_ms_flag(a, e);
    if (set && k >= a->nsrc) return 1;
    tci_ms_write(a, e, set, set ? k++ : 0);
  }
  return 0;
}

/* --- randperm: reference/ref_create2.c's Fisher-Yates -------------------------- */
/* perm[k] = k; for i = n-1 down to 1: u = uniform double of counter
 * offset + i, j = floor(u * (i + 1)) clamped to i, swap perm[i], perm[j];
 * then out[k] = perm[k] in dt (integers wrap as ref_store_i; floats are
 * exact: the checks bound n). */
TCP_HD int64_t tci_rp_target(uint64_t seed, uint64_t offset, int64_t i) {
  double u = tabi_philox_uniform_double(tabi_philox4x32(seed, offset + (uint64_t)i));
  int64_t j = (int64_t)floor(u * (double)(i + 1));
  return j > i ? i : j;
}

TCP_HD void tci_rp_swap(int64_t *perm, int64_t i, int64_t j) {
  int64_t t = perm[i];
  perm[i] = perm[j];
  perm[j] = t;
}

TCP_HD void tci_rp_store(int64_t k, const int64_t *perm, char *out, int dt) {
  int esz = tci_esz(dt);
  if (tci_domain(dt) == 1) tcp_st(out + k * esz, dt, (double)perm[k]);
  else tci_st_i(out + k * esz, dt, perm[k]);
}

/* The sequential run, one step after another: what the rounds below must
   reproduce (tests/cuda/test_cuda_idx_host.cpp holds them to it). */
TCP_HD void tci_rp_run(int64_t *perm, int64_t n, uint64_t seed, uint64_t offset, char *out, int dt) {
  for (int64_t k = 0; k < n; k++) perm[k] = k;
  for (int64_t i = n - 1; i >= 1; i--) {
    tci_rp_swap(perm, i, tci_rp_target(seed, offset, i));
  }
  for (int64_t k = 0; k < n; k++) tci_rp_store(k, perm, out, dt);
}

/* --- randperm in parallel: the same permutation, in rounds -------------------- */
/* Step i (n-1 down to 1) of the Fisher-Yates above swaps positions i and
 * H[i] <= i, and H[i] depends on the counter offset + i only, so every H is
 * known at once. Two steps that touch a common position must run in the
 * sequential order (the higher i first); steps that touch none may run
 * together. A round: every remaining step reserves its two positions with
 * its priority (a max, so the outcome does not depend on the order of the
 * reservations); a step that holds both of its positions commits (its swap;
 * the positions are its alone this round) and is done. The highest
 * remaining step always commits, and a step commits only after every higher
 * step sharing a position with it (it would hold the position otherwise),
 * which is what makes the result the sequential one. About 63 rounds for
 * n = 2^24 (tests/cuda/test_cuda_idx_host.cpp counts them), but each
 * leaves about three quarters of the steps before it (two thirds after the
 * first), so the rounds visit only a list of the steps left, which each
 * round's commits write afresh: some 3n visits in all, not 63n. Reservations
 * carry the round in their high bits (TCI_RP_TAG), so an old round's
 * entries lose without a reset: n < 2^40 and rounds < 2^23. A permutation
 * of at most 2^13 elements keeps its reservations in 32 bits
 * (TCI_RP_TAG32: rounds < 2^19), which fit in a block's shared memory. */
#define TCI_RP_IBITS 40
#define TCI_RP_TAG(round) ((unsigned long long)(round) << TCI_RP_IBITS)
#define TCI_RP_IBITS32 13
#define TCI_RP_TAG32(round) ((unsigned)(round) << TCI_RP_IBITS32)

/* perm[i] = i; h[i] = H[i] (-1 for i = 0, which is no step); r[i] = 0.
   R: the reservations' type, unsigned long long or (TCI_RP_TAG32) unsigned. */
template <class R>
TCP_HD void tci_rp_init(int64_t i, int64_t *perm, int64_t *h, R *r, uint64_t seed, uint64_t offset) {
  perm[i] = i;
  h[i] = i > 0 ? tci_rp_target(seed, offset, i) : -1;
  r[i] = 0;
}

template <class R> TCP_HD void tci_rp_reserve(int64_t i, const int64_t *h, R *r, R tag) {
  int64_t j = h[i];
  if (j < 0) return; /* done */
  tcp_atomic_max(&r[i], (R)(tag | (R)i));
  tcp_atomic_max(&r[j], (R)(tag | (R)i));
}

/* After every reservation of the round: 1 when step i is still to do. */
template <class R> TCP_HD int tci_rp_commit(int64_t i, int64_t *h, const R *r, int64_t *perm, R tag) {
  int64_t j = h[i];
  if (j < 0) return 0;
  R key = (R)(tag | (R)i);
  if (r[i] != key || r[j] != key) return 1;
  tci_rp_swap(perm, i, j);
  h[i] = -1;
  return 0;
}

/* The steps left after the rounds, in the sequential order (a valid order
   still: every done step's higher neighbours are done). */
TCP_HD void tci_rp_finish(int64_t n, int64_t *h, int64_t *perm) {
  for (int64_t i = n - 1; i >= 1; i--)
    if (h[i] >= 0) {
      tci_rp_swap(perm, i, h[i]);
      h[i] = -1;
    }
}


/* --- advanced indexing: index.Tensor (gather) and index_put (serial) ---------- */
/* The broadcast indices of the plan (ref_index_check.h's ref_adv), negatives
 * wrapped: for each indexed dim in order, nb int64 values (element b of the
 * broadcast shape), concatenated. Host side: the glue uploads them. */
static inline void tc_adv_pack(const ref_adv *p, const int64_t *self_shape, int64_t *buf) {
  int64_t k = 0;
  for (int32_t d = 0; d < p->ndim; d++) {
    if (!p->has[d]) continue;
    int64_t st[REF_ADV_MAX], s = 1;
    for (int32_t j = p->ind[d] - 1; j >= 0; j--) {
      st[j] = p->ishape[d][j] == 1 ? 0 : s;
      s *= p->ishape[d][j];
    }
    for (int64_t b = 0; b < p->nb; b++, k++) {
      int64_t rem = b, off = 0;
      for (int32_t j = p->bnd - 1; j >= 0; j--) {
        int64_t c = rem % p->bshape[j];
        rem /= p->bshape[j];
        int32_t tj = j - (p->bnd - p->ind[d]);
        if (tj >= 0) off += c * st[tj];
      }
      int64_t v = p->vals[d][off];
      buf[k] = v < 0 ? v + self_shape[d] : v;
    }
  }
}

/* The plan of ref_index_check.h's ref_adv, packed for the device: per self
 * dim d, idx[d] >= 0 is where its nb broadcast (wrapped) indices start in ib, -1 for
 * a full slice (then rpos[d] is its result dim). The result has rnd dims
 * (rshape), the broadcast dims at first .. first + bnd. */
typedef struct tci_adv {
  const int64_t *ib;
  int32_t ndim, bnd, first, rnd;
  int64_t idx[TCI_MAX_DIMS];
  int32_t rpos[TCI_MAX_DIMS];
  int64_t rshape[TCI_MAX_DIMS];
  int64_t nb, n; /* broadcast elements, result elements */
} tci_adv;

/* The element offset (strides st) of the self element that result element e
 * (row-major) reads or writes: ref_index2.c's adv_offset. */
TCP_HD int64_t tci_adv_offset(const tci_adv *p, const int64_t *st, int64_t e) {
  int64_t rc[TCI_MAX_DIMS], rem = e;
  for (int d = p->rnd - 1; d >= 0; d--) {
    rc[d] = rem % p->rshape[d];
    rem /= p->rshape[d];
  }
  int64_t b = 0;
  for (int j = 0; j < p->bnd; j++) b = b * p->rshape[p->first + j] + rc[p->first + j];
  int64_t off = 0;
  for (int d = 0; d < p->ndim; d++) {
    int64_t c = p->idx[d] >= 0 ? p->ib[p->idx[d] + b] : rc[p->rpos[d]];
    off += c * st[d];
  }
  return off;
}

/* index.Tensor, one result element: out[e] = self[offset(e)]. */
TCP_HD void tci_index_elem(const tci_adv *p, const char *self, const int64_t *sst, char *out, int esz, int64_t e) {
  const char *from = self + tci_adv_offset(p, sst, e) * esz;
  tcp_copy(out + e * esz, from, esz);
}

/* index_put over result elements in row-major order (the reference's):
 * out (a contiguous copy of self, strides ost) takes values (read through
 * vst, broadcast: 0 on expanded dims, vnd <= rnd dims aligned right); last
 * write wins, or (accumulate) out = out + value rounded to the dtype at every
 * step, integers wrapping, bool as logical or (ref_store_i of the sum).
 *
 * Result elements with different coordinates on the dims that are not
 * indexed (the "tuple": the dims before and after the broadcast index dims)
 * write different elements of out, so the device gives each tuple a thread
 * that walks the broadcast index positions in order: every target sees the
 * reference's order. tci_iput_tuples: how many; tci_iput_tuple: one walk. */
TCP_HD int64_t tci_iput_post(const tci_adv *p) {
  int64_t post = 1;
  for (int d = p->first + p->bnd; d < p->rnd; d++) post *= p->rshape[d];
  return post;
}
TCP_HD int64_t tci_iput_tuples(const tci_adv *p) {
  int64_t nb = 1;
  for (int j = 0; j < p->bnd; j++) nb *= p->rshape[p->first + j];
  return nb > 0 ? p->n / nb : 0;
}
/* Result element e into out element toff (elements; strides ost). */
TCP_HD void tci_iput_one(const tci_adv *p, char *out, const char *values, const int64_t *vst, int dt,
                         int accumulate, int64_t e, int64_t toff) {
  TCP_NOCONTRACT
  int esz = tci_esz(dt), dom = tci_domain(dt);
  int64_t rem = e, voff = 0;
  for (int d = p->rnd - 1; d >= 0; d--) {
    voff += (rem % p->rshape[d]) * vst[d];
    rem /= p->rshape[d];
  }
  char *t = out + toff * esz;
  const char *v = values + voff * esz;
  if (!accumulate) {
    tcp_copy(t, v, esz);
  } else if (dom == 2) {
    double ar, ai, br, bi;
    tci_ld_c(t, dt, &ar, &ai);
    tci_ld_c(v, dt, &br, &bi);
    tci_st_c(t, dt, ar + br, ai + bi);
  } else if (dom == 1) {
    tcp_st(t, dt, tcp_ld(t, dt) + tcp_ld(v, dt));
  } else {
    tci_st_i(t, dt, (int64_t)((uint64_t)tci_ld_i(t, dt) + (uint64_t)tci_ld_i(v, dt)));
  }
}

TCP_HD void tci_iput_tuple(const tci_adv *p, char *out, const int64_t *ost, const char *values, const int64_t *vst,
                           int dt, int accumulate, int64_t u) {
  int64_t nb = 1, post = tci_iput_post(p);
  for (int j = 0; j < p->bnd; j++) nb *= p->rshape[p->first + j];
  for (int64_t b = 0; b < nb; b++) {
    int64_t e = ((u / post) * nb + b) * post + u % post;
    tci_iput_one(p, out, values, vst, dt, accumulate, e, tci_adv_offset(p, ost, e));
  }
}

/* One tuple holding everything (x[i] = v on a 1-d x): the targets tg of the
 * result elements sorted (stable), perm their result elements. Sorted
 * element i starts a run of equal targets when the one before differs; the
 * run is applied in order: the last write, or the sums in the reference's
 * order. Returns without work for an element that starts no run. */
TCP_HD void tci_iput_run_of(const tci_adv *p, char *out, const char *values, const int64_t *vst, int dt,
                            int accumulate, const int64_t *tg, const int64_t *perm, int64_t i) {
  if (i > 0 && tg[i - 1] == tg[i]) return;
  int64_t n = 1;
  while (i + n < p->n && tg[i + n] == tg[i]) n++;
  for (int64_t r = accumulate ? 0 : n - 1; r < n; r++)
    tci_iput_one(p, out, values, vst, dt, accumulate, perm[i + r], tg[i]);
}

/* The tuples in turn (test_cuda_idx_host checks this against the reference). */
TCP_HD void tci_iput_run(const tci_adv *p, char *out, const int64_t *ost, const char *values, const int64_t *vst,
                         int dt, int accumulate) {
  for (int64_t u = 0; u < tci_iput_tuples(p); u++) tci_iput_tuple(p, out, ost, values, vst, dt, accumulate, u);
}

#endif
