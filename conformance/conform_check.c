/* conformance/conform_check.c: is this one result right?
 *
 * Every check here looks at one aspect a subtly wrong kernel gets wrong: writes
 * past its output (guards), the result type (promotion), the shape
 * (broadcasting), whether a view is one (and a new tensor is not), the values
 * (tolerances), inputs it should not have touched, in-place arguments. Each
 * emits its own FAIL record, so one sample can show several faults.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform_check.h"

static const tabi_arg_info *ret_at(const tabi_op_info *info, int32_t i) {
  return (const tabi_arg_info *)((const char *)info->returns + (size_t)i * info->arg_info_size);
}

static void fail(conform_call *k, const char *kind, const char *detail) {
  conform_emit(k->c, CONFORM_ST_FAIL, k->op, k->dtype, k->s->name, kind, "%s", detail);
}

/* --- inputs -------------------------------------------------------------------- */

static int arg_mutable(const tabi_op_info *info, int32_t a) {
  return a < info->nargs && (conform_arg_at(info, a)->flags & TABI_ARG_MUTABLE);
}

tabi_status conform_snap_take(conform_call *k, conform_snap *snap) {
  memset(snap, 0, sizeof *snap);
  for (int32_t a = 0; a < k->ta->nargs; a++) {
    if (arg_mutable(k->info, a)) continue;
    const tabi_value *v = &k->ta->v[a];
    int32_t n = v->tag == TABI_TAG_TENSOR ? 1 : v->tag == TABI_TAG_TENSOR_LIST ? (int32_t)v->u.list.len : 0;
    for (int32_t i = 0; i < n; i++) {
      tabi_tensor *t = v->tag == TABI_TAG_TENSOR ? v->u.t : tabi_value_tensors(v)[i];
      if (!t || snap->n >= CONFORM_MAX_ARGS * CONFORM_MAX_LIST) continue;
      tabi_status st = conform_storage_bytes(k->c->test, t, &snap->bytes[snap->n],
                                             &snap->nbytes[snap->n]);
      if (st != TABI_OK) return st;
      snap->arg[snap->n] = a;
      snap->t[snap->n++] = t;
    }
  }
  return TABI_OK;
}

int32_t conform_snap_check(conform_call *k, const conform_snap *snap) {
  int32_t nfail = 0;
  for (int32_t i = 0; i < snap->n; i++) {
    /* A storage shared with a mutable argument may change legitimately. */
    uint64_t id = tabi_tensor_storage_id(snap->t[i]);
    int shared = 0;
    for (int32_t a = 0; a < k->ta->nargs; a++)
      if (arg_mutable(k->info, a) && k->ta->v[a].tag == TABI_TAG_TENSOR && k->ta->v[a].u.t &&
          tabi_tensor_storage_id(k->ta->v[a].u.t) == id)
        shared = 1;
    if (shared) continue;
    uint8_t *now;
    uint64_t n;
    if (conform_storage_bytes(k->c->test, snap->t[i], &now, &n) != TABI_OK) continue;
    if (n == snap->nbytes[i] && memcmp(now, snap->bytes[i], n) == 0) {
      free(now);
      continue;
    }
    uint64_t at = 0;
    while (at < n && at < snap->nbytes[i] && now[at] == snap->bytes[i][at]) at++;
    int64_t esz = tabi_dtype_size(tabi_tensor_dtype(snap->t[i]));
    char d[300];
    snprintf(d, sizeof d,
             "argument '%s' was modified, but the schema does not mark it mutable (first "
             "changed element: storage element %llu)",
             conform_arg_at(k->info, snap->arg[i])->name, (unsigned long long)(at / (uint64_t)(esz ? esz : 1)));
    fail(k, CONFORM_K_MUTATED, d);
    nfail++;
    free(now);
  }
  return nfail;
}

void conform_snap_free(conform_snap *snap) {
  for (int32_t i = 0; i < snap->n; i++) free(snap->bytes[i]);
  snap->n = 0;
}

/* --- one tensor result ---------------------------------------------------------- */

/* Does `t` share storage with any plugin-side tensor argument? Returns the arg. */
static int32_t aliased_arg(conform_call *k, const tabi_tensor *t, int32_t only_arg) {
  uint64_t id = tabi_tensor_storage_id(t);
  for (int32_t a = 0; a < k->ta->nargs; a++) {
    if (only_arg >= 0 && a != only_arg) continue;
    const tabi_value *v = &k->ta->v[a];
    if (v->tag == TABI_TAG_TENSOR && v->u.t && tabi_tensor_storage_id(v->u.t) == id) return a;
    if (v->tag == TABI_TAG_TENSOR_LIST)
      for (int64_t i = 0; i < v->u.list.len; i++)
        if (tabi_value_tensors(v)[i] && tabi_tensor_storage_id(tabi_value_tensors(v)[i]) == id)
          return a;
  }
  return -1;
}

