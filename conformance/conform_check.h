/* conformance/conform_check.h: the checks on one call's results (conform_check.c).
 *
 * A `conform_call` is one sample run on both sides: the oracle's arguments and
 * results, the plugin's arguments (copies in the runtime under test) and results.
 * Each check emits its own FAIL records and returns how many it emitted, so the
 * caller knows whether the sample passed.
 */
#ifndef TABI_CONFORM_CHECK_H
#define TABI_CONFORM_CHECK_H

#include "conform_int.h"

#define CONFORM_MAX_OUTS 8

typedef struct conform_call {
  conform_ctx *c;
  const char *op;            /* names for the records */
  const char *dtype;
  const conform_sample *s;   /* oracle side: args (mutated in place by the reference) */
  const tabi_op_info *info;  /* schema (test runtime) */
  conform_args *ta;          /* plugin side args */
  int32_t nouts;
  tabi_value ro[CONFORM_MAX_OUTS]; /* reference results (oracle runtime) */
  tabi_value po[CONFORM_MAX_OUTS]; /* plugin results (test runtime) */
} conform_call;

/* Storage snapshots of the plugin-side inputs, taken before the call. */
typedef struct conform_snap {
  int32_t n;
  int32_t arg[CONFORM_MAX_ARGS * CONFORM_MAX_LIST];
  tabi_tensor *t[CONFORM_MAX_ARGS * CONFORM_MAX_LIST]; /* borrowed from the args */
  uint8_t *bytes[CONFORM_MAX_ARGS * CONFORM_MAX_LIST];
  uint64_t nbytes[CONFORM_MAX_ARGS * CONFORM_MAX_LIST];
} conform_snap;

/* Snapshots every tensor argument the schema does not mark mutable. */
tabi_status conform_snap_take(conform_call *k, conform_snap *snap);
/* FAIL input-mutated for every snapshotted storage that changed. */
int32_t conform_snap_check(conform_call *k, const conform_snap *snap);
void conform_snap_free(conform_snap *snap);

/* Every result: kind, guards, dtype, shape, aliasing, values (or the random-op
 * checks), and the mutable arguments against the reference's. */
int32_t conform_check_results(conform_call *k);

/* The plugin's results as one byte string (tensors row-major, scalars raw), for
 * bitwise comparisons (threads, reproducibility). malloc'ed. */
tabi_status conform_outs_bytes(tabi_runtime *rt, const tabi_value *outs, int32_t n, uint8_t **out,
                               uint64_t *out_n);

#endif /* TABI_CONFORM_CHECK_H */
