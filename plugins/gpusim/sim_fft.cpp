/* plugins/gpusim/sim_fft.cpp: the cuFFT stand-in of sim_vendor.h.
 *
 * cuFFT's meaning: unnormalised transforms, CUFFT_FORWARD the e^-i sign;
 * R2C writes the n/2+1 non-redundant outputs; C2R reads n/2+1 Hermitian
 * inputs. Only 1-D plans (rank 1, what tc_fft.cu makes); the basic layout
 * when inembed/onembed are NULL, else the strides and distances given.
 * Computed in double: a radix-2 FFT for powers of two, the direct sum over
 * an exact twiddle table otherwise (O(n^2): the stand-in checks meaning, not
 * speed).
 *
 * The contract a GPU would not report, held here:
 *   - a plan runs on one thread at a time (cuFFT's rule; tc_fft.cu keeps
 *     plans per thread): a second thread's exec on a busy plan is a violation
 *     (sim_vendor.h: counted, printed, output NaN);
 *   - an exec of a destroyed plan, or of the wrong type, is refused, and
 *     destroying a plan another thread runs is a violation;
 *   - C2R/Z2D overwrite their input, as cuFFT's out-of-place C2R may: the
 *     input is NaN afterwards, so a caller that reads it again sees it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <complex>
#include <mutex>
#include <vector>

#include "tc_sim.h"

namespace {

struct plan {
  int made;
  cufftType type;
  long long n, batch;
  long long is, id, os, od; /* strides and distances, in elements of each side's type */
  std::atomic<int> busy{0};
};

std::mutex plans_mu;
std::vector<plan *> plans; /* handle h is plans[h - 1]; destroyed slots stay NULL (never reused) */

plan *find(cufftHandle h) {
  std::lock_guard<std::mutex> g(plans_mu);
  return h >= 1 && (size_t)h <= plans.size() ? plans[(size_t)h - 1] : NULL;
}

typedef std::complex<double> cd;

/* out = DFT_n(x) with sign -1 (forward) or +1. */
void dft(std::vector<cd> &x, int sign) {
  size_t n = x.size();
  std::vector<cd> w(n);
  for (size_t t = 0; t < n; t++) {
    double a = 2.0 * M_PI * (double)t / (double)n;
    w[t] = cd(cos(a), sign * sin(a));
  }
  if (n >= 2 && (n & (n - 1)) == 0) { /* iterative radix-2 */
    for (size_t i = 1, j = 0; i < n; i++) {
      size_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(x[i], x[j]);
    }
    for (size_t len = 2; len <= n; len <<= 1)
      for (size_t i = 0; i < n; i += len)
        for (size_t j = 0; j < len / 2; j++) {
          cd u = x[i + j], v = x[i + j + len / 2] * w[j * (n / len)];
          x[i + j] = u + v;
          x[i + j + len / 2] = u - v;
        }
    return;
  }
  std::vector<cd> y(n);
  for (size_t k = 0; k < n; k++) {
    cd s = 0;
    for (size_t j = 0; j < n; j++) s += x[j] * w[(j * k) % n];
    y[k] = s;
  }
  x.swap(y);
}

bool is_double(cufftType t) { return t == CUFFT_Z2Z || t == CUFFT_D2Z || t == CUFFT_Z2D; }
bool real_in(cufftType t) { return t == CUFFT_R2C || t == CUFFT_D2Z; }
bool real_out(cufftType t) { return t == CUFFT_C2R || t == CUFFT_Z2D; }

/* Element i of a side as complex (re only for a real side). */
cd ld(const void *p, bool dbl, bool real, long long i) {
  if (real) return dbl ? cd(((const double *)p)[i], 0) : cd(((const float *)p)[i], 0);
  return dbl ? cd(((const double *)p)[2 * i], ((const double *)p)[2 * i + 1])
             : cd(((const float *)p)[2 * i], ((const float *)p)[2 * i + 1]);
}
void st(void *p, bool dbl, bool real, long long i, cd v) {
  if (real) {
    if (dbl) ((double *)p)[i] = v.real();
    else ((float *)p)[i] = (float)v.real();
  } else if (dbl) {
    ((double *)p)[2 * i] = v.real();
    ((double *)p)[2 * i + 1] = v.imag();
  } else {
    ((float *)p)[2 * i] = (float)v.real();
    ((float *)p)[2 * i + 1] = (float)v.imag();
  }
}

