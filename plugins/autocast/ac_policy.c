/* ac_policy.c: PyTorch's autocast lists (../shared/spec/autocast.md) mapped onto
 * the core op set.
 *
 * PyTorch lists composite ops (conv2d, linear, softmax.int, cdist, ...) whose
 * core ATen forms are what our set has; a row names the core op and, in its
 * comment, the PyTorch entries it stands for. Ops of either list that have no
 * core form (linalg_*, the losses, stft, ...) are not rows: a framework calling
 * them calls their decomposition's ops, which the rows cover where PyTorch's
 * lists do. Prims are never listed: autocast acts on the ATen level, before
 * decomposition, as in PyTorch.
 *
 * `cpu` is AutocastCPU's policy; `other` the CUDA lists' (PyTorch reuses them for
 * XPU and PrivateUse1, and HIP is CUDA there), applied to every non-CPU device.
 */
#include "ac.h"

#define LP TABI_AUTOCAST_POLICY_LOWER_PRECISION
#define F32 TABI_AUTOCAST_POLICY_FP32
#define SET TABI_AUTOCAST_POLICY_FP32_SET_OPT_DTYPE
#define PRO TABI_AUTOCAST_POLICY_PROMOTE
#define NO TABI_AUTOCAST_POLICY_NONE

const ac_policy_row ac_policy_table[] = {
    /* lower_precision_fp on both: the conv and matmul families. */
    {"aten::convolution", LP, LP}, /* conv1d/2d/3d(.padding), _convolution, conv_tbc,
                                      conv_transpose1d/2d/3d, convolution */
    {"aten::mm", LP, LP},          /* mm; matmul and linear (2-d) reach it */
    {"aten::bmm", LP, LP},         /* bmm; matmul (batched) reaches it */
    {"aten::addmm", LP, LP},       /* addmm; linear with bias reaches it */

    /* CUDA fp32: pointwise ops whose float16 results lose too much. */
    {"aten::acos", NO, F32},
    {"aten::asin", NO, F32},
    {"aten::cosh", NO, F32},
    {"aten::exp", NO, F32},
    {"aten::expm1", NO, F32},
    {"aten::log", NO, F32},
    {"aten::log10", NO, F32},
    {"aten::log2", NO, F32},
    {"aten::log1p", NO, F32},
    {"aten::reciprocal", NO, F32},
    {"aten::rsqrt", NO, F32},
    {"aten::sinh", NO, F32},
    {"aten::tan", NO, F32},
    {"aten::pow.Tensor_Scalar", NO, F32},
    {"aten::pow.Tensor_Tensor", NO, F32},
    {"aten::pow.Scalar", NO, F32},
    {"aten::native_layer_norm", NO, F32}, /* layer_norm, native_layer_norm */
    {"aten::native_group_norm", NO, F32}, /* group_norm */
    {"aten::upsample_nearest2d.vec", NO, F32},  /* upsample_nearest2d */
    {"aten::upsample_bilinear2d.vec", NO, F32}, /* upsample_bilinear2d */
    {"aten::_pdist_forward", NO, F32},          /* pdist */
    /* softmax.int / log_softmax.int are fp32_set_opt_dtype in PyTorch: an unset
     * dtype becomes float, i.e. the input runs as float32 and the result is
     * float32. _softmax has no dtype argument, so that effect is fp32 here. */
    {"aten::_softmax", NO, F32},
    {"aten::_log_softmax", NO, F32},

    /* fp32 on both lists (cdist), or on the CPU list with another policy or none
     * on CUDA. */
    {"aten::_cdist_forward", F32, F32},      /* cdist */
    {"aten::prod", F32, SET},                /* prod */
    {"aten::prod.dim_int", F32, SET},        /* prod.dim_int */
    {"aten::grid_sampler_2d", F32, PRO},     /* CPU grid_sampler_2d; CUDA grid_sampler */
    {"aten::avg_pool3d", F32, NO},
    {"aten::max_pool3d_with_indices", F32, NO}, /* max_pool3d */
    {"aten::_adaptive_avg_pool3d", F32, NO},    /* adaptive_avg_pool3d */
    {"aten::reflection_pad1d", F32, NO},
    {"aten::reflection_pad2d", F32, NO},
    {"aten::replication_pad2d", F32, NO},
    {"aten::replication_pad3d", F32, NO},
    {"aten::_fft_r2c", F32, NO},             /* fft_rfft, fft_rfft2, fft_rfftn, fft_ihfft */
    {"aten::_fft_c2r", F32, NO},             /* fft_irfft, fft_irfft2, fft_irfftn, fft_hfft */

    /* CUDA fp32_set_opt_dtype: reductions accumulate in float32. */
    {"aten::cumsum", NO, SET},
    {"aten::sum.dim_IntList", NO, SET},      /* sum, sum.dim_IntList */

    /* promote: run in the widest floating input dtype. */
    {"aten::cat", PRO, NO},                  /* CPU cat (and stack, which reaches it) */
    {"aten::atan2", NO, PRO},
    {"aten::index_put", NO, PRO},
    {"aten::scatter_add", NO, PRO},
};

const int32_t ac_policy_table_len = (int32_t)(sizeof ac_policy_table / sizeof ac_policy_table[0]);
