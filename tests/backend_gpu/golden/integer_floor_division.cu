// jitgraph CUDA elementwise (contiguous) kernel: elemwise Composite{int_div(i0, i1), mod(i0, i1), pow(i0, i1)} ('int64', 'int64')->('int64', 'int64', 'int64') ndim=1
template <typename T> __device__ __forceinline__ T jg_sfloordiv(T x, T y) {
    if (y == 0) return (T)0;
    if (y == (T)-1) return (T)(0ULL - (unsigned long long)x);
    T q = (T)(x / y);
    if ((T)(x % y) != 0 && ((x < 0) != (y < 0))) q = (T)(q - 1);
    return q;
}
template <typename T> __device__ __forceinline__ T jg_smod(T x, T y) {
    if (y == 0 || y == (T)-1) return (T)0;
    T r = (T)(x % y);
    if (r != 0 && ((r < 0) != (y < 0))) r = (T)(r + y);
    return r;
}
template <typename T> __device__ __forceinline__ T jg_uipow(T x, T y) {
    unsigned long long r = 1ULL, base = (unsigned long long)x, e = (unsigned long long)y;
    while (e) {
        if (e & 1ULL) r *= base;
        base *= base;
        e >>= 1;
    }
    return (T)r;
}
template <typename T> __device__ __forceinline__ T jg_sipow(T x, T y, int* err) {
    if (y < 0) { *err = 1; return (T)0; }
    return jg_uipow(x, y);
}
extern "C" __global__ void jg_c(const long long* __restrict__ i0, const long long* __restrict__ i1, long long* __restrict__ o0, long long* __restrict__ o1, long long* __restrict__ o2, int n, int* jg_err) {
    for (int k = (int)blockIdx.x * (int)blockDim.x + (int)threadIdx.x; k < n; k += (int)blockDim.x * (int)gridDim.x) {
        const long long x0 = i0[k];
        const long long x1 = i1[k];
        const long long t0 = jg_sfloordiv(x0, x1);
        const long long t1 = jg_smod(x0, x1);
        const long long t2 = jg_sipow(x0, x1, jg_err);
        o0[k] = t0;
        o1[k] = t1;
        o2[k] = t2;
    }
}
extern "C" __global__ void jg_c64(const long long* __restrict__ i0, const long long* __restrict__ i1, long long* __restrict__ o0, long long* __restrict__ o1, long long* __restrict__ o2, long long n, int* jg_err) {
    for (long long k = (long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x; k < n; k += (long long)blockDim.x * (long long)gridDim.x) {
        const long long x0 = i0[k];
        const long long x1 = i1[k];
        const long long t0 = jg_sfloordiv(x0, x1);
        const long long t1 = jg_smod(x0, x1);
        const long long t2 = jg_sipow(x0, x1, jg_err);
        o0[k] = t0;
        o1[k] = t1;
        o2[k] = t2;
    }
}
