"""Tiered compilation (``backend_cpu.codegen.tiering``): a cold program's first calls run on
tier-0 kernels while a child compiles the optimised ones; both tiers compute the same bits,
the switch is seen by every caller (threads included), a fork meanwhile is safe, and the
compiledir holds every optimised object when the process has gone.

Each test runs a fresh process on an empty compiledir (tiers only exist in a cold compile)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from jitgraph.backend_cpu.codegen import compile_ahead

pytestmark = pytest.mark.skipif(not compile_ahead.enabled(),
                                reason="tiers need a forked compile child (Linux, 2 CPUs)")

# Kernels of every kind a program meets: transcendentals through the vecmath block functions,
# reductions (float32 accumulated in float64), softmax, integer and boolean outputs; inputs
# with the special values that take the blocks' libm paths.
PROGRAM = textwrap.dedent('''
    import json, os, sys, threading, time
    import numpy as np
    import jitgraph, jitgraph.tensor as T
    from jitgraph.backend_cpu.codegen import kernels, tiering

    hold = threading.Event()  # upgrades wait for it: the first call surely runs tier-0 code
    original = tiering._upgrade

    held_first = threading.Event()  # the first program's upgrades, in "overlap" mode

    def held_upgrade(upgrade, index):
        hold.wait()
        if upgrade is first_upgrade:
            held_first.wait()
        original(upgrade, index)

    tiering._upgrade = held_upgrade

    def graph(dtype):
        x, y = T.matrix("x", dtype=dtype), T.vector("y", dtype=dtype)
        return [x, y], [T.exp(x) - T.log1p(abs(x)), T.tanh(x) * T.sin(x) + T.cos(x),
                        T.nnet.softmax(x), T.expm1(x).sum(axis=0), T.log(abs(x) + y).sum(axis=1),
                        T.nnet.sigmoid(x) * T.nnet.softplus(-x), T.argmax(x * y, axis=1),
                        (T.sqr(x - y) / (1 + abs(y))).mean(), x > y]

    special = [np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324, 1e-310, 709.9, 710.0, -745.2,
               -1e5, 1e5, 354.5, -0.9999, 1e300, 3.0, -2.5, 0.5]
    rng = np.random.default_rng(0)
    values = []
    for dtype in ("float64", "float32"):
        xv = rng.uniform(-3, 3, (23, 37))
        xv.flat[:len(special)] = special
        values += [xv.astype(dtype), rng.uniform(0.1, 2, 37).astype(dtype)]
    ins, outs = [], []
    for dtype in ("float64", "float32"):
        i, o = graph(dtype)
        ins, outs = ins + i, outs + o
    with np.errstate(all="ignore"):
        f = jitgraph.function(ins, outs)
    mode = sys.argv[1]
    first_upgrade = tiering._active[-1] if mode == "overlap" else None
    if first_upgrade is None:
        held_first.set()

    def run():
        with np.errstate(all="ignore"):
            return [np.asarray(r) for r in f(*values)]

    def digest(results):
        return [r.dtype.str + r.tobytes().hex() for r in results]

    report = {"tier0_compiles": len(kernels.TIER0_LOG)}
    handles = [(m, e, h) for m in list(kernels._MODULES.values()) for e, h in m._tier0.items()]
    first = run()
    report["pending_at_first_call"] = tiering.pending()
    if mode == "threads":  # callers running while every entry is switched under them
        errors = []

        def caller():
            for _ in range(60):
                if digest(run()) != digest(first):
                    errors.append("a caller saw other values")
                    return

        threads = [threading.Thread(target=caller) for _ in range(4)]
        for t in threads:
            t.start()
        hold.set()
        for t in threads:
            t.join()
        report["errors"] = errors
    elif mode == "fork":  # the program forks while upgrades are pending
        pid = os.fork()
        if pid == 0:
            hold.set()
            x = T.dvector("x")
            g = jitgraph.function([x], [T.exp(x) + T.tanh(x), T.log1p(x * x).sum(), x * 2])
            ok = np.allclose(g(np.arange(4.0))[2], np.arange(4.0) * 2)
            ok = ok and digest(run()) == digest(first)
            os._exit(0 if ok else 3)
        hold.set()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.05)
        else:
            os.kill(pid, 9)
            status = -1
        report["fork_status"] = status
    elif mode == "overlap":  # a second program compiled while the first one's are pending
        x2 = T.dmatrix("x2")
        g = jitgraph.function([x2], [T.exp(x2) * T.tanh(x2 + 1), T.log1p(abs(x2)).sum(axis=0),
                                     T.nnet.softmax(x2 * 2), T.cos(x2) - T.sin(x2) * 3])
        handles += [(m, e, h) for m in list(kernels._MODULES.values())
                    for e, h in m._tier0.items() if (m, e, h) not in handles]
        g_first = digest([np.asarray(r) for r in g(values[0])])
        hold.set()  # the second program's kernels are upgraded first, bound to tier-0 blocks
        tiering._active[-1].thread.join()
        held_first.set()  # then the first program's blocks and kernels
        tiering.settle()
        report["g_same"] = digest([np.asarray(r) for r in g(values[0])]) == g_first
    elif mode == "pool":  # a fork after an upgrade finished, before anything settled it
        hold.set()
        tiering._active[-1].thread.join()
        import multiprocessing
        with multiprocessing.get_context("fork").Pool(2) as pool:
            report["pool"] = pool.map_async(abs, [-1, -2, -3]).get(timeout=60)
    hold.set()
    held_first.set()
    tiering.settle()
    report["first"] = digest(first)
    report["after"] = digest(run())
    from jitgraph.backend_cpu.native import objects
    # every tier-0 function now calls the optimised object (loaded under the entry's own name)
    report["retargeted"] = sum(h.ml_meth == objects._loaded.get(m.export_name(e))
                               for m, e, h in handles)
    report["handles"] = len(handles)
    s = tiering.STATS
    report.update(quick=s.quick, upgraded=s.upgraded, missed=s.missed, pending=tiering.pending(),
                  compiles=len(kernels.COMPILE_LOG))
    print(json.dumps(report))
''')


def _run(base, mode: str, tiered: bool = True) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "JITGRAPH_FLAGS"}
    env["JITGRAPH_FLAGS"] = f"base_compiledir={base}"
    env["JITGRAPH_TIERED"] = "1" if tiered else "0"
    env.pop("JITGRAPH_PARALLEL_COMPILE", None)
    proc = subprocess.run([sys.executable, "-c", PROGRAM, mode], env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The program compiled without tiers (one optimised compile of every kernel)."""
    return _run(tmp_path_factory.mktemp("untiered"), "plain", tiered=False)


