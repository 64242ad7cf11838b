/* plugins/cpu/cpu_fft_ops.c: aten::_fft_r2c, aten::_fft_c2r and prims::fft_r2c,
 * fft_c2r, fft_c2c on the plugin's FFT core (cpu_fft.c), in the precision of
 * the data: float32/complex64 in float, float64/complex128 in double.
 *
 * Semantics are the reference's (reference/ref_fft.c): r2c transforms the last
 * listed dim first (onesided keeps n/2 + 1), then the others, forward; c2r runs
 * backward c2c over every listed dim but the last, then the Hermitian inverse of
 * the last to last_dim_size reals (input past its length counts as 0, the
 * imaginary parts of elements 0 and n/2 are ignored); the aten ops scale by
 * 1, 1/sqrt(N) or 1/N with N the product of the signal sizes (the output's for
 * c2r); prims never scale.
 *
 * Each transformed dim is one "step" over lines: every index combination of the
 * other dims is a line; a line is gathered from any strides (a contiguous line
 * is read in place), transformed, scaled and scattered. The first step reads
 * the input, the last writes the output; c2c steps between run in place on a
 * complex buffer. Many lines: one chunk of lines per thread, each with its own
 * scratch; a single line of 2^22 or more: the FFT's passes are split over the
 * pool instead (below that one thread is faster on a busy machine).
 * Error cases (bad dims, dtypes, norm) and empty tensors run the reference
 * kernel, which reports them. */
#include <math.h>
#include <string.h>

#include "cpu.h"
#include "cpu_fft.h"

#define FFT_MAX_DIMS 16
#define FFT_INNER_MIN ((int64_t)1 << 22) /* a line this long splits its passes over the pool */

enum { STEP_C2C, STEP_R2C, STEP_C2R };

/* A strided view: element pointer, shape, strides in elements. */
typedef struct fview {
  char *p;
  int64_t shape[FFT_MAX_DIMS], str[FFT_MAX_DIMS];
} fview;

typedef struct step_job {
  const cpu_ctx *c;
  const cpu_fft_plan *plan;
  int kind, f64, conj_in, conj_out;
  int32_t nd, d;
  fview src, dst;
  int64_t n;          /* the transform length */
  int64_t lines;
  double scale;
  int64_t chunk_elems; /* scratch per chunk, complex elements */
  char *scratch;
  int32_t nchunks;
  cpu_pool *inner;     /* pool for the FFT's own passes (few long lines) */
} step_job;

/* Offsets (elements) of line `l` in src and dst: l unravels over the dst dims
 * other than d. */
static void line_offsets(const step_job *J, int64_t l, int64_t *so, int64_t *dof) {
  int64_t a = 0, b = 0;
  for (int32_t i = J->nd - 1; i >= 0; i--) {
    if (i == J->d) continue;
    int64_t sz = J->dst.shape[i], idx = l % sz;
    l /= sz;
    a += idx * J->src.str[i];
    b += idx * J->dst.str[i];
  }
  *so = a;
  *dof = b;
}

