/* tests/cuda/test_cuda_idx_host.cpp: the CUDA/ROCm kernels of
 * index.Tensor, index_put, scatter_reduce.two, nonzero, masked_scatter and
 * randperm (plugins/cuda/tc_idx.cu) emulated on the host, without a
 * GPU, against the reference plugin (the pattern of test_cuda_misc_host.cpp).
 *
 * The kernel runs tc_idx.cuh's tci_sr_run steps (accumulators, a thread per
 * line of the index along dim, the store) over a contiguous copy of self,
 * reading index and src through their strides. This test compiles the header
 * as plain C++ and runs the same functions (tci_sr_run: the steps in turn) on the
 * same input bytes the reference plugin gets (every dtype; all five
 * reductions with and without include_self; 1-D to 3-D, every dim; heavy
 * duplicate targets; contiguous, transposed and step-2 sliced self, index and
 * src; NaN/inf/-0.0 among the floats and complex values, integers over their
 * whole range so sums and products wrap) and asks for the reference's bits
 * exactly. The argument checks the kernel runs first are the reference's own
 * (reference/ref_index_check.c, linked here under a stand-in host table): they
 * must pass for every such case (bad arguments need no comparison: both run
 * the one function), and masked_scatter's emulated walk must find a short
 * source where the reference does. What this cannot show: the launch itself.
 * argv[1]: libtabi_reference.so. */
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <vector>

#include <tabi/runtime.h>

#include "check.h"
#include "host_case.h"
#include "ref_index_check.h"
#include "tc_idx.cuh"

static long long checked_errors, invalid_cases, runs_cases; /* runs_cases: index_put checked by runs */

/* like host_stub.h's special_or_random, with small integers mixed in (ties, exact indices) */
static double special_or_small_int(int i) {
  switch (i % 19) {
    case 3: return NAN;
    case 7: return INFINITY;
    case 11: return -INFINITY;
    case 17: return -0.0;
    default: return urand() < 0.3 ? (double)irand(-3, 3) : urand() * 4 - 2;
  }
}

static std::vector<char> random_bytes(tabi_dtype dt, int64_t n, int specials) {
  int esz = tci_esz(dt);
  std::vector<char> b((size_t)(n * esz) + 16);
  for (int64_t i = 0; i < n; i++) {
    char *p = b.data() + i * esz;
    double v = specials ? special_or_small_int((int)(i + irand(0, 18))) : urand() * 4 - 2;
    switch (dt) {
      case TABI_DTYPE_BOOL: p[0] = urand() < 0.5; break;
      case TABI_DTYPE_COMPLEX64: {
        float f[2] = {(float)v, (float)(specials ? special_or_small_int((int)irand(0, 18)) : urand())};
        memcpy(p, f, 8);
        break;
      }
      case TABI_DTYPE_COMPLEX128: {
        double f[2] = {v, specials ? special_or_small_int((int)irand(0, 18)) : urand()};
        memcpy(p, f, 16);
        break;
      }
      default:
        if (host_is_float(dt)) tcp_st(p, dt, v);
        else host_any_int(p, esz, i);
        break;
    }
  }
  return b;
}

/* --- the shared checks (reference/ref_index_check.c) under a stand-in host table */
/* the stand-in host table: host_stub.h */

static int64_t ne_size(const tabi_tensor *t, int32_t d) { return t->dl.ndim ? t->dl.shape[d] : 1; }
static int64_t ne_stride(const tabi_tensor *t, int32_t d) { return t->dl.ndim ? t->dl.strides[d] : 0; }

/* What tc_idx.cu's k_scatter_reduce checks on the host. */
static tabi_status run_check(tabi_value *a, int32_t *dim, int *kind) {
  tabi_call call = fake_call("aten::scatter_reduce.two");
  tabi_status st = ref_idx_sr_check(&FAKE, &call, a, dim, kind);
  if (st != TABI_OK) return st;
  const tabi_tensor *index = a[2].u.t;
  int64_t n = numel_of(index);
  if (n == 0) return TABI_OK;
  std::vector<int64_t> iv = host_ints(index);
  return ref_idx_check_bounds(&FAKE, &call, iv.data(), n, *dim, ne_size(a[0].u.t, *dim));
}

static const char *RED[5] = {"sum", "prod", "mean", "amax", "amin"};

static void release(tabi_tensor *t) {
  if (t) tabi_tensor_release(t);
}

