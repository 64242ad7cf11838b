/* conformance/conform_op.c: one op against the reference, over its samples.
 *
 * For each dtype: the generators' samples; for each sample, the reference runs on
 * the oracle's tensors and the plugin on copies in its own runtime (same
 * layouts), and conform_check.c compares. Samples that passed are then run again
 * from four threads at once (conform_threads.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform_check.h"
#include "conform_int.h"
#include "conform_robust.h"

/* The generators live in samples_*.c / gen*.c (another part of the suite). The
 * build defines TABI_CONFORM_HAVE_SAMPLES when they exist; before that every op
 * is reported skipped, "no sample generator". */
#ifndef TABI_CONFORM_HAVE_SAMPLES
#define TABI_CONFORM_HAVE_SAMPLES 0
#endif

/* The threads check runs, per op, up to THREAD_CALLS passing samples (at most
 * THREAD_PER_DTYPE of each dtype, so calls with different inputs and types
 * overlap) from 4 threads, for at least THREAD_ROUNDS rounds and --threads-ms
 * of wall time: long enough to span scheduler slices on a loaded machine, which
 * is what exposes shared scratch state in tiny kernels. */
#define THREAD_CALLS 24
#define THREAD_PER_DTYPE 3
#define THREAD_ROUNDS 3

typedef struct thread_set {
  int32_t n, n_dtype;
  conform_args *args[THREAD_CALLS];
  uint8_t *want[THREAD_CALLS];
  uint64_t want_n[THREAD_CALLS];
  tabi_dtype dtype[THREAD_CALLS];
  char sample[THREAD_CALLS][128];
} thread_set;

static void release_outs(tabi_value *o, int32_t n) {
  for (int32_t i = 0; i < n; i++) tabi_value_release(&o[i]);
}

static int has_mutable_arg(const tabi_op_info *info) {
  for (int32_t a = 0; a < info->nargs; a++) {
    const tabi_arg_info *ai = conform_arg_at(info, a);
    if (ai->flags & TABI_ARG_MUTABLE) return 1;
  }
  return 0;
}

static int32_t nouts_of(const tabi_op_info *info) {
  int32_t n = info->returns_list ? 1 : info->nreturns;
  return n > CONFORM_MAX_OUTS ? CONFORM_MAX_OUTS : n;
}

/* Plugin call seeded like the reference, for random ops. */
static tabi_status call_plugin(conform_ctx *c, tabi_op op, conform_args *ta, tabi_value *outs,
                               int32_t nouts, int seeded) {
  if (seeded) tabi_runtime_manual_seed(c->test, c->device, c->opt->seed + 12345);
  tabi_value args[CONFORM_MAX_ARGS];
  memcpy(args, ta->v, sizeof args);
  for (int32_t i = 0; i < CONFORM_MAX_OUTS; i++) outs[i] = tabi_none();
  return tabi_call(c->test, op, args, ta->nargs, outs, nouts);
}

static int dtype_listed(const tabi_dtype *dts, int32_t n, tabi_dtype d) {
  for (int32_t i = 0; i < n; i++)
    if (dts[i] == d) return 1;
  return 0;
}

int conform_self_overlapping(const tabi_tensor *t) {
  for (int32_t i = 0; t && i < t->dl.ndim; i++)
    if (t->dl.strides[i] == 0 && t->dl.shape[i] > 1) return 1;
  return 0;
}

const char *conform_dtype_outside(const tabi_dtype *dts, int32_t n, const tabi_value *vals, int32_t nvals) {
  for (int32_t a = 0; a < nvals; a++) {
    const tabi_value *v = &vals[a];
    tabi_dtype d = TABI_DTYPE_INVALID;
    if (v->tag == TABI_TAG_TENSOR && v->u.t) d = tabi_tensor_dtype(v->u.t);
    else if (v->tag == TABI_TAG_DTYPE) d = v->u.dtype;
    else if (v->tag == TABI_TAG_COMPLEX) d = TABI_DTYPE_COMPLEX64;
    else if (v->tag == TABI_TAG_TENSOR_LIST)
      for (int64_t i = 0; i < v->u.list.len; i++) {
        tabi_tensor *t = tabi_value_tensors(v)[i];
        if (t && !dtype_listed(dts, n, tabi_tensor_dtype(t))) return tabi_dtype_name(tabi_tensor_dtype(t));
      }
    if (d != TABI_DTYPE_INVALID && !dtype_listed(dts, n, d)) return tabi_dtype_name(d);
  }
  return NULL;
}

/* The name of a dtype the call involves (its arguments, the reference's
 * results) that --dtypes does not list; NULL when every one is listed. */
