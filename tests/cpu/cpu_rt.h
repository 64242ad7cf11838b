/* tests/cpu/cpu_rt.h: a runtime with one plugin loaded, for the CPU plugin's
 * tests (every one of them compares a runtime with libtabi_cpu.so to one with
 * the reference plugin). */
#ifndef TABI_TESTS_CPU_RT_H
#define TABI_TESTS_CPU_RT_H

#include <stdio.h>
#include <stdlib.h>

#include <tabi/runtime.h>

/* A runtime with `plugin` loaded, TABI_NUM_THREADS set to `threads` first
 * when given (the CPU plugin sizes its pool at load); NULL, with the reason on
 * stderr, when it cannot be loaded. */
static inline tabi_runtime *load_rt(const char *plugin, const char *threads) {
  tabi_runtime *rt = NULL;
  if (threads) setenv("TABI_NUM_THREADS", threads, 1);
  if (tabi_runtime_create(NULL, &rt) != TABI_OK) return NULL;
  if (tabi_runtime_load_plugin(rt, plugin, NULL) != TABI_OK) {
    fprintf(stderr, "load %s: %s\n", plugin, tabi_last_error());
    tabi_runtime_destroy(rt);
    return NULL;
  }
  return rt;
}

#endif /* TABI_TESTS_CPU_RT_H */
