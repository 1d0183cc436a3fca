"""The pretty printer (``pprint`` / ``pp``): a graph as a one-line, math-like formula.

``pp(x ** 2 + y)`` gives ``'((x ** TensorConstant{2}) + y)'``. A :class:`PPrinter` finds, for
each computed variable, the printer assigned to its op: an op instance first, then the op's
class (along its MRO, where Theano looks at the exact class only), then the conditions.
Printers are small objects with a ``process(output, pstate)`` method:

* :class:`OperatorPrinter` -- an infix (or, for one input, prefix) operator, always
  parenthesised: ``(a + b)``, ``(-a)``;
* :class:`PatternPrinter` -- a ``%``-pattern over the inputs: ``'|%(0)s|'``;
* :class:`FunctionPrinter` -- a call: ``exp(a)``;
* :class:`IgnorePrinter` -- shows the op's first input only (a copy, a cast one ignores);
* :class:`LeafPrinter` -- a variable by its name (``alpha`` as ``\\alpha``);
* :class:`DefaultPrinter` -- ``str(op)(inputs)``, or the leaf for a variable without owner.

A user's op gets a notation with ``pprint.assign(MyOp, FunctionPrinter('myop'))`` (a class), or
``pprint.assign(my_op_instance, printer)``, or ``pprint.assign(condition, printer)`` where
``condition(pstate, variable)`` says when the printer applies. The notations of jitgraph's own
tensor ops live beside them in :mod:`jitgraph.tensor.printing.pprint_rules`, loaded when ``pprint`` is
first used.
"""

from __future__ import annotations

import importlib
from copy import copy
from typing import Any, Callable, Iterable

from jitgraph.graph.basic import Variable, io_toposort, op_text
from jitgraph.graph.op import Op

#: the associativities an :class:`OperatorPrinter` accepts
VALID_ASSOC = frozenset({"left", "right", "either"})

#: names printed as TeX-like symbols by the leaf printer
greek = {"alpha": "\\alpha", "beta": "\\beta", "gamma": "\\gamma", "delta": "\\delta",
         "epsilon": "\\epsilon"}
#: operator symbols used by the tensor rules (``\\dot`` for the matrix product)
special = {"middle_dot": "\\dot", "big_sigma": "\\Sigma"}


class PrinterState:
    """The state passed down while printing: ``pprinter`` (the printer in use),
    ``precedence`` (of the enclosing operator) and ``memo`` (variable -> its text, so that a
    shared subgraph is formatted once). Extra keyword arguments become attributes."""

    def __init__(self, props: Any = None, **more_props: Any) -> None:
        if isinstance(props, PrinterState):
            self.__dict__.update(props.__dict__)
        elif props is not None:
            self.__dict__.update(dict(props))
        self.__dict__.update(more_props)
        self.memo: dict[Variable, str] = {}

    def __repr__(self) -> str:
        shown = {k: v for k, v in self.__dict__.items() if k != "memo"}
        return f"PrinterState({shown!r})"


#: how a node's op is printed: ``str(op)``, or ``op.str_for_node(node)`` for an op whose text
#: depends on the node (a reduction shows the accumulator dtype its input fixes, as Theano's
#: applied op does)
node_op_str = op_text


def _owner_or_raise(output: Variable, what: str) -> Any:
    node = getattr(output, "owner", None)
    if node is None:
        raise TypeError(f"{what} cannot represent a variable that is not the result of an "
                        f"operation ({output})")
    return node


def _process_with(pstate: PrinterState, var: Variable, precedence: float) -> str:
    """``var`` formatted by ``pstate.pprinter`` with ``pstate.precedence`` set meanwhile."""
    saved = getattr(pstate, "precedence", None)
    pstate.precedence = precedence
    try:
        return pstate.pprinter.process(var, pstate)
    finally:
        pstate.precedence = saved


class OperatorPrinter:
    """An operator symbol between the inputs, ``(a + b + c)``, or before the only input,
    ``(-a)``. ``precedence`` and ``associativity`` ('left', 'right' or 'either') are passed to
    the inputs' printers; the result is always parenthesised, as in Theano."""

    def __init__(self, operator: str, precedence: float, assoc: str = "left") -> None:
        if assoc not in VALID_ASSOC:
            raise ValueError(f"OperatorPrinter: assoc must be one of {sorted(VALID_ASSOC)}, "
                             f"got {assoc!r}")
        self.operator = operator
        self.precedence = precedence
        self.assoc = assoc

    def _input_precedence(self, k: int, n_inputs: int) -> float:
        # the operand on the non-associative side binds a little tighter
        tighter = ((self.assoc == "left" and k != 0)
                   or (self.assoc == "right" and k != n_inputs - 1))
        return self.precedence + (1e-6 if tighter else 0.0)

    def process(self, output: Variable, pstate: PrinterState) -> str:
        if output in pstate.memo:
            return pstate.memo[output]
        node = _owner_or_raise(output, f"operator {self.operator}")
        n = len(node.inputs)
        parts = [_process_with(pstate, inp, self._input_precedence(k, n))
                 for k, inp in enumerate(node.inputs)]
        body = self.operator + parts[0] if n == 1 else f" {self.operator} ".join(parts)
        text = f"({body})"
        pstate.memo[output] = text
        return text