/* One line, in precision FT (macro-expanded twice below). */
#define FFT_LINE(FT, SUF)                                                                          \
  static void line_##SUF(const step_job *J, int64_t l, FT *bufa, FT *bufb, void *scr) {           \
    int64_t so, dof, n = J->n;                                                                     \
    line_offsets(J, l, &so, &dof);                                                                 \
    int64_t sd = J->src.str[J->d], dd = J->dst.str[J->d];                                          \
    int64_t m = J->src.shape[J->d], olen = J->dst.shape[J->d];                                     \
    const FT *x = (const FT *)(const void *)J->src.p + (J->kind == STEP_R2C ? 1 : 2) * so;       \
    FT *y = (FT *)(void *)J->dst.p + (J->kind == STEP_C2R ? 1 : 2) * dof;                         \
    FT sc = (FT)J->scale;                                                                          \
    FT ci = J->conj_in ? (FT)-1 : (FT)1, co = J->conj_out ? (FT)-1 : (FT)1;                       \
    if (J->kind == STEP_C2C) {                                                                     \
      const FT *in = x;                                                                            \
      if (sd != 1 || J->conj_in) {                                                                 \
        for (int64_t k = 0; k < n; k++) {                                                          \
          bufa[2 * k] = x[2 * k * sd];                                                             \
          bufa[2 * k + 1] = ci * x[2 * k * sd + 1];                                                \
        }                                                                                          \
        in = bufa;                                                                                 \
      }                                                                                            \
      int direct = dd == 1 && sc == (FT)1 && !J->conj_out;                                         \
      FT *out = direct ? y : bufb;                                                                 \
      cpu_fft_c2c(J->plan, J->inner, in, out, scr);                                                \
      if (!direct)                                                                                 \
        for (int64_t k = 0; k < n; k++) {                                                          \
          y[2 * k * dd] = sc * out[2 * k];                                                         \
          y[2 * k * dd + 1] = co * sc * out[2 * k + 1];                                            \
        }                                                                                          \
    } else if (J->kind == STEP_R2C) {                                                              \
      const FT *in = x;                                                                            \
      if (sd != 1) {                                                                               \
        for (int64_t k = 0; k < n; k++) bufa[k] = x[k * sd];                                       \
        in = bufa;                                                                                 \
      }                                                                                            \
      int64_t half = n / 2;                                                                        \
      int direct = dd == 1 && !J->conj_out && olen == half + 1;                                    \
      FT *out = direct ? y : bufb;                                                                 \
      cpu_fft_r2c(J->plan, J->inner, in, out, scr, J->scale);                                      \
      if (!direct)                                                                                 \
        for (int64_t k = 0; k < olen; k++) {                                                       \
          int64_t s = k <= half ? k : n - k;                                                       \
          FT im = k <= half ? out[2 * s + 1] : -out[2 * s + 1];                                    \
          y[2 * k * dd] = out[2 * s];                                                              \
          y[2 * k * dd + 1] = co * im;                                                             \
        }                                                                                          \
    } else { /* C2R: m inputs, n outputs */                                                        \
      int64_t hc = n / 2 + 1, cp = m < hc ? m : hc;                                                \
      const FT *in = x; /* a contiguous, long enough input is read in place */                     \
      if (sd != 1 || J->conj_in || m < hc) {                                                       \
        for (int64_t k = 0; k < cp; k++) {                                                         \
          bufa[2 * k] = x[2 * k * sd];                                                             \
          bufa[2 * k + 1] = ci * x[2 * k * sd + 1];                                                \
        }                                                                                          \
        for (int64_t k = cp; k < hc; k++) bufa[2 * k] = bufa[2 * k + 1] = 0;                       \
        in = bufa;                                                                                 \
      }                                                                                            \
      FT *out = dd == 1 ? y : bufb;                                                                \
      cpu_fft_c2r(J->plan, J->inner, in, out, scr, J->scale);                                      \
      if (dd != 1)                                                                                 \
        for (int64_t k = 0; k < n; k++) y[k * dd] = out[k];                                        \
    }                                                                                              \
  }
FFT_LINE(float, f32)
FFT_LINE(double, f64)
#undef FFT_LINE

/* Chunk i of J->nchunks: its lines, with scratch slice i. */
static void step_chunk(void *arg, int64_t b, int64_t e) {
  const step_job *J = arg;
  size_t es = J->f64 ? 16 : 8;
  for (int64_t i = b; i < e; i++) {
    char *base = J->scratch + (size_t)i * (size_t)J->chunk_elems * es;
    size_t lin = (size_t)(J->n + 2) * es;
    int64_t l0 = J->lines * i / J->nchunks, l1 = J->lines * (i + 1) / J->nchunks;
    for (int64_t l = l0; l < l1; l++) {
      if (J->f64)
        line_f64(J, l, (double *)(void *)base, (double *)(void *)(base + lin), base + 2 * lin);
      else
        line_f32(J, l, (float *)(void *)base, (float *)(void *)(base + lin), base + 2 * lin);
    }
  }
}

