"""Convolutional-network benchmarks: jitgraph against PyTensor 3's C backend, JAX and Theano
1.0.5 (through the oracle), float64 and float32.

    python bench/bench_conv.py                      # everything (a few minutes)
    python bench/bench_conv.py --quick              # one repetition, float64 only
    python bench/bench_conv.py --compile-only --dtypes float64   # only table [3]
    python bench/bench_conv.py --oracle ../shared/tools/theano-oracle   # adds Theano 1.0.5

1. LeNet-5 training step, batch 500 (``conv_models.py``): time per step (best of the loops, and
   the median) for each system, in a fresh process each.
2. A 64 -> 64 channel 3x3 convolution of 64 images of 32x32, forward + backward (both
   gradients).
3. jitgraph's compile of the LeNet training function: cold (empty compiledir, fresh process)
   and warm (a fresh process on the compiledir the cold one filled), best of
   ``--compile-repeat``; "cold, 1 process" without the child process that compiles a share of
   the kernels. "Compile" is the ``function(...)`` call plus the first call minus one step
   (what the first call does beyond a step: kernels compiled late, first touch of memory).

jitgraph runs twice: ``openmp`` off (im2col/pooling kernels on one thread; NumPy's BLAS uses its
own threads either way) and on. PyTensor 3 has no convolution or pooling op: its programs use
shifted slices + ``tensordot`` and reshape + ``max`` (see ``conv_models.py``). The machine is
shared: the 1-minute load average is printed at the start and the end; run it on a quiet
machine. Results go to ``bench/results/conv-<timestamp>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import ChildRunner, Table, dumps, installed, load_average  # noqa: E402

SYSTEMS = ("jitgraph", "jitgraph-omp", "pytensor-c", "jax", "theano")
PACKAGE = {"jitgraph": "jitgraph", "jitgraph-omp": "jitgraph", "pytensor-c": "pytensor",
           "jax": "jax"}


def run_child(runner: ChildRunner, system: str, workload: str, dtype: str, cache: Path,
              args: argparse.Namespace, extra_env: dict[str, str] | None = None
              ) -> dict[str, Any]:
    steps, repeat = (1, 1) if args.quick else (3, 3)
    cmd = [str(HERE / "conv_child.py"), system, workload, dtype, "--steps", str(steps),
           "--repeat", str(repeat)]
    env = runner.env(system, cache, dtype, system == "jitgraph-omp", True) | (extra_env or {})
    if system == "theano":
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JITGRAPH", "PYTHONPY"))}
        env["THEANO_FLAGS"] = f"floatX={dtype}"
        cmd = [args.oracle] + cmd
    else:
        cmd = [sys.executable] + cmd
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, check=False,
                          env=env, cwd=str(HERE.parent))
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT"):
            return json.loads(line[6:])
    raise RuntimeError(f"{system} {workload} {dtype} failed (rc {proc.returncode}):\n"
                       f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")


def available(system: str, args: argparse.Namespace) -> bool:
    if system == "theano":
        return bool(args.oracle)
    return installed(PACKAGE[system])


def step_tables(runner: ChildRunner, args: argparse.Namespace, results: dict) -> list[Table]:
    tables = []
    titles = {"lenet": "[1] LeNet-5 training step, batch 500",
              "conv": "[2] conv 64->64 3x3 ('half'), 64 images 32x32, forward + backward"}
    for workload in ("lenet", "conv"):
        table = Table(titles[workload], [("system", "system"), ("dtype", "dtype"),
                                         ("step_ms", "step ms"), ("median_ms", "median ms"),
                                         ("vs_jitgraph", "time / jitgraph's"),
                                         ("check", "checksum")])
        for dtype in args.dtypes:
            base = None
            for system in args.systems:
                if not available(system, args):
                    table.add(system=f"{system}: not available", dtype=dtype)
                    continue
                print(f"  .. {workload} {system} {dtype}", file=sys.stderr, flush=True)
                try:
                    r = run_child(runner, system, workload, dtype,
                                  runner.new_cache(f"{workload}-{system}"), args)
                except RuntimeError as exc:
                    table.add(system=f"{system}: failed", dtype=dtype)
                    results["errors"].append(str(exc)[-2000:])
                    continue
                results["children"][f"{workload}-{system}-{dtype}"] = r
                if system == "jitgraph":
                    base = r["step_ms"]
                table.add(system=system, dtype=dtype, step_ms=r["step_ms"],
                          median_ms=r["step_ms_median"], check=r["check"],
                          vs_jitgraph=r["step_ms"] / base if base else None)
        tables.append(table)
    return tables


def compile_table(runner: ChildRunner, args: argparse.Namespace, results: dict) -> Table:
    """Best of ``--compile-repeat`` fresh (cold, then warm) compiledirs: the machine is shared,
    and a compile's wall time only grows with other load. "cold, 1 process" turns off the
    child process that compiles a share of the kernels (``JITGRAPH_PARALLEL_COMPILE=0``)."""
    table = Table("[3] jitgraph: compile of the LeNet training function (fresh processes, "
                  f"best of {args.compile_repeat})",
                  [("dtype", "dtype"), ("kind", "compile"), ("function_s", "function() s"),
                   ("first_s", "first call s"), ("compile_s", "compile s"),
                   ("kernels", "kernels compiled"), ("kernel_s", "kernel compile s"),
                   ("cached", "graph from cache")])
    kinds = (("cold", {}), ("warm", {}), ("cold, 1 process", {"JITGRAPH_PARALLEL_COMPILE": "0"}))
    # byte-compiles every module the compile imports (an installed package has its .pyc)
    run_child(runner, "jitgraph", "lenet", args.dtypes[0], runner.new_cache("prime"), args)
    for dtype in args.dtypes:
        best: dict[str, dict] = {}
        for _ in range(args.compile_repeat):
            cache = runner.new_cache(f"compile-{dtype}")
            for kind, extra in kinds:
                if kind == "cold, 1 process":
                    cache = runner.new_cache(f"compile-{dtype}-serial")
                r = run_child(runner, "jitgraph", "lenet", dtype, cache, args, extra)
                # a warm start that missed the graph cache (a source file of a development
                # checkout changed meanwhile) is kept only if no other one hit it
                rank = (kind == "warm" and not r["graph_from_cache"], r["compile_s"])
                if kind not in best or rank < best[kind][0]:
                    best[kind] = (rank, r)
        for kind, _ in kinds:
            r = best[kind][1]
            results["children"][f"compile-{kind}-{dtype}"] = r
            table.add(dtype=dtype, kind=kind, function_s=r["function_s"],
                      first_s=r["first_call_s"], compile_s=r["compile_s"],
                      kernels=r["kernels_compiled"], kernel_s=r["kernel_compile_s"],
                      cached=r["graph_from_cache"])
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--systems", nargs="*", default=list(SYSTEMS))
    parser.add_argument("--dtypes", nargs="*", default=None)
    parser.add_argument("--compile-repeat", type=int, default=None,
                        help="compile measurements (cold, warm) to take the best of (default "
                             "3, 1 with --quick)")
    parser.add_argument("--compile-only", action="store_true",
                        help="only the compile table [3]")
    parser.add_argument("--oracle", default=None,
                        help="the theano-oracle script (runs Theano 1.0.5), e.g. "
                             "../shared/tools/theano-oracle")
    args = parser.parse_args()
    if args.dtypes is None:
        args.dtypes = ["float64"] if args.quick else ["float64", "float32"]
    if args.compile_repeat is None:
        args.compile_repeat = 1 if args.quick else 3
    results: dict[str, Any] = {"children": {}, "errors": [], "load_start": load_average()}
    print(f"load average (1 min) at start: {results['load_start']:.2f}, "
          f"{os.cpu_count()} CPUs", flush=True)
    runner = ChildRunner()
    try:
        tables = [] if args.compile_only else step_tables(runner, args, results)
        if "jitgraph" in args.systems:
            tables.append(compile_table(runner, args, results))
    finally:
        runner.cleanup()
    for table in tables:
        table.show()
    results["load_end"] = load_average()
    print(f"\nload average (1 min) at the end: {results['load_end']:.2f}")
    for err in results["errors"]:
        print("\nerror:", err)
    results["tables"] = [t.to_json() for t in tables]
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    path = out / f"conv-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(dumps(results))
    print(f"results: {path}")


if __name__ == "__main__":
    main()
