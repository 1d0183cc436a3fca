"""Lowering of ``Scan``: the whole loop as one native function when the inner graph allows it.

At link time the inner graph is rewritten (by the op's mode) and, when every node of its
rewritten form has loop code (:mod:`.loop_codegen`), the loop is generated as one kernel: no
Python runs between steps, buffers are allocated once per call, taps are read in place. The
kernel has two entries, for C-contiguous outer arrays and for any strides; the one the calls
will most likely use is compiled with the program's other kernels, the other when a call
first needs it. Such a node is a ``Numba`` thunk for the profiler. Otherwise (a node without
loop code, shared states, shapes that depend on values) the node runs
:func:`jitgraph.scan.runner.run_scan`, the inner program once per step (a ``Py`` thunk),
which is linked only then. ``JITGRAPH_NATIVE_SCAN=0`` always does the latter.

A native loop that fails (a shape mismatch, an index out of range) runs again step by step, so
that the error names the inner node and the step, as the step-by-step loop reports it. A call
whose matrix products are large (more than :data:`BLAS_WORK` multiply-adds per step, known once
the shapes are) also runs step by step, where each product is one BLAS call.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from jitgraph.scan.op import Scan

from jitgraph.backend_cpu.lowering.registry import NUMBA, PY, Lowered, register_lowering
from jitgraph.backend_cpu.codegen import compile_ahead
from jitgraph.backend_cpu.codegen.kernels import kernel_module
from jitgraph.backend_cpu.codegen.scalar_templates import Unsupported
from jitgraph.compile.monitormode import WrapLinker

_log = logging.getLogger(__name__)

#: ``JITGRAPH_NATIVE_SCAN=0`` keeps every loop in Python (one inner call per step)
NATIVE = os.environ.get("JITGRAPH_NATIVE_SCAN", "1") != "0"

#: Above this many multiply-adds per step in matrix products, a call runs step by step: the
#: native loop's plain loops are slower than BLAS by more than the Python work per step costs.
BLAS_WORK = 16384


@dataclass
class LoopPlan:
    """The arguments of the kernel besides the outer arrays, and the Python ``prepare``."""

    arg_names: list[str] = field(default_factory=list)
    consts: list[np.ndarray] = field(default_factory=list)
    scratch: list[tuple[str, list[str], str]] = field(default_factory=list)  # name, shape, dtype
    checks: list[tuple[str, str, str]] = field(default_factory=list)
    nit: list[tuple[list[str], str]] = field(default_factory=list)  # step shape, dtype
    #: multiply-adds per step of the products in the loop (expressions over the shapes)
    work: list[str] = field(default_factory=list)
    prepare_source: str = ""

    def prepare_function(self) -> Callable:
        """``prepare(n_steps, memo, *arrays) -> (scratch, nit buffers, multiply-adds per
        step)``, compiled from source; ``memo`` (a list ``[shapes, arrays, ...]``) keeps the
        scratch arrays between calls of the same shapes."""
        ns: dict[str, Any] = {"np": np}
        exec(compile(self.prepare_source, "<scan loop prepare>", "exec"), ns)
        return ns["prepare"]


class NativeLoop:
    """A Scan's loop compiled as one kernel, with what its caller must pass. ``ks`` holds the
    kernel's two entries (``loop``: outer arrays of any strides; ``loop_c``: C-contiguous
    ones), each compiled (or loaded) when a call first needs it. ``mode`` compiled the inner
    graph the kernel was generated from (the step-by-step fallback runs that program)."""

    def __init__(self, op: Scan, node: Any, ks: Any, plan: Any, mode: Any = None) -> None:
        self.op = op
        self.node = node
        self.ks = ks
        self.plan = plan
        self.mode = mode

    def __call__(self, inputs: Sequence[Any], output_storage: list) -> None:
        from jitgraph.scan.runner import finish, layout, prepare, run_scan

        op, plan = self.op, self.plan
        profile = op.inner_profile(self.node)
        n_steps, seqs, recs = prepare(op, inputs)
        arrays = seqs + [r.buf for r in recs]
        for v in inputs[layout(op).non_seqs]:
            arrays.append(v.reshape(1) if v.ndim == 0 else v)
        arrays += plan.consts
        memo = self.__dict__.get("_memo")
        if memo is None:  # (scratch shapes, scratch arrays), done[0] = steps run
            memo = self.__dict__["_memo"] = [None, [], np.zeros(1, dtype=np.int64)]
        scratch, nits, work = self.prepare(n_steps, memo, *arrays)
        if work > BLAS_WORK:  # big products: BLAS, called once per step, is faster
            run_scan(op, inputs, output_storage, self.mode, profile)
            return
        entry = "loop_c"
        for a in arrays:
            if not a.flags.c_contiguous:
                entry = "loop"
                break
        kernel = self.__dict__.get("_kernels", {}).get(entry) or self.kernel(entry)
        if kernel is False:  # the loop does not compile
            run_scan(op, inputs, output_storage, self.mode, profile)
            return
        done = memo[2]
        t0 = time.perf_counter() if profile is not None else 0.0
        try:
            kernel(n_steps, done, *arrays, *scratch, *nits)
        except Exception:  # noqa: BLE001 - the step-by-step loop says what went wrong, and where
            run_scan(op, inputs, output_storage, self.mode, profile)
            return
        finish(op, output_storage, recs, nits, [], int(done[0]), n_steps)
        if profile is not None:  # the whole loop is the body: no time outside it
            elapsed = time.perf_counter() - t0
            profile.record_loop(int(done[0]), elapsed, elapsed)
            if not profile.native_nodes:
                profile.note_native(op.inner_rewritten(self.mode).toposort())

    def kernel(self, entry: str) -> Any:
        """The compiled ``entry`` (memoised on the instance), False if it does not compile
        (the loop then runs step by step)."""
        kernels = self.__dict__.setdefault("_kernels", {})
        fn = kernels.get(entry)
        if fn is None:
            fn = kernels[entry] = _compiled(self.ks, entry, self.op.name)
        return fn

    @property
    def prepare(self) -> Any:
        fn = self.__dict__.get("_prepare")
        if fn is None:
            fn = self.__dict__["_prepare"] = self.plan.prepare_function()
        return fn

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items()
                if k not in ("_prepare", "_kernels", "_memo")}


def native_loop(op: Scan, node: Any, options: Any, mode: Any = None
                ) -> tuple[NativeLoop | None, str]:
    """The native loop of ``node`` (inner graph compiled by ``mode``), or None and why not."""
    from jitgraph.backend_cpu.codegen.loop import loop_source

    if not NATIVE:
        return None, "JITGRAPH_NATIVE_SCAN=0"
    try:
        ks, plan = loop_source(op, op.inner_rewritten(mode), options)
    except Unsupported as exc:
        return None, str(exc)
    # the entry the calls will most likely use is compiled with the program's other kernels
    info = op.info
    outer = node.inputs[info.outer_seqs()] + node.inputs[info.outer_non_seqs()]
    entry = "loop_c" if all(_probably_contiguous(v) for v in outer) else "loop"
    compile_ahead.want(_Guarded(kernel_module(ks), op.name), entry)
    return NativeLoop(op, node, ks, plan, mode), ""


def _compiled(ks: Any, entry: str, name: str) -> Any:
    """``entry`` of the loop kernel ``ks``, or False (with a warning) if it does not compile."""
    try:
        return kernel_module(ks).get(entry)
    except Exception as exc:  # noqa: BLE001 - a loop Numba rejects still runs step by step
        _log.warning("scan %r: the native loop did not compile (%s: %s); running it step by "
                     "step", name, type(exc).__name__, exc)
        return False


class _Guarded:
    """A loop's kernel module as :mod:`.compile_ahead` sees it: an entry that does not
    compile leaves the program's compilation alone (the calls run the loop step by step)."""

    def __init__(self, module: Any, name: str) -> None:
        self.module = module
        self.name = name

    def get(self, entry: str) -> Any:
        return _compiled(self.module.source, entry, self.name)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.module, attr)


