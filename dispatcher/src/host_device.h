/* host_device.h: the built-in device table for kDLCPU (host memory).
 *
 * malloc'd memory aligned to 256 bytes, memcpy copies, trivial streams (work is
 * synchronous) and events that record wall-clock time, so a profiler measures
 * CPU "device time" the same way it measures GPU time.
 */
#ifndef TABI_DISPATCHER_HOST_DEVICE_H
#define TABI_DISPATCHER_HOST_DEVICE_H

#include "internal.h"

TABI_INTERNAL void tabi_host_device_fill(tabi_device_api *out);

#endif