/* Views the schema annotates but tabi cannot keep as views: PyTorch's
 * prims::conj of a complex tensor is a view with the conjugate bit set; tabi has
 * no conjugate bit, so a complex conj is materialized (docs/conformance.md). */
static int may_copy(conform_call *k, const tabi_tensor *t) {
  return strcmp(k->info->name, "prims::conj") == 0 && tabi_dtype_is_complex(tabi_tensor_dtype(t));
}

static int32_t check_alias(conform_call *k, int32_t r, const char *label, const tabi_tensor *t) {
  const tabi_arg_info *ret = r < k->info->nreturns ? ret_at(k->info, r) : NULL;
  char d[400];
  if (ret && ret->alias_set >= 0) {
    int32_t src = -1;
    for (int32_t a = 0; a < k->info->nargs && a < k->ta->nargs; a++)
      if (conform_arg_at(k->info, a)->alias_set == ret->alias_set) src = a;
    if (src < 0 || k->ta->v[src].tag != TABI_TAG_TENSOR || !k->ta->v[src].u.t) return 0;
    if (tabi_tensor_storage_nbytes(k->ta->v[src].u.t) == 0) return 0;
    if (aliased_arg(k, t, src) == src) return 0;
    if (may_copy(k, t)) return 0;
    snprintf(d, sizeof d,
             "%s does not share storage with argument '%s', but the schema returns %s of it "
             "(Tensor(%c%s))",
             label, conform_arg_at(k->info, src)->name,
             (ret->flags & TABI_ARG_MUTABLE) ? "that argument itself" : "a view",
             'a' + ret->alias_set, (ret->flags & TABI_ARG_MUTABLE) ? "!" : "");
    fail(k, CONFORM_K_NOT_VIEW, d);
    return 1;
  }
  if (tabi_tensor_numel(t) == 0) return 0;
  int32_t a = aliased_arg(k, t, -1);
  if (a < 0) return 0;
  /* Alias annotations are "may alias": an input annotated Tensor(a) may be
   * shared with a result even when the return is not annotated (view_of). */
  if (a < k->info->nargs && conform_arg_at(k->info, a)->alias_set >= 0) return 0;
  snprintf(d, sizeof d,
           "%s shares storage with argument '%s', but the schema returns a new tensor", label,
           a < k->info->nargs ? conform_arg_at(k->info, a)->name : "?");
  fail(k, CONFORM_K_ALIAS, d);
  return 1;
}

static conform_tol sample_tol(conform_call *k, tabi_dtype d) {
  conform_tol t = conform_default_tol(d);
  if (k->c->opt->exact) {
    conform_tol exact = {0.0, 0.0, 1};
    return exact;
  }
  if ((k->s->rtol > 0 || k->s->atol > 0) && k->s->tol_reason) {
    t.rtol = k->s->rtol;
    t.atol = k->s->atol;
  }
  return t;
}

