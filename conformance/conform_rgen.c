/* conformance/conform_rgen.c: random argument values (see conform_rgen.h).
 *
 * Mostly small, plausible values, so that many calls get past the argument
 * checks and run a kernel on an odd layout; now and then values no caller
 * should pass. The huge ints are chosen so that any size built from them
 * overflows int64 or asks for a terabyte or more: a refusal either way, never
 * a real allocation of gigabytes that would make the run slow. */
#include "conform_rgen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/dlpack_versioned.h>

static uint64_t next(rc_gen *g) { /* xorshift64 */
  g->state ^= g->state << 13;
  g->state ^= g->state >> 7;
  g->state ^= g->state << 17;
  return g->state;
}
static int64_t in(rc_gen *g, int64_t lo, int64_t hi) { return lo + (int64_t)(next(g) % (uint64_t)(hi - lo + 1)); }
static int pct(rc_gen *g, int p) { return (int)(next(g) % 100) < p; }

void rc_gen_init(rc_gen *g, tabi_runtime *rt, DLDevice dev, uint64_t seed) {
  memset(g, 0, sizeof *g);
  g->rt = rt;
  g->dev = dev;
  g->state = 0x9E3779B97F4A7C15ull ^ (seed * 0xBF58476D1CE4E5B9ull);
  if (!g->state) g->state = 1;
}

static int64_t rand_int(rc_gen *g) {
  static const int64_t huge[] = {INT64_MAX, INT64_MIN, (int64_t)1 << 40, -((int64_t)1 << 40),
                                 (int64_t)1 << 62, -1000, -1};
  return pct(g, 85) ? in(g, -3, 6) : huge[next(g) % 7];
}

static double rand_float(rc_gen *g) {
  static const double special[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e308, 1e-310, 0.5, 2.0, -1.5};
  return pct(g, 30) ? special[next(g) % 10] : (double)in(g, -400, 400) / 100.0;
}

static const tabi_dtype all_dtypes[] = {
    TABI_DTYPE_BOOL,     TABI_DTYPE_UINT8,   TABI_DTYPE_INT8,    TABI_DTYPE_INT16,
    TABI_DTYPE_INT32,    TABI_DTYPE_INT64,   TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16,
    TABI_DTYPE_FLOAT32,  TABI_DTYPE_FLOAT64, TABI_DTYPE_COMPLEX64, TABI_DTYPE_COMPLEX128};

/* One element of dtype dt at p: values an op can use (bools 0/1, small
 * integers that are often valid indices, floats with the special values). */
static void rand_elem(rc_gen *g, tabi_dtype dt, unsigned char *p) {
  switch (dt) {
    case TABI_DTYPE_BOOL: *p = (unsigned char)(next(g) & 1); break;
    case TABI_DTYPE_UINT8: *p = (unsigned char)in(g, 0, 5); break;
    case TABI_DTYPE_INT8: *(int8_t *)p = (int8_t)in(g, -3, 5); break;
    case TABI_DTYPE_INT16: *(int16_t *)p = (int16_t)in(g, -3, 5); break;
    case TABI_DTYPE_INT32: *(int32_t *)p = (int32_t)in(g, -3, 5); break;
    case TABI_DTYPE_INT64: *(int64_t *)p = pct(g, 3) ? rand_int(g) : in(g, -3, 5); break;
    case TABI_DTYPE_FLOAT16: *(uint16_t *)p = tabi_f32_to_f16((float)rand_float(g)); break;
    case TABI_DTYPE_BFLOAT16: *(uint16_t *)p = tabi_f32_to_bf16((float)rand_float(g)); break;
    case TABI_DTYPE_FLOAT32: *(float *)p = (float)rand_float(g); break;
    case TABI_DTYPE_FLOAT64: *(double *)p = rand_float(g); break;
    case TABI_DTYPE_COMPLEX64:
      ((float *)p)[0] = (float)rand_float(g);
      ((float *)p)[1] = (float)rand_float(g);
      break;
    default:
      ((double *)p)[0] = rand_float(g);
      ((double *)p)[1] = rand_float(g);
      break;
  }
}

/* rand_tensor makes none once the table is full, so there is always room. */
static void keep(rc_gen *g, tabi_tensor *t, int read_only) {
  if (!t) return;
  g->read_only[g->nlive] = (uint8_t)read_only;
  g->live[g->nlive++] = t;
}

/* A read-only alias of t (through DLPack's read-only flag), or NULL. */
static tabi_tensor *read_only_alias(rc_gen *g, tabi_tensor *t) {
  DLManagedTensorVersioned *m = NULL;
  if (tabi_tensor_to_dlpack_versioned(t, &m) != TABI_OK) return NULL;
  m->flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
  tabi_tensor *r = NULL;
  if (tabi_tensor_from_dlpack_versioned(g->rt, m, &r) != TABI_OK) {
    m->deleter(m);
    return NULL;
  }
  return r;
}

