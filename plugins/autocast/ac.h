/* plugins/autocast/ac.h: what the parts of the autocast plugin share.
 *
 * One ac_state per runtime the plugin is loaded into (no globals: the plugin may
 * live in several runtimes of one process). Per-thread state (enabled device
 * types, dtypes, the cast cache) hangs off a pthread key the state owns, so it is
 * per thread and per runtime, as the ABI's thread-local modes are.
 */
#ifndef TABI_AC_H
#define TABI_AC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <tabi/tabi.h>
#include <tabi/ext_autocast.h>
#include <tabi/ext_autograd.h>

#define AC_MAX_DEVICE_TYPE 16

/* One op with a policy: the kernel's ctx. */
typedef struct ac_op {
  struct ac_state *st;
  tabi_op op;
  int32_t policy_cpu;   /* TABI_AUTOCAST_POLICY_* on kDLCPU */
  int32_t policy_other; /* on every other device type (PyTorch's CUDA lists) */
  int32_t dtype_arg;    /* index of `ScalarType? dtype`, -1 when none */
} ac_op;

/* A cached cast of a weight: src (retained, so its address is not reused while
 * cached) at version `version`, cast to `dtype`. */
typedef struct ac_cache_ent {
  tabi_tensor *src;
  tabi_tensor *dst;
  tabi_dtype dtype;
  uint32_t version;
} ac_cache_ent;

typedef struct ac_thread {
  uint32_t enabled; /* bit (device_type - 1) */
  int32_t cache_on;
  tabi_dtype dtype[AC_MAX_DEVICE_TYPE + 1];
  ac_cache_ent *cache;
  int32_t ncache, capcache;
  struct ac_state *st;
} ac_thread;

typedef struct ac_state {
  const tabi_host_api *h;
  uint64_t key;          /* the autocast layer's key */
  pthread_key_t tls;     /* -> ac_thread */
  int32_t tls_ok;
  tabi_op to_copy;       /* aten::_to_copy, the cast (autograd records it) */
  ac_op *ops;
  int32_t nops;
  /* The autograd extension, looked up on first use (it may load after us):
   * 0 not looked yet, 1 looked (ag may be NULL). */
  atomic_int ag_looked;
  const tabi_autograd_api *_Atomic ag;
  tabi_autocast_api ext;
} ac_state;

/* One row of the policy tables (ac_policy.c). */
typedef struct ac_policy_row {
  const char *op;
  int32_t cpu;
  int32_t other;
} ac_policy_row;

extern const ac_policy_row ac_policy_table[];
extern const int32_t ac_policy_table_len;

/* ac_kernel.c */
tabi_status ac_kernel(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
ac_thread *ac_thread_get(ac_state *st, int32_t create);
void ac_cache_clear(ac_thread *th);
void ac_thread_free(void *p);
tabi_dtype ac_default_dtype(int32_t device_type);

/* ac_ext.c */
void ac_ext_fill(ac_state *st);

/* ac_scaler.c: registers the two gradient scaler ops (during init). */
tabi_status ac_scaler_register(ac_state *st);

#endif /* TABI_AC_H */
