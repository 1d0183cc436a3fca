"""Timing helpers, tables and the fresh-process runner of ``bench_cpu.py``."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def best_ms(fn: Callable[[], Any], repeat: int = 5) -> float:
    """Best wall time of ``repeat`` calls after one warm-up call, in milliseconds."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times) * 1e3


def per_call_us(fn: Callable[[], Any], repeat: int = 5, budget_s: float = 0.2) -> float:
    """Best of ``repeat`` timeit runs, each of as many calls as fit ``budget_s``, in µs."""
    fn()
    timer = timeit.Timer(fn)
    number = 1
    while True:
        if timer.timeit(number) >= budget_s / 4 or number >= 10**6:
            break
        number *= 4
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e6


def load_average() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if value == 0:
            return "0"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        if abs(value) >= 0.01:
            return f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"
        return f"{value:.2e}"
    return str(value)


class Table:
    """Rows printed as an aligned table at :meth:`show`; kept as dicts for the JSON."""

    def __init__(self, title: str, columns: list[tuple], note: str = "") -> None:
        """``columns``: ``(key, header)`` or ``(key, header, format_spec)``."""
        self.title, self.columns, self.note = title, columns, note
        self.rows: list[dict[str, Any]] = []

    def add(self, **cells: Any) -> dict[str, Any]:
        self.rows.append(cells)
        return cells

    def find(self, **match: Any) -> dict[str, Any] | None:
        for r in self.rows:
            if all(r.get(k) == v for k, v in match.items()):
                return r
        return None

    def show(self) -> None:
        heads = [c[1] for c in self.columns]

        def cell(row: dict, col: tuple) -> str:
            value = row.get(col[0])
            if len(col) > 2 and isinstance(value, float):
                return format(value, col[2])
            return fmt(value)

        cells = [[cell(r, c) for c in self.columns] for r in self.rows]
        widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(heads)]
        print(f"\n{self.title}")
        line = "  ".join(h.ljust(w) if i == 0 else h.rjust(w)
                         for i, (h, w) in enumerate(zip(heads, widths)))
        print(line)
        print("-" * len(line))
        for c in cells:
            print("  ".join(v.ljust(w) if i == 0 else v.rjust(w)
                            for i, (v, w) in enumerate(zip(c, widths))))
        if self.note:
            print(self.note)
        sys.stdout.flush()

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "note": self.note, "rows": self.rows}


class ChildRunner:
    """Fresh Python processes running ``compile_child.py`` with controlled caches and flags.

    Every child gets: its own jitgraph ``base_compiledir`` / PyTensor ``base_compiledir`` / JAX
    persistent cache folder (``cache``: a fresh folder for a cold compile, the same one again
    for a warm compile); no inherited ``JITGRAPH_FLAGS``/``THEANO_FLAGS``/``PYTENSOR_FLAGS``/
    ``NUMBA_CACHE_DIR``; and, unless ``bytecode=False``, Python bytecode caching on (into one
    folder of this run, ``PYTHONPYCACHEPREFIX``), as an installed package has its ``.pyc``
    files. Call :meth:`prime` for a system before timing it, so that its modules are already
    byte-compiled."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="jitgraph-bench-"))
        self.pycache = self.root / "pycache"
        self._n = 0

    def new_cache(self, label: str) -> Path:
        self._n += 1
        path = self.root / f"{self._n:03d}-{label}"
        path.mkdir()
        return path

    def env(self, system: str, cache: Path, dtype: str, openmp: bool, bytecode: bool
            ) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if k not in ("JITGRAPH_FLAGS", "THEANO_FLAGS", "PYTENSOR_FLAGS", "NUMBA_CACHE_DIR",
                            "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
        if bytecode:
            env["PYTHONPYCACHEPREFIX"] = str(self.pycache)
        else:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        flags = f"base_compiledir={cache},floatX={dtype}"
        if system.startswith("jitgraph"):
            env["JITGRAPH_FLAGS"] = flags + f",openmp={openmp}"
        elif system.startswith("pytensor"):
            env["PYTENSOR_FLAGS"] = flags
        elif system == "jax":
            env["BENCH_JAX_CACHE"] = str(cache / "jax")
        return env

    def run(self, system: str, workload: str, dtype: str, cache: Path, steps: int = 0,
            repeat: int = 5, staged: bool | str = False, bytecode: bool = True
            ) -> dict[str, Any]:
        """``staged``: True (``--staged``), "warm" (``--staged-warm``) or False."""
        openmp = system == "jitgraph-omp"
        cmd = [sys.executable, str(HERE / "compile_child.py"), system, workload, dtype,
               "--steps", str(steps), "--repeat", str(repeat)] + (
                   ["--staged-warm"] if staged == "warm" else ["--staged"] if staged else [])
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=str(ROOT),
                              check=False,
                              env=self.env(system, cache, dtype, openmp, bytecode))
        wall = time.perf_counter() - t0
        for line in proc.stdout.splitlines():
            if line.startswith("RESULT"):
                result = json.loads(line[6:])
                result["process_wall_s"] = wall
                return result
        raise RuntimeError(f"benchmark child {' '.join(cmd[1:])} failed (rc {proc.returncode}):"
                           f"\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")

    def prime(self, system: str) -> None:
        """Byte-compile what ``system`` imports (a logistic-regression compile, discarded)."""
        self.run(system, "logreg", "float64", self.new_cache(f"prime-{system}"))

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def dumps(obj: Any) -> str:
    return json.dumps(obj, indent=1, default=lambda o: repr(o))
