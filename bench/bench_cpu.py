"""CPU-backend benchmarks: prints a table and writes ``bench/results/cpu-<timestamp>.json``.

Workloads (numbers as in the CPU-backend issue):

1. logistic regression (N=400, 784 features): cold compile (fresh process), time per step
2. per-call overhead of ``f(x) = x + 1`` on 10 float64
3. fused elementwise on 10**7 float64: ``exp(-x)*sin(y) + x*y - 0.5*sqrt(abs(z))`` against
   NumPy and numexpr, with the two fast-math strategies; ``x*y + z`` in GB/s and as a fraction
   of ``np.copyto`` bandwidth (fresh output arrays in both)
4. MLP 784-256-128-10 training step: cold compile (fresh process), time per step

``--workloads 2,3`` picks workloads, ``--quick`` shrinks sizes (smoke test). Run one benchmark
at a time on a quiet machine: timings are best-of-N wall clock.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
import timeit
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import jitgraph  # noqa: E402
import jitgraph.backend_cpu.linker  # noqa: E402,F401 - registers the compiled linkers
import jitgraph.tensor as T  # noqa: E402

RESULTS: dict[str, Any] = {}


def best_ms(fn: Callable[[], Any], repeat: int = 5) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times) * 1e3


def per_call_us(fn: Callable[[], Any], number: int = 100000) -> float:
    fn()
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e6


def row(table: list, name: str, **values: Any) -> None:
    table.append({"name": name, **values})
    cells = "  ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                      for k, v in values.items())
    print(f"  {name:<46s} {cells}")


def mode_cvm(optimizer: str = "None") -> jitgraph.Mode:
    return jitgraph.Mode(linker="cvm", optimizer=optimizer)


# -- workload 2 -----------------------------------------------------------------------------

def fast_call(fn: Any) -> Callable:
    """Prototype of the call path proposed for ``function_call.py`` (see the CPU-backend note):
    a cheap exact-type check instead of ``TensorType.filter``, no ``np.errstate`` when the
    program has no Python thunk, no profiling clocks."""
    cells = fn._input_cells
    specs = [(np.dtype(i.variable.type.dtype), i.variable.type.ndim) for i in fn.maker.inputs]
    filters, run = fn._filters, fn._program.run
    out_cells, single = fn._output_cells, fn.maker.unpack_single

    def call(*args: Any) -> Any:
        for k, (cell, value, (dt, nd)) in enumerate(zip(cells, args, specs)):
            if type(value) is np.ndarray and value.dtype is dt and value.ndim == nd:
                cell[0] = value
            else:
                cell[0] = filters[k](value)
        run()
        outs = [c[0] for c in out_cells]
        for c in out_cells:
            c[0] = None
        return outs[0] if single else outs

    return call


def workload_overhead() -> None:
    import numba

    print("\n[2] per-call overhead, f(x) = x + 1 on 10 float64 (microseconds per call)")
    table: list = []
    v = np.arange(10.0)
    row(table, "numpy x + 1", us=per_call_us(lambda: v + 1))

    @numba.njit("float64[::1](float64[::1])")
    def bare(a):  # noqa: ANN001, ANN202
        return a + 1.0

    row(table, "bare numba.njit", us=per_call_us(lambda: bare(v)))
    x = T.dvector("x")
    f = jitgraph.function([x], x + 1, mode=mode_cvm())
    row(table, "jitgraph cvm (Function.__call__)", us=per_call_us(lambda: f(v)))
    f.trust_input = True
    row(table, "jitgraph cvm, trust_input=True", us=per_call_us(lambda: f(v)))
    f.trust_input = False
    prog = f._program
    prog.input_cells[0][0] = v
    row(table, "jitgraph cvm driver alone (program.run)", us=per_call_us(prog.run))
    row(table, "jitgraph cvm + proposed call path", us=per_call_us(lambda c=fast_call(f): c(v)))
    fr = jitgraph.function([x], x + 1, mode="FAST_RUN")
    row(table, "jitgraph FAST_RUN (cvm, rewritten graph)", us=per_call_us(lambda: fr(v)))
    g = jitgraph.function([x], x + 1, mode=jitgraph.Mode(linker="vm", optimizer="None"))
    row(table, "jitgraph vm (Python VM, perform)", us=per_call_us(lambda: g(v)))
    RESULTS["overhead"] = table


# -- workload 3 -----------------------------------------------------------------------------

def _fused(expr_builder: Callable, n_inputs: int, openmp: bool, vecmath: bool = True) -> Any:
    from jitgraph.backend_cpu import options
    from jitgraph.backend_cpu.compose import fuse

    xs = T.dvectors(*"xyz"[:n_inputs])
    (out,) = fuse([expr_builder(*xs)])
    saved = options.VECMATH
    options.VECMATH = vecmath
    try:
        with jitgraph.config.change_flags(openmp=openmp):
            fn = jitgraph.function(list(xs), out, mode=mode_cvm())
    finally:
        options.VECMATH = saved
    fn.trust_input = True
    return fn


def transcendental(x: Any, y: Any, z: Any) -> Any:
    return T.exp(-x) * T.sin(y) + x * y - 0.5 * T.sqrt(T.abs(z))


def workload_elementwise(n: int) -> None:
    from strategies import blocked_numpy

    from jitgraph.backend_cpu.options import num_threads

    print(f"\n[3] fused elementwise, n = {n} float64 ({num_threads()} threads when openmp on)")
    rng = np.random.default_rng(0)
    x, y, z = (rng.standard_normal(n) for _ in range(3))
    table: list = []

    def npexpr() -> Any:
        return np.exp(-x) * np.sin(y) + x * y - 0.5 * np.sqrt(np.abs(z))

    expected = npexpr()
    t_np = best_ms(npexpr)
    row(table, "transcendental: numpy", ms=t_np, speedup=1.0)
    try:
        import numexpr as ne

        for threads in (1, 2):
            ne.set_num_threads(threads)
            t = best_ms(lambda: ne.evaluate("exp(-x)*sin(y) + x*y - 0.5*sqrt(abs(z))",
                                            local_dict={"x": x, "y": y, "z": z}))
            row(table, f"transcendental: numexpr {threads} thread(s)", ms=t, speedup=t_np / t)
    except ImportError:
        print("  (numexpr not installed: pip install numexpr)")
    for vecmath, label in ((True, "(a) vecmath polynomials"), (False, "libm (no vecmath)")):
        for openmp in (False, True):
            fn = _fused(transcendental, 3, openmp, vecmath)
            got = fn(x, y, z)
            err = float(np.max(np.abs(got - expected)))
            t = best_ms(lambda: fn(x, y, z))
            row(table, f"transcendental: jitgraph {label}, openmp={'on' if openmp else 'off'}",
                ms=t, speedup=t_np / t, max_abs_err=err)
    out = np.empty(n)
    for threads in (1, 2):
        t = best_ms(lambda: blocked_numpy(x, y, z, np.empty(n), nthreads=threads))
        blocked_numpy(x, y, z, out, nthreads=threads)
        row(table, f"transcendental: (b) blocked NumPy ufuncs, {threads} thread(s)", ms=t,
            speedup=t_np / t, max_abs_err=float(np.max(np.abs(out - expected))))

    nbytes = 8 * n
    t_copy = best_ms(lambda: np.copyto(np.empty(n), x))
    copy_bw = 2 * nbytes / t_copy / 1e6
    row(table, "copy: np.copyto into a fresh array", ms=t_copy, GBps=copy_bw, fraction=1.0)
    t_copy_pre = best_ms(lambda: np.copyto(out, x))
    row(table, "copy: np.copyto, preallocated", ms=t_copy_pre, GBps=2 * nbytes / t_copy_pre / 1e6)

    def bw(ms: float) -> float:
        return 4 * nbytes / ms / 1e6

    t = best_ms(lambda: x * y + z)
    row(table, "x*y+z: numpy", ms=t, GBps=bw(t), fraction=bw(t) / copy_bw)
    try:
        import numexpr as ne

        for threads in (1, 2):
            ne.set_num_threads(threads)
            t = best_ms(lambda: ne.evaluate("x*y + z", local_dict={"x": x, "y": y, "z": z}))
            row(table, f"x*y+z: numexpr {threads} thread(s)", ms=t, GBps=bw(t),
                fraction=bw(t) / copy_bw)
    except ImportError:
        pass
    for openmp in (False, True):
        fn = _fused(lambda a, b, c: a * b + c, 3, openmp)
        t = best_ms(lambda: fn(x, y, z))
        row(table, f"x*y+z: jitgraph, openmp={'on' if openmp else 'off'}", ms=t, GBps=bw(t),
            fraction=bw(t) / copy_bw)
    RESULTS["elementwise"] = {"n": n, "rows": table}


# -- compile times (fresh processes) --------------------------------------------------------

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import jitgraph, jitgraph.tensor as T
import jitgraph.backend_cpu.linker
from jitgraph.backend_cpu.kernels import COMPILE_LOG
sys.path.insert(0, {bench!r})
import bench_cpu as B
t1 = time.perf_counter()
result = {{"import_s": t1 - t0}}
{body}
result["kernels"] = [(r.description[:60], r.entry, r.seconds) for r in COMPILE_LOG]
print("RESULT" + json.dumps(result))
"""

