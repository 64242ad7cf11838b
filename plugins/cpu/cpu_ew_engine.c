/* plugins/cpu/cpu_ew_engine.c: the fast elementwise engine (see cpu_ew_engine.h).
 *
 * Iteration: the result is contiguous in the broadcast shape; every operand gets
 * an element stride per result dim (0 where it broadcasts), size-1 dims are
 * dropped and neighbours merged wherever all operands are linear across them
 * (so contiguous operands, row and column biases become one or two dims). The
 * flat range [0, numel) is split over the pool; a range walks rows of the
 * innermost dim in blocks of CPU_EW_BLOCK elements.
 */
#define _GNU_SOURCE
#include "cpu_ew_engine.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/half.h>

#include "../../reference/ref_elementwise.h"

/* Results at least this large are stored non-temporally: beyond half of a
 * Zen CCD's 32 MB L3 the output would evict the inputs and be written back
 * anyway, and the read for ownership of each output line (a quarter of add's
 * traffic, a third of exp's) is saved. */
#define CPU_EW_NT_BYTES (16 << 20)

static void ew_sfence(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_sfence();
#else
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* --- the instruction set, chosen once per process ------------------------------ */

static const cpu_ew_isa_table *ew_isa_best;
static int64_t ew_nt_bytes;
static pthread_once_t ew_isa_once = PTHREAD_ONCE_INIT;

static void ew_isa_pick(void) {
  __builtin_cpu_init();
  /* TABI_CPU_NT_BYTES: the streaming-store threshold (tests set it low) */
  const char *nt = getenv("TABI_CPU_NT_BYTES");
  ew_nt_bytes = nt ? strtoll(nt, NULL, 10) : CPU_EW_NT_BYTES;
  const char *cap = getenv("TABI_CPU_ISA");
  int allow512 = !cap || strcmp(cap, "avx512") == 0;
  int allow2 = allow512 || (cap && strcmp(cap, "avx2") == 0);
  if (allow512 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c"))
    /* with AVX512_BF16: the same loops, bfloat16 stores by vcvtneps2bf16 */
    ew_isa_best = __builtin_cpu_supports("avx512bf16") ? &cpu_ew_isa_avx512bf : &cpu_ew_isa_avx512;
  else if (allow2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
           __builtin_cpu_supports("f16c"))
    ew_isa_best = &cpu_ew_isa_avx2;
  else
    ew_isa_best = &cpu_ew_isa_scalar;
}

const cpu_ew_isa_table *cpu_ew_isa(void) {
  pthread_once(&ew_isa_once, ew_isa_pick);
  return ew_isa_best;
}

int64_t cpu_ew_nt_bytes(void) {
  pthread_once(&ew_isa_once, ew_isa_pick);
  return ew_nt_bytes;
}

/* --- conversions for the double and int64 loops -------------------------------- */

static void ld_i(int64_t *d, const char *p, int64_t s, tabi_dtype dt, int64_t m);

/* Elements of dtype dt as doubles, cast to the compute dtype cd as ATen casts
 * them (floating sources only ever widen here: promotion never narrows a
 * dimensioned operand); integers go int64 -> float once (static_cast<float>),
 * then to float16/bfloat16, or straight to double for float64. */
static void ld_d(double *d, const char *p, int64_t s, tabi_dtype dt, tabi_dtype cd, int64_t m) {
  if (!tabi_dtype_is_floating(dt)) {
    int64_t *t = (int64_t *)(void *)d;
    ld_i(t, p, s, dt, m);
    for (int64_t i = 0; i < m; i++) {
      int64_t v = t[i];
      float f = (float)v;
      if (cd == TABI_DTYPE_FLOAT16) f = tabi_f16_to_f32(tabi_f32_to_f16(f));
      else if (cd == TABI_DTYPE_BFLOAT16) f = tabi_bf16_to_f32(tabi_f32_to_bf16(f));
      d[i] = cd == TABI_DTYPE_FLOAT64 ? (double)v : (double)f;
    }
    return;
  }
  switch (dt) {
    case TABI_DTYPE_FLOAT32: for (int64_t i = 0; i < m; i++) d[i] = ((const float *)p)[i * s]; break;
    case TABI_DTYPE_FLOAT64: for (int64_t i = 0; i < m; i++) d[i] = ((const double *)p)[i * s]; break;
    case TABI_DTYPE_FLOAT16:
      for (int64_t i = 0; i < m; i++) d[i] = tabi_f16_to_f32(((const uint16_t *)p)[i * s]);
      break;
    default:
      for (int64_t i = 0; i < m; i++) d[i] = tabi_bf16_to_f32(((const uint16_t *)p)[i * s]);
      break;
  }
}

/* double -> float16/bfloat16 through float32, as c10 and the reference */
static void st_d(char *o, tabi_dtype dt, const double *x, int64_t m) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: for (int64_t i = 0; i < m; i++) ((float *)o)[i] = (float)x[i]; break;
    case TABI_DTYPE_FLOAT64: memcpy(o, x, (size_t)m * 8); break;
    case TABI_DTYPE_FLOAT16:
      for (int64_t i = 0; i < m; i++) ((uint16_t *)o)[i] = tabi_f32_to_f16((float)x[i]);
      break;
    case TABI_DTYPE_BFLOAT16:
      for (int64_t i = 0; i < m; i++) ((uint16_t *)o)[i] = tabi_f32_to_bf16((float)x[i]);
      break;
    default: for (int64_t i = 0; i < m; i++) ((uint8_t *)o)[i] = x[i] != 0; break; /* bool */
  }
}

