/* tensor.c: tensors, views, storage refcounts, slots, resize. */
#include <stdlib.h>
#include <string.h>

#include "tensor.h"

static _Atomic uint64_t next_storage_id = 1;

tabi_status tabi_shape_extent(const char *who, int32_t ndim, const int64_t *shape,
                              const int64_t *strides, int64_t elsize, uint64_t *out_bytes) {
  *out_bytes = 0;
  if (ndim < 0 || ndim > TABI_MAX_NDIM)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: ndim %d out of range (0..%d)", who,
                          (int)ndim, TABI_MAX_NDIM);
  if (ndim > 0 && !shape)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: NULL shape with ndim %d", who, (int)ndim);
  int64_t numel = 1;
  int empty = 0;
  for (int32_t i = 0; i < ndim; i++) {
    if (shape[i] < 0)
      return tabi_set_error(TABI_ERR_INVALID_ARGUMENT,
                            "%s: size of dim %d is %lld (sizes must be >= 0)", who, (int)i,
                            (long long)shape[i]);
    if (strides && strides[i] < 0)
      return tabi_set_error(TABI_ERR_INVALID_ARGUMENT,
                            "%s: stride of dim %d is %lld (strides must be >= 0)", who, (int)i,
                            (long long)strides[i]);
    if (shape[i] == 0) empty = 1;
    if (__builtin_mul_overflow(numel, shape[i], &numel) && !empty)
      return tabi_set_error(TABI_ERR_INVALID_ARGUMENT,
                            "%s: shape overflows int64 at dim %d (size %lld)", who, (int)i,
                            (long long)shape[i]);
  }
  if (empty) {
    /* Zero elements, but a later dim may still be absurd: keep the check honest. */
    int64_t n = 1;
    for (int32_t i = 0; i < ndim; i++) {
      if (shape[i] == 0) continue;
      if (__builtin_mul_overflow(n, shape[i], &n))
        return tabi_set_error(TABI_ERR_INVALID_ARGUMENT,
                              "%s: shape overflows int64 at dim %d (size %lld)", who, (int)i,
                              (long long)shape[i]);
    }
    return TABI_OK;
  }
  int64_t span = 1; /* elements from the first to the last, inclusive */
  if (strides) {
    for (int32_t i = 0; i < ndim; i++) {
      int64_t d;
      if (__builtin_mul_overflow(shape[i] - 1, strides[i], &d) ||
          __builtin_add_overflow(span, d, &span))
        return tabi_set_error(TABI_ERR_INVALID_ARGUMENT,
                              "%s: strides overflow int64 at dim %d", who, (int)i);
    }
  } else {
    span = numel;
  }
  int64_t bytes;
  if (__builtin_mul_overflow(span, elsize, &bytes))
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT,
                          "%s: %lld elements of %lld bytes overflow int64", who, (long long)span,
                          (long long)elsize);
  *out_bytes = (uint64_t)bytes;
  return TABI_OK;
}

tabi_status tabi_check_aligned(const char *who, const void *data, uint64_t byte_offset, int64_t elsize) {
  uint64_t at = (uint64_t)(uintptr_t)data + byte_offset; /* wraps alike for every elsize */
  if (elsize > 1 && at % (uint64_t)elsize != 0)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT,
                          "%s: the first element (data %p + byte_offset %llu) is not aligned to its "
                          "%lld-byte size; a device would fault on it",
                          who, data, (unsigned long long)byte_offset, (long long)elsize);
  return TABI_OK;
}

/* ---- storage --------------------------------------------------------------- */

