/* conformance/conform_twin.c: an accepted random call against the reference's
 * (see conform_twin.h). */
#include "conform_twin.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"

/* Flags under which no element value is compared. */
#define NO_VALUES (CONFORM_RANDOM | CONFORM_UNINIT | CONFORM_SIGN_AMBIGUOUS | CONFORM_DISTINCT_INDEX)

/* Results larger than this are views (a broadcast to 2^40 elements, say):
 * nothing the generator makes owns that much memory. */
#define VALUES_MAX ((int64_t)64 << 20)

void conform_twin_rules_of(tabi_runtime *oracle, const tabi_op_info *info, conform_twin_rules *out) {
  memset(out, 0, sizeof *out);
  for (int d = 0; d < CONFORM_TWIN_DTYPES; d++) out->tol[d] = conform_default_tol(d);
  for (int i = 0; i < TABI_DTYPE_COUNT; i++) {
    tabi_dtype dt = tabi_all_dtypes[i];
    conform_sample_list list = {NULL, 0, 0};
    int32_t known = 0;
    conform_samples_generate(oracle, info, dt, 0, &list, &known);
    out->known |= known;
    for (int32_t s = 0; s < list.count; s++) {
      const conform_sample *x = &list.items[s];
      out->flags |= x->flags & ~CONFORM_EXPECT_ERROR;
      if (!x->tol_reason || dt < 0 || dt >= CONFORM_TWIN_DTYPES) continue;
      out->tol[dt].rtol = fmax(out->tol[dt].rtol, x->rtol);
      out->tol[dt].atol = fmax(out->tol[dt].atol, x->atol);
    }
    conform_sample_list_clear(&list);
  }
  tabi_clear_error();
}

typedef struct cmp_ctx {
  tabi_runtime *rt, *oracle;
  const conform_twin_rules *rules;
  int values; /* element values are compared (the rules, and for
                 CONFORM_FINITE_INPUTS the call's inputs) */
  int int_values; /* ... of integer (not bool) results: not after a NaN or
                     an infinity in the inputs, which no integer holds (C
                     leaves the conversion undefined; x86 gives INT_MIN) */
  int float_values; /* ... of floating and complex results: not for a sum of
                       an integer past 2^24 (CONFORM_SUM_ORDER) */
  const char **kind;
  char *why;
  size_t cap;
} cmp_ctx;

static int differs(cmp_ctx *c, const char *kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int differs(cmp_ctx *c, const char *kind, const char *fmt, ...) {
  *c->kind = kind;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->why, c->cap, fmt, ap);
  va_end(ap);
  return 0;
}

static int values_compared(const cmp_ctx *c, tabi_dtype dt) {
  if (!c->values) return 0;
  if (!c->int_values && tabi_dtype_is_integral(dt, 0)) return 0;
  if (!c->float_values && (tabi_dtype_is_floating(dt) || tabi_dtype_is_complex(dt))) return 0;
  return !((c->rules->flags & CONFORM_TIES) && dt == TABI_DTYPE_INT64); /* indices: either of a tie */
}

/* Huge: where intermediate results overflow depends on the order of the
 * operations (a product over a dim), and an exponent's phase on the last bit
 * of a logarithm (x^(0.1 + 1e308i)). The generator draws 1e308 to test
 * overflow; such calls are compared for dtypes and shapes only. */
#define HUGE_INPUT 1.8446744073709552e19 /* 2^64 */

/* What the inputs hold that makes values incomparable (input_kinds). */
#define IN_HUGE      0x1 /* a finite element past HUGE_INPUT */
#define IN_NONFINITE 0x2 /* an infinity or NaN */
#define IN_CPLX_NONFINITE 0x4 /* ... in a complex input: ATen's complex kernels
                                 disagree with each other there (the vectorized
                                 reciprocal of inf is NaN, c10's division 0;
                                 glibc's multiply recovers infinities, c10's
                                 does not), so no one answer can be asked for */

#define IN_TINY      0x8 /* a finite nonzero element below 2^-64 (products:
                                CONFORM_PRODUCT_ORDER) */
#define IN_BIG_INT   0x10 /* an integer element past 2^24, which a float32 sum
                             (2^53: a float64 one) cannot add a small term to
                             (sums: CONFORM_SUM_ORDER) */
