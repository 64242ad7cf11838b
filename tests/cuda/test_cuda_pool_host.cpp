/* tests/cuda/test_cuda_pool_host.cpp: the CUDA/ROCm pooling kernels
 * (plugins/cuda/tc_pool.cu) emulated on the host, without a GPU, against the
 * reference plugin; the pattern of test_cuda_padup_host.cpp.
 *
 * The kernels are grid-stride loops, one thread per element, calling the
 * element functions of plugins/cuda/tc_pool.cuh on the geometry of its
 * tcq_init; this test compiles the header as plain C++ and runs the same
 * functions over every index, on the same input bytes the reference gets
 * (random values with NaN, +-inf, -0.0, and coarse values for ties; int64 with
 * its extremes for the wrapping sums; contiguous, transposed and step-2
 * sliced inputs, gradients and indices; every dtype the reference takes), and
 * asks for the reference's bits (NaN where it has NaN) and indices exactly.
 * Max pooling's backward runs as the kernel does: the index check over every
 * grad_output element (its window-or-whole-plane choice and its first bad
 * index), then the gather; it is fed indices from the reference's forward (the
 * window path, asserted taken), random indices in the plane (the whole-plane
 * path) and out-of-plane ones (the reference's error, naming the first bad
 * index the emulated check kernel finds). The argument checks are the
 * reference's own (reference/ref_pool_check.c, run here under a stand-in host
 * table for the geometry, which must give the reference's output shapes).
 * argv[1]: libtabi_reference.so. */
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <tabi/runtime.h>

#include "check.h"
#include "host_case.h"
#include "ref_pool_check.h"
#include "tc_pool.cuh"

static long long checked_errors, window_paths, full_paths;
static int64_t big = 1; /* size multiplier: 1, then 4 for a round of larger cases */

static const tabi_dtype FLOATS[4] = {TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT32,
                                     TABI_DTYPE_FLOAT64};

/* n logical values: floats (specials mixed in; coarse: small integers, many
 * ties) or int64 (extremes mixed in). */
static std::vector<char> random_bytes(tabi_dtype dt, int64_t n, int coarse) {
  int esz = host_esz(dt);
  std::vector<char> b((size_t)(n * esz) + 1);
  for (int64_t i = 0; i < n; i++) {
    char *p = b.data() + i * esz;
    if (dt == TABI_DTYPE_INT64) {
      int64_t v = host_int_or_extreme(1000, 1);
      memcpy(p, &v, 8);
      continue;
    }
    double v = coarse ? (double)irand(-2, 2) : urand() * 4 - 2;
    tcp_st(p, dt, host_special_or(v, 40));
  }
  return b;
}

static tabi_value call_ref(const char *name, tabi_value *args, int nargs, int nouts, tabi_status *st) {
  tabi_op op;
  tabi_value out[2] = {tabi_none(), tabi_none()};
  CHECK_OK(tabi_op_find(ref, name, &op));
  *st = tabi_call(ref, op, args, nargs, out, nouts);
  tabi_value_release(&out[1]); /* max pooling's indices: not needed by the callers */
  return out[0];
}

/* host_tensor with the bytes before the mode: the calls draw their mode from
 * the random stream in the same argument (evaluation) order as ever. */
static tabi_tensor *make_tensor(tabi_dtype dt, int32_t nd, const int64_t *shape, const std::vector<char> &v,
                                int mode, tabi_tensor **base) {
  return host_tensor(dt, nd, shape, mode, v, base);
}

/* ours (n elements of dt) against the reference's output tensor. */
static void compare(const char *what, tabi_dtype dt, const std::vector<char> &ours, tabi_tensor *refout) {
  host_compare(what, dt, ours, numel_of(refout), refout);
}

