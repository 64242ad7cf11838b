/* plugins/cpu/cpu_clones.h: the instruction sets a hot loop is built for.
 *
 * A function marked with one of these is compiled once per listed x86-64
 * level and picked at load time by an ifunc resolver (GCC's target_clones):
 * v4 is AVX-512 (F, BW, CD, DQ, VL), v3 is AVX2 + FMA, default is baseline.
 *
 * Under ThreadSanitizer the marks are empty: the resolvers run while the
 * dynamic loader relocates the plugin, before TSan has set the module up, and
 * instrumented they crash dlopen. A TSan build (-DTABI_TSAN=ON, which
 * tools/run.sh test makes) exists to find races, which do not depend on the
 * instruction set, so it runs the baseline code only. */
#ifndef TABI_CPU_CLONES_H
#define TABI_CPU_CLONES_H

#if defined(__SANITIZE_THREAD__)
#define CPU_CLONES_V4V3
#define CPU_CLONES_V3
#define CPU_CLONES_V4
#else
#define CPU_CLONES_V4V3 __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define CPU_CLONES_V3 __attribute__((target_clones("arch=x86-64-v3", "default")))
#define CPU_CLONES_V4 __attribute__((target_clones("arch=x86-64-v4", "default")))
#endif

#endif /* TABI_CPU_CLONES_H */
