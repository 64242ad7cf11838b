/* plugins/cpu/cpu_misc_random.c: rand, randn, prims::uniform, prims::normal.
 *
 * The numbers are the reference's, bit for bit (reference/ref_create2.c and
 * abi/tabi/philox.h): the op reserves numel counters with host->rng_reserve on
 * the output's device and element i (row-major) draws
 * tabi_philox4x32(seed, offset + i). Since a draw depends only on (seed,
 * counter), the output is cut into blocks of BLOCK elements and the blocks run
 * on the pool in any order.
 *
 * What is faster than the reference: Philox is computed BLOCK counters at a
 * time in structure-of-arrays form, which the compiler vectorizes (vpmuludq:
 * 8 or 16 counters per instruction; target_clones picks AVX-512, AVX2 or
 * baseline at load time); the uniform transform and the stores are typed loops
 * instead of a dtype switch per element; and the blocks are threaded.
 *
 * What stays as the reference computes it, so the bits agree: the normal's
 * Box-Muller calls libm's log and cos in double (a vector log/cos would differ
 * in the last bit now and then), and every affine transform is done in double
 * with separate multiply and add. This file is compiled with
 * -ffp-contract=off (CMakeLists.txt): the AVX2 clones must not fuse
 * `lo + span * u` into an FMA the baseline-compiled reference does not use.
 *
 * Taken: real float dtypes on the CPU. Complex dtypes, other devices, and every
 * argument the reference would reject go to the reference kernel.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/half.h>
#include <tabi/philox.h>

#include "cpu.h"
#include "cpu_random.h"
#include "ref_shape_util.h"
#include "cpu_clones.h"

#define CLONES CPU_CLONES_V4V3
#define BLOCK 512

static const DLDevice cpu0 = {kDLCPU, 0};

/* The four Philox4x32-10 words of counters ctr0 .. ctr0+n-1 (n <= BLOCK); the
 * same rounds as tabi_philox4x32, one lane per counter (cpu_random.h; the
 * dropout kernel uses it too). */
