// jitgraph CUDA rowwise kernel: softmax float32->float32
extern __shared__ double jg_smem[];
typedef float W;
extern "C" __global__ void jg_softmax(const float* __restrict__ x, float* __restrict__ out, long long rows, long long n) {
    W* sh = (W*)jg_smem;
    for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
        const float* xr = x + row * n;
        float* orow = out + row * n;
        W m = __int_as_float(0xff800000);
        for (long long j = threadIdx.x; j < n; j += blockDim.x) {
            const W v = xr[j];
            m = ((v > m) || (v != v)) ? v : m;
        }
        sh[threadIdx.x] = m;
        __syncthreads();
        for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s) {
                const W a = sh[threadIdx.x];
                const W b = sh[threadIdx.x + s];
                sh[threadIdx.x] = ((a >= b) || (a != a)) ? a : b;
            }
            __syncthreads();
        }
        m = sh[0];
        __syncthreads();
        W s = 0.0f;
        for (long long j = threadIdx.x; j < n; j += blockDim.x) {
            const W e = expf(xr[j] - m);
            orow[j] = e;
            s += e;
        }
        sh[threadIdx.x] = s;
        __syncthreads();
        for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s) {
                const W a = sh[threadIdx.x];
                const W b = sh[threadIdx.x + s];
                sh[threadIdx.x] = a + b;
            }
            __syncthreads();
        }
        s = sh[0];
        __syncthreads();
        for (long long j = threadIdx.x; j < n; j += blockDim.x) {
            orow[j] = orow[j] / s;
        }
    }
}
