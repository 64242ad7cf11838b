/* plugins/cuda/tc_idx.cu: index.Tensor, index_put, scatter_reduce.two,
 * nonzero, masked_scatter, randperm.
 *
 * index.Tensor/index_put: the index tensors are copied to the host, where
 * the reference's own plan (reference/ref_index_check.c, linked in: masks to
 * coordinates, broadcasting, bounds, the result layout, its messages) is built and its broadcast
 * indices packed and uploaded; index.Tensor is then a gather, one thread
 * per result element; index_put a thread per tuple of the dims that are not
 * indexed, walking the index positions in order (tuples never share a
 * target, so each target sees the reference's order: last write wins,
 * accumulate adds in order; deterministic, no atomics). Indexing every dim
 * (x[i] = v on a 1-d x) is one tuple: then each result element's target is
 * computed, the targets sorted (stable), and a thread takes each run of
 * equal targets in order.
 * scatter_reduce.two: the arguments are checked on the host with the
 * reference's checks (reference/ref_index_check.c); the index values are
 * copied to the host and checked there in order (the reference's message for the first bad one);
 * then tc_idx.cuh's three steps of tci_sr_run: accumulators from out (a
 * thread per element), a thread per line of the index along dim walking it
 * in order (lines never share a target, so each target sees the reference's
 * order), the store: deterministic, no atomics, so deterministic mode has
 * nothing to refuse. Few long lines (a 1-d index is one): the index is
 * sorted along dim (stable) and a thread takes each run of equal targets.
 * nonzero and masked_scatter: a parallel count, scan and write of the set
 * elements in row-major order (see tci_cmp), the count read back in between
 * (nonzero's result size; masked_scatter refuses, with the reference's
 * error, a source with fewer elements than the mask sets).
 * randperm: the reference's Fisher-Yates permutation with the output
 * device's generator (the reference's numbers for a seed), computed in
 * parallel rounds (tc_idx.cuh says why the result is the sequential one);
 * atomicMax reservations, whose outcome does not depend on their order, so
 * it is deterministic too. */
#include "tc_ew_dev.cuh"
#include "tc_idx.cuh"
#include "ref_index_check.h"

#include <stdlib.h>

/* scatter_reduce.two's three steps (tc_idx.cuh): 0 init, 1 lines (or, with
   sv/perm, runs of equal targets of the sorted index), 2 store. */
__global__ void tci_sr_kernel(const tci_sr a, int step, const int64_t *sv, const int64_t *perm) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x, n = step != 1 ? a.n_out : sv ? a.n_idx : tci_sr_lines(&a);
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (step == 0) tci_sr_init(&a, i);
    else if (step == 2) tci_sr_fini(&a, i);
    else if (sv) tci_sr_run_of(&a, sv, perm, i);
    else tci_sr_line(&a, i);
  }
}

/* nonzero and masked_scatter: each set element's rank among the set ones in
 * row-major order (its result row; the source element it takes). Chunks of
 * KC elements, a block each, thread t taking KP elements from t * KP:
 *   1. count the set elements of each chunk;
 *   2. one block turns the chunk counts into offsets and the total;
 *   3. (after the host has read the total: the result's size, or
 *      masked_scatter's "source too short" check) rank and write each chunk
 *      from its offset, the threads' counts by a Hillis-Steele scan.
 * The same result as tci_nz_run/tci_ms_run's walk (test_cuda_idx_host checks
 * those against the reference), in parallel. */
#define KT 256
#define KP 8
#define KC (KT * KP)
#define KO 1024 /* threads of the offsets block */

typedef struct tci_cmp {
  tci_nz nz;
  tci_ms ms;
  int ms_mode; /* 0: nonzero (nz), 1: masked_scatter (ms) */
  int64_t n, chunks;
  int64_t *part; /* [chunks] counts, then offsets; part[chunks]: the total */
} tci_cmp;

TC_D int cmp_flag(const tci_cmp &a, int64_t e) { return a.ms_mode ? tci_ms_flag(&a.ms, e) : tci_nz_flag(&a.nz, e); }

TC_D int thread_count(const tci_cmp &a, int64_t e0) {
  int k = 0;
  for (int64_t e = e0; e < e0 + KP && e < a.n; e++) k += cmp_flag(a, e);
  return k;
}

__global__ void __launch_bounds__(KT) tci_count_kernel(const tci_cmp a) {
  TC_SHARED(int64_t, sh, [KT]);
  int t = threadIdx.x;
  for (int64_t c = blockIdx.x; c < a.chunks; c += gridDim.x) {
    sh[t] = thread_count(a, c * KC + (int64_t)t * KP);
    __syncthreads();
    for (int w = KT / 2; w > 0; w >>= 1) {
      if (t < w) sh[t] += sh[t + w];
      __syncthreads();
    }
    if (t == 0) a.part[c] = sh[0];
    __syncthreads();
  }
}

