"""``theano.scan_module.scan_utils``: the helpers of Theano's scan that code outside scan used:
``until``, ``clone``, ``equal_computations``, ``get_updates_and_outputs``, ``safe_new``,
``forced_replace``, ``expand_empty``, ``isNaN_or_Inf_or_None``, ``hash_listsDictsTuples``.

The helpers that read the inner lists of Theano's ``Scan`` op (``scan_args``,
``compress_outs``, ``scan_can_remove_outs``, ``reconstruct_graph``, ``Validator``,
``infer_shape``, ``map_variables``, ``traverse``) have no meaning for jitgraph's op (see
:mod:`jitgraph.scan_module.scan_op`): they raise ``NotAvailableError`` when used.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any

import numpy as np

from jitgraph.graph.basic import Constant, Variable, ancestors, clone_replace, equal_computations
from jitgraph.graph.replace import clone
from jitgraph.scan.returns import split_step_return, until
from jitgraph.tensor.core.basic import cast, concatenate, zeros
from jitgraph.unavailable import unavailable_names

_INNER = ("it reads the inner input/output lists of Theano's Scan op, which jitgraph's Scan "
          "(jitgraph.scan.op, with a ScanInfo) does not have")
unavailable_names(__name__, {name: _INNER for name in (
    "scan_args", "compress_outs", "scan_can_remove_outs", "reconstruct_graph", "Validator")},
    globals())
unavailable_names(__name__, {name: "a helper of Theano's scan internals that jitgraph does not "
                             "have; replace variables with jitgraph.graph.basic.clone_replace"
                             for name in ("infer_shape", "map_variables", "traverse")},
                  globals())


def get_updates_and_outputs(ls: Any) -> tuple[Variable | None, list[Variable], OrderedDict]:
    """``(condition, outputs, updates)`` from what a scan step function returned: outputs
    (a variable or a list), an updates dict, an ``until(condition)``, or a list of these in that
    order. ``condition`` is ``None`` without ``until``."""
    outputs, updates, condition = split_step_return(ls)
    return condition, list(outputs), OrderedDict(updates)


def safe_new(x: Variable, tag: str = "", dtype: str | None = None) -> Variable:
    """A new free variable of ``x``'s type (of ``dtype`` if given), named ``x.name + tag``. A
    shared variable gives a plain variable of its type; a constant a copy of itself."""
    if isinstance(x, Constant):
        if dtype is not None and x.type.dtype != dtype:
            return cast(x, dtype)
        return x.clone()
    vtype = x.type if dtype is None else x.type.clone(dtype=dtype)
    new = vtype.make_variable()
    new.name = None if x.name is None else x.name + tag
    test_value = getattr(x.tag, "test_value", None)
    if test_value is not None and dtype is None:
        new.tag.test_value = test_value
    return new


def forced_replace(out: Variable, x: Variable, y: Variable) -> Variable:
    """``out`` with every sub-computation equal to ``x`` (same ops on the same inputs, see
    ``equal_computations``) replaced by ``y``."""
    if out is None:
        return None
    matches = [v for v in ancestors([out]) if equal_computations([v], [x])]
    if not matches:
        return out
    return clone_replace(out, {v: y for v in matches})


def expand_empty(tensor_var: Variable, size: Any) -> Variable:
    """``tensor_var`` with ``size`` rows added after its last one along the first axis. The new
    rows are zeros (Theano left them uninitialised: code must not read them)."""
    if isinstance(size, (int, np.integer)) and size == 0:
        return tensor_var
    shape = [size, *(tensor_var.shape[i] for i in range(1, tensor_var.ndim))]
    return concatenate([tensor_var, zeros(shape, dtype=tensor_var.dtype)], axis=0)


def isNaN_or_Inf_or_None(x: Any) -> bool:  # noqa: N802  (Theano's name)
    """Whether ``x`` is ``None`` or a constant (number, array or constant variable) that is NaN
    or infinite. A non-constant variable is neither."""
    if x is None:
        return True
    if isinstance(x, Variable):
        if not isinstance(x, Constant):
            return False
        x = x.data
    try:
        value = np.asarray(x)
        return bool(np.all(np.isnan(value)) or np.all(np.isinf(value)))
    except TypeError:
        return False


def hash_listsDictsTuples(x: Any) -> int:  # noqa: N802  (Theano's name)
    """A hash of a nest of lists, tuples and dicts of hashable leaves, stable within a run."""
    digest = hashlib.md5()
    _feed(digest, x)
    return int(digest.hexdigest()[:15], 16)


def _feed(digest: Any, x: Any) -> None:
    if isinstance(x, (list, tuple)):
        digest.update(b"[" if isinstance(x, list) else b"(")
        for item in x:
            _feed(digest, item)
        digest.update(b"]")
    elif isinstance(x, dict):
        digest.update(b"{")
        for key, value in x.items():
            _feed(digest, key)
            _feed(digest, value)
        digest.update(b"}")
    else:
        digest.update(str(hash(x)).encode())


__all__ = ["until", "clone", "equal_computations", "get_updates_and_outputs", "safe_new",
           "forced_replace", "expand_empty", "isNaN_or_Inf_or_None", "hash_listsDictsTuples"]
