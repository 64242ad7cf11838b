/* reference/ref_shape_util.h: helpers the shape, copy and creation kernels share
 * (ref_shape*.c, ref_create*.c): factory arguments (dtype, device, sizes), ATen's
 * memory-format rules for `empty_like`-style outputs, checked Scalar conversion,
 * and the hand-off of a host-built result to another device.
 *
 * Every function that can fail sets the error through the host with the op's
 * name and the argument, and returns the status. No state; thread-safe.
 */
#ifndef TABI_REF_SHAPE_UTIL_H
#define TABI_REF_SHAPE_UTIL_H

#include "ref.h"

/* c10::MemoryFormat numbers, as MemoryFormat arguments carry them. */
#define RS_MF_CONTIGUOUS 0
#define RS_MF_PRESERVE 1
#define RS_MF_CHANNELS_LAST 2
#define RS_MF_CHANNELS_LAST_3D 3

/* A `Device?` argument; NONE is the CPU. */
DLDevice rs_device_arg(const tabi_value *v, DLDevice dflt);
/* A `ScalarType?` argument; NONE gives dflt. */
tabi_dtype rs_dtype_arg(const tabi_value *v, tabi_dtype dflt);
/* A `MemoryFormat?` argument; NONE gives dflt. */
int64_t rs_memfmt_arg(const tabi_value *v, int64_t dflt);
/* A Layout argument: None or strided (0); any other is INVALID_ARGUMENT. */
tabi_status rs_check_layout(const tabi_host_api *h, const tabi_call *call, const tabi_value *v);

/* Checks a size list: at most REF_MAX_DIMS entries (TABI_ERR_SHAPE) and none
 * negative (TABI_ERR_INVALID_ARGUMENT "<op>: argument 'size': Trying to create
 * tensor with negative dimension -1: [-1, 2]"). */
tabi_status rs_check_sizes(const tabi_host_api *h, const tabi_call *call, const char *arg,
                           int64_t n, const int64_t *sizes);

/* Row-major strides for shape (size-0 and size-1 dims count as 1, as ATen's
 * contiguous strides do). */
void rs_contig_strides(int32_t ndim, const int64_t *shape, int64_t *out_strides);

/* ATen's is_non_overlapping_and_dense. */
int rs_non_overlapping_and_dense(int32_t ndim, const int64_t *shape, const int64_t *strides);

/* Strides for a memory format: CONTIGUOUS (any rank), CHANNELS_LAST (rank 4),
 * CHANNELS_LAST_3D (rank 5). TABI_ERR_INVALID_ARGUMENT for a rank that does not
 * fit or an unknown format ("unsupported memory format Preserve" for PRESERVE). */
tabi_status rs_memfmt_strides(const tabi_host_api *h, const tabi_call *call, int64_t fmt,
                              int32_t ndim, const int64_t *shape, int64_t *out_strides);

/* The strides ATen's empty_like(self, memory_format) gives: for PRESERVE, self's
 * own strides when self is non-overlapping and dense, else those of
 * self.suggest_memory_format() (channels-last when self's strides look like it);
 * otherwise the format's strides. */
tabi_status rs_like_strides(const tabi_host_api *h, const tabi_call *call,
                            const tabi_tensor *self, int64_t fmt, int64_t *out_strides);

/* A new uninitialised tensor with explicit strides on the host (kDLCPU). */
tabi_status rs_empty_host(const tabi_host_api *h, tabi_dtype dtype, int32_t ndim,
                          const int64_t *shape, const int64_t *strides, tabi_tensor **out);

/* Moves a host-built result to `device`: returns *inout itself when device is
 * the CPU; otherwise a tensor of the same shape and strides on device holding
 * its values, releasing the host one. On error *inout is released and NULL. */
tabi_status rs_to_device(const tabi_host_api *h, DLDevice device, tabi_tensor **inout);

/* c10's checked Scalar conversion: TABI_ERR_INVALID_ARGUMENT "<op>: argument
 * '<arg>': value cannot be converted to type <dtype> without overflow" when the
 * Scalar does not fit the dtype (bool never overflows; a complex value with a
 * non-zero imaginary part never fits a real dtype; inf fits floats only, NaN
 * floats only; negative ints wrap into uint8 down to -255). */
tabi_status rs_check_scalar(const tabi_host_api *h, const tabi_call *call, const char *arg,
                            const tabi_value *v, tabi_dtype dtype);

/* Stores a Scalar into element `off` of t, converting as c10's Scalar.to<T> does
 * (real part for a real dtype; integers stay exact when t is integral). */
void rs_store_scalar(tabi_tensor *t, int64_t off, const tabi_value *v);
/* The same into one element of dtype d at p. */
void rs_store_scalar_ptr(void *p, tabi_dtype d, const tabi_value *v);

/* Fills every element of t (any layout) with the Scalar. */
void rs_fill(tabi_tensor *t, const tabi_value *v);

/* Copies src into dst (equal shapes, same storage or not): reads all of src
 * before writing when the two share storage, so overlapping views copy as if
 * through a temporary. OUT_OF_MEMORY only. */
tabi_status rs_copy_safe(const tabi_host_api *h, tabi_tensor *dst, const tabi_tensor *src);

/* Copies one element src[soff] to dst[doff], converting dtypes as
 * ref_copy_convert does. */
void rs_copy_elem(tabi_tensor *dst, int64_t doff, const tabi_tensor *src, int64_t soff);

/* 1 when some element of t is reachable through two indices (a stride-0 dim of
 * size > 1): writing into such a tensor is refused, as ATen refuses it. */
int rs_has_internal_overlap(const tabi_tensor *t);

/* ATen's get_overlap_status == Partial: same storage, both dense, byte ranges
 * that intersect without being the same range with the same strides. Overlaps
 * ATen cannot judge (non-dense views) are not partial: a copy goes through a
 * temporary instead. */
int rs_partial_overlap(const tabi_host_api *h, const tabi_tensor *a, const tabi_tensor *b);

/* ATen's checks of an out= argument before an op runs (TensorIterator's
 * compute_mem_overlaps): out may not have internal overlap, and no input
 * (tensors among ins, named by names) may overlap it in part; the same
 * tensor, or a view of the same elements with the same strides, may be both.
 * INVALID_ARGUMENT with ATen's words, naming the argument. */
tabi_status rs_check_out_overlap(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *out,
                                 const tabi_value *ins, const char *const *names, int32_t nin);

/* Kernels of ref_shape_pad.c, listed in ref_shape2.c's table. */
tabi_status rs_k_constant_pad_nd(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
tabi_status rs_k_reflection_pad1d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
tabi_status rs_k_reflection_pad2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
tabi_status rs_k_reflection_pad3d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
tabi_status rs_k_replication_pad2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
tabi_status rs_k_replication_pad3d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
tabi_status rs_k_repeat(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);
tabi_status rs_k_flip(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs);

#endif /* TABI_REF_SHAPE_UTIL_H */
