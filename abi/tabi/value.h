/* tabi/value.h: boxed values, the arguments and results of every kernel.
 *
 * A kernel takes an array of tabi_value (one per schema argument, defaults already
 * filled in by the dispatcher) and writes an array of tabi_value (one per schema
 * return). A value is 24 bytes: a tag and a payload.
 *
 * Schema types map to tags:
 *   Tensor             TENSOR                Tensor?            TENSOR or NONE
 *   int, SymInt        INT                   int?               INT or NONE
 *   float              FLOAT                 bool               BOOL
 *   Scalar             BOOL, INT, FLOAT or COMPLEX (the Python scalar kinds)
 *   int[], SymInt[], int[N]   INT_LIST       float[]            FLOAT_LIST
 *   bool[N]            BOOL_LIST             Tensor[]           TENSOR_LIST
 *   Tensor?[]          TENSOR_LIST whose elements may be NULL
 *   ScalarType         DTYPE (a tabi_dtype)  Device             DEVICE
 *   str                STRING                Layout, MemoryFormat   INT
 * A fixed-size list `int[2]` given a single INT is expanded by the dispatcher.
 *
 * Ownership, written once here and followed everywhere:
 *  - Arguments are borrowed. The caller owns every tensor and every list array it
 *    passes; they stay valid until the call returns. A kernel that keeps a tensor
 *    past the call retains it.
 *  - A mutable argument (schema `Tensor(a!)`) is written in place; the kernel
 *    still returns it as an output, as a new reference.
 *  - Outputs are owned by the caller. A kernel stores new references in output
 *    tensors. A TENSOR_LIST output's array comes from host->list_alloc and is
 *    freed, with the references in it, by host->value_release (or
 *    tabi_value_release on the framework side). A STRING output is never returned.
 *  - On error a kernel leaves every output NONE and holds no new references.
 */
#ifndef TABI_VALUE_H
#define TABI_VALUE_H

#include <stdint.h>
#include <dlpack/dlpack.h>

#include "dtype.h"
#include "tensor.h"

#define TABI_TAG_NONE         0
#define TABI_TAG_BOOL         1
#define TABI_TAG_INT          2
#define TABI_TAG_FLOAT        3
#define TABI_TAG_COMPLEX      4
#define TABI_TAG_TENSOR       5
#define TABI_TAG_INT_LIST     6
#define TABI_TAG_FLOAT_LIST   7
#define TABI_TAG_BOOL_LIST    8
#define TABI_TAG_TENSOR_LIST  9
#define TABI_TAG_DTYPE       10
#define TABI_TAG_DEVICE      11
#define TABI_TAG_STRING      12
/* Only in a caller's argument array: "use the schema's default here". The
 * dispatcher replaces it before any kernel sees it. */
#define TABI_TAG_DEFAULT     13
#define TABI_TAG_COUNT       14

typedef struct tabi_value {
  int32_t tag;   /* TABI_TAG_* */
  int32_t flags; /* reserved, 0 */
  union {
    int64_t i;          /* BOOL (0/1), INT */
    double f;           /* FLOAT */
    double c[2];        /* COMPLEX: real, imaginary */
    tabi_tensor *t;     /* TENSOR */
    tabi_dtype dtype;   /* DTYPE */
    DLDevice device;    /* DEVICE */
    struct {
      const void *data; /* const int64_t* for INT_LIST and BOOL_LIST (0/1),
                           const double* for FLOAT_LIST,
                           tabi_tensor *const* for TENSOR_LIST,
                           const char* for STRING (not NUL-terminated) */
      int64_t len;
    } list;
  } u;
} tabi_value;

/* Constructors, so callers do not touch the union by hand. */
static inline tabi_value tabi_none(void) { tabi_value v; v.tag = TABI_TAG_NONE; v.flags = 0; v.u.i = 0; v.u.list.len = 0; return v; }
static inline tabi_value tabi_default(void) { tabi_value v = tabi_none(); v.tag = TABI_TAG_DEFAULT; return v; }
static inline tabi_value tabi_bool(int b) { tabi_value v = tabi_none(); v.tag = TABI_TAG_BOOL; v.u.i = b != 0; return v; }
static inline tabi_value tabi_int(int64_t i) { tabi_value v = tabi_none(); v.tag = TABI_TAG_INT; v.u.i = i; return v; }
static inline tabi_value tabi_float(double f) { tabi_value v = tabi_none(); v.tag = TABI_TAG_FLOAT; v.u.f = f; return v; }
static inline tabi_value tabi_complex(double re, double im) { tabi_value v = tabi_none(); v.tag = TABI_TAG_COMPLEX; v.u.c[0] = re; v.u.c[1] = im; return v; }
static inline tabi_value tabi_tensor_value(tabi_tensor *t) { tabi_value v = tabi_none(); v.tag = t ? TABI_TAG_TENSOR : TABI_TAG_NONE; v.u.t = t; return v; }
static inline tabi_value tabi_dtype_value(tabi_dtype d) { tabi_value v = tabi_none(); v.tag = TABI_TAG_DTYPE; v.u.dtype = d; return v; }
static inline tabi_value tabi_device_value(DLDevice d) { tabi_value v = tabi_none(); v.tag = TABI_TAG_DEVICE; v.u.device = d; return v; }
static inline tabi_value tabi_int_list(const int64_t *data, int64_t len) { tabi_value v = tabi_none(); v.tag = TABI_TAG_INT_LIST; v.u.list.data = data; v.u.list.len = len; return v; }
static inline tabi_value tabi_bool_list(const int64_t *data, int64_t len) { tabi_value v = tabi_int_list(data, len); v.tag = TABI_TAG_BOOL_LIST; return v; }
static inline tabi_value tabi_float_list(const double *data, int64_t len) { tabi_value v = tabi_none(); v.tag = TABI_TAG_FLOAT_LIST; v.u.list.data = data; v.u.list.len = len; return v; }
static inline tabi_value tabi_tensor_list(tabi_tensor *const *data, int64_t len) { tabi_value v = tabi_none(); v.tag = TABI_TAG_TENSOR_LIST; v.u.list.data = data; v.u.list.len = len; return v; }
/* `s` need not be NUL-terminated; len is its length in bytes. */
static inline tabi_value tabi_string(const char *s, int64_t len) { tabi_value v = tabi_none(); v.tag = TABI_TAG_STRING; v.u.list.data = s; v.u.list.len = len; return v; }

/* Typed views of list payloads. */
static inline const int64_t *tabi_value_ints(const tabi_value *v) { return (const int64_t *)v->u.list.data; }
static inline const double *tabi_value_floats(const tabi_value *v) { return (const double *)v->u.list.data; }
static inline tabi_tensor *const *tabi_value_tensors(const tabi_value *v) { return (tabi_tensor *const *)v->u.list.data; }
static inline const char *tabi_value_str(const tabi_value *v) { return (const char *)v->u.list.data; }

/* A Scalar (BOOL/INT/FLOAT/COMPLEX) as a double (the real part of a complex). */
static inline double tabi_value_as_double(const tabi_value *v) {
  switch (v->tag) {
    case TABI_TAG_BOOL: case TABI_TAG_INT: return (double)v->u.i;
    case TABI_TAG_FLOAT: return v->u.f;
    case TABI_TAG_COMPLEX: return v->u.c[0];
    default: return 0.0;
  }
}

#endif /* TABI_VALUE_H */
