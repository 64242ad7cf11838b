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
#include "tc_pad_up.cuh" /* tcp_copy, tcp_atomic_add */
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

/* --- radix sort of long slices --------------------------------------------------------
 * A slice of RX_MIN or more elements is sorted by LSD radix sort instead of
 * the merge passes, whose every element binary-searches the other run
 * (0.064x PyTorch on a 2^24 float32 sort on an H200, 2026-11-30). Each
 * element becomes an unsigned key whose order is the sort's (rx_key: NaN
 * one largest key, -0.0 as 0.0, signed integers offset, every bit inverted
 * for descending; as wide as the element: 16 bits for float16, bfloat16
 * and the narrow integers, 32 for float32 and int32, 64 for float64 and
 * int64) beside its position; RX_BITS bits a pass, each pass
 * stable, so equal keys keep their input order, as the reference's. A pass
 * counts its digits in tiles of RX_TILE (rx_hist_kernel), scans the counts
 * digit-major (rx_scan_*: every tile's start for every digit), and moves
 * each tile's elements (rx_move_kernel): ranked within the tile by thread
 * and then item, in two stable splits of RX_SBITS bits each staged in
 * shared memory (a per-thread count of 256 digits would not fit there),
 * then written out in runs. 8 bits a pass: 4 passes for float32 (there were
 * 8 of 4 bits until stop 35; each moves every key and position once). The
 * values are gathered from the input by the sorted positions at the end,
 * so they keep their bits (NaN payloads, -0.0). Counting is by shared
 * memory atomics (their order does not matter) and barriers; no warp
 * shuffles, so gpusim and HIP run the same code. */
#define RX_MIN 65536
#define RX_NT 256
#define RX_ITEMS 8
#define RX_TILE (RX_NT * RX_ITEMS)
#define RX_BITS 8 /* a pass's digit */
#define RX_DIGITS (1 << RX_BITS)
#define RX_SBITS 4 /* a split's: a digit is ranked within its tile in two */
#define RX_SDIGITS (1 << RX_SBITS)
static_assert(RX_DIGITS == RX_NT, "the tile's digit counts are scanned one a thread");
static_assert(RX_BITS == 2 * RX_SBITS, "two splits a pass");

template <typename K>
TC_D K rx_key(const sort_args &a, const char *p) {
  const uint64_t sign = 1ull << (8 * sizeof(K) - 1);
  uint64_t u;
  if (!a.flt) { /* two's complement, offset: the low bits of the int64 are K's */
    u = (uint64_t)tc_ld_i(p, a.dt) ^ sign;
  } else { /* the value's bits at K's width, NaN one value, -0.0 as 0.0; then
              negatives inverted, positives above them */
    if (sizeof(K) == 2) { /* float16, bfloat16: their own bits */
      uint16_t h;
      memcpy(&h, p, 2);
      int f16 = a.dt == TABI_DTYPE_FLOAT16;
      u = (h & 0x7fffu) > (f16 ? 0x7c00u : 0x7f80u) ? (f16 ? 0x7e00u : 0x7fc0u) : (h & 0x7fffu) ? h : 0u;
    } else if (sizeof(K) == 4) { /* float32 */
      float f = (float)tc_ld_f(p, a.dt);
      u = isnan(f) ? 0x7fc00000u : f == 0 ? 0u : tabi_f32_bits(f);
    } else { /* float64 */
      double f = tc_ld_f(p, a.dt);
      if (isnan(f)) u = 0x7ff8000000000000ull;
      else if (f == 0) u = 0;
      else memcpy(&u, &f, 8);
    }
    u = u & sign ? ~u : u | sign;
  }
  K key = (K)u;
  return a.desc ? (K)~key : key;
}

/* keys and positions of slice s */
template <typename K>
__global__ void rx_keys_kernel(const sort_args a, int64_t s, K *key, uint32_t *pos) {
  int64_t so, vo, io;
  slice_offsets(a, s, &so, &vo, &io);
  int esz = tc_dt_size(a.dt);
  int64_t ss = a.nd ? a.sst[a.dim] : 0, stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += stride) {
    key[i] = rx_key<K>(a, a.self + (so + i * ss) * esz);
    pos[i] = (uint32_t)i;
  }
}

