/* schema.c: a recursive-descent parser for ATen operator schemas.
 *
 * It turns the text into tabi_arg_info arrays (the tabi_op_info plugins see),
 * with default values already boxed in the type they will be passed as, so the
 * dispatcher fills a missing argument with one struct copy.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"

/* ---- arena ---------------------------------------------------------------- */

typedef struct arena_block {
  struct arena_block *next;
  size_t used, cap;
  max_align_t data[];
} arena_block;

struct schema_arena {
  arena_block *head;
};

schema_arena *tabi_arena_create(void) { return calloc(1, sizeof(schema_arena)); }

void *tabi_arena_alloc(schema_arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (n == 0) n = 16;
  arena_block *b = a->head;
  if (!b || b->cap - b->used < n) {
    size_t cap = n > 2048 ? n : 2048;
    b = malloc(sizeof(arena_block) + cap);
    if (!b) return NULL;
    b->next = a->head;
    b->used = 0;
    b->cap = cap;
    a->head = b;
  }
  void *p = (char *)b->data + b->used;
  b->used += n;
  memset(p, 0, n);
  return p;
}

void tabi_arena_destroy(schema_arena *a) {
  if (!a) return;
  arena_block *b = a->head;
  while (b) {
    arena_block *n = b->next;
    free(b);
    b = n;
  }
  free(a);
}

/* ---- parser --------------------------------------------------------------- */

#define MAX_ARGS 64
#define MAX_LIST_DEFAULT 64

typedef struct parser {
  const char *s;
  size_t pos;
  schema_arena *arena;
  tabi_status st;
} parser;

static const int64_t empty_list_storage[1] = {0};

static tabi_status perr(parser *p, const char *expected) {
  if (p->st != TABI_OK) return p->st;
  char got[24];
  if (p->s[p->pos] == 0) {
    snprintf(got, sizeof got, "end of schema");
  } else {
    size_t k = 0;
    got[k++] = '\'';
    for (size_t i = p->pos; p->s[i] && k < 12; i++) got[k++] = p->s[i];
    got[k++] = '\'';
    got[k] = 0;
  }
  p->st = tabi_set_error(TABI_ERR_PARSE,
                         "schema parse error at column %zu: expected %s, got %s in \"%s\"",
                         p->pos + 1, expected, got, p->s);
  return p->st;
}

static void ws(parser *p) {
  while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' ||
         p->s[p->pos] == '\r')
    p->pos++;
}

static int peek(parser *p, char c) {
  ws(p);
  return p->s[p->pos] == c;
}

static int accept(parser *p, char c) {
  if (peek(p, c)) {
    p->pos++;
    return 1;
  }
  return 0;
}

static tabi_status expect(parser *p, char c, const char *what) {
  if (accept(p, c)) return TABI_OK;
  return perr(p, what);
}

/* An identifier into the arena; NULL on error (perr already called). */
static char *ident(parser *p, const char *what) {
  ws(p);
  size_t start = p->pos;
  char c = p->s[p->pos];
  if (!(isalpha((unsigned char)c) || c == '_')) {
    perr(p, what);
    return NULL;
  }
  while (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_') p->pos++;
  size_t n = p->pos - start;
  char *out = tabi_arena_alloc(p->arena, n + 1);
  if (!out) {
    p->st = tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "schema parser: out of memory");
    return NULL;
  }
  memcpy(out, p->s + start, n);
  return out;
}

static int ident_is(const char *id, const char *word) { return strcmp(id, word) == 0; }

/* ---- types ------------------------------------------------------------------ */

