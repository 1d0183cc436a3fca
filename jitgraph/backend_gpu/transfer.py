"""Moving a rewritten graph to the GPU.

Runs after fusion and the in-place passes (:mod:`.rewrites` registers it at position 97),
so it sees the final CPU graph and only changes where each node runs:

1. Walking the nodes in order (to a fixed point), a node moves to the GPU when it has a GPU
   implementation for its dtypes (``registry.why_not``) and touches the device: one of its inputs
   comes from the GPU (a ``HostFromGpu``) or one of its outputs goes there (a ``GpuFromHost``
   reads it). Shape arithmetic on host integer scalars stays on the host. The node becomes a
   ``Gpu*`` op; its device inputs are transferred (``GpuFromHost``, reused per variable; a
   ``HostFromGpu`` input is simply unwrapped) and its device outputs are read back through a
   ``HostFromGpu`` until their readers move too. A replacement the destroy handler rejects is
   retried with the op's non-in-place form.
2. ``GpuFromHost(HostFromGpu(x))`` becomes ``x``, so only the transfers a CPU node or a graph
   output needs remain (the program defers a final ``HostFromGpu`` into the function's result).
3. Nodes that should have moved but could not are reported per ``assert_no_cpu_op``: once per op
   in the log (``ignore``), once as a warning (``warn``), an error (``raise``) or ``pdb``.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.context import copy_stack_trace
from jitgraph.rewrite.features import replace_validate

from jitgraph.backend_gpu.ops import (GpuFromHost, GpuOp, HostFromGpu, gpu_from_host,
                                      host_from_gpu, make_gpu_op)
from jitgraph.backend_gpu.registry import impl_for, why_not
from jitgraph.backend_gpu.types import GpuArrayType
from jitgraph.backend_gpu.cuda_types import SUPPORTED_DTYPES
from jitgraph.config import config
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.elementwise.composite import Composite
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.tensor.elementwise.math import cast

_logger = logging.getLogger("jitgraph.backend_gpu")
_reported: set[str] = set()


class CpuOpInGpuGraph(AssertionError):
    """``assert_no_cpu_op=raise`` and a node that needs the GPU stayed on the CPU."""

    #: the rewrite engine lets it through whatever ``on_opt_error`` says: compiling fails
    _rewrite_handled = True


def _on_device(var: Variable) -> bool:
    return var.owner is not None and isinstance(var.owner.op, HostFromGpu)


def _is_host_index(var: Variable) -> bool:
    dtype = getattr(var.type, "dtype", "")
    return getattr(var.type, "ndim", 1) == 0 and (dtype.startswith(("int", "uint")))


def wants_gpu(fgraph: FunctionGraph, node: Apply) -> bool:
    """Whether ``node`` touches the device (see the module docstring)."""
    if isinstance(node.op, (GpuOp, GpuFromHost, HostFromGpu)):
        return False
    if any(_on_device(v) for v in node.inputs):
        return True
    for out in node.outputs:
        for client, _ in fgraph.clients.get(out, []):
            if client != "output" and isinstance(client.op, GpuFromHost):
                return True
    return False


def _without_inplace(op: Any) -> Any:
    if isinstance(op, Elemwise):
        return Elemwise(op.scalar_op)
    if "inplace" in getattr(op, "__props__", ()):
        params = {p: getattr(op, p) for p in op.__props__}
        params["inplace"] = False
        return type(op)(**params)
    return None


class Mover:
    def __init__(self, fgraph: FunctionGraph, ctx: Any = None, rewriter: Any = None) -> None:
        self.fgraph = fgraph
        self.ctx = ctx
        self.rewriter = rewriter
        self.uploads: dict[Variable, Variable] = {}
        self.moved = 0
        self.stuck: dict[str, str] = {}

    def to_device(self, var: Variable) -> Variable:
        if isinstance(var.type, GpuArrayType):
            return var
        if _on_device(var):
            return var.owner.inputs[0]
        hit = self.uploads.get(var)
        if hit is not None and hit in self.fgraph.variables and not self._destroyed(hit):
            return hit
        dev = gpu_from_host(var)
        self.uploads[var] = dev
        return dev

    def _destroyed(self, var: Variable) -> bool:
        for client, i in self.fgraph.clients.get(var, []):
            if client != "output" and any(i in ins for ins in client.op.destroy_map.values()):
                return True
        return False

    def unfuse(self, node: Apply) -> bool:
        """``gpu.local_elemwise_fusion=False``: a fused Composite becomes one node per step."""
        op = node.op
        if not (isinstance(op, Elemwise) and isinstance(op.scalar_op, Composite)):
            return False
        comp = op.scalar_op
        values = list(node.inputs)
        for sop, args, dtype in comp.steps:
            out = Elemwise(sop)(*[values[a] for a in args])
            values.append(out if out.dtype == dtype else cast(out, dtype))
        pairs = [(old, values[r]) for old, r in zip(node.outputs, comp.outputs)]
        return self.replace(pairs, node)

    def move(self, node: Apply) -> bool:
        if not config.gpu.local_elemwise_fusion and self.unfuse(node):
            return True
        impl = impl_for(node.op)
        dev_in, dev_out = impl.placement(node)
        for op in (node.op, _without_inplace(node.op)):
            if op is None:
                break
            inputs = [self.to_device(v) if d else v for v, d in zip(node.inputs, dev_in)]
            # Uploads of destroyed inputs get their own transfer (a fresh copy to overwrite).
            for k, ins in op.destroy_map.items():
                for j in ins:
                    if dev_in[j] and inputs[j] in self.uploads.values() and \
                            inputs[j].owner is not None and \
                            isinstance(inputs[j].owner.op, GpuFromHost):
                        inputs[j] = GpuFromHost()(node.inputs[j])
            new_node = make_gpu_op(op, dev_in, dev_out).make_node(*inputs)
            pairs = []
            for old, new, d in zip(node.outputs, new_node.outputs, dev_out):
                copy_stack_trace(old, new)
                pairs.append((old, host_from_gpu(new) if d else new))
            if self.replace(pairs, node):
                self.moved += 1
                return True
        return False

    def replace(self, pairs: list, node: Apply | None) -> bool:
        if self.ctx is not None:
            return self.ctx.apply_replacements(self.fgraph, pairs, self.rewriter, node)
        return replace_validate(self.fgraph, pairs, reason="gpu_transfer")

    def seed_inputs(self) -> None:
        """Read every array input through ``HostFromGpu(GpuFromHost(x))`` so that the nodes
        using it move (Theano's ``InputToGpuOptimizer``); unused round trips are removed at the
        end."""
        fgraph = self.fgraph
        for var in list(fgraph.inputs):
            if not (isinstance(var.type, TensorType) and var.type.ndim > 0
                    and var.type.dtype in SUPPORTED_DTYPES):
                continue
            clients = [(c, i) for c, i in fgraph.clients.get(var, []) if c != "output"
                       and not isinstance(c.op, GpuFromHost)]
            if not clients:
                continue
            host = HostFromGpu()(self.to_device(var))  # (host_from_gpu would cancel it)
            for client, i in clients:
                fgraph.change_node_input(client, i, host, reason="gpu_transfer_inputs")

    def run(self) -> None:
        fgraph = self.fgraph
        self.seed_inputs()
        for _ in range(8):
            changed = False
            for node in fgraph.toposort():
                if node not in fgraph.apply_nodes or not wants_gpu(fgraph, node):
                    continue
                if all(_is_host_index(v) for v in node.inputs + node.outputs
                       if not _on_device(v)) and not any(_on_device(v) for v in node.inputs):
                    continue
                reason = why_not(node)
                if reason is not None:
                    self.stuck.setdefault(str(node.op), reason)
                    continue
                if not any(_on_device(v) for v in node.inputs) and \
                        not any(impl_for(node.op).placement(node)[1]):
                    continue  # e.g. the shape of a host array: nothing to gain there
                if self.move(node):
                    changed = True
                else:
                    self.stuck.setdefault(str(node.op), "the destroy handler rejected the "
                                          "GPU version")
            if not changed:
                break
        self.cancel_round_trips()
        stuck = {}
        for node in fgraph.apply_nodes:
            if not isinstance(node.op, (GpuOp, GpuFromHost, HostFromGpu)) and \
                    wants_gpu(fgraph, node):
                op = str(node.op)
                stuck[op] = self.stuck.get(op) or why_not(node) or "not moved"
        if stuck:
            report_cpu_ops(stuck)

    def cancel_round_trips(self) -> None:
        fgraph = self.fgraph
        for node in list(fgraph.toposort()):
            if node not in fgraph.apply_nodes:
                continue
            src = node.inputs[0]
            if isinstance(node.op, GpuFromHost) and _on_device(src):
                self.replace([(node.outputs[0], src.owner.inputs[0])], node)
            elif isinstance(node.op, HostFromGpu) and src.owner is not None and \
                    isinstance(src.owner.op, GpuFromHost):
                self.replace([(node.outputs[0], src.owner.inputs[0])], node)


def report_cpu_ops(stuck: dict[str, str]) -> None:
    """Apply ``assert_no_cpu_op`` to the ops that stayed on the CPU (each reported once)."""
    lines = [f"{op}: {why}" for op, why in sorted(stuck.items())]
    action = config.assert_no_cpu_op
    if action == "raise":
        raise CpuOpInGpuGraph("assert_no_cpu_op=raise: these ops of a GPU graph run on the CPU "
                              "(with transfers): " + "; ".join(lines))
    if action == "pdb":
        import pdb

        print("assert_no_cpu_op=pdb: ops running on the CPU:\n" + "\n".join(lines))
        pdb.set_trace()
        return
    fresh = [line for line in lines if line not in _reported]
    if not fresh:
        return
    _reported.update(fresh)
    msg = ("jitgraph: these ops have no GPU implementation and run on the CPU, with transfers "
           "to and from the GPU: " + "; ".join(fresh))
    if action == "warn":
        warnings.warn(msg, stacklevel=2)
    else:
        _logger.warning(msg)


def move_to_gpu(fgraph: FunctionGraph, ctx: Any = None, rewriter: Any = None) -> Mover:
    """Move ``fgraph`` to the GPU (the caller checked that one is in use)."""
    mover = Mover(fgraph, ctx, rewriter)
    mover.run()
    return mover


def is_constant_upload(var: Variable) -> bool:
    return (var.owner is not None and isinstance(var.owner.op, GpuFromHost)
            and isinstance(var.owner.inputs[0], Constant))