template <typename K> TC_D int rx_digit(K k, int shift, int bits) { return (int)(k >> shift) & ((1 << bits) - 1); }

/* per tile b and digit d: how many of the tile's keys have digit d, at
 * count[d * tiles + b] */
template <typename K>
__global__ void __launch_bounds__(RX_NT) rx_hist_kernel(const K *key, int64_t n, int shift, int64_t tiles,
                                                         uint32_t *count) {
  TC_SHARED(uint32_t, h, [RX_DIGITS]);
  for (int64_t b = blockIdx.x; b < tiles; b += gridDim.x) {
    int64_t base = b * RX_TILE;
    h[threadIdx.x] = 0;
    __syncthreads();
    K k[RX_ITEMS];
#pragma unroll
    for (int j = 0; j < RX_ITEMS; j++) { /* all loads first, each a warp's 32 neighbours */
      int64_t i = base + j * RX_NT + threadIdx.x;
      k[j] = i < n ? key[i] : 0;
    }
#pragma unroll
    for (int j = 0; j < RX_ITEMS; j++)
      if (base + j * RX_NT + threadIdx.x < n) tcp_atomic_add(&h[rx_digit(k[j], shift, RX_BITS)], 1u);
    __syncthreads();
    count[threadIdx.x * tiles + b] = h[threadIdx.x];
    __syncthreads();
  }
}

/* The exclusive prefix sums of count[0 .. m), in place (m = RX_DIGITS *
 * tiles: 16 per 2048 elements), in chunks of RX_TILE, a block each, each
 * thread a run of RX_ITEMS: rx_scan_up sums every chunk into part,
 * rx_scan_top scans part in one block, rx_scan_down scans every chunk from
 * its part. */
TC_D uint32_t rx_block_sum(uint32_t v, uint32_t *sh) {
  sh[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x < 16) {
    uint32_t t = 0;
    for (int q = threadIdx.x * 16; q < threadIdx.x * 16 + 16; q++) t += sh[q];
    sh[RX_NT + threadIdx.x] = t;
  }
  __syncthreads();
  uint32_t t = 0;
  for (int q = 0; q < 16; q++) t += sh[RX_NT + q];
  __syncthreads();
  return t;
}
/* the exclusive prefix of v over the block's threads (sh: RX_NT + 16) */
TC_D uint32_t rx_block_prefix(uint32_t v, uint32_t *sh) {
  sh[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x < 16) {
    uint32_t run = 0;
    for (int q = threadIdx.x * 16; q < threadIdx.x * 16 + 16; q++) {
      uint32_t x = sh[q];
      sh[q] = run;
      run += x;
    }
    sh[RX_NT + threadIdx.x] = run;
  }
  __syncthreads();
  uint32_t before = 0;
  for (int q = 0; q < (int)threadIdx.x / 16; q++) before += sh[RX_NT + q];
  uint32_t r = before + sh[threadIdx.x];
  __syncthreads();
  return r;
}
__global__ void __launch_bounds__(RX_NT) rx_scan_up_kernel(const uint32_t *count, int64_t m, uint32_t *part) {
  TC_SHARED(uint32_t, sh, [RX_NT + 16]);
  for (int64_t c = blockIdx.x; c * RX_TILE < m; c += gridDim.x) {
    int64_t lo = c * RX_TILE + threadIdx.x * RX_ITEMS;
    uint32_t t = 0;
    for (int64_t i = lo; i < lo + RX_ITEMS && i < m; i++) t += count[i];
    t = rx_block_sum(t, sh);
    if (threadIdx.x == 0) part[c] = t;
  }
}
__global__ void __launch_bounds__(RX_NT) rx_scan_top_kernel(uint32_t *part, int64_t np) {
  TC_SHARED(uint32_t, sh, [RX_NT + 16]);
  int64_t per = (np + RX_NT - 1) / RX_NT, lo = threadIdx.x * per, hi = lo + per < np ? lo + per : np;
  uint32_t t = 0;
  for (int64_t i = lo; i < hi; i++) t += part[i];
  uint32_t run = rx_block_prefix(t, sh);
  for (int64_t i = lo; i < hi; i++) {
    uint32_t v = part[i];
    part[i] = run;
    run += v;
  }
}
__global__ void __launch_bounds__(RX_NT) rx_scan_down_kernel(uint32_t *count, int64_t m, const uint32_t *part) {
  TC_SHARED(uint32_t, sh, [RX_NT + 16]);
  for (int64_t c = blockIdx.x; c * RX_TILE < m; c += gridDim.x) {
    int64_t lo = c * RX_TILE + threadIdx.x * RX_ITEMS;
    uint32_t t = 0;
    for (int64_t i = lo; i < lo + RX_ITEMS && i < m; i++) t += count[i];
    uint32_t run = part[c] + rx_block_prefix(t, sh);
    for (int64_t i = lo; i < lo + RX_ITEMS && i < m; i++) {
      uint32_t v = count[i];
      count[i] = run;
      run += v;
    }
  }
}