static void ld_i(int64_t *d, const char *p, int64_t s, tabi_dtype dt, int64_t m) {
  switch (dt) {
    case TABI_DTYPE_BOOL: for (int64_t i = 0; i < m; i++) d[i] = ((const uint8_t *)p)[i * s] != 0; break;
    case TABI_DTYPE_UINT8: for (int64_t i = 0; i < m; i++) d[i] = ((const uint8_t *)p)[i * s]; break;
    case TABI_DTYPE_INT8: for (int64_t i = 0; i < m; i++) d[i] = ((const int8_t *)p)[i * s]; break;
    case TABI_DTYPE_INT16: for (int64_t i = 0; i < m; i++) d[i] = ((const int16_t *)p)[i * s]; break;
    case TABI_DTYPE_INT32: for (int64_t i = 0; i < m; i++) d[i] = ((const int32_t *)p)[i * s]; break;
    default: for (int64_t i = 0; i < m; i++) d[i] = ((const int64_t *)p)[i * s]; break;
  }
}

/* int64 -> the dtype's width, wrapping (gcc defines the narrowing conversions) */
static void st_i(char *o, tabi_dtype dt, const int64_t *x, int64_t m) {
  switch (dt) {
    case TABI_DTYPE_BOOL: for (int64_t i = 0; i < m; i++) ((uint8_t *)o)[i] = x[i] != 0; break;
    case TABI_DTYPE_UINT8: for (int64_t i = 0; i < m; i++) ((uint8_t *)o)[i] = (uint8_t)x[i]; break;
    case TABI_DTYPE_INT8: for (int64_t i = 0; i < m; i++) ((int8_t *)o)[i] = (int8_t)x[i]; break;
    case TABI_DTYPE_INT16: for (int64_t i = 0; i < m; i++) ((int16_t *)o)[i] = (int16_t)x[i]; break;
    case TABI_DTYPE_INT32: for (int64_t i = 0; i < m; i++) ((int32_t *)o)[i] = (int32_t)x[i]; break;
    default: memcpy(o, x, (size_t)m * 8); break;
  }
}

/* --- the job ------------------------------------------------------------------- */

enum { P_VEC, P_DBL, P_INT, P_WHERE };



typedef struct ew_job {
  const cpu_ew_call *e;
  const cpu_ew_isa_table *isa;
  cpu_ew_args args;
  int32_t path, nin, nd;
  int64_t shape[REF_MAX_DIMS];
  char *base[4];              /* 0: the result, 1..3: the inputs */
  int32_t esz[4];
  tabi_dtype dt[4];            /* storage dtypes */
  tabi_dtype want[3];          /* the dtype each input computes in */
  int64_t str[4][REF_MAX_DIMS];
  _Alignas(16) unsigned char sbuf[3][16]; /* Scalars and 0-d tensors, as one element */
} ew_job;

static int vec_dt(tabi_dtype dt) {
  return dt == TABI_DTYPE_FLOAT32 ? CPU_EW_F32 : dt == TABI_DTYPE_FLOAT16 ? CPU_EW_F16 : CPU_EW_BF16;
}

