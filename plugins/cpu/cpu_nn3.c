/* plugins/cpu/cpu_nn3.c: the contiguous copy the cpu_nn3_*.c kernels take of
 * a strided input (cpu_nn3.h). */
#include <stdlib.h>

#include "cpu_nn3.h"

typedef struct nn3_cg {
  const char *src;
  char *dst;
  int32_t nd;
  const int64_t *shape, *strides;
  int64_t es, inner;
} nn3_cg;

/* Rows r (all dims but the last, row-major) gathered from their strides. */
static void cg_range(void *arg, int64_t rb, int64_t re) {
  const nn3_cg *g = arg;
  for (int64_t r = rb; r < re; r++) {
    int64_t off = 0, rem = r;
    for (int32_t d = g->nd - 2; d >= 0; d--) {
      off += (rem % g->shape[d]) * g->strides[d];
      rem /= g->shape[d];
    }
    cpu_gather_strided(g->dst + r * g->inner * g->es, g->src + off * g->es, g->inner, g->strides[g->nd - 1],
                       g->es);
  }
}

char *cpu_nn3_contig(const cpu_ctx *c, const tabi_tensor *t, int64_t es) {
  int64_t n = tabi_tensor_numel(t);
  int32_t nd = t->dl.ndim;
  if (n < 1 || nd < 1) return NULL;
  char *dst = malloc((size_t)(n * es));
  if (!dst) return NULL;
  int64_t inner = t->dl.shape[nd - 1];
  nn3_cg g = {tabi_tensor_data(t), dst, nd, t->dl.shape, t->dl.strides, es, inner};
  cpu_parallel_for(c->pool, n / inner, 1 + 16384 / inner, cg_range, &g);
  return dst;
}