/* The value at flat row-major position `flat` of the oracle's `self`, for ties. */
static int ties_index_ok(conform_call *k, int32_t r, const uint8_t *got, const uint8_t *want,
                         const tabi_tensor *out, char *d, size_t dn) {
  const tabi_value *selfv = &k->s->args[0];
  if (selfv->tag != TABI_TAG_TENSOR || !selfv->u.t) return 0;
  const tabi_tensor *self = selfv->u.t;
  int64_t dim = 0, keepdim = 0;
  int has_dim_arg = 0, dim_given = 0;
  for (int32_t a = 0; a < k->info->nargs && a < k->s->nargs; a++) {
    const char *nm = conform_arg_at(k->info, a)->name;
    const tabi_value *v = &k->s->args[a];
    if (strcmp(nm, "dim") == 0) {
      has_dim_arg = 1;
      if (v->tag == TABI_TAG_INT) dim = v->u.i, dim_given = 1;
      if (v->tag == TABI_TAG_INT_LIST && v->u.list.len == 1) dim = tabi_value_ints(v)[0], dim_given = 1;
    }
    if (strcmp(nm, "keepdim") == 0 && v->tag == TABI_TAG_BOOL) keepdim = v->u.i;
  }
  int32_t snd = self->dl.ndim;
  if (dim_given && dim < 0) dim += snd;
  if (dim_given && (dim < 0 || dim >= snd)) dim_given = 0; /* 0-d: flat */
  uint8_t *sv;
  uint64_t sn;
  if (conform_tensor_host(k->c->oracle, self, &sv, &sn) != TABI_OK) return 0;
  tabi_dtype sd = tabi_tensor_dtype(self);
  int64_t snumel = tabi_tensor_numel(self), n = tabi_tensor_numel(out);
  int ok = 1;
  for (int64_t p = 0; p < n && ok; p++) {
    int64_t gi = conform_elem_at(got, TABI_DTYPE_INT64, p).i;
    int64_t wi = conform_elem_at(want, TABI_DTYPE_INT64, p).i;
    if (gi == wi) continue;
    int64_t gflat, wflat;
    if (!has_dim_arg || !dim_given) {
      if (!has_dim_arg) { /* no way to locate it: at least in range */
        ok = gi >= 0 && gi < snumel;
        continue;
      }
      gflat = gi;
      wflat = wi;
    } else {
      int64_t oc[32], sc[32], rem = p;
      int32_t ond = out->dl.ndim;
      for (int32_t i = ond - 1; i >= 0; i--) {
        oc[i] = rem % (out->dl.shape[i] ? out->dl.shape[i] : 1);
        rem /= out->dl.shape[i] ? out->dl.shape[i] : 1;
      }
      for (int32_t i = 0, j = 0; i < snd; i++) {
        if (ond == snd) sc[i] = oc[i];
        else sc[i] = (i == dim && !keepdim) ? 0 : oc[j++];
      }
      if (gi < 0 || gi >= self->dl.shape[dim]) {
        ok = 0;
        snprintf(d, dn, "output %d: index %lld out of range for dim %lld of size %lld", (int)r,
                 (long long)gi, (long long)dim, (long long)self->dl.shape[dim]);
        break;
      }
      gflat = wflat = 0;
      for (int32_t i = 0; i < snd; i++) {
        gflat = gflat * self->dl.shape[i] + (i == dim ? gi : sc[i]);
        wflat = wflat * self->dl.shape[i] + (i == dim ? wi : sc[i]);
      }
    }
    if (gflat < 0 || gflat >= snumel || wflat < 0 || wflat >= snumel) {
      ok = 0;
      snprintf(d, dn, "output %d: index %lld out of range", (int)r, (long long)gi);
      break;
    }
    conform_elem ge = conform_elem_at(sv, sd, gflat), we = conform_elem_at(sv, sd, wflat);
    int same = ge.is_int ? ge.i == we.i
                         : ((ge.re == we.re || (isnan(ge.re) && isnan(we.re))) &&
                            (ge.im == we.im || (isnan(ge.im) && isnan(we.im))));
    if (!same) {
      char at[96];
      conform_index_str(p, out->dl.ndim, out->dl.shape, at, sizeof at);
      snprintf(d, dn,
               "output %d (indices) at %s is %lld, pointing at %.9g, where the reference's %lld "
               "points at %.9g (ties may pick either index, not a different value)",
               (int)r, at, (long long)gi, ge.re, (long long)wi, we.re);
      ok = 0;
    }
  }
  free(sv);
  return ok;
}

static int32_t check_random(conform_call *k, const char *label, tabi_dtype dt, const uint8_t *got,
                            const uint8_t *want, int64_t n) {
  double lo = INFINITY, hi = -INFINITY;
  int want_nan = 0;
  for (int64_t i = 0; i < n; i++) {
    conform_elem w = conform_elem_at(want, dt, i);
    if (isnan(w.re)) want_nan = 1;
    else if (isfinite(w.re)) {
      lo = w.re < lo ? w.re : lo;
      hi = w.re > hi ? w.re : hi;
    }
  }
  if (!(lo <= hi)) return 0;
  /* The range's width, plus the dtype's tolerance: without it a one-element
   * draw would have to match the reference bit for bit, which a device whose
   * log/cos round differently from glibc's (Box-Muller) cannot promise. */
  conform_tol tol = sample_tol(k, dt);
  double width = hi - lo + tol.atol + tol.rtol * fmax(fabs(lo), fabs(hi));
  for (int64_t i = 0; i < n; i++) {
    conform_elem g = conform_elem_at(got, dt, i);
    int bad = (isnan(g.re) && !want_nan) || (!isnan(g.re) && (g.re < lo - width || g.re > hi + width));
    if (!bad) continue;
    char d[300];
    snprintf(d, sizeof d,
             "%s: element %lld is %.9g, far outside the reference's range [%.9g, %.9g] for this "
             "random op",
             label, (long long)i, g.re, lo, hi);
    fail(k, CONFORM_K_RANGE, d);
    return 1;
  }
  return 0;
}

