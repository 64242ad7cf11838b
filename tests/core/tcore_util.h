/* tcore_util.h: helpers shared by the tests/core tests. */
#ifndef TCORE_UTIL_H
#define TCORE_UTIL_H

#include <tabi/runtime.h>

/* Exported to the test plugins (see tplugin.c). The trace is per thread. */
void tcore_trace(const char *what);
void tcore_probe(const tabi_value *args, int32_t n);
void tcore_destroyed(const char *name);

const char *trace_get(void);  /* "cpu:add,hi:add" */
void trace_clear(void);
extern tabi_value probe_args[32];
extern int32_t probe_n;
extern char destroyed_log[256];

/* TCORE_PLUGIN_DIR/libtcore_<variant>.so */
const char *plugin_path(const char *variant);
tabi_runtime *rt_new(uint32_t flags);
int load(tabi_runtime *rt, const char *variant); /* 1 on success, prints the error */
tabi_tensor *tensor_f32(tabi_runtime *rt, DLDevice dev, int32_t ndim, const int64_t *shape,
                        const float *values);
float read_f32(tabi_runtime *rt, const tabi_tensor *t, int64_t i);

static const DLDevice CPU = {kDLCPU, 0};
static const DLDevice TDEV0 = {kDLVulkan, 0};
static const DLDevice TDEV1 = {kDLVulkan, 1};

#endif
