/* plugins/cpu/cpu_ew_avx512bf.c: the elementwise loops for AVX-512 with
 * AVX512_BF16: the same as cpu_ew_avx512.c, except that float32 -> bfloat16
 * stores use vcvtneps2bf16 (one instruction for the seven of the integer
 * rounding; lanes holding a float32 subnormal, which it flushes to zero, take
 * the integer path). cpu_ew_isa() hands this table out in place of the plain
 * AVX-512 one on CPUs that have the extension. */
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx2,fma,f16c,bmi,bmi2")
#define CPU_SIMD_AVX512BF16 1
#include "cpu_simd_avx512.h"
#include "cpu_ew_math.h"
#define CPU_EW_TABLE cpu_ew_isa_avx512bf
#define CPU_EW_NAME "avx512bf16"
#include "cpu_ew_loops.h"
