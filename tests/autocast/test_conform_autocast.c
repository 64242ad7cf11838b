/* tests/autocast/test_conform_autocast.c: the autocast plugin passes the
 * conformance policy check (conformance/conform_features.c) on the reference. */
#include <tabi/runtime.h>

#include "check.h"
#include "conform_features.h"

int main(void) {
  conform_feature_result r;
  int rc = conform_features_autocast(TABI_AUTOCAST_PLUGIN, TABI_REF_PLUGIN, TABI_DECOMP_PLUGIN,
                                     stderr, &r);
  printf("autocast conformance: %d passed, %d failed, %d skipped\n", (int)r.passed,
         (int)r.failed, (int)r.skipped);
  CHECK(rc == 0);
  CHECK(r.failed == 0);
  CHECK(r.passed > 100); /* the policy table (2 x every op) and the CPU ops' samples ran */
  /* The check can fail: a missing plugin is "cannot run". */
  CHECK(conform_features_autocast("/nonexistent/libtabi_autocast.so", TABI_REF_PLUGIN, NULL,
                                  stderr, &r) == 2);
  /* The JSON validator. */
  int64_t xs = -1;
  const char good[] = "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1.5e3}, {\"ph\": \"C\"}, "
                      "{\"a\": [true, false, null, -0.5, \"\\u00e9\\n\"]}]}";
  CHECK(conform_json_validate(good, sizeof good - 1, &xs) == 1 && xs == 1);
  const char *bad[] = {"{", "{\"a\" 1}", "[1,]", "{\"a\": 01}", "\"\\x\"", "[1] 2", "nul", ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK_MSG(conform_json_validate(bad[i], strlen(bad[i]), NULL) == 0, "accepted %s", bad[i]);
  return check_report();
}
