"""CPU-backend benchmarks: jitgraph against NumPy, PyTensor (C and Numba), JAX and numexpr.

    python bench/bench_cpu.py             # everything (several minutes; run on a quiet machine)
    python bench/bench_cpu.py --quick     # smoke test (< 1 min): small sizes, one repetition,
                                          # jitgraph/NumPy/JAX/numexpr only unless --systems

Prints one table per workload, a breakdown of jitgraph's compile time and a summary of the
CPU-backend issue's targets (PASS/FAIL), and writes every number to
``bench/results/cpu-<timestamp>.json`` (``bench/results/`` is git-ignored).

1. logistic regression (N=400, 784 features) and 4. MLP 784-256-128-10 training step (2000
   samples), each in float64 and float32: cold compile (empty caches, fresh process), warm compile (a new
   process on the caches the cold one filled), time per step. Every compile is measured in a
   fresh subprocess per system (``compile_child.py``): **compile = the ``function(...)`` call
   (JAX: ``jax.jit``) + the first call of the compiled step**, which is where jitgraph and JAX
   compile lazily; it includes jitgraph's import of Numba (done lazily by ``function``), not the
   import of the package, nor building the symbolic graph and its gradient (both shown apart).
   "Warm" uses the same jitgraph/PyTensor ``base_compiledir`` and JAX persistent compilation
   cache as the cold run. Best of ``--compile-repeat`` processes; step time: best loop (of 200
   logistic-regression steps or 10 MLP steps; 15 or 7 loops in each warm process).
2. per-call overhead of ``f(x) = x + 1`` on 10 float64 (µs per call).
3. fused elementwise on 10**7 float64: ``exp(-x)*sin(y) + x*y - 0.5*sqrt(abs(z))`` (ms, speed
   vs NumPy) and ``x*y + z`` (GB/s, fraction of ``np.copyto`` into a fresh array).
5. jitgraph's cold and warm compile split into stages (import, LLVM start-up, rewriting,
   linking, first call, kernel-cache hits, Numba compiles outside the kernel cache).

Child processes run with Python's bytecode cache on (``PYTHONPYCACHEPREFIX`` = a folder of the
run, primed by one discarded compile per system), as an installed package has its ``.pyc``;
[5] also shows a warm compile with ``PYTHONDONTWRITEBYTECODE=1``.

Timings are best-of-N wall clock. The machine has few cores: run one benchmark at a time; the
1-minute load average is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import atexit
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from harness import ChildRunner, Table, dumps, installed, load_average

LABELS = {"jitgraph": "jitgraph FAST_RUN, openmp off", "jitgraph-omp": "jitgraph FAST_RUN, "
          "openmp on", "pytensor-c": "PyTensor C (CVM)", "pytensor-numba": "PyTensor Numba",
          "jax": "JAX jit", "numpy": "NumPy, hand-written"}
PACKAGE = {"jitgraph": "jitgraph", "jitgraph-omp": "jitgraph", "pytensor-c": "pytensor",
           "pytensor-numba": "pytensor", "jax": "jax", "numpy": "numpy", "numexpr": "numexpr"}
ALL_SYSTEMS = ("jitgraph", "jitgraph-omp", "pytensor-c", "pytensor-numba", "jax", "numpy",
               "numexpr")
RESULTS: dict[str, Any] = {"tables": {}, "children": {}}


def progress(msg: str) -> None:
    print(f"  .. {msg}", file=sys.stderr, flush=True)


# -- [1] and [4]: compiles in fresh processes -----------------------------------------------

def compile_workload(runner: ChildRunner, workload: str, dtypes: list[str], systems: list[str],
                     args: argparse.Namespace) -> Table:
    steps = {"logreg": 5 if args.quick else 200, "mlp": 2 if args.quick else 10}[workload]
    loops = 3 if args.quick else {"logreg": 15, "mlp": 7}[workload]
    title = {"logreg": "[1] logistic regression, N=400, 784 features",
             "mlp": "[4] MLP 784-256-128-10 training step, 2000 samples"}[workload]
    table = Table(
        f"{title} (compile: best of {args.compile_repeat} fresh processes)",
        [("system", "system"), ("dtype", "dtype"), ("cold_s", "cold compile s"),
         ("optimised_s", "cold, all optimised s"), ("warm_s", "warm compile s"),
         ("cold_over_warm", "cold/warm"),
         ("import_s", "import s"), ("build_s", "graph build s"), ("step_ms", "step ms"),
         ("step_vs_numpy", "step / NumPy's"), ("check", "same result")],
        note="  compile = function(...) (JAX: jax.jit) + the first call, in a fresh process; "
             "cold: empty caches; warm: a new process on the caches the cold run filled.\n"
             "  cold, all optimised (jitgraph): a cold compile runs its first calls on tier-0 "
             "kernels while a child process compiles the optimised ones; from function(...) "
             "until every kernel is optimised.\n"
             "  import s / graph build s: import of the package; building the graph and its "
             "gradient (JAX: moving the data to the device) -- not in compile.\n"
             "  same result: checksum of the first step's outputs equals NumPy's (rel. 1e-6; "
             "float32 1e-3).")
    for dtype in dtypes:
        reference = None
        for system in ["numpy"] + [s for s in systems if s != "numpy"]:
            if system not in systems:
                continue
            label = LABELS[system]
            if not installed(PACKAGE[system]):
                table.add(system=label, dtype=dtype, check="not installed")
                continue
            key = f"{workload}/{system}/{dtype}"
            if system == "numpy":
                warm = [runner.run(system, workload, dtype, runner.new_cache("numpy"),
                                   steps=steps, repeat=loops)
                        for _ in range(args.compile_repeat)]
                cold = []
            else:
                cold, cache = [], None
                for _ in range(args.compile_repeat):
                    cache = runner.new_cache(f"{workload}-{system}-{dtype}")
                    cold.append(runner.run(system, workload, dtype, cache))
                    progress(f"{key} cold compile {cold[-1]['compile_s']:.3g} s")
                warm = []
                for _ in range(args.compile_repeat):
                    warm.append(runner.run(system, workload, dtype, cache, steps=steps,
                                           repeat=loops))
                    progress(f"{key} warm compile {warm[-1]['compile_s']:.3g} s, "
                             f"step {warm[-1]['step_ms']:.4g} ms")
            RESULTS["children"][key] = {"cold": cold, "warm": warm}
            if "blas" in warm[0] and "PyTensor's BLAS" not in table.note:
                table.note += (f"\n  PyTensor's BLAS: blas__ldflags = {warm[0]['blas']!r}"
                               + (" (no BLAS library linked: its C code calls BLAS through "
                                  "NumPy's C-API)" if not warm[0]["blas"] else ""))
            step = min(r["step_ms"] for r in warm)
            check = warm[0]["check"]
            if system == "numpy":
                reference = (step, check)
            row = table.add(system=label, dtype=dtype, key=system, step_ms=step,
                            import_s=min(r["import_s"] for r in warm),
                            build_s=min(r["build_s"] for r in warm))
            if cold:
                row["cold_s"] = min(r["compile_s"] for r in cold)
                optimised = [r["optimised_s"] for r in cold if "optimised_s" in r]
                if optimised:
                    row["optimised_s"] = min(optimised)
                row["warm_s"] = min(r["compile_s"] for r in warm)
                row["cold_over_warm"] = row["cold_s"] / row["warm_s"]
            if reference:
                row["step_vs_numpy"] = step / reference[0]
                tol = 1e-3 if dtype == "float32" else 1e-6
                row["check"] = abs(check - reference[1]) <= tol * abs(reference[1])
    return table


STAGES = [
    ("startup_to_main_s", "Python start-up to main() (not counted)"),
    ("import_s", "import numpy + jitgraph (not in compile)"),
    ("build_s", "graph building: T.* and T.grad (not in compile)"),
    ("llvm_init_s", "compile: llvmlite, LLVM, target machines, direct compiler, warm-up"),
    ("numba_import_s", "compile: import numba (JITGRAPH_DIRECT=0 only)"),
    ("numba_init_s", "compile: Numba CPU target initialisation"),
    ("maker_graph_s", "compile: function(): FunctionGraph, checks"),
    ("maker_rewrite_s", "compile: function(): rewriting (FAST_RUN)"),
    ("maker_link_s", "compile: function(): linking (driver, kernels)"),
    ("function_rest_s", "compile: function(): rest"),
    ("first_call_s", "compile: first call"),
    ("compile_total_s", "compile total (the sum; tables [1]/[4])"),
    ("natural_s", "compile total, unstaged process"),
    ("nobytecode_s", "compile total, unstaged, PYTHONDONTWRITEBYTECODE=1"),
    ("cache", "detail: kernel cache hits / misses"),
    ("kernel_s", "detail: kernel entries compiled or loaded"),
    ("direct_s", "detail: entries compiled without Numba (backend_cpu.direct)"),
    ("jit_s", "detail: Numba JIT compiles (not cache loads)"),
    ("jit_outside_s", "detail:   of which outside the kernel cache"),
    ("numba_imported", "detail: the process imported Numba"),
    ("llvmlite_imported", "detail: the process imported llvmlite"),
    ("graph_from_cache", "detail: rewritten graph loaded from the compiledir"),
]


def breakdown(runner: ChildRunner, workloads: list[str]) -> Table:
    """jitgraph's compile split into stages: a cold and a warm staged process (see
    ``compile_child.py --staged``), then a warm unstaged one, with and without bytecode."""
    cols = [("stage", "stage (seconds)")]
    data: dict[str, dict] = {}
    outside: set[str] = set()
    for workload in workloads:
        cache = runner.new_cache(f"staged-{workload}")
        cold = runner.run("jitgraph", workload, "float64", cache, staged=True)
        warm = runner.run("jitgraph", workload, "float64", cache, staged="warm")
        natural = runner.run("jitgraph", workload, "float64", cache)
        nobc = runner.run("jitgraph", workload, "float64", cache, bytecode=False)
        progress(f"staged {workload}: cold {cold['compile_s']:.3g} s, warm "
                 f"{warm['compile_s']:.3g} s")
        for phase, res in (("cold", cold), ("warm", warm)):
            res = dict(res)
            jit_outside = [(n, s) for n, s in res.get("jit", [])
                           if not n.startswith("jitgraph_cached")]
            outside.update(n.split("jitgraph.backend_cpu.")[-1] for n, _ in jit_outside)
            res.update(
                function_rest_s=res["function_s"] - sum(res[f"maker_{k}_s"] for k in
                                                        ("graph", "rewrite", "link")),
                compile_total_s=(res["llvm_init_s"] + res["numba_import_s"]
                                 + res["numba_init_s"] + res["compile_s"]),
                cache=f"{res['cache']['hits']} / {res['cache']['misses']}",
                kernel_s=sum(k[1] for k in res.get("kernels", [])),
                direct_s=sum(k[1] for k in res.get("kernels", []) if k[2].startswith("direct")),
                jit_s=sum(s for _, s in res.get("jit", [])),
                jit_outside_s=sum(s for _, s in jit_outside))
            if phase == "warm":
                res.update(natural_s=natural["compile_s"], nobytecode_s=nobc["compile_s"])
            data[f"{workload} {phase}"] = res
            cols.append((f"{workload} {phase}", f"{workload} {phase}"))
    RESULTS["children"]["breakdown"] = data
    table = Table("[5] jitgraph compile breakdown (float64, openmp off; the staged cold process "
                  "starts LLVM for the direct compiler first, and Numba only under "
                  "JITGRAPH_DIRECT=0, the only kernels that need it being those the direct "
                  "compiler leaves to Numba; the warm one loads every kernel without LLVM or "
                  "Numba; then as in [1]/[4])", cols)
    for key, label in STAGES:
        table.add(stage=label, **{c: r.get(key) for c, r in data.items()})
    table.note = ("  details overlap the stages above (kernel entries are compiled in linking "
                  "or at the first call).\n  Numba functions compiled in-process outside the "
                  "kernel cache: " + (", ".join(sorted(outside)) or "none"))
    return table


# -- summary ------------------------------------------------------------------------------------

def summary(tables: dict[str, Table]) -> Table:
    table = Table("[summary] targets of the CPU-backend issue (one run; jitgraph FAST_RUN)",
                  [("target", "target"), ("measured", "measured"), ("value", "value", ".4g"),
                   ("required", "required"), ("result", "result")],
                  note="  value: the quantity the requirement bounds (a ratio of jitgraph to the "
                       "reference, a speed-up, a fraction, or seconds / µs).")

    def add(target: str, measured: str, value: float, required: str, ok: bool) -> None:
        table.add(target=target, measured=measured, value=value, required=required,
                  result="PASS" if ok else "FAIL")

    def get(name: str, **match: Any) -> dict | None:
        t = tables.get(name)
        return t.find(**match) if t else None

    def missing(target: str, why: str) -> None:
        table.add(target=target, measured=why, result="n/a")

    for dtype in ("float64", "float32"):
        jg = get("logreg", key="jitgraph", dtype=dtype)
        pc = get("logreg", key="pytensor-c", dtype=dtype)
        target = f"logreg step ({dtype}) <= PyTensor C's"
        if jg and pc and pc.get("step_ms"):
            r = jg["step_ms"] / pc["step_ms"]
            add(target, f"{jg['step_ms']:.3g} ms vs {pc['step_ms']:.3g} ms", r, "<= 1x", r <= 1)
        elif jg:
            missing(target, "PyTensor C not measured")
    jg = get("logreg", key="jitgraph", dtype="float64")
    pn = get("logreg", key="pytensor-numba", dtype="float64")
    if jg and pn and pn.get("cold_s"):
        r = jg["cold_s"] / pn["cold_s"]
        add("logreg cold compile <= 0.2x PyTensor Numba's", f"{jg['cold_s']:.3g} s vs "
            f"{pn['cold_s']:.3g} s", r, "<= 0.2x", r <= 0.2)
    elif jg:
        missing("logreg cold compile <= 0.2x PyTensor Numba's", "PyTensor Numba not measured")
    if jg and jg.get("warm_s"):
        r = jg["cold_s"] / jg["warm_s"]
        add("logreg warm compile >= 20x faster than cold", f"{jg['cold_s']:.3g} s / "
            f"{jg['warm_s']:.3g} s", r, ">= 20x", r >= 20)
    m = get("mlp", key="jitgraph", dtype="float64")
    if m and m.get("cold_s"):
        add("MLP cold compile <= 5 s", f"{m['cold_s']:.3g} s", m["cold_s"], "<= 5 s",
            m["cold_s"] <= 5)
    for key, what in (("jitgraph-False", "default call"),
                      ("jitgraph-False-trust", "trust_input")):
        o = get("overhead", key=key)
        if o:
            add(f"per-call overhead, {what} <= 3 µs", f"{o['us']:.3g} µs", o["us"], "<= 3 µs",
                o["us"] <= 3)
    for openmp, need in (("off", 1.4), ("on", 2.5)):
        t = get("transcendental", system=f"jitgraph FAST_RUN, openmp {openmp}")
        if t:
            add(f"transcendental, openmp {openmp}: >= {need}x NumPy",
                f"{t['ms']:.3g} ms vs {t['ms'] * t['speedup']:.3g} ms", t["speedup"],
                f">= {need}x", t["speedup"] >= need)
    for openmp in ("off", "on"):
        t = get("xyz", system=f"jitgraph FAST_RUN, openmp {openmp}")
        if t:
            add(f"x*y+z, openmp {openmp}: >= 0.6 of copy bandwidth", f"{t['GBps']:.3g} GB/s",
                t["fraction"], ">= 0.6", t["fraction"] >= 0.6)
    return table


def run_workloads(args: argparse.Namespace, systems: list[str], chosen: set[str],
                  runner: ChildRunner) -> dict[str, Table]:
    """The chosen workloads, in order; each table is printed as soon as it is complete."""
    tables: dict[str, Table] = {}

    def done(name: str, table: Table) -> None:
        tables[name] = table
        table.show()

    compiled = [s for s in systems if s != "numexpr"]
    if chosen & {"1", "4", "5"}:
        for system in dict.fromkeys(s.replace("-omp", "") for s in compiled if s != "numpy"):
            if installed(PACKAGE[system]):
                progress(f"priming the bytecode cache: {system}")
                runner.prime(system)
    if "1" in chosen:
        done("logreg", compile_workload(runner, "logreg", ["float64"] if args.quick
                                        else ["float64", "float32"], compiled, args))
    if chosen & {"2", "3"}:
        import inproc

        inproc.SYSTEMS = set(systems)
        if "2" in chosen:
            done("overhead", inproc.workload_overhead(repeat=3 if args.quick else 5))
        if "3" in chosen:
            t1, t2 = inproc.workload_elementwise(10**5 if args.quick else 10**7,
                                                 repeat=3 if args.quick else 7)
            done("transcendental", t1)
            done("xyz", t2)
    if "4" in chosen:
        done("mlp", compile_workload(runner, "mlp", ["float64"] if args.quick
                                     else ["float64", "float32"], [
            s for s in compiled if not (args.quick and s == "jitgraph-omp")], args))
    if "5" in chosen and "jitgraph" in systems:
        done("breakdown", breakdown(runner, ["logreg"] if args.quick else ["logreg", "mlp"]))
    done("summary", summary(tables))
    return tables


# -- main ---------------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke test: small sizes, 1 repeat")
    parser.add_argument("--workloads", default="1,2,3,4,5",
                        help="comma-separated subset of 1,2,3,4,5 (5: compile breakdown)")
    parser.add_argument("--systems", default=None,
                        help=f"comma-separated subset of {','.join(ALL_SYSTEMS)} (default: all; "
                             "--quick: all but PyTensor)")
    parser.add_argument("--compile-repeat", type=int, default=None,
                        help="fresh processes per cold/warm compile (default 2; --quick 1)")
    parser.add_argument("--out", default=None, help="JSON path (default bench/results/...)")
    args = parser.parse_args()
    if args.systems:
        systems = args.systems.split(",")
        unknown = set(systems) - set(ALL_SYSTEMS)
        if unknown:
            parser.error(f"unknown systems {sorted(unknown)}; choose among {ALL_SYSTEMS}")
    else:
        systems = [s for s in ALL_SYSTEMS if not (args.quick and s.startswith("pytensor"))]
    args.compile_repeat = args.compile_repeat or (1 if args.quick else 2)

    runner = ChildRunner()
    # Removed at exit, after PyTensor's own exit handlers (registered later, run earlier).
    atexit.register(runner.cleanup)
    # This process's own compiles (workloads 2 and 3) go to temporary compiledirs, never to
    # the user's ~/.jitgraph or ~/.pytensor; set before jitgraph or PyTensor is imported.
    os.environ["JITGRAPH_FLAGS"] = f"base_compiledir={runner.root / 'main-jitgraph'}"
    os.environ["PYTENSOR_FLAGS"] = f"base_compiledir={runner.root / 'main-pytensor'}"
    started = time.time()
    load0 = load_average()
    print(f"jitgraph CPU benchmarks: {' '.join(sys.argv)}")
    print(f"load average (1 min) at start: {load0:.2f} on {os.cpu_count()} CPUs"
          + ("  -- WARNING: the machine is busy, timings are unreliable" if load0 > 0.7 else ""))
    RESULTS["machine"] = machine_info()
    RESULTS["run"] = {"argv": sys.argv, "systems": systems, "quick": args.quick,
                      "compile_repeat": args.compile_repeat, "load_start": load0,
                      "git": git_state()}
    print("versions: " + ", ".join(f"{k} {v}" for k, v in RESULTS["machine"].items()
                                  if k not in ("platform", "cpus")))
    tables = run_workloads(args, systems, set(args.workloads.split(",")), runner)
    load1 = load_average()
    RESULTS["run"].update(load_end=load1, seconds=time.time() - started)
    RESULTS["tables"] = {k: t.to_json() for k, t in tables.items()}
    print(f"\nload average (1 min) at the end: {load1:.2f} (this benchmark's own processes "
          f"included); {time.time() - started:.0f} s")
    out = Path(args.out) if args.out else (
        HERE / "results" / f"cpu-{time.strftime('%Y%m%d-%H%M%S')}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumps(RESULTS))
    print(f"wrote {out}")


def git_state() -> dict[str, Any]:
    """The commit measured and the files changed in the working tree (they are measured too)."""
    import subprocess

    def git(*cmd: str) -> str:
        proc = subprocess.run(["git", *cmd], capture_output=True, text=True, check=False,
                              cwd=str(HERE.parent))
        return proc.stdout.rstrip("\n")

    return {"commit": git("rev-parse", "HEAD").strip(),
            "changed": [line[3:] for line in git("status", "--porcelain", "--", "jitgraph",
                                                  "bench").splitlines()]}


def machine_info() -> dict[str, Any]:
    from importlib.metadata import PackageNotFoundError, version

    info: dict[str, Any] = {"platform": platform.platform(), "cpus": os.cpu_count(),
                            "python": platform.python_version()}
    for pkg in ("numpy", "numba", "llvmlite", "scipy", "pytensor", "jax", "jaxlib", "numexpr"):
        try:
            info[pkg] = version(pkg)
        except PackageNotFoundError:
            info[pkg] = "not installed"
    return info


if __name__ == "__main__":
    main()
