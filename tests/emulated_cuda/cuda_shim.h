// The CUDA dialect of jitgraph's generated kernels, for g++ (the emulated CUDA device).
//
// A launch runs the real grid and block: blocks one after another; a block's threads one after
// another when the kernel has no __syncthreads, else as ucontext fibers that switch at each
// barrier (every live thread must reach it: a barrier some threads skip is reported). Only one
// OS thread runs kernels at a time (the Python side holds a lock), so the built-in index
// variables are plain globals. Memory faults and integer traps inside a kernel are caught and
// reported as CUDA's sticky illegal-address error instead of killing the process.
#include <cmath>
#include <math.h>
#include <cstring>
#include <cstdint>
#include <climits>
#include <cfloat>
#include <cstdlib>
#include <csetjmp>
#include <csignal>
#include <ucontext.h>
#include <algorithm>
using std::isnan; using std::isinf; using std::isfinite;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __shared__ static
#define __launch_bounds__(...)

struct dim3 { unsigned int x, y, z; };
typedef dim3 uint3;
// external linkage: calls that may switch fibers must reload them
extern "C" { dim3 threadIdx, blockIdx, blockDim, gridDim; }
static const int warpSize = 32;

// -- reinterpretation and conversion intrinsics -------------------------------------------
static inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
static inline float __uint_as_float(unsigned int i) { float f; std::memcpy(&f, &i, 4); return f; }
static inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
static inline unsigned int __float_as_uint(float f) { unsigned int i; std::memcpy(&i, &f, 4); return i; }
static inline double __longlong_as_double(long long i) { double d; std::memcpy(&d, &i, 8); return d; }
static inline long long __double_as_longlong(double d) { long long i; std::memcpy(&i, &d, 8); return i; }
static inline float __int2float_rn(int i) { return (float)i; }
static inline double __int2double_rn(int i) { return (double)i; }
static inline float __ll2float_rn(long long i) { return (float)i; }
static inline double __ll2double_rn(long long i) { return (double)i; }
static inline int __float2int_rn(float f) { return (int)nearbyintf(f); }
static inline int __float2int_rz(float f) { return (int)f; }
static inline int __double2int_rn(double d) { return (int)nearbyint(d); }
// fast-math forms: the accurate libm functions (tolerances cover the difference)
#define __expf(x) expf(x)
#define __exp10f(x) exp10f(x)
#define __logf(x) logf(x)
#define __log2f(x) log2f(x)
#define __log10f(x) log10f(x)
#define __powf(x, y) powf(x, y)
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __tanf(x) tanf(x)
static inline float __fdividef(float x, float y) { return x / y; }
static inline float __saturatef(float x) { return x < 0.f ? 0.f : (x > 1.f ? 1.f : x); }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
static inline double rcbrt(double x) { return 1.0 / cbrt(x); }
static inline double sinpi(double x) { return sin(M_PI * x); }
static inline double cospi(double x) { return cos(M_PI * x); }
static inline float sinpif(float x) { return sinf((float)M_PI * x); }
static inline float cospif(float x) { return cosf((float)M_PI * x); }
static inline double normcdf(double x) { return 0.5 * erfc(-x / M_SQRT2); }
static inline float normcdff(float x) { return 0.5f * erfcf(-x / (float)M_SQRT2); }
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }

// -- atomics (one OS thread runs a launch: plain read-modify-write is atomic) ---------------
template <class T> static inline T atomicAdd(T* p, T v) { T old = *p; *p = old + v; return old; }
template <class T> static inline T atomicSub(T* p, T v) { T old = *p; *p = old - v; return old; }
template <class T> static inline T atomicMax(T* p, T v) { T old = *p; if (v > old) *p = v; return old; }
template <class T> static inline T atomicMin(T* p, T v) { T old = *p; if (v < old) *p = v; return old; }
template <class T> static inline T atomicExch(T* p, T v) { T old = *p; *p = v; return old; }
template <class T> static inline T atomicOr(T* p, T v) { T old = *p; *p = old | v; return old; }
template <class T> static inline T atomicAnd(T* p, T v) { T old = *p; *p = old & v; return old; }
template <class T> static inline T atomicCAS(T* p, T cmp, T v) {
    T old = *p; if (old == cmp) *p = v; return old;
}
static inline void __threadfence() {}
static inline void __threadfence_block() {}

// -- the grid runner ----------------------------------------------------------------------
enum { JG_OK = 0, JG_FAULT = 1, JG_ARITH = 2, JG_DIVERGENT = 3, JG_NO_FIBERS = 4 };

static char* jg_dynamic_shared = 0;   // the block's dynamic shared memory

struct jg_fiber { ucontext_t ctx; int state; };  // state: 0 runnable, 1 at a barrier, 2 done
static jg_fiber* jg_fibers = 0;
static char* jg_stacks = 0;
static int jg_fiber_count = 0, jg_current = -1, jg_error = JG_OK;
static ucontext_t jg_scheduler;
static const size_t JG_STACK = 256 * 1024;
static void (*jg_entry)(void**) = 0;
static void** jg_args = 0;

