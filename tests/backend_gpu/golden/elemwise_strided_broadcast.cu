// jitgraph CUDA elementwise (strided, rank 2) kernel: elemwise Composite{maximum(mul(i0, i1), i2)} ('float64', 'float64', 'float32')->('float64',) ndim=2
extern "C" __global__ void jg_s(const char* __restrict__ i0, const char* __restrict__ i1, const char* __restrict__ i2, char* __restrict__ o0, int n, int d1, int si0_0, int si0_1, int si1_0, int si1_1, int so0_0, int so0_1) {
    const float x2 = *(const float*)i2;
    for (int k = (int)blockIdx.x * (int)blockDim.x + (int)threadIdx.x; k < n; k += (int)blockDim.x * (int)gridDim.x) {
        int rem = k;
        const int c1 = rem % d1; rem /= d1;
        const int c0 = rem;
        const int fi0 = c0 * si0_0 + c1 * si0_1;
        const int fi1 = c0 * si1_0 + c1 * si1_1;
        const int fo0 = c0 * so0_0 + c1 * so0_1;
        const double x0 = *(const double*)(i0 + fi0);
        const double x1 = *(const double*)(i1 + fi1);
        const double t0 = (x0 * x1);
        const double t1 = ((double)(x2));
        const double t2 = (((t0 >= t1) || (t0 != t0)) ? t0 : t1);
        *(double*)(o0 + fo0) = t2;
    }
}
extern "C" __global__ void jg_s64(const char* __restrict__ i0, const char* __restrict__ i1, const char* __restrict__ i2, char* __restrict__ o0, long long n, long long d1, long long si0_0, long long si0_1, long long si1_0, long long si1_1, long long so0_0, long long so0_1) {
    const float x2 = *(const float*)i2;
    for (long long k = (long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x; k < n; k += (long long)blockDim.x * (long long)gridDim.x) {
        long long rem = k;
        const long long c1 = rem % d1; rem /= d1;
        const long long c0 = rem;
        const long long fi0 = c0 * si0_0 + c1 * si0_1;
        const long long fi1 = c0 * si1_0 + c1 * si1_1;
        const long long fo0 = c0 * so0_0 + c1 * so0_1;
        const double x0 = *(const double*)(i0 + fi0);
        const double x1 = *(const double*)(i1 + fi1);
        const double t0 = (x0 * x1);
        const double t1 = ((double)(x2));
        const double t2 = (((t0 >= t1) || (t0 != t0)) ? t0 : t1);
        *(double*)(o0 + fo0) = t2;
    }
}
