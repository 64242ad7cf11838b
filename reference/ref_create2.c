/* reference/ref_create2.c: the random ops: rand, randn, randperm, prims::uniform,
 * prims::normal. Every draw comes from the counter-based Philox generator of
 * abi/tabi/philox.h, so a seed gives the same numbers on every device.
 *
 * The convention (a device plugin must reproduce it bit for bit):
 *  - An op producing N elements reserves N counters with host->rng_reserve on
 *    the output's device (nothing is reserved when N is 0); element i, in
 *    row-major order of the output, draws o = tabi_philox4x32(seed, offset + i).
 *  - Uniform [0,1): float64 uses tabi_philox_uniform_double(o); float32
 *    tabi_philox_uniform_float(o); float16 and bfloat16 tabi_philox_uniform_bits
 *    with 11 and 8 bits (exact, never 1.0), converted to the dtype
 *    (exact: no rounding).
 *  - Standard normal: tabi_philox_normal(o) (Box-Muller, cos branch) computed
 *    in double and rounded once to the dtype.
 *  - Complex dtypes (not covered by philox.h; defined here):
 *      uniform: real part from o as for the component dtype; imaginary part the
 *        same function applied to words (2,3) moved to (0,1), i.e. complex64
 *        takes (w0 >> 8) and (w2 >> 8), complex128 takes (w0,w1) and (w2,w3);
 *      normal: with u1, u2 exactly as in tabi_philox_normal and
 *        r = sqrt(-2 log u1), t = 2 pi u2: real = r cos t / sqrt 2,
 *        imaginary = r sin t / sqrt 2 (each part has variance 1/2, as ATen's
 *        complex randn).
 *  - prims::uniform: low + (high - low) * u, computed in double, rounded once
 *    (complex: each part in [low, high)).
 *  - prims::normal: mean + std * z in double, rounded once; for complex dtypes
 *    z is the complex normal above scaled by std, and a real mean is added to
 *    both parts (as ATen's normal_ on a complex tensor), a complex mean part-wise.
 *  - randperm(n): Fisher-Yates from the last element down. perm[k] = k; for
 *    i = n-1 down to 1: u = tabi_philox_uniform_double(philox(seed, offset + i)),
 *    j = floor(u * (i + 1)) (clamped to i), swap perm[i] and perm[j]. Counter
 *    offset + 0 is reserved but unused. The result is perm converted to dtype.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref_index_check.h"
#include "ref_shape_util.h"

#define OPN ref_op_name(h, call)

static const DLDevice cpu = {kDLCPU, 0};

#define RS_SQRT1_2 0.70710678118654752440

static tabi_philox_out hi_words(tabi_philox_out o) {
  tabi_philox_out p = o;
  p.w[0] = o.w[2];
  p.w[1] = o.w[3];
  return p;
}

/* uniform [0,1) for a real dtype's precision class */
static double uniform_for(tabi_dtype d, tabi_philox_out o) {
  if (d == TABI_DTYPE_FLOAT64 || d == TABI_DTYPE_COMPLEX128) return tabi_philox_uniform_double(o);
  if (d == TABI_DTYPE_FLOAT16) return (double)tabi_philox_uniform_bits(o, 11);
  if (d == TABI_DTYPE_BFLOAT16) return (double)tabi_philox_uniform_bits(o, 8);
  return (double)tabi_philox_uniform_float(o);
}

static ref_cplx complex_normal(tabi_philox_out o) {
  uint64_t b1 = (((uint64_t)o.w[0] << 32) | o.w[1]) >> 11;
  uint64_t b2 = (((uint64_t)o.w[2] << 32) | o.w[3]) >> 11;
  double u1 = ((double)b1 + 1.0) * (1.0 / 9007199254740992.0);
  double u2 = (double)b2 * (1.0 / 9007199254740992.0);
  double r = sqrt(-2.0 * log(u1)), t = 6.283185307179586476925 * u2;
  return CMPLX(r * cos(t) * RS_SQRT1_2, r * sin(t) * RS_SQRT1_2);
}

enum { DIST_UNIFORM, DIST_NORMAL };

/* The shared body: checks, reserves, draws, stores, hands to the device.
 * a, b: (low, high) for uniform, (mean, std) for normal. */
static tabi_status random_fill(const tabi_host_api *h, const tabi_call *call, const tabi_value *size,
                               const char *size_arg, tabi_dtype dtype, DLDevice device, int dist,
                               ref_cplx a, double b, tabi_value *out) {
  int64_t n = size->u.list.len, strides[REF_MAX_DIMS];
  const int64_t *shape = tabi_value_ints(size);
  tabi_status st = rs_check_sizes(h, call, size_arg, n, shape);
  if (st == TABI_OK) st = ref_check_dtype(h, call, "dtype", dtype, REF_DTS_FLOAT | REF_DTS_COMPLEX);
  if (st != TABI_OK) return st;
  rs_contig_strides((int32_t)n, shape, strides);
  tabi_tensor *t = NULL;
  st = rs_empty_host(h, dtype, (int32_t)n, shape, strides, &t);
  if (st != TABI_OK) return st;
  int64_t numel = tabi_tensor_numel(t);
  uint64_t seed = 0, offset = 0;
  if (numel > 0) {
    st = h->rng_reserve(h->ctx, device, (uint64_t)numel, &seed, &offset);
    if (st != TABI_OK) {
      h->tensor_release(h->ctx, t);
      return st;
    }
  }
  int cplx = tabi_dtype_is_complex(dtype);
  for (int64_t i = 0; i < numel; i++) {
    tabi_philox_out o = tabi_philox4x32(seed, offset + (uint64_t)i);
    if (dist == DIST_UNIFORM) {
      double lo = creal(a), span = b - creal(a);
      if (cplx)
        ref_store_c(t, i, CMPLX(lo + span * uniform_for(dtype, o), lo + span * uniform_for(dtype, hi_words(o))));
      else
        ref_store_f(t, i, lo + span * uniform_for(dtype, o));
    } else {
      if (cplx) {
        ref_cplx z = complex_normal(o);
        ref_store_c(t, i, CMPLX(creal(a) + b * creal(z), cimag(a) + b * cimag(z)));
      } else {
        ref_store_f(t, i, creal(a) + b * tabi_philox_normal(o));
      }
    }
  }
  st = rs_to_device(h, device, &t);
  if (st != TABI_OK) return st;
  *out = tabi_tensor_value(t);
  return TABI_OK;
}

