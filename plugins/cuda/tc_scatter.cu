/* plugins/cuda/tc_scatter.cu: scatter.src, scatter.value, scatter_add.
 *
 * Deterministic by construction: only index elements on the same line along
 * dim can share a target, so a thread per line applies its elements in order
 * (the reference's row-major order, as far as any one target can tell), and
 * duplicate targets resolve the same way on every run (last write wins for
 * scatter; for scatter_add every target accumulates in int64/double/complex
 * double and is rounded once, as the reference). No atomics, so deterministic
 * mode needs no refusal. Few long lines (a 1-d index is one) would leave
 * the device idle: then the index is sorted along dim (stable, tc_sort.cu)
 * and a thread takes each run of equal targets, in the run's order.
 * The argument checks are the reference's own (reference/ref_index_check.c:
 * ref_idx_scatter_check, then ref_idx_check_bounds over the index values read
 * back to the host in row-major order). */
#include <stdlib.h>

#include "tc_ew_dev.cuh"
#include "tc_pad_up.cuh" /* tcp_copy */
#include "ref_index_check.h"

/* the kinds of ref_idx_scatter_check */
enum { SC_ASSIGN = REF_SC_ASSIGN, SC_VALUE = REF_SC_VALUE, SC_SUM = REF_SR_SUM };

typedef struct sc_args {
  const char *idx, *src;
  char *out, *scratch, *val;
  int32_t nd, dim, dt, kind;
  int64_t ishape[TC_MAX_DIMS], ist[TC_MAX_DIMS], sst[TC_MAX_DIMS], ost[TC_MAX_DIMS];
  int64_t n_idx, n_out;
} sc_args;

/* scatter_add: the targets' accumulators start from out (int64 / double /
   complex double: two 8-byte slots each), and are rounded into out at the end. */
__global__ void scatter_acc_kernel(const sc_args a, int store) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  int esz = tc_dt_size(a.dt), cat = tc_cat(a.dt);
  double *accf = (double *)a.scratch;
  int64_t *acci = (int64_t *)a.scratch;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < a.n_out; e += stride) {
    char *p = a.out + e * esz;
    if (store) {
      if (cat == 2) tc_st_c(p, a.dt, tc_c(accf[2 * e], accf[2 * e + 1]));
      else if (cat == 1) tc_st_f(p, a.dt, accf[2 * e]);
      else tc_st_i(p, a.dt, acci[2 * e]);
    } else if (cat == 2) {
      tc_c v = tc_ld_c(p, a.dt);
      accf[2 * e] = v.real();
      accf[2 * e + 1] = v.imag();
    } else if (cat == 1) {
      accf[2 * e] = tc_ld_f(p, a.dt);
    } else {
      acci[2 * e] = tc_ld_i(p, a.dt);
    }
  }
}

/* A thread per line of the index along dim (all other coordinates fixed),
   walking it in order. Index elements of different lines differ in a
   coordinate other than dim, and so does their target: lines never share a
   target, and each line in order is exactly the reference's row-major walk
   as far as any one target can tell. */
__global__ void scatter_lines_kernel(const sc_args a) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x, len = a.ishape[a.dim], lines = a.n_idx / len;
  int esz = tc_dt_size(a.dt), cat = tc_cat(a.dt);
  double *accf = (double *)a.scratch;
  int64_t *acci = (int64_t *)a.scratch;
  for (int64_t l = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; l < lines; l += stride) {
    int64_t rem = l, io = 0, so = 0, to = 0;
    for (int d = a.nd - 1; d >= 0; d--) {
      if (d == a.dim) continue;
      int64_t i = rem % a.ishape[d];
      rem /= a.ishape[d];
      io += i * a.ist[d];
      so += i * a.sst[d];
      to += i * a.ost[d];
    }
    for (int64_t k = 0; k < len; k++) {
      int64_t v = ((const int64_t *)a.idx)[io + k * a.ist[a.dim]];
      int64_t t = to + v * a.ost[a.dim], s = so + k * a.sst[a.dim];
      if (a.kind == SC_ASSIGN || a.kind == SC_VALUE) {
        const char *from = a.kind == SC_VALUE ? a.val : a.src + s * esz;
        tcp_copy(a.out + t * esz, from, esz);
      } else if (cat == 2) {
        tc_c x = tc_ld_c(a.src + s * esz, a.dt);
        accf[2 * t] += x.real();
        accf[2 * t + 1] += x.imag();
      } else if (cat == 1) {
        accf[2 * t] += tc_ld_f(a.src + s * esz, a.dt);
      } else {
        acci[2 * t] = (int64_t)((uint64_t)acci[2 * t] + (uint64_t)tc_ld_i(a.src + s * esz, a.dt));
      }
    }
  }
}

/* Few long lines: the index sorted along dim (stable: equal targets keep
   their order), sv its values and perm their positions (both contiguous, the
   index's shape). A thread per run of equal targets in a line: scatter writes
   the run's last element (the reference's last write), scatter_add sums the
   run in order onto the target's value and rounds once; no two threads share
   a target. */
