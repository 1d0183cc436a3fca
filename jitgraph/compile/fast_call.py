"""The call path of one compiled function, written out as straight-line Python.

:meth:`Function.generic_call` handles every way of calling a function (keywords, defaults,
implicit inputs, device values, profiling) with loops over its cells and tests of its flags:
about a microsecond per call, more than a small program's own run (a draw of 1000 random
numbers, a scalar update). :func:`make_fast_call` writes the lines that one function needs for
the common call (every input given positionally): an input is stored as it is when it is an
ndarray of exactly its type's dtype and rank (else converted by the type's filter), inputs
sharing memory with a mutable one are copied (only in functions that have one), each
shared variable's value is read, the program runs, the outputs are taken (copied where they
could alias storage) and the updates stored. Whatever the generated lines do not handle goes
to the generic path with the same arguments. From storing the inputs to taking the results the
call holds the program (and its update gates): a ``list.pop()`` each, see :mod:`.concurrency`;
a call finding the program busy runs on a clone of the function.

A program may write its own lines into the call (:meth:`~.linker.Program.inline_call`): the
CPU backend's driver places its ``run()`` there, the results it computes kept in local
variables instead of going through their cells: a call costs one Python frame and no cell
round trips (a 1000-sample random draw 1.41 -> 1.31 us). Without ``allow_gc`` the cells still
receive the results, as after ``run()``.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from jitgraph.compile.concurrency import wait_for
from jitgraph.compile.function_storage import copied


def eligible(fn: Any) -> bool:
    """Whether ``fn``'s calls may take the generated path (not for profiled functions,
    implicit inputs, values kept on a device or In(update=...) inputs)."""
    return (fn.profile is None and fn._n_positional >= 0 and not fn._device_inputs
            and not any(fn._download) and not any(fn._update_download)
            and not fn._input_update_cells)


def make_fast_call(fn: Any) -> Callable[..., Any] | None:
    """The generated call of ``fn`` (a :class:`~.function_call.Function`), or None when its
    calls must all take the generic path."""
    if not eligible(fn):
        return None
    # the cells the program leaves its results in, read back after it ran
    results = list(fn._output_cells) + [cell for _, cell in fn._update_cells]
    inline = getattr(fn._program, "inline_call", None)  # (a user linker's program may lack it)
    inlined = inline(results, fn._run) if inline is not None else None
    ns: dict[str, Any] = dict(inlined.namespace) if inlined is not None else {}
    ns.update({"_fc_generic": fn.generic_call, "_fc_run": fn._run, "_fc_ndarray": np.ndarray})
    n_in = len(fn._input_cells)
    lines = ["def _fc_call(*args, **kwargs):",
             f"    if kwargs or len(args) != {n_in}:",
             "        return _fc_generic(*args, **kwargs)"]
    if n_in:
        lines.append(f"    {''.join(f'_fc_a{k}, ' for k in range(n_in))}= args")
    for k in range(n_in):
        lines += _input_lines(fn, k, ns)
    # from here on the call holds the program (see .concurrency): the update locks, then the
    # program's gate, or else a clone runs the call
    ns.update({"_fc_take": fn._gate.pop, "_fc_give": fn._gate.append,
               "_fc_on_clone": fn._on_clone})
    body = []
    for k, cell in enumerate(fn._input_cells):
        ns[f"_fc_c{k}"] = cell
        body.append(f"_fc_c{k}[0] = _fc_a{k}")
    if fn._mutable_positions and not fn.trust_input:
        # inputs sharing memory with one that may be overwritten get copies (generic path's
        # rule); functions without a mutable input have no such line
        ns["_fc_unalias"] = fn._copy_aliased_inputs
        body.append("_fc_unalias()")
    for j, (var, cell) in enumerate(fn._shared_cells):
        ns[f"_fc_sv{j}"], ns[f"_fc_sc{j}"] = var, cell
        body.append(f"_fc_sc{j}[0] = _fc_sv{j}._value")
    if inlined is None:  # the program's run(), its results read from their cells
        run, exprs, substituted = ["    _fc_run()"], [None] * len(results), {}
    else:
        run, exprs, substituted = inlined.lines, inlined.results, inlined.kept
    held = []
    for k, (cell, expr) in enumerate(zip(results, exprs)):
        if expr is None:
            ns[f"_fc_r{k}"] = cell
            expr = f"_fc_r{k}[0]"
        held.append(expr)
    body = ["    " + line for line in body] + _in_errstate(fn, ns, run)
    if not fn._allow_gc:
        # without gc the cells hold the last results, as after the program's run()
        body += [f"    {driver_cell}[0] = {var}" for driver_cell, var in substituted.values()]
    n_out = len(fn._output_cells)
    for k, copy in enumerate(fn._copy_output):
        body.append(f"    _fc_o{k} = {held[k]}")
        if copy:
            body.append(f"    _fc_o{k} = _fc_o{k}.copy() if hasattr(_fc_o{k}, 'copy') "
                        f"else _fc_o{k}")
    for j, (var, _) in enumerate(fn._update_cells):
        ns[f"_fc_uv{j}"] = var
        value = held[n_out + j]
        if fn._copy_update[j]:  # it would share memory with an input or another state
            ns["_fc_copied"] = copied
            value = f"_fc_copied({value})"
        body.append(f"    _fc_uv{j}._value = {value}")
    for j, cell in enumerate(fn._cells_to_clear):
        if id(cell) not in substituted:  # a result kept in a local never reaches its cell
            ns[f"_fc_clr{j}"] = cell
            body.append(f"    _fc_clr{j}[0] = None")
    outputs = [f"_fc_o{k}" for k in range(n_out)]
    if fn.maker.output_keys is not None:
        ns["_fc_keys"] = tuple(fn.maker.output_keys)
        body.append(f"    return dict(zip(_fc_keys, ({''.join(o + ', ' for o in outputs)})))")
    elif fn.maker.unpack_single:
        body.append(f"    return {outputs[0]}")
    else:
        body.append(f"    return [{', '.join(outputs)}]")
    lines += _holding_program(fn, ns, body)
    exec(compile("\n".join(lines) + "\n", f"<call of function {fn.name}>", "exec"), ns)
    return ns["_fc_call"]


def _holding_program(fn: Any, ns: dict[str, Any], body: list[str]) -> list[str]:
    """``body`` (indented by 4) run holding the program: its update gates (taken in their
    order, waiting where taken; given back in reverse), which also keep other calls off the
    program, or else its program gate; a call finding the program gate taken runs on a clone
    (:meth:`~.function_call.Function._on_clone`)."""
    lines = body if fn._update_gates else [
        "    try:", "        _fc_take()", "    except IndexError:",
        "        return _fc_on_clone(*args)",
        "    try:", *("    " + line for line in body),
        "    finally:", "        _fc_give(True)"]
    for j, gate in reversed(list(enumerate(fn._update_gates))):
        # what was taken is kept in a local _fc_held<j>: wait_for looks for it
        ns[f"_fc_utake{j}"], ns[f"_fc_ugive{j}"] = gate.pop, gate.append
        ns[f"_fc_uwait{j}"] = functools.partial(wait_for, gate)
        lines = ["    try:", f"        _fc_held{j} = _fc_utake{j}()", "    except IndexError:",
                 f"        _fc_held{j} = _fc_uwait{j}()",
                 "    try:", *("    " + line for line in lines),
                 "    finally:", f"        _fc_ugive{j}(_fc_held{j})"]
    return lines


def _in_errstate(fn: Any, ns: dict[str, Any], lines: list[str]) -> list[str]:
    """``lines`` (indented by 4) under ``np.errstate`` when the function's seterr flags
    need it."""
    if not fn._needs_errstate:
        return lines
    ns["_fc_errstate"], ns["_fc_seterr"] = np.errstate, dict(fn._seterr)
    return ["    with _fc_errstate(**_fc_seterr):"] + ["    " + line for line in lines]


def _input_lines(fn: Any, k: int, ns: dict[str, Any]) -> list[str]:
    """Make argument ``_fc_a{k}`` the value its cell will receive: as it is when trusted or of
    the exact type, else through the type's filter; a value the filter refuses goes to the
    generic path, which raises the error naming the input."""
    if fn.trust_input:
        return []
    ns[f"_fc_filter{k}"] = fn._filters[k]
    fast = fn._fast_types[k]
    pad = "    " if fast is None else "        "
    convert = [f"{pad}try:", f"{pad}    _fc_a{k} = _fc_filter{k}(_fc_a{k})",
               f"{pad}except (TypeError, ValueError):", f"{pad}    return _fc_generic(*args)"]
    if fast is None:
        return convert
    dtype, ndim = fast
    ns[f"_fc_dt{k}"] = dtype
    return [f"    if not (type(_fc_a{k}) is _fc_ndarray and _fc_a{k}.dtype is _fc_dt{k} "
            f"and _fc_a{k}.ndim == {ndim}):"] + convert
