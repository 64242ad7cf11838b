/* plugins/gpusim/tc_sim.cpp: the executor and the runtime calls of tc_sim.h.
 *
 * A launch runs every block in turn on the calling OS thread. A block's
 * threads are fibers (own stacks, switched by ctx_switch): each runs until
 * it reaches __syncthreads or returns, then the next one runs; when every
 * live thread has had its turn, the round is over and all of them stand at
 * the same barrier, which is what a barrier means. Rounds alternate forward
 * and backward thread order (and start the other way round on odd blocks),
 * so a kernel that reads what another thread writes without a barrier
 * between them gets a different answer from one round to the next instead
 * of passing by luck. Blocks, likewise, run forward on one launch and
 * backward on the next.
 *
 * Stacks are mmap'ed with a guard page below each (an overflow faults rather
 * than overwriting the neighbour) and kept per OS thread for its life. Shared
 * memory, dynamic and static, is refilled with 0xA5 bytes for every block:
 * CUDA leaves it undefined, so a kernel must not find zeros there, nor what
 * the block before it left. Nothing here aborts: a
 * bad configuration is an error for cudaGetLastError, as on a GPU. */
#include "tc_sim.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <deque>

/* AddressSanitizer must be told when the stack changes under it (it checks
 * every access against the stack it thinks is current), so each switch is
 * announced with the stack it goes to: the fiber's, or the scheduler's
 * (learnt at a fiber's first entry). Empty without ASan. */
#if defined(__SANITIZE_ADDRESS__)
#define TC_SIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TC_SIM_ASAN 1
#endif
#endif
#ifdef TC_SIM_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#define SWITCH_START(save, bottom, size) __sanitizer_start_switch_fiber((save), (bottom), (size))
#define SWITCH_DONE(save, bottom, size) __sanitizer_finish_switch_fiber((save), (bottom), (size))
#else
#define SWITCH_START(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#define SWITCH_DONE(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* ThreadSanitizer must be told too: each fiber is a TSan fiber, and every
 * switch says where it goes (a switch orders what came before it, so the
 * fibers of one block meeting at a barrier are not races; threads of two
 * launches on two OS threads still are). Empty without TSan. */
#if defined(__SANITIZE_THREAD__)
#define TC_SIM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TC_SIM_TSAN 1
#endif
#endif
#ifdef TC_SIM_TSAN
#include <sanitizer/tsan_interface.h>
#define TSAN_NEW() __tsan_create_fiber(0)
#define TSAN_CURRENT() __tsan_get_current_fiber()
#define TSAN_TO(f) __tsan_switch_to_fiber((f), 0)
#define TSAN_DESTROY(f) __tsan_destroy_fiber(f)
#else
#define TSAN_NEW() nullptr
#define TSAN_CURRENT() nullptr
#define TSAN_TO(f) ((void)(f))
#define TSAN_DESTROY(f) ((void)(f))
#endif

__thread uint3 threadIdx, blockIdx, blockDim, gridDim;

