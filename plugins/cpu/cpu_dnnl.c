/* plugins/cpu/cpu_dnnl.c: oneDNN (v2 C API) plans and their cache (see
 * cpu_dnnl.h).
 *
 * A plan is what one call needs: a list of buffers (the caller's, bound at
 * execution, and temporaries in oneDNN's preferred blocked layouts) and the
 * primitives to run over them in order (reorders in, the op, reorders out).
 * Plans are built once per key and kept; memory objects are made per call
 * around the caller's pointers. Temporaries come from the host's caching
 * allocator, so a repeated shape allocates nothing new from the system.
 */
#include <oneapi/dnnl/dnnl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_dnnl.h"

/* libgomp, which oneDNN's OpenMP runtime is: the thread count of this call. */
extern void omp_set_num_threads(int n);

#define PLAN_MAX_BUFS 12
#define PLAN_MAX_STEPS 6
#define PLAN_MAX_ARGS 6 /* up to 5 of the op, and its scratchpad */
#define PLAN_KEY_MAX 40
#define CPU_DNNL_CACHE_MAX 256

typedef struct plan_step {
  dnnl_primitive_t prim;
  int32_t nargs;
  int32_t arg[PLAN_MAX_ARGS]; /* DNNL_ARG_* */
  int32_t buf[PLAN_MAX_ARGS];
} plan_step;

typedef struct plan {
  int64_t key[PLAN_KEY_MAX];
  int32_t nbufs, nsteps;
  dnnl_memory_desc_t md[PLAN_MAX_BUFS];
  int32_t user[PLAN_MAX_BUFS]; /* caller's pointer index, or -1 for a temporary */
  plan_step step[PLAN_MAX_STEPS];
  /* Kept between calls so a small product does not pay for creating them
   * (mallocs inside oneDNN: most of an 8x8 mm's time): the memory objects get
   * the call's pointers through set_data_handle. One caller at a time holds
   * them (`busy`); a concurrent caller of the same plan makes its own. */
  atomic_flag busy;
  dnnl_stream_t stream;
  dnnl_memory_t mem[PLAN_MAX_BUFS];
} plan;

struct cpu_dnnl_cache {
  dnnl_engine_t engine;
  pthread_mutex_t lock;
  int32_t n;
  plan *plans[CPU_DNNL_CACHE_MAX];
};

cpu_dnnl_cache *cpu_dnnl_cache_create(int32_t nthreads) {
  (void)nthreads;
  cpu_dnnl_cache *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  if (dnnl_engine_create(&c->engine, dnnl_cpu, 0) != dnnl_success) {
    free(c);
    return NULL;
  }
  pthread_mutex_init(&c->lock, NULL);
  return c;
}

static void plan_destroy(plan *p) {
  if (!p) return;
  for (int32_t i = 0; i < PLAN_MAX_BUFS; i++)
    if (p->mem[i]) dnnl_memory_destroy(p->mem[i]);
  if (p->stream) dnnl_stream_destroy(p->stream);
  for (int32_t i = 0; i < p->nsteps; i++)
    if (p->step[i].prim) dnnl_primitive_destroy(p->step[i].prim);
  free(p);
}

void cpu_dnnl_cache_destroy(cpu_dnnl_cache *c) {
  if (!c) return;
  for (int32_t i = 0; i < c->n; i++) plan_destroy(c->plans[i]);
  dnnl_engine_destroy(c->engine);
  pthread_mutex_destroy(&c->lock);
  free(c);
}

int32_t cpu_dnnl_cache_size(cpu_dnnl_cache *c) {
  if (!c) return 0;
  pthread_mutex_lock(&c->lock);
  int32_t n = c->n;
  pthread_mutex_unlock(&c->lock);
  return n;
}

/* --- plan building ---------------------------------------------------------- */

/* Primitive descriptors ask for a user-provided scratchpad: each call gets its
 * own (a temporary of the plan). With the library's shared scratchpad,
 * concurrent executions from several framework threads occasionally produced
 * wrong results (seen as inf/NaN mix-ups in a 4-thread bmm stress test). */
