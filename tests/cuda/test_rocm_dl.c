/* tests/cuda/test_rocm_dl.c: the ROCm plugin's runtime loading of rocBLAS and
 * MIOpen (plugins/rocm/rocm_dl.c), against the stand-in libraries of
 * fake_vendor.c (no GPU and no ROCm libraries needed). ctest runs it three
 * times, with LD_LIBRARY_PATH on a folder holding the complete stand-ins
 * ("full": both libraries resolve and their entry points are the stand-ins'),
 * the incomplete MIOpen ("partial": refused whole, no half-filled table), and
 * the complete ones with TABI_ROCM_NO_VENDOR_LIBS=1 ("off": neither loads). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "rocm_dl.h"

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  const rocm_rocblas *rb = rocm_dl_rocblas();
  const rocm_miopen *mi = rocm_dl_miopen();
  const char *sum = rocm_dl_summary();
  printf("mode %s: %s\n", mode, sum);
  if (strcmp(mode, "full") == 0) {
    CHECK_MSG(rb != NULL, "rocBLAS stand-in not loaded: %s", sum);
    CHECK_MSG(mi != NULL, "MIOpen stand-in not loaded: %s", sum);
    CHECK(strstr(sum, "rocBLAS loaded") != NULL && strstr(sum, "MIOpen loaded") != NULL);
    if (mi) { /* the table points into the stand-in: create hands back its marker, destroy counts */
      void *h = NULL;
      CHECK(mi->create(&h) == ROCM_MI_SUCCESS && h != NULL);
      CHECK(mi->destroy(h) == ROCM_MI_SUCCESS);
      CHECK(mi->set_stream && mi->create_tensor && mi->set_tensor && mi->destroy_tensor && mi->create_conv &&
            mi->init_conv && mi->set_groups && mi->destroy_conv && mi->fwd_workspace && mi->find_fwd && mi->fwd);
      int n = -1;
      rocm_mi_perf perf[1];
      CHECK(mi->find_fwd(h, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1, &n, perf, NULL, 0, false) == 0 && n == 0);
    }
    if (rb) {
      void *h = NULL;
      CHECK(rb->create_handle(&h) == ROCM_RB_SUCCESS && h != NULL);
      /* the optional atomics switch is taken when the library has it */
      CHECK(rb->set_atomics_mode != NULL && rb->set_atomics_mode(h, ROCM_RB_ATOMICS_NOT_ALLOWED) == 0);
      CHECK(rb->destroy_handle(h) == ROCM_RB_SUCCESS);
    }
  } else if (strcmp(mode, "partial") == 0) {
    CHECK_MSG(mi == NULL, "an MIOpen without miopenConvolutionForward was accepted");
    CHECK(rb == NULL); /* that folder has no rocBLAS */
    CHECK(strstr(sum, "MIOpen absent") != NULL);
  } else if (strcmp(mode, "off") == 0) {
    CHECK(rb == NULL && mi == NULL);
    CHECK(strstr(sum, "rocBLAS absent") != NULL && strstr(sum, "MIOpen absent") != NULL);
  } else {
    fprintf(stderr, "usage: test_rocm_dl full|partial|off\n");
    return 2;
  }
  return check_report();
}
