/* tabi/op.h: operators as kernels see them: handles, parsed schemas, layers,
 * the call record and the kernel signature.
 *
 * An operator is identified by its ATen schema, e.g.
 *   aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
 * and is addressed by a small integer handle (tabi_op) handed out once at lookup,
 * so a call never hashes a string.
 */
#ifndef TABI_OP_H
#define TABI_OP_H

#include <stdint.h>

#include "status.h"
#include "value.h"

typedef int32_t tabi_op; /* >= 0; TABI_OP_INVALID when absent */
#define TABI_OP_INVALID (-1)

/* Schema argument types (tabi_arg_info.type). */
#define TABI_TYPE_TENSOR       1
#define TABI_TYPE_INT          2  /* int, SymInt */
#define TABI_TYPE_FLOAT        3
#define TABI_TYPE_BOOL         4
#define TABI_TYPE_SCALAR       5
#define TABI_TYPE_SCALAR_TYPE  6
#define TABI_TYPE_DEVICE       7
#define TABI_TYPE_STRING       8
#define TABI_TYPE_LAYOUT       9
#define TABI_TYPE_MEMORY_FORMAT 10
#define TABI_TYPE_INT_LIST     11 /* int[], SymInt[], int[N] */
#define TABI_TYPE_FLOAT_LIST   12
#define TABI_TYPE_BOOL_LIST    13
#define TABI_TYPE_TENSOR_LIST  14 /* Tensor[], Tensor?[] (elements optional) */

/* tabi_arg_info.flags */
#define TABI_ARG_OPTIONAL      0x01u /* `T?`: NONE is accepted */
#define TABI_ARG_KWARG_ONLY    0x02u /* after `*` */
#define TABI_ARG_HAS_DEFAULT   0x04u
#define TABI_ARG_ALIAS         0x08u /* `(a)`: output may alias this input */
#define TABI_ARG_MUTABLE       0x10u /* `(a!)`: written in place */
#define TABI_ARG_ELEM_OPTIONAL 0x20u /* `Tensor?[]` */

typedef struct tabi_arg_info {
  const char *name;     /* "self"; for returns the name or "" */
  int32_t type;         /* TABI_TYPE_* */
  uint32_t flags;       /* TABI_ARG_* */
  int32_t fixed_len;    /* N of `int[N]`; 0 for an unsized list or a non-list */
  int32_t alias_set;    /* 'a' -> 0, 'b' -> 1, ...; -1 when not annotated */
  tabi_value default_value; /* valid when TABI_ARG_HAS_DEFAULT */
} tabi_arg_info;

typedef struct tabi_op_info {
  uint32_t struct_size;
  uint32_t arg_info_size;  /* sizeof(tabi_arg_info) of the writer: stride of the arrays */
  const char *name;        /* "aten::add.Tensor" (namespace::name.overload) */
  const char *schema;      /* the full schema text as registered */
  int32_t nargs;
  int32_t nreturns;
  const tabi_arg_info *args;
  const tabi_arg_info *returns;
  int32_t returns_list;    /* 1 when the single return is `Tensor[]` */
  int32_t reserved;
} tabi_op_info;

/* Dispatch keys and layers.
 *
 * A call's key set is a 64-bit mask. Bits 0..15 are backends, one per DLPack
 * device type (bit = device_type - 1; the CPU is bit 0, the lowest). Bits 16..63
 * are feature layers; the higher the bit, the earlier the layer runs. A layer
 * is declared by a feature plugin with a priority 1..48 (bit = 15 + priority);
 * the well-known ones are below. Two plugins declaring one priority conflict.
 */
#define TABI_KEY_BACKEND_BITS 16
#define TABI_BACKEND_KEY(device_type) (UINT64_C(1) << ((device_type) - 1))
#define TABI_LAYER_KEY(priority) (UINT64_C(1) << (15 + (priority)))
#define TABI_PRIORITY_AUTOGRAD 16
#define TABI_PRIORITY_AUTOCAST 24
#define TABI_PRIORITY_PROFILER 40
/* The composite layer: decompositions that fill any backend slot without a native
 * kernel (pass it as `layer` to kernel_register). Not a key bit. */
#define TABI_LAYER_COMPOSITE (-1)
/* Pass as `layer` to register a backend kernel for the plugin's own device type. */
#define TABI_LAYER_BACKEND (-2)

/* What a kernel knows about the call it serves; pass it back to host->redispatch
 * to run the layers below. Valid only during the call. */
typedef struct tabi_call {
  uint32_t struct_size;
  tabi_op op;
  uint64_t keys;      /* the key set at this kernel, its own bit included */
  int32_t key;        /* the bit of the layer running (0..63) */
  int32_t nargs;      /* the schema's, defaults filled */
  int32_t nouts;
  int32_t reserved;
  void *dispatch;     /* host-private */
} tabi_call;

/* A kernel. `ctx` is what it was registered with. `args` has call->nargs values
 * (checked against the schema, defaults filled), `outs` call->nouts slots set to
 * NONE. Returns TABI_OK, or an error set through host->set_error with the op and
 * argument named. Threading: a kernel may be called from many threads at once. */
typedef tabi_status (*tabi_kernel_fn)(void *ctx, const tabi_call *call, tabi_value *args,
                                      tabi_value *outs);

#endif /* TABI_OP_H */