namespace {

const size_t kStack = (size_t)256 << 10; /* per simulated thread */
/* A block's shared memory, static and dynamic together, without the opt-in
 * (cudaFuncAttributeMaxDynamicSharedMemorySize) that no shared kernel makes:
 * CUDA's portable 48 KiB. (HIP's 64 KiB is above it.) */
const size_t kMaxShared = (size_t)48 << 10;
const int kStaticSites = 32; /* static shared arrays counted per launch */

/* A saved execution context and the switch between two. On x86-64 a few
 * instructions (the callee-saved registers, the SSE and x87 control words,
 * the stack pointer): swapcontext also saves the signal mask, a system call
 * each way, which made it most of the simulator's time. Elsewhere ucontext. */
#if defined(__x86_64__) && !defined(TC_SIM_UCONTEXT) /* TC_SIM_UCONTEXT: the portable path, tested */
struct fctx {
  void *sp;
};
extern "C" void tc_sim_swap_x64(void **save_sp, void *to_sp);
__asm__(".text\n"
        ".globl tc_sim_swap_x64\n"
        ".hidden tc_sim_swap_x64\n"
        ".type tc_sim_swap_x64,@function\n"
        "tc_sim_swap_x64:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size tc_sim_swap_x64, .-tc_sim_swap_x64\n");
static void ctx_switch(fctx *from, fctx *to) { tc_sim_swap_x64(&from->sp, to->sp); }
/* A first switch to the stack [lo, lo + size) 'returns' into entry, with the
 * stack aligned as at a function's first instruction; entry never returns. */
static void ctx_make(fctx *c, char *lo, size_t size, void (*entry)()) {
  uintptr_t top = ((uintptr_t)(lo + size)) & ~(uintptr_t)15;
  uint64_t *sp = (uint64_t *)top - 9;
  uint32_t csr[2];
  __asm__ volatile("stmxcsr %0\n fnstcw %1" : "=m"(csr[0]), "=m"(csr[1]));
  memcpy(&sp[0], csr, 8); /* the control words in force now */
  for (int i = 1; i <= 6; i++) sp[i] = 0; /* r15 .. rbp */
  sp[7] = (uint64_t)(uintptr_t)entry;
  sp[8] = 0; /* entry's return address: none */
  c->sp = sp;
}
#else
struct fctx {
  ucontext_t uc;
};
static void ctx_switch(fctx *from, fctx *to) { swapcontext(&from->uc, &to->uc); }
static void ctx_make(fctx *c, char *lo, size_t size, void (*entry)()) {
  getcontext(&c->uc);
  c->uc.uc_stack.ss_sp = lo;
  c->uc.uc_stack.ss_size = size;
  c->uc.uc_link = nullptr;
  makecontext(&c->uc, entry, 0);
}
#endif

struct fiber {
  fctx ctx;
  char *base; /* mapping: guard page, then the stack */
  bool started; /* its context runs fiber_entry's loop */
  bool done;    /* this block's thread has returned */
  int wait;     /* what it is parked at: 0 nothing (not started), 1 a barrier, 2 a shuffle */
  unsigned long bars;  /* barriers it has reached in this block */
  unsigned long shfls; /* shuffles it has posted a value to in this block */
  uint64_t slot[2];    /* its values of shuffles shfls - 1 (odd/even) */
  void *fake; /* ASan's fake stack while switched away */
  void *tsan; /* TSan's fiber */
};

struct executor {
  std::deque<fiber> fibers; /* grows without moving: a parked fiber holds its address */
  fctx sched;
  int cur = -1; /* the fiber running, -1 on the scheduler */
  void *sched_fake = nullptr; /* ASan: the scheduler's stack while a fiber runs */
  void *sched_tsan = nullptr; /* TSan: the OS thread's own fiber */
  const void *sched_bottom = nullptr;
  size_t sched_size = 0;
  bool running = false;
  bool direct = false;      /* this block's threads are plain calls (no barrier seen) */
  unsigned long barriers = 0; /* __syncthreads reached in this launch */
  unsigned long long launches = 0; /* on this OS thread: odd ones run their blocks backward */
  bool lost_barrier = false; /* one was reached in a direct block */
  bool stuck = false;  /* a round in which no thread could go on: released by force */
  bool bad_shfl = false; /* a shuffle read a lane that never posted to it */
  unsigned nt = 0;     /* threads in the running block */
  unsigned warp = 32;  /* lanes a warp, as the kernel's last shuffle said */
  void (*body)(void *) = nullptr;
  void *arg = nullptr;
  void *dyn = nullptr;
  size_t dyn_bytes = 0;
  unsigned long long block_seq = 0; /* blocks run on this OS thread, counting from 1 */
  size_t launch_dyn = 0;    /* this launch's dynamic shared memory */
  struct site {
    void *at;                 /* a static shared array met in this launch */
    unsigned long long block; /* the block (block_seq) that last found it undefined */
  } static_sites[kStaticSites];
  int n_static = 0;
  size_t static_bytes = 0;  /* and their bytes */
  bool over_shared = false; /* static + dynamic passed kMaxShared: the launch fails */
  ~executor() {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (fiber &f : fibers)
      if (f.base) {
        /* A parked fiber's frames leave ASan's stack poison behind in the
         * shadow; memory mapped there later (another thread's stack) would
         * read as a stack overflow. */
        UNPOISON(f.base + page, kStack);
        munmap(f.base, kStack + page);
        if (f.tsan) TSAN_DESTROY(f.tsan);
      }
    free(dyn);
  }
  /* n fibers with stacks; false when the memory is not there */
  bool reserve(size_t n) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    while (fibers.size() < n) {
      void *m = mmap(nullptr, kStack + page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (m == MAP_FAILED) return false;
      mprotect(m, page, PROT_NONE);
      fiber f;
      memset(&f, 0, sizeof f);
      f.base = (char *)m;
      fibers.push_back(f);
    }
    return true;
  }
};

thread_local executor X;
thread_local cudaError_t last_error = cudaSuccess;
thread_local int current_device = 0;

/* A fiber lives as long as its OS thread: it runs one simulated thread's
 * body, parks, and runs the next one when resumed after that. (Ending fibers
 * and starting new ones for every block made ASan map and unmap a fake stack
 * for each, which slowed the sanitizer build's suite twentyfold.) */
[[noreturn]] void fiber_entry() {
  SWITCH_DONE(nullptr, &X.sched_bottom, &X.sched_size);
  for (;;) {
    fiber &f = X.fibers[(size_t)X.cur];
    X.body(X.arg);
    f.done = true;
    SWITCH_START(&f.fake, X.sched_bottom, X.sched_size);
    TSAN_TO(X.sched_tsan);
    ctx_switch(&f.ctx, &X.sched);
    SWITCH_DONE(f.fake, &X.sched_bottom, &X.sched_size);
  }
}

/* Scheduler -> fiber t, back when it waits at a barrier or has returned. */
void resume(fiber &f) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  SWITCH_START(&X.sched_fake, f.base + page, kStack);
  if (!X.sched_tsan) X.sched_tsan = TSAN_CURRENT();
  if (!f.tsan) f.tsan = TSAN_NEW();
  TSAN_TO(f.tsan);
  ctx_switch(&X.sched, &f.ctx);
  SWITCH_DONE(X.sched_fake, nullptr, nullptr);
}