static tabi_status k_rand(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_status st = rs_check_layout(h, call, &args[2]);
  if (st != TABI_OK) return st;
  return random_fill(h, call, &args[0], "size", rs_dtype_arg(&args[1], TABI_DTYPE_FLOAT32),
                     rs_device_arg(&args[3], cpu), DIST_UNIFORM, CMPLX(0.0, 0.0), 1.0, &outs[0]);
}

static tabi_status k_randn(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_status st = rs_check_layout(h, call, &args[2]);
  if (st != TABI_OK) return st;
  /* complex randn: the complex normal with std 1, i.e. each part of variance 1/2 */
  return random_fill(h, call, &args[0], "size", rs_dtype_arg(&args[1], TABI_DTYPE_FLOAT32),
                     rs_device_arg(&args[3], cpu), DIST_NORMAL, CMPLX(0.0, 0.0), 1.0, &outs[0]);
}

static tabi_status k_prims_uniform(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  double lo = ref_scalar_f(&args[1]), hi = ref_scalar_f(&args[2]);
  if (!(lo <= hi))
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'high': uniform_ expects to return a [from, to) range, but found from=%g > to=%g",
                   OPN, lo, hi);
  if (!isfinite(hi - lo))
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'high': to - from must be finite, got %g - %g",
                   OPN, hi, lo);
  return random_fill(h, call, &args[0], "shape", args[3].u.dtype, args[4].u.device, DIST_UNIFORM,
                     CMPLX(lo, 0.0), hi, &outs[0]);
}

static tabi_status k_prims_normal(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  double sd = ref_scalar_f(&args[2]);
  ref_cplx mean = ref_scalar_c(&args[1]);
  if (!(sd >= 0.0))
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'std': expected non-negative standard deviation, but got std=%g", OPN, sd);
  tabi_dtype dt = args[3].u.dtype;
  if (args[1].tag != TABI_TAG_COMPLEX && tabi_dtype_is_complex(dt)) mean = CMPLX(creal(mean), creal(mean));
  if (args[1].tag == TABI_TAG_COMPLEX && !tabi_dtype_is_complex(dt) && cimag(mean) != 0)
    return REF_ERR(h, TABI_ERR_TYPE, "%s: argument 'mean': a complex mean needs a complex dtype, got %s",
                   OPN, tabi_dtype_name(dt));
  return random_fill(h, call, &args[0], "shape", dt, args[4].u.device, DIST_NORMAL, mean, sd, &outs[0]);
}

/* --- randperm ---------------------------------------------------------------------- */

static tabi_status k_randperm(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  int64_t n = args[0].u.i;
  DLDevice device = rs_device_arg(&args[3], cpu);
  tabi_dtype dt;
  tabi_status st = ref_idx_randperm_check(h, call, args, &dt);
  if (st != TABI_OK) return st;
  tabi_tensor *t = NULL;
  int64_t one = 1;
  st = rs_empty_host(h, dt, 1, &n, &one, &t);
  if (st != TABI_OK) return st;
  int64_t *perm = n > 0 ? malloc(sizeof(int64_t) * (size_t)n) : NULL;
  if (n > 0 && !perm) {
    h->tensor_release(h->ctx, t);
    return REF_ERR(h, TABI_ERR_OUT_OF_MEMORY, "%s: no memory for a permutation of %lld", OPN, (long long)n);
  }
  uint64_t seed = 0, offset = 0;
  if (n > 0) {
    st = h->rng_reserve(h->ctx, device, (uint64_t)n, &seed, &offset);
    if (st != TABI_OK) {
      free(perm);
      h->tensor_release(h->ctx, t);
      return st;
    }
  }
  for (int64_t k = 0; k < n; k++) perm[k] = k;
  for (int64_t i = n - 1; i >= 1; i--) {
    double u = tabi_philox_uniform_double(tabi_philox4x32(seed, offset + (uint64_t)i));
    int64_t j = (int64_t)floor(u * (double)(i + 1));
    if (j > i) j = i;
    int64_t tmp = perm[i];
    perm[i] = perm[j];
    perm[j] = tmp;
  }
  for (int64_t k = 0; k < n; k++) ref_store_i(t, k, perm[k]);
  free(perm);
  st = rs_to_device(h, device, &t);
  if (st != TABI_OK) return st;
  outs[0] = tabi_tensor_value(t);
  return TABI_OK;
}

const ref_kernel ref_create2_kernels[] = {
    {"aten::rand", k_rand},
    {"aten::randn", k_randn},
    {"aten::randperm", k_randperm},
    {"prims::uniform", k_prims_uniform},
    {"prims::normal", k_prims_normal},
    {NULL, NULL},
};
