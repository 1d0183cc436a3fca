"""The compiledir: concurrency, crashes, corruption and the jitgraph-cache command.

Each test uses its own base_compiledir through JITGRAPH_FLAGS in child processes (the flag is
read-only in a running process, as in Theano).
"""

from __future__ import annotations

import os
import pickle
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

# A tiny generated module: a kernel compiled with an explicit signature.
KERNEL_SOURCE = '''
import math
from numba import types as _nt
SIG_f = _nt.void(_nt.float64[::1], _nt.float64[::1])
def f(x, out):
    for i in range(x.shape[0]):
        out[i] = math.exp(x[i]) * {factor}
'''

CHILD = textwrap.dedent('''
    import sys, time, json
    import numba, numpy as np
    from jitgraph.cache.keys import make_key
    from jitgraph.cache.modules import CachedModule
    from jitgraph.cache import store
    factor = float(sys.argv[1])
    hold = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    source = {source!r}.format(factor=factor)
    cm = CachedModule(make_key(("test-kernel", factor)), source, {{"kind": "test"}})
    def build(fn):
        if hold:
            print("HOLDING", flush=True)
            time.sleep(hold)
        return numba.njit(cm.module.SIG_f, cache=True)(fn)
    disp = cm.compile("f", build)
    out = np.empty(3)
    disp(np.zeros(3), out)
    print(json.dumps({{"value": out.tolist(), "hits": store.STATS.hits,
                      "misses": store.STATS.misses, "rebuilt": store.STATS.rebuilt}}))
''').format(source=KERNEL_SOURCE)


def env_for(base: Path, extra: str = "") -> dict:
    env = dict(os.environ)
    env["JITGRAPH_FLAGS"] = f"base_compiledir={base},compile.wait=1,compile.timeout=60{extra}"
    env.pop("THEANO_FLAGS", None)
    return env


def run_child(base: Path, factor: float = 2.0, extra: str = "") -> dict:
    import json

    proc = subprocess.run([sys.executable, "-c", CHILD, str(factor)], env=env_for(base, extra),
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]) | {"stderr": proc.stderr}


def compiledir_of(base: Path) -> Path:
    dirs = [p for p in base.iterdir() if p.name.startswith("compiledir_")]
    assert len(dirs) == 1
    return dirs[0]


def entries_of(base: Path) -> list[Path]:
    return [p for p in compiledir_of(base).iterdir() if p.name.startswith("k")]


def test_second_process_loads_instead_of_compiling(tmp_path):
    first = run_child(tmp_path)
    assert first["misses"] == 1 and first["hits"] == 0
    second = run_child(tmp_path)
    assert second["hits"] == 1 and second["misses"] == 0
    assert second["value"] == first["value"] == [2.0, 2.0, 2.0]
    (entry,) = entries_of(tmp_path)
    assert {"key.pkl", "mod.py", "info.json"} <= {p.name for p in entry.iterdir()}


def test_changed_flags_miss_and_explain_names_the_part(tmp_path):
    run_child(tmp_path)
    run_child(tmp_path, extra=",gcc.cxxflags=-O1")
    assert len(entries_of(tmp_path)) == 2
    out = subprocess.run([sys.executable, "-m", "jitgraph.cache", "explain"],
                         env=env_for(tmp_path), capture_output=True, text=True, check=True)
    assert "flags" in out.stdout


@pytest.mark.slow
def test_eight_processes_compile_each_module_once(tmp_path):
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(2.0 + (k % 2))],
                              env=env_for(tmp_path), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for k in range(8)]
    import json

    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]) | {"stderr": err})
    for k, res in enumerate(results):
        assert res["value"] == [2.0 + (k % 2)] * 3
    assert sum(r["misses"] for r in results) == 2  # two distinct modules, each compiled once
    assert sum(r["hits"] for r in results) == 6
    root = compiledir_of(tmp_path)
    assert len(entries_of(tmp_path)) == 2
    assert not [p for p in root.iterdir() if p.name.startswith("tmp-")]
    for res in results:  # a waiter says so once per wait, not in a loop
        assert res["stderr"].count("waiting for the compile lock") <= 1