static tabi_status parse_annotation(parser *p, tabi_arg_info *a) {
  /* after '(' : a  |  a!  |  a -> *  |  a -> b */
  ws(p);
  char c = p->s[p->pos];
  if (!(c >= 'a' && c <= 'z')) return perr(p, "an alias set letter (a..z)");
  a->alias_set = c - 'a';
  a->flags |= TABI_ARG_ALIAS;
  while (isalnum((unsigned char)p->s[p->pos])) p->pos++;
  if (accept(p, '!')) a->flags |= TABI_ARG_MUTABLE;
  if (peek(p, '-')) {
    p->pos++;
    if (p->s[p->pos] != '>') return perr(p, "'->' in an alias annotation");
    p->pos++;
    ws(p);
    if (p->s[p->pos] == '*') {
      p->pos++;
    } else if (p->s[p->pos] >= 'a' && p->s[p->pos] <= 'z') {
      while (isalnum((unsigned char)p->s[p->pos])) p->pos++;
    } else {
      return perr(p, "'*' or an alias set after '->'");
    }
  }
  return expect(p, ')', "')' closing the alias annotation");
}

static tabi_status parse_type(parser *p, tabi_arg_info *a) {
  a->alias_set = -1;
  a->fixed_len = 0;
  a->flags = 0;
  size_t start = p->pos;
  char *base = ident(p, "a type (Tensor, int, float, bool, Scalar, ...)");
  if (!base) return p->st;
  int32_t t;
  if (ident_is(base, "Tensor")) t = TABI_TYPE_TENSOR;
  else if (ident_is(base, "int") || ident_is(base, "SymInt")) t = TABI_TYPE_INT;
  else if (ident_is(base, "float")) t = TABI_TYPE_FLOAT;
  else if (ident_is(base, "bool")) t = TABI_TYPE_BOOL;
  else if (ident_is(base, "Scalar")) t = TABI_TYPE_SCALAR;
  else if (ident_is(base, "ScalarType")) t = TABI_TYPE_SCALAR_TYPE;
  else if (ident_is(base, "Device")) t = TABI_TYPE_DEVICE;
  else if (ident_is(base, "str")) t = TABI_TYPE_STRING;
  else if (ident_is(base, "Layout")) t = TABI_TYPE_LAYOUT;
  else if (ident_is(base, "MemoryFormat")) t = TABI_TYPE_MEMORY_FORMAT;
  else {
    p->pos = start;
    ws(p);
    return perr(p, "a known type (Tensor, int, SymInt, float, bool, Scalar, ScalarType, "
                   "Device, str, Layout, MemoryFormat)");
  }
  /* `Tensor?[]`: a '?' followed by '[' makes the elements optional. */
  ws(p);
  if (p->s[p->pos] == '?') {
    size_t save = p->pos;
    p->pos++;
    if (peek(p, '[')) {
      if (t != TABI_TYPE_TENSOR) return perr(p, "'[' only after Tensor? (Tensor?[])");
      a->flags |= TABI_ARG_ELEM_OPTIONAL;
    } else {
      p->pos = save;
    }
  }
  if (accept(p, '(')) {
    if (parse_annotation(p, a)) return p->st;
  }
  if (accept(p, '[')) {
    ws(p);
    if (isdigit((unsigned char)p->s[p->pos])) {
      long n = 0;
      while (isdigit((unsigned char)p->s[p->pos]) && n < 100000) n = n * 10 + (p->s[p->pos++] - '0');
      if (n <= 0 || n > MAX_LIST_DEFAULT) return perr(p, "a list size between 1 and 64");
      a->fixed_len = (int32_t)n;
    }
    if (expect(p, ']', "']' closing the list type")) return p->st;
    switch (t) {
      case TABI_TYPE_TENSOR: t = TABI_TYPE_TENSOR_LIST; break;
      case TABI_TYPE_INT: t = TABI_TYPE_INT_LIST; break;
      case TABI_TYPE_FLOAT: t = TABI_TYPE_FLOAT_LIST; break;
      case TABI_TYPE_BOOL: t = TABI_TYPE_BOOL_LIST; break;
      default:
        p->pos = start;
        ws(p);
        return perr(p, "a list of Tensor, int, SymInt, float or bool");
    }
    if (accept(p, '(')) {
      if (a->flags & TABI_ARG_ALIAS) return perr(p, "one alias annotation per type");
      if (parse_annotation(p, a)) return p->st;
    }
  }
  if (accept(p, '?')) a->flags |= TABI_ARG_OPTIONAL;
  if ((a->flags & TABI_ARG_ALIAS) && t != TABI_TYPE_TENSOR && t != TABI_TYPE_TENSOR_LIST)
    return perr(p, "alias annotations only on Tensor types");
  a->type = t;
  return TABI_OK;
}