static dnnl_status_t pd_create(dnnl_primitive_desc_t *pd, const_dnnl_op_desc_t desc,
                               dnnl_engine_t e, const_dnnl_primitive_desc_t hint) {
  dnnl_primitive_attr_t attr;
  dnnl_status_t st = dnnl_primitive_attr_create(&attr);
  if (st != dnnl_success) return st;
  st = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
  if (st == dnnl_success) st = dnnl_primitive_desc_create(pd, desc, attr, e, hint);
  dnnl_primitive_attr_destroy(attr);
  return st;
}

static int32_t plan_buf(plan *p, const dnnl_memory_desc_t *md, int32_t user) {
  if (p->nbufs >= PLAN_MAX_BUFS) return -1;
  p->md[p->nbufs] = *md;
  p->user[p->nbufs] = user;
  return p->nbufs++;
}

/* Adds a primitive built from pd (which the plan then owns the primitive of). */
static int plan_step_add(plan *p, const_dnnl_primitive_desc_t pd, int32_t nargs, const int32_t *args,
                         const int32_t *bufs) {
  if (p->nsteps >= PLAN_MAX_STEPS) return 0;
  plan_step *s = &p->step[p->nsteps];
  if (nargs >= PLAN_MAX_ARGS) return 0;
  s->nargs = nargs;
  for (int32_t i = 0; i < nargs; i++) {
    s->arg[i] = args[i];
    s->buf[i] = bufs[i];
  }
  const dnnl_memory_desc_t *smd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  if (smd && dnnl_memory_desc_get_size(smd) > 0) {
    int32_t b = plan_buf(p, smd, -1);
    if (b < 0) return 0;
    s->arg[s->nargs] = DNNL_ARG_SCRATCHPAD;
    s->buf[s->nargs++] = b;
  }
  if (dnnl_primitive_create(&s->prim, pd) != dnnl_success) return 0;
  p->nsteps++;
  return 1;
}

static int plan_reorder(plan *p, dnnl_engine_t e, int32_t from, int32_t to) {
  dnnl_primitive_desc_t pd;
  dnnl_primitive_attr_t attr;
  if (dnnl_primitive_attr_create(&attr) != dnnl_success) return 0;
  int made = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) == dnnl_success &&
             dnnl_reorder_primitive_desc_create(&pd, &p->md[from], e, &p->md[to], e, attr) == dnnl_success;
  dnnl_primitive_attr_destroy(attr);
  if (!made) return 0;
  int32_t args[2] = {DNNL_ARG_FROM, DNNL_ARG_TO}, bufs[2] = {from, to};
  int ok = plan_step_add(p, pd, 2, args, bufs);
  dnnl_primitive_desc_destroy(pd);
  return ok;
}

/* The buffer the op reads as `want`: the user's own when the layouts agree,
 * else a temporary filled by a reorder step added now. */
static int32_t plan_input(plan *p, dnnl_engine_t e, int32_t user_buf, const dnnl_memory_desc_t *want) {
  if (dnnl_memory_desc_equal(&p->md[user_buf], want)) return user_buf;
  int32_t t = plan_buf(p, want, -1);
  if (t < 0 || !plan_reorder(p, e, user_buf, t)) return -1;
  return t;
}
/* The buffer the op writes as `want`; when it is a temporary the caller adds
 * plan_reorder(t, user_buf) after the op. */
static int32_t plan_output(plan *p, int32_t user_buf, const dnnl_memory_desc_t *want) {
  if (dnnl_memory_desc_equal(&p->md[user_buf], want)) return user_buf;
  return plan_buf(p, want, -1);
}

