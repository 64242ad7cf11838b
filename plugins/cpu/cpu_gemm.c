/* plugins/cpu/cpu_gemm.c: blocked float32 and float64 GEMM (see cpu_gemm.h);
 * the body is cpu_gemm_tmpl.h, instantiated per type.
 *
 * B is packed once into contiguous KC x NC panels; each thread takes a range of
 * MC-row blocks of C and, for every panel, runs a rank-KC update whose inner
 * loop over the panel's columns gcc vectorizes (AVX2 clone with FMA). */
#include <stdlib.h>
#include <string.h>

#include "cpu_gemm.h"
#include "cpu_clones.h"

#define MC 64
#define KC 256
#define NC 1024
#define CLONES CPU_CLONES_V3

#define T float
#define SFX(name) name##_f32
#include "cpu_gemm_tmpl.h"
#undef T
#undef SFX

#define T double
#define SFX(name) name##_f64
#include "cpu_gemm_tmpl.h"
#undef T
#undef SFX
