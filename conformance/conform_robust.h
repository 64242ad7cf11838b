/* conformance/conform_robust.h: random calls of one op, most of them bad input.
 *
 * `tabi conform` runs them for every op after its samples (--robust-calls N a
 * op, default 100), and tests/robust/random_calls runs them alone. The
 * arguments have the schema's types (the dispatcher checks those) and random
 * values (conform_rgen.h): odd dtypes, shapes, layouts and devices, huge and
 * negative sizes, NaN and infinite scalars, unknown dtypes and strings,
 * read-only tensors. Most calls should be refused; what must hold for every
 * call is:
 *   - it returns (the caller's time limit) with a status tabi knows;
 *   - a refusal's message names the op ("aten::add" of "aten::add.Tensor");
 *   - no input it may not write changes (arguments not marked `(a!)`, and
 *     read-only tensors even where they are), whether accepted or refused;
 *   - an accepted call's outputs are readable and their red zones intact, and
 *     no storage freed after the call had a damaged red zone;
 *   - with an oracle (a runtime holding the reference), what it refuses must
 *     be refused: the same call is drawn a second time there, tensors on the
 *     CPU, and an accepted call the reference refuses (out of memory aside) is
 *     accepted-bad-input, with the reference's message; a call both accept
 *     must give the reference's results (conform_twin.h: outputs and in-place
 *     arguments, their dtypes, shapes and values within the tolerances), and
 *     a call the plugin refuses must be refused there as well
 *     (refused-good-input), unless the refusal is one a good call may get:
 *     out of memory, any refusal of a call that reaches past the device
 *     under test (a tensor or a Device argument elsewhere: the twin's
 *     tensors are all on the CPU, so it cannot judge), TABI_ERR_TYPE for a
 *     dtype the plugin does not claim, TABI_ERR_UNIMPLEMENTED from an op it
 *     serves through a decomposition;
 *   - once every tensor of the call is released, the tensor memory in use is
 *     what it was before it (a kernel that keeps a temporary, a graph that
 *     outlives its tensors: kind leaked-memory).
 * Crashes and hangs are the caller's to catch (`tabi conform` runs each op in
 * a child process; random_calls sets an alarm); `mark` tells it which call is
 * in flight. Not installed: shared by the suite and its tests. */
#ifndef TABI_CONFORM_ROBUST_H
#define TABI_CONFORM_ROBUST_H

#include <stdint.h>

#include <tabi/ext_autograd.h>
#include <tabi/runtime.h>
#include <tabi/tabi.h>

typedef struct conform_robust_stats {
  int64_t calls;
  int64_t backwards; /* through autograd: backward or grad_of calls that worked */
  int64_t by_status[TABI_STATUS_COUNT]; /* by status: [TABI_OK] accepted, the rest refused */
  int64_t compared;  /* accepted calls whose values were compared with the reference's */
  int64_t confirmed; /* refused calls the reference was asked about and refused too */
} conform_robust_stats;

typedef struct conform_robust_failure {
  int32_t call;      /* which call (0-based) broke a rule */
  const char *kind;  /* a CONFORM_K_* word (docs/conformance.md) */
  char detail[1024]; /* what happened, then the call: op(arguments) */
} conform_robust_failure;

/* Called before call k with its arguments described ("float32[2,3]{3,1}+0@1,
 * 5, None", at most CONFORM_ROBUST_DESC_MAX bytes with its NUL); desc lives
 * until the next call. */
#define CONFORM_ROBUST_DESC_MAX 4096
typedef void (*conform_robust_mark_fn)(void *user, int32_t k, const char *desc);

/* The generator seed for one op: a function of the run's seed and the op's
 * name only, so `--ops NAME` replays exactly the calls of a full run. */
uint64_t conform_robust_seed(uint64_t seed, const char *op_name);

/* The oracle of the random calls: a runtime whose CPU backend is the
 * reference, and the dtypes the plugin claims (`tabi conform --dtypes`). A
 * call the plugin refuses with TABI_ERR_TYPE while the reference accepts it
 * is a pass when the call involves a dtype outside that list (an argument's,
 * a dtype argument, a complex scalar, a result of the reference's); with
 * dtypes NULL every dtype is claimed. */