static void md_plain_dt(dnnl_memory_desc_t *md, int32_t nd, const int64_t *dims, const int64_t *strides,
                        dnnl_data_type_t dt) {
  dnnl_dims_t d = {0}, s = {0};
  for (int32_t i = 0; i < nd; i++) { d[i] = dims[i]; s[i] = strides[i]; }
  dnnl_memory_desc_init_by_strides(md, nd, d, dt, s);
}
static void md_plain(dnnl_memory_desc_t *md, int32_t nd, const int64_t *dims, const int64_t *strides) {
  md_plain_dt(md, nd, dims, strides, dnnl_f32);
}
static void md_any_dt(dnnl_memory_desc_t *md, int32_t nd, const int64_t *dims, dnnl_data_type_t dt) {
  dnnl_dims_t d = {0};
  for (int32_t i = 0; i < nd; i++) d[i] = dims[i];
  dnnl_memory_desc_init_by_tag(md, nd, d, dt, dnnl_format_tag_any);
}

/* Whether pd is one of oneDNN's optimized kernels: its reference loops
 * ("ref:...") are far slower than widening the operands to float32 first. */
static int pd_fast(const_dnnl_primitive_desc_t pd) {
  const char *impl = NULL;
  return dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl &&
         strncmp(impl, "ref", 3) != 0;
}
static void contig_strides(int32_t nd, const int64_t *dims, int64_t *s) {
  int64_t e = 1;
  for (int32_t i = nd - 1; i >= 0; i--) { s[i] = e; e *= dims[i]; }
}

/* --- execution and the cache -------------------------------------------------- */

/* Runs the plan's steps on the caller's pointers. `keep`: this caller holds the
 * plan's kept stream and memory objects (made on first use, rebound here). */
static int plan_run(cpu_dnnl_cache *c, plan *p, const tabi_host_api *h, void *const *ptrs,
                    int keep) {
  dnnl_memory_t own[PLAN_MAX_BUFS] = {0};
  dnnl_memory_t *mem = keep ? p->mem : own;
  tabi_tensor *tmp[PLAN_MAX_BUFS] = {0};
  dnnl_stream_t own_stream = NULL;
  dnnl_stream_t *stream = keep ? &p->stream : &own_stream;
  int ok = *stream || dnnl_stream_create(stream, c->engine, dnnl_stream_default_flags) == dnnl_success;
  for (int32_t i = 0; ok && i < p->nbufs; i++) {
    void *ptr;
    if (p->user[i] >= 0) {
      ptr = ptrs[p->user[i]];
    } else {
      int64_t bytes = (int64_t)dnnl_memory_desc_get_size(&p->md[i]);
      DLDevice cpu = {kDLCPU, 0};
      if (h->tensor_empty(h->ctx, cpu, TABI_DTYPE_UINT8, 1, &bytes, &tmp[i]) != TABI_OK) { ok = 0; break; }
      ptr = tabi_tensor_data(tmp[i]);
    }
    if (mem[i]) ok = dnnl_memory_set_data_handle(mem[i], ptr) == dnnl_success;
    else ok = dnnl_memory_create(&mem[i], &p->md[i], c->engine, ptr) == dnnl_success;
  }
  for (int32_t s = 0; ok && s < p->nsteps; s++) {
    dnnl_exec_arg_t args[PLAN_MAX_ARGS];
    for (int32_t a = 0; a < p->step[s].nargs; a++) {
      args[a].arg = p->step[s].arg[a];
      args[a].memory = mem[p->step[s].buf[a]];
    }
    ok = dnnl_primitive_execute(p->step[s].prim, *stream, p->step[s].nargs, args) == dnnl_success;
  }
  if (*stream) dnnl_stream_wait(*stream);
  if (own_stream) dnnl_stream_destroy(own_stream);
  for (int32_t i = 0; i < p->nbufs; i++) {
    if (own[i]) dnnl_memory_destroy(own[i]);
    if (tmp[i]) h->tensor_release(h->ctx, tmp[i]);
  }
  return ok;
}

typedef int (*plan_build_fn)(plan *p, dnnl_engine_t e, const void *arg);

