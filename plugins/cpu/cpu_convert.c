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
