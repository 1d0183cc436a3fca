"""Boolean-mask indexing under Theano 1.0's names: ``x[mask]`` builds an
:class:`AdvancedBooleanSubtensor`, ``set_subtensor(x[mask], v)``/``inc_subtensor`` an
:class:`AdvancedBooleanIncSubtensor`; plus the function forms (``advanced_subtensor``,
``advanced_boolean_inc_subtensor``, ...), the abstract bases :class:`BaseAdvancedSubtensor`/
:class:`BaseAdvancedIncSubtensor` and the indexing errors.

The boolean ops are the general advanced-indexing ops of
:mod:`jitgraph.tensor.indexing.subtensor_ops`
(whose ``perform`` already applies NumPy's mask semantics) under their own class, so that
rewrites and backends that handle advanced indexing handle masks too. Theano's ops took the
index as inputs only (``AdvancedBooleanSubtensor()(x, mask)``); here the op also records the
index structure (``idx_list``), which a call on an op built without one works out from the
index given.
"""

from __future__ import annotations

from abc import ABCMeta
from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op, _OpMeta
from jitgraph.tensor.indexing.index_encoding import idx_str
from jitgraph.tensor.indexing.subtensor_ops import AdvancedIncSubtensor, AdvancedSubtensor
from jitgraph.tensor.core.type_other import MakeSlice, NoneTypeT, SliceConstant
from jitgraph.tensor.indexing.subtensor import _entry, advanced_index

__all__ = ["AdvancedIndexingError", "AdvancedBooleanIndexingError", "BaseAdvancedSubtensor",
           "BaseAdvancedIncSubtensor", "AdvancedBooleanSubtensor",
           "AdvancedBooleanIncSubtensor", "advanced_subtensor", "advanced_inc_subtensor",
           "advanced_set_subtensor", "advanced_boolean_subtensor",
           "advanced_boolean_inc_subtensor", "advanced_boolean_set_subtensor",
           "check_and_reject_bool"]


class AdvancedIndexingError(TypeError):
    """An advanced (array) index that cannot be used where it was given."""


class AdvancedBooleanIndexingError(TypeError):
    """A boolean-mask index that cannot be used where it was given."""


class _AbstractOpMeta(ABCMeta, _OpMeta):
    """Op metaclass that also lets a base class adopt existing op classes (``register``)."""


class BaseAdvancedSubtensor(Op, metaclass=_AbstractOpMeta):
    """What every general advanced-indexing read op is: :class:`AdvancedSubtensor` and
    :class:`AdvancedBooleanSubtensor` are instances (for ``isinstance`` checks)."""

    def make_node(self, x: Any, *index: Any) -> Apply:
        raise NotImplementedError("BaseAdvancedSubtensor is abstract: use AdvancedSubtensor "
                                  "or AdvancedBooleanSubtensor (or index the tensor: x[idx])")


class BaseAdvancedIncSubtensor(Op, metaclass=_AbstractOpMeta):
    """What every general advanced-indexing update op is: :class:`AdvancedIncSubtensor` and
    :class:`AdvancedBooleanIncSubtensor` are instances (for ``isinstance`` checks)."""

    def make_node(self, x: Any, y: Any, *index: Any) -> Apply:
        raise NotImplementedError("BaseAdvancedIncSubtensor is abstract: use set_subtensor or "
                                  "inc_subtensor on an indexed tensor")


BaseAdvancedSubtensor.register(AdvancedSubtensor)
BaseAdvancedIncSubtensor.register(AdvancedIncSubtensor)


# ---------------------------------------------------------------------------------------------
# Index arguments as given to Theano's ops: tensors, slices (Python or MakeSlice variables),
# None/NoneConst, Ellipsis

def _plain_entry(e: Any) -> Any:
    """An index argument with symbolic slices and NoneConst turned into Python ones."""
    if isinstance(e, SliceConstant):
        return e.data
    if isinstance(e, Variable) and isinstance(e.type, NoneTypeT):
        return None
    if isinstance(e, Variable) and e.owner is not None and isinstance(e.owner.op, MakeSlice):
        bounds = [None if isinstance(b.type, NoneTypeT) else b for b in e.owner.inputs]
        return slice(*bounds)
    return e


def _structure(index: tuple) -> tuple[list[Any], list[Variable]]:
    """The ``idx_list`` and index inputs for Theano-style index arguments."""
    entries = [_entry(_plain_entry(e)) for e in index]
    if sum(e is Ellipsis for e in entries) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    return advanced_index(entries)


def _is_bool_index(e: Any) -> bool:
    if isinstance(e, (bool, np.bool_)):
        return True
    if isinstance(e, Variable):
        return getattr(e.type, "dtype", None) == "bool"
    if isinstance(e, (list, tuple, np.ndarray)):
        arr = np.asarray(e)
        return arr.dtype == bool and arr.size > 0
    return False


def check_and_reject_bool(args_el: Any) -> None:
    """Raise :class:`TypeError` if the index argument ``args_el`` is a boolean mask (a bool
    tensor, array or list, or a Python bool): the non-boolean advanced ops refuse masks."""
    if _is_bool_index(args_el):
        raise TypeError(f"AdvancedSubtensor does not take boolean masks (got {args_el!r}); "
                        "use AdvancedBooleanSubtensor, or index the tensor: x[mask]")


# ---------------------------------------------------------------------------------------------
# The boolean ops

