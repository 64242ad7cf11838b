/* conformance/conform_int.h: what the parts of the suite share (not installed).
 *
 * A run is a list of groups (ABI checks, one group per op, device checks). The
 * parent plans them and forks one child per group (conform_isolate.c); the child
 * runs its checks against the two runtimes it inherited and writes one record per
 * case, plus progress records, through a pipe. The parent turns records into the
 * reports (conform_report.c).
 */
#ifndef TABI_CONFORM_INT_H
#define TABI_CONFORM_INT_H

#include <stdint.h>

#include <tabi/ext_autograd.h>
#include <tabi/runtime.h>

#include "conform.h"
#include "sample.h"

/* Case statuses. */
#define CONFORM_ST_PASS        0
#define CONFORM_ST_FAIL        1
#define CONFORM_ST_SKIP        2
#define CONFORM_ST_UNSUPPORTED 3 /* the reference refuses the dtype, and so did the plugin */
#define CONFORM_ST_PROGRESS    9 /* not a case: "now at this sample" (names a crash site) */

/* Failure kinds: fixed words, documented in docs/conformance.md. */
#define CONFORM_K_VALUE       "value-mismatch"
#define CONFORM_K_DTYPE       "wrong-dtype"
#define CONFORM_K_SHAPE       "wrong-shape"
#define CONFORM_K_STRIDES     "wrong-strides"       /* empty_strided and friends */
#define CONFORM_K_OUTPUT      "wrong-output"        /* wrong number/kind of results */
#define CONFORM_K_GUARD       "wrote-outside-output"
#define CONFORM_K_MUTATED     "input-mutated"
#define CONFORM_K_NOT_VIEW    "not-a-view"
#define CONFORM_K_ALIAS       "unexpected-alias"
#define CONFORM_K_CRASH       "crashed"
#define CONFORM_K_TIMEOUT     "timed-out"
#define CONFORM_K_ERROR       "error-status"
#define CONFORM_K_ACCEPTED    "accepted-bad-input"
#define CONFORM_K_REFUSED     "refused-good-input"  /* a random call the reference accepts */
#define CONFORM_K_THREADS     "nondeterministic-threads"
#define CONFORM_K_REPRO       "not-reproducible"
#define CONFORM_K_RANGE       "out-of-range"        /* random op output outside its range */
#define CONFORM_K_METADATA    "bad-metadata"
#define CONFORM_K_DEVICE      "device-error"
#define CONFORM_K_MISSING     "missing"             /* (a skip) decomposition lacks a prim */
#define CONFORM_K_HARNESS     "harness-error"       /* the suite could not run the case */
#define CONFORM_K_HOST_ONLY   "host-only"           /* (a skip) no tensor and no Device
                                                       argument: the op runs on the CPU */
/* Random calls (conform_robust.c). */
#define CONFORM_K_STATUS      "unknown-status"      /* a status tabi does not define */
#define CONFORM_K_UNNAMED     "message-lacks-op"    /* a refusal whose message does not
                                                       name the op */
#define CONFORM_K_BUDGET      "budget"              /* (a skip) the run's --budget ran out
                                                       before the group ran or finished */
#define CONFORM_K_LEAK        "leaked-memory"       /* tensor memory in use after a random call's
                                                       tensors were all released */
/* Feature plugins (conform_feature_groups.c). */
#define CONFORM_K_GRADCHECK   "gradcheck"           /* autograd: J^T v vs finite differences */
#define CONFORM_K_AUTOCAST    "autocast-policy"     /* autocast: policy table or behaviour */
#define CONFORM_K_PROFILER    "profiler-accounting" /* profiler: calls, nesting, memory, trace */

/* One case (or a progress mark), as it crosses the pipe: fixed size, under
 * PIPE_BUF so a write is atomic. */
typedef struct conform_record {
  int32_t status;           /* CONFORM_ST_* */
  int32_t group;            /* index of the group that produced it */
  char op[96];
  char dtype[16];
  char sample[128];
  char kind[32];
  char detail[720];
} conform_record;

/* Groups. */
#define CONFORM_G_ABI    1
#define CONFORM_G_OP     2
#define CONFORM_G_DEVICE 3
#define CONFORM_G_GRAD     4 /* autograd plugin: gradcheck of one op (name) */
#define CONFORM_G_AUTOCAST 5 /* autocast plugin: conform_features_autocast */
#define CONFORM_G_PROFILER 6 /* profiler plugin: conform_features_profiler */

typedef struct conform_group {
  int32_t type;             /* CONFORM_G_* */
  int32_t impl;             /* TABI_IMPL_* of the op (OP groups) */
  char name[96];            /* op name, "abi", "device" */
  char skip_reason[160];    /* non-empty: reported skipped without forking */
} conform_group;

