"""Helpers of the GPU program tests: what ran on the (emulated) device, and how a compiled
GPU function's nodes ran."""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

import jitgraph


def gpu_mode(linker: str = "cvm") -> jitgraph.Mode:
    """Theano's recipe for a GPU initialised from code: fast_run including ``gpuarray``."""
    return jitgraph.Mode(linker=linker, optimizer="fast_run").including("gpuarray")


def cpu_mode() -> jitgraph.Mode:
    """The CPU backend's compiled mode (the GPU transfer excluded)."""
    return jitgraph.Mode(linker="cvm", optimizer="fast_run").excluding("gpu", "gpuarray")


def programs(fn: Any) -> Iterator[Any]:
    """The program of ``fn`` and those of the inner graphs its GPU loops compiled."""
    yield fn._program
    for node in fn.maker.fgraph.apply_nodes:
        inner = getattr(node.op, "cpu_op", None)
        device_inner = getattr(inner, "__dict__", {}).get("_device_inner")
        if device_inner is not None:
            for compiled in device_inner.__dict__.get("_compiled", {}).values():
                yield compiled.program


def gpu_fallbacks(fn: Any) -> list[str]:
    """``Gpu*`` nodes of ``fn`` (and of its loops' inner programs) that run their ``perform``
    (a NumPy round trip) instead of a lowering."""
    from jitgraph.backend_gpu.ops import GpuOp
    from jitgraph.backend_gpu.program import GpuProgram

    found = []
    for program in programs(fn):
        assert isinstance(program, GpuProgram), f"{program} is not a GPU program"
        for node, lowered in zip(program.order, program.lowered):
            if isinstance(node.op, GpuOp) and lowered is None:
                found.append(str(node.op))
    return found


def assert_ran_on_the_device(fn: Any, stats: Any) -> None:
    """Kernels were launched and no ``Gpu*`` op of ``fn`` fell back to ``perform``."""
    assert stats.kernel_launches > 0, "no kernel was launched"
    assert gpu_fallbacks(fn) == [], "Gpu ops running their perform"


def assert_close(got: Any, ref: Any, what: str = "", tol: float = 2e-4) -> None:
    """float32 tolerance (the device and the host may sum in another order)."""
    got = [got] if not isinstance(got, (list, tuple)) else got
    ref = [ref] if not isinstance(ref, (list, tuple)) else ref
    assert len(got) == len(ref), what
    for k, (g, r) in enumerate(zip(got, ref)):
        g, r = np.asarray(g), np.asarray(r)
        assert g.shape == r.shape, (what, k, g.shape, r.shape)
        np.testing.assert_allclose(g, r, rtol=tol, atol=tol, err_msg=f"{what} output {k}")