/* Copies m elements of esz bytes at stride s into a contiguous buffer. */
static void gather(unsigned char *dst, const char *p, int64_t s, int32_t esz, int64_t m) {
  switch (esz) {
    case 1: for (int64_t i = 0; i < m; i++) dst[i] = ((const uint8_t *)p)[i * s]; break;
    case 2: for (int64_t i = 0; i < m; i++) ((uint16_t *)dst)[i] = ((const uint16_t *)p)[i * s]; break;
    case 4: for (int64_t i = 0; i < m; i++) ((uint32_t *)dst)[i] = ((const uint32_t *)p)[i * s]; break;
    default: for (int64_t i = 0; i < m; i++) ((uint64_t *)dst)[i] = ((const uint64_t *)p)[i * s]; break;
  }
}

/* One row piece: len elements from pointers p (inner strides j->str[k][nd-1]);
 * nt: the vector loops store non-temporally (p[0] is 64-byte aligned). */
static void ew_row_part(const ew_job *j, char *const *p, int64_t len, int32_t nt) {
  _Alignas(64) unsigned char g[4][CPU_EW_BLOCK * 8]; /* g[3]: a cast's widened block */
  cpu_ew_args args = j->args;
  args.nt = nt;
  const int32_t in = j->nd - 1;
  for (int64_t off = 0; off < len; off += CPU_EW_BLOCK) {
    int64_t m = len - off < CPU_EW_BLOCK ? len - off : CPU_EW_BLOCK;
    char *o = p[0] + off * j->esz[0];
    if (j->path == P_DBL || j->path == P_INT) {
      double *x = (double *)(void *)g[0], *y = (double *)(void *)g[1];
      double *z = (double *)(void *)g[2];
      int64_t s1 = j->str[1][in], s2 = j->nin > 1 ? j->str[2][in] : 0;
      int64_t s3 = j->nin > 2 ? j->str[3][in] : 0;
      if (j->path == P_DBL) {
        ld_d(x, p[1] + off * s1 * j->esz[1], s1, j->dt[1], j->e->cd, m);
        if (j->nin > 1) ld_d(y, p[2] + off * s2 * j->esz[2], s2, j->dt[2], j->e->cd, m);
        if (j->nin > 2) ld_d(z, p[3] + off * s3 * j->esz[3], s3, j->dt[3], j->e->cd, m);
        if (j->nin > 2) j->e->dfn3(x, y, z, m, j->e);
        else j->e->dfn(x, y, m, j->e);
        st_d(o, j->dt[0], x, m);
      } else {
        int64_t *xi = (int64_t *)(void *)g[0], *yi = (int64_t *)(void *)g[1];
        int64_t *zi = (int64_t *)(void *)g[2];
        ld_i(xi, p[1] + off * s1 * j->esz[1], s1, j->dt[1], m);
        if (j->nin > 1) ld_i(yi, p[2] + off * s2 * j->esz[2], s2, j->dt[2], m);
        if (j->nin > 2) ld_i(zi, p[3] + off * s3 * j->esz[3], s3, j->dt[3], m);
        if (j->nin > 2) j->e->ifn3(xi, yi, zi, m, j->e);
        else j->e->ifn(xi, yi, m, j->e);
        st_i(o, j->dt[0], xi, m);
      }
      continue;
    }
    const void *q[3] = {NULL, NULL, NULL};
    int32_t smask = 0;
    for (int32_t k = 0; k < j->nin; k++) {
      int64_t s = j->str[k + 1][in];
      const char *src = p[k + 1] + off * s * j->esz[k + 1];
      if (j->dt[k + 1] != j->want[k]) {
        /* a promoted operand: cast a block into the compute dtype's storage
         * (integers only for where: the vector loops compute in floats) */
        if (tabi_dtype_is_floating(j->e->cd)) {
          double *t = (double *)(void *)g[3];
          ld_d(t, src, s, j->dt[k + 1], j->e->cd, m);
          st_d((char *)g[k], j->e->cd, t, m);
        } else {
          int64_t *t = (int64_t *)(void *)g[3];
          ld_i(t, src, s, j->dt[k + 1], m);
          st_i((char *)g[k], j->e->cd, t, m);
        }
        q[k] = g[k];
      } else if (s == 1) {
        q[k] = src;
      } else if (s == 0 && j->path != P_VEC) {
        q[k] = src;
        smask |= 1 << k;
      } else if (s == 0 && j->nin == 2) {
        q[k] = src;
        smask |= 1 << k;
      } else {
        gather(g[k], src, s, j->esz[k + 1], m);
        q[k] = g[k];
      }
    }
    if (j->path == P_WHERE) j->isa->where(o, q[0], q[1], q[2], m, smask, j->esz[0]);
    else if (j->nin == 1) j->isa->unary(o, q[0], m, &args);
    else j->isa->binary(o, q[0], q[1], m, smask, &args);
  }
}

