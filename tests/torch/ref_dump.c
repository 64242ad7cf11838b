/* tests/torch/ref_dump.c: runs the reference plugin on every conformance sample
 * and writes what it did, one JSON object per line, for compare.py (torch) and
 * gen_ops_doc.py (docs/ops.md).
 *
 *   ref_dump OUT.jsonl REFERENCE_PLUGIN [--ops GLOB] [--seed S]
 *            [--decomp DECOMP_PLUGIN PRIMS_ONLY_PLUGIN]
 *
 * With --decomp, first writes one line per op {"op", "decomp": "native" |
 * "decomposed" | "missing"}: how a runtime holding only the prims-only reference
 * and the decomposition plugin serves the op on the CPU (docs/ops.md's
 * "decomposition" column).
 *
 * A line: {"op", "dtype", "sample", "flags", "rtol", "atol", "args": [...],
 *          "status": "TABI_OK" | status name, "error": message, "outs": [...]}
 * Tensors (args and outs): {"t": "tensor", "dtype", "shape", "strides", "offset"
 * (elements), "data": hex of the whole storage (args; little-endian) or of the
 * row-major elements (outs)}. Other values: {"t": "int"|"float"|"bool"|"complex"
 * |"none"|"dtype"|"device"|"str"|"ints"|"floats"|"bools"|"tensors", "v": ...}.
 * Arguments are written before the call (mutable ones change). Floats that JSON
 * cannot spell are written as NaN / Infinity / -Infinity (Python's json reads them).
 * Exit status: 0 unless the runtime or the plugin could not be set up.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tabi/runtime.h>

#include "sample.h"

static void put_double(FILE *f, double v) {
  if (v != v) fputs("NaN", f);
  else if (isinf(v)) fputs(v > 0 ? "Infinity" : "-Infinity", f);
  else {
    /* always with a '.' or an exponent, so a reader keeps it a float (-1.0, not -1) */
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    fputs(buf, f);
    if (!strpbrk(buf, ".e")) fputs(".0", f);
  }
}

