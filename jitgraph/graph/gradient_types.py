"""Placeholder types used by differentiation: :class:`NullType` and :class:`DisconnectedType`.

Neither type has values. A variable of ``NullType`` stands for a gradient that does not exist (an
op's gradient that is mathematically undefined or not implemented; ``why_null`` says which);
``grad`` propagates it and raises :class:`~jitgraph.gradient.NullTypeGradError` if it reaches a
requested gradient. A variable of ``DisconnectedType`` says that an output does not depend on an
input at all; an op's ``grad`` may return one, and ``grad(..., return_disconnected=
'Disconnected')`` returns one for inputs the cost does not depend on. (Theano keeps the same two
types, in ``theano.gof.null_type`` and ``theano.gradient``.)
"""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Variable
from jitgraph.graph.type import Type


class NullType(Type):
    """The type of a gradient that does not exist; ``why_null`` explains why.

    All NullTypes compare equal: the explanation is a message, not part of the type.
    """

    def __init__(self, why_null: str = "(no explanation given)") -> None:
        self.why_null = why_null

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        raise ValueError("No values may be assigned to a NullType")

    def __eq__(self, other: Any) -> bool:
        return type(self) is type(other)

    def __hash__(self) -> int:
        return hash(type(self))

    def __str__(self) -> str:
        return "NullType"


class DisconnectedType(Type):
    """The type of the gradient of an output with respect to an input it does not depend on."""

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        raise AssertionError("If you're assigning to a DisconnectedType you're doing something "
                             "wrong. It should only be used as a symbolic placeholder.")

    def __str__(self) -> str:
        return "DisconnectedType"


def null_type(name: str | None = None) -> Variable:
    """A fresh variable of :class:`NullType` (no explanation)."""
    return NullType()(name)


def disconnected_type(name: str | None = None) -> Variable:
    """A fresh variable of :class:`DisconnectedType`."""
    return DisconnectedType()(name)


def is_null(var: Any) -> bool:
    """True if ``var`` is a variable of :class:`NullType`."""
    return isinstance(getattr(var, "type", None), NullType)


def is_disconnected(var: Any) -> bool:
    """True if ``var`` is a variable of :class:`DisconnectedType`."""
    return isinstance(getattr(var, "type", None), DisconnectedType)
