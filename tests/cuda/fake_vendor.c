/* tests/cuda/fake_vendor.c: stand-ins for librocblas.so and libMIOpen.so, for
 * test_rocm_dl (Debian 12 has neither library and CI has no AMD GPU). Every
 * entry point the ROCm plugin resolves is exported with the C signature of
 * the real header (rocblas.h, miopen.h); the calls only record that they
 * happened. Built twice: FAKE_FULL exports all of them, the other form leaves
 * out miopenConvolutionForward, so the loader must refuse the library whole. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int fake_vendor_calls; /* read by the test through the handle values below */

int rocblas_create_handle(void **h) { *h = &fake_vendor_calls; fake_vendor_calls++; return 0; }
int rocblas_destroy_handle(void *h) { (void)h; fake_vendor_calls++; return 0; }
int rocblas_set_stream(void *h, void *s) { (void)h; (void)s; return 0; }
int rocblas_set_atomics_mode(void *h, int mode) { (void)h; (void)mode; return 0; }
int rocblas_gemm_strided_batched_ex(void *h, int ta, int tb, int32_t m, int32_t n, int32_t k, const void *al,
                                    const void *a, int at, int32_t lda, int64_t sa, const void *b, int bt,
                                    int32_t ldb, int64_t sb, const void *be, const void *c, int ct,
                                    int32_t ldc, int64_t sc, void *d, int dt, int32_t ldd, int64_t sd,
                                    int32_t batch, int comp, int algo, int32_t sol, uint32_t flags) {
  (void)h, (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)al, (void)a, (void)at, (void)lda, (void)sa;
  (void)b, (void)bt, (void)ldb, (void)sb, (void)be, (void)c, (void)ct, (void)ldc, (void)sc, (void)d, (void)dt;
  (void)ldd, (void)sd, (void)batch, (void)comp, (void)algo, (void)sol, (void)flags;
  return 0;
}

static int desc_pool[8];
int miopenCreate(void **h) { *h = &fake_vendor_calls; fake_vendor_calls++; return 0; }
int miopenDestroy(void *h) { (void)h; fake_vendor_calls++; return 0; }
int miopenSetStream(void *h, void *s) { (void)h; (void)s; return 0; }
int miopenCreateTensorDescriptor(void **d) { *d = &desc_pool[0]; return 0; }
int miopenSetTensorDescriptor(void *d, int dt, int nb, const int *dims, const int *strides) {
  (void)d, (void)dt, (void)nb, (void)dims, (void)strides;
  return 0;
}
int miopenDestroyTensorDescriptor(void *d) { (void)d; return 0; }
int miopenCreateConvolutionDescriptor(void **d) { *d = &desc_pool[1]; return 0; }
int miopenInitConvolutionDescriptor(void *d, int mode, int ph, int pw, int sh, int sw, int dh, int dw) {
  (void)d, (void)mode, (void)ph, (void)pw, (void)sh, (void)sw, (void)dh, (void)dw;
  return 0;
}
int miopenSetConvolutionGroupCount(void *d, int g) { (void)d, (void)g; return 0; }
int miopenDestroyConvolutionDescriptor(void *d) { (void)d; return 0; }
int miopenConvolutionForwardGetWorkSpaceSize(void *h, void *w, void *x, void *c, void *y, size_t *b) {
  (void)h, (void)w, (void)x, (void)c, (void)y;
  *b = 0;
  return 0;
}
int miopenFindConvolutionForwardAlgorithm(void *h, void *xd, const void *x, void *wd, const void *w, void *cd,
                                          void *yd, void *y, int req, int *ret, void *perf, void *ws,
                                          size_t wsb, bool ex) {
  (void)h, (void)xd, (void)x, (void)wd, (void)w, (void)cd, (void)yd, (void)y, (void)req, (void)perf;
  (void)ws, (void)wsb, (void)ex;
  *ret = 0;
  return 0;
}
#ifdef FAKE_FULL
int miopenConvolutionForward(void *h, const void *al, void *xd, const void *x, void *wd, const void *w, void *cd,
                             int algo, const void *be, void *yd, void *y, void *ws, size_t wsb) {
  (void)h, (void)al, (void)xd, (void)x, (void)wd, (void)w, (void)cd, (void)algo, (void)be, (void)yd, (void)y;
  (void)ws, (void)wsb;
  return 0;
}
#endif
