/* plugins/cpu/cpu_elementwise.c: the fast elementwise family.
 *
 * One generic driver per arity. The fast path takes contiguous inputs of one
 * float dtype (float32, float16, bfloat16) and the same shape; it splits the
 * elements statically over the pool and computes each block of CPU_EW_BLOCK
 * elements in float32 (half types converted in and out per block, in L1), with
 * loops compiled twice (AVX2+FMA and baseline) and picked at run time. Anything
 * else (integers, complex, float64, broadcasting, promotion, strided views,
 * Scalar operands) goes to the op's reference kernel, which is always right.
 */
#include <string.h>

#include "cpu.h"
#include "cpu_math.h"

#define CPU_EW_BLOCK 1024
#define CPU_EW_GRAIN 16384
#define CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))

/* --- the float32 loops ------------------------------------------------------ */

enum { U_EXP, U_GELU, U_GELU_TANH, U_NEG, U_ABS, U_RELU, U_SIGMOID, U_TANH, U_SQRT, U_RSQRT,
       U_LOG, U_SIN, U_COS };
enum { B_ADD, B_SUB, B_MUL, B_DIV };

#define UNARY_LOOP(name, expr)                                        \
  CLONES static void name(const float *a, float *o, int64_t n) {      \
    for (int64_t i = 0; i < n; i++) {                                 \
      float x = a[i];                                                 \
      o[i] = (expr);                                                  \
    }                                                                 \
  }
UNARY_LOOP(u_exp, cpu_expf(x))
UNARY_LOOP(u_gelu, cpu_geluf(x))
UNARY_LOOP(u_gelu_tanh, cpu_gelu_tanhf(x))
UNARY_LOOP(u_neg, -x)
UNARY_LOOP(u_abs, fabsf(x))
UNARY_LOOP(u_relu, x <= 0.0f ? 0.0f : x)
UNARY_LOOP(u_sigmoid, cpu_sigmoidf(x))
UNARY_LOOP(u_sqrt, sqrtf(x))
UNARY_LOOP(u_rsqrt, 1.0f / sqrtf(x))
/* libm per element (no vector form in glibc without -ffast-math): still threaded. */
UNARY_LOOP(u_tanh, tanhf(x))
UNARY_LOOP(u_log, logf(x))
UNARY_LOOP(u_sin, sinf(x))
UNARY_LOOP(u_cos, cosf(x))

typedef void (*unary_loop)(const float *, float *, int64_t);
static const unary_loop unary_loops[] = {u_exp, u_gelu, u_gelu_tanh, u_neg, u_abs, u_relu,
                                         u_sigmoid, u_tanh, u_sqrt, u_rsqrt, u_log, u_sin, u_cos};

CLONES static void b_add(const float *a, const float *b, float *o, int64_t n, float alpha) {
  if (alpha == 1.0f)
    for (int64_t i = 0; i < n; i++) o[i] = a[i] + b[i];
  else
    for (int64_t i = 0; i < n; i++) o[i] = a[i] + alpha * b[i];
}
CLONES static void b_sub(const float *a, const float *b, float *o, int64_t n, float alpha) {
  if (alpha == 1.0f)
    for (int64_t i = 0; i < n; i++) o[i] = a[i] - b[i];
  else
    for (int64_t i = 0; i < n; i++) o[i] = a[i] - alpha * b[i];
}
CLONES static void b_mul(const float *a, const float *b, float *o, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; i++) o[i] = a[i] * b[i];
}
CLONES static void b_div(const float *a, const float *b, float *o, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; i++) o[i] = a[i] / b[i];
}
typedef void (*binary_loop)(const float *, const float *, float *, int64_t, float);
static const binary_loop binary_loops[] = {b_add, b_sub, b_mul, b_div};

/* --- the parallel drivers --------------------------------------------------- */

typedef struct ew_job {
  const cpu_ctx *c;
  tabi_dtype dt;
  const char *a, *b;
  char *o;
  int32_t op;
  float alpha;
} ew_job;

static void unary_range(void *arg, int64_t begin, int64_t end) {
  const ew_job *j = arg;
  unary_loop f = unary_loops[j->op];
  if (j->dt == TABI_DTYPE_FLOAT32) {
    f((const float *)j->a + begin, (float *)j->o + begin, end - begin);
    return;
  }
  float buf[CPU_EW_BLOCK];
  for (int64_t i = begin; i < end; i += CPU_EW_BLOCK) {
    int64_t n = end - i < CPU_EW_BLOCK ? end - i : CPU_EW_BLOCK;
    cpu_to_f32(j->c, j->dt, j->a + 2 * i, buf, n);
    f(buf, buf, n);
    cpu_from_f32(j->c, j->dt, buf, j->o + 2 * i, n);
  }
}

static void binary_range(void *arg, int64_t begin, int64_t end) {
  const ew_job *j = arg;
  binary_loop f = binary_loops[j->op];
  if (j->dt == TABI_DTYPE_FLOAT32) {
    f((const float *)j->a + begin, (const float *)j->b + begin, (float *)j->o + begin,
      end - begin, j->alpha);
    return;
  }
  float ba[CPU_EW_BLOCK], bb[CPU_EW_BLOCK];
  for (int64_t i = begin; i < end; i += CPU_EW_BLOCK) {
    int64_t n = end - i < CPU_EW_BLOCK ? end - i : CPU_EW_BLOCK;
    cpu_to_f32(j->c, j->dt, j->a + 2 * i, ba, n);
    cpu_to_f32(j->c, j->dt, j->b + 2 * i, bb, n);
    f(ba, bb, ba, n, j->alpha);
    cpu_from_f32(j->c, j->dt, ba, j->o + 2 * i, n);
  }
}