uint64_t rc_gen_next(rc_gen *g) { return next(g); }

tabi_tensor *rc_gen_tensor(rc_gen *g, tabi_dtype dt, int32_t nd, const int64_t *shape) {
  if (g->nlive == RC_MAX_TENSORS || nd < 0 || nd > 8) return NULL;
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) {
    if (shape[i] < 0 || (shape[i] && n > ((int64_t)1 << 20) / shape[i])) return NULL;
    n *= shape[i];
  }
  size_t esz = tabi_dtype_size(dt);
  unsigned char *buf = malloc((size_t)(n > 0 ? n : 1) * esz);
  if (!buf) return NULL;
  for (int64_t k = 0; k < n; k++) rand_elem(g, dt, buf + k * esz);
  tabi_tensor *t = NULL;
  tabi_status st = tabi_tensor_from_host(g->rt, g->dev, dt, nd, shape, buf, (uint64_t)n * esz, &t);
  free(buf);
  if (st != TABI_OK) return NULL;
  keep(g, t, 0);
  return t;
}

static tabi_dtype rand_dtype(rc_gen *g) {
  return pct(g, 40) ? TABI_DTYPE_FLOAT32 : pct(g, 20) ? TABI_DTYPE_INT64 : all_dtypes[next(g) % 12];
}

static int32_t rand_shape(rc_gen *g, int64_t *shape) {
  int32_t nd = (int32_t)in(g, 0, 4);
  for (int32_t i = 0; i < nd; i++) shape[i] = pct(g, 5) ? 0 : in(g, 1, 4);
  return nd;
}

void rc_gen_begin_call(rc_gen *g) {
  g->call_nd = rand_shape(g, g->call_shape);
  g->call_dt = rand_dtype(g);
}

/* A tensor of the call made before, again, or a view of its storage that
 * overlaps it: the same shape one element further on or back, its first dim
 * less one from the second row on, or its first and last dims swapped. An op
 * must take an argument that is another's alias as ATen does (the same tensor
 * as an input and its out= argument, a running mean that is also the running
 * variance) and refuse a partial overlap of what it writes with what it reads
 * where ATen refuses it. The twin draws the same, so the reference sees the
 * same aliasing. */
static tabi_tensor *alias_of(rc_gen *g, tabi_tensor *e) {
  int32_t nd = e->dl.ndim;
  int64_t shape[8], strides[8];
  memcpy(shape, e->dl.shape, (size_t)nd * sizeof *shape);
  memcpy(strides, e->dl.strides, (size_t)nd * sizeof *strides);
  int64_t esz = (int64_t)tabi_dtype_size(tabi_tensor_dtype(e)), off = (int64_t)e->dl.byte_offset;
  switch (next(g) % 4) {
    case 0: return e;
    case 1: off += next(g) & 1 ? esz : -esz; break;
    case 2:
      if (nd < 1 || shape[0] < 2) return e;
      shape[0]--;
      off += strides[0] * esz;
      break;
    default: {
      if (nd < 2) return e;
      int64_t x = shape[0];
      shape[0] = shape[nd - 1], shape[nd - 1] = x;
      x = strides[0];
      strides[0] = strides[nd - 1], strides[nd - 1] = x;
      break;
    }
  }
  tabi_tensor *t = NULL;
  if (off < 0 || tabi_tensor_view(g->rt, e, nd, shape, strides, off, &t) != TABI_OK) {
    tabi_clear_error();
    return e;
  }
  keep(g, t, rc_gen_is_read_only(g, e));
  return t;
}

/* A tensor: 0 to 4 dims of 0 to 4 elements (mostly the call's shape and
 * dtype), in one of five layouts over a base of random elements:
 * contiguous, last and first dims swapped, every other element (step 2), one
 * dim broadcast (stride 0), offset by 3 elements. On the plugin's device, now
 * and then on the CPU. Now and then an alias of an earlier tensor of the
 * call (alias_of). */
