/* plugins/cpu/cpu_reduce_plan.h: the shape side of the fast reductions.
 *
 * A reduction over any set of dims of a strided tensor is brought into one of
 * two forms, or refused (then the op runs the reference kernel):
 *  - rows: the reduced elements of each output are one contiguous run of R
 *    (stride 1); the outputs are indexed by up to two kept groups of any
 *    stride: base(o) = (o / n2) * s1 + (o % n2) * s2. Full reductions,
 *    last-dim reductions and transposed inputs reduced along memory order.
 *  - cols: out[o1][j] = reduce over r of x[o1*s1 + r*sr + j], j < I with the
 *    kept inner group contiguous: vectorized across j (sum over dim 0 and
 *    middle dims).
 * Size-1 dims are dropped, kept dims merge in their own order (so the output,
 * contiguous, is in row-major order of the kept dims), reduced dims merge in
 * any order (a sum is order-free within the tolerances; max/min are exact).
 *
 * Determinism: rows longer than CPU_REDUCE_CHUNK and long column groups are cut
 * into chunks whose size depends on the shape only; partials combine in chunk
 * order. Results are bitwise identical for every thread count.
 */
#ifndef TABI_CPU_REDUCE_PLAN_H
#define TABI_CPU_REDUCE_PLAN_H

#include "cpu.h"

#define CPU_RED_SUM 0
#define CPU_RED_MAX 1
#define CPU_RED_MIN 2
#define CPU_RED_SUMD 3 /* a sum in double throughout (a float64 result) */

typedef struct cpu_red_plan {
  int cols;       /* 0 rows, 1 cols */
  int64_t n1, s1; /* outer kept group: size, stride (elements) */
  int64_t n2, s2; /* rows: inner kept group; cols: n2 = I, s2 = 1 */
  int64_t R, sr;  /* the reduced group */
  int64_t R0, sr0; /* rows, sums and max/min only: a second, outer reduced group
                      (R0 runs per output, sr0 apart; 1 otherwise): NCHW over
                      [0, 2, 3] */
  int64_t nout;   /* n1 * n2 */
} cpu_red_plan;

/* Reads a dims argument (NONE = every dim; INT; INT_LIST where [] is every dim
 * when empty_is_all, else no dim) into reduced[] and the output shape with
 * keepdim. 0 when a dim is out of range or repeated (the reference reports). */
int cpu_red_dims(const tabi_tensor *t, const tabi_value *dims, int empty_is_all, int keepdim,
                 uint8_t *reduced, int32_t *out_ndim, int64_t *out_shape);

/* 0 when the reduction has neither form. `ordered`: the reduced dims must
 * merge in their own order (positions matter: argmax). Callers other than
 * cpu_red_run refuse plans with R0 > 1. */
int cpu_red_plan_make(const tabi_tensor *t, const uint8_t *reduced, int ordered, cpu_red_plan *p);

/* Runs a float reduction (t float32/float16/bfloat16/float64) by plan p into
 * the contiguous tensor out (p->nout elements of a floating dtype), storing
 * result / div. */
tabi_status cpu_red_run(const cpu_ctx *c, const tabi_tensor *t, const cpu_red_plan *p, int kind,
                        double div, tabi_tensor *out);

/* The same for integer/bool input (cpu_reduce_int.c): sums into an int64 out,
 * max/min into out of the input's dtype. Exact. */
tabi_status cpu_red_run_int(const cpu_ctx *c, const tabi_tensor *t, const cpu_red_plan *p,
                            int kind, tabi_tensor *out);

/* Column kernels (cpu_reduce_col.c): acc[j] (+)= rows of w elements of dtype
 * dt at x, `rows` rows apart by rs bytes. Sums add each row into the double
 * acc (exact widening); max/min are NaN-sticky. */
void cpu_red_col_sum(const cpu_ctx *c, tabi_dtype dt, const char *x, int64_t rows, int64_t rs,
                     int64_t w, double *acc);
void cpu_red_col_max(const cpu_ctx *c, tabi_dtype dt, const char *x, int64_t rows, int64_t rs,
                     int64_t w, double *acc, int take_min);
/* Column block width of cpu_red_col_* (w <= CPU_RED_CB). */
#define CPU_RED_CB 4096

/* Stores v (a double result) into element i of a floating buffer of dtype dt
 * (float16/bfloat16 through float32, as the reference). */
void cpu_red_store(tabi_dtype dt, void *p, int64_t i, double v);

#endif /* TABI_CPU_REDUCE_PLAN_H */
