/* plugins/cuda/tc_shape.cu: the data-moving shape prims: reshape (a copy),
 * rev, cat, copy_to, device_put, resize. The view prims come from the reference
 * (metadata only); every copy here is one strided launch of tc_copy_convert,
 * except cat of contiguous inputs, which copies up to CAT_BATCH of them in one
 * launch. The transposing copies that tc_copy_convert hands over go through
 * shared-memory tiles (tc_copy_tiled, below). */
#include <stdio.h>

#include "tc.h"
#include "tc_ref_glue.h"
#include "tc_words.cuh"   /* cat's units */
#include "ref_slice.h"

static void release(tc_ctx *c, tabi_tensor *t) { c->h->tensor_release(c->h->ctx, t); }

/* --- transposing copies --------------------------------------------------------
 *
 * When dst's unit stride and src's lie on different dims (x.t().contiguous(),
 * a permute's copy, a contiguous tensor into a transposed view), the strided
 * engine, whose threads walk dst's order, reads src with 32 lanes a whole row
 * apart apiece: a memory transaction per element. Here a block moves a 32x32
 * tile: it reads the tile along src's unit dim into shared memory and writes
 * it along dst's, so both sides' accesses are coalesced. A byte move of one
 * dtype, so the bits are the engine's. */
#define TT 32          /* tile edge */
#define TT_THREADS 256 /* 8 rows of 32 lanes: 4 elements each way per thread */
/* Most blocks a launch takes; past it each block loops over tiles. A GPU
 * needs the loop only beyond 524,280 tiles (537 million elements), so gpusim
 * caps the grid at 3 blocks: its tests then run the loop, and the barrier
 * that keeps a block's next tile from overwriting the one being stored. */
#ifdef TC_SIM
#define TT_MAX_GRID 3
#else
#define TT_MAX_GRID (65535 * 8)
#endif

typedef struct tiled_args {
  const char *src;
  char *dst;
  int32_t nb;        /* batch dims: the dims other than a and b, of size > 1 */
  int64_t bshape[TC_MAX_DIMS], bsrc[TC_MAX_DIMS], bdst[TC_MAX_DIMS];
  int64_t na, nbt;   /* extents of dim a (dst's unit stride) and dim b (src's) */
  int64_t src_a;     /* src's stride along a (elements) */
  int64_t dst_b;     /* dst's stride along b */
  int64_t ta, tb;    /* tiles along a and b */
  int64_t tiles;     /* ta * tb * the batch */
} tiled_args;

typedef struct tc_b16 { /* complex128's 16 bytes */
  uint64_t lo, hi;
} tc_b16;

template <typename T>
__global__ void __launch_bounds__(TT_THREADS) copy_tiled_kernel(const tiled_args p) {
  TC_SHARED(T, tile, [TT][TT + 1]); /* +1: the column reads hit 32 banks, not one */
  const int tx = (int)threadIdx.x % TT, ty = (int)threadIdx.x / TT;
  for (int64_t t = blockIdx.x; t < p.tiles; t += gridDim.x) { /* uniform over the block */
    int64_t rest = t / (p.ta * p.tb), so = 0, dof = 0;
    for (int32_t d = p.nb - 1; d >= 0; d--) {
      int64_t i = rest % p.bshape[d];
      rest /= p.bshape[d];
      so += i * p.bsrc[d];
      dof += i * p.bdst[d];
    }
    const int64_t a0 = t / p.tb % p.ta * TT, b0 = t % p.tb * TT;
    const T *s = (const T *)p.src + so;
    T *o = (T *)p.dst + dof;
    for (int r = ty; r < TT; r += TT_THREADS / TT) /* lanes along b: src's unit stride */
      if (a0 + r < p.na && b0 + tx < p.nbt) tile[r][tx] = s[(a0 + r) * p.src_a + b0 + tx];
    __syncthreads();
    for (int r = ty; r < TT; r += TT_THREADS / TT) /* lanes along a: dst's unit stride */
      if (b0 + r < p.nbt && a0 + tx < p.na) o[(b0 + r) * p.dst_b + a0 + tx] = tile[tx][r];
    __syncthreads(); /* every lane has read the tile before the next is loaded */
  }
}

