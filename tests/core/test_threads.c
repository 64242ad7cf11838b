/* test_threads.c: many threads calling ops (and tensor functions) while another
 * thread loads plugins; thread-local layer keys stay per thread. Run it under
 * TSan too (core_test_threads_tsan when TABI_TSAN_TESTS is on). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tcore_util.h"

#define THREADS 6
#define ITERS 3000

static tabi_runtime *rt;
static tabi_op add_op, sub_op;
static _Atomic int failures;
static _Atomic int go;

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg;
  int64_t s4[1] = {4};
  float va[4] = {1, 2, 3, (float)id}, vb[4] = {10, 20, 30, 40};
  tabi_tensor *a = tensor_f32(rt, CPU, 1, s4, va), *b = tensor_f32(rt, CPU, 1, s4, vb);
  if (!a || !b) {
    failures++;
    return NULL;
  }
  while (!go) {
  }
  /* Odd threads enable the hi layer on their own thread only. */
  uint64_t hi = TABI_LAYER_KEY(30);
  if (id & 1) tabi_runtime_tls_set(rt, TABI_TLS_ENABLED, hi);
  for (int i = 0; i < ITERS; i++) {
    tabi_value args[3] = {tabi_tensor_value(a), tabi_tensor_value(b), tabi_int(i & 3)}, out;
    trace_clear();
    if (tabi_call(rt, add_op, args, 3, &out, 1) != TABI_OK) {
      failures++;
      fprintf(stderr, "thread %d: %s\n", id, tabi_last_error());
      break;
    }
    float r[4];
    if (tabi_tensor_to_host(rt, out.u.t, r, sizeof r) != TABI_OK || r[3] != (float)id + 40.f * (float)(i & 3))
      failures++;
    /* Even threads never see hi; odd threads see it once the feature is loaded. */
    const char *t = trace_get();
    if (!(id & 1) && strcmp(t, "cpu:add") != 0) failures++;
    if ((id & 1) && strcmp(t, "cpu:add") != 0 && strcmp(t, "hi:add,cpu:add") != 0) failures++;
    tabi_value_release(&out);
    /* sub appears when tcomp is loaded: either missing or right, never torn. */
    tabi_status st = tabi_call(rt, sub_op, args, 2, &out, 1);
    if (st == TABI_OK) {
      if (read_f32(rt, out.u.t, 0) != -9.f) failures++;
      tabi_value_release(&out);
    } else if (st != TABI_ERR_UNIMPLEMENTED) {
      failures++;
    }
  }
  if (id & 1) tabi_runtime_tls_set(rt, TABI_TLS_ENABLED, 0);
  tabi_tensor_release(a);
  tabi_tensor_release(b);
  return NULL;
}

int main(void) {
  rt = rt_new(0);
  CHECK(load(rt, "cpu"));
  CHECK_OK(tabi_op_find(rt, "aten::add.Tensor", &add_op));
  CHECK_OK(tabi_op_find(rt, "aten::sub.Tensor", &sub_op));
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++) pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
  go = 1;
  /* Load while the workers call. */
  CHECK(load(rt, "comp"));
  CHECK(load(rt, "feat"));
  CHECK(load(rt, "dev"));
  for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
  CHECK_MSG(failures == 0, "%d failures", (int)failures);
  tabi_memory_stats s;
  CHECK_OK(tabi_runtime_memory_stats(rt, CPU, &s));
  CHECK(s.allocated == 0 && s.num_allocs == s.num_frees);
  tabi_runtime_destroy(rt);
  return check_report();
}
