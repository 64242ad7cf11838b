/* conformance/conform.h: `tabi conform`, the suite that proves a plugin right.
 *
 * The `tabi` CLI hands `tabi conform ...` to tabi_conform_cli (argv[0] is
 * "conform"); everything else (argument parsing, the runs, the reports) lives in
 * this library so tests and other tools can drive it directly.
 *
 *   tabi conform --plugin PATH|NAME [--device N] [--ops GLOB[,GLOB...]]
 *                [--dtypes LIST] [--seed S] [--jobs N] [--timeout SEC]
 *                [--json FILE] [--junit FILE] [--matrix FILE] [--reference PATH]
 *                [--exclude-ops GLOB[,GLOB...]] [--threads-ms MS]
 *                [--robust-calls N] [--budget SEC] [--exact] [--quiet]
 *
 * The oracle is a runtime holding the reference plugin; the runtime under test
 * holds the plugin (plus the "decomp" composite kernels when found). Each group
 * of checks (ABI, one per op, devices) runs in a forked child with a time limit.
 * What is checked and how to read a report: docs/conformance.md.
 *
 * Threading: not thread-safe (it forks); call from the main thread of a process
 * that has started no other threads. Never aborts or exits: results come back as
 * the return value.
 */
#ifndef TABI_CONFORM_H
#define TABI_CONFORM_H

#include <stdint.h>

#define CONFORM_MAX_PATH 1024

typedef struct conform_options {
  const char *plugin;      /* path (contains '/') or name; required */
  const char *reference;   /* path or name of the oracle; NULL: "reference" */
  int32_t device;          /* device index under test (default 0) */
  const char *ops;         /* comma-separated fnmatch globs over "ns::name.overload"
                              (a glob without "::" also matches the bare name); NULL all */
  const char *exclude_ops; /* globs as for ops: left out (known issues); NULL none */
  const char *dtypes;      /* comma-separated dtype names ("float32,int64"); NULL all */
  uint64_t seed;           /* sample generation and random-op seed (default 0) */
  int32_t jobs;            /* children in parallel; <= 0: number of cores */
  int32_t timeout_s;       /* per group; <= 0: 60 */
  const char *json_path;   /* reports; NULL: not written */
  const char *junit_path;
  const char *matrix_path;
  int32_t quiet;           /* 1: no progress line on stderr */
  int32_t threads_ms;      /* wall time of the 4-thread check per op; <= 0: 60 */
  int32_t robust_calls;    /* random calls per op, most of them bad input
                              (conform_robust.h); 0: 100; < 0: none */
  int32_t budget_s;        /* the whole run's time; past it no group starts and
                              running ones stop, reported as skipped
                              ("budget"); <= 0: no limit */
  int32_t exact;           /* 1: results must equal the oracle's exactly (every
                              tolerance 0, +0 and -0 differ; NaN still matches
                              NaN): for comparing two builds of one plugin */
} conform_options;

/* Defaults as documented above. */
void tabi_conform_options_init(conform_options *options);

/* Runs the suite. Returns 0 when every case passed or was skipped, 1 when any
 * failed, 2 when the run itself could not start (no plugin, no reference, bad
 * options; the reason is printed on stderr), 3 when none failed but the
 * budget ran out before every group had run (the reports list those groups
 * as skipped, kind "budget"). */
int tabi_conform_run(const conform_options *options);

/* The CLI: parses argv (argv[0] is the command name, "conform") and runs.
 * Returns the process exit code (0, 1, 2 as above; 0 for --help). */
int tabi_conform_cli(int argc, char **argv);

#endif /* TABI_CONFORM_H */
