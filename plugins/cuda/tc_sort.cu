/* plugins/cuda/tc_sort.cu: aten::sort and aten::topk.
 *
 * One thread per slice runs a bottom-up stable merge sort in a scratch buffer
 * from the caching allocator: NaN sorts as the largest, equal keys (-0.0 and
 * 0.0 included) keep their input order in both directions, exactly as the
 * reference's stable sort (a stable sort's result is unique, so the merge order
 * does not matter). topk is the stable sort cut to k. Simple and deterministic;
 * a segmented radix sort (CUB) is the fast path still to add for long rows.
 * The argument checks are the reference's own (reference/ref_reduce2_check.c). */
#include "tc_ew_dev.cuh"
#include "ref_reduce2_check.h"

typedef struct sort_key {
  double f;
  int64_t i;
  int64_t idx;
} sort_key;

TC_D int key_lt(int flt, const sort_key &a, const sort_key &b) {
  if (!flt) return a.i < b.i;
  if (isnan(a.f)) return 0;
  return isnan(b.f) || a.f < b.f;
}

typedef struct sort_args {
  const char *self;
  char *vals, *idx;
  sort_key *scratch;
  int32_t nd, dim, dt, desc, flt;
  int64_t shape[TC_MAX_DIMS], sst[TC_MAX_DIMS], vst[TC_MAX_DIMS], ist[TC_MAX_DIMS];
  int64_t n, keep, slices;
} sort_args;

__global__ void sort_kernel(const sort_args a) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  int esz = tc_dt_size(a.dt);
  for (int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; s < a.slices; s += stride) {
    int64_t so = 0, vo = 0, io = 0, rem = s;
    for (int d = a.nd - 1; d >= 0; d--) {
      if (d == a.dim) continue;
      int64_t i = rem % a.shape[d];
      rem /= a.shape[d];
      so += i * a.sst[d];
      vo += i * a.vst[d];
      io += i * a.ist[d];
    }
    int64_t ss = a.nd ? a.sst[a.dim] : 0, vs = a.nd ? a.vst[a.dim] : 0, is = a.nd ? a.ist[a.dim] : 0;
    sort_key *src = a.scratch + s * 2 * a.n, *dst = src + a.n;
    for (int64_t j = 0; j < a.n; j++) {
      const char *p = a.self + (so + j * ss) * esz;
      src[j].idx = j;
      if (a.flt) src[j].f = tc_ld_f(p, a.dt);
      else src[j].i = tc_ld_i(p, a.dt);
    }
    for (int64_t w = 1; w < a.n; w *= 2) {
      for (int64_t lo = 0; lo < a.n; lo += 2 * w) {
        int64_t m = lo + w < a.n ? lo + w : a.n, hi = lo + 2 * w < a.n ? lo + 2 * w : a.n;
        int64_t x = lo, y = m, t = lo;
        while (x < m && y < hi) {
          int right_first = a.desc ? key_lt(a.flt, src[x], src[y]) : key_lt(a.flt, src[y], src[x]);
          dst[t++] = right_first ? src[y++] : src[x++];
        }
        while (x < m) dst[t++] = src[x++];
        while (y < hi) dst[t++] = src[y++];
      }
      sort_key *tmp = src;
      src = dst;
      dst = tmp;
    }
    for (int64_t j = 0; j < a.keep; j++) {
      char *q = a.vals + (vo + j * vs) * esz;
      if (a.flt) tc_st_f(q, a.dt, src[j].f);
      else tc_st_i(q, a.dt, src[j].i);
      ((int64_t *)a.idx)[io + j * is] = src[j].idx;
    }
  }
}

static tabi_status sort_common(tc_ctx *c, const char *op, tabi_tensor *self, int32_t dim, int desc,
                               int64_t k, tabi_value *outs) {
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
    int64_t bytes = a.slices * 2 * a.n * (int64_t)sizeof(sort_key);
    st = tc_empty(c, self->dl.device, TABI_DTYPE_UINT8, 1, &bytes, &scr);
    if (st == TABI_OK) {
      a.self = (const char *)tabi_tensor_data(self);
      a.vals = (char *)tabi_tensor_data(vals);
      a.idx = (char *)tabi_tensor_data(idx);
      a.scratch = (sort_key *)tabi_tensor_data(scr);
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
      int64_t g = (a.slices + 63) / 64;
      TC_LAUNCH((int)(g > 65536 ? 65536 : g), 64, sort_kernel)(a);
      st = tc_launch_status(c, op);
    }
  }
  c->h->tensor_release(c->h->ctx, scr);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, vals);
    c->h->tensor_release(c->h->ctx, idx);
    return st;
  }
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
