/* tests/cuda/gpu_harness.h: what test_cuda_ops's case files share. The
 * device plugin under test runs in `gpu`, the reference plugin in `ref`; a
 * case builds the same host data in both, calls the op in both and compares
 * (tolerances of shared/spec/tolerances.md unless the kernel is exact). */
#ifndef TABI_TESTS_GPU_HARNESS_H
#define TABI_TESTS_GPU_HARNESS_H

#include <stdint.h>

#include <tabi/runtime.h>

#define TABI_CHECK_SHARED /* one pass/fail count for the four files (gpu_harness.c defines it) */
#include "check.h"

extern tabi_runtime *gpu, *ref;
extern int cmp_out;          /* the output compare() checks (max pooling's indices: 1) */
extern DLDevice CUDA0;       /* the device under test (CUDA, or ROCm with argv[3] = 10) */
/* 1 when the plugin under test hands float work to a vendor library that
 * accumulates float32/float16 in float32 (cuda and gpusim_cuda: cuDNN; cpu:
 * oneDNN), 0 for own kernels that sum in double (gpusim, rocm). */
extern int LIB_ACCUM;
extern const DLDevice CPU;

/* Uniform in [0, 1), a fixed xorshift sequence (the same cases every run). */
double urand(void);
/* g (device) and r (CPU) converted to dt in their runtimes (new references). */
void convert_pair(tabi_tensor *g, tabi_tensor *r, tabi_dtype dt, tabi_tensor **og, tabi_tensor **orf);
/* `name` on nt random tensors of `shape` (converted to dt) plus `extra`
 * values in both runtimes; output cmp_out compared as float64. */
void compare(const char *name, tabi_dtype dt, int nt, int32_t nd, const int64_t *shape,
             const tabi_value *extra, int nextra, double rtol, double atol);
/* Bad arguments: the device kernel refuses with the reference's status and
 * message (a float32 zero tensor of `shape`, then `extra`). */
void same_error(const char *name, int32_t nd, const int64_t *shape, const tabi_value *extra, int nextra);
/* The same on prebuilt arguments ga (device) and ra (CPU); `what` names the case. */
void same_error_built(const char *what, const char *name, tabi_value *ga, tabi_value *ra, int na);
/* A tensor of dt on (rt, dev) from float64 host values. */
tabi_tensor *upload(tabi_runtime *rt, DLDevice dev, tabi_dtype dt, int32_t nd, const int64_t *shape,
                    const double *h);
/* The same float64 host values as dt in both runtimes. */
void both_tensor(tabi_dtype dt, int32_t nd, const int64_t *shape, const double *h, tabi_tensor **g,
                 tabi_tensor **r);
/* *g and *r replaced by `name`(each, extra...) in its runtime (the originals
 * released): the same view of both, as aten::slice.Tensor or aten::expand. */
void both_view(const char *name, const tabi_value *extra, int nextra, tabi_tensor **g, tabi_tensor **r);
/* *g and *r replaced by the same permuted view of each (the originals released). */
void both_permute(tabi_tensor **g, tabi_tensor **r, int32_t nd, const int64_t *perm);
/* Uniform values in [-1, 1) as dt in both runtimes. */
void both_random(tabi_dtype dt, int32_t nd, const int64_t *shape, tabi_tensor **g, tabi_tensor **r);
/* `name` on prebuilt arguments ga (device) and ra (CPU); output cmp_out (0
 * unless set) of up to 3 compared. */
void compare_built(const char *name, tabi_value *ga, tabi_value *ra, int na, double rtol, double atol);
/* g (device) against r (CPU) as float64: same dtype and shape, within rtol/atol. */
void same_tensor(const char *what, tabi_tensor *g, tabi_tensor *r, double rtol, double atol);

/* out = name(args) in rt, a tensor; NULL (and a failed check) when the call
 * fails. */
tabi_tensor *call_tensor(tabi_runtime *rt, const char *name, tabi_value *args, int na);
/* The case families (test_cuda_ops_nn.c, _rows.c, _misc.c, _copy.c, _red.c, ...). */
void padup_cases(void);
void pool_cases(void);
void norm_cases(void);
void conv_bwd_cases(void);
void bn_cases(void);
void misc_cases(void);
void idx_cases(void);
void svd_cases(void);
void rows_cases(void); /* test_cuda_ops_rows.c */
void red_cases(void); /* test_cuda_ops_red.c */
void aten_unary_cases(void); /* test_cuda_ops_misc.c */
void aten_binary_cases(void);
void dropout_cases(void); /* native_dropout (tc_random.cu) */
void cat_cases(void);     /* prims::cat (tc_shape.cu) */
void select_cases(void);  /* index_select (tc_index.cu) */
void aten_red_cases(void); /* test_cuda_ops_red.c */
void create_cases(void);   /* factories built on the device (test_cuda_ops_create.c) */
void vec_cases(void);      /* the elementwise vector kernels on special values (test_cuda_ops_vec.c) */

#endif /* TABI_TESTS_GPU_HARNESS_H */
