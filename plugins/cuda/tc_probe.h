/* plugins/cuda/tc_probe.h: counting GPUs without initialising the runtime.
 *
 * CUDA and HIP cannot be used in a child forked after the parent touched the
 * driver, and `tabi conform` asks the device count in its parent before it
 * forks one worker per group. So both GPU plugins take their first count in a
 * short-lived child: fork, count, write the number down a pipe, _exit. Plain C,
 * compiled into the CUDA and the ROCm plugin.
 */
#ifndef TABI_TC_PROBE_H
#define TABI_TC_PROBE_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Returns the count `count` gives in a forked child (0 when the child could
 * not count or died). If no child can be made (fork or pipe fails), calls
 * `count` in this process instead: the caller's `count` must then note that
 * this process has used the runtime. `count` returns the number of devices,
 * 0 on any failure; never negative. Safe when the application ignores
 * SIGCHLD (the child is then reaped by the kernel) and against EINTR. */
int32_t tc_probe_count_in_child(int32_t (*count)(void));

#ifdef __cplusplus
}
#endif
#endif
