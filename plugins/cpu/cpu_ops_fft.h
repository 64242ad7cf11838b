/* plugins/cpu/cpu_ops_fft.h: the FFT ops with a fast kernel (cpu_fft*.c).
 * X(ID, "op name", kernel function); cpu.h joins every list into CPU_FAST_OPS. */
#ifndef TABI_CPU_OPS_FFT_H
#define TABI_CPU_OPS_FFT_H
#define CPU_OPS_FFT(X) \
  X(FFT_R2C, "aten::_fft_r2c", cpu_k_fft_r2c)
#endif
