/* plugins/cpu/cpu_misc_nonzero.c: nonzero.
 *
 * int64 [n, ndim] of the coordinates of the nonzero elements in row-major
 * order (NaN is nonzero, -0.0 is zero, complex counts either part), as the
 * reference. Two passes over fixed chunks of a contiguous input, both on the
 * pool: count each chunk's nonzeros, then (after an exclusive prefix sum of
 * the counts, which gives every chunk its first output row) write each chunk's
 * coordinates. Floats are tested on their bits without the sign, so no float
 * compare is needed; every dtype is element bytes. Non-contiguous inputs go to
 * the reference kernel.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

#define CH 16384

typedef struct nz_job {
  const unsigned char *src;
  int64_t es, numel, nchunks;
  uint64_t mask; /* bits of one element (or one part, complex) that make it nonzero */
  int parts;     /* 2 for complex */
  int32_t nd;
  const int64_t *shape;
  int64_t *counts; /* per chunk; then the first output row of each chunk */
  int64_t *out;
} nz_job;

static uint64_t part_bits(const unsigned char *p, int64_t es) {
  switch (es) {
    case 1: return p[0];
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
  }
}

static int is_nz(const nz_job *j, int64_t i) {
  const unsigned char *p = j->src + i * j->es * j->parts;
  if (part_bits(p, j->es) & j->mask) return 1;
  return j->parts == 2 && (part_bits(p + j->es, j->es) & j->mask) != 0;
}

static void count_range(void *arg, int64_t b, int64_t e) {
  nz_job *j = arg;
  for (int64_t c = b; c < e; c++) {
    int64_t lo = c * CH, hi = lo + CH < j->numel ? lo + CH : j->numel, n = 0;
    if (j->es == 4 && j->parts == 1) { /* float32 / int32: the common case, vectorizable */
      const unsigned char *p = j->src + lo * 4;
      uint32_t m = (uint32_t)j->mask;
      for (int64_t i = 0; i < hi - lo; i++) {
        uint32_t v;
        memcpy(&v, p + 4 * i, 4);
        n += (v & m) != 0;
      }
    } else {
      for (int64_t i = lo; i < hi; i++) n += is_nz(j, i);
    }
    j->counts[c] = n;
  }
}

static void write_range(void *arg, int64_t b, int64_t e) {
  nz_job *j = arg;
  int64_t idx[16];
  for (int64_t c = b; c < e; c++) {
    int64_t lo = c * CH, hi = lo + CH < j->numel ? lo + CH : j->numel, row = j->counts[c];
    int64_t rem = lo;
    for (int32_t d = j->nd - 1; d >= 0; d--) {
      idx[d] = rem % j->shape[d];
      rem /= j->shape[d];
    }
    for (int64_t i = lo; i < hi; i++) {
      if (is_nz(j, i)) {
        memcpy(j->out + row * j->nd, idx, sizeof(int64_t) * (size_t)j->nd);
        row++;
      }
      for (int32_t d = j->nd - 1; d >= 0; d--) { /* next row-major index */
        if (++idx[d] < j->shape[d]) break;
        idx[d] = 0;
      }
    }
  }
}

tabi_status cpu_k_nonzero(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, NONZERO);
  const tabi_tensor *s = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(s);
  nz_job j;
  memset(&j, 0, sizeof j);
  j.parts = 1;
  switch (dt) {
    case TABI_DTYPE_BOOL: case TABI_DTYPE_UINT8: case TABI_DTYPE_INT8: j.es = 1; j.mask = 0xff; break;
    case TABI_DTYPE_INT16: j.es = 2; j.mask = 0xffff; break;
    case TABI_DTYPE_FLOAT16: case TABI_DTYPE_BFLOAT16: j.es = 2; j.mask = 0x7fff; break;
    case TABI_DTYPE_INT32: j.es = 4; j.mask = 0xffffffffu; break;
    case TABI_DTYPE_FLOAT32: j.es = 4; j.mask = 0x7fffffffu; break;
    case TABI_DTYPE_COMPLEX64: j.es = 4; j.mask = 0x7fffffffu; j.parts = 2; break;
    case TABI_DTYPE_INT64: j.es = 8; j.mask = ~UINT64_C(0); break;
    case TABI_DTYPE_FLOAT64: j.es = 8; j.mask = ~UINT64_C(0) >> 1; break;
    case TABI_DTYPE_COMPLEX128: j.es = 8; j.mask = ~UINT64_C(0) >> 1; j.parts = 2; break;
    default: return CPU_FALLBACK(c, NONZERO);
  }
  int32_t nd = s->dl.ndim;
  if (nd > 16 || !cpu_contig(s) || s->dl.device.device_type != kDLCPU) return CPU_FALLBACK(c, NONZERO);
  j.src = tabi_tensor_data(s);
  j.numel = tabi_tensor_numel(s);
  j.nd = nd;
  j.shape = s->dl.shape;
  j.nchunks = (j.numel + CH - 1) / CH;
  int64_t total = 0;
  if (j.nchunks > 0) {
    j.counts = malloc(sizeof(int64_t) * (size_t)j.nchunks);
    if (!j.counts) return CPU_FALLBACK(c, NONZERO);
    cpu_parallel_for(c->pool, j.nchunks, 4, count_range, &j);
    for (int64_t k = 0; k < j.nchunks; k++) {
      int64_t n = j.counts[k];
      j.counts[k] = total;
      total += n;
    }
  }
  int64_t shape[2] = {total, nd};
  tabi_tensor *o = NULL;
  tabi_status st = cpu_empty(c, s, TABI_DTYPE_INT64, 2, shape, &o);
  if (st == TABI_OK) {
    j.out = tabi_tensor_data(o);
    if (total > 0 && nd > 0) cpu_parallel_for(c->pool, j.nchunks, 2, write_range, &j);
    outs[0] = tabi_tensor_value(o);
  }
  free(j.counts);
  return st;
}
