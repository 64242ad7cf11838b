/* internal.h: the private state of libtabi, shared by its .c files.
 *
 * Concurrency model (runtime.h promises calls, tensor functions and lookups from
 * many threads; we also keep calls safe while another thread loads a plugin):
 *  - Everything a call reads is published with release stores and read with
 *    acquire loads: the op array (fixed capacity, never reallocated), each op's
 *    dispatch table (replaced whole, old tables retired until destroy), device
 *    tables and per-device state.
 *  - Loading, name lookup, extensions and lazy per-device state are serialized
 *    by rt->lock. The hot path (tabi_call) takes no lock and does no malloc.
 */
#ifndef TABI_DISPATCHER_INTERNAL_H
#define TABI_DISPATCHER_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>

#include <tabi/runtime.h>

#define TABI_INTERNAL __attribute__((visibility("hidden")))

#define TABI_NUM_KEYS 64
#define TABI_NUM_LAYERS 48          /* feature-layer bits 16..63 */
#define TABI_MAX_DEVICE_TYPE 16     /* backend bits 0..15 = device types 1..16 */
#define TABI_MAX_DEVICE_INDEX 64
#define TABI_MAX_OPS 65536          /* capacity of the op array (virtual, calloc'd) */
#define TABI_MAX_PLUGINS 256
#define TABI_MAX_SLOTS 8
#define TABI_MAX_HOOKS 16
#define TABI_MAX_NDIM 64
#define TABI_INLINE_NDIM 6
#define TABI_BACKEND_MASK UINT64_C(0xFFFF)

typedef struct plugin_rec plugin_rec;
typedef struct dev_state dev_state;

/* ---- dispatch tables --------------------------------------------------- */

typedef struct disp_entry {
  tabi_kernel_fn fn;
  void *ctx;
  plugin_rec *plugin; /* who registered it, for error messages */
} disp_entry;

/* What a call reads: which key bits have a kernel, and the kernel per bit.
 * Computed at registration, read-only afterwards. */
typedef struct disp_table {
  uint64_t mask;
  disp_entry e[TABI_NUM_KEYS];
} disp_table;

/* A registration as made by a plugin, before tables are computed from it. */
typedef struct kernel_reg {
  tabi_kernel_fn fn;
  void *ctx;
  plugin_rec *plugin;
  int32_t present;
  int32_t fallthrough;
} kernel_reg;

/* A parsed schema; every pointer lives in `arena`. */
typedef struct schema_arena schema_arena;

typedef struct op_entry {
  _Atomic(disp_table *) table; /* hot: first */
  tabi_op handle;
  int32_t device_arg;   /* index of the first Device argument, -1 when none */
  int32_t has_mutable;  /* any `(a!)` argument */
  int32_t alias_only;   /* its `(a!)` arguments are aliased, never written: prims::as_strided,
                           whose schema (PyTorch's) marks the input it views as mutable.
                           A read-only input is taken; the view inherits the flag */
  int32_t masked_returns; /* takes `bool[N] output_mask`: a Tensor return may be
                             undefined (NONE) where the mask is off, as in ATen */
  tabi_op_info info;
  schema_arena *arena;
  plugin_rec *owner;    /* NULL for builtin ops */
  kernel_reg backend[TABI_MAX_DEVICE_TYPE];
  kernel_reg layer[TABI_NUM_LAYERS];
  kernel_reg composite;
} op_entry;

/* ---- layers, extensions, hooks ---------------------------------------- */

typedef struct layer_rec {
  int32_t present;
  char *name;
  plugin_rec *plugin;
  kernel_reg fallback;
} layer_rec;

typedef struct extension_rec {
  char *name;
  uint32_t version;
  const void *table;
  plugin_rec *plugin;
  struct extension_rec *next;
} extension_rec;

typedef struct hook_rec {
  _Atomic(tabi_memory_hook_fn) fn;
  _Atomic(void *) user;
} hook_rec;

/* ---- staging of one plugin's registrations during init ------------------ */

#define STAGE_COMPOSITE 64 /* kernel slot code: 0..15 backend, 16..63 layer bit */

typedef struct staged_kernel {
  tabi_op op;
  int32_t slot;
  tabi_kernel_fn fn;
  void *ctx;
} staged_kernel;

typedef struct staged_layer {
  int32_t priority;
  char *name;
} staged_layer;

typedef struct staged_ext {
  char *name;
  uint32_t version;
  const void *table;
} staged_ext;

