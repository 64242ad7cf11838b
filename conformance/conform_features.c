/* conformance/conform_features.c: autocast policy and profiler accounting
 * checks. See conform_features.h for what is checked and why. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tabi/runtime.h>
#include <tabi/ext_autocast.h>
#include <tabi/ext_profiler.h>

#include "conform_features.h"
#include "sample.h"

/* ---- shared ------------------------------------------------------------------ */

typedef struct fctx {
  FILE *log;
  conform_feature_result r;
  const char *group;
  conform_feature_case_fn on_case; /* may be NULL */
  void *user;
} fctx;

static void fail(fctx *c, const char *op, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fail(fctx *c, const char *op, const char *where, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(c->log, "FAIL %s %s [%s]: %s\n", c->group, op, where, msg);
  c->r.failed++;
  if (c->on_case) c->on_case(c->user, op, where, CONFORM_FEATURE_FAIL, msg);
}

static void pass(fctx *c, const char *op, const char *where) {
  c->r.passed++;
  if (c->on_case) c->on_case(c->user, op, where, CONFORM_FEATURE_PASS, "");
}

static void skip(fctx *c, const char *op, const char *where, const char *why) {
  c->r.skipped++;
  if (c->on_case) c->on_case(c->user, op, where, CONFORM_FEATURE_SKIP, why);
}

#define EXPECT(c, cond, op, where, ...) \
  do { if (cond) pass((c), (op), (where)); else fail((c), (op), (where), __VA_ARGS__); } while (0)

/* The check could not run (a plugin did not load, no extension): said on the log
 * and to on_case as a failure of "(setup)"; the caller returns 2. */
static void cannot_run(fctx *c, const char *what) {
  char msg[512];
  snprintf(msg, sizeof msg, "cannot run: %s%s", what, tabi_last_error());
  fprintf(c->log, "%s\n", msg);
  if (c->on_case) c->on_case(c->user, "(setup)", "load", CONFORM_FEATURE_FAIL, msg);
}

static tabi_runtime *make_runtime(const char *feature, const char *reference, const char *decomp,
                                  fctx *c) {
  tabi_runtime *rt = NULL;
  if (tabi_runtime_create(NULL, &rt) != TABI_OK) return NULL;
  if (tabi_runtime_load_plugin(rt, reference ? reference : "reference", NULL) != TABI_OK ||
      tabi_runtime_load_plugin(rt, feature, NULL) != TABI_OK) {
    cannot_run(c, "");
    tabi_runtime_destroy(rt);
    return NULL;
  }
  if (tabi_runtime_load_plugin(rt, decomp ? decomp : "decomp", NULL) != TABI_OK)
    tabi_clear_error(); /* optional: the reference has every op */
  return rt;
}

static tabi_tensor *cast_to(tabi_runtime *rt, tabi_tensor *t, tabi_dtype d) {
  tabi_op op;
  tabi_value a[2] = {tabi_tensor_value(t), tabi_dtype_value(d)}, r = tabi_none();
  if (tabi_op_find(rt, "aten::_to_copy", &op) != TABI_OK || tabi_call(rt, op, a, 2, &r, 1) != TABI_OK)
    return NULL;
  return r.u.t;
}

/* ---- autocast: the expectations, from autocast.md ---------------------------------- */

#define LP TABI_AUTOCAST_POLICY_LOWER_PRECISION
#define F32 TABI_AUTOCAST_POLICY_FP32
#define SET TABI_AUTOCAST_POLICY_FP32_SET_OPT_DTYPE
#define PRO TABI_AUTOCAST_POLICY_PROMOTE

/* Core op -> policy on the CPU (AutocastCPU) and on CUDA. Composite PyTorch
 * entries map to the core op they reach (conv2d -> convolution, cdist ->
 * _cdist_forward, softmax.int's set dtype -> _softmax run in float32, ...). */
static const struct { const char *op; int32_t cpu, cuda; } expect_tab[] = {
    {"aten::convolution", LP, LP}, {"aten::mm", LP, LP}, {"aten::bmm", LP, LP},
    {"aten::addmm", LP, LP},
    {"aten::acos", 0, F32}, {"aten::asin", 0, F32}, {"aten::cosh", 0, F32},
    {"aten::exp", 0, F32}, {"aten::expm1", 0, F32}, {"aten::log", 0, F32},
    {"aten::log10", 0, F32}, {"aten::log2", 0, F32}, {"aten::log1p", 0, F32},
    {"aten::reciprocal", 0, F32}, {"aten::rsqrt", 0, F32}, {"aten::sinh", 0, F32},
    {"aten::tan", 0, F32}, {"aten::pow.Tensor_Scalar", 0, F32},
    {"aten::pow.Tensor_Tensor", 0, F32}, {"aten::pow.Scalar", 0, F32},
    {"aten::native_layer_norm", 0, F32}, {"aten::native_group_norm", 0, F32},
    {"aten::upsample_nearest2d.vec", 0, F32}, {"aten::upsample_bilinear2d.vec", 0, F32},
    {"aten::_pdist_forward", 0, F32}, {"aten::_softmax", 0, F32},
    {"aten::_log_softmax", 0, F32}, {"aten::_cdist_forward", F32, F32},
    {"aten::prod", F32, SET}, {"aten::prod.dim_int", F32, SET},
    {"aten::grid_sampler_2d", F32, PRO}, {"aten::avg_pool3d", F32, 0},
    {"aten::max_pool3d_with_indices", F32, 0}, {"aten::_adaptive_avg_pool3d", F32, 0},
    {"aten::reflection_pad1d", F32, 0}, {"aten::reflection_pad2d", F32, 0},
    {"aten::replication_pad2d", F32, 0}, {"aten::replication_pad3d", F32, 0},
    {"aten::_fft_r2c", F32, 0}, {"aten::_fft_c2r", F32, 0},
    {"aten::cumsum", 0, SET}, {"aten::sum.dim_IntList", 0, SET},
    {"aten::cat", PRO, 0}, {"aten::atan2", 0, PRO}, {"aten::index_put", 0, PRO},
    {"aten::scatter_add", 0, PRO},
};
#define N_EXPECT ((int32_t)(sizeof expect_tab / sizeof expect_tab[0]))

static int32_t expected_policy(const char *name, int32_t device_type) {
  for (int32_t i = 0; i < N_EXPECT; i++)
    if (!strcmp(expect_tab[i].op, name))
      return device_type == kDLCPU ? expect_tab[i].cpu : expect_tab[i].cuda;
  return 0;
}

static const char *policy_name(int32_t p) {
  switch (p) {
    case LP: return "lower_precision_fp";
    case F32: return "fp32";
    case SET: return "fp32_set_opt_dtype";
    case PRO: return "promote";
    default: return "none";
  }
}

static void check_policy_table(fctx *c, tabi_runtime *rt, const tabi_autocast_api *ac) {
  const int32_t dts[2] = {kDLCPU, kDLCUDA};
  for (int d = 0; d < 2; d++) {
    const char *where = d ? "cuda" : "cpu";
    int32_t n = tabi_op_count(rt), listed = 0;
    for (tabi_op op = 0; op < n; op++) {
      const tabi_op_info *info = tabi_op_get_info(rt, op);
      if (!info || (strncmp(info->name, "aten::", 6) && strncmp(info->name, "prims::", 7)))
        continue;
      int32_t want = expected_policy(info->name, dts[d]);
      int32_t got = ac->policy(ac->ctx, dts[d], op);
      listed += want != 0;
      EXPECT(c, got == want, info->name, where, "policy %s, PyTorch's lists give %s",
             policy_name(got), policy_name(want));
    }
    int32_t got_n = ac->listed_ops(ac->ctx, dts[d], NULL, 0);
    EXPECT(c, got_n == listed, "(listed_ops)", where, "%d ops listed, expected %d", (int)got_n,
           (int)listed);
  }
}

/* ---- autocast: behaviour on the CPU ---------------------------------------------------- */

typedef struct owned {
  tabi_tensor *t[64];
  int32_t n;
  tabi_tensor *lists[CONFORM_MAX_ARGS][CONFORM_MAX_LIST];
} owned;

static int eligible(const tabi_tensor *t) {
  if (!t || t->dl.device.device_type != kDLCPU) return 0;
  tabi_dtype d = tabi_tensor_dtype(t);
  return tabi_dtype_is_floating(d) && d != TABI_DTYPE_FLOAT64;
}

/* Replaces eligible tensors of args (the first one only with first_only) by casts
 * to `to` (list payloads are copied into o->lists). */
static int cast_args(tabi_runtime *rt, tabi_value *args, int32_t n, tabi_dtype to, int first_only,
                     owned *o) {
  for (int32_t i = 0; i < n; i++) {
    if (args[i].tag == TABI_TAG_TENSOR && eligible(args[i].u.t)) {
      if (tabi_tensor_dtype(args[i].u.t) != to) {
        tabi_tensor *t = cast_to(rt, args[i].u.t, to);
        if (!t || o->n == 64) return 0;
        o->t[o->n++] = t;
        args[i].u.t = t;
      }
      if (first_only) return 1;
    } else if (args[i].tag == TABI_TAG_TENSOR_LIST && args[i].u.list.len <= CONFORM_MAX_LIST) {
      tabi_tensor *const *ts = tabi_value_tensors(&args[i]);
      int64_t len = args[i].u.list.len;
      for (int64_t k = 0; k < len; k++) o->lists[i][k] = ts[k];
      args[i].u.list.data = o->lists[i];
      for (int64_t k = 0; k < len; k++) {
        if (!eligible(ts[k])) continue;
        if (tabi_tensor_dtype(ts[k]) != to) {
          tabi_tensor *t = cast_to(rt, ts[k], to);
          if (!t || o->n == 64) return 0;
          o->t[o->n++] = t;
          o->lists[i][k] = t;
        }
        if (first_only) return 1;
      }
    }
  }
  return 1;
}

static void owned_free(owned *o) {
  for (int32_t i = 0; i < o->n; i++) tabi_tensor_release(o->t[i]);
  o->n = 0;
}

static tabi_dtype widest(const tabi_value *args, int32_t n) {
  tabi_dtype cur = TABI_DTYPE_BFLOAT16;
  for (int32_t i = 0; i < n; i++) {
    int64_t len = args[i].tag == TABI_TAG_TENSOR ? 1
                  : args[i].tag == TABI_TAG_TENSOR_LIST ? args[i].u.list.len : 0;
    for (int64_t k = 0; k < len; k++) {
      const tabi_tensor *t = args[i].tag == TABI_TAG_TENSOR ? args[i].u.t
                                                             : tabi_value_tensors(&args[i])[k];
      if (!eligible(t)) continue;
      tabi_dtype d = tabi_tensor_dtype(t);
      if (cur != d) cur = TABI_DTYPE_FLOAT32; /* f32 wins; a f16/bf16 mix is f32 */
    }
  }
  return cur;
}

static int same_bytes(tabi_runtime *rt, tabi_tensor *x, tabi_tensor *y) {
  if (tabi_tensor_dtype(x) != tabi_tensor_dtype(y) || x->dl.ndim != y->dl.ndim) return 0;
  for (int32_t d = 0; d < x->dl.ndim; d++)
    if (x->dl.shape[d] != y->dl.shape[d]) return 0;
  uint64_t nb = (uint64_t)tabi_tensor_numel(x) * (uint64_t)tabi_dtype_size(tabi_tensor_dtype(x));
  char *a = malloc(nb ? nb : 1), *b = malloc(nb ? nb : 1);
  int ok = a && b && tabi_tensor_to_host(rt, x, a, nb) == TABI_OK &&
           tabi_tensor_to_host(rt, y, b, nb) == TABI_OK && memcmp(a, b, nb) == 0;
  free(a);
  free(b);
  return ok;
}

/* One sample: returns 1 when it ran (passed or failed), 0 when skipped. */
static int check_sample(fctx *c, tabi_runtime *rt, const tabi_autocast_api *ac, tabi_op op,
                        const tabi_op_info *info, int32_t policy, const conform_sample *s) {
  tabi_value args[CONFORM_MAX_ARGS], manual[CONFORM_MAX_ARGS];
  tabi_value ref[8], got[8];
  int32_t n = s->nargs, nr = info->nreturns > 8 ? 8 : info->nreturns;
  owned *o = calloc(1, sizeof *o), *om = calloc(1, sizeof *om);
  int ran = 0;
  if (!o || !om || nr != info->nreturns) goto out;
  memcpy(args, s->args, sizeof(tabi_value) * (size_t)n);
  /* Inputs the policy has work on: float32 for lower precision, bfloat16 for
   * fp32, one bfloat16 among float32 for promote. */
  if (policy == F32 && !cast_args(rt, args, n, TABI_DTYPE_BFLOAT16, 0, o)) goto out;
  if (policy == PRO && !cast_args(rt, args, n, TABI_DTYPE_BFLOAT16, 1, o)) goto out;
  tabi_dtype target = policy == LP ? TABI_DTYPE_BFLOAT16
                      : policy == F32 ? TABI_DTYPE_FLOAT32 : widest(args, n);
  memcpy(manual, args, sizeof(tabi_value) * (size_t)n);
  if (!cast_args(rt, manual, n, target, 0, om)) goto out;
  for (int32_t i = 0; i < 8; i++) ref[i] = got[i] = tabi_none();
  if (tabi_call(rt, op, manual, n, ref, nr) != TABI_OK) {
    tabi_clear_error(); /* the op refuses these inputs even cast by hand: not a case */
    goto out;
  }
  ran = 1;
  uint64_t ex = tabi_runtime_tls_get(rt, TABI_TLS_EXCLUDED);
  int32_t prev = ac->set_enabled(ac->ctx, kDLCPU, 1);
  tabi_status st = tabi_call(rt, op, args, n, got, nr);
  ac->set_enabled(ac->ctx, kDLCPU, prev);
  EXPECT(c, tabi_runtime_tls_get(rt, TABI_TLS_EXCLUDED) == ex, info->name, s->name,
         "excluded keys not restored after the call");
  if (st != TABI_OK) {
    fail(c, info->name, s->name, "failed under autocast: %s", tabi_last_error());
  } else {
    for (int32_t r = 0; r < nr; r++) {
      if (ref[r].tag != TABI_TAG_TENSOR || got[r].tag != TABI_TAG_TENSOR) {
        EXPECT(c, ref[r].tag == got[r].tag, info->name, s->name, "output %d kind differs", (int)r);
        continue;
      }
      tabi_dtype gd = tabi_tensor_dtype(got[r].u.t);
      if (r == 0 && tabi_dtype_is_floating(gd) && policy != PRO)
        EXPECT(c, gd == target, info->name, s->name, "output 0 is %s, policy %s gives %s",
               tabi_dtype_name(gd), policy_name(policy), tabi_dtype_name(target));
      EXPECT(c, same_bytes(rt, ref[r].u.t, got[r].u.t), info->name, s->name,
             "output %d (%s) differs from the op on inputs cast to %s by hand", (int)r,
             tabi_dtype_name(gd), tabi_dtype_name(target));
    }
  }
  for (int32_t i = 0; i < nr; i++) {
    tabi_value_release(&ref[i]);
    tabi_value_release(&got[i]);
  }
out:
  if (o) owned_free(o);
  if (om) owned_free(om);
  free(o);
  free(om);
  return ran;
}

int conform_features_autocast(const char *autocast_plugin, const char *reference_plugin,
                              const char *decomp_plugin, FILE *log, conform_feature_result *out) {
  return conform_features_autocast_ex(autocast_plugin, reference_plugin, decomp_plugin, log, NULL,
                                      NULL, out);
}

int conform_features_autocast_ex(const char *autocast_plugin, const char *reference_plugin,
                                 const char *decomp_plugin, FILE *log,
                                 conform_feature_case_fn on_case, void *user,
                                 conform_feature_result *out) {
  fctx c = {log ? log : stderr, {0, 0, 0}, "autocast", on_case, user};
  if (out) memset(out, 0, sizeof *out);
  tabi_runtime *rt = make_runtime(autocast_plugin ? autocast_plugin : "autocast",
                                  reference_plugin, decomp_plugin, &c);
  if (!rt) return 2;
  const tabi_autocast_api *ac = NULL;
  if (tabi_runtime_extension(rt, TABI_AUTOCAST_EXTENSION, TABI_AUTOCAST_VERSION,
                             (const void **)&ac) != TABI_OK || !ac ||
      !TABI_FIELD_PRESENT(tabi_autocast_api, ac, listed_ops)) {
    cannot_run(&c, "no tabi.autocast v1 extension: ");
    tabi_runtime_destroy(rt);
    return 2;
  }
  check_policy_table(&c, rt, ac);
  for (int32_t i = 0; i < N_EXPECT; i++) {
    if (!expect_tab[i].cpu) continue;
    tabi_op op;
    if (tabi_op_find(rt, expect_tab[i].op, &op) != TABI_OK) {
      tabi_clear_error();
      skip(&c, expect_tab[i].op, "cpu", "op not in this runtime");
      continue;
    }
    const tabi_op_info *info = tabi_op_get_info(rt, op);
    conform_sample_list list = {NULL, 0, 0};
    int32_t known = 0, ran = 0;
    conform_samples_generate(rt, info, TABI_DTYPE_FLOAT32, 0, &list, &known);
    for (int32_t k = 0; k < list.count && ran < 3; k++) {
      const conform_sample *s = &list.items[k];
      if (s->flags & (CONFORM_EXPECT_ERROR | CONFORM_RANDOM | CONFORM_UNINIT)) continue;
      ran += check_sample(&c, rt, ac, op, info, expect_tab[i].cpu, s);
    }
    conform_sample_list_clear(&list);
    if (!ran) {
      fprintf(c.log, "SKIP autocast %s [cpu]: no sample ran\n", info->name);
      skip(&c, info->name, "cpu", "no float32 sample ran");
    }
  }
  tabi_runtime_destroy(rt);
  if (out) *out = c.r;
  return c.r.failed ? 1 : 0;
}

/* ---- JSON --------------------------------------------------------------------------------- */

typedef struct jp {
  const char *s;
  size_t n, i;
  int depth;
  int64_t xs;
} jp;

static void jws(jp *p) {
  while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' ||
                         p->s[p->i] == '\r'))
    p->i++;
}

