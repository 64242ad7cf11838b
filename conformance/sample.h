/* conformance/sample.h: a sample is one call of one op with concrete arguments.
 *
 * Generators (samples_*.c, one per op family, data-driven where possible) build
 * samples on the host, as CPU tensors of the oracle runtime (the one holding the
 * reference plugin). The runner calls the reference on them, copies every tensor
 * argument to the device under test keeping shape, strides and storage offset
 * (so a transposed or offset view stays one), calls the plugin, and compares.
 *
 * Interface between the runner (conform_*.c) and the generators; both sides may
 * add fields at the end and functions, never change what is here.
 */
#ifndef TABI_CONFORM_SAMPLE_H
#define TABI_CONFORM_SAMPLE_H

#include <stdint.h>

#include <tabi/runtime.h>

#define CONFORM_MAX_ARGS 16
#define CONFORM_MAX_LIST 16

/* conform_sample.flags */
#define CONFORM_EXPECT_ERROR 0x1u /* bad input: the plugin must return a non-OK status
                                     (and not crash); outputs not compared */
#define CONFORM_RANDOM       0x2u /* random op: compared for dtype, shape, range and
                                     same-seed reproducibility, not element values */
#define CONFORM_TIES         0x4u /* sort/topk/max.dim/argmax-like: index outputs may
                                     differ where values tie; runner compares the
                                     values and checks indices point at equal values */
#define CONFORM_NO_NAN_EQUAL 0x8u /* NaN in output must not match NaN (rare) */

typedef struct conform_sample {
  char name[128];           /* short and stable: "broadcast [3, 1] + [1, 4]", "transposed",
                               "special values", "empty", "0-d", "alpha=2" */
  int32_t nargs;            /* by position; trailing defaults may be omitted */
  tabi_value args[CONFORM_MAX_ARGS];
  uint32_t flags;           /* CONFORM_* */
  double rtol, atol;        /* both 0: the output dtype's defaults (tolerances.md) */
  const char *tol_reason;   /* required (static string) when rtol/atol are set */
  /* Backing storage the args point into; the sample owns all of it. */
  int64_t ints[CONFORM_MAX_ARGS][CONFORM_MAX_LIST];
  double floats[CONFORM_MAX_ARGS][CONFORM_MAX_LIST];
  tabi_tensor *tensors[CONFORM_MAX_ARGS][CONFORM_MAX_LIST]; /* owned references */
  char strs[CONFORM_MAX_ARGS][32];
} conform_sample;

typedef struct conform_sample_list {
  conform_sample *items;
  int32_t count;
  int32_t cap;
} conform_sample_list;

/* Appends the samples of `op` for `dtype` (tensors created in `oracle`, CPU),
 * deterministic for a given seed. Samples that make the reference refuse the
 * dtype are fine: the runner treats a TABI_ERR_TYPE from the reference as
 * "dtype unsupported by the op". *out_known is 0 when no generator knows the op
 * (the runner reports it skipped, "no sample generator"). */
tabi_status conform_samples_generate(tabi_runtime *oracle, const tabi_op_info *op,
                                     tabi_dtype dtype, uint64_t seed, conform_sample_list *list,
                                     int32_t *out_known);

/* Releases every tensor the samples own and frees the list's items. */
void conform_sample_list_clear(conform_sample_list *list);


/* --- appended by the generators (gen.c) ------------------------------------ */

/* More conform_sample.flags. */
#define CONFORM_UNINIT       0x10u /* outputs' values are unspecified (empty, empty_strided):
                                      compare dtype, shape and strides only */
#define CONFORM_SIGN_AMBIGUOUS 0x20u /* svd: U's columns and Vh's rows are defined up to a
                                      sign (a phase for complex); compare S, and U, Vh
                                      only through |values| or the reconstruction */
#define CONFORM_DISTINCT_INDEX 0x40u /* scatter.src, index_put: the samples' indices are
                                      distinct, since with a repeated one the result
                                      depends on the order of the writes (ATen leaves
                                      it unspecified); random calls compare shapes only */
#define CONFORM_FINITE_INPUTS 0x80u /* FFTs: the samples' inputs are finite, since with
                                      an infinity or NaN the result depends on the
                                      algorithm (which terms meet: inf - inf is NaN in
                                      one order and not another); random calls compare
                                      values only when every input element is finite */
#define CONFORM_SINGULAR 0x100u /* at a point where the op has no derivative (a zero
                                   variance with eps ~0: rstd ~1e155): values are
                                   compared, gradcheck leaves the sample out */
#define CONFORM_PRODUCT_ORDER 0x200u /* prod: where a product of many elements
                                        underflows to 0 depends on its order, so with
                                        an infinity among them it is NaN (0 * inf) in
                                        one order and inf in another; random calls
                                        compare values only without a tiny element
                                        (below 2^-64) beside an infinity */
#define CONFORM_SUM_ORDER 0x400u /* sum, mean, cumsum, var: a floating sum of
                                    integers past 2^24 (+-2^63 beside small
                                    ones) absorbs the small terms in one order
                                    and not in another (ATen, the reference and
                                    a GPU's tree each give another mean); random
                                    calls compare floating results only without
                                    such an integer input */

/* Sample args point into the sample's own arrays (ints, floats, tensors, strs).
 * A sample copied or moved to another address must be rebased: this re-points
 * every such arg of `s` from the copy at `old_addr` to `s` itself. */
void conform_sample_rebase(conform_sample *s, const conform_sample *old_addr);

#endif /* TABI_CONFORM_SAMPLE_H */