tabi_status tc_copy_tiled(tc_ctx *c, const char *op, int32_t nd, const int64_t *shape,
                          const tc_operand *o, const tc_operand *i, int *done) {
  *done = 0;
  int64_t esz = tabi_dtype_size((tabi_dtype)o->dt), n = 1;
  if (o->dt != i->dt || !(esz == 1 || esz == 2 || esz == 4 || esz == 8 || esz == 16)) return TABI_OK;
  int32_t a = -1, b = -1;
  for (int32_t d = 0; d < nd; d++) {
    n *= shape[d];
    if (shape[d] > 1 && o->st[d] == 0) return TABI_OK; /* an expanded dst: the engine's rules */
    if (a < 0 && o->st[d] == 1 && shape[d] >= 16) a = d;
  }
  for (int32_t d = 0; d < nd && a >= 0; d++)
    if (d != a && b < 0 && i->st[d] == 1 && shape[d] >= 16) b = d;
  /* small copies stay on the engine, and so does a misaligned element */
  uintptr_t al = (uintptr_t)(esz < 8 ? esz : 8);
  if (b < 0 || n < 4096 || (uintptr_t)o->ptr % al || (uintptr_t)i->ptr % al) return TABI_OK;
  tiled_args p;
  memset(&p, 0, sizeof p);
  p.src = (const char *)i->ptr;
  p.dst = (char *)o->ptr;
  for (int32_t d = 0; d < nd; d++)
    if (d != a && d != b && shape[d] > 1) {
      p.bshape[p.nb] = shape[d];
      p.bsrc[p.nb] = i->st[d];
      p.bdst[p.nb++] = o->st[d];
    }
  p.na = shape[a];
  p.nbt = shape[b];
  p.src_a = i->st[a];
  p.dst_b = o->st[b];
  p.ta = (p.na + TT - 1) / TT;
  p.tb = (p.nbt + TT - 1) / TT;
  p.tiles = p.ta * p.tb * (n / (p.na * p.nbt));
  int g = (int)(p.tiles < TT_MAX_GRID ? p.tiles : TT_MAX_GRID);
  switch (esz) {
    case 1: TC_LAUNCH(g, TT_THREADS, copy_tiled_kernel<uint8_t>)(p); break;
    case 2: TC_LAUNCH(g, TT_THREADS, copy_tiled_kernel<uint16_t>)(p); break;
    case 4: TC_LAUNCH(g, TT_THREADS, copy_tiled_kernel<uint32_t>)(p); break;
    case 8: TC_LAUNCH(g, TT_THREADS, copy_tiled_kernel<uint64_t>)(p); break;
    default: TC_LAUNCH(g, TT_THREADS, copy_tiled_kernel<tc_b16>)(p); break;
  }
  *done = 1;
  return tc_launch_status(c, op);
}

static tabi_status k_reshape(TC_ARGS) {
  TC_CTX;
  tabi_tensor *a = args[0].u.t;
  int64_t nd = args[1].u.list.len, n = 1;
  const int64_t *shape = tabi_value_ints(&args[1]);
  int overflow = 0;
  if (nd > TC_MAX_DIMS) return TC_ERR(c, TABI_ERR_SHAPE, "%s: too many dims (%lld)", OPN, (long long)nd);
  for (int64_t i = 0; i < nd; i++) {
    if (shape[i] < 0)
      return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'shape': invalid size %lld", OPN,
                    (long long)shape[i]);
    overflow |= __builtin_mul_overflow(n, shape[i], &n);
  }
  if (overflow || n != tabi_tensor_numel(a))
    return TC_ERR(c, TABI_ERR_SHAPE, "%s: argument 'shape': shape is invalid for input of size %lld",
                  OPN, (long long)tabi_tensor_numel(a));
  tabi_status st = tc_check_cuda(c, a, OPN, "a");
  tabi_tensor *src = NULL, *out = NULL;
  if (st == TABI_OK) st = tc_contiguous(c, OPN, a, &src);
  if (st != TABI_OK) return st;
  st = tc_empty(c, a->dl.device, tabi_tensor_dtype(a), (int32_t)nd, shape, &out);
  if (st == TABI_OK && n > 0)
    st = tc_cuda_status(c, cudaMemcpyAsync(tabi_tensor_data(out), tabi_tensor_data(src),
                                           (size_t)(n * tabi_dtype_size(tabi_tensor_dtype(a))),
                                           cudaMemcpyDeviceToDevice, 0), OPN, "cudaMemcpyAsync");
  release(c, src);
  return tc_finish(c, st, out, &outs[0]);
}