class PatternPrinter:
    """A ``%``-format pattern per output, over the inputs' texts named ``'0'``, ``'1'``, ...
    Each pattern is a string, or a tuple ``(pattern, precedence of input 0, ...)``."""

    def __init__(self, *patterns: Any) -> None:
        self.patterns: list[tuple[str, tuple]] = []
        for pattern in patterns:
            if isinstance(pattern, str):
                self.patterns.append((pattern, ()))
            else:
                self.patterns.append((pattern[0], tuple(pattern[1:])))

    def process(self, output: Variable, pstate: PrinterState) -> str:
        if output in pstate.memo:
            return pstate.memo[output]
        node = _owner_or_raise(output, f"patterns {self.patterns}")
        pattern, precedences = self.patterns[node.outputs.index(output)]
        precedences = precedences + (1000,) * len(node.inputs)
        texts = {str(k): _process_with(pstate, inp, prec)
                 for k, (inp, prec) in enumerate(zip(node.inputs, precedences))}
        text = pattern % texts
        pstate.memo[output] = text
        return text


class FunctionPrinter:
    """A function call, ``name(a, b)``; one name per output of the op."""

    def __init__(self, *names: str) -> None:
        self.names = names

    def process(self, output: Variable, pstate: PrinterState) -> str:
        if output in pstate.memo:
            return pstate.memo[output]
        node = _owner_or_raise(output, f"function {self.names}")
        name = self.names[node.outputs.index(output)]
        args = ", ".join(_process_with(pstate, inp, -1000) for inp in node.inputs)
        text = f"{name}({args})"
        pstate.memo[output] = text
        return text