/* A string; copies up to cap-1 bytes of its raw text into buf (for keys). */
static int jstr(jp *p, char *buf, size_t cap) {
  size_t k = 0;
  if (p->i >= p->n || p->s[p->i] != '"') return 0;
  p->i++;
  while (p->i < p->n) {
    unsigned char ch = (unsigned char)p->s[p->i++];
    if (ch == '"') {
      if (buf) buf[k < cap ? k : cap - 1] = 0;
      return 1;
    }
    if (ch < 0x20) return 0;
    if (ch == '\\') {
      if (p->i >= p->n) return 0;
      char e = p->s[p->i++];
      if (e == 'u') {
        for (int h = 0; h < 4; h++, p->i++)
          if (p->i >= p->n || !strchr("0123456789abcdefABCDEF", p->s[p->i])) return 0;
      } else if (!strchr("\"\\/bfnrt", e)) {
        return 0;
      }
    }
    if (buf && k + 1 < cap) buf[k++] = (char)ch;
  }
  return 0;
}

static int jnum(jp *p) {
  size_t st = p->i;
  if (p->i < p->n && p->s[p->i] == '-') p->i++;
  if (p->i >= p->n) return 0;
  if (p->s[p->i] == '0') p->i++;
  else if (p->s[p->i] >= '1' && p->s[p->i] <= '9') while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
  else return 0;
  if (p->i < p->n && p->s[p->i] == '.') {
    p->i++;
    size_t d = p->i;
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
    if (p->i == d) return 0;
  }
  if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
    p->i++;
    if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) p->i++;
    size_t d = p->i;
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
    if (p->i == d) return 0;
  }
  return p->i > st;
}