/* --- scatter_reduce.two ---------------------------------------------------------- */
static void sr_case(tabi_dtype dt, int kind, int include_self, int mode, int big) {
  int32_t nd = (int32_t)irand(0, 3);
  int64_t sshape[4], ishape[4], rshape[4];
  int32_t dim = nd ? (int32_t)irand(0, nd - 1) : 0;
  for (int32_t d = 0; d < nd; d++) {
    sshape[d] = irand(1, 5 * big);
    ishape[d] = d == dim ? irand(0, 7 * big) : irand(0, sshape[d]);
    if (urand() < 0.7 && ishape[d] == 0) ishape[d] = 1;
    rshape[d] = ishape[d] + irand(0, 2);
  }
  int64_t ns = 1, ni = 1, nr = 1;
  for (int32_t d = 0; d < nd; d++) {
    ns *= sshape[d];
    ni *= ishape[d];
    nr *= rshape[d];
  }
  int64_t size = nd ? sshape[dim] : 1;
  std::vector<char> sb = random_bytes(dt, ns, 1), rb = random_bytes(dt, nr, 1);
  std::vector<char> ib((size_t)(ni * 8) + 8);
  for (int64_t i = 0; i < ni; i++) {
    int64_t v = irand(0, size - 1);
    memcpy(ib.data() + i * 8, &v, 8);
  }
  tabi_tensor *sbase, *ibase, *rbase;
  tabi_tensor *self = host_tensor(dt, nd, sshape, mode, sb, &sbase);
  tabi_tensor *index = host_tensor(TABI_DTYPE_INT64, nd, ishape, (mode + 1) % 3, ib, &ibase);
  tabi_tensor *src = host_tensor(dt, nd, rshape, (mode + 2) % 3, rb, &rbase);
  if (!self || !index || !src) return;
  tabi_value a[6] = {tabi_tensor_value(self), tabi_int(urand() < 0.3 ? dim - nd : dim),
                     tabi_tensor_value(index), tabi_tensor_value(src),
                     tabi_string(RED[kind], (int64_t)strlen(RED[kind])), tabi_bool(include_self)};
  if (nd == 0) a[1] = tabi_int(urand() < 0.5 ? 0 : -1);
  tabi_value r = call_ref("aten::scatter_reduce.two", a, 6);
  int32_t wdim;
  int k;
  tabi_status st = run_check(a, &wdim, &k);
  CHECK_MSG(st == TABI_OK && k == kind, "scatter_reduce check: %d %s", (int)st, fake_msg);
  if (r.tag == TABI_TAG_TENSOR && st == TABI_OK) {
    /* the kernel: out = contiguous copy of self, acc scratch, one serial run */
    int esz = tci_esz(dt);
    std::vector<char> out(sb.begin(), sb.begin() + ns * esz);
    std::vector<tci_acc> acc((size_t)(ns ? ns : 1));
    tci_sr s;
    memset(&s, 0, sizeof s);
    s.idx = (const char *)tabi_tensor_data(index);
    s.src = (const char *)tabi_tensor_data(src);
    s.out = out.data();
    s.acc = acc.data();
    s.nd = nd ? nd : 1;
    s.dim = wdim;
    s.dt = dt;
    s.kind = k;
    s.include_self = include_self;
    s.n_idx = numel_of(index);
    s.n_out = ns;
    for (int32_t d = 0; d < s.nd; d++) {
      s.ishape[d] = ne_size(index, d);
      s.ist[d] = ne_stride(index, d);
      s.sst[d] = ne_stride(src, d);
    }
    for (int32_t d = s.nd - 1, o = 1; d >= 0; d--) {
      s.ost[d] = o;
      o *= (int32_t)(nd ? sshape[d] : 1);
    }
    std::vector<char> out2(out); /* the same again by runs of the sorted index (the few-long-lines path) */
    if (s.n_idx > 0) tci_sr_run(&s);
    char what[96];
    snprintf(what, sizeof what, "scatter_reduce %s include_self=%d nd=%d mode=%d", RED[kind], include_self,
             (int)nd, mode);
    host_compare(what, dt, out, ns, r.u.t);
    if (s.n_idx > 0) {
      /* sv/perm: the index sorted along dim by a stable sort, contiguous */
      int64_t len = s.ishape[s.dim], sd = 1;
      for (int d = s.dim + 1; d < s.nd; d++) sd *= s.ishape[d];
      std::vector<int64_t> sv((size_t)s.n_idx), perm((size_t)s.n_idx);
      for (int64_t e = 0; e < s.n_idx; e++) {
        int64_t rem = e, io = 0;
        for (int d = s.nd - 1; d >= 0; d--) {
          io += rem % s.ishape[d] * s.ist[d];
          rem /= s.ishape[d];
        }
        sv[(size_t)e] = ((const int64_t *)s.idx)[io];
        perm[(size_t)e] = e / sd % len;
      }
      for (int64_t e = 0; e < s.n_idx; e++) {
        if (e / sd % len) continue; /* each line's first element sorts the line */
        std::vector<std::pair<int64_t, int64_t>> line;
        for (int64_t i = 0; i < len; i++) line.push_back({sv[(size_t)(e + i * sd)], i});
        std::stable_sort(line.begin(), line.end(),
                         [](const std::pair<int64_t, int64_t> &x, const std::pair<int64_t, int64_t> &y) { return x.first < y.first; });
        for (int64_t i = 0; i < len; i++) {
          sv[(size_t)(e + i * sd)] = line[(size_t)i].first;
          perm[(size_t)(e + i * sd)] = line[(size_t)i].second;
        }
      }
      s.out = out2.data();
      for (int64_t e = 0; e < s.n_out; e++) tci_sr_init(&s, e);
      for (int64_t e = 0; e < s.n_idx; e++) tci_sr_run_of(&s, sv.data(), perm.data(), e);
      for (int64_t e = 0; e < s.n_out; e++) tci_sr_fini(&s, e);
      snprintf(what, sizeof what, "scatter_reduce %s (by runs) include_self=%d nd=%d mode=%d", RED[kind],
               include_self, (int)nd, mode);
      host_compare(what, dt, out2, ns, r.u.t);
    }
  }
  tabi_value_release(&r);
  release(self), release(index), release(src), release(sbase), release(ibase), release(rbase);
}

