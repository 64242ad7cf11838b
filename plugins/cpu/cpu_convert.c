/* plugins/cpu/cpu_convert.c: float16/bfloat16 <-> float32 for buffers.
 *
 * Kernels that compute half types in float32 one block at a time (reductions,
 * softmax, norms) convert through here. The loops are the elementwise engine's
 * (cpu_ew_loops.h): F16C vcvtph2ps/vcvtps2ph on AVX2 and AVX-512, bfloat16 by
 * integer shifts with round-to-nearest-even (NaN quieted, sign and payload
 * kept, as tabi/half.h), 8 or 16 lanes per instruction; plain C below AVX2.
 */
#include <string.h>

#include "cpu.h"
#include "cpu_ew.h"

static int32_t ew_dt(tabi_dtype dt) {
  return dt == TABI_DTYPE_FLOAT16 ? CPU_EW_F16 : dt == TABI_DTYPE_BFLOAT16 ? CPU_EW_BF16 : CPU_EW_F32;
}

void cpu_to_f32(const cpu_ctx *c, tabi_dtype dt, const void *src, float *dst, int64_t n) {
  (void)c;
  if (n > 0) cpu_ew_isa()->to_f32(dst, src, n, ew_dt(dt));
}

void cpu_from_f32(const cpu_ctx *c, tabi_dtype dt, const float *src, void *dst, int64_t n) {
  (void)c;
  if (n > 0) cpu_ew_isa()->from_f32(dst, src, n, ew_dt(dt));
}

/* Copies n elements of es bytes from src at element stride st to contiguous
 * dst: the gather step of the strided copy kernels (copy, convert). */
void cpu_gather_strided(char *dst, const char *src, int64_t n, int64_t st, int64_t es) {
  switch (es) {
    case 1: for (int64_t i = 0; i < n; i++) dst[i] = src[i * st]; break;
    case 2: {
      uint16_t *d = (uint16_t *)(void *)dst;
      const uint16_t *s = (const uint16_t *)(const void *)src;
      for (int64_t i = 0; i < n; i++) d[i] = s[i * st];
      break;
    }
    case 4: {
      uint32_t *d = (uint32_t *)(void *)dst;
      const uint32_t *s = (const uint32_t *)(const void *)src;
      for (int64_t i = 0; i < n; i++) d[i] = s[i * st];
      break;
    }
    case 8: {
      uint64_t *d = (uint64_t *)(void *)dst;
      const uint64_t *s = (const uint64_t *)(const void *)src;
      for (int64_t i = 0; i < n; i++) d[i] = s[i * st];
      break;
    }
    default:
      for (int64_t i = 0; i < n; i++) memcpy(dst + i * es, src + i * st * es, (size_t)es);
      break;
  }
}
