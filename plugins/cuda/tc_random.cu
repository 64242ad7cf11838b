/* plugins/cuda/tc_random.cu: prims::uniform, prims::normal and
 * aten::native_dropout on the device, drawing the reference's Philox stream
 * (reference/ref_create2.c, ref_nn5.c): element i of the output uses counter
 * offset + i of the generator of the output's device, so a seed gives the same
 * numbers as the CPU, bit for bit where the math is exact (uniform, dropout)
 * and to the last rounding of double log/cos (normal). */
#include "tc_ew_dev.cuh"
#include "ref_misc_check.h"

#define SQRT1_2 0.70710678118654752440

TC_D double uniform_for(int d, tabi_philox_out o) {
  if (d == TABI_DTYPE_FLOAT64 || d == TABI_DTYPE_COMPLEX128) return tabi_philox_uniform_double(o);
  if (d == TABI_DTYPE_FLOAT16) return (double)tabi_philox_uniform_bits(o, 11);
  if (d == TABI_DTYPE_BFLOAT16) return (double)tabi_philox_uniform_bits(o, 8);
  return (double)tabi_philox_uniform_float(o);
}

__global__ void rng_kernel(char *out, int dt, int64_t n, uint64_t seed, uint64_t offset, int normal,
                           double a_re, double a_im, double b) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  int cplx = dt == TABI_DTYPE_COMPLEX64 || dt == TABI_DTYPE_COMPLEX128;
  int esz = tc_dt_size(dt);
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    tabi_philox_out o = tabi_philox4x32(seed, offset + (uint64_t)i);
    char *p = out + i * esz;
    if (!normal) {
      double lo = a_re, span = b - a_re;
      if (cplx) {
        tabi_philox_out h = o;
        h.w[0] = o.w[2];
        h.w[1] = o.w[3];
        tc_st_c(p, dt, tc_c(lo + span * uniform_for(dt, o), lo + span * uniform_for(dt, h)));
      } else {
        tc_st_f(p, dt, lo + span * uniform_for(dt, o));
      }
    } else if (cplx) {
      uint64_t b1 = (((uint64_t)o.w[0] << 32) | o.w[1]) >> 11;
      uint64_t b2 = (((uint64_t)o.w[2] << 32) | o.w[3]) >> 11;
      double u1 = ((double)b1 + 1.0) * (1.0 / 9007199254740992.0);
      double u2 = (double)b2 * (1.0 / 9007199254740992.0);
      double r = sqrt(-2.0 * log(u1)), t = 6.283185307179586476925 * u2;
      tc_st_c(p, dt, tc_c(a_re + b * (r * cos(t) * SQRT1_2), a_im + b * (r * sin(t) * SQRT1_2)));
    } else {
      tc_st_f(p, dt, a_re + b * tabi_philox_normal(o));
    }
  }
}

static tabi_status rng_run(tc_ctx *c, const tabi_call *call, const tabi_value *size,
                           tabi_dtype dt, DLDevice dev, int normal, double are, double aim,
                           double b, tabi_value *out) {
  const char *op = tc_op_name(c, call);
  if (!tabi_dtype_is_floating(dt) && !tabi_dtype_is_complex(dt))
    return TC_ERR(c, TABI_ERR_TYPE, "%s: argument 'dtype' has dtype %s; expected a floating or "
                  "complex dtype", op, tabi_dtype_name(dt));
  int64_t nd = size->u.list.len;
  const int64_t *shape = tabi_value_ints(size);
  if (nd > TC_MAX_DIMS) return TC_ERR(c, TABI_ERR_SHAPE, "%s: too many dims (%lld)", op, (long long)nd);
  for (int64_t i = 0; i < nd; i++)
    if (shape[i] < 0)
      return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT,
                    "%s: argument 'shape': Trying to create tensor with negative dimension %lld",
                    op, (long long)shape[i]);
  if (dev.device_type != TC_DL_DEVICE)
    return TC_ERR(c, TABI_ERR_DEVICE, "%s: argument 'device' is not a " TC_PLATFORM " device", op);
  tabi_tensor *t = NULL;
  tabi_status st = tc_empty(c, dev, dt, (int32_t)nd, shape, &t);
  if (st != TABI_OK) return st;
  int64_t n = tabi_tensor_numel(t);
  if (n > 0) {
    uint64_t seed = 0, offset = 0;
    st = c->h->rng_reserve(c->h->ctx, dev, (uint64_t)n, &seed, &offset);
    if (st == TABI_OK) st = tc_use_device(c, t, op);
    if (st == TABI_OK) {
      int64_t g = (n + 255) / 256;
      TC_LAUNCH((int)(g > 65536 ? 65536 : g), 256, rng_kernel)((char *)tabi_tensor_data(t), dt, n, seed,
                                                        offset, normal, are, aim, b);
      st = tc_launch_status(c, op);
    }
  }
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, t);
    return st;
  }
  *out = tabi_tensor_value(t);
  return TABI_OK;
}

