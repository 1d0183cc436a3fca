"""``theano.typed_list.type``: :class:`TypedListType`, the type of Python lists whose elements
all have one type (``TypedListType(T.fvector)`` holds lists of float32 vectors)."""

from __future__ import annotations

from typing import Any

from jitgraph.graph.type import Type


class TypedListType(Type):
    """Lists of values of ``ttype``. ``depth=n`` nests it: ``TypedListType(t, 1)`` holds lists
    of lists of ``t``. A value is a plain Python ``list``."""

    def __init__(self, ttype: Type, depth: int = 0) -> None:
        if depth < 0:
            raise ValueError(f"TypedListType: depth must be 0 or more, got {depth}")
        if not isinstance(ttype, Type):
            raise TypeError(f"TypedListType: the element type must be a jitgraph Type (such as "
                            f"T.fvector), got {ttype!r}")
        self.ttype = ttype if depth == 0 else TypedListType(ttype, depth - 1)

    @property
    def variable_type(self) -> type:  # type: ignore[override]
        from jitgraph.typed_list.basic import TypedListVariable

        return TypedListVariable

    @property
    def constant_type(self) -> type:  # type: ignore[override]
        from jitgraph.typed_list.basic import TypedListConstant

        return TypedListConstant

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> list:
        """``data`` as a list of valid ``ttype`` values (each converted by ``ttype.filter``
        unless ``strict``)."""
        if not isinstance(data, (list, tuple)) or (strict and not isinstance(data, list)):
            raise TypeError(f"{self}: expected a Python list, got {type(data).__name__}")
        if strict:
            for item in data:
                self.ttype.filter(item, strict=True)
            return data
        return [self.ttype.filter(item, allow_downcast=allow_downcast) for item in data]

    def values_eq(self, a: Any, b: Any) -> bool:
        return len(a) == len(b) and all(self.ttype.values_eq(x, y) for x, y in zip(a, b))

    def values_eq_approx(self, a: Any, b: Any) -> bool:
        return len(a) == len(b) and all(self.ttype.values_eq_approx(x, y)
                                         for x, y in zip(a, b))

    def value_signature(self, data: Any) -> Any:
        return tuple(self.ttype.value_signature(item) for item in data)

    def may_share_memory(self, a: Any, b: Any) -> bool:
        """Whether two lists (or a list and an element) may share storage."""
        if a is b:
            return True
        share = getattr(self.ttype, "may_share_memory", None)
        if share is None:
            return False
        left = a if isinstance(a, list) else [a]
        right = b if isinstance(b, list) else [b]
        return any(share(x, y) for x in left for y in right)

    def get_depth(self) -> int:
        """How many list levels are nested inside this one (0 for a list of tensors)."""
        if isinstance(self.ttype, TypedListType):
            return self.ttype.get_depth() + 1
        return 0

    @property
    def dtype(self) -> Any:
        return self.ttype.dtype

    @property
    def ndim(self) -> int:
        return self.ttype.ndim

    def __eq__(self, other: Any) -> bool:
        return type(self) is type(other) and self.ttype == other.ttype

    def __hash__(self) -> int:
        return hash((type(self), self.ttype))

    def __str__(self) -> str:
        return f"TypedList <{self.ttype!r}>"

    __repr__ = __str__


__all__ = ["TypedListType"]
