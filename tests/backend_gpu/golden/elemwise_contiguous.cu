// jitgraph CUDA elementwise (contiguous) kernel: elemwise Composite{add(mul(exp(i0), i1), i2), sigmoid(i0)} ('float32', 'float32', 'float32')->('float32', 'float32') ndim=1
extern "C" __global__ void jg_c(const float* __restrict__ i0, const float* __restrict__ i1, const float* __restrict__ i2, float* __restrict__ o0, float* __restrict__ o1, int n) {
    const float x2 = i2[0];
    for (int k = (int)blockIdx.x * (int)blockDim.x + (int)threadIdx.x; k < n; k += (int)blockDim.x * (int)gridDim.x) {
        const float x0 = i0[k];
        const float x1 = i1[k];
        const float t0 = expf(x0);
        const float t1 = (t0 * x1);
        const float t2 = (t1 + x2);
        const float t3 = expf((-fabsf(x0)));
        const float t4 = ((x0 >= 0.0f) ? (1.0f / (1.0f + t3)) : (t3 / (1.0f + t3)));
        o0[k] = t2;
        o1[k] = t4;
    }
}
extern "C" __global__ void jg_c64(const float* __restrict__ i0, const float* __restrict__ i1, const float* __restrict__ i2, float* __restrict__ o0, float* __restrict__ o1, long long n) {
    const float x2 = i2[0];
    for (long long k = (long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x; k < n; k += (long long)blockDim.x * (long long)gridDim.x) {
        const float x0 = i0[k];
        const float x1 = i1[k];
        const float t0 = expf(x0);
        const float t1 = (t0 * x1);
        const float t2 = (t1 + x2);
        const float t3 = expf((-fabsf(x0)));
        const float t4 = ((x0 >= 0.0f) ? (1.0f / (1.0f + t3)) : (t3 / (1.0f + t3)));
        o0[k] = t2;
        o1[k] = t4;
    }
}
