"""Reading pickles written by Theano 1.0: its shared variables load as jitgraph shared variables.

A pickle names the classes of its objects (``theano.tensor.sharedvar.TensorSharedVariable``);
the unpicklers of :mod:`jitgraph.misc.pkl_utils` resolve Theano's names through
:class:`TheanoClassesMixin`. A shared variable keeps its value, name, broadcastable pattern and
strictness; the parts of it that only Theano uses (its container, the creation stack in its tag)
are read and dropped. Theano's graphs, ops and compiled functions are refused with an error that
names the class: rebuild them with jitgraph and load only the values.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np

from jitgraph.compile.sharedvalue import shared

__all__ = ["TheanoClassesMixin"]


class _TheanoState:
    """A Theano object read only for its pickled state (a tag, a container, a type)."""

    def __setstate__(self, state: Any) -> None:
        self.state = state if isinstance(state, dict) else {"_state": state}

    def get(self, key: str, default: Any = None) -> Any:
        # an object pickled without state (an empty __dict__) never had __setstate__ called
        return self.__dict__.get("state", {}).get(key, default)


class _TheanoSharedVariable:
    """A Theano shared variable being unpickled. Its pickled state completes it: it then becomes
    the jitgraph shared variable of the same value, name and type (every reference to it in the
    pickle is to this very object, so they all see the jitgraph variable)."""

    #: Theano's ScalarSharedVariable: rebuilt from a NumPy scalar, as Theano built it
    scalar = False
    #: the module that registers jitgraph's shared-variable constructor for this kind of value
    provider = "jitgraph.compile.sharedvalue"

    def __setstate__(self, state: dict) -> None:
        import importlib

        importlib.import_module(self.provider)
        container = state.get("container")
        storage = container.get("storage") if isinstance(container, _TheanoState) else None
        if not storage:
            raise pickle.UnpicklingError(f"Theano shared variable {state.get('name')!r} has no "
                                         "stored value in this pickle")
        ttype = state.get("type")
        options: dict[str, Any] = {}
        broadcastable = ttype.get("broadcastable") if isinstance(ttype, _TheanoState) else None
        if broadcastable and isinstance(storage[0], np.ndarray):
            options["broadcastable"] = tuple(bool(b) for b in broadcastable)
        value = storage[0]
        if self.scalar and isinstance(value, np.ndarray) and value.ndim == 0:
            value = value[()]
        strict = bool(container.get("strict", False))
        try:
            new = shared(value, name=state.get("name"), strict=strict,
                         allow_downcast=container.get("allow_downcast"), borrow=True, **options)
        except TypeError as exc:
            raise pickle.UnpicklingError(
                f"Theano shared variable {state.get('name')!r} holds a "
                f"{type(value).__module__}.{type(value).__qualname__}: {exc}") from exc
        self.__class__ = new.__class__  # type: ignore[assignment]
        self.__dict__.update(new.__dict__)


class _TheanoScalarSharedVariable(_TheanoSharedVariable):
    scalar = True


class _TheanoRandomStateSharedVariable(_TheanoSharedVariable):
    provider = "jitgraph.random.random_state"


#: Theano's (module, class) -> the stand-in that reads it
_READABLE: dict[tuple[str, str], type] = {
    ("theano.gof.utils", "scratchpad"): _TheanoState,
    ("theano.gof.link", "Container"): _TheanoState,
    ("theano.tensor.type", "TensorType"): _TheanoState,
    ("theano.sparse.type", "SparseType"): _TheanoState,
    ("theano.gpuarray.type", "GpuArrayType"): _TheanoState,
    ("theano.tensor.raw_random", "RandomStateType"): _TheanoState,
    ("theano.gof.type", "Generic"): _TheanoState,
    ("theano.compile.sharedvalue", "SharedVariable"): _TheanoSharedVariable,
    ("theano.tensor.sharedvar", "TensorSharedVariable"): _TheanoSharedVariable,
    ("theano.tensor.sharedvar", "ScalarSharedVariable"): _TheanoScalarSharedVariable,
    ("theano.sparse.sharedvar", "SparseTensorSharedVariable"): _TheanoSharedVariable,
    ("theano.gpuarray.type", "GpuArraySharedVariable"): _TheanoSharedVariable,
    ("theano.tensor.shared_randomstreams", "RandomStateSharedVariable"):
        _TheanoRandomStateSharedVariable,
}


class TheanoClassesMixin:
    """Unpickler mixin: Theano's shared variables (and the objects in them) read as jitgraph's,
    and NumPy 1's module names (``numpy.core.multiarray``) as NumPy 2's, without its warning."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "theano" or module.startswith("theano."):
            reader = _READABLE.get((module, name))
            if reader is None:
                raise pickle.UnpicklingError(
                    f"this pickle holds a Theano object of class {module}.{name}; jitgraph reads "
                    "the arrays, containers and shared variables of Theano-written pickles, not "
                    "Theano's graphs, ops or functions: rebuild those with jitgraph and load "
                    "only the values")
            return reader
        if module.startswith("numpy.core") and np.lib.NumpyVersion(np.__version__) >= "2.0.0":
            module = "numpy._core" + module[len("numpy.core"):]
        return super().find_class(module, name)  # type: ignore[misc]
