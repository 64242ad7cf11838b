/* conformance/conform_robust.c: random calls of one op (see conform_robust.h).
 *
 * Each call: draw the arguments, copy to the host every tensor the op may not
 * write, call, then check the status, the message or the outputs, and compare
 * the copies with the tensors again. The copies are whole tensors in row-major
 * order, so a write anywhere in a read-only input shows, whatever its layout. */
#include "conform_robust.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/ext_autograd.h>

#include "conform_int.h"
#include "conform_rgen.h"
#include "conform_twin.h"

/* A tensor's bytes, row-major, to compare before and after a call. */
typedef struct snap {
  tabi_tensor *t;
  uint8_t *bytes; /* row-major (conform_tensor_host) */
  uint64_t n;
} snap;

/* Larger tensors are views (a broadcast of a few elements to 2^40, say) and
 * are not read back: nothing the generator makes owns that much memory. */
#define SNAP_MAX ((uint64_t)64 << 20)

static int take(tabi_runtime *rt, tabi_tensor *t, snap *s) {
  s->t = t;
  s->bytes = NULL;
  s->n = 0;
  int64_t esz = tabi_dtype_size(tabi_tensor_dtype(t));
  if (esz <= 0 || tabi_tensor_numel(t) > (int64_t)SNAP_MAX / esz) return 1;
  return conform_tensor_host(rt, t, &s->bytes, &s->n) == TABI_OK;
}

static int same(tabi_runtime *rt, const snap *s) {
  if (!s->bytes) return 1; /* not taken (SNAP_MAX) */
  uint8_t *now = NULL;
  uint64_t n = 0;
  int ok = conform_tensor_host(rt, s->t, &now, &n) == TABI_OK && n == s->n && memcmp(now, s->bytes, n) == 0;
  free(now);
  return ok;
}

/* "aten::add" of "aten::add.Tensor": what a refusal's message must mention. */
static void base_name(const char *name, char *out, size_t cap) {
  const char *ns = strstr(name, "::");
  size_t n = (ns ? (size_t)(ns - name) + 2 : 0);
  n += strcspn(name + n, ".");
  if (n >= cap) n = cap - 1;
  memcpy(out, name, n);
  out[n] = 0;
}

uint64_t conform_robust_seed(uint64_t seed, const char *op_name) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a of the name, mixed with the seed */
  for (const char *p = op_name ? op_name : ""; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  h ^= seed + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 29);
}

