"""Shape inference (a ShapeFeature over every op's infer_shape), static resolution of
shape(x), and the alloc rewrites.

:class:`ShapeFeature` keeps, for every variable of a FunctionGraph, a tuple of int64 0-d variables
(its symbolic shape) computed from each op's ``infer_shape``. Ops without one (or raising
``NotImplementedError``, or giving ``None`` for one output) silently get ``Shape_i`` nodes,
computed at run time; any other failure
is reported through :func:`~jitgraph.rewrite.context.shape_error` (``config.on_shape_error``:
warn and fall back, or raise). It is attached by the ``ShapeOpt`` pass (position 0.1, tags
fast_run and fast_compile), or on demand by :func:`get_shape_feature`, and removed by
``UnShapeOpt`` at position 10 so that the compiled graph carries no bookkeeping.

The symbolic shapes are graphs of their own, mostly outside the FunctionGraph. When a rewrite
replaces a variable, every stored shape that mentioned it is rebuilt on the replacement, so the
rewrites below never re-import computations that the graph no longer has.

Rewrites (canonicalize unless noted):

* ``local_shape_i``: ``Shape_i(i)(x)`` -> the inferred dim (``x.shape[0]`` of an ``alloc`` is
  its size argument; of ``x + y`` it is the dim of ``x`` or ``y``).
* ``local_shape_to_shape_i``: ``Shape(x)`` -> ``make_vector`` of the inferred dims, when some
  of them are known better than by ``Shape_i(x)`` itself.
* ``local_subtensor_of_shape``: ``shape(x)[i]`` and ``make_vector(...)[i]`` -> the element.
* ``local_useless_specify_shape``: a ``SpecifyShape`` whose dims are provably the input's.
* ``local_useless_alloc``: ``alloc(x, *shape)`` when ``x`` already has that type and shape;
  ``alloc(alloc(x, ...), ...)`` -> one alloc.
* ``local_remove_specify_shape`` (tag ``unsafe`` only): drops every SpecifyShape that does not
  change a type; the ``unsafe`` level thereby drops the run-time shape checks.
* ``local_fill_to_alloc`` (specialize): ``second(model, v)`` -> ``alloc(v, *shape(model))``.
* ``local_alloc_elemwise`` (specialize): an elementwise input ``alloc(v, *shape)`` that another
  input already gives the shape of is replaced by ``v`` (broadcast). When the shapes are not
  provably equal, a ``SpecifyShape`` keeps the run-time check, unless
  ``config.experimental.local_alloc_elemwise_assert`` is False. When the alloc is the only
  input with a shape (``-alloc(v, n)``, ``alloc(v, n) * 2``), the op is applied to ``v`` and
  the result allocated: ``alloc(-v, n)``.
* ``local_dimshuffle_alloc`` (specialize): ``alloc(v, n)[:, None]`` -> ``alloc(v[:, None], n, 1)``.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import Feature, FunctionGraph
from jitgraph.rewrite.context import RewriteContext, shape_error
from jitgraph.rewrite.engine import GraphRewriter, node_rewriter
from jitgraph.rewrite.phases import (optdb, register_canonicalize, register_specialize,
                                     register_useless)
from jitgraph.tensor.rewriting.shape_leaves import LeafIndex
from jitgraph.tensor.rewriting.utils import (broadcast_like, elemwise_of, get_constant, same_dim,
                                             scalar_op_name)
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.basic import Alloc, MakeVector, alloc, make_vector
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.elementwise.elemwise import DimShuffle, Elemwise, dimshuffle
from jitgraph.tensor.elementwise.math import cast
from jitgraph.tensor.shaping.shape import (Reshape, Shape, Shape_i, SpecifyShape, Unbroadcast,
                                           specify_shape)
from jitgraph.tensor.indexing.subtensor_ops import Subtensor
from jitgraph.rewrite import _flags
from jitgraph.tensor.shaping.dims import _constant_elements

__all__ = ["ShapeFeature", "ShapeOptimizer", "UnShapeOptimizer", "get_shape_feature"]


def _int_const(value: int) -> Variable:
    return constant(np.int64(value))


class ShapeFeature(Feature):
    """Symbolic shapes of every variable of a FunctionGraph (``fgraph.shape_feature``).

    ``shape_of[var]`` is a tuple of 0-d int64 variables; broadcastable dims are the constant 1.
    """

    def __init__(self) -> None:
        self.shape_of: dict[Variable, tuple[Variable, ...]] = {}
        # var -> the variables whose stored shape mentions it (rebuilt when var is replaced)
        self._users: dict[Variable, set[Variable]] = {}
        self._leaf_index = LeafIndex()  # the graph variables each shape expression reads
        self.fgraph: FunctionGraph | None = None
        self._one = _int_const(1)

    # -- feature hooks ------------------------------------------------------------------
    def on_attach(self, fgraph: FunctionGraph) -> None:
        other = getattr(fgraph, "shape_feature", None)
        if other is not None and other is not self:
            raise ValueError("the graph already has a ShapeFeature")
        fgraph.shape_feature = self  # type: ignore[attr-defined]
        self.fgraph = fgraph
        self._leaf_index.clear()
        for node in fgraph.toposort():
            self.on_import(fgraph, node, "on_attach")

    def on_detach(self, fgraph: FunctionGraph) -> None:
        self.shape_of.clear()
        self._users.clear()
        self._leaf_index.clear()
        if getattr(fgraph, "shape_feature", None) is self:
            del fgraph.shape_feature  # type: ignore[attr-defined]
        self.fgraph = None

    def on_import(self, fgraph: FunctionGraph, node: Apply, reason: Any) -> None:
        self._leaf_index.imported(node)
        if all(o in self.shape_of for o in node.outputs):
            return
        self._infer_node(node)

    def on_prune(self, fgraph: FunctionGraph, node: Apply, reason: Any) -> None:
        self._leaf_index.pruned(node)

    def on_change_input(self, fgraph: FunctionGraph, node: Any, i: int, old: Variable,
                        new: Variable, reason: Any) -> None:
        new_shape = self.get_shape(new)
        old_shape = self.shape_of.get(old)
        if old_shape is not None and new_shape is not None and len(old_shape) == len(new_shape):
            # Both describe the same values: where only the old one knows a dim as a constant,
            # keep it. (Not other expressions: they may be computed from ``new`` itself, e.g.
            # reshape(x, x.shape) -> x, and would then make shape(x) depend on shape(x).)
            merged = tuple(o if self._is_runtime_dim(n, new) and isinstance(o, Constant) else n
                           for o, n in zip(old_shape, new_shape))
            if any(m is not n for m, n in zip(merged, new_shape)):
                self._store(new, merged)
        memo: dict[Variable, Variable] = {}  # the users' shapes share most of their graphs
        for user in list(self._users.pop(old, ())):
            shape = self.shape_of.get(user)
            if shape is None:
                continue
            updated = tuple(self._subst(d, old, new, memo) for d in shape)
            if any(u is None for u in updated):
                continue
            if any(u is not d for u, d in zip(updated, shape)):
                self._store(user, updated)

    # -- queries ------------------------------------------------------------------------
    def get_shape(self, var: Variable) -> tuple[Variable, ...]:
        """The symbolic shape of ``var`` (computed now if ``var`` is new; None for a variable
        that is not a tensor)."""
        if var not in self.shape_of:
            if var.owner is not None and not isinstance(var, Constant):
                self._infer_node(var.owner)
            else:
                self._store(var, self._default_shape(var))
        return self.shape_of[var]

    def same_shape(self, x: Variable, y: Variable, dim_x: int | None = None,
                   dim_y: int | None = None) -> bool:
        """True if ``x`` and ``y`` provably have the same shape (or, given ``dim_x`` and
        ``dim_y``, the same length along those dims; IndexError for a dim they lack); False
        also when it cannot be proved."""
        sx, sy = self.get_shape(x), self.get_shape(y)
        if sx is None or sy is None:
            return False
        if dim_x is not None or dim_y is not None:
            sx, sy = (sx[dim_x],), (sy[dim_y],)
        return len(sx) == len(sy) and all(same_dim(a, b) for a, b in zip(sx, sy))

    def _default_shape(self, var: Variable) -> tuple[Variable, ...] | None:
        if not hasattr(var.type, "broadcastable"):
            # not a tensor: a type with a shape (sparse matrices) says how to read it
            symbolic_shape = getattr(var.type, "symbolic_shape", None)
            shape = None if symbolic_shape is None else symbolic_shape(var)
            return None if shape is None else tuple(shape)
        if isinstance(var, Constant):
            return tuple(self._one if b else _int_const(n)
                         for b, n in zip(var.broadcastable, np.shape(var.data)))
        return tuple(self._one if b else Shape_i(d).make_node(var).outputs[0]
                     for d, b in enumerate(var.broadcastable))

    @staticmethod
    def _is_runtime_dim(dim: Variable, var: Variable) -> bool:
        """True for the fallback ``Shape_i(d)(var)``: a dim only known by running the graph."""
        return (dim.owner is not None and isinstance(dim.owner.op, Shape_i)
                and dim.owner.inputs[0] is var)

    def _infer_node(self, node: Apply) -> None:
        in_shapes = [self.get_shape(i) for i in node.inputs]
        shapes: Sequence[Sequence[Any]] | None
        try:
            shapes = node.op.infer_shape(self.fgraph, node, in_shapes)
            if shapes is not None:
                # None for one output: its size is known only once computed (run time)
                shapes = [self._default_shape(o) if s is None else self._normalize(o, s)
                          for o, s in zip(node.outputs, shapes)]
                if len(shapes) != len(node.outputs):
                    raise ValueError(f"infer_shape returned {len(shapes)} shapes for "
                                     f"{len(node.outputs)} outputs")
        except NotImplementedError:
            shapes = None
        except Exception as exc:
            # With a shapeless (non-tensor) input the op may legitimately not cope; otherwise
            # this is a bug in infer_shape: report it, then fall back to run-time shapes.
            if all(s is not None for s in in_shapes):
                shape_error(node, exc)
            shapes = None
        for k, out in enumerate(node.outputs):
            self._store(out, shapes[k] if shapes is not None else self._default_shape(out))

    def _normalize(self, out: Variable, shape: Sequence[Any]) -> tuple[Variable, ...] | None:
        broadcastable = getattr(out.type, "broadcastable", None)
        if broadcastable is None:
            if not hasattr(out.type, "symbolic_shape"):
                return None
            broadcastable = (False,) * out.ndim
        if len(shape) != out.ndim:
            raise ValueError(f"infer_shape gave {len(shape)} dims for the {out.ndim}-d {out}")
        dims = []
        for b, d in zip(broadcastable, shape):
            if b:
                dims.append(self._one)
                continue
            if isinstance(d, (int, np.integer)) and not isinstance(d, (bool, np.bool_)):
                dims.append(_int_const(int(d)))
                continue
            d = as_tensor_variable(d)
            if d.ndim != 0 or not dt.is_discrete(d.dtype):
                raise TypeError(f"infer_shape gave the dim {d} ({d.type}) for {out}")
            if isinstance(d, Constant):
                dims.append(_int_const(int(d.data)))
            else:
                dims.append(d if d.dtype == "int64" else cast(d, "int64"))
        return tuple(dims)

    def _store(self, var: Variable, shape: tuple[Variable, ...] | None) -> None:
        self.shape_of[var] = shape  # type: ignore[assignment]
        for leaf in self._leaves(shape or ()):
            self._users.setdefault(leaf, set()).add(var)

    def _leaves(self, shape: Sequence[Variable]) -> set[Variable]:
        """The graph variables a stored shape refers to (stopping at the graph)."""
        fg_vars = self.fgraph.variables if self.fgraph is not None else set()
        return self._leaf_index.leaves(shape, fg_vars)

    def _subst(self, dim: Variable, old: Variable, new: Variable,
               memo: dict[Variable, Variable]) -> Variable:
        """``dim`` rebuilt with ``old`` replaced by ``new`` (Shape_i(old) by new's dim)."""
        if dim is old:
            return new
        if dim in memo:
            return memo[dim]
        node = dim.owner
        fg_vars = self.fgraph.variables if self.fgraph is not None else set()
        if node is None or isinstance(dim, Constant):
            result = dim
        elif isinstance(node.op, Shape_i) and node.inputs[0] is old and \
                self.get_shape(new) is not None:
            result = self.get_shape(new)[node.op.i]
        elif dim in fg_vars:
            result = dim  # the graph's own nodes are rewired by the replacement itself
        else:
            inputs = [self._subst(i, old, new, memo) for i in node.inputs]
            if all(a is b for a, b in zip(inputs, node.inputs)):
                result = dim
            else:
                result = node.clone_with_new_inputs(inputs).outputs[dim.index]
        memo[dim] = result
        return result


def get_shape_feature(fgraph: FunctionGraph) -> ShapeFeature:
    """The graph's ShapeFeature, attached now if it has none."""
    feature = getattr(fgraph, "shape_feature", None)
    if feature is None:
        feature = ShapeFeature()
        fgraph.attach_feature(feature)
    return feature


class ShapeOptimizer(GraphRewriter):
    """Attaches a :class:`ShapeFeature` (the rewrites of later phases use it)."""

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        get_shape_feature(fgraph)

    def apply(self, fgraph: FunctionGraph, ctx: RewriteContext) -> None:
        get_shape_feature(fgraph)


class UnShapeOptimizer(GraphRewriter):
    """Removes the ShapeFeature once the shape-based rewrites are done."""

    def apply(self, fgraph: FunctionGraph, ctx: RewriteContext) -> None:
        feature = getattr(fgraph, "shape_feature", None)
        if feature is not None:
            fgraph.remove_feature(feature)


optdb.register("ShapeOpt", ShapeOptimizer("ShapeOpt"), "fast_run", "fast_compile", position=0.1)
optdb.register("UnShapeOpt", UnShapeOptimizer("UnShapeOpt"), "fast_run", "fast_compile",
               position=10)


# ---------------------------------------------------------------------------------------------
# Static shapes

def _runtime_dim(fgraph: FunctionGraph, x: Variable, i: int, dim: Variable) -> bool:
    return ShapeFeature._is_runtime_dim(dim, x)


@register_canonicalize
@node_rewriter([Shape_i])
def local_shape_i(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``Shape_i(i)(x)`` -> the inferred dim of ``x`` (a constant, or a simpler expression)."""
    x = node.inputs[0]
    dim = get_shape_feature(fgraph).get_shape(x)[node.op.i]
    if _runtime_dim(fgraph, x, node.op.i, dim) or dim is node.outputs[0]:
        return None
    return [dim]


@register_canonicalize
@node_rewriter([Shape])
def local_shape_to_shape_i(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``Shape(x)`` -> ``make_vector(dims)`` when some dim is known without running ``x``."""
    x = node.inputs[0]
    dims = get_shape_feature(fgraph).get_shape(x)
    if x.ndim == 0:
        return [constant(np.zeros(0, dtype="int64"))]
    if all(_runtime_dim(fgraph, x, i, d) for i, d in enumerate(dims)):
        return None
    if all(isinstance(d, Constant) for d in dims):
        return [constant(np.asarray([int(d.data) for d in dims], dtype="int64"))]
    return [broadcast_like(make_vector(*dims, dtype="int64"), node.outputs[0], fgraph)]


def _through_unbroadcast(v: Variable) -> Variable:
    while v.owner is not None and isinstance(v.owner.op, Unbroadcast):
        v = v.owner.inputs[0]
    return v


@register_canonicalize
@node_rewriter([Subtensor])
def local_subtensor_of_shape(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``shape(x)[i]`` -> dim ``i`` of ``x``; ``make_vector(a, b, ...)[i]`` -> that element;
    constant slices of a ``make_vector`` -> a shorter ``make_vector``."""
    vec = _through_unbroadcast(node.inputs[0])
    if vec.owner is None or not isinstance(vec.owner.op, (Shape, MakeVector)):
        return None
    idx = [get_constant(i) for i in node.inputs[1:]]
    if any(i is None for i in idx):
        return None
    out = node.outputs[0]
    if isinstance(vec.owner.op, Shape):
        elems = list(get_shape_feature(fgraph).get_shape(vec.owner.inputs[0]))
    else:
        elems = list(vec.owner.inputs)
    if node.op.idx_list == ("int",):
        i = int(idx[0])
        if not -len(elems) <= i < len(elems):
            return None
        return [broadcast_like(elems[i], out, fgraph)]
    if len(node.op.idx_list) == 1 and isinstance(node.op.idx_list[0], tuple):
        it = iter(int(i) for i in idx)
        bounds = [next(it) if has else None for has in node.op.idx_list[0][1:]]
        picked = elems[slice(*bounds)]
        if not picked:
            return None
        return [broadcast_like(make_vector(*picked, dtype=out.dtype), out, fgraph)]
    return None


def _dims_match(fgraph: FunctionGraph, x: Variable, wanted: Sequence[Variable | None]) -> bool:
    """True if every given dim in ``wanted`` is provably the length of ``x`` along it."""
    shape = get_shape_feature(fgraph).get_shape(x)
    return all(w is None or same_dim(s, w) for s, w in zip(shape, wanted))


def _specified(node: Apply) -> list[Variable | None]:
    it = iter(node.inputs[1:])
    return [next(it) if k else None for k in node.op.known]


@register_useless
@register_canonicalize
@node_rewriter([SpecifyShape])
def local_useless_specify_shape(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``specify_shape(x, dims)`` -> ``x`` when ``x`` provably has those dims already."""
    x = node.inputs[0]
    if x.type != node.outputs[0].type:
        return None
    if not _dims_match(fgraph, x, _specified(node)):
        return None
    return [x]


@register_specialize("unsafe")  # again after local_alloc_elemwise adds its checks
@register_canonicalize("unsafe")
@node_rewriter([SpecifyShape])
def local_remove_specify_shape(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """(unsafe) Drop a SpecifyShape run-time check that does not change the type."""
    x = node.inputs[0]
    if x.type != node.outputs[0].type:
        return None
    return [x]


@register_useless
@register_canonicalize
@node_rewriter([Alloc])
def local_useless_alloc(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``alloc(x, *dims)`` -> ``x`` when ``x`` already has the output's type and those dims;
    ``alloc(alloc(v, ...), *dims)`` -> ``alloc(v, *dims)``."""
    value, *dims = node.inputs
    out = node.outputs[0]
    if value.owner is not None and isinstance(value.owner.op, Alloc):
        return [alloc(value.owner.inputs[0], *dims)]
    if value.type != out.type:
        return None
    if not _dims_match(fgraph, value, dims):
        return None
    return [value]


@register_useless
@register_canonicalize
@node_rewriter([Reshape])
def local_useless_reshape(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``reshape(x, shp)`` -> ``x`` when ``shp`` is provably ``x``'s shape;
    ``reshape(reshape(x, a), b)`` -> ``reshape(x, b)``."""
    x, shp = node.inputs
    out = node.outputs[0]
    if x.owner is not None and isinstance(x.owner.op, Reshape):
        return [node.op(x.owner.inputs[0], shp)]
    if x.ndim != node.op.ndim or x.type != out.type:
        return None

    known = _constant_elements(shp)
    if len(known) != x.ndim:
        return None
    if shp.owner is not None and isinstance(shp.owner.op, MakeVector):
        wanted: list[Any] = list(shp.owner.inputs)
    elif shp.owner is not None and isinstance(shp.owner.op, Shape) and shp.owner.inputs[0] is x:
        return [x]
    else:
        wanted = [None if k is None else _int_const(k) for k in known]
        if any(w is None for w in wanted):
            return None
    shape = get_shape_feature(fgraph).get_shape(x)
    for d, (s, w) in enumerate(zip(shape, wanted)):
        if same_dim(s, w):
            continue
        if w.owner is not None and isinstance(w.owner.op, Shape_i) and w.owner.op.i == d \
                and w.owner.inputs[0] is x:
            continue
        return None
    return [x]


# ---------------------------------------------------------------------------------------------
# fill and alloc inside elementwise graphs

@register_specialize
@node_rewriter([Elemwise], op_test=elemwise_of("second"))
def local_fill_to_alloc(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``second(model, v)`` -> ``alloc(v, *shape(model))`` (or ``v`` when it already has the
    shape): an explicit allocation that ``local_alloc_elemwise`` can then remove."""
    if scalar_op_name(node) != "second":
        return None
    model, value = node.inputs
    out = node.outputs[0]
    feature = get_shape_feature(fgraph)
    mshape, vshape = feature.get_shape(model), feature.get_shape(value)
    if value.type == out.type and all(
            model.broadcastable[d] or same_dim(mshape[d], vshape[d]) for d in range(out.ndim)):
        return [value]
    dims = []
    for d in range(out.ndim):
        if out.broadcastable[d]:
            dims.append(_int_const(1))
        else:
            dims.append(mshape[d] if not model.broadcastable[d] else vshape[d])
    return [broadcast_like(alloc(value, *dims), out, fgraph)]


def _alloc_view(var: Variable) -> tuple[Variable, list[Variable | None]] | None:
    """``(value padded to var.ndim, dims)`` if ``var`` is an alloc (possibly with broadcastable
    axes added by a DimShuffle); a dim is None where ``var`` is broadcastable."""
    pattern: list[Any] | None = None
    a = var
    if a.owner is not None and isinstance(a.owner.op, DimShuffle):
        order = a.owner.op.new_order
        kept = [o for o in order if o != "x"]
        if kept != sorted(kept) or a.owner.op.drop:
            return None
        pattern = list(order)
        a = a.owner.inputs[0]
    if a.owner is None or not isinstance(a.owner.op, Alloc):
        return None
    value, *adims = a.owner.inputs
    value = dimshuffle(value, ["x"] * (a.ndim - value.ndim) + list(range(value.ndim)))
    if pattern is not None:
        value = dimshuffle(value, pattern)
        dims: list[Variable | None] = [None if o == "x" else adims[o] for o in pattern]
    else:
        dims = list(adims)
    dims = [None if b else d for d, b in zip(dims, var.broadcastable)]
    return value, dims


@register_specialize
@node_rewriter([DimShuffle])
def local_dimshuffle_alloc(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``dimshuffle(alloc(v, *dims))`` that only inserts axes -> ``alloc(v', *dims with 1s)``,
    so that the alloc meets the elementwise op using it."""
    view = _alloc_view(node.outputs[0])
    if view is None or node.inputs[0].owner is None:
        return None
    value, dims = view
    new = alloc(value, *[_int_const(1) if d is None else d for d in dims])
    if new.type != node.outputs[0].type:
        return None
    return [new]


def _alloc_assert_enabled() -> bool:
    try:
        return bool(_flags.flag("experimental.local_alloc_elemwise_assert"))
    except (KeyError, AttributeError):
        return True


@register_specialize
@node_rewriter([Elemwise])
def local_alloc_elemwise(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """An input ``alloc(v, *dims)`` of an elementwise op -> ``v`` (broadcast), when the other
    inputs give the output its shape. A SpecifyShape on the input giving each dim checks it
    against ``dims`` at run time unless that is provable (or the check is disabled)."""
    if len(node.outputs) != 1 or node.op.destroy_map:
        return None
    out = node.outputs[0]
    feature = get_shape_feature(fgraph)
    for k, inp in enumerate(node.inputs):
        view = _alloc_view(inp)
        if view is None:
            continue
        value, dims = view
        vshape = feature.get_shape(value)
        # The value's own non-broadcastable dims must already be the alloc's; otherwise the
        # alloc was stretching a length-1 axis that the type does not call broadcastable.
        if any(d is not None and not value.broadcastable[i] and not same_dim(vshape[i], d)
               for i, d in enumerate(dims)):
            continue
        if all(j == k or all(other.broadcastable) for j, other in enumerate(node.inputs)):
            # The alloc alone gives the shape: compute on the small value, allocate after.
            new_inputs = [value if j == k else other for j, other in enumerate(node.inputs)]
            inner = node.op(*new_inputs)
            full = [d if d is not None else _int_const(1) for d in dims]
            new_out = alloc(inner, *full)
            if new_out.type == out.type:
                return [new_out]
            continue
        checks: dict[int, list[Variable | None]] = {}
        ok = True
        for d, size in enumerate(dims):
            if size is None or not value.broadcastable[d]:
                continue
            providers = [j for j, other in enumerate(node.inputs)
                         if j != k and not other.broadcastable[d]]
            if not providers:
                ok = False
                break
            proven = [j for j in providers
                      if same_dim(feature.get_shape(node.inputs[j])[d], size)]
            if proven:
                continue
            j = providers[0]
            checks.setdefault(j, [None] * out.ndim)[d] = size
        if not ok:
            continue
        new_inputs = list(node.inputs)
        new_inputs[k] = value
        if checks and _alloc_assert_enabled():
            for j, wanted in checks.items():
                new_inputs[j] = specify_shape(new_inputs[j], wanted)
        new_out = node.op(*new_inputs)
        if new_out.type != out.type:
            continue
        return [new_out]
    return None
