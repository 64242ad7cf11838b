/* plugins/cuda/tc_ew_launch.cuh: what the elementwise engine's two files
 * share: the launch's arguments, as every kernel takes them (tc_ew.cu: the
 * strided and flat kernels and the host entry tc_ew_launch; tc_ew_vec.cu:
 * the kernels over contiguous float32/float16/bfloat16), and the vector
 * kernels' entry. */
#ifndef TABI_TC_EW_LAUNCH_CUH
#define TABI_TC_EW_LAUNCH_CUH

#include "tc_ew_fn.cuh" /* the element functions */

typedef struct tc_ew_launch_args {
  int32_t nd, nin, cd;
  int64_t n;
  int64_t shape[TC_MAX_DIMS];
  tc_operand o[TC_MAX_OPS]; /* 0: out, 1..: inputs */
  tc_ew_params p;
  int *err;
} tc_ew_launch_args;

/* Blocks of 256 threads for n items, a thread each, at most 65536 (the
   kernels loop over the rest). */
static inline int tc_ew_grid(int64_t n) {
  int64_t g = (n + 255) / 256;
  if (g > 65536) g = 65536;
  return g < 1 ? 1 : (int)g;
}

/* Launches a coalesced one-dim launch of the float category (a->nd 1) on
 * tc_ew_vec.cu's kernels where they take it (lean: the op is of the lean
 * set); 0 where they do not, and nothing is launched. */
int tc_ew_vec_launch(const tc_ew_launch_args *a, int lean);

#endif
