"""``theano.typed_list.basic``: the ops on typed lists and the list variable class.

Each op runs in Python on list values (``perform``); an op that changes a list returns a new
list unless it is its in-place variant (``Append(inplace=True)``, chosen by the rewrite in
:mod:`jitgraph.typed_list.opt`). Elements are compared with the element type's ``values_eq``
(arrays by value), never with ``==``. As in Theano, ``index_`` and ``count`` return a
``floatX`` scalar and ``length`` an int64 scalar.
"""

from __future__ import annotations

import copy
from typing import Any, Sequence

import numpy as np

from jitgraph.config import config
from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.core.type_other import SliceType  # noqa: F401  (Theano's module exported it)
from jitgraph.tensor.core.type_other import slicetype
from jitgraph.typed_list.type import TypedListType


def _as_list_variable(x: Any, op: str) -> Variable:
    if isinstance(x, Variable) and isinstance(x.type, TypedListType):
        return x
    raise TypeError(f"{op}: the first input must be a typed list variable "
                    f"(TypedListType(...)()), got {x!r}")


def _as_element(x: Variable, elem: Any, op: str) -> Variable:
    """``elem`` as a variable of the list's element type (a value is made a constant)."""
    if not isinstance(elem, Variable):
        elem = x.ttype.make_constant(x.ttype.filter(elem))
    if elem.type != x.ttype:
        raise TypeError(f"{op}: the element must have the list's element type {x.ttype}, "
                        f"got {elem.type}")
    return elem


def _as_index(index: Any, op: str) -> Variable:
    if not isinstance(index, Variable):
        return constant(index, ndim=0, dtype="int64")
    if getattr(index.type, "ndim", None) != 0 or index.type.dtype != "int64":
        raise TypeError(f"{op}: the index must be an int64 scalar, got {index.type}")
    return index


def _copy(value: Any) -> Any:
    """A copy of an element, so that the list never shares storage with an input."""
    return value.copy() if isinstance(value, np.ndarray) else copy.deepcopy(value)


def _floatx_scalar() -> Variable:
    return TensorType(config.floatX, ())()


class _ListOp(Op):
    """An op on a list value, printed by its class name as in Theano."""

    def __str__(self) -> str:
        return type(self).__name__


class _Modifying(_ListOp):
    """An op returning a changed list: a copy, or its first input itself when ``inplace``."""

    __props__ = ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = bool(inplace)
        if self.inplace:
            self.destroy_map = {0: [0]}

    def _target(self, x: list) -> list:
        return x if self.inplace else list(x)


