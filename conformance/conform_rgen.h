/* conformance/conform_rgen.h: random argument values for a schema's argument
 * types, for the random calls of conform_robust.c. A generator owns every
 * tensor it makes until rc_gen_release; the values it returns point into its
 * own buffers. Not installed. */
#ifndef TABI_CONFORM_RGEN_H
#define TABI_CONFORM_RGEN_H

#include <stddef.h>
#include <stdint.h>

#include <tabi/runtime.h>
#include <tabi/tabi.h>

#define RC_MAX_ARGS 32    /* ops with more arguments are left out */
#define RC_MAX_OUTS 8
#define RC_MAX_LIST 6     /* elements of a generated list */
#define RC_MAX_TENSORS 160 /* tensors alive at once (more: NONE) */

typedef struct rc_gen {
  tabi_runtime *rt;
  DLDevice dev;
  uint64_t state;
  tabi_tensor *live[RC_MAX_TENSORS];
  uint8_t read_only[RC_MAX_TENSORS];
  int nlive;
  /* the call's own shape and dtype, which its tensors mostly share, so that
     more calls get past the shape checks into the kernels */
  int32_t call_nd;
  int64_t call_shape[4];
  tabi_dtype call_dt;
  int64_t ints[RC_MAX_ARGS][RC_MAX_LIST];
  double floats[RC_MAX_ARGS][RC_MAX_LIST];
  tabi_tensor *tensors[RC_MAX_ARGS][RC_MAX_LIST];
} rc_gen;

void rc_gen_init(rc_gen *g, tabi_runtime *rt, DLDevice dev, uint64_t seed);
/* Starts a call: picks the shape and dtype its tensors mostly share. */
void rc_gen_begin_call(rc_gen *g);
/* A value for argument k (0 <= k < RC_MAX_ARGS) of the given schema type. */
tabi_value rc_gen_arg(rc_gen *g, int k, const tabi_arg_info *a);
/* The next number of the generator's stream (for choices its caller makes,
 * so that they replay with the arguments). */
uint64_t rc_gen_next(rc_gen *g);
/* A contiguous tensor of random elements on the generator's device, owned by
 * the generator like the arguments; NULL when it cannot be made. */
tabi_tensor *rc_gen_tensor(rc_gen *g, tabi_dtype dt, int32_t nd, const int64_t *shape);
/* Whether t was made read-only by the generator. */
int rc_gen_is_read_only(const rc_gen *g, const tabi_tensor *t);
/* Releases every tensor made since the last call. */
void rc_gen_release(rc_gen *g);

/* The tensors a value holds (a tensor, or a list's non-NULL elements). */
int rc_tensors_of(const tabi_value *v, tabi_tensor **out);
/* One line naming every argument's value (dtype, shape/strides, device). */
void rc_describe(const tabi_value *args, int n, char *buf, size_t cap);

#endif /* TABI_CONFORM_RGEN_H */
