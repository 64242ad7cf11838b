/* tabi/plugin.h: the plugin struct and its one exported entry point.
 *
 * A plugin is a shared object exporting exactly one symbol:
 *
 *   TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host,
 *                                                   tabi_plugin *out);
 *
 * The host zeroes *out and sets out->struct_size to its own sizeof(tabi_plugin)
 * before the call; the plugin writes struct_size = its sizeof(tabi_plugin) and the
 * fields it knows. In init the plugin fills *out, then registers its ops,
 * kernels, device table, layers and extensions through `host`. The host then
 * checks the plugin's ABI major against its own and refuses a mismatch naming
 * both versions; the negotiated minor is the lower of the two.
 *
 * If init returns an error the host does not call destroy: init releases
 * whatever it allocated before returning. Once init succeeds, destroy is called
 * exactly once, also when the host refuses the plugin afterwards.
 *
 * A plugin that needs a host slot added after ABI 1.0 checks TABI_FIELD_PRESENT
 * first. A plugin should refuse (return TABI_ERR_ABI_MISMATCH) a host whose
 * abi_major differs from TABI_ABI_VERSION_MAJOR before touching any slot:
 * TABI_PLUGIN_CHECK_HOST does exactly that.
 */
#ifndef TABI_PLUGIN_H
#define TABI_PLUGIN_H

#include <stdint.h>

#include "host.h"
#include "status.h"
#include "version.h"

#if defined(_WIN32)
#define TABI_PLUGIN_EXPORT __declspec(dllexport)
#else
#define TABI_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* tabi_plugin.kind */
#define TABI_PLUGIN_KIND_DEVICE    1 /* backend kernels for one device type */
#define TABI_PLUGIN_KIND_FEATURE   2 /* a layer above the backends (autograd, ...) */
#define TABI_PLUGIN_KIND_LIBRARY   3 /* ops and composite kernels only */
/* The reference backend: the oracle for kDLCPU. Discovery (TABI_PLUGIN_PATH) skips
 * it so it never competes with a real CPU backend; load it by path or name. */
#define TABI_PLUGIN_KIND_REFERENCE 4

typedef struct tabi_plugin {
  uint32_t struct_size;
  uint32_t abi_major;       /* TABI_ABI_VERSION_MAJOR the plugin was built with */
  uint32_t abi_minor;
  int32_t kind;             /* TABI_PLUGIN_KIND_* */
  const char *name;         /* short, unique: "cpu", "cuda", "autograd" */
  const char *version;      /* the plugin's own version, "1.2.0" */
  const char *description;  /* one line */
  int32_t device_type;      /* DLDeviceType for DEVICE/REFERENCE plugins, else 0 */
  int32_t reserved;
  void *ctx;                /* passed to destroy */
  /* Optional. Called when the runtime unloads the plugin, after all its kernels
   * have stopped being callable. */
  void (*destroy)(void *ctx);
} tabi_plugin;

typedef tabi_status (*tabi_plugin_init_fn)(const tabi_host_api *host, tabi_plugin *out);

#define TABI_PLUGIN_ENTRY_SYMBOL "tabi_plugin_init"

/* Fills the version fields of *out and refuses a host of another major. */
#define TABI_PLUGIN_CHECK_HOST(host, out)                                  \
  do {                                                                     \
    (out)->struct_size = (uint32_t)sizeof(tabi_plugin);                    \
    (out)->abi_major = TABI_ABI_VERSION_MAJOR;                             \
    (out)->abi_minor = TABI_ABI_VERSION_MINOR;                             \
    if ((host) == NULL || (host)->abi_major != TABI_ABI_VERSION_MAJOR)     \
      return TABI_ERR_ABI_MISMATCH;                                        \
  } while (0)

#endif /* TABI_PLUGIN_H */