/* |x| elementwise, in place (complex: the modulus in the real part), for
 * results defined only up to a sign or phase (svd). */
static void abs_in_place(uint8_t *p, tabi_dtype d, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    conform_elem e = conform_elem_at(p, d, i);
    switch (d) {
      case TABI_DTYPE_FLOAT32: { float v = (float)fabs(e.re); memcpy(p + i * 4, &v, 4); break; }
      case TABI_DTYPE_FLOAT64: { double v = fabs(e.re); memcpy(p + i * 8, &v, 8); break; }
      case TABI_DTYPE_COMPLEX64: { float v[2] = {(float)hypot(e.re, e.im), 0.0f}; memcpy(p + i * 8, v, 8); break; }
      case TABI_DTYPE_COMPLEX128: { double v[2] = {hypot(e.re, e.im), 0.0}; memcpy(p + i * 16, v, 16); break; }
      case TABI_DTYPE_FLOAT16: case TABI_DTYPE_BFLOAT16: {
        uint16_t v;
        memcpy(&v, p + i * 2, 2);
        v &= 0x7fffu; /* clear the sign bit */
        memcpy(p + i * 2, &v, 2);
        break;
      }
      default: break;
    }
  }
}

static int32_t check_tensor(conform_call *k, int32_t r, const char *label, const tabi_tensor *pt,
                            const tabi_tensor *rt) {
  char d[720], a[96], b[96];
  int32_t nfail = 0;
  if (tabi_tensor_check_guards(k->c->test, pt) != TABI_OK) {
    snprintf(d, sizeof d, "%s: %s", label, tabi_last_error());
    fail(k, CONFORM_K_GUARD, d);
    nfail++;
  }
  nfail += check_alias(k, r, label, pt);
  tabi_dtype pd = tabi_tensor_dtype(pt), rd = tabi_tensor_dtype(rt);
  if (pd != rd) {
    snprintf(d, sizeof d, "%s has dtype %s, expected %s", label, tabi_dtype_name(pd),
             tabi_dtype_name(rd));
    fail(k, CONFORM_K_DTYPE, d);
    return nfail + 1;
  }
  int same = pt->dl.ndim == rt->dl.ndim;
  for (int32_t i = 0; same && i < pt->dl.ndim; i++) same = pt->dl.shape[i] == rt->dl.shape[i];
  if (!same) {
    conform_shape_str(pt->dl.ndim, pt->dl.shape, a, sizeof a);
    conform_shape_str(rt->dl.ndim, rt->dl.shape, b, sizeof b);
    snprintf(d, sizeof d, "%s has shape %s, expected %s", label, a, b);
    fail(k, CONFORM_K_SHAPE, d);
    return nfail + 1;
  }
  if (k->s->flags & CONFORM_UNINIT) {
    /* Values unspecified (empty, empty_strided): the layout is the result. */
    for (int32_t i = 0; i < pt->dl.ndim; i++)
      if (pt->dl.shape[i] > 1 && pt->dl.strides[i] != rt->dl.strides[i]) {
        conform_shape_str(pt->dl.ndim, pt->dl.strides, a, sizeof a);
        conform_shape_str(rt->dl.ndim, rt->dl.strides, b, sizeof b);
        snprintf(d, sizeof d, "%s has strides %s, expected %s", label, a, b);
        fail(k, CONFORM_K_STRIDES, d);
        return nfail + 1;
      }
    return nfail;
  }
  uint8_t *got = NULL, *want = NULL;
  uint64_t gn, wn;
  if (conform_tensor_host(k->c->test, pt, &got, &gn) != TABI_OK ||
      conform_tensor_host(k->c->oracle, rt, &want, &wn) != TABI_OK) {
    snprintf(d, sizeof d, "%s: cannot read the result back: %s", label, tabi_last_error());
    fail(k, CONFORM_K_DEVICE, d);
    free(got);
    free(want);
    return nfail + 1;
  }
  int64_t n = tabi_tensor_numel(rt);
  if (k->s->flags & CONFORM_SIGN_AMBIGUOUS) {
    abs_in_place(got, rd, n);
    abs_in_place(want, rd, n);
  }
  if (k->s->flags & CONFORM_RANDOM) {
    nfail += check_random(k, label, rd, got, want, n);
  } else {
    conform_cmp cmp;
    conform_compare(got, want, rd, n, sample_tol(k, rd), !(k->s->flags & CONFORM_NO_NAN_EQUAL), &cmp);
    const tabi_arg_info *ret = r < k->info->nreturns ? ret_at(k->info, r) : NULL;
    int index_out = rd == TABI_DTYPE_INT64 &&
                    ((ret && strstr(ret->name, "ind")) || k->info->nreturns == 1 || r > 0);
    if (cmp.nbad && (k->s->flags & CONFORM_TIES) && index_out) {
      char td[400] = "";
      if (ties_index_ok(k, r, got, want, pt, td, sizeof td)) cmp.nbad = 0;
      else if (td[0]) {
        fail(k, CONFORM_K_VALUE, td);
        cmp.nbad = 0;
        nfail++;
      }
    }
    if (cmp.nbad) {
      char desc[600];
      conform_cmp_describe(&cmp, rt->dl.ndim, rt->dl.shape, desc, sizeof desc);
      snprintf(d, sizeof d, "%s: %s", label, desc);
      fail(k, CONFORM_K_VALUE, d);
      nfail++;
    }
  }
  free(got);
  free(want);
  return nfail;
}