static int jvalue(jp *p);

static int jobject(jp *p) {
  p->i++; /* '{' */
  jws(p);
  if (p->i < p->n && p->s[p->i] == '}') { p->i++; return 1; }
  for (;;) {
    char key[16];
    jws(p);
    if (!jstr(p, key, sizeof key)) return 0;
    jws(p);
    if (p->i >= p->n || p->s[p->i] != ':') return 0;
    p->i++;
    jws(p);
    if (!strcmp(key, "ph") && p->i + 3 <= p->n && !strncmp(p->s + p->i, "\"X\"", 3)) p->xs++;
    if (!jvalue(p)) return 0;
    jws(p);
    if (p->i < p->n && p->s[p->i] == ',') { p->i++; continue; }
    if (p->i < p->n && p->s[p->i] == '}') { p->i++; return 1; }
    return 0;
  }
}

static int jarray(jp *p) {
  p->i++; /* '[' */
  jws(p);
  if (p->i < p->n && p->s[p->i] == ']') { p->i++; return 1; }
  for (;;) {
    jws(p);
    if (!jvalue(p)) return 0;
    jws(p);
    if (p->i < p->n && p->s[p->i] == ',') { p->i++; continue; }
    if (p->i < p->n && p->s[p->i] == ']') { p->i++; return 1; }
    return 0;
  }
}

