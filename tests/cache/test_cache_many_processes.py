"""Sixteen processes starting together on one empty compiledir compile each kernel once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

N_PROCESSES = 16

# What each process runs: two functions (four kernels between them), then it reports its
# cache counters. The processes wait for each other once jitgraph is imported (a barrier of
# files), so that they all reach the compile locks together.
CHILD = r"""
import json, os, sys, time
barrier, n = sys.argv[1], int(sys.argv[2])
import numpy as np
import jitgraph
import jitgraph.tensor as T
from jitgraph.cache import store
open(os.path.join(barrier, str(os.getpid())), "w").close()
deadline = time.time() + 120
while len(os.listdir(barrier)) < n and time.time() < deadline:
    time.sleep(0.005)
start = time.time()
x = T.dvector("x")
y = T.dvector("y")
f = jitgraph.function([x], (T.exp(x) * 2 + x * x).sum())
g = jitgraph.function([x, y], [T.tanh(x) - y / 3, (x * y).max()])
v = np.linspace(0.0, 1.0, 7)
a, (b, c) = f(v), g(v, v[::-1].copy())
from jitgraph.backend_cpu.codegen import tiering
tiering.settle()  # the optimised kernels' counts come with the compile child's report
print("RESULT" + json.dumps({"f": float(a), "g": b.tolist(), "max": float(c),
                             "misses": store.STATS.misses, "hits": store.STATS.hits,
                             "seconds": time.time() - start}))
"""


def _expected() -> dict:
    v = np.linspace(0.0, 1.0, 7)
    return {"f": float((np.exp(v) * 2 + v * v).sum()), "g": (np.tanh(v) - v[::-1] / 3),
            "max": float((v * v[::-1]).max())}


def _compiled_objects(compiledir: Path) -> list[Path]:
    """The native objects in the compiledir: one per compiled kernel function."""
    return sorted(compiledir.rglob("native-*.json"))


@pytest.mark.slow
def test_sixteen_processes_compile_each_kernel_once(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("JITGRAPH_FLAGS", "THEANO_FLAGS")}
    compiledir_base, barrier = tmp_path / "cache", tmp_path / "barrier"
    barrier.mkdir()
    env["JITGRAPH_FLAGS"] = f"base_compiledir={compiledir_base}"
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(barrier), str(N_PROCESSES)],
                              env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for _ in range(N_PROCESSES)]
    outputs = [p.communicate(timeout=300)[0] for p in procs]
    for p, out in zip(procs, outputs):
        assert p.returncode == 0, out
        assert "taking over the compile lock" not in out, out  # no lock timed out
    reports = [json.loads(line[6:]) for out in outputs for line in out.splitlines()
               if line.startswith("RESULT")]
    assert len(reports) == N_PROCESSES
    expected = _expected()
    for r in reports:
        assert r["f"] == pytest.approx(expected["f"], rel=1e-12)
        np.testing.assert_allclose(r["g"], expected["g"], rtol=1e-12)
        assert r["max"] == pytest.approx(expected["max"], rel=1e-12)
    objects = _compiled_objects(compiledir_base)
    assert objects, f"no compiled kernel in {compiledir_base}"
    # Each kernel was compiled by exactly one process; the others loaded it.
    assert sum(r["misses"] for r in reports) == len(objects)
    names = [(o.parent.name, o.name) for o in objects]
    assert len(set(names)) == len(names)
    assert all(r["misses"] + r["hits"] >= 1 for r in reports)
    # One folder per kernel entry, one stored graph per function, nothing left half-written.
    (compiledir,) = [d for d in compiledir_base.iterdir() if d.name.startswith("compiledir_")]
    entries = [d for d in compiledir.iterdir() if d.name.startswith("k")]
    assert len(entries) == len({o.parent for o in objects})
    assert len(list((compiledir / "graphs").glob("*.pkl"))) == 2
    assert not [d for d in compiledir.iterdir() if d.name.startswith("tmp-")]
    print(f"{N_PROCESSES} processes: {len(objects)} kernels compiled once "
          f"(by {sum(1 for r in reports if r['misses'])} of them), the slowest done "
          f"{max(r['seconds'] for r in reports):.2f} s after they all had imported jitgraph")
