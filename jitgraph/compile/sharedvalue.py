"""Shared variables: graph inputs whose values live between function calls."""

from __future__ import annotations

import copy
from typing import Any, Callable

import numpy as np

from jitgraph.compile.backend import backends
from jitgraph.graph.basic import Variable
from jitgraph.tensor.type import TensorType
from jitgraph.tensor.var import _TensorOperators


class SharedVariable(Variable):
    """A variable with a persistent value, an implicit input of every function that uses it.

    ``default_update``, when set, is applied by every function using the variable unless the
    function lists its own update for it or is built with ``no_default_updates``.
    """

    def __init__(self, type: Any, value: Any, name: str | None = None, strict: bool = False,
                 allow_downcast: bool | None = None, borrow: bool = False) -> None:
        super().__init__(type, None, None, name)
        self.strict = strict
        self.allow_downcast = allow_downcast
        self._value = type.filter(value if borrow else copy.deepcopy(value), strict=strict,
                                  allow_downcast=allow_downcast)

    def get_value(self, borrow: bool = False, return_internal_type: bool = False) -> Any:
        """The current value (a copy unless ``borrow``)."""
        return self._value if borrow else copy.deepcopy(self._value)

    @property
    def container(self) -> Any:
        """The variable's container (the same object every time; functions' ``input_storage``
        list it): its ``value`` is the variable's value."""
        made = self.__dict__.get("_container")
        if made is None:
            from jitgraph.compile.container import SharedContainer

            made = self.__dict__["_container"] = SharedContainer(self)
        return made

    def set_value(self, new_value: Any, borrow: bool = False) -> None:
        """Replace the value; it is checked against the variable's type."""
        value = self.type.filter(new_value, strict=self.strict, allow_downcast=self.allow_downcast)
        if not borrow and value is new_value:
            value = copy.deepcopy(value)
        self._value = value

    def clone(self) -> "SharedVariable":
        # A clone shares the value container: functions over a cloned graph update the original.
        return self

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_eval_cache", None)
        state.pop("_container", None)  # a view, made again when asked for
        return state


class TensorSharedVariable(_TensorOperators, SharedVariable):
    """A shared ndarray. Its broadcastable pattern is all False unless given, so that
    ``set_value`` may later change any dimension. A new value of another dtype is kept when
    the variable's dtype holds it without loss (an int8 array in a float32 variable), as
    Theano's does; otherwise ``set_value`` raises."""


_CONSTRUCTORS: list[Callable[..., SharedVariable | None]] = []


def shared_constructor(fn: Callable[..., SharedVariable | None], remove: bool = False
                       ) -> Callable:
    """Register a constructor tried (most recent first) by :func:`shared`; with ``remove``,
    unregister it."""
    if remove:
        _CONSTRUCTORS.remove(fn)
    else:
        _CONSTRUCTORS.insert(0, fn)
    return fn


def shared(value: Any, name: str | None = None, strict: bool = False,
           allow_downcast: bool | None = None, borrow: bool = False, **kwargs: Any
           ) -> SharedVariable:
    """A shared variable holding ``value`` (copied unless ``borrow``)."""
    for ctor in _CONSTRUCTORS:
        var = ctor(value, name=name, strict=strict, allow_downcast=allow_downcast,
                   borrow=borrow, **kwargs)
        if var is not None:
            return var
    if kwargs:
        raise TypeError(f"no shared-variable type for a value of type {type(value).__name__} "
                        f"takes the options {sorted(kwargs)}")
    # any other Python object (a list, a dict, None, ...) is held as it is, as in Theano
    from jitgraph.graph.type import generic

    return SharedVariable(generic, value, name, strict, allow_downcast, borrow)


@shared_constructor
def tensor_constructor(value: Any, name: str | None = None, strict: bool = False,
                       allow_downcast: bool | None = None, borrow: bool = False,
                       broadcastable: Any = None, shape: Any = None, target: str | None = None
                       ) -> TensorSharedVariable | None:
    if target not in (None, "cpu"):
        return None
    if isinstance(value, (bool, int, float, complex, np.generic)):
        value = np.asarray(value)
    if not isinstance(value, np.ndarray):
        return None
    if broadcastable is None:
        broadcastable = [False] * value.ndim if shape is None else [s == 1 for s in shape]
    ttype = TensorType(value.dtype.name, broadcastable)
    return TensorSharedVariable(ttype, value, name, strict, allow_downcast, borrow)


class ScalarSharedVariable(TensorSharedVariable):
    """A shared 0-d tensor made from a Python or NumPy scalar (``shared(0.1)``), Theano's class
    for them; it behaves as any :class:`TensorSharedVariable`."""


@shared_constructor
def scalar_constructor(value: Any, name: str | None = None, strict: bool = False,
                       allow_downcast: bool | None = None, borrow: bool = False,
                       target: str | None = None, **tensor_options: Any
                       ) -> ScalarSharedVariable | None:
    """A :class:`ScalarSharedVariable` for a Python or NumPy scalar (None for anything else,
    for a device target -- the device constructor decides those -- and when tensor options
    such as ``broadcastable`` are given: :func:`tensor_constructor` takes them)."""
    if tensor_options or target not in (None, "cpu") or \
            not isinstance(value, (bool, int, float, complex, np.generic)):
        return None
    value = np.asarray(value)
    return ScalarSharedVariable(TensorType(value.dtype.name, []), value, name, strict,
                                allow_downcast, borrow)


@shared_constructor
def device_constructor(value: Any, name: str | None = None, strict: bool = False,
                       allow_downcast: bool | None = None, borrow: bool = False,
                       broadcastable: Any = None, shape: Any = None, target: str | None = None
                       ) -> SharedVariable | None:
    """Arrays on a backend's device (the GPU's: ``device=cuda*``: float32 ones;
    ``target='cuda'``: any), made by the backend (:meth:`~.backend.Backend.make_shared`)."""
    for backend in backends():
        var = backend.make_shared(value, name=name, strict=strict,
                                  allow_downcast=allow_downcast, borrow=borrow,
                                  broadcastable=broadcastable, shape=shape, target=target)
        if var is not None:
            return var
    return None


@shared_constructor
def random_state_constructor(value: Any, **kwargs: Any) -> SharedVariable | None:
    """A ``numpy.random.RandomState``, through :mod:`jitgraph.random.random_state` (imported
    only for such a value), as ``theano.shared`` takes one right after ``import theano``."""
    if not isinstance(value, np.random.RandomState):
        return None
    from jitgraph.random.random_state import randomstate_constructor

    return randomstate_constructor(value, **kwargs)


@shared_constructor
def sparse_matrix_constructor(value: Any, name: str | None = None, strict: bool = False,
                              allow_downcast: bool | None = None, borrow: bool = False,
                              **kwargs: Any) -> SharedVariable | None:
    """A scipy.sparse matrix, through :mod:`jitgraph.sparse` (imported only for such a value:
    a value of a SciPy class means SciPy is loaded already)."""
    if not type(value).__module__.startswith("scipy.sparse"):
        return None
    from jitgraph.sparse.sharedvar import sparse_constructor

    return sparse_constructor(value, name=name, strict=strict, allow_downcast=allow_downcast,
                              borrow=borrow, **kwargs)