static int is_scalar_tag(int32_t tag) {
  return tag == TABI_TAG_BOOL || tag == TABI_TAG_INT || tag == TABI_TAG_FLOAT ||
         tag == TABI_TAG_COMPLEX;
}

static int32_t check_value(conform_call *k, int32_t r) {
  const tabi_value *pv = &k->po[r], *rv = &k->ro[r];
  char label[64], d[600];
  snprintf(label, sizeof label, "output %d", (int)r);
  if (rv->tag == TABI_TAG_TENSOR) {
    if (pv->tag != TABI_TAG_TENSOR || !pv->u.t) {
      snprintf(d, sizeof d, "%s: expected a tensor, got value tag %d", label, (int)pv->tag);
      fail(k, CONFORM_K_OUTPUT, d);
      return 1;
    }
    return check_tensor(k, r, label, pv->u.t, rv->u.t);
  }
  if (rv->tag == TABI_TAG_TENSOR_LIST) {
    if (pv->tag != TABI_TAG_TENSOR_LIST || pv->u.list.len != rv->u.list.len) {
      snprintf(d, sizeof d, "%s: expected a list of %lld tensors, got tag %d length %lld", label,
               (long long)rv->u.list.len, (int)pv->tag,
               (long long)(pv->tag == TABI_TAG_TENSOR_LIST ? pv->u.list.len : -1));
      fail(k, CONFORM_K_OUTPUT, d);
      return 1;
    }
    int32_t nfail = 0;
    for (int64_t i = 0; i < rv->u.list.len; i++) {
      tabi_tensor *p = tabi_value_tensors(pv)[i], *q = tabi_value_tensors(rv)[i];
      snprintf(label, sizeof label, "output %d[%lld]", (int)r, (long long)i);
      if (!p || !q) {
        if (p != q) {
          snprintf(d, sizeof d, "%s: one side is None", label);
          fail(k, CONFORM_K_OUTPUT, d);
          nfail++;
        }
        continue;
      }
      nfail += check_tensor(k, r, label, p, q);
    }
    return nfail;
  }
  if (is_scalar_tag(rv->tag)) {
    if (!is_scalar_tag(pv->tag)) {
      snprintf(d, sizeof d, "%s: expected a scalar, got value tag %d", label, (int)pv->tag);
      fail(k, CONFORM_K_OUTPUT, d);
      return 1;
    }
    double g = tabi_value_as_double(pv), w = tabi_value_as_double(rv);
    tabi_dtype sd = TABI_DTYPE_FLOAT64;
    if (k->s->nargs > 0 && k->s->args[0].tag == TABI_TAG_TENSOR && k->s->args[0].u.t)
      sd = tabi_tensor_dtype(k->s->args[0].u.t);
    conform_tol t = sample_tol(k, sd);
    int ok = (isnan(g) && isnan(w)) || g == w || fabs(g - w) <= t.atol + t.rtol * fabs(w);
    if (ok && pv->tag == TABI_TAG_COMPLEX && rv->tag == TABI_TAG_COMPLEX)
      ok = (isnan(pv->u.c[1]) && isnan(rv->u.c[1])) ||
           fabs(pv->u.c[1] - rv->u.c[1]) <= t.atol + t.rtol * fabs(rv->u.c[1]);
    if (!ok) {
      snprintf(d, sizeof d, "%s: got %.17g, expected %.17g", label, g, w);
      fail(k, CONFORM_K_VALUE, d);
      return 1;
    }
    return 0;
  }
  if (pv->tag != rv->tag) {
    snprintf(d, sizeof d, "%s: expected value tag %d, got %d", label, (int)rv->tag, (int)pv->tag);
    fail(k, CONFORM_K_OUTPUT, d);
    return 1;
  }
  return 0;
}