CLONES void cpu_philox_block(uint64_t seed, uint64_t ctr0, int n, uint32_t *restrict w0,
                                uint32_t *restrict w1, uint32_t *restrict w2,
                                uint32_t *restrict w3) {
  const uint32_t k0i = (uint32_t)seed, k1i = (uint32_t)(seed >> 32);
  for (int i = 0; i < n; i++) {
    uint64_t ctr = ctr0 + (uint64_t)i;
    uint32_t c0 = (uint32_t)ctr, c1 = (uint32_t)(ctr >> 32), c2 = 0, c3 = 0;
    uint32_t k0 = k0i, k1 = k1i;
    for (int r = 0; r < 10; r++) {
      uint64_t p0 = (uint64_t)0xD2511F53u * c0;
      uint64_t p1 = (uint64_t)0xCD9E8D57u * c2;
      uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
      uint32_t n1 = (uint32_t)p1;
      uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
      uint32_t n3 = (uint32_t)p0;
      c0 = n0; c1 = n1; c2 = n2; c3 = n3;
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    w0[i] = c0; w1[i] = c1; w2[i] = c2; w3[i] = c3;
  }
}

enum { DIST_UNIFORM, DIST_NORMAL };

typedef struct rnd_job {
  tabi_dtype dt;
  int dist;
  uint64_t seed, offset;
  int64_t numel;
  double a, b; /* (low, high) or (mean, std) */
  void *dst;
  int avx2; /* libmvec's AVX2 log/cos may be called */
} rnd_job;

/* u in [0,1) for float32 / float16 / bfloat16 (`bits` significand bits), then
 * lo + span * u in double rounded to float32 (exact for rand: 0 + 1 * u). */
CLONES static void uniform_f32(float *restrict y, const uint32_t *restrict w0, int n, int bits,
                               double lo, double span) {
  const float scale = 1.0f / (float)(1u << bits);
  for (int i = 0; i < n; i++) {
    float u = (float)(w0[i] >> (32 - bits)) * scale;
    y[i] = (float)(lo + span * (double)u);
  }
}

CLONES static void uniform_f64(double *restrict y, const uint32_t *restrict w0,
                               const uint32_t *restrict w1, int n, double lo, double span) {
  for (int i = 0; i < n; i++) {
    uint64_t bits = (((uint64_t)w0[i] << 32) | w1[i]) >> 11;
    double u = (double)bits * (1.0 / 9007199254740992.0);
    y[i] = lo + span * u;
  }
}

/* mean + std * z with z = tabi_philox_normal's Box-Muller (libm log and cos). */
static void normal_f64(double *restrict y, const uint32_t *w0, const uint32_t *w1,
                       const uint32_t *w2, const uint32_t *w3, int n, double mean, double sd) {
  for (int i = 0; i < n; i++) {
    uint64_t b1 = (((uint64_t)w0[i] << 32) | w1[i]) >> 11;
    uint64_t b2 = (((uint64_t)w2[i] << 32) | w3[i]) >> 11;
    double u1 = ((double)b1 + 1.0) * (1.0 / 9007199254740992.0);
    double u2 = (double)b2 * (1.0 / 9007199254740992.0);
    double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
    y[i] = mean + sd * z;
  }
}

/* The same numbers rounded to float32, faster: log and cos from glibc's
 * libmvec (4 lanes, AVX2, a few ulp) instead of libm (< 1 ulp). Each result
 * is accepted only when the whole interval v +- d, d far above the two
 * libraries' combined error, rounds to one float32; the reference's v lies in
 * it, so it rounds to that float too. The rare rest (about 1 in 1e5) is
 * recomputed with libm, as the reference computes it. */
#ifdef TABI_CPU_MVEC
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#include <immintrin.h>
__m256d _ZGVdN4v_log(__m256d x);
__m256d _ZGVdN4v_cos(__m256d x);

static void normal_f32_avx2(float *restrict y, const uint32_t *w0, const uint32_t *w1, const uint32_t *w2,
                            const uint32_t *w3, int n, double mean, double sd) {
  double u1[BLOCK], u2[BLOCK], z[BLOCK];
  for (int i = 0; i < n; i++) {
    uint64_t b1 = (((uint64_t)w0[i] << 32) | w1[i]) >> 11;
    uint64_t b2 = (((uint64_t)w2[i] << 32) | w3[i]) >> 11;
    u1[i] = ((double)b1 + 1.0) * (1.0 / 9007199254740992.0);
    u2[i] = 6.283185307179586476925 * ((double)b2 * (1.0 / 9007199254740992.0));
  }
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256d l = _ZGVdN4v_log(_mm256_loadu_pd(u1 + i)), cs = _ZGVdN4v_cos(_mm256_loadu_pd(u2 + i));
    __m256d r = _mm256_sqrt_pd(_mm256_mul_pd(_mm256_set1_pd(-2.0), l));
    _mm256_storeu_pd(z + i, _mm256_mul_pd(r, cs));
  }
  for (; i < n; i++) z[i] = sqrt(-2.0 * log(u1[i])) * cos(u2[i]);
  for (i = 0; i < n; i++) {
    double a = sd * z[i], v = mean + a;
    double d = fabs(a) * 0x1p-40 + fabs(v) * 0x1p-50 + 0x1p-1000;
    float f = (float)v;
    if ((float)(v - d) != f || (float)(v + d) != f) { /* too close to a float32 rounding boundary */
      double u = u1[i];
      uint64_t b2 = (((uint64_t)w2[i] << 32) | w3[i]) >> 11;
      double ue = (double)b2 * (1.0 / 9007199254740992.0);
      f = (float)(mean + sd * (sqrt(-2.0 * log(u)) * cos(6.283185307179586476925 * ue)));
    }
    y[i] = f;
  }
}
#pragma GCC pop_options
#endif