/* The failure, with the call appended so it can be read without a replay. */
static int failed(conform_robust_failure *f, int32_t k, const char *kind, const char *name,
                  const char *desc, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int failed(conform_robust_failure *f, int32_t k, const char *kind, const char *name,
                  const char *desc, const char *fmt, ...) {
  f->call = k;
  f->kind = kind;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(f->detail, sizeof f->detail, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n < sizeof f->detail)
    snprintf(f->detail + n, sizeof f->detail - (size_t)n, "; the call: %s(%s)", name, desc);
  return 0;
}

/* Checks one call's outputs and inputs; 1 when all held. */
static int check_call(tabi_runtime *rt, const tabi_op_info *info, const char *base, int32_t k,
                      tabi_status st, const tabi_value *outs, const snap *before, int ns,
                      const char *desc, conform_robust_failure *fail) {
  if (st < 0 || st >= TABI_STATUS_COUNT)
    return failed(fail, k, CONFORM_K_STATUS, info->name, desc, "returned status %d, which tabi does not define",
                  (int)st);
  if (st == TABI_OK) {
    for (int i = 0; i < RC_MAX_OUTS; i++) {
      tabi_tensor *ts[RC_MAX_LIST];
      int nt = rc_tensors_of(&outs[i], ts);
      for (int j = 0; j < nt; j++) {
        snap s;
        int readable = take(rt, ts[j], &s);
        free(s.bytes);
        if (!readable)
          return failed(fail, k, CONFORM_K_OUTPUT, info->name, desc, "accepted, but output %d cannot be read: %s",
                        i, tabi_last_error());
        if (tabi_tensor_check_guards(rt, ts[j]) != TABI_OK)
          return failed(fail, k, CONFORM_K_GUARD, info->name, desc, "accepted, and wrote past output %d: %s", i,
                        tabi_last_error());
      }
    }
  } else {
    const char *m = tabi_last_error();
    if (!m || !strstr(m, base))
      return failed(fail, k, CONFORM_K_UNNAMED, info->name, desc,
                    "refused (%s) with a message that does not name %s: \"%s\"", tabi_status_name(st), base,
                    m ? m : "");
  }
  for (int i = 0; i < ns; i++)
    if (!same(rt, &before[i]))
      return failed(fail, k, CONFORM_K_MUTATED, info->name, desc, "%s, and changed an input it may not write",
                    st == TABI_OK ? "accepted" : tabi_status_name(st));
  return 1;
}

/* --- through the autograd layer ------------------------------------------ */

/* What one call did with the autograd layer: the leaves it marked, the outputs
 * that require grad (backward's roots), and whether grad mode was on. */
typedef struct grad_call {
  const tabi_autograd_api *ag;
  int64_t *backwards; /* stats->backwards */
  /* the autograd choices and grad_outputs draw from a generator of their own,
     so that the arguments' generator stays in step with the oracle's twin */
  rc_gen gg;
  tabi_tensor *leaves[RC_MAX_TENSORS];
  int nleaves;
  tabi_tensor *roots[RC_MAX_OUTS];
  int nroots;
  int grad_on;
} grad_call;

static int can_require_grad(tabi_dtype dt) { return tabi_dtype_is_floating(dt) || tabi_dtype_is_complex(dt); }

static int same_shape(const tabi_tensor *a, const tabi_tensor *b) {
  if (a->dl.ndim != b->dl.ndim) return 0;
  for (int32_t i = 0; i < a->dl.ndim; i++)
    if (a->dl.shape[i] != b->dl.shape[i]) return 0;
  return 1;
}

/* Before the call: every argument is a new tensor, so none may carry autograd
 * state yet (state keyed by a freed tensor's address would show here); about
 * half of them are marked as requiring grad, which only floating and complex
 * dtypes may be. Grad mode is off for one call in eight. */
static int grad_before(grad_call *gc, const tabi_value *args, int32_t nargs, int32_t k, const char *name,
                       const char *desc, conform_robust_failure *fail) {
  rc_gen *g = &gc->gg;
  const tabi_autograd_api *ag = gc->ag;
  gc->nleaves = gc->nroots = 0;
  const tabi_tensor *seen[RC_MAX_TENSORS];
  int nseen = 0;
  for (int32_t a = 0; a < nargs; a++) {
    tabi_tensor *ts[RC_MAX_LIST];
    int nt = rc_tensors_of(&args[a], ts);
    for (int i = 0; i < nt; i++) {
      tabi_tensor *t = ts[i];
      int again = 0; /* the generator passes a tensor twice now and then */
      for (int j = 0; j < nseen && !again; j++) again = seen[j] == t;
      if (again) continue;
      if (nseen < RC_MAX_TENSORS) seen[nseen++] = t;
      if (ag->requires_grad(ag->ctx, t) || !ag->is_leaf(ag->ctx, t) || ag->grad_fn_name(ag->ctx, t))
        return failed(fail, k, CONFORM_K_METADATA, name, desc,
                      "argument %d is a new tensor, yet the autograd layer says it requires grad or has a "
                      "grad_fn (state left behind by a freed tensor?)", (int)a);
      if (rc_gen_next(g) % 2 || gc->nleaves == RC_MAX_TENSORS) continue;
      tabi_dtype dt = tabi_tensor_dtype(t);
      tabi_clear_error();
      tabi_status st = ag->set_requires_grad(ag->ctx, t, 1);
      if (st < 0 || st >= TABI_STATUS_COUNT)
        return failed(fail, k, CONFORM_K_STATUS, name, desc, "set_requires_grad returned status %d", (int)st);
      if (can_require_grad(dt) && (st != TABI_OK || !ag->requires_grad(ag->ctx, t)))
        return failed(fail, k, CONFORM_K_METADATA, name, desc,
                      "set_requires_grad on a new %s leaf (argument %d) did not take: %s", tabi_dtype_name(dt),
                      (int)a, st == TABI_OK ? "requires_grad still 0" : tabi_last_error());
      if (!can_require_grad(dt) && (st == TABI_OK || ag->requires_grad(ag->ctx, t)))
        return failed(fail, k, CONFORM_K_ACCEPTED, name, desc,
                      "set_requires_grad accepted a %s tensor (argument %d): only floating and complex dtypes "
                      "can require grad", tabi_dtype_name(dt), (int)a);
      if (!can_require_grad(dt) && !*tabi_last_error())
        return failed(fail, k, CONFORM_K_UNNAMED, name, desc,
                      "set_requires_grad refused a %s tensor without a message", tabi_dtype_name(dt));
      if (st == TABI_OK) gc->leaves[gc->nleaves++] = t;
    }
  }
  tabi_clear_error();
  gc->grad_on = rc_gen_next(g) % 8 != 0;
  return 1;
}

/* After an accepted call: with grad mode off no output requires grad; with it
 * on, no integer or bool output does. The outputs that do are the roots. */
static int grad_outputs(grad_call *gc, const tabi_value *outs, int32_t k, const char *name, const char *desc,
                        conform_robust_failure *fail) {
  const tabi_autograd_api *ag = gc->ag;
  for (int i = 0; i < RC_MAX_OUTS; i++) {
    tabi_tensor *ts[RC_MAX_LIST];
    int nt = rc_tensors_of(&outs[i], ts);
    for (int j = 0; j < nt; j++) {
      if (!ag->requires_grad(ag->ctx, ts[j])) continue;
      tabi_dtype dt = tabi_tensor_dtype(ts[j]);
      /* an in-place op returns its argument: a leaf that requires grad may
         be written only with grad mode off (as an optimizer step does), and
         requires grad still */
      int leaf = 0;
      for (int l = 0; l < gc->nleaves; l++) leaf |= gc->leaves[l] == ts[j];
      if (leaf && gc->grad_on)
        return failed(fail, k, CONFORM_K_ACCEPTED, name, desc,
                      "with grad mode on, accepted an in-place write to a leaf that requires grad (output %d)", i);
      if (leaf) continue;
      if (!gc->grad_on)
        return failed(fail, k, CONFORM_K_METADATA, name, desc,
                      "with grad mode off, output %d requires grad", i);
      if (!can_require_grad(dt))
        return failed(fail, k, CONFORM_K_METADATA, name, desc, "output %d is %s and requires grad", i,
                      tabi_dtype_name(dt));
      int dup = 0;
      for (int r = 0; r < gc->nroots; r++) dup |= gc->roots[r] == ts[j];
      if (!dup && gc->nroots < RC_MAX_OUTS) gc->roots[gc->nroots++] = ts[j];
    }
  }
  return 1;
}

/* A gradient of leaf i: NULL, or the leaf's shape and dtype, readable, with
 * intact red zones. */
static int grad_ok(tabi_runtime *rt, const tabi_tensor *leaf, tabi_tensor *gr, int i, int32_t k, const char *name,
                   const char *desc, conform_robust_failure *fail) {
  if (!gr) return 1;
  char want[96], got[96];
  conform_shape_str(leaf->dl.ndim, leaf->dl.shape, want, sizeof want);
  conform_shape_str(gr->dl.ndim, gr->dl.shape, got, sizeof got);
  if (!same_shape(leaf, gr) || tabi_tensor_dtype(leaf) != tabi_tensor_dtype(gr))
    return failed(fail, k, CONFORM_K_GRADCHECK, name, desc, "the gradient of input %d is %s%s, the input %s%s", i,
                  tabi_dtype_name(tabi_tensor_dtype(gr)), got, tabi_dtype_name(tabi_tensor_dtype(leaf)), want);
  snap s;
  int readable = take(rt, gr, &s);
  free(s.bytes);
  if (!readable)
    return failed(fail, k, CONFORM_K_OUTPUT, name, desc, "the gradient of input %d cannot be read: %s", i,
                  tabi_last_error());
  if (tabi_tensor_check_guards(rt, gr) != TABI_OK)
    return failed(fail, k, CONFORM_K_GUARD, name, desc, "backward wrote past the gradient of input %d: %s", i,
                  tabi_last_error());
  return 1;
}

/* One backward (into .grad) or grad_of; 1 when every rule held. */
static int grad_once(tabi_runtime *rt, grad_call *gc, tabi_tensor *const *gos, int bad, int use_grad_of,
                     int retain, int create, int second, int32_t k, const char *name, const char *desc,
                     conform_robust_failure *fail) {
  const tabi_autograd_api *ag = gc->ag;
  const char *what = use_grad_of ? "grad_of" : "backward";
  tabi_tensor *grads[RC_MAX_TENSORS] = {0};
  tabi_clear_error();
  tabi_status st = use_grad_of ? ag->grad_of(ag->ctx, gc->nroots, gc->roots, gos, gc->nleaves, gc->leaves,
                                             retain, create, grads)
                               : ag->backward(ag->ctx, gc->nroots, gc->roots, gos, retain, 0);
  int ok = 1;
  if (st == TABI_OK) (*gc->backwards)++;
  if (st < 0 || st >= TABI_STATUS_COUNT)
    ok = failed(fail, k, CONFORM_K_STATUS, name, desc, "%s returned status %d", what, (int)st);
  else if (st != TABI_OK && !*tabi_last_error())
    ok = failed(fail, k, CONFORM_K_UNNAMED, name, desc, "%s refused (%s) without a message", what,
                tabi_status_name(st));
  else if (st == TABI_OK && bad)
    ok = failed(fail, k, CONFORM_K_ACCEPTED, name, desc,
                "%s accepted a grad_output that does not fit its output (wrong shape, or none for an output of "
                "more than one element)", what);
  /* With fitting grad_outputs, the backward of an accepted call may refuse only
   * for a derivative it lacks, or a second time through a freed graph. */
  else if (st != TABI_OK && !bad && st != TABI_ERR_UNIMPLEMENTED && !(second && !retain))
    ok = failed(fail, k, CONFORM_K_GRADCHECK, name, desc, "the call was accepted, but its %s refused (%s): %s",
                what, tabi_status_name(st), tabi_last_error());
  for (int i = 0; i < gc->nleaves && ok && st == TABI_OK; i++) {
    tabi_tensor *gr = grads[i];
    if (!use_grad_of && ag->grad(ag->ctx, gc->leaves[i], &gr) != TABI_OK)
      ok = failed(fail, k, CONFORM_K_OUTPUT, name, desc, "reading .grad of input %d failed: %s", i,
                  tabi_last_error());
    else
      ok = grad_ok(rt, gc->leaves[i], gr, i, k, name, desc, fail);
    if (!use_grad_of) tabi_tensor_release(gr);
  }
  for (int i = 0; i < gc->nleaves; i++) tabi_tensor_release(grads[i]);
  return ok;
}

/* After an accepted call with roots: most of the time a backward, into .grad
 * or through grad_of, with grad_outputs of the roots' shape and dtype, now and
 * then none (ones: only for one element) or one of the wrong shape, which must
 * be refused; now and then the same backward again, which must refuse or work
 * but not touch a freed graph. */
static int grad_backward(tabi_runtime *rt, grad_call *gc, int32_t k, const char *name, const char *desc,
                         conform_robust_failure *fail) {
  rc_gen *g = &gc->gg;
  if (!gc->nroots || rc_gen_next(g) % 8 == 0) return 1;
  tabi_tensor *gos[RC_MAX_OUTS];
  int bad = 0;
  for (int r = 0; r < gc->nroots; r++) {
    const tabi_tensor *root = gc->roots[r];
    int64_t shape[8];
    int32_t nd = root->dl.ndim;
    if (nd > 7) return 1;
    memcpy(shape, root->dl.shape, sizeof(int64_t) * (size_t)nd);
    uint64_t pick = rc_gen_next(g) % 12;
    if (pick == 0) {
      gos[r] = NULL;
      bad |= tabi_tensor_numel(root) != 1;
      continue;
    }
    if (pick == 1) { /* wrong shape: one more element, or one more dim */
      if (nd > 0 && shape[nd - 1] < 4) shape[nd - 1]++;
      else shape[nd++] = 2;
      bad = 1;
    }
    gos[r] = rc_gen_tensor(g, tabi_tensor_dtype(root), nd, shape);
    if (!gos[r]) return 1; /* the generator is full: no backward this time */
  }
  int use_grad_of = (int)(rc_gen_next(g) % 2);
  int retain = rc_gen_next(g) % 4 == 0;
  int create = use_grad_of && rc_gen_next(g) % 6 == 0;
  if (!grad_once(rt, gc, gos, bad, use_grad_of, retain, create, 0, k, name, desc, fail)) return 0;
  if (bad || rc_gen_next(g) % 4) return 1;
  return grad_once(rt, gc, gos, bad, use_grad_of, retain, create, 1, k, name, desc, fail);
}

/* --- the calls -------------------------------------------------------------- */

static uint64_t in_use(tabi_runtime *rt, DLDevice dev) {
  tabi_memory_stats m;
  memset(&m, 0, sizeof m);
  m.struct_size = sizeof m;
  uint64_t n = tabi_runtime_memory_stats(rt, dev, &m) == TABI_OK ? m.allocated : 0;
  if (dev.device_type != kDLCPU) {
    tabi_memory_stats h;
    memset(&h, 0, sizeof h);
    h.struct_size = sizeof h;
    if (tabi_runtime_memory_stats(rt, (DLDevice){kDLCPU, 0}, &h) == TABI_OK) n += h.allocated;
  }
  tabi_clear_error();
  return n;
}

/* The oracle's side of the calls: a twin generator (same seed, so the same
 * draws: shapes, dtypes, layouts, values) making the tensors on the CPU. */
typedef struct twin {
  tabi_runtime *rt;
  const conform_robust_oracle *oracle; /* the dtypes the plugin claims */
  int decomposed;                      /* the plugin runs the op as a decomposition */
  tabi_op op;
  rc_gen *g;
  conform_twin_rules rules; /* what of the results must agree */
} twin;

/* After an accepted call: the reference must accept it too, and its results
 * agree with the plugin's (conform_twin.h). */
static int twin_agrees(tabi_runtime *rt, twin *tw, const tabi_op_info *info, int32_t nouts,
                       const tabi_value *outs, const tabi_value *args, tabi_value *targs, int32_t k,
                       const char *desc, conform_robust_stats *stats, conform_robust_failure *fail) {
  tabi_value touts[RC_MAX_OUTS];
  for (int i = 0; i < RC_MAX_OUTS; i++) touts[i] = tabi_none();
  tabi_status rst = tabi_call(tw->rt, tw->op, targs, info->nargs, touts, nouts);
  int ok = 1;
  const char *kind = NULL;
  char why[800];
  int32_t values = 0;
  if (rst != TABI_OK && rst != TABI_ERR_OUT_OF_MEMORY)
    ok = failed(fail, k, CONFORM_K_ACCEPTED, info->name, desc, "accepted a call the reference refuses (%s: %s)",
                tabi_status_name(rst), tabi_last_error());
  else if (rst == TABI_OK &&
           !conform_twin_compare(rt, tw->rt, info, &tw->rules, outs, touts, nouts, args, targs, &values, &kind,
                                 why, sizeof why))
    ok = failed(fail, k, kind, info->name, desc, "%s", why);
  stats->compared += rst == TABI_OK && values;
  for (int i = 0; i < RC_MAX_OUTS; i++) tabi_value_release(&touts[i]);
  return ok;
}

/* Whether a call reaches past dev: a tensor or a Device argument elsewhere,
 * or none at all (a factory op with device=None makes its tensor on the CPU).
 * The twin has every tensor on the CPU, so it cannot judge such a call: the
 * dispatcher may route it to another backend (absent: UNIMPLEMENTED), or the
 * device refuse the mix as ATen does (a CPU tensor beside a CUDA one, not
 * 0-d). */
static int off_device(const tabi_value *args, int32_t n, DLDevice dev) {
  int on = 0;
  for (int32_t a = 0; a < n; a++) {
    if (args[a].tag == TABI_TAG_DEVICE) {
      if (args[a].u.device.device_type != dev.device_type || args[a].u.device.device_id != dev.device_id) return 1;
      on = 1;
    }
    tabi_tensor *ts[RC_MAX_LIST];
    int nt = rc_tensors_of(&args[a], ts);
    for (int i = 0; i < nt; i++) {
      if (ts[i]->dl.device.device_type != dev.device_type || ts[i]->dl.device.device_id != dev.device_id) return 1;
      on = 1;
    }
  }
  return !on && dev.device_type != kDLCPU; /* neither: a factory's default device, the CPU */
}

/* Whether the call involves a dtype the plugin does not claim: an argument's,
 * a dtype argument, a complex scalar, or a result of the reference's. */
static int unclaimed(const conform_robust_oracle *o, const tabi_value *args, int32_t nargs, const tabi_value *touts,
                     int32_t nouts) {
  return o->dtypes && (conform_dtype_outside(o->dtypes, o->ndtypes, args, nargs) ||
                       conform_dtype_outside(o->dtypes, o->ndtypes, touts, nouts));
}

/* Whether the call, with grad mode on, writes in place (or to out=) while an
 * argument requires grad: torch's autograd refuses a leaf that requires grad
 * written in place, and out= arguments beside an input that requires grad,
 * whatever the reference (which knows no grad) says. */
static int grad_write(const grad_call *gc, const tabi_op_info *info) {
  if (!gc->grad_on || !gc->nleaves) return 0;
  for (int32_t a = 0; a < info->nargs; a++)
    if (conform_arg_at(info, a)->flags & TABI_ARG_MUTABLE) return 1;
  return 0;
}

/* After a refused call: the reference must refuse it too, unless the refusal
 * is one a good call may get (conform_robust.h): out of memory, a call off
 * the device under test, a dtype the plugin does not claim, an op its
 * decomposition needs and the device lacks. */
static int twin_refuses(twin *tw, const tabi_op_info *info, int32_t nouts, tabi_status st, const tabi_value *args,
                        tabi_value *targs, DLDevice dev, int32_t k, const char *desc, conform_robust_stats *stats,
                        conform_robust_failure *fail) {
  if (st == TABI_ERR_OUT_OF_MEMORY || (st == TABI_ERR_UNIMPLEMENTED && tw->decomposed)) return 1;
  if (off_device(args, info->nargs, dev)) return 1; /* another backend's, or a device error: not the twin's to judge */
  char why[600];
  snprintf(why, sizeof why, "%s", tabi_last_error());
  tabi_value touts[RC_MAX_OUTS];
  for (int i = 0; i < RC_MAX_OUTS; i++) touts[i] = tabi_none();
  tabi_status rst = tabi_call(tw->rt, tw->op, targs, info->nargs, touts, nouts);
  int excused = rst != TABI_OK || (st == TABI_ERR_TYPE && unclaimed(tw->oracle, targs, info->nargs, touts, nouts));
  for (int i = 0; i < RC_MAX_OUTS; i++) tabi_value_release(&touts[i]);
  tabi_clear_error();
  stats->confirmed += rst != TABI_OK;
  if (excused) return 1;
  return failed(fail, k, CONFORM_K_REFUSED, info->name, desc, "refused (%s: %s) a call the reference accepts",
                tabi_status_name(st), why);
}

/* Whether t shares storage with a writable argument marked (a!): then the
 * call may change it (an input passed again as the out= argument). */
static int writes_storage(const rc_gen *g, const tabi_op_info *info, const tabi_value *args, const tabi_tensor *t) {
  uint64_t id = tabi_tensor_storage_id(t);
  for (int32_t a = 0; a < info->nargs; a++) {
    if (!(conform_arg_at(info, a)->flags & TABI_ARG_MUTABLE)) continue;
    tabi_tensor *ts[RC_MAX_LIST];
    int nt = rc_tensors_of(&args[a], ts);
    for (int i = 0; i < nt; i++)
      if (tabi_tensor_storage_id(ts[i]) == id && !rc_gen_is_read_only(g, ts[i])) return 1;
  }
  return 0;
}

static int robust_calls(tabi_runtime *rt, DLDevice dev, const conform_robust_oracle *oracle, const tabi_autograd_api *ag,
                        tabi_op op, int32_t calls, uint64_t seed, conform_robust_mark_fn mark, void *user, conform_robust_stats *stats,
                        conform_robust_failure *fail) {
  memset(stats, 0, sizeof *stats);
  memset(fail, 0, sizeof *fail);
  fail->call = -1;
  const tabi_op_info *info = tabi_op_get_info(rt, op);
  if (!info) {
    snprintf(fail->detail, sizeof fail->detail, "no op %d", (int)op);
    return -1;
  }
  if (info->nargs > RC_MAX_ARGS) {
    snprintf(fail->detail, sizeof fail->detail, "%d arguments; the random calls handle up to %d",
             (int)info->nargs, RC_MAX_ARGS);
    return -1;
  }
  char base[160];
  base_name(info->name, base, sizeof base);
  int32_t nouts = info->returns_list ? 1 : info->nreturns > 0 ? info->nreturns : 1;
  if (nouts > RC_MAX_OUTS) nouts = RC_MAX_OUTS;
  rc_gen *g = malloc(sizeof *g);
  char *desc = malloc(CONFORM_ROBUST_DESC_MAX);
  snap *before = malloc(RC_MAX_TENSORS * sizeof *before);
  grad_call *gc = malloc(sizeof *gc);
  twin *tw = calloc(1, sizeof *tw);
  if (tw) tw->op = -1;
  if (tw && oracle && oracle->rt && tabi_op_find(oracle->rt, info->name, &tw->op) == TABI_OK)
    tw->g = malloc(sizeof *tw->g);
  tabi_clear_error();
  if (!g || !desc || !before || !gc || !tw || (oracle && tw->op >= 0 && !tw->g)) {
    free(g);
    free(desc);
    free(before);
    free(gc);
    if (tw) free(tw->g);
    free(tw);
    snprintf(fail->detail, sizeof fail->detail, "out of host memory");
    return -1;
  }
  gc->ag = ag;
  gc->backwards = &stats->backwards;
  rc_gen_init(g, rt, dev, conform_robust_seed(seed, info->name));
  rc_gen_init(&gc->gg, rt, dev, conform_robust_seed(seed ^ 0x67726164ull /* "grad" */, info->name));
  if (tw->g) {
    tw->rt = oracle->rt;
    tw->oracle = oracle;
    tw->decomposed = tabi_op_backend_status(rt, op, dev.device_type) == TABI_IMPL_DECOMPOSED;
    tabi_clear_error();
    rc_gen_init(tw->g, tw->rt, (DLDevice){kDLCPU, 0}, conform_robust_seed(seed, info->name));
    conform_twin_rules_of(tw->rt, tabi_op_get_info(tw->rt, tw->op), &tw->rules);
  }
  int ok = 1;
  for (int32_t k = 0; k < calls && ok; k++) {
    tabi_value args[RC_MAX_ARGS], outs[RC_MAX_OUTS], targs[RC_MAX_ARGS];
    uint64_t mem0 = in_use(rt, dev);
    rc_gen_begin_call(g);
    for (int32_t a = 0; a < info->nargs; a++) args[a] = rc_gen_arg(g, a, conform_arg_at(info, a));
    if (tw->g) {
      rc_gen_begin_call(tw->g);
      for (int32_t a = 0; a < info->nargs; a++) targs[a] = rc_gen_arg(tw->g, a, conform_arg_at(info, a));
    }
    rc_describe(args, info->nargs, desc, CONFORM_ROBUST_DESC_MAX);
    if (mark) mark(user, k, desc);
    if (ag) ok = grad_before(gc, args, info->nargs, k, info->name, desc, fail);
    /* what the call may not write: arguments not marked (a!), and read-only tensors */
    int ns = 0;
    for (int32_t a = 0; a < info->nargs && ok; a++) {
      int may_write = (conform_arg_at(info, a)->flags & TABI_ARG_MUTABLE) != 0;
      tabi_tensor *ts[RC_MAX_LIST];
      int nt = rc_tensors_of(&args[a], ts);
      for (int i = 0; i < nt && ns < RC_MAX_TENSORS && ok; i++)
        if ((!may_write && !writes_storage(g, info, args, ts[i])) || rc_gen_is_read_only(g, ts[i]))
          if (!take(rt, ts[i], &before[ns++]))
            ok = failed(fail, k, CONFORM_K_DEVICE, info->name, desc, "cannot read input %d back before the call: %s",
                        (int)a, tabi_last_error());
    }
    for (int i = 0; i < RC_MAX_OUTS; i++) outs[i] = tabi_none();
    uint64_t guards0 = tabi_runtime_guard_violations(rt);
    if (ok) {
      int32_t was = ag ? ag->set_grad_enabled(ag->ctx, gc->grad_on) : 0;
      tabi_status st = tabi_call(rt, op, args, info->nargs, outs, nouts);
      if (ag) ag->set_grad_enabled(ag->ctx, was);
      stats->calls++;
      if (st >= 0 && st < TABI_STATUS_COUNT) stats->by_status[st]++;
      ok = check_call(rt, info, base, k, st, outs, before, ns, desc, fail);
      if (ok && tw->g && st == TABI_OK) ok = twin_agrees(rt, tw, info, nouts, outs, args, targs, k, desc, stats, fail);
      if (ok && tw->g && st != TABI_OK && !(ag && grad_write(gc, info)))
        ok = twin_refuses(tw, info, nouts, st, args, targs, dev, k, desc, stats, fail);
      if (ok && ag && st == TABI_OK) {
        ok = grad_outputs(gc, outs, k, info->name, desc, fail) &&
             grad_backward(rt, gc, k, info->name, desc, fail);
        for (int i = 0; i < ns && ok; i++)
          if (!same(rt, &before[i]))
            ok = failed(fail, k, CONFORM_K_MUTATED, info->name, desc,
                        "backward changed an input it may not write");
      }
    }
    for (int i = 0; i < ns; i++) free(before[i].bytes);
    for (int i = 0; i < RC_MAX_OUTS; i++) tabi_value_release(&outs[i]);
    rc_gen_release(g);
    if (ag) rc_gen_release(&gc->gg);
    if (tw->g) rc_gen_release(tw->g);
    /* every storage of the call is freed by now: a damaged red zone counts,
       and so does memory still in use (a kernel's temporary, or a graph that
       outlives its tensors) */
    if (ok && tabi_runtime_guard_violations(rt) != guards0)
      ok = failed(fail, k, CONFORM_K_GUARD, info->name, desc,
                  "a storage of the call had a damaged red zone when freed (a write past a tensor)");
    uint64_t mem1 = in_use(rt, dev);
    if (ok && mem1 != mem0)
      ok = failed(fail, k, CONFORM_K_LEAK, info->name, desc,
                  "%lld bytes of tensor memory still in use after every tensor of the call was released",
                  (long long)(mem1 - mem0));
  }
  free(g);
  free(desc);
  free(before);
  free(gc);
  free(tw->g);
  free(tw);
  return ok;
}

int conform_robust_op(tabi_runtime *rt, DLDevice dev, const conform_robust_oracle *oracle, tabi_op op, int32_t calls,
                      uint64_t seed, conform_robust_mark_fn mark, void *user, conform_robust_stats *stats,
                      conform_robust_failure *fail) {
  return robust_calls(rt, dev, oracle, NULL, op, calls, seed, mark, user, stats, fail);
}

int conform_robust_grad_op(tabi_runtime *rt, const tabi_autograd_api *ag, const conform_robust_oracle *oracle,
                           tabi_op op,
                           int32_t calls, uint64_t seed, conform_robust_mark_fn mark, void *user,
                           conform_robust_stats *stats, conform_robust_failure *fail) {
  if (!ag) {
    memset(stats, 0, sizeof *stats);
    memset(fail, 0, sizeof *fail);
    fail->call = -1;
    snprintf(fail->detail, sizeof fail->detail, "no autograd API");
    return -1;
  }
  return robust_calls(rt, (DLDevice){kDLCPU, 0}, oracle, ag, op, calls, seed, mark, user, stats, fail);
}

/* Appends to buf at *o, as far as cap allows. */
static void put(char *buf, size_t cap, size_t *o, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t cap, size_t *o, const char *fmt, ...) {
  if (*o >= cap) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf + *o, cap - *o, fmt, ap);
  va_end(ap);
  if (n > 0) *o = *o + (size_t)n < cap ? *o + (size_t)n : cap;
}

