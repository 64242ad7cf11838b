/* plugins/cpu/cpu_nn_copy.c: _to_copy and clone, the copies autocast, .float(),
 * .contiguous() and t().contiguous() make.
 *
 * Fast cases (everything else runs the reference kernel):
 *  - memory format preserve (the default) of a non-overlapping dense input
 *    (contiguous, or any permutation such as a transposed matrix): the output
 *    gets the input's strides (ATen's empty_like rule), so the copy is one
 *    linear pass over the storage span;
 *  - memory format contiguous: a gather of rows of the last dim into a
 *    contiguous output (t().contiguous());
 * for the same dtype (any: bytes are copied) or a conversion between float32,
 * float16, bfloat16 and float64 that rounds once (half types widen exactly
 * through float32; float64 to a half type would round twice, so it stays with
 * the reference). The output is on the CPU; a device argument naming another
 * device runs the reference (which copies through the host).
 */
#include <string.h>

#include "cpu.h"
#include "ref_shape_util.h"

#define BLOCK 1024

static int is_half(tabi_dtype d) { return d == TABI_DTYPE_FLOAT16 || d == TABI_DTYPE_BFLOAT16; }

/* 1 when convert() takes src -> dst. */
static int conv_ok(tabi_dtype s, tabi_dtype d) {
  if (s == d) return 1;
  int sf = s == TABI_DTYPE_FLOAT32 || is_half(s), df = d == TABI_DTYPE_FLOAT32 || is_half(d);
  if (sf && df) return 1;
  return (s == TABI_DTYPE_FLOAT64 && d == TABI_DTYPE_FLOAT32) || (sf && d == TABI_DTYPE_FLOAT64);
}

/* n contiguous elements src (dtype s) -> dst (dtype d). */
static void convert(const cpu_ctx *c, tabi_dtype s, const void *src, tabi_dtype d, void *dst,
                    int64_t n) {
  if (s == d) {
    memcpy(dst, src, (size_t)(n * tabi_dtype_size(s)));
  } else if (s == TABI_DTYPE_FLOAT32 && is_half(d)) {
    cpu_from_f32(c, d, src, dst, n);
  } else if (is_half(s) && d == TABI_DTYPE_FLOAT32) {
    cpu_to_f32(c, s, src, dst, n);
  } else if (s == TABI_DTYPE_FLOAT64 && d == TABI_DTYPE_FLOAT32) {
    const double *x = src;
    float *y = dst;
    for (int64_t i = 0; i < n; i++) y[i] = (float)x[i];
  } else if (s == TABI_DTYPE_FLOAT32 && d == TABI_DTYPE_FLOAT64) {
    const float *x = src;
    double *y = dst;
    for (int64_t i = 0; i < n; i++) y[i] = x[i];
  } else { /* half -> other half or float64: through float32, exact */
    float buf[BLOCK];
    int64_t ss = tabi_dtype_size(s), ds = tabi_dtype_size(d);
    for (int64_t i = 0; i < n; i += BLOCK) {
      int64_t m = n - i < BLOCK ? n - i : BLOCK;
      cpu_to_f32(c, s, (const char *)src + i * ss, buf, m);
      if (d == TABI_DTYPE_FLOAT64)
        for (int64_t q = 0; q < m; q++) ((double *)dst)[i + q] = buf[q];
      else
        cpu_from_f32(c, d, buf, (char *)dst + i * ds, m);
    }
  }
}

typedef struct copy_job {
  const cpu_ctx *c;
  tabi_dtype sdt, ddt;
  const char *src;
  char *dst;
  /* gather: the source's shape and strides (elements); rows of the last dim */
  int32_t ndim;
  const int64_t *shape, *strides;
} copy_job;

static void linear_range(void *arg, int64_t b, int64_t e) {
  const copy_job *j = arg;
  convert(j->c, j->sdt, j->src + b * tabi_dtype_size(j->sdt), j->ddt,
          j->dst + b * tabi_dtype_size(j->ddt), e - b);
}