/* One block of KO threads: thread t owns a run of chunks. */
__global__ void __launch_bounds__(KO) tci_offsets_kernel(const tci_cmp a) {
  TC_SHARED(int64_t, sh, [2][KO]);
  int t = threadIdx.x, cur = 0;
  int64_t q = (a.chunks + KO - 1) / KO, lo = t * q, hi = lo + q < a.chunks ? lo + q : a.chunks, sum = 0;
  for (int64_t c = lo; c < hi; c++) sum += a.part[c];
  sh[0][t] = sum;
  __syncthreads();
  for (int w = 1; w < KO; w <<= 1) {
    sh[cur ^ 1][t] = t >= w ? sh[cur][t - w] + sh[cur][t] : sh[cur][t];
    cur ^= 1;
    __syncthreads();
  }
  int64_t off = t > 0 ? sh[cur][t - 1] : 0;
  for (int64_t c = lo; c < hi; c++) {
    int64_t v = a.part[c];
    a.part[c] = off;
    off += v;
  }
  if (t == KO - 1) a.part[a.chunks] = sh[cur][KO - 1];
}

__global__ void __launch_bounds__(KT) tci_write_kernel(const tci_cmp a) {
  TC_SHARED(int64_t, sh, [2][KT]);
  int t = threadIdx.x;
  for (int64_t c = blockIdx.x; c < a.chunks; c += gridDim.x) {
    int64_t e0 = c * KC + (int64_t)t * KP;
    int cur = 0;
    sh[0][t] = thread_count(a, e0);
    __syncthreads();
    for (int w = 1; w < KT; w <<= 1) {
      sh[cur ^ 1][t] = t >= w ? sh[cur][t - w] + sh[cur][t] : sh[cur][t];
      cur ^= 1;
      __syncthreads();
    }
    int64_t r = a.part[c] + (t > 0 ? sh[cur][t - 1] : 0);
    for (int64_t e = e0; e < e0 + KP && e < a.n; e++) {
      int set = cmp_flag(a, e);
      if (a.ms_mode) tci_ms_write(&a.ms, e, set, r);
      else if (set) tci_nz_write(&a.nz, e, r);
      r += set;
    }
    __syncthreads();
  }
}

/* Steps 1 and 2 (a->part: chunks + 1 int64 of scratch), then the total read back. */
static tabi_status cmp_count(tc_ctx *c, const char *OPN, tci_cmp *a, DLDevice dev, tabi_tensor **scr,
                             int64_t *total) {
  a->chunks = (a->n + KC - 1) / KC;
  int64_t len = a->chunks + 1;
  tabi_status st = tc_empty(c, dev, TABI_DTYPE_INT64, 1, &len, scr);
  if (st != TABI_OK) return st;
  a->part = (int64_t *)tabi_tensor_data(*scr);
  TC_LAUNCH(tc_grid(a->chunks, 1), KT, tci_count_kernel)(*a);
  if ((st = tc_launch_status(c, OPN)) != TABI_OK) return st;
  TC_LAUNCH(1, KO, tci_offsets_kernel)(*a);
  if ((st = tc_launch_status(c, OPN)) != TABI_OK) return st;
  return tc_cuda_status(c, cudaMemcpy(total, a->part + a->chunks, 8, cudaMemcpyDeviceToHost), OPN, "cudaMemcpy");
}

static tabi_status cmp_write(tc_ctx *c, const char *OPN, const tci_cmp *a) {
  TC_LAUNCH(tc_grid(a->chunks, 1), KT, tci_write_kernel)(*a);
  return tc_launch_status(c, OPN);
}

/* randperm in rounds over lists of the steps left (tc_idx.cuh). Up to
   TCI_RP_BLOCK_N elements one block runs everything in one launch. Beyond,
   each round is two grid-wide launches (reservations; commits, which append
   the steps left to the next list and count them), until the count, read
   back every TCI_RP_CHECK_EVERY rounds, is at most TCI_RP_BLOCK_N; then one
   block runs the remaining rounds in one launch (about 35 of them at 2^24,
   each a few microseconds of latency, where a launch pair costs more).
   Past TCI_RP_MAX_ROUNDS (never seen: ~63 rounds at 2^24) one thread
   finishes the rest in order. */
#define TCI_RP_BLOCK_N 8192
#define TCI_RP_MAX_ROUNDS 4096
#define TCI_RP_CHECK_EVERY 4 /* rounds between reads of the count (each one a sync) */

/* One block: the rounds from `round` on over the m steps of list a (b has
   room for as many), then the steps left, if any, in order. r: the
   reservations, R wide, their tags the round shifted by ibits. */