static int jvalue(jp *p) {
  if (p->i >= p->n || ++p->depth > 256) return 0;
  int ok;
  char ch = p->s[p->i];
  if (ch == '{') ok = jobject(p);
  else if (ch == '[') ok = jarray(p);
  else if (ch == '"') ok = jstr(p, NULL, 0);
  else if (p->n - p->i >= 4 && !strncmp(p->s + p->i, "true", 4)) { ok = 1; p->i += 4; }
  else if (p->n - p->i >= 5 && !strncmp(p->s + p->i, "false", 5)) { ok = 1; p->i += 5; }
  else if (p->n - p->i >= 4 && !strncmp(p->s + p->i, "null", 4)) { ok = 1; p->i += 4; }
  else ok = jnum(p);
  p->depth--;
  return ok;
}

int conform_json_validate(const char *text, size_t n, int64_t *out_x_events) {
  jp p = {text, n, 0, 0, 0};
  if (out_x_events) *out_x_events = 0;
  if (!text) return 0;
  jws(&p);
  int ok = jvalue(&p);
  jws(&p);
  ok = ok && p.i == n;
  if (ok && out_x_events) *out_x_events = p.xs;
  return ok;
}

/* ---- profiler -------------------------------------------------------------------------- */

typedef struct pcall {
  tabi_op op;
  int32_t depth;      /* expected nesting level */
  const char *range;  /* enclosing range's name, NULL at top level */
} pcall;