/* Returns 1 and sets outs[0] (or an error status in *st) when the fast path
 * took the call; 0 to fall back. */
static int unary_fast(const cpu_ctx *c, tabi_value *args, tabi_value *outs, int32_t op,
                      tabi_status *st) {
  if (args[0].tag != TABI_TAG_TENSOR) return 0;
  const tabi_tensor *a = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(a);
  if (!cpu_is_fast_float(dt) || !cpu_contig(a)) return 0;
  tabi_tensor *o = NULL;
  *st = cpu_empty(c, a, dt, a->dl.ndim, a->dl.shape, &o);
  if (*st != TABI_OK) return 1;
  ew_job j = {c, dt, tabi_tensor_data(a), NULL, tabi_tensor_data(o), op, 1.0f};
  cpu_parallel_for(c->pool, tabi_tensor_numel(a), CPU_EW_GRAIN, unary_range, &j);
  outs[0] = tabi_tensor_value(o);
  return 1;
}

static int binary_fast(const cpu_ctx *c, tabi_value *args, int32_t nargs, tabi_value *outs,
                       int32_t op, tabi_status *st) {
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR) return 0;
  const tabi_tensor *a = args[0].u.t, *b = args[1].u.t;
  tabi_dtype dt = tabi_tensor_dtype(a);
  if (!cpu_is_fast_float(dt) || tabi_tensor_dtype(b) != dt) return 0;
  if (!cpu_same_shape(a, b) || !cpu_contig(a) || !cpu_contig(b)) return 0;
  float alpha = 1.0f;
  if (nargs > 2 && (op == B_ADD || op == B_SUB)) {
    const tabi_value *al = &args[2];
    if (al->tag != TABI_TAG_INT && al->tag != TABI_TAG_FLOAT && al->tag != TABI_TAG_BOOL) return 0;
    double ad = tabi_value_as_double(al);
    alpha = (float)ad;
    if ((double)alpha != ad) return 0; /* the reference's checks and rounding */
  }
  tabi_tensor *o = NULL;
  *st = cpu_empty(c, a, dt, a->dl.ndim, a->dl.shape, &o);
  if (*st != TABI_OK) return 1;
  ew_job j = {c, dt, tabi_tensor_data(a), tabi_tensor_data(b), tabi_tensor_data(o), op, alpha};
  cpu_parallel_for(c->pool, tabi_tensor_numel(a), CPU_EW_GRAIN, binary_range, &j);
  outs[0] = tabi_tensor_value(o);
  return 1;
}

#define FAST_UNARY(kname, id, uop)                                                        \
  tabi_status kname(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) { \
    const cpu_ctx *c = ctx;                                                               \
    tabi_status st = TABI_OK;                                                             \
    if (unary_fast(c, args, outs, uop, &st)) return st;                                   \
    return CPU_FALLBACK(c, id);                                                           \
  }
FAST_UNARY(cpu_k_exp, EXP, U_EXP)
FAST_UNARY(cpu_k_p_exp, P_EXP, U_EXP)
FAST_UNARY(cpu_k_neg, NEG, U_NEG)
FAST_UNARY(cpu_k_abs, ABS, U_ABS)
FAST_UNARY(cpu_k_relu, RELU, U_RELU)
FAST_UNARY(cpu_k_sigmoid, SIGMOID, U_SIGMOID)
FAST_UNARY(cpu_k_tanh, TANH, U_TANH)
FAST_UNARY(cpu_k_sqrt, SQRT, U_SQRT)
FAST_UNARY(cpu_k_rsqrt, RSQRT, U_RSQRT)
FAST_UNARY(cpu_k_log, LOG, U_LOG)
FAST_UNARY(cpu_k_sin, SIN, U_SIN)
FAST_UNARY(cpu_k_cos, COS, U_COS)

static int str_is(const tabi_value *v, const char *s) {
  size_t n = strlen(s);
  return v->tag == TABI_TAG_STRING && v->u.list.len == (int64_t)n &&
         memcmp(tabi_value_str(v), s, n) == 0;
}

tabi_status cpu_k_gelu(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = TABI_OK;
  int op = -1;
  if (call->nargs > 1 && str_is(&args[1], "none")) op = U_GELU;
  else if (call->nargs > 1 && str_is(&args[1], "tanh")) op = U_GELU_TANH;
  if (op >= 0 && unary_fast(c, args, outs, op, &st)) return st;
  return CPU_FALLBACK(c, GELU);
}

#define FAST_BINARY(kname, id, bop)                                                       \
  tabi_status kname(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) { \
    const cpu_ctx *c = ctx;                                                               \
    tabi_status st = TABI_OK;                                                             \
    if (binary_fast(c, args, call->nargs, outs, bop, &st)) return st;                     \
    return CPU_FALLBACK(c, id);                                                           \
  }
FAST_BINARY(cpu_k_add_tensor, ADD_TENSOR, B_ADD)
FAST_BINARY(cpu_k_sub_tensor, SUB_TENSOR, B_SUB)
FAST_BINARY(cpu_k_mul_tensor, MUL_TENSOR, B_MUL)
FAST_BINARY(cpu_k_div_tensor, DIV_TENSOR, B_DIV)
FAST_BINARY(cpu_k_p_add, P_ADD, B_ADD)
FAST_BINARY(cpu_k_p_sub, P_SUB, B_SUB)
FAST_BINARY(cpu_k_p_mul, P_MUL, B_MUL)
FAST_BINARY(cpu_k_p_div, P_DIV, B_DIV)