/* A row: with streaming stores on, the elements up to the result's next 64-byte
 * boundary first with plain stores, the rest streamed (blocks keep the alignment:
 * CPU_EW_BLOCK * esz is a multiple of 64). */
static void ew_row(const ew_job *j, char *const *p, int64_t len) {
  uintptr_t a = (uintptr_t)p[0];
  if (!j->args.nt || a % (uintptr_t)j->esz[0] != 0) {
    ew_row_part(j, p, len, 0);
    return;
  }
  int64_t h = (int64_t)((64 - a % 64) % 64) / j->esz[0];
  if (h > len) h = len;
  if (h > 0) ew_row_part(j, p, h, 0);
  if (len == h) return;
  const int32_t in = j->nd - 1;
  char *q[4];
  for (int32_t k = 0; k <= j->nin; k++) q[k] = p[k] + h * j->str[k][in] * j->esz[k];
  ew_row_part(j, q, len - h, 1);
}

static void ew_range(void *arg, int64_t begin, int64_t end) {
  const ew_job *j = arg;
  const int32_t nd = j->nd, nops = j->nin + 1;
  int64_t idx[REF_MAX_DIMS];
  int64_t rem = begin;
  for (int32_t d = nd - 1; d >= 0; d--) {
    idx[d] = rem % j->shape[d];
    rem /= j->shape[d];
  }
  int64_t pos = begin;
  while (pos < end) {
    char *p[4];
    for (int32_t k = 0; k < nops; k++) {
      int64_t off = 0;
      for (int32_t d = 0; d < nd; d++) off += idx[d] * j->str[k][d];
      p[k] = j->base[k] + off * j->esz[k];
    }
    int64_t len = j->shape[nd - 1] - idx[nd - 1];
    if (len > end - pos) len = end - pos;
    ew_row(j, p, len);
    pos += len;
    idx[nd - 1] += len;
    for (int32_t d = nd - 1; d > 0 && idx[d] >= j->shape[d]; d--) {
      idx[d] = 0;
      idx[d - 1]++;
    }
  }
  /* streamed lines are weakly ordered: drain them before the pool's join */
  if (j->args.nt) ew_sfence();
}

/* --- setup ------------------------------------------------------------------------ */

/* The value of a Scalar or 0-d tensor cast to `want`, stored as one element. */
static int scalar_elem(const tabi_value *v, tabi_dtype want, unsigned char *buf) {
  ref_ew_val x;
  if (v->tag == TABI_TAG_TENSOR) {
    x = ref_ew_load(v->u.t, 0, want);
  } else if (v->tag == TABI_TAG_BOOL || v->tag == TABI_TAG_INT || v->tag == TABI_TAG_FLOAT) {
    tabi_dtype sdt;
    ref_ew_val s = ref_ew_scalar(v, &sdt);
    x = ref_ew_cast(s, sdt, want);
  } else {
    return 0;
  }
  if (tabi_dtype_is_floating(want)) ref_store_f_ptr(buf, want, x.f);
  else ref_store_i_ptr(buf, want, x.i);
  return 1;
}

static int ew_coalesce(ew_job *j) {
  int32_t nd = 0, nops = j->nin + 1;
  for (int32_t d = 0; d < j->nd; d++) {
    if (j->shape[d] == 1) continue;
    if (nd > 0) {
      int ok = 1;
      for (int32_t k = 0; k < nops && ok; k++)
        ok = j->str[k][nd - 1] == j->str[k][d] * j->shape[d];
      if (ok) {
        j->shape[nd - 1] *= j->shape[d];
        for (int32_t k = 0; k < nops; k++) j->str[k][nd - 1] = j->str[k][d];
        continue;
      }
    }
    j->shape[nd] = j->shape[d];
    for (int32_t k = 0; k < nops; k++) j->str[k][nd] = j->str[k][d];
    nd++;
  }
  if (nd == 0) {
    nd = 1;
    j->shape[0] = 1;
    for (int32_t k = 0; k < nops; k++) j->str[k][0] = 0;
  }
  j->nd = nd;
  return nd;
}

