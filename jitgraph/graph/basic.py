"""The graph IR: variables, constants, Apply nodes, traversal and cloning.

A graph is a bipartite DAG: a :class:`Variable` is produced by at most one :class:`Apply` node
(its ``owner``) and an ``Apply`` applies an :class:`~jitgraph.graph.op.Op` to input variables.
"""

from __future__ import annotations

import itertools
import linecache
import numbers
import sys
import traceback
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

from jitgraph import services
from jitgraph.config import config

if TYPE_CHECKING:
    from jitgraph.graph.op import Op
    from jitgraph.graph.type import Type

_variable_ids = itertools.count()


class Scratchpad:
    """Free-form annotations attached to a variable (``var.tag.test_value``, stack traces, ...)."""

    def __repr__(self) -> str:
        return f"Scratchpad({vars(self)!r})"

    def update(self, other: "Scratchpad") -> None:
        self.__dict__.update(other.__dict__)


class TraceFrame(traceback.FrameSummary):
    """One frame of a variable's creation trace (``var.tag.trace``).

    A ``traceback.FrameSummary`` that every pickle protocol takes: ``FrameSummary`` has
    ``__slots__`` and no ``__getstate__``, which protocols 0 and 1 refuse, so a compiled function
    (whose graph keeps the traces) could not be pickled with them.
    """

    __slots__ = ()

    def __reduce__(self) -> tuple:
        return (_restore_trace_frame, (self.filename, self.lineno, self.name, self._line))


def _restore_trace_frame(filename: str, lineno: int | None, name: str,
                         line: str | None) -> TraceFrame:
    return TraceFrame(filename, lineno, name, lookup_line=False, line=line)


def _creation_trace() -> list[TraceFrame]:
    """The user-level stack where a variable was created, cut to ``traceback.limit`` frames
    (the innermost ones outside jitgraph; all frames when none is outside), outermost first."""
    limit = config.traceback.limit
    if limit == 0:
        return []
    # Walked by hand and without reading source lines (a TraceFrame reads its line when asked):
    # every node a rewrite creates records one, so extract_stack() was a tenth of a compile.
    frames, user = [], []
    frame = sys._getframe(2)
    while frame is not None and (limit < 0 or len(user) < limit):
        entry = (frame, frame.f_lineno)
        frames.append(entry)
        if "/jitgraph/" not in frame.f_code.co_filename.replace("\\", "/"):
            user.append(entry)
        frame = frame.f_back
    chosen = (user or frames)[:limit] if limit > 0 else (user or frames)
    trace = []
    for frame, lineno in reversed(chosen):
        code = frame.f_code
        # as StackSummary.extract does: a module's loader can still give its lines later
        linecache.lazycache(code.co_filename, frame.f_globals)
        trace.append(TraceFrame(code.co_filename, lineno, code.co_name, lookup_line=False))
    return trace


class Variable:
    """A symbolic value of a given :class:`Type`, the output of ``owner`` (or a graph input)."""

    def __init__(self, type: "Type", owner: "Apply | None" = None, index: int | None = None,
                 name: str | None = None) -> None:
        self.type = type
        self.owner = owner
        self.index = index
        self.name = name
        self.tag = Scratchpad()
        self.auto_name = f"auto_{next(_variable_ids)}"

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        if self.owner is not None:
            op = op_text(self.owner)
            if self.index == self.owner.op.default_output or len(self.owner.outputs) == 1:
                return f"{op}.0" if self.index is None else f"{op}.{self.index}"
            return f"{op}.{self.index}"
        return f"<{self.type}>"

    def __repr__(self) -> str:
        return str(self)

    def clone(self) -> "Variable":
        """A new variable of the same type and name, with no owner."""
        cp = self.__class__(self.type, None, None, self.name)
        cp.tag = _copy_tag(self.tag)
        return cp

    def get_parents(self) -> list["Apply"]:
        return [self.owner] if self.owner is not None else []

    def eval(self, inputs_to_values: dict | None = None) -> Any:
        """Compile and run the graph computing this variable (memoised per set of inputs)."""
        function = services.get("function")
        inputs_to_values = inputs_to_values or {}
        inputs = tuple(sorted(inputs_to_values, key=id))
        cache = self.__dict__.setdefault("_eval_cache", {})
        if inputs not in cache:
            cache[inputs] = function(list(inputs), self, on_unused_input="ignore")
        return cache[inputs](*[inputs_to_values[v] for v in inputs])


