/* tools/tabi/cmd_ops.c: `tabi ops`, every registered op and how each backend
 * serves it (native kernel, decomposition, or missing).
 *
 * Each backend plugin gets a runtime of its own, with the non-backend plugins
 * (decompositions, feature layers) loaded beside it: two backends may claim the
 * same device type (the reference and a CPU plugin both serve kDLCPU), and a
 * backend's "decomposed" status depends on the library plugins next to it.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#include "../json.h"

static const char ops_usage[] =
    "usage: tabi ops [--json] [--plugin PATH|NAME]... [--no-discover] [--no-reference]\n"
    "                [--set NS]\n"
    "\n"
    "Lists every registered op with its schema, its op set (the namespace: aten,\n"
    "prims, or a vendor's) and, per backend plugin, whether the op is native (a\n"
    "kernel of its own), decomposed (runs through a decomposition into ops it\n"
    "has) or missing. Plugins: those found on TABI_PLUGIN_PATH and in the install\n"
    "folder, the reference plugin, and each --plugin.\n"
    "\n"
    "  --json           an array of objects: name (\"aten::add.Tensor\"), schema,\n"
    "                   set, backends {plugin name: \"native\"|\"decomposed\"|\"missing\"}\n"
    "  --plugin P       add a plugin by path or by name (libtabi_<name>.so)\n"
    "  --no-discover    use only the reference plugin and the --plugin ones\n"
    "  --no-reference   do not add the reference plugin\n"
    "  --set NS         only ops of namespace NS (aten, prims, ...)\n"
    "\n"
    "Exit status: 0 on success, 1 when a --plugin failed to load, 2 on bad usage.\n";

typedef struct ops_backend {
  const cli_plugin *plugin;
  char label[96];       /* the plugin's name, made unique */
  tabi_runtime *rt;
  int32_t native, decomposed, missing;
} ops_backend;

typedef struct ops_entry {
  char *name;
  char *schema;
} ops_entry;

typedef struct ops_state {
  cli_plugins list;
  ops_backend *backends;
  int32_t nbackends;
  tabi_runtime *base;   /* non-backend plugins only: the op list without backends */
  ops_entry *ops;
  int32_t nops, capops;
} ops_state;

static const char *impl_name(int32_t impl) {
  switch (impl) {
    case TABI_IMPL_NATIVE: return "native";
    case TABI_IMPL_DECOMPOSED: return "decomposed";
    default: return "missing";
  }
}

/* Loads every non-backend plugin that probed fine; failures are warnings. */
static void load_extras(ops_state *s, tabi_runtime *rt) {
  for (int32_t i = 0; i < s->list.count; i++) {
    const cli_plugin *p = &s->list.items[i];
    if (p->status != TABI_OK || cli_is_backend(p)) continue;
    if (tabi_runtime_load_plugin(rt, p->path, NULL) != TABI_OK)
      fprintf(stderr, "tabi ops: warning: %s next to the others: %s\n", p->path,
              tabi_last_error());
  }
}

static int has_op(ops_state *s, const char *name) {
  for (int32_t i = 0; i < s->nops; i++)
    if (strcmp(s->ops[i].name, name) == 0) return 1;
  return 0;
}

/* Appends the ops of rt not yet listed, in handle order. */
static int collect_ops(ops_state *s, tabi_runtime *rt) {
  int32_t n = tabi_op_count(rt);
  for (tabi_op op = 0; op < n; op++) {
    const tabi_op_info *info = tabi_op_get_info(rt, op);
    if (!info || !info->name || has_op(s, info->name)) continue;
    if (s->nops == s->capops) {
      int32_t cap = s->capops ? s->capops * 2 : 512;
      ops_entry *grown = realloc(s->ops, (size_t)cap * sizeof(*grown));
      if (!grown) return -1;
      s->ops = grown;
      s->capops = cap;
    }
    s->ops[s->nops].name = cli_strdup(info->name);
    s->ops[s->nops].schema = cli_strdup(info->schema ? info->schema : info->name);
    if (!s->ops[s->nops].name || !s->ops[s->nops].schema) return -1;
    s->nops++;
  }
  return 0;
}