/* Finds or builds the plan for key and runs it. */
static int cached_run(cpu_dnnl_cache *c, const tabi_host_api *h, int32_t nthreads,
                      const int64_t *key, plan_build_fn build, const void *arg, void *const *ptrs) {
  if (!c) return 0;
  omp_set_num_threads(nthreads);
  plan *found = NULL;
  pthread_mutex_lock(&c->lock);
  for (int32_t i = 0; i < c->n && !found; i++)
    if (memcmp(c->plans[i]->key, key, sizeof(int64_t) * PLAN_KEY_MAX) == 0) found = c->plans[i];
  int cached = found != NULL;
  if (!found) {
    found = calloc(1, sizeof *found);
    if (found) {
      memcpy(found->key, key, sizeof(int64_t) * PLAN_KEY_MAX);
      if (!build(found, c->engine, arg)) {
        plan_destroy(found);
        found = NULL;
      } else if (c->n < CPU_DNNL_CACHE_MAX) {
        c->plans[c->n++] = found;
        cached = 1;
      }
    }
  }
  pthread_mutex_unlock(&c->lock);
  if (!found) return 0;
  int keep = cached && !atomic_flag_test_and_set(&found->busy);
  int ok = plan_run(c, found, h, ptrs, keep);
  if (keep) atomic_flag_clear(&found->busy);
  if (!cached) plan_destroy(found);
  return ok;
}

/* --- matmul ------------------------------------------------------------------- */

typedef struct mm_arg {
  int64_t batch, m, n, k;
  const int64_t *as, *bs;
  dnnl_data_type_t in; /* the operands' type; the product is float32 */
} mm_arg;

static int build_matmul(plan *p, dnnl_engine_t e, const void *argp) {
  const mm_arg *a = argp;
  int64_t ad[3] = {a->batch, a->m, a->k}, bd[3] = {a->batch, a->k, a->n}, cd[3] = {a->batch, a->m, a->n};
  int64_t cs[3];
  contig_strides(3, cd, cs);
  dnnl_memory_desc_t amd, bmd, cmd;
  md_plain_dt(&amd, 3, ad, a->as, a->in);
  md_plain_dt(&bmd, 3, bd, a->bs, a->in);
  md_plain(&cmd, 3, cd, cs);
  dnnl_matmul_desc_t desc;
  if (dnnl_matmul_desc_init(&desc, &amd, &bmd, NULL, &cmd) != dnnl_success) return 0;
  dnnl_primitive_desc_t pd;
  if (pd_create(&pd, &desc, e, NULL) != dnnl_success) return 0;
  /* bf16 without the machine's bf16 (or AVX-512) kernels is oneDNN's
   * reference loop, far slower than widening to float32: decline */
  if (a->in != dnnl_f32 && !pd_fast(pd)) {
    dnnl_primitive_desc_destroy(pd);
    return 0;
  }
  int32_t ba = plan_buf(p, &amd, 0), bb = plan_buf(p, &bmd, 1), bc = plan_buf(p, &cmd, 2);
  int32_t args[3] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST}, bufs[3] = {ba, bb, bc};
  int ok = plan_step_add(p, pd, 3, args, bufs);
  dnnl_primitive_desc_destroy(pd);
  return ok;
}

static int matmul_dt(cpu_dnnl_cache *c, const tabi_host_api *h, int32_t nthreads, int64_t batch,
                     int64_t m, int64_t n, int64_t k, const void *a, const int64_t *as, const void *b,
                     const int64_t *bs, float *out, dnnl_data_type_t in) {
  int64_t key[PLAN_KEY_MAX] = {in == dnnl_f32 ? 1 : 5, nthreads, batch, m, n, k,
                               as[0], as[1], as[2], bs[0], bs[1], bs[2]};
  mm_arg arg = {batch, m, n, k, as, bs, in};
  void *ptrs[3] = {(void *)a, (void *)b, out};
  return cached_run(c, h, nthreads, key, build_matmul, &arg, ptrs);
}

int cpu_dnnl_matmul(cpu_dnnl_cache *c, const tabi_host_api *h, int32_t nthreads, int64_t batch,
                    int64_t m, int64_t n, int64_t k, const float *a, const int64_t *as,
                    const float *b, const int64_t *bs, float *out) {
  return matmul_dt(c, h, nthreads, batch, m, n, k, a, as, b, bs, out, dnnl_f32);
}