/* rev: a view of the input with negated strides along the flipped dims, copied. */
static tabi_status k_rev(TC_ARGS) {
  TC_CTX;
  tabi_tensor *a = args[0].u.t;
  int32_t nd = a->dl.ndim;
  uint8_t flip[TC_MAX_DIMS] = {0};
  if (nd > TC_MAX_DIMS) return TC_ERR(c, TABI_ERR_SHAPE, "%s: too many dims", OPN);
  const int64_t *dims = tabi_value_ints(&args[1]);
  for (int64_t i = 0; i < args[1].u.list.len; i++) {
    int32_t d;
    tabi_status st = tc_wrap_dim(c, OPN, "dims", dims[i], nd, &d);
    if (st != TABI_OK) return st;
    if (flip[d]) /* 0-d too: -1 and 0 are both its dim 0 (ATen refuses [-1, 0]) */
      return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'dims': dim %d appears multiple "
                    "times in the list of dims", OPN, (int)d);
    flip[d] = 1;
  }
  tabi_status st = tc_check_cuda(c, a, OPN, "a");
  tabi_tensor *out = NULL;
  if (st == TABI_OK) st = tc_empty(c, a->dl.device, tabi_tensor_dtype(a), nd, a->dl.shape, &out);
  if (st != TABI_OK) return st;
  if (tabi_tensor_numel(a) > 0 && (st = tc_use_device(c, a, OPN)) == TABI_OK) {
    tc_operand o, i;
    tc_operand_of(out, nd, out->dl.shape, &o);
    tc_operand_of(a, nd, a->dl.shape, &i);
    int64_t esz = tabi_dtype_size(tabi_tensor_dtype(a));
    char *base = (char *)tabi_tensor_data(a);
    for (int32_t d = 0; d < nd; d++)
      if (flip[d] && a->dl.shape[d] > 1) {
        base += (a->dl.shape[d] - 1) * a->dl.strides[d] * esz;
        i.st[d] = -a->dl.strides[d];
      }
    i.ptr = base;
    tc_ew_params p;
    memset(&p, 0, sizeof p);
    p.op = TC_U_IDENT;
    p.cd = tabi_tensor_dtype(a);
    st = tc_ew_launch(c, OPN, nd, a->dl.shape, &o, 1, &i, &p, NULL);
  }
  return tc_finish(c, st, out, &outs[0]);
}

/* cat of contiguous inputs: each is [outer, size_k, inner] and goes to
 * [outer, off_k : off_k + size_k, inner] of the contiguous output. One launch
 * takes up to CAT_BATCH inputs (blockIdx.y picks one), so a cat of many small
 * tensors is not one launch each. Rows are copied in units of U bytes, the
 * largest power of two to 16 that divides every row, offset and pointer
 * (cat_unit): float32 rows of a multiple of 4 elements move 16 bytes a
 * thread. An input whose rows have at least a block's worth of units is
 * copied a block per row, the rest a thread per unit, which divides its
 * index by the row's units (in 32 bits where the count fits). The first
 * kernel copied an element a thread with a 64-bit division each: 0.36x
 * PyTorch on 64 [256, 1024] float32 inputs on an H200 (2026-11-30). */
#define CAT_BATCH 64
#define CAT_NT 256
typedef struct cat_batch {
  int32_t n;
  int64_t outer, tu; /* rows (elements before dim); units in an output row */
  const char *src[CAT_BATCH];
  int64_t su[CAT_BATCH]; /* the input's units in a row */
  int64_t ou[CAT_BATCH]; /* where they start in an output row */
} cat_batch;

template <int U>
__global__ void __launch_bounds__(CAT_NT) cat_kernel(const cat_batch b, char *out) {
  typedef typename tc_unit_of<U>::type unit;
  int k = blockIdx.y;
  const int64_t su = b.su[k], tu = b.tu, ou = b.ou[k];
  const unit *src = (const unit *)b.src[k];
  unit *dst = (unit *)out;
  if (su >= CAT_NT) {
    for (int64_t o = blockIdx.x; o < b.outer; o += gridDim.x)
      for (int64_t r = threadIdx.x; r < su; r += CAT_NT) dst[o * tu + ou + r] = src[o * su + r];
    return;
  }
  const int64_t n = b.outer * su, step = (int64_t)gridDim.x * CAT_NT;
  for (int64_t i = (int64_t)blockIdx.x * CAT_NT + threadIdx.x; i < n; i += step) {
    int64_t o = n <= UINT32_MAX ? (int64_t)((uint32_t)i / (uint32_t)su) : i / su;
    dst[o * tu + ou + i - o * su] = src[i];
  }
}

