/* plugins/cpu/cpu_ops_fft.h: the FFT ops with a fast kernel (cpu_fft*.c).
 * X(ID, "op name", kernel function); cpu.h joins every list into CPU_FAST_OPS.
 * (The schemas have no aten::_fft_c2c: complex-to-complex is prims::fft_c2c.) */
#ifndef TABI_CPU_OPS_FFT_H
#define TABI_CPU_OPS_FFT_H
#define CPU_OPS_FFT(X)                                   \
  X(FFT_R2C, "aten::_fft_r2c", cpu_k_fft_r2c)            \
  X(FFT_C2R, "aten::_fft_c2r", cpu_k_fft_c2r)            \
  X(PRIMS_FFT_R2C, "prims::fft_r2c", cpu_k_prims_fft_r2c) \
  X(PRIMS_FFT_C2R, "prims::fft_c2r", cpu_k_prims_fft_c2r) \
  X(PRIMS_FFT_C2C, "prims::fft_c2c", cpu_k_prims_fft_c2c)
#endif
