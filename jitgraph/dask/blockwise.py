"""``map_blocks``: a compiled function applied to Dask arrays chunk by chunk.

The arguments that are Dask arrays are *chunked* along one axis (the rows); every other
argument (a parameter: a NumPy array, a number) is the same for every block and travels once
to each worker. What each output becomes is read off the graph the function was built from
(:mod:`jitgraph.dask.locality`): a row-local output is a Dask array with the chunks of the
inputs; a sum, product, maximum, minimum, all/any or mean over the chunked axis is computed per
block and combined by Dask's tree reduction; an output that does not depend on the chunks is
taken from the first block. The output shapes and dtypes come from shape inference
(:mod:`jitgraph.dask.block_shapes`), not from a trial call.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from jitgraph.compile.function_call import Function
from jitgraph.compile.givens import Substitution, normalize_givens
from jitgraph.dask.block_shapes import ShapeInference
from jitgraph.dask.locality import (FREE, Entangled, NotBlockwiseError, Reduced, Rows,
                                    analyse_outputs)
from jitgraph.dask.workers import ShippedFunction, run_block, ship
from jitgraph.graph.basic import graph_inputs
from jitgraph.graph.shared import SharedVariable

__all__ = ["map_blocks", "BlockwisePlan", "plan_blocks"]


@dataclass
class BlockwisePlan:
    """How each output of a function is assembled from its blocks: ``states[k]`` is
    :class:`Rows` (concatenated), :class:`Reduced` (combined) or FREE (the first block's)."""

    function: Any
    states: list[Any]
    shapes: ShapeInference
    names: list[str]
    dtypes: list[str]
    shared: list  # the shared variables the graph reads (their values' shapes are used)


def _user_graph(function: Any) -> tuple[list, list, list]:
    """(explicit inputs, outputs, shared variables) of the graph the user wrote, givens applied:
    the rewritten graph has fused and specialised ops, the user's has the ops the locality
    rules know."""
    maker = function.maker
    explicit = [i.variable for i in maker.inputs]
    givens = maker._original[3]
    outputs = Substitution(normalize_givens(givens, explicit))(
        [o.variable for o in maker.outputs])
    shared = [v for v in graph_inputs(outputs)
              if isinstance(v, SharedVariable) and v not in explicit]
    return explicit, outputs, shared


def plan_blocks(function: Any, chunked: Sequence[bool], axis: int = 0) -> BlockwisePlan:
    """Analyse ``function`` for blockwise evaluation with the inputs flagged in ``chunked``
    split along ``axis``; raises :class:`NotBlockwiseError` naming an output that cannot be."""
    if not isinstance(function, Function):
        raise TypeError(f"map_blocks needs a compiled jitgraph function (jitgraph.function(...)),"
                        f" got {type(function).__name__}")
    maker = function.maker
    if maker.updates or maker.input_updates:
        updated = [str(v) for v, _ in maker.updates] or ["In(update=...) inputs"]
        raise ValueError(
            f"function {function.name} updates {', '.join(updated)}: updates would happen on the "
            "workers' copies and be lost. Apply it to blocks without its updates "
            "(f.copy(delete_updates=True)), or train with jitgraph.dask.DataParallelSGD")
    if len(chunked) != len(maker.inputs):
        raise TypeError(f"function {function.name} takes {len(maker.inputs)} inputs, "
                        f"map_blocks got {len(chunked)} arguments")
    if not any(chunked):
        raise ValueError("map_blocks needs at least one Dask array argument (the chunked "
                         "data); the others are passed whole to every block")
    explicit, outputs, shared = _user_graph(function)
    states = analyse_outputs(explicit, outputs, chunked, axis)
    for k, (out, state) in enumerate(zip(outputs, states)):
        if isinstance(state, Entangled):
            raise NotBlockwiseError(
                f"output {k} ({out.name or out}) of function {function.name} cannot be computed "
                f"chunk by chunk along axis {axis}: {state.reason}. Blockwise outputs keep the "
                "chunked axis (elementwise math, a dot with parameters, row-wise softmax...) or "
                "are a sum, prod, max, min, all, any or mean over it")
    shapes = ShapeInference(explicit + shared, outputs)
    return BlockwisePlan(function, states, shapes, [o.name or f"output{k}" for k, o in
                                                    enumerate(outputs)],
                         [o.dtype for o in outputs], shared)


def map_blocks(function: Any, *args: Any, axis: int = 0, split_every: int | None = None
               ) -> Any:
    """Apply the compiled ``function`` to Dask arrays block by block.

    ``args`` are the function's inputs, in order: Dask arrays are split along ``axis`` (all
    into the same row chunks: the first one's; other axes become one chunk), other values are
    given whole to every block. Returns a Dask array per output (a single one when the function
    has a single output): row-local outputs keep the row chunks; reductions over the rows
    (sum, prod, max, min, all, any, mean) are reduced across blocks by Dask's tree reduction
    (``split_every`` blocks at a time); outputs that depend on no chunked input are computed
    on the first block. The function is pickled once, compiled once per worker at its first
    block, and a block that fails raises :class:`~jitgraph.dask.workers.BlockError` naming the
    block, its rows and the worker.
    """
    import dask.array as da

    chunked = [isinstance(a, da.Array) for a in args]
    plan = plan_blocks(function, chunked, axis)
    arrays = _aligned_arrays(function, args, chunked, axis)
    return _Builder(plan, ship(function), args, arrays, chunked, axis, split_every).outputs()


def _aligned_arrays(function: Any, args: Sequence[Any], chunked: Sequence[bool], axis: int
                    ) -> list:
    """The chunked arguments rechunked to the first one's chunks along ``axis`` and to one
    chunk along every other axis."""
    first = next(a for a, c in zip(args, chunked) if c)
    rows = first.chunks[axis]
    result = []
    inputs = function.maker.inputs
    for k, (a, c) in enumerate(zip(args, chunked)):
        if not c:
            result.append(None)
            continue
        if a.ndim <= axis:
            raise ValueError(f"argument {k} ({inputs[k].name or inputs[k].variable}) is a "
                             f"{a.ndim}-d Dask array: it has no axis {axis} to chunk along")
        if a.shape[axis] != first.shape[axis]:
            raise ValueError(
                f"argument {k} ({inputs[k].name or inputs[k].variable}) has {a.shape[axis]} "
                f"rows along axis {axis}, the first chunked argument has {first.shape[axis]}: "
                "every chunked argument is split into the same row blocks")
        wanted = {d: (rows if d == axis else -1) for d in range(a.ndim)}
        if any(a.chunks[d] != (rows if d == axis else (a.shape[d],)) for d in range(a.ndim)):
            a = a.rechunk(wanted)
        result.append(a)
    return result


class _Builder:
    """Builds the Dask graph: one task per block calling the function, then one Dask array
    per output on top of those tasks."""

    def __init__(self, plan: BlockwisePlan, shipped: ShippedFunction, args: Sequence[Any],
                 arrays: list, chunked: Sequence[bool], axis: int,
                 split_every: int | None) -> None:
        from dask.base import tokenize

        self.plan, self.shipped, self.axis, self.split_every = plan, shipped, axis, split_every
        self.arrays = [a for a in arrays if a is not None]
        first = self.arrays[0]
        self.rows = first.chunks[axis]
        self.offsets = np.concatenate([[0], np.cumsum(self.rows)]).astype(int)
        token = tokenize(shipped.token, [a.name if a is not None else tokenize(v)
                                         for a, v in zip(arrays, args)], axis)
        self.name = f"jitgraph-{_safe(shipped.name)}-{token}"
        self.fn_key = f"jitgraph-function-{shipped.token}"
        self.layer: dict = {self.fn_key: shipped}
        operands = []
        for a, value, c in zip(arrays, args, chunked):
            if c:
                operands.append(a)
                continue
            if isinstance(value, (list, tuple)):
                value = np.asarray(value)  # a tuple in a Dask graph would read as a task
            key = f"jitgraph-argument-{tokenize(value)}"
            self.layer[key] = value
            operands.append(key)
        self._block_tasks(operands, chunked)
        self._shapes = self._infer_shapes(args, chunked, arrays)

    # -- the block tasks --------------------------------------------------------------------
    def _block_key(self, array: Any, block: int) -> tuple:
        index = [0] * array.ndim
        index[self.axis] = block
        return (array.name, *index)

    def _block_tasks(self, operands: list, chunked: Sequence[bool]) -> None:
        for i in range(len(self.rows)):
            task_args = [self._block_key(op, i) if c else op for op, c in zip(operands, chunked)]
            self.layer[(self.name, i)] = (run_block, self.fn_key, i, int(self.offsets[i]),
                                          int(self.offsets[i + 1]), *task_args)

    # -- shapes ---------------------------------------------------------------------------
    def _infer_shapes(self, args: Sequence[Any], chunked: Sequence[bool], arrays: list
                      ) -> dict[int, list[tuple[int, ...]]]:
        """Output shapes per distinct block length (usually one or two lengths)."""
        shared = [tuple(np.shape(v.get_value(borrow=True))) for v in self.plan.shared]
        by_length: dict[int, list[tuple[int, ...]]] = {}
        for n in set(self.rows):
            shapes = []
            for a, value, c in zip(arrays, args, chunked):
                if c:
                    shape = list(a.shape)
                    shape[self.axis] = n
                    shapes.append(tuple(shape))
                else:
                    shapes.append(tuple(np.shape(value)))
            out_shapes = self.plan.shapes.evaluate(shapes + shared)
            self._check_row_counts(out_shapes, n)
            by_length[n] = out_shapes
        return by_length

    def _check_row_counts(self, out_shapes: list[tuple[int, ...]], n: int) -> None:
        for k, (state, shape) in enumerate(zip(self.plan.states, out_shapes)):
            if isinstance(state, Rows) and shape[state.axis] != n:
                raise NotBlockwiseError(
                    f"output {k} ({self.plan.names[k]}) has {shape[state.axis]} rows along its "
                    f"axis {state.axis} for a block of {n} rows (shape inference): it is not "
                    "row by row")

    # -- the outputs ------------------------------------------------------------------------
    def outputs(self) -> Any:
        results = [self._output(k, state) for k, state in enumerate(self.plan.states)]
        return results[0] if self.plan.function.maker.unpack_single else results

    def _graph(self, name: str, layer: dict) -> Any:
        from dask.highlevelgraph import HighLevelGraph

        return HighLevelGraph.from_collections(name, {**self.layer, **layer},
                                               dependencies=self.arrays)

    def _output(self, k: int, state: Any) -> Any:
        import dask.array as da

        dtype = np.dtype(self.plan.dtypes[k])
        shapes = [self._shapes[n][k] for n in self.rows]
        if isinstance(state, Rows):
            name = f"{self.name}-out{k}"
            ndim = len(shapes[0])
            layer = {}
            for i in range(len(self.rows)):
                index = [0] * ndim
                index[state.axis] = i
                layer[(name, *index)] = (operator.getitem, (self.name, i), k)
            chunks = tuple(tuple(s[state.axis] for s in shapes) if d == state.axis
                           else (shapes[0][d],) for d in range(ndim))
            return da.Array(self._graph(name, layer), name, chunks, meta=np.empty((0,) * ndim,
                                                                                  dtype))
        if state is FREE:
            name = f"{self.name}-out{k}"
            shape = shapes[0]
            layer = {(name, *([0] * len(shape))): (operator.getitem, (self.name, 0), k)}
            return da.Array(self._graph(name, layer), name, tuple((n,) for n in shape),
                            meta=np.empty((0,) * len(shape), dtype))
        return self._reduced(k, state, shapes[0], dtype)

    def _reduced(self, k: int, state: Reduced, shape: tuple[int, ...], dtype: np.dtype) -> Any:
        """Per-block values stacked along a new leading axis, reduced by Dask along it."""
        import dask.array as da

        name = f"{self.name}-partial{k}"
        total = float(self.offsets[-1])
        layer = {}
        for i, n in enumerate(self.rows):
            weight = n / total if state.kind == "mean" else None
            layer[(name, i, *([0] * len(shape)))] = (_stacked_partial, (self.name, i), k, weight)
        chunks = ((1,) * len(self.rows),) + tuple((n,) for n in shape)
        partials = da.Array(self._graph(name, layer), name, chunks,
                            meta=np.empty((0,) * (len(shape) + 1), dtype))
        kw = {"axis": 0, "split_every": self.split_every}
        if state.kind in ("sum", "mean"):
            return partials.sum(dtype=dtype, **kw)
        if state.kind == "prod":
            return partials.prod(dtype=dtype, **kw)
        return getattr(partials, state.kind)(**kw)  # max, min, all, any


def _stacked_partial(outputs: tuple, k: int, weight: float | None) -> np.ndarray:
    """Output ``k`` of a block with a leading axis of length 1 (times the block's share of the
    rows for a mean)."""
    value = np.asarray(outputs[k])
    if weight is not None:
        value = (value * weight).astype(value.dtype, copy=False)
    return value[None]


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)[-40:] or "function"
