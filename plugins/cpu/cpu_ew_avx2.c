/* plugins/cpu/cpu_ew_avx2.c: the elementwise loops for AVX2 + FMA + F16C.
 * The whole file is compiled for that target; cpu_ew_isa() hands its table out
 * only on CPUs that have it. */
#pragma GCC target("avx2,fma,f16c,bmi,bmi2")
#include "cpu_simd_avx2.h"
#include "cpu_ew_math.h"
#define CPU_EW_TABLE cpu_ew_isa_avx2
#define CPU_EW_NAME "avx2"
#include "cpu_ew_loops.h"