def op_text(node: "Apply") -> str:
    """The op as printed for ``node``: ``op.str_for_node(node)`` when the op's text depends on
    the node (a reduction shows the accumulator dtype its input fixes), else ``str(op)``."""
    label = getattr(node.op, "str_for_node", None)
    if label is not None:
        try:
            return label(node)
        except Exception:  # noqa: BLE001 - printing must not fail on an op's own helper
            pass
    return str(node.op)


def _copy_tag(tag: Scratchpad) -> Scratchpad:
    new = Scratchpad()
    new.__dict__.update(tag.__dict__)
    return new


class Constant(Variable):
    """A variable with a fixed value ``data``; constants with equal type and data are merged."""

    def __init__(self, type: "Type", data: Any, name: str | None = None) -> None:
        super().__init__(type, None, None, name)
        self.data = type.filter(data)

    def signature(self) -> tuple:
        """Hashable identity used by merging: two constants with equal signatures are equal."""
        return (self.type, self.type.value_signature(self.data))

    def equals(self, other: Any) -> bool:
        return isinstance(other, Constant) and self.signature() == other.signature()

    def clone(self) -> "Constant":
        cp = self.__class__(self.type, self.data, self.name)
        cp.tag = _copy_tag(self.tag)
        return cp

    @property
    def value(self) -> Any:
        return self.data

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        return f"{type(self).__name__}{{{self.type.short_value_repr(self.data)}}}"


class Apply:
    """The application of ``op`` to ``inputs``, producing ``outputs``."""

    def __init__(self, op: "Op", inputs: Sequence[Variable], outputs: Sequence[Variable]) -> None:
        self.op = op
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.tag = Scratchpad()
        for i, out in enumerate(self.outputs):
            if out.owner is not None and (out.owner is not self or out.index != i):
                raise ValueError(f"output {i} of {op} already belongs to another node")
            out.owner = self
            out.index = i

    @property
    def out(self) -> Variable:
        """The default output (the only one for single-output ops)."""
        do = self.op.default_output
        if do is not None:
            if not isinstance(do, numbers.Integral) or isinstance(do, bool):
                raise AttributeError(f"{self.op}.default_output should be an int, got {do!r}")
            if not 0 <= do < len(self.outputs):
                raise AttributeError(f"{self.op}.default_output is out of range: {do} for "
                                     f"{len(self.outputs)} outputs")
            return self.outputs[do]
        if len(self.outputs) != 1:
            raise AttributeError(f"{self.op} has {len(self.outputs)} outputs and no default output")
        return self.outputs[0]

    @property
    def nin(self) -> int:
        return len(self.inputs)

    @property
    def nout(self) -> int:
        return len(self.outputs)

    def __str__(self) -> str:
        return f"{op_text(self)}({', '.join(map(str, self.inputs))})"

    __repr__ = __str__

    def clone(self) -> "Apply":
        """A node with the same op and inputs and fresh output variables."""
        outs = [o.clone() for o in self.outputs]
        for o in outs:
            o.owner = None
        cp = Apply(self.op, self.inputs, outs)
        cp.tag = _copy_tag(self.tag)
        return cp

    def clone_with_new_inputs(self, inputs: Sequence[Variable], strict: bool = True) -> "Apply":
        """Apply the same op to ``inputs``; with ``strict`` the input types must not change."""
        if len(inputs) != len(self.inputs):
            raise ValueError(f"{self.op} expects {len(self.inputs)} inputs, got {len(inputs)}")
        # Same input types: a copy of the node, output tags (test values) included, strict or
        # not, as Theano (PyMC3 takes the gradient of a clone_replace'd cost under
        # compute_test_value='raise'); a make_node would give outputs without them.
        if all(n.type == o.type for n, o in zip(inputs, self.inputs)):
            node = self.clone()
            node.inputs = list(inputs)
            return node
        new = self.op.make_node(*inputs)
        new.tag = _copy_tag(self.tag)
        if strict:
            for old_out, new_out in zip(self.outputs, new.outputs):
                if old_out.type != new_out.type:
                    raise TypeError(
                        f"rebuilding {self.op} changed an output type: {old_out.type} -> {new_out.type}")
        return new

    def default_output_index(self) -> int:
        return self.op.default_output or 0

    def get_parents(self) -> list[Variable]:
        """The node's inputs: the parents of a node in the bipartite graph, as Theano's
        ``Apply.get_parents`` (libraries walk a graph with it, alternating with
        ``Variable.get_parents``)."""
        return list(self.inputs)


