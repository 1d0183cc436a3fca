"""The tables of a profile's summary (:meth:`jitgraph.compile.profiling.ProfileStats.summary`):
time by op class, by op and by node, the ops inside each fused kernel, and the closing tips.

Each takes the profiled rows ``(node, seconds, calls, kind, id)`` and returns text lines.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from jitgraph.config import config
from jitgraph.graph.basic import Apply


def class_name(op: Any) -> str:
    cls = type(op)
    return f"{cls.__module__}.{cls.__qualname__}"


def fused_ops(node: Apply) -> str | None:
    """The ops fused into ``node``'s kernel, e.g. ``"sub x3, sigmoid, gt"`` (None: not fused)."""
    scalar_op = getattr(node.op, "scalar_op", None)
    inner = getattr(scalar_op, "inner_ops", None)
    if not callable(inner):
        return None
    counts: dict[str, int] = {}
    for name in inner():
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(name if n == 1 else f"{name} x{n}" for name, n in counts.items())


def kind_label(kinds: Sequence[str]) -> str:
    return "+".join(dict.fromkeys(kinds))


def group_table(title: str, rows: list, total: float, limit: int, key: Callable[[Apply], str],
                 plural: str) -> list[str]:
    groups: dict[str, list] = {}
    for row in rows:
        groups.setdefault(key(row[0]), []).append(row)
    stats = []
    for name, members in groups.items():
        seconds = sum(r[1] for r in members)
        calls = sum(r[2] for r in members)
        stats.append((seconds, calls, len(members), kind_label([r[3] for r in members]), name))
    stats.sort(key=lambda s: (-s[0], s[4]))
    name_col = "<Class name>" if title == "Class" else "<Op name>"
    lines = [title, "---",
             f"<% time> <sum %> <apply time> <time per call> <type> <#call> <#apply> {name_col}"]
    cumulative = 0.0
    for seconds, calls, napply, kind, name in stats[:limit]:
        cumulative += seconds
        per_call = seconds / calls if calls else 0.0
        lines.append(f"  {100 * seconds / total:5.1f}%   {100 * cumulative / total:5.1f}%   "
                     f"{seconds:9.3f}s   {per_call:11.2e}s   {kind:>6s}  {calls:6d}  "
                     f"{napply:4d}   {name}")
    rest = stats[limit:]
    rest_t = sum(s[0] for s in rest)
    lines.append(f"   ... (remaining {len(rest)} {plural} account for "
                 f"{100 * rest_t / total:6.2f}%({rest_t:.2f}s) of the runtime)")
    return lines


def apply_table(rows: list, total: float, limit: int, records: list) -> list[str]:
    ordered = sorted(rows, key=lambda r: -r[1])
    shapes = {v: s for rec in records for v, s in rec.shapes.items()}
    lines = ["Apply", "------",
             "<% time> <sum %> <apply time> <time per call> <type> <#call> <id> <Apply name>"]
    cumulative = 0.0
    for node, seconds, calls, kind, ident in ordered[:limit]:
        cumulative += seconds
        per_call = seconds / calls if calls else 0.0
        lines.append(f"  {100 * seconds / total:5.1f}%   {100 * cumulative / total:5.1f}%   "
                     f"{seconds:9.3f}s   {per_call:11.2e}s   {kind:>6s}  {calls:6d}  "
                     f"{ident:>4s}   {node}")
        if shapes:
            for j, var in enumerate(node.inputs):
                lines.append(f"    input {j}: dtype={getattr(var.type, 'dtype', '?')}, "
                             f"shape={shapes.get(var, '?')}")
            for j, var in enumerate(node.outputs):
                lines.append(f"    output {j}: dtype={getattr(var.type, 'dtype', '?')}, "
                             f"shape={shapes.get(var, '?')}")
    rest = ordered[limit:]
    rest_t = sum(r[1] for r in rest)
    lines.append(f"   ... (remaining {len(rest)} Apply instances account for "
                 f"{100 * rest_t / total:.2f}%({rest_t:.2f}s) of the runtime)")
    return lines


def fused_table(rows: list, total: float) -> list[str]:
    fused = [(r, ops) for r in rows if (ops := fused_ops(r[0]))]
    if not fused:
        return []
    lines = ["", "Fused elementwise kernels (the original ops inside each)", "---",
             "<% time> <id> <ops inside> <Apply name>"]
    for (node, seconds, _calls, _kind, ident), ops in sorted(fused, key=lambda f: -f[0][1]):
        lines.append(f"  {100 * seconds / total:5.1f}%  {ident:>4s}   {ops}   ({node.op})")
    return lines


def tips(rows: list, total: float) -> list[str]:
    tips = []
    py_rows = [r for r in rows if r[3] == "Py"]
    py_time = sum(r[1] for r in py_rows)
    if rows and len(py_rows) == len(rows):
        tips.append("  - every node ran its Python perform(): no compiled linker was used (the "
                    f"linker flag is {config.linker!r}, cxx={config.cxx!r}; mode FAST_RUN or "
                    "linker=cvm with the CPU backend compiles kernels).")
    elif total > 0 and py_time > 0.2 * total:
        slow = sorted({type(r[0].op).__name__ for r in py_rows if r[1] > 0.02 * total})
        tips.append(f"  - {100 * py_time / total:.0f}% of the time is in Python perform() "
                    f"(ops with no compiled lowering{': ' + ', '.join(slow) if slow else ''}).")
    if str(config.device).startswith("cuda") and any(
            getattr(r[0].outputs[0].type, "dtype", "") == "float64" for r in rows):
        tips.append("  - float64 is slow on most GPUs; try floatX=float32.")
    if config.allow_gc and rows:
        tips.append("  - allow_gc=False keeps intermediate buffers between calls (less "
                    "allocation, more memory held).")
    if not tips:
        return ["Here are tips to potentially make your code run faster", "  Sorry, no tip "
                "for today."]
    return ["Here are tips to potentially make your code run faster",
            "                 (if you think of new ones, suggest them on the issue tracker)."
            ] + tips


__all__ = ["apply_table", "class_name", "fused_table", "group_table", "tips"]
