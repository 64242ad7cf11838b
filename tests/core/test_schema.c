/* test_schema.c: the ATen schema parser, compiled in directly (it is internal to
 * libtabi). Every spec schema parses, parsed details are right, and malformed
 * schemas fail with TABI_ERR_PARSE, the column and what was expected. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "schema.h"

static op_entry e;

static int parse(const char *s) {
  tabi_arena_destroy(e.arena);
  memset(&e, 0, sizeof e);
  return tabi_schema_parse(s, &e) == TABI_OK;
}

static const tabi_arg_info *arg(int i) { return &e.info.args[i]; }

static int parse_file(const char *path, int *count) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char line[2048];
  int ok = 1;
  while (fgets(line, sizeof line, f)) {
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ')) line[--n] = 0;
    if (!n || line[0] == '#') continue;
    (*count)++;
    if (!parse(line)) {
      ok = 0;
      fprintf(stderr, "does not parse: %s\n  %s\n", line, tabi_last_error());
      continue;
    }
    /* The name is the text before '(' and the schema text is kept verbatim. */
    CHECK(strncmp(line, e.info.name, strlen(e.info.name)) == 0 && line[strlen(e.info.name)] == '(');
    CHECK(strcmp(e.info.schema, line) == 0 && e.info.nreturns >= 0);
  }
  fclose(f);
  return ok;
}

static void fails(const char *s, const char *needle) {
  CHECK_MSG(!parse(s), "parsed but should not: %s", s);
  CHECK_MSG(strstr(tabi_last_error(), needle) != NULL, "\"%s\" lacks \"%s\"", tabi_last_error(), needle);
  CHECK(strstr(tabi_last_error(), "column") != NULL);
}

