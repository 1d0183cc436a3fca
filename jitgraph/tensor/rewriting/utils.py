"""Matching helpers shared by the tensor rewrites (elementwise op names, scalar constants).

Every rewrite in ``canonicalize``, ``shape``, ``stabilize``, ``specialize`` and ``blas`` matches
graphs through these few functions, so that "is this the constant 1?" or "give the replacement
exactly the old variable's type" is answered the same way everywhere.

The engine rejects a replacement whose type differs from the replaced variable (dtype, or a
dimension the old type called broadcastable that the new one does not);
:func:`broadcast_like` is the one place that repairs a candidate replacement's type.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.op import Op
from jitgraph.tensor.core.basic import NotScalarConstantError, alloc, get_scalar_constant_value
from jitgraph.tensor.core.conversion import constant
from jitgraph.tensor.elementwise.elemwise import DimShuffle, Elemwise, dimshuffle
from jitgraph.tensor.elementwise.math import cast, elemwise_op
from jitgraph.tensor.elementwise.scalar_ops import Cast
from jitgraph.tensor.shaping.shape import Shape_i, patternbroadcast

__all__ = [
    "scalar_op_name", "elemwise_of", "is_elemwise", "get_constant", "is_constant_value", "scalar_constant",
    "is_scalar_like", "as_scalar", "n_clients", "single_client", "broadcast_like", "fill",
    "shape_of", "same_dim", "same_shape", "same_expression", "elemwise", "const_like_var",
]


# ---------------------------------------------------------------------------------------------
# Elementwise nodes

def scalar_op_name(x: Variable | Apply | None) -> str | None:
    """The scalar op name of an Elemwise node (or of a variable's owner); ``'cast'`` for casts.

    None for anything that is not a single-output Elemwise.
    """
    node = x.owner if isinstance(x, Variable) else x
    if node is None or not isinstance(node.op, Elemwise) or len(node.outputs) != 1:
        return None
    sop = node.op.scalar_op  # (as _scalar_name, inline: the rewrites call this 60,000 times)
    return "cast" if isinstance(sop, Cast) else sop.name


def elemwise_of(*names: str) -> Callable[[Op], bool]:
    """The ``op_test`` of a rewrite of Elemwise nodes whose scalar op is one of ``names``
    (named as :func:`scalar_op_name` names them): the drivers then never call it on the other
    elementwise nodes (most rewrites of canonicalize, stabilize and specialize are such)."""
    wanted = frozenset(names)

    def test(op: Op) -> bool:
        return isinstance(op, Elemwise) and _scalar_name(op.scalar_op) in wanted

    test.__qualname__ = f"elemwise_of{tuple(sorted(wanted))}"
    return test


def _scalar_name(sop: Any) -> str:
    return "cast" if isinstance(sop, Cast) else sop.name


def is_elemwise(x: Variable | Apply | None, *names: str) -> bool:
    """True if ``x`` is computed by an Elemwise whose scalar op is one of ``names``."""
    return scalar_op_name(x) in names


def mul_factors(var: Variable) -> list[Variable]:
    """The factors of a product, looking through nested ``mul`` nodes (rewrites of other
    phases leave products nested; canonicalize flattens them only once)."""
    if scalar_op_name(var) != "mul":
        return [var]
    factors: list[Variable] = []
    for inp in var.owner.inputs:
        factors.extend(mul_factors(inp))
    return factors


def elemwise(name: str, *inputs: Any) -> Variable:
    """A new node of the shared Elemwise for scalar op ``name``.

    Built with ``make_node`` rather than by calling the op: rewrites build many nodes that are
    then discarded, and the engine gives each replacement the stack trace of the variable it
    replaces, so recording the creation stack (and test values) here would only cost time.
    """
    return elemwise_op(name).make_node(*inputs).outputs[0]


# ---------------------------------------------------------------------------------------------
# Constants

def get_constant(var: Any, elemwise_fold: bool = False) -> Any:
    """The single value of ``var`` (a NumPy scalar) if it is provably constant, else None.

    Looks through constants, DimShuffles, casts, ``fill``/``alloc`` and pattern changes
    (:func:`~jitgraph.tensor.core.basic.get_scalar_constant_value`); with ``elemwise_fold`` also
    through elementwise arithmetic on constants. Never raises.
    """
    if var is None:
        return None
    try:
        return get_scalar_constant_value(var, elemwise=elemwise_fold)
    except (NotScalarConstantError, ValueError, TypeError):
        return None


def is_constant_value(var: Any, value: Any) -> bool:
    """True if every element of ``var`` is provably ``value`` (NaN never matches)."""
    c = get_constant(var)
    if c is None:
        return False
    try:
        return bool(np.asarray(c) == value)
    except (TypeError, ValueError):
        return False


def scalar_constant(var: Variable) -> Any:
    """The value of a constant that broadcasts like a scalar (every dim broadcastable, or a
    0-d constant), else None. Such an input can be dropped or combined without changing the
    shape of an elementwise result."""
    if not is_scalar_like(var):
        return None
    return get_constant(var)


def const_like_var(value: Any, like: Variable, ndim: int | None = None) -> Variable:
    """A constant holding ``value`` in ``like``'s dtype, with ``ndim`` broadcastable dims."""
    ndim = like.ndim if ndim is None else ndim
    with np.errstate(all="ignore"):
        data = np.asarray(value).astype(like.dtype).reshape((1,) * ndim)
    return constant(data)


def is_scalar_like(var: Variable) -> bool:
    """True if every dimension of ``var`` is broadcastable (it holds one element)."""
    return all(var.broadcastable)


def as_scalar(var: Variable) -> Variable:
    """A 0-d view of a variable all of whose dims are broadcastable."""
    if var.ndim == 0:
        return var
    owner = var.owner
    if owner is not None and isinstance(owner.op, DimShuffle) and owner.inputs[0].ndim == 0:
        return owner.inputs[0]  # DimShuffle{x,x}(s): take s itself
    if isinstance(var, Constant):
        return constant(np.asarray(var.data).reshape(()))
    return dimshuffle(var, [])


# ---------------------------------------------------------------------------------------------
# Clients

def n_clients(fgraph: FunctionGraph | None, var: Variable) -> int:
    """How many nodes (or graph outputs) use ``var``."""
    if fgraph is None:
        return 1
    return len(fgraph.clients.get(var, ()))


def single_client(fgraph: FunctionGraph | None, var: Variable) -> bool:
    """True if ``var`` is used exactly once and is not a graph output (so a rewrite may absorb
    its node without computing it twice)."""
    if fgraph is None:
        return True
    clients = fgraph.clients.get(var, ())
    return len(clients) == 1 and clients[0][0] != "output"


# ---------------------------------------------------------------------------------------------
# Shapes

def shape_of(fgraph: FunctionGraph | None, var: Variable) -> tuple[Variable, ...]:
    """The symbolic shape of ``var``: from the graph's ShapeFeature (attached on demand), or
    ``Shape_i`` nodes when there is no graph. Broadcastable dims are the constant 1."""
    if fgraph is not None:
        from jitgraph.tensor.rewriting.shape import get_shape_feature

        return get_shape_feature(fgraph).get_shape(var)
    return tuple(constant(np.int64(1)) if b else Shape_i(d)(var)
                 for d, b in enumerate(var.broadcastable))


def same_dim(a: Any, b: Any) -> bool:
    """True if two dims (ints or int scalars) are provably equal when the graph is built."""
    if a is b:
        return True
    ca, cb = _dim_const(a), _dim_const(b)
    if ca is not None and cb is not None:
        return ca == cb
    if isinstance(a, Variable) and isinstance(b, Variable) and a.owner is not None \
            and b.owner is not None:
        na, nb = a.owner, b.owner
        if na.op == nb.op and len(na.inputs) == len(nb.inputs) and not na.op.destroy_map:
            return all(same_dim(x, y) for x, y in zip(na.inputs, nb.inputs))
    return False


def same_expression(a: Variable, b: Variable, depth: int = 6) -> bool:
    """True if ``a`` and ``b`` are the same variable, equal constants, or outputs of equal ops
    on (recursively, up to ``depth`` levels) the same inputs: duplicates that merge would
    unify but that a rewrite sees before merge has run."""
    if a is b:
        return True
    if isinstance(a, Constant) and isinstance(b, Constant):
        return a.equals(b)
    if depth <= 0 or a.owner is None or b.owner is None or a.index != b.index:
        return False
    na, nb = a.owner, b.owner
    if na.op != nb.op or len(na.inputs) != len(nb.inputs) or na.op.destroy_map:
        return False
    return all(same_expression(x, y, depth - 1) for x, y in zip(na.inputs, nb.inputs))


def _dim_const(d: Any) -> int | None:
    if isinstance(d, (int, np.integer)):
        return int(d)
    c = get_constant(d)
    if c is None:
        return None
    try:
        return int(c)
    except (TypeError, ValueError):
        return None


def same_shape(fgraph: FunctionGraph | None, a: Variable, b: Variable,
               dims: Sequence[int] | None = None) -> bool:
    """True if ``a`` and ``b`` provably have equal lengths along ``dims`` (default: all)."""
    if a is b:
        return True
    if a.ndim != b.ndim:
        return False
    sa, sb = shape_of(fgraph, a), shape_of(fgraph, b)
    dims = range(a.ndim) if dims is None else dims
    return all(same_dim(sa[d], sb[d]) for d in dims)


# ---------------------------------------------------------------------------------------------
# Type repair

def fill(model: Variable, value: Variable) -> Variable:
    """``second(model, value)``: ``value`` broadcast to ``model``'s shape."""
    return elemwise("second", model, value)


def broadcast_like(new: Variable, old: Variable, fgraph: FunctionGraph | None = None
                   ) -> Variable:
    """``new`` with exactly ``old``'s type (dtype and broadcastable pattern).

    ``new`` must hold the values ``old`` holds, up to broadcasting: its dtype is cast, dims
    ``old`` says have length 1 are marked so (a run-time checked ``patternbroadcast``), and dims
    where ``new`` broadcasts but ``old`` does not are expanded with ``alloc`` to ``old``'s shape
    (taken from the graph's ShapeFeature).
    """
    if new.dtype != old.dtype:
        new = cast(new, old.dtype)
    if new.ndim < old.ndim:
        new = dimshuffle(new, ["x"] * (old.ndim - new.ndim) + list(range(new.ndim)))
    if new.ndim != old.ndim:
        raise TypeError(f"broadcast_like: {new.type} has more dims than {old.type}")
    if new.broadcastable == old.broadcastable:
        return new
    expand = [d for d in range(old.ndim) if new.broadcastable[d] and not old.broadcastable[d]]
    if expand:
        dims = shape_of(fgraph, old)
        one = constant(np.int64(1))
        new = alloc(new, *[one if old.broadcastable[d] else dims[d] for d in range(old.ndim)])
        if new.dtype != old.dtype:
            new = cast(new, old.dtype)
    if new.broadcastable != old.broadcastable:
        new = patternbroadcast(new, old.broadcastable)
    return new
