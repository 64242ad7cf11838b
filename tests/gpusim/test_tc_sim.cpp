/* tests/gpusim/test_tc_sim.cpp: the gpusim executor (plugins/gpusim/tc_sim.h)
 * behaves as a GPU does where the shared kernels depend on it:
 *   - every thread of a 3-D grid of 3-D blocks runs exactly once, with its
 *     own indices and its own copy of the arguments;
 *   - __syncthreads is a barrier: a block tree reduction in shared memory is
 *     exact, and a kernel that omits the barrier is caught (its answer
 *     changes with the thread order the executor alternates);
 *   - blocks run in no fixed order: forward on one launch, backward on the
 *     next, so a kernel whose blocks depend on each other is caught;
 *   - shared memory, dynamic and static, is there and undefined (0xA5) in
 *     every block: not zero, not what the block before it wrote;
 *   - a block's static (TC_SHARED) and dynamic shared memory together may
 *     not pass 48 KiB: a launch over it fails, naming the bytes, whether the
 *     dynamic part alone passes it (nothing runs) or the sum does;
 *   - warp shuffles (xor, down, up; 32 and 64 lanes) exchange values between
 *     the lanes of a warp only, several in a row, and threads that wait at
 *     different places (a barrier here, a shuffle there) fail the launch
 *     instead of hanging it;
 *   - a bad configuration runs nothing and is reported by cudaGetLastError,
 *     once; a launch from inside a kernel is refused; a barrier the
 *     executor cannot honour (only in blocks after the first) fails the
 *     launch;
 *   - the runtime calls copy and set host memory and refuse absent devices. */
#include <cstdio>
#include <cstring>
#include <vector>

#include "check.h"
#include "tc_port.h"

__global__ void mark(int *hits, unsigned bx, unsigned by, unsigned tx, unsigned ty, int64_t add) {
  unsigned b = blockIdx.x + bx * (blockIdx.y + by * blockIdx.z);
  unsigned t = threadIdx.x + tx * (threadIdx.y + ty * threadIdx.z);
  unsigned nt = blockDim.x * blockDim.y * blockDim.z;
  hits[b * nt + t] += 1 + (int)add;
  add = 1000; /* a thread's own copy: the next thread must still see 0 */
}

