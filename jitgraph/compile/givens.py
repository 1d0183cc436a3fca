"""``givens``: variables or expressions of a function's graph replaced before it is compiled.

A training loop gives ``{x: train_x[i * b:(i + 1) * b]}`` so that the data stays in a shared
variable and only the minibatch index is passed. The replacement applies to everything the
function computes: outputs, explicit updates, the default updates of the shared variables the
graph reaches, and the updates of ``In(update=...)`` inputs.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from jitgraph.graph.basic import Variable, ancestors, io_toposort
from jitgraph.tensor.core.conversion import as_tensor_variable


def normalize_givens(givens: Any, explicit_inputs: Sequence[Variable], strict: bool = True
                     ) -> list[tuple[Variable, Variable]]:
    """``givens`` (a dict or pairs) as checked ``(old, new)`` pairs, ``new`` of ``old``'s type.

    Raises TypeError for a key that is not a variable or a replacement of another type (unless
    ``strict`` is False: Theano's ``rebuild_strict=False``),
    RuntimeError for a key that is an input of the function (the input would be ignored), and
    ValueError for a malformed pair, a variable given twice, or a replacement computed from a
    variable that is itself replaced.
    """
    if not givens:
        return []
    items = list(givens.items()) if isinstance(givens, dict) else list(givens)
    inputs = set(explicit_inputs)
    pairs: list[tuple[Variable, Variable]] = []
    seen: set[Variable] = set()
    for item in items:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise ValueError("givens must be a dict or a list of (variable, replacement) pairs; "
                             f"got the item {item!r}")
        old, new = item
        if not isinstance(old, Variable):
            raise TypeError(f"givens keys must be symbolic variables, got {old!r} "
                            f"({type(old).__name__})")
        if old in inputs:
            raise RuntimeError(
                f"givens replaces {old}, which is an input of the function: the value passed "
                "for it would never be used. Make the replacement a function of a new input "
                "(function([y], f(x), givens={x: g(y)})) or rebuild the expression with "
                "clone(f(x), replace={x: g(x)})")
        if old in seen:
            raise ValueError(f"givens replaces {old} twice")
        seen.add(old)
        pairs.append((old, _converted(old, new, strict)))
    _check_not_chained(pairs)
    return pairs


def constant_of_type(vtype: Any, value: Any) -> Variable | None:
    """A constant of type ``vtype`` holding ``value`` (a plain value standing for a variable of
    that type, as in ``updates={x: 3}`` or ``givens={x: 6}`` with ``x`` an int64 scalar), or
    None when the value does not fit the type without loss."""
    make = getattr(vtype, "make_constant", None)
    if make is None:
        return None
    try:
        return make(vtype.filter(value))
    except (TypeError, ValueError):
        return None


def _converted(old: Variable, new: Any, strict: bool = True) -> Variable:
    """``new`` as a variable of ``old``'s type (a broadcastable dimension may stand for any; a
    plain value becomes a constant of that type). With ``strict=False`` (``rebuild_strict``) a
    variable of another type is taken as it is: what depends on it is rebuilt for its type."""
    if not isinstance(new, Variable):
        fitted = constant_of_type(old.type, new)
        if fitted is not None:
            return fitted
        try:
            new = as_tensor_variable(new)
        except Exception as exc:
            raise TypeError(f"givens: the replacement of {old} must be a symbolic variable or a "
                            f"value convertible to one, got {type(new).__name__}: {exc}") from None
    if not strict:
        return new
    convert = getattr(old.type, "convert_variable", None)
    converted = convert(new) if convert is not None else (new if new.type == old.type else None)
    if converted is None:
        raise TypeError(
            f"givens: {old} has type {old.type} but its replacement {new} has type {new.type}; "
            f"the replacement must have the same type (cast it, e.g. "
            f"T.cast(..., '{getattr(old.type, 'dtype', '?')}'), or match its dimensions)")
    return converted


def _check_not_chained(pairs: list[tuple[Variable, Variable]]) -> None:
    """Replacements happen at once, so a replacement computed from another replaced variable
    would keep that variable in the graph. A replacement may use the variable it replaces
    (``{a: a + 10}``, as in Theano): there it stands for itself, not for its replacement."""
    olds = {old for old, _ in pairs}
    for old, new in pairs:
        for var in ancestors([new]):
            if var in olds and var is not old:
                raise ValueError(
                    f"givens: the replacement of {old} is computed from {var}, which givens "
                    f"also replaces; substitute it by hand (e.g. {{a: b, b: a + 1}} is not "
                    "allowed, write {a: b, b: b_expr} with b_expr free of a)")


class Substitution:
    """Applies the ``givens`` pairs to graphs; one memo is kept across calls, so that an
    expression used by the outputs and by an update is rebuilt once."""

    def __init__(self, pairs: Iterable[tuple[Variable, Variable]]) -> None:
        self._memo: dict[Variable, Variable] = dict(pairs)
        self.active = bool(self._memo)

    def __call__(self, variables: Sequence[Variable]) -> list[Variable]:
        """``variables`` with every replaced variable substituted (unchanged parts are kept)."""
        if not self.active:
            return list(variables)
        memo = self._memo
        stop = set(memo)
        for node in io_toposort(stop, variables):
            new_inputs = [memo.get(i, i) for i in node.inputs]
            if all(a is b for a, b in zip(new_inputs, node.inputs)):
                for out in node.outputs:
                    memo[out] = out
                continue
            rebuilt = node.clone_with_new_inputs(new_inputs, strict=False)
            for old, new in zip(node.outputs, rebuilt.outputs):
                new.name = old.name
                memo[old] = new
        return [memo.get(v, v) for v in variables]

