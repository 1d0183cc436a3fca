"""Native kernel objects in the compiledir: loaded without Numba, rebuilt when damaged, compiled
once by many processes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from test_cache import compiledir_of, env_for

# A graph with a fused elementwise kernel using the vecmath exp block and a reduction.
CHILD = textwrap.dedent('''
    import json, sys
    import numpy as np
    import jitgraph, jitgraph.tensor as T
    from jitgraph.cache import store
    x = T.dmatrix("x")
    f = jitgraph.function([x], [T.exp(x) * 2 + x, (x ** 2).sum(axis=0).sum(), x.any(axis=1)])
    a, s, _ = f(np.linspace(-1.0, 1.0, 1001).reshape(7, 143))
    from jitgraph.backend_cpu.codegen import tiering
    tiering.settle()  # the optimised kernels' counts come with the compile child's report
    print(json.dumps({"a": float(a.sum()), "s": float(s), "numba": "numba" in sys.modules,
                      "llvmlite": "llvmlite" in sys.modules,
                      "graph_cached": f.maker.graph_from_cache,
                      "program_restored": getattr(f.maker.program, "restored", False),
                      "rewrite_modules": "jitgraph.tensor.rewriting.fusion" in sys.modules,
                      "lowerings": [m for m in ("jitgraph.backend_cpu.lowering.elemwise",
                                                "jitgraph.backend_cpu.codegen.elemwise",
                                                "jitgraph.backend_cpu.codegen.reduce")
                                    if m in sys.modules],
                      "hits": store.STATS.hits, "misses": store.STATS.misses,
                      "rebuilt": store.STATS.rebuilt}))
''')


def run(base: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD], env=env_for(base), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]) | {"stderr": proc.stderr}


def expected() -> tuple[float, float]:
    import numpy as np

    v = np.linspace(-1.0, 1.0, 1001)
    return float((np.exp(v) * 2 + v).sum()), float((v ** 2).sum())


def natives(base: Path) -> list[Path]:
    return sorted(compiledir_of(base).glob("k*/native-*.o"))


@pytest.mark.slow
def test_warm_process_loads_native_objects_without_numba(tmp_path):
    cold = run(tmp_path)
    assert cold["misses"] > 0
    assert not cold["numba"], "these kernels are compiled without Numba (backend_cpu.direct)"
    warm = run(tmp_path)
    assert not warm["numba"], "a warm process must not import Numba"
    assert not cold["graph_cached"] and warm["graph_cached"]
    assert warm["program_restored"], "a warm process links from the stored program"
    assert not warm["lowerings"], "a warm process imports neither lowerings nor code generators"
    assert not warm["rewrite_modules"], "a warm process skips the rewrite passes"
    from jitgraph.backend_cpu.native import elf_loader

    if elf_loader.usable():
        assert not warm["llvmlite"], "on Linux x86-64 a warm process does not import llvmlite"
    assert warm["misses"] == 0 and warm["hits"] == cold["misses"]
    for res in (cold, warm):
        assert res["a"] == pytest.approx(expected()[0], rel=1e-12)
        assert res["s"] == pytest.approx(expected()[1], rel=1e-12)
    assert natives(tmp_path)
    from jitgraph.cache import metadata

    for meta in compiledir_of(tmp_path).glob("k*/native-*.json"):
        info = metadata.parse(meta.read_bytes(), metadata.FUNCTION)
        assert info.kind == metadata.NATIVE_OBJECT, meta.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["truncate-object", "flip-object", "garbage-json"])
def test_damaged_native_object_is_rebuilt_with_a_warning(tmp_path, damage):
    run(tmp_path)
    victim = natives(tmp_path)[0]
    if damage == "truncate-object":
        victim.write_bytes(victim.read_bytes()[:100])
    elif damage == "flip-object":
        data = bytearray(victim.read_bytes())
        data[len(data) // 2] ^= 0xFF
        victim.write_bytes(bytes(data))
    else:
        victim.with_suffix(".json").write_text("{not json")
    res = run(tmp_path)
    assert "rebuilt" in res["stderr"] and res["rebuilt"] >= 1
    assert res["a"] == pytest.approx(expected()[0], rel=1e-12)
    again = run(tmp_path)
    assert again["misses"] == 0 and not again["numba"] and again["rebuilt"] == 0


@pytest.mark.slow
def test_concurrent_processes_compile_each_native_object_once(tmp_path):
    procs = [subprocess.Popen([sys.executable, "-c", CHILD], env=env_for(tmp_path),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(4)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    n_objects = len(natives(tmp_path))
    assert sum(r["misses"] for r in results) == n_objects
    for r in results:
        assert r["a"] == pytest.approx(expected()[0], rel=1e-12)
    leftovers = [p for p in compiledir_of(tmp_path).rglob("tmp-*")]
    assert not leftovers


@pytest.mark.slow
def test_partial_native_write_is_ignored_and_cleaned_up(tmp_path):
    """What a process killed while writing an object leaves (a temporary file in the entry)
    is never loaded, and ``jitgraph-cache cleanup`` removes it once old."""
    import os
    import time

    run(tmp_path)
    entry = natives(tmp_path)[0].parent
    partial = entry / "tmp-0123abcd-native-kernel_c.o"
    partial.write_bytes(b"\x7fELF partial")
    res = run(tmp_path)
    assert res["misses"] == 0 and res["rebuilt"] == 0
    old = time.time() - 3 * 24 * 3600
    os.utime(partial, (old, old))
    subprocess.run([sys.executable, "-m", "jitgraph.cache", "cleanup"], env=env_for(tmp_path),
                   check=True, capture_output=True)
    assert not partial.exists()


def test_kernel_needing_numbas_runtime_compiles_under_its_own_lock_once(tmp_path):
    """An entry recorded as having no native object is compiled through Numba's cache while
    the compile lock is held: the lock must not be taken a second time (it is not
    re-entrant, and the process would wait for itself)."""
    import threading

    import numba
    import numpy as np

    from jitgraph.backend_cpu.codegen import kernels
    from jitgraph.cache.keys import make_key
    from jitgraph.cache.modules import CachedModule

    source = ("from numba import types as _nt\n"
              "SIG_f = _nt.void(_nt.float64[::1])\n"
              "def f(out):\n"
              "    for i in range(out.shape[0]):\n"
              "        out[i] = i\n")
    cached = CachedModule(make_key(("test-needs-runtime", 1)), source, {"kind": "test"},
                          root=tmp_path)
    cached.write_native("f", {"native": False, "why": "test"}, None)

    def compile_numba(mode):
        return numba.njit(cached.module.SIG_f, cache=mode == kernels.CACHED)(cached.module.f)

    result = {}
    worker = threading.Thread(target=lambda: result.update(fn=kernels.obtain(
        cached, "f", "jg_test_needs_runtime_f", "python", "host", compile_numba)), daemon=True)
    worker.start()
    worker.join(timeout=120)
    assert not worker.is_alive(), "obtain() waited for a lock its own process holds"
    out = np.zeros(4)
    result["fn"](out)
    assert out.tolist() == [0.0, 1.0, 2.0, 3.0]
