"""The call path of one compiled function, written out as straight-line Python.

:meth:`Function.generic_call` handles every way of calling a function (keywords, defaults,
implicit inputs, device values, profiling) with loops over its cells and tests of its flags:
about a microsecond per call, more than a small program's own run (a draw of 1000 random
numbers, a scalar update). :func:`make_fast_call` writes the lines that one function needs for
the common call (every input given positionally), so that such a call costs little more than
the program: an input is stored as it is when it is an ndarray of exactly its type's dtype and
rank (else converted by the type's filter), each shared variable's value is read, the program
runs, the outputs are taken (copied where they could alias storage) and the updates stored.
Whatever the generated lines do not handle goes to the generic path with the same arguments.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np


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
    ns: dict[str, Any] = {"generic": fn.generic_call, "run": fn._run, "ndarray": np.ndarray}
    n_in = len(fn._input_cells)
    lines = ["def call(*args, **kwargs):",
             f"    if kwargs or len(args) != {n_in}:",
             "        return generic(*args, **kwargs)"]
    if n_in:
        lines.append(f"    {''.join(f'a{k}, ' for k in range(n_in))}= args")
    for k, cell in enumerate(fn._input_cells):
        ns[f"c{k}"] = cell
        lines += _input_lines(fn, k, ns)
    for j, (var, cell) in enumerate(fn._shared_cells):
        ns[f"sv{j}"], ns[f"sc{j}"] = var, cell
        lines.append(f"    sc{j}[0] = sv{j}._value")
    if fn._needs_errstate:
        ns["errstate"], ns["seterr"] = np.errstate, dict(fn._seterr)
        lines += ["    with errstate(**seterr):", "        run()"]
    else:
        lines.append("    run()")
    for k, (cell, copy) in enumerate(zip(fn._output_cells, fn._copy_output)):
        ns[f"oc{k}"] = cell
        lines.append(f"    o{k} = oc{k}[0]")
        if copy:
            lines.append(f"    o{k} = o{k}.copy() if hasattr(o{k}, 'copy') else o{k}")
    for j, (var, cell) in enumerate(fn._update_cells):
        ns[f"uv{j}"], ns[f"uc{j}"] = var, cell
        lines.append(f"    uv{j}._value = uc{j}[0]")
    for j, cell in enumerate(fn._cells_to_clear):
        ns[f"clr{j}"] = cell
        lines.append(f"    clr{j}[0] = None")
    outputs = [f"o{k}" for k in range(len(fn._output_cells))]
    if fn.maker.output_keys is not None:
        ns["keys"] = tuple(fn.maker.output_keys)
        lines.append(f"    return dict(zip(keys, ({''.join(o + ', ' for o in outputs)})))")
    elif fn.maker.unpack_single:
        lines.append(f"    return {outputs[0]}")
    else:
        lines.append(f"    return [{', '.join(outputs)}]")
    exec(compile("\n".join(lines) + "\n", f"<call of function {fn.name}>", "exec"), ns)
    return ns["call"]


def _input_lines(fn: Any, k: int, ns: dict[str, Any]) -> list[str]:
    """Store argument ``a{k}`` in its cell: as it is when trusted or of the exact type, else
    through the type's filter; a value the filter refuses goes to the generic path, which
    raises the error naming the input."""
    if fn.trust_input:
        return [f"    c{k}[0] = a{k}"]
    ns[f"filter{k}"] = fn._filters[k]
    fast = fn._fast_types[k]
    pad = "    " if fast is None else "        "
    convert = [f"{pad}try:", f"{pad}    c{k}[0] = filter{k}(a{k})",
               f"{pad}except (TypeError, ValueError):", f"{pad}    return generic(*args)"]
    if fast is None:
        return convert
    dtype, ndim = fast
    ns[f"dt{k}"] = dtype
    return [f"    if type(a{k}) is ndarray and a{k}.dtype is dt{k} and a{k}.ndim == {ndim}:",
            f"        c{k}[0] = a{k}", "    else:"] + convert

