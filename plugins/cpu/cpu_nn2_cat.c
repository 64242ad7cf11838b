/* plugins/cpu/cpu_nn2_cat.c: cat (aten and prims) and constant_pad_nd as
 * threaded copies of contiguous slabs.
 *
 * cat: when every input is a contiguous host tensor of one dtype and the same
 * rank (no promotion needed, no legacy 1-D [0] input for aten to skip), the
 * output viewed as [outer, row] bytes is, per row, the inputs' slabs one after
 * the other (input i's slab: shape[dim..] of it, row o of it at o * slab_i).
 * The output's bytes are split evenly over the pool and each thread copies the
 * slab pieces its byte range covers, so dim 0 (one row, few huge slabs) and a
 * last dim (many short slabs) both spread. Dtype-agnostic (bytes move); the
 * result equals the reference's element copies for any dtype.
 *
 * constant_pad_nd: contiguous input of any dtype; the fill value is converted
 * by the reference's own rs_store_scalar (c10's Scalar.to<T>) into one element
 * and its bytes replicated. Each output row (last dim) is fill, an input row
 * slice (negative pads crop), fill; rows outside the input on an outer dim are
 * all fill. Rows run on the pool.
 *
 * Anything else (mixed dtypes, strides, argument errors, 0-d) runs the
 * reference kernel, which owns the error messages.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "ref_shape_util.h"

#define NN2_MAXD 16

/* --- cat ----------------------------------------------------------------------- */

typedef struct cat_job {
  int64_t n;            /* inputs */
  int64_t rowbytes;     /* bytes of one output row */
  const char *const *src;
  const int64_t *slab;  /* bytes of input i's slab */
  const int64_t *pre;   /* prefix sums of slab: pre[i] .. pre[i+1] within a row */
  char *dst;
} cat_job;

static void cat_range(void *arg, int64_t b, int64_t e) {
  const cat_job *j = arg;
  int64_t row = b / j->rowbytes, pos = b % j->rowbytes, k = 0;
  while (j->pre[k + 1] <= pos) k++;
  while (b < e) {
    int64_t len = j->pre[k + 1] - pos;
    if (len > e - b) len = e - b;
    memcpy(j->dst + b, j->src[k] + row * j->slab[k] + (pos - j->pre[k]), (size_t)len);
    b += len;
    pos += len;
    if (pos == j->rowbytes) {
      pos = 0;
      row++;
      k = 0;
    }
    while (k < j->n && j->pre[k + 1] <= pos) k++; /* skips empty slabs */
  }
}