template <class R>
__device__ void tci_rp_block_rounds(int64_t *a, int64_t *b, int64_t m, int round, int64_t n, int64_t *h, R *r,
                                    int ibits, int64_t *perm) {
  TC_SHARED(unsigned long long, cnt, [2]); /* round & 1: that round's list length */
  for (; m > 0 && round <= TCI_RP_MAX_ROUNDS; round++) {
    R tag = (R)((R)round << ibits);
    unsigned long long *nb = &cnt[round & 1];
    /* nb was last read after the barrier that ended round - 2, by threads
       that have all passed the one that ended round - 1 */
    if (threadIdx.x == 0) *nb = 0;
    for (int64_t k = threadIdx.x; k < m; k += blockDim.x) tci_rp_reserve(a[k], h, r, tag);
    __syncthreads();
    for (int64_t k = threadIdx.x; k < m; k += blockDim.x)
      if (tci_rp_commit(a[k], h, r, perm, tag)) b[tcp_atomic_add(nb, 1ull)] = a[k];
    __syncthreads();
    m = (int64_t)*nb;
    int64_t *t = a;
    a = b;
    b = t;
  }
  if (m > 0 && threadIdx.x == 0) tci_rp_finish(n, h, perm);
}

/* n <= TCI_RP_BLOCK_N: everything, the reservations in shared memory (32
   bits each, TCI_RP_TAG32: the rounds' atomics and reads never leave the
   SM, where they are most of a round's latency). la, lb: room for n steps
   each. */
static_assert(TCI_RP_BLOCK_N <= (1 << TCI_RP_IBITS32), "the block's reservations carry a step in 13 bits");
__global__ void __launch_bounds__(1024) tci_rp_block_kernel(int64_t n, uint64_t seed, uint64_t offset,
                                                             int64_t *perm, int64_t *h, int64_t *la, int64_t *lb,
                                                             char *out, int dt) {
  TC_SHARED(unsigned, r, [TCI_RP_BLOCK_N]);
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    tci_rp_init(i, perm, h, r, seed, offset);
    la[i] = i + 1; /* steps 1 .. n - 1 */
  }
  __syncthreads();
  tci_rp_block_rounds(la, lb, n - 1, 1, n, h, r, TCI_RP_IBITS32, perm);
  __syncthreads();
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) tci_rp_store(i, perm, out, dt);
}

__global__ void tci_rp_init_kernel(int64_t n, uint64_t seed, uint64_t offset, int64_t *perm, int64_t *h,
                                   unsigned long long *r) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    tci_rp_init(i, perm, h, r, seed, offset);
}

/* A grid-wide round's list: the previous round's (its length on the
   device), or every step for the first (la NULL: steps 0 .. n - 1, of which
   0 is none). */
#define TCI_RP_LIST_LEN(la, len, n) ((la) ? (int64_t)*(len) : (n))
#define TCI_RP_STEP(la, k) ((la) ? (la)[k] : (k))

__global__ void tci_rp_reserve_kernel(const int64_t *la, const unsigned long long *len, int64_t n, const int64_t *h,
                                      unsigned long long *r, unsigned long long tag) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x, m = TCI_RP_LIST_LEN(la, len, n);
  for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < m; k += stride)
    tci_rp_reserve(TCI_RP_STEP(la, k), h, r, tag);
}

/* The commits; the steps left go to lb, *lb_len counting them. A block
   gathers its appends and reserves their room with one atomic (one an
   element would queue up on a single address). */
__global__ void __launch_bounds__(256) tci_rp_commit_kernel(const int64_t *la, const unsigned long long *len,
                                                             int64_t n, int64_t *h, const unsigned long long *r,
                                                             int64_t *perm, unsigned long long tag, int64_t *lb,
                                                             unsigned long long *lb_len) {
  TC_SHARED(unsigned, cnt, [1]);
  TC_SHARED(unsigned long long, base, [1]);
  int64_t stride = (int64_t)gridDim.x * blockDim.x, m = TCI_RP_LIST_LEN(la, len, n);
  if (threadIdx.x == 0) cnt[0] = 0;
  __syncthreads();
  /* the bound is the block's, so every thread takes each barrier */
  for (int64_t k0 = (int64_t)blockIdx.x * blockDim.x; k0 < m; k0 += stride) {
    int64_t k = k0 + threadIdx.x, i = k < m ? TCI_RP_STEP(la, k) : 0;
    int left = k < m && tci_rp_commit(i, h, r, perm, tag);
    unsigned at = left ? tcp_atomic_add(&cnt[0], 1u) : 0;
    __syncthreads();
    if (threadIdx.x == 0) { /* the next chunk counts after the barrier below */
      base[0] = cnt[0] ? tcp_atomic_add(lb_len, (unsigned long long)cnt[0]) : 0;
      cnt[0] = 0;
    }
    __syncthreads();
    if (left) lb[base[0] + at] = i;
  }
}

