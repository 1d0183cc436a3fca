"""Loop code for the nodes a native scan loop may contain (see :mod:`.loop_codegen`).

Each emitter takes the writer, the node, the values of its inputs and whether the node is the
same at every step, emits its statements (before the loop when invariant), and returns the
values of its outputs. Views (``DimShuffle``, ``Unbroadcast``, ``Subtensor``) emit nothing but
an index mapping. Anything an emitter cannot write raises ``Unsupported``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from jitgraph.backend_cpu.codegen.loop import LoopWriter, Val, _literal, _loops, scalar_lines
from jitgraph.backend_cpu.codegen.scalar_templates import StageCall, Unsupported, cv
from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.tensor.indexing.index_encoding import index_vars


def _broadcast_shape(lw: LoopWriter, node: Apply, ins: list[Val], ndim: int) -> list[str]:
    shape = []
    for d in range(ndim):
        src = next((v for v, var in zip(ins, node.inputs) if not var.broadcastable[d]), None)
        shape.append("1" if src is None else src.shape[d])
    for v, var in zip(ins, node.inputs):
        for d in range(ndim):
            if not var.broadcastable[d]:
                lw.check(v.shape[d], shape[d], f"{node.op}: input shapes do not match")
    return shape


def _reads(node: Apply, ins: list[Val], idx: list[str]) -> list[str]:
    return [v.read(["0" if var.broadcastable[d] else idx[d] for d in range(len(idx))])
            for v, var in zip(ins, node.inputs)]


def elemwise(lw: LoopWriter, node: Apply, ins: list[Val], invariant: bool) -> list[Val]:
    ndim = node.outputs[0].ndim
    shape = _broadcast_shape(lw, node, ins, ndim)
    idx = [lw.name("i") for _ in range(ndim)]
    lines, res = scalar_lines(lw, node.op.scalar_op, _reads(node, ins, idx),
                              [v.dtype for v in ins], [o.dtype for o in node.outputs],
                              staged=True)
    outs = [lw.new_value(o, shape) for o in node.outputs]
    stores = [f"{lw.target(o, idx)} = {r}" for o, r in zip(outs, res)]
    calls = [line for line in lines if isinstance(line, StageCall)]
    if not calls:
        lw.emit(invariant, _loops(idx, shape, lines + stores))
        return outs
    # whole scratch arrays of the node's shape, by the expression reading their element
    scratch = {name for name, _, _ in lw.plan.scratch}
    whole = {text: v.array for text, v, var in zip(_reads(node, ins, idx), ins, node.inputs)
             if v.array in scratch and v.base is None and not v.prefix and v.shape == shape
             and not any(var.broadcastable) and v.dtype == "float64"}
    whole.update({f"{o.array}[{', '.join(idx)}]": o.array for o in outs
                  if o.array is not None and o.dtype == "float64"})
    lw.emit(invariant, _staged(lw, idx, shape, lines, calls, stores, whole))
    return outs


def _resolve(expr: str, lines: list[Any]) -> str:
    """``expr`` through the plain copies ``name = other`` among ``lines``."""
    copies = dict(line.split(" = ", 1) for line in lines
                  if isinstance(line, str) and " = " in line)
    for _ in range(4):
        if expr not in copies:
            break
        expr = copies[expr]
    return expr


def _staged(lw: LoopWriter, idx: list[str], shape: list[str], lines: list[Any],
            calls: list[StageCall], stores: list[str], whole: dict[str, str]) -> list[str]:
    """An elementwise body whose transcendentals are vecmath block calls: one pass over the
    elements per primitive, storing its arguments into a buffer of the node's size, then the
    block function (vectorized), then a last pass computing the outputs. Each pass repeats
    the arithmetic before its primitive (cheap next to the primitives) instead of keeping
    temporaries; results of earlier primitives are read back from their buffers.

    A primitive of a whole float64 scratch array (``whole``: the read expression -> the
    array) reads it in place, and one whose result is an output as it is writes into the
    output's array: ``tanh(W h + x)`` is the product, then one block call, no copies."""
    size = " * ".join(f"({s})" for s in shape) or "1"
    flat = "0"
    for i, s in zip(idx, shape):
        flat = i if flat == "0" else f"({flat}) * ({s}) + {i}"
    arrays: dict[str, str] = {}  # block buffer (pa0, pr0, ...) -> the array standing for it
    # a buffer standing in a whole array is read by the element's index (``w7[i20, i21]``),
    # not the flat ``ub``, which indexes only 1-d arrays
    elements: dict[str, str] = {}
    direct_args: set[int] = set()
    kept_stores = list(stores)
    for k, call in enumerate(calls):
        arg_line = next(line for line in lines
                        if isinstance(line, str) and line.startswith(f"{call.arg}[ub] = "))
        src = whole.get(arg_line.split(" = ", 1)[1])
        if src is not None:
            arrays[call.arg] = src
            direct_args.add(k)
        res = f"{call.res}[ub]"
        target = next((st for st in kept_stores if _resolve(st.split(" = ", 1)[1], lines) == res
                       and st.split(" = ", 1)[0] in whole), None)
        if target is not None and call.res not in arrays:
            element = target.split(" = ", 1)[0]
            arrays[call.res], elements[call.res] = whole[element], element
            kept_stores.remove(target)
    for call in calls:
        for buf in (call.arg, call.res):
            if buf not in arrays:
                arrays[buf] = lw.name("blk")
                lw.plan.scratch.append((arrays[buf], [size], "float64"))

    def text(line: str) -> str:
        for buf, name in arrays.items():
            line = line.replace(f"{buf}[ub]", elements.get(buf, f"{name}[ub]"))
        return line

    arg_stores = {f"{c.arg}[ub] =": c for c in calls}
    code: list[str] = []
    for k, call in enumerate(calls + [None]):
        stage = ["ub = " + flat]
        for line in lines:
            if line is call:
                break
            if isinstance(line, StageCall):
                continue
            store = next((c for p, c in arg_stores.items() if line.startswith(p)), None)
            if store is None or (store is call and k not in direct_args):
                stage.append(text(line))
        if call is None:
            stage += kept_stores
        # a pass that stores nothing (the argument read in place, the outputs written by
        # the block function) is left out
        if (call is None and kept_stores) or (call is not None and k not in direct_args):
            code += _loops(idx, shape, stage)
        if call is not None:
            code.append(f'block_call("{call.fn}", {arrays[call.arg]}, {arrays[call.res]}, '
                        f'{size})')
    return code


