"""Build one fused ``Elemwise(Composite)`` from a purely elementwise expression graph.

The fusion rewrite does this inside ``FAST_RUN``; this helper does it directly for a given
expression, for tests (hypothesis expression trees become one kernel each) and benchmarks. Every
variable not computed by an (out-of-place) ``Elemwise`` node inside the expression is a leaf and
becomes an input of the composite (graph inputs, constants, ``DimShuffle`` results, ...).
"""

from __future__ import annotations

from typing import Sequence

from jitgraph.graph.basic import Constant, Variable, io_toposort
from jitgraph.tensor.elementwise.composite import Composite
from jitgraph.tensor.elementwise.elemwise import Elemwise


def fuse(outputs: Sequence[Variable], stop: Sequence[Variable] = ()) -> list[Variable]:
    """``outputs`` recomputed by a single ``Elemwise(Composite)`` node (as many outputs)."""
    outputs = list(outputs)
    blockers = set(stop)
    nodes = [n for n in io_toposort(list(blockers), outputs)
             if isinstance(n.op, Elemwise) and not n.op.inplace_pattern]
    inside = {o for n in nodes for o in n.outputs}
    leaves: list[Variable] = []
    ref: dict[Variable, int] = {}

    def leaf(var: Variable) -> int:
        if var not in ref:
            ref[var] = len(leaves)
            leaves.append(var)
        return ref[var]

    for node in nodes:
        for inp in node.inputs:
            if inp not in inside:
                leaf(inp)
    for out in outputs:
        if out not in inside:
            leaf(out)
    nin = len(leaves)
    steps = []
    for node in nodes:
        sop = node.op.scalar_op
        if sop.nout != 1 or len(node.outputs) != 1:
            raise ValueError(f"cannot fuse multi-output {node.op}")
        args = tuple(ref[i] for i in node.inputs)
        ref[node.outputs[0]] = nin + len(steps)
        steps.append((sop, args, node.outputs[0].dtype))
    comp = Composite([v.dtype for v in leaves], steps, [ref[o] for o in outputs])
    result = Elemwise(comp)(*leaves)
    return list(result) if isinstance(result, (list, tuple)) else [result]


def leaf_constants(var: Variable) -> list[Constant]:
    """The constants feeding a fused node (they are kernel arguments, never baked in)."""
    return [i for i in var.owner.inputs if isinstance(i, Constant)]