/* Runs one step: the transform of dim d of src (shape src->shape) into dst. */
static tabi_status run_step(const cpu_ctx *c, const char *op, const tabi_tensor *like, int kind, int f64,
                            int32_t nd, int32_t d, const fview *src, const fview *dst, int64_t n,
                            double scale, int conj_in, int conj_out) {
  step_job J;
  memset(&J, 0, sizeof J);
  J.c = c;
  J.kind = kind;
  J.f64 = f64;
  J.conj_in = conj_in;
  J.conj_out = conj_out;
  J.nd = nd;
  J.d = d;
  J.src = *src;
  J.dst = *dst;
  J.n = n;
  J.scale = scale;
  int64_t total = 1;
  for (int32_t i = 0; i < nd; i++) total *= dst->shape[i];
  J.lines = total / dst->shape[d];
  J.plan = cpu_fft_plan_get(c->fft, n, f64, kind != STEP_C2C);
  if (!J.plan)
    return TABI_ERR(c->host, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory planning length %lld", op,
                    (long long)n);
  int32_t T = c->nthreads > 0 ? c->nthreads : 1;
  /* Lines go to threads in one parallel region. A single line runs on one
   * thread unless it is very long: splitting its passes costs a parallel
   * region per pass, which on a loaded machine (a preempted team member holds
   * up every region) measured 20-40x slower than one thread at 2^20. */
  J.nchunks = J.lines < T ? (int32_t)J.lines : T;
  if (J.lines * n < 32768) J.nchunks = 1; /* too little work to share */
  J.inner = J.nchunks == 1 && J.lines == 1 && n >= FFT_INNER_MIN ? c->pool : NULL;
  J.chunk_elems = 2 * (n + 2) + cpu_fft_scratch(J.plan) + 8;
  int64_t words = (int64_t)J.nchunks * J.chunk_elems * (f64 ? 2 : 1); /* float64 words */
  tabi_tensor *scr = NULL;
  tabi_status st = cpu_empty(c, like, TABI_DTYPE_FLOAT64, 1, &words, &scr);
  if (st != TABI_OK) {
    cpu_fft_plan_put(c->fft, J.plan);
    return st;
  }
  J.scratch = tabi_tensor_data(scr);
  if (J.nchunks > 1) cpu_parallel_for(c->pool, J.nchunks, 1, step_chunk, &J);
  else step_chunk(&J, 0, 1);
  c->host->tensor_release(c->host->ctx, scr);
  cpu_fft_plan_put(c->fft, J.plan);
  return TABI_OK;
}

static void view_of(fview *v, const tabi_tensor *t) {
  v->p = tabi_tensor_data(t);
  for (int32_t i = 0; i < t->dl.ndim; i++) {
    v->shape[i] = t->dl.shape[i];
    v->str[i] = t->dl.strides[i];
  }
}

/* The dim list, wrapped; 0 when it is one the reference should judge (empty,
 * out of range, repeated). */
static int get_dims(const tabi_value *v, int32_t nd, int32_t *dims, int32_t *nout) {
  if (v->tag != TABI_TAG_INT_LIST || v->u.list.len < 1 || v->u.list.len > nd) return 0;
  const int64_t *ds = tabi_value_ints(v);
  for (int64_t i = 0; i < v->u.list.len; i++) {
    int32_t w = cpu_wrap_dim(ds[i], nd);
    if (w < 0) return 0;
    for (int64_t j = 0; j < i; j++)
      if (dims[j] == w) return 0;
    dims[i] = w;
  }
  *nout = (int32_t)v->u.list.len;
  return 1;
}

/* Common checks: a tensor of 1..16 dims, no zero-size dim, the wanted dtype family. */
static int usable(const tabi_value *a, int want_complex) {
  if (a->tag != TABI_TAG_TENSOR) return 0;
  const tabi_tensor *t = a->u.t;
  tabi_dtype dt = tabi_tensor_dtype(t);
  if (t->dl.ndim < 1 || t->dl.ndim > FFT_MAX_DIMS || tabi_tensor_numel(t) == 0) return 0;
  if (want_complex) return dt == TABI_DTYPE_COMPLEX64 || dt == TABI_DTYPE_COMPLEX128;
  return dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_FLOAT64;
}