static void put_str(FILE *f, const char *s, int64_t len) {
  fputc('"', f);
  for (int64_t i = 0; len < 0 ? s[i] != 0 : i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20 || c >= 0x7f) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

static void put_hex(FILE *f, const unsigned char *p, uint64_t n) {
  static const char hx[] = "0123456789abcdef";
  fputc('"', f);
  for (uint64_t i = 0; i < n; i++) { fputc(hx[p[i] >> 4], f); fputc(hx[p[i] & 15], f); }
  fputc('"', f);
}

static void put_ints(FILE *f, int32_t n, const int64_t *v) {
  fputc('[', f);
  for (int32_t i = 0; i < n; i++) fprintf(f, "%s%" PRId64, i ? "," : "", v[i]);
  fputc(']', f);
}

/* as_arg: the whole storage with strides and offset; else the values row-major. */
static void put_tensor(FILE *f, tabi_runtime *rt, const tabi_tensor *t, int as_arg) {
  tabi_dtype dt = tabi_tensor_dtype(t);
  int64_t es = tabi_dtype_size(dt);
  fprintf(f, "{\"t\":\"tensor\",\"dtype\":\"%s\",\"shape\":", tabi_dtype_name(dt));
  put_ints(f, t->dl.ndim, t->dl.shape);
  fputs(",\"strides\":", f);
  put_ints(f, t->dl.ndim, t->dl.strides);
  if (as_arg) {
    uint64_t nbytes = tabi_tensor_storage_nbytes(t);
    fprintf(f, ",\"offset\":%" PRId64 ",\"data\":", es ? (int64_t)t->dl.byte_offset / es : 0);
    put_hex(f, (const unsigned char *)t->dl.data, nbytes);
  } else {
    uint64_t nbytes = (uint64_t)(tabi_tensor_numel(t) * es);
    unsigned char *buf = malloc(nbytes ? nbytes : 1);
    fputs(",\"offset\":0,\"data\":", f);
    if (buf && tabi_tensor_to_host(rt, t, buf, nbytes) == TABI_OK) put_hex(f, buf, nbytes);
    else fputs("null", f);
    free(buf);
  }
  fputc('}', f);
}

static void put_value(FILE *f, tabi_runtime *rt, const tabi_value *v, int as_arg) {
  switch (v->tag) {
    case TABI_TAG_NONE: fputs("{\"t\":\"none\"}", f); break;
    case TABI_TAG_DEFAULT: fputs("{\"t\":\"default\"}", f); break;
    case TABI_TAG_BOOL: fprintf(f, "{\"t\":\"bool\",\"v\":%s}", v->u.i ? "true" : "false"); break;
    case TABI_TAG_INT: fprintf(f, "{\"t\":\"int\",\"v\":%" PRId64 "}", v->u.i); break;
    case TABI_TAG_FLOAT: fputs("{\"t\":\"float\",\"v\":", f); put_double(f, v->u.f); fputc('}', f); break;
    case TABI_TAG_COMPLEX:
      fputs("{\"t\":\"complex\",\"v\":[", f); put_double(f, v->u.c[0]); fputc(',', f);
      put_double(f, v->u.c[1]); fputs("]}", f);
      break;
    case TABI_TAG_TENSOR: put_tensor(f, rt, v->u.t, as_arg); break;
    case TABI_TAG_DTYPE: fprintf(f, "{\"t\":\"dtype\",\"v\":\"%s\"}", tabi_dtype_name(v->u.dtype)); break;
    case TABI_TAG_DEVICE: fprintf(f, "{\"t\":\"device\",\"v\":[%d,%d]}", (int)v->u.device.device_type, (int)v->u.device.device_id); break;
    case TABI_TAG_STRING: fputs("{\"t\":\"str\",\"v\":", f); put_str(f, tabi_value_str(v), v->u.list.len); fputc('}', f); break;
    case TABI_TAG_INT_LIST: case TABI_TAG_BOOL_LIST:
      fprintf(f, "{\"t\":\"%s\",\"v\":", v->tag == TABI_TAG_INT_LIST ? "ints" : "bools");
      put_ints(f, (int32_t)v->u.list.len, tabi_value_ints(v));
      fputc('}', f);
      break;
    case TABI_TAG_FLOAT_LIST:
      fputs("{\"t\":\"floats\",\"v\":[", f);
      for (int64_t i = 0; i < v->u.list.len; i++) { if (i) fputc(',', f); put_double(f, tabi_value_floats(v)[i]); }
      fputs("]}", f);
      break;
    case TABI_TAG_TENSOR_LIST:
      fputs("{\"t\":\"tensors\",\"v\":[", f);
      for (int64_t i = 0; i < v->u.list.len; i++) {
        if (i) fputc(',', f);
        tabi_tensor *t = tabi_value_tensors(v)[i];
        if (t) put_tensor(f, rt, t, as_arg); else fputs("{\"t\":\"none\"}", f);
      }
      fputs("]}", f);
      break;
    default: fprintf(f, "{\"t\":\"unknown\",\"tag\":%d}", (int)v->tag); break;
  }
}

/* One line per op: how prims-only reference + decompositions serve it. */
static int probe_decomp(FILE *f, const char *decomp, const char *prims) {
  tabi_runtime *rt = NULL;
  if (tabi_runtime_create(NULL, &rt) != TABI_OK || tabi_runtime_load_plugin(rt, prims, NULL) != TABI_OK ||
      tabi_runtime_load_plugin(rt, decomp, NULL) != TABI_OK) {
    fprintf(stderr, "ref_dump: --decomp: %s\n", tabi_last_error());
    tabi_runtime_destroy(rt);
    return 2;
  }
  int32_t nops = tabi_op_count(rt);
  for (tabi_op op = 0; op < nops; op++) {
    const tabi_op_info *info = tabi_op_get_info(rt, op);
    if (!info || (strncmp(info->name, "aten::", 6) != 0 && strncmp(info->name, "prims::", 7) != 0)) continue;
    int32_t s = tabi_op_backend_status(rt, op, kDLCPU);
    fprintf(f, "{\"op\":\"%s\",\"decomp\":\"%s\"}\n", info->name,
            s == TABI_IMPL_NATIVE ? "native" : s == TABI_IMPL_DECOMPOSED ? "decomposed" : "missing");
  }
  tabi_runtime_destroy(rt);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: ref_dump OUT.jsonl REFERENCE_PLUGIN [--ops GLOB] [--seed S]\n");
    return 2;
  }
  const char *ops_glob = NULL, *decomp = NULL, *prims = NULL;
  uint64_t seed = 0;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--ops") == 0) ops_glob = argv[i + 1];
    else if (strcmp(argv[i], "--seed") == 0) seed = strtoull(argv[i + 1], NULL, 0);
    else if (strcmp(argv[i], "--decomp") == 0 && i + 2 < argc) { decomp = argv[i + 1]; prims = argv[i + 2]; i++; }
  }
  FILE *f = fopen(argv[1], "w");
  if (!f) { perror(argv[1]); return 2; }
  if (decomp && probe_decomp(f, decomp, prims) != 0) { fclose(f); return 2; }
  tabi_runtime *rt = NULL;
  if (tabi_runtime_create(NULL, &rt) != TABI_OK ||
      tabi_runtime_load_plugin(rt, argv[2], NULL) != TABI_OK) {
    fprintf(stderr, "ref_dump: %s\n", tabi_last_error());
    fclose(f);
    tabi_runtime_destroy(rt);
    return 2;
  }
  clock_t t0 = clock();
  int64_t nsamples = 0, nok = 0, nunknown = 0;
  int32_t nops = tabi_op_count(rt);
  for (tabi_op op = 0; op < nops; op++) {
    const tabi_op_info *info = tabi_op_get_info(rt, op);
    if (!info || (strncmp(info->name, "aten::", 6) != 0 && strncmp(info->name, "prims::", 7) != 0)) continue;
    if (ops_glob && fnmatch(ops_glob, info->name, 0) != 0) continue;
    for (int d = 0; d < TABI_DTYPE_COUNT; d++) {
      tabi_dtype dt = tabi_all_dtypes[d];
      conform_sample_list list = {0};
      int32_t known = 0;
      tabi_status gst = conform_samples_generate(rt, info, dt, seed, &list, &known);
      if (!known) {
        if (d == 0) {
          fprintf(f, "{\"op\":\"%s\",\"dtype\":\"*\",\"sample\":null,\"status\":\"NO_GENERATOR\"}\n", info->name);
          nunknown++;
        }
        continue;
      }
      if (gst != TABI_OK)
        fprintf(stderr, "ref_dump: %s %s: generator failed: %s\n", info->name, tabi_dtype_name(dt),
                tabi_status_name(gst));
      for (int32_t s = 0; s < list.count; s++) {
        conform_sample *sm = &list.items[s];
        fprintf(f, "{\"op\":\"%s\",\"dtype\":\"%s\",\"index\":%d,\"sample\":", info->name, tabi_dtype_name(dt), s);
        put_str(f, sm->name, -1);
        fprintf(f, ",\"flags\":%u,\"rtol\":", sm->flags);
        put_double(f, sm->rtol);
        fputs(",\"atol\":", f);
        put_double(f, sm->atol);
        fputs(",\"args\":[", f);
        for (int32_t a = 0; a < sm->nargs; a++) {
          if (a) fputc(',', f);
          put_value(f, rt, &sm->args[a], 1);
        }
        fputc(']', f);
        tabi_value outs[8];
        int32_t nouts = info->nreturns > 0 ? info->nreturns : 1;
        if (nouts > 8) nouts = 8;
        for (int32_t o = 0; o < 8; o++) outs[o] = tabi_none();
        tabi_clear_error();
        if (sm->flags & CONFORM_RANDOM) tabi_runtime_manual_seed(rt, (DLDevice){kDLCPU, 0}, 1234);
        tabi_status st = tabi_call(rt, op, sm->args, sm->nargs, outs, nouts);
        fprintf(f, ",\"status\":\"%s\",\"error\":", tabi_status_name(st));
        put_str(f, st == TABI_OK ? "" : tabi_last_error(), -1);
        fputs(",\"outs\":[", f);
        if (st == TABI_OK) {
          for (int32_t o = 0; o < nouts; o++) {
            if (o) fputc(',', f);
            put_value(f, rt, &outs[o], 0);
          }
          nok++;
        }
        fputs("]}\n", f);
        for (int32_t o = 0; o < nouts; o++) tabi_value_release(&outs[o]);
        nsamples++;
      }
      conform_sample_list_clear(&list);
    }
  }
  fclose(f);
  tabi_runtime_destroy(rt);
  fprintf(stderr, "ref_dump: %" PRId64 " samples (%" PRId64 " ran OK), %" PRId64
                  " ops without a generator, %.1f s\n",
          nsamples, nok, nunknown, (double)(clock() - t0) / CLOCKS_PER_SEC);
  return 0;
}
