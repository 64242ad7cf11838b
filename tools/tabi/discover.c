/* tools/tabi/discover.c: finding plugin files and probing each one alone. */
#define _DEFAULT_SOURCE /* realpath, readlink, strdup */
#include "cli.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *cli_strdup(const char *s) {
  if (s == NULL) return NULL;
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

const char *cli_kind_name(int32_t kind) {
  switch (kind) {
    case TABI_PLUGIN_KIND_DEVICE: return "device";
    case TABI_PLUGIN_KIND_FEATURE: return "feature";
    case TABI_PLUGIN_KIND_LIBRARY: return "library";
    case TABI_PLUGIN_KIND_REFERENCE: return "reference";
    default: return "unknown";
  }
}

const char *cli_device_name(int32_t device_type, char *buf, size_t buf_len) {
  switch (device_type) {
    case 0: return "-";
    case kDLCPU: return "cpu";
    case kDLCUDA: return "cuda";
    case kDLCUDAHost: return "cuda_host";
    case kDLOpenCL: return "opencl";
    case kDLVulkan: return "vulkan";
    case kDLMetal: return "metal";
    case kDLROCM: return "rocm";
    case kDLROCMHost: return "rocm_host";
    case kDLCUDAManaged: return "cuda_managed";
    default: snprintf(buf, buf_len, "dev%d", (int)device_type); return buf;
  }
}

int cli_is_backend(const cli_plugin *p) {
  return p->status == TABI_OK && p->device_type != 0 &&
         (p->kind == TABI_PLUGIN_KIND_DEVICE || p->kind == TABI_PLUGIN_KIND_REFERENCE);
}

/* "cpu" from ".../libtabi_cpu.so"; the base name when it has another form. */
static char *file_name_of(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  if (strncmp(base, "libtabi_", 8) == 0 && n > 11 && strcmp(base + n - 3, ".so") == 0) {
    char *s = malloc(n - 10);
    if (!s) return NULL;
    memcpy(s, base + 8, n - 11);
    s[n - 11] = '\0';
    return s;
  }
  return cli_strdup(base);
}

static int already_listed(const cli_plugins *list, const char *path) {
  char real[PATH_MAX], other[PATH_MAX];
  const char *a = realpath(path, real) ? real : path;
  for (int32_t i = 0; i < list->count; i++) {
    const char *b = realpath(list->items[i].path, other) ? other : list->items[i].path;
    if (strcmp(a, b) == 0) return 1;
  }
  return 0;
}

static int append(cli_plugins *list, const char *path, int32_t is_explicit) {
  if (already_listed(list, path)) return 0;
  if (list->count == list->cap) {
    int32_t cap = list->cap ? list->cap * 2 : 8;
    cli_plugin *items = realloc(list->items, (size_t)cap * sizeof(*items));
    if (!items) return -1;
    list->items = items;
    list->cap = cap;
  }
  cli_plugin *p = &list->items[list->count];
  memset(p, 0, sizeof(*p));
  p->path = cli_strdup(path);
  p->file_name = file_name_of(path);
  p->is_explicit = is_explicit;
  if (!p->path || !p->file_name) {
    free(p->path);
    free(p->file_name);
    return -1;
  }
  list->count++;
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_plugin_file(const char *name) {
  size_t n = strlen(name);
  return strncmp(name, "libtabi_", 8) == 0 && n > 11 && strcmp(name + n - 3, ".so") == 0;
}

/* Appends the plugin files of one folder, sorted; a missing folder is fine. */
static int discover_dir(cli_plugins *list, const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  char **names = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!is_plugin_file(e->d_name)) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 16;
      char **grown = realloc(names, cap * sizeof(*names));
      if (!grown) { rc = -1; break; }
      names = grown;
    }
    if ((names[n] = cli_strdup(e->d_name)) == NULL) { rc = -1; break; }
    n++;
  }
  closedir(d);
  if (names) qsort(names, n, sizeof(*names), cmp_str);
  for (size_t i = 0; i < n; i++) {
    if (rc == 0) {
      size_t len = strlen(dir) + strlen(names[i]) + 2;
      char *path = malloc(len);
      if (!path) rc = -1;
      else {
        snprintf(path, len, "%s/%s", dir, names[i]);
        rc = append(list, path, 0);
        free(path);
      }
    }
    free(names[i]);
  }
  free(names);
  return rc;
}