/* The rounds after the grid-wide ones: la and *len from the last of those. */
__global__ void __launch_bounds__(1024) tci_rp_tail_kernel(int64_t *la, const unsigned long long *len, int64_t *lb,
                                                            int round, int64_t n, int64_t *h, unsigned long long *r,
                                                            int64_t *perm) {
  tci_rp_block_rounds(la, lb, (int64_t)*len, round, n, h, r, TCI_RP_IBITS, perm);
}

__global__ void tci_rp_store_kernel(int64_t n, const int64_t *perm, char *out, int dt) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) tci_rp_store(i, perm, out, dt);
}

/* The grid-wide rounds; perm, h, r, the lists, out on the device; lens:
   TCI_RP_MAX_ROUNDS + 1 counts (round k's list length at k). */
static tabi_status rp_rounds(tc_ctx *c, const char *OPN, int64_t n, uint64_t seed, uint64_t offset, int64_t *perm,
                             int64_t *h, unsigned long long *r, int64_t *lists[2], unsigned long long *lens,
                             char *out, int dt) {
  tabi_status st = tc_cuda_status(
      c, cudaMemsetAsync(lens, 0, (TCI_RP_MAX_ROUNDS + 1) * sizeof(unsigned long long), 0), OPN, "cudaMemsetAsync");
  int round = 1;
  int64_t m = n; /* the last count read: the grid's size */
  if (st == TABI_OK) {
    TC_LAUNCH(tc_grid(n, 256), 256, tci_rp_init_kernel)(n, seed, offset, perm, h, r);
    st = tc_launch_status(c, OPN);
  }
  for (; st == TABI_OK && m > TCI_RP_BLOCK_N && round < TCI_RP_MAX_ROUNDS; round++) {
    unsigned long long tag = TCI_RP_TAG(round);
    const int64_t *la = round > 1 ? lists[(round - 1) & 1] : NULL;
    int g = tc_grid(m, 256);
    TC_LAUNCH(g, 256, tci_rp_reserve_kernel)(la, lens + round - 1, n, h, r, tag);
    TC_LAUNCH(g, 256, tci_rp_commit_kernel)(la, lens + round - 1, n, h, r, perm, tag, lists[round & 1], lens + round);
    st = tc_launch_status(c, OPN);
    if (st == TABI_OK && round % TCI_RP_CHECK_EVERY == 0) {
      unsigned long long left = 0;
      st = tc_cuda_status(c, cudaMemcpy(&left, lens + round, sizeof left, cudaMemcpyDeviceToHost), OPN,
                          "cudaMemcpy");
      m = (int64_t)left;
    }
  }
  if (st == TABI_OK) { /* round - 1 was the last grid-wide one */
    TC_LAUNCH(1, 1024, tci_rp_tail_kernel)(lists[(round - 1) & 1], lens + round - 1, lists[round & 1], round, n, h,
                                           r, perm);
    st = tc_launch_status(c, OPN);
  }
  if (st == TABI_OK) {
    TC_LAUNCH(tc_grid(n, 256), 256, tci_rp_store_kernel)(n, perm, out, dt);
    st = tc_launch_status(c, OPN);
  }
  return st;
}

typedef struct tci_strides {
  int64_t s[TCI_MAX_DIMS];
} tci_strides;

__global__ void tci_index_kernel(const tci_adv p, const char *self, const tci_strides sst, char *out, int esz) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < p.n; e += stride)
    tci_index_elem(&p, self, sst.s, out, esz, e);
}

/* index_put with everything indexed: each result element's target, then (the
   targets sorted) a thread per run of equal targets (tc_idx.cuh). */
__global__ void tci_iput_targets_kernel(const tci_adv p, const tci_strides ost, int64_t *tg) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < p.n; e += stride)
    tg[e] = tci_adv_offset(&p, ost.s, e);
}
__global__ void tci_iput_runs_kernel(const tci_adv p, char *out, const char *values, const tci_strides vst, int dt,
                                     int accumulate, const int64_t *tg, const int64_t *perm) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += stride)
    tci_iput_run_of(&p, out, values, vst.s, dt, accumulate, tg, perm, i);
}

/* index_put: a thread per tuple of the dims that are not indexed (tc_idx.cuh). */
__global__ void tci_iput_kernel(const tci_adv p, char *out, const tci_strides ost, const char *values,
                                const tci_strides vst, int dt, int accumulate) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x, n = tci_iput_tuples(&p);
  for (int64_t u = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; u < n; u += stride)
    tci_iput_tuple(&p, out, ost.s, values, vst.s, dt, accumulate, u);
}

