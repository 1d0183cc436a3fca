// jitgraph CUDA reduction kernel: reduce add ('float32',)->float32 (acc float64); kept rank 1, reduced rank 1
extern __shared__ double jg_smem[];
extern "C" __global__ void jg_rthread(const char* i0, float* out, long long nk, long long nr, long long sk0_0, long long sr0_0) {
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < nk; k += (long long)blockDim.x * gridDim.x) {
        long long remk = k;
        const long long ck0 = remk;
        const char* p0 = i0 + (ck0 * sk0_0);
        double acc = 0.0;
        for (long long r = 0; r < nr; ++r) {
            long long remr = r;
            const long long cr0 = remr;
            const float x0 = *(const float*)(p0 + (cr0 * sr0_0));
            acc = (acc + ((double)(x0)));
        }
        out[k] = ((float)(acc));
    }
}
extern "C" __global__ void jg_rblock(const char* i0, float* out, long long nk, long long nr, long long sk0_0, long long sr0_0) {
    for (long long k = blockIdx.x; k < nk; k += gridDim.x) {
        long long remk = k;
        const long long ck0 = remk;
        const char* p0 = i0 + (ck0 * sk0_0);
        double acc = 0.0;
        for (long long r = threadIdx.x; r < nr; r += blockDim.x) {
            long long remr = r;
            const long long cr0 = remr;
            const float x0 = *(const float*)(p0 + (cr0 * sr0_0));
            acc = (acc + ((double)(x0)));
        }
        double* sh = (double*)jg_smem;
        sh[threadIdx.x] = acc;
        __syncthreads();
        for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s) {
                sh[threadIdx.x] = (sh[threadIdx.x] + sh[threadIdx.x + s]);
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) out[k] = ((float)(sh[0]));
        __syncthreads();
    }
}
extern "C" __global__ void jg_rsplit(const char* i0, double* part, long long nk, long long nr, long long sk0_0, long long sr0_0, long long g) {
    const long long chunk = (nr + g - 1) / g;
    for (long long b = blockIdx.x; b < nk * g; b += gridDim.x) {
        const long long k = b / g;
        (void)k;
        const long long lo = (b % g) * chunk;
        const long long hi = (lo + chunk < nr) ? lo + chunk : nr;
        long long remk = k;
        const long long ck0 = remk;
        const char* p0 = i0 + (ck0 * sk0_0);
        double acc = 0.0;
        for (long long r = lo + threadIdx.x; r < hi; r += blockDim.x) {
            long long remr = r;
            const long long cr0 = remr;
            const float x0 = *(const float*)(p0 + (cr0 * sr0_0));
            acc = (acc + ((double)(x0)));
        }
        double* sh = (double*)jg_smem;
        sh[threadIdx.x] = acc;
        __syncthreads();
        for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s) {
                sh[threadIdx.x] = (sh[threadIdx.x] + sh[threadIdx.x + s]);
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) part[b] = sh[0];
        __syncthreads();
    }
}
extern "C" __global__ void jg_rfinish(const double* part, float* out, long long nk, long long g) {
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < nk; k += (long long)blockDim.x * gridDim.x) {
        double acc = 0.0;
        for (long long q = 0; q < g; ++q) {
            acc = (acc + part[k * g + q]);
        }
        out[k] = ((float)(acc));
    }
}
