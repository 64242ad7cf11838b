/* plugins/cuda/tc_ref_glue.h: the reference's host-side reduction planning
 * (dims parsing, wrapping, duplicates, keepdim, empty-input checks), exposed
 * without its C99 complex types so the C++ side can use it. Metadata only. */
#ifndef TABI_TC_REF_GLUE_H
#define TABI_TC_REF_GLUE_H

#include <tabi/tabi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tc_red_plan {
  int32_t ndim;
  int32_t dims_empty;
  uint8_t reduced[16];
  int32_t out_ndim;
  int64_t out_shape[16];
  int64_t group;
} tc_red_plan;

/* ref_red_init; with check_nonempty, also ref_red_check_nonempty. */
tabi_status tc_red_plan_init(const tabi_host_api *h, const tabi_call *call, const char *arg,
                             const tabi_tensor *self, const tabi_value *dims, int empty_is_all,
                             int keepdim, int check_nonempty, tc_red_plan *out);

#ifdef __cplusplus
}
#endif

#endif