static tabi_tensor *rand_tensor(rc_gen *g) {
  if (g->nlive == RC_MAX_TENSORS) return NULL;
  if (g->nlive > 0 && pct(g, 6)) return alias_of(g, g->live[next(g) % (uint64_t)g->nlive]);
  tabi_dtype dt = pct(g, 60) ? g->call_dt : rand_dtype(g);
  int64_t shape[4], base_shape[4], strides[4];
  int32_t nd = g->call_nd;
  if (pct(g, 60)) memcpy(shape, g->call_shape, sizeof shape);
  else nd = rand_shape(g, shape);
  int layout = (int)in(g, 0, 4);
  if (layout == 1 && nd < 2) layout = 0;
  int64_t bn = 1;
  for (int32_t i = 0; i < nd; i++) {
    base_shape[i] = layout == 2 ? 2 * shape[i] : shape[i];
    bn *= base_shape[i];
  }
  if (layout == 4) bn += 3;
  size_t esz = tabi_dtype_size(dt);
  unsigned char *buf = malloc((size_t)(bn > 0 ? bn : 1) * esz);
  if (!buf) return NULL;
  for (int64_t k = 0; k < bn; k++) rand_elem(g, dt, buf + k * esz);
  DLDevice d = pct(g, 90) ? g->dev : (DLDevice){kDLCPU, 0};
  tabi_tensor *base = NULL, *t = NULL;
  tabi_status st = tabi_tensor_from_host(g->rt, d, dt, 1, &bn, buf, (uint64_t)bn * esz, &base);
  free(buf);
  if (st != TABI_OK) return NULL;
  int64_t s = 1;
  for (int32_t i = nd - 1; i >= 0; i--) {
    strides[i] = layout == 2 ? 2 * s : s;
    s *= base_shape[i];
  }
  if (layout == 1) {
    int64_t x = strides[0];
    strides[0] = strides[nd - 1];
    strides[nd - 1] = x;
    x = shape[0];
    shape[0] = shape[nd - 1];
    shape[nd - 1] = x;
  }
  if (layout == 3 && nd > 0) strides[next(g) % (uint64_t)nd] = 0;
  st = tabi_tensor_view(g->rt, base, nd, shape, strides, layout == 4 ? (int64_t)(3 * esz) : 0, &t);
  tabi_tensor_release(base);
  if (st != TABI_OK) return NULL;
  if (pct(g, 4)) {
    tabi_tensor *r = read_only_alias(g, t);
    tabi_tensor_release(t);
    keep(g, r, 1);
    return r;
  }
  keep(g, t, 0);
  return t;
}

static const char *const strings[] = {"none",    "tanh",     "mean",      "sum",     "prod",    "amax",
                                      "amin",    "reflect",  "constant",  "circular", "replicate",
                                      "linear",  "bilinear", "nearest",   "backward", "forward",
                                      "ortho",   "",         "bogus\x01", "high",     "low"};

tabi_value rc_gen_arg(rc_gen *g, int k, const tabi_arg_info *a) {
  if ((a->flags & TABI_ARG_OPTIONAL) && pct(g, 25)) return tabi_none();
  if ((a->flags & TABI_ARG_HAS_DEFAULT) && pct(g, 20)) return tabi_default();
  switch (a->type) {
    case TABI_TYPE_TENSOR: return tabi_tensor_value(rand_tensor(g)); /* NULL: NONE */
    case TABI_TYPE_INT:
    case TABI_TYPE_LAYOUT:
    case TABI_TYPE_MEMORY_FORMAT: return tabi_int(rand_int(g));
    case TABI_TYPE_FLOAT: return tabi_float(rand_float(g));
    case TABI_TYPE_BOOL: return tabi_bool((int)(next(g) & 1));
    case TABI_TYPE_SCALAR:
      switch (next(g) % 4) {
        case 0: return tabi_int(rand_int(g));
        case 1: return tabi_float(rand_float(g));
        case 2: return tabi_bool((int)(next(g) & 1));
        default: return tabi_complex(rand_float(g), rand_float(g));
      }
    case TABI_TYPE_SCALAR_TYPE:
      return tabi_dtype_value(pct(g, 95) ? all_dtypes[next(g) % 12] : (tabi_dtype)in(g, 12, 300));
    case TABI_TYPE_DEVICE: {
      DLDevice d = pct(g, 20) ? (DLDevice){kDLCPU, 0} : g->dev;
      if (pct(g, 5)) d.device_id = 7;
      if (pct(g, 3)) d.device_type = (DLDeviceType)99;
      return tabi_device_value(d);
    }
    case TABI_TYPE_STRING: {
      const char *s = strings[next(g) % (sizeof strings / sizeof *strings)];
      return tabi_string(s, (int64_t)strlen(s));
    }
    case TABI_TYPE_INT_LIST:
    case TABI_TYPE_BOOL_LIST: {
      int64_t n = a->fixed_len && a->fixed_len <= RC_MAX_LIST && pct(g, 80) ? a->fixed_len : in(g, 0, 5);
      for (int64_t i = 0; i < n; i++)
        g->ints[k][i] = a->type == TABI_TYPE_BOOL_LIST ? (int64_t)(next(g) & 1) : rand_int(g);
      return a->type == TABI_TYPE_BOOL_LIST ? tabi_bool_list(g->ints[k], n) : tabi_int_list(g->ints[k], n);
    }
    case TABI_TYPE_FLOAT_LIST: {
      int64_t n = in(g, 0, 4);
      for (int64_t i = 0; i < n; i++) g->floats[k][i] = rand_float(g);
      return tabi_float_list(g->floats[k], n);
    }
    case TABI_TYPE_TENSOR_LIST: {
      int64_t n = in(g, 0, 4), m = 0;
      for (int64_t i = 0; i < n; i++) {
        tabi_tensor *t = (a->flags & TABI_ARG_ELEM_OPTIONAL) && pct(g, 30) ? NULL : rand_tensor(g);
        if (!t && !(a->flags & TABI_ARG_ELEM_OPTIONAL)) continue;
        g->tensors[k][m++] = t;
      }
      return tabi_tensor_list(g->tensors[k], m);
    }
    default: return tabi_none();
  }
}