int main(void) {
  int n_aten = 0, n_prims = 0;
  CHECK(parse_file(TCORE_ATEN_SCHEMA, &n_aten));
  CHECK(parse_file(TCORE_PRIMS_SCHEMA, &n_prims));
  CHECK_MSG(n_aten == 188 && n_prims == 112, "%d aten, %d prims", n_aten, n_prims);

  CHECK(parse("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"));
  CHECK(strcmp(e.info.name, "aten::add.Tensor") == 0 && e.info.nargs == 3 && e.info.nreturns == 1);
  CHECK(arg(2)->type == TABI_TYPE_SCALAR && (arg(2)->flags & TABI_ARG_KWARG_ONLY) &&
        (arg(2)->flags & TABI_ARG_HAS_DEFAULT) && arg(2)->default_value.tag == TABI_TAG_INT &&
        arg(2)->default_value.u.i == 1);
  CHECK(!(arg(1)->flags & TABI_ARG_KWARG_ONLY) && arg(0)->alias_set == -1);

  CHECK(parse("aten::avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
              "bool ceil_mode=False, int? divisor_override=None) -> Tensor"));
  CHECK(arg(1)->type == TABI_TYPE_INT_LIST && arg(1)->fixed_len == 2);
  CHECK(arg(2)->default_value.tag == TABI_TAG_INT_LIST && arg(2)->default_value.u.list.len == 0);
  CHECK(arg(3)->default_value.u.list.len == 2 && tabi_value_ints(&arg(3)->default_value)[1] == 0);
  CHECK(arg(4)->default_value.tag == TABI_TAG_BOOL && arg(4)->default_value.u.i == 0);
  CHECK((arg(5)->flags & TABI_ARG_OPTIONAL) && arg(5)->default_value.tag == TABI_TAG_NONE);

  CHECK(parse("x::f(Tensor a, float p=2., float eps=1e-5, float m=-0.5, int k=-1, int[] d=[1, -2], "
              "bool[3] mask=[True, False, True], str s=\"none\", ScalarType? dtype=4, "
              "float[]? sc=None, Scalar v=0.01, MemoryFormat mf=contiguous_format) -> Tensor"));
  CHECK(arg(1)->default_value.tag == TABI_TAG_FLOAT && arg(1)->default_value.u.f == 2.0);
  CHECK(arg(2)->default_value.u.f == 1e-5 && arg(3)->default_value.u.f == -0.5);
  CHECK(arg(4)->default_value.tag == TABI_TAG_INT && arg(4)->default_value.u.i == -1);
  CHECK(tabi_value_ints(&arg(5)->default_value)[1] == -2);
  CHECK(arg(6)->type == TABI_TYPE_BOOL_LIST && arg(6)->default_value.tag == TABI_TAG_BOOL_LIST &&
        tabi_value_ints(&arg(6)->default_value)[2] == 1);
  CHECK(arg(7)->default_value.tag == TABI_TAG_STRING && arg(7)->default_value.u.list.len == 4);
  CHECK(arg(8)->default_value.tag == TABI_TAG_DTYPE && arg(8)->default_value.u.dtype == TABI_DTYPE_INT64);
  CHECK(arg(9)->type == TABI_TYPE_FLOAT_LIST && (arg(9)->flags & TABI_ARG_OPTIONAL));
  CHECK(arg(10)->default_value.tag == TABI_TAG_FLOAT && arg(10)->default_value.u.f == 0.01);
  CHECK(arg(11)->type == TABI_TYPE_MEMORY_FORMAT && arg(11)->default_value.u.i == 0);

  CHECK(parse("aten::split_with_sizes(Tensor(a -> *) self, int[] split_sizes, int dim=0) -> Tensor(a)[]"));
  CHECK(arg(0)->alias_set == 0 && (arg(0)->flags & TABI_ARG_ALIAS) && !(arg(0)->flags & TABI_ARG_MUTABLE));
  CHECK(e.info.returns_list == 1 && e.info.returns[0].type == TABI_TYPE_TENSOR_LIST &&
        e.info.returns[0].alias_set == 0);
  CHECK(parse("aten::_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor(a!) running_mean, "
              "Tensor(b!) running_var) -> (Tensor, Tensor, Tensor)"));
  CHECK((arg(2)->flags & TABI_ARG_MUTABLE) && arg(3)->alias_set == 1 && e.has_mutable);
  CHECK((arg(1)->flags & TABI_ARG_OPTIONAL) && e.info.nreturns == 3 && e.info.returns_list == 0);
  CHECK(parse("aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"));
  CHECK(strcmp(e.info.returns[1].name, "indices") == 0);
  CHECK(parse("aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor"));
  CHECK(arg(1)->type == TABI_TYPE_TENSOR_LIST && (arg(1)->flags & TABI_ARG_ELEM_OPTIONAL) &&
        !(arg(1)->flags & TABI_ARG_OPTIONAL));
  CHECK(parse("aten::_local_scalar_dense(Tensor self) -> Scalar"));
  CHECK(e.info.returns[0].type == TABI_TYPE_SCALAR);
  CHECK(parse("aten::_foreach(Tensor[] a, Tensor(a!)[] out) -> ()"));
  CHECK(e.info.nreturns == 0 && (arg(1)->flags & TABI_ARG_MUTABLE));
  CHECK(parse("aten::full(SymInt[] size, Scalar fill_value, *, Device? device=None) -> Tensor"));
  CHECK(e.device_arg == 2 && arg(0)->type == TABI_TYPE_INT_LIST);
  CHECK(parse("  myvendor::fused_rope ( Tensor  q , *, int  n = 2 )  ->  Tensor  "));
  CHECK(strcmp(e.info.name, "myvendor::fused_rope") == 0 && arg(1)->default_value.u.i == 2);
  CHECK(parse("ns::noargs() -> Tensor") && e.info.nargs == 0);

  fails("aten::add.Tensor(Tensor self, Tensor other", "expected ',' or ')'");
  fails("aten::add(Tensor self) Tensor", "expected '->'");
  fails("add(Tensor self) -> Tensor", "'::'");
  fails("aten::add(Tensr self) -> Tensor", "a known type");
  fails("aten::add(Tensor self, int x=1.5) -> Tensor", "an integer default");
  fails("aten::add(Tensor self, int x=None) -> Tensor", "not optional");
  fails("aten::add(Tensor self, bool b=1) -> Tensor", "True or False");
  fails("aten::add(Tensor self, int[2 k) -> Tensor", "']'");
  fails("aten::add(Tensor self, Scalar[] s) -> Tensor", "a list of");
  fails("aten::add(Tensor(A) self) -> Tensor", "alias set letter");
  fails("aten::add(int(a) x) -> Tensor", "only on Tensor");
  fails("aten::add(Tensor self, str s=\"none) -> Tensor", "closing quote");
  fails("aten::add(Tensor self) -> Tensor name extra", "end of the schema");
  fails("aten::add(Tensor self, ScalarType t=99) -> Tensor", "ScalarType");
  fails("aten::add(Tensor self, float f=1e) -> Tensor", "exponent");
  fails("aten::add(Tensor self, *, *, int x) -> Tensor", "one '*'");
  fails("", "namespace");
  CHECK(!parse("aten::add(Tensor self, int[2 k) -> Tensor"));
  CHECK(strstr(tabi_last_error(), "column 30") != NULL);
  tabi_arena_destroy(e.arena);
  return check_report();
}
