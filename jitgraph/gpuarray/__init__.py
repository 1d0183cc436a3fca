"""``theano.gpuarray``: the libgpuarray (pygpu) GPU back end of Theano 1.0. jitgraph has no
pygpu back end -- its GPU graphs run on CuPy arrays, chosen by the ``device=cuda`` flag -- so
this package only answers the questions programs ask before using it: ``pygpu_activated`` is
False (as in Theano without pygpu), ``dnn.dnn_available()`` is False, and ``use`` /
``init_dev`` or any other name raise an error saying what to do instead."""

from __future__ import annotations

from typing import Any

#: whether the pygpu back end is active: never here (jitgraph's GPU back end is CuPy)
pygpu_activated = False
pygpu = None

_INSTEAD = ("jitgraph has no libgpuarray (pygpu) back end; it runs graphs on an NVIDIA GPU "
            "through CuPy: install jitgraph[cuda12] or jitgraph[cuda13] and set the flag "
            "device=cuda (THEANO_FLAGS=device=cuda0), then build and compile graphs as usual.")


class GpuArrayBackendUnavailable(RuntimeError):
    """Raised by the parts of ``theano.gpuarray`` that need pygpu."""


def use(device: str, *args: Any, **kwargs: Any) -> None:
    """Theano's ``theano.gpuarray.use(device)``: raises, saying how jitgraph uses a GPU."""
    raise GpuArrayBackendUnavailable(f"theano.gpuarray.use({device!r}): {_INSTEAD}")


def init_dev(dev: str, name: str | None = None, preallocate: Any = None) -> None:
    """Theano's ``init_dev``: raises, saying how jitgraph uses a GPU."""
    raise GpuArrayBackendUnavailable(f"theano.gpuarray.init_dev({dev!r}): {_INSTEAD}")


def __getattr__(name: str) -> Any:
    if name == "dnn":
        import importlib

        return importlib.import_module(f"{__name__}.dnn")
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(f"theano.gpuarray.{name} is part of the pygpu GPU back end. {_INSTEAD}")
