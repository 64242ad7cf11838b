/* plugins/cpu/cpu_nn_conv64.c: convolution and convolution_backward for what
 * oneDNN does not take (cpu_nn_conv.c hands it here): float64, the integer
 * dtypes, float32/float16/bfloat16 views with gaps, overlaps or negative
 * strides, transposed convolutions with output_padding > padding, and every
 * float case in a build without oneDNN.
 *
 * The reference's picture (reference/ref_nn.c): a "low-res" L and a "high-res"
 * H related by h = l*stride - padding + k*dilation, with three sums: L from H
 * (forward of a convolution, grad_input of a transposed one), H from L (the
 * transposed forward, grad_input of a convolution) and the weight gradient.
 * Here each is a GEMM per (batch chunk, group) over an im2col matrix
 * (cpu_nn_conv64_tmpl.h): im2col and col2im on the pool (col2im one task per
 * output row: no atomics, the same sums for every thread count).
 *
 * Operands are first gathered by their strides (any strides: gaps, negative,
 * overlapping) into contiguous buffers of the compute type, as the reference
 * computes: double for every float dtype (so float32/half results are still
 * rounded once, at the store, with the reference's own conversion), wrapping
 * 64-bit integers for every integer dtype (products and sums modulo 2^64 are
 * exact in any order, so integer results are the reference's bit for bit).
 * The double GEMM is OpenBLAS's dgemm where the plugin links it (it threads
 * itself and splits only rows/columns, never the k sum, so results do not
 * depend on its thread count), else the plugin's own (cpu_gemm.c); the
 * integer GEMM is below, on the pool.
 *
 * Declined (the reference runs, so errors read the same): every argument
 * error, empty tensors, bool/complex, sizes past 2^31, and a buffer that
 * cannot be allocated. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "cpu_gemm.h"
#include "cpu_nn_conv64.h"
#include "ref.h"
#include "cpu_clones.h"

#define LIM31 ((int64_t)1 << 31)
/* Elements of one im2col matrix before the batch is cut into chunks: CN
 * buffers (small planes) batch items for wide GEMMs. NC buffers run one GEMM
 * per item anyway: on one thread their matrix stays small enough to be read
 * back from cache (2^19: 8x64x28x28 3x3 float64 backward 38.5 -> 34 ms); on
 * more, each chunk is a pool region whose spinning threads (libgomp) hold the
 * cores BLAS's threads then need, so fewer, larger chunks win (2 threads,
 * same case: 61-70 / 100-119 ms fwd/bwd at 2^19, 32-40 / 54-68 at 2^22). */
#define COL_BUDGET ((int64_t)1 << 22)
#define COL_BUDGET_NC ((int64_t)1 << 19)

typedef struct c64_geom {
  int64_t n, cl, ch, groups, clg, chg; /* batch, L/H channels, groups, per group */
  int64_t ls[3], hs[3], k[3], s[3], p[3], d[3];
  int64_t lsp, hsp, kk; /* products of ls, hs, k */
  int32_t ns;
  int transposed, isint;
  /* buffer layout: nc = [N][C][S] (the tensors' own: contiguous ones are used
   * in place, one GEMM per batch item), else [C][N][S] (a batch chunk is one
   * matrix: small spatial sizes); element strides of a channel and a batch
   * item in the L and H buffers */
  int nc;
  int64_t lcs, lns, hcs, hns;
  int64_t budget; /* COL_BUDGET or COL_BUDGET_NC: set by the kernels */
} c64_geom;

/* Spatial positions from which one GEMM per batch item is as good as one per
 * chunk (so the NC layout, with no copies of contiguous operands, is taken). */
#define NC_MIN_POSITIONS 128

/* For the innermost spatial dim and kernel index k: h = l*s - off; [lo, hi)
 * the l with h inside [0, hs). Returns off. */
