/* plugins/cpu/cpu_gemm_tmpl.h: the blocked GEMM body of cpu_gemm.c, included
 * once per element type with T (float, double) and SFX(name) (name_f32,
 * name_f64) defined. No include guard on purpose. */

typedef struct SFX(gemm_job) {
  int64_t m, n, k;
  const T *a;
  int64_t a_rs, a_cs;
  const T *bp; /* packed B: contiguous K x N */
  T *c;
} SFX(gemm_job);

CLONES static void SFX(rank_update)(T *crow, const T *brow, T av, int64_t nc) {
  for (int64_t j = 0; j < nc; j++) crow[j] += av * brow[j];
}

/* Four rows of C at once share each load of B's row. */
CLONES static void SFX(rank_update4)(T *c0, T *c1, T *c2, T *c3, const T *b,
                                T a0, T a1, T a2, T a3, int64_t nc) {
  for (int64_t j = 0; j < nc; j++) {
    T bv = b[j];
    c0[j] += a0 * bv;
    c1[j] += a1 * bv;
    c2[j] += a2 * bv;
    c3[j] += a3 * bv;
  }
}

static void SFX(gemm_range)(void *arg, int64_t b0, int64_t b1) {
  const SFX(gemm_job) *g = arg;
  for (int64_t blk = b0; blk < b1; blk++) {
    int64_t i0 = blk * MC, i1 = i0 + MC < g->m ? i0 + MC : g->m;
    for (int64_t i = i0; i < i1; i++) memset(g->c + i * g->n, 0, sizeof(T) * (size_t)g->n);
    for (int64_t j0 = 0; j0 < g->n; j0 += NC) {
      int64_t nc = g->n - j0 < NC ? g->n - j0 : NC;
      for (int64_t p0 = 0; p0 < g->k; p0 += KC) {
        int64_t kc = g->k - p0 < KC ? g->k - p0 : KC;
        int64_t i = i0;
        for (; i + 4 <= i1; i += 4) {
          T *c0 = g->c + i * g->n + j0;
          for (int64_t p = p0; p < p0 + kc; p++) {
            const T *ar = g->a + p * g->a_cs;
            SFX(rank_update4)(c0, c0 + g->n, c0 + 2 * g->n, c0 + 3 * g->n, g->bp + p * g->n + j0,
                         ar[i * g->a_rs], ar[(i + 1) * g->a_rs], ar[(i + 2) * g->a_rs],
                         ar[(i + 3) * g->a_rs], nc);
          }
        }
        for (; i < i1; i++)
          for (int64_t p = p0; p < p0 + kc; p++)
            SFX(rank_update)(g->c + i * g->n + j0, g->bp + p * g->n + j0, g->a[i * g->a_rs + p * g->a_cs],
                        nc);
      }
    }
  }
}

int SFX(cpu_gemm)(const cpu_ctx *c, int64_t m, int64_t n, int64_t k, const T *a, int64_t a_rs,
                 int64_t a_cs, const T *b, int64_t b_rs, int64_t b_cs, T *out) {
  T *packed = NULL;
  const T *bp = b;
  if (b_cs != 1 || b_rs != n) {
    packed = malloc(sizeof(T) * (size_t)(k * n > 0 ? k * n : 1));
    if (!packed) return 0;
    for (int64_t p = 0; p < k; p++)
      for (int64_t j = 0; j < n; j++) packed[p * n + j] = b[p * b_rs + j * b_cs];
    bp = packed;
  }
  SFX(gemm_job) g = {m, n, k, a, a_rs, a_cs, bp, out};
  cpu_parallel_for(c->pool, (m + MC - 1) / MC, 1, SFX(gemm_range), &g);
  free(packed);
  return 1;
}