int cpu_dnnl_matmul_bf16(cpu_dnnl_cache *c, const tabi_host_api *h, int32_t nthreads, int64_t batch,
                         int64_t m, int64_t n, int64_t k, const uint16_t *a, const int64_t *as,
                         const uint16_t *b, const int64_t *bs, float *out) {
  return matmul_dt(c, h, nthreads, batch, m, n, k, a, as, b, bs, out, dnnl_bf16);
}

/* --- convolution -------------------------------------------------------------- */

#define CONV_FWD 2
#define CONV_BWD_DATA 3
#define CONV_BWD_W 4

typedef struct conv_arg {
  const cpu_conv_geom *g;
  int has_bias;
} conv_arg;

typedef struct conv_mds {
  dnnl_memory_desc_t x, w, b, y;          /* the caller's inputs, as strided */
  dnnl_memory_desc_t xo, wo, yo;          /* results (dx, dw, y): contiguous */
  dnnl_memory_desc_t xa, wa, ya;          /* "any" for the op to choose */
  dnnl_dims_t strides, dil, pl, pr;
  dnnl_alg_kind_t alg;
} conv_mds;

/* oneDNN's dims and strides of a weight tensor of ATen's shape with element
 * strides `as`. The weights are [oc, ic/G, k...] (convolution) or
 * [ic, oc/G, k...] (transposed); oneDNN wants [G, oc/G, ic/G, k...] (or
 * [oc, ic, k...] for one group): ATen's dim 0 splits into G and its rest, and
 * the transposed case swaps the two channel dims, all by strides over the same
 * memory, no copy. Returns the rank. */
static int32_t weight_md_dims(const cpu_conv_geom *g, const int64_t *as, int64_t *wd, int64_t *ws) {
  int64_t G = g->groups, ocg = g->oc / G, icg = g->ic / G;
  int32_t o = G > 1 ? 1 : 0;
  int64_t d0 = g->transposed ? icg : ocg; /* ATen dim 0's size per group */
  if (G > 1) {
    wd[0] = G;
    ws[0] = as[0] * d0;
  }
  wd[o] = ocg;
  wd[o + 1] = icg;
  ws[o] = g->transposed ? as[1] : as[0];
  ws[o + 1] = g->transposed ? as[0] : as[1];
  for (int32_t i = 0; i < g->ns; i++) {
    wd[o + 2 + i] = g->k[i];
    ws[o + 2 + i] = as[2 + i];
  }
  return g->ns + 2 + o;
}

/* A transposed convolution is oneDNN's deconvolution with right padding
 * p - output_padding (the caller checked that it is >= 0). `kind` says which
 * of x, w, y is the result (float32); the others are the inputs' type. */
static void conv_mds_init(conv_mds *m, const cpu_conv_geom *g, int kind) {
  dnnl_data_type_t in = g->bf16 ? dnnl_bf16 : dnnl_f32;
  int32_t ns = g->ns, nd = ns + 2;
  int64_t xd[5] = {g->n, g->ic}, yd[5] = {g->n, g->oc}, s[6], one[1] = {1};
  for (int32_t i = 0; i < ns; i++) {
    xd[2 + i] = g->in[i];
    yd[2 + i] = g->out[i];
  }
  md_plain_dt(&m->x, nd, xd, g->xs, in);
  md_plain_dt(&m->y, nd, yd, g->ys, in);
  contig_strides(nd, xd, s); md_plain(&m->xo, nd, xd, s);
  contig_strides(nd, yd, s); md_plain(&m->yo, nd, yd, s);
  int64_t wd[6], ws[6], as[5];
  int32_t wn = weight_md_dims(g, g->ws, wd, ws);
  md_plain_dt(&m->w, wn, wd, ws, in);
  contig_strides(nd, (int64_t[5]){g->transposed ? g->ic : g->oc, g->transposed ? g->oc / g->groups : g->ic / g->groups,
                                  g->k[0], g->k[1], g->k[2]}, as);
  weight_md_dims(g, as, wd, ws);
  md_plain(&m->wo, wn, wd, ws);
  md_plain(&m->b, 1, &g->oc, one);
  md_any_dt(&m->xa, nd, xd, kind == CONV_BWD_DATA ? dnnl_f32 : in);
  md_any_dt(&m->wa, wn, wd, kind == CONV_BWD_W ? dnnl_f32 : in);
  md_any_dt(&m->ya, nd, yd, kind == CONV_FWD ? dnnl_f32 : in);
  memset(m->strides, 0, sizeof m->strides);
  memset(m->dil, 0, sizeof m->dil);
  memset(m->pl, 0, sizeof m->pl);
  memset(m->pr, 0, sizeof m->pr);
  for (int32_t i = 0; i < ns; i++) {
    m->strides[i] = g->s[i];
    m->dil[i] = g->d[i] - 1;
    m->pl[i] = g->p[i];
    m->pr[i] = g->transposed ? g->p[i] - g->op[i] : g->p[i];
  }
  m->alg = g->transposed ? dnnl_deconvolution_direct : dnnl_convolution_direct;
}

