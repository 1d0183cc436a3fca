"""One fresh process of the compile benchmarks (started by ``bench_cpu.py``, never imported).

    python bench/compile_child.py SYSTEM WORKLOAD DTYPE [--steps N --repeat R] [--staged]

SYSTEM: jitgraph, pytensor-c, pytensor-numba, jax, numpy; WORKLOAD: logreg, mlp. The caches
(jitgraph's ``base_compiledir``, PyTensor's ``base_compiledir``, JAX's persistent compilation
cache) and flags come from the environment set by the parent. Prints one line
``RESULT{json}`` with, in seconds:

- ``import_s``: ``import numpy`` + the system's package (jitgraph: its backend's linker module,
  which does not import Numba);
- ``build_s``: building the symbolic graph and its gradient (``T.grad``; JAX: nothing);
- ``function_s``: the ``function(...)`` call (JAX: ``jax.jit``, which only wraps);
- ``first_call_s``: the first call of the compiled step (JAX traces, lowers and compiles here;
  jitgraph compiles or loads its kernels here, at their first call);
- ``compile_s = function_s + first_call_s``, the number the tables call "compile";
- with ``--staged`` (jitgraph only): the start-up of the toolchain a cold compile uses is done
  and timed first, so that it is not hidden in the first kernel (the sum is unchanged, the split
  is what the breakdown table shows): importing llvmlite, setting up LLVM and the host's
  target machine, importing the direct compiler and compiling one small loop so that LLVM's
  pipelines are initialised (what a cold compile does before it forks its compile-ahead
  child) (``llvm_init_s``); and only when Numba compiles the
  kernels (``JITGRAPH_DIRECT=0``), ``import numba`` and the initialisation of its CPU target
  (``numba_import_s``, ``numba_init_s``; else 0: a process whose kernels the direct compiler
  translates never imports Numba), every real Numba compilation (not a load from a disk cache)
  then being listed in ``jit``. A warm process loads its kernels without LLVM or Numba:
  ``--staged-warm`` stages everything else (the three times are 0);
- ``numba_imported``, ``llvmlite_imported``: whether the process imported Numba, llvmlite at all;
- ``graph_from_cache`` (jitgraph): whether the rewritten graph came from the compiledir;
- ``optimised_s``, ``tier0_entries`` (jitgraph): from ``function(...)`` until every kernel runs
  optimised code (a cold compile starts on tier-0 kernels: ``backend_cpu.codegen.tiering``).

and ``step_ms`` (best of R loops of N steps), ``check`` (a checksum of the first step's outputs,
to compare systems) and, for jitgraph, the rewrite/link split and the kernel-cache counters.
"""

from __future__ import annotations

import time

T_START = time.perf_counter()

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from child_common import checksum, import_system


def _toolchain_stages(result: dict) -> None:
    t0 = time.perf_counter()
    from jitgraph.backend_cpu import native

    native.prepare(["host"])
    result["llvm_init_s"] = time.perf_counter() - t0
    result["numba_import_s"] = result["numba_init_s"] = 0.0
    if os.environ.get("JITGRAPH_DIRECT", "1") == "0":
        _numba_stages(result)


def _numba_stages(result: dict) -> None:
    t0 = time.perf_counter()
    import numba  # noqa: F401

    t1 = time.perf_counter()
    from numba.core.registry import cpu_target

    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()
    cpu_target.target_context.codegen()
    result["numba_import_s"] = t1 - t0
    result["numba_init_s"] = time.perf_counter() - t1
    _record_numba_compiles(result)


def _record_numba_compiles(result: dict) -> None:
    """Record every real Numba compilation (``numba:compile`` events; loads from Numba's disk
    cache raise none) at nesting depth 0: ``(function, seconds)`` in ``result["jit"]``."""
    from numba.core import event

    class Listener(event.Listener):
        depth = 0
        started = 0.0

        def on_start(self, ev: object) -> None:
            if self.depth == 0:
                self.started = time.perf_counter()
            self.depth += 1

        def on_end(self, ev: object) -> None:
            self.depth -= 1
            if self.depth == 0:
                disp = (ev.data or {}).get("dispatcher")
                fn = getattr(disp, "py_func", None)
                name = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}"
                result.setdefault("jit", []).append((name, time.perf_counter() - self.started))

    event.register("numba:compile", Listener())


def _jitgraph_details(fn: object, result: dict) -> None:
    from jitgraph.backend_cpu.codegen.kernels import COMPILE_LOG
    from jitgraph.cache import STATS

    result.update({f"maker_{k}_s": v for k, v in fn.maker.compile_times.items()})
    result["graph_from_cache"] = fn.maker.graph_from_cache
    result["cache"] = {"hits": STATS.hits, "misses": STATS.misses, "rebuilt": STATS.rebuilt,
                       "load_s": STATS.load_seconds, "compile_s": STATS.compile_seconds}
    result["kernels"] = [(r.entry, round(r.seconds, 4), r.description[:70]) for r in COMPILE_LOG]


def _tier_stages(result: dict, started: float) -> None:
    """A cold jitgraph compile runs its first calls on tier-0 kernels while a child compiles
    the optimised ones: ``optimised_s`` is the time from ``function(...)`` until every kernel
    is optimised (waited for here, after the first call), ``tier0_entries`` how many entries
    started at tier 0 (0 when warm or ``JITGRAPH_TIERED=0``)."""
    from jitgraph.backend_cpu.codegen import tiering

    tiering.settle()
    result["optimised_s"] = time.perf_counter() - started
    result["tier0_entries"] = tiering.STATS.quick
    result["tier0_missed"] = tiering.STATS.missed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("system")
    parser.add_argument("workload", choices=("logreg", "mlp"))
    parser.add_argument("dtype")
    parser.add_argument("--steps", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--staged", action="store_true")
    parser.add_argument("--staged-warm", action="store_true")
    args = parser.parse_args()
    result: dict = {}
    t0 = time.perf_counter()
    import_system(args.system)
    t1 = time.perf_counter()
    result["startup_to_main_s"] = t0 - T_START
    result["import_s"] = t1 - t0
    if args.staged:
        _toolchain_stages(result)
    elif args.staged_warm:
        result["llvm_init_s"] = result["numba_import_s"] = result["numba_init_s"] = 0.0
    import models

    t2 = time.perf_counter()
    data, compile_fn = models.build(args.workload, args.system, args.dtype)
    t3 = time.perf_counter()
    step = compile_fn()
    t4 = time.perf_counter()
    first = step(*data)
    t5 = time.perf_counter()
    result.update(build_s=t3 - t2, function_s=t4 - t3, first_call_s=t5 - t4,
                  compile_s=t5 - t3, check=checksum(first))
    if args.system.startswith("jitgraph"):
        _tier_stages(result, t3)
        _jitgraph_details(step, result)
    elif args.system.startswith("pytensor"):
        import pytensor

        result["blas"] = pytensor.config.blas__ldflags
    if args.steps:
        times = []
        for _ in range(args.repeat):
            s0 = time.perf_counter()
            for _ in range(args.steps):
                step(*data)
            times.append((time.perf_counter() - s0) / args.steps)
        result["step_ms"] = min(times) * 1e3
        result["step_ms_median"] = sorted(times)[len(times) // 2] * 1e3
    result["numba_imported"] = "numba" in sys.modules
    result["llvmlite_imported"] = "llvmlite" in sys.modules
    print("RESULT" + json.dumps(result))


if __name__ == "__main__":
    main()