/* The unit of a cat: the largest power of two to 16 dividing every input's
 * row bytes and offset, the output's row bytes and every pointer. */
static int cat_unit(tabi_tensor *const *ts, int64_t n, int32_t dim, int64_t inner, int64_t esz,
                    const tabi_tensor *out) {
  uint64_t all = (uint64_t)(out->dl.shape[dim] * inner * esz) | (uint64_t)(uintptr_t)tabi_tensor_data(out);
  int64_t off = 0;
  for (int64_t k = 0; k < n; k++) {
    if (tabi_tensor_numel(ts[k]) > 0)
      all |= (uint64_t)(ts[k]->dl.shape[dim] * inner * esz) | (uint64_t)(off * inner * esz) |
             (uint64_t)(uintptr_t)tabi_tensor_data(ts[k]);
    off += ts[k]->dl.shape[dim];
  }
  return tc_unit_for(all);
}

/* The batched copy of every non-empty input into out (all contiguous). */
static tabi_status cat_batched(tc_ctx *c, const char *op, tabi_tensor *const *ts, int64_t n, int32_t dim,
                               tabi_tensor *out) {
  cat_batch b;
  memset(&b, 0, sizeof b);
  int64_t esz = tabi_dtype_size(tabi_tensor_dtype(out)), inner = 1;
  b.outer = 1;
  for (int32_t d = 0; d < out->dl.ndim; d++) {
    if (d < dim) b.outer *= out->dl.shape[d];
    if (d > dim) inner *= out->dl.shape[d];
  }
  int u = cat_unit(ts, n, dim, inner, esz, out);
  b.tu = out->dl.shape[dim] * inner * esz / u;
  tabi_status st = tc_use_device(c, out, op);
  int64_t off = 0, most = 0;
  for (int64_t k = 0; k <= n && st == TABI_OK; k++) {
    if (k < n && tabi_tensor_numel(ts[k]) > 0) {
      b.src[b.n] = (const char *)tabi_tensor_data(ts[k]);
      b.su[b.n] = ts[k]->dl.shape[dim] * inner * esz / u;
      b.ou[b.n] = off * inner * esz / u;
      int64_t blocks = b.su[b.n] >= CAT_NT ? b.outer : (b.outer * b.su[b.n] + CAT_NT - 1) / CAT_NT;
      most = blocks > most ? blocks : most;
      b.n++;
    }
    if (k < n) off += ts[k]->dl.shape[dim];
    if (b.n == CAT_BATCH || (k == n && b.n > 0)) {
      dim3 g((unsigned)tc_grid(most, 1), (unsigned)b.n);
      char *o = (char *)tabi_tensor_data(out);
      switch (u) {
        case 16: TC_LAUNCH(g, CAT_NT, cat_kernel<16>)(b, o); break;
        case 8: TC_LAUNCH(g, CAT_NT, cat_kernel<8>)(b, o); break;
        case 4: TC_LAUNCH(g, CAT_NT, cat_kernel<4>)(b, o); break;
        case 2: TC_LAUNCH(g, CAT_NT, cat_kernel<2>)(b, o); break;
        default: TC_LAUNCH(g, CAT_NT, cat_kernel<1>)(b, o); break;
      }
      st = tc_launch_status(c, op);
      b.n = 0;
      most = 0;
    }
  }
  return st;
}