/* --- nonzero ----------------------------------------------------------------------- */
static void nz_case(tabi_dtype dt, int mode, int big) {
  int32_t nd = (int32_t)irand(0, 4);
  int64_t shape[4], n = 1;
  for (int32_t d = 0; d < nd; d++) {
    shape[d] = urand() < 0.05 ? 0 : irand(1, 4 * big);
    n *= shape[d];
  }
  std::vector<char> b = random_bytes(dt, n, 1);
  double pz = urand(); /* zeros (and -0.0) at a random density */
  int esz = tci_esz(dt);
  for (int64_t i = 0; i < n; i++)
    if (urand() < pz) {
      memset(b.data() + i * esz, 0, (size_t)esz);
      if (tci_domain(dt) == 1 && urand() < 0.3) tcp_st(b.data() + i * esz, dt, -0.0);
    }
  tabi_tensor *base, *t = host_tensor(dt, nd, shape, mode, b, &base);
  if (!t) return;
  tabi_value a[1] = {tabi_tensor_value(t)};
  tabi_value r = call_ref("aten::nonzero", a, 1);
  tabi_call call = fake_call("aten::nonzero");
  tabi_status st = ref_idx_nonzero_check(&FAKE, &call, a);
  CHECK_MSG(st == TABI_OK, "nonzero check: %s", fake_msg);
  if (r.tag == TABI_TAG_TENSOR && st == TABI_OK) {
    tci_nz z;
    memset(&z, 0, sizeof z);
    z.in = (const char *)tabi_tensor_data(t);
    z.nd = nd;
    z.dt = dt;
    z.n = n;
    for (int32_t d = 0; d < nd; d++) {
      z.shape[d] = t->dl.shape[d];
      z.st[d] = t->dl.strides[d];
    }
    int64_t count = n > 0 ? tci_nz_run(&z) : 0; /* the kernel's first pass */
    CHECK_MSG(r.u.t->dl.ndim == 2 && r.u.t->dl.shape[0] == count && r.u.t->dl.shape[1] == nd,
              "nonzero %s: count %lld", tabi_dtype_name(dt), (long long)count);
    std::vector<char> out((size_t)(count * nd * 8) + 8);
    z.out = (int64_t *)out.data();
    if (count > 0 && nd > 0) CHECK(tci_nz_run(&z) == count);
    if (r.u.t->dl.ndim == 2 && r.u.t->dl.shape[0] == count) host_compare("nonzero", TABI_DTYPE_INT64, out, count * nd, r.u.t);
  }
  tabi_value_release(&r);
  release(t), release(base);
}

