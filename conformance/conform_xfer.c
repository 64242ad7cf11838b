/* conformance/conform_xfer.c: tensors between the oracle and the runtime under test.
 *
 * The two runtimes share nothing, so a tensor moves by its storage: a base of
 * ceil(storage_nbytes / elem) elements in the target, the bytes copied, and a view
 * with the same shape, strides and byte offset on top. That keeps transposed,
 * stepped, offset and zero-stride layouts what they were, which is the point of
 * those samples.
 */
#include <stdlib.h>
#include <string.h>

#include "conform_int.h"

void conform_xfer_init(conform_xfer *x) { memset(x, 0, sizeof *x); }

void conform_xfer_clear(conform_xfer *x) {
  for (int32_t i = 0; i < x->n; i++) tabi_tensor_release(x->dst_base[i]);
  x->n = 0;
}

tabi_status conform_xfer_tensor(conform_xfer *x, tabi_runtime *dst_rt, DLDevice device,
                                tabi_tensor *src, tabi_tensor **out) {
  *out = NULL;
  tabi_dtype dt = tabi_tensor_dtype(src);
  int64_t esz = tabi_dtype_size(dt);
  if (esz <= 0) return TABI_ERR_TYPE;
  uint64_t id = tabi_tensor_storage_id(src);
  tabi_tensor *base = NULL;
  for (int32_t i = 0; i < x->n; i++)
    if (x->src_id[i] == id) base = x->dst_base[i];
  if (!base) {
    uint64_t nbytes = tabi_tensor_storage_nbytes(src);
    int64_t nel = (int64_t)((nbytes + (uint64_t)esz - 1) / (uint64_t)esz);
    if (nel == 0) nel = 1; /* an empty tensor still gets a (tiny) storage */
    uint8_t *buf = calloc((size_t)nel, (size_t)esz);
    if (!buf) return TABI_ERR_OUT_OF_MEMORY;
    if (nbytes && src->dl.data) memcpy(buf, src->dl.data, nbytes);
    tabi_status st = tabi_tensor_from_host(dst_rt, device, dt, 1, &nel, buf,
                                           (uint64_t)(nel * esz), &base);
    free(buf);
    if (st != TABI_OK) return st;
    if (x->n < CONFORM_XFER_MAX) {
      x->src_id[x->n] = id;
      x->dst_base[x->n++] = base;
    } else {
      /* Table full: the view below keeps the base alive on its own. */
      tabi_status vst = tabi_tensor_view(dst_rt, base, src->dl.ndim, src->dl.shape,
                                         src->dl.strides, (int64_t)src->dl.byte_offset, out);
      tabi_tensor_release(base);
      return vst;
    }
  }
  return tabi_tensor_view(dst_rt, base, src->dl.ndim, src->dl.shape, src->dl.strides,
                          (int64_t)src->dl.byte_offset, out);
}

tabi_status conform_args_xfer(conform_xfer *x, tabi_runtime *dst_rt, DLDevice device,
                              const conform_sample *s, conform_args *out) {
  memset(out, 0, sizeof *out);
  out->nargs = s->nargs;
  for (int32_t a = 0; a < s->nargs && a < CONFORM_MAX_ARGS; a++) {
    const tabi_value *v = &s->args[a];
    out->v[a] = *v;
    if (v->tag == TABI_TAG_TENSOR && v->u.t) {
      tabi_tensor *t;
      tabi_status st = conform_xfer_tensor(x, dst_rt, device, v->u.t, &t);
      if (st != TABI_OK) return st;
      out->owned[out->nowned++] = t;
      out->v[a].u.t = t;
    } else if (v->tag == TABI_TAG_TENSOR_LIST) {
      int64_t n = v->u.list.len;
      if (n > CONFORM_MAX_LIST) return TABI_ERR_INVALID_ARGUMENT;
      tabi_tensor *const *src = tabi_value_tensors(v);
      for (int64_t i = 0; i < n; i++) {
        out->lists[a][i] = NULL;
        if (!src[i]) continue;
        tabi_status st = conform_xfer_tensor(x, dst_rt, device, src[i], &out->lists[a][i]);
        if (st != TABI_OK) return st;
        out->owned[out->nowned++] = out->lists[a][i];
      }
      out->v[a].u.list.data = out->lists[a];
    } else if (v->tag == TABI_TAG_INT_LIST || v->tag == TABI_TAG_BOOL_LIST) {
      if (v->u.list.len > CONFORM_MAX_LIST) return TABI_ERR_INVALID_ARGUMENT;
      if (v->u.list.len > 0) memcpy(out->ints[a], v->u.list.data, (size_t)v->u.list.len * sizeof(int64_t));
      out->v[a].u.list.data = out->ints[a];
    } else if (v->tag == TABI_TAG_FLOAT_LIST) {
      if (v->u.list.len > CONFORM_MAX_LIST) return TABI_ERR_INVALID_ARGUMENT;
      if (v->u.list.len > 0) memcpy(out->floats[a], v->u.list.data, (size_t)v->u.list.len * sizeof(double));
      out->v[a].u.list.data = out->floats[a];
    } else if (v->tag == TABI_TAG_STRING) {
      if (v->u.list.len > (int64_t)sizeof out->strs[a]) return TABI_ERR_INVALID_ARGUMENT;
      if (v->u.list.len > 0) memcpy(out->strs[a], v->u.list.data, (size_t)v->u.list.len);
      out->v[a].u.list.data = out->strs[a];
    }
  }
  return TABI_OK;
}