COLD_KERNEL = """
fn = B._fused(B.transcendental, 3, False)
t2 = time.perf_counter()
result["first_kernel_s"] = t2 - t1
fn2 = B._fused(lambda x, y: T.tanh(x) * y + T.log1p(T.abs(x - y)), 2, False)
result["second_kernel_s"] = time.perf_counter() - t2
"""

COLD_LOGREG = """
train, data = B.logreg({dtype!r})
result["compile_s"] = time.perf_counter() - t1
result["kinds"] = train._program.kinds if hasattr(train._program, "kinds") else []
"""

COLD_MLP = """
train, data = B.mlp()
result["compile_s"] = time.perf_counter() - t1
"""


def run_child(body: str, flags: str = "") -> dict:
    code = CHILD.format(bench=str(ROOT / "bench"), body=body)
    env = dict(os.environ)
    if flags:
        env["JITGRAPH_FLAGS"] = ",".join(f for f in (env.get("JITGRAPH_FLAGS", ""), flags) if f)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600, cwd=str(ROOT), env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT"):
            return json.loads(line[6:])
    raise RuntimeError(f"benchmark child failed:\n{proc.stdout}\n{proc.stderr}")


def workload_compile() -> None:
    print("\n[compile] a fused transcendental kernel in a fresh process (seconds)")
    res = run_child(COLD_KERNEL)
    table: list = []
    row(table, "import jitgraph + backend", s=res["import_s"])
    row(table, "first kernel (Numba start-up, vecmath, kernel)", s=res["first_kernel_s"])
    row(table, "second, different kernel", s=res["second_kernel_s"])
    for desc, entry, seconds in res["kernels"]:
        row(table, f"  {entry}: {desc[:38]}", s=seconds)
    RESULTS["compile"] = table