static int64_t ne_size(const tabi_tensor *t, int32_t d) { return t->dl.ndim ? t->dl.shape[d] : 1; }
static int64_t ne_stride(const tabi_tensor *t, int32_t d) { return t->dl.ndim ? t->dl.strides[d] : 0; }

static tabi_status k_scatter_reduce(TC_ARGS) {
  TC_CTX;
  tabi_tensor *self = args[0].u.t, *index = args[2].u.t, *src = args[3].u.t;
  int32_t dim;
  int kind;
  tabi_status st = ref_idx_sr_check(c->h, call, args, &dim, &kind);
  if (st) return st;
  if ((st = tc_check_cuda(c, self, OPN, "self")) || (st = tc_check_cuda(c, index, OPN, "index")) ||
      (st = tc_check_cuda(c, src, OPN, "src")) || (st = tc_use_device(c, self, OPN)))
    return st;
  int64_t nidx = tabi_tensor_numel(index);
  if ((st = tc_index_bounds(c, call, index, dim, ne_size(self, dim)))) return st;
  tabi_dtype dt = tabi_tensor_dtype(self);
  tabi_tensor *out = NULL, *scr = NULL;
  if ((st = tc_empty(c, self->dl.device, dt, self->dl.ndim, self->dl.shape, &out))) return st;
  if (tabi_tensor_numel(out) > 0) st = tc_copy_convert(c, OPN, out, self);
  tci_sr a;
  memset(&a, 0, sizeof a);
  a.n_out = tabi_tensor_numel(out);
  a.n_idx = nidx;
  if (st == TABI_OK && nidx > 0) {
    int64_t nb = a.n_out * (int64_t)sizeof(tci_acc);
    st = tc_empty(c, self->dl.device, TABI_DTYPE_UINT8, 1, &nb, &scr);
    if (st == TABI_OK) {
      a.idx = (const char *)tabi_tensor_data(index);
      a.src = (const char *)tabi_tensor_data(src);
      a.out = (char *)tabi_tensor_data(out);
      a.acc = (tci_acc *)tabi_tensor_data(scr);
      a.nd = self->dl.ndim ? self->dl.ndim : 1;
      a.dim = dim;
      a.dt = dt;
      a.kind = kind;
      a.include_self = args[5].u.i != 0;
      for (int32_t d = 0; d < a.nd; d++) {
        a.ishape[d] = ne_size(index, d);
        a.ist[d] = ne_stride(index, d);
        a.sst[d] = ne_stride(src, d);
        a.ost[d] = ne_stride(out, d);
      }
      /* few long lines (a 1-d index is one): by runs of the index sorted along dim */
      int64_t len = a.ishape[a.dim], lines = a.n_idx / len;
      tabi_tensor *sv = NULL, *perm = NULL;
      if (lines < 2048 && len > 64) st = tc_sort_run(c, OPN, index, dim, 0, len, &sv, &perm);
      const int64_t *svp = sv ? (const int64_t *)tabi_tensor_data(sv) : NULL;
      const int64_t *pp = perm ? (const int64_t *)tabi_tensor_data(perm) : NULL;
      for (int step = 0; step < 3 && st == TABI_OK; step++) {
        TC_LAUNCH(tc_grid(step != 1 ? a.n_out : sv ? a.n_idx : lines, 128), 128, tci_sr_kernel)(a, step, svp, pp);
        st = tc_launch_status(c, OPN);
      }
      c->h->tensor_release(c->h->ctx, sv);
      c->h->tensor_release(c->h->ctx, perm);
    }
  }
  tc_release_all(c, &scr, 1);
  return tc_finish(c, st, out, &outs[0]);
}

static tabi_status k_nonzero(TC_ARGS) {
  TC_CTX;
  tabi_tensor *self = args[0].u.t;
  tabi_status st = ref_idx_nonzero_check(c->h, call, args);
  if (st) return st;
  if ((st = tc_check_cuda(c, self, OPN, "self")) || (st = tc_use_device(c, self, OPN))) return st;
  tci_cmp a;
  memset(&a, 0, sizeof a);
  a.nz.in = (const char *)tabi_tensor_data(self);
  a.nz.nd = self->dl.ndim;
  a.nz.dt = tabi_tensor_dtype(self);
  a.n = a.nz.n = tabi_tensor_numel(self);
  for (int32_t d = 0; d < a.nz.nd; d++) {
    a.nz.shape[d] = self->dl.shape[d];
    a.nz.st[d] = self->dl.strides[d];
  }
  int64_t count = 0;
  tabi_tensor *cnt = NULL, *out = NULL;
  if (a.n > 0) st = cmp_count(c, OPN, &a, self->dl.device, &cnt, &count);
  int64_t oshape[2] = {count, a.nz.nd};
  if (st == TABI_OK) st = tc_empty(c, self->dl.device, TABI_DTYPE_INT64, 2, oshape, &out);
  if (st == TABI_OK && count > 0 && a.nz.nd > 0) {
    a.nz.out = (int64_t *)tabi_tensor_data(out);
    st = cmp_write(c, OPN, &a);
  }
  tc_release_all(c, &cnt, 1);
  return tc_finish(c, st, out, &outs[0]);
}