/* The check the device kernel of `name` runs on args. */
static tabi_status run_check(const char *name, const tabi_value *a, ref_pool_dims *m) {
  tabi_call call = fake_call(name);
  int32_t ns = strstr(name, "1d") ? 1 : strstr(name, "3d") ? 3 : 2;
  if (strstr(name, "backward")) {
    if (strstr(name, "max_pool")) return ref_pool_max_bwd_check(&FAKE, &call, a, m);
    if (strstr(name, "adaptive")) return ref_pool_adaptive_bwd_check(&FAKE, &call, a, m);
    return ref_pool_avg_bwd_check(&FAKE, &call, a, m);
  }
  if (strstr(name, "max_pool")) return ref_pool_max_check(&FAKE, &call, a, ns, m);
  if (strstr(name, "adaptive")) return ref_pool_adaptive_check(&FAKE, &call, a, ns, m);
  return ref_pool_avg_check(&FAKE, &call, a, ns, m);
}

/* Valid arguments: the check passes and gives the reference's output shape
 * (`x` the tensor whose leading dims the output keeps). */
static int check_dims(const char *name, const tabi_value *a, const tabi_tensor *x, const tabi_tensor *refout,
                      ref_pool_dims *m) {
  tabi_status st = run_check(name, a, m);
  int same = st == TABI_OK && refout->dl.ndim == m->nlead + m->ns;
  for (int32_t d = 0; same && d < refout->dl.ndim; d++)
    same = refout->dl.shape[d] == (d < m->nlead ? x->dl.shape[d] : m->out[d - m->nlead]);
  CHECK_MSG(same, "%s: check status %d (%s), or output shape differs from the reference's", name, (int)st,
            fake_msg);
  return same;
}

/* --- random geometry ------------------------------------------------------------ */
typedef struct pcase {
  int32_t ns, nd;
  int64_t shape[5], k[3], s[3], p[3], d[3];
  int ceil, cip;
  int64_t dov; /* 0: None */
} pcase;

static void random_case(pcase *c, int32_t ns, int dilation) {
  memset(c, 0, sizeof *c);
  c->ns = ns;
  c->nd = ns + (int32_t)irand(1, 2);
  for (int32_t i = 0; i < c->nd - ns; i++) c->shape[i] = irand(1, 3);
  if (c->nd == ns + 2 && urand() < 0.06) c->shape[0] = 0; /* a batch of 0: empty outputs */
  for (int32_t i = 0; i < ns; i++) {
    int64_t in = irand(1, (ns == 3 ? 5 : 9) * big);
    c->shape[c->nd - ns + i] = in;
    c->k[i] = irand(1, in + 2 < 4 ? in + 2 : 4);
    c->s[i] = irand(1, 3);
    c->p[i] = irand(0, c->k[i] / 2);
    c->d[i] = dilation ? irand(1, 3) : 1;
  }
  c->ceil = urand() < 0.5;
  c->cip = urand() < 0.5;
  double u = urand();
  c->dov = u < 0.6 ? 0 : u < 0.8 ? irand(1, 7) : -irand(1, 3);
}

/* The windowed ops' argument list: self, k, s, p, [d,] ceil, [cip, [dov]]. */
static int window_args(const pcase *c, tabi_value *a, int max, int backward) {
  int n = 0;
  int64_t ns = c->ns;
  a[n++] = tabi_int_list(c->k, ns);
  a[n++] = urand() < 0.15 && !backward ? tabi_int_list(c->s, 0) : tabi_int_list(c->s, ns);
  a[n++] = tabi_int_list(c->p, ns);
  if (max) a[n++] = tabi_int_list(c->d, ns);
  a[n++] = tabi_bool(c->ceil);
  if (!max) {
    a[n++] = tabi_bool(c->cip);
    if (ns != 1) a[n++] = c->dov ? tabi_int(c->dov) : tabi_none();
  }
  return n;
}