/* The forward primitive descriptor: the op itself, or the hint of a backward one. */
static dnnl_primitive_desc_t conv_fwd_pd(dnnl_engine_t e, const cpu_conv_geom *g, conv_mds *m,
                                         int has_bias) {
  dnnl_convolution_desc_t d;
  const dnnl_memory_desc_t *b = has_bias ? &m->b : NULL;
  dnnl_status_t st =
      g->transposed
          ? dnnl_dilated_deconvolution_forward_desc_init(&d, dnnl_forward_training, m->alg, &m->xa, &m->wa,
                                                         b, &m->ya, m->strides, m->dil, m->pl, m->pr)
          : dnnl_dilated_convolution_forward_desc_init(&d, dnnl_forward_training, m->alg, &m->xa, &m->wa,
                                                       b, &m->ya, m->strides, m->dil, m->pl, m->pr);
  dnnl_primitive_desc_t pd;
  if (st != dnnl_success || pd_create(&pd, &d, e, NULL) != dnnl_success) return NULL;
  if (g->bf16 && !pd_fast(pd)) {
    dnnl_primitive_desc_destroy(pd);
    return NULL;
  }
  return pd;
}

/* The hint of a backward primitive: the forward of the same geometry, in
 * the inputs' type throughout for bfloat16 (oneDNN's bf16 forward). */
static dnnl_primitive_desc_t conv_hint_pd(dnnl_engine_t e, const cpu_conv_geom *g, int has_bias) {
  conv_mds h;
  conv_mds_init(&h, g, CONV_FWD);
  if (g->bf16) h.ya.data_type = dnnl_bf16;
  return conv_fwd_pd(e, g, &h, has_bias);
}

static int build_conv_fwd(plan *p, dnnl_engine_t e, const void *argp) {
  const conv_arg *a = argp;
  conv_mds m;
  conv_mds_init(&m, a->g, CONV_FWD);
  dnnl_primitive_desc_t pd = conv_fwd_pd(e, a->g, &m, a->has_bias);
  if (!pd) return 0;
  int32_t ux = plan_buf(p, &m.x, 0), uw = plan_buf(p, &m.w, 1), uy = plan_buf(p, &m.yo, 3);
  int32_t ub = a->has_bias ? plan_buf(p, &m.b, 2) : -1;
  int32_t bx = plan_input(p, e, ux, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0));
  int32_t bw = plan_input(p, e, uw, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0));
  int32_t by = plan_output(p, uy, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0));
  int ok = bx >= 0 && bw >= 0 && by >= 0;
  if (ok) {
    int32_t args[4] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST, DNNL_ARG_BIAS};
    int32_t bufs[4] = {bx, bw, by, ub};
    ok = plan_step_add(p, pd, a->has_bias ? 4 : 3, args, bufs);
  }
  if (ok && by != uy) ok = plan_reorder(p, e, by, uy);
  dnnl_primitive_desc_destroy(pd);
  return ok;
}