/* A block without barriers: each thread a plain call, in the order of the
 * round the block would have started with. */
void run_direct(unsigned nt, unsigned long long linear) {
  X.block_seq++;
  if (X.dyn_bytes) memset(X.dyn, 0xA5, X.dyn_bytes);
  bool back = linear & 1;
  for (unsigned i = 0; i < nt; i++) {
    unsigned t = back ? nt - 1 - i : i;
    threadIdx.x = t % blockDim.x;
    threadIdx.y = (t / blockDim.x) % blockDim.y;
    threadIdx.z = t / (blockDim.x * blockDim.y);
    X.body(X.arg);
  }
}

void run_block(unsigned nt, unsigned long long linear) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  fiber *fb[1024]; /* the deque's elements, without its indexing in the rounds */
  for (unsigned t = 0; t < nt; t++) {
    fiber &f = X.fibers[t];
    fb[t] = &f;
    if (!f.started) ctx_make(&f.ctx, f.base + page, kStack, fiber_entry);
    f.started = true;
    f.done = false;
    f.wait = 0;
    f.bars = f.shfls = 0;
  }
  X.block_seq++;
  X.nt = nt;
  if (X.dyn_bytes) memset(X.dyn, 0xA5, X.dyn_bytes);
  unsigned live = nt;
  bool forced = false; /* after a round that could not go on: every thread runs */
  for (unsigned long long round = linear & 1; live > 0; round++) {
    /* What the threads wait for, as the round begins: a thread at a barrier
     * goes on once every live thread of the block has reached it, a thread
     * at a shuffle once every live lane of its warp has posted its value.
     * (What changes during the round is seen in the next one.) */
    unsigned long min_bars = (unsigned long)-1, min_shfls[1024 / 32];
    unsigned warp = X.warp;
    for (unsigned w = 0; w < (nt + warp - 1) / warp; w++) min_shfls[w] = (unsigned long)-1;
    for (unsigned t = 0; t < nt; t++) {
      const fiber &f = *fb[t];
      if (f.done) continue;
      if (f.bars < min_bars) min_bars = f.bars;
      if (f.shfls < min_shfls[t / warp]) min_shfls[t / warp] = f.shfls;
    }
    bool back = round & 1, moved = false;
    for (unsigned i = 0; i < nt; i++) {
      unsigned t = back ? nt - 1 - i : i;
      fiber &f = *fb[t];
      if (f.done) continue;
      if (!forced && ((f.wait == 1 && f.bars > min_bars) || (f.wait == 2 && f.shfls > min_shfls[t / warp])))
        continue;
      moved = true;
      X.cur = (int)t;
      threadIdx.x = t % blockDim.x;
      threadIdx.y = (t / blockDim.x) % blockDim.y;
      threadIdx.z = t / (blockDim.x * blockDim.y);
      resume(f);
      X.cur = -1;
      if (f.done) live--;
    }
    /* Threads that wait for each other at different places (a barrier not
     * every thread reaches, a shuffle some lane skips) hang a GPU; here the
     * launch fails, and the threads run on to their ends without waiting so
     * that their stacks unwind. */
    if (!moved && live > 0) X.stuck = forced = true;
  }
}

