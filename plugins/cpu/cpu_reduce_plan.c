/* plugins/cpu/cpu_reduce_plan.c: dims -> plan, and the threaded driver of the
 * float reductions (see cpu_reduce_plan.h). */
#include "cpu_reduce_plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/half.h>

#include "cpu_reduce_kern.h"

int cpu_red_dims(const tabi_tensor *t, const tabi_value *dims, int empty_is_all, int keepdim,
                 uint8_t *reduced, int32_t *out_ndim, int64_t *out_shape) {
  int32_t nd = t->dl.ndim;
  if (nd > 16) return 0;
  memset(reduced, 0, 16);
  const int64_t *list = NULL;
  int64_t n = 0;
  if (dims->tag == TABI_TAG_INT) {
    list = &dims->u.i;
    n = 1;
  } else if (dims->tag == TABI_TAG_INT_LIST) {
    list = tabi_value_ints(dims);
    n = dims->u.list.len;
  } else if (dims->tag != TABI_TAG_NONE) {
    return 0;
  }
  int all = n == 0 && (dims->tag == TABI_TAG_NONE || empty_is_all);
  for (int64_t k = 0; k < n; k++) {
    int32_t d = cpu_wrap_dim(list[k], nd);
    if (d < 0 || nd == 0 || reduced[d]) return 0;
    reduced[d] = 1;
  }
  int32_t on = 0;
  for (int32_t d = 0; d < nd; d++) {
    if (all) reduced[d] = 1;
    if (!reduced[d]) out_shape[on++] = t->dl.shape[d];
    else if (keepdim) out_shape[on++] = 1;
  }
  *out_ndim = on;
  return 1;
}

int cpu_red_plan_make(const tabi_tensor *t, const uint8_t *reduced, int ordered, cpu_red_plan *p) {
  int64_t ks[16], kst[16], rs[16], rst[16];
  int nk = 0, nr = 0;
  for (int32_t d = 0; d < t->dl.ndim; d++) {
    int64_t s = t->dl.shape[d], st = t->dl.strides[d];
    if (s == 1) continue;
    if (reduced[d]) {
      rs[nr] = s;
      rst[nr++] = st;
    } else if (nk > 0 && kst[nk - 1] == s * st) { /* merges with the kept dim before */
      ks[nk - 1] *= s;
      kst[nk - 1] = st;
    } else {
      ks[nk] = s;
      kst[nk++] = st;
    }
  }
  /* reduced dims: by decreasing stride (unless their order matters), then merged */
  for (int i = 1; i < nr && !ordered; i++)
    for (int j = i; j > 0 && rst[j] > rst[j - 1]; j--) {
      int64_t a = rs[j], b = rst[j];
      rs[j] = rs[j - 1]; rst[j] = rst[j - 1];
      rs[j - 1] = a; rst[j - 1] = b;
    }
  int m = 0;
  for (int i = 0; i < nr; i++) {
    if (m > 0 && rst[m - 1] == rs[i] * rst[i]) {
      rs[m - 1] *= rs[i];
      rst[m - 1] = rst[i];
    } else {
      rs[m] = rs[i];
      rst[m++] = rst[i];
    }
  }
  nr = m;
  memset(p, 0, sizeof *p);
  p->R0 = 1;
  if (nr == 2 && !ordered && rst[1] == 1) { /* runs of rs[1], rs[0] of them per output */
    p->R0 = rs[0];
    p->sr0 = rst[0];
    rs[0] = rs[1];
    rst[0] = rst[1];
    nr = 1;
  }
  if (nr > 1 || nk > 2) return 0;
  p->R = nr ? rs[0] : 1;
  p->sr = nr ? rst[0] : 1;
  if (p->R == 1) p->sr = 1;
  if (p->sr == 1) {
    p->n1 = nk >= 1 ? ks[0] : 1;
    p->s1 = nk >= 1 ? kst[0] : 0;
    p->n2 = nk == 2 ? ks[1] : 1;
    p->s2 = nk == 2 ? kst[1] : 0;
  } else if (nk >= 1 && kst[nk - 1] == 1) {
    p->cols = 1;
    p->n2 = ks[nk - 1];
    p->s2 = 1;
    p->n1 = nk == 2 ? ks[0] : 1;
    p->s1 = nk == 2 ? kst[0] : 0;
  } else {
    return 0;
  }
  p->nout = p->n1 * p->n2;
  return 1;
}

void cpu_red_store(tabi_dtype dt, void *p, int64_t i, double v) {
  switch (dt) {
    case TABI_DTYPE_FLOAT64: ((double *)p)[i] = v; break;
    case TABI_DTYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
    case TABI_DTYPE_FLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_f16((float)v); break;
    default: ((uint16_t *)p)[i] = tabi_f32_to_bf16((float)v); break;
  }
}

static double combine(int kind, double acc, double v) {
  if (kind == CPU_RED_SUM || kind == CPU_RED_SUMD) return acc + v;
  if (acc != acc) return acc;
  if (v != v) return v;
  return kind == CPU_RED_MIN ? (v < acc ? v : acc) : (v > acc ? v : acc);
}

typedef struct red_job {
  const cpu_ctx *c;
  const cpu_red_plan *p;
  tabi_dtype dt, odt;
  const char *x;
  int64_t es;
  int kind;
  double div;
  void *out;
  int64_t nch, chunk; /* chunks per row (rows) or per column group (cols), their length */
  int64_t nsub;       /* rows: partials per output (R0 * nch) */
  int64_t nb;         /* cols: column blocks per outer index */
  double *part;
} red_job;