static void rnd_range(void *arg, int64_t b, int64_t e) {
  const rnd_job *j = arg;
  uint32_t w0[BLOCK], w1[BLOCK], w2[BLOCK], w3[BLOCK];
  union { double d[BLOCK]; float f[BLOCK]; } buf;
  for (int64_t blk = b; blk < e; blk++) {
    int64_t i0 = blk * BLOCK;
    int n = (int)(j->numel - i0 < BLOCK ? j->numel - i0 : BLOCK);
    cpu_philox_block(j->seed, j->offset + (uint64_t)i0, n, w0, w1, w2, w3);
    if (j->dist == DIST_UNIFORM) {
      double span = j->b - j->a;
      switch (j->dt) {
        case TABI_DTYPE_FLOAT64: uniform_f64((double *)j->dst + i0, w0, w1, n, j->a, span); break;
        case TABI_DTYPE_FLOAT32: uniform_f32((float *)j->dst + i0, w0, n, 24, j->a, span); break;
        case TABI_DTYPE_FLOAT16: {
          uint16_t *y = (uint16_t *)j->dst + i0;
          uniform_f32(buf.f, w0, n, 11, j->a, span);
          for (int i = 0; i < n; i++) y[i] = tabi_f32_to_f16(buf.f[i]);
          break;
        }
        default: { /* bfloat16 */
          uint16_t *y = (uint16_t *)j->dst + i0;
          uniform_f32(buf.f, w0, n, 8, j->a, span);
          for (int i = 0; i < n; i++) y[i] = tabi_f32_to_bf16(buf.f[i]);
          break;
        }
      }
#ifdef TABI_CPU_MVEC
    } else if (j->avx2 && j->dt != TABI_DTYPE_FLOAT64) {
      float *f = j->dt == TABI_DTYPE_FLOAT32 ? (float *)j->dst + i0 : buf.f;
      normal_f32_avx2(f, w0, w1, w2, w3, n, j->a, j->b);
      uint16_t *y = (uint16_t *)j->dst + i0;
      if (j->dt == TABI_DTYPE_FLOAT16)
        for (int i = 0; i < n; i++) y[i] = tabi_f32_to_f16(f[i]);
      else if (j->dt == TABI_DTYPE_BFLOAT16)
        for (int i = 0; i < n; i++) y[i] = tabi_f32_to_bf16(f[i]);
#endif
    } else {
      double *z = j->dt == TABI_DTYPE_FLOAT64 ? (double *)j->dst + i0 : buf.d;
      normal_f64(z, w0, w1, w2, w3, n, j->a, j->b);
      if (j->dt == TABI_DTYPE_FLOAT32) {
        float *y = (float *)j->dst + i0;
        for (int i = 0; i < n; i++) y[i] = (float)z[i];
      } else if (j->dt == TABI_DTYPE_FLOAT16) {
        uint16_t *y = (uint16_t *)j->dst + i0;
        for (int i = 0; i < n; i++) y[i] = tabi_f32_to_f16((float)z[i]);
      } else if (j->dt == TABI_DTYPE_BFLOAT16) {
        uint16_t *y = (uint16_t *)j->dst + i0;
        for (int i = 0; i < n; i++) y[i] = tabi_f32_to_bf16((float)z[i]);
      }
    }
  }
}

static int real_float(tabi_dtype d) {
  return d == TABI_DTYPE_FLOAT32 || d == TABI_DTYPE_FLOAT64 || d == TABI_DTYPE_FLOAT16 ||
         d == TABI_DTYPE_BFLOAT16;
}

/* 1 when the size list is one the fast path takes (the reference reports the
 * rest). */
static int sizes_ok(const tabi_value *size) {
  if (size->tag != TABI_TAG_INT_LIST || size->u.list.len > 16) return 0;
  const int64_t *s = tabi_value_ints(size);
  for (int64_t i = 0; i < size->u.list.len; i++)
    if (s[i] < 0) return 0;
  return 1;
}

/* Allocates, reserves the counters and fills; the output as the reference
 * makes it (contiguous strides of rs_contig_strides, on the CPU). */