static inline int64_t c64_range(const c64_geom *g, int i, int64_t k, int64_t *lo, int64_t *hi) {
  int64_t off = g->p[i] - k * g->d[i], s = g->s[i];
  int64_t a = off <= 0 ? 0 : (off + s - 1) / s;
  int64_t top = g->hs[i] - 1 + off, b = top < 0 ? 0 : top / s + 1;
  if (b > g->ls[i]) b = g->ls[i];
  if (a > b) a = b;
  *lo = a;
  *hi = b;
  return off;
}

/* A spatial list of length 1 (every dim) or ns, each value in [lo, 2^31);
 * padded dims get size-1 values (stride/dilation 1, padding 0). */
static int c64_list(const tabi_value *v, int32_t ns, int64_t lo, int64_t *out) {
  if (v->tag != TABI_TAG_INT_LIST || (v->u.list.len != 1 && v->u.list.len != ns)) return 0;
  const int64_t *p = tabi_value_ints(v);
  for (int32_t i = 0; i < 3; i++) {
    out[i] = i < ns ? p[v->u.list.len == 1 ? 0 : i] : lo;
    if (out[i] < lo || out[i] >= LIM31) return 0;
  }
  return 1;
}

static int c64_dtype(tabi_dtype d) {
  switch (d) {
    case TABI_DTYPE_FLOAT64: case TABI_DTYPE_FLOAT32: case TABI_DTYPE_FLOAT16: case TABI_DTYPE_BFLOAT16:
    case TABI_DTYPE_INT64: case TABI_DTYPE_INT32: case TABI_DTYPE_INT16: case TABI_DTYPE_INT8:
    case TABI_DTYPE_UINT8: return 1;
    default: return 0;
  }
}

/* The geometry of x (*) w with args `a` in convolution's order from stride;
 * 0 for whatever the reference would refuse (and empty or huge tensors). */
static int c64_setup(const tabi_tensor *x, const tabi_tensor *w, const tabi_value *a, c64_geom *g) {
  int32_t nd = w->dl.ndim, ns = nd - 2;
  tabi_dtype dt = tabi_tensor_dtype(x);
  if (nd < 3 || nd > 5 || x->dl.ndim != nd || !c64_dtype(dt) || tabi_tensor_dtype(w) != dt) return 0;
  if (a[3].tag != TABI_TAG_BOOL || a[5].tag != TABI_TAG_INT || a[5].u.i < 1 || a[5].u.i >= LIM31) return 0;
  memset(g, 0, sizeof *g);
  int64_t op[3];
  if (!c64_list(&a[0], ns, 1, g->s) || !c64_list(&a[1], ns, 0, g->p) || !c64_list(&a[2], ns, 1, g->d) ||
      !c64_list(&a[4], ns, 0, op))
    return 0;
  for (int32_t i = 0; i < nd; i++)
    if (x->dl.shape[i] < 1 || w->dl.shape[i] < 1 || x->dl.shape[i] >= LIM31 || w->dl.shape[i] >= LIM31)
      return 0;
  g->ns = ns;
  g->transposed = a[3].u.i != 0;
  g->isint = tabi_dtype_is_integral(dt, 0);
  g->groups = a[5].u.i;
  g->n = x->dl.shape[0];
  int64_t G = g->groups, cin = x->dl.shape[1];
  int64_t cin_w = g->transposed ? w->dl.shape[0] : w->dl.shape[1] * G;
  int64_t cout = g->transposed ? w->dl.shape[1] * G : w->dl.shape[0];
  if (cin != cin_w || w->dl.shape[0] % G != 0 || cout >= LIM31) return 0;
  g->cl = g->transposed ? cin : cout;
  g->ch = g->transposed ? cout : cin;
  g->clg = g->cl / G;
  g->chg = g->ch / G;
  g->lsp = g->hsp = g->kk = 1;
  for (int32_t i = 0; i < 3; i++) {
    int64_t isz = i < ns ? x->dl.shape[2 + i] : 1;
    g->k[i] = i < ns ? w->dl.shape[2 + i] : 1;
    int64_t span = g->d[i] * (g->k[i] - 1) + 1, osz;
    if (g->transposed) {
      if (i < ns && op[i] >= g->s[i] && op[i] >= g->d[i]) return 0;
      osz = (isz - 1) * g->s[i] - 2 * g->p[i] + span + (i < ns ? op[i] : 0);
      g->ls[i] = isz;
      g->hs[i] = osz;
    } else {
      if (isz + 2 * g->p[i] < span) return 0;
      osz = (isz + 2 * g->p[i] - span) / g->s[i] + 1;
      g->hs[i] = isz;
      g->ls[i] = osz;
    }
    if (osz < 1 || osz >= LIM31) return 0;
    g->lsp *= g->ls[i];
    g->hsp *= g->hs[i];
    g->kk *= g->k[i];
    if (g->lsp >= LIM31 || g->hsp >= LIM31 || g->kk >= LIM31) return 0;
  }
  /* every buffer (and an im2col matrix of one batch item) below 2^40 elements */
  const int64_t lim = (int64_t)1 << 40;
  if (g->chg * g->kk >= LIM31 || (double)g->n * (double)(g->cl > g->ch ? g->cl : g->ch) *
                                         (double)(g->lsp > g->hsp ? g->lsp : g->hsp) >= (double)lim ||
      (double)g->chg * (double)g->kk * (double)g->lsp >= (double)lim ||
      (double)g->cl * (double)g->chg * (double)g->kk >= (double)lim)
    return 0;
  g->nc = g->lsp >= NC_MIN_POSITIONS;
  g->lcs = g->nc ? g->lsp : g->n * g->lsp;
  g->lns = g->nc ? g->cl * g->lsp : g->lsp;
  g->hcs = g->nc ? g->hsp : g->n * g->hsp;
  g->hns = g->nc ? g->ch * g->hsp : g->hsp;
  return 1;
}