class IgnorePrinter:
    """Prints the op's first input as if the op were not there."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        if output in pstate.memo:
            return pstate.memo[output]
        node = _owner_or_raise(output, "IgnorePrinter")
        text = f"{pstate.pprinter.process(node.inputs[0], pstate)}"
        pstate.memo[output] = text
        return text


class LeafPrinter:
    """A variable as its ``str`` (its name, a constant's value, or its type); the names in
    :data:`greek` print as ``\\alpha`` etc."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        if output in pstate.memo:
            return pstate.memo[output]
        text = greek.get(output.name, None) if output.name is not None else None
        if text is None:
            text = str(output)
        pstate.memo[output] = text
        return text


leaf_printer = LeafPrinter()


class DefaultPrinter:
    """``str(op)(input, ...)`` for a computed variable; the leaf printer for the others."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        if output in pstate.memo:
            return pstate.memo[output]
        node = output.owner
        if node is None:
            return leaf_printer.process(output, pstate)
        args = ", ".join(_process_with(pstate, inp, -1000) for inp in node.inputs)
        text = f"{node_op_str(node)}({args})"
        pstate.memo[output] = text
        return text


default_printer = DefaultPrinter()

Condition = Callable[[PrinterState, Variable], bool]


class PPrinter:
    """A pretty printer: a table of printers by op (instance or class) and a list of
    ``(condition, printer)`` pairs, the latest assigned first."""

    def __init__(self) -> None:
        self.printers: list[tuple[Condition, Any]] = []
        self.printers_dict: dict[Any, Any] = {}

    def assign(self, condition: Any, printer: Any) -> None:
        """Use ``printer`` for the outputs of ``condition`` (an Op instance or an Op class), or
        for the variables where ``condition(pstate, variable)`` is true."""
        if isinstance(condition, (Op, type)):
            self.printers_dict[condition] = printer
            return
        if not callable(condition):
            raise TypeError(f"PPrinter.assign: condition must be an Op, an Op class or a "
                            f"function (pstate, variable) -> bool, got {condition!r}")
        self.printers.insert(0, (condition, printer))

    def _printer_for(self, var: Any, pstate: PrinterState) -> Any:
        node = getattr(var, "owner", None)
        if node is not None:
            op = node.op
            try:
                found = self.printers_dict.get(op)
            except TypeError:  # an op that cannot be hashed is looked up by its class only
                found = None
            if found is not None:
                return found
            for cls in type(op).__mro__:
                if cls in self.printers_dict:
                    return self.printers_dict[cls]
        for condition, printer in self.printers:
            if condition(pstate, var):
                return printer
        return None

    def process(self, r: Variable, pstate: Any = None) -> str | None:
        """The text of ``r`` (None when no printer applies)."""
        if pstate is None:
            pstate = PrinterState(pprinter=self)
        elif isinstance(pstate, dict):
            pstate = PrinterState(pprinter=self, **pstate)
        elif not hasattr(pstate, "pprinter"):
            pstate.pprinter = self
        printer = self._printer_for(r, pstate)
        return None if printer is None else printer.process(r, pstate)

    def clone(self) -> "PPrinter":
        cp = copy(self)
        cp.printers = list(self.printers)
        cp.printers_dict = dict(self.printers_dict)
        return cp

    def clone_assign(self, condition: Any, printer: Any) -> "PPrinter":
        cp = self.clone()
        cp.assign(condition, printer)
        return cp

    def process_graph(self, inputs: Any, outputs: Any, updates: Any = None,
                      display_inputs: bool = False) -> str:
        """A small program computing ``outputs``: one line per named intermediate variable
        (``name = formula``), per update (``shared <- formula``) and per output (``return
        formula`` for a single output, else ``out[k] = formula``)."""
        inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        updates = dict(updates or {})
        lines: list[tuple[int, str]] = []
        if display_inputs:
            shown = ", ".join(map(str, inputs + list(updates)))
            lines.append((0, f"inputs: {shown}"))
        current: list[Variable | None] = [None]
        printer = _NamedLeaves(self.clone(), current)
        updated_by = {new: old for old, new in updates.items()}
        k = 1
        for node in io_toposort(inputs + list(updates), outputs + list(updates.values())):
            for out in node.outputs:
                if out in updated_by:
                    lines.append((k + 1000, f"{updated_by[out]} <- {printer.process(out)}"))
                    k += 1
                if out.name is None and not _contains(outputs, out):
                    continue
                current[0] = out
                position = _index(outputs, out)
                name = out.name if out.name is not None else f"out[{position}]"
                if len(outputs) == 1 and outputs[0] is out:
                    lines.append((2000, f"return {printer.process(out)}"))
                else:
                    order = 2000 + position if position is not None else k
                    lines.append((order, f"{name} = {printer.process(out)}"))
                k += 1
        lines.sort()
        return "\n".join(text for _, text in lines)

    def __call__(self, *args: Any) -> Any:
        if len(args) == 1:
            return self._process_any(args[0])
        if len(args) == 2 and isinstance(args[1], (PrinterState, dict)):
            return self.process(*args)
        if len(args) > 2:
            return self.process_graph(*args)
        raise TypeError("pprint takes a variable (and optionally a PrinterState or dict), or "
                        "inputs, outputs and updates for a whole graph: not enough arguments "
                        "to call")

    def _process_any(self, obj: Any) -> Any:
        """A variable's text; a compiled function's or FunctionGraph's outputs, one a line."""
        outputs = _outputs_of(obj)
        if outputs is None:
            return self.process(obj)
        return "\n".join(str(self.process(o)) for o in outputs)


class _NamedLeaves(PPrinter):
    """``base``'s notations, except that a named variable other than ``current[0]`` (the one
    being defined) prints as its name, ahead of any op's notation."""

    def __init__(self, base: PPrinter, current: list) -> None:
        super().__init__()
        self.printers, self.printers_dict = base.printers, base.printers_dict
        self.current = current

    def _printer_for(self, var: Any, pstate: PrinterState) -> Any:
        if getattr(var, "name", None) is not None and var is not self.current[0]:
            return leaf_printer
        return super()._printer_for(var, pstate)


def _contains(items: Iterable[Variable], var: Variable) -> bool:
    return any(v is var for v in items)


def _index(items: list[Variable], var: Variable) -> int | None:
    for k, v in enumerate(items):
        if v is var:
            return k
    return None


def _outputs_of(obj: Any) -> list[Variable] | None:
    fgraph = getattr(getattr(obj, "maker", None), "fgraph", obj)
    outputs = getattr(fgraph, "outputs", None)
    if isinstance(obj, Variable) or not isinstance(outputs, list):
        return None
    return outputs


# ---------------------------------------------------------------------------------------------
# The default printer, with the notations of the tensor ops (loaded on first use)

#: modules that register notations into :data:`pprint` when imported
RULE_MODULES = ("jitgraph.tensor.printing.pprint_rules",)


class _DefaultPPrinter(PPrinter):
    """The shared ``pprint``: imports :data:`RULE_MODULES` before its first use, so that the
    graph layer does not import the tensor layer at start-up."""

    _loaded = False

    def _load_rules(self) -> None:
        if not _DefaultPPrinter._loaded:
            _DefaultPPrinter._loaded = True
            for name in RULE_MODULES:
                importlib.import_module(name)

    def process(self, r: Variable, pstate: Any = None) -> str | None:
        self._load_rules()
        return super().process(r, pstate)

    def assign(self, condition: Any, printer: Any) -> None:
        self._load_rules()  # a user's notation must not be overwritten by a later default
        super().assign(condition, printer)

    def clone(self) -> PPrinter:
        self._load_rules()
        cp = PPrinter()
        cp.printers = list(self.printers)
        cp.printers_dict = dict(self.printers_dict)
        return cp


pprint = _DefaultPPrinter()
PPrinter.assign(pprint, lambda pstate, r: True, default_printer)  # (no rule loading yet)
pp = pprint

__all__ = ["PrinterState", "OperatorPrinter", "PatternPrinter", "FunctionPrinter",
           "IgnorePrinter", "LeafPrinter", "DefaultPrinter", "PPrinter", "leaf_printer",
           "default_printer", "pprint", "pp", "greek", "special", "VALID_ASSOC", "RULE_MODULES",
           "node_op_str"]
