/* tools/json.h: a tiny streaming JSON writer for the tabi CLI.
 *
 * No dependencies, no allocation: the writer tracks nesting to place commas and
 * indentation, and escapes strings so the output always parses (control bytes
 * as \u00XX, invalid UTF-8 as U+FFFD). Nesting deeper than TABI_JSON_MAX_DEPTH
 * is a caller bug; the writer stops indenting but stays valid.
 *
 *   tabi_json j; tabi_json_init(&j, stdout);
 *   tabi_json_begin_object(&j);
 *   tabi_json_key(&j, "name"); tabi_json_string(&j, "cpu");
 *   tabi_json_end_object(&j); tabi_json_finish(&j);
 *
 * Threading: one writer per thread.
 */
#ifndef TABI_TOOLS_JSON_H
#define TABI_TOOLS_JSON_H

#include <stdint.h>
#include <stdio.h>

#define TABI_JSON_MAX_DEPTH 32

typedef struct tabi_json {
  FILE *f;
  int32_t depth;
  int32_t after_key;                   /* a key was written: no comma, no indent */
  int32_t count[TABI_JSON_MAX_DEPTH];  /* elements written at each depth */
} tabi_json;

void tabi_json_init(tabi_json *j, FILE *f);
void tabi_json_begin_object(tabi_json *j);
void tabi_json_end_object(tabi_json *j);
void tabi_json_begin_array(tabi_json *j);
void tabi_json_end_array(tabi_json *j);
/* An object key; the next call writes its value. */
void tabi_json_key(tabi_json *j, const char *key);
/* NULL writes null. */
void tabi_json_string(tabi_json *j, const char *s);
void tabi_json_int(tabi_json *j, int64_t v);
void tabi_json_bool(tabi_json *j, int v);
void tabi_json_null(tabi_json *j);
/* Ends the document with a newline. */
void tabi_json_finish(tabi_json *j);

/* Writes `s` as a quoted, escaped JSON string to f (for one-off use). */
void tabi_json_write_string(FILE *f, const char *s);

#endif /* TABI_TOOLS_JSON_H */
