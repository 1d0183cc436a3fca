"""NanGuardMode: stop at the first node whose output holds NaN, Inf or a huge value.

``function(..., mode='NanGuardMode')`` or ``NanGuardMode(nan_is_error, inf_is_error,
big_is_error)`` compiles like the default mode (the same rewrites and compiled kernels) and
checks the graph inputs before the run and every node's outputs right after the node. The first
bad value is reported with the node (a debugprint) and where the variable was created::

    NaN detected
    NanGuardMode found an error in the output of a node in this variable:
    Elemwise{log,no_inplace} [id A] ''
     |x [id B]
    Backtrace when that variable was created:
      File "train.py", line 12, in <module>
        y = T.log(x)

``NanGuardMode.action``: ``raise`` (AssertionError), ``warn`` (logged as an error; the run goes
on) or ``pdb``. Integer and boolean values are never NaN or Inf (only the "big" check applies to
integers). A variable whose ``tag.nan_guard_mode_check`` is False is not checked.

The checks use the array's own reductions (``min``/``max``, NumPy's or CuPy's), so a GPU array
is reduced on the device and only two scalars come back to the host.
"""

from __future__ import annotations

import logging
import traceback
import warnings
from typing import Any

import numpy as np

from jitgraph.compile.linker import Program
from jitgraph.compile.mode import Mode
from jitgraph.compile.monitormode import WrapLinker, base_linker
from jitgraph.config import config
from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.printing import debugprint

_logger = logging.getLogger("jitgraph.compile.nanguardmode")

#: absolute values above this are "big" (Theano's threshold)
BIG_VALUE = 1e10


def _reductions(value: Any) -> tuple[Any, Any, Any]:
    """(min, nanmin, nanmax) functions computed where ``value`` lives.

    NumPy's for host arrays. For other arrays (CuPy...), the functions of the module that
    defined the array type when it has them, else the array's own ``min``/``max`` methods:
    never a conversion of the whole array to NumPy.
    """
    if isinstance(value, np.ndarray):
        return np.min, np.nanmin, np.nanmax
    import importlib

    module: Any = None
    try:
        module = importlib.import_module(type(value).__module__.split(".")[0])
    except ImportError:
        pass

    def own(name: str) -> Any:
        return lambda v: getattr(v, name)()

    nanmin = getattr(module, "nanmin", None) or own("min")
    nanmax = getattr(module, "nanmax", None) or own("max")
    return own("min"), nanmin, nanmax


def _scalar(x: Any) -> float:
    return float(x.item() if hasattr(x, "item") else x)


def find_bad_values(value: Any, nan: bool, inf: bool, big: bool) -> str | None:
    """``"NaN"``, ``"Inf"`` or ``"Big value"`` for the first problem found in ``value``."""
    dtype = getattr(value, "dtype", None)
    if dtype is None or getattr(value, "size", 1) == 0:
        return None
    kind = np.dtype(dtype).kind
    if kind in "biu":
        if big and kind != "b":
            # int extremes do not overflow abs() of a Python int: compare both ends
            if max(abs(int(value.max())), abs(int(value.min()))) > BIG_VALUE:
                return "Big value"
        return None
    if kind == "c":
        return (find_bad_values(value.real, nan, inf, big)
                or find_bad_values(value.imag, nan, inf, big))
    if kind != "f":
        return None
    vmin, nanmin, nanmax = _reductions(value)
    if nan and np.isnan(_scalar(vmin(value))):  # min propagates NaN: no temporary array
        return "NaN"
    if inf or big:
        if nan:  # no NaN (checked above): nanmax cannot meet an all-NaN array
            hi, lo = _scalar(nanmax(value)), _scalar(nanmin(value))
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # "All-NaN slice"
                hi, lo = _scalar(nanmax(value)), _scalar(nanmin(value))
        if inf and (np.isinf(hi) or np.isinf(lo)):
            return "Inf"
        if big and max(abs(hi), abs(lo)) > BIG_VALUE:
            return "Big value"
    return None


