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

#include "conform_int.h"
#include "conform_rgen.h"

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

static const tabi_arg_info *arg_at(const tabi_op_info *info, int32_t k) {
  return (const tabi_arg_info *)((const char *)info->args + (size_t)k * info->arg_info_size);
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

int conform_robust_op(tabi_runtime *rt, DLDevice dev, tabi_op op, int32_t calls, uint64_t seed,
                      conform_robust_mark_fn mark, void *user, conform_robust_stats *stats,
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
  if (!g || !desc || !before) {
    free(g);
    free(desc);
    free(before);
    snprintf(fail->detail, sizeof fail->detail, "out of host memory");
    return -1;
  }
  rc_gen_init(g, rt, dev, conform_robust_seed(seed, info->name));
  int ok = 1;
  for (int32_t k = 0; k < calls && ok; k++) {
    tabi_value args[RC_MAX_ARGS], outs[RC_MAX_OUTS];
    rc_gen_begin_call(g);
    for (int32_t a = 0; a < info->nargs; a++) args[a] = rc_gen_arg(g, a, arg_at(info, a));
    rc_describe(args, info->nargs, desc, CONFORM_ROBUST_DESC_MAX);
    if (mark) mark(user, k, desc);
    /* what the call may not write: arguments not marked (a!), and read-only tensors */
    int ns = 0;
    for (int32_t a = 0; a < info->nargs && ok; a++) {
      int may_write = (arg_at(info, a)->flags & TABI_ARG_MUTABLE) != 0;
      tabi_tensor *ts[RC_MAX_LIST];
      int nt = rc_tensors_of(&args[a], ts);
      for (int i = 0; i < nt && ns < RC_MAX_TENSORS && ok; i++)
        if (!may_write || rc_gen_is_read_only(g, ts[i]))
          if (!take(rt, ts[i], &before[ns++]))
            ok = failed(fail, k, CONFORM_K_DEVICE, info->name, desc, "cannot read input %d back before the call: %s",
                        (int)a, tabi_last_error());
    }
    for (int i = 0; i < RC_MAX_OUTS; i++) outs[i] = tabi_none();
    uint64_t guards0 = tabi_runtime_guard_violations(rt);
    if (ok) {
      tabi_status st = tabi_call(rt, op, args, info->nargs, outs, nouts);
      stats->calls++;
      if (st >= 0 && st < TABI_STATUS_COUNT) stats->by_status[st]++;
      ok = check_call(rt, info, base, k, st, outs, before, ns, desc, fail);
    }
    for (int i = 0; i < ns; i++) free(before[i].bytes);
    for (int i = 0; i < RC_MAX_OUTS; i++) tabi_value_release(&outs[i]);
    rc_gen_release(g);
    /* every storage of the call is freed by now: a damaged red zone counts */
    if (ok && tabi_runtime_guard_violations(rt) != guards0)
      ok = failed(fail, k, CONFORM_K_GUARD, info->name, desc,
                  "a storage of the call had a damaged red zone when freed (a write past a tensor)");
  }
  free(g);
  free(desc);
  free(before);
  return ok;
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
