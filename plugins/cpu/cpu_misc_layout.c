/* plugins/cpu/cpu_misc_layout.c: flip, prims::rev and repeat.
 *
 * All three are one same-dtype strided copy (element bytes, any dtype):
 *  - flip / rev read the input through negated strides on the flipped dims,
 *    from the element that is last along them, into an output laid out as
 *    empty_like(self) (the reference's rs_like_strides);
 *  - repeat views its contiguous output as 2n dims (repeat count, input size)
 *    per dim and reads the input with stride 0 on the repeat dims.
 * The copy drops size-1 dims, merges dims whose two strides both chain, and
 * runs rows of the innermost dim on the pool (memcpy when both are unit
 * stride). Anything unusual (another device, a bad dim list, an overflowing
 * size) runs the reference kernel, which also reports the errors.
 */
#include <string.h>

#include "cpu.h"
#include "ref_shape_util.h"

#define MAXD 32

typedef struct sc_job {
  int32_t nd;
  int64_t shape[MAXD], ss[MAXD], ds[MAXD]; /* element strides of source, destination */
  const char *src;
  char *dst;
  int64_t es;
} sc_job;

static void sc_row(char *d, const char *s, int64_t n, int64_t dst, int64_t sst, int64_t es) {
  if (dst == 1 && sst == 1) {
    memcpy(d, s, (size_t)(n * es));
    return;
  }
  switch (es) {
    case 1: for (int64_t i = 0; i < n; i++) d[i * dst] = s[i * sst]; break;
    case 2: {
      uint16_t *y = (uint16_t *)(void *)d;
      const uint16_t *x = (const uint16_t *)(const void *)s;
      for (int64_t i = 0; i < n; i++) y[i * dst] = x[i * sst];
      break;
    }
    case 4: {
      uint32_t *y = (uint32_t *)(void *)d;
      const uint32_t *x = (const uint32_t *)(const void *)s;
      for (int64_t i = 0; i < n; i++) y[i * dst] = x[i * sst];
      break;
    }
    case 8: {
      uint64_t *y = (uint64_t *)(void *)d;
      const uint64_t *x = (const uint64_t *)(const void *)s;
      for (int64_t i = 0; i < n; i++) y[i * dst] = x[i * sst];
      break;
    }
    default:
      for (int64_t i = 0; i < n; i++) memcpy(d + i * dst * es, s + i * sst * es, (size_t)es);
      break;
  }
}

static void sc_range(void *arg, int64_t b, int64_t e) {
  const sc_job *j = arg;
  int32_t nd = j->nd;
  int64_t len = j->shape[nd - 1];
  for (int64_t r = b; r < e; r++) {
    int64_t so = 0, dof = 0, rem = r;
    for (int32_t d = nd - 2; d >= 0; d--) {
      int64_t i = rem % j->shape[d];
      rem /= j->shape[d];
      so += i * j->ss[d];
      dof += i * j->ds[d];
    }
    sc_row(j->dst + dof * j->es, j->src + so * j->es, len, j->ds[nd - 1], j->ss[nd - 1], j->es);
  }
}

/* Copies the nd-dim block `shape` from src (strides ss) to dst (strides ds). */
static void strided_copy(const cpu_ctx *c, int32_t nd, const int64_t *shape, const char *src,
                         const int64_t *ss, char *dst, const int64_t *ds, int64_t es) {
  sc_job j;
  memset(&j, 0, sizeof j);
  j.src = src;
  j.dst = dst;
  j.es = es;
  int64_t n = 1;
  for (int32_t d = 0; d < nd; d++) {
    n *= shape[d];
    if (shape[d] == 1) continue;
    int32_t p = j.nd - 1;
    if (p >= 0 && j.ss[p] == ss[d] * shape[d] && j.ds[p] == ds[d] * shape[d]) {
      j.shape[p] *= shape[d];
      j.ss[p] = ss[d];
      j.ds[p] = ds[d];
    } else {
      j.shape[j.nd] = shape[d];
      j.ss[j.nd] = ss[d];
      j.ds[j.nd] = ds[d];
      j.nd++;
    }
  }
  if (n == 0) return;
  if (j.nd == 0) { j.nd = 1; j.shape[0] = 1; j.ss[0] = j.ds[0] = 1; }
  int64_t len = j.shape[j.nd - 1];
  cpu_parallel_for(c->pool, n / len, 1 + 32768 / len, sc_range, &j);
}

/* --- flip / prims::rev ------------------------------------------------------------ */

