/* plugins/cpu/cpu_pool_win.h: the window arithmetic every pooling kernel of
 * the CPU plugin shares (max/avg pool 1d-3d, adaptive average pooling, their
 * backwards), so the rules live in one place instead of one copy per kernel.
 *
 * The rules are the reference's (reference/ref_nn2.c), which are ATen's:
 *  - output size: floor or ceil of (in + 2*pad - dil*(k-1) - 1) / stride, plus
 *    one; with ceil_mode the last window must start inside the input or the
 *    left padding, else it is dropped; pad <= kernel/2; output >= 1.
 *  - avg: the window [start, min(start + k, in + pad)) is clipped to the input
 *    for the sum; divisor: divisor_override, else the unclipped window
 *    (count_include_pad) or the clipped one.
 *  - adaptive: window [floor(i*in/out), ceil((i+1)*in/out)).
 *
 * The helpers only say yes or no: a fast kernel that gets "no" (a value the
 * fast path does not take, huge sizes whose arithmetic could overflow) hands
 * the call to the reference kernel, which owns the error messages.
 */
#ifndef TABI_CPU_POOL_WIN_H
#define TABI_CPU_POOL_WIN_H

#include <stdint.h>

#include <tabi/tabi.h>

/* Larger kernel/stride/padding/dilation/size values go to the reference: below
 * it, every product below stays far from int64 overflow. */
#define CPU_PW_MAX ((int64_t)1 << 31)

static inline int64_t cpu_pw_floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* An int[ns] pooling argument of 1 or ns values (0 values: `dflt` when given)
 * into out[0..ns), each in [lo, CPU_PW_MAX]. 0 when it is anything else. */
static inline int cpu_pw_list(const tabi_value *v, int32_t ns, const int64_t *dflt, int64_t lo,
                              int64_t *out) {
  if (v->tag != TABI_TAG_INT_LIST) return 0;
  int64_t len = v->u.list.len;
  const int64_t *x = tabi_value_ints(v);
  if (len == 0 && dflt) {
    for (int32_t i = 0; i < ns; i++) out[i] = dflt[i];
    return 1;
  }
  if (len != 1 && len != ns) return 0;
  for (int32_t i = 0; i < ns; i++) {
    out[i] = x[len == 1 ? 0 : i];
    if (out[i] < lo || out[i] > CPU_PW_MAX) return 0;
  }
  return 1;
}

/* Output size of a windowed pool along one dim; 0 when the reference would
 * refuse the geometry (pad > kernel/2, output < 1) or `in` is huge. */
static inline int64_t cpu_pw_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                                      int ceil_mode) {
  if (in < 1 || in > CPU_PW_MAX || p > k / 2) return 0;
  int64_t o = cpu_pw_floor_div(in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0), s) + 1;
  if (ceil_mode && (o - 1) * s >= in + p) o--;
  return o < 1 ? 0 : o;
}

/* Average pooling's window of output position o along one dim: clipped to the
 * input [*lo, *hi), and the unclipped (padded) size *pool. */
static inline void cpu_pw_avg_win(int64_t o, int64_t s, int64_t p, int64_t k, int64_t in, int64_t *lo,
                                  int64_t *hi, int64_t *pool) {
  int64_t start = o * s - p, end = start + k;
  if (end > in + p) end = in + p;
  *pool = end - start;
  *lo = start < 0 ? 0 : start;
  *hi = end > in ? in : end;
}

/* Adaptive pooling's window of output position i along one dim. */
static inline int64_t cpu_pw_ad_start(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
static inline int64_t cpu_pw_ad_end(int64_t i, int64_t out, int64_t in) {
  return ((i + 1) * in + out - 1) / out;
}

/* Max pooling: the first in-range tap of a window starting at `start` with
 * dilation d (the index a window without a larger element reports). */
static inline int64_t cpu_pw_first_tap(int64_t start, int64_t d) {
  return start >= 0 ? start : start + ((-start + d - 1) / d) * d;
}

#endif /* TABI_CPU_POOL_WIN_H */