/* Temporaries: 1-d tensors from the host's caching allocator (a fresh
 * malloc of a large buffer is a fresh mmap, whose page faults cost as much as
 * the im2col that fills it). Elements are 8 bytes (double or uint64_t). */
#define C64_TMPS 8
typedef struct c64_tmp {
  const cpu_ctx *c;
  tabi_tensor *t[C64_TMPS];
} c64_tmp;

static void *c64_get(c64_tmp *a, int64_t n) {
  for (int i = 0; i < C64_TMPS; i++)
    if (!a->t[i]) {
      int64_t m = n > 0 ? n : 1;
      if (cpu_empty(a->c, NULL, TABI_DTYPE_FLOAT64, 1, &m, &a->t[i]) != TABI_OK) {
        a->t[i] = NULL;
        return NULL;
      }
      return tabi_tensor_data(a->t[i]);
    }
  return NULL;
}

/* Releases the temporary at p (NULL: nothing). */
static void c64_put(c64_tmp *a, const void *p) {
  for (int i = 0; p && i < C64_TMPS; i++)
    if (a->t[i] && tabi_tensor_data(a->t[i]) == p) {
      a->c->host->tensor_release(a->c->host->ctx, a->t[i]);
      a->t[i] = NULL;
      return;
    }
}

static void c64_free(c64_tmp *a) {
  for (int i = 0; i < C64_TMPS; i++)
    if (a->t[i]) c64_put(a, tabi_tensor_data(a->t[i]));
}

/* --- GEMMs: C [m x n] (row stride ldc) = (or += when acc) A @ B ------------------ */

#ifdef TABI_CPU_BLAS
/* OpenBLAS's CBLAS entry point (row-major 101, no-trans 111, trans 112), declared
 * here as cpu_linalg_svd.c declares LAPACK's, so no cblas.h is needed. */
extern void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a,
                        int lda, const double *b, int ldb, double beta, double *c, int ldc);