/* ---- defaults ------------------------------------------------------------ */

typedef struct literal {
  int kind; /* 0 none, 1 bool, 2 int, 3 float, 4 string, 5 ident */
  int64_t i;
  double f;
  const char *str;
  size_t len;
} literal;

static tabi_status parse_literal(parser *p, literal *out, const char *what) {
  ws(p);
  const char *s = p->s + p->pos;
  memset(out, 0, sizeof *out);
  if (*s == '"' || *s == '\'') {
    char q = *s;
    size_t n = 1;
    while (s[n] && s[n] != q) n++;
    if (s[n] != q) return perr(p, "a closing quote");
    out->kind = 4;
    out->str = s + 1;
    out->len = n - 1;
    p->pos += n + 1;
    return TABI_OK;
  }
  if (isdigit((unsigned char)*s) || *s == '-' || *s == '+' || *s == '.') {
    size_t n = 0;
    int is_float = 0;
    if (s[n] == '-' || s[n] == '+') n++;
    if (!isdigit((unsigned char)s[n]) && s[n] != '.') return perr(p, what);
    while (isdigit((unsigned char)s[n])) n++;
    if (s[n] == '.') { is_float = 1; n++; while (isdigit((unsigned char)s[n])) n++; }
    if (s[n] == 'e' || s[n] == 'E') {
      is_float = 1;
      n++;
      if (s[n] == '-' || s[n] == '+') n++;
      if (!isdigit((unsigned char)s[n])) { p->pos += n; return perr(p, "digits of an exponent"); }
      while (isdigit((unsigned char)s[n])) n++;
    }
    char buf[64];
    if (n >= sizeof buf) return perr(p, "a shorter number");
    memcpy(buf, s, n);
    buf[n] = 0;
    errno = 0;
    if (is_float) {
      out->kind = 3;
      out->f = strtod(buf, NULL);
    } else {
      out->kind = 2;
      out->i = strtoll(buf, NULL, 10);
      out->f = (double)out->i;
    }
    if (errno == ERANGE) return perr(p, "a number in range");
    p->pos += n;
    return TABI_OK;
  }
  if (isalpha((unsigned char)*s) || *s == '_') {
    size_t save = p->pos;
    char *id = ident(p, what);
    if (!id) return p->st;
    if (ident_is(id, "None")) out->kind = 0;
    else if (ident_is(id, "True")) { out->kind = 1; out->i = 1; }
    else if (ident_is(id, "False")) { out->kind = 1; out->i = 0; }
    else if (ident_is(id, "inf")) { out->kind = 3; out->f = 1.0 / 0.0; }
    else if (ident_is(id, "nan")) { out->kind = 3; out->f = 0.0 / 0.0; }
    else { out->kind = 5; out->str = p->s + save; out->len = strlen(id); }
    (void)save;
    out->str = out->kind == 5 ? id : out->str;
    return TABI_OK;
  }
  return perr(p, what);
}

/* Names ATen writes for enum-valued int defaults. */
static int enum_ident(const char *id, int64_t *out) {
  static const struct { const char *n; int64_t v; } tab[] = {
      {"contiguous_format", 0}, {"preserve_format", 1}, {"channels_last", 2},
      {"channels_last_3d", 3},  {"strided", 0},         {"Mean", 1},
      {"Sum", 2},               {"long", TABI_DTYPE_INT64}, {"float", TABI_DTYPE_FLOAT32}};
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
    if (strcmp(id, tab[i].n) == 0) { *out = tab[i].v; return 1; }
  return 0;
}