/* Everything a child needs; built by the parent before forking. */
typedef struct conform_ctx {
  const conform_options *opt;
  tabi_runtime *oracle;     /* holds the reference (kDLCPU) */
  tabi_runtime *test;       /* holds the plugin under test (+ decomp) */
  char plugin_spec[CONFORM_MAX_PATH];
  tabi_plugin_info plugin;  /* the plugin under test, as loaded into `test` */
  int32_t plugin_index;
  DLDevice device;          /* where its tensors live */
  char device_name[32];     /* "cpu", "cuda", the device table's name */
  int32_t device_count;
  tabi_dtype dtypes[TABI_DTYPE_COUNT];
  int32_t ndtypes;
  /* Child side: where records go. */
  int32_t out_fd;
  int32_t group;
} conform_ctx;

/* --- records (conform_run.c) ------------------------------------------------ */

/* Writes one case record to the parent. `sample` and `kind` may be NULL. */
void conform_emit(conform_ctx *c, int32_t status, const char *op, const char *dtype,
                  const char *sample, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
/* Marks where the child is, so a crash names the sample it died in. */
void conform_progress(conform_ctx *c, const char *op, const char *dtype, const char *sample);
/* The same with a detail (a random call's arguments) that a crash report
 * quotes. */
void conform_progress_detail(conform_ctx *c, const char *op, const char *sample, const char *detail);

/* 1 when `name` matches one of the comma-separated globs (NULL/empty: all). */
int conform_op_selected(const char *globs, const char *name);
/* The name of a dtype among vals (tensors, tensor lists, dtype arguments,
 * complex scalars as complex64) that dts (n of them) does not list; NULL when
 * each is listed. Used for --dtypes: a refusal of a call involving such a
 * dtype is no failure (the samples, and the random calls). */
const char *conform_dtype_outside(const tabi_dtype *dts, int32_t n, const tabi_value *vals, int32_t nvals);
/* Argument i's info: the arrays' stride is the writer's arg_info_size. */
static inline const tabi_arg_info *conform_arg_at(const tabi_op_info *info, int32_t i) {
  return (const tabi_arg_info *)((const char *)info->args + (size_t)i * info->arg_info_size);
}
/* 1 when elements of t share memory (a broadcast dim: stride 0, size > 1).
 * Written in place, such a tensor ends with values that depend on the order of
 * the writes (ATen's batch norm updates running stats that way, differently
 * on CPU and CUDA), so its values are not compared; the call must still be
 * taken or refused as the reference does. */
int conform_self_overlapping(const tabi_tensor *t);

/* --- groups ------------------------------------------------------------------ */

void conform_abi_group(conform_ctx *c);                        /* conform_abi.c */
void conform_op_group(conform_ctx *c, const conform_group *g); /* conform_op.c */
void conform_device_group(conform_ctx *c);                     /* conform_device.c */
/* The op's random calls (conform_op.c): on the device under test after its
 * samples (ag NULL), or through an autograd layer (ag, the CPU) after its
 * gradcheck. One case, `(random calls)`, named `name`, in dtype `dtype`. */
void conform_robust_group(conform_ctx *c, const char *name, const char *dtype, tabi_runtime *rt, DLDevice dev,
                          const tabi_autograd_api *ag, tabi_op op);
/* Feature plugins (conform_feature_groups.c). conform_plan_features appends the
 * groups for the feature plugin under test (matched by its name: "autograd",
 * "autocast", "profiler"; any other name gets one skipped group saying so) to
 * groups[*n], which has room for tabi_op_count(c->test) + 1 more. */
void conform_plan_features(conform_ctx *c, conform_group *groups, int32_t *n);
void conform_feature_group(conform_ctx *c, const conform_group *g);

/* --- isolation (conform_isolate.c) ----------------------------------------- */

typedef void (*conform_group_fn)(void *user, int32_t group, int32_t out_fd);
typedef void (*conform_record_fn)(void *user, const conform_record *rec);
/* Runs fn(user, i, fd) for each i in [0, n) in forked children, `jobs` at a time,
 * each limited to timeout_s seconds. Every record a child writes reaches
 * on_record in the parent; a child that dies by a signal, exits non-zero or runs
 * past the limit gives a FAIL record (crashed / timed-out) naming the last
 * progress mark. With budget_s > 0, once that many seconds have passed no child
 * starts and the running ones are stopped: each group not run, or not
 * finished, gives one SKIP record of kind "budget" (op left empty), and
 * *out_unfinished counts them. */
tabi_status conform_isolate_run(int32_t n, int32_t jobs, int32_t timeout_s, int32_t budget_s,
                                conform_group_fn fn, conform_record_fn on_record, void *user,
                                int32_t *out_unfinished);

/* --- tensors between runtimes (conform_xfer.c) ------------------------------ */

#define CONFORM_XFER_MAX 64
/* Remembers the storages already copied, so arguments that share storage in the
 * oracle share it in the target too (add(x, x), a view and its base). */
typedef struct conform_xfer {
  int32_t n;
  uint64_t src_id[CONFORM_XFER_MAX];
  tabi_tensor *dst_base[CONFORM_XFER_MAX]; /* owned */
} conform_xfer;

void conform_xfer_init(conform_xfer *x);
void conform_xfer_clear(conform_xfer *x);
/* A tensor of `dst_rt` on `device` with src's dtype, shape, strides and byte
 * offset, over a copy of src's whole storage. New reference in *out. */
tabi_status conform_xfer_tensor(conform_xfer *x, tabi_runtime *dst_rt, DLDevice device,
                                tabi_tensor *src, tabi_tensor **out);
/* Copies a sample's arguments into `dst_rt`: tensors (and tensor lists) are
 * transferred, list payloads point into `store`/`lists` (owned by the caller, as
 * big as the sample's), everything else is copied as is. Tensors created are
 * owned by the xfer (released by conform_xfer_clear) through `owned`. */
typedef struct conform_args {
  int32_t nargs;
  tabi_value v[CONFORM_MAX_ARGS];
  tabi_tensor *lists[CONFORM_MAX_ARGS][CONFORM_MAX_LIST];
  /* List and string payloads are copied too: the args outlive their sample. */
  int64_t ints[CONFORM_MAX_ARGS][CONFORM_MAX_LIST];
  double floats[CONFORM_MAX_ARGS][CONFORM_MAX_LIST];
  char strs[CONFORM_MAX_ARGS][64];
  tabi_tensor *owned[CONFORM_MAX_ARGS * (CONFORM_MAX_LIST + 1)];
  int32_t nowned;
} conform_args;
tabi_status conform_args_xfer(conform_xfer *x, tabi_runtime *dst_rt, DLDevice device,
                              const conform_sample *s, conform_args *out);
void conform_args_release(conform_args *a);
/* Points the call at `device`: every Device argument that names the CPU (or is
 * left to its default) becomes `device`, so factory ops run on the device under
 * test. Returns 0 when the op has neither a tensor nor a Device argument (it
 * can only run on the CPU). */
int conform_args_retarget(conform_args *a, const tabi_op_info *info, DLDevice device);

/* Whole storage bytes of a tensor (any device), malloc'ed into *out; *out_n bytes. */
tabi_status conform_storage_bytes(tabi_runtime *rt, tabi_tensor *t, uint8_t **out, uint64_t *out_n);
/* The tensor's elements in row-major order on the host, malloc'ed. */
tabi_status conform_tensor_host(tabi_runtime *rt, const tabi_tensor *t, uint8_t **out,
                                uint64_t *out_n);

/* --- comparison (conform_compare.c) ----------------------------------------- */

typedef struct conform_tol {
  double rtol, atol;
  int32_t exact; /* 1 (--exact): besides rtol = atol = 0, +0 and -0 differ */
} conform_tol;
/* tolerances.md, by dtype. */
conform_tol conform_default_tol(tabi_dtype d);

/* Element i of a row-major host buffer as (re, im); integers also exactly. */
typedef struct conform_elem {
  double re, im;
  int64_t i;
  int32_t is_int;
} conform_elem;
conform_elem conform_elem_at(const uint8_t *data, tabi_dtype d, int64_t i);

typedef struct conform_cmp {
  int64_t nbad;            /* elements out of tolerance */
  int64_t worst_abs_at, worst_rel_at; /* flat indices; -1 when none */
  double max_abs, max_rel; /* over mismatching elements (or all when none) */
  conform_elem got, want;  /* at worst_abs_at */
} conform_cmp;
/* Compares n elements of `got` against `want`, both row-major host buffers of
 * dtype d. nan_equal: NaN matches NaN; CONFORM_NAN_NONFINITE: besides, a
 * complex element with an infinite or NaN part matches any other such element
 * (the random calls: there ATen's own kernels disagree, the CPU's vectorized
 * multiply naive, glibc's recovering infinities as C's Annex G asks, CUDA's
 * thrust another way; the samples test the special values they pin down). */
#define CONFORM_NAN_NONFINITE 2
void conform_compare(const uint8_t *got, const uint8_t *want, tabi_dtype d, int64_t n,
                     conform_tol tol, int32_t nan_equal, conform_cmp *out);
/* "[1, 2]" of a flat row-major index into shape. */
void conform_index_str(int64_t flat, int32_t ndim, const int64_t *shape, char *buf, size_t n);
/* "[2, 3]" */
void conform_shape_str(int32_t ndim, const int64_t *shape, char *buf, size_t n);
/* One line describing a failed comparison (largest abs/rel error and where). */
void conform_cmp_describe(const conform_cmp *cmp, int32_t ndim, const int64_t *shape,
                          char *buf, size_t n);

/* --- threads (conform_threads.c) ----------------------------------------------- */

/* Runs every call (args[i], expecting outputs whose host bytes are want[i]) from 4
 * threads at once, in rotated orders, for at least min_rounds rounds and
 * budget_ms milliseconds. Returns the index of the first call whose result
 * differed (bitwise), or -1. *detail says how. */
int32_t conform_threads_check(tabi_runtime *rt, tabi_op op, conform_args *const *args,
                              int32_t ncalls, int32_t nouts, uint8_t *const *want,
                              const uint64_t *want_n, int32_t min_rounds, int32_t budget_ms,
                              char *detail, size_t detail_n);

#endif /* TABI_CONFORM_INT_H */