static int32_t backend_impl(const ops_backend *b, const char *name) {
  tabi_op op;
  if (tabi_op_find(b->rt, name, &op) != TABI_OK) {
    tabi_clear_error();
    return TABI_IMPL_MISSING;
  }
  return tabi_op_backend_status(b->rt, op, b->plugin->device_type);
}

/* "aten" from "aten::add.Tensor", into buf. */
static const char *op_set(const char *name, char *buf, size_t len) {
  const char *sep = strstr(name, "::");
  size_t n = sep ? (size_t)(sep - name) : 0;
  if (n >= len) n = len - 1;
  memcpy(buf, name, n);
  buf[n] = '\0';
  return buf;
}

static void print_json(ops_state *s, const char *only_set) {
  tabi_json j;
  tabi_json_init(&j, stdout);
  tabi_json_begin_array(&j);
  for (int32_t i = 0; i < s->nops; i++) {
    char set[64];
    op_set(s->ops[i].name, set, sizeof set);
    if (only_set && strcmp(set, only_set) != 0) continue;
    tabi_json_begin_object(&j);
    tabi_json_key(&j, "name");
    tabi_json_string(&j, s->ops[i].name);
    tabi_json_key(&j, "schema");
    tabi_json_string(&j, s->ops[i].schema);
    tabi_json_key(&j, "set");
    tabi_json_string(&j, set);
    tabi_json_key(&j, "backends");
    tabi_json_begin_object(&j);
    for (int32_t b = 0; b < s->nbackends; b++) {
      tabi_json_key(&j, s->backends[b].label);
      tabi_json_string(&j, impl_name(backend_impl(&s->backends[b], s->ops[i].name)));
    }
    tabi_json_end_object(&j);
    tabi_json_end_object(&j);
  }
  tabi_json_end_array(&j);
  tabi_json_finish(&j);
}

static void print_text(ops_state *s, const char *only_set) {
  printf("%-6s", "SET");
  for (int32_t b = 0; b < s->nbackends; b++) printf(" %-10.10s", s->backends[b].label);
  printf(" SCHEMA\n");
  int32_t shown = 0;
  for (int32_t i = 0; i < s->nops; i++) {
    char set[64];
    op_set(s->ops[i].name, set, sizeof set);
    if (only_set && strcmp(set, only_set) != 0) continue;
    shown++;
    printf("%-6s", set);
    for (int32_t b = 0; b < s->nbackends; b++) {
      ops_backend *be = &s->backends[b];
      int32_t impl = backend_impl(be, s->ops[i].name);
      if (impl == TABI_IMPL_NATIVE) be->native++;
      else if (impl == TABI_IMPL_DECOMPOSED) be->decomposed++;
      else be->missing++;
      printf(" %-10s", impl_name(impl));
    }
    printf(" %s\n", s->ops[i].schema);
  }
  printf("\n%d ops", (int)shown);
  if (s->nbackends == 0) printf("; no backend plugin loaded (pass --plugin)");
  printf("\n");
  for (int32_t b = 0; b < s->nbackends; b++) {
    const ops_backend *be = &s->backends[b];
    char dev[16];
    printf("  %-16s (%s, %s): %d native, %d decomposed, %d missing\n", be->label,
           cli_device_name(be->plugin->device_type, dev, sizeof dev), be->plugin->path,
           (int)be->native, (int)be->decomposed, (int)be->missing);
  }
}

static void ops_free(ops_state *s) {
  for (int32_t b = 0; b < s->nbackends; b++) tabi_runtime_destroy(s->backends[b].rt);
  free(s->backends);
  tabi_runtime_destroy(s->base);
  for (int32_t i = 0; i < s->nops; i++) {
    free(s->ops[i].name);
    free(s->ops[i].schema);
  }
  free(s->ops);
  cli_plugins_free(&s->list);
}

