/* plugins/cpu/cpu_misc_dropout.c: aten::native_dropout with the reference's bits.
 *
 * The rule (reference/ref_nn5.c): in training (train true or None) the op
 * reserves numel Philox counters; element i (row-major) is kept when
 * u_i >= p, u_i the float32 uniform of philox(seed, offset + i) (the double
 * uniform for float64); output = (x * keep) * scale with scale = 1/(1-p)
 * (0 when p == 1) rounded to float32 except for float64. The reference takes
 * that product in double and rounds once; for float32 (and the float16 /
 * bfloat16 values widened to it) the double product of two floats is exact,
 * so one float32 multiply rounds to the same value, and the half types then
 * round from float32 as the reference does. x * 0 keeps NaN (and inf * 0 is
 * NaN), as ATen's input.mul(mask).
 *
 * What is faster: Philox in structure-of-arrays blocks of BLOCK counters,
 * vectorized (target_clones), blocks spread over the pool (a draw depends
 * only on its counter, so any split gives the same numbers); typed loops.
 * Not in eval mode only when the input is contiguous (a clone and an all-true
 * mask). Complex inputs, empty inputs, p outside [0, 1] (the error) and other
 * devices run the reference kernel.
 */
#include <string.h>

#include <tabi/half.h>
#include <tabi/philox.h>

#include "cpu.h"
#include "cpu_random.h"
#include "cpu_clones.h"

#define CLONES CPU_CLONES_V4V3
#define BLOCK 512

/* keep flags: the float32 uniform (24 bits of word 0) against p in double */
CLONES static void keep_f(uint8_t *restrict m, const uint32_t *restrict w0, int n, double p) {
  for (int i = 0; i < n; i++) {
    float u = (float)(w0[i] >> 8) * (1.0f / 16777216.0f);
    m[i] = (double)u >= p;
  }
}
CLONES static void keep_d(uint8_t *restrict m, const uint32_t *restrict w0,
                          const uint32_t *restrict w1, int n, double p) {
  for (int i = 0; i < n; i++) {
    uint64_t bits = (((uint64_t)w0[i] << 32) | w1[i]) >> 11;
    m[i] = (double)bits * (1.0 / 9007199254740992.0) >= p;
  }
}
CLONES static void apply_f32(float *restrict y, const float *restrict x, const uint8_t *restrict m,
                             int n, float s) {
  for (int i = 0; i < n; i++) y[i] = (x[i] * (float)m[i]) * s;
}
CLONES static void apply_f64(double *restrict y, const double *restrict x,
                             const uint8_t *restrict m, int n, double s) {
  for (int i = 0; i < n; i++) y[i] = (x[i] * (double)m[i]) * s;
}

typedef struct drop_job {
  tabi_dtype dt;
  uint64_t seed, offset;
  int64_t numel;
  double p, scale;
  int32_t nd;
  int64_t shape[16], str[16]; /* the input's (elements) */
  int contig;
  const char *x;
  char *y;
  uint8_t *mask;
} drop_job;

/* n elements from row-major index i0 of a strided input, into a contiguous buffer */
static void gather_block(const drop_job *j, int64_t i0, int n, char *dst) {
  int64_t es = (int64_t)tabi_dtype_size(j->dt), idx[16], rem = i0, off = 0;
  for (int32_t d = j->nd - 1; d >= 0; d--) {
    idx[d] = rem % j->shape[d];
    rem /= j->shape[d];
    off += idx[d] * j->str[d];
  }
  for (int i = 0; i < n; i++) {
    memcpy(dst + i * es, j->x + off * es, (size_t)es);
    for (int32_t d = j->nd - 1; d >= 0; d--) {
      off += j->str[d];
      if (++idx[d] < j->shape[d]) break;
      off -= idx[d] * j->str[d];
      idx[d] = 0;
    }
  }
}