static tabi_status cat_fast(const cpu_ctx *c, const tabi_value *list, int64_t dim_arg, int prims,
                            tabi_value *out, int *handled) {
  *handled = 0;
  if (list->tag != TABI_TAG_TENSOR_LIST || list->u.list.len < 1) return TABI_OK;
  int64_t n = list->u.list.len;
  tabi_tensor *const *ts = tabi_value_tensors(list);
  const tabi_tensor *r = ts[0];
  if (!r || r->dl.ndim < 1 || r->dl.ndim > NN2_MAXD) return TABI_OK;
  int32_t nd = r->dl.ndim, dim = cpu_wrap_dim(dim_arg, nd);
  tabi_dtype dt = tabi_tensor_dtype(r);
  if (dim < 0 || dt == TABI_DTYPE_INVALID) return TABI_OK;
  int64_t shape[NN2_MAXD];
  memcpy(shape, r->dl.shape, sizeof(int64_t) * (size_t)nd);
  shape[dim] = 0;
  for (int64_t i = 0; i < n; i++) {
    const tabi_tensor *t = ts[i];
    /* an empty input's strides do not matter (its slab is 0 bytes) */
    if (!t || t->dl.ndim != nd || tabi_tensor_dtype(t) != dt || (tabi_tensor_numel(t) > 0 && !cpu_contig(t)) ||
        t->dl.device.device_type != kDLCPU || t->dl.device.device_id != r->dl.device.device_id)
      return TABI_OK;
    if (!prims && nd == 1 && t->dl.shape[0] == 0) return TABI_OK; /* aten's skip rule */
    for (int32_t d = 0; d < nd; d++)
      if (d != dim && t->dl.shape[d] != r->dl.shape[d]) return TABI_OK;
    shape[dim] += t->dl.shape[dim];
  }
  int64_t es = (int64_t)(r->dl.dtype.bits / 8) * r->dl.dtype.lanes, inner = 1, outer = 1;
  if (es < 1) return TABI_OK;
  for (int32_t d = 0; d < dim; d++) outer *= shape[d];
  for (int32_t d = dim + 1; d < nd; d++) inner *= shape[d];
  void *mem = malloc((size_t)n * (sizeof(char *) + 2 * sizeof(int64_t)) + sizeof(int64_t));
  if (!mem) return TABI_OK;
  int64_t *slab = mem, *pre = slab + n;
  const char **src = (const char **)(pre + n + 1);
  pre[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    slab[i] = ts[i]->dl.shape[dim] * inner * es;
    pre[i + 1] = pre[i] + slab[i];
    src[i] = tabi_tensor_data(ts[i]);
  }
  *handled = 1;
  tabi_tensor *res = NULL;
  tabi_status st = cpu_empty(c, r, dt, nd, shape, &res);
  if (st != TABI_OK) {
    free(mem);
    return st;
  }
  cat_job j = {n, pre[n], src, slab, pre, tabi_tensor_data(res)};
  int64_t total = outer * pre[n];
  if (total > 0) cpu_parallel_for(c->pool, total, 1 << 18, cat_range, &j);
  free(mem);
  *out = tabi_tensor_value(res);
  return TABI_OK;
}

tabi_status cpu_k_cat(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  int handled;
  tabi_status st = cat_fast(c, &args[0], args[1].u.i, 0, &outs[0], &handled);
  return handled ? st : CPU_FALLBACK(c, CAT);
}

tabi_status cpu_k_p_cat(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  int handled;
  tabi_status st = cat_fast(c, &args[0], args[1].u.i, 1, &outs[0], &handled);
  return handled ? st : CPU_FALLBACK(c, P_CAT);
}

/* --- constant_pad_nd --------------------------------------------------------------- */

typedef struct pad_job {
  int32_t nd;
  int64_t ishape[NN2_MAXD], oshape[NN2_MAXD], before[NN2_MAXD];
  int64_t es;
  const unsigned char *pat; /* the fill value's bytes (es of them) */
  const char *src;
  char *dst;
} pad_job;

/* n elements of es bytes each set to pat (constant-size copies per case so
 * they become plain stores). */
static void fill_elems(char *dst, const unsigned char *pat, int64_t n, int64_t es) {
  switch (es) {
    case 1: memset(dst, pat[0], (size_t)n); break;
    case 2: for (int64_t i = 0; i < n; i++) memcpy(dst + 2 * i, pat, 2); break;
    case 4: for (int64_t i = 0; i < n; i++) memcpy(dst + 4 * i, pat, 4); break;
    case 8: for (int64_t i = 0; i < n; i++) memcpy(dst + 8 * i, pat, 8); break;
    case 16: for (int64_t i = 0; i < n; i++) memcpy(dst + 16 * i, pat, 16); break;
    default: for (int64_t i = 0; i < n; i++) memcpy(dst + es * i, pat, (size_t)es); break;
  }
}