# ---------------------------------------------------------------------------------------------
# Traversal

def ancestors(outputs: Iterable[Variable], blockers: Iterable[Variable] = ()) -> Iterator[Variable]:
    """Every variable ``outputs`` depend on (outputs included), stopping at ``blockers``."""
    blocked = set(blockers)
    seen: set[int] = set()
    stack = list(outputs)[::-1]
    while stack:
        var = stack.pop()
        if id(var) in seen:
            continue
        seen.add(id(var))
        yield var
        if var.owner is not None and var not in blocked:
            stack.extend(reversed(var.owner.inputs))


def stack_search(start: Any, expand: Any, mode: str = "bfs", build_inv: bool = False) -> Any:
    """Theano's generic graph walk: take items from the deque ``start`` (the front for
    ``"bfs"``, the back for ``"dfs"``), keep each item the first time it is seen (by identity)
    and append ``expand(item)`` (None or a list) to the deque. Returns the kept items in order;
    with ``build_inv`` also ``{expanded item: [items whose expansion gave it]}``. PyMC3 walks a
    model's graph with it."""
    if mode not in ("bfs", "dfs"):
        raise ValueError(f"stack_search: mode must be 'bfs' or 'dfs', not {mode!r}")
    take = start.popleft if mode == "bfs" else start.pop
    order: list = []
    seen: set[int] = set()
    inverse: dict = {}
    while start:
        item = take()
        if id(item) in seen:
            continue
        seen.add(id(item))
        order.append(item)
        more = expand(item)
        if more:
            if build_inv:
                for child in more:
                    inverse.setdefault(child, []).append(item)
            start.extend(more)
    return (order, inverse) if build_inv else order


def graph_inputs(outputs: Iterable[Variable], blockers: Iterable[Variable] = ()) -> list[Variable]:
    """The ownerless variables (inputs, constants, shared variables) ``outputs`` depend on."""
    blocked = set(blockers)
    return [v for v in ancestors(outputs, blocked) if v.owner is None or v in blocked]


def io_toposort(inputs: Iterable[Variable], outputs: Iterable[Variable]) -> list[Apply]:
    """Apply nodes between ``inputs`` and ``outputs``, each after the nodes it depends on."""
    # A set passed in (FunctionGraph.import_node passes its variable set) is used as is: copying
    # it on every call made importing n nodes O(n^2).
    stop = inputs if isinstance(inputs, (set, frozenset)) else set(inputs)
    order: list[Apply] = []
    done: set[Apply] = set()
    for out in outputs:
        _visit_postorder(out, stop, done, order)
    return order


def _visit_postorder(root: Variable, stop: set, done: set[Apply], order: list[Apply]) -> None:
    # Iterative DFS: deep graphs (long chains from unrolled loops) must not hit the recursion
    # limit. Each stack entry keeps its node's iterator over the inputs, resumed where it
    # stopped (the rewrites sort graphs of thousands of nodes dozens of times per compile).
    node = root.owner
    if node is None or node in done or root in stop:
        return
    stack = [(node, iter(node.inputs))]
    on_stack = {node}
    while stack:
        node, inputs = stack[-1]
        for inp in inputs:
            parent = inp.owner
            if parent is None or parent in done or inp in stop:
                continue
            if parent in on_stack:
                raise ValueError(f"the graph has a cycle through {parent}")
            on_stack.add(parent)
            stack.append((parent, iter(parent.inputs)))
            break
        else:
            stack.pop()
            on_stack.discard(node)
            done.add(node)
            order.append(node)


