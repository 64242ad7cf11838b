/* plugins/cpu/cpu_nn_mm.c: mm, bmm and addmm for float32, float16, bfloat16
 * and float64.
 *
 * float32: oneDNN matmul where it is built in (cpu_dnnl.c, cached plans), the
 * plugin's own GEMM otherwise. bfloat16: oneDNN's bf16 matmul with a float32
 * product, where the machine has bf16 or AVX-512 kernels (products of bf16 are
 * exact in float32 and the sums are float32, as below, minus the widening
 * pass). float16, and bfloat16 elsewhere: the operands are converted to
 * float32 (keeping a transposed operand transposed, so no extra copy), the
 * float32 product is taken as above. Then alpha/beta/self are applied in float32
 * before the one rounding to the output type, as ATen (float accumulation,
 * one rounding) and the reference (double accumulation, one rounding) do.
 * float64: the own GEMM in double (oneDNN 2.6 has no f64 matmul).
 * Empty dims, integer and complex dtypes, and every argument error run the
 * reference kernel.
 *
 * Deterministic mode: oneDNN runs with one thread (its K split depends on the
 * thread count); the own GEMM is deterministic at any count.
 */
#include <stdlib.h>
#include <string.h>

#include <tabi/half.h>

#include "cpu_dnnl.h"
#include "cpu_gemm.h"
#include "cpu_clones.h"

/* One thread in deterministic mode and in a forked child (libgomp's team of
 * the parent does not exist there; a region of one thread never waits on it). */
static int32_t dnnl_threads(const cpu_ctx *c) {
  if (cpu_pool_forked(c->pool)) return 1;
  return c->host->deterministic(c->host->ctx) ? 1 : c->nthreads;
}

static int mm_dtype(tabi_dtype d) {
  return d == TABI_DTYPE_FLOAT32 || d == TABI_DTYPE_FLOAT16 || d == TABI_DTYPE_BFLOAT16 ||
         d == TABI_DTYPE_FLOAT64;
}