__global__ void scatter_runs_kernel(const sc_args a, const int64_t *sv, const int64_t *perm) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x, len = a.ishape[a.dim], sd = 1;
  for (int d = a.dim + 1; d < a.nd; d++) sd *= a.ishape[d];
  int esz = tc_dt_size(a.dt), cat = tc_cat(a.dt);
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < a.n_idx; e += stride) {
    int64_t i = e / sd % len, v = sv[e];
    if (i > 0 && sv[e - sd] == v) continue; /* not the first of its run */
    int64_t rem = e, so = 0, to = 0, n = 1;
    for (int d = a.nd - 1; d >= 0; d--) {
      int64_t x = rem % a.ishape[d];
      rem /= a.ishape[d];
      if (d == a.dim) continue;
      so += x * a.sst[d];
      to += x * a.ost[d];
    }
    while (i + n < len && sv[e + n * sd] == v) n++;
    char *t = a.out + (to + v * a.ost[a.dim]) * esz;
    if (a.kind == SC_ASSIGN || a.kind == SC_VALUE) {
      const char *from = a.kind == SC_VALUE ? a.val : a.src + (so + perm[e + (n - 1) * sd] * a.sst[a.dim]) * esz;
      tcp_copy(t, from, esz);
      continue;
    }
    tc_c ac = cat == 2 ? tc_ld_c(t, a.dt) : tc_c(0, 0);
    double af = cat == 1 ? tc_ld_f(t, a.dt) : 0;
    int64_t ai = cat == 0 ? tc_ld_i(t, a.dt) : 0;
    for (int64_t r = 0; r < n; r++) {
      const char *p = a.src + (so + perm[e + r * sd] * a.sst[a.dim]) * esz;
      if (cat == 2) ac += tc_ld_c(p, a.dt);
      else if (cat == 1) af += tc_ld_f(p, a.dt);
      else ai = (int64_t)((uint64_t)ai + (uint64_t)tc_ld_i(p, a.dt));
    }
    if (cat == 2) tc_st_c(t, a.dt, ac);
    else if (cat == 1) tc_st_f(t, a.dt, af);
    else tc_st_i(t, a.dt, ai);
  }
}

static int64_t ne_size(const tabi_tensor *t, int32_t d) { return t->dl.ndim ? t->dl.shape[d] : 1; }
static int64_t ne_stride(const tabi_tensor *t, int32_t d) { return t->dl.ndim ? t->dl.strides[d] : 0; }

/* The Scalar stored in dt, as the reference's store_scalar. */
static void scalar_bytes(const tabi_value *v, tabi_dtype dt, unsigned char *buf) {
  double re = tabi_value_as_double(v), im = v->tag == TABI_TAG_COMPLEX ? v->u.c[1] : 0.0;
  int is_int = v->tag == TABI_TAG_INT || v->tag == TABI_TAG_BOOL;
  int64_t iv = is_int ? v->u.i : 0;
  memset(buf, 0, 16);
  switch (dt) {
    case TABI_DTYPE_BOOL: buf[0] = is_int ? iv != 0 : re != 0; break;
    case TABI_DTYPE_UINT8: { uint8_t x = is_int ? (uint8_t)iv : (uint8_t)(int32_t)re; memcpy(buf, &x, 1); break; }
    case TABI_DTYPE_INT8: { int8_t x = is_int ? (int8_t)iv : (int8_t)(int32_t)re; memcpy(buf, &x, 1); break; }
    case TABI_DTYPE_INT16: { int16_t x = is_int ? (int16_t)iv : (int16_t)(int32_t)re; memcpy(buf, &x, 2); break; }
    case TABI_DTYPE_INT32: { int32_t x = is_int ? (int32_t)iv : (int32_t)re; memcpy(buf, &x, 4); break; }
    case TABI_DTYPE_INT64: { int64_t x = is_int ? iv : (int64_t)re; memcpy(buf, &x, 8); break; }
    case TABI_DTYPE_FLOAT16: { uint16_t x = tabi_f32_to_f16(is_int ? (float)iv : (float)re); memcpy(buf, &x, 2); break; }
    case TABI_DTYPE_BFLOAT16: { uint16_t x = tabi_f32_to_bf16(is_int ? (float)iv : (float)re); memcpy(buf, &x, 2); break; }
    case TABI_DTYPE_FLOAT32: { float x = is_int ? (float)iv : (float)re; memcpy(buf, &x, 4); break; }
    case TABI_DTYPE_FLOAT64: { double x = is_int ? (double)iv : re; memcpy(buf, &x, 8); break; }
    case TABI_DTYPE_COMPLEX64: { float x[2] = {is_int ? (float)iv : (float)re, (float)im}; memcpy(buf, x, 8); break; }
    default: { double x[2] = {is_int ? (double)iv : re, im}; memcpy(buf, x, 16); break; }
  }
}