/* The bytes [lo, hi) that tensor t's elements span. */
static void span_of(const tabi_tensor *t, uintptr_t *lo, uintptr_t *hi) {
  intptr_t a = 0, b = 0;
  for (int32_t d = 0; d < t->dl.ndim; d++) {
    intptr_t ext = (intptr_t)(t->dl.shape[d] - 1) * (intptr_t)t->dl.strides[d];
    if (ext < 0) a += ext;
    else b += ext;
  }
  intptr_t es = (intptr_t)tabi_dtype_size(tabi_tensor_dtype(t));
  uintptr_t base = (uintptr_t)tabi_tensor_data(t);
  *lo = base + (uintptr_t)(a * es);
  *hi = base + (uintptr_t)((b + 1) * es);
}

/* e->dst can take the result directly (see cpu_ew_engine.h). */
static int dst_ok(const cpu_ew_call *e, int32_t nin, int32_t nd, const int64_t *shape) {
  const tabi_tensor *o = e->dst;
  if ((o->flags & TABI_TENSOR_READ_ONLY) || tabi_tensor_dtype(o) != e->od || o->dl.ndim != nd ||
      !cpu_contig(o))
    return 0;
  for (int32_t d = 0; d < nd; d++)
    if (o->dl.shape[d] != shape[d]) return 0;
  if (tabi_tensor_numel(o) == 0) return 1;
  uintptr_t olo, ohi;
  span_of(o, &olo, &ohi);
  for (int32_t k = 0; k < nin; k++) {
    const tabi_value *v = e->in[k];
    if (v->tag != TABI_TAG_TENSOR || tabi_tensor_numel(v->u.t) == 0) continue;
    const tabi_tensor *t = v->u.t;
    if (tabi_tensor_data(t) == tabi_tensor_data(o) && tabi_tensor_dtype(t) == e->od &&
        cpu_same_shape(t, o) && cpu_contig(t))
      continue; /* the output itself: each element is read before it is written */
    uintptr_t lo, hi;
    span_of(t, &lo, &hi);
    if (lo < ohi && olo < hi) return 0;
  }
  return 1;
}