/* --- masked_scatter ---------------------------------------------------------------- */
static void ms_case(tabi_dtype dt, tabi_dtype mdt, int mode, int big) {
  int32_t nd = (int32_t)irand(0, 3), snd = (int32_t)irand(0, nd), mnd = (int32_t)irand(0, nd);
  if (urand() < 0.5) (urand() < 0.5 ? snd : mnd) = nd;
  int64_t shape[3], sshape[3], mshape[3];
  for (int32_t d = 0; d < nd; d++) shape[d] = urand() < 0.03 ? 0 : irand(1, 4 * big);
  for (int32_t d = 0; d < snd; d++) sshape[d] = urand() < 0.3 ? 1 : shape[nd - snd + d];
  for (int32_t d = 0; d < mnd; d++) mshape[d] = urand() < 0.3 ? 1 : shape[nd - mnd + d];
  int64_t ns = 1, nm = 1, n = 1;
  for (int32_t d = 0; d < snd; d++) ns *= sshape[d];
  for (int32_t d = 0; d < mnd; d++) nm *= mshape[d];
  for (int32_t d = 0; d < nd; d++) n *= shape[d];
  /* source: about as many elements as the result, sometimes too few */
  int64_t nsrc = urand() < 0.15 ? irand(0, n) : n + irand(0, 3);
  int64_t srcshape[2] = {nsrc > 0 && urand() < 0.5 ? 2 : 1, 0};
  srcshape[1] = (nsrc + srcshape[0] - 1) / srcshape[0];
  std::vector<char> sb = random_bytes(dt, ns, 1), rb = random_bytes(dt, srcshape[0] * srcshape[1], 1);
  std::vector<char> mb((size_t)nm + 8);
  double p1 = urand();
  for (int64_t i = 0; i < nm; i++) mb[(size_t)i] = (char)(urand() < p1 ? (mdt == TABI_DTYPE_UINT8 ? irand(1, 255) : 1) : 0);
  tabi_tensor *b1, *b2, *b3;
  tabi_tensor *self = host_tensor(dt, snd, sshape, mode, sb, &b1);
  tabi_tensor *mask = host_tensor(mdt, mnd, mshape, (mode + 1) % 3, mb, &b2);
  tabi_tensor *src = host_tensor(dt, 2, srcshape, (mode + 2) % 3, rb, &b3);
  if (!self || !mask || !src) return;
  tabi_value a[3] = {tabi_tensor_value(self), tabi_tensor_value(mask), tabi_tensor_value(src)};
  tabi_op op;
  tabi_value r = tabi_none();
  CHECK_OK(tabi_op_find(ref, "aten::masked_scatter", &op));
  tabi_status sr = tabi_call(ref, op, a, 3, &r, 1);
  char rmsg[1024];
  snprintf(rmsg, sizeof rmsg, "%s", tabi_last_error());
  tci_ms m;
  memset(&m, 0, sizeof m);
  tabi_call call = fake_call("aten::masked_scatter");
  tabi_status st = ref_idx_ms_check(&FAKE, &call, a, &m.nd, m.shape);
  if (st == TABI_OK) { /* what k_masked_scatter sets up, then the kernel */
    m.dt = dt;
    m.mdt = mdt;
    m.n = 1;
    for (int32_t d = 0; d < m.nd; d++) m.n *= m.shape[d];
    for (int k = 0; k < 2; k++) {
      const tabi_tensor *t = k ? mask : self;
      int64_t *stv = k ? m.mst : m.sst;
      for (int32_t d = 0; d < m.nd; d++) {
        int32_t td = d - (m.nd - t->dl.ndim);
        stv[d] = td < 0 || (t->dl.shape[td] == 1 && m.shape[d] != 1) ? 0 : t->dl.strides[td];
      }
    }
    m.snd = 2;
    for (int32_t d = 0; d < 2; d++) {
      m.srcshape[d] = src->dl.shape[d];
      m.srcst[d] = src->dl.strides[d];
    }
    m.nsrc = numel_of(src);
    m.self = (const char *)tabi_tensor_data(self);
    m.mask = (const char *)tabi_tensor_data(mask);
    m.src = (const char *)tabi_tensor_data(src);
  }
  std::vector<char> out((size_t)(m.n * tci_esz(dt)) + 16);
  m.out = out.data();
  if (st == TABI_OK && m.n > 0 && tci_ms_run(&m)) st = ref_idx_ms_short(&FAKE, &call, m.nsrc);
  if (sr == TABI_OK) {
    CHECK_MSG(st == TABI_OK, "masked_scatter: ours %d \"%s\", reference OK", (int)st, fake_msg);
    if (st == TABI_OK) host_compare("masked_scatter", dt, out, m.n, r.u.t);
  } else {
    checked_errors++;
    CHECK_MSG(st == sr && strcmp(rmsg, fake_msg) == 0, "masked_scatter: ours %d \"%s\", reference %d \"%s\"",
              (int)st, fake_msg, (int)sr, rmsg);
  }
  tabi_value_release(&r);
  release(self), release(mask), release(src), release(b1), release(b2), release(b3);
}

/* --- randperm ---------------------------------------------------------------------- */
/* tc_idx.cu's rounds on the host, over lists of the steps left as the
 * kernels keep them: each round's reservations and commits visit the list
 * in a shuffled order (a GPU gives no order; nor do the appends, so the
 * next list is shuffled too), at most max_rounds rounds, then
 * tci_rp_finish. Returns the rounds it took; perm gets the result, *visits
 * the list entries visited in all. R: the reservations' type (unsigned:
 * the one-block kernel's 32-bit ones, n <= 2^13). */