def dimshuffle(lw: LoopWriter, node: Apply, ins: list[Val], invariant: bool) -> list[Val]:
    order, src = node.op.new_order, ins[0]
    shape = ["1" if o == "x" else src.shape[o] for o in order]
    if src.scalar is not None:
        return [Val(src.dtype, shape, scalar=src.scalar)]

    def index_map(idx: list[str]) -> list[str]:
        return [idx[order.index(d)] if d in order else "0" for d in range(src.ndim)]

    return [Val(src.dtype, shape, base=src, index_map=index_map)]


def same_view(lw: LoopWriter, node: Apply, ins: list[Val], invariant: bool) -> list[Val]:
    src = ins[0]
    return [Val(src.dtype, list(src.shape), scalar=src.scalar, base=src,
                index_map=lambda idx: idx) if src.scalar is None else src]


# -- products ---------------------------------------------------------------------------------

def _product(lw: LoopWriter, node: Apply, a: Val, b: Val, alpha: str, beta: str | None,
             z: Val | None, invariant: bool) -> list[Val]:
    """``alpha * a @ b (+ beta * z)`` for 1-d/2-d ``a``, ``b``; ``z`` is not read when
    ``beta`` is 0 (BLAS semantics)."""
    what = str(node.op)
    inner = a.shape[-1]
    lw.check(inner, b.shape[0], f"{what}: shapes are not aligned")
    rows = a.shape[:-1] if a.ndim == 2 else []
    cols = b.shape[1:] if b.ndim == 2 else []
    out = lw.new_value(node.outputs[0], rows + cols)
    if z is not None:
        for d, s in enumerate(out.shape):
            lw.check(z.shape[d], s, f"{what}: the added input has the wrong shape")
    if not invariant:
        lw.plan.work.append(" * ".join(f"({d})" for d in rows + cols + [inner]))
    i, j, k, acc = (lw.name(p) for p in ("i", "j", "k", "acc"))
    oidx = ([i] if rows else []) + ([j] if cols else [])
    a_idx = ([i] if rows else []) + [k]
    b_idx = [k] + ([j] if cols else [])
    target = lw.target(out, oidx)
    body = [f"{acc} = {cv('0', 'int64', out.dtype)}", f"for {k} in range({inner}):",
            f"    {acc} += {a.read(a_idx)} * {b.read(b_idx)}"]
    if z is not None and beta is not None:
        body += [f"if {beta} != 0:", f"    {target} = {alpha} * {acc} + {beta} * {z.read(oidx)}",
                 "else:", f"    {target} = {alpha} * {acc}"]
    else:
        body.append(f"{target} = {alpha} * {acc}")
    lw.emit(invariant, _loops(oidx, out.shape, body))
    return [out]