class GetItem(_ListOp):
    """``x[index]``: an element for an integer index, a list for a slice."""

    __props__ = ()

    def make_node(self, x: Any, index: Any) -> Apply:
        x = _as_list_variable(x, "GetItem")
        if isinstance(index, slice):
            return Apply(self, [x, slicetype.make_constant(index)], [x.type()])
        if isinstance(index, Variable) and isinstance(index.type, SliceType):
            return Apply(self, [x, index], [x.type()])
        return Apply(self, [x, _as_index(index, "GetItem")], [x.ttype()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, index = inputs
        output_storage[0][0] = x[index if isinstance(index, slice) else int(index)]


class Append(_Modifying):
    """``x + [toAppend]``."""

    def make_node(self, x: Any, toAppend: Any) -> Apply:  # noqa: N803  (Theano's name)
        x = _as_list_variable(x, "Append")
        return Apply(self, [x, _as_element(x, toAppend, "Append")], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, item = inputs
        out = self._target(x)
        out.append(_copy(item))
        output_storage[0][0] = out


class Extend(_Modifying):
    """``x + toAppend``, both lists of the same type."""

    def make_node(self, x: Any, toAppend: Any) -> Apply:  # noqa: N803
        x = _as_list_variable(x, "Extend")
        other = _as_list_variable(toAppend, "Extend")
        if other.type != x.type:
            raise TypeError(f"Extend: both lists must have the same type, got {x.type} and "
                            f"{other.type}")
        return Apply(self, [x, other], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, other = inputs
        out = self._target(x)
        out.extend([_copy(item) for item in other])
        output_storage[0][0] = out


class Insert(_Modifying):
    """``x`` with ``toInsert`` inserted before position ``index`` (``list.insert``)."""

    def make_node(self, x: Any, index: Any, toInsert: Any) -> Apply:  # noqa: N803
        x = _as_list_variable(x, "Insert")
        return Apply(self, [x, _as_index(index, "Insert"), _as_element(x, toInsert, "Insert")],
                     [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, index, item = inputs
        out = self._target(x)
        out.insert(int(index), _copy(item))
        output_storage[0][0] = out


class Remove(_Modifying):
    """``x`` without the first element equal to ``toRemove``; unchanged when there is none
    (as in Theano; ``list.remove`` would raise)."""

    def make_node(self, x: Any, toRemove: Any) -> Apply:  # noqa: N803
        x = _as_list_variable(x, "Remove")
        return Apply(self, [x, _as_element(x, toRemove, "Remove")], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, item = inputs
        out = self._target(x)
        equal = node.inputs[0].type.ttype.values_eq
        for i, value in enumerate(out):
            if equal(value, item):
                del out[i]
                break
        output_storage[0][0] = out


class Reverse(_Modifying):
    """``x`` in reverse order."""

    def make_node(self, x: Any) -> Apply:
        x = _as_list_variable(x, "Reverse")
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        out = self._target(inputs[0])
        out.reverse()
        output_storage[0][0] = out


class Index(_ListOp):
    """The position of the first element equal to ``elem`` (a ``floatX`` scalar)."""

    __props__ = ()

    def make_node(self, x: Any, elem: Any) -> Apply:
        x = _as_list_variable(x, "Index")
        return Apply(self, [x, _as_element(x, elem, "Index")], [_floatx_scalar()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, item = inputs
        equal = node.inputs[0].type.ttype.values_eq
        for i, value in enumerate(x):
            if equal(value, item):
                output_storage[0][0] = np.asarray(i, dtype=node.outputs[0].type.dtype)
                return
        # Theano left the output unset here (the function returned None)
        raise ValueError(f"index_: the element is not in the list (of {len(x)} elements)")


class Count(_ListOp):
    """How many elements equal ``elem`` (a ``floatX`` scalar)."""

    __props__ = ()

    def make_node(self, x: Any, elem: Any) -> Apply:
        x = _as_list_variable(x, "Count")
        return Apply(self, [x, _as_element(x, elem, "Count")], [_floatx_scalar()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, item = inputs
        equal = node.inputs[0].type.ttype.values_eq
        total = sum(1 for value in x if equal(value, item))
        output_storage[0][0] = np.asarray(total, dtype=node.outputs[0].type.dtype)


class Length(_ListOp):
    """``len(x)`` as an int64 scalar."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = _as_list_variable(x, "Length")
        return Apply(self, [x], [TensorType("int64", ())()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.asarray(len(inputs[0]), dtype="int64")


class MakeList(_ListOp):
    """A list of the given variables (all of one type)."""

    __props__ = ()

    def make_node(self, a: Sequence[Any]) -> Apply:
        if not isinstance(a, (list, tuple)) or not a:
            raise TypeError(f"make_list: expected a non-empty list or tuple of variables, "
                            f"got {a!r}")
        items = [v if isinstance(v, Variable) else as_tensor_variable(v) for v in a]
        if any(v.type != items[0].type for v in items):
            raise TypeError("make_list: all elements must have the same type, got "
                            + ", ".join(str(v.type) for v in items))
        return Apply(self, items, [TypedListType(items[0].type)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = [_copy(v) for v in inputs]


getitem = GetItem()
append = Append()
extend = Extend()
insert = Insert()
remove = Remove()
reverse = Reverse()
index_ = Index()
count = Count()
length = Length()
make_list = MakeList()


class _TypedListOperators:
    """The list methods of typed-list variables (``l.append(x)``, ``l[i]``, ``len``-like
    ``length(l)``)."""

    def __getitem__(self, index: Any) -> Variable:
        return getitem(self, index)

    def __len__(self) -> int:
        raise TypeError("the length of a symbolic list is not known; use "
                        "jitgraph.typed_list.length(l)")

    def append(self, toAppend: Any) -> Variable:  # noqa: N803
        return append(self, toAppend)

    def extend(self, toAppend: Any) -> Variable:  # noqa: N803
        return extend(self, toAppend)

    def insert(self, index: Any, toInsert: Any) -> Variable:  # noqa: N803
        return insert(self, index, toInsert)

    def remove(self, toRemove: Any) -> Variable:  # noqa: N803
        return remove(self, toRemove)

    def reverse(self) -> Variable:
        return reverse(self)

    def count(self, elem: Any) -> Variable:
        return count(self, elem)

    # Theano named it ``ind`` (``index`` is taken by its variables)
    def ind(self, elem: Any) -> Variable:
        return index_(self, elem)

    @property
    def ttype(self) -> Any:
        return self.type.ttype

    @property
    def dtype(self) -> Any:
        return self.type.dtype

    @property
    def ndim(self) -> int:
        return self.type.ndim


class TypedListVariable(_TypedListOperators, Variable):
    """A symbolic typed list."""


class TypedListConstant(_TypedListOperators, Constant):
    """A constant typed list."""


__all__ = ["TypedListVariable", "TypedListConstant", "GetItem", "Append", "Extend", "Insert",
           "Remove", "Reverse", "Index", "Count", "Length", "MakeList", "getitem", "append",
           "extend", "insert", "remove", "reverse", "index_", "count", "length", "make_list"]
