/* tools/tabi/cmd_plugins.c: `tabi plugins`, every plugin found and what it is. */
#include "cli.h"

#include <string.h>

#include "../json.h"

static const char plugins_usage[] =
    "usage: tabi plugins [--json] [--plugin PATH|NAME]... [--no-discover]\n"
    "\n"
    "Lists every plugin found: the libtabi_*.so files in the TABI_PLUGIN_PATH\n"
    "folders (':'-separated), then in the install folder, then each --plugin.\n"
    "Each is loaded into a runtime of its own, so a broken plugin is listed with\n"
    "its error and the listing goes on.\n"
    "\n"
    "  --json           an array of objects: name, path, status (\"ok\" | \"error\"),\n"
    "                   version, abi_version, abi_minor_in_effect, kind, device,\n"
    "                   layer_priority, kernels, ops_registered; error and\n"
    "                   error_status when the load failed\n"
    "  --plugin P       add a plugin by path or by name (libtabi_<name>.so)\n"
    "  --no-discover    list only the --plugin ones\n"
    "\n"
    "Exit status: 0 when every plugin loaded, 1 when any failed, 2 on bad usage.\n";

static void print_json(const cli_plugins *list) {
  tabi_json j;
  tabi_json_init(&j, stdout);
  tabi_json_begin_array(&j);
  for (int32_t i = 0; i < list->count; i++) {
    const cli_plugin *p = &list->items[i];
    char abi[32], dev[16];
    tabi_json_begin_object(&j);
    tabi_json_key(&j, "name");
    tabi_json_string(&j, p->status == TABI_OK ? p->name : p->file_name);
    tabi_json_key(&j, "path");
    tabi_json_string(&j, p->path);
    tabi_json_key(&j, "explicit");
    tabi_json_bool(&j, p->is_explicit);
    tabi_json_key(&j, "status");
    tabi_json_string(&j, p->status == TABI_OK ? "ok" : "error");
    if (p->status != TABI_OK) {
      tabi_json_key(&j, "error_status");
      tabi_json_string(&j, tabi_status_name(p->status));
      tabi_json_key(&j, "error");
      tabi_json_string(&j, p->error ? p->error : "");
    } else {
      snprintf(abi, sizeof abi, "%u.%u", p->abi_major, p->abi_minor);
      tabi_json_key(&j, "version");
      tabi_json_string(&j, p->version);
      tabi_json_key(&j, "description");
      tabi_json_string(&j, p->description);
      tabi_json_key(&j, "abi_version");
      tabi_json_string(&j, abi);
      tabi_json_key(&j, "abi_minor_in_effect");
      tabi_json_int(&j, p->abi_minor_in_effect);
      tabi_json_key(&j, "kind");
      tabi_json_string(&j, cli_kind_name(p->kind));
      tabi_json_key(&j, "device");
      if (p->device_type) tabi_json_string(&j, cli_device_name(p->device_type, dev, sizeof dev));
      else tabi_json_null(&j);
      tabi_json_key(&j, "device_type");
      tabi_json_int(&j, p->device_type);
      tabi_json_key(&j, "layer_priority");
      tabi_json_int(&j, p->layer_priority);
      tabi_json_key(&j, "kernels");
      tabi_json_int(&j, p->kernels);
      tabi_json_key(&j, "ops_registered");
      tabi_json_int(&j, p->ops_registered);
    }
    tabi_json_end_object(&j);
  }
  tabi_json_end_array(&j);
  tabi_json_finish(&j);
}

static void print_text(const cli_plugins *list) {
  if (list->count == 0) {
    printf("no plugins found (set TABI_PLUGIN_PATH or pass --plugin)\n");
    return;
  }
  printf("%-16s %-9s %-6s %-5s %-8s %-9s %5s %7s  %s\n", "NAME", "KIND", "DEVICE", "LAYER",
         "VERSION", "ABI", "OPS", "KERNELS", "PATH");
  for (int32_t i = 0; i < list->count; i++) {
    const cli_plugin *p = &list->items[i];
    if (p->status != TABI_OK) {
      printf("%-16s %-9s %-6s %-5s %-8s %-9s %5s %7s  %s\n", p->file_name, "ERROR", "-", "-",
             "-", "-", "-", "-", p->path);
      printf("  %s: %s\n", tabi_status_name(p->status), p->error ? p->error : "");
      continue;
    }
    char abi[40], dev[16], layer[16];
    snprintf(abi, sizeof abi, "%u.%u", p->abi_major, p->abi_minor);
    if (p->abi_minor_in_effect != p->abi_minor)
      snprintf(abi + strlen(abi), sizeof abi - strlen(abi), "(%u)", p->abi_minor_in_effect);
    if (p->layer_priority) snprintf(layer, sizeof layer, "%d", (int)p->layer_priority);
    else snprintf(layer, sizeof layer, "-");
    printf("%-16s %-9s %-6s %-5s %-8s %-9s %5d %7d  %s\n", p->name, cli_kind_name(p->kind),
           cli_device_name(p->device_type, dev, sizeof dev), layer, p->version, abi,
           (int)p->ops_registered, (int)p->kernels, p->path);
  }
}

int cli_cmd_plugins(int argc, char **argv) {
  cli_plugins list;
  memset(&list, 0, sizeof(list));
  int json = 0, discover = 1;
  const char *explicit_args[256];
  int nexplicit = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      fputs(plugins_usage, stdout);
      return 0;
    } else if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (strcmp(argv[i], "--no-discover") == 0) {
      discover = 0;
    } else if (strcmp(argv[i], "--plugin") == 0 && i + 1 < argc) {
      if (nexplicit == 256) {
        fprintf(stderr, "tabi plugins: at most 256 --plugin\n");
        return 2;
      }
      explicit_args[nexplicit++] = argv[++i];
    } else if (strncmp(argv[i], "--plugin=", 9) == 0 && nexplicit < 256) {
      explicit_args[nexplicit++] = argv[i] + 9;
    } else {
      fprintf(stderr, "tabi plugins: unknown argument '%s'\n\n%s", argv[i], plugins_usage);
      return 2;
    }
  }
  int rc = 0;
  if (discover && cli_discover(&list) != 0) {
    fprintf(stderr, "tabi plugins: out of memory\n");
    cli_plugins_free(&list);
    return 1;
  }
  for (int i = 0; i < nexplicit; i++) {
    char err[512];
    if (cli_add_plugin(&list, explicit_args[i], 1, err, sizeof err) != 0) {
      fprintf(stderr, "tabi plugins: %s\n", err);
      rc = 1;
    }
  }
  for (int32_t i = 0; i < list.count; i++) {
    cli_probe(&list.items[i]);
    if (list.items[i].status != TABI_OK) rc = 1;
  }
  if (json) print_json(&list);
  else print_text(&list);
  cli_plugins_free(&list);
  return rc;
}