static void pad_range(void *arg, int64_t b, int64_t e) {
  const pad_job *j = arg;
  int32_t nd = j->nd, L = nd - 1;
  int64_t ow = j->oshape[L], iw = j->ishape[L], bl = j->before[L];
  /* the inside span of a row: output [lo, hi) reads input [lo - bl, hi - bl) */
  int64_t lo = bl > 0 ? bl : 0, hi = iw + bl < ow ? iw + bl : ow;
  if (hi < lo) hi = lo;
  for (int64_t r = b; r < e; r++) {
    char *out = j->dst + r * ow * j->es;
    int64_t rem = r, irow = 0, mul = 1, inside = 1;
    for (int32_t d = L - 1; d >= 0 && inside; d--) { /* row-major input row of output row r */
      int64_t od = rem % j->oshape[d];
      rem /= j->oshape[d];
      /* od - before[d] in [0, ishape[d]), without forming it first: a pad of
         INT64_MIN would overflow it (ishape + before cannot: the output size
         was computed from it with overflow checks) */
      if (od < j->before[d] || od >= j->ishape[d] + j->before[d]) inside = 0;
      else irow += (od - j->before[d]) * mul;
      mul *= j->ishape[d];
    }
    if (!inside || hi == lo) {
      fill_elems(out, j->pat, ow, j->es);
      continue;
    }
    fill_elems(out, j->pat, lo, j->es);
    memcpy(out + lo * j->es, j->src + (irow * iw + lo - bl) * j->es, (size_t)((hi - lo) * j->es));
    fill_elems(out + hi * j->es, j->pat, ow - hi, j->es);
  }
}

tabi_status cpu_k_constant_pad_nd(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_INT_LIST) return CPU_FALLBACK(c, CONSTANT_PAD_ND);
  const tabi_tensor *s = args[0].u.t;
  int32_t nd = s->dl.ndim;
  int64_t np = args[1].u.list.len;
  const int64_t *pad = tabi_value_ints(&args[1]);
  tabi_dtype dt = tabi_tensor_dtype(s);
  if (nd < 1 || nd > NN2_MAXD || np % 2 != 0 || np / 2 > nd || !cpu_contig(s) ||
      s->dl.device.device_type != kDLCPU || dt == TABI_DTYPE_INVALID)
    return CPU_FALLBACK(c, CONSTANT_PAD_ND);
  /* the value's range/kind check is the reference's (errors from its kernel) */
  if (rs_check_scalar(c->host, call, "value", &args[2], dt) != TABI_OK) return CPU_FALLBACK(c, CONSTANT_PAD_ND);
  pad_job j;
  memset(&j, 0, sizeof j);
  j.nd = nd;
  memcpy(j.ishape, s->dl.shape, sizeof(int64_t) * (size_t)nd);
  memcpy(j.oshape, s->dl.shape, sizeof(int64_t) * (size_t)nd);
  for (int64_t i = 0; i < np / 2; i++) {
    int32_t d = nd - 1 - (int32_t)i;
    int64_t l = pad[2 * i], rr = pad[2 * i + 1], n;
    if (__builtin_add_overflow(s->dl.shape[d], l, &n) || __builtin_add_overflow(n, rr, &n) || n < 0)
      return CPU_FALLBACK(c, CONSTANT_PAD_ND);
    j.oshape[d] = n;
    j.before[d] = l;
  }
  j.es = (int64_t)(s->dl.dtype.bits / 8) * s->dl.dtype.lanes;
  if (j.es < 1 || j.es > 16) return CPU_FALLBACK(c, CONSTANT_PAD_ND);
  tabi_tensor *out = NULL;
  tabi_status st = cpu_empty(c, s, dt, nd, j.oshape, &out);
  if (st != TABI_OK) return st;
  int64_t numel = tabi_tensor_numel(out);
  if (numel > 0) {
    unsigned char pat[16];
    rs_store_scalar(out, 0, &args[2]); /* c10's conversion of the value, into element 0 */
    memcpy(pat, tabi_tensor_data(out), (size_t)j.es);
    j.pat = pat;
    j.src = tabi_tensor_data(s);
    j.dst = tabi_tensor_data(out);
    int64_t ow = j.oshape[nd - 1], rows = numel / ow;
    int64_t rowbytes = ow * j.es;
    cpu_parallel_for(c->pool, rows, 1 + (1 << 17) / (rowbytes > 0 ? rowbytes : 1), pad_range, &j);
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}