static void gather_range(void *arg, int64_t b, int64_t e) {
  const copy_job *j = arg;
  int32_t nd = j->ndim;
  int64_t len = nd ? j->shape[nd - 1] : 1, ist = nd ? j->strides[nd - 1] : 0;
  int64_t ss = tabi_dtype_size(j->sdt), ds = tabi_dtype_size(j->ddt);
  _Alignas(16) char buf[BLOCK * 16];
  for (int64_t r = b; r < e; r++) {
    int64_t off = 0, rem = r; /* the row's source offset from its index */
    for (int32_t d = nd - 2; d >= 0; d--) {
      off += (rem % j->shape[d]) * j->strides[d];
      rem /= j->shape[d];
    }
    const char *s = j->src + off * ss;
    char *o = j->dst + r * len * ds;
    if (j->sdt == j->ddt) {
      cpu_gather_strided(o, s, len, ist, ss);
      continue;
    }
    for (int64_t q = 0; q < len; q += BLOCK) {
      int64_t m = len - q < BLOCK ? len - q : BLOCK;
      cpu_gather_strided(buf, s + q * ist * ss, m, ist, ss);
      convert(j->c, j->sdt, buf, j->ddt, o + q * ds, m);
    }
  }
}

/* The copy of self as dtype ddt, memory format fmt; 0 when the fast path
 * declines (nothing allocated). */
static int copy_fast(const cpu_ctx *c, const tabi_tensor *self, tabi_dtype ddt, int64_t fmt,
                     tabi_status *st, tabi_value *out) {
  tabi_dtype sdt = tabi_tensor_dtype(self);
  if (!conv_ok(sdt, ddt) || tabi_dtype_size(sdt) > 16) return 0;
  int32_t nd = self->dl.ndim;
  int64_t n = tabi_tensor_numel(self);
  int dense = rs_non_overlapping_and_dense(nd, self->dl.shape, self->dl.strides);
  int linear;
  if (fmt == RS_MF_PRESERVE && dense) linear = 1;
  else if (fmt == RS_MF_CONTIGUOUS) linear = cpu_contig(self);
  else return 0;
  tabi_tensor *o = NULL;
  DLDevice dev = {kDLCPU, 0};
  if (fmt == RS_MF_PRESERVE)
    *st = c->host->tensor_empty_strided(c->host->ctx, dev, ddt, nd, self->dl.shape,
                                        self->dl.strides, &o);
  else
    *st = cpu_empty(c, NULL, ddt, nd, self->dl.shape, &o);
  if (*st != TABI_OK) return 1;
  copy_job j = {c, sdt, ddt, tabi_tensor_data(self), tabi_tensor_data(o), nd, self->dl.shape,
                self->dl.strides};
  if (n > 0) {
    if (linear) {
      cpu_parallel_for(c->pool, n, 65536, linear_range, &j);
    } else {
      int64_t len = nd ? self->dl.shape[nd - 1] : 1;
      cpu_parallel_for(c->pool, n / len, 1 + 32768 / len, gather_range, &j);
    }
  }
  *out = tabi_tensor_value(o);
  return 1;
}

/* memory_format: None is preserve; another value is the reference's to judge. */
static int memfmt(const tabi_value *v, int64_t *fmt) {
  if (v->tag == TABI_TAG_NONE) { *fmt = RS_MF_PRESERVE; return 1; }
  if (v->tag != TABI_TAG_INT) return 0;
  *fmt = v->u.i;
  return *fmt == RS_MF_PRESERVE || *fmt == RS_MF_CONTIGUOUS;
}

