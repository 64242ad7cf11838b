/* tabi/dtype.h: scalar types.
 *
 * Tensors carry their element type as a DLPack DLDataType (it is the DLTensor's).
 * Boxed arguments of schema type `ScalarType` carry a tabi_dtype, whose values are
 * ATen's ScalarType numbers: schemas write defaults in them (`dtype=4` is int64).
 * The two convert with the inline functions below; both directions are total over
 * the twelve dtypes tabi supports and report anything else as TABI_DTYPE_INVALID.
 */
#ifndef TABI_DTYPE_H
#define TABI_DTYPE_H

#include <stdint.h>
#include <dlpack/dlpack.h>

typedef int32_t tabi_dtype;

#define TABI_DTYPE_UINT8       0
#define TABI_DTYPE_INT8        1
#define TABI_DTYPE_INT16       2
#define TABI_DTYPE_INT32       3
#define TABI_DTYPE_INT64       4
#define TABI_DTYPE_FLOAT16     5
#define TABI_DTYPE_FLOAT32     6
#define TABI_DTYPE_FLOAT64     7
#define TABI_DTYPE_COMPLEX64   9
#define TABI_DTYPE_COMPLEX128 10
#define TABI_DTYPE_BOOL       11
#define TABI_DTYPE_BFLOAT16   15
#define TABI_DTYPE_INVALID    -1

/* DLPack 0.6 has no bool code; DLPack 1.0 added kDLBool = 6 with bits = 8. */
#define TABI_DL_BOOL 6

static inline DLDataType tabi_dtype_to_dl(tabi_dtype t) {
  DLDataType d = {0, 0, 1};
  switch (t) {
    case TABI_DTYPE_UINT8: d.code = kDLUInt; d.bits = 8; break;
    case TABI_DTYPE_INT8: d.code = kDLInt; d.bits = 8; break;
    case TABI_DTYPE_INT16: d.code = kDLInt; d.bits = 16; break;
    case TABI_DTYPE_INT32: d.code = kDLInt; d.bits = 32; break;
    case TABI_DTYPE_INT64: d.code = kDLInt; d.bits = 64; break;
    case TABI_DTYPE_FLOAT16: d.code = kDLFloat; d.bits = 16; break;
    case TABI_DTYPE_FLOAT32: d.code = kDLFloat; d.bits = 32; break;
    case TABI_DTYPE_FLOAT64: d.code = kDLFloat; d.bits = 64; break;
    case TABI_DTYPE_COMPLEX64: d.code = kDLComplex; d.bits = 64; break;
    case TABI_DTYPE_COMPLEX128: d.code = kDLComplex; d.bits = 128; break;
    case TABI_DTYPE_BOOL: d.code = TABI_DL_BOOL; d.bits = 8; break;
    case TABI_DTYPE_BFLOAT16: d.code = kDLBfloat; d.bits = 16; break;
    default: d.lanes = 0; break; /* lanes 0 marks an invalid DLDataType */
  }
  return d;
}

/* Accepts bool as kDLBool/8 (DLPack 1.0) and as kDLUInt/1 (older exporters). */
static inline tabi_dtype tabi_dtype_from_dl(DLDataType d) {
  if (d.lanes != 1) return TABI_DTYPE_INVALID;
  switch (d.code) {
    case kDLUInt:
      if (d.bits == 8) return TABI_DTYPE_UINT8;
      if (d.bits == 1) return TABI_DTYPE_BOOL;
      return TABI_DTYPE_INVALID;
    case kDLInt:
      switch (d.bits) {
        case 8: return TABI_DTYPE_INT8;
        case 16: return TABI_DTYPE_INT16;
        case 32: return TABI_DTYPE_INT32;
        case 64: return TABI_DTYPE_INT64;
        default: return TABI_DTYPE_INVALID;
      }
    case kDLFloat:
      switch (d.bits) {
        case 16: return TABI_DTYPE_FLOAT16;
        case 32: return TABI_DTYPE_FLOAT32;
        case 64: return TABI_DTYPE_FLOAT64;
        default: return TABI_DTYPE_INVALID;
      }
    case kDLBfloat: return d.bits == 16 ? TABI_DTYPE_BFLOAT16 : TABI_DTYPE_INVALID;
    case kDLComplex:
      if (d.bits == 64) return TABI_DTYPE_COMPLEX64;
      if (d.bits == 128) return TABI_DTYPE_COMPLEX128;
      return TABI_DTYPE_INVALID;
    case TABI_DL_BOOL: return d.bits == 8 ? TABI_DTYPE_BOOL : TABI_DTYPE_INVALID;
    default: return TABI_DTYPE_INVALID;
  }
}

