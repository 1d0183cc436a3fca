"""Where one jitgraph compile goes, stage by stage, for the compile benches.

:func:`install` (called before the compile) wraps the pipeline's stage functions with timers
that record wall and CPU seconds and calls; a stage's time excludes the stages timed inside it
(the lowering of a node that compiles a kernel on the spot is counted without the kernel's
native compilation). :func:`jitgraph_stages` then lists, for one compiled function, the
``function()`` call's three parts (graph building, rewriting, linking), every rewrite phase
with its node counts, and the linking's stages, as ``(stage, wall s, cpu s, detail)`` rows,
biggest first; :func:`show_stages` prints them. Wall and CPU both: the benches run on a shared
machine, where only CPU seconds compare between runs (CPU seconds count the compile-ahead
child's, once it has been waited for; the rewrite phases' and ``function()``'s parts count this
process's only).
"""

from __future__ import annotations

import functools
import importlib
import os
import time
from collections import Counter
from typing import Any, Callable

#: (module, attribute: a function or ``Class.method``, stage name)
STAGE_POINTS = [
    ("jitgraph.backend_cpu.linker", "schedule", "linking: scheduling the nodes"),
    ("jitgraph.backend_cpu.runtime.driver", "_lower_node",
     "linking: lowering the nodes (lowerings, kernel sources)"),
    ("jitgraph.backend_cpu.codegen.compile_ahead", "compile_wanted",
     "linking: native compilation, waiting for the compile-ahead child"),
    ("jitgraph.backend_cpu.codegen.kernels", "direct_object",
     "linking: native compilation in this process (direct compiler)"),
    ("jitgraph.backend_cpu.runtime.driver", "NodeContext.emit",
     "linking: generating the driver's lines"),
    ("jitgraph.backend_cpu.runtime.driver", "from_driver",
     "linking: compiling the generated driver (Python)"),
    ("jitgraph.cache.modules", "open_module", "linking: opening kernel entries in the compiledir"),
    ("jitgraph.cache.modules", "CachedModule.write_native",
     "linking: publishing kernel objects to the compiledir"),
    ("jitgraph.compile.function", "FunctionMaker._cached_rewrite",
     "graph building: graph-cache key and lookup"),
    ("jitgraph.compile.function", "FunctionMaker._store_graph",
     "storing the rewritten graph and program in the compiledir"),
]

def cpu_seconds() -> float:
    """CPU seconds of this process and of the children it waited for (the compile-ahead
    child), user and system."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


_totals: dict[str, list[float]] = {}  # stage -> [wall, cpu, calls]
_stack: list[list[float]] = []  # per open stage: [wall, cpu] spent in stages nested in it


def _timed(stage: str, fn: Callable) -> Callable:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        w0, c0 = time.perf_counter(), cpu_seconds()
        _stack.append([0.0, 0.0])
        try:
            return fn(*args, **kwargs)
        finally:
            inner = _stack.pop()
            wall, cpu = time.perf_counter() - w0, cpu_seconds() - c0
            total = _totals.setdefault(stage, [0.0, 0.0, 0])
            total[0] += wall - inner[0]
            total[1] += cpu - inner[1]
            total[2] += 1
            if _stack:
                _stack[-1][0] += wall
                _stack[-1][1] += cpu
    return wrapper


def install() -> None:
    """Wrap the stage functions (once per process)."""
    if _totals:
        return
    for module_name, attribute, stage in STAGE_POINTS:
        owner: Any = importlib.import_module(module_name)
        *path, name = attribute.split(".")
        for part in path:
            owner = getattr(owner, part)
        setattr(owner, name, _timed(stage, getattr(owner, name)))
        _totals[stage] = [0.0, 0.0, 0]


def kernel_report() -> str:
    """How many kernels this process compiled, how many share a structure with another (the
    same entry and description: scalar program, dtypes, axes; a different compiled source,
    e.g. another broadcast pattern), and which ones Numba compiled (the direct compiler
    declined them)."""
    from jitgraph.backend_cpu.codegen.kernels import COMPILE_LOG

    structures = Counter((r.entry, r.description) for r in COMPILE_LOG)
    repeated = sum(n - 1 for n in structures.values() if n > 1)
    numba = [r for r in COMPILE_LOG if not r.description.startswith("direct")]
    text = (f"{len(COMPILE_LOG)} kernels, {repeated} with the structure of another; "
            f"{sum(r.seconds for r in COMPILE_LOG):.2f} s summed")
    if numba:
        text += "; by Numba: " + ", ".join(f"{r.description[:60]} {r.seconds:.2f} s"
                                           for r in numba)
    return text


def jitgraph_stages(fn: Any) -> list[tuple[str, float, float, str]]:
    """``(stage, wall s, cpu s, detail)`` of the compile of the jitgraph function ``fn``,
    biggest (wall) first. The linking stages are this process's totals since :func:`install`."""
    maker = fn.maker
    times = maker.compile_times
    cpu = getattr(maker, "compile_cpu_times", {})
    rows = [("function(): graph building", times.get("graph", 0.0), cpu.get("graph", 0.0), ""),
            ("function(): rewriting", times.get("rewrite", 0.0), cpu.get("rewrite", 0.0), ""),
            ("function(): linking", times.get("link", 0.0), cpu.get("link", 0.0),
             kernel_report())]
    stats = getattr(maker.fgraph, "rewrite_stats", None)
    if stats is not None:
        for phase in stats.phases:
            if phase.name != "optdb":  # the whole sequence: the rewriting line above
                rows.append((f"  rewrite phase {phase.name}", phase.time,
                             getattr(phase, "cpu_time", float("nan")),
                             f"{phase.nodes_before} -> {phase.nodes_after} nodes"))
    for stage, (wall, cpu_s, calls) in _totals.items():
        if calls:
            rows.append((f"  {stage}", wall, cpu_s, f"{int(calls)} calls"))
    return sorted(rows, key=lambda r: -r[1])


def show_stages(title: str, rows: list, limit: int = 20) -> None:
    print(f"\n{title}, by stage (biggest first; wall and CPU seconds)")
    for name, wall, cpu_s, detail in rows[:limit]:
        print(f"  {wall:8.3f} {cpu_s:8.3f}  {name}{'  (' + detail + ')' if detail else ''}")
