/* tests/mutants/mut_race.c: aten::mul.Tensor with a data race between threads.
 * BUG: products go through a static scratch buffer ("saves an allocation per
 * call") before being stored, so two calls at once overwrite each other's
 * results. Every single-threaded check passes. Expected:
 * nondeterministic-threads on aten::mul.Tensor.
 *
 * The window between filling the buffer and reading it back is widened on
 * purpose (the kernel sleeps there, as a real one might wait on a lock, an
 * allocation or a page fault), so that whenever two calls overlap the later one
 * overwrites the earlier one's products: the race shows on the first rounds
 * of the threads check even on a loaded 2-core machine or under ASan, instead
 * of depending on two threads hitting a nanosecond window. */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <time.h>

#include "mutant.h"

#define SCRATCH 4096
static double scratch[SCRATCH]; /* the bug: shared by every call on every thread */

static double mul_f(double a, double b, double alpha) { (void)alpha; return a * b; }
static int64_t mul_i(int64_t a, int64_t b, int64_t alpha, int *err) {
  (void)alpha; (void)err;
  return (int64_t)((uint64_t)a * (uint64_t)b);
}

static tabi_status k_mul(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  tabi_tensor *a = args[0].u.t, *b = args[1].u.t;
  tabi_dtype rt = mut_result_type(a, b, NULL);
  if (rt == TABI_DTYPE_INVALID || !tabi_dtype_is_floating(rt))
    return mut_binary(h, "aten::mul.Tensor", args, 0, mul_f, mul_i, outs);
  int32_t nd;
  int64_t shape[MUT_MAX_DIMS];
  tabi_status st = mut_broadcast(h, "aten::mul.Tensor", a, b, &nd, shape);
  tabi_tensor *out = NULL;
  if (st == TABI_OK) st = mut_empty(h, rt, nd, shape, &out);
  if (st != TABI_OK) return st;
  int64_t n = tabi_tensor_numel(out);
  if (n > SCRATCH) {
    h->tensor_release(h->ctx, out);
    return mut_binary(h, "aten::mul.Tensor", args, 0, mul_f, mul_i, outs);
  }
  for (int64_t i = 0; i < n; i++)
    scratch[i] = mut_get(a, mut_offset(a, nd, shape, i)) * mut_get(b, mut_offset(b, nd, shape, i));
  /* Let any other thread in the kernel run now: it refills scratch meanwhile. */
  struct timespec pause = {0, 200 * 1000}; /* 200 us */
  sched_yield();
  nanosleep(&pause, NULL);
  for (int64_t i = 0; i < n; i++) mut_set(out, i, scratch[i]);
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_race", "mutant: mul shares a static scratch buffer between calls");
  return mut_register(host, "aten::mul.Tensor", k_mul);
}