/* Calls fn on each folder to search, in order, until it returns non-zero. */
static int for_each_dir(int (*fn)(void *user, const char *dir), void *user, int with_exe) {
  const char *env = getenv("TABI_PLUGIN_PATH");
  if (env && *env) {
    char *copy = cli_strdup(env);
    if (!copy) return -1;
    char *save = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
      int rc = fn(user, dir);
      if (rc) { free(copy); return rc; }
    }
    free(copy);
  }
  int rc = fn(user, TABI_CLI_PLUGIN_INSTALL_DIR);
  if (rc || !with_exe) return rc;
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (len <= 0) return 0;
  exe[len] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash) return 0;
  *slash = '\0';
  static const char *const rel[] = {"/../plugins", "/../lib/tabi/plugins"};
  for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
    char dir[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s%s", exe, rel[i]);
    if ((rc = fn(user, dir)) != 0) return rc;
  }
  return 0;
}

static int discover_cb(void *user, const char *dir) {
  return discover_dir((cli_plugins *)user, dir);
}

int cli_discover(cli_plugins *list) { return for_each_dir(discover_cb, list, 0); }

typedef struct resolve_ctx {
  const char *name;
  char *found;
} resolve_ctx;

static int resolve_cb(void *user, const char *dir) {
  resolve_ctx *r = user;
  size_t len = strlen(dir) + strlen(r->name) + 16;
  char *path = malloc(len);
  if (!path) return -1;
  snprintf(path, len, "%s/libtabi_%s.so", dir, r->name);
  if (access(path, R_OK) == 0) {
    char real[PATH_MAX];
    if (realpath(path, real) != NULL) { /* "build/plugins/x.so", not "tools/../plugins" */
      free(path);
      path = cli_strdup(real);
      if (!path) return -1;
    }
    r->found = path;
    return 1;
  }
  free(path);
  return 0;
}

char *cli_resolve_name(const char *name) {
  resolve_ctx r = {name, NULL};
  for_each_dir(resolve_cb, &r, 1);
  return r.found;
}

int cli_add_plugin(cli_plugins *list, const char *path_or_name, int32_t is_explicit,
                   char *err, size_t err_len) {
  if (strchr(path_or_name, '/') != NULL) {
    if (append(list, path_or_name, is_explicit) != 0) {
      snprintf(err, err_len, "out of memory");
      return -1;
    }
    return 0;
  }
  char *path = cli_resolve_name(path_or_name);
  if (!path) {
    snprintf(err, err_len,
             "plugin '%s': no libtabi_%s.so on TABI_PLUGIN_PATH, in %s, or beside the tabi "
             "executable", path_or_name, path_or_name, TABI_CLI_PLUGIN_INSTALL_DIR);
    return -1;
  }
  int rc = append(list, path, is_explicit);
  free(path);
  if (rc != 0) snprintf(err, err_len, "out of memory");
  return rc;
}

void cli_probe(cli_plugin *p) {
  tabi_runtime *rt = NULL;
  p->probed = 1;
  p->status = tabi_runtime_create(NULL, &rt);
  if (p->status != TABI_OK) {
    p->error = cli_strdup(tabi_last_error());
    return;
  }
  int32_t index = -1;
  p->status = tabi_runtime_load_plugin(rt, p->path, &index);
  if (p->status != TABI_OK) {
    p->error = cli_strdup(tabi_last_error());
    tabi_runtime_destroy(rt);
    return;
  }
  tabi_plugin_info info;
  memset(&info, 0, sizeof(info));
  info.struct_size = (uint32_t)sizeof(info);
  p->status = tabi_runtime_plugin_info(rt, index, &info);
  if (p->status != TABI_OK) {
    p->error = cli_strdup(tabi_last_error());
  } else {
    p->name = cli_strdup(info.name ? info.name : p->file_name);
    p->version = cli_strdup(info.version ? info.version : "");
    p->description = cli_strdup(info.description ? info.description : "");
    p->kind = info.kind;
    p->device_type = info.device_type;
    p->layer_priority = info.layer_priority;
    p->kernels = info.kernels;
    p->ops_registered = info.ops_registered;
    p->abi_major = info.abi_major;
    p->abi_minor = info.abi_minor;
    p->abi_minor_in_effect = info.abi_minor_in_effect;
  }
  tabi_runtime_destroy(rt);
}

void cli_plugins_free(cli_plugins *list) {
  for (int32_t i = 0; i < list->count; i++) {
    cli_plugin *p = &list->items[i];
    free(p->path);
    free(p->file_name);
    free(p->error);
    free(p->name);
    free(p->version);
    free(p->description);
  }
  free(list->items);
  memset(list, 0, sizeof(*list));
}
