/* tabi/status.h: status codes.
 *
 * Every fallible call returns a tabi_status. TABI_OK is zero; anything else is an
 * error whose detail (the op, the argument, expected vs got) is kept per thread:
 * read it with tabi_last_error() (framework side) or host->last_error (plugin side).
 * No path a caller or a plugin can reach aborts the process.
 */
#ifndef TABI_STATUS_H
#define TABI_STATUS_H

#include <stdint.h>

typedef int32_t tabi_status;

#define TABI_OK                    0
#define TABI_ERR_INVALID_ARGUMENT  1  /* a value is wrong: null, bad type, bad size */
#define TABI_ERR_OUT_OF_MEMORY     2  /* an allocation failed */
#define TABI_ERR_NOT_FOUND         3  /* no such op, plugin, extension, symbol */
#define TABI_ERR_UNIMPLEMENTED     4  /* no kernel for this op on this device */
#define TABI_ERR_ABI_MISMATCH      5  /* plugin and host ABI majors differ */
#define TABI_ERR_ALREADY_EXISTS    6  /* duplicate op, kernel, layer, backend */
#define TABI_ERR_TYPE              7  /* dtype not accepted by the op */
#define TABI_ERR_SHAPE             8  /* shapes that do not fit: broadcast, matmul */
#define TABI_ERR_INDEX             9  /* index or dim out of range */
#define TABI_ERR_DEVICE           10  /* device missing, mismatched, or failed */
#define TABI_ERR_NONDETERMINISTIC 11  /* deterministic mode is on and this kernel is not */
#define TABI_ERR_PARSE            12  /* a schema or string that does not parse */
#define TABI_ERR_PLUGIN           13  /* a plugin misbehaved (init failed, broken table) */
#define TABI_ERR_INTERNAL         14  /* a bug in tabi: please report it */
#define TABI_ERR_UNAVAILABLE      15  /* a capability exists but not here (no GPU) */
#define TABI_ERR_READ_ONLY        16  /* a write to a read-only tensor */
#define TABI_STATUS_COUNT         17

#endif /* TABI_STATUS_H */