static void show_elems(tabi_runtime *rt, const tabi_tensor *t, char *buf, size_t cap, size_t *o) {
  uint8_t *b = NULL;
  uint64_t nb = 0;
  tabi_dtype dt = tabi_tensor_dtype(t);
  int64_t n = tabi_tensor_numel(t), esz = tabi_dtype_size(dt);
  if (esz <= 0 || n > (int64_t)SNAP_MAX / esz || conform_tensor_host(rt, t, &b, &nb) != TABI_OK) {
    put(buf, cap, o, " (not read)");
    free(b);
    return;
  }
  put(buf, cap, o, " = [");
  for (int64_t i = 0; i < n && i < 64; i++) {
    conform_elem e = conform_elem_at(b, dt, i);
    if (e.is_int) put(buf, cap, o, "%s%lld", i ? ", " : "", (long long)e.i);
    else if (tabi_dtype_is_complex(dt)) put(buf, cap, o, "%s%.9g%+.9gj", i ? ", " : "", e.re, e.im);
    else put(buf, cap, o, "%s%.9g", i ? ", " : "", e.re);
  }
  put(buf, cap, o, "%s]", n > 64 ? ", ..." : "");
  free(b);
}

int conform_robust_show(tabi_runtime *rt, DLDevice dev, tabi_op op, uint64_t seed, int32_t k, char *buf,
                        size_t cap) {
  size_t o = 0;
  if (cap) buf[0] = 0;
  const tabi_op_info *info = tabi_op_get_info(rt, op);
  rc_gen *g = info && info->nargs <= RC_MAX_ARGS ? malloc(sizeof *g) : NULL;
  char *desc = g ? malloc(CONFORM_ROBUST_DESC_MAX) : NULL;
  if (!g || !desc || k < 0) {
    put(buf, cap, &o, "%s", !info ? "no such op" : k < 0 ? "no call before 0" : "cannot draw its arguments");
    free(g);
    free(desc);
    return 0;
  }
  rc_gen_init(g, rt, dev, conform_robust_seed(seed, info->name));
  tabi_value args[RC_MAX_ARGS];
  for (int32_t c = 0; c <= k; c++) {
    rc_gen_begin_call(g);
    for (int32_t a = 0; a < info->nargs; a++) args[a] = rc_gen_arg(g, a, conform_arg_at(info, a));
    if (c < k) rc_gen_release(g);
  }
  put(buf, cap, &o, "%s, call %d (seed %" PRIu64 "):\n", info->name, (int)k, seed);
  for (int32_t a = 0; a < info->nargs; a++) {
    rc_describe(&args[a], 1, desc, CONFORM_ROBUST_DESC_MAX);
    put(buf, cap, &o, "  %s = %s", conform_arg_at(info, a)->name, desc);
    tabi_tensor *ts[RC_MAX_LIST];
    int nt = rc_tensors_of(&args[a], ts);
    for (int i = 0; i < nt; i++) {
      if (args[a].tag == TABI_TAG_TENSOR_LIST) {
        rc_describe(&(tabi_value){.tag = TABI_TAG_TENSOR, .u.t = ts[i]}, 1, desc, CONFORM_ROBUST_DESC_MAX);
        put(buf, cap, &o, "\n    [%d] %s", i, desc);
      }
      show_elems(rt, ts[i], buf, cap, &o);
    }
    put(buf, cap, &o, "\n");
  }
  rc_gen_release(g);
  free(g);
  free(desc);
  tabi_clear_error();
  return 1;
}

void conform_robust_stats_str(const conform_robust_stats *stats, char *buf, size_t cap) {
  size_t o = 0;
  int done[TABI_STATUS_COUNT] = {0};
  buf[0] = 0;
  for (;;) {
    int best = -1;
    for (int s = 1; s < TABI_STATUS_COUNT; s++)
      if (!done[s] && stats->by_status[s] && (best < 0 || stats->by_status[s] > stats->by_status[best])) best = s;
    if (best < 0 || o >= cap) break;
    done[best] = 1;
    int n = snprintf(buf + o, cap - o, "%s%s %" PRId64, o ? ", " : "", tabi_status_name(best), stats->by_status[best]);
    if (n < 0) break;
    o += (size_t)n;
  }
  if (!o && cap) snprintf(buf, cap, "none");
}
