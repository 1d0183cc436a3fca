"""``theano.typed_list``: symbolic Python lists whose elements share one type, and the ops on
them (``append``, ``extend``, ``insert``, ``remove``, ``reverse``, ``index_``, ``count``,
``length``, ``make_list``, ``getitem``).

Importing it registers the in-place rewrite of :mod:`jitgraph.typed_list.opt`.
"""

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core.type_other import SliceType
from jitgraph.typed_list import opt  # noqa: F401  (registers the in-place rewrite)
from jitgraph.typed_list.basic import (Append, Count, Extend, GetItem, Index, Insert, Length,
                                       MakeList, Remove, Reverse, TypedListConstant,
                                       TypedListVariable, append, count, extend, getitem,
                                       index_, insert, length, make_list, remove, reverse)
from jitgraph.typed_list.type import TypedListType

__all__ = ["TypedListType", "TypedListVariable", "TypedListConstant", "GetItem", "Append",
           "Extend", "Insert", "Remove", "Reverse", "Index", "Count", "Length", "MakeList",
           "getitem", "append", "extend", "insert", "remove", "reverse", "index_", "count",
           "length", "make_list"]