tabi_status tabi_storage_alloc(tabi_runtime *rt, DLDevice device, uint64_t nbytes,
                               const char *who, tabi_storage **out) {
  dev_state *ds;
  *out = NULL;
  tabi_status st = tabi_devstate_get(rt, device, who, &ds);
  if (st != TABI_OK) return st;
  tabi_storage *s = malloc(sizeof *s);
  if (!s) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
  st = tabi_alloc(ds, nbytes, &s->block);
  if (st != TABI_OK) {
    free(s);
    return st;
  }
  atomic_init(&s->refs, 1);
  s->rt = rt;
  s->data = s->block->user;
  s->nbytes = nbytes;
  s->device = device;
  s->ext_release = NULL;
  s->ext = NULL;
  s->id = atomic_fetch_add_explicit(&next_storage_id, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&rt->refs, 1, memory_order_relaxed);
  *out = s;
  return TABI_OK;
}

tabi_status tabi_storage_external(tabi_runtime *rt, DLDevice device, void *data, uint64_t nbytes,
                                  tabi_ext_release_fn release, void *ext, tabi_storage **out) {
  tabi_storage *s = malloc(sizeof *s);
  *out = NULL;
  if (!s) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "storage: out of memory");
  atomic_init(&s->refs, 1);
  s->rt = rt;
  s->data = data;
  s->nbytes = nbytes;
  s->device = device;
  s->block = NULL;
  s->ext_release = release;
  s->ext = ext;
  s->id = atomic_fetch_add_explicit(&next_storage_id, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&rt->refs, 1, memory_order_relaxed);
  *out = s;
  return TABI_OK;
}

void tabi_storage_release(tabi_storage *s) {
  if (!s) return;
  if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1) return;
  tabi_runtime *rt = s->rt;
  if (s->block) tabi_free(s->block);
  if (s->ext_release) s->ext_release(s->ext);
  free(s);
  tabi_runtime_unref(rt);
}

/* ---- tensors ----------------------------------------------------------------- */

tabi_status tabi_tensor_make(tabi_storage *s, DLDataType dtype, int32_t ndim,
                             const int64_t *shape, const int64_t *strides, uint64_t byte_offset,
                             uint32_t flags, tabi_tensor **out) {
  tensor_impl *t = malloc(sizeof *t);
  *out = NULL;
  if (!t) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "tensor: out of memory");
  int64_t *dims = t->inl;
  t->heap = NULL;
  t->cap_ndim = TABI_INLINE_NDIM;
  if (ndim > TABI_INLINE_NDIM) {
    t->heap = malloc(sizeof(int64_t) * 2 * (size_t)ndim);
    if (!t->heap) {
      free(t);
      return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "tensor: out of memory");
    }
    dims = t->heap;
    t->cap_ndim = ndim;
  }
  int64_t *sh = dims, *sd = dims + t->cap_ndim;
  int64_t run = 1;
  for (int32_t i = ndim - 1; i >= 0; i--) {
    sh[i] = shape[i];
    sd[i] = strides ? strides[i] : run;
    run *= shape[i] ? shape[i] : 1;
  }
  t->pub.dl.data = s->data;
  t->pub.dl.device = s->device;
  t->pub.dl.ndim = ndim;
  t->pub.dl.dtype = dtype;
  t->pub.dl.shape = sh;
  t->pub.dl.strides = sd;
  t->pub.dl.byte_offset = byte_offset;
  t->pub.keys = TABI_BACKEND_KEY(s->device.device_type);
  t->pub.struct_size = sizeof(tabi_tensor);
  t->pub.flags = flags;
  atomic_init(&t->refs, 1);
  atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
  t->storage = s;
  memset(t->slot_val, 0, sizeof t->slot_val);
  memset(t->slot_dtor, 0, sizeof t->slot_dtor);
  *out = &t->pub;
  return TABI_OK;
}