static tabi_status scatter_run(TC_ARGS, int kind, tabi_tensor *src, const tabi_value *value) {
  TC_CTX;
  tabi_tensor *self = args[0].u.t, *index = args[2].u.t;
  tabi_dtype dt = tabi_tensor_dtype(self);
  int32_t dim;
  tabi_status st = ref_idx_scatter_check(c->h, call, args, kind, src, value, &dim);
  if (st) return st;
  int64_t nidx = tabi_tensor_numel(index);
  int32_t nd = self->dl.ndim ? self->dl.ndim : 1;
  if ((st = tc_check_cuda(c, self, OPN, "self")) || (st = tc_check_cuda(c, index, OPN, "index")) ||
      (src && (st = tc_check_cuda(c, src, OPN, "src"))) || (st = tc_use_device(c, self, OPN)))
    return st;
  /* bounds, on the host, in order: the reference's check names the first bad value */
  if ((st = tc_index_bounds(c, call, index, dim, ne_size(self, dim)))) return st;
  tabi_tensor *out = NULL, *scr = NULL, *vbuf = NULL;
  if ((st = tc_empty(c, self->dl.device, dt, self->dl.ndim, self->dl.shape, &out))) return st;
  if (tabi_tensor_numel(out) > 0) st = tc_copy_convert(c, OPN, out, self);
  sc_args a;
  memset(&a, 0, sizeof a);
  a.n_out = tabi_tensor_numel(out);
  a.n_idx = nidx;
  /* few long lines (a 1-d index is one): by runs of equal targets instead */
  int64_t len = ne_size(index, dim), runs = nidx > 0 && nidx / len < 2048 && len > 64;
  if (st == TABI_OK && nidx > 0) {
    if (kind == SC_SUM && !runs) {
      int64_t nb = a.n_out * 16;
      st = tc_empty(c, self->dl.device, TABI_DTYPE_UINT8, 1, &nb, &scr);
    }
    if (st == TABI_OK && kind == SC_VALUE) {
      unsigned char buf[16];
      scalar_bytes(value, dt, buf);
      int64_t nb = 16;
      st = tc_empty(c, self->dl.device, TABI_DTYPE_UINT8, 1, &nb, &vbuf);
      if (st == TABI_OK)
        st = tc_cuda_status(c, cudaMemcpy(tabi_tensor_data(vbuf), buf, 16, cudaMemcpyHostToDevice), OPN,
                            "cudaMemcpy");
    }
    if (st == TABI_OK) {
      a.idx = (const char *)tabi_tensor_data(index);
      a.src = src ? (const char *)tabi_tensor_data(src) : NULL;
      a.out = (char *)tabi_tensor_data(out);
      a.scratch = scr ? (char *)tabi_tensor_data(scr) : NULL;
      a.val = vbuf ? (char *)tabi_tensor_data(vbuf) : NULL;
      a.nd = nd;
      a.dim = dim;
      a.dt = dt;
      a.kind = kind;
      for (int32_t d = 0; d < nd; d++) {
        a.ishape[d] = ne_size(index, d);
        a.ist[d] = ne_stride(index, d);
        a.sst[d] = src ? ne_stride(src, d) : 0;
        a.ost[d] = ne_stride(out, d);
      }
      if (runs) {
        tabi_tensor *sv = NULL, *perm = NULL;
        st = tc_sort_run(c, OPN, index, dim, 0, len, &sv, &perm);
        if (st == TABI_OK) {
          TC_LAUNCH(tc_grid(a.n_idx, 128), 128, scatter_runs_kernel)(a, (const int64_t *)tabi_tensor_data(sv),
                                                                (const int64_t *)tabi_tensor_data(perm));
          st = tc_launch_status(c, OPN);
        }
        c->h->tensor_release(c->h->ctx, sv);
        c->h->tensor_release(c->h->ctx, perm);
      } else {
        if (kind == SC_SUM) {
          TC_LAUNCH(tc_grid(a.n_out, 128), 128, scatter_acc_kernel)(a, 0);
          st = tc_launch_status(c, OPN);
        }
        if (st == TABI_OK) {
          TC_LAUNCH(tc_grid(a.n_idx / len, 128), 128, scatter_lines_kernel)(a);
          st = tc_launch_status(c, OPN);
        }
        if (st == TABI_OK && kind == SC_SUM) {
          TC_LAUNCH(tc_grid(a.n_out, 128), 128, scatter_acc_kernel)(a, 1);
          st = tc_launch_status(c, OPN);
        }
      }
    }
  }
  c->h->tensor_release(c->h->ctx, scr);
  c->h->tensor_release(c->h->ctx, vbuf);
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, out);
    return st;
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

static tabi_status k_scatter_src(TC_ARGS) { return scatter_run(ctx, call, args, outs, SC_ASSIGN, args[3].u.t, NULL); }
static tabi_status k_scatter_value(TC_ARGS) { return scatter_run(ctx, call, args, outs, SC_VALUE, NULL, &args[3]); }
static tabi_status k_scatter_add(TC_ARGS) { return scatter_run(ctx, call, args, outs, SC_SUM, args[3].u.t, NULL); }

TC_KTABLE tc_kernel tc_scatter_kernels[] = {{"aten::scatter.src", k_scatter_src},
                                        {"aten::scatter.value", k_scatter_value},
                                        {"aten::scatter_add", k_scatter_add},
                                        {NULL, NULL}};
