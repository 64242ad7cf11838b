/* plugins/cpu/cpu_ew_scalar.c: the elementwise loops in plain C, one lane: the
 * baseline for CPUs without AVX2 (and a third check of the same math in tests,
 * with TABI_CPU_ISA=scalar). */
#include "cpu_simd_scalar.h"
#include "cpu_ew_math.h"
#define CPU_EW_TABLE cpu_ew_isa_scalar
#define CPU_EW_NAME "scalar"
#include "cpu_ew_loops.h"