tabi_status tabi_tensor_empty_impl(tabi_runtime *rt, DLDevice device, tabi_dtype dtype,
                                   int32_t ndim, const int64_t *shape, const int64_t *strides,
                                   const char *who, tabi_tensor **out) {
  if (!out) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: NULL out_tensor", who);
  *out = NULL;
  int64_t es = tabi_dtype_size(dtype);
  if (es == 0)
    return tabi_set_error(TABI_ERR_TYPE, "%s: invalid dtype %d", who, (int)dtype);
  uint64_t bytes;
  tabi_status st = tabi_shape_extent(who, ndim, shape, strides, es, &bytes);
  if (st != TABI_OK) return st;
  tabi_storage *s;
  st = tabi_storage_alloc(rt, device, bytes, who, &s);
  if (st != TABI_OK) return st;
  st = tabi_tensor_make(s, tabi_dtype_to_dl(dtype), ndim, shape, strides, 0, 0, out);
  tabi_storage_release(s); /* the tensor holds it now */
  return st;
}

tabi_status tabi_tensor_view_impl(tabi_tensor *base, int32_t ndim, const int64_t *shape,
                                  const int64_t *strides, int64_t byte_offset, const char *who,
                                  tabi_tensor **out) {
  if (!out) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: NULL out_tensor", who);
  *out = NULL;
  if (!base) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: NULL base tensor", who);
  if (ndim > 0 && !strides)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: NULL strides with ndim %d", who, (int)ndim);
  if (byte_offset < 0)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: negative byte_offset %lld", who,
                          (long long)byte_offset);
  tensor_impl *b = tabi_impl(base);
  int64_t es = (base->dl.dtype.bits * base->dl.dtype.lanes + 7) / 8;
  uint64_t bytes, end;
  tabi_status st = tabi_shape_extent(who, ndim, shape, strides, es, &bytes);
  if (st != TABI_OK) return st;
  /* A view of no elements reads nothing, so any offset is in bounds: ATen keeps
   * x[1:] of a [2, 0] tensor at storage offset 1 of an empty storage. Only a
   * storage without memory (data NULL) gets offset 0, so that data + offset
   * stays a valid pointer expression. */
  if (bytes == 0) {
    if (!b->storage->data) byte_offset = 0;
  } else if (__builtin_add_overflow((uint64_t)byte_offset, bytes, &end) || end > b->storage->nbytes) {
    return tabi_set_error(TABI_ERR_INDEX,
                          "%s: view of %llu bytes at byte offset %lld reaches outside a storage "
                          "of %llu bytes", who, (unsigned long long)bytes, (long long)byte_offset,
                          (unsigned long long)b->storage->nbytes);
  } else if ((st = tabi_check_aligned(who, b->storage->data, (uint64_t)byte_offset, es)) != TABI_OK) {
    return st;
  }
  st = tabi_tensor_make(b->storage, base->dl.dtype, ndim, shape, strides, (uint64_t)byte_offset,
                        base->flags, out);
  if (st == TABI_OK) (*out)->keys = base->keys;
  return st;
}

tabi_status tabi_tensor_resize_impl(tabi_tensor *t, int32_t ndim, const int64_t *shape) {
  const char *who = "tensor_resize";
  if (!t) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: NULL tensor", who);
  if (t->flags & TABI_TENSOR_READ_ONLY)
    return tabi_set_error(TABI_ERR_READ_ONLY, "%s: the tensor is read-only", who);
  tensor_impl *ti = tabi_impl(t);
  int64_t es = (t->dl.dtype.bits * t->dl.dtype.lanes + 7) / 8;
  uint64_t bytes, need;
  tabi_status st = tabi_shape_extent(who, ndim, shape, NULL, es, &bytes);
  if (st != TABI_OK) return st;
  if (__builtin_add_overflow(bytes, t->dl.byte_offset, &need))
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: size overflows", who);
  if (need > ti->storage->nbytes) {
    tabi_storage *old = ti->storage, *s;
    st = tabi_storage_alloc(old->rt, old->device, need, who, &s);
    if (st != TABI_OK) return st;
    /* Keep the old bytes, as ATen's resize_ does. */
    uint64_t keep = old->nbytes;
    if (keep) {
      const tabi_device_api *api =
          atomic_load_explicit(&old->rt->devices[old->device.device_type], memory_order_acquire);
      st = api ? api->copy(api->ctx, s->data, s->device, old->data, old->device, keep, NULL)
               : tabi_set_error(TABI_ERR_DEVICE, "%s: device gone", who);
      if (st != TABI_OK) {
        tabi_storage_release(s);
        return st;
      }
    }
    ti->storage = s;
    t->dl.data = s->data;
    tabi_storage_release(old);
  }
  if (ndim > ti->cap_ndim) {
    int64_t *h = malloc(sizeof(int64_t) * 2 * (size_t)ndim);
    if (!h) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
    free(ti->heap);
    ti->heap = h;
    ti->cap_ndim = ndim;
  }
  int64_t *sh = ti->heap ? ti->heap : ti->inl, *sd = sh + ti->cap_ndim;
  int64_t run = 1;
  for (int32_t i = ndim - 1; i >= 0; i--) {
    sh[i] = shape[i];
    sd[i] = run;
    run *= shape[i] ? shape[i] : 1;
  }
  t->dl.shape = sh;
  t->dl.strides = sd;
  t->dl.ndim = ndim;
  return TABI_OK;
}