/* The shared memory of a split (rx_split) */
template <typename K> struct rx_stage {
  uint32_t cnt[RX_SDIGITS][RX_NT + 1]; /* per split digit and thread: its count, then where its first goes */
  uint32_t seg[RX_SDIGITS][17];        /* per split digit: 16 runs of 16 threads, then the tile's total */
  uint32_t first[RX_SDIGITS];          /* where each split digit starts in the staged tile */
  K key[RX_TILE];
  uint32_t pos[RX_TILE];
};

/* The tile's keys k and positions p (thread t's first `have` of its
 * RX_ITEMS: tile elements t * RX_ITEMS + j, so thread order then item order
 * is the tile's order) staged in sm stably by bits shift .. shift +
 * RX_SBITS - 1. Every thread calls it; its last barrier makes the staged
 * tile visible to all. */
template <typename K>
TC_D void rx_split(const K *k, const uint32_t *p, int have, int shift, rx_stage<K> *sm) {
  for (int d = 0; d < RX_SDIGITS; d++) sm->cnt[d][threadIdx.x] = 0;
  for (int j = 0; j < have; j++) sm->cnt[rx_digit(k[j], shift, RX_SBITS)][threadIdx.x]++;
  __syncthreads();
  { /* cnt[d][t] to the exclusive prefix over threads; thread t: digit t / 16, threads 16 (t % 16) .. + 15 */
    int d = threadIdx.x / 16, s0 = threadIdx.x % 16 * 16;
    uint32_t run = 0;
    for (int q = s0; q < s0 + 16; q++) {
      uint32_t v = sm->cnt[d][q];
      sm->cnt[d][q] = run;
      run += v;
    }
    sm->seg[d][threadIdx.x % 16] = run;
  }
  __syncthreads();
  if (threadIdx.x < RX_SDIGITS) {
    uint32_t run = 0;
    for (int q = 0; q < 16; q++) {
      uint32_t v = sm->seg[threadIdx.x][q];
      sm->seg[threadIdx.x][q] = run;
      run += v;
    }
    sm->seg[threadIdx.x][16] = run;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t run = 0;
    for (int d = 0; d < RX_SDIGITS; d++) {
      sm->first[d] = run;
      run += sm->seg[d][16];
    }
  }
  {
    int d = threadIdx.x / 16;
    uint32_t add = sm->seg[d][threadIdx.x % 16];
    for (int q = threadIdx.x % 16 * 16; q < threadIdx.x % 16 * 16 + 16; q++) sm->cnt[d][q] += add;
  }
  __syncthreads();
  for (int j = 0; j < have; j++) {
    int d = rx_digit(k[j], shift, RX_SBITS);
    uint32_t at = sm->first[d] + sm->cnt[d][threadIdx.x]++;
    sm->key[at] = k[j];
    sm->pos[at] = p[j];
  }
  __syncthreads();
}

/* One pass: the tile's keys and positions to their places, start[d * tiles
 * + b] onwards for digit d (rx_scan_down_kernel's). The tile is sorted by
 * the digit's low bits, then (reloaded from there in its new order) by its
 * high bits: by the whole digit, stably, as LSD radix sort does. */