int env_devices() {
  const char *e = getenv("TABI_GPUSIM_DEVICES");
  if (!e || !*e) return 1;
  char *end = nullptr;
  long v = strtol(e, &end, 10);
  if (*end || v < 0) return 1;
  return v > 8 ? 8 : (int)v;
}

} // namespace

extern "C" {

int tc_sim_device_count(void) {
  static int n = -1;
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, [] { n = env_devices(); });
  return n;
}

/* The message of the last launch that failed after its blocks ran. */
static thread_local char launch_msg[200];
/* The message of the last launch refused for its shared memory. */
static thread_local char shared_msg[200];

static cudaError_t shared_fail(size_t static_bytes, size_t dyn_bytes) {
  snprintf(shared_msg, sizeof shared_msg,
           "gpusim: a block's shared memory, %zu bytes static and %zu dynamic, passes the 48 KiB "
           "a kernel may use without cudaFuncAttributeMaxDynamicSharedMemorySize (on a GPU: "
           "invalid argument)", static_bytes, dyn_bytes);
  return cudaErrorSimSharedMemory;
}

void tc_sim_run(dim3 g, dim3 b, size_t smem, void (*body)(void *), void *arg) {
  unsigned long long nt = (unsigned long long)b.x * b.y * b.z;
  if (g.x == 0 || g.y == 0 || g.z == 0 || g.x > 0x7fffffffu || g.y > 65535 || g.z > 65535 ||
      nt == 0 || nt > 1024 || b.z > 64) {
    last_error = cudaErrorInvalidConfiguration;
    return;
  }
  if (X.running) { /* a launch from a kernel */
    last_error = cudaErrorInvalidValue;
    return;
  }
  if (smem > kMaxShared) {
    last_error = shared_fail(0, smem);
    return;
  }
  if (!X.reserve((size_t)nt)) {
    last_error = cudaErrorMemoryAllocation;
    return;
  }
  if (smem > X.dyn_bytes) {
    void *d = nullptr;
    if (posix_memalign(&d, 64, smem) != 0) {
      last_error = cudaErrorMemoryAllocation;
      return;
    }
    free(X.dyn);
    X.dyn = d;
  }
  X.dyn_bytes = smem > X.dyn_bytes ? smem : X.dyn_bytes;
  X.running = true;
  X.launch_dyn = smem;
  X.n_static = 0;
  X.static_bytes = 0;
  X.over_shared = false;
  X.barriers = 0;
  X.lost_barrier = false;
  X.stuck = false;
  X.bad_shfl = false;
  X.warp = 32;
  X.body = body;
  X.arg = arg;
  gridDim = uint3{g.x, g.y, g.z};
  blockDim = uint3{b.x, b.y, b.z};
  /* Blocks run in order on even launches and in reverse order on odd ones:
   * CUDA promises no order between blocks, so a kernel whose blocks read
   * what other blocks of the same launch write gets a different answer from
   * one launch to the next instead of passing by luck. */
  unsigned long long nblocks = (unsigned long long)g.x * g.y * g.z;
  bool reverse = (X.launches++ & 1) != 0;
  for (unsigned long long linear = 0; linear < nblocks; linear++) {
    unsigned long long b = reverse ? nblocks - 1 - linear : linear;
    blockIdx.x = (unsigned)(b % g.x);
    blockIdx.y = (unsigned)(b / g.x % g.y);
    blockIdx.z = (unsigned)(b / ((unsigned long long)g.x * g.y));
    /* Fibers cost two context switches a thread; most kernels never
     * wait at a barrier. So the first block runs on fibers, and when
     * none of its threads reached __syncthreads the others run as
     * plain calls. A kernel whose later blocks do reach one (block-
     * dependent barriers) fails the launch rather than running wrong. */
    X.direct = linear > 0 && X.barriers == 0;
    if (X.direct) run_direct((unsigned)nt, linear);
    else run_block((unsigned)nt, linear);
  }
  X.running = false;
  X.direct = false;
  if (X.lost_barrier || X.stuck || X.bad_shfl) {
    snprintf(launch_msg, sizeof launch_msg, "%s",
             X.lost_barrier ? "gpusim: __syncthreads or a shuffle in a block after a first block that "
                              "reached none (the simulator runs such blocks without fibers)"
             : X.stuck ? "gpusim: the threads of a block wait at different barriers or shuffles "
                         "(a __syncthreads not every thread reaches, or a shuffle a lane skips): "
                         "a GPU would hang"
                       : "gpusim: a shuffle read a lane that did not take part in it (it had "
                         "returned, or skipped the shuffle)");
    last_error = cudaErrorLaunchFailure;
  }
  /* A GPU refuses such a launch before any block runs; here the static
   * arrays are known once a thread has declared them, so the blocks have run,
   * and the launch fails after them. */
  if (X.over_shared) last_error = shared_fail(X.static_bytes, X.launch_dyn);
}

