/* conformance/gen.c: the sample list, the RNG, tensor builders and the entry
 * point conform_samples_generate. See gen.h for the generator table format. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* --- the table ------------------------------------------------------------- */

static const gen_entry *const gen_tables[] = {
    gen_elementwise_table, gen_reduce_table, gen_shape_table, gen_index_table,
    gen_create_table,      gen_nn_table,     gen_nn2_table,   gen_fft_table,
};

const gen_entry *gen_find_entry(const char *op_name) {
  if (!op_name) return NULL;
  for (size_t t = 0; t < sizeof gen_tables / sizeof gen_tables[0]; t++)
    for (const gen_entry *e = gen_tables[t]; e->op; e++)
      if (strcmp(e->op, op_name) == 0) return e;
  return NULL;
}

/* --- RNG: splitmix64, so a seed reproduces every sample on every machine ---- */

uint64_t gen_next(gen_ctx *g) {
  uint64_t z = (g->rng += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

double gen_uniform(gen_ctx *g, double lo, double hi) {
  double u = (double)(gen_next(g) >> 11) * (1.0 / 9007199254740992.0);
  return lo + (hi - lo) * u;
}

int64_t gen_int(gen_ctx *g, int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo + (int64_t)(gen_next(g) % (uint64_t)(hi - lo + 1));
}

static uint64_t gen_hash(const char *s) { /* FNV-1a */
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (; *s; s++) h = (h ^ (uint8_t)*s) * UINT64_C(0x100000001b3);
  return h;
}

/* --- dtype facts ----------------------------------------------------------- */

int gen_is_float_like(tabi_dtype d) { return tabi_dtype_is_floating(d) || tabi_dtype_is_complex(d); }

double gen_dtype_max(tabi_dtype d) {
  switch (d) {
    case TABI_DTYPE_BOOL: return 1;
    case TABI_DTYPE_UINT8: return 255;
    case TABI_DTYPE_INT8: return 127;
    case TABI_DTYPE_INT16: return 32767;
    case TABI_DTYPE_INT32: return 2147483647.0;
    case TABI_DTYPE_INT64: return 9223372036854775807.0; /* rounds to 2^63: see gen_store */
    case TABI_DTYPE_FLOAT16: return 65504.0;
    case TABI_DTYPE_BFLOAT16: return 3.3895313892515355e38;
    case TABI_DTYPE_FLOAT32: case TABI_DTYPE_COMPLEX64: return 3.4028234663852886e38;
    default: return 1.7976931348623157e308;
  }
}

double gen_dtype_min(tabi_dtype d) {
  if (d == TABI_DTYPE_BOOL || d == TABI_DTYPE_UINT8) return 0;
  if (tabi_dtype_is_integral(d, 0)) return -gen_dtype_max(d) - 1;
  return -gen_dtype_max(d);
}

/* Stores v (and im for complex) at p as dtype d. Integers saturate to the
 * dtype's range so that int64 max (not representable in double) stays exact. */
static void gen_store(void *p, tabi_dtype d, double v, double im) {
  if (tabi_dtype_is_integral(d, 0)) {
    int64_t i;
    if (v != v) i = 0;
    else if (v >= gen_dtype_max(d)) i = d == TABI_DTYPE_INT64 ? INT64_MAX : (int64_t)gen_dtype_max(d);
    else if (v <= gen_dtype_min(d)) i = d == TABI_DTYPE_INT64 ? INT64_MIN : (int64_t)gen_dtype_min(d);
    else i = (int64_t)v;
    switch (d) {
      case TABI_DTYPE_UINT8: *(uint8_t *)p = (uint8_t)i; break;
      case TABI_DTYPE_INT8: *(int8_t *)p = (int8_t)i; break;
      case TABI_DTYPE_INT16: *(int16_t *)p = (int16_t)i; break;
      case TABI_DTYPE_INT32: *(int32_t *)p = (int32_t)i; break;
      default: *(int64_t *)p = i; break;
    }
    return;
  }
  switch (d) {
    case TABI_DTYPE_BOOL: *(uint8_t *)p = v != 0; break;
    case TABI_DTYPE_FLOAT16: *(uint16_t *)p = tabi_f32_to_f16((float)v); break;
    case TABI_DTYPE_BFLOAT16: *(uint16_t *)p = tabi_f32_to_bf16((float)v); break;
    case TABI_DTYPE_FLOAT32: *(float *)p = (float)v; break;
    case TABI_DTYPE_FLOAT64: *(double *)p = v; break;
    case TABI_DTYPE_COMPLEX64: ((float *)p)[0] = (float)v; ((float *)p)[1] = (float)im; break;
    case TABI_DTYPE_COMPLEX128: ((double *)p)[0] = v; ((double *)p)[1] = im; break;
    default: break;
  }
}

/* One value of domain `dom` for dtype d. */
static double gen_value(gen_ctx *g, tabi_dtype d, int32_t dom) {
  if (d == TABI_DTYPE_BOOL) return (double)gen_int(g, 0, 1);
  if (tabi_dtype_is_integral(d, 0)) {
    int u8 = d == TABI_DTYPE_UINT8;
    switch (dom) {
      case GEN_DOM_POS: return (double)gen_int(g, 1, 9);
      case GEN_DOM_UNIT: return (double)gen_int(g, u8 ? 0 : -1, 1);
      case GEN_DOM_GE1: return (double)gen_int(g, 1, 5);
      case GEN_DOM_DIVISOR: {
        int64_t m = gen_int(g, 2, 9);
        return (double)(u8 || gen_int(g, 0, 1) ? m : -m);
      }
      case GEN_DOM_SMALL: return (double)gen_int(g, u8 ? 0 : -3, 3);
      case GEN_DOM_EXP: return (double)gen_int(g, 0, 4);
      case GEN_DOM_SHIFT: return (double)gen_int(g, 0, 6);
      case GEN_DOM_PROB: return (double)gen_int(g, 0, 1);
      case GEN_DOM_NONNEG: return (double)gen_int(g, 0, 9);
      case GEN_DOM_TIES: return (double)gen_int(g, u8 ? 0 : -2, 2);
      case GEN_DOM_BIG: {
        double v = (double)gen_int(g, u8 ? 0 : -100, 100);
        return v;
      }
      default: return (double)gen_int(g, u8 ? 0 : -9, u8 ? 15 : 9);
    }
  }
  switch (dom) {
    case GEN_DOM_POS: return gen_uniform(g, 0.1, 4);
    case GEN_DOM_UNIT: return gen_uniform(g, -0.95, 0.95);
    case GEN_DOM_GE1: return gen_uniform(g, 1.05, 4);
    case GEN_DOM_DIVISOR: {
      double m = gen_uniform(g, 0.5, 3);
      return gen_int(g, 0, 1) ? m : -m;
    }
    case GEN_DOM_SMALL: return gen_uniform(g, -1.5, 1.5);
    case GEN_DOM_EXP: return gen_uniform(g, -2, 2);
    case GEN_DOM_SHIFT: return (double)gen_int(g, 0, 6);
    case GEN_DOM_PROB: return gen_uniform(g, 0.05, 0.95);
    case GEN_DOM_NONNEG: return gen_uniform(g, 0, 4);
    case GEN_DOM_TIES: return (double)gen_int(g, -2, 2);
    case GEN_DOM_BIG: return gen_uniform(g, -50, 50);
    default: return gen_uniform(g, -3, 3);
  }
}

/* --- samples ---------------------------------------------------------------- */

void conform_sample_rebase(conform_sample *s, const conform_sample *old_addr) {
  const char *lo = (const char *)old_addr, *hi = lo + sizeof *s;
  for (int32_t i = 0; i < CONFORM_MAX_ARGS; i++) {
    tabi_value *v = &s->args[i];
    if (v->tag != TABI_TAG_INT_LIST && v->tag != TABI_TAG_BOOL_LIST &&
        v->tag != TABI_TAG_FLOAT_LIST && v->tag != TABI_TAG_TENSOR_LIST &&
        v->tag != TABI_TAG_STRING)
      continue;
    const char *p = (const char *)v->u.list.data;
    if (p >= lo && p < hi) v->u.list.data = (const char *)s + (p - lo);
  }
}

static void gen_sample_release(conform_sample *s) {
  for (int32_t i = 0; i < CONFORM_MAX_ARGS; i++)
    for (int32_t j = 0; j < CONFORM_MAX_LIST; j++) {
      tabi_tensor_release(s->tensors[i][j]);
      s->tensors[i][j] = NULL;
    }
}

void conform_sample_list_clear(conform_sample_list *list) {
  if (!list) return;
  for (int32_t i = 0; i < list->count; i++) gen_sample_release(&list->items[i]);
  free(list->items);
  list->items = NULL;
  list->count = list->cap = 0;
}

static void gen_fail(gen_ctx *g, tabi_status st) {
  if (!g->status) g->status = st ? st : TABI_ERR_INTERNAL;
}

conform_sample *gen_begin(gen_ctx *g, const char *fmt, ...) {
  if (g->cur) gen_commit(g);
  conform_sample *s = calloc(1, sizeof *s);
  if (!s) { gen_fail(g, TABI_ERR_OUT_OF_MEMORY); return NULL; }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->name, sizeof s->name, fmt, ap);
  va_end(ap);
  for (int32_t i = 0; i < CONFORM_MAX_ARGS; i++) s->args[i] = tabi_default();
  g->cur = s;
  g->status = TABI_OK;
  return s;
}

void gen_commit(gen_ctx *g) {
  conform_sample *s = g->cur;
  if (!s) return;
  g->cur = NULL;
  conform_sample_list *l = g->list;
  if (g->status || (l->count == l->cap && l->cap > INT32_MAX / 2)) {
    gen_sample_release(s);
    free(s);
    return;
  }
  if (l->count == l->cap) {
    int32_t cap = l->cap ? l->cap * 2 : 16;
    conform_sample *old = l->items;
    conform_sample *items = malloc((size_t)cap * sizeof *items);
    if (!items) { gen_fail(g, TABI_ERR_OUT_OF_MEMORY); gen_sample_release(s); free(s); return; }
    for (int32_t i = 0; i < l->count; i++) {
      items[i] = old[i];
      conform_sample_rebase(&items[i], &old[i]);
    }
    free(old);
    l->items = items;
    l->cap = cap;
  }
  l->items[l->count] = *s;
  conform_sample_rebase(&l->items[l->count], s);
  l->count++;
  free(s);
}

void gen_flags(gen_ctx *g, uint32_t flags) { if (g->cur) g->cur->flags |= flags; }

void gen_tol(gen_ctx *g, double rtol, double atol, const char *reason) {
  if (!g->cur) return;
  g->cur->rtol = rtol;
  g->cur->atol = atol;
  g->cur->tol_reason = reason;
}

static tabi_value *gen_slot(gen_ctx *g, int32_t i) {
  if (!g->cur || i < 0 || i >= CONFORM_MAX_ARGS) { gen_fail(g, TABI_ERR_INTERNAL); return NULL; }
  if (g->cur->nargs < i + 1) g->cur->nargs = i + 1;
  return &g->cur->args[i];
}

void gen_arg_t(gen_ctx *g, int32_t i, tabi_tensor *t) {
  tabi_value *v = gen_slot(g, i);
  if (!v) { tabi_tensor_release(t); return; }
  tabi_tensor_release(g->cur->tensors[i][0]);
  g->cur->tensors[i][0] = t;
  *v = tabi_tensor_value(t);
}

void gen_arg_tl(gen_ctx *g, int32_t i, int32_t n, tabi_tensor *const *ts) {
  tabi_value *v = gen_slot(g, i);
  if (!v || n > CONFORM_MAX_LIST) {
    for (int32_t j = 0; j < n; j++) tabi_tensor_release(ts[j]);
    gen_fail(g, TABI_ERR_INTERNAL);
    return;
  }
  for (int32_t j = 0; j < n; j++) g->cur->tensors[i][j] = ts[j];
  *v = tabi_tensor_list(g->cur->tensors[i], n);
}

void gen_arg_int(gen_ctx *g, int32_t i, int64_t x) { tabi_value *v = gen_slot(g, i); if (v) *v = tabi_int(x); }
void gen_arg_float(gen_ctx *g, int32_t i, double x) { tabi_value *v = gen_slot(g, i); if (v) *v = tabi_float(x); }
void gen_arg_bool(gen_ctx *g, int32_t i, int x) { tabi_value *v = gen_slot(g, i); if (v) *v = tabi_bool(x); }
void gen_arg_complex(gen_ctx *g, int32_t i, double re, double im) {
  tabi_value *v = gen_slot(g, i);
  if (v) *v = tabi_complex(re, im);
}
void gen_arg_none(gen_ctx *g, int32_t i) { tabi_value *v = gen_slot(g, i); if (v) *v = tabi_none(); }
void gen_arg_dtype(gen_ctx *g, int32_t i, tabi_dtype d) { tabi_value *v = gen_slot(g, i); if (v) *v = tabi_dtype_value(d); }
void gen_arg_cpu(gen_ctx *g, int32_t i) {
  tabi_value *v = gen_slot(g, i);
  DLDevice cpu = {kDLCPU, 0};
  if (v) *v = tabi_device_value(cpu);
}
void gen_arg_str(gen_ctx *g, int32_t i, const char *s) {
  tabi_value *v = gen_slot(g, i);
  if (!v) return;
  size_t n = strlen(s);
  if (n >= sizeof g->cur->strs[i]) n = sizeof g->cur->strs[i] - 1;
  memcpy(g->cur->strs[i], s, n);
  g->cur->strs[i][n] = 0;
  *v = tabi_string(g->cur->strs[i], (int64_t)n);
}
void gen_arg_ints(gen_ctx *g, int32_t i, int32_t n, const int64_t *x) {
  tabi_value *v = gen_slot(g, i);
  if (!v) return;
  if (n > CONFORM_MAX_LIST) { gen_fail(g, TABI_ERR_INTERNAL); return; }
  for (int32_t j = 0; j < n; j++) g->cur->ints[i][j] = x[j];
  *v = tabi_int_list(g->cur->ints[i], n);
}
void gen_arg_bools(gen_ctx *g, int32_t i, int32_t n, const int64_t *x) {
  gen_arg_ints(g, i, n, x);
  if (g->cur && g->cur->args[i].tag == TABI_TAG_INT_LIST) g->cur->args[i].tag = TABI_TAG_BOOL_LIST;
}
void gen_arg_floats(gen_ctx *g, int32_t i, int32_t n, const double *x) {
  tabi_value *v = gen_slot(g, i);
  if (!v) return;
  if (n > CONFORM_MAX_LIST) { gen_fail(g, TABI_ERR_INTERNAL); return; }
  for (int32_t j = 0; j < n; j++) g->cur->floats[i][j] = x[j];
  *v = tabi_float_list(g->cur->floats[i], n);
}
void gen_arg_scalar_for(gen_ctx *g, int32_t i, tabi_dtype d, double x) {
  if (d == TABI_DTYPE_BOOL) gen_arg_bool(g, i, x != 0);
  else if (tabi_dtype_is_integral(d, 0)) gen_arg_int(g, i, (int64_t)x);
  else if (tabi_dtype_is_complex(d)) gen_arg_complex(g, i, x, 0.5);
  else gen_arg_float(g, i, x);
}

/* --- tensors ---------------------------------------------------------------- */

static int64_t gen_view_offset(const tabi_tensor *t, int64_t linear) {
  int64_t off = 0;
  for (int32_t d = t->dl.ndim - 1; d >= 0; d--) {
    int64_t n = t->dl.shape[d];
    if (n <= 0) return 0;
    off += (linear % n) * t->dl.strides[d];
    linear /= n;
  }
  return off;
}

void gen_set(tabi_tensor *t, int64_t linear, double v) {
  tabi_dtype d = tabi_tensor_dtype(t);
  char *p = (char *)tabi_tensor_data(t) + gen_view_offset(t, linear) * tabi_dtype_size(d);
  gen_store(p, d, v, 0.0);
}

tabi_tensor *gen_tensor(gen_ctx *g, tabi_dtype dt, int32_t ndim, const int64_t *shape,
                        uint32_t layout, int32_t dom) {
  if (g->status || ndim < 0 || ndim > 8) { gen_fail(g, TABI_ERR_INTERNAL); return NULL; }
  DLDevice cpu = {kDLCPU, 0};
  int64_t strides[8], order[8];
  for (int32_t d = 0; d < ndim; d++) order[d] = d; /* physical order, outermost first */
  if ((layout & GEN_L_T) && ndim >= 2) { order[ndim - 2] = ndim - 1; order[ndim - 1] = ndim - 2; }
  int64_t running = 1;
  for (int32_t k = ndim - 1; k >= 0; k--) {
    int32_t d = (int32_t)order[k];
    int64_t n = shape[d] > 0 ? shape[d] : 1;
    if ((layout & GEN_L_EXPAND) && d == 0) { strides[d] = 0; continue; }
    int64_t step = ((layout & GEN_L_STEP) && d == ndim - 1) ? 2 : 1;
    strides[d] = running * step;
    running *= n * step;
  }
  int64_t offset = (layout & GEN_L_OFFSET) ? 3 : 0;
  int64_t numel = running + offset;
  tabi_tensor *base = NULL, *view = NULL;
  tabi_status st = tabi_tensor_empty(g->rt, cpu, dt, 1, &numel, &base);
  if (st) { gen_fail(g, st); return NULL; }
  int64_t es = tabi_dtype_size(dt);
  char *p = tabi_tensor_data(base);
  int cplx = tabi_dtype_is_complex(dt);
  for (int64_t i = 0; i < numel; i++) {
    double re = gen_value(g, dt, dom);
    double im = cplx ? gen_value(g, dt, dom == GEN_DOM_POS || dom == GEN_DOM_GE1 ? GEN_DOM_SMALL : dom) : 0.0;
    gen_store(p + i * es, dt, re, im);
  }
  st = tabi_tensor_view(g->rt, base, ndim, shape, strides, offset * es, &view);
  tabi_tensor_release(base);
  if (st) { gen_fail(g, st); return NULL; }
  return view;
}

tabi_tensor *gen_t(gen_ctx *g, int32_t ndim, const int64_t *shape, int32_t dom) {
  return gen_tensor(g, g->dt, ndim, shape, GEN_L_CONTIG, dom);
}

tabi_tensor *gen_tensor_of(gen_ctx *g, tabi_dtype dt, int32_t ndim, const int64_t *shape,
                           const double *values) {
  tabi_tensor *t = gen_tensor(g, dt, ndim, shape, GEN_L_CONTIG, GEN_DOM_ANY);
  if (!t) return NULL;
  int64_t n = tabi_tensor_numel(t);
  for (int64_t i = 0; i < n; i++) gen_set(t, i, values[i]);
  return t;
}

tabi_tensor *gen_index(gen_ctx *g, tabi_dtype dt, int32_t ndim, const int64_t *shape,
                       int64_t lo, int64_t hi) {
  tabi_tensor *t = gen_tensor(g, dt, ndim, shape, GEN_L_CONTIG, GEN_DOM_ANY);
  if (!t) return NULL;
  int64_t n = tabi_tensor_numel(t);
  for (int64_t i = 0; i < n; i++) gen_set(t, i, (double)gen_int(g, lo, hi));
  return t;
}

static void gen_specials_impl(gen_ctx *g, tabi_tensor *t, int64_t start, int with_max);

void gen_specials(gen_ctx *g, tabi_tensor *t, int64_t start) { gen_specials_impl(g, t, start, 1); }
void gen_specials_no_max(gen_ctx *g, tabi_tensor *t, int64_t start) { gen_specials_impl(g, t, start, 0); }

static void gen_specials_impl(gen_ctx *g, tabi_tensor *t, int64_t start, int with_max) {
  if (!t) return;
  tabi_dtype d = tabi_tensor_dtype(t);
  double vals[16];
  double ims[16];
  int32_t n = 0;
  if (d == TABI_DTYPE_BOOL) {
    vals[n++] = 1; vals[n++] = 0;
  } else if (tabi_dtype_is_integral(d, 0)) {
    vals[n++] = gen_dtype_min(d); vals[n++] = gen_dtype_max(d); vals[n++] = 0;
    vals[n++] = d == TABI_DTYPE_UINT8 ? 1 : -1; vals[n++] = 1;
    vals[n++] = gen_dtype_max(d) - 1; vals[n++] = d == TABI_DTYPE_UINT8 ? 128 : gen_dtype_min(d) + 1;
  } else {
    double sub = d == TABI_DTYPE_FLOAT64 || d == TABI_DTYPE_COMPLEX128 ? 4.9e-322
                 : d == TABI_DTYPE_FLOAT16 ? 1.1920928955078125e-07 : 9.18e-41;
    vals[n++] = NAN; vals[n++] = INFINITY; vals[n++] = -INFINITY; vals[n++] = -0.0;
    vals[n++] = 0.0; vals[n++] = sub; vals[n++] = -sub;
    vals[n++] = with_max ? gen_dtype_max(d) : 3.5; vals[n++] = with_max ? -gen_dtype_max(d) : -0.25;
    vals[n++] = 0.5; vals[n++] = 2.5; vals[n++] = -1.5;
    vals[n++] = 1.0; vals[n++] = -1.0;
  }
  for (int32_t i = 0; i < n; i++) ims[i] = (i % 3 == 1) ? -0.0 : (i % 3 == 2 ? 1.0 : 0.0);
  if (tabi_dtype_is_complex(d)) { ims[4] = NAN; ims[6] = INFINITY; }
  int64_t numel = tabi_tensor_numel(t);
  int64_t es = tabi_dtype_size(d);
  for (int64_t k = 0; k < n && start + k < numel; k++) {
    char *p = (char *)tabi_tensor_data(t) + gen_view_offset(t, start + k) * es;
    gen_store(p, d, vals[k], ims[k]);
  }
  (void)g;
}

/* --- entry point -------------------------------------------------------------- */

tabi_status conform_samples_generate(tabi_runtime *oracle, const tabi_op_info *op,
                                     tabi_dtype dtype, uint64_t seed, conform_sample_list *list,
                                     int32_t *out_known) {
  if (out_known) *out_known = 0;
  if (!oracle || !op || !op->name || !list) return TABI_ERR_INVALID_ARGUMENT;
  const gen_entry *e = gen_find_entry(op->name);
  if (!e) return TABI_OK;
  if (out_known) *out_known = 1;
  gen_ctx g;
  memset(&g, 0, sizeof g);
  g.rt = oracle;
  g.op = op;
  g.e = e;
  g.dt = dtype;
  g.rng = seed ^ gen_hash(op->name) ^ ((uint64_t)(uint32_t)dtype * UINT64_C(0x9e3779b97f4a7c15));
  g.list = list;
  e->family(&g);
  gen_commit(&g);
  return TABI_OK;
}
