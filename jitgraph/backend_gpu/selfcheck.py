"""The one-shot check of the GPU backend on real hardware: the only thing to run the day a GPU
is lent.

    python -m jitgraph.backend_gpu.selfcheck [--budget 420] [--json report.json]

from a source checkout (the tests are not installed with the package). It runs, each in a
fresh interpreter on the real CuPy (never the emulated device the CI uses):

1. the GPU tests (``tests/backend_gpu`` marked ``gpu``) with ``JITGRAPH_TEST_REAL_GPU=1``,
   one row per test file;
2. the whole programs of ``tests/backend_gpu/whole_programs.py`` (MLP, LeNet, Elman RNN, LSTM),
   under ``device=cuda0`` and ``device=cpu``, their numbers compared (float32 tolerance) and
   timed;
3. ``bench/bench_gpu.py`` at a modest size (throughput, steps per second, call overhead),

and prints a table: each check, its result, the kernels it launched (counted by wrapping the
kernels jitgraph loads), and its time against the CPU backend where there is one. The whole
stays under 8 minutes on one GPU (``--budget`` seconds, split between the parts). Without a
usable GPU it says why and exits with status 2; a failed check gives status 1.
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
from typing import Any

#: the source checkout this module belongs to (tests/ and bench/ live there)
ROOT = Path(__file__).resolve().parents[2]
NO_GPU = 2
FAILED = 1


def gpu_problem() -> str | None:
    """Why no real GPU can run the checks here (None: one can)."""
    from jitgraph.backend_gpu.device import status

    ok, why = status(0)
    if not ok:
        return why
    import cupy

    if "emulated_cuda" in str(getattr(cupy, "__file__", "")):
        return ("the cupy imported is the tests' emulated CUDA device (tests/emulated_cuda on "
                "the path), not a GPU")
    return None


# -- counting kernel launches (in the child interpreters) -----------------------------------
LAUNCHES = [0]


def count_launches() -> None:
    """Count every launch of a kernel jitgraph loads from now on (this process)."""
    from jitgraph.backend_gpu import kernels

    loaded_get = kernels.LoadedModule.get
    if getattr(loaded_get, "counting", False):
        return

    def get(self: Any, entry: str) -> Any:
        function = loaded_get(self, entry)

        def launch(*args: Any, **kwargs: Any) -> Any:
            LAUNCHES[0] += 1
            return function(*args, **kwargs)

        return launch

    get.counting = True  # type: ignore[attr-defined]
    kernels.LoadedModule.get = get


# pytest hooks, when this module is loaded as a plugin (``-p jitgraph.backend_gpu.selfcheck``)
_RESULTS: dict[str, dict] = {}


def pytest_configure(config: Any) -> None:
    count_launches()


def pytest_runtest_logreport(report: Any) -> None:
    row = _RESULTS.setdefault(report.nodeid.split("::")[0], {"passed": 0, "failed": 0,
                                                             "skipped": 0, "seconds": 0.0})
    if report.when == "call" or report.outcome != "passed":  # (a setup may fail or skip)
        row[report.outcome] += 1
    row["seconds"] += report.duration
    row["launches"] = LAUNCHES[0]


def pytest_sessionfinish(session: Any) -> None:
    out = os.environ.get("JITGRAPH_SELFCHECK_OUT")
    if out:
        Path(out).write_text(json.dumps(_RESULTS))


# -- the parts --------------------------------------------------------------------------------
def _run(args: list[str], timeout: float, env: dict | None = None) -> tuple[int, str, float]:
    full = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    full.update(env or {})
    t0 = time.perf_counter()
    try:
        run = subprocess.run([sys.executable] + args, cwd=str(ROOT), env=full, text=True,
                             capture_output=True, timeout=max(timeout, 1))
    except subprocess.TimeoutExpired:
        return -1, f"timed out after {timeout:.0f} s", time.perf_counter() - t0
    return run.returncode, run.stdout + run.stderr, time.perf_counter() - t0


def run_tests(timeout: float, paths: tuple[str, ...] = ("tests/backend_gpu",),
              real_gpu: bool = True) -> list[dict]:
    """The GPU tests of ``paths`` on the real GPU (``real_gpu=False``: on the device the tests
    choose, the emulated one: how this module's own test runs it), one row per file."""
    out = Path(tempfile.mkdtemp(prefix="jitgraph-selfcheck-")) / "tests.json"
    code, text, _ = _run(["-m", "pytest", "-q", "-m", "gpu", "-p", "no:cacheprovider",
                          "-p", "jitgraph.backend_gpu.selfcheck", *paths],
                         timeout, {"JITGRAPH_TEST_REAL_GPU": "1" if real_gpu else "0",
                                   "JITGRAPH_SELFCHECK_OUT": str(out)})
    if not out.exists():
        return [{"check": "GPU tests (tests/backend_gpu)", "ok": False,
                 "result": f"did not run (status {code}): {text.strip()[-300:]}"}]
    rows, launched = [], 0
    for path, r in sorted(json.loads(out.read_text()).items()):
        launches = r.get("launches", launched)
        rows.append({"check": path, "ok": r["failed"] == 0,
                     "result": f"{r['passed']} passed, {r['failed']} failed, "
                               f"{r['skipped']} skipped", "launches": launches - launched,
                     "gpu_s": r["seconds"]})
        launched = launches
    return rows


CHILD = """
import sys, time, json
from jitgraph.backend_gpu.selfcheck import LAUNCHES, count_launches
sys.path.insert(0, "tests/backend_gpu")
import jitgraph, whole_programs
if "cuda" in str(jitgraph.config.device):
    count_launches()
times = {}
for name in whole_programs.PROGRAMS:
    t0 = time.perf_counter()
    whole_programs.main(sys.argv[1].replace(".npz", "_" + name + ".npz"), [name])
    times[name] = [time.perf_counter() - t0, LAUNCHES[0]]
json.dump(times, open(sys.argv[1].replace(".npz", "_times.json"), "w"))
"""


def run_programs(timeout: float) -> list[dict]:
    """The whole programs on the GPU and on the CPU, compared and timed."""
    import numpy as np

    folder = Path(tempfile.mkdtemp(prefix="jitgraph-selfcheck-"))
    runs = {}
    for device in ("cuda0", "cpu"):
        out = str(folder / f"{device}.npz")
        code, text, _ = _run(["-c", CHILD, out], timeout / 2,
                             {"THEANO_FLAGS": f"device={device},floatX=float32"})
        if code != 0:
            return [{"check": f"whole programs on {device}", "ok": False,
                     "result": f"failed: {text.strip()[-300:]}"}]
        runs[device] = (out, json.loads(Path(out.replace(".npz", "_times.json")).read_text()))
    rows, launched = [], 0
    for name, (gpu_s, launches) in runs["cuda0"][1].items():
        got = np.load(runs["cuda0"][0].replace(".npz", f"_{name}.npz"))
        ref = np.load(runs["cpu"][0].replace(".npz", f"_{name}.npz"))
        worst = max(float(np.max(np.abs(got[k] - ref[k]) / (np.abs(ref[k]) + 1e-3)))
                    for k in ref.files)
        ok = worst < 1e-3 and launches > launched
        rows.append({"check": f"program {name} (device=cuda0 vs cpu)", "ok": ok,
                     "result": f"max rel. diff {worst:.1e}", "launches": launches - launched,
                     "gpu_s": gpu_s, "cpu_s": runs["cpu"][1][name][0]})
        launched = launches
    return rows


def run_bench(timeout: float) -> list[dict]:
    """bench/bench_gpu.py at a size that fits the budget."""
    out = Path(tempfile.mkdtemp(prefix="jitgraph-selfcheck-")) / "bench.json"
    code, text, seconds = _run(["bench/bench_gpu.py", "--size", str(1 << 24), "--steps", "300",
                                "--calls", "500", "--json", str(out)], timeout)
    if code != 0 or not out.exists():
        return [{"check": "bench/bench_gpu.py", "ok": False,
                 "result": f"failed (status {code}): {text.strip()[-300:]}"}]
    return [{"check": "bench/bench_gpu.py", "ok": True, "gpu_s": seconds,
             "result": _bench_summary(json.loads(out.read_text()))}]


def _bench_summary(results: dict) -> str:
    parts = []
    for key, value in results.items():
        if isinstance(value, dict):
            numbers = [f"{k}={v:.3g}" for k, v in value.items() if isinstance(v, (int, float))]
            parts.append(f"{key}: " + ", ".join(numbers[:3]))
    return "; ".join(parts)


def table(rows: list[dict]) -> str:
    """The report: one line per check."""
    head = f"{'check':<46} {'ok':<4} {'launches':>8} {'GPU s':>8} {'CPU s':>8} {'GPU/CPU':>8}  result"
    lines = [head, "-" * len(head)]
    for r in rows:
        gpu, cpu = r.get("gpu_s"), r.get("cpu_s")
        ratio = f"{gpu / cpu:8.2f}" if gpu and cpu else f"{'-':>8}"
        lines.append(f"{r['check'][:46]:<46} {'yes' if r['ok'] else 'NO':<4} "
                     f"{r.get('launches', '-')!s:>8} "
                     f"{f'{gpu:.2f}' if gpu is not None else '-':>8} "
                     f"{f'{cpu:.2f}' if cpu is not None else '-':>8} {ratio}  {r['result']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=420.0,
                        help="seconds for the whole check (default 420: 7 minutes)")
    parser.add_argument("--json", default="", help="also write the rows to this file")
    args = parser.parse_args(argv)
    problem = gpu_problem()
    if problem is not None:
        print(f"jitgraph GPU self-check: no GPU is usable here: {problem}.\n"
              "Nothing was checked. (The CI runs the GPU tests on an emulated device; this "
              "check is for a machine with an NVIDIA GPU, CuPy and NVRTC: "
              "pip install -e '.[test,cuda13]'.)", file=sys.stderr)
        return NO_GPU
    if not (ROOT / "tests" / "backend_gpu").is_dir():
        print(f"jitgraph GPU self-check: run it from a source checkout ({ROOT} has no "
              "tests/backend_gpu)", file=sys.stderr)
        return FAILED
    start = time.perf_counter()
    rows = run_tests(args.budget * 0.5)
    rows += run_programs(max(args.budget * 0.3, args.budget - (time.perf_counter() - start)
                             - args.budget * 0.2))
    rows += run_bench(max(30.0, args.budget - (time.perf_counter() - start)))
    print(table(rows))
    print(f"\n{sum(r['ok'] for r in rows)} of {len(rows)} checks passed in "
          f"{time.perf_counter() - start:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0 if all(r["ok"] for r in rows) else FAILED


if __name__ == "__main__":
    sys.exit(main())