int rc_gen_is_read_only(const rc_gen *g, const tabi_tensor *t) {
  for (int i = 0; i < g->nlive; i++)
    if (g->live[i] == t) return g->read_only[i];
  return 0;
}

void rc_gen_release(rc_gen *g) {
  for (int i = 0; i < g->nlive; i++) tabi_tensor_release(g->live[i]);
  g->nlive = 0;
}

int rc_tensors_of(const tabi_value *v, tabi_tensor **out) {
  if (v->tag == TABI_TAG_TENSOR) {
    out[0] = v->u.t;
    return v->u.t != NULL;
  }
  if (v->tag != TABI_TAG_TENSOR_LIST) return 0;
  int n = 0;
  for (int64_t i = 0; i < v->u.list.len && n < RC_MAX_LIST; i++)
    if (tabi_value_tensors(v)[i]) out[n++] = tabi_value_tensors(v)[i];
  return n;
}

#define PUT(...) (o += (size_t)snprintf(buf + o, o < cap ? cap - o : 0, __VA_ARGS__), o = o < cap ? o : cap)

void rc_describe(const tabi_value *args, int n, char *buf, size_t cap) {
  size_t o = 0;
  buf[0] = 0;
  for (int k = 0; k < n; k++) {
    const tabi_value *v = &args[k];
    if (k) PUT(", ");
    switch (v->tag) {
      case TABI_TAG_TENSOR: {
        const tabi_tensor *t = v->u.t;
        PUT("%s[", tabi_dtype_name(tabi_tensor_dtype(t)));
        for (int32_t i = 0; i < t->dl.ndim; i++) PUT("%s%lld", i ? "," : "", (long long)t->dl.shape[i]);
        PUT("]{");
        for (int32_t i = 0; i < t->dl.ndim; i++) PUT("%s%lld", i ? "," : "", (long long)t->dl.strides[i]);
        PUT("}+%llu@%d", (unsigned long long)t->dl.byte_offset, (int)t->dl.device.device_type);
        break;
      }
      case TABI_TAG_INT: PUT("%lld", (long long)v->u.i); break;
      case TABI_TAG_BOOL: PUT("%s", v->u.i ? "True" : "False"); break;
      case TABI_TAG_FLOAT: PUT("%g", v->u.f); break;
      case TABI_TAG_COMPLEX: PUT("(%g%+gj)", v->u.c[0], v->u.c[1]); break;
      case TABI_TAG_NONE: PUT("None"); break;
      case TABI_TAG_DEFAULT: PUT("<default>"); break;
      case TABI_TAG_DTYPE: PUT("dtype %d", (int)v->u.dtype); break;
      case TABI_TAG_DEVICE: PUT("device %d:%d", (int)v->u.device.device_type, (int)v->u.device.device_id); break;
      case TABI_TAG_STRING: PUT("'%.*s'", (int)v->u.list.len, (const char *)v->u.list.data); break;
      case TABI_TAG_INT_LIST:
      case TABI_TAG_BOOL_LIST:
        PUT("[");
        for (int64_t i = 0; i < v->u.list.len; i++) PUT("%s%lld", i ? "," : "", (long long)tabi_value_ints(v)[i]);
        PUT("]");
        break;
      case TABI_TAG_FLOAT_LIST:
        PUT("[");
        for (int64_t i = 0; i < v->u.list.len; i++) PUT("%s%g", i ? "," : "", tabi_value_floats(v)[i]);
        PUT("]");
        break;
      case TABI_TAG_TENSOR_LIST: PUT("<%lld tensors>", (long long)v->u.list.len); break;
      default: PUT("?"); break;
    }
  }
}