template <class R>
static int rp_rounds(int64_t n, uint64_t seed, uint64_t offset, int max_rounds, std::vector<int64_t> &perm,
                     uint64_t shuffle, int64_t *visits = nullptr) {
  std::vector<int64_t> h((size_t)n + 1), list, next;
  std::vector<R> r((size_t)n + 1);
  perm.assign((size_t)n + 1, 0);
  for (int64_t i = 0; i < n; i++) {
    tci_rp_init(i, perm.data(), h.data(), r.data(), seed, offset);
    list.push_back(i); /* the first round's list is every step (0 is none) */
  }
  int round = 1;
  int64_t seen = 0;
  for (; !list.empty() && round <= max_rounds; round++) {
    for (size_t i = list.size(); i-- > 1;) { /* a fresh order every round */
      shuffle = shuffle * 6364136223846793005ull + 1442695040888963407ull;
      std::swap(list[i], list[(size_t)((shuffle >> 33) % (uint64_t)(i + 1))]);
    }
    R tag = sizeof(R) == 4 ? (R)TCI_RP_TAG32(round) : (R)TCI_RP_TAG(round);
    for (int64_t i : list) tci_rp_reserve(i, h.data(), r.data(), tag);
    next.clear();
    for (size_t k = list.size(); k-- > 0;)
      if (tci_rp_commit(list[k], h.data(), r.data(), perm.data(), tag)) next.push_back(list[k]);
    seen += (int64_t)list.size();
    list.swap(next);
  }
  if (!list.empty()) tci_rp_finish(n, h.data(), perm.data());
  for (int64_t i = 0; i < n; i++) CHECK_MSG(h[(size_t)i] < 0, "randperm rounds: step %lld not done", (long long)i);
  if (visits) *visits = seen;
  return round - 1;
}

static void rp_case(tabi_dtype dt, int64_t n, uint64_t seed) {
  CHECK_OK(tabi_runtime_manual_seed(ref, CPU, seed));
  for (int call_no = 0; call_no < 2; call_no++) { /* counters 0.., then n.. */
    tabi_value a[5] = {tabi_int(n), tabi_dtype_value(dt), tabi_none(), tabi_device_value(CPU), tabi_none()};
    tabi_value r = call_ref("aten::randperm", a, 5);
    tabi_dtype rdt;
    tabi_call call = fake_call("aten::randperm");
    tabi_status st = ref_idx_randperm_check(&FAKE, &call, a, &rdt);
    CHECK_MSG(st == TABI_OK && rdt == dt, "randperm check: %s", fake_msg);
    if (r.tag == TABI_TAG_TENSOR && st == TABI_OK) {
      std::vector<int64_t> perm((size_t)n + 1);
      std::vector<char> out((size_t)(n * tci_esz(dt)) + 16);
      tci_rp_run(perm.data(), n, seed, call_no ? (uint64_t)n : 0, out.data(), dt);
      host_compare("randperm", dt, out, n, r.u.t);
      /* and it is a permutation */
      std::vector<char> seen((size_t)n + 1, 0);
      int ok = 1;
      for (int64_t k = 0; k < n; k++) {
        if (perm[(size_t)k] < 0 || perm[(size_t)k] >= n || seen[(size_t)perm[(size_t)k]]) ok = 0;
        else seen[(size_t)perm[(size_t)k]] = 1;
      }
      CHECK_MSG(ok, "randperm %lld: not a permutation", (long long)n);
      /* the rounds give the same permutation, and its store the same bytes,
         also when cut short after two rounds */
      for (int cap = 2; cap <= 4096; cap += 4094) {
        for (int wide = 0; wide < 2; wide++) { /* the one-block kernel's 32-bit reservations, up to 2^13 */
          if (!wide && n > (1 << TCI_RP_IBITS32)) continue;
          std::vector<int64_t> p2;
          uint64_t off = call_no ? (uint64_t)n : 0, sh = seed ^ (uint64_t)cap;
          if (wide) rp_rounds<unsigned long long>(n, seed, off, cap, p2, sh);
          else rp_rounds<unsigned>(n, seed, off, cap, p2, sh);
          std::vector<char> out2((size_t)(n * tci_esz(dt)) + 16);
          for (int64_t k = 0; k < n; k++) tci_rp_store(k, p2.data(), out2.data(), dt);
          host_compare(cap == 2 ? "randperm (2 rounds, then in order)" : "randperm (rounds)", dt, out2, n, r.u.t);
        }
      }
    }
    tabi_value_release(&r);
  }
}

/* --- index.Tensor and index_put ---------------------------------------------------- */
/* A random indices list for self (nd dims): int64/int32 tensors (negative
 * values, broadcastable shapes), bool/uint8 masks over one or two dims, None
 * entries before, between and after. */
struct idx_list {
  std::vector<tabi_tensor *> ts, owned;
};

static tabi_tensor *int_index(tabi_dtype dt, int32_t nd, const int64_t *shape, int64_t size, int mode) {
  int64_t n = 1;
  for (int32_t d = 0; d < nd; d++) n *= shape[d];
  std::vector<char> b((size_t)(n * 8) + 8);
  for (int64_t i = 0; i < n; i++) {
    int64_t v = size > 0 ? irand(-size, size - 1) : 0;
    if (dt == TABI_DTYPE_INT32) {
      int32_t w = (int32_t)v;
      memcpy(b.data() + i * 4, &w, 4);
    } else {
      memcpy(b.data() + i * 8, &v, 8);
    }
  }
  tabi_tensor *base, *t = host_tensor(dt, nd, shape, mode, b, &base);
  if (base) tabi_tensor_release(base);
  return t;
}