static int build_conv_bwd_data(plan *p, dnnl_engine_t e, const void *argp) {
  const conv_arg *a = argp;
  conv_mds m;
  conv_mds_init(&m, a->g, CONV_BWD_DATA);
  dnnl_primitive_desc_t hint = conv_hint_pd(e, a->g, 0);
  if (!hint) return 0;
  dnnl_convolution_desc_t d;
  dnnl_primitive_desc_t pd = NULL;
  dnnl_status_t st =
      a->g->transposed
          ? dnnl_dilated_deconvolution_backward_data_desc_init(&d, m.alg, &m.xa, &m.wa, &m.ya, m.strides,
                                                               m.dil, m.pl, m.pr)
          : dnnl_dilated_convolution_backward_data_desc_init(&d, m.alg, &m.xa, &m.wa, &m.ya, m.strides,
                                                             m.dil, m.pl, m.pr);
  int ok = st == dnnl_success && pd_create(&pd, &d, e, hint) == dnnl_success;
  dnnl_primitive_desc_destroy(hint);
  if (ok && a->g->bf16 && !pd_fast(pd)) {
    dnnl_primitive_desc_destroy(pd);
    ok = 0;
  }
  if (!ok) return 0;
  /* user buffers: 0 dy, 1 w, 2 dx */
  int32_t udy = plan_buf(p, &m.y, 0), uw = plan_buf(p, &m.w, 1), udx = plan_buf(p, &m.xo, 2);
  int32_t bdy = plan_input(p, e, udy, dnnl_primitive_desc_query_md(pd, dnnl_query_diff_dst_md, 0));
  int32_t bw = plan_input(p, e, uw, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0));
  int32_t bdx = plan_output(p, udx, dnnl_primitive_desc_query_md(pd, dnnl_query_diff_src_md, 0));
  ok = bdy >= 0 && bw >= 0 && bdx >= 0;
  if (ok) {
    int32_t args[3] = {DNNL_ARG_DIFF_DST, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_SRC}, bufs[3] = {bdy, bw, bdx};
    ok = plan_step_add(p, pd, 3, args, bufs);
  }
  if (ok && bdx != udx) ok = plan_reorder(p, e, bdx, udx);
  dnnl_primitive_desc_destroy(pd);
  return ok;
}

static int build_conv_bwd_w(plan *p, dnnl_engine_t e, const void *argp) {
  const conv_arg *a = argp;
  conv_mds m;
  conv_mds_init(&m, a->g, CONV_BWD_W);
  dnnl_primitive_desc_t hint = conv_hint_pd(e, a->g, a->has_bias);
  if (!hint) return 0;
  dnnl_convolution_desc_t d;
  dnnl_primitive_desc_t pd = NULL;
  const dnnl_memory_desc_t *b = a->has_bias ? &m.b : NULL;
  dnnl_status_t st =
      a->g->transposed
          ? dnnl_dilated_deconvolution_backward_weights_desc_init(&d, m.alg, &m.xa, &m.wa, b, &m.ya,
                                                                  m.strides, m.dil, m.pl, m.pr)
          : dnnl_dilated_convolution_backward_weights_desc_init(&d, m.alg, &m.xa, &m.wa, b, &m.ya,
                                                                m.strides, m.dil, m.pl, m.pr);
  int ok = st == dnnl_success && pd_create(&pd, &d, e, hint) == dnnl_success;
  dnnl_primitive_desc_destroy(hint);
  if (ok && a->g->bf16 && !pd_fast(pd)) {
    dnnl_primitive_desc_destroy(pd);
    ok = 0;
  }
  if (!ok) return 0;
  /* user buffers: 0 x, 1 dy, 2 dw, 3 db */
  int32_t ux = plan_buf(p, &m.x, 0), udy = plan_buf(p, &m.y, 1), udw = plan_buf(p, &m.wo, 2);
  int32_t udb = a->has_bias ? plan_buf(p, &m.b, 3) : -1;
  int32_t bx = plan_input(p, e, ux, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0));
  int32_t bdy = plan_input(p, e, udy, dnnl_primitive_desc_query_md(pd, dnnl_query_diff_dst_md, 0));
  int32_t bdw = plan_output(p, udw, dnnl_primitive_desc_query_md(pd, dnnl_query_diff_weights_md, 0));
  ok = bx >= 0 && bdy >= 0 && bdw >= 0;
  if (ok) {
    int32_t args[4] = {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_BIAS};
    int32_t bufs[4] = {bx, bdy, bdw, udb};
    ok = plan_step_add(p, pd, a->has_bias ? 4 : 3, args, bufs);
  }
  if (ok && bdw != udw) ok = plan_reorder(p, e, bdw, udw);
  dnnl_primitive_desc_destroy(pd);
  return ok;
}