static tabi_status rnd_run(const cpu_ctx *c, const tabi_value *size, tabi_dtype dt,
                           DLDevice rdev, int dist, double a, double b, tabi_value *out) {
  const tabi_host_api *h = c->host;
  int32_t nd = (int32_t)size->u.list.len;
  const int64_t *shape = tabi_value_ints(size);
  int64_t strides[16];
  rs_contig_strides(nd, shape, strides);
  tabi_tensor *t = NULL;
  DLDevice dev = {kDLCPU, 0};
  tabi_status st = h->tensor_empty_strided(h->ctx, dev, dt, nd, shape, strides, &t);
  if (st != TABI_OK) return st;
  rnd_job j = {dt, dist, 0, 0, tabi_tensor_numel(t), a, b, tabi_tensor_data(t), c->has_avx2 && !getenv("TABI_CPU_NO_MVEC")};
  if (j.numel > 0) {
    st = h->rng_reserve(h->ctx, rdev, (uint64_t)j.numel, &j.seed, &j.offset);
    if (st != TABI_OK) {
      h->tensor_release(h->ctx, t);
      return st;
    }
    /* normal costs ~50 ns an element (log + cos), uniform ~2 ns */
    int64_t grain = dist == DIST_NORMAL ? 2 : 32;
    cpu_parallel_for(c->pool, (j.numel + BLOCK - 1) / BLOCK, grain, rnd_range, &j);
  }
  *out = tabi_tensor_value(t);
  return TABI_OK;
}

static int on_cpu(const tabi_value *device) {
  return device->tag == TABI_TAG_NONE ||
         (device->tag == TABI_TAG_DEVICE && device->u.device.device_type == kDLCPU);
}

static int layout_ok(const tabi_value *v) {
  return v->tag == TABI_TAG_NONE || (v->tag == TABI_TAG_INT && v->u.i == 0);
}

/* rand / randn: size, dtype, layout, device, pin_memory */
static tabi_status rand_common(const cpu_ctx *c, tabi_value *args, int dist, tabi_value *outs,
                               int *taken) {
  tabi_dtype dt = rs_dtype_arg(&args[1], TABI_DTYPE_FLOAT32);
  *taken = sizes_ok(&args[0]) && real_float(dt) && layout_ok(&args[2]) && on_cpu(&args[3]) &&
           (args[1].tag == TABI_TAG_NONE || args[1].tag == TABI_TAG_DTYPE);
  if (!*taken) return TABI_OK;
  return rnd_run(c, &args[0], dt, rs_device_arg(&args[3], cpu0), dist, 0.0, 1.0, &outs[0]);
}

tabi_status cpu_k_rand(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  int taken;
  tabi_status st = rand_common(c, args, DIST_UNIFORM, outs, &taken);
  return taken ? st : CPU_FALLBACK(c, RAND);
}

tabi_status cpu_k_randn(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  int taken;
  tabi_status st = rand_common(c, args, DIST_NORMAL, outs, &taken);
  return taken ? st : CPU_FALLBACK(c, RANDN);
}

static int real_scalar(const tabi_value *v) {
  return v->tag == TABI_TAG_INT || v->tag == TABI_TAG_FLOAT || v->tag == TABI_TAG_BOOL;
}

/* prims::uniform(shape, low, high, dtype, device) */
tabi_status cpu_k_p_uniform(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (!sizes_ok(&args[0]) || !real_scalar(&args[1]) || !real_scalar(&args[2]) ||
      args[3].tag != TABI_TAG_DTYPE || !real_float(args[3].u.dtype) || !on_cpu(&args[4]))
    return CPU_FALLBACK(c, P_UNIFORM);
  double lo = ref_scalar_f(&args[1]), hi = ref_scalar_f(&args[2]);
  if (!(lo <= hi) || !isfinite(hi - lo)) return CPU_FALLBACK(c, P_UNIFORM); /* it reports */
  return rnd_run(c, &args[0], args[3].u.dtype, rs_device_arg(&args[4], cpu0), DIST_UNIFORM, lo, hi, &outs[0]);
}

/* prims::normal(shape, mean, std, dtype, device, requires_grad) */
tabi_status cpu_k_p_normal(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (!sizes_ok(&args[0]) || !real_scalar(&args[1]) || !real_scalar(&args[2]) ||
      args[3].tag != TABI_TAG_DTYPE || !real_float(args[3].u.dtype) || !on_cpu(&args[4]))
    return CPU_FALLBACK(c, P_NORMAL);
  double mean = ref_scalar_f(&args[1]), sd = ref_scalar_f(&args[2]);
  if (!(sd >= 0.0)) return CPU_FALLBACK(c, P_NORMAL); /* it reports */
  return rnd_run(c, &args[0], args[3].u.dtype, rs_device_arg(&args[4], cpu0), DIST_NORMAL, mean, sd, &outs[0]);
}