static double norm_scale(int64_t norm, double n) {
  if (norm == 1) return 1 / sqrt(n);
  if (norm == 2) return 1 / n;
  return 1;
}

static tabi_status new_out(const cpu_ctx *c, const tabi_tensor *like, tabi_dtype dt, int32_t nd,
                           const int64_t *shape, tabi_tensor **o, fview *v) {
  tabi_status st = cpu_empty(c, like, dt, nd, shape, o);
  if (st != TABI_OK) return st;
  view_of(v, *o);
  return TABI_OK;
}

/* r2c over dims[0..nd_) (the last listed one first, onesided or not). */
static tabi_status do_r2c(const cpu_ctx *c, const char *op, const tabi_tensor *t, const int32_t *dims,
                          int32_t ndims, int64_t norm, int onesided, tabi_value *outs) {
  int32_t nd = t->dl.ndim, dl = dims[ndims - 1];
  int f64 = tabi_tensor_dtype(t) == TABI_DTYPE_FLOAT64;
  int64_t shape[FFT_MAX_DIMS], n = t->dl.shape[dl];
  double N = 1;
  for (int32_t i = 0; i < nd; i++) shape[i] = t->dl.shape[i];
  for (int32_t i = 0; i < ndims; i++) N *= (double)t->dl.shape[dims[i]];
  shape[dl] = onesided ? n / 2 + 1 : n;
  double scale = norm_scale(norm, N);
  tabi_tensor *o = NULL;
  fview src, dst;
  tabi_status st = new_out(c, t, f64 ? TABI_DTYPE_COMPLEX128 : TABI_DTYPE_COMPLEX64, nd, shape, &o, &dst);
  if (st != TABI_OK) return st;
  view_of(&src, t);
  st = run_step(c, op, t, STEP_R2C, f64, nd, dl, &src, &dst, n, ndims == 1 ? scale : 1, 0, 0);
  for (int32_t i = ndims - 2; i >= 0 && st == TABI_OK; i--)
    st = run_step(c, op, t, STEP_C2C, f64, nd, dims[i], &dst, &dst, shape[dims[i]], i == 0 ? scale : 1, 0, 0);
  if (st != TABI_OK) {
    c->host->tensor_release(c->host->ctx, o);
    return st;
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

/* c2r: backward c2c over dims but the last (into a complex buffer), then the
 * Hermitian backward transform of the last into `last` reals. */
static tabi_status do_c2r(const cpu_ctx *c, const char *op, const tabi_tensor *t, const int32_t *dims,
                          int32_t ndims, int64_t norm, int64_t last, tabi_value *outs) {
  int32_t nd = t->dl.ndim, dl = dims[ndims - 1];
  int f64 = tabi_tensor_dtype(t) == TABI_DTYPE_COMPLEX128;
  int64_t shape[FFT_MAX_DIMS];
  double N = (double)last;
  for (int32_t i = 0; i < nd; i++) shape[i] = t->dl.shape[i];
  for (int32_t i = 0; i < ndims - 1; i++) N *= (double)t->dl.shape[dims[i]];
  tabi_tensor *tmp = NULL, *o = NULL;
  fview src, mid, dst;
  view_of(&src, t);
  tabi_status st = TABI_OK;
  if (ndims > 1) {
    st = new_out(c, t, tabi_tensor_dtype(t), nd, shape, &tmp, &mid);
    for (int32_t i = 0; i < ndims - 1 && st == TABI_OK; i++)
      st = run_step(c, op, t, STEP_C2C, f64, nd, dims[i], i == 0 ? &src : &mid, &mid, shape[dims[i]], 1, 1, 1);
    src = mid;
  }
  shape[dl] = last;
  if (st == TABI_OK) st = new_out(c, t, f64 ? TABI_DTYPE_FLOAT64 : TABI_DTYPE_FLOAT32, nd, shape, &o, &dst);
  if (st == TABI_OK) st = run_step(c, op, t, STEP_C2R, f64, nd, dl, &src, &dst, last, norm_scale(norm, N), 0, 0);
  c->host->tensor_release(c->host->ctx, tmp);
  if (st != TABI_OK) {
    c->host->tensor_release(c->host->ctx, o);
    return st;
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

tabi_status cpu_k_fft_r2c(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  int32_t dims[FFT_MAX_DIMS], nds = 0;
  if (!usable(&args[0], 0) || !get_dims(&args[1], args[0].u.t->dl.ndim, dims, &nds) ||
      args[2].tag != TABI_TAG_INT || args[2].u.i < 0 || args[2].u.i > 2 || args[3].tag != TABI_TAG_BOOL)
    return CPU_FALLBACK(c, FFT_R2C);
  return do_r2c(c, "aten::_fft_r2c", args[0].u.t, dims, nds, args[2].u.i, args[3].u.i != 0, outs);
}

tabi_status cpu_k_fft_c2r(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  int32_t dims[FFT_MAX_DIMS], nds = 0;
  if (!usable(&args[0], 1) || !get_dims(&args[1], args[0].u.t->dl.ndim, dims, &nds) ||
      args[2].tag != TABI_TAG_INT || args[2].u.i < 0 || args[2].u.i > 2 || args[3].tag != TABI_TAG_INT ||
      args[3].u.i < 1)
    return CPU_FALLBACK(c, FFT_C2R);
  return do_c2r(c, "aten::_fft_c2r", args[0].u.t, dims, nds, args[2].u.i, args[3].u.i, outs);
}

tabi_status cpu_k_prims_fft_r2c(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  int32_t dims[FFT_MAX_DIMS], nds = 0;
  if (!usable(&args[0], 0) || !get_dims(&args[1], args[0].u.t->dl.ndim, dims, &nds) ||
      args[2].tag != TABI_TAG_BOOL)
    return CPU_FALLBACK(c, PRIMS_FFT_R2C);
  return do_r2c(c, "prims::fft_r2c", args[0].u.t, dims, nds, 0, args[2].u.i != 0, outs);
}

tabi_status cpu_k_prims_fft_c2r(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  int32_t dims[FFT_MAX_DIMS], nds = 0;
  if (!usable(&args[0], 1) || !get_dims(&args[1], args[0].u.t->dl.ndim, dims, &nds) ||
      args[2].tag != TABI_TAG_INT || args[2].u.i < 1)
    return CPU_FALLBACK(c, PRIMS_FFT_C2R);
  return do_c2r(c, "prims::fft_c2r", args[0].u.t, dims, nds, 0, args[2].u.i, outs);
}

/* prims::fft_c2c: forward or backward (as conj(F(conj x))), unnormalized. */
tabi_status cpu_k_prims_fft_c2c(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  int32_t dims[FFT_MAX_DIMS], nds = 0;
  if (!usable(&args[0], 1) || !get_dims(&args[1], args[0].u.t->dl.ndim, dims, &nds) ||
      args[2].tag != TABI_TAG_BOOL)
    return CPU_FALLBACK(c, PRIMS_FFT_C2C);
  const tabi_tensor *t = args[0].u.t;
  int32_t nd = t->dl.ndim;
  int f64 = tabi_tensor_dtype(t) == TABI_DTYPE_COMPLEX128, bwd = args[2].u.i == 0;
  tabi_tensor *o = NULL;
  fview src, dst;
  tabi_status st = new_out(c, t, tabi_tensor_dtype(t), nd, t->dl.shape, &o, &dst);
  if (st != TABI_OK) return st;
  view_of(&src, t);
  for (int32_t i = 0; i < nds && st == TABI_OK; i++)
    st = run_step(c, "prims::fft_c2c", t, STEP_C2C, f64, nd, dims[i], i == 0 ? &src : &dst, &dst,
                  t->dl.shape[dims[i]], 1, bwd, bwd);
  if (st != TABI_OK) {
    c->host->tensor_release(c->host->ctx, o);
    return st;
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}