static void drop_range(void *arg, int64_t b, int64_t e) {
  const drop_job *j = arg;
  uint32_t w0[BLOCK], w1[BLOCK], w2[BLOCK], w3[BLOCK]; /* words 2, 3: unused */
  union { double d[BLOCK]; float f[BLOCK]; } xb, yb;
  char gb[BLOCK * 8];
  for (int64_t blk = b; blk < e; blk++) {
    int64_t i0 = blk * BLOCK;
    int n = (int)(j->numel - i0 < BLOCK ? j->numel - i0 : BLOCK);
    uint8_t *m = j->mask + i0;
    cpu_philox_block(j->seed, j->offset + (uint64_t)i0, n, w0, w1, w2, w3);
    int64_t es = (int64_t)tabi_dtype_size(j->dt);
    const char *x = j->x + i0 * es;
    if (!j->contig) {
      gather_block(j, i0, n, gb);
      x = gb;
    }
    switch (j->dt) {
      case TABI_DTYPE_FLOAT64:
        keep_d(m, w0, w1, n, j->p);
        apply_f64((double *)(void *)j->y + i0, (const double *)(const void *)x, m, n, j->scale);
        break;
      case TABI_DTYPE_FLOAT32:
        keep_f(m, w0, n, j->p);
        apply_f32((float *)(void *)j->y + i0, (const float *)(const void *)x, m, n,
                  (float)j->scale);
        break;
      default: { /* float16 / bfloat16: widened, multiplied in float32, rounded once */
        const uint16_t *xs = (const uint16_t *)(const void *)x;
        uint16_t *ys = (uint16_t *)(void *)j->y + i0;
        int h = j->dt == TABI_DTYPE_FLOAT16;
        keep_f(m, w0, n, j->p);
        for (int i = 0; i < n; i++) xb.f[i] = h ? tabi_f16_to_f32(xs[i]) : tabi_bf16_to_f32(xs[i]);
        apply_f32(yb.f, xb.f, m, n, (float)j->scale);
        for (int i = 0; i < n; i++) ys[i] = h ? tabi_f32_to_f16(yb.f[i]) : tabi_f32_to_bf16(yb.f[i]);
        break;
      }
    }
  }
}

tabi_status cpu_k_native_dropout(void *ctx, const tabi_call *call, tabi_value *args,
                                 tabi_value *outs) {
  const cpu_ctx *c = ctx;
  const tabi_host_api *h = c->host;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_FLOAT)
    return CPU_FALLBACK(c, NATIVE_DROPOUT);
  const tabi_tensor *x = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  double p = args[1].u.f;
  int train = args[2].tag == TABI_TAG_NONE || args[2].u.i != 0; /* as the reference reads it */
  int64_t numel = tabi_tensor_numel(x);
  if (!cpu_is_fast_float(dt) && dt != TABI_DTYPE_FLOAT64) return CPU_FALLBACK(c, NATIVE_DROPOUT);
  if (!(p >= 0 && p <= 1) || numel == 0 || x->dl.ndim > 16 || x->dl.device.device_type != kDLCPU ||
      (!train && !cpu_contig(x)))
    return CPU_FALLBACK(c, NATIVE_DROPOUT);
  tabi_tensor *out = NULL, *mask = NULL;
  tabi_status st = cpu_empty(c, x, dt, x->dl.ndim, x->dl.shape, &out);
  if (st != TABI_OK) return st;
  if ((st = cpu_empty(c, x, TABI_DTYPE_BOOL, x->dl.ndim, x->dl.shape, &mask)) != TABI_OK) {
    h->tensor_release(h->ctx, out);
    return st;
  }
  if (!train) {
    memcpy(tabi_tensor_data(out), tabi_tensor_data(x), (size_t)numel * tabi_dtype_size(dt));
    memset(tabi_tensor_data(mask), 1, (size_t)numel);
  } else {
    drop_job j;
    memset(&j, 0, sizeof j);
    j.dt = dt;
    j.numel = numel;
    j.p = p;
    j.scale = p == 1 ? 0.0 : 1.0 / (1.0 - p);
    j.nd = x->dl.ndim;
    for (int32_t d = 0; d < j.nd; d++) {
      j.shape[d] = x->dl.shape[d];
      j.str[d] = x->dl.strides[d];
    }
    j.contig = cpu_contig(x);
    j.x = tabi_tensor_data(x);
    j.y = tabi_tensor_data(out);
    j.mask = tabi_tensor_data(mask);
    if ((st = h->rng_reserve(h->ctx, x->dl.device, (uint64_t)numel, &j.seed, &j.offset)) !=
        TABI_OK) {
      h->tensor_release(h->ctx, out);
      h->tensor_release(h->ctx, mask);
      return st;
    }
    /* ~3 ns an element (Philox, compare, multiply) */
    cpu_parallel_for(c->pool, (numel + BLOCK - 1) / BLOCK, 16, drop_range, &j);
  }
  outs[0] = tabi_tensor_value(out);
  outs[1] = tabi_tensor_value(mask);
  return TABI_OK;
}
