"""Small ops the compile step and user programs use (Theano's ``theano.compile.ops``).

* :class:`DeepCopyOp` / ``deep_copy_op``: a copy of its input (what a function returns when an
  output would otherwise alias an input or another output);
* :class:`ViewOp` / ``view_op`` (from :mod:`jitgraph.graph.view_op`): its input itself, declared
  as a view (the base of the gradient-blocking ops; marks aliased outputs that may be borrowed);
* :class:`FromFunctionOp` and the :func:`as_op` decorator: a Python function on NumPy values
  wrapped as an op with declared input and output types;
* the shape ops Theano exported here (``Shape``, ``Shape_i``, ``SpecifyShape``, ``Rebroadcast``,
  ``shape``, ``specify_shape``), re-exported from :mod:`jitgraph.tensor`;
* the ``register_*_c_code`` hooks of Theano's C backend, which raise: see :func:`_no_c_code`.
"""

from __future__ import annotations

import copy
import importlib
import pickle
from typing import Any, Callable, NoReturn, Sequence

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.c_code import CCodeUnavailableError
from jitgraph.graph.op import Op, _as_input, _as_type
from jitgraph.graph.view_op import ViewOp, view_op
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.shaping.rebroadcast import Rebroadcast
from jitgraph.tensor.shaping.shape import Shape, Shape_i, SpecifyShape, shape, specify_shape


def _as_variable(x: Any) -> Variable:
    if isinstance(x, Variable):
        return x

    return as_tensor_variable(x)


class DeepCopyOp(Op):
    """An independent copy of its input (``ndarray.copy()``, or ``copy.deepcopy``)."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = _as_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (x,) = inputs
        output_storage[0][0] = x.copy() if hasattr(x, "copy") else copy.deepcopy(x)

    def do_constant_folding(self, node: Apply) -> bool:
        return False  # folding would hand out the constant's own storage, defeating the copy

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return list(output_grads)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return list(eval_points)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]


deep_copy_op = DeepCopyOp()


# ---------------------------------------------------------------------------------------------
# Python functions as ops

class FromFunctionOp(Op):
    """An op calling ``fn(*input_values)`` (which returns the output value, or a list/tuple of
    them), with the types ``itypes`` and ``otypes``. Build it with :func:`as_op`.

    ``infer_shape(node, input_shapes)``, when given, computes the output shapes without running
    ``fn``. The op has no gradient. It pickles by reference to ``fn``, which must therefore be
    importable under its module and name.
    """

    __props__ = ("fn", "itypes", "otypes", "infer_shape_fn")

    def __init__(self, fn: Callable[..., Any], itypes: Sequence[Any], otypes: Sequence[Any],
                 infer_shape: Callable[[Apply, list], list] | None) -> None:
        self.fn = fn
        self.itypes = tuple(_as_type(t, "itypes") for t in itypes)
        self.otypes = tuple(_as_type(t, "otypes") for t in otypes)
        self.infer_shape_fn = infer_shape
        self.__doc__ = getattr(fn, "__doc__", None)

    def __str__(self) -> str:
        return f"FromFunctionOp{{{getattr(self.fn, '__name__', self.fn)}}}"

    __repr__ = __str__

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != len(self.itypes):
            raise ValueError(f"{self} expects {len(self.itypes)} inputs, got {len(inputs)}")
        variables = [_as_input(self, k, value, t) for k, (value, t)
                     in enumerate(zip(inputs, self.itypes))]
        return Apply(self, variables, [t.make_variable() for t in self.otypes])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        results = self.fn(*inputs)
        if not isinstance(results, (list, tuple)):
            results = (results,)
        if len(results) != len(output_storage):
            raise ValueError(f"{self}: the function returned {len(results)} values for "
                             f"{len(output_storage)} outputs")
        for k, (cell, value, out) in enumerate(zip(output_storage, results, node.outputs)):
            try:
                cell[0] = out.type.filter(value)
            except TypeError as exc:
                raise TypeError(f"{self}: output {k} of the function does not fit the declared "
                                f"type {out.type}: {exc}") from exc

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        if self.infer_shape_fn is None:
            raise NotImplementedError(f"{self} was made without infer_shape")
        return self.infer_shape_fn(node, list(input_shapes))

    def __reduce__(self) -> Any:
        module = getattr(self.fn, "__module__", None)
        name = getattr(self.fn, "__qualname__", getattr(self.fn, "__name__", None))
        try:
            found = _load_by_name(module, name)
        except Exception as exc:
            raise pickle.PicklingError(f"cannot pickle {self}: {module}.{name} cannot be "
                                       f"imported ({exc})") from exc
        if found is not self:
            raise pickle.PicklingError(f"cannot pickle {self}: {module}.{name} is not this op "
                                       "(as_op ops pickle by the name of the decorated "
                                       "function)")
        return (_load_by_name, (module, name))


def _load_by_name(module: str | None, name: str | None) -> Any:
    if not module or not name:
        raise ValueError("the function has no module or name")
    obj: Any = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def as_op(itypes: Any, otypes: Any, infer_shape: Callable[[Apply, list], list] | None = None
          ) -> Callable[[Callable[..., Any]], FromFunctionOp]:
    """Decorator turning a function on NumPy values into an op with the given types::

        @as_op(itypes=[T.dmatrix, T.dmatrix], otypes=[T.dmatrix])
        def numpy_dot(a, b):
            return numpy.dot(a, b)

    ``infer_shape(node, input_shapes)`` returns one shape tuple per output. The function must
    return new arrays (no views of, or writes into, its inputs). The op has no gradient.
    """
    itypes = list(itypes) if isinstance(itypes, (list, tuple)) else [itypes]
    otypes = list(otypes) if isinstance(otypes, (list, tuple)) else [otypes]
    checked_i = [_as_type(t, "as_op itypes") for t in itypes]
    checked_o = [_as_type(t, "as_op otypes") for t in otypes]
    if infer_shape is not None and not callable(infer_shape):
        raise TypeError(f"as_op infer_shape must be callable or None, got {infer_shape!r}")

    def make_op(fn: Callable[..., Any]) -> FromFunctionOp:
        return FromFunctionOp(fn, checked_i, checked_o, infer_shape)

    return make_op


# ---------------------------------------------------------------------------------------------
# Theano's C-code registration hooks

def _no_c_code(hook: str, op: str) -> NoReturn:
    raise CCodeUnavailableError(
        f"{hook}: jitgraph has no C backend, so there is no C code to register for {op}. "
        "Graphs are compiled through LLVM on the CPU (Numba/llvmlite) and NVRTC on the GPU. "
        "To give a new type a compiled implementation, register a lowering for the op with "
        "each backend (register_lowering of the CPU backend's registry, register of the GPU "
        f"backend's); without one, {op} runs its Python perform(), which already handles any "
        "type whose values support it.")


def register_deep_copy_op_c_code(typ: Any, code: str, version: Any = ()) -> NoReturn:
    """Theano's hook for DeepCopyOp C code; raises CCodeUnavailableError here."""
    _no_c_code("register_deep_copy_op_c_code", "DeepCopyOp")