static const char *dtype_outside(const conform_ctx *c, const conform_sample *s,
                                 const conform_call *k) {
  const char *d = conform_dtype_outside(c->dtypes, c->ndtypes, s->args, s->nargs);
  return d ? d : conform_dtype_outside(c->dtypes, c->ndtypes, k->ro, k->nouts);
}

static void run_sample(conform_ctx *c, const char *opname, tabi_dtype dt, tabi_op op_t,
                       tabi_op op_r, const tabi_op_info *info, conform_sample *s,
                       int32_t impl, thread_set *ts) {
  const char *dn = tabi_dtype_name(dt);
  conform_progress(c, opname, dn, s->name);
  conform_call k;
  memset(&k, 0, sizeof k);
  k.c = c;
  k.op = opname;
  k.dtype = dn;
  k.s = s;
  k.info = info;
  k.nouts = nouts_of(info);
  conform_xfer x;
  conform_xfer_init(&x);
  conform_args *ta = calloc(1, sizeof *ta);
  if (!ta) return;
  k.ta = ta;
  int keep = 0;
  int rnd = (s->flags & CONFORM_RANDOM) != 0;
  /* Copy first: the reference may write mutable arguments in place. */
  tabi_status st = conform_args_xfer(&x, c->test, c->device, s, ta);
  if (st != TABI_OK) {
    conform_emit(c, CONFORM_ST_FAIL, opname, dn, s->name, CONFORM_K_DEVICE,
                 "cannot copy the sample's tensors to %s:%d: %s", c->device_name,
                 (int)c->device.device_id, tabi_last_error());
    goto out;
  }
  if (c->device.device_type != kDLCPU && !conform_args_retarget(ta, info, c->device)) {
    conform_emit(c, CONFORM_ST_SKIP, opname, dn, s->name, CONFORM_K_HOST_ONLY,
                 "takes no tensor and no Device: it runs on the CPU, not on %s", c->device_name);
    goto out;
  }
  if (s->flags & CONFORM_EXPECT_ERROR) {
    st = call_plugin(c, op_t, ta, k.po, k.nouts, 0);
    if (st == TABI_OK)
      conform_emit(c, CONFORM_ST_FAIL, opname, dn, s->name, CONFORM_K_ACCEPTED,
                   "returned OK for input the op must refuse");
    else
      conform_emit(c, CONFORM_ST_PASS, opname, dn, s->name, NULL, "refused: %s", tabi_status_name(st));
    goto out;
  }
  if (rnd) tabi_runtime_manual_seed(c->oracle, (DLDevice){kDLCPU, 0}, c->opt->seed + 12345);
  for (int32_t i = 0; i < CONFORM_MAX_OUTS; i++) k.ro[i] = tabi_none();
  tabi_status rst = tabi_call(c->oracle, op_r, s->args, s->nargs, k.ro, k.nouts);
  if (rst != TABI_OK) {
    char why[400];
    snprintf(why, sizeof why, "%s", tabi_last_error());
    st = call_plugin(c, op_t, ta, k.po, k.nouts, rnd);
    if (st == TABI_OK)
      conform_emit(c, CONFORM_ST_FAIL, opname, dn, s->name, CONFORM_K_ACCEPTED,
                   "returned OK where the reference refuses with %s (%s)", tabi_status_name(rst), why);
    else if (rst == TABI_ERR_TYPE)
      conform_emit(c, CONFORM_ST_UNSUPPORTED, opname, dn, s->name, NULL,
                   "dtype not supported by the op (reference: %s)", why);
    else
      conform_emit(c, CONFORM_ST_PASS, opname, dn, s->name, NULL, "both refuse: %s",
                   tabi_status_name(rst));
    goto out;
  }
  conform_snap snap;
  st = conform_snap_take(&k, &snap);
  if (st != TABI_OK) {
    conform_emit(c, CONFORM_ST_FAIL, opname, dn, s->name, CONFORM_K_DEVICE,
                 "cannot read the inputs back from %s: %s", c->device_name, tabi_last_error());
    conform_snap_free(&snap);
    goto out;
  }
  st = call_plugin(c, op_t, ta, k.po, k.nouts, rnd);
  if (st != TABI_OK && impl == TABI_IMPL_DECOMPOSED && st == TABI_ERR_UNIMPLEMENTED) {
    /* The decomposition bottomed out in an op the device lacks: a coverage gap
     * (the matrix says "missing"), not a wrong answer. A native kernel saying
     * UNIMPLEMENTED is a failure (below). */
    conform_emit(c, CONFORM_ST_SKIP, opname, dn, s->name, CONFORM_K_MISSING,
                 "skipped: the decomposition needs an op the plugin lacks: %s", tabi_last_error());
    conform_snap_free(&snap);
    goto out;
  }
  const char *outside = st == TABI_ERR_TYPE ? dtype_outside(c, s, &k) : NULL;
  if (outside) {
    /* --dtypes lists what the plugin supports; refusing a call that involves
     * another dtype (promotion, a complex scalar, a dtype argument) is fine. */
    conform_emit(c, CONFORM_ST_UNSUPPORTED, opname, dn, s->name, NULL,
                 "the call involves %s, not in --dtypes, and the plugin refuses it: %s", outside,
                 tabi_last_error());
    conform_snap_free(&snap);
    goto out;
  }
  if (st != TABI_OK) {
    conform_emit(c, CONFORM_ST_FAIL, opname, dn, s->name, CONFORM_K_ERROR,
                 "returned %s where the reference returned OK%s: %s", tabi_status_name(st),
                 st == TABI_ERR_UNIMPLEMENTED ? " (an op the plugin claims must not be unimplemented)"
                 : st == TABI_ERR_TYPE ? " (a dtype the plugin does not support: restrict with --dtypes)"
                                        : "",
                 tabi_last_error());
    conform_snap_free(&snap);
    goto out;
  }
  int32_t nfail = conform_check_results(&k);
  nfail += conform_snap_check(&k, &snap);
  conform_snap_free(&snap);
  uint8_t *b1 = NULL;
  uint64_t n1 = 0;
  conform_outs_bytes(c->test, k.po, k.nouts, &b1, &n1);
  if (rnd && !nfail) {
    /* Same seed, same numbers: run it again. */
    tabi_value again[CONFORM_MAX_OUTS];
    if (call_plugin(c, op_t, ta, again, k.nouts, 1) == TABI_OK) {
      uint8_t *b2 = NULL;
      uint64_t n2 = 0;
      conform_outs_bytes(c->test, again, k.nouts, &b2, &n2);
      if (n1 != n2 || memcmp(b1, b2, n1) != 0) {
        conform_emit(c, CONFORM_ST_FAIL, opname, dn, s->name, CONFORM_K_REPRO,
                     "two calls after seeding with the same seed gave different results");
        nfail++;
      }
      free(b2);
    }
    release_outs(again, k.nouts);
  }
  if (!nfail) {
    conform_emit(c, CONFORM_ST_PASS, opname, dn, s->name, NULL, NULL);
    if (!rnd && !(s->flags & CONFORM_UNINIT) && !has_mutable_arg(info) && ts->n < THREAD_CALLS &&
        ts->n_dtype < THREAD_PER_DTYPE) {
      ts->args[ts->n] = ta;
      ts->want[ts->n] = b1;
      ts->want_n[ts->n] = n1;
      ts->dtype[ts->n] = dt;
      snprintf(ts->sample[ts->n++], sizeof ts->sample[0], "%s", s->name);
      ts->n_dtype++;
      keep = 1;
    }
  }
  if (!keep) free(b1);
out:
  release_outs(k.po, k.nouts);
  release_outs(k.ro, k.nouts);
  if (!keep) {
    conform_args_release(ta);
    free(ta);
  }
  conform_xfer_clear(&x); /* kept args hold their own references */
}