/* rows: task k = output k / nsub, run r0 and chunk ch of k % nsub */
static void rows_range(void *arg, int64_t b, int64_t e) {
  const red_job *j = arg;
  const cpu_red_plan *p = j->p;
  for (int64_t k = b; k < e; k++) {
    int64_t o = k / j->nsub, r0 = (k % j->nsub) / j->nch, ch = k % j->nch;
    int64_t base = (o / p->n2) * p->s1 + (o % p->n2) * p->s2 + r0 * p->sr0 + ch * j->chunk;
    int64_t n = p->R - ch * j->chunk < j->chunk ? p->R - ch * j->chunk : j->chunk;
    const char *x = j->x + base * j->es;
    double v = j->kind == CPU_RED_SUM    ? cpu_red_sum(j->dt, x, n)
               : j->kind == CPU_RED_SUMD ? cpu_red_sumd(j->dt, x, n)
                                         : cpu_red_max(j->dt, x, n, j->kind == CPU_RED_MIN);
    if (j->nsub == 1) cpu_red_store(j->odt, j->out, o, v / j->div);
    else j->part[k] = v;
  }
}

/* cols: task k = ((o1 * nb) + block) * nch + chunk */
static void cols_range(void *arg, int64_t b, int64_t e) {
  const red_job *j = arg;
  const cpu_red_plan *p = j->p;
  double acc[CPU_RED_CB];
  for (int64_t k = b; k < e; k++) {
    int64_t ch = k % j->nch, blk = (k / j->nch) % j->nb, o1 = k / j->nch / j->nb;
    int64_t c0 = blk * CPU_RED_CB, w = p->n2 - c0 < CPU_RED_CB ? p->n2 - c0 : CPU_RED_CB;
    int64_t r0 = ch * j->chunk, rows = p->R - r0 < j->chunk ? p->R - r0 : j->chunk;
    const char *x = j->x + (o1 * p->s1 + r0 * p->sr + c0) * j->es;
    if (j->kind == CPU_RED_SUM || j->kind == CPU_RED_SUMD) {
      for (int64_t i = 0; i < w; i++) acc[i] = 0.0;
      cpu_red_col_sum(j->c, j->dt, x, rows, p->sr * j->es, w, acc);
    } else {
      cpu_red_col_max(j->c, j->dt, x, rows, p->sr * j->es, w, acc, j->kind == CPU_RED_MIN);
    }
    if (j->nch == 1) {
      for (int64_t i = 0; i < w; i++) cpu_red_store(j->odt, j->out, o1 * p->n2 + c0 + i, acc[i] / j->div);
    } else {
      double *dst = j->part + (ch * p->n1 + o1) * p->n2 + c0;
      memcpy(dst, acc, (size_t)w * sizeof(double));
    }
  }
}

tabi_status cpu_red_run(const cpu_ctx *c, const tabi_tensor *t, const cpu_red_plan *p, int kind,
                        double div, tabi_tensor *out) {
  red_job j = {c, p, tabi_tensor_dtype(t), tabi_tensor_dtype(out), tabi_tensor_data(t),
               tabi_dtype_size(tabi_tensor_dtype(t)), kind, div, tabi_tensor_data(out),
               1, p->R, 1, 1, NULL};
  int64_t tasks;
  if (!p->cols) {
    if (p->R > CPU_REDUCE_CHUNK) {
      j.nch = (p->R + CPU_REDUCE_CHUNK - 1) / CPU_REDUCE_CHUNK;
      j.chunk = CPU_REDUCE_CHUNK;
    }
    j.nsub = p->R0 * j.nch;
    tasks = p->nout * j.nsub;
  } else {
    j.nb = (p->n2 + CPU_RED_CB - 1) / CPU_RED_CB;
    /* few column blocks and a long reduction: cut the rows too (by shape only) */
    if (p->n1 * j.nb < 16 && p->R >= 512) {
      j.nch = p->R / 256;
      if (j.nch > 64) j.nch = 64;
      j.chunk = (p->R + j.nch - 1) / j.nch;
      j.nch = (p->R + j.chunk - 1) / j.chunk;
    }
    tasks = p->n1 * j.nb * j.nch;
  }
  size_t nparts = p->cols ? (j.nch > 1 ? (size_t)(j.nch * p->nout) : 0)
                          : (j.nsub > 1 ? (size_t)tasks : 0);
  if (nparts) {
    j.part = malloc(nparts * sizeof(double));
    if (!j.part) return TABI_ERR(c->host, TABI_ERR_OUT_OF_MEMORY, "cpu: reduction: out of memory");
  }
  int64_t per_task = p->cols ? (j.chunk < p->R ? j.chunk : p->R) * (p->n2 < CPU_RED_CB ? p->n2 : CPU_RED_CB)
                             : (j.chunk < p->R ? j.chunk : p->R);
  cpu_parallel_for(c->pool, tasks, 1 + 32768 / (per_task > 0 ? per_task : 1), p->cols ? cols_range : rows_range, &j);
  if (nparts) {
    int64_t n = p->cols ? j.nch : j.nsub;
    for (int64_t o = 0; o < p->nout; o++) {
      double acc = j.part[p->cols ? o : o * n];
      for (int64_t ch = 1; ch < n; ch++)
        acc = combine(kind, acc, j.part[p->cols ? ch * p->nout + o : o * n + ch]);
      cpu_red_store(j.odt, j.out, o, acc / div);
    }
    free(j.part);
  }
  return TABI_OK;
}
