/* tabi/ext_autocast.h: the "tabi.autocast" extension, version 1.
 *
 * The autocast plugin (libtabi_autocast.so) declares the "autocast" layer
 * (TABI_PRIORITY_AUTOCAST) and registers a kernel for every op that PyTorch's
 * autocast lists (../shared/spec/autocast.md), mapped onto the core op set. Ops
 * it does not list have no kernel at the layer, so they cost nothing even while
 * autocast is on. A framework reaches it without linking to the plugin:
 *
 *   const tabi_autocast_api *ac;
 *   tabi_runtime_extension(rt, TABI_AUTOCAST_EXTENSION, TABI_AUTOCAST_VERSION,
 *                          (const void **)&ac);
 *   int32_t prev = ac->set_enabled(ac->ctx, kDLCPU, 1);  // enter a region
 *   ... calls: aten::mm runs in bfloat16, aten::log in float32 ...
 *   ac->set_enabled(ac->ctx, kDLCPU, prev);              // leave it
 *
 * Policies (TABI_AUTOCAST_POLICY_*), as PyTorch's CastPolicy:
 *   LOWER_PRECISION  floating inputs (not float64) are cast to the region's dtype
 *                    (set_dtype; default bfloat16 on the CPU, float16 elsewhere)
 *   FP32             floating inputs (not float64) are cast to float32
 *   FP32_SET_OPT_DTYPE  an unset `ScalarType? dtype` becomes float32 when the
 *                    first argument is a floating tensor (not float64)
 *   PROMOTE          floating inputs (not float64) are cast to the widest of them
 * The CPU uses PyTorch's AutocastCPU lists; every other device type uses the
 * CUDA lists (as PyTorch reuses them for XPU and PrivateUse1 backends).
 *
 * Cast cache: inside a region, a float32 leaf that requires grad (a weight; known
 * through the "tabi.autograd" extension when that plugin is loaded) is cast once
 * per target dtype and the cast is reused while its version counter is unchanged.
 * The cache is cleared when the thread's last enabled device type is disabled (the
 * outermost region exits) or by clear_cache.
 *
 * Threading: all state (enabled device types, dtypes, the cache) is per thread and
 * per runtime, as in PyTorch. Every function may be called from any thread.
 *
 * Every function takes the table's ctx first. Fields past struct_size are absent
 * (TABI_FIELD_PRESENT).
 */
#ifndef TABI_EXT_AUTOCAST_H
#define TABI_EXT_AUTOCAST_H

#include <stdint.h>

#include "dtype.h"
#include "op.h"
#include "status.h"

#define TABI_AUTOCAST_EXTENSION "tabi.autocast"
#define TABI_AUTOCAST_VERSION 1u

#define TABI_AUTOCAST_POLICY_NONE             0 /* not listed: runs in its input dtypes */
#define TABI_AUTOCAST_POLICY_LOWER_PRECISION  1
#define TABI_AUTOCAST_POLICY_FP32             2
#define TABI_AUTOCAST_POLICY_FP32_SET_OPT_DTYPE 3
#define TABI_AUTOCAST_POLICY_PROMOTE          4

typedef struct tabi_autocast_api {
  uint32_t struct_size;
  uint32_t version; /* TABI_AUTOCAST_VERSION */
  void *ctx;        /* pass as the first argument of every function below */

  /* Enables (1) or disables (0) autocast for `device_type` (a DLDeviceType) on
   * this thread. Returns the previous value (0/1), so regions nest as
   * set/restore pairs; -1 when device_type is out of range (1..16; error set,
   * nothing changed). */
  int32_t (*set_enabled)(void *ctx, int32_t device_type, int32_t enabled);
  /* 1 when enabled for device_type on this thread, else 0. */
  int32_t (*is_enabled)(void *ctx, int32_t device_type);
  /* The lower-precision dtype of device_type on this thread (float16 or
   * bfloat16). Returns the previous one, or TABI_DTYPE_INVALID (error set,
   * nothing changed) for another dtype or a bad device type. */
  tabi_dtype (*set_dtype)(void *ctx, int32_t device_type, tabi_dtype dtype);
  tabi_dtype (*get_dtype)(void *ctx, int32_t device_type);
  /* Drops this thread's cast cache (releasing the cached casts). */
  void (*clear_cache)(void *ctx);
  /* Turns the cast cache on (default) or off for this thread; returns the
   * previous value. */
  int32_t (*set_cache_enabled)(void *ctx, int32_t enabled);
  /* Number of casts held in this thread's cache (for tests and tools). */
  int64_t (*cache_size)(void *ctx);
  /* The policy (TABI_AUTOCAST_POLICY_*) applied to `op` on device_type. */
  int32_t (*policy)(void *ctx, int32_t device_type, tabi_op op);
  /* The ops with a policy on device_type: writes up to `cap` handles to out_ops
   * (may be NULL when cap is 0) and returns how many there are. */
  int32_t (*listed_ops)(void *ctx, int32_t device_type, tabi_op *out_ops, int32_t cap);
} tabi_autocast_api;

/* Gradient scaler ops the plugin registers (composite kernels built from ATen and
 * prims calls, so they run on every device):
 *
 *   tabi::amp_non_finite_check_and_unscale_(Tensor(a!)[] self, Tensor(b!) found_inf,
 *       Tensor inv_scale) -> ()
 *     Multiplies every tensor of `self` by inv_scale (a 1-element float32 tensor)
 *     in place and sets found_inf (1-element float32) to 1.0 when any element of
 *     any of them is NaN or infinite (it is never reset to 0 here).
 *
 *   tabi::amp_update_scale_(Tensor(a!) self, Tensor(b!) growth_tracker,
 *       Tensor found_inf, float scale_growth_factor, float scale_backoff_factor,
 *       int growth_interval) -> Tensor(a!)
 *     PyTorch's _amp_update_scale_: on found_inf the scale (self, 1-element
 *     float32) is multiplied by the backoff factor and the tracker (1-element
 *     int32) reset; otherwise the tracker counts up and, on reaching
 *     growth_interval, the scale grows (when the grown value is finite) and the
 *     tracker resets. Returns self.
 */
#define TABI_AMP_UNSCALE_OP "tabi::amp_non_finite_check_and_unscale_"
#define TABI_AMP_UPDATE_SCALE_OP "tabi::amp_update_scale_"

#endif /* TABI_EXT_AUTOCAST_H */
