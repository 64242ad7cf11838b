/* plugins/cpu/cpu_misc_convert.c: prims::convert_element_type.
 *
 * The output is a new contiguous tensor (as the reference's ref_empty). The
 * input may have any strides: its dims are coalesced (size-1 dims dropped,
 * dims whose strides chain merged), then the output is cut into rows of the
 * innermost coalesced dim and the rows run on the pool. A row with unit stride
 * converts in place from the input; a strided row is gathered into a small
 * buffer first.
 *
 * Conversions with a typed loop (bit-identical to the reference's
 * load -> ref_ew_cast -> store): any dtype to itself (bytes), float16 /
 * bfloat16 / float32 / float64 among themselves (float64 to a half type
 * rounds through float32, as c10 and the reference do), and int32 / int64 /
 * uint8 / int8 / int16 to float32 and float64 (int64 to float32 rounds once, as
 * the reference's static_cast). Every other pair runs
 * the reference's own per-element cast (ref_ew_cast / ref_ew_store) on the
 * pool, so it is threaded and exact too.
 */
#include <string.h>

#include <tabi/half.h>

#include "cpu.h"
#include "ref_elementwise.h"

#define MAXD 16
#define CHUNK 2048

typedef struct cv_job {
  const cpu_ctx *c;
  const tabi_tensor *a;
  tabi_tensor *out;
  tabi_dtype from, to;
  int32_t nd; /* coalesced dims; the last is the row */
  int64_t shape[MAXD], stride[MAXD];
  int64_t len; /* row length */
} cv_job;

static int is_half(tabi_dtype d) { return d == TABI_DTYPE_FLOAT16 || d == TABI_DTYPE_BFLOAT16; }
static int is_flt(tabi_dtype d) { return is_half(d) || d == TABI_DTYPE_FLOAT32 || d == TABI_DTYPE_FLOAT64; }
static int is_small_int(tabi_dtype d) {
  return d == TABI_DTYPE_UINT8 || d == TABI_DTYPE_INT8 || d == TABI_DTYPE_INT16 ||
         d == TABI_DTYPE_INT32 || d == TABI_DTYPE_INT64;
}

/* 1 when convert_block handles from -> to. */
static int typed_pair(tabi_dtype from, tabi_dtype to) {
  if (from == to) return 1;
  if (is_flt(from) && is_flt(to)) return 1;
  return is_small_int(from) && (to == TABI_DTYPE_FLOAT32 || to == TABI_DTYPE_FLOAT64);
}

static double ld_f(const void *p, tabi_dtype d, int64_t i) {
  switch (d) {
    case TABI_DTYPE_FLOAT16: return tabi_f16_to_f32(((const uint16_t *)p)[i]);
    case TABI_DTYPE_BFLOAT16: return tabi_bf16_to_f32(((const uint16_t *)p)[i]);
    case TABI_DTYPE_FLOAT32: return ((const float *)p)[i];
    case TABI_DTYPE_FLOAT64: return ((const double *)p)[i];
    case TABI_DTYPE_UINT8: return ((const uint8_t *)p)[i];
    case TABI_DTYPE_INT8: return ((const int8_t *)p)[i];
    case TABI_DTYPE_INT16: return ((const int16_t *)p)[i];
    case TABI_DTYPE_INT32: return ((const int32_t *)p)[i];
    default: return (double)((const int64_t *)p)[i];
  }
}

/* n contiguous elements; src and dst do not overlap. */
static void convert_block(const cpu_ctx *c, tabi_dtype from, const void *src, tabi_dtype to, void *dst,
                          int64_t n) {
  if (from == to) {
    memcpy(dst, src, (size_t)(n * tabi_dtype_size(from)));
    return;
  }
  if (to == TABI_DTYPE_FLOAT32 && is_half(from)) { cpu_to_f32(c, from, src, dst, n); return; }
  if (from == TABI_DTYPE_FLOAT32 && is_half(to)) { cpu_from_f32(c, to, src, dst, n); return; }
  if (from == TABI_DTYPE_FLOAT64 && to == TABI_DTYPE_FLOAT32) {
    const double *x = src;
    float *y = dst;
    for (int64_t i = 0; i < n; i++) y[i] = (float)x[i];
    return;
  }
  if (from == TABI_DTYPE_INT32 && to == TABI_DTYPE_FLOAT32) {
    const int32_t *x = src;
    float *y = dst;
    for (int64_t i = 0; i < n; i++) y[i] = (float)x[i];
    return;
  }
  if (from == TABI_DTYPE_INT64 && to == TABI_DTYPE_FLOAT32) { /* one rounding, as static_cast */
    const int64_t *x = src;
    float *y = dst;
    for (int64_t i = 0; i < n; i++) y[i] = (float)x[i];
    return;
  }
  if (to == TABI_DTYPE_FLOAT64) {
    double *y = dst;
    if (from == TABI_DTYPE_FLOAT32) {
      const float *x = src;
      for (int64_t i = 0; i < n; i++) y[i] = x[i];
    } else {
      for (int64_t i = 0; i < n; i++) y[i] = ld_f(src, from, i);
    }
    return;
  }
  if (to == TABI_DTYPE_FLOAT32) {
    float *y = dst;
    for (int64_t i = 0; i < n; i++) y[i] = (float)ld_f(src, from, i);
    return;
  }
  /* to a half type from float64 or the other half type: through float32 */
  float buf[CHUNK];
  for (int64_t i = 0; i < n; i += CHUNK) {
    int64_t m = n - i < CHUNK ? n - i : CHUNK;
    for (int64_t k = 0; k < m; k++) buf[k] = (float)ld_f(src, from, i + k);
    cpu_from_f32(c, to, buf, (uint16_t *)dst + i, m);
  }
}