int32_t conform_check_results(conform_call *k) {
  int32_t nfail = 0;
  for (int32_t r = 0; r < k->nouts; r++) nfail += check_value(k, r);
  /* In-place arguments: the plugin's must end as the reference's did; and no
   * argument's red zones may be touched. */
  char d[720];
  for (int32_t a = 0; a < k->ta->nargs; a++) {
    const tabi_value *pv = &k->ta->v[a];
    if (pv->tag != TABI_TAG_TENSOR || !pv->u.t) continue;
    if (tabi_tensor_check_guards(k->c->test, pv->u.t) != TABI_OK) {
      snprintf(d, sizeof d, "argument '%s': %s", arg_mutable(k->info, a) || a >= k->info->nargs ? "?" : conform_arg_at(k->info, a)->name,
               tabi_last_error());
      fail(k, CONFORM_K_GUARD, d);
      nfail++;
    }
    if (!arg_mutable(k->info, a) || (k->s->flags & CONFORM_UNINIT)) continue; /* resize_ growing */
    const tabi_tensor *rt = k->s->args[a].u.t;
    if (conform_self_overlapping(rt)) continue; /* order-dependent values */
    uint8_t *got = NULL, *want = NULL;
    uint64_t gn, wn;
    if (conform_tensor_host(k->c->test, pv->u.t, &got, &gn) == TABI_OK &&
        conform_tensor_host(k->c->oracle, rt, &want, &wn) == TABI_OK && gn == wn) {
      tabi_dtype dt = tabi_tensor_dtype(rt);
      conform_cmp cmp;
      conform_compare(got, want, dt, tabi_tensor_numel(rt), sample_tol(k, dt), 1, &cmp);
      if (cmp.nbad) {
        char desc[600];
        conform_cmp_describe(&cmp, rt->dl.ndim, rt->dl.shape, desc, sizeof desc);
        snprintf(d, sizeof d, "argument '%s' (written in place): %s", conform_arg_at(k->info, a)->name, desc);
        fail(k, CONFORM_K_VALUE, d);
        nfail++;
      }
    }
    free(got);
    free(want);
  }
  return nfail;
}

tabi_status conform_outs_bytes(tabi_runtime *rt, const tabi_value *outs, int32_t n, uint8_t **out,
                               uint64_t *out_n) {
  uint8_t *buf = NULL;
  uint64_t len = 0;
  for (int32_t r = 0; r < n; r++) {
    const tabi_value *v = &outs[r];
    int64_t cnt = v->tag == TABI_TAG_TENSOR ? 1 : v->tag == TABI_TAG_TENSOR_LIST ? v->u.list.len : 0;
    for (int64_t i = -1; i < cnt; i++) {
      uint8_t *part = NULL;
      uint64_t pn = 0;
      if (i < 0) { /* the value itself for scalars; nothing for tensors */
        if (v->tag == TABI_TAG_TENSOR || v->tag == TABI_TAG_TENSOR_LIST) continue;
        part = malloc(sizeof v->u);
        if (!part) break;
        memcpy(part, &v->u, sizeof v->u);
        pn = sizeof v->u;
      } else {
        const tabi_tensor *t = v->tag == TABI_TAG_TENSOR ? v->u.t : tabi_value_tensors(v)[i];
        if (!t || conform_tensor_host(rt, t, &part, &pn) != TABI_OK) continue;
      }
      uint8_t *nb = realloc(buf, len + pn + 1);
      if (nb) {
        memcpy(nb + len, part, pn);
        buf = nb;
        len += pn;
      }
      free(part);
    }
  }
  if (!buf) buf = malloc(1);
  *out = buf;
  *out_n = len;
  return buf ? TABI_OK : TABI_ERR_OUT_OF_MEMORY;
}