static void run_dtype(conform_ctx *c, const conform_group *g, tabi_op op_t, tabi_op op_r,
                      const tabi_op_info *info, const tabi_op_info *rinfo, tabi_dtype dt,
                      thread_set *ts, int *out_known) {
  const char *dn = tabi_dtype_name(dt);
  conform_sample_list list;
  memset(&list, 0, sizeof list);
  int32_t known = 0;
  conform_progress(c, g->name, dn, "(generating samples)");
#if TABI_CONFORM_HAVE_SAMPLES
  tabi_status st = conform_samples_generate(c->oracle, rinfo, dt, c->opt->seed, &list, &known);
#else
  (void)rinfo;
  tabi_status st = TABI_OK;
#endif
  *out_known = known;
  if (!known) goto done;
  if (st != TABI_OK) {
    conform_emit(c, CONFORM_ST_SKIP, g->name, dn, NULL, CONFORM_K_HARNESS,
                 "the sample generator failed: %s", tabi_last_error());
    goto done;
  }
  if (list.count == 0) {
    conform_emit(c, CONFORM_ST_SKIP, g->name, dn, NULL, NULL, "no samples for this dtype");
    goto done;
  }
  ts->n_dtype = 0;
  for (int32_t i = 0; i < list.count; i++)
    run_sample(c, g->name, dt, op_t, op_r, info, &list.items[i], g->impl, ts);
done:
#if TABI_CONFORM_HAVE_SAMPLES
  conform_sample_list_clear(&list);
#endif
  return;
}