void tc_sim_static_shared(void *site, size_t bytes) {
  if (!X.running) return; /* a device function called from host code */
  executor::site *e = nullptr;
  for (int i = 0; i < X.n_static && !e; i++)
    if (X.static_sites[i].at == site) e = &X.static_sites[i];
  if (!e) {
    X.static_bytes += bytes;
    if (X.static_bytes + X.launch_dyn > kMaxShared) X.over_shared = true;
    if (X.n_static == kStaticSites) { /* not tracked: counted again each time, so over the limit soon */
      memset(site, 0xA5, bytes);
      return;
    }
    e = &X.static_sites[X.n_static++];
    *e = executor::site{site, 0};
  }
  /* The first thread of a block to declare the array finds it undefined, as
   * on a GPU (not zero, not what the last block left there). */
  if (e->block != X.block_seq) {
    memset(site, 0xA5, bytes);
    e->block = X.block_seq;
  }
}

/* The running fiber -> the scheduler, until a round of run_block finds its
   wait over. */
static void park(fiber &f) {
  SWITCH_START(&f.fake, X.sched_bottom, X.sched_size);
  TSAN_TO(X.sched_tsan);
  ctx_switch(&f.ctx, &X.sched);
  SWITCH_DONE(f.fake, &X.sched_bottom, &X.sched_size);
  f.wait = 0;
}

