/* conformance/conform_twin.h: an accepted random call against the
 * reference's.
 *
 * The random calls (conform_robust.h) draw every call a second time in the
 * oracle, the reference's runtime, with a twin generator: the same dtypes,
 * shapes, layouts and values, on the CPU. When both accept it, the results
 * must agree as a sample's would: the same kind and number of outputs, each
 * tensor's dtype and shape, and their values within the tolerances, and the
 * arguments written in place likewise.
 *
 * What may be compared comes from the op's samples (sample.h), whose flags
 * say it for the inputs they make: a random op (CONFORM_RANDOM), unspecified
 * values (CONFORM_UNINIT), a sign or phase (CONFORM_SIGN_AMBIGUOUS), or the
 * order of writes through a repeated index (CONFORM_DISTINCT_INDEX, which the
 * random indices have) leave values out and keep dtype and shape; ties
 * (CONFORM_TIES) leave out the int64 outputs, the indices; an algorithm's
 * order with an infinity or NaN (CONFORM_FINITE_INPUTS) leaves values out of
 * the calls with one in an input, and a sum's order (CONFORM_SUM_ORDER) the
 * floating results of calls with an integer input past 2^24. An op no
 * generator knows is compared for dtype and shape only. The calls' inputs leave values out too where ATen's
 * own kernels give more than one answer (conform_twin.c says which), and
 * so do calls whose argument written in place shares storage with another
 * argument other than as the same view. Not installed. */
#ifndef TABI_CONFORM_TWIN_H
#define TABI_CONFORM_TWIN_H

#include <stddef.h>
#include <stdint.h>

#include <tabi/runtime.h>
#include <tabi/tabi.h>

#include "conform_int.h"

#define CONFORM_TWIN_DTYPES 16 /* indexed by tabi_dtype, whose codes are below 16 */

typedef struct conform_twin_rules {
  int32_t known;    /* a sample generator knows the op */
  uint32_t flags;   /* the CONFORM_* flags of its samples, over every dtype */
  conform_tol tol[CONFORM_TWIN_DTYPES]; /* by output dtype: the default, or the
                                           larger one a sample of that dtype set */
} conform_twin_rules;

/* The rules for op (info: the oracle's), from its samples in every dtype. */
void conform_twin_rules_of(tabi_runtime *oracle, const tabi_op_info *info, conform_twin_rules *out);

/* Whether the plugin's results (outs, in rt; args after the call) agree with
 * the reference's (touts, targs, in oracle). 1 when they do; 0 with *kind (a
 * CONFORM_K_* word) and why, which names the output or argument.
 * *out_values: whether element values were compared (or only dtypes and
 * shapes). */
int conform_twin_compare(tabi_runtime *rt, tabi_runtime *oracle, const tabi_op_info *info,
                         const conform_twin_rules *rules, const tabi_value *outs, const tabi_value *touts,
                         int32_t nouts, const tabi_value *args, const tabi_value *targs, int32_t *out_values,
                         const char **kind, char *why, size_t cap);

#endif /* TABI_CONFORM_TWIN_H */
