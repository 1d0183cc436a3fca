"""A node rewriter's ``op_test`` (the ops the drivers offer it) must never leave out a node the
rewrite would change: narrowing is an optimisation of the drivers, and a wrong narrowing is a
rewrite that silently stops happening (a stabilisation lost, a NaN where there was none).

Every registered rewriter with an ``op_test`` is called directly, as the drivers called it
before the narrowing, on elementwise nodes of every scalar op its test refuses, over inputs
with the constants rewrites look for; it must change none of them."""

from __future__ import annotations

import gc
import itertools

import numpy as np
import pytest

import jitgraph.tensor as T
from jitgraph.graph.basic import Constant, graph_inputs
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite import load_tensor_rewrites
from jitgraph.rewrite.engine import NodeRewriter
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.tensor.elementwise.scalar_op_base import all_scalar_ops, always_complex

load_tensor_rewrites()

NARROWED = sorted((rw for rw in gc.get_objects()
                   if isinstance(rw, NodeRewriter) and rw.op_test is not None),
                  key=lambda rw: str(rw))
OPS = [op for op in all_scalar_ops() if 1 <= op.nin <= 3 and not always_complex(op)]
CONSTANTS = [0.0, 1.0, -1.0, 2.0, 0.5]


def _producers(dtype: str, k: int) -> list:
    """What a rewrite may look for in an input: a variable, a constant, and the results of
    the ops the patterns name (``log(1 + exp(x))``, ``alpha * dot(A, x) + y``, ...)."""
    x, y = T.vector(f"x{k}", dtype=dtype), T.vector(f"y{k}", dtype=dtype)
    found = [x, *(T.constant(np.asarray(c, dtype=dtype)) for c in CONSTANTS)]
    if dtype == "float64":
        m = T.matrix(f"m{k}", dtype=dtype)
        found += [T.exp(x), T.log(x), -x, T.nnet.sigmoid(x), T.nnet.softplus(x), T.dot(m, y),
                  x * y, x + y, x - y, 1 + x, 1 - x, T.sqr(x), T.sqrt(x), x / y, T.log1p(x),
                  T.expm1(x), abs(x), T.cast(x, "float32"), T.nnet.sigmoid(-x), 2 * x]
    return found


def _operands(dtype: str, nin: int):
    """Input tuples: variables, with one input at a time replaced by each producer."""
    plain = [T.vector(f"v{k}", dtype=dtype) for k in range(nin)]
    yield plain
    for pos in range(nin):
        for value in _producers(dtype, pos):
            yield [value if k == pos else plain[k] for k in range(nin)]
    if nin >= 2:  # one variable repeated (x - x, x / x, ...)
        yield [plain[0]] * nin


def _nodes(op):
    for dtype in ("float64", "int64", "bool"):
        for inputs in _operands(dtype, op.nin):
            try:
                out = Elemwise(op)(*inputs)
            except (TypeError, ValueError, NotImplementedError):
                continue
            for o in (out if isinstance(out, (list, tuple)) else [out]):
                yield o


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_rewriters_change_no_node_their_op_test_refuses(op):
    assert len(NARROWED) > 20  # the tensor rewrites narrowed theirs (not vacuous)
    offending = []
    for out in _nodes(op):
        node = out.owner
        if node is None or not isinstance(node.op, Elemwise):
            continue
        for rw in NARROWED:
            if rw.op_test(node.op):
                continue
            free = [v for v in graph_inputs([out]) if not isinstance(v, Constant)]
            fgraph = FunctionGraph(free, [out], clone=False)
            try:
                result = rw.transform(fgraph, node)
            except Exception:  # noqa: BLE001 - a rewrite that raises here changes nothing
                result = None
            if result:
                offending.append(f"{rw} rewrote {node.op} on {[str(i) for i in node.inputs]}")
    assert not offending, "\n".join(offending[:10])
