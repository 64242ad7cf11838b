/* acme.h: what the acme plugin's files share.
 *
 * acme is a pretend accelerator (device type kDLExtDev) whose memory happens to
 * be host memory: the device table (acme_device.c) allocates with malloc, so
 * kernels can read and write tensors directly. A real vendor replaces the
 * table's slots with driver calls and the kernels with device launches; the
 * shape of the plugin stays the same.
 *
 * The plugin implements prims only; every core ATen op it has no kernel for is
 * served by tabi's decompositions (the "decomp" plugin) built from these prims.
 * Supported dtypes: bool, the integers, float32, float64 (others are refused
 * with TABI_ERR_TYPE, naming the op and the argument).
 */
#ifndef ACME_H
#define ACME_H

#include <tabi/tabi.h>

#define ACME_DEVICE_TYPE kDLExtDev
#define ACME_MAX_DIMS 16

typedef struct acme_kernel {
  const char *op;
  tabi_kernel_fn fn;
} acme_kernel;

/* Tables, ended by {NULL, NULL}. */
extern const acme_kernel acme_elementwise_kernels[];
extern const acme_kernel acme_shape_kernels[];

/* The device table for kDLExtDev. */
tabi_status acme_device_register(const tabi_host_api *host);

/* --- element access (any strides) ------------------------------------------- */
int acme_dtype_ok(tabi_dtype d);
tabi_status acme_check(const tabi_host_api *h, const tabi_call *call, const char *arg,
                       const tabi_tensor *t);
const char *acme_op_name(const tabi_host_api *h, const tabi_call *call);
double acme_get(const tabi_tensor *t, int64_t off);
int64_t acme_get_i(const tabi_tensor *t, int64_t off);
void acme_set(tabi_tensor *t, int64_t off, double v);
void acme_set_i(tabi_tensor *t, int64_t off, int64_t v);
/* Offset (elements) of row-major position `linear` of t's own shape. */
int64_t acme_offset(const tabi_tensor *t, int64_t linear);
/* A new contiguous tensor on t's device. */
tabi_status acme_empty_like(const tabi_host_api *h, const tabi_tensor *t, tabi_dtype d,
                            int32_t ndim, const int64_t *shape, tabi_tensor **out);

#endif /* ACME_H */