tabi_status cpu_k_to_copy(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  /* self, dtype, layout, device, pin_memory, non_blocking, memory_format */
  int64_t fmt;
  if (args[0].tag != TABI_TAG_TENSOR || args[0].u.t->dl.device.device_type != kDLCPU ||
      (args[1].tag != TABI_TAG_NONE && args[1].tag != TABI_TAG_DTYPE) ||
      !(args[2].tag == TABI_TAG_NONE || (args[2].tag == TABI_TAG_INT && args[2].u.i == 0)) ||
      !(args[3].tag == TABI_TAG_NONE ||
        (args[3].tag == TABI_TAG_DEVICE && args[3].u.device.device_type == kDLCPU)) ||
      !memfmt(&args[6], &fmt))
    return CPU_FALLBACK(c, TO_COPY);
  tabi_dtype ddt = args[1].tag == TABI_TAG_DTYPE ? args[1].u.dtype : tabi_tensor_dtype(args[0].u.t);
  tabi_status st = TABI_OK;
  if (!copy_fast(c, args[0].u.t, ddt, fmt, &st, &outs[0])) return CPU_FALLBACK(c, TO_COPY);
  return st;
}

tabi_status cpu_k_clone(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  int64_t fmt;
  if (args[0].tag != TABI_TAG_TENSOR || args[0].u.t->dl.device.device_type != kDLCPU ||
      !memfmt(&args[1], &fmt))
    return CPU_FALLBACK(c, CLONE);
  tabi_status st = TABI_OK;
  if (!copy_fast(c, args[0].u.t, tabi_tensor_dtype(args[0].u.t), fmt, &st, &outs[0]))
    return CPU_FALLBACK(c, CLONE);
  return st;
}

/* --- copy into (prims::copy_to) and the functional copy (aten::copy) ------------ */

/* Same shape, both contiguous, a conversion convert() takes. */
static int copy_pair_ok(const tabi_tensor *dst, tabi_dtype ddt, const tabi_tensor *src) {
  return cpu_same_shape(dst, src) && cpu_contig(dst) && cpu_contig(src) &&
         src->dl.device.device_type == kDLCPU && conv_ok(tabi_tensor_dtype(src), ddt) &&
         tabi_dtype_size(tabi_tensor_dtype(src)) <= 16;
}

static void copy_linear(const cpu_ctx *c, tabi_tensor *dst, const tabi_tensor *src) {
  int64_t n = tabi_tensor_numel(dst);
  copy_job j = {c, tabi_tensor_dtype(src), tabi_tensor_dtype(dst), tabi_tensor_data(src),
                tabi_tensor_data(dst), 0, NULL, NULL};
  if (n > 0) cpu_parallel_for(c->pool, n, 65536, linear_range, &j);
}

tabi_status cpu_k_copy_to(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  /* a (written), b; a and b in different storages (no overlap question) */
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR)
    return CPU_FALLBACK(c, COPY_TO);
  tabi_tensor *a = args[0].u.t;
  const tabi_tensor *b = args[1].u.t;
  if ((a->flags & TABI_TENSOR_READ_ONLY) || a->dl.device.device_type != kDLCPU ||
      !copy_pair_ok(a, tabi_tensor_dtype(a), b) ||
      c->host->tensor_storage_id(c->host->ctx, a) == c->host->tensor_storage_id(c->host->ctx, b))
    return CPU_FALLBACK(c, COPY_TO);
  copy_linear(c, a, b);
  c->host->tensor_retain(c->host->ctx, a);
  outs[0] = tabi_tensor_value(a);
  return TABI_OK;
}

tabi_status cpu_k_copy(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  /* self (gives shape, dtype, layout), src, non_blocking */
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR ||
      args[0].u.t->dl.device.device_type != kDLCPU)
    return CPU_FALLBACK(c, COPY);
  const tabi_tensor *self = args[0].u.t, *src = args[1].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self);
  if (!copy_pair_ok(self, dt, src)) return CPU_FALLBACK(c, COPY);
  /* a contiguous self is dense: empty_like keeps its strides (size-1 dims too) */
  tabi_tensor *o = NULL;
  DLDevice dev = {kDLCPU, 0};
  tabi_status st = c->host->tensor_empty_strided(c->host->ctx, dev, dt, self->dl.ndim,
                                                 self->dl.shape, self->dl.strides, &o);
  if (st != TABI_OK) return st;
  copy_linear(c, o, src);
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}