static tabi_status k_uniform(TC_ARGS) {
  TC_CTX;
  double lo = tabi_value_as_double(&args[1]), hi = tabi_value_as_double(&args[2]);
  if (!(lo <= hi))
    return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT,
                  "%s: argument 'high': uniform_ expects to return a [from, to) range, but found "
                  "from=%g > to=%g", OPN, lo, hi);
  if (!isfinite(hi - lo))
    return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'high': to - from must be finite, got "
                  "%g - %g", OPN, hi, lo);
  return rng_run(c, call, &args[0], args[3].u.dtype, args[4].u.device, 0, lo, 0, hi, &outs[0]);
}

static tabi_status k_normal(TC_ARGS) {
  TC_CTX;
  double sd = tabi_value_as_double(&args[2]);
  double mre = tabi_value_as_double(&args[1]);
  double mim = args[1].tag == TABI_TAG_COMPLEX ? args[1].u.c[1] : 0.0;
  if (!(sd >= 0.0))
    return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'std': expected non-negative standard "
                  "deviation, but got std=%g", OPN, sd);
  tabi_dtype dt = args[3].u.dtype;
  if (args[1].tag != TABI_TAG_COMPLEX && tabi_dtype_is_complex(dt)) mim = mre;
  if (args[1].tag == TABI_TAG_COMPLEX && !tabi_dtype_is_complex(dt) && mim != 0)
    return TC_ERR(c, TABI_ERR_TYPE, "%s: argument 'mean': a complex mean needs a complex dtype, got %s",
                  OPN, tabi_dtype_name(dt));
  return rng_run(c, call, &args[0], dt, args[4].u.device, 1, mre, mim, sd, &outs[0]);
}

/* native_dropout in one pass: draw, compare, mask and scale per element (the
 * decomposition took a uniform tensor, a comparison, two conversions and two
 * products, each a kernel writing a full-size temporary). The rule is
 * ref_nn_native_dropout's: element i (row-major) is kept when its draw
 * (float64 for float64/complex128 inputs, float32 otherwise) is >= p; the
 * output is x * keep * scale in double, rounded once, so NaN stays NaN where
 * dropped and the result is the reference's bit for bit. */
__global__ void __launch_bounds__(256) dropout_kernel(const char *x, char *out, uint8_t *mask, int dt,
                                                      int64_t n, uint64_t seed, uint64_t offset,
                                                      int wide, double p, double scale) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  int esz = tc_dt_size(dt), cplx = tc_cat(dt) == 2;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    tabi_philox_out r = tabi_philox4x32(seed, offset + (uint64_t)i);
    double u = wide ? tabi_philox_uniform_double(r) : (double)tabi_philox_uniform_float(r);
    int keep = u >= p;
    double k = (double)keep;
    mask[i] = (uint8_t)keep;
    if (cplx) {
      tc_c v = tc_ld_c(x + i * esz, dt);
      tc_st_c(out + i * esz, dt, tc_c(v.real() * k * scale, v.imag() * k * scale));
    } else {
      tc_st_f(out + i * esz, dt, tc_ld_f(x + i * esz, dt) * k * scale);
    }
  }
}

/* dropout_kernel for float32 (the common case), four elements a thread: one
 * 16-byte load and store, the four mask bytes as one word, float math.
 * The same numbers: x * keep * scale rounds once either way, since the
 * product of two floats is exact in double (48 bits), and scale is already
 * a float (ATen's float scalar). The draws are dropout_kernel's, one Philox
 * call an element (the stream's definition, abi/tabi/philox.h), and most of
 * the time; the generic loads and stores through the dtype switch and the
 * double math were the rest (0.49x torch on the H200). n4: whole groups.
 * The draw's test is on its 24 bits: u = b / 2^24 >= p exactly when b >=
 * thr = ceil(p 2^24) (p 2^24 is exact in double), so no rounding of p to
 * float can move it. */
