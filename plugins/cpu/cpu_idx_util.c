/* plugins/cpu/cpu_idx_util.c: the indexing kernels' shared pieces (cpu_idx.h):
 * threaded contiguous clone, dim collapsing, strided block copy / add. */
#include <string.h>

#include <tabi/half.h>

#include "cpu_idx.h"

int32_t cpu_idx_collapse(int32_t nd, int64_t *shape, int32_t nops, int64_t (*st)[CPU_IDX_MAX_DIMS]) {
  int32_t n = 0;
  for (int32_t d = 0; d < nd; d++) {
    if (shape[d] == 1) continue;
    int merge = n > 0;
    for (int32_t k = 0; merge && k < nops; k++) merge = st[k][n - 1] == st[k][d] * shape[d];
    if (merge) {
      shape[n - 1] *= shape[d];
      for (int32_t k = 0; k < nops; k++) st[k][n - 1] = st[k][d];
      continue;
    }
    shape[n] = shape[d];
    for (int32_t k = 0; k < nops; k++) st[k][n] = st[k][d];
    n++;
  }
  return n;
}

/* --- clone ------------------------------------------------------------------------ */

typedef struct clone_job {
  const char *src;
  char *dst;
  int64_t es, inner, st_in;
  int32_t nd; /* outer dims (collapsed), then the inner one */
  int64_t shape[CPU_IDX_MAX_DIMS], st[CPU_IDX_MAX_DIMS];
} clone_job;

static void clone_flat(void *arg, int64_t b, int64_t e) { /* bytes */
  const clone_job *j = arg;
  memcpy(j->dst + b, j->src + b, (size_t)(e - b));
}

static void clone_rows(void *arg, int64_t b, int64_t e) {
  const clone_job *j = arg;
  for (int64_t r = b; r < e; r++) {
    int64_t off = 0, q = r;
    for (int32_t d = j->nd - 1; d >= 0; d--) {
      off += (q % j->shape[d]) * j->st[d];
      q /= j->shape[d];
    }
    cpu_gather_strided(j->dst + r * j->inner * j->es, j->src + off * j->es, j->inner, j->st_in, j->es);
  }
}

tabi_status cpu_idx_clone(const cpu_ctx *c, const tabi_tensor *self, tabi_tensor **out) {
  tabi_dtype dt = tabi_tensor_dtype(self);
  tabi_status st = cpu_empty(c, self, dt, self->dl.ndim, self->dl.shape, out);
  if (st != TABI_OK) return st;
  clone_job j;
  memset(&j, 0, sizeof j);
  j.src = tabi_tensor_data(self);
  j.dst = tabi_tensor_data(*out);
  j.es = tabi_dtype_size(dt);
  int64_t n = tabi_tensor_numel(self);
  if (n == 0) return TABI_OK;
  if (cpu_contig(self)) {
    cpu_parallel_for(c->pool, n * j.es, 1 << 18, clone_flat, &j);
    return TABI_OK;
  }
  int64_t st1[1][CPU_IDX_MAX_DIMS];
  int32_t nd = self->dl.ndim;
  memcpy(j.shape, self->dl.shape, sizeof(int64_t) * (size_t)nd);
  memcpy(st1[0], self->dl.strides, sizeof(int64_t) * (size_t)nd);
  nd = cpu_idx_collapse(nd, j.shape, 1, st1);
  if (nd == 0) {
    memcpy(j.dst, j.src, (size_t)j.es);
    return TABI_OK;
  }
  memcpy(j.st, st1[0], sizeof j.st);
  j.nd = nd - 1;
  j.inner = j.shape[nd - 1];
  j.st_in = st1[0][nd - 1];
  cpu_parallel_for(c->pool, n / j.inner, 1 + 65536 / j.inner, clone_rows, &j);
  return TABI_OK;
}

/* --- strided block copy / add ----------------------------------------------------- */

int cpu_idx_add_ok(tabi_dtype dt) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: case TABI_DTYPE_FLOAT64: case TABI_DTYPE_FLOAT16:
    case TABI_DTYPE_BFLOAT16: case TABI_DTYPE_INT64: case TABI_DTYPE_INT32: case TABI_DTYPE_INT16:
    case TABI_DTYPE_INT8: case TABI_DTYPE_UINT8: case TABI_DTYPE_BOOL:
      return 1;
    default:
      return 0;
  }
}