typedef struct pscript {
  tabi_runtime *rt;
  const tabi_profiler_api *pf;
  pcall calls[32];
  int32_t n;
  int32_t depth;
  const char *range[4];
  int ok;
} pscript;

/* Calls `name` on args, releases the results, and notes the call. */
static void pcall_do(pscript *ps, const char *name, tabi_value *args, int32_t n) {
  tabi_op op;
  tabi_value outs[4] = {tabi_none(), tabi_none(), tabi_none(), tabi_none()};
  if (tabi_op_find(ps->rt, name, &op) != TABI_OK) {
    ps->ok = 0;
    return;
  }
  const tabi_op_info *info = tabi_op_get_info(ps->rt, op);
  if (tabi_call(ps->rt, op, args, n, outs, info->nreturns > 4 ? 4 : info->nreturns) != TABI_OK) {
    ps->ok = 0;
    return;
  }
  for (int i = 0; i < 4; i++) tabi_value_release(&outs[i]);
  if (ps->n < 32) {
    pcall *c = &ps->calls[ps->n++];
    c->op = op;
    c->depth = ps->depth;
    c->range = ps->depth ? ps->range[ps->depth - 1] : NULL;
  }
}

static void prange(pscript *ps, const char *name) {
  if (name) {
    if (ps->pf->push_range(ps->pf->ctx, name) != TABI_OK) ps->ok = 0;
    ps->range[ps->depth++] = name;
  } else {
    if (ps->pf->pop_range(ps->pf->ctx) != TABI_OK) ps->ok = 0;
    ps->depth--;
  }
}

