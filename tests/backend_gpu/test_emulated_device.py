"""The emulated CUDA device itself (tests/emulated_cuda): what it refuses and reports, so that
the GPU tests running on it can fail where a real GPU would."""

from __future__ import annotations

import threading

import numpy as np
import pytest

SUM = r"""
extern __shared__ double jg_smem[];
extern "C" __global__ void block_sum(const float* __restrict__ x, float* __restrict__ out,
                                     long long n) {
    float* sh = (float*)jg_smem;
    float acc = 0;
    for (long long i = threadIdx.x; i < n; i += blockDim.x) acc += x[i];
    sh[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = sh[0];
}
extern "C" __global__ void divergent(float* out) {
    if (threadIdx.x == 0) return;
    __syncthreads();
    out[threadIdx.x] = 1;
}
extern "C" __global__ void scale(const float* __restrict__ x, float* __restrict__ y, int n,
                                 float a) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i];
}
extern "C" __global__ void overflow(int* out, int start) {
    out[0] = start + 2147483647;
}
"""


@pytest.fixture(scope="module")
def cp(emulated_cuda):
    import cupy

    assert getattr(cupy, "EMULATED", False)
    return cupy


@pytest.fixture(autouse=True)
def clean_device(cp):
    import emulated_cuda

    emulated_cuda.reset()
    yield
    emulated_cuda.reset()


def load(cp, source, arch="sm_90", tmp=None, name="k.cu"):
    nvrtc = cp.cuda.nvrtc
    prog = nvrtc.createProgram(source, name, (), ())
    try:
        nvrtc.compileProgram(prog, (f"--gpu-architecture={arch}",))
        image = nvrtc.getCUBIN(prog) if arch.startswith("sm_") else nvrtc.getPTX(prog)
    finally:
        nvrtc.destroyProgram(prog)
    path = tmp / (name + (".cubin" if arch.startswith("sm_") else ".ptx"))
    path.write_bytes(image)
    return cp.RawModule(path=str(path))