@pytest.mark.slow
def test_tier0_and_optimised_kernels_compute_the_same_bits(tmp_path, reference):
    assert reference["quick"] == 0 and reference["tier0_compiles"] == 0
    got = _run(tmp_path, "plain")
    # every entry ran at tier 0 on the first call, then was upgraded
    assert got["quick"] > 10 and got["pending_at_first_call"] == got["quick"]
    assert got["upgraded"] == got["quick"] and got["missed"] == 0 and got["pending"] == 0
    assert got["retargeted"] == got["handles"] > 10
    assert got["first"] == reference["first"]  # tier 0: bit for bit the optimised values
    assert got["after"] == reference["first"]
    # each optimised entry compiled once (by the child), as without tiers
    assert got["compiles"] == reference["compiles"]
    # the process left every optimised object in the compiledir: a new one compiles nothing
    warm = _run(tmp_path, "plain")
    assert warm["compiles"] == 0 and warm["tier0_compiles"] == 0 and warm["quick"] == 0
    assert warm["first"] == reference["first"]


@pytest.mark.slow
def test_callers_on_other_threads_see_the_switch_safely(tmp_path, reference):
    got = _run(tmp_path, "threads")
    assert got["errors"] == []
    assert got["upgraded"] == got["quick"] > 0 and got["after"] == reference["first"]


@pytest.mark.slow
def test_a_fork_while_upgrades_are_pending_compiles_and_runs_in_the_child(tmp_path, reference):
    got = _run(tmp_path, "fork")
    assert got["fork_status"] == 0  # no deadlock, right values in the forked process
    assert got["upgraded"] == got["quick"] > 0 and got["after"] == reference["first"]


def test_entries_with_fast_math_or_debug_are_not_tiered():
    from jitgraph.backend_cpu.codegen import tiering
    from jitgraph.backend_cpu.options import CodegenOptions

    def module(**options):
        return type("M", (), {"source": type("S", (), {"options": CodegenOptions(**options)})})

    assert tiering.eligible(module())
    assert not tiering.eligible(module(fastmath=("fast",)))  # rounding may differ by tier
    assert not tiering.eligible(module(opt_level=0))
    assert not tiering.eligible(module(debug=True))
    assert not tiering.eligible(module(boundscheck=True))


@pytest.mark.slow
def test_a_program_compiled_while_another_is_upgraded_ends_optimised_too(tmp_path, reference):
    # the second program's tier-0 kernels bind the first one's tier-0 blocks; every function
    # must end on its optimised object, none pointed back at tier-0 code by a block's relink
    got = _run(tmp_path, "overlap")
    assert got["g_same"] and got["after"] == reference["first"]
    assert got["retargeted"] == got["handles"] > got["quick"] // 2 > 0
    assert got["upgraded"] == got["quick"] and got["missed"] == 0


@pytest.mark.slow
def test_a_fork_after_an_upgrade_keeps_the_files_it_reuses(tmp_path):
    # The finished upgrade's pipe was closed by its thread; a fork must not close that number
    # again in the child, where a multiprocessing pool's own pipe now has it (the pool's
    # workers died at start and map() waited forever).
    got = _run(tmp_path, "pool")
    assert got["pool"] == [1, 2, 3]