int conform_args_retarget(conform_args *a, const tabi_op_info *info, DLDevice device) {
  int has_tensor = 0, has_device = 0;
  for (int32_t i = 0; i < info->nargs && i < CONFORM_MAX_ARGS; i++) {
    const tabi_arg_info *ai = &info->args[i];
    if (ai->type == TABI_TYPE_TENSOR || ai->type == TABI_TYPE_TENSOR_LIST) has_tensor = 1;
    if (ai->type != TABI_TYPE_DEVICE) continue;
    has_device = 1;
    while (a->nargs <= i) a->v[a->nargs++] = tabi_default(); /* fill up to the Device */
    tabi_value *v = &a->v[i];
    int unset = v->tag == TABI_TAG_NONE || v->tag == TABI_TAG_DEFAULT;
    if (unset || (v->tag == TABI_TAG_DEVICE && v->u.device.device_type == kDLCPU))
      *v = tabi_device_value(device);
  }
  return has_tensor || has_device;
}

void conform_args_release(conform_args *a) {
  for (int32_t i = 0; i < a->nowned; i++) tabi_tensor_release(a->owned[i]);
  a->nowned = 0;
}

tabi_status conform_tensor_host(tabi_runtime *rt, const tabi_tensor *t, uint8_t **out,
                                uint64_t *out_n) {
  *out = NULL;
  *out_n = 0;
  int64_t esz = tabi_dtype_size(tabi_tensor_dtype(t));
  uint64_t n = (uint64_t)(tabi_tensor_numel(t) * esz);
  uint8_t *buf = malloc(n ? n : 1);
  if (!buf) return TABI_ERR_OUT_OF_MEMORY;
  if (n) {
    tabi_status st = tabi_tensor_to_host(rt, t, buf, n);
    if (st != TABI_OK) {
      free(buf);
      return st;
    }
  }
  *out = buf;
  *out_n = n;
  return TABI_OK;
}

tabi_status conform_storage_bytes(tabi_runtime *rt, tabi_tensor *t, uint8_t **out,
                                  uint64_t *out_n) {
  *out = NULL;
  *out_n = 0;
  int64_t esz = tabi_dtype_size(tabi_tensor_dtype(t));
  uint64_t nbytes = tabi_tensor_storage_nbytes(t);
  int64_t nel = esz > 0 ? (int64_t)(nbytes / (uint64_t)esz) : 0;
  if (nel <= 0) {
    *out = malloc(1);
    return *out ? TABI_OK : TABI_ERR_OUT_OF_MEMORY;
  }
  /* A flat view over the whole storage reads it in one copy, on any device. */
  int64_t stride = 1;
  tabi_tensor *flat;
  tabi_status st = tabi_tensor_view(rt, t, 1, &nel, &stride, 0, &flat);
  if (st != TABI_OK) return st;
  st = conform_tensor_host(rt, flat, out, out_n);
  tabi_tensor_release(flat);
  return st;
}
