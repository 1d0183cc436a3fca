"""Workloads timed inside the benchmark process: [2] per-call overhead, [3] fused elementwise.

Imported by ``bench_cpu.py`` after it has pointed jitgraph's and PyTensor's compiledirs at
temporary folders (their compile times do not matter here, only steady-state calls).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from harness import Table, best_ms, installed, per_call_us

TRANSCENDENTAL = "exp(-x)*sin(y) + x*y - 0.5*sqrt(abs(z))"


#: the systems of this run (set by ``bench_cpu.py``: ``--systems``)
SYSTEMS: set[str] = {"pytensor-c", "pytensor-numba", "jax", "numexpr"}


def wanted(system: str, package: str) -> bool:
    return system in SYSTEMS and installed(package)


def skipped(table: Table, system: str, package: str, column: str = "system") -> None:
    """A row saying why ``system`` has no numbers (not installed, or not selected)."""
    if system in SYSTEMS and not installed(package):
        table.add(**{column: f"{system}: not installed"})


def _pytensor_modes() -> dict[str, Any]:
    modes = {}
    if installed("pytensor") and SYSTEMS & {"pytensor-c", "pytensor-numba"}:
        warnings.filterwarnings("ignore", message=".*BLAS.*")
        from pytensor.compile.mode import get_mode

        if "pytensor-c" in SYSTEMS:
            modes["PyTensor C (CVM)"] = get_mode("CVM")
        if "pytensor-numba" in SYSTEMS:
            modes["PyTensor Numba"] = get_mode("NUMBA")
    return modes


def _jax() -> Any:
    if not wanted("jax", "jax"):
        return None
    import jax

    jax.config.update("jax_enable_x64", True)
    return jax


def workload_overhead(repeat: int) -> Table:
    import numba

    import jitgraph
    import jitgraph.tensor as T

    table = Table("[2] per-call overhead: f(x) = x + 1 on 10 float64 (µs per call, best of "
                  f"{repeat})", [("system", "system"), ("call", "call path"), ("us", "µs/call")],
                  note="  (diagnostic) rows are not products: the compiled driver alone, a "
                       "the generic call path (what f(v) ran before its generated path), the Python VM.")
    v = np.arange(10.0)
    table.add(system="NumPy", call="v + 1", us=per_call_us(lambda: v + 1, repeat))

    @numba.njit("float64[::1](float64[::1])")
    def bare(a):
        return a + 1.0

    table.add(system="bare numba.njit", call="f(v)", us=per_call_us(lambda: bare(v), repeat))
    x = T.dvector("x")
    for openmp in (False, True):
        with jitgraph.config.change_flags(openmp=openmp):
            f = jitgraph.function([x], x + 1, mode="FAST_RUN")
        name = f"jitgraph FAST_RUN, openmp {'on' if openmp else 'off'}"
        table.add(system=name, call="f(v) (default)", us=per_call_us(lambda f=f: f(v), repeat),
                  key=f"jitgraph-{openmp}")
        f.trust_input = True
        table.add(system=name, call="f(v), trust_input=True",
                  us=per_call_us(lambda f=f: f(v), repeat), key=f"jitgraph-{openmp}-trust")
        f.trust_input = False
    prog = f._program
    prog.input_cells[0][0] = v
    table.add(system="(diagnostic) jitgraph", call="driver alone (program.run)",
              us=per_call_us(prog.run, repeat))
    table.add(system="(diagnostic) jitgraph", call="f.generic_call(v) (the path of keywords, "
              "defaults, profiling)", us=per_call_us(lambda: f.generic_call(v), repeat))
    g = jitgraph.function([x], x + 1, mode=jitgraph.Mode(linker="vm", optimizer="None"))
    table.add(system="(diagnostic) jitgraph vm", call="f(v) (Python VM)",
              us=per_call_us(lambda: g(v), repeat))
    modes = _pytensor_modes()
    if modes:
        import pytensor
        import pytensor.tensor as pt

        px = pt.dvector("x")
        for name, mode in modes.items():
            pf = pytensor.function([px], px + 1, mode=mode)
            table.add(system=name, call="f(v) (default)", us=per_call_us(lambda pf=pf: pf(v), repeat))
            pf.trust_input = True
            table.add(system=name, call="f(v), trust_input=True",
                      us=per_call_us(lambda pf=pf: pf(v), repeat))
    skipped(table, "pytensor-c", "pytensor")
    skipped(table, "pytensor-numba", "pytensor")
    jax = _jax()
    if jax is not None:
        jf = jax.jit(lambda a: a + 1)
        table.add(system="JAX jit", call="f(v).block_until_ready(), v NumPy",
                  us=per_call_us(lambda: jf(v).block_until_ready(), repeat))
        jv = jax.numpy.asarray(v)
        table.add(system="JAX jit", call="f(v).block_until_ready(), v jax.Array",
                  us=per_call_us(lambda: jf(jv).block_until_ready(), repeat))
    skipped(table, "jax", "jax")
    return table


# -- [3] fused elementwise --------------------------------------------------------------------

def _transcendental(lib: Any, x: Any, y: Any, z: Any) -> Any:
    return lib.exp(-x) * lib.sin(y) + x * y - 0.5 * lib.sqrt(abs(z))


def _jitgraph_fn(expr: Callable, openmp: bool, vecmath: bool = True) -> Any:
    import jitgraph
    import jitgraph.tensor as T
    from jitgraph.backend_cpu import options

    xs = T.dvectors("x", "y", "z")
    saved = options.VECMATH
    options.VECMATH = vecmath
    try:
        with jitgraph.config.change_flags(openmp=openmp):
            return jitgraph.function(list(xs), expr(T, *xs), mode="FAST_RUN")
    finally:
        options.VECMATH = saved


def _pytensor_fn(expr: Callable, mode: Any, openmp: bool) -> Any:
    import pytensor
    import pytensor.tensor as pt

    xs = pt.dvectors("x", "y", "z")
    with pytensor.config.change_flags(openmp=openmp):
        return pytensor.function(list(xs), expr(pt, *xs), mode=mode)


def _compiled_systems(expr: Callable, diagnostics: bool) -> list[tuple[str, Callable]]:
    """(label, fn(x, y, z)) for every compiled system of the comparison."""
    out: list[tuple[str, Callable]] = []
    for openmp in (False, True):
        out.append((f"jitgraph FAST_RUN, openmp {'on' if openmp else 'off'}",
                    _jitgraph_fn(expr, openmp)))
    if diagnostics:
        for openmp in (False, True):
            label = ("(diagnostic) jitgraph, libm instead of vecmath, openmp "
                     f"{'on' if openmp else 'off'}")
            out.append((label, _jitgraph_fn(expr, openmp, False)))
    for name, mode in _pytensor_modes().items():
        for openmp in ((False, True) if "C" in name else (False,)):
            label = name + (f", openmp {'on' if openmp else 'off'}" if "C" in name else "")
            out.append((label, _pytensor_fn(expr, mode, openmp)))
    jax = _jax()
    if jax is not None:
        jfn = jax.jit(lambda a, b, c: expr(jax.numpy, a, b, c))
        out.append(("JAX jit (jax.Array inputs)",
                    lambda a, b, c: jfn(a, b, c).block_until_ready()))
    return out


def workload_elementwise(n: int, repeat: int) -> tuple[Table, Table]:
    from strategies import blocked_numpy

    from jitgraph.backend_cpu.options import num_threads

    rng = np.random.default_rng(0)
    x, y, z = (rng.standard_normal(n) for _ in range(3))
    jax = _jax()
    jargs = tuple(jax.numpy.asarray(a) for a in (x, y, z)) if jax is not None else None

    def args_for(label: str) -> tuple:
        return jargs if label.startswith("JAX") else (x, y, z)

    t1 = Table(f"[3a] fused {TRANSCENDENTAL} on n = {n:,} float64 (ms, best of {repeat}; "
               f"openmp on = {num_threads()} threads)",
               [("system", "system"), ("ms", "ms"), ("speedup", "speed vs NumPy"),
                ("err", "max abs err")],
               note="  (diagnostic) rows: jitgraph without its vectorised exp/sin/log "
                    "(vecmath), and strategy (b) of bench/strategies.py.")
    expected = _transcendental(np, x, y, z)
    t_np = best_ms(lambda: _transcendental(np, x, y, z), repeat)
    t1.add(system="NumPy", ms=t_np, speedup=1.0, err=0.0)
    if wanted("numexpr", "numexpr"):
        import numexpr as ne

        for threads in (1, 2):
            ne.set_num_threads(threads)
            got = ne.evaluate(TRANSCENDENTAL, local_dict={"x": x, "y": y, "z": z})
            t = best_ms(lambda: ne.evaluate(TRANSCENDENTAL,
                                            local_dict={"x": x, "y": y, "z": z}), repeat)
            t1.add(system=f"numexpr, {threads} thread(s)", ms=t, speedup=t_np / t,
                   err=float(np.max(np.abs(got - expected))))
    skipped(t1, "numexpr", "numexpr")
    for label, fn in _compiled_systems(_transcendental, diagnostics=True):
        a = args_for(label)
        got = np.asarray(fn(*a))
        t = best_ms(lambda fn=fn, a=a: fn(*a), repeat)
        t1.add(system=label, ms=t, speedup=t_np / t, err=float(np.max(np.abs(got - expected))))
    for system, package in (("pytensor-c", "pytensor"), ("pytensor-numba", "pytensor"),
                            ("jax", "jax")):
        skipped(t1, system, package)
    out = np.empty(n)
    for threads in (1, 2):
        blocked_numpy(x, y, z, out, nthreads=threads)
        t = best_ms(lambda k=threads: blocked_numpy(x, y, z, np.empty(n), nthreads=k), repeat)
        t1.add(system=f"(diagnostic) blocked NumPy ufuncs + Numba, {threads} thread(s)", ms=t,
               speedup=t_np / t, err=float(np.max(np.abs(out - expected))))

    nbytes = 8 * n
    t2 = Table(f"[3b] memory-bound x*y + z on n = {n:,} float64 (fresh output array; "
               "GB/s counts 3 reads + 1 write)",
               [("system", "system"), ("ms", "ms"), ("GBps", "GB/s"),
                ("fraction", "fraction of copy")],
               note="  copy bandwidth = np.copyto into a fresh np.empty (1 read + 1 write), "
                    "measured in this run; 'preallocated' is for reference only.")
    t_copy = best_ms(lambda: np.copyto(np.empty(n), x), repeat)
    copy_bw = 2 * nbytes / t_copy / 1e6
    t2.add(system="np.copyto into a fresh array", ms=t_copy, GBps=copy_bw, fraction=1.0)
    t_pre = best_ms(lambda: np.copyto(out, x), repeat)
    t2.add(system="(reference) np.copyto, preallocated", ms=t_pre, GBps=2 * nbytes / t_pre / 1e6)

    def bw_row(label: str, t: float) -> None:
        bw = 4 * nbytes / t / 1e6
        t2.add(system=label, ms=t, GBps=bw, fraction=bw / copy_bw)

    bw_row("NumPy", best_ms(lambda: x * y + z, repeat))
    if wanted("numexpr", "numexpr"):
        import numexpr as ne

        for threads in (1, 2):
            ne.set_num_threads(threads)
            bw_row(f"numexpr, {threads} thread(s)",
                   best_ms(lambda: ne.evaluate("x*y + z", local_dict={"x": x, "y": y, "z": z}),
                           repeat))
    for label, fn in _compiled_systems(lambda lib, a, b, c: a * b + c, diagnostics=False):
        a = args_for(label)
        assert np.allclose(np.asarray(fn(*a)), x * y + z)
        bw_row(label, best_ms(lambda fn=fn, a=a: fn(*a), repeat))
    for system, package in (("numexpr", "numexpr"), ("pytensor-c", "pytensor"),
                            ("pytensor-numba", "pytensor"), ("jax", "jax")):
        skipped(t2, system, package)
    return t1, t2
