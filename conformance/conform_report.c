/* conformance/conform_report.c: text, JSON, JUnit XML and the coverage matrix.
 *
 * Records arrive in whatever order the children finish; every report sorts them
 * by group (the plan's order) first, so two runs of one plugin read the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform_report.h"

void conform_report_init(conform_report *r, const conform_ctx *ctx, const conform_group *groups,
                         int32_t ngroups) {
  memset(r, 0, sizeof *r);
  r->ctx = ctx;
  r->groups = groups;
  r->ngroups = ngroups;
}

void conform_report_add(conform_report *r, const conform_record *rec) {
  if (r->n == r->cap) {
    int32_t cap = r->cap ? r->cap * 2 : 1024;
    conform_record *p = realloc(r->recs, (size_t)cap * sizeof *p);
    if (!p) {
      r->oom = 1;
      return;
    }
    r->recs = p;
    r->cap = cap;
  }
  r->recs[r->n++] = *rec;
}

void conform_report_free(conform_report *r) {
  free(r->recs);
  r->recs = NULL;
  r->n = r->cap = 0;
}

static const char *status_word(int32_t st) {
  switch (st) {
    case CONFORM_ST_PASS: return "pass";
    case CONFORM_ST_FAIL: return "fail";
    case CONFORM_ST_UNSUPPORTED: return "unsupported";
    default: return "skip";
  }
}

/* Stable order: by group, then arrival. */
static const conform_record *sort_base;
static int by_group(const void *a, const void *b) {
  int32_t ia = *(const int32_t *)a, ib = *(const int32_t *)b;
  int32_t ga = sort_base[ia].group, gb = sort_base[ib].group;
  if (ga != gb) return ga < gb ? -1 : 1;
  return ia < ib ? -1 : ia > ib;
}

/* --- JSON and XML escaping ------------------------------------------------------ */

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p == '\n') fputs("\\n", f);
    else if (*p < 0x20 || *p >= 0x7f) fprintf(f, "\\u%04x", *p < 0x80 ? *p : 0xfffd);
    else fputc(*p, f);
  }
  fputc('"', f);
}

static void xml_str(FILE *f, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
      case '<': fputs("&lt;", f); break;
      case '>': fputs("&gt;", f); break;
      case '&': fputs("&amp;", f); break;
      case '"': fputs("&quot;", f); break;
      default: fputc(*p < 0x20 || *p >= 0x7f ? '?' : *p, f); break;
    }
  }
}

static void write_json(conform_report *r, const int32_t *order, const int32_t *counts) {
  FILE *f = fopen(r->ctx->opt->json_path, "w");
  if (!f) {
    fprintf(stderr, "tabi conform: cannot write %s\n", r->ctx->opt->json_path);
    return;
  }
  fputs("{\n  \"plugin\": ", f);
  json_str(f, r->ctx->plugin.name ? r->ctx->plugin.name : r->ctx->opt->plugin);
  fputs(",\n  \"path\": ", f);
  json_str(f, r->ctx->plugin.path ? r->ctx->plugin.path : "");
  fprintf(f, ",\n  \"device_type\": %d,\n  \"device\": %d,\n  \"seed\": %llu,\n",
          (int)r->ctx->device.device_type, (int)r->ctx->device.device_id,
          (unsigned long long)r->ctx->opt->seed);
  fprintf(f, "  \"summary\": {\"passed\": %d, \"failed\": %d, \"skipped\": %d},\n  \"cases\": [",
          counts[0], counts[1], counts[2]);
  for (int32_t k = 0; k < r->n; k++) {
    const conform_record *c = &r->recs[order[k]];
    fputs(k ? ",\n    {" : "\n    {", f);
    fputs("\"op\": ", f);
    json_str(f, c->op);
    fputs(", \"dtype\": ", f);
    json_str(f, c->dtype);
    fputs(", \"sample\": ", f);
    json_str(f, c->sample);
    fputs(", \"status\": ", f);
    json_str(f, status_word(c->status));
    fputs(", \"kind\": ", f);
    json_str(f, c->kind);
    fputs(", \"detail\": ", f);
    json_str(f, c->detail);
    fputc('}', f);
  }
  fputs("\n  ]\n}\n", f);
  fclose(f);
}