/* --- randperm --------------------------------------------------------------------- */

/* The reference's Fisher-Yates: for i = n-1 down to 1, j = floor(u_i * (i+1))
 * with u_i = tabi_philox_uniform_double(philox(seed, offset + i)), swap. The
 * swaps are sequential, but every j depends only on i: they are drawn first,
 * vectorized and threaded, into a buffer. */
typedef struct perm_job {
  uint64_t seed, offset;
  int64_t n;
  int64_t *js;
} perm_job;

static void perm_range(void *arg, int64_t b, int64_t e) {
  const perm_job *j = arg;
  uint32_t w0[BLOCK], w1[BLOCK], w2[BLOCK], w3[BLOCK];
  for (int64_t blk = b; blk < e; blk++) {
    int64_t i0 = blk * BLOCK;
    int m = (int)(j->n - i0 < BLOCK ? j->n - i0 : BLOCK);
    cpu_philox_block(j->seed, j->offset + (uint64_t)i0, m, w0, w1, w2, w3);
    for (int q = 0; q < m; q++) {
      int64_t i = i0 + q;
      uint64_t bits = (((uint64_t)w0[q] << 32) | w1[q]) >> 11;
      double u = (double)bits * (1.0 / 9007199254740992.0);
      int64_t r = (int64_t)floor(u * (double)(i + 1));
      j->js[i] = r > i ? i : r;
    }
  }
}

/* aten::randperm(n, dtype, layout, device, pin_memory): int64 and int32 on the
 * CPU; the reference checks and reports everything else. */
tabi_status cpu_k_randperm(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  const tabi_host_api *h = c->host;
  if (args[0].tag != TABI_TAG_INT || !layout_ok(&args[2]) || !on_cpu(&args[3]) ||
      (args[1].tag != TABI_TAG_NONE && args[1].tag != TABI_TAG_DTYPE))
    return CPU_FALLBACK(c, RANDPERM);
  int64_t n = args[0].u.i;
  tabi_dtype dt = rs_dtype_arg(&args[1], TABI_DTYPE_INT64);
  if (n < 0 || (dt != TABI_DTYPE_INT64 && dt != TABI_DTYPE_INT32) ||
      (dt == TABI_DTYPE_INT32 && n - 1 > INT32_MAX))
    return CPU_FALLBACK(c, RANDPERM);
  int64_t one = 1;
  tabi_tensor *t = NULL;
  tabi_status st = h->tensor_empty_strided(h->ctx, cpu0, dt, 1, &n, &one, &t);
  if (st != TABI_OK) return st;
  if (n > 0) {
    int64_t *js = malloc(sizeof(int64_t) * (size_t)n);
    int64_t *perm = dt == TABI_DTYPE_INT64 ? tabi_tensor_data(t) : malloc(sizeof(int64_t) * (size_t)n);
    perm_job j = {0, 0, n, js};
    st = !js || !perm ? TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "aten::randperm: no memory for n = %lld",
                                 (long long)n)
                      : h->rng_reserve(h->ctx, rs_device_arg(&args[3], cpu0), (uint64_t)n, &j.seed, &j.offset);
    if (st == TABI_OK) {
      cpu_parallel_for(c->pool, (n + BLOCK - 1) / BLOCK, 16, perm_range, &j);
      for (int64_t k = 0; k < n; k++) perm[k] = k;
      for (int64_t i = n - 1; i >= 1; i--) {
        int64_t q = js[i], tmp = perm[i];
        perm[i] = perm[q];
        perm[q] = tmp;
      }
      if (dt == TABI_DTYPE_INT32) {
        int32_t *y = tabi_tensor_data(t);
        for (int64_t k = 0; k < n; k++) y[k] = (int32_t)perm[k];
      }
    }
    free(js);
    if (dt != TABI_DTYPE_INT64) free(perm);
    if (st != TABI_OK) {
      h->tensor_release(h->ctx, t);
      return st;
    }
  }
  outs[0] = tabi_tensor_value(t);
  return TABI_OK;
}