def dot(lw: LoopWriter, node: Apply, ins: list[Val], invariant: bool) -> list[Val]:
    return _product(lw, node, ins[0], ins[1], "1", None, None, invariant)


def gemv_gemm(lw: LoopWriter, node: Apply, ins: list[Val], invariant: bool) -> list[Val]:
    z, alpha, a, b, beta = ins
    return _product(lw, node, a, b, alpha.read([]), beta.read([]), z, invariant)


def ger(lw: LoopWriter, node: Apply, ins: list[Val], invariant: bool) -> list[Val]:
    a, alpha, x, y = ins
    out = lw.new_array(node.outputs[0], list(a.shape))
    lw.check(a.shape[0], x.shape[0], "Ger: shapes do not match")
    lw.check(a.shape[1], y.shape[0], "Ger: shapes do not match")
    i, j = lw.name("i"), lw.name("j")
    line = (f"{out.read([i, j])} = {a.read([i, j])} + {alpha.read([])} * {x.read([i])} * "
            f"{y.read([j])}")
    lw.emit(invariant, _loops([i, j], out.shape, [line]))
    return [out]


# -- reductions -------------------------------------------------------------------------------

def reduce(lw: LoopWriter, node: Apply, ins: list[Val], invariant: bool) -> list[Val]:
    op = node.op
    sop = op.scalar_op
    if sop.identity is None or sop.name not in ("add", "mul", "maximum", "minimum") \
            or type(op).__name__ in ("All", "Any"):
        raise Unsupported(f"reduction by {sop.name}")
    var = node.outputs[0]
    if op.pre_op is None and len(ins) != 1:
        raise Unsupported("a reduction of several inputs without a scalar op")
    ndim = node.inputs[0].ndim
    shape = _broadcast_shape(lw, node, ins, ndim)
    axes = op.reduced_axes(ndim)
    idx = [lw.name("i") for _ in range(ndim)]
    kept = [d for d in range(ndim) if d not in axes]
    out = lw.new_value(var, [shape[d] for d in kept])
    target = lw.target(out, [idx[d] for d in kept])
    reads = _reads(node, ins, idx)
    lines: list[str] = []
    if op.pre_op is not None:
        pre_lines, (value,) = scalar_lines(lw, op.pre_op, reads, [v.dtype for v in ins],
                                           [_pre_dtype(node)])
        lines += pre_lines
        value_dtype = _pre_dtype(node)
    else:
        value, value_dtype = reads[0], ins[0].dtype
    step, (res,) = scalar_lines(lw, sop, [target, cv(value, value_dtype, var.dtype)],
                                [var.dtype, var.dtype], [var.dtype])
    init = _literal(np.asarray(sop.identity, dtype=var.dtype))
    kept_idx = [idx[d] for d in kept]
    code = _loops(kept_idx, out.shape, [f"{target} = {init}"])
    code += _loops(idx, shape, lines + step + [f"{target} = {res}"])
    lw.emit(invariant, code)
    return [out]


