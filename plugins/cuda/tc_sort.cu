/* plugins/cuda/tc_sort.cu: aten::sort and aten::topk.
 *
 * The reference's sort is stable: NaN sorts as the largest, equal keys (-0.0
 * and 0.0 included) keep their input order in both directions. Ordering the
 * keys by (value, input position) makes every pair distinct, and a sort under
 * a total order has one result, so any sorting network gives the stable
 * sort's values and indices bit for bit, on every run.
 *   1. A block per tile of up to TILE elements of a slice loads them into
 *      shared memory and sorts them with a bitonic network (padding to a power
 *      of two sorts last). A slice of one tile is written out from there.
 *   2. Longer slices: merge passes over a scratch buffer, runs of TILE, 2 TILE,
 *      ... doubling; each element finds its place in the merged run by a
 *      binary search of the other run (its rank there plus its rank in its
 *      own), so every element moves in parallel and no two land on the same
 *      place. The last pass writes the outputs (topk: the first k).
 * topk is the sort cut to k. The argument checks are the reference's own
 * (reference/ref_reduce2_check.c). */
#include "tc_ew_dev.cuh"
#include "ref_reduce2_check.h"

#define TILE 2048 /* elements a block sorts in shared memory: 32 KiB of keys */

typedef struct sort_key {
  union {
    double f;
    int64_t i;
  };
  int64_t idx; /* position in the slice; -1 pads a tile to a power of two */
} sort_key;

typedef struct sort_args {
  const char *self;
  char *vals, *idx;
  int32_t nd, dim, dt, desc, flt;
  int64_t shape[TC_MAX_DIMS], sst[TC_MAX_DIMS], vst[TC_MAX_DIMS], ist[TC_MAX_DIMS];
  int64_t n, keep, slices, tiles, pad; /* pad: a tile's power-of-two length */
} sort_args;

TC_D int key_lt(int flt, const sort_key &a, const sort_key &b) {
  if (!flt) return a.i < b.i;
  if (isnan(a.f)) return 0;
  return isnan(b.f) || a.f < b.f;
}

/* Does x come before y in the output? A total order: ties go by position. */
TC_D int before(const sort_args &a, const sort_key &x, const sort_key &y) {
  if (x.idx < 0) return 0;
  if (y.idx < 0) return 1;
  if (a.desc ? key_lt(a.flt, y, x) : key_lt(a.flt, x, y)) return 1;
  if (a.desc ? key_lt(a.flt, x, y) : key_lt(a.flt, y, x)) return 0;
  return x.idx < y.idx;
}

/* Element offsets of slice s in self, values and indices. */
TC_D void slice_offsets(const sort_args &a, int64_t s, int64_t *so, int64_t *vo, int64_t *io) {
  *so = *vo = *io = 0;
  for (int d = a.nd - 1; d >= 0; d--) {
    if (d == a.dim) continue;
    int64_t i = s % a.shape[d];
    s /= a.shape[d];
    *so += i * a.sst[d];
    *vo += i * a.vst[d];
    *io += i * a.ist[d];
  }
}

TC_D void put(const sort_args &a, int64_t vo, int64_t io, int64_t pos, const sort_key &k) {
  int64_t vs = a.nd ? a.vst[a.dim] : 0, is = a.nd ? a.ist[a.dim] : 0;
  char *q = a.vals + (vo + pos * vs) * tc_dt_size(a.dt);
  if (a.flt) tc_st_f(q, a.dt, k.f);
  else tc_st_i(q, a.dt, k.i);
  ((int64_t *)a.idx)[io + pos * is] = k.idx;
}

__global__ void __launch_bounds__(TILE / 2) sort_tile_kernel(const sort_args a, sort_key *out) {
  TC_SHARED(sort_key, sh, [TILE]);
  int esz = tc_dt_size(a.dt);
  int64_t ss = a.nd ? a.sst[a.dim] : 0;
  for (int64_t b = blockIdx.x; b < a.slices * a.tiles; b += gridDim.x) {
    int64_t s = b / a.tiles, j0 = b % a.tiles * TILE, so, vo, io;
    int64_t cnt = a.n - j0 < TILE ? a.n - j0 : TILE;
    slice_offsets(a, s, &so, &vo, &io);
    for (int q = threadIdx.x; q < a.pad; q += blockDim.x) {
      sort_key k;
      k.i = 0;
      k.idx = q < cnt ? j0 + q : -1;
      if (q < cnt) {
        const char *p = a.self + (so + (j0 + q) * ss) * esz;
        if (a.flt) k.f = tc_ld_f(p, a.dt);
        else k.i = tc_ld_i(p, a.dt);
      }
      sh[q] = k;
    }
    __syncthreads();
    for (int k = 2; k <= a.pad; k <<= 1)
      for (int w = k >> 1; w > 0; w >>= 1) {
        for (int t = threadIdx.x; t < a.pad / 2; t += blockDim.x) {
          int i = 2 * w * (t / w) + t % w, l = i + w;
          sort_key x = sh[i], y = sh[l];
          if ((i & k) == 0 ? before(a, y, x) : before(a, x, y)) {
            sh[i] = y;
            sh[l] = x;
          }
        }
        __syncthreads();
      }
    for (int q = threadIdx.x; q < cnt; q += blockDim.x) {
      if (a.tiles > 1) out[s * a.n + j0 + q] = sh[q];
      else if (q < a.keep) put(a, vo, io, q, sh[q]);
    }
    __syncthreads();
  }
}