template <typename K>
__global__ void __launch_bounds__(RX_NT) rx_move_kernel(const K *key, const uint32_t *pos, int64_t n, int shift,
                                                         int64_t tiles, const uint32_t *start, K *okey,
                                                         uint32_t *opos) {
  TC_SHARED(rx_stage<K>, sm, [1]);
  TC_SHARED(uint32_t, dfirst, [RX_DIGITS]); /* the tile's digit counts, then where each digit starts in it */
  TC_SHARED(uint32_t, sh, [RX_NT + 16]);
  for (int64_t b = blockIdx.x; b < tiles; b += gridDim.x) {
    int64_t base = b * RX_TILE;
    int total = n - base < RX_TILE ? (int)(n - base) : RX_TILE, have = 0;
    K k[RX_ITEMS];
    uint32_t p[RX_ITEMS];
    dfirst[threadIdx.x] = 0;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < RX_ITEMS; j++) {
      int q = threadIdx.x * RX_ITEMS + j;
      if (q < total) {
        k[j] = key[base + q];
        p[j] = pos[base + q];
        tcp_atomic_add(&dfirst[rx_digit(k[j], shift, RX_BITS)], 1u);
        have = j + 1;
      }
    }
    rx_split<K>(k, p, have, shift, sm);
    have = 0;
#pragma unroll
    for (int j = 0; j < RX_ITEMS; j++) {
      int q = threadIdx.x * RX_ITEMS + j;
      if (q < total) {
        k[j] = sm->key[q];
        p[j] = sm->pos[q];
        have = j + 1;
      }
    }
    /* the counts to starts (its barriers also keep the second split's
       staging behind every thread's reload) */
    uint32_t at = rx_block_prefix(dfirst[threadIdx.x], sh);
    dfirst[threadIdx.x] = at;
    rx_split<K>(k, p, have, shift + RX_SBITS, sm);
    for (int i = threadIdx.x; i < total; i += RX_NT) {
      int d = rx_digit(sm->key[i], shift, RX_BITS);
      uint32_t to = start[d * tiles + b] + ((uint32_t)i - dfirst[d]);
      okey[to] = sm->key[i];
      opos[to] = sm->pos[i];
    }
    __syncthreads();
  }
}

/* the first `keep` sorted elements of slice s to the outputs */
__global__ void rx_out_kernel(const sort_args a, int64_t s, const uint32_t *pos) {
  int64_t so, vo, io;
  slice_offsets(a, s, &so, &vo, &io);
  int esz = tc_dt_size(a.dt);
  int64_t ss = a.nd ? a.sst[a.dim] : 0, vs = a.nd ? a.vst[a.dim] : 0, is = a.nd ? a.ist[a.dim] : 0;
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < a.keep; q += stride) {
    int64_t j = pos[q];
    tcp_copy(a.vals + (vo + q * vs) * esz, a.self + (so + j * ss) * esz, esz); /* whole, not a byte at a time */
    ((int64_t *)a.idx)[io + q * is] = j;
  }
}