/* t's strides against the broadcast shape (nd dims): 0 on expanded dims. */
static void bcast_strides(const tabi_tensor *t, int32_t nd, const int64_t *shape, int64_t *st) {
  for (int32_t d = 0; d < nd; d++) {
    int32_t td = d - (nd - t->dl.ndim);
    st[d] = td < 0 || (t->dl.shape[td] == 1 && shape[d] != 1) ? 0 : t->dl.strides[td];
  }
}

static tabi_status k_masked_scatter(TC_ARGS) {
  TC_CTX;
  tabi_tensor *self = args[0].u.t, *mask = args[1].u.t, *src = args[2].u.t;
  tci_ms a;
  memset(&a, 0, sizeof a);
  tabi_status st = ref_idx_ms_check(c->h, call, args, &a.nd, a.shape);
  if (st) return st;
  if ((st = tc_check_cuda(c, self, OPN, "self")) || (st = tc_check_cuda(c, mask, OPN, "mask")) ||
      (st = tc_check_cuda(c, src, OPN, "source")) || (st = tc_use_device(c, self, OPN)))
    return st;
  a.dt = tabi_tensor_dtype(self);
  a.mdt = tabi_tensor_dtype(mask);
  a.n = 1;
  for (int32_t d = 0; d < a.nd; d++) a.n *= a.shape[d];
  bcast_strides(self, a.nd, a.shape, a.sst);
  bcast_strides(mask, a.nd, a.shape, a.mst);
  a.snd = src->dl.ndim;
  for (int32_t d = 0; d < a.snd; d++) {
    a.srcshape[d] = src->dl.shape[d];
    a.srcst[d] = src->dl.strides[d];
  }
  a.nsrc = tabi_tensor_numel(src);
  a.self = (const char *)tabi_tensor_data(self);
  a.mask = (const char *)tabi_tensor_data(mask);
  a.src = (const char *)tabi_tensor_data(src);
  tabi_tensor *out = NULL, *scr = NULL;
  int64_t set = 0;
  if ((st = tc_empty(c, self->dl.device, a.dt, a.nd, a.shape, &out))) return st;
  if (a.n > 0) {
    a.out = (char *)tabi_tensor_data(out);
    tci_cmp k;
    memset(&k, 0, sizeof k);
    k.ms = a;
    k.ms_mode = 1;
    k.n = a.n;
    st = cmp_count(c, OPN, &k, self->dl.device, &scr, &set);
    if (st == TABI_OK && set > a.nsrc) st = ref_idx_ms_short(c->h, call, a.nsrc);
    if (st == TABI_OK) st = cmp_write(c, OPN, &k);
  }
  tc_release_all(c, &scr, 1);
  return tc_finish(c, st, out, &outs[0]);
}

static tabi_status k_randperm(TC_ARGS) {
  TC_CTX;
  tabi_dtype dt;
  tabi_status st = ref_idx_randperm_check(c->h, call, args, &dt);
  if (st) return st;
  DLDevice dev = {kDLCPU, 0};
  if (args[3].tag == TABI_TAG_DEVICE) dev = args[3].u.device;
  if (dev.device_type != TC_DL_DEVICE)
    return TC_ERR(c, TABI_ERR_DEVICE, "%s: argument 'device' is not a " TC_PLATFORM " device", OPN);
  int64_t n = args[0].u.i;
  if (n >= ((int64_t)1 << TCI_RP_IBITS)) /* 40 bytes of scratch an element: 40 TB */
    return TC_ERR(c, TABI_ERR_OUT_OF_MEMORY, "%s: a permutation of %lld elements is more than the device holds",
                  OPN, (long long)n);
  tabi_tensor *out = NULL, *scr = NULL;
  if ((st = tc_empty(c, dev, dt, 1, &n, &out))) return st;
  if (n > 0) {
    uint64_t seed = 0, offset = 0;
    /* perm, the targets h, the reservations r, two lists; the grid-wide
       rounds' list lengths */
    int64_t ns = 5 * n + (n > TCI_RP_BLOCK_N ? TCI_RP_MAX_ROUNDS + 1 : 0);
    st = c->h->rng_reserve(c->h->ctx, dev, (uint64_t)n, &seed, &offset);
    if (st == TABI_OK) st = tc_use_device(c, out, OPN);
    if (st == TABI_OK) st = tc_empty(c, dev, TABI_DTYPE_INT64, 1, &ns, &scr);
    if (st == TABI_OK) {
      int64_t *perm = (int64_t *)tabi_tensor_data(scr), *h = perm + n;
      unsigned long long *r = (unsigned long long *)(h + n);
      int64_t *lists[2] = {(int64_t *)(r + n), (int64_t *)(r + n) + n};
      char *o = (char *)tabi_tensor_data(out);
      if (n <= TCI_RP_BLOCK_N) {
        TC_LAUNCH(1, 1024, tci_rp_block_kernel)(n, seed, offset, perm, h, lists[0], lists[1], o, dt);
        st = tc_launch_status(c, OPN);
      } else {
        st = rp_rounds(c, OPN, n, seed, offset, perm, h, r, lists, (unsigned long long *)(lists[1] + n), o, dt);
      }
    }
  }
  tc_release_all(c, &scr, 1);
  return tc_finish(c, st, out, &outs[0]);
}