/* A [r x q] with strides (rs, cs) as a CBLAS operand: transposition and ld. */
static int blas_op(int64_t r, int64_t q, int64_t rs, int64_t cs, int *trans, int64_t *ld) {
  if (cs == 1 && (r == 1 || rs >= q)) {
    *trans = 111;
    *ld = r == 1 ? (q > 1 ? q : 1) : rs;
  } else if (rs == 1 && (q == 1 || cs >= r)) {
    *trans = 112;
    *ld = q == 1 ? (r > 1 ? r : 1) : cs;
  } else {
    return 0;
  }
  return *ld < LIM31;
}
#endif

/* Without BLAS: cpu_gemm.c's GEMM per tile of OWN_NT columns on the pool
 * (it threads over 64-row blocks of C only, and a group's C has few rows);
 * its own parallel-for runs inline inside ours. */
#define OWN_NT 512
typedef struct own_job {
  const cpu_ctx *c;
  int64_t m, n, k;
  const double *a;
  int64_t a_rs, a_cs;
  const double *b;
  int64_t b_rs, b_cs;
  double *out;
  int64_t ldc;
  int acc;
  atomic_int failed;
} own_job;

static void own_range(void *arg, int64_t lo, int64_t hi) {
  own_job *j = arg;
  for (int64_t t = lo; t < hi; t++) {
    int64_t j0 = t * OWN_NT, nt = j->n - j0 < OWN_NT ? j->n - j0 : OWN_NT;
    double *r = malloc(sizeof(double) * (size_t)(j->m * nt > 0 ? j->m * nt : 1));
    if (!r || !cpu_gemm_f64(j->c, j->m, nt, j->k, j->a, j->a_rs, j->a_cs, j->b + j0 * j->b_cs, j->b_rs, j->b_cs,
                            r)) {
      atomic_store(&j->failed, 1);
      free(r);
      continue;
    }
    for (int64_t i = 0; i < j->m; i++) {
      double *o = j->out + i * j->ldc + j0;
      const double *q = r + i * nt;
      if (j->acc)
        for (int64_t x = 0; x < nt; x++) o[x] += q[x];
      else
        memcpy(o, q, sizeof(double) * (size_t)nt);
    }
    free(r);
  }
}

static int mm_f64(const cpu_ctx *c, int64_t m, int64_t n, int64_t k, const double *a, int64_t a_rs,
                  int64_t a_cs, const double *b, int64_t b_rs, int64_t b_cs, double *out, int64_t ldc,
                  int acc) {
#ifdef TABI_CPU_BLAS
  int ta, tb;
  int64_t lda, ldb;
  if (m < LIM31 && n < LIM31 && k < LIM31 && ldc < LIM31 && blas_op(m, k, a_rs, a_cs, &ta, &lda) &&
      blas_op(k, n, b_rs, b_cs, &tb, &ldb)) {
    cblas_dgemm(101, ta, tb, (int)m, (int)n, (int)k, 1.0, a, (int)lda, b, (int)ldb, acc ? 1.0 : 0.0, out,
                (int)ldc);
    return 1;
  }
#endif
  own_job j = {c, m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, out, ldc, acc, 0};
  cpu_parallel_for(c->pool, (n + OWN_NT - 1) / OWN_NT, 1, own_range, &j);
  return !atomic_load(&j.failed);
}

/* Integers: 64-bit products and sums modulo 2^64 (the reference's wrapping
 * int64), any order. Tiles of rows x NT columns on the pool. */
#define NT 256
typedef struct u64_job {
  int64_t m, n, k, a_rs, a_cs, b_rs, b_cs, ldc;
  const uint64_t *a, *b;
  uint64_t *c;
  int acc;
} u64_job;

/* c[0..n) += a * b[0..n): AVX-512 has a 64-bit vector multiply (vpmullq),
 * AVX2 does not; baseline elsewhere. */