static tabi_status k_cat(TC_ARGS) {
  TC_CTX;
  int64_t n = args[0].u.list.len;
  tabi_tensor *const *ts = tabi_value_tensors(&args[0]);
  if (n == 0)
    return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'tensors': expected a non-empty list of Tensors", OPN);
  const tabi_tensor *t0 = ts[0];
  tabi_dtype dt = tabi_tensor_dtype(t0);
  int32_t nd = t0->dl.ndim, dim;
  if (nd == 0) return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: zero-dimensional tensor cannot be concatenated", OPN);
  tabi_status st = tc_wrap_dim(c, OPN, "dim", args[1].u.i, nd, &dim);
  if (st != TABI_OK) return st;
  int64_t shape[TC_MAX_DIMS];
  if (nd > TC_MAX_DIMS) return TC_ERR(c, TABI_ERR_SHAPE, "%s: too many dims", OPN);
  memcpy(shape, t0->dl.shape, sizeof(int64_t) * (size_t)nd);
  shape[dim] = 0;
  for (int64_t k = 0; k < n; k++) {
    const tabi_tensor *t = ts[k];
    if ((st = tc_check_cuda(c, t, OPN, "tensors")) != TABI_OK) return st;
    if (t->dl.device.device_id != t0->dl.device.device_id)
      return TC_ERR(c, TABI_ERR_DEVICE, "%s: argument 'tensors': tensor %lld is on " TC_PLATFORM
                    " device %d, tensor 0 on %d", OPN, (long long)k, (int)t->dl.device.device_id,
                    (int)t0->dl.device.device_id);
    if (tabi_tensor_dtype(t) != dt)
      return TC_ERR(c, TABI_ERR_TYPE, "%s: argument 'tensors': tensor %lld has dtype %s, expected %s "
                    "(prims do not promote)", OPN, (long long)k, tabi_dtype_name(tabi_tensor_dtype(t)),
                    tabi_dtype_name(dt));
    if (t->dl.ndim != nd)
      return TC_ERR(c, TABI_ERR_SHAPE, "%s: argument 'tensors': tensor %lld has %d dims, expected %d",
                    OPN, (long long)k, (int)t->dl.ndim, (int)nd);
    for (int32_t d = 0; d < nd; d++)
      if (d != dim && t->dl.shape[d] != t0->dl.shape[d])
        return TC_ERR(c, TABI_ERR_SHAPE, "%s: argument 'tensors': Sizes of tensors must match except "
                      "in dimension %d (tensor %lld differs at dim %d)", OPN, (int)dim, (long long)k, (int)d);
    shape[dim] += t->dl.shape[dim];
  }
  tabi_tensor *out = NULL;
  if ((st = tc_empty(c, t0->dl.device, dt, nd, shape, &out)) != TABI_OK) return st;
  int all_contiguous = 1;
  for (int64_t k = 0; k < n; k++) /* an empty input is skipped, whatever its strides */
    all_contiguous &= tabi_tensor_numel(ts[k]) == 0 || tabi_tensor_is_contiguous(ts[k]);
  if (all_contiguous) return tc_finish(c, cat_batched(c, OPN, ts, n, dim, out), out, &outs[0]);
  int64_t esz = tabi_dtype_size(dt), off = 0;
  for (int64_t k = 0; k < n && st == TABI_OK; k++) {
    const tabi_tensor *t = ts[k];
    if (tabi_tensor_numel(t) > 0) {
      int64_t vshape[TC_MAX_DIMS];
      memcpy(vshape, shape, sizeof(int64_t) * (size_t)nd);
      vshape[dim] = t->dl.shape[dim];
      tabi_tensor *view = NULL;
      st = c->h->tensor_view(c->h->ctx, out, nd, vshape, out->dl.strides,
                             (int64_t)out->dl.byte_offset + off * out->dl.strides[dim] * esz, &view);
      if (st == TABI_OK) st = tc_copy_convert(c, OPN, view, t);
      release(c, view);
    }
    off += t->dl.shape[dim];
  }
  return tc_finish(c, st, out, &outs[0]);
}

