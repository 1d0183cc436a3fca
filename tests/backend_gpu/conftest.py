"""GPU-backend test settings: CuPy's kernel cache in a temporary folder (set before anything
imports CuPy, so CI never writes to ~/.cupy), and the fixtures the NVRTC and GPU tests share."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("CUPY_CACHE_DIR", tempfile.mkdtemp(prefix="jitgraph-test-cupy-"))

import pytest

from gpu_testing import REAL_GPU


@pytest.fixture(scope="module")
def gpu_device(request):
    """cuda0 initialised from code (``jitgraph.backend_gpu.use``): on the emulated CUDA device,
    or on the real one with ``JITGRAPH_TEST_REAL_GPU=1``."""
    from jitgraph.backend_gpu import device, use

    if REAL_GPU:
        from gpu_testing import needs_gpu

        needs_gpu()
        device.reset_for_tests()
        yield use("cuda0")
        device.reset_for_tests()
        return
    request.getfixturevalue("emulated_cuda")
    yield use("cuda0")
