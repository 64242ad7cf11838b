/* tools/tabi/main.c: the `tabi` command: subcommand dispatch, help, version.
 *
 *   tabi plugins [--json]      every plugin found, and what it is
 *   tabi ops [--json]          every op, and how each backend serves it
 *   tabi conform --plugin P    the conformance suite (conformance/, when built)
 *
 * A subcommand gets argv starting at its own name (argv[0] == "plugins"), as
 * tabi_conform_cli expects.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifdef TABI_CLI_HAVE_CONFORM
#include "conform.h"
#endif

static const char main_usage[] =
    "usage: tabi <command> [options]\n"
    "\n"
    "tabi: a plugin-based tensor backend framework (ATen and prims op sets over a\n"
    "stable C ABI). Commands:\n"
    "  plugins    list every plugin found (TABI_PLUGIN_PATH, the install folder)\n"
    "  ops        list every op: schema, op set, and native/decomposed/missing per backend\n"
    "  conform    check a plugin against the reference: tabi conform --plugin PATH\n"
    "\n"
    "  tabi <command> --help   options of one command\n"
    "  tabi --version          versions of the tool, libtabi and the plugin ABI\n"
    "\n"
    "Environment: TABI_PLUGIN_PATH, ':'-separated folders searched for libtabi_*.so\n"
    "before the install folder (" TABI_CLI_PLUGIN_INSTALL_DIR ").\n";

static int cmd_conform(int argc, char **argv) {
#ifdef TABI_CLI_HAVE_CONFORM
  return tabi_conform_cli(argc, argv);
#else
  (void)argc;
  (void)argv;
  fprintf(stderr,
          "tabi conform: the conformance suite was not built into this tabi "
          "(conformance/ missing or disabled at configure time)\n");
  return 2;
#endif
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
      strcmp(argv[1], "help") == 0) {
    if (argc >= 3 && strcmp(argv[1], "help") == 0) {
      char help[] = "--help";
      char *sub[] = {argv[2], help, NULL};
      if (strcmp(argv[2], "plugins") == 0) return cli_cmd_plugins(2, sub);
      if (strcmp(argv[2], "ops") == 0) return cli_cmd_ops(2, sub);
      if (strcmp(argv[2], "conform") == 0) return cmd_conform(2, sub);
    }
    fputs(main_usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
    printf("tabi %s (plugin ABI %d.%d)\n", TABI_VERSION_STRING, TABI_ABI_VERSION_MAJOR,
           TABI_ABI_VERSION_MINOR);
    return 0;
  }
  if (strcmp(argv[1], "plugins") == 0) return cli_cmd_plugins(argc - 1, argv + 1);
  if (strcmp(argv[1], "ops") == 0) return cli_cmd_ops(argc - 1, argv + 1);
  if (strcmp(argv[1], "conform") == 0) return cmd_conform(argc - 1, argv + 1);
  fprintf(stderr, "tabi: unknown command '%s'\n\n%s", argv[1], main_usage);
  return 2;
}