def register_view_op_c_code(type: Any, code: str, version: Any = ()) -> NoReturn:
    """Theano's hook for ViewOp C code; raises CCodeUnavailableError here."""
    _no_c_code("register_view_op_c_code", "ViewOp")


def register_shape_c_code(type: Any, code: str, version: Any = ()) -> NoReturn:
    """Theano's hook for Shape C code; raises CCodeUnavailableError here."""
    _no_c_code("register_shape_c_code", "Shape")


def register_shape_i_c_code(typ: Any, code: str, check_input: Any, version: Any = ()
                            ) -> NoReturn:
    """Theano's hook for Shape_i C code; raises CCodeUnavailableError here."""
    _no_c_code("register_shape_i_c_code", "Shape_i")


def register_specify_shape_c_code(typ: Any, code: str, version: Any = (),
                                  c_support_code_apply: Any = None) -> NoReturn:
    """Theano's hook for SpecifyShape C code; raises CCodeUnavailableError here."""
    _no_c_code("register_specify_shape_c_code", "SpecifyShape")


def register_rebroadcast_c_code(typ: Any, code: str, version: Any = ()) -> NoReturn:
    """Theano's hook for Rebroadcast C code; raises CCodeUnavailableError here."""
    _no_c_code("register_rebroadcast_c_code", "Rebroadcast")


__all__ = ["DeepCopyOp", "deep_copy_op", "ViewOp", "view_op", "FromFunctionOp", "as_op",
           "Shape", "Shape_i", "SpecifyShape", "Rebroadcast", "shape", "specify_shape",
           "register_deep_copy_op_c_code", "register_view_op_c_code", "register_shape_c_code",
           "register_shape_i_c_code", "register_specify_shape_c_code",
           "register_rebroadcast_c_code"]