CPU_CLONES_V4 static void u64_axpy(uint64_t *restrict c, const uint64_t *restrict b, uint64_t a,
                                   int64_t n) {
  for (int64_t q = 0; q < n; q++) c[q] += a * b[q];
}

/* sum of a[t] * b[t] modulo 2^64 (any order: exact) */
CPU_CLONES_V4 static uint64_t u64_dot(const uint64_t *a, const uint64_t *b, int64_t n) {
  uint64_t s = 0;
  for (int64_t t = 0; t < n; t++) s += a[t] * b[t];
  return s;
}

static void u64_range(void *arg, int64_t lo, int64_t hi) {
  const u64_job *j = arg;
  int64_t tiles = (j->n + NT - 1) / NT;
  for (int64_t it = lo; it < hi; it++) {
    int64_t i = it / tiles, j0 = (it % tiles) * NT, j1 = j0 + NT < j->n ? j0 + NT : j->n;
    uint64_t *cr = j->c + i * j->ldc;
    if (!j->acc)
      for (int64_t q = j0; q < j1; q++) cr[q] = 0;
    if (j->b_cs == 1) {
      for (int64_t p = 0; p < j->k; p++) {
        u64_axpy(cr + j0, j->b + p * j->b_rs + j0, j->a[i * j->a_rs + p * j->a_cs], j1 - j0);
      }
    } else if (j->a_cs == 1 && j->b_rs == 1) {
      for (int64_t q = j0; q < j1; q++) cr[q] += u64_dot(j->a + i * j->a_rs, j->b + q * j->b_cs, j->k);
    } else {
      for (int64_t q = j0; q < j1; q++) {
        uint64_t s = 0;
        for (int64_t p = 0; p < j->k; p++) s += j->a[i * j->a_rs + p * j->a_cs] * j->b[p * j->b_rs + q * j->b_cs];
        cr[q] += s;
      }
    }
  }
}

static int mm_u64(const cpu_ctx *c, int64_t m, int64_t n, int64_t k, const uint64_t *a, int64_t a_rs,
                  int64_t a_cs, const uint64_t *b, int64_t b_rs, int64_t b_cs, uint64_t *out, int64_t ldc,
                  int acc) {
  u64_job j = {m, n, k, a_rs, a_cs, b_rs, b_cs, ldc, a, b, out, acc};
  int64_t tiles = (n + NT - 1) / NT;
  cpu_parallel_for(c->pool, m * tiles, 1 + 32768 / (k * NT + 1), u64_range, &j);
  return 1;
}

/* --- element loads and stores: the reference's conversions ----------------------- */

static inline double ld_f64(const char *p, tabi_dtype dt) { return ref_load_f_ptr(p, dt); }
static inline void stv_f64(char *p, tabi_dtype dt, double v) { ref_store_f_ptr(p, dt, v); }
static inline uint64_t ld_u64(const char *p, tabi_dtype dt) { return (uint64_t)ref_load_i_ptr(p, dt); }
static inline void stv_u64(char *p, tabi_dtype dt, uint64_t v) {
  ref_store_i_ptr(p, dt, (int64_t)v); /* two's complement: the wrapped int64 */
}

#define T double
#define SFX(name) name##_f64
#define SFX_IS_F64 1
#define direct_f64 TABI_DTYPE_FLOAT64 /* the dtype whose buffers are T */
#include "cpu_nn_conv64_tmpl.h"
#undef T
#undef SFX
#undef SFX_IS_F64

#define T uint64_t
#define SFX(name) name##_u64
#define SFX_IS_F64 0
#define direct_u64 TABI_DTYPE_INT64
#include "cpu_nn_conv64_tmpl.h"
#undef T
#undef SFX
#undef SFX_IS_F64

static void release(const cpu_ctx *c, tabi_tensor **t, int32_t n) {
  for (int32_t i = 0; i < n; i++)
    if (t[i]) c->host->tensor_release(c->host->ctx, t[i]);
}