#define BIG_INT ((int64_t)1 << 24)

static int kind_of(double re, double im, int cplx) {
  int k = 0;
  if (!isfinite(re) || !isfinite(im)) k |= cplx ? IN_NONFINITE | IN_CPLX_NONFINITE : IN_NONFINITE;
  if ((isfinite(re) && fabs(re) > HUGE_INPUT) || (isfinite(im) && fabs(im) > HUGE_INPUT)) k |= IN_HUGE;
  if ((re != 0 && fabs(re) < 1 / HUGE_INPUT) || (im != 0 && fabs(im) < 1 / HUGE_INPUT)) k |= IN_TINY;
  return k;
}

/* The IN_* kinds of the inputs (the twin's, on the CPU): of the floating and
 * complex ones, and with ints, IN_BIG_INT of the integer ones. */
static int input_kinds(tabi_runtime *oracle, const tabi_value *targs, int32_t nargs, int ints) {
  int k = 0;
  for (int32_t a = 0; a < nargs; a++) {
    const tabi_value *v = &targs[a];
    if (v->tag == TABI_TAG_FLOAT) k |= kind_of(v->u.f, 0.0, 0);
    if (v->tag == TABI_TAG_COMPLEX) k |= kind_of(v->u.c[0], v->u.c[1], 1);
    if (v->tag == TABI_TAG_FLOAT_LIST)
      for (int64_t i = 0; i < v->u.list.len; i++) k |= kind_of(tabi_value_floats(v)[i], 0.0, 0);
    int64_t nt = v->tag == TABI_TAG_TENSOR ? 1 : v->tag == TABI_TAG_TENSOR_LIST ? v->u.list.len : 0;
    for (int64_t i = 0; i < nt; i++) {
      const tabi_tensor *t = v->tag == TABI_TAG_TENSOR ? v->u.t : tabi_value_tensors(v)[i];
      tabi_dtype dt = t ? tabi_tensor_dtype(t) : TABI_DTYPE_INVALID;
      int cplx = tabi_dtype_is_complex(dt);
      /* int8, int16 and uint8 hold nothing past BIG_INT */
      int wide_int = ints && tabi_dtype_is_integral(dt, 0) && tabi_dtype_size(dt) >= 4;
      if (!t || !(tabi_dtype_is_floating(dt) || cplx || wide_int)) continue;
      uint8_t *b = NULL;
      uint64_t nb = 0;
      if (tabi_tensor_numel(t) > VALUES_MAX / 16 || conform_tensor_host(oracle, t, &b, &nb) != TABI_OK) {
        free(b);
        return IN_HUGE | IN_NONFINITE | IN_CPLX_NONFINITE | IN_BIG_INT; /* cannot tell: as if */
      }
      for (int64_t e = 0; e < tabi_tensor_numel(t); e++) {
        conform_elem x = conform_elem_at(b, dt, e);
        if (wide_int) k |= x.i > BIG_INT || x.i < -BIG_INT ? IN_BIG_INT : 0;
        else k |= kind_of(x.re, x.im, cplx);
      }
      free(b);
    }
  }
  return k;
}