/* One innermost line of n elements. */
static void line_copy(int64_t es, char *d, int64_t ds, const char *s, int64_t ss, int64_t n) {
  if (ds == 1 && ss == 1) {
    memcpy(d, s, (size_t)(n * es));
    return;
  }
#define LC(T)                                                                \
  do {                                                                       \
    T *dd = (T *)(void *)d;                                                  \
    const T *sp = (const T *)(const void *)s;                                \
    for (int64_t i = 0; i < n; i++) dd[i * ds] = sp[i * ss];                 \
  } while (0)
  switch (es) {
    case 1: LC(uint8_t); break;
    case 2: LC(uint16_t); break;
    case 4: LC(uint32_t); break;
    case 8: LC(uint64_t); break;
    default:
      for (int64_t i = 0; i < n; i++) memcpy(d + i * ds * es, s + i * ss * es, (size_t)es);
      break;
  }
#undef LC
}

static void line_add(tabi_dtype dt, char *d, int64_t ds, const char *s, int64_t ss, int64_t n) {
#define LA(T, EXPR)                                                          \
  do {                                                                       \
    T *dd = (T *)(void *)d;                                                  \
    const T *sp = (const T *)(const void *)s;                                \
    for (int64_t i = 0; i < n; i++) {                                        \
      T a = dd[i * ds], b = sp[i * ss];                                      \
      dd[i * ds] = (EXPR);                                                   \
    }                                                                        \
  } while (0)
  switch (dt) {
    case TABI_DTYPE_FLOAT32: LA(float, a + b); break;
    case TABI_DTYPE_FLOAT64: LA(double, a + b); break;
    case TABI_DTYPE_FLOAT16: LA(uint16_t, tabi_f32_to_f16(tabi_f16_to_f32(a) + tabi_f16_to_f32(b))); break;
    case TABI_DTYPE_BFLOAT16: LA(uint16_t, tabi_f32_to_bf16(tabi_bf16_to_f32(a) + tabi_bf16_to_f32(b))); break;
    case TABI_DTYPE_INT64: LA(int64_t, (int64_t)((uint64_t)a + (uint64_t)b)); break;
    case TABI_DTYPE_INT32: LA(int32_t, (int32_t)((uint32_t)a + (uint32_t)b)); break;
    case TABI_DTYPE_INT16: LA(int16_t, (int16_t)(uint16_t)((uint32_t)(uint16_t)a + (uint16_t)b)); break;
    case TABI_DTYPE_INT8: LA(int8_t, (int8_t)(uint8_t)((uint32_t)(uint8_t)a + (uint8_t)b)); break;
    case TABI_DTYPE_UINT8: LA(uint8_t, (uint8_t)(a + b)); break;
    case TABI_DTYPE_BOOL: LA(uint8_t, (uint8_t)((a | b) != 0)); break;
    default: break;
  }
#undef LA
}

void cpu_idx_block(int op, tabi_dtype dt, int64_t es, char *dst, const int64_t *dst_st,
                   const char *src, const int64_t *src_st, const int64_t *shape, int32_t nd) {
  if (nd == 0) {
    if (op == CPU_IDX_COPY) memcpy(dst, src, (size_t)es);
    else line_add(dt, dst, 1, src, 1, 1);
    return;
  }
  if (nd == 1) { /* the common case, without the odometer's setup */
    if (op == CPU_IDX_COPY) line_copy(es, dst, dst_st[0], src, src_st[0], shape[0]);
    else line_add(dt, dst, dst_st[0], src, src_st[0], shape[0]);
    return;
  }
  int64_t idx[CPU_IDX_MAX_DIMS] = {0}, n = shape[nd - 1], ds = dst_st[nd - 1], ss = src_st[nd - 1];
  int64_t doff = 0, soff = 0;
  for (;;) {
    if (op == CPU_IDX_COPY) line_copy(es, dst + doff * es, ds, src + soff * es, ss, n);
    else line_add(dt, dst + doff * es, ds, src + soff * es, ss, n);
    int32_t d = nd - 2;
    for (; d >= 0; d--) {
      doff += dst_st[d];
      soff += src_st[d];
      if (++idx[d] < shape[d]) break;
      doff -= dst_st[d] * shape[d];
      soff -= src_st[d] * shape[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}