__global__ void __launch_bounds__(256) dropout_f32_kernel(const float *x, float *out, uint8_t *mask, int64_t n4,
                                                          uint64_t seed, uint64_t offset, uint32_t thr, float scale) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < n4; q += stride) {
    tc_ew_words<4> v = ((const tc_ew_words<4> *)x)[q], o;
    uint32_t m = 0;
#pragma unroll
    for (int e = 0; e < 4; e++) {
      uint32_t keep = tabi_philox4x32(seed, offset + (uint64_t)(4 * q + e)).w[0] >> 8 >= thr;
      o.w[e] = tabi_f32_bits((tabi_bits_f32(v.w[e]) * (float)keep) * scale);
      m |= keep << (8 * e); /* little-endian: byte e is element 4q + e */
    }
    ((tc_ew_words<4> *)out)[q] = o;
    ((uint32_t *)mask)[q] = m;
  }
}

/* (output, mask) as the reference: both new and contiguous; a non-contiguous
 * input is made contiguous first (one copy), so element i is its i-th in
 * row-major order. train false: a copy and an all-true mask; an empty input:
 * an empty mask of the input's dtype (ATen's quirk). */
static tabi_status k_native_dropout(TC_ARGS) {
  TC_CTX;
  tabi_tensor *x = args[0].u.t;
  int train = 0, wide = 0;
  tabi_status st = ref_dropout_check(c->h, call, args, &train, &wide);
  if (st == TABI_OK) st = tc_use_device(c, x, OPN);
  if (st != TABI_OK) return st;
  tabi_dtype dt = tabi_tensor_dtype(x);
  int64_t n = tabi_tensor_numel(x);
  tabi_tensor *t[3] = {NULL, NULL, NULL}; /* out, mask, contiguous input */
  st = tc_empty(c, x->dl.device, dt, x->dl.ndim, x->dl.shape, &t[0]);
  if (st == TABI_OK)
    st = tc_empty(c, x->dl.device, n == 0 ? dt : TABI_DTYPE_BOOL, x->dl.ndim, x->dl.shape, &t[1]);
  if (st == TABI_OK && n > 0 && !train) {
    tabi_value one = tabi_bool(1);
    st = tc_copy_convert(c, OPN, t[0], x);
    if (st == TABI_OK) st = tc_fill(c, OPN, t[1], &one);
  } else if (st == TABI_OK && n > 0) {
    uint64_t seed = 0, offset = 0;
    double p = args[1].u.f, scale = p == 1 ? 0.0 : 1.0 / (1.0 - p);
    if (!wide) scale = (double)(float)scale; /* ATen multiplies by a float scalar */
    st = tc_contiguous(c, OPN, x, &t[2]);
    if (st == TABI_OK) st = c->h->rng_reserve(c->h->ctx, x->dl.device, (uint64_t)n, &seed, &offset);
    const char *xp = st == TABI_OK ? (const char *)tabi_tensor_data(t[2]) : NULL;
    char *op = (char *)tabi_tensor_data(t[0]);
    uint8_t *mp = (uint8_t *)tabi_tensor_data(t[1]);
    int64_t n4 = dt == TABI_DTYPE_FLOAT32 && !wide && ((uintptr_t)xp | (uintptr_t)op | (uintptr_t)mp) % 16 == 0
                     ? n / 4 : 0;
    if (st == TABI_OK && n4 > 0) {
      uint32_t thr = (uint32_t)ceil(p * 16777216.0); /* p in [0, 1]: 0 .. 2^24 */
      TC_LAUNCH(tc_grid(n4, 256), 256, dropout_f32_kernel)((const float *)xp, (float *)op, mp, n4, seed, offset,
                                                           thr, (float)scale);
      st = tc_launch_status(c, OPN);
    }
    if (st == TABI_OK && 4 * n4 < n) { /* the rest, or all of it: the draws of elements 4 n4 .. n - 1 */
      int64_t skip = 4 * n4 * (int64_t)tabi_dtype_size(dt);
      TC_LAUNCH(tc_grid(n - 4 * n4, 256), 256, dropout_kernel)(xp + skip, op + skip, mp + 4 * n4, dt, n - 4 * n4,
                                                              seed, offset + (uint64_t)(4 * n4), wide, p, scale);
      st = tc_launch_status(c, OPN);
    }
  }
  tc_release_all(c, &t[2], 1);
  if (st != TABI_OK) {
    tc_release_all(c, t, 2);
    return st;
  }
  outs[0] = tabi_tensor_value(t[0]);
  outs[1] = tabi_tensor_value(t[1]);
  return TABI_OK;
}

TC_KTABLE tc_kernel tc_random_kernels[] = {{"prims::uniform", k_uniform},
                                           {"prims::normal", k_normal},
                                           {"aten::native_dropout", k_native_dropout},
                                           {NULL, NULL}};