/* One tensor of the plugin's (got, in rt) against the reference's (want). */
static int tensor_agrees(cmp_ctx *c, const char *label, const tabi_tensor *got, const tabi_tensor *want) {
  tabi_dtype gd = tabi_tensor_dtype(got), wd = tabi_tensor_dtype(want);
  if (gd != wd)
    return differs(c, CONFORM_K_DTYPE, "%s is %s, the reference's %s", label, tabi_dtype_name(gd),
                   tabi_dtype_name(wd));
  int same = got->dl.ndim == want->dl.ndim;
  for (int32_t i = 0; same && i < got->dl.ndim; i++) same = got->dl.shape[i] == want->dl.shape[i];
  if (!same) {
    char a[96], b[96];
    conform_shape_str(got->dl.ndim, got->dl.shape, a, sizeof a);
    conform_shape_str(want->dl.ndim, want->dl.shape, b, sizeof b);
    return differs(c, CONFORM_K_SHAPE, "%s has shape %s, the reference's %s", label, a, b);
  }
  int64_t n = tabi_tensor_numel(want), esz = tabi_dtype_size(wd);
  if (!values_compared(c, wd) || esz <= 0 || n > VALUES_MAX / esz) return 1;
  uint8_t *g = NULL, *w = NULL;
  uint64_t gn = 0, wn = 0;
  int ok = 1;
  if (conform_tensor_host(c->rt, got, &g, &gn) != TABI_OK || conform_tensor_host(c->oracle, want, &w, &wn) != TABI_OK)
    ok = differs(c, CONFORM_K_DEVICE, "%s cannot be read back: %s", label, tabi_last_error());
  if (ok) {
    conform_tol tol = wd >= 0 && wd < CONFORM_TWIN_DTYPES ? c->rules->tol[wd] : conform_default_tol(wd);
    conform_cmp cmp;
    conform_compare(g, w, wd, n, tol, CONFORM_NAN_NONFINITE, &cmp);
    if (cmp.nbad) {
      char d[600];
      conform_cmp_describe(&cmp, want->dl.ndim, want->dl.shape, d, sizeof d);
      ok = differs(c, CONFORM_K_VALUE, "%s differs from the reference's: %s", label, d);
    }
  }
  free(g);
  free(w);
  return ok;
}

static int is_scalar(int32_t tag) {
  return tag == TABI_TAG_BOOL || tag == TABI_TAG_INT || tag == TABI_TAG_FLOAT || tag == TABI_TAG_COMPLEX;
}

static int close_to(double g, double w) {
  conform_tol t = conform_default_tol(TABI_DTYPE_FLOAT32);
  return g == w || (isnan(g) && isnan(w)) || fabs(g - w) <= t.atol + t.rtol * fabs(w);
}

/* One value (an output, or an argument written in place). */
static int value_agrees(cmp_ctx *c, const char *label, const tabi_value *got, const tabi_value *want) {
  if (want->tag == TABI_TAG_TENSOR) {
    if (got->tag != TABI_TAG_TENSOR || !got->u.t || !want->u.t)
      return (got->tag == TABI_TAG_TENSOR && !got->u.t && !want->u.t) ||
             differs(c, CONFORM_K_OUTPUT, "%s is value tag %d, the reference's a tensor", label, (int)got->tag);
    return tensor_agrees(c, label, got->u.t, want->u.t);
  }
  if (want->tag == TABI_TAG_TENSOR_LIST) {
    if (got->tag != TABI_TAG_TENSOR_LIST || got->u.list.len != want->u.list.len)
      return differs(c, CONFORM_K_OUTPUT, "%s is value tag %d of length %lld, the reference's %lld tensors", label,
                     (int)got->tag, (long long)(got->tag == TABI_TAG_TENSOR_LIST ? got->u.list.len : -1),
                     (long long)want->u.list.len);
    for (int64_t i = 0; i < want->u.list.len; i++) {
      tabi_tensor *p = tabi_value_tensors(got)[i], *q = tabi_value_tensors(want)[i];
      char el[80];
      snprintf(el, sizeof el, "%s[%lld]", label, (long long)i);
      if (!p || !q) {
        if (p != q) return differs(c, CONFORM_K_OUTPUT, "%s is %s, the reference's %s", el, p ? "a tensor" : "None",
                                   q ? "a tensor" : "None");
        continue;
      }
      if (!tensor_agrees(c, el, p, q)) return 0;
    }
    return 1;
  }
  if (is_scalar(want->tag)) {
    if (!is_scalar(got->tag))
      return differs(c, CONFORM_K_OUTPUT, "%s is value tag %d, the reference's a scalar", label, (int)got->tag);
    if (!c->values) return 1;
    double g = tabi_value_as_double(got), w = tabi_value_as_double(want);
    int ok = want->tag == TABI_TAG_FLOAT || want->tag == TABI_TAG_COMPLEX ? close_to(g, w) : g == w;
    if (ok && want->tag == TABI_TAG_COMPLEX) ok = got->tag == TABI_TAG_COMPLEX && close_to(got->u.c[1], want->u.c[1]);
    return ok || differs(c, CONFORM_K_VALUE, "%s is %.17g, the reference's %.17g", label, g, w);
  }
  if (got->tag != want->tag)
    return differs(c, CONFORM_K_OUTPUT, "%s is value tag %d, the reference's %d", label, (int)got->tag,
                   (int)want->tag);
  return 1;
}