tabi_status tabi_tensor_set_keys_impl(tabi_tensor *t, uint64_t keys) {
  if (!t) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "tensor_set_keys: NULL tensor");
  uint64_t backend = t->keys & TABI_BACKEND_MASK;
  if ((keys & TABI_BACKEND_MASK) && (keys & TABI_BACKEND_MASK) != backend)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT,
                          "tensor_set_keys: backend bits 0x%llx cannot change (tensor has 0x%llx)",
                          (unsigned long long)(keys & TABI_BACKEND_MASK),
                          (unsigned long long)backend);
  t->keys = backend | (keys & ~TABI_BACKEND_MASK);
  return TABI_OK;
}

void *tabi_slot_get_impl(const tabi_tensor *t, int32_t slot) {
  if (!t || slot < 0 || slot >= TABI_MAX_SLOTS) return NULL;
  return tabi_impl(t)->slot_val[slot];
}

tabi_status tabi_slot_set_impl(tabi_tensor *t, int32_t slot, void *value, tabi_slot_dtor_fn dtor) {
  if (!t) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "slot_set: NULL tensor");
  tensor_impl *ti = tabi_impl(t);
  if (slot < 0 || slot >= atomic_load_explicit(&ti->storage->rt->nslots, memory_order_acquire))
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "slot_set: slot %d was never declared",
                          (int)slot);
  void *old = ti->slot_val[slot];
  tabi_slot_dtor_fn old_dtor = ti->slot_dtor[slot];
  ti->slot_val[slot] = value;
  ti->slot_dtor[slot] = dtor;
  if (old && old_dtor && old != value) old_dtor(old);
  return TABI_OK;
}

/* ---- public API -------------------------------------------------------------- */

TABI_API void tabi_tensor_retain(tabi_tensor *t) {
  if (t) atomic_fetch_add_explicit(&tabi_impl(t)->refs, 1, memory_order_relaxed);
}

TABI_API void tabi_tensor_release(tabi_tensor *t) {
  if (!t) return;
  tensor_impl *ti = tabi_impl(t);
  if (atomic_fetch_sub_explicit(&ti->refs, 1, memory_order_acq_rel) != 1) return;
  tabi_storage *s = ti->storage;
  /* Slot destructors live in plugin code, unloaded once the runtime is gone. */
  if (!atomic_load_explicit(&s->rt->dead, memory_order_acquire)) {
    for (int i = 0; i < TABI_MAX_SLOTS; i++)
      if (ti->slot_val[i] && ti->slot_dtor[i]) ti->slot_dtor[i](ti->slot_val[i]);
  }
  free(ti->heap);
  free(ti);
  tabi_storage_release(s);
}