static const char *max_name(int32_t ns) {
  return ns == 2 ? "aten::max_pool2d_with_indices" : "aten::max_pool3d_with_indices";
}
static const char *avg_name(int32_t ns) {
  return ns == 1 ? "aten::avg_pool1d" : ns == 2 ? "aten::avg_pool2d" : "aten::avg_pool3d";
}
static const char *adapt_name(int32_t ns) {
  return ns == 1 ? "aten::adaptive_avg_pool1d" : ns == 2 ? "aten::_adaptive_avg_pool2d" : "aten::_adaptive_avg_pool3d";
}

/* --- forward: max, avg, adaptive -------------------------------------------------- */

/* One forward case; with_bwd: also the 2-d backward on a gradient of the
 * output's shape (max: with the forward's indices, then random ones). */
static void max_case(int32_t ns, tabi_dtype dt, int mode) {
  pcase c;
  random_case(&c, ns, 1);
  int64_t n = 1;
  for (int32_t i = 0; i < c.nd; i++) n *= c.shape[i];
  tabi_tensor *base = NULL, *x = make_tensor(dt, c.nd, c.shape, random_bytes(dt, n, urand() < 0.5), mode, &base);
  if (!x) return;
  tabi_value a[8];
  a[0] = tabi_tensor_value(x);
  int na = 1 + window_args(&c, a + 1, 1, 0);
  tabi_op op;
  tabi_value out[2] = {tabi_none(), tabi_none()};
  CHECK_OK(tabi_op_find(ref, max_name(ns), &op));
  tabi_status st = tabi_call(ref, op, a, na, out, 2);
  ref_pool_dims m;
  if (st == TABI_OK && check_dims(max_name(ns), a, x, out[0].u.t, &m)) {
    tcq_geom g;
    memset(&g, 0, sizeof g);
    tcq_init(&g, &m, x->dl.shape, x->dl.strides, NULL, NULL, dt);
    int64_t no = numel_of(out[0].u.t);
    std::vector<char> ov((size_t)(no * g.esz) + 1), iv((size_t)(no * 8) + 8);
    for (int64_t i = 0; i < no; i++)
      tcq_max_elem(&g, (const char *)tabi_tensor_data(x), ov.data(), (int64_t *)(void *)iv.data(), i);
    compare(max_name(ns), dt, ov, out[0].u.t);
    compare("max_pool indices", TABI_DTYPE_INT64, iv, out[1].u.t);
    if (ns == 2) {
      /* backward: the forward's indices (mode 0: as returned; else laid out
       * strided), then random in-plane ones, then one out of the plane */
      const tabi_tensor *ot = out[0].u.t;
      int64_t plane = m.in[0] * m.in[1];
      std::vector<char> idx(iv);
      for (int kind = 0; kind < 3; kind++) {
        if (kind == 1)
          for (int64_t i = 0; i < no; i++) {
            int64_t v = irand(0, plane - 1);
            memcpy(idx.data() + i * 8, &v, 8);
          }
        if (kind == 2) {
          int64_t v = urand() < 0.5 ? -irand(1, 3) : plane + irand(0, 3), at = irand(0, no - 1);
          memcpy(idx.data() + at * 8, &v, 8);
          if (urand() < 0.5 && at + 1 < no) {
            int64_t w = -7;
            memcpy(idx.data() + (at + 1) * 8, &w, 8); /* a later bad one: the first is reported */
          }
        }
        tabi_tensor *gb = NULL, *ib = NULL;
        tabi_tensor *go = make_tensor(dt, ot->dl.ndim, ot->dl.shape, random_bytes(dt, no, 0), (int)irand(0, 2), &gb);
        tabi_tensor *it = make_tensor(TABI_DTYPE_INT64, ot->dl.ndim, ot->dl.shape, idx, (int)irand(0, 2), &ib);
        tabi_value b[8] = {tabi_tensor_value(go), tabi_tensor_value(x), a[1], a[2], a[3], a[4], a[5],
                           tabi_tensor_value(it)};
        const char *bn = "aten::max_pool2d_with_indices_backward";
        tabi_status sb;
        tabi_value r = call_ref(bn, b, 8, 1, &sb);
        ref_pool_dims mb;
        tabi_call call = fake_call(bn);
        tabi_status sc = ref_pool_max_bwd_check(&FAKE, &call, b, &mb);
        CHECK_MSG(sc == TABI_OK, "%s: %s", bn, fake_msg);
        if (sc == TABI_OK) {
          tcq_geom gg;
          memset(&gg, 0, sizeof gg);
          tcq_init(&gg, &mb, x->dl.shape, x->dl.strides, go->dl.strides, it->dl.strides, dt);
          /* the check kernel: first out-of-plane index, any outside its window */
          int full = 0;
          int64_t badval = 0, badpos = -1;
          for (int64_t i = 0; i < no; i++) {
            int64_t v;
            int s = tcq_mpb_status(&gg, (const char *)tabi_tensor_data(it), i, &v);
            if (s == 2 && badpos < 0) {
              badpos = i;
              badval = v;
            }
            full |= s != 0;
          }
          /* forward indices lie in their windows (the window path), unless a
           * window has no tap inside the input along some dim (dilation and
           * padding): its index is the first tap's, outside the plane's grid */
          int empty = 0;
          for (int i = 0; i < 2; i++)
            for (int64_t o = 0; o < mb.out[i]; o++) {
              int any = 0;
              for (int64_t t = 0; t < mb.k[i]; t++) {
                int64_t ip = o * mb.s[i] - mb.p[i] + t * mb.d[i];
                any |= ip >= 0 && ip < mb.in[i];
              }
              empty |= !any;
            }
          if (kind == 0) CHECK_MSG(full == empty, "forward indices: window path %d, empty windows %d", !full, empty);
          if (badpos >= 0) {
            tabi_call ec = fake_call(bn);
            tabi_status se = ref_pool_max_bwd_index_error(&FAKE, &ec, badval, plane);
            checked_errors++;
            CHECK_MSG(sb == se && strcmp(fake_msg, tabi_last_error()) == 0, "%s: \"%s\" vs reference \"%s\"",
                      bn, fake_msg, tabi_last_error());
          } else {
            CHECK_MSG(sb == TABI_OK, "%s: %s", bn, tabi_last_error());
            if (full) full_paths++;
            else window_paths++;
            int64_t ni = numel_of(x);
            std::vector<char> gv((size_t)(ni * g.esz) + 1);
            for (int64_t i = 0; i < ni; i++)
              tcq_mpb_elem(&gg, (const char *)tabi_tensor_data(go), (const char *)tabi_tensor_data(it), gv.data(), i,
                           full);
            if (sb == TABI_OK) compare(full ? "max backward (whole plane)" : "max backward (windows)", dt, gv, r.u.t);
          }
        }
        tabi_value_release(&r);
        tabi_tensor_release(go);
        tabi_tensor_release(it);
        if (gb) tabi_tensor_release(gb);
        if (ib) tabi_tensor_release(ib);
      }
    }
  }
  tabi_value_release(&out[0]);
  tabi_value_release(&out[1]);
  tabi_tensor_release(x);
  if (base) tabi_tensor_release(base);
}

