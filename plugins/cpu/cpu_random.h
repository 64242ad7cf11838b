/* plugins/cpu/cpu_random.h: the reference's Philox stream in blocks, shared by
 * the random ops (cpu_misc_random.c) and dropout (cpu_misc_dropout.c). */
#ifndef TABI_CPU_RANDOM_H
#define TABI_CPU_RANDOM_H

#include <stdint.h>

/* The four Philox4x32-10 words of counters ctr0 .. ctr0+n-1 (n <= 512) in
 * structure-of-arrays form: word k of counter ctr0+i in wk[i]. Bit for bit
 * tabi_philox4x32 (<tabi/philox.h>), vectorized across counters. */
void cpu_philox_block(uint64_t seed, uint64_t ctr0, int n, uint32_t *restrict w0, uint32_t *restrict w1,
                      uint32_t *restrict w2, uint32_t *restrict w3);

#endif /* TABI_CPU_RANDOM_H */