/* Element offset of the first element of row r. */
static int64_t row_offset(const cv_job *j, int64_t r) {
  int64_t off = 0;
  for (int32_t d = j->nd - 2; d >= 0; d--) {
    off += (r % j->shape[d]) * j->stride[d];
    r /= j->shape[d];
  }
  return off;
}

static void typed_range(void *arg, int64_t b, int64_t e) {
  const cv_job *j = arg;
  int64_t ss = tabi_dtype_size(j->from), ds = tabi_dtype_size(j->to), st = j->stride[j->nd - 1];
  const char *src = tabi_tensor_data(j->a);
  char *dst = tabi_tensor_data(j->out);
  _Alignas(16) char buf[CHUNK * 16];
  for (int64_t r = b; r < e; r++) {
    const char *s = src + row_offset(j, r) * ss;
    char *o = dst + r * j->len * ds;
    if (st == 1) {
      convert_block(j->c, j->from, s, j->to, o, j->len);
    } else if (j->from == j->to) {
      cpu_gather_strided(o, s, j->len, st, ss);
    } else {
      for (int64_t q = 0; q < j->len; q += CHUNK) {
        int64_t m = j->len - q < CHUNK ? j->len - q : CHUNK;
        cpu_gather_strided(buf, s + q * st * ss, m, st, ss);
        convert_block(j->c, j->from, buf, j->to, o + q * ds, m);
      }
    }
  }
}

/* Every other pair: the reference's cast, element by element. */
static void generic_range(void *arg, int64_t b, int64_t e) {
  const cv_job *j = arg;
  int64_t st = j->stride[j->nd - 1];
  int cat = ref_ew_category(j->from);
  ref_ew_val v = {0, 0.0, 0.0};
  for (int64_t r = b; r < e; r++) {
    int64_t off = row_offset(j, r);
    for (int64_t k = 0; k < j->len; k++, off += st) {
      switch (cat) {
        case 0: v.i = ref_load_i(j->a, off); break;
        case 1: v.f = ref_load_f(j->a, off); break;
        default: v.c = ref_load_c(j->a, off); break;
      }
      ref_ew_store(j->out, r * j->len + k, ref_ew_cast(v, j->from, j->to), j->to);
    }
  }
}

/* prims::convert_element_type(a, dtype) */
tabi_status cpu_k_p_convert(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_DTYPE) return CPU_FALLBACK(c, P_CONVERT);
  const tabi_tensor *a = args[0].u.t;
  tabi_dtype from = tabi_tensor_dtype(a), to = args[1].u.dtype;
  if (a->dl.device.device_type != kDLCPU || a->dl.ndim > MAXD || tabi_dtype_size(to) == 0 ||
      tabi_dtype_size(from) == 0 || tabi_dtype_size(from) > 16)
    return CPU_FALLBACK(c, P_CONVERT);
  cv_job j;
  memset(&j, 0, sizeof j);
  j.c = c;
  j.a = a;
  j.from = from;
  j.to = to;
  /* coalesce: drop size-1 dims, merge a dim into the next when strides chain */
  for (int32_t d = 0; d < a->dl.ndim; d++) {
    int64_t n = a->dl.shape[d], s = a->dl.strides[d];
    if (n == 1) continue;
    if (j.nd > 0 && j.stride[j.nd - 1] == s * n) {
      j.shape[j.nd - 1] *= n;
      j.stride[j.nd - 1] = s;
    } else {
      j.shape[j.nd] = n;
      j.stride[j.nd] = s;
      j.nd++;
    }
  }
  if (j.nd == 0) { j.nd = 1; j.shape[0] = 1; j.stride[0] = 1; }
  j.len = j.shape[j.nd - 1];
  tabi_status st = cpu_empty(c, a, to, a->dl.ndim, a->dl.shape, &j.out);
  if (st != TABI_OK) return st;
  int64_t n = tabi_tensor_numel(a);
  if (n > 0) {
    int64_t rows = n / j.len;
    if (typed_pair(from, to))
      cpu_parallel_for(c->pool, rows, 1 + 65536 / j.len, typed_range, &j);
    else
      cpu_parallel_for(c->pool, rows, 1 + 8192 / j.len, generic_range, &j);
  }
  outs[0] = tabi_tensor_value(j.out);
  return TABI_OK;
}
