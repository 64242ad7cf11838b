/* conformance/conform_report.h: turning records into what people read.
 *
 * Text on stdout (one FAIL line per failure, the closing summary line), and the
 * optional files: JSON, JUnit XML, and the op x dtype coverage matrix (Markdown).
 * Format of each: docs/conformance.md.
 */
#ifndef TABI_CONFORM_REPORT_H
#define TABI_CONFORM_REPORT_H

#include "conform_int.h"

typedef struct conform_report {
  const conform_ctx *ctx;
  const conform_group *groups;
  int32_t ngroups;
  conform_record *recs;
  int32_t n, cap;
  int32_t oom;             /* records were dropped for lack of memory */
} conform_report;

void conform_report_init(conform_report *r, const conform_ctx *ctx, const conform_group *groups,
                         int32_t ngroups);
void conform_report_add(conform_report *r, const conform_record *rec);
/* Prints the text report, writes the files asked for; returns the exit code
 * (1 when anything failed, else 0). */
int conform_report_finish(conform_report *r, double seconds);
void conform_report_free(conform_report *r);

#endif /* TABI_CONFORM_REPORT_H */
