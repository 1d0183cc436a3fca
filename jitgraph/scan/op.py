"""The Scan op: a loop whose body is an inner graph (see :mod:`jitgraph.scan.info` for the
layout of its inputs and outputs).

``perform`` runs the inner graph, compiled once by the op's mode, once per step
(:mod:`jitgraph.scan.runner`); the gradient is another Scan running backwards
(:mod:`jitgraph.scan.gradient`).
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.compile.profiling_scan import ScanProfileStats
from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.scan.info import ScanInfo
from jitgraph.scan.inner import InnerGraph
from jitgraph.scan.layout_views import ScanLayoutViews
from jitgraph.scan.shapes import scan_output_shapes
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType


class Scan(ScanLayoutViews, Op):
    """A loop over ``n_steps`` steps of the inner graph ``inner``.

    ``mode`` compiles the inner graph (None: the default mode); ``truncate_gradient`` limits
    back-propagation through time to that many steps (-1: all); ``name`` appears in printing
    (``for{cpu,name}``); ``profile`` (a ScanProfileStats) records the calls.
    """

    __props__ = ("info", "inner", "mode", "name", "truncate_gradient", "profile")

    def __init__(self, info: ScanInfo, inner: InnerGraph, mode: Any = None,
                 name: str = "scan_fn", truncate_gradient: int = -1,
                 profile: Any = None) -> None:
        if len(inner.inputs) != info.n_inner_inputs:
            raise ValueError(f"the inner graph has {len(inner.inputs)} inputs, the layout "
                             f"expects {info.n_inner_inputs}")
        if len(inner.outputs) != info.n_inner_outputs:
            raise ValueError(f"the inner graph has {len(inner.outputs)} outputs, the layout "
                             f"expects {info.n_inner_outputs}")
        self.info = info
        self.inner = inner
        self.mode = mode
        self.name = name or "scan_fn"
        self.truncate_gradient = int(truncate_gradient)
        #: a ScanProfileStats recording every call of the loop (``scan(profile=...)``), or None
        self.profile = profile

    def __str__(self) -> str:
        return f"for{{cpu,{self.name}}}"

    def __getstate__(self) -> dict:
        # what Op.__reduce__ keeps, less the runner's memo (runner.layout)
        return {k: v for k, v in self.__dict__.items()
                if k not in ("_frozen", "_hash", "_prepared_for", "_loop_layout")}

    __repr__ = __str__

    # -- building ---------------------------------------------------------------------------
    def make_node(self, *inputs: Any) -> Apply:
        info = self.info
        if len(inputs) != info.n_outer_inputs:
            raise ValueError(f"{self} expects {info.n_outer_inputs} inputs, got {len(inputs)}")
        inputs = [as_tensor_variable(v) if not isinstance(v, Variable) else v for v in inputs]
        n_steps = inputs[0]
        if n_steps.ndim != 0 or n_steps.dtype not in ("int64", "int32", "int16", "int8",
                                                       "uint8", "uint16", "uint32"):
            raise TypeError(f"n_steps of {self} must be an integer scalar, got {n_steps.type}")
        inner_in = self.inner.inputs
        for j, (outer, inner) in enumerate(zip(inputs[info.outer_seqs()],
                                               inner_in[info.inner_seqs()])):
            _expect(outer, _stacked(inner.type), f"sequence {j}")
        for k, outer in enumerate(inputs[info.outer_inits()]):
            tap_var = inner_in[info.inner_taps(k)][0]
            _expect(outer, _stacked(tap_var.type), f"initial buffer of recurrent output {k}")
        for s, (outer, inner) in enumerate(zip(inputs[info.outer_shared()],
                                               inner_in[info.inner_shared()])):
            _expect(outer, inner.type, f"shared state {s}")
        for j, (outer, inner) in enumerate(zip(inputs[info.outer_non_seqs()],
                                               inner_in[info.inner_non_seqs()])):
            _expect(outer, inner.type, f"non-sequence {j}")
        inner_out = self.inner.outputs
        outputs = []
        for var in inner_out[info.rec_outputs()] + inner_out[info.nit_outputs()]:
            outputs.append(TensorType(var.type.dtype, (False,) + var.type.broadcastable)())
        for var in inner_out[info.shared_outputs()]:
            outputs.append(var.type())
        return Apply(self, inputs, outputs)

    def do_constant_folding(self, node: Apply) -> bool:
        return False  # running a loop while rewriting costs more than it saves

    # -- evaluation -------------------------------------------------------------------------
    #: Mode.rewrite records on this op's nodes the mode compiling the outer graph: the inner
    #: graph is compiled by it (DebugMode, NanGuardMode, MonitorMode check the step's nodes)
    compiles_inner_graph = True

    def inner_mode(self, node: Apply | None) -> Any:
        """The mode compiling the inner graph of ``node``: the op's own (``scan(mode=...)``),
        else the mode that compiled the outer graph, else None (the default mode)."""
        if self.mode is not None or node is None:
            return self.mode
        return getattr(node.tag, "compile_mode", None)

    def inner_profile(self, node: Apply | None) -> Any:
        """The ScanProfileStats recording ``node``'s loop: the outer function's profile gives
        each loop node one (see :meth:`attach_inner_profile`), else ``scan(profile=...)``'s."""
        found = getattr(node.tag, "scan_profile", None) if node is not None else None
        return found if found is not None else self.profile

    def attach_inner_profile(self, node: Apply, parent: Any) -> None:
        """Called by a profiled outer function for each of its loop nodes: the loop records
        its calls and its inner nodes in a ScanProfileStats shown inside ``parent``'s
        summary."""
        stats = self.profile
        if stats is None:
            stats = ScanProfileStats(atexit_print=False, name=self.name,
                                     message=f"{self.name} sub profile")
        node.tag.scan_profile = stats
        parent.add_inner_profile(stats)

    def inner_function(self, mode: Any = None) -> Any:
        """The inner graph compiled by ``mode`` (None: this op's mode, else the default one;
        compiled on first use). The tap of a recurrent output that keeps one entry and reads
        only its last value may be overwritten in place (an accumulator: ``acc + x`` becomes
        ``acc += x``)."""
        return self.inner.compiled(self.mode if mode is None else mode,
                                   self.overwritable_taps())

    def inner_rewritten(self, mode: Any = None) -> Any:
        """The inner graph as :meth:`inner_function` rewrites it, without linking a program
        (what a native loop is generated from)."""
        return self.inner.rewritten(self.mode if mode is None else mode,
                                    self.overwritable_taps())

    def overwritable_taps(self) -> tuple[int, ...]:
        """Inner inputs (taps) the step may overwrite: see :meth:`inner_function`."""
        info = self.info
        return tuple(info.inner_taps(k).start for k in range(info.n_rec)
                     if info.keep[k] == 1 and info.rec_taps[k] == (-1,))

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        from jitgraph.scan.runner import run_scan

        run_scan(self, inputs, output_storage, self.inner_mode(node), self.inner_profile(node))

    # -- printing ---------------------------------------------------------------------------
    def debugprint_inner(self, node: Apply) -> tuple[list[Variable], dict]:
        """The inner graph's outputs and ``{inner input: outer input}``: ``debugprint`` shows
        them after the outer graph ("Inner graphs of the scan ops", as Theano)."""
        info, inner_in, outer = self.info, list(self.inner.inputs), list(node.inputs)
        pairs = list(zip(inner_in[info.inner_seqs()], outer[info.outer_seqs()]))
        for k, init in enumerate(outer[info.outer_inits()]):
            pairs += [(tap, init) for tap in inner_in[info.inner_taps(k)]]
        pairs += zip(inner_in[info.inner_shared()], outer[info.outer_shared()])
        pairs += zip(inner_in[info.inner_non_seqs()], outer[info.outer_non_seqs()])
        return list(self.inner.outputs), dict(pairs)

    # -- shapes -----------------------------------------------------------------------------
    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return scan_output_shapes(self, node, input_shapes)

    # -- gradient ---------------------------------------------------------------------------
    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        from jitgraph.scan.gradient import connection_pattern

        return connection_pattern(self, node)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        from jitgraph.scan.gradient import scan_grad

        return scan_grad(self, list(inputs), list(outputs), list(output_grads))

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        from jitgraph.scan.rop import scan_rop

        return scan_rop(self, list(inputs), list(eval_points))


def _stacked(vtype: Any) -> Any:
    """The type of a sequence of values of type ``vtype`` (one more, leading, dimension)."""
    return TensorType(vtype.dtype, (False,) + vtype.broadcastable)


def _expect(outer: Variable, wanted: Any, what: str) -> None:
    if outer.type == wanted:
        return
    same_kind = (getattr(outer.type, "dtype", None) == getattr(wanted, "dtype", None)
                 and getattr(outer.type, "ndim", None) == getattr(wanted, "ndim", None))
    if same_kind and all(o or not w for o, w in zip(outer.type.broadcastable,
                                                    wanted.broadcastable)):
        return  # more broadcastable than needed: the value fits
    raise TypeError(f"the {what} of scan has type {outer.type}, but the inner graph expects "
                    f"{wanted}")