/* Every slice of a by radix sort; scr holds the buffers (rx_bytes). */
template <typename K>
static void rx_sort(const sort_args &a, char *scr) {
  int64_t tiles = (a.n + RX_TILE - 1) / RX_TILE;
  K *key[2] = {(K *)scr, (K *)scr + a.n};
  uint32_t *pos[2] = {(uint32_t *)(key[1] + a.n), (uint32_t *)(key[1] + a.n) + a.n};
  int64_t m = RX_DIGITS * tiles, chunks = (m + RX_TILE - 1) / RX_TILE;
  uint32_t *count = pos[1] + a.n, *part = count + m;
  int gt = tc_grid(tiles, 1), ge = tc_grid(a.n, 256), gc = tc_grid(chunks, 1);
  for (int64_t s = 0; s < a.slices; s++) {
    TC_LAUNCH(ge, 256, rx_keys_kernel<K>)(a, s, key[0], pos[0]);
    int cur = 0;
    for (int shift = 0; shift < (int)(8 * sizeof(K)); shift += RX_BITS, cur ^= 1) {
      TC_LAUNCH(gt, RX_NT, rx_hist_kernel<K>)(key[cur], a.n, shift, tiles, count);
      TC_LAUNCH(gc, RX_NT, rx_scan_up_kernel)(count, m, part);
      TC_LAUNCH(1, RX_NT, rx_scan_top_kernel)(part, chunks);
      TC_LAUNCH(gc, RX_NT, rx_scan_down_kernel)(count, m, part);
      TC_LAUNCH(gt, RX_NT, rx_move_kernel<K>)(key[cur], pos[cur], a.n, shift, tiles, count, key[cur ^ 1],
                                              pos[cur ^ 1]);
    }
    TC_LAUNCH(tc_grid(a.keep, 256), 256, rx_out_kernel)(a, s, pos[cur]);
  }
}
/* scratch bytes of rx_sort over slices of n: two key and two position
   buffers, the counts and their chunks' sums */
static int64_t rx_bytes(int64_t n, int ksz) {
  int64_t m = RX_DIGITS * ((n + RX_TILE - 1) / RX_TILE);
  return 2 * n * (ksz + 4) + (m + (m + RX_TILE - 1) / RX_TILE) * 4;
}

/* a's slices by radix sort (*scr: its scratch, for the caller to release) */
static tabi_status rx_run(tc_ctx *c, const char *op, sort_args *a, DLDevice dev, tabi_tensor **scr) {
  int64_t esz = tabi_dtype_size((tabi_dtype)a->dt);
  int ksz = esz == 8 ? 8 : esz <= 2 ? 2 : 4; /* a key as wide as the element, at least 16 bits */
  int64_t bytes = rx_bytes(a->n, ksz);
  tabi_status st = tc_empty(c, dev, TABI_DTYPE_UINT8, 1, &bytes, scr);
  if (st != TABI_OK) return st;
  char *p = (char *)tabi_tensor_data(*scr);
  if (ksz == 8) rx_sort<uint64_t>(*a, p);
  else if (ksz == 2) rx_sort<uint16_t>(*a, p);
  else rx_sort<uint32_t>(*a, p);
  return tc_launch_status(c, op);
}

/* a's slices by tiles in shared memory and merge passes (*scr as rx_run's) */
static tabi_status merge_run(tc_ctx *c, const char *op, sort_args *a, DLDevice dev, tabi_tensor **scr) {
  tabi_status st = TABI_OK;
  a->tiles = (a->n + TILE - 1) / TILE;
  for (a->pad = 1; a->pad < (a->n < TILE ? a->n : TILE);) a->pad *= 2;
  sort_key *bufs[2] = {NULL, NULL};
  if (a->tiles > 1) {
    int64_t bytes = a->slices * 2 * a->n * (int64_t)sizeof(sort_key);
    st = tc_empty(c, dev, TABI_DTYPE_UINT8, 1, &bytes, scr);
    if (st == TABI_OK) {
      bufs[0] = (sort_key *)tabi_tensor_data(*scr);
      bufs[1] = bufs[0] + a->slices * a->n;
    }
  }
  if (st == TABI_OK) {
    int threads = (int)(a->pad / 2 < 32 ? 32 : a->pad / 2);
    TC_LAUNCH(tc_grid(a->slices * a->tiles, 1), threads, sort_tile_kernel)(*a, bufs[0]);
    st = tc_launch_status(c, op);
  }
  int cur = 0;
  for (int64_t w = TILE; st == TABI_OK && w < a->n; w *= 2, cur ^= 1) {
    int last = 2 * w >= a->n;
    TC_LAUNCH(tc_grid(a->slices * a->n, 256), 256, sort_merge_kernel)(*a, bufs[cur], bufs[cur ^ 1], w, last);
    st = tc_launch_status(c, op);
  }
  return st;
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
    if (a.n >= RX_MIN && a.n <= INT32_MAX)
      st = rx_run(c, op, &a, self->dl.device, &scr);
    else
      st = merge_run(c, op, &a, self->dl.device, &scr);
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
