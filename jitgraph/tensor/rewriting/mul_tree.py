"""Products as trees of signed factors, and the pairing of ``exp`` with ``sigmoid`` factors in
them (``exp(x) * sigmoid(-x) = sigmoid(x)``), under Theano's names (``theano.tensor.nnet.sigm``).

A *mul tree* is a list ``[negated, sub]``: ``sub`` is either a variable (a leaf: a factor that
is neither a product nor a negation) or a list of mul trees (the factors of one ``mul`` node).
``negated`` says whether that factor is negated. ``-(x * y)`` is
``[True, [[False, x], [False, y]]]`` and ``-x`` is ``[True, x]``. A leaf taken out of the
product is ``[False, None]``; :func:`simplify_mul` removes such leaves and collapses products
of one factor, and :func:`compute_mul` builds the product back as a graph.

:func:`perform_sigm_times_exp` walks the leaves in order and pairs each ``exp(a)`` with a
``sigmoid(b)`` where ``b`` is ``-a`` (either way round): the earlier of the two becomes
``sigmoid(a)`` (its sign the product of both signs) and the later one leaves the product. A
factor made a sigmoid that way can pair again. ``exp(x)`` overflows for ``x > ~709`` while
``sigmoid(-x)`` underflows to 0, so the unpaired product is ``inf * 0 = NaN`` where the paired
one is exact.
"""

from __future__ import annotations

import numpy as np

from jitgraph.graph.basic import Variable
from jitgraph.tensor.core.basic import NotScalarConstantError, get_scalar_constant_value
from jitgraph.tensor.elementwise import math
from jitgraph.tensor.rewriting.utils import same_expression, scalar_op_name

__all__ = ["parse_mul_tree", "compute_mul", "simplify_mul", "perform_sigm_times_exp",
           "is_1pexp"]

MulTree = list  # [negated: bool, Variable | list[MulTree] | None]


def parse_mul_tree(root: Variable) -> MulTree:
    """The mul tree of ``root``: nested ``mul`` nodes become lists of factors, ``neg`` nodes
    toggle the sign of what they negate; anything else is a leaf (a product by the constant
    -1 is a leaf too, as in Theano)."""
    name = scalar_op_name(root)
    if name == "mul":
        return [False, [parse_mul_tree(factor) for factor in root.owner.inputs]]
    if name == "neg":
        negated, sub = parse_mul_tree(root.owner.inputs[0])
        return [not negated, sub]
    return [False, root]


def compute_mul(tree: MulTree) -> Variable:
    """The graph of the product ``tree`` describes (one ``mul`` node per list of factors, one
    ``neg`` per negated factor). A tree with removed leaves must be simplified first."""
    negated, sub = tree
    if sub is None:
        raise ValueError("compute_mul: the tree has a removed leaf ([negated, None]); call "
                         "simplify_mul on it first")
    if isinstance(sub, list):
        factors = [compute_mul(t) for t in sub]
        value = factors[0] if len(factors) == 1 else math.mul(*factors)
    else:
        value = sub
    return math.neg(value) if negated else value


def simplify_mul(tree: MulTree) -> MulTree:
    """``tree`` without removed leaves: a product left with no factor is removed in turn, one
    left with a single factor is that factor (signs combined). Returns a new tree."""
    negated, sub = tree
    if not isinstance(sub, list):
        return [negated, sub]
    kept = [t for t in (simplify_mul(s) for s in sub) if t[1] is not None]
    if not kept:
        return [negated, None]
    if len(kept) == 1:
        return [negated != kept[0][0], kept[0][1]]
    return [negated, kept]


def _strip_negations(v: Variable) -> tuple[Variable, bool]:
    """``(core, odd)``: ``v`` is ``core`` under an odd (``odd``) or even number of ``neg``."""
    odd = False
    while scalar_op_name(v) == "neg":
        v, odd = v.owner.inputs[0], not odd
    return v, odd


def _negations_of_each_other(a: Variable, b: Variable) -> bool:
    (core_a, odd_a), (core_b, odd_b) = _strip_negations(a), _strip_negations(b)
    return odd_a != odd_b and same_expression(core_a, core_b)


def _leaves(tree: MulTree) -> list[MulTree]:
    """The leaf lists of ``tree`` (mutable, in the product's order)."""
    sub = tree[1]
    if isinstance(sub, list):
        return [leaf for t in sub for leaf in _leaves(t)]
    return [tree]


def perform_sigm_times_exp(tree: MulTree) -> bool:
    """Pair the ``exp`` and ``sigmoid`` factors of ``tree`` in place (see the module
    docstring); True when something was paired. Call :func:`simplify_mul` afterwards to drop
    the leaves taken out."""
    exps: list[MulTree] = []      # unpaired exp(a) leaves, oldest first
    sigmoids: list[MulTree] = []  # sigmoid leaves, in the order they became one
    changed = False
    for leaf in _leaves(tree):
        v = leaf[1]
        name = scalar_op_name(v)
        if name not in ("exp", "sigmoid"):
            continue
        arg = v.owner.inputs[0]
        partners = sigmoids if name == "exp" else exps
        match = next((p for p in partners
                      if _negations_of_each_other(p[1].owner.inputs[0], arg)), None)
        if match is None:
            (exps if name == "exp" else sigmoids).append(leaf)
            continue
        # exp(a) * sigmoid(-a) = sigmoid(a): the earlier factor becomes it, the later goes
        exp_arg = arg if name == "exp" else match[1].owner.inputs[0]
        partners.remove(match)
        match[:] = [match[0] != leaf[0], math.sigmoid(exp_arg)]
        sigmoids.append(match)
        leaf[:] = [False, None]
        changed = True
    return changed


def is_1pexp(t: Variable, only_process_constants: bool = True) -> tuple[bool, Variable] | None:
    """``(False, u)`` when ``t`` is ``1 + exp(u)``: an ``add`` of one ``exp(u)`` and scalar
    constants summing to 1 (within ``numpy.allclose``); else None. With
    ``only_process_constants`` only literal constants count, otherwise also values provably
    constant through casts, fills and broadcasts. (The first item, Theano's negation flag, is
    always False.)"""
    if scalar_op_name(t) != "add":
        return None
    constants, others = [], []
    for term in t.owner.inputs:
        try:
            constants.append(get_scalar_constant_value(
                term, only_process_constants=only_process_constants))
        except NotScalarConstantError:
            others.append(term)
    if len(others) != 1 or not constants or scalar_op_name(others[0]) != "exp":
        return None
    if not np.allclose(np.sum(np.asarray(constants, dtype="float64")), 1):
        return None
    return False, others[0].owner.inputs[0]