/* One runtime per backend plugin, the extras loaded beside it. */
static int setup_backends(ops_state *s) {
  s->backends = calloc((size_t)(s->list.count ? s->list.count : 1), sizeof(*s->backends));
  if (!s->backends) return -1;
  for (int32_t i = 0; i < s->list.count; i++) {
    const cli_plugin *p = &s->list.items[i];
    if (!cli_is_backend(p)) continue;
    ops_backend *b = &s->backends[s->nbackends];
    if (tabi_runtime_create(NULL, &b->rt) != TABI_OK) {
      fprintf(stderr, "tabi ops: runtime: %s\n", tabi_last_error());
      return -1;
    }
    load_extras(s, b->rt);
    if (tabi_runtime_load_plugin(b->rt, p->path, NULL) != TABI_OK) {
      fprintf(stderr, "tabi ops: warning: skipping %s: %s\n", p->path, tabi_last_error());
      tabi_runtime_destroy(b->rt);
      b->rt = NULL;
      continue;
    }
    b->plugin = p;
    snprintf(b->label, sizeof b->label, "%s", p->name);
    for (int32_t k = 0, n = 2; k < s->nbackends; k++) {
      if (strcmp(s->backends[k].label, b->label) == 0) {
        snprintf(b->label, sizeof b->label, "%s#%d", p->name, (int)n++);
        k = -1; /* check the new label against all again */
      }
    }
    s->nbackends++;
  }
  return 0;
}

int cli_cmd_ops(int argc, char **argv) {
  ops_state s;
  memset(&s, 0, sizeof(s));
  int json = 0, discover = 1, reference = 1, rc = 0;
  const char *only_set = NULL;
  const char *explicit_args[256];
  int nexplicit = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      fputs(ops_usage, stdout);
      return 0;
    } else if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (strcmp(argv[i], "--no-discover") == 0) {
      discover = 0;
    } else if (strcmp(argv[i], "--no-reference") == 0) {
      reference = 0;
    } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
      only_set = argv[++i];
    } else if (strcmp(argv[i], "--plugin") == 0 && i + 1 < argc && nexplicit < 256) {
      explicit_args[nexplicit++] = argv[++i];
    } else if (strncmp(argv[i], "--plugin=", 9) == 0 && nexplicit < 256) {
      explicit_args[nexplicit++] = argv[i] + 9;
    } else {
      fprintf(stderr, "tabi ops: unknown argument '%s'\n\n%s", argv[i], ops_usage);
      return 2;
    }
  }
  char err[512];
  if (discover && cli_discover(&s.list) != 0) goto oom;
  if (reference && cli_add_plugin(&s.list, "reference", 0, err, sizeof err) != 0)
    fprintf(stderr, "tabi ops: warning: %s\n", err);
  for (int i = 0; i < nexplicit; i++) {
    if (cli_add_plugin(&s.list, explicit_args[i], 1, err, sizeof err) != 0) {
      fprintf(stderr, "tabi ops: %s\n", err);
      rc = 1;
    }
  }
  for (int32_t i = 0; i < s.list.count; i++) {
    cli_plugin *p = &s.list.items[i];
    cli_probe(p);
    if (p->status != TABI_OK) {
      fprintf(stderr, "tabi ops: warning: skipping %s: %s\n", p->path, p->error ? p->error : "");
      if (p->is_explicit) rc = 1;
    }
  }
  if (tabi_runtime_create(NULL, &s.base) != TABI_OK) {
    fprintf(stderr, "tabi ops: runtime: %s\n", tabi_last_error());
    ops_free(&s);
    return 1;
  }
  load_extras(&s, s.base);
  if (setup_backends(&s) != 0 || collect_ops(&s, s.base) != 0) goto oom;
  for (int32_t b = 0; b < s.nbackends; b++)
    if (collect_ops(&s, s.backends[b].rt) != 0) goto oom;
  if (json) print_json(&s, only_set);
  else print_text(&s, only_set);
  ops_free(&s);
  return rc;
oom:
  fprintf(stderr, "tabi ops: out of memory or no runtime\n");
  ops_free(&s);
  return 1;
}
