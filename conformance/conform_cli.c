/* conformance/conform_cli.c: `tabi conform` argument parsing.
 *
 * The `tabi` executable forwards `tabi conform ...` here with argv[0] =
 * "conform"; parsing stays in this library so the CLI and tests share it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"

static void usage(FILE *f) {
  fputs(
      "usage: tabi conform --plugin PATH|NAME [options]\n"
      "\n"
      "Checks a plugin against the reference: ABI behaviour, every op it provides\n"
      "(natively or through decompositions) over generated samples, and its devices.\n"
      "Each group runs in a child process with a time limit.\n"
      "\n"
      "  --plugin PATH|NAME   the plugin under test (a path, or a name looked up on\n"
      "                       TABI_PLUGIN_PATH and the install dir)\n"
      "  --reference PATH     the oracle plugin (default: \"reference\")\n"
      "  --device N           device index under test (default 0)\n"
      "  --ops GLOB[,GLOB]    only these ops (\"aten::add.*\", \"div*\")\n"
      "  --exclude-ops GLOBS  leave these ops out (known issues; say why where you use it)\n"
      "  --dtypes LIST        only these dtypes (\"float32,int64\")\n"
      "  --seed S             sample and random-op seed (default 0)\n"
      "  --jobs N             groups in parallel (default: number of cores)\n"
      "  --timeout SEC        per group (default 60)\n"
      "  --json FILE          JSON report\n"
      "  --junit FILE         JUnit XML report\n"
      "  --matrix FILE        op x dtype coverage matrix, Markdown (\"-\": stdout)\n"
      "  --threads-ms MS      time the 4-thread check runs per op (default 60)\n"
      "  --robust-calls N     random calls per op, most of them bad input, after its\n"
      "                       samples (default 100; 0: none)\n"
      "  --budget SEC         the whole run's time: past it no group starts, running\n"
      "                       ones stop, and both are reported as skipped (\"budget\")\n"
      "  --exact              results must equal the oracle's exactly (no tolerance;\n"
      "                       +0 and -0 differ): two builds of one plugin, one as\n"
      "                       --reference (a CPU plugin)\n"
      "  --quiet              no progress line on stderr\n"
      "\n"
      "Prints one line per failure (FAIL <op> <dtype> [<sample>]: <kind>: <detail>)\n"
      "and `N passed, N failed, N skipped`. Exit status: 0 all passed, 1 a failure,\n"
      "2 the run could not start, 3 no failure but the budget ran out first.\n"
      "See docs/conformance.md.\n",
      f);
}

static int parse_int(const char *flag, const char *s, long long lo, long long hi, long long *out) {
  char *end = NULL;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || v < lo || v > hi) {
    fprintf(stderr, "tabi conform: %s wants an integer in [%lld, %lld], got '%s'\n", flag, lo, hi, s);
    return 0;
  }
  *out = v;
  return 1;
}

int tabi_conform_cli(int argc, char **argv) {
  conform_options o;
  tabi_conform_options_init(&o);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    }
    if (strcmp(a, "--quiet") == 0) {
      o.quiet = 1;
      continue;
    }
    if (strcmp(a, "--exact") == 0) {
      o.exact = 1;
      continue;
    }
    /* Every other option takes a value, as "--opt value" or "--opt=value". */
    const char *val = NULL;
    char name[32];
    const char *eq = strchr(a, '=');
    if (eq && (size_t)(eq - a) < sizeof name) {
      memcpy(name, a, (size_t)(eq - a));
      name[eq - a] = 0;
      val = eq + 1;
    } else {
      snprintf(name, sizeof name, "%s", a);
      if (i + 1 < argc) val = argv[++i];
    }
    if (!val) {
      fprintf(stderr, "tabi conform: %s needs a value (see --help)\n", name);
      return 2;
    }
    long long v;
    if (strcmp(name, "--plugin") == 0) o.plugin = val;
    else if (strcmp(name, "--reference") == 0) o.reference = val;
    else if (strcmp(name, "--ops") == 0) o.ops = val;
    else if (strcmp(name, "--dtypes") == 0) o.dtypes = val;
    else if (strcmp(name, "--exclude-ops") == 0) o.exclude_ops = val;
    else if (strcmp(name, "--json") == 0) o.json_path = val;
    else if (strcmp(name, "--junit") == 0) o.junit_path = val;
    else if (strcmp(name, "--matrix") == 0) o.matrix_path = val;
    else if (strcmp(name, "--device") == 0) {
      if (!parse_int(name, val, 0, 1 << 20, &v)) return 2;
      o.device = (int32_t)v;
    } else if (strcmp(name, "--jobs") == 0) {
      if (!parse_int(name, val, 1, 1024, &v)) return 2;
      o.jobs = (int32_t)v;
    } else if (strcmp(name, "--timeout") == 0) {
      if (!parse_int(name, val, 1, 86400, &v)) return 2;
      o.timeout_s = (int32_t)v;
    } else if (strcmp(name, "--budget") == 0) {
      if (!parse_int(name, val, 1, 30 * 86400, &v)) return 2;
      o.budget_s = (int32_t)v;
    } else if (strcmp(name, "--threads-ms") == 0) {
      if (!parse_int(name, val, 1, 600000, &v)) return 2;
      o.threads_ms = (int32_t)v;
    } else if (strcmp(name, "--robust-calls") == 0) {
      if (!parse_int(name, val, 0, 100000000, &v)) return 2;
      o.robust_calls = v ? (int32_t)v : -1;
    } else if (strcmp(name, "--seed") == 0) {
      char *end = NULL;
      unsigned long long s = strtoull(val, &end, 0);
      if (!*val || *end) {
        fprintf(stderr, "tabi conform: --seed wants an integer, got '%s'\n", val);
        return 2;
      }
      o.seed = s;
    } else {
      fprintf(stderr, "tabi conform: unknown option '%s' (see --help)\n", name);
      return 2;
    }
  }
  if (!o.plugin) {
    fprintf(stderr, "tabi conform: --plugin PATH|NAME is required\n\n");
    usage(stderr);
    return 2;
  }
  return tabi_conform_run(&o);
}