cufftResult exec(cufftHandle h, cufftType want, const void *in, void *out, int dir) {
  plan *p = find(h);
  if (!p || !p->made) return CUFFT_INVALID_PLAN;
  if (p->type != want) return CUFFT_INVALID_TYPE;
  if (want == CUFFT_C2C || want == CUFFT_Z2Z) {
    if (dir != CUFFT_FORWARD && dir != CUFFT_INVERSE) return CUFFT_INVALID_VALUE;
  } else {
    dir = real_in(want) ? CUFFT_FORWARD : CUFFT_INVERSE;
  }
  if (!in || !out) return CUFFT_INVALID_VALUE;
  const bool dbl = is_double(want), rin = real_in(want), rout = real_out(want);
  const long long n = p->n, half = n / 2 + 1, nin = rout ? half : n, nout = rin ? half : n;
  if (p->busy.exchange(1)) {
    tc_sim_vendor_violation("cuFFT plan %d executed by two threads at once", (int)h);
    for (long long b = 0; b < p->batch; b++)
      for (long long k = 0; k < nout; k++) st(out, dbl, rout, b * p->od + k * p->os, cd(NAN, NAN));
    return CUFFT_SUCCESS; /* busy stays with the first thread */
  }
  if (tc_sim_vendor_inside_hook) tc_sim_vendor_inside_hook();
  std::vector<std::vector<cd>> res((size_t)p->batch);
  for (long long b = 0; b < p->batch; b++) { /* all inputs read before any output is written (in place) */
    std::vector<cd> x((size_t)n);
    for (long long j = 0; j < nin; j++) x[(size_t)j] = ld(in, dbl, rin, b * p->id + j * p->is);
    if (rout) /* the Hermitian half gives the rest */
      for (long long j = half; j < n; j++) x[(size_t)j] = std::conj(x[(size_t)(n - j)]);
    dft(x, dir == CUFFT_FORWARD ? -1 : 1);
    x.resize((size_t)nout);
    res[(size_t)b].swap(x);
  }
  if (rout && in != out) /* cuFFT's C2R may overwrite its input */
    for (long long b = 0; b < p->batch; b++)
      for (long long j = 0; j < nin; j++) st((void *)in, dbl, false, b * p->id + j * p->is, cd(NAN, NAN));
  for (long long b = 0; b < p->batch; b++)
    for (long long k = 0; k < nout; k++) st(out, dbl, rout, b * p->od + k * p->os, res[(size_t)b][(size_t)k]);
  p->busy.store(0);
  return CUFFT_SUCCESS;
}

} // namespace

extern "C" {

cufftResult cufftCreate(cufftHandle *out) {
  if (!out) return CUFFT_INVALID_VALUE;
  plan *p = new plan();
  p->made = 0;
  std::lock_guard<std::mutex> g(plans_mu);
  plans.push_back(p);
  *out = (cufftHandle)plans.size();
  return CUFFT_SUCCESS;
}

cufftResult cufftMakePlanMany64(cufftHandle h, int rank, long long *n, long long *inembed, long long istride,
                                long long idist, long long *onembed, long long ostride, long long odist,
                                cufftType type, long long batch, size_t *work) {
  plan *p = find(h);
  if (!p) return CUFFT_INVALID_PLAN;
  if (rank != 1 || !n) return CUFFT_INVALID_VALUE; /* the stand-in makes 1-D plans only */
  if (n[0] < 1 || batch < 1) return CUFFT_INVALID_SIZE;
  if (type != CUFFT_C2C && type != CUFFT_Z2Z && type != CUFFT_R2C && type != CUFFT_D2Z && type != CUFFT_C2R &&
      type != CUFFT_Z2D)
    return CUFFT_INVALID_TYPE;
  if (tc_sim_vendor_fault("fft-alloc")) return CUFFT_ALLOC_FAILED;
  long long half = n[0] / 2 + 1;
  p->type = type;
  p->n = n[0];
  p->batch = batch;
  /* the basic layout ignores the strides and distances given */
  p->is = inembed ? istride : 1;
  p->id = inembed ? idist : (real_out(type) ? half : n[0]);
  p->os = onembed ? ostride : 1;
  p->od = onembed ? odist : (real_in(type) ? half : n[0]);
  p->made = 1;
  if (work) *work = 0;
  return CUFFT_SUCCESS;
}

cufftResult cufftSetStream(cufftHandle h, cudaStream_t) { return find(h) ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN; }

cufftResult cufftDestroy(cufftHandle h) {
  std::lock_guard<std::mutex> g(plans_mu);
  if (h < 1 || (size_t)h > plans.size() || !plans[(size_t)h - 1]) return CUFFT_INVALID_PLAN;
  if (plans[(size_t)h - 1]->busy.load()) { /* kept (leaked): the running exec still reads it */
    tc_sim_vendor_violation("cuFFT plan %d destroyed while another thread runs it", (int)h);
  } else {
    delete plans[(size_t)h - 1];
  }
  plans[(size_t)h - 1] = NULL;
  return CUFFT_SUCCESS;
}

cufftResult cufftExecC2C(cufftHandle p, cufftComplex *in, cufftComplex *out, int dir) {
  return exec(p, CUFFT_C2C, in, out, dir);
}
cufftResult cufftExecZ2Z(cufftHandle p, cufftDoubleComplex *in, cufftDoubleComplex *out, int dir) {
  return exec(p, CUFFT_Z2Z, in, out, dir);
}
cufftResult cufftExecR2C(cufftHandle p, cufftReal *in, cufftComplex *out) { return exec(p, CUFFT_R2C, in, out, 0); }
cufftResult cufftExecD2Z(cufftHandle p, cufftDoubleReal *in, cufftDoubleComplex *out) {
  return exec(p, CUFFT_D2Z, in, out, 0);
}
cufftResult cufftExecC2R(cufftHandle p, cufftComplex *in, cufftReal *out) { return exec(p, CUFFT_C2R, in, out, 0); }
cufftResult cufftExecZ2D(cufftHandle p, cufftDoubleComplex *in, cufftDoubleReal *out) {
  return exec(p, CUFFT_Z2D, in, out, 0);
}

} /* extern "C" */
