"""Enumerations as op parameter types (Theano's ``EnumType`` / ``EnumList``).

An enumeration is a mapping from constant names to integer values that doubles as the type of an
op parameter: ``PoolingMode_t.POOLING_MAX`` reads a constant, ``PoolingMode_t.fromalias('max')``
maps a user-facing string (an alias) to its value, ``filter`` accepts only the enumeration's
values. Theano also exposed the constants to C code; here they are Python values only.
"""

from __future__ import annotations

from typing import Any

from jitgraph.graph.type import Type


class EnumType(Type, dict):
    """Named integer constants: ``EnumType(A=1, B=2)``; ``ctype`` names the integer kind shown
    in the type's name. A value may be given with an alias: ``EnumType(MAX=(0, 'max'))``."""

    def __init__(self, ctype: str = "int", **constants: Any) -> None:
        values: dict[str, int] = {}
        aliases: dict[str, str] = {}
        for name, value in constants.items():
            if isinstance(value, tuple):
                value, alias = value
                self._add_alias(aliases, alias, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{type(self).__name__}: constant {name!r} must be a number, got "
                                f"{value!r}")
            values[name] = value
        dict.__init__(self, values)
        self.ctype = ctype
        self.aliases = aliases

    def _add_alias(self, aliases: dict[str, str], alias: Any, name: str) -> None:
        if not isinstance(alias, str) or not alias:
            raise TypeError(f"{type(self).__name__}: the alias of {name!r} must be a non-empty "
                            f"string, got {alias!r}")
        if alias in aliases:
            raise TypeError(f"{type(self).__name__}: alias {alias!r} is used twice")
        aliases[alias] = name

    # -- constants -------------------------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        if name in self:
            return self[name]
        raise AttributeError(f"{type(self).__name__} has no constant or attribute {name!r}")

    def fromalias(self, alias: str) -> Any:
        """The value of the constant whose alias (or name) is ``alias``."""
        if alias in self.aliases:
            return self[self.aliases[alias]]
        if alias in self:
            return self[alias]
        raise KeyError(f"{self} has no constant or alias {alias!r}")

    def has_alias(self, alias: str) -> bool:
        """Whether ``alias`` is the alias of one of the constants."""
        return alias in self.aliases

    def get_aliases(self) -> tuple[str, ...]:
        """The aliases, sorted."""
        return tuple(sorted(self.aliases))

    # -- Type -------------------------------------------------------------------------------
    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if data in self.values() and not isinstance(data, bool):
            return data
        raise TypeError(f"{data!r} is not a value of {self} (expected one of "
                        f"{sorted(set(self.values()))})")

    def values_eq(self, a: Any, b: Any) -> bool:
        return a == b

    def __repr__(self) -> str:
        reverse = {name: alias for alias, name in self.aliases.items()}
        items = ", ".join(f"{name}{f'({reverse[name]})' if name in reverse else ''}:{value}"
                          for name, value in sorted(self.items()))
        return f"{type(self).__name__}<{self.ctype}>({items})"

    __str__ = __repr__

    def __eq__(self, other: Any) -> bool:
        return (type(self) is type(other) and self.ctype == other.ctype
                and dict.__eq__(self, other) and self.aliases == other.aliases)

    def __ne__(self, other: Any) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((type(self), self.ctype, tuple(sorted(self.items())),
                     tuple(sorted(self.aliases.items()))))


class EnumList(EnumType):
    """Constants numbered 0, 1, ... in the order given: ``EnumList('A', ('B', 'alias_b'))``."""

    def __init__(self, *names: Any, ctype: str = "int") -> None:
        constants: dict[str, Any] = {}
        for value, item in enumerate(names):
            name, alias = item if isinstance(item, tuple) else (item, None)
            if not isinstance(name, str) or name in constants:
                raise TypeError(f"EnumList: constant names must be distinct strings, got "
                                f"{name!r}")
            constants[name] = (value, alias) if alias is not None else value
        super().__init__(ctype=ctype, **constants)


__all__ = ["EnumList", "EnumType"]