/* One merge pass: runs of w in src become runs of 2w in dst (or, last, the outputs). */
__global__ void sort_merge_kernel(const sort_args a, const sort_key *src, sort_key *dst, int64_t w, int last) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < a.slices * a.n; e += stride) {
    int64_t s = e / a.n, j = e % a.n, rs = j / w * w, ps = (j / w) % 2 ? rs - w : rs + w, pos = j;
    const sort_key *sl = src + s * a.n;
    sort_key k = sl[j];
    if (ps < a.n) {
      int64_t lo = 0, hi = a.n - ps < w ? a.n - ps : w;
      while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (before(a, sl[ps + mid], k)) lo = mid + 1;
        else hi = mid;
      }
      pos = (rs < ps ? rs : ps) + (j - rs) + lo;
    }
    if (!last) {
      dst[s * a.n + pos] = k;
    } else if (pos < a.keep) {
      int64_t so, vo, io;
      slice_offsets(a, s, &so, &vo, &io);
      put(a, vo, io, pos, k);
    }
  }
}

tabi_status tc_sort_run(tc_ctx *c, const char *op, tabi_tensor *self, int32_t dim, int desc, int64_t k,
                        tabi_tensor **out_vals, tabi_tensor **out_idx) {
  int32_t nd = self->dl.ndim;
  int64_t shape[TC_MAX_DIMS];
  for (int32_t d = 0; d < nd; d++) shape[d] = d == dim ? k : self->dl.shape[d];
  tabi_status st;
  if ((st = tc_check_cuda(c, self, op, "self")) || (st = tc_use_device(c, self, op))) return st;
  tabi_tensor *vals = NULL, *idx = NULL, *scr = NULL;
  st = tc_empty(c, self->dl.device, tabi_tensor_dtype(self), nd, shape, &vals);
  if (st == TABI_OK) st = tc_empty(c, self->dl.device, TABI_DTYPE_INT64, nd, shape, &idx);
  sort_args a;
  memset(&a, 0, sizeof a);
  a.n = nd ? self->dl.shape[dim] : 1;
  a.keep = nd ? k : 1;
  a.slices = 1;
  for (int32_t d = 0; d < nd; d++)
    if (d != dim) a.slices *= self->dl.shape[d];
  if (st == TABI_OK && a.slices > 0 && a.n > 0 && a.keep > 0) {
    a.self = (const char *)tabi_tensor_data(self);
    a.vals = (char *)tabi_tensor_data(vals);
    a.idx = (char *)tabi_tensor_data(idx);
    a.nd = nd;
    a.dim = dim;
    a.dt = tabi_tensor_dtype(self);
    a.desc = desc;
    a.flt = tabi_dtype_is_floating(tabi_tensor_dtype(self));
    for (int32_t d = 0; d < nd; d++) {
      a.shape[d] = self->dl.shape[d];
      a.sst[d] = self->dl.strides[d];
      a.vst[d] = vals->dl.strides[d];
      a.ist[d] = idx->dl.strides[d];
    }
    a.tiles = (a.n + TILE - 1) / TILE;
    for (a.pad = 1; a.pad < (a.n < TILE ? a.n : TILE);) a.pad *= 2;
    sort_key *bufs[2] = {NULL, NULL};
    if (a.tiles > 1) {
      int64_t bytes = a.slices * 2 * a.n * (int64_t)sizeof(sort_key);
      st = tc_empty(c, self->dl.device, TABI_DTYPE_UINT8, 1, &bytes, &scr);
      if (st == TABI_OK) {
        bufs[0] = (sort_key *)tabi_tensor_data(scr);
        bufs[1] = bufs[0] + a.slices * a.n;
      }
    }
    if (st == TABI_OK) {
      int threads = (int)(a.pad / 2 < 32 ? 32 : a.pad / 2);
      TC_LAUNCH(tc_grid(a.slices * a.tiles, 1), threads, sort_tile_kernel)(a, bufs[0]);
      st = tc_launch_status(c, op);
    }
    int cur = 0;
    for (int64_t w = TILE; st == TABI_OK && w < a.n; w *= 2, cur ^= 1) {
      int last = 2 * w >= a.n;
      TC_LAUNCH(tc_grid(a.slices * a.n, 256), 256, sort_merge_kernel)(a, bufs[cur], bufs[cur ^ 1], w,
                                                                                 last);
      st = tc_launch_status(c, op);
    }
  }
  c->h->tensor_release(c->h->ctx, scr);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, vals);
    c->h->tensor_release(c->h->ctx, idx);
    return st;
  }
  *out_vals = vals;
  *out_idx = idx;
  return TABI_OK;
}

static tabi_status sort_common(tc_ctx *c, const char *op, tabi_tensor *self, int32_t dim, int desc,
                               int64_t k, tabi_value *outs) {
  tabi_tensor *vals = NULL, *idx = NULL;
  tabi_status st = tc_sort_run(c, op, self, dim, desc, k, &vals, &idx);
  if (st != TABI_OK) return st;
  outs[0] = tabi_tensor_value(vals);
  outs[1] = tabi_tensor_value(idx);
  return TABI_OK;
}

static tabi_status k_sort(TC_ARGS) {
  TC_CTX;
  int32_t dim;
  int64_t n;
  tabi_status st = ref_sort_check(c->h, call, args, &dim, &n);
  if (st) return st;
  return sort_common(c, OPN, args[0].u.t, dim, (int)args[2].u.i, n, outs);
}

static tabi_status k_topk(TC_ARGS) {
  TC_CTX;
  int32_t dim;
  int64_t k;
  tabi_status st = ref_topk_check(c->h, call, args, &dim, &k);
  if (st) return st;
  return sort_common(c, OPN, args[0].u.t, dim, (int)args[3].u.i, k, outs);
}

TC_KTABLE tc_kernel tc_sort_kernels[] = {{"aten::sort", k_sort}, {"aten::topk", k_topk}, {NULL, NULL}};