static void run_script(pscript *ps, tabi_tensor *a, tabi_tensor *b) {
  const int64_t dim1[1] = {1};
  tabi_tensor *two[2] = {a, a};
  tabi_value v1[1] = {tabi_tensor_value(a)};
  tabi_value ab[2] = {tabi_tensor_value(a), tabi_tensor_value(b)};
  tabi_value aa[2] = {tabi_tensor_value(a), tabi_tensor_value(a)};
  tabi_value sum[2] = {tabi_tensor_value(a), tabi_int_list(dim1, 1)};
  tabi_value cat[1] = {tabi_tensor_list(two, 2)};
  tabi_value lsm[3] = {tabi_tensor_value(a), tabi_int(1), tabi_bool(0)};
  pcall_do(ps, "aten::neg", v1, 1);
  prange(ps, "outer");
  pcall_do(ps, "aten::mm", ab, 2);
  pcall_do(ps, "aten::add.Tensor", aa, 2);
  prange(ps, "inner");
  pcall_do(ps, "aten::relu", v1, 1);
  pcall_do(ps, "aten::sum.dim_IntList", sum, 2);
  pcall_do(ps, "aten::cat", cat, 1);
  pcall_do(ps, "aten::_log_softmax", lsm, 3);
  prange(ps, NULL);
  pcall_do(ps, "aten::mul.Tensor", aa, 2);
  prange(ps, NULL);
  pcall_do(ps, "aten::mm", ab, 2);
}

