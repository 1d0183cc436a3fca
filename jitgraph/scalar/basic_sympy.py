"""``theano.scalar.basic_sympy``: :class:`SymPyCCode`, a scalar op computing a SymPy
expression (Theano compiled SymPy's generated C; jitgraph evaluates the expression with
``sympy.lambdify`` and NumPy). Its gradient is the symbolic derivative of the expression.

SymPy is optional: without it, making such an op raises ``ImportError`` naming the package to
install.
"""

from __future__ import annotations

import itertools
from typing import Any, Sequence

from jitgraph.scalar.custom import ScalarOp
from jitgraph.scalar.type import get_scalar_type

try:  # SymPy is optional; only this module needs it
    import sympy  # noqa: F401

    imported_sympy = True
except ImportError:
    imported_sympy = False

_names = (f"sympy_func_{i}" for i in itertools.count(0))


def _need_sympy() -> None:
    if not imported_sympy:
        raise ImportError("jitgraph.scalar.basic_sympy needs SymPy, which is not installed: "
                          "`pip install sympy`")


def sympy_dtype(expr: Any) -> str:
    """The C type SymPy would give ``expr``: ``'int'``, ``'double'`` (``'float'`` never: SymPy
    gives floats double precision)."""
    _need_sympy()
    return "int" if expr.is_integer else "double"


def theano_dtype(expr: Any) -> Any:
    """The scalar type of ``expr``'s value: int64 or float64."""
    return get_scalar_type({"int": "int64", "double": "float64", "float": "float32"}[
        sympy_dtype(expr)])


class SymPyCCode(ScalarOp):
    """``SymPyCCode([x, y], x + y)(xt, yt)``: the value of the expression with the SymPy symbols
    ``inputs`` bound to the scalar variables given. The expression and symbols are
    ``op.sympy_expr`` and ``op.sympy_inputs`` (Theano's ``op.expr``/``op.inputs``: the scalar-op
    base class uses ``expr`` for its own expression)."""

    def __init__(self, inputs: Sequence[Any], expr: Any, name: str | None = None) -> None:
        _need_sympy()
        import sympy

        # ``sympy_inputs``/``sympy_expr``: the scalar-op base class uses ``expr`` for itself
        self.sympy_inputs = tuple(inputs)
        self.sympy_expr = expr
        self.name = name or next(_names)
        self._fn = sympy.lambdify(self.sympy_inputs, expr, modules="numpy")
        super().__init__(None, self.name)

    @property
    def key(self) -> tuple:
        return ("sympy_scalar_op", self.name, self.sympy_inputs, self.sympy_expr)

    def __eq__(self, other: Any) -> bool:
        return type(self) is type(other) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __reduce__(self) -> Any:
        return (type(self), (self.sympy_inputs, self.sympy_expr, self.name))

    def output_types(self, types: Sequence[Any]) -> Sequence[Any]:
        if len(types) != len(self.sympy_inputs):
            raise TypeError(f"{self.name} takes {len(self.sympy_inputs)} inputs "
                            f"({', '.join(map(str, self.sympy_inputs))}), got {len(types)}")
        return [theano_dtype(self.sympy_expr)]

    def impl(self, *values: Any) -> Any:
        return self._fn(*values)

    def grad(self, inputs: Sequence[Any], output_grads: Sequence[Any]) -> list:
        (gz,) = output_grads
        return [SymPyCCode(self.sympy_inputs, self.sympy_expr.diff(symbol),
                           name=f"{self.name}_grad_{i}")(*inputs) * gz
                for i, symbol in enumerate(self.sympy_inputs)]


__all__ = ["SymPyCCode", "sympy_dtype", "theano_dtype", "imported_sympy"]