tabi_status cpu_ew_run(const cpu_ctx *c, const cpu_ew_call *e, tabi_value *outs) {
  ew_job j;
  memset(&j, 0, sizeof j);
  j.e = e;
  j.nin = e->kind == CPU_EWK_TERNARY ? 3 : e->kind;
  tabi_dtype cd = e->cd;
  int vec_ok = cd == TABI_DTYPE_FLOAT32 || cd == TABI_DTYPE_FLOAT16 || cd == TABI_DTYPE_BFLOAT16;
  if (e->kind == CPU_EWK_WHERE) {
    size_t sz = tabi_dtype_size(cd);
    if (sz != 1 && sz != 2 && sz != 4 && sz != 8) return CPU_EW_DECLINE;
    if (tabi_dtype_is_complex(cd)) return CPU_EW_DECLINE;
    j.path = P_WHERE;
  } else if (e->kind == CPU_EWK_TERNARY) {
    if (tabi_dtype_is_floating(cd) && e->dfn3) j.path = P_DBL;
    else if (!tabi_dtype_is_floating(cd) && !tabi_dtype_is_complex(cd) && e->ifn3) j.path = P_INT;
    else return CPU_EW_DECLINE;
  } else if (vec_ok && e->fop >= 0) {
    j.path = P_VEC;
  } else if (tabi_dtype_is_floating(cd) && e->dfn) {
    j.path = P_DBL;
  } else if (!tabi_dtype_is_floating(cd) && !tabi_dtype_is_complex(cd) && e->ifn) {
    j.path = P_INT;
  } else {
    return CPU_EW_DECLINE;
  }
  /* operands: tensors of the compute dtype, or one repeated element */
  const tabi_tensor *like = NULL;
  int32_t nd = 0;
  for (int32_t k = 0; k < j.nin; k++) {
    const tabi_value *v = e->in[k];
    tabi_dtype want = (e->kind == CPU_EWK_WHERE && k == 0) ? TABI_DTYPE_BOOL : cd;
    j.dt[k + 1] = j.want[k] = want;
    j.esz[k + 1] = (int32_t)tabi_dtype_size(want);
    if (v->tag == TABI_TAG_TENSOR) {
      const tabi_tensor *t = v->u.t;
      tabi_dtype src = tabi_tensor_dtype(t);
      if (!like) like = t;
      if (t->dl.ndim > REF_MAX_DIMS) return CPU_EW_DECLINE;
      if (t->dl.ndim > 0 && src != want) {
        /* promotion of a dimensioned operand: widening casts into a float or
         * integer compute dtype (where: of self and other, cast per block
         * before the byte select); not from complex */
        if ((j.path == P_WHERE && k == 0) || tabi_dtype_is_complex(src)) return CPU_EW_DECLINE;
        if (tabi_dtype_is_floating(src) && !tabi_dtype_is_floating(want)) return CPU_EW_DECLINE;
        if (tabi_dtype_size(src) > tabi_dtype_size(want) && tabi_dtype_is_floating(src))
          return CPU_EW_DECLINE;
        j.dt[k + 1] = src;
        j.esz[k + 1] = (int32_t)tabi_dtype_size(src);
      }
      if (t->dl.ndim > nd) nd = t->dl.ndim;
    }
    if (v->tag != TABI_TAG_TENSOR || v->u.t->dl.ndim == 0) {
      if (!scalar_elem(v, want, j.sbuf[k])) return CPU_EW_DECLINE;
      j.base[k + 1] = (char *)j.sbuf[k];
    }
  }
  /* the broadcast shape (sizes must agree or be 1) */
  for (int32_t d = 0; d < nd; d++) j.shape[d] = 1;
  for (int32_t k = 0; k < j.nin; k++) {
    const tabi_value *v = e->in[k];
    if (v->tag != TABI_TAG_TENSOR || v->u.t->dl.ndim == 0) continue;
    const tabi_tensor *t = v->u.t;
    for (int32_t td = 0; td < t->dl.ndim; td++) {
      int32_t d = td + nd - t->dl.ndim;
      int64_t sz = t->dl.shape[td];
      if (sz == 1) continue;
      if (j.shape[d] != 1 && j.shape[d] != sz) return CPU_EW_DECLINE;
      j.shape[d] = sz;
    }
  }
  j.nd = nd;
  tabi_tensor *out = NULL;
  j.dt[0] = e->od;
  j.esz[0] = (int32_t)tabi_dtype_size(e->od);
  if (e->dst) {
    if (!dst_ok(e, j.nin, nd, j.shape)) return CPU_EW_DECLINE;
    out = e->dst;
    c->host->tensor_retain(c->host->ctx, out);
  } else {
    tabi_status st = cpu_empty(c, like, e->od, nd, j.shape, &out);
    if (st != TABI_OK) return st;
  }
  int64_t numel = tabi_tensor_numel(out);
  if (numel > 0) {
    j.base[0] = tabi_tensor_data(out);
    int64_t s = 1;
    for (int32_t d = nd - 1; d >= 0; d--) {
      j.str[0][d] = s;
      s *= j.shape[d];
    }
    for (int32_t k = 0; k < j.nin; k++) {
      const tabi_value *v = e->in[k];
      if (v->tag != TABI_TAG_TENSOR || v->u.t->dl.ndim == 0) continue; /* strides stay 0 */
      const tabi_tensor *t = v->u.t;
      j.base[k + 1] = tabi_tensor_data(t);
      for (int32_t td = 0; td < t->dl.ndim; td++) {
        int32_t d = td + nd - t->dl.ndim;
        j.str[k + 1][d] = t->dl.shape[td] == 1 ? 0 : t->dl.strides[td];
      }
    }
    ew_coalesce(&j);
    j.isa = cpu_ew_isa(); /* also reads ew_nt_bytes */
    j.args.op = e->fop;
    j.args.dt = vec_dt(cd);
    j.args.f[0] = e->f[0];
    j.args.f[1] = e->f[1];
    j.args.f[2] = e->f[2];
    j.args.nt = j.path == P_VEC && e->od == cd && numel * j.esz[0] >= ew_nt_bytes;
    /* libm per element: ~20 ns; vector transcendentals ~1 ns; the rest memory-bound */
    int64_t grain = (e->heavy == 2 || (e->heavy && j.path == P_DBL)) ? 1024
                    : e->heavy ? 8192 : 32768;
    cpu_parallel_for(c->pool, numel, grain, ew_range, &j);
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}
