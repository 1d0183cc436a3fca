"""The Theano variable constructors: ``scalar``, ``vector``, ..., their dtype-prefixed forms
(``b`` int8, ``w`` int16, ``i`` int32, ``l`` int64, ``f`` float32, ``d`` float64, ``c`` complex64,
``z`` complex128) and the plural forms (``dmatrices('a b')``).

As in Theano, the generic forms (``matrix(name, dtype)``) are functions, while the dtype-prefixed
forms are :class:`TensorType` instances that make a variable when called: ``x = dscalar('x')``
gives ``x.type is dscalar``.
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.tensor.core.type import TensorType

_PATTERNS = {
    "scalar": (), "vector": (False,), "row": (True, False), "col": (False, True),
    "matrix": (False, False), "tensor3": (False,) * 3, "tensor4": (False,) * 4,
    "tensor5": (False,) * 5, "tensor6": (False,) * 6, "tensor7": (False,) * 7,
}
_PLURALS = {"scalar": "scalars", "vector": "vectors", "row": "rows", "col": "cols",
            "matrix": "matrices", "tensor3": "tensor3s", "tensor4": "tensor4s",
            "tensor5": "tensor5s", "tensor6": "tensor6s", "tensor7": "tensor7s"}
_PREFIXES = {"b": "int8", "w": "int16", "i": "int32", "l": "int64", "f": "float32",
             "d": "float64", "c": "complex64", "z": "complex128"}


def tensor(dtype: str | None = None, broadcastable: Sequence[bool] = (), name: str | None = None,
           shape: Sequence[int | None] | None = None) -> Any:
    """A symbolic tensor of the given dtype (default floatX) and broadcastable pattern."""
    if shape is not None:
        broadcastable = [s == 1 for s in shape]
    return TensorType(dtype or "floatX", broadcastable).make_variable(name)


def _make_single(pattern: tuple[bool, ...], kind: str):
    def constructor(name: str | None = None, dtype: str | None = None) -> Any:
        return TensorType(dtype or "floatX", pattern).make_variable(name)

    constructor.__doc__ = f"A symbolic {kind} of dtype ``dtype`` (default config.floatX)."
    return constructor


def _make_plural(single: Any, takes_dtype: bool):
    def constructor(*names: Any, **kwargs: Any) -> Any:
        dtype = kwargs.pop("dtype", None) if takes_dtype else None
        if kwargs:
            raise TypeError(f"unexpected keyword arguments {sorted(kwargs)}")
        make = single if dtype is None else (lambda n: single(n, dtype))
        if len(names) == 1 and isinstance(names[0], int):
            return [make(None) for _ in range(names[0])]
        if len(names) == 1 and isinstance(names[0], str):
            text = names[0]
            # "x y" / "x,y" name several variables; Theano also reads "xy" letter by letter,
            # and a single letter gives a single variable rather than a list.
            names = tuple(text.replace(",", " ").split()) if (" " in text or "," in text) \
                else tuple(text)
            if len(names) == 1:
                return make(names[0])
        return [make(n) for n in names]

    constructor.__doc__ = ("Several symbolic variables: ``dmatrices('a', 'b')``, "
                           "``dmatrices('a b')`` or ``dmatrices(3)``.")
    return constructor


def _build() -> dict[str, Any]:
    made: dict[str, Any] = {}
    for kind, pattern in _PATTERNS.items():
        generic = _make_single(pattern, kind)
        made[kind] = generic
        made[_PLURALS[kind]] = _make_plural(generic, takes_dtype=True)
        for prefix, dtype in _PREFIXES.items():
            typed = TensorType(dtype, pattern)  # called like a function: dscalar('x')
            made[prefix + kind] = typed
            made[prefix + _PLURALS[kind]] = _make_plural(typed, takes_dtype=False)
    for name, fn in made.items():
        if not isinstance(fn, TensorType):
            fn.__name__ = fn.__qualname__ = name
    return made


_CONSTRUCTORS = _build()
globals().update(_CONSTRUCTORS)
__all__ = ["tensor", *_CONSTRUCTORS]
