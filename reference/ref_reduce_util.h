/* reference/ref_reduce_util.h: the one reduction driver of the reference kernels.
 *
 * A reduction (sum, prod, mean, amax, amin, any, var, their prims) turns a dims
 * argument into a ref_red: which dims are reduced, the output shape (keepdim
 * applied) and two iteration shapes. The kernel then walks the output with an
 * "outer" iterator and, for each output element, the reduced elements with an
 * "inner" iterator; the element offset is outer.off[0] + inner.off[0], and the
 * output (a new contiguous tensor) is written at outer.pos:
 *
 *   ref_iter o; ref_red_outer(&r, self, &o);
 *   for (; !ref_iter_done(&o); ref_iter_next(&o)) {
 *     ref_iter in; ref_red_inner(&r, self, &in);
 *     for (; !ref_iter_done(&in); ref_iter_next(&in)) use(o.off[0] + in.off[0]);
 *     store(out, o.pos);
 *   }
 *
 * Also here: loads "as if cast to dtype X first" (ATen's `dtype=` argument casts
 * the input before reducing) and the empty-input checks of amax/argmax & co.
 * Owned by the reductions family; nothing here keeps state. Errors go through
 * host->set_error with the op's name.
 */
#ifndef TABI_REF_REDUCE_UTIL_H
#define TABI_REF_REDUCE_UTIL_H

#include "ref.h"
#include "ref_op_lists.h"

typedef struct ref_red {
  int32_t ndim;                        /* of the input */
  int32_t dims_empty;                  /* the dims argument was None or [] */
  uint8_t reduced[REF_MAX_DIMS];       /* 1 for each reduced dim */
  int64_t outer_shape[REF_MAX_DIMS];   /* input shape with reduced dims set to 1 */
  int64_t inner_shape[REF_MAX_DIMS];   /* 1 except at reduced dims */
  int32_t out_ndim;
  int64_t out_shape[REF_MAX_DIMS];     /* keepdim applied */
  int64_t group;                       /* elements reduced into each output element */
} ref_red;

/* What an aten reduction comes to before any element is read (ref_reduce.c):
 * the dims plan, the kind, the dtype the input is read as (`dtype=` casts
 * first), the output dtype, and var's correction. Exported per op as
 * ref_red_plan_<name> (REF_RED_ATEN_LIST, ref_op_lists.h) so a device plugin runs the same
 * argument handling, statuses and messages. */
typedef struct ref_red_aten_plan {
  ref_red r;
  int32_t kind; /* REF_RED_* */
  tabi_dtype as, out_dt;
  int64_t correction;
} ref_red_aten_plan;

#define REF_RED_PLAN_DECL(name, opname)                                          \
  tabi_status ref_red_plan_##name(const tabi_host_api *h, const tabi_call *call, \
                                  const tabi_value *args, ref_red_aten_plan *out);
REF_RED_ATEN_LIST(REF_RED_PLAN_DECL)
#undef REF_RED_PLAN_DECL

/* What an empty int list means: ATen reductions treat `dim=[]` as "every dim";
 * prims reduce exactly the dims listed, so [] reduces none. */
#define REF_RED_EMPTY_IS_ALL 1
#define REF_RED_EMPTY_IS_NONE 0

/* Builds the plan from a dims argument: NONE (every dim), INT (one dim) or
 * INT_LIST. Dims wrap (0-d tensors take -1 and 0); TABI_ERR_INDEX for a dim out
 * of range, TABI_ERR_INVALID_ARGUMENT for a dim listed twice. `arg` names the
 * argument in messages. */
tabi_status ref_red_init(const tabi_host_api *h, const tabi_call *call, const char *arg,
                         const tabi_tensor *self, const tabi_value *dims, int empty_is_all,
                         int keepdim, ref_red *out);

/* Iterators over the output elements (operand 0: self's offset of the first
 * reduced element) and over one output element's reduced elements. */
void ref_red_outer(const ref_red *r, const tabi_tensor *self, ref_iter *it);
void ref_red_inner(const ref_red *r, const tabi_tensor *self, ref_iter *it);

/* ATen's zero-numel check for amax/amin/argmax/max.dim: when self is empty,
 * "every dim" is refused (TABI_ERR_SHAPE: "Expected reduction dim to be
 * specified for input.numel() == 0") and so is a reduced dim of size 0
 * (TABI_ERR_INDEX: "Expected reduction dim 0 to have non-zero size"). */
tabi_status ref_red_check_nonempty(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_tensor *self, const ref_red *r);

/* Loads element `off` of t as if t had first been converted to dtype `as`
 * (identity when as is t's dtype). */
int64_t ref_red_load_i(const tabi_tensor *t, int64_t off, tabi_dtype as);
double ref_red_load_f(const tabi_tensor *t, int64_t off, tabi_dtype as);
ref_cplx ref_red_load_c(const tabi_tensor *t, int64_t off, tabi_dtype as);

/* Wraps an int64 value to the width of integral dtype dt (what storing into
 * and reloading from a dt tensor gives): accumulations that ATen does in the
 * tensor's own integer type. */
int64_t ref_red_wrap_i(int64_t v, tabi_dtype dt);

/* The optional `dtype=`/`output_dtype=` argument: TABI_DTYPE_INVALID when NONE. */
static inline tabi_dtype ref_red_opt_dtype(const tabi_value *v) {
  return v->tag == TABI_TAG_DTYPE ? v->u.dtype : TABI_DTYPE_INVALID;
}

/* The real dtype of a complex one (complex64 -> float32); others unchanged. */
static inline tabi_dtype ref_red_real_dtype(tabi_dtype d) {
  if (d == TABI_DTYPE_COMPLEX64) return TABI_DTYPE_FLOAT32;
  if (d == TABI_DTYPE_COMPLEX128) return TABI_DTYPE_FLOAT64;
  return d;
}

#endif /* TABI_REF_REDUCE_UTIL_H */