static tabi_status k_copy_to(TC_ARGS) {
  TC_CTX;
  tabi_tensor *a = args[0].u.t, *b = args[1].u.t;
  if (a->flags & TABI_TENSOR_READ_ONLY)
    return TC_ERR(c, TABI_ERR_READ_ONLY, "%s: argument 'a' is read-only and cannot be written", OPN);
  if (tabi_tensor_numel(a) != tabi_tensor_numel(b))
    return TC_ERR(c, TABI_ERR_SHAPE, "%s: argument 'b': Attempting to copy %lld elements to a tensor "
                  "with %lld elements!", OPN, (long long)tabi_tensor_numel(b), (long long)tabi_tensor_numel(a));
  if (b->dl.ndim > a->dl.ndim)
    return TC_ERR(c, TABI_ERR_SHAPE, "%s: argument 'b' cannot be broadcast to 'a' (more dims)", OPN);
  for (int32_t i = 0; i < b->dl.ndim; i++) {
    int64_t s = b->dl.shape[i], d = a->dl.shape[a->dl.ndim - b->dl.ndim + i];
    if (s != d && s != 1)
      return TC_ERR(c, TABI_ERR_SHAPE, "%s: argument 'b': The expanded size of the tensor (%lld) must "
                    "match the existing size (%lld) at non-singleton dimension %d", OPN, (long long)d,
                    (long long)s, (int)i);
  }
  if (rs_has_internal_overlap(a))
    return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'a': unsupported operation: more than "
                  "one element of the written-to tensor refers to a single memory location", OPN);
  tabi_status st;
  if ((st = tc_check_cuda(c, a, OPN, "a")) != TABI_OK) return st;
  if (rs_partial_overlap(c->h, a, b))
    return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'b': unsupported operation: some elements of "
                  "the input tensor and the written-to tensor refer to a single memory location", OPN);
  /* views of one storage that ATen cannot judge (not dense) copy as if
     through a temporary, as the reference does; threads of one launch would
     otherwise read elements others have already written */
  int shared = c->h->tensor_storage_id(c->h->ctx, a) == c->h->tensor_storage_id(c->h->ctx, b);
  if (b->dl.device.device_type != TC_DL_DEVICE || shared) {
    /* a host source, or one sharing a's storage: stage it on the device first */
    tabi_tensor *tmp = NULL;
    st = tc_empty(c, a->dl.device, tabi_tensor_dtype(b), b->dl.ndim, b->dl.shape, &tmp);
    if (st == TABI_OK) st = c->h->tensor_copy(c->h->ctx, tmp, b);
    if (st == TABI_OK) st = tc_copy_convert(c, OPN, a, tmp);
    release(c, tmp);
  } else {
    st = tc_copy_convert(c, OPN, a, b);
  }
  if (st != TABI_OK) return st;
  c->h->tensor_retain(c->h->ctx, a);
  outs[0] = tabi_tensor_value(a);
  return TABI_OK;
}

static tabi_status k_device_put(TC_ARGS) {
  TC_CTX;
  tabi_tensor *a = args[0].u.t, *out = NULL;
  DLDevice dev = args[1].u.device;
  tabi_tensor *src = NULL;
  tabi_status st = a->dl.device.device_type == TC_DL_DEVICE ? tc_contiguous(c, OPN, a, &src)
                                                       : (c->h->tensor_retain(c->h->ctx, a), src = a, TABI_OK);
  if (st != TABI_OK) return st;
  st = tc_empty(c, dev, tabi_tensor_dtype(a), a->dl.ndim, a->dl.shape, &out);
  if (st == TABI_OK) st = c->h->tensor_copy(c->h->ctx, out, src);
  release(c, src);
  return tc_finish(c, st, out, &outs[0]);
}

static tabi_status k_resize(TC_ARGS) {
  TC_CTX;
  tabi_tensor *t = args[0].u.t;
  int64_t n = args[1].u.list.len;
  const int64_t *shape = tabi_value_ints(&args[1]);
  if (n > TC_MAX_DIMS) return TC_ERR(c, TABI_ERR_SHAPE, "%s: too many dims", OPN);
  for (int64_t i = 0; i < n; i++)
    if (shape[i] < 0)
      return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'shape': Trying to create tensor with "
                    "negative dimension %lld", OPN, (long long)shape[i]);
  tabi_status st = c->h->tensor_resize(c->h->ctx, t, (int32_t)n, shape);
  if (st != TABI_OK) return st;
  c->h->tensor_retain(c->h->ctx, t);
  outs[0] = tabi_tensor_value(t);
  return TABI_OK;
}

/* out = a contiguous copy of self with src written into a region of it (the
 * reference's scatter_into); the region must have src's shape exactly. */
