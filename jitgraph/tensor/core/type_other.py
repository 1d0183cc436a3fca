"""Non-array types that appear in tensor graphs: ``None`` and Python slices.

``NoneConst`` stands for an omitted optional input; ``make_slice(start, stop, step)`` builds a
slice from integer scalars (or ``NoneConst``) as a symbolic value of type ``slicetype``.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.op import Op
from jitgraph.graph.type import GenericType, Type
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable


class NoneTypeT(GenericType):
    """The type whose only value is ``None``."""

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if data is not None:
            raise TypeError(f"expected None, got {type(data).__name__}")
        return None

    def __str__(self) -> str:
        return "NoneTypeT"

    __repr__ = __str__


none_type_t = NoneTypeT()
#: the constant ``None`` (an omitted optional input)
NoneConst = Constant(none_type_t, None, name="NoneConst")


def _plain_bound(b: Any) -> Any:
    """A slice bound as a Python int (NumPy integers and 0-d arrays too), or as given."""
    if isinstance(b, (np.integer, np.ndarray)) and np.ndim(b) == 0:
        return int(b)
    return b


class SliceType(Type):
    """The type of Python ``slice`` objects."""

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if not isinstance(data, slice):
            raise TypeError(f"expected a slice, got {type(data).__name__}")
        return data

    def value_signature(self, data: slice) -> tuple:
        # slices are not hashable before Python 3.12
        return tuple(_plain_bound(b) for b in (data.start, data.stop, data.step))

    def short_value_repr(self, data: slice) -> str:
        return ", ".join(str(_plain_bound(b)) for b in (data.start, data.stop, data.step))

    def make_constant(self, value: Any, name: str | None = None) -> "SliceConstant":
        return SliceConstant(self, value, name)

    def __str__(self) -> str:
        return "slice"

    __repr__ = __str__


slicetype = SliceType()


class SliceConstant(Constant):
    """A constant slice; its bounds are kept as Python ints."""

    def __init__(self, type: Type, data: slice, name: str | None = None) -> None:
        if isinstance(data, slice):
            data = slice(*(_plain_bound(b) for b in (data.start, data.stop, data.step)))
        super().__init__(type, data, name)

    def signature(self) -> tuple:
        return (SliceConstant, self.data.start, self.data.stop, self.data.step)

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        return f"SliceConstant{{{self.type.short_value_repr(self.data)}}}"


def as_int_none_variable(x: Any) -> Variable:
    """``x`` as an integer scalar variable, or ``NoneConst`` for None."""
    if x is None or x is NoneConst:
        return NoneConst
    if isinstance(x, Variable) and isinstance(x.type, NoneTypeT):
        return x

    var = as_tensor_variable(x, ndim=0)
    if not dt.is_discrete(var.dtype) or var.dtype == "bool":
        raise TypeError(f"slice bounds must be integers or None, got {x!r} of dtype {var.dtype}")
    return var


class MakeSlice(Op):
    """``MakeSlice()(start, stop, step)``: a slice value built at run time from integer scalars
    (``NoneConst`` for omitted bounds). Also accepts one Python ``slice``."""

    __props__ = ()  # no parameters: all instances are equal

    def make_node(self, start: Any, stop: Any = None, step: Any = None) -> Apply:
        if isinstance(start, slice):
            if stop is not None or step is not None:
                raise TypeError("make_slice(slice) takes no further arguments")
            start, stop, step = start.start, start.stop, start.step
        inputs = [as_int_none_variable(b) for b in (start, stop, step)]
        return Apply(self, inputs, [slicetype.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = slice(*inputs)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [None for _ in inputs]  # integer bounds: nothing to differentiate

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False] for _ in node.inputs]


make_slice = MakeSlice()

__all__ = ["NoneTypeT", "none_type_t", "NoneConst", "SliceType", "slicetype", "SliceConstant",
           "MakeSlice", "make_slice", "as_int_none_variable"]