typedef struct stage {
  op_entry **ops; int32_t nops, cap_ops;
  staged_kernel *kernels; int32_t nkernels, cap_kernels;
  staged_kernel *fallbacks; int32_t nfallbacks, cap_fallbacks;
  staged_layer *layers; int32_t nlayers, cap_layers;
  staged_ext *exts; int32_t nexts, cap_exts;
  tabi_device_api *device; /* copied, owned until commit */
  int32_t nslots;
  tabi_status error;       /* first registration error, fails the load */
  char error_msg[512];
} stage;

#define PLUGIN_STAGING 0
#define PLUGIN_LOADED 1
#define PLUGIN_FRAMEWORK 2 /* the runtime's own host table (tabi_runtime_host) */

struct plugin_rec {
  tabi_runtime *rt;
  tabi_host_api host;   /* ctx = this record */
  int32_t state;
  int32_t index;
  char *path, *name, *version, *description;
  void *dl;
  tabi_plugin plugin;   /* normalized copy: fields past its struct_size zero */
  tabi_plugin *init_out; /* while init runs: the struct the plugin fills */
  uint32_t abi_minor_in_effect;
  int32_t layer_priority;
  int32_t kernels;
  int32_t ops_registered;
  stage st;
};

/* ---- the runtime ---------------------------------------------------------- */

struct tabi_runtime {
  uint64_t id;                 /* unique per process, keys thread-local state */
  uint32_t flags;              /* TABI_RUNTIME_* */
  _Atomic int32_t deterministic;
  _Atomic int64_t refs;        /* 1 for the runtime + 1 per live storage */
  _Atomic int32_t dead;        /* destroyed; kept alive by storages */
  pthread_mutex_t lock;        /* names, extensions, lazy device state, commits */
  pthread_mutex_t load_lock;   /* serializes plugin loads (held during init) */

  _Atomic(op_entry *) *ops;    /* TABI_MAX_OPS slots */
  _Atomic int32_t nops;
  int32_t nbuiltin;
  /* name -> handle (open addressing, under lock) */
  int32_t *name_slots; uint32_t name_cap; uint32_t name_count;
  disp_table empty_table;
  disp_table **retired; int32_t nretired, cap_retired;

  layer_rec layers[TABI_NUM_LAYERS];
  extension_rec *extensions;
  _Atomic int32_t nslots;

  plugin_rec *plugins[TABI_MAX_PLUGINS];
  _Atomic int32_t nplugins;
  plugin_rec framework;

  _Atomic(const tabi_device_api *) devices[TABI_MAX_DEVICE_TYPE + 1];
  tabi_device_api *device_copies[TABI_MAX_DEVICE_TYPE + 1];
  _Atomic(dev_state *) devstates[TABI_MAX_DEVICE_TYPE + 1][TABI_MAX_DEVICE_INDEX];
  dev_state *cpu;              /* devstates[kDLCPU][0], for the fast path */

  hook_rec hooks[TABI_MAX_HOOKS];
  _Atomic int32_t nhooks;      /* an upper bound on live hooks; 0 = skip */
  _Atomic uint64_t guard_violations;
};

/* ---- helpers shared across files ------------------------------------------ */

/* error.c */
TABI_INTERNAL tabi_status tabi_set_error(tabi_status st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
TABI_INTERNAL tabi_status tabi_set_error_v(tabi_status st, const char *fmt, va_list ap);
TABI_INTERNAL uint32_t tabi_error_seq(void);
typedef struct tabi_error_saved {
  char msg[1024];
  uint32_t seq;
} tabi_error_saved;
/* Save and restore the thread's message and sequence number, for checks that
 * must not disturb an error being reported. */
TABI_INTERNAL void tabi_error_save(tabi_error_saved *s);
TABI_INTERNAL void tabi_error_restore(const tabi_error_saved *s);
/* "cpu", "cuda:0": writes into buf (>= 32 bytes) and returns it. */
TABI_INTERNAL const char *tabi_device_str(const tabi_runtime *rt, DLDevice d, char *buf,
                                          size_t n);
TABI_INTERNAL const char *tabi_device_type_name(const tabi_runtime *rt, int32_t device_type);
TABI_INTERNAL const char *tabi_tag_name(int32_t tag);
TABI_INTERNAL char *tabi_strdup(const char *s);

/* runtime.c */
TABI_INTERNAL void tabi_runtime_unref(tabi_runtime *rt);

#endif /* TABI_DISPATCHER_INTERNAL_H */
