"""Helpers shared by the CPU-backend tests: compiling, layouts, comparisons."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

import jitgraph
import jitgraph.backend_cpu.linker  # noqa: F401 - registers cvm, c|py, c (until core lists it)
from jitgraph.graph.evaluate import evaluate

LAYOUTS = ("C", "F", "strided", "negative")


def mode(linker: str = "cvm") -> jitgraph.Mode:
    return jitgraph.Mode(linker=linker, optimizer="None")


def compile_fn(inputs: Sequence[Any], outputs: Any, linker: str = "cvm", **kwargs: Any) -> Any:
    """A function of ``outputs`` with no rewrites (the graph is lowered as built)."""
    kwargs.setdefault("on_unused_input", "ignore")
    fn = jitgraph.function(list(inputs), outputs, mode=mode(linker), **kwargs)
    if linker != "py":
        from jitgraph.backend_cpu.runtime.driver import CompiledProgram

        assert isinstance(fn._program, CompiledProgram), "the Numba linker was not used"
    return fn


def with_layout(value: np.ndarray, layout: str) -> np.ndarray:
    """An array equal to ``value`` with the given memory layout (a view for the last two)."""
    value = np.asarray(value)
    if value.ndim == 0:
        return value.copy()  # (ascontiguousarray would make it 1-d)
    if layout == "C":
        return np.ascontiguousarray(value)
    if layout == "F":
        return np.asfortranarray(value)
    if layout == "strided":
        big = np.zeros(value.shape[:-1] + (2 * value.shape[-1],), dtype=value.dtype)
        big[..., ::2] = value
        return big[..., ::2]
    if layout == "negative":
        flipped = tuple(slice(None, None, -1) for _ in range(value.ndim))
        return np.ascontiguousarray(value[flipped])[flipped]
    raise ValueError(layout)


def reference(outputs: Any, givens: dict) -> Any:
    """The NumPy reference (every node's ``perform``)."""
    with np.errstate(all="ignore"):
        return evaluate(outputs, givens)


def assert_same(got: Any, ref: Any, what: str = "", rtol: float | None = None,
                atol: float | None = None) -> None:
    """Equal dtype and shape; exact for integers/bools, close (NaN/inf positions equal) else."""
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.dtype == ref.dtype, f"{what}: dtype {got.dtype} != {ref.dtype}"
    assert got.shape == ref.shape, f"{what}: shape {got.shape} != {ref.shape}"
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, ref, err_msg=what)
        return
    if rtol is None:
        rtol = 1e-5 if got.dtype == np.float32 else 1e-12
    if atol is None:
        atol = 1e-6 if got.dtype == np.float32 else 1e-14
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def float_specials(dtype: str = "float64") -> np.ndarray:
    values = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0, 0.1, -0.1, 7.25,
              -7.25, 1e-8, -1e-8, 30.0, -30.0, 700.0, -745.5, 1e5, -1e5, 2.2e-308, 1e-310,
              np.inf, -np.inf, np.nan]
    rng = np.random.default_rng(7)
    values += list(rng.standard_normal(36) * 10)
    with np.errstate(all="ignore"):
        return np.asarray(values, dtype=dtype)


def int_specials(dtype: str) -> np.ndarray:
    info = np.iinfo(dtype)
    values = [0, 1, 2, 3, 5, 7, 100, info.max, info.max - 1, info.min, info.min + 1]
    if info.min < 0:
        values += [-1, -2, -3, -5, -7, -100]
    rng = np.random.default_rng(3)
    values += list(rng.integers(max(info.min, -1000), min(info.max, 1000), 40 - len(values)))
    return np.asarray(values, dtype=dtype)