static void make_indices(const int64_t *sshape, int32_t nd, int big, idx_list *L) {
  int32_t d = 0;
  int64_t bsh[3] = {irand(1, 3 * big), irand(1, 3), irand(1, 2)};
  int32_t bnd = (int32_t)irand(0, 2);
  int any = 0;
  while (d < nd) {
    double u = urand();
    if (u < 0.3 && (any || d < nd - 1)) { /* None */
      L->ts.push_back(NULL);
      d++;
    } else if (u < 0.45) { /* mask over 1 or 2 dims */
      int32_t mnd = d + 2 <= nd && urand() < 0.4 ? 2 : 1;
      int64_t msh[2] = {sshape[d], mnd == 2 ? sshape[d + 1] : 1};
      tabi_dtype mdt = urand() < 0.5 ? TABI_DTYPE_BOOL : TABI_DTYPE_UINT8;
      int64_t n = msh[0] * (mnd == 2 ? msh[1] : 1);
      std::vector<char> mb((size_t)n + 8);
      for (int64_t i = 0; i < n; i++) mb[(size_t)i] = (char)(urand() < 0.5 ? (mdt == TABI_DTYPE_UINT8 ? irand(1, 9) : 1) : 0);
      tabi_tensor *base, *t = host_tensor(mdt, mnd, msh, (int)irand(0, 2), mb, &base);
      if (base) tabi_tensor_release(base);
      L->ts.push_back(t);
      L->owned.push_back(t);
      d += mnd;
      any = 1;
    } else { /* int index, shape a right-aligned sub-shape of bsh with ones */
      int32_t ind = (int32_t)irand(0, bnd);
      int64_t ish[3];
      for (int32_t j = 0; j < ind; j++) ish[j] = urand() < 0.3 ? 1 : bsh[bnd - ind + j];
      tabi_tensor *t = int_index(urand() < 0.5 ? TABI_DTYPE_INT64 : TABI_DTYPE_INT32, ind, ish, sshape[d],
                                 (int)irand(0, 2));
      L->ts.push_back(t);
      L->owned.push_back(t);
      d++;
      any = 1;
    }
    if (urand() < 0.25 && any) break; /* fewer entries than dims */
  }
}

/* The device plan the kernels get (tc_idx.cu's adv_plan without the upload). */
static void device_plan(const ref_adv *p, const tabi_tensor *self, std::vector<int64_t> &ib, tci_adv *dp) {
  memset(dp, 0, sizeof *dp);
  int64_t ndef = 0;
  for (int32_t d = 0; d < p->ndim; d++) ndef += p->has[d];
  ib.assign((size_t)(ndef * p->nb) + 1, 0);
  tc_adv_pack(p, self->dl.shape, ib.data());
  dp->ib = ib.data();
  dp->ndim = p->ndim;
  dp->bnd = p->bnd;
  dp->first = p->first;
  dp->rnd = p->rnd;
  dp->nb = p->nb;
  dp->n = 1;
  for (int32_t d = 0; d < p->rnd; d++) {
    dp->rshape[d] = p->rshape[d];
    dp->n *= p->rshape[d];
  }
  for (int64_t d = 0, k = 0; d < p->ndim; d++) {
    dp->idx[d] = p->has[d] ? k++ * p->nb : -1;
    dp->rpos[d] = p->rpos[d];
  }
}

