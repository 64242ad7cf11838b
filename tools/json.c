/* tools/json.c: see json.h. */
#include "json.h"

#include <inttypes.h>
#include <string.h>

void tabi_json_init(tabi_json *j, FILE *f) {
  memset(j, 0, sizeof(*j));
  j->f = f;
}

static void json_indent(tabi_json *j) {
  fputc('\n', j->f);
  for (int32_t i = 0; i < j->depth && i < TABI_JSON_MAX_DEPTH; i++) fputs("  ", j->f);
}

/* Before any value or key: the comma and newline its position needs. */
static void json_pre(tabi_json *j) {
  if (j->after_key) {
    j->after_key = 0;
    return;
  }
  if (j->depth == 0) return;
  int32_t d = j->depth < TABI_JSON_MAX_DEPTH ? j->depth : TABI_JSON_MAX_DEPTH - 1;
  if (j->count[d]++ > 0) fputc(',', j->f);
  json_indent(j);
}

static void json_open(tabi_json *j, char c) {
  json_pre(j);
  fputc(c, j->f);
  j->depth++;
  if (j->depth < TABI_JSON_MAX_DEPTH) j->count[j->depth] = 0;
}

static void json_close(tabi_json *j, char c) {
  int32_t d = j->depth < TABI_JSON_MAX_DEPTH ? j->depth : TABI_JSON_MAX_DEPTH - 1;
  int had = j->count[d] > 0;
  if (j->depth > 0) j->depth--;
  if (had) json_indent(j);
  fputc(c, j->f);
}

void tabi_json_begin_object(tabi_json *j) { json_open(j, '{'); }
void tabi_json_end_object(tabi_json *j) { json_close(j, '}'); }
void tabi_json_begin_array(tabi_json *j) { json_open(j, '['); }
void tabi_json_end_array(tabi_json *j) { json_close(j, ']'); }

/* Length of the valid UTF-8 sequence at s, or 0 when it is not one. */
static int utf8_len(const unsigned char *s) {
  unsigned c = s[0];
  int n;
  unsigned min;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) { n = 2; min = 0x80; c &= 0x1F; }
  else if ((c & 0xF0) == 0xE0) { n = 3; min = 0x800; c &= 0x0F; }
  else if ((c & 0xF8) == 0xF0) { n = 4; min = 0x10000; c &= 0x07; }
  else return 0;
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    c = (c << 6) | (s[i] & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  return n;
}

void tabi_json_write_string(FILE *f, const char *s) {
  if (s == NULL) {
    fputs("null", f);
    return;
  }
  const unsigned char *p = (const unsigned char *)s;
  fputc('"', f);
  while (*p) {
    unsigned c = *p;
    if (c == '"' || c == '\\') {
      fputc('\\', f);
      fputc((int)c, f);
      p++;
    } else if (c < 0x20) {
      switch (c) {
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default: fprintf(f, "\\u%04x", c); break;
      }
      p++;
    } else {
      int n = utf8_len(p);
      if (n == 0) {
        fputs("\\ufffd", f);
        p++;
      } else {
        fwrite(p, 1, (size_t)n, f);
        p += n;
      }
    }
  }
  fputc('"', f);
}

void tabi_json_key(tabi_json *j, const char *key) {
  json_pre(j);
  tabi_json_write_string(j->f, key ? key : "");
  fputs(": ", j->f);
  j->after_key = 1;
}

void tabi_json_string(tabi_json *j, const char *s) {
  json_pre(j);
  tabi_json_write_string(j->f, s);
}

void tabi_json_int(tabi_json *j, int64_t v) {
  json_pre(j);
  fprintf(j->f, "%" PRId64, v);
}

void tabi_json_bool(tabi_json *j, int v) {
  json_pre(j);
  fputs(v ? "true" : "false", j->f);
}

void tabi_json_null(tabi_json *j) {
  json_pre(j);
  fputs("null", j->f);
}

void tabi_json_finish(tabi_json *j) { fputc('\n', j->f); }
