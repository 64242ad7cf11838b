/* conformance/conform_features.h: conformance checks of the autocast and
 * profiler feature plugins, as library functions (for `tabi conform` and tests).
 *
 * Autocast (conform_features_autocast): in a runtime holding the reference, the
 * decompositions and the autocast plugin,
 *  - the policy the plugin reports (tabi.autocast policy/listed_ops) for every op
 *    of the core set, on the CPU and on CUDA, equals PyTorch's lists
 *    (../shared/spec/autocast.md mapped onto the core op names; the expectation
 *    table here is written from the spec, independently of the plugin's);
 *  - every op listed for the CPU, run under autocast on float32 samples (for fp32
 *    and promote: with bfloat16 inputs, so the policy has work to do), returns
 *    the dtype its policy says, and exactly (bitwise) what the op returns without
 *    autocast on inputs cast as the policy says: so the inputs were cast as the
 *    policy says, no more and no less;
 *  - the thread's excluded keys are restored after every call.
 * Profiler (conform_features_profiler): in a runtime holding the reference, the
 * decompositions and the profiler plugin, a session of known calls (in nested
 * user ranges) then:
 *  - every call is recorded exactly once, in call order, at its nesting level;
 *  - nesting is consistent: a child lies within its parent's time on the same
 *    thread, depth = parent's + 1, self time = total minus direct children >= 0;
 *  - memory balances: the memory events sum to zero over a session that freed
 *    what it allocated, and each event's alloc/free equal the memory events
 *    attributed to it;
 *  - the Chrome trace parses as JSON (a validator here, no dependency) and holds
 *    one "X" event per recorded event;
 *  - with no session the layer's key is off (recording costs nothing).
 *
 * Plugins are given as paths (containing '/') or names; reference NULL means
 * "reference", decomp NULL means "decomp" (optional: not loading it is fine).
 * Each failing case prints one line on `log` (NULL: stderr):
 *   "FAIL autocast aten::mm [cpu] <sample>: <what>".
 * Returns 0 when every case passed, 1 when any failed, 2 when the check could not
 * run (a plugin did not load, no extension); counts go to *out (may be NULL).
 * Threading: call from one thread; the checks create their own runtime.
 */
#ifndef TABI_CONFORM_FEATURES_H
#define TABI_CONFORM_FEATURES_H

#include <stdint.h>
#include <stdio.h>

typedef struct conform_feature_result {
  int32_t passed;
  int32_t failed;
  int32_t skipped;
} conform_feature_result;

int conform_features_autocast(const char *autocast_plugin, const char *reference_plugin,
                              const char *decomp_plugin, FILE *log,
                              conform_feature_result *out);

int conform_features_profiler(const char *profiler_plugin, const char *reference_plugin,
                              const char *decomp_plugin, FILE *log,
                              conform_feature_result *out);

/* The same checks, each case also handed to on_case (may be NULL) as it is
 * decided: op is the op name or a check's name ("(listed_ops)", "(trace)",
 * "(memory)", "(session)", "(setup)" when the check cannot run), where is the
 * device or sample ("cpu", "cuda", a sample name, "nesting", ...), status one of
 * CONFORM_FEATURE_*, message empty for a pass. `tabi conform` uses these to turn
 * every case into a report record. */
#define CONFORM_FEATURE_PASS 0
#define CONFORM_FEATURE_FAIL 1
#define CONFORM_FEATURE_SKIP 2
typedef void (*conform_feature_case_fn)(void *user, const char *op, const char *where,
                                        int32_t status, const char *message);

int conform_features_autocast_ex(const char *autocast_plugin, const char *reference_plugin,
                                 const char *decomp_plugin, FILE *log,
                                 conform_feature_case_fn on_case, void *user,
                                 conform_feature_result *out);

int conform_features_profiler_ex(const char *profiler_plugin, const char *reference_plugin,
                                 const char *decomp_plugin, FILE *log,
                                 conform_feature_case_fn on_case, void *user,
                                 conform_feature_result *out);

/* The JSON validator the profiler check uses: 1 when text[0..n) is one valid
 * JSON value (RFC 8259) with only whitespace around it; *out_x_events (may be
 * NULL) counts objects with a "ph" member equal to "X". */
int conform_json_validate(const char *text, size_t n, int64_t *out_x_events);

#endif /* TABI_CONFORM_FEATURES_H */
