/* plugins/cpu/cpu_gemm.h: the plugin's own float32/float64 GEMM, for builds without
 * oneDNN and for the cases oneDNN declines.
 *
 * C[MxN] (contiguous, overwritten) = A[MxK] @ B[KxN], A and B with any element
 * strides. Blocked for the caches, parallel over row blocks of C; every element
 * of C is summed in one fixed k order by one thread, so results do not depend on
 * the thread count. Returns 0 only when a temporary could not be allocated. */
#ifndef TABI_CPU_GEMM_H
#define TABI_CPU_GEMM_H

#include "cpu.h"

int cpu_gemm_f32(const cpu_ctx *c, int64_t m, int64_t n, int64_t k, const float *a, int64_t a_rs,
                 int64_t a_cs, const float *b, int64_t b_rs, int64_t b_cs, float *out);
/* The same in double (oneDNN has no float64 matmul): float64 mm/bmm/addmm. */
int cpu_gemm_f64(const cpu_ctx *c, int64_t m, int64_t n, int64_t k, const double *a,
                 int64_t a_rs, int64_t a_cs, const double *b, int64_t b_rs, int64_t b_cs,
                 double *out);

#endif /* TABI_CPU_GEMM_H */