static float half_load(tabi_dtype dt, uint16_t v) {
  if (dt == TABI_DTYPE_FLOAT16) return tabi_f16_to_f32(v);
  uint32_t u = (uint32_t)v << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* One product: out[b] = alpha * (A[b] @ B[b]) + beta * self, b < batch. */
typedef struct mm_spec {
  tabi_dtype dt;
  int64_t batch, m, n, k;
  const char *a, *b;    /* element [0, 0, 0] */
  int64_t as[3], bs[3]; /* batch, row, col strides in elements */
  const char *s;        /* addmm's self, NULL for mm/bmm and when beta == 0 */
  int64_t ss[2];        /* self's row/col strides once broadcast to [m, n] */
  double alpha, beta;
  int epilogue;         /* alpha != 1 or self is added */
} mm_spec;

/* Threads for a product of `macs` multiply-adds: at least 2^20 (tens of
 * microseconds) per thread. A team costs microseconds to wake on a quiet
 * machine and much more on a loaded one, which small products (the MLP's
 * 256x64x64) do not repay. */
static int32_t mm_threads(const cpu_ctx *c, double macs) {
  int32_t t = dnnl_threads(c);
  double most = macs / 1048576.0;
  return most < 1.0 ? 1 : (most < t ? (int32_t)most : t);
}

/* float32 product into contiguous out: oneDNN, else the own GEMM. */
static int prod_f32(const cpu_ctx *c, int64_t batch, int64_t m, int64_t n, int64_t k,
                    const float *a, const int64_t *as, const float *b, const int64_t *bs,
                    float *out) {
  int32_t nt = mm_threads(c, (double)batch * (double)m * (double)n * (double)k);
  if (cpu_dnnl_matmul(c->dnnl, c->host, nt, batch, m, n, k, a, as, b, bs, out))
    return 1;
  for (int64_t i = 0; i < batch; i++)
    if (!cpu_gemm_f32(c, m, n, k, a + i * as[0], as[1], as[2], b + i * bs[0], bs[1], bs[2],
                      out + i * m * n))
      return 0;
  return 1;
}

/* --- float16/bfloat16 operands to float32 ------------------------------------ */

typedef struct cvt_job {
  const cpu_ctx *c;
  tabi_dtype dt;
  const uint16_t *src;
  int64_t outer, inner;   /* per matrix: lines and elements per line */
  int64_t so, si, sb;     /* source strides: line, element, matrix */
  float *dst;             /* contiguous lines of `inner` */
} cvt_job;

static void cvt_range(void *arg, int64_t b, int64_t e) {
  const cvt_job *j = arg;
  for (int64_t r = b; r < e; r++) {
    int64_t mat = r / j->outer, line = r % j->outer;
    const uint16_t *s = j->src + mat * j->sb + line * j->so;
    float *d = j->dst + r * j->inner;
    if (j->si == 1) cpu_to_f32(j->c, j->dt, s, d, j->inner);
    else for (int64_t q = 0; q < j->inner; q++) d[q] = half_load(j->dt, s[q * j->si]);
  }
}

/* A (batch x r x q, strides st) as float32 in dst: row-major, or column-major
 * when the source is (a transposed view), so the conversion reads memory in
 * order; dst_st gets the float32 strides. */
static void half_operand(const cpu_ctx *c, tabi_dtype dt, const char *src, int64_t batch,
                         int64_t r, int64_t q, const int64_t *st, float *dst, int64_t *dst_st) {
  int colmajor = st[2] != 1 && st[1] == 1;
  cvt_job j = {c, dt, (const uint16_t *)(const void *)src, colmajor ? q : r, colmajor ? r : q,
               colmajor ? st[2] : st[1], colmajor ? st[1] : st[2], st[0], dst};
  dst_st[0] = r * q;
  dst_st[1] = colmajor ? 1 : q;
  dst_st[2] = colmajor ? r : 1;
  cpu_parallel_for(c->pool, batch * j.outer, 1 + 32768 / j.inner, cvt_range, &j);
}

/* --- alpha, beta, self, and the store ------------------------------------------ */

typedef struct epi_job {
  const cpu_ctx *c;
  const mm_spec *p;
  void *src; /* the product: float (float32/half types) or double, contiguous rows */
  char *out;
} epi_job;

#define CLONES CPU_CLONES_V3

/* x = alpha * x (+ beta * s), contiguous rows: vectorized. */
CLONES static void axpby(float *x, const float *s, int64_t n, float alpha, float beta) {
  if (s)
    for (int64_t q = 0; q < n; q++) x[q] = alpha * x[q] + beta * s[q];
  else
    for (int64_t q = 0; q < n; q++) x[q] = alpha * x[q];
}

static void epi_range(void *arg, int64_t b, int64_t e) {
  const epi_job *j = arg;
  const mm_spec *p = j->p;
  int64_t n = p->n;
  /* self's row as contiguous float32 when it is not already: converted once
   * for a broadcast row (the bias of a linear layer), per row otherwise */
  int need_row = p->s && p->dt != TABI_DTYPE_FLOAT64 &&
                 (p->dt != TABI_DTYPE_FLOAT32 || p->ss[1] != 1);
  float *srow = need_row ? malloc(sizeof(float) * (size_t)n) : NULL;
  int64_t have = -1; /* the self row now in srow */
  if (need_row && !srow) need_row = -1; /* no memory: the scalar loop below */
  for (int64_t r = b; r < e; r++) {
    int64_t i = r % p->m; /* self broadcasts over the batch (addmm: batch 1) */
    if (p->dt == TABI_DTYPE_FLOAT64) {
      const double *x = (const double *)j->src + r * n;
      double *o = (double *)(void *)j->out + r * n;
      const double *s = p->s ? (const double *)(const void *)p->s + i * p->ss[0] : NULL;
      for (int64_t q = 0; q < n; q++) {
        double v = x[q] * p->alpha;
        if (s) v += p->beta * s[q * p->ss[1]];
        o[q] = v;
      }
      continue;
    }
    float *x = (float *)j->src + r * n;
    float alpha = (float)p->alpha, beta = (float)p->beta;
    if (p->epilogue) {
      const float *srow_now = NULL;
      if (p->s && need_row == 1) {
        int64_t key = p->ss[0] == 0 ? 0 : i;
        if (key != have) {
          const char *s = p->s + i * p->ss[0] * tabi_dtype_size(p->dt);
          if (p->dt == TABI_DTYPE_FLOAT32) {
            for (int64_t q = 0; q < n; q++) srow[q] = ((const float *)(const void *)s)[q * p->ss[1]];
          } else if (p->ss[1] == 1) {
            cpu_to_f32(j->c, p->dt, s, srow, n);
          } else {
            const uint16_t *h = (const uint16_t *)(const void *)s;
            for (int64_t q = 0; q < n; q++) srow[q] = half_load(p->dt, h[q * p->ss[1]]);
          }
          have = key;
        }
        srow_now = srow;
      } else if (p->s && need_row == 0) {
        srow_now = (const float *)(const void *)p->s + i * p->ss[0]; /* float32, contiguous */
      }
      if (p->s && need_row < 0) { /* allocation failed: element by element */
        const char *s = p->s + i * p->ss[0] * tabi_dtype_size(p->dt);
        for (int64_t q = 0; q < n; q++) {
          float sv = p->dt == TABI_DTYPE_FLOAT32
                         ? ((const float *)(const void *)s)[q * p->ss[1]]
                         : half_load(p->dt, ((const uint16_t *)(const void *)s)[q * p->ss[1]]);
          x[q] = alpha * x[q] + beta * sv;
        }
      } else {
        axpby(x, srow_now, n, alpha, beta);
      }
    }
    if (p->dt != TABI_DTYPE_FLOAT32) cpu_from_f32(j->c, p->dt, x, j->out + 2 * r * n, n);
  }
  free(srow);
}

/* n float32 from the host's caching allocator (warm pages for a repeated shape). */
static tabi_tensor *f32_scratch(const cpu_ctx *c, int64_t n) {
  tabi_tensor *t = NULL;
  DLDevice dev = {kDLCPU, 0};
  return c->host->tensor_empty(c->host->ctx, dev, TABI_DTYPE_FLOAT32, 1, &n, &t) == TABI_OK ? t : NULL;
}

static tabi_status mm_compute(const cpu_ctx *c, const char *op, const mm_spec *p,
                              const tabi_tensor *like, int32_t ndim, tabi_tensor **out) {
  int64_t shape[3] = {p->batch, p->m, p->n};
  tabi_status st = cpu_empty(c, like, p->dt, ndim, ndim == 3 ? shape : shape + 1, out);
  if (st != TABI_OK) return st;
  char *o = tabi_tensor_data(*out);
  void *prod = o;
  tabi_tensor *tmp = NULL;
  int ok = 1;
  int64_t mk = p->m * p->k, kn = p->k * p->n, mn = p->m * p->n;
  if (p->dt == TABI_DTYPE_FLOAT32) {
    ok = prod_f32(c, p->batch, p->m, p->n, p->k, (const float *)(const void *)p->a, p->as,
                  (const float *)(const void *)p->b, p->bs, (float *)prod);
  } else if (p->dt == TABI_DTYPE_FLOAT64) {
    for (int64_t i = 0; ok && i < p->batch; i++)
      ok = cpu_gemm_f64(c, p->m, p->n, p->k, (const double *)(const void *)p->a + i * p->as[0],
                        p->as[1], p->as[2], (const double *)(const void *)p->b + i * p->bs[0],
                        p->bs[1], p->bs[2], (double *)prod + i * mn);
  } else if (p->dt == TABI_DTYPE_BFLOAT16 && c->dnnl &&
             (tmp = f32_scratch(c, p->batch * mn)) != NULL &&
             cpu_dnnl_matmul_bf16(c->dnnl, c->host, mm_threads(c, (double)p->batch * mk * p->n), p->batch,
                                  p->m, p->n, p->k, (const uint16_t *)(const void *)p->a, p->as,
                                  (const uint16_t *)(const void *)p->b, p->bs, tabi_tensor_data(tmp))) {
    prod = tabi_tensor_data(tmp); /* bf16 operands straight into oneDNN's bf16 dot products */
  } else {
    c->host->tensor_release(c->host->ctx, tmp); /* a bf16 attempt's scratch */
    tmp = NULL;
    /* from the host's caching allocator: a repeated shape reuses warm pages
     * (malloc of this size maps fresh ones, and page faults are slow here) */
    int64_t bytes = (int64_t)sizeof(float) * p->batch * (mk + kn + mn);
    DLDevice dev = {kDLCPU, 0};
    ok = c->host->tensor_empty(c->host->ctx, dev, TABI_DTYPE_UINT8, 1, &bytes, &tmp) == TABI_OK;
    if (ok) {
      float *fa = tabi_tensor_data(tmp), *fb = fa + p->batch * mk, *fo = fb + p->batch * kn;
      int64_t fas[3], fbs[3];
      half_operand(c, p->dt, p->a, p->batch, p->m, p->k, p->as, fa, fas);
      half_operand(c, p->dt, p->b, p->batch, p->k, p->n, p->bs, fb, fbs);
      ok = prod_f32(c, p->batch, p->m, p->n, p->k, fa, fas, fb, fbs, fo);
      prod = fo;
    }
  }
  if (ok && (p->epilogue || p->dt == TABI_DTYPE_FLOAT16 || p->dt == TABI_DTYPE_BFLOAT16)) {
    epi_job j = {c, p, prod, o};
    cpu_parallel_for(c->pool, p->batch * p->m, 1 + 16384 / p->n, epi_range, &j);
  }
  c->host->tensor_release(c->host->ctx, tmp);
  if (!ok) {
    c->host->tensor_release(c->host->ctx, *out);
    *out = NULL;
    return TABI_ERR(c->host, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
  }
  return TABI_OK;
}

/* --- the kernels --------------------------------------------------------------- */

/* Operands x (.. x m x k) and y (.. x k x n) of one dtype the fast path takes,
 * ndim dims each, batch and inner dims agreeing, no empty dim. */
static int mm_operands(const tabi_value *x, const tabi_value *y, int32_t ndim, mm_spec *p) {
  if (x->tag != TABI_TAG_TENSOR || y->tag != TABI_TAG_TENSOR) return 0;
  const tabi_tensor *a = x->u.t, *b = y->u.t;
  if (a->dl.ndim != ndim || b->dl.ndim != ndim) return 0;
  tabi_dtype dt = tabi_tensor_dtype(a);
  if (!mm_dtype(dt) || tabi_tensor_dtype(b) != dt) return 0;
  int32_t o = ndim - 2;
  memset(p, 0, sizeof *p);
  p->dt = dt;
  p->batch = ndim == 3 ? a->dl.shape[0] : 1;
  p->m = a->dl.shape[o];
  p->k = a->dl.shape[o + 1];
  p->n = b->dl.shape[o + 1];
  if (b->dl.shape[o] != p->k || (ndim == 3 && b->dl.shape[0] != p->batch)) return 0;
  if (p->batch < 1 || p->m < 1 || p->k < 1 || p->n < 1) return 0;
  p->a = tabi_tensor_data(a);
  p->b = tabi_tensor_data(b);
  p->as[0] = ndim == 3 ? a->dl.strides[0] : p->m * p->k;
  p->bs[0] = ndim == 3 ? b->dl.strides[0] : p->k * p->n;
  p->as[1] = a->dl.strides[o];
  p->as[2] = a->dl.strides[o + 1];
  p->bs[1] = b->dl.strides[o];
  p->bs[2] = b->dl.strides[o + 1];
  p->alpha = 1.0;
  return 1;
}

tabi_status cpu_k_mm(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  mm_spec p;
  if (!mm_operands(&args[0], &args[1], 2, &p)) return CPU_FALLBACK(c, MM);
  tabi_tensor *o = NULL;
  tabi_status st = mm_compute(c, "aten::mm", &p, args[0].u.t, 2, &o);
  if (st == TABI_OK) outs[0] = tabi_tensor_value(o);
  return st;
}

tabi_status cpu_k_bmm(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  mm_spec p;
  if (!mm_operands(&args[0], &args[1], 3, &p)) return CPU_FALLBACK(c, BMM);
  tabi_tensor *o = NULL;
  tabi_status st = mm_compute(c, "aten::bmm", &p, args[0].u.t, 3, &o);
  if (st == TABI_OK) outs[0] = tabi_tensor_value(o);
  return st;
}

static int real_scalar(const tabi_value *v, double *out) {
  if (v->tag != TABI_TAG_INT && v->tag != TABI_TAG_FLOAT && v->tag != TABI_TAG_BOOL) return 0;
  *out = tabi_value_as_double(v);
  return 1;
}

tabi_status cpu_k_addmm(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  mm_spec p;
  double beta, alpha;
  if (!mm_operands(&args[1], &args[2], 2, &p) || args[0].tag != TABI_TAG_TENSOR ||
      tabi_tensor_dtype(args[0].u.t) != p.dt || !real_scalar(&args[3], &beta) ||
      !real_scalar(&args[4], &alpha))
    return CPU_FALLBACK(c, ADDMM);
  /* float32 and the half types apply alpha and beta in float: exact only when
   * they are floats (a double beta runs the reference). */
  if (p.dt != TABI_DTYPE_FLOAT64 &&
      ((double)(float)alpha != alpha || (double)(float)beta != beta))
    return CPU_FALLBACK(c, ADDMM);
  const tabi_tensor *s = args[0].u.t;
  /* self broadcasts to [m, n]: right-aligned, each dim 1 or equal. */
  if (s->dl.ndim > 2) return CPU_FALLBACK(c, ADDMM);
  int64_t sd[2] = {1, 1};
  for (int32_t i = 0; i < s->dl.ndim; i++) {
    sd[2 - s->dl.ndim + i] = s->dl.shape[i];
    p.ss[2 - s->dl.ndim + i] = s->dl.shape[i] == 1 ? 0 : s->dl.strides[i];
  }
  if ((sd[0] != 1 && sd[0] != p.m) || (sd[1] != 1 && sd[1] != p.n)) return CPU_FALLBACK(c, ADDMM);
  p.alpha = alpha;
  p.beta = beta;
  p.s = beta != 0.0 ? tabi_tensor_data(s) : NULL; /* beta == 0: self is not read (ATen) */
  p.epilogue = alpha != 1.0 || p.s != NULL;
  tabi_tensor *o = NULL;
  tabi_status st = mm_compute(c, "aten::addmm", &p, args[1].u.t, 2, &o);
  if (st == TABI_OK) outs[0] = tabi_tensor_value(o);
  return st;
}