class AdvancedBooleanSubtensor(AdvancedSubtensor, BaseAdvancedSubtensor):
    """``x[index]`` where the index holds a boolean mask (a copy).

    ``AdvancedBooleanSubtensor()(x, mask, ...)`` (Theano's form) works out ``idx_list`` from
    the index arguments, which may be tensors, slices, ``None`` and ``Ellipsis``.
    """

    __props__ = ("idx_list",)

    def __init__(self, idx_list: Any = None) -> None:
        if idx_list is None:
            self.idx_list = None
        else:
            super().__init__(idx_list)

    def __str__(self) -> str:
        if self.idx_list is None or all(e == "array" for e in self.idx_list):
            return "AdvancedBooleanSubtensor"
        return f"AdvancedBooleanSubtensor{{{idx_str(self.idx_list)}}}"

    def make_node(self, x: Any, *index: Any) -> Apply:
        if self.idx_list is None:
            idx_list, inputs = _structure(index)
            return AdvancedBooleanSubtensor(idx_list).make_node(x, *inputs)
        return super().make_node(x, *index)

    def _writer(self) -> type:
        return AdvancedBooleanIncSubtensor


class AdvancedBooleanIncSubtensor(AdvancedIncSubtensor, BaseAdvancedIncSubtensor):
    """``x`` with ``x[index]`` (an index holding a boolean mask) set to / incremented by ``y``.

    Takes jitgraph's ``(idx_list, set_instead_of_inc, inplace, ignore_duplicates)`` or Theano's
    ``(inplace=False, set_instead_of_inc=False)``; built without ``idx_list``, a call
    ``op(x, y, mask, ...)`` works it out from the index arguments.
    """

    __props__ = ("idx_list", "set_instead_of_inc", "inplace", "ignore_duplicates")
    _labels = ("AdvancedBooleanIncSubtensor", "AdvancedBooleanSetSubtensor")

    def __init__(self, idx_list: Any = None, set_instead_of_inc: bool = False,
                 inplace: bool = False, ignore_duplicates: bool = False) -> None:
        if isinstance(idx_list, (bool, np.bool_)):
            # Theano's positional form: (inplace, set_instead_of_inc)
            idx_list, inplace = None, idx_list
        if idx_list is None:
            self.idx_list = None
            self.set_instead_of_inc = bool(set_instead_of_inc)
            self.inplace = bool(inplace)
            self.ignore_duplicates = bool(ignore_duplicates)
        else:
            super().__init__(idx_list, set_instead_of_inc, inplace, ignore_duplicates)

    def __str__(self) -> str:
        # Theano: AdvancedBooleanIncSubtensor{inplace=False,  set_instead_of_inc=True}
        flags = f"inplace={self.inplace},  set_instead_of_inc={self.set_instead_of_inc}"
        if self.idx_list is not None and any(e != "array" for e in self.idx_list):
            flags += f";{idx_str(self.idx_list)}"
        return f"AdvancedBooleanIncSubtensor{{{flags}}}"

    def make_node(self, x: Any, y: Any, *index: Any) -> Apply:
        if self.idx_list is None:
            idx_list, inputs = _structure(index)
            op = AdvancedBooleanIncSubtensor(idx_list, self.set_instead_of_inc, self.inplace,
                                             self.ignore_duplicates)
            return op.make_node(x, y, *inputs)
        return super().make_node(x, y, *index)

    def _reader(self) -> Op:
        return AdvancedBooleanSubtensor(self.idx_list)


# ---------------------------------------------------------------------------------------------
# Theano's function forms (op instances there: advanced_subtensor = AdvancedSubtensor(), ...)

def advanced_subtensor(x: Any, *index: Any) -> Variable:
    """``x[index]`` for an advanced index of int arrays (masks are refused: see
    :func:`advanced_boolean_subtensor`); slices may be Python or ``make_slice`` ones."""
    for e in index:
        check_and_reject_bool(e)
    idx_list, inputs = _structure(index)
    return AdvancedSubtensor(idx_list)(x, *inputs)


def _update(x: Any, y: Any, index: tuple, setting: bool, boolean: bool) -> Variable:
    if not boolean:
        for e in index:
            check_and_reject_bool(e)
    idx_list, inputs = _structure(index)
    op_class = AdvancedBooleanIncSubtensor if boolean else AdvancedIncSubtensor
    return op_class(idx_list, setting)(x, y, *inputs)


def advanced_inc_subtensor(x: Any, y: Any, *index: Any) -> Variable:
    """``x`` with ``y`` added at the advanced index ``index`` (repeats accumulate)."""
    return _update(x, y, index, setting=False, boolean=False)


def advanced_set_subtensor(x: Any, y: Any, *index: Any) -> Variable:
    """``x`` with the entries at the advanced index ``index`` set to ``y``."""
    return _update(x, y, index, setting=True, boolean=False)


def advanced_boolean_subtensor(x: Any, *index: Any) -> Variable:
    """``x[index]`` for an index holding boolean masks (and ints, slices, ``None``)."""
    return AdvancedBooleanSubtensor()(x, *index)


def advanced_boolean_inc_subtensor(x: Any, y: Any, *index: Any) -> Variable:
    """``x`` with ``y`` added where the boolean index ``index`` selects."""
    return _update(x, y, index, setting=False, boolean=True)


def advanced_boolean_set_subtensor(x: Any, y: Any, *index: Any) -> Variable:
    """``x`` with the entries the boolean index ``index`` selects set to ``y``."""
    return _update(x, y, index, setting=True, boolean=True)

