"""The Type protocol: what values a variable may hold, and how values are checked and compared."""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Constant, Variable


class Type:
    """Base class of variable types. Types are immutable and compare by value."""

    variable_type: type = Variable
    constant_type: type = Constant

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        """Return ``data`` converted to a valid value of this type, or raise ``TypeError``."""
        raise NotImplementedError

    def is_valid_value(self, data: Any) -> bool:
        try:
            self.filter(data, strict=True)
            return True
        except (TypeError, ValueError):
            return False

    def values_eq(self, a: Any, b: Any) -> bool:
        return a == b

    def values_eq_approx(self, a: Any, b: Any) -> bool:
        return self.values_eq(a, b)

    def value_signature(self, data: Any) -> Any:
        """A hashable summary of ``data`` used to merge equal constants."""
        return data

    def short_value_repr(self, data: Any) -> str:
        return repr(data)

    def make_variable(self, name: str | None = None) -> Variable:
        return self.variable_type(self, None, None, name)

    def make_constant(self, value: Any, name: str | None = None) -> Constant:
        return self.constant_type(self, value, name)

    def __call__(self, name: str | None = None) -> Variable:
        return self.make_variable(name)

    def convert_variable(self, var: Variable) -> Variable | None:
        """``var`` as a variable of this type, or None if it cannot stand in for one."""
        return var if var.type == self else None

    def __eq__(self, other: Any) -> bool:
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash((type(self), tuple(sorted(self.__dict__.items()))))


class GenericType(Type):
    """Holds any Python object (used for opaque values such as random states or slices)."""

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        return data

    def __str__(self) -> str:
        return "Generic"  # as Theano prints it

    def value_signature(self, data: Any) -> Any:
        try:
            hash(data)
            return data
        except TypeError:
            return id(data)


generic = GenericType()