typedef struct conform_robust_oracle {
  tabi_runtime *rt;
  const tabi_dtype *dtypes;
  int32_t ndtypes;
} conform_robust_oracle;

/* Makes `calls` random calls of op on dev (tensors there, now and then on the
 * CPU) in rt, which should have been created with
 * TABI_RUNTIME_GUARD_ALLOCATIONS (without it red zones are not checked).
 * oracle: NULL, or the reference to check acceptance and results against
 * (above; skipped for an op the reference does not have). An op the plugin
 * runs through a decomposition (tabi_op_backend_status) may refuse a good
 * call with TABI_ERR_UNIMPLEMENTED: its decomposition reached an op the
 * device lacks, a gap `tabi conform` reports as missing, not a failure.
 * Stops at the first call that breaks a rule. Returns 1 when every call held,
 * 0 when one did not (*fail says which and how), -1 when the op cannot be
 * driven (more arguments than the generator handles, or an input could not
 * be read back; *fail says why, kind NULL for the former). stats counts the
 * calls made. */
int conform_robust_op(tabi_runtime *rt, DLDevice dev, const conform_robust_oracle *oracle, tabi_op op,
                      int32_t calls, uint64_t seed, conform_robust_mark_fn mark, void *user, conform_robust_stats *stats,
                      conform_robust_failure *fail);

/* The same calls through an autograd layer (ag, the "tabi.autograd" extension
 * of a plugin loaded in rt above a CPU backend), on the CPU. Besides the rules
 * above, for each call:
 *   - no argument, a new tensor, carries autograd state yet; about half are
 *     marked requires_grad, which must take for floating and complex dtypes
 *     and be refused, with a message, for the others;
 *   - grad mode is off for one call in eight: then no output requires grad;
 *     with it on, no integer or bool output does;
 *   - after most accepted calls with outputs requiring grad, a backward (into
 *     .grad, or grad_of) with random grad_outputs of the outputs' shapes and
 *     dtypes must work (TABI_ERR_UNIMPLEMENTED aside) and give each input a
 *     gradient of its shape and dtype, or none; a grad_output of the wrong
 *     shape, or none for an output of more than one element, must be refused;
 *     a second backward (a quarter of the time) must work or refuse, never
 *     touch a freed graph; and backward writes no input.
 * Kinds as above, and gradcheck for a backward that refuses or gives a
 * gradient of the wrong shape or dtype. oracle as for conform_robust_op: what
 * the reference refuses, the call through autograd must refuse, and what it
 * accepts, accept, but for a call that writes in place or to out= while an
 * argument requires grad and grad mode is on, some of which autograd refuses
 * as torch does (a leaf written in place; out= arguments; the autograd choices
 * draw from a stream of their own, so the twin stays in step).
 * Returns as conform_robust_op. */
int conform_robust_grad_op(tabi_runtime *rt, const tabi_autograd_api *ag, const conform_robust_oracle *oracle,
                           tabi_op op, int32_t calls, uint64_t seed, conform_robust_mark_fn mark, void *user,
                           conform_robust_stats *stats, conform_robust_failure *fail);

/* Call k of the random calls of op (as conform_robust_op draws it for seed,
 * on dev) without making it: each argument described, and a tensor's
 * elements in row-major order (the first 64), one argument a line, into buf.
 * The draws of calls 0 to k-1 are replayed to get there. Returns 1, or 0 when
 * the op cannot be drawn (buf says why). */
int conform_robust_show(tabi_runtime *rt, DLDevice dev, tabi_op op, uint64_t seed, int32_t k, char *buf,
                        size_t cap);

/* "TYPE 78, SHAPE 37": the refusals of stats, most frequent first. */
void conform_robust_stats_str(const conform_robust_stats *stats, char *buf, size_t cap);

#endif /* TABI_CONFORM_ROBUST_H */