void conform_op_group(conform_ctx *c, const conform_group *g) {
  tabi_op op_t, op_r;
  if (tabi_op_find(c->test, g->name, &op_t) != TABI_OK ||
      tabi_op_find(c->oracle, g->name, &op_r) != TABI_OK) {
    conform_emit(c, CONFORM_ST_SKIP, g->name, NULL, NULL, CONFORM_K_HARNESS, "op not found");
    return;
  }
  const tabi_op_info *info = tabi_op_get_info(c->test, op_t);
  const tabi_op_info *rinfo = tabi_op_get_info(c->oracle, op_r);
  thread_set *ts = calloc(1, sizeof *ts);
  if (!ts) return;
  for (int32_t d = 0; d < c->ndtypes; d++) {
    int known = 0;
    run_dtype(c, g, op_t, op_r, info, rinfo, c->dtypes[d], ts, &known);
    if (!known) {
      conform_emit(c, CONFORM_ST_SKIP, g->name, NULL, NULL, NULL, "skipped: no sample generator");
      break;
    }
  }
  if (ts->n > 0) {
    conform_progress(c, g->name, NULL, "(4 threads at once)");
    char detail[300];
    int32_t bad = conform_threads_check(c->test, op_t, ts->args, ts->n, nouts_of(info), ts->want,
                                        ts->want_n, THREAD_ROUNDS,
                                        c->opt->threads_ms > 0 ? c->opt->threads_ms : 60, detail,
                                        sizeof detail);
    if (bad >= 0)
      conform_emit(c, CONFORM_ST_FAIL, g->name, tabi_dtype_name(ts->dtype[bad]), ts->sample[bad],
                   CONFORM_K_THREADS, "%s", detail);
    else
      conform_emit(c, CONFORM_ST_PASS, g->name, NULL, "(4 threads at once)", NULL, "%d calls",
                   (int)ts->n);
  }
  for (int32_t i = 0; i < ts->n; i++) {
    conform_args_release(ts->args[i]);
    free(ts->args[i]);
    free(ts->want[i]);
  }
  free(ts);
  if (c->opt->robust_calls >= 0) conform_robust_group(c, g->name, NULL, c->test, c->device, NULL, op_t);
}

/* --- random calls (conform_robust.h) ------------------------------------------- */

typedef struct robust_mark {
  conform_ctx *c;
  const char *op;
  int32_t calls;
} robust_mark;

/* "(random call 37 of 100, seed 0)": the case's sample, and a crash's site. */
static void robust_where(const robust_mark *m, int32_t k, char *buf, size_t n) {
  snprintf(buf, n, "(random call %d of %d, seed %llu)", (int)k + 1, (int)m->calls,
           (unsigned long long)m->c->opt->seed);
}

static void on_robust_call(void *user, int32_t k, const char *desc) {
  robust_mark *m = user;
  char where[128];
  robust_where(m, k, where, sizeof where);
  conform_progress_detail(m->c, m->op, where, desc);
}

void conform_robust_group(conform_ctx *c, const char *name, const char *dtype, tabi_runtime *rt, DLDevice dev,
                          const tabi_autograd_api *ag, tabi_op op) {
  int32_t calls = c->opt->robust_calls > 0 ? c->opt->robust_calls : 100;
  robust_mark m = {c, name, calls};
  conform_robust_stats st;
  conform_robust_failure *f = malloc(sizeof *f);
  if (!f) return;
  conform_robust_oracle o = {c->oracle, c->dtypes, c->ndtypes};
  const conform_robust_oracle *oracle = c->oracle ? &o : NULL;
  int r = ag ? conform_robust_grad_op(rt, ag, oracle, op, calls, c->opt->seed, on_robust_call, &m, &st, f)
             : conform_robust_op(rt, dev, oracle, op, calls, c->opt->seed, on_robust_call, &m, &st, f);
  if (r > 0) {
    char refused[256];
    conform_robust_stats_str(&st, refused, sizeof refused);
    char backs[64] = "";
    if (ag) snprintf(backs, sizeof backs, ", %lld backward", (long long)st.backwards);
    conform_emit(c, CONFORM_ST_PASS, name, dtype, "(random calls)", NULL,
                 "%lld calls, %lld accepted (%lld compared with the reference's values)%s; refused: %s "
                 "(%lld confirmed by the reference)",
                 (long long)st.calls, (long long)st.by_status[TABI_OK], (long long)st.compared, backs, refused,
                 (long long)st.confirmed);
  } else if (r < 0) {
    conform_emit(c, CONFORM_ST_SKIP, name, dtype, "(random calls)", CONFORM_K_HARNESS, "skipped: %s",
                 f->detail);
  } else {
    char where[128];
    robust_where(&m, f->call, where, sizeof where);
    conform_emit(c, CONFORM_ST_FAIL, name, dtype, where, f->kind, "%s", f->detail);
  }
  free(f);
}