static void adv_case(tabi_dtype dt, int put, int accumulate, int mode, int big) {
  int32_t nd = (int32_t)irand(1, 4);
  int64_t sshape[4], ns = 1;
  for (int32_t d = 0; d < nd; d++) {
    sshape[d] = urand() < 0.03 ? 0 : irand(1, 4 * big);
    ns *= sshape[d];
  }
  std::vector<char> sb = random_bytes(dt, ns, 1);
  tabi_tensor *sbase, *self = host_tensor(dt, nd, sshape, mode, sb, &sbase);
  idx_list L;
  make_indices(sshape, nd, big, &L);
  tabi_value a[4] = {tabi_tensor_value(self), tabi_tensor_list(L.ts.data(), (int64_t)L.ts.size()), tabi_none(),
                     tabi_bool(accumulate)};
  const char *name = put ? "aten::index_put" : "aten::index.Tensor";
  /* our plan first (values' shape for index_put comes from it) */
  tabi_call call = fake_call(name);
  ref_adv p;
  tabi_status st = TABI_OK;
  if (!put) st = ref_idx_index_check(&FAKE, &call, a);
  if (st == TABI_OK)
    st = ref_adv_build(&FAKE, &call, self, (int64_t)L.ts.size(), (const tabi_tensor *const *)L.ts.data(), &p);
  tabi_tensor *values = NULL, *vbase = NULL;
  if (put) { /* values broadcast to the result: drop leading dims, some dims 1 */
    int32_t vnd = 0;
    int64_t vsh[TCI_MAX_DIMS];
    if (st == TABI_OK) {
      vnd = (int32_t)irand(0, p.rnd);
      for (int32_t j = 0; j < vnd; j++) vsh[j] = urand() < 0.2 ? 1 : p.rshape[p.rnd - vnd + j];
    } else {
      vnd = 1;
      vsh[0] = 1;
    }
    int64_t nv = 1;
    for (int32_t j = 0; j < vnd; j++) nv *= vsh[j];
    std::vector<char> vb = random_bytes(dt, nv, 1);
    values = host_tensor(dt, vnd, vsh, (mode + 1) % 3, vb, &vbase);
    a[2] = tabi_tensor_value(values);
    tabi_status s0 = ref_idx_iput_check(&FAKE, &call, a);
    if (s0 != TABI_OK) {
      if (st == TABI_OK) ref_adv_release(&p);
      st = s0;
    } else if (st == TABI_OK) {
      st = ref_idx_iput_values(&FAKE, &call, values, &p);
      if (st != TABI_OK) ref_adv_release(&p);
    }
  }
  tabi_op op;
  tabi_value r = tabi_none();
  CHECK_OK(tabi_op_find(ref, name, &op));
  tabi_status sr = tabi_call(ref, op, a, put ? 4 : 2, &r, 1);
  if (sr != TABI_OK || st != TABI_OK) { /* invalid (indices that do not broadcast, empty dims):
                                          * both run the one check, nothing to compare */
    invalid_cases++;
    if (st == TABI_OK) ref_adv_release(&p);
  } else {
    tci_adv dp;
    std::vector<int64_t> ib;
    device_plan(&p, self, ib, &dp);
    ref_adv_release(&p);
    int esz = tci_esz(dt);
    int same = r.u.t->dl.ndim == (put ? nd : dp.rnd);
    for (int32_t d = 0; same && d < r.u.t->dl.ndim; d++) same = r.u.t->dl.shape[d] == (put ? sshape[d] : dp.rshape[d]);
    CHECK_MSG(same, "%s: result shape differs", name);
    if (!put && same) {
      std::vector<char> out((size_t)(dp.n * esz) + 16);
      int64_t sst[TCI_MAX_DIMS] = {0};
      for (int32_t d = 0; d < nd; d++) sst[d] = self->dl.strides[d];
      for (int64_t e = 0; e < dp.n; e++) tci_index_elem(&dp, (const char *)tabi_tensor_data(self), sst, out.data(), esz, e);
      host_compare("index.Tensor", dt, out, dp.n, r.u.t);
    } else if (put) {
      std::vector<char> out(sb.begin(), sb.begin() + ns * esz);
      int64_t ost[TCI_MAX_DIMS] = {0}, vst[TCI_MAX_DIMS] = {0};
      for (int32_t d = nd - 1, s = 1; d >= 0; d--) {
        ost[d] = s;
        s *= (int32_t)sshape[d];
      }
      for (int32_t d = 0; d < dp.rnd; d++) {
        int32_t vd = d - (dp.rnd - values->dl.ndim);
        vst[d] = vd < 0 || values->dl.shape[vd] == 1 ? 0 : values->dl.strides[vd];
      }
      std::vector<char> out2(out); /* and by runs of the sorted targets, where one tuple holds all */
      if (dp.n > 0) tci_iput_run(&dp, out.data(), ost, (const char *)tabi_tensor_data(values), vst, dt, accumulate);
      char what[64];
      snprintf(what, sizeof what, "index_put accumulate=%d", accumulate);
      host_compare(what, dt, out, ns, r.u.t);
      if (dp.n > 0 && tci_iput_tuples(&dp) == 1) {
        std::vector<std::pair<int64_t, int64_t>> tp;
        for (int64_t e = 0; e < dp.n; e++) tp.push_back({tci_adv_offset(&dp, ost, e), e});
        std::stable_sort(tp.begin(), tp.end(),
                         [](const std::pair<int64_t, int64_t> &x, const std::pair<int64_t, int64_t> &y) { return x.first < y.first; });
        std::vector<int64_t> tg, perm;
        for (auto &q : tp) tg.push_back(q.first), perm.push_back(q.second);
        for (int64_t i = 0; i < dp.n; i++)
          tci_iput_run_of(&dp, out2.data(), (const char *)tabi_tensor_data(values), vst, dt, accumulate, tg.data(),
                          perm.data(), i);
        snprintf(what, sizeof what, "index_put (by runs) accumulate=%d", accumulate);
        host_compare(what, dt, out2, ns, r.u.t);
        runs_cases++;
      }
    }
  }
  tabi_value_release(&r);
  release(self), release(sbase), release(values), release(vbase);
  for (tabi_tensor *t : L.owned) release(t);
}