static void jg_set_thread(unsigned int t) {
    threadIdx.x = t % blockDim.x;
    threadIdx.y = (t / blockDim.x) % blockDim.y;
    threadIdx.z = t / (blockDim.x * blockDim.y);
}

static inline void __syncthreads() {
    if (jg_current < 0) { jg_error = JG_NO_FIBERS; return; }
    int me = jg_current;
    jg_fibers[me].state = 1;
    swapcontext(&jg_fibers[me].ctx, &jg_scheduler);
    jg_set_thread((unsigned)me);  // resumed: this fiber's index again
}
static inline int __syncthreads_count(int p) { (void)p; __syncthreads(); return 0; }

static void jg_fiber_main(int t) {
    jg_set_thread((unsigned)t);
    jg_entry(jg_args);
    jg_fibers[t].state = 2;
}

static int jg_run_block_fibers(int n) {
    if (n > jg_fiber_count) {
        free(jg_fibers); free(jg_stacks);
        jg_fibers = (jg_fiber*)calloc(n, sizeof(jg_fiber));
        jg_stacks = (char*)malloc((size_t)n * JG_STACK);
        jg_fiber_count = n;
    }
    for (int t = 0; t < n; ++t) {
        getcontext(&jg_fibers[t].ctx);
        jg_fibers[t].ctx.uc_stack.ss_sp = jg_stacks + (size_t)t * JG_STACK;
        jg_fibers[t].ctx.uc_stack.ss_size = JG_STACK;
        jg_fibers[t].ctx.uc_link = &jg_scheduler;
        makecontext(&jg_fibers[t].ctx, (void (*)())jg_fiber_main, 1, t);
        jg_fibers[t].state = 0;
    }
    for (;;) {
        for (int t = 0; t < n; ++t) {
            if (jg_fibers[t].state != 0) continue;
            jg_current = t;
            jg_set_thread((unsigned)t);
            swapcontext(&jg_scheduler, &jg_fibers[t].ctx);
        }
        jg_current = -1;
        int waiting = 0, done = 0;
        for (int t = 0; t < n; ++t) {
            waiting += jg_fibers[t].state == 1;
            done += jg_fibers[t].state == 2;
        }
        if (done == n) return JG_OK;
        if (done) return JG_DIVERGENT;
        for (int t = 0; t < n; ++t) jg_fibers[t].state = 0;
    }
}

static sigjmp_buf jg_fault_jump;
static volatile sig_atomic_t jg_fault_signal = 0;
static void jg_on_fault(int sig) { jg_fault_signal = sig; siglongjmp(jg_fault_jump, 1); }

extern "C" int jg_launch(void (*entry)(void**), void** args, const unsigned int* cfg,
                         unsigned long long shared_bytes, int fibers) {
    // cfg: grid x, y, z, block x, y, z
    gridDim.x = cfg[0]; gridDim.y = cfg[1]; gridDim.z = cfg[2];
    blockDim.x = cfg[3]; blockDim.y = cfg[4]; blockDim.z = cfg[5];
    unsigned int threads = cfg[3] * cfg[4] * cfg[5];
    jg_entry = entry; jg_args = args; jg_error = JG_OK; jg_current = -1;
    char* shared = (char*)calloc(shared_bytes ? shared_bytes : 1, 1);
    jg_dynamic_shared = shared;
    static char alt_stack[1 << 16];
    stack_t ss, old_ss; ss.ss_sp = alt_stack; ss.ss_size = sizeof alt_stack; ss.ss_flags = 0;
    sigaltstack(&ss, &old_ss);
    struct sigaction sa, old_segv, old_bus, old_fpe;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = jg_on_fault;
    sa.sa_flags = SA_ONSTACK | SA_NODEFER;
    sigaction(SIGSEGV, &sa, &old_segv); sigaction(SIGBUS, &sa, &old_bus);
    sigaction(SIGFPE, &sa, &old_fpe);
    int result = JG_OK;
    if (sigsetjmp(jg_fault_jump, 1)) {
        result = jg_fault_signal == SIGFPE ? JG_ARITH : JG_FAULT;
    } else {
        for (unsigned z = 0; z < cfg[2] && result == JG_OK; ++z)
        for (unsigned y = 0; y < cfg[1] && result == JG_OK; ++y)
        for (unsigned x = 0; x < cfg[0] && result == JG_OK; ++x) {
            blockIdx.x = x; blockIdx.y = y; blockIdx.z = z;
            if (fibers) {
                result = jg_run_block_fibers((int)threads);
            } else {
                for (unsigned t = 0; t < threads; ++t) { jg_set_thread(t); entry(args); }
            }
            if (result == JG_OK) result = jg_error;
        }
    }
    sigaction(SIGSEGV, &old_segv, 0); sigaction(SIGBUS, &old_bus, 0);
    sigaction(SIGFPE, &old_fpe, 0);
    sigaltstack(&old_ss, 0);
    jg_current = -1;
    jg_dynamic_shared = 0;
    free(shared);
    return result;
}

