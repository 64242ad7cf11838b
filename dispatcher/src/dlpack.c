/* dlpack.c: zero-copy exchange with DLPack, both DLManagedTensor and the
 * versioned form (with its read-only flag).
 *
 * Import wraps the producer's memory in an external storage whose release runs
 * the producer's deleter once the last view dies. Export hands out a managed
 * tensor that holds one tensor reference until the consumer calls the deleter.
 */
#include <stdlib.h>
#include <string.h>

#include "tensor.h"

typedef struct import_ctx {
  DLManagedTensor *m;
  DLManagedTensorVersioned *mv;
} import_ctx;

static void import_release(void *p) {
  import_ctx *c = p;
  if (c->m && c->m->deleter) c->m->deleter(c->m);
  if (c->mv && c->mv->deleter) c->mv->deleter(c->mv);
  free(c);
}

static tabi_status import_common(tabi_runtime *rt, const DLTensor *dl, const char *who,
                                 DLManagedTensor *m, DLManagedTensorVersioned *mv,
                                 uint32_t flags, tabi_tensor **out) {
  char dbuf[48];
  if (!rt || !out)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: NULL %s", who, !rt ? "runtime" : "out_tensor");
  *out = NULL;
  if (dl->ndim < 0 || dl->ndim > TABI_MAX_NDIM)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: ndim %d out of range (0..%d)", who,
                          (int)dl->ndim, TABI_MAX_NDIM);
  if (dl->ndim > 0 && !dl->shape)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: NULL shape", who);
  tabi_dtype dt = tabi_dtype_from_dl(dl->dtype);
  if (dt == TABI_DTYPE_INVALID)
    return tabi_set_error(TABI_ERR_TYPE,
                          "%s: unsupported dtype (code %d, bits %d, lanes %d)", who,
                          (int)dl->dtype.code, (int)dl->dtype.bits, (int)dl->dtype.lanes);
  if (dl->device.device_type < 1 || dl->device.device_type > TABI_MAX_DEVICE_TYPE ||
      !atomic_load_explicit(&rt->devices[dl->device.device_type], memory_order_acquire))
    return tabi_set_error(TABI_ERR_DEVICE, "%s: no loaded plugin provides device %s (type %d)", who,
                          tabi_device_str(rt, dl->device, dbuf, sizeof dbuf),
                          (int)dl->device.device_type);
  int64_t es = tabi_dtype_size(dt);
  uint64_t bytes;
  tabi_status st = tabi_shape_extent(who, dl->ndim, dl->shape, dl->strides, es, &bytes);
  if (st != TABI_OK) return st;
  if (!dl->data && bytes > 0)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: NULL data for a non-empty tensor", who);
  uint64_t total;
  if (__builtin_add_overflow(bytes, dl->byte_offset, &total))
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: byte_offset overflows", who);
  if (bytes > 0 && (st = tabi_check_aligned(who, dl->data, dl->byte_offset, es)) != TABI_OK) return st;
  import_ctx *c = malloc(sizeof *c);
  if (!c) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
  c->m = m;
  c->mv = mv;
  tabi_storage *s;
  static char empty_data[16]; /* data is never NULL, even for an empty import */
  st = tabi_storage_external(rt, dl->device, dl->data ? dl->data : empty_data, total,
                             import_release, c, &s);
  if (st != TABI_OK) {
    free(c);
    return st;
  }
  /* Bool arrives as kDLBool/8 or kDLUInt/1; tensors always carry kDLBool/8. */
  st = tabi_tensor_make(s, tabi_dtype_to_dl(dt), dl->ndim, dl->shape, dl->strides,
                        dl->byte_offset, flags, out);
  if (st != TABI_OK) {
    /* Ownership stays with the caller: drop the storage without the deleter. */
    c->m = NULL;
    c->mv = NULL;
  }
  tabi_storage_release(s);
  return st;
}

TABI_API tabi_status tabi_tensor_from_dlpack(tabi_runtime *rt, DLManagedTensor *m,
                                             tabi_tensor **out) {
  if (out) *out = NULL;
  if (!m) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "tabi_tensor_from_dlpack: NULL managed tensor");
  return import_common(rt, &m->dl_tensor, "tabi_tensor_from_dlpack", m, NULL, 0, out);
}

TABI_API tabi_status tabi_tensor_from_dlpack_versioned(tabi_runtime *rt, DLManagedTensorVersioned *m,
                                                       tabi_tensor **out) {
  const char *who = "tabi_tensor_from_dlpack_versioned";
  if (out) *out = NULL;
  if (!m) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: NULL managed tensor", who);
  if (m->version.major != 1)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: DLPack version %u.%u is not supported "
                          "(major must be 1)", who, m->version.major, m->version.minor);
  uint32_t flags = (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) ? TABI_TENSOR_READ_ONLY : 0;
  return import_common(rt, &m->dl_tensor, who, NULL, m, flags, out);
}

/* ---- export ---------------------------------------------------------------------- */

typedef struct export_plain {
  DLManagedTensor m;
  tabi_tensor *t;
} export_plain;

typedef struct export_versioned {
  DLManagedTensorVersioned m;
  tabi_tensor *t;
} export_versioned;

static void plain_deleter(DLManagedTensor *m) {
  export_plain *e = m->manager_ctx;
  tabi_tensor_release(e->t);
  free(e);
}

static void versioned_deleter(DLManagedTensorVersioned *m) {
  export_versioned *e = m->manager_ctx;
  tabi_tensor_release(e->t);
  free(e);
}

TABI_API tabi_status tabi_tensor_to_dlpack(tabi_tensor *t, DLManagedTensor **out) {
  const char *who = "tabi_tensor_to_dlpack";
  if (!t || !out) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: NULL %s", who, !t ? "tensor" : "out");
  *out = NULL;
  if (t->flags & TABI_TENSOR_READ_ONLY)
    return tabi_set_error(TABI_ERR_READ_ONLY, "%s: the tensor is read-only and DLManagedTensor "
                          "cannot say so; export it with tabi_tensor_to_dlpack_versioned", who);
  export_plain *e = malloc(sizeof *e);
  if (!e) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
  tabi_tensor_retain(t);
  e->t = t;
  e->m.dl_tensor = t->dl; /* shape and strides point into the live tensor */
  e->m.manager_ctx = e;
  e->m.deleter = plain_deleter;
  *out = &e->m;
  return TABI_OK;
}

TABI_API tabi_status tabi_tensor_to_dlpack_versioned(tabi_tensor *t, DLManagedTensorVersioned **out) {
  const char *who = "tabi_tensor_to_dlpack_versioned";
  if (!t || !out) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: NULL %s", who, !t ? "tensor" : "out");
  *out = NULL;
  export_versioned *e = malloc(sizeof *e);
  if (!e) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
  tabi_tensor_retain(t);
  e->t = t;
  e->m.version.major = TABI_DLPACK_EXPORT_MAJOR;
  e->m.version.minor = TABI_DLPACK_EXPORT_MINOR;
  e->m.manager_ctx = e;
  e->m.deleter = versioned_deleter;
  e->m.flags = (t->flags & TABI_TENSOR_READ_ONLY) ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
  e->m.dl_tensor = t->dl;
  *out = &e->m;
  return TABI_OK;
}