def test_arrays_refuse_implicit_conversion_and_numpy_operands(cp, emulated_cuda):
    x = cp.arange(6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.asarray(x)
    with pytest.raises(TypeError):
        x + np.ones(3, np.float32)
    with pytest.raises(TypeError):
        cp.dot(x, np.ones(3, np.float32))
    before = emulated_cuda.device_to_host_bytes
    np.testing.assert_array_equal((x * 2).get(), np.arange(6).reshape(2, 3) * 2)
    assert emulated_cuda.device_to_host_bytes - before == 24
    assert emulated_cuda.builtin_ops["mul"] >= 1


def test_block_reduction_with_barriers_runs_the_real_block(cp, tmp_path, emulated_cuda):
    fn = load(cp, SUM, tmp=tmp_path).get_function("block_sum")
    x = cp.asarray(np.arange(1000, dtype=np.float32))
    out = cp.zeros(3, dtype=np.float32)
    fn((3,), (128,), (x, out, np.int64(1000)), shared_mem=128 * 4)
    np.testing.assert_allclose(out.get(), [499500] * 3)
    assert emulated_cuda.launches["block_sum"] == 1


def test_a_barrier_some_threads_skip_is_reported(cp, tmp_path):
    from cupy.cuda.runtime import CUDARuntimeError

    fn = load(cp, SUM, tmp=tmp_path).get_function("divergent")
    with pytest.raises(CUDARuntimeError, match="__syncthreads"):
        fn((1,), (32,), (cp.zeros(32, dtype=np.float32),))


def test_arguments_are_checked_against_the_signature(cp, tmp_path):
    from cupy.cuda.runtime import CUDARuntimeError

    fn = load(cp, SUM, tmp=tmp_path).get_function("scale")
    x, y = cp.ones(10, dtype=np.float32), cp.empty(10, dtype=np.float32)
    with pytest.raises(TypeError, match="takes 4 arguments"):
        fn((1,), (32,), (x, y, np.int32(10)))
    with pytest.raises(TypeError, match="int .4 bytes.; got int64"):
        fn((1,), (32,), (x, y, 10, np.float32(2)))
    with pytest.raises(TypeError, match="points to float; got an array of float64"):
        fn((1,), (32,), (x.astype(np.float64), y, np.int32(10), np.float32(2)))
    with pytest.raises(TypeError, match="NumPy array"):
        fn((1,), (32,), (np.ones(10, np.float32), y, np.int32(10), np.float32(2)))
    with pytest.raises(TypeError, match="overlap"):
        fn((1,), (32,), (x, x, np.int32(10), np.float32(2)))
    fn((1,), (32,), (x, y, np.int32(10), np.float32(2)))
    np.testing.assert_array_equal(y.get(), np.full(10, 2))
    with pytest.raises(CUDARuntimeError, match="NULL pointer"):
        fn((1,), (32,), (None, y, np.int32(10), np.float32(2)))
    with pytest.raises(CUDARuntimeError, match="cudaErrorIllegalAddress"):
        cp.cuda.runtime.deviceSynchronize()  # sticky, as on a GPU


def test_a_kernel_running_past_an_array_gets_an_illegal_address(cp, tmp_path):
    from cupy.cuda.runtime import CUDARuntimeError

    fn = load(cp, SUM, tmp=tmp_path).get_function("scale")
    x, y = cp.ones(1000, dtype=np.float32), cp.empty(10, dtype=np.float32)
    with pytest.raises(CUDARuntimeError, match="illegal memory access"):
        fn((4,), (256,), (x, y, np.int32(1000), np.float32(2)))
    with pytest.raises(CUDARuntimeError):
        y.get()


def test_the_current_device_is_per_thread_and_arrays_stay_on_theirs(cp, tmp_path):
    from cupy.cuda.runtime import CUDARuntimeError

    with cp.cuda.Device(1):
        a = cp.ones(4, dtype=np.float32)
        fn = load(cp, SUM, tmp=tmp_path).get_function("scale")
        seen = []
        worker = threading.Thread(target=lambda: seen.append(cp.cuda.runtime.getDevice()))
        worker.start()
        worker.join()
        assert seen == [0] and cp.cuda.runtime.getDevice() == 1
    assert a.device.id == 1
    with pytest.raises(ValueError, match="array device = 1 while current = 0"):
        a + 1
    with pytest.raises(CUDARuntimeError, match="invalid resource handle"):
        fn((1,), (32,), (a, a, np.int32(4), np.float32(1)))


def test_cubins_load_on_their_major_and_ptx_on_newer_devices(cp, tmp_path):
    import emulated_cuda
    from cupy.cuda.driver import CUDADriverError

    with pytest.raises(CUDADriverError, match="NO_BINARY_FOR_GPU"):
        load(cp, SUM, "sm_80", tmp_path)
    assert load(cp, SUM, "compute_80", tmp_path).get_function("scale")
    old = emulated_cuda.configure(driver_version=(12, 0))
    try:
        with pytest.raises(CUDADriverError, match="UNSUPPORTED_PTX_VERSION"):
            load(cp, SUM, "compute_80", tmp_path)
    finally:
        emulated_cuda.configure(driver_version=old.driver_version)
    with pytest.raises(cp.cuda.nvrtc.NVRTCError, match="INVALID_OPTION"):
        load(cp, SUM, "sm_61", tmp_path)


def test_the_real_nvrtc_compiles_every_program_too(cp, tmp_path):
    from emulated_cuda.nvrtc import real_nvrtc

    if real_nvrtc() is None:
        pytest.skip("the real NVRTC is not installed (jitgraph[cuda13-nvrtc])")
    host_only = 'extern "C" __global__ void k(int* x) { x[0] = rand(); }'
    nvrtc = cp.cuda.nvrtc
    prog = nvrtc.createProgram(host_only, "host_only.cu", (), ())
    with pytest.raises(nvrtc.NVRTCError, match="COMPILATION"):
        nvrtc.compileProgram(prog, ("--gpu-architecture=sm_90",))
    assert "rand" in nvrtc.getProgramLog(prog)  # g++ alone would have accepted it


def test_undefined_behaviour_is_reported_with_the_sanitizer_option(cp, tmp_path):
    import emulated_cuda

    old = emulated_cuda.configure(ubsan=True)
    try:
        fn = load(cp, SUM, tmp=tmp_path, name="ub.cu").get_function("overflow")
        out = cp.zeros(1, dtype=np.int32)
        fn((1,), (1,), (out, np.int32(0)))
        with pytest.raises(RuntimeError, match="undefined behaviour.*overflow"):
            fn((1,), (1,), (out, np.int32(5)))
    finally:
        emulated_cuda.configure(ubsan=old.ubsan)