int main(int argc, char **argv) {
  if (!host_open(argc, argv)) return host_exit();
  const tabi_dtype dts[12] = {TABI_DTYPE_BOOL,    TABI_DTYPE_UINT8,    TABI_DTYPE_INT8,      TABI_DTYPE_INT16,
                              TABI_DTYPE_INT32,   TABI_DTYPE_INT64,    TABI_DTYPE_FLOAT16,   TABI_DTYPE_BFLOAT16,
                              TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64,  TABI_DTYPE_COMPLEX64, TABI_DTYPE_COMPLEX128};
  for (int big = 1; big <= 4; big += 3)
    for (int d = 0; d < 12; d++)
      for (int kind = 0; kind < 5; kind++) {
        if (dts[d] == TABI_DTYPE_BOOL && kind == TCI_MEAN) continue;
        if (tci_domain(dts[d]) == 2 && (kind == TCI_AMAX || kind == TCI_AMIN)) continue;
        for (int inc = 0; inc < 2; inc++)
          for (int mode = 0; mode < 3; mode++)
            for (int rep = 0; rep < (big == 1 ? 4 : 1); rep++) sr_case(dts[d], kind, inc, mode, big);
      }
  for (int big = 1; big <= 4; big += 3)
    for (int d = 0; d < 12; d++)
      for (int mode = 0; mode < 3; mode++)
        for (int rep = 0; rep < (big == 1 ? 6 : 2); rep++) {
          nz_case(dts[d], mode, big);
          ms_case(dts[d], rep & 1 ? TABI_DTYPE_UINT8 : TABI_DTYPE_BOOL, mode, big);
        }
  const tabi_dtype rdts[9] = {TABI_DTYPE_UINT8,   TABI_DTYPE_INT8,    TABI_DTYPE_INT16,   TABI_DTYPE_INT32, TABI_DTYPE_INT64,
                              TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64};
  const int64_t ns[8] = {0, 1, 2, 7, 100, 128, 2049, 20000};
  for (int d = 0; d < 9; d++)
    for (int k = 0; k < 8; k++) {
      if ((rdts[d] == TABI_DTYPE_UINT8 || rdts[d] == TABI_DTYPE_INT8) && ns[k] > 128) continue;
      if (rdts[d] == TABI_DTYPE_FLOAT16 && ns[k] > 2049) continue;
      rp_case(rdts[d], ns[k], (uint64_t)(k * 7919 + d) * 0x9e3779b97f4a7c15ull);
    }
  /* the largest one-block permutation, its reservations in 32 bits (the tag
     takes the step's 13 bits whole) */
  {
    const int64_t n = 1 << TCI_RP_IBITS32;
    std::vector<int64_t> seq((size_t)n + 1), par;
    std::vector<char> scratch((size_t)n * 8 + 16);
    tci_rp_run(seq.data(), n, 5, 3, scratch.data(), TABI_DTYPE_INT64);
    rp_rounds<unsigned>(n, 5, 3, 4096, par, 17);
    CHECK_MSG(std::equal(seq.begin(), seq.begin() + n, par.begin()),
              "randperm %lld (32-bit reservations): rounds differ from Fisher-Yates", (long long)n);
  }
  /* a long permutation: the rounds against the sequential run, and how many */
  for (int64_t n : {(int64_t)8193, (int64_t)1 << 20}) {
    std::vector<int64_t> seq((size_t)n + 1), par;
    std::vector<char> scratch((size_t)n * 8 + 16);
    tci_rp_run(seq.data(), n, 42, 7, scratch.data(), TABI_DTYPE_INT64);
    int64_t visits = 0;
    int rounds = rp_rounds<unsigned long long>(n, 42, 7, 4096, par, 99, &visits);
    CHECK_MSG(std::equal(seq.begin(), seq.begin() + n, par.begin()), "randperm %lld: rounds differ from Fisher-Yates",
              (long long)n);
    CHECK_MSG(rounds > 1 && rounds < 200, "randperm %lld: %d rounds", (long long)n, rounds);
    /* what the lists are for (tc_idx.cuh): a few visits a step, not one a round */
    CHECK_MSG(visits < 5 * n, "randperm %lld: %lld list visits", (long long)n, (long long)visits);
    printf("cuda_idx_host: randperm of %lld in %d rounds, %.2f visits a step\n", (long long)n, rounds,
           (double)visits / (double)n);
  }
  for (int big = 1; big <= 3; big += 2)
    for (int d = 0; d < 12; d++)
      for (int mode = 0; mode < 3; mode++)
        for (int rep = 0; rep < (big == 1 ? 8 : 2); rep++) {
          adv_case(dts[d], 0, 0, mode, big);
          adv_case(dts[d], 1, 0, mode, big);
          adv_case(dts[d], 1, 1, mode, big);
        }
  printf("cuda_idx_host: %lld cases, %lld elements bit-exact, %lld masked_scatter error cases, %lld invalid "
         "index lists skipped, %lld index_put cases also by runs\n", checked_cases, checked_elems, checked_errors,
         invalid_cases, runs_cases);
  CHECK_MSG(runs_cases > 0, "no index_put case had everything indexed (the by-runs path went untested)");
  return host_exit();
}