/* Size of one element in bytes; 0 for an invalid dtype. */
static inline int64_t tabi_dtype_size(tabi_dtype t) {
  switch (t) {
    case TABI_DTYPE_UINT8: case TABI_DTYPE_INT8: case TABI_DTYPE_BOOL: return 1;
    case TABI_DTYPE_INT16: case TABI_DTYPE_FLOAT16: case TABI_DTYPE_BFLOAT16: return 2;
    case TABI_DTYPE_INT32: case TABI_DTYPE_FLOAT32: return 4;
    case TABI_DTYPE_INT64: case TABI_DTYPE_FLOAT64: case TABI_DTYPE_COMPLEX64: return 8;
    case TABI_DTYPE_COMPLEX128: return 16;
    default: return 0;
  }
}

static inline int tabi_dtype_is_floating(tabi_dtype t) {
  return t == TABI_DTYPE_FLOAT16 || t == TABI_DTYPE_FLOAT32 || t == TABI_DTYPE_FLOAT64 ||
         t == TABI_DTYPE_BFLOAT16;
}
static inline int tabi_dtype_is_complex(tabi_dtype t) {
  return t == TABI_DTYPE_COMPLEX64 || t == TABI_DTYPE_COMPLEX128;
}
static inline int tabi_dtype_is_integral(tabi_dtype t, int include_bool) {
  return t == TABI_DTYPE_UINT8 || t == TABI_DTYPE_INT8 || t == TABI_DTYPE_INT16 ||
         t == TABI_DTYPE_INT32 || t == TABI_DTYPE_INT64 ||
         (include_bool && t == TABI_DTYPE_BOOL);
}

/* "float32", "bfloat16", ...; "invalid" for anything else. Never NULL. */
static inline const char *tabi_dtype_name(tabi_dtype t) {
  switch (t) {
    case TABI_DTYPE_UINT8: return "uint8";
    case TABI_DTYPE_INT8: return "int8";
    case TABI_DTYPE_INT16: return "int16";
    case TABI_DTYPE_INT32: return "int32";
    case TABI_DTYPE_INT64: return "int64";
    case TABI_DTYPE_FLOAT16: return "float16";
    case TABI_DTYPE_FLOAT32: return "float32";
    case TABI_DTYPE_FLOAT64: return "float64";
    case TABI_DTYPE_COMPLEX64: return "complex64";
    case TABI_DTYPE_COMPLEX128: return "complex128";
    case TABI_DTYPE_BOOL: return "bool";
    case TABI_DTYPE_BFLOAT16: return "bfloat16";
    default: return "invalid";
  }
}

/* The twelve supported dtypes, for loops over all of them. */
#define TABI_DTYPE_COUNT 12
static const tabi_dtype tabi_all_dtypes[TABI_DTYPE_COUNT] = {
    TABI_DTYPE_BOOL,    TABI_DTYPE_UINT8,   TABI_DTYPE_INT8,     TABI_DTYPE_INT16,
    TABI_DTYPE_INT32,   TABI_DTYPE_INT64,   TABI_DTYPE_FLOAT16,  TABI_DTYPE_BFLOAT16,
    TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_COMPLEX64, TABI_DTYPE_COMPLEX128};

#endif /* TABI_DTYPE_H */
