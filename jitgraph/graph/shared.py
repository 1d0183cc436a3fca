"""Shared variables: graph inputs whose values live between function calls.

:class:`SharedVariable` is the base class of every kind (tensors, sparse matrices, random
states, device arrays, any Python object) and :func:`shared` makes one from a value by asking
the registered constructors, most recent first. Each kind registers its constructor where its
type is defined (:mod:`jitgraph.tensor.core.sharedvar` for arrays and scalars), so this module knows
none of them; :mod:`jitgraph.shared_kinds` (loaded through the ``shared_kinds`` service before
the first shared variable is made or a user's constructor registered) makes sure they all are.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

from jitgraph import services
from jitgraph.graph.basic import Variable
from jitgraph.graph.container import SharedContainer
from jitgraph.graph.type import generic


#: ``shared(value, target=COMPUTATION_TARGET)``: on the device a function's computations run on
#: by default (the GPU with ``device=cuda*``, else the host), whatever the value's dtype: for a
#: state that the kernels drawing from it update (the MRG streams' state matrices), which a
#: transfer each call would otherwise copy both ways
COMPUTATION_TARGET = "computation"


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


_CONSTRUCTORS: list[Callable[..., SharedVariable | None]] = []
#: whether the standard kinds (jitgraph.shared_kinds) are registered: "no", "loading", "yes"
_standard_kinds = "no"


def register_kind(fn: Callable[..., SharedVariable | None]) -> Callable:
    """Register one of jitgraph's own kinds of shared value (done by the module defining the
    kind, when imported); users register theirs with :func:`shared_constructor`."""
    _CONSTRUCTORS.insert(0, fn)
    return fn


def _register_standard_kinds() -> None:
    """Make sure every kind jitgraph provides is registered (once), whatever was imported so
    far: the package root provides them as the ``shared_kinds`` service."""
    global _standard_kinds
    if _standard_kinds == "no":
        _standard_kinds = "loading"
        try:
            services.get("shared_kinds")
        finally:
            _standard_kinds = "yes"


def shared_constructor(fn: Callable[..., SharedVariable | None], remove: bool = False
                       ) -> Callable:
    """Register a constructor tried (most recent first, so before jitgraph's own kinds) by
    :func:`shared`; with ``remove``, unregister it."""
    _register_standard_kinds()
    if remove:
        _CONSTRUCTORS.remove(fn)
    else:
        _CONSTRUCTORS.insert(0, fn)
    return fn


def shared(value: Any, name: str | None = None, strict: bool = False,
           allow_downcast: bool | None = None, borrow: bool = False, **kwargs: Any
           ) -> SharedVariable:
    """A shared variable holding ``value`` (copied unless ``borrow``)."""
    if isinstance(value, Variable):
        raise TypeError(f"shared() holds a value, not the symbolic variable {value}: give it "
                        "a NumPy array (e.g. the variable's .eval())")
    _register_standard_kinds()
    for ctor in _CONSTRUCTORS:
        var = ctor(value, name=name, strict=strict, allow_downcast=allow_downcast,
                   borrow=borrow, **kwargs)
        if var is not None:
            return var
    if kwargs:
        raise TypeError(f"no shared-variable type for a value of type {type(value).__name__} "
                        f"takes the options {sorted(kwargs)}")
    # any other Python object (a list, a dict, None, ...) is held as it is, as in Theano
    return SharedVariable(generic, value, name, strict, allow_downcast, borrow)


__all__ = ["COMPUTATION_TARGET", "SharedVariable", "register_kind", "shared", "shared_constructor"]
