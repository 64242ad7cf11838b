/* plugins/rocm/rocm_dl.c: see rocm_dl.h. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocm_dl.h"

static pthread_once_t dl_once = PTHREAD_ONCE_INIT;
static rocm_rocblas dl_rb;
static rocm_miopen dl_mi;
static int dl_rb_ok, dl_miopen_ok;
static char dl_summary[128];

static void *open_first(const char *const *names) {
  for (int i = 0; names[i]; i++) {
    void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (h) return h;
  }
  return NULL;
}

/* dlsym returns void *; the function pointer is copied bytewise, the
 * portable way to convert it under -Wpedantic. */
static int sym(void *lib, const char *name, void *fnptr, size_t size) {
  void *p = dlsym(lib, name);
  if (!p || size != sizeof p) return 0;
  memcpy(fnptr, &p, size);
  return 1;
}

static void dl_load(void) {
  const char *off = getenv("TABI_ROCM_NO_VENDOR_LIBS");
  if (!(off && off[0] == '1')) {
    static const char *const rb_names[] = {"librocblas.so", "librocblas.so.0", "librocblas.so.3",
                                           "librocblas.so.4", NULL};
    void *rb = open_first(rb_names);
    if (rb) {
      dl_rb_ok = sym(rb, "rocblas_create_handle", &dl_rb.create_handle, sizeof dl_rb.create_handle) &&
                 sym(rb, "rocblas_destroy_handle", &dl_rb.destroy_handle, sizeof dl_rb.destroy_handle) &&
                 sym(rb, "rocblas_set_stream", &dl_rb.set_stream, sizeof dl_rb.set_stream) &&
                 sym(rb, "rocblas_gemm_strided_batched_ex", &dl_rb.gemm_strided_batched_ex,
                     sizeof dl_rb.gemm_strided_batched_ex);
      if (dl_rb_ok) /* optional: older rocBLAS has no atomics mode (and no atomics) */
        (void)sym(rb, "rocblas_set_atomics_mode", &dl_rb.set_atomics_mode, sizeof dl_rb.set_atomics_mode);
      else
        dlclose(rb);
    }
    static const char *const mi_names[] = {"libMIOpen.so", "libMIOpen.so.1", NULL};
    void *mi = open_first(mi_names);
    if (mi) {
#define MI_SYM(field, name) sym(mi, name, &dl_mi.field, sizeof dl_mi.field)
      dl_miopen_ok = MI_SYM(create, "miopenCreate") && MI_SYM(destroy, "miopenDestroy") &&
                     MI_SYM(set_stream, "miopenSetStream") &&
                     MI_SYM(create_tensor, "miopenCreateTensorDescriptor") &&
                     MI_SYM(set_tensor, "miopenSetTensorDescriptor") &&
                     MI_SYM(destroy_tensor, "miopenDestroyTensorDescriptor") &&
                     MI_SYM(create_conv, "miopenCreateConvolutionDescriptor") &&
                     MI_SYM(init_conv, "miopenInitConvolutionDescriptor") &&
                     MI_SYM(set_groups, "miopenSetConvolutionGroupCount") &&
                     MI_SYM(destroy_conv, "miopenDestroyConvolutionDescriptor") &&
                     MI_SYM(fwd_workspace, "miopenConvolutionForwardGetWorkSpaceSize") &&
                     MI_SYM(find_fwd, "miopenFindConvolutionForwardAlgorithm") &&
                     MI_SYM(fwd, "miopenConvolutionForward");
#undef MI_SYM
      if (!dl_miopen_ok) {
        memset(&dl_mi, 0, sizeof dl_mi);
        dlclose(mi);
      }
    }
  }
  snprintf(dl_summary, sizeof dl_summary, "rocBLAS %s, MIOpen %s",
           dl_rb_ok ? "loaded" : "absent (own tiled GEMM)",
           dl_miopen_ok ? "loaded" : "absent (own convolution kernels)");
}

const rocm_rocblas *rocm_dl_rocblas(void) {
  pthread_once(&dl_once, dl_load);
  return dl_rb_ok ? &dl_rb : NULL;
}

const rocm_miopen *rocm_dl_miopen(void) {
  pthread_once(&dl_once, dl_load);
  return dl_miopen_ok ? &dl_mi : NULL;
}

const char *rocm_dl_summary(void) {
  pthread_once(&dl_once, dl_load);
  return dl_summary;
}