void tc_sim_syncthreads(void) {
  if (X.direct) {
    X.lost_barrier = true; /* cannot wait here: the launch fails */
    return;
  }
  if (X.cur < 0) return; /* outside a launch: nothing to wait for */
  X.barriers++;
  fiber &f = X.fibers[(size_t)X.cur];
  f.bars++;
  f.wait = 1;
  park(f);
}

/* Every lane posts its value and waits for the others of its warp; then
 * each reads its source lane's. Two slots a fiber, by the shuffle's parity:
 * a lane that has read shuffle s may post s + 1 before a slower lane has
 * read s, never s + 2 (that waits for the slow lane's s + 1). */
uint64_t tc_sim_shfl(uint64_t v, int mode, int arg, int width) {
  if (X.direct) {
    X.lost_barrier = true;
    return v;
  }
  if (X.cur < 0) return v; /* a device function called from host code */
  X.barriers++; /* later blocks run on fibers too */
  X.warp = width == 64 ? 64 : 32; /* the executor's warps: 32 or 64 lanes */
  width = (int)X.warp;
  unsigned t = (unsigned)X.cur;
  fiber &f = X.fibers[t];
  unsigned long s = f.shfls++;
  f.slot[s & 1] = v;
  f.wait = 2;
  park(f);
  unsigned lane = t % (unsigned)width;
  unsigned src = mode == 0 ? lane ^ (unsigned)arg : mode == 1 ? lane + (unsigned)arg : lane - (unsigned)arg;
  /* CUDA and HIP: a source past the warp (down, up) gives the lane its own
     value (up: lane - arg wraps to a large unsigned) */
  if (arg < 0 || src >= (unsigned)width || t - lane + src >= X.nt) return v;
  const fiber &p = X.fibers[t - lane + src];
  if (p.shfls <= s) {
    X.bad_shfl = true;
    return v;
  }
  return p.slot[s & 1];
}

void *tc_sim_dyn_shared(void) { return X.dyn; }

const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorSimSharedMemory: return shared_msg;
    case cudaErrorLaunchFailure: return launch_msg;
  }
  return "unknown error";
}

cudaError_t tc_sim_fail(cudaError_t e) { return last_error = e; }

cudaError_t cudaGetLastError(void) {
  cudaError_t e = last_error;
  last_error = cudaSuccess;
  return e;
}

cudaError_t cudaGetDevice(int *dev) {
  if (!dev) return cudaErrorInvalidValue;
  *dev = current_device;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int dev) {
  if (dev < 0 || dev >= tc_sim_device_count()) return last_error = cudaErrorInvalidDevice;
  current_device = dev;
  return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t n) {
  if (!p) return cudaErrorInvalidValue;
  *p = nullptr;
  if (n == 0) return cudaSuccess;
  if (posix_memalign(p, 256, n) != 0) {
    *p = nullptr;
    return last_error = cudaErrorMemoryAllocation;
  }
  memset(*p, 0xA5, n); /* device memory starts undefined, not zero */
  return cudaSuccess;
}

cudaError_t cudaFree(void *p) {
  free(p);
  return cudaSuccess;
}

/* one address space: the kind and the stream change nothing */
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind) {
  if (n && (!dst || !src)) return last_error = cudaErrorInvalidValue;
  if (n) memmove(dst, src, n);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind k, cudaStream_t) {
  return cudaMemcpy(dst, src, n, k);
}

cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t) {
  if (n && !p) return last_error = cudaErrorInvalidValue;
  if (n) memset(p, v, n);
  return cudaSuccess;
}

} // extern "C"
