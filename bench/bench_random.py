"""Random-number benchmark: MRG31k3p uniform draws per second.

    python bench/bench_random.py                 # everything (about two minutes)
    python bench/bench_random.py --quick         # smoke test: small sizes, one repetition
    python bench/bench_random.py --no-theano     # skip the Theano 1.0.5 oracle subprocess

For float32 and float64 and 10**3, 10**6 and 10**7 samples, one call of a compiled function
returning ``uniform((n,))`` (a fresh output array every call, the stream state advanced):

* jitgraph ``MRG_RandomStreams`` (openmp off and on; the same numbers as Theano);
* Theano 1.0.5's ``MRG_RandomStreams`` (its C code on the CPU), run through the oracle
  (``../shared/tools/theano-oracle``, or ``$THEANO_ORACLE``) in a subprocess;
* PyTensor's ``RandomStream().uniform`` (NumPy's ``Generator`` in a ``perform`` node);
* ``numpy.random.default_rng().random(n, dtype)`` (PCG64, the reference of the goal);
* JAX ``jax.random.uniform`` under ``jax.jit`` (float64 with ``jax_enable_x64``).

Numbers are draws per second from the best of several timings (of 100 calls each for small
draws, of one call for large ones). The issue's goals: at 10**7, jitgraph with openmp at least
NumPy's Generator; at every size, at least 10x Theano's CPU MRG. Prints the
1-minute load average at the start and the end (the machine is shared: compare under similar
load), and writes ``bench/results/random-<timestamp>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from harness import Table, dumps, installed, load_average  # noqa: E402

DTYPES = ("float32", "float64")
SIZES = (10**3, 10**6, 10**7)
SYSTEMS = ("jitgraph", "jitgraph-omp", "theano", "pytensor", "numpy", "jax")


def repeats(n: int, quick: bool) -> int:
    if quick:
        return 1
    return {10**3: 300, 10**6: 15, 10**7: 5}.get(n, 3)


def calls_per_sample(n: int) -> int:
    """Calls timed together: a small draw takes a microsecond or two, so one call per clock
    reading would mostly measure the clock and the scheduler's jitter."""
    return 100 if n <= 10**4 else 1


def best_seconds(fn: Callable[[], Any], repeat: int, inner: int = 1) -> float:
    """Seconds per call: the best over ``repeat`` timings of ``inner`` calls, after calling
    for at least 0.2 s (a short run right after an idle spell is timed at a lower clock)."""
    warm_until = time.perf_counter() + 0.2
    while time.perf_counter() < warm_until:
        fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        best = min(best, (time.perf_counter() - t0) / inner)
    return best


def jitgraph_draw(n: int, dtype: str, openmp: bool) -> Callable[[], Any]:
    import jitgraph
    from jitgraph.sandbox.rng_mrg import MRG_RandomStreams

    with jitgraph.config.change_flags(floatX=dtype, openmp=openmp):
        f = jitgraph.function([], MRG_RandomStreams(12345).uniform((n,)))
    return f


def pytensor_draw(n: int, dtype: str) -> Callable[[], Any]:
    import warnings

    import pytensor
    from pytensor.tensor.random.utils import RandomStream

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # RandomStream's deprecation notice
        f = pytensor.function([], RandomStream(12345).uniform(size=(n,), dtype=dtype))
    return f


def numpy_draw(n: int, dtype: str) -> Callable[[], Any]:
    import numpy as np

    gen = np.random.default_rng(12345)
    return lambda: gen.random(n, dtype=dtype)


def jax_draw(n: int, dtype: str) -> Callable[[], Any]:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    draw = jax.jit(lambda key: jax.random.uniform(key, (n,), dtype=getattr(jnp, dtype)))
    key = jax.random.PRNGKey(12345)
    return lambda: draw(key).block_until_ready()