static tabi_status scatter_into(tc_ctx *c, const char *op, tabi_tensor *self, tabi_tensor *src,
                                int32_t nd, const int64_t *shape, int32_t drop_dim, int64_t start,
                                int64_t step, int32_t dim, tabi_value *out) {
  int same = src->dl.ndim == nd;
  for (int32_t i = 0; same && i < nd; i++) same = src->dl.shape[i] == shape[i];
  if (!same)
    return TC_ERR(c, TABI_ERR_SHAPE, "%s: argument 'src': expected src to have a size equal to the slice "
                  "of self", op);
  tabi_status st;
  if ((st = tc_check_cuda(c, self, op, "self")) || (st = tc_check_cuda(c, src, op, "src"))) return st;
  tabi_tensor *res = NULL, *view = NULL;
  if ((st = tc_empty(c, self->dl.device, tabi_tensor_dtype(self), self->dl.ndim, self->dl.shape, &res))) return st;
  if (tabi_tensor_numel(res) > 0) st = tc_copy_convert(c, op, res, self);
  int64_t rst[TC_MAX_DIMS];
  int32_t k = 0;
  for (int32_t i = 0; i < self->dl.ndim; i++) {
    if (i == drop_dim) continue;
    rst[k++] = i == dim ? res->dl.strides[i] * step : res->dl.strides[i];
  }
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  if (st == TABI_OK && n > 0) {
    int64_t off = (int64_t)res->dl.byte_offset + start * res->dl.strides[dim] * tabi_dtype_size(tabi_tensor_dtype(res));
    st = c->h->tensor_view(c->h->ctx, res, nd, shape, rst, off, &view);
    if (st == TABI_OK) st = tc_copy_convert(c, op, view, src);
    release(c, view);
  }
  return tc_finish(c, st, res, out);
}

/* The wrapped dim of select/slice (`what`) on s: 0-d refused, as the reference. */
static tabi_status scatter_dim(tc_ctx *c, const char *op, const char *what, const tabi_tensor *s, int64_t d,
                               int32_t *dim) {
  if (s->dl.ndim == 0)
    return TC_ERR(c, TABI_ERR_INDEX, "%s: argument 'self': %s() cannot be applied to a 0-dim tensor.", op, what);
  if (s->dl.ndim > TC_MAX_DIMS) return TC_ERR(c, TABI_ERR_SHAPE, "%s: too many dims", op);
  return tc_wrap_dim(c, op, "dim", d, s->dl.ndim, dim);
}

static tabi_status k_select_scatter(TC_ARGS) {
  TC_CTX;
  tabi_tensor *s = args[0].u.t;
  int32_t nd = s->dl.ndim, dim;
  tabi_status st = scatter_dim(c, OPN, "select", s, args[2].u.i, &dim);
  if (st) return st;
  int64_t size = s->dl.shape[dim], index = args[3].u.i;
  if (index < -size || index >= size)
    return TC_ERR(c, TABI_ERR_INDEX, "%s: argument 'index': select(): index %lld out of range for tensor "
                  "of size %lld at dimension %d", OPN, (long long)index, (long long)size, (int)dim);
  if (index < 0) index += size;
  int64_t shape[TC_MAX_DIMS];
  int32_t k = 0;
  for (int32_t i = 0; i < nd; i++)
    if (i != dim) shape[k++] = s->dl.shape[i];
  return scatter_into(c, OPN, s, args[1].u.t, k, shape, dim, index, 1, dim, &outs[0]);
}

static tabi_status k_slice_scatter(TC_ARGS) {
  TC_CTX;
  tabi_tensor *s = args[0].u.t;
  int32_t nd = s->dl.ndim, dim;
  tabi_status st = scatter_dim(c, OPN, "slice", s, args[2].u.i, &dim);
  if (st) return st;
  int64_t step = args[5].u.i;
  if (step <= 0)
    return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'step': slice step must be positive, got %lld",
                  OPN, (long long)step);
  int64_t size = s->dl.shape[dim];
  int64_t start, len = ref_slice_bounds(size, &args[3], &args[4], &start), shape[TC_MAX_DIMS];
  memcpy(shape, s->dl.shape, sizeof(int64_t) * (size_t)nd);
  shape[dim] = len == 0 ? 0 : (len - 1) / step + 1;
  if (shape[dim] <= 1) step = 1;
  return scatter_into(c, OPN, s, args[1].u.t, nd, shape, -1, start, step, dim, &outs[0]);
}

TC_KTABLE tc_kernel tc_shape_kernels[] = {
    {"prims::reshape", k_reshape}, {"prims::rev", k_rev},
    {"prims::cat", k_cat},         {"prims::copy_to", k_copy_to},
    {"prims::device_put", k_device_put}, {"prims::resize", k_resize},
    {"aten::select_scatter", k_select_scatter}, {"aten::slice_scatter", k_slice_scatter},
    {NULL, NULL}};