static void write_junit(conform_report *r, const int32_t *order, const int32_t *counts,
                        double seconds) {
  FILE *f = fopen(r->ctx->opt->junit_path, "w");
  if (!f) {
    fprintf(stderr, "tabi conform: cannot write %s\n", r->ctx->opt->junit_path);
    return;
  }
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"tabi conform ");
  xml_str(f, r->ctx->plugin.name ? r->ctx->plugin.name : "");
  fprintf(f, "\" tests=\"%d\" failures=\"%d\" skipped=\"%d\" time=\"%.0f\">\n",
          counts[0] + counts[1] + counts[2], counts[1], counts[2], seconds);
  int32_t k = 0;
  while (k < r->n) {
    int32_t g = r->recs[order[k]].group, end = k, nf = 0, ns = 0;
    while (end < r->n && r->recs[order[end]].group == g) {
      int32_t st = r->recs[order[end]].status;
      nf += st == CONFORM_ST_FAIL;
      ns += st == CONFORM_ST_SKIP || st == CONFORM_ST_UNSUPPORTED;
      end++;
    }
    fputs("  <testsuite name=\"", f);
    xml_str(f, g >= 0 && g < r->ngroups ? r->groups[g].name : "?");
    fprintf(f, "\" tests=\"%d\" failures=\"%d\" skipped=\"%d\">\n", end - k, nf, ns);
    for (; k < end; k++) {
      const conform_record *c = &r->recs[order[k]];
      fputs("    <testcase classname=\"", f);
      xml_str(f, c->op);
      fputs("\" name=\"", f);
      xml_str(f, c->dtype[0] ? c->dtype : "-");
      fputs(" [", f);
      xml_str(f, c->sample);
      fputs("]\">", f);
      if (c->status == CONFORM_ST_FAIL) {
        fputs("<failure type=\"", f);
        xml_str(f, c->kind);
        fputs("\" message=\"", f);
        xml_str(f, c->detail);
        fputs("\"/>", f);
      } else if (c->status != CONFORM_ST_PASS) {
        fputs("<skipped message=\"", f);
        xml_str(f, c->status == CONFORM_ST_UNSUPPORTED ? "unsupported: " : "");
        xml_str(f, c->detail);
        fputs("\"/>", f);
      }
      fputs("</testcase>\n", f);
    }
    fputs("  </testsuite>\n", f);
  }
  fputs("</testsuites>\n", f);
  fclose(f);
}

/* One matrix cell: the worst thing that happened to (group, dtype). */
static const char *cell(conform_report *r, int32_t g, const char *dtype) {
  int fail = 0, pass = 0, unsup = 0, skip = 0, missing = 0, budget = 0;
  for (int32_t k = 0; k < r->n; k++) {
    const conform_record *c = &r->recs[k];
    if (c->group != g || (c->dtype[0] && strcmp(c->dtype, dtype) != 0)) continue;
    if (!c->dtype[0] && c->status != CONFORM_ST_FAIL && c->status != CONFORM_ST_SKIP) continue;
    fail |= c->status == CONFORM_ST_FAIL;
    pass |= c->status == CONFORM_ST_PASS;
    unsup |= c->status == CONFORM_ST_UNSUPPORTED;
    skip |= c->status == CONFORM_ST_SKIP;
    missing |= c->status == CONFORM_ST_SKIP && strcmp(c->kind, CONFORM_K_MISSING) == 0;
    budget |= c->status == CONFORM_ST_SKIP && strcmp(c->kind, CONFORM_K_BUDGET) == 0;
  }
  if (fail) return "FAIL";
  if (missing) return "missing";
  if (budget) return "not run"; /* some of its samples may have passed: not all ran */
  if (pass) return r->groups[g].impl == TABI_IMPL_DECOMPOSED ? "decomposed" : "pass";
  if (unsup) return "unsupported";
  if (skip) return "skipped";
  return "-";
}