static void check_events(fctx *c, pscript *ps) {
  const tabi_profiler_api *pf = ps->pf;
  int64_t n = pf->event_count(pf->ctx);
  tabi_profiler_event *ev = calloc((size_t)(n ? n : 1), sizeof *ev);
  int64_t *child = calloc((size_t)(n ? n : 1), sizeof *child);
  int64_t *alloc = calloc((size_t)(n ? n : 1), sizeof *alloc);
  int64_t *freed = calloc((size_t)(n ? n : 1), sizeof *freed);
  if (!ev || !child || !alloc || !freed) {
    fail(c, "(events)", "setup", "out of memory");
    goto out;
  }
  for (int64_t i = 0; i < n; i++) {
    ev[i].struct_size = sizeof ev[i];
    if (pf->event_get(pf->ctx, i, &ev[i]) != TABI_OK) {
      fail(c, "(events)", "event_get", "event %lld: %s", (long long)i, tabi_last_error());
      goto out;
    }
  }
  /* Calls made from here (not by kernels): events whose parent is a range or
   * none. In order, one per call. */
  int32_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    const tabi_profiler_event *e = &ev[i];
    if (e->kind != TABI_PROFILER_EVENT_OP) continue;
    if (e->parent >= 0 && ev[e->parent].kind == TABI_PROFILER_EVENT_OP) continue;
    if (k >= ps->n) {
      fail(c, e->name, "calls", "an event more than the %d calls made", (int)ps->n);
      k++;
      continue;
    }
    const pcall *pc = &ps->calls[k++];
    const tabi_op_info *info = tabi_op_get_info(ps->rt, pc->op);
    EXPECT(c, e->op == pc->op, info ? info->name : "?", "calls",
           "call %d recorded as op %d", (int)k - 1, (int)e->op);
    EXPECT(c, e->depth == pc->depth, info ? info->name : "?", "nesting",
           "depth %d, called at depth %d", (int)e->depth, (int)pc->depth);
    const char *pname = e->parent >= 0 ? ev[e->parent].name : NULL;
    EXPECT(c, (pname == NULL) == (pc->range == NULL) && (!pname || !strcmp(pname, pc->range)),
           info ? info->name : "?", "nesting", "parent %s, called inside %s",
           pname ? pname : "(none)", pc->range ? pc->range : "(none)");
  }
  EXPECT(c, k == ps->n, "(all)", "calls", "%d calls recorded, %d made", (int)k, (int)ps->n);
  /* Nesting consistency and self time. */
  int bad = 0;
  for (int64_t i = 0; i < n; i++) {
    const tabi_profiler_event *e = &ev[i];
    if (e->end_ns < e->start_ns) bad++;
    if (e->parent < 0) {
      bad += e->depth != 0;
      continue;
    }
    const tabi_profiler_event *p = &ev[e->parent];
    if (e->parent >= i || e->start_ns < p->start_ns || e->end_ns > p->end_ns ||
        e->depth != p->depth + 1 || e->thread != p->thread)
      bad++;
    child[e->parent] += e->end_ns - e->start_ns;
  }
  for (int64_t i = 0; i < n; i++)
    if (ev[i].self_ns < 0 || ev[i].self_ns != ev[i].end_ns - ev[i].start_ns - child[i]) bad++;
  EXPECT(c, bad == 0, "(all)", "nesting", "%d inconsistencies among %lld events", bad,
         (long long)n);
  /* Memory: events balance, attribution agrees with the memory events. */
  int64_t nm = pf->memory_event_count(pf->ctx), net = 0;
  for (int64_t i = 0; i < nm; i++) {
    tabi_profiler_memory_event m;
    memset(&m, 0, sizeof m);
    m.struct_size = sizeof m;
    if (pf->memory_event_get(pf->ctx, i, &m) != TABI_OK) {
      bad++;
      continue;
    }
    net += m.nbytes;
    if (m.event >= 0 && m.event < n) {
      if (m.nbytes > 0) alloc[m.event] += m.nbytes;
      else freed[m.event] -= m.nbytes;
    }
  }
  int mism = 0;
  for (int64_t i = 0; i < n; i++)
    mism += alloc[i] != ev[i].alloc_bytes || freed[i] != ev[i].free_bytes;
  EXPECT(c, nm > 0, "(memory)", "memory", "no memory events recorded");
  EXPECT(c, net == 0, "(memory)", "memory", "a session that freed what it allocated nets %lld bytes",
         (long long)net);
  EXPECT(c, mism == 0, "(memory)", "memory",
         "%d events' alloc/free differ from the memory events attributed to them", mism);
out:
  free(ev);
  free(child);
  free(alloc);
  free(freed);
}