static int same_view(const tabi_tensor *a, const tabi_tensor *b) {
  if (a == b) return 1;
  if (a->dl.byte_offset != b->dl.byte_offset || a->dl.ndim != b->dl.ndim ||
      a->dl.dtype.code != b->dl.dtype.code || a->dl.dtype.bits != b->dl.dtype.bits)
    return 0;
  for (int32_t i = 0; i < a->dl.ndim; i++)
    if (a->dl.shape[i] != b->dl.shape[i] || a->dl.strides[i] != b->dl.strides[i]) return 0;
  return 1;
}

/* Whether an argument written in place shares storage with another argument
 * that is not the same view of it (a running mean over part of the input, or
 * overlapping the running variance): then what the call reads depends on what
 * it has written so far, ATen's answer on its loop order (its CPU and CUDA
 * kernels differ), and no value can be asked for. The same tensor passed
 * twice is compared (an out= that is self; running_mean as running_var). */
static int written_alias(const tabi_op_info *info, const tabi_value *targs) {
  for (int32_t a = 0; a < info->nargs; a++) {
    const tabi_arg_info *ai = conform_arg_at(info, a);
    if (!(ai->flags & TABI_ARG_MUTABLE) || targs[a].tag != TABI_TAG_TENSOR || !targs[a].u.t) continue;
    const tabi_tensor *w = targs[a].u.t;
    uint64_t id = tabi_tensor_storage_id(w);
    for (int32_t b = 0; b < info->nargs; b++) {
      int64_t nt = targs[b].tag == TABI_TAG_TENSOR ? 1 : targs[b].tag == TABI_TAG_TENSOR_LIST ? targs[b].u.list.len : 0;
      for (int64_t i = 0; i < nt; i++) {
        const tabi_tensor *t = targs[b].tag == TABI_TAG_TENSOR ? targs[b].u.t : tabi_value_tensors(&targs[b])[i];
        if (b != a && t && tabi_tensor_storage_id(t) == id && !same_view(t, w)) return 1;
      }
    }
  }
  return 0;
}

int conform_twin_compare(tabi_runtime *rt, tabi_runtime *oracle, const tabi_op_info *info,
                         const conform_twin_rules *rules, const tabi_value *outs, const tabi_value *touts,
                         int32_t nouts, const tabi_value *args, const tabi_value *targs, int32_t *out_values,
                         const char **kind, char *why, size_t cap) {
  cmp_ctx c = {rt, oracle, rules, rules->known && !(rules->flags & NO_VALUES), 1, 1, kind, why, cap};
  if (c.values) {
    int k = input_kinds(oracle, targs, info->nargs, (rules->flags & CONFORM_SUM_ORDER) != 0);
    c.values = !(k & (IN_HUGE | IN_CPLX_NONFINITE)) && !((rules->flags & CONFORM_FINITE_INPUTS) && (k & IN_NONFINITE)) &&
               !((rules->flags & CONFORM_PRODUCT_ORDER) && (k & IN_TINY) && (k & IN_NONFINITE)) &&
               !written_alias(info, targs);
    c.int_values = !(k & IN_NONFINITE);
    c.float_values = !((rules->flags & CONFORM_SUM_ORDER) && (k & IN_BIG_INT));
  }
  *out_values = c.values;
  char label[96];
  for (int32_t i = 0; i < nouts; i++) {
    snprintf(label, sizeof label, "output %d", (int)i);
    if (!value_agrees(&c, label, &outs[i], &touts[i])) return 0;
  }
  for (int32_t a = 0; a < info->nargs; a++) {
    const tabi_arg_info *ai = conform_arg_at(info, a);
    if (!(ai->flags & TABI_ARG_MUTABLE)) continue;
    snprintf(label, sizeof label, "argument '%s' (written in place)", ai->name);
    int values = c.values;
    if (targs[a].tag == TABI_TAG_TENSOR && conform_self_overlapping(targs[a].u.t)) c.values = 0;
    int ok = value_agrees(&c, label, &args[a], &targs[a]);
    c.values = values;
    if (!ok) return 0;
  }
  return 1;
}
