"""Elementwise fusion into Composite ops, and fusion of elementwise inputs into reductions.

Three passes make up the ``fusion`` phase of ``optdb`` (position 49; tags ``fast_run``,
``fusion``, ``local_elemwise_fusion``), in this order:

``fusion_lift_dimshuffle``
    ``DimShuffle{x,...}(f(a, b))`` -> ``f(DimShuffle(a), DimShuffle(b))`` when the DimShuffle
    only inserts broadcastable axes, ``f`` has no other client and every client of the
    DimShuffle is elementwise. The lifted ``f`` computes exactly as many elements as before, and
    now has the rank of its consumers, so the next pass can fuse it with them: this is how
    fusion crosses broadcasts (e.g. a 0-d ``1 / n`` feeding a vector expression).

``elemwise_fusion``
    Finds maximal connected groups of Elemwise nodes of one rank and replaces each group of two
    or more nodes by ONE ``Elemwise(Composite(...))`` node. Every group value used outside the
    group becomes an output of that node (so a shared subexpression feeding two graph outputs
    gives one two-output node). A value broadcast along an axis where its consumer is not (a row
    added to a matrix) is fused only if its op is cheap (arithmetic, comparisons, casts): the
    fused loop recomputes it for every element of the consumer. Groups never create a cycle
    through unfused nodes, and have at most :data:`MAX_FUSION_INPUTS` inputs. Constants become
    inputs of the composite, never literals, so one compiled kernel serves every graph with the
    same structure.

``fusion_careduce``
    ``Sum(f(x, y))`` where the elementwise ``f`` (fused or not) has no other client ->
    ``Sum{pre_op=Composite{f}}(x, y)``: the reduction consumes ``f`` without materialising it.

``config.tensor.local_elemwise_fusion=False`` turns the phase off (the query excludes it, and
the passes check the flag again); ``optimizer_excluding=fusion`` or ``Mode.excluding('fusion')``
removes it by tag. The passes change no value: a Composite evaluates its steps with the dtypes
the unfused graph had, through the same scalar ops.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import OUTPUT, FunctionGraph
from jitgraph.rewrite import _flags
from jitgraph.rewrite.context import RewriteContext, copy_stack_trace
from jitgraph.rewrite.engine import GraphRewriter, node_rewriter
from jitgraph.rewrite.phases import register_fusion
from jitgraph.tensor.elementwise.composite import Composite
from jitgraph.tensor.elementwise.elemwise import DimShuffle, Elemwise
from jitgraph.tensor.elementwise.reduction import CAReduce
from jitgraph.tensor.elementwise.scalar_ops import ScalarOp
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.core.var import TensorConstant

_logger = logging.getLogger("jitgraph.tensor.rewriting.fusion")

#: most inputs a fused node may have (keeps generated kernels small and quick to compile)
MAX_FUSION_INPUTS = 32

#: scalar ops cheap enough to recompute per element when fused across a broadcast
CHEAP_SCALAR_OPS = frozenset({
    "identity", "neg", "abs", "sgn", "sqr", "add", "mul", "sub", "true_div", "int_div", "mod",
    "reciprocal", "maximum", "minimum", "floor", "ceil", "trunc", "round_half_to_even",
    "round_half_away_from_zero", "eq", "neq", "lt", "le", "gt", "ge", "and_", "or_", "xor",
    "invert", "second", "switch", "clip", "isnan", "isinf",
})


def fusion_enabled() -> bool:
    """The ``tensor.local_elemwise_fusion`` flag (read when a pass runs)."""
    return bool(_flags.flag("tensor.local_elemwise_fusion"))


def is_cheap(scalar_op: ScalarOp) -> bool:
    """True if recomputing ``scalar_op`` per element costs about as much as reading a value."""
    steps = getattr(scalar_op, "steps", None)
    if steps is not None:
        return all(is_cheap(op) for op, _, _ in steps)
    return scalar_op.name in CHEAP_SCALAR_OPS or scalar_op.name.startswith("convert_to_")


def is_fusable(node: Any) -> bool:
    """True for the nodes fusion may absorb: Elemwise nodes that overwrite nothing."""
    return (isinstance(node, Apply) and isinstance(node.op, Elemwise)
            and not node.op.inplace_pattern
            and all(isinstance(o.type, TensorType) for o in node.outputs))


def _is_pure_expand(op: DimShuffle) -> bool:
    """True if the DimShuffle only inserts broadcastable axes (no transpose, no drop)."""
    return bool(op.augment) and op.shuffle == tuple(range(len(op.input_broadcastable)))


def constant_view(var: Variable) -> Constant | None:
    """``var`` as a Constant if it is one or a DimShuffle of one (folded), else None.

    Fusion runs after constant folding in the standard levels, but a query may select it
    alone; a broadcast constant must still enter the composite as a constant input.
    """
    if isinstance(var, Constant):
        return var
    owner = var.owner
    if owner is None or not isinstance(owner.op, DimShuffle):
        return None
    src = owner.inputs[0]
    if not isinstance(src, Constant):
        return None

    storage: list = [[None]]
    owner.op.perform(owner, [src.data], storage)
    return TensorConstant(var.type, np.array(storage[0][0], order="C"))


class _InputKeys:
    """Identity of group inputs: equal constants (folded views included) are one input."""

    def __init__(self) -> None:
        self.constants: dict[Variable, Constant | None] = {}

    def constant(self, var: Variable) -> Constant | None:
        if var not in self.constants:
            self.constants[var] = constant_view(var)
        return self.constants[var]

    def key(self, var: Variable) -> Any:
        const = self.constant(var)
        return var if const is None else ("constant", const.signature())


# ---------------------------------------------------------------------------------------------
# Lifting broadcasting DimShuffles above elementwise ops

def _expand(var: Variable, new_order: tuple) -> tuple[Variable, Apply | None]:
    """``var`` dimshuffled by ``new_order`` (which only inserts axes), and the new node if any.

    Constants stay constants, and a DimShuffle of a DimShuffle is composed into one.
    """
    bcast = tuple(True if o == "x" else var.broadcastable[o] for o in new_order)
    if isinstance(var, Constant):
        shape = tuple(1 if o == "x" else var.data.shape[o] for o in new_order)
        data = np.asarray(var.data).reshape(shape)
        return TensorConstant(TensorType(var.dtype, bcast), data), None
    owner = var.owner
    if owner is not None and isinstance(owner.op, DimShuffle):
        inner = owner.op.new_order
        composed = tuple("x" if o == "x" else inner[o] for o in new_order)
        src = owner.inputs[0]
        if composed == tuple(range(src.ndim)):
            return src, None
        node = DimShuffle(src.broadcastable, composed).make_node(src)
    else:
        node = DimShuffle(var.broadcastable, new_order).make_node(var)
    return node.outputs[0], node


class FusionDimShuffleLift(GraphRewriter):
    """Moves broadcast-inserting DimShuffles above single-client elementwise ops (see module)."""

    def __init__(self, name: str = "fusion_lift_dimshuffle") -> None:
        super().__init__(name)

    def lift(self, fgraph: FunctionGraph, node: Apply) -> tuple[Variable, list[Apply]] | None:
        """The lifted replacement of DimShuffle ``node``'s output and the DimShuffles it
        created, or None when the lift does not apply."""
        op = node.op
        if not isinstance(op, DimShuffle) or not _is_pure_expand(op):
            return None
        (var,) = node.inputs
        producer = var.owner
        if not is_fusable(producer) or len(producer.outputs) != 1:
            return None
        if [c for c, _ in fgraph.clients[var]] != [node]:
            return None  # lifting would compute the value twice
        out = node.outputs[0]
        consumers = [c for c, _ in fgraph.clients[out]]
        if not consumers or not all(is_fusable(c) for c in consumers):
            return None  # nothing to fuse the lifted op with
        if not is_cheap(producer.op.scalar_op) and any(
                c.outputs[0].broadcastable != out.broadcastable for c in consumers):
            return None  # fusion would not take it (it would be recomputed per element)
        new_inputs, created = [], []
        done: dict[Variable, Variable] = {}  # an input used twice is expanded once
        for inp in producer.inputs:
            if inp not in done:
                done[inp], new_node = _expand(inp, op.new_order)
                if new_node is not None:
                    created.append(new_node)
            new_inputs.append(done[inp])
        new_out = producer.op.make_node(*new_inputs).outputs[0]
        if new_out.type != out.type:
            return None
        copy_stack_trace([var, out], new_out)
        return new_out, created

    def apply(self, fgraph: FunctionGraph, ctx: RewriteContext) -> None:
        if not fusion_enabled():
            return
        # Outputs first, so that a chain is lifted all the way up in one pass.
        stack = [n for n in fgraph.toposort() if isinstance(n.op, DimShuffle)]
        while stack:
            node = stack.pop()
            if node not in fgraph.apply_nodes:
                continue
            lifted = self.lift(fgraph, node)
            if lifted is None:
                continue
            new_out, created = lifted
            if ctx.apply_replacements(fgraph, [(node.outputs[0], new_out)], self, node):
                stack.extend(n for n in created if n in fgraph.apply_nodes)


# ---------------------------------------------------------------------------------------------
# Finding the groups

class _Reachability:
    """Ancestor/descendant bitsets of the nodes, updated as groups are contracted.

    Convexity of a group G (no path leaving G and coming back) is
    ``(ancestors(G) & descendants(G)) <= G``. Once a group is chosen it will become one node, so
    its members share their ancestors and descendants from then on; later groups are checked
    against that contracted graph, which rules out cycles between fused nodes too.
    """

    def __init__(self, order: list[Apply], fgraph: FunctionGraph) -> None:
        self.index = {node: k for k, node in enumerate(order)}
        n = len(order)
        self.anc = [0] * n
        self.desc = [0] * n
        for k, node in enumerate(order):
            acc = 0
            for inp in node.inputs:
                p = inp.owner
                if p is not None and p in self.index:
                    j = self.index[p]
                    acc |= self.anc[j] | (1 << j)
            self.anc[k] = acc
        for k in range(n - 1, -1, -1):
            acc = 0
            for out in order[k].outputs:
                for client, _ in fgraph.clients.get(out, ()):
                    if client != OUTPUT and client in self.index:
                        j = self.index[client]
                        acc |= self.desc[j] | (1 << j)
            self.desc[k] = acc

    def bit(self, node: Apply) -> int:
        return 1 << self.index[node]

    def contract(self, members: int, anc: int, desc: int, open_nodes: int) -> None:
        """Record that the nodes in the bitset ``members`` become one node.

        ``anc``/``desc`` are the union of the members' ancestors/descendants. Only the nodes
        that may still join a group (``open_nodes``) are updated: the bitsets of the others
        are never read again, and the closure holds through the original transitive sets.
        """
        into_anc = anc | members
        for k in _bits(desc & open_nodes & ~members):
            self.anc[k] |= into_anc
        into_desc = desc | members
        for k in _bits(anc & open_nodes & ~members):
            self.desc[k] |= into_desc


def _bits(mask: int) -> list[int]:
    """The positions of the set bits of ``mask``, ascending. Unpacked by NumPy: contracting
    a group visits its open ancestors, thousands of bits per group in a large graph (scanning
    ``bin(mask)`` in Python was a third of the fusion phase of a 48-block network)."""
    if not mask:
        return []
    raw = np.frombuffer(mask.to_bytes((mask.bit_length() + 7) // 8, "little"), dtype=np.uint8)
    return np.flatnonzero(np.unpackbits(raw, bitorder="little")).tolist()


class _Group:
    """A group being grown from a seed node: members, bitsets and external inputs."""

    def __init__(self, seed: Apply, reach: _Reachability, max_inputs: int,
                 keys: _InputKeys) -> None:
        self.reach = reach
        self.keys = keys
        self.max_inputs = max_inputs
        self.frame = seed.outputs[0].broadcastable
        self.members: set[Apply] = {seed}
        self.mbits = reach.bit(seed)
        self.anc = reach.anc[reach.index[seed]]
        self.desc = reach.desc[reach.index[seed]]
        self.produced: set[Variable] = set(seed.outputs)
        self.inputs: dict[Any, int] = {}
        for inp in seed.inputs:
            self._use(self.inputs, inp)

    def _use(self, table: dict[Any, int], var: Variable) -> None:
        key = self.keys.key(var)
        table[key] = table.get(key, 0) + 1

    def try_add(self, node: Apply, fgraph: FunctionGraph) -> bool:
        """Add ``node`` if the group stays fusable, convex and under the input cap."""
        out0 = node.outputs[0]
        if out0.ndim != len(self.frame):
            return False
        if any(o.broadcastable != self.frame for o in node.outputs):
            # Broadcast along an axis the group is not: recomputed per element when fused, so
            # only cheap ops qualify, and only if no one outside the group needs the value
            # (a fused node's outputs all have the group's pattern).
            if len(node.outputs) != 1 or not is_cheap(node.op.scalar_op):
                return False
            if any(c == OUTPUT or c not in self.members for c, _ in fgraph.clients[out0]):
                return False
            if any(b and not f for b, f in zip(self.frame, out0.broadcastable)):
                return False  # less broadcast than the group: it cannot feed it
        r = self.reach
        k = r.index.get(node)
        if k is None:
            return False
        mbits = self.mbits | (1 << k)
        anc = self.anc | r.anc[k]
        desc = self.desc | r.desc[k]
        if anc & desc & ~mbits:
            return False  # a path would leave the group and come back: a cycle once fused
        inputs = dict(self.inputs)
        for out in node.outputs:
            inputs.pop(out, None)
        for inp in node.inputs:
            if inp not in self.produced:
                self._use(inputs, inp)
        if len(inputs) > self.max_inputs:
            return False
        self.members.add(node)
        self.mbits, self.anc, self.desc, self.inputs = mbits, anc, desc, inputs
        self.produced.update(node.outputs)
        return True


def find_fusion_groups(fgraph: FunctionGraph, max_inputs: int = MAX_FUSION_INPUTS
                       ) -> list[list[Apply]]:
    """The groups of Elemwise nodes to fuse (each in topological order, at least two nodes).

    Seeds are taken from the outputs towards the inputs; each group grows through producers
    and consumers (breadth first) while it stays convex and under ``max_inputs`` inputs.
    """
    order = fgraph.toposort()
    reach = _Reachability(order, fgraph)
    keys = _InputKeys()
    assigned: set[Apply] = set()
    groups: list[list[Apply]] = []
    open_nodes = 0  # the nodes that may still join a group
    for k, node in enumerate(order):
        if is_fusable(node):
            open_nodes |= 1 << k
    for seed in reversed(order):
        if seed in assigned or not is_fusable(seed):
            continue
        group = _Group(seed, reach, max_inputs, keys)
        queue = deque([seed])
        while queue:
            member = queue.popleft()
            neighbours = [inp.owner for inp in member.inputs]
            for out in member.outputs:
                neighbours.extend(c for c, _ in fgraph.clients[out])
            for other in neighbours:
                if (other is None or other == OUTPUT or other in group.members
                        or other in assigned or not is_fusable(other)):
                    continue
                if group.try_add(other, fgraph):
                    queue.append(other)
        assigned.update(group.members)
        open_nodes &= ~group.mbits
        if len(group.members) >= 2:
            reach.contract(group.mbits, group.anc, group.desc, open_nodes)
            groups.append(sorted(group.members, key=reach.index.__getitem__))
    return groups


# ---------------------------------------------------------------------------------------------
# Building the fused node

def build_composite(nodes: Sequence[Apply], exported: Sequence[Variable]
                    ) -> tuple[Composite, list[Variable]]:
    """The Composite computing ``exported`` from the group ``nodes`` (topologically sorted),
    and the variables to pass it as inputs (constants included, each value once)."""
    members = set(nodes)
    keys = _InputKeys()
    inputs: list[Variable] = []
    ref_of: dict[Any, int] = {}
    for node in nodes:
        for inp in node.inputs:
            if inp.owner in members:
                continue
            key = keys.key(inp)
            if key not in ref_of:
                ref_of[key] = len(inputs)
                const = keys.constant(inp)
                inputs.append(inp if const is None else const)
    nin = len(inputs)
    steps: list[tuple[ScalarOp, tuple[int, ...], str]] = []
    for node in nodes:
        args = [ref_of[keys.key(i)] for i in node.inputs]
        sop = node.op.scalar_op
        inner_steps = getattr(sop, "steps", None)
        if inner_steps is None:
            steps.append((sop, tuple(args), node.outputs[0].dtype))
            ref_of[node.outputs[0]] = nin + len(steps) - 1
            continue
        # A composite member is inlined: its references are renumbered into the group's.
        inner_nin = len(sop.in_dtypes)
        local = list(args)
        for op, refs, dtype in inner_steps:
            steps.append((op, tuple(local[r] for r in refs), dtype))
            local.append(nin + len(steps) - 1)
        for out, r in zip(node.outputs, sop.outputs):
            ref_of[out] = local[r] if r >= inner_nin else args[r]
    composite = Composite([v.dtype for v in inputs], steps, [ref_of[v] for v in exported])
    return composite, inputs


def exported_outputs(nodes: Sequence[Apply], fgraph: FunctionGraph) -> list[Variable]:
    """The outputs of ``nodes`` that something outside the group uses (or the graph returns)."""
    members = set(nodes)
    return [out for node in nodes for out in node.outputs
            if any(c == OUTPUT or c not in members for c, _ in fgraph.clients[out])]


def fuse_group(nodes: Sequence[Apply], fgraph: FunctionGraph,
               resolve: dict[Variable, Variable] | None = None
               ) -> list[tuple[Variable, Variable]] | None:
    """``(old, new)`` pairs replacing the group ``nodes`` by one fused node, or None.

    ``resolve`` maps variables replaced by earlier fusions to their replacements.
    """
    exported = exported_outputs(nodes, fgraph)
    if not exported:
        return None
    composite, inputs = build_composite(nodes, exported)
    if resolve:
        inputs = [resolve.get(v, v) for v in inputs]
    new_node = Elemwise(composite).make_node(*inputs)
    pairs = list(zip(exported, new_node.outputs))
    for old, new in pairs:
        if old.type != new.type:  # should not happen; never change a type
            _logger.debug("fusion skipped: %s would become %s", old.type, new.type)
            return None
    for old, new in pairs:
        copy_stack_trace(old, new)
    return pairs


class ElemwiseFusion(GraphRewriter):
    """Replaces each maximal group of Elemwise nodes by one ``Elemwise(Composite)`` node."""

    def __init__(self, name: str = "elemwise_fusion",
                 max_inputs: int = MAX_FUSION_INPUTS) -> None:
        super().__init__(name)
        self.max_inputs = max_inputs

    def apply(self, fgraph: FunctionGraph, ctx: RewriteContext) -> None:
        if not fusion_enabled():
            return
        resolve: dict[Variable, Variable] = {}
        for nodes in find_fusion_groups(fgraph, self.max_inputs):
            pairs = fuse_group(nodes, fgraph, resolve)
            if pairs and ctx.apply_replacements(fgraph, pairs, self, nodes[-1]):
                resolve.update(pairs)


# ---------------------------------------------------------------------------------------------
# Fusion into reductions

def as_composite(node: Apply) -> tuple[Composite, list[Variable]]:
    """The scalar op of the single-output Elemwise ``node`` as a Composite, and its inputs."""
    sop = node.op.scalar_op
    if isinstance(sop, Composite):
        return sop, list(node.inputs)
    return build_composite([node], [node.outputs[0]])


@node_rewriter([CAReduce])
def fusion_careduce(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``reduce(f(x, ...))`` -> ``reduce{pre_op=f}(x, ...)`` when only the reduction uses f."""
    if not fusion_enabled() or node.op.pre_op is not None or len(node.inputs) != 1:
        return None
    (var,) = node.inputs
    producer = var.owner
    if not is_fusable(producer) or len(producer.outputs) != 1:
        return None
    if fgraph.clients[var] != [(node, 0)]:
        return None  # the elementwise value is needed elsewhere: keep it materialised
    composite, inputs = as_composite(producer)
    new_out = node.op.clone_with(pre_op=composite).make_node(*inputs).outputs[0]
    old = node.outputs[0]
    if new_out.type != old.type:
        return None
    copy_stack_trace(old, new_out)
    return [new_out]


register_fusion(FusionDimShuffleLift(), name="fusion_lift_dimshuffle", position=0)
register_fusion(ElemwiseFusion(), name="elemwise_fusion", position=1)
register_fusion(fusion_careduce, name="fusion_careduce", position=2)

__all__ = ["CHEAP_SCALAR_OPS", "ElemwiseFusion", "FusionDimShuffleLift", "MAX_FUSION_INPUTS",
           "as_composite", "build_composite", "exported_outputs", "find_fusion_groups",
           "fuse_group", "fusion_careduce", "fusion_enabled", "is_cheap", "is_fusable"]
