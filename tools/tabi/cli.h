/* tools/tabi/cli.h: what the `tabi` subcommands share: finding plugins, probing
 * each in a runtime of its own, and naming kinds and devices.
 *
 * Probing loads one plugin into a fresh runtime, so a broken plugin is reported
 * with its error and never stops the others. Everything here allocates with
 * malloc and is freed by cli_plugins_free; errors are returned, never fatal.
 */
#ifndef TABI_TOOLS_CLI_H
#define TABI_TOOLS_CLI_H

#include <stdint.h>
#include <stdio.h>

#include <tabi/runtime.h>

/* The installed plugin folder (absolute), set by the build. */
#ifndef TABI_CLI_PLUGIN_INSTALL_DIR
#define TABI_CLI_PLUGIN_INSTALL_DIR "/usr/local/lib/tabi/plugins"
#endif

/* One plugin file, and (after cli_probe) what loading it said. */
typedef struct cli_plugin {
  char *path;            /* as found or given */
  char *file_name;       /* "cpu" from libtabi_cpu.so */
  int32_t is_explicit;   /* from --plugin */
  int32_t probed;
  tabi_status status;    /* of the load */
  char *error;           /* the load's message, when status != TABI_OK */
  char *name, *version, *description;
  int32_t kind, device_type, layer_priority, kernels, ops_registered;
  uint32_t abi_major, abi_minor, abi_minor_in_effect;
} cli_plugin;

typedef struct cli_plugins {
  cli_plugin *items;
  int32_t count, cap;
} cli_plugins;

/* Appends every libtabi_*.so in the TABI_PLUGIN_PATH folders, then in the install
 * folder, in name order per folder; a file already listed (same real path) is
 * skipped. Returns 0, or -1 when out of memory. */
int cli_discover(cli_plugins *list);
/* Appends a --plugin argument: a path (has '/'), or a name looked up as
 * libtabi_<name>.so (see cli_resolve_name). Returns 0, or -1 with a message in
 * err when a name is not found. A file already listed is not added twice. */
int cli_add_plugin(cli_plugins *list, const char *path_or_name, int32_t is_explicit,
                   char *err, size_t err_len);
/* The path of plugin `name`: TABI_PLUGIN_PATH, the install folder, then the
 * folders beside this executable (build tree: ../plugins; relocated install:
 * ../lib/tabi/plugins). NULL when absent; the caller frees it. */
char *cli_resolve_name(const char *name);
/* Loads the plugin into a runtime of its own and records info or the error. */
void cli_probe(cli_plugin *p);
void cli_plugins_free(cli_plugins *list);

const char *cli_kind_name(int32_t kind);
/* "cpu", "cuda", "rocm", ... or "dev<N>". */
const char *cli_device_name(int32_t device_type, char *buf, size_t buf_len);
/* A backend plugin (device or reference) serves a device type. */
int cli_is_backend(const cli_plugin *p);

/* Subcommands: argv[0] is the subcommand's name. Exit codes: 0 ok, 1 failure,
 * 2 usage error. */
int cli_cmd_plugins(int argc, char **argv);
int cli_cmd_ops(int argc, char **argv);

/* Strings that outlive runtimes. */
char *cli_strdup(const char *s);

#endif /* TABI_TOOLS_CLI_H */