#define NT 128
__global__ void tree_sum(const double *x, double *out, int barrier) {
  TC_SHARED(double, sh, [NT]);
  sh[threadIdx.x] = x[blockIdx.x * NT + threadIdx.x];
  if (barrier) __syncthreads();
  for (int s = NT / 2; s > 0; s >>= 1) {
    double v = threadIdx.x < (unsigned)s ? sh[threadIdx.x + s] : 0;
    if (barrier) __syncthreads();
    if (threadIdx.x < (unsigned)s) sh[threadIdx.x] += v;
    if (barrier) __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = sh[0];
}

__global__ void dyn_first(unsigned char *out, int n) {
  TC_SHARED_DYN(unsigned char, buf);
  if (threadIdx.x == 0)
    for (int i = 0; i < n; i++) out[i] = buf[i];
}

/* Only blocks past the first wait at a barrier: the simulator, which ran the
 * first block's threads as fibers and found no barrier there, runs the rest
 * as plain calls and must fail the launch rather than skip the wait. */
__global__ void late_barrier(int *ran) {
  if (blockIdx.x > 0) __syncthreads();
  ran[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

__global__ void tree_sum_probe(int *ran) { ran[threadIdx.x] = 2; }

/* Block b reads what block b - 1 wrote: wrong on a GPU, where blocks run in
   any order. */
__global__ void chain(int *v) { v[blockIdx.x + 1] = v[blockIdx.x] + 1; }
__global__ void own(int *v) { v[blockIdx.x] = 3 * (int)blockIdx.x; }

/* 4 KiB of static shared memory in two arrays (one in a device function, as
 * the shared kernels' block reductions have it) beside the launch's dynamic
 * bytes. */
__device__ void half_static(int *ran) {
  TC_SHARED(double, b, [256]);
  b[threadIdx.x] = 1;
  ran[threadIdx.x] += (int)b[threadIdx.x];
}
__global__ void with_static(int *ran) {
  TC_SHARED(int, a, [2][256]);
  TC_SHARED_DYN(unsigned char, d);
  a[0][threadIdx.x] = 1;
  d[threadIdx.x] = 0;
  ran[threadIdx.x] += a[0][threadIdx.x];
  half_static(ran);
}

/* Reads its static array before writing it: undefined in every block. */
__global__ void stale(unsigned *seen) {
  TC_SHARED(unsigned, s, [32]);
  seen[blockIdx.x * 32 + threadIdx.x] = s[threadIdx.x];
  s[threadIdx.x] = 7;
}

__global__ void nested(int *ran) {
  *ran = 1;
  TC_LAUNCH(1, 1, nested)(ran);
}

/* Each thread: the sum of its warp's values by an xor butterfly of width
 * lanes, then its down-by-d neighbour's value; twice over, so slots are
 * reused. */
__global__ void warp_ops(const double *x, double *sum, double *down, double *up, int width, int d) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int rep = 0; rep < 2; rep++) {
    double v = x[t] * (rep + 1);
    for (int o = width / 2; o > 0; o >>= 1) v += tc_sim_shfl_t(v, 0, o, width);
    sum[2 * t + rep] = v;
    down[2 * t + rep] = tc_sim_shfl_t(x[t] * (rep + 1), 1, d, width);
    up[2 * t + rep] = tc_sim_shfl_t(x[t] * (rep + 1), 2, d, width);
  }
}

/* Lanes 0..15 wait at a barrier, the others of the warp at a shuffle that
   needs the first ones: a GPU hangs. */
__global__ void split_wait(int *ran) {
  if (threadIdx.x < 16) __syncthreads();
  else ran[threadIdx.x] = TC_SHFL_XOR((int)threadIdx.x, 1);
  ran[threadIdx.x] += 1000;
}
/* Only even lanes shuffle, reading odd ones that never post. */
__global__ void half_shuffle(int *ran) {
  if (threadIdx.x % 2 == 0) ran[threadIdx.x] = TC_SHFL_XOR((int)threadIdx.x, 1);
}

int main() {
  /* every thread once, indices and argument copies */
  {
    const unsigned bx = 3, by = 2, bz = 2, tx = 4, ty = 3, tz = 2;
    std::vector<int> hits(bx * by * bz * tx * ty * tz, 0);
    TC_LAUNCH(dim3(bx, by, bz), dim3(tx, ty, tz), mark)(hits.data(), bx, by, tx, ty, 0);
    CHECK(cudaGetLastError() == cudaSuccess);
    int wrong = 0;
    for (int h : hits) wrong += h != 1;
    CHECK(wrong == 0);
  }
  /* a barrier is a barrier; its absence shows */
  {
    const int nb = 6;
    std::vector<double> x(nb * NT), ok(nb), racy(nb), want(nb, 0);
    for (int i = 0; i < nb * NT; i++) {
      x[i] = (double)(i % 97) - 40;
      want[i / NT] += x[i];
    }
    TC_LAUNCH(nb, NT, tree_sum)(x.data(), ok.data(), 1);
    CHECK(cudaGetLastError() == cudaSuccess);
    int good = 0, caught = 0;
    for (int b = 0; b < nb; b++) good += ok[b] == want[b];
    CHECK(good == nb);
    TC_LAUNCH(nb, NT, tree_sum)(x.data(), racy.data(), 0);
    for (int b = 0; b < nb; b++) caught += racy[b] != want[b];
    CHECK(caught > 0); /* without barriers some block must come out wrong */
    printf("tree sum: %d/%d blocks exact with barriers, %d/%d wrong without\n", good, nb, caught, nb);
  }
  /* warp shuffles: within a warp, of 32 or 64 lanes, the last warp of a
     block of 96 partial (its missing lanes give nothing: xor with them
     returns the lane's own value, as does down past the warp) */
  for (int width : {32, 64}) {
    const unsigned nb = 3, nt = 96, n = nb * nt;
    const int d = 5;
    std::vector<double> x(n), sum(2 * n), down(2 * n), up(2 * n);
    for (unsigned i = 0; i < n; i++) x[i] = (double)((i * 37) % 101) - 50;
    TC_LAUNCH(nb, nt, warp_ops)(x.data(), sum.data(), down.data(), up.data(), width, d);
    CHECK(cudaGetLastError() == cudaSuccess);
    int wrong = 0;
    for (unsigned i = 0; i < n; i++) {
      unsigned b = i / nt, lane = i % nt % width, w0 = b * nt + (i % nt - lane);
      unsigned wn = nt - (i % nt - lane) < (unsigned)width ? nt - (i % nt - lane) : (unsigned)width;
      double want = 0;
      if (wn == (unsigned)width) { /* a whole warp: its sum */
        for (unsigned q = 0; q < wn; q++) want += x[w0 + q];
      } else { /* the butterfly over a part warp: simulate its steps */
        std::vector<double> v(width, 0);
        for (unsigned q = 0; q < wn; q++) v[q] = x[w0 + q];
        for (int o = width / 2; o > 0; o >>= 1) {
          std::vector<double> nv(v);
          for (unsigned q = 0; q < wn; q++) nv[q] = v[q] + ((q ^ o) < wn ? v[q ^ o] : v[q]);
          v = nv;
        }
        want = v[lane];
      }
      double dn = lane + d < wn ? x[i + d] : x[i], un = lane >= (unsigned)d ? x[i - d] : x[i];
      for (int rep = 0; rep < 2; rep++) {
        wrong += sum[2 * i + rep] != want * (rep + 1);
        wrong += down[2 * i + rep] != dn * (rep + 1);
        wrong += up[2 * i + rep] != un * (rep + 1);
      }
    }
    CHECK(wrong == 0);
    printf("shuffles of %d lanes: %d wrong of %u\n", width, wrong, 6 * n);
  }
  /* threads that wait for each other at different places fail the launch
     (and it returns: the threads are released and run to their ends) */
  {
    std::vector<int> ran(32, 0);
    TC_LAUNCH(2, 32, split_wait)(ran.data());
    cudaError_t e = cudaGetLastError();
    CHECK(e == cudaErrorLaunchFailure);
    CHECK(strstr(cudaGetErrorString(e), "different barriers or shuffles") != nullptr);
    int all = 0;
    for (int v : ran) all += v >= 1000;
    CHECK(all == 32);
    TC_LAUNCH(1, 32, half_shuffle)(ran.data());
    e = cudaGetLastError();
    CHECK(e == cudaErrorLaunchFailure);
    CHECK(strstr(cudaGetErrorString(e), "did not take part") != nullptr);
    TC_LAUNCH(1, 32, tree_sum_probe)(ran.data());
    CHECK(cudaGetLastError() == cudaSuccess); /* neither failure sticks */
  }
  /* blocks in no fixed order: a kernel whose blocks read what earlier
     blocks of the same launch wrote gets two answers from two launches */
  {
    const int nb = 8;
    std::vector<int> fwd(nb + 1, 0), bwd(nb + 1, 0), ok1(nb), ok2(nb);
    TC_LAUNCH(nb, 1, chain)(fwd.data());
    TC_LAUNCH(nb, 1, chain)(bwd.data());
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(fwd != bwd);
    CHECK((fwd[nb] == nb && bwd[nb] == 1) || (fwd[nb] == 1 && bwd[nb] == nb));
    TC_LAUNCH(nb, 1, own)(ok1.data()); /* blocks that keep to their own data agree */
    TC_LAUNCH(nb, 1, own)(ok2.data());
    CHECK(ok1 == ok2 && ok1[nb - 1] == 3 * (nb - 1));
  }
  /* dynamic shared memory: present and undefined */
  {
    std::vector<unsigned char> got(4096, 0);
    TC_LAUNCH_SMEM(1, 32, 4096, dyn_first)(got.data(), 4096);
    CHECK(cudaGetLastError() == cudaSuccess);
    int a5 = 0;
    for (unsigned char v : got) a5 += v == 0xA5;
    CHECK(a5 == 4096);
  }
  /* static shared memory starts undefined in each block, whether the block
   * before it ran on fibers or as plain calls */
  for (int rep = 0; rep < 2; rep++) {
    std::vector<unsigned> seen(3 * 32, 0);
    TC_LAUNCH(3, 32, stale)(seen.data());
    CHECK(cudaGetLastError() == cudaSuccess);
    int a5 = 0;
    for (unsigned v : seen) a5 += v == 0xA5A5A5A5u;
    CHECK(a5 == 3 * 32);
  }
  /* static + dynamic shared memory: 4 KiB static fits beside 44 KiB of
   * dynamic, not beside 1 byte more (the failure names both sizes and does
   * not stick); nothing counted outside a launch */
  {
    std::vector<int> ran(32, 0);
    TC_LAUNCH_SMEM(2, 32, (size_t)44 << 10, with_static)(ran.data());
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(ran[0] == 4 && ran[31] == 4);
    TC_LAUNCH_SMEM(2, 32, ((size_t)44 << 10) + 1, with_static)(ran.data());
    cudaError_t e = cudaGetLastError();
    CHECK(e == cudaErrorSimSharedMemory);
    CHECK(strstr(cudaGetErrorString(e), "4096 bytes static and 45057 dynamic") != nullptr);
    CHECK(cudaGetLastError() == cudaSuccess);
    TC_LAUNCH_SMEM(1, 32, 0, with_static)(ran.data());
    CHECK(cudaGetLastError() == cudaSuccess);
    half_static(ran.data()); /* host code calling a device function: no launch */
    CHECK(cudaGetLastError() == cudaSuccess);
  }
  /* bad configurations run nothing; the error is reported once */
  {
    std::vector<int> hits(4096, 0);
    TC_LAUNCH(1, 1025, mark)(hits.data(), 1, 1, 1025, 1, 0);
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
    CHECK(cudaGetLastError() == cudaSuccess);
    TC_LAUNCH(0, 32, mark)(hits.data(), 1, 1, 32, 1, 0);
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
    TC_LAUNCH_SMEM(1, 32, (size_t)1 << 30, mark)(hits.data(), 1, 1, 32, 1, 0);
    CHECK(cudaGetLastError() == cudaErrorSimSharedMemory);
    TC_LAUNCH_SMEM(1, 32, ((size_t)48 << 10) + 1, mark)(hits.data(), 1, 1, 32, 1, 0);
    CHECK(cudaGetLastError() == cudaErrorSimSharedMemory);
    int touched = 0;
    for (int h : hits) touched += h != 0;
    CHECK(touched == 0);
    /* Blocks run backward on every other launch: then the first block run
       (the last one) reaches the barrier and every block runs on fibers,
       which is a correct run. Of two launches in a row, one fails. */
    int failed = 0;
    for (int rep = 0; rep < 2; rep++) {
      std::vector<int> late(4 * 32, 0);
      TC_LAUNCH(4, 32, late_barrier)(late.data());
      cudaError_t e = cudaGetLastError();
      CHECK(e == cudaErrorLaunchFailure || e == cudaSuccess);
      failed += e == cudaErrorLaunchFailure;
      int all = 0;
      for (int v : late) all += v == 1;
      CHECK(e != cudaSuccess || all == 4 * 32);
    }
    CHECK(failed == 1);
    std::vector<int> late(4 * 32, 0);
    TC_LAUNCH(4, 32, tree_sum_probe)(late.data());
    CHECK(cudaGetLastError() == cudaSuccess); /* the failure does not stick */
    int ran = 0;
    TC_LAUNCH(1, 1, nested)(&ran);
    CHECK(ran == 1);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue); /* the inner launch */
  }
  /* runtime calls */
  {
    void *p = nullptr;
    CHECK(cudaMalloc(&p, 64) == cudaSuccess && p != nullptr);
    CHECK(((unsigned char *)p)[63] == 0xA5);
    CHECK(cudaMemsetAsync(p, 7, 64, 0) == cudaSuccess);
    unsigned char h[64];
    CHECK(cudaMemcpy(h, p, 64, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(h[0] == 7 && h[63] == 7);
    CHECK(cudaFree(p) == cudaSuccess);
    CHECK(cudaSetDevice(0) == cudaSuccess);
    CHECK(cudaSetDevice(-1) == cudaErrorInvalidDevice);
    CHECK(cudaSetDevice(99) == cudaErrorInvalidDevice);
    int d = -1;
    CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
    CHECK(cudaGetDevice(&d) == cudaSuccess && d == 0);
    CHECK(cudaMalloc(nullptr, 8) == cudaErrorInvalidValue);
  }
  return check_report();
}