static void check_trace(fctx *c, const tabi_profiler_api *pf) {
  char path[] = "/tmp/tabi_conform_traceXXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    fail(c, "(trace)", "trace", "cannot create a temporary file");
    return;
  }
  close(fd);
  tabi_status s = pf->export_chrome_trace(pf->ctx, path);
  EXPECT(c, s == TABI_OK, "(trace)", "trace", "export_chrome_trace: %s", tabi_last_error());
  FILE *f = fopen(path, "rb");
  char *text = NULL;
  size_t n = 0;
  if (f && fseek(f, 0, SEEK_END) == 0) {
    long len = ftell(f);
    if (len >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)len + 1)))
      n = fread(text, 1, (size_t)len, f);
  }
  if (f) fclose(f);
  unlink(path);
  int64_t xs = 0;
  int ok = text && conform_json_validate(text, n, &xs);
  EXPECT(c, ok, "(trace)", "trace", "the Chrome trace does not parse as JSON");
  int64_t want = pf->event_count(pf->ctx);
  if (ok)
    EXPECT(c, xs == want, "(trace)", "trace", "%lld \"X\" events, %lld events recorded",
           (long long)xs, (long long)want);
  free(text);
}

int conform_features_profiler(const char *profiler_plugin, const char *reference_plugin,
                              const char *decomp_plugin, FILE *log, conform_feature_result *out) {
  return conform_features_profiler_ex(profiler_plugin, reference_plugin, decomp_plugin, log, NULL,
                                      NULL, out);
}

int conform_features_profiler_ex(const char *profiler_plugin, const char *reference_plugin,
                                 const char *decomp_plugin, FILE *log,
                                 conform_feature_case_fn on_case, void *user,
                                 conform_feature_result *out) {
  fctx c = {log ? log : stderr, {0, 0, 0}, "profiler", on_case, user};
  if (out) memset(out, 0, sizeof *out);
  tabi_runtime *rt = make_runtime(profiler_plugin ? profiler_plugin : "profiler",
                                  reference_plugin, decomp_plugin, &c);
  if (!rt) return 2;
  const tabi_profiler_api *pf = NULL;
  if (tabi_runtime_extension(rt, TABI_PROFILER_EXTENSION, TABI_PROFILER_VERSION,
                             (const void **)&pf) != TABI_OK || !pf ||
      !TABI_FIELD_PRESENT(tabi_profiler_api, pf, memory_event_get)) {
    cannot_run(&c, "no tabi.profiler v1 extension: ");
    tabi_runtime_destroy(rt);
    return 2;
  }
  const int64_t sa[2] = {2, 3}, sb[2] = {3, 2};
  const double d[6] = {0.5, -1, 2, 3, -4, 5};
  tabi_tensor *a64 = NULL, *a = NULL, *b = NULL;
  const DLDevice cpu = {kDLCPU, 0};
  if (tabi_tensor_from_host(rt, cpu, TABI_DTYPE_FLOAT64, 2, sa, d, sizeof d, &a64) == TABI_OK) {
    a = cast_to(rt, a64, TABI_DTYPE_FLOAT32);
    const int64_t *shape = sb;
    tabi_tensor *b64 = NULL;
    if (tabi_tensor_from_host(rt, cpu, TABI_DTYPE_FLOAT64, 2, shape, d, sizeof d, &b64) == TABI_OK)
      b = cast_to(rt, b64, TABI_DTYPE_FLOAT32);
    tabi_tensor_release(b64);
  }
  tabi_tensor_release(a64);
  const uint64_t key = TABI_LAYER_KEY(TABI_PRIORITY_PROFILER);
  EXPECT(&c, (tabi_runtime_tls_get(rt, TABI_TLS_ENABLED) & key) == 0, "(session)", "off",
         "the profiler key is enabled with no session");
  tabi_profiler_options o = {sizeof o, TABI_PROFILER_RECORD_SHAPES | TABI_PROFILER_MEMORY};
  pscript ps;
  memset(&ps, 0, sizeof ps);
  ps.rt = rt;
  ps.pf = pf;
  ps.ok = a && b;
  if (ps.ok && pf->start(pf->ctx, &o) == TABI_OK) {
    run_script(&ps, a, b);
    EXPECT(&c, pf->stop(pf->ctx) == TABI_OK, "(session)", "stop", "%s", tabi_last_error());
    EXPECT(&c, ps.ok, "(session)", "calls", "a call or range failed: %s", tabi_last_error());
    EXPECT(&c, (tabi_runtime_tls_get(rt, TABI_TLS_ENABLED) & key) == 0, "(session)", "off",
           "the profiler key stays enabled after stop");
    check_events(&c, &ps);
    check_trace(&c, pf);
  } else {
    fail(&c, "(session)", "start", "%s", tabi_last_error());
  }
  tabi_tensor_release(a);
  tabi_tensor_release(b);
  tabi_runtime_destroy(rt);
  if (out) *out = c.r;
  return c.r.failed ? 1 : 0;
}