THEANO_SCRIPT = """
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import theano
from theano.sandbox.rng_mrg import MRG_RandomStreams
results = {}
for dtype, n, repeat in json.loads(sys.argv[1]):
    with theano.change_flags(floatX=dtype):
        f = theano.function([], MRG_RandomStreams(12345).uniform((n,)))
    warm_until = time.perf_counter() + 0.2
    while time.perf_counter() < warm_until:
        f()
    inner = 100 if n <= 10**4 else 1
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(inner):
            f()
        best = min(best, (time.perf_counter() - t0) / inner)
    results[f"{dtype} {n}"] = best
print("RESULTS", json.dumps(results))
"""


def theano_seconds(jobs: list[tuple[str, int, int]]) -> dict[str, float]:
    """Best seconds per ``"dtype n"`` measured by Theano 1.0.5 in the oracle's interpreter."""
    oracle = os.environ.get("THEANO_ORACLE",
                            str(HERE.parent.parent / "shared" / "tools" / "theano-oracle"))
    if not Path(oracle).exists():
        print(f"(Theano oracle not found at {oracle}: skipped)")
        return {}
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:
        script.write(THEANO_SCRIPT)
    try:
        res = subprocess.run([oracle, script.name, json.dumps(jobs)], capture_output=True,
                             text=True, timeout=1200)
    finally:
        os.unlink(script.name)
    for line in res.stdout.splitlines():
        if line.startswith("RESULTS "):
            return json.loads(line[len("RESULTS "):])
    print(f"(Theano oracle failed: {res.stderr[-500:]})")
    return {}


def measure(system: str, n: int, dtype: str, quick: bool) -> float | None:
    makers = {"jitgraph": lambda: jitgraph_draw(n, dtype, False),
              "jitgraph-omp": lambda: jitgraph_draw(n, dtype, True),
              "pytensor": lambda: pytensor_draw(n, dtype),
              "numpy": lambda: numpy_draw(n, dtype),
              "jax": lambda: jax_draw(n, dtype)}
    package = {"jitgraph-omp": "jitgraph"}.get(system, system)
    if not installed(package):
        return None
    return best_seconds(makers[system](), repeats(n, quick), calls_per_sample(n))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-theano", action="store_true")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    args = parser.parse_args()
    systems = args.systems.split(",")
    sizes = (10**3, 10**5) if args.quick else SIZES
    print(f"load average (1 min) at start: {load_average():.2f}; cpus: {os.cpu_count()}")
    seconds: dict[tuple[str, str, int], float | None] = {}
    if "theano" in systems and not args.no_theano:
        jobs = [(d, n, repeats(n, args.quick)) for d in DTYPES for n in sizes]
        for key, value in theano_seconds(jobs).items():
            dtype, n = key.split()
            seconds[("theano", dtype, int(n))] = value
    for system in systems:
        if system == "theano":
            continue
        for dtype in DTYPES:
            for n in sizes:
                seconds[(system, dtype, n)] = measure(system, n, dtype, args.quick)
    table = Table("MRG uniform: millions of draws per second (higher is better)",
                  [("system", "system")] + [(f"{d} {n}", f"{d} n={n:.0e}", ".1f")
                                            for d in DTYPES for n in sizes])
    for system in systems:
        row = {"system": system}
        for dtype in DTYPES:
            for n in sizes:
                s = seconds.get((system, dtype, n))
                row[f"{dtype} {n}"] = None if s is None else n / s / 1e6
        table.add(**row)
    table.show()
    top = max(sizes)
    goals = [("numpy", 1.0, dtype, top) for dtype in DTYPES]  # NumPy's Generator at 10**7
    goals += [("theano", 10.0, dtype, n) for dtype in DTYPES for n in sizes]  # 10x, every n
    for other, factor, dtype, n in goals:
        mine = seconds.get(("jitgraph-omp", dtype, n))
        theirs = seconds.get((other, dtype, n))
        if mine and theirs:
            ratio = theirs / mine
            verdict = "PASS" if ratio >= factor else "FAIL"
            print(f"goal {dtype} n={n:.0e}: jitgraph-omp is {ratio:.2f}x {other} "
                  f"(goal >= {factor:g}x): {verdict}")
    print(f"load average (1 min) at end: {load_average():.2f}")
    out = HERE / "results" / f"random-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(dumps({"table": table.to_json(), "load_end": load_average()}))
    print(f"written {out}")


if __name__ == "__main__":
    main()
