"""Helpers of the GPU-backend tests: NVRTC availability, a session cubin cache, GPU skips."""

from __future__ import annotations

import hashlib
import os
import pathlib
import subprocess
import sys
import tempfile
from functools import lru_cache
from typing import Any

import pytest

ARCHS = ("sm_80", "sm_90")
ROOT = pathlib.Path(__file__).resolve().parents[2]


@lru_cache(maxsize=None)
def nvrtc_status() -> tuple[bool, str]:
    """(available, why not): NVRTC needs CuPy and the nvidia-cuda-nvrtc wheel, not a GPU."""
    from jitgraph.backend_gpu.nvrtc import available

    return available()


def needs_nvrtc() -> None:
    ok, why = nvrtc_status()
    if not ok:
        pytest.skip(f"NVRTC is not available here ({why}); install jitgraph[cuda13] to compile "
                    "generated GPU kernels without a GPU")


_CUBIN_DIR = pathlib.Path(tempfile.mkdtemp(prefix="jitgraph-test-cubins-"))
COMPILED: list[tuple[str, str, float]] = []


def compile_clean(source: str, name: str, arch: str, options: tuple[str, ...] = ()) -> dict:
    """Compile ``source`` for ``arch`` with NVRTC (cached for the session); assert a clean log.

    Returns the ptxas resource usage (registers, spill stores)."""
    from jitgraph.backend_gpu import nvrtc

    opts = tuple(options) + ("--ptxas-options=-v",)
    digest = hashlib.sha256(repr((source, arch, opts)).encode()).hexdigest()[:32]
    log_file = _CUBIN_DIR / f"{digest}.log"
    if log_file.exists():
        log = log_file.read_text()
    else:
        cubin, log, seconds = nvrtc.compile_cubin(source, name, arch, opts)
        assert cubin[:4] == b"\x7fELF", f"{name}: NVRTC did not return an ELF cubin"
        (_CUBIN_DIR / f"{digest}.cubin").write_bytes(cubin)
        log_file.write_text(log)
        COMPILED.append((name, arch, seconds))
    problems = nvrtc.warnings_in(log)
    assert not problems, f"{name} ({arch}): NVRTC log is not clean:\n" + "\n".join(problems) \
        + "\n--- source ---\n" + source
    usage = nvrtc.resource_usage(log)
    assert usage["spill_stores"] == 0, f"{name} ({arch}) spills registers: {usage}"
    return usage


@lru_cache(maxsize=None)
def gpu_status() -> tuple[bool, str]:
    """Whether a GPU can run kernels here (checked in a subprocess-free way, no init)."""
    if os.environ.get("JITGRAPH_TEST_NO_GPU"):
        return False, "JITGRAPH_TEST_NO_GPU is set"
    from jitgraph.backend_gpu.device import status

    return status(0)


def needs_gpu() -> None:
    ok, why = gpu_status()
    if not ok:
        pytest.skip(f"no usable GPU: {why}")


#: the GPU tests run on a real GPU (skipped without one) instead of the emulated device
REAL_GPU = os.environ.get("JITGRAPH_TEST_REAL_GPU", "") not in ("", "0")


def device_env(**settings: Any) -> dict:
    """Environment entries giving a subprocess the GPU the tests run on: the emulated CUDA
    device (with ``settings``), or the real one with ``JITGRAPH_TEST_REAL_GPU=1``."""
    if REAL_GPU:
        return {}
    import emulated_cuda

    return emulated_cuda.subprocess_env(**settings)


def run_python(code: str, flags: str = "", timeout: int = 600, env: dict | None = None,
               args: list[str] | None = None) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (with ``args`` in ``sys.argv[1:]``) with
    ``THEANO_FLAGS=flags`` (the test compiledir); ``env`` entries set (or, with None, remove)
    environment variables."""
    full = dict(os.environ)
    full.pop("THEANO_FLAGS", None)
    if flags:
        full["THEANO_FLAGS"] = flags
    full["PYTHONPATH"] = str(ROOT) + os.pathsep + full.get("PYTHONPATH", "")
    for key, value in (env or {}).items():
        if value is None:
            full.pop(key, None)
        else:
            full[key] = value
    return subprocess.run([sys.executable, "-c", code, *(args or [])], capture_output=True,
                          text=True,
                          timeout=timeout, env=full, cwd=str(ROOT))


def fused(outputs: list) -> Any:
    from jitgraph.backend_cpu.codegen.compose import fuse

    return fuse(outputs)


SUPPORTED = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
             "float32", "float64")
#: one dtype of each family the templates distinguish
FAMILIES = ("bool", "int8", "int32", "int64", "uint8", "uint64", "float32", "float64")


def scalar_op_outputs(dtype: str, include_int_to_float: bool = True) -> tuple[list, list]:
    """Vector inputs ``a, b, c, e`` of ``dtype`` and ``(name, output)`` for every scalar op that
    applies to them (plus a cast to every other dtype)."""
    import jitgraph.tensor as T
    from jitgraph.backend_gpu.cuda_types import Unsupported
    from jitgraph.backend_gpu.elemwise_codegen import scalar_body
    from jitgraph.backend_gpu.lower_elemwise import structure_of
    from jitgraph.tensor.elementwise import scalar_ops as S
    from jitgraph.tensor.elementwise.elemwise import Elemwise

    a, b, c, e = (T.vector(n, dtype=dtype) for n in "abce")
    outs = []
    for op in S.all_scalar_ops():
        n = {-1: 3}.get(op.nin, op.nin)
        args = [a, e] if op.name == "pow" and not dtype.startswith("float") else [a, b, c][:n]
        try:
            out = Elemwise(op)(*args)
            body, _ = scalar_body(structure_of(out.owner))
        except (TypeError, Unsupported):
            continue
        if (not include_int_to_float and not dtype.startswith("float")
                and out.dtype.startswith("float")):
            continue
        if any(h.startswith("jgh_") for h in body.helpers):
            # rows computed by translated helper functions (special functions) are compiled
            # and checked once each by test_python_to_cuda; in every dtype's module they
            # would add seconds of NVRTC time per module
            continue
        outs.append((op.name, out))
    for target in SUPPORTED:
        if target != dtype:
            outs.append((f"cast->{target}", T.cast(a, target)))
    return [a, b, c, e], outs