def _pre_dtype(node: Apply) -> str:
    """The dtype of the values a fused reduction folds (its pre-op's output)."""
    return node.op._reduced_input_type(list(node.inputs)).dtype


def softmax(lw: LoopWriter, node: Apply, ins: list[Val], invariant: bool) -> list[Val]:
    x, var = ins[0], node.outputs[0]
    axis = node.op.axis
    if axis is None or x.ndim not in (1, 2) or axis % x.ndim != x.ndim - 1 \
            or x.dtype != "float64":
        raise Unsupported(f"{node.op} other than along the last axis of float64 rows")
    log = type(node.op).__name__ == "LogSoftmax"
    out = lw.new_array(var, list(x.shape))
    rows = x.shape[:-1]
    i, j, mx, tot = (lw.name(p) for p in ("i", "j", "mx", "tot"))
    ridx = [i] if rows else []
    body = [f"{mx} = -math.inf", f"for {j} in range({x.shape[-1]}):",
            f"    {mx} = max({mx}, {x.read(ridx + [j])})", f"{tot} = 0.0",
            f"for {j} in range({x.shape[-1]}):",
            f"    {tot} += math.exp({x.read(ridx + [j])} - {mx})",
            f"for {j} in range({x.shape[-1]}):"]
    if log:
        body.append(f"    {out.read(ridx + [j])} = {x.read(ridx + [j])} - {mx} - math.log({tot})")
    else:
        body.append(f"    {out.read(ridx + [j])} = math.exp({x.read(ridx + [j])} - {mx}) / {tot}")
    lw.emit(invariant, _loops(ridx, rows, body))
    return [out]


# -- allocation and shapes --------------------------------------------------------------------

def alloc(lw: LoopWriter, node: Apply, ins: list[Val], invariant: bool) -> list[Val]:
    value, dims = ins[0], ins[1:]
    if any(not d.invariant for d in dims):
        raise Unsupported("an allocation whose shape changes between steps")
    shape = [d.read([]) for d in dims]
    out = lw.new_value(node.outputs[0], shape)
    idx = [lw.name("i") for _ in shape]
    lead = len(shape) - value.ndim
    src = value.read(["0" if node.inputs[0].broadcastable[d] else idx[lead + d]
                      for d in range(value.ndim)])
    lw.emit(invariant, _loops(idx, shape, [f"{lw.target(out, idx)} = {src}"]))
    return [out]


def shape_i(lw: LoopWriter, node: Apply, ins: list[Val], invariant: bool) -> list[Val]:
    return [Val("int64", [], scalar=ins[0].shape[node.op.i])]


# -- basic indexing ---------------------------------------------------------------------------

def _bound(v: Any) -> int | None:
    if v is None:
        return None
    if not isinstance(v, Constant):
        raise Unsupported("a slice bound computed in the loop")
    return int(v.data)


def _slice(n: str, start: int | None, stop: int | None) -> tuple[str, str]:
    """The first index and the length of ``[start:stop]`` of a dimension of length ``n``."""
    def clamp(c: int) -> str:
        return f"min({c}, {n})" if c >= 0 else f"max({n} - {-c}, 0)"

    first = "0" if start is None else clamp(start)
    end = n if stop is None else clamp(stop)
    return first, f"max({end} - {first}, 0)"