# -- workloads 1 and 4: hooks on the seeds' programs ------------------------------------------

def logreg(dtype: str = "float64", mode: Any = "FAST_RUN") -> tuple:
    """The seeds' logistic regression (N=400, 784 features): (train function, data)."""
    rng = np.random.RandomState(0)
    n, feats = 400, 784
    data = (rng.randn(n, feats).astype(dtype), rng.randint(0, 2, n).astype(dtype))
    x, y = T.matrix("x", dtype=dtype), T.vector("y", dtype=dtype)
    w = jitgraph.shared(rng.randn(feats).astype(dtype), name="w")
    b = jitgraph.shared(np.asarray(0.0, dtype=dtype), name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    train = jitgraph.function([x, y], [p_1 > 0.5, xent],
                              updates=[(w, w - 0.01 * gw), (b, b - 0.01 * gb)], mode=mode)
    return train, data


def mlp(mode: Any = "FAST_RUN") -> tuple:
    """The 784-256-128-10 MLP of ``examples/mlp.py``: (train function, data)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("mlp_example", ROOT / "examples" / "mlp.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    data = module.make_data(2000, 784, 10)
    train, _, _ = module.build_training([784, 256, 128, 10], mode=mode)
    return train, data


def workload_logreg(steps: int) -> None:
    print("\n[1] logistic regression N=400, 784 features (FAST_RUN, linker cvm)")
    table: list = []
    for dtype in ("float64", "float32"):
        with jitgraph.config.change_flags(floatX=dtype):
            cold = run_child(COLD_LOGREG.format(dtype=dtype), flags=f"floatX={dtype}")
            train, data = logreg(dtype)
            t = best_ms(lambda: [train(*data) for _ in range(steps)], repeat=3) / steps
        row(table, f"logreg {dtype}: cold compile (fresh process)", s=cold["compile_s"])
        row(table, f"logreg {dtype}: time per step", ms=t)
    RESULTS["logreg"] = table


def workload_mlp(steps: int) -> None:
    print("\n[4] MLP 784-256-128-10, 2000 samples (FAST_RUN, linker cvm)")
    table: list = []
    cold = run_child(COLD_MLP)
    row(table, "mlp: cold compile (fresh process)", s=cold["compile_s"])
    train, data = mlp()
    t = best_ms(lambda: [train(*data) for _ in range(steps)], repeat=3) / steps
    row(table, "mlp: time per step", ms=t)
    RESULTS["mlp"] = table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default="1,2,3,4,compile")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    chosen = set(args.workloads.split(","))
    import numba

    RESULTS["machine"] = {"platform": platform.platform(), "cpus": os.cpu_count(),
                          "numpy": np.__version__, "numba": numba.__version__,
                          "python": platform.python_version()}
    if "2" in chosen:
        workload_overhead()
    if "3" in chosen:
        workload_elementwise(10**5 if args.quick else 10**7)
    if "compile" in chosen:
        workload_compile()
    if "1" in chosen:
        workload_logreg(5 if args.quick else 100)
    if "4" in chosen:
        workload_mlp(2 if args.quick else 10)
    out = Path(args.out) if args.out else (
        ROOT / "bench" / "results" / f"cpu-{time.strftime('%Y%m%d-%H%M%S')}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(RESULTS, indent=1))
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