def applys_between(inputs: Iterable[Variable], outputs: Iterable[Variable]) -> list[Apply]:
    return io_toposort(inputs, outputs)


def is_in_ancestors(node: Apply, candidate: Apply) -> bool:
    """True if ``candidate`` is ``node`` or computes one of its (transitive) inputs."""
    return any(v.owner is candidate for v in ancestors(node.outputs))


# ---------------------------------------------------------------------------------------------
# Cloning

def clone_get_equiv(inputs: Sequence[Variable], outputs: Sequence[Variable], copy_inputs: bool = True,
                    memo: dict | None = None) -> dict:
    """Clone the graph between ``inputs`` and ``outputs``; return the old -> new mapping.

    Constants are kept as they are (they are immutable); other ownerless variables that are not
    listed in ``inputs`` are kept too (they are free variables such as shared variables).
    """
    memo = {} if memo is None else memo
    for inp in inputs:
        if inp not in memo:
            memo[inp] = inp.clone() if copy_inputs else inp
    for node in io_toposort(inputs, outputs):
        for inp in node.inputs:
            if inp not in memo:
                memo[inp] = inp
        new_node = node.clone_with_new_inputs([memo[i] for i in node.inputs], strict=True)
        memo[node] = new_node
        for old, new in zip(node.outputs, new_node.outputs):
            memo[old] = new
            new.name = old.name
            new.tag = _copy_tag(old.tag)
    for out in outputs:
        memo.setdefault(out, out)
    return memo


def clone(inputs: Sequence[Variable], outputs: Sequence[Variable], copy_inputs: bool = True
          ) -> tuple[list[Variable], list[Variable]]:
    """Copies of ``inputs`` and ``outputs`` and the graph between them."""
    equiv = clone_get_equiv(inputs, outputs, copy_inputs)
    return [equiv[i] for i in inputs], [equiv[o] for o in outputs]


def clone_replace(outputs: Variable | Sequence[Variable], replace: dict | Sequence | None = None
                  ) -> Any:
    """Copies of ``outputs`` in which each key of ``replace`` is replaced by its value."""
    pairs = list(replace.items()) if isinstance(replace, dict) else list(replace or [])
    single = isinstance(outputs, Variable)
    outs = [outputs] if single else list(outputs)
    memo: dict = {}
    for old, new in pairs:
        new_var = old.type.convert_variable(new) if hasattr(old.type, "convert_variable") else None
        memo[old] = new if new_var is None else new_var
    blockers = [old for old, _ in pairs]
    inputs = graph_inputs(outs, blockers)
    for inp in inputs:
        memo.setdefault(inp, inp)
    for node in io_toposort(inputs, outs):
        if any(o in memo for o in node.outputs):
            continue
        new_inputs = [memo.get(i, i) for i in node.inputs]
        if all(a is b for a, b in zip(new_inputs, node.inputs)):
            for o in node.outputs:
                memo[o] = o
            continue
        new_node = node.clone_with_new_inputs(new_inputs, strict=False)
        for old, new in zip(node.outputs, new_node.outputs):
            new.name = old.name
            memo[old] = new
    result = [memo.get(o, o) for o in outs]
    return result[0] if single else result


def equal_computations(xs: Sequence[Variable], ys: Sequence[Variable]) -> bool:
    """True if the graphs computing ``xs`` and ``ys`` are structurally identical."""
    memo: dict[int, int] = {}

    def same(a: Variable, b: Variable) -> bool:
        if id(a) in memo:
            return memo[id(a)] == id(b)
        if isinstance(a, Constant) or isinstance(b, Constant):
            ok = isinstance(a, Constant) and isinstance(b, Constant) and a.equals(b)
        elif a.owner is None or b.owner is None:
            ok = a is b
        else:
            ok = (a.index == b.index and a.type == b.type and a.owner.op == b.owner.op
                  and len(a.owner.inputs) == len(b.owner.inputs)
                  and all(same(i, j) for i, j in zip(a.owner.inputs, b.owner.inputs)))
        if ok:
            memo[id(a)] = id(b)
        return ok

    return len(xs) == len(ys) and all(same(x, y) for x, y in zip(xs, ys))


def as_list(x: Any) -> list:
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


creation_trace = _creation_trace