def _creation_trace(var: Variable) -> str:
    trace = getattr(var.tag, "trace", None)
    if not trace:
        return ("(no creation trace: set traceback.limit to a positive number or -1 to record "
                "where variables are created)")
    return "Backtrace when that variable was created:\n" + "".join(
        traceback.format_list(trace)).rstrip("\n")


class NanGuardMode(Mode):
    """A mode that checks every value for NaN (``nan_is_error``), Inf (``inf_is_error``) and
    ``|x| > 1e10`` (``big_is_error``); None takes the ``NanGuardMode.*`` flag.

    ``optimizer`` and ``linker`` are those of :class:`Mode` (default: the flags).
    """

    def __init__(self, nan_is_error: bool | None = None, inf_is_error: bool | None = None,
                 big_is_error: bool | None = None, optimizer: Any = "default",
                 linker: Any = None) -> None:
        super().__init__("py", optimizer, name="NanGuardMode")
        flags = config.NanGuardMode
        self.nan_is_error = flags.nan_is_error if nan_is_error is None else bool(nan_is_error)
        self.inf_is_error = flags.inf_is_error if inf_is_error is None else bool(inf_is_error)
        self.big_is_error = flags.big_is_error if big_is_error is None else bool(big_is_error)
        if not (self.nan_is_error or self.inf_is_error or self.big_is_error):
            raise ValueError("NanGuardMode needs at least one of nan_is_error, inf_is_error "
                             "and big_is_error")
        self.linker = WrapLinker(base_linker(linker), self._install, "nanguard")

    def _install(self, program: Program) -> None:
        storage, inputs = program.storage, program.fgraph.inputs

        def check_inputs() -> None:
            for var in inputs:
                self._check(var, storage[var][0], None)

        def check_outputs(i: int, node: Apply, thunk: Any) -> None:
            for var in node.outputs:
                self._check(var, storage[var][0], node)

        program.before_run = check_inputs
        program.post_node = check_outputs

    def _check(self, var: Variable, value: Any, node: Apply | None) -> None:
        if value is None or getattr(var.tag, "nan_guard_mode_check", True) is False:
            return
        problem = find_bad_values(value, self.nan_is_error, self.inf_is_error,
                                  self.big_is_error)
        if problem is not None:
            self._report(problem, var, node)

    def _report(self, problem: str, var: Variable, node: Apply | None) -> None:
        if node is None:
            where = (f"NanGuardMode found an error in an input of the graph: "
                     f"{var} ({var.type}).")
        else:
            inner = getattr(getattr(node.op, "scalar_op", None), "inner_ops", None)
            fused = f"; fused ops: {', '.join(inner())}" if callable(inner) else ""
            where = ("NanGuardMode found an error in the output of a node in this variable:\n"
                     + debugprint(var, file="str").rstrip("\n")
                     + f"\n(output {var.index} of node {node}{fused})")
        msg = f"{problem} detected\n{where}\n{_creation_trace(var)}"
        action = config.NanGuardMode.action
        if action == "raise":
            raise AssertionError(msg)
        if action == "warn":
            _logger.error(msg)
            return
        import pdb

        print(msg)
        pdb.set_trace()

    def _clone(self, **changes: Any) -> "NanGuardMode":
        new = super()._clone(**changes)
        new.linker = WrapLinker(self.linker.base, new._install, "nanguard")
        return new

    def __str__(self) -> str:
        return (f"NanGuardMode(nan_is_error={self.nan_is_error}, "
                f"inf_is_error={self.inf_is_error}, big_is_error={self.big_is_error}, "
                f"linker={self.linker.base.name}, optimizer={self.optimizer})")

    __repr__ = __str__


__all__ = ["NanGuardMode", "find_bad_values", "BIG_VALUE"]