def test_killed_while_holding_the_lock(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", CHILD, "2.0", "60"], env=env_for(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "HOLDING"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    start = time.monotonic()
    res = run_child(tmp_path)  # the OS lock died with its holder: no wait for compile.timeout
    assert res["value"] == [2.0] * 3
    assert time.monotonic() - start < 60


def test_stale_owner_file_on_a_lock_nobody_holds_is_ignored(tmp_path):
    run_child(tmp_path)  # creates the compiledir
    lock_dir = compiledir_of(tmp_path) / "lock_dir"
    for name in ("x.owner",):
        (lock_dir / name).write_text(f"999999\n{os.uname().nodename}\nabc\n0\n")
    from jitgraph.cache.locking import ModuleLock

    with ModuleLock(lock_dir, "x", timeout=1, wait=0.1, quiet=True) as lock:
        assert lock.waited < 1


def test_killed_while_writing_an_entry_leaves_nothing_loadable(tmp_path):
    run_child(tmp_path)
    root = compiledir_of(tmp_path)
    # What a process killed in the middle of publish leaves: a tmp folder without key.pkl.
    partial = root / "tmp-deadbeef"
    partial.mkdir()
    (partial / "mod.py").write_text("garbage = (")
    res = run_child(tmp_path, factor=5.0)
    assert res["value"] == [5.0] * 3
    assert partial.exists()  # ignored, and removed by cleanup once old
    old = time.time() - 3 * 24 * 3600
    os.utime(partial, (old, old))
    subprocess.run([sys.executable, "-m", "jitgraph.cache", "cleanup"], env=env_for(tmp_path),
                   check=True, capture_output=True)
    assert not partial.exists()


def test_corrupt_key_file_is_rebuilt_with_a_warning(tmp_path):
    run_child(tmp_path)
    (entry,) = entries_of(tmp_path)
    (entry / "key.pkl").write_bytes(b"\x80\x04truncated")
    res = run_child(tmp_path)
    assert res["value"] == [2.0] * 3
    assert "unusable" in res["stderr"] and res["misses"] == 1


def test_wrong_key_in_a_folder_is_rebuilt(tmp_path):
    run_child(tmp_path)
    (entry,) = entries_of(tmp_path)
    from jitgraph.cache.keys import CacheKey

    (entry / "key.pkl").write_bytes(pickle.dumps(CacheKey((("kernel", "other"),))))
    res = run_child(tmp_path)
    assert res["value"] == [2.0] * 3 and "unusable" in res["stderr"]


def test_corrupt_compiled_artifact_is_rebuilt_with_a_warning(tmp_path):
    run_child(tmp_path)
    (entry,) = entries_of(tmp_path)
    artifacts = list((entry / "__pycache__").glob("*.nbi"))
    assert artifacts
    for path in artifacts:
        path.write_bytes(path.read_bytes()[:20])  # truncated index
    res = run_child(tmp_path)
    assert res["value"] == [2.0] * 3
    assert "rebuilt" in res["stderr"]
    fresh = run_child(tmp_path)
    assert fresh["hits"] == 1  # the rebuilt artifact is good


def cli(base: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jitgraph.cache", *args], env=env_for(base),
                          capture_output=True, text=True)


def test_every_cli_command(tmp_path):
    run_child(tmp_path)
    root = compiledir_of(tmp_path)
    assert cli(tmp_path).stdout.strip() == str(root)
    listing = cli(tmp_path, "list")
    assert listing.returncode == 0 and "1 entry: 1 CPU kernel" in listing.stdout
    stats = cli(tmp_path, "stats")
    assert re.search(r"CPU kernels\s+1\s", stats.stdout), stats.stdout
    entry = entries_of(tmp_path)[0].name
    assert "kernel" in cli(tmp_path, "explain", entry).stdout
    (root / "lock_dir" / "stuck.lock").write_text("")
    assert "removed" in cli(tmp_path, "unlock").stdout
    assert not (root / "lock_dir" / "stuck.lock").exists()
    assert "removed 0 old entries" in cli(tmp_path, "cleanup").stdout
    assert cli(tmp_path, "basecompiledir").stdout.strip() == str(tmp_path)
    assert "Sub-directories" in cli(tmp_path, "basecompiledir", "list").stdout
    assert "removed 1 entries" in cli(tmp_path, "clear").stdout
    assert entries_of(tmp_path) == []
    cli(tmp_path, "purge")
    assert not root.exists()
    bad = cli(tmp_path, "frobnicate")
    assert bad.returncode == 1 and "not recognized" in bad.stderr
    assert cli(tmp_path, "help").returncode == 0
    cli(tmp_path, "basecompiledir", "purge")
    assert not tmp_path.exists()


def test_unwritable_compiledir_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    env = env_for(blocker)
    proc = subprocess.run([sys.executable, "-c", "from jitgraph.cache import compiledir; "
                                                 "compiledir()"], env=env, capture_output=True,
                          text=True)
    assert proc.returncode != 0 and "base_compiledir" in proc.stderr


def test_import_creates_nothing(tmp_path):
    subprocess.run([sys.executable, "-c", "import jitgraph, jitgraph.cache"],
                   env=env_for(tmp_path / "base"), check=True)
    assert not (tmp_path / "base").exists()


def test_cli_commands_see_the_rewritten_graphs(tmp_path):
    import os
    import time

    child = ("import numpy as np, jitgraph, jitgraph.tensor as T\n"
             "x = T.dvector('x')\n"
             "f = jitgraph.function([x], T.exp(x) * 2)\n"
             "assert f(np.zeros(3)).tolist() == [2.0, 2.0, 2.0]\n"
             "print(f.maker.graph_from_cache)\n")
    run = [sys.executable, "-c", child]
    first = subprocess.run(run, env=env_for(tmp_path), capture_output=True, text=True)
    second = subprocess.run(run, env=env_for(tmp_path), capture_output=True, text=True)
    assert first.stdout.split() == ["False"] and second.stdout.split() == ["True"], second.stderr
    root = compiledir_of(tmp_path)
    (graph,) = (root / "graphs").glob("g*.pkl")
    assert re.search(r"rewritten graphs\s+1\s", cli(tmp_path, "stats").stdout)
    assert "1 rewritten graph (" in cli(tmp_path, "list").stdout
    assert "0 rewritten graphs" in cli(tmp_path, "cleanup").stdout and graph.exists()
    old = time.time() - 400 * 24 * 3600  # unused for longer than age_thresh_use + a week
    os.utime(graph, (old, old))
    cli(tmp_path, "cleanup")
    assert not graph.exists()
    subprocess.run(run, env=env_for(tmp_path), capture_output=True, text=True, check=True)
    assert list((root / "graphs").glob("g*.pkl"))
    cli(tmp_path, "clear")
    assert not (root / "graphs").exists()


def test_a_kernel_whose_generated_source_changed_gets_its_own_entry(tmp_path, monkeypatch):
    """Same kernel structure, different generated source (a jitgraph upgrade changed a helper):
    a new entry, no collision warning, and the old entry is kept for the old version."""
    import warnings

    from jitgraph.backend_cpu.codegen import kernels
    from jitgraph.backend_cpu.options import CodegenOptions
    from jitgraph.config import paths

    monkeypatch.setattr(paths, "ensure_compiledir", lambda cfg=None: str(tmp_path))
    source = ("import numpy as np\n"
              "from numba import types as _nt\n"
              "SIG = _nt.float64(_nt.float64)\n"
              "def f(x):\n    return x * {factor}\n")
    key = ("test-kernel", "source changes, key does not")
    made = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a collision would warn (CacheWarning)
        for factor in (2.0, 3.0):
            ks = kernels.KernelSource(key, source.format(factor=factor), ("f",),
                                      CodegenOptions())
            made.append(kernels.KernelModule(ks))
    assert len({str(m._cached.key) for m in made}) == 2


def test_a_miss_is_explained_without_listing_the_compiledir_each_time(tmp_path, monkeypatch):
    # Each miss listed the whole compiledir to find the same kernel under other settings:
    # O(entries) per miss. The listing is kept, with the entries this process publishes.
    from jitgraph.cache import metadata, modules, store
    from jitgraph.cache.keys import make_key

    for k in range(30):  # unrelated entries
        (tmp_path / f"k{k:020d}-{k:020d}").mkdir()
    listings = []
    scandir = os.scandir
    monkeypatch.setattr(modules.os, "scandir", lambda p: listings.append(p) or scandir(p))
    monkeypatch.setattr(modules, "_FOLDERS", {})
    info = metadata.cpu_kernel("test kernel", "numba-cpu")
    store.STATS.reasons.clear()
    first = modules.CachedModule(make_key(("explain-test",), opt=1), "x = 1\n", info, tmp_path)
    second = modules.CachedModule(make_key(("explain-test",), opt=2), "x = 1\n", info, tmp_path)
    assert len(listings) == 1
    assert store.STATS.reasons == [f"{first.entry.path.name}: same kernel, different opt"]
    (tmp_path / "k_other-process").mkdir()  # another process published: listed again
    modules.CachedModule(make_key(("explain-test",), opt=3), "x = 1\n", info, tmp_path)
    assert len(listings) == 2
    assert sorted(store.STATS.reasons[1:]) == sorted(
        f"{e.entry.path.name}: same kernel, different opt" for e in (first, second))


def test_entry_folder_name_is_kernel_digest_then_full_digest():
    """The compiledir's layout: ``k<kernel part digest>-<digest of all parts>`` (20 hex digits
    each; published entries are found by this name, so it must not drift)."""
    import hashlib

    from jitgraph.cache.keys import CacheKey, part_digest

    kernel = ("elemwise", {"b": 1, "a": (2, 3)}, frozenset({"x"}))
    key = CacheKey.from_parts({"kernel": kernel, "numpy": "2.0", "python": "3.11"})
    parts = {"kernel": part_digest(kernel), "numpy": part_digest("2.0"),
             "python": part_digest("3.11")}
    full = hashlib.sha256("\n".join(f"{n}={d}" for n, d in parts.items()).encode()).hexdigest()
    assert key.folder_name() == f"k{parts['kernel'][:20]}-{full[:20]}"
    assert key.digest() == full and key.kernel_digest() == parts["kernel"]
    no_kernel = CacheKey.from_parts({"numpy": "2.0"})
    assert no_kernel.folder_name() == f"k{part_digest(None)[:20]}-{no_kernel.digest()[:20]}"