def _index(lw: LoopWriter, node: Apply, src: Val, index_inputs: list[Variable],
           index_vals: list[Val], invariant: bool
           ) -> tuple[list[str], Callable[[list[str]], list[str]]]:
    """The shape of ``src[index]`` and the mapping from its indices to ``src``'s; the index
    is ``node.op.idx_list`` filled with ``index_inputs`` (whose loop values are
    ``index_vals``): the inputs after ``x`` of a Subtensor, after ``x`` and ``y`` of an
    IncSubtensor."""
    entries = index_vars(node.op.idx_list, index_inputs)
    values = dict(zip(index_inputs, index_vals))
    shape: list[str] = []
    parts: list[tuple[str, str]] = []  # ("fixed", expr) or ("range", first)
    for d, (e, v) in enumerate(zip(node.op.idx_list, entries)):
        n = src.shape[d]
        if e == "int":
            q = lw.name("q")
            code = [f"{q} = {values[v].read([])}", f"if {q} < 0:", f"    {q} += {n}",
                    f"if {q} < 0 or {q} >= {n}:",
                    f"    raise IndexError('{node.op}: index out of bounds')"]
            lw.emit(invariant and values[v].invariant, code)
            parts.append(("fixed", q))
        elif isinstance(e, tuple):
            start, stop, step = v
            if _bound(step) not in (None, 1):
                raise Unsupported("a slice with a step")
            first, length = _slice(n, _bound(start), _bound(stop))
            shape.append(length)
            parts.append(("range", first))
        else:
            raise Unsupported(f"index entry {e!r}")
    shape += src.shape[len(parts):]

    def index_map(idx: list[str]) -> list[str]:
        out, it = [], iter(idx)
        for kind, expr in parts:
            out.append(expr if kind == "fixed" else f"{expr} + {next(it)}")
        return out + list(it)

    return shape, index_map


def subtensor(lw: LoopWriter, node: Apply, ins: list[Val], invariant: bool) -> list[Val]:
    src = ins[0]
    shape, index_map = _index(lw, node, src, node.inputs[1:], ins[1:], invariant)
    if not shape and src.scalar is None:
        return [Val(src.dtype, [], scalar=src.read(index_map([])))]
    return [Val(src.dtype, shape, base=src, index_map=index_map)]


def inc_subtensor(lw: LoopWriter, node: Apply, ins: list[Val], invariant: bool) -> list[Val]:
    x, y = ins[0], ins[1]
    if x.ndim == 0:
        raise Unsupported("indexing a scalar")
    out = lw.new_array(node.outputs[0], list(x.shape))
    idx = [lw.name("i") for _ in x.shape]
    copy = _loops(idx, x.shape, [f"{out.read(idx)} = {x.read(idx)}"])
    lw.emit(invariant, copy)
    view = Val(out.dtype, list(out.shape), array=out.array)
    shape, index_map = _index(lw, node, view, node.inputs[2:], ins[2:], invariant)
    sub = [lw.name("i") for _ in shape]
    target = view.read(index_map(sub))
    lead = len(shape) - y.ndim
    value = y.read(["0" if node.inputs[1].broadcastable[d] else sub[lead + d]
                    for d in range(y.ndim)])
    value = cv(value, y.dtype, out.dtype)
    line = f"{target} = {value}" if node.op.set_instead_of_inc else f"{target} += {value}"
    lw.emit(invariant, _loops(sub, shape, [line]))
    return [out]


EMITTERS: dict[str, Callable] = {
    "Elemwise": elemwise, "DimShuffle": dimshuffle, "Unbroadcast": same_view,
    "Dot": dot, "Dot22": dot, "Gemv": gemv_gemm, "Gemm": gemv_gemm, "Ger": ger,
    "Sum": reduce, "Max": reduce, "Min": reduce, "Prod": reduce, "CAReduce": reduce,
    "Softmax": softmax, "LogSoftmax": softmax, "Alloc": alloc, "Shape_i": shape_i,
    "Subtensor": subtensor, "IncSubtensor": inc_subtensor,
}
