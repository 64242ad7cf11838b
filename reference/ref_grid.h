/* reference/ref_grid.h: grid_sampler_2d's coordinate arithmetic (ATen's
 * GridSampler.h, in double), shared by the reference kernel (ref_nn4.c) and
 * the CPU plugin's (plugins/cpu/cpu_nn3_grid.c), so both map a grid point to
 * the same taps and weights. Padding 0 zeros, 1 border, 2 reflection. Compile
 * without FMA contraction: floor/round of these values decide the taps. */
#ifndef TABI_REF_GRID_H
#define TABI_REF_GRID_H

#include <math.h>
#include <stdint.h>

static inline double gs_unnormalize(double c, int64_t size, int align) {
  return align ? (c + 1) / 2 * (double)(size - 1) : ((c + 1) * (double)size - 1) / 2;
}
static inline double gs_clip(double c, int64_t size) {
  return fmin((double)(size - 1), fmax(c, 0.0));
}
static inline double gs_reflect(double c, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return 0;
  double mn = (double)twice_low / 2, span = (double)(twice_high - twice_low) / 2;
  c = fabs(c - mn);
  double extra = fmod(c, span);
  int64_t flips = (int64_t)floor(c / span);
  return flips % 2 == 0 ? extra + mn : span - extra + mn;
}
static inline double gs_pad(double c, int64_t size, int pad, int align) {
  if (pad == 1) return gs_clip(c, size);
  if (pad == 2) {
    c = align ? gs_reflect(c, 0, 2 * (size - 1)) : gs_reflect(c, -1, 2 * size - 1);
    return gs_clip(c, size);
  }
  return c;
}
/* Non-finite or out-of-int range coordinates become -100 (outside), as ATen. */
static inline double gs_safe(double c) {
  return (!isfinite(c) || c > 2147483647.0 || c < -2147483648.0) ? -100.0 : c;
}
/* Bicubic convolution weights (A = -0.75): |t| <= 1 and 1 < |t| < 2. */
static inline double cubic1(double t, double A) { return ((A + 2) * t - (A + 3)) * t * t + 1; }
static inline double cubic2(double t, double A) { return ((A * t - 5 * A) * t + 8 * A) * t - 4 * A; }

#endif /* TABI_REF_GRID_H */