static void write_matrix(conform_report *r, FILE *f) {
  const conform_ctx *c = r->ctx;
  fprintf(f, "## tabi conform: %s\n\n| op |", c->plugin.name ? c->plugin.name : "?");
  for (int32_t d = 0; d < c->ndtypes; d++) fprintf(f, " %s |", tabi_dtype_name(c->dtypes[d]));
  fputs("\n|---|", f);
  for (int32_t d = 0; d < c->ndtypes; d++) fputs("---|", f);
  fputc('\n', f);
  for (int32_t g = 0; g < r->ngroups; g++) {
    if (r->groups[g].type != CONFORM_G_OP) continue;
    fprintf(f, "| %s |", r->groups[g].name);
    for (int32_t d = 0; d < c->ndtypes; d++)
      fprintf(f, " %s |", cell(r, g, tabi_dtype_name(c->dtypes[d])));
    fputc('\n', f);
  }
}

int conform_report_finish(conform_report *r, double seconds) {
  int32_t *order = malloc(((size_t)r->n + 1) * sizeof *order);
  if (!order) return 1;
  for (int32_t k = 0; k < r->n; k++) order[k] = k;
  sort_base = r->recs;
  qsort(order, (size_t)r->n, sizeof *order, by_group);
  int32_t counts[3] = {0, 0, 0};
  char last_skip[720] = "";
  int32_t skip_run = 0;
  for (int32_t k = 0; k < r->n; k++) {
    const conform_record *c = &r->recs[order[k]];
    if (c->status == CONFORM_ST_PASS) counts[0]++;
    else if (c->status == CONFORM_ST_FAIL) counts[1]++;
    else counts[2]++;
    if (c->status == CONFORM_ST_FAIL) {
      printf("FAIL %s %s", c->op, c->dtype[0] ? c->dtype : "-");
      if (c->sample[0]) printf(" [%s]", c->sample);
      printf(": %s: %s\n", c->kind, c->detail);
    } else if (c->status == CONFORM_ST_SKIP && !c->dtype[0]) {
      /* Whole groups skipped for one reason (no device) print once. */
      if (strcmp(last_skip, c->detail) != 0) {
        if (skip_run > 1) printf("  (and %d more group(s) for the same reason)\n", skip_run - 1);
        printf("SKIP %s: %s\n", c->op, c->detail);
        snprintf(last_skip, sizeof last_skip, "%s", c->detail);
        skip_run = 1;
      } else {
        skip_run++;
      }
    }
  }
  if (skip_run > 1) printf("  (and %d more group(s) for the same reason)\n", skip_run - 1);
  if (r->ctx->opt->json_path) write_json(r, order, counts);
  if (r->ctx->opt->junit_path) write_junit(r, order, counts, seconds);
  if (r->ctx->opt->matrix_path) {
    if (strcmp(r->ctx->opt->matrix_path, "-") == 0) {
      write_matrix(r, stdout);
    } else {
      FILE *f = fopen(r->ctx->opt->matrix_path, "w");
      if (f) {
        write_matrix(r, f);
        fclose(f);
      } else {
        fprintf(stderr, "tabi conform: cannot write %s\n", r->ctx->opt->matrix_path);
      }
    }
  }
  if (r->oom) fprintf(stderr, "tabi conform: out of memory: some cases were not recorded\n");
  printf("%d passed, %d failed, %d skipped\n", counts[0], counts[1], counts[2]);
  fflush(stdout);
  free(order);
  return counts[1] > 0 || r->oom ? 1 : 0;
}