static tabi_status flip_common(const cpu_ctx *c, const tabi_call *call, tabi_value *args, tabi_value *outs,
                               int *taken) {
  *taken = 0;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_INT_LIST) return TABI_OK;
  const tabi_tensor *s = args[0].u.t;
  int32_t nd = s->dl.ndim;
  tabi_dtype dt = tabi_tensor_dtype(s);
  int64_t es = tabi_dtype_size(dt);
  if (s->dl.device.device_type != kDLCPU || nd > 16 || es == 0) return TABI_OK;
  int flip[16] = {0};
  const int64_t *dims = tabi_value_ints(&args[1]);
  for (int64_t i = 0; i < args[1].u.list.len; i++) {
    int32_t w = cpu_wrap_dim(dims[i], nd);
    if (w < 0) return TABI_OK;
    if (flip[w]) return TABI_OK; /* 0-d too: -1 and 0 are both its dim 0 */
    flip[w] = 1;
  }
  int64_t os[16], is[16], base = 0;
  tabi_status st = rs_like_strides(c->host, call, s, RS_MF_PRESERVE, os);
  if (st != TABI_OK) return TABI_OK; /* the reference reports it */
  *taken = 1;
  tabi_tensor *out = NULL;
  DLDevice dev = {kDLCPU, 0};
  st = c->host->tensor_empty_strided(c->host->ctx, dev, dt, nd, s->dl.shape, os, &out);
  if (st != TABI_OK) return st;
  for (int32_t d = 0; d < nd; d++) {
    is[d] = flip[d] ? -s->dl.strides[d] : s->dl.strides[d];
    if (flip[d] && s->dl.shape[d] > 0) base += (s->dl.shape[d] - 1) * s->dl.strides[d];
  }
  if (tabi_tensor_numel(out) > 0)
    strided_copy(c, nd, s->dl.shape, (const char *)tabi_tensor_data(s) + base * es, is, tabi_tensor_data(out),
                 os, es);
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

tabi_status cpu_k_flip(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  int taken;
  tabi_status st = flip_common(c, call, args, outs, &taken);
  return taken ? st : CPU_FALLBACK(c, FLIP);
}

tabi_status cpu_k_p_rev(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  int taken;
  tabi_status st = flip_common(c, call, args, outs, &taken);
  return taken ? st : CPU_FALLBACK(c, P_REV);
}

/* --- repeat ---------------------------------------------------------------------- */

tabi_status cpu_k_repeat(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_INT_LIST) return CPU_FALLBACK(c, REPEAT);
  const tabi_tensor *s = args[0].u.t;
  int64_t n = args[1].u.list.len;
  const int64_t *rep = tabi_value_ints(&args[1]);
  int32_t nd = s->dl.ndim;
  tabi_dtype dt = tabi_tensor_dtype(s);
  int64_t es = tabi_dtype_size(dt);
  if (s->dl.device.device_type != kDLCPU || n < nd || n > 16 || es == 0) return CPU_FALLBACK(c, REPEAT);
  int64_t pshape[16], shape[16], total = 1;
  for (int64_t i = 0; i < n; i++) {
    int64_t d = nd - (n - i);
    pshape[i] = d >= 0 ? s->dl.shape[d] : 1;
    if (rep[i] < 0 || __builtin_mul_overflow(pshape[i], rep[i], &shape[i]) ||
        (shape[i] && __builtin_mul_overflow(total, shape[i], &total)))
      return CPU_FALLBACK(c, REPEAT);
  }
  tabi_tensor *out = NULL;
  tabi_status st = cpu_empty(c, s, dt, (int32_t)n, shape, &out);
  if (st != TABI_OK) return st;
  if (tabi_tensor_numel(out) > 0) {
    /* 2n dims: (rep[i], pshape[i]) per output dim i */
    int64_t xs[2 * 16], ss[2 * 16], ds[2 * 16], ostr = 1;
    for (int64_t i = n - 1; i >= 0; i--) {
      int64_t d = nd - (n - i);
      int64_t istr = d >= 0 ? s->dl.strides[d] : 0;
      xs[2 * i] = rep[i];
      xs[2 * i + 1] = pshape[i];
      ds[2 * i + 1] = ostr;
      ds[2 * i] = ostr * pshape[i];
      ss[2 * i] = 0;
      ss[2 * i + 1] = istr;
      ostr *= shape[i];
    }
    strided_copy(c, (int32_t)(2 * n), xs, tabi_tensor_data(s), ss, tabi_tensor_data(out), ds, es);
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}