/* The key: kind, threads, bias, then every field of the geometry (the
 * per-dim values are packed two to a slot; each is < 2^31, checked by the
 * caller's geometry; strides of inputs a kind does not read are zero). */
static void conv_key(int64_t *key, int64_t kind, int32_t nthreads, const cpu_conv_geom *g,
                     int has_bias) {
  memset(key, 0, sizeof(int64_t) * PLAN_KEY_MAX);
  int32_t k = 0;
  key[k++] = kind;
  key[k++] = ((int64_t)nthreads << 8) | (g->bf16 << 5) | (has_bias << 4) | (g->transposed << 3) | g->ns;
  key[k++] = g->n;
  key[k++] = g->ic;
  key[k++] = g->oc;
  key[k++] = g->groups;
  const int64_t *arr[6] = {g->in, g->k, g->s, g->p, g->d, g->op};
  for (int32_t a = 0; a < 6; a++)
    for (int32_t i = 0; i < 3; i += 2)
      key[k++] = (arr[a][i] << 32) | (i + 1 < 3 ? arr[a][i + 1] : 0);
  const int64_t *st[3] = {kind == CONV_BWD_DATA ? NULL : g->xs, kind == CONV_BWD_W ? NULL : g->ws,
                          kind == CONV_FWD ? NULL : g->ys};
  for (int32_t a = 0; a < 3; a++)
    for (int32_t i = 0; i < g->ns + 2; i += 2)
      key[k++] = st[a] ? (st[a][i] << 32) | (i + 1 < g->ns + 2 ? st[a][i + 1] : 0) : 0;
}

int cpu_dnnl_conv_fwd(cpu_dnnl_cache *c, const tabi_host_api *h, int32_t nthreads,
                      const cpu_conv_geom *g, const void *x, const void *w, const float *bias,
                      float *y) {
  int64_t key[PLAN_KEY_MAX];
  conv_key(key, CONV_FWD, nthreads, g, bias != NULL);
  conv_arg arg = {g, bias != NULL};
  void *ptrs[4] = {(void *)x, (void *)w, (void *)bias, y};
  return cached_run(c, h, nthreads, key, build_conv_fwd, &arg, ptrs);
}

int cpu_dnnl_conv_bwd_data(cpu_dnnl_cache *c, const tabi_host_api *h, int32_t nthreads,
                           const cpu_conv_geom *g, const void *dy, const void *w, float *dx) {
  int64_t key[PLAN_KEY_MAX];
  conv_key(key, CONV_BWD_DATA, nthreads, g, 0);
  conv_arg arg = {g, 0};
  void *ptrs[3] = {(void *)dy, (void *)w, dx};
  return cached_run(c, h, nthreads, key, build_conv_bwd_data, &arg, ptrs);
}

int cpu_dnnl_conv_bwd_weights(cpu_dnnl_cache *c, const tabi_host_api *h, int32_t nthreads,
                              const cpu_conv_geom *g, const void *x, const void *dy, float *dw,
                              float *db) {
  int64_t key[PLAN_KEY_MAX];
  conv_key(key, CONV_BWD_W, nthreads, g, db != NULL);
  conv_arg arg = {g, db != NULL};
  void *ptrs[4] = {(void *)x, (void *)dy, dw, db};
  return cached_run(c, h, nthreads, key, build_conv_bwd_w, &arg, ptrs);
}