static void avg_case(int32_t ns, tabi_dtype dt, int mode) {
  pcase c;
  random_case(&c, ns, 0);
  int64_t n = 1;
  for (int32_t i = 0; i < c.nd; i++) n *= c.shape[i];
  tabi_tensor *base = NULL, *x = make_tensor(dt, c.nd, c.shape, random_bytes(dt, n, 0), mode, &base);
  if (!x) return;
  tabi_value a[8];
  a[0] = tabi_tensor_value(x);
  int na = 1 + window_args(&c, a + 1, 0, ns == 2 && urand() < 0.5);
  tabi_status st;
  tabi_value r = call_ref(avg_name(ns), a, na, 1, &st);
  ref_pool_dims m;
  if (st == TABI_OK && check_dims(avg_name(ns), a, x, r.u.t, &m)) {
    tcq_geom g;
    memset(&g, 0, sizeof g);
    tcq_init(&g, &m, x->dl.shape, x->dl.strides, NULL, NULL, dt);
    int64_t no = numel_of(r.u.t);
    std::vector<char> ov((size_t)(no * g.esz) + 1);
    for (int64_t i = 0; i < no; i++) tcq_avg_elem(&g, (const char *)tabi_tensor_data(x), ov.data(), i);
    char what[200];
    snprintf(what, sizeof what, "%s k %lld s %lld p %lld ceil %d cip %d dov %lld mode %d", avg_name(ns),
             (long long)c.k[0], (long long)c.s[0], (long long)c.p[0], c.ceil, c.cip, (long long)c.dov, mode);
    compare(what, dt, ov, r.u.t);
    if (ns == 2 && a[2].u.list.len == 2) {
      const tabi_tensor *ot = r.u.t;
      tabi_tensor *gb = NULL;
      tabi_tensor *go = make_tensor(dt, ot->dl.ndim, ot->dl.shape, random_bytes(dt, no, 0), (int)irand(0, 2), &gb);
      tabi_value b[8] = {tabi_tensor_value(go), tabi_tensor_value(x), a[1], a[2], a[3], a[4], a[5],
                         c.dov ? tabi_int(c.dov) : tabi_none()};
      const char *bn = "aten::avg_pool2d_backward";
      tabi_status sb;
      tabi_value rb = call_ref(bn, b, 8, 1, &sb);
      CHECK_MSG(sb == TABI_OK, "%s: %s", bn, tabi_last_error());
      ref_pool_dims mb;
      if (sb == TABI_OK && check_dims(bn, b, x, ot, &mb)) {
        tcq_geom gg;
        memset(&gg, 0, sizeof gg);
        tcq_init(&gg, &mb, x->dl.shape, x->dl.strides, go->dl.strides, NULL, dt);
        int64_t ni = numel_of(x);
        std::vector<char> gv((size_t)(ni * g.esz) + 1);
        for (int64_t i = 0; i < ni; i++) tcq_avgb_elem(&gg, (const char *)tabi_tensor_data(go), gv.data(), i);
        snprintf(what, sizeof what, "%s k %lldx%lld s %lldx%lld p %lldx%lld ceil %d cip %d dov %lld", bn,
                 (long long)c.k[0], (long long)c.k[1], (long long)c.s[0], (long long)c.s[1], (long long)c.p[0],
                 (long long)c.p[1], c.ceil, c.cip, (long long)c.dov);
        compare(what, dt, gv, rb.u.t);
      }
      tabi_value_release(&rb);
      tabi_tensor_release(go);
      if (gb) tabi_tensor_release(gb);
    }
  }
  tabi_value_release(&r);
  tabi_tensor_release(x);
  if (base) tabi_tensor_release(base);
}