def _probably_contiguous(var: Any) -> bool:
    """Whether the values of ``var`` are likely C-contiguous: graph inputs and fresh results
    are; views are unless they only add, drop or mark broadcastable dimensions."""
    owner = var.owner
    if owner is None or not owner.op.view_map:
        return True
    name = type(owner.op).__name__
    if name in ("Unbroadcast", "SpecifyShape"):
        return _probably_contiguous(owner.inputs[0])
    if name == "DimShuffle":
        kept = [d for d in owner.op.new_order if d != "x"]
        return kept == sorted(kept) and _probably_contiguous(owner.inputs[0])
    return False


class StepLoop:
    """A Scan's loop running its inner program, compiled by ``mode``, once per step
    (picklable, like the native loop, so that a linked program holding it is kept in the
    compiledir)."""

    def __init__(self, op: Scan, node: Any, mode: Any = None) -> None:
        self.op = op
        self.node = node
        self.mode = mode

    def __call__(self, inputs: Sequence[Any], output_storage: list) -> None:
        from jitgraph.scan.runner import run_scan

        run_scan(self.op, inputs, output_storage, self.mode, self.op.inner_profile(self.node))


def lowered_inner_mode(op: Scan, node: Any) -> tuple[Any, bool]:
    """``(mode, native allowed)`` for the compiled loop of ``node``: the mode that compiled
    the outer graph reaches the inner one. A mode watching every node (NanGuardMode,
    MonitorMode: a :class:`~jitgraph.compile.monitormode.WrapLinker`) runs the inner program
    step by step so that it sees the step's nodes; DebugMode checks the inner graph through
    ``Scan.perform`` and compares it with the compiled loop of the op's own mode."""
    mode = op.inner_mode(node)
    if mode is None or isinstance(mode, str):
        return mode, True

    linker = getattr(mode, "linker", None)
    if isinstance(linker, WrapLinker):
        return mode, False
    if getattr(linker, "name", None) == "debug":
        return op.mode, True
    return mode, True


@register_lowering(Scan)
def lower_scan(op: Scan, node: Any, ctx: Any) -> Lowered:
    mode, native_allowed = lowered_inner_mode(op, node)
    if native_allowed:
        loop, why = native_loop(op, node, ctx.options, mode)
    else:
        loop, why = None, "the mode checks every inner node"
    if loop is None:
        _log.debug("scan %r runs step by step: %s", op.name, why)
    run = loop if loop is not None else StepLoop(op, node, mode)

    def emit(nc: Any) -> list[str]:
        runner = nc.b.new_global(run, "scan")
        outs = nc.b.new_global([nc.b.storage[o] for o in node.outputs], "outcells")
        args = ", ".join(nc.inp(j) for j in range(len(node.inputs)))
        return [f"{runner}([{args}], {outs})"]

    lowered = Lowered(NUMBA if loop is not None else PY, emit)
    lowered.notes["scan"] = "native loop" if loop is not None else f"inner program per step ({why})"
    return lowered