static tabi_status scalar_default(parser *p, const tabi_arg_info *a, const literal *l,
                                  tabi_value *v) {
  int32_t t = a->type;
  if (l->kind == 0) {
    if (!(a->flags & TABI_ARG_OPTIONAL)) return perr(p, "a non-None default (the type is not optional)");
    *v = tabi_none();
    return TABI_OK;
  }
  switch (t) {
    case TABI_TYPE_INT: case TABI_TYPE_LAYOUT: case TABI_TYPE_MEMORY_FORMAT: {
      int64_t e;
      if (l->kind == 2) { *v = tabi_int(l->i); return TABI_OK; }
      if (l->kind == 5 && enum_ident(l->str, &e)) { *v = tabi_int(e); return TABI_OK; }
      return perr(p, "an integer default");
    }
    case TABI_TYPE_FLOAT:
      if (l->kind == 2 || l->kind == 3) { *v = tabi_float(l->f); return TABI_OK; }
      return perr(p, "a float default");
    case TABI_TYPE_BOOL:
      if (l->kind == 1) { *v = tabi_bool((int)l->i); return TABI_OK; }
      return perr(p, "True or False");
    case TABI_TYPE_SCALAR:
      if (l->kind == 1) { *v = tabi_bool((int)l->i); return TABI_OK; }
      if (l->kind == 2) { *v = tabi_int(l->i); return TABI_OK; }
      if (l->kind == 3) { *v = tabi_float(l->f); return TABI_OK; }
      return perr(p, "a number or True/False");
    case TABI_TYPE_SCALAR_TYPE: {
      int64_t e = -1;
      if (l->kind == 2) e = l->i;
      else if (l->kind == 5) enum_ident(l->str, &e);
      if (e < 0 || e > 64 || tabi_dtype_size((tabi_dtype)e) == 0)
        return perr(p, "a ScalarType number (e.g. 4 for int64)");
      *v = tabi_dtype_value((tabi_dtype)e);
      return TABI_OK;
    }
    case TABI_TYPE_STRING: {
      if (l->kind != 4) return perr(p, "a quoted string");
      char *s = tabi_arena_alloc(p->arena, l->len + 1);
      if (!s) return p->st = tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "schema parser: out of memory");
      memcpy(s, l->str, l->len);
      *v = tabi_string(s, (int64_t)l->len);
      return TABI_OK;
    }
    case TABI_TYPE_DEVICE:
      if (l->kind == 4 && l->len == 3 && memcmp(l->str, "cpu", 3) == 0) {
        DLDevice d = {kDLCPU, 0};
        *v = tabi_device_value(d);
        return TABI_OK;
      }
      return perr(p, "None or \"cpu\" as a Device default");
    default:
      return perr(p, "None (Tensor defaults can only be None)");
  }
}