static void adapt_case(int32_t ns, tabi_dtype dt, int mode) {
  int32_t nd = ns + (int32_t)irand(1, 2);
  int64_t shape[5], osz[3], n = 1;
  for (int32_t i = 0; i < nd; i++) {
    shape[i] = i < nd - ns ? irand(1, 3) : irand(1, (ns == 3 ? 6 : 11) * big);
    if (i == 0 && nd == ns + 2 && urand() < 0.06) shape[0] = 0;
    n *= shape[i];
  }
  for (int32_t i = 0; i < ns; i++) {
    int64_t in = shape[nd - ns + i];
    osz[i] = urand() < 0.05 ? 0 : urand() < 0.5 ? irand(1, in) : irand(1, 2 * in + 1);
  }
  tabi_tensor *base = NULL, *x = make_tensor(dt, nd, shape, random_bytes(dt, n, 0), mode, &base);
  if (!x) return;
  tabi_value a[2] = {tabi_tensor_value(x), tabi_int_list(osz, ns)};
  tabi_status st;
  tabi_value r = call_ref(adapt_name(ns), a, 2, 1, &st);
  CHECK_MSG(st == TABI_OK, "%s: %s", adapt_name(ns), tabi_last_error());
  ref_pool_dims m;
  if (st == TABI_OK && check_dims(adapt_name(ns), a, x, r.u.t, &m)) {
    tcq_geom g;
    memset(&g, 0, sizeof g);
    tcq_init(&g, &m, x->dl.shape, x->dl.strides, NULL, NULL, dt);
    int64_t no = numel_of(r.u.t);
    std::vector<char> ov((size_t)(no * g.esz) + 1);
    for (int64_t i = 0; i < no; i++) tcq_adapt_elem(&g, (const char *)tabi_tensor_data(x), ov.data(), i);
    compare(adapt_name(ns), dt, ov, r.u.t);
    if (ns == 2) {
      const tabi_tensor *ot = r.u.t;
      tabi_tensor *gb = NULL;
      tabi_tensor *go = make_tensor(dt, ot->dl.ndim, ot->dl.shape, random_bytes(dt, no, 0), (int)irand(0, 2), &gb);
      tabi_value b[2] = {tabi_tensor_value(go), tabi_tensor_value(x)};
      const char *bn = "aten::_adaptive_avg_pool2d_backward";
      tabi_status sb;
      tabi_value rb = call_ref(bn, b, 2, 1, &sb);
      CHECK_MSG(sb == TABI_OK, "%s: %s", bn, tabi_last_error());
      ref_pool_dims mb;
      if (sb == TABI_OK && check_dims(bn, b, x, ot, &mb)) {
        tcq_geom gg;
        memset(&gg, 0, sizeof gg);
        tcq_init(&gg, &mb, x->dl.shape, x->dl.strides, go->dl.strides, NULL, dt);
        int64_t ni = numel_of(x);
        std::vector<char> gv((size_t)(ni * g.esz) + 1);
        for (int64_t i = 0; i < ni; i++) tcq_adaptb_elem(&gg, (const char *)tabi_tensor_data(go), gv.data(), i);
        char what[160];
        snprintf(what, sizeof what, "%s in %lldx%lld out %lldx%lld", bn, (long long)m.in[0], (long long)m.in[1],
                 (long long)m.out[0], (long long)m.out[1]);
        compare(what, dt, gv, rb.u.t);
      }
      tabi_value_release(&rb);
      tabi_tensor_release(go);
      if (gb) tabi_tensor_release(gb);
    }
  }
  tabi_value_release(&r);
  tabi_tensor_release(x);
  if (base) tabi_tensor_release(base);
}

int main(int argc, char **argv) {
  rng = 0x2545f4914f6cdd1dull;
  if (!host_open(argc, argv)) return host_exit();
  for (int round = 0; round < 2; round++) {
    big = round ? 4 : 1;
    int reps = round ? 3 : 8;
    for (int mode = 0; mode < 3; mode++)
      for (int d = 0; d < 5; d++) {
        tabi_dtype dt = d < 4 ? FLOATS[d] : TABI_DTYPE_INT64;
        for (int rep = 0; rep < reps; rep++) {
          for (int32_t ns = 1; ns <= 3; ns++) avg_case(ns, dt, mode);
          if (d == 4) continue;
          max_case(2, dt, mode);
          max_case(3, dt, mode);
          for (int32_t ns = 1; ns <= 3; ns++) adapt_case(ns, dt, mode);
        }
      }
  }
  printf("%lld cases (%lld empty), %lld output elements compared (max backward: %lld window, %lld whole-plane "
         "gathers); %lld out-of-plane index cases\n",
         checked_cases, empty_cases, checked_elems, window_paths, full_paths, checked_errors);
  return host_exit();
}
