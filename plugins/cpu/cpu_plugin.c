/* plugins/cpu/cpu_plugin.c: the CPU plugin's entry point and registration.
 *
 * Every op the reference implements is registered for kDLCPU: the fast kernel
 * where CPU_FAST_OPS (cpu.h) names one, the reference kernel otherwise. The
 * reference kernel of a fast op is kept in cpu_ctx.ref as its fallback for the
 * cases the fast path does not take. docs/cpu.md lists which ops run at
 * reference speed (`tabi_cpu_kernel_table` prints the live table).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../../reference/ref.h"
#include "cpu.h"
#include "cpu_dnnl.h"
#include "cpu_fft.h"

#define CPU_REF_TABLES(X) \
  X(ref_elementwise_kernels) X(ref_elementwise2_kernels) X(ref_shape_kernels) \
  X(ref_index_kernels) X(ref_reduce_kernels) X(ref_create_kernels) X(ref_nn_kernels) \
  X(ref_nn2_kernels) X(ref_linalg_kernels) X(ref_fft_kernels) X(ref_elementwise3_kernels) \
  X(ref_shape2_kernels) X(ref_index2_kernels) X(ref_reduce2_kernels) X(ref_nn3_kernels) \
  X(ref_create2_kernels)
#define CPU_REF_LIST(t) t,
static const ref_kernel *const cpu_ref_tables[] = {CPU_REF_TABLES(CPU_REF_LIST)};

typedef struct cpu_fast_entry {
  const char *op;
  tabi_kernel_fn fn;
} cpu_fast_entry;

#define CPU_ENTRY(id, name, fn) {name, fn},
static const cpu_fast_entry cpu_fast_table[CPU_OP_COUNT] = {CPU_FAST_OPS(CPU_ENTRY)};
#undef CPU_ENTRY

static int32_t fast_index(const char *op) {
  for (int32_t i = 0; i < CPU_OP_COUNT; i++)
    if (strcmp(cpu_fast_table[i].op, op) == 0) return i;
  return -1;
}

static void cpu_destroy(void *p) {
  cpu_ctx *c = p;
  if (!c) return;
  cpu_pool_destroy(c->pool);
  cpu_dnnl_cache_destroy(c->dnnl);
  cpu_fft_cache_destroy(c->fft);
  free(c);
}

tabi_status cpu_empty(const cpu_ctx *c, const tabi_tensor *like, tabi_dtype dt, int32_t ndim,
                      const int64_t *shape, tabi_tensor **out) {
  DLDevice dev = {kDLCPU, 0};
  if (like) dev = like->dl.device;
  return c->host->tensor_empty(c->host->ctx, dev, dt, ndim, shape, out);
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  out->kind = TABI_PLUGIN_KIND_DEVICE;
  out->name = "cpu";
  out->version = TABI_VERSION_STRING;
  out->description = "CPU backend: threaded, vectorized kernels, oneDNN where it wins";
  out->device_type = kDLCPU;
  cpu_ctx *c = calloc(1, sizeof *c);
  if (!c) return TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, "cpu: out of memory at init");
  c->host = host;
  c->nthreads = cpu_default_threads();
  c->pool = cpu_pool_create(c->nthreads);
  __builtin_cpu_init();
  c->has_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                __builtin_cpu_supports("f16c");
  c->dnnl = cpu_dnnl_cache_create(c->nthreads);
  c->fft = cpu_fft_cache_create(c->has_avx2);
  out->ctx = c;
  out->destroy = cpu_destroy;

  tabi_status st = TABI_OK;
  for (size_t t = 0; t < sizeof cpu_ref_tables / sizeof cpu_ref_tables[0] && st == TABI_OK; t++) {
    for (const ref_kernel *k = cpu_ref_tables[t]; k->op; k++) {
      tabi_op op;
      st = host->op_find(host->ctx, k->op, &op);
      if (st != TABI_OK) {
        st = TABI_ERR(host, st, "cpu: no op named '%s' is registered", k->op);
        break;
      }
      int32_t fi = fast_index(k->op);
      if (fi >= 0) {
        c->ref[fi] = k->fn;
        st = host->kernel_register(host->ctx, op, TABI_LAYER_BACKEND, cpu_fast_table[fi].fn, c);
      } else {
        st = host->kernel_register(host->ctx, op, TABI_LAYER_BACKEND, k->fn, (void *)host);
      }
      if (st != TABI_OK) break;
    }
  }
  for (int32_t i = 0; st == TABI_OK && i < CPU_OP_COUNT; i++)
    if (!c->ref[i])
      st = TABI_ERR(host, TABI_ERR_INTERNAL,
                    "cpu: fast kernel for '%s' has no reference kernel to fall back to",
                    cpu_fast_table[i].op);
  if (st != TABI_OK) {
    /* The host does not call destroy for a refused plugin. */
    out->ctx = NULL;
    out->destroy = NULL;
    cpu_destroy(c);
  }
  return st;
}