/* --- advanced indexing -------------------------------------------------------- */

/* Host copies (CPU, contiguous, same dtype) of the non-None index tensors. */
static tabi_status host_list(tc_ctx *c, const char *OPN, const tabi_value *v, int64_t *n, tabi_tensor **hl) {
  *n = v->u.list.len;
  tabi_tensor *const *list = *n ? tabi_value_tensors(v) : NULL;
  tabi_status st = TABI_OK;
  for (int64_t k = 0; k < *n && k < REF_ADV_MAX + 1; k++) hl[k] = NULL;
  for (int64_t k = 0; k < *n && k < REF_ADV_MAX + 1 && st == TABI_OK; k++) {
    const tabi_tensor *t = list[k];
    if (!t) continue;
    if ((st = tc_check_cuda(c, t, OPN, "indices"))) break;
    st = tc_host_copy(c, OPN, t, tabi_tensor_dtype(t), &hl[k]);
  }
  return st;
}

/* The plan on the host (*p, released here but for its shapes), then its
 * packed indices on the device (*ib) and the device plan *dp. */
static tabi_status adv_plan(tc_ctx *c, const tabi_call *call, const char *OPN, const tabi_tensor *self,
                            const tabi_value *indices, ref_adv *p, tci_adv *dp, tabi_tensor **ib) {
  tabi_tensor *hl[REF_ADV_MAX + 1] = {NULL};
  int64_t n;
  *ib = NULL;
  memset(p, 0, sizeof *p);
  memset(dp, 0, sizeof *dp);
  tabi_status st = host_list(c, OPN, indices, &n, hl);
  if (st == TABI_OK) st = ref_adv_build(c->h, call, self, n, (const tabi_tensor *const *)hl, p);
  tc_release_all(c, hl, (int)(n < REF_ADV_MAX + 1 ? n : REF_ADV_MAX + 1));
  if (st != TABI_OK) return st;
  int64_t ndef = 0;
  dp->ndim = p->ndim;
  dp->bnd = p->bnd;
  dp->first = p->first;
  dp->rnd = p->rnd;
  dp->nb = p->nb;
  dp->n = 1;
  for (int32_t d = 0; d < p->rnd; d++) {
    dp->rshape[d] = p->rshape[d];
    dp->n *= p->rshape[d];
  }
  for (int32_t d = 0; d < p->ndim; d++) {
    dp->idx[d] = p->has[d] ? ndef++ * p->nb : -1;
    dp->rpos[d] = p->rpos[d];
  }
  int64_t total = ndef * p->nb;
  if (total > 0) {
    int64_t *buf = (int64_t *)malloc(sizeof(int64_t) * (size_t)total);
    if (!buf) st = TC_ERR(c, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", OPN);
    if (st == TABI_OK) {
      tc_adv_pack(p, self->dl.shape, buf);
      st = tc_empty(c, self->dl.device, TABI_DTYPE_INT64, 1, &total, ib);
    }
    if (st == TABI_OK)
      st = tc_cuda_status(c, cudaMemcpy(tabi_tensor_data(*ib), buf, (size_t)total * 8, cudaMemcpyHostToDevice), OPN,
                          "cudaMemcpy");
    free(buf);
    if (st == TABI_OK) dp->ib = (const int64_t *)tabi_tensor_data(*ib);
  }
  ref_adv_release(p);
  return st;
}

static tabi_status k_index(TC_ARGS) {
  TC_CTX;
  tabi_tensor *self = args[0].u.t;
  tabi_status st = ref_idx_index_check(c->h, call, args);
  if (st) return st;
  if ((st = tc_check_cuda(c, self, OPN, "self")) || (st = tc_use_device(c, self, OPN))) return st;
  ref_adv p;
  tci_adv dp;
  tabi_tensor *ib = NULL, *out = NULL;
  st = adv_plan(c, call, OPN, self, &args[1], &p, &dp, &ib);
  if (st == TABI_OK) st = tc_empty(c, self->dl.device, tabi_tensor_dtype(self), dp.rnd, dp.rshape, &out);
  if (st == TABI_OK && dp.n > 0) {
    tci_strides sst;
    memset(&sst, 0, sizeof sst);
    for (int32_t d = 0; d < self->dl.ndim; d++) sst.s[d] = self->dl.strides[d];
    TC_LAUNCH(tc_grid(dp.n, 256), 256, tci_index_kernel)(dp, (const char *)tabi_tensor_data(self), sst,
                                               (char *)tabi_tensor_data(out), tci_esz(tabi_tensor_dtype(self)));
    st = tc_launch_status(c, OPN);
  }
  tc_release_all(c, &ib, 1);
  return tc_finish(c, st, out, &outs[0]);
}

static tabi_status k_index_put(TC_ARGS) {
  TC_CTX;
  tabi_tensor *self = args[0].u.t, *values = args[2].u.t;
  tabi_status st = ref_idx_iput_check(c->h, call, args);
  if (st) return st;
  if ((st = tc_check_cuda(c, self, OPN, "self")) || (st = tc_check_cuda(c, values, OPN, "values")) ||
      (st = tc_use_device(c, self, OPN)))
    return st;
  ref_adv p;
  tci_adv dp;
  tabi_tensor *ib = NULL, *out = NULL;
  st = adv_plan(c, call, OPN, self, &args[1], &p, &dp, &ib);
  if (st == TABI_OK) st = ref_idx_iput_values(c->h, call, values, &p);
  tabi_dtype dt = tabi_tensor_dtype(self);
  if (st == TABI_OK) st = tc_empty(c, self->dl.device, dt, self->dl.ndim, self->dl.shape, &out);
  if (st == TABI_OK && tabi_tensor_numel(out) > 0) st = tc_copy_convert(c, OPN, out, self);
  if (st == TABI_OK && dp.n > 0) {
    tci_strides ost, vst;
    memset(&ost, 0, sizeof ost);
    memset(&vst, 0, sizeof vst);
    for (int32_t d = 0; d < out->dl.ndim; d++) ost.s[d] = out->dl.strides[d];
    for (int32_t d = 0; d < dp.rnd; d++) {
      int32_t vd = d - (dp.rnd - values->dl.ndim);
      vst.s[d] = vd < 0 || values->dl.shape[vd] == 1 ? 0 : values->dl.strides[vd];
    }
    char *op_ = (char *)tabi_tensor_data(out);
    const char *vp = (const char *)tabi_tensor_data(values);
    int acc = args[3].u.i != 0;
    if (tci_iput_tuples(&dp) == 1 && dp.n > 64) { /* all indexed: by runs of the sorted targets */
      tabi_tensor *tg = NULL, *sv = NULL, *perm = NULL;
      st = tc_empty(c, self->dl.device, TABI_DTYPE_INT64, 1, &dp.n, &tg);
      if (st == TABI_OK) {
        TC_LAUNCH(tc_grid(dp.n, 128), 128, tci_iput_targets_kernel)(dp, ost, (int64_t *)tabi_tensor_data(tg));
        st = tc_launch_status(c, OPN);
      }
      if (st == TABI_OK) st = tc_sort_run(c, OPN, tg, 0, 0, dp.n, &sv, &perm);
      if (st == TABI_OK) {
        TC_LAUNCH(tc_grid(dp.n, 128), 128, tci_iput_runs_kernel)(dp, op_, vp, vst, dt, acc,
                                                            (const int64_t *)tabi_tensor_data(sv),
                                                            (const int64_t *)tabi_tensor_data(perm));
        st = tc_launch_status(c, OPN);
      }
      tc_release_all(c, &tg, 1);
      tc_release_all(c, &sv, 1);
      tc_release_all(c, &perm, 1);
    } else {
      TC_LAUNCH(tc_grid(tci_iput_tuples(&dp), 128), 128, tci_iput_kernel)(dp, op_, ost, vp, vst, dt, acc);
      st = tc_launch_status(c, OPN);
    }
  }
  tc_release_all(c, &ib, 1);
  return tc_finish(c, st, out, &outs[0]);
}

TC_KTABLE tc_kernel tc_idx_kernels[] = {{"aten::index.Tensor", k_index},
                                        {"aten::index_put", k_index_put},
                                        {"aten::scatter_reduce.two", k_scatter_reduce},
                                        {"aten::nonzero", k_nonzero},
                                        {"aten::masked_scatter", k_masked_scatter},
                                        {"aten::randperm", k_randperm},
                                        {NULL, NULL}};
