"""What a Scan op shows of itself, under Theano's names: its inner graph (``inputs``,
``outputs``), the compiled step (``fn``), the parts of an input or output list by role
(``inner_seqs``, ``outer_non_seqs``, ...) and ``var_mappings``, which connects the positions of
the outer and inner inputs and outputs.

The positions are those of jitgraph's layout (:mod:`jitgraph.scan.info`): outer inputs are
``n_steps | sequences | initial buffers | shared states | non-sequences``, in the order of
``outputs_info`` for the recurrent outputs (Theano grouped them by kind and gave each output
that is not fed back an outer input of its own).
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.graph.basic import Apply, Variable


def _listed(value: Any) -> list:
    return list(value.inputs) if isinstance(value, Apply) else list(value)


def _outputs(value: Any) -> list:
    return list(value.outputs) if isinstance(value, Apply) else list(value)


class ScanLayoutViews:
    """Mixed into :class:`~jitgraph.scan.op.Scan` (which has ``info``, ``inner`` and
    ``inner_function``)."""

    info: Any
    inner: Any

    # -- the inner graph --------------------------------------------------------------------
    @property
    def inputs(self) -> list[Variable]:
        """The inner graph's inputs (see :mod:`jitgraph.scan.info` for their order)."""
        return list(self.inner.inputs)

    @property
    def outputs(self) -> list[Variable]:
        """The inner graph's outputs: recurrent, not fed back, shared states, condition."""
        return list(self.inner.outputs)

    @property
    def fn(self) -> Any:
        """The step compiled by this op's mode (``fn.maker.fgraph`` is its rewritten graph)."""
        return self.inner_function()  # type: ignore[attr-defined]

    # -- parts of a list of inner inputs, or of a node's (outer) inputs ---------------------
    def inner_seqs(self, inner_inputs: Sequence[Variable]) -> list[Variable]:
        return list(inner_inputs)[self.info.inner_seqs()]

    def inner_taps(self, inner_inputs: Sequence[Variable]) -> list[Variable]:
        """The taps of every recurrent output, in order."""
        info = self.info
        return list(inner_inputs)[info.n_seqs:info.n_seqs + info.n_rec_taps]

    def inner_shared(self, inner_inputs: Sequence[Variable]) -> list[Variable]:
        return list(inner_inputs)[self.info.inner_shared()]

    def inner_non_seqs(self, inner_inputs: Sequence[Variable]) -> list[Variable]:
        return list(inner_inputs)[self.info.inner_non_seqs()]

    def outer_seqs(self, node_or_inputs: Any) -> list[Variable]:
        return _listed(node_or_inputs)[self.info.outer_seqs()]

    def outer_inits(self, node_or_inputs: Any) -> list[Variable]:
        return _listed(node_or_inputs)[self.info.outer_inits()]

    def outer_shared(self, node_or_inputs: Any) -> list[Variable]:
        return _listed(node_or_inputs)[self.info.outer_shared()]

    def outer_non_seqs(self, node_or_inputs: Any) -> list[Variable]:
        return _listed(node_or_inputs)[self.info.outer_non_seqs()]

    def outer_nitsot_outs(self, node_or_outputs: Any) -> list[Variable]:
        return _outputs(node_or_outputs)[self.info.nit_outputs()]

    def outer_shared_outs(self, node_or_outputs: Any) -> list[Variable]:
        return _outputs(node_or_outputs)[self.info.shared_outputs()]

    # -- positions ----------------------------------------------------------------------------
    @property
    def var_mappings(self) -> dict[str, dict[int, Any]]:
        """Twelve dictionaries ``'<a>_from_<b>'`` (``a``, ``b`` among ``outer_inp``,
        ``inner_inp``, ``inner_out``, ``outer_out``): from a position of ``b`` to the
        positions of ``a`` it corresponds to, a list for the inner ones, one index (-1: none)
        for the outer ones."""
        return _var_mappings(self.info)


def _var_mappings(info: Any) -> dict[str, dict[int, Any]]:
    # per outer input: (inner inputs, inner outputs, outer output or -1)
    rows: list[tuple[list[int], list[int], int]] = [([], [], -1)]
    rows += [([j], [], -1) for j in range(info.n_seqs)]
    for k in range(info.n_rec):
        taps = info.inner_taps(k)
        rows.append((list(range(taps.start, taps.stop)), [k], k))
    for s in range(info.n_shared):
        out = info.shared_outputs().start + s
        rows.append(([info.inner_shared().start + s], [out], out))
    non_seqs = info.inner_non_seqs()
    rows += [([p], [], -1) for p in range(non_seqs.start, non_seqs.stop)]
    n_inner_out = info.n_outer_outputs  # the condition of a do-while loop maps to nothing
    maps: dict[str, dict[int, Any]] = {
        "inner_inp_from_outer_inp": {i: r[0] for i, r in enumerate(rows)},
        "inner_out_from_outer_inp": {i: r[1] for i, r in enumerate(rows)},
        "outer_out_from_outer_inp": {i: r[2] for i, r in enumerate(rows)},
        "outer_inp_from_inner_inp": {}, "inner_out_from_inner_inp": {},
        "outer_out_from_inner_inp": {},
        "outer_inp_from_outer_out": {j: -1 for j in range(info.n_outer_outputs)},
        "inner_inp_from_outer_out": {j: [] for j in range(info.n_outer_outputs)},
        "inner_out_from_outer_out": {j: [j] for j in range(info.n_outer_outputs)},
        "outer_inp_from_inner_out": {j: -1 for j in range(n_inner_out)},
        "inner_inp_from_inner_out": {j: [] for j in range(n_inner_out)},
        "outer_out_from_inner_out": {j: j for j in range(n_inner_out)},
    }
    for i, (inner_in, inner_out, outer_out) in enumerate(rows):
        for p in inner_in:
            maps["outer_inp_from_inner_inp"][p] = i
            maps["inner_out_from_inner_inp"][p] = list(inner_out)
            maps["outer_out_from_inner_inp"][p] = outer_out
        if outer_out >= 0:
            maps["outer_inp_from_outer_out"][outer_out] = i
            maps["inner_inp_from_outer_out"][outer_out] = list(inner_in)
            maps["outer_inp_from_inner_out"][outer_out] = i
            maps["inner_inp_from_inner_out"][outer_out] = list(inner_in)
    return maps