static tabi_status list_default(parser *p, const tabi_arg_info *a, tabi_value *v) {
  int32_t t = a->type;
  int64_t ibuf[MAX_LIST_DEFAULT];
  double fbuf[MAX_LIST_DEFAULT];
  int64_t n = 0;
  literal l;
  if (accept(p, '[')) {
    if (!accept(p, ']')) {
      do {
        if (n == MAX_LIST_DEFAULT) return perr(p, "at most 64 list elements");
        if (parse_literal(p, &l, "a list element")) return p->st;
        if (t == TABI_TYPE_INT_LIST && l.kind == 2) ibuf[n] = l.i;
        else if (t == TABI_TYPE_FLOAT_LIST && (l.kind == 2 || l.kind == 3)) fbuf[n] = l.f;
        else if (t == TABI_TYPE_BOOL_LIST && l.kind == 1) ibuf[n] = l.i;
        else return perr(p, t == TABI_TYPE_BOOL_LIST ? "True or False" :
                            t == TABI_TYPE_FLOAT_LIST ? "a number" : "an integer");
        n++;
      } while (accept(p, ','));
      if (expect(p, ']', "',' or ']' in a list default")) return p->st;
    }
  } else {
    if (parse_literal(p, &l, "a list default")) return p->st;
    if (l.kind == 0) {
      if (!(a->flags & TABI_ARG_OPTIONAL)) return perr(p, "a list default (the type is not optional)");
      *v = tabi_none();
      return TABI_OK;
    }
    /* A bare value for a list: `int[2] padding=0` means [0, 0]. */
    int64_t reps = a->fixed_len > 0 ? a->fixed_len : 1;
    for (int64_t i = 0; i < reps; i++) {
      if (t == TABI_TYPE_INT_LIST && l.kind == 2) ibuf[i] = l.i;
      else if (t == TABI_TYPE_FLOAT_LIST && (l.kind == 2 || l.kind == 3)) fbuf[i] = l.f;
      else if (t == TABI_TYPE_BOOL_LIST && l.kind == 1) ibuf[i] = l.i;
      else return perr(p, "a list default of the element type");
    }
    n = reps;
  }
  if (t == TABI_TYPE_TENSOR_LIST) {
    if (n != 0) return perr(p, "[] or None as a Tensor list default");
    *v = tabi_tensor_list((tabi_tensor *const *)(const void *)empty_list_storage, 0);
    return TABI_OK;
  }
  if (n == 0) {
    *v = t == TABI_TYPE_FLOAT_LIST ? tabi_float_list((const double *)(const void *)empty_list_storage, 0)
                                   : tabi_int_list(empty_list_storage, 0);
    if (t == TABI_TYPE_BOOL_LIST) v->tag = TABI_TAG_BOOL_LIST;
    return TABI_OK;
  }
  void *data = tabi_arena_alloc(p->arena, (size_t)n * 8);
  if (!data) return p->st = tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "schema parser: out of memory");
  if (t == TABI_TYPE_FLOAT_LIST) {
    memcpy(data, fbuf, (size_t)n * 8);
    *v = tabi_float_list(data, n);
  } else {
    memcpy(data, ibuf, (size_t)n * 8);
    *v = tabi_int_list(data, n);
    if (t == TABI_TYPE_BOOL_LIST) v->tag = TABI_TAG_BOOL_LIST;
  }
  return TABI_OK;
}

static int is_list_type(int32_t t) {
  return t == TABI_TYPE_INT_LIST || t == TABI_TYPE_FLOAT_LIST || t == TABI_TYPE_BOOL_LIST ||
         t == TABI_TYPE_TENSOR_LIST;
}

static tabi_status parse_default(parser *p, tabi_arg_info *a) {
  tabi_value v = tabi_none();
  if (is_list_type(a->type)) {
    if (list_default(p, a, &v)) return p->st;
  } else {
    literal l;
    if (parse_literal(p, &l, "a default value")) return p->st;
    if (scalar_default(p, a, &l, &v)) return p->st;
  }
  a->default_value = v;
  a->flags |= TABI_ARG_HAS_DEFAULT;
  return TABI_OK;
}

/* ---- the schema ------------------------------------------------------------ */

static tabi_arg_info *copy_infos(parser *p, const tabi_arg_info *src, int32_t n) {
  tabi_arg_info *dst = tabi_arena_alloc(p->arena, sizeof(tabi_arg_info) * (size_t)(n ? n : 1));
  if (!dst) {
    p->st = tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "schema parser: out of memory");
    return NULL;
  }
  if (n) memcpy(dst, src, sizeof(tabi_arg_info) * (size_t)n);
  return dst;
}

