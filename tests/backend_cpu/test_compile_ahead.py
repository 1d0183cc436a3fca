"""Kernels compiled together before the first call (``compile_ahead``): in a forked child
process and this one, the same values and counts as one process alone; elementwise kernels
shared between ranks through flat views; a flipped kernel gradient laid out contiguously."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.backend_cpu.codegen import compile_ahead
from jitgraph.backend_cpu.options import CodegenOptions
from jitgraph.backend_cpu.runtime.conv_gemm import CorrRunner
from jitgraph.backend_cpu.lowering.elemwise import flat_structure, structure_of
from jitgraph.tensor.signal import pool

from cpu_testing import assert_same, compile_fn, reference, with_layout

HERE = os.path.dirname(os.path.abspath(__file__))

# A small LeNet-like training step: convolutions, pooling, elementwise kernels of several ranks.
CHILD = textwrap.dedent('''
    import json, sys
    import numpy as np
    import jitgraph, jitgraph.tensor as T
    from jitgraph.tensor.signal import pool
    from jitgraph.backend_cpu.codegen.kernels import COMPILE_LOG
    from jitgraph.cache import store
    rng = np.random.RandomState(0)
    x = T.tensor4("x")
    w1 = jitgraph.shared(rng.uniform(-.3, .3, (4, 1, 3, 3)))
    w2 = jitgraph.shared(rng.uniform(-.3, .3, (5, 4, 3, 3)))
    b = jitgraph.shared(np.zeros(4))
    h = T.tanh(pool.pool_2d(T.nnet.conv2d(x, w1), (2, 2), ignore_border=True)
               + b.dimshuffle("x", 0, "x", "x"))
    cost = T.sqr(T.nnet.conv2d(h, w2)).mean()
    params = [w1, w2, b]
    f = jitgraph.function([x], cost, updates=[(p, p - 0.1 * g)
                                               for p, g in zip(params, T.grad(cost, params))])
    xv = rng.uniform(0, 1, (6, 1, 12, 12))
    costs = [float(f(xv)) for _ in range(3)]
    print(json.dumps({"costs": costs, "w1": w1.get_value().tolist(),
                      "kernels": len(COMPILE_LOG), "misses": store.STATS.misses,
                      "hits": store.STATS.hits}))
''')


def _run(base, parallel: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("JITGRAPH_FLAGS",)}
    env["JITGRAPH_FLAGS"] = f"base_compiledir={base},floatX=float64"
    env["JITGRAPH_PARALLEL_COMPILE"] = "1" if parallel else "0"
    env["JITGRAPH_TIERED"] = "0"  # the child shares the work (tests/backend_cpu/test_tiering.py)
    proc = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.skipif(not compile_ahead.enabled(), reason="needs fork and two processors")
def test_child_process_compiles_a_share_with_the_same_results(tmp_path):
    alone = _run(tmp_path / "alone", parallel=False)
    shared = _run(tmp_path / "shared", parallel=True)
    assert shared["costs"] == alone["costs"] and shared["w1"] == alone["w1"]
    # every kernel compiled once, counted once, whichever process compiled it
    assert shared["kernels"] == alone["kernels"] > compile_ahead.MIN_PARALLEL
    assert shared["misses"] == alone["misses"] and shared["hits"] == alone["hits"]
    warm = _run(tmp_path / "shared", parallel=True)
    assert warm["costs"] == alone["costs"] and warm["kernels"] == 0


def test_want_outside_a_build_compiles_at_once():
    from jitgraph.backend_cpu.codegen.kernels import kernel_module
    from jitgraph.backend_cpu.codegen.conv import conv_kernels_source
    from jitgraph.backend_cpu.options import current_options

    module = kernel_module(conv_kernels_source(2, "float64", current_options()))
    compile_ahead.want(module, "col2im")
    assert module.is_compiled("col2im")


def test_elementwise_kernel_of_any_rank_runs_flat():
    s = T.dscalar("s")
    xs = [T.TensorType("float64", (False,) * n)(f"x{n}") for n in (2, 3, 4)]
    ys = [x.type(f"y{x.ndim}") for x in xs]
    outs = [x - s * y for x, y in zip(xs, ys)]
    structures = [structure_of(o.owner) for o in outs]
    assert len({flat_structure(st) for st in structures}) == 1
    assert flat_structure(structure_of((xs[0] + T.dvector("v")).owner)) is None  # partial
    fn = compile_fn([s, *xs, *ys], outs, linker="c")
    rng = np.random.default_rng(0)
    values = [rng.uniform(-1, 1, (3, 4, 5, 6)[:n]) for n in (2, 3, 4)] * 2
    givens = dict(zip([s, *xs, *ys], [0.5, *values]))
    expected = reference(outs, givens)
    for layout in ("C", "negative", "strided"):
        got = fn(0.5, *(with_layout(v, layout) for v in values))
        for g, e in zip(got, expected):
            assert_same(g, e, layout)
    with pytest.raises(ValueError, match="mismatch"):
        fn(0.5, *values[:3], values[3].T, *values[4:])


def test_flipped_kernel_gradient_is_a_reversed_contiguous_array():
    x, w = T.tensor4("x"), T.tensor4("w")
    cost = T.nnet.conv2d(pool.pool_2d(x, (2, 2), ignore_border=True), w).sum()
    gw = T.grad(cost, w)
    fn = jitgraph.function([x, w], [gw, w - 0.1 * gw])
    runners = [v.__self__ for v in fn.maker.program.run.__globals__.values()
               if isinstance(getattr(v, "__self__", None), CorrRunner)]
    assert any(r.flipped_output for r in runners)
    rng = np.random.default_rng(2)
    xv, wv = rng.uniform(-1, 1, (3, 2, 10, 10)), rng.uniform(-1, 1, (4, 2, 3, 3))
    got, upd = fn(xv, wv)
    expected = reference([gw], {x: xv, w: wv})[0]
    assert_same(got, expected, "kernel gradient")
    assert_same(upd, wv - 0.1 * expected, "update")


class _FakeModule:
    """Stands for a KernelModule: never stored, fails in the parent process."""

    def __init__(self, parent: int) -> None:
        self.parent = parent
        self.source = type("Source", (), {"source": "x" * 10, "options": CodegenOptions()})()

    def is_compiled(self, entry: str) -> bool:
        return False

    def stored(self, entry: str) -> bool:
        return False

    def get(self, entry: str) -> None:
        if os.getpid() == self.parent:
            raise RuntimeError("this kernel does not compile")
        import time

        time.sleep(30)  # the child: still busy when the parent fails

    get_quick = get  # tiered: fails at tier 0 as well

    def is_quick(self, entry: str) -> bool:
        return False


@pytest.mark.skipif(not compile_ahead.enabled(), reason="needs fork and two processors")
def _child_processes() -> set[int]:
    """This process's children, reaped or not (Linux's /proc lists zombies too)."""
    found: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as listing:
            found.update(int(pid) for pid in listing.read().split())
    return found


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="lists children from /proc")
def test_a_failing_compile_leaves_no_child_process():
    # Compared with the children before, so processes other tests left behind (a
    # multiprocessing pool's) do not count.
    before = _child_processes()
    modules = [_FakeModule(os.getpid()) for _ in range(compile_ahead.MIN_PARALLEL)]
    with pytest.raises(RuntimeError, match="does not compile"):
        compile_ahead.compile_entries([(m, "kernel_c") for m in modules])
    assert _child_processes() <= before  # the compile child was killed and reaped


class _CallingModule:
    """Stands for a KernelModule whose kernel calls block functions (records its compile)."""

    def __init__(self, calls: list, body: str) -> None:
        self.calls = calls
        self.source = type("Source", (), {"source": body, "options": CodegenOptions()})()

    def is_compiled(self, entry: str) -> bool:
        return False

    def stored(self, entry: str) -> bool:
        return False

    def get(self, entry: str) -> None:
        self.calls.append(entry)


def test_block_functions_a_kernel_calls_are_work_items_of_their_own(monkeypatch):
    # They were compiled only when the process that had compiled a kernel loaded it, one
    # after the other on that process, while the other one waited (a third of a cold
    # logistic-regression compile).
    from jitgraph.backend_cpu.runtime import blocks

    calls: list = []
    monkeypatch.setattr(blocks, "_addresses", {"log": 1})  # already loaded: not scheduled
    monkeypatch.setattr(blocks, "address", lambda name: calls.append(f"block {name}"))
    monkeypatch.setattr(compile_ahead, "enabled", lambda: False)
    body = 'block_call("exp", a, b, n)\nblock_call("tanh", a, b, n)\nblock_call("log", a, b, n)'
    modules = [_CallingModule(calls, body), _CallingModule(calls, 'block_call("exp", a, b, n)')]
    compile_ahead.compile_entries([(m, "kernel_c") for m in modules])
    assert sorted(calls) == ["block exp", "block tanh", "kernel_c", "kernel_c"]
    assert [b.name for b in blocks.called_by(body)] == ["exp", "log", "tanh"]


def test_prepare_leaves_a_forked_child_nothing_to_set_up(monkeypatch):
    # The direct compiler's modules and LLVM's first pipeline run (~30 ms) happen before the
    # fork, once per target machine, instead of in both processes after it.
    import sys

    from jitgraph.backend_cpu.native import direct, objects

    monkeypatch.setattr(direct, "_warmed", set())
    runs = []
    optimize = direct._optimize
    monkeypatch.setattr(direct, "_optimize", lambda *a: runs.append(a) or optimize(*a))
    compile_ahead._prepare_tools({"host", ""})   # one target machine, two names
    compile_ahead._prepare_tools({"host"})
    assert "jitgraph.backend_cpu.native.direct_lower" in sys.modules
    assert direct._warmed == {id(objects._target_machine("host"))} and len(runs) == 1
