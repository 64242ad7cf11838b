/* tests/profiler/test_conform_profiler.c: the profiler plugin passes the
 * conformance accounting check (conformance/conform_features.c). */
#include <tabi/runtime.h>

#include "check.h"
#include "conform_features.h"

int main(void) {
  conform_feature_result r;
  int rc = conform_features_profiler(TABI_PROFILER_PLUGIN, TABI_REF_PLUGIN, TABI_DECOMP_PLUGIN,
                                     stderr, &r);
  printf("profiler conformance: %d passed, %d failed, %d skipped\n", (int)r.passed,
         (int)r.failed, (int)r.skipped);
  CHECK(rc == 0);
  CHECK(r.failed == 0);
  CHECK(r.passed >= 30);
  CHECK(conform_features_profiler("/nonexistent/libtabi_profiler.so", TABI_REF_PLUGIN, NULL,
                                  stderr, &r) == 2);
  return check_report();
}