static tabi_status parse_returns(parser *p, tabi_arg_info *rets, int32_t *out_n) {
  int32_t n = 0;
  if (accept(p, '(')) {
    if (!accept(p, ')')) {
      do {
        if (n == MAX_ARGS) return perr(p, "at most 64 returns");
        tabi_arg_info *r = &rets[n];
        memset(r, 0, sizeof *r);
        if (parse_type(p, r)) return p->st;
        ws(p);
        if (isalpha((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_') {
          r->name = ident(p, "a return name");
          if (!r->name) return p->st;
        } else {
          r->name = "";
        }
        n++;
      } while (accept(p, ','));
      if (expect(p, ')', "',' or ')' in the returns")) return p->st;
    }
  } else {
    tabi_arg_info *r = &rets[0];
    memset(r, 0, sizeof *r);
    if (parse_type(p, r)) return p->st;
    ws(p);
    if (isalpha((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_') {
      r->name = ident(p, "a return name");
      if (!r->name) return p->st;
    } else {
      r->name = "";
    }
    n = 1;
  }
  *out_n = n;
  return TABI_OK;
}

static tabi_status parse_all(parser *p, op_entry *e) {
  tabi_arg_info args[MAX_ARGS], rets[MAX_ARGS];
  int32_t nargs = 0, nrets = 0;
  size_t name_start;
  ws(p);
  name_start = p->pos;
  if (!ident(p, "a namespace (e.g. aten)")) return p->st;
  if (p->s[p->pos] != ':' || p->s[p->pos + 1] != ':') return perr(p, "'::' after the namespace");
  p->pos += 2;
  if (!ident(p, "an operator name")) return p->st;
  if (p->s[p->pos] == '.') {
    p->pos++;
    if (!ident(p, "an overload name after '.'")) return p->st;
  }
  size_t name_len = p->pos - name_start;
  if (expect(p, '(', "'(' starting the arguments")) return p->st;
  int kwonly = 0;
  if (!accept(p, ')')) {
    do {
      if (accept(p, '*')) {
        if (kwonly) return perr(p, "one '*' per schema");
        kwonly = 1;
        continue;
      }
      if (nargs == MAX_ARGS) return perr(p, "at most 64 arguments");
      tabi_arg_info *a = &args[nargs];
      memset(a, 0, sizeof *a);
      if (parse_type(p, a)) return p->st;
      a->name = ident(p, "an argument name");
      if (!a->name) return p->st;
      if (kwonly) a->flags |= TABI_ARG_KWARG_ONLY;
      if (accept(p, '=')) {
        if (parse_default(p, a)) return p->st;
      }
      nargs++;
    } while (accept(p, ','));
    if (expect(p, ')', "',' or ')' after an argument")) return p->st;
  }
  ws(p);
  if (p->s[p->pos] != '-' || p->s[p->pos + 1] != '>') return perr(p, "'->' before the returns");
  p->pos += 2;
  if (parse_returns(p, rets, &nrets)) return p->st;
  ws(p);
  if (p->s[p->pos] != 0) return perr(p, "the end of the schema");

  char *name = tabi_arena_alloc(p->arena, name_len + 1);
  char *text = tabi_arena_alloc(p->arena, strlen(p->s) + 1);
  if (!name || !text) return p->st = tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "schema parser: out of memory");
  memcpy(name, p->s + name_start, name_len);
  strcpy(text, p->s);
  tabi_arg_info *a = copy_infos(p, args, nargs);
  tabi_arg_info *r = a ? copy_infos(p, rets, nrets) : NULL;
  if (!r) return p->st;

  memset(&e->info, 0, sizeof e->info);
  e->info.struct_size = sizeof(tabi_op_info);
  e->info.arg_info_size = sizeof(tabi_arg_info);
  e->info.name = name;
  e->info.schema = text;
  e->info.nargs = nargs;
  e->info.nreturns = nrets;
  e->info.args = a;
  e->info.returns = r;
  e->info.returns_list = nrets == 1 && r[0].type == TABI_TYPE_TENSOR_LIST;
  e->device_arg = -1;
  e->has_mutable = 0;
  e->alias_only = strcmp(name, "prims::as_strided") == 0;
  e->masked_returns = 0;
  for (int32_t i = 0; i < nargs; i++) {
    if (a[i].type == TABI_TYPE_DEVICE && e->device_arg < 0) e->device_arg = i;
    if (a[i].flags & TABI_ARG_MUTABLE) e->has_mutable = 1;
    if (a[i].type == TABI_TYPE_BOOL_LIST && !strcmp(a[i].name, "output_mask")) e->masked_returns = 1;
  }
  return TABI_OK;
}

tabi_status tabi_schema_parse(const char *text, op_entry *e) {
  e->arena = NULL;
  if (!text) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "schema: NULL text");
  parser p = {text, 0, tabi_arena_create(), TABI_OK};
  if (!p.arena) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "schema parser: out of memory");
  if (parse_all(&p, e) != TABI_OK) {
    tabi_arena_destroy(p.arena);
    return p.st;
  }
  e->arena = p.arena;
  return TABI_OK;
}
