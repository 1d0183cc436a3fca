"""``theano.gpuarray.dnn``: Theano's cuDNN ops. jitgraph has none (its GPU convolutions are
im2col + cuBLAS), so ``dnn_available()`` and ``dnn_present()`` are False, with the reason in
``dnn_available.msg`` as Theano gives it, and the ops raise saying what to use instead."""

from __future__ import annotations

from typing import Any

from jitgraph.gpuarray import _INSTEAD, GpuArrayBackendUnavailable

_WHY = ("jitgraph has no cuDNN ops: under device=cuda, convolutions, pooling and the other "
        "nnet ops run through jitgraph's own GPU kernels, or on the CPU with a warning where "
        "it has none")


def dnn_present() -> bool:
    """Whether cuDNN can be used by the pygpu back end: never here."""
    dnn_present.msg = _WHY  # type: ignore[attr-defined]
    return False


def dnn_available(context_name: Any = None) -> bool:
    """Whether cuDNN ops can run: never here (``dnn_available.msg`` says why)."""
    dnn_available.msg = _WHY  # type: ignore[attr-defined]
    return False


dnn_present.msg = _WHY  # type: ignore[attr-defined]
dnn_available.msg = _WHY  # type: ignore[attr-defined]


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)

    def unavailable(*args: Any, **kwargs: Any) -> Any:
        raise GpuArrayBackendUnavailable(f"theano.gpuarray.dnn.{name}: {_WHY}. {_INSTEAD}")

    if name.startswith(("dnn_", "Gpu")):
        unavailable.__name__ = name
        return unavailable
    raise AttributeError(f"theano.gpuarray.dnn.{name}: {_WHY}")