/* --- kernels ------------------------------------------------------------------------ */

tabi_status cpu_conv64_fwd(const cpu_ctx *c, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  c64_geom g;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR ||
      !c64_setup(args[0].u.t, args[1].u.t, &args[3], &g))
    return CPU_FALLBACK(c, CONV);
  const tabi_tensor *x = args[0].u.t, *w = args[1].u.t, *b = NULL;
  tabi_dtype dt = tabi_tensor_dtype(x);
  int64_t oc = g.transposed ? g.ch : g.cl;
  g.budget = g.nc && c->nthreads == 1 ? COL_BUDGET_NC : COL_BUDGET;
  if (args[2].tag == TABI_TAG_TENSOR) {
    b = args[2].u.t;
    if (b->dl.ndim != 1 || b->dl.shape[0] != oc || tabi_tensor_dtype(b) != dt) return CPU_FALLBACK(c, CONV);
  } else if (args[2].tag != TABI_TAG_NONE) {
    return CPU_FALLBACK(c, CONV);
  }
  int64_t shape[5] = {g.n, oc};
  for (int32_t i = 0; i < g.ns; i++) shape[2 + i] = g.transposed ? g.hs[i] : g.ls[i];
  tabi_tensor *o = NULL;
  tabi_status st = cpu_empty(c, x, dt, g.ns + 2, shape, &o);
  if (st != TABI_OK) return st;
  int ok = g.isint ? fwd_u64(c, &g, x, w, b, o) : fwd_f64(c, &g, x, w, b, o);
  if (!ok) {
    release(c, &o, 1);
    return CPU_FALLBACK(c, CONV);
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

tabi_status cpu_conv64_bwd(const cpu_ctx *c, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  c64_geom g;
  /* grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
   * output_padding, groups, output_mask */
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR || args[2].tag != TABI_TAG_TENSOR ||
      args[10].tag != TABI_TAG_BOOL_LIST || args[10].u.list.len != 3 ||
      !c64_setup(args[1].u.t, args[2].u.t, &args[4], &g))
    return CPU_FALLBACK(c, CONV_BWD);
  const tabi_tensor *dy = args[0].u.t, *x = args[1].u.t, *w = args[2].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  int64_t oc = g.transposed ? g.ch : g.cl;
  g.budget = g.nc && c->nthreads == 1 ? COL_BUDGET_NC : COL_BUDGET;
  int bad = dy->dl.ndim != g.ns + 2 || tabi_tensor_dtype(dy) != dt || dy->dl.shape[0] != g.n ||
            dy->dl.shape[1] != oc;
  for (int32_t i = 0; !bad && i < g.ns; i++) bad = dy->dl.shape[2 + i] != (g.transposed ? g.hs[i] : g.ls[i]);
  if (bad) return CPU_FALLBACK(c, CONV_BWD);
  const int64_t *mask = tabi_value_ints(&args[10]);
  tabi_tensor *r[3] = {NULL, NULL, NULL};
  tabi_status st = TABI_OK;
  if (mask[0]) st = cpu_empty(c, x, dt, x->dl.ndim, x->dl.shape, &r[0]);
  if (st == TABI_OK && mask[1]) st = cpu_empty(c, w, dt, w->dl.ndim, w->dl.shape, &r[1]);
  if (st == TABI_OK && mask[2]) st = cpu_empty(c, dy, dt, 1, &oc, &r[2]);
  if (st != TABI_OK) {
    release(c, r, 3);
    return st;
  }
  int ok = g.isint ? bwd_u64(c, &g, dy, x, w, r[0], r[1], r[2]) : bwd_f64(c, &g, dy, x, w, r[0], r[1], r[2]);
  if (!ok) {
    release(c, r, 3);
    return CPU_FALLBACK(c, CONV_BWD);
  }
  for (int i = 0; i < 3; i++) outs[i] = tabi_tensor_value(r[i]);
  return TABI_OK;
}
