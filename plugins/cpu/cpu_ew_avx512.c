/* plugins/cpu/cpu_ew_avx512.c: the elementwise loops for AVX-512 (F, BW, VL, DQ).
 * The whole file is compiled for that target; cpu_ew_isa() hands its table out
 * only on CPUs that have it. */
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c,bmi,bmi2")
#include "cpu_simd_avx512.h"
#include "cpu_ew_math.h"
#define CPU_EW_TABLE cpu_ew_isa_avx512
#define CPU_EW_NAME "avx512"
#include "cpu_ew_loops.h"