TABI_API tabi_status tabi_tensor_empty(tabi_runtime *rt, DLDevice device, tabi_dtype dtype,
                                       int32_t ndim, const int64_t *shape, tabi_tensor **out) {
  if (!rt) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "tabi_tensor_empty: NULL runtime");
  return tabi_tensor_empty_impl(rt, device, dtype, ndim, shape, NULL, "tabi_tensor_empty", out);
}

TABI_API tabi_status tabi_tensor_empty_strided(tabi_runtime *rt, DLDevice device, tabi_dtype dtype,
                                               int32_t ndim, const int64_t *shape,
                                               const int64_t *strides, tabi_tensor **out) {
  if (!rt) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "tabi_tensor_empty_strided: NULL runtime");
  if (ndim > 0 && !strides)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "tabi_tensor_empty_strided: NULL strides");
  return tabi_tensor_empty_impl(rt, device, dtype, ndim, shape, strides,
                                "tabi_tensor_empty_strided", out);
}

TABI_API tabi_status tabi_tensor_view(tabi_runtime *rt, tabi_tensor *base, int32_t ndim,
                                      const int64_t *shape, const int64_t *strides,
                                      int64_t byte_offset, tabi_tensor **out) {
  return tabi_tensor_view_impl(base, ndim, shape, strides, byte_offset, "tabi_tensor_view", out);
}

TABI_API uint64_t tabi_tensor_storage_id(const tabi_tensor *t) {
  return t ? tabi_impl(t)->storage->id : 0;
}

TABI_API uint64_t tabi_tensor_storage_nbytes(const tabi_tensor *t) {
  return t ? tabi_impl(t)->storage->nbytes : 0;
}

TABI_API tabi_status tabi_tensor_check_guards(tabi_runtime *rt, const tabi_tensor *t) {
  if (!t) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "tabi_tensor_check_guards: NULL tensor");
  tabi_storage *s = tabi_impl(t)->storage;
  if (!s->block || !(s->rt->flags & TABI_RUNTIME_GUARD_ALLOCATIONS)) return TABI_OK;
  return tabi_block_check_guards(s->block);
}

TABI_API tabi_status tabi_tensor_from_host(tabi_runtime *rt, DLDevice device, tabi_dtype dtype,
                                           int32_t ndim, const int64_t *shape, const void *data,
                                           uint64_t nbytes, tabi_tensor **out) {
  const char *who = "tabi_tensor_from_host";
  if (!rt) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: NULL runtime", who);
  tabi_tensor *t;
  tabi_status st = tabi_tensor_empty_impl(rt, device, dtype, ndim, shape, NULL, who, &t);
  if (st != TABI_OK) return st;
  uint64_t want = (uint64_t)tabi_tensor_numel(t) * (uint64_t)tabi_dtype_size(dtype);
  if (nbytes != want || (want && !data)) {
    tabi_tensor_release(t);
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: nbytes is %llu, the tensor needs %llu%s",
                          who, (unsigned long long)nbytes, (unsigned long long)want,
                          want && !data ? " (data is NULL)" : "");
  }
  st = want ? tabi_scatter_from_host(rt, t, data) : TABI_OK;
  if (st != TABI_OK) {
    tabi_tensor_release(t);
    return st;
  }
  *out = t;
  return TABI_OK;
}

TABI_API tabi_status tabi_tensor_to_host(tabi_runtime *rt, const tabi_tensor *t, void *dst,
                                         uint64_t nbytes) {
  const char *who = "tabi_tensor_to_host";
  if (!t) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: NULL tensor", who);
  int64_t es = (t->dl.dtype.bits * t->dl.dtype.lanes + 7) / 8;
  uint64_t want = (uint64_t)tabi_tensor_numel(t) * (uint64_t)es;
  if (nbytes != want || (want && !dst))
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: nbytes is %llu, the tensor has %llu%s",
                          who, (unsigned long long)nbytes, (unsigned long long)want,
                          want && !dst ? " (dst is NULL)" : "");
  if (!want) return TABI_OK;
  return tabi_gather_to_host(rt ? rt : tabi_impl(t)->storage->rt, t, dst);
}
